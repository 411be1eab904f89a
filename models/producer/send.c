/*
 * send.c - the application thread: KafkaProducer.send and doSend (see
 * send.h).
 */
#include "models/producer/send.h"

#include "models/producer/prod.h"
#include "models/producer/sender.h"
#include "models/producer/txn_manager.h"
#include "models/producer/outcome.h"

#include "sim/detmath.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ks_prod_send_init(ks_producer *p)
{
    const ks_producer_conf *pc = p->conf;
    const ks_workload_conf *wl = &pc->workload;
    p->send_hot = (ks_send_hot){
        .records = wl->records,
        .interval_ns = wl->interval_ns,
        .record_ns = pc->cost.record_ns,
        .compress_ps = pc->compression.compress_ps,
        .keys = wl->keys,
        .value_bytes = wl->value_bytes,
        .key_count = wl->key_count,
        .value_count = wl->value_count,
        .value1 = wl->value_count > 0 ? wl->value_bytes[0] : 0,
        .arrival = (uint8_t)wl->arrival,
        .key_pick = (uint8_t)wl->key_pick,
        .value_pick = (uint8_t)wl->value_pick,
        .keyless = wl->key_pick == KS_PICK_CYCLE && wl->key_count == 1 && !wl->keys[0],
    };
}

void ks_prod_send_schedule_arrival(ks_producer *p, ks_ctx *cx, ks_time at)
{
    ks_event ev = {.kind = KS_EV_PRODUCE, .owner = p->node};
    ks_sim_schedule(&cx->sim, at, &ev);
}

/* A record failed inside send(), before any batch held it. */
static void told_alone(ks_producer *p, ks_ctx *cx, uint64_t record, const char *error)
{
    ks_obs_told(cx->obs, p->index, KS_OBS_NO_BATCH, UINT32_MAX, KS_TOLD_FAILED, error,
                    -1, &record, 1);
}

/* A record written for a record a consumer read: a "forward" trace line
 * (before its "produce" line), and the checker learns its source. */
static void forwarded(ks_producer *p, ks_ctx *cx, const ks_send_rec *r)
{
    ks_obs_forward(cx->obs, r->id, r->source);
    ks_trace *tr = cx->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_FORWARD))
        return;
    ks_trace_str(tr, "consumer", r->via >= 0 ? cx->sc->consumers[r->via].id : NULL);
    ks_trace_u64(tr, "source", r->source);
    ks_trace_str(tr, "producer", p->conf->id);
    ks_trace_u64(tr, "record", r->id);
    ks_trace_end(tr);
}

/* A producer's "producer" and "topic" fields, the same in each of its
 * "produce" lines: kept from one line, put into the next. */
typedef struct ks_prod_line_runs {
    ks_trace_run producer, topic;
} ks_prod_line_runs;

/* The "produce" line, out of line: untraced runs only test for it. */
static KS_TRACE_NOINLINE void write_produce_line(ks_producer *p, ks_ctx *cx,
                                                 const ks_send_rec *r, int64_t partition)
{
    ks_trace *tr = cx->trace;
    if (!ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_PRODUCE))
        return;
    ks_prod_line_runs *k = p->produce_runs;
    if (k && k->producer.len > 0 && k->topic.len > 0) {
        ks_trace_put_run(tr, &k->producer);
        ks_trace_u64(tr, "record", r->id);
        ks_trace_put_run(tr, &k->topic);
    } else {
        /* field by field, keeping the runs (without memory for them,
         * every line is written so) */
        if (!k)
            k = p->produce_runs = calloc(1, sizeof *k);
        uint64_t m = ks_trace_mark(tr);
        ks_trace_str(tr, "producer", p->conf->id);
        if (k)
            ks_trace_keep(tr, m, &k->producer);
        ks_trace_u64(tr, "record", r->id);
        m = ks_trace_mark(tr);
        ks_trace_str(tr, "topic", ks_prod_topic_name(cx, p));
        if (k)
            ks_trace_keep(tr, m, &k->topic);
    }
    ks_trace_i64(tr, "partition", partition);
    ks_trace_str(tr, "key", r->key);
    ks_trace_u64(tr, "value_bytes", r->value_bytes);
    ks_trace_end(tr);
}

