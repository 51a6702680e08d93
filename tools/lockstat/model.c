// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat model: snapshots, the merge of call sites under their locks,
 * sort keys and filters.
 *
 * A snapshot holds rows exactly as a source delivered them: one per
 * (type, lock, site), names in a pool freed with the snapshot.  A view
 * points into a snapshot: rows that pass the row filters (--type, --name)
 * are sorted by (type, lock, site), equal keys merged, and each run of
 * one lock's sites becomes a struct lm_lock whose agg row sums them.  A
 * [heap] or *overflow* row has no lock identity beyond its site, so each
 * such row is a lock of its own.  Then the lock filters (--min-con,
 * --min-util) apply, locks and sites are sorted by one key of lm_keys[]
 * and --top cuts.  Section totals count every row that passed the row
 * filters, shown or not.
 */
#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"
#include "model.h"

static const struct {
	const char *name;
	const char *short_name;
	bool sleeping;
	const char *title;
} lm_types[LM_NR_TYPES] = {
	[LM_TYPE_NONE] = { "none", "none", false, "NONE" },
#define X(e, n, s, z, t)	[LM_TYPE_##e] = { #n, s, z, t },
	LM_TYPES(X)
#undef X
};

#define X(e, n, s, z, t)						\
	static_assert(sizeof(s) - 1 <= LM_TYPE_SHORT_MAX, #n "'s short name is too long");
LM_TYPES(X)
#undef X

const char *const lm_field_names[LM_NR_FIELDS] = {
#define X(e, n)	[LM_F_##e] = #n,
	LM_FIELDS(X)
#undef X
};

const char *const lm_loss_names[LM_NR_LOSSES] = {
#define X(e, n)	[LM_L_##e] = #n,
	LM_LOSSES(X)
#undef X
};

const char *lm_type_name(uint32_t type)
{
	return type < LM_NR_TYPES ? lm_types[type].name : "?";
}

const char *lm_type_title(uint32_t type)
{
	return type < LM_NR_TYPES ? lm_types[type].title : "?";
}

int lm_type_parse(const char *name)
{
	int t;

	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++)
		if (!strcmp(name, lm_types[t].name))
			return t;
	return -1;
}

bool lm_type_sleeping(uint32_t type)
{
	return type < LM_NR_TYPES && lm_types[type].sleeping;
}

/* the name of @type, or its short name when the name is wider than @width */
const char *lm_type_fit(uint32_t type, int width)
{
	if (type >= LM_NR_TYPES)
		return "?";
	if (strlen(lm_types[type].name) <= (size_t)width)
		return lm_types[type].name;
	return lm_types[type].short_name;
}

/* every type's name, @sep between them, into @buf (cut at @len) */
void lm_type_list(char *buf, size_t len, const char *sep)
{
	size_t n = 0;
	int t;

	if (!len)
		return;
	*buf = '\0';
	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES && n < len; t++)
		n += snprintf(buf + n, len - n, "%s%s", t > LM_TYPE_NONE + 1 ? sep : "",
			      lm_types[t].name);
}

const char *lm_class_name(uint32_t class)
{
	static const char *const names[] = {
		[LM_CLASS_STATIC] = "static",
		[LM_CLASS_PERCPU] = "percpu",
		[LM_CLASS_HEAP] = "heap",
		[LM_CLASS_OVERFLOW] = "overflow",
		[LM_CLASS_SLAB] = "slab",
	};

	return class < ARRAY_SIZE(names) ? names[class] : "?";
}

/*
 * The class of a row read from text, where only the name tells.  An
 * overflow row is "*overflow*", or "*overflow*(worst:NAME)" when the
 * kernel names it after the longest hold among the keys that found the
 * key directory full (its site is then that hold's).
 */
uint32_t lm_class_of(const char *lock)
{
	if (!strcmp(lock, "[heap]"))
		return LM_CLASS_HEAP;
	if (!strncmp(lock, LM_OVERFLOW_NAME, sizeof(LM_OVERFLOW_NAME) - 1))
		return LM_CLASS_OVERFLOW;
	if (!strncmp(lock, "percpu:", 7))
		return LM_CLASS_PERCPU;
	return LM_CLASS_STATIC;
}

/* a [heap] or *overflow* row is identified by its site: a lock of its own */
bool lm_lock_per_site(uint32_t class)
{
	return class == LM_CLASS_HEAP || class == LM_CLASS_OVERFLOW;
}

/*
 * How full the kernel's key table is, preferring the key directory shared
 * by all CPUs (keys_used, keys) to the older per-CPU slot figures
 * (slots_used of the fullest CPU, slots_per_cpu), which a kernel without
 * the directory, or a snapshot it wrote, gives alone.  false: neither.
 */
bool lm_hdr_key_use(const struct lm_header *h, struct lm_key_use *u)
{
	memset(u, 0, sizeof(*u));
	if (lm_has(h, LM_H_KEYS_USED) && lm_has(h, LM_H_KEYS)) {
		u->used = h->keys_used;
		u->size = h->keys;
		u->shared = true;
		return true;
	}
	if (lm_has(h, LM_H_SLOTS_USED) && lm_has(h, LM_H_SLOTS_PER_CPU)) {
		u->used = h->slots_used;
		u->size = h->slots_per_cpu;
		return true;
	}
	return false;
}

double lm_key_use_pct(const struct lm_key_use *u)
{
	return u->size ? 100.0 * u->used / u->size : 0;
}

/* a name as /proc/lockmeter prints it: printable, no blanks */
bool lm_name_printable(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
}

/* ---- header fields ---- */

#define HK(bit, n, k, m) [bit] = {					\
	.name = n, .kind = k, .off = offsetof(struct lm_header, m),	\
	.size = sizeof(((struct lm_header *)0)->m) }

const struct lm_hdr_key lm_hdr_keys[LM_NR_HDR] = {
	HK(LM_H_COMMAND, "command", LM_HK_STR, command),
	HK(LM_H_SOURCE, "source", LM_HK_STR, source),
	HK(LM_H_SYSTEM, "system", LM_HK_STR, system),
	HK(LM_H_NODE, "node", LM_HK_STR, node),
	HK(LM_H_RELEASE, "release", LM_HK_STR, release),
	HK(LM_H_UVERSION, "uname_version", LM_HK_STR, uversion),
	HK(LM_H_MACHINE, "machine", LM_HK_STR, machine),
	HK(LM_H_KERNEL, "kernel", LM_HK_STR, kernel),
	HK(LM_H_CLOCK, "clock", LM_HK_STR, clock),
	HK(LM_H_CPUS, "cpus", LM_HK_U32, cpus),
	HK(LM_H_CPU, "cpu", LM_HK_U32, cpu),
	HK(LM_H_STATE, "state", LM_HK_STATE, on),
	HK(LM_H_START, "start", LM_HK_TIME, start),
	HK(LM_H_END, "end", LM_HK_TIME, end),
	HK(LM_H_METERED_NS, "metered_ns", LM_HK_U64, metered_ns),
	HK(LM_H_RESETS, "resets", LM_HK_U64, resets),
	HK(LM_H_KEYS_USED, "keys_used", LM_HK_U32, keys_used),
	HK(LM_H_KEYS, "keys", LM_HK_U32, keys),
	HK(LM_H_SLOTS_USED, "slots_used", LM_HK_U32, slots_used),
	HK(LM_H_SLOTS_PER_CPU, "slots_per_cpu", LM_HK_U32, slots_per_cpu),
	HK(LM_H_ROWS, "rows", LM_HK_U64, rows),
	HK(LM_H_MEM_PERCPU, "mem_percpu", LM_HK_U64, mem_percpu),
	HK(LM_H_MEM_TABLES, "mem_tables", LM_HK_U64, mem_tables),
	HK(LM_H_MEM_TASK, "mem_task", LM_HK_U64, mem_task),
	HK(LM_H_MEM_KEYS, "mem_keys", LM_HK_U64, mem_keys),
	HK(LM_H_MEM_CPUS, "mem_cpus", LM_HK_U64, mem_cpus),
	HK(LM_H_MEM_ROWS, "mem_rows", LM_HK_U64, mem_rows),
	HK(LM_H_MEM_CAP, "mem_cap", LM_HK_U64, mem_cap),
	HK(LM_H_CAPTURES, "captures", LM_HK_U64, captures),
	HK(LM_H_ALERTS, "alerts", LM_HK_U64, alerts),
	HK(LM_H_ALERTS_SENT, "alerts_sent", LM_HK_U64, alerts_sent),
	HK(LM_H_ALERTS_DROPPED, "alerts_dropped", LM_HK_U64, alerts_dropped),
#define X(e, n)	HK(LM_H_LOSS + LM_L_##e, #n, LM_HK_U64, loss[LM_L_##e]),
	LM_LOSSES(X)
#undef X
};

_Static_assert(LM_NR_HDR <= 64, "struct lm_header's presence bits are a uint64_t");

int lm_hdr_find(const char *name)
{
	int i;

	for (i = 0; i < LM_NR_HDR; i++)
		if (!strcmp(name, lm_hdr_keys[i].name))
			return i;
	return -1;
}

/* digits only, no sign, no blanks, no overflow */
int lm_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned int d = (unsigned char)*s - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int lm_parse_time(const char *s, struct timespec *ts)
{
	char sec[24];
	const char *dot = strchr(s, '.');
	uint64_t v, ns = 0;
	size_t n = dot ? (size_t)(dot - s) : strlen(s);

	if (n >= sizeof(sec))
		return -1;
	memcpy(sec, s, n);
	sec[n] = '\0';
	if (lm_parse_u64(sec, &v) || v > (uint64_t)INT64_MAX)
		return -1;
	if (dot && (strlen(dot + 1) != 9 || lm_parse_u64(dot + 1, &ns)))
		return -1;
	ts->tv_sec = (time_t)v;
	ts->tv_nsec = (long)ns;
	return 0;
}

