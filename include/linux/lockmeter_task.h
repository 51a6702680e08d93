/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter's per-task state, for the sleeping locks a task holds
 * (mutex, rw_semaphore, ...).  A holder may sleep and migrate, so its
 * records cannot live in per-CPU data.
 *
 * task_struct has only a pointer, task_struct::lockmeter, to a block
 * from a kmem_cache: this struct, then CONFIG_LOCKMETER_TASK_DEPTH
 * records (struct lm_task_block, kernel/locking/lockmeter.h).  The
 * pointer is NULL until metering is first switched on: that "on" gives
 * every task a block, and from then on each task gets its own at fork
 * and keeps it until it is freed.  A task that still has none when a
 * metered sleeping lock needs it (its fork raced that first "on", or its
 * allocation failed) takes one from a small pool, once.  No lock
 * operation ever allocates, frees or hands back a block.
 *
 * Only kernel/locking and the scheduler include this header, so a change
 * here rebuilds those alone.
 *
 * Only the task itself edits its block, in task context
 * (kernel/locking/lockmeter_sleep.c); the scheduler reads @depth and
 * keeps @t_out, @blocked and @offcpu while it switches the task out and
 * in.  Readers of the locks held right now read other tasks' blocks
 * without a lock, under RCU (a block is freed with its task).
 * Sleeping-lock operations in interrupt context are not metered, so an
 * interrupt never edits the block of the task it interrupted.
 */
#ifndef _LINUX_LOCKMETER_TASK_H
#define _LINUX_LOCKMETER_TASK_H

#include <linux/compiler.h>
#include <linux/lockmeter.h>
#include <linux/sched.h>
#include <linux/types.h>

#ifdef CONFIG_LOCKMETER

struct lm_task {
	unsigned int depth;	/* records in use */
	/*
	 * Off-CPU time while holding records, in the clock of the holds:
	 * the scheduler stamps @t_out when it switches the task out (and
	 * notes in @blocked whether it was not runnable) and adds the time
	 * away to @offcpu when it switches it back in.  Hold minus the
	 * growth of @offcpu is the time on a CPU.
	 */
	u8 blocked;
	u8 wait_type;		/* with @wait_lock */
	/*
	 * Read trylocks of rw_semaphores the task made with interrupts off
	 * and did not record, their release perhaps not its own (irq_work,
	 * up_read_non_owner()): a release of its own that finds no record
	 * takes one of these rather than counting as unmatched.
	 */
	u8 untracked;
	u64 t_out;
	u64 offcpu;
	/*
	 * The metered sleeping lock the task waits for now (0: none), where
	 * and since when, for readers of the locks held now; written by the
	 * task alone, read by others without a lock (lockmeter_held.c).
	 */
	unsigned long wait_lock;
	unsigned long wait_site;
	u64 wait_since;
	u32 wait_owner;		/* the lock's owner then: pid, 0 unknown; flag */
	/*
	 * The metering period the wait began in: a wait the hooks in place
	 * noted while metering was on and whose end they did not see (it
	 * went off meanwhile) is stale, neither shown nor charged.
	 */
	u32 wait_epoch;
	/*
	 * A lock built on an rtmutex whose fast acquisition failed
	 * (lm_contended_rt()): the wait begins only if the slow path finds
	 * the rtmutex taken (lockmeter_rt_slow()), where the kernel's
	 * contention event fires; @rt_site, @rt_type and @rt_epoch are the
	 * acquisition's.  0: none.
	 */
	unsigned long rt_pending;
	unsigned long rt_site;
	u32 rt_type;
	u32 rt_epoch;
};

/* The scheduler's side: lockmeter_sleep.c. */
void lm_sched_out(struct task_struct *p, struct lm_task *lt);
void lm_sched_in(struct lm_task *lt);

/*
 * Called by the scheduler with the runqueue locked and interrupts off,
 * for the task switched out and the one switched in.  While metering is
 * on, a task with no block pays one load and a branch, a task with a
 * block that holds nothing one more of each.
 */
static __always_inline void lockmeter_sched_out(struct task_struct *p)
{
	struct lm_task *lt;

	if (!lockmeter_active())
		return;
	lt = READ_ONCE(p->lockmeter);
	if (lt && lt->depth)
		lm_sched_out(p, lt);
}

static __always_inline void lockmeter_sched_in(struct task_struct *p)
{
	struct lm_task *lt;

	if (!lockmeter_active())
		return;
	lt = READ_ONCE(p->lockmeter);
	if (lt && lt->t_out)
		lm_sched_in(lt);
}

struct rt_mutex_base;
void lm_rt_slow(struct rt_mutex_base *rtm);

/*
 * The slow path of an rtmutex found it taken, its wait_lock held: the
 * current task waits for it, from here if its fast acquisition noted it
 * (lm_contended_rt()).  kernel/locking/rtmutex.c, next to the
 * contention event.
 */
static __always_inline void lockmeter_rt_slow(struct rt_mutex_base *rtm)
{
	if (lockmeter_active())
		lm_rt_slow(rtm);
}

#else

static inline void lockmeter_sched_out(struct task_struct *p) { }
static inline void lockmeter_sched_in(struct task_struct *p) { }
struct rt_mutex_base;
static inline void lockmeter_rt_slow(struct rt_mutex_base *rtm) { }

#endif /* CONFIG_LOCKMETER */

#endif /* _LINUX_LOCKMETER_TASK_H */
