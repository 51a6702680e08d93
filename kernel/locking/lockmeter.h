/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter internals shared by the core, the hot paths, the /proc and
 * netlink interfaces and the KUnit tests.
 *
 * In order: the keys, rows and pure helpers on caller-owned memory (time
 * and row arithmetic, the key directory: no locks, no clocks, no per-CPU
 * data, so KUnit can test them); the per-CPU state and its (lock, site)
 * cache; the clock; the charge of a hold; and the fast paths of the
 * sleeping locks, inlined into the metered mutex and rw_semaphore
 * variants.  The spinning locks' fast paths are in lockmeter_spin.c.
 *
 * Concurrency: the keys live in one directory for all CPUs, claimed
 * without a lock and never changed while metering is live (struct
 * lm_dir).  A CPU's counters of the rows and its cache are written only
 * by that CPU with interrupts disabled (or by control, in an IPI on that
 * CPU or with every CPU out of the hot paths).  Readers copy the
 * counters without stopping the writers, so a reader may see one update
 * half applied (say, acquisitions bumped but the hold total not yet);
 * that is statistics, and we accept it, clamping what is derived so that
 * a tear never shows as a huge number.  A key is published before its
 * type, and the type marks it as in use, so a reader never sees a
 * half-written key.  64-bit counters are never torn on 64-bit machines.
 */
#ifndef _KERNEL_LOCKING_LOCKMETER_H
#define _KERNEL_LOCKING_LOCKMETER_H

#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/llist.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/lockmeter_task.h>
#include <linux/timex.h>
#include <linux/types.h>
#include <asm/barrier.h>

#include "lockmeter_compat.h"

#define LOCKMETER_VERSION	1

/*
 * Lock types are enum lm_type, in <linux/lockmeter.h> for the hooks; a
 * slot with type 0 (LM_NONE) is empty.  lockmeter_types.h names them.
 */

/* Where a lock lives decides how its rows are keyed (see lm_key). */
enum lm_class {
	LM_STATIC,	/* kernel or module .data/.bss: keyed by address */
	LM_PERCPU,	/* static per-CPU: keyed by per-CPU offset */
	LM_HEAP,	/* anything else: keyed by site alone */
	LM_OVERFLOW,	/* the per-type row for events that found no slot */
	LM_SLAB,	/* in a slab object: keyed by cache and offset in it */
};

/* Rows of these classes count the distinct instances they merge. */
static inline bool lm_class_merges(u32 class)
{
	return class == LM_HEAP || class == LM_SLAB;
}

/*
 * Flags in lm_key::class above the class itself: the row's lock or site
 * was in a module that has gone, and the field now points to a copy of
 * its name (in a snapshot: an offset into lm_snapshot::gone).
 */
#define LM_CLASS_MASK	0xffU
#define LM_GONE_LOCK	0x100U
#define LM_GONE_SITE	0x200U

static inline u32 lm_class(u32 class)
{
	return class & LM_CLASS_MASK;
}

/*
 * In a snapshot, an overflow row is keyed by the key of its longest hold
 * (lock 0 and site 0: none), whose own class is above LM_OVF_SHIFT.
 */
#define LM_OVF_SHIFT	16

static inline u32 lm_ovf_class(u32 class)
{
	return class >> LM_OVF_SHIFT;
}

/*
 * A statistics row is identified by (lock, site, type, class, off).  For
 * heap locks @lock is 0: all instances taken at one site share a row, and
 * the row counts how many distinct instances it saw.  For a lock in a slab
 * object (LM_SLAB) @lock is the struct kmem_cache and @off the lock's
 * offset in its object: the instances of one field of one cache taken at
 * one site share a row, counted the same way.  @off is 0 for the others.
 */
struct lm_key {
	unsigned long lock;
	unsigned long site;
	u32 type;
	u32 class;
	u32 off;
};

/* A sampled duration: count, sum and extremes, all in ns. */
struct lm_time {
	u64 nr;
	u64 total;
	u64 min;
	u64 max;
};

#define LM_INST_BITS	6	/* heap instances: a 64-bucket hash set */

#define LM_STACK_DEPTH	16	/* frames kept of a call chain */

/*
 * Evidence as readers get it: the task behind a row's longest hold or
 * wait, where it was (the chain innermost first) and when it ended.
 */
struct lm_stat_ev {
	u64 t;			/* ns, lockmeter's clock */
	u32 pid;
	u32 owner_pid;		/* wait on a sleeping lock: its owner then, 0 unknown */
	u16 cpu;
	u8 ctx;			/* enum lockmeter_context */
	u8 set;			/* there is evidence */
	u32 nr;			/* frames in @ip; 0: the chain was lost */
	char comm[TASK_COMM_LEN];
	char owner_comm[TASK_COMM_LEN];
	/* hold of a sleeping lock: its longest blocked stretch, ns (0: none) */
	u64 blk;
	u32 blk_nr;		/* frames in @blk_ip, where it blocked */
	/*
	 * The frames, @nr and @blk_nr of them: in a snapshot they follow
	 * the evidence in its store, so that a short chain takes only its
	 * own room (struct lm_store).
	 */
	unsigned long *ip;
	unsigned long *blk_ip;
};

/* Evidence being read, with room for whole chains (struct lm_store keeps less). */
struct lm_stat_ev_buf {
	struct lm_stat_ev e;
	unsigned long ip[LM_STACK_DEPTH];
	unsigned long blk_ip[LM_STACK_DEPTH];
};

/*
 * Histograms of holds and waits: bucket 0 counts times under
 * 2^LM_HIST_SHIFT ticks of the clock of the holds, bucket b > 0 those in
 * [2^(LM_HIST_SHIFT + b - 1), 2^(LM_HIST_SHIFT + b)) ticks, the last one
 * everything longer.  With the TSC at 1 to 4 GHz, bucket 0 ends between
 * 32 and 128 ns and the last starts between 34 and 137 s; with
 * local_clock() (ns) at 128 ns and 137 s.  Readers get the bounds in ns.
 */
#define LM_HIST_SHIFT	7
#define LM_HIST_NR	32

/* Buckets per histogram in a slot: none without CONFIG_LOCKMETER_HIST. */
#define LM_SLOT_HIST_NR	(IS_ENABLED(CONFIG_LOCKMETER_HIST) ? LM_HIST_NR : 0)

/* A row's histograms as readers get them: each sums to its count. */
struct lm_stat_hist {
	u64 hold[LM_HIST_NR];	/* sums to hold.nr */
	u64 wait[LM_HIST_NR];	/* sums to wait.nr */
};

struct lm_stat {
	struct lm_key key;
	u64 nowait;		/* acquired at once */
	u64 spin;		/* acquired after waiting */
	u64 reject;		/* failed trylocks */
	u64 abort;		/* sleeping locks: waits ended by a signal */
	struct lm_time hold;	/* every acquisition's hold */
	struct lm_time wait;	/* waits of the acquisitions that waited */
	u64 oncpu_total;	/* sleeping locks: hold on a CPU ... */
	u64 oncpu_max;
	u64 blocked_total;	/* ... and blocked (hold - on CPU) */
	u64 blocked_max;
	u64 inst;		/* buckets of hash_64(lock) seen (heap rows) */
	u64 alerts;		/* holds and waits over a threshold ... */
	u64 alerts_dropped;	/* ... not queued to be sent */
	/*
	 * Evidence and histograms only where a row has them (NULL where it
	 * has none), in the snapshot's stores: most of a row's bytes would
	 * otherwise be room for chains and buckets that stay empty.
	 */
	const struct lm_stat_ev *hold_ev;	/* behind hold.max */
	const struct lm_stat_ev *wait_ev;	/* behind wait.max */
	struct lm_stat_hist *hist;
};

