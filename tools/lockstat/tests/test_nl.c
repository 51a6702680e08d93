// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of nl.c without a kernel: replies built with libnl the way
 * the kernel builds them (include/uapi/linux/lockmeter.h) are fed to the
 * callbacks; nl.c is included to reach them.  NLA_UINT in 4 and 8 bytes,
 * mandatory attributes, policies, the version check, name sanitizing,
 * the extended ACK message, the error of a failed dump.
 */
#include "../nl.c"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "view.h"

static struct nl_msg *reply(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 0, 1, 0x20, 0, 0, cmd, LOCKMETER_FAMILY_VERSION);
	return msg;
}

static void put_uint(struct nl_msg *msg, int attr, uint64_t v)
{
	/* as nla_put_uint(): 4 bytes when the value fits */
	if (v == (uint32_t)v)
		nla_put_u32(msg, attr, (uint32_t)v);
	else
		nla_put_u64(msg, attr, v);
}

static struct nl_msg *status_reply(uint32_t version, bool metered)
{
	struct nl_msg *msg = reply(LOCKMETER_CMD_STATUS_GET);

	nla_put_u32(msg, LOCKMETER_A_VERSION, version);
	nla_put_string(msg, LOCKMETER_A_KERNEL, "6.12.117");
	nla_put_u32(msg, LOCKMETER_A_CPUS, 2);
	nla_put_u32(msg, LOCKMETER_A_STATE, 1);
	if (metered)
		put_uint(msg, LOCKMETER_A_METERED_NS, 5000000000ULL);
	nla_put_u32(msg, LOCKMETER_A_SLOTS_USED, 291);
	nla_put_u32(msg, LOCKMETER_A_SLOTS_PER_CPU, 4096);
	put_uint(msg, LOCKMETER_A_DROPPED, 0);
	put_uint(msg, LOCKMETER_A_UNMATCHED, 8);
	put_uint(msg, LOCKMETER_A_TABLE_FULL, 1ULL << 40);
	return msg;
}

static void test_status(void)
{
	struct lm_header h = { 0 };
	struct lm_nl_req req = { .arg = &h };
	struct nl_msg *msg;

	msg = status_reply(LOCKMETER_FAMILY_VERSION, true);
	lm_nl_status_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(!req.parse, "status: parses");
	tap_ok(h.metered_ns == 5000000000ULL && lm_has(&h, LM_H_METERED_NS),
	       "status: an 8-byte NLA_UINT");
	tap_ok(h.loss[LM_L_UNMATCHED] == 8 && h.loss[LM_L_TABLE_FULL] == 1ULL << 40,
	       "status: 4- and 8-byte loss counters");
	tap_ok(h.cpus == 2 && h.on && h.slots_used == 291 && h.slots_per_cpu == 4096 &&
	       !strcmp(h.kernel, "6.12.117"), "status: the other fields");
	tap_ok(lm_has(&h, LM_H_KEYS_USED) && lm_has(&h, LM_H_KEYS) && h.keys_used == 291 &&
	       h.keys == 4096 && !lm_has(&h, LM_H_MEM_KEYS),
	       "status: the slot attributes carry the key directory's use and size");
	tap_ok(lm_has(&h, LM_H_LOSS + LM_L_DROPPED) && !lm_has(&h, LM_H_LOSS + LM_L_EVICTED),
	       "status: presence bits follow the attributes");

	memset(&h, 0, sizeof(h));
	memset(&req, 0, sizeof(req));
	req.arg = &h;
	fprintf(stderr, "# expected: a message on a missing attribute\n");
	msg = status_reply(LOCKMETER_FAMILY_VERSION, false);
	lm_nl_status_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(req.parse == LM_EXIT_ERR, "status: a missing mandatory attribute is an error");

	memset(&req, 0, sizeof(req));
	req.arg = &h;
	fprintf(stderr, "# expected: a message on version 2\n");
	msg = status_reply(2, true);
	lm_nl_status_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(req.parse == LM_EXIT_ERR, "status: another format version is refused");
}

static void put_row(struct nl_msg *msg, uint32_t type, const char *lock, const char *site,
		    bool with_site, int odd_len)
{
	struct nlattr *nest = nla_nest_start(msg, LOCKMETER_A_ROW);
	char six[6] = { 0 };
	int i;

	nla_put_u32(msg, LOCKMETER_R_TYPE, type);
	nla_put_u32(msg, LOCKMETER_R_CLASS, lm_class_of(lock));
	for (i = 0; i < LM_NR_FIELDS; i++) {
		uint64_t v = i == LM_F_ACQUIRED ? 7 : i == LM_F_NOWAIT ? 4 : i == LM_F_SPIN ? 3 :
			     (uint64_t)(i + 1) << (i * 3);

		if (lm_nl_field_attr[i] == odd_len)
			nla_put(msg, odd_len, sizeof(six), six);
		else
			put_uint(msg, lm_nl_field_attr[i], v);
	}
	nla_put_string(msg, LOCKMETER_R_LOCK, lock);
	if (with_site)
		nla_put_string(msg, LOCKMETER_R_SITE, site);
	nla_nest_end(msg, nest);
}

static int dump_one(struct lm_snapshot *s, uint32_t type, const char *lock, const char *site,
		    bool with_site, int odd_len)
{
	struct lm_nl_req req = { .arg = s };
	struct nl_msg *msg = reply(LOCKMETER_CMD_STATS_GET);

	put_row(msg, type, lock, site, with_site, odd_len);
	lm_nl_dump_cb(msg, &req);
	nlmsg_free(msg);
	return req.parse;
}

/* a row whose numbers cannot be true (hold_min above hold_max) is refused */
static void test_row_impossible(void)
{
	struct nl_msg *msg = reply(LOCKMETER_CMD_STATS_GET);
	struct nlattr *nest = nla_nest_start(msg, LOCKMETER_A_ROW);
	struct lm_snapshot s;
	struct lm_nl_req req = { .arg = &s };
	int i;

	lm_snap_init(&s);
	nla_put_u32(msg, LOCKMETER_R_TYPE, LM_TYPE_SPIN);
	nla_put_u32(msg, LOCKMETER_R_CLASS, LM_CLASS_STATIC);
	for (i = 0; i < LM_NR_FIELDS; i++)
		put_uint(msg, lm_nl_field_attr[i], i == LM_F_ACQUIRED || i == LM_F_NOWAIT ? 2 :
			 i == LM_F_HOLD_MIN ? 9 : i == LM_F_HOLD_MAX ? 5 : 0);
	nla_put_string(msg, LOCKMETER_R_LOCK, "lock");
	nla_put_string(msg, LOCKMETER_R_SITE, "site+0x1/0x2");
	nla_nest_end(msg, nest);
	fprintf(stderr, "# expected: a message on hold_min_ns above hold_max_ns\n");
	lm_nl_dump_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(req.parse == LM_EXIT_ERR && s.nr == 0, "rows: hold_min_ns above hold_max_ns is refused");
	lm_snap_free(&s);
}

static void test_rows(void)
{
	struct lm_snapshot s;
	const struct lm_row *r;
	int i, ok = 1;

	lm_snap_init(&s);
	tap_ok(!dump_one(&s, LOCKMETER_TYPE_MUTEX, "lmt_mutex[test_lockmeter]",
			 "lmt_mutex_sleeper+0x23/0x70[test_lockmeter]", true, 0) && s.nr == 1,
	       "dump: a row parses");
	r = &s.rows[0];
	for (i = LM_F_REJECT; i < LM_NR_FIELDS; i++)
		ok &= r->v[i] == (uint64_t)(i + 1) << (i * 3);
	tap_ok(ok && r->v[LM_F_ACQUIRED] == 7 && r->v[LM_F_SPIN] == 3,
	       "dump: every counter lands in its field (4 and 8 bytes)");
	tap_ok(r->type == LM_TYPE_MUTEX && r->class == LM_CLASS_STATIC &&
	       !strcmp(r->lock, "lmt_mutex[test_lockmeter]") &&
	       !strcmp(r->site, "lmt_mutex_sleeper+0x23/0x70[test_lockmeter]"),
	       "dump: type, class and names");
	tap_ok(!dump_one(&s, LOCKMETER_TYPE_SPIN, "odd name", "site\twith\ttabs", true, 0) &&
	       s.nr == 2 && !strcmp(s.rows[1].lock, "odd?name") &&
	       !strcmp(s.rows[1].site, "site?with?tabs"),
	       "dump: names are made fit for the text formats");
	fprintf(stderr, "# expected: three messages on bad rows\n");
	tap_ok(dump_one(&s, LOCKMETER_TYPE_SPIN, "a", "b", false, 0) == LM_EXIT_ERR && s.nr == 2,
	       "dump: a row without its site is refused");
	tap_ok(dump_one(&s, LM_NR_TYPES, "a", "b", true, 0) == LM_EXIT_ERR && s.nr == 2,
	       "dump: an unknown type (the first past the known ones) is refused");
	tap_ok(dump_one(&s, LOCKMETER_TYPE_SPIN, "a", "b", true, LOCKMETER_R_HOLD_MAX) ==
	       LM_EXIT_ERR && s.nr == 2, "dump: a 6-byte NLA_UINT is refused");
	lm_snap_free(&s);
}

/*
 * the sleeping types of the second batch: rt_mutex, percpu_rwsem, semaphore;
 * and PREEMPT_RT's spinlock_t and rwlock_t
 */
