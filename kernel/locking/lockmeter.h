/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter internals shared by the core, the /proc interface and the
 * KUnit tests.
 *
 * The helpers in this file are pure: they work on caller-owned memory and
 * take no locks, read no clocks and touch no per-CPU data, so they can be
 * unit-tested and called from inside the lock hooks alike.
 *
 * Concurrency: a per-CPU table is written only by its own CPU with
 * interrupts disabled.  Readers copy it without stopping the writer, so a
 * reader may see one update half applied (say, acquisitions bumped but the
 * hold total not yet); that is statistics, and we accept it.  A slot's key
 * is published before its type, and the type marks the slot as in use, so
 * a reader never sees a slot with a half-written key.  64-bit counters are
 * never torn on 64-bit machines.
 */
#ifndef _KERNEL_LOCKING_LOCKMETER_H
#define _KERNEL_LOCKING_LOCKMETER_H

#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/sched/clock.h>
#include <linux/types.h>
#include <asm/barrier.h>

#define LOCKMETER_VERSION	1

/* Lock types, from lockmeter_types.h.  A slot with type 0 is empty. */
enum lm_type {
	LM_NONE,
#define LM_TYPE(name)	LM_##name,
#include "lockmeter_types.h"
#undef LM_TYPE
	LM_NR_TYPES
};

/* Where a lock lives decides how its rows are keyed (see lm_key). */
enum lm_class {
	LM_STATIC,	/* kernel or module .data/.bss: keyed by address */
	LM_PERCPU,	/* static per-CPU: keyed by per-CPU offset */
	LM_HEAP,	/* anything else: keyed by site alone */
	LM_OVERFLOW,	/* the per-type row for events that found no slot */
};

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
 * A statistics row is identified by (lock, site, type, class).  For heap
 * locks @lock is 0: all instances taken at one site share a row, and the
 * row counts how many distinct instances it saw.
 */
struct lm_key {
	unsigned long lock;
	unsigned long site;
	u32 type;
	u32 class;
};

/* A sampled duration: count, sum and extremes, all in ns. */
struct lm_time {
	u64 nr;
	u64 total;
	u64 min;
	u64 max;
};

#define LM_INST_BITS	6	/* heap instances: a 64-bucket hash set */

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
};

/* Sleeping locks (mutex, rw_semaphore) keep per-task held records. */
static inline bool lm_type_sleeps(u32 type)
{
	return type >= LM_mutex;
}

/* Open addressing with a bounded probe sequence. */
#define LM_PROBES	16

struct lm_table {
	struct lm_stat *slot;
	unsigned int bits;
	unsigned int used;
};

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

/* Merge the counters of @src into @dst; the keys are the caller's business. */
static inline void lm_stat_add(const struct lm_stat *src, struct lm_stat *dst)
{
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
}

static __always_inline bool lm_key_eq(const struct lm_key *a, const struct lm_key *b)
{
	return a->lock == b->lock && a->site == b->site &&
	       a->type == b->type && a->class == b->class;
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
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	return 0;
}

static __always_inline unsigned int lm_key_hash(const struct lm_key *k,
						unsigned int bits)
{
	return hash_64(k->lock ^ hash_64(k->site ^ k->type, 32), bits);
}

/*
 * Find the slot for @k in @t, claiming an empty one on the way; NULL when
 * the key is absent and its LM_PROBES candidate slots are all taken.
 * Only the owner of @t may call this (on a per-CPU table: its own CPU,
 * interrupts disabled).
 */
static __always_inline struct lm_stat *lm_table_get(struct lm_table *t,
						    const struct lm_key *k)
{
	unsigned int mask = (1U << t->bits) - 1;
	unsigned int i = lm_key_hash(k, t->bits);
	unsigned int n;

	for (n = 0; n < LM_PROBES; n++, i = (i + 1) & mask) {
		struct lm_stat *s = &t->slot[i];

		if (!s->key.type) {
			s->key.lock = k->lock;
			s->key.site = k->site;
			s->key.class = k->class;
			/* readers test the type first: publish it last */
			smp_wmb();
			WRITE_ONCE(s->key.type, k->type);
			t->used++;
			return s;
		}
		if (lm_key_eq(&s->key, k))
			return s;
	}
	return NULL;
}

