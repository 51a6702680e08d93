/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the lockmeter selftests.
 *
 * /proc/lockmeter: read it, look up header fields, parse the rows and find
 * one by (type, lock, site function), write control words.
 * /proc/test_lockmeter: load test_lockmeter.ko, run one of its commands and
 * read back what the module measured itself.
 *
 * Helpers that take struct __test_metadata *_metadata fail the calling test
 * with ASSERT_*() on errors, so call them only from a test or a fixture;
 * the others return errors and also serve a test's forked children.
 * Test files include this header instead of kselftest_harness.h.
 */
#ifndef LOCKMETER_LIB_H
#define LOCKMETER_LIB_H

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The 6.12 harness does not build with -Wextra: its macros define functions
 * with parameters many tests leave unused (variant, self, _metadata), its
 * timeout handler ignores ucontext, and the TEST_F() wrapper keeps a
 * non-volatile local across setjmp().  A push/pop around the #include does
 * not reach the macro expansions, so this holds for the whole file.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wclobbered"
#include "../kselftest_harness.h"

/* 6.1's kselftest.h has no __printf */
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

#define LM_PROC		"/proc/lockmeter"
#define LM_MOD_NAME	"test_lockmeter"
#define LM_MOD_PROC	"/proc/" LM_MOD_NAME
#define LM_MOD_SUFFIX	"[" LM_MOD_NAME "]"

/* Columns of a row: type, 16 numbers, lock, site. */
#define LM_FIELDS	19

/*
 * One row of /proc/lockmeter; the strings point into lm_report.text.
 * oncpu and blocked split the holds of sleeping locks (mutex, rwsem_*);
 * they are 0 for the spinning types.
 */
struct lm_row {
	const char *type;
	uint64_t acquired, nowait, spin, reject, abort;
	uint64_t hold_total, hold_min, hold_max;
	uint64_t wait_total, wait_min, wait_max;
	uint64_t oncpu_total, oncpu_max;
	uint64_t blocked_total, blocked_max;
	uint64_t instances;
	const char *lock;
	const char *site;
};

struct lm_report {
	char *text;		/* the whole file, rows split in place */
	struct lm_row *rows;	/* rows of the known types, in file order */
	size_t nr_rows;
	size_t nr_lines;	/* all row lines, unknown types included */
};

/* Whole file as a NUL-terminated string, or NULL with errno set. */
static inline char *lm_read_file(const char *path)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				n = -1;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/*
 * Copy the value of header line "key: value" into @val.  Header lines
 * come before the first blank line.  Returns 0, or -1 when absent.
 */
static inline int lm_header(const char *text, const char *key, char *val,
			    size_t size)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (*p && *p != '\n') {
		const char *eol = strchrnul(p, '\n');

		if ((size_t)(eol - p) > klen + 1 && !strncmp(p, key, klen) &&
		    p[klen] == ':' && p[klen + 1] == ' ') {
			size_t n = eol - (p + klen + 2);

			if (n >= size)
				n = size - 1;
			memcpy(val, p + klen + 2, n);
			val[n] = '\0';
			return 0;
		}
		p = *eol ? eol + 1 : eol;
	}
	return -1;
}

