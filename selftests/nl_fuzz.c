// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the lockmeter generic netlink family and writes to /proc/lockmeter,
 * as root and as uid nobody, with a seeded PRNG and a fixed message count
 * (so a run is the same on a fast and a slow machine; LM_FUZZ_SEED=N in
 * the environment picks another seed, the seed is in the log; in the
 * guest, "make check CMDLINE=LM_FUZZ_SEED=N": the kernel hands unknown
 * name=value parameters to init's environment).
 *
 * Netlink: wrong, unknown and flag-decorated attribute types, bad nla_len,
 * truncated and over-long messages, garbage nesting, every command and
 * unknown ones, bogus header flags, nlmsg_len shorter (the rest is parsed
 * as further messages), longer or smaller than a header, raw noise.  After
 * each message a status request with its own sequence number marks the
 * end of the replies.  Every reply must be well formed: an error or ACK,
 * the end of a dump, or a lockmeter message whose attributes parse
 * exactly, with the sizes the spec gives them.  A message the netlink core
 * must answer (a request of a type >= NLMSG_MIN_TYPE, or any message with
 * NLM_F_ACK) must get an answer.
 *
 * The fuzzer never sends a valid control request: a message that could
 * switch metering on or off, reset it or release its memory (any message of the family with
 * command CONTROL and a CONTROL attribute of value 1..4 anywhere the
 * kernel could parse it) is filtered out and drawn again, and the filter
 * is tested itself.  So state and reset count must be the same before and
 * after, and the family must still answer a status request and a stats
 * dump.
 *
 * /proc/lockmeter: random bytes and lengths and near misses of the control
 * words ("on\nX", "o", "reset ", "ON", "0\n\n", ...).  As root each write
 * must fail with EINVAL; the exact words ("on", "off", "reset", "0", each
 * with or without one newline) are filtered out; zero-length writes are not
 * made.  As nobody, through a descriptor root opened, the same: a write is
 * judged by the credentials of the open, not the writer's.
 */
#define _GNU_SOURCE
#include <linux/genetlink.h>
#include <linux/lockmeter.h>
#include <linux/netlink.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "lockmeter_lib.h"

#define NOBODY		65534
#define FZ_SEED		0x6c6f636b6d657472ULL	/* "lockmetr" */
#define FZ_NL_ROOT	5000U
#define FZ_NL_NOBODY	2000U
#define FZ_PROC_ROOT	3000U
#define FZ_PROC_NOBODY	1000U
#define FZ_MSG_MAX	16384		/* largest fuzz message */
#define FZ_RCV_BUF	(256 * 1024)	/* one recv(); errors echo the request */
#define FZ_RCV_TIMEO	10		/* s: no reply by then is a failure */
#define FZ_SEQ_BASE	0x10000000u	/* fuzz messages: base + 2i, sentinels +1 */
#define FZ_DUMP_MAX	1000000		/* messages in one dump: more is a loop */

struct fz_rng {
	uint64_t s;
};

static uint64_t fz_next(struct fz_rng *r)
{
	/* xorshift64* */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

static uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return n ? (uint32_t)(fz_next(r) >> 32) % n : 0;
}

/* true with probability @pct percent */
static bool fz_pct(struct fz_rng *r, unsigned int pct)
{
	return fz_below(r, 100) < pct;
}

static void fz_seed(struct fz_rng *r, uint64_t seed)
{
	/* splitmix64, so that neighbouring seeds give unrelated streams */
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	r->s = (z ^ (z >> 31)) | 1;
}

static uint64_t fz_seed_value(void)
{
	const char *env = getenv("LM_FUZZ_SEED");
	uint64_t v;

	if (env && !lm_parse_u64(env, &v))
		return v;
	return FZ_SEED;
}

static void fz_random_bytes(struct fz_rng *r, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len--)
		*p++ = fz_next(r) >> 56;
}

/* What a run did, shared with a forked child; @why is the first failure. */
struct fz_result {
	unsigned int sent;		/* messages or writes made */
	unsigned int refused;		/* send() failed */
	unsigned int filtered;		/* drawn again: could have been valid */
	unsigned int errors;		/* answered with an error */
	unsigned int acks;		/* answered with error 0 */
	unsigned int data;		/* answered with lockmeter messages */
	unsigned int dumps;		/* complete dumps among those */
	unsigned int silent;		/* not answered, as the core allows */
	unsigned int replies;		/* reply messages checked */
	unsigned int failures;
	char why[512];
	unsigned char msg[64];		/* the start of the failing input */
	unsigned int msg_len;		/* its whole length */
	unsigned int index;		/* its number in the run */
};

static __printf(2, 3)
void fz_fail(struct fz_result *res, const char *fmt, ...)
{
	va_list ap;

	if (res->failures++)
		return;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
}

/* Keep input @i for the log, if it is the first to fail. */
static void fz_keep_input(struct fz_result *res, unsigned int i, const void *buf,
			  unsigned int len, unsigned int failures_before)
{
	if (failures_before || !res->failures)
		return;
	res->index = i;
	res->msg_len = len;
	memcpy(res->msg, buf, len < sizeof(res->msg) ? len : sizeof(res->msg));
}

static void fz_log_result(struct __test_metadata *_metadata, const char *what,
			  uint64_t seed, const struct fz_result *res)
{
	char hex[sizeof(res->msg) * 3 + 1] = "";
	unsigned int i, n = res->msg_len < sizeof(res->msg) ? res->msg_len : sizeof(res->msg);

	TH_LOG("%s: seed %" PRIu64 ": %u sent, %u filtered as possibly valid, %u refused by send(), %u errors, %u acks, %u answered with data (%u dumps), %u unanswered as allowed, %u replies checked, %u failures",
	       what, seed, res->sent, res->filtered, res->refused, res->errors, res->acks,
	       res->data, res->dumps, res->silent, res->replies, res->failures);
	if (!res->failures)
		return;
	for (i = 0; i < n; i++)
		sprintf(hex + 3 * i, "%02x ", res->msg[i]);
	TH_LOG("first failure, input %u (%u bytes: %s...): %s", res->index,
	       res->msg_len, hex, res->why);
}

/* ---- netlink: talking ---- */

static int fz_nl_open(void)
{
	struct timeval tv = { .tv_sec = FZ_RCV_TIMEO };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int one = 1, size = FZ_RCV_BUF;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		close(fd);
		return -errno;
	}
	/* root may go past rmem_max; nobody gets what it gets */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	return fd;
}

static void fz_put_attr(char **p, uint16_t type, const void *val, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)*p;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(*p + NLA_HDRLEN, val, len);
	memset(*p + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	*p += NLA_HDRLEN + NLA_ALIGN(len);
}

