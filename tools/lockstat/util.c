// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: the output helpers every layer may call, and the words of the
 * control operations with what the kernel's refusals of them mean.  Kept
 * apart from main.c so the unit tests link them without the dispatcher.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lockstat.h"
#include "model.h"

/* where lm_err() writes while a screen is up, instead of stderr */
static char *lm_err_buf;
static size_t lm_err_len;

void lm_err_capture(char *buf, size_t len)
{
	lm_err_buf = len ? buf : NULL;
	lm_err_len = len;
}

void lm_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (lm_err_buf) {
		/* the messages of one failure, on one line */
		size_t n = strlen(lm_err_buf);

		if (n && n + 2 < lm_err_len) {
			memcpy(lm_err_buf + n, "; ", 3);
			n += 2;
		}
		if (n + 1 < lm_err_len)
			vsnprintf(lm_err_buf + n, lm_err_len - n, fmt, ap);
		va_end(ap);
		return;
	}
	fputs("lockstat: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * A failed write's errno, kept where it happened: once the stream's error
 * flag is set, the final fflush() may have nothing left to write and say
 * nothing of why
 */
static int lm_out_errno;

void lm_write_errno(FILE *f)
{
	if (ferror(f) && errno && !lm_out_errno)
		lm_out_errno = errno;
}

/*
 * 0 when what was written to @f reached it, else LM_EXIT_ERR, said once:
 * the subcommand that checks and main() after it do not both say so
 */
int lm_write_check(FILE *f)
{
	static bool said;
	int err;

	errno = 0;
	if (!fflush(f) && !ferror(f))
		return 0;
	err = errno ? errno : lm_out_errno ? lm_out_errno : EIO;
	if (!said)
		lm_err("write error%s: %s", f == stdout ? " on standard output" : "", strerror(err));
	said = true;
	return LM_EXIT_ERR;
}

/* print a NULL-terminated array of lines */
void lm_print_lines(FILE *f, const char *const *lines)
{
	for (; *lines; lines++)
		fprintf(f, "%s\n", *lines);
}

/*
 * The width of the text output: @opt (--width) when >= 0; else the
 * terminal's when stdout is one; else $COLUMNS when it is a number from 1
 * to 9999; else 0, no limit (the full table, as pipes and scripts had it)
 */
int lm_out_width(int opt)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	uint64_t v;

	if (opt >= 0)
		return opt;
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	if (env && !lm_parse_u64(env, &v) && v > 0 && v < 10000)
		return (int)v;
	return 0;
}

/*
 * One line of text in @width columns: a table row (it starts with a
 * blank) is cut with a '>' in its last column, a line without a blank (a
 * rule) is cut; prose is wrapped at
 * blanks, its continuations indented by two.  A line that starts with
 * LM_PROSE is prose however far it is indented (the evidence under a
 * row): the mark goes, its continuations are indented four past it, two
 * past the call chain beneath it.
 */
static void lm_fit_line(FILE *f, const char *s, size_t n, size_t width)
{
	size_t lead = 0, indent = 0, skip, room, cut;
	bool prose = n && *s == LM_PROSE;

	if (prose) {
		s++;
		n--;
		while (indent < n && s[indent] == ' ')
			indent++;
	}
	/* a continuation needs room past its indentation */
	if (width && n > width && *s == ' ' && !prose) {
		fprintf(f, "%.*s>\n", (int)width - 1, s);
		return;
	}
	if (!width || n <= width || !memchr(s + indent, ' ', n - indent) || width < indent + 12) {
		fprintf(f, "%.*s\n", (int)(width && n > width ? width : n), s);
		return;
	}
	for (skip = indent; lead + n > width; skip = 0, lead = prose ? indent + 4 : 2) {
		room = width - lead;
		for (cut = room; cut > skip && s[cut] != ' '; cut--)
			;
		if (cut <= skip)
			cut = room;
		fprintf(f, "%*s%.*s\n", (int)lead, "", (int)cut, s);
		for (s += cut, n -= cut; n && *s == ' '; s++, n--)
			;
	}
	if (n)
		fprintf(f, "%*s%.*s\n", (int)lead, "", (int)n, s);
}

void lm_fit_text(FILE *f, const char *text, size_t len, int width)
{
	const char *end = text + len, *nl;
	size_t n;

	while (text < end) {
		nl = memchr(text, '\n', (size_t)(end - text));
		n = nl ? (size_t)(nl - text) : (size_t)(end - text);
		errno = 0;
		lm_fit_line(f, text, n, width > 0 ? (size_t)width : 0);
		lm_write_errno(f);
		text += n + (nl != NULL);
	}
}

const char *const lm_ctl_words[LM_NR_CTL] = {
	[LM_CTL_ON] = "on",
	[LM_CTL_OFF] = "off",
	[LM_CTL_RESET] = "reset",
	[LM_CTL_RELEASE] = "release",
};

int lm_ctl_find(const char *word)
{
	int op;

	for (op = 0; op < LM_NR_CTL; op++)
		if (!strcmp(word, lm_ctl_words[op]))
			return op;
	return -1;
}

/*
 * EBUSY: release while metering is on; EINVAL: a kernel older than
 * release; ENOMEM: on past the cap (mem_cap) or out of memory, which the
 * kernel undoes.  EPERM and the rest: the caller's words, as for any
 * request.
 */
int lm_ctl_refused(enum lm_ctl op, int err, const char *where)
{
	if (op == LM_CTL_RELEASE && err == EBUSY)
		lm_err("release: metering is on (%s: %s); run 'lockstat off' first", where,
		       strerror(err));
	else if (op == LM_CTL_RELEASE && err == EINVAL)
		lm_err("release: this kernel does not support release (%s: %s)", where,
		       strerror(err));
	else if (op == LM_CTL_ON && err == ENOMEM)
		lm_err("on: the kernel refused (%s: %s): metering's memory would exceed its cap "
		       "(mem_cap, see 'lockstat status'), or an allocation failed; nothing was "
		       "changed", where, strerror(err));
	else
		return 0;
	return LM_EXIT_ERR;
}