/* Parse a plain unsigned decimal: 0, or -1 if @s is anything else. */
static inline int lm_parse_u64(const char *s, uint64_t *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*val = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* Numeric header value @key of @text; fails the test if absent. */
static inline uint64_t lm_header_u64(struct __test_metadata *_metadata,
				     const char *text, const char *key)
{
	uint64_t v = 0;
	char val[32];

	ASSERT_EQ(0, lm_header(text, key, val, sizeof(val)))
		TH_LOG("no header line '%s: '", key);
	ASSERT_EQ(0, lm_parse_u64(val, &v)) TH_LOG("%s: %s", key, val);
	return v;
}

static inline bool lm_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Number (from 0) of the first line where @a and @b differ, for logs. */
static inline size_t lm_diff_line(const char *a, const char *b)
{
	size_t line = 0;

	for (; *a && *a == *b; a++, b++)
		line += *a == '\n';
	return line;
}

/* Write @len bytes of @buf to @path in one write(): 0, or -errno. */
static inline int lm_write(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	err = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	close(fd);
	return err;
}

/*
 * Reap child @pid, retrying when a signal interrupts the wait.  Returns
 * its exit status, 128 + the signal that killed it, or -1.
 */
static inline int lm_wait_child(pid_t pid)
{
	int status;
	pid_t ret;

	do {
		ret = waitpid(pid, &status, 0);
	} while (ret < 0 && errno == EINTR);
	if (ret != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Write control word @word (as is, no newline added): 0, or -errno. */
static inline int lm_ctl(const char *word)
{
	return lm_write(LM_PROC, word, strlen(word));
}

/* Take CPU @cpu offline or bring it back: 0, or -errno. */
static inline int lm_cpu_online_set(int cpu, bool on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return lm_write(path, on ? "1" : "0", 1);
}

/* Whether the header says "state: on"; fails the test on anything odd. */
static inline bool lm_is_on(struct __test_metadata *_metadata)
{
	char *text = lm_read_file(LM_PROC);
	char val[8] = "";
	bool on;

	ASSERT_NE(NULL, text) TH_LOG("read %s: %s", LM_PROC, strerror(errno));
	ASSERT_EQ(0, lm_header(text, "state", val, sizeof(val)));
	free(text);
	on = !strcmp(val, "on");
	ASSERT_TRUE(on || !strcmp(val, "off")) TH_LOG("state: %s", val);
	return on;
}

/* Drop CAP_SYS_ADMIN from this (root) process; CAP_NET_ADMIN stays. */
static inline int lm_drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= ~(1U << CAP_SYS_ADMIN);
	d[0].permitted &= ~(1U << CAP_SYS_ADMIN);
	d[0].inheritable &= ~(1U << CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, d);
}

/*
 * Load test_lockmeter.ko unless /proc/test_lockmeter is already there.
 * Returns false when there is no module file (the caller skips); any
 * other failure fails the test.  The module stays loaded: site names
 * vanish when it goes.
 */
static inline bool lm_mod_ready(struct __test_metadata *_metadata)
{
	char path[PATH_MAX];
	struct utsname u;
	int fd, ret, err;

	if (!access(LM_MOD_PROC, F_OK))
		return true;
	ASSERT_EQ(0, uname(&u));
	snprintf(path, sizeof(path), "/lib/modules/%s/kernel/lib/%s.ko",
		 u.release, LM_MOD_NAME);
	if (access(path, F_OK))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", path, strerror(errno));
	ret = syscall(SYS_finit_module, fd, "", 0);
	err = errno;
	close(fd);
	ASSERT_TRUE(!ret || err == EEXIST)
		TH_LOG("finit_module %s: %s", path, strerror(err));
	ASSERT_EQ(0, access(LM_MOD_PROC, F_OK))
		TH_LOG("%s missing after loading the module", LM_MOD_PROC);
	return true;
}

/*
 * Fixture setup shared by the tests that meter the module: SKIP without
 * lockmeter or without the module, else start with metering off.
 */
static inline void lm_setup(struct __test_metadata *_metadata)
{
	if (access(LM_PROC, F_OK))
		SKIP(return, "%s missing: kernel without CONFIG_LOCKMETER", LM_PROC);
	if (!lm_mod_ready(_metadata))
		SKIP(return, "%s.ko not installed", LM_MOD_NAME);
	ASSERT_EQ(0, lm_ctl("off"));
}

/*
 * Write command line @cmd (newline added) to the module in one write();
 * it returns when the command is done.  0, or -errno.  Usable outside a
 * test, in a forked child.
 */
static inline int lm_mod_write(const char *cmd)
{
	char line[128];
	int len;

	len = snprintf(line, sizeof(line), "%s\n", cmd);
	if (len < 0 || len >= (int)sizeof(line))
		return -EINVAL;
	return lm_write(LM_MOD_PROC, line, len);
}

/* The module's "cmd:" result names the first word of @cmd. */
static inline void lm_mod_done(struct __test_metadata *_metadata,
			       const char *cmd)
{
	char name[32] = "", word[32], *text;

	snprintf(word, sizeof(word), "%.*s", (int)strcspn(cmd, " "), cmd);
	text = lm_read_file(LM_MOD_PROC);
	ASSERT_NE(NULL, text) TH_LOG("read %s: %s", LM_MOD_PROC, strerror(errno));
	ASSERT_EQ(0, lm_header(text, "cmd", name, sizeof(name)))
		TH_LOG("no results after '%s'", cmd);
	free(text);
	ASSERT_STREQ(word, name);
}

/* Run one test_lockmeter command line, wait for it, check its results. */
static inline void lm_mod_vcmd(struct __test_metadata *_metadata,
			       const char *fmt, va_list ap)
{
	char cmd[100];
	int len, ret;

	len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	ASSERT_GT((int)sizeof(cmd), len);
	ret = lm_mod_write(cmd);
	ASSERT_EQ(0, ret) TH_LOG("'%s' > %s: %s", cmd, LM_MOD_PROC, strerror(-ret));
	lm_mod_done(_metadata, cmd);
}

static inline __printf(2, 3)
void lm_mod_cmd(struct __test_metadata *_metadata, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lm_mod_vcmd(_metadata, fmt, ap);
	va_end(ap);
}

/* reset, on, run one module command, off: the report then has its rows. */
static inline __printf(2, 3)
void lm_metered(struct __test_metadata *_metadata, const char *fmt, ...)
{
	va_list ap;

	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	va_start(ap, fmt);
	lm_mod_vcmd(_metadata, fmt, ap);
	va_end(ap);
	ASSERT_EQ(0, lm_ctl("off"));
}

/* VmallocUsed of /proc/meminfo in KiB, or -1. */
static inline long vmalloc_used_kb(void)
{
	char *text = lm_read_file("/proc/meminfo"), *p;
	long kb = -1;

	p = text ? strstr(text, "VmallocUsed:") : NULL;
	if (p)
		kb = strtol(p + strlen("VmallocUsed:"), NULL, 10);
	free(text);
	return kb;
}

/* Numeric "@key: value" line of file @path (a header key, a result). */
static inline uint64_t lm_file_value(struct __test_metadata *_metadata,
				     const char *path, const char *key)
{
	char *text = lm_read_file(path);
	uint64_t v;

	ASSERT_NE(NULL, text) TH_LOG("read %s: %s", path, strerror(errno));
	v = lm_header_u64(_metadata, text, key);
	free(text);
	return v;
}

/* Numeric result @key of the last module command. */
static inline uint64_t lm_mod_value(struct __test_metadata *_metadata,
				    const char *key)
{
	return lm_file_value(_metadata, LM_MOD_PROC, key);
}

/*
 * The most lockmeter may report for @n holds the module spanned with
 * @span_ns in all (its span_*_ns: from before the lock call to after the
 * unlock returned, around lockmeter's own clock reads).  The span itself
 * but for the two clocks: lockmeter's (TSC ticks, in ns) and the
 * module's local_clock() may differ in rate by 0.1% and round each hold
 * differently by 1 us, whatever the host's load.
 */
static inline uint64_t lm_span_bound(uint64_t span_ns, uint64_t n)
{
	return span_ns + span_ns / 1000 + n * 1000;
}

/*
 * "hist_holds N U M" metered (reset, on, the command, off) until none of
 * the N short holds came within three buckets of the M ms one by the
 * module's own clock: a vCPU its host descheduled, or a task preempted,
 * inside a short hold makes it long, and the tests want the long hold
 * alone at the top.  At most LM_HIST_RUNS runs.
 */
#define LM_HIST_RUNS	10

static inline void lm_hist_holds(struct __test_metadata *_metadata, unsigned int n,
				 unsigned int us, unsigned int ms)
{
	const uint64_t near = (uint64_t)ms * 1000000 / 8;
	uint64_t short_max = 0;
	int run;

	for (run = 0; run < LM_HIST_RUNS; run++) {
		lm_metered(_metadata, "hist_holds %u %u %u", n, us, ms);
		short_max = lm_mod_value(_metadata, "short_max_ns");
		if (short_max < near)
			return;
		TH_LOG("run %d: a short hold took %" PRIu64 " ns: again", run, short_max);
	}
	ASSERT_GT(near, short_max) TH_LOG("%d runs, each with a stalled short hold", run);
}

/* Cut @line at its newline; returns the start of the next line. */
static inline char *lm_cut_line(char *line)
{
	char *eol = strchrnul(line, '\n');

	if (*eol)
		*eol++ = '\0';
	return eol;
}

/* Split @line in place at blanks; returns the field count, max + 1 if more. */
static inline int lm_split(char *line, char **field, int max)
{
	char *save, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		field[n++] = tok;
	}
	return n;
}

/*
 * mutex, rw_semaphore, rt_mutex, percpu_rw_semaphore, semaphore, and on
 * PREEMPT_RT spinlock_t and rwlock_t: may sleep.
 */
static inline bool lm_sleeping_type(const char *type)
{
	static const char *const sleeping[] = {
		"mutex", "rwsem_read", "rwsem_write", "rt_mutex",
		"percpu_rwsem_read", "percpu_rwsem_write", "semaphore",
		"rt_spin", "rt_read", "rt_write",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sleeping); i++)
		if (!strcmp(type, sleeping[i]))
			return true;
	return false;
}

