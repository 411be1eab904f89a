/*
 * producer.c - KafkaProducer's constructor and close (see producer.h):
 * the configs resolved into settings (producer_config.c), the client id,
 * the random streams, and each module's set-up and teardown.
 *
 * Wire sizes follow Kafka's formats so that bandwidth and per-byte costs
 * see realistic byte counts ([K] clients/src/main/resources/common/
 * message/, one JSON file per API).
 */
#include "models/producer/producer.h"

#include "models/producer/prod.h"
#include "models/producer/send.h"
#include "models/producer/sender.h"
#include "models/producer/txn_manager.h"
#include "models/producer/idempotence.h"
#include "models/producer/network_client.h"

#include "sim/detmath.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ks_partitioner_kind ks_producer_partitioner(const ks_producer_conf *pc, ks_kafka_version v)
{
    switch (pc->partitioner) {
    case KS_PCHOICE_ROUND_ROBIN:
        return KS_PARTITIONER_ROUND_ROBIN;
    case KS_PCHOICE_STICKY:
        return KS_PARTITIONER_STICKY;
    case KS_PCHOICE_UNIFORM_STICKY:
        return KS_PARTITIONER_UNIFORM_STICKY;
    case KS_PCHOICE_DEFAULT:
    case KS_PCHOICE__COUNT:
        break;
    }
    /* KIP-480 shipped in 2.4.0, KIP-794 in 3.3.0. */
    if (v < KS_KV(2, 4, 0))
        return KS_PARTITIONER_ROUND_ROBIN;
    if (v < KS_KV(3, 3, 0))
        return KS_PARTITIONER_STICKY;
    return KS_PARTITIONER_UNIFORM_STICKY;
}

/* Without client.id, KafkaProducer names the client
 * "producer-<transactional.id>" or "producer-<n>" ([K] ProducerConfig.
 * maybeOverrideClientId). */
static bool init_client_id(ks_producer *p, const ks_cfg_value *cfg, uint32_t index)
{
    const char *cid = cfg[KS_PCFG_CLIENT_ID].s, *tid = cfg[KS_PCFG_TRANSACTIONAL_ID].s;
    size_t cap = 32 + (cid ? strlen(cid) : 0) + (tid ? strlen(tid) : 0);
    p->client_id = malloc(cap);
    if (!p->client_id)
        return false;
    if (cid)
        snprintf(p->client_id, cap, "%s", cid);
    else if (tid)
        snprintf(p->client_id, cap, "producer-%s", tid);
    else
        snprintf(p->client_id, cap, "producer-%u", index + 1);
    return true;
}

/* Seeds the producer's stream "producer.<id>.<what>". */
static bool stream(ks_ctx *cx, ks_rng *r, const char *id, const char *what)
{
    char name[256]; /* producer ids are at most 100 characters */
    snprintf(name, sizeof name, "producer.%s.%s", id, what);
    return ks_streams_add(cx->streams, r, name);
}

/* The workload's streams, and the application's share of forwarding. */
static bool init_workload(ks_producer *p, ks_ctx *cx, const ks_producer_conf *pc)
{
    if (!stream(cx, &p->workload_rng, pc->id, "workload") ||
        !stream(cx, &p->partitioner_rng, pc->id, "partitioner"))
        return false;
    for (uint32_t i = 0; i < cx->sc->consumer_count; i++)
        p->forward_target |= cx->sc->consumers[i].forward_to == (int32_t)p->index;
    for (uint32_t i = 0; i < cx->sc->fault_count; i++)
        p->forward_target |= cx->sc->faults[i].forward_to == (int32_t)p->index;
    const ks_workload_conf *wl = &pc->workload;
    if (wl->key_pick != KS_PICK_CYCLE && !stream(cx, &p->keys_rng, pc->id, "keys"))
        return false;
    if (wl->value_pick != KS_PICK_CYCLE && !stream(cx, &p->values_rng, pc->id, "values"))
        return false;
    if (wl->key_pick == KS_PICK_ZIPF) {
        /* weight of rank k+1 is (k+1)^-s, with ksim's exp and log */
        p->zipf_cdf = malloc((size_t)wl->key_space * sizeof *p->zipf_cdf);
        if (!p->zipf_cdf)
            return false;
        double sum = 0.0;
        for (uint32_t k = 0; k < wl->key_space; k++) {
            sum += ks_exp(-wl->zipf_s * ks_log((double)(k + 1u)));
            p->zipf_cdf[k] = sum;
        }
    }
    return true;
}

