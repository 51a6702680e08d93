// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: /proc/lockmeter, the fallback source when the kernel has no
 * "lockmeter" generic netlink family, and the text format it defines.
 *
 * The format (Documentation/locking/lockmeter.rst): "lockmeter version 1",
 * "key: value" header lines up to an empty line, a "# type ..." legend,
 * then one row per (type, lock, site) with 19 whitespace-separated
 * fields.  Snapshot files (snapfile.c) reuse the header syntax and the
 * rows, so the parser here is strict enough for files from elsewhere:
 * every field is checked, and any error names the line it was found on.
 * Header keys the reader does not know are skipped (the kernel may add
 * some); a change of meaning bumps the version.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lockstat.h"
#include "procfs.h"

void lm_lines_init(struct lm_lines *l, FILE *f)
{
	memset(l, 0, sizeof(*l));
	l->f = f;
}

void lm_lines_free(struct lm_lines *l)
{
	free(l->buf);
	l->buf = NULL;
	l->cap = 0;
}

void lm_perr_set(struct lm_perr *e, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	e->line = line;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

/* at most 40 characters of untrusted text, fit to be printed */
static const char *lm_quote(char *buf, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 4 < len && i < 40; i++)
		buf[i] = (s[i] >= ' ' && s[i] <= '~') ? s[i] : '?';
	if (s[i])
		buf[i++] = '.', buf[i++] = '.', buf[i++] = '.';
	buf[i] = '\0';
	return buf;
}

struct lm_packer {
	const char *name;
	const char *cat;	/* what decompresses to standard output */
	const char *magic;
	size_t len;
};

