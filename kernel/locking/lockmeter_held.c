// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: the locks held right now (lockstat held).
 *
 * A reader collects, without stopping anyone:
 *
 *   - every CPU's held stack of spinning locks: the lock, its site, when it
 *     was taken; the holder is the task running on that CPU, found in the
 *     task walk below (on_cpu and task_cpu());
 *   - every task's records of sleeping locks of this metering period, with
 *     the task's current call chain (stack_trace_save_tsk(), what
 *     /proc/PID/stack shows), and the sleeping lock each task waits for
 *     now (lm_wait_begin()), matched to the held locks by address.
 *
 * All of it is written by CPUs and tasks that take no notice of the
 * reader, so an entry read while it changes may come out stale or mixed
 * (a lock released just then, a site of the next record).  That is
 * harmless: nothing read is dereferenced.  Lock and site addresses are
 * only named through kallsyms, and tasks are walked under RCU: a task's
 * records are freed with it, after a grace period.  When the rows must be
 * cut, the longest held are kept; what does not fit the snapshot is
 * counted, never dropped silently.  A lock that tasks wait for but whose
 * holder has no record gets a row too, with no holder.
 */
#include <kunit/visibility.h>
#include <linux/kallsyms.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/semaphore.h>
#include <linux/sort.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "lockmeter.h"

/* What one reader keeps, per waiter (and per held lock: LM_HELD_ROWS). */
#define LM_HELD_WAITERS		1024
#define LM_HELD_ROW_WAITERS	64

/* The task running on a CPU, as the task walk saw it. */
struct lm_held_cpu {
	u32 pid;
	char comm[TASK_COMM_LEN];
};

static void lm_held_comm(char *dst, const struct task_struct *p)
{
	/* a racing set_task_comm() may tear the copy, not its end */
	memcpy(dst, p->comm, TASK_COMM_LEN);
	dst[TASK_COMM_LEN - 1] = '\0';
}

/*
 * Room for a row held @ns: a new one, or when all are taken the shortest,
 * if @ns is longer (the rows a reader most needs are the longest held);
 * NULL if not.  Either way, one row is not listed: counted.
 */
