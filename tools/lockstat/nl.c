// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: the "lockmeter" generic netlink family, and all libnl code.
 *
 *   lm_nl_open()/lm_nl_close()  socket, extended ACKs, family id
 *   lm_nl_status()              LOCKMETER_CMD_STATUS_GET (do)
 *   lm_nl_dump()                LOCKMETER_CMD_STATS_GET (dump, admin)
 *   lm_nl_held()                LOCKMETER_CMD_HELD_GET (dump, admin)
 *   lm_nl_control()             LOCKMETER_CMD_CONTROL (do, admin): on, off,
 *                               reset, release
 *   lm_nl_watch_set()           LOCKMETER_CMD_WATCH_SET (do, admin)
 *   lm_nl_subscribe()           join the alerts multicast group (admin)
 *   lm_nl_alerts()              LOCKMETER_CMD_ALERT events, as they come
 *
 * Every request gets its own nl_cb (VALID, FINISH, ACK, ERR); replies are
 * parsed with genlmsg_parse() against the policies below and then checked
 * for their mandatory attributes.  A reply that does not parse is
 * remembered and the rest of the dump still drained, so the socket stays
 * usable.  Counters are NLA_UINT: 4 bytes when the value fits, else 8.
 * A row may carry the evidence of its longest hold and wait, each a nest
 * of its own policy; the hold's may add how long, and where, its holder
 * blocked (a sleeping lock); evidence attributes this reader does not
 * know are skipped, a known one of the wrong size refuses the reply.
 * Histograms: the status gives the bucket bounds (HIST_BOUND, once per
 * bucket, in order) and a row its hold and wait counts (HOLD_HIST,
 * WAIT_HIST nests of one COUNT per bucket); a row whose counts are not
 * one per bound, or do not sum to its acquisitions and waits, refuses
 * the reply.
 * Alerts (lockstat watch) come on a socket of their own, joined to the
 * alerts group, non-blocking, without sequence checks: each message is
 * parsed into a struct lm_alert, its evidence and waiters by the same
 * code as a row's evidence and a held lock's waiters.
 * include/uapi/linux/lockmeter.h is the reference.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>

#include <linux/lockmeter.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* the model numbers lock types and classes as the UAPI does */
#define LM_SAME(a, b)	static_assert((int)(a) == (int)(b), #a " is " #b)
LM_SAME(LM_TYPE_SPIN, LOCKMETER_TYPE_SPIN);
LM_SAME(LM_TYPE_READ, LOCKMETER_TYPE_READ);
LM_SAME(LM_TYPE_WRITE, LOCKMETER_TYPE_WRITE);
LM_SAME(LM_TYPE_MUTEX, LOCKMETER_TYPE_MUTEX);
LM_SAME(LM_TYPE_RWSEM_READ, LOCKMETER_TYPE_RWSEM_READ);
LM_SAME(LM_TYPE_RWSEM_WRITE, LOCKMETER_TYPE_RWSEM_WRITE);
LM_SAME(LM_TYPE_RT_MUTEX, LOCKMETER_TYPE_RT_MUTEX);
LM_SAME(LM_TYPE_PERCPU_RWSEM_READ, LOCKMETER_TYPE_PERCPU_RWSEM_READ);
LM_SAME(LM_TYPE_PERCPU_RWSEM_WRITE, LOCKMETER_TYPE_PERCPU_RWSEM_WRITE);
LM_SAME(LM_TYPE_SEMAPHORE, LOCKMETER_TYPE_SEMAPHORE);
LM_SAME(LM_TYPE_RT_SPIN, LOCKMETER_TYPE_RT_SPIN);
LM_SAME(LM_TYPE_RT_READ, LOCKMETER_TYPE_RT_READ);
LM_SAME(LM_TYPE_RT_WRITE, LOCKMETER_TYPE_RT_WRITE);
LM_SAME(LM_NR_TYPES, LOCKMETER_TYPE_RT_WRITE + 1);
LM_SAME(LM_CLASS_STATIC, LOCKMETER_CLASS_STATIC);
LM_SAME(LM_CLASS_PERCPU, LOCKMETER_CLASS_PERCPU);
LM_SAME(LM_CLASS_HEAP, LOCKMETER_CLASS_HEAP);
LM_SAME(LM_CLASS_OVERFLOW, LOCKMETER_CLASS_OVERFLOW);
LM_SAME(LM_CLASS_SLAB, LOCKMETER_CLASS_SLAB);
LM_SAME(LM_CONTEXT_TASK, LOCKMETER_CTX_TASK);
LM_SAME(LM_CONTEXT_SOFTIRQ, LOCKMETER_CTX_SOFTIRQ);
LM_SAME(LM_CONTEXT_HARDIRQ, LOCKMETER_CTX_HARDIRQ);

#define LM_NLA_U32	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define LM_NLA_UINT	{ .type = NLA_UNSPEC, .minlen = 4, .maxlen = 8 }
#define LM_NLA_STR	{ .type = NLA_STRING, .minlen = 1, .maxlen = 1024 }
#define LM_NLA_COMM	{ .type = NLA_STRING, .minlen = 1, .maxlen = LM_COMM_MAX }
#define LM_NLA_FRAME	{ .type = NLA_STRING, .minlen = 2, .maxlen = LM_FRAME_MAX }

static const struct nla_policy lm_nl_policy[LOCKMETER_A_MAX + 1] = {
	[LOCKMETER_A_VERSION]		= LM_NLA_U32,
	[LOCKMETER_A_KERNEL]		= LM_NLA_STR,
	[LOCKMETER_A_CPUS]		= LM_NLA_U32,
	[LOCKMETER_A_STATE]		= LM_NLA_U32,
	[LOCKMETER_A_METERED_NS]	= LM_NLA_UINT,
	[LOCKMETER_A_SLOTS_USED]	= LM_NLA_U32,
	[LOCKMETER_A_SLOTS_PER_CPU]	= LM_NLA_U32,
	[LOCKMETER_A_DROPPED]		= LM_NLA_UINT,
	[LOCKMETER_A_UNMATCHED]		= LM_NLA_UINT,
	[LOCKMETER_A_RECURSION]		= LM_NLA_UINT,
	[LOCKMETER_A_TABLE_FULL]	= LM_NLA_UINT,
	[LOCKMETER_A_EVICTED]		= LM_NLA_UINT,
	[LOCKMETER_A_CONTROL]		= LM_NLA_U32,
	[LOCKMETER_A_CPU]		= LM_NLA_U32,
	[LOCKMETER_A_ROW]		= { .type = NLA_NESTED },
	[LOCKMETER_A_RESETS]		= LM_NLA_UINT,
	[LOCKMETER_A_IRQCTX]		= LM_NLA_UINT,
	[LOCKMETER_A_TRUNCATED]		= LM_NLA_UINT,
	[LOCKMETER_A_NOTASK]		= LM_NLA_UINT,
	[LOCKMETER_A_MEM_PERCPU]	= LM_NLA_UINT,
	[LOCKMETER_A_MEM_TABLES]	= LM_NLA_UINT,
	[LOCKMETER_A_MEM_TASK]		= LM_NLA_UINT,
	[LOCKMETER_A_STACKS_FULL]	= LM_NLA_UINT,
	[LOCKMETER_A_HIST_LOST]		= LM_NLA_UINT,
	[LOCKMETER_A_CAPTURES]		= LM_NLA_UINT,
	[LOCKMETER_A_HELD]		= { .type = NLA_NESTED },
	[LOCKMETER_A_OVER]		= LM_NLA_UINT,
	[LOCKMETER_A_HIST_BOUND]	= LM_NLA_UINT,
	[LOCKMETER_A_WATCH_TYPE]	= LM_NLA_U32,
	[LOCKMETER_A_WATCH_HOLD_NS]	= LM_NLA_UINT,
	[LOCKMETER_A_WATCH_WAIT_NS]	= LM_NLA_UINT,
	[LOCKMETER_A_WATCH]		= { .type = NLA_NESTED },
	[LOCKMETER_A_ALERTS]		= LM_NLA_UINT,
	[LOCKMETER_A_ALERTS_SENT]	= LM_NLA_UINT,
	[LOCKMETER_A_ALERTS_DROPPED]	= LM_NLA_UINT,
	[LOCKMETER_A_MEM_CPUS]		= LM_NLA_UINT,
	[LOCKMETER_A_MEM_ROWS]		= LM_NLA_UINT,
	[LOCKMETER_A_MEM_CAP]		= LM_NLA_UINT,
};

