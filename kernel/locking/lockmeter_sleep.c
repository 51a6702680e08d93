// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: per-task records of held sleeping locks (mutex,
 * rw_semaphore), and the scheduler's part in splitting their holds into
 * time on a CPU and time blocked.
 *
 * A holder may sleep and migrate, so its records live with the task, not
 * the CPU: task_struct::lockmeter points to a block of
 * CONFIG_LOCKMETER_TASK_DEPTH records from a pool allocated when metering
 * is first switched on.  A task takes a block the first time it acquires
 * a metered sleeping lock and keeps it until it is freed; while the pool
 * runs low, a task gives its block back as soon as it holds nothing.  An
 * empty pool is counted (notask), the acquisition not metered.
 *
 * Sleeping locks are metered in task context only.  Their trylocks and
 * releases also run in interrupts (say, a down_read_trylock() in a BPF
 * program, released from irq_work by up_read_non_owner()), where current
 * is whichever task was interrupted: its records are not the interrupt's
 * to edit.  Such operations are counted as not metered (irqctx).  In task
 * context the records are edited only by their task, with preemption off
 * (the scheduler reads them when it switches the task), so no interrupt
 * and no other CPU ever edits them; only the charge to the per-CPU table
 * runs with interrupts off.
 */
#include <linux/kprobes.h>
#include <linux/lockmeter.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "lockmeter.h"

/* A free block's first word links it to the next free one. */
union lm_task_block {
	union lm_task_block *next;
	struct lm_task_held held[CONFIG_LOCKMETER_TASK_DEPTH];
};

/*
 * The pool: a stack of free blocks under an arch spinlock (taken with
 * interrupts off; it is neither metered nor seen by lockdep), since
 * blocks come back from free_task(), which may run in softirq context.
 */
static arch_spinlock_t lm_pool_lock = __ARCH_SPIN_LOCK_UNLOCKED;
static union lm_task_block *lm_pool_free;
static unsigned int lm_pool_nr_free;
static unsigned int lm_pool_size;
bool lm_pool_low;	/* fewer than 1/8 free: give blocks back early */

/* Allocate the pool; control calls this under lm_ctl_mutex, once. */
int lm_task_pool_init(unsigned int nr)
{
	union lm_task_block *b;
	unsigned long flags;
	unsigned int i;

	if (lm_pool_size)
		return 0;
	b = vzalloc(array_size(nr, sizeof(*b)));
	if (!b)
		return -ENOMEM;
	raw_local_irq_save(flags);
	arch_spin_lock(&lm_pool_lock);
	for (i = 0; i < nr; i++) {
		b[i].next = lm_pool_free;
		lm_pool_free = &b[i];
	}
	lm_pool_nr_free = nr;
	WRITE_ONCE(lm_pool_size, nr);
	arch_spin_unlock(&lm_pool_lock);
	raw_local_irq_restore(flags);
	return 0;
}

static union lm_task_block *lm_pool_get(void)
{
	union lm_task_block *b;
	unsigned long flags;

	raw_local_irq_save(flags);
	arch_spin_lock(&lm_pool_lock);
	b = lm_pool_free;
	if (b) {
		lm_pool_free = b->next;
		lm_pool_nr_free--;
		WRITE_ONCE(lm_pool_low, lm_pool_nr_free < lm_pool_size / 8);
	}
	arch_spin_unlock(&lm_pool_lock);
	raw_local_irq_restore(flags);
	return b;
}

NOKPROBE_SYMBOL(lm_pool_get);

static void lm_pool_put(union lm_task_block *b)
{
	unsigned long flags;

	raw_local_irq_save(flags);
	arch_spin_lock(&lm_pool_lock);
	b->next = lm_pool_free;
	lm_pool_free = b;
	lm_pool_nr_free++;
	WRITE_ONCE(lm_pool_low, lm_pool_nr_free < lm_pool_size / 8);
	arch_spin_unlock(&lm_pool_lock);
	raw_local_irq_restore(flags);
}

NOKPROBE_SYMBOL(lm_pool_put);

/* The task is being freed (free_task()): nothing can use its block now. */
void lm_task_free(struct lm_task *lt)
{
	if (lt->held)
		lm_pool_put((union lm_task_block *)lt->held);
	lt->held = NULL;
}

/*
 * The scheduler switches out a task that holds records: remember when,
 * and whether it blocked (it is not runnable, or its dequeue is only
 * delayed) rather than being preempted.  Interrupts are off, and the
 * task runs none of its own code until lm_sched_in(), so this cannot
 * race an edit of its records.
 */
void __lockfunc lm_sched_out(struct lm_task *lt)
{
	struct task_struct *p = container_of(lt, struct task_struct, lockmeter);

	lt->blocked = !task_is_runnable(p);
	lt->t_out = lm_ticks();
}

NOKPROBE_SYMBOL(lm_sched_out);

/*
 * Whether the hold of @h, @held ticks so far, deserves the chain of a
 * blocked stretch: it must be long enough for chains (lm_chain_min), and
 * already at least half the longest its row has had on this CPU, so that
 * it may well set a new maximum.  A hold that becomes the maximum from
 * further down keeps the length of its stretch without the chain; the
 * per-CPU store is kept for the holds that matter.
 */
static __always_inline bool lm_blocked_chain_wanted(struct lm_cpu *c,
						    const struct lm_task_held *h, u64 held)
{
	return held >= lm_chain_min &&
	       held >= lm_slot_of(c, h->lock, h->site, h->type)->hold_max / 2;
}

/*
 * The current task, back after blocking @away ticks at @now: for each
 * record of this period, if that is its longest blocked stretch so far,
 * keep it, with the chain where the task blocked if the hold wants one
 * (taken once for all of them).  The task's stack is still the one it
 * blocked with.  Interrupts are off.
 */
