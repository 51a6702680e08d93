// SPDX-License-Identifier: GPL-2.0
/*
 * The lockmeter generic netlink family, spoken over a raw netlink socket
 * (no libnl in the guest): the premise (the family resolves, status makes
 * sense), privilege, strict attribute checking with extended-ACK messages,
 * a dump larger than one message returning every row exactly once,
 * sockets closed in the middle of a dump leaking nothing, the
 * evidence behind a row's longest hold and wait: the task, the owner
 * waited for, the call chain and where a sleeping holder blocked (chains
 * that start past the lock operations and lockmeter), and the locks held
 * right now with their holders and waiters.
 */
#define _GNU_SOURCE
#include <linux/genetlink.h>
#include <linux/lockmeter.h>
#include <linux/netlink.h>
#include <sys/param.h>
#include <sys/socket.h>

#include "lockmeter_lib.h"

#define NOBODY		65534
#define NL_BUF		(64 * 1024)

/*
 * The LOCKMETER_TYPE_* of the module's spinlock_t rows, as lm_type()
 * names them.  On PREEMPT_RT a spinlock_t is an rtmutex, and the raw
 * spinlock at its start, its wait_lock, has rows of type spin under the
 * same name: a row is known by its lock and its type.
 */
static __u32 nl_spin_type(void)
{
	return lm_preempt_rt() ? LOCKMETER_TYPE_RT_SPIN : LOCKMETER_TYPE_SPIN;
}

/* A request: one genl header and up to two attributes. */
struct nl_attr_req {
	__u16 type;
	__u16 len;		/* payload bytes: 0 (none), 1, 4 */
	__u32 val;
};

struct nl_req {
	__u8 cmd;
	__u16 flags;		/* NLM_F_DUMP or 0; NLM_F_ACK is always set */
	struct nl_attr_req attr[2];
};

/* What came back: rows counted, the error and its extack message. */
struct nl_reply {
	int error;		/* 0 or -errno from NLMSG_ERROR */
	char msg[256];		/* NLMSGERR_ATTR_MSG, if any */
	unsigned int messages;	/* data messages */
	unsigned int rows;
	__u64 attempts;		/* sum of acquired + reject over the rows */
	int want_cpu;		/* rows must carry this LOCKMETER_R_CPU (>= 0) */
	unsigned int bad_cpu;	/* rows that did not */
	struct nlattr *attrs[LOCKMETER_A_MAX + 1];	/* into last[] */
	char *buf;		/* receive buffer, NL_BUF bytes */
	char last[16384];	/* a copy of the last data message */
	const char *want_lock;	/* keep the row of this lock (lm_lock_named()) ... */
	__u32 want_type;	/* ... of this LOCKMETER_TYPE_* (0: any; stats rows) ... */
	char row[16384];	/* ... here, its nest */
	bool have_row;
	bool check_chains;	/* nl_chains_check() each row: */
	unsigned int chains;	/* chains seen */
	unsigned int lm_chains;	/* chains with a frame of lockmeter's */
	char lm_chain[320];	/* the first of those: "row: frame" */
};

static void nl_chains_check(struct nl_reply *r, const struct nlattr *row_attr,
			    struct nlattr **row);

static int nl_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int one = 1;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return fd;
}

static int nl_send(int fd, __u16 family, const struct nl_req *req)
{
	char buf[256] = { };
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	char *p = (char *)(g + 1);
	unsigned int i;

	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | req->flags;
	nlh->nlmsg_seq = 1;
	g->cmd = req->cmd;
	g->version = LOCKMETER_FAMILY_VERSION;
	for (i = 0; i < 2 && req->attr[i].type; i++) {
		struct nlattr *a = (struct nlattr *)p;

		a->nla_type = req->attr[i].type;
		a->nla_len = NLA_HDRLEN + req->attr[i].len;
		memcpy(p + NLA_HDRLEN, &req->attr[i].val, req->attr[i].len);
		p += NLA_ALIGN(a->nla_len);
	}
	nlh->nlmsg_len = p - buf;
	return send(fd, buf, nlh->nlmsg_len, 0) < 0 ? -errno : 0;
}

static void nl_parse_attrs(struct nlattr *a, int len, struct nlattr **tb, int max)
{
	memset(tb, 0, sizeof(*tb) * (max + 1));
	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len),
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
		if ((a->nla_type & NLA_TYPE_MASK) <= max)
			tb[a->nla_type & NLA_TYPE_MASK] = a;
	}
}

/*
 * The message of an NLMSG_ERROR, or of an NLMSG_DONE that ends a dump with
 * an error: its TLVs follow the error code there, with no echoed request.
 */
static void nl_extack(struct nlmsghdr *nlh, struct nl_reply *r)
{
	struct nlmsgerr *e = NLMSG_DATA(nlh);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int off = sizeof(*e);

	if (nlh->nlmsg_type == NLMSG_DONE)
		off = sizeof(int);
	/* the echoed request is padded to NLMSG_ALIGNTO, as every message is */
	else if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || nlh->nlmsg_len < NLMSG_LENGTH((unsigned int)off))
		return;
	nl_parse_attrs((struct nlattr *)((char *)e + off),
		       nlh->nlmsg_len - NLMSG_HDRLEN - off, tb, NLMSGERR_ATTR_MAX);
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(r->msg, sizeof(r->msg), "%s",
			 (char *)tb[NLMSGERR_ATTR_MSG] + NLA_HDRLEN);
}

static __u64 nla_uint(const struct nlattr *a)
{
	__u64 v = 0;

	if (a->nla_len == NLA_HDRLEN + 8)
		memcpy(&v, (char *)a + NLA_HDRLEN, 8);
	else if (a->nla_len == NLA_HDRLEN + 4)
		v = *(__u32 *)((char *)a + NLA_HDRLEN);
	return v;
}

/* Count one row: its attempts, and whether it names the wanted CPU. */
static void nl_count_row(struct nl_reply *r, const struct nlattr *row_attr)
{
	struct nlattr *row[LOCKMETER_R_MAX + 1];

	nl_parse_attrs((struct nlattr *)((char *)row_attr + NLA_HDRLEN),
		       row_attr->nla_len - NLA_HDRLEN, row, LOCKMETER_R_MAX);
	r->rows++;
	if (row[LOCKMETER_R_ACQUIRED])
		r->attempts += nla_uint(row[LOCKMETER_R_ACQUIRED]);
	if (row[LOCKMETER_R_REJECT])
		r->attempts += nla_uint(row[LOCKMETER_R_REJECT]);
	if (r->want_cpu >= 0 &&
	    (!row[LOCKMETER_R_CPU] ||
	     *(__u32 *)((char *)row[LOCKMETER_R_CPU] + NLA_HDRLEN) != (__u32)r->want_cpu))
		r->bad_cpu++;
	if (r->want_lock && row[LOCKMETER_R_LOCK] && row_attr->nla_len <= sizeof(r->row) &&
	    lm_lock_named((char *)row[LOCKMETER_R_LOCK] + NLA_HDRLEN, r->want_lock) &&
	    (!r->want_type || (row[LOCKMETER_R_TYPE] &&
			       *(__u32 *)((char *)row[LOCKMETER_R_TYPE] + NLA_HDRLEN) ==
			       r->want_type))) {
		memcpy(r->row, row_attr, row_attr->nla_len);
		r->have_row = true;
	}
	if (r->check_chains)
		nl_chains_check(r, row_attr, row);
}

