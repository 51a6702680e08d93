/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat: the "lockmeter" generic netlink family (nl.c, all libnl code).
 */
#ifndef LOCKSTAT_NL_H
#define LOCKSTAT_NL_H

#include "lockstat.h"
#include "model.h"

struct nl_sock;

struct lm_nl {
	struct nl_sock *sk;
	int family;
	char why[160];		/* why lm_nl_open() found no family */
};

int lm_nl_open(struct lm_nl *nl);
void lm_nl_close(struct lm_nl *nl);
int lm_nl_status(struct lm_nl *nl, struct lm_header *h);
int lm_nl_dump(struct lm_nl *nl, int cpu, struct lm_snapshot *s);
int lm_nl_held(struct lm_nl *nl, uint64_t over_ns, struct lm_held_list *l);
int lm_nl_control(struct lm_nl *nl, enum lm_ctl op);
int lm_nl_watch_set(struct lm_nl *nl, uint32_t type, const uint64_t *hold_ns,
		    const uint64_t *wait_ns);

/* lockstat watch: alerts on a socket of their own */
struct nl_msg;
typedef int (*lm_nl_alert_fn)(const struct lm_alert *a, void *arg);

int lm_nl_subscribe(struct lm_nl *nl, int rcvbuf);
int lm_nl_fd(const struct lm_nl *nl);
int lm_nl_alert_parse(struct nl_msg *msg, struct lm_alert *a);
int lm_nl_alerts(struct lm_nl *nl, lm_nl_alert_fn fn, void *arg, uint64_t *overruns);

#endif /* LOCKSTAT_NL_H */