/* A well-formed request: header, genl header, at most one u32 or string. */
static unsigned int fz_request(char *buf, uint16_t type, uint16_t flags, uint32_t seq,
			       uint8_t cmd, uint8_t version, uint16_t attr,
			       const void *val, uint16_t len)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	char *p = (char *)(g + 1);

	memset(buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	g->cmd = cmd;
	g->version = version;
	if (attr)
		fz_put_attr(&p, attr, val, len);
	nlh->nlmsg_len = p - buf;
	return nlh->nlmsg_len;
}

static int fz_send(int fd, const void *buf, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	return sendto(fd, buf, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
}

/*
 * Walk the attributes in @a..@a+len.  Returns 0 when they parse exactly
 * (nothing left but padding), else -1; @tb gets the last of each type
 * <= @max, types above @max make it fail when @strict.
 */
static int fz_attrs(const struct nlattr *a, int len, const struct nlattr **tb,
		    int max, bool strict)
{
	if (tb)
		memset(tb, 0, sizeof(*tb) * (max + 1));
	while (len >= NLA_HDRLEN) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return -1;
		if (type > max) {
			if (strict)
				return -1;
		} else if (tb) {
			tb[type] = a;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	return len > 0 ? -1 : 0;
}

static const void *fz_payload(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static int fz_plen(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

enum fz_kind { FZ_U32 = 1, FZ_UINT, FZ_STR, FZ_NEST };

/* What the spec says each reply attribute is. */
static const enum fz_kind fz_top_kind[LOCKMETER_A_MAX + 1] = {
	[LOCKMETER_A_VERSION] = FZ_U32,		[LOCKMETER_A_KERNEL] = FZ_STR,
	[LOCKMETER_A_CPUS] = FZ_U32,		[LOCKMETER_A_STATE] = FZ_U32,
	[LOCKMETER_A_METERED_NS] = FZ_UINT,	[LOCKMETER_A_SLOTS_USED] = FZ_U32,
	[LOCKMETER_A_SLOTS_PER_CPU] = FZ_U32,	[LOCKMETER_A_DROPPED] = FZ_UINT,
	[LOCKMETER_A_UNMATCHED] = FZ_UINT,	[LOCKMETER_A_RECURSION] = FZ_UINT,
	[LOCKMETER_A_TABLE_FULL] = FZ_UINT,	[LOCKMETER_A_EVICTED] = FZ_UINT,
	[LOCKMETER_A_CONTROL] = FZ_U32,		[LOCKMETER_A_CPU] = FZ_U32,
	[LOCKMETER_A_ROW] = FZ_NEST,		[LOCKMETER_A_RESETS] = FZ_UINT,
	[LOCKMETER_A_IRQCTX] = FZ_UINT,		[LOCKMETER_A_TRUNCATED] = FZ_UINT,
	[LOCKMETER_A_NOTASK] = FZ_UINT,		[LOCKMETER_A_MEM_PERCPU] = FZ_UINT,
	[LOCKMETER_A_MEM_TABLES] = FZ_UINT,	[LOCKMETER_A_MEM_TASK] = FZ_UINT,
	[LOCKMETER_A_STACKS_FULL] = FZ_UINT,	[LOCKMETER_A_CAPTURES] = FZ_UINT,
	[LOCKMETER_A_HELD] = FZ_NEST,		[LOCKMETER_A_OVER] = FZ_UINT,
	[LOCKMETER_A_HIST_BOUND] = FZ_UINT,	[LOCKMETER_A_HIST_LOST] = FZ_UINT,
	[LOCKMETER_A_WATCH_TYPE] = FZ_U32,	[LOCKMETER_A_WATCH_HOLD_NS] = FZ_UINT,
	[LOCKMETER_A_WATCH_WAIT_NS] = FZ_UINT,	[LOCKMETER_A_WATCH] = FZ_NEST,
	[LOCKMETER_A_ALERTS] = FZ_UINT,		[LOCKMETER_A_ALERTS_SENT] = FZ_UINT,
	[LOCKMETER_A_ALERTS_DROPPED] = FZ_UINT,	[LOCKMETER_A_MEM_CPUS] = FZ_UINT,
	[LOCKMETER_A_MEM_ROWS] = FZ_UINT,	[LOCKMETER_A_MEM_CAP] = FZ_UINT,
};

static enum fz_kind fz_row_kind(int type)
{
	switch (type) {
	case LOCKMETER_R_TYPE:
	case LOCKMETER_R_CLASS:
	case LOCKMETER_R_CPU:
		return FZ_U32;
	case LOCKMETER_R_LOCK:
	case LOCKMETER_R_SITE:
		return FZ_STR;
	case LOCKMETER_R_ACQUIRED ... LOCKMETER_R_INSTANCES:
	case LOCKMETER_R_ALERTS:
	case LOCKMETER_R_ALERTS_DROPPED:
		return FZ_UINT;
	case LOCKMETER_R_HOLD_EVIDENCE:
	case LOCKMETER_R_WAIT_EVIDENCE:
	case LOCKMETER_R_HOLD_HIST:
	case LOCKMETER_R_WAIT_HIST:
		return FZ_NEST;
	default:
		return 0;
	}
}

static enum fz_kind fz_hist_kind(int type)
{
	return type == LOCKMETER_HI_COUNT ? FZ_UINT : 0;
}

static enum fz_kind fz_watch_kind(int type)
{
	switch (type) {
	case LOCKMETER_WA_TYPE:
		return FZ_U32;
	case LOCKMETER_WA_HOLD_NS:
	case LOCKMETER_WA_WAIT_NS:
		return FZ_UINT;
	default:
		return 0;
	}
}

static enum fz_kind fz_held_kind(int type)
{
	switch (type) {
	case LOCKMETER_H_TYPE:
	case LOCKMETER_H_CLASS:
	case LOCKMETER_H_PID:
	case LOCKMETER_H_CPU:
		return FZ_U32;
	case LOCKMETER_H_LOCK:
	case LOCKMETER_H_SITE:
	case LOCKMETER_H_COMM:
	case LOCKMETER_H_FRAME:
		return FZ_STR;
	case LOCKMETER_H_HELD_NS:
	case LOCKMETER_H_FRAME_ADDR:
		return FZ_UINT;
	case LOCKMETER_H_WAITER:
		return FZ_NEST;
	default:
		return 0;
	}
}

static enum fz_kind fz_waiter_kind(int type)
{
	switch (type) {
	case LOCKMETER_W_PID:
	case LOCKMETER_W_TYPE:
		return FZ_U32;
	case LOCKMETER_W_COMM:
	case LOCKMETER_W_SITE:
		return FZ_STR;
	case LOCKMETER_W_WAITED_NS:
		return FZ_UINT;
	default:
		return 0;
	}
}

static enum fz_kind fz_ev_kind(int type)
{
	switch (type) {
	case LOCKMETER_E_PID:
	case LOCKMETER_E_CONTEXT:
	case LOCKMETER_E_CPU:
	case LOCKMETER_E_OWNER_PID:
		return FZ_U32;
	case LOCKMETER_E_COMM:
	case LOCKMETER_E_OWNER_COMM:
	case LOCKMETER_E_FRAME:
		return FZ_STR;
	case LOCKMETER_E_BLOCKED_FRAME:
		return FZ_STR;
	case LOCKMETER_E_TIME:
	case LOCKMETER_E_FRAME_ADDR:
	case LOCKMETER_E_BLOCKED_NS:
	case LOCKMETER_E_BLOCKED_FRAME_ADDR:
		return FZ_UINT;
	default:
		return 0;
	}
}

/* One reply attribute has the size and form of its kind: 0, or -1. */
static int fz_attr_ok(const struct nlattr *a, enum fz_kind kind)
{
	int len = fz_plen(a);

	switch (kind) {
	case FZ_U32:
		return len == 4 ? 0 : -1;
	case FZ_UINT:
		return len == 4 || len == 8 ? 0 : -1;
	case FZ_STR:
		return len > 0 && !memchr(fz_payload(a), '\0', len - 1) &&
		       ((const char *)fz_payload(a))[len - 1] == '\0' ? 0 : -1;
	default:
		return -1;
	}
}

/*
 * A nest whose attributes, at most @max, are of the kinds @kind gives
 * them; nests within it are checked by @sub.  0, or -1.
 */
static int fz_nest_ok(const struct nlattr *nest, int max, enum fz_kind (*kind)(int),
		      int (*sub)(const struct nlattr *a))
{
	const struct nlattr *e = fz_payload(nest);
	int elen = fz_plen(nest);

	if (fz_attrs(e, elen, NULL, max, true))
		return -1;
	for (; elen >= NLA_HDRLEN; elen -= NLA_ALIGN(e->nla_len),
	     e = (const struct nlattr *)((const char *)e + NLA_ALIGN(e->nla_len))) {
		enum fz_kind k = kind(e->nla_type & NLA_TYPE_MASK);

		if (!k || (k == FZ_NEST ? !sub || sub(e) : fz_attr_ok(e, k)))
			return -1;
	}
	return 0;
}

/* A row's nests: evidence and histograms. */
static int fz_row_sub(const struct nlattr *a)
{
	switch (a->nla_type & NLA_TYPE_MASK) {
	case LOCKMETER_R_HOLD_EVIDENCE:
	case LOCKMETER_R_WAIT_EVIDENCE:
		return fz_nest_ok(a, LOCKMETER_E_MAX, fz_ev_kind, NULL);
	default:
		return fz_nest_ok(a, LOCKMETER_HI_MAX, fz_hist_kind, NULL);
	}
}

/* A held lock's nests: its waiters. */
static int fz_held_sub(const struct nlattr *a)
{
	return fz_nest_ok(a, LOCKMETER_W_MAX, fz_waiter_kind, NULL);
}

/* The attributes of a lockmeter reply message: NULL, or what is wrong. */
static const char *fz_check_family_msg(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	const struct nlattr *a;
	int len;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return "lockmeter message shorter than its headers";
	if (g->cmd != LOCKMETER_CMD_STATUS_GET && g->cmd != LOCKMETER_CMD_STATS_GET &&
	    g->cmd != LOCKMETER_CMD_HELD_GET)
		return "lockmeter reply with an unknown command";
	a = (const struct nlattr *)(g + 1);
	len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	if (fz_attrs(a, len, NULL, LOCKMETER_A_MAX, true))
		return "attributes do not parse exactly";
	for (; len >= NLA_HDRLEN; len -= NLA_ALIGN(a->nla_len),
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len))) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (!type || !fz_top_kind[type])
			return "attribute of a type the spec does not have";
		if (fz_top_kind[type] != FZ_NEST) {
			if (fz_attr_ok(a, fz_top_kind[type]))
				return "attribute of the wrong size";
			continue;
		}
		if (type == LOCKMETER_A_ROW &&
		    fz_nest_ok(a, LOCKMETER_R_MAX, fz_row_kind, fz_row_sub))
			return "row attribute of a wrong type or size";
		if (type == LOCKMETER_A_HELD &&
		    fz_nest_ok(a, LOCKMETER_H_MAX, fz_held_kind, fz_held_sub))
			return "held attribute of a wrong type or size";
		if (type == LOCKMETER_A_WATCH &&
		    fz_nest_ok(a, LOCKMETER_WA_MAX, fz_watch_kind, NULL))
			return "watch attribute of a wrong type or size";
	}
	return NULL;
}

/* An NLMSG_ERROR message: NULL, or what is wrong with it. */
static const char *fz_check_error_msg(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	unsigned int off = sizeof(*e);
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return "error message shorter than struct nlmsgerr";
	if (e->error > 0 || e->error < -4095)
		return "error out of range";
	/* the echoed request is padded to NLMSG_ALIGNTO, the TLVs follow */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off = NLMSG_ALIGN(off + e->msg.nlmsg_len - NLMSG_HDRLEN);
	if (off > nlh->nlmsg_len - NLMSG_HDRLEN)
		return "error message shorter than the request it echoes";
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	if (fz_attrs((const struct nlattr *)((const char *)e + off),
		     nlh->nlmsg_len - NLMSG_HDRLEN - off, tb, NLMSGERR_ATTR_MAX, false))
		return "extended ACK attributes do not parse";
	if (tb[NLMSGERR_ATTR_MSG] && fz_attr_ok(tb[NLMSGERR_ATTR_MSG], FZ_STR))
		return "extended ACK message not a string";
	if (tb[NLMSGERR_ATTR_OFFS] &&
	    (fz_attr_ok(tb[NLMSGERR_ATTR_OFFS], FZ_U32) ||
	     *(const __u32 *)fz_payload(tb[NLMSGERR_ATTR_OFFS]) >= e->msg.nlmsg_len))
		return "extended ACK offset outside the request";
	return NULL;
}

/* Status of the family, from one request. */
struct fz_status {
	uint32_t state;
	uint64_t resets;
};

static uint64_t fz_uint(const struct nlattr *a)
{
	uint64_t v = 0;

	if (fz_plen(a) == 8)
		memcpy(&v, fz_payload(a), 8);
	else if (fz_plen(a) == 4)
		v = *(const __u32 *)fz_payload(a);
	return v;
}

/* A status reply: 0 and @st filled, or -1 when it lacks what it must have. */
static int fz_parse_status(const struct nlmsghdr *nlh, struct fz_status *st)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	const struct nlattr *tb[LOCKMETER_A_MAX + 1];

	if (fz_check_family_msg(nlh) ||
	    fz_attrs((const struct nlattr *)(g + 1), nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN,
		     tb, LOCKMETER_A_MAX, true) ||
	    !tb[LOCKMETER_A_STATE] || !tb[LOCKMETER_A_RESETS] || !tb[LOCKMETER_A_VERSION])
		return -1;
	st->state = *(const __u32 *)fz_payload(tb[LOCKMETER_A_STATE]);
	st->resets = fz_uint(tb[LOCKMETER_A_RESETS]);
	return 0;
}