/* A held-get message: count it, and keep the nest of the wanted lock. */
static void nl_held_row(struct nl_reply *r, const struct nlattr *held_attr)
{
	struct nlattr *h[LOCKMETER_H_MAX + 1];

	nl_parse_attrs((struct nlattr *)((char *)held_attr + NLA_HDRLEN),
		       held_attr->nla_len - NLA_HDRLEN, h, LOCKMETER_H_MAX);
	r->rows++;
	if (r->want_lock && h[LOCKMETER_H_LOCK] && held_attr->nla_len <= sizeof(r->row) &&
	    lm_lock_named((char *)h[LOCKMETER_H_LOCK] + NLA_HDRLEN, r->want_lock)) {
		memcpy(r->row, held_attr, held_attr->nla_len);
		r->have_row = true;
	}
}

/*
 * Read replies until the ACK, the error or the end of the dump; with
 * @max_messages, stop after that many data messages (mid-dump).
 */
static int nl_recv(int fd, struct nl_reply *r, unsigned int max_messages)
{
	for (;;) {
		int len = recv(fd, r->buf, NL_BUF, 0);
		struct nlmsghdr *nlh = (struct nlmsghdr *)r->buf;

		if (len < 0)
			return -errno;
		for (; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			struct genlmsghdr *g = NLMSG_DATA(nlh);

			if (nlh->nlmsg_type == NLMSG_ERROR) {
				r->error = ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
				nl_extack(nlh, r);
				return 0;
			}
			/* a dump that failed after its start: the error, and why */
			if (nlh->nlmsg_type == NLMSG_DONE) {
				if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) &&
				    *(int *)NLMSG_DATA(nlh) < 0) {
					r->error = *(int *)NLMSG_DATA(nlh);
					nl_extack(nlh, r);
				}
				return 0;
			}
			r->messages++;
			/* the next recv() reuses buf: keep this one */
			memcpy(r->last, g + 1, MIN(sizeof(r->last),
						   nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN));
			nl_parse_attrs((struct nlattr *)r->last,
				       MIN(sizeof(r->last),
					   nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN),
				       r->attrs, LOCKMETER_A_MAX);
			if (r->attrs[LOCKMETER_A_ROW])
				nl_count_row(r, r->attrs[LOCKMETER_A_ROW]);
			if (r->attrs[LOCKMETER_A_HELD])
				nl_held_row(r, r->attrs[LOCKMETER_A_HELD]);
		}
		if (max_messages && r->messages >= max_messages)
			return 0;
	}
}

/* The family id of "lockmeter", 0 when the kernel has none. */
static __u16 nl_family(int fd)
{
	struct nl_reply r = { .buf = malloc(NL_BUF) };
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr g;
		char attr[NLA_HDRLEN + NLA_ALIGN(sizeof(LOCKMETER_FAMILY_NAME))];
	} req = { };
	struct nlattr *a = (struct nlattr *)req.attr;
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	__u16 id = 0;
	int len;

	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = GENL_ID_CTRL;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 2;
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = NLA_HDRLEN + sizeof(LOCKMETER_FAMILY_NAME);
	memcpy(req.attr + NLA_HDRLEN, LOCKMETER_FAMILY_NAME, sizeof(LOCKMETER_FAMILY_NAME));
	if (!r.buf || send(fd, &req, sizeof(req), 0) < 0)
		goto out;
	len = recv(fd, r.buf, NL_BUF, 0);
	if (len > (int)(NLMSG_HDRLEN + GENL_HDRLEN) &&
	    ((struct nlmsghdr *)r.buf)->nlmsg_type == GENL_ID_CTRL) {
		nl_parse_attrs((struct nlattr *)(r.buf + NLMSG_HDRLEN + GENL_HDRLEN),
			       len - NLMSG_HDRLEN - GENL_HDRLEN, tb, CTRL_ATTR_MAX);
		if (tb[CTRL_ATTR_FAMILY_ID])
			id = *(__u16 *)((char *)tb[CTRL_ATTR_FAMILY_ID] + NLA_HDRLEN);
	}
out:
	free(r.buf);
	return id;
}

/* One request, all replies; 0 or a socket error (the reply has the rest). */
static int nl_do(__u16 family, const struct nl_req *req, struct nl_reply *r)
{
	const char *want_lock = r->want_lock;
	__u32 want_type = r->want_type;
	bool check_chains = r->check_chains;
	int fd = nl_open(), ret;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->want_lock = want_lock;
	r->want_type = want_type;
	r->check_chains = check_chains;
	r->want_cpu = -1;
	for (i = 0; i < 2; i++)
		if (req->attr[i].type == LOCKMETER_A_CPU)
			r->want_cpu = req->attr[i].val;
	if (fd < 0)
		return fd;
	r->buf = malloc(NL_BUF);
	ret = r->buf ? nl_send(fd, family, req) : -ENOMEM;
	if (!ret)
		ret = nl_recv(fd, r, 0);
	close(fd);
	return ret;
}

/*
 * Run @req in a child as uid nobody, or (@nobody false) as root without
 * CAP_SYS_ADMIN: returns the child's -error.
 */
static int nl_do_as(__u16 family, const struct nl_req *req, bool nobody)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct nl_reply r;

		if (nobody ? setgid(NOBODY) || setuid(NOBODY) : lm_drop_sys_admin())
			_exit(255);
		if (nl_do(family, req, &r))
			_exit(254);
		_exit(-r.error);
	}
	return -lm_wait_child(pid);
}

FIXTURE(nl)
{
	__u16 family;
	struct nl_reply r;
};

FIXTURE_SETUP(nl)
{
	int fd = nl_open();

	ASSERT_LE(0, fd) TH_LOG("netlink socket: %s", strerror(-fd));
	self->family = nl_family(fd);
	close(fd);
	if (!self->family)
		SKIP(return, "no generic netlink family \"%s\"", LOCKMETER_FAMILY_NAME);
	memset(&self->r, 0, sizeof(self->r));
}

FIXTURE_TEARDOWN(nl)
{
	free(self->r.buf);
}

/* The premise: the family answers and agrees with /proc/lockmeter. */
TEST_F(nl, status_get)
{
	static const struct nl_req req = { .cmd = LOCKMETER_CMD_STATUS_GET };
	struct nlattr **tb = self->r.attrs;

	ASSERT_EQ(0, nl_do(self->family, &req, &self->r));
	ASSERT_EQ(0, self->r.error) TH_LOG("status: %s", strerror(-self->r.error));
	ASSERT_EQ(1U, self->r.messages);
	ASSERT_NE(NULL, tb[LOCKMETER_A_VERSION]);
	ASSERT_NE(NULL, tb[LOCKMETER_A_CPUS]);
	ASSERT_NE(NULL, tb[LOCKMETER_A_STATE]);
	ASSERT_NE(NULL, tb[LOCKMETER_A_SLOTS_PER_CPU]);
	EXPECT_EQ(1U, *(__u32 *)((char *)tb[LOCKMETER_A_VERSION] + NLA_HDRLEN));
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN),
		  *(__u32 *)((char *)tb[LOCKMETER_A_CPUS] + NLA_HDRLEN));
	EXPECT_EQ(lm_is_on(_metadata),
		  !!*(__u32 *)((char *)tb[LOCKMETER_A_STATE] + NLA_HDRLEN));
	EXPECT_NE(NULL, tb[LOCKMETER_A_TABLE_FULL]);
	EXPECT_NE(NULL, tb[LOCKMETER_A_EVICTED]);
	EXPECT_NE(NULL, tb[LOCKMETER_A_STACKS_FULL]);
	EXPECT_NE(NULL, tb[LOCKMETER_A_CAPTURES]);
}