/* the compressor whose magic number @buf begins with, or NULL */
static const struct lm_packer *lm_compressed(const char *buf, size_t n)
{
	static const struct lm_packer packers[] = {
		{ "gzip", "zcat", "\x1f\x8b", 2 },
		{ "xz", "xzcat", "\xfd" "7zXZ", 6 },	/* its NUL too */
		{ "zstd", "zstdcat", "\x28\xb5\x2f\xfd", 4 },
		{ "bzip2", "bzcat", "BZh", 3 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(packers); i++)
		if (n >= packers[i].len && !memcmp(buf, packers[i].magic, packers[i].len))
			return &packers[i];
	return NULL;
}

/*
 * The next line without its newline in *line, NULL at the end of the
 * file.  Returns 0, LM_EXIT_FILE on a read error, or LM_EXIT_CORRUPT for
 * a NUL byte, an overlong line or a last line without its newline (a cut
 * file), with @e set.
 */
int lm_lines_next(struct lm_lines *l, char **line, struct lm_perr *e)
{
	const struct lm_packer *pk;
	ssize_t n;

	*line = NULL;
	errno = 0;
	n = getline(&l->buf, &l->cap, l->f);
	if (n < 0) {
		if (ferror(l->f)) {
			lm_perr_set(e, l->line + 1, "read error: %s",
				    strerror(errno ? errno : EIO));
			return LM_EXIT_FILE;
		}
		return 0;
	}
	l->line++;
	pk = l->line == 1 ? lm_compressed(l->buf, (size_t)n) : NULL;
	if (pk) {
		lm_perr_set(e, 1, "compressed (%s), not a text file: '%s FILE | lockstat report -' reads it",
			    pk->name, pk->cat);
		return LM_EXIT_CORRUPT;
	}
	if (strlen(l->buf) != (size_t)n) {
		lm_perr_set(e, l->line, "NUL byte in the line (not a text file?)");
		return LM_EXIT_CORRUPT;
	}
	if (n > LM_LINE_MAX) {
		lm_perr_set(e, l->line, "line longer than %d bytes", LM_LINE_MAX);
		return LM_EXIT_CORRUPT;
	}
	if (l->buf[n - 1] != '\n') {
		lm_perr_set(e, l->line, "truncated: the last line has no newline");
		return LM_EXIT_CORRUPT;
	}
	l->buf[n - 1] = '\0';
	*line = l->buf;
	return 0;
}

/* "<prefix> N": 0 and the version in *ver, or -1 if not that line */
int lm_parse_version(const char *line, const char *prefix, unsigned long *ver)
{
	size_t n = strlen(prefix);
	uint64_t v;

	if (strncmp(line, prefix, n) || line[n] != ' ' ||
	    lm_parse_u64(line + n + 1, &v) || v > 1000000)
		return -1;
	*ver = (unsigned long)v;
	return 0;
}

static char *lm_next_field(char **p)
{
	char *s = *p, *start;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	start = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return start;
}

/* one 19-field row into @s; @line is cut into fields in place */
int lm_row_parse(struct lm_snapshot *s, char *line, struct lm_perr *e)
{
	char *fld[LM_ROW_FIELDS], *p = line, q[48];
	struct lm_row row = { 0 }, *r;
	const char *why;
	int n, f, type;

	for (n = 0; n < LM_ROW_FIELDS && (fld[n] = lm_next_field(&p)); n++)
		;
	if (n < LM_ROW_FIELDS || lm_next_field(&p)) {
		lm_perr_set(e, 0, "a row has %d fields, %s", LM_ROW_FIELDS,
			    n < LM_ROW_FIELDS ? "this one fewer" : "this one more");
		return LM_EXIT_CORRUPT;
	}
	type = lm_type_parse(fld[0]);
	if (type < 0) {
		lm_perr_set(e, 0, "unknown lock type '%s'", lm_quote(q, sizeof(q), fld[0]));
		return LM_EXIT_CORRUPT;
	}
	row.type = type;
	for (f = 0; f < LM_NR_FIELDS; f++) {
		if (lm_parse_u64(fld[1 + f], &row.v[f])) {
			lm_perr_set(e, 0, "field %d (%s) is not an unsigned 64-bit integer: '%s'",
				    2 + f, lm_field_names[f], lm_quote(q, sizeof(q), fld[1 + f]));
			return LM_EXIT_CORRUPT;
		}
	}
	why = lm_row_impossible(&row);
	if (why) {
		lm_perr_set(e, 0, "impossible numbers: %s", why);
		return LM_EXIT_CORRUPT;
	}
	for (f = LM_ROW_FIELDS - 2; f < LM_ROW_FIELDS; f++) {
		if (!lm_name_printable(fld[f])) {
			lm_perr_set(e, 0, "field %d (%s) has unprintable characters", f + 1,
				    f == LM_ROW_FIELDS - 2 ? "lock" : "site");
			return LM_EXIT_CORRUPT;
		}
	}
	r = lm_snap_add_row(s);
	if (!r)
		goto err_nomem;
	*r = row;
	r->lock = lm_snap_strdup(s, fld[LM_ROW_FIELDS - 2]);
	r->site = lm_snap_strdup(s, fld[LM_ROW_FIELDS - 1]);
	if (!r->lock || !r->site) {
		s->nr--;
		goto err_nomem;
	}
	r->class = lm_class_of(r->lock);
	return 0;

err_nomem:
	lm_perr_set(e, 0, "out of memory");
	return LM_EXIT_ERR;
}

void lm_rows_legend(FILE *f)
{
	int i;

	fputs("# type", f);
	for (i = 0; i < LM_NR_FIELDS; i++)
		fprintf(f, " %s", lm_field_names[i]);
	fputs(" lock site\n", f);
}

/* a row as /proc/lockmeter prints it */
void lm_row_write(FILE *f, const struct lm_row *r)
{
	static const int width[LM_NR_FIELDS] = {
		9, 9, 7, 7, 5, 13, 10, 10, 13, 10, 10, 13, 10, 13, 10, 5,
	};
	int i;

	fprintf(f, "%-5s", lm_type_name(r->type));
	for (i = 0; i < LM_NR_FIELDS; i++)
		fprintf(f, " %*llu", width[i], (unsigned long long)r->v[i]);
	fprintf(f, " %s %s\n", r->lock, r->site);
}

/*
 * "hist_bounds: 0 85 170 ...": the lower bound in ns of each histogram
 * bucket, blank-separated, strictly increasing from 0
 */
static int lm_parse_bounds(struct lm_snapshot *s, char *val, struct lm_perr *e,
			   unsigned long lineno)
{
	char *tok, *save = NULL, q[48];
	const char *why;
	uint32_t n = 0;

	if (s->h.nr_buckets) {
		lm_perr_set(e, lineno, "header key 'hist_bounds' given twice");
		return LM_EXIT_CORRUPT;
	}
	for (tok = strtok_r(val, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (n == LM_HIST_MAX) {
			lm_perr_set(e, lineno, "header key 'hist_bounds': more than %d buckets",
				    LM_HIST_MAX);
			return LM_EXIT_CORRUPT;
		}
		if (lm_parse_u64(tok, &s->h.bound[n++])) {
			lm_perr_set(e, lineno, "header key 'hist_bounds': not an unsigned integer: '%s'",
				    lm_quote(q, sizeof(q), tok));
			return LM_EXIT_CORRUPT;
		}
	}
	why = lm_bounds_invalid(s->h.bound, n);
	if (why) {
		lm_perr_set(e, lineno, "header key 'hist_bounds': %s", why);
		return LM_EXIT_CORRUPT;
	}
	s->h.nr_buckets = n;
	return 0;
}

static int lm_parse_header_line(struct lm_snapshot *s, char *line, struct lm_perr *e,
				unsigned long lineno)
{
	char *colon = strchr(line, ':'), *val, q[48];
	const char *why = NULL;
	char *k;
	int bit;

	if (!colon || colon == line) {
		lm_perr_set(e, lineno, "not a 'key: value' header line: '%s'",
			    lm_quote(q, sizeof(q), line));
		return LM_EXIT_CORRUPT;
	}
	for (k = line; k < colon; k++) {
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_')) {
			lm_perr_set(e, lineno, "bad header key: '%s'", lm_quote(q, sizeof(q), line));
			return LM_EXIT_CORRUPT;
		}
	}
	*colon = '\0';
	val = colon + 1;
	if (*val == ' ')
		val++;
	else if (*val) {
		lm_perr_set(e, lineno, "no blank after the colon of '%s'", line);
		return LM_EXIT_CORRUPT;
	}
	if (!strcmp(line, "hist_bounds"))
		return lm_parse_bounds(s, val, e, lineno);
	bit = lm_hdr_find(line);
	if (bit < 0)
		return 0;	/* a key of a newer writer */
	if (lm_has(&s->h, bit)) {
		lm_perr_set(e, lineno, "header key '%s' given twice", line);
		return LM_EXIT_CORRUPT;
	}
	if (lm_hdr_set(&s->h, bit, val, &why)) {
		lm_perr_set(e, lineno, "header key '%s': %s: '%s'", line, why,
			    lm_quote(q, sizeof(q), val));
		return LM_EXIT_CORRUPT;
	}
	why = lm_hdr_impossible(&s->h, bit);
	if (why) {
		lm_perr_set(e, lineno, "header key '%s': impossible: %s", line, why);
		return LM_EXIT_CORRUPT;
	}
	return 0;
}

/*
 * After the version line: the header up to its empty line, then the rows
 * to the end of the file, and the lines @hook (if any) takes among them.
 * The header must give cpus, metered_ns and rows, and there must be that
 * many rows.
 */
int lm_parse_body(struct lm_lines *l, struct lm_snapshot *s, struct lm_perr *e,
		  struct lm_body_hook *hook)
{
	static const int required[] = { LM_H_CPUS, LM_H_METERED_NS, LM_H_ROWS };
	unsigned long blank = 0;	/* the first empty line after the last row */
	unsigned int i;
	char *line;
	int ret;

	for (;;) {
		ret = lm_lines_next(l, &line, e);
		if (ret)
			return ret;
		if (!line) {
			lm_perr_set(e, l->line, "truncated: the file ends in the header");
			return LM_EXIT_CORRUPT;
		}
		if (!*line)
			break;
		ret = lm_parse_header_line(s, line, e, l->line);
		if (ret)
			return ret;
	}
	for (i = 0; i < ARRAY_SIZE(required); i++) {
		if (!lm_has(&s->h, required[i])) {
			lm_perr_set(e, l->line, "the header has no '%s' line",
				    lm_hdr_keys[required[i]].name);
			return LM_EXIT_CORRUPT;
		}
	}
	for (;;) {
		ret = lm_lines_next(l, &line, e);
		if (ret)
			return ret;
		if (line && line[0] == '#')
			continue;
		/* empty lines may end the file (an editor's), not stand among the rows */
		if (line && !*line) {
			blank = blank ? blank : l->line;
			continue;
		}
		if (line && blank) {
			lm_perr_set(e, blank, "an empty line among the rows");
			return LM_EXIT_CORRUPT;
		}
		ret = hook ? hook->line(hook, s, line, l->line, e) : 0;
		if (ret == 1)
			continue;
		if (ret)
			return ret;
		if (!line)
			break;
		if (!s->h.metered_ns) {
			lm_perr_set(e, l->line, "a row, but metered_ns is 0: nothing was metered");
			return LM_EXIT_CORRUPT;
		}
		ret = lm_row_parse(s, line, e);
		if (ret) {
			e->line = l->line;
			return ret;
		}
	}
	if (s->nr != s->h.rows) {
		lm_perr_set(e, l->line, "%sthe header says %llu rows, there are %zu",
			    s->nr < s->h.rows ? "truncated: " : "", (unsigned long long)s->h.rows,
			    s->nr);
		return LM_EXIT_CORRUPT;
	}
	return 0;
}

static int lm_proc_errno(const char *path, const char *what, int err)
{
	lm_err("%s: %s: %s", path, what, strerror(err));
	if (err == EACCES || err == EPERM) {
		lm_err("reading and controlling lockmeter needs root (CAP_SYS_ADMIN)");
		return LM_EXIT_PERM;
	}
	if (err == ENOENT) {
		lm_err("this kernel has no lockmeter (CONFIG_LOCKMETER)");
		return LM_EXIT_NOLM;
	}
	return LM_EXIT_ERR;
}

/* 0 if @path exists, else the errno */
int lm_proc_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) ? errno : 0;
}

