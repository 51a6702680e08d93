// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: the metered variants of the rw_semaphore entry points.
 *
 * Included at the end of kernel/locking/rwsem.c, whose exported entry
 * points branch here when metering is on.  Same scheme as
 * lockmeter_mutex.c: the first attempt is the trylock (as LOCK_CONTENDED()
 * does it), the caller's @ip is passed down, the read and write sides are
 * separate rows, an interrupted or killed wait is an abort.
 *
 * downgrade_write() ends the write hold and starts a read hold, acquired
 * without waiting at the downgrade's call site.
 *
 * A read hold may end in another task or context: down_read_non_owner()
 * and up_read_non_owner() are not metered at all, and a read trylock
 * with interrupts off, whose release may be an up_read_non_owner() from
 * irq_work (BPF's mmap_read_trylock()), is counted but not recorded
 * (lm_sleep_untracked()).  Mutexes and write holds have no such release:
 * their owner unlocks them, in task context, and finds its record.
 */
#include <linux/kprobes.h>
#include <linux/lockmeter.h>

#include "lockmeter.h"

/*
 * The writer that owns @sem, for the evidence of a wait; readers are not
 * named (the owner field keeps only the last of them, maybe gone).
 */
static void lm_rwsem_owner(struct rw_semaphore *sem, struct lm_owner *o)
{
	struct task_struct *p;
	unsigned long flags;

	/* as in rwsem_spin_on_owner(): RCU keeps the owner's task_struct */
	rcu_read_lock();
	p = rwsem_owner_flags(sem, &flags);
	lm_owner_of(flags & RWSEM_READER_OWNED ? NULL : p, o);
	rcu_read_unlock();
}

/*
 * The first attempt failed: note the owner, wait, and charge the wait;
 * 0 or -EINTR.  Out of line, so that the uncontended path carries none
 * of it.
 */
#define LM_RWSEM_WAIT(op)						\
static noinline int __sched lm_down_##op##_wait(struct rw_semaphore *sem, \
						 int state, unsigned long ip) \
{									\
	struct lm_owner owner;						\
	u64 t_wait;							\
	int ret;							\
									\
	lock_contended(&sem->dep_map, ip);				\
	t_wait = lm_ticks();						\
	lm_rwsem_owner(sem, &owner);					\
	lm_wait_begin(sem, ip, LM_rwsem_##op, t_wait);			\
	ret = __down_##op##_common(sem, state);				\
	lm_wait_end();							\
	if (ret) {							\
		rwsem_release(&sem->dep_map, ip);			\
		lm_sleep_abort(sem, ip, LM_rwsem_##op);			\
		return -EINTR;						\
	}								\
	lock_acquired(&sem->dep_map, ip);				\
	lm_sleep_acquired(sem, ip, LM_rwsem_##op, t_wait, &owner);	\
	return 0;							\
}

LM_RWSEM_WAIT(read)
LM_RWSEM_WAIT(write)

int __sched lm_down_read(struct rw_semaphore *sem, int state, int subclass,
			 unsigned long ip)
{
	might_sleep();
	rwsem_acquire_read(&sem->dep_map, subclass, 0, ip);
	if (!__down_read_trylock(sem))
		return lm_down_read_wait(sem, state, ip);
	lock_acquired(&sem->dep_map, ip);
	lm_sleep_acquired(sem, ip, LM_rwsem_read, 0, NULL);
	return 0;
}

int __sched lm_down_write(struct rw_semaphore *sem, int state, int subclass,
			  struct lockdep_map *nest, unsigned long ip)
{
	might_sleep();
	rwsem_acquire_nest(&sem->dep_map, subclass, 0, nest, ip);
	if (!__down_write_trylock(sem))
		return lm_down_write_wait(sem, state, ip);
	lock_acquired(&sem->dep_map, ip);
	lm_sleep_acquired(sem, ip, LM_rwsem_write, 0, NULL);
	return 0;
}

int lm_down_read_trylock(struct rw_semaphore *sem, unsigned long ip)
{
	int ret;

	ret = __down_read_trylock(sem);
	if (ret == 1) {
		rwsem_acquire_read(&sem->dep_map, 0, 1, ip);
		/* released perhaps elsewhere: not recorded (lockmeter_sleep.c) */
		if (unlikely(irqs_disabled()))
			lm_sleep_untracked();
		else
			lm_sleep_acquired(sem, ip, LM_rwsem_read, 0, NULL);
	} else {
		lm_reject(sem, ip, LM_rwsem_read);
	}
	return ret;
}

int lm_down_write_trylock(struct rw_semaphore *sem, unsigned long ip)
{
	int ret;

	ret = __down_write_trylock(sem);
	if (ret == 1) {
		rwsem_acquire(&sem->dep_map, 0, 1, ip);
		lm_sleep_acquired(sem, ip, LM_rwsem_write, 0, NULL);
	} else {
		lm_reject(sem, ip, LM_rwsem_write);
	}
	return ret;
}

void __lockfunc lm_up_read(struct rw_semaphore *sem, unsigned long ip)
{
	u64 t_rel = lm_ticks(), offcpu_rel = lm_offcpu();

	rwsem_release(&sem->dep_map, ip);
	__up_read(sem);
	lm_sleep_release(sem, LM_rwsem_read, t_rel, offcpu_rel);
}

NOKPROBE_SYMBOL(lm_up_read);

void __lockfunc lm_up_write(struct rw_semaphore *sem, unsigned long ip)
{
	u64 t_rel = lm_ticks(), offcpu_rel = lm_offcpu();

	rwsem_release(&sem->dep_map, ip);
	__up_write(sem);
	lm_sleep_release(sem, LM_rwsem_write, t_rel, offcpu_rel);
}

NOKPROBE_SYMBOL(lm_up_write);

void __lockfunc lm_downgrade_write(struct rw_semaphore *sem, unsigned long ip)
{
	u64 t_rel = lm_ticks(), offcpu_rel = lm_offcpu();

	lock_downgrade(&sem->dep_map, ip);
	__downgrade_write(sem);
	lm_sleep_release(sem, LM_rwsem_write, t_rel, offcpu_rel);
	lm_sleep_acquired(sem, ip, LM_rwsem_read, 0, NULL);
}

NOKPROBE_SYMBOL(lm_downgrade_write);
