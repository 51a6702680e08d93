/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat: renderers of a view: the lockmeter table (view_table.c), JSON
 * and CSV with raw ns and counts, and folded stacks (view_json.c), the
 * histograms of one lock (view_hist.c).
 */
#ifndef LOCKSTAT_VIEW_H
#define LOCKSTAT_VIEW_H

#include <stdio.h>

#include "model.h"

enum lm_fmt {
	LM_FMT_TABLE,
	LM_FMT_JSON,
	LM_FMT_CSV,
	LM_FMT_FOLDED,
};

void lm_table_header(FILE *f, const struct lm_header *h);
void lm_table_losses(FILE *f, const struct lm_header *h);
void lm_table_print(FILE *f, const struct lm_view *v);
void lm_site_short(char *buf, size_t len, const char *site);
void lm_ev_head_line(char *buf, size_t len, const struct lm_row *r, int kind);
void lm_ev_blocked_line(char *buf, size_t len, const struct lm_evidence *ev);
void lm_json_print(FILE *f, const struct lm_view *v);
void lm_json_header(FILE *f, const struct lm_header *h, int indent);
void lm_json_str(FILE *f, const char *s);
void lm_json_time(FILE *f, const struct timespec *ts);
void lm_json_fields(FILE *f, const struct lm_row *r);
void lm_json_evidence(FILE *f, const struct lm_row *r);
void lm_json_derived(FILE *f, const struct lm_row *r, const struct lm_ctx *c);
void lm_json_hist(FILE *f, const struct lm_row *r, const struct lm_ctx *c);
void lm_json_chain(FILE *f, const char *fkey, const char *akey, const char *const *frame,
		   const uint64_t *addr, uint32_t n, bool addrs);
size_t lm_folded_print(FILE *f, const struct lm_view *v);	/* the lines printed */
/* why @h has no evidence at all; NULL: it has some */
const char *lm_ev_none_why(const struct lm_header *h);
void lm_csv_print(FILE *f, const struct lm_view *v);
void lm_csv_str(FILE *f, const char *s);

void lm_print_frames(FILE *f, const char *indent, const char *const *frame, uint32_t n);
void lm_waiter_line(FILE *f, const char *indent, const struct lm_waiter *w);
void lm_json_waiters(FILE *f, const struct lm_waiter *w, uint32_t n);
void lm_held_print(FILE *f, const struct lm_held_list *l, uint64_t over_ns, bool on);
void lm_held_json(FILE *f, const struct lm_held_list *l, uint64_t over_ns, bool on);

/* lockstat hist NAME[@SITE]: what rows it takes (view_hist.c) */
struct lm_hist_target {
	char name[1024];	/* NAME, normalised */
	char site[1024];	/* SITE, normalised; "" for all sites */
	const char *arg;	/* NAME[@SITE] as given */
	unsigned int types;	/* 1 << enum lm_type; 0: all */
	int width;		/* --width; -1 (lm_hist_target()'s): the terminal's */
	bool json;		/* one JSON object instead of the text */
};

int lm_hist_target(struct lm_hist_target *t, const char *arg);
/* 0; LM_EXIT_NOTFOUND without such rows in @s; LM_EXIT_ERR without histograms */
int lm_hist_print(FILE *f, const struct lm_hist_target *t, const struct lm_snapshot *s,
		  const char *from);

/* lockstat watch: an alert as a line (with --stacks, its chains beneath), as JSON */
void lm_fmt_dur(char *buf, size_t len, uint64_t ns);
void lm_watch_print(FILE *f, const struct lm_alert *a, bool stacks);
void lm_watch_json(FILE *f, const struct lm_alert *a);

int lm_render(FILE *f, const struct lm_snapshot *s, const struct lm_filter *flt,
	      enum lm_fmt fmt);

#endif /* LOCKSTAT_VIEW_H */
