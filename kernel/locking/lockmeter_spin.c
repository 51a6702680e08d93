// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: the metered variants of the spinning lock operations.
 *
 * kernel/locking/spinlock.c branches here when metering is on.  Each
 * variant does exactly what the unmetered operation in
 * <linux/spinlock_api_smp.h> or <linux/rwlock_api_smp.h> does (same
 * preemption, interrupt and bottom-half state, same lockdep and lock_stat
 * calls), so an acquire and a release may mix metered and unmetered paths
 * while the static key flips.  On top of that:
 *
 *   acquire:  trylock first; if it fails, stamp the start of the wait and
 *             take the lock the blocking way (as LOCK_CONTENDED does), then
 *             lm_acquire() stamps the acquisition and pushes it;
 *   release:  stamp, release, then lm_release() pops the record and
 *             charges the hold, before preemption/interrupts/bottom
 *             halves come back on;
 *   trylock:  a failure is charged to the site as a reject.
 *
 *        spin_lock(l)                      spin_unlock(l)
 *             |                                  |
 *       _raw_spin_lock()                  _raw_spin_unlock()
 *        [static key] --off--> upstream    [static key] --off--> upstream
 *             | on                               | on
 *       lm_spin_lock()                    lm_spin_unlock()
 *        trylock? -no-> t_wait, lock       t_rel = local_clock()
 *        lm_acquire(): t_acq, push          unlock
 *                                          lm_release(): pop, charge
 *                                            hold = t_rel - t_acq
 */
#include <linux/bottom_half.h>
#include <linux/kprobes.h>
#include <linux/lockmeter.h>
#include <linux/preempt.h>
#include <linux/sched/clock.h>
#include <linux/spinlock.h>

#include "lockmeter.h"

/* lockdep annotations per lock kind, as the unmetered operations use them */
#define lm_dep_acquire_spin(l, s, t, ip)	spin_acquire(&(l)->dep_map, s, t, ip)
#define lm_dep_acquire_read(l, s, t, ip)	rwlock_acquire_read(&(l)->dep_map, s, t, ip)
#define lm_dep_acquire_write(l, s, t, ip)	rwlock_acquire(&(l)->dep_map, s, t, ip)
#define lm_dep_release_spin(l, ip)		spin_release(&(l)->dep_map, ip)
#define lm_dep_release_read(l, ip)		rwlock_release(&(l)->dep_map, ip)
#define lm_dep_release_write(l, ip)		rwlock_release(&(l)->dep_map, ip)