static void test_rows_new_types(void)
{
	static const struct {
		uint32_t type;
		const char *name;
		const char *lock;
	} types[] = {
		{ LOCKMETER_TYPE_RT_MUTEX, "rt_mutex", "lmt_rt_mutex[test_lockmeter]" },
		{ LOCKMETER_TYPE_PERCPU_RWSEM_READ, "percpu_rwsem_read", "cgroup_threadgroup_rwsem" },
		{ LOCKMETER_TYPE_PERCPU_RWSEM_WRITE, "percpu_rwsem_write", "cgroup_threadgroup_rwsem" },
		{ LOCKMETER_TYPE_SEMAPHORE, "semaphore", "console_sem" },
		{ LOCKMETER_TYPE_RT_SPIN, "rt_spin", "css_set_lock" },
		{ LOCKMETER_TYPE_RT_READ, "rt_read", "tasklist_lock" },
		{ LOCKMETER_TYPE_RT_WRITE, "rt_write", "tasklist_lock" },
	};
	struct lm_snapshot s;
	const struct lm_row *r;
	size_t i;

	lm_snap_init(&s);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		if (!tap_ok(!dump_one(&s, types[i].type, types[i].lock, "f+0x1/0x2", true, 0) &&
			    s.nr == i + 1, "dump: a %s row parses", types[i].name))
			break;
		r = &s.rows[i];
		tap_ok(r->type == types[i].type && !strcmp(lm_type_name(r->type), types[i].name) &&
		       lm_type_sleeping(r->type) && !strcmp(r->lock, types[i].lock) &&
		       r->v[LM_F_BLOCKED_TOTAL] == (uint64_t)(LM_F_BLOCKED_TOTAL + 1) <<
						   (LM_F_BLOCKED_TOTAL * 3),
		       "dump: %s: its type, name and blocked time", types[i].name);
	}
	lm_snap_free(&s);
}

/*
 * An NLMSG_ERROR as the kernel sends it with NETLINK_EXT_ACK: the header,
 * struct nlmsgerr, the request echoed unless capped, then the TLVs.
 */
static void test_ext_ack(bool capped)
{
	struct {
		struct nlmsghdr nlh;
		struct nlmsgerr err;
		unsigned char rest[128];
	} m;
	static const char text[] = "no such CPU";
	struct lm_nl_req req = { .status = 1 };
	const size_t echo = 12;		/* genl header and one u32 attribute */
	size_t off = capped ? 0 : echo, n;
	struct nlattr *a = (struct nlattr *)(m.rest + off);
	char buf[256] = "";
	FILE *cap = tmpfile();
	int saved = dup(2);

	memset(&m, 0xab, sizeof(m));
	a->nla_type = NLMSGERR_ATTR_MSG;
	a->nla_len = NLA_HDRLEN + sizeof(text);
	memcpy(m.rest + off + NLA_HDRLEN, text, sizeof(text));
	m.nlh.nlmsg_type = NLMSG_ERROR;
	m.nlh.nlmsg_flags = NLM_F_ACK_TLVS | (capped ? NLM_F_CAPPED : 0);
	m.nlh.nlmsg_len = sizeof(m.nlh) + sizeof(m.err) + off + NLA_ALIGN(a->nla_len);
	m.err.error = -EINVAL;
	m.err.msg.nlmsg_len = sizeof(struct nlmsghdr) + echo;

	fflush(stderr);
	dup2(fileno(cap), 2);
	lm_nl_err_cb(NULL, &m.err, &req);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(cap);
	n = fread(buf, 1, sizeof(buf) - 1, cap);
	buf[n] = '\0';
	fclose(cap);
	tap_ok(req.status == -EINVAL, "errors: the kernel's errno is kept (%s)",
	       capped ? "capped" : "request echoed");
	tap_ok(strstr(buf, "kernel: no such CPU") != NULL,
	       "errors: the extended ACK message is printed (%s)", capped ? "capped" : "request echoed");
}

static void test_finish(void)
{
	struct lm_nl_req req = { .status = 1 };
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);
	int err = -EMSGSIZE;

	nlmsg_append(msg, &err, sizeof(err), NLMSG_ALIGNTO);
	lm_nl_finish_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(req.status == -EMSGSIZE, "errors: a dump that failed says so in NLMSG_DONE");
	req.status = 1;
	err = 0;
	msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);
	nlmsg_append(msg, &err, sizeof(err), NLMSG_ALIGNTO);
	lm_nl_finish_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(req.status == 0, "errors: a complete dump ends the request");
}

static int count_cb(struct nl_msg *msg, void *arg)
{
	struct lm_nl_req *req = arg;

	(void)msg;
	(*(int *)req->arg)++;
	return NL_SKIP;
}

/* lm_nl_request() with what it prints to stderr in @buf */
static int capture(struct lm_nl *nl, struct nl_msg *msg, struct lm_nl_req *req, char *buf,
		   size_t len)
{
	FILE *cap = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	fflush(stderr);
	dup2(fileno(cap), 2);
	ret = lm_nl_request(nl, msg, count_cb, req);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(cap);
	n = fread(buf, 1, len - 1, cap);
	buf[n] = '\0';
	fclose(cap);
	return ret;
}

/*
 * lm_nl_request() against this kernel's generic netlink controller, which
 * every kernel has: a do with its reply and ACK, a dump to NLMSG_DONE, and
 * errors, with the extended ACK of the kernel's strict validation.
 */
