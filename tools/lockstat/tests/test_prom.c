// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the Prometheus export: label escaping, seconds from ns,
 * site names cut to the function, rows that become one label set merged,
 * the roll-up of the rows beyond max_series into lock="other", and the
 * atomic write of a regular file (lm_out_open_regular()) that refuses
 * anything else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lockstat.h"
#include "snapfile.h"
#include "tap.h"
#include "view_prom.h"

static void test_label(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "lmt_static_lock[test_lockmeter]", "lmt_static_lock[test_lockmeter]" },
		{ "a\"b", "a\\\"b" },
		{ "back\\slash", "back\\\\slash" },
		{ "line\nfeed", "line\\nfeed" },
		{ "\\\"\n", "\\\\\\\"\\n" },
		{ "", "" },
	};
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		f = open_memstream(&buf, &len);
		if (!f)
			break;
		lm_prom_label(f, cases[i].in);
		fclose(f);
		tap_str(buf, cases[i].want, "label value escaped");
		free(buf);
		buf = NULL;
	}
}

static void test_seconds(void)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} cases[] = {
		{ 0, "0" },
		{ 1, "0.000000001" },
		{ 52110221, "0.052110221" },
		{ 1000000000, "1" },
		{ 3465697692ULL, "3.465697692" },
		{ 1500000000, "1.5" },
		{ UINT64_MAX, "18446744073.709551615" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		lm_prom_seconds(buf, sizeof(buf), cases[i].ns);
		tap_str(buf, cases[i].want, "seconds from ns");
	}
}

static void test_site(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "do_exit+0x5c/0xa40", "do_exit" },
		{ "lmt_hold+0x2a/0x60[test_lockmeter]", "lmt_hold[test_lockmeter]" },
		{ "lmt_hold+0x2a[test_lockmeter]", "lmt_hold[test_lockmeter]" },
		{ "f.constprop.0+0x1/0x2", "f.constprop.0" },
		{ "percpu:runqueues+0x0", "percpu:runqueues" },
		{ "init_task+0x668", "init_task" },
		{ "*overflow*", "*overflow*" },
		{ "ffffffffc0201234", "ffffffffc0201234" },
		{ "0x0", "0x0" },
		{ "f+0x/0x2", "f+0x/0x2" },
		{ "f+0x1/", "f+0x1/" },
		{ "f+0x1/0x2[m", "f+0x1/0x2[m" },
		{ "f+0x1/0x2junk", "f+0x1/0x2junk" },
		{ "+0x1/0x2", "+0x1/0x2" },
		{ "[unloaded module]", "[unloaded module]" },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		lm_site_func(buf, sizeof(buf), cases[i].in);
		tap_str(buf, cases[i].want, "site label");
	}
}

static struct lm_row *add(struct lm_snapshot *s, int type, const char *lock, const char *site,
			  uint64_t n, uint64_t hold_total, uint64_t hold_max)
{
	struct lm_row *r = lm_snap_add_row(s);

	r->type = type;
	r->lock = lm_snap_strdup(s, lock);
	r->site = lm_snap_strdup(s, site);
	r->class = lm_class_of(lock);
	r->v[LM_F_ACQUIRED] = n;
	r->v[LM_F_NOWAIT] = n;
	r->v[LM_F_HOLD_TOTAL] = hold_total;
	r->v[LM_F_HOLD_MIN] = hold_max / 2;
	r->v[LM_F_HOLD_MAX] = hold_max;
	return r;
}

static const struct lm_row *series(const struct lm_prom *p, int type, const char *lock,
				   const char *site)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if ((int)p->series[i].type == type && !strcmp(p->series[i].lock, lock) &&
		    !strcmp(p->series[i].site, site))
			return &p->series[i];
	return NULL;
}

static void fixture(struct lm_snapshot *s)
{
	lm_snap_init(s);
	/* two offsets in one function: one label set */
	add(s, LM_TYPE_SPIN, "a_lock", "f+0x10/0x80", 3, 3000, 2000);
	add(s, LM_TYPE_SPIN, "a_lock", "f+0x40/0x80", 4, 1000, 500);
	add(s, LM_TYPE_SPIN, "b_lock", "g+0x1/0x9", 1, 900, 900);
	add(s, LM_TYPE_SPIN, "c_lock", "h+0x1/0x9", 2, 800, 700);
	add(s, LM_TYPE_MUTEX, "m_mutex", "k+0x1/0x9", 5, 5000, 4000);
	add(s, LM_TYPE_MUTEX, "[heap]", "pipe_read+0x41/0x4a0", 6, 700, 300);
	add(s, LM_TYPE_MUTEX, "[heap]", "pipe_write+0x5a/0x6b0", 7, 600, 400);
	s->rows[4].v[LM_F_BLOCKED_TOTAL] = 4500;
	s->rows[4].v[LM_F_BLOCKED_MAX] = 3900;
}

