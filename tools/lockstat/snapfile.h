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

/* where a snapshot is saved: checked and prepared first, written last */
struct lm_out {
	const char *path;
	char *tmp;		/* a regular file: the temporary file beside it */
	int fd;
	bool stream;		/* "-", a FIFO or a character device */
	bool exists;
	struct stat st;		/* what path was when checked */
};

int lm_out_open(struct lm_out *o, const char *path);
int lm_out_commit(struct lm_out *o, const struct lm_snapshot *s);
void lm_out_abort(struct lm_out *o);

#endif /* LOCKSTAT_SNAPFILE_H */
