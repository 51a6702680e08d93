// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat watch: an alert as one line, or as one JSON object on a line,
 * from the struct lm_alert nl.c parses (LOCKMETER_CMD_ALERT).
 *
 *   [  123.456789] hold  spin    10.21ms > 5ms     test_lm_spin  lm_test_hold+0x3c/0x80[test_lockmeter]  pid 123 lm_hold cpu 1
 *   [  125.002131] wait  mutex    61.5ms > 50ms    lmt_mutex  lmt_waiter+0x1e/0x60[test_lockmeter]  pid 432 lmt/waiter cpu 0 owner 431 lmt/holder
 *   [  127.500000] held  mutex      2.5s > 1s      lmt_mutex  lmt_holder+0x2a/0x60[test_lockmeter]  pid 431 lmt/holder cpu 1 waiters 2
 *
 * The time is that of the evidence (when the hold or wait ended; held:
 * when it was found), seconds since boot as dmesg prints them, "-"
 * without evidence.  Then the kind (hold, wait, held), the type, the
 * hold or wait (held: so far) and the threshold it crossed, with up to
 * three decimals, the lock and the site, and from the evidence the
 * task, its CPU, "in softirq" or "in hardirq" out of a task, a wait's
 * "owner PID COMM", a sleeping lock's hold's "blocked DUR" (the longest
 * stretch its holder spent off CPU), held's "waiters N".  Comms and
 * frames are escaped (\xHH).  With --stacks the chain follows, a frame
 * a line (innermost first), then where the holder blocked and that chain,
 * then held's waiters, as report --stacks and held print them.
 *
 * JSON: { ["seq"], "kind", "type", "class", "lock", "site", "ns",
 *   "threshold_ns", ["time_ns", "pid", "comm", "cpu", "context",
 *   "stack", ["stack_addrs"], ["blocked_ns", "blocked_stack",
 *   ["blocked_stack_addrs"]], ["owner_pid", ["owner_comm"]]],
 *   ["waiters": [ { "pid", "comm", ["site"], "type", "waited_ns" } ]],
 *   ["dropped"] }, raw ns; fields the alert does not have are left out.
 */
#include <string.h>

#include "lockstat.h"
#include "view.h"

/*
 * A duration to three decimals of its unit, trailing zeros cut: "850ns",
 * "250us", "10.21ms", "1.5s": exact enough that a value over a threshold
 * never reads as the threshold
 */