static inline void trace_produce(ks_producer *p, ks_ctx *cx, const ks_send_rec *r,
                                 int64_t partition)
{
    if (cx->trace && ks_trace_on(cx->trace, KS_TR_PRODUCE))
        write_produce_line(p, cx, r, partition);
    p->last_partition = partition < 0 ? UINT32_MAX : (uint32_t)partition;
    if (p->first_count < KS_FIRST_RECORDS) {
        p->first_ids[p->first_count] = r->id;
        p->first_last_id = r->id;
        p->first_offsets[p->first_count] = KS_OFFSET_UNTOLD;
        p->first_partitions[p->first_count++] = partition < 0 ? UINT32_MAX : (uint32_t)partition;
    }
}

/* The partition for a record (KafkaProducer.partition, or the
 * accumulator's built-in choice for keyless records from 3.3). */
static uint32_t choose_partition(ks_producer *p, const ks_send_rec *r)
{
    if (r->keyed)
        return ks_partition_for_key((const uint8_t *)r->key, (size_t)r->key_len, p->partitions);
    switch (p->part.kind) {
    case KS_PARTITIONER_ROUND_ROBIN:
        return ks_rr_next(&p->part);
    case KS_PARTITIONER_STICKY:
        return ks_sticky_partition(&p->part);
    case KS_PARTITIONER_UNIFORM_STICKY:
        /* A switch disabled earlier (the partition had a batch that was
         * not full) is completed once all its batches are full
         * (RecordAccumulator.partitionChanged). */
        for (;;) {
            uint32_t cur = ks_us_partition(&p->part);
            if (!ks_acc_all_full(&p->acc, cur))
                return cur;
            ks_us_update(&p->part, 0, true);
            if (ks_us_partition(&p->part) == cur)
                return cur;
        }
    case KS_PARTITIONER__COUNT:
        break;
    }
    assert(false && "bad partitioner");
    return 0;
}

static void after_append(ks_producer *p, ks_ctx *cx, const ks_send_rec *r,
                         const ks_append_result *res)
{
    if (!r->keyed && p->part.kind == KS_PARTITIONER_UNIFORM_STICKY)
        ks_us_update(&p->part, res->appended, ks_acc_all_full(&p->acc, r->partition));
    if (res->new_batch)
        ks_prod_sender_arm_expiry(p, cx,
                                  ks_time_add(ks_sim_now(&cx->sim), p->set.delivery_timeout_ns));
    if (res->batch_is_full || res->new_batch)
        ks_prod_sender_wake(p, cx, ks_sim_now(&cx->sim));
}

/* Appends with a buffer already reserved (possibly after blocking). */
static void append_new_batch(ks_producer *p, ks_ctx *cx, const ks_send_rec *r, uint32_t alloc)
{
    ks_time now = ks_sim_now(&cx->sim);
    /* Someone may have made room meanwhile (appendNewBatch tries first). */
    ks_append_result res = ks_acc_try_append(&p->acc, r->partition, r->id, r->send_ns,
                                             r->key_len, r->value_bytes);
    if (res.status == KS_APPEND_OK) {
        p->acc.memory_used -= alloc; /* the buffer goes back unused */
    } else if (!ks_acc_new_batch(&p->acc, r->partition, r->id, r->send_ns, now, r->key_len,
                                 r->value_bytes, alloc, &res)) {
        ks_prod_oom(cx);
        return;
    }
    after_append(p, cx, r, &res);
}

static void start_blocking(ks_producer *p, ks_ctx *cx, const ks_send_rec *r, uint32_t alloc)
{
    p->blocked = true;
    p->blocked_count++;
    p->blocked_rec = *r;
    p->blocked_since_ns = ks_sim_now(&cx->sim);
    p->blocked_alloc = alloc;
    ks_event ev = {.kind = KS_EV_TIMER,
                   .owner = p->node, .tag = KS_TIMER_BLOCK, .arg = r->id};
    p->block_timer = ks_sim_after(&cx->sim, p->max_block_ns, &ev);
    /* While a thread waits for memory every partition counts as ready. */
    ks_prod_sender_wake(p, cx, ks_sim_now(&cx->sim));
}

/* The next record's key and value size: in turn from the workload's
 * lists, or drawn from the producer's keys and values streams (a list of
 * one, the usual case, without reaching it). */
