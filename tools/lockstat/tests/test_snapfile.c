// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of snapshot files: a snapshot written and read back is the
 * same snapshot; a saved /proc/lockmeter reads too; every kind of damage
 * is refused with LM_EXIT_CORRUPT and the right line number.
 */
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"
#include "snapfile.h"
#include "tap.h"

#define HDR	"lockstat snapshot version 1\ncpus: 2\nmetered_ns: 1000\n"
#define ROW	"spin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 tasklist_lock do_exit+0x5c/0xa40\n"
#define V2	"lockstat snapshot version 2\ncpus: 2\nmetered_ns: 1000\n"
#define EV	"> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=1\n> hold frame f+0x1/0x2\n"
/* a hold head line without frames, for the blocked_* keys that follow */
#define BH	"> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=0 "

static int read_mem(const char *text, size_t len, struct lm_snapshot *s, struct lm_perr *e)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int ret;

	if (!f)
		return -1;
	memset(e, 0, sizeof(*e));
	ret = lm_snap_read(f, s, e);
	fclose(f);
	return ret;
}

/* read_mem() for /proc/lockmeter's text. */
static int read_proc_mem(const char *text, size_t len, struct lm_snapshot *s,
			 struct lm_perr *e)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int ret;

	if (!f)
		return -1;
	memset(e, 0, sizeof(*e));
	ret = lm_proc_parse(f, s, e);
	fclose(f);
	return ret;
}

/* @a written into *buf, then read back into @b: 0, or the reader's error */
static int write_read(const struct lm_snapshot *a, struct lm_snapshot *b, char **buf,
		      const char *what)
{
	struct lm_perr e;
	size_t len = 0;
	FILE *f;
	int ret;

	*buf = NULL;
	f = open_memstream(buf, &len);
	tap_ok(f && !lm_snap_write(f, a) && !fclose(f), "%s: a snapshot is written", what);
	ret = read_mem(*buf, len, b, &e);
	if (!tap_ok(ret == 0, "%s: and read back", what))
		printf("# %d at %lu: %s\n", ret, e.line, e.msg);
	return ret;
}

static void test_roundtrip(void)
{
	struct lm_snapshot a, b;
	char *buf;
	size_t i;
	struct lm_row *r;
	const char *why;
	int ok = 1;

	lm_snap_init(&a);
	lm_snap_init(&b);
	lm_hdr_put_str(&a.h, LM_H_COMMAND, "record");
	lm_hdr_put_str(&a.h, LM_H_SYSTEM, "Linux");
	lm_hdr_put_str(&a.h, LM_H_UVERSION, "#1 SMP PREEMPT_DYNAMIC Debian 6.12.117-1");
	lm_hdr_set(&a.h, LM_H_CPUS, "2", &why);
	lm_hdr_set(&a.h, LM_H_STATE, "on", &why);
	lm_hdr_set(&a.h, LM_H_START, "1732968000.000000001", &why);
	lm_hdr_set(&a.h, LM_H_METERED_NS, "18446744073709551615", &why);
	lm_hdr_set(&a.h, LM_H_LOSS + LM_L_TABLE_FULL, "12", &why);
	for (i = 0; i < 3; i++) {
		r = lm_snap_add_row(&a);
		r->type = LM_TYPE_SPIN + i * 2;
		r->lock = lm_snap_strdup(&a, i ? "[heap]" : "lmt_static_lock[test_lockmeter]");
		r->site = lm_snap_strdup(&a, i == 1 ? "d_alloc+0x4c/0x1f0" : "f+0x1/0x2[m]");
		r->class = lm_class_of(r->lock);
		r->v[LM_F_NOWAIT] = 7 + i;
		r->v[LM_F_SPIN] = UINT64_MAX - 8 - i;
		r->v[LM_F_ACQUIRED] = r->v[LM_F_NOWAIT] + r->v[LM_F_SPIN];
		r->v[LM_F_BLOCKED_MAX] = 1234567890123ULL;
		r->v[LM_F_INSTANCES] = 266;
	}
	/* a slab lock's name does not tell its class: the file must */
	r = lm_snap_add_row(&a);
	r->type = LM_TYPE_SPIN;
	r->lock = lm_snap_strdup(&a, "dentry+0x58");
	r->site = lm_snap_strdup(&a, "d_alloc+0x4c/0x1f0");
	r->class = LM_CLASS_SLAB;
	r->v[LM_F_ACQUIRED] = r->v[LM_F_NOWAIT] = 5;
	r->v[LM_F_INSTANCES] = 4;
	if (write_read(&a, &b, &buf, "file"))
		goto out;
	tap_ok(!strncmp(buf, "lockstat snapshot version 2\n", 28), "file: the first line");
	tap_ok(b.h.present == (a.h.present | 1ULL << LM_H_ROWS), "file: the same header fields");
	tap_ok(b.h.metered_ns == UINT64_MAX && b.h.cpus == 2 && b.h.on &&
	       b.h.start.tv_nsec == 1 && b.h.loss[LM_L_TABLE_FULL] == 12 &&
	       !strcmp(b.h.uversion, a.h.uversion), "file: the same header values");
	ok = b.nr == a.nr;
	for (i = 0; ok && i < a.nr; i++)
		ok = a.rows[i].type == b.rows[i].type && a.rows[i].class == b.rows[i].class &&
		     !memcmp(a.rows[i].v, b.rows[i].v, sizeof(a.rows[i].v)) &&
		     !strcmp(a.rows[i].lock, b.rows[i].lock) && !strcmp(a.rows[i].site, b.rows[i].site);
	tap_ok(ok, "file: the same rows");
out:
	free(buf);
	lm_snap_free(&a);
	lm_snap_free(&b);
}

