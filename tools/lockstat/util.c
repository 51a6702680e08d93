// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: the two output helpers every layer may call.  Kept apart from
 * main.c so the unit tests link them without the dispatcher.
 */
#include <stdarg.h>
#include <stdio.h>

#include "lockstat.h"

void lm_err(const char *fmt, ...)
{
	va_list ap;

	fputs("lockstat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* print a NULL-terminated array of lines */
void lm_print_lines(FILE *f, const char *const *lines)
{
	for (; *lines; lines++)
		fprintf(f, "%s\n", *lines);
}
