// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: per-task records of held sleeping locks (mutex,
 * rw_semaphore), and the scheduler's part in splitting their holds into
 * time on a CPU and time blocked.
 *
 * A holder may sleep and migrate, so its records live with the task, not
 * the CPU: task_struct::lockmeter points to a block from a kmem_cache,
 * the task's state (struct lm_task) and CONFIG_LOCKMETER_TASK_DEPTH
 * records.  Nothing is allocated while metering has never been on: a
 * kernel built with CONFIG_LOCKMETER that never meters pays a store at
 * fork and no memory.
 * The first "on" gives every task a block (lm_task_blocks_give(), in
 * process context), and from then on each fork allocates its own
 * (GFP_KERNEL, in copy_process()); a task frees its block when it is
 * freed.  A release stops the forks' allocations (lm_task_blocks_stop())
 * until the next "on", which gives blocks to the tasks that have none.
 * No lock operation ever allocates, frees, or takes a global lock for a
 * block.  A task that still has none when it first takes a metered
 * sleeping lock (a fork that raced the first "on", one whose allocation
 * failed) takes one from a small static pool, claimed by an atomic bit
 * operation, and keeps it until it is freed; with the pool empty the
 * acquisition is not metered and counts as notask.
 *
 * Sleeping locks are metered in task context only.  Their trylocks and
 * releases also run in interrupts (say, a down_read_trylock() in a BPF
 * program, released from irq_work by up_read_non_owner()), where current
 * is whichever task was interrupted: its records are not the interrupt's
 * to edit.  Such operations are counted as not metered (irqctx).  In task
 * context the records are edited only by their task, with preemption off
 * (the scheduler reads them when it switches the task), so no interrupt
 * and no other CPU ever edits them; only the charge to the per-CPU table
 * runs with interrupts off.
 */
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/lockmeter.h>
#include <linux/lockmeter_task.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/stat.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>

#include "lockmeter.h"
#include "rtmutex_common.h"

/*
 * The pool of the tasks that found no block: one is claimed with
 * test_and_set_bit_lock() on its bit in lm_pool_used and released with
 * clear_bit_unlock() when the task is freed; no lock, so a claim is safe
 * in a lock path and a release in free_task(), which may run in softirq
 * context.
 */
#define LM_TASK_POOL	64

static struct lm_task_block lm_pool[LM_TASK_POOL];
static DECLARE_BITMAP(lm_pool_used, LM_TASK_POOL);
static struct kmem_cache *lm_task_cache __ro_after_init;
/* forks allocate a block: from the first "on" (lm_task_blocks_give()) */
static DEFINE_STATIC_KEY_FALSE(lm_fork_blocks);

/*
 * Make the cache of task blocks; lockmeter's early initcall calls this
 * before anything can switch metering on.
 */
int __init lm_task_cache_init(void)
{
	lm_task_cache = kmem_cache_create("lockmeter_task", sizeof(struct lm_task_block),
					  0, SLAB_ACCOUNT | SLAB_HWCACHE_ALIGN, NULL);
	return lm_task_cache ? 0 : -ENOMEM;
}

/* A block's state starts empty; its records are written before they are read. */
static struct lm_task *lm_block_init(struct lm_task_block *b)
{
	memset(&b->t, 0, sizeof(b->t));
	return &b->t;
}

/* Hand back @lt, the block of a task that is freed or found another. */
static void lm_block_put(struct lm_task *lt)
{
	struct lm_task_block *b = container_of(lt, struct lm_task_block, t);

	if (b >= lm_pool && b < lm_pool + LM_TASK_POOL)
		clear_bit_unlock(b - lm_pool, lm_pool_used);
	else
		kmem_cache_free(lm_task_cache, b);
}

/*
 * A new task (copy_process(), in process context, right after
 * dup_task_struct(), which copied its parent's pointer): no block, or
 * once metering has been on a block of its own, with no records,
 * whatever its parent holds.  If the allocation fails the task meets the
 * pool later.
 */
void lockmeter_task_init(struct task_struct *p)
{
	struct lm_task_block *b;

	p->lockmeter = NULL;
	if (!static_branch_unlikely(&lm_fork_blocks))
		return;
	b = kmem_cache_alloc(lm_task_cache, GFP_KERNEL);
	if (b)
		p->lockmeter = lm_block_init(b);
}