/* set field @bit from its text; on error *why says what is wrong */
int lm_hdr_set(struct lm_header *h, int bit, const char *val, const char **why)
{
	const struct lm_hdr_key *k = &lm_hdr_keys[bit];
	char *p = (char *)h + k->off;
	uint64_t v;
	size_t i;

	switch (k->kind) {
	case LM_HK_STR:
		if (strlen(val) >= k->size) {
			*why = "value too long";
			return -1;
		}
		for (i = 0; val[i]; i++) {
			if (val[i] < ' ' || val[i] > '~') {
				*why = "value has unprintable characters";
				return -1;
			}
		}
		memcpy(p, val, i + 1);
		break;
	case LM_HK_U32:
	case LM_HK_U64:
		if (lm_parse_u64(val, &v) ||
		    (k->kind == LM_HK_U32 && v > UINT32_MAX)) {
			*why = "not an unsigned integer in range";
			return -1;
		}
		if (k->kind == LM_HK_U32)
			*(uint32_t *)p = (uint32_t)v;
		else
			*(uint64_t *)p = v;
		break;
	case LM_HK_TIME:
		if (lm_parse_time(val, (struct timespec *)p)) {
			*why = "not a time (seconds.nanoseconds)";
			return -1;
		}
		break;
	case LM_HK_STATE:
		if (strcmp(val, "on") && strcmp(val, "off")) {
			*why = "state is neither on nor off";
			return -1;
		}
		*(uint32_t *)p = !strcmp(val, "on");
		break;
	}
	lm_set(h, bit);
	return 0;
}

static bool lm_ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* why header field @bit, just set, cannot be true with the others, or NULL */
const char *lm_hdr_impossible(const struct lm_header *h, int bit)
{
	switch (bit) {
	case LM_H_CPUS:
		return h->cpus ? NULL : "a kernel has at least one CPU";
	case LM_H_START:
	case LM_H_END:
		if (lm_has(h, LM_H_START) && lm_has(h, LM_H_END) &&
		    lm_ts_before(&h->end, &h->start))
			return "end is before start";
		return NULL;
	}
	return NULL;
}

/* a string field from a live source: cut to fit, unprintables as '?' */
void lm_hdr_put_str(struct lm_header *h, int bit, const char *val)
{
	const struct lm_hdr_key *k = &lm_hdr_keys[bit];
	char *p = (char *)h + k->off;
	size_t i;

	for (i = 0; val[i] && i + 1 < k->size; i++)
		p[i] = (val[i] >= ' ' && val[i] <= '~') ? val[i] : '?';
	p[i] = '\0';
	lm_set(h, bit);
}

void lm_hdr_format(const struct lm_header *h, int bit, char *buf, size_t len)
{
	const struct lm_hdr_key *k = &lm_hdr_keys[bit];
	const char *p = (const char *)h + k->off;
	const struct timespec *ts = (const struct timespec *)p;

	switch (k->kind) {
	case LM_HK_STR:
		snprintf(buf, len, "%s", p);
		break;
	case LM_HK_U32:
		snprintf(buf, len, "%u", *(const uint32_t *)p);
		break;
	case LM_HK_U64:
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)p);
		break;
	case LM_HK_TIME:
		snprintf(buf, len, "%lld.%09ld", (long long)ts->tv_sec, ts->tv_nsec);
		break;
	case LM_HK_STATE:
		snprintf(buf, len, "%s", *(const uint32_t *)p ? "on" : "off");
		break;
	}
}

/* ---- snapshots ---- */

struct lm_pool {
	struct lm_pool *next;
	size_t used;
	size_t size;
	char data[];
};

#define LM_POOL_CHUNK	(64 * 1024)

void lm_snap_init(struct lm_snapshot *s)
{
	memset(s, 0, sizeof(*s));
}

void lm_snap_free(struct lm_snapshot *s)
{
	struct lm_pool *p, *next;

	for (p = s->pool; p; p = next) {
		next = p->next;
		free(p);
	}
	free(s->rows);
	lm_snap_init(s);
}

/*
 * A zeroed element of @size appended to the array *@v of *@nr, room for
 * *@cap (grown twice as large, from @first): NULL without memory
 */
static void *lm_array_add(void **v, size_t *nr, size_t *cap, size_t size, size_t first)
{
	char *p;

	if (*nr == *cap) {
		size_t n = *cap ? *cap * 2 : first;

		if (n > SIZE_MAX / size)
			return NULL;
		p = realloc(*v, n * size);
		if (!p)
			return NULL;
		*v = p;
		*cap = n;
	}
	p = (char *)*v + (*nr)++ * size;
	memset(p, 0, size);
	return p;
}

/* a zeroed row appended to @s, or NULL without memory */
struct lm_row *lm_snap_add_row(struct lm_snapshot *s)
{
	void *v = s->rows;
	struct lm_row *r = lm_array_add(&v, &s->nr, &s->cap, sizeof(*r), 256);

	s->rows = v;
	return r;
}

/* @n bytes from the pool of @s, aligned for any of its structs */
static void *lm_pool_get(struct lm_snapshot *s, size_t n)
{
	struct lm_pool *p = s->pool;
	size_t at = p ? (p->used + 7) & ~(size_t)7 : 0;
	void *dst;

	if (!p || at > p->size || p->size - at < n) {
		size_t size = n > LM_POOL_CHUNK ? n : LM_POOL_CHUNK;

		p = malloc(sizeof(*p) + size);
		if (!p)
			return NULL;
		p->used = 0;
		p->size = size;
		p->next = s->pool;
		s->pool = p;
		at = 0;
	}
	dst = p->data + at;
	p->used = at + n;
	return dst;
}

const char *lm_snap_strdup(struct lm_snapshot *s, const char *str)
{
	size_t n = strlen(str) + 1;
	char *dst = lm_pool_get(s, n);

	if (dst)
		memcpy(dst, str, n);
	return dst;
}

/* a zeroed piece of evidence that lives as long as @s, or NULL */
struct lm_evidence *lm_snap_add_ev(struct lm_snapshot *s)
{
	struct lm_evidence *ev = lm_pool_get(s, sizeof(*ev));

	if (ev)
		memset(ev, 0, sizeof(*ev));
	return ev;
}

/* ---- evidence ---- */

static const char *const lm_context_names[LM_NR_CONTEXTS] = {
	[LM_CONTEXT_TASK] = "task",
	[LM_CONTEXT_SOFTIRQ] = "softirq",
	[LM_CONTEXT_HARDIRQ] = "hardirq",
};

const char *const lm_ev_names[LM_NR_EV] = {
	[LM_EV_HOLD] = "hold",
	[LM_EV_WAIT] = "wait",
};

const char *lm_context_name(uint32_t context)
{
	return context < LM_NR_CONTEXTS ? lm_context_names[context] : "?";
}

int lm_context_parse(const char *name)
{
	int c;

	for (c = 0; c < LM_NR_CONTEXTS; c++)
		if (!strcmp(name, lm_context_names[c]))
			return c;
	return -1;
}

static bool lm_str_equal(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* the same evidence, field by field (NULL is equal to NULL only) */
bool lm_ev_equal(const struct lm_evidence *a, const struct lm_evidence *b)
{
	uint32_t i;

	if (!a || !b)
		return a == b;
	if (a->present != b->present || a->pid != b->pid || a->context != b->context ||
	    a->cpu != b->cpu || a->time_ns != b->time_ns || a->nr_frames != b->nr_frames ||
	    !lm_str_equal(a->comm, b->comm))
		return false;
	if (lm_ev_has(a, LM_EB_OWNER_PID) && a->owner_pid != b->owner_pid)
		return false;
	if (lm_ev_has(a, LM_EB_OWNER_COMM) && !lm_str_equal(a->owner_comm, b->owner_comm))
		return false;
	for (i = 0; i < a->nr_frames; i++) {
		if (!lm_str_equal(a->frame[i], b->frame[i]))
			return false;
		if (lm_ev_has(a, LM_EB_ADDRS) && a->addr[i] != b->addr[i])
			return false;
	}
	if (!lm_ev_has(a, LM_EB_BLOCKED))
		return true;
	if (a->blocked_ns != b->blocked_ns || a->nr_blocked != b->nr_blocked)
		return false;
	for (i = 0; i < a->nr_blocked; i++) {
		if (!lm_str_equal(a->blocked_frame[i], b->blocked_frame[i]))
			return false;
		if (lm_ev_has(a, LM_EB_BLOCKED_ADDRS) && a->blocked_addr[i] != b->blocked_addr[i])
			return false;
	}
	return true;
}

static bool lm_esc_byte(unsigned char c, const char *also)
{
	return c < ' ' || c >= 0x7f || c == '\\' || strchr(also, c);
}

/* @s into @buf, escaped; cut (never inside an escape) when @buf is full */
void lm_esc(char *buf, size_t len, const char *s, const char *also)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (!len)
		return;
	for (; *s; s++) {
		unsigned char c = *s;

		if (!lm_esc_byte(c, also)) {
			if (n + 1 >= len)
				break;
			buf[n++] = c;
			continue;
		}
		if (n + 4 >= len)
			break;
		buf[n++] = '\\';
		buf[n++] = 'x';
		buf[n++] = hex[c >> 4];
		buf[n++] = hex[c & 15];
	}
	buf[n] = '\0';
}

/* ---- rows ---- */

static uint64_t lm_add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* attempts: nowait + spin + reject, saturated like the merged totals */
uint64_t lm_row_total(const struct lm_row *r)
{
	return lm_add_sat(lm_add_sat(r->v[LM_F_NOWAIT], r->v[LM_F_SPIN]), r->v[LM_F_REJECT]);
}

