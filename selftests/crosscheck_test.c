// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter against a second instrument watching the same locks in the
 * same boot.  The test module's static locks are each a lockdep class of
 * their own, taken at one site each, so one class is one lockmeter row.
 * The definitions compared (Documentation/locking/lockmeter.rst, "Checked
 * against lock_stat and the lock trace events"):
 *
 *   lock_stat acquisitions (holdtime.nr): one per release of a hold,
 *   trylocks included.  lockmeter's acquired: one per acquisition.  Both
 *   reset, a workload that is over before either is read: equal.
 *
 *   lock_stat contentions (waittime.nr): one per acquisition that followed
 *   lock_contended() with a non-zero wait.  A spin lock calls it when the
 *   first trylock fails, which is what lockmeter counts as a wait; a
 *   mutex only on the sleeping path, after the slow path's own first
 *   trylock and optimistic spinning failed, while lockmeter counts a
 *   wait when that first trylock fails.  So lock_stat's <= lockmeter's
 *   for both.
 *
 *   lock:contention_begin/end: __mutex_lock_common() emits one end per
 *   call, and a begin without SPIN (flags=MUTEX) before each sleep; a
 *   call that slept had its first trylock fail, and lockmeter's wait
 *   begins there and is in one call: a mutex's calls that slept <= its
 *   waits <= its contention_end events.  (Without lockdep the slow path
 *   runs only when the inline fast trylock failed; with it, always.)  A
 *   holder busy on its CPU is mostly waited for by spinning: the test
 *   drives contention until there are waits, not sleeps.
 *   queued_spin_lock_slowpath() emits them only
 *   on the MCS queue path, which needs a third CPU arriving while one
 *   holds the lock and one waits on the pending bit: <= the waits, and
 *   with three CPUs or more the test drives contention until some come.
 *   On PREEMPT_RT a spinlock_t is an rtmutex, and the events at its
 *   address are of two locks: the rtmutex's own, flags=RT, one begin and
 *   one end per rtlock_slowlock() that blocked, whose fast acquisition
 *   failed, which is where lockmeter's rt_spin wait begins: <= the
 *   rt_spin waits; and those of its raw wait_lock, the rtmutex's first
 *   member, at the same address: flags=SPIN, queued by waiters and
 *   unlockers alike, and by a waiter again each time it wakes, each one
 *   a wait of lockmeter's spin rows of that lock, at the rtmutex's sites.
 *   A contention_end names no flags: it ends the newest open begin of its
 *   task (a waiter queues on the wait_lock inside its rtmutex wait).
 *
 *   qspinlock's event counters (CONFIG_LOCK_EVENT_COUNTS): lock_pending
 *   and lock_slowpath count contended acquisitions on the native slow
 *   path; virt_spin_lock() (on when the CPUID hypervisor bit is set and
 *   no paravirt spin lock took over) returns before either is counted.
 *
 * Each part SKIPs on a kernel without its instrument.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "lockmeter_lib.h"

#define LOCK_STAT	"/proc/lock_stat"
#define LOCK_STAT_ON	"/proc/sys/kernel/lock_stat"
#define TRACEFS		"/sys/kernel/tracing"
#define DEBUGFS		"/sys/kernel/debug"
#define LOCK_EVENTS	DEBUGFS "/lock_event_counts"

/* Bounds on driving contention: rounds of a module command, not seconds. */
#define MAX_ROUNDS	40

/* One test module lock and the command that takes it. */
struct xc_lock {
	const char *type;	/* lockmeter's row type */
	const char *lock;	/* symbol = lockdep class name */
	const char *site;	/* the module function that takes it */
	const char *cmd;	/* printf format: the number of kthreads */
	bool contended;		/* cmd makes waits */
	bool ls_waits;		/* lock_stat counts them too (not a mutex's spin) */
};

static const struct xc_lock xc_spin = {
	"spin", "lmt_contended_lock", "lmt_contend", "contend %ld 200 50", true, true,
};
static const struct xc_lock xc_mutex = {
	"mutex", "lmt_contended_mutex", "lmt_mutex_contend", "mutex_contend %ld 40 200", true, false,
};
static const struct xc_lock xc_rwlock = {
	"write", "lmt_rwlock", "lmt_writer", "writer 300 5", false, false,
};
static const struct xc_lock xc_rwsem = {
	"rwsem_write", "lmt_rwsem", "lmt_rwsem_writer", "rwsem_writer 300 5", false, false,
};
/* hooked in place: lockmeter's hooks sit next to lockdep's annotations */
static const struct xc_lock xc_rtmutex = {
	"rt_mutex", "lmt_rtmutex", "lmt_rtmutex_hold", "rtmutex_hold 300 5", false, false,
};
/* each write waits for an RCU grace period: fewer of them */
static const struct xc_lock xc_pcpu_write = {
	"percpu_rwsem_write", "lmt_pcpu_rwsem", "lmt_pcpu_writer", "pcpu_write 30 5", false, false,
};

/* lockmeter's acquisitions and waits of @x, over its rows (one site). */
struct xc_counts {
	uint64_t acquired, waits;
	size_t rows;
};

static void xc_lockmeter(struct __test_metadata *_metadata,
			 const struct xc_lock *x, struct xc_counts *c)
{
	struct lm_report rep;
	size_t i;

	memset(c, 0, sizeof(*c));
	lm_report_read(_metadata, &rep);
	for (i = 0; i < rep.nr_rows; i++) {
		const struct lm_row *r = &rep.rows[i];

		if (strcmp(r->type, lm_type(x->type)) || !lm_lock_named(r->lock, x->lock))
			continue;
		EXPECT_TRUE(lm_site_in(r->site, x->site))
			TH_LOG("%s taken at %s, not in %s", x->lock, r->site, x->site);
		c->acquired += r->acquired;
		c->waits += r->spin;
		c->rows++;
	}
	lm_report_free(&rep);
}

/* Kthreads for a contended command: one per CPU, at least two. */
static long xc_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 2 ? 2 : n;
}

