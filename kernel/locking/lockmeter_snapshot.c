// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: snapshots of the rows for readers (/proc/lockmeter, netlink).
 * A snapshot walks the key directory and sums each key's counters over
 * the CPUs into one row (struct lm_stat, times in ns), so that it takes
 * memory in proportion to the keys, not to CPUs times keys; then the
 * overflow rows, one per type.  It runs under lm_ctl_mutex, let go only
 * between batches of keys (and begun again if control changed the rows
 * meanwhile), so that it lies within one metering period: no reset, and
 * no module's rows retired, half way through; the hot paths never take
 * that mutex.
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

/*
 * Rows are sorted through an index of u32s, then moved once into place,
 * rescheduling every LM_SORT_BATCH steps of either: sort() is a heapsort
 * that runs its n log n comparisons, about 460,000 for a full directory
 * of 16384 keys, without a chance to reschedule.
 */
#define LM_SORT_BATCH	1024

static const struct lm_stat *lm_sort_rows;

static int lm_cmp_idx_key(const void *a, const void *b)
{
	return lm_key_cmp(&lm_sort_rows[*(const u32 *)a].key,
			  &lm_sort_rows[*(const u32 *)b].key);
}

static int lm_cmp_idx_hold_max(const void *a, const void *b)
{
	const struct lm_stat *x = &lm_sort_rows[*(const u32 *)a];
	const struct lm_stat *y = &lm_sort_rows[*(const u32 *)b];

	/* longest hold first; ties in key order so the output is stable */
	if (x->hold.max != y->hold.max)
		return x->hold.max > y->hold.max ? -1 : 1;
	return lm_key_cmp(&x->key, &y->key);
}

/*
 * Sort the @n entries of @idx by @cmp, with @tmp (as long) for room: a
 * bottom-up merge sort, log2(n) passes of n moves each.
 */
static void lm_idx_sort(u32 *idx, u32 *tmp, size_t n,
			int (*cmp)(const void *, const void *))
{
	size_t width, lo, mid, hi, i, j, k, steps = 0;
	u32 *src = idx, *dst = tmp;

	for (width = 1; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			mid = min(lo + width, n);
			hi = min(lo + 2 * width, n);
			for (i = lo, j = mid, k = lo; k < hi; k++) {
				if (i < mid && (j == hi || cmp(&src[i], &src[j]) <= 0))
					dst[k] = src[i++];
				else
					dst[k] = src[j++];
				if (!(++steps % LM_SORT_BATCH))
					cond_resched();
			}
		}
		swap(src, dst);
	}
	if (src != idx)
		memcpy(idx, src, n * sizeof(*idx));
}

/*
 * Put @rows in the order of @cmp over an index; falls back to sorting
 * the rows themselves if there is no memory for the index.  Callers hold
 * lm_ctl_mutex (or are KUnit tests), which serialises lm_sort_rows.
 */
