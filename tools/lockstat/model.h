/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat model: a snapshot of the lockmeter statistics (header fields
 * with presence bits, and the (type, lock, site) rows as the kernel sends
 * them), and the view built from it for the renderers: rows filtered,
 * call sites merged under their locks, locks and sites sorted.
 *
 * Nothing here does I/O or prints; the sources (nl.c, procfs.c,
 * snapfile.c) fill snapshots and the views (view_*.c) render them.
 */
#ifndef LOCKSTAT_MODEL_H
#define LOCKSTAT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * Lock types, numbered as enum lockmeter_lock_type: (enum, name, short
 * name, sleeping, title).  The name is the kernel's (/proc/lockmeter,
 * --type, JSON, CSV, labels); the short one, of 6 columns at most, is for
 * a TYPE column too narrow for the name.  A sleeping lock's holds split
 * into on-CPU and blocked time, its waits may abort, and the kernel keeps
 * per-task records of its holders.
 */
#define LM_TYPES(X)							\
	X(SPIN, spin, "spin", false, "SPINLOCKS")			\
	X(READ, read, "read", false, "RWLOCK READS")			\
	X(WRITE, write, "write", false, "RWLOCK WRITES")		\
	X(MUTEX, mutex, "mutex", true, "MUTEXES")			\
	X(RWSEM_READ, rwsem_read, "rsem_r", true, "RWSEM READS")	\
	X(RWSEM_WRITE, rwsem_write, "rsem_w", true, "RWSEM WRITES")	\
	X(RT_MUTEX, rt_mutex, "rt_mtx", true, "RT MUTEXES")		\
	X(PERCPU_RWSEM_READ, percpu_rwsem_read, "pcrw_r", true,		\
	  "PERCPU RWSEM READS")						\
	X(PERCPU_RWSEM_WRITE, percpu_rwsem_write, "pcrw_w", true,	\
	  "PERCPU RWSEM WRITES")					\
	X(SEMAPHORE, semaphore, "sem", true, "SEMAPHORES")		\
	X(RT_SPIN, rt_spin, "rtspin", true, "RT SPINLOCKS")		\
	X(RT_READ, rt_read, "rt_r", true, "RT RWLOCK READS")		\
	X(RT_WRITE, rt_write, "rt_w", true, "RT RWLOCK WRITES")

/* the longest short name of LM_TYPES */
#define LM_TYPE_SHORT_MAX	6

enum lm_type {
	LM_TYPE_NONE,
#define X(e, n, s, z, t)	LM_TYPE_##e,
	LM_TYPES(X)
#undef X
	LM_NR_TYPES
};

/*
 * The kernel's count of a heap or slab row's instances is an estimate
 * from a 64-bucket set of their addresses, which stops at this.
 */
#define LM_INST_SATURATED	266

/* Where a lock lives, numbered as enum lockmeter_lock_class. */
enum lm_class {
	LM_CLASS_STATIC,
	LM_CLASS_PERCPU,
	LM_CLASS_HEAP,
	LM_CLASS_OVERFLOW,
	LM_CLASS_SLAB,
};

/*
 * The numbers of a row, in /proc/lockmeter order (fields 2-17).  The enum
 * names are those of LOCKMETER_R_*, the second column is the /proc name.
 */
#define LM_FIELDS(X)					\
	X(ACQUIRED, acquired)				\
	X(NOWAIT, nowait)				\
	X(SPIN, spin)					\
	X(REJECT, reject)				\
	X(ABORT, abort)					\
	X(HOLD_TOTAL, hold_total_ns)			\
	X(HOLD_MIN, hold_min_ns)			\
	X(HOLD_MAX, hold_max_ns)			\
	X(WAIT_TOTAL, wait_total_ns)			\
	X(WAIT_MIN, wait_min_ns)			\
	X(WAIT_MAX, wait_max_ns)			\
	X(ONCPU_TOTAL, oncpu_total_ns)			\
	X(ONCPU_MAX, oncpu_max_ns)			\
	X(BLOCKED_TOTAL, blocked_total_ns)		\
	X(BLOCKED_MAX, blocked_max_ns)			\
	X(INSTANCES, instances)

enum lm_field {
#define X(e, n)	LM_F_##e,
	LM_FIELDS(X)
#undef X
	LM_NR_FIELDS
};

