// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/lockmeter: the lockmeter report and control file.
 *
 * open() for reading takes a snapshot of every CPU's table, merges equal
 * keys, sorts the rows by longest hold and resolves per-CPU lock names
 * once (lockmeter_names.c); read() walks that snapshot; release() frees
 * it.  Writing "on", "off", "reset" or "0" (= reset), "release" (give
 * back its memory, while off) controls metering;
 * "watch hold 5ms" and the like set thresholds (lockmeter_watch.c).
 * Both need CAP_SYS_ADMIN (and the file is 0600), as the netlink stats
 * dump and control do.
 *
 * The format (version line, "key: value" header, one row per
 * (type, lock, site) with raw ns and counts) is documented in
 * Documentation/locking/lockmeter.rst; keep the two in step.
 *
 * With CONFIG_LOCKMETER_HIST, /proc/lockmeter_hist is the opt-in for the
 * histograms: the same rows in the same order, each as a hold line and a
 * wait line of bucket counts, so that /proc/lockmeter keeps its format.
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/init.h>
#include <linux/overflow.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>

#include "lockmeter.h"

/* indexed by enum lm_type */
static const struct {
	const char *name;
} lm_types[LM_NR_TYPES] = {
	[LM_NONE] = { .name = "none" },
#define LM_TYPE(type)	\
	[LM_##type] = { .name = #type },
#include "lockmeter_types.h"
#undef LM_TYPE
};

/* lockmeter_types.h names every type: as many names as types */
enum {
#define LM_TYPE(type)	LM_NAMED_##type,
#include "lockmeter_types.h"
#undef LM_TYPE
	LM_NAMED
};

static_assert(LM_NAMED + 1 == LM_NR_TYPES);

struct lm_proc {
	struct lm_snapshot snap;
	struct lm_names names;
	bool hist;		/* /proc/lockmeter_hist */
	char lock[LM_NAME_LEN];
	char site[LM_NAME_LEN];
};

#define LOCKMETER_HIST_VERSION	1

/* Header line @key: the thresholds @ns set, "type=ns" each, or "-". */
static void lm_show_watch(struct seq_file *m, const char *key, const u64 *ns)
{
	bool any = false;
	unsigned int t;

	seq_printf(m, "%s:", key);
	for (t = LM_NONE + 1; t < LM_NR_TYPES; t++) {
		if (!ns[t])
			continue;
		seq_printf(m, " %s=%llu", lm_types[t].name, ns[t]);
		any = true;
	}
	seq_puts(m, any ? "\n" : " -\n");
}

static void lm_show_header(struct seq_file *m, struct lm_proc *p)
{
	const struct lm_snapshot *s = &p->snap;

	seq_printf(m, "lockmeter version %d\n", LOCKMETER_VERSION);
	seq_printf(m, "kernel: %s\n", init_utsname()->release);
	seq_printf(m, "cpus: %u\n", num_online_cpus());
	seq_printf(m, "clock: %s\n", lm_clock_name());
	seq_printf(m, "state: %s\n", s->on ? "on" : "off");
	seq_printf(m, "metered_ns: %llu\n", s->metered_ns);
	seq_printf(m, "resets: %llu\n", s->resets);
	seq_printf(m, "keys_used: %u\n", s->keys_used);
	seq_printf(m, "keys: %u\n", s->keys);
	/* the names of before the key directory, for readers that know them */
	seq_printf(m, "slots_used: %u\n", s->keys_used);
	seq_printf(m, "slots_per_cpu: %u\n", s->keys);
	seq_printf(m, "rows: %zu\n", s->nr);
	seq_printf(m, "dropped: %llu\n", s->loss.dropped);
	seq_printf(m, "unmatched: %llu\n", s->loss.unmatched);
	seq_printf(m, "recursion: %llu\n", s->loss.recursion);
	seq_printf(m, "table_full: %llu\n", s->table_full);
	seq_printf(m, "evicted: %llu\n", s->loss.evicted);
	seq_printf(m, "irqctx: %llu\n", s->loss.irqctx);
	seq_printf(m, "truncated: %llu\n", s->truncated);
	seq_printf(m, "stack_depth: %d\n", CONFIG_LOCKMETER_STACK_DEPTH);
	seq_printf(m, "task_depth: %d\n", CONFIG_LOCKMETER_TASK_DEPTH);
	seq_printf(m, "notask: %llu\n", s->loss.notask);
	seq_printf(m, "mem_percpu: %lu\n", s->mem_percpu);
	seq_printf(m, "mem_tables: %lu\n", s->mem_tables);
	seq_printf(m, "mem_task: %lu\n", s->mem_task);
	seq_printf(m, "mem_keys: %lu\n", s->mem_keys);
	seq_printf(m, "mem_cpus: %u\n", s->mem_cpus);
	seq_printf(m, "mem_rows: %lu\n", s->mem_rows);
	seq_printf(m, "mem_cap: %lu\n", s->mem_cap);
	seq_printf(m, "cache_fills: %llu\n", s->cache_fills);
	seq_printf(m, "stacks_full: %llu\n", s->loss.stacks_full);
	seq_printf(m, "captures: %llu\n", s->captures);
	seq_printf(m, "hist_buckets: %u\n", LM_SLOT_HIST_NR);
	seq_printf(m, "hist_lost: %llu\n", s->loss.hist_lost);
	lm_show_watch(m, "watch_hold_ns", s->watch.hold_ns);
	lm_show_watch(m, "watch_wait_ns", s->watch.wait_ns);
	seq_printf(m, "alerts: %llu\n", s->loss.alerts + s->watch.held);
	seq_printf(m, "alerts_sent: %llu\n", s->watch.sent);
	seq_printf(m, "alerts_dropped: %llu\n", s->loss.alerts_dropped + s->watch.unsent);
	seq_printf(m, "alerts_self: %llu\n", s->loss.alerts_self);
	seq_puts(m, "\n# type acquired nowait spin reject abort hold_total_ns hold_min_ns hold_max_ns wait_total_ns wait_min_ns wait_max_ns oncpu_total_ns oncpu_max_ns blocked_total_ns blocked_max_ns instances lock site\n");
}

/* /proc/lockmeter_hist: what its rows need of the header, and the bounds. */
static void lm_show_hist_header(struct seq_file *m, struct lm_proc *p)
{
	const struct lm_snapshot *s = &p->snap;
	unsigned int i;

	seq_printf(m, "lockmeter_hist version %d\n", LOCKMETER_HIST_VERSION);
	seq_printf(m, "kernel: %s\n", init_utsname()->release);
	seq_printf(m, "state: %s\n", s->on ? "on" : "off");
	seq_printf(m, "metered_ns: %llu\n", s->metered_ns);
	seq_printf(m, "resets: %llu\n", s->resets);
	seq_printf(m, "rows: %zu\n", s->nr);
	seq_printf(m, "truncated: %llu\n", s->truncated);
	seq_printf(m, "hist_buckets: %u\n", LM_SLOT_HIST_NR);
	seq_printf(m, "hist_lost: %llu\n", s->loss.hist_lost);
	seq_puts(m, "hist_bounds_ns:");
	for (i = 0; i < LM_SLOT_HIST_NR; i++)
		seq_printf(m, " %llu", lm_hist_bound(i));
	seq_puts(m, "\n\n# type hist");
	for (i = 0; i < LM_SLOT_HIST_NR; i++)
		seq_printf(m, " b%u", i);
	seq_puts(m, " lock site\n");
}

static void lm_show_hist_line(struct seq_file *m, const struct lm_stat *r,
			      const char *which, const u64 *h, const char *lock,
			      const char *site)
{
	unsigned int i;

	seq_printf(m, "%-5s %s", lm_types[r->key.type].name, which);
	for (i = 0; i < LM_SLOT_HIST_NR; i++)
		seq_printf(m, " %llu", h[i]);
	seq_printf(m, " %s %s\n", lock, site);
}

static void lm_show_row(struct seq_file *m, struct lm_proc *p,
			const struct lm_stat *r)
{
	u64 inst = lm_class_merges(lm_class(r->key.class)) ?
		   lm_inst_estimate(r->inst) : 1;

	seq_printf(m, "%-5s %9llu %9llu %7llu %7llu %5llu %13llu %10llu %10llu %13llu %10llu %10llu ",
		   lm_types[r->key.type].name, r->nowait + r->spin, r->nowait,
		   r->spin, r->reject, r->abort, r->hold.total, r->hold.min,
		   r->hold.max, r->wait.total, r->wait.min, r->wait.max);
	seq_printf(m, "%13llu %10llu %13llu %10llu %5llu ", r->oncpu_total,
		   r->oncpu_max, r->blocked_total, r->blocked_max, inst);
	seq_printf(m, "%s %s\n", lm_lock_name(&p->names, &r->key, p->lock, sizeof(p->lock)),
		   lm_site_name(&p->names, &r->key, p->site, sizeof(p->site)));
}

static void lm_show_hist_row(struct seq_file *m, struct lm_proc *p,
			     const struct lm_stat *r)
{
	/* the names may be the buffers or strings of their own */
	const char *lock = lm_lock_name(&p->names, &r->key, p->lock, sizeof(p->lock));
	const char *site = lm_site_name(&p->names, &r->key, p->site, sizeof(p->site));

	/* a row that was never acquired has no histograms: all zeros */
	static const struct lm_stat_hist none;
	const struct lm_stat_hist *h = r->hist ?: &none;

	lm_show_hist_line(m, r, "hold", h->hold, lock, site);
	lm_show_hist_line(m, r, "wait", h->wait, lock, site);
}

static void *lm_seq_start(struct seq_file *m, loff_t *pos)
{
	struct lm_proc *p = m->private;

	if (*pos == 0)
		return SEQ_START_TOKEN;
	if (*pos - 1 < p->snap.nr)
		return &p->snap.rows[*pos - 1];
	return NULL;
}

static void *lm_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return lm_seq_start(m, pos);
}