static void xc_run(struct __test_metadata *_metadata, const struct xc_lock *x)
{
	lm_mod_cmd(_metadata, x->cmd, xc_threads());
}

/* ---- lock_stat ---- */

struct xc_lockstat {
	uint64_t contentions, acquisitions;
};

/*
 * The line of class @name in /proc/lock_stat: "name:" (or "name-W:" for
 * the write side of a class also taken for reading) right-aligned, then
 * con-bounces, contentions, four wait times, acq-bounces, acquisitions
 * and four hold times.  0 and the counts, or -1 when the class has none.
 */
static int xc_lockstat_read(struct __test_metadata *_metadata, const char *name,
			    struct xc_lockstat *ls)
{
	char *text = lm_read_file(LOCK_STAT), *line, *next;
	size_t n = strlen(name);
	int found = -1;

	EXPECT_NE(NULL, text) TH_LOG("read %s: %s", LOCK_STAT, strerror(errno));
	if (!text)
		return -1;
	for (line = text; *line; line = next) {
		char *p = line + strspn(line, " "), *f[12];
		int nf;

		next = lm_cut_line(line);
		if (strncmp(p, name, n))
			continue;
		if (p[n] == ':')
			p += n + 1;
		else if (!strncmp(p + n, "-W:", 3))
			p += n + 3;
		else
			continue;
		TH_LOG("%s: %s", LOCK_STAT, line);
		nf = lm_split(p, f, 12);
		EXPECT_EQ(12, nf) TH_LOG("%s: %d fields after the name", name, nf);
		if (nf != 12)
			break;
		EXPECT_EQ(0, lm_parse_u64(f[1], &ls->contentions)) TH_LOG("%s", f[1]);
		EXPECT_EQ(0, lm_parse_u64(f[7], &ls->acquisitions)) TH_LOG("%s", f[7]);
		found = 0;
		break;
	}
	free(text);
	return found;
}

FIXTURE(lock_stat) {
	char was_on[8];
};

FIXTURE_SETUP(lock_stat)
{
	char *v;

	lm_setup(_metadata);
	if (access(LOCK_STAT, F_OK))
		SKIP(return, "%s missing: kernel without CONFIG_LOCK_STAT", LOCK_STAT);
	v = lm_read_file(LOCK_STAT_ON);
	ASSERT_NE(NULL, v);
	snprintf(self->was_on, sizeof(self->was_on), "%s", v);
	free(v);
	ASSERT_EQ(0, lm_write(LOCK_STAT_ON, "1\n", 2));
}

FIXTURE_TEARDOWN(lock_stat)
{
	EXPECT_EQ(0, lm_ctl("off"));
	if (self->was_on[0])
		EXPECT_EQ(0, lm_write(LOCK_STAT_ON, self->was_on, strlen(self->was_on)));
}

