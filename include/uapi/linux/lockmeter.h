/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/lockmeter.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_LOCKMETER_H
#define _UAPI_LINUX_LOCKMETER_H

#define LOCKMETER_FAMILY_NAME		"lockmeter"
#define LOCKMETER_FAMILY_VERSION	1

/**
 * enum lockmeter_lock_type - Lock types, as in the first column of
 *   /proc/lockmeter.
 * @LOCKMETER_TYPE_SPIN: raw_spinlock_t and spinlock_t
 * @LOCKMETER_TYPE_READ: rwlock_t, read side
 * @LOCKMETER_TYPE_WRITE: rwlock_t, write side
 * @LOCKMETER_TYPE_MUTEX: struct mutex
 * @LOCKMETER_TYPE_RWSEM_READ: struct rw_semaphore, read side
 * @LOCKMETER_TYPE_RWSEM_WRITE: struct rw_semaphore, write side
 */
enum lockmeter_lock_type {
	LOCKMETER_TYPE_SPIN = 1,
	LOCKMETER_TYPE_READ,
	LOCKMETER_TYPE_WRITE,
	LOCKMETER_TYPE_MUTEX,
	LOCKMETER_TYPE_RWSEM_READ,
	LOCKMETER_TYPE_RWSEM_WRITE,
};

/**
 * enum lockmeter_lock_class - Where a lock lives, which decides how it is
 *   named.
 * @LOCKMETER_CLASS_STATIC: kernel or module data, named by its symbol
 * @LOCKMETER_CLASS_PERCPU: static per-CPU data, named percpu:symbol+off
 * @LOCKMETER_CLASS_HEAP: keyed by acquire site, many instances in one row
 * @LOCKMETER_CLASS_OVERFLOW: events that found the table full
 */
enum lockmeter_lock_class {
	LOCKMETER_CLASS_STATIC,
	LOCKMETER_CLASS_PERCPU,
	LOCKMETER_CLASS_HEAP,
	LOCKMETER_CLASS_OVERFLOW,
};

/**
 * enum lockmeter_control - What a control request does.
 * @LOCKMETER_CONTROL_ON: start metering
 * @LOCKMETER_CONTROL_OFF: stop metering, keep the statistics
 * @LOCKMETER_CONTROL_RESET: clear the statistics and the loss counters
 */
enum lockmeter_control {
	LOCKMETER_CONTROL_ON = 1,
	LOCKMETER_CONTROL_OFF,
	LOCKMETER_CONTROL_RESET,
};

/**
 * enum lockmeter_context - Where a piece of evidence was taken.
 * @LOCKMETER_CTX_TASK: in a task; pid and comm are that task's
 * @LOCKMETER_CTX_SOFTIRQ: in a softirq handler; pid and comm are of the task
 *   it interrupted or ran in
 * @LOCKMETER_CTX_HARDIRQ: in a hardirq; pid and comm are of the task it
 *   interrupted
 */
enum lockmeter_context {
	LOCKMETER_CTX_TASK,
	LOCKMETER_CTX_SOFTIRQ,
	LOCKMETER_CTX_HARDIRQ,
};

enum lockmeter_attr {
	LOCKMETER_A_UNSPEC,
	LOCKMETER_A_VERSION,
	LOCKMETER_A_KERNEL,
	LOCKMETER_A_CPUS,
	LOCKMETER_A_STATE,
	LOCKMETER_A_METERED_NS,
	LOCKMETER_A_SLOTS_USED,
	LOCKMETER_A_SLOTS_PER_CPU,
	LOCKMETER_A_DROPPED,
	LOCKMETER_A_UNMATCHED,
	LOCKMETER_A_RECURSION,
	LOCKMETER_A_TABLE_FULL,
	LOCKMETER_A_EVICTED,
	LOCKMETER_A_CONTROL,
	LOCKMETER_A_CPU,
	LOCKMETER_A_ROW,
	LOCKMETER_A_RESETS,
	LOCKMETER_A_IRQCTX,
	LOCKMETER_A_TRUNCATED,
	LOCKMETER_A_NOTASK,
	LOCKMETER_A_MEM_PERCPU,
	LOCKMETER_A_MEM_TABLES,
	LOCKMETER_A_MEM_TASK,
	LOCKMETER_A_STACKS_FULL,
	LOCKMETER_A_CAPTURES,

	__LOCKMETER_A_MAX,
	LOCKMETER_A_MAX = (__LOCKMETER_A_MAX - 1)
};

enum lockmeter_row_attr {
	LOCKMETER_R_UNSPEC,
	LOCKMETER_R_TYPE,
	LOCKMETER_R_CLASS,
	LOCKMETER_R_ACQUIRED,
	LOCKMETER_R_NOWAIT,
	LOCKMETER_R_SPIN,
	LOCKMETER_R_REJECT,
	LOCKMETER_R_ABORT,
	LOCKMETER_R_HOLD_TOTAL,
	LOCKMETER_R_HOLD_MIN,
	LOCKMETER_R_HOLD_MAX,
	LOCKMETER_R_WAIT_TOTAL,
	LOCKMETER_R_WAIT_MIN,
	LOCKMETER_R_WAIT_MAX,
	LOCKMETER_R_ONCPU_TOTAL,
	LOCKMETER_R_ONCPU_MAX,
	LOCKMETER_R_BLOCKED_TOTAL,
	LOCKMETER_R_BLOCKED_MAX,
	LOCKMETER_R_INSTANCES,
	LOCKMETER_R_LOCK,
	LOCKMETER_R_SITE,
	LOCKMETER_R_CPU,
	LOCKMETER_R_HOLD_EVIDENCE,
	LOCKMETER_R_WAIT_EVIDENCE,

	__LOCKMETER_R_MAX,
	LOCKMETER_R_MAX = (__LOCKMETER_R_MAX - 1)
};

enum lockmeter_evidence_attr {
	LOCKMETER_E_UNSPEC,
	LOCKMETER_E_PID,
	LOCKMETER_E_COMM,
	LOCKMETER_E_CONTEXT,
	LOCKMETER_E_CPU,
	LOCKMETER_E_TIME,
	LOCKMETER_E_OWNER_PID,
	LOCKMETER_E_OWNER_COMM,
	LOCKMETER_E_FRAME,
	LOCKMETER_E_FRAME_ADDR,

	__LOCKMETER_E_MAX,
	LOCKMETER_E_MAX = (__LOCKMETER_E_MAX - 1)
};

enum lockmeter_cmd {
	LOCKMETER_CMD_UNSPEC,
	LOCKMETER_CMD_STATUS_GET,
	LOCKMETER_CMD_STATS_GET,
	LOCKMETER_CMD_CONTROL,

	__LOCKMETER_CMD_MAX,
	LOCKMETER_CMD_MAX = (__LOCKMETER_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_LOCKMETER_H */
