/*
 * test_accumulator.c - the RecordAccumulator: record sizes, appends and
 * batch closing, oversize records, the readiness table, drain order and
 * its rotation, max.request.size, buffer memory, the split of a batch
 * refused as too large.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/producer/accumulator.h"

#include <stdlib.h>
#include <string.h>

#define MS KS_NS_PER_MS

/* DefaultRecord.sizeInBytes by hand: a null key, a 100-byte value, first
 * record: attributes 1 + timestamp delta 1 + offset delta 1 + key length
 * (-1) 1 + value length (100 -> zig-zag 200) 2 + 100 + header count 1 =
 * 107, plus the length varint of 107 (zig-zag 214) 2 = 109. */
static void test_record_sizes(void **state)
{
    (void)state;
    assert_int_equal(ks_record_size_v2(-1, 100, 0, 0), 109);
    assert_int_equal(ks_record_size_v2(-1, 10, 0, 0), 17);
    assert_int_equal(ks_record_size_v2(3, 10, 0, 0), 20);   /* "abc" */
    assert_int_equal(ks_record_size_v2(0, 10, 0, 0), 17);   /* empty key: length 0, no bytes */
    assert_int_equal(ks_record_size_v2(-1, 100, 64, 0), 110); /* offset delta 64 takes 2 bytes */
    assert_int_equal(ks_record_size_v2(-1, 100, 1, 1000), 110); /* timestamp delta 1000 ms */
    /* upper bound: 61 + 21 + key/value with lengths + header count */
    assert_int_equal(ks_record_upper_bound(-1, 100), 61 + 21 + 1 + 2 + 100 + 1);
    /* every varint length: a timestamp delta on both sides of 2^(7k),
     * counted one 7-bit group at a time (zig-zag doubles it) */
    for (unsigned k = 1; k <= 9; k++) {
        int64_t edge = (int64_t)(UINT64_C(1) << (7u * k - 1u)); /* zig-zag 2^(7k) */
        uint32_t base = ks_record_size_v2(-1, 10, 0, 0) - 1u;  /* ts delta 0: 1 byte */
        assert_int_equal(ks_record_size_v2(-1, 10, 0, edge - 1), base + k);
        assert_int_equal(ks_record_size_v2(-1, 10, 0, edge), base + k + 1u);
        assert_int_equal(ks_record_size_v2(-1, 10, 0, -edge), base + k);
    }
    assert_int_equal(ks_record_size_v2(-1, 10, 0, INT64_MAX), ks_record_size_v2(-1, 10, 0, 0) + 9);
}

/* Partitions 0 and 2 are led by broker 0, 1 and 3 by broker 1. */
static const uint32_t leaders[4] = {0, 1, 0, 1};

static ks_acc *make(uint32_t partitions, int64_t batch_size, ks_time linger, uint64_t memory)
{
    ks_acc *a = malloc(sizeof *a);
    assert_true(partitions <= 4);
    assert_true(ks_acc_init(a, partitions, 2, batch_size, linger, memory));
    assert_true(ks_acc_set_leaders(a, leaders));
    return a;
}

static void destroy(ks_acc *a)
{
    ks_acc_free(a);
    free(a);
}

/* send() as the producer does it: tail batch, else a new one. */
static ks_append_result put(ks_acc *a, uint32_t p, uint64_t id, ks_time t, uint32_t value)
{
    ks_append_result r = ks_acc_try_append(a, p, id, t, -1, value);
    if (r.status == KS_APPEND_OK)
        return r;
    uint32_t upper = ks_record_upper_bound(-1, value);
    uint32_t alloc = (uint64_t)a->batch_size > upper ? (uint32_t)a->batch_size : upper;
    assert_true(ks_acc_reserve(a, alloc));
    assert_true(ks_acc_new_batch(a, p, id, t, t, -1, value, alloc, &r));
    return r;
}

/* batch.size is an upper bound: a record that would pass it closes the
 * batch and starts the next; an oversize record gets a batch of its own. */
