// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: per-call-site hold and wait times of kernel locks.
 *
 * Design
 *   The out-of-line lock operations (kernel/locking/spinlock.c) branch,
 *   behind the static key lockmeter_key, to metered variants
 *   (lockmeter_spin.c) that take the lock trylock-first to detect
 *   contention and call lm_acquire()/lm_release()/lm_reject() here.
 *   The mutex and rw_semaphore entry points do the same with the metered
 *   variants in lockmeter_mutex.c and lockmeter_rwsem.c, which call the
 *   lm_sleep_*() functions.
 *
 *   A spinning lock is acquired and released on one CPU (preemption is off
 *   while it is held), so each CPU keeps a small stack of the locks it
 *   holds: acquire pushes {lock, site, type, time}, release pops the
 *   topmost matching entry (release order need not be LIFO) and charges
 *   the hold, and the wait recorded at acquire, to the CPU's statistics
 *   table.  Tables are preallocated, per CPU, written only by their CPU
 *   with interrupts off, and keyed as lockmeter.h describes.
 *
 *   A sleeping lock's holder may sleep and migrate, so its record lives
 *   in the task (task_struct::lockmeter) instead, with the task's time on
 *   a CPU at acquisition: the hold is then split into on-CPU time and
 *   blocked time.  Times taken on different CPUs may disagree by a little;
 *   negative differences count as 0.
 *
 *   Nothing here allocates, sleeps, prints or takes a lock on the lock
 *   path.  NMIs are not metered.  Losses are counted, never silent:
 *   dropped (held stack full), unmatched (release of a lock whose acquire
 *   was not seen, normal right after switching on, or by a task that is
 *   not the owner), recursion (hook re-entered), table_full (no slot: the
 *   event goes to the overflow row), evicted (a task's records were full:
 *   its oldest was dropped).
 *
 * Overhead
 *   Off: one NOP per lock operation.  On: two local_clock() reads per
 *   uncontended acquire/release pair plus a hash lookup, interrupts off
 *   for a few dozen instructions.
 *
 * Output
 *   /proc/lockmeter (lockmeter_proc.c); Documentation/locking/lockmeter.rst.
 */
#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/irqflags.h>
#include <linux/kprobes.h>
#include <linux/lockmeter.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <asm/sections.h>
#include <kunit/visibility.h>

#include "lockmeter.h"

DEFINE_STATIC_KEY_FALSE(lockmeter_key);

struct lm_held {
	unsigned long lock;
	unsigned long site;
	u64 t_acq;
	u64 wait;
	u32 type;
	bool waited;
};

struct lm_cpu {
	struct lm_table table;
	struct lm_stat overflow[LM_NR_TYPES];
	struct lm_held held[CONFIG_LOCKMETER_STACK_DEPTH];
	unsigned int depth;
	unsigned int busy;
	struct lm_loss loss;
};

static DEFINE_PER_CPU(struct lm_cpu, lm_cpu);

/* Static per-CPU areas, one per possible CPU: [base, base + size). */
static unsigned long lm_pcpu_base[NR_CPUS] __ro_after_init;
static unsigned long lm_pcpu_size __ro_after_init;

/*
 * Data sections of loaded modules, so their static locks are keyed (and
 * named) by address.  Written under lm_mod_mutex from the module notifier,
 * read locklessly by the hooks: a lock taken while its module is coming or
 * going may be misfiled as a heap lock, nothing worse.
 */
#define LM_MAX_MODS	64
struct lm_range {
	unsigned long start;
	unsigned long end;
};

static struct lm_range lm_mods[LM_MAX_MODS];
static unsigned int lm_nr_mods;	/* slots [0, lm_nr_mods) may be in use */
static DEFINE_MUTEX(lm_mod_mutex);