static const struct nla_policy lm_nl_watch_policy[LOCKMETER_WA_MAX + 1] = {
	[LOCKMETER_WA_TYPE]		= LM_NLA_U32,
	[LOCKMETER_WA_HOLD_NS]		= LM_NLA_UINT,
	[LOCKMETER_WA_WAIT_NS]		= LM_NLA_UINT,
};

static const int lm_nl_watch_mandatory[] = {
	LOCKMETER_WA_TYPE,
};

/* WAITER comes once per waiter */
static const struct nla_policy lm_nl_alert_policy[LOCKMETER_AL_MAX + 1] = {
	[LOCKMETER_AL_KIND]		= LM_NLA_U32,
	[LOCKMETER_AL_TYPE]		= LM_NLA_U32,
	[LOCKMETER_AL_CLASS]		= LM_NLA_U32,
	[LOCKMETER_AL_LOCK]		= LM_NLA_STR,
	[LOCKMETER_AL_SITE]		= LM_NLA_STR,
	[LOCKMETER_AL_NS]		= LM_NLA_UINT,
	[LOCKMETER_AL_THRESHOLD_NS]	= LM_NLA_UINT,
	[LOCKMETER_AL_EVIDENCE]		= { .type = NLA_NESTED },
	[LOCKMETER_AL_WAITER]		= { .type = NLA_NESTED },
	[LOCKMETER_AL_SEQ]		= LM_NLA_UINT,
	[LOCKMETER_AL_DROPPED]		= LM_NLA_UINT,
};

static const int lm_nl_alert_mandatory[] = {
	LOCKMETER_AL_KIND,
	LOCKMETER_AL_TYPE,
	LOCKMETER_AL_CLASS,
	LOCKMETER_AL_LOCK,
	LOCKMETER_AL_SITE,
	LOCKMETER_AL_NS,
	LOCKMETER_AL_THRESHOLD_NS,
};

static const struct nla_policy lm_nl_row_policy[LOCKMETER_R_MAX + 1] = {
	[LOCKMETER_R_TYPE]		= LM_NLA_U32,
	[LOCKMETER_R_CLASS]		= LM_NLA_U32,
#define X(e, n)	[LOCKMETER_R_##e] = LM_NLA_UINT,
	LM_FIELDS(X)
#undef X
	[LOCKMETER_R_LOCK]		= LM_NLA_STR,
	[LOCKMETER_R_SITE]		= LM_NLA_STR,
	[LOCKMETER_R_CPU]		= LM_NLA_U32,
	[LOCKMETER_R_HOLD_EVIDENCE]	= { .type = NLA_NESTED },
	[LOCKMETER_R_WAIT_EVIDENCE]	= { .type = NLA_NESTED },
	[LOCKMETER_R_HOLD_HIST]		= { .type = NLA_NESTED },
	[LOCKMETER_R_WAIT_HIST]		= { .type = NLA_NESTED },
	[LOCKMETER_R_ALERTS]		= LM_NLA_UINT,
	[LOCKMETER_R_ALERTS_DROPPED]	= LM_NLA_UINT,
};

/* COUNT comes once per bucket: each one is checked */
static const struct nla_policy lm_nl_hist_policy[LOCKMETER_HI_MAX + 1] = {
	[LOCKMETER_HI_COUNT]		= LM_NLA_UINT,
};

static const int lm_nl_hist_attr[LM_NR_HIST] = {
	[LM_HIST_HOLD] = LOCKMETER_R_HOLD_HIST,
	[LM_HIST_WAIT] = LOCKMETER_R_WAIT_HIST,
};

/* the FRAME and FRAME_ADDR attributes come once per frame: each one is checked */
static const struct nla_policy lm_nl_ev_policy[LOCKMETER_E_MAX + 1] = {
	[LOCKMETER_E_PID]		= LM_NLA_U32,
	[LOCKMETER_E_COMM]		= LM_NLA_COMM,
	[LOCKMETER_E_CONTEXT]		= LM_NLA_U32,
	[LOCKMETER_E_CPU]		= LM_NLA_U32,
	[LOCKMETER_E_TIME]		= LM_NLA_UINT,
	[LOCKMETER_E_OWNER_PID]		= LM_NLA_U32,
	[LOCKMETER_E_OWNER_COMM]	= LM_NLA_COMM,
	[LOCKMETER_E_FRAME]		= LM_NLA_FRAME,
	[LOCKMETER_E_FRAME_ADDR]	= LM_NLA_UINT,
	[LOCKMETER_E_BLOCKED_NS]	= LM_NLA_UINT,
	[LOCKMETER_E_BLOCKED_FRAME]	= LM_NLA_FRAME,
	[LOCKMETER_E_BLOCKED_FRAME_ADDR] = LM_NLA_UINT,
};

/* FRAME, FRAME_ADDR and WAITER come once per frame and waiter */
static const struct nla_policy lm_nl_held_policy[LOCKMETER_H_MAX + 1] = {
	[LOCKMETER_H_TYPE]		= LM_NLA_U32,
	[LOCKMETER_H_CLASS]		= LM_NLA_U32,
	[LOCKMETER_H_LOCK]		= LM_NLA_STR,
	[LOCKMETER_H_SITE]		= LM_NLA_STR,
	[LOCKMETER_H_HELD_NS]		= LM_NLA_UINT,
	[LOCKMETER_H_PID]		= LM_NLA_U32,
	[LOCKMETER_H_COMM]		= LM_NLA_COMM,
	[LOCKMETER_H_CPU]		= LM_NLA_U32,
	[LOCKMETER_H_FRAME]		= LM_NLA_FRAME,
	[LOCKMETER_H_FRAME_ADDR]	= LM_NLA_UINT,
	[LOCKMETER_H_WAITER]		= { .type = NLA_NESTED },
};

static const struct nla_policy lm_nl_waiter_policy[LOCKMETER_W_MAX + 1] = {
	[LOCKMETER_W_PID]		= LM_NLA_U32,
	[LOCKMETER_W_COMM]		= LM_NLA_COMM,
	[LOCKMETER_W_SITE]		= LM_NLA_STR,
	[LOCKMETER_W_TYPE]		= LM_NLA_U32,
	[LOCKMETER_W_WAITED_NS]		= LM_NLA_UINT,
};

static const int lm_nl_held_mandatory[] = {
	LOCKMETER_H_TYPE,
	LOCKMETER_H_CLASS,
	LOCKMETER_H_LOCK,
	LOCKMETER_H_SITE,
	LOCKMETER_H_HELD_NS,
	LOCKMETER_H_PID,
	LOCKMETER_H_COMM,
};

static const int lm_nl_waiter_mandatory[] = {
	LOCKMETER_W_PID,
	LOCKMETER_W_COMM,
	LOCKMETER_W_TYPE,
	LOCKMETER_W_WAITED_NS,
};

static const int lm_nl_status_mandatory[] = {
	LOCKMETER_A_VERSION,
	LOCKMETER_A_CPUS,
	LOCKMETER_A_STATE,
	LOCKMETER_A_METERED_NS,
};

static const int lm_nl_row_mandatory[] = {
	LOCKMETER_R_TYPE,
	LOCKMETER_R_CLASS,
	LOCKMETER_R_ACQUIRED,
	LOCKMETER_R_NOWAIT,
	LOCKMETER_R_SPIN,
	LOCKMETER_R_REJECT,
	LOCKMETER_R_HOLD_TOTAL,
	LOCKMETER_R_HOLD_MAX,
	LOCKMETER_R_WAIT_TOTAL,
	LOCKMETER_R_WAIT_MAX,
	LOCKMETER_R_LOCK,
	LOCKMETER_R_SITE,
};

static const int lm_nl_ev_mandatory[] = {
	LOCKMETER_E_PID,
	LOCKMETER_E_COMM,
	LOCKMETER_E_CONTEXT,
	LOCKMETER_E_CPU,
	LOCKMETER_E_TIME,
};

static const int lm_nl_ev_attr[LM_NR_EV] = {
	[LM_EV_HOLD] = LOCKMETER_R_HOLD_EVIDENCE,
	[LM_EV_WAIT] = LOCKMETER_R_WAIT_EVIDENCE,
};

