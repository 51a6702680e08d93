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

static bool lm_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* what @path is, when it is nothing a snapshot may be written to */
static const char *lm_out_refuse(const struct stat *st)
{
	if (S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode))
		return NULL;
	if (S_ISLNK(st->st_mode))
		return "a symbolic link (give the path of its target)";
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISBLK(st->st_mode))
		return "a block device";
	return "neither a regular file, a FIFO nor a character device";
}

/* a temporary file next to the target: o->mode, or its existing mode and owner */
static int lm_out_tmp(struct lm_out *o)
{
	int ret;

	if (asprintf(&o->tmp, "%s.tmp.%ld", o->path, (long)getpid()) < 0) {
		o->tmp = NULL;
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o->fd < 0) {
		ret = lm_save_errno(o->tmp, "cannot create a temporary file", errno);
		free(o->tmp);
		o->tmp = NULL;
		return ret;
	}
	/* a new file: o->mode exactly, whatever the umask */
	if (!o->exists)
		return fchmod(o->fd, o->mode) ? lm_save_errno(o->tmp, "cannot set the mode", errno) : 0;
	/* the owner first: fchown() clears the set-id bits */
	if ((o->st.st_uid != geteuid() || o->st.st_gid != getegid()) &&
	    fchown(o->fd, o->st.st_uid, o->st.st_gid))
		return lm_save_errno(o->path, "cannot keep the file's owner", errno);
	if (fchmod(o->fd, o->st.st_mode & 07777))
		return lm_save_errno(o->path, "cannot keep the file's mode", errno);
	return 0;
}

static int lm_out_prepare(struct lm_out *o, const char *path, mode_t mode, bool regular,
			  const char *what)
{
	const char *why;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->what = what;
	o->mode = mode;
	o->fd = -1;
	if (!*path) {
		lm_err("-o: an empty file name");
		return LM_EXIT_USAGE;
	}
	if (!regular && !strcmp(path, "-")) {
		o->stream = true;
		return 0;
	}
	if (lstat(path, &o->st)) {
		if (errno != ENOENT) {
			lm_err("%s: cannot write the %s: %s", path, what, strerror(errno));
			return (errno == EACCES || errno == EPERM) ? LM_EXIT_PERM : LM_EXIT_ERR;
		}
		return lm_out_tmp(o);
	}
	o->exists = true;
	why = lm_out_refuse(&o->st);
	if (!why && regular && !S_ISREG(o->st.st_mode))
		why = S_ISFIFO(o->st.st_mode) ? "a FIFO (a regular file only)" :
		      "a character device (a regular file only)";
	if (why) {
		lm_err("%s: will not write the %s to %s", path, what, why);
		return LM_EXIT_ERR;
	}
	if (!S_ISREG(o->st.st_mode)) {
		o->stream = true;
		return 0;
	}
	return lm_out_tmp(o);
}

/*
 * Get ready to write a snapshot to @path, before anything is read or run:
 * standard output for "-"; a FIFO or a character device is written as a
 * stream (opened by lm_out_commit()); a regular file, or a new one (mode
 * 0600), is written to a temporary file next to it that replaces it at
 * the end.  Anything else (a symbolic link, a directory, a block device)
 * is refused, and nothing is changed.
 */
int lm_out_open(struct lm_out *o, const char *path)
{
	return lm_out_prepare(o, path, 0600, false, "snapshot");
}

/*
 * The same for a file that must stay a regular file (export's
 * lockmeter.prom, read by other programs): a new one gets @mode, and
 * anything but a regular file is refused.
 */
int lm_out_open_regular(struct lm_out *o, const char *path, mode_t mode, const char *what)
{
	return lm_out_prepare(o, path, mode, true, what);
}

/* forget @o; a temporary file is removed */
void lm_out_abort(struct lm_out *o)
{
	if (o->fd >= 0 && (!o->stream || strcmp(o->path, "-")))
		close(o->fd);
	o->fd = -1;
	if (o->tmp) {
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
}

/* the FIFO or character device found by lm_out_open(), and still it */
static int lm_out_open_stream(struct lm_out *o)
{
	struct stat st;

	if (!strcmp(o->path, "-")) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	o->fd = open(o->path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0)
		return lm_save_errno(o->path, "cannot open", errno);
	if (fstat(o->fd, &st) || !lm_same_file(&st, &o->st) ||
	    (st.st_mode & S_IFMT) != (o->st.st_mode & S_IFMT)) {
		lm_err("%s: changed since lockstat looked at it; not written", o->path);
		return LM_EXIT_ERR;
	}
	return 0;
}

/* the temporary file in place of the target, if that is still what it was */
static int lm_out_replace(struct lm_out *o)
{
	struct stat st;

	if (!o->exists) {
		/* a new file: never over one that appeared meanwhile */
		if (!link(o->tmp, o->path))
			return 0;
		if (errno == EEXIST) {
			lm_err("%s: appeared while lockstat wrote the %s; not replaced",
			       o->path, o->what);
			return LM_EXIT_ERR;
		}
		return lm_save_errno(o->path, "cannot create", errno);
	}
	if (lstat(o->path, &st) || !S_ISREG(st.st_mode) || !lm_same_file(&st, &o->st)) {
		lm_err("%s: changed while lockstat wrote the %s; not replaced", o->path,
		       o->what);
		return LM_EXIT_ERR;
	}
	if (rename(o->tmp, o->path))
		return lm_save_errno(o->path, "cannot rename the temporary file to it", errno);
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

/* what @fn writes, where lm_out_open() said; @o is closed whatever happens */
int lm_out_write(struct lm_out *o, lm_out_fn *fn, const void *arg)
{
	const char *name = strcmp(o->path, "-") ? o->path : "<stdout>";
	FILE *f;
	int ret;

	if (o->stream) {
		ret = lm_out_open_stream(o);
		if (ret)
			goto out;
	}
	f = o->fd == STDOUT_FILENO ? stdout : fdopen(o->fd, "w");
	if (!f) {
		ret = lm_save_errno(name, "fdopen", errno);
		goto out;
	}
	errno = 0;
	if (fn(f, arg) || fflush(f) || (o->tmp && fsync(o->fd))) {
		ret = lm_save_errno(name, "write", errno ? errno : EIO);
		if (f != stdout)
			fclose(f);
		o->fd = -1;
		goto out;
	}
	if (f != stdout) {
		o->fd = -1;
		if (fclose(f)) {
			ret = lm_save_errno(name, "close", errno);
			goto out;
		}
	}
	ret = o->tmp ? lm_out_replace(o) : 0;
out:
	lm_out_abort(o);
	return ret;
}

static int lm_out_snap(FILE *f, const void *s)
{
	return lm_snap_write(f, s);
}

/* write @s where lm_out_open() said; @o is closed whatever happens */
int lm_out_commit(struct lm_out *o, const struct lm_snapshot *s)
{
	return lm_out_write(o, lm_out_snap, s);
}

/* @s to @path ("-": standard output), see lm_out_open() */
int lm_snap_save(const char *path, const struct lm_snapshot *s)
{
	struct lm_out o;
	int ret;

	ret = lm_out_open(&o, path);
	if (ret) {
		lm_out_abort(&o);
		return ret;
	}
	return lm_out_commit(&o, s);
}