/*
 * Whether this is a PREEMPT_RT kernel: its version string says so, as
 * uname -v shows it ("#1 SMP PREEMPT_RT ...").
 */
static inline bool lm_preempt_rt(void)
{
	static int rt = -1;
	struct utsname u;

	if (rt < 0)
		rt = !uname(&u) && strstr(u.version, "PREEMPT_RT");
	return rt;
}

/*
 * The row type of a spinlock_t ("spin") or rwlock_t ("read", "write")
 * on this kernel.  On PREEMPT_RT those are rtmutexes, metered as the
 * sleeping types rt_spin, rt_read and rt_write; raw_spinlock_t stays
 * spin there, so a raw spinlock's row is named "spin" as it is.  Any
 * other type is returned unchanged.
 */
static inline const char *lm_type(const char *type)
{
	static const char *const rt[][2] = {
		{ "spin", "rt_spin" }, { "read", "rt_read" }, { "write", "rt_write" },
	};
	size_t i;

	if (lm_preempt_rt())
		for (i = 0; i < ARRAY_SIZE(rt); i++)
			if (!strcmp(type, rt[i][0]))
				return rt[i][1];
	return type;
}

static inline bool lm_known_type(const char *type)
{
	return !strcmp(type, "spin") || !strcmp(type, "read") ||
	       !strcmp(type, "write") || lm_sleeping_type(type);
}