/* The id of the family, 0 when there is none. */
static uint16_t fz_family(int fd, char *buf)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	unsigned int len;
	int n;

	len = fz_request(buf, GENL_ID_CTRL, NLM_F_REQUEST, 1, CTRL_CMD_GETFAMILY, 2,
			 CTRL_ATTR_FAMILY_NAME, LOCKMETER_FAMILY_NAME,
			 sizeof(LOCKMETER_FAMILY_NAME));
	if (fz_send(fd, buf, len))
		return 0;
	n = recv(fd, buf, FZ_RCV_BUF, 0);
	if (n < (int)(NLMSG_HDRLEN + GENL_HDRLEN) || !NLMSG_OK(nlh, n) ||
	    nlh->nlmsg_type != GENL_ID_CTRL)
		return 0;
	fz_attrs((const struct nlattr *)(buf + NLMSG_HDRLEN + GENL_HDRLEN),
		 nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, tb, CTRL_ATTR_MAX, false);
	if (!tb[CTRL_ATTR_FAMILY_ID] || fz_plen(tb[CTRL_ATTR_FAMILY_ID]) != 2)
		return 0;
	return *(const __u16 *)fz_payload(tb[CTRL_ATTR_FAMILY_ID]);
}

/* ---- netlink: the filter ---- */