/* attempts not satisfied at once: spin + reject, saturated */
uint64_t lm_row_contended(const struct lm_row *r)
{
	return lm_add_sat(r->v[LM_F_SPIN], r->v[LM_F_REJECT]);
}

/*
 * Why a row from a source or a file cannot be true, or NULL.  Only what
 * holds in any copy of the kernel's counters, even one read while they
 * change: acquired is nowait + spin (the kernel adds them), no count
 * beyond 64 bits, and a minimum no larger than its maximum.
 */
const char *lm_row_impossible(const struct lm_row *r)
{
	const uint64_t *v = r->v;

	if (v[LM_F_NOWAIT] + v[LM_F_SPIN] < v[LM_F_NOWAIT] ||
	    v[LM_F_ACQUIRED] != v[LM_F_NOWAIT] + v[LM_F_SPIN])
		return "acquired is not nowait + spin";
	if (v[LM_F_ACQUIRED] + v[LM_F_REJECT] < v[LM_F_ACQUIRED])
		return "nowait + spin + reject is more than 64 bits hold";
	if (v[LM_F_ACQUIRED] && v[LM_F_HOLD_MIN] > v[LM_F_HOLD_MAX])
		return "hold_min_ns is larger than hold_max_ns";
	if (v[LM_F_SPIN] && v[LM_F_WAIT_MIN] > v[LM_F_WAIT_MAX])
		return "wait_min_ns is larger than wait_max_ns";
	return NULL;
}

/* ---- histograms ---- */

const char *const lm_hist_names[LM_NR_HIST] = {
	[LM_HIST_HOLD] = "hold",
	[LM_HIST_WAIT] = "wait",
};

/* the count each kind's buckets sum to */
static uint64_t lm_hist_count(const struct lm_row *r, int kind)
{
	return kind == LM_HIST_HOLD ? r->v[LM_F_ACQUIRED] : r->v[LM_F_SPIN];
}

uint64_t lm_hist_sum(const uint64_t *c, uint32_t n)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		sum = lm_add_sat(sum, c[i]);
	return sum;
}

/* why @n bounds cannot be a kernel's histogram bounds, or NULL */
const char *lm_bounds_invalid(const uint64_t *bound, uint32_t n)
{
	uint32_t i;

	if (n < 2)
		return "fewer than 2 histogram buckets";
	if (n > LM_HIST_MAX)
		return "more histogram buckets than this lockstat takes (32)";
	if (bound[0])
		return "the first histogram bound is not 0";
	for (i = 1; i < n; i++)
		if (bound[i] <= bound[i - 1])
			return "histogram bounds are not strictly increasing";
	return NULL;
}

/* why the histograms @r has cannot be its own with @n buckets, or NULL */
const char *lm_row_hist_invalid(const struct lm_row *r, uint32_t n)
{
	int k;

	if (r->hist && !n)
		return "a histogram, but no histogram bounds";
	for (k = 0; k < LM_NR_HIST; k++) {
		if (!(r->hist & (1U << k)))
			continue;
		if (lm_hist_sum(r->hc[k], n) != lm_hist_count(r, k))
			return k == LM_HIST_HOLD ? "the hold histogram does not sum to acquired" :
			       "the wait histogram does not sum to spin";
	}
	return NULL;
}

/* @dst's histograms plus @src's: a kind stays only when both have it */
static void lm_hist_add(struct lm_row *dst, const struct lm_row *src)
{
	int k, i;

	for (k = 0; k < LM_NR_HIST; k++) {
		if (!(dst->hist & (1U << k)))
			continue;
		if (!(src->hist & (1U << k))) {
			dst->hist &= ~(1U << k);
			memset(dst->hc[k], 0, sizeof(dst->hc[k]));
			continue;
		}
		for (i = 0; i < LM_HIST_MAX; i++)
			dst->hc[k][i] = lm_add_sat(dst->hc[k][i], src->hc[k][i]);
	}
}

/*
 * @d's histograms = @c's - @p's, of the kinds both have: false when a
 * bucket went down (@p is not an earlier state of @c's row)
 */
static bool lm_hist_sub(struct lm_row *d, const struct lm_row *c, const struct lm_row *p)
{
	int k, i;

	d->hist = c->hist & p->hist;
	for (k = 0; k < LM_NR_HIST; k++) {
		if (!(d->hist & (1U << k))) {
			memset(d->hc[k], 0, sizeof(d->hc[k]));
			continue;
		}
		for (i = 0; i < LM_HIST_MAX; i++) {
			if (c->hc[k][i] < p->hc[k][i])
				return false;
			d->hc[k][i] = c->hc[k][i] - p->hc[k][i];
		}
	}
	return true;
}

const struct lm_pct_def lm_pcts[LM_NR_PCT] = {
	[LM_P50] = { "p50", "p50", 500 },
	[LM_P90] = { "p90", "p90", 900 },
	[LM_P99] = { "p99", "p99", 990 },
	[LM_P999] = { "p99.9", "p999", 999 },
};

/*
 * The @permille-th permille of the @n counts @c with lower bounds @bound:
 * the first bucket whose cumulative count reaches the rank (permille of
 * the total), the value interpolated linearly between its bounds, then
 * kept within [@lo, @hi], the smallest and largest sample known.  In the
 * last bucket, its lower bound only (LM_PCT_GE).
 */
enum lm_pct_res lm_hist_pct(const uint64_t *c, const uint64_t *bound, uint32_t n,
			    unsigned int permille, uint64_t lo, uint64_t hi, double *ns)
{
	uint64_t total = lm_hist_sum(c, n);
	double rank, below = 0, v;
	uint32_t i;

	if (!total || !n)
		return LM_PCT_NONE;
	rank = (double)total * permille / 1000.0;
	for (i = 0; i + 1 < n; i++) {
		if (c[i] && below + (double)c[i] >= rank)
			break;
		below += (double)c[i];
	}
	if (i + 1 == n) {
		*ns = (double)bound[i];
		return LM_PCT_GE;
	}
	v = (double)bound[i] + (rank - below) / (double)c[i] * (double)(bound[i + 1] - bound[i]);
	if (v > (double)hi)
		v = (double)hi;
	if (v < (double)lo)
		v = (double)lo;
	*ns = v;
	return LM_PCT_EST;
}

enum lm_pct_res lm_row_pct(const struct lm_row *r, const struct lm_ctx *c, int kind,
			   int pct, double *ns)
{
	uint64_t lo = kind == LM_HIST_HOLD ? r->v[LM_F_HOLD_MIN] : r->v[LM_F_WAIT_MIN];
	uint64_t hi = kind == LM_HIST_HOLD ? r->v[LM_F_HOLD_MAX] : r->v[LM_F_WAIT_MAX];

	if (!c || !c->nr_buckets || !(r->hist & (1U << kind)))
		return LM_PCT_NONE;
	return lm_hist_pct(r->hc[kind], c->bound, c->nr_buckets, lm_pcts[pct].permille, lo, hi,
			   ns);
}

/*
 * Whether a maximum equal to @dst's brings better evidence from @src: some
 * where @dst has none, or evidence of the interval where @dst's is older.
 */
static bool lm_ev_better(const struct lm_row *dst, const struct lm_row *src, int kind,
			 uint32_t bit)
{
	if (!src->ev[kind])
		return false;
	return !dst->ev[kind] || ((src->fresh & bit) && !(dst->fresh & bit));
}

/*
 * Merge @src into @dst: counts and totals add, maxima take the larger, a
 * minimum the smaller of the rows that have samples, instances the larger
 * (sites of one lock name the same instances).  The evidence of a maximum
 * goes with it: that of the larger, even none; of equal ones, one that is
 * there and, in a delta, of the interval.
 */
void lm_row_add(struct lm_row *dst, const struct lm_row *src)
{
	bool dst_hold = dst->v[LM_F_ACQUIRED], src_hold = src->v[LM_F_ACQUIRED];
	bool dst_wait = dst->v[LM_F_SPIN], src_wait = src->v[LM_F_SPIN];
	uint64_t *d = dst->v;
	const uint64_t *s = src->v;
	int f, kind;

	for (f = 0; f < LM_NR_FIELDS; f++) {
		switch (f) {
		case LM_F_HOLD_MAX:
		case LM_F_WAIT_MAX:
			kind = f == LM_F_HOLD_MAX ? LM_EV_HOLD : LM_EV_WAIT;
			if (s[f] > d[f] || (s[f] == d[f] && lm_ev_better(dst, src, kind, 1U << f)))
				dst->ev[kind] = src->ev[kind];
			/* fall through */
		case LM_F_ONCPU_MAX:
		case LM_F_BLOCKED_MAX:
			/* a maximum is as fresh as the row it comes from */
			if (s[f] > d[f]) {
				d[f] = s[f];
				dst->fresh &= ~(1U << f);
			}
			if (s[f] == d[f])
				dst->fresh |= src->fresh & (1U << f);
			break;
		case LM_F_INSTANCES:
			if (s[f] > d[f])
				d[f] = s[f];
			break;
		case LM_F_HOLD_MIN:
		case LM_F_WAIT_MIN:
			/* one minimum the interval cannot tell: nor can the merge */
			if (!(f == LM_F_HOLD_MIN ? src_hold : src_wait))
				break;
			dst->nomin |= src->nomin & (1U << f);
			if (dst->nomin & (1U << f))
				d[f] = 0;
			else if (!(f == LM_F_HOLD_MIN ? dst_hold : dst_wait) || s[f] < d[f])
				d[f] = s[f];
			break;
		default:
			d[f] = lm_add_sat(d[f], s[f]);
			break;
		}
	}
	lm_hist_add(dst, src);
	/* a row the kernel sent no count for had none */
	dst->alerts = lm_add_sat(dst->alerts, src->alerts);
	dst->alerts_dropped = lm_add_sat(dst->alerts_dropped, src->alerts_dropped);
	dst->has_alerts |= src->has_alerts;
}