static inline void lm_parse_row(struct __test_metadata *_metadata,
				char **f, struct lm_row *row)
{
	uint64_t *num[] = {
		&row->acquired, &row->nowait, &row->spin, &row->reject,
		&row->abort, &row->hold_total, &row->hold_min, &row->hold_max,
		&row->wait_total, &row->wait_min, &row->wait_max,
		&row->oncpu_total, &row->oncpu_max,
		&row->blocked_total, &row->blocked_max, &row->instances,
	};
	size_t i;

	static_assert(ARRAY_SIZE(num) == LM_FIELDS - 3, "type, numbers, lock, site");
	row->type = f[0];
	for (i = 0; i < ARRAY_SIZE(num); i++)
		ASSERT_EQ(0, lm_parse_u64(f[i + 1], num[i]))
			TH_LOG("field %zu of a %s row: '%s'", i + 2, f[0], f[i + 1]);
	row->lock = f[LM_FIELDS - 2];
	row->site = f[LM_FIELDS - 1];
}

static inline struct lm_row *lm_new_row(struct __test_metadata *_metadata,
					struct lm_report *rep, size_t *cap)
{
	if (rep->nr_rows == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		rep->rows = realloc(rep->rows, *cap * sizeof(*rep->rows));
		ASSERT_NE(NULL, rep->rows);
	}
	return &rep->rows[rep->nr_rows++];
}

/*
 * Read /proc/lockmeter into @rep: header lines up to a blank line, one
 * "#" line naming the columns, then the rows.  Every row must have
 * exactly LM_FIELDS fields; rows of types this suite does not know are
 * counted in nr_lines and otherwise skipped.
 */