/* /proc/lockmeter fields per row: type, the numbers, lock, site */
#define LM_ROW_FIELDS	(LM_NR_FIELDS + 3)

/* The loss counters; the enum names are those of LOCKMETER_A_*. */
#define LM_LOSSES(X)		\
	X(DROPPED, dropped)	\
	X(UNMATCHED, unmatched)	\
	X(RECURSION, recursion)	\
	X(TABLE_FULL, table_full) \
	X(EVICTED, evicted)	\
	X(IRQCTX, irqctx)	\
	X(TRUNCATED, truncated)	\
	X(NOTASK, notask)	\
	X(STACKS_FULL, stacks_full) \
	X(HIST_LOST, hist_lost)

enum lm_loss {
#define X(e, n)	LM_L_##e,
	LM_LOSSES(X)
#undef X
	LM_NR_LOSSES
};

/*
 * Evidence: who made a row's longest hold or wait, and through which call
 * chain (taken by the kernel when the hold or wait set the maximum of its
 * row on its CPU; netlink only, /proc/lockmeter has none).  pid, comm,
 * context, cpu and time are always there; the rest has presence bits.
 * The hold evidence of a sleeping lock (lm_type_sleeping()) may add the
 * longest stretch of that hold the holder spent blocked, and the chain
 * where it blocked (from the outermost scheduler function in).
 * comm and the frames are as the kernel sent them: any byte but NUL, to
 * be escaped by whoever prints them.
 */
#define LM_EV_FRAMES	16	/* frames of a call chain, at most */
#define LM_COMM_MAX	64	/* bytes of a comm, with its NUL */
#define LM_FRAME_MAX	1024	/* bytes of a frame, with its NUL */

enum lm_ev_kind {
	LM_EV_HOLD,		/* the longest hold: the chain at the release */
	LM_EV_WAIT,		/* the longest wait: the chain at the acquire */
	LM_NR_EV
};

/* where it happened, numbered as enum lockmeter_context */
enum lm_context {
	LM_CONTEXT_TASK,
	LM_CONTEXT_SOFTIRQ,
	LM_CONTEXT_HARDIRQ,
	LM_NR_CONTEXTS
};

enum lm_ev_bit {
	LM_EB_OWNER_PID,	/* a sleeping lock's owner when the wait began */
	LM_EB_OWNER_COMM,	/* only with LM_EB_OWNER_PID */
	LM_EB_ADDRS,		/* addr[], one per frame (privileged readers) */
	LM_EB_BLOCKED,		/* blocked_ns and blocked_frame[]: hold evidence only */
	LM_EB_BLOCKED_ADDRS,	/* blocked_addr[], one per blocked frame */
};

struct lm_evidence {
	uint32_t present;	/* 1 << enum lm_ev_bit */
	uint32_t pid;
	uint32_t context;	/* enum lm_context */
	uint32_t cpu;
	uint64_t time_ns;	/* when the hold or wait ended, since boot */
	uint32_t owner_pid;
	uint32_t nr_frames;	/* 0: the chain was not kept (stacks_full) */
	const char *comm;
	const char *owner_comm;
	const char *frame[LM_EV_FRAMES];	/* innermost first */
	uint64_t addr[LM_EV_FRAMES];
	uint64_t blocked_ns;	/* longest stretch of the hold spent blocked */
	uint32_t nr_blocked;	/* 0: no chain kept of where it blocked */
	const char *blocked_frame[LM_EV_FRAMES];	/* innermost first */
	uint64_t blocked_addr[LM_EV_FRAMES];
};

static inline bool lm_ev_has(const struct lm_evidence *ev, enum lm_ev_bit bit)
{
	return ev->present & (1U << bit);
}

/*
 * Histograms of hold and wait times: per row, a count per bucket, in the
 * order of the bounds of the snapshot's header (lm_header.bound, from
 * the kernel's status).  A kind is valid only when its bit is in
 * ->hist; the hold counts sum to acquired, the wait counts to spin.  A
 * merge keeps a kind only when every merged row has it.
 */
#define LM_HIST_MAX	32	/* buckets this reader takes; the kernel sends 28 */

enum lm_hist_kind {
	LM_HIST_HOLD,
	LM_HIST_WAIT,
	LM_NR_HIST
};

#define LM_HIST_ALL	((1U << LM_NR_HIST) - 1)