static void test_batches_close_before_batch_size(void **state)
{
    (void)state;
    ks_acc *a = make(1, 4096, 50 * MS, 1 << 20);
    /* 1000-byte values are 1009-byte records: 3 fit (3088), 4 do not (4097) */
    ks_append_result r = put(a, 0, 0, 0, 1000);
    assert_true(r.new_batch);
    assert_false(r.batch_is_full);
    put(a, 0, 1, 0, 1000);
    r = put(a, 0, 2, 0, 1000);
    assert_false(r.new_batch);
    assert_int_equal(a->batches[a->dq[0].head].bytes, 3088);
    r = put(a, 0, 3, 0, 1000);
    assert_true(r.new_batch);
    assert_true(r.batch_is_full); /* two batches: the head is sendable */
    assert_int_equal(a->dq[0].size, 2);
    assert_true(a->batches[a->dq[0].head].closed);
    /* oversize: alone, with a write limit of its own size */
    r = put(a, 0, 4, 0, 20000);
    assert_true(r.new_batch);
    const ks_batch *big = &a->batches[a->dq[0].tail];
    assert_int_equal(big->records, 1);
    assert_true(big->write_limit > 4096);
    r = put(a, 0, 5, 0, 1000);
    assert_true(r.new_batch); /* the oversize batch takes nothing more */
    assert_int_equal(a->dq[0].size, 4);
    destroy(a);
}

/* batch.size 0 disables batching: every record in a batch of its own. */
static void test_batch_size_zero(void **state)
{
    (void)state;
    ks_acc *a = make(1, 0, 0, 1 << 20);
    for (uint64_t i = 0; i < 5; i++)
        assert_true(put(a, 0, i, 0, 100).new_batch);
    assert_int_equal(a->dq[0].size, 5);
    destroy(a);
}

static bool ready_node(ks_acc *a, ks_time now, bool exhausted, uint32_t node, ks_time *next)
{
    bool nodes[2];
    uint32_t q[4], ids[4];
    ks_ready r = {nodes, 0, q, ids, 0};
    ks_acc_ready(a, now, exhausted, &r);
    *next = r.next_check_ns;
    return nodes[node];
}

/* The readiness table of RecordAccumulator.ready. */
static void test_readiness(void **state)
{
    (void)state;
    ks_time next;
    ks_acc *a = make(4, 1000, 10 * MS, 1 << 20);
    put(a, 0, 0, 0, 100); /* partition 0 (broker 0), not full */
    /* waited < linger: not ready; look again when linger runs out */
    assert_false(ready_node(a, 4 * MS, false, 0, &next));
    assert_int_equal(next, 10 * MS);
    /* waited == linger: ready */
    assert_true(ready_node(a, 10 * MS, false, 0, &next));
    /* memory exhausted (a send() blocks): ready at once */
    assert_true(ready_node(a, 1 * MS, true, 0, &next));
    /* muted (max.in.flight 1, a batch in flight): not ready */
    ks_acc_mute(a, 0, true);
    assert_false(ready_node(a, 20 * MS, false, 0, &next));
    ks_acc_mute(a, 0, false);
    /* eight 109-byte records make 933 bytes, under the 1000 limit: the
     * batch is not full, since the ninth might still fit... */
    for (uint64_t i = 1; i < 8; i++)
        put(a, 0, i, 0, 100);
    assert_false(ready_node(a, 1 * MS, false, 0, &next));
    /* ...the ninth does not: it closes the batch and opens a second one,
     * and the head is ready before linger */
    assert_true(put(a, 0, 8, 0, 100).new_batch);
    assert_true(ready_node(a, 1 * MS, false, 0, &next));
    /* broker 1 has nothing */
    assert_false(ready_node(a, 1 * MS, false, 1, &next));
    destroy(a);
}

/* Drain takes the head batch of every partition the broker leads, ready
 * or not, and rotates its start as Kafka stores it: at the partition it
 * looked at last. */
static void test_drain_order_and_rotation(void **state)
{
    (void)state;
    ks_acc *a = make(4, 1000, 10 * MS, 1 << 20);
    put(a, 0, 0, 0, 100);
    put(a, 2, 1, 0, 100);
    put(a, 2, 2, 0, 100);
    uint32_t n;
    uint64_t bytes;
    uint32_t chain = ks_acc_drain(a, 0, 1 << 20, 0, NULL, NULL, &n, &bytes);
    assert_int_equal(n, 2);
    assert_int_equal(a->batches[chain].partition, 0); /* starts at index 0 */
    assert_int_equal(a->batches[a->batches[chain].next].partition, 2);
    assert_int_equal(a->batches[chain].records, 1);
    assert_int_equal(a->batches[a->batches[chain].next].records, 2);
    /* a full round stored index 1 (partition 2): the next drain starts there */
    assert_int_equal(a->drain_index[0], 1);
    put(a, 0, 3, 0, 100);
    put(a, 2, 4, 0, 100);
    chain = ks_acc_drain(a, 0, 1 << 20, 0, NULL, NULL, &n, &bytes);
    assert_int_equal(n, 2);
    assert_int_equal(a->batches[chain].partition, 2);
    destroy(a);
}

