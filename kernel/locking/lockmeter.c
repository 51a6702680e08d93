// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: per-call-site hold and wait times of kernel locks.
 *
 * Design
 *   The spinning lock operations branch, behind the static key
 *   lockmeter_key, to metered variants (lockmeter_spin.c, the hot path)
 *   that take the lock trylock-first to detect contention, keep the locks
 *   each CPU holds on a small per-CPU stack, and charge each hold to its
 *   CPU's counters of the row its key has in the key directory, shared
 *   by all CPUs (struct lm_dir in lockmeter.h).  The sleeping locks
 *   call hooks in place (<linux/lockmeter.h>); their records live with
 *   the task (lockmeter_sleep.c), so that a hold can be split into time
 *   on a CPU and time blocked.
 *
 *   This file is control: switching on and off, reset, the memory
 *   allocated when metering is first switched on, and the rows of
 *   modules that go away.  Snapshots for readers are in
 *   lockmeter_snapshot.c, names in lockmeter_names.c, the interfaces in
 *   lockmeter_proc.c and lockmeter_nl.c.
 *
 *   Nothing on the lock path allocates, sleeps, prints or takes a lock.
 *   NMIs are not metered.  Losses are counted, never silent: dropped
 *   (held stack full), unmatched (release of a lock whose acquire was not
 *   seen, normal right after switching on, or by a task that is not the
 *   owner), table_full (no row: the event goes to the overflow row),
 *   evicted (a task's records were full: its oldest was dropped), irqctx
 *   (a sleeping-lock operation outside task context, or a read trylock
 *   of an rw_semaphore with interrupts off), notask (a task older than
 *   the record cache found the pool empty).
 *
 * Overhead
 *   Off: one NOP per lock operation, the unlock operations staying
 *   inlined as without lockmeter.  On: two reads of the clock (the TSC
 *   where it can be trusted) per acquire/release pair, a push and a pop,
 *   and one cached row update; see Documentation/locking/lockmeter.rst
 *   for the instruction counts.  Memory: nothing until metering is first
 *   switched on, then the key directory once (CONFIG_LOCKMETER_KEYS,
 *   lockmeter.keys=) and for each CPU online then or later its state and
 *   the chunks of rows it has used, all within lockmeter.mem_pct= of RAM
 *   and given back by "release".  Per task: a pointer in task_struct, and
 *   while metering has been on a block (its state and
 *   CONFIG_LOCKMETER_TASK_DEPTH records) from a kmem_cache, allocated at
 *   fork (lockmeter_sleep.c).
 *
 * Output
 *   /proc/lockmeter (lockmeter_proc.c), the "lockmeter" generic netlink
 *   family (lockmeter_nl.c); Documentation/locking/lockmeter.rst.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/lockmeter.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "lockmeter.h"

DEFINE_STATIC_KEY_FALSE(lockmeter_key);
/* unlocks stay inlined, in modules too: they test the key themselves */
EXPORT_SYMBOL(lockmeter_key);

/* Control state, serialised by lm_ctl_mutex. */
DEFINE_MUTEX(lm_ctl_mutex);
bool lm_on;
/*
 * Bumped whenever control changes the rows' keys or memory (reset,
 * resize, release, a module's rows retired): a snapshot that let the
 * mutex go meanwhile begins again.
 */
unsigned long lm_gen;
/*
 * The static key flips site by site, so while it flips some lock
 * operations are metered and others not: a lock taken through a site
 * already on and released through one still off would leave its record
 * behind, and a later metered release of that lock would charge a hold
 * as long as the time since.  So nothing is recorded or charged unless
 * live: lm_live_cpu, the hot paths' pointer to each CPU's state, is set
 * only once every site is on and cleared before any is switched off, so
 * records are made and used only while all sites meter.  (A spinning
 * lock is released on the CPU that took it, so that CPU's pointer alone
 * decides; a sleeping lock taken on a CPU that went live a moment before
 * the one it is released on leaves a record that only ages out.)
 * Records left by releases that raced going dead are dropped before the
 * next "on": per-CPU stacks by clearing them, task records by the epoch,
 * bumped by every "on", since a record of an earlier epoch never
 * matches.
 */
u32 lm_epoch;
u64 lm_t_on;		/* local_clock() when last switched on */
u64 lm_metered;		/* ns metered before lm_t_on since reset */
u64 lm_resets;		/* resets since boot: readers tell intervals apart */
static bool lm_boot_on __initdata;
/*
 * lockmeter=pinned: on from boot, and the static key is never switched
 * off again, so that "off" and "on" only close and open the per-CPU
 * gates (lm_go_live()) and patch no kernel text.  Metering switched off
 * then costs every lock operation the metered entry and the gate's
 * per-CPU load; in exchange a flip stops no CPU, and text patching is
 * avoided where it cannot be trusted (QEMU's multi-threaded TCG, see
 * Documentation/locking/lockmeter.rst).
 */
static bool lm_pinned __ro_after_init;

/*
 * The key directory (lockmeter.h), and the rows it is to have when next
 * allocated: CONFIG_LOCKMETER_KEYS, lockmeter.keys=, or "keys N" while
 * off.
 */
struct lm_dir lm_dir;
static unsigned int lm_keys = CONFIG_LOCKMETER_KEYS;

/* ---- control: process context only ---- */

/*
 * The per-CPU state exists (lm_alloc()), until a release; CPUs that have
 * it, and the bytes of their rows' chunks, spares included.  Set under
 * lm_ctl_mutex and with CPU hotplug held off (cpus_read_lock()), so that
 * lm_cpu_prepare() sees them settled.
 */
static bool lm_allocated;
static unsigned int lm_nr_cpus;
static atomic_long_t lm_rows_bytes;
/* the hot paths are pointed at the per-CPU state (lm_go_live()) */
static bool lm_live;

/*
 * The spare chunks are filled by lm_refill_work and freed by control;
 * this keeps the two apart.  Taken with CPU hotplug held off, or by the
 * work alone: the work itself never holds off hotplug.
 */
static DEFINE_MUTEX(lm_spares_mutex);

/* Share of RAM, in percent, that metering may take: lockmeter.mem_pct=. */
static unsigned int lm_mem_pct = 25;

/*
 * What lockmeter_init() left: 0 once it set up what metering needs (the
 * cache of task blocks, the per-CPU areas for classification), else the
 * error that stopped it, and "on" fails with it: no fork may allocate
 * from a cache that was never made.
 */
VISIBLE_IF_KUNIT int lm_setup_err = -ENODEV;
EXPORT_SYMBOL_IF_KUNIT(lm_setup_err);

struct lm_each {
	void (*fn)(struct lm_cpu *c, void *arg);
	void *arg;
};

static void lm_each_ipi(void *data)
{
	struct lm_cpu *c = this_cpu_read(lm_cpus);
	struct lm_each *e = data;

	if (c)
		e->fn(c, e->arg);
}

/*
 * Run @fn on every CPU's state with no update racing it: on online CPUs
 * in an IPI (interrupts off), on offline ones directly, with CPU hotplug
 * held off so that none comes or goes meanwhile.  Nothing to do before
 * the state is allocated.
 */
void lm_for_every_cpu(void (*fn)(struct lm_cpu *c, void *arg), void *arg)
{
	struct lm_each e = { .fn = fn, .arg = arg };
	unsigned int cpu;

	if (!lm_allocated)
		return;
	cpus_read_lock();
	on_each_cpu(lm_each_ipi, &e, 1);
	for_each_possible_cpu(cpu) {
		struct lm_cpu *c = per_cpu(lm_cpus, cpu);

		if (c && !cpu_online(cpu))
			fn(c, arg);
	}
	cpus_read_unlock();
}

static void lm_clear_held(struct lm_cpu *c, void *unused)
{
	c->top = &c->held[1];
}

/* Forget every (lock, site) -> row of @c; the rows may change meaning. */
static void lm_clear_cache(struct lm_cpu *c)
{
	memset(c->cache, 0, sizeof(c->cache));
}

static size_t lm_chunk_bytes(void)
{
	return LM_CHUNK_ROWS * sizeof(struct lm_slot);
}

/* Empty the rows of a chunk, rows @base on. */
static void lm_rows_clear(struct lm_slot *rows, u32 base)
{
	unsigned int i;

	memset(rows, 0, lm_chunk_bytes());
	for (i = 0; i < LM_CHUNK_ROWS; i++)
		lm_slot_init(&rows[i], base + i);
}

/* Free the chunks of @c's rows (not its spares); may sleep. */
static void lm_chunks_free(struct lm_cpu *c)
{
	unsigned int i;

	for (i = 0; i < c->nr_chunks; i++) {
		if (!c->chunk[i])
			continue;
		kvfree(c->chunk[i]);
		c->chunk[i] = NULL;
		atomic_long_sub(lm_chunk_bytes(), &lm_rows_bytes);
	}
}

/* Empty the directory: no key, no evidence, every id free again; may sleep. */
static void lm_dir_clear(struct lm_dir *d)
{
	memset(d->index, 0, array_size(d->index_mask + 1, sizeof(*d->index)));
	cond_resched();
	memset(d->key, 0, array_size(d->nr, sizeof(*d->key)));
	cond_resched();
	memset(d->ev, 0, array_size(d->nr, sizeof(*d->ev)));
	atomic_set(&d->used, 0);
}

/*
 * Free every chain of @c's store, each a generation on: a reference taken
 * before never names a chain taken after (lm_stack_read()).  The
 * evidence the entries belonged to may be freed next (a resize).
 */
void lm_stacks_clear(struct lm_cpu *c)
{
	unsigned int i;

	for (i = 0; i < LM_STACKS; i++) {
		struct lm_stack *st = &c->stacks[i];

		st->ev = NULL;
		st->nr = 0;
		WRITE_ONCE(st->seq, (st->seq | 1) + 1);
	}
	c->stack_hand = 0;
}
EXPORT_SYMBOL_IF_KUNIT(lm_stacks_clear);

/* The per-CPU state but the rows, on its CPU (or with it offline). */
static void lm_reset_one(struct lm_cpu *c, void *unused)
{
	unsigned int t;

	lm_stacks_clear(c);
#ifdef CONFIG_LOCKMETER_HIST
	memset(c->spill, 0, sizeof(c->spill));
	c->nr_spill = 0;
#endif
	c->captures = 0;
	lm_clear_held(c, NULL);
	lm_clear_cache(c);
	c->fills = 0;
	memset(c->overflow, 0, sizeof(c->overflow));
	memset(c->ovf, 0, sizeof(c->ovf));
	for (t = 0; t < LM_NR_TYPES; t++)
		lm_slot_init(&c->overflow[t], LM_ROW_NONE);
	memset(&c->loss, 0, sizeof(c->loss));
}

/*
 * Point the hot paths at each CPU's state, or at nothing; a CPU that
 * comes online meanwhile follows (lm_cpu_prepare()).
 */
static void lm_go_live(bool live)
{
	unsigned int cpu;

	cpus_read_lock();
	lm_live = live;
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu(lm_live_cpu, cpu), live ? per_cpu(lm_cpus, cpu) : NULL);
	cpus_read_unlock();
}