/* Sleeping locks (mutex, rw_semaphore) keep per-task held records. */
static inline bool lm_type_sleeps(u32 type)
{
	return type >= LM_mutex;
}

/* Account one sample; the first sample also sets min. */
static __always_inline void lm_time_inc(struct lm_time *lt, u64 ns)
{
	if (ns > lt->max)
		lt->max = ns;
	if (ns < lt->min || !lt->nr)
		lt->min = ns;
	lt->total += ns;
	lt->nr++;
}

/* Merge @src into @dst, as if @dst had seen @src's samples too. */
static inline void lm_time_add(const struct lm_time *src, struct lm_time *dst)
{
	if (!src->nr)
		return;
	if (src->max > dst->max)
		dst->max = src->max;
	if (src->min < dst->min || !dst->nr)
		dst->min = src->min;
	dst->total += src->total;
	dst->nr += src->nr;
}

static inline void lm_hist_add(const struct lm_stat_hist *src, struct lm_stat_hist *dst)
{
	unsigned int i;

	for (i = 0; i < LM_HIST_NR; i++) {
		dst->hold[i] += src->hold[i];
		dst->wait[i] += src->wait[i];
	}
}

/* Merge the counters of @src into @dst; the keys are the caller's business. */
static inline void lm_stat_add(const struct lm_stat *src, struct lm_stat *dst)
{
	/* the evidence goes with the maximum it explains */
	if (src->hold_ev && (!dst->hold_ev || src->hold.max > dst->hold.max))
		dst->hold_ev = src->hold_ev;
	if (src->wait_ev && (!dst->wait_ev || src->wait.max > dst->wait.max))
		dst->wait_ev = src->wait_ev;
	dst->nowait += src->nowait;
	dst->spin += src->spin;
	dst->reject += src->reject;
	dst->abort += src->abort;
	lm_time_add(&src->hold, &dst->hold);
	lm_time_add(&src->wait, &dst->wait);
	dst->oncpu_total += src->oncpu_total;
	dst->oncpu_max = max(dst->oncpu_max, src->oncpu_max);
	dst->blocked_total += src->blocked_total;
	dst->blocked_max = max(dst->blocked_max, src->blocked_max);
	dst->inst |= src->inst;
	dst->alerts += src->alerts;
	dst->alerts_dropped += src->alerts_dropped;
	/* @src's histograms, which are @src's alone, may become @dst's */
	if (src->hist && dst->hist)
		lm_hist_add(src->hist, dst->hist);
	else if (src->hist)
		dst->hist = src->hist;
}

static __always_inline bool lm_key_eq(const struct lm_key *a, const struct lm_key *b)
{
	return a->lock == b->lock && a->site == b->site &&
	       a->type == b->type && a->class == b->class && a->off == b->off;
}

/* Three-way comparison of keys, for sorting and merging snapshots. */
static inline int lm_key_cmp(const struct lm_key *a, const struct lm_key *b)
{
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->class != b->class)
		return a->class < b->class ? -1 : 1;
	if (a->lock != b->lock)
		return a->lock < b->lock ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	return 0;
}

/*
 * The counters of one row on one CPU: two cache lines, indexed by the
 * row's id in the key directory (struct lm_dir), which has the key.  The
 * first line holds what every acquisition updates, the second what
 * failed trylocks, sleeping locks and heap rows add.  Times are in
 * lm_ticks() (readers convert with lm_ticks_to_ns()).  Derived when
 * read: nowait (@nr - @spin), the wait count (@spin), and blocked total
 * (hold total minus @oncpu_total).  A row no acquisition has reached on
 * this CPU is all zeros but its minima (U64_MAX, lm_slot_init()).
 */
struct lm_slot {
	u64 nr;			/* acquisitions */
	u64 spin;		/* ... of which waited */
	u64 hold_total;
	u64 hold_min;
	u64 hold_max;
	/*
	 * A hold longer than this takes the slow path: @hold_max, or the
	 * hold threshold of the row's type if lower (lm_watch_trip()), so
	 * that a threshold costs the fast path nothing.  Lowered on every
	 * CPU when a threshold is set (lockmeter_watch.c).
	 */
	u64 hold_trip;
	u64 wait_total;
	u64 wait_max;
	/* second line */
	u64 reject;		/* failed trylocks */
	u64 oncpu_total;	/* sleeping locks: hold on a CPU ... */
	u64 oncpu_max;
	u64 blocked_max;	/* ... and blocked */
	u64 inst;		/* heap rows: buckets of hash_64(lock) seen */
	u64 wait_min;
	u32 abort;		/* sleeping locks: waits ended by a signal */
	u32 alerts;		/* holds and waits over a threshold ... */
	u32 alerts_dropped;	/* ... not queued: the queue was full */
	u32 id;			/* the row's id; LM_ROW_NONE: an overflow row */
#ifdef CONFIG_LOCKMETER_HIST
	/*
	 * The rest: the histograms, one increment per hold or wait, in 16
	 * bits; a bucket that wraps to 0 is counted in its CPU's spill table
	 * (lm_hist_spill()).  The counts above are exact whatever happens
	 * here: a wrap the spill table has no room for loses 65536 events of
	 * the histogram alone, counted as hist_lost.
	 */
	u16 hold_hist[LM_HIST_NR];
	u16 wait_hist[LM_HIST_NR];
#endif
} __aligned(64);

static_assert(sizeof(struct lm_slot) == 128 + 2 * 2 * LM_SLOT_HIST_NR);

#define LM_ROW_NONE	U32_MAX

/*
 * The bucket of a hold or wait of @t ticks (see LM_HIST_SHIFT): one bit
 * scan and a clamp, no loop.
 */
static __always_inline unsigned int lm_hist_bucket(u64 t)
{
	return min_t(unsigned int, fls64(t >> LM_HIST_SHIFT), LM_HIST_NR - 1);
}

struct lm_cpu;
void lm_hist_spill(struct lm_cpu *c, const struct lm_slot *s, const u16 *bucket);

/* Count @t ticks in histogram @h of slot @s of @c; a wrap goes to the spills. */
static __always_inline void lm_hist_inc(struct lm_cpu *c, struct lm_slot *s, u16 *h, u64 t)
{
	u16 *b = &h[lm_hist_bucket(t)];

	if (unlikely(!++*b))
		lm_hist_spill(c, s, b);
}

static __always_inline void lm_hold_hist_inc(struct lm_cpu *c, struct lm_slot *s, u64 hold)
{
#ifdef CONFIG_LOCKMETER_HIST
	lm_hist_inc(c, s, s->hold_hist, hold);
#endif
}