static inline void lm_report_read(struct __test_metadata *_metadata,
				  struct lm_report *rep)
{
	char *line, *next, *f[LM_FIELDS + 1];
	size_t cap = 0;
	int n;

	memset(rep, 0, sizeof(*rep));
	rep->text = lm_read_file(LM_PROC);
	ASSERT_NE(NULL, rep->text) TH_LOG("read %s: %s", LM_PROC, strerror(errno));
	line = strstr(rep->text, "\n\n");
	ASSERT_NE(NULL, line) TH_LOG("no blank line after the header");
	line += 2;
	ASSERT_EQ('#', *line) TH_LOG("no '#' column line after the header");

	for (line = lm_cut_line(line); *line; line = next) {
		next = lm_cut_line(line);
		n = lm_split(line, f, LM_FIELDS);
		ASSERT_LT(0, n) TH_LOG("blank line %zu among the rows", rep->nr_lines);
		rep->nr_lines++;
		ASSERT_EQ(LM_FIELDS, n)
			TH_LOG("row %zu (%s): %s %d fields, want exactly %d",
			       rep->nr_lines, f[0], n > LM_FIELDS ? "more than" : "only",
			       n > LM_FIELDS ? LM_FIELDS : n, LM_FIELDS);
		if (lm_known_type(f[0]))
			lm_parse_row(_metadata, f, lm_new_row(_metadata, rep, &cap));
	}
}

/* For a failure: the report's header and the rows whose lock has @what. */
static inline void lm_report_dump(struct __test_metadata *_metadata,
				  const struct lm_report *rep, const char *what)
{
	const char *end = strstr(rep->text, "\n\n");
	size_t i;

	TH_LOG("header:\n%.*s", end ? (int)(end - rep->text) : 0, rep->text);
	for (i = 0; i < rep->nr_rows; i++)
		if (strstr(rep->rows[i].lock, what))
			TH_LOG("row %s %s %s acquired %" PRIu64, rep->rows[i].type,
			       rep->rows[i].lock, rep->rows[i].site, rep->rows[i].acquired);
}

static inline void lm_report_free(struct lm_report *rep)
{
	free(rep->rows);
	free(rep->text);
	memset(rep, 0, sizeof(*rep));
}

/* @lock is the symbol @name, maybe with "+off" or "[module]" glued on. */
static inline bool lm_lock_is(const char *lock, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(lock, name, n) &&
	       (!lock[n] || lock[n] == '+' || lock[n] == '[');
}

/*
 * @lock is the symbol @name itself, maybe with "[module]": not a lock
 * inside it at "+off" (a mutex's wait_lock is "name+0x8").
 */
static inline bool lm_lock_named(const char *lock, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(lock, name, n) && (!lock[n] || lock[n] == '[');
}

/* @site is in the module's function @func: "func+off/size[test_lockmeter]". */
static inline bool lm_site_in(const char *site, const char *func)
{
	size_t n = strlen(func);

	return !strncmp(site, func, n) && site[n] == '+' &&
	       lm_ends_with(site, LM_MOD_SUFFIX);
}

static inline bool lm_row_is(const struct lm_row *row, const char *type,
			     const char *lock, const char *func)
{
	return !strcmp(row->type, type) && lm_lock_is(row->lock, lock) &&
	       lm_site_in(row->site, func);
}

/* First @type row of lock @lock taken in module function @func, or NULL. */
static inline struct lm_row *lm_find_row(const struct lm_report *rep,
					 const char *type, const char *lock,
					 const char *func)
{
	size_t i;

	for (i = 0; i < rep->nr_rows; i++)
		if (lm_row_is(&rep->rows[i], type, lock, func))
			return &rep->rows[i];
	return NULL;
}

/* How many rows lm_find_row() could have returned. */
static inline size_t lm_count_rows(const struct lm_report *rep, const char *type,
				   const char *lock, const char *func)
{
	size_t i, n = 0;

	for (i = 0; i < rep->nr_rows; i++)
		n += lm_row_is(&rep->rows[i], type, lock, func);
	return n;
}

