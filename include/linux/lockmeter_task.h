/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter's per-task state for held sleeping locks (mutex,
 * rw_semaphore), embedded in task_struct.  A holder may sleep and migrate,
 * so these records cannot live in per-CPU data.
 *
 * The records themselves are not in task_struct: the first time
 * metering is switched on, every task gets a block of
 * CONFIG_LOCKMETER_TASK_DEPTH of them from a kmem_cache, and from then
 * on every task gets its own at fork; a task keeps its block until it is
 * freed.  Before that first "on" nothing is allocated.  A task that has
 * none when it takes a metered sleeping lock (its fork raced that first
 * "on", or its allocation failed) takes one from a small pool, once.  No
 * lock operation ever allocates, frees or hands a block back.
 * task_struct grows by this header alone.
 *
 * Only the task itself reads or writes its records, and only in task
 * context (kernel/locking/lockmeter_sleep.c); the scheduler reads @depth
 * and keeps @t_out, @blocked and @offcpu while it switches the task out
 * and in.  Readers of the locks held right now read them racily.
 * Sleeping-lock operations in interrupt context are not metered, so an
 * interrupt never edits the records of the task it interrupted.
 */
#ifndef _LINUX_LOCKMETER_TASK_H
#define _LINUX_LOCKMETER_TASK_H

#include <linux/types.h>

#ifdef CONFIG_LOCKMETER

struct lm_task_held;

struct lm_task {
	struct lm_task_held *held;	/* the task's block, or NULL */
	unsigned int depth;	/* records in use, never above the block */
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
};

/*
 * A new task (copy_process(), before anything can free it) holds
 * nothing, whatever its parent holds, and gets a block of its own once
 * metering has been on.
 */
void lm_task_init(struct lm_task *lt);
#define lockmeter_task_init(p)	lm_task_init(&(p)->lockmeter)

/* The task is freed (free_task()): so is its block. */
void lm_task_free(struct lm_task *lt);
#define lockmeter_task_free(p)	lm_task_free(&(p)->lockmeter)

#else

#define lockmeter_task_init(p)	((void)(p))
#define lockmeter_task_free(p)	((void)(p))

#endif /* CONFIG_LOCKMETER */

#endif /* _LINUX_LOCKMETER_TASK_H */