TEST_F(nl, control_switches_state)
{
	struct nl_req req = {
		.cmd = LOCKMETER_CMD_CONTROL,
		.attr = { { LOCKMETER_A_CONTROL, 4, LOCKMETER_CONTROL_ON } },
	};

	ASSERT_EQ(0, nl_do(self->family, &req, &self->r));
	ASSERT_EQ(0, self->r.error) TH_LOG("on: %s %s", strerror(-self->r.error), self->r.msg);
	EXPECT_TRUE(lm_is_on(_metadata));
	req.attr[0].val = LOCKMETER_CONTROL_OFF;
	free(self->r.buf);
	ASSERT_EQ(0, nl_do(self->family, &req, &self->r));
	ASSERT_EQ(0, self->r.error);
	EXPECT_FALSE(lm_is_on(_metadata));
}

/* A uint attribute: 4 or 8 bytes of payload. */
static uint64_t nl_uint(const struct nlattr *a)
{
	if (a->nla_len - NLA_HDRLEN == 8)
		return *(const uint64_t *)((const char *)a + NLA_HDRLEN);
	return *(const __u32 *)((const char *)a + NLA_HDRLEN);
}

/*
 * Release: refused while on, with a message; while off it frees what
 * metering allocated, and the status says so; "on" allocates again.
 */
TEST_F(nl, release_only_while_off)
{
	struct nl_req req = {
		.cmd = LOCKMETER_CMD_CONTROL,
		.attr = { { LOCKMETER_A_CONTROL, 4, LOCKMETER_CONTROL_ON } },
	};
	static const struct nl_req status = { .cmd = LOCKMETER_CMD_STATUS_GET };
	bool was_on = lm_is_on(_metadata);
	struct nlattr **tb = self->r.attrs;

	ASSERT_EQ(0, nl_do(self->family, &req, &self->r));
	ASSERT_EQ(0, self->r.error);
	free(self->r.buf);
	req.attr[0].val = LOCKMETER_CONTROL_RELEASE;
	ASSERT_EQ(0, nl_do(self->family, &req, &self->r));
	EXPECT_EQ(-EBUSY, self->r.error);
	EXPECT_NE('\0', self->r.msg[0]) TH_LOG("no message with EBUSY");
	EXPECT_TRUE(lm_is_on(_metadata));
	free(self->r.buf);
	ASSERT_EQ(0, lm_ctl("off"));
	ASSERT_EQ(0, nl_do(self->family, &req, &self->r));
	ASSERT_EQ(0, self->r.error) TH_LOG("release: %s %s", strerror(-self->r.error),
					   self->r.msg);
	free(self->r.buf);
	ASSERT_EQ(0, nl_do(self->family, &status, &self->r));
	ASSERT_NE(NULL, tb[LOCKMETER_A_MEM_CPUS]);
	ASSERT_NE(NULL, tb[LOCKMETER_A_MEM_TABLES]);
	ASSERT_NE(NULL, tb[LOCKMETER_A_MEM_CAP]);
	EXPECT_EQ(0ULL, nl_uint(tb[LOCKMETER_A_MEM_CPUS]));
	EXPECT_EQ(0ULL, nl_uint(tb[LOCKMETER_A_MEM_TABLES]));
	EXPECT_LT(0ULL, nl_uint(tb[LOCKMETER_A_MEM_CAP]));
	free(self->r.buf);
	self->r.buf = NULL;
	ASSERT_EQ(0, lm_ctl("on"));
	ASSERT_EQ(0, nl_do(self->family, &status, &self->r));
	ASSERT_NE(NULL, tb[LOCKMETER_A_MEM_CPUS]);
	EXPECT_EQ((uint64_t)sysconf(_SC_NPROCESSORS_ONLN), nl_uint(tb[LOCKMETER_A_MEM_CPUS]));
	if (!was_on)
		EXPECT_EQ(0, lm_ctl("off"));
}

TEST_F(nl, unprivileged_is_refused)
{
	static const struct nl_req on = {
		.cmd = LOCKMETER_CMD_CONTROL,
		.attr = { { LOCKMETER_A_CONTROL, 4, LOCKMETER_CONTROL_ON } },
	};
	static const struct nl_req dump = {
		.cmd = LOCKMETER_CMD_STATS_GET, .flags = NLM_F_DUMP,
	};
	static const struct nl_req status = { .cmd = LOCKMETER_CMD_STATUS_GET };

	ASSERT_EQ(0, lm_ctl("off"));
	EXPECT_EQ(-EPERM, nl_do_as(self->family, &on, true));
	EXPECT_FALSE(lm_is_on(_metadata));
	EXPECT_EQ(-EPERM, nl_do_as(self->family, &dump, true));
	/* the status is not secret */
	EXPECT_EQ(0, nl_do_as(self->family, &status, true));
	/* the statistics need what /proc/lockmeter needs: CAP_SYS_ADMIN */
	EXPECT_EQ(-EPERM, nl_do_as(self->family, &dump, false));
	EXPECT_EQ(-EPERM, nl_do_as(self->family, &on, false));
	EXPECT_EQ(0, nl_do_as(self->family, &status, false));
}

