/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * lockmeter generic netlink family: status, statistics dump, control.
 *
 * Every counter and time is an NLA_UINT (4 or 8 bytes, host order); times
 * are in ns.  No C structures travel in attributes.  This header is the
 * reference; Documentation/locking/lockmeter.rst describes the meaning.
 */
#ifndef _UAPI_LINUX_LOCKMETER_H
#define _UAPI_LINUX_LOCKMETER_H

#define LOCKMETER_FAMILY_NAME		"lockmeter"
#define LOCKMETER_FAMILY_VERSION	1

enum lockmeter_cmd {
	LOCKMETER_CMD_UNSPEC,
	LOCKMETER_CMD_STATUS_GET,	/* do: LOCKMETER_A_* state and counters */
	LOCKMETER_CMD_STATS_GET,	/* dump: one LOCKMETER_A_ROW per message */
	LOCKMETER_CMD_CONTROL,		/* do, admin: LOCKMETER_A_CONTROL */

	__LOCKMETER_CMD_MAX,
	LOCKMETER_CMD_MAX = __LOCKMETER_CMD_MAX - 1
};

/* Lock types, as in the first column of /proc/lockmeter. */
enum lockmeter_lock_type {
	LOCKMETER_TYPE_SPIN = 1,
	LOCKMETER_TYPE_READ,
	LOCKMETER_TYPE_WRITE,
	LOCKMETER_TYPE_MUTEX,
	LOCKMETER_TYPE_RWSEM_READ,
	LOCKMETER_TYPE_RWSEM_WRITE,
};

/* Where a lock lives, which decides how it is named. */
enum lockmeter_lock_class {
	LOCKMETER_CLASS_STATIC,		/* kernel or module data: a symbol */
	LOCKMETER_CLASS_PERCPU,		/* static per-CPU: percpu:symbol+off */
	LOCKMETER_CLASS_HEAP,		/* keyed by site; many instances */
	LOCKMETER_CLASS_OVERFLOW,	/* events that found the table full */
};

enum lockmeter_control {
	LOCKMETER_CONTROL_ON = 1,
	LOCKMETER_CONTROL_OFF,
	LOCKMETER_CONTROL_RESET,
};

enum lockmeter_attr {
	LOCKMETER_A_UNSPEC,
	LOCKMETER_A_VERSION,		/* u32: report format version */
	LOCKMETER_A_KERNEL,		/* string: kernel release */
	LOCKMETER_A_CPUS,		/* u32: online CPUs */
	LOCKMETER_A_STATE,		/* u32: 1 on, 0 off */
	LOCKMETER_A_METERED_NS,		/* uint: metered time since reset */
	LOCKMETER_A_SLOTS_USED,		/* u32: fullest CPU's table */
	LOCKMETER_A_SLOTS_PER_CPU,	/* u32 */
	LOCKMETER_A_DROPPED,		/* uint: loss counters ... */
	LOCKMETER_A_UNMATCHED,		/* uint */
	LOCKMETER_A_RECURSION,		/* uint */
	LOCKMETER_A_TABLE_FULL,		/* uint */
	LOCKMETER_A_EVICTED,		/* uint */
	LOCKMETER_A_CONTROL,		/* u32, request: enum lockmeter_control */
	LOCKMETER_A_CPU,		/* u32: dump request: this CPU's table only */
	LOCKMETER_A_ROW,		/* nest: LOCKMETER_R_* */

	__LOCKMETER_A_MAX,
	LOCKMETER_A_MAX = __LOCKMETER_A_MAX - 1
};

/* One (type, lock, site) row, as in /proc/lockmeter. */
enum lockmeter_row_attr {
	LOCKMETER_R_UNSPEC,
	LOCKMETER_R_TYPE,		/* u32: enum lockmeter_lock_type */
	LOCKMETER_R_CLASS,		/* u32: enum lockmeter_lock_class */
	LOCKMETER_R_ACQUIRED,		/* uint: nowait + spin */
	LOCKMETER_R_NOWAIT,		/* uint */
	LOCKMETER_R_SPIN,		/* uint: had to wait */
	LOCKMETER_R_REJECT,		/* uint: failed trylocks */
	LOCKMETER_R_ABORT,		/* uint: sleeping waits ended by a signal */
	LOCKMETER_R_HOLD_TOTAL,		/* uint, ns */
	LOCKMETER_R_HOLD_MIN,		/* uint, ns */
	LOCKMETER_R_HOLD_MAX,		/* uint, ns */
	LOCKMETER_R_WAIT_TOTAL,		/* uint, ns */
	LOCKMETER_R_WAIT_MIN,		/* uint, ns */
	LOCKMETER_R_WAIT_MAX,		/* uint, ns */
	LOCKMETER_R_ONCPU_TOTAL,	/* uint, ns: sleeping locks */
	LOCKMETER_R_ONCPU_MAX,		/* uint, ns */
	LOCKMETER_R_BLOCKED_TOTAL,	/* uint, ns: sleeping locks */
	LOCKMETER_R_BLOCKED_MAX,	/* uint, ns */
	LOCKMETER_R_INSTANCES,		/* uint: distinct instances (estimate) */
	LOCKMETER_R_LOCK,		/* string: lock name */
	LOCKMETER_R_SITE,		/* string: acquire site */
	LOCKMETER_R_CPU,		/* u32: present in per-CPU dumps */

	__LOCKMETER_R_MAX,
	LOCKMETER_R_MAX = __LOCKMETER_R_MAX - 1
};

#endif /* _UAPI_LINUX_LOCKMETER_H */