struct lm_row {
	uint32_t type;		/* enum lm_type */
	uint32_t class;		/* enum lm_class */
	uint32_t fresh;		/* deltas: 1 << LM_F_*_MAX of maxima set in
				 * the interval; the others are older */
	uint32_t nomin;		/* deltas: 1 << LM_F_*_MIN of minima the
				 * interval cannot tell (the total one did
				 * not go down); their value is 0 */
	uint64_t v[LM_NR_FIELDS];
	const char *lock;
	const char *site;
	/* of HOLD_MAX and WAIT_MAX, or NULL: in the snapshot's pool */
	const struct lm_evidence *ev[LM_NR_EV];
	uint32_t hist;		/* 1 << enum lm_hist_kind */
	uint64_t hc[LM_NR_HIST][LM_HIST_MAX];
	bool has_alerts;	/* the kernel sent alerts (netlink only) */
	uint64_t alerts;	/* holds and waits over a watch threshold ... */
	uint64_t alerts_dropped;	/* ... dropped by their CPU (queue full) */
};

/*
 * The thresholds of lockstat watch, per lock type: a hold or a wait
 * longer is an alert (LOCKMETER_CMD_WATCH_SET; the status sends them).
 */
enum lm_watch_kind {
	LM_WATCH_HOLD,
	LM_WATCH_WAIT,
	LM_NR_WATCH
};

/* Header fields; a field is valid only when its bit is in ->present. */
enum lm_hdr_bit {
	LM_H_COMMAND,		/* "get" or "record": who wrote the file */
	LM_H_SOURCE,		/* "netlink" or "proc" */
	LM_H_SYSTEM,		/* uname -s */
	LM_H_NODE,		/* uname -n */
	LM_H_RELEASE,		/* uname -r */
	LM_H_UVERSION,		/* uname -v */
	LM_H_MACHINE,		/* uname -m */
	LM_H_KERNEL,		/* release as lockmeter reports it */
	LM_H_CLOCK,
	LM_H_CPUS,
	LM_H_CPU,		/* one CPU's table only */
	LM_H_STATE,
	LM_H_START,		/* wall clock */
	LM_H_END,
	LM_H_METERED_NS,
	LM_H_RESETS,		/* since boot: equal counts, one period */
	LM_H_KEYS_USED,		/* rows of the key directory in use (all CPUs) */
	LM_H_KEYS,		/* its size: (lock, site, type) keys it can hold */
	LM_H_SLOTS_USED,	/* older kernels: the fullest CPU's table; newer: = keys_used */
	LM_H_SLOTS_PER_CPU,	/* older kernels: one CPU's table; newer: = keys */
	LM_H_ROWS,
	LM_H_MEM_PERCPU,	/* bytes per CPU once metering is on; with mem_cpus, the
				 * mean of the CPUs that have state, rows included */
	LM_H_MEM_TABLES,	/* bytes of tables, all CPUs; 0 before the first on
				 * and after a release */
	LM_H_MEM_TASK,		/* bytes added to each task_struct */
	LM_H_MEM_KEYS,		/* bytes of the key directory, once (in mem_tables) */
	LM_H_MEM_CPUS,		/* CPUs that have metering state (online since the first on) */
	LM_H_MEM_ROWS,		/* bytes of row chunks, all CPUs (in mem_tables) */
	LM_H_MEM_CAP,		/* bytes metering may allocate at most */
	LM_H_CAPTURES,		/* pieces of evidence taken (no loss) */
	LM_H_ALERTS,		/* holds and waits over a watch threshold */
	LM_H_ALERTS_SENT,	/* alerts sent to the alerts group */
	LM_H_ALERTS_DROPPED,	/* alerts not sent (queue full, rate limit, no one) */
	LM_H_LOSS,		/* + enum lm_loss */
	LM_NR_HDR = LM_H_LOSS + LM_NR_LOSSES
};

#define LM_STR_LEN	192