/*
 * Take every CPU out of the hot paths: none is live, and none is still
 * in a section that found it live (they run with interrupts or at least
 * preemption off, so an RCU grace period waits for them).  A lock taken
 * before and released meanwhile leaves its record: the caller clears
 * the held stacks and bumps the epoch before going live again.
 */
static void lm_quiesce(void)
{
	lm_go_live(false);
	synchronize_rcu();
}

static void lm_dir_free(struct lm_dir *d)
{
	vfree(d->key);
	vfree(d->ev);
	vfree(d->index);
	memset(d, 0, sizeof(*d));
}

/* A directory of @nr rows (lm_keys_valid()), empty; all or nothing. */
static int lm_dir_alloc(struct lm_dir *d, unsigned int nr)
{
	unsigned int entries = roundup_pow_of_two(2 * nr);

	memset(d, 0, sizeof(*d));
	d->key = vzalloc(array_size(nr, sizeof(*d->key)));
	d->ev = vzalloc(array_size(nr, sizeof(*d->ev)));
	d->index = vzalloc(array_size(entries, sizeof(*d->index)));
	if (!d->key || !d->ev || !d->index) {
		lm_dir_free(d);
		return -ENOMEM;
	}
	d->nr = nr;
	d->index_mask = entries - 1;
	return 0;
}