static __always_inline void lm_wait_hist_inc(struct lm_cpu *c, struct lm_slot *s, u64 wait)
{
#ifdef CONFIG_LOCKMETER_HIST
	lm_hist_inc(c, s, s->wait_hist, wait);
#endif
}

/*
 * A row about to be counted in for the first time (or again after a
 * reset), zeroed before: row @id, or LM_ROW_NONE for an overflow row.
 */
static inline void lm_slot_init(struct lm_slot *s, u32 id)
{
	s->hold_min = U64_MAX;
	s->wait_min = U64_MAX;
	s->id = id;
}

/*
 * The key directory: the keys of all rows, shared by all CPUs.  A key
 * is claimed by the first CPU to meet it, without a lock: it takes a
 * free entry of @index with cmpxchg() (marking it LM_DIR_BUSY), the next
 * row id from @used, writes the key, and publishes index entry and key
 * type, in that order.  A key never moves or changes while metering is
 * live: the rows are emptied, and @used rewound, only by a reset or a
 * resize, with every CPU out of the hot paths (lockmeter.c,
 * lm_quiesce()).  So a CPU caches a key's row once and counts into it
 * for good, and every CPU's counters of a row are the same key's.
 *
 * @index is open addressing with linear probing at most half full, so
 * a lookup ends at a free entry within a few probes on average.  Two
 * CPUs that claim one new key at the same moment may both get a row for
 * it (one of them saw the other's entry still busy); readers merge rows
 * with equal keys.  Once the ids run out, a key that is not in the
 * directory goes to its CPU's overflow row of its type (struct lm_ovf).
 */
struct lm_evidence;

#define LM_DIR_BUSY	U32_MAX
#define LM_KEYS_MIN	256
#define LM_KEYS_MAX	BIT(22)

struct lm_dir {
	struct lm_key *key;		/* by row id; type 0: not published yet */
	struct lm_evidence *ev;		/* by row id: evidence of its maxima */
	u32 *index;			/* row id + 1, 0 free, or LM_DIR_BUSY */
	unsigned int nr;		/* rows */
	unsigned int index_mask;	/* entries of @index - 1: a power of 2 */
	atomic_t used;			/* row ids handed out, up to @nr */
};

/* Home entry of @k in an index of @mask + 1 entries. */
static inline unsigned int lm_key_home(const struct lm_key *k, unsigned int mask)
{
	return hash_64((k->lock + k->off) ^
		       hash_64(k->site ^ k->type ^ ((u64)k->class << 32), 32), 32) & mask;
}

int lm_dir_get(struct lm_dir *d, const struct lm_key *k);

/* Instance set of a heap row: one bit per hash bucket of the lock address. */
static inline u64 lm_inst_bit(unsigned long lock)
{
	return 1ULL << hash_64(lock, LM_INST_BITS);
}

size_t lm_rows_merge(struct lm_stat *rows, size_t n);
u64 lm_inst_estimate(u64 inst);
void lm_slot_read(const struct lm_cpu *pc, const struct lm_slot *s, struct lm_stat *row,
		  struct lm_stat_hist *hist);
u64 lm_hist_count(const struct lm_cpu *c, const struct lm_slot *s, const u16 *bucket);
struct lm_evidence;
void lm_ev_read(const struct lm_evidence *src, int cpu, struct lm_stat_ev_buf *hold,
		struct lm_stat_ev_buf *wait);
u32 lm_stack_copy(const struct lm_cpu *pc, u64 ref, unsigned long *ip, bool *gone);
void lm_stacks_clear(struct lm_cpu *c);
u64 lm_hist_bound(unsigned int b);

/* ---- the per-CPU state, shared by the hot paths and the readers ---- */

/* Events lost or not metered; all per CPU, summed by readers. */
struct lm_loss {
	u64 dropped;		/* held stack full: acquisition not metered */
	u64 unmatched;		/* release without a recorded acquire */
	/*
	 * acquisition or failed trylock turned away: it came from inside
	 * lockmeter's own bookkeeping on this CPU (a tracepoint or kprobe on
	 * its path), see lm_guard()
	 */
	u64 recursion;
	u64 evicted;		/* task's held records full: oldest dropped */
	u64 irqctx;		/* sleeping-lock op outside task context: not metered */
	u64 notask;		/* task record pool empty: acquisition not metered */
	u64 stacks_full;	/* evidence whose chain found the store full */
	u64 hist_lost;		/* histogram bucket wraps the spill table had no room for */
	/* not losses, but counted the same way: lockstat watch */
	u64 alerts;		/* holds and waits over a threshold */
	u64 alerts_dropped;	/* ... not queued: this CPU's queue was full */
	u64 alerts_self;	/* ... of which raised by the alert machinery itself */
};

/*
 * Bump a loss counter of this CPU that an interrupt may bump too (irqctx,
 * unmatched of sleeping locks): counted in task or softirq context with
 * interrupts on, a plain increment could lose one to a hardirq counting
 * in between.  Interrupts off, it cannot.  Preemption is off, NMIs never
 * count.
 */
static __always_inline void lm_loss_inc(u64 *ctr)
{
	unsigned long flags;

	raw_local_irq_save(flags);
	WRITE_ONCE(*ctr, *ctr + 1);
	raw_local_irq_restore(flags);
}

/*
 * A 16-bit histogram bucket that wrapped: @key is its offset in its
 * struct lm_cpu (0: a free entry), @wraps how often it wrapped, each
 * time 65536 events.
 */
#define LM_SPILLS	256
#define LM_SPILL_PROBES	8

struct lm_spill {
	u32 key;
	u32 wraps;
};

/* A spinning lock this CPU holds. */
struct lm_held {
	unsigned long lock;
	unsigned long site;
	u64 t_acq;		/* lm_ticks() when acquired */
	u64 t_wait;		/* lm_ticks() when the wait began, or 0 */
	u32 type;		/* for readers of the locks held now */
};

/* The per-CPU cache from a (lock, site) to its slot: direct mapped. */
#define LM_CACHE_BITS	12

struct lm_cached {
	unsigned long lock;
	unsigned long tag;	/* lm_cache_tag(site, type) */
	struct lm_slot *slot;
};

/*
 * Evidence: when a hold or a wait sets a new maximum for its slot, who it
 * was, when, and the call chain (lockmeter_spin.c, lm_charge_slow()).
 * Chains go to a store of each CPU, written by that CPU alone with
 * interrupts off: the CPU that charges the hold walks the chain into its
 * own store and points the evidence at it.  An entry belongs to the
 * evidence it was taken for (@ev) and stays while a chain reference of
 * that evidence names it; once the evidence has moved on to a longer
 * maximum (of any CPU), the entry is free again, which its CPU finds
 * out when it looks for room (lm_stack_alive()).  No other CPU writes
 * an entry, no reference count is kept.
 *
 * @seq is the entry's generation: odd while its CPU writes it, bumped
 * to the next even value when written, and bumped by a reset.  A
 * reference names CPU, entry and generation, so a reader copying an
 * entry its CPU reuses meanwhile sees the generation change, and never
 * shows a chain as another evidence's (lm_stack_read()).  Sleeping
 * locks' blocked chains, taken where the holder blocked, travel in the
 * holder's record (struct lm_task_held) until its release is charged.
 */
