/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter's per-task records of held sleeping locks (mutex,
 * rw_semaphore), embedded in task_struct.  A holder may sleep and migrate,
 * so these cannot live in per-CPU data.  Only the task itself reads or
 * writes its records.
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
	u64 oncpu_acq;		/* the task's time on a CPU then */
	u64 wait;		/* ns from entry to acquisition */
	u32 epoch;		/* metering period it was taken in */
	u16 type;
	u16 waited;
};

struct lm_task {
	unsigned int depth;
	struct lm_task_held held[CONFIG_LOCKMETER_TASK_DEPTH];
};

/* A new task holds nothing, whatever its parent held. */
#define lockmeter_task_init(p)	memset(&(p)->lockmeter, 0, sizeof((p)->lockmeter))

#else

#define lockmeter_task_init(p)	((void)(p))

#endif /* CONFIG_LOCKMETER */

#endif /* _LINUX_LOCKMETER_TASK_H */