/*
 * Bytes of a directory of @nr rows, and of one CPU's state for it
 * without the rows: their chunks come as the CPU uses them.
 */
static unsigned long lm_dir_bytes(unsigned int nr)
{
	return nr * (sizeof(struct lm_key) + sizeof(struct lm_evidence)) +
	       roundup_pow_of_two(2 * nr) * sizeof(u32);
}

static unsigned long lm_cpu_bytes(unsigned int nr)
{
	return sizeof(struct lm_cpu) + DIV_ROUND_UP(nr, LM_CHUNK_ROWS) * sizeof(void *);
}

static bool lm_keys_valid(unsigned long nr)
{
	return nr >= LM_KEYS_MIN && nr <= LM_KEYS_MAX;
}

/* The most metering may allocate: lm_mem_pct of RAM. */
static unsigned long lm_mem_cap(void)
{
	return totalram_pages() / 100 * lm_mem_pct * PAGE_SIZE;
}

/* What metering has allocated: CPUs' state and rows, directory. */
static unsigned long lm_mem_now(void)
{
	if (!lm_allocated)
		return 0;
	return READ_ONCE(lm_nr_cpus) * lm_cpu_bytes(lm_dir.nr) +
	       atomic_long_read(&lm_rows_bytes) + lm_dir_bytes(lm_dir.nr);
}

/*
 * Top up the spares of @c to LM_SPARES chunks, allocated with @gfp on
 * @node, within the cap; false if an allocation failed.  Past the cap,
 * @c stays asked and is not served again: its new keys go to the
 * overflow rows (table_full) until a reset, a resize or a release.
 * Without __GFP_DIRECT_RECLAIM, in the CPU's own irq_work: never
 * vmalloc() there.
 */
static bool lm_spares_add(struct lm_cpu *c, gfp_t gfp, int node)
{
	struct lm_spares *sp = &c->spares;
	size_t bytes = lm_chunk_bytes();
	struct lm_slot *chunk;

	while (atomic_read(&sp->nr) < LM_SPARES) {
		if (lm_mem_now() + bytes > lm_mem_cap())
			return true;
		if (gfpflags_allow_blocking(gfp))
			chunk = kvmalloc_node(bytes, gfp, node);
		else
			chunk = kmalloc_node(bytes, gfp, node);
		if (!chunk)
			return false;
		lm_rows_clear(chunk, 0);
		atomic_long_add(bytes, &lm_rows_bytes);
		/* a full barrier: the rows cleared before the chunk is seen */
		llist_add((struct llist_node *)chunk, &sp->list);
		atomic_inc(&sp->nr);
	}
	WRITE_ONCE(sp->asked, false);
	return true;
}

