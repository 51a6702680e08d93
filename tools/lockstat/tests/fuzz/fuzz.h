/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the lockstat fuzz harnesses share: the input as a stream, and a
 * render of a snapshot through every view, so that a parser's output is
 * fuzzed by the code that prints it.  Messages (lm_err()) go to a buffer,
 * not to stderr.
 */
#ifndef LOCKSTAT_FUZZ_H
#define LOCKSTAT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "procfs.h"

typedef int (*fuzz_parser)(FILE *f, struct lm_snapshot *s, struct lm_perr *e);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

FILE *fuzz_stream(const uint8_t *data, size_t size);
void fuzz_quiet(void);
void fuzz_render(const struct lm_snapshot *s);
int fuzz_text(const uint8_t *data, size_t size, fuzz_parser parse);

#endif /* LOCKSTAT_FUZZ_H */
