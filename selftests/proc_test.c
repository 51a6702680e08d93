// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/lockmeter: presence, permissions, version line, header, the shape
 * of the rows, and the control words: on/off/reset/0 work, anything else
 * is EINVAL and changes nothing, and writing needs CAP_SYS_ADMIN.  And
 * /proc/lockmeter_hist, the histograms of the same rows.
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lockmeter_lib.h"

#define NOBODY 65534

FIXTURE(proc)
{
	char *text;
};

FIXTURE_SETUP(proc)
{
	if (access(LM_PROC, F_OK))
		SKIP(return, "%s missing: kernel without CONFIG_LOCKMETER", LM_PROC);
	self->text = lm_read_file(LM_PROC);
	ASSERT_NE(NULL, self->text) TH_LOG("read %s: %s", LM_PROC, strerror(errno));
}

FIXTURE_TEARDOWN(proc)
{
	free(self->text);
}

TEST_F(proc, version_line)
{
	EXPECT_EQ(0, strncmp(self->text, "lockmeter version 1\n", 20))
		TH_LOG("first line: %.40s", self->text);
}

TEST_F(proc, header_matches_system)
{
	struct utsname u;
	char val[128];

	ASSERT_EQ(0, uname(&u));
	ASSERT_EQ(0, lm_header(self->text, "kernel", val, sizeof(val)));
	EXPECT_STREQ(u.release, val);

	ASSERT_EQ(0, lm_header(self->text, "cpus", val, sizeof(val)));
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), atol(val));

	/* the raw TSC where the kernel trusts it, else local_clock() */
	ASSERT_EQ(0, lm_header(self->text, "clock", val, sizeof(val)));
	EXPECT_TRUE(!strcmp(val, "tsc") || !strcmp(val, "local_clock")) TH_LOG("clock: %s", val);

	ASSERT_EQ(0, lm_header(self->text, "state", val, sizeof(val)));
	EXPECT_TRUE(!strcmp(val, "on") || !strcmp(val, "off")) TH_LOG("state: %s", val);

	EXPECT_NE(0, lm_header(self->text, "no_such_key", val, sizeof(val)));
}

/* Every header key, in the documented order, before the blank line. */
TEST_F(proc, header_order)
{
	static const char * const keys[] = {
		"kernel", "cpus", "clock", "state", "metered_ns", "resets",
		"keys_used", "keys",
		"slots_used", "slots_per_cpu", "rows", "dropped", "unmatched",
		"recursion", "table_full", "evicted", "irqctx", "truncated", "stack_depth",
		"task_depth", "notask", "mem_percpu", "mem_tables",
		"mem_task", "mem_keys", "mem_cpus", "mem_rows", "mem_cap", "cache_fills",
		"stacks_full", "captures", "hist_buckets", "hist_lost",
	};
	const char *end = strstr(self->text, "\n\n"), *prev = self->text, *p;
	char pat[32];
	size_t i;

	ASSERT_NE(NULL, end) TH_LOG("no blank line after the header");
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		snprintf(pat, sizeof(pat), "\n%s: ", keys[i]);
		p = strstr(self->text, pat);
		ASSERT_NE(NULL, p) TH_LOG("no header line '%s: '", keys[i]);
		EXPECT_TRUE(p < end) TH_LOG("'%s: ' is not in the header", keys[i]);
		EXPECT_TRUE(p > prev) TH_LOG("'%s: ' out of order", keys[i]);
		prev = p;
	}
}