/* ---- derived values and their formatting ---- */

void lm_ctx_init(struct lm_ctx *c, const struct lm_header *h)
{
	c->elapsed_ns = lm_has(h, LM_H_METERED_NS) ? (double)h->metered_ns : 0;
	c->cpus = 1;
	c->bound = h->bound;
	c->nr_buckets = h->nr_buckets;
	if (!lm_has(h, LM_H_CPU) && lm_has(h, LM_H_CPUS) && h->cpus)
		c->cpus = h->cpus;
}

static double lm_ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0;
}

double lm_util_pct(const struct lm_row *r, const struct lm_ctx *c)
{
	return c->elapsed_ns > 0 ? 100.0 * (double)r->v[LM_F_HOLD_TOTAL] / c->elapsed_ns : 0;
}

double lm_waitcpu_pct(const struct lm_row *r, const struct lm_ctx *c)
{
	double den = c->cpus * c->elapsed_ns;

	return den > 0 ? 100.0 * (double)r->v[LM_F_WAIT_TOTAL] / den : 0;
}

double lm_con_pct(const struct lm_row *r)
{
	return 100.0 * lm_ratio(lm_row_contended(r), lm_row_total(r));
}

double lm_mean_ns(const struct lm_row *r, enum lm_hist_kind kind)
{
	if (kind == LM_HIST_HOLD)
		return lm_ratio(r->v[LM_F_HOLD_TOTAL], r->v[LM_F_ACQUIRED]);
	return lm_ratio(r->v[LM_F_WAIT_TOTAL], r->v[LM_F_SPIN]);
}

/* @n in decimal; @buf holds at least 21 bytes; returns the length */
size_t lm_u64_str(char *buf, uint64_t n)
{
	char tmp[20];
	size_t i = 0, len = 0;

	do {
		tmp[i++] = '0' + n % 10;
		n /= 10;
	} while (n);
	while (i)
		buf[len++] = tmp[--i];
	buf[len] = '\0';
	return len;
}

/*
 * @v rounded (half up) to @dec decimals, 0 to 2, then @unit.  The table
 * prints hundreds of thousands of these: no printf here.
 */
static void lm_fixed(char *buf, size_t len, double v, unsigned int dec, const char *unit)
{
	static const double scale[] = { 1, 10, 100 };
	char num[32];
	size_t k, u = strlen(unit);

	if (!(v >= 0))
		v = 0;
	if (v > 1e15)
		v = 1e15;
	k = lm_u64_str(num, (uint64_t)(v * scale[dec] + 0.5));
	if (dec) {
		while (k <= dec) {
			memmove(num + 1, num, k + 1);
			num[0] = '0';
			k++;
		}
		memmove(num + k - dec + 1, num + k - dec, dec + 1);
		num[k - dec] = '.';
		k++;
	}
	if (k + u >= len) {
		if (len)
			buf[0] = '\0';
		return;
	}
	memcpy(buf, num, k);
	memcpy(buf + k, unit, u + 1);
}

/*
 * The lockmeter units: the largest of ns, us, ms, s that keeps the value
 * under 1000, one decimal below 10 ("2.4us"), none above ("51ms"); 0 is
 * "0us" as in the historic report.  Past 999 s, min, h, d and y, so that
 * even an absurd value (2^64 ns is 585y) stays as narrow as the cells.
 */
void lm_fmt_time(char *buf, size_t len, double ns)
{
	static const struct {
		const char *unit;
		double div;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 },
		      { "h", 3600e9 }, { "d", 86400e9 }, { "y", 365.25 * 86400e9 } };
	unsigned int i;

	if (!(ns > 0)) {
		lm_fixed(buf, len, 0, 0, "us");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		double v = ns / units[i].div;

		if (i > 0 && v < 9.95) {
			lm_fixed(buf, len, v, 1, units[i].unit);
			return;
		}
		if (v < 999.5 || i == ARRAY_SIZE(units) - 1) {
			lm_fixed(buf, len, v, 0, units[i].unit);
			return;
		}
	}
}

/* "0%", "0.82%", "2.6%", "13.7%", "100%"; past 999%, "1.5k%", "1259G%" */
void lm_fmt_pct(char *buf, size_t len, double pct)
{
	size_t n;

	if (!(pct > 0)) {
		lm_fixed(buf, len, 0, 0, "%");
	} else if (pct < 0.995) {
		lm_fixed(buf, len, pct, 2, "%");
	} else if (pct < 99.95) {
		lm_fixed(buf, len, pct, 1, "%");
	} else if (pct < 999.5 || len < 2) {
		lm_fixed(buf, len, pct, 0, "%");
	} else {
		lm_fmt_rate(buf, len - 1, pct);
		n = strlen(buf);
		memcpy(buf + n, "%", 2);
	}
}

/* a count as it is when it has at most @digits digits, else as ACQ/s shortens it ("12G") */
void lm_fmt_count(char *buf, size_t len, uint64_t n, unsigned int digits)
{
	char num[24];
	size_t k = lm_u64_str(num, n);

	if (k <= digits && k < len)
		memcpy(buf, num, k + 1);
	else
		lm_fmt_rate(buf, len, (double)n);
}

void lm_fmt_rate(char *buf, size_t len, double per_s)
{
	static const char *const units[] = { "", "k", "M", "G", "T", "P", "E" };
	unsigned int i;

	if (!(per_s > 0)) {
		lm_fixed(buf, len, 0, 0, "");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++, per_s /= 1000) {
		if (per_s < 9.95) {
			lm_fixed(buf, len, per_s, 1, units[i]);
			return;
		}
		if (per_s < 999.5 || i == ARRAY_SIZE(units) - 1) {
			lm_fixed(buf, len, per_s, 0, units[i]);
			return;
		}
	}
}

static bool lm_hex_run(const char **p)
{
	const char *s = *p;

	if (strncmp(s, "0x", 2))
		return false;
	s += 2;
	if (!*s || !strchr("0123456789abcdef", *s))
		return false;
	while (*s && strchr("0123456789abcdef", *s))
		s++;
	*p = s;
	return true;
}

/*
 * The function of a site: "func+0xoff/0xsize[mod]" and "func+0xoff[mod]"
 * are "func[mod]"; anything else (an address, *overflow*) stays as it is.
 * Lock names too: "init_task+0x668" is "init_task".  @len of @buf may be
 * strlen(@site) + 1: the result is never longer.  For export's labels and
 * diff's matching, which both ignore offsets.
 */
void lm_site_func(char *buf, size_t len, const char *site)
{
	const char *plus = strrchr(site, '+'), *p;

	if (plus && plus > site) {
		p = plus + 1;
		if (lm_hex_run(&p) && (*p != '/' || (p++, lm_hex_run(&p))) &&
		    (!*p || (*p == '[' && p[strlen(p) - 1] == ']'))) {
			snprintf(buf, len, "%.*s%s", (int)(plus - site), site, p);
			return;
		}
	}
	snprintf(buf, len, "%s", site);
}

void lm_frame_func(char *buf, size_t len, const char *frame)
{
	const char *plus = strstr(frame, "+0x");
	char name[LM_FRAME_MAX];

	snprintf(name, sizeof(name), "%.*s", plus && plus > frame ? (int)(plus - frame) :
		 (int)strlen(frame), frame);
	lm_esc(buf, len, name, "");
}

/* ---- sort keys ---- */

static int lm_cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* an/ad against bn/bd exactly; a zero denominator makes the ratio 0 */
static int lm_cmp_ratio(uint64_t an, uint64_t ad, uint64_t bn, uint64_t bd)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 l, r;
#else
	long double l, r;
#endif

	if (!ad) {
		an = 0;
		ad = 1;
	}
	if (!bd) {
		bn = 0;
		bd = 1;
	}
#ifdef __SIZEOF_INT128__
	l = (unsigned __int128)an * bd;
	r = (unsigned __int128)bn * ad;
#else
	l = (long double)an * bd;
	r = (long double)bn * ad;
#endif
	return (l > r) - (l < r);
}

#define F(r, f)	((r)->v[LM_F_##f])

/*
 * The keys on one field, and those on one field over another: a mean
 * (over the acquisitions, or the waits) or a share of the attempts.
 */
#define CMP_FIELD(n, f)							\
static int cmp_##n(const struct lm_row *a, const struct lm_row *b,	\
		   const struct lm_ctx *c)				\
{									\
	(void)c;							\
	return lm_cmp_u64(F(a, f), F(b, f));				\
}

#define CMP_MEAN(n, f, per)						\
static int cmp_##n(const struct lm_row *a, const struct lm_row *b,	\
		   const struct lm_ctx *c)				\
{									\
	(void)c;							\
	return lm_cmp_ratio(F(a, f), F(a, per), F(b, f), F(b, per));	\
}

#define CMP_SHARE(n, f)							\
static int cmp_##n(const struct lm_row *a, const struct lm_row *b,	\
		   const struct lm_ctx *c)				\
{									\
	(void)c;							\
	return lm_cmp_ratio(F(a, f), lm_row_total(a), F(b, f), lm_row_total(b)); \
}

CMP_FIELD(maxhold, HOLD_MAX)
CMP_MEAN(meanhold, HOLD_TOTAL, ACQUIRED)
CMP_FIELD(totalhold, HOLD_TOTAL)
/* util: hold total over the metered time, which is the same for every row */
CMP_FIELD(util, HOLD_TOTAL)
CMP_FIELD(maxwait, WAIT_MAX)
CMP_FIELD(minwait, WAIT_MIN)
CMP_MEAN(meanwait, WAIT_TOTAL, SPIN)
/* waitcpu (%CPU): total wait over the same CPUs x elapsed for every row */
CMP_FIELD(waitcpu, WAIT_TOTAL)
CMP_SHARE(nowait, NOWAIT)
CMP_SHARE(spin, SPIN)
CMP_SHARE(reject, REJECT)
CMP_FIELD(abort, ABORT)
CMP_FIELD(blocked, BLOCKED_MAX)
CMP_FIELD(oncpu, ONCPU_MAX)
/* rate: acquisitions over the metered time, which is the same for every row */
CMP_FIELD(rate, ACQUIRED)

