// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: snapshots of the per-CPU tables for readers (/proc/lockmeter,
 * netlink).  A snapshot copies every CPU's slots into rows (struct
 * lm_stat, times in ns), merges the rows of equal keys over CPUs and
 * sorts them, under lm_ctl_mutex, so that it lies within one metering
 * period: no reset, and no module's rows retired, half way through.
 *
 * The copy does not stop the writers: a row may show one update half
 * applied (lockmeter.h), and derived counts are clamped so that such a
 * tear never shows as a huge number.
 */
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include "lockmeter.h"

static int lm_cmp_key(const void *a, const void *b)
{
	return lm_key_cmp(&((const struct lm_stat *)a)->key,
			  &((const struct lm_stat *)b)->key);
}

/*
 * Sort @rows by key and fold rows with equal keys into one; returns the
 * number of rows left.
 */
size_t lm_rows_merge(struct lm_stat *rows, size_t n)
{
	size_t i, out = 0;

	if (!n)
		return 0;
	sort(rows, n, sizeof(*rows), lm_cmp_key, NULL);
	for (i = 1; i < n; i++) {
		if (!(i % 4096))
			cond_resched();
		if (lm_key_eq(&rows[out].key, &rows[i].key))
			lm_stat_add(&rows[i], &rows[out]);
		else
			rows[++out] = rows[i];
	}
	return out + 1;
}
EXPORT_SYMBOL_IF_KUNIT(lm_rows_merge);

/* Linear-counting estimate of distinct instances from a 64-bucket set. */
u64 lm_inst_estimate(u64 inst)
{
	static const u16 est[65] = {
		0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 15, 16, 17, 18,
		20, 21, 23, 24, 25, 27, 28, 30, 32, 33, 35, 37, 39, 40, 42,
		44, 46, 48, 51, 53, 55, 58, 60, 63, 65, 68, 71, 74, 78, 81,
		85, 89, 93, 97, 102, 107, 113, 119, 126, 133, 142, 151, 163,
		177, 196, 222, 266, 266,
	};

	return est[hweight64(inst)];
}
EXPORT_SYMBOL_IF_KUNIT(lm_inst_estimate);

/*
 * The histograms of slot @s of @pc into @row (zeros without them), and
 * the acquisitions and waits they count into *@nr and *@spin, so that a
 * row read while its CPU charges it still sums up.  The waits are read
 * first: a charge counts its hold before its wait, so the holds read
 * after them are at least as many.
 */
static void lm_slot_read_hist(const struct lm_cpu *pc, const struct lm_slot *s,
			      struct lm_stat *row, u64 *nr, u64 *spin)
{
#ifdef CONFIG_LOCKMETER_HIST
	unsigned int i;

	*nr = 0;
	*spin = 0;
	for (i = 0; i < LM_HIST_NR; i++) {
		row->wait_hist[i] = lm_hist_count(pc, &s->wait_hist[i]);
		*spin += row->wait_hist[i];
	}
	/* the holds after the waits: a charge stores its hold first */
	smp_rmb();
	for (i = 0; i < LM_HIST_NR; i++) {
		row->hold_hist[i] = lm_hist_count(pc, &s->hold_hist[i]);
		*nr += row->hold_hist[i];
	}
	/* a CPU that ordered a charge's stores otherwise: keep them summing */
	if (*spin > *nr) {
		row->hold_hist[0] += *spin - *nr;
		*nr = *spin;
	}
#else
	memset(row->hold_hist, 0, sizeof(row->hold_hist));
	memset(row->wait_hist, 0, sizeof(row->wait_hist));
	*nr = READ_ONCE(s->nr);
	*spin = min(READ_ONCE(s->spin), *nr);
#endif
}

/*
 * Read slot @s of @pc (NULL: a slot of no CPU, in KUnit tests) into @row:
 * times in ns, derived counts filled in.
 */
