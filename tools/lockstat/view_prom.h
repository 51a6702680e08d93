/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat: the Prometheus text exposition of a snapshot (view_prom.c),
 * written by lockstat export.
 */
#ifndef LOCKSTAT_VIEW_PROM_H
#define LOCKSTAT_VIEW_PROM_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

/* lock and site of the series that sums the rows beyond max_series */
#define LM_PROM_OTHER		"other"
#define LM_PROM_MAX_SERIES	200

/* the series to print: a row per label set, the roll-ups last */
struct lm_prom {
	const struct lm_header *h;
	struct lm_row *series;	/* .lock, .site: the label values */
	size_t nr;
	size_t rows;		/* of the snapshot */
	size_t other_rows;	/* label sets summed into the roll-ups */
	char *sites;		/* the function names of the sites */
};

int lm_prom_build(struct lm_prom *p, const struct lm_snapshot *s, size_t max_series,
		  bool exact_sites);
void lm_prom_free(struct lm_prom *p);
int lm_prom_print(FILE *f, const struct lm_prom *p);

void lm_prom_seconds(char *buf, size_t len, uint64_t ns);
void lm_prom_label(FILE *f, const char *s);

#endif /* LOCKSTAT_VIEW_PROM_H */