/* max.request.size: drain stops before exceeding it, but a lone batch
 * larger than it still goes. */
static void test_drain_max_request_size(void **state)
{
    (void)state;
    ks_acc *a = make(4, 100000, 0, 1 << 20);
    put(a, 0, 0, 0, 3000);
    put(a, 2, 1, 0, 3000);
    uint32_t n;
    uint64_t bytes;
    ks_acc_drain(a, 0, 4000, 0, NULL, NULL, &n, &bytes);
    assert_int_equal(n, 1); /* the second would pass 4000 bytes */
    ks_acc_drain(a, 0, 100, 0, NULL, NULL, &n, &bytes);
    assert_int_equal(n, 1); /* alone, and larger than the limit: goes */
    destroy(a);
}

static void test_buffer_memory(void **state)
{
    (void)state;
    ks_acc *a = make(2, 1000, 0, 2500);
    assert_true(ks_acc_reserve(a, 1000));
    assert_true(ks_acc_reserve(a, 1000));
    assert_false(ks_acc_reserve(a, 1000)); /* 3000 > 2500 */
    assert_int_equal(a->memory_used, 2000);
    ks_append_result r;
    assert_true(ks_acc_new_batch(a, 0, 0, 0, 0, -1, 10, 1000, &r));
    uint32_t n;
    uint64_t bytes;
    uint32_t b = ks_acc_drain(a, 0, 1 << 20, 0, NULL, NULL, &n, &bytes);
    ks_acc_release(a, b);
    assert_int_equal(a->memory_used, 1000);
    assert_true(ks_acc_reserve(a, 1000));
    destroy(a);
}

/* With compression, a filling batch's size is estimated with Kafka's
 * running ratio (from 1.0, times 1.05); a drained batch takes its actual
 * compressed size and moves the estimate down by 0.005. */
static void test_compression_estimate(void **state)
{
    (void)state;
    ks_acc *a = make(1, 100000, 0, 1 << 20);
    const ks_compression_conf flat = {.ratio = 0.5}; /* no warm-up, no framing */
    ks_acc_set_compression(a, &flat);
    put(a, 0, 0, 0, 1000); /* 1009-byte record */
    const ks_batch *b = &a->batches[a->dq[0].head];
    assert_int_equal(b->raw, 1009);
    assert_int_equal(b->bytes, 61 + (uint32_t)(1009 * 1.0 * 1.05));
    uint32_t n;
    uint64_t bytes;
    uint32_t id = ks_acc_drain(a, 0, 1 << 20, 0, NULL, NULL, &n, &bytes);
    assert_int_equal(a->batches[id].bytes, 61 + 505); /* 1009 x 0.5, rounded */
    assert_true(a->est_ratio > 0.994 && a->est_ratio < 0.996);
    destroy(a);
}

/* With a codec's size model, a drained batch is its header plus what the
 * model gives for its records, and the estimate moves towards the whole
 * batch over its uncompressed bytes (Kafka's actualCompressionRatio). */
static void test_compression_size_model(void **state)
{
    (void)state;
    ks_acc *a = make(1, 100000, 0, 1 << 20);
    const ks_compression_conf lz4 = {.ratio = 0.45, .warmup_bytes = 2048, .frame_bytes = 11,
                                     .block_bytes = 4, .block_size = 65536};
    ks_acc_set_compression(a, &lz4);
    for (int i = 0; i < 20; i++)
        put(a, 0, 0, 0, 1000); /* 20 records of 1009 bytes */
    uint32_t n;
    uint64_t bytes;
    uint32_t id = ks_acc_drain(a, 0, 1 << 20, 0, NULL, NULL, &n, &bytes);
    const ks_batch *b = &a->batches[id];
    assert_int_equal(b->raw, 20180);
    /* 0.45 + 0.55 x 2048 / 22228 = 0.50067 -> 10103.6 -> 10104, + 15 framing */
    assert_int_equal(b->bytes, 61 + 15 + 10104);
    assert_int_equal(a->compressed_bytes, b->bytes);
    assert_int_equal(a->compressed_raw_bytes, 20180);
    assert_true(a->est_ratio > 0.994 && a->est_ratio < 0.996); /* 0.505 observed: -0.005 */
    destroy(a);
}