static const int lm_nl_field_attr[LM_NR_FIELDS] = {
#define X(e, n)	[LM_F_##e] = LOCKMETER_R_##e,
	LM_FIELDS(X)
#undef X
};

static const int lm_nl_loss_attr[LM_NR_LOSSES] = {
#define X(e, n)	[LM_L_##e] = LOCKMETER_A_##e,
	LM_LOSSES(X)
#undef X
};

/* The memory figures (and the evidence and alert counts) of a status reply, and where they go. */
static const struct {
	int attr;
	int bit;
	size_t off;
} lm_nl_mem[] = {
	{ LOCKMETER_A_MEM_PERCPU, LM_H_MEM_PERCPU, offsetof(struct lm_header, mem_percpu) },
	{ LOCKMETER_A_MEM_TABLES, LM_H_MEM_TABLES, offsetof(struct lm_header, mem_tables) },
	{ LOCKMETER_A_MEM_TASK, LM_H_MEM_TASK, offsetof(struct lm_header, mem_task) },
	{ LOCKMETER_A_MEM_CPUS, LM_H_MEM_CPUS, offsetof(struct lm_header, mem_cpus) },
	{ LOCKMETER_A_MEM_ROWS, LM_H_MEM_ROWS, offsetof(struct lm_header, mem_rows) },
	{ LOCKMETER_A_MEM_CAP, LM_H_MEM_CAP, offsetof(struct lm_header, mem_cap) },
	{ LOCKMETER_A_CAPTURES, LM_H_CAPTURES, offsetof(struct lm_header, captures) },
	{ LOCKMETER_A_ALERTS, LM_H_ALERTS, offsetof(struct lm_header, alerts) },
	{ LOCKMETER_A_ALERTS_SENT, LM_H_ALERTS_SENT, offsetof(struct lm_header, alerts_sent) },
	{ LOCKMETER_A_ALERTS_DROPPED, LM_H_ALERTS_DROPPED,
	  offsetof(struct lm_header, alerts_dropped) },
};

/* One request in flight: what the callbacks share. */
struct lm_nl_req {
	int status;		/* 1 running, 0 done, < 0 -errno from the kernel */
	int parse;		/* the first bad reply, as an exit code */
	int nr;			/* replies */
	void *arg;
	bool own_errno;		/* a kernel error returned as -errno: the caller says it */
};

/* libnl has no nla_get_uint(): NLA_UINT is 4 or 8 bytes */
static int lm_nla_get_uint(const struct nlattr *a, uint64_t *v)
{
	uint32_t v32;

	switch (nla_len(a)) {
	case 4:
		memcpy(&v32, nla_data(a), sizeof(v32));
		*v = v32;
		return 0;
	case 8:
		memcpy(v, nla_data(a), sizeof(*v));
		return 0;
	}
	return -1;
}

/* a NUL-terminated string attribute, or NULL */
static const char *lm_nla_str(const struct nlattr *a)
{
	const char *s = nla_data(a);
	int len = nla_len(a);

	return len > 0 && !s[len - 1] ? s : NULL;
}

/* the first mandatory attribute missing from @tb, or 0 */
static int lm_nl_missing(struct nlattr **tb, const int *mandatory, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!tb[mandatory[i]])
			return mandatory[i];
	return 0;
}

static void lm_nl_bad(struct lm_nl_req *req, const char *what, int attr)
{
	if (!req->parse)
		lm_err("netlink: malformed reply: %s (attribute %d)", what, attr);
	req->parse = LM_EXIT_ERR;
}

/*
 * @nest (@what: "row", "evidence", ...) parsed into @tb by @policy, with
 * its @mandatory attributes: 0, or 1 when it is malformed (said so)
 */
static int lm_nl_nest(struct lm_nl_req *req, const char *what, struct nlattr *nest,
		      struct nlattr **tb, int max, const struct nla_policy *policy,
		      const int *mandatory, size_t n)
{
	char why[96];
	int a;

	if (nla_parse_nested(tb, max, nest, (struct nla_policy *)policy) < 0) {
		snprintf(why, sizeof(why), "%s does not parse", what);
		lm_nl_bad(req, why, nla_type(nest));
		return 1;
	}
	a = lm_nl_missing(tb, mandatory, n);
	if (a) {
		snprintf(why, sizeof(why), "%s lacks a mandatory attribute", what);
		lm_nl_bad(req, why, a);
		return 1;
	}
	return 0;
}

/* a lock type and class this reader knows */
static bool lm_nl_type_class_ok(uint32_t type, uint32_t class)
{
	return type > LM_TYPE_NONE && type < LM_NR_TYPES && class <= LM_CLASS_SLAB;
}

/* NLMSG_DONE: the end of a dump, with the dump's error if it failed */
static int lm_nl_finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct lm_nl_req *req = arg;
	int err = 0;

	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(err))
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
	req->status = err < 0 ? err : 0;
	return NL_SKIP;
}

static int lm_nl_ack_cb(struct nl_msg *msg, void *arg)
{
	struct lm_nl_req *req = arg;

	(void)msg;
	req->status = 0;
	return NL_STOP;
}

/* a control request has no reply but its ACK */
static int lm_nl_ignore_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_SKIP;
}

/* the kernel's error, and its extended ACK message when it sent one */
static int lm_nl_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)err - 1;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct lm_nl_req *req = arg;
	size_t off = sizeof(*nlh) + sizeof(*err);
	const char *m;

	(void)nla;
	req->status = err->error < 0 ? err->error : -EPROTO;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(err->msg.nlmsg_len) - sizeof(*nlh);
	if (nlh->nlmsg_len <= off)
		return NL_STOP;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
		      nlh->nlmsg_len - off, NULL))
		return NL_STOP;
	if (tb[NLMSGERR_ATTR_MSG] && (m = lm_nla_str(tb[NLMSGERR_ATTR_MSG])))
		lm_err("kernel: %s", m);
	return NL_STOP;
}

static int lm_nl_errno(int err)
{
	if (err == EPERM || err == EACCES) {
		lm_err("netlink: %s: lockmeter statistics and control need root (CAP_NET_ADMIN, CAP_SYS_ADMIN)",
		       strerror(err));
		return LM_EXIT_PERM;
	}
	lm_err("netlink: %s", strerror(err));
	return LM_EXIT_ERR;
}

/* send @msg (consumed), run the callbacks until the ACK or the dump's end */
static int lm_nl_request(struct lm_nl *nl, struct nl_msg *msg,
			 nl_recvmsg_msg_cb_t valid, struct lm_nl_req *req)
{
	struct nl_cb *cb;
	int ret;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		lm_err("out of memory");
		ret = LM_EXIT_ERR;
		goto out_free_msg;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid, req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, lm_nl_finish_cb, req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, lm_nl_ack_cb, req);
	nl_cb_err(cb, NL_CB_CUSTOM, lm_nl_err_cb, req);
	req->status = 1;
	ret = nl_send_auto_complete(nl->sk, msg);
	if (ret < 0) {
		lm_err("netlink: cannot send the request: %s", nl_geterror(ret));
		ret = LM_EXIT_ERR;
		goto out_put_cb;
	}
	while (req->status > 0) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && req->status > 0) {
			lm_err("netlink: receiving the reply: %s", nl_geterror(ret));
			ret = LM_EXIT_ERR;
			goto out_put_cb;
		}
	}
	if (req->status < 0)
		ret = req->own_errno ? req->status : lm_nl_errno(-req->status);
	else
		ret = req->parse;

out_put_cb:
	nl_cb_put(cb);
out_free_msg:
	nlmsg_free(msg);
	return ret;
}

static struct nl_msg *lm_nl_msg(struct lm_nl *nl, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, LOCKMETER_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int lm_nl_open(struct lm_nl *nl)
{
	int one = 1, ret;

	if (nl->sk)
		return 0;
	nl->why[0] = '\0';
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		snprintf(nl->why, sizeof(nl->why), "no generic netlink socket: %s",
			 nl_geterror(ret));
		goto out_free_sock;
	}
	/* best effort: without it errors just come without their message */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	nl_socket_enable_msg_peek(nl->sk);
	ret = genl_ctrl_resolve(nl->sk, LOCKMETER_FAMILY_NAME);
	if (ret < 0) {
		snprintf(nl->why, sizeof(nl->why), "no '%s' generic netlink family: %s",
			 LOCKMETER_FAMILY_NAME, nl_geterror(ret));
		goto out_free_sock;
	}
	nl->family = ret;
	return 0;

out_free_sock:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return LM_EXIT_NOFAMILY;
}