/* The spares of every CPU that asked and was not served in its irq_work. */
static void lm_refill(struct work_struct *work)
{
	unsigned int cpu;

	guard(mutex)(&lm_spares_mutex);
	for_each_possible_cpu(cpu) {
		struct lm_cpu *c = READ_ONCE(per_cpu(lm_cpus, cpu));

		if (c && READ_ONCE(c->spares.asked))
			lm_spares_add(c, GFP_KERNEL, cpu_to_node(cpu));
		cond_resched();
	}
}

static DECLARE_WORK(lm_refill_work, lm_refill);

/*
 * A CPU's ask for spares (lm_row_new()), on that CPU once its lock
 * operation is over: in hard interrupt context on most kernels, in the
 * irq_work thread on PREEMPT_RT.  A CPU busy taking new keys in a
 * section that lets no work run still gets its spares here; what cannot
 * be allocated without sleeping is left to lm_refill_work.
 */
static void lm_spares_kick(struct irq_work *w)
{
	struct lm_cpu *c = container_of(w, struct lm_cpu, spares.ask);

	if (!lm_spares_add(c, GFP_NOWAIT | __GFP_NOWARN, numa_node_id()))
		queue_work(system_unbound_wq, &lm_refill_work);
}

/*
 * The state of CPU @cpu for a directory of @nr rows, with its spares,
 * reset; NULL without memory.  Not published yet.
 */
static struct lm_cpu *lm_cpu_new(unsigned int cpu, unsigned int nr)
{
	struct lm_cpu *c = vzalloc_node(sizeof(*c), cpu_to_node(cpu));

	if (!c)
		return NULL;
	c->nr_chunks = DIV_ROUND_UP(nr, LM_CHUNK_ROWS);
	c->chunk = kvzalloc_node(array_size(c->nr_chunks, sizeof(*c->chunk)), GFP_KERNEL,
				 cpu_to_node(cpu));
	if (!c->chunk) {
		vfree(c);
		return NULL;
	}
	c->dir = &lm_dir;
	init_irq_work(&c->spares.ask, lm_spares_kick);
	init_llist_head(&c->spares.list);
	lm_reset_one(c, NULL);
	mutex_lock(&lm_spares_mutex);
	lm_spares_add(c, GFP_KERNEL, cpu_to_node(cpu));
	mutex_unlock(&lm_spares_mutex);
	return c;
}

/* Free @c, no longer published, with its rows and spares. */
static void lm_cpu_free(struct lm_cpu *c)
{
	struct llist_node *node, *next;

	irq_work_sync(&c->spares.ask);
	lm_chunks_free(c);
	llist_for_each_safe(node, next, llist_del_all(&c->spares.list)) {
		kvfree(node);
		atomic_long_sub(lm_chunk_bytes(), &lm_rows_bytes);
	}
	kvfree(c->chunk);
	vfree(c);
}

/* Unpublish and free every CPU's state; CPU hotplug held off. */
static void lm_cpus_free(void)
{
	unsigned int cpu;

	lockdep_assert_cpus_held();
	guard(mutex)(&lm_spares_mutex);
	for_each_possible_cpu(cpu) {
		struct lm_cpu *c = per_cpu(lm_cpus, cpu);

		if (!c)
			continue;
		WRITE_ONCE(per_cpu(lm_cpus, cpu), NULL);
		lm_cpu_free(c);
	}
	lm_nr_cpus = 0;
}

/*
 * A CPU is coming online (CPU hotplug's prepare step, on another CPU):
 * once metering has its memory, the CPU gets its state, and is metered
 * at once if metering is live.  Without memory it runs unmetered, and
 * says so: failing here would keep the CPU offline.
 */
static int lm_cpu_prepare(unsigned int cpu)
{
	struct lm_cpu *c;

	if (!lm_allocated || per_cpu(lm_cpus, cpu))
		return 0;
	c = lm_cpu_new(cpu, lm_dir.nr);
	if (!c) {
		pr_warn("lockmeter: no memory for CPU %u's state: it is not metered\n", cpu);
		return 0;
	}
	WRITE_ONCE(per_cpu(lm_cpus, cpu), c);
	WRITE_ONCE(lm_nr_cpus, lm_nr_cpus + 1);
	if (lm_live)
		WRITE_ONCE(per_cpu(lm_live_cpu, cpu), c);
	return 0;
}

/*
 * Allocate what metering needs, on the first "on" (and the first after a
 * release): the key directory, and each online CPU's state (on its
 * node) with a few spare chunks of rows; CPUs that come online later get
 * theirs then (lm_cpu_prepare()).  Refused if it would pass the cap.
 * All or nothing.
 */