struct lm_header {
	uint64_t present;
	char command[16];
	char source[16];
	char system[LM_STR_LEN];
	char node[LM_STR_LEN];
	char release[LM_STR_LEN];
	char uversion[LM_STR_LEN];
	char machine[LM_STR_LEN];
	char kernel[LM_STR_LEN];
	char clock[LM_STR_LEN];
	uint32_t cpus;
	uint32_t cpu;
	uint32_t on;
	struct timespec start;
	struct timespec end;
	uint64_t metered_ns;
	uint64_t resets;
	uint32_t keys_used;
	uint32_t keys;
	uint32_t slots_used;
	uint32_t slots_per_cpu;
	uint64_t rows;
	uint64_t mem_percpu;
	uint64_t mem_tables;
	uint64_t mem_task;
	uint64_t mem_keys;
	uint64_t mem_cpus;	/* a count, 64 bits as netlink's uint may be */
	uint64_t mem_rows;
	uint64_t mem_cap;
	uint64_t captures;
	uint64_t alerts;
	uint64_t alerts_sent;
	uint64_t alerts_dropped;
	uint64_t loss[LM_NR_LOSSES];
	uint32_t nr_buckets;	/* 0: no histograms (an older kernel, /proc) */
	uint64_t bound[LM_HIST_MAX];	/* ns: each bucket's lower bound, from 0 */
	bool has_watch;		/* the kernel sent its thresholds (netlink only) */
	uint64_t watch_ns[LM_NR_WATCH][LM_NR_TYPES];	/* ns, [kind][type]; 0: none */
};

static inline bool lm_has(const struct lm_header *h, enum lm_hdr_bit bit)
{
	return h->present & (1ULL << bit);
}

static inline void lm_set(struct lm_header *h, enum lm_hdr_bit bit)
{
	h->present |= 1ULL << bit;
}

/* How a header field is spelled in /proc/lockmeter and snapshot files. */
enum lm_hdr_kind {
	LM_HK_STR,
	LM_HK_U32,
	LM_HK_U64,
	LM_HK_TIME,		/* unix seconds with ns: 1732968000.123456789 */
	LM_HK_STATE,		/* on, off */
};

struct lm_hdr_key {
	const char *name;
	enum lm_hdr_kind kind;
	size_t off;		/* in struct lm_header */
	size_t size;		/* of a string buffer */
};

/* indexed by enum lm_hdr_bit */
extern const struct lm_hdr_key lm_hdr_keys[LM_NR_HDR];

int lm_hdr_find(const char *name);
int lm_parse_u64(const char *s, uint64_t *out);
int lm_hdr_set(struct lm_header *h, int bit, const char *val, const char **why);
void lm_hdr_put_str(struct lm_header *h, int bit, const char *val);
void lm_hdr_format(const struct lm_header *h, int bit, char *buf, size_t len);

struct lm_pool;

struct lm_snapshot {
	struct lm_header h;
	struct lm_row *rows;
	size_t nr;
	size_t cap;
	struct lm_pool *pool;	/* the names and the evidence */
};

void lm_snap_init(struct lm_snapshot *s);
void lm_snap_free(struct lm_snapshot *s);
struct lm_row *lm_snap_add_row(struct lm_snapshot *s);
const char *lm_snap_strdup(struct lm_snapshot *s, const char *str);
struct lm_evidence *lm_snap_add_ev(struct lm_snapshot *s);

const char *lm_context_name(uint32_t context);
int lm_context_parse(const char *name);
extern const char *const lm_ev_names[LM_NR_EV];
bool lm_ev_equal(const struct lm_evidence *a, const struct lm_evidence *b);
/* @s with bytes below ' ', from 0x7f, '\\' and those in @also as \xHH */
void lm_esc(char *buf, size_t len, const char *s, const char *also);

const char *lm_type_name(uint32_t type);
const char *lm_type_title(uint32_t type);
int lm_type_parse(const char *name);
bool lm_type_sleeping(uint32_t type);
const char *lm_type_fit(uint32_t type, int width);
void lm_type_list(char *buf, size_t len, const char *sep);
const char *lm_class_name(uint32_t class);
uint32_t lm_class_of(const char *lock);

/* the lock name of an overflow row; "(worst:NAME)" may follow */
#define LM_OVERFLOW_NAME	"*overflow*"

/* the use of the kernel's key table, from whichever header lines there are */
struct lm_key_use {
	uint32_t used;
	uint32_t size;
	bool shared;		/* the directory of all CPUs; false: per CPU (older kernels) */
};