/* Both reset, metered, both read: acquisitions equal, waits one way. */
static void xc_against_lock_stat(struct __test_metadata *_metadata,
				 const struct xc_lock *x)
{
	struct xc_lockstat ls = { 0 };
	struct xc_counts lm;
	int round;

	for (round = 0; round < MAX_ROUNDS; round++) {
		ASSERT_EQ(0, lm_write(LOCK_STAT, "0\n", 2));
		ASSERT_EQ(0, lm_ctl("reset"));
		ASSERT_EQ(0, lm_ctl("on"));
		xc_run(_metadata, x);
		ASSERT_EQ(0, lm_ctl("off"));

		xc_lockmeter(_metadata, x, &lm);
		ASSERT_EQ(1U, lm.rows) TH_LOG("%s %s: one site, one row", x->type, x->lock);
		ASSERT_EQ(0, xc_lockstat_read(_metadata, x->lock, &ls))
			TH_LOG("no line for class %s in %s", x->lock, LOCK_STAT);
		TH_LOG("%s: lockmeter acquired %" PRIu64 " waits %" PRIu64
		       ", lock_stat acquisitions %" PRIu64 " contentions %" PRIu64,
		       x->lock, lm.acquired, lm.waits, ls.acquisitions, ls.contentions);
		ASSERT_EQ(ls.acquisitions, lm.acquired);
		ASSERT_LE(ls.contentions, lm.waits);
		/*
		 * A contended lock: go on until lockmeter saw waits, and for a
		 * spin lock lock_stat too; a mutex's waiter mostly gets it by
		 * optimistic spinning, which lock_stat does not count.
		 */
		if (!x->contended || (lm.waits && (ls.contentions || !x->ls_waits)))
			break;
	}
	if (x->contended) {
		EXPECT_LT(0ULL, lm.waits) TH_LOG("no contention in %d rounds", round);
		if (x->ls_waits)
			EXPECT_LT(0ULL, ls.contentions) TH_LOG("none for lock_stat in %d rounds", round);
	} else {
		EXPECT_EQ(0ULL, lm.waits);
		EXPECT_EQ(0ULL, ls.contentions);
	}
}

TEST_F(lock_stat, spin)
{
	xc_against_lock_stat(_metadata, &xc_spin);
}

TEST_F(lock_stat, mutex)
{
	xc_against_lock_stat(_metadata, &xc_mutex);
}

TEST_F(lock_stat, rwlock_write)
{
	xc_against_lock_stat(_metadata, &xc_rwlock);
}

TEST_F(lock_stat, rwsem_write)
{
	xc_against_lock_stat(_metadata, &xc_rwsem);
}

TEST_F(lock_stat, rt_mutex)
{
	xc_against_lock_stat(_metadata, &xc_rtmutex);
}

TEST_F(lock_stat, percpu_rwsem_write)
{
	xc_against_lock_stat(_metadata, &xc_pcpu_write);
}

/* ---- lock trace events ---- */

static int xc_put(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	return lm_write(path, val, strlen(val));
}

/* Empty the ring buffer: "trace" opened for writing with O_TRUNC. */
static int xc_clear_trace(void)
{
	int fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The address of module symbol @sym, from /proc/kallsyms (root). */
static unsigned long xc_symbol(struct __test_metadata *_metadata, const char *sym)
{
	char line[512], name[256];
	unsigned long addr = 0, a;
	FILE *f = fopen("/proc/kallsyms", "r");
	char t;

	EXPECT_NE(NULL, f);
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &a, &t, name) == 3 && !strcmp(name, sym) &&
		    strstr(line, LM_MOD_SUFFIX)) {
			addr = a;
			break;
		}
	fclose(f);
	return addr;
}

/* Whether trace event file @file (an "enable") reads "1". */
static bool xc_enabled(const char *file)
{
	char path[256], *v;
	bool on;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	v = lm_read_file(path);
	on = v && v[0] == '1';
	free(v);
	return on;
}

/*
 * Enabling an event flips its static key, which patches kernel text; a
 * boot that must not (lockmeter=pinned under multi-threaded TCG) enables
 * both events on its command line (trace_event=), and the test then
 * leaves them as they are and only sets filters and tracing_on.
 */
FIXTURE(trace) {
	bool armed, flip;
};

