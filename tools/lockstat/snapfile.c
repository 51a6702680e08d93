// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: save and load snapshot files.
 *
 *   lockstat snapshot version 1
 *   command: record
 *   system: Linux
 *   ...                          "key: value", see lockstat(8)
 *   rows: 329
 *   dropped: 0
 *   ...
 *                                an empty line
 *   # type acquired ... site     a legend; lines starting with # are skipped
 *   spin 5710 5706 4 0 0 ...     19 fields per row, as in /proc/lockmeter
 *
 * The reader also takes a saved copy of /proc/lockmeter ("lockmeter
 * version 1" first line).  It refuses, naming the file and line, anything
 * it cannot vouch for: another version, a malformed header or row, a
 * NUL byte, a last line without its newline, fewer or more rows than the
 * header says (a truncated file).  Unknown header keys are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lockstat.h"
#include "snapfile.h"

int lm_snap_read(FILE *f, struct lm_snapshot *s, struct lm_perr *e)
{
	struct lm_lines l;
	unsigned long ver;
	char *line;
	int ret;

	lm_lines_init(&l, f);
	ret = lm_lines_next(&l, &line, e);
	if (ret)
		goto out;
	ret = LM_EXIT_CORRUPT;
	if (!line) {
		lm_perr_set(e, 1, "empty file, not a lockstat snapshot");
	} else if (!lm_parse_version(line, LM_SNAP_MAGIC, &ver)) {
		if (ver == LM_SNAP_VERSION)
			ret = 0;
		else
			lm_perr_set(e, 1, "snapshot version %lu is not supported (this lockstat reads version %d)",
				    ver, LM_SNAP_VERSION);
	} else if (!lm_parse_version(line, "lockmeter version", &ver)) {
		/* a saved /proc/lockmeter */
		if (ver == LM_PROC_VERSION) {
			lm_hdr_put_str(&s->h, LM_H_SOURCE, "proc");
			ret = 0;
		} else {
			lm_perr_set(e, 1, "lockmeter format version %lu is not supported (this lockstat reads version %d)",
				    ver, LM_PROC_VERSION);
		}
	} else {
		lm_perr_set(e, 1, "not a lockstat snapshot (the first line is not '%s %d')",
			    LM_SNAP_MAGIC, LM_SNAP_VERSION);
	}
	if (!ret)
		ret = lm_parse_body(&l, s, e);
out:
	lm_lines_free(&l);
	return ret;
}

int lm_snap_write(FILE *f, const struct lm_snapshot *s)
{
	char buf[LM_STR_LEN + 32];
	size_t i;
	int bit;

	fprintf(f, "%s %d\n", LM_SNAP_MAGIC, LM_SNAP_VERSION);
	for (bit = 0; bit < LM_NR_HDR; bit++) {
		if (bit == LM_H_ROWS) {
			fprintf(f, "rows: %zu\n", s->nr);
			continue;
		}
		if (!lm_has(&s->h, bit))
			continue;
		lm_hdr_format(&s->h, bit, buf, sizeof(buf));
		fprintf(f, "%s: %s\n", lm_hdr_keys[bit].name, buf);
	}
	fputc('\n', f);
	lm_rows_legend(f);
	for (i = 0; i < s->nr; i++)
		lm_row_write(f, &s->rows[i]);
	return ferror(f) ? -1 : 0;
}

/* @path ("-": standard input) into @s; 0, LM_EXIT_FILE or LM_EXIT_CORRUPT */
int lm_snap_load(const char *path, struct lm_snapshot *s)
{
	bool is_stdin = !strcmp(path, "-");
	struct lm_perr e = { 0 };
	struct stat st;
	FILE *f;
	int ret;

	f = is_stdin ? stdin : fopen(path, "re");
	if (!f) {
		lm_err("%s: cannot open the snapshot: %s", path, strerror(errno));
		return LM_EXIT_FILE;
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		lm_err("%s: cannot read the snapshot: %s", path, strerror(EISDIR));
		ret = LM_EXIT_FILE;
		goto out_close;
	}
	ret = lm_snap_read(f, s, &e);
	if (ret == LM_EXIT_FILE)
		lm_err("%s:%lu: cannot read the snapshot: %s", path, e.line, e.msg);
	else if (ret == LM_EXIT_CORRUPT)
		lm_err("%s:%lu: corrupt snapshot: %s", path, e.line, e.msg);
	else if (ret)
		lm_err("%s:%lu: %s", path, e.line, e.msg);

out_close:
	if (!is_stdin)
		fclose(f);
	return ret;
}

static int lm_save_errno(const char *path, const char *what, int err)
{
	lm_err("%s: %s: %s", path, what, strerror(err));
	return (err == EACCES || err == EPERM) ? LM_EXIT_PERM : LM_EXIT_ERR;
}

/* @s to @path ("-": standard output), through a temporary file and rename */
int lm_snap_save(const char *path, const struct lm_snapshot *s)
{
	char *tmp;
	FILE *f;
	int fd, ret;

	if (!strcmp(path, "-")) {
		if (lm_snap_write(stdout, s) || fflush(stdout))
			return lm_save_errno("<stdout>", "write", errno ? errno : EIO);
		return 0;
	}
	if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = lm_save_errno(tmp, "cannot create", errno);
		goto out_free;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = lm_save_errno(tmp, "fdopen", errno);
		close(fd);
		goto out_unlink;
	}
	errno = 0;
	if (lm_snap_write(f, s) || fflush(f) || fsync(fd)) {
		ret = lm_save_errno(tmp, "write", errno ? errno : EIO);
		fclose(f);
		goto out_unlink;
	}
	if (fclose(f)) {
		ret = lm_save_errno(tmp, "close", errno);
		goto out_unlink;
	}
	if (rename(tmp, path)) {
		ret = lm_save_errno(path, "cannot rename the temporary file to it", errno);
		goto out_unlink;
	}
	free(tmp);
	return 0;

out_unlink:
	unlink(tmp);
out_free:
	free(tmp);
	return ret;
}