void lm_nl_close(struct lm_nl *nl)
{
	if (!nl->sk)
		return;
	nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/*
 * The HIST_BOUND attributes of a status reply, in order, into @h (none:
 * a kernel without histograms): 0, or 1 when they are malformed (said so)
 */
static int lm_nl_bounds(struct lm_nl_req *req, struct nl_msg *msg, struct lm_header *h)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *a;
	uint32_t n = 0;
	const char *why;
	int rem;

	h->nr_buckets = 0;
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != LOCKMETER_A_HIST_BOUND)
			continue;
		if (n == LM_HIST_MAX) {
			lm_nl_bad(req, "more histogram buckets than this lockstat takes (32)",
				  LOCKMETER_A_HIST_BOUND);
			return 1;
		}
		if (lm_nla_get_uint(a, &h->bound[n++])) {
			lm_nl_bad(req, "histogram bound is neither 4 nor 8 bytes",
				  LOCKMETER_A_HIST_BOUND);
			return 1;
		}
	}
	why = n ? lm_bounds_invalid(h->bound, n) : NULL;
	if (why) {
		lm_nl_bad(req, why, LOCKMETER_A_HIST_BOUND);
		return 1;
	}
	h->nr_buckets = n;
	return 0;
}

/*
 * The WATCH nests of a status reply, the thresholds of the types that
 * have one, into @h: 0, or 1 when one is malformed (said so).  A type
 * this reader does not know is left out.
 */
static int lm_nl_watches(struct lm_nl_req *req, struct nl_msg *msg, struct lm_header *h)
{
	static const int attr[LM_NR_WATCH] = {
		[LM_WATCH_HOLD] = LOCKMETER_WA_HOLD_NS,
		[LM_WATCH_WAIT] = LOCKMETER_WA_WAIT_NS,
	};
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[LOCKMETER_WA_MAX + 1];
	uint64_t ns[LM_NR_WATCH];
	struct nlattr *a;
	uint32_t type;
	int rem, k;

	memset(h->watch_ns, 0, sizeof(h->watch_ns));
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != LOCKMETER_A_WATCH)
			continue;
		h->has_watch = true;
		if (lm_nl_nest(req, "thresholds", a, tb, LOCKMETER_WA_MAX, lm_nl_watch_policy,
			       lm_nl_watch_mandatory, ARRAY_SIZE(lm_nl_watch_mandatory)))
			return 1;
		for (k = 0; k < LM_NR_WATCH; k++) {
			ns[k] = 0;
			if (tb[attr[k]] && lm_nla_get_uint(tb[attr[k]], &ns[k])) {
				lm_nl_bad(req, "threshold is neither 4 nor 8 bytes", attr[k]);
				return 1;
			}
		}
		type = nla_get_u32(tb[LOCKMETER_WA_TYPE]);
		if (type <= LM_TYPE_NONE || type >= LM_NR_TYPES)
			continue;
		for (k = 0; k < LM_NR_WATCH; k++)
			h->watch_ns[k][type] = ns[k];
	}
	return 0;
}

static int lm_nl_status_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[LOCKMETER_A_MAX + 1];
	struct lm_nl_req *req = arg;
	struct lm_header *h = req->arg;
	uint64_t v;
	int i, a;

	req->nr++;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, LOCKMETER_A_MAX, lm_nl_policy) < 0) {
		lm_nl_bad(req, "status does not parse", 0);
		return NL_SKIP;
	}
	a = lm_nl_missing(tb, lm_nl_status_mandatory, ARRAY_SIZE(lm_nl_status_mandatory));
	if (a) {
		lm_nl_bad(req, "status lacks a mandatory attribute", a);
		return NL_SKIP;
	}
	if (nla_get_u32(tb[LOCKMETER_A_VERSION]) != LOCKMETER_FAMILY_VERSION) {
		lm_err("netlink: lockmeter format version %u, this lockstat reads version %d",
		       nla_get_u32(tb[LOCKMETER_A_VERSION]), LOCKMETER_FAMILY_VERSION);
		req->parse = LM_EXIT_ERR;
		return NL_SKIP;
	}
	if (lm_nla_get_uint(tb[LOCKMETER_A_METERED_NS], &h->metered_ns)) {
		lm_nl_bad(req, "metered time is neither 4 nor 8 bytes", LOCKMETER_A_METERED_NS);
		return NL_SKIP;
	}
	lm_set(h, LM_H_METERED_NS);
	h->cpus = nla_get_u32(tb[LOCKMETER_A_CPUS]);
	lm_set(h, LM_H_CPUS);
	h->on = !!nla_get_u32(tb[LOCKMETER_A_STATE]);
	lm_set(h, LM_H_STATE);
	if (tb[LOCKMETER_A_KERNEL] && lm_nla_str(tb[LOCKMETER_A_KERNEL]))
		lm_hdr_put_str(h, LM_H_KERNEL, lm_nla_str(tb[LOCKMETER_A_KERNEL]));
	if (tb[LOCKMETER_A_RESETS]) {
		if (lm_nla_get_uint(tb[LOCKMETER_A_RESETS], &h->resets)) {
			lm_nl_bad(req, "reset count is neither 4 nor 8 bytes", LOCKMETER_A_RESETS);
			return NL_SKIP;
		}
		lm_set(h, LM_H_RESETS);
	}
	/*
	 * The attributes kept their names when the per-CPU tables gave way to
	 * one key directory for all CPUs: they carry keys_used and keys, and
	 * the header gets both spellings, as /proc/lockmeter prints them.
	 */
	if (tb[LOCKMETER_A_SLOTS_USED]) {
		h->keys_used = nla_get_u32(tb[LOCKMETER_A_SLOTS_USED]);
		h->slots_used = h->keys_used;
		lm_set(h, LM_H_KEYS_USED);
		lm_set(h, LM_H_SLOTS_USED);
	}
	if (tb[LOCKMETER_A_SLOTS_PER_CPU]) {
		h->keys = nla_get_u32(tb[LOCKMETER_A_SLOTS_PER_CPU]);
		h->slots_per_cpu = h->keys;
		lm_set(h, LM_H_KEYS);
		lm_set(h, LM_H_SLOTS_PER_CPU);
	}
	for (i = 0; i < (int)(sizeof(lm_nl_mem) / sizeof(lm_nl_mem[0])); i++) {
		a = lm_nl_mem[i].attr;
		if (!tb[a])
			continue;
		if (lm_nla_get_uint(tb[a], &v)) {
			lm_nl_bad(req, "memory figure or count is neither 4 nor 8 bytes", a);
			return NL_SKIP;
		}
		*(uint64_t *)((char *)h + lm_nl_mem[i].off) = v;
		lm_set(h, lm_nl_mem[i].bit);
	}
	if (lm_nl_bounds(req, msg, h))
		return NL_SKIP;
	/* a kernel that counts alerts sends its thresholds, when there are any */
	h->has_watch = tb[LOCKMETER_A_ALERTS] != NULL;
	if (lm_nl_watches(req, msg, h))
		return NL_SKIP;
	for (i = 0; i < LM_NR_LOSSES; i++) {
		a = lm_nl_loss_attr[i];
		if (!tb[a])
			continue;
		if (lm_nla_get_uint(tb[a], &v)) {
			lm_nl_bad(req, "loss counter is neither 4 nor 8 bytes", a);
			return NL_SKIP;
		}
		h->loss[i] = v;
		lm_set(h, LM_H_LOSS + i);
	}
	return NL_SKIP;
}

int lm_nl_status(struct lm_nl *nl, struct lm_header *h)
{
	struct lm_nl_req req = { .arg = h };
	struct nl_msg *msg;
	int ret;

	msg = lm_nl_msg(nl, LOCKMETER_CMD_STATUS_GET, 0);
	if (!msg) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	ret = lm_nl_request(nl, msg, lm_nl_status_cb, &req);
	if (!ret && !req.nr) {
		lm_err("netlink: the kernel sent no status");
		ret = LM_EXIT_ERR;
	}
	return ret;
}

