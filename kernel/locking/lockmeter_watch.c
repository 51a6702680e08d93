// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: alerts, told the moment they happen (lockstat watch).
 *
 * A hold threshold and a wait threshold per lock type, off by default,
 * set over netlink (LOCKMETER_CMD_WATCH_SET) or /proc/lockmeter ("watch
 * hold 5ms").  A hold or wait longer than its type's threshold is an
 * alert: the CPU that charges it queues it, with the task and the call
 * chain, in its own preallocated queue (struct lm_alert_ring) and raises
 * an irq_work; the work below sends it to the "alerts" multicast group of
 * the lockmeter family.  Nothing is sent, named or allocated in the lock
 * path.
 *
 * Cost: none on a charge's fast path, threshold set or not.  The fast
 * path already compares each hold with its row's longest; a row's trip
 * (struct lm_slot) is that longest, or the threshold when lower, so one
 * compare still decides both.  Setting a threshold empties each CPU's
 * cache of rows, in an IPI, and a row's trip is lowered when its CPU
 * caches it again.  A hold over the trip, and every wait, takes the slow
 * path, which compares with the thresholds.
 *
 * While a hold threshold of a sleeping lock type is set, the work also
 * looks for sleeping locks held longer than it right now, what
 * "lockstat held" lists, and sends each such hold once, while it lasts,
 * with the holder's chain and the tasks waiting: the hung-task report,
 * seconds in, with the holder named.
 *
 * Nothing is lost silently.  Every alert is counted (the rows' alerts and
 * the header's), and sent, or counted as dropped: its CPU queued
 * LM_WATCH_RATE this second already, or its queue was full (the sender
 * sends LM_WATCH_RATE a second in all, the queues wait for the next
 * second), or nobody listened: in a flood, an alert dropped costs a
 * compare, no chain walk, no interrupt.  The sender's own locks may
 * cross a threshold too: the alerts raised by the sender's task and by
 * the kick are dropped at once (and counted as alerts_self too), so that
 * the machinery does not feed itself.  The sender drops what it cannot
 * send: no memory for the message, no listener.
 *
 * So, read at any moment, alerts = sent + dropped + those still queued,
 * where alerts are the holds and waits the CPUs counted plus the held
 * alerts, which the sender counts as it sends or drops them.  Exactly:
 * the sender counts under lm_ctl_mutex, as readers read and a reset
 * zeroes, and a reset, with no CPU in the hot paths, empties the queues
 * with the counts of the period they belong to.
 */
#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>
#include <uapi/linux/lockmeter.h>

#include "lockmeter.h"

u64 lm_watch_hold[LM_NR_TYPES] __read_mostly = { [0 ... LM_NR_TYPES - 1] = U64_MAX };
u64 lm_watch_wait[LM_NR_TYPES] __read_mostly = { [0 ... LM_NR_TYPES - 1] = U64_MAX };
bool lm_watching __read_mostly;
u64 lm_watch_second __read_mostly = NSEC_PER_SEC;
/* Alerts are dropped at once while nobody listens: set by the sender, cleared by a bind. */
bool lm_alert_deaf __read_mostly = true;
DEFINE_PER_CPU_READ_MOSTLY(struct lm_alert_ring *, lm_alert_rings);
struct task_struct *lm_alert_sender;
DEFINE_PER_CPU(bool, lm_alert_kicking);

/* The thresholds as set, ns (0: none); under lm_ctl_mutex. */
static u64 lm_watch_hold_ns[LM_NR_TYPES];
static u64 lm_watch_wait_ns[LM_NR_TYPES];

/* Alerts sent, not sent, and held locks found, since the last reset. */
static atomic64_t lm_watch_sent;
static atomic64_t lm_watch_unsent;
static atomic64_t lm_watch_held;

/* At most LM_WATCH_RATE alerts a second are sent; the rest wait, or drop. */
/* Alerts sent per run of the work: taken from the queues and ordered. */
#define LM_WATCH_BATCH		32
/* Held locks are looked for this often at most, and at least ... */
#define LM_WATCH_SCAN_MIN	(HZ / 10)
/* ... this often, which is also how often the queues are looked at. */
#define LM_WATCH_SCAN_MAX	HZ

/*
 * The sender's state: the work below is its only user (a work item never
 * runs on two CPUs at once).
 */
static struct {
	struct lm_alert_rec batch[LM_WATCH_BATCH];
	/*
	 * The batch's keys, named once for all: a static per-CPU lock's
	 * name costs a walk of the symbol table.
	 */
	struct lm_stat rows[LM_WATCH_BATCH];
	struct lm_names names;
	u64 seq;		/* alerts sent since boot */
	unsigned long window;	/* jiffies: the end of this second of sending */
	unsigned int budget;	/* alerts still to send in it */
	unsigned long next_scan;
	unsigned int first;	/* the CPU whose queue lm_watch_take() takes first */
	/* the holds already sent as held: (lock, pid, since), this scan's and the last */
	struct lm_watch_seen {
		unsigned long lock;
		u32 pid;
		u64 since;
	} seen[2][LM_HELD_ROWS];
	unsigned int nr_seen[2];
	unsigned int cur;
} lm_tx;

static void lm_watch_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(lm_watch_work, lm_watch_fn);

/* The irq_work of a CPU that queued an alert: send now. */
static void lm_alert_kick(struct irq_work *work)
{
	/* the timer base, the pool, the worker's wakeup: alerts of their own */
	this_cpu_write(lm_alert_kicking, true);
	mod_delayed_work(system_unbound_wq, &lm_watch_work, 0);
	this_cpu_write(lm_alert_kicking, false);
}

static u64 lm_ns_to_ticks(u64 ns)
{
#ifdef CONFIG_X86_TSC
	if (lm_clock_is_tsc() && tsc_khz)
		return mul_u64_u32_div(ns, tsc_khz, USEC_PER_SEC);
#endif
	return ns;
}

/*
 * The thresholds in ticks of the clock of the holds, from those set in
 * ns: again whenever that clock may have been chosen or changed (on,
 * reset).  lm_ctl_mutex is held.
 */
void lm_watch_recalc(void)
{
	u64 hold_min = U64_MAX, wait_min = U64_MAX;
	bool any = false;
	unsigned int t;

	for (t = LM_NONE + 1; t < LM_NR_TYPES; t++) {
		u64 h = lm_watch_hold_ns[t] ? lm_ns_to_ticks(lm_watch_hold_ns[t]) : U64_MAX;
		u64 w = lm_watch_wait_ns[t] ? lm_ns_to_ticks(lm_watch_wait_ns[t]) : U64_MAX;

		WRITE_ONCE(lm_watch_hold[t], h);
		WRITE_ONCE(lm_watch_wait[t], w);
		hold_min = min(hold_min, h);
		wait_min = min(wait_min, w);
		any |= lm_watch_hold_ns[t] || lm_watch_wait_ns[t];
	}
	WRITE_ONCE(lm_watch_second, lm_ns_to_ticks(NSEC_PER_SEC));
	WRITE_ONCE(lm_watch_hold[LM_NONE], hold_min);
	WRITE_ONCE(lm_watch_wait[LM_NONE], wait_min);
	WRITE_ONCE(lm_watching, any);
}

/*
 * The thresholds changed: every row's trip of @c must come down to its
 * type's hold threshold before it is next charged, on its CPU with
 * interrupts off (lm_for_every_cpu()).  A trip left higher than its
 * threshold would let a hold over the threshold through the fast path;
 * one left lower (a threshold raised or cleared) only sends a hold to
 * the slow path, which sets it right.  The rows are not walked (up to
 * LM_KEYS_MAX of them, on every CPU at once): the CPU's cache of rows is
 * emptied, so that its next charge of each row fills an entry again, and
 * the fill sets the trip (lm_cache_fill()).  The work is the cache's
 * size whatever the number of keys; the fills after it cost what a
 * reset's do.
 */
VISIBLE_IF_KUNIT void lm_watch_trip_cpu(struct lm_cpu *c, void *unused)
{
	struct lm_slot *s;
	unsigned int i;

	memset(c->cache, 0, sizeof(c->cache));
	for (i = LM_NONE + 1; i < LM_NR_TYPES; i++) {
		s = &c->overflow[i];
		s->hold_trip = min(s->hold_max, lm_watch_hold[i]);
	}
}
EXPORT_SYMBOL_IF_KUNIT(lm_watch_trip_cpu);

/* The queues of every possible CPU, the first time a threshold is set. */
static int lm_watch_alloc(void)
{
	struct lm_alert_ring *r;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		if (per_cpu(lm_alert_rings, cpu))
			continue;
		r = kvzalloc_node(sizeof(*r), GFP_KERNEL, cpu_to_node(cpu));
		if (!r)
			return -ENOMEM;
		/* in hard interrupt context on PREEMPT_RT too: it only queues the work */
		r->kick = (struct irq_work)IRQ_WORK_INIT_HARD(lm_alert_kick);
		/*
		 * Published with its contents: a CPU that charges a hold may
		 * find it at once.  Pairs with smp_load_acquire() in
		 * lm_watch_raise().
		 */
		smp_store_release(per_cpu_ptr(&lm_alert_rings, cpu), r);
	}
	return 0;
}

/*
 * Set the thresholds of lock type @type (LM_NONE: of every type) to
 * @hold_ns and @wait_ns: 0 clears one, LM_WATCH_KEEP leaves it.  A value
 * out of [LM_WATCH_MIN_NS, LM_WATCH_MAX_NS] is refused and nothing
 * changes.
 */
int lockmeter_watch_set(u32 type, u64 hold_ns, u64 wait_ns)
{
	unsigned int t;
	int ret;

	if (type >= LM_NR_TYPES)
		return -EINVAL;
	if ((hold_ns != LM_WATCH_KEEP && hold_ns &&
	     (hold_ns < LM_WATCH_MIN_NS || hold_ns > LM_WATCH_MAX_NS)) ||
	    (wait_ns != LM_WATCH_KEEP && wait_ns &&
	     (wait_ns < LM_WATCH_MIN_NS || wait_ns > LM_WATCH_MAX_NS)))
		return -ERANGE;

	guard(mutex)(&lm_ctl_mutex);
	ret = lm_watch_alloc();
	if (ret)
		return ret;
	for (t = LM_NONE + 1; t < LM_NR_TYPES; t++) {
		if (type != LM_NONE && t != type)
			continue;
		if (hold_ns != LM_WATCH_KEEP)
			lm_watch_hold_ns[t] = hold_ns;
		if (wait_ns != LM_WATCH_KEEP)
			lm_watch_wait_ns[t] = wait_ns;
	}
	lm_watch_recalc();
	lm_for_every_cpu(lm_watch_trip_cpu, NULL);
	/* whoever set them may listen already (lockstat watch joins first) */
	WRITE_ONCE(lm_alert_deaf, !lm_nl_alert_listened());
	if (lm_watching)
		mod_delayed_work(system_unbound_wq, &lm_watch_work, 0);
	return 0;
}

void lm_watch_read(struct lm_watch_state *st)
{
	memcpy(st->hold_ns, lm_watch_hold_ns, sizeof(st->hold_ns));
	memcpy(st->wait_ns, lm_watch_wait_ns, sizeof(st->wait_ns));
	st->sent = atomic64_read(&lm_watch_sent);
	st->unsent = atomic64_read(&lm_watch_unsent);
	st->held = atomic64_read(&lm_watch_held);
}

/*
 * A reset: the counters start again, in the clock the reset chose.  The
 * alerts still queued were counted in the period that ends: they go with
 * it.  Each CPU's second of alerts starts again at its next alert: a
 * window that ends in the ticks of a clock given up (a TSC found
 * unstable) would stop its alerts for as long as those ticks are ahead
 * of local_clock().  lm_ctl_mutex is held, which keeps the sender out,
 * and no CPU is in the hot paths, where alerts are queued.
 */
void lm_watch_reset(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct lm_alert_ring *r = per_cpu(lm_alert_rings, cpu);

		if (!r)
			continue;
		/* pairs with smp_load_acquire() in lm_watch_raise(), as the sender's */
		smp_store_release(&r->tail, READ_ONCE(r->head));
		r->window = 0;
		r->budget = 0;
	}
	atomic64_set(&lm_watch_sent, 0);
	atomic64_set(&lm_watch_unsent, 0);
	atomic64_set(&lm_watch_held, 0);
	lm_watch_recalc();
}