static void test_real_kernel(void)
{
	struct lm_nl nl = { 0 };
	struct lm_nl_req req;
	struct nl_msg *msg;
	int one = 1, n, ret;
	char buf[512];

	nl.sk = nl_socket_alloc();
	if (!nl.sk || genl_connect(nl.sk) < 0) {
		puts("ok - kernel: the request loop # SKIP no generic netlink here");
		lm_nl_close(&nl);
		return;
	}
	setsockopt(nl_socket_get_fd(nl.sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	nl_socket_enable_msg_peek(nl.sk);
	nl.family = GENL_ID_CTRL;

	n = 0;
	req = (struct lm_nl_req){ .arg = &n };
	msg = lm_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	ret = lm_nl_request(&nl, msg, count_cb, &req);
	tap_ok(ret == 0 && n == 1, "kernel: a do request: one reply, then the ACK");

	n = 0;
	req = (struct lm_nl_req){ .arg = &n };
	msg = lm_nl_msg(&nl, CTRL_CMD_GETFAMILY, NLM_F_DUMP);
	ret = lm_nl_request(&nl, msg, count_cb, &req);
	tap_ok(ret == 0 && n > 1, "kernel: a dump: %d replies, then NLMSG_DONE", n);

	n = 0;
	req = (struct lm_nl_req){ .arg = &n };
	msg = lm_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nosuchfam-ls");
	ret = capture(&nl, msg, &req, buf, sizeof(buf));
	tap_ok(ret == LM_EXIT_ERR && req.status == -ENOENT && n == 0 &&
	       strstr(buf, "No such file or directory"), "kernel: an error reply is an error");

	/* a control request says what the kernel's error means itself */
	n = 0;
	req = (struct lm_nl_req){ .arg = &n, .own_errno = true };
	msg = lm_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nosuchfam-ls");
	ret = capture(&nl, msg, &req, buf, sizeof(buf));
	tap_ok(ret == -ENOENT && n == 0 && !strstr(buf, "No such file or directory"),
	       "kernel: an error reply returned as -errno, unsaid, when the caller says it");

	/* a family name longer than GENL_NAMSIZ fails the controller's policy */
	n = 0;
	req = (struct lm_nl_req){ .arg = &n };
	msg = lm_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "a-family-name-far-too-long-for-genl");
	ret = capture(&nl, msg, &req, buf, sizeof(buf));
	tap_ok(ret == LM_EXIT_ERR && req.status == -EINVAL, "kernel: a policy violation is an error");
	tap_ok(strstr(buf, "lockstat: kernel: ") != NULL,
	       "kernel: its extended ACK message is printed");
	if (!strstr(buf, "lockstat: kernel: "))
		printf("# stderr: %s\n", buf);

	n = 0;
	req = (struct lm_nl_req){ .arg = &n };
	msg = lm_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	ret = lm_nl_request(&nl, msg, count_cb, &req);
	tap_ok(ret == 0 && n == 1, "kernel: the socket still works after errors");
	lm_nl_close(&nl);
}

/*
 * An evidence nest as the kernel builds it: @drop leaves out that
 * attribute, @bad makes it malformed (see the cases below).
 */
enum ev_bad {
	EV_OK,
	EV_PID_2_BYTES,
	EV_COMM_NO_NUL,
	EV_17_FRAMES,
	EV_ADDRS_SHORT,
	EV_CONTEXT_5,
	EV_OWNER_COMM_ONLY,
	EV_EMPTY_FRAME,
	EV_ADDR_6_BYTES,
	EV_TIME_2_BYTES,
	EV_BLOCKED_NO_NS,
	EV_BLOCKED_NS_2_BYTES,
	EV_BLOCKED_ADDRS_SHORT,
	EV_17_BLOCKED,
	EV_BLOCKED_EMPTY_FRAME,
	EV_BLOCKED_IN_WAIT,
};

static const char *const blocked[] = {
	"schedule_timeout+0x9e/0x170",
	"msleep+0x2d/0x50",
	"lmt_mutex_sleep_inside+0x12/0x30 [test_lockmeter]",
	"lmt_mutex_sleeper+0x23/0x70 [test_lockmeter]",
};

static const char *const frames[] = {
	"lmt_hold_inner+0x1e/0x40 [test_lockmeter]",
	"lmt_hold+0x22/0x50 [test_lockmeter]",
	"kthread+0xd2/0x100",
};

static void put_evidence(struct nl_msg *msg, int attr, int drop, enum ev_bad bad, bool addrs)
{
	struct nlattr *nest = nla_nest_start(msg, attr);
	static const char comm[] = "my prog\x01\xff";
	char two[2] = { 0 };
	unsigned int i, n = bad == EV_17_FRAMES ? 17 : 3;

	if (drop != LOCKMETER_E_PID)
		bad == EV_PID_2_BYTES ? nla_put(msg, LOCKMETER_E_PID, 2, two) :
					nla_put_u32(msg, LOCKMETER_E_PID, 2231);
	if (drop != LOCKMETER_E_COMM)
		bad == EV_COMM_NO_NUL ? nla_put(msg, LOCKMETER_E_COMM, 4, "abcd") :
					nla_put_string(msg, LOCKMETER_E_COMM, comm);
	if (drop != LOCKMETER_E_CONTEXT)
		nla_put_u32(msg, LOCKMETER_E_CONTEXT, bad == EV_CONTEXT_5 ? 5 : LOCKMETER_CTX_SOFTIRQ);
	if (drop != LOCKMETER_E_CPU)
		nla_put_u32(msg, LOCKMETER_E_CPU, 1);
	if (drop != LOCKMETER_E_TIME)
		bad == EV_TIME_2_BYTES ? nla_put(msg, LOCKMETER_E_TIME, 2, two) :
					 put_uint(msg, LOCKMETER_E_TIME, 52104331877ULL);
	if (bad != EV_OWNER_COMM_ONLY)
		nla_put_u32(msg, LOCKMETER_E_OWNER_PID, 2230);
	nla_put_string(msg, LOCKMETER_E_OWNER_COMM, "jbd2/vda1-8");
	/* a newer kernel's attribute, to be skipped */
	nla_put_u32(msg, LOCKMETER_E_MAX + 3, 77);
	for (i = 0; i < n; i++) {
		nla_put_string(msg, LOCKMETER_E_FRAME,
			       bad == EV_EMPTY_FRAME && i == 1 ? "" : frames[i % 3]);
		if (!addrs || (bad == EV_ADDRS_SHORT && i == 2))
			continue;
		if (bad == EV_ADDR_6_BYTES && i == 1)
			nla_put(msg, LOCKMETER_E_FRAME_ADDR, 6, "abcdef");
		else
			put_uint(msg, LOCKMETER_E_FRAME_ADDR, 0xffffffffc0a01100ULL + i);
	}
	/* where the holder blocked: 4 frames, after the others */
	if (bad == EV_BLOCKED_NS_2_BYTES)
		nla_put(msg, LOCKMETER_E_BLOCKED_NS, 2, two);
	else if (bad != EV_BLOCKED_NO_NS)
		put_uint(msg, LOCKMETER_E_BLOCKED_NS, 49100000);
	n = bad == EV_17_BLOCKED ? 17 : 4;
	for (i = 0; i < n; i++) {
		nla_put_string(msg, LOCKMETER_E_BLOCKED_FRAME,
			       bad == EV_BLOCKED_EMPTY_FRAME && i == 3 ? "" : blocked[i % 4]);
		if (addrs && !(bad == EV_BLOCKED_ADDRS_SHORT && i == 3))
			put_uint(msg, LOCKMETER_E_BLOCKED_FRAME_ADDR, 0xffffffff81f00000ULL + i);
	}
	nla_nest_end(msg, nest);
}

/* one row, with hold evidence as put_evidence() makes it and a plain wait's */
static int dump_evidence(struct lm_snapshot *s, int drop, enum ev_bad bad, bool addrs)
{
	struct lm_nl_req req = { .arg = s };
	struct nl_msg *msg = reply(LOCKMETER_CMD_STATS_GET);
	struct nlattr *nest = nla_nest_start(msg, LOCKMETER_A_ROW), *ev;
	int i;

	nla_put_u32(msg, LOCKMETER_R_TYPE, LOCKMETER_TYPE_MUTEX);
	nla_put_u32(msg, LOCKMETER_R_CLASS, LOCKMETER_CLASS_STATIC);
	for (i = 0; i < LM_NR_FIELDS; i++)
		put_uint(msg, lm_nl_field_attr[i], i == LM_F_ACQUIRED ? 7 : i == LM_F_NOWAIT ? 4 :
			 i == LM_F_SPIN ? 3 : 100 + i);
	nla_put_string(msg, LOCKMETER_R_LOCK, "lmt_mutex[test_lockmeter]");
	nla_put_string(msg, LOCKMETER_R_SITE, "lmt_hold+0x22/0x50[test_lockmeter]");
	put_evidence(msg, LOCKMETER_R_HOLD_EVIDENCE, drop, bad, addrs);
	ev = nla_nest_start(msg, LOCKMETER_R_WAIT_EVIDENCE);
	nla_put_u32(msg, LOCKMETER_E_PID, 17);
	nla_put_string(msg, LOCKMETER_E_COMM, "");
	nla_put_u32(msg, LOCKMETER_E_CONTEXT, LOCKMETER_CTX_TASK);
	nla_put_u32(msg, LOCKMETER_E_CPU, 0);
	put_uint(msg, LOCKMETER_E_TIME, 9);
	if (bad == EV_BLOCKED_IN_WAIT)
		put_uint(msg, LOCKMETER_E_BLOCKED_NS, 1);
	nla_nest_end(msg, ev);
	nla_nest_end(msg, nest);
	lm_nl_dump_cb(msg, &req);
	nlmsg_free(msg);
	return req.parse;
}

static void test_evidence(void)
{
	static const struct {
		int drop;
		enum ev_bad bad;
		const char *what;
	} refused[] = {
		{ LOCKMETER_E_PID, EV_OK, "evidence without its pid" },
		{ LOCKMETER_E_COMM, EV_OK, "evidence without its comm" },
		{ LOCKMETER_E_CONTEXT, EV_OK, "evidence without its context" },
		{ LOCKMETER_E_CPU, EV_OK, "evidence without its CPU" },
		{ LOCKMETER_E_TIME, EV_OK, "evidence without its time" },
		{ 0, EV_PID_2_BYTES, "a 2-byte pid" },
		{ 0, EV_COMM_NO_NUL, "a comm without its NUL" },
		{ 0, EV_TIME_2_BYTES, "a 2-byte time" },
		{ 0, EV_17_FRAMES, "17 frames" },
		{ 0, EV_ADDRS_SHORT, "fewer addresses than frames" },
		{ 0, EV_ADDR_6_BYTES, "a 6-byte address" },
		{ 0, EV_CONTEXT_5, "an unknown context" },
		{ 0, EV_OWNER_COMM_ONLY, "an owner's comm without its pid" },
		{ 0, EV_EMPTY_FRAME, "an empty frame" },
		{ 0, EV_BLOCKED_NO_NS, "blocked frames without the blocked time" },
		{ 0, EV_BLOCKED_NS_2_BYTES, "a 2-byte blocked time" },
		{ 0, EV_BLOCKED_ADDRS_SHORT, "fewer blocked addresses than blocked frames" },
		{ 0, EV_17_BLOCKED, "17 blocked frames" },
		{ 0, EV_BLOCKED_EMPTY_FRAME, "an empty blocked frame" },
		{ 0, EV_BLOCKED_IN_WAIT, "a blocked time in wait evidence" },
	};
	const struct lm_evidence *ev, *w;
	struct lm_snapshot s;
	unsigned int i;
	int ret;

	lm_snap_init(&s);
	ret = dump_evidence(&s, 0, EV_OK, true);
	tap_ok(!ret && s.nr == 1 && s.rows[0].ev[LM_EV_HOLD] && s.rows[0].ev[LM_EV_WAIT],
	       "evidence: a row with hold and wait evidence parses");
	if (ret || s.nr != 1 || !s.rows[0].ev[LM_EV_HOLD] || !s.rows[0].ev[LM_EV_WAIT])
		goto out;
	ev = s.rows[0].ev[LM_EV_HOLD];
	w = s.rows[0].ev[LM_EV_WAIT];
	tap_num(ev->pid, 2231, "evidence: pid");
	tap_str(ev->comm, "my prog\x01\xff", "evidence: comm, every byte kept");
	tap_num(ev->context, LM_CONTEXT_SOFTIRQ, "evidence: context");
	tap_num(ev->cpu, 1, "evidence: cpu");
	tap_num(ev->time_ns, 52104331877ULL, "evidence: time, an 8-byte NLA_UINT");
	tap_ok(lm_ev_has(ev, LM_EB_OWNER_PID) && ev->owner_pid == 2230 &&
	       lm_ev_has(ev, LM_EB_OWNER_COMM) && !strcmp(ev->owner_comm, "jbd2/vda1-8"),
	       "evidence: the owner, pid and comm");
	tap_num(ev->nr_frames, 3, "evidence: frames");
	tap_ok(ev->nr_frames == 3 && !strcmp(ev->frame[0], frames[0]) &&
	       !strcmp(ev->frame[1], frames[1]) && !strcmp(ev->frame[2], frames[2]),
	       "evidence: the frames in order, innermost first");
	tap_ok(lm_ev_has(ev, LM_EB_ADDRS) && ev->addr[0] == 0xffffffffc0a01100ULL &&
	       ev->addr[2] == 0xffffffffc0a01102ULL, "evidence: an address per frame");
	tap_ok(lm_ev_has(ev, LM_EB_BLOCKED) && ev->blocked_ns == 49100000 && ev->nr_blocked == 4 &&
	       !strcmp(ev->blocked_frame[0], blocked[0]) && !strcmp(ev->blocked_frame[3], blocked[3]),
	       "evidence: the blocked time and where, innermost first");
	tap_ok(lm_ev_has(ev, LM_EB_BLOCKED_ADDRS) && ev->blocked_addr[0] == 0xffffffff81f00000ULL &&
	       ev->blocked_addr[3] == 0xffffffff81f00003ULL && ev->addr[2] == 0xffffffffc0a01102ULL,
	       "evidence: blocked addresses apart from the chain's");
	tap_ok(w->pid == 17 && !strcmp(w->comm, "") && w->context == LM_CONTEXT_TASK &&
	       w->time_ns == 9 && !w->nr_frames && !w->present,
	       "evidence: wait evidence without owner or chain: none present");
	lm_snap_free(&s);

	lm_snap_init(&s);
	ret = dump_evidence(&s, 0, EV_OK, false);
	tap_ok(!ret && s.nr == 1 && s.rows[0].ev[LM_EV_HOLD]->nr_frames == 3 &&
	       !lm_ev_has(s.rows[0].ev[LM_EV_HOLD], LM_EB_ADDRS) &&
	       s.rows[0].ev[LM_EV_HOLD]->nr_blocked == 4 &&
	       !lm_ev_has(s.rows[0].ev[LM_EV_HOLD], LM_EB_BLOCKED_ADDRS),
	       "evidence: frames without addresses (an unprivileged reader)");
	lm_snap_free(&s);

	fprintf(stderr, "# expected: %zu messages on malformed evidence\n", ARRAY_SIZE(refused));
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		lm_snap_init(&s);
		ret = dump_evidence(&s, refused[i].drop, refused[i].bad, true);
		tap_ok(ret == LM_EXIT_ERR && s.nr == 0, "evidence: %s is refused", refused[i].what);
		lm_snap_free(&s);
	}
out:
	lm_snap_free(&s);
}