/* KafkaProducer's constructor: idempotence, retry and timeout rules.
 * When it throws, the producer never starts (ks_producer_start). */
static bool init_settings(ks_producer *p, ks_ctx *cx, const ks_producer_conf *pc)
{
    const ks_cfg_value *cfg = pc->config;
    if (!ks_producer_settings_resolve(cfg, cx->sc->kafka_version, &p->set, p->config_error,
                                      sizeof p->config_error) &&
        p->config_error[0] == '\0')
        snprintf(p->config_error, sizeof p->config_error, "ConfigException");
    if (p->config_error[0]) {
        memset(&p->set, 0, sizeof p->set);
        p->set.acks = (int)cfg[KS_PCFG_ACKS].i;
        p->set.max_in_flight = (uint32_t)cfg[KS_PCFG_MAX_IN_FLIGHT].i;
        p->set.delivery_timeout_ns = KS_TIME_MAX;
    }
    p->producer_id = -1;
    p->epoch = -1;
    p->expiry_timer = KS_HANDLE_NONE;
    if (p->set.exponential_backoff && !stream(cx, &p->retry_rng, pc->id, "retry"))
        return false;
    if (p->set.idempotent && !ks_prod_seq_init(p))
        return false;
    p->acks = p->set.acks;
    p->max_in_flight = p->set.max_in_flight;
    p->last_partition = UINT32_MAX;
    return ks_prod_tm_init(p, cx, pc);
}

/* The partitioner and the accumulator. */
static bool init_partitioning(ks_producer *p, ks_ctx *cx, const ks_producer_conf *pc)
{
    const ks_cfg_value *cfg = pc->config;
    p->max_request_size = (uint32_t)cfg[KS_PCFG_MAX_REQUEST_SIZE].i;
    p->max_block_ns = ks_time_from_ms(cfg[KS_PCFG_MAX_BLOCK_MS].i);
    ks_partitioner_kind kind = ks_producer_partitioner(pc, cx->sc->kafka_version);
    p->ignore_keys = cfg[KS_PCFG_PARTITIONER_IGNORE_KEYS].i != 0 &&
                     kind == KS_PARTITIONER_UNIFORM_STICKY;
    /* 2.4-3.2: the partitioner is an object with onNewBatch, and
     * KafkaProducer asks the accumulator to abort before a new batch. */
    p->abort_on_new_batch = kind == KS_PARTITIONER_STICKY;
    p->adaptive = cfg[KS_PCFG_PARTITIONER_ADAPTIVE].i != 0;
    p->availability_timeout_ns =
        ks_time_from_ms(cfg[KS_PCFG_PARTITIONER_AVAILABILITY_TIMEOUT_MS].i);
    if (!ks_acc_init(&p->acc, p->max_partitions, p->brokers, cfg[KS_PCFG_BATCH_SIZE].i,
                     ks_time_from_ms(cfg[KS_PCFG_LINGER_MS].i),
                     (uint64_t)cfg[KS_PCFG_BUFFER_MEMORY].i))
        return false;
    p->acc.partitions = p->partitions;
    if (!ks_acc_set_leaders(&p->acc, p->leader))
        return false;
    /* KIP-794's load stats, kept as queues change unless partitions may be
     * left out for their leader's unavailability */
    if (kind == KS_PARTITIONER_UNIFORM_STICKY && p->adaptive && p->availability_timeout_ns == 0 &&
        !ks_acc_track_loads(&p->acc, p->max_partitions))
        return false;
    /* KAFKA-13834 (PR #12066, April 2022, so 3.3) gave each broker its own
     * drain index; before, one index served all brokers. */
    ks_acc_set_shared_drain_index(&p->acc, cx->sc->kafka_version < KS_KV(3, 3, 0));
    if (cfg[KS_PCFG_COMPRESSION_TYPE].i != 0)
        ks_acc_set_compression(&p->acc, &pc->compression);
    if (!ks_partitioner_init(&p->part, kind, p->max_partitions, cfg[KS_PCFG_BATCH_SIZE].i,
                             &p->partitioner_rng))
        return false;
    p->part.partitions = p->partitions;
    return true;
}