/* ---- the sender ---- */

/*
 * A socket is joining the alerts group: send again.  It is a member only
 * once this returns, so a sender that looked for listeners just before
 * may still write "deaf": it looks again a moment later.
 */
void lm_watch_heard(void)
{
	WRITE_ONCE(lm_alert_deaf, false);
	mod_delayed_work(system_unbound_wq, &lm_watch_work, HZ / 50);
}

/* Alerts dropped since the reset, by the queues and by the sender. */
static u64 lm_watch_dropped(void)
{
	u64 n = atomic64_read(&lm_watch_unsent);
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct lm_cpu *pc = per_cpu(lm_cpus, cpu);

		if (pc)
			n += READ_ONCE(pc->loss.alerts_dropped);
	}
	return n;
}

/* Room in this second's budget for one more alert. */
static bool lm_watch_budget(void)
{
	if (time_after_eq(jiffies, lm_tx.window)) {
		lm_tx.window = jiffies + HZ;
		lm_tx.budget = LM_WATCH_RATE;
	}
	return lm_tx.budget > 0;
}

/* Send alert @m of @key, named with lm_tx.names, or count it dropped. */
static void lm_watch_send(struct lm_alert_msg *m, const struct lm_key *key)
{
	if (!lm_nl_alert_listened()) {
		atomic64_inc(&lm_watch_unsent);
		return;
	}
	lm_tx.budget--;
	m->key = key;
	m->seq = lm_tx.seq + 1;
	m->dropped = lm_watch_dropped();
	if (lm_nl_alert_send(m, &lm_tx.names)) {
		atomic64_inc(&lm_watch_unsent);
	} else {
		lm_tx.seq++;
		atomic64_inc(&lm_watch_sent);
	}
}

