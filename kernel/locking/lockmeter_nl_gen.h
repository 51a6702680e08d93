/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/lockmeter.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_LOCKMETER_GEN_H
#define _LINUX_LOCKMETER_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/lockmeter.h>

/* Ops table for lockmeter */
extern const struct genl_split_ops lockmeter_nl_ops[5];

int lockmeter_nl_stats_get_start(struct netlink_callback *cb);
int lockmeter_nl_held_get_start(struct netlink_callback *cb);
int lockmeter_nl_stats_get_done(struct netlink_callback *cb);
int lockmeter_nl_held_get_done(struct netlink_callback *cb);

int lockmeter_nl_status_get_doit(struct sk_buff *skb, struct genl_info *info);
int lockmeter_nl_stats_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb);
int lockmeter_nl_control_doit(struct sk_buff *skb, struct genl_info *info);
int lockmeter_nl_held_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);
int lockmeter_nl_watch_set_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	LOCKMETER_NLGRP_ALERTS,
};

#endif /* _LINUX_LOCKMETER_GEN_H */
