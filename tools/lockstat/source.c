// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: the live data source.  Netlink by default; /proc/lockmeter
 * when the kernel has no "lockmeter" family, or when asked for.  The
 * environment variable LOCKSTAT_PROC names another file in place of
 * /proc/lockmeter (the tests use it).  Whatever the source, a snapshot
 * also gets this machine's uname, since the data is from its kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "procfs.h"
#include "source.h"

int lm_source_open(struct lm_source *src, enum lm_src want)
{
	const char *env = getenv("LOCKSTAT_PROC");
	int ret, err;

	memset(src, 0, sizeof(*src));
	src->want = want;
	src->proc = env && *env ? env : LM_PROC_PATH;
	if (want != LM_SRC_PROC) {
		ret = lm_nl_open(&src->nl);
		if (!ret) {
			src->used = LM_SRC_NETLINK;
			return 0;
		}
		if (ret != LM_EXIT_NOFAMILY)
			return ret;
		if (want == LM_SRC_NETLINK) {
			lm_err("--source=netlink: %s", src->nl.why);
			lm_err("is this kernel built with CONFIG_LOCKMETER?");
			return LM_EXIT_NOFAMILY;
		}
	}
	err = lm_proc_exists(src->proc);
	if (!err) {
		src->used = LM_SRC_PROC;
		return 0;
	}
	if (err == ENOENT && want == LM_SRC_AUTO) {
		lm_err("this kernel has no lockmeter: %s, and no %s (CONFIG_LOCKMETER)",
		       src->nl.why, src->proc);
		return LM_EXIT_NOLM;
	}
	lm_err("%s: %s", src->proc, strerror(err));
	if (err == ENOENT) {
		lm_err("this kernel has no lockmeter (CONFIG_LOCKMETER)");
		return LM_EXIT_NOLM;
	}
	return (err == EACCES || err == EPERM) ? LM_EXIT_PERM : LM_EXIT_ERR;
}

/*
 * The family for subcommand @cmd that has no /proc fallback (@what: "held
 * locks are known", what only the family has), or why not: a kernel
 * without lockmeter, or one with /proc only
 */
int lm_source_nl_only(struct lm_nl *nl, const char *cmd, const char *what)
{
	const char *env = getenv("LOCKSTAT_PROC");
	const char *proc = env && *env ? env : LM_PROC_PATH;
	int ret = lm_nl_open(nl);

	if (ret != LM_EXIT_NOFAMILY)
		return ret;
	if (lm_proc_exists(proc) == ENOENT) {
		lm_err("%s: this kernel has no lockmeter (CONFIG_LOCKMETER): %s", cmd, nl->why);
		return LM_EXIT_NOLM;
	}
	lm_err("%s: %s; %s to the netlink family only, %s has none", cmd, nl->why, what, proc);
	return LM_EXIT_NOFAMILY;
}

void lm_source_close(struct lm_source *src)
{
	lm_nl_close(&src->nl);
}

static void lm_source_uname(struct lm_header *h)
{
	struct utsname u;

	if (uname(&u))
		return;
	lm_hdr_put_str(h, LM_H_SYSTEM, u.sysname);
	lm_hdr_put_str(h, LM_H_NODE, u.nodename);
	lm_hdr_put_str(h, LM_H_RELEASE, u.release);
	lm_hdr_put_str(h, LM_H_UVERSION, u.version);
	lm_hdr_put_str(h, LM_H_MACHINE, u.machine);
}

/* the header only (/proc gives everything anyway) */
int lm_source_status(struct lm_source *src, struct lm_snapshot *s)
{
	int ret;

	if (src->used == LM_SRC_PROC)
		return lm_source_read(src, -1, s);
	ret = lm_nl_status(&src->nl, &s->h);
	if (ret)
		return ret;
	lm_hdr_put_str(&s->h, LM_H_SOURCE, "netlink");
	lm_source_uname(&s->h);
	return 0;
}

/* header and rows; @cpu >= 0: that CPU's table only (netlink) */
int lm_source_read(struct lm_source *src, int cpu, struct lm_snapshot *s)
{
	int ret;

	if (src->used == LM_SRC_PROC) {
		if (cpu >= 0) {
			lm_err("--cpu needs the lockmeter netlink family; %s has merged rows only",
			       src->proc);
			return LM_EXIT_NOFAMILY;
		}
		ret = lm_proc_read(src->proc, s);
	} else {
		ret = lm_nl_status(&src->nl, &s->h);
		if (!ret)
			ret = lm_nl_dump(&src->nl, cpu, s);
		/* rows, yet nothing metered: metering went on between the two */
		if (!ret && s->nr && !s->h.metered_ns)
			ret = lm_nl_status(&src->nl, &s->h);
		if (!ret)
			lm_hdr_put_str(&s->h, LM_H_SOURCE, "netlink");
		if (!ret && cpu >= 0) {
			s->h.cpu = cpu;
			lm_set(&s->h, LM_H_CPU);
		}
	}
	if (!ret)
		lm_source_uname(&s->h);
	return ret;
}

int lm_source_control(struct lm_source *src, enum lm_ctl op)
{
	if (src->used == LM_SRC_PROC)
		return lm_proc_control(src->proc, op);
	return lm_nl_control(&src->nl, op);
}