/* a name fit for the text formats: no blanks, nothing unprintable */
static const char *lm_nl_name(struct lm_snapshot *s, const char *name)
{
	char buf[1024];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(buf); i++)
		buf[i] = (name[i] > ' ' && name[i] <= '~') ? name[i] : '?';
	if (!i)
		buf[i++] = '?';
	buf[i] = '\0';
	return lm_snap_strdup(s, buf);
}

/* a call chain of an evidence nest: its attributes, and where they go */
struct lm_nl_chain {
	int frame_attr;
	int addr_attr;
	unsigned int addr_bit;	/* enum lm_ev_bit or lm_held_bit */
	const char **frame;
	uint64_t *addr;
	uint32_t *nr;
	uint32_t max;
	uint32_t nr_addrs;
};

/* one frame or address of @c: NULL, or why it is malformed */
static const char *lm_nl_chain_attr(struct lm_snapshot *s, struct lm_nl_chain *c,
				    struct nlattr *a, bool *nomem)
{
	if (nla_type(a) == c->frame_attr) {
		if (*c->nr == c->max)
			return "more frames than a chain has";
		if (!*lm_nla_str(a))
			return "an empty frame";
		c->frame[*c->nr] = lm_snap_strdup(s, lm_nla_str(a));
		*nomem = !c->frame[(*c->nr)++];
		return NULL;
	}
	if (c->nr_addrs == c->max)
		return "more frame addresses than a chain has";
	if (lm_nla_get_uint(a, &c->addr[c->nr_addrs++]))
		return "frame address is neither 4 nor 8 bytes";
	return NULL;
}

/*
 * The frames, and their addresses, of an evidence nest, in order: those
 * of the chain at the release or acquire, and those of where the holder
 * blocked.  0; 1 when they are malformed (said so); -1 without memory.
 */
static int lm_nl_frames(struct lm_nl_req *req, struct nlattr *nest, struct lm_evidence *ev)
{
	struct lm_nl_chain chains[] = {
		{ LOCKMETER_E_FRAME, LOCKMETER_E_FRAME_ADDR, LM_EB_ADDRS, ev->frame, ev->addr,
		  &ev->nr_frames, LM_EV_FRAMES, 0 },
		{ LOCKMETER_E_BLOCKED_FRAME, LOCKMETER_E_BLOCKED_FRAME_ADDR, LM_EB_BLOCKED_ADDRS,
		  ev->blocked_frame, ev->blocked_addr, &ev->nr_blocked, LM_EV_FRAMES, 0 },
	};
	struct lm_snapshot *s = req->arg;
	const char *why = NULL;
	struct nlattr *a;
	bool nomem = false;
	int rem, bad = 0;
	unsigned int i;

	nla_for_each_nested(a, nest, rem) {
		for (i = 0; i < ARRAY_SIZE(chains); i++)
			if (nla_type(a) == chains[i].frame_attr || nla_type(a) == chains[i].addr_attr)
				break;
		if (i == ARRAY_SIZE(chains))
			continue;
		bad = nla_type(a);
		why = lm_nl_chain_attr(s, &chains[i], a, &nomem);
		if (nomem)
			return -1;
		if (why)
			break;
	}
	for (i = 0; !why && i < ARRAY_SIZE(chains); i++) {
		if (chains[i].nr_addrs && chains[i].nr_addrs != *chains[i].nr) {
			why = "frame addresses are not one per frame";
			bad = chains[i].addr_attr;
		}
		if (chains[i].nr_addrs)
			ev->present |= 1U << chains[i].addr_bit;
	}
	if (!why && ev->nr_blocked && !lm_ev_has(ev, LM_EB_BLOCKED)) {
		why = "frames of where the holder blocked, without its blocked time";
		bad = LOCKMETER_E_BLOCKED_FRAME;
	}
	if (why) {
		lm_nl_bad(req, why, bad);
		return 1;
	}
	return 0;
}

/*
 * The evidence nest @nest of a row into *out, in the pool of the dump's
 * snapshot: 0; 1 when it is malformed (said so); -1 without memory.
 */
static int lm_nl_evidence(struct lm_nl_req *req, int kind, struct nlattr *nest,
			  const struct lm_evidence **out)
{
	struct nlattr *tb[LOCKMETER_E_MAX + 1];
	struct lm_snapshot *s = req->arg;
	struct lm_evidence *ev;
	int ret;

	if (lm_nl_nest(req, "evidence", nest, tb, LOCKMETER_E_MAX, lm_nl_ev_policy,
		       lm_nl_ev_mandatory, ARRAY_SIZE(lm_nl_ev_mandatory)))
		return 1;
	if (tb[LOCKMETER_E_OWNER_COMM] && !tb[LOCKMETER_E_OWNER_PID]) {
		lm_nl_bad(req, "evidence has an owner's comm without its pid",
			  LOCKMETER_E_OWNER_COMM);
		return 1;
	}
	if (nla_get_u32(tb[LOCKMETER_E_CONTEXT]) >= LM_NR_CONTEXTS) {
		lm_nl_bad(req, "evidence of an unknown context", LOCKMETER_E_CONTEXT);
		return 1;
	}
	ev = lm_snap_add_ev(s);
	if (!ev)
		return -1;
	if (lm_nla_get_uint(tb[LOCKMETER_E_TIME], &ev->time_ns)) {
		lm_nl_bad(req, "evidence time is neither 4 nor 8 bytes", LOCKMETER_E_TIME);
		return 1;
	}
	ev->pid = nla_get_u32(tb[LOCKMETER_E_PID]);
	ev->context = nla_get_u32(tb[LOCKMETER_E_CONTEXT]);
	ev->cpu = nla_get_u32(tb[LOCKMETER_E_CPU]);
	ev->comm = lm_snap_strdup(s, lm_nla_str(tb[LOCKMETER_E_COMM]));
	if (!ev->comm)
		return -1;
	if (tb[LOCKMETER_E_OWNER_PID]) {
		ev->owner_pid = nla_get_u32(tb[LOCKMETER_E_OWNER_PID]);
		ev->present |= 1U << LM_EB_OWNER_PID;
	}
	if (tb[LOCKMETER_E_OWNER_COMM]) {
		ev->owner_comm = lm_snap_strdup(s, lm_nla_str(tb[LOCKMETER_E_OWNER_COMM]));
		if (!ev->owner_comm)
			return -1;
		ev->present |= 1U << LM_EB_OWNER_COMM;
	}
	if (tb[LOCKMETER_E_BLOCKED_NS]) {
		if (kind != LM_EV_HOLD) {
			lm_nl_bad(req, "wait evidence with a blocked time (hold evidence only)",
				  LOCKMETER_E_BLOCKED_NS);
			return 1;
		}
		if (lm_nla_get_uint(tb[LOCKMETER_E_BLOCKED_NS], &ev->blocked_ns)) {
			lm_nl_bad(req, "blocked time is neither 4 nor 8 bytes",
				  LOCKMETER_E_BLOCKED_NS);
			return 1;
		}
		ev->present |= 1U << LM_EB_BLOCKED;
	}
	ret = lm_nl_frames(req, nest, ev);
	if (!ret)
		*out = ev;
	return ret;
}

/*
 * A histogram nest of a row: one COUNT per bucket of the status's bounds,
 * in order: 0, or 1 when it is malformed (said so)
 */
static int lm_nl_hist(struct lm_nl_req *req, struct nlattr *nest, struct lm_row *row, int kind)
{
	const struct lm_snapshot *s = req->arg;
	struct nlattr *tb[LOCKMETER_HI_MAX + 1];
	uint32_t n = 0, want = s->h.nr_buckets;
	struct nlattr *a;
	int rem;

	if (lm_nl_nest(req, "histogram", nest, tb, LOCKMETER_HI_MAX, lm_nl_hist_policy, NULL, 0))
		return 1;
	if (!want) {
		lm_nl_bad(req, "a histogram, but the status had no histogram bounds",
			  nla_type(nest));
		return 1;
	}
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != LOCKMETER_HI_COUNT)
			continue;
		if (n == want) {
			lm_nl_bad(req, "more histogram counts than buckets", LOCKMETER_HI_COUNT);
			return 1;
		}
		if (lm_nla_get_uint(a, &row->hc[kind][n++])) {
			lm_nl_bad(req, "histogram count is neither 4 nor 8 bytes", LOCKMETER_HI_COUNT);
			return 1;
		}
	}
	if (n != want) {
		lm_nl_bad(req, "fewer histogram counts than buckets", nla_type(nest));
		return 1;
	}
	row->hist |= 1U << kind;
	return 0;
}