/*
 * One pass of lm_task_blocks_give(): up to @nr blocks from @blocks to
 * tasks that have none.  A task may take one from the pool meanwhile
 * (lm_task_get()), so each is given by cmpxchg.  Returns how many were
 * given.  Under RCU, a task seen on the list is freed, with its block,
 * only after the grace period.
 */
static unsigned int lm_task_blocks_hand(struct lm_task_block **blocks, unsigned int nr)
{
	struct task_struct *g, *t;
	unsigned int i = 0;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (i == nr)
			break;
		if (READ_ONCE(t->lockmeter))
			continue;
		if (!cmpxchg(&t->lockmeter, NULL, lm_block_init(blocks[i])))
			i++;
	}
	rcu_read_unlock();
	return i;
}

/* Tasks alive with no block, counted under RCU. */
static unsigned int lm_task_blockless(void)
{
	struct task_struct *g, *t;
	unsigned int nr = 0;

	rcu_read_lock();
	for_each_process_thread(g, t)
		nr += !READ_ONCE(t->lockmeter);
	rcu_read_unlock();
	return nr;
}

#define LM_GIVE_PASSES	4

/*
 * The first "on" (process context, lockmeter's control mutex held): from
 * now on each fork allocates its block, and every task alive gets one.
 * A fork that passed lockmeter_task_init() before the key flipped and
 * joins the task list after a pass is found by the next pass; what is
 * left after the last (forks racing each pass, failed allocations) uses
 * the pool.
 * Blocks stay with their tasks when metering goes off.
 */
void lm_task_blocks_give(void)
{
	unsigned int pass, nr, given, i;
	struct lm_task_block **blocks;

	if (static_key_enabled(&lm_fork_blocks))
		return;
	static_branch_enable(&lm_fork_blocks);
	for (pass = 0; pass < LM_GIVE_PASSES; pass++) {
		nr = lm_task_blockless();
		if (!nr)
			break;
		blocks = kvmalloc_array(nr, sizeof(*blocks), GFP_KERNEL);
		if (!blocks)
			break;
		for (i = 0; i < nr; i++) {
			blocks[i] = kmem_cache_alloc(lm_task_cache, GFP_KERNEL);
			if (!blocks[i])
				break;
		}
		nr = i;
		given = lm_task_blocks_hand(blocks, nr);
		for (i = given; i < nr; i++)
			kmem_cache_free(lm_task_cache, blocks[i]);
		kvfree(blocks);
		cond_resched();
	}
}

/*
 * A release: forks stop allocating blocks.  Tasks keep theirs until they
 * are freed; the next "on" gives blocks again.
 */
void lm_task_blocks_stop(void)
{
	static_branch_disable(&lm_fork_blocks);
}

/*
 * A block from the pool for a task that has none; NULL when the pool is
 * empty.  Lock-free: a failed claim means another task took that bit
 * first, and the scan goes on.
 */
static struct lm_task *lm_pool_get(void)
{
	unsigned int w, bit;

	for (w = 0; w < BITS_TO_LONGS(LM_TASK_POOL); w++) {
		unsigned long free;

		while ((free = ~READ_ONCE(lm_pool_used[w]))) {
			bit = w * BITS_PER_LONG + __ffs(free);
			if (bit >= LM_TASK_POOL)
				break;
			if (!test_and_set_bit_lock(bit, lm_pool_used))
				return lm_block_init(&lm_pool[bit]);
		}
	}
	return NULL;
}

NOKPROBE_SYMBOL(lm_pool_get);

/*
 * The current task's block.  A task that has none takes one from the
 * pool, once (it keeps it until it is freed): NULL when the pool is
 * empty.
 */
static struct lm_task *lm_task_get(void)
{
	struct lm_task *lt = READ_ONCE(current->lockmeter), *given;

	if (likely(lt))
		return lt;
	lt = lm_pool_get();
	if (!lt)
		return NULL;
	/* the first "on" may have given it one meanwhile */
	given = cmpxchg(&current->lockmeter, NULL, lt);
	if (given) {
		lm_block_put(lt);
		return given;
	}
	return lt;
}

