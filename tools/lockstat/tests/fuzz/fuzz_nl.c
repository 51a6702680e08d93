// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the netlink reply decoders of nl.c (included, as test_nl.c
 * does, to reach them) fed raw attribute buffers.  The first byte picks
 * the reply: a stats dump message (rows), a status reply, an error with
 * extended ACK attributes, or a held-get dump message (locks held now);
 * the rest is the payload after the generic netlink header (or, for the
 * error, after struct nlmsghdr).  A dump's rows may carry histograms of
 * the 4 buckets a status reply would have given first.  What parses is
 * rendered.
 */
#include "../../nl.c"

#include <stdlib.h>

#include "fuzz.h"
#include "view.h"

static void fuzz_reply(uint8_t cmd, const uint8_t *data, size_t size)
{
	struct lm_header h = { 0 };
	struct lm_snapshot s;
	struct lm_nl_req req = { 0 };
	struct nl_msg *msg;

	msg = nlmsg_alloc_size(size + 256);
	if (!msg || !genlmsg_put(msg, 0, 1, 0x20, 0, 0, cmd, LOCKMETER_FAMILY_VERSION) ||
	    nlmsg_append(msg, (void *)data, size, 1) < 0) {
		nlmsg_free(msg);
		return;
	}
	lm_snap_init(&s);
	if (cmd == LOCKMETER_CMD_STATS_GET) {
		/* the header a status reply gives first */
		static const uint64_t bounds[] = { 0, 85, 170, 341 };

		s.h.cpus = 2;
		s.h.metered_ns = 1000000;
		/* and its histogram bounds: the seeds' rows have 4 buckets */
		s.h.nr_buckets = ARRAY_SIZE(bounds);
		memcpy(s.h.bound, bounds, sizeof(bounds));
		lm_set(&s.h, LM_H_CPUS);
		lm_set(&s.h, LM_H_METERED_NS);
		req.arg = &s;
		lm_nl_dump_cb(msg, &req);
		s.h.rows = s.nr;
		lm_set(&s.h, LM_H_ROWS);
		if (!req.parse)
			fuzz_render(&s);
	} else {
		req.arg = &h;
		lm_nl_status_cb(msg, &req);
	}
	lm_snap_free(&s);
	nlmsg_free(msg);
}

/* a held-get message, twice (the list grows), then sorted and rendered both ways */
static void fuzz_held(const uint8_t *data, size_t size)
{
	struct lm_held_list l;
	struct lm_nl_req req = { 0 };
	struct nl_msg *msg;
	FILE *null;

	msg = nlmsg_alloc_size(size + 256);
	if (!msg || !genlmsg_put(msg, 0, 1, 0x20, 0, 0, LOCKMETER_CMD_HELD_GET,
				 LOCKMETER_FAMILY_VERSION) ||
	    nlmsg_append(msg, (void *)data, size, 1) < 0) {
		nlmsg_free(msg);
		return;
	}
	lm_held_init(&l);
	req.arg = &l;
	lm_nl_held_cb(msg, &req);
	lm_nl_held_cb(msg, &req);
	nlmsg_free(msg);
	null = fopen("/dev/null", "we");
	if (!req.parse && null) {
		lm_held_sort(&l);
		lm_held_print(null, &l, 1000, true);
		lm_held_json(null, &l, 1000, false);
	}
	if (null)
		fclose(null);
	lm_held_free(&l);
}

/* an NLMSG_ERROR as the kernel sends it: flags, then struct nlmsgerr and TLVs */
static void fuzz_error(const uint8_t *data, size_t size)
{
	struct lm_nl_req req = { 0 };
	struct nlmsghdr *nlh;
	uint16_t flags;

	if (size < sizeof(flags) + sizeof(struct nlmsgerr))
		return;
	memcpy(&flags, data, sizeof(flags));
	data += sizeof(flags);
	size -= sizeof(flags);
	nlh = calloc(1, NLMSG_HDRLEN + size);
	if (!nlh)
		return;
	nlh->nlmsg_len = NLMSG_HDRLEN + size;
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = flags;
	memcpy((char *)nlh + NLMSG_HDRLEN, data, size);
	lm_nl_err_cb(NULL, nlmsg_data(nlh), &req);
	free(nlh);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	fuzz_quiet();
	switch (data[0] % 4) {
	case 0:
		fuzz_reply(LOCKMETER_CMD_STATS_GET, data + 1, size - 1);
		break;
	case 1:
		fuzz_reply(LOCKMETER_CMD_STATUS_GET, data + 1, size - 1);
		break;
	case 2:
		fuzz_error(data + 1, size - 1);
		break;
	default:
		fuzz_held(data + 1, size - 1);
		break;
	}
	return 0;
}
