// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter's hot path: the hooks of the spinning lock operations, the
 * per-CPU held stack, and the charge of a hold to its statistics slot.
 * Everything called with interrupts off is in this file or inlined from
 * lockmeter.h, and nothing here is traced or probed.
 *
 * The spinning lock operations of <linux/spinlock_api_smp.h> and
 * <linux/rwlock_api_smp.h> call here, when metering is on, at the two
 * points where the lock itself changes hands: in place of
 * LOCK_CONTENDED() (LOCKMETER_CONTENDED()) and of do_raw_<op>_unlock()
 * (lockmeter_unlock()).  Preemption, interrupts, bottom halves and
 * lockdep are the operation's own, before and after, so an acquire and a
 * release may mix metered and unmetered paths while the static key flips.
 *
 *   take:     trylock first; if it fails, stamp the start of the wait and
 *             take the lock the blocking way (as LOCK_CONTENDED() does),
 *             then push {lock, site, t_wait} and stamp the acquisition
 *             last, so that the push is not part of the hold;
 *   drop:     stamp, release, then pop the record and charge the hold
 *             to the (lock, site) slot, found through a per-CPU cache,
 *             before preemption/interrupts/bottom halves come back on;
 *   trylock:  a success is pushed as a take without a wait, a failure
 *             charged to the site as a reject.
 *
 *        spin_lock(l)                      spin_unlock(l)
 *             |                                  |
 *       _raw_spin_lock()                  __raw_spin_unlock() (inline)
 *        preempt_disable(), lockdep        lockdep
 *        [static key] --off--> upstream    [static key] --off--> upstream
 *             | on                               | on
 *       lm_spin_take()                    lm_spin_drop()
 *        trylock? -no-> t_wait, lock       t_rel = lm_ticks()
 *        push; t_acq = lm_ticks()          unlock
 *                                          pop, charge t_rel - t_acq
 *                                         preempt_enable()
 *
 * Cost (make bench, instructions under QEMU -icount): see
 * Documentation/locking/lockmeter.rst.  The uncontended path reads the
 * clock twice, disables interrupts around the push and around the charge
 * unless the variant runs with them off already, and touches the held
 * record, one cache entry and the first line of one slot.
 *
 * Classification (where a lock lives, which decides its row's key) and
 * the table lookup happen only when the cache misses: once per (lock,
 * site) until the entry is evicted.
 */
#include <kunit/visibility.h>
#include <linux/bottom_half.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/lockmeter.h>
#include <linux/pgtable.h>
#include <linux/preempt.h>
#include <linux/sched/clock.h>
#include <linux/sched/debug.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <asm/sections.h>
#include <uapi/linux/lockmeter.h>

#include "lockmeter.h"
#include "lockmeter_slab.h"

DEFINE_PER_CPU_READ_MOSTLY(struct lm_cpu *, lm_cpus);
DEFINE_PER_CPU(struct lm_cpu *, lm_live_cpu);
DEFINE_STATIC_KEY_FALSE(lm_local_clock_key);
u64 lm_chain_min __read_mostly;	/* ticks: shorter maxima keep no chain */
EXPORT_SYMBOL_IF_KUNIT(lm_chain_min);

/* ---- where a lock lives (cache misses only) ---- */

/* Static per-CPU areas of the possible CPUs, sorted: [base, base + size). */
static unsigned long *lm_pcpu_bases __ro_after_init;
static unsigned int lm_pcpu_nr __ro_after_init;
static unsigned long lm_pcpu_size __ro_after_init;

static inline bool lm_in_range(unsigned long a, unsigned long start, unsigned long end)
{
	return a >= start && a < end;
}

/*
 * Module memory (text and data of every module) lies in the module area
 * on architectures that have one, and nothing else there holds locks: a
 * lock there is a module's static lock.  One range check, whatever the
 * number of modules; lm_module_going() takes care of modules that go.
 */
static inline bool lm_in_module_area(unsigned long a)
{
#if defined(CONFIG_MODULES) && defined(MODULES_VADDR) && defined(MODULES_END)
	return lm_in_range(a, MODULES_VADDR, MODULES_END);
#else
	return false;
#endif
}

/* The static per-CPU area holding @a, by binary search; 0 if none. */
static unsigned long lm_pcpu_base(unsigned long a)
{
	unsigned int lo = 0, hi = lm_pcpu_nr;

	/* most locks looked up are heap locks, nowhere near: one check */
	if (!lm_pcpu_nr || a < lm_pcpu_bases[0] ||
	    a >= lm_pcpu_bases[lm_pcpu_nr - 1] + lm_pcpu_size)
		return 0;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (a < lm_pcpu_bases[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo && a - lm_pcpu_bases[lo - 1] < lm_pcpu_size)
		return lm_pcpu_bases[lo - 1];
	return 0;
}

/* Key @lock by where it lives; also for readers of the locks held now. */
void lm_classify(unsigned long lock, struct lm_key *k)
{
	unsigned long base;

	k->class = LM_STATIC;
	k->lock = lock;
	k->off = 0;
	if (lm_in_range(lock, (unsigned long)_sdata, (unsigned long)_edata) ||
	    lm_in_range(lock, (unsigned long)__bss_start, (unsigned long)__bss_stop) ||
	    lm_in_module_area(lock))
		return;
	base = lm_pcpu_base(lock);
	if (base) {
		k->class = LM_PERCPU;
		k->lock = (unsigned long)__per_cpu_start + (lock - base);
		return;
	}
	if (lm_classify_slab(lock, k))
		return;
	k->class = LM_HEAP;
	k->lock = 0;
}
EXPORT_SYMBOL_IF_KUNIT(lm_classify);

static int lm_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Sort the static per-CPU areas for lm_pcpu_base(); from lockmeter_init(). */
int __init lm_classify_init(void)
{
	unsigned int cpu, n = 0;

	lm_pcpu_size = __per_cpu_end - __per_cpu_start;
	lm_pcpu_bases = kcalloc(num_possible_cpus(), sizeof(*lm_pcpu_bases), GFP_KERNEL);
	if (!lm_pcpu_bases)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		lm_pcpu_bases[n++] = (unsigned long)__per_cpu_start + per_cpu_offset(cpu);
	sort(lm_pcpu_bases, n, sizeof(*lm_pcpu_bases), lm_cmp_ulong, NULL);
	lm_pcpu_nr = n;
	return 0;
}

/*
 * The row id of @k in directory @d, claiming one for it if it has none
 * (see struct lm_dir); -1 once the ids have run out.  Lock-free, from
 * any context that cannot be interrupted by itself (the hot paths call
 * it with interrupts off); @d does not change meanwhile.
 */
int lm_dir_get(struct lm_dir *d, const struct lm_key *k)
{
	unsigned int i = lm_key_home(k, d->index_mask);
	unsigned int n, id;
	u32 v;

	for (n = 0; n <= d->index_mask; n++, i = (i + 1) & d->index_mask) {
		v = READ_ONCE(d->index[i]);
		if (!v) {
			if (atomic_read(&d->used) >= d->nr)
				return -1;
			if (cmpxchg(&d->index[i], 0, LM_DIR_BUSY)) {
				/* taken under us: look at it again */
				n--;
				i = (i - 1) & d->index_mask;
				continue;
			}
			id = atomic_inc_return(&d->used) - 1;
			if (id >= d->nr) {
				/* the last ids went meanwhile: leave the entry busy */
				atomic_set(&d->used, d->nr);
				return -1;
			}
			d->key[id].lock = k->lock;
			d->key[id].site = k->site;
			d->key[id].class = k->class;
			d->key[id].off = k->off;
			/* readers of the directory test the type first */
			smp_wmb();
			WRITE_ONCE(d->key[id].type, k->type);
			/* lookups find the key, then read it */
			smp_store_release(&d->index[i], id + 1);
			return id;
		}
		if (v == LM_DIR_BUSY)
			continue;
		/* pairs with smp_store_release() above */
		smp_rmb();
		if (lm_key_eq(&d->key[v - 1], k))
			return v - 1;
	}
	return -1;
}
EXPORT_SYMBOL_IF_KUNIT(lm_dir_get);
NOKPROBE_SYMBOL(lm_dir_get);

/*
 * The cache missed entry @e: look in its neighbour, where the entry @e
 * held before lives on (two ways per set, the fast path checking only
 * the first); else classify (@lock, @site), find or claim its row in
 * the directory, and cache it.  Interrupts are off, and no other CPU
 * reads this cache.  A key that finds no row goes to the overflow row
 * of its type, and is cached as such: a full directory costs the events
 * that overflow no more than the others.  A key whose row this CPU has
 * no chunk for, with no spare chunk left, goes to the overflow row too,
 * but is not cached: its next event looks again, once the spares are
 * refilled.
 */
noinline struct lm_slot *lm_cache_fill(struct lm_cpu *c, struct lm_cached *e,
				       unsigned long lock, unsigned long site, u32 type)
{
	struct lm_cached *alt = &c->cache[(e - c->cache) ^ 1];
	struct lm_key k = { .site = site, .type = type };
	struct lm_cached old = *e;
	struct lm_held *top;
	struct lm_slot *s;
	u64 thr;
	int id;

	if (lm_cache_hit(alt, lock, site, type)) {
		*e = *alt;
		*alt = old;
		return e->slot;
	}
	c->fills++;
	/* the classification calls out, into code that may be probed */
	top = lm_guard(c);
	lm_classify(lock, &k);
	id = lm_dir_get(c->dir, &k);
	/* taking a spare chunk may ask for more: an irq_work */
	s = likely(id >= 0) ? lm_row(c, id) : NULL;
	lm_unguard(c, top);
	if (unlikely(!s))
		s = &c->overflow[type];
	/* a threshold set since the row was last cached (lm_watch_trip_cpu()) */
	thr = READ_ONCE(lm_watch_hold[type < LM_NR_TYPES ? type : LM_NONE]);
	s->hold_trip = min(s->hold_trip, thr);
	if (lm_class_merges(k.class))
		s->inst |= lm_inst_bit(lock);
	if (unlikely(id >= 0 && lm_slot_id(c, s) < 0))
		return s;
	if (old.lock)
		*alt = old;
	e->lock = lock;
	e->tag = lm_cache_tag(site, type);
	e->slot = s;
	return s;
}

NOKPROBE_SYMBOL(lm_cache_fill);

/* Ask for spare chunks (lm_spares_kick(), on this CPU), once until served. */
static void lm_spares_ask(struct lm_cpu *c)
{
	if (READ_ONCE(c->spares.asked))
		return;
	WRITE_ONCE(c->spares.asked, true);
	irq_work_queue(&c->spares.ask);
}

/*
 * Row @id of this CPU's @c, which has no chunk for it: a spare becomes
 * that chunk, with more asked for when half the spares are gone; NULL
 * when none is left.  Interrupts are off, @c guarded (lm_guard()).
 */
noinline struct lm_slot *lm_row_new(struct lm_cpu *c, unsigned int id)
{
	unsigned int i, base = id - id % LM_CHUNK_ROWS;
	struct lm_spares *sp = &c->spares;
	struct llist_node *node;
	struct lm_slot *chunk;

	/* the only taker: others only add */
	node = llist_del_first(&sp->list);
	if (!node) {
		lm_spares_ask(c);
		return NULL;
	}
	chunk = (struct lm_slot *)node;
	/* the link was the first row's first counter */
	chunk[0].nr = 0;
	for (i = 0; i < LM_CHUNK_ROWS; i++)
		chunk[i].id = base + i;
	/* pairs with smp_load_acquire() in lm_row_peek(): rows ready */
	smp_store_release(&c->chunk[id / LM_CHUNK_ROWS], chunk);
	if (atomic_dec_return(&sp->nr) <= LM_SPARES / 2)
		lm_spares_ask(c);
	return &chunk[id % LM_CHUNK_ROWS];
}

NOKPROBE_SYMBOL(lm_row_new);

/* ---- the clock ---- */

/*
 * Whether the raw TSC can time holds: a known frequency, a rate that is
 * constant and does not stop in deep idle states (a sleeping lock's hold
 * spans the idle of the CPU it was taken on), or the administrator's word
 * for it (tsc=reliable), and not found unstable, by the checks between
 * CPUs as they come up or by the clocksource watchdog since.
 */
bool lm_tsc_trusted(void)
{
#ifdef CONFIG_X86_TSC
	return boot_cpu_has(X86_FEATURE_TSC) && tsc_khz && !check_tsc_unstable() &&
	       ((boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
		 boot_cpu_has(X86_FEATURE_NONSTOP_TSC)) || tsc_clocksource_reliable);
#else
	return false;
#endif
}

static void lm_clock_set_tsc(bool tsc)
{
#ifdef CONFIG_X86_TSC
	if (tsc) {
		lm_chain_min = (u64)CONFIG_LOCKMETER_CHAIN_MIN_US * tsc_khz / USEC_PER_MSEC;
		return;
	}
	static_branch_enable(&lm_local_clock_key);
#endif
	lm_chain_min = CONFIG_LOCKMETER_CHAIN_MIN_US * NSEC_PER_USEC;
}

/*
 * Choose the clock of the holds (lm_local_clock_key, see lm_ticks()) when
 * metering is first switched on.  With lockmeter=on that is before the
 * other CPUs are up, when the TSC has not been checked between them:
 * lm_clock_recheck() then gives it up if it is found unstable later.
 */
void lm_clock_init(void)
{
	lm_clock_set_tsc(lm_tsc_trusted());
}

/*
 * Late in boot and at every reset, with no row holding a time: a TSC
 * found unstable since it was chosen is given up for local_clock(), for
 * good.  Whether it did.  A static key flip, so process context.
 */
bool lm_clock_recheck(void)
{
	if (!lm_clock_is_tsc() || lm_tsc_trusted())
		return false;
	lm_clock_set_tsc(false);
	return true;
}

const char *lm_clock_name(void)
{
	return lm_clock_is_tsc() ? "tsc" : "local_clock";
}

/* ---- evidence ---- */

/*
 * The lock operations, lockmeter's own code on their path (all of it
 * __lockfunc) and the sleeping locks' entry points (__sched): frames a
 * chain starts after.
 */
extern char __lock_text_start[], __lock_text_end[];

static __always_inline bool lm_lock_text(unsigned long ip)
{
	return (ip >= (unsigned long)__lock_text_start && ip < (unsigned long)__lock_text_end) ||
	       (ip >= (unsigned long)__sched_text_start && ip < (unsigned long)__sched_text_end);
}

static __always_inline bool lm_sched_text(unsigned long ip)
{
	return ip >= (unsigned long)__sched_text_start && ip < (unsigned long)__sched_text_end;
}

/*
 * The leading frames of a chain in @ip[@nr] to leave out.  Of a lock
 * operation's chain, those in the lock operations and lockmeter.  Of a
 * task switched back in after it blocked (@blocked), everything up to
 * the scheduler's frames and those too but the outermost, the one its
 * caller called: schedule_timeout, io_schedule, mutex_lock, ...
 */
static __always_inline unsigned int lm_stack_skip(const unsigned long *ip, unsigned int nr,
						  bool blocked)
{
	unsigned int skip = 0, first;

	if (blocked) {
		while (skip < nr && !lm_sched_text(ip[skip]))
			skip++;
		if (skip < nr) {
			first = skip;
			while (skip < nr && lm_lock_text(ip[skip]))
				skip++;
			while (skip > first + 1 && !lm_sched_text(ip[skip - 1]))
				skip--;
			return skip - 1;
		}
		skip = 0;
	}
	while (skip < nr && lm_lock_text(ip[skip]))
		skip++;
	return skip;
}

/*
 * The current call chain from the caller of the lock operation on (or
 * for @blocked, see lm_stack_skip()) into @ip (room for LM_STACK_DEPTH):
 * its number of frames.  Interrupts are off.
 */
noinline unsigned int __lockfunc lm_stack_walk(unsigned long *ip, bool blocked)
{
	unsigned long raw[LM_STACK_DEPTH + 10];
	unsigned int nr, skip;

	nr = stack_trace_save(raw, ARRAY_SIZE(raw), 0);
	skip = lm_stack_skip(raw, nr, blocked);
	nr = min_t(unsigned int, nr - skip, LM_STACK_DEPTH);
	memcpy(ip, raw + skip, nr * sizeof(*ip));
	return nr;
}
EXPORT_SYMBOL_IF_KUNIT(lm_stack_walk);
NOKPROBE_SYMBOL(lm_stack_walk);

/*
 * Whether entry @st of CPU @cpu's store, number @i, is still the chain of
 * its evidence: one of the evidence's references names it.  Only this
 * CPU makes references to its entries, so an entry found free stays
 * free until this CPU reuses it; one found in use may be let go by
 * another CPU at any time (a longer maximum), and is found free later.
 */
static __always_inline bool lm_stack_alive(const struct lm_stack *st, unsigned int cpu,
					   unsigned int i)
{
	const struct lm_evidence *ev = st->ev;
	u64 ref;

	if (!ev)
		return false;
	ref = lm_stack_ref(cpu, i, st->seq);
	return READ_ONCE(ev->hold.stack) == ref || READ_ONCE(ev->wait.stack) == ref ||
	       READ_ONCE(ev->blk_stack) == ref;
}

/*
 * An entry of @c's store free for a new chain, not @busy (an entry taken
 * for the same charge but not referenced yet): the first from where the
 * last search ended, or -1 when every one is in use.  The search goes
 * round the whole store only when it is nearly full of chains in use.
 */
static int lm_stack_room(struct lm_cpu *c, unsigned int cpu, int busy)
{
	unsigned int i, j;

	for (i = 0; i < LM_STACKS; i++) {
		j = (c->stack_hand + i) % LM_STACKS;
		if ((int)j != busy && !lm_stack_alive(&c->stacks[j], cpu, j)) {
			c->stack_hand = (j + 1) % LM_STACKS;
			return j;
		}
	}
	return -1;
}

/*
 * Keep a chain for evidence @ev in @c's store: @ip[@nr] (a blocked
 * holder's chain, from its record), or when @ip is NULL the current one
 * (lm_stack_walk()), which is only walked once there is room for it.
 * The entry may not be @busy (see lm_stack_room()).  A reference to the
 * entry, which @ev must take before anything else from this store is
 * kept, or LM_NO_STACK: no frames, or no room (counted as stacks_full).
 * Interrupts are off.
 */
noinline u64 __lockfunc lm_stack_take(struct lm_cpu *c, const struct lm_evidence *ev,
				      const unsigned long *ip, unsigned int nr, int busy)
{
	unsigned int cpu = raw_smp_processor_id();
	struct lm_stack *st;
	int i;

	i = lm_stack_room(c, cpu, busy);
	if (i < 0) {
		c->loss.stacks_full++;
		return LM_NO_STACK;
	}
	st = &c->stacks[i];
	/* odd while written: a reader copying the old chain sees it change */
	WRITE_ONCE(st->seq, st->seq + 1);
	/* pairs with smp_rmb() in lm_stack_copy(): the odd count before the frames */
	smp_wmb();
	if (ip) {
		st->nr = min_t(unsigned int, nr, LM_STACK_DEPTH);
		memcpy(st->ip, ip, st->nr * sizeof(*ip));
	} else {
		st->nr = lm_stack_walk(st->ip, false);
	}
	st->ev = ev;
	/* pairs with smp_load_acquire() in lm_stack_copy(): the frames first */
	smp_store_release(&st->seq, st->seq + 1);
	if (!st->nr)
		return LM_NO_STACK;
	return lm_stack_ref(cpu, i, st->seq);
}
EXPORT_SYMBOL_IF_KUNIT(lm_stack_take);
NOKPROBE_SYMBOL(lm_stack_take);

/*
 * The evidence of slot @s of @c: its key's in the directory, or for an
 * overflow row its CPU's, with *@ovf the overflow record (else NULL).
 * NULL when @s is neither (KUnit tests of charges without a CPU state).
 */
static inline struct lm_evidence *lm_slot_ev(struct lm_cpu *c, struct lm_slot *s,
					     struct lm_ovf **ovf)
{
	*ovf = NULL;
	if (!c)
		return NULL;
	if (s >= c->overflow && s < c->overflow + LM_NR_TYPES) {
		*ovf = &c->ovf[s - c->overflow];
		return &(*ovf)->ev;
	}
	if (c->dir && s->id < c->dir->nr)
		return &c->dir->ev[s->id];
	return NULL;
}

/*
 * Take @ev to write, if no other CPU is writing it; the sequence stays
 * odd until lm_ev_put().
 */
static __always_inline bool lm_ev_get(struct lm_evidence *ev, u32 *seq)
{
	*seq = READ_ONCE(ev->seq);
	/* a full barrier: the writes that follow stay after it */
	return !(*seq & 1) && try_cmpxchg(&ev->seq, seq, *seq + 1);
}

static __always_inline void lm_ev_put(struct lm_evidence *ev, u32 seq)
{
	/* pairs with smp_load_acquire() in lm_ev_read(): the evidence first */
	smp_store_release(&ev->seq, seq + 2);
}

/* Fill @ev with the current task and CPU, @t and the @ticks explained. */
static void lm_ev_task(struct lm_ev *ev, u64 t, u64 ticks)
{
	struct task_struct *p = current;

	ev->t = t;
	ev->ticks = ticks;
	ev->pid = p->pid;
	/* a racing set_task_comm() may tear the copy, not its end */
	memcpy(ev->comm, p->comm, sizeof(ev->comm));
	ev->comm[sizeof(ev->comm) - 1] = '\0';
	if (in_hardirq())
		ev->ctx = LOCKMETER_CTX_HARDIRQ;
	else if (in_serving_softirq())
		ev->ctx = LOCKMETER_CTX_SOFTIRQ;
	else
		ev->ctx = LOCKMETER_CTX_TASK;
	ev->cpu = raw_smp_processor_id();
	ev->set = 1;
}

/* Fill @ev with the current task on @c, @t, the @ticks explained and chain @stack. */
static void lm_ev_take(struct lm_cpu *c, struct lm_ev *ev, u64 t, u64 ticks, u64 stack)
{
	lm_ev_task(ev, t, ticks);
	ev->stack = stack;
	c->captures++;
}

/*
 * The key of an overflow row's new maximum, classified: the lock and site
 * of sleeping record @th, or else of spinning record @sh, the copy
 * lm_charge_slow() took of the record just popped.
 */
static void lm_ovf_key(struct lm_key *k, const struct lm_task_held *th,
		       const struct lm_held *sh, u32 type)
{
	k->site = th ? th->site : sh->site;
	k->type = type;
	lm_classify(th ? th->lock : sh->lock, k);
}

#ifdef CONFIG_LOCKMETER_HIST
/*
 * The spill key of histogram bucket @bucket of slot @s of @c, never 0:
 * for a row, the row's id and the bucket's index among its 2 *
 * LM_HIST_NR, plus one; for an overflow row, the bucket's offset in @c
 * with the top bit set.
 */
static __always_inline u32 lm_spill_key(const struct lm_cpu *c, const struct lm_slot *s,
					const u16 *bucket)
{
	if (s->id != LM_ROW_NONE)
		return s->id * 2 * LM_HIST_NR + (u32)(bucket - s->hold_hist) + 1;
	return BIT(31) | (u32)((const char *)bucket - (const char *)c);
}

/* The home of histogram bucket @key among @c's spills. */
static __always_inline unsigned int lm_spill_home(u32 key)
{
	return hash_32(key, ilog2(LM_SPILLS));
}

/*
 * Histogram bucket @bucket of @c wrapped to 0: count 65536 events in
 * its spill entry, a new one if it has none, or as hist_lost when the
 * probes find no room.  Interrupts are off; @c is NULL only in KUnit
 * tests of charges without a CPU state.
 */
noinline void __lockfunc lm_hist_spill(struct lm_cpu *c, const struct lm_slot *s,
				       const u16 *bucket)
{
	unsigned int i;
	u32 key;

	if (!c)
		return;
	key = lm_spill_key(c, s, bucket);
	for (i = 0; i < LM_SPILL_PROBES; i++) {
		struct lm_spill *sp = &c->spill[(lm_spill_home(key) + i) % LM_SPILLS];

		if (sp->key == key) {
			WRITE_ONCE(sp->wraps, sp->wraps + 1);
			return;
		}
		if (!sp->key) {
			sp->wraps = 1;
			/* readers see the count before the key that makes it theirs */
			smp_wmb();
			WRITE_ONCE(sp->key, key);
			c->nr_spill++;
			return;
		}
	}
	c->loss.hist_lost++;
}
EXPORT_SYMBOL_IF_KUNIT(lm_hist_spill);
NOKPROBE_SYMBOL(lm_hist_spill);

/* Events in histogram bucket @bucket of @c: its 16 bits and its wraps. */
u64 lm_hist_count(const struct lm_cpu *c, const struct lm_slot *s, const u16 *bucket)
{
	u64 n = READ_ONCE(*bucket);
	unsigned int i;
	u32 key, k;

	if (!c || !READ_ONCE(c->nr_spill))
		return n;
	key = lm_spill_key(c, s, bucket);
	for (i = 0; i < LM_SPILL_PROBES; i++) {
		const struct lm_spill *sp = &c->spill[(lm_spill_home(key) + i) % LM_SPILLS];

		k = READ_ONCE(sp->key);
		if (!k)
			break;
		if (k == key) {
			/* pairs with smp_wmb() in lm_hist_spill() */
			smp_rmb();
			return n + ((u64)READ_ONCE(sp->wraps) << 16);
		}
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(lm_hist_count);
#endif /* CONFIG_LOCKMETER_HIST */

/* The index in its store of a reference's entry, for lm_stack_take()'s @busy. */
static __always_inline int lm_stack_index(u64 ref)
{
	return ref == LM_NO_STACK ? -1 : (int)(ref & 0xffff);
}

/*
 * An alert: a hold or wait (@kind) of @ticks, longer than @thr, ended at
 * @t_end, charged to slot @s of @c.  It goes into this CPU's queue, with
 * the task, the chain and for a sleeping lock (record @th) where its
 * holder blocked or whom it waited for, for lockmeter_watch.c to send;
 * when the queue is full it is counted as dropped, and costs no walk.
 * The key is the row's from the directory, or for an overflow row the
 * acquisition's, classified (see lm_ovf_key()).  Interrupts are off.
 */
static noinline void __lockfunc lm_watch_raise(struct lm_cpu *c, struct lm_slot *s, u32 kind,
					       u32 type, u64 ticks, u64 thr, u64 t_end,
					       const struct lm_task_held *th,
					       const struct lm_held *sh)
{
	/* pairs with smp_store_release() in lm_watch_alloc(): the ring's contents first */
	struct lm_alert_ring *r = smp_load_acquire(this_cpu_ptr(&lm_alert_rings));
	struct lm_alert_rec *a;
	unsigned int head;

	WRITE_ONCE(s->alerts, s->alerts + 1);
	WRITE_ONCE(c->loss.alerts, c->loss.alerts + 1);
	if (unlikely(!r) || READ_ONCE(lm_alert_deaf))
		goto drop;
	/* raised by the alert machinery itself: sending it would feed it */
	if (unlikely((in_task() && current == READ_ONCE(lm_alert_sender)) ||
		     this_cpu_read(lm_alert_kicking))) {
		WRITE_ONCE(c->loss.alerts_self, c->loss.alerts_self + 1);
		goto drop;
	}
	if (t_end >= r->window) {
		r->window = t_end + READ_ONCE(lm_watch_second);
		r->budget = LM_WATCH_RATE;
	}
	if (!r->budget)
		goto drop;
	head = r->head;
	/* pairs with smp_store_release() in lm_watch_take(): sent before reused */
	if (head - smp_load_acquire(&r->tail) >= LM_ALERT_RING)
		goto drop;
	r->budget--;
	a = &r->rec[head % LM_ALERT_RING];
	a->kind = kind;
	a->thr = thr;
	if (c->dir && lm_slot_id(c, s) >= 0 && s->id < c->dir->nr &&
	    READ_ONCE(c->dir->key[s->id].type))
		a->key = c->dir->key[s->id];
	else
		lm_ovf_key(&a->key, th, sh, type);
	lm_ev_task(&a->ev, t_end, ticks);
	a->nr = lm_stack_walk(a->ip, false);
	a->blk = 0;
	a->blk_nr = 0;
	a->owner.pid = 0;
	if (th && kind == LOCKMETER_ALERT_HOLD && th->blk) {
		a->blk = th->blk;
		a->blk_nr = min_t(u32, th->blk_nr, LM_STACK_DEPTH);
		memcpy(a->blk_ip, th->blk_ip, a->blk_nr * sizeof(*a->blk_ip));
	}
	if (th && kind == LOCKMETER_ALERT_WAIT)
		a->owner = th->owner;
	/* pairs with smp_load_acquire() in lm_watch_take(): the alert first */
	smp_store_release(&r->head, head + 1);
	/*
	 * Kick the sender if it had emptied the queue: it is not coming
	 * back for the rest.  The full barrier pairs with the sender's in
	 * lm_watch_take(): it sees this alert, or this sees its tail.
	 */
	smp_mb();
	if (READ_ONCE(r->tail) == head)
		irq_work_queue(&r->kick);
	return;
drop:
	/* counted after the alert: readers read the drops first (lm_snapshot()) */
	smp_wmb();
	WRITE_ONCE(s->alerts_dropped, s->alerts_dropped + 1);
	WRITE_ONCE(c->loss.alerts_dropped, c->loss.alerts_dropped + 1);
}

NOKPROBE_SYMBOL(lm_watch_raise);

/*
 * The thresholds of a charge's type, while some threshold is set: the
 * slot's trip (see struct lm_slot) and an alert for a hold or wait over
 * one.  The type is @th's, or that of the spinning record @sh.
 */
static __always_inline void lm_watch_check(struct lm_cpu *c, struct lm_slot *s, u64 hold,
					   u64 wait, bool waited, u64 t_acq,
					   const struct lm_task_held *th,
					   const struct lm_held *sh)
{
	u32 type = th ? th->type : sh->type;
	u64 thr;

	if (unlikely(type >= LM_NR_TYPES))
		return;
	thr = READ_ONCE(lm_watch_hold[type]);
	s->hold_trip = min(s->hold_max, thr);
	if (hold > thr)
		lm_watch_raise(c, s, LOCKMETER_ALERT_HOLD, type, hold, thr, t_acq + hold, th, sh);
	thr = READ_ONCE(lm_watch_wait[type]);
	if (waited && wait > thr)
		lm_watch_raise(c, s, LOCKMETER_ALERT_WAIT, type, wait, thr, t_acq, th, sh);
}

/*
 * lm_charge() for a hold that waited or sets a new maximum: the charge,
 * and evidence for each new maximum.  Both chains, the hold's and the
 * wait's, are the current one, one walk for the two: the caller has
 * released the lock, so no other waiter waits for the walk.  A wait's
 * chain is thus where the waiter released the lock it waited for; the
 * site it waited at is the row's.  A maximum shorter than lm_chain_min
 * keeps no chain.  A sleeping lock's record @th (NULL for spinning
 * locks) has the owner waited for and the hold's longest blocked
 * stretch, with the chain there; for a spinning lock @sh is a copy of
 * its record.  Interrupts are off, and @c is guarded (lm_charge_slow()).
 */
static __always_inline void __lm_charge_slow(struct lm_cpu *c, struct lm_slot *s, u64 hold,
					     u64 t_wait, u64 t_acq,
					     const struct lm_task_held *th,
					     const struct lm_held *sh)
{
	const struct lm_owner *owner = th && th->owner.pid ? &th->owner : NULL;
	u64 wait = lm_delta(t_wait, t_acq), stack = LM_NO_STACK, blk_stack = LM_NO_STACK;
	bool new_hold = false, new_wait = false;
	struct lm_ovf *ovf;
	struct lm_evidence *ev = lm_slot_ev(c, s, &ovf);
	u32 seq;

	s->nr++;
	s->hold_total += hold;
	lm_hold_hist_inc(c, s, hold);
	if (hold < s->hold_min)
		s->hold_min = hold;
	/* a new maximum of this CPU's; evidence if it is also the key's longest yet */
	if (hold > s->hold_max) {
		s->hold_max = hold;
		new_hold = ev && hold > READ_ONCE(ev->hold.ticks);
	}
	if (t_wait) {
		s->spin++;
		s->wait_total += wait;
		lm_wait_hist_inc(c, s, wait);
		if (wait < s->wait_min)
			s->wait_min = wait;
		if (wait > s->wait_max) {
			s->wait_max = wait;
			new_wait = ev && wait > READ_ONCE(ev->wait.ticks);
		}
	}
	s->hold_trip = s->hold_max;
	if (unlikely(READ_ONCE(lm_watching)) && c)
		lm_watch_check(c, s, hold, wait, t_wait, t_acq, th, sh);
	if (!new_hold && !new_wait)
		return;
	/*
	 * The chains before the evidence, so that the evidence is held odd
	 * for a few stores only.
	 */
	if ((new_hold && hold >= lm_chain_min) || (new_wait && wait >= lm_chain_min))
		stack = lm_stack_take(c, ev, NULL, 0, -1);
	if (new_hold && th && th->blk && th->blk_nr)
		blk_stack = lm_stack_take(c, ev, th->blk_ip, th->blk_nr, lm_stack_index(stack));
	if (!lm_ev_get(ev, &seq))
		return;
	if (new_hold) {
		lm_ev_take(c, &ev->hold, t_acq + hold, hold,
			   hold >= lm_chain_min ? stack : LM_NO_STACK);
		ev->blk = th ? th->blk : 0;
		ev->blk_stack = blk_stack;
		if (ovf)
			lm_ovf_key(&ovf->hold_key, th, sh, ovf - c->ovf);
	}
	if (new_wait) {
		lm_ev_take(c, &ev->wait, t_acq, wait,
			   wait >= lm_chain_min ? stack : LM_NO_STACK);
		ev->owner_pid = owner ? owner->pid : 0;
		if (owner)
			memcpy(ev->owner_comm, owner->comm, sizeof(ev->owner_comm));
		if (ovf)
			lm_ovf_key(&ovf->wait_key, th, sh, ovf - c->ovf);
	}
	lm_ev_put(ev, seq);
}

/*
 * The slow path calls out (a stack walk, irq_work_queue()), into code a
 * tracepoint or kprobe may run a metered lock operation from: @c is
 * guarded meanwhile, and a spinning lock's record, the one just popped
 * at @c->top (see lm_charge()), is charged from a copy taken first.
 * @c is NULL only in KUnit tests of charges without a CPU state.
 */
noinline void __lockfunc lm_charge_slow(struct lm_cpu *c, struct lm_slot *s, u64 hold,
					u64 t_wait, u64 t_acq, const struct lm_task_held *th)
{
	struct lm_held sh = {}, *top;

	if (!c) {
		__lm_charge_slow(c, s, hold, t_wait, t_acq, th, &sh);
		return;
	}
	if (!th)
		sh = *c->top;
	top = lm_guard(c);
	__lm_charge_slow(c, s, hold, t_wait, t_acq, th, &sh);
	lm_unguard(c, top);
}
EXPORT_SYMBOL_IF_KUNIT(lm_charge_slow);
NOKPROBE_SYMBOL(lm_charge_slow);

/* ---- the held stack and the charge ---- */

/*
 * The fast paths below call nothing on their way through: every call is
 * to a slow path taken last, so that the compiler needs no registers
 * saved for the common case.
 */

/* lm_stamp_into()'s local_clock() case, out of line. */
noinline void lm_stamp_local(u64 *t)
{
	*t = local_clock_noinstr();
}

NOKPROBE_SYMBOL(lm_stamp_local);

/*
 * Enter the bookkeeping: interrupts off unless @irqs_off says they are,
 * and this CPU's state if this operation is metered (else NULL, still to
 * be left with lm_exit()).
 */
static __always_inline struct lm_cpu *lm_enter(bool irqs_off, unsigned long *flags)
{
	if (!irqs_off)
		raw_local_irq_save(*flags);
	return lm_gate();
}

static __always_inline void lm_exit(bool irqs_off, unsigned long flags)
{
	if (!irqs_off)
		raw_local_irq_restore(flags);
}

/*
 * @lock was just acquired at @site, with a wait since @t_wait (0: none).
 * Preemption is off; interrupts too if @irqs_off.
 */
static __always_inline void lm_acquire(void *lock, unsigned long site, u32 type,
				       u64 t_wait, bool irqs_off)
{
	unsigned long flags = 0;
	struct lm_held *h;
	struct lm_cpu *c;

	c = lm_enter(irqs_off, &flags);
	if (unlikely(!c))
		goto out;
	h = c->top;
	if (likely(h < lm_held_end(c))) {
		h->lock = (unsigned long)lock;
		h->site = site;
		h->t_wait = t_wait;
		h->type = type;
		c->top = h + 1;
		lm_stamp_into(&h->t_acq);
	} else if (h == lm_guard_top(c)) {
		c->loss.recursion++;
	} else {
		c->loss.dropped++;
	}
out:
	lm_exit(irqs_off, flags);
}

/* Charge the hold of @h, released at @now, to its slot. */
static __always_inline void lm_account(struct lm_cpu *c, const struct lm_held *h, u32 type,
				       u64 now)
{
	lm_charge(c, lm_slot_of(c, h->lock, h->site, type), lm_delta(h->t_acq, now),
		  h->t_wait, h->t_acq, NULL);
}

/* ... when the cache missed. */
static noinline void __lockfunc lm_account_miss(struct lm_cpu *c, const struct lm_held *h, u32 type,
						u64 now)
{
	lm_account(c, h, type, now);
}

NOKPROBE_SYMBOL(lm_account_miss);

/*
 * The released lock is not on top of the stack: take it from below
 * (release order need not be LIFO) and charge it, or count it
 * unmatched.  Interrupts are off.
 */
static noinline void __lockfunc lm_release_deep(struct lm_cpu *c, unsigned long lock, u32 type,
						u64 now)
{
	int i, top = c->top - c->held;
	struct lm_held h;

	/* a release from inside the bookkeeping: its acquisition was turned away */
	if (unlikely(lm_guarded(c)))
		return;
	/* the caller checked the top entry, held[top - 1]; held[0] is the floor */
	for (i = top - 2; i >= 1; i--) {
		if (c->held[i].lock != lock)
			continue;
		h = c->held[i];
		for (; i < top - 1; i++)
			c->held[i] = c->held[i + 1];
		/* the record at the new top while charged, as lm_charge() wants */
		*--c->top = h;
		lm_account(c, c->top, type, now);
		return;
	}
	c->loss.unmatched++;
}

NOKPROBE_SYMBOL(lm_release_deep);

/*
 * @lock was released at @now (read before the release): charge the hold
 * to the site that acquired it.  Interrupts are off if @irqs_off.  The
 * popped record stays intact until the charge is done: nothing else runs
 * on this CPU meanwhile.
 */
static __always_inline void lm_release(void *lock, u32 type, u64 now, bool irqs_off)
{
	unsigned long flags = 0;
	struct lm_cached *e;
	struct lm_held *h;
	struct lm_cpu *c;

	c = lm_enter(irqs_off, &flags);
	if (unlikely(!c))
		goto out;
	h = c->top - 1;		/* the floor if none: its lock is 0 */
	if (likely(h->lock == (unsigned long)lock)) {
		c->top = h;
		/* @lock is h->lock, already in a register */
		e = lm_cache_entry(c, (unsigned long)lock, h->site);
		if (likely(lm_cache_hit(e, (unsigned long)lock, h->site, type)))
			lm_charge(c, e->slot, lm_delta(h->t_acq, now), h->t_wait, h->t_acq,
				  NULL);
		else
			lm_account_miss(c, h, type, now);
	} else {
		lm_release_deep(c, (unsigned long)lock, type, now);
	}
out:
	lm_exit(irqs_off, flags);
}

/*
 * An attempt on @lock at @site that got nothing: a failed trylock, or
 * (sleeping locks) a wait ended by a signal.
 */
static __always_inline void lm_miss(void *lock, unsigned long site, u32 type, bool abort)
{
	unsigned long flags;
	struct lm_slot *s;
	struct lm_cpu *c;

	c = lm_enter(false, &flags);
	if (c && unlikely(lm_guarded(c))) {
		c->loss.recursion++;
	} else if (c) {
		s = lm_slot_of(c, (unsigned long)lock, site, type);
		if (!abort)
			s->reject++;
		else if (s->abort != U32_MAX)
			s->abort++;
	}
	lm_exit(false, flags);
}

/* A trylock of @lock at @site failed. */
void lm_reject(void *lock, unsigned long site, u32 type)
{
	lm_miss(lock, site, type, false);
}

NOKPROBE_SYMBOL(lm_reject);

/* A wait for the sleeping @lock at @site ended without it (signal, kill). */
void lm_sleep_abort(void *lock, unsigned long site, u32 type)
{
	lm_miss(lock, site, type, true);
}

NOKPROBE_SYMBOL(lm_sleep_abort);

/* ---- the hooks of the spinning lock operations ---- */

/*
 * A drop_irq releases a lock taken with interrupts off, and its caller
 * keeps them off until then; should one not, the bookkeeping disables
 * them itself.
 */
static __always_inline bool lm_irqs_off(void)
{
	return raw_irqs_disabled();
}

/*
 * Of each spinning lock type @op, on @locktype##_t:
 *
 *   lm_<op>_take(), _take_irq()	LOCK_CONTENDED(), metered: trylock; on
 *				failure lock_contended(), the wait timed
 *				around the blocking do_raw_<op>_lock();
 *				lock_acquired(); push the hold.  The _irq
 *				variant runs with interrupts off.
 *   lm_<op>_drop(), _drop_irq()	do_raw_<op>_unlock(), metered: stamp,
 *				release, charge (LM_BUILD_DROP*() below).
 *
 * What the operation does around these (preemption, interrupts, bottom
 * halves, lockdep's acquire and release) it does itself, metered or not.
 */
#define LM_BUILD_TAKE(op, locktype)					\
static noinline void __lockfunc lm_##op##_wait(typeof(locktype##_t) *lock,	\
					       unsigned long ip, bool irqs_off) \
{									\
	u64 t_wait;							\
									\
	lock_contended(&lock->dep_map, ip);				\
	t_wait = lm_ticks();						\
	do_raw_##op##_lock(lock);					\
	lock_acquired(&lock->dep_map, ip);				\
	lm_acquire(lock, ip, LM_##op, t_wait, irqs_off);		\
}									\
NOKPROBE_SYMBOL(lm_##op##_wait);					\
									\
static __always_inline void __lm_##op##_take(typeof(locktype##_t) *lock,	\
					     unsigned long ip, bool irqs_off) \
{									\
	if (unlikely(!do_raw_##op##_trylock(lock))) {			\
		lm_##op##_wait(lock, ip, irqs_off);			\
		return;							\
	}								\
	lock_acquired(&lock->dep_map, ip);				\
	lm_acquire(lock, ip, LM_##op, 0, irqs_off);			\
}									\
									\
void __lockfunc lm_##op##_take(typeof(locktype##_t) *lock, unsigned long ip)	\
{									\
	__lm_##op##_take(lock, ip, false);				\
}									\
NOKPROBE_SYMBOL(lm_##op##_take);					\
									\
void __lockfunc lm_##op##_take_irq(typeof(locktype##_t) *lock, unsigned long ip) \
{									\
	__lm_##op##_take(lock, ip, true);				\
}									\
NOKPROBE_SYMBOL(lm_##op##_take_irq);					\
									\
static __always_inline void __lm_##op##_drop(typeof(locktype##_t) *lock,	\
					     bool irqs_off, u64 now)	\
{									\
	do_raw_##op##_unlock(lock);					\
	lm_release(lock, LM_##op, now, irqs_off);			\
}									\
									\
/* The release with local_clock() for a clock: out of line. */		\
static noinline void __lockfunc lm_##op##_drop_local(typeof(locktype##_t) *lock,	\
						     bool irqs_off)	\
{									\
	__lm_##op##_drop(lock, irqs_off, local_clock_noinstr());	\
}									\
NOKPROBE_SYMBOL(lm_##op##_drop_local);					\
									\
static __always_inline void lm_##op##_drop_at(typeof(locktype##_t) *lock,	\
					      bool irqs_off)		\
{									\
	if (likely(lm_clock_is_tsc()))					\
		__lm_##op##_drop(lock, irqs_off, lm_tsc());		\
	else								\
		lm_##op##_drop_local(lock, irqs_off);			\
}

/*
 * The drops, exported: the unlocks are inlined into modules too.  Of an
 * unlock with interrupts on or off; of an unlock_irqrestore, with them
 * off, returning @flags (see lockmeter_unlock_irqrestore()).
 */
#define LM_BUILD_DROP(op, locktype)					\
void __lockfunc lm_##op##_drop(typeof(locktype##_t) *lock)		\
{									\
	lm_##op##_drop_at(lock, false);					\
}									\
NOKPROBE_SYMBOL(lm_##op##_drop)

#define LM_BUILD_DROP_IRQ(op, locktype)					\
unsigned long __lockfunc lm_##op##_drop_irq(typeof(locktype##_t) *lock,	\
					    unsigned long flags)	\
{									\
	lm_##op##_drop_at(lock, lm_irqs_off());				\
	return flags;							\
}									\
NOKPROBE_SYMBOL(lm_##op##_drop_irq)

LM_BUILD_TAKE(spin, raw_spinlock);
LM_BUILD_DROP(spin, raw_spinlock);
EXPORT_SYMBOL(lm_spin_drop);
LM_BUILD_DROP_IRQ(spin, raw_spinlock);
EXPORT_SYMBOL(lm_spin_drop_irq);

/* On PREEMPT_RT rwlock_t is an rtmutex-based lock (spinlock_rt.c) */
#ifndef CONFIG_PREEMPT_RT
LM_BUILD_TAKE(read, rwlock);
LM_BUILD_DROP(read, rwlock);
EXPORT_SYMBOL(lm_read_drop);
LM_BUILD_DROP_IRQ(read, rwlock);
EXPORT_SYMBOL(lm_read_drop_irq);

LM_BUILD_TAKE(write, rwlock);
LM_BUILD_DROP(write, rwlock);
EXPORT_SYMBOL(lm_write_drop);
LM_BUILD_DROP_IRQ(write, rwlock);
EXPORT_SYMBOL(lm_write_drop_irq);
#endif

/* A trylock of @lock, of spinning @type, succeeded at @ip. */
void __lockfunc lm_took(void *lock, unsigned int type, unsigned long ip)
{
	lm_acquire(lock, ip, type, 0, false);
}

NOKPROBE_SYMBOL(lm_took);