NOKPROBE_SYMBOL(lm_task_get);

/* The task is being freed (free_task()): nothing can use its block now. */
void lockmeter_task_free(struct task_struct *p)
{
	struct lm_task *lt = p->lockmeter;

	if (!lt)
		return;
	p->lockmeter = NULL;
	lm_block_put(lt);
}

/*
 * The scheduler switches out a task that holds records: remember when,
 * and whether it blocked (it is not runnable, or its dequeue is only
 * delayed) rather than being preempted.  Interrupts are off, and the
 * task runs none of its own code until lm_sched_in(), so this cannot
 * race an edit of its records.
 */
void __lockfunc lm_sched_out(struct task_struct *p, struct lm_task *lt)
{
	lt->blocked = !task_is_runnable(p);
	lt->t_out = lm_ticks();
}

NOKPROBE_SYMBOL(lm_sched_out);

/*
 * Whether the hold of @h, @held ticks so far, deserves the chain of a
 * blocked stretch: it must be long enough for chains (lm_chain_min), and
 * already at least half the longest its row has had on this CPU, so that
 * it may well set a new maximum.  A hold that becomes the maximum from
 * further down keeps the length of its stretch without the chain: the
 * stack walks are kept for the holds that matter.
 */
static __always_inline bool lm_blocked_chain_wanted(struct lm_cpu *c,
						    const struct lm_task_held *h, u64 held)
{
	return held >= lm_chain_min &&
	       held >= lm_slot_of(c, h->lock, h->site, h->type)->hold_max / 2;
}

/*
 * The current task, back after blocking @away ticks at @now: for each
 * record of this period, if that is its longest blocked stretch so far,
 * keep it, with the chain where the task blocked if the hold wants one
 * (walked once for all of them, copied into each record: the release
 * may be charged on another CPU, whose store takes it then).  The
 * task's stack is still the one it blocked with.  A record of an earlier
 * metering period is left alone, so a chain from before a reset never
 * reaches evidence after it.  Interrupts are off.
 */
static noinline void __lockfunc lm_sched_blocked(struct lm_task *lt, u64 away, u64 now)
{
	u32 epoch = READ_ONCE(lm_epoch);
	const struct lm_task_held *first = NULL;
	struct lm_cpu *c;
	unsigned int i;

	c = lm_gate();
	if (!c)
		return;
	for (i = 0; i < lt->depth; i++) {
		struct lm_task_held *h = &lm_held(lt)[i];

		if (h->epoch != epoch || away <= h->blk)
			continue;
		h->blk = away;
		h->blk_nr = 0;
		if (away < lm_chain_min ||
		    !lm_blocked_chain_wanted(c, h, lm_delta(h->t_acq, now)))
			continue;
		if (!first) {
			h->blk_nr = lm_stack_walk(h->blk_ip, true);
			first = h;
			continue;
		}
		h->blk_nr = first->blk_nr;
		memcpy(h->blk_ip, first->blk_ip, first->blk_nr * sizeof(*h->blk_ip));
	}
}

NOKPROBE_SYMBOL(lm_sched_blocked);

/* ... and switches it back in, perhaps on another CPU. */
void __lockfunc lm_sched_in(struct lm_task *lt)
{
	u64 now = lm_ticks(), away = lm_delta(lt->t_out, now);

	lt->offcpu += away;
	lt->t_out = 0;
	if (lt->blocked)
		lm_sched_blocked(lt, away, now);
}

NOKPROBE_SYMBOL(lm_sched_in);

/* Drop the current task's records of earlier metering periods. */
static void lm_task_purge(struct lm_task *lt, u32 epoch)
{
	struct lm_task_held *held = lm_held(lt);
	unsigned int i, n = 0;

	for (i = 0; i < lt->depth; i++)
		if (held[i].epoch == epoch)
			held[n++] = held[i];
	lt->depth = n;
}

/* Remove record @i of @lt, keeping the others in order. */
static void lm_task_remove(struct lm_task *lt, unsigned int i)
{
	struct lm_task_held *held = lm_held(lt);

	for (; i + 1 < lt->depth; i++)
		held[i] = held[i + 1];
	lt->depth--;
}