static void lm_watch_send_rec(const struct lm_alert_rec *a)
{
	struct lm_alert_msg m = {
		.kind = a->kind,
		.ns = lm_ticks_to_ns(a->ev.ticks),
		.thr_ns = lm_ticks_to_ns(a->thr),
		.ev = {
			.t = lm_ticks_to_ns(a->ev.t),
			.pid = a->ev.pid,
			.owner_pid = a->owner.pid,
			.cpu = a->ev.cpu,
			.ctx = a->ev.ctx,
			.set = 1,
			.nr = a->nr,
			.blk = lm_ticks_to_ns(a->blk),
			.blk_nr = a->blk ? a->blk_nr : 0,
			.ip = (unsigned long *)a->ip,
			.blk_ip = (unsigned long *)a->blk_ip,
		},
	};

	memcpy(m.ev.comm, a->ev.comm, sizeof(m.ev.comm));
	memcpy(m.ev.owner_comm, a->owner.comm, sizeof(m.ev.owner_comm));
	lm_watch_send(&m, &a->key);
}

/*
 * Up to @limit alerts from the queues into lm_tx.batch, each CPU's oldest
 * first, and from each CPU its share, beginning one CPU further each
 * time: a CPU that alerts without end takes no other's turn.  Whether
 * some were left.
 */
