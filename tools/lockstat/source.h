/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat: where live data comes from: the netlink family, or
 * /proc/lockmeter when the kernel has no family (or --source=proc).
 */
#ifndef LOCKSTAT_SOURCE_H
#define LOCKSTAT_SOURCE_H

#include "lockstat.h"
#include "model.h"
#include "nl.h"

enum lm_src {
	LM_SRC_AUTO,
	LM_SRC_NETLINK,
	LM_SRC_PROC,
};

struct lm_source {
	enum lm_src want;
	enum lm_src used;
	struct lm_nl nl;
	const char *proc;	/* $LOCKSTAT_PROC or /proc/lockmeter */
};

int lm_source_open(struct lm_source *src, enum lm_src want);
void lm_source_close(struct lm_source *src);
int lm_source_nl_only(struct lm_nl *nl, const char *cmd, const char *what);
int lm_source_status(struct lm_source *src, struct lm_snapshot *s);
int lm_source_read(struct lm_source *src, int cpu, struct lm_snapshot *s);
int lm_source_control(struct lm_source *src, enum lm_ctl op);

#endif /* LOCKSTAT_SOURCE_H */