/*
 * Make room for one more record of the current task, whose block is @lt:
 * the records of earlier periods out, else its oldest semaphore's, else
 * its oldest.  A semaphore may be released by another context (XFS's
 * buffer lock, down() in the task that submits the I/O, up() at its
 * completion), which leaves the record of the down() behind: such
 * leftovers go first, so that they never cost a lock the task still
 * holds its record and its hold.  Preemption is off.
 */
static void lm_task_room(struct lm_task *lt, u32 epoch)
{
	const struct lm_task_held *held = lm_held(lt);
	unsigned int i;

	lm_task_purge(lt, epoch);
	if (lt->depth < CONFIG_LOCKMETER_TASK_DEPTH)
		return;
	for (i = 0; i < lt->depth; i++)
		if (held[i].type == LM_semaphore)
			break;
	/* else the oldest record, the likeliest to be stale */
	lm_task_remove(lt, i < lt->depth ? i : 0);
	lm_loss_inc(&this_cpu_read(lm_cpus)->loss.evicted);
}

NOKPROBE_SYMBOL(lm_task_room);

/*
 * lm_sleep_acquired() for a task with no room for the record: a block if
 * it has none (from the pool, once; with the pool empty the acquisition
 * counts as notask), room made, then the record filled, out of the
 * uncontended path.  Preemption is off.
 */
noinline void __lockfunc lm_sleep_acquired_room(void *lock, unsigned long site, u32 type,
						u64 t_wait, const struct lm_owner *owner)
{
	struct lm_task *lt = lm_task_get();
	u32 epoch = READ_ONCE(lm_epoch);

	if (!lt) {
		this_cpu_read(lm_cpus)->loss.notask++;
		return;
	}
	lm_task_room(lt, epoch);
	__lm_sleep_fill(lt, lock, site, type, epoch, t_wait, owner);
}

NOKPROBE_SYMBOL(lm_sleep_acquired_room);

/* lm_sleep_charge() when the cache missed; interrupts are off. */
noinline void __lockfunc lm_sleep_charge_miss(struct lm_cpu *c, struct lm_cached *e,
					      const struct lm_task_held *h, u32 type,
					      u64 t_rel, u64 offcpu_rel)
{
	__lm_sleep_charge(c, lm_cache_fill(c, e, h->lock, h->site, type), h, t_rel, offcpu_rel);
}

NOKPROBE_SYMBOL(lm_sleep_charge_miss);

/*
 * A read trylock of an rw_semaphore succeeded with interrupts off.  Its
 * release may well not be this task's: BPF's stack-map code takes
 * mmap_read_trylock() with interrupts off and, unable to release it
 * there, hands the up_read_non_owner() to irq_work, where this task's
 * records are out of reach.  A record would stay behind, shown held
 * forever, and a later release of the same lock could match it and
 * charge a hold of minutes.  So it is not recorded: it counts as
 * irqctx, and in task context the task notes it (lm_task::untracked),
 * so that a release of its own finding no record is not unmatched.
 * Interrupts are off.
 */
noinline void __lockfunc lm_sleep_untracked(void)
{
	struct lm_cpu *c = lm_gate();
	struct lm_task *lt;

	if (!c)
		return;
	c->loss.irqctx++;
	if (!lm_task_ctx())
		return;
	lt = lm_task_get();
	if (lt && lt->untracked < U8_MAX)
		lt->untracked++;
}

NOKPROBE_SYMBOL(lm_sleep_untracked);

/*
 * The current task (block @lt, or NULL) released a lock it has no record
 * of: unmatched, unless it is the release of a read trylock it did not
 * record (lm_sleep_untracked()), which counts where its acquisition did.
 */
static void lm_sleep_unmatched(struct lm_task *lt, u32 type)
{
	struct lm_cpu *c = this_cpu_read(lm_cpus);

	if (lt && lt->untracked) {
		lt->untracked--;
		lm_loss_inc(&c->loss.irqctx);
		return;
	}
	lm_loss_inc(&c->loss.unmatched);
}

/*
 * The released lock is not the newest record of this period of the
 * current task (block @lt, or NULL: no records): find it below, drop
 * stale records, or count it unmatched (never seen acquired, or released
 * by a task that is not the owner).  Preemption is off.
 */