/* the sleeping types that came last, written and read back; an old file still reads */
static void test_new_types(void)
{
	/* a lock of each, from LM_TYPE_RT_MUTEX on */
	static const char *const locks[] = {
		"lmt_rt_mutex[test_lockmeter]", "cgroup_threadgroup_rwsem",
		"cgroup_threadgroup_rwsem", "console_sem", "tasklist_lock", "css_set_lock",
		"css_set_lock",
	};
	static const char old[] = V2 "rows: 2\n\n" ROW
		"rwsem_write 3 2 1 0 1 10 1 5 4 4 4 6 5 4 4 1 namespace_sem f+0x1/0x2\n";
	struct lm_snapshot a, b;
	struct lm_perr e;
	struct lm_row *r;
	char *buf, line[32];
	size_t i;
	int ok;

	lm_snap_init(&a);
	lm_snap_init(&b);
	lm_hdr_put_str(&a.h, LM_H_COMMAND, "get");
	a.h.cpus = 2;
	a.h.metered_ns = 1000;
	lm_set(&a.h, LM_H_CPUS);
	lm_set(&a.h, LM_H_METERED_NS);
	for (i = 0; i < ARRAY_SIZE(locks); i++) {
		r = lm_snap_add_row(&a);
		r->type = LM_TYPE_RT_MUTEX + i;
		r->lock = lm_snap_strdup(&a, locks[i]);
		r->site = lm_snap_strdup(&a, "f+0x1/0x2");
		r->class = lm_class_of(r->lock);
		r->v[LM_F_NOWAIT] = 5 + i;
		r->v[LM_F_SPIN] = 2;
		r->v[LM_F_ACQUIRED] = 7 + i;
		r->v[LM_F_REJECT] = i;
		r->v[LM_F_ABORT] = 1;
		r->v[LM_F_HOLD_TOTAL] = 100;
		r->v[LM_F_ONCPU_TOTAL] = 40;
		r->v[LM_F_BLOCKED_TOTAL] = 60;
		r->v[LM_F_INSTANCES] = 1;
	}
	if (write_read(&a, &b, &buf, "newer types"))
		goto out;
	ok = b.nr == a.nr && LM_TYPE_RT_MUTEX + ARRAY_SIZE(locks) == LM_NR_TYPES;
	for (i = 0; ok && i < a.nr; i++) {
		/* a row's line starts with its type's name */
		snprintf(line, sizeof(line), "\n%s ", lm_type_name(a.rows[i].type));
		ok = b.rows[i].type == a.rows[i].type && !strcmp(b.rows[i].lock, locks[i]) &&
		     !memcmp(a.rows[i].v, b.rows[i].v, sizeof(a.rows[i].v)) && strstr(buf, line);
	}
	tap_ok(ok, "newer types: rt_mutex, percpu_rwsem_read and _write, semaphore, rt_spin, "
	       "rt_read and rt_write by name, every number kept");
	free(buf);
	lm_snap_free(&b);
	lm_snap_init(&b);
	tap_ok(!read_mem(old, strlen(old), &b, &e) && b.nr == 2 && b.rows[1].type == LM_TYPE_RWSEM_WRITE,
	       "newer types: a file of the older types only still reads");
out:
	lm_snap_free(&a);
	lm_snap_free(&b);
}

/* @n frames of the three @names, cycled, addresses from @base (0: none) */
static void fill_chain(struct lm_snapshot *s, const char *const *names, unsigned int n,
		       uint64_t base, const char **frame, uint64_t *addr)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		frame[i] = lm_snap_strdup(s, names[i % 3]);
		addr[i] = base ? base + i : 0;
	}
}

/* evidence with every kind of field, in the pool of @s */
static const struct lm_evidence *make_ev(struct lm_snapshot *s, const char *comm,
					 unsigned int nr_frames, bool owner, bool addrs)
{
	static const char *const frames[] = {
		"lmt_hold_inner+0x1e/0x40 [test_lockmeter]",
		"a frame with \\ and \t and \x7f\x80",
		"kthread+0xd2/0x100",
	};
	struct lm_evidence *ev = lm_snap_add_ev(s);

	ev->pid = 4000000000U;
	ev->context = LM_CONTEXT_HARDIRQ;
	ev->cpu = 63;
	ev->time_ns = UINT64_MAX;
	ev->comm = lm_snap_strdup(s, comm);
	if (owner) {
		ev->present |= 1U << LM_EB_OWNER_PID | 1U << LM_EB_OWNER_COMM;
		ev->owner_pid = 1;
		ev->owner_comm = lm_snap_strdup(s, "own er=x");
	}
	fill_chain(s, frames, nr_frames, addrs ? 0xffffffffc0a00000ULL : 0, ev->frame, ev->addr);
	ev->nr_frames = nr_frames;
	if (addrs)
		ev->present |= 1U << LM_EB_ADDRS;
	return ev;
}