static void pick_record(ks_producer *p, ks_send_rec *r)
{
    const ks_send_hot *h = &p->send_hot;
    if (h->keyless) {
        r->key = NULL;
    } else if (h->key_pick == KS_PICK_CYCLE) {
        /* record n (p->produced) gets keys[n % key_count]: a cursor
         * instead of the division, which cost a tenth of a record's time */
        r->key = h->keys[p->key_at];
        p->key_at = p->key_at + 1u == h->key_count ? 0 : p->key_at + 1u;
    } else {
        const ks_workload_conf *wl = &p->conf->workload;
        uint32_t k;
        if (wl->key_pick == KS_PICK_UNIFORM) {
            k = ks_rng_bounded(&p->keys_rng, wl->key_space);
        } else {
            /* the first rank whose cumulative weight reaches the draw */
            double u = ks_rng_unit(&p->keys_rng) * p->zipf_cdf[wl->key_space - 1];
            uint32_t lo = 0, hi = wl->key_space - 1;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (p->zipf_cdf[mid] > u)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            k = lo;
        }
        snprintf(p->key_buf, sizeof p->key_buf, "%s%u", wl->key_prefix, k);
        r->key = p->key_buf;
    }
    r->key_len = r->key ? (int64_t)strlen(r->key) : -1;
    if (h->value_pick == KS_PICK_UNIFORM) {
        const ks_workload_conf *wl = &p->conf->workload;
        r->value_bytes = wl->value_min +
                         ks_rng_bounded(&p->values_rng, wl->value_max - wl->value_min + 1u);
    } else if (h->value_count == 1) {
        r->value_bytes = h->value1;
    } else {
        r->value_bytes = h->value_bytes[p->value_at];
        p->value_at = p->value_at + 1u == h->value_count ? 0 : p->value_at + 1u;
    }
    r->keyed = r->key != NULL && !p->ignore_keys;
}

/* The record's partition, and the append to its tail batch; with the
 * 2.4-3.2 sticky partitioner a record that needs a new batch is
 * partitioned again first (abortForNewBatch). */
static ks_append_result partition_and_append(ks_producer *p, ks_send_rec *r, ks_time now)
{
    r->partition = choose_partition(p, r);
    ks_append_result res = ks_acc_try_append(&p->acc, r->partition, r->id, now, r->key_len,
                                             r->value_bytes);
    if (res.status != KS_APPEND_OK && p->abort_on_new_batch) {
        /* abortForNewBatch: onNewBatch, partition again, append again. */
        ks_sticky_on_new_batch(&p->part, r->partition);
        r->partition = choose_partition(p, r);
        res = ks_acc_try_append(&p->acc, r->partition, r->id, now, r->key_len, r->value_bytes);
    } else if (res.status != KS_APPEND_OK && !r->keyed &&
               p->part.kind == KS_PARTITIONER_UNIFORM_STICKY) {
        /* The failed append closed the tail batch, so the partition's
         * batches are all full now: a switch held back until then happens
         * before the new batch is made, and the record goes to the new
         * partition (RecordAccumulator.append re-checks partitionChanged
         * after allocating). */
        uint32_t before = r->partition;
        r->partition = choose_partition(p, r);
        if (r->partition != before)
            res = ks_acc_try_append(&p->acc, r->partition, r->id, now, r->key_len, r->value_bytes);
    }
    return res;
}

/* One send() call by the application. */
static void do_send(ks_producer *p, ks_ctx *cx, ks_send_rec *r)
{
    ks_time now = ks_sim_now(&cx->sim);
    r->id = ks_ctx_record_id(cx);
    r->send_ns = now;
    if (r->source != KS_NO_SOURCE)
        forwarded(p, cx, r);
    if (p->produced == 0)
        p->first_produce_ns = now;
    p->produced++;
    cx->metrics.cur.produced++;
    p->record_bytes += r->value_bytes + (r->key_len > 0 ? (uint64_t)r->key_len : 0);
    const char *fatal = ks_prod_tm_fatal_error(p);
    if (fatal) {
        /* a fenced (or otherwise failed) producer refuses every send() */
        trace_produce(p, cx, r, -1);
        ks_prod_outcome_record(p, cx, r->id, now, KS_NONE, -1, 0, fatal);
        told_alone(p, cx, r->id, fatal);
        return;
    }
    uint32_t upper = ks_acc_upper_bound(&p->acc, r->key_len, r->value_bytes);
    /* KafkaProducer.ensureValidRecordSize */
    if (upper > p->max_request_size || upper > p->acc.memory_total) {
        trace_produce(p, cx, r, -1);
        ks_prod_outcome_record(p, cx, r->id, now, KS_NONE, -1, 0, "RecordTooLargeException");
        told_alone(p, cx, r->id, "RecordTooLargeException");
        return;
    }
    ks_append_result res = partition_and_append(p, r, now);
    trace_produce(p, cx, r, r->partition);
    if (res.status == KS_APPEND_OK) {
        after_append(p, cx, r, &res);
        return;
    }
    uint32_t alloc = (uint64_t)p->acc.batch_size > upper ? (uint32_t)p->acc.batch_size : upper;
    if (alloc > p->acc.memory_total) {
        /* BufferPool.allocate: "Attempt to allocate X bytes, but there is
         * a hard limit of Y on memory allocations" - thrown at once. */
        ks_prod_outcome_record(p, cx, r->id, now, r->partition, -1, 0, "IllegalArgumentException");
        told_alone(p, cx, r->id, "IllegalArgumentException");
        return;
    }
    if (ks_acc_reserve(&p->acc, alloc))
        append_new_batch(p, cx, r, alloc);
    else
        start_blocking(p, cx, r, alloc);
}

