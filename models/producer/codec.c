/*
 * codec.c - a codec's size model (see codec.h).
 *
 * compressed(raw) = frame + block_bytes x ceil(raw / block_size)
 *                   + round(raw x r(raw)),
 * r(raw) = ratio + (1 - ratio) x L / (L + raw).
 *
 * raw x r(raw) = raw x ratio + (1 - ratio) x L x raw / (L + raw) grows
 * with raw (both terms do), so larger batches never come out smaller,
 * while bytes per uncompressed byte fall towards `ratio`.
 */
#include "models/producer/codec.h"

double ks_codec_ratio(const ks_compression_conf *c, uint64_t raw)
{
    if (c->warmup_bytes == 0)
        return c->ratio;
    double l = (double)c->warmup_bytes;
    return c->ratio + (1.0 - c->ratio) * l / (l + (double)raw);
}

uint64_t ks_codec_compressed_bytes(const ks_compression_conf *c, uint64_t raw)
{
    if (raw == 0)
        return 0;
    double body = (double)raw * ks_codec_ratio(c, raw) + 0.5;
    uint64_t payload = body >= (double)raw ? raw : (uint64_t)body;
    uint64_t blocks = c->block_size == 0 ? 1u : (raw + c->block_size - 1u) / c->block_size;
    return (uint64_t)c->frame_bytes + blocks * (uint64_t)c->block_bytes + payload;
}
