// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of on, off, reset and release without a kernel: ctl.c is
 * included to reach its option parsing, and the source it would open is
 * a stand-in that records what was asked of it.  Then what the kernel's
 * refusals of each operation are said to mean (lm_ctl_refused()).
 */
#include "../ctl.c"

#include <errno.h>
#include <stdlib.h>

#include "tap.h"

/* the stand-in source: what ctl_main() asked of it */
static struct {
	int opened;
	enum lm_src want;
	int op;			/* -1: none asked */
	int closed;
} fake;

int lm_source_open(struct lm_source *src, enum lm_src want)
{
	memset(src, 0, sizeof(*src));
	fake.opened++;
	fake.want = want;
	return 0;
}

int lm_source_control(struct lm_source *src, enum lm_ctl op)
{
	(void)src;
	fake.op = op;
	return 0;
}

void lm_source_close(struct lm_source *src)
{
	(void)src;
	fake.closed++;
}

#define MAX_ARGS	7

/* the blank-separated words of @args, copied into @buf, as @argv: their number */
static int split(const char *args, char *buf, size_t len, char *argv[MAX_ARGS + 1])
{
	char *save = NULL, *w;
	int argc = 0;

	snprintf(buf, len, "%s", args);
	for (w = strtok_r(buf, " ", &save); w && argc < MAX_ARGS; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	optind = 0;	/* glibc: start over */
	return argc;
}

/* ctl_main() on the words of @args, from a clean stand-in */
static int run(const char *args)
{
	char buf[128], *argv[MAX_ARGS + 1];
	int argc;

	memset(&fake, 0, sizeof(fake));
	fake.op = -1;
	argc = split(args, buf, sizeof(buf), argv);
	return ctl_main(argc, argv);
}

/* ctl_parse_args() alone: what a good command line asks for */
static void test_parse(void)
{
	static const struct {
		const char *args;
		enum lm_ctl op;
		enum lm_src src;
	} t[] = {
		{ "on", LM_CTL_ON, LM_SRC_AUTO },
		{ "off", LM_CTL_OFF, LM_SRC_AUTO },
		{ "reset", LM_CTL_RESET, LM_SRC_AUTO },
		{ "release", LM_CTL_RELEASE, LM_SRC_AUTO },
		{ "release --source proc", LM_CTL_RELEASE, LM_SRC_PROC },
		{ "release --source=netlink", LM_CTL_RELEASE, LM_SRC_NETLINK },
	};
	char buf[128], *argv[MAX_ARGS + 1];
	struct ctl_params p;
	unsigned int i;
	int argc, ret;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		argc = split(t[i].args, buf, sizeof(buf), argv);
		ret = ctl_parse_args(argc, argv, &p);
		tap_ok(!ret && p.op == t[i].op && p.opts.source == t[i].src, "ctl: '%s' parses",
		       t[i].args);
	}
	tap_ok(lm_ctl_find("release") == LM_CTL_RELEASE && lm_ctl_find("reset") == LM_CTL_RESET &&
	       !strcmp(lm_ctl_words[LM_CTL_RELEASE], "release"),
	       "ctl: release's word, both ways");
	tap_ok(lm_ctl_find("releas") < 0 && lm_ctl_find("Release") < 0 && lm_ctl_find("") < 0,
	       "ctl: no other word is release");
	fprintf(stderr, "# expected: a message on a word that is no operation\n");
	argc = split("free", buf, sizeof(buf), argv);
	tap_ok(ctl_parse_args(argc, argv, &p) == LM_EXIT_USAGE, "ctl: 'free' is no operation");
}

/* ctl_main(): the operation reaches the source; bad command lines never do */
static void test_main(void)
{
	static const struct {
		const char *args;
		int ret;
	} bad[] = {
		{ "release now", LM_EXIT_USAGE },
		{ "release --bogus", LM_EXIT_USAGE },
		{ "release --source", LM_EXIT_USAGE },
		{ "release --source sysfs", LM_EXIT_USAGE },
		{ "release --cpu 0", LM_EXIT_USAGE },
	};
	unsigned int i;
	int ret;

	ret = run("release");
	tap_ok(!ret && fake.opened == 1 && fake.want == LM_SRC_AUTO && fake.op == LM_CTL_RELEASE &&
	       fake.closed == 1, "ctl: release asks the source for release, then closes it");
	ret = run("release --source proc");
	tap_ok(!ret && fake.want == LM_SRC_PROC && fake.op == LM_CTL_RELEASE,
	       "ctl: release --source proc");
	fprintf(stderr, "# expected: %zu messages and usages of bad command lines\n",
		ARRAY_SIZE(bad));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ret = run(bad[i].args);
		tap_ok(ret == bad[i].ret && !fake.opened && fake.op == -1,
		       "ctl: '%s': exit %d, no source opened", bad[i].args, bad[i].ret);
	}
}

/* lm_ctl_refused(): @op refused with @err; 0 or its message in @msg */
static int refused(enum lm_ctl op, int err, char *msg, size_t len)
{
	int ret;

	msg[0] = '\0';
	lm_err_capture(msg, len);
	ret = lm_ctl_refused(op, err, "netlink");
	lm_err_capture(NULL, 0);
	return ret;
}

static void test_refused(void)
{
	static const struct {
		enum lm_ctl op;
		int err;
	} generic[] = {
		{ LM_CTL_RELEASE, EPERM },	/* needs root: said as for any request */
		{ LM_CTL_RELEASE, ENOMEM },
		{ LM_CTL_ON, EBUSY },
		{ LM_CTL_ON, EINVAL },
		{ LM_CTL_ON, EPERM },
		{ LM_CTL_OFF, ENOMEM },
		{ LM_CTL_RESET, EBUSY },
	};
	char msg[512];
	unsigned int i;
	int ret;

	ret = refused(LM_CTL_RELEASE, EBUSY, msg, sizeof(msg));
	tap_ok(ret == LM_EXIT_ERR && strstr(msg, "metering is on") &&
	       strstr(msg, "run 'lockstat off' first"),
	       "refused: release while on (EBUSY): exit 1, run 'lockstat off' first");
	ret = refused(LM_CTL_RELEASE, EINVAL, msg, sizeof(msg));
	tap_ok(ret == LM_EXIT_ERR && strstr(msg, "this kernel does not support release"),
	       "refused: release on an older kernel (EINVAL): exit 1, not supported");
	ret = refused(LM_CTL_ON, ENOMEM, msg, sizeof(msg));
	tap_ok(ret == LM_EXIT_ERR && strstr(msg, "cap (mem_cap") &&
	       strstr(msg, "an allocation failed") && strstr(msg, "nothing was changed"),
	       "refused: on past the cap (ENOMEM): exit 1, the cap, nothing changed");
	if (!strstr(msg, "nothing was changed"))
		printf("# %s\n", msg);
	for (i = 0; i < ARRAY_SIZE(generic); i++) {
		ret = refused(generic[i].op, generic[i].err, msg, sizeof(msg));
		tap_ok(!ret && !msg[0], "refused: %s %s: the usual words",
		       lm_ctl_words[generic[i].op], strerror(generic[i].err));
	}
}

int main(void)
{
	test_parse();
	test_main();
	test_refused();
	return tap_done();
}