static void app_send(ks_producer *p, ks_ctx *cx)
{
    ks_send_rec r = {.source = KS_NO_SOURCE, .via = -1};
    if (p->forward_target && p->fwd_len > 0) { /* (only a target queues) */
        r.source = p->fwd_src[p->fwd_head];
        r.via = p->fwd_via[p->fwd_head];
        p->fwd_head = (p->fwd_head + 1u) % p->fwd_cap;
        p->fwd_len--;
    }
    pick_record(p, &r);
    uint64_t bytes = r.value_bytes + (r.key_len > 0 ? (uint64_t)r.key_len : 0u);
    ks_prod_tm_before_send(p);
    do_send(p, cx, &r);
    if (p->tm.transactional)
        ks_prod_tm_after_send(p, cx);
    /* Records are compressed as they are appended (the batch's
     * compression stream), on the application thread. */
    uint64_t ps = (uint64_t)p->send_hot.compress_ps;
    ks_time compress = ps == 0 ? 0 : (ks_time)((bytes * ps + 500u) / 1000u);
    ks_time cpu = p->send_hot.record_ns + compress;
    p->app_busy_ns = ks_time_add(p->app_busy_ns, cpu);
    p->app_free_ns = ks_time_add(ks_sim_now(&cx->sim), cpu);
}

/* Runs send() for arrivals that waited while the application thread was
 * blocked or busy; when it is busy, comes back once it is free. */
void ks_prod_send_drain_backlog(ks_producer *p, ks_ctx *cx)
{
    while (!p->blocked && !p->tm.blocked && p->backlog > 0 && cx->sim.verdict == KS_SIM_RUNNING) {
        /* a paused producer (fault pause.producer) sends nothing until the
         * pause ends */
        ks_time until = ks_sim_now(&cx->sim) < p->paused_until ? p->paused_until : 0;
        if (until > p->app_free_ns)
            p->app_free_ns = until;
        if (ks_sim_now(&cx->sim) < p->app_free_ns) {
            if (p->app_timer == KS_HANDLE_NONE) {
                ks_event ev = {.kind = KS_EV_TIMER,
                               .owner = p->node, .tag = KS_TIMER_APP};
                p->app_timer = ks_sim_schedule(&cx->sim, p->app_free_ns, &ev);
            }
            return;
        }
        p->backlog--;
        app_send(p, cx);
    }
    ks_prod_tm_try_end(p, cx);
}

void ks_producer_on_app_free(ks_producer *p, ks_ctx *cx)
{
    p->app_timer = KS_HANDLE_NONE;
    ks_prod_send_drain_backlog(p, cx);
}

/* Memory was freed: a blocked send() may go on. */
void ks_prod_send_try_unblock(ks_producer *p, ks_ctx *cx)
{
    if (!p->blocked || !ks_acc_reserve(&p->acc, p->blocked_alloc))
        return;
    p->blocked = false;
    p->blocked_ns_total += ks_sim_now(&cx->sim) - p->blocked_since_ns;
    ks_sim_cancel(&cx->sim, p->block_timer);
    p->block_timer = KS_HANDLE_NONE;
    append_new_batch(p, cx, &p->blocked_rec, p->blocked_alloc);
    ks_prod_send_drain_backlog(p, cx);
}

