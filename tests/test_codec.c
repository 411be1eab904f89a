/*
 * test_codec.c - a codec's size model: exact sizes at a few batch sizes,
 * the frame and block overheads, monotonic growth, the bounds, and a
 * user's ratio as the asymptote.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/producer/codec.h"

/* lz4's defaults (models/producer/producer_section.c). */
static const ks_compression_conf lz4 = {.ratio = 0.45, .warmup_bytes = 2048, .frame_bytes = 11,
                                        .block_bytes = 4, .block_size = 65536};
static const ks_compression_conf gzip = {.ratio = 0.25, .warmup_bytes = 1536, .frame_bytes = 18};

/* Worked by hand: r(raw) = 0.45 + 0.55 x 2048 / (2048 + raw), payload
 * rounded to the nearest byte, plus 11 bytes of frame and 4 per started
 * 64 KiB block. */
static void test_exact_sizes(void **state)
{
    (void)state;
    assert_int_equal(ks_codec_compressed_bytes(&lz4, 0), 0);
    assert_int_equal(ks_codec_compressed_bytes(&lz4, 1), 11 + 4 + 1);
    /* at raw = L, r is halfway: 0.725 x 2048 = 1484.8 */
    assert_true(ks_codec_ratio(&lz4, 2048) > 0.7249999 && ks_codec_ratio(&lz4, 2048) < 0.7250001);
    assert_int_equal(ks_codec_compressed_bytes(&lz4, 2048), 15 + 1485);
    /* 0.45 + 0.55 / 3 = 0.63333: one 4 KiB text file, lz4 1.57:1 */
    assert_int_equal(ks_codec_compressed_bytes(&lz4, 4096), 15 + 2594);
    assert_int_equal(ks_codec_compressed_bytes(&lz4, 16384), 15 + 8374);
    assert_int_equal(ks_codec_compressed_bytes(&lz4, 65536), 15 + 30583);
    assert_int_equal(ks_codec_compressed_bytes(&lz4, 65537), 11 + 8 + 30584); /* a second block */
    /* gzip: 0.25 + 0.75 x 1536 / 5632 = 0.45455 at 4 KiB (gzip -1: 2.24:1) */
    assert_int_equal(ks_codec_compressed_bytes(&gzip, 4096), 18 + 1862);
}

/* With ratio 1 and no warm-up, what comes out is the input plus exactly
 * the codec's framing. */
static void test_frame_overhead(void **state)
{
    (void)state;
    const ks_compression_conf stored = {.ratio = 1.0, .frame_bytes = 16, .block_bytes = 4,
                                        .block_size = 32768};
    assert_int_equal(ks_codec_compressed_bytes(&stored, 100), 16 + 4 + 100);
    assert_int_equal(ks_codec_compressed_bytes(&stored, 32768), 16 + 4 + 32768);
    assert_int_equal(ks_codec_compressed_bytes(&stored, 32769), 16 + 8 + 32769);
    assert_int_equal(ks_codec_compressed_bytes(&stored, 100000), 16 + 16 + 100000);
    /* a tiny batch comes out larger than it went in */
    assert_true(ks_codec_compressed_bytes(&lz4, 100) > 100);
}

/* Larger batches never come out smaller; the payload stays between
 * raw x ratio and raw; r stays within (ratio, 1]. */
static void test_monotonic_and_bounds(void **state)
{
    (void)state;
    const ks_compression_conf *codecs[] = {&lz4, &gzip};
    for (size_t k = 0; k < 2; k++) {
        const ks_compression_conf *c = codecs[k];
        uint64_t prev = 0;
        for (uint64_t raw = 1; raw <= 300000; raw += raw < 5000 ? 1 : 97) {
            uint64_t n = ks_codec_compressed_bytes(c, raw);
            assert_true(n >= prev);
            uint64_t blocks = c->block_size ? (raw + c->block_size - 1) / c->block_size : 1;
            uint64_t framing = c->frame_bytes + blocks * c->block_bytes;
            assert_true(n - framing <= raw);
            assert_true((double)(n - framing) + 0.5 >= (double)raw * c->ratio);
            double r = ks_codec_ratio(c, raw);
            assert_true(r > c->ratio && r <= 1.0);
            prev = n;
        }
        assert_true(ks_codec_ratio(c, 0) == 1.0);
    }
}

/* Bytes per uncompressed byte fall as the batch grows (within a block),
 * towards the ratio a scenario gives, which is the asymptote. */
static void test_small_batches_compress_worse(void **state)
{
    (void)state;
    const uint64_t sizes[] = {200, 1000, 2000, 10000, 16384, 60000};
    double prev = 2.0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double per_byte = (double)ks_codec_compressed_bytes(&lz4, sizes[i]) / (double)sizes[i];
        assert_true(per_byte < prev);
        prev = per_byte;
    }
    ks_compression_conf user = lz4;
    user.ratio = 0.3;
    double big = (double)ks_codec_compressed_bytes(&user, 1u << 30) / (double)(1u << 30);
    assert_true(big > 0.3 && big < 0.3001);
    /* no warm-up: the same ratio at every size */
    user.warmup_bytes = 0;
    assert_true(ks_codec_ratio(&user, 10) == 0.3 && ks_codec_ratio(&user, 1u << 20) == 0.3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_sizes),
        cmocka_unit_test(test_frame_overhead),
        cmocka_unit_test(test_monotonic_and_bounds),
        cmocka_unit_test(test_small_batches_compress_worse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