/* Strict policies: each bad request is refused, with a message. */
TEST_F(nl, bad_requests_get_einval_and_a_message)
{
	static const struct nl_req bad[] = {
		{ .cmd = LOCKMETER_CMD_CONTROL },	/* attribute missing */
		{ .cmd = LOCKMETER_CMD_CONTROL,		/* out of range */
		  .attr = { { LOCKMETER_A_CONTROL, 4, 99 } } },
		{ .cmd = LOCKMETER_CMD_CONTROL,		/* zero is not an op */
		  .attr = { { LOCKMETER_A_CONTROL, 4, 0 } } },
		{ .cmd = LOCKMETER_CMD_CONTROL,		/* wrong size */
		  .attr = { { LOCKMETER_A_CONTROL, 1, LOCKMETER_CONTROL_ON } } },
		{ .cmd = LOCKMETER_CMD_CONTROL,		/* unknown attribute */
		  .attr = { { LOCKMETER_A_CONTROL, 4, LOCKMETER_CONTROL_ON },
			    { LOCKMETER_A_MAX + 1, 4, 1 } } },
		{ .cmd = LOCKMETER_CMD_STATS_GET, .flags = NLM_F_DUMP,	/* no such CPU */
		  .attr = { { LOCKMETER_A_CPU, 4, 100000 } } },
	};
	unsigned int i;

	ASSERT_EQ(0, lm_ctl("off"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		free(self->r.buf);
		ASSERT_EQ(0, nl_do(self->family, &bad[i], &self->r));
		EXPECT_EQ(-EINVAL, self->r.error) TH_LOG("request %u", i);
		EXPECT_NE('\0', self->r.msg[0]) TH_LOG("request %u: no extack message", i);
		if (self->r.msg[0])
			ksft_print_msg("request %u: %s\n", i, self->r.msg);
	}
	/* and changed nothing */
	EXPECT_FALSE(lm_is_on(_metadata));
	free(self->r.buf);
	self->r.buf = NULL;
	/* an unknown command */
	{
		static const struct nl_req unknown = { .cmd = LOCKMETER_CMD_MAX + 1 };

		ASSERT_EQ(0, nl_do(self->family, &unknown, &self->r));
		EXPECT_EQ(-EOPNOTSUPP, self->r.error);
	}
}

/*
 * Hundreds of rows span many messages: every /proc row comes back once.
 * Metering is off while both are read, so nothing moves in between.
 */
TEST_F_TIMEOUT(nl, big_dump_has_every_row_once, 120)
{
	static const struct nl_req dump = {
		.cmd = LOCKMETER_CMD_STATS_GET, .flags = NLM_F_DUMP,
	};
	struct lm_report rep;

	lm_setup(_metadata);
	lm_metered(_metadata, "overflow 600");
	lm_report_read(_metadata, &rep);
	ASSERT_EQ(0, nl_do(self->family, &dump, &self->r));
	EXPECT_EQ(0, self->r.error);
	EXPECT_EQ(rep.nr_lines, self->r.rows);
	EXPECT_EQ(self->r.messages, self->r.rows);	/* one row per message */
	/* the module's 600 rows at least: far more than an skb holds */
	EXPECT_LE(600U, self->r.rows);
	ksft_print_msg("%u rows in %u messages\n", self->r.rows, self->r.messages);
	lm_report_free(&rep);
	ASSERT_EQ(0, lm_ctl("reset"));
}

/*
 * One CPU's table at a time: each row tagged with that CPU, and with
 * metering off the attempts of all CPUs add up to the merged dump's.
 */
TEST_F(nl, per_cpu_dumps_add_up)
{
	struct nl_req dump = { .cmd = LOCKMETER_CMD_STATS_GET, .flags = NLM_F_DUMP };
	long cpu, ncpus = sysconf(_SC_NPROCESSORS_CONF);
	__u64 merged, sum = 0;

	lm_setup(_metadata);
	lm_metered(_metadata, "hold 5 10");
	ASSERT_EQ(0, nl_do(self->family, &dump, &self->r));
	ASSERT_EQ(0, self->r.error);
	merged = self->r.attempts;
	ASSERT_LT(0ULL, merged);
	for (cpu = 0; cpu < ncpus; cpu++) {
		dump.attr[0] = (struct nl_attr_req){ LOCKMETER_A_CPU, 4, cpu };
		free(self->r.buf);
		ASSERT_EQ(0, nl_do(self->family, &dump, &self->r));
		ASSERT_EQ(0, self->r.error) TH_LOG("cpu %ld: %s", cpu, self->r.msg);
		EXPECT_EQ(0U, self->r.bad_cpu) TH_LOG("cpu %ld", cpu);
		sum += self->r.attempts;
	}
	EXPECT_EQ(merged, sum);
	ASSERT_EQ(0, lm_ctl("reset"));
}

/*
 * Each dump holds a vmalloc'd snapshot of ~3000 rows (~0.5 MB) until its
 * .done runs; closing the socket after the first message must run it.
 */
TEST_F_TIMEOUT(nl, close_mid_dump_leaks_nothing, 180)
{
	static const struct nl_req dump = {
		.cmd = LOCKMETER_CMD_STATS_GET, .flags = NLM_F_DUMP,
	};
	long before, after;
	int i;

	lm_setup(_metadata);
	lm_metered(_metadata, "overflow 3000");
	self->r.buf = malloc(NL_BUF);
	ASSERT_NE(NULL, self->r.buf);
	before = vmalloc_used_kb();
	ASSERT_LT(0, before);
	for (i = 0; i < 100; i++) {
		int fd = nl_open();

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, nl_send(fd, self->family, &dump));
		self->r.messages = 0;
		ASSERT_EQ(0, nl_recv(fd, &self->r, 1));
		close(fd);
	}
	after = vmalloc_used_kb();
	ksft_print_msg("VmallocUsed %ld kB before, %ld kB after 100 abandoned dumps\n",
		       before, after);
	/* 100 leaked snapshots would be ~50 MB */
	EXPECT_GT(before + 4096, after);
	ASSERT_EQ(0, lm_ctl("reset"));
}

/* ---- evidence ---- */

#define NL_FRAMES	16

/* Attribute @type, a uint, of the row kept in @r: 0 if absent. */
static __u64 nl_row_uint(const struct nl_reply *r, int type)
{
	const struct nlattr *row = (const struct nlattr *)r->row;
	struct nlattr *tb[LOCKMETER_R_MAX + 1];

	nl_parse_attrs((struct nlattr *)((char *)row + NLA_HDRLEN), row->nla_len - NLA_HDRLEN,
		       tb, LOCKMETER_R_MAX);
	return tb[type] ? nla_uint(tb[type]) : 0;
}

struct nl_ev {
	bool set;
	__u32 pid, ctx, cpu, owner_pid;
	__u64 time, blocked;
	char comm[16], owner_comm[16];
	unsigned int frames, addrs;
	char frame[NL_FRAMES][160];
	unsigned int blk_frames, blk_addrs;
	char blk_frame[NL_FRAMES][160];
};

static void nl_str(const struct nlattr *a, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)(a->nla_len - NLA_HDRLEN), (char *)a + NLA_HDRLEN);
}

/* Evidence nest @type of row nest @row, into @e. */
static void nl_ev_parse(const struct nlattr *row, int type, struct nl_ev *e)
{
	const struct nlattr *nest = NULL, *a;
	struct nlattr *tb[LOCKMETER_R_MAX + 1];
	int len;

	memset(e, 0, sizeof(*e));
	nl_parse_attrs((struct nlattr *)((char *)row + NLA_HDRLEN), row->nla_len - NLA_HDRLEN,
		       tb, LOCKMETER_R_MAX);
	nest = tb[type];
	if (!nest)
		return;
	e->set = true;
	a = (const struct nlattr *)((char *)nest + NLA_HDRLEN);
	for (len = nest->nla_len - NLA_HDRLEN; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	     a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
		switch (a->nla_type & NLA_TYPE_MASK) {
		case LOCKMETER_E_PID:
			e->pid = nla_uint(a);
			break;
		case LOCKMETER_E_CONTEXT:
			e->ctx = nla_uint(a);
			break;
		case LOCKMETER_E_CPU:
			e->cpu = nla_uint(a);
			break;
		case LOCKMETER_E_TIME:
			e->time = nla_uint(a);
			break;
		case LOCKMETER_E_OWNER_PID:
			e->owner_pid = nla_uint(a);
			break;
		case LOCKMETER_E_COMM:
			nl_str(a, e->comm, sizeof(e->comm));
			break;
		case LOCKMETER_E_OWNER_COMM:
			nl_str(a, e->owner_comm, sizeof(e->owner_comm));
			break;
		case LOCKMETER_E_FRAME:
			if (e->frames < NL_FRAMES)
				nl_str(a, e->frame[e->frames], sizeof(e->frame[0]));
			e->frames++;
			break;
		case LOCKMETER_E_FRAME_ADDR:
			e->addrs++;
			break;
		case LOCKMETER_E_BLOCKED_NS:
			e->blocked = nla_uint(a);
			break;
		case LOCKMETER_E_BLOCKED_FRAME:
			if (e->blk_frames < NL_FRAMES)
				nl_str(a, e->blk_frame[e->blk_frames], sizeof(e->blk_frame[0]));
			e->blk_frames++;
			break;
		case LOCKMETER_E_BLOCKED_FRAME_ADDR:
			e->blk_addrs++;
			break;
		}
	}
}

/* Evidence nest @type of the row kept in @r, into @e. */
static void nl_ev_get(const struct nl_reply *r, int type, struct nl_ev *e)
{
	if (r->have_row)
		nl_ev_parse((const struct nlattr *)r->row, type, e);
	else
		memset(e, 0, sizeof(*e));
}

/* Is @name ("func+0x1/0x2", or a bare name) a function of lockmeter's? */
static bool nl_lm_func(const char *name)
{
	return !strncmp(name, "lm_", 3) || !strncmp(name, "lockmeter_", 10);
}