/* Every numeric header key is there, and the slot counts add up. */
TEST_F(proc, header_counters)
{
	static const char * const keys[] = {
		"cpus", "metered_ns", "resets", "keys_used", "keys", "slots_used",
		"slots_per_cpu", "rows", "mem_keys", "dropped", "unmatched", "recursion",
		"table_full", "evicted",
		"irqctx", "truncated", "stack_depth", "task_depth", "notask",
		"mem_percpu", "mem_tables", "mem_task", "mem_cpus", "mem_rows", "mem_cap",
		"stacks_full", "captures", "hist_buckets", "hist_lost",
	};
	uint64_t cpus, used, per_cpu;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		lm_header_u64(_metadata, self->text, keys[i]);
	cpus = lm_header_u64(_metadata, self->text, "cpus");
	used = lm_header_u64(_metadata, self->text, "slots_used");
	per_cpu = lm_header_u64(_metadata, self->text, "slots_per_cpu");
	EXPECT_LT(0ULL, per_cpu);
	EXPECT_LE(used, per_cpu * cpus);
}

/*
 * Memory, as the header gives it (mem_*): each CPU with state has a fixed
 * share (held stack, cache of 96 KiB, chains of 72 KiB, overflow rows,
 * a pointer per chunk of 32 rows) and the chunks of rows it has used,
 * spares included; the directory is counted once; all of it within the
 * cap.  The figures add up exactly: mem_percpu is the fixed share plus
 * the rows' bytes over the CPUs, rounded down.
 */
struct lm_mem {
	uint64_t percpu, tables, rows, cpus, cap, dir, keys, used, slot;
};

static void lm_mem_read(struct __test_metadata *_metadata, const char *text, struct lm_mem *m)
{
	m->percpu = lm_header_u64(_metadata, text, "mem_percpu");
	m->tables = lm_header_u64(_metadata, text, "mem_tables");
	m->rows = lm_header_u64(_metadata, text, "mem_rows");
	m->cpus = lm_header_u64(_metadata, text, "mem_cpus");
	m->cap = lm_header_u64(_metadata, text, "mem_cap");
	m->dir = lm_header_u64(_metadata, text, "mem_keys");
	m->keys = lm_header_u64(_metadata, text, "keys");
	m->used = lm_header_u64(_metadata, text, "keys_used");
	/* 128 bytes of counters a row, 2 x 2 per histogram bucket */
	m->slot = 128 + 4 * lm_header_u64(_metadata, text, "hist_buckets");
}

#define LM_CHUNK_ROWS	32
#define LM_SPARES	4

static void lm_mem_check(struct __test_metadata *_metadata, const struct lm_mem *m)
{
	uint64_t chunk = LM_CHUNK_ROWS * m->slot, fixed;

	/* the directory: a key, its evidence and index entries a row, once */
	EXPECT_LT(m->keys * 64, m->dir);
	EXPECT_GT(m->keys * 512, m->dir);
	EXPECT_EQ(0ULL, m->rows % chunk) TH_LOG("%" PRIu64 " B of rows", m->rows);
	if (!m->cpus) {
		/* never on, or released: nothing allocated, the share projected */
		EXPECT_EQ(0ULL, m->tables);
		EXPECT_EQ(0ULL, m->rows);
		fixed = m->percpu;
	} else {
		fixed = (m->tables - m->dir - m->rows) / m->cpus;
		EXPECT_EQ(m->tables, m->cpus * fixed + m->rows + m->dir);
		EXPECT_EQ(m->percpu, fixed + m->rows / m->cpus);
		EXPECT_GE(m->cap, m->tables);
		/*
		 * In proportion: no CPU has more chunks than the keys in use
		 * since the last reset fill, and its spares (twice over: two
		 * refills may race); not a row per key of the capacity.
		 */
		EXPECT_GE(m->cpus * ((m->used + LM_CHUNK_ROWS - 1) / LM_CHUNK_ROWS + 2 * LM_SPARES) *
			  chunk, m->rows)
			TH_LOG("%" PRIu64 " B of rows on %" PRIu64 " CPUs for %" PRIu64 " keys",
			       m->rows, m->cpus, m->used);
	}
	EXPECT_LT(160 * 1024ULL, fixed);
	EXPECT_GT(200 * 1024ULL + m->keys / LM_CHUNK_ROWS * 8, fixed)
		TH_LOG("%" PRIu64 " B fixed per CPU for %" PRIu64 " keys", fixed, m->keys);
}