static int cmp_con(const struct lm_row *a, const struct lm_row *b,
		    const struct lm_ctx *ctx)
{
	(void)ctx;
	return lm_cmp_ratio(lm_row_contended(a), lm_row_total(a),
			    lm_row_contended(b), lm_row_total(b));
}

static int cmp_total(const struct lm_row *a, const struct lm_row *b,
		    const struct lm_ctx *ctx)
{
	(void)ctx;
	return lm_cmp_u64(lm_row_total(a), lm_row_total(b));
}

static int cmp_contended(const struct lm_row *a, const struct lm_row *b,
		    const struct lm_ctx *ctx)
{
	(void)ctx;
	return lm_cmp_u64(lm_row_contended(a), lm_row_contended(b));
}

static int cmp_name(const struct lm_row *a, const struct lm_row *b,
		    const struct lm_ctx *ctx)
{
	(void)ctx;
	int c = strcmp(a->lock, b->lock);

	if (!c)
		c = strcmp(a->site ? a->site : "", b->site ? b->site : "");
	return (c > 0) - (c < 0);
}

/* the comm of the worst hold's evidence; rows without any first */
static int cmp_holder(const struct lm_row *a, const struct lm_row *b,
		    const struct lm_ctx *ctx)
{
	(void)ctx;
	const struct lm_evidence *x = a->ev[LM_EV_HOLD], *y = b->ev[LM_EV_HOLD];
	int c = !x || !y ? !!x - !!y : strcmp(x->comm, y->comm);

	return (c > 0) - (c < 0);
}

static int cmp_type(const struct lm_row *a, const struct lm_row *b,
		    const struct lm_ctx *ctx)
{
	(void)ctx;
	int c = lm_cmp_u64(a->type, b->type);

	return c ? c : cmp_name(a, b, NULL);
}

/* rows without the percentile first, then by its value */
static int lm_cmp_pct(const struct lm_row *a, const struct lm_row *b, const struct lm_ctx *c,
		      int kind, int pct)
{
	double x = 0, y = 0;
	bool hx = lm_row_pct(a, c, kind, pct, &x) != LM_PCT_NONE;
	bool hy = lm_row_pct(b, c, kind, pct, &y) != LM_PCT_NONE;

	if (hx != hy)
		return hx - hy;
	return (x > y) - (x < y);
}