#define LM_STACKS	512	/* chains per CPU */
#define LM_NO_STACK	0ULL

static inline u64 lm_stack_ref(unsigned int cpu, unsigned int i, u32 seq)
{
	return (u64)seq << 32 | cpu << 16 | i;
}

struct lm_evidence;

struct lm_stack {
	u32 seq;		/* generation, odd while written */
	u32 nr;			/* frames in @ip */
	const struct lm_evidence *ev;	/* whose chain it is; NULL: free */
	unsigned long ip[LM_STACK_DEPTH];
};

struct lm_ev {
	u64 t;			/* lm_ticks() when the hold or wait ended */
	u64 ticks;		/* the hold or wait it explains */
	u64 stack;		/* lm_stack_ref(), or LM_NO_STACK */
	u32 pid;
	char comm[TASK_COMM_LEN];
	u16 cpu;		/* where it ended */
	u8 ctx;			/* enum lockmeter_context */
	u8 set;
};

/*
 * The evidence of a row's longest hold and wait, one per key in the
 * directory, written by whichever CPU beats the maximum it explains and
 * touched only then.  @seq is odd while a CPU writes (taken with
 * cmpxchg(): a CPU that finds it taken leaves the evidence to the
 * other), and readers retry a copy it changed under them.
 */
struct lm_evidence {
	u32 seq;
	struct lm_ev hold;
	struct lm_ev wait;
	u32 owner_pid;		/* the waited-for owner, sleeping locks */
	char owner_comm[TASK_COMM_LEN];
	u64 blk_stack;		/* with @blk: where the holder blocked */
	u64 blk;		/* the hold's longest blocked stretch, ticks */
};

/*
 * An overflow row counts the events of every key that found no row; it
 * keeps the keys (classified, as a row's) of its own longest hold and
 * longest wait, with their evidence, so that even the worst hold of a
 * run whose directory filled up is named.  Per CPU, written by it only.
 */
struct lm_ovf {
	struct lm_key hold_key;
	struct lm_key wait_key;
	struct lm_evidence ev;
};

/*
 * A CPU's rows come in chunks of LM_CHUNK_ROWS, allocated as the CPU
 * meets keys whose ids fall in a chunk it has not got.  The lock path
 * never allocates: it takes a chunk from the CPU's spares, and asks for
 * more when half of them are gone, by an irq_work that allocates on the
 * same CPU once the lock operation is over (without sleeping), or else
 * queues a work item that may sleep (lockmeter.c, lm_spares_add()).
 * With no spare left, the event is counted in the overflow row of its
 * type, and the key is looked up again at its next event.
 */
#define LM_CHUNK_ROWS	32
#define LM_SPARES	4

/*
 * Spare chunks of one CPU, each linked through its first bytes: added by
 * anyone (llist_add()), taken by the CPU alone, interrupts off.
 */
struct lm_spares {
	struct llist_head list;
	atomic_t nr;		/* chunks on @list */
	bool asked;		/* the CPU asked for more, not served yet */
	struct irq_work ask;	/* lm_spares_kick() */
};

/*
 * Everything one CPU meters with, allocated when metering is first
 * switched on for each online CPU, and for each CPU that comes online
 * later (lm_cpu_prepare()); kept when the CPU goes offline, freed by a
 * release.  Written only by its CPU with interrupts off, or by control
 * with every CPU out of the hot paths.
 */
struct lm_cpu {
	/*
	 * The held stack: @held[1] to @top - 1 in use, @top the next free
	 * entry.  @held[0] is a floor whose lock stays 0, never a released
	 * lock's: a release compares with @top - 1 and needs no other check.
	 * The last entry is never used and its lock stays 0 too: while
	 * lockmeter's own bookkeeping runs out of line, @top points past it
	 * (lm_guard()).
	 */
	struct lm_held *top;
	struct lm_held held[2 + CONFIG_LOCKMETER_STACK_DEPTH];
	struct lm_cached cache[1U << LM_CACHE_BITS];
	u64 fills;		/* cache misses: classified and looked up */
	struct lm_loss loss;
	struct lm_dir *dir;	/* the keys of the rows */
	/*
	 * This CPU's counters, by row id: the row id % LM_CHUNK_ROWS of
	 * chunk id / LM_CHUNK_ROWS, or none yet where that is NULL
	 * (lm_row()).  A chunk is published with its rows initialised,
	 * and freed only with every CPU out of the hot paths.
	 */
	struct lm_slot **chunk;
	unsigned int nr_chunks;	/* entries of @chunk */
	struct lm_spares spares;
	struct lm_slot overflow[LM_NR_TYPES];	/* events that found no row */
	struct lm_ovf ovf[LM_NR_TYPES];		/* ... and what they were */
	u64 captures;		/* evidence taken */
	unsigned int stack_hand;	/* where the next search for room starts */
	struct lm_stack stacks[LM_STACKS];
#ifdef CONFIG_LOCKMETER_HIST
	unsigned int nr_spill;	/* entries of @spill in use */
	struct lm_spill spill[LM_SPILLS];
#endif
};

DECLARE_PER_CPU_READ_MOSTLY(struct lm_cpu *, lm_cpus);

/* Row @id of @c, or NULL if @c has no chunk for it yet; any context. */
static __always_inline struct lm_slot *lm_row_peek(const struct lm_cpu *c, unsigned int id)
{
	/* pairs with smp_store_release() in lm_row_new(): rows ready */
	struct lm_slot *chunk = smp_load_acquire(&c->chunk[id / LM_CHUNK_ROWS]);

	return chunk ? &chunk[id % LM_CHUNK_ROWS] : NULL;
}

struct lm_slot *lm_row_new(struct lm_cpu *c, unsigned int id);

/*
 * Row @id of @c, this CPU's, interrupts off: a spare chunk is taken for
 * it if it has none; NULL when no spare is left.
 */
static __always_inline struct lm_slot *lm_row(struct lm_cpu *c, unsigned int id)
{
	struct lm_slot *chunk = c->chunk[id / LM_CHUNK_ROWS];

	if (likely(chunk))
		return &chunk[id % LM_CHUNK_ROWS];
	return lm_row_new(c, id);
}

/* The directory id of slot @s of @c, or -1 for an overflow row. */
static __always_inline int lm_slot_id(const struct lm_cpu *c, const struct lm_slot *s)
{
	if (s >= c->overflow && s < c->overflow + LM_NR_TYPES)
		return -1;
	return s->id;
}

/* Where @c's held stack is full: a push stops below. */
static __always_inline struct lm_held *lm_held_end(struct lm_cpu *c)
{
	return &c->held[1 + CONFIG_LOCKMETER_STACK_DEPTH];
}

/* @c->top while @c is guarded (lm_guard()). */
static __always_inline struct lm_held *lm_guard_top(const struct lm_cpu *c)
{
	return (struct lm_held *)&c->held[ARRAY_SIZE(c->held)];
}

