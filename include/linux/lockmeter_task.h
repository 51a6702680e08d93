/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter's per-task state for held sleeping locks (mutex,
 * rw_semaphore), embedded in task_struct.  A holder may sleep and migrate,
 * so these records cannot live in per-CPU data.
 *
 * The records themselves are not in task_struct: a task gets a block of
 * CONFIG_LOCKMETER_TASK_DEPTH of them from a pool, allocated when
 * metering is first switched on, the first time it takes a metered
 * sleeping lock, and gives it back when the task is freed.  task_struct
 * grows by this header alone.
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

#include <linux/string.h>
#include <linux/types.h>

#ifdef CONFIG_LOCKMETER

struct lm_task_held;

struct lm_task {
	struct lm_task_held *held;	/* pool block, NULL until needed */
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
};

/* A new task holds nothing, whatever its parent held. */
#define lockmeter_task_init(p)	memset(&(p)->lockmeter, 0, sizeof((p)->lockmeter))

/* The task is freed: its block goes back to the pool. */
void lm_task_free(struct lm_task *lt);
#define lockmeter_task_free(p)	lm_task_free(&(p)->lockmeter)

#else

#define lockmeter_task_init(p)	((void)(p))
#define lockmeter_task_free(p)	((void)(p))

#endif /* CONFIG_LOCKMETER */

#endif /* _LINUX_LOCKMETER_TASK_H */
