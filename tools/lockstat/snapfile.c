// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: save and load snapshot files.
 *
 *   lockstat snapshot version 2
 *   command: record
 *   system: Linux
 *   ...                          "key: value", see lockstat(8)
 *   rows: 329
 *   dropped: 0
 *   ...
 *                                an empty line
 *   # type acquired ... site     a legend; lines starting with # are skipped
 *   spin 5710 5706 4 0 0 ...     19 fields per row, as in /proc/lockmeter
 *   > hold pid=2231 comm=lmt_hold ctx=task cpu=1 time=5123456789 frames=2
 *   > hold frame lmt_hold_inner+0x1e/0x40 [test_lockmeter]
 *   > hold frame kthread+0xd2/0x100
 *
 *   > hold pid=2240 comm=lmt_sleeper ... frames=4 blocked_ns=49100000 blocked_frames=3
 *   > hold frame lmt_mutex_sleeper+0x23/0x70 [test_lockmeter]
 *   ...
 *   > blocked frame schedule_timeout+0x9e/0x170
 *
 * Lines starting with "> " carry the evidence of the row above them (new
 * in version 2: a version 1 reader would call them bad rows).  A head
 * line, "> KIND key=value...", KIND hold or wait, gives the task (pid,
 * comm, ctx, cpu, time, and owner_pid, owner_comm when known), the number
 * of frames that follow, and addrs=0x...,0x... (one per frame) when the
 * addresses were known; then one "> KIND frame TEXT" line per frame,
 * innermost first.  The hold evidence of a sleeping lock may add
 * blocked_ns=, blocked_frames=B and blocked_addrs= to its head line, and
 * B lines "> blocked frame TEXT" after its frames: the longest stretch of
 * the hold the holder spent blocked, and where (still version 2: a reader
 * that predates them skips the keys and the kind, as below).  Values and
 * frames are escaped: a byte below '!' (in
 * a frame, below ' '), from 0x7f, or a backslash is \xHH.  Unknown keys
 * and kinds are skipped, as unknown header keys are.
 *
 * The reader also takes version 1 files and a saved copy of
 * /proc/lockmeter ("lockmeter version 1" first line), neither of which
 * has evidence.  It refuses, naming the file and line, anything it cannot
 * vouch for: another version, a malformed header, row or evidence line, a
 * NUL byte, a last line without its newline, fewer or more rows than the
 * header says (a truncated file), fewer frames than a head line says.
 * Unknown header keys are skipped.
 *
 * A row whose lock is in a slab object is followed by "> class slab":
 * its name alone ("dentry+0x58") does not tell it from a static lock's
 * (still version 2: an older reader skips the kind, and reads the row as
 * a static lock's, as from /proc/lockmeter).
 *
 * Histograms (still version 2: an older reader skips the header key and
 * the kinds): a header line "hist_bounds: 0 85 170 ..." gives the lower
 * bound in ns of each bucket, strictly increasing from 0; after a row,
 * "> hold_hist C0 C1 ..." and "> wait_hist ..." give its counts, one per
 * bucket.  A count line without hist_bounds, with another number of
 * counts, or whose counts do not sum to the row's acquired (hold) or
 * spin (wait) is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lockstat.h"
#include "snapfile.h"

/* what is escaped: in values, the blank that ends them too */
#define LM_ESC_VALUE	" "
#define LM_ESC_FRAME	""

/* the evidence being read, of the last row */
struct lm_ev_reader {
	struct lm_body_hook hook;	/* first: the hook is the reader */
	bool evidence;			/* the format has evidence lines */
	struct {
		struct lm_evidence *ev;
		uint32_t frames;	/* what its head line says */
		unsigned long line;	/* of its head line */
	} k[LM_NR_EV];
	uint32_t blocked;		/* blocked_frames of the hold head line */
	unsigned long hist_line;	/* of the last row's first histogram line */
};

static int lm_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/* @s with its \xHH back as bytes, into @buf of @len: NULL, or why not */
static const char *lm_unesc(char *buf, size_t len, const char *s, bool blanks)
{
	size_t n = 0;
	int hi, lo;

	for (; *s; s++) {
		unsigned char c = *s;

		if (n + 1 >= len)
			return "too long";
		if (c == '\\') {
			hi = s[1] == 'x' ? lm_hex(s[2]) : -1;
			lo = hi >= 0 ? lm_hex(s[3]) : -1;
			if (lo < 0)
				return "a backslash that is not \\xHH";
			if (!hi && !lo)
				return "an escaped NUL byte";
			buf[n++] = (char)(hi << 4 | lo);
			s += 3;
			continue;
		}
		if (c < ' ' || c >= 0x7f || (c == ' ' && !blanks))
			return "a byte that should have been escaped";
		buf[n++] = c;
	}
	buf[n] = '\0';
	return NULL;
}

static int lm_ev_fail(struct lm_perr *e, unsigned long line, int kind, const char *why)
{
	lm_perr_set(e, line, "%s evidence: %s", lm_ev_names[kind], why);
	return LM_EXIT_CORRUPT;
}

static int lm_ev_nomem(struct lm_perr *e, unsigned long line)
{
	lm_perr_set(e, line, "out of memory");
	return LM_EXIT_ERR;
}

/* the keys of a head line; the first six are required */
enum lm_ev_key {
	LM_EK_PID,
	LM_EK_COMM,
	LM_EK_CTX,
	LM_EK_CPU,
	LM_EK_TIME,
	LM_EK_FRAMES,
	LM_EK_OWNER_PID,
	LM_EK_OWNER_COMM,
	LM_EK_ADDRS,
	LM_EK_BLOCKED_NS,
	LM_EK_BLOCKED_FRAMES,
	LM_EK_BLOCKED_ADDRS,
	LM_NR_EK
};

#define LM_EK_REQUIRED	((1U << LM_EK_OWNER_PID) - 1)

static const char *const lm_ev_keys[LM_NR_EK] = {
	[LM_EK_PID] = "pid",
	[LM_EK_COMM] = "comm",
	[LM_EK_CTX] = "ctx",
	[LM_EK_CPU] = "cpu",
	[LM_EK_TIME] = "time",
	[LM_EK_FRAMES] = "frames",
	[LM_EK_OWNER_PID] = "owner_pid",
	[LM_EK_OWNER_COMM] = "owner_comm",
	[LM_EK_ADDRS] = "addrs",
	[LM_EK_BLOCKED_NS] = "blocked_ns",
	[LM_EK_BLOCKED_FRAMES] = "blocked_frames",
	[LM_EK_BLOCKED_ADDRS] = "blocked_addrs",
};

/* a head line being read */
struct lm_ev_head {
	struct lm_evidence *ev;
	uint32_t seen;		/* 1 << enum lm_ev_key */
	uint32_t frames;
	uint32_t blocked;	/* blocked_frames */
	const char *addrs;	/* read once frames is known */
	const char *blocked_addrs;
	bool nomem;
};

/* addrs=0x1,0x2 into @addr: one per frame, @n frames */
static const char *lm_ev_addrs(uint64_t *addr, const char *val, uint32_t n)
{
	uint32_t i;
	size_t k;

	for (i = 0; i < n; i++) {
		if (strncmp(val, "0x", 2))
			return "an address is not 0x and hex digits";
		addr[i] = 0;
		for (k = 2; lm_hex(val[k]) >= 0; k++) {
			if (k == 18)
				return "an address has more than 16 hex digits";
			addr[i] = addr[i] << 4 | lm_hex(val[k]);
		}
		if (k == 2 || (val[k] && val[k] != ','))
			return "an address is not 0x and hex digits";
		if (val[k] == ',' && i + 1 == n)
			return "more addresses than frames";
		if (!val[k] && i + 1 < n)
			return "fewer addresses than frames";
		val += k + 1;
	}
	return NULL;
}

/* an escaped comm into the pool of @s */
static const char *lm_ev_comm(struct lm_snapshot *s, struct lm_ev_head *h, const char *val,
			      const char **out)
{
	char buf[LM_COMM_MAX];
	const char *why = lm_unesc(buf, sizeof(buf), val, false);

	if (why)
		return why;
	*out = lm_snap_strdup(s, buf);
	h->nomem = !*out;
	return *out ? NULL : "out of memory";
}

/* one key=value of a head line */
static const char *lm_ev_kv(struct lm_snapshot *s, struct lm_ev_head *h, char *tok)
{
	struct lm_evidence *ev = h->ev;
	char *val = strchr(tok, '=');
	uint64_t v = 0;
	int key, c;

	if (!val || val == tok)
		return "a field is not key=value";
	*val++ = '\0';
	for (key = 0; key < LM_NR_EK && strcmp(tok, lm_ev_keys[key]); key++)
		;
	if (key == LM_NR_EK)
		return NULL;	/* a key of a newer writer */
	if (h->seen & (1U << key))
		return "a key given twice";
	h->seen |= 1U << key;
	switch (key) {
	case LM_EK_COMM:
		return lm_ev_comm(s, h, val, &ev->comm);
	case LM_EK_OWNER_COMM:
		ev->present |= 1U << LM_EB_OWNER_COMM;
		return lm_ev_comm(s, h, val, &ev->owner_comm);
	case LM_EK_CTX:
		c = lm_context_parse(val);
		ev->context = c;
		return c < 0 ? "ctx is none of task, softirq, hardirq" : NULL;
	case LM_EK_ADDRS:
		h->addrs = val;
		return NULL;
	case LM_EK_BLOCKED_ADDRS:
		h->blocked_addrs = val;
		return NULL;
	}
	if (lm_parse_u64(val, &v) ||
	    (key != LM_EK_TIME && key != LM_EK_BLOCKED_NS && v > UINT32_MAX))
		return "a number out of range";
	switch (key) {
	case LM_EK_PID:
		ev->pid = v;
		break;
	case LM_EK_CPU:
		ev->cpu = v;
		break;
	case LM_EK_TIME:
		ev->time_ns = v;
		break;
	case LM_EK_OWNER_PID:
		ev->owner_pid = v;
		ev->present |= 1U << LM_EB_OWNER_PID;
		break;
	case LM_EK_FRAMES:
	case LM_EK_BLOCKED_FRAMES:
		if (v > LM_EV_FRAMES)
			return "more frames than a chain has";
		*(key == LM_EK_FRAMES ? &h->frames : &h->blocked) = v;
		break;
	case LM_EK_BLOCKED_NS:
		ev->blocked_ns = v;
		ev->present |= 1U << LM_EB_BLOCKED;
		break;
	}
	return NULL;
}

/* the blocked_* keys of a head line: NULL, or why they do not fit */
static const char *lm_ev_blocked(struct lm_ev_head *h, int kind)
{
	const uint32_t keys = 1U << LM_EK_BLOCKED_NS | 1U << LM_EK_BLOCKED_FRAMES |
			      1U << LM_EK_BLOCKED_ADDRS;
	const char *why;

	if (!(h->seen & keys))
		return NULL;
	if (kind != LM_EV_HOLD)
		return "blocked_* keys in wait evidence (hold evidence only)";
	if (!(h->seen & 1U << LM_EK_BLOCKED_NS) || !(h->seen & 1U << LM_EK_BLOCKED_FRAMES))
		return "blocked_ns and blocked_frames go together";
	if (!h->blocked_addrs)
		return NULL;
	if (!h->blocked)
		return "blocked_addrs without blocked frames";
	why = lm_ev_addrs(h->ev->blocked_addr, h->blocked_addrs, h->blocked);
	if (!why)
		h->ev->present |= 1U << LM_EB_BLOCKED_ADDRS;
	return why;
}

/* "> KIND pid=... frames=N": the head of a row's evidence of KIND */
static int lm_ev_head(struct lm_ev_reader *r, struct lm_snapshot *s, int kind, char *rest,
		      unsigned long lineno, struct lm_perr *e)
{
	struct lm_ev_head h = { 0 };
	const char *why = NULL;
	char *tok, *save = NULL;

	if (r->k[kind].ev)
		return lm_ev_fail(e, lineno, kind, "a second head line for one row");
	h.ev = lm_snap_add_ev(s);
	if (!h.ev)
		return lm_ev_nomem(e, lineno);
	for (tok = strtok_r(rest, " ", &save); tok && !why; tok = strtok_r(NULL, " ", &save))
		why = lm_ev_kv(s, &h, tok);
	if (h.nomem)
		return lm_ev_nomem(e, lineno);
	if (!why && (h.seen & LM_EK_REQUIRED) != LM_EK_REQUIRED)
		why = "a head line needs pid, comm, ctx, cpu, time and frames";
	if (!why && lm_ev_has(h.ev, LM_EB_OWNER_COMM) && !lm_ev_has(h.ev, LM_EB_OWNER_PID))
		why = "owner_comm without owner_pid";
	if (!why && h.addrs)
		why = h.frames ? lm_ev_addrs(h.ev->addr, h.addrs, h.frames) :
				 "addresses without frames";
	if (!why && h.addrs)
		h.ev->present |= 1U << LM_EB_ADDRS;
	if (!why)
		why = lm_ev_blocked(&h, kind);
	if (why)
		return lm_ev_fail(e, lineno, kind, why);
	r->k[kind].ev = h.ev;
	r->k[kind].frames = h.frames;
	r->k[kind].line = lineno;
	if (kind == LM_EV_HOLD)
		r->blocked = h.blocked;
	s->rows[s->nr - 1].ev[kind] = h.ev;
	return 0;
}

/*
 * "> KIND frame TEXT": the next frame of KIND's evidence; "> blocked frame
 * TEXT" (@blocked): the next frame of where the holder blocked, of the
 * row's hold evidence
 */
static int lm_ev_frame(struct lm_ev_reader *r, struct lm_snapshot *s, int kind, bool blocked,
		       const char *text, unsigned long lineno, struct lm_perr *e)
{
	struct lm_evidence *ev = r->k[kind].ev;
	const char *name = blocked ? "blocked" : lm_ev_names[kind];
	char buf[LM_FRAME_MAX];
	const char **frame;
	const char *why;
	uint32_t *nr;

	if (!ev)
		return lm_ev_fail(e, lineno, kind, blocked ? "a blocked frame before its head line" :
						  "a frame before its head line");
	nr = blocked ? &ev->nr_blocked : &ev->nr_frames;
	frame = blocked ? ev->blocked_frame : ev->frame;
	if (*nr == (blocked ? r->blocked : r->k[kind].frames)) {
		lm_perr_set(e, lineno, "%s evidence: more %sframes than its head line (line %lu) says",
			    lm_ev_names[kind], blocked ? "blocked " : "", r->k[kind].line);
		return LM_EXIT_CORRUPT;
	}
	why = *text ? lm_unesc(buf, sizeof(buf), text, true) : "empty";
	if (why) {
		lm_perr_set(e, lineno, "%s evidence: a %s frame: %s", lm_ev_names[kind],
			    name, why);
		return LM_EXIT_CORRUPT;
	}
	frame[*nr] = lm_snap_strdup(s, buf);
	if (!frame[(*nr)++])
		return lm_ev_nomem(e, lineno);
	return 0;
}

/*
 * "> hold_hist C0 C1 ..." or "> wait_hist ...": the histogram of @kind of
 * the row above, one count per bucket of the header's hist_bounds
 */
static int lm_hist_line(struct lm_ev_reader *r, struct lm_snapshot *s, int kind, char *rest,
			unsigned long lineno, struct lm_perr *e)
{
	struct lm_row *row = &s->rows[s->nr - 1];
	const char *name = lm_hist_names[kind];
	char *tok, *save = NULL;
	uint32_t n = 0, want = s->h.nr_buckets;

	if (!want) {
		lm_perr_set(e, lineno, "%s histogram: the header has no hist_bounds line", name);
		return LM_EXIT_CORRUPT;
	}
	if (row->hist & (1U << kind)) {
		lm_perr_set(e, lineno, "%s histogram: a second one for one row", name);
		return LM_EXIT_CORRUPT;
	}
	for (tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (n == want || lm_parse_u64(tok, &row->hc[kind][n])) {
			lm_perr_set(e, lineno, n == want ?
				    "%s histogram: more counts than the %u buckets of hist_bounds" :
				    "%s histogram: a count is not an unsigned 64-bit integer",
				    name, want);
			return LM_EXIT_CORRUPT;
		}
		n++;
	}
	if (n != want) {
		lm_perr_set(e, lineno, "%s histogram: %u counts for the %u buckets of hist_bounds",
			    name, n, want);
		return LM_EXIT_CORRUPT;
	}
	row->hist |= 1U << kind;
	if (!r->hist_line)
		r->hist_line = lineno;
	return 1;
}

/* the histograms of the last row add up to its counts */
static int lm_hist_done(struct lm_ev_reader *r, const struct lm_snapshot *s, struct lm_perr *e)
{
	const struct lm_row *row = s->nr ? &s->rows[s->nr - 1] : NULL;
	const char *why = row ? lm_row_hist_invalid(row, s->h.nr_buckets) : NULL;

	if (why && r->hist_line) {
		lm_perr_set(e, r->hist_line, "%s", why);
		return LM_EXIT_CORRUPT;
	}
	r->hist_line = 0;
	return 0;
}

/* the evidence of the last row is complete: as many frames as said */
static int lm_ev_done(struct lm_ev_reader *r, const struct lm_snapshot *s, struct lm_perr *e)
{
	const struct lm_evidence *hold = r->k[LM_EV_HOLD].ev;
	int k;

	if (lm_hist_done(r, s, e))
		return LM_EXIT_CORRUPT;

	for (k = 0; k < LM_NR_EV; k++) {
		const struct lm_evidence *ev = r->k[k].ev;

		if (ev && ev->nr_frames != r->k[k].frames) {
			lm_perr_set(e, r->k[k].line,
				    "truncated: %s evidence: the head line says %u frames, %u follow",
				    lm_ev_names[k], r->k[k].frames, ev->nr_frames);
			return LM_EXIT_CORRUPT;
		}
	}
	if (hold && hold->nr_blocked != r->blocked) {
		lm_perr_set(e, r->k[LM_EV_HOLD].line,
			    "truncated: hold evidence: the head line says %u blocked frames, %u follow",
			    r->blocked, hold->nr_blocked);
		return LM_EXIT_CORRUPT;
	}
	for (k = 0; k < LM_NR_EV; k++)
		r->k[k].ev = NULL;
	r->blocked = 0;
	return 0;
}

/* the evidence lines among the rows, and the end of each row's evidence */
static int lm_ev_line(struct lm_body_hook *hook, struct lm_snapshot *s, char *line,
		      unsigned long lineno, struct lm_perr *e)
{
	struct lm_ev_reader *r = (struct lm_ev_reader *)hook;
	char *kind, *rest;
	bool blocked;
	int k, ret;

	if (!line || line[0] != '>')
		return lm_ev_done(r, s, e);	/* a row, or the end */
	if (!r->evidence) {
		lm_perr_set(e, lineno, "an evidence line, new in snapshot version 2, in a file of an older format");
		return LM_EXIT_CORRUPT;
	}
	if (!s->nr) {
		lm_perr_set(e, lineno, "an evidence line before any row");
		return LM_EXIT_CORRUPT;
	}
	kind = line + 1 + (line[1] == ' ');
	rest = kind + strcspn(kind, " ");
	if (line[1] != ' ' || rest == kind ||
	    strspn(kind, "abcdefghijklmnopqrstuvwxyz_") != (size_t)(rest - kind)) {
		lm_perr_set(e, lineno, "an evidence line is '> ', a kind in lower case, and its fields");
		return LM_EXIT_CORRUPT;
	}
	if (*rest)
		*rest++ = '\0';
	for (k = 0; k < LM_NR_HIST; k++)
		if (!strncmp(kind, lm_hist_names[k], 4) && !strcmp(kind + 4, "_hist"))
			return lm_hist_line(r, s, k, rest, lineno, e);
	if (!strcmp(kind, "class")) {
		/* a class of a newer writer: the row stays as its name says */
		if (!strcmp(rest, "slab"))
			s->rows[s->nr - 1].class = LM_CLASS_SLAB;
		return 1;
	}
	blocked = !strcmp(kind, "blocked");
	for (k = 0; k < LM_NR_EV && strcmp(kind, lm_ev_names[k]); k++)
		;
	if (blocked)
		k = LM_EV_HOLD;
	else if (k == LM_NR_EV)
		return 1;	/* a kind of a newer writer */
	if (!strcmp(rest, "frame"))
		ret = lm_ev_frame(r, s, k, blocked, "", lineno, e);
	else if (!strncmp(rest, "frame ", 6))
		ret = lm_ev_frame(r, s, k, blocked, rest + 6, lineno, e);
	else if (blocked)
		ret = lm_ev_fail(e, lineno, k, "a blocked line that is not '> blocked frame TEXT'");
	else
		ret = lm_ev_head(r, s, k, rest, lineno, e);
	return ret ? ret : 1;
}

/*
 * A first line that is no header: what it is, when it is something a
 * copy or an editor made of one (CRLF endings, a byte order mark, a
 * blank line before it), or what it begins with
 */
static void lm_snap_first_line_why(struct lm_perr *e, const char *line)
{
	static const char bom[] = "\xef\xbb\xbf";
	size_t n = strlen(line);
	char found[64], esc[4 * sizeof(found)];
	const char *why = NULL;

	if (!strncmp(line, bom, 3))
		why = "it begins with a byte order mark (EF BB BF): save the file without one";
	else if (n && line[n - 1] == '\r')
		why = "it ends in CR: the file has CRLF (DOS) line endings; dos2unix converts it";
	else if (!n)
		why = "it is empty: a blank line before the header";
	if (why) {
		lm_perr_set(e, 1, "not a lockstat snapshot: the first line is not '%s %d': %s",
			    LM_SNAP_MAGIC, LM_SNAP_VERSION, why);
		return;
	}
	snprintf(found, sizeof(found), "%s", line);
	lm_esc(esc, sizeof(esc), found, "");
	lm_perr_set(e, 1, "not a lockstat snapshot: the first line is not '%s %d' but '%s%s'",
		    LM_SNAP_MAGIC, LM_SNAP_VERSION, esc, n >= sizeof(found) ? "..." : "");
}

int lm_snap_read(FILE *f, struct lm_snapshot *s, struct lm_perr *e)
{
	struct lm_ev_reader ev = { .hook.line = lm_ev_line };
	struct lm_lines l;
	unsigned long ver;
	char *line;
	int ret;

	lm_lines_init(&l, f);
	ret = lm_lines_next(&l, &line, e);
	if (ret)
		goto out;
	ret = LM_EXIT_CORRUPT;
	if (!line) {
		lm_perr_set(e, 1, "empty file, not a lockstat snapshot");
	} else if (!lm_parse_version(line, LM_SNAP_MAGIC, &ver)) {
		if (ver >= 1 && ver <= LM_SNAP_VERSION) {
			ev.evidence = ver >= 2;
			ret = 0;
		} else
			lm_perr_set(e, 1, "snapshot version %lu is not supported (this lockstat reads versions 1 to %d)",
				    ver, LM_SNAP_VERSION);
	} else if (!lm_parse_version(line, "lockmeter version", &ver)) {
		/* a saved /proc/lockmeter */
		if (ver == LM_PROC_VERSION) {
			lm_hdr_put_str(&s->h, LM_H_SOURCE, "proc");
			ret = 0;
		} else {
			lm_perr_set(e, 1, "lockmeter format version %lu is not supported (this lockstat reads version %d)",
				    ver, LM_PROC_VERSION);
		}
	} else {
		lm_snap_first_line_why(e, line);
	}
	if (!ret)
		ret = lm_parse_body(&l, s, e, &ev.hook);
out:
	lm_lines_free(&l);
	return ret;
}

/* a row's evidence of @kind: its head line, then a line per frame */
static void lm_ev_write(FILE *f, int kind, const struct lm_evidence *ev)
{
	char buf[4 * LM_FRAME_MAX];
	uint32_t i;

	lm_esc(buf, sizeof(buf), ev->comm, LM_ESC_VALUE);
	fprintf(f, "> %s pid=%u comm=%s ctx=%s cpu=%u time=%llu", lm_ev_names[kind], ev->pid, buf,
		lm_context_name(ev->context), ev->cpu, (unsigned long long)ev->time_ns);
	if (lm_ev_has(ev, LM_EB_OWNER_PID))
		fprintf(f, " owner_pid=%u", ev->owner_pid);
	if (lm_ev_has(ev, LM_EB_OWNER_COMM)) {
		lm_esc(buf, sizeof(buf), ev->owner_comm, LM_ESC_VALUE);
		fprintf(f, " owner_comm=%s", buf);
	}
	fprintf(f, " frames=%u", ev->nr_frames);
	for (i = 0; lm_ev_has(ev, LM_EB_ADDRS) && i < ev->nr_frames; i++)
		fprintf(f, "%s0x%llx", i ? "," : " addrs=", (unsigned long long)ev->addr[i]);
	if (lm_ev_has(ev, LM_EB_BLOCKED))
		fprintf(f, " blocked_ns=%llu blocked_frames=%u", (unsigned long long)ev->blocked_ns,
			ev->nr_blocked);
	for (i = 0; lm_ev_has(ev, LM_EB_BLOCKED_ADDRS) && i < ev->nr_blocked; i++)
		fprintf(f, "%s0x%llx", i ? "," : " blocked_addrs=",
			(unsigned long long)ev->blocked_addr[i]);
	fputc('\n', f);
	for (i = 0; i < ev->nr_frames; i++) {
		lm_esc(buf, sizeof(buf), ev->frame[i], LM_ESC_FRAME);
		fprintf(f, "> %s frame %s\n", lm_ev_names[kind], buf);
	}
	for (i = 0; lm_ev_has(ev, LM_EB_BLOCKED) && i < ev->nr_blocked; i++) {
		lm_esc(buf, sizeof(buf), ev->blocked_frame[i], LM_ESC_FRAME);
		fprintf(f, "> blocked frame %s\n", buf);
	}
}

static void lm_hist_write(FILE *f, int kind, const uint64_t *c, uint32_t n)
{
	char num[24];
	uint32_t i;

	fprintf(f, "> %s_hist", lm_hist_names[kind]);
	for (i = 0; i < n; i++) {
		num[0] = ' ';
		lm_u64_str(num + 1, c[i]);
		fputs(num, f);
	}
	fputc('\n', f);
}

int lm_snap_write(FILE *f, const struct lm_snapshot *s)
{
	char buf[LM_STR_LEN + 32];
	size_t i;
	int bit, k;

	fprintf(f, "%s %d\n", LM_SNAP_MAGIC, LM_SNAP_VERSION);
	for (bit = 0; bit < LM_NR_HDR; bit++) {
		if (bit == LM_H_ROWS) {
			fprintf(f, "rows: %zu\n", s->nr);
			continue;
		}
		if (!lm_has(&s->h, bit))
			continue;
		lm_hdr_format(&s->h, bit, buf, sizeof(buf));
		fprintf(f, "%s: %s\n", lm_hdr_keys[bit].name, buf);
	}
	if (s->h.nr_buckets) {
		fputs("hist_bounds:", f);
		for (k = 0; k < (int)s->h.nr_buckets; k++)
			fprintf(f, " %llu", (unsigned long long)s->h.bound[k]);
		fputc('\n', f);
	}
	fputc('\n', f);
	lm_rows_legend(f);
	fputs("# > KIND pid= comm= ctx= cpu= time= frames=N [owner_pid= owner_comm= addrs=] "
	      "[blocked_ns= blocked_frames=B blocked_addrs=], then N lines '> KIND frame TEXT' "
	      "and B lines '> blocked frame TEXT': the evidence of the row above\n", f);
	if (s->h.nr_buckets)
		fputs("# > hold_hist C... and > wait_hist C...: the row's counts per bucket of "
		      "hist_bounds (ns)\n", f);
	for (i = 0; i < s->nr; i++) {
		lm_row_write(f, &s->rows[i]);
		if (s->rows[i].class == LM_CLASS_SLAB)
			fputs("> class slab\n", f);
		for (k = 0; k < LM_NR_EV; k++)
			if (s->rows[i].ev[k])
				lm_ev_write(f, k, s->rows[i].ev[k]);
		for (k = 0; s->h.nr_buckets && k < LM_NR_HIST; k++)
			if (s->rows[i].hist & (1U << k))
				lm_hist_write(f, k, s->rows[i].hc[k], s->h.nr_buckets);
	}
	return ferror(f) ? -1 : 0;
}

/* @path ("-": standard input) into @s; 0, LM_EXIT_FILE or LM_EXIT_CORRUPT */
int lm_snap_load(const char *path, struct lm_snapshot *s)
{
	bool is_stdin = !strcmp(path, "-");
	struct lm_perr e = { 0 };
	struct stat st;
	FILE *f;
	int ret;

	f = is_stdin ? stdin : fopen(path, "re");
	if (!f) {
		lm_err("%s: cannot open the snapshot: %s", path, strerror(errno));
		return LM_EXIT_FILE;
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		lm_err("%s: cannot read the snapshot: %s", path, strerror(EISDIR));
		ret = LM_EXIT_FILE;
		goto out_close;
	}
	ret = lm_snap_read(f, s, &e);
	if (ret == LM_EXIT_FILE)
		lm_err("%s:%lu: cannot read the snapshot: %s", path, e.line, e.msg);
	else if (ret == LM_EXIT_CORRUPT)
		lm_err("%s:%lu: corrupt snapshot: %s", path, e.line, e.msg);
	else if (ret)
		lm_err("%s:%lu: %s", path, e.line, e.msg);

out_close:
	if (!is_stdin)
		fclose(f);
	return ret;
}

static int lm_save_errno(const char *path, const char *what, int err)
{
	lm_err("%s: %s: %s", path, what, strerror(err));
	return (err == EACCES || err == EPERM) ? LM_EXIT_PERM : LM_EXIT_ERR;
}

static bool lm_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* what @path is, when it is nothing a snapshot may be written to */
static const char *lm_out_refuse(const struct stat *st)
{
	if (S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode))
		return NULL;
	if (S_ISLNK(st->st_mode))
		return "a symbolic link (give the path of its target)";
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISBLK(st->st_mode))
		return "a block device";
	return "neither a regular file, a FIFO nor a character device";
}