#define CMP_PCT(n, kind, pct)						\
static int cmp_##n(const struct lm_row *a, const struct lm_row *b,	\
		   const struct lm_ctx *c)				\
{									\
	return lm_cmp_pct(a, b, c, LM_HIST_##kind, LM_##pct);		\
}

/* the percentile keys: (name, histogram kind, percentile) */
#define LM_PCT_KEYS(X)		\
	X(p50hold, HOLD, P50)	\
	X(p90hold, HOLD, P90)	\
	X(p99hold, HOLD, P99)	\
	X(p999hold, HOLD, P999)	\
	X(p50wait, WAIT, P50)	\
	X(p90wait, WAIT, P90)	\
	X(p99wait, WAIT, P99)	\
	X(p999wait, WAIT, P999)

LM_PCT_KEYS(CMP_PCT)

static void pr_time(char *buf, size_t len, uint64_t ns)
{
	lm_fmt_time(buf, len, (double)ns);
}

static void pr_pct(char *buf, size_t len, uint64_t num, uint64_t den)
{
	lm_fmt_pct(buf, len, 100.0 * lm_ratio(num, den));
}

/* strlcpy, which C11 lacks */
static void lm_copy(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* a count column: its width less the blank that parts it from the cell before */
static void pr_count(char *buf, size_t len, uint64_t n)
{
	lm_fmt_count(buf, len, n, lm_keys[LM_K_TOTAL].width - 1);
}

/* the cells of one field: a time, a count, a mean, or a share of the attempts */
#define PR_TIME(n, f)							\
static void pr_##n(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c) \
{									\
	(void)c;							\
	pr_time(buf, len, F(r, f));					\
}

#define PR_COUNT(n, f)							\
static void pr_##n(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c) \
{									\
	(void)c;							\
	pr_count(buf, len, F(r, f));					\
}

#define PR_MEAN(n, f, per)						\
static void pr_##n(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c) \
{									\
	(void)c;							\
	lm_fmt_time(buf, len, lm_ratio(F(r, f), F(r, per)));		\
}

#define PR_SHARE(n, f)							\
static void pr_##n(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c) \
{									\
	(void)c;							\
	pr_pct(buf, len, F(r, f), lm_row_total(r));			\
}

PR_TIME(maxhold, HOLD_MAX)
PR_MEAN(meanhold, HOLD_TOTAL, ACQUIRED)
PR_TIME(totalhold, HOLD_TOTAL)
PR_TIME(maxwait, WAIT_MAX)
PR_TIME(minwait, WAIT_MIN)
PR_MEAN(meanwait, WAIT_TOTAL, SPIN)
PR_SHARE(nowait, NOWAIT)
PR_SHARE(spin, SPIN)
PR_SHARE(reject, REJECT)
PR_COUNT(abort, ABORT)
PR_TIME(blocked, BLOCKED_MAX)
PR_TIME(oncpu, ONCPU_MAX)

static void pr_util(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c)
{
	lm_fmt_pct(buf, len, lm_util_pct(r, c));
}

static void pr_con(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c)
{
	(void)c;
	lm_fmt_pct(buf, len, lm_con_pct(r));
}

static void pr_waitcpu(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c)
{
	lm_fmt_pct(buf, len, lm_waitcpu_pct(r, c));
}

static void pr_total(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c)
{
	(void)c;
	pr_count(buf, len, lm_row_total(r));
}

static void pr_rate(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c)
{
	lm_fmt_rate(buf, len, c->elapsed_ns > 0 ? 1e9 * (double)F(r, ACQUIRED) / c->elapsed_ns : 0);
}

static void pr_contended(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c)
{
	(void)c;
	pr_count(buf, len, lm_row_contended(r));
}

/* escaped: a comm may hold any byte; "-" without evidence */
static void pr_holder(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c)
{
	(void)c;
	if (r->ev[LM_EV_HOLD])
		lm_esc(buf, len, r->ev[LM_EV_HOLD]->comm, "");
	else
		lm_copy(buf, len, "-");
}

void lm_fmt_pct_cell(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c,
		     int kind, int pct)
{
	enum lm_pct_res res;
	char num[32];
	double ns;

	res = lm_row_pct(r, c, kind, pct, &ns);
	if (res == LM_PCT_NONE) {
		lm_copy(buf, len, "-");
		return;
	}
	lm_fmt_time(num + 2, sizeof(num) - 2, ns);
	num[0] = '>';
	num[1] = '=';
	lm_copy(buf, len, res == LM_PCT_GE ? num : num + 2);
}

#define PR_PCT(n, kind, pct)						\
static void pr_##n(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c) \
{									\
	lm_fmt_pct_cell(buf, len, r, c, LM_HIST_##kind, LM_##pct);	\
}

LM_PCT_KEYS(PR_PCT)

static void pr_type(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c)
{
	(void)c;
	lm_copy(buf, len, lm_type_name(r->type));
}

static void pr_name(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c)
{
	(void)c;
	lm_copy(buf, len, r->site ? r->site : r->lock);
}

#define KEY(id, n, hdr, w, d, h) [LM_K_##id] = {			\
	.name = #n, .header = hdr, .width = w, .cmp = cmp_##n,		\
	.print = pr_##n, .desc = d, .help = h }

const struct lm_key lm_keys[LM_NR_KEYS] = {
	KEY(MAXHOLD, maxhold, "MAX", 6, true, "longest hold (HOLD MAX); the default"),
	KEY(MEANHOLD, meanhold, "MEAN", 6, true, "mean hold (HOLD MEAN)"),
	KEY(TOTALHOLD, totalhold, "HOLD", 6, true, "total hold time"),
	KEY(UTIL, util, "UTIL", 6, true, "hold time / metered time (UTIL)"),
	KEY(CON, con, "CON", 5, true, "share of attempts that waited or failed (CON)"),
	KEY(MAXWAIT, maxwait, "MAX", 6, true, "longest wait (WAIT MAX)"),
	KEY(MINWAIT, minwait, "MIN", 6, true, "shortest wait of those that waited (WAIT MIN)"),
	KEY(MEANWAIT, meanwait, "MEAN", 6, true, "mean wait of those that waited (WAIT MEAN)"),
	KEY(WAITCPU, waitcpu, "% CPU", 5, true, "total wait / (CPUs x metered time) (% CPU)"),
	KEY(TOTAL, total, "TOTAL", 10, true, "attempts: nowait + spin + reject (TOTAL)"),
	KEY(NOWAIT, nowait, "NOWAIT", 5, true, "share acquired at once (NOWAIT)"),
	KEY(SPIN, spin, "SPIN", 5, true, "share that had to wait (SPIN)"),
	KEY(REJECT, reject, "RJECT", 5, true, "share of failed trylocks (RJECT)"),
	KEY(ABORT, abort, "ABORT", 6, true, "sleeping waits ended by a signal (ABORT)"),
	KEY(BLOCKED, blocked, "BLOCKED", 6, true, "longest blocked part of one hold (BLOCKED MAX)"),
	KEY(ONCPU, oncpu, "ONCPU", 6, true, "longest on-CPU part of one hold (ONCPU MAX)"),
	KEY(RATE, rate, "ACQ/s", 6, true, "acquisitions per second of metered time"),
	KEY(CONTENDED, contended, "CONTND", 10, true, "attempts that waited or failed: spin + reject"),
	KEY(HOLDER, holder, "HOLDER", 15, false, "the worst holder's comm (evidence), A to Z"),
	KEY(P50HOLD, p50hold, "HP50", 7, true, "median hold, estimated from the histogram"),
	KEY(P90HOLD, p90hold, "HP90", 7, true, "90th percentile of the holds (histogram)"),
	KEY(P99HOLD, p99hold, "HP99", 7, true, "99th percentile of the holds (histogram)"),
	KEY(P999HOLD, p999hold, "HP99.9", 7, true, "99.9th percentile of the holds (histogram)"),
	KEY(P50WAIT, p50wait, "WP50", 7, true, "median wait of those that waited (histogram)"),
	KEY(P90WAIT, p90wait, "WP90", 7, true, "90th percentile of the waits (histogram)"),
	KEY(P99WAIT, p99wait, "WP99", 7, true, "99th percentile of the waits (histogram)"),
	KEY(P999WAIT, p999wait, "WP99.9", 7, true, "99.9th percentile of the waits (histogram)"),
	KEY(TYPE, type, "TYPE", 11, false, "lock type, then name"),
	KEY(NAME, name, "NAME", 0, false, "lock name, then site, alphabetically"),
};

/* the sort keys of perf lock and of klockstat (BCC), for those who know them */
static const struct lm_key_alias {
	const char *name;
	enum lm_key_id id;
	const char *from;
} lm_key_aliases[] = {
	{ "acq_count", LM_K_RATE, "klockstat" },
	{ "acq_max", LM_K_MAXWAIT, "klockstat" },
	{ "acq_total", LM_K_WAITCPU, "klockstat" },
	{ "acquired", LM_K_RATE, "perf lock" },
	{ "avg_wait", LM_K_MEANWAIT, "perf lock" },
	{ "hld_count", LM_K_RATE, "klockstat" },
	{ "hld_max", LM_K_MAXHOLD, "klockstat" },
	{ "hld_total", LM_K_TOTALHOLD, "klockstat" },
	{ "hold_total", LM_K_TOTALHOLD, "perf lock" },
	{ "wait_max", LM_K_MAXWAIT, "perf lock" },
	{ "wait_min", LM_K_MINWAIT, "perf lock" },
	{ "wait_total", LM_K_WAITCPU, "perf lock" },
};

const struct lm_key *lm_key_find(const char *name)
{
	size_t i;

	for (i = 0; i < LM_NR_KEYS; i++)
		if (!strcmp(name, lm_keys[i].name))
			return &lm_keys[i];
	for (i = 0; i < ARRAY_SIZE(lm_key_aliases); i++)
		if (!strcmp(name, lm_key_aliases[i].name))
			return &lm_keys[lm_key_aliases[i].id];
	return NULL;
}

const char *lm_key_alias(const struct lm_key *k, size_t *pos, const char **from)
{
	const struct lm_key_alias *a;

	for (; *pos < ARRAY_SIZE(lm_key_aliases); (*pos)++) {
		a = &lm_key_aliases[*pos];
		if (&lm_keys[a->id] != k)
			continue;
		(*pos)++;
		*from = a->from;
		return a->name;
	}
	return NULL;
}

/*
 * The order columns drop in when a line is too narrow, first first: the
 * extra percentiles, then what says least beside the rest (NOWAIT is 100
 * - CON; ONCPU is the hold less BLOCKED), down to HOLD MAX.  BLOCKED, a
 * sleeping holder's time off the CPU, stays past TOTAL: it is what the
 * hung-task reports are about.  NAME never drops, it takes the rest.
 */
static const enum lm_key_id lm_col_drop[] = {
	LM_K_P999WAIT, LM_K_P90WAIT, LM_K_P50WAIT, LM_K_P999HOLD, LM_K_P90HOLD, LM_K_P50HOLD,
	LM_K_NOWAIT, LM_K_HOLDER, LM_K_REJECT, LM_K_ABORT, LM_K_ONCPU, LM_K_P99WAIT,
	LM_K_WAITCPU, LM_K_RATE, LM_K_SPIN, LM_K_P99HOLD, LM_K_MEANWAIT, LM_K_TOTAL,
	LM_K_BLOCKED, LM_K_CON, LM_K_MAXWAIT, LM_K_TYPE, LM_K_UTIL, LM_K_MEANHOLD, LM_K_MAXHOLD,
};

static int lm_cols_drop_one(const enum lm_key_id *cols, size_t n, enum lm_key_id k,
			    const struct lm_key *keep, bool *show)
{
	size_t i;

	if (&lm_keys[k] == keep)
		return -1;
	for (i = 0; i < n; i++)
		if (cols[i] == k && show[i]) {
			show[i] = false;
			return (int)i;
		}
	return -1;
}

int lm_cols_fit(const enum lm_key_id *cols, const int *w, size_t n, int width, int name_min,
		const struct lm_key *keep, bool *show)
{
	int total = 0, at;
	size_t i, d;

	for (i = 0; i < n; i++) {
		show[i] = true;
		total += w[i];
	}
	for (d = 0; width > 0 && total + name_min > width && d <= ARRAY_SIZE(lm_col_drop); d++) {
		/* past the table: the sort key too */
		at = d < ARRAY_SIZE(lm_col_drop) ?
		     lm_cols_drop_one(cols, n, lm_col_drop[d], keep, show) :
		     keep ? lm_cols_drop_one(cols, n, (enum lm_key_id)(keep - lm_keys), NULL, show) : -1;
		if (at >= 0)
			total -= w[at];
	}
	return total;
}

void lm_filter_init(struct lm_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->width = -1;
	f->min_con = -1;
	f->min_util = -1;
	f->key = &lm_keys[LM_K_MAXHOLD];
}

/* ---- views ---- */

/* qsort has no context argument: the key of the sort in progress */
static const struct lm_key *lm_sort_key;
static const struct lm_ctx *lm_sort_ctx;
static int lm_sort_dir;

static int lm_sort_cmp(const struct lm_row *a, const struct lm_row *b)
{
	int c = lm_sort_key->cmp(a, b, lm_sort_ctx) * lm_sort_dir;

	return c ? c : cmp_type(a, b, NULL);
}

static int lm_sort_rowp(const void *pa, const void *pb)
{
	return lm_sort_cmp(*(const struct lm_row *const *)pa, *(const struct lm_row *const *)pb);
}

static int lm_sort_lock(const void *pa, const void *pb)
{
	return lm_sort_cmp(&((const struct lm_lock *)pa)->agg, &((const struct lm_lock *)pb)->agg);
}

/* (type, lock, site): the order in which a lock's sites are adjacent */
static int lm_group_cmp(const void *pa, const void *pb)
{
	const struct lm_row *a = *(const struct lm_row *const *)pa;
	const struct lm_row *b = *(const struct lm_row *const *)pb;
	int c = lm_cmp_u64(a->type, b->type);

	return c ? c : cmp_name(a, b, NULL);
}

static bool lm_same_lock(const struct lm_row *a, const struct lm_row *b)
{
	return a->type == b->type && !strcmp(a->lock, b->lock) &&
	       (!lm_lock_per_site(a->class) || !strcmp(a->site, b->site));
}

/* whether the worst holder or the worst waiter of @r is the task of --pid, --comm */
static bool lm_row_task(const struct lm_row *r, const struct lm_filter *f)
{
	int k;

	for (k = 0; k < LM_NR_EV; k++) {
		const struct lm_evidence *ev = r->ev[k];

		if (ev && (!f->has_pid || ev->pid == f->pid) &&
		    (!f->comm || !strcmp(ev->comm, f->comm)))
			return true;
	}
	return false;
}

static bool lm_row_pass(const struct lm_row *r, const struct lm_filter *f)
{
	if (r->type <= LM_TYPE_NONE || r->type >= LM_NR_TYPES)
		return false;
	if (f->types && !(f->types & (1U << r->type)))
		return false;
	if (f->name && !(f->icase ? strcasestr(r->lock, f->name) || strcasestr(r->site, f->name) :
			 strstr(r->lock, f->name) || strstr(r->site, f->name)))
		return false;
	if (f->caller && !(f->icase ? strcasestr(r->site, f->caller) : strstr(r->site, f->caller)))
		return false;
	return (!f->comm && !f->has_pid) || lm_row_task(r, f);
}

/* merge rows with equal (type, lock, site) into copies; returns the count */
static size_t lm_view_merge_equal(struct lm_view *v, size_t n)
{
	size_t i, j = 0, m = 0, last = SIZE_MAX;

	for (i = 0; i < n; i++) {
		const struct lm_row *r = v->rowv[i];

		if (j && lm_group_cmp(&v->rowv[j - 1], &v->rowv[i]) == 0) {
			if (last != j - 1) {
				v->merged[m] = *v->rowv[j - 1];
				v->rowv[j - 1] = &v->merged[m++];
				last = j - 1;
			}
			lm_row_add(&v->merged[m - 1], r);
			continue;
		}
		v->rowv[j++] = r;
	}
	return j;
}

/* runs of one lock's sites become locks; sections point at their runs */
static void lm_view_group(struct lm_view *v, size_t n)
{
	size_t i = 0, k, nr = 0;

	while (i < n) {
		const struct lm_row *r = v->rowv[i];
		struct lm_lock *lk = &v->lockv[nr++];
		struct lm_section *sec = &v->sec[r->type];
		uint64_t inst;

		for (k = i + 1; k < n && lm_same_lock(r, v->rowv[k]); k++)
			;
		lk->sites = &v->rowv[i];
		lk->nr_sites = k - i;
		lk->agg = *r;
		for (i++; i < k; i++)
			lm_row_add(&lk->agg, v->rowv[i]);
		lk->agg.site = lm_lock_per_site(r->class) ? r->site : NULL;
		if (!sec->locks)
			sec->locks = lk;
		sec->nr_locks++;
		sec->nr_rows += lk->nr_sites;
		inst = sec->total.v[LM_F_INSTANCES];
		lm_row_add(&sec->total, &lk->agg);
		sec->total.v[LM_F_INSTANCES] = lm_add_sat(inst, lk->agg.v[LM_F_INSTANCES]);
	}
}

/* --min-con, --min-util, the sort and --top within one section */
static void lm_view_section(struct lm_view *v, struct lm_section *sec)
{
	const struct lm_filter *f = v->filter;
	size_t i, j = 0;

	for (i = 0; i < sec->nr_locks; i++) {
		const struct lm_row *a = &sec->locks[i].agg;

		if (f->min_con >= 0 && lm_con_pct(a) < f->min_con)
			continue;
		if (f->min_util >= 0 && lm_util_pct(a, &v->ctx) < f->min_util)
			continue;
		sec->locks[j++] = sec->locks[i];
	}
	sec->nr_locks = j;
	if (!sec->nr_locks)
		return;		/* and sec->locks may be NULL */
	qsort(sec->locks, sec->nr_locks, sizeof(sec->locks[0]), lm_sort_lock);
	if (f->top && sec->nr_locks > f->top)
		sec->nr_locks = f->top;
	for (i = 0; i < sec->nr_locks; i++) {
		struct lm_lock *lk = &sec->locks[i];

		qsort(lk->sites, lk->nr_sites, sizeof(lk->sites[0]), lm_sort_rowp);
		if (f->top && lk->nr_sites > f->top)
			lk->nr_sites = f->top;
	}
}

int lm_view_build(struct lm_view *v, const struct lm_snapshot *s,
		  const struct lm_filter *f)
{
	size_t i, n = 0;
	int t;

	memset(v, 0, sizeof(*v));
	v->h = &s->h;
	v->filter = f;
	lm_ctx_init(&v->ctx, &s->h);
	for (t = 0; t < LM_NR_TYPES; t++) {
		v->sec[t].type = t;
		v->sec[t].total.type = t;
		v->sec[t].total.lock = "*TOTAL*";
		v->sec[t].total.hist = LM_HIST_ALL;	/* empty: sums to its 0 counts */
	}
	if (!s->nr)
		return 0;
	v->rowv = malloc(s->nr * sizeof(*v->rowv));
	v->merged = malloc(s->nr * sizeof(*v->merged));
	v->lockv = calloc(s->nr, sizeof(*v->lockv));
	if (!v->rowv || !v->merged || !v->lockv) {
		lm_view_free(v);
		return -1;
	}
	for (i = 0; i < s->nr; i++)
		if (lm_row_pass(&s->rows[i], f))
			v->rowv[n++] = &s->rows[i];
	qsort(v->rowv, n, sizeof(*v->rowv), lm_group_cmp);
	n = lm_view_merge_equal(v, n);
	lm_view_group(v, n);
	lm_sort_key = f->key;
	lm_sort_ctx = &v->ctx;
	lm_sort_dir = (f->key->desc != f->reverse) ? -1 : 1;
	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++)
		lm_view_section(v, &v->sec[t]);
	return 0;
}

void lm_view_free(struct lm_view *v)
{
	free(v->rowv);
	free(v->merged);
	free(v->lockv);
	v->rowv = NULL;
	v->merged = NULL;
	v->lockv = NULL;
}

/* ---- deltas, for top ---- */

/*
 * The identity of a row from one snapshot to the next: (type, lock, site),
 * but an overflow row is the type's, whatever hold names it.  The kernel
 * renames it when a longer hold comes; its counts go on growing.
 */
static int lm_ident_cmp(const struct lm_row *a, const struct lm_row *b)
{
	bool ao = a->class == LM_CLASS_OVERFLOW, bo = b->class == LM_CLASS_OVERFLOW;
	int c = lm_cmp_u64(a->type, b->type);

	if (c)
		return c;
	if (ao || bo)
		return ao && bo ? 0 : ao ? -1 : 1;
	return cmp_name(a, b, NULL);
}

static int lm_ident_cmpp(const void *pa, const void *pb)
{
	return lm_ident_cmp(*(const struct lm_row *const *)pa, *(const struct lm_row *const *)pb);
}

/* the rows of @s sorted by identity (lm_ident_cmp()), equal ones merged; NULL: no memory */
static struct lm_row *lm_rows_canon(const struct lm_snapshot *s, size_t *nr)
{
	const struct lm_row **rowv;
	struct lm_row *out;
	size_t i, n = 0;

	*nr = 0;
	rowv = malloc((s->nr ? s->nr : 1) * sizeof(*rowv));
	out = malloc((s->nr ? s->nr : 1) * sizeof(*out));
	if (!rowv || !out) {
		free(rowv);
		free(out);
		return NULL;
	}
	for (i = 0; i < s->nr; i++)
		rowv[i] = &s->rows[i];
	qsort(rowv, s->nr, sizeof(*rowv), lm_ident_cmpp);
	for (i = 0; i < s->nr; i++) {
		if (!n || lm_ident_cmp(rowv[i - 1], rowv[i])) {
			out[n++] = *rowv[i];
			continue;
		}
		/* two overflow rows of a type: named after the longer hold */
		if (rowv[i]->v[LM_F_HOLD_MAX] > out[n - 1].v[LM_F_HOLD_MAX]) {
			out[n - 1].lock = rowv[i]->lock;
			out[n - 1].site = rowv[i]->site;
		}
		lm_row_add(&out[n - 1], rowv[i]);
	}
	free(rowv);
	*nr = n;
	return out;
}

/* the fields that only grow while a row lives */
static bool lm_field_counts(int f)
{
	switch (f) {
	case LM_F_HOLD_MIN:
	case LM_F_HOLD_MAX:
	case LM_F_WAIT_MIN:
	case LM_F_WAIT_MAX:
	case LM_F_ONCPU_MAX:
	case LM_F_BLOCKED_MAX:
	case LM_F_INSTANCES:
		return false;
	default:
		return true;
	}
}

#define LM_MAX_FIELDS	((1U << LM_F_HOLD_MAX) | (1U << LM_F_WAIT_MAX) | \
			 (1U << LM_F_ONCPU_MAX) | (1U << LM_F_BLOCKED_MAX))

/* @d = @c - @p; false when @p is not an earlier state of @c's row */
static bool lm_row_sub(struct lm_row *d, const struct lm_row *c, const struct lm_row *p)
{
	int f;

	*d = *c;
	d->fresh = 0;
	d->nomin = 0;
	for (f = 0; f < LM_NR_FIELDS; f++) {
		if (!lm_field_counts(f))
			continue;
		if (c->v[f] < p->v[f])
			return false;
		d->v[f] = c->v[f] - p->v[f];
	}
	if (!lm_hist_sub(d, c, p))
		return false;
	for (f = 0; f < LM_NR_FIELDS; f++)
		if ((LM_MAX_FIELDS & (1U << f)) && c->v[f] > p->v[f])
			d->fresh |= 1U << f;
	/*
	 * a minimum is the interval's only when it went down; else the
	 * interval's holds (waits), if it had any, were no shorter: unknown
	 */
	if (c->v[LM_F_HOLD_MIN] == p->v[LM_F_HOLD_MIN]) {
		d->v[LM_F_HOLD_MIN] = 0;
		if (d->v[LM_F_ACQUIRED])
			d->nomin |= 1U << LM_F_HOLD_MIN;
	}
	if (c->v[LM_F_WAIT_MIN] == p->v[LM_F_WAIT_MIN]) {
		d->v[LM_F_WAIT_MIN] = 0;
		if (d->v[LM_F_SPIN])
			d->nomin |= 1U << LM_F_WAIT_MIN;
	}
	return true;
}

static bool lm_row_active(const struct lm_row *r)
{
	return r->v[LM_F_ACQUIRED] || lm_row_total(r) || r->v[LM_F_ABORT] ||
	       r->v[LM_F_HOLD_TOTAL] || r->v[LM_F_WAIT_TOTAL];
}

int lm_snap_delta(struct lm_snapshot *out, const struct lm_snapshot *cur,
		  const struct lm_snapshot *prev)
{
	struct lm_row *cv, *pv = NULL;
	size_t cn, pn = 0, i, j = 0;
	bool reset;
	int ret = -1;

	lm_snap_init(out);
	out->h = cur->h;
	reset = !prev || (lm_has(&cur->h, LM_H_METERED_NS) && lm_has(&prev->h, LM_H_METERED_NS) &&
			  cur->h.metered_ns < prev->h.metered_ns);
	if (prev && lm_has(&cur->h, LM_H_RESETS) && lm_has(&prev->h, LM_H_RESETS))
		reset = reset || cur->h.resets != prev->h.resets;
	if (!reset)
		out->h.metered_ns = cur->h.metered_ns - prev->h.metered_ns;
	/* other bounds: an interval of two kernels' buckets is no histogram */
	if (!reset && (cur->h.nr_buckets != prev->h.nr_buckets ||
		       memcmp(cur->h.bound, prev->h.bound,
			      cur->h.nr_buckets * sizeof(cur->h.bound[0]))))
		out->h.nr_buckets = 0;
	cv = lm_rows_canon(cur, &cn);
	if (!cv)
		return -1;
	if (!reset) {
		pv = lm_rows_canon(prev, &pn);
		if (!pv)
			goto out_free;
	}
	for (i = 0; i < cn; i++) {
		const struct lm_row *c = &cv[i];
		struct lm_row *d;
		int k = 1;

		while (j < pn && (k = lm_ident_cmp(&pv[j], c)) < 0)
			j++;
		d = lm_snap_add_row(out);
		if (!d)
			goto out_free;
		if (k || !lm_row_sub(d, c, &pv[j])) {
			*d = *c;
			d->fresh = LM_MAX_FIELDS;
		}
		if (!lm_row_active(d))
			out->nr--;
	}
	out->h.rows = out->nr;
	ret = reset;
out_free:
	free(cv);
	free(pv);
	if (ret < 0)
		lm_snap_free(out);
	return ret;
}

/* ---- locks held now ---- */

void lm_held_init(struct lm_held_list *l)
{
	memset(l, 0, sizeof(*l));
}

void lm_held_free(struct lm_held_list *l)
{
	lm_snap_free(&l->pool);
	free(l->v);
	lm_held_init(l);
}

/* a zeroed entry appended to @l, or NULL without memory */
struct lm_held *lm_held_add(struct lm_held_list *l)
{
	void *v = l->v;
	struct lm_held *h = lm_array_add(&v, &l->nr, &l->cap, sizeof(*h), 16);

	l->v = v;
	return h;
}

struct lm_waiter *lm_snap_add_waiters(struct lm_snapshot *s, size_t n)
{
	struct lm_waiter *w;

	if (n > SIZE_MAX / sizeof(*w))
		return NULL;
	w = lm_pool_get(s, n * sizeof(*w));
	if (w)
		memset(w, 0, n * sizeof(*w));
	return w;
}

struct lm_waiter *lm_held_waiters(struct lm_held_list *l, size_t n)
{
	return lm_snap_add_waiters(&l->pool, n);
}

static int lm_held_cmp(const void *pa, const void *pb)
{
	const struct lm_held *a = pa, *b = pb;
	int c = lm_cmp_u64(b->held_ns, a->held_ns);

	if (!c)
		c = lm_cmp_u64(a->pid, b->pid);
	if (!c)
		c = strcmp(a->lock, b->lock);
	return c ? c : strcmp(a->site, b->site);
}

static int lm_waiter_cmp(const void *pa, const void *pb)
{
	const struct lm_waiter *a = pa, *b = pb;
	int c = lm_cmp_u64(b->waited_ns, a->waited_ns);

	return c ? c : lm_cmp_u64(a->pid, b->pid);
}

void lm_held_sort(struct lm_held_list *l)
{
	size_t i;

	if (l->nr)
		qsort(l->v, l->nr, sizeof(l->v[0]), lm_held_cmp);
	for (i = 0; i < l->nr; i++)
		if (l->v[i].nr_waiters)
			qsort(l->v[i].waiters, l->v[i].nr_waiters, sizeof(l->v[i].waiters[0]),
			      lm_waiter_cmp);
}

/* ---- the flat list of top ---- */

static bool lm_flat_pass(const struct lm_row *r, const struct lm_filter *f,
			 const struct lm_ctx *c)
{
	if (f->min_con >= 0 && lm_con_pct(r) < f->min_con)
		return false;
	return f->min_util < 0 || lm_util_pct(r, c) >= f->min_util;
}

static int lm_sort_lockp(const void *pa, const void *pb)
{
	return lm_sort_cmp(&(*(const struct lm_lock *const *)pa)->agg,
			   &(*(const struct lm_lock *const *)pb)->agg);
}

/* the rows of a lock and of a (lock, site) that pass, in the order of the view */
static void lm_flat_rows(struct lm_flat *fl, const struct lm_filter *f, bool by_site)
{
	size_t i, k;
	int t;

	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		const struct lm_section *sec = &fl->v.sec[t];

		for (i = 0; i < sec->nr_locks; i++) {
			const struct lm_lock *lk = &sec->locks[i];

			if (!by_site) {
				if (lm_flat_pass(&lk->agg, f, &fl->v.ctx))
					fl->rows[fl->nr++] = &lk->agg;
				continue;
			}
			for (k = 0; k < lk->nr_sites; k++)
				if (lm_flat_pass(lk->sites[k], f, &fl->v.ctx))
					fl->rows[fl->nr++] = lk->sites[k];
		}
	}
}

