/*
 * codec.h - how large a batch's records are once compressed: the size
 * model of a codec (docs/scenario.md, "Compression").
 *
 * Owns: the one formula from a batch's uncompressed record bytes to the
 * bytes its codec writes. Pure arithmetic on the scenario's parameters;
 * it keeps no state and never decides when a batch closes (the
 * accumulator does).
 */
#ifndef KS_CODEC_H
#define KS_CODEC_H

#include "models/producer/producer_section.h"

#include <stdint.h>

/* The ratio r(raw) = ratio + (1 - ratio) * L / (L + raw), L the codec's
 * warm-up length: 1 for an empty input, halfway to the asymptotic ratio
 * at raw = L, towards `ratio` as the batch grows (a compressor learns
 * from what it has already seen; a small batch gives it little). With
 * L = 0, r is `ratio` at every size. */
double ks_codec_ratio(const ks_compression_conf *c, uint64_t raw);

/* Bytes the codec writes for `raw` uncompressed record bytes: its frame
 * (stream header and trailer), its per-block framing for each started
 * block of block_size bytes, and raw x r(raw) rounded to the nearest
 * byte, never more than raw. Non-decreasing in raw. 0 for raw 0. */
uint64_t ks_codec_compressed_bytes(const ks_compression_conf *c, uint64_t raw);

#endif