noinline void __lockfunc lm_sleep_release_deep(struct lm_task *lt, unsigned long lock,
						u32 type, u64 t_rel, u64 offcpu_rel)
{
	u32 epoch = READ_ONCE(lm_epoch);
	struct lm_task_held h, *held;
	int i;

	if (!lt) {
		lm_sleep_unmatched(lt, type);
		return;
	}
	held = lm_held(lt);
	for (i = (int)lt->depth - 1; i >= 0; i--)
		if (held[i].lock == lock)
			break;
	if (i >= 0 && held[i].epoch != epoch) {
		/* taken in an earlier period: stale, as are its elders */
		lm_task_purge(lt, epoch);
		i = -1;
	}
	if (i < 0) {
		lm_sleep_unmatched(lt, type);
		return;
	}
	h = held[i];
	lm_task_remove(lt, i);
	lm_sleep_charge(&h, type, t_rel, offcpu_rel);
}

NOKPROBE_SYMBOL(lm_sleep_release_deep);

/*
 * The acquisition of record @h waited: keep whom for, for the charge at
 * the release, which also takes the chain if the wait is a new maximum
 * (lm_charge_slow()): not here, where the lock is held and its other
 * waiters would wait for the walk.  Preemption is off.
 */
noinline void __lockfunc lm_sleep_waited(struct lm_task_held *h, const struct lm_owner *owner)
{
	if (!owner)
		h->owner.pid = 0;
	else if (owner != &h->owner)	/* not named in place (lm_wait_owner()) */
		h->owner = *owner;
}

NOKPROBE_SYMBOL(lm_sleep_waited);

/*
 * ---- hooks in place (<linux/lockmeter.h>) ----
 *
 * In .spinlock.text with the lock operations, as lockdep's are not but
 * ours must be: in_lock_functions() knows them, and a call chain taken
 * at a release starts past them (lm_stack_skip()).
 */

/*
 * lm_task::wait_owner: the owner's pid (below PID_MAX_LIMIT, 2^22), and
 * this bit when its name is noted already, in the record the acquisition
 * will fill (held[depth]): the owner may exit before the waiter runs
 * again, and its name be gone by then.
 */
#define LM_WAIT_OWNER_NAMED	BIT(31)

/*
 * The current task begins to wait for @lock: note it in the task, where
 * lm_acquired() finds it wherever it is called from, and readers of the
 * locks held now see it.  @owner is the lock's owner, if known (the
 * caller holds rcu_read_lock()).  Until its acquisition the task takes
 * no other lock it records, so held[depth] is the record that will be
 * filled.
 */
static __always_inline void __lm_contended(void *lock, unsigned int type, unsigned long ip,
					   struct task_struct *owner)
{
	u32 pid = owner ? READ_ONCE(owner->pid) : 0;
	struct lm_task *lt;

	if (!lm_task_ctx())
		return;
	/* no block and the pool empty: its acquisition counts as notask */
	lt = lm_task_get();
	if (!lt)
		return;
	/*
	 * A wait for the same lock goes on: an rwbase writer that waited for
	 * its rtmutex waits for the readers next.  Only a wait of an earlier
	 * metering period, which no acquisition ended, starts afresh.
	 */
	if (READ_ONCE(lt->wait_lock) == (unsigned long)lock &&
	    lt->wait_epoch == READ_ONCE(lm_epoch))
		return;
	if (pid && lt->depth < CONFIG_LOCKMETER_TASK_DEPTH) {
		lm_owner_of(owner, &lm_held(lt)[lt->depth].owner);
		pid |= LM_WAIT_OWNER_NAMED;
	}
	lt->wait_owner = pid;
	lm_wait_begin(lt, lock, ip, type, lm_ticks());
}

void __lockfunc lm_contended(void *lock, unsigned int type, unsigned long ip)
{
	__lm_contended(lock, type, ip, NULL);
}

NOKPROBE_SYMBOL(lm_contended);

/*
 * As lm_contended(), for a lock whose owner only its own file can read
 * (an rw_semaphore's writer): the caller, behind lockmeter_active(),
 * names @owner (NULL: none known) and holds rcu_read_lock(), which keeps
 * its task_struct.
 */