static int lm_nl_row(struct lm_nl_req *req, struct nlattr *nest)
{
	struct nlattr *tb[LOCKMETER_R_MAX + 1];
	struct lm_snapshot *s = req->arg;
	struct lm_row row = { 0 }, *r;
	const char *lock, *site;
	int i, a;

	if (lm_nl_nest(req, "row", nest, tb, LOCKMETER_R_MAX, lm_nl_row_policy,
		       lm_nl_row_mandatory, ARRAY_SIZE(lm_nl_row_mandatory)))
		return 0;
	row.type = nla_get_u32(tb[LOCKMETER_R_TYPE]);
	row.class = nla_get_u32(tb[LOCKMETER_R_CLASS]);
	if (!lm_nl_type_class_ok(row.type, row.class)) {
		lm_nl_bad(req, "unknown lock type or class", LOCKMETER_R_TYPE);
		return 0;
	}
	row.v[LM_F_INSTANCES] = 1;
	for (i = 0; i < LM_NR_FIELDS; i++) {
		a = lm_nl_field_attr[i];
		if (tb[a] && lm_nla_get_uint(tb[a], &row.v[i])) {
			lm_nl_bad(req, "counter is neither 4 nor 8 bytes", a);
			return 0;
		}
	}
	if (lm_row_impossible(&row)) {
		lm_nl_bad(req, lm_row_impossible(&row), LOCKMETER_A_ROW);
		return 0;
	}
	if (tb[LOCKMETER_R_ALERTS]) {
		if (lm_nla_get_uint(tb[LOCKMETER_R_ALERTS], &row.alerts)) {
			lm_nl_bad(req, "alert count is neither 4 nor 8 bytes", LOCKMETER_R_ALERTS);
			return 0;
		}
		row.has_alerts = true;
	}
	if (tb[LOCKMETER_R_ALERTS_DROPPED] &&
	    lm_nla_get_uint(tb[LOCKMETER_R_ALERTS_DROPPED], &row.alerts_dropped)) {
		lm_nl_bad(req, "dropped alert count is neither 4 nor 8 bytes",
			  LOCKMETER_R_ALERTS_DROPPED);
		return 0;
	}
	for (i = 0; i < LM_NR_HIST; i++)
		if (tb[lm_nl_hist_attr[i]] && lm_nl_hist(req, tb[lm_nl_hist_attr[i]], &row, i))
			return 0;
	if (lm_row_hist_invalid(&row, s->h.nr_buckets)) {
		lm_nl_bad(req, lm_row_hist_invalid(&row, s->h.nr_buckets), LOCKMETER_A_ROW);
		return 0;
	}
	lock = lm_nla_str(tb[LOCKMETER_R_LOCK]);
	site = lm_nla_str(tb[LOCKMETER_R_SITE]);
	if (!lock || !site) {
		lm_nl_bad(req, "name is not a string", LOCKMETER_R_LOCK);
		return 0;
	}
	for (i = 0; i < LM_NR_EV; i++) {
		a = tb[lm_nl_ev_attr[i]] ? lm_nl_evidence(req, i, tb[lm_nl_ev_attr[i]], &row.ev[i]) : 0;
		if (a)
			return a < 0 ? -1 : 0;
	}
	r = lm_snap_add_row(s);
	if (!r)
		return -1;
	*r = row;
	r->lock = lm_nl_name(s, lock);
	r->site = lm_nl_name(s, site);
	if (!r->lock || !r->site)
		return -1;
	return 0;
}

static int lm_nl_truncated(struct lm_nl_req *req, const struct nlattr *a)
{
	struct lm_snapshot *s = req->arg;
	uint64_t v;

	if (lm_nla_get_uint(a, &v)) {
		lm_nl_bad(req, "truncated count is neither 4 nor 8 bytes", LOCKMETER_A_TRUNCATED);
		return -1;
	}
	s->h.loss[LM_L_TRUNCATED] = v;
	lm_set(&s->h, LM_H_LOSS + LM_L_TRUNCATED);
	return 0;
}

static int lm_nl_dump_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[LOCKMETER_A_MAX + 1];
	struct lm_nl_req *req = arg;

	req->nr++;
	if (req->parse)
		return NL_SKIP;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, LOCKMETER_A_MAX, lm_nl_policy) < 0) {
		lm_nl_bad(req, "dump message does not parse", 0);
		return NL_SKIP;
	}
	/* a message with no row says only that the kernel's copy left all out */
	if (!tb[LOCKMETER_A_ROW] && !tb[LOCKMETER_A_TRUNCATED]) {
		lm_nl_bad(req, "dump message without a row", LOCKMETER_A_ROW);
		return NL_SKIP;
	}
	/* the first message says how many rows the kernel's copy left out */
	if (tb[LOCKMETER_A_TRUNCATED] && lm_nl_truncated(req, tb[LOCKMETER_A_TRUNCATED]))
		return NL_SKIP;
	if (tb[LOCKMETER_A_ROW] && lm_nl_row(req, tb[LOCKMETER_A_ROW])) {
		lm_err("out of memory");
		req->parse = LM_EXIT_ERR;
	}
	return NL_SKIP;
}

/* all rows, merged over CPUs, or (@cpu >= 0) that CPU's table */
int lm_nl_dump(struct lm_nl *nl, int cpu, struct lm_snapshot *s)
{
	struct lm_nl_req req = { .arg = s };
	struct nl_msg *msg;
	int ret;

	msg = lm_nl_msg(nl, LOCKMETER_CMD_STATS_GET, NLM_F_DUMP);
	if (!msg) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	if (cpu >= 0 && nla_put_u32(msg, LOCKMETER_A_CPU, cpu) < 0) {
		lm_err("out of memory");
		nlmsg_free(msg);
		return LM_EXIT_ERR;
	}
	ret = lm_nl_request(nl, msg, lm_nl_dump_cb, &req);
	if (!ret) {
		s->h.rows = s->nr;
		lm_set(&s->h, LM_H_ROWS);
	}
	return ret;
}

/*
 * a waiter nest of a held lock or a held alert into *w, its names in
 * @pool: 0; 1 when malformed (said so); -1 without memory
 */
static int lm_nl_waiter(struct lm_nl_req *req, struct lm_snapshot *pool, struct nlattr *nest,
			struct lm_waiter *w)
{
	struct nlattr *tb[LOCKMETER_W_MAX + 1];

	if (lm_nl_nest(req, "a waiter", nest, tb, LOCKMETER_W_MAX, lm_nl_waiter_policy,
		       lm_nl_waiter_mandatory, ARRAY_SIZE(lm_nl_waiter_mandatory)))
		return 1;
	w->type = nla_get_u32(tb[LOCKMETER_W_TYPE]);
	if (w->type <= LM_TYPE_NONE || w->type >= LM_NR_TYPES) {
		lm_nl_bad(req, "a waiter of an unknown lock type", LOCKMETER_W_TYPE);
		return 1;
	}
	if (lm_nla_get_uint(tb[LOCKMETER_W_WAITED_NS], &w->waited_ns)) {
		lm_nl_bad(req, "waited time is neither 4 nor 8 bytes", LOCKMETER_W_WAITED_NS);
		return 1;
	}
	w->pid = nla_get_u32(tb[LOCKMETER_W_PID]);
	w->comm = lm_snap_strdup(pool, lm_nla_str(tb[LOCKMETER_W_COMM]));
	if (tb[LOCKMETER_W_SITE])
		w->site = lm_snap_strdup(pool, lm_nla_str(tb[LOCKMETER_W_SITE]));
	return !w->comm || (tb[LOCKMETER_W_SITE] && !w->site) ? -1 : 0;
}