/* a /proc/lockmeter text from @f into @s: 0, else LM_EXIT_* with @e set */
int lm_proc_parse(FILE *f, struct lm_snapshot *s, struct lm_perr *e)
{
	struct lm_lines l;
	unsigned long ver;
	char *line;
	int ret;

	lm_lines_init(&l, f);
	ret = lm_lines_next(&l, &line, e);
	if (!ret && (!line || lm_parse_version(line, "lockmeter version", &ver))) {
		lm_perr_set(e, 1, "not a lockmeter report");
		ret = LM_EXIT_ERR;
	} else if (!ret && ver != LM_PROC_VERSION) {
		lm_perr_set(e, 1, "format version %lu, this lockstat reads version %d",
			    ver, LM_PROC_VERSION);
		ret = LM_EXIT_ERR;
	}
	if (!ret)
		ret = lm_parse_body(&l, s, e, NULL);
	lm_lines_free(&l);
	return ret;
}

/* the live file, all of it, into @s */
int lm_proc_read(const char *path, struct lm_snapshot *s)
{
	struct lm_perr e = { 0 };
	FILE *f;
	int ret;

	f = fopen(path, "re");
	if (!f)
		return lm_proc_errno(path, "cannot open", errno);
	ret = lm_proc_parse(f, s, &e);
	if (ret) {
		lm_err("%s:%lu: %s", path, e.line, e.msg);
		ret = LM_EXIT_ERR;
	}
	fclose(f);
	if (!ret)
		lm_hdr_put_str(&s->h, LM_H_SOURCE, "proc");
	return ret;
}

