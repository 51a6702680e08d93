// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: the two output helpers every layer may call.  Kept apart from
 * main.c so the unit tests link them without the dispatcher.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lockstat.h"

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
	err = errno ? errno : EIO;
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