/* where the holder of @ev blocked: the longest time, @n frames, addresses */
static void add_blocked(struct lm_evidence *ev, struct lm_snapshot *s, unsigned int n,
			bool addrs)
{
	static const char *const frames[] = {
		"schedule_timeout+0x9e/0x170",
		"msleep+0x2d/0x50",
		"lmt_mutex_sleep_inside+0x12/0x30 [test_lockmeter]",
	};

	ev->present |= 1U << LM_EB_BLOCKED;
	ev->blocked_ns = UINT64_MAX;
	fill_chain(s, frames, n, addrs ? 0xffffffffc0b00000ULL : 0, ev->blocked_frame,
		   ev->blocked_addr);
	ev->nr_blocked = n;
	if (addrs)
		ev->present |= 1U << LM_EB_BLOCKED_ADDRS;
}

/* evidence written and read back is the same evidence, byte for byte */
static void test_evidence_roundtrip(void)
{
	static const char odd[] = "my prog \\x41=\x01\x1b\xff";
	struct lm_snapshot a, b;
	char *buf;
	size_t i;
	struct lm_row *r;
	const char *why;
	int ok;

	lm_snap_init(&a);
	lm_snap_init(&b);
	lm_hdr_set(&a.h, LM_H_CPUS, "2", &why);
	lm_hdr_set(&a.h, LM_H_METERED_NS, "1000", &why);
	lm_hdr_set(&a.h, LM_H_CAPTURES, "9", &why);
	lm_hdr_set(&a.h, LM_H_LOSS + LM_L_STACKS_FULL, "4", &why);
	for (i = 0; i < 4; i++) {
		r = lm_snap_add_row(&a);
		r->type = LM_TYPE_MUTEX;
		r->lock = lm_snap_strdup(&a, "lmt_mutex[test_lockmeter]");
		r->site = lm_snap_strdup(&a, i ? "f+0x1/0x2[m]" : "g+0x1/0x2[m]");
		r->v[LM_F_NOWAIT] = 2;
		r->v[LM_F_ACQUIRED] = 2;
	}
	a.rows[0].ev[LM_EV_HOLD] = make_ev(&a, odd, 3, false, true);
	a.rows[0].ev[LM_EV_WAIT] = make_ev(&a, "", 16, true, false);
	a.rows[1].ev[LM_EV_WAIT] = make_ev(&a, "lmt_contend/0", 0, true, false);
	a.rows[3].ev[LM_EV_HOLD] = make_ev(&a, "x", 1, false, false);
	/* where the holders blocked: a chain with addresses, one without, none at all */
	add_blocked((struct lm_evidence *)a.rows[0].ev[LM_EV_HOLD], &a, 3, true);
	add_blocked((struct lm_evidence *)a.rows[3].ev[LM_EV_HOLD], &a, 16, false);
	a.rows[2].ev[LM_EV_HOLD] = make_ev(&a, "y", 0, false, false);
	add_blocked((struct lm_evidence *)a.rows[2].ev[LM_EV_HOLD], &a, 0, false);
	if (write_read(&a, &b, &buf, "evidence"))
		goto out;
	tap_ok(strstr(buf, " comm=my\\x20prog\\x20\\x5cx41=\\x01\\x1b\\xff ctx=hardirq ") != NULL,
	       "evidence: comm escaped: blanks, backslashes, control and high bytes as \\xHH");
	tap_ok(strstr(buf, "> hold frame a frame with \\x5c and \\x09 and \\x7f\\x80\n") != NULL,
	       "evidence: a frame keeps its blanks, the rest escaped");
	tap_ok(strstr(buf, "frames=3 addrs=0xffffffffc0a00000,0xffffffffc0a00001,0xffffffffc0a00002 blocked_ns=") != NULL,
	       "evidence: the addresses, one per frame, on the head line");
	ok = b.nr == a.nr;
	for (i = 0; ok && i < a.nr; i++)
		ok = lm_ev_equal(a.rows[i].ev[LM_EV_HOLD], b.rows[i].ev[LM_EV_HOLD]) &&
		     lm_ev_equal(a.rows[i].ev[LM_EV_WAIT], b.rows[i].ev[LM_EV_WAIT]);
	tap_ok(ok, "evidence: the same evidence on the same rows");
	tap_ok(b.nr == 4 && !strcmp(b.rows[0].ev[LM_EV_HOLD]->comm, odd) &&
	       b.rows[0].ev[LM_EV_WAIT]->nr_frames == 16 && !b.rows[1].ev[LM_EV_HOLD] &&
	       !b.rows[2].ev[LM_EV_WAIT] && b.rows[0].ev[LM_EV_HOLD]->time_ns == UINT64_MAX,
	       "evidence: the odd comm, 16 frames, a row without evidence, 2^64-1 ns");
	tap_ok(strstr(buf, " blocked_ns=18446744073709551615 blocked_frames=3 blocked_addrs="
		       "0xffffffffc0b00000,0xffffffffc0b00001,0xffffffffc0b00002\n") != NULL &&
	       strstr(buf, "\n> blocked frame msleep+0x2d/0x50\n") != NULL &&
	       strstr(buf, " frames=0 blocked_ns=18446744073709551615 blocked_frames=0\n") != NULL,
	       "blocked: on the hold head line, its frames as '> blocked frame' lines");
	r = &b.rows[0];
	tap_ok(b.nr == 4 && lm_ev_has(r->ev[LM_EV_HOLD], LM_EB_BLOCKED) &&
	       lm_ev_has(r->ev[LM_EV_HOLD], LM_EB_BLOCKED_ADDRS) &&
	       r->ev[LM_EV_HOLD]->nr_blocked == 3 && r->ev[LM_EV_HOLD]->nr_frames == 3 &&
	       !strcmp(r->ev[LM_EV_HOLD]->blocked_frame[0], "schedule_timeout+0x9e/0x170") &&
	       b.rows[3].ev[LM_EV_HOLD]->nr_blocked == 16 &&
	       !lm_ev_has(b.rows[3].ev[LM_EV_HOLD], LM_EB_BLOCKED_ADDRS) &&
	       lm_ev_has(b.rows[2].ev[LM_EV_HOLD], LM_EB_BLOCKED) &&
	       !b.rows[2].ev[LM_EV_HOLD]->nr_blocked && !lm_ev_has(r->ev[LM_EV_WAIT], LM_EB_BLOCKED),
	       "blocked: 3 frames with addresses, 16 without, a time without a chain, read back");
	tap_ok(b.h.captures == 9 && b.h.loss[LM_L_STACKS_FULL] == 4 && lm_has(&b.h, LM_H_CAPTURES),
	       "evidence: captures and stacks_full in the header");
	/* lm_ev_equal() must see a difference, or the check above proves nothing */
	tap_ok(!lm_ev_equal(a.rows[0].ev[LM_EV_HOLD], a.rows[3].ev[LM_EV_HOLD]) &&
	       !lm_ev_equal(a.rows[0].ev[LM_EV_HOLD], NULL),
	       "evidence: lm_ev_equal() tells different evidence apart");
	{
		struct lm_evidence x = *b.rows[0].ev[LM_EV_HOLD];

		x.blocked_ns--;
		ok = !lm_ev_equal(&x, b.rows[0].ev[LM_EV_HOLD]);
		x.blocked_ns++;
		x.blocked_frame[2] = "other";
		ok &= !lm_ev_equal(&x, b.rows[0].ev[LM_EV_HOLD]);
		x.blocked_frame[2] = b.rows[0].ev[LM_EV_HOLD]->blocked_frame[2];
		x.blocked_addr[1]++;
		ok &= !lm_ev_equal(&x, b.rows[0].ev[LM_EV_HOLD]);
		x.blocked_addr[1]--;
		ok &= lm_ev_equal(&x, b.rows[0].ev[LM_EV_HOLD]);
		tap_ok(ok, "blocked: lm_ev_equal() sees its time, frames and addresses");
	}
out:
	free(buf);
	lm_snap_free(&a);
	lm_snap_free(&b);
}

