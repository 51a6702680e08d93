/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A few lines of TAP for the unit tests: each check prints "ok - what"
 * or "not ok - what"; tests/run.sh numbers them into the one TAP stream.
 */
#ifndef LOCKSTAT_TAP_H
#define LOCKSTAT_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_failures;

static inline __attribute__((format(printf, 2, 3)))
int tap_ok(int ok, const char *fmt, ...)
{
	va_list ap;

	fputs(ok ? "ok - " : "not ok - ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		tap_failures++;
	return ok;
}

/* a string result against the expected one, with both in the diagnostics */
static inline int tap_str(const char *got, const char *want, const char *what)
{
	int ok = !strcmp(got, want);

	tap_ok(ok, "%s: \"%s\"", what, want);
	if (!ok)
		printf("# got \"%s\"\n", got);
	return ok;
}

static inline int tap_num(unsigned long long got, unsigned long long want, const char *what)
{
	int ok = got == want;

	tap_ok(ok, "%s = %llu", what, want);
	if (!ok)
		printf("# got %llu\n", got);
	return ok;
}

static inline int tap_done(void)
{
	fflush(stdout);
	return tap_failures ? 1 : 0;
}

#endif /* LOCKSTAT_TAP_H */
