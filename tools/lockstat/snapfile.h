/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat: snapshot files (lockstat get, record -o; read by report).
 */
#ifndef LOCKSTAT_SNAPFILE_H
#define LOCKSTAT_SNAPFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "model.h"
#include "procfs.h"

#define LM_SNAP_MAGIC		"lockstat snapshot version"
#define LM_SNAP_VERSION		2	/* reads 1 too: no evidence */

int lm_snap_read(FILE *f, struct lm_snapshot *s, struct lm_perr *e);
int lm_snap_write(FILE *f, const struct lm_snapshot *s);
int lm_snap_load(const char *path, struct lm_snapshot *s);
int lm_snap_save(const char *path, const struct lm_snapshot *s);

/*
 * Where a snapshot (or the metrics of export) is saved: checked and
 * prepared first, written last, through a temporary file beside a
 * regular file that replaces it atomically.
 */
struct lm_out {
	const char *path;
	const char *what;	/* "snapshot", "metrics": for the messages */
	char *tmp;		/* a regular file: the temporary file beside it */
	int fd;
	mode_t mode;		/* of a new file */
	bool stream;		/* "-", a FIFO or a character device */
	bool exists;
	struct stat st;		/* what path was when checked */
};

/* writes the content to @f; nonzero on error (ferror) */
typedef int lm_out_fn(FILE *f, const void *arg);

int lm_out_open(struct lm_out *o, const char *path);
int lm_out_open_regular(struct lm_out *o, const char *path, mode_t mode, const char *what);
int lm_out_commit(struct lm_out *o, const struct lm_snapshot *s);
int lm_out_write(struct lm_out *o, lm_out_fn *fn, const void *arg);
void lm_out_abort(struct lm_out *o);

#endif /* LOCKSTAT_SNAPFILE_H */
