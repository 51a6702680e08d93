// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat held: the locks held right now, longest first, as a table or
 * as JSON, from the list nl.c reads (LOCKMETER_CMD_HELD_GET).
 *
 *   TYPE          HELD     PID COMM             CPU LOCK            SITE
 *   mutex         2.0s     431 lmt/holder         - lmt_held_mutex  lmt_held_holder+0x2a
 *     stack:
 *       msleep+0x2d/0x50
 *       lmt_held_holder+0x3a/0x60 [test_lockmeter]
 *     waiter 432 lmt/waiter waited 1.9s at lmt_held_waiter+0x1e (mutex)
 *
 * TYPE is as wide as the widest type shown (rwsem_write's at least).
 * HELD and waited are so far, humanized as the table's times; CPU is the
 * CPU holding a spinning lock, or the CPU a sleeping lock's holder runs on
 * when its chain could not be read for that ("-" otherwise); the stack is
 * a sleeping lock's holder's chain now, innermost first.  A sleeping lock
 * that tasks wait for but whose holder has no record (it took the lock
 * before metering was on) is listed with PID "-", COMM "(not recorded)",
 * SITE "-", and as HELD its longest waiter's wait.  Comms and frames
 * are escaped (\xHH) and so are names, which are kept as the kernel sent
 * them (the rows' names, "func+0xoff/0xsize[mod]" for sites).  A
 * truncated snapshot of the kernel is a WARNING line first, never silent.
 *
 * JSON: { "over_ns", "metering": "on"|"off", ["truncated"], "held": [ {
 *   "type", "class", "lock", "site", "held_ns", "pid", "comm",
 *   ["recorded": false], ["cpu"],
 *   "frames": [...], ["addrs": [...]], "waiters": [ { "pid", "comm",
 *   ["site"], "type", "waited_ns" } ] } ] }, raw ns, full names.
 */
#include <string.h>

#include "lockstat.h"
#include "view.h"

/* the LOCK column: as wide as the widest name shown, within bounds */
#define LM_HELD_LOCK_MIN	4
#define LM_HELD_LOCK_MAX	40
/* the TYPE column: rwsem_write's, or the widest type shown */
#define LM_HELD_TYPE_MIN	11

struct lm_held_widths {
	int type;
	int lock;
};

static void lm_held_widths(const struct lm_held_list *l, struct lm_held_widths *w)
{
	size_t i, lock = LM_HELD_LOCK_MIN, type = LM_HELD_TYPE_MIN;

	for (i = 0; i < l->nr; i++) {
		if (strlen(l->v[i].lock) > lock)
			lock = strlen(l->v[i].lock);
		if (strlen(lm_type_name(l->v[i].type)) > type)
			type = strlen(lm_type_name(l->v[i].type));
	}
	w->lock = lock > LM_HELD_LOCK_MAX ? LM_HELD_LOCK_MAX : (int)lock;
	w->type = (int)type;
}

/* a name as the table shows it: a site without its /0xsize, escaped */
static void lm_held_name(char *buf, size_t len, const char *name, bool site)
{
	char tmp[1024];

	if (site)
		lm_site_short(tmp, sizeof(tmp), name);
	else
		snprintf(tmp, sizeof(tmp), "%s", name);
	lm_esc(buf, len, tmp, "");
}

/* "waiter 432 lmt/waiter waited 1.9s at lmt_held_waiter+0x1e (mutex)" after @indent */
void lm_waiter_line(FILE *f, const char *indent, const struct lm_waiter *w)
{
	char comm[4 * LM_COMM_MAX], dur[32], site[4 * 1024];

	lm_esc(comm, sizeof(comm), w->comm, "");
	lm_fmt_time(dur, sizeof(dur), (double)w->waited_ns);
	fprintf(f, "%swaiter %u %s waited %s", indent, w->pid, comm, dur);
	if (w->site) {
		lm_held_name(site, sizeof(site), w->site, true);
		fprintf(f, " at %s", site);
	}
	fprintf(f, " (%s)\n", lm_type_name(w->type));
}

/*
 * A sleeping lock tasks wait for whose holder the kernel has no record of
 * (pid 0, no comm): HELD is then how long its longest waiter has waited.
 */
static bool lm_held_unrecorded(const struct lm_held *h)
{
	return lm_type_sleeping(h->type) && !h->pid && !h->comm[0];
}

static void lm_held_line(FILE *f, const struct lm_held *h, const struct lm_held_widths *w)
{
	char comm[4 * LM_COMM_MAX], dur[32], cpu[16];
	char lock[4 * 1024], site[4 * 1024];
	uint32_t i;

	bool has_cpu = h->present & (1U << LM_HB_CPU);
	char pid[16];

	lm_esc(comm, sizeof(comm), h->comm, "");
	lm_fmt_time(dur, sizeof(dur), (double)h->held_ns);
	snprintf(pid, sizeof(pid), "%u", h->pid);
	if (lm_held_unrecorded(h)) {
		/* held as long as its longest waiter has waited, at least */
		snprintf(comm, sizeof(comm), "(not recorded)");
		snprintf(pid, sizeof(pid), "-");
	}
	if (has_cpu)
		snprintf(cpu, sizeof(cpu), "%u", h->cpu);
	else
		snprintf(cpu, sizeof(cpu), "-");
	lm_held_name(lock, sizeof(lock), h->lock, false);
	if (h->site[0])
		lm_held_name(site, sizeof(site), h->site, true);
	else
		snprintf(site, sizeof(site), "-");
	fprintf(f, "%-*s %6s %7s %-16s %3s %-*s %s\n", w->type, lm_type_name(h->type), dur, pid,
		comm, cpu, w->lock, lock, site);
	if (h->nr_frames)
		fputs("  stack:\n", f);
	else if (has_cpu && lm_type_sleeping(h->type))
		fprintf(f, "  running on CPU %u: no stack while it runs\n", h->cpu);
	lm_print_frames(f, "    ", h->frame, h->nr_frames);
	for (i = 0; i < h->nr_waiters; i++)
		lm_waiter_line(f, "  ", &h->waiters[i]);
}

/* the table; @on: whether metering is on (off: the kernel tracks nothing) */
void lm_held_print(FILE *f, const struct lm_held_list *l, uint64_t over_ns, bool on)
{
	struct lm_held_widths w;
	char over[32];
	size_t i;

	lm_fmt_time(over, sizeof(over), (double)over_ns);
	if (l->has_truncated && l->truncated)
		fprintf(f, "WARNING: %llu held lock%s did not fit the kernel's snapshot and %s not listed\n",
			(unsigned long long)l->truncated, l->truncated == 1 ? "" : "s",
			l->truncated == 1 ? "is" : "are");
	if (!on && !l->nr) {
		fputs("metering is off: no held lock is tracked (lockstat on starts it)\n", f);
		return;
	}
	if (!l->nr) {
		if (over_ns)
			fprintf(f, "no lock held longer than %s\n", over);
		else
			fputs("no lock held\n", f);
		return;
	}
	lm_held_widths(l, &w);
	fprintf(f, "%-*s %6s %7s %-16s %3s %-*s %s\n", w.type, "TYPE", "HELD", "PID", "COMM",
		"CPU", w.lock, "LOCK", "SITE");
	for (i = 0; i < l->nr; i++)
		lm_held_line(f, &l->v[i], &w);
}

/* , "waiters": [ { "pid", "comm", ["site"], "type", "waited_ns" }, ... ] */
void lm_json_waiters(FILE *f, const struct lm_waiter *w, uint32_t n)
{
	uint32_t i;

	fputs(", \"waiters\": [", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{ \"pid\": %u, \"comm\": ", i ? ", " : " ", w[i].pid);
		lm_json_str(f, w[i].comm);
		if (w[i].site) {
			fputs(", \"site\": ", f);
			lm_json_str(f, w[i].site);
		}
		fprintf(f, ", \"type\": \"%s\", \"waited_ns\": %llu }", lm_type_name(w[i].type),
			(unsigned long long)w[i].waited_ns);
	}
	fputs(n ? " ]" : "]", f);
}

static void lm_held_json_one(FILE *f, const struct lm_held *h)
{
	fprintf(f, "{ \"type\": \"%s\", \"class\": \"%s\", \"lock\": ", lm_type_name(h->type),
		lm_class_name(h->class));
	lm_json_str(f, h->lock);
	fputs(", \"site\": ", f);
	lm_json_str(f, h->site);
	fprintf(f, ", \"held_ns\": %llu, \"pid\": %u, \"comm\": ", (unsigned long long)h->held_ns,
		h->pid);
	lm_json_str(f, h->comm);
	if (lm_held_unrecorded(h))
		fputs(", \"recorded\": false", f);
	if (h->present & (1U << LM_HB_CPU))
		fprintf(f, ", \"cpu\": %u", h->cpu);
	lm_json_chain(f, "frames", "addrs", h->frame, h->addr, h->nr_frames,
		      h->present & (1U << LM_HB_ADDRS));
	lm_json_waiters(f, h->waiters, h->nr_waiters);
	fputs(" }", f);
}

void lm_held_json(FILE *f, const struct lm_held_list *l, uint64_t over_ns, bool on)
{
	size_t i;

	fprintf(f, "{ \"over_ns\": %llu, \"metering\": \"%s\"", (unsigned long long)over_ns,
		on ? "on" : "off");
	if (l->has_truncated)
		fprintf(f, ", \"truncated\": %llu", (unsigned long long)l->truncated);
	fputs(", \"held\": [", f);
	for (i = 0; i < l->nr; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		lm_held_json_one(f, &l->v[i]);
	}
	fputs(l->nr ? "\n] }\n" : "] }\n", f);
}