/*
 * The tree: the locks that pass, sorted, each followed by its sites, which
 * the view sorted; --top N keeps N locks and N sites under each
 */
static int lm_flat_tree(struct lm_flat *fl, const struct lm_filter *f, size_t nr_locks)
{
	const struct lm_lock **lv = malloc((nr_locks ? nr_locks : 1) * sizeof(*lv));
	size_t i, k, n = 0, nr_sites;
	int t;

	if (!lv)
		return -1;
	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++)
		for (i = 0; i < fl->v.sec[t].nr_locks; i++)
			if (lm_flat_pass(&fl->v.sec[t].locks[i].agg, f, &fl->v.ctx))
				lv[n++] = &fl->v.sec[t].locks[i];
	qsort(lv, n, sizeof(*lv), lm_sort_lockp);
	if (f->top && n > f->top)
		n = f->top;
	for (i = 0; i < n; i++) {
		bool alone = lm_lock_per_site(lv[i]->agg.class);

		fl->line[fl->nr] = alone ? LM_TL_ALONE : LM_TL_LOCK;
		fl->rows[fl->nr++] = &lv[i]->agg;
		nr_sites = alone ? 0 : lv[i]->nr_sites;
		if (f->top && nr_sites > f->top)
			nr_sites = f->top;
		for (k = 0; k < nr_sites; k++) {
			fl->line[fl->nr] = k + 1 < nr_sites ? LM_TL_SITE : LM_TL_SITE_LAST;
			fl->rows[fl->nr++] = lv[i]->sites[k];
		}
	}
	free(lv);
	return 0;
}