/* Control state, serialised by lm_ctl_mutex. */
static DEFINE_MUTEX(lm_ctl_mutex);
static bool lm_on;
/*
 * The static key flips site by site, so while it flips some lock
 * operations are metered and others not: a lock taken through a site
 * already on and released through one still off would leave its record
 * behind, and a later metered release of that lock would charge a hold
 * as long as the time since.  So nothing is recorded or charged unless
 * lm_live, which is set only once every site is on and cleared before any
 * is switched off: records are made and used only while all sites meter.
 * Records left by releases that raced the clearing are dropped before
 * the next "on": per-CPU stacks by clearing them, task records by the
 * epoch, bumped by every "on", since a record of an earlier epoch never
 * matches.
 */
static bool lm_live;
static u32 lm_epoch;
static u64 lm_t_on;		/* local_clock() when last switched on */
static u64 lm_metered;		/* ns metered before lm_t_on since reset */
static u64 lm_resets;		/* resets since boot: readers tell intervals apart */
static bool lm_boot_on __initdata;

static bool lm_in_range(unsigned long a, unsigned long start, unsigned long end)
{
	return a >= start && a < end;
}

static void lm_classify(unsigned long lock, struct lm_key *k)
{
	unsigned int cpu, i;

	k->class = LM_STATIC;
	k->lock = lock;
	if (lm_in_range(lock, (unsigned long)_sdata, (unsigned long)_edata) ||
	    lm_in_range(lock, (unsigned long)__bss_start, (unsigned long)__bss_stop))
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		unsigned long base = lm_pcpu_base[cpu];

		if (base && lm_in_range(lock, base, base + lm_pcpu_size)) {
			k->class = LM_PERCPU;
			k->lock = (unsigned long)__per_cpu_start + (lock - base);
			return;
		}
	}
	for (i = 0; i < READ_ONCE(lm_nr_mods); i++) {
		unsigned long start = READ_ONCE(lm_mods[i].start);

		if (start && lm_in_range(lock, start, READ_ONCE(lm_mods[i].end)))
			return;
	}
	k->class = LM_HEAP;
	k->lock = 0;
}

/*
 * The slot for (lock, site, type) on this CPU; the overflow row when the
 * table has no room.  Called with interrupts off.
 */
static struct lm_stat *lm_slot(struct lm_cpu *c, unsigned long lock,
			       unsigned long site, u32 type)
{
	struct lm_key k = { .site = site, .type = type };
	struct lm_stat *s = NULL;

	lm_classify(lock, &k);
	if (c->table.slot)
		s = lm_table_get(&c->table, &k);
	if (unlikely(!s)) {
		c->loss.table_full++;
		s = &c->overflow[type];
	}
	if (k.class == LM_HEAP)
		s->inst |= lm_inst_bit(lock);
	return s;
}

static struct lm_cpu *lm_enter(unsigned long *flags)
{
	struct lm_cpu *c;

	raw_local_irq_save(*flags);
	c = this_cpu_ptr(&lm_cpu);
	if (unlikely(c->busy)) {
		c->loss.recursion++;
		raw_local_irq_restore(*flags);
		return NULL;
	}
	c->busy = 1;
	return c;
}

static void lm_exit(struct lm_cpu *c, unsigned long flags)
{
	c->busy = 0;
	raw_local_irq_restore(flags);
}

static u64 lm_delta(u64 from, u64 to)
{
	return to > from ? to - from : 0;
}

/* One acquisition's wait and hold, charged to its row. */
static void lm_charge(struct lm_stat *s, bool waited, u64 wait, u64 hold)
{
	if (waited) {
		s->spin++;
		lm_time_inc(&s->wait, wait);
	} else {
		s->nowait++;
	}
	lm_time_inc(&s->hold, hold);
}

/*
 * @lock was just acquired at @site.  @t_wait is when the wait began if
 * the first trylock failed, else 0.
 */
/* Meter this lock operation: not in NMI, and only while every site meters */
static __always_inline bool lm_gate(void)
{
	return !in_nmi() && READ_ONCE(lm_live);
}