static int lm_alloc(void)
{
	unsigned long need;
	unsigned int cpu;
	int ret;

	if (lm_allocated)
		return 0;
	need = lm_dir_bytes(lm_keys) +
	       num_online_cpus() * (lm_cpu_bytes(lm_keys) + LM_SPARES * lm_chunk_bytes());
	if (need > lm_mem_cap()) {
		pr_warn("lockmeter: on refused: %lu KiB needed, more than lockmeter.mem_pct=%u%% of RAM (%lu KiB)\n",
			need >> 10, lm_mem_pct, lm_mem_cap() >> 10);
		return -ENOMEM;
	}
	ret = lm_dir_alloc(&lm_dir, lm_keys);
	if (ret)
		return ret;
	lm_clock_init();
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct lm_cpu *c = lm_cpu_new(cpu, lm_keys);

		if (!c) {
			/* nothing meters yet, and readers wait for lm_ctl_mutex */
			lm_cpus_free();
			cpus_read_unlock();
			lm_dir_free(&lm_dir);
			return -ENOMEM;
		}
		per_cpu(lm_cpus, cpu) = c;
		lm_nr_cpus++;
	}
	lm_allocated = true;
	cpus_read_unlock();
	return 0;
}

/*
 * A directory of @nr rows, while off: allocated anew (with every CPU's
 * table of chunks) before the old one goes, so that a failure changes
 * nothing.  The rows are emptied, as by a reset, and their chunks
 * freed.  Before the first "on", only the size to allocate then changes.
 */
static int lm_resize(unsigned long nr)
{
	struct lm_slot ***tables;
	struct lm_dir old, d;
	unsigned int cpu;
	int ret = -ENOMEM;

	if (!lm_keys_valid(nr))
		return -ERANGE;
	if (lm_on)
		return -EBUSY;
	if (!lm_allocated || nr == lm_dir.nr) {
		lm_keys = nr;
		return 0;
	}
	if (lm_dir_bytes(nr) + lm_nr_cpus * lm_cpu_bytes(nr) > lm_mem_cap())
		return -ENOMEM;
	tables = kcalloc(nr_cpu_ids, sizeof(*tables), GFP_KERNEL);
	if (!tables)
		return -ENOMEM;
	if (lm_dir_alloc(&d, nr))
		goto out;
	/* off, but a release that found us live may still be counting */
	lm_quiesce();
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (!per_cpu(lm_cpus, cpu))
			continue;
		tables[cpu] = kvzalloc_node(array_size(DIV_ROUND_UP(nr, LM_CHUNK_ROWS),
						       sizeof(**tables)),
					    GFP_KERNEL, cpu_to_node(cpu));
		if (!tables[cpu]) {
			cpus_read_unlock();
			lm_dir_free(&d);
			goto out;
		}
	}
	old = lm_dir;
	lm_dir = d;
	mutex_lock(&lm_spares_mutex);
	for_each_possible_cpu(cpu) {
		struct lm_cpu *c = per_cpu(lm_cpus, cpu);

		if (!c)
			continue;
		lm_chunks_free(c);
		swap(c->chunk, tables[cpu]);
		c->nr_chunks = DIV_ROUND_UP(nr, LM_CHUNK_ROWS);
		/* the cap may have stopped its refills */
		if (READ_ONCE(c->spares.asked))
			lm_spares_add(c, GFP_KERNEL, cpu_to_node(cpu));
	}
	mutex_unlock(&lm_spares_mutex);
	cpus_read_unlock();
	lm_for_every_cpu(lm_reset_one, NULL);
	/* the alerts' counters and queues go with the loss counters */
	lm_watch_reset();
	lm_metered = 0;
	lm_resets++;
	lm_gen++;
	lm_keys = nr;
	lm_dir_free(&old);
	ret = 0;
out:
	for_each_possible_cpu(cpu)
		kvfree(tables[cpu]);
	kfree(tables);
	return ret;
}

/*
 * The rows of the directory (to be allocated, before the first "on"),
 * and into @snap the memory metering takes: per CPU with state, over
 * all CPUs with the directory (0 before the first "on"), of the
 * directory and of the rows, and the cap.
 */
unsigned int lm_mem(struct lm_snapshot *snap)
{
	unsigned int nr = lm_allocated ? lm_dir.nr : lm_keys;
	unsigned long rows = atomic_long_read(&lm_rows_bytes);

	snap->mem_keys = lm_dir_bytes(nr);
	snap->mem_rows = rows;
	snap->mem_cap = lm_mem_cap();
	snap->mem_cpus = lm_allocated ? READ_ONCE(lm_nr_cpus) : 0;
	snap->mem_percpu = lm_cpu_bytes(nr);
	snap->mem_tables = 0;
	if (snap->mem_cpus) {
		snap->mem_percpu += rows / snap->mem_cpus;
		snap->mem_tables = lm_mem_now();
	}
	return nr;
}

static void lm_gone_free(void);
static void lm_init_texts_free(void);

static int __lockmeter_on(void)
{
	int ret;

	if (lm_setup_err)
		return lm_setup_err;
	if (lm_on)
		return 0;
	ret = lm_alloc();
	if (ret)
		return ret;
	/* every task gets its records (lockmeter_sleep.c) */
	lm_task_blocks_give();
	/*
	 * Not live: nothing records.  Drop what releases that raced the last
	 * "off" left behind, on every CPU (one that was offline then may be
	 * back), switch every site on, then go live (see lm_live_cpu).  Holds
	 * that began before are not metered; their releases count as
	 * unmatched.
	 */
	lm_for_every_cpu(lm_clear_held, NULL);
	/* the clock of the holds is chosen by now: thresholds in its ticks */
	lm_watch_recalc();
	WRITE_ONCE(lm_epoch, lm_epoch + 1);
	static_branch_enable(&lockmeter_key);
	lm_t_on = local_clock();
	lm_go_live(true);
	lm_on = true;
	return 0;
}