static void test_proc_copy(void)
{
	static const char text[] =
		"lockmeter version 1\nkernel: 6.12.117\ncpus: 2\nclock: local_clock\n"
		"state: off\nmetered_ns: 1465697692\nslots_used: 291\nslots_per_cpu: 4096\n"
		"rows: 1\ndropped: 0\nunmatched: 8\nrecursion: 0\ntable_full: 0\nevicted: 0\n"
		"future_key: whatever\n\n# type acquired ... lock site\n"
		"spin       5710      5706       4       0     0      65961005        691    1209617       5002968      70385    3449235             0          0             0          0     1 percpu:runqueues+0x0 raw_spin_rq_lock_nested+0xd/0xf\n";
	struct lm_snapshot s;
	struct lm_perr e;
	int ret;

	lm_snap_init(&s);
	ret = read_mem(text, sizeof(text) - 1, &s, &e);
	tap_ok(ret == 0 && s.nr == 1 && s.rows[0].class == LM_CLASS_PERCPU &&
	       s.rows[0].v[LM_F_WAIT_MAX] == 3449235 && s.h.loss[LM_L_UNMATCHED] == 8 &&
	       !strcmp(s.h.clock, "local_clock"),
	       "file: a saved /proc/lockmeter reads, unknown keys skipped");
	if (ret)
		printf("# %d at %lu: %s\n", ret, e.line, e.msg);
	lm_snap_free(&s);
}

/*
 * A snapshot saved before the key directory (slots_* only) still loads,
 * its slots reported as keys (per CPU); one of a kernel with the
 * directory keeps keys_used, keys, mem_keys and its named overflow row.
 */