VISIBLE_IF_KUNIT struct lm_held_row *lm_held_row_new(struct lm_held_snap *hs, u64 ns)
{
	struct lm_held_row *r;
	size_t i;

	if (hs->nr == LM_HELD_ROWS) {
		hs->truncated++;
		r = &hs->rows[0];
		for (i = 1; i < hs->nr; i++)
			if (hs->rows[i].ns < r->ns)
				r = &hs->rows[i];
		if (r->ns >= ns)
			return NULL;
	} else {
		r = &hs->rows[hs->nr++];
	}
	memset(r, 0, sizeof(*r));
	r->cpu = -1;
	r->ns = ns;
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(lm_held_row_new);

static void lm_held_key(struct lm_held_row *r, unsigned long lock, unsigned long site,
			u32 type)
{
	r->lock = lock;
	lm_classify(lock, &r->key);
	r->key.site = site;
	r->key.type = type;
}

/*
 * A row for @lock, taken at @site since @t_acq: if held at least @over ns
 * by @now and there is room (else counted truncated), or NULL.
 */
static struct lm_held_row *lm_held_add(struct lm_held_snap *hs, unsigned long lock,
				       unsigned long site, u32 type, u64 t_acq, u64 now,
				       u64 over)
{
	u64 ns = lm_ticks_to_ns(lm_delta(t_acq, now));
	struct lm_held_row *r;

	if (ns < over)
		return NULL;
	r = lm_held_row_new(hs, ns);
	if (r) {
		lm_held_key(r, lock, site, type);
		r->since = t_acq;
	}
	return r;
}

/* Every CPU's spinning locks held at least @over ns (ticks @now). */
static void lm_held_spinning(struct lm_held_snap *hs, u64 now, u64 over)
{
	unsigned int cpu, i, d;

	for_each_online_cpu(cpu) {
		struct lm_cpu *pc = per_cpu(lm_cpus, cpu);
		struct lm_held *top;

		if (!pc)
			continue;
		top = READ_ONCE(pc->top);
		/* guarded for a moment (lm_guard()): its depth is not known */
		if (top == lm_guard_top(pc))
			continue;
		d = min_t(unsigned int, lm_held_depth(pc, top), CONFIG_LOCKMETER_STACK_DEPTH);
		for (i = 0; i < d; i++) {
			const struct lm_held *h = &pc->held[1 + i];
			unsigned long lock = READ_ONCE(h->lock);
			u32 type = READ_ONCE(h->type);
			struct lm_held_row *r;

			if (!lock || type <= LM_NONE || lm_type_sleeps(type))
				continue;
			r = lm_held_add(hs, lock, READ_ONCE(h->site), type,
					READ_ONCE(h->t_acq), now, over);
			if (r)
				r->cpu = cpu;
		}
	}
}

/*
 * Whether semaphore @lock is taken: its count is 0.  A task keeps the
 * record of a down() whose up() came from another context (XFS's buffer
 * lock, released at I/O completion) until the record is evicted: while
 * the count is up again, the record is not a hold.  A counting semaphore
 * with a count left is not listed either.  The semaphore may be gone
 * meanwhile, its memory unmapped: the count is read with
 * get_kernel_nofault().
 */
static bool lm_held_sem_taken(unsigned long lock)
{
	const struct semaphore *sem = (const struct semaphore *)lock;
	unsigned int count;

	return !get_kernel_nofault(count, &sem->count) && !count;
}

/*
 * @p's sleeping locks held at least @over ns, with its current chain, or
 * where it runs now: the chain of a running task cannot be read (the
 * unwinder refuses a stack that changes under it).
 */
static void lm_held_task(struct lm_held_snap *hs, struct task_struct *p, u32 epoch,
			 u64 now, u64 over)
{
	/* under RCU: the block is freed with the task, after a grace period */
	struct lm_task *lt = READ_ONCE(p->lockmeter);
	const struct lm_task_held *held;
	unsigned int i, d, nr = 0;
	bool chain = false;
	struct lm_held_row *r;
	int cpu = -1;

	if (!lt)
		return;
	held = lm_held(lt);
	d = min_t(unsigned int, READ_ONCE(lt->depth), CONFIG_LOCKMETER_TASK_DEPTH);
	for (i = 0; i < d; i++) {
		const struct lm_task_held *h = &held[i];
		unsigned long lock = READ_ONCE(h->lock);
		u32 type = READ_ONCE(h->type);

		if (!lock || READ_ONCE(h->epoch) != epoch || !lm_type_sleeps(type) ||
		    type >= LM_NR_TYPES)
			continue;
		if (type == LM_semaphore && !lm_held_sem_taken(lock))
			continue;
		r = lm_held_add(hs, lock, READ_ONCE(h->site), type, READ_ONCE(h->t_acq), now,
				over);
		if (!r)
			continue;
		r->pid = p->pid;
		lm_held_comm(r->comm, p);
		if (!chain) {
			/* once for all its rows, kept aside: a row may be reused */
			nr = stack_trace_save_tsk(p, hs->chain, LM_STACK_DEPTH, 0);
			if (!nr && READ_ONCE(p->on_cpu))
				cpu = task_cpu(p);
			chain = true;
		}
		r->nr = nr;
		memcpy(r->ip, hs->chain, nr * sizeof(*r->ip));
		r->cpu = cpu;
	}
}

/* The sleeping lock @p waits for now, if any. */
static void lm_held_waits(struct lm_held_snap *hs, struct task_struct *p, u64 now)
{
	const struct lm_task *lt = READ_ONCE(p->lockmeter);
	struct lm_held_waiter *w;
	unsigned long lock;

	if (!lt)
		return;
	lock = READ_ONCE(lt->wait_lock);
	/* a wait whose end metering did not see (off meanwhile) is over */
	if (!lock || READ_ONCE(lt->wait_epoch) != READ_ONCE(lm_epoch))
		return;
	if (hs->nr_waiters == LM_HELD_WAITERS) {
		hs->truncated++;
		return;
	}
	/* pairs with smp_wmb() in lm_wait_begin(): the rest came first */
	smp_rmb();
	w = &hs->waiters[hs->nr_waiters++];
	w->lock = lock;
	w->site = READ_ONCE(lt->wait_site);
	w->type = READ_ONCE(lt->wait_type);
	w->ns = lm_ticks_to_ns(lm_delta(READ_ONCE(lt->wait_since), now));
	w->pid = p->pid;
	lm_held_comm(w->comm, p);
}

static int lm_held_row_cmp(const void *a, const void *b)
{
	const struct lm_held_row *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return 0;
}

static int lm_held_waiter_cmp(const void *a, const void *b)
{
	const struct lm_held_waiter *x = a, *y = b;

	if (x->lock != y->lock)
		return x->lock < y->lock ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return 0;
}

/* Whether some row is of @lock. */
static bool lm_held_has(const struct lm_held_snap *hs, unsigned long lock)
{
	size_t i;

	for (i = 0; i < hs->nr; i++)
		if (hs->rows[i].lock == lock)
			return true;
	return false;
}

/*
 * Rows for the locks tasks wait for whose holder has no record (it took
 * the lock before metering was on, or released a record it was not
 * given: a non-owner release), if the longest waiter has waited at least
 * @over ns: pid 0, no comm, held as long as that wait (the lock has not
 * been free for that waiter since), the type as that waiter wants it.
 * @hs->waiters are sorted by lock.
 */
static void lm_held_unrecorded(struct lm_held_snap *hs, u64 over)
{
	size_t i;

	for (i = 0; i < hs->nr_waiters; i++) {
		const struct lm_held_waiter *w = &hs->waiters[i];
		struct lm_held_row *r;

		if ((i && hs->waiters[i - 1].lock == w->lock) || w->ns < over ||
		    lm_held_has(hs, w->lock))
			continue;
		r = lm_held_row_new(hs, w->ns);
		if (r)
			lm_held_key(r, w->lock, 0, w->type);
	}
}

/*
 * Point each sleeping lock's row at its waiters, longest first, after
 * adding the rows of holders not recorded.
 */
VISIBLE_IF_KUNIT void lm_held_match(struct lm_held_snap *hs, u64 over)
{
	size_t i, j;

	sort(hs->waiters, hs->nr_waiters, sizeof(*hs->waiters), lm_held_waiter_cmp, NULL);
	lm_held_unrecorded(hs, over);
	sort(hs->rows, hs->nr, sizeof(*hs->rows), lm_held_row_cmp, NULL);
	for (i = 0; i < hs->nr; i++) {
		struct lm_held_row *r = &hs->rows[i];

		if (!lm_type_sleeps(r->key.type))
			continue;
		for (j = 0; j < hs->nr_waiters && hs->waiters[j].lock < r->lock; j++)
			;
		r->waiter = j;
		for (; j < hs->nr_waiters && hs->waiters[j].lock == r->lock; j++)
			r->nr_waiters++;
		if (r->nr_waiters > LM_HELD_ROW_WAITERS) {
			hs->truncated += r->nr_waiters - LM_HELD_ROW_WAITERS;
			r->nr_waiters = LM_HELD_ROW_WAITERS;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(lm_held_match);

/* Tasks looked at between two breaks of the RCU read section. */
#define LM_HELD_BATCH	1024

/*
 * Leave the RCU read section for a moment, as the hung-task detector does
 * (rcu_lock_break()): a walk of every thread in one section would hold up
 * grace periods for as long as it takes, with tens of thousands of
 * threads.  Whether the walk can go on from @g and @t: neither exited
 * meanwhile.
 */
static bool lm_held_rcu_break(struct task_struct *g, struct task_struct *t)
{
	bool can_cont;

	get_task_struct(g);
	get_task_struct(t);
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
	can_cont = pid_alive(g) && pid_alive(t);
	put_task_struct(t);
	put_task_struct(g);
	return can_cont;
}

/*
 * The locks held at least @over ns now, longest first, into @hs (free it
 * with lm_held_free()).  Nothing while metering is off.  A walk that
 * cannot go on after a break (the task it stood on exited) ends there,
 * counted as truncated.
 */
int lm_held_snapshot(struct lm_held_snap *hs, u64 over)
{
	struct task_struct *g, *p;
	unsigned int cpu, batch = 0;
	struct lm_held_cpu *run;
	size_t i;
	u64 now;

	memset(hs, 0, sizeof(*hs));
	hs->rows = vmalloc(array_size(LM_HELD_ROWS, sizeof(*hs->rows)));
	hs->waiters = vmalloc(array_size(LM_HELD_WAITERS, sizeof(*hs->waiters)));
	run = vzalloc(array_size(nr_cpu_ids, sizeof(*run)));
	if (!hs->rows || !hs->waiters || !run) {
		vfree(run);
		lm_held_free(hs);
		return -ENOMEM;
	}
	mutex_lock(&lm_ctl_mutex);
	if (!lm_on)
		goto out_unlock;
	now = lm_ticks();
	lm_held_spinning(hs, now, over);
	rcu_read_lock();
	for_each_process_thread(g, p) {
		if (++batch == LM_HELD_BATCH) {
			batch = 0;
			if (!lm_held_rcu_break(g, p)) {
				hs->truncated++;
				goto out_rcu;
			}
		}
		if (READ_ONCE(p->on_cpu)) {
			cpu = task_cpu(p);
			if (cpu < nr_cpu_ids) {
				run[cpu].pid = p->pid;
				lm_held_comm(run[cpu].comm, p);
			}
		}
		lm_held_task(hs, p, READ_ONCE(lm_epoch), now, over);
		lm_held_waits(hs, p, now);
	}
out_rcu:
	rcu_read_unlock();
	/* a spinning lock's holder: what its CPU runs (pid 0: idle, or unseen) */
	for (i = 0; i < hs->nr; i++) {
		struct lm_held_row *r = &hs->rows[i];

		if (r->cpu < 0 || lm_type_sleeps(r->key.type))
			continue;
		r->pid = run[r->cpu].pid;
		if (run[r->cpu].comm[0])
			memcpy(r->comm, run[r->cpu].comm, sizeof(r->comm));
		else
			snprintf(r->comm, sizeof(r->comm), "swapper/%d", r->cpu);
	}
	lm_held_match(hs, over);
out_unlock:
	mutex_unlock(&lm_ctl_mutex);
	vfree(run);
	return 0;
}

void lm_held_free(struct lm_held_snap *hs)
{
	vfree(hs->rows);
	vfree(hs->waiters);
	hs->rows = NULL;
	hs->waiters = NULL;
	hs->nr = 0;
	hs->nr_waiters = 0;
}