int lm_flat_build(struct lm_flat *fl, const struct lm_snapshot *s, const struct lm_filter *f,
		  enum lm_flat_mode mode)
{
	struct lm_filter all = *f;
	size_t n = 0, nr_locks = 0, i;
	int t;

	memset(fl, 0, sizeof(*fl));
	all.top = 0;
	all.min_con = -1;
	all.min_util = -1;
	if (lm_view_build(&fl->v, s, &all))
		return -1;
	for (i = 0; i < s->nr; i++)
		if (s->rows[i].type > LM_TYPE_NONE && s->rows[i].type < LM_NR_TYPES)
			fl->nr_all++;
	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		nr_locks += fl->v.sec[t].nr_locks;
		n += mode == LM_FLAT_LOCK ? 0 : fl->v.sec[t].nr_rows;
	}
	n += mode == LM_FLAT_SITE ? 0 : nr_locks;
	fl->rows = malloc((n ? n : 1) * sizeof(*fl->rows));
	if (mode == LM_FLAT_TREE)
		fl->line = malloc(n ? n : 1);
	if (!fl->rows || (mode == LM_FLAT_TREE && !fl->line))
		goto out_free;
	lm_sort_key = f->key;
	lm_sort_ctx = &fl->v.ctx;
	lm_sort_dir = (f->key->desc != f->reverse) ? -1 : 1;
	if (mode == LM_FLAT_TREE) {
		if (lm_flat_tree(fl, f, nr_locks))
			goto out_free;
		return 0;
	}
	lm_flat_rows(fl, f, mode == LM_FLAT_SITE);
	qsort(fl->rows, fl->nr, sizeof(*fl->rows), lm_sort_rowp);
	if (f->top && fl->nr > f->top)
		fl->nr = f->top;
	return 0;
out_free:
	lm_flat_free(fl);
	return -1;
}

void lm_flat_fold(struct lm_flat *fl, bool (*folded)(const struct lm_row *lock, void *arg),
		  void *arg)
{
	bool fold = false;
	size_t i, j = 0;

	if (!fl->line)
		return;
	for (i = 0; i < fl->nr; i++) {
		uint8_t line = fl->line[i];

		if (line == LM_TL_LOCK && (fold = folded(fl->rows[i], arg)))
			line = LM_TL_FOLDED;
		else if (line == LM_TL_ALONE)
			fold = false;
		else if (lm_tree_site(line) && fold)
			continue;
		fl->line[j] = line;
		fl->rows[j++] = fl->rows[i];
	}
	fl->nr = j;
}

void lm_flat_free(struct lm_flat *fl)
{
	lm_view_free(&fl->v);
	free(fl->rows);
	free(fl->line);
	fl->rows = NULL;
	fl->line = NULL;
	fl->nr = 0;
}

/* ---- alerts (lockstat watch) ---- */

static const char *const lm_alert_kinds[LM_NR_ALERT_KINDS] = {
	[LM_ALERT_HOLD] = "hold",
	[LM_ALERT_WAIT] = "wait",
	[LM_ALERT_HELD] = "held",
};

const char *lm_alert_kind_name(uint32_t kind)
{
	return kind > LM_ALERT_NONE && kind < LM_NR_ALERT_KINDS ? lm_alert_kinds[kind] : "?";
}

void lm_alert_init(struct lm_alert *a)
{
	memset(a, 0, sizeof(*a));
	lm_snap_init(&a->pool);
}

void lm_alert_free(struct lm_alert *a)
{
	lm_snap_free(&a->pool);
	lm_alert_init(a);
}

uint64_t lm_watch_count_alert(struct lm_watch_count *c, const struct lm_alert *a)
{
	uint64_t gap = 0;

	c->alerts++;
	if (!lm_alert_has(a, LM_AB_SEQ))
		return 0;
	/* a seq that goes back: another boot's numbering, or a wrap; start again */
	if (c->last_seq && a->seq > c->last_seq + 1)
		gap = a->seq - c->last_seq - 1;
	c->gaps += gap;
	c->last_seq = a->seq;
	return gap;
}

uint64_t lm_watch_lost(const struct lm_watch_count *c, uint64_t start, uint64_t now)
{
	uint64_t sock = c->gaps > c->overruns ? c->gaps : c->overruns;

	return sock + (now >= start ? now - start : now);
}