/* a temporary file next to the target: o->mode, or its existing mode and owner */
static int lm_out_tmp(struct lm_out *o)
{
	int ret;

	if (asprintf(&o->tmp, "%s.tmp.%ld", o->path, (long)getpid()) < 0) {
		o->tmp = NULL;
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o->fd < 0) {
		ret = lm_save_errno(o->tmp, "cannot create a temporary file", errno);
		free(o->tmp);
		o->tmp = NULL;
		return ret;
	}
	/* a new file: o->mode exactly, whatever the umask */
	if (!o->exists)
		return fchmod(o->fd, o->mode) ? lm_save_errno(o->tmp, "cannot set the mode", errno) : 0;
	/* the owner first: fchown() clears the set-id bits */
	if ((o->st.st_uid != geteuid() || o->st.st_gid != getegid()) &&
	    fchown(o->fd, o->st.st_uid, o->st.st_gid))
		return lm_save_errno(o->path, "cannot keep the file's owner", errno);
	if (fchmod(o->fd, o->st.st_mode & 07777))
		return lm_save_errno(o->path, "cannot keep the file's mode", errno);
	return 0;
}

static int lm_out_prepare(struct lm_out *o, const char *path, mode_t mode, bool regular,
			  const char *what)
{
	const char *why;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->what = what;
	o->mode = mode;
	o->fd = -1;
	if (!*path) {
		lm_err("-o: an empty file name");
		return LM_EXIT_USAGE;
	}
	if (!regular && !strcmp(path, "-")) {
		o->stream = true;
		return 0;
	}
	if (lstat(path, &o->st)) {
		if (errno != ENOENT) {
			lm_err("%s: cannot write the %s: %s", path, what, strerror(errno));
			return (errno == EACCES || errno == EPERM) ? LM_EXIT_PERM : LM_EXIT_ERR;
		}
		return lm_out_tmp(o);
	}
	o->exists = true;
	why = lm_out_refuse(&o->st);
	if (!why && regular && !S_ISREG(o->st.st_mode))
		why = S_ISFIFO(o->st.st_mode) ? "a FIFO (a regular file only)" :
		      "a character device (a regular file only)";
	if (why) {
		lm_err("%s: will not write the %s to %s", path, what, why);
		return LM_EXIT_ERR;
	}
	if (!S_ISREG(o->st.st_mode)) {
		o->stream = true;
		return 0;
	}
	return lm_out_tmp(o);
}