static void lm_seq_stop(struct seq_file *m, void *v)
{
}

static int lm_seq_show(struct seq_file *m, void *v)
{
	struct lm_proc *p = m->private;

	if (v == SEQ_START_TOKEN && p->hist)
		lm_show_hist_header(m, p);
	else if (v == SEQ_START_TOKEN)
		lm_show_header(m, p);
	else if (p->hist)
		lm_show_hist_row(m, p, v);
	else
		lm_show_row(m, p, v);
	return 0;
}

static const struct seq_operations lm_seq_ops = {
	.start	= lm_seq_start,
	.next	= lm_seq_next,
	.stop	= lm_seq_stop,
	.show	= lm_seq_show,
};

static const struct proc_ops lm_hist_proc_ops;

static int lm_proc_open(struct inode *inode, struct file *file)
{
	struct lm_proc *p;
	int ret;

	/*
	 * The report names kernel symbols, the control switches metering:
	 * both need CAP_SYS_ADMIN, checked here, as the open is what grants
	 * the file's use.  A writer that was handed the descriptor is judged
	 * by whoever opened it (lm_proc_write()).
	 */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	p = __seq_open_private(file, &lm_seq_ops, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->hist = pde_data(inode) == &lm_hist_proc_ops;
	/* a writer only controls: no snapshot to take */
	if (!(file->f_mode & FMODE_READ))
		return 0;
	ret = lm_snapshot(&p->snap, -1, true);
	if (ret) {
		seq_release_private(inode, file);
		return ret;
	}
	lm_snapshot_sort(&p->snap);
	lm_names_init(&p->names, &p->snap, kallsyms_show_value(file->f_cred));
	return 0;
}

static int lm_proc_release(struct inode *inode, struct file *file)
{
	struct lm_proc *p = ((struct seq_file *)file->private_data)->private;

	lm_names_free(&p->names);
	lm_snapshot_free(&p->snap);
	return seq_release_private(inode, file);
}

/*
 * A duration: digits and a unit, ns, us, ms or s (none: ns), into *@ns;
 * -EINVAL if it is none.
 */
static int lm_parse_ns(char *str, u64 *ns)
{
	static const struct {
		const char *unit;
		u64 mul;
	} units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", NSEC_PER_USEC },
		{ "ms", NSEC_PER_MSEC }, { "s", NSEC_PER_SEC },
	};
	char *end = str, unit;
	unsigned int i;
	u64 v;
	int ret;

	while (isdigit(*end))
		end++;
	if (end == str)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		unit = *end;
		*end = '\0';
		ret = kstrtoull(str, 10, &v);
		*end = unit;
		if (ret || check_mul_overflow(v, units[i].mul, ns))
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/*
 * After "watch ": "off" (every threshold cleared), or "hold" or "wait",
 * a lock type or none (every type), and a duration (0: clear).
 */
static int lm_proc_watch(char *arg)
{
	char *kind = strsep(&arg, " "), *word, *dur;
	bool hold = !strcmp(kind, "hold");
	u32 type = LM_NONE;
	u64 ns;
	int ret;

	if (!strcmp(kind, "off") && !arg)
		return lockmeter_watch_set(LM_NONE, 0, 0);
	if (!arg || (!hold && strcmp(kind, "wait")))
		return -EINVAL;
	dur = strsep(&arg, " ");
	if (arg) {
		word = dur;
		dur = strsep(&arg, " ");
		if (arg)
			return -EINVAL;
		for (type = LM_NONE + 1; type < LM_NR_TYPES; type++)
			if (!strcmp(word, lm_types[type].name))
				break;
		if (type == LM_NR_TYPES)
			return -EINVAL;
	}
	if (lm_parse_ns(dur, &ns))
		return -EINVAL;
	ret = lockmeter_watch_set(type, hold ? ns : LM_WATCH_KEEP, hold ? LM_WATCH_KEEP : ns);
	return ret == -ERANGE ? -EINVAL : ret;
}

static ssize_t lm_proc_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	static const struct {
		const char *word;
		enum lm_ctl op;
	} words[] = {
		{ "on", LM_CTL_ON },
		{ "off", LM_CTL_OFF },
		{ "reset", LM_CTL_RESET },
		{ "0", LM_CTL_RESET },
		{ "release", LM_CTL_RELEASE },
	};
	char buf[64];
	size_t len = count;
	unsigned long nr;
	unsigned int i;
	int ret;

	/* the opener's credentials, not the writer's (a set-uid program's) */
	if (!file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (buf[len - 1] == '\n')
		buf[--len] = '\0';
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (strlen(words[i].word) == len && !memcmp(buf, words[i].word, len)) {
			ret = lockmeter_control(words[i].op);
			return ret ? ret : count;
		}
	}
	/* "keys N": the rows of the key directory, while off */
	if (len > 5 && !memcmp(buf, "keys ", 5)) {
		if (kstrtoul(buf + 5, 10, &nr))
			return -EINVAL;
		ret = lockmeter_set_keys(nr);
		return ret ? ret : count;
	}
	/* "watch hold|wait [TYPE] DURATION", "watch off": lockstat watch */
	if (len > 6 && !memcmp(buf, "watch ", 6)) {
		ret = lm_proc_watch(buf + 6);
		return ret ? ret : count;
	}
	return -EINVAL;
}

static const struct proc_ops lm_proc_ops = {
	.proc_open	= lm_proc_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= lm_proc_write,
	.proc_release	= lm_proc_release,
};

/* Read only: its control is /proc/lockmeter's. */
static const struct proc_ops lm_hist_proc_ops = {
	.proc_open	= lm_proc_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= lm_proc_release,
};

static int __init lockmeter_proc_init(void)
{
	if (!proc_create("lockmeter", 0600, NULL, &lm_proc_ops))
		return -ENOMEM;
	if (IS_ENABLED(CONFIG_LOCKMETER_HIST) &&
	    !proc_create_data("lockmeter_hist", 0400, NULL, &lm_hist_proc_ops,
			      (void *)&lm_hist_proc_ops))
		return -ENOMEM;
	return 0;
}
device_initcall(lockmeter_proc_init);