static unsigned int lm_watch_take(unsigned int limit, bool *more)
{
	unsigned int share = max(DIV_ROUND_UP(limit, num_online_cpus()), 1U);
	unsigned int i, cpu, n = 0;

	lm_tx.first = cpumask_next(lm_tx.first, cpu_possible_mask);
	if (lm_tx.first >= nr_cpu_ids)
		lm_tx.first = cpumask_first(cpu_possible_mask);
	for (i = 0, cpu = lm_tx.first; i < nr_cpu_ids; i++, cpu = (cpu + 1) % nr_cpu_ids) {
		struct lm_alert_ring *r = cpu_possible(cpu) ? per_cpu(lm_alert_rings, cpu) : NULL;
		unsigned int tail, head, end;

		if (!r)
			continue;
		tail = r->tail;
		/* pairs with smp_store_release() in lm_watch_raise(): the alert first */
		head = smp_load_acquire(&r->head);
		end = n + min(share, limit - n);
		while (tail != head && n < end)
			lm_tx.batch[n++] = r->rec[tail++ % LM_ALERT_RING];
		/* pairs with smp_load_acquire() in lm_watch_raise(): copied before reused */
		smp_store_release(&r->tail, tail);
		/* pairs with smp_mb() in lm_watch_raise(): an alert left is seen */
		smp_mb();
		*more |= READ_ONCE(r->head) != tail;
	}
	return n;
}