/* ---- what the network client hands back ------------------------------------------ */

/* A ProduceResponse: the observer learns the request was answered, the
 * Sender completes or retries its batches. */
static void on_produce_response(ks_producer *p, ks_ctx *cx, ks_request *q)
{
    ks_obs_request_fate(cx->obs, p->index, q->correlation_id, KS_FATE_ANSWERED, KS_OBS_NO_FAULT);
    ks_prod_sender_handle_response(p, cx, q);
}

/* InitProducerId and the transactional requests: the TransactionManager's. */
static void on_txn_response(ks_producer *p, ks_ctx *cx, ks_request *q)
{
    ks_prod_tm_answered(p, cx, q);
}

typedef void response_handler(ks_producer *p, ks_ctx *cx, ks_request *q);

/* The producer node's handler of each API's response (Metadata's is the
 * network client's own). An API the producer never sends has none
 * (NULL): its response reaching the producer is a ksim bug. A new ApiKey
 * needs no entry here unless the producer sends it. */
static response_handler *const response_handlers[KS_API__COUNT] = {
    [KS_API_PRODUCE] = on_produce_response,
    [KS_API_INIT_PRODUCER_ID] = on_txn_response,
    [KS_API_FIND_COORDINATOR] = on_txn_response,
    [KS_API_ADD_PARTITIONS_TO_TXN] = on_txn_response,
    [KS_API_ADD_OFFSETS_TO_TXN] = on_txn_response,
    [KS_API_TXN_OFFSET_COMMIT] = on_txn_response,
    [KS_API_END_TXN] = on_txn_response,
};

/* Hands response q to its API's handler; the run ends with an internal
 * error when the producer has none for it. */
static void answered(ks_producer *p, ks_ctx *cx, ks_request *q)
{
    response_handler *h = (unsigned)q->api < (unsigned)KS_API__COUNT ? response_handlers[q->api]
                                                                     : NULL;
    assert(h && "a response to a request the producer never sends");
    if (!h) {
        ks_sim_stop(&cx->sim, KS_SIM_INTERNAL_ERROR);
        return;
    }
    h(p, cx, q);
}

/* Its connection closed: a Produce request's batches fail (and are
 * retried or failed), the TransactionManager's request is retried after
 * retry.backoff.ms. */
static void given_up(ks_producer *p, ks_ctx *cx, ks_request *q, ks_kerr err, bool first,
                     bool timed_out)
{
    if (q->api != KS_API_PRODUCE) {
        ks_prod_tm_request_lost(p, ks_sim_now(&cx->sim));
        return;
    }
    /* what the producer saw of it (the observer keeps what the network
     * saw, when it lost a message of this request) */
    ks_obs_request_fate(cx->obs, p->index, q->correlation_id,
                        first && timed_out ? KS_FATE_TIMED_OUT : KS_FATE_DISCARDED,
                        KS_OBS_NO_FAULT);
    ks_prod_sender_fail_request(p, cx, q, err);
}

/* Answers and failures may have given memory back: a blocked send()
 * may go on, and the sender runs. */
static void after(ks_producer *p, ks_ctx *cx)
{
    p->app_thread->unblock(p, cx);
    ks_prod_sender_wake(p, cx, ks_sim_now(&cx->sim));
}