static noinline void __lockfunc lm_sched_blocked(struct lm_task *lt, u64 away, u64 now)
{
	u32 epoch = READ_ONCE(lm_epoch), stack = LM_NO_STACK;
	bool taken = false;
	struct lm_cpu *c;
	unsigned int i;

	c = lm_gate();
	if (!c)
		return;
	for (i = 0; i < lt->depth; i++) {
		struct lm_task_held *h = &lt->held[i];

		if (h->epoch != epoch || away <= h->blk)
			continue;
		h->blk = away;
		h->blk_stack = LM_NO_STACK;
		if (away < lm_chain_min ||
		    !lm_blocked_chain_wanted(c, h, lm_delta(h->t_acq, now)))
			continue;
		if (!taken) {
			stack = lm_stack_take(c, true);
			taken = true;
		}
		h->blk_stack = stack;
	}
}

NOKPROBE_SYMBOL(lm_sched_blocked);

/* ... and switches it back in, perhaps on another CPU. */
void __lockfunc lm_sched_in(struct lm_task *lt)
{
	u64 now = lm_ticks(), away = lm_delta(lt->t_out, now);

	lt->offcpu += away;
	lt->t_out = 0;
	if (lt->blocked)
		lm_sched_blocked(lt, away, now);
}

NOKPROBE_SYMBOL(lm_sched_in);

/* Drop the current task's records of earlier metering periods. */
static void lm_task_purge(struct lm_task *lt, u32 epoch)
{
	unsigned int i, n = 0;

	for (i = 0; i < lt->depth; i++)
		if (lt->held[i].epoch == epoch)
			lt->held[n++] = lt->held[i];
	lt->depth = n;
}

/* Remove record @i of @lt, keeping the others in order. */
static void lm_task_remove(struct lm_task *lt, unsigned int i)
{
	for (; i + 1 < lt->depth; i++)
		lt->held[i] = lt->held[i + 1];
	lt->depth--;
}

/*
 * Make room for one more record of the current task: a block if it has
 * none, else the records of earlier periods out, else its oldest.  False
 * when the pool is empty.  Preemption is off.
 */
noinline bool lm_task_room(struct lm_task *lt, u32 epoch)
{
	if (!lt->held) {
		lt->held = (struct lm_task_held *)lm_pool_get();
		if (!lt->held) {
			this_cpu_read(lm_cpus)->loss.notask++;
			return false;
		}
		lt->depth = 0;
		return true;
	}
	lm_task_purge(lt, epoch);
	if (lt->depth >= CONFIG_LOCKMETER_TASK_DEPTH) {
		/* the oldest record is the likeliest to be stale */
		lm_task_remove(lt, 0);
		this_cpu_read(lm_cpus)->loss.evicted++;
	}
	return true;
}

NOKPROBE_SYMBOL(lm_task_room);

/* lm_sleep_charge() when the cache missed; interrupts are off. */
noinline void __lockfunc lm_sleep_charge_miss(struct lm_cpu *c, struct lm_cached *e,
					      const struct lm_task_held *h, u32 type,
					      u64 t_rel, u64 offcpu_rel)
{
	__lm_sleep_charge(c, lm_cache_fill(c, e, h->lock, h->site, type), h, t_rel, offcpu_rel);
}

NOKPROBE_SYMBOL(lm_sleep_charge_miss);

/*
 * The released lock is not the current task's newest record of this
 * period: find it below, drop stale records, or count it unmatched
 * (never seen acquired, or released by a task that is not the owner).
 * Preemption is off.
 */
noinline void __lockfunc lm_sleep_release_deep(struct lm_task *lt, unsigned long lock,
						u32 type, u64 t_rel, u64 offcpu_rel)
{
	u32 epoch = READ_ONCE(lm_epoch);
	struct lm_task_held h;
	int i;

	for (i = (int)lt->depth - 1; i >= 0; i--)
		if (lt->held[i].lock == lock)
			break;
	if (i >= 0 && lt->held[i].epoch != epoch) {
		/* taken in an earlier period: stale, as are its elders */
		lm_task_purge(lt, epoch);
		i = -1;
	}
	if (i < 0) {
		this_cpu_read(lm_cpus)->loss.unmatched++;
		return;
	}
	h = lt->held[i];
	lm_task_remove(lt, i);
	lm_sleep_charge(&h, type, t_rel, offcpu_rel);
	lm_task_done(lt);
}

NOKPROBE_SYMBOL(lm_sleep_release_deep);

/*
 * The acquisition of record @h (stamped) waited: keep whom for, and the
 * chain where the wait ended if it may be the longest of the slot on
 * this CPU (lm_wait_chain()), for the charge at the release, which may
 * come on another CPU.  Preemption is off.
 */
noinline void __lockfunc lm_sleep_waited(struct lm_task_held *h, const struct lm_owner *owner)
{
	unsigned long flags;

	if (owner)
		h->owner = *owner;
	else
		h->owner.pid = 0;
	raw_local_irq_save(flags);
	lm_wait_chain(this_cpu_read(lm_cpus), h->lock, h->site, h->type, &h->t_wait,
		      &h->t_acq, &h->wait_stack);
	raw_local_irq_restore(flags);
}

NOKPROBE_SYMBOL(lm_sleep_waited);

/* The task holds nothing and the pool runs low: give its block back. */
noinline void lm_task_give_back(struct lm_task *lt)
{
	lm_pool_put((union lm_task_block *)lt->held);
	lt->held = NULL;
}

NOKPROBE_SYMBOL(lm_task_give_back);

/* Sleeping locks the current task holds, as lockmeter sees them. */
int lockmeter_current_held(void)
{
	return current->lockmeter.depth;
}
EXPORT_SYMBOL_GPL(lockmeter_current_held);