/*
 * Could the netlink core, parsing @buf as it does, hand a control request
 * with a valid operation to the family?  Walks every message it would
 * parse (nlmsg_len shorter than the buffer leaves more), and in each of
 * the family with command CONTROL every attribute it could see.  An
 * attribute of type CONTROL whose first four payload bytes (read past a
 * short nla_len too) are 1..3 makes it a yes.  Errs on the side of yes.
 */
static bool fz_may_control(const char *buf, unsigned int len, uint16_t family)
{
	while (len >= NLMSG_HDRLEN) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		unsigned int mlen = nlh->nlmsg_len;

		if (mlen < NLMSG_HDRLEN || mlen > len)
			return false;
		if (nlh->nlmsg_type == family && mlen >= NLMSG_HDRLEN + GENL_HDRLEN &&
		    ((const struct genlmsghdr *)NLMSG_DATA(nlh))->cmd == LOCKMETER_CMD_CONTROL) {
			const char *p = buf + NLMSG_HDRLEN + GENL_HDRLEN;
			int rem = mlen - NLMSG_HDRLEN - GENL_HDRLEN;

			while (rem >= NLA_HDRLEN) {
				const struct nlattr *a = (const struct nlattr *)p;
				__u32 v = 0;

				if ((a->nla_type & NLA_TYPE_MASK) == LOCKMETER_A_CONTROL &&
				    p + NLA_HDRLEN + 4 <= buf + len) {
					memcpy(&v, p + NLA_HDRLEN, 4);
					if (v >= LOCKMETER_CONTROL_ON && v <= LOCKMETER_CONTROL_RELEASE)
						return true;
				}
				if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
					break;
				rem -= NLA_ALIGN(a->nla_len);
				p += NLA_ALIGN(a->nla_len);
			}
		}
		mlen = NLMSG_ALIGN(mlen);
		if (mlen > len)
			break;
		buf += mlen;
		len -= mlen;
	}
	return false;
}

/* ---- netlink: drawing a message ---- */

/* One attribute of a random kind at *p, within @end; nested to @depth. */
static void fz_draw_attr(struct fz_rng *r, char **p, char *end, int depth)
{
	static const uint16_t flags[] = { 0, 0, 0, NLA_F_NESTED, NLA_F_NET_BYTEORDER,
					  NLA_F_NESTED | NLA_F_NET_BYTEORDER };
	static const uint16_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 64 };
	struct nlattr *a = (struct nlattr *)*p;
	unsigned int room = end - *p, len, type;

	if (room < NLA_HDRLEN)
		return;
	switch (fz_below(r, 4)) {
	case 0:		/* a type the family knows */
		type = 1 + fz_below(r, LOCKMETER_A_MAX);
		break;
	case 1:		/* unknown, or 0 */
		type = fz_pct(r, 20) ? 0 : LOCKMETER_A_MAX + 1 + fz_below(r, 0x3fff - LOCKMETER_A_MAX);
		break;
	case 2:		/* the request attributes */
		type = fz_pct(r, 50) ? LOCKMETER_A_CPU : LOCKMETER_A_CONTROL;
		break;
	default:	/* a row attribute type, where none belongs */
		type = 1 + fz_below(r, LOCKMETER_R_MAX);
		break;
	}
	type |= flags[fz_below(r, ARRAY_SIZE(flags))];
	len = sizes[fz_below(r, ARRAY_SIZE(sizes))];
	if (fz_pct(r, 10))
		len = fz_below(r, 1024);
	if (NLA_HDRLEN + len > room)
		len = room - NLA_HDRLEN;
	a->nla_type = type;
	if (depth < 4 && len >= NLA_HDRLEN && fz_pct(r, 25)) {
		/* garbage nesting: attributes inside, maybe more nests */
		char *q = *p + NLA_HDRLEN, *qend = q + len;

		while (q < qend && fz_pct(r, 80))
			fz_draw_attr(r, &q, qend, depth + 1);
		if (q < qend)
			fz_random_bytes(r, q, qend - q);
	} else if (len == 4 && fz_pct(r, 50)) {
		/* small values: CPU numbers, control operations 0 and >3 */
		__u32 v = fz_below(r, 8);

		memcpy(*p + NLA_HDRLEN, &v, 4);
	} else {
		fz_random_bytes(r, *p + NLA_HDRLEN, len);
	}
	a->nla_len = NLA_HDRLEN + len;
	switch (fz_below(r, 20)) {
	case 0:		/* nla_len smaller than a header */
		a->nla_len = fz_below(r, NLA_HDRLEN);
		break;
	case 1:		/* nla_len past the end */
		a->nla_len = NLA_HDRLEN + len + 1 + fz_below(r, 4096);
		break;
	case 2:		/* nla_len anything */
		a->nla_len = fz_next(r) >> 48;
		break;
	}
	*p += NLA_HDRLEN + NLA_ALIGN(len) < room ? NLA_HDRLEN + NLA_ALIGN(len) : room;
}

/*
 * A control request a step or two from a valid one: the operation 0, 4 or
 * more, or a valid one (which the filter then throws away), in an
 * attribute of the wrong size or with flags on its type, next to other
 * attributes, with bytes after it, a wrong version or reserved field, a
 * dump flag, a short nlmsg_len.
 */