TEST_F(proc, header_memory)
{
	bool was_on = lm_is_on(_metadata);
	uint64_t task, cpus;
	struct lm_mem m;

	lm_mem_read(_metadata, self->text, &m);
	lm_mem_check(_metadata, &m);
	task = lm_header_u64(_metadata, self->text, "mem_task");
	EXPECT_EQ(m.keys, lm_header_u64(_metadata, self->text, "slots_per_cpu"));
	EXPECT_LT(0ULL, task);
	EXPECT_GE(64ULL, task);

	/* on: every online CPU has its share */
	ASSERT_EQ(0, lm_ctl("on"));
	free(self->text);
	self->text = lm_read_file(LM_PROC);
	ASSERT_NE(NULL, self->text);
	if (!was_on)
		EXPECT_EQ(0, lm_ctl("off"));
	lm_mem_read(_metadata, self->text, &m);
	lm_mem_check(_metadata, &m);
	cpus = lm_header_u64(_metadata, self->text, "cpus");
	EXPECT_LE(cpus, m.cpus);
	EXPECT_LT(0ULL, m.rows);
}

/*
 * "release" gives back all metering allocated, only while off; "on"
 * allocates again, for the CPUs online then, and a CPU that comes online
 * later gets its state as it does.  The state before is restored (on or
 * off); the statistics go, as with a reset.
 */
TEST_F(proc, release_and_cpus_online)
{
	bool was_on = lm_is_on(_metadata), hotplug;
	uint64_t online;
	struct lm_mem m;
	char word[32];

	ASSERT_EQ(0, lm_ctl("on"));
	EXPECT_EQ(-EBUSY, lm_ctl("release")) TH_LOG("release while on");
	EXPECT_EQ(-EINVAL, lm_ctl("release now"));
	ASSERT_EQ(0, lm_ctl("off"));
	ASSERT_EQ(0, lm_ctl("release"));
	/* twice: nothing left to give back */
	ASSERT_EQ(0, lm_ctl("release"));
	free(self->text);
	self->text = lm_read_file(LM_PROC);
	ASSERT_NE(NULL, self->text);
	lm_mem_read(_metadata, self->text, &m);
	EXPECT_EQ(0ULL, m.cpus);
	EXPECT_EQ(0ULL, m.tables);
	EXPECT_EQ(0ULL, m.rows);
	EXPECT_EQ(0ULL, lm_header_u64(_metadata, self->text, "keys_used"));
	lm_mem_check(_metadata, &m);

	/*
	 * Past the cap (the largest directory takes about 1 GiB, more than
	 * the share of any RAM this runs on): "on" is refused, and nothing
	 * is allocated or switched on.
	 */
	if (m.dir / m.keys * 4194304 > m.cap) {
		snprintf(word, sizeof(word), "keys %" PRIu64, m.keys);
		ASSERT_EQ(0, lm_ctl("keys 4194304"));
		EXPECT_EQ(-ENOMEM, lm_ctl("on"));
		ksft_print_msg("on with 4194304 keys (%" PRIu64 " KiB of directory) refused, cap %"
			       PRIu64 " KiB\n", m.dir / m.keys * 4194304 / 1024, m.cap / 1024);
		EXPECT_FALSE(lm_is_on(_metadata));
		ASSERT_EQ(0, lm_ctl(word));
		free(self->text);
		self->text = lm_read_file(LM_PROC);
		ASSERT_NE(NULL, self->text);
		EXPECT_EQ(0ULL, lm_header_u64(_metadata, self->text, "mem_tables"));
		EXPECT_EQ(0ULL, lm_header_u64(_metadata, self->text, "mem_cpus"));
	}

	/* with CPU 1 offline, "on" gives state to the online CPUs alone */
	hotplug = !access("/sys/devices/system/cpu/cpu1/online", W_OK) &&
		  !lm_cpu_online_set(1, false);
	ASSERT_EQ(0, lm_ctl("on"));
	free(self->text);
	self->text = lm_read_file(LM_PROC);
	ASSERT_NE(NULL, self->text);
	lm_mem_read(_metadata, self->text, &m);
	online = lm_header_u64(_metadata, self->text, "cpus");
	EXPECT_EQ(online, m.cpus) TH_LOG("state for %" PRIu64 " CPUs, %" PRIu64 " online",
					 m.cpus, online);
	lm_mem_check(_metadata, &m);
	if (hotplug) {
		ASSERT_EQ(0, lm_cpu_online_set(1, true));
		free(self->text);
		self->text = lm_read_file(LM_PROC);
		ASSERT_NE(NULL, self->text);
		lm_mem_read(_metadata, self->text, &m);
		EXPECT_EQ(online + 1, m.cpus) TH_LOG("CPU 1 came online without state");
		lm_mem_check(_metadata, &m);
	}
	if (!was_on)
		EXPECT_EQ(0, lm_ctl("off"));
}

