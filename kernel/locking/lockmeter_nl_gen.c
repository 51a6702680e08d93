// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/lockmeter.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "lockmeter_nl_gen.h"

#include <uapi/linux/lockmeter.h>

/* LOCKMETER_CMD_STATS_GET - dump */
static const struct nla_policy lockmeter_stats_get_nl_policy[LOCKMETER_A_CPU + 1] = {
	[LOCKMETER_A_CPU] = { .type = NLA_U32, },
};

/* LOCKMETER_CMD_CONTROL - do */
static const struct nla_policy lockmeter_control_nl_policy[LOCKMETER_A_CONTROL + 1] = {
	[LOCKMETER_A_CONTROL] = { .type = NLA_U32, },
};

/* LOCKMETER_CMD_HELD_GET - dump */
static const struct nla_policy lockmeter_held_get_nl_policy[LOCKMETER_A_OVER + 1] = {
	[LOCKMETER_A_OVER] = { .type = NLA_UINT, },
};

/* LOCKMETER_CMD_WATCH_SET - do */
static const struct nla_policy lockmeter_watch_set_nl_policy[LOCKMETER_A_WATCH_WAIT_NS + 1] = {
	[LOCKMETER_A_WATCH_TYPE] = NLA_POLICY_RANGE(NLA_U32, 1, 13),
	[LOCKMETER_A_WATCH_HOLD_NS] = { .type = NLA_UINT, },
	[LOCKMETER_A_WATCH_WAIT_NS] = { .type = NLA_UINT, },
};

/* Ops table for lockmeter */
const struct genl_split_ops lockmeter_nl_ops[5] = {
	{
		.cmd	= LOCKMETER_CMD_STATUS_GET,
		.doit	= lockmeter_nl_status_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= LOCKMETER_CMD_STATS_GET,
		.start		= lockmeter_nl_stats_get_start,
		.dumpit		= lockmeter_nl_stats_get_dumpit,
		.done		= lockmeter_nl_stats_get_done,
		.policy		= lockmeter_stats_get_nl_policy,
		.maxattr	= LOCKMETER_A_CPU,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= LOCKMETER_CMD_CONTROL,
		.doit		= lockmeter_nl_control_doit,
		.policy		= lockmeter_control_nl_policy,
		.maxattr	= LOCKMETER_A_CONTROL,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= LOCKMETER_CMD_HELD_GET,
		.start		= lockmeter_nl_held_get_start,
		.dumpit		= lockmeter_nl_held_get_dumpit,
		.done		= lockmeter_nl_held_get_done,
		.policy		= lockmeter_held_get_nl_policy,
		.maxattr	= LOCKMETER_A_OVER,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= LOCKMETER_CMD_WATCH_SET,
		.doit		= lockmeter_nl_watch_set_doit,
		.policy		= lockmeter_watch_set_nl_policy,
		.maxattr	= LOCKMETER_A_WATCH_WAIT_NS,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
};

static const struct genl_multicast_group lockmeter_nl_mcgrps[] = {
	[LOCKMETER_NLGRP_ALERTS] = { "alerts", },
};