void ks_producer_on_block_timeout(ks_producer *p, ks_ctx *cx)
{
    if (!p->blocked)
        return;
    /* BufferPool.allocate gives up after max.block.ms:
     * BufferExhaustedException, a TimeoutException. */
    p->blocked = false;
    p->blocked_ns_total += ks_sim_now(&cx->sim) - p->blocked_since_ns;
    p->block_timer = KS_HANDLE_NONE;
    const ks_send_rec *r = &p->blocked_rec;
    ks_prod_outcome_record(p, cx, r->id, r->send_ns, r->partition, -1, 0,
                          "BufferExhaustedException");
    told_alone(p, cx, r->id, "BufferExhaustedException");
    ks_prod_send_drain_backlog(p, cx);
}

/* Queues an arrival's source for its send() (a forward target's every
 * arrival, its own workload's with KS_NO_SOURCE); false when memory ran
 * out. */
static bool fwd_push(ks_producer *p, uint64_t source, int32_t via)
{
    if (p->fwd_len == p->fwd_cap) {
        size_t cap = p->fwd_cap ? p->fwd_cap * 2u : 16u;
        uint64_t *src = malloc(cap * sizeof *src);
        int32_t *v = malloc(cap * sizeof *v);
        if (!src || !v) {
            free(src);
            free(v);
            return false;
        }
        for (size_t i = 0; i < p->fwd_len; i++) {
            src[i] = p->fwd_src[(p->fwd_head + i) % p->fwd_cap];
            v[i] = p->fwd_via[(p->fwd_head + i) % p->fwd_cap];
        }
        free(p->fwd_src);
        free(p->fwd_via);
        p->fwd_src = src;
        p->fwd_via = v;
        p->fwd_head = 0;
        p->fwd_cap = cap;
    }
    size_t at = (p->fwd_head + p->fwd_len) % p->fwd_cap;
    p->fwd_src[at] = source;
    p->fwd_via[at] = via;
    p->fwd_len++;
    return true;
}

/* One record arrives at the application. */
static void arrive(ks_producer *p, ks_ctx *cx, uint64_t source, int32_t via)
{
    if (p->forward_target && !fwd_push(p, source, via)) {
        ks_prod_oom(cx);
        return;
    }
    p->arrivals++;
    /* (faults.n first: no call for every record of a run without faults) */
    if (p->blocked || p->tm.blocked || p->backlog > 0 || ks_sim_now(&cx->sim) < p->app_free_ns ||
        ks_sim_now(&cx->sim) < p->paused_until) {
        p->backlog++;
        ks_prod_send_drain_backlog(p, cx);
    } else {
        app_send(p, cx);
    }
}

void ks_producer_forward(ks_producer *p, ks_ctx *cx, uint64_t source, uint32_t consumer)
{
    if (p->down || p->config_error[0])
        return;
    arrive(p, cx, source, (int32_t)consumer);
}

void ks_producer_on_produce(ks_producer *p, ks_ctx *cx)
{
    const ks_send_hot *h = &p->send_hot;
    ks_time now = ks_sim_now(&cx->sim);
    if (h->arrival == KS_ARRIVAL_BURST) {
        const ks_workload_conf *wl = &p->conf->workload;
        for (uint32_t i = 0; i < wl->burst_records && p->arrivals < wl->records; i++)
            arrive(p, cx, KS_NO_SOURCE, -1);
        if (p->arrivals < wl->records)
            ks_prod_send_schedule_arrival(p, cx, ks_time_add(now, wl->burst_interval_ns));
        return;
    }
    for (;;) {
        arrive(p, cx, KS_NO_SOURCE, -1);
        if (p->arrivals >= h->records)
            return;
        ks_time gap = h->interval_ns;
        if (h->arrival == KS_ARRIVAL_POISSON)
            gap = ks_round_i64(ks_rng_exponential(&p->workload_rng, (double)h->interval_ns));
        ks_time at = ks_time_add(now, gap);
        /* The next arrival comes before anything else pending: it runs
         * now, as the dispatch loop would run it next. */
        if (!cx->chain || !ks_sim_chain(&cx->sim, at, KS_EV_PRODUCE)) {
            ks_prod_send_schedule_arrival(p, cx, at);
            return;
        }
        now = at;
    }
}

const ks_prod_app_thread ks_prod_send_thread = {
    .resume = ks_prod_send_drain_backlog,
    .unblock = ks_prod_send_try_unblock,
};