static void lm_rows_order(struct lm_stat *rows, size_t n,
			  int (*cmp)(const void *, const void *),
			  int (*cmp_rows)(const void *, const void *))
{
	size_t i, j, k, steps = 0;
	struct lm_stat spare;
	u32 *idx;

	if (n < 2)
		return;
	idx = kvmalloc_array(2 * n, sizeof(*idx), GFP_KERNEL);
	if (!idx) {
		sort(rows, n, sizeof(*rows), cmp_rows, NULL);
		return;
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	lm_sort_rows = rows;
	lm_idx_sort(idx, idx + n, n, cmp);
	lm_sort_rows = NULL;
	/* row i is to be rows[idx[i]]: follow each cycle with one spare row */
	for (i = 0; i < n; i++) {
		if (idx[i] == i)
			continue;
		spare = rows[i];
		for (j = i; idx[j] != i; j = k) {
			k = idx[j];
			rows[j] = rows[k];
			idx[j] = j;
			if (!(++steps % LM_SORT_BATCH))
				cond_resched();
		}
		rows[j] = spare;
		idx[j] = j;
	}
	kvfree(idx);
}

static int lm_cmp_key(const void *a, const void *b)
{
	return lm_key_cmp(&((const struct lm_stat *)a)->key,
			  &((const struct lm_stat *)b)->key);
}

static int lm_cmp_hold_max(const void *a, const void *b)
{
	const struct lm_stat *x = a, *y = b;

	if (x->hold.max != y->hold.max)
		return x->hold.max > y->hold.max ? -1 : 1;
	return lm_key_cmp(&x->key, &y->key);
}

/*
 * Sort @rows by key and fold rows with equal keys into one; returns the
 * number of rows left.  Equal keys are rare: two CPUs that claimed one
 * new key at once (struct lm_dir).
 */
size_t lm_rows_merge(struct lm_stat *rows, size_t n)
{
	size_t i, out = 0;

	if (!n)
		return 0;
	lm_rows_order(rows, n, lm_cmp_idx_key, lm_cmp_key);
	for (i = 1; i < n; i++) {
		if (!(i % 1024))
			cond_resched();
		if (lm_key_eq(&rows[out].key, &rows[i].key))
			lm_stat_add(&rows[i], &rows[out]);
		else if (++out != i)
			rows[out] = rows[i];
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
 * The chunks of struct lm_store: what a row's evidence or histograms
 * take is at most sizeof(struct lm_stat_hist), 512 bytes, so a chunk
 * wastes little at its end.
 */
#define LM_STORE_CHUNK	(64 * 1024)

/* Room for @size bytes in @st, 8-byte aligned; NULL when there is no memory. */
static void *lm_store_alloc(struct lm_store *st, size_t size)
{
	void **chunk;
	void *p;

	size = ALIGN(size, sizeof(u64));
	if (WARN_ON_ONCE(size > LM_STORE_CHUNK))
		return NULL;
	if (!st->nr_chunks || st->used + size > LM_STORE_CHUNK) {
		if (st->nr_chunks == st->max_chunks) {
			chunk = krealloc_array(st->chunk, max(16U, 2 * st->max_chunks),
					       sizeof(*chunk), GFP_KERNEL);
			if (!chunk)
				return NULL;
			st->chunk = chunk;
			st->max_chunks = max(16U, 2 * st->max_chunks);
		}
		p = vmalloc(LM_STORE_CHUNK);
		if (!p)
			return NULL;
		st->chunk[st->nr_chunks++] = p;
		st->used = 0;
		st->bytes += LM_STORE_CHUNK;
	}
	p = st->chunk[st->nr_chunks - 1] + st->used;
	st->used += size;
	return p;
}

static void lm_store_free(struct lm_store *st)
{
	unsigned int i;

	for (i = 0; i < st->nr_chunks; i++)
		vfree(st->chunk[i]);
	kfree(st->chunk);
	memset(st, 0, sizeof(*st));
}

/* A copy of @b in @st, with its frames and no more; NULL when @b has none. */
static const struct lm_stat_ev *lm_store_ev(struct lm_store *st,
					    const struct lm_stat_ev_buf *b, int *err)
{
	size_t nr = b->e.nr, blk_nr = b->e.blk_nr;
	struct lm_stat_ev *e;

	if (!b->e.set)
		return NULL;
	e = lm_store_alloc(st, sizeof(*e) + (nr + blk_nr) * sizeof(*e->ip));
	if (!e) {
		*err = -ENOMEM;
		return NULL;
	}
	*e = b->e;
	e->ip = (unsigned long *)(e + 1);
	e->blk_ip = e->ip + nr;
	memcpy(e->ip, b->ip, nr * sizeof(*e->ip));
	memcpy(e->blk_ip, b->blk_ip, blk_nr * sizeof(*e->ip));
	return e;
}

/*
 * A row's counters summed over CPUs, still in ticks: converted to ns
 * once, after the sum (lm_raw_stat()), not once per CPU.
 */
struct lm_raw {
	u64 nr, spin, reject, abort;
	u64 hold_total, hold_min, hold_max;
	u64 wait_total, wait_min, wait_max;
	u64 oncpu_total, oncpu_max, blocked_max;
	u64 inst;
	u64 alerts, alerts_dropped;
	u64 hold_hist[LM_HIST_NR];
	u64 wait_hist[LM_HIST_NR];
};

static void lm_raw_init(struct lm_raw *r)
{
	memset(r, 0, sizeof(*r));
	r->hold_min = U64_MAX;
	r->wait_min = U64_MAX;
}

/*
 * Add slot @s of @pc (NULL: a slot of no CPU, in KUnit tests) to @r.
 * The counts come from the slot's own counters, never from its
 * histograms: a row read while its CPU charges it may have a histogram
 * one event apart from its count, and a wrap the spill table could not
 * hold (hist_lost) costs the histogram alone; lm_hist_fit() makes up the
 * difference.
 */
static void lm_raw_add(const struct lm_cpu *pc, const struct lm_slot *s, struct lm_raw *r)
{
	u64 nr, hold_total;
#ifdef CONFIG_LOCKMETER_HIST
	bool spills = pc && READ_ONCE(pc->nr_spill);
	unsigned int i;

	for (i = 0; i < LM_HIST_NR; i++) {
		r->hold_hist[i] += spills ? lm_hist_count(pc, s, &s->hold_hist[i]) :
				   READ_ONCE(s->hold_hist[i]);
		r->wait_hist[i] += spills ? lm_hist_count(pc, s, &s->wait_hist[i]) :
				   READ_ONCE(s->wait_hist[i]);
	}
#endif
	nr = READ_ONCE(s->nr);
	hold_total = READ_ONCE(s->hold_total);
	r->nr += nr;
	r->spin += min(READ_ONCE(s->spin), nr);
	r->reject += READ_ONCE(s->reject);
	r->abort += READ_ONCE(s->abort);
	r->hold_total += hold_total;
	r->hold_min = min(r->hold_min, READ_ONCE(s->hold_min));
	r->hold_max = max(r->hold_max, READ_ONCE(s->hold_max));
	r->wait_total += READ_ONCE(s->wait_total);
	r->wait_min = min(r->wait_min, READ_ONCE(s->wait_min));
	r->wait_max = max(r->wait_max, READ_ONCE(s->wait_max));
	r->oncpu_total += min(READ_ONCE(s->oncpu_total), hold_total);
	r->oncpu_max = max(r->oncpu_max, READ_ONCE(s->oncpu_max));
	r->blocked_max = max(r->blocked_max, READ_ONCE(s->blocked_max));
	r->inst |= READ_ONCE(s->inst);
	r->alerts_dropped += READ_ONCE(s->alerts_dropped);
	/* the drops first, as lm_snapshot() reads the CPUs' */
	smp_rmb();
	r->alerts += READ_ONCE(s->alerts);
}

/*
 * Make histogram @h sum to the exact count @nr.  They differ by the
 * charges in flight while the row was read (a few events), and by 65536
 * for each wrap the spill table had no room for (hist_lost, in the
 * header); the difference goes to, or comes from, the fullest buckets,
 * where wraps happen, so that readers get a histogram of the count.
 */
static void lm_hist_fit(u64 *h, u64 nr)
{
	u64 sum = 0, d;
	unsigned int i, top;

	for (i = 0; i < LM_HIST_NR; i++)
		sum += h[i];
	while (sum != nr) {
		for (top = 0, i = 1; i < LM_HIST_NR; i++)
			if (h[i] > h[top])
				top = i;
		if (sum < nr) {
			h[top] += nr - sum;
			return;
		}
		d = min(h[top], sum - nr);
		h[top] -= d;
		sum -= d;
	}
}

/*
 * @r into @row, whose key the caller set: times in ns, derived counts
 * filled in, and with CONFIG_LOCKMETER_HIST the histograms into @hist,
 * which @row then points to if it had any acquisition (or to nothing).
 */
static void lm_raw_stat(struct lm_raw *r, struct lm_stat *row, struct lm_stat_hist *hist)
{
	u64 oncpu_total;

	row->hist = NULL;
	if (IS_ENABLED(CONFIG_LOCKMETER_HIST) && hist && r->nr) {
		lm_hist_fit(r->hold_hist, r->nr);
		lm_hist_fit(r->wait_hist, r->spin);
		memcpy(hist->hold, r->hold_hist, sizeof(hist->hold));
		memcpy(hist->wait, r->wait_hist, sizeof(hist->wait));
		row->hist = hist;
	}
	row->hold_ev = NULL;
	row->wait_ev = NULL;
	row->nowait = r->nr - r->spin;
	row->spin = r->spin;
	row->reject = r->reject;
	row->abort = r->abort;
	row->hold.nr = r->nr;
	row->hold.total = lm_ticks_to_ns(r->hold_total);
	/* a minimum not yet set (U64_MAX) or set ahead of its maximum: clamp */
	row->hold.max = lm_ticks_to_ns(r->hold_max);
	row->hold.min = r->nr ? lm_ticks_to_ns(min(r->hold_min, r->hold_max)) : 0;
	row->wait.nr = r->spin;
	row->wait.total = lm_ticks_to_ns(r->wait_total);
	row->wait.max = lm_ticks_to_ns(r->wait_max);
	row->wait.min = r->spin ? lm_ticks_to_ns(min(r->wait_min, r->wait_max)) : 0;
	/*
	 * Converted on its own, blocked total could round off the sum:
	 * it is the rest of the converted hold, so hold = on-CPU + blocked
	 * in ns too.  Each maximum rounds down on its own, so the longest
	 * hold may exceed the longest parts by 1 ns.
	 */
	oncpu_total = lm_ticks_to_ns(min(r->oncpu_total, r->hold_total));
	row->oncpu_total = oncpu_total;
	row->blocked_total = lm_type_sleeps(row->key.type) ?
			     row->hold.total - oncpu_total : 0;
	row->oncpu_max = lm_ticks_to_ns(r->oncpu_max);
	row->blocked_max = lm_ticks_to_ns(r->blocked_max);
	row->inst = r->inst;
	row->alerts = r->alerts;
	row->alerts_dropped = r->alerts_dropped;
}

/*
 * Read slot @s of @pc (NULL: a slot of no CPU, in KUnit tests) into @row,
 * whose key the caller set: times in ns, derived counts filled in, the
 * histograms into @hist.
 */
void lm_slot_read(const struct lm_cpu *pc, const struct lm_slot *s, struct lm_stat *row,
		  struct lm_stat_hist *hist)
{
	struct lm_raw r;

	lm_raw_init(&r);
	lm_raw_add(pc, s, &r);
	lm_raw_stat(&r, row, hist);
}
EXPORT_SYMBOL_IF_KUNIT(lm_slot_read);

/* The lower bound of histogram bucket @b, in ns. */
u64 lm_hist_bound(unsigned int b)
{
	return b ? lm_ticks_to_ns(1ULL << (LM_HIST_SHIFT + b - 1)) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(lm_hist_bound);

/*
 * The chain @ref names in @pc's store into @ip (room for LM_STACK_DEPTH):
 * its number of frames.  @pc may reuse the entry while we copy (its
 * evidence moved on to a longer maximum, or a reset): then its
 * generation is no longer @ref's, and the chain is not shown as that of
 * evidence it does not belong to: 0 frames, and *@gone is set.
 */
u32 lm_stack_copy(const struct lm_cpu *pc, u64 ref, unsigned long *ip, bool *gone)
{
	unsigned int i = ref & 0xffff, n;
	u32 gen = ref >> 32;
	const struct lm_stack *st;

	if (ref == LM_NO_STACK || i >= LM_STACKS)
		return 0;
	st = &pc->stacks[i];
	/* pairs with smp_store_release() in lm_stack_take(): the frames first */
	if (smp_load_acquire(&st->seq) != gen)
		goto gone;
	n = min_t(unsigned int, READ_ONCE(st->nr), LM_STACK_DEPTH);
	memcpy(ip, st->ip, n * sizeof(*ip));
	/* the copy before the second look at the generation */
	smp_rmb();
	if (READ_ONCE(st->seq) == gen)
		return n;
gone:
	*gone = true;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(lm_stack_copy);

/* lm_stack_copy() from the store of the CPU @ref names, set into *@cpu. */
static u32 lm_stack_read(u64 ref, unsigned long *ip, u16 *cpu, bool *gone)
{
	unsigned int c = (ref >> 16) & 0xffff;
	struct lm_cpu *pc;
	u32 n;

	if (ref == LM_NO_STACK || c >= nr_cpu_ids || !cpu_possible(c))
		return 0;
	pc = per_cpu(lm_cpus, c);
	if (!pc)
		return 0;
	n = lm_stack_copy(pc, ref, ip, gone);
	if (n)
		*cpu = c;
	return n;
}

static void lm_one_ev_read(const struct lm_ev *ev, struct lm_stat_ev_buf *b, bool *gone)
{
	struct lm_stat_ev *e = &b->e;

	memset(e, 0, sizeof(*e));
	e->ip = b->ip;
	e->blk_ip = b->blk_ip;
	if (!ev->set)
		return;
	e->set = 1;
	e->cpu = ev->cpu;
	e->t = lm_ticks_to_ns(ev->t);
	e->pid = ev->pid;
	e->ctx = ev->ctx;
	memcpy(e->comm, ev->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	e->nr = lm_stack_read(ev->stack, b->ip, &e->cpu, gone);
}

/*
 * Read evidence @src into @hold and @wait, the evidence of the maxima of
 * its row; @cpu >= 0 takes only what ended on that CPU.  A copy a CPU
 * changed meanwhile, or whose chains were reused meanwhile (evidence
 * that moved on), is tried again, a few times; then the row goes
 * without.
 */
void lm_ev_read(const struct lm_evidence *src, int cpu, struct lm_stat_ev_buf *hold,
		struct lm_stat_ev_buf *wait)
{
	struct lm_evidence ev;
	unsigned int tries;
	bool gone;
	u16 blk_cpu;
	u32 seq;

	for (tries = 0; ; tries++) {
		hold->e.set = 0;
		wait->e.set = 0;
		if (tries == 4)
			return;
		/* pairs with smp_store_release() in lm_ev_put() */
		seq = smp_load_acquire(&src->seq);
		if (seq & 1) {
			cpu_relax();
			continue;
		}
		memcpy(&ev, src, sizeof(ev));
		/* the copy before the second look at the sequence */
		smp_rmb();
		if (READ_ONCE(src->seq) != seq)
			continue;
		if (cpu >= 0 && ev.hold.cpu != cpu)
			ev.hold.set = 0;
		if (cpu >= 0 && ev.wait.cpu != cpu)
			ev.wait.set = 0;
		gone = false;
		lm_one_ev_read(&ev.hold, hold, &gone);
		lm_one_ev_read(&ev.wait, wait, &gone);
		if (hold->e.set && ev.blk) {
			hold->e.blk = lm_ticks_to_ns(ev.blk);
			hold->e.blk_nr = lm_stack_read(ev.blk_stack, hold->blk_ip, &blk_cpu,
						       &gone);
		}
		/* a chain reused means newer evidence: read that */
		if (!gone)
			break;
	}
	if (wait->e.set) {
		wait->e.owner_pid = ev.owner_pid;
		memcpy(wait->e.owner_comm, ev.owner_comm, sizeof(ev.owner_comm));
		wait->e.owner_comm[sizeof(ev.owner_comm) - 1] = '\0';
	}
}
EXPORT_SYMBOL_IF_KUNIT(lm_ev_read);

static bool lm_stat_empty(const struct lm_stat *s)
{
	return !s->nowait && !s->spin && !s->reject && !s->abort;
}

static bool lm_slot_empty(const struct lm_slot *s)
{
	return !READ_ONCE(s->nr) && !READ_ONCE(s->reject) && !READ_ONCE(s->abort);
}

/* What a snapshot reads one row with, beside the row itself. */
struct lm_scratch {
	struct lm_raw raw;		/* the sum in ticks */
	struct lm_stat_hist hist;
	struct lm_stat_ev_buf hold, wait;
};

/*
 * Sum row @id of the directory, key @k, over @cpu (every CPU when < 0)
 * into @row, with @x->raw for the sum in ticks and its histograms in
 * @x->hist; false when empty.
 */
static bool lm_row_sum(unsigned int id, const struct lm_key *k, int cpu, struct lm_stat *row,
		       struct lm_scratch *x)
{
	struct lm_raw *r = &x->raw;
	bool any = false;
	unsigned int c;

	lm_raw_init(r);
	for_each_possible_cpu(c) {
		const struct lm_cpu *pc = per_cpu(lm_cpus, c);
		const struct lm_slot *s;

		/* CPUs without state, or without the chunk: nothing counted */
		if (!pc || (cpu >= 0 && c != cpu))
			continue;
		s = lm_row_peek(pc, id);
		if (!s || lm_slot_empty(s))
			continue;
		lm_raw_add(pc, s, r);
		any = true;
	}
	if (!any)
		return false;
	row->key = *k;
	lm_raw_stat(r, row, &x->hist);
	return !lm_stat_empty(row);
}

/*
 * The overflow row of @type over @cpu (all CPUs when < 0) into @row:
 * keyed by the key of its longest hold, with the evidence of the CPU
 * that had it (into @x->hold), and the longest wait's of the CPU that
 * had that (into @x->wait).
 */
static bool lm_ovf_sum(u32 type, int cpu, struct lm_stat *row, struct lm_scratch *x)
{
	const struct lm_ovf *hold = NULL, *wait = NULL;
	struct lm_stat_ev_buf unused;
	struct lm_raw *r = &x->raw;
	bool any = false;
	unsigned int c;

	lm_raw_init(r);
	for_each_possible_cpu(c) {
		const struct lm_cpu *pc = per_cpu(lm_cpus, c);
		const struct lm_ovf *o;

		if (!pc || (cpu >= 0 && c != cpu) || lm_slot_empty(&pc->overflow[type]))
			continue;
		o = &pc->ovf[type];
		lm_raw_add(pc, &pc->overflow[type], r);
		any = true;
		if (READ_ONCE(o->ev.hold.ticks) &&
		    (!hold || READ_ONCE(o->ev.hold.ticks) > READ_ONCE(hold->ev.hold.ticks)))
			hold = o;
		if (READ_ONCE(o->ev.wait.ticks) &&
		    (!wait || READ_ONCE(o->ev.wait.ticks) > READ_ONCE(wait->ev.wait.ticks)))
			wait = o;
	}
	if (!any)
		return false;
	row->key = (struct lm_key){ .type = type, .class = LM_OVERFLOW };
	lm_raw_stat(r, row, &x->hist);
	if (lm_stat_empty(row))
		return false;
	x->hold.e.set = 0;
	x->wait.e.set = 0;
	if (wait)
		lm_ev_read(&wait->ev, -1, &unused, &x->wait);
	if (hold) {
		lm_ev_read(&hold->ev, -1, &x->hold, &unused);
		row->key.lock = hold->hold_key.lock;
		row->key.site = hold->hold_key.site;
		row->key.off = hold->hold_key.off;
		row->key.class |= hold->hold_key.class << LM_OVF_SHIFT;
	}
	return true;
}

/*
 * Move what row @row points to in @x (its evidence and histograms) into
 * the store of @snap, for as long as the snapshot lives.
 */
static int lm_row_store(struct lm_snapshot *snap, struct lm_stat *row, struct lm_scratch *x)
{
	int err = 0;

	row->hold_ev = lm_store_ev(&snap->store, &x->hold, &err);
	row->wait_ev = lm_store_ev(&snap->store, &x->wait, &err);
	if (row->hist) {
		row->hist = lm_store_alloc(&snap->store, sizeof(*row->hist));
		if (row->hist)
			*row->hist = x->hist;
		else
			err = -ENOMEM;
	}
	return err;
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

/* The LM_GONE_* flags of @k, or of the key an overflow row is named after. */
static u32 lm_key_gone(const struct lm_key *k)
{
	return lm_class(k->class) == LM_OVERFLOW ? lm_ovf_class(k->class) : k->class;
}

static int lm_snapshot_gone(struct lm_snapshot *snap)
{
	size_t i, len = 0, off = 0;
	struct lm_key *k;
	u32 gone;

	for (i = 0; i < snap->nr; i++) {
		k = &snap->rows[i].key;
		gone = lm_key_gone(k);
		if (gone & LM_GONE_LOCK)
			len += strlen(lm_gone_name(k->lock)) + 1;
		if (gone & LM_GONE_SITE)
			len += strlen(lm_gone_name(k->site)) + 1;
	}
	if (!len)
		return 0;
	snap->gone = vmalloc(len);
	if (!snap->gone)
		return -ENOMEM;
	for (i = 0; i < snap->nr; i++) {
		k = &snap->rows[i].key;
		gone = lm_key_gone(k);
		if (gone & LM_GONE_LOCK)
			off = lm_gone_copy(snap->gone, off, &k->lock);
		if (gone & LM_GONE_SITE)
			off = lm_gone_copy(snap->gone, off, &k->site);
	}
	return 0;
}

/*
 * Keys a snapshot copies between two looks at lm_ctl_mutex, and the
 * copies it begins again when control changed the rows meanwhile before
 * it holds the mutex throughout.
 */
#define LM_SNAP_BATCH	1024
#define LM_SNAP_TRIES	2

/*
 * Sum the rows of @cpu (all CPUs when < 0) into @snap, one per key, then
 * the overflow rows; lm_ctl_mutex held.  Keys claimed meanwhile are
 * left out (the count of them is @snap->truncated): the copy is of the
 * directory as it was when it began.  With @yield, the mutex is let go
 * between batches of keys, so that control, the module notifier and
 * the held scan wait for a batch at most: -EAGAIN if control changed the
 * rows meanwhile (lm_gen), and the copy is to begin again.
 */
static int lm_snapshot_rows(struct lm_snapshot *snap, int cpu, bool yield)
{
	unsigned long gen = lm_gen;
	unsigned int id, used, t;
	struct lm_scratch *x;
	size_t n = 0;
	int err = 0;

	used = min_t(unsigned int, atomic_read(&lm_dir.used), lm_dir.nr);
	snap->rows = vmalloc_array(used + LM_NR_TYPES, sizeof(*snap->rows));
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!snap->rows || !x) {
		kfree(x);
		return -ENOMEM;
	}
	for (id = 0; id < used && !err; id++) {
		struct lm_key *k = &lm_dir.key[id];
		struct lm_stat *row = &snap->rows[n];

		if (yield && id && !(id % LM_SNAP_BATCH)) {
			mutex_unlock(&lm_ctl_mutex);
			cond_resched();
			mutex_lock(&lm_ctl_mutex);
			if (lm_gen != gen) {
				err = -EAGAIN;
				break;
			}
		}
		/* a key's rows on every CPU at a time: a stretch of microseconds */
		cond_resched();
		if (!READ_ONCE(k->type))
			continue;	/* being claimed: no counts yet */
		/* pairs with smp_wmb() in lm_dir_get() */
		smp_rmb();
		if (!lm_row_sum(id, k, cpu, row, x))
			continue;
		lm_ev_read(&lm_dir.ev[id], cpu, &x->hold, &x->wait);
		err = lm_row_store(snap, row, x);
		n++;
	}
	for (t = LM_NONE + 1; t < LM_NR_TYPES && !err; t++) {
		if (!lm_ovf_sum(t, cpu, &snap->rows[n], x))
			continue;
		err = lm_row_store(snap, &snap->rows[n], x);
		n++;
	}
	kfree(x);
	if (err)
		return err;
	snap->truncated = min_t(unsigned int, atomic_read(&lm_dir.used), lm_dir.nr) - used;
	snap->nr = lm_rows_merge(snap->rows, n);
	return lm_snapshot_gone(snap);
}

/*
 * The state and loss counters of @cpu (of all CPUs when @cpu < 0) and,
 * with @rows, a copy of the rows summed over CPUs; the caller frees it
 * with lm_snapshot_free().  The copy lies within one metering period: no
 * reset, and no module's rows retired, half way through.  lm_ctl_mutex
 * is let go between batches of keys (with @yield); a copy that control
 * changed meanwhile is begun again, and the last try holds the mutex
 * throughout.
 */
static int __lm_snapshot(struct lm_snapshot *snap, int cpu, bool rows, bool yield)
{
	unsigned int c, t;
	int ret = 0;

	memset(snap, 0, sizeof(*snap));
	guard(mutex)(&lm_ctl_mutex);
	snap->keys = lm_mem(snap);
	snap->mem_task = sizeof_field(struct task_struct, lockmeter);
	snap->keys_used = min_t(unsigned int, atomic_read(&lm_dir.used), lm_dir.nr);
	for_each_possible_cpu(c) {
		struct lm_cpu *pc = per_cpu(lm_cpus, c);

		if (!pc || (cpu >= 0 && c != cpu))
			continue;
		snap->loss.dropped += READ_ONCE(pc->loss.dropped);
		snap->loss.unmatched += READ_ONCE(pc->loss.unmatched);
		snap->loss.recursion += READ_ONCE(pc->loss.recursion);
		snap->loss.evicted += READ_ONCE(pc->loss.evicted);
		snap->loss.irqctx += READ_ONCE(pc->loss.irqctx);
		snap->loss.notask += READ_ONCE(pc->loss.notask);
		snap->loss.stacks_full += READ_ONCE(pc->loss.stacks_full);
		snap->loss.hist_lost += READ_ONCE(pc->loss.hist_lost);
		snap->loss.alerts_dropped += READ_ONCE(pc->loss.alerts_dropped);
		snap->loss.alerts_self += READ_ONCE(pc->loss.alerts_self);
		/*
		 * The drops before the alerts (pairs with smp_wmb() in
		 * lm_watch_raise()): never a drop without its alert.
		 */
		smp_rmb();
		snap->loss.alerts += READ_ONCE(pc->loss.alerts);
		snap->captures += READ_ONCE(pc->captures);
		snap->cache_fills += READ_ONCE(pc->fills);
		/* every event of an overflow row found no row */
		for (t = LM_NONE + 1; t < LM_NR_TYPES; t++)
			snap->table_full += READ_ONCE(pc->overflow[t].nr) +
					    READ_ONCE(pc->overflow[t].reject) +
					    READ_ONCE(pc->overflow[t].abort);
	}
	if (rows && snap->mem_tables)
		ret = lm_snapshot_rows(snap, cpu, yield);
	if (ret) {
		lm_snapshot_free(snap);
		return ret;
	}
	/* after the copy: every hold in it ended within the time metered */
	snap->on = lm_on;
	snap->metered_ns = lm_metered + (lm_on ? local_clock() - lm_t_on : 0);
	snap->resets = lm_resets;
	lm_watch_read(&snap->watch);
	return 0;
}

int lm_snapshot(struct lm_snapshot *snap, int cpu, bool rows)
{
	unsigned int tries;
	int ret;

	for (tries = 0; ; tries++) {
		ret = __lm_snapshot(snap, cpu, rows, tries < LM_SNAP_TRIES);
		if (ret != -EAGAIN)
			return ret;
	}
}

/* Order the rows of @snap for reports: longest hold first. */
void lm_snapshot_sort(struct lm_snapshot *snap)
{
	lm_rows_order(snap->rows, snap->nr, lm_cmp_idx_hold_max, lm_cmp_hold_max);
}

void lm_snapshot_free(struct lm_snapshot *snap)
{
	lm_store_free(&snap->store);
	vfree(snap->rows);
	vfree(snap->gone);
	snap->rows = NULL;
	snap->gone = NULL;
	snap->nr = 0;
}