static int lm_alert_rec_cmp(const void *a, const void *b)
{
	const struct lm_alert_rec *x = a, *y = b;

	if (x->ev.t != y->ev.t)
		return x->ev.t < y->ev.t ? -1 : 1;
	return 0;
}

/*
 * Send what the queues hold, in the order the holds and waits ended, as
 * far as this second's budget goes; whether some are left.
 */
static bool lm_watch_drain(void)
{
	bool more = false;
	unsigned int i, n;

	/* nobody listens: what is queued is dropped, and the CPUs drop the rest */
	WRITE_ONCE(lm_alert_deaf, !lm_nl_alert_listened());
	if (lm_alert_deaf) {
		while ((n = lm_watch_take(LM_WATCH_BATCH, &more)))
			atomic64_add(n, &lm_watch_unsent);
		return false;
	}
	if (!lm_watch_budget()) {
		lm_watch_take(0, &more);
		return more;
	}
	n = lm_watch_take(min_t(unsigned int, lm_tx.budget, LM_WATCH_BATCH), &more);
	sort(lm_tx.batch, n, sizeof(lm_tx.batch[0]), lm_alert_rec_cmp, NULL);
	for (i = 0; i < n; i++)
		lm_tx.rows[i].key = lm_tx.batch[i].key;
	/* an alert's listeners are not known here: no raw address */
	lm_names_init(&lm_tx.names, &(struct lm_snapshot){ .rows = lm_tx.rows, .nr = n }, false);
	for (i = 0; i < n; i++)
		lm_watch_send_rec(&lm_tx.batch[i]);
	lm_names_free(&lm_tx.names);
	return more;
}

/* Whether the hold (@lock, @pid, @since) was sent as held by the last scan. */
static bool lm_watch_seen(const struct lm_held_row *r)
{
	const struct lm_watch_seen *s = lm_tx.seen[!lm_tx.cur];
	unsigned int i;

	for (i = 0; i < lm_tx.nr_seen[!lm_tx.cur]; i++)
		if (s[i].lock == r->lock && s[i].pid == r->pid && s[i].since == r->since)
			return true;
	return false;
}

static void lm_watch_send_held(struct lm_held_snap *hs, const struct lm_held_row *r, u64 thr)
{
	struct lm_alert_msg m = {
		.kind = LOCKMETER_ALERT_HELD,
		.ns = r->ns,
		.thr_ns = thr,
		.ev = {
			.t = lm_ticks_to_ns(lm_ticks()),
			.pid = r->pid,
			.cpu = r->cpu >= 0 ? r->cpu : raw_smp_processor_id(),
			.ctx = LOCKMETER_CTX_TASK,
			.set = 1,
			.nr = r->nr,
			.ip = (unsigned long *)r->ip,
		},
		.waiters = hs->waiters + r->waiter,
		.nr_waiters = r->nr_waiters,
	};

	memcpy(m.ev.comm, r->comm, sizeof(m.ev.comm));
	atomic64_inc(&lm_watch_held);
	if (!lm_watch_budget()) {
		atomic64_inc(&lm_watch_unsent);
		return;
	}
	lm_tx.rows[0].key = r->key;
	lm_names_init(&lm_tx.names, &(struct lm_snapshot){ .rows = lm_tx.rows, .nr = 1 }, false);
	lm_watch_send(&m, &r->key);
	lm_names_free(&lm_tx.names);
}

/*
 * The sleeping locks held longer than their type's hold threshold now,
 * each hold sent once: a hold sent before is remembered from one scan to
 * the next while it lasts.  The least of those thresholds, ns, is @over.
 */
