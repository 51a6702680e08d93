// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the /proc/lockmeter text (lm_proc_parse()), then every view */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text(data, size, lm_proc_parse);
}
