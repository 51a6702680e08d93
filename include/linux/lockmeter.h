/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter hooks, called in place from inside the lock operations, next
 * to lockdep's annotations, each behind a static branch: with metering
 * off the only cost is the NOP.
 *
 * The spinning locks (raw_spinlock_t, and spinlock_t and rwlock_t but on
 * PREEMPT_RT) hook where their operations in <linux/spinlock_api_smp.h>
 * and <linux/rwlock_api_smp.h> take the lock (LOCK_CONTENDED()) and
 * release it (do_raw_*_unlock()): preemption, interrupts, bottom halves
 * and lockdep stay the operation's own.  The lock operations are out of
 * line in kernel/locking/spinlock.c (CONFIG_LOCKMETER selects no
 * INLINE_*_LOCK), so _RET_IP_ there is the caller; the unlocks stay
 * inlined into their callers as without lockmeter.
 *
 * The sleeping locks (mutex, rw_semaphore, rt_mutex, percpu_rw_semaphore,
 * semaphore, and on PREEMPT_RT spinlock_t and rwlock_t, which are
 * rtmutexes there) hook in their own lock operations likewise (below).
 *
 * This header is included by <linux/spinlock_api_smp.h>, so by nearly
 * every object of the kernel: it may include only what that header can,
 * and nothing that changes with lockmeter's features.  It knows
 * task_struct by name alone; the per-task state is in
 * <linux/lockmeter_task.h>, the netlink UAPI in <uapi/linux/lockmeter.h>.
 *
 * See Documentation/locking/lockmeter.rst.
 */
#ifndef _LINUX_LOCKMETER_H
#define _LINUX_LOCKMETER_H

#include <linux/jump_label.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>

struct lockdep_map;
struct rt_mutex_base;
struct task_struct;

/*
 * The lock types, as the hooks name them (0: none).  The same numbers as
 * enum lockmeter_lock_type of the UAPI (checked in lockmeter_nl.c); their
 * names are in kernel/locking/lockmeter_types.h.
 */
enum lm_type {
	LM_NONE,
	LM_spin,		/* raw_spinlock_t; spinlock_t but on PREEMPT_RT */
	LM_read,		/* rwlock_t, read side (not on PREEMPT_RT) */
	LM_write,		/* rwlock_t, write side (not on PREEMPT_RT) */
	LM_mutex,		/* struct mutex */
	LM_rwsem_read,		/* struct rw_semaphore, read side */
	LM_rwsem_write,		/* struct rw_semaphore, write side */
	LM_rt_mutex,		/* struct rt_mutex */
	LM_percpu_rwsem_read,	/* struct percpu_rw_semaphore, read side */
	LM_percpu_rwsem_write,	/* struct percpu_rw_semaphore, write side */
	LM_semaphore,		/* struct semaphore */
	LM_rt_spin,		/* spinlock_t on PREEMPT_RT: an rtmutex, may sleep */
	LM_rt_read,		/* rwlock_t on PREEMPT_RT, read side */
	LM_rt_write,		/* rwlock_t on PREEMPT_RT, write side */
	LM_NR_TYPES
};

#ifdef CONFIG_LOCKMETER

DECLARE_STATIC_KEY_FALSE(lockmeter_key);

static __always_inline bool lockmeter_active(void)
{
	return static_branch_unlikely(&lockmeter_key);
}

/*
 * The hooked unlock operations of <linux/spinlock_api_smp.h> and
 * <linux/rwlock_api_smp.h> are inlined into every caller: at -Os GCC
 * would otherwise find the body with its hook too large and give many
 * files an out-of-line copy, and each unlock would pay a call and a
 * return for a hook that is off.
 */
#define __lockmeter_inline	__always_inline