static void __lockmeter_off(void)
{
	if (!lm_on)
		return;
	lm_go_live(false);
	lm_metered += local_clock() - lm_t_on;
	if (!lm_pinned)
		static_branch_disable(&lockmeter_key);
	lm_on = false;
}

/*
 * Empty every row and the directory: with every CPU out of the hot
 * paths, since the keys are shared.  Locks held across it are not
 * metered (their releases count as unmatched), as after "on".
 */
static void __lockmeter_reset(void)
{
	unsigned int cpu;

	/* off too: a release that found us live may still be counting */
	lm_quiesce();
	/* the period starts before the first row is emptied */
	lm_t_on = local_clock();
	lm_metered = 0;
	if (lm_allocated) {
		lm_dir_clear(&lm_dir);
		cpus_read_lock();
		for_each_possible_cpu(cpu) {
			struct lm_cpu *c = per_cpu(lm_cpus, cpu);

			if (!c)
				continue;
			/* the keys start again: so do the rows the CPUs use */
			lm_chunks_free(c);
			/* the cap may have stopped its refills */
			if (READ_ONCE(c->spares.asked))
				queue_work(system_unbound_wq, &lm_refill_work);
		}
		cpus_read_unlock();
	}
	lm_for_every_cpu(lm_reset_one, NULL);
	/* no row holds a time: the moment to give up a TSC found unstable */
	if (lm_allocated)
		lm_clock_recheck();
	lm_watch_reset();
	/* no row names an unloaded module's symbol any more */
	lm_gone_free();
	lm_init_texts_free();
	lm_resets++;
	lm_gen++;
	if (lm_on) {
		WRITE_ONCE(lm_epoch, lm_epoch + 1);
		lm_go_live(true);
	}
}

/*
 * Give back what metering allocated, while off: the rows, every CPU's
 * state and the directory; the statistics go with them, as in a reset.
 * Tasks keep their blocks until they exit; new ones get none until the
 * next "on".  The alert queues (lockstat watch) stay.
 */
static int __lockmeter_release(void)
{
	if (lm_on)
		return -EBUSY;
	if (!lm_allocated)
		return 0;
	__lockmeter_reset();
	cancel_work_sync(&lm_refill_work);
	cpus_read_lock();
	lm_cpus_free();
	lm_allocated = false;
	cpus_read_unlock();
	lm_dir_free(&lm_dir);
	lm_task_blocks_stop();
	lm_gen++;
	return 0;
}

/* Set the rows of the key directory: refused while on, or out of range. */
int lockmeter_set_keys(unsigned long nr)
{
	guard(mutex)(&lm_ctl_mutex);
	return lm_resize(nr);
}