void lm_fmt_dur(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} u[] = { { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" } };
	unsigned int i;
	size_t n;

	for (i = 0; i < ARRAY_SIZE(u) && ns < u[i].div; i++)
		;
	if (i == ARRAY_SIZE(u)) {
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
		return;
	}
	snprintf(buf, len, "%llu.%03llu", (unsigned long long)(ns / u[i].div),
		 (unsigned long long)(ns % u[i].div / (u[i].div / 1000)));
	n = strlen(buf);
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[--n] = '\0';
	snprintf(buf + n, len - n, "%s", u[i].unit);
}

/* what the evidence adds to the line: task, CPU, context, owner, blocked */
static void lm_watch_ev(FILE *f, const struct lm_alert *a)
{
	const struct lm_evidence *ev = a->ev;
	char comm[4 * LM_COMM_MAX], dur[32];

	lm_esc(comm, sizeof(comm), ev->comm, " ");
	fprintf(f, "  pid %u %s cpu %u", ev->pid, comm, ev->cpu);
	if (ev->context != LM_CONTEXT_TASK)
		fprintf(f, " in %s", lm_context_name(ev->context));
	if (lm_ev_has(ev, LM_EB_OWNER_PID)) {
		lm_esc(comm, sizeof(comm), lm_ev_has(ev, LM_EB_OWNER_COMM) ? ev->owner_comm : "?",
		       " ");
		fprintf(f, " owner %u %s", ev->owner_pid, comm);
	}
	if (lm_ev_has(ev, LM_EB_BLOCKED)) {
		lm_fmt_dur(dur, sizeof(dur), ev->blocked_ns);
		fprintf(f, " blocked %s", dur);
	}
}

/* with --stacks: the chain, where the holder blocked, the waiters */
static void lm_watch_stacks(FILE *f, const struct lm_alert *a)
{
	const struct lm_evidence *ev = a->ev;
	char line[4 * LM_FRAME_MAX];
	uint32_t i;

	if (ev && !ev->nr_frames)
		fputs("    no call chain\n", f);
	if (ev)
		lm_print_frames(f, "    ", ev->frame, ev->nr_frames);
	if (ev && lm_ev_has(ev, LM_EB_BLOCKED)) {
		lm_ev_blocked_line(line, sizeof(line), ev);
		fprintf(f, "    %s\n", line);
		lm_print_frames(f, "      ", ev->blocked_frame, ev->nr_blocked);
	}
	for (i = 0; i < a->nr_waiters; i++)
		lm_waiter_line(f, "    ", &a->waiters[i]);
}

void lm_watch_print(FILE *f, const struct lm_alert *a, bool stacks)
{
	char when[32], ns[32], thr[32], lock[4 * 1024], site[4 * 1024];

	if (a->ev)
		snprintf(when, sizeof(when), "%5llu.%06llu",
			 (unsigned long long)(a->ev->time_ns / 1000000000),
			 (unsigned long long)(a->ev->time_ns % 1000000000 / 1000));
	else
		snprintf(when, sizeof(when), "%12s", "-");
	lm_fmt_dur(ns, sizeof(ns), a->ns);
	lm_fmt_dur(thr, sizeof(thr), a->threshold_ns);
	lm_esc(lock, sizeof(lock), a->lock, "");
	lm_esc(site, sizeof(site), a->site, "");
	fprintf(f, "[%s] %-4s  %-6s %8s > %-6s  %s  %s", when, lm_alert_kind_name(a->kind),
		lm_type_name(a->type), ns, thr, lock, site);
	if (a->ev)
		lm_watch_ev(f, a);
	if (a->kind == LM_ALERT_HELD)
		fprintf(f, " waiters %u", a->nr_waiters);
	fputc('\n', f);
	if (stacks)
		lm_watch_stacks(f, a);
}

static void lm_watch_json_ev(FILE *f, const struct lm_evidence *ev)
{
	fprintf(f, ", \"time_ns\": %llu, \"pid\": %u, \"comm\": ", (unsigned long long)ev->time_ns,
		ev->pid);
	lm_json_str(f, ev->comm);
	fprintf(f, ", \"cpu\": %u, \"context\": \"%s\"", ev->cpu, lm_context_name(ev->context));
	lm_json_chain(f, "stack", "stack_addrs", ev->frame, ev->addr, ev->nr_frames,
		      lm_ev_has(ev, LM_EB_ADDRS));
	if (lm_ev_has(ev, LM_EB_BLOCKED)) {
		fprintf(f, ", \"blocked_ns\": %llu", (unsigned long long)ev->blocked_ns);
		lm_json_chain(f, "blocked_stack", "blocked_stack_addrs", ev->blocked_frame,
			      ev->blocked_addr, ev->nr_blocked, lm_ev_has(ev, LM_EB_BLOCKED_ADDRS));
	}
	if (lm_ev_has(ev, LM_EB_OWNER_PID))
		fprintf(f, ", \"owner_pid\": %u", ev->owner_pid);
	if (lm_ev_has(ev, LM_EB_OWNER_COMM)) {
		fputs(", \"owner_comm\": ", f);
		lm_json_str(f, ev->owner_comm);
	}
}

void lm_watch_json(FILE *f, const struct lm_alert *a)
{
	fputc('{', f);
	if (lm_alert_has(a, LM_AB_SEQ))
		fprintf(f, " \"seq\": %llu,", (unsigned long long)a->seq);
	fprintf(f, " \"kind\": \"%s\", \"type\": \"%s\", \"class\": \"%s\", \"lock\": ",
		lm_alert_kind_name(a->kind), lm_type_name(a->type), lm_class_name(a->class));
	lm_json_str(f, a->lock);
	fputs(", \"site\": ", f);
	lm_json_str(f, a->site);
	fprintf(f, ", \"ns\": %llu, \"threshold_ns\": %llu", (unsigned long long)a->ns,
		(unsigned long long)a->threshold_ns);
	if (a->ev)
		lm_watch_json_ev(f, a->ev);
	if (a->kind == LM_ALERT_HELD || a->nr_waiters)
		lm_json_waiters(f, a->waiters, a->nr_waiters);
	if (lm_alert_has(a, LM_AB_DROPPED))
		fprintf(f, ", \"dropped\": %llu", (unsigned long long)a->dropped);
	fputs(" }\n", f);
}