/*
 * How an unlock inlined into its caller calls @fn (one of the lm_*_drop
 * below) for @lock.  On x86_64, through a thunk that keeps every
 * register but %rdi (kernel/locking/lockmeter_thunk_64.S), the way
 * preempt_enable() calls preempt_schedule_thunk: a plain call, even on
 * the path not taken, makes the compiler keep the caller's live values
 * in callee-saved registers, pushed and popped on every call of the
 * caller, and that was most of what metering cost while switched off.
 * The lock goes in as a memory operand, loaded into %rdi only on the
 * metered path, so that its address need not outlive the lock operation
 * in a register.  Without frame pointers, no ASM_CALL_CONSTRAINT: it
 * would make GCC build a frame.  kernel/locking/spinlock.c, whose unlocks
 * are functions of their own, defines LOCKMETER_UNLOCK_DIRECT: a direct
 * call costs less there.
 */
#if defined(CONFIG_X86_64) && !defined(LOCKMETER_UNLOCK_DIRECT)
#include <asm/asm.h>
#define __lm_unlock_call(fn, lock, ...)					\
do {									\
	unsigned long __lm_di;						\
									\
	asm volatile("lea %[l], %%rdi\n\tcall " #fn "_thunk"		\
		     : "=D" (__lm_di), ##__VA_ARGS__			\
		     : [l] "m" (*(lock)) : "memory");			\
} while (0)
#ifdef CONFIG_FRAME_POINTER
#define lm_unlock_call(fn, lock)	__lm_unlock_call(fn, lock, ASM_CALL_CONSTRAINT)
#else
#define lm_unlock_call(fn, lock)	__lm_unlock_call(fn, lock)
#endif
/* the thunk keeps @flags where they are */
#define lm_unlock_call_flags(fn, lock, flags)				\
do {									\
	(void)(flags);							\
	lm_unlock_call(fn, lock);					\
} while (0)
#else
#define lm_unlock_call(fn, lock)	fn(lock)
/* @fn returns @flags: no register is saved to keep them across the call */
#define lm_unlock_call_flags(fn, lock, flags)				\
do {									\
	unsigned long *__lm_flags = &(flags);				\
									\
	*__lm_flags = fn(lock, *__lm_flags);				\
} while (0)
#endif

/*
 * copy_process() gives a new task its state: none, or a block of its own
 * once metering has been on; free_task() frees it (lockmeter_sleep.c).
 */
void lockmeter_task_init(struct task_struct *p);
void lockmeter_task_free(struct task_struct *p);

#else /* !CONFIG_LOCKMETER */

static __always_inline bool lockmeter_active(void)
{
	return false;
}

#define __lockmeter_inline	inline

/* behind lockmeter_active(), constant false: compiled away */
#define lm_unlock_call(fn, lock)		fn(lock)
#define lm_unlock_call_flags(fn, lock, flags)	((void)(flags), fn(lock, 0))

static inline void lockmeter_task_init(struct task_struct *p) { }
static inline void lockmeter_task_free(struct task_struct *p) { }

#endif /* CONFIG_LOCKMETER */

/*
 * Declared whatever the configuration: the hooks call these behind
 * lockmeter_active(), constant false without CONFIG_LOCKMETER, so the
 * calls compile away and nothing needs to define them.
 */

/*
 * The spinning locks' hooks: lockmeter_spin.c.  @ip is the caller of the
 * lock operation.  The _irq variants run with interrupts off (a drop
 * checks, should the caller have enabled them); a drop_irq returns the
 * @flags it is given (see lockmeter_unlock_irqrestore()).
 */
void lm_spin_take(raw_spinlock_t *lock, unsigned long ip);
void lm_spin_take_irq(raw_spinlock_t *lock, unsigned long ip);
void lm_spin_drop(raw_spinlock_t *lock);
unsigned long lm_spin_drop_irq(raw_spinlock_t *lock, unsigned long flags);
void lm_read_take(rwlock_t *lock, unsigned long ip);
void lm_read_take_irq(rwlock_t *lock, unsigned long ip);
void lm_read_drop(rwlock_t *lock);
unsigned long lm_read_drop_irq(rwlock_t *lock, unsigned long flags);
void lm_write_take(rwlock_t *lock, unsigned long ip);
void lm_write_take_irq(rwlock_t *lock, unsigned long ip);
void lm_write_drop(rwlock_t *lock);
unsigned long lm_write_drop_irq(rwlock_t *lock, unsigned long flags);
void lm_took(void *lock, unsigned int type, unsigned long ip);
void lm_reject(void *lock, unsigned long site, u32 type);