/* The "#" line after the header names as many columns as a row has. */
TEST_F(proc, column_line)
{
	char *line = strstr(self->text, "\n\n"), *f[LM_FIELDS + 1];
	int n;

	ASSERT_NE(NULL, line) TH_LOG("no blank line after the header");
	line += 2;
	lm_cut_line(line);
	n = lm_split(line, f, LM_FIELDS + 1);
	ASSERT_EQ(LM_FIELDS + 1, n)
		TH_LOG("'#' and %d column names, want %d", n - 1, LM_FIELDS);
	EXPECT_STREQ("#", f[0]);
	EXPECT_STREQ("type", f[1]);
	EXPECT_STREQ("abort", f[6]);
	EXPECT_STREQ("lock", f[LM_FIELDS - 1]);
	EXPECT_STREQ("site", f[LM_FIELDS]);
}

TEST(mode_is_0600_root)
{
	struct stat st;

	if (stat(LM_PROC, &st))
		SKIP(return, "%s missing", LM_PROC);
	EXPECT_EQ(0600U, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_uid);
}

/* Run @fn in a child process: its exit status, or -1. */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn());
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* As nobody: no open at all. */
static int open_as_nobody(void)
{
	static const int modes[] = { O_RDONLY, O_WRONLY };
	size_t i;
	int fd;

	if (setgid(NOBODY) || setuid(NOBODY))
		return 2;
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		fd = open(LM_PROC, modes[i]);
		if (fd >= 0)
			return 3;
		if (errno != EACCES && errno != EPERM)
			return 4;
	}
	return 0;
}

TEST(unprivileged_open_denied)
{
	if (access(LM_PROC, F_OK))
		SKIP(return, "%s missing", LM_PROC);
	ASSERT_EQ(0U, getuid()) TH_LOG("this test needs root to drop privileges");
	EXPECT_EQ(0, in_child(open_as_nobody))
		TH_LOG("child: 2 setuid, 3 opened, 4 wrong errno, -1 died");
}

/* As root without CAP_SYS_ADMIN: no open, to read or to write. */
static int use_without_sys_admin(void)
{
	int fd;

	if (lm_drop_sys_admin())
		return 2;
	fd = open(LM_PROC, O_RDONLY);
	if (fd >= 0 || errno != EPERM)
		return 3;
	fd = open(LM_PROC, O_WRONLY);
	if (fd >= 0 || errno != EPERM)
		return 4;
	return 0;
}

/*
 * Root without CAP_SYS_ADMIN may not open the file (its mode lets root),
 * to read the report or to write a control word, as with netlink: the
 * open is checked, not each write.
 */
TEST(no_sys_admin_denied)
{
	if (access(LM_PROC, F_OK))
		SKIP(return, "%s missing", LM_PROC);
	ASSERT_EQ(0U, getuid()) TH_LOG("this test needs root to drop privileges");
	EXPECT_EQ(0, in_child(use_without_sys_admin))
		TH_LOG("child: 2 capset, 3 read open not EPERM, 4 write open not EPERM, "
		       "-1 died");
}