/* The row of @type counting events that found a table full, or NULL. */
static inline struct lm_row *lm_overflow_row(const struct lm_report *rep,
					     const char *type)
{
	size_t i;

	for (i = 0; i < rep->nr_rows; i++) {
		struct lm_row *row = &rep->rows[i];

		/* "*overflow*(worst:NAME)" once a hold named it */
		if (!strcmp(row->type, type) && !strncmp(row->lock, "*overflow*", 10))
			return row;
	}
	return NULL;
}

/* Rows whose lock or site lives in the test module. */
static inline size_t lm_nr_mod_rows(const struct lm_report *rep)
{
	size_t i, n = 0;

	for (i = 0; i < rep->nr_rows; i++)
		n += lm_ends_with(rep->rows[i].lock, LM_MOD_SUFFIX) ||
		     lm_ends_with(rep->rows[i].site, LM_MOD_SUFFIX);
	return n;
}

/* Relations every row must satisfy, whatever the lock. */
static inline void lm_row_check(struct __test_metadata *_metadata,
				const struct lm_row *r)
{
	EXPECT_EQ(r->acquired, r->nowait + r->spin)
		TH_LOG("%s %s %s: acquired != nowait + spin", r->type, r->lock, r->site);
	EXPECT_LE(r->hold_min, r->hold_max) TH_LOG("%s %s", r->lock, r->site);
	EXPECT_LE(r->hold_max, r->hold_total) TH_LOG("%s %s", r->lock, r->site);
	EXPECT_LE(r->hold_min * r->acquired, r->hold_total) TH_LOG("%s %s", r->lock, r->site);
	EXPECT_LE(r->wait_min, r->wait_max) TH_LOG("%s %s", r->lock, r->site);
	EXPECT_LE(r->wait_max, r->wait_total) TH_LOG("%s %s", r->lock, r->site);
	if (!r->acquired)
		EXPECT_EQ(0ULL, r->hold_total) TH_LOG("%s %s", r->lock, r->site);
	if (!r->spin)
		EXPECT_EQ(0ULL, r->wait_total | r->wait_min | r->wait_max)
			TH_LOG("%s %s: wait without spin", r->lock, r->site);
	if (!lm_sleeping_type(r->type)) {
		EXPECT_EQ(0ULL, r->oncpu_total | r->oncpu_max |
				r->blocked_total | r->blocked_max)
			TH_LOG("%s %s %s: on-CPU/blocked split of a spinning lock",
			       r->type, r->lock, r->site);
		EXPECT_EQ(0ULL, r->abort)
			TH_LOG("%s %s %s: aborted wait of a spinning lock",
			       r->type, r->lock, r->site);
		return;
	}
	/* Each hold is split exactly: on-CPU + blocked = hold. */
	EXPECT_EQ(r->hold_total, r->oncpu_total + r->blocked_total)
		TH_LOG("%s %s %s: on-CPU + blocked != hold", r->type, r->lock, r->site);
	EXPECT_LE(r->oncpu_max, r->hold_max) TH_LOG("%s %s", r->lock, r->site);
	EXPECT_LE(r->blocked_max, r->hold_max) TH_LOG("%s %s", r->lock, r->site);
	/* each maximum is rounded down to ns on its own (TSC ticks): 1 ns */
	EXPECT_LE(r->hold_max, r->oncpu_max + r->blocked_max + 1)
		TH_LOG("%s %s: the longest hold has no split", r->lock, r->site);
	EXPECT_LE(r->oncpu_max, r->oncpu_total) TH_LOG("%s %s", r->lock, r->site);
	EXPECT_LE(r->blocked_max, r->blocked_total) TH_LOG("%s %s", r->lock, r->site);
}

/* The one @type row of @lock at module function @func, checked. */
static inline const struct lm_row *lm_sole_row(struct __test_metadata *_metadata,
					       const struct lm_report *rep, const char *type,
					       const char *lock, const char *func)
{
	const struct lm_row *row = lm_find_row(rep, type, lock, func);

	ASSERT_NE(NULL, row) TH_LOG("no %s row for %s at %s", type, lock, func);
	EXPECT_EQ(1U, lm_count_rows(rep, type, lock, func))
		TH_LOG("%s %s at %s: one call site must be one row", type, lock, func);
	lm_row_check(_metadata, row);
	return row;
}

#endif /* LOCKMETER_LIB_H */