#define LM_BUILD_OPS(op, locktype)					\
static __always_inline void lm_##op##_take(typeof(locktype##_t) *lock,	\
					   unsigned long ip)		\
{									\
	u64 t_wait = 0;							\
									\
	if (!do_raw_##op##_trylock(lock)) {				\
		lock_contended(&lock->dep_map, ip);			\
		t_wait = lm_clock();					\
		do_raw_##op##_lock(lock);				\
	}								\
	lock_acquired(&lock->dep_map, ip);				\
	lm_acquire(lock, ip, LM_##op, t_wait);				\
}									\
									\
static __always_inline void lm_##op##_drop(typeof(locktype##_t) *lock,	\
					   unsigned long ip)		\
{									\
	u64 now = lm_clock();						\
									\
	lm_dep_release_##op(lock, ip);					\
	do_raw_##op##_unlock(lock);					\
	lm_release(lock, LM_##op, now);					\
}									\
									\
void lm_##op##_lock(typeof(locktype##_t) *lock, unsigned long ip)	\
{									\
	preempt_disable();						\
	lm_dep_acquire_##op(lock, 0, 0, ip);				\
	lm_##op##_take(lock, ip);					\
}									\
NOKPROBE_SYMBOL(lm_##op##_lock);					\
									\
void lm_##op##_lock_irq(typeof(locktype##_t) *lock, unsigned long ip)	\
{									\
	local_irq_disable();						\
	preempt_disable();						\
	lm_dep_acquire_##op(lock, 0, 0, ip);				\
	lm_##op##_take(lock, ip);					\
}									\
NOKPROBE_SYMBOL(lm_##op##_lock_irq);					\
									\
unsigned long lm_##op##_lock_irqsave(typeof(locktype##_t) *lock, unsigned long ip) \
{									\
	unsigned long flags;						\
									\
	local_irq_save(flags);						\
	preempt_disable();						\
	lm_dep_acquire_##op(lock, 0, 0, ip);				\
	lm_##op##_take(lock, ip);					\
	return flags;							\
}									\
NOKPROBE_SYMBOL(lm_##op##_lock_irqsave);				\
									\
void lm_##op##_lock_bh(typeof(locktype##_t) *lock, unsigned long ip)	\
{									\
	__local_bh_disable_ip(ip, SOFTIRQ_LOCK_OFFSET);			\
	lm_dep_acquire_##op(lock, 0, 0, ip);				\
	lm_##op##_take(lock, ip);					\
}									\
NOKPROBE_SYMBOL(lm_##op##_lock_bh);					\
									\
int lm_##op##_trylock(typeof(locktype##_t) *lock, unsigned long ip)	\
{									\
	preempt_disable();						\
	if (do_raw_##op##_trylock(lock)) {				\
		lm_dep_acquire_##op(lock, 0, 1, ip);			\
		lm_acquire(lock, ip, LM_##op, 0);			\
		return 1;						\
	}								\
	preempt_enable();						\
	lm_reject(lock, ip, LM_##op);					\
	return 0;							\
}									\
NOKPROBE_SYMBOL(lm_##op##_trylock);					\
									\
void lm_##op##_unlock(typeof(locktype##_t) *lock, unsigned long ip)	\
{									\
	lm_##op##_drop(lock, ip);					\
	preempt_enable();						\
}									\
NOKPROBE_SYMBOL(lm_##op##_unlock);					\
									\
void lm_##op##_unlock_irq(typeof(locktype##_t) *lock, unsigned long ip)	\
{									\
	lm_##op##_drop(lock, ip);					\
	local_irq_enable();						\
	preempt_enable();						\
}									\
NOKPROBE_SYMBOL(lm_##op##_unlock_irq);					\
									\
void lm_##op##_unlock_irqrestore(typeof(locktype##_t) *lock, unsigned long flags, \
				 unsigned long ip)			\
{									\
	lm_##op##_drop(lock, ip);					\
	local_irq_restore(flags);					\
	preempt_enable();						\
}									\
NOKPROBE_SYMBOL(lm_##op##_unlock_irqrestore);				\
									\
void lm_##op##_unlock_bh(typeof(locktype##_t) *lock, unsigned long ip)	\
{									\
	lm_##op##_drop(lock, ip);					\
	__local_bh_enable_ip(ip, SOFTIRQ_LOCK_OFFSET);			\
}									\
NOKPROBE_SYMBOL(lm_##op##_unlock_bh)

LM_BUILD_OPS(spin, raw_spinlock);
LM_BUILD_OPS(read, rwlock);
LM_BUILD_OPS(write, rwlock);

int lm_spin_trylock_bh(raw_spinlock_t *lock, unsigned long ip)
{
	__local_bh_disable_ip(ip, SOFTIRQ_LOCK_OFFSET);
	if (do_raw_spin_trylock(lock)) {
		spin_acquire(&lock->dep_map, 0, 1, ip);
		lm_acquire(lock, ip, LM_spin, 0);
		return 1;
	}
	__local_bh_enable_ip(ip, SOFTIRQ_LOCK_OFFSET);
	lm_reject(lock, ip, LM_spin);
	return 0;
}

NOKPROBE_SYMBOL(lm_spin_trylock_bh);

/* The lockdep-only variants: same as above with a subclass or nest lock. */
void lm_spin_lock_nested(raw_spinlock_t *lock, int subclass, unsigned long ip)
{
	preempt_disable();
	spin_acquire(&lock->dep_map, subclass, 0, ip);
	lm_spin_take(lock, ip);
}

NOKPROBE_SYMBOL(lm_spin_lock_nested);

unsigned long lm_spin_lock_irqsave_nested(raw_spinlock_t *lock, int subclass,
					  unsigned long ip)
{
	unsigned long flags;

	local_irq_save(flags);
	preempt_disable();
	spin_acquire(&lock->dep_map, subclass, 0, ip);
	lm_spin_take(lock, ip);
	return flags;
}

NOKPROBE_SYMBOL(lm_spin_lock_irqsave_nested);

void lm_spin_lock_nest_lock(raw_spinlock_t *lock, struct lockdep_map *nest,
			    unsigned long ip)
{
	preempt_disable();
	spin_acquire_nest(&lock->dep_map, 0, 0, nest, ip);
	lm_spin_take(lock, ip);
}

NOKPROBE_SYMBOL(lm_spin_lock_nest_lock);

void lm_write_lock_nested(rwlock_t *lock, int subclass, unsigned long ip)
{
	preempt_disable();
	rwlock_acquire(&lock->dep_map, subclass, 0, ip);
	lm_write_take(lock, ip);
}

NOKPROBE_SYMBOL(lm_write_lock_nested);