static unsigned int fz_draw_control(struct fz_rng *r, char *buf, uint16_t family,
				    uint32_t seq)
{
	static const uint16_t sizes[] = { 0, 1, 2, 3, 5, 6, 7, 8, 16 };
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *a = (struct nlattr *)(g + 1);
	char val[16], *p;
	uint16_t size = 4;
	unsigned int len, n;
	__u32 v;

	if (fz_below(r, 5))
		v = LOCKMETER_CONTROL_ON + fz_below(r, 4);
	else
		v = fz_pct(r, 50) ? 0 : LOCKMETER_CONTROL_RELEASE + 1 + (fz_next(r) >> 40);
	fz_random_bytes(r, val, sizeof(val));
	memcpy(val, &v, 4);
	if (fz_pct(r, 30))
		size = sizes[fz_below(r, ARRAY_SIZE(sizes))];
	len = fz_request(buf, family, NLM_F_REQUEST | (fz_pct(r, 50) ? NLM_F_ACK : 0), seq,
			 LOCKMETER_CMD_CONTROL, LOCKMETER_FAMILY_VERSION,
			 LOCKMETER_A_CONTROL, val, size);
	p = buf + len;
	for (n = 1 + fz_below(r, 2); n; n--) {
		switch (fz_below(r, 7)) {
		case 0:
			a->nla_type |= fz_pct(r, 50) ? NLA_F_NESTED : NLA_F_NET_BYTEORDER;
			break;
		case 1:		/* another attribute after it */
			fz_draw_attr(r, &p, buf + 512, 0);
			break;
		case 2:		/* bytes after the attributes */
			size = 1 + fz_below(r, 7);
			fz_random_bytes(r, p, size);
			p += size;
			break;
		case 3:
			g->version = fz_next(r) >> 56;
			break;
		case 4:
			g->reserved = 1 + fz_below(r, 0xffff);
			break;
		case 5:
			nlh->nlmsg_flags |= NLM_F_DUMP;
			break;
		default:	/* a second CONTROL attribute */
			v = fz_below(r, 8);
			fz_put_attr(&p, LOCKMETER_A_CONTROL, &v, 4);
			break;
		}
	}
	nlh->nlmsg_len = p - buf;
	if (fz_pct(r, 10))
		nlh->nlmsg_len -= 1 + fz_below(r, 4);
	return p - buf;
}

/*
 * A random message for @family with sequence number @seq in @buf; returns
 * the number of bytes to send (which need not be its nlmsg_len).
 */
static unsigned int fz_draw(struct fz_rng *r, char *buf, uint16_t family, uint32_t seq)
{
	static const uint16_t flag_bits[] = { NLM_F_MULTI, NLM_F_ECHO, NLM_F_DUMP_INTR,
					      NLM_F_DUMP_FILTERED, NLM_F_ROOT, NLM_F_MATCH,
					      NLM_F_ATOMIC, NLM_F_REPLACE, NLM_F_EXCL,
					      NLM_F_CREATE, NLM_F_APPEND, 0x8000 };
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	unsigned int size, len, i;
	char *p, *end;

	if (fz_pct(r, 6))
		return fz_draw_control(r, buf, family, seq);
	if (fz_pct(r, 4)) {		/* noise */
		len = fz_below(r, 512);
		fz_random_bytes(r, buf, len);
		if (len >= NLMSG_HDRLEN) {
			nlh->nlmsg_type = family;
			nlh->nlmsg_seq = seq;
		}
		return len;
	}
	size = fz_pct(r, 5) ? FZ_MSG_MAX : 512;
	memset(buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_type = family;
	if (fz_pct(r, 5))		/* a netlink control type */
		nlh->nlmsg_type = fz_below(r, NLMSG_MIN_TYPE);
	else if (fz_pct(r, 3))		/* no such family */
		nlh->nlmsg_type = 0x1000 + fz_below(r, 0xefff);
	nlh->nlmsg_flags = NLM_F_REQUEST;
	if (fz_pct(r, 8))
		nlh->nlmsg_flags = 0;
	if (fz_pct(r, 50))
		nlh->nlmsg_flags |= NLM_F_ACK;
	if (fz_pct(r, 35))
		nlh->nlmsg_flags |= NLM_F_DUMP;
	for (i = fz_below(r, 3); i; i--)
		if (fz_pct(r, 30))
			nlh->nlmsg_flags |= flag_bits[fz_below(r, ARRAY_SIZE(flag_bits))];
	if (fz_pct(r, 5))
		nlh->nlmsg_pid = fz_next(r);
	g->cmd = fz_below(r, LOCKMETER_CMD_MAX + 3);
	if (fz_pct(r, 10))
		g->cmd = fz_next(r) >> 56;
	g->version = fz_pct(r, 80) ? LOCKMETER_FAMILY_VERSION : fz_next(r) >> 56;
	if (fz_pct(r, 10))
		g->reserved = fz_next(r) >> 48;

	p = (char *)(g + 1);
	end = buf + size;
	for (i = fz_below(r, size == FZ_MSG_MAX ? 400 : 6); i && p < end; i--)
		fz_draw_attr(r, &p, end, 0);
	len = p - buf;
	nlh->nlmsg_len = len;
	switch (fz_below(r, 20)) {
	case 0:		/* truncated inside the headers */
		len = NLMSG_HDRLEN + fz_below(r, GENL_HDRLEN);
		nlh->nlmsg_len = len;
		break;
	case 1:		/* truncated: fewer bytes than nlmsg_len */
		if (len > NLMSG_HDRLEN)
			len -= 1 + fz_below(r, len - NLMSG_HDRLEN);
		break;
	case 2:		/* nlmsg_len short: the rest is read as more messages */
		nlh->nlmsg_len = NLMSG_HDRLEN + fz_below(r, len - NLMSG_HDRLEN + 1);
		break;
	case 3:		/* nlmsg_len smaller than a header */
		nlh->nlmsg_len = fz_below(r, NLMSG_HDRLEN);
		break;
	case 4:		/* nlmsg_len anything */
		nlh->nlmsg_len = fz_next(r);
		break;
	}
	return len;
}

/* Whether the core must answer the message at @buf (@len bytes sent). */
static bool fz_must_answer(const char *buf, unsigned int len)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
		return false;	/* dropped with the rest of the skb */
	if (nlh->nlmsg_flags & NLM_F_ACK)
		return true;
	return (nlh->nlmsg_flags & NLM_F_REQUEST) && nlh->nlmsg_type >= NLMSG_MIN_TYPE;
}

/* ---- netlink: the run ---- */

struct fz_wait {
	uint32_t seq, sentinel;
	bool answered, in_dump, dump_done, sentinel_seen;
	unsigned int dump_messages;
	struct fz_status status;	/* from the sentinel, checked there */
};