void lm_acquire(void *lock, unsigned long site, u32 type, u64 t_wait)
{
	unsigned long flags;
	struct lm_held *h;
	struct lm_cpu *c;
	u64 now;

	if (!lm_gate())
		return;
	now = lm_clock();
	c = lm_enter(&flags);
	if (!c)
		return;
	if (unlikely(c->depth >= CONFIG_LOCKMETER_STACK_DEPTH)) {
		c->loss.dropped++;
	} else {
		h = &c->held[c->depth++];
		h->lock = (unsigned long)lock;
		h->site = site;
		h->type = type;
		h->t_acq = now;
		h->waited = t_wait != 0;
		h->wait = t_wait ? lm_delta(t_wait, now) : 0;
	}
	lm_exit(c, flags);
}

NOKPROBE_SYMBOL(lm_acquire);

/*
 * @lock was released at time @now (read before the release): charge the
 * hold to the site that acquired it.
 */
void lm_release(void *lock, u32 type, u64 now)
{
	unsigned long flags;
	struct lm_held h;
	struct lm_stat *s;
	struct lm_cpu *c;
	int i;

	if (!lm_gate())
		return;
	c = lm_enter(&flags);
	if (!c)
		return;
	for (i = c->depth - 1; i >= 0; i--)
		if (c->held[i].lock == (unsigned long)lock && c->held[i].type == type)
			break;
	if (unlikely(i < 0)) {
		c->loss.unmatched++;
		goto out;
	}
	h = c->held[i];
	for (; i < c->depth - 1; i++)
		c->held[i] = c->held[i + 1];
	c->depth--;

	s = lm_slot(c, h.lock, h.site, type);
	lm_charge(s, h.waited, h.wait, lm_delta(h.t_acq, now));
out:
	lm_exit(c, flags);
}

NOKPROBE_SYMBOL(lm_release);

/* An attempt on @lock at @site that got nothing: a failed trylock or wait */
static __always_inline void lm_miss(void *lock, unsigned long site, u32 type, bool abort)
{
	unsigned long flags;
	struct lm_stat *s;
	struct lm_cpu *c;

	if (!lm_gate())
		return;
	c = lm_enter(&flags);
	if (!c)
		return;
	s = lm_slot(c, (unsigned long)lock, site, type);
	if (abort)
		s->abort++;
	else
		s->reject++;
	lm_exit(c, flags);
}

/* A trylock of @lock at @site failed. */
void lm_reject(void *lock, unsigned long site, u32 type)
{
	lm_miss(lock, site, type, false);
}

NOKPROBE_SYMBOL(lm_reject);

/* ---- sleeping locks: records in the task, process context ---- */

/*
 * The clock and the current task's time on a CPU.  sum_exec_runtime is
 * brought up to date only at scheduler events; the time since the last
 * one (exec_start) is added here.  Interrupts are off so a tick cannot
 * update one of the two between the reads.
 */
void lm_stamp(struct lm_stamp *st)
{
	struct task_struct *p = current;
	unsigned long flags;
	u64 sum, start;

	raw_local_irq_save(flags);
	st->t = lm_clock();
	sum = READ_ONCE(p->se.sum_exec_runtime);
	start = READ_ONCE(p->se.exec_start);
	raw_local_irq_restore(flags);
	st->oncpu = sum + lm_delta(start, st->t);
}

/* Drop the current task's records of earlier metering periods. */
static void lm_task_purge(struct lm_task *lt, u32 epoch)
{
	unsigned int i, n = 0;

	for (i = 0; i < lt->depth; i++)
		if (lt->held[i].epoch == epoch)
			lt->held[n++] = lt->held[i];
	lt->depth = n;
}

/*
 * Current acquired @lock at @site.  @t_wait is when the wait began if the
 * first attempt failed (local_clock()), else 0.
 */