/* The batch lifecycle: its legality table, a batch taken through it
 * (queued, in flight, retrying, in flight again, released), and the
 * invariant checks refusing a corrupted batch or deque. */
static void test_batch_lifecycle(void **state)
{
    (void)state;
    static const bool legal[3][3] = {
        /* to:   FREE   QUEUED IN_FLIGHT */
        [KS_BATCH_FREE] = {false, true, false},
        [KS_BATCH_QUEUED] = {true, false, true},
        [KS_BATCH_IN_FLIGHT] = {true, true, false},
    };
    for (int from = 0; from < KS_BATCH__COUNT; from++)
        for (int to = 0; to < KS_BATCH__COUNT; to++)
            assert_int_equal(ks_batch_legal((ks_batch_state)from, (ks_batch_state)to),
                             legal[from][to]);
    assert_false(ks_batch_legal(KS_BATCH__COUNT, KS_BATCH_FREE));
    assert_string_equal(ks_batch_state_name(KS_BATCH_IN_FLIGHT), "in_flight");

    ks_acc *a = make(2, 1000, 0, 1 << 20);
    put(a, 0, 1, 0, 100);
    assert_true(ks_acc_invariants(a));
    uint32_t n;
    uint64_t bytes;
    uint32_t bid = ks_acc_drain(a, 0, 1 << 20, 0, NULL, NULL, &n, &bytes);
    assert_int_equal(n, 1);
    assert_int_equal(a->batches[bid].state, KS_BATCH_IN_FLIGHT);
    assert_true(a->batches[bid].closed);
    ks_acc_reenqueue(a, bid, 10, false);
    assert_int_equal(a->batches[bid].state, KS_BATCH_QUEUED); /* retrying */
    assert_true(ks_acc_invariants(a));
    assert_int_equal(ks_acc_drain(a, 0, 1 << 20, 10, NULL, NULL, &n, &bytes), bid);
    /* corruptions the checks must catch */
    a->batches[bid].closed = false; /* in flight yet open for appends */
    assert_false(ks_acc_batch_invariants(a, bid));
    assert_false(ks_acc_invariants(a));
    a->batches[bid].closed = true;
    a->batches_live++;
    assert_false(ks_acc_invariants(a));
    a->batches_live--;
    ks_acc_release(a, bid);
    assert_int_equal(a->batches[bid].state, KS_BATCH_FREE);
    assert_true(ks_acc_invariants(a));
    put(a, 1, 2, 20, 100);
    a->dq[1].size++; /* a deque that miscounts */
    assert_false(ks_acc_invariants(a));
    a->dq[1].size--;
    assert_true(ks_acc_invariants(a));
    destroy(a);
}

/* Drains partition 0's head at `now` and gives it a sequence. */
static uint32_t drain_seq(ks_acc *a, ks_time now, int32_t base_seq, int16_t epoch)
{
    uint32_t n;
    uint64_t bytes;
    uint32_t bid = ks_acc_drain(a, 0, 1 << 20, now, NULL, NULL, &n, &bytes);
    assert_int_equal(n, 1);
    a->batches[bid].has_seq = true;
    a->batches[bid].base_seq = base_seq;
    a->batches[bid].epoch = epoch;
    return bid;
}

/* splitAndReenqueue: ten 1009-byte records of a batch larger than
 * batch.size (4096, set after it was filled, as a compressed batch can
 * come out) become batches of 3, 3, 3 and 1 records (a fourth record
 * would make 4097 bytes), in record order, with sequences 100, 103, 106,
 * 109 under the same epoch; they are closed, not
 * retries, keep the creation time, take no buffer memory (the old
 * batch's is given back), count as sent, and stand in sequence order
 * between the retried batches of sequence 90 and 110. */