static void test_keys_header(void)
{
	static const char old[] =
		"lockstat snapshot version 2\ncommand: get\nsource: proc\ncpus: 2\nstate: on\n"
		"metered_ns: 1465697692\nslots_used: 291\nslots_per_cpu: 4096\nrows: 1\n"
		"table_full: 3\n\n# legend\n"
		"spin 12 10 2 0 0 19230 402 6602 3010 1004 2006 0 0 0 0 1 *overflow* *overflow*\n";
	static const char cur[] =
		"lockstat snapshot version 2\ncommand: get\nsource: proc\ncpus: 4\nstate: on\n"
		"metered_ns: 2400123456\nresets: 3\nkeys_used: 16384\nkeys: 16384\n"
		"slots_used: 16384\nslots_per_cpu: 16384\nrows: 1\nmem_percpu: 262144\n"
		"mem_tables: 2097152\nmem_task: 56\nmem_keys: 1048576\ntable_full: 57\n\n# legend\n"
		"write 5 5 0 0 0 901220 1002 880110 0 0 0 0 0 0 0 1 "
		"*overflow*(worst:lmt_many+0x1a0[test_lockmeter]) "
		"lmt_overflow_long+0x3c/0x90[test_lockmeter]\n";
	struct lm_snapshot a, b;
	struct lm_key_use u;
	struct lm_perr e;
	char *buf = NULL;
	int ret;

	lm_snap_init(&a);
	ret = read_mem(old, sizeof(old) - 1, &a, &e);
	tap_ok(ret == 0 && a.nr == 1 && !lm_has(&a.h, LM_H_KEYS) && lm_hdr_key_use(&a.h, &u) &&
	       u.used == 291 && u.size == 4096 && !u.shared &&
	       a.rows[0].class == LM_CLASS_OVERFLOW,
	       "keys: a snapshot without keys lines loads, its slots are the keys (per CPU)");
	if (ret)
		printf("# %d at %lu: %s\n", ret, e.line, e.msg);
	lm_snap_free(&a);

	lm_snap_init(&a);
	lm_snap_init(&b);
	ret = read_mem(cur, sizeof(cur) - 1, &a, &e);
	if (!tap_ok(ret == 0 && a.nr == 1, "keys: a snapshot of the key directory loads")) {
		printf("# %d at %lu: %s\n", ret, e.line, e.msg);
		goto out;
	}
	tap_ok(lm_hdr_key_use(&a.h, &u) && u.used == 16384 && u.size == 16384 && u.shared &&
	       a.h.mem_keys == 1048576 && a.rows[0].class == LM_CLASS_OVERFLOW &&
	       !strcmp(a.rows[0].site, "lmt_overflow_long+0x3c/0x90[test_lockmeter]"),
	       "keys: keys_used, keys, mem_keys and the named overflow row read");
	if (write_read(&a, &b, &buf, "keys"))
		goto out;
	tap_ok(strstr(buf, "\nresets: 3\nkeys_used: 16384\nkeys: 16384\nslots_used: 16384\n") &&
	       strstr(buf, "\nmem_task: 56\nmem_keys: 1048576\n") &&
	       b.h.present == a.h.present && b.h.keys == 16384 && b.h.mem_keys == 1048576 &&
	       b.rows[0].class == LM_CLASS_OVERFLOW && !strcmp(b.rows[0].lock, a.rows[0].lock),
	       "keys: written back in the kernel's order, and read again");
out:
	free(buf);
	lm_snap_free(&a);
	lm_snap_free(&b);
}

/*
 * mem_cpus, mem_rows and mem_cap follow mem_keys in a newer kernel's
 * /proc/lockmeter: read there and from a snapshot, written back in that
 * order; an older kernel's text, or a snapshot saved from one, has none
 * of them and reads as it did
 */
static void test_mem_header(void)
{
#define MEM_HEAD	"lockmeter version 1\ncpus: 4\nstate: off\nmetered_ns: 2400123456\n" \
			"rows: 0\nmem_percpu: 311296\nmem_tables: 2293760\nmem_task: 56\n" \
			"mem_keys: 1048576\n"
	static const char newer[] = MEM_HEAD "mem_cpus: 4\nmem_rows: 196608\n"
		"mem_cap: 429496729600\ndropped: 0\n\n# legend\n";
	static const char older[] = MEM_HEAD "dropped: 0\n\n# legend\n";
	static const char snap[] = V2 "state: on\nrows: 0\nmem_percpu: 262144\n"
		"mem_tables: 2097152\nmem_task: 56\n\n";
	static const char bad[] = MEM_HEAD "mem_cpus: 4\nmem_rows: 196608\nmem_cap: -1\n\n";
	static const int bits[] = { LM_H_MEM_CPUS, LM_H_MEM_ROWS, LM_H_MEM_CAP };
	struct lm_snapshot a, b;
	struct lm_perr e;
	char *buf = NULL;
	unsigned int i, n;
	int ret;

	lm_snap_init(&a);
	ret = read_proc_mem(older, sizeof(older) - 1, &a, &e);
	for (i = 0, n = 0; i < ARRAY_SIZE(bits); i++)
		n += lm_has(&a.h, bits[i]);
	tap_ok(ret == 0 && !n && lm_has(&a.h, LM_H_MEM_KEYS) && a.h.mem_percpu == 311296,
	       "mem: an older kernel's /proc header, without mem_cpus, mem_rows, mem_cap");
	lm_snap_free(&a);

	lm_snap_init(&a);
	ret = read_mem(snap, sizeof(snap) - 1, &a, &e);
	for (i = 0, n = 0; i < ARRAY_SIZE(bits); i++)
		n += lm_has(&a.h, bits[i]);
	tap_ok(ret == 0 && !n && a.h.mem_tables == 2097152,
	       "mem: a snapshot saved from an older kernel, without them");
	lm_snap_free(&a);

	lm_snap_init(&a);
	ret = read_proc_mem(newer, sizeof(newer) - 1, &a, &e);
	for (i = 0, n = 0; i < ARRAY_SIZE(bits); i++)
		n += lm_has(&a.h, bits[i]);
	if (!tap_ok(ret == 0 && n == ARRAY_SIZE(bits) && a.h.mem_cpus == 4 &&
		    a.h.mem_rows == 196608 && a.h.mem_cap == 429496729600ULL,
		    "mem: a newer kernel's /proc header: mem_cpus, mem_rows, mem_cap"))
		printf("# %d at %lu: %s\n", ret, e.line, e.msg);
	lm_snap_init(&b);
	if (!write_read(&a, &b, &buf, "mem")) {
		tap_ok(strstr(buf, "\nmem_keys: 1048576\nmem_cpus: 4\nmem_rows: 196608\n"
				   "mem_cap: 429496729600\n") && b.h.present == a.h.present &&
		       b.h.mem_cpus == 4 && b.h.mem_rows == 196608 &&
		       b.h.mem_cap == 429496729600ULL,
		       "mem: saved after mem_keys, as the kernel prints them, and read again");
	}
	free(buf);
	lm_snap_free(&a);
	lm_snap_free(&b);

	lm_snap_init(&a);
	ret = read_mem(bad, sizeof(bad) - 1, &a, &e);
	tap_ok(ret == LM_EXIT_CORRUPT && e.line == 12 && strstr(e.msg, "mem_cap"),
	       "mem: a mem_cap that is no number is refused, at its line");
	lm_snap_free(&a);
#undef MEM_HEAD
}