FIXTURE_SETUP(trace)
{
	lm_setup(_metadata);
	if (access(TRACEFS "/events", F_OK))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (access(TRACEFS "/events/lock/contention_end", F_OK))
		SKIP(return, "no lock:contention_end event: kernel without tracing");
	self->armed = true;
	self->flip = !xc_enabled("events/lock/contention_begin/enable") ||
		     !xc_enabled("events/lock/contention_end/enable");
	if (self->flip) {
		ASSERT_EQ(0, xc_put("events/lock/contention_begin/enable", "1"));
		ASSERT_EQ(0, xc_put("events/lock/contention_end/enable", "1"));
	}
}

FIXTURE_TEARDOWN(trace)
{
	EXPECT_EQ(0, lm_ctl("off"));
	if (!self->armed)
		return;
	xc_put("tracing_on", "0");
	if (self->flip) {
		xc_put("events/lock/contention_begin/enable", "0");
		xc_put("events/lock/contention_end/enable", "0");
	}
	xc_put("events/lock/contention_begin/filter", "0");
	xc_put("events/lock/contention_end/filter", "0");
	xc_clear_trace();
	xc_put("tracing_on", "1");
}

/* The pid of a trace line's "comm-pid [cpu]" field; 0 if none. */
static long xc_line_pid(const char *line)
{
	const char *cpu = strstr(line, " [");
	const char *dash;

	if (!cpu)
		return 0;
	for (dash = cpu; dash > line && dash[-1] != '-'; dash--)
		;
	return dash > line ? strtol(dash, NULL, 10) : 0;
}

#define XC_TASKS	64

/* A task's contention_begin events not ended yet, newest last. */
#define XC_NEST		4

/* The lock trace events at one address. */
struct xc_events {
	uint64_t begins, ends;
	uint64_t slept;		/* ends after a begin of the task's own with flags=MUTEX */
	uint64_t spin;		/* ends of a begin with flags=SPIN: a spinning lock's queue */
	uint64_t rt;		/* ends of a begin with RT among its flags: an rtmutex's wait */
};

/* The flags of a contention_begin line, e.g. "SPIN" or "MUTEX|SPIN". */
static void xc_begin_flags(const char *line, char *flags, size_t len)
{
	const char *f = strstr(line, "(flags=");
	size_t n;

	*flags = '\0';
	if (!f)
		return;
	f += strlen("(flags=");
	n = strcspn(f, ")");
	if (n >= len)
		n = len - 1;
	memcpy(flags, f, n);
	flags[n] = '\0';
}

/*
 * Meter @x with lock:contention_begin/end traced for its address only;
 * return lockmeter's waits, and the events in @ev.
 */
static uint64_t xc_traced(struct __test_metadata *_metadata, const struct xc_lock *x,
			  unsigned long addr, struct xc_events *ev)
{
	char filter[64], flags[32], *text, *line, *next;
	uint64_t in_buf = 0, written = 0;
	long pid[XC_TASKS] = { 0 };
	bool asleep[XC_TASKS] = { false };
	/* each task's open begins: 'S' flags=SPIN, 'R' with RT, 'o' other */
	char open[XC_TASKS][XC_NEST];
	int depth[XC_TASKS] = { 0 };
	struct xc_counts lm;
	size_t i;

	snprintf(filter, sizeof(filter), "lock_addr == 0x%lx", addr);
	ASSERT_EQ(0, xc_put("tracing_on", "0"));
	ASSERT_EQ(0, xc_clear_trace());
	ASSERT_EQ(0, xc_put("events/lock/contention_begin/filter", filter));
	ASSERT_EQ(0, xc_put("events/lock/contention_end/filter", filter));
	ASSERT_EQ(0, xc_clear_trace());
	ASSERT_EQ(0, xc_put("tracing_on", "1"));

	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	xc_run(_metadata, x);
	ASSERT_EQ(0, lm_ctl("off"));
	ASSERT_EQ(0, xc_put("tracing_on", "0"));

	text = lm_read_file(TRACEFS "/trace");
	ASSERT_NE(NULL, text);
	memset(ev, 0, sizeof(*ev));
	for (line = text; *line; line = next) {
		bool begin, end;
		long p;

		next = lm_cut_line(line);
		if (sscanf(line, "# entries-in-buffer/entries-written: %" SCNu64 "/%" SCNu64,
			   &in_buf, &written) == 2)
			continue;
		if (*line == '#')
			continue;
		begin = strstr(line, " contention_begin: ");
		end = strstr(line, " contention_end: ");
		ev->begins += begin;
		ev->ends += end;
		if (!begin && !end)
			continue;
		p = xc_line_pid(line);
		ASSERT_LT(0, p) TH_LOG("no pid in \"%s\"", line);
		for (i = 0; i < XC_TASKS && pid[i] && pid[i] != p; i++)
			;
		ASSERT_GT((size_t)XC_TASKS, i) TH_LOG("more than %d tasks", XC_TASKS);
		pid[i] = p;
		if (begin) {
			xc_begin_flags(line, flags, sizeof(flags));
			if (!strcmp(flags, "MUTEX"))
				asleep[i] = true;
			/*
			 * A mutex's sleeping waiter begins again each time it
			 * sleeps, and ends once: its oldest begins are dropped.
			 */
			if (depth[i] == XC_NEST) {
				memmove(open[i], open[i] + 1, XC_NEST - 1);
				depth[i]--;
			}
			open[i][depth[i]++] = !strcmp(flags, "SPIN") ? 'S' :
					      strstr(flags, "RT") ? 'R' : 'o';
			continue;
		}
		ev->slept += asleep[i];
		asleep[i] = false;
		ASSERT_LT(0, depth[i]) TH_LOG("an end with no begin: \"%s\"", line);
		switch (open[i][--depth[i]]) {
		case 'S':
			ev->spin++;
			break;
		case 'R':
			ev->rt++;
			break;
		}
	}
	free(text);
	/* nothing lost: a full ring buffer would make any count a guess */
	EXPECT_EQ(in_buf, written) TH_LOG("the trace buffer overflowed");
	EXPECT_EQ(ev->begins + ev->ends, in_buf);

	xc_lockmeter(_metadata, x, &lm);
	EXPECT_EQ(1U, lm.rows);
	return lm.waits;
}