void lm_sleep_acquired(void *lock, unsigned long site, u32 type, u64 t_wait)
{
	struct lm_task *lt = &current->lockmeter;
	u32 epoch = READ_ONCE(lm_epoch);
	struct lm_task_held *h;
	struct lm_stamp now;

	if (!lm_gate())
		return;
	lm_stamp(&now);
	if (lt->depth == CONFIG_LOCKMETER_TASK_DEPTH)
		lm_task_purge(lt, epoch);
	if (lt->depth == CONFIG_LOCKMETER_TASK_DEPTH) {
		/* the oldest record is the likeliest to be stale */
		memmove(&lt->held[0], &lt->held[1],
			sizeof(lt->held[0]) * (CONFIG_LOCKMETER_TASK_DEPTH - 1));
		lt->depth--;
		this_cpu_inc(lm_cpu.loss.evicted);
	}
	h = &lt->held[lt->depth];
	h->lock = (unsigned long)lock;
	h->site = site;
	h->type = type;
	h->epoch = epoch;
	h->t_acq = now.t;
	h->oncpu_acq = now.oncpu;
	h->waited = t_wait != 0;
	h->wait = t_wait ? lm_delta(t_wait, now.t) : 0;
	lt->depth++;
}

/* A wait for @lock at @site ended without it (signal, kill). */
void lm_sleep_abort(void *lock, unsigned long site, u32 type)
{
	lm_miss(lock, site, type, true);
}

/* Current released @lock; @rel was stamped just before the release. */
void lm_sleep_release(void *lock, u32 type, const struct lm_stamp *rel)
{
	struct lm_task *lt = &current->lockmeter;
	u32 epoch = READ_ONCE(lm_epoch);
	struct lm_task_held h;
	unsigned long flags;
	u64 hold, oncpu;
	struct lm_stat *s;
	struct lm_cpu *c;
	int i;

	if (!lm_gate())
		return;
	for (i = lt->depth - 1; i >= 0; i--)
		if (lt->held[i].lock == (unsigned long)lock && lt->held[i].type == type)
			break;
	if (i >= 0 && lt->held[i].epoch != epoch) {
		/* taken in an earlier metering period: stale, as are its elders */
		lm_task_purge(lt, epoch);
		i = -1;
	}
	if (i < 0) {
		/* never seen acquired, or released by a task that is not the owner */
		this_cpu_inc(lm_cpu.loss.unmatched);
		return;
	}
	h = lt->held[i];
	lt->depth--;
	memmove(&lt->held[i], &lt->held[i + 1], sizeof(h) * (lt->depth - i));

	hold = lm_delta(h.t_acq, rel->t);
	oncpu = min(lm_delta(h.oncpu_acq, rel->oncpu), hold);

	c = lm_enter(&flags);
	if (!c)
		return;
	s = lm_slot(c, h.lock, h.site, type);
	lm_charge(s, h.waited, h.wait, hold);
	s->oncpu_total += oncpu;
	s->oncpu_max = max(s->oncpu_max, oncpu);
	s->blocked_total += hold - oncpu;
	s->blocked_max = max(s->blocked_max, hold - oncpu);
	lm_exit(c, flags);
}

/* Sleeping locks the current task holds, as lockmeter sees them. */
int lockmeter_current_held(void)
{
	return current->lockmeter.depth;
}
EXPORT_SYMBOL_GPL(lockmeter_current_held);

/* ---- control: process context only ---- */

static void lm_clear_held_cpu(void *unused)
{
	this_cpu_ptr(&lm_cpu)->depth = 0;
}

static void lm_reset_one(struct lm_cpu *c)
{
	unsigned int t;

	if (c->table.slot)
		memset(c->table.slot, 0, sizeof(*c->table.slot) << c->table.bits);
	c->table.used = 0;
	for (t = 0; t < LM_NR_TYPES; t++) {
		memset(&c->overflow[t], 0, sizeof(c->overflow[t]));
		c->overflow[t].key.type = t;
		c->overflow[t].key.class = LM_OVERFLOW;
	}
	memset(&c->loss, 0, sizeof(c->loss));
}

/* on_each_cpu() runs this with interrupts off: no update can race it */
static void lm_reset_cpu(void *unused)
{
	lm_reset_one(this_cpu_ptr(&lm_cpu));
}