static int lm_opened_fd = -1;

/* Writes to a descriptor CAP_SYS_ADMIN opened, after dropping it. */
static int write_opened_without_sys_admin(void)
{
	if (lm_drop_sys_admin())
		return 2;
	/* not a control word: EINVAL once the opener's capability is granted */
	if (write(lm_opened_fd, "bogus", 5) != -1)
		return 3;
	return errno == EINVAL ? 0 : errno == EPERM ? 4 : 5;
}

/*
 * A write is judged by the credentials the file was opened with, as
 * file_ns_capable() does: a descriptor opened with CAP_SYS_ADMIN stays
 * usable by a process without it that was handed it, and the writer's own
 * capability (a set-uid program writing to a descriptor it was given)
 * grants nothing.
 */
TEST(write_judged_by_opener)
{
	int ret;

	if (access(LM_PROC, F_OK))
		SKIP(return, "%s missing", LM_PROC);
	ASSERT_EQ(0U, getuid()) TH_LOG("this test needs root to drop privileges");
	lm_opened_fd = open(LM_PROC, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, lm_opened_fd) TH_LOG("open %s: %s", LM_PROC, strerror(errno));
	ret = in_child(write_opened_without_sys_admin);
	close(lm_opened_fd);
	EXPECT_EQ(0, ret)
		TH_LOG("child: 2 capset, 3 write succeeded, 4 EPERM (the writer's "
		       "capability checked), 5 other errno, -1 died");
}

/* Tests that write control words; they leave metering off. */
FIXTURE(ctl)
{
	bool mod;
	struct lm_report rep;
};

FIXTURE_SETUP(ctl)
{
	if (access(LM_PROC, F_OK))
		SKIP(return, "%s missing: kernel without CONFIG_LOCKMETER", LM_PROC);
	self->mod = lm_mod_ready(_metadata);
	ASSERT_EQ(0, lm_ctl("off"));
}

FIXTURE_TEARDOWN(ctl)
{
	EXPECT_EQ(0, lm_ctl("off"));
	lm_report_free(&self->rep);
}

/*
 * Meter a little work so that the report has rows, and end with metering
 * off: the test module's lmt_hold row when it is loaded, else whatever the
 * system does in 20 ms.
 */
static void make_rows(struct __test_metadata *_metadata, bool mod)
{
	struct lm_report rep;

	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	if (mod)
		lm_mod_cmd(_metadata, "hold 5 50");
	else
		usleep(20000);
	ASSERT_EQ(0, lm_ctl("off"));

	lm_report_read(_metadata, &rep);
	ASSERT_LT(0U, rep.nr_rows) TH_LOG("no rows after metering");
	if (mod)
		ASSERT_NE(NULL, lm_find_row(&rep, lm_type("spin"), "lmt_static_lock", "lmt_hold"));
	lm_report_free(&rep);
}

/* Rows are well formed, consistent and sorted by hold_max, longest first. */
TEST_F(ctl, rows_consistent)
{
	const struct lm_report *rep = &self->rep;
	size_t i;

	make_rows(_metadata, self->mod);
	lm_report_read(_metadata, &self->rep);
	EXPECT_EQ(rep->nr_lines, lm_header_u64(_metadata, rep->text, "rows"));
	for (i = 0; i < rep->nr_rows; i++) {
		lm_row_check(_metadata, &rep->rows[i]);
		if (i)
			EXPECT_GE(rep->rows[i - 1].hold_max, rep->rows[i].hold_max)
				TH_LOG("row %zu: %s %s", i, rep->rows[i].lock, rep->rows[i].site);
	}
}

#define LM_HIST_PROC	LM_PROC "_hist"
#define LM_HIST_FIELDS	(2 + 32 + 2)	/* type, hist, buckets, lock, site */