/* Instance set of a heap row: one bit per hash bucket of the lock address. */
static __always_inline u64 lm_inst_bit(unsigned long lock)
{
	return 1ULL << hash_64(lock, LM_INST_BITS);
}

size_t lm_rows_merge(struct lm_stat *rows, size_t n);
u64 lm_inst_estimate(u64 inst);

/* ---- the core's interface to the metered lock ops and the readers ---- */

/* Events lost or not metered; all per CPU, summed by readers. */
struct lm_loss {
	u64 dropped;		/* held stack full: acquisition not metered */
	u64 unmatched;		/* release without a recorded acquire */
	u64 recursion;		/* hook entered while already active */
	u64 table_full;		/* no free slot: counted in the overflow row */
	u64 evicted;		/* task's held records full: oldest dropped */
	u64 irqctx;		/* sleeping-lock op outside task context: not metered */
};

struct lm_snapshot {
	struct lm_stat *rows;	/* merged over CPUs, sorted by key */
	size_t nr;
	struct lm_loss loss;
	unsigned int slots_used;	/* fullest CPU's table */
	unsigned int slots_per_cpu;
	u64 truncated;		/* rows that did not fit the copy */
	char *gone;		/* names of rows of unloaded modules */
	bool on;
	u64 metered_ns;
	/* since boot: snapshots with equal counts lie in one period */
	u64 resets;
};

enum lm_ctl {
	LM_CTL_ON,
	LM_CTL_OFF,
	LM_CTL_RESET,
};

void lm_acquire(void *lock, unsigned long site, u32 type, u64 t_wait);
void lm_release(void *lock, u32 type, u64 now);
void lm_reject(void *lock, unsigned long site, u32 type);

/* A moment in the current task's life: the clock and its time off a CPU. */
struct lm_stamp {
	u64 t;
	u64 offcpu;
};

/*
 * The clock of the spinning locks' paths, which run with preemption off:
 * local_clock() without its preempt_disable()/enable() and call.
 */
static __always_inline u64 lm_clock(void)
{
	return local_clock_noinstr();
}

void lm_stamp(struct lm_stamp *s);
void lm_sleep_acquired(void *lock, unsigned long site, u32 type, u64 t_wait);
void lm_sleep_abort(void *lock, unsigned long site, u32 type);
void lm_sleep_release(void *lock, u32 type, const struct lm_stamp *rel);

int lockmeter_control(enum lm_ctl op);
int lm_snapshot(struct lm_snapshot *snap, int cpu, bool rows);
void lm_snapshot_sort(struct lm_snapshot *snap);
void lm_snapshot_free(struct lm_snapshot *snap);

/* ---- names, for readers (lockmeter_names.c) ---- */

/* Room for "symbol+0xoff/0xsize[module]". */
#define LM_NAME_LEN	(KSYM_NAME_LEN + MODULE_NAME_LEN + 48)

struct lm_pcpu_name;

struct lm_names {
	struct lm_pcpu_name *pcpu;
	unsigned int nr_pcpu;
	const char *gone;	/* the snapshot's names of unloaded modules' rows */
	char sym[KSYM_NAME_LEN];
};

const char *lm_addr_name(struct lm_names *n, unsigned long addr, bool site,
			 char *buf, size_t len);

void lm_names_init(struct lm_names *n, const struct lm_snapshot *snap);
void lm_names_free(struct lm_names *n);
const char *lm_lock_name(struct lm_names *n, const struct lm_key *k,
			 char *buf, size_t len);
const char *lm_site_name(struct lm_names *n, const struct lm_key *k,
			 char *buf, size_t len);

#endif /* _KERNEL_LOCKING_LOCKMETER_H */