bool lm_hdr_key_use(const struct lm_header *h, struct lm_key_use *u);
double lm_key_use_pct(const struct lm_key_use *u);
extern const char *const lm_field_names[LM_NR_FIELDS];
extern const char *const lm_loss_names[LM_NR_LOSSES];

uint64_t lm_row_total(const struct lm_row *r);
uint64_t lm_row_contended(const struct lm_row *r);
const char *lm_row_impossible(const struct lm_row *r);
const char *lm_hdr_impossible(const struct lm_header *h, int bit);
void lm_row_add(struct lm_row *dst, const struct lm_row *src);

/* histograms */
struct lm_ctx;
extern const char *const lm_hist_names[LM_NR_HIST];
const char *lm_bounds_invalid(const uint64_t *bound, uint32_t n);
const char *lm_row_hist_invalid(const struct lm_row *r, uint32_t n);
uint64_t lm_hist_sum(const uint64_t *c, uint32_t n);

/*
 * Percentiles, estimated at bucket resolution: the rank's bucket found,
 * the value interpolated linearly inside it and kept within the row's
 * minimum and maximum.  In the last bucket, which has no upper bound,
 * only its lower bound is known: LM_PCT_GE.
 */
enum lm_pct_id {
	LM_P50,
	LM_P90,
	LM_P99,
	LM_P999,
	LM_NR_PCT
};

enum lm_pct_res {
	LM_PCT_NONE,		/* no histogram, or no samples in it */
	LM_PCT_EST,		/* *ns interpolated inside a bucket */
	LM_PCT_GE,		/* *ns is the lower bound of the last bucket */
};

struct lm_pct_def {
	const char *label;	/* "p99.9" */
	const char *json;	/* "p999": hold_p999_ns */
	unsigned int permille;
};

extern const struct lm_pct_def lm_pcts[LM_NR_PCT];
enum lm_pct_res lm_hist_pct(const uint64_t *c, const uint64_t *bound, uint32_t n,
			    unsigned int permille, uint64_t lo, uint64_t hi, double *ns);
enum lm_pct_res lm_row_pct(const struct lm_row *r, const struct lm_ctx *c, int kind,
			   int pct, double *ns);
/* a percentile's cell: "43us", ">=1.1s", "-" */
void lm_fmt_pct_cell(char *buf, size_t len, const struct lm_row *r, const struct lm_ctx *c,
		     int kind, int pct);
bool lm_name_printable(const char *s);

/* What the derived columns are relative to. */
struct lm_ctx {
	double elapsed_ns;	/* metered time */
	double cpus;		/* CPUs whose tables are in the rows */
	const uint64_t *bound;	/* the header's histogram bounds */
	uint32_t nr_buckets;	/* 0: no histograms */
};

void lm_ctx_init(struct lm_ctx *c, const struct lm_header *h);
double lm_util_pct(const struct lm_row *r, const struct lm_ctx *c);
/* total wait / (CPUs x metered time), the table's (% CPU) */
double lm_waitcpu_pct(const struct lm_row *r, const struct lm_ctx *c);
double lm_con_pct(const struct lm_row *r);
/* the mean hold of the acquisitions, or the mean wait of those that waited; 0 for none */
double lm_mean_ns(const struct lm_row *r, enum lm_hist_kind kind);

/* units: "0us", "691ns", "2.4us", "51ms", "1.5s"; percentages: "0.82%" */
size_t lm_u64_str(char *buf, uint64_t n);
void lm_fmt_time(char *buf, size_t len, double ns);
void lm_fmt_pct(char *buf, size_t len, double pct);
/* a count per second: "0", "0.5", "12", "345", "1.2k", "12k", "3.4M" */
void lm_fmt_rate(char *buf, size_t len, double per_s);
/* @n as it is up to @digits digits, else shortened as a rate is ("12G") */
void lm_fmt_count(char *buf, size_t len, uint64_t n, unsigned int digits);
/* "func+0xoff/0xsize[mod]" -> "func[mod]" */
void lm_site_func(char *buf, size_t len, const char *site);
/* a frame's function, escaped: "msleep+0x2d/0x50 [mod]" -> "msleep" */
void lm_frame_func(char *buf, size_t len, const char *frame);
/* functions named in the one-line summary of where a holder blocked */
#define LM_BLOCKED_NAMES	4