static void test_merge_sites(void)
{
	struct lm_snapshot s;
	struct lm_prom p;
	const struct lm_row *r;

	fixture(&s);
	if (!tap_ok(!lm_prom_build(&p, &s, 100, false), "build: all rows kept"))
		goto out;
	tap_num(p.nr, 6, "build: seven rows, six label sets");
	r = series(&p, LM_TYPE_SPIN, "a_lock", "f");
	if (tap_ok(r != NULL, "build: the two sites of f are one series f")) {
		tap_num(r->v[LM_F_ACQUIRED], 7, "merged: acquisitions add");
		tap_num(r->v[LM_F_HOLD_TOTAL], 4000, "merged: hold time adds");
		tap_num(r->v[LM_F_HOLD_MAX], 2000, "merged: the larger maximum");
	}
	tap_str(p.series[0].lock, "m_mutex", "build: most hold time first");
	tap_num(p.other_rows, 0, "build: nothing rolled up");
	lm_prom_free(&p);
	if (!tap_ok(!lm_prom_build(&p, &s, 100, true), "build: exact sites"))
		goto out;
	tap_num(p.nr, 7, "exact sites: a series per row");
	tap_ok(series(&p, LM_TYPE_SPIN, "a_lock", "f+0x40/0x80") != NULL,
	       "exact sites: the site as the kernel names it");
	lm_prom_free(&p);
out:
	lm_snap_free(&s);
}

static void test_other(void)
{
	struct lm_snapshot s;
	struct lm_prom p;
	const struct lm_row *r;

	fixture(&s);
	/* a row that carries the roll-up's labels joins the roll-up */
	add(&s, LM_TYPE_SPIN, LM_PROM_OTHER, LM_PROM_OTHER, 10, 1000000, 100);
	if (!tap_ok(!lm_prom_build(&p, &s, 2, false), "build: --max-series 2"))
		goto out;
	/* m_mutex 5000, a_lock/f 4000 kept; spin b, c, "other"; mutex pipe_* rolled up */
	tap_num(p.nr, 4, "roll-up: two series and one other per type");
	tap_ok(series(&p, LM_TYPE_MUTEX, "m_mutex", "k") && series(&p, LM_TYPE_SPIN, "a_lock", "f"),
	       "roll-up: the two with the most hold time are kept");
	tap_num(p.other_rows, 5, "roll-up: five label sets summed");
	r = series(&p, LM_TYPE_SPIN, LM_PROM_OTHER, LM_PROM_OTHER);
	if (tap_ok(r != NULL, "roll-up: spin other")) {
		tap_num(r->v[LM_F_ACQUIRED], 1 + 2 + 10, "spin other: acquisitions summed");
		tap_num(r->v[LM_F_HOLD_TOTAL], 900 + 800 + 1000000, "spin other: hold time summed");
		tap_num(r->v[LM_F_HOLD_MAX], 900, "spin other: the largest maximum");
		tap_num(r->v[LM_F_HOLD_MIN], 50, "spin other: the smallest minimum");
	}
	r = series(&p, LM_TYPE_MUTEX, LM_PROM_OTHER, LM_PROM_OTHER);
	if (tap_ok(r != NULL, "roll-up: mutex other"))
		tap_num(r->v[LM_F_ACQUIRED], 13, "mutex other: the [heap] sites summed");
	tap_ok(p.series[p.nr - 1].lock == p.series[p.nr - 2].lock &&
	       !strcmp(p.series[p.nr - 1].lock, LM_PROM_OTHER), "roll-up: the other series last");
	lm_prom_free(&p);
	if (!tap_ok(!lm_prom_build(&p, &s, 0, false), "build: --max-series 0"))
		goto out;
	tap_num(p.nr, 2, "--max-series 0: one other per type");
	lm_prom_free(&p);
out:
	lm_snap_free(&s);
}

static char *print(const struct lm_prom *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	lm_prom_print(f, p);
	fclose(f);
	return buf;
}