/* The sum of the bucket fields @f[2..2+@nb) of a /proc/lockmeter_hist line. */
static uint64_t hist_line_sum(struct __test_metadata *_metadata, char **f,
			      unsigned int nb, uint64_t *top)
{
	uint64_t sum = 0, v = 0;
	unsigned int i;

	for (i = 0; i < nb; i++) {
		EXPECT_EQ(0, lm_parse_u64(f[2 + i], &v)) TH_LOG("bucket %u: '%s'", i, f[2 + i]);
		sum += v;
		if (v && top)
			*top = v;
	}
	return sum;
}

/*
 * /proc/lockmeter_hist, the opt-in for the histograms: the rows of
 * /proc/lockmeter in the same order, each a hold and a wait line whose
 * buckets sum to the row's acquisitions and waits.  Without
 * CONFIG_LOCKMETER_HIST it is missing and /proc/lockmeter says 0 buckets.
 */
TEST_F(ctl, hist_file_matches_rows)
{
	const struct lm_report *rep = &self->rep;
	char *text, *line, *next, *f[LM_HIST_FIELDS + 1], bounds[1024], *b;
	uint64_t nb, prev = 0, v, sum, top;
	size_t row = 0, lines = 0;
	struct stat st;
	unsigned int i;
	int n;

	make_rows(_metadata, self->mod);
	if (self->mod)
		lm_hist_holds(_metadata, 200, 20, 200);
	lm_report_read(_metadata, &self->rep);
	nb = lm_header_u64(_metadata, rep->text, "hist_buckets");
	if (stat(LM_HIST_PROC, &st)) {
		EXPECT_EQ(0ULL, nb) TH_LOG("%s missing with %" PRIu64 " buckets", LM_HIST_PROC, nb);
		SKIP(return, "kernel without CONFIG_LOCKMETER_HIST");
	}
	EXPECT_EQ(0400U, st.st_mode & 07777);
	ASSERT_EQ(32ULL, nb);
	text = lm_read_file(LM_HIST_PROC);
	ASSERT_NE(NULL, text) TH_LOG("read %s: %s", LM_HIST_PROC, strerror(errno));
	EXPECT_EQ(0, strncmp(text, "lockmeter_hist version 1\n", 25));
	EXPECT_EQ(nb, lm_header_u64(_metadata, text, "hist_buckets"));
	EXPECT_EQ(rep->nr_lines, lm_header_u64(_metadata, text, "rows"));
	EXPECT_EQ(lm_header_u64(_metadata, rep->text, "resets"),
		  lm_header_u64(_metadata, text, "resets"));
	/* bucket lower bounds in ns, from 0, rising */
	ASSERT_EQ(0, lm_header(text, "hist_bounds_ns", bounds, sizeof(bounds)));
	for (i = 0, b = strtok(bounds, " "); b; b = strtok(NULL, " "), i++) {
		ASSERT_EQ(0, lm_parse_u64(b, &v));
		if (i) {
			EXPECT_LT(prev, v);
		} else {
			EXPECT_EQ(0ULL, v);
		}
		prev = v;
	}
	EXPECT_EQ(nb, i);

	line = strstr(text, "\n\n");
	ASSERT_NE(NULL, line);
	line += 2;
	ASSERT_EQ('#', *line);
	for (line = lm_cut_line(line); *line; line = next) {
		const struct lm_row *r;
		bool hold = !(lines++ & 1);

		next = lm_cut_line(line);
		n = lm_split(line, f, LM_HIST_FIELDS);
		ASSERT_EQ(LM_HIST_FIELDS, n) TH_LOG("hist line %zu: %d fields", lines, n);
		ASSERT_STREQ(hold ? "hold" : "wait", f[1]);
		if (!lm_known_type(f[0]))
			continue;
		ASSERT_LT(row, rep->nr_rows);
		r = &rep->rows[row];
		EXPECT_STREQ(r->type, f[0]);
		EXPECT_STREQ(r->lock, f[LM_HIST_FIELDS - 2]);
		EXPECT_STREQ(r->site, f[LM_HIST_FIELDS - 1]);
		top = 0;
		sum = hist_line_sum(_metadata, f, nb, &top);
		EXPECT_EQ(hold ? r->acquired : r->spin, sum)
			TH_LOG("%s %s %s %s", f[0], f[1], r->lock, r->site);
		/* 200 holds of 20 us and one of 200 ms: alone in the top bucket */
		if (hold && self->mod && lm_row_is(r, lm_type("spin"), "lmt_hist_lock", "lmt_hist_hold")) {
			EXPECT_EQ(201ULL, sum);
			EXPECT_EQ(1ULL, top);
		}
		row += !hold;
	}
	EXPECT_EQ(2 * rep->nr_lines, lines);
	free(text);
}