/* Check and account the replies in one recv() buffer. */
static void fz_replies(struct fz_result *res, uint16_t family, char *buf, int n,
		       struct fz_wait *w)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

	for (; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
		const char *bad = NULL;
		bool mine = nlh->nlmsg_seq == w->seq;

		res->replies++;
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			bad = fz_check_error_msg(nlh);
			if (!bad && mine) {
				w->answered = true;
				w->dump_done = true;	/* a dump that failed ends here */
				if (((struct nlmsgerr *)NLMSG_DATA(nlh))->error)
					res->errors++;
				else
					res->acks++;
			}
		} else if (nlh->nlmsg_type == NLMSG_DONE) {
			if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(int))
				bad = "NLMSG_DONE without its error";
			else if (*(int *)NLMSG_DATA(nlh) > 0)
				bad = "NLMSG_DONE with a positive error";
			if (!bad && mine) {
				w->answered = w->dump_done = true;
				res->dumps++;
			}
		} else if (nlh->nlmsg_type == family) {
			bad = fz_check_family_msg(nlh);
			if (!bad && nlh->nlmsg_seq == w->sentinel) {
				if (fz_parse_status(nlh, &w->status))
					bad = "status reply without state, resets or version";
				w->sentinel_seen = true;
			} else if (!bad && mine) {
				if (!w->answered)
					res->data++;
				w->answered = true;
				/*
				 * Stats come from a dump only; genlmsg_iput()
				 * does not mark its messages NLM_F_MULTI.
				 */
				if (((struct genlmsghdr *)NLMSG_DATA(nlh))->cmd ==
				    LOCKMETER_CMD_STATS_GET) {
					w->in_dump = true;
					if (++w->dump_messages > FZ_DUMP_MAX)
						bad = "a dump that does not end";
				}
			}
		} else {
			bad = "reply of a type neither error, done nor lockmeter";
		}
		if (bad)
			fz_fail(res, "%s (reply type %u, len %u, seq %#x, flags %#x)", bad,
				nlh->nlmsg_type, nlh->nlmsg_len, nlh->nlmsg_seq,
				nlh->nlmsg_flags);
	}
	if (n > 0)
		fz_fail(res, "%d bytes of a truncated reply", n);
}

/*
 * Send one fuzz message and its sentinel, read to the end of the replies.
 * Returns -1 when the socket failed (no point going on), else 0.
 */
static int fz_one(struct fz_result *res, int fd, uint16_t family, unsigned int i,
		  const char *msg, unsigned int len, char *rbuf, char *sbuf)
{
	struct fz_wait w = { .seq = FZ_SEQ_BASE + 2 * i, .sentinel = FZ_SEQ_BASE + 2 * i + 1 };
	unsigned int before = res->failures, slen;
	bool must = fz_must_answer(msg, len), refused;
	int ret, n;

	res->sent++;
	/* refused by the core (a zero-length send is ENODATA): an error too */
	refused = fz_send(fd, msg, len) != 0;
	res->refused += refused;
	slen = fz_request(sbuf, family, NLM_F_REQUEST, w.sentinel,
			  LOCKMETER_CMD_STATUS_GET, LOCKMETER_FAMILY_VERSION, 0, NULL, 0);
	ret = fz_send(fd, sbuf, slen);
	while (!ret && (!w.sentinel_seen || (w.in_dump && !w.dump_done))) {
		n = recv(fd, rbuf, FZ_RCV_BUF, 0);
		if (n < 0) {
			ret = -errno;
			break;
		}
		fz_replies(res, family, rbuf, n, &w);
	}
	if (ret)
		fz_fail(res, "%s: %s%s", w.sentinel_seen ? "recv during a dump" : "no status reply",
			strerror(-ret), ret == -EAGAIN ? " (timeout)" : "");
	else if (must && !refused && !w.answered)
		fz_fail(res, "a message the core must answer got no answer");
	else if (!w.answered && !refused)
		res->silent++;
	fz_keep_input(res, i, msg, len, before);
	return ret ? -1 : 0;
}

/* @count fuzz messages from @seed on a new socket, as the caller's user. */
static void fz_netlink(struct fz_result *res, uint64_t seed, unsigned int count)
{
	char *msg = malloc(FZ_MSG_MAX), *rbuf = malloc(FZ_RCV_BUF), sbuf[64];
	struct fz_rng r;
	uint16_t family;
	unsigned int i, len;
	int fd;

	fz_seed(&r, seed);
	fd = fz_nl_open();
	if (!msg || !rbuf || fd < 0) {
		fz_fail(res, "setup: %s", fd < 0 ? strerror(-fd) : "out of memory");
		goto out;
	}
	family = fz_family(fd, rbuf);
	if (!family) {
		fz_fail(res, "the family %s does not resolve", LOCKMETER_FAMILY_NAME);
		goto out;
	}
	for (i = 0; i < count && res->failures < 20; i++) {
		len = fz_draw(&r, msg, family, FZ_SEQ_BASE + 2 * i);
		while (fz_may_control(msg, len, family)) {
			res->filtered++;
			len = fz_draw(&r, msg, family, FZ_SEQ_BASE + 2 * i);
		}
		if (fz_one(res, fd, family, i, msg, len, rbuf, sbuf))
			break;
	}
out:
	if (fd >= 0)
		close(fd);
	free(rbuf);
	free(msg);
}

/*
 * A new socket and the family's id, with @buf (FZ_RCV_BUF, may be NULL)
 * as scratch: the socket, or -errno (-EPROTO: no family).
 */
static int fz_open_family(char *buf, uint16_t *family)
{
	int fd;

	if (!buf)
		return -ENOMEM;
	fd = fz_nl_open();
	if (fd < 0)
		return fd;
	*family = fz_family(fd, buf);
	if (!*family) {
		close(fd);
		return -EPROTO;
	}
	return fd;
}

