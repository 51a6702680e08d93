/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter's per-task records of held sleeping locks (mutex,
 * rw_semaphore), embedded in task_struct.  A holder may sleep and migrate,
 * so these cannot live in per-CPU data.
 *
 * Only the task itself reads or writes its records, and only in task
 * context with interrupts off (kernel/locking/lockmeter.c), or from the
 * scheduler while it switches the task out or in.  Sleeping-lock
 * operations in interrupt context are not metered, so an interrupt never
 * edits the records of the task it interrupted.
 */
#ifndef _LINUX_LOCKMETER_TASK_H
#define _LINUX_LOCKMETER_TASK_H

#include <linux/string.h>
#include <linux/types.h>

#ifdef CONFIG_LOCKMETER

struct lm_task_held {
	unsigned long lock;
	unsigned long site;
	u64 t_acq;		/* local_clock() when acquired */
	u64 offcpu_acq;		/* the task's lm_task::offcpu then */
	u64 wait;		/* ns from entry to acquisition */
	u32 epoch;		/* metering period it was taken in */
	u16 type;
	u16 waited;
};

struct lm_task {
	unsigned int depth;	/* records in use, never above the array */
	/*
	 * Off-CPU time while holding records, in the clock of the holds
	 * (local_clock()): the scheduler stamps @t_out when it switches the
	 * task out and adds the time away to @offcpu when it switches it
	 * back in.  Hold minus the growth of @offcpu is the time on a CPU.
	 */
	u64 t_out;
	u64 offcpu;
	struct lm_task_held held[CONFIG_LOCKMETER_TASK_DEPTH];
};

/* A new task holds nothing, whatever its parent held. */
#define lockmeter_task_init(p)	memset(&(p)->lockmeter, 0, sizeof((p)->lockmeter))

#else

#define lockmeter_task_init(p)	((void)(p))

#endif /* CONFIG_LOCKMETER */

#endif /* _LINUX_LOCKMETER_TASK_H */