/*
 * Guard @c against lock operations from inside lockmeter's bookkeeping,
 * until lm_unguard(): a call out of line (a stack walk, irq_work_queue()
 * and its ipi_send_cpu tracepoint, the classification of a lock) may run
 * a BPF program or an optimised kprobe that takes a metered lock on this
 * CPU, whose push would overwrite the record being charged.  With @top
 * past the held stack's unused last entry, a push finds the stack full
 * and is counted as recursion (lm_acquire()), a release finds no record
 * on top and is turned away by lm_release_deep(), a failed trylock is
 * turned away by lm_miss().  Interrupts are off.  Returns the top to
 * restore.
 */
static __always_inline struct lm_held *lm_guard(struct lm_cpu *c)
{
	struct lm_held *top = c->top;

	WRITE_ONCE(c->top, lm_guard_top(c));
	barrier();
	return top;
}

static __always_inline void lm_unguard(struct lm_cpu *c, struct lm_held *top)
{
	barrier();
	WRITE_ONCE(c->top, top);
}

static __always_inline bool lm_guarded(const struct lm_cpu *c)
{
	return c->top == lm_guard_top(c);
}

/* Entries of @c's held stack in use, were its top @top. */
static inline unsigned int lm_held_depth(const struct lm_cpu *c, const struct lm_held *top)
{
	return top - &c->held[1];
}

/*
 * Room a snapshot takes as its rows need it, in chunks that never move,
 * so that rows may point into it: evidence with its chains, histograms.
 */
struct lm_store {
	void **chunk;
	unsigned int nr_chunks;	/* allocated */
	unsigned int max_chunks;	/* room in @chunk */
	size_t used;		/* bytes handed out of the last chunk */
	size_t bytes;		/* all chunks' sizes, for the header */
};

/* The thresholds and counters as readers get them: ns, 0 none. */
struct lm_watch_state {
	u64 hold_ns[LM_NR_TYPES];
	u64 wait_ns[LM_NR_TYPES];
	u64 sent;		/* alerts sent to the alerts group */
	u64 unsent;		/* ... not: rate limit, no memory, no listener */
	u64 held;		/* sleeping locks found held over a threshold */
};

struct lm_snapshot {
	struct lm_stat *rows;	/* merged over CPUs, sorted by key */
	size_t nr;
	struct lm_store store;	/* the rows' evidence and histograms */
	struct lm_loss loss;
	u64 table_full;		/* events counted in overflow rows */
	u64 cache_fills;	/* (lock, site) cache misses */
	u64 captures;		/* evidence taken */
	unsigned int keys_used;		/* rows of the key directory in use */
	unsigned int keys;		/* ... of its size */
	u64 truncated;		/* rows that did not fit the copy */
	char *gone;		/* names of rows of unloaded modules */
	bool on;
	u64 metered_ns;
	/* since boot: snapshots with equal counts lie in one period */
	u64 resets;
	/*
	 * memory: bytes per CPU with state (on average), in all (CPUs and
	 * directory), per task
	 */
	unsigned long mem_percpu;
	unsigned long mem_tables;
	unsigned long mem_task;
	unsigned long mem_keys;		/* of mem_tables: the key directory */
	unsigned long mem_rows;		/* ... the rows of all CPUs */
	unsigned long mem_cap;		/* at most, in all */
	unsigned int mem_cpus;		/* CPUs with state */
	struct lm_watch_state watch;	/* thresholds, alerts sent and not */
};

enum lm_ctl {
	LM_CTL_ON,
	LM_CTL_OFF,
	LM_CTL_RESET,
	LM_CTL_RELEASE,
};

/*
 * The hot paths' view of this CPU's state: lm_cpus while metering is
 * live, NULL otherwise (lockmeter.c, lm_go_live()).  One per-CPU load
 * tells both whether to meter and where.
 */
DECLARE_PER_CPU(struct lm_cpu *, lm_live_cpu);
extern u32 lm_epoch;

/* This CPU's state if this lock operation is metered: not in NMI, live. */
static __always_inline struct lm_cpu *lm_gate(void)
{
	if (unlikely(in_nmi()))
		return NULL;
	return this_cpu_read(lm_live_cpu);
}

/* ---- the clock of the holds ---- */

/*
 * Holds and waits are timed in lm_ticks(): the raw TSC where it ticks at
 * a constant rate and is synchronised across CPUs (the kernel's own
 * premise for using it as sched_clock), else local_clock(), the choice
 * lm_local_clock_key.  Readers convert with lm_ticks_to_ns().  The choice
 * is made once, when metering is first switched on, and holds until
 * reboot.
 */
DECLARE_STATIC_KEY_FALSE(lm_local_clock_key);

static __always_inline bool lm_clock_is_tsc(void)
{
#ifdef CONFIG_X86_TSC
	return !static_branch_unlikely(&lm_local_clock_key);
#else
	return false;
#endif
}

/*
 * The TSC, where lm_clock_is_tsc() has been checked already: get_cycles(),
 * the architecture's cycle counter, which is RDTSC with CONFIG_X86_TSC.
 * Unordered, as sched_clock() reads it: the CPU may read it a few dozen
 * cycles before or after the instructions around it, an error well below
 * a hold's or a wait's, where RDTSCP or an LFENCE per stamp would add
 * tens of cycles to every lock operation.
 */
static __always_inline u64 lm_tsc(void)
{
#ifdef CONFIG_X86_TSC
	return get_cycles();
#else
	return local_clock_noinstr();
#endif
}

static __always_inline u64 lm_ticks(void)
{
	if (lm_clock_is_tsc())
		return lm_tsc();
	return local_clock_noinstr();
}

void lm_stamp_local(u64 *t);

/*
 * Stamp *@t with lm_ticks(), the local_clock() case out of line: a hot
 * path that stamps last then keeps no register across a call for it.
 */
static __always_inline void lm_stamp_into(u64 *t)
{
	if (likely(lm_clock_is_tsc()))
		*t = lm_tsc();
	else
		lm_stamp_local(t);
}

static inline u64 lm_ticks_to_ns(u64 t)
{
#ifdef CONFIG_X86_TSC
	if (lm_clock_is_tsc())
		return mul_u64_u32_div(t, USEC_PER_SEC, tsc_khz);
#endif
	return t;
}

static __always_inline u64 lm_delta(u64 from, u64 to)
{
	return to > from ? to - from : 0;
}

void lm_clock_init(void);
bool lm_clock_recheck(void);
bool lm_tsc_trusted(void);
extern u64 lm_chain_min;
const char *lm_clock_name(void);
int lm_classify_init(void);
int lm_task_cache_init(void);
void lm_task_blocks_give(void);
void lm_task_blocks_stop(void);

/* ---- metered operations ---- */

/* The current task's time off a CPU so far: the task is running. */
static __always_inline u64 lm_offcpu(void)
{
	const struct lm_task *lt = READ_ONCE(current->lockmeter);

	return lt ? READ_ONCE(lt->offcpu) : 0;
}

void lm_sleep_abort(void *lock, unsigned long site, u32 type);
struct lm_slot *lm_cache_fill(struct lm_cpu *c, struct lm_cached *e,
			      unsigned long lock, unsigned long site, u32 type);