static const ks_prod_net_handlers net_handlers = {
    .answered = answered,
    .given_up = given_up,
    .after = after,
};

bool ks_producer_init(ks_producer *p, ks_ctx *cx, uint32_t index, const ks_meta *bootstrap)
{
    const ks_producer_conf *pc = &cx->sc->producers[index];
    memset(p, 0, sizeof *p);
    p->index = index;
    p->node = ks_node_producer(cx->nodes, index);
    p->conf = pc;
    p->net = &net_handlers;
    p->app_thread = &ks_prod_send_thread;
    if (!init_client_id(p, pc->config, index) || !init_workload(p, cx, pc))
        return false;
    ks_prod_send_init(p);
    p->topic = pc->topic;
    p->first_partition = bootstrap->topic_first[pc->topic];
    p->partitions = bootstrap->topic_partitions[pc->topic];
    p->max_partitions = cx->sc->topics[pc->topic].max_partitions;
    p->metadata_max_age_ns = ks_time_from_ms(pc->config[KS_PCFG_METADATA_MAX_AGE_MS].i);
    p->metadata_timer = KS_HANDLE_NONE;
    uint32_t max = p->max_partitions;
    p->node_ready = calloc(bootstrap->brokers, sizeof *p->node_ready);
    p->queue = calloc(max, sizeof *p->queue);
    p->queue_ids = calloc(max, sizeof *p->queue_ids);
    if (!p->node_ready || !p->queue || !p->queue_ids)
        return false;
    if (!ks_prod_net_init(p, cx, bootstrap) || !init_settings(p, cx, pc) ||
        !init_partitioning(p, cx, pc))
        return false;
    p->wake = KS_HANDLE_NONE;
    p->block_timer = KS_HANDLE_NONE;
    p->app_timer = KS_HANDLE_NONE;
    for (int h = 0; h < KS_PH__COUNT; h++)
        ks_hist_init(&p->hist[h]);
    /* With a few producers their histograms stay in the cache, and
     * keeping values costs more than it saves (ks_hist_defer). */
    p->hist_defer.on = cx->sc->producer_count >= KS_PROD_HIST_DEFER_FROM;
    return true;
}

void ks_producer_free(ks_producer *p)
{
    ks_prod_net_free(p);
    free(p->node_ready);
    free(p->queue);
    free(p->queue_ids);
    p->node_ready = NULL;
    p->queue = p->queue_ids = NULL;
    free(p->seq);
    p->seq = NULL;
    ks_prod_tm_free(p);
    free(p->fwd_src);
    free(p->fwd_via);
    p->fwd_src = NULL;
    p->fwd_via = NULL;
    free(p->scratch_ids);
    p->scratch_ids = NULL;
    free(p->client_id);
    p->client_id = NULL;
    free(p->zipf_cdf);
    p->zipf_cdf = NULL;
    free(p->produce_runs);
    p->produce_runs = NULL;
    for (int h = 0; h < KS_PH__COUNT; h++)
        ks_hist_free(&p->hist[h]);
    p->hist_defer.n = 0;
    ks_acc_free(&p->acc);
    ks_partitioner_free(&p->part);
}

/* ---- the node's operations -------------------------------------------------- */

/* Schedules the first send() of the workload. */
static void start(void *self, ks_ctx *cx)
{
    ks_producer *p = self;
    if (p->config_error[0]) {
        /* new KafkaProducer(...) threw: the application never sends */
        ks_prod_trace_state(p, cx, "config_exception", p->config_error);
        return;
    }
    ks_prod_tm_start(p, cx);
    if (p->conf->workload.records > 0)
        ks_prod_send_schedule_arrival(p, cx, p->conf->workload.start_ns);
    ks_prod_net_schedule_metadata(p, cx);
}