static void test_split(void **state)
{
    (void)state;
    ks_acc *a = make(1, 12000, 0, 1 << 20);
    for (uint64_t id = 0; id < 10; id++)
        put(a, 0, id, 5 * MS, 1000);
    uint32_t big = drain_seq(a, 5 * MS, 100, 3);
    assert_int_equal(a->batches[big].records, 10);
    uint32_t big_alloc = a->batches[big].alloc_bytes;
    a->batch_size = 1000;
    put(a, 0, 20, 6 * MS, 100);
    uint32_t before = drain_seq(a, 6 * MS, 90, 3);
    put(a, 0, 21, 6 * MS, 100);
    uint32_t after = drain_seq(a, 6 * MS, 110, 3);
    ks_acc_reenqueue(a, after, 7 * MS, true);
    ks_acc_reenqueue(a, before, 7 * MS, true);
    a->batch_size = 4096;
    uint64_t used = a->memory_used;
    uint32_t first = KS_NONE;
    assert_int_equal(ks_acc_split(a, big, true, &first), 4);
    assert_true(ks_acc_invariants(a));
    assert_int_equal(a->memory_used, used - big_alloc);
    assert_int_equal(a->batches[big].state, KS_BATCH_FREE);
    /* the deque: 90, then the three new batches, then 110 */
    assert_int_equal(a->dq[0].head, before);
    assert_int_equal(a->dq[0].size, 6);
    assert_int_equal(a->batches[before].next, first);
    static const uint32_t records[4] = {3, 3, 3, 1};
    static const int32_t seqs[4] = {100, 103, 106, 109};
    uint64_t id = 0;
    uint32_t bid = first;
    for (int k = 0; k < 4; k++, bid = a->batches[bid].next) {
        const ks_batch *b = &a->batches[bid];
        assert_int_equal(b->state, KS_BATCH_QUEUED);
        assert_int_equal(b->records, records[k]);
        assert_true(b->bytes <= 4096);
        assert_true(b->has_seq && b->epoch == 3 && !b->seq_reset);
        assert_int_equal(b->base_seq, seqs[k]);
        assert_true(b->closed && b->split && b->attempts == 0);
        assert_int_equal(b->alloc_bytes, 0);
        assert_int_equal(b->created_ns, 5 * MS);
        assert_true(ks_batch_was_sent(b));
        for (uint32_t r = b->rec_head; r != KS_NONE; r = a->recs[r].next)
            assert_int_equal(a->recs[r].id, id++);
    }
    assert_int_equal(id, 10);
    assert_int_equal(bid, after);
    destroy(a);
}

/* Without sequences the new batches go first of all (addFirst), ahead
 * of a batch never sent; the first of them is sendable at once. */
static void test_split_plain(void **state)
{
    (void)state;
    ks_acc *a = make(1, 12000, 50 * MS, 1 << 20);
    for (uint64_t id = 0; id < 6; id++)
        put(a, 0, id, 0, 1000);
    uint32_t n;
    uint64_t bytes;
    uint32_t big = ks_acc_drain(a, 0, 1 << 20, 0, NULL, NULL, &n, &bytes);
    put(a, 0, 6, MS, 1000); /* a new batch, lingering */
    uint32_t queued = a->dq[0].head;
    a->batch_size = 2100; /* two records a batch */
    uint32_t first = KS_NONE;
    assert_int_equal(ks_acc_split(a, big, false, &first), 3);
    assert_int_equal(a->dq[0].head, first);
    assert_int_equal(a->dq[0].tail, queued);
    assert_false(a->batches[first].has_seq);
    assert_true(ks_acc_invariants(a));
    /* closed, so full: drained at once, before linger */
    assert_int_equal(ks_acc_drain(a, 0, 1 << 20, MS, NULL, NULL, &n, &bytes), first);
    destroy(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_sizes),
        cmocka_unit_test(test_batches_close_before_batch_size),
        cmocka_unit_test(test_batch_size_zero),
        cmocka_unit_test(test_readiness),
        cmocka_unit_test(test_drain_order_and_rotation),
        cmocka_unit_test(test_drain_max_request_size),
        cmocka_unit_test(test_buffer_memory),
        cmocka_unit_test(test_compression_estimate),
        cmocka_unit_test(test_compression_size_model),
        cmocka_unit_test(test_batch_lifecycle),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_split_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