TEST_F(trace, mutex_waits_between_sleeps_and_events)
{
	unsigned long addr = xc_symbol(_metadata, xc_mutex.lock);
	struct xc_events ev = { 0 };
	uint64_t waits = 0;
	int round;

	ASSERT_NE(0UL, addr) TH_LOG("%s not in /proc/kallsyms", xc_mutex.lock);
	for (round = 0; round < MAX_ROUNDS && !waits; round++) {
		waits = xc_traced(_metadata, &xc_mutex, addr, &ev);
		TH_LOG("round %d: lockmeter waits %" PRIu64 ", contention_begin %" PRIu64
		       ", contention_end %" PRIu64 ", calls that slept %" PRIu64,
		       round, waits, ev.begins, ev.ends, ev.slept);
		ASSERT_LE(ev.slept, waits);
		ASSERT_LE(waits, ev.ends);
		/* one begin on entry, one more for each time the waiter slept */
		ASSERT_LE(ev.ends, ev.begins);
	}
	EXPECT_LT(0ULL, waits) TH_LOG("no contention in %d rounds", round);
}

/*
 * The waits of lockmeter's rows of spinning type "spin" for @lock, at any
 * site: on PREEMPT_RT those of a spinlock_t's raw wait_lock, taken at the
 * rtmutex's sites; elsewhere those of the spinlock_t itself.
 */
static uint64_t xc_raw_waits(struct __test_metadata *_metadata, const char *lock)
{
	struct lm_report rep;
	uint64_t waits = 0;
	size_t i;

	lm_report_read(_metadata, &rep);
	for (i = 0; i < rep.nr_rows; i++)
		if (!strcmp(rep.rows[i].type, "spin") && lm_lock_named(rep.rows[i].lock, lock))
			waits += rep.rows[i].spin;
	lm_report_free(&rep);
	return waits;
}