static const struct ctl_step {
	const char *word;
	bool on;	/* state after the write */
	bool reset;	/* the write empties the table */
} ctl_steps[] = {
	{ .word = "on",		.on = true },
	{ .word = "on",		.on = true },
	{ .word = "reset",	.on = true,	.reset = true },
	{ .word = "0",		.on = true,	.reset = true },
	{ .word = "off\n",	.on = false },
	{ .word = "on\n",	.on = true },
	{ .word = "reset\n",	.on = true,	.reset = true },
	{ .word = "0\n",	.on = true,	.reset = true },
	{ .word = "off",	.on = false },
	{ .word = "off",	.on = false },
	{ .word = "reset",	.on = false,	.reset = true },
};

/* Each control word is accepted and "state:" follows; reset empties rows. */
TEST_F(ctl, control_words)
{
	const struct ctl_step *s;
	struct lm_report rep;
	bool on;
	int len;

	for (s = ctl_steps; s < ctl_steps + ARRAY_SIZE(ctl_steps); s++) {
		len = strcspn(s->word, "\n");
		on = lm_is_on(_metadata);
		if (s->reset && self->mod && on)
			lm_mod_cmd(_metadata, "hold 3 10");

		ASSERT_EQ(0, lm_ctl(s->word)) TH_LOG("write '%.*s'", len, s->word);
		EXPECT_EQ(s->on, lm_is_on(_metadata)) TH_LOG("after '%.*s'", len, s->word);
		if (!s->reset || !self->mod)
			continue;
		lm_report_read(_metadata, &rep);
		EXPECT_EQ(NULL, lm_find_row(&rep, lm_type("spin"), "lmt_static_lock", "lmt_hold"))
			TH_LOG("lmt_hold row survived '%.*s'", len, s->word);
		lm_report_free(&rep);
	}
}

/* Filled with "reset" and padding by the test: 4 KiB that start right. */
static char long_word[4096];

#define BAD_WORD(s)	{ .name = #s, .buf = s, .len = sizeof(s) - 1 }

static const struct bad_word {
	const char *name;
	const char *buf;
	size_t len;
} bad_words[] = {
	BAD_WORD("onn"),
	BAD_WORD("ON"),
	BAD_WORD(""),
	BAD_WORD("\n"),
	BAD_WORD("reset now"),
	BAD_WORD("1"),
	BAD_WORD("on\0"),
	BAD_WORD("keys"),
	BAD_WORD("keys "),
	BAD_WORD("keys x"),
	BAD_WORD("keys 4096x"),
	BAD_WORD("keys -4096"),
	BAD_WORD("\xff\xfe\x00\x01"),
	{ .name = "4 KiB \"resetxxx...\"", .buf = long_word, .len = sizeof(long_word) },
};

