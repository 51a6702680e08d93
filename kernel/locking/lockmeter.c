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
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
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

static __always_inline bool lm_in_range(unsigned long a, unsigned long start,
					unsigned long end)
{
	return a >= start && a < end;
}

/*
 * Module memory (text and data of every module) lies in the module area
 * on architectures that have one, and nothing else there holds locks: a
 * lock there is a module's static lock.  One range check, whatever the
 * number of modules; lm_module_going() takes care of modules that go.
 */
static __always_inline bool lm_in_module_area(unsigned long a)
{
#if defined(CONFIG_MODULES) && defined(MODULES_VADDR) && defined(MODULES_END)
	return lm_in_range(a, MODULES_VADDR, MODULES_END);
#else
	return false;
#endif
}

static __always_inline void lm_classify(unsigned long lock, struct lm_key *k)
{
	unsigned int cpu;

	k->class = LM_STATIC;
	k->lock = lock;
	if (lm_in_range(lock, (unsigned long)_sdata, (unsigned long)_edata) ||
	    lm_in_range(lock, (unsigned long)__bss_start, (unsigned long)__bss_stop))
		return;
	if (lm_in_module_area(lock))
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		unsigned long base = lm_pcpu_base[cpu];

		if (base && lm_in_range(lock, base, base + lm_pcpu_size)) {
			k->class = LM_PERCPU;
			k->lock = (unsigned long)__per_cpu_start + (lock - base);
			return;
		}
	}
	k->class = LM_HEAP;
	k->lock = 0;
}

/*
 * The helpers below run with interrupts off inside the hooks: they are
 * inlined, so that no probe can land between lm_enter() and lm_exit().
 *
 * The slot for (lock, site, type) on this CPU; the overflow row when the
 * table has no room.
 */