/*
 * LOCK_CONTENDED() of a spinning lock operation, metered: @take
 * (lm_<op>_take, or lm_<op>_take_irq where interrupts are off) takes
 * @_lock, timing a wait if the first attempt fails, with
 * LOCK_CONTENDED()'s lock_stat annotations, and records the hold.
 */
#define LOCKMETER_CONTENDED(_lock, try, lock, take)			\
do {									\
	typeof(_lock) __lm_lock = (_lock);				\
									\
	if (lockmeter_active())						\
		take(__lm_lock, _RET_IP_);				\
	else								\
		LOCK_CONTENDED(__lm_lock, try, lock);			\
} while (0)

/*
 * do_raw_<op>_unlock() of a spinning unlock, metered: @drop (lm_<op>_drop)
 * stamps the end of the hold, releases the lock with @unlock and charges
 * the hold.
 */
#define lockmeter_unlock(lock, unlock, drop)				\
do {									\
	typeof(lock) __lm_lock = (lock);				\
									\
	if (lockmeter_active())						\
		lm_unlock_call(drop, __lm_lock);			\
	else								\
		unlock(__lm_lock);					\
} while (0)

/*
 * ... of an unlock_irqrestore: @drop (lm_<op>_drop_irq) runs with
 * interrupts off, and returns the @flags it is given, so that an unlock
 * that calls it directly (spinlock.c's, or on another architecture) keeps
 * them in no saved register for local_irq_restore(): while metering is
 * off, such an unlock then builds no frame for the call.
 */
#define lockmeter_unlock_irqrestore(lock, unlock, drop, flags)		\
do {									\
	typeof(lock) __lm_lock = (lock);				\
									\
	if (lockmeter_active())						\
		lm_unlock_call_flags(drop, __lm_lock, flags);		\
	else								\
		unlock(__lm_lock);					\
} while (0)

/* A spinning trylock of @type got @lock ... */
#define lockmeter_took(lock, type, ip)					\
do {									\
	if (lockmeter_active())						\
		lm_took(lock, type, ip);				\
} while (0)

/* ... or did not. */
#define lockmeter_rejected(lock, type, ip)				\
do {									\
	if (lockmeter_active())						\
		lm_reject(lock, ip, type);				\
} while (0)

/*
 * Hooks in place, for sleeping locks: called from inside the lock
 * operations, next to lockdep's annotations, with @type one of
 * enum lm_type.  Each is a static-branch NOP while metering is off.
 * The lock operation itself is upstream's, untouched:
 *
 *	lockmeter_contended(lock, type, ip)	the first attempt failed: the
 *						task begins to wait (in the slow
 *						path, where lock_contended() or
 *						trace_contention_begin() is)
 *	lockmeter_contended_rt(rtm, type, ip)	... for a lock built on an
 *						rtmutex; a wait already begun for
 *						the same lock goes on (a writer of
 *						an rwbase waits for the rtmutex,
 *						then for the readers to leave)
 *	lockmeter_acquired(lock, type, ip, err)	the operation ended: with the
 *						lock (err 0), after a wait if
 *						lockmeter_contended() began one;
 *						or without it (err, a signal, a
 *						kill, a timeout): an aborted wait
 *	lockmeter_trylock(lock, type, ip, ok)	a trylock: acquired or rejected
 *	lockmeter_unmetered(lock)		the operation that may have begun
 *						a wait is not metered (its lock is
 *						released by another task): the
 *						wait ends, uncharged
 *	lm_release_via(lock, type, release, ip)	behind lockmeter_active(), in
 *						place of the release: the hold
 *						ends, release(lock, ip) releases
 *						it, the hold is charged, with the
 *						lock free; a tail call, so that
 *						while off the operation pays the
 *						NOP alone and keeps no frame
 *	lockmeter_release(lock, type)		just before the release: the hold
 *						ends and is charged there, the
 *						lock still held (a shared lock's
 *						release inlined everywhere, where
 *						lm_release_via() would need the
 *						release out of line)
 *	lockmeter_handoff(lock, ip)		the task hands a held lock over
 *						to another context, which is to
 *						release it (lockdep's release
 *						annotation without a release)
 *	lockmeter_adopt(lock, ip)		... and the one that takes it over
 *
 * @ip is the caller of the lock operation, as lockdep is given it.  The
 * wait in progress lives in the task (struct lm_task), so the contended
 * and acquired hooks may sit in different functions: the slow path and
 * its inline caller.  Task context only: elsewhere the hooks count the
 * event as irqctx and record nothing.
 */