static void test_status_evidence(void)
{
	struct lm_header h = { 0 };
	struct lm_nl_req req = { .arg = &h };
	struct nl_msg *msg = status_reply(LOCKMETER_FAMILY_VERSION, true);

	put_uint(msg, LOCKMETER_A_STACKS_FULL, 3);
	put_uint(msg, LOCKMETER_A_CAPTURES, 1ULL << 33);
	lm_nl_status_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(!req.parse && lm_has(&h, LM_H_LOSS + LM_L_STACKS_FULL) &&
	       h.loss[LM_L_STACKS_FULL] == 3, "status: stacks_full is a loss counter");
	tap_ok(lm_has(&h, LM_H_CAPTURES) && h.captures == 1ULL << 33,
	       "status: captures, an 8-byte NLA_UINT");
}

/*
 * The memory figures of a newer kernel (mem_cpus, mem_rows, mem_cap) are
 * read when sent; an older kernel's status, without them, parses as it
 * did, their presence bits clear; one of a wrong size refuses the reply
 */
static void test_status_mem(void)
{
	struct lm_header h = { 0 };
	struct lm_nl_req req = { .arg = &h };
	struct nl_msg *msg = status_reply(LOCKMETER_FAMILY_VERSION, true);
	char six[6] = { 0 };

	put_uint(msg, LOCKMETER_A_MEM_PERCPU, 311296);
	put_uint(msg, LOCKMETER_A_MEM_TABLES, 2293760);
	lm_nl_status_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(!req.parse && lm_has(&h, LM_H_MEM_PERCPU) && lm_has(&h, LM_H_MEM_TABLES) &&
	       !lm_has(&h, LM_H_MEM_CPUS) && !lm_has(&h, LM_H_MEM_ROWS) &&
	       !lm_has(&h, LM_H_MEM_CAP),
	       "status: an older kernel's memory figures, without cpus, rows and cap");

	memset(&h, 0, sizeof(h));
	memset(&req, 0, sizeof(req));
	req.arg = &h;
	msg = status_reply(LOCKMETER_FAMILY_VERSION, true);
	put_uint(msg, LOCKMETER_A_MEM_PERCPU, 311296);
	put_uint(msg, LOCKMETER_A_MEM_TABLES, 2293760);
	put_uint(msg, LOCKMETER_A_MEM_CPUS, 2);
	put_uint(msg, LOCKMETER_A_MEM_ROWS, 196608);
	put_uint(msg, LOCKMETER_A_MEM_CAP, 400ULL << 30);
	lm_nl_status_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(!req.parse && lm_has(&h, LM_H_MEM_CPUS) && h.mem_cpus == 2 &&
	       lm_has(&h, LM_H_MEM_ROWS) && h.mem_rows == 196608,
	       "status: mem_cpus and mem_rows");
	tap_ok(lm_has(&h, LM_H_MEM_CAP) && h.mem_cap == 400ULL << 30,
	       "status: mem_cap, an 8-byte NLA_UINT");

	memset(&h, 0, sizeof(h));
	memset(&req, 0, sizeof(req));
	req.arg = &h;
	fprintf(stderr, "# expected: a message on a 6-byte mem_cap\n");
	msg = status_reply(LOCKMETER_FAMILY_VERSION, true);
	nla_put(msg, LOCKMETER_A_MEM_CAP, sizeof(six), six);
	lm_nl_status_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(req.parse == LM_EXIT_ERR, "status: a 6-byte mem_cap is refused");
}

/*
 * held-get replies, a held lock per message as the kernel sends them:
 * @bad makes one malformed (the cases of test_held_refused()).
 */
enum held_bad {
	HB_OK,
	HB_NO_PID,
	HB_NO_SITE,
	HB_TYPE_UNKNOWN,
	HB_CLASS_7,
	HB_HELD_2_BYTES,
	HB_COMM_NO_NUL,
	HB_ADDRS_SHORT,
	HB_65_FRAMES,
	HB_EMPTY_FRAME,
	HB_WAITER_NO_COMM,
	HB_WAITER_TYPE_0,
	HB_WAITED_2_BYTES,
	HB_WAITER_NOT_NESTED,
	HB_NOTHING,
};

static const char *const held_frames[] = {
	"msleep+0x2d/0x50",
	"lmt_held_holder+0x3a/0x60 [test_lockmeter]",
	"kthread+0xd2/0x100",
	"ret_from_fork+0x31/0x50",
};

struct held_in {
	uint32_t type;
	const char *lock;
	const char *site;
	uint64_t held_ns;
	uint32_t pid;
	const char *comm;
	int cpu;		/* -1: none */
	unsigned int frames;	/* of held_frames[], cycled */
	bool addrs;
	unsigned int waiters;	/* pid 500 + i, waited 1.5s + 0.2s * i, i odd without site */
	uint64_t truncated;	/* sent when non-zero */
};

static void put_waiter(struct nl_msg *msg, const struct held_in *in, unsigned int i,
		       enum held_bad bad)
{
	struct nlattr *w = nla_nest_start(msg, LOCKMETER_H_WAITER);
	char two[2] = { 0 };

	nla_put_u32(msg, LOCKMETER_W_PID, 500 + i);
	if (bad != HB_WAITER_NO_COMM)
		nla_put_string(msg, LOCKMETER_W_COMM, "lmt/waiter");
	if (!(i & 1))
		nla_put_string(msg, LOCKMETER_W_SITE, "lmt_held_waiter+0x1e/0x40[test_lockmeter]");
	nla_put_u32(msg, LOCKMETER_W_TYPE, bad == HB_WAITER_TYPE_0 ? 0 :
		    in->type == LOCKMETER_TYPE_RWSEM_WRITE ? LOCKMETER_TYPE_RWSEM_READ :
		    in->type == LOCKMETER_TYPE_PERCPU_RWSEM_WRITE ?
		    LOCKMETER_TYPE_PERCPU_RWSEM_READ :
		    in->type == LOCKMETER_TYPE_RT_WRITE ? LOCKMETER_TYPE_RT_READ : in->type);
	if (bad == HB_WAITED_2_BYTES)
		nla_put(msg, LOCKMETER_W_WAITED_NS, 2, two);
	else
		put_uint(msg, LOCKMETER_W_WAITED_NS, 1500000000ULL + 200000000ULL * i);
	nla_nest_end(msg, w);
}

static struct nl_msg *held_msg(const struct held_in *in, enum held_bad bad)
{
	struct nl_msg *msg = reply(LOCKMETER_CMD_HELD_GET);
	struct nlattr *nest;
	char two[2] = { 0 };
	unsigned int i, n = bad == HB_65_FRAMES ? 65 : in->frames;