/* Reset every CPU's table: online ones in an IPI, offline ones directly. */
static void lm_reset_all(void)
{
	unsigned int cpu;

	cpus_read_lock();
	on_each_cpu(lm_reset_cpu, NULL, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			lm_reset_one(per_cpu_ptr(&lm_cpu, cpu));
	cpus_read_unlock();
}

static void __lockmeter_on(void)
{
	if (lm_on)
		return;
	/*
	 * Not live: nothing records.  Drop what releases that raced the last
	 * "off" left behind, switch every site on, then go live (see
	 * lm_live).  Holds that began before are not metered; their releases
	 * count as unmatched.
	 */
	on_each_cpu(lm_clear_held_cpu, NULL, 1);
	WRITE_ONCE(lm_epoch, lm_epoch + 1);
	static_branch_enable(&lockmeter_key);
	lm_t_on = local_clock();
	WRITE_ONCE(lm_live, true);
	lm_on = true;
}

static void __lockmeter_off(void)
{
	if (!lm_on)
		return;
	WRITE_ONCE(lm_live, false);
	lm_metered += local_clock() - lm_t_on;
	static_branch_disable(&lockmeter_key);
	lm_on = false;
}

int lockmeter_control(enum lm_ctl op)
{
	guard(mutex)(&lm_ctl_mutex);

	switch (op) {
	case LM_CTL_ON:
		__lockmeter_on();
		break;
	case LM_CTL_OFF:
		__lockmeter_off();
		break;
	case LM_CTL_RESET:
		lm_reset_all();
		lm_resets++;
		lm_metered = 0;
		lm_t_on = local_clock();
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* ---- snapshots for readers ---- */

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

static void lm_copy_stat(struct lm_stat *dst, const struct lm_stat *src)
{
	dst->key.type = READ_ONCE(src->key.type);
	/* pairs with smp_wmb() in lm_table_get(): the key is valid once typed */
	smp_rmb();
	dst->key.lock = src->key.lock;
	dst->key.site = src->key.site;
	dst->key.class = src->key.class;
	dst->nowait = READ_ONCE(src->nowait);
	dst->spin = READ_ONCE(src->spin);
	dst->reject = READ_ONCE(src->reject);
	dst->abort = READ_ONCE(src->abort);
	dst->hold = src->hold;
	dst->wait = src->wait;
	dst->oncpu_total = READ_ONCE(src->oncpu_total);
	dst->oncpu_max = READ_ONCE(src->oncpu_max);
	dst->blocked_total = READ_ONCE(src->blocked_total);
	dst->blocked_max = READ_ONCE(src->blocked_max);
	dst->inst = READ_ONCE(src->inst);
}

static bool lm_stat_empty(const struct lm_stat *s)
{
	return !s->nowait && !s->spin && !s->reject && !s->abort;
}

/* Append @pc's non-empty rows to @rows[@n..@cap); returns the new @n. */
static size_t lm_copy_cpu(struct lm_cpu *pc, struct lm_stat *rows, size_t n,
			  size_t cap)
{
	struct lm_table *tb = &pc->table;
	unsigned int i, t;

	for (t = LM_NONE + 1; t < LM_NR_TYPES && n < cap; t++) {
		lm_copy_stat(&rows[n], &pc->overflow[t]);
		if (!lm_stat_empty(&rows[n]))
			n++;
	}
	for (i = 0; tb->slot && i < (1U << tb->bits) && n < cap; i++) {
		if (!READ_ONCE(tb->slot[i].key.type))
			continue;
		lm_copy_stat(&rows[n], &tb->slot[i]);
		if (!lm_stat_empty(&rows[n]))
			n++;
	}
	return n;
}

/*
 * The state and loss counters of @cpu (of all CPUs when @cpu < 0) and,
 * with @rows, a copy of their tables merged over CPUs; the caller frees
 * it with lm_snapshot_free().
 */
int lm_snapshot(struct lm_snapshot *snap, int cpu, bool rows)
{
	size_t cap = 0, n = 0;
	unsigned int c;

	memset(snap, 0, sizeof(*snap));
	if (rows) {
		for_each_possible_cpu(c)
			if (cpu < 0 || c == cpu)
				cap += READ_ONCE(per_cpu(lm_cpu, c).table.used) + LM_NR_TYPES;
		/* slots claimed while we copy are left for the next reader */
		snap->rows = vmalloc_array(cap ?: 1, sizeof(*snap->rows));
		if (!snap->rows)
			return -ENOMEM;
	}
	for_each_possible_cpu(c) {
		struct lm_cpu *pc = per_cpu_ptr(&lm_cpu, c);

		if (cpu >= 0 && c != cpu)
			continue;
		snap->loss.dropped += READ_ONCE(pc->loss.dropped);
		snap->loss.unmatched += READ_ONCE(pc->loss.unmatched);
		snap->loss.recursion += READ_ONCE(pc->loss.recursion);
		snap->loss.table_full += READ_ONCE(pc->loss.table_full);
		snap->loss.evicted += READ_ONCE(pc->loss.evicted);
		snap->slots_used = max(snap->slots_used, READ_ONCE(pc->table.used));
		if (rows)
			n = lm_copy_cpu(pc, snap->rows, n, cap);
	}
	snap->nr = lm_rows_merge(snap->rows, n);
	snap->slots_per_cpu = 1U << CONFIG_LOCKMETER_TABLE_BITS;

	mutex_lock(&lm_ctl_mutex);
	snap->on = lm_on;
	snap->metered_ns = lm_metered + (lm_on ? local_clock() - lm_t_on : 0);
	snap->resets = lm_resets;
	mutex_unlock(&lm_ctl_mutex);
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
	snap->rows = NULL;
	snap->nr = 0;
}

/* ---- setup ---- */

static int lm_module_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	struct module *mod = data;
	unsigned long start = (unsigned long)mod->mem[MOD_DATA].base;
	unsigned long end = start + mod->mem[MOD_DATA].size;
	unsigned int i;

	guard(mutex)(&lm_mod_mutex);
	for (i = 0; i < LM_MAX_MODS; i++) {
		if (action == MODULE_STATE_COMING && !lm_mods[i].start) {
			WRITE_ONCE(lm_mods[i].end, end);
			WRITE_ONCE(lm_mods[i].start, start);
			if (i >= lm_nr_mods)
				WRITE_ONCE(lm_nr_mods, i + 1);
			break;
		}
		if (action == MODULE_STATE_GOING && lm_mods[i].start == start) {
			WRITE_ONCE(lm_mods[i].start, 0);
			break;
		}
	}
	return NOTIFY_OK;
}

static struct notifier_block lm_module_nb = {
	.notifier_call = lm_module_notify,
};

static int __init lockmeter_setup(char *str)
{
	if (!str)
		return -EINVAL;
	if (!strcmp(str, "on"))
		lm_boot_on = true;
	else if (strcmp(str, "off"))
		return -EINVAL;
	return 0;
}
early_param("lockmeter", lockmeter_setup);

/*
 * An early initcall runs before the other CPUs are brought up, so
 * "lockmeter=on" flips the static key while only the boot CPU runs.
 */
static int __init lockmeter_init(void)
{
	unsigned int cpu;

	lm_pcpu_size = __per_cpu_end - __per_cpu_start;
	for_each_possible_cpu(cpu) {
		struct lm_cpu *c = per_cpu_ptr(&lm_cpu, cpu);

		lm_pcpu_base[cpu] = (unsigned long)__per_cpu_start + per_cpu_offset(cpu);
		c->table.bits = CONFIG_LOCKMETER_TABLE_BITS;
		/* a CPU without a table still counts, in its overflow rows */
		c->table.slot = vzalloc_node(sizeof(*c->table.slot) << c->table.bits,
					     cpu_to_node(cpu));
	}
	lm_reset_all();
	register_module_notifier(&lm_module_nb);
	if (lm_boot_on)
		lockmeter_control(LM_CTL_ON);
	return 0;
}
early_initcall(lockmeter_init);