void __lockfunc lm_contended_task(void *lock, unsigned int type, unsigned long ip,
				  struct task_struct *owner)
{
	__lm_contended(lock, type, ip, owner);
}

NOKPROBE_SYMBOL(lm_contended_task);

#ifdef CONFIG_PREEMPT_RT
/* The locks whose address is their rtmutex's: see lm_rt_lock() */
static_assert(offsetof(struct mutex, rtmutex) == 0);
static_assert(offsetof(spinlock_t, lock) == 0);
#endif
static_assert(offsetof(struct rt_mutex, rtmutex) == 0);

/*
 * The lock of @type whose struct rt_mutex_base is @rtm, which its row is
 * keyed by and its acquisition names: the rtmutex itself but for the
 * locks on PREEMPT_RT whose rtmutex is inside an rwbase.
 */
static void *lm_rt_lock(struct rt_mutex_base *rtm, unsigned int type)
{
#ifdef CONFIG_PREEMPT_RT
	if (type == LM_rwsem_read || type == LM_rwsem_write)
		return container_of(rtm, struct rw_semaphore, rwbase.rtmutex);
	if (type == LM_rt_read || type == LM_rt_write)
		return container_of(rtm, rwlock_t, rwbase.rtmutex);
#endif
	return rtm;
}

/*
 * A lock built on an rtmutex whose fast acquisition failed.  The wait
 * begins where the kernel's own contention event fires: in the slow
 * path, once it finds the rtmutex taken with its wait_lock held
 * (lm_rt_slow()), naming the owner it then has.  Here it is only noted
 * in the task.  A look at the owner here would not tell: with
 * CONFIG_DEBUG_RT_MUTEXES (lockdep selects it) the fast path always
 * fails, and an owner seen here may leave, or one not seen arrive,
 * before the slow path looks.  Two waits begin here at once:
 *
 *  - the current task's own: an rwbase writer, holding the rtmutex,
 *    waits for the readers to leave.  A wait, for no one named;
 *  - a reader of an rwbase (rwbase_read_lock()'s fast attempt failed,
 *    a writer in): the kernel's event fires there, for the rwbase.
 */