static void on_timer(ks_producer *p, ks_ctx *cx, const ks_event *t)
{
    switch (t->tag) {
    case KS_TIMER_BLOCK:
        ks_producer_on_block_timeout(p, cx);
        break;
    case KS_TIMER_APP:
        ks_producer_on_app_free(p, cx);
        break;
    case KS_TIMER_METADATA:
        ks_producer_on_metadata(p, cx);
        break;
    case KS_TIMER_SENT:
        ks_producer_on_sent(p, cx, (uint32_t)t->arg);
        break;
    case KS_TIMER_REQUEST_TIMEOUT:
        ks_producer_on_request_timeout(p, cx, (uint32_t)t->arg);
        break;
    case KS_TIMER_EXPIRY:
        ks_producer_on_expiry(p, cx);
        break;
    case KS_TIMER_TXN_END:
        ks_producer_on_txn_end(p, cx);
        break;
    default:
        break;
    }
}

static void on_event(void *self, ks_ctx *cx, const ks_event *ev)
{
    ks_producer *p = self;
    switch (ev->kind) {
    case KS_EV_PRODUCE:
        ks_producer_on_produce(p, cx);
        break;
    case KS_EV_SENDER:
        ks_producer_on_sender(p, cx);
        break;
    case KS_EV_TIMER:
        on_timer(p, cx, ev);
        break;
    default:
        assert(0 && "an event a producer never schedules");
        break;
    }
}

static void on_message(void *self, ks_ctx *cx, uint32_t msg, bool answer)
{
    assert(answer && "a producer serves no request");
    (void)answer;
    ks_producer_on_response(self, cx, msg);
}

/* A paused producer's event moved to `at` under a new handle: keep the
 * handle the producer cancels it by. */
static void rehandle(void *self, const ks_event *ev, ks_handle h, ks_time at)
{
    ks_producer *p = self;
    if (ev->kind == KS_EV_SENDER) {
        p->wake = h;
        p->wake_ns = at;
        return;
    }
    if (ev->kind != KS_EV_TIMER)
        return;
    switch (ev->tag) {
    case KS_TIMER_BLOCK:
        p->block_timer = h;
        break;
    case KS_TIMER_APP:
        p->app_timer = h;
        break;
    case KS_TIMER_METADATA:
        p->metadata_timer = h;
        break;
    case KS_TIMER_REQUEST_TIMEOUT:
        p->nodes[ev->arg].timeout_timer = h;
        break;
    case KS_TIMER_EXPIRY:
        p->expiry_timer = h;
        p->expiry_ns = at;
        break;
    default:
        break;
    }
}

/* The application's arrivals come from outside the process: they keep
 * their times while it is paused (send.c queues them). */
static bool runs_paused(const ks_event *ev)
{
    return ev->kind == KS_EV_PRODUCE;
}

static void on_pause(void *self, ks_ctx *cx, ks_time until)
{
    ks_producer *p = self;
    (void)cx;
    p->paused_until = until;
}

static void on_resume(void *self, ks_ctx *cx)
{
    ks_producer *p = self;
    (void)cx;
    p->paused_until = 0;
}

/* Its process dies: nothing of it happens any more. */
static void crash(void *self, ks_ctx *cx, ks_time restart_ns, int32_t arg)
{
    ks_producer *p = self;
    (void)restart_ns;
    (void)arg;
    p->down = true;
    ks_prod_net_crash(p, cx);
}

/* At the end: tells the observer about records never sent, and counts
 * what its histograms have still to count. */
static void finish(void *self, ks_ctx *cx)
{
    ks_producer *p = self;
    ks_prod_hist_flush(p);
    uint64_t untold = (p->blocked ? 1u : 0u) + ks_acc_unsent_records(&p->acc);
    if (untold > 0)
        ks_obs_untold(cx->obs, p->index, untold);
}

const ks_node_ops ks_producer_ops = {
    .kind = "producer",
    .client_key = "producer",
    .start = start,
    .on_message = on_message,
    .on_timer = on_event,
    .crash = crash,
    .pause = on_pause,
    .resume = on_resume,
    .runs_paused = runs_paused,
    .rehandle = rehandle,
    .finish = finish,
};