/* A status request on a new socket: 0 and @st, or -errno / -EPROTO. */
static int fz_status_get(struct fz_status *st)
{
	char *buf = malloc(FZ_RCV_BUF);
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	uint16_t family;
	int fd, n, ret;

	fd = fz_open_family(buf, &family);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	n = fz_request(buf, family, NLM_F_REQUEST, 7, LOCKMETER_CMD_STATUS_GET,
		       LOCKMETER_FAMILY_VERSION, 0, NULL, 0);
	ret = fz_send(fd, buf, n);
	if (ret)
		goto out;
	n = recv(fd, buf, FZ_RCV_BUF, 0);
	if (n < 0)
		ret = -errno;
	else if (!NLMSG_OK(nlh, n) || nlh->nlmsg_type != family || fz_parse_status(nlh, st))
		ret = -EPROTO;
	else
		ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/*
 * A whole stats dump, every message checked: the number of rows, or
 * -errno from the dump's error, or -EPROTO with @res saying why.
 */
static int fz_dump(struct fz_result *res)
{
	char *buf = malloc(FZ_RCV_BUF);
	struct fz_wait w = { .seq = 9, .sentinel = 10 };
	unsigned int rows = 0;
	uint16_t family;
	int fd, n, ret;

	fd = fz_open_family(buf, &family);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	n = fz_request(buf, family, NLM_F_REQUEST | NLM_F_DUMP, w.seq,
		       LOCKMETER_CMD_STATS_GET, LOCKMETER_FAMILY_VERSION, 0, NULL, 0);
	ret = fz_send(fd, buf, n);
	while (!ret && !w.dump_done) {
		n = recv(fd, buf, FZ_RCV_BUF, 0);
		if (n < 0) {
			ret = -errno;
			break;
		}
		w.dump_messages = 0;
		fz_replies(res, family, buf, n, &w);
		rows += w.dump_messages;
		if (res->failures)
			ret = -EPROTO;
	}
	if (!ret)
		ret = res->errors ? -EIO : (int)rows;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/* ---- /proc/lockmeter ---- */

/* Exactly a control word, with or without one newline. */
static bool fz_proc_valid(const char *buf, unsigned int len)
{
	static const char * const words[] = { "on", "off", "reset", "0" };
	unsigned int i;

	if (len && buf[len - 1] == '\n')
		len--;
	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strlen(words[i]) == len && !memcmp(buf, words[i], len))
			return true;
	return false;
}

/* Random bytes, or a control word with a small change; 1..65536 bytes. */
static unsigned int fz_proc_draw(struct fz_rng *r, char *buf)
{
	static const char * const words[] = { "on", "off", "reset", "0" };
	static const char * const bits[] = { "\n", " ", "\t", "\r\n", "X", "\0", "on",
					     "\n\n", "0", "=1", "\xff" };
	const char *w = words[fz_below(r, ARRAY_SIZE(words))];
	unsigned int len, wl = strlen(w), k;

	switch (fz_below(r, 10)) {
	case 0:
	case 1:
	case 2:		/* short noise, around the size of the kernel's buffer */
		len = 1 + fz_below(r, 16);
		fz_random_bytes(r, buf, len);
		return len;
	case 3:		/* long noise */
		len = 1 + fz_below(r, fz_pct(r, 10) ? 65536 : 4096);
		fz_random_bytes(r, buf, len);
		return len;
	case 4:		/* a prefix of a word: "o", "of", "rese" */
		len = 1 + fz_below(r, wl);
		memcpy(buf, w, len);
		if (len == wl)
			buf[len++] = 'x';
		return len;
	case 5:		/* a word in other case */
		memcpy(buf, w, wl);
		buf[fz_below(r, wl)] ^= 0x20;
		len = wl;
		if (fz_pct(r, 50))
			buf[len++] = '\n';
		return len;
	default:	/* a word with something before, inside or after it */
		k = fz_below(r, ARRAY_SIZE(bits));
		len = bits[k][0] ? strlen(bits[k]) : 1;
		switch (fz_below(r, 3)) {
		case 0:
			memcpy(buf, bits[k], len);
			memcpy(buf + len, w, wl);
			break;
		case 1:
			memcpy(buf, w, wl);
			memcpy(buf + wl, bits[k], len);
			break;
		default:
			memcpy(buf, w, 1);
			memcpy(buf + 1, bits[k], len);
			memcpy(buf + 1 + len, w + 1, wl - 1);
			break;
		}
		len += wl;
		if (fz_pct(r, 30))
			buf[len++] = '\n';
		return len;
	}
}

/*
 * @count writes through @fd; each must fail with @want.  @filter leaves out
 * the exact control words (root: they would work).
 */
static void fz_proc(struct fz_result *res, int fd, uint64_t seed, unsigned int count,
		    int want, bool filter)
{
	char *buf = malloc(65536 + 16);
	unsigned int i, len, before;
	struct fz_rng r;
	ssize_t n;

	fz_seed(&r, seed);
	if (!buf) {
		fz_fail(res, "out of memory");
		return;
	}
	for (i = 0; i < count && res->failures < 20; i++) {
		len = fz_proc_draw(&r, buf);
		while (filter && fz_proc_valid(buf, len)) {
			res->filtered++;
			len = fz_proc_draw(&r, buf);
		}
		n = write(fd, buf, len);
		res->sent++;
		if (n < 0 && errno == want) {
			res->errors++;
			continue;
		}
		before = res->failures;
		if (n < 0)
			fz_fail(res, "write: %s, not %s", strerror(errno), strerror(want));
		else
			fz_fail(res, "write of %u bytes returned %zd, not %s", len, n,
				strerror(want));
		fz_keep_input(res, i, buf, len, before);
	}
	free(buf);
}

/* ---- the tests ---- */

FIXTURE(fz)
{
	struct fz_status before;
	struct fz_result *res;
	uint64_t seed;
};

FIXTURE_SETUP(fz)
{
	int ret;

	if (access(LM_PROC, F_OK))
		SKIP(return, "%s missing: kernel without CONFIG_LOCKMETER", LM_PROC);
	self->res = mmap(NULL, sizeof(*self->res), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->res);
	memset(self->res, 0, sizeof(*self->res));
	self->seed = fz_seed_value();
	ret = fz_status_get(&self->before);
	ASSERT_EQ(0, ret) TH_LOG("status request before fuzzing: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(fz)
{
	int fd;

	if (self->res && self->res != MAP_FAILED)
		munmap(self->res, sizeof(*self->res));
	/* a fuzzed watch-set may have set alert thresholds: none after */
	fd = open(LM_PROC, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "watch off", 9) != 9)
			TH_LOG("clearing the alert thresholds: %s", strerror(errno));
		close(fd);
	}
}

/* Metering as before, a status request and a full dump answered well. */
static void fz_after(struct __test_metadata *_metadata, FIXTURE_DATA(fz) *self)
{
	struct fz_result dump = { };
	struct fz_status after;
	int ret;

	ret = fz_status_get(&after);
	ASSERT_EQ(0, ret) TH_LOG("status request after fuzzing: %s", strerror(-ret));
	EXPECT_EQ(self->before.state, after.state) TH_LOG("metering switched by fuzzing");
	EXPECT_EQ(self->before.resets, after.resets) TH_LOG("statistics reset by fuzzing");
	ret = fz_dump(&dump);
	EXPECT_LE(0, ret) TH_LOG("stats dump after fuzzing: %s %s", strerror(-ret), dump.why);
}

/* Run @fn as uid/gid nobody in a child; its result lands in self->res. */
#define FZ_AS_NOBODY(fn) do {						\
	pid_t pid = fork();						\
									\
	ASSERT_LE(0, pid);						\
	if (!pid) {							\
		if (setgid(NOBODY) || setuid(NOBODY)) {			\
			fz_fail(self->res, "setuid nobody: %s", strerror(errno)); \
			_exit(1);					\
		}							\
		fn;							\
		_exit(0);						\
	}								\
	ASSERT_EQ(0, lm_wait_child(pid)) TH_LOG("fuzzer child: %s", self->res->why); \
} while (0)