/*
 * Get ready to write a snapshot to @path, before anything is read or run:
 * standard output for "-"; a FIFO or a character device is written as a
 * stream (opened by lm_out_commit()); a regular file, or a new one (mode
 * 0600), is written to a temporary file next to it that replaces it at
 * the end.  Anything else (a symbolic link, a directory, a block device)
 * is refused, and nothing is changed.
 */
int lm_out_open(struct lm_out *o, const char *path)
{
	return lm_out_prepare(o, path, 0600, false, "snapshot");
}

/*
 * The same for a file that must stay a regular file (export's
 * lockmeter.prom, read by other programs): a new one gets @mode, and
 * anything but a regular file is refused.
 */
int lm_out_open_regular(struct lm_out *o, const char *path, mode_t mode, const char *what)
{
	return lm_out_prepare(o, path, mode, true, what);
}

/* forget @o; a temporary file is removed */
void lm_out_abort(struct lm_out *o)
{
	if (o->fd >= 0 && (!o->stream || strcmp(o->path, "-")))
		close(o->fd);
	o->fd = -1;
	if (o->tmp) {
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
}

/* the FIFO or character device found by lm_out_open(), and still it */
static int lm_out_open_stream(struct lm_out *o)
{
	struct stat st;

	if (!strcmp(o->path, "-")) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	o->fd = open(o->path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0)
		return lm_save_errno(o->path, "cannot open", errno);
	if (fstat(o->fd, &st) || !lm_same_file(&st, &o->st) ||
	    (st.st_mode & S_IFMT) != (o->st.st_mode & S_IFMT)) {
		lm_err("%s: changed since lockstat looked at it; not written", o->path);
		return LM_EXIT_ERR;
	}
	return 0;
}

/* the temporary file in place of the target, if that is still what it was */
static int lm_out_replace(struct lm_out *o)
{
	struct stat st;

	if (!o->exists) {
		/* a new file: never over one that appeared meanwhile */
		if (!link(o->tmp, o->path))
			return 0;
		if (errno == EEXIST) {
			lm_err("%s: appeared while lockstat wrote the %s; not replaced",
			       o->path, o->what);
			return LM_EXIT_ERR;
		}
		return lm_save_errno(o->path, "cannot create", errno);
	}
	if (lstat(o->path, &st) || !S_ISREG(st.st_mode) || !lm_same_file(&st, &o->st)) {
		lm_err("%s: changed while lockstat wrote the %s; not replaced", o->path,
		       o->what);
		return LM_EXIT_ERR;
	}
	if (rename(o->tmp, o->path))
		return lm_save_errno(o->path, "cannot rename the temporary file to it", errno);
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

/* what @fn writes, where lm_out_open() said; @o is closed whatever happens */
int lm_out_write(struct lm_out *o, lm_out_fn *fn, const void *arg)
{
	const char *name = strcmp(o->path, "-") ? o->path : "<stdout>";
	FILE *f;
	int ret;

	if (o->stream) {
		ret = lm_out_open_stream(o);
		if (ret)
			goto out;
	}
	f = o->fd == STDOUT_FILENO ? stdout : fdopen(o->fd, "w");
	if (!f) {
		ret = lm_save_errno(name, "fdopen", errno);
		goto out;
	}
	errno = 0;
	if (fn(f, arg) || fflush(f) || (o->tmp && fsync(o->fd))) {
		ret = lm_save_errno(name, "write", errno ? errno : EIO);
		if (f != stdout)
			fclose(f);
		o->fd = -1;
		goto out;
	}
	if (f != stdout) {
		o->fd = -1;
		if (fclose(f)) {
			ret = lm_save_errno(name, "close", errno);
			goto out;
		}
	}
	ret = o->tmp ? lm_out_replace(o) : 0;
out:
	lm_out_abort(o);
	return ret;
}

static int lm_out_snap(FILE *f, const void *s)
{
	return lm_snap_write(f, s);
}

/* write @s where lm_out_open() said; @o is closed whatever happens */
int lm_out_commit(struct lm_out *o, const struct lm_snapshot *s)
{
	return lm_out_write(o, lm_out_snap, s);
}

/* @s to @path ("-": standard output), see lm_out_open() */
int lm_snap_save(const char *path, const struct lm_snapshot *s)
{
	struct lm_out o;
	int ret;

	ret = lm_out_open(&o, path);
	if (ret) {
		lm_out_abort(&o);
		return ret;
	}
	return lm_out_commit(&o, s);
}
