/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat: snapshot files (lockstat get, record -o; read by report).
 */
#ifndef LOCKSTAT_SNAPFILE_H
#define LOCKSTAT_SNAPFILE_H

#include <stdio.h>

#include "model.h"
#include "procfs.h"

#define LM_SNAP_MAGIC		"lockstat snapshot version"
#define LM_SNAP_VERSION		1

int lm_snap_read(FILE *f, struct lm_snapshot *s, struct lm_perr *e);
int lm_snap_write(FILE *f, const struct lm_snapshot *s);
int lm_snap_load(const char *path, struct lm_snapshot *s);
int lm_snap_save(const char *path, const struct lm_snapshot *s);

#endif /* LOCKSTAT_SNAPFILE_H */