/*
 * Sort keys and columns, one table: name (for --sort), column header,
 * width, a three-way comparator in natural (ascending) order and the
 * printer of the cell.  desc says which way the key sorts by default;
 * -r flips it; the direction is applied once, in the sort.
 */
enum lm_key_id {
	LM_K_MAXHOLD,
	LM_K_MEANHOLD,
	LM_K_TOTALHOLD,
	LM_K_UTIL,
	LM_K_CON,
	LM_K_MAXWAIT,
	LM_K_MINWAIT,
	LM_K_MEANWAIT,
	LM_K_WAITCPU,
	LM_K_TOTAL,
	LM_K_NOWAIT,
	LM_K_SPIN,
	LM_K_REJECT,
	LM_K_ABORT,
	LM_K_BLOCKED,
	LM_K_ONCPU,
	LM_K_RATE,
	LM_K_CONTENDED,
	LM_K_HOLDER,
	LM_K_P50HOLD,
	LM_K_P90HOLD,
	LM_K_P99HOLD,
	LM_K_P999HOLD,
	LM_K_P50WAIT,
	LM_K_P90WAIT,
	LM_K_P99WAIT,
	LM_K_P999WAIT,
	LM_K_TYPE,
	LM_K_NAME,
	LM_NR_KEYS
};

struct lm_key {
	const char *name;
	const char *header;
	int width;
	int (*cmp)(const struct lm_row *a, const struct lm_row *b, const struct lm_ctx *c);
	void (*print)(char *buf, size_t len, const struct lm_row *r,
		      const struct lm_ctx *c);
	bool desc;
	const char *help;
};

extern const struct lm_key lm_keys[LM_NR_KEYS];
const struct lm_key *lm_key_find(const char *name);
/*
 * The other names of key @k that users may know (perf lock's, klockstat's),
 * one a call: the next from *@pos on (start at 0), *@from the tool that
 * names it so; NULL after the last
 */
const char *lm_key_alias(const struct lm_key *k, size_t *pos, const char **from);

/* What to show. */
struct lm_filter {
	bool stacks;		/* the table: evidence under each site (--stacks) */
	bool percentiles;	/* the table: p50 to p99.9 columns (--percentiles) */
	const char *name;	/* substring of the lock or site name */
	bool icase;		/* ... in any case (-i), and of caller */
	const char *caller;	/* substring of the site name (-c, klockstat's) */
	const char *comm;	/* rows whose worst holder or waiter is this task */
	bool has_pid;
	uint32_t pid;	/* ... or has this pid (the evidence's) */
	unsigned int types;	/* 1 << enum lm_type; 0: all */
	double min_con;		/* percent; < 0: off */
	double min_util;
	size_t top;		/* locks per section, sites per lock; 0: all */
	const struct lm_key *key;
	bool reverse;
	int width;		/* --width: columns of the text; 0 no limit; -1 unset */
};

void lm_filter_init(struct lm_filter *f);

/*
 * Narrow lines: the columns of report, diff and top in the order they
 * drop, first first, one table for all (lm_col_drop[] in model.c).
 * lm_cols_fit() hides, in that order, columns of @cols (@w[i] wide, with
 * their blanks) until they and @name_min columns of NAME fit in @width
 * (0: no limit), the sort key @keep last; @show[i] says which stay.
 * Returns the width of those that stay.
 */
int lm_cols_fit(const enum lm_key_id *cols, const int *w, size_t n, int width, int name_min,
		const struct lm_key *keep, bool *show);

/* A lock: its sites summed in agg, the sites themselves beneath. */
struct lm_lock {
	struct lm_row agg;	/* .lock = name; .site = NULL, or the site of
				 * a [heap] or *overflow* row (its own lock) */
	const struct lm_row **sites;
	size_t nr_sites;
};

struct lm_section {
	uint32_t type;
	struct lm_row total;	/* every row of the type that passed the
				 * row filters (--type, --name) */
	size_t nr_rows;
	struct lm_lock *locks;	/* shown: after --min-*, sort and --top */
	size_t nr_locks;
};

struct lm_view {
	const struct lm_header *h;
	struct lm_ctx ctx;
	const struct lm_filter *filter;
	struct lm_section sec[LM_NR_TYPES];	/* [0] unused */
	const struct lm_row **rowv;
	struct lm_row *merged;
	struct lm_lock *lockv;
};