int lockmeter_control(enum lm_ctl op)
{
	guard(mutex)(&lm_ctl_mutex);

	switch (op) {
	case LM_CTL_ON:
		return __lockmeter_on();
	case LM_CTL_OFF:
		__lockmeter_off();
		break;
	case LM_CTL_RESET:
		__lockmeter_reset();
		break;
	case LM_CTL_RELEASE:
		return __lockmeter_release();
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
/* for the cache of a slab row, destroyed (lm_slab_retire()) */
static struct lm_gone lm_gone_slab = {
	.list = LIST_HEAD_INIT(lm_gone_slab.list),
};

static const char lm_gone_slab_name[] = "[slab]";

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

/* Is @k a key with an address in @mod: its lock, or its site? */
static bool lm_key_in_mod(const struct lm_key *k, const struct module *mod,
			  bool *lock, bool *site)
{
	u32 class = READ_ONCE(k->class);

	*lock = false;
	*site = false;
	/* a key being claimed is a lock being taken: not the going module's */
	if (!READ_ONCE(k->type))
		return false;
	*lock = lm_class(class) == LM_STATIC && !(class & LM_GONE_LOCK) &&
		lm_mod_has(mod, k->lock);
	*site = k->site && !(class & LM_GONE_SITE) && lm_mod_has(mod, k->site);
	return *lock || *site;
}

/* Collect the names of @k's addresses in the module; may sleep. */
static void lm_gone_collect(const struct lm_key *k, struct lm_mod_range *r)
{
	bool lock, site;

	if (!lm_key_in_mod(k, r->mod, &lock, &site))
		return;
	if (lock)
		lm_gone_add(r, k->lock, false);
	if (site)
		lm_gone_add(r, k->site, true);
}

/*
 * Point @k's addresses in the module at their names.  A CPU may compare
 * the key meanwhile: whichever fields it sees changed, a name's address
 * is neither a site nor a static lock's, so the key equals no live one.
 */
static void lm_gone_key(struct lm_key *k, struct lm_mod_range *r)
{
	bool lock, site;

	if (!lm_key_in_mod(k, r->mod, &lock, &site))
		return;
	if (lock) {
		WRITE_ONCE(k->lock, (unsigned long)lm_gone_find(r, k->lock, false));
		WRITE_ONCE(k->class, k->class | LM_GONE_LOCK);
	}
	if (site) {
		WRITE_ONCE(k->site, (unsigned long)lm_gone_find(r, k->site, true));
		WRITE_ONCE(k->class, k->class | LM_GONE_SITE);
	}
}

/*
 * A slab row is keyed by its struct kmem_cache, which a module destroys
 * before it goes (the notifier runs after its exit function), and which a
 * cache created later may reuse.  A row of a cache no longer on the list
 * of caches (slab_mutex held) points at lm_gone_slab instead, and is
 * named "[slab]+0xoff" from then on.  The overflow rows' keys, only ever
 * names, are left: a reader finds their cache gone and says so the same
 * way, unless its memory is already another cache's.
 */
static void lm_slab_retire(struct lm_key *k)
{
	u32 class = READ_ONCE(k->class);

	if (!READ_ONCE(k->type) || lm_class(class) != LM_SLAB || (class & LM_GONE_LOCK) ||
	    lm_slab_live(k->lock))
		return;
	WRITE_ONCE(k->lock, (unsigned long)&lm_gone_slab);
	WRITE_ONCE(k->class, class | LM_GONE_LOCK);
}

/* The keys of the directory in use, in row order; NULL past the last. */
static struct lm_key *lm_dir_key(unsigned int id)
{
	struct lm_key *k;

	if (id >= min_t(unsigned int, atomic_read(&lm_dir.used), lm_dir.nr))
		return NULL;
	k = &lm_dir.key[id];
	/* pairs with smp_wmb() in lm_dir_get(): callers test the type first */
	smp_rmb();
	return k;
}

/* On each CPU, with no update racing: its overflow keys, and its cache. */
static void lm_gone_retire(struct lm_cpu *c, void *arg)
{
	struct lm_mod_range *r = arg;
	unsigned int t;

	/* the cache maps the module's addresses to rows: forget it */
	lm_clear_cache(c);
	for (t = 0; t < LM_NR_TYPES; t++) {
		lm_gone_key(&c->ovf[t].hold_key, r);
		lm_gone_key(&c->ovf[t].wait_key, r);
	}
}

static void lm_module_going(struct module *mod)
{
	struct lm_mod_range r = { .mod = mod, .cap = 1024 };
	unsigned int cpu, id, t;
	struct lm_key *k;

	/* without memory, the rows are still retired, as "[unloaded module]" */
	r.map = kvmalloc_array(r.cap, sizeof(*r.map), GFP_KERNEL);
	r.scratch = kzalloc(sizeof(*r.scratch), GFP_KERNEL);
	if (!r.map || !r.scratch)
		r.cap = 0;

	mutex_lock(&lm_ctl_mutex);
	if (lm_allocated) {
		lm_gen++;
		for (id = 0; (k = lm_dir_key(id)); id++) {
			lm_gone_collect(k, &r);
			if (!(id % 1024))
				cond_resched();
		}
		for_each_possible_cpu(cpu) {
			struct lm_cpu *c = per_cpu(lm_cpus, cpu);

			for (t = 0; c && t < LM_NR_TYPES; t++) {
				lm_gone_collect(&c->ovf[t].hold_key, &r);
				lm_gone_collect(&c->ovf[t].wait_key, &r);
			}
		}
		lm_slab_lock();
		for (id = 0; (k = lm_dir_key(id)); id++) {
			lm_gone_key(k, &r);
			lm_slab_retire(k);
			if (!(id % 1024))
				cond_resched();
		}
		lm_slab_unlock();
		lm_for_every_cpu(lm_gone_retire, &r);
	}
	mutex_unlock(&lm_ctl_mutex);
	kfree(r.scratch);
	kvfree(r.map);
}

/*
 * A module's init text is freed once the module is up, and kallsyms
 * forgets its symbols before: a site or a chain frame there would be
 * printed as a bare address.  When a module goes live (the notifier runs
 * before either), its init text's range is kept with the module's name,
 * and lm_addr_name() names an address kallsyms does not know that lies in
 * one "[init]+0xoff[module]".  Newest first, as module memory is reused;
 * at most LM_INIT_MAX, and none after a reset, which empties the rows and
 * chains that could hold such addresses.  Kept only once metering has
 * been on: before, no row or chain has an address.  Changed under
 * lm_ctl_mutex; read under RCU.
 */
struct lm_init_text {
	struct list_head list;
	struct rcu_head rcu;
	unsigned long base;
	unsigned long size;
	char mod[MODULE_NAME_LEN];
};

static LIST_HEAD(lm_init_texts);
static unsigned int lm_init_nr;

#define LM_INIT_MAX	256

static void lm_module_live(struct module *mod)
{
	unsigned long base, size;
	struct lm_init_text *it;

	lm_mod_init_text(mod, &base, &size);
	if (!base || !size)
		return;
	it = kmalloc(sizeof(*it), GFP_KERNEL);
	if (!it)
		return;
	it->base = base;
	it->size = size;
	strscpy(it->mod, mod->name, sizeof(it->mod));
	guard(mutex)(&lm_ctl_mutex);
	if (!lm_allocated) {
		kfree(it);
		return;
	}
	list_add_rcu(&it->list, &lm_init_texts);
	if (++lm_init_nr > LM_INIT_MAX) {
		it = list_last_entry(&lm_init_texts, struct lm_init_text, list);
		list_del_rcu(&it->list);
		kfree_rcu(it, rcu);
		lm_init_nr--;
	}
}

static void lm_init_texts_free(void)
{
	struct lm_init_text *it, *tmp;

	lockdep_assert_held(&lm_ctl_mutex);
	list_for_each_entry_safe(it, tmp, &lm_init_texts, list) {
		list_del_rcu(&it->list);
		kfree_rcu(it, rcu);
	}
	lm_init_nr = 0;
}

/* "[init]+0xoff[module]" into @buf if @addr was in a module's init text. */
bool lm_init_text_name(unsigned long addr, char *buf, size_t len)
{
	struct lm_init_text *it;
	bool found = false;

	rcu_read_lock();
	list_for_each_entry_rcu(it, &lm_init_texts, list) {
		if (addr - it->base < it->size) {
			snprintf(buf, len, "[init]+0x%lx[%s]", addr - it->base, it->mod);
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static int lm_module_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	if (action == MODULE_STATE_GOING)
		lm_module_going(data);
	else if (action == MODULE_STATE_LIVE)
		lm_module_live(data);
	return NOTIFY_OK;
}

static struct notifier_block lm_module_nb = {
	.notifier_call = lm_module_notify,
};
#else
static void lm_init_texts_free(void)
{
}

bool lm_init_text_name(unsigned long addr, char *buf, size_t len)
{
	return false;
}
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
const char *lm_gone_name(unsigned long gone)
{
	const struct lm_gone *g = (const struct lm_gone *)gone;

	if (g == &lm_gone_slab)
		return lm_gone_slab_name;
	return g == &lm_gone_unknown ? lm_gone_unknown_name : g->name;
}

/* ---- setup ---- */

static int __init lockmeter_setup(char *str)
{
	if (!str)
		return -EINVAL;
	if (!strcmp(str, "pinned"))
		lm_pinned = true;
	else if (strcmp(str, "on") && strcmp(str, "off"))
		return -EINVAL;
	lm_boot_on = strcmp(str, "off");
	return 0;
}
early_param("lockmeter", lockmeter_setup);

/* lockmeter.keys=N: the rows of the key directory (CONFIG_LOCKMETER_KEYS). */
static int __init lockmeter_keys_setup(char *str)
{
	unsigned long nr;

	if (!str || kstrtoul(str, 0, &nr) || !lm_keys_valid(nr)) {
		pr_warn("lockmeter: lockmeter.keys= wants %u to %lu rows; keeping %u\n",
			LM_KEYS_MIN, LM_KEYS_MAX, lm_keys);
		return -EINVAL;
	}
	lm_keys = nr;
	return 0;
}
early_param("lockmeter.keys", lockmeter_keys_setup);

/* lockmeter.mem_pct=N: the share of RAM metering may take, 1 to 90%. */
static int __init lockmeter_mem_pct_setup(char *str)
{
	unsigned int pct;

	if (!str || kstrtouint(str, 0, &pct) || pct < 1 || pct > 90) {
		pr_warn("lockmeter: lockmeter.mem_pct= wants 1 to 90; keeping %u\n", lm_mem_pct);
		return -EINVAL;
	}
	lm_mem_pct = pct;
	return 0;
}
early_param("lockmeter.mem_pct", lockmeter_mem_pct_setup);

/*
 * An early initcall runs before the other CPUs are brought up, so
 * "lockmeter=on" flips the static key while only the boot CPU runs.
 */
static int __init lockmeter_init(void)
{
	int ret;

	ret = lm_task_cache_init();
	if (!ret)
		ret = lm_classify_init();
	if (ret) {
		lm_setup_err = ret;
		return ret;
	}
	lm_setup_err = 0;
#ifdef CONFIG_MODULES
	register_module_notifier(&lm_module_nb);
#endif
	/* CPUs that come online get their state then */
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "locking/lockmeter:prepare",
					lm_cpu_prepare, NULL);
	if (ret < 0)
		pr_warn("lockmeter: no CPU hotplug state (%d): CPUs that come online later are not metered\n",
			ret);
	if (lm_boot_on)
		lockmeter_control(LM_CTL_ON);
	return 0;
}
early_initcall(lockmeter_init);

/*
 * With lockmeter=on the clock was chosen before the other CPUs came up
 * and their TSCs were checked against the boot CPU's.  If the TSC was
 * found unstable meanwhile, the rows so far mix clocks: start them again
 * in local_clock() (lm_clock_recheck(), in the reset).
 */
static int __init lockmeter_clock_late(void)
{
	guard(mutex)(&lm_ctl_mutex);
	if (!lm_allocated || !lm_clock_is_tsc() || lm_tsc_trusted())
		return 0;
	pr_warn("lockmeter: the TSC was found unstable: holds are timed by local_clock() from here, rows reset\n");
	__lockmeter_reset();
	return 0;
}
late_initcall(lockmeter_clock_late);
