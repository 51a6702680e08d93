// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: option parsing.  The input is an argument vector, arguments
 * separated by NUL bytes; it is parsed with the shared options (view,
 * --source, --cpu, -o) as report and record take them, then the
 * combination checks, then lm_parse_pct(), lm_parse_types(),
 * lm_parse_duration() (diff's --min-hold, held's --over), lm_site_func()
 * (diff's and export's names, into a buffer of exactly the argument's
 * size) and lm_frame_func() (the blocked line of --stacks, into one of
 * twice its size) alone on each argument.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lockstat.h"
#include "options.h"

#define FUZZ_ARGS	32

static const struct option fuzz_longopts[] = {
	{ "cpu", required_argument, NULL, LM_OPT_CPU },
	{ "help", no_argument, NULL, 'h' },
	{ "output", required_argument, NULL, 'o' },
	{ "source", required_argument, NULL, LM_OPT_SOURCE },
	LM_VIEW_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

/* "cmd" then the NUL-separated arguments of @buf (NUL-terminated) */
static int fuzz_argv(char *buf, size_t size, char **argv)
{
	size_t i = 0;
	int argc = 0;

	argv[argc++] = "fuzz";
	while (i < size && argc < FUZZ_ARGS) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	return argc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[FUZZ_ARGS + 1], *buf;
	struct lm_opts o;
	unsigned int mask;
	uint64_t ns;
	double pct;
	int argc, i;

	fuzz_quiet();
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argc = fuzz_argv(buf, size, argv);
	optind = 0;	/* glibc: start over */
	if (!lm_opts_parse(&o, argc, argv, "+:" LM_VIEW_SHORTOPTS "ho:", fuzz_longopts))
		lm_opts_check(&o);
	for (i = 1; i < argc; i++) {
		size_t len = strlen(argv[i]) + 1;
		char *name = malloc(len);

		mask = 0;
		lm_parse_pct(argv[i], 100, &pct);
		lm_parse_types(argv[i], &mask);
		lm_parse_duration(argv[i], &ns);
		lm_key_find(argv[i]);
		if (name) {
			lm_site_func(name, len, argv[i]);
			free(name);
		}
		name = malloc(2 * len);
		if (name) {
			lm_frame_func(name, 2 * len, argv[i]);
			free(name);
		}
	}
	free(buf);
	return 0;
}
