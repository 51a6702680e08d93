// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: a snapshot file (lm_snap_read()), then every view of it */
#include "fuzz.h"
#include "snapfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_text(data, size, lm_snap_read);
}