static void lm_watch_scan(u64 over)
{
	struct lm_held_snap *hs;
	struct lm_watch_seen *seen;
	unsigned int next = !lm_tx.cur;
	size_t i;

	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs || lm_held_snapshot(hs, over)) {
		kfree(hs);
		return;
	}
	/* counted within one period (lm_watch_reset()) */
	mutex_lock(&lm_ctl_mutex);
	/* this scan's list goes where the one before the last was */
	lm_tx.cur = next;
	seen = lm_tx.seen[lm_tx.cur];
	lm_tx.nr_seen[lm_tx.cur] = 0;
	for (i = 0; i < hs->nr; i++) {
		const struct lm_held_row *r = &hs->rows[i];
		u32 type = r->key.type;
		u64 thr;

		if (!lm_type_sleeps(type) || type >= LM_NR_TYPES || !r->pid)
			continue;
		thr = lm_watch_hold_ns[type];
		if (!thr || r->ns <= thr)
			continue;
		if (!lm_watch_seen(r))
			lm_watch_send_held(hs, r, thr);
		seen[lm_tx.nr_seen[lm_tx.cur]++] = (struct lm_watch_seen){
			.lock = r->lock, .pid = r->pid, .since = r->since,
		};
	}
	mutex_unlock(&lm_ctl_mutex);
	lm_held_free(hs);
	kfree(hs);
}

/* The least hold threshold of a sleeping lock type, ns, or 0: none. */
static u64 lm_watch_sleep_over(void)
{
	u64 over = 0;
	unsigned int t;

	for (t = LM_NONE + 1; t < LM_NR_TYPES; t++) {
		u64 ns = READ_ONCE(lm_watch_hold_ns[t]);

		if (lm_type_sleeps(t) && ns && (!over || ns < over))
			over = ns;
	}
	return over;
}

/*
 * Send what is queued; scan for held locks when it is time; and come back
 * while any threshold is set and someone listens: at once when the budget
 * of this second is not spent and alerts are left, at the next second
 * when it is, and at the next scan anyway.  With nobody listening (a
 * threshold left set by a lockstat watch that was killed) it stops: the
 * CPUs drop their alerts without a kick, and a socket that joins the
 * alerts group starts it again (lm_watch_heard()); on 6.1, which has no
 * bind callback, it goes on looking for a listener once a second, and
 * scans nothing.  An unbound worker: a
 * scan may take a while, and no CPU's other work waits for it.
 */
static void lm_watch_fn(struct work_struct *work)
{
	unsigned long now = jiffies, delay;
	u64 over = lm_watch_sleep_over();
	bool more;

	/* its own locks (lm_ctl_mutex, the socket's, the wakeups) raise no alerts */
	WRITE_ONCE(lm_alert_sender, current);
	/* what it takes from the queues it counts in the period it took it in */
	mutex_lock(&lm_ctl_mutex);
	more = lm_watch_drain();
	mutex_unlock(&lm_ctl_mutex);

	if (over && READ_ONCE(lm_on) && !READ_ONCE(lm_alert_deaf) &&
	    time_after_eq(now, lm_tx.next_scan)) {
		lm_watch_scan(over);
		delay = clamp_t(unsigned long, nsecs_to_jiffies(over / 2),
				LM_WATCH_SCAN_MIN, LM_WATCH_SCAN_MAX);
		lm_tx.next_scan = now + delay;
	}
	/* without a bind callback (6.1) only this finds a new listener */
	if ((READ_ONCE(lm_watching) && (!READ_ONCE(lm_alert_deaf) || !LM_GENL_HAS_BIND)) ||
	    more) {
		delay = LM_WATCH_SCAN_MAX;
		if (over)
			delay = min(delay, time_after(lm_tx.next_scan, now) ?
					   lm_tx.next_scan - now : 0);
		if (more)
			delay = lm_tx.budget ? 0 :
				min(delay, time_after(lm_tx.window, now) ? lm_tx.window - now : 0);
		mod_delayed_work(system_unbound_wq, &lm_watch_work, delay);
	}
	WRITE_ONCE(lm_alert_sender, NULL);
}