/*
 * The slot for (@lock, @site, @type) on this CPU, interrupts off: from the
 * cache, else classified, looked up and cached (the overflow row when the
 * table has no room).
 */
static __always_inline struct lm_cached *lm_cache_entry(struct lm_cpu *c, unsigned long lock,
							unsigned long site)
{
	return &c->cache[hash_64(lock ^ site, LM_CACHE_BITS)];
}

/*
 * An entry holds its site XORed with the type: one compare checks both.
 * Two types of one lock at sites that XOR alike would need return
 * addresses 1 (read and write of an rwlock) or 3 (of an rw_semaphore)
 * bytes apart, closer than two calls can be.
 */
static __always_inline unsigned long lm_cache_tag(unsigned long site, u32 type)
{
	return site ^ type;
}

static __always_inline bool lm_cache_hit(const struct lm_cached *e, unsigned long lock,
					 unsigned long site, u32 type)
{
	return e->lock == lock && e->tag == lm_cache_tag(site, type);
}

static __always_inline struct lm_slot *lm_slot_of(struct lm_cpu *c, unsigned long lock,
						  unsigned long site, u32 type)
{
	struct lm_cached *e = lm_cache_entry(c, lock, site);

	if (likely(lm_cache_hit(e, lock, site, type)))
		return e->slot;
	return lm_cache_fill(c, e, lock, site, type);
}

/* The owner of a sleeping lock when a wait for it began. */
struct lm_owner {
	u32 pid;		/* 0: unknown */
	char comm[TASK_COMM_LEN];
};

/* Note @p (NULL: none; the caller holds rcu_read_lock()) as the owner waited for. */
static inline void lm_owner_of(struct task_struct *p, struct lm_owner *o)
{
	o->pid = p ? p->pid : 0;
	if (!p)
		return;
	/* a racing set_task_comm() may tear the copy, not its end */
	memcpy(o->comm, p->comm, sizeof(o->comm));
	o->comm[sizeof(o->comm) - 1] = '\0';
}

struct lm_task_held;
void lm_charge_slow(struct lm_cpu *c, struct lm_slot *s, u64 hold, u64 t_wait, u64 t_acq,
		    const struct lm_task_held *th);

/*
 * Charge one acquisition's hold and wait (ticks) to @s of @c.  A slot's
 * minima start at U64_MAX (lm_slot_init()), so the first sample sets
 * them.  The common case, a hold that waited for nothing, sets no new
 * maximum and crosses no threshold, is done here, with one compare for
 * the two (@s->hold_trip); the rest, with the evidence of a new maximum
 * (the task, the chain where the lock was released, and for a sleeping
 * lock its record @th: whom it waited for, where it blocked) and the
 * alert of a threshold crossed, out of line, as the last thing the
 * caller does before leaving, after the lock itself was released.  The
 * acquisition's lock and site, for the key an overflow row keeps, are
 * @th's, or for a spinning lock those of the record just popped, at
 * @c->top until the charge is done.
 */
static __always_inline void lm_charge(struct lm_cpu *c, struct lm_slot *s, u64 hold,
				      u64 t_wait, u64 t_acq, const struct lm_task_held *th)
{
	if (unlikely(hold > s->hold_trip || t_wait)) {
		lm_charge_slow(c, s, hold, t_wait, t_acq, th);
		return;
	}
	s->nr++;
	s->hold_total += hold;
	lm_hold_hist_inc(c, s, hold);
	if (hold < s->hold_min)
		s->hold_min = hold;
}

/* ---- sleeping locks: the records of the current task ---- */

/* A sleeping lock the task holds (lockmeter_sleep.c has the blocks). */
struct lm_task_held {
	unsigned long lock;
	unsigned long site;
	u64 t_acq;		/* lm_ticks() when acquired */
	u64 offcpu_acq;		/* the task's lm_task::offcpu then */
	u64 t_wait;		/* lm_ticks() when the wait began, or 0 */
	u32 epoch;		/* metering period it was taken in */
	u32 type;
	struct lm_owner owner;	/* with @t_wait: whom it waited for */
	/*
	 * The longest stretch blocked so far (ticks) and the chain there,
	 * @blk_nr frames (0: none), kept here until the release is charged:
	 * the task may be released on any CPU, and a CPU's chain store is
	 * written by that CPU alone.  208 bytes in all (64-bit).
	 */
	u32 blk_nr;
	u64 blk;
	unsigned long blk_ip[LM_STACK_DEPTH];
};

static_assert(!IS_ENABLED(CONFIG_64BIT) || sizeof(struct lm_task_held) == 80 + 8 * LM_STACK_DEPTH);

/*
 * A task's block, that task_struct::lockmeter points to: the state the
 * scheduler sees (<linux/lockmeter_task.h>), then the records.
 */
struct lm_task_block {
	struct lm_task t;
	struct lm_task_held held[CONFIG_LOCKMETER_TASK_DEPTH];
};

static_assert(!IS_ENABLED(CONFIG_64BIT) || sizeof(struct lm_task) == 80);

/* The records of the block @lt heads. */
static __always_inline struct lm_task_held *lm_held(struct lm_task *lt)
{
	return container_of(lt, struct lm_task_block, t)->held;
}

void lm_sleep_release_deep(struct lm_task *lt, unsigned long lock, u32 type,
			   u64 t_rel, u64 offcpu_rel);

/* Charge the hold of record @h, released at @t_rel, to slot @s of @c. */
static __always_inline void __lm_sleep_charge(struct lm_cpu *c, struct lm_slot *s,
					      const struct lm_task_held *h,
					      u64 t_rel, u64 offcpu_rel)
{
	u64 hold = lm_delta(h->t_acq, t_rel);
	u64 offcpu = min(lm_delta(h->offcpu_acq, offcpu_rel), hold);
	u64 oncpu = hold - offcpu;

	s->oncpu_total += oncpu;
	if (oncpu > s->oncpu_max)
		s->oncpu_max = oncpu;
	if (offcpu > s->blocked_max)
		s->blocked_max = offcpu;
	/* last: its slow path is a call */
	lm_charge(c, s, hold, h->t_wait, h->t_acq, h);
}

void lm_sleep_charge_miss(struct lm_cpu *c, struct lm_cached *e, const struct lm_task_held *h,
			  u32 type, u64 t_rel, u64 offcpu_rel);

/*
 * Charge the hold of record @h, released at @t_rel with the task's time
 * off a CPU then @offcpu_rel, split into on-CPU and blocked time.  The
 * record is the task's, popped but intact.  The only part of a sleeping
 * lock's bookkeeping with interrupts off: the callers are not probed.
 */
static __always_inline void lm_sleep_charge(const struct lm_task_held *h, u32 type,
					    u64 t_rel, u64 offcpu_rel)
{
	unsigned long flags;
	struct lm_cached *e;
	struct lm_cpu *c;

	raw_local_irq_save(flags);
	c = this_cpu_read(lm_cpus);
	e = lm_cache_entry(c, h->lock, h->site);
	if (likely(lm_cache_hit(e, h->lock, h->site, type)))
		__lm_sleep_charge(c, e->slot, h, t_rel, offcpu_rel);
	else
		lm_sleep_charge_miss(c, e, h, type, t_rel, offcpu_rel);
	raw_local_irq_restore(flags);
}

