// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of snapshot files: a snapshot written and read back is the
 * same snapshot; a saved /proc/lockmeter reads too; every kind of damage
 * is refused with LM_EXIT_CORRUPT and the right line number.
 */
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"
#include "snapfile.h"
#include "tap.h"

#define HDR	"lockstat snapshot version 1\ncpus: 2\nmetered_ns: 1000\n"
#define ROW	"spin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 tasklist_lock do_exit+0x5c/0xa40\n"

static int read_mem(const char *text, size_t len, struct lm_snapshot *s, struct lm_perr *e)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int ret;

	if (!f)
		return -1;
	memset(e, 0, sizeof(*e));
	ret = lm_snap_read(f, s, e);
	fclose(f);
	return ret;
}

static void test_roundtrip(void)
{
	struct lm_snapshot a, b;
	struct lm_perr e;
	char *buf = NULL;
	size_t len = 0, i;
	struct lm_row *r;
	const char *why;
	FILE *f;
	int ok = 1, ret;

	lm_snap_init(&a);
	lm_snap_init(&b);
	lm_hdr_put_str(&a.h, LM_H_COMMAND, "record");
	lm_hdr_put_str(&a.h, LM_H_SYSTEM, "Linux");
	lm_hdr_put_str(&a.h, LM_H_UVERSION, "#1 SMP PREEMPT_DYNAMIC Debian 6.12.117-1");
	lm_hdr_set(&a.h, LM_H_CPUS, "2", &why);
	lm_hdr_set(&a.h, LM_H_STATE, "on", &why);
	lm_hdr_set(&a.h, LM_H_START, "1732968000.000000001", &why);
	lm_hdr_set(&a.h, LM_H_METERED_NS, "18446744073709551615", &why);
	lm_hdr_set(&a.h, LM_H_LOSS + LM_L_TABLE_FULL, "12", &why);
	for (i = 0; i < 3; i++) {
		r = lm_snap_add_row(&a);
		r->type = LM_TYPE_SPIN + i * 2;
		r->lock = lm_snap_strdup(&a, i ? "[heap]" : "lmt_static_lock[test_lockmeter]");
		r->site = lm_snap_strdup(&a, i == 1 ? "d_alloc+0x4c/0x1f0" : "f+0x1/0x2[m]");
		r->class = lm_class_of(r->lock);
		r->v[LM_F_NOWAIT] = 7 + i;
		r->v[LM_F_SPIN] = UINT64_MAX - 8 - i;
		r->v[LM_F_ACQUIRED] = r->v[LM_F_NOWAIT] + r->v[LM_F_SPIN];
		r->v[LM_F_BLOCKED_MAX] = 1234567890123ULL;
		r->v[LM_F_INSTANCES] = 266;
	}
	f = open_memstream(&buf, &len);
	tap_ok(f && !lm_snap_write(f, &a) && !fclose(f), "file: a snapshot is written");
	ret = read_mem(buf, len, &b, &e);
	if (!tap_ok(ret == 0, "file: and read back")) {
		printf("# %d at %lu: %s\n", ret, e.line, e.msg);
		goto out;
	}
	tap_ok(!strncmp(buf, "lockstat snapshot version 2\n", 28), "file: the first line");
	tap_ok(b.h.present == (a.h.present | 1ULL << LM_H_ROWS), "file: the same header fields");
	tap_ok(b.h.metered_ns == UINT64_MAX && b.h.cpus == 2 && b.h.on &&
	       b.h.start.tv_nsec == 1 && b.h.loss[LM_L_TABLE_FULL] == 12 &&
	       !strcmp(b.h.uversion, a.h.uversion), "file: the same header values");
	ok = b.nr == a.nr;
	for (i = 0; ok && i < a.nr; i++)
		ok = a.rows[i].type == b.rows[i].type && a.rows[i].class == b.rows[i].class &&
		     !memcmp(a.rows[i].v, b.rows[i].v, sizeof(a.rows[i].v)) &&
		     !strcmp(a.rows[i].lock, b.rows[i].lock) && !strcmp(a.rows[i].site, b.rows[i].site);
	tap_ok(ok, "file: the same rows");
out:
	free(buf);
	lm_snap_free(&a);
	lm_snap_free(&b);
}

static void test_proc_copy(void)
{
	static const char text[] =
		"lockmeter version 1\nkernel: 6.12.117\ncpus: 2\nclock: local_clock\n"
		"state: off\nmetered_ns: 1465697692\nslots_used: 291\nslots_per_cpu: 4096\n"
		"rows: 1\ndropped: 0\nunmatched: 8\nrecursion: 0\ntable_full: 0\nevicted: 0\n"
		"future_key: whatever\n\n# type acquired ... lock site\n"
		"spin       5710      5706       4       0     0      65961005        691    1209617       5002968      70385    3449235             0          0             0          0     1 percpu:runqueues+0x0 raw_spin_rq_lock_nested+0xd/0xf\n";
	struct lm_snapshot s;
	struct lm_perr e;
	int ret;

	lm_snap_init(&s);
	ret = read_mem(text, sizeof(text) - 1, &s, &e);
	tap_ok(ret == 0 && s.nr == 1 && s.rows[0].class == LM_CLASS_PERCPU &&
	       s.rows[0].v[LM_F_WAIT_MAX] == 3449235 && s.h.loss[LM_L_UNMATCHED] == 8 &&
	       !strcmp(s.h.clock, "local_clock"),
	       "file: a saved /proc/lockmeter reads, unknown keys skipped");
	if (ret)
		printf("# %d at %lu: %s\n", ret, e.line, e.msg);
	lm_snap_free(&s);
}

