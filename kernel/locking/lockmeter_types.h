/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of the lock types lockmeter reports, one for each LM_<name>
 * of enum lm_type (<linux/lockmeter.h>, where the hooks find it).
 * Included with LM_TYPE(name) defined to expand the list into the report
 * names.  No include guard: that is the point.
 */
LM_TYPE(spin)	/* raw_spinlock_t; spinlock_t but on PREEMPT_RT */
LM_TYPE(read)	/* rwlock_t, read side (not on PREEMPT_RT) */
LM_TYPE(write)	/* rwlock_t, write side (not on PREEMPT_RT) */
LM_TYPE(mutex)	/* struct mutex */
LM_TYPE(rwsem_read)	/* struct rw_semaphore, read side */
LM_TYPE(rwsem_write)	/* struct rw_semaphore, write side */
LM_TYPE(rt_mutex)	/* struct rt_mutex */
LM_TYPE(percpu_rwsem_read)	/* struct percpu_rw_semaphore, read side */
LM_TYPE(percpu_rwsem_write)	/* struct percpu_rw_semaphore, write side */
LM_TYPE(semaphore)	/* struct semaphore */
LM_TYPE(rt_spin)	/* spinlock_t on PREEMPT_RT: an rtmutex, may sleep */
LM_TYPE(rt_read)	/* rwlock_t on PREEMPT_RT, read side */
LM_TYPE(rt_write)	/* rwlock_t on PREEMPT_RT, write side */