/* Count @e's chains into @r, and those with a frame of lockmeter's. */
static void nl_ev_chains_check(struct nl_reply *r, const char *what, const struct nl_ev *e)
{
	const char *bad = NULL;
	unsigned int i;

	/* a hold's or a wait's chain starts past the lock operation */
	if (e->frames) {
		r->chains++;
		if (nl_lm_func(e->frame[0]))
			bad = e->frame[0];
	}
	/*
	 * A blocked chain starts at the outermost scheduler function its
	 * holder called (lm_stack_skip()), the rest in no lock operation:
	 * a frame of lockmeter's past the first is one not in .sched.text
	 * or .spinlock.text.  (The first is lockmeter's when the holder
	 * blocked waiting for another sleeping lock: down_write() and the
	 * others tail-call their metered variants.)
	 */
	if (e->blk_frames) {
		r->chains++;
		for (i = 1; i < MIN(e->blk_frames, NL_FRAMES) && !bad; i++)
			if (nl_lm_func(e->blk_frame[i]))
				bad = e->blk_frame[i];
	}
	if (bad && !r->lm_chains++)
		snprintf(r->lm_chain, sizeof(r->lm_chain), "%s: %s", what, bad);
}

/*
 * The chains of a row of the dump: none of them has a frame of
 * lockmeter's where it must not, unless lockmeter's own code took the
 * lock (lm_ctl_mutex, say).
 */
static void nl_chains_check(struct nl_reply *r, const struct nlattr *row_attr,
			    struct nlattr **row)
{
	const char *site = row[LOCKMETER_R_SITE] ?
			   (const char *)row[LOCKMETER_R_SITE] + NLA_HDRLEN : "";
	const char *lock = row[LOCKMETER_R_LOCK] ?
			   (const char *)row[LOCKMETER_R_LOCK] + NLA_HDRLEN : "";
	char what[200];
	struct nl_ev e;

	if (nl_lm_func(site))
		return;
	snprintf(what, sizeof(what), "%.60s at %.100s, hold", lock, site);
	nl_ev_parse(row_attr, LOCKMETER_R_HOLD_EVIDENCE, &e);
	nl_ev_chains_check(r, what, &e);
	snprintf(what, sizeof(what), "%.60s at %.100s, wait", lock, site);
	nl_ev_parse(row_attr, LOCKMETER_R_WAIT_EVIDENCE, &e);
	nl_ev_chains_check(r, what, &e);
}

/* The first of @nr frames from @from on in function @func ("func+0x..."), or -1. */
static int nl_frame_in(char (*frame)[160], unsigned int nr, const char *func, int from)
{
	size_t n = strlen(func);
	unsigned int i;

	for (i = from; i < MIN(nr, NL_FRAMES); i++)
		if (!strncmp(frame[i], func, n) && frame[i][n] == '+')
			return i;
	return -1;
}

static int nl_ev_frame(struct nl_ev *e, const char *func, int from)
{
	return nl_frame_in(e->frame, e->frames, func, from);
}

static void nl_ev_log(const char *what, const struct nl_ev *e)
{
	unsigned int i;

	ksft_print_msg("%s: pid %u comm %s ctx %u cpu %u owner %u %s, %u frames, %u addrs\n",
		       what, e->pid, e->comm, e->ctx, e->cpu, e->owner_pid, e->owner_comm,
		       e->frames, e->addrs);
	for (i = 0; i < MIN(e->frames, NL_FRAMES); i++)
		ksft_print_msg("  %s\n", e->frame[i]);
	if (e->blocked)
		ksft_print_msg("  blocked %llu ns, %u frames, %u addrs:\n",
			       (unsigned long long)e->blocked, e->blk_frames, e->blk_addrs);
	for (i = 0; i < MIN(e->blk_frames, NL_FRAMES); i++)
		ksft_print_msg("    %s\n", e->blk_frame[i]);
}

static int nl_kptr_restrict(int val)
{
	char *text = lm_read_file("/proc/sys/kernel/kptr_restrict"), buf[8];
	int old = text ? atoi(text) : -1;

	free(text);
	snprintf(buf, sizeof(buf), "%d\n", val);
	lm_write("/proc/sys/kernel/kptr_restrict", buf, strlen(buf));
	return old;
}

/*
 * A kthread of a known name takes a lock through three known functions,
 * holding it longest once: the row's hold evidence names the kthread, and
 * its chain starts in the innermost function with the other two above it
 * in order, nothing of lockmeter's or the lock's own above them.
 * Addresses come with the names only for a reader kptr_restrict allows.
 */
TEST_F(nl, worst_hold_names_holder_and_chain)
{
	static const struct nl_req dump = {
		.cmd = LOCKMETER_CMD_STATS_GET, .flags = NLM_F_DUMP,
	};
	int inner, middle, outer, old;
	struct nl_ev e;
	__u32 pid;

	lm_setup(_metadata);
	lm_metered(_metadata, "chain 9 4000");
	pid = lm_mod_value(_metadata, "pid");
	self->r.want_lock = "lmt_chain_lock";
	self->r.want_type = nl_spin_type();
	old = nl_kptr_restrict(0);
	ASSERT_EQ(0, nl_do(self->family, &dump, &self->r));
	ASSERT_EQ(0, self->r.error);
	ASSERT_TRUE(self->r.have_row);
	nl_ev_get(&self->r, LOCKMETER_R_HOLD_EVIDENCE, &e);
	nl_ev_log("hold", &e);
	ASSERT_TRUE(e.set);
	EXPECT_EQ(pid, e.pid);
	EXPECT_STREQ("lmt/chain", e.comm);
	EXPECT_EQ((__u32)LOCKMETER_CTX_TASK, e.ctx);
	EXPECT_LT(0ULL, e.time);
	inner = nl_ev_frame(&e, "lmt_chain_inner", 0);
	middle = nl_ev_frame(&e, "lmt_chain_middle", inner + 1);
	outer = nl_ev_frame(&e, "lmt_chain_outer", middle + 1);
	EXPECT_EQ(0, inner);
	EXPECT_LT(inner, middle);
	EXPECT_LT(middle, outer);
	EXPECT_EQ(e.frames, e.addrs);
	/* the longest hold ran alone: it waited for nothing */
	nl_ev_get(&self->r, LOCKMETER_R_WAIT_EVIDENCE, &e);
	EXPECT_FALSE(e.set);

	/* kptr_restrict 2: names only */
	nl_kptr_restrict(2);
	free(self->r.buf);
	ASSERT_EQ(0, nl_do(self->family, &dump, &self->r));
	nl_kptr_restrict(old);
	ASSERT_TRUE(self->r.have_row);
	nl_ev_get(&self->r, LOCKMETER_R_HOLD_EVIDENCE, &e);
	EXPECT_LT(0U, e.frames);
	EXPECT_EQ(0U, e.addrs);
	ASSERT_EQ(0, lm_ctl("reset"));
}

/*
 * Run module command @cmd metered until @lock's row has wait evidence, at
 * most 20 times (the waits need two kthreads to overlap); into @e.
 */
static void nl_wait_evidence(struct __test_metadata *_metadata, __u16 family,
			     struct nl_reply *r, const char *cmd, const char *lock,
			     __u32 type, struct nl_ev *e)
{
	static const struct nl_req dump = {
		.cmd = LOCKMETER_CMD_STATS_GET, .flags = NLM_F_DUMP,
	};
	int i;

	r->want_lock = lock;
	r->want_type = type;
	for (i = 0; i < 20; i++) {
		lm_metered(_metadata, "%s", cmd);
		free(r->buf);
		ASSERT_EQ(0, nl_do(family, &dump, r));
		ASSERT_EQ(0, r->error);
		nl_ev_get(r, LOCKMETER_R_WAIT_EVIDENCE, e);
		if (e->set)
			break;
	}
	nl_ev_log(lock, e);
	ASSERT_TRUE(e->set) TH_LOG("no wait for %s in %d runs of '%s'", lock, i, cmd);
}

/*
 * Waits that set a maximum name the waiter and where it waited, and for
 * a mutex the task that owned it when the wait began.
 */