/* the frames, addresses and waiters of a held nest: 0; 1 malformed; -1 no memory */
static int lm_nl_held_lists(struct lm_nl_req *req, struct nlattr *nest, struct lm_held *h)
{
	struct lm_nl_chain c = { LOCKMETER_H_FRAME, LOCKMETER_H_FRAME_ADDR, LM_HB_ADDRS, h->frame,
				 h->addr, &h->nr_frames, LM_HELD_FRAMES, 0 };
	struct lm_held_list *l = req->arg;
	const char *why = NULL;
	struct nlattr *a;
	bool nomem = false;
	size_t n = 0;
	int rem, ret;

	nla_for_each_nested(a, nest, rem)
		n += nla_type(a) == LOCKMETER_H_WAITER;
	if (n) {
		h->waiters = lm_held_waiters(l, n);
		if (!h->waiters)
			return -1;
	}
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == LOCKMETER_H_WAITER) {
			ret = lm_nl_waiter(req, &l->pool, a, &h->waiters[h->nr_waiters++]);
			if (ret)
				return ret;
			continue;
		}
		if (nla_type(a) != LOCKMETER_H_FRAME && nla_type(a) != LOCKMETER_H_FRAME_ADDR)
			continue;
		why = lm_nl_chain_attr(&l->pool, &c, a, &nomem);
		if (nomem)
			return -1;
		if (why) {
			lm_nl_bad(req, why, nla_type(a));
			return 1;
		}
	}
	if (c.nr_addrs && c.nr_addrs != h->nr_frames) {
		lm_nl_bad(req, "frame addresses are not one per frame", LOCKMETER_H_FRAME_ADDR);
		return 1;
	}
	if (c.nr_addrs)
		h->present |= 1U << LM_HB_ADDRS;
	return 0;
}

/* a held nest into a new entry of the list: 0; 1 malformed (said so); -1 no memory */
static int lm_nl_held_one(struct lm_nl_req *req, struct nlattr *nest)
{
	struct nlattr *tb[LOCKMETER_H_MAX + 1];
	struct lm_held_list *l = req->arg;
	struct lm_held h = { 0 }, *dst;
	int ret;

	if (lm_nl_nest(req, "a held lock", nest, tb, LOCKMETER_H_MAX, lm_nl_held_policy,
		       lm_nl_held_mandatory, ARRAY_SIZE(lm_nl_held_mandatory)))
		return 1;
	h.type = nla_get_u32(tb[LOCKMETER_H_TYPE]);
	h.class = nla_get_u32(tb[LOCKMETER_H_CLASS]);
	if (!lm_nl_type_class_ok(h.type, h.class)) {
		lm_nl_bad(req, "a held lock of an unknown type or class", LOCKMETER_H_TYPE);
		return 1;
	}
	if (lm_nla_get_uint(tb[LOCKMETER_H_HELD_NS], &h.held_ns)) {
		lm_nl_bad(req, "held time is neither 4 nor 8 bytes", LOCKMETER_H_HELD_NS);
		return 1;
	}
	h.pid = nla_get_u32(tb[LOCKMETER_H_PID]);
	if (tb[LOCKMETER_H_CPU]) {
		h.cpu = nla_get_u32(tb[LOCKMETER_H_CPU]);
		h.present |= 1U << LM_HB_CPU;
	}
	ret = lm_nl_held_lists(req, nest, &h);
	if (ret)
		return ret;
	h.lock = lm_snap_strdup(&l->pool, lm_nla_str(tb[LOCKMETER_H_LOCK]));
	h.site = lm_snap_strdup(&l->pool, lm_nla_str(tb[LOCKMETER_H_SITE]));
	h.comm = lm_snap_strdup(&l->pool, lm_nla_str(tb[LOCKMETER_H_COMM]));
	dst = h.lock && h.site && h.comm ? lm_held_add(l) : NULL;
	if (!dst)
		return -1;
	*dst = h;
	return 0;
}

static int lm_nl_held_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[LOCKMETER_A_MAX + 1];
	struct lm_nl_req *req = arg;
	struct lm_held_list *l = req->arg;

	req->nr++;
	if (req->parse)
		return NL_SKIP;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, LOCKMETER_A_MAX, lm_nl_policy) < 0) {
		lm_nl_bad(req, "held dump message does not parse", 0);
		return NL_SKIP;
	}
	if (!tb[LOCKMETER_A_HELD] && !tb[LOCKMETER_A_TRUNCATED]) {
		lm_nl_bad(req, "held dump message without a held lock", LOCKMETER_A_HELD);
		return NL_SKIP;
	}
	if (tb[LOCKMETER_A_TRUNCATED]) {
		if (lm_nla_get_uint(tb[LOCKMETER_A_TRUNCATED], &l->truncated)) {
			lm_nl_bad(req, "truncated count is neither 4 nor 8 bytes",
				  LOCKMETER_A_TRUNCATED);
			return NL_SKIP;
		}
		l->has_truncated = true;
	}
	if (tb[LOCKMETER_A_HELD] && lm_nl_held_one(req, tb[LOCKMETER_A_HELD]) < 0) {
		lm_err("out of memory");
		req->parse = LM_EXIT_ERR;
	}
	return NL_SKIP;
}

/* NLA_UINT as the kernel's nla_put_uint() sends it: 4 bytes when the value fits */
static int lm_nla_put_uint(struct nl_msg *msg, int attr, uint64_t v)
{
	return v == (uint32_t)v ? nla_put_u32(msg, attr, (uint32_t)v) : nla_put_u64(msg, attr, v);
}

/* the locks held at least @over_ns now, sorted, into @l */
int lm_nl_held(struct lm_nl *nl, uint64_t over_ns, struct lm_held_list *l)
{
	struct lm_nl_req req = { .arg = l };
	struct nl_msg *msg;
	int ret;

	msg = lm_nl_msg(nl, LOCKMETER_CMD_HELD_GET, NLM_F_DUMP);
	if (!msg) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	if (lm_nla_put_uint(msg, LOCKMETER_A_OVER, over_ns) < 0) {
		lm_err("out of memory");
		nlmsg_free(msg);
		return LM_EXIT_ERR;
	}
	ret = lm_nl_request(nl, msg, lm_nl_held_cb, &req);
	if (!ret)
		lm_held_sort(l);
	return ret;
}

int lm_nl_control(struct lm_nl *nl, enum lm_ctl op)
{
	static const uint32_t ops[LM_NR_CTL] = {
		[LM_CTL_ON] = LOCKMETER_CONTROL_ON,
		[LM_CTL_OFF] = LOCKMETER_CONTROL_OFF,
		[LM_CTL_RESET] = LOCKMETER_CONTROL_RESET,
		[LM_CTL_RELEASE] = LOCKMETER_CONTROL_RELEASE,
	};
	struct lm_nl_req req = { .own_errno = true };
	struct nl_msg *msg;
	int err, ret;

	msg = lm_nl_msg(nl, LOCKMETER_CMD_CONTROL, 0);
	if (!msg) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	if (nla_put_u32(msg, LOCKMETER_A_CONTROL, ops[op]) < 0) {
		lm_err("out of memory");
		nlmsg_free(msg);
		return LM_EXIT_ERR;
	}
	err = lm_nl_request(nl, msg, lm_nl_ignore_cb, &req);
	if (err >= 0)
		return err;
	ret = lm_ctl_refused(op, -err, "netlink");
	return ret ? ret : lm_nl_errno(-err);
}

/*
 * The thresholds of lock type @type (0: of every type): *@hold_ns and
 * *@wait_ns, 0 clearing one; NULL leaves that one as it is.
 */
int lm_nl_watch_set(struct lm_nl *nl, uint32_t type, const uint64_t *hold_ns,
		    const uint64_t *wait_ns)
{
	struct lm_nl_req req = { 0 };
	struct nl_msg *msg;

	msg = lm_nl_msg(nl, LOCKMETER_CMD_WATCH_SET, 0);
	if (!msg)
		goto out_nomem;
	if (type && nla_put_u32(msg, LOCKMETER_A_WATCH_TYPE, type) < 0)
		goto out_free_msg;
	if (hold_ns && lm_nla_put_uint(msg, LOCKMETER_A_WATCH_HOLD_NS, *hold_ns) < 0)
		goto out_free_msg;
	if (wait_ns && lm_nla_put_uint(msg, LOCKMETER_A_WATCH_WAIT_NS, *wait_ns) < 0)
		goto out_free_msg;
	return lm_nl_request(nl, msg, lm_nl_ignore_cb, &req);

out_free_msg:
	nlmsg_free(msg);
out_nomem:
	lm_err("out of memory");
	return LM_EXIT_ERR;
}