bool lm_lock_per_site(uint32_t class);
int lm_view_build(struct lm_view *v, const struct lm_snapshot *s,
		  const struct lm_filter *f);
void lm_view_free(struct lm_view *v);

/*
 * What happened between two snapshots of the same kernel: per (type,
 * lock, site), or per type for an overflow row (its name follows its
 * longest hold, so it may change), the counts and totals of @cur minus
 * those of @prev, the
 * maxima of @cur with ->fresh saying which were set in the interval, and
 * the header of @cur with the metered time of the interval.  A row that
 * did nothing in the interval is left out.  A row whose counts went down
 * was evicted or reset and counted again: its @cur values are the
 * interval's.  When the kernel was reset in between (the reset counts
 * differ, or without them the metered time went down) @out is all of
 * @cur; lm_snap_delta() then returns 1.  @out's names and evidence
 * point into @cur: free @out first.  The evidence of a maximum is that of
 * @cur, as fresh as the maximum.  -1: out of memory.
 */
int lm_snap_delta(struct lm_snapshot *out, const struct lm_snapshot *cur,
		  const struct lm_snapshot *prev);

/*
 * One list across the lock types, for top: every lock (a lock's sites
 * summed), every (lock, site), or the tree: every lock with its sites
 * beneath it.  After the filter, sorted by its key (in the tree the locks,
 * and the sites of each lock) and cut at its --top (in the tree, N locks
 * and N sites under each).  The rows point into @s.
 */
enum lm_flat_mode {
	LM_FLAT_LOCK,
	LM_FLAT_SITE,
	LM_FLAT_TREE,
};

/* what a line of the tree is (lm_flat.line[]) */
enum lm_tree_line {
	LM_TL_LOCK,		/* a lock, its sites on the lines below */
	LM_TL_FOLDED,		/* a lock, its sites folded away */
	LM_TL_ALONE,		/* a lock that is one site ([heap], *overflow*) */
	LM_TL_SITE,		/* a site of the lock above, more below */
	LM_TL_SITE_LAST,	/* the lock's last site */
};

static inline bool lm_tree_site(int line)
{
	return line == LM_TL_SITE || line == LM_TL_SITE_LAST;
}

struct lm_flat {
	struct lm_view v;
	const struct lm_row **rows;
	uint8_t *line;		/* the tree: enum lm_tree_line per row; else NULL */
	size_t nr;
	size_t nr_all;		/* before the name and type filters */
};

int lm_flat_build(struct lm_flat *fl, const struct lm_snapshot *s, const struct lm_filter *f,
		  enum lm_flat_mode mode);
/*
 * The tree without the sites of the locks @folded says are folded, each
 * of them LM_TL_FOLDED; a list that is no tree stays as it is.
 */
void lm_flat_fold(struct lm_flat *fl, bool (*folded)(const struct lm_row *lock, void *arg),
		  void *arg);
void lm_flat_free(struct lm_flat *fl);

/*
 * Locks held right now (lockstat held, LOCKMETER_CMD_HELD_GET): the lock,
 * its holder and for how long so far, for a sleeping lock the holder's
 * chain now and the tasks waiting for it.  Names are in the list's pool;
 * comm, frames and sites as the kernel sent them, to be escaped.
 */
#define LM_HELD_FRAMES	64	/* frames of a holder's chain, at most */

struct lm_waiter {
	uint32_t pid;
	uint32_t type;		/* enum lm_type: how it wants the lock */
	uint64_t waited_ns;	/* so far */
	const char *comm;
	const char *site;	/* where it waits; NULL: not sent */
};

enum lm_held_bit {
	LM_HB_CPU,		/* a spinning lock: the CPU holding it */
	LM_HB_ADDRS,		/* addr[], one per frame (privileged readers) */
};

struct lm_held {
	uint32_t present;	/* 1 << enum lm_held_bit */
	uint32_t type;		/* enum lm_type */
	uint32_t class;		/* enum lm_class */
	uint32_t pid;
	uint32_t cpu;
	uint64_t held_ns;	/* so far */
	const char *lock;
	const char *site;
	const char *comm;
	uint32_t nr_frames;	/* sleeping locks: the holder's chain now */
	const char *frame[LM_HELD_FRAMES];	/* innermost first */
	uint64_t addr[LM_HELD_FRAMES];
	struct lm_waiter *waiters;	/* longest wait first, once sorted */
	uint32_t nr_waiters;
};