/*
 * Whether the current context may edit current's records of sleeping
 * locks: task context, which rules out NMIs too.  On PREEMPT_RT softirqs
 * run in task context as well: in their threads, or where a task enables
 * bottom halves, never on the way out of an interrupt (invoke_softirq()
 * only wakes ksoftirqd there), so a softirq never breaks into a task's
 * edit of its records, and its sleeping locks (spinlock_t) are metered
 * as any task's.  Threaded interrupt handlers are tasks on any kernel.
 */
static __always_inline bool lm_task_ctx(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return !(in_nmi() | in_hardirq());
	return in_task();
}

/*
 * Sleeping locks are metered in task context only (lockmeter_sleep.c,
 * lm_task_ctx()).  Elsewhere they count as irqctx.
 */
static __always_inline bool lm_sleep_gate(void)
{
	struct lm_cpu *c;

	if (likely(lm_task_ctx()))
		return this_cpu_read(lm_live_cpu);
	c = lm_gate();
	if (c)
		lm_loss_inc(&c->loss.irqctx);
	return false;
}

void lm_sleep_waited(struct lm_task_held *h, const struct lm_owner *owner);
void lm_sleep_untracked(void);

/*
 * Current, whose block is @lt, begins to wait for sleeping @lock at
 * @site, since @t: note it for readers of the locks held now
 * (lockmeter_held.c), which read it without a lock, the lock last.  Task
 * context only.
 */
static __always_inline void lm_wait_begin(struct lm_task *lt, void *lock, unsigned long site,
					  u32 type, u64 t)
{
	lt->wait_site = site;
	lt->wait_type = type;
	lt->wait_since = t;
	lt->wait_epoch = READ_ONCE(lm_epoch);
	/* pairs with smp_rmb() in lm_held_waits(): the rest before the lock */
	smp_wmb();
	WRITE_ONCE(lt->wait_lock, (unsigned long)lock);
}

static __always_inline void lm_wait_end(struct lm_task *lt)
{
	WRITE_ONCE(lt->wait_lock, 0);
}

unsigned int lm_stack_walk(unsigned long *ip, bool blocked);
u64 lm_stack_take(struct lm_cpu *c, const struct lm_evidence *ev, const unsigned long *ip,
		  unsigned int nr, int busy);

void lm_sleep_acquired_room(void *lock, unsigned long site, u32 type, u64 t_wait,
			    const struct lm_owner *owner);

/*
 * Fill the next record of @lt, which has room, and stamp it last.  No
 * value outlives a call here (the owner is kept before the stamp, the
 * stamp's slow clock is a call that ends it), so that the caller keeps
 * no registers for them: the uncontended acquisition pushes and pops
 * nothing.
 */
static __always_inline void __lm_sleep_fill(struct lm_task *lt, void *lock, unsigned long site,
					    u32 type, u32 epoch, u64 t_wait,
					    const struct lm_owner *owner)
{
	struct lm_task_held *h = &lm_held(lt)[lt->depth++];

	h->lock = (unsigned long)lock;
	h->site = site;
	h->type = type;
	h->epoch = epoch;
	h->t_wait = t_wait;
	h->blk = 0;
	h->offcpu_acq = lt->offcpu;
	if (unlikely(t_wait))
		lm_sleep_waited(h, owner);
	lm_stamp_into(&h->t_acq);
}

/*
 * Current acquired @lock at @site.  @t_wait is when the wait began if the
 * first attempt failed (lm_ticks()), else 0, and @owner whom it waited
 * for (or NULL).  The record is the task's alone, edited with preemption
 * off; interrupts do not touch it.  A task with no room for it (no block
 * yet, or all its records in use) takes lm_sleep_acquired_room().
 */
static __always_inline void lm_sleep_acquired(void *lock, unsigned long site, u32 type,
					      u64 t_wait, const struct lm_owner *owner)
{
	struct lm_task *lt;

	if (!lm_sleep_gate())
		return;
	preempt_disable_notrace();
	lt = READ_ONCE(current->lockmeter);
	if (likely(lt && lt->depth < CONFIG_LOCKMETER_TASK_DEPTH))
		__lm_sleep_fill(lt, lock, site, type, READ_ONCE(lm_epoch), t_wait, owner);
	else
		lm_sleep_acquired_room(lock, site, type, t_wait, owner);
	preempt_enable_notrace();
}

/*
 * Current released @lock; @t_rel and @offcpu_rel are the clock and its
 * time off a CPU just before the release.  The newest record is the
 * common case; lm_sleep_release_deep() takes the others.
 */
static __always_inline void lm_sleep_release(void *lock, u32 type, u64 t_rel,
					     u64 offcpu_rel)
{
	struct lm_task *lt;
	struct lm_task_held *h;
	unsigned int d;

	/*
	 * The gate with preemption off: a reset that finds this CPU not in
	 * such a section (lm_quiesce()) finds it not charging either.
	 */
	preempt_disable_notrace();
	if (!lm_sleep_gate())
		goto out;
	lt = READ_ONCE(current->lockmeter);
	d = lt ? lt->depth : 0;
	if (likely(d)) {
		h = &lm_held(lt)[d - 1];
		if (likely(h->lock == (unsigned long)lock &&
			   h->epoch == READ_ONCE(lm_epoch))) {
			lt->depth = d - 1;
			lm_sleep_charge(h, type, t_rel, offcpu_rel);
			goto out;
		}
	}
	lm_sleep_release_deep(lt, (unsigned long)lock, type, t_rel, offcpu_rel);
out:
	preempt_enable_notrace();
}

/* ---- control and readers ---- */

int lockmeter_control(enum lm_ctl op);
#if IS_ENABLED(CONFIG_KUNIT)
extern int lm_setup_err;
#endif
int lockmeter_set_keys(unsigned long nr);
unsigned int lm_mem(struct lm_snapshot *snap);
extern struct lm_dir lm_dir;
int lm_snapshot(struct lm_snapshot *snap, int cpu, bool rows);
void lm_snapshot_sort(struct lm_snapshot *snap);
void lm_snapshot_free(struct lm_snapshot *snap);
extern struct mutex lm_ctl_mutex;
extern unsigned long lm_gen;
extern bool lm_on;
extern u64 lm_t_on, lm_metered, lm_resets;
const char *lm_gone_name(unsigned long gone);
bool lm_init_text_name(unsigned long addr, char *buf, size_t len);

void lm_classify(unsigned long lock, struct lm_key *k);

/* ---- the locks held now, for readers (lockmeter_held.c) ---- */

struct lm_held_waiter {
	unsigned long lock;
	unsigned long site;
	u64 ns;			/* waited so far */
	u32 pid;
	u32 type;		/* how it wants the lock */
	char comm[TASK_COMM_LEN];
};

/* Locks one reader of the locks held now lists at most: the longest held. */
#define LM_HELD_ROWS	256