TEST_F(trace, spin_events_at_most_waits)
{
	unsigned long addr = xc_symbol(_metadata, xc_spin.lock);
	bool queue = sysconf(_SC_NPROCESSORS_ONLN) >= 3;
	uint64_t waits = 0, raw_waits = 0;
	struct xc_events ev = { 0 };
	int round;

	ASSERT_NE(0UL, addr) TH_LOG("%s not in /proc/kallsyms", xc_spin.lock);
	for (round = 0; round < MAX_ROUNDS; round++) {
		waits = xc_traced(_metadata, &xc_spin, addr, &ev);
		raw_waits = xc_raw_waits(_metadata, xc_spin.lock);
		TH_LOG("round %d: lockmeter waits %" PRIu64 " (%s), %" PRIu64
		       " (spin, any site); contention_begin %" PRIu64 ", contention_end %"
		       PRIu64 ": %" PRIu64 " flags=SPIN, %" PRIu64 " RT", round, waits,
		       lm_type("spin"), raw_waits, ev.begins, ev.ends, ev.spin, ev.rt);
		ASSERT_EQ(ev.begins, ev.ends);
		/* a spinlock_t's events: a spinning lock's queue, or an rtmutex's wait */
		ASSERT_EQ(ev.ends, ev.spin + ev.rt);
		ASSERT_LE(ev.spin, raw_waits);
		if (lm_preempt_rt()) {
			/*
			 * A spinlock_t's wait begins where its rtmutex's slow
			 * path finds it taken, next to contention_begin: one
			 * wait for each of its events, no more, no fewer.
			 */
			ASSERT_EQ(ev.rt, waits);
		} else {
			ASSERT_EQ(0ULL, ev.rt);
		}
		if (ev.ends || !queue)
			break;
	}
	EXPECT_LT(0ULL, waits);
	/* two CPUs never queue: one holds, the other waits on the pending bit */
	if (queue)
		EXPECT_LT(0ULL, ev.ends) TH_LOG("no queued waiter in %d rounds", round);
}

/* ---- the native qspinlock slow path ---- */

static uint64_t xc_lock_event(struct __test_metadata *_metadata, const char *name)
{
	char path[128], *text;
	uint64_t v = 0;

	snprintf(path, sizeof(path), LOCK_EVENTS "/%s", name);
	text = lm_read_file(path);
	ASSERT_NE(NULL, text) TH_LOG("read %s: %s", path, strerror(errno));
	text[strcspn(text, "\n")] = '\0';
	EXPECT_EQ(0, lm_parse_u64(text, &v)) TH_LOG("%s: %s", path, text);
	free(text);
	return v;
}

/* Whether /proc/cpuinfo lists the CPUID "hypervisor" flag. */
static bool xc_hypervisor_flag(struct __test_metadata *_metadata)
{
	char *text = lm_read_file("/proc/cpuinfo"), *line, *next;
	bool found = false;

	ASSERT_NE(NULL, text);
	for (line = text; *line && !found; line = next) {
		next = lm_cut_line(line);
		if (!strncmp(line, "flags", 5))
			found = strstr(line, " hypervisor ") || lm_ends_with(line, " hypervisor");
	}
	free(text);
	return found;
}

FIXTURE(native) {
	int unused;
};

FIXTURE_SETUP(native)
{
	lm_setup(_metadata);
}

FIXTURE_TEARDOWN(native)
{
	EXPECT_EQ(0, lm_ctl("off"));
}

/*
 * The guests boot with the hypervisor bit off (scripts/run-guest.sh), so
 * that a kernel with PARAVIRT_SPINLOCKS leaves virt_spin_lock_key off
 * and contended spin locks queue as on bare metal.
 */
TEST_F(native, no_hypervisor_bit)
{
	EXPECT_FALSE(xc_hypervisor_flag(_metadata))
		TH_LOG("CPUID hypervisor bit set: virt_spin_lock() takes contended spin locks");
}

TEST_F(native, contended_spin_takes_qspinlock_slowpath)
{
	uint64_t before, after = 0;
	int round;

	if (lm_preempt_rt())
		SKIP(return, "PREEMPT_RT: spinlock_t is an rtmutex, not a qspinlock");
	if (access(LOCK_EVENTS, F_OK))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	if (access(LOCK_EVENTS "/lock_pending", F_OK))
		SKIP(return, "no %s: kernel without CONFIG_LOCK_EVENT_COUNTS", LOCK_EVENTS);
	before = xc_lock_event(_metadata, "lock_pending") +
		 xc_lock_event(_metadata, "lock_slowpath");
	for (round = 0; round < MAX_ROUNDS && after <= before; round++) {
		ASSERT_EQ(0, lm_ctl("on"));
		xc_run(_metadata, &xc_spin);
		ASSERT_EQ(0, lm_ctl("off"));
		after = xc_lock_event(_metadata, "lock_pending") +
			xc_lock_event(_metadata, "lock_slowpath");
	}
	TH_LOG("lock_pending + lock_slowpath: %" PRIu64 " -> %" PRIu64 " in %d rounds",
	       before, after, round);
	EXPECT_LT(before, after) TH_LOG("contention never reached the native slow path");
}

TEST_HARNESS_MAIN