static void test_print(void)
{
	struct lm_snapshot s;
	struct lm_prom p;
	const char *why;
	char *out;

	fixture(&s);
	lm_hdr_set(&s.h, LM_H_STATE, "on", &why);
	lm_hdr_set(&s.h, LM_H_METERED_NS, "2500000000", &why);
	lm_hdr_set(&s.h, LM_H_LOSS + LM_L_DROPPED, "3", &why);
	lm_hdr_set(&s.h, LM_H_LOSS + LM_L_TRUNCATED, "2", &why);
	add(&s, LM_TYPE_SPIN, "we\"ird\\", "q+0x1/0x2", 1, 1, 1);
	if (lm_prom_build(&p, &s, 100, false) || !(out = print(&p))) {
		tap_ok(0, "print: built and printed");
		goto out;
	}
	tap_ok(strstr(out, "\nlockmeter_acquisitions_total{type=\"spin\",lock=\"a_lock\",site=\"f\"} 7\n") != NULL,
	       "print: a counter with its labels");
	tap_ok(strstr(out, "\nlockmeter_hold_seconds_total{type=\"mutex\",lock=\"m_mutex\",site=\"k\"} 0.000005\n") != NULL,
	       "print: seconds from ns");
	tap_ok(strstr(out, "\nlockmeter_hold_blocked_max_seconds{type=\"mutex\",lock=\"m_mutex\",site=\"k\"} 0.0000039\n") != NULL,
	       "print: the blocked maximum of a mutex");
	tap_ok(!strstr(out, "lockmeter_hold_blocked_seconds_total{type=\"spin\""),
	       "print: no blocked time for a spinlock");
	tap_ok(strstr(out, "lock=\"we\\\"ird\\\\\"") != NULL, "print: label values escaped");
	tap_ok(strstr(out, "# TYPE lockmeter_hold_max_seconds gauge\n") &&
	       strstr(out, "# TYPE lockmeter_wait_seconds_total counter\n"),
	       "print: TYPE lines, gauges for maxima");
	tap_ok(strstr(out, "\nlockmeter_metering 1\n") &&
	       strstr(out, "\nlockmeter_metered_seconds_total 2.5\n"), "print: state and metered time");
	tap_ok(strstr(out, "\nlockmeter_losses_total{kind=\"dropped\"} 3\n") &&
	       strstr(out, "\nlockmeter_snapshot_truncated_rows 2\n") &&
	       !strstr(out, "kind=\"truncated\""), "print: losses; truncated is a gauge");
	free(out);
	lm_prom_free(&p);
out:
	lm_snap_free(&s);
}

/* rows with the kernel's alert count: a counter per series, offsets of a function summed */
static void test_alerts(void)
{
	struct lm_snapshot s;
	struct lm_prom p;
	const char *why;
	char *out;
	size_t i;

	fixture(&s);
	for (i = 0; i < s.nr; i++) {
		s.rows[i].has_alerts = true;
		s.rows[i].alerts = i < 2 ? 2 + i : 0;
		s.rows[i].alerts_dropped = i < 2 ? 1 : 0;
	}
	lm_hdr_set(&s.h, LM_H_ALERTS, "5", &why);
	lm_hdr_set(&s.h, LM_H_ALERTS_SENT, "4", &why);
	lm_hdr_set(&s.h, LM_H_ALERTS_DROPPED, "1", &why);
	if (lm_prom_build(&p, &s, 100, false) || !(out = print(&p))) {
		tap_ok(0, "alerts: built and printed");
		goto out;
	}
	tap_ok(strstr(out, "# HELP lockmeter_alerts_total ") &&
	       strstr(out, "\n# TYPE lockmeter_alerts_total counter\n"), "alerts: HELP and TYPE");
	tap_ok(strstr(out, "\nlockmeter_alerts_total{type=\"spin\",lock=\"a_lock\",site=\"f\"} 5\n") != NULL,
	       "alerts: the rows of one label set summed");
	tap_ok(strstr(out, "\nlockmeter_alerts_total{type=\"mutex\",lock=\"m_mutex\",site=\"k\"} 0\n") != NULL,
	       "alerts: a row without alerts is a 0 sample");
	tap_ok(strstr(out, "\n# TYPE lockmeter_alerts_lost_total counter\n") &&
	       strstr(out, "\nlockmeter_alerts_lost_total{type=\"spin\",lock=\"a_lock\",site=\"f\"} 2\n"),
	       "alerts: the rows' alerts their CPU dropped, summed");
	tap_ok(strstr(out, "\nlockmeter_alerts_raised_total 5\n") &&
	       strstr(out, "\nlockmeter_alerts_sent_total 4\n") &&
	       strstr(out, "\n# TYPE lockmeter_alerts_dropped_total counter\nlockmeter_alerts_dropped_total 1\n"),
	       "alerts: the header's counters");
	free(out);
	lm_prom_free(&p);
out:
	lm_snap_free(&s);
}

