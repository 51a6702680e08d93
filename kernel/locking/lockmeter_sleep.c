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

struct lm_task_held {
	unsigned long lock;
	unsigned long site;
	u64 t_acq;		/* lm_ticks() when acquired */
	u64 offcpu_acq;		/* the task's lm_task::offcpu then */
	u64 t_wait;		/* lm_ticks() when the wait began, or 0 */
	u32 epoch;		/* metering period it was taken in */
	u32 type;
};

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
static bool lm_pool_low;	/* fewer than 1/8 free: give blocks back early */

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

void lm_task_pool_stat(unsigned int *used, unsigned int *size)
{
	*size = READ_ONCE(lm_pool_size);
	*used = *size - READ_ONCE(lm_pool_nr_free);
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

static __always_inline bool lm_sleep_gate(void)
{
	if (!lm_gate())
		return false;
	if (likely(in_task()))
		return true;
	this_cpu_read(lm_cpus)->loss.irqctx++;
	return false;
}

/*
 * The scheduler switches out a task that holds records: remember when.
 * Interrupts are off, and the task runs none of its own code until
 * lm_sched_in(), so this cannot race an edit of its records.
 */
void lm_sched_out(struct lm_task *lt)
{
	lt->t_out = lm_ticks();
}
NOKPROBE_SYMBOL(lm_sched_out);

/* ... and switches it back in, perhaps on another CPU. */
void lm_sched_in(struct lm_task *lt)
{
	lt->offcpu += lm_delta(lt->t_out, lm_ticks());
	lt->t_out = 0;
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
static noinline bool lm_task_room(struct lm_task *lt, u32 epoch)
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

/*
 * Current acquired @lock at @site.  @t_wait is when the wait began if the
 * first attempt failed (lm_ticks()), else 0.
 */
void lm_sleep_acquired(void *lock, unsigned long site, u32 type, u64 t_wait)
{
	struct lm_task *lt = &current->lockmeter;
	struct lm_task_held *h;
	u32 epoch;

	if (!lm_sleep_gate())
		return;
	preempt_disable_notrace();
	epoch = READ_ONCE(lm_epoch);
	if (unlikely(!lt->held || lt->depth >= CONFIG_LOCKMETER_TASK_DEPTH) &&
	    !lm_task_room(lt, epoch))
		goto out;
	h = &lt->held[lt->depth++];
	h->lock = (unsigned long)lock;
	h->site = site;
	h->type = type;
	h->epoch = epoch;
	h->t_wait = t_wait;
	h->offcpu_acq = lt->offcpu;
	h->t_acq = lm_ticks();
out:
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(lm_sleep_acquired);

/* Charge a sleeping lock's hold, split into on-CPU and blocked time. */
static __always_inline void lm_sleep_charge(unsigned long lock, unsigned long site, u32 type,
					    u64 t_acq, u64 t_wait, u64 hold, u64 offcpu)
{
	unsigned long flags;
	struct lm_slot *s;
	u64 oncpu;

	raw_local_irq_save(flags);
	s = lm_slot_of(this_cpu_read(lm_cpus), lock, site, type);
	lm_charge(s, hold, t_wait, t_acq);
	oncpu = hold - offcpu;
	s->oncpu_total += oncpu;
	if (oncpu > s->oncpu_max)
		s->oncpu_max = oncpu;
	if (offcpu > s->blocked_max)
		s->blocked_max = offcpu;
	raw_local_irq_restore(flags);
}

/*
 * The record of @lock in @lt, or -1: never seen acquired, released by a
 * task that is not the owner, or taken in an earlier metering period.
 */
static __always_inline int lm_task_find(struct lm_task *lt, unsigned long lock, u32 type)
{
	int i;

	for (i = (int)lt->depth - 1; i >= 0; i--)
		if (lt->held[i].lock == lock && lt->held[i].type == type)
			break;
	if (i >= 0 && unlikely(lt->held[i].epoch != READ_ONCE(lm_epoch))) {
		/* stale, as are its elders */
		lm_task_purge(lt, READ_ONCE(lm_epoch));
		i = -1;
	}
	return i;
}

/*
 * Current released @lock; @t_rel and @offcpu_rel are the clock and its
 * time off a CPU just before the release.
 */
void lm_sleep_release(void *lock, u32 type, u64 t_rel, u64 offcpu_rel)
{
	struct lm_task *lt = &current->lockmeter;
	u64 t_acq, t_wait, hold, offcpu;
	struct lm_task_held *h;
	unsigned long site;
	int i;

	if (!lm_sleep_gate())
		return;
	preempt_disable_notrace();
	i = lt->depth ? lm_task_find(lt, (unsigned long)lock, type) : -1;
	if (unlikely(i < 0)) {
		this_cpu_read(lm_cpus)->loss.unmatched++;
		goto out;
	}
	h = &lt->held[i];
	site = h->site;
	t_acq = h->t_acq;
	t_wait = h->t_wait;
	hold = lm_delta(t_acq, t_rel);
	offcpu = min(lm_delta(h->offcpu_acq, offcpu_rel), hold);
	if (likely(i == lt->depth - 1))
		lt->depth--;
	else
		lm_task_remove(lt, i);
	if (unlikely(!lt->depth && READ_ONCE(lm_pool_low))) {
		lm_pool_put((union lm_task_block *)lt->held);
		lt->held = NULL;
	}
	lm_sleep_charge((unsigned long)lock, site, type, t_acq, t_wait, hold, offcpu);
out:
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(lm_sleep_release);

/* Sleeping locks the current task holds, as lockmeter sees them. */
int lockmeter_current_held(void)
{
	return current->lockmeter.depth;
}
EXPORT_SYMBOL_GPL(lockmeter_current_held);