	if (in->truncated)
		put_uint(msg, LOCKMETER_A_TRUNCATED, in->truncated);
	if (bad == HB_NOTHING)
		return msg;
	nest = nla_nest_start(msg, LOCKMETER_A_HELD);
	nla_put_u32(msg, LOCKMETER_H_TYPE, bad == HB_TYPE_UNKNOWN ? LM_NR_TYPES : in->type);
	nla_put_u32(msg, LOCKMETER_H_CLASS, bad == HB_CLASS_7 ? 7 : lm_class_of(in->lock));
	nla_put_string(msg, LOCKMETER_H_LOCK, in->lock);
	if (bad != HB_NO_SITE)
		nla_put_string(msg, LOCKMETER_H_SITE, in->site);
	if (bad == HB_HELD_2_BYTES)
		nla_put(msg, LOCKMETER_H_HELD_NS, 2, two);
	else
		put_uint(msg, LOCKMETER_H_HELD_NS, in->held_ns);
	if (bad != HB_NO_PID)
		nla_put_u32(msg, LOCKMETER_H_PID, in->pid);
	if (bad == HB_COMM_NO_NUL)
		nla_put(msg, LOCKMETER_H_COMM, 4, "abcd");
	else
		nla_put_string(msg, LOCKMETER_H_COMM, in->comm);
	if (in->cpu >= 0)
		nla_put_u32(msg, LOCKMETER_H_CPU, in->cpu);
	/* a newer kernel's attribute, to be skipped */
	nla_put_u32(msg, LOCKMETER_H_MAX + 2, 5);
	for (i = 0; i < n; i++) {
		nla_put_string(msg, LOCKMETER_H_FRAME, bad == HB_EMPTY_FRAME && i == 1 ? "" :
			       held_frames[i % ARRAY_SIZE(held_frames)]);
		if (in->addrs && !(bad == HB_ADDRS_SHORT && i == 0))
			put_uint(msg, LOCKMETER_H_FRAME_ADDR, 0xffffffffc0a02000ULL + i);
	}
	for (i = 0; i < in->waiters; i++)
		put_waiter(msg, in, i, bad);
	if (bad == HB_WAITER_NOT_NESTED)
		nla_put_u32(msg, LOCKMETER_H_WAITER, 3);
	nla_nest_end(msg, nest);
	return msg;
}

/* feed @in's message to the held callback: its req.parse */
static int held_feed(struct lm_held_list *l, const struct held_in *in, enum held_bad bad)
{
	struct lm_nl_req req = { .arg = l };
	struct nl_msg *msg = held_msg(in, bad);

	lm_nl_held_cb(msg, &req);
	nlmsg_free(msg);
	return req.parse;
}

static const struct held_in held_fixture[] = {
	{ LOCKMETER_TYPE_SPIN, "percpu:runqueues+0x0", "raw_spin_rq_lock_nested+0x1c/0x80",
	  1234567, 0, "swapper/1", 1, 0, false, 0, 2 },
	{ LOCKMETER_TYPE_MUTEX, "lmt_held_mutex[test_lockmeter]",
	  "lmt_held_holder+0x2a/0x60[test_lockmeter]", 2000412000ULL, 431, "lmt/holder", -1, 4,
	  true, 2, 0 },
	{ LOCKMETER_TYPE_RWSEM_WRITE, "[heap]", "vm_mmap_pgoff+0x9a/0x190", 5300000000ULL, 77,
	  "my prog\x01\xff", -1, 2, false, 3, 0 },
};

/* @n held locks of @in into @l, sorted: whether they all parse (a test: "held: @what parse") */
static bool held_list(struct lm_held_list *l, const struct held_in *in, size_t n,
		      const char *what)
{
	size_t i;
	int ret = 0;

	lm_held_init(l);
	for (i = 0; i < n; i++)
		ret |= held_feed(l, &in[i], HB_OK);
	if (!tap_ok(!ret && l->nr == n, "held: %s parse", what))
		return false;
	lm_held_sort(l);
	return true;
}

