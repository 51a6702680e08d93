// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the /proc/lockmeter text (lm_proc_parse()), then every view */
#include "fuzz.h"
#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lm_perr e = { 0 };
	struct lm_snapshot s;
	FILE *f;

	fuzz_quiet();
	f = fuzz_stream(data, size);
	if (!f)
		return 0;
	lm_snap_init(&s);
	if (!lm_proc_parse(f, &s, &e))
		fuzz_render(&s);
	lm_snap_free(&s);
	fclose(f);
	return 0;
}
