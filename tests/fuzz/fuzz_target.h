/*
 * fuzz_target.h - the one function every harness under tests/fuzz/
 * defines: libFuzzer calls it with each input, replay_main.c with each
 * file named on its command line.
 *
 * A harness must free everything it allocates before it returns (leaks
 * are findings), must never write to stdout or stderr for an input that
 * is merely invalid, and must return 0.
 */
#ifndef KS_FUZZ_TARGET_H
#define KS_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