static __always_inline struct lm_stat *lm_slot(struct lm_cpu *c, unsigned long lock,
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

static __always_inline struct lm_cpu *lm_enter(unsigned long *flags)
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

static __always_inline void lm_exit(struct lm_cpu *c, unsigned long flags)
{
	c->busy = 0;
	raw_local_irq_restore(flags);
}

static __always_inline u64 lm_delta(u64 from, u64 to)
{
	return to > from ? to - from : 0;
}

/* One acquisition's wait and hold, charged to its row. */
static __always_inline void lm_charge(struct lm_stat *s, bool waited, u64 wait, u64 hold)
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

/* ---- sleeping locks: records in the task ---- */

/*
 * Sleeping locks are metered in task context only.  Their trylocks and
 * releases also run in interrupts (say, a down_read_trylock() in a BPF
 * program, released from irq_work by up_read_non_owner()), where current
 * is whichever task was interrupted: its records are not the interrupt's
 * to edit.  Such operations are counted as not metered (irqctx).  In task
 * context the records are edited only by their task, inside lm_enter()
 * (interrupts off, recursion guard), so nothing can interleave with an
 * edit.
 */
static __always_inline bool lm_sleep_gate(void)
{
	if (!lm_gate())
		return false;
	if (likely(in_task()))
		return true;
	this_cpu_inc(lm_cpu.loss.irqctx);
	return false;
}

/* The clock and the current task's off-CPU total; the task is running. */
void lm_stamp(struct lm_stamp *st)
{
	st->t = local_clock();
	st->offcpu = READ_ONCE(current->lockmeter.offcpu);
}

NOKPROBE_SYMBOL(lm_stamp);

/*
 * The scheduler switches out a task that holds records: remember when.
 * Interrupts are off, and the task runs none of its own code until
 * lm_sched_in(), so this cannot race an edit of its records.
 */
void lm_sched_out(struct lm_task *lt)
{
	lt->t_out = lm_clock();
}

NOKPROBE_SYMBOL(lm_sched_out);

/* ... and switches it back in, perhaps on another CPU. */
void lm_sched_in(struct lm_task *lt)
{
	lt->offcpu += lm_delta(lt->t_out, lm_clock());
	lt->t_out = 0;
}

NOKPROBE_SYMBOL(lm_sched_in);

/* Drop the current task's records of earlier metering periods. */
static __always_inline void lm_task_purge(struct lm_task *lt, u32 epoch)
{
	unsigned int i, n = 0;

	for (i = 0; i < lt->depth; i++)
		if (lt->held[i].epoch == epoch)
			lt->held[n++] = lt->held[i];
	lt->depth = n;
}

/* Remove record @i of @lt, keeping the others in order. */
static __always_inline void lm_task_remove(struct lm_task *lt, unsigned int i)
{
	for (; i + 1 < lt->depth; i++)
		lt->held[i] = lt->held[i + 1];
	lt->depth--;
}

/*
 * Current acquired @lock at @site.  @t_wait is when the wait began if the
 * first attempt failed (local_clock()), else 0.
 */
void lm_sleep_acquired(void *lock, unsigned long site, u32 type, u64 t_wait)
{
	struct lm_task *lt = &current->lockmeter;
	struct lm_task_held *h;
	unsigned long flags;
	struct lm_cpu *c;
	u32 epoch;
	u64 now;

	if (!lm_sleep_gate())
		return;
	c = lm_enter(&flags);
	if (!c)
		return;
	now = lm_clock();
	epoch = READ_ONCE(lm_epoch);
	if (lt->depth >= CONFIG_LOCKMETER_TASK_DEPTH)
		lm_task_purge(lt, epoch);
	if (lt->depth >= CONFIG_LOCKMETER_TASK_DEPTH) {
		/* the oldest record is the likeliest to be stale */
		lm_task_remove(lt, 0);
		c->loss.evicted++;
	}
	h = &lt->held[lt->depth++];
	h->lock = (unsigned long)lock;
	h->site = site;
	h->type = type;
	h->epoch = epoch;
	h->t_acq = now;
	h->offcpu_acq = lt->offcpu;
	h->waited = t_wait != 0;
	h->wait = t_wait ? lm_delta(t_wait, now) : 0;
	lm_exit(c, flags);
}

NOKPROBE_SYMBOL(lm_sleep_acquired);

/* A wait for @lock at @site ended without it (signal, kill). */
void lm_sleep_abort(void *lock, unsigned long site, u32 type)
{
	lm_miss(lock, site, type, true);
}

NOKPROBE_SYMBOL(lm_sleep_abort);

/* Current released @lock; @rel was stamped just before the release. */
void lm_sleep_release(void *lock, u32 type, const struct lm_stamp *rel)
{
	struct lm_task *lt = &current->lockmeter;
	struct lm_task_held h;
	unsigned long flags;
	u64 hold, offcpu;
	struct lm_stat *s;
	struct lm_cpu *c;
	int i;

	if (!lm_sleep_gate())
		return;
	c = lm_enter(&flags);
	if (!c)
		return;
	for (i = (int)lt->depth - 1; i >= 0; i--)
		if (lt->held[i].lock == (unsigned long)lock && lt->held[i].type == type)
			break;
	if (i >= 0 && lt->held[i].epoch != READ_ONCE(lm_epoch)) {
		/* taken in an earlier metering period: stale, as are its elders */
		lm_task_purge(lt, READ_ONCE(lm_epoch));
		i = -1;
	}
	if (i < 0) {
		/* never seen acquired, or released by a task that is not the owner */
		c->loss.unmatched++;
		goto out;
	}
	h = lt->held[i];
	lm_task_remove(lt, i);

	hold = lm_delta(h.t_acq, rel->t);
	offcpu = min(lm_delta(h.offcpu_acq, rel->offcpu), hold);
	s = lm_slot(c, h.lock, h.site, type);
	lm_charge(s, h.waited, h.wait, hold);
	s->oncpu_total += hold - offcpu;
	s->oncpu_max = max(s->oncpu_max, hold - offcpu);
	s->blocked_total += offcpu;
	s->blocked_max = max(s->blocked_max, offcpu);
out:
	lm_exit(c, flags);
}

NOKPROBE_SYMBOL(lm_sleep_release);

/* Sleeping locks the current task holds, as lockmeter sees them. */
int lockmeter_current_held(void)
{
	return current->lockmeter.depth;
}
EXPORT_SYMBOL_GPL(lockmeter_current_held);

/* ---- control: process context only ---- */

struct lm_each {
	void (*fn)(struct lm_cpu *c, void *arg);
	void *arg;
};

static void lm_each_ipi(void *data)
{
	struct lm_each *e = data;

	e->fn(this_cpu_ptr(&lm_cpu), e->arg);
}

/*
 * Run @fn on every possible CPU's state with no update racing it: on
 * online CPUs in an IPI (interrupts off), on offline ones directly, with
 * CPU hotplug held off so that none comes or goes meanwhile.
 */
static void lm_for_every_cpu(void (*fn)(struct lm_cpu *c, void *arg), void *arg)
{
	struct lm_each e = { .fn = fn, .arg = arg };
	unsigned int cpu;

	cpus_read_lock();
	on_each_cpu(lm_each_ipi, &e, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			fn(per_cpu_ptr(&lm_cpu, cpu), arg);
	cpus_read_unlock();
}

static void lm_clear_held(struct lm_cpu *c, void *unused)
{
	c->depth = 0;
}

static void lm_reset_one(struct lm_cpu *c, void *unused)
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

static void lm_gone_free(void);

static void __lockmeter_on(void)
{
	if (lm_on)
		return;
	/*
	 * Not live: nothing records.  Drop what releases that raced the last
	 * "off" left behind, on every CPU (one that was offline then may be
	 * back), switch every site on, then go live (see lm_live).  Holds
	 * that began before are not metered; their releases count as
	 * unmatched.
	 */
	lm_for_every_cpu(lm_clear_held, NULL);
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
		/* the period starts before the first table is emptied */
		lm_t_on = local_clock();
		lm_metered = 0;
		lm_for_every_cpu(lm_reset_one, NULL);
		/* no row names an unloaded module's symbol any more */
		lm_gone_free();
		lm_resets++;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* ---- modules that go away ---- */

/*
 * A lock in a module's data, or a site in its text, is keyed by address,
 * and the address is named by kallsyms at read time.  When the module
 * goes, its rows stay until the next reset, but kallsyms can no longer
 * name their addresses, and a module loaded later may reuse them.  So
 * when a module goes, each of its addresses in a row is replaced by a
 * pointer to a copy of its name (struct lm_gone), and the row is marked
 * LM_GONE_LOCK and/or LM_GONE_SITE: such a key never equals a live one,
 * and the names stay right.  The copies are freed at reset, which empties
 * every row first.  All of it runs under lm_ctl_mutex, as do snapshots,
 * which copy the names they need.
 */
struct lm_gone {
	struct list_head list;
	unsigned long addr;
	bool site;
	char name[];
};

static LIST_HEAD(lm_gone_list);
static unsigned int lm_gone_nr;
/* for addresses the module had no name copied for: allocation failed */
static struct lm_gone lm_gone_unknown = {
	.list = LIST_HEAD_INIT(lm_gone_unknown.list),
};

static const char lm_gone_unknown_name[] = "[unloaded module]";

#define LM_GONE_MAX	8192	/* names kept at most, until a reset */

struct lm_mod_range {
	struct module *mod;
	struct lm_gone **map;	/* sorted by (addr, site) */
	unsigned int nr;
	unsigned int cap;
	struct {
		struct lm_names names;
		char buf[LM_NAME_LEN];
	} *scratch;
};

#ifdef CONFIG_MODULES
static bool lm_mod_has(const struct module *mod, unsigned long addr)
{
	for_each_mod_mem_type(t) {
		unsigned long base = (unsigned long)mod->mem[t].base;

		if (base && addr >= base && addr < base + mod->mem[t].size)
			return true;
	}
	return false;
}

static int lm_gone_cmp(unsigned long addr, bool site, const struct lm_gone *g)
{
	if (addr != g->addr)
		return addr < g->addr ? -1 : 1;
	if (site != g->site)
		return site ? 1 : -1;
	return 0;
}

/* The name copy for @addr in @r; lm_gone_unknown if there is none. */
static struct lm_gone *lm_gone_find(const struct lm_mod_range *r,
				    unsigned long addr, bool site)
{
	unsigned int lo = 0, hi = r->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		int c = lm_gone_cmp(addr, site, r->map[mid]);

		if (!c)
			return r->map[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return &lm_gone_unknown;
}

/* Copy the name of @addr (a lock, or a site with @site) into @r. */
static void lm_gone_add(struct lm_mod_range *r, unsigned long addr, bool site)
{
	char *buf = r->scratch->buf;
	struct lm_gone *g;
	unsigned int i;

	if (lm_gone_find(r, addr, site) != &lm_gone_unknown)
		return;
	if (r->nr == r->cap || lm_gone_nr >= LM_GONE_MAX)
		return;
	lm_addr_name(&r->scratch->names, addr, site, buf, LM_NAME_LEN);
	g = kmalloc(struct_size(g, name, strlen(buf) + 1), GFP_KERNEL);
	if (!g)
		return;
	g->addr = addr;
	g->site = site;
	memcpy(g->name, buf, strlen(buf) + 1);
	list_add(&g->list, &lm_gone_list);
	lm_gone_nr++;
	for (i = r->nr; i > 0 && lm_gone_cmp(addr, site, r->map[i - 1]) < 0; i--)
		r->map[i] = r->map[i - 1];
	r->map[i] = g;
	r->nr++;
}

/* Is @s a live row with an address in @mod: its lock, or its site? */
static bool lm_row_in_mod(const struct lm_stat *s, const struct module *mod,
			  bool *lock, bool *site)
{
	u32 class = READ_ONCE(s->key.class);

	*lock = lm_class(class) == LM_STATIC && !(class & LM_GONE_LOCK) &&
		lm_mod_has(mod, s->key.lock);
	*site = lm_class(class) != LM_OVERFLOW && !(class & LM_GONE_SITE) &&
		lm_mod_has(mod, s->key.site);
	return *lock || *site;
}

/* Collect the names of @c's addresses in the module; may sleep. */
static void lm_gone_collect(struct lm_cpu *c, struct lm_mod_range *r)
{
	unsigned int i;
	bool lock, site;

	for (i = 0; c->table.slot && i < (1U << c->table.bits); i++) {
		struct lm_stat *s = &c->table.slot[i];

		if (!READ_ONCE(s->key.type))
			continue;
		/* pairs with smp_wmb() in lm_table_get() */
		smp_rmb();
		if (!lm_row_in_mod(s, r->mod, &lock, &site))
			continue;
		if (lock)
			lm_gone_add(r, s->key.lock, false);
		if (site)
			lm_gone_add(r, s->key.site, true);
		cond_resched();
	}
}

/* On each CPU, with no update racing: point the module's rows at names. */
static void lm_gone_retire(struct lm_cpu *c, void *arg)
{
	struct lm_mod_range *r = arg;
	bool lock, site;
	unsigned int i;

	for (i = 0; c->table.slot && i < (1U << c->table.bits); i++) {
		struct lm_stat *s = &c->table.slot[i];

		if (!s->key.type || !lm_row_in_mod(s, r->mod, &lock, &site))
			continue;
		if (lock) {
			s->key.lock = (unsigned long)lm_gone_find(r, s->key.lock, false);
			s->key.class |= LM_GONE_LOCK;
		}
		if (site) {
			s->key.site = (unsigned long)lm_gone_find(r, s->key.site, true);
			s->key.class |= LM_GONE_SITE;
		}
	}
}

static void lm_module_going(struct module *mod)
{
	struct lm_mod_range r = { .mod = mod, .cap = 1024 };
	unsigned int cpu;

	/* without memory, the rows are still retired, as "[unloaded module]" */
	r.map = kvmalloc_array(r.cap, sizeof(*r.map), GFP_KERNEL);
	r.scratch = kzalloc(sizeof(*r.scratch), GFP_KERNEL);
	if (!r.map || !r.scratch)
		r.cap = 0;

	mutex_lock(&lm_ctl_mutex);
	for_each_possible_cpu(cpu)
		lm_gone_collect(per_cpu_ptr(&lm_cpu, cpu), &r);
	lm_for_every_cpu(lm_gone_retire, &r);
	mutex_unlock(&lm_ctl_mutex);
	kfree(r.scratch);
	kvfree(r.map);
}

static int lm_module_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	if (action == MODULE_STATE_GOING)
		lm_module_going(data);
	return NOTIFY_OK;
}

static struct notifier_block lm_module_nb = {
	.notifier_call = lm_module_notify,
};
#endif /* CONFIG_MODULES */

static void lm_gone_free(void)
{
	struct lm_gone *g, *tmp;

	lockdep_assert_held(&lm_ctl_mutex);
	list_for_each_entry_safe(g, tmp, &lm_gone_list, list) {
		list_del(&g->list);
		kfree(g);
	}
	lm_gone_nr = 0;
}

/* The name a retired address was given when its module went. */
static const char *lm_gone_name(unsigned long gone)
{
	const struct lm_gone *g = (const struct lm_gone *)gone;

	return g == &lm_gone_unknown ? lm_gone_unknown_name : g->name;
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

/*
 * Append @pc's non-empty rows to @rows[@n..@cap); returns the new @n and
 * adds the rows that did not fit to @missed.
 */
static size_t lm_copy_cpu(struct lm_cpu *pc, struct lm_stat *rows, size_t n,
			  size_t cap, u64 *missed)
{
	struct lm_table *tb = &pc->table;
	unsigned int i, t;

	for (t = LM_NONE + 1; t < LM_NR_TYPES; t++) {
		if (lm_stat_empty(&pc->overflow[t]))
			continue;
		if (n == cap) {
			(*missed)++;
			continue;
		}
		lm_copy_stat(&rows[n], &pc->overflow[t]);
		n++;
	}
	for (i = 0; tb->slot && i < (1U << tb->bits); i++) {
		if (!READ_ONCE(tb->slot[i].key.type))
			continue;
		if (n == cap) {
			(*missed) += !lm_stat_empty(&tb->slot[i]);
			continue;
		}
		lm_copy_stat(&rows[n], &tb->slot[i]);
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
			cap += READ_ONCE(per_cpu(lm_cpu, c).table.used) + LM_NR_TYPES + 32;
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
			n = lm_copy_cpu(per_cpu_ptr(&lm_cpu, c), snap->rows, n, cap,
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
	unsigned int c;
	int ret = 0;

	memset(snap, 0, sizeof(*snap));
	guard(mutex)(&lm_ctl_mutex);
	for_each_possible_cpu(c) {
		struct lm_cpu *pc = per_cpu_ptr(&lm_cpu, c);

		if (cpu >= 0 && c != cpu)
			continue;
		snap->loss.dropped += READ_ONCE(pc->loss.dropped);
		snap->loss.unmatched += READ_ONCE(pc->loss.unmatched);
		snap->loss.recursion += READ_ONCE(pc->loss.recursion);
		snap->loss.table_full += READ_ONCE(pc->loss.table_full);
		snap->loss.evicted += READ_ONCE(pc->loss.evicted);
		snap->loss.irqctx += READ_ONCE(pc->loss.irqctx);
		snap->slots_used = max(snap->slots_used, READ_ONCE(pc->table.used));
	}
	snap->slots_per_cpu = 1U << CONFIG_LOCKMETER_TABLE_BITS;
	if (rows)
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

/* ---- setup ---- */

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
	lm_for_every_cpu(lm_reset_one, NULL);
#ifdef CONFIG_MODULES
	register_module_notifier(&lm_module_nb);
#endif
	if (lm_boot_on)
		lockmeter_control(LM_CTL_ON);
	return 0;
}
early_initcall(lockmeter_init);