struct lm_held_row {
	struct lm_key key;	/* classified, as the table keys it */
	unsigned long lock;	/* the address, matching waiters */
	u64 ns;			/* held so far */
	u64 since;		/* lm_ticks() when acquired: the hold, with @lock and @pid */
	/*
	 * The holder (spinning: what its CPU runs; sleeping, 0 and no comm:
	 * not recorded), and the CPU holding a spinning lock or running a
	 * sleeping lock's holder whose chain could not be read, else -1.
	 */
	u32 pid;
	int cpu;
	char comm[TASK_COMM_LEN];
	u32 nr;			/* frames in @ip: sleeping holders' chain now */
	unsigned long ip[LM_STACK_DEPTH];
	size_t waiter;		/* sleeping locks: first of @nr_waiters waiters */
	size_t nr_waiters;
};

struct lm_held_snap {
	struct lm_held_row *rows;	/* longest held first */
	size_t nr;
	struct lm_held_waiter *waiters;	/* by lock, longest wait first */
	size_t nr_waiters;
	u64 truncated;		/* rows and waiters that did not fit */
	unsigned long chain[LM_STACK_DEPTH];	/* lm_held_task()'s */
};

int lm_held_snapshot(struct lm_held_snap *hs, u64 over);
void lm_held_free(struct lm_held_snap *hs);
#if IS_ENABLED(CONFIG_KUNIT)
struct lm_held_row *lm_held_row_new(struct lm_held_snap *hs, u64 ns);
void lm_held_match(struct lm_held_snap *hs, u64 over);
#endif

/* ---- names, for readers (lockmeter_names.c) ---- */

/* Room for "symbol+0xoff/0xsize[module]". */
#define LM_NAME_LEN	(KSYM_NAME_LEN + MODULE_NAME_LEN + 48)

struct lm_pcpu_name;
struct lm_slab_name;

#define LM_SLAB_NAME_LEN	64	/* of a slab cache's name, kept */

struct lm_names {
	struct lm_pcpu_name *pcpu;
	unsigned int nr_pcpu;
	struct lm_slab_name *slab;	/* the caches of the snapshot's slab rows */
	unsigned int nr_slab;
	const char *gone;	/* the snapshot's names of unloaded modules' rows */
	bool show_addr;		/* the reader may see kernel addresses */
	char sym[KSYM_NAME_LEN];
};

const char *lm_addr_name(struct lm_names *n, unsigned long addr, bool site,
			 char *buf, size_t len);

void lm_names_init(struct lm_names *n, const struct lm_snapshot *snap, bool show_addr);
bool lm_slab_live(unsigned long cache);
void lm_slab_lock(void);
void lm_slab_unlock(void);
void lm_names_free(struct lm_names *n);
const char *lm_lock_name(struct lm_names *n, const struct lm_key *k,
			 char *buf, size_t len);
const char *lm_site_name(struct lm_names *n, const struct lm_key *k,
			 char *buf, size_t len);

/* ---- alerts: holds and waits over a threshold (lockmeter_watch.c) ---- */

/*
 * The thresholds, in lm_ticks() by lock type, U64_MAX where none is set;
 * [LM_NONE], for a row whose type is not published yet, is the least.
 * Set under lm_ctl_mutex; read by the charge's slow path, and only while
 * @lm_watching (some threshold is set).
 */
extern u64 lm_watch_hold[LM_NR_TYPES];
extern u64 lm_watch_wait[LM_NR_TYPES];
extern bool lm_watching;

#define LM_WATCH_MIN_NS		NSEC_PER_USEC
#define LM_WATCH_MAX_NS		(1000ULL * NSEC_PER_SEC)

/*
 * An alert queued by the CPU that charged it: the key (classified), the
 * task, CPU, context, end and length (@ev: t and ticks), the threshold
 * crossed (ticks), the chain where it was charged, and for a sleeping
 * lock's hold its longest blocked stretch and chain, for its wait the
 * owner waited for.
 */
struct lm_alert_rec {
	struct lm_key key;
	struct lm_ev ev;
	u64 thr;
	u64 blk;
	u32 kind;		/* enum lockmeter_alert_kind */
	u32 nr;			/* frames in @ip */
	u32 blk_nr;		/* frames in @blk_ip */
	struct lm_owner owner;
	unsigned long ip[LM_STACK_DEPTH];
	unsigned long blk_ip[LM_STACK_DEPTH];
};

/*
 * A CPU's queue of alerts to send: @head is written by its CPU alone
 * (interrupts off), @tail by the sender alone; both only grow, and
 * @head - @tail alerts are queued.  @kick, raised by the alert that
 * finds the queue empty, schedules the sender.  At most LM_WATCH_RATE
 * alerts a second are queued (@window, @budget: this CPU's alone); the
 * rest are dropped at the cost of a compare, so that a flood walks no
 * chains and sends no interrupts, not even for the locks the sender
 * takes itself.  Allocated for every possible CPU when a threshold is
 * first set, never freed.
 */
#define LM_ALERT_RING	64
#define LM_WATCH_RATE	200

struct lm_alert_ring {
	unsigned int head;
	unsigned int tail;
	unsigned int budget;
	u64 window;		/* lm_ticks(): the end of this second */
	struct irq_work kick;
	struct lm_alert_rec rec[LM_ALERT_RING];
};

/* A second in lm_ticks(); nobody listens to the alerts group (as last seen). */
extern u64 lm_watch_second;
extern bool lm_alert_deaf;
void lm_watch_heard(void);

DECLARE_PER_CPU_READ_MOSTLY(struct lm_alert_ring *, lm_alert_rings);

/*
 * The alert machinery at work: the task sending (NULL: none), and on each
 * CPU whether its kick is queueing the sender.  Alerts raised there are
 * dropped (alerts_self): the machinery's own locks would feed it.
 */
extern struct task_struct *lm_alert_sender;
DECLARE_PER_CPU(bool, lm_alert_kicking);

/* What to set: a threshold in ns, 0 to clear, or LM_WATCH_KEEP. */
#define LM_WATCH_KEEP	U64_MAX

int lockmeter_watch_set(u32 type, u64 hold_ns, u64 wait_ns);
void lm_watch_read(struct lm_watch_state *st);
void lm_watch_recalc(void);
void lm_watch_reset(void);
void lm_for_every_cpu(void (*fn)(struct lm_cpu *c, void *arg), void *arg);
#if IS_ENABLED(CONFIG_KUNIT)
void lm_watch_trip_cpu(struct lm_cpu *c, void *unused);
#endif

/* One alert as sent (lockmeter_nl.c): the evidence's times in ns. */
struct lm_alert_msg {
	u32 kind;
	const struct lm_key *key;
	u64 ns;
	u64 thr_ns;
	struct lm_stat_ev ev;
	const struct lm_held_waiter *waiters;
	size_t nr_waiters;
	u64 seq;
	u64 dropped;
};

#if IS_ENABLED(CONFIG_NET)
bool lm_nl_alert_listened(void);
int lm_nl_alert_send(const struct lm_alert_msg *a, const struct lm_names *names);
#else
static inline bool lm_nl_alert_listened(void)
{
	return false;
}

static inline int lm_nl_alert_send(const struct lm_alert_msg *a,
				   const struct lm_names *names)
{
	return -ESRCH;
}
#endif

#endif /* _KERNEL_LOCKING_LOCKMETER_H */