TEST_F(nl, worst_wait_names_waiter_and_owner)
{
	struct nl_ev e;

	lm_setup(_metadata);
	nl_wait_evidence(_metadata, self->family, &self->r, "mutex_contend 2 20 2000",
			 "lmt_contended_mutex", LOCKMETER_TYPE_MUTEX, &e);
	EXPECT_EQ(0, strncmp(e.comm, "lmt/", 4));
	EXPECT_NE(0U, e.owner_pid);
	EXPECT_NE(e.pid, e.owner_pid);
	EXPECT_EQ(0, strncmp(e.owner_comm, "lmt/", 4));
	EXPECT_EQ(0, nl_ev_frame(&e, "lmt_mutex_contend", 0));

	nl_wait_evidence(_metadata, self->family, &self->r, "contend 2 50 200",
			 "lmt_contended_lock", nl_spin_type(), &e);
	EXPECT_EQ(0, strncmp(e.comm, "lmt/", 4));
	if (lm_preempt_rt()) {
		/* an rtmutex there: its owner is named as a mutex's */
		EXPECT_NE(0U, e.owner_pid);
		EXPECT_NE(e.pid, e.owner_pid);
		EXPECT_EQ(0, strncmp(e.owner_comm, "lmt/", 4));
	} else {
		EXPECT_EQ(0U, e.owner_pid);
	}
	EXPECT_EQ(0, nl_ev_frame(&e, "lmt_contend", 0));
	ASSERT_EQ(0, lm_ctl("reset"));
}

/*
 * A mutex holder that sleeps in a known function: the row's hold evidence
 * says it blocked about as long as the module measured that sleep, and
 * where: the chain starts at the scheduler function msleep() called and
 * has msleep() and then the known function in it, in that order.
 */
TEST_F(nl, worst_hold_names_where_holder_blocked)
{
	static const struct nl_req dump = {
		.cmd = LOCKMETER_CMD_STATS_GET, .flags = NLM_F_DUMP,
	};
	__u64 sleep_min, sleep_max;
	int ms, inside, old;
	struct nl_ev e;

	lm_setup(_metadata);
	lm_metered(_metadata, "mutex_sleep 3 20");
	sleep_min = lm_mod_value(_metadata, "sleep_min_ns");
	sleep_max = lm_mod_value(_metadata, "sleep_max_ns");
	self->r.want_lock = "lmt_sleep_mutex";
	self->r.want_type = LOCKMETER_TYPE_MUTEX;
	old = nl_kptr_restrict(0);
	ASSERT_EQ(0, nl_do(self->family, &dump, &self->r));
	nl_kptr_restrict(old);
	ASSERT_EQ(0, self->r.error);
	ASSERT_TRUE(self->r.have_row);
	nl_ev_get(&self->r, LOCKMETER_R_HOLD_EVIDENCE, &e);
	nl_ev_log("hold", &e);
	ksft_print_msg("module: sleeps %llu..%llu ns\n", (unsigned long long)sleep_min,
		       (unsigned long long)sleep_max);
	ASSERT_TRUE(e.set);
	/* one stretch of one sleep: within it, and most of it */
	EXPECT_LE(e.blocked, sleep_max + sleep_max / 50);
	EXPECT_GE(e.blocked, sleep_min / 2);
	ms = nl_frame_in(e.blk_frame, e.blk_frames, "msleep", 0);
	inside = nl_frame_in(e.blk_frame, e.blk_frames, "lmt_mutex_sleep_inside", 0);
	EXPECT_LT(0, ms);
	EXPECT_LT(ms, inside);
	EXPECT_EQ(-1, nl_frame_in(e.blk_frame, e.blk_frames, "lm_sched_in", 0));
	EXPECT_EQ(-1, nl_frame_in(e.blk_frame, e.blk_frames, "__schedule", 0));
	EXPECT_EQ(e.blk_frames, e.blk_addrs);
	/*
	 * A spinning lock's holder never blocks.  On PREEMPT_RT a spinlock_t
	 * is a sleeping lock whose holder may be preempted (by an interrupt
	 * thread, say), but this one busy-waits through its 100 us holds: it
	 * blocks, if at all, for a sliver of the hold.
	 */
	self->r.want_lock = "lmt_static_lock";
	self->r.want_type = nl_spin_type();
	lm_metered(_metadata, "hold 5 100");
	free(self->r.buf);
	ASSERT_EQ(0, nl_do(self->family, &dump, &self->r));
	ASSERT_TRUE(self->r.have_row);
	nl_ev_get(&self->r, LOCKMETER_R_HOLD_EVIDENCE, &e);
	ASSERT_TRUE(e.set);
	if (lm_preempt_rt()) {
		EXPECT_GT(nl_row_uint(&self->r, LOCKMETER_R_HOLD_MAX) / 2, e.blocked);
	} else {
		EXPECT_EQ(0ULL, e.blocked);
		EXPECT_EQ(0U, e.blk_frames);
	}
	ASSERT_EQ(0, lm_ctl("reset"));
}

/*
 * No chain of any row starts in a lock operation or in lockmeter (its
 * functions are in .sched.text or .spinlock.text, which lm_stack_skip()
 * leaves out), nor has a frame of lockmeter's past a blocked chain's
 * first, after holds, waits and blocked holders of every kind the module
 * makes, and whatever the rest of the system did meanwhile.
 */
TEST_F(nl, chains_start_past_lockmeter)
{
	static const struct nl_req dump = {
		.cmd = LOCKMETER_CMD_STATS_GET, .flags = NLM_F_DUMP,
	};

	lm_setup(_metadata);
	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	lm_mod_cmd(_metadata, "chain 9 4000");
	lm_mod_cmd(_metadata, "contend 2 50 200");
	lm_mod_cmd(_metadata, "mutex_contend 2 20 2000");
	lm_mod_cmd(_metadata, "mutex_sleep 3 20");
	lm_mod_cmd(_metadata, "downgrade 5 100");
	lm_mod_cmd(_metadata, "rwsem_readers 2 50 200");
	lm_mod_cmd(_metadata, "rwsem_writer 20 200");
	lm_mod_cmd(_metadata, "ww 20");
	ASSERT_EQ(0, lm_ctl("off"));
	self->r.check_chains = true;
	ASSERT_EQ(0, nl_do(self->family, &dump, &self->r));
	ASSERT_EQ(0, self->r.error);
	ksft_print_msg("%u rows, %u chains, %u with a frame of lockmeter's%s%s\n",
		       self->r.rows, self->r.chains, self->r.lm_chains,
		       self->r.lm_chains ? ", the first: " : "", self->r.lm_chain);
	/* the module's holds, waits and sleeps kept chains */
	EXPECT_LE(4U, self->r.chains);
	EXPECT_EQ(0U, self->r.lm_chains) TH_LOG("%s", self->r.lm_chain);
	ASSERT_EQ(0, lm_ctl("reset"));
}

/* A held lock as held-get sends it. */
struct nl_held {
	__u32 type, pid;
	__u64 ns;
	char comm[16], site[160];
	unsigned int frames, waiters;
	char frame[NL_FRAMES][160];
	char waiter_comm[16], waiter_site[160];
	__u64 waited;
};