/* The premise: the filter catches valid control requests, wherever they are. */
TEST_F(fz, filter_catches_valid_control)
{
	char buf[256], *p;
	__u32 v;
	unsigned int len, first;
	uint16_t fam = 0x20;

	for (v = LOCKMETER_CONTROL_ON; v <= LOCKMETER_CONTROL_RELEASE; v++) {
		len = fz_request(buf, fam, NLM_F_REQUEST | NLM_F_ACK, 1, LOCKMETER_CMD_CONTROL,
				 LOCKMETER_FAMILY_VERSION, LOCKMETER_A_CONTROL, &v, 4);
		EXPECT_TRUE(fz_may_control(buf, len, fam)) TH_LOG("control %u", v);
		/* flags on the type, a length past the end: still caught */
		((struct nlattr *)(buf + NLMSG_HDRLEN + GENL_HDRLEN))->nla_type |= NLA_F_NESTED;
		((struct nlattr *)(buf + NLMSG_HDRLEN + GENL_HDRLEN))->nla_len = 200;
		EXPECT_TRUE(fz_may_control(buf, len, fam)) TH_LOG("control %u, flagged", v);
	}
	/* behind a first message whose nlmsg_len ends early */
	v = LOCKMETER_CONTROL_RESET;
	first = fz_request(buf, fam, NLM_F_REQUEST, 1, LOCKMETER_CMD_STATUS_GET,
			   LOCKMETER_FAMILY_VERSION, 0, NULL, 0);
	len = first + fz_request(buf + first, fam, NLM_F_REQUEST, 2, LOCKMETER_CMD_CONTROL,
				 LOCKMETER_FAMILY_VERSION, LOCKMETER_A_CONTROL, &v, 4);
	EXPECT_TRUE(fz_may_control(buf, len, fam));
	/* behind another attribute */
	p = buf + NLMSG_HDRLEN + GENL_HDRLEN;
	len = fz_request(buf, fam, NLM_F_REQUEST, 1, LOCKMETER_CMD_CONTROL,
			 LOCKMETER_FAMILY_VERSION, LOCKMETER_A_CPU, &v, 4);
	p += NLA_HDRLEN + 4;
	fz_put_attr(&p, LOCKMETER_A_CONTROL, &v, 4);
	((struct nlmsghdr *)buf)->nlmsg_len = len = p - buf;
	EXPECT_TRUE(fz_may_control(buf, len, fam));
	/* and lets through what cannot work */
	v = 0;
	len = fz_request(buf, fam, NLM_F_REQUEST, 1, LOCKMETER_CMD_CONTROL,
			 LOCKMETER_FAMILY_VERSION, LOCKMETER_A_CONTROL, &v, 4);
	EXPECT_FALSE(fz_may_control(buf, len, fam));
	v = LOCKMETER_CONTROL_ON;
	len = fz_request(buf, fam, NLM_F_REQUEST, 1, LOCKMETER_CMD_STATUS_GET,
			 LOCKMETER_FAMILY_VERSION, LOCKMETER_A_CONTROL, &v, 4);
	EXPECT_FALSE(fz_may_control(buf, len, fam));
	EXPECT_FALSE(fz_may_control(buf, len, fam + 1));

	EXPECT_TRUE(fz_proc_valid("on", 2));
	EXPECT_TRUE(fz_proc_valid("reset\n", 6));
	EXPECT_TRUE(fz_proc_valid("0", 1));
	EXPECT_FALSE(fz_proc_valid("on\n\n", 4));
	EXPECT_FALSE(fz_proc_valid("o", 1));
	EXPECT_FALSE(fz_proc_valid("reset ", 6));
	fz_after(_metadata, self);
}

TEST_F_TIMEOUT(fz, netlink_root, 280)
{
	fz_netlink(self->res, self->seed, FZ_NL_ROOT);
	fz_log_result(_metadata, "netlink as root", self->seed, self->res);
	EXPECT_EQ(0U, self->res->failures);
	EXPECT_EQ(FZ_NL_ROOT, self->res->sent);
	/* the generator reaches every kind of outcome */
	EXPECT_LT(0U, self->res->filtered);
	EXPECT_LT(0U, self->res->errors);
	EXPECT_LT(0U, self->res->acks);
	EXPECT_LT(0U, self->res->data);
	EXPECT_LT(0U, self->res->dumps);
	EXPECT_LT(0U, self->res->silent);
	fz_after(_metadata, self);
}

TEST_F_TIMEOUT(fz, netlink_nobody, 280)
{
	FZ_AS_NOBODY(fz_netlink(self->res, self->seed + 1, FZ_NL_NOBODY));
	fz_log_result(_metadata, "netlink as nobody", self->seed + 1, self->res);
	EXPECT_EQ(0U, self->res->failures);
	EXPECT_EQ(FZ_NL_NOBODY, self->res->sent);
	EXPECT_LT(0U, self->res->errors);
	EXPECT_LT(0U, self->res->data);
	fz_after(_metadata, self);
}

TEST_F_TIMEOUT(fz, proc_root, 120)
{
	int fd = open(LM_PROC, O_WRONLY | O_CLOEXEC);

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", LM_PROC, strerror(errno));
	fz_proc(self->res, fd, self->seed + 2, FZ_PROC_ROOT, EINVAL, true);
	close(fd);
	fz_log_result(_metadata, "/proc writes as root", self->seed + 2, self->res);
	EXPECT_EQ(0U, self->res->failures);
	EXPECT_EQ(FZ_PROC_ROOT, self->res->sent);
	EXPECT_LT(0U, self->res->filtered);
	fz_after(_metadata, self);
}

TEST_F_TIMEOUT(fz, proc_nobody, 120)
{
	int fd = open(LM_PROC, O_WRONLY | O_CLOEXEC);

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", LM_PROC, strerror(errno));
	/* the opener's capability counts: as for root, the exact words filtered */
	FZ_AS_NOBODY(fz_proc(self->res, fd, self->seed + 3, FZ_PROC_NOBODY, EINVAL, true));
	close(fd);
	fz_log_result(_metadata, "/proc writes as nobody", self->seed + 3, self->res);
	EXPECT_EQ(0U, self->res->failures);
	EXPECT_EQ(FZ_PROC_NOBODY, self->res->sent);
	fz_after(_metadata, self);
}

TEST_HARNESS_MAIN
