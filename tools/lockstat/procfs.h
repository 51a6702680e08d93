/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat: the /proc/lockmeter text format (header lines and 19-field
 * rows), shared by the live /proc source and the snapshot files.
 */
#ifndef LOCKSTAT_PROCFS_H
#define LOCKSTAT_PROCFS_H

#include <stdio.h>

#include "lockstat.h"
#include "model.h"

#define LM_PROC_PATH		"/proc/lockmeter"
#define LM_PROC_VERSION		1
#define LM_LINE_MAX		65536

/* where and why a text input was refused */
struct lm_perr {
	unsigned long line;
	char msg[256];
};

struct lm_lines {
	FILE *f;
	char *buf;
	size_t cap;
	unsigned long line;
};

void lm_lines_init(struct lm_lines *l, FILE *f);
void lm_lines_free(struct lm_lines *l);
int lm_lines_next(struct lm_lines *l, char **line, struct lm_perr *e);

void lm_perr_set(struct lm_perr *e, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int lm_parse_version(const char *line, const char *prefix, unsigned long *ver);

int lm_row_parse(struct lm_snapshot *s, char *line, struct lm_perr *e);
void lm_row_write(FILE *f, const struct lm_row *r);
void lm_rows_legend(FILE *f);
/*
 * Lines a snapshot file adds among the rows (snapfile.c): ->line is called
 * with each line of the body that is not a comment, before it is parsed,
 * and with NULL at the end of the file.  It returns 0 for a row line (to
 * be parsed as one), 1 for a line it took, or an LM_EXIT_* code with @e
 * set, its line number too.
 */
struct lm_body_hook {
	int (*line)(struct lm_body_hook *hook, struct lm_snapshot *s, char *line,
		    unsigned long lineno, struct lm_perr *e);
};

int lm_parse_body(struct lm_lines *l, struct lm_snapshot *s, struct lm_perr *e,
		  struct lm_body_hook *hook);

int lm_proc_parse(FILE *f, struct lm_snapshot *s, struct lm_perr *e);
int lm_proc_read(const char *path, struct lm_snapshot *s);
int lm_proc_control(const char *path, enum lm_ctl op);
int lm_proc_exists(const char *path);

#endif /* LOCKSTAT_PROCFS_H */