static void test_damage(void)
{
	static char longline[LM_LINE_MAX + 64];
	static const struct {
		const char *text;
		unsigned long line;
		const char *what;
	} t[] = {
		{ "", 1, "an empty file" },
		{ "hello\n", 1, "another file" },
		{ "lockstat snapshot version 3\n", 1, "version 3" },
		{ "lockstat snapshot version 1", 1, "a first line without newline" },
		{ "lockstat snapshot version one\n", 1, "a bad version" },
		{ "lockmeter version 7\n", 1, "a /proc format from the future" },
		{ "lockstat snapshot version 1\ncpus: 2\n", 2, "the header cut" },
		{ "lockstat snapshot version 1\ncpus 2\n\n", 2, "a header line without colon" },
		{ "lockstat snapshot version 1\nCPUs: 2\n\n", 2, "a bad key" },
		{ "lockstat snapshot version 1\ncpus:2\n\n", 2, "no blank after the colon" },
		{ "lockstat snapshot version 1\ncpus: -2\n\n", 2, "a bad value" },
		{ "lockstat snapshot version 1\ncpus: 2\ncpus: 2\n\n", 3, "a key twice" },
		{ "lockstat snapshot version 1\ncpus: 2\nrows: 0\n\n", 4, "no metered_ns" },
		{ HDR "rows: 2\n\n" ROW, 6, "a row missing (truncated)" },
		{ HDR "rows: 1\n\n" ROW ROW, 7, "a row too many" },
		{ HDR "rows: 1\n\nspin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 tasklist_lock do_ex", 6,
		  "the last line cut" },
		{ HDR "rows: 1\n\n# legend\nspin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 tasklist_lock\n", 7,
		  "a row with 18 fields" },
		{ HDR "rows: 2\n\n" ROW "\n" ROW, 7, "an empty line among the rows" },
		{ V2 "rows: 1\n\n" ROW "\n" EV, 7, "an empty line before a row's evidence" },
		{ HDR "rows: 1\n\n\n\n", 7, "no row, empty lines at the end" },
		{ V2 "rows: 2\n\n" ROW "14 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a b\n", 7,
		  "a type number past the known ones" },
		{ V2 "rows: 2\n\n" ROW "percpu_rwsem 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a b\n", 7,
		  "percpu_rwsem without its side" },
		{ HDR "rows: 1\nstart: 12.5\n\n" ROW, 5, "a time without ns" },
		{ HDR "rows: 1\n\nspin 0 18446744073709551615 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a b\n", 6,
		  "acquired = nowait + spin only past 2^64" },
		{ HDR "rows: 1\n\nspin 3 2 1 18446744073709551614 0 10 1 5 4 4 4 0 0 0 0 1 a b\n", 6,
		  "nowait + spin + reject past 2^64" },
		{ HDR "rows: 1\n\nspin 3 2 1 0 0 10 7 5 4 4 4 0 0 0 0 1 a b\n", 6,
		  "hold_min_ns above hold_max_ns" },
		{ HDR "rows: 1\n\nspin 3 2 1 0 0 10 1 5 4 9 4 0 0 0 0 1 a b\n", 6,
		  "wait_min_ns above wait_max_ns" },
		{ "lockstat snapshot version 1\ncpus: 2\nmetered_ns: 0\nrows: 1\n\n" ROW, 6,
		  "a row, with metered_ns 0" },
		{ "lockstat snapshot version 1\ncpus: 0\nmetered_ns: 1000\nrows: 0\n\n", 2, "cpus 0" },
		{ HDR "start: 20.000000000\nend: 10.000000000\nrows: 1\n\n" ROW, 5,
		  "end before start" },
		{ HDR "end: 10.000000000\nstart: 10.000000001\nrows: 1\n\n" ROW, 5,
		  "start after end" },
		/* evidence (V2 is version 2; HDR, version 1, has none) */
		{ HDR "rows: 1\n\n" ROW EV, 7, "evidence in a version 1 file" },
		{ "lockmeter version 1\ncpus: 2\nmetered_ns: 1000\nrows: 1\n\n" ROW EV, 7,
		  "evidence in a saved /proc/lockmeter" },
		{ V2 "rows: 1\n\n" EV ROW, 6, "evidence before any row" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=2\n"
		  "> hold frame f+0x1/0x2\n", 7, "a frame missing at the end (truncated)" },
		{ V2 "rows: 2\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=2\n"
		  "> hold frame f+0x1/0x2\n" ROW, 7, "a frame missing before the next row" },
		{ V2 "rows: 1\n\n" ROW EV "> hold frame g+0x1/0x2\n", 9, "a frame too many" },
		{ V2 "rows: 1\n\n" ROW "> wait frame f+0x1/0x2\n", 7, "a frame before its head" },
		{ V2 "rows: 1\n\n" ROW EV EV, 9, "a second head line" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=nmi cpu=0 time=1 frames=0\n", 7,
		  "an unknown context" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task time=1 frames=0\n", 7,
		  "no cpu" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 pid=2 comm=a ctx=task cpu=0 time=1 frames=0\n", 7,
		  "a key twice" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=4294967296 comm=a ctx=task cpu=0 time=1 frames=0\n",
		  7, "a pid past 32 bits" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=17\n", 7,
		  "17 frames" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames\n", 7,
		  "a field without =" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a\\x0 ctx=task cpu=0 time=1 frames=0\n", 7,
		  "a cut escape" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a\\x00 ctx=task cpu=0 time=1 frames=0\n", 7,
		  "an escaped NUL" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a\\n ctx=task cpu=0 time=1 frames=0\n", 7,
		  "a backslash that is no \\xHH" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=\xc3\xa9 ctx=task cpu=0 time=1 frames=0\n", 7,
		  "a raw high byte" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  " ctx=task cpu=0 time=1 frames=0\n", 7, "a comm of 65 bytes" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=0 owner_comm=b\n",
		  7, "owner_comm without owner_pid" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=1 addrs=0x1,0x2\n"
		  "> hold frame f\n", 7, "more addresses than frames" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=2 addrs=0x1\n"
		  "> hold frame f\n> hold frame g\n", 7, "fewer addresses than frames" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=1 addrs=12\n"
		  "> hold frame f\n", 7, "an address without 0x" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=1 "
		  "addrs=0x10000000000000000\n> hold frame f\n", 7, "an address past 64 bits" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=0 addrs=0x1\n",
		  7, "addresses without frames" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=1\n"
		  "> hold frame\n", 8, "an empty frame" },
		{ V2 "rows: 1\n\n" ROW "> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=1\n"
		  "> hold frame a\tb\n", 8, "a raw tab in a frame" },
		{ V2 "rows: 1\n\n" ROW ">hold pid=1\n", 7, "no blank after >" },
		{ V2 "rows: 1\n\n" ROW "> Hold pid=1\n", 7, "a kind in capitals" },
		{ V2 "rows: 1\n\n" ROW ">  hold pid=1\n", 7, "an empty kind" },
		{ V2 "rows: 1\n\n" ROW ">\n", 7, "a lone >" },
		/* where the holder blocked: keys of the hold head line, "> blocked frame" lines */
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_frames=2\n> blocked frame s+0x1/0x2\n",
		  7, "a blocked frame missing at the end (truncated)" },
		{ V2 "rows: 2\n\n" ROW BH "blocked_ns=5 blocked_frames=1\n" ROW, 7,
		  "a blocked frame missing before the next row" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_frames=0\n> blocked frame s\n", 8,
		  "a blocked frame too many" },
		{ V2 "rows: 1\n\n" ROW EV "> blocked frame s\n", 9,
		  "a blocked frame without blocked_frames" },
		{ V2 "rows: 1\n\n" ROW "> blocked frame s\n", 7, "a blocked frame before its head" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_frames=1\n> blocked frame\n", 8,
		  "an empty blocked frame" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_frames=1\n> blocked frame a\tb\n", 8,
		  "a raw tab in a blocked frame" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_frames=1\n> blocked pid=1\n", 8,
		  "a blocked line that is no frame" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5\n", 7, "blocked_ns without blocked_frames" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_frames=0\n", 7, "blocked_frames without blocked_ns" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=x blocked_frames=0\n", 7, "a blocked_ns not a number" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=18446744073709551616 blocked_frames=0\n", 7,
		  "a blocked_ns past 64 bits" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_frames=17\n", 7, "17 blocked frames" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_ns=6 blocked_frames=0\n", 7,
		  "blocked_ns twice" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_frames=0 blocked_addrs=0x1\n", 7,
		  "blocked addresses without blocked frames" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_frames=2 blocked_addrs=0x1\n"
		  "> blocked frame s\n> blocked frame t\n", 7, "fewer blocked addresses than frames" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_frames=1 blocked_addrs=0x1,0x2\n"
		  "> blocked frame s\n", 7, "more blocked addresses than frames" },
		{ V2 "rows: 1\n\n" ROW BH "blocked_ns=5 blocked_frames=1 blocked_addrs=1\n"
		  "> blocked frame s\n", 7, "a blocked address without 0x" },
		{ V2 "rows: 1\n\n" ROW "> wait pid=1 comm=a ctx=task cpu=0 time=1 frames=0 "
		  "blocked_ns=5 blocked_frames=0\n", 7, "blocked time in wait evidence" },
	};
	struct lm_snapshot s;
	struct lm_perr e;
	char what[96];
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		lm_snap_init(&s);
		ret = read_mem(t[i].text, strlen(t[i].text), &s, &e);
		snprintf(what, sizeof(what), "damage: %s refused at line %lu", t[i].what, t[i].line);
		tap_ok(ret == LM_EXIT_CORRUPT && e.line == t[i].line, "%s", what);
		if (ret != LM_EXIT_CORRUPT || e.line != t[i].line)
			printf("# got %d at line %lu: %s\n", ret, e.line, e.msg);
		lm_snap_free(&s);
	}

	/* a NUL byte in a row */
	{
		static const char nul[] = HDR "rows: 1\n\nspin 3 2 1\0 0 0 10 1 5 4 4 4 0 0 0 0 1 a b\n";

		lm_snap_init(&s);
		ret = read_mem(nul, sizeof(nul) - 1, &s, &e);
		tap_ok(ret == LM_EXIT_CORRUPT && e.line == 6, "damage: a NUL byte refused");
		lm_snap_free(&s);
	}
	/* a line of 64 KiB and more */
	memcpy(longline, HDR "node: ", strlen(HDR "node: "));
	memset(longline + strlen(HDR "node: "), 'x', LM_LINE_MAX);
	longline[sizeof(longline) - 2] = '\n';
	lm_snap_init(&s);
	ret = read_mem(longline, sizeof(longline) - 1, &s, &e);
	tap_ok(ret == LM_EXIT_CORRUPT && e.line == 4, "damage: an overlong line refused");
	lm_snap_free(&s);
}