struct lm_held_list {
	struct lm_snapshot pool;	/* only its pool: names and waiters */
	struct lm_held *v;
	size_t nr;
	size_t cap;
	bool has_truncated;		/* the kernel sent its truncated count */
	uint64_t truncated;		/* held locks its snapshot had no room for */
};

void lm_held_init(struct lm_held_list *l);
void lm_held_free(struct lm_held_list *l);
struct lm_held *lm_held_add(struct lm_held_list *l);
/* @n zeroed waiters that live as long as @l, or NULL */
struct lm_waiter *lm_held_waiters(struct lm_held_list *l, size_t n);
/* longest held first (then pid, lock, site); each lock's waiters longest first */
void lm_held_sort(struct lm_held_list *l);
/* @n zeroed waiters in the pool of @s, or NULL */
struct lm_waiter *lm_snap_add_waiters(struct lm_snapshot *s, size_t n);

/*
 * An alert of lockstat watch (LOCKMETER_CMD_ALERT, the alerts multicast
 * group): a hold or a wait over its type's threshold, or a sleeping lock
 * still held over it (once per hold).  kind, type, class, lock, site, ns
 * and threshold_ns are always there; the rest has presence bits.  The
 * evidence is that of the hold (where it was released, and where its
 * holder blocked), of the wait (where it was acquired, the owner waited
 * for) or of held (the holder and its chain now; time: when found).
 * Names, evidence and waiters are in ->pool; lock and site are
 * sanitized as rows' names are, comm, frames and waiters' sites are as
 * the kernel sent them, to be escaped.
 */
enum lm_alert_kind {
	LM_ALERT_NONE,
	LM_ALERT_HOLD,		/* numbered as enum lockmeter_alert_kind */
	LM_ALERT_WAIT,
	LM_ALERT_HELD,
	LM_NR_ALERT_KINDS
};

enum lm_alert_bit {
	LM_AB_EVIDENCE,		/* ev */
	LM_AB_SEQ,		/* seq */
	LM_AB_DROPPED,		/* dropped */
};

struct lm_alert {
	uint32_t present;	/* 1 << enum lm_alert_bit */
	uint32_t kind;		/* enum lm_alert_kind */
	uint32_t type;		/* enum lm_type */
	uint32_t class;		/* enum lm_class */
	uint64_t ns;		/* the hold or wait; held: so far */
	uint64_t threshold_ns;
	uint64_t seq;		/* among the alerts sent since boot, from 1 */
	uint64_t dropped;	/* the kernel's alerts_dropped when it was sent */
	const char *lock;
	const char *site;
	const struct lm_evidence *ev;
	struct lm_waiter *waiters;	/* held only */
	uint32_t nr_waiters;
	struct lm_snapshot pool;	/* only its pool */
};

static inline bool lm_alert_has(const struct lm_alert *a, enum lm_alert_bit bit)
{
	return a->present & (1U << bit);
}

void lm_alert_init(struct lm_alert *a);
/* frees what the alert's pool holds and zeroes it, for the next */
void lm_alert_free(struct lm_alert *a);
const char *lm_alert_kind_name(uint32_t kind);

/*
 * What lockstat watch counts: the alerts received, and those lost on
 * the way.  The kernel numbers the alerts it sends (seq); a gap in the
 * numbers is alerts the socket had no room for.  A receive that fails
 * with ENOBUFS (an overrun) lost at least one, whose number a later
 * alert may show or not: the socket's losses are the larger of the two.
 */
struct lm_watch_count {
	uint64_t alerts;	/* received */
	uint64_t gaps;		/* missing from the seq numbers */
	uint64_t overruns;	/* receives that failed with ENOBUFS */
	uint64_t last_seq;	/* 0: none seen yet */
};

/* @a received: the alerts it shows lost before it, to be said (0: none) */
uint64_t lm_watch_count_alert(struct lm_watch_count *c, const struct lm_alert *a);
/*
 * Alerts lost: the socket's, and those the kernel dropped between its
 * alerts_dropped of @start and of @now (a reset in between: all of @now's)
 */
uint64_t lm_watch_lost(const struct lm_watch_count *c, uint64_t start, uint64_t now);

#endif /* LOCKSTAT_MODEL_H */