/*
 * write "on", "off", "reset" or "release", to a file of procfs only:
 * LOCKSTAT_PROC may name a saved report, which a control word would
 * overwrite
 */
int lm_proc_control(const char *path, enum lm_ctl op)
{
	const char *word = lm_ctl_words[op];
	size_t len = strlen(word);
	struct statfs sfs;
	ssize_t n;
	int fd, err, ret = 0;

	/* O_NONBLOCK: a FIFO without a reader is refused, not waited for */
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return lm_proc_errno(path, "cannot open", errno);
	if (fstatfs(fd, &sfs)) {
		ret = lm_proc_errno(path, "statfs", errno);
		close(fd);
		return ret;
	}
	if (sfs.f_type != PROC_SUPER_MAGIC) {
		lm_err("%s: not a file of /proc: '%s' is written to /proc/lockmeter only, "
		       "nothing was written (LOCKSTAT_PROC names a file to read)", path, word);
		close(fd);
		return LM_EXIT_ERR;
	}
	n = write(fd, word, len);
	if (n < 0) {
		err = errno;
		ret = lm_ctl_refused(op, err, path);
		if (!ret && err == EINVAL) {
			lm_err("%s: the kernel refused '%s'", path, word);
			ret = LM_EXIT_ERR;
		} else if (!ret) {
			ret = lm_proc_errno(path, "write", err);
		}
	} else if ((size_t)n != len) {
		lm_err("%s: short write", path);
		ret = LM_EXIT_ERR;
	}
	if (close(fd) && !ret)
		ret = lm_proc_errno(path, "close", errno);
	return ret;
}
