// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: the metered variants of the mutex entry points.
 *
 * Included at the end of kernel/locking/mutex.c, whose exported entry
 * points branch here when metering is on, so these can use its static
 * helpers.  Each variant does what the entry point does, with the caller's
 * @ip passed down (the slow paths would otherwise record their own), and:
 *
 *   entry:    first attempt with the fast trylock; if it fails the
 *             acquisition is contended: stamp the start of the wait and
 *             take the slow path (optimistic spinning, then sleeping);
 *   acquired: the wait is entry to acquisition; a record goes to the task;
 *   -EINTR:   a wait ended by a signal or a kill is an abort;
 *   release:  stamp, unlock, then charge hold, on-CPU and blocked time.
 */
#include <linux/kprobes.h>
#include <linux/lockmeter.h>

#include "lockmeter.h"

static __always_inline bool lm_mutex_trylock_first(struct mutex *lock)
{
#ifndef CONFIG_DEBUG_LOCK_ALLOC
	return __mutex_trylock_fast(lock);
#else
	return __mutex_trylock(lock);
#endif
}

/* The task @lock's owner is, for the evidence of a wait (NULL: none). */
static void lm_mutex_owner(struct mutex *lock, struct lm_owner *o)
{
	struct task_struct *p;

	/* as in mutex_spin_on_owner(): RCU keeps the owner's task_struct */
	rcu_read_lock();
	p = __mutex_owner(lock);
	lm_owner_of(p, o);
	rcu_read_unlock();
}

/*
 * The first attempt failed: note the owner, wait, and charge the wait.
 * Out of line, so that the uncontended path carries none of it.
 */
static noinline int __sched lm_mutex_lock_wait(struct mutex *lock, unsigned int state,
					       unsigned int subclass,
					       struct lockdep_map *nest, unsigned long ip)
{
	struct lm_owner owner;
	u64 t_wait;
	int ret;

	t_wait = lm_ticks();
	lm_mutex_owner(lock, &owner);
	lm_wait_begin(lock, ip, LM_mutex, t_wait);
	ret = __mutex_lock(lock, state, subclass, nest, ip);
	lm_wait_end();
	if (ret)
		lm_sleep_abort(lock, ip, LM_mutex);
	else
		lm_sleep_acquired(lock, ip, LM_mutex, t_wait, &owner);
	return ret;
}

int __sched lm_mutex_lock(struct mutex *lock, unsigned int state,
			  unsigned int subclass, struct lockdep_map *nest,
			  unsigned long ip)
{
	might_sleep();
	if (!lm_mutex_trylock_first(lock))
		return lm_mutex_lock_wait(lock, state, subclass, nest, ip);
	mutex_acquire_nest(&lock->dep_map, subclass, 0, nest, ip);
	lock_acquired(&lock->dep_map, ip);
	lm_sleep_acquired(lock, ip, LM_mutex, 0, NULL);
	return 0;
}

void __sched lm_mutex_lock_io(struct mutex *lock, unsigned int subclass,
			      unsigned long ip)
{
	int token;

	token = io_schedule_prepare();
	lm_mutex_lock(lock, TASK_UNINTERRUPTIBLE, subclass, NULL, ip);
	io_schedule_finish(token);
}

int __sched lm_mutex_trylock(struct mutex *lock, unsigned long ip)
{
	bool locked;

	MUTEX_WARN_ON(lock->magic != lock);

	locked = __mutex_trylock(lock);
	if (locked) {
		mutex_acquire(&lock->dep_map, 0, 1, ip);
		lm_sleep_acquired(lock, ip, LM_mutex, 0, NULL);
	} else {
		lm_reject(lock, ip, LM_mutex);
	}
	return locked;
}

void __sched lm_mutex_unlock(struct mutex *lock, unsigned long ip)
{
	u64 t_rel = lm_ticks(), offcpu_rel = lm_offcpu();

#ifndef CONFIG_DEBUG_LOCK_ALLOC
	if (!__mutex_unlock_fast(lock))
#endif
		__mutex_unlock_slowpath(lock, ip);
	lm_sleep_release(lock, LM_mutex, t_rel, offcpu_rel);
}

NOKPROBE_SYMBOL(lm_mutex_unlock);

/*
 * In .sched.text as the other entry points, for the chains of the
 * release and of the wait it may make: they start past lockmeter's
 * frames (lm_stack_skip() leaves out .sched.text and .spinlock.text).
 */
int __sched lm_atomic_dec_and_mutex_lock(atomic_t *cnt, struct mutex *lock,
					 unsigned long ip)
{
	if (atomic_add_unless(cnt, -1, 1))
		return 0;
	lm_mutex_lock(lock, TASK_UNINTERRUPTIBLE, 0, NULL, ip);
	if (!atomic_dec_and_test(cnt)) {
		lm_mutex_unlock(lock, ip);
		return 0;
	}
	return 1;
}

/*
 * ww_mutex: metered as the mutex it is built on, so that ww_mutex_unlock()
 * (a mutex_unlock()) finds its record.  Whether it waited is judged by
 * the lock's owner at entry: the acquire context logic lives in
 * __ww_mutex_lock() and is not repeated here.  -EALREADY (the context
 * holds it already) acquires nothing; -EDEADLK (back off) and -EINTR end
 * a wait without the lock, as aborts.
 */
int __sched lm_ww_mutex_lock(struct ww_mutex *ww, struct ww_acquire_ctx *ctx,
			     unsigned int state, unsigned long ip)
{
	struct mutex *lock = &ww->base;
	struct lm_owner owner;
	u64 t_wait = 0;
	int ret;

	might_sleep();
	if (mutex_is_locked(lock)) {
		t_wait = lm_ticks();
		lm_mutex_owner(lock, &owner);
		lm_wait_begin(lock, ip, LM_mutex, t_wait);
	}
	ret = __ww_mutex_lock(lock, state, 0, ip, ctx);
	lm_wait_end();
	if (ret == -EALREADY)
		return ret;
	if (ret) {
		lm_sleep_abort(lock, ip, LM_mutex);
		return ret;
	}
	lm_sleep_acquired(lock, ip, LM_mutex, t_wait, &owner);
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	if (ctx && ctx->acquired > 1)
		return ww_mutex_deadlock_injection(ww, ctx);
#endif
	return 0;
}

int __sched lm_ww_mutex_trylock(struct ww_mutex *ww, struct ww_acquire_ctx *ctx,
				unsigned long ip)
{
	struct mutex *lock = &ww->base;

	if (!ctx)
		return lm_mutex_trylock(lock, ip);

	MUTEX_WARN_ON(lock->magic != lock);
	/* as ww_mutex_trylock(): no one can wound us while we hold nothing */
	if (ctx->acquired == 0)
		ctx->wounded = 0;
	if (__mutex_trylock(lock)) {
		ww_mutex_set_context_fastpath(ww, ctx);
		mutex_acquire_nest(&lock->dep_map, 0, 1, &ctx->dep_map, ip);
		lm_sleep_acquired(lock, ip, LM_mutex, 0, NULL);
		return 1;
	}
	lm_reject(lock, ip, LM_mutex);
	return 0;
}
