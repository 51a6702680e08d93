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

/* @s for a TAP line: bytes outside printable ASCII as \\xHH */
static inline const char *tap_esc(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 5 < len; s++) {
		unsigned char c = *s;

		if (c >= ' ' && c < 0x7f)
			buf[n++] = c;
		else
			n += snprintf(buf + n, len - n, "\\x%02x", c);
	}
	buf[n] = '\0';
	return buf;
}

/* a string result against the expected one, with both in the diagnostics */
static inline int tap_str(const char *got, const char *want, const char *what)
{
	int ok = !strcmp(got, want);
	char buf[1024];

	tap_ok(ok, "%s: \"%s\"", what, tap_esc(want, buf, sizeof(buf)));
	if (!ok)
		printf("# got \"%s\"\n", tap_esc(got, buf, sizeof(buf)));
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