void __lockfunc lm_contended_rt(struct rt_mutex_base *rtm, unsigned int type,
				unsigned long ip)
{
	struct task_struct *owner;
	struct lm_task *lt;

	/* RCU keeps the owner's task_struct, as for the mutex's owner */
	rcu_read_lock();
	owner = rt_mutex_owner(rtm);
	if (owner == current || type == LM_rt_read || type == LM_rwsem_read) {
		if (owner)
			lm_contended_task(lm_rt_lock(rtm, type), type, ip,
					  owner == current ? NULL : owner);
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();
	if (!lm_task_ctx())
		return;
	/* no block and the pool empty: its acquisition counts as notask */
	lt = lm_task_get();
	if (!lt)
		return;
	lt->rt_site = ip;
	lt->rt_type = type;
	lt->rt_epoch = READ_ONCE(lm_epoch);
	WRITE_ONCE(lt->rt_pending, (unsigned long)rtm);
}

NOKPROBE_SYMBOL(lm_contended_rt);

/*
 * The slow path of @rtm found it taken (lockmeter_rt_slow()), with its
 * wait_lock held and interrupts off: the wait lm_contended_rt() noted
 * begins, for the owner @rtm has now.  The owner cannot leave meanwhile:
 * its release takes the wait_lock once a waiter is marked.  An rtmutex
 * being handed over has no owner but a top waiter, woken to take it:
 * that is whom the wait is for.
 */
void __lockfunc lm_rt_slow(struct rt_mutex_base *rtm)
{
	struct lm_task *lt = READ_ONCE(current->lockmeter);
	struct task_struct *owner;

	if (!lt || READ_ONCE(lt->rt_pending) != (unsigned long)rtm)
		return;
	WRITE_ONCE(lt->rt_pending, 0);
	if (lt->rt_epoch != READ_ONCE(lm_epoch))
		return;
	rcu_read_lock();
	owner = rt_mutex_owner(rtm);
	if (!owner && rt_mutex_has_waiters(rtm))
		owner = rt_mutex_top_waiter(rtm)->task;
	lm_contended_task(lm_rt_lock(rtm, lt->rt_type), lt->rt_type, lt->rt_site,
			  owner == current ? NULL : owner);
	rcu_read_unlock();
}

NOKPROBE_SYMBOL(lm_rt_slow);

/*
 * The operation that may have begun a wait for @lock is not metered
 * (down_read_non_owner(): another task releases the lock): the wait ends,
 * neither charged nor left for lockstat held to show.
 */
void __lockfunc lm_unmetered(void *lock)
{
	struct lm_task *lt = READ_ONCE(current->lockmeter);

	if (lm_task_ctx() && lt && READ_ONCE(lt->wait_lock) == (unsigned long)lock)
		lm_wait_end(lt);
}

NOKPROBE_SYMBOL(lm_unmetered);

/*
 * Whom the current task's wait was for (NULL: unknown): named at the
 * start of the wait, or else looked up by pid now, into @o.
 */
static struct lm_owner *lm_wait_owner(struct lm_task *lt, struct lm_owner *o)
{
	u32 pid = lt->wait_owner & ~LM_WAIT_OWNER_NAMED;

	if (!pid)
		return NULL;
	if ((lt->wait_owner & LM_WAIT_OWNER_NAMED) && lt->depth < CONFIG_LOCKMETER_TASK_DEPTH)
		return &lm_held(lt)[lt->depth].owner;
	rcu_read_lock();
	lm_owner_of(find_task_by_pid_ns(pid, &init_pid_ns), o);
	rcu_read_unlock();
	/* gone meanwhile: the pid, no name */
	if (!o->pid) {
		o->pid = pid;
		o->comm[0] = '\0';
	}
	return o;
}

/* lm_acquired() after a wait, or without the lock: out of its fast path. */
static noinline void __lockfunc lm_acquired_slow(void *lock, unsigned int type,
						 unsigned long ip, int err)
{
	struct lm_task *lt = READ_ONCE(current->lockmeter);
	struct lm_owner owner, *o = NULL;
	u64 t_wait = 0;

	if (lm_task_ctx() && lt && READ_ONCE(lt->wait_lock) == (unsigned long)lock) {
		/* a wait of an earlier period is stale: its start means nothing */
		if (lt->wait_epoch == READ_ONCE(lm_epoch)) {
			t_wait = lt->wait_since;
			o = lm_wait_owner(lt, &owner);
		}
		lm_wait_end(lt);
	}
	if (err)
		lm_sleep_abort(lock, ip, type);
	else
		lm_sleep_acquired(lock, ip, type, t_wait, o);
}

NOKPROBE_SYMBOL(lm_acquired_slow);

/*
 * A lock operation on @lock ended: acquired, after the wait
 * lm_contended() noted if there was one, or (@err) not, an abort.  The
 * uncontended acquisition, the common case, goes straight to its record.
 */
void __lockfunc lm_acquired(void *lock, unsigned int type, unsigned long ip, int err)
{
	const struct lm_task *lt = READ_ONCE(current->lockmeter);

	if (unlikely(err || (lt && READ_ONCE(lt->wait_lock) == (unsigned long)lock))) {
		lm_acquired_slow(lock, type, ip, err);
		return;
	}
	lm_sleep_acquired(lock, ip, type, 0, NULL);
}
EXPORT_SYMBOL_GPL(lm_acquired);
NOKPROBE_SYMBOL(lm_acquired);

/*
 * A read trylock of an rw_semaphore with interrupts off may be released
 * by up_read_non_owner() from irq_work (BPF's mmap_read_trylock()): such
 * a hold is counted, not recorded, as lm_sleep_untracked() says.
 */
void __lockfunc lm_trylock(void *lock, unsigned int type, unsigned long ip, bool ok)
{
	if (!ok)
		lm_reject(lock, ip, type);
	else if (unlikely(type == LM_rwsem_read && irqs_disabled()))
		lm_sleep_untracked();
	else
		lm_sleep_acquired(lock, ip, type, 0, NULL);
}
EXPORT_SYMBOL_GPL(lm_trylock);
NOKPROBE_SYMBOL(lm_trylock);

/*
 * The current task releases @lock: the hold ends here, @release (the lock
 * operation's own release, a static function of its file) releases it,
 * and the hold is charged after, with the lock free.  One call, made in
 * place of the release behind lockmeter_active(): the release operation
 * keeps no frame for it while metering is off, and pays one call for it
 * while on.
 */
static __always_inline void __lm_release_via(void *lock, unsigned int type,
					     void (*release)(void *lock, unsigned long ip),
					     unsigned long ip, u64 t)
{
	u64 offcpu = lm_offcpu();

	/* one register across the call, not the TSC's two halves */
	OPTIMIZER_HIDE_VAR(t);
	release(lock, ip);
	lm_sleep_release(lock, type, t, offcpu);
}

/*
 * ... with local_clock() for a clock, out of line: its call would make
 * the common case keep @release and @ip across it, in two more saved
 * registers and a stack slot.
 */
static noinline void __lockfunc lm_release_via_local(void *lock, unsigned int type,
						     void (*release)(void *lock,
								     unsigned long ip),
						     unsigned long ip)
{
	__lm_release_via(lock, type, release, ip, local_clock_noinstr());
}

NOKPROBE_SYMBOL(lm_release_via_local);

void __lockfunc lm_release_via(void *lock, unsigned int type,
			       void (*release)(void *lock, unsigned long ip), unsigned long ip)
{
	if (unlikely(!lm_clock_is_tsc())) {
		lm_release_via_local(lock, type, release, ip);
		return;
	}
	__lm_release_via(lock, type, release, ip, lm_tsc());
}
EXPORT_SYMBOL_GPL(lm_release_via);
NOKPROBE_SYMBOL(lm_release_via);

/*
 * The current task is about to release @lock: the hold ends, and is
 * charged, now.  For a release inlined into every caller of a shared lock
 * (percpu_up_read()): the bookkeeping runs while the lock is still held,
 * which only a writer waiting for the readers to drain can notice.
 */
void __lockfunc lm_release_now(void *lock, unsigned int type)
{
	lm_sleep_release(lock, type, lm_ticks(), lm_offcpu());
}
EXPORT_SYMBOL_GPL(lm_release_now);
NOKPROBE_SYMBOL(lm_release_now);

/*
 * The current task hands @lock, which it holds, over to another context
 * that will release it (percpu_rwsem_release(): a frozen filesystem's
 * sb_writers, an AIO write's): its hold ends here, as for lockdep.
 */
void __lockfunc lm_handoff(void *lock, unsigned long ip)
{
	u64 offcpu = lm_offcpu(), t = lm_ticks();
	struct lm_task *lt = READ_ONCE(current->lockmeter);
	u32 type = LM_NONE;
	int i;

	/* the row is the record's: a read or a write hold */
	if (lm_task_ctx() && lt)
		for (i = (int)lt->depth - 1; i >= 0 && type == LM_NONE; i--)
			if (lm_held(lt)[i].lock == (unsigned long)lock)
				type = lm_held(lt)[i].type;
	lm_sleep_release(lock, type, t, offcpu);
}
EXPORT_SYMBOL_GPL(lm_handoff);
NOKPROBE_SYMBOL(lm_handoff);

/*
 * The current context takes over a lock another handed off: it is not
 * recorded (its hold began elsewhere), and its release here is expected,
 * not unmatched (lm_task::untracked).  Outside task context: irqctx.
 */
void __lockfunc lm_adopt(void *lock, unsigned long ip)
{
	struct lm_task *lt;
	unsigned long flags;

	if (lm_task_ctx()) {
		lt = lm_task_get();
		if (lt && lt->untracked < U8_MAX)
			lt->untracked++;
		return;
	}
	raw_local_irq_save(flags);
	lm_sleep_untracked();
	raw_local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(lm_adopt);
NOKPROBE_SYMBOL(lm_adopt);

/* Sleeping locks the current task holds, as lockmeter sees them. */
int lockmeter_current_held(void)
{
	const struct lm_task *lt = READ_ONCE(current->lockmeter);

	return lt ? lt->depth : 0;
}
EXPORT_SYMBOL_GPL(lockmeter_current_held);