static void test_load_errors(void)
{
	struct lm_snapshot s;
	int ret;

	lm_snap_init(&s);
	fprintf(stderr, "# the two messages below are expected\n");
	ret = lm_snap_load("/nonexistent/lockstat.snap", &s);
	tap_ok(ret == LM_EXIT_FILE, "load: a missing file is unreadable (6)");
	ret = lm_snap_load("/", &s);
	tap_ok(ret == LM_EXIT_FILE, "load: a directory is unreadable (6)");
	lm_snap_free(&s);
}

/* what a newer writer may add is skipped; version 1 files still read */
static void test_evidence_compat(void)
{
	static const char v2[] = V2 "rows: 1\n\n" ROW
		"> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=1 color=blue\n"
		"> runnable pid=1 anything at all\n> runnable frame x\n"
		"> hold frame f+0x1/0x2\n";
	static const char v1[] = HDR "rows: 1\n\n" ROW;
	static const char blk[] = V2 "rows: 1\n\n" ROW
		"> hold pid=1 comm=a ctx=task cpu=0 time=1 frames=1 blocked_ns=49100000 "
		"shade=dark blocked_frames=2\n"
		"> blocked frame schedule_timeout+0x9e/0x170\n> hold frame f+0x1/0x2\n"
		"> runnable frame x\n> blocked frame msleep+0x2d/0x50\n";
	const struct lm_evidence *ev;
	struct lm_snapshot s;
	struct lm_perr e;
	int ret;

	lm_snap_init(&s);
	ret = read_mem(v2, sizeof(v2) - 1, &s, &e);
	tap_ok(ret == 0 && s.nr == 1 && s.rows[0].ev[LM_EV_HOLD] &&
	       s.rows[0].ev[LM_EV_HOLD]->nr_frames == 1 && !s.rows[0].ev[LM_EV_WAIT],
	       "evidence: unknown keys and kinds are skipped");
	if (ret)
		printf("# %d at %lu: %s\n", ret, e.line, e.msg);
	lm_snap_free(&s);
	lm_snap_init(&s);
	ret = read_mem(blk, sizeof(blk) - 1, &s, &e);
	ev = ret ? NULL : s.rows[0].ev[LM_EV_HOLD];
	tap_ok(ev && ev->nr_frames == 1 && lm_ev_has(ev, LM_EB_BLOCKED) && ev->blocked_ns == 49100000 &&
	       ev->nr_blocked == 2 && !strcmp(ev->blocked_frame[1], "msleep+0x2d/0x50") &&
	       !lm_ev_has(ev, LM_EB_BLOCKED_ADDRS),
	       "blocked: frames before, among and after the hold's, a newer key among them");
	if (ret)
		printf("# %d at %lu: %s\n", ret, e.line, e.msg);
	lm_snap_free(&s);
	lm_snap_init(&s);
	ret = read_mem(v1, sizeof(v1) - 1, &s, &e);
	tap_ok(ret == 0 && s.nr == 1 && !s.rows[0].ev[LM_EV_HOLD], "evidence: a version 1 file reads");
	lm_snap_free(&s);
}

/* "> class slab" after a row makes it a slab lock's; another class is skipped */
static void test_class_line(void)
{
	static const char text[] = V2 "rows: 2\n\n" ROW "> class slab\n" ROW "> class newer\n";
	struct lm_snapshot s;
	struct lm_perr e;
	int ret;

	lm_snap_init(&s);
	ret = read_mem(text, sizeof(text) - 1, &s, &e);
	tap_ok(ret == 0 && s.nr == 2 && s.rows[0].class == LM_CLASS_SLAB &&
	       s.rows[1].class == LM_CLASS_STATIC,
	       "class line: slab taken, an unknown class skipped (%d at %lu: %s)", ret, e.line,
	       e.msg);
	lm_snap_free(&s);
}

int main(void)
{
	test_roundtrip();
	test_new_types();
	test_evidence_roundtrip();
	test_evidence_compat();
	test_class_line();
	test_proc_copy();
	test_keys_header();
	test_mem_header();
	test_damage();
	test_load_errors();
	return tap_done();
}