void lm_slot_read(const struct lm_cpu *pc, const struct lm_slot *s, struct lm_stat *row)
{
	u64 nr, spin, hold_total, oncpu_total, max_t;

	row->key.type = READ_ONCE(s->type);
	/* pairs with smp_wmb() in lm_table_get(): the key is valid once typed */
	smp_rmb();
	row->key.lock = s->lock;
	row->key.site = s->site;
	row->key.class = s->class;
	lm_slot_read_hist(pc, s, row, &nr, &spin);
	row->nowait = nr - spin;
	row->spin = spin;
	row->reject = READ_ONCE(s->reject);
	row->abort = READ_ONCE(s->abort);
	hold_total = READ_ONCE(s->hold_total);
	row->hold.nr = nr;
	row->hold.total = lm_ticks_to_ns(hold_total);
	/* a minimum not yet set (U64_MAX) or set ahead of its maximum: clamp */
	max_t = READ_ONCE(s->hold_max);
	row->hold.max = lm_ticks_to_ns(max_t);
	row->hold.min = nr ? lm_ticks_to_ns(min(READ_ONCE(s->hold_min), max_t)) : 0;
	row->wait.nr = spin;
	row->wait.total = lm_ticks_to_ns(READ_ONCE(s->wait_total));
	max_t = READ_ONCE(s->wait_max);
	row->wait.max = lm_ticks_to_ns(max_t);
	row->wait.min = spin ? lm_ticks_to_ns(min(READ_ONCE(s->wait_min), max_t)) : 0;
	/*
	 * Converted on its own, blocked total could round off the sum:
	 * it is the rest of the converted hold, so hold = on-CPU + blocked
	 * in ns too.  Each maximum rounds down on its own, so the longest
	 * hold may exceed the longest parts by 1 ns.
	 */
	oncpu_total = lm_ticks_to_ns(min(READ_ONCE(s->oncpu_total), hold_total));
	row->oncpu_total = oncpu_total;
	row->blocked_total = lm_type_sleeps(row->key.type) ?
			     row->hold.total - oncpu_total : 0;
	row->oncpu_max = lm_ticks_to_ns(READ_ONCE(s->oncpu_max));
	row->blocked_max = lm_ticks_to_ns(READ_ONCE(s->blocked_max));
	row->inst = READ_ONCE(s->inst);
}
EXPORT_SYMBOL_IF_KUNIT(lm_slot_read);