static void nl_held_get(const struct nl_reply *r, struct nl_held *h)
{
	const struct nlattr *nest = (const struct nlattr *)r->row, *a;
	int len;

	memset(h, 0, sizeof(*h));
	a = (const struct nlattr *)((char *)nest + NLA_HDRLEN);
	for (len = nest->nla_len - NLA_HDRLEN; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	     a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
		struct nlattr *w[LOCKMETER_W_MAX + 1];

		switch (a->nla_type & NLA_TYPE_MASK) {
		case LOCKMETER_H_TYPE:
			h->type = nla_uint(a);
			break;
		case LOCKMETER_H_PID:
			h->pid = nla_uint(a);
			break;
		case LOCKMETER_H_HELD_NS:
			h->ns = nla_uint(a);
			break;
		case LOCKMETER_H_COMM:
			nl_str(a, h->comm, sizeof(h->comm));
			break;
		case LOCKMETER_H_SITE:
			nl_str(a, h->site, sizeof(h->site));
			break;
		case LOCKMETER_H_FRAME:
			if (h->frames < NL_FRAMES)
				nl_str(a, h->frame[h->frames], sizeof(h->frame[0]));
			h->frames++;
			break;
		case LOCKMETER_H_WAITER:
			nl_parse_attrs((struct nlattr *)((char *)a + NLA_HDRLEN),
				       a->nla_len - NLA_HDRLEN, w, LOCKMETER_W_MAX);
			if (!h->waiters++ && w[LOCKMETER_W_COMM] && w[LOCKMETER_W_SITE] &&
			    w[LOCKMETER_W_WAITED_NS]) {
				nl_str(w[LOCKMETER_W_COMM], h->waiter_comm, sizeof(h->waiter_comm));
				nl_str(w[LOCKMETER_W_SITE], h->waiter_site, sizeof(h->waiter_site));
				h->waited = nla_uint(w[LOCKMETER_W_WAITED_NS]);
			}
			break;
		}
	}
}

/*
 * Held-get @held into @r until its row (r->want_lock) is listed with a
 * waiter, at most 400 times 10 ms apart; the row into @h.
 */
static void held_poll_waiter(struct __test_metadata *_metadata, __u16 family,
			     const struct nl_req *held, struct nl_reply *r, struct nl_held *h)
{
	int i;

	for (i = 0; i < 400; i++) {
		free(r->buf);
		ASSERT_EQ(0, nl_do(family, held, r));
		ASSERT_EQ(0, r->error) TH_LOG("held-get: %s", r->msg);
		if (r->have_row) {
			nl_held_get(r, h);
			if (h->waiters)
				return;
		}
		usleep(10000);
	}
}

/*
 * While a kthread holds a mutex for 2 s and another waits for it, the
 * locks held over 500 ms name the holder, its site and its chain now
 * (asleep in msleep() in the known function), and the waiter; once both
 * are gone, nothing of theirs is listed.  Polled, with a bound, until the
 * hold has lasted long enough, however fast the guest runs.
 */
TEST_F_TIMEOUT(nl, held_lists_holder_chain_and_waiter, 120)
{
	static const struct nl_req held = {
		.cmd = LOCKMETER_CMD_HELD_GET, .flags = NLM_F_DUMP,
		.attr = { { LOCKMETER_A_OVER, 4, 500000000 } },
	};
	struct nl_held h;
	__u32 pid;

	lm_setup(_metadata);
	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	lm_mod_cmd(_metadata, "mutex_hold_bg 2000 1");
	pid = lm_mod_value(_metadata, "pid");
	self->r.want_lock = "lmt_held_mutex";
	held_poll_waiter(_metadata, self->family, &held, &self->r, &h);
	ASSERT_TRUE(self->r.have_row) TH_LOG("lmt_held_mutex never listed");
	ksft_print_msg("held %llu ns by %u %s at %s, %u frames, %u waiters (%s %llu ns at %s)\n",
		       (unsigned long long)h.ns, h.pid, h.comm, h.site, h.frames, h.waiters,
		       h.waiter_comm, (unsigned long long)h.waited, h.waiter_site);
	EXPECT_EQ((__u32)LOCKMETER_TYPE_MUTEX, h.type);
	EXPECT_EQ(pid, h.pid);
	EXPECT_STREQ("lmt/holder", h.comm);
	EXPECT_TRUE(lm_site_in(h.site, "lmt_held_holder")) TH_LOG("site %s", h.site);
	EXPECT_GE(h.ns, 500000000ULL);
	EXPECT_LE(0, nl_frame_in(h.frame, h.frames, "lmt_held_holder", 0));
	EXPECT_LE(0, nl_frame_in(h.frame, h.frames, "msleep", 0));
	EXPECT_EQ(1U, h.waiters);
	EXPECT_STREQ("lmt/waiter", h.waiter_comm);
	EXPECT_TRUE(lm_site_in(h.waiter_site, "lmt_held_waiter")) TH_LOG("%s", h.waiter_site);
	EXPECT_LE(h.waited, h.ns);

	lm_mod_cmd(_metadata, "bg_join");
	free(self->r.buf);
	ASSERT_EQ(0, nl_do(self->family, &held, &self->r));
	ASSERT_EQ(0, self->r.error);
	EXPECT_FALSE(self->r.have_row) TH_LOG("lmt_held_mutex still listed after release");
	ASSERT_EQ(0, lm_ctl("off"));
	/* metering off: nothing is held as far as lockmeter knows */
	free(self->r.buf);
	self->r.want_lock = NULL;
	ASSERT_EQ(0, nl_do(self->family, &held, &self->r));
	EXPECT_EQ(0U, self->r.rows);
	/* other tasks' stacks: not for a reader without CAP_SYS_ADMIN */
	EXPECT_EQ(-EPERM, nl_do_as(self->family, &held, true));
	EXPECT_EQ(-EPERM, nl_do_as(self->family, &held, false));
	ASSERT_EQ(0, lm_ctl("reset"));
}

/*
 * The writer of an rw_semaphore that waits is listed at the site of its
 * down_write(), as a mutex's waiter is: on PREEMPT_RT, where the wait is
 * an rwbase's, as anywhere else.
 */
TEST_F_TIMEOUT(nl, held_names_rwsem_writer_site, 120)
{
	static const struct nl_req held = {
		.cmd = LOCKMETER_CMD_HELD_GET, .flags = NLM_F_DUMP,
		.attr = { { LOCKMETER_A_OVER, 4, 500000000 } },
	};
	struct nl_held h;

	lm_setup(_metadata);
	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	lm_mod_cmd(_metadata, "rwsem_hold_bg 2000 1");
	self->r.want_lock = "lmt_held_rwsem";
	held_poll_waiter(_metadata, self->family, &held, &self->r, &h);
	lm_mod_cmd(_metadata, "bg_join");
	ASSERT_TRUE(self->r.have_row) TH_LOG("lmt_held_rwsem never listed");
	ksft_print_msg("held by %s at %s, %u waiters (%s at %s)\n", h.comm, h.site,
		       h.waiters, h.waiter_comm, h.waiter_site);
	EXPECT_EQ((__u32)LOCKMETER_TYPE_RWSEM_WRITE, h.type);
	EXPECT_TRUE(lm_site_in(h.site, "lmt_held_holder")) TH_LOG("site %s", h.site);
	EXPECT_EQ(1U, h.waiters);
	EXPECT_TRUE(lm_site_in(h.waiter_site, "lmt_held_waiter")) TH_LOG("%s", h.waiter_site);
	ASSERT_EQ(0, lm_ctl("off"));
	ASSERT_EQ(0, lm_ctl("reset"));
}

/*
 * A mutex taken while metering was off has no record: a task that waits
 * for it once metering is on still gets the lock listed, with no holder
 * (pid 0, no comm, no site), held as long as the waiter has waited.
 */