/* @f's contents against tests/golden/@name ($GOLDEN_DIR; UPDATE=1 rewrites it) */
static void held_golden(FILE *f, const char *name)
{
	const char *dir = getenv("GOLDEN_DIR"), *update = getenv("UPDATE");
	char path[4096], got[16384], want[16384] = "";
	size_t n, m = 0;
	FILE *g;

	rewind(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	if (!dir) {
		printf("ok - held: golden %s # SKIP GOLDEN_DIR is not set\n", name);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (update && !strcmp(update, "1")) {
		g = fopen(path, "w");
		if (g) {
			fwrite(got, 1, n, g);
			fclose(g);
		}
	}
	g = fopen(path, "r");
	if (g) {
		m = fread(want, 1, sizeof(want) - 1, g);
		fclose(g);
	}
	want[m] = '\0';
	tap_ok(g && !strcmp(got, want), "held: the output is tests/golden/%s", name);
	if (!g || strcmp(got, want))
		printf("# got:\n%s", got);
}

/* the held list rendered by @print into a memory file, then against its golden file */
static void held_render(const struct lm_held_list *l, uint64_t over, bool on, bool json,
			const char *golden, char *buf, size_t len)
{
	FILE *f = tmpfile();
	size_t n;

	if (json)
		lm_held_json(f, l, over, on);
	else
		lm_held_print(f, l, over, on);
	fflush(f);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	if (golden)
		held_golden(f, golden);
	fclose(f);
}

#define held_warn	"WARNING: 2 held locks did not fit the kernel's snapshot and are not listed\n"

static void test_held(void)
{
	struct lm_held_list l;
	const struct lm_held *h;
	char buf[16384];
	int ret;

	if (!held_list(&l, held_fixture, ARRAY_SIZE(held_fixture), "three held locks"))
		goto out;
	tap_ok(l.v[0].held_ns == 5300000000ULL && l.v[1].held_ns == 2000412000ULL &&
	       l.v[2].held_ns == 1234567, "held: sorted longest first (an 8-byte NLA_UINT first)");
	tap_ok(l.has_truncated && l.truncated == 2, "held: the truncated count is kept");
	h = &l.v[1];
	tap_ok(h->type == LM_TYPE_MUTEX && h->class == LM_CLASS_STATIC && h->pid == 431 &&
	       !strcmp(h->comm, "lmt/holder") && !(h->present & (1U << LM_HB_CPU)) &&
	       !strcmp(h->lock, "lmt_held_mutex[test_lockmeter]") &&
	       !strcmp(h->site, "lmt_held_holder+0x2a/0x60[test_lockmeter]"),
	       "held: the mutex: type, class, holder, names, no CPU");
	tap_ok(h->nr_frames == 4 && !strcmp(h->frame[0], held_frames[0]) &&
	       !strcmp(h->frame[3], held_frames[3]) && (h->present & (1U << LM_HB_ADDRS)) &&
	       h->addr[3] == 0xffffffffc0a02003ULL, "held: the holder's chain, in order, with addresses");
	tap_ok(h->nr_waiters == 2 && h->waiters[0].pid == 501 && h->waiters[1].pid == 500 &&
	       h->waiters[0].waited_ns == 1700000000ULL && !h->waiters[0].site &&
	       !strcmp(h->waiters[1].site, "lmt_held_waiter+0x1e/0x40[test_lockmeter]") &&
	       h->waiters[1].type == LM_TYPE_MUTEX, "held: waiters, the longest wait first");
	h = &l.v[2];
	tap_ok((h->present & (1U << LM_HB_CPU)) && h->cpu == 1 && !h->nr_frames && !h->nr_waiters,
	       "held: the spinlock: its CPU, no chain, no waiters");
	h = &l.v[0];
	tap_ok(h->class == LM_CLASS_HEAP && !strcmp(h->comm, "my prog\x01\xff") &&
	       h->nr_waiters == 3 && h->waiters[0].type == LM_TYPE_RWSEM_READ &&
	       !(h->present & (1U << LM_HB_ADDRS)), "held: the rwsem: heap, odd comm, readers waiting");

	held_render(&l, 1000000, true, false, "held.txt", buf, sizeof(buf));
	tap_ok(!strncmp(buf, held_warn "TYPE ", strlen(held_warn "TYPE ")),
	       "held: the truncated count is a WARNING line first");
	tap_ok(strstr(buf, "\nmutex         2.0s     431 lmt/holder         - lmt_held_mutex[test_lockmeter] "
			  "lmt_held_holder+0x2a[test_lockmeter]\n  stack:\n    msleep+0x2d/0x50\n") != NULL,
	       "held: a line per lock, the site short, the stack under it");
	tap_ok(strstr(buf, "\n  waiter 501 lmt/waiter waited 1.7s (mutex)\n"
			  "  waiter 500 lmt/waiter waited 1.5s at lmt_held_waiter+0x1e[test_lockmeter] (mutex)\n") != NULL,
	       "held: waiter lines, with the site when known");
	tap_ok(strstr(buf, "\nspin         1.2ms       0 swapper/1          1 ") != NULL &&
	       strstr(buf, " 77 my prog\\x01\\xff ") != NULL,
	       "held: a spinlock's CPU; comms escaped");
	held_render(&l, 1000000, true, true, "held.json", buf, sizeof(buf));
	tap_ok(strstr(buf, "\"over_ns\": 1000000, \"metering\": \"on\", \"truncated\": 2") &&
	       strstr(buf, "\"held_ns\": 5300000000, \"pid\": 77, \"comm\": \"my prog\\u0001\\u00ff\"") &&
	       strstr(buf, "\"addrs\": [ \"0xffffffffc0a02000\"") &&
	       strstr(buf, "{ \"pid\": 501, \"comm\": \"lmt/waiter\", \"type\": \"mutex\", "
			   "\"waited_ns\": 1700000000 }") && strstr(buf, "\"cpu\": 1,"),
	       "held: JSON with raw ns, the CPU, addresses and waiters");
	if (!strstr(buf, "\"cpu\": 1,"))
		printf("# %s", buf);
	lm_held_free(&l);

	lm_held_init(&l);
	held_render(&l, 1000000000, true, false, NULL, buf, sizeof(buf));
	tap_str(buf, "no lock held longer than 1.0s\n", "held: nothing held that long");
	held_render(&l, 0, true, false, NULL, buf, sizeof(buf));
	tap_str(buf, "no lock held\n", "held: --over 0 and nothing held");
	held_render(&l, 500000000, false, false, NULL, buf, sizeof(buf));
	tap_str(buf, "metering is off: no held lock is tracked (lockstat on starts it)\n",
		"held: metering off says so");
	held_render(&l, 500000000, false, true, NULL, buf, sizeof(buf));
	tap_str(buf, "{ \"over_ns\": 500000000, \"metering\": \"off\", \"held\": [] }\n",
		"held: JSON of nothing, metering off");
	/* a message that only says what the kernel's snapshot left out */
	ret = held_feed(&l, &held_fixture[0], HB_NOTHING);
	held_render(&l, 0, true, false, NULL, buf, sizeof(buf));
	tap_ok(!ret && !l.nr && l.truncated == 2 &&
	       !strcmp(buf, held_warn "no lock held\n"),
	       "held: truncated with nothing listed still warns");
out:
	lm_held_free(&l);
}

/* holders and waiters of the second batch of sleeping types */
static const struct held_in held_new_types[] = {
	{ LOCKMETER_TYPE_PERCPU_RWSEM_WRITE, "cgroup_threadgroup_rwsem",
	  "cgroup_attach_lock+0x2a/0x60", 3000000000ULL, 812, "systemd", -1, 2, false, 2, 0 },
	{ LOCKMETER_TYPE_RT_MUTEX, "lmt_rt_mutex[test_lockmeter]",
	  "lmt_rt_holder+0x1e/0x40[test_lockmeter]", 2500000000ULL, 433, "lmt/rt", 0, 0, false,
	  1, 0 },
	{ LOCKMETER_TYPE_SEMAPHORE, "console_sem", "console_lock+0x1b/0x80", 1250000000ULL, 99,
	  "kworker/0:1", -1, 1, false, 0, 0 },
};

static void test_held_new_types(void)
{
	struct lm_held_list l;
	char buf[16384];
	bool shown;

	if (!held_list(&l, held_new_types, ARRAY_SIZE(held_new_types),
		       "percpu_rwsem_write, rt_mutex and semaphore holders"))
		goto out;
	tap_ok(l.v[0].type == LM_TYPE_PERCPU_RWSEM_WRITE && l.v[0].nr_waiters == 2 &&
	       l.v[0].waiters[0].type == LM_TYPE_PERCPU_RWSEM_READ &&
	       l.v[1].type == LM_TYPE_RT_MUTEX && l.v[1].waiters[0].type == LM_TYPE_RT_MUTEX &&
	       l.v[2].type == LM_TYPE_SEMAPHORE, "held: the new types' holders and waiters");
	held_render(&l, 0, true, false, NULL, buf, sizeof(buf));
	shown = !strncmp(buf, "TYPE                 HELD     PID COMM ", 39) &&
		strstr(buf, "\npercpu_rwsem_write   3.0s     812 systemd            - "
			    "cgroup_threadgroup_rwsem     cgroup_attach_lock+0x2a\n") &&
		strstr(buf, "waited 1.7s (percpu_rwsem_read)\n") &&
		strstr(buf, "\nsemaphore            1.3s      99 kworker/0:1        - console_sem ");
	tap_ok(shown, "held: TYPE as wide as percpu_rwsem_write, the full names");
	tap_ok(strstr(buf, "\nrt_mutex             2.5s     433 lmt/rt             0 ") &&
	       strstr(buf, "\n  running on CPU 0: no stack while it runs\n  waiter 500 ") &&
	       strstr(buf, "(rt_mutex)\n"),
	       "held: an rt_mutex's holder on a CPU is a sleeping lock's, its waiter's type");
	if (!shown)
		printf("# %s", buf);
	held_render(&l, 0, true, true, NULL, buf, sizeof(buf));
	tap_ok(strstr(buf, "{ \"type\": \"percpu_rwsem_write\", \"class\": \"static\", ") &&
	       strstr(buf, "\"type\": \"percpu_rwsem_read\", \"waited_ns\": 1700000000 }") &&
	       strstr(buf, "{ \"type\": \"semaphore\", ") && strstr(buf, "{ \"type\": \"rt_mutex\", "),
	       "held: JSON names the new types");
out:
	lm_held_free(&l);
}

/* holders and waiters of PREEMPT_RT's spinlock_t and rwlock_t */
static const struct held_in held_rt_types[] = {
	{ LOCKMETER_TYPE_RT_WRITE, "tasklist_lock", "copy_process+0x9d4/0x1e90", 2000000000ULL,
	  1201, "bash", -1, 2, false, 2, 0 },
	{ LOCKMETER_TYPE_RT_SPIN, "css_set_lock", "cgroup_post_fork+0x5c/0x2a0", 1100000000ULL,
	  77, "kworker/1:2", 1, 0, false, 1, 0 },
};

static void test_held_rt_types(void)
{
	struct lm_held_list l;
	char buf[16384];
	bool shown;

	if (!held_list(&l, held_rt_types, ARRAY_SIZE(held_rt_types),
		       "rt_write and rt_spin holders"))
		goto out;
	tap_ok(l.v[0].type == LM_TYPE_RT_WRITE && l.v[0].nr_waiters == 2 &&
	       l.v[0].waiters[0].type == LM_TYPE_RT_READ && l.v[1].type == LM_TYPE_RT_SPIN &&
	       l.v[1].nr_waiters == 1 && l.v[1].waiters[0].type == LM_TYPE_RT_SPIN,
	       "held: the PREEMPT_RT types' holders and waiters");
	held_render(&l, 0, true, false, NULL, buf, sizeof(buf));
	shown = !strncmp(buf, "TYPE          HELD     PID COMM ", 32) &&
		strstr(buf, "\nrt_write      2.0s    1201 bash               - tasklist_lock "
			    "copy_process+0x9d4\n") &&
		strstr(buf, "waited 1.7s (rt_read)\n") &&
		strstr(buf, "\nrt_spin       1.1s      77 kworker/1:2        1 css_set_lock  "
			    "cgroup_post_fork+0x5c\n") &&
		strstr(buf, "\n  running on CPU 1: no stack while it runs\n  waiter 500 ") &&
		strstr(buf, "(rt_spin)\n");
	tap_ok(shown, "held: rt_write's waiters read; an rt_spin's holder on a CPU, a sleeper's");
	if (!shown)
		printf("# %s", buf);
	held_render(&l, 0, true, true, NULL, buf, sizeof(buf));
	tap_ok(strstr(buf, "{ \"type\": \"rt_write\", \"class\": \"static\", ") &&
	       strstr(buf, "\"type\": \"rt_read\", \"waited_ns\": 1700000000 }") &&
	       strstr(buf, "{ \"type\": \"rt_spin\", "),
	       "held: JSON names the PREEMPT_RT types");
out:
	lm_held_free(&l);
}

static void test_held_refused(void)
{
	static const struct {
		enum held_bad bad;
		const char *what;
	} refused[] = {
		{ HB_NO_PID, "a held lock without its holder's pid" },
		{ HB_NO_SITE, "a held lock without its site" },
		{ HB_TYPE_UNKNOWN, "an unknown lock type" },
		{ HB_CLASS_7, "an unknown lock class" },
		{ HB_HELD_2_BYTES, "a 2-byte held time" },
		{ HB_COMM_NO_NUL, "a comm without its NUL" },
		{ HB_ADDRS_SHORT, "fewer addresses than frames" },
		{ HB_65_FRAMES, "65 frames" },
		{ HB_EMPTY_FRAME, "an empty frame" },
		{ HB_WAITER_NO_COMM, "a waiter without its comm" },
		{ HB_WAITER_TYPE_0, "a waiter of type 0" },
		{ HB_WAITED_2_BYTES, "a 2-byte waited time" },
		{ HB_WAITER_NOT_NESTED, "a waiter that is no nest" },
	};
	const struct held_in *mutex = &held_fixture[1];
	struct held_in plain = held_fixture[1];
	struct lm_held_list l;
	unsigned int i;
	int ret;

	fprintf(stderr, "# expected: %zu messages on malformed held locks\n", ARRAY_SIZE(refused) + 1);
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		lm_held_init(&l);
		ret = held_feed(&l, mutex, refused[i].bad);
		tap_ok(ret == LM_EXIT_ERR && l.nr == 0, "held: %s is refused", refused[i].what);
		lm_held_free(&l);
	}
	lm_held_init(&l);
	plain.truncated = 0;
	ret = held_feed(&l, &plain, HB_NOTHING);
	tap_ok(ret == LM_EXIT_ERR && l.nr == 0, "held: a message with neither a lock nor a count is refused");
	lm_held_free(&l);
	/* a bad message spoils the dump: what follows is drained, not taken */
	lm_held_init(&l);
	{
		struct lm_nl_req req = { .arg = &l };
		struct nl_msg *msg = held_msg(mutex, HB_NO_PID);

		fprintf(stderr, "# expected: one message on a bad held lock, then silence\n");
		lm_nl_held_cb(msg, &req);
		nlmsg_free(msg);
		msg = held_msg(mutex, HB_OK);
		lm_nl_held_cb(msg, &req);
		nlmsg_free(msg);
		tap_ok(req.parse == LM_EXIT_ERR && req.nr == 2 && l.nr == 0,
		       "held: after a malformed message the rest of the dump is drained, not listed");
	}
	lm_held_free(&l);
}

static void test_close(void)
{
	struct lm_nl nl = { 0 };

	lm_nl_close(&nl);
	lm_nl_close(&nl);
	tap_ok(nl.sk == NULL, "socket: lm_nl_close() is idempotent");
}

/* ---- histograms: bounds in the status, counts in the rows ---- */

static const uint64_t hist_bounds[] = { 0, 85, 170, 341, 682, 1365 };

static struct nl_msg *status_hist(const uint64_t *b, unsigned int n)
{
	struct nl_msg *msg = status_reply(LOCKMETER_FAMILY_VERSION, true);
	unsigned int i;

	for (i = 0; i < n; i++)
		put_uint(msg, LOCKMETER_A_HIST_BOUND, b[i]);
	return msg;
}

static int status_parse(struct lm_header *h, struct nl_msg *msg)
{
	struct lm_nl_req req = { .arg = h };

	memset(h, 0, sizeof(*h));
	lm_nl_status_cb(msg, &req);
	nlmsg_free(msg);
	return req.parse;
}

static void test_status_hist(void)
{
	const uint64_t big[] = { 0, 85, 1ULL << 40 };
	const uint64_t down[] = { 0, 85, 85, 170 };
	const uint64_t first[] = { 10, 85 };
	uint64_t many[LM_HIST_MAX + 1];
	struct lm_header h;
	unsigned int i;

	tap_ok(!status_parse(&h, status_hist(hist_bounds, 6)) && h.nr_buckets == 6 &&
	       !memcmp(h.bound, hist_bounds, sizeof(hist_bounds)),
	       "hist: the status's bounds, in order, as many as sent");
	tap_ok(!status_parse(&h, status_hist(big, 3)) && h.nr_buckets == 3 &&
	       h.bound[2] == 1ULL << 40, "hist: a bound in 8 bytes");
	tap_ok(!status_parse(&h, status_hist(NULL, 0)) && !h.nr_buckets,
	       "hist: a kernel without histograms: no bounds");
	fprintf(stderr, "# expected: three messages on bad bounds\n");
	tap_ok(status_parse(&h, status_hist(down, 4)) == LM_EXIT_ERR && !h.nr_buckets,
	       "hist: bounds not strictly increasing are refused");
	tap_ok(status_parse(&h, status_hist(first, 2)) == LM_EXIT_ERR,
	       "hist: a first bound other than 0 is refused");
	for (i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = i * 100;
	tap_ok(status_parse(&h, status_hist(many, ARRAY_SIZE(many))) == LM_EXIT_ERR,
	       "hist: more buckets than lockstat takes are refused");
}

/* a spin row of 10 acquisitions, 3 of them waited, and its histograms */
static int dump_hist(struct lm_snapshot *s, const uint64_t *hold, unsigned int nh,
		     const uint64_t *wait, unsigned int nw, bool odd)
{
	struct nl_msg *msg = reply(LOCKMETER_CMD_STATS_GET);
	struct nlattr *nest = nla_nest_start(msg, LOCKMETER_A_ROW), *h;
	struct lm_nl_req req = { .arg = s };
	char six[6] = { 0 };
	unsigned int i;

	nla_put_u32(msg, LOCKMETER_R_TYPE, LM_TYPE_SPIN);
	nla_put_u32(msg, LOCKMETER_R_CLASS, LM_CLASS_STATIC);
	put_uint(msg, LOCKMETER_R_ACQUIRED, 10);
	put_uint(msg, LOCKMETER_R_NOWAIT, 7);
	put_uint(msg, LOCKMETER_R_SPIN, 3);
	put_uint(msg, LOCKMETER_R_REJECT, 0);
	put_uint(msg, LOCKMETER_R_HOLD_TOTAL, 4000);
	put_uint(msg, LOCKMETER_R_HOLD_MIN, 100);
	put_uint(msg, LOCKMETER_R_HOLD_MAX, 1400);
	put_uint(msg, LOCKMETER_R_WAIT_TOTAL, 300);
	put_uint(msg, LOCKMETER_R_WAIT_MIN, 90);
	put_uint(msg, LOCKMETER_R_WAIT_MAX, 110);
	nla_put_string(msg, LOCKMETER_R_LOCK, "hist_lock");
	nla_put_string(msg, LOCKMETER_R_SITE, "hist_take+0x1e/0x40");
	if (hold) {
		h = nla_nest_start(msg, LOCKMETER_R_HOLD_HIST);
		for (i = 0; i < nh; i++)
			put_uint(msg, LOCKMETER_HI_COUNT, hold[i]);
		if (odd)
			nla_put(msg, LOCKMETER_HI_COUNT, sizeof(six), six);
		nla_nest_end(msg, h);
	}
	if (wait) {
		h = nla_nest_start(msg, LOCKMETER_R_WAIT_HIST);
		for (i = 0; i < nw; i++)
			put_uint(msg, LOCKMETER_HI_COUNT, wait[i]);
		nla_nest_end(msg, h);
	}
	nla_nest_end(msg, nest);
	lm_nl_dump_cb(msg, &req);
	nlmsg_free(msg);
	return req.parse;
}

static void test_rows_hist(void)
{
	const uint64_t hold[] = { 0, 2, 5, 0, 2, 1 }, wait[] = { 0, 3, 0, 0, 0, 0 };
	const uint64_t hold9[] = { 0, 2, 5, 0, 2, 0 }, wait_big[] = { 0, 3, 0, 0, 0, 1ULL << 33 };
	struct lm_snapshot s;
	double ns = 0;
	struct lm_ctx c;

	lm_snap_init(&s);
	s.h.nr_buckets = 6;
	memcpy(s.h.bound, hist_bounds, sizeof(hist_bounds));
	tap_ok(!dump_hist(&s, hold, 6, wait, 6, false) && s.nr == 1 &&
	       s.rows[0].hist == LM_HIST_ALL && !memcmp(s.rows[0].hc[LM_HIST_HOLD], hold, sizeof(hold)) &&
	       !memcmp(s.rows[0].hc[LM_HIST_WAIT], wait, sizeof(wait)),
	       "hist: a row's hold and wait counts, one per bucket");
	lm_ctx_init(&c, &s.h);
	/* rank 5 of 10: the 3rd of bucket 2's 5, [170, 341): 170 + 3/5 * 171 */
	tap_ok(lm_row_pct(&s.rows[0], &c, LM_HIST_HOLD, LM_P50, &ns) == LM_PCT_EST &&
	       fabs(ns - 272.6) < 1e-9, "hist: the p50 of a parsed row (272.6 ns)");
	tap_ok(!dump_hist(&s, hold, 6, NULL, 0, false) && s.nr == 2 &&
	       s.rows[1].hist == 1U << LM_HIST_HOLD, "hist: a hold histogram alone");
	tap_ok(!dump_hist(&s, NULL, 0, NULL, 0, false) && s.nr == 3 && !s.rows[2].hist,
	       "hist: a row without histograms has none");
	fprintf(stderr, "# expected: six messages on bad histograms\n");
	tap_ok(dump_hist(&s, hold, 5, wait, 6, false) == LM_EXIT_ERR && s.nr == 3,
	       "hist: fewer counts than buckets are refused");
	tap_ok(dump_hist(&s, wait_big, 6, wait, 6, false) == LM_EXIT_ERR && s.nr == 3,
	       "hist: hold counts that do not sum to acquired are refused");
	tap_ok(dump_hist(&s, hold, 6, wait_big, 6, false) == LM_EXIT_ERR && s.nr == 3,
	       "hist: wait counts that do not sum to spin are refused");
	tap_ok(dump_hist(&s, hold9, 5, wait, 6, true) == LM_EXIT_ERR && s.nr == 3,
	       "hist: a count of 6 bytes is refused");
	tap_ok(dump_hist(&s, hold, 6, wait, 6, true) == LM_EXIT_ERR && s.nr == 3,
	       "hist: more counts than buckets are refused");
	s.h.nr_buckets = 0;
	tap_ok(dump_hist(&s, hold, 6, wait, 6, false) == LM_EXIT_ERR && s.nr == 3,
	       "hist: a histogram without the status's bounds is refused");
	lm_snap_free(&s);
}

/* an alert message as the kernel sends it; @drop: an attribute left out */
static struct nl_msg *alert_msg(uint32_t kind, int drop)
{
	struct nl_msg *msg = reply(LOCKMETER_CMD_ALERT);
	struct nlattr *nest;

	if (drop != LOCKMETER_AL_KIND)
		nla_put_u32(msg, LOCKMETER_AL_KIND, kind);
	nla_put_u32(msg, LOCKMETER_AL_TYPE, kind == LM_ALERT_WAIT ? LM_TYPE_SPIN : LM_TYPE_MUTEX);
	nla_put_u32(msg, LOCKMETER_AL_CLASS, LM_CLASS_STATIC);
	if (drop != LOCKMETER_AL_LOCK)
		nla_put_string(msg, LOCKMETER_AL_LOCK, "test_lm_lock[test lockmeter]");
	nla_put_string(msg, LOCKMETER_AL_SITE, "lm_test_hold+0x3c/0x80[test_lockmeter]");
	put_uint(msg, LOCKMETER_AL_NS, kind == LM_ALERT_HELD ? 6000000000ULL : 10210000);
	if (drop != LOCKMETER_AL_THRESHOLD_NS)
		put_uint(msg, LOCKMETER_AL_THRESHOLD_NS, 5000000);
	nest = nla_nest_start(msg, LOCKMETER_AL_EVIDENCE);
	nla_put_u32(msg, LOCKMETER_E_PID, 123);
	nla_put_string(msg, LOCKMETER_E_COMM, "lm_hold");
	nla_put_u32(msg, LOCKMETER_E_CONTEXT, LM_CONTEXT_TASK);
	nla_put_u32(msg, LOCKMETER_E_CPU, 1);
	put_uint(msg, LOCKMETER_E_TIME, 123456789012ULL);
	if (kind == LM_ALERT_WAIT) {
		nla_put_u32(msg, LOCKMETER_E_OWNER_PID, 77);
		nla_put_string(msg, LOCKMETER_E_OWNER_COMM, "owner");
	}
	nla_put_string(msg, LOCKMETER_E_FRAME, "lm_test_hold+0x3c/0x80 [test_lockmeter]");
	nla_put_string(msg, LOCKMETER_E_FRAME, "kthread+0xd2/0x100");
	if (kind == LM_ALERT_HOLD) {
		put_uint(msg, LOCKMETER_E_BLOCKED_NS, 3000000);
		nla_put_string(msg, LOCKMETER_E_BLOCKED_FRAME, "schedule+0x27/0xf0");
	}
	nla_nest_end(msg, nest);
	if (kind == LM_ALERT_HELD) {
		nest = nla_nest_start(msg, LOCKMETER_AL_WAITER);
		nla_put_u32(msg, LOCKMETER_W_PID, 500);
		nla_put_string(msg, LOCKMETER_W_COMM, "lmt/waiter");
		nla_put_u32(msg, LOCKMETER_W_TYPE, LM_TYPE_MUTEX);
		put_uint(msg, LOCKMETER_W_WAITED_NS, 1900000000);
		nla_nest_end(msg, nest);
	}
	put_uint(msg, LOCKMETER_AL_SEQ, 1ULL << 33);
	put_uint(msg, LOCKMETER_AL_DROPPED, 4);
	return msg;
}

static int parse_alert(uint32_t kind, int drop, struct lm_alert *a)
{
	struct nl_msg *msg = alert_msg(kind, drop);
	int ret;

	lm_alert_init(a);
	ret = lm_nl_alert_parse(msg, a);
	nlmsg_free(msg);
	return ret;
}

static void test_alerts(void)
{
	static const int mandatory[] = { LOCKMETER_AL_KIND, LOCKMETER_AL_LOCK,
					 LOCKMETER_AL_THRESHOLD_NS };
	struct lm_alert a;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	tap_ok(!parse_alert(LM_ALERT_HOLD, 0, &a), "alert: a hold parses");
	tap_ok(a.kind == LM_ALERT_HOLD && a.type == LM_TYPE_MUTEX && a.ns == 10210000 &&
	       a.threshold_ns == 5000000 && a.seq == 1ULL << 33 && a.dropped == 4 &&
	       lm_alert_has(&a, LM_AB_SEQ) && lm_alert_has(&a, LM_AB_DROPPED) && !a.nr_waiters,
	       "alert: kind, type, times, an 8-byte seq, the kernel's drops");
	tap_ok(!strcmp(a.lock, "test_lm_lock[test?lockmeter]"),
	       "alert: the lock's name sanitized as a row's");
	tap_ok(a.ev && a.ev->pid == 123 && a.ev->nr_frames == 2 && lm_ev_has(a.ev, LM_EB_BLOCKED) &&
	       a.ev->blocked_ns == 3000000 && a.ev->nr_blocked == 1,
	       "alert: the hold's evidence, its blocked part, through the evidence parser");
	f = open_memstream(&buf, &len);
	lm_watch_print(f, &a, false);
	fclose(f);
	tap_str(buf, "[  123.456789] hold  mutex   10.21ms > 5ms     test_lm_lock[test?lockmeter]  "
		"lm_test_hold+0x3c/0x80[test_lockmeter]  pid 123 lm_hold cpu 1 blocked 3ms\n",
		"alert: the line of a parsed hold");
	free(buf);
	lm_alert_free(&a);

	tap_ok(!parse_alert(LM_ALERT_WAIT, 0, &a) && a.ev && lm_ev_has(a.ev, LM_EB_OWNER_PID) &&
	       a.ev->owner_pid == 77 && !strcmp(a.ev->owner_comm, "owner"),
	       "alert: a wait, with the owner it waited for");
	lm_alert_free(&a);
	tap_ok(!parse_alert(LM_ALERT_HELD, 0, &a) && a.nr_waiters == 1 &&
	       a.waiters[0].pid == 500 && a.waiters[0].waited_ns == 1900000000 &&
	       !strcmp(a.waiters[0].comm, "lmt/waiter") && !a.waiters[0].site,
	       "alert: held, its waiter through the waiter parser");
	lm_alert_free(&a);

	fprintf(stderr, "# expected: messages on malformed alerts\n");
	for (i = 0; i < ARRAY_SIZE(mandatory); i++) {
		tap_ok(parse_alert(LM_ALERT_HOLD, mandatory[i], &a) == 1,
		       "alert: refused without mandatory attribute %d", mandatory[i]);
		lm_alert_free(&a);
	}
	tap_ok(parse_alert(7, 0, &a) == 1, "alert: an unknown kind is refused");
	lm_alert_free(&a);
}

static void test_status_watch(void)
{
	struct nl_msg *msg = status_reply(LOCKMETER_FAMILY_VERSION, true);
	struct lm_header h = { 0 };
	struct lm_nl_req req = { .arg = &h };
	struct lm_snapshot s;
	struct nlattr *nest;

	put_uint(msg, LOCKMETER_A_ALERTS, 12);
	put_uint(msg, LOCKMETER_A_ALERTS_SENT, 9);
	put_uint(msg, LOCKMETER_A_ALERTS_DROPPED, 1ULL << 35);
	nest = nla_nest_start(msg, LOCKMETER_A_WATCH);
	nla_put_u32(msg, LOCKMETER_WA_TYPE, LM_TYPE_SPIN);
	put_uint(msg, LOCKMETER_WA_HOLD_NS, 5000000);
	put_uint(msg, LOCKMETER_WA_WAIT_NS, 0);
	nla_nest_end(msg, nest);
	nest = nla_nest_start(msg, LOCKMETER_A_WATCH);
	nla_put_u32(msg, LOCKMETER_WA_TYPE, LM_TYPE_MUTEX);
	put_uint(msg, LOCKMETER_WA_WAIT_NS, 50000000);
	nla_nest_end(msg, nest);
	lm_nl_status_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(!req.parse && h.has_watch, "status: thresholds parse");
	tap_ok(h.watch_ns[LM_WATCH_HOLD][LM_TYPE_SPIN] == 5000000 &&
	       !h.watch_ns[LM_WATCH_WAIT][LM_TYPE_SPIN] &&
	       h.watch_ns[LM_WATCH_WAIT][LM_TYPE_MUTEX] == 50000000 &&
	       !h.watch_ns[LM_WATCH_HOLD][LM_TYPE_MUTEX] && !h.watch_ns[LM_WATCH_HOLD][LM_TYPE_READ],
	       "status: each type's hold and wait thresholds, 0 for none");
	tap_ok(h.alerts == 12 && h.alerts_sent == 9 && h.alerts_dropped == 1ULL << 35 &&
	       lm_has(&h, LM_H_ALERTS) && lm_has(&h, LM_H_ALERTS_SENT) &&
	       lm_has(&h, LM_H_ALERTS_DROPPED), "status: the alert counters");

	memset(&h, 0, sizeof(h));
	memset(&req, 0, sizeof(req));
	req.arg = &h;
	msg = status_reply(LOCKMETER_FAMILY_VERSION, true);
	lm_nl_status_cb(msg, &req);
	nlmsg_free(msg);
	tap_ok(!req.parse && !h.has_watch && !lm_has(&h, LM_H_ALERTS),
	       "status: an older kernel has no thresholds, no alert counters");

	lm_snap_init(&s);
	dump_one(&s, LM_TYPE_SPIN, "a", "f+0x1/0x2", true, 0);
	tap_ok(s.nr == 1 && !s.rows[0].has_alerts, "row: without an alert count");
	lm_snap_free(&s);
}

int main(void)
{
	test_status();
	test_rows();
	test_rows_new_types();
	test_row_impossible();
	test_evidence();
	test_status_evidence();
	test_status_mem();
	test_status_hist();
	test_rows_hist();
	test_held();
	test_held_new_types();
	test_held_rt_types();
	test_held_refused();
	test_alerts();
	test_status_watch();
	test_ext_ack(true);
	test_ext_ack(false);
	test_finish();
	test_real_kernel();
	test_close();
	return tap_done();
}