/* The lower bound of histogram bucket @b, in ns. */
u64 lm_hist_bound(unsigned int b)
{
	return b ? lm_ticks_to_ns(1ULL << (LM_HIST_SHIFT + b - 1)) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(lm_hist_bound);

/*
 * The chain @ref names into @ip (room for LM_STACK_DEPTH): its number of
 * frames, 0 if it was lost or is not (yet) there; *@cpu is set to the
 * CPU it was taken on when there is one.
 */
u32 lm_stack_read(u32 ref, unsigned long *ip, u16 *cpu)
{
	unsigned int c = ref >> 16, i = ref & 0xffff, n;
	const struct lm_stack *st;
	struct lm_cpu *pc;

	if (ref == LM_NO_STACK || c >= nr_cpu_ids || !cpu_possible(c) || i >= LM_STACKS)
		return 0;
	pc = per_cpu(lm_cpus, c);
	if (!pc)
		return 0;
	*cpu = c;
	st = &pc->stacks[i];
	n = READ_ONCE(st->nr);
	/* pairs with smp_wmb() in lm_stack_take(): the frames came first */
	smp_rmb();
	n = min_t(unsigned int, n, LM_STACK_DEPTH);
	memcpy(ip, st->ip, n * sizeof(*ip));
	return n;
}

static void lm_one_ev_read(const struct lm_ev *ev, unsigned int cpu, struct lm_stat_ev *e)
{
	memset(e, 0, sizeof(*e));
	if (!READ_ONCE(ev->set))
		return;
	e->set = 1;
	e->cpu = cpu;
	e->t = lm_ticks_to_ns(READ_ONCE(ev->t));
	e->pid = READ_ONCE(ev->pid);
	e->ctx = READ_ONCE(ev->ctx);
	memcpy(e->comm, ev->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	e->nr = lm_stack_read(READ_ONCE(ev->stack), e->ip, &e->cpu);
}

/*
 * Read the evidence of a slot of @cpu into @row, whose maxima it explains
 * (a writer may be half way through replacing it: statistics again).
 */
void lm_ev_read(const struct lm_evidence *ev, unsigned int cpu, struct lm_stat *row)
{
	u16 blk_cpu;

	lm_one_ev_read(&ev->hold, cpu, &row->hold_ev);
	lm_one_ev_read(&ev->wait, cpu, &row->wait_ev);
	if (row->hold_ev.set && READ_ONCE(ev->blk)) {
		row->hold_ev.blk = lm_ticks_to_ns(READ_ONCE(ev->blk));
		row->hold_ev.blk_nr = lm_stack_read(READ_ONCE(ev->blk_stack),
						    row->hold_ev.blk_ip, &blk_cpu);
	}
	if (row->wait_ev.set) {
		row->wait_ev.owner_pid = READ_ONCE(ev->owner_pid);
		memcpy(row->wait_ev.owner_comm, ev->owner_comm, sizeof(ev->owner_comm));
		row->wait_ev.owner_comm[sizeof(ev->owner_comm) - 1] = '\0';
	}
}
EXPORT_SYMBOL_IF_KUNIT(lm_ev_read);

static bool lm_stat_empty(const struct lm_stat *s)
{
	return !s->nowait && !s->spin && !s->reject && !s->abort;
}

/*
 * Append @pc's non-empty rows to @rows[@n..@cap); returns the new @n and
 * adds the rows that did not fit to @missed.
 */
static size_t lm_copy_cpu(struct lm_cpu *pc, unsigned int cpu, struct lm_stat *rows,
			  size_t n, size_t cap, u64 *missed)
{
	unsigned int i, t;

	for (t = LM_NONE + 1; t < LM_NR_TYPES; t++) {
		if (n == cap) {
			(*missed) += !!READ_ONCE(pc->overflow[t].nr);
			continue;
		}
		lm_slot_read(pc, &pc->overflow[t], &rows[n]);
		memset(&rows[n].hold_ev, 0, sizeof(rows[n].hold_ev));
		memset(&rows[n].wait_ev, 0, sizeof(rows[n].wait_ev));
		if (!lm_stat_empty(&rows[n]))
			n++;
	}
	for (i = 0; i < pc->table.nr; i++) {
		if (!READ_ONCE(pc->slot[i].type))
			continue;
		if (n == cap) {
			(*missed)++;
			continue;
		}
		lm_slot_read(pc, &pc->slot[i], &rows[n]);
		lm_ev_read(&pc->ev[i], cpu, &rows[n]);
		if (!lm_stat_empty(&rows[n]))
			n++;
	}
	return n;
}

/* Room for every row of @cpu (all CPUs when < 0), plus some claimed meanwhile. */
static size_t lm_snapshot_cap(int cpu)
{
	size_t cap = 0;
	unsigned int c;

	for_each_possible_cpu(c)
		if (cpu < 0 || c == cpu)
			cap += READ_ONCE(per_cpu(lm_cpus, c)->table.used) + LM_NR_TYPES + 32;
	return cap;
}

/* Copy the name at *@field to @buf + @off, and point *@field at the copy. */
static size_t lm_gone_copy(char *buf, size_t off, unsigned long *field)
{
	const char *name = lm_gone_name(*field);
	size_t len = strlen(name) + 1;

	memcpy(buf + off, name, len);
	*field = off;
	return off + len;
}

/*
 * Copy the names of the rows of unloaded modules into @snap->gone, and
 * point the rows at them; lm_ctl_mutex keeps the names alive meanwhile.
 */
static int lm_snapshot_gone(struct lm_snapshot *snap)
{
	size_t i, len = 0, off = 0;
	struct lm_key *k;

	for (i = 0; i < snap->nr; i++) {
		k = &snap->rows[i].key;
		if (k->class & LM_GONE_LOCK)
			len += strlen(lm_gone_name(k->lock)) + 1;
		if (k->class & LM_GONE_SITE)
			len += strlen(lm_gone_name(k->site)) + 1;
	}
	if (!len)
		return 0;
	snap->gone = vmalloc(len);
	if (!snap->gone)
		return -ENOMEM;
	for (i = 0; i < snap->nr; i++) {
		k = &snap->rows[i].key;
		if (k->class & LM_GONE_LOCK)
			off = lm_gone_copy(snap->gone, off, &k->lock);
		if (k->class & LM_GONE_SITE)
			off = lm_gone_copy(snap->gone, off, &k->site);
	}
	return 0;
}

/* Copy the rows of @cpu (all CPUs when < 0) into @snap; lm_ctl_mutex held. */
static int lm_snapshot_rows(struct lm_snapshot *snap, int cpu)
{
	unsigned int c, tries;
	size_t cap, n;

	/*
	 * Rows claimed while we copy may not fit: try again with more room,
	 * a few times, then report how many were left out.
	 */
	for (tries = 0; tries < 3; tries++) {
		cap = lm_snapshot_cap(cpu);
		vfree(snap->rows);
		snap->rows = vmalloc_array(cap, sizeof(*snap->rows));
		if (!snap->rows)
			return -ENOMEM;
		snap->truncated = 0;
		n = 0;
		for_each_possible_cpu(c) {
			if (cpu >= 0 && c != cpu)
				continue;
			n = lm_copy_cpu(per_cpu(lm_cpus, c), c, snap->rows, n, cap,
					&snap->truncated);
			cond_resched();
		}
		if (!snap->truncated)
			break;
	}
	snap->nr = lm_rows_merge(snap->rows, n);
	return lm_snapshot_gone(snap);
}

/*
 * The state and loss counters of @cpu (of all CPUs when @cpu < 0) and,
 * with @rows, a copy of their tables merged over CPUs; the caller frees
 * it with lm_snapshot_free().  lm_ctl_mutex is held throughout, so the
 * copy lies within one metering period: no reset, and no module's rows
 * retired, half way through.
 */
int lm_snapshot(struct lm_snapshot *snap, int cpu, bool rows)
{
	unsigned int c, t;
	int ret = 0;

	memset(snap, 0, sizeof(*snap));
	guard(mutex)(&lm_ctl_mutex);
	snap->slots_per_cpu = LM_SLOTS;
	snap->mem_percpu = LM_CPU_BYTES;
	snap->mem_task = sizeof(struct lm_task);
	for_each_possible_cpu(c) {
		struct lm_cpu *pc = per_cpu(lm_cpus, c);

		if (!pc)
			continue;
		snap->mem_tables += LM_CPU_BYTES;
		if (cpu >= 0 && c != cpu)
			continue;
		snap->loss.dropped += READ_ONCE(pc->loss.dropped);
		snap->loss.unmatched += READ_ONCE(pc->loss.unmatched);
		snap->loss.evicted += READ_ONCE(pc->loss.evicted);
		snap->loss.irqctx += READ_ONCE(pc->loss.irqctx);
		snap->loss.notask += READ_ONCE(pc->loss.notask);
		snap->loss.stacks_full += READ_ONCE(pc->loss.stacks_full);
		snap->loss.hist_lost += READ_ONCE(pc->loss.hist_lost);
		snap->captures += READ_ONCE(pc->captures);
		snap->cache_fills += READ_ONCE(pc->fills);
		/* every event of an overflow row found no slot */
		for (t = LM_NONE + 1; t < LM_NR_TYPES; t++)
			snap->table_full += READ_ONCE(pc->overflow[t].nr) +
					    READ_ONCE(pc->overflow[t].reject) +
					    READ_ONCE(pc->overflow[t].abort);
		snap->slots_used = max(snap->slots_used, READ_ONCE(pc->table.used));
	}
	if (rows && snap->mem_tables)
		ret = lm_snapshot_rows(snap, cpu);
	if (ret) {
		lm_snapshot_free(snap);
		return ret;
	}
	/* after the copy: every hold in it ended within the time metered */
	snap->on = lm_on;
	snap->metered_ns = lm_metered + (lm_on ? local_clock() - lm_t_on : 0);
	snap->resets = lm_resets;
	return 0;
}

static int lm_cmp_hold_max(const void *a, const void *b)
{
	const struct lm_stat *x = a, *y = b;

	/* longest hold first; ties in key order so the output is stable */
	if (x->hold.max != y->hold.max)
		return x->hold.max > y->hold.max ? -1 : 1;
	return lm_key_cmp(&x->key, &y->key);
}

/* Order the rows of @snap for reports: longest hold first. */
void lm_snapshot_sort(struct lm_snapshot *snap)
{
	sort(snap->rows, snap->nr, sizeof(*snap->rows), lm_cmp_hold_max, NULL);
}

void lm_snapshot_free(struct lm_snapshot *snap)
{
	vfree(snap->rows);
	vfree(snap->gone);
	snap->rows = NULL;
	snap->gone = NULL;
	snap->nr = 0;
}