static void test_damage(void)
{
	static char longline[LM_LINE_MAX + 64];
	static const struct {
		const char *text;
		unsigned long line;
		const char *what;
	} t[] = {
		{ "", 1, "an empty file" },
		{ "hello\n", 1, "another file" },
		{ "lockstat snapshot version 3\n", 1, "version 3" },
		{ "lockstat snapshot version 1", 1, "a first line without newline" },
		{ "lockstat snapshot version one\n", 1, "a bad version" },
		{ "lockmeter version 7\n", 1, "a /proc format from the future" },
		{ "lockstat snapshot version 1\ncpus: 2\n", 2, "the header cut" },
		{ "lockstat snapshot version 1\ncpus 2\n\n", 2, "a header line without colon" },
		{ "lockstat snapshot version 1\nCPUs: 2\n\n", 2, "a bad key" },
		{ "lockstat snapshot version 1\ncpus:2\n\n", 2, "no blank after the colon" },
		{ "lockstat snapshot version 1\ncpus: -2\n\n", 2, "a bad value" },
		{ "lockstat snapshot version 1\ncpus: 2\ncpus: 2\n\n", 3, "a key twice" },
		{ "lockstat snapshot version 1\ncpus: 2\nrows: 0\n\n", 4, "no metered_ns" },
		{ HDR "rows: 2\n\n" ROW, 6, "a row missing (truncated)" },
		{ HDR "rows: 1\n\n" ROW ROW, 7, "a row too many" },
		{ HDR "rows: 1\n\nspin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 tasklist_lock do_ex", 6,
		  "the last line cut" },
		{ HDR "rows: 1\n\n# legend\nspin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 tasklist_lock\n", 7,
		  "a row with 18 fields" },
		{ HDR "rows: 1\n\n\n", 6, "an empty line among the rows" },
		{ HDR "rows: 1\nstart: 12.5\n\n" ROW, 5, "a time without ns" },
		{ HDR "rows: 1\n\nspin 0 18446744073709551615 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a b\n", 6,
		  "acquired = nowait + spin only past 2^64" },
		{ HDR "rows: 1\n\nspin 3 2 1 18446744073709551614 0 10 1 5 4 4 4 0 0 0 0 1 a b\n", 6,
		  "nowait + spin + reject past 2^64" },
		{ HDR "rows: 1\n\nspin 3 2 1 0 0 10 7 5 4 4 4 0 0 0 0 1 a b\n", 6,
		  "hold_min_ns above hold_max_ns" },
		{ HDR "rows: 1\n\nspin 3 2 1 0 0 10 1 5 4 9 4 0 0 0 0 1 a b\n", 6,
		  "wait_min_ns above wait_max_ns" },
		{ "lockstat snapshot version 1\ncpus: 2\nmetered_ns: 0\nrows: 1\n\n" ROW, 6,
		  "a row, with metered_ns 0" },
		{ "lockstat snapshot version 1\ncpus: 0\nmetered_ns: 1000\nrows: 0\n\n", 2, "cpus 0" },
		{ HDR "start: 20.000000000\nend: 10.000000000\nrows: 1\n\n" ROW, 5,
		  "end before start" },
		{ HDR "end: 10.000000000\nstart: 10.000000001\nrows: 1\n\n" ROW, 5,
		  "start after end" },
	};
	struct lm_snapshot s;
	struct lm_perr e;
	char what[96];
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		lm_snap_init(&s);
		ret = read_mem(t[i].text, strlen(t[i].text), &s, &e);
		snprintf(what, sizeof(what), "damage: %s refused at line %lu", t[i].what, t[i].line);
		tap_ok(ret == LM_EXIT_CORRUPT && e.line == t[i].line, "%s", what);
		if (ret != LM_EXIT_CORRUPT || e.line != t[i].line)
			printf("# got %d at line %lu: %s\n", ret, e.line, e.msg);
		lm_snap_free(&s);
	}

	/* a NUL byte in a row */
	{
		static const char nul[] = HDR "rows: 1\n\nspin 3 2 1\0 0 0 10 1 5 4 4 4 0 0 0 0 1 a b\n";

		lm_snap_init(&s);
		ret = read_mem(nul, sizeof(nul) - 1, &s, &e);
		tap_ok(ret == LM_EXIT_CORRUPT && e.line == 6, "damage: a NUL byte refused");
		lm_snap_free(&s);
	}
	/* a line of 64 KiB and more */
	memcpy(longline, HDR "node: ", strlen(HDR "node: "));
	memset(longline + strlen(HDR "node: "), 'x', LM_LINE_MAX);
	longline[sizeof(longline) - 2] = '\n';
	lm_snap_init(&s);
	ret = read_mem(longline, sizeof(longline) - 1, &s, &e);
	tap_ok(ret == LM_EXIT_CORRUPT && e.line == 4, "damage: an overlong line refused");
	lm_snap_free(&s);
}

static void test_load_errors(void)
{
	struct lm_snapshot s;
	int ret;

	lm_snap_init(&s);
	fprintf(stderr, "# the two messages below are expected\n");
	ret = lm_snap_load("/nonexistent/lockstat.snap", &s);
	tap_ok(ret == LM_EXIT_FILE, "load: a missing file is unreadable (6)");
	ret = lm_snap_load("/", &s);
	tap_ok(ret == LM_EXIT_FILE, "load: a directory is unreadable (6)");
	lm_snap_free(&s);
}

int main(void)
{
	test_roundtrip();
	test_proc_copy();
	test_damage();
	test_load_errors();
	return tap_done();
}