TEST_F_TIMEOUT(nl, held_lists_waiters_of_unrecorded_holder, 120)
{
	static const struct nl_req held = {
		.cmd = LOCKMETER_CMD_HELD_GET, .flags = NLM_F_DUMP,
		.attr = { { LOCKMETER_A_OVER, 4, 300000000 } },
	};
	struct nl_held h;
	int i;

	lm_setup(_metadata);
	ASSERT_EQ(0, lm_ctl("off"));
	ASSERT_EQ(0, lm_ctl("reset"));
	lm_mod_cmd(_metadata, "mutex_hold_bg 3000 0");
	ASSERT_EQ(0, lm_ctl("on"));
	lm_mod_cmd(_metadata, "mutex_wait_bg 1");
	self->r.want_lock = "lmt_held_mutex";
	for (i = 0; i < 400; i++) {
		free(self->r.buf);
		ASSERT_EQ(0, nl_do(self->family, &held, &self->r));
		ASSERT_EQ(0, self->r.error) TH_LOG("held-get: %s", self->r.msg);
		if (self->r.have_row)
			break;
		usleep(10000);
	}
	ASSERT_TRUE(self->r.have_row) TH_LOG("lmt_held_mutex never listed");
	nl_held_get(&self->r, &h);
	ksft_print_msg("held %llu ns by pid %u \"%s\" at \"%s\", %u waiters (%s %llu ns)\n",
		       (unsigned long long)h.ns, h.pid, h.comm, h.site, h.waiters,
		       h.waiter_comm, (unsigned long long)h.waited);
	EXPECT_EQ((__u32)LOCKMETER_TYPE_MUTEX, h.type);
	EXPECT_EQ(0U, h.pid);
	EXPECT_STREQ("", h.comm);
	EXPECT_STREQ("", h.site);
	EXPECT_EQ(0U, h.frames);
	EXPECT_EQ(1U, h.waiters);
	EXPECT_STREQ("lmt/waiter", h.waiter_comm);
	EXPECT_GE(h.waited, 300000000ULL);
	EXPECT_EQ(h.waited, h.ns);
	lm_mod_cmd(_metadata, "bg_join");
	ASSERT_EQ(0, lm_ctl("reset"));
}

#define NL_HIST		64

/* The uint attributes @type directly inside nest (or message) @a[@len], in order. */
static unsigned int nl_uints(const struct nlattr *a, int len, int type, __u64 *v,
			     unsigned int max)
{
	unsigned int n = 0;

	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == type && n < max)
			v[n++] = nla_uint(a);
	return n;
}

/* Histogram nest @type of the row kept in @r: its bucket count, 0 if none. */
static unsigned int nl_row_hist(const struct nl_reply *r, int type, __u64 *v)
{
	const struct nlattr *row = (const struct nlattr *)r->row;
	struct nlattr *tb[LOCKMETER_R_MAX + 1];

	nl_parse_attrs((struct nlattr *)((char *)row + NLA_HDRLEN), row->nla_len - NLA_HDRLEN,
		       tb, LOCKMETER_R_MAX);
	if (!tb[type])
		return 0;
	return nl_uints((struct nlattr *)((char *)tb[type] + NLA_HDRLEN),
			tb[type]->nla_len - NLA_HDRLEN, LOCKMETER_HI_COUNT, v, NL_HIST);
}

/* The bucket whose bounds hold @ns. */
static unsigned int nl_bucket_of(const __u64 *bound, unsigned int nr, __u64 ns)
{
	unsigned int b = 0;

	while (b + 1 < nr && bound[b + 1] <= ns)
		b++;
	return b;
}

/*
 * 1000 holds of about 20 us and one of about 200 ms (long enough that a
 * short hold a loaded host stalls for milliseconds stays below it: a
 * 20 ms one failed 10 runs in a row on 2026-12-07): the row's hold
 * histogram counts 1001, the long one alone in the bucket of the row's
 * maximum, which lies above the module's own measure of it, and the
 * others between the bucket of the module's shortest hold and that one.
 * A contended lock's waits sum to its spin count; reset empties it all.
 */
TEST_F(nl, histograms_count_every_hold_in_its_bucket)
{
	static const struct nl_req status = { .cmd = LOCKMETER_CMD_STATUS_GET };
	static const struct nl_req dump = {
		.cmd = LOCKMETER_CMD_STATS_GET, .flags = NLM_F_DUMP,
	};
	__u64 bound[NL_HIST], hist[NL_HIST], sum = 0, max, mod_min, mod_max, low = 0;
	unsigned int nb, nh, i, top, from;

	lm_setup(_metadata);
	ASSERT_EQ(0, nl_do(self->family, &status, &self->r));
	ASSERT_EQ(0, self->r.error);
	nb = nl_uints((struct nlattr *)self->r.last, sizeof(self->r.last),
		      LOCKMETER_A_HIST_BOUND, bound, NL_HIST);
	if (!nb)
		SKIP(return, "kernel without CONFIG_LOCKMETER_HIST");
	ASSERT_LE(2U, nb);
	EXPECT_EQ(0ULL, bound[0]);
	for (i = 1; i < nb; i++)
		EXPECT_LT(bound[i - 1], bound[i]);

	lm_hist_holds(_metadata, 1000, 20, 200);
	mod_min = lm_mod_value(_metadata, "hold_min_ns");
	mod_max = lm_mod_value(_metadata, "hold_max_ns");
	self->r.want_lock = "lmt_hist_lock";
	self->r.want_type = nl_spin_type();
	free(self->r.buf);
	ASSERT_EQ(0, nl_do(self->family, &dump, &self->r));
	ASSERT_TRUE(self->r.have_row);
	nh = nl_row_hist(&self->r, LOCKMETER_R_HOLD_HIST, hist);
	ASSERT_EQ(nb, nh);
	for (i = 0; i < nh; i++) {
		sum += hist[i];
		if (hist[i])
			ksft_print_msg("bucket %u [%llu ns..): %llu\n", i,
				       (unsigned long long)bound[i], (unsigned long long)hist[i]);
	}
	max = nl_row_uint(&self->r, LOCKMETER_R_HOLD_MAX);
	ksft_print_msg("module: %llu..%llu ns, row max %llu ns\n", (unsigned long long)mod_min,
		       (unsigned long long)mod_max, (unsigned long long)max);
	EXPECT_EQ(1001ULL, sum);
	EXPECT_EQ(sum, nl_row_uint(&self->r, LOCKMETER_R_ACQUIRED));
	for (top = nh - 1; top > 0 && !hist[top]; top--)
		;
	EXPECT_EQ(1ULL, hist[top]);
	EXPECT_EQ(top, nl_bucket_of(bound, nb, max));
	EXPECT_LE(mod_max, max);
	from = nl_bucket_of(bound, nb, mod_min);
	for (i = from; i < top; i++)
		low += hist[i];
	EXPECT_EQ(1000ULL, low);
	/* one task, one lock: nothing waited */
	nh = nl_row_hist(&self->r, LOCKMETER_R_WAIT_HIST, hist);
	for (sum = 0, i = 0; i < nh; i++)
		sum += hist[i];
	EXPECT_EQ(0ULL, sum);

	/* waits: the contended lock's buckets sum to the waits */
	nl_wait_evidence(_metadata, self->family, &self->r, "contend 2 50 200",
			 "lmt_contended_lock", nl_spin_type(), &(struct nl_ev){ });
	nh = nl_row_hist(&self->r, LOCKMETER_R_WAIT_HIST, hist);
	ASSERT_EQ(nb, nh);
	for (sum = 0, i = 0; i < nh; i++)
		sum += hist[i];
	EXPECT_LT(0ULL, sum);
	EXPECT_EQ(nl_row_uint(&self->r, LOCKMETER_R_SPIN), sum);

	/* reset: no row, so no histogram, is left */
	ASSERT_EQ(0, lm_ctl("reset"));
	self->r.want_lock = "lmt_hist_lock";
	self->r.want_type = nl_spin_type();
	free(self->r.buf);
	ASSERT_EQ(0, nl_do(self->family, &dump, &self->r));
	EXPECT_FALSE(self->r.have_row);
}

TEST_HARNESS_MAIN