/*
 * Join the alerts group on @nl, a socket of its own: no sequence checks
 * (events are not replies), non-blocking (lm_nl_alerts() drains what has
 * come), a receive buffer of @rcvbuf bytes if the kernel lets us.  0;
 * LM_EXIT_PERM without the capabilities (not said: the caller knows
 * what for); LM_EXIT_ERR otherwise (said).
 */
int lm_nl_subscribe(struct lm_nl *nl, int rcvbuf)
{
	int fd = nl_socket_get_fd(nl->sk), grp, ret;

	grp = genl_ctrl_resolve_grp(nl->sk, LOCKMETER_FAMILY_NAME, LOCKMETER_MCGRP_ALERTS);
	if (grp < 0) {
		lm_err("netlink: no '%s' multicast group in the '%s' family: %s (a kernel without lockstat watch?)",
		       LOCKMETER_MCGRP_ALERTS, LOCKMETER_FAMILY_NAME, nl_geterror(grp));
		return LM_EXIT_ERR;
	}
	ret = nl_socket_add_membership(nl->sk, grp);
	if (ret == -NLE_PERM || ret == -NLE_NOACCESS)
		return LM_EXIT_PERM;
	if (ret < 0) {
		lm_err("netlink: cannot join the '%s' group: %s", LOCKMETER_MCGRP_ALERTS,
		       nl_geterror(ret));
		return LM_EXIT_ERR;
	}
	nl_socket_disable_seq_check(nl->sk);
	ret = nl_socket_set_nonblocking(nl->sk);
	if (ret < 0) {
		lm_err("netlink: %s", nl_geterror(ret));
		return LM_EXIT_ERR;
	}
	/* past rmem_max needs CAP_NET_ADMIN, which joining took already; best effort */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	return 0;
}

int lm_nl_fd(const struct lm_nl *nl)
{
	return nl_socket_get_fd(nl->sk);
}

/* the waiters of a held alert, in order: 0; 1 malformed (said so); -1 no memory */
static int lm_nl_alert_waiters(struct lm_nl_req *req, struct nlmsghdr *nlh, struct lm_alert *a)
{
	struct nlattr *at;
	size_t n = 0;
	int rem, ret;

	nla_for_each_attr(at, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem)
		n += nla_type(at) == LOCKMETER_AL_WAITER;
	if (!n)
		return 0;
	a->waiters = lm_snap_add_waiters(&a->pool, n);
	if (!a->waiters)
		return -1;
	nla_for_each_attr(at, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(at) != LOCKMETER_AL_WAITER)
			continue;
		ret = lm_nl_waiter(req, &a->pool, at, &a->waiters[a->nr_waiters++]);
		if (ret)
			return ret;
	}
	return 0;
}

/* the uint attributes of an alert, and where they go */
static int lm_nl_alert_uints(struct lm_nl_req *req, struct nlattr **tb, struct lm_alert *a)
{
	const struct {
		int attr;
		uint64_t *v;
		int bit;	/* enum lm_alert_bit; -1: mandatory */
	} u[] = {
		{ LOCKMETER_AL_NS, &a->ns, -1 },
		{ LOCKMETER_AL_THRESHOLD_NS, &a->threshold_ns, -1 },
		{ LOCKMETER_AL_SEQ, &a->seq, LM_AB_SEQ },
		{ LOCKMETER_AL_DROPPED, &a->dropped, LM_AB_DROPPED },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(u); i++) {
		if (!tb[u[i].attr])
			continue;
		if (lm_nla_get_uint(tb[u[i].attr], u[i].v)) {
			lm_nl_bad(req, "alert number is neither 4 nor 8 bytes", u[i].attr);
			return 1;
		}
		if (u[i].bit >= 0)
			a->present |= 1U << u[i].bit;
	}
	return 0;
}

/*
 * An alert message into @a (from lm_alert_init(), or lm_alert_free()
 * after the previous one): 0; 1 when it is malformed or no alert (said
 * so); -1 without memory
 */
int lm_nl_alert_parse(struct nl_msg *msg, struct lm_alert *a)
{
	struct nlattr *tb[LOCKMETER_AL_MAX + 1];
	struct lm_nl_req req = { .arg = &a->pool };
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gh = nlmsg_data(nlh);
	int a_miss, ret;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN || gh->cmd != LOCKMETER_CMD_ALERT) {
		lm_nl_bad(&req, "a message of the alerts group that is no alert", 0);
		return 1;
	}
	if (genlmsg_parse(nlh, 0, tb, LOCKMETER_AL_MAX, (struct nla_policy *)lm_nl_alert_policy) < 0) {
		lm_nl_bad(&req, "alert does not parse", 0);
		return 1;
	}
	a_miss = lm_nl_missing(tb, lm_nl_alert_mandatory, ARRAY_SIZE(lm_nl_alert_mandatory));
	if (a_miss) {
		lm_nl_bad(&req, "alert lacks a mandatory attribute", a_miss);
		return 1;
	}
	a->kind = nla_get_u32(tb[LOCKMETER_AL_KIND]);
	a->type = nla_get_u32(tb[LOCKMETER_AL_TYPE]);
	a->class = nla_get_u32(tb[LOCKMETER_AL_CLASS]);
	if (a->kind <= LM_ALERT_NONE || a->kind >= LM_NR_ALERT_KINDS) {
		lm_nl_bad(&req, "alert of an unknown kind", LOCKMETER_AL_KIND);
		return 1;
	}
	if (!lm_nl_type_class_ok(a->type, a->class)) {
		lm_nl_bad(&req, "alert of an unknown lock type or class", LOCKMETER_AL_TYPE);
		return 1;
	}
	if (lm_nl_alert_uints(&req, tb, a))
		return 1;
	if (tb[LOCKMETER_AL_EVIDENCE]) {
		ret = lm_nl_evidence(&req, a->kind == LM_ALERT_WAIT ? LM_EV_WAIT : LM_EV_HOLD,
				     tb[LOCKMETER_AL_EVIDENCE], &a->ev);
		if (ret)
			return ret;
		a->present |= 1U << LM_AB_EVIDENCE;
	}
	ret = lm_nl_alert_waiters(&req, nlh, a);
	if (ret)
		return ret;
	a->lock = lm_nl_name(&a->pool, lm_nla_str(tb[LOCKMETER_AL_LOCK]));
	a->site = lm_nl_name(&a->pool, lm_nla_str(tb[LOCKMETER_AL_SITE]));
	return a->lock && a->site ? 0 : -1;
}

/* what the callback of lm_nl_alerts() passes on */
struct lm_nl_alerts {
	lm_nl_alert_fn fn;
	void *arg;
	int ret;		/* what stopped it */
};

static int lm_nl_alert_cb(struct nl_msg *msg, void *arg)
{
	struct lm_nl_alerts *al = arg;
	struct lm_alert a;
	int ret;

	lm_alert_init(&a);
	ret = lm_nl_alert_parse(msg, &a);
	if (ret < 0) {
		lm_err("out of memory");
		al->ret = LM_EXIT_ERR;
	} else if (!ret) {
		/* a malformed alert is said and skipped: the next may be fine */
		al->ret = al->fn(&a, al->arg);
	}
	lm_alert_free(&a);
	return al->ret ? NL_STOP : NL_OK;
}

/* events carry no sequence number of ours */
static int lm_nl_noseq_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

/*
 * The alerts that have come on @nl (lm_nl_subscribe()), each to @fn,
 * until none is left (0) or @fn returns non-zero (that).  A receive
 * that finds the socket overrun (ENOBUFS: alerts lost) is counted in
 * *@overruns and the rest still read.
 */
int lm_nl_alerts(struct lm_nl *nl, lm_nl_alert_fn fn, void *arg, uint64_t *overruns)
{
	struct lm_nl_alerts al = { .fn = fn, .arg = arg };
	struct nl_cb *cb;
	int ret;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, lm_nl_alert_cb, &al);
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, lm_nl_noseq_cb, NULL);
	for (;;) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (al.ret) {
			ret = al.ret;
			break;
		}
		if (ret == -NLE_AGAIN) {
			ret = 0;
			break;
		}
		/* libnl says ENOBUFS, the socket's overrun, as NLE_NOMEM */
		if (ret == -NLE_NOMEM) {
			(*overruns)++;
			continue;
		}
		if (ret < 0) {
			lm_err("netlink: receiving alerts: %s", nl_geterror(ret));
			ret = LM_EXIT_ERR;
			break;
		}
	}
	nl_cb_put(cb);
	return ret;
}