void lm_contended(void *lock, unsigned int type, unsigned long ip);
void lm_contended_rt(struct rt_mutex_base *rtm, unsigned int type, unsigned long ip);
void lm_contended_task(void *lock, unsigned int type, unsigned long ip,
		       struct task_struct *owner);
void lm_unmetered(void *lock);
void lm_acquired(void *lock, unsigned int type, unsigned long ip, int err);
void lm_trylock(void *lock, unsigned int type, unsigned long ip, bool ok);
void lm_release_now(void *lock, unsigned int type);
void lm_release_via(void *lock, unsigned int type,
		    void (*release)(void *lock, unsigned long ip), unsigned long ip);
void lm_handoff(void *lock, unsigned long ip);
void lm_adopt(void *lock, unsigned long ip);

/*
 * The hooks that take an @ip are macros: GCC reads _RET_IP_ for an inline
 * function's argument before the static branch, an instruction on the
 * path that runs while metering is off; in a macro it is read on the
 * metered branch only.
 */
#define lockmeter_contended(lock, type, ip)				\
	do {								\
		if (lockmeter_active())					\
			lm_contended(lock, type, ip);			\
	} while (0)

/*
 * A lock of @type built on the struct rt_mutex_base @rtm (an rt_mutex;
 * on PREEMPT_RT also a mutex, a spinlock_t, an rwlock_t and an
 * rw_semaphore's writer side): the wait's evidence names the rtmutex's
 * owner, and the wait is for the lock @rtm is the base of.
 */
#define lockmeter_contended_rt(rtm, type, ip)				\
	do {								\
		if (lockmeter_active())					\
			lm_contended_rt(rtm, type, ip);			\
	} while (0)

#define lockmeter_acquired(lock, type, ip, err)				\
	do {								\
		if (lockmeter_active())					\
			lm_acquired(lock, type, ip, err);		\
	} while (0)

#define lockmeter_trylock(lock, type, ip, ok)				\
	do {								\
		if (lockmeter_active())					\
			lm_trylock(lock, type, ip, ok);			\
	} while (0)

#define lockmeter_handoff(lock, ip)					\
	do {								\
		if (lockmeter_active())					\
			lm_handoff(lock, ip);				\
	} while (0)

#define lockmeter_adopt(lock, ip)					\
	do {								\
		if (lockmeter_active())					\
			lm_adopt(lock, ip);				\
	} while (0)

static __always_inline void lockmeter_unmetered(void *lock)
{
	if (lockmeter_active())
		lm_unmetered(lock);
}

static __always_inline void lockmeter_release(void *lock, unsigned int type)
{
	if (lockmeter_active())
		lm_release_now(lock, type);
}

/* For tests: sleeping locks the current task holds, as metered. */
int lockmeter_current_held(void);

#endif /* _LINUX_LOCKMETER_H */