static int write_text(FILE *f, const void *arg)
{
	fputs(arg, f);
	return ferror(f);
}

static int write_fail(FILE *f, const void *arg)
{
	(void)arg;
	fputs("half", f);
	return 1;
}

static char *slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return buf;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* no "*.tmp.*" left in @dir */
static bool no_tmp(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep -q '\\.tmp\\.'", dir);
	return system(cmd) != 0;
}

static void test_textfile(void)
{
	char dir[] = "/tmp/lockstat-prom.XXXXXX", path[256], link[256], other[256], buf[64];
	struct lm_out o;
	struct stat st, st2;
	mode_t um;
	int ret;

	if (!mkdtemp(dir)) {
		tap_ok(0, "textfile: a temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/lockmeter.prom", dir);
	snprintf(link, sizeof(link), "%s/link.prom", dir);
	snprintf(other, sizeof(other), "%s/other", dir);

	um = umask(077);
	ret = lm_out_open_regular(&o, path, 0644, "metrics");
	ret = ret ? ret : lm_out_write(&o, write_text, "one 1\n");
	umask(um);
	tap_ok(!ret && !strcmp(slurp(path, buf, sizeof(buf)), "one 1\n"), "textfile: a new file written");
	tap_ok(!stat(path, &st) && (st.st_mode & 07777) == 0644, "textfile: a new file is 0644, whatever the umask");

	chmod(path, 0640);
	stat(path, &st);
	ret = lm_out_open_regular(&o, path, 0644, "metrics");
	ret = ret ? ret : lm_out_write(&o, write_text, "two 2\n");
	tap_ok(!ret && !strcmp(slurp(path, buf, sizeof(buf)), "two 2\n") && !stat(path, &st2) &&
	       st2.st_ino != st.st_ino && (st2.st_mode & 07777) == 0640,
	       "textfile: replaced by rename, its mode kept");

	/* a write that fails leaves the old file and no temporary file */
	ret = lm_out_open_regular(&o, path, 0644, "metrics");
	ret = ret ? ret : lm_out_write(&o, write_fail, NULL);
	tap_ok(ret && !strcmp(slurp(path, buf, sizeof(buf)), "two 2\n") && no_tmp(dir),
	       "textfile: a failed write keeps the old file, no temporary file left");

	fclose(fopen(other, "w"));
	if (symlink("other", link)) {
		tap_ok(0, "textfile: a symbolic link made");
	} else {
		ret = lm_out_open_regular(&o, link, 0644, "metrics");
		lm_out_abort(&o);
		tap_ok(ret == LM_EXIT_ERR && !lstat(link, &st) && S_ISLNK(st.st_mode) &&
		       !stat(other, &st) && st.st_size == 0, "textfile: a symbolic link is refused, left alone");
	}
	unlink(link);
	if (mkfifo(link, 0600)) {
		tap_ok(0, "textfile: a FIFO made");
	} else {
		ret = lm_out_open_regular(&o, link, 0644, "metrics");
		lm_out_abort(&o);
		tap_ok(ret == LM_EXIT_ERR && !lstat(link, &st) && S_ISFIFO(st.st_mode),
		       "textfile: a FIFO is refused (no stream), left alone");
	}
	unlink(link);
	mkdir(link, 0700);
	ret = lm_out_open_regular(&o, link, 0644, "metrics");
	lm_out_abort(&o);
	tap_ok(ret == LM_EXIT_ERR, "textfile: a directory is refused");
	rmdir(link);
	tap_ok(no_tmp(dir), "textfile: still no temporary file");

	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	if (system(buf))
		printf("# could not remove %s\n", dir);
}

int main(void)
{
	test_label();
	test_seconds();
	test_site();
	test_merge_sites();
	test_other();
	test_print();
	test_alerts();
	test_textfile();
	return tap_done();
}