/* With metering off, bad writes fail with EINVAL and the report is unchanged. */
TEST_F(ctl, bad_words_change_nothing)
{
	const struct bad_word *b;
	char *before, *after;
	int ret;

	memset(long_word, 'x', sizeof(long_word));
	memcpy(long_word, "reset", 5);
	make_rows(_metadata, self->mod);
	before = lm_read_file(LM_PROC);
	ASSERT_NE(NULL, before);

	for (b = bad_words; b < bad_words + ARRAY_SIZE(bad_words); b++) {
		ret = lm_write(LM_PROC, b->buf, b->len);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("write %s: %s", b->name, strerror(-ret));
		after = lm_read_file(LM_PROC);
		ASSERT_NE(NULL, after);
		EXPECT_EQ(0, strcmp(before, after))
			TH_LOG("report changed after %s, first at line %zu", b->name,
			       lm_diff_line(before, after));
		free(after);
	}
	free(before);
}

/*
 * "keys N" sets the rows of the key directory while off, and changes
 * nothing while on or out of range; a change empties the rows.
 */
TEST_F(ctl, keys_resize)
{
	static const char * const out_of_range[] = { "keys 0", "keys 255", "keys 99999999" };
	uint64_t keys, now;
	char *text, word[32];
	struct lm_report rep;
	unsigned int i;

	text = lm_read_file(LM_PROC);
	ASSERT_NE(NULL, text);
	keys = lm_header_u64(_metadata, text, "keys");
	free(text);
	ASSERT_LE(256ULL, keys);

	ASSERT_EQ(0, lm_ctl("on"));
	snprintf(word, sizeof(word), "keys %" PRIu64, keys / 2);
	EXPECT_EQ(-EBUSY, lm_ctl(word));
	ASSERT_EQ(0, lm_ctl("off"));
	for (i = 0; i < ARRAY_SIZE(out_of_range); i++)
		EXPECT_EQ(-ERANGE, lm_ctl(out_of_range[i])) TH_LOG("out_of_range[%u]", i);
	text = lm_read_file(LM_PROC);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(keys, lm_header_u64(_metadata, text, "keys"));
	free(text);

	make_rows(_metadata, self->mod);
	EXPECT_EQ(0, lm_ctl(word));
	lm_report_read(_metadata, &rep);
	now = lm_header_u64(_metadata, rep.text, "keys");
	EXPECT_EQ(keys / 2, now);
	EXPECT_EQ(0ULL, lm_header_u64(_metadata, rep.text, "keys_used"));
	EXPECT_EQ(0U, rep.nr_rows) TH_LOG("rows survived a resize");
	lm_report_free(&rep);

	/* metering works in the new directory, then the old size is back */
	if (self->mod) {
		lm_metered(_metadata, "hold 3 10");
		lm_report_read(_metadata, &rep);
		EXPECT_NE(NULL, lm_find_row(&rep, lm_type("spin"), "lmt_static_lock", "lmt_hold"));
		EXPECT_LT(0ULL, lm_header_u64(_metadata, rep.text, "keys_used"));
		lm_report_free(&rep);
	}
	ASSERT_EQ(0, lm_ctl("off"));
	snprintf(word, sizeof(word), "keys %" PRIu64, keys);
	EXPECT_EQ(0, lm_ctl(word));
}

/* Clear CAP_SYS_ADMIN from the effective, permitted and inheritable sets. */
static int drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	struct __user_cap_data_struct *d = &data[CAP_TO_INDEX(CAP_SYS_ADMIN)];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	d->effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	d->permitted &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	d->inheritable &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	return syscall(SYS_capset, &hdr, data);
}

/* Root that lacks CAP_SYS_ADMIN can open the file but not write to it. */
TEST_F(ctl, write_needs_cap_sys_admin)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0U, getuid()) TH_LOG("this test needs root");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int ret;

		if (drop_cap_sys_admin())
			_exit(2);
		ret = lm_ctl("on");
		if (ret == -ENOENT || ret == -EACCES)
			_exit(3);
		_exit(!ret ? 4 : ret != -EPERM ? 5 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child: 2 capset, 3 open, 4 write succeeded, 5 wrong errno");
	EXPECT_FALSE(lm_is_on(_metadata)) TH_LOG("'on' from the child took effect");
}

TEST_HARNESS_MAIN
