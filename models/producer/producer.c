/*
 * producer.c - the producer model (see producer.h).
 *
 * Wire sizes follow Kafka's formats so that bandwidth and per-byte costs
 * see realistic byte counts: ProduceRequest v7 framing ([K] clients/src/
 * main/resources/common/message/ProduceRequest.json, RequestHeader.json).
 */
#include "models/producer/producer.h"

#include "models/net/wire.h"
#include "models/world.h"
#include "sim/detmath.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ProduceRequest v7 for one topic: size(4) api_key(2) api_version(2)
 * correlation_id(4) client_id(2+n) transactional_id(2) acks(2)
 * timeout_ms(4) topics(4) name(2+n) partitions(4), then per partition
 * index(4) records_size(4) and the batch. */
static uint32_t request_bytes(const ks_producer *p, const char *topic, uint32_t batches,
                              uint64_t batch_bytes)
{
    return 32u + (uint32_t)strlen(p->client_id) + (uint32_t)strlen(topic) + 8u * batches +
           (uint32_t)batch_bytes;
}

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

static const char *topic_name(const ks_world *w, const ks_producer *p)
{
    return w->sc->topics[p->topic].name;
}

/* Each broker's list of the partitions it leads, among those known. */
static void assign_parts(ks_producer *p)
{
    for (uint32_t b = 0; b < p->brokers; b++) {
        ks_prod_node *n = &p->nodes[b];
        n->nparts = 0;
        for (uint32_t i = 0; i < p->partitions; i++)
            if (p->leader[i] == b)
                n->parts[n->nparts++] = i;
    }
}

/* Arrays are sized for every partition the topic will ever have, so a
 * metadata refresh that finds new partitions only changes counts. */
static bool init_nodes(ks_producer *p, ks_world *w)
{
    uint32_t max = p->max_partitions;
    p->brokers = w->broker_count;
    p->nodes = calloc(p->brokers, sizeof *p->nodes);
    p->leader = calloc(max, sizeof *p->leader);
    p->node_ready = calloc(p->brokers, sizeof *p->node_ready);
    p->queue = calloc(max, sizeof *p->queue);
    p->queue_ids = calloc(max, sizeof *p->queue_ids);
    p->was_full = calloc(max, sizeof *p->was_full);
    if (!p->nodes || !p->leader || !p->node_ready || !p->queue || !p->queue_ids || !p->was_full)
        return false;
    for (uint32_t i = 0; i < max; i++)
        p->leader[i] = w->partitions[p->first_partition + i].leader;
    for (uint32_t b = 0; b < p->brokers; b++) {
        ks_prod_node *n = &p->nodes[b];
        n->conn = ks_net_connect(&w->net, ks_node_producer(&w->nodes, p->index), b);
        if (n->conn == UINT32_MAX)
            return false;
        n->fifo_head = n->fifo_tail = KS_REQ_NONE;
        n->timeout_timer = KS_HANDLE_NONE;
        n->parts = calloc(max, sizeof *n->parts);
        if (!n->parts)
            return false;
    }
    assign_parts(p);
    return true;
}

bool ks_producer_init(ks_producer *p, ks_world *w, uint32_t index)
{
    const ks_producer_conf *pc = &w->sc->producers[index];
    const ks_cfg_value *cfg = pc->config;
    memset(p, 0, sizeof *p);
    p->index = index;
    p->conf = pc;
    /* Without client.id, KafkaProducer names the client
     * "producer-<transactional.id>" or "producer-<n>" ([K] ProducerConfig.
     * maybeOverrideClientId). */
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
    char name[256]; /* producer ids are at most 100 characters */
    snprintf(name, sizeof name, "producer.%s.workload", pc->id);
    if (!ks_world_stream(w, &p->workload_rng, name))
        return false;
    snprintf(name, sizeof name, "producer.%s.partitioner", pc->id);
    if (!ks_world_stream(w, &p->partitioner_rng, name))
        return false;
    for (uint32_t i = 0; i < w->sc->consumer_count; i++)
        p->forward_target |= w->sc->consumers[i].forward_to == (int32_t)index;
    for (uint32_t i = 0; i < w->sc->fault_count; i++)
        p->forward_target |= w->sc->faults[i].forward_to == (int32_t)index;
    const ks_workload_conf *wl = &pc->workload;
    if (wl->key_pick != KS_PICK_CYCLE) {
        snprintf(name, sizeof name, "producer.%s.keys", pc->id);
        if (!ks_world_stream(w, &p->keys_rng, name))
            return false;
    }
    if (wl->value_pick != KS_PICK_CYCLE) {
        snprintf(name, sizeof name, "producer.%s.values", pc->id);
        if (!ks_world_stream(w, &p->values_rng, name))
            return false;
    }
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
    p->topic = pc->topic;
    p->first_partition = w->topic_first_partition[pc->topic];
    p->partitions = w->topic_partitions[pc->topic];
    p->max_partitions = w->sc->topics[pc->topic].max_partitions;
    p->metadata_max_age_ns = ks_time_from_ms(cfg[KS_PCFG_METADATA_MAX_AGE_MS].i);
    p->metadata_timer = KS_HANDLE_NONE;
    if (!init_nodes(p, w))
        return false;

    /* KafkaProducer's constructor: idempotence, retry and timeout rules.
     * When it throws, the producer never starts (ks_producer_start). */
    if (!ks_producer_settings_resolve(cfg, w->sc->kafka_version, &p->set, p->config_error,
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
    if (p->set.exponential_backoff) {
        snprintf(name, sizeof name, "producer.%s.retry", pc->id);
        if (!ks_world_stream(w, &p->retry_rng, name))
            return false;
    }
    if (p->set.idempotent) {
        p->seq = calloc(p->max_partitions, sizeof *p->seq);
        if (!p->seq)
            return false;
        for (uint32_t i = 0; i < p->max_partitions; i++)
            p->seq[i].last_acked = -1;
    }
    p->acks = p->set.acks;
    p->max_in_flight = p->set.max_in_flight;
    p->coordinator = -1;
    p->txn_offsets_consumer = -1;
    p->group_coordinator = -1;
    p->last_partition = UINT32_MAX;
    if (pc->txn.enabled && !p->config_error[0]) {
        p->txn = true;
        p->txn_kip890 = pc->txn.protocol == KS_TXNP_KIP890 ||
                        (pc->txn.protocol == KS_TXNP_DEFAULT &&
                         w->sc->kafka_version >= KS_KV(4, 0, 0));
        p->txn_added = calloc(p->max_partitions, sizeof *p->txn_added);
        p->txn_pending = calloc(p->max_partitions, sizeof *p->txn_pending);
        if (!p->txn_added || !p->txn_pending)
            return false;
    }
    p->max_request_size = (uint32_t)cfg[KS_PCFG_MAX_REQUEST_SIZE].i;
    p->max_block_ns = ks_time_from_ms(cfg[KS_PCFG_MAX_BLOCK_MS].i);
    ks_partitioner_kind kind = ks_producer_partitioner(pc, w->sc->kafka_version);
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
    /* KAFKA-13834 (PR #12066, April 2022, so 3.3) gave each broker its own
     * drain index; before, one index served all brokers. */
    ks_acc_set_shared_drain_index(&p->acc, w->sc->kafka_version < KS_KV(3, 3, 0));
    if (cfg[KS_PCFG_COMPRESSION_TYPE].i != 0)
        ks_acc_set_compression(&p->acc, pc->compression.ratio);
    if (!ks_partitioner_init(&p->part, kind, p->max_partitions, cfg[KS_PCFG_BATCH_SIZE].i,
                             &p->partitioner_rng))
        return false;
    p->part.partitions = p->partitions;
    p->wake = KS_HANDLE_NONE;
    p->block_timer = KS_HANDLE_NONE;
    p->app_timer = KS_HANDLE_NONE;
    ks_hist_init(&p->latency);
    ks_hist_init(&p->batch_records);
    ks_hist_init(&p->batch_bytes);
    ks_hist_init(&p->request_batches);
    return true;
}

void ks_producer_free(ks_producer *p)
{
    for (uint32_t b = 0; p->nodes && b < p->brokers; b++)
        free(p->nodes[b].parts);
    free(p->nodes);
    free(p->leader);
    free(p->node_ready);
    free(p->queue);
    free(p->queue_ids);
    free(p->was_full);
    free(p->seq);
    p->seq = NULL;
    free(p->txn_added);
    free(p->fwd_src);
    free(p->fwd_via);
    free(p->txn_pending);
    free(p->txn_offsets);
    free(p->txn_offset_parts);
    free(p->txn_ids);
    free(p->txn_parts);
    p->txn_ids = NULL;
    p->txn_parts = NULL;
    p->txn_added = p->txn_pending = NULL;
    p->txn_offsets = NULL;
    p->txn_offset_parts = NULL;
    free(p->scratch_ids);
    p->scratch_ids = NULL;
    free(p->client_id);
    p->client_id = NULL;
    free(p->zipf_cdf);
    p->zipf_cdf = NULL;
    ks_hist_free(&p->latency);
    ks_hist_free(&p->batch_records);
    ks_hist_free(&p->batch_bytes);
    ks_hist_free(&p->request_batches);
    ks_acc_free(&p->acc);
    ks_partitioner_free(&p->part);
    p->nodes = NULL;
    p->leader = NULL;
    p->node_ready = NULL;
    p->queue = p->queue_ids = NULL;
    p->was_full = NULL;
}

/* Wakes the sender at `at` unless it is already due by then. */
static void wake_sender(ks_producer *p, ks_world *w, ks_time at)
{
    if (p->wake != KS_HANDLE_NONE) {
        if (p->wake_ns <= at)
            return;
        ks_sim_cancel(&w->sim, p->wake);
    }
    ks_event ev = {.kind = KS_EV_SENDER, .owner = p->index};
    p->wake = ks_sim_schedule(&w->sim, at, &ev);
    p->wake_ns = at;
}

static void schedule_arrival(ks_producer *p, ks_world *w, ks_time at)
{
    ks_event ev = {.kind = KS_EV_PRODUCE, .owner = p->index};
    ks_sim_schedule(&w->sim, at, &ev);
}

/* The next metadata refresh, worth scheduling while an admin operation
 * on the producer's topic is still to come (none else changes metadata;
 * a refresh that finds nothing keeps no run alive, but scheduling it
 * forever would be work for nothing). metadata.max.age.ms 0 refreshes
 * again as soon as the last refresh is answered ([K] Metadata
 * .timeToNextUpdate). */
static void schedule_metadata(ks_producer *p, ks_world *w)
{
    const ks_scenario *sc = w->sc;
    ks_time now = ks_sim_now(&w->sim), last = -1;
    for (uint32_t i = 0; i < sc->admin_count; i++)
        if (sc->admin[i].topic == p->topic)
            last = sc->admin[i].at_ns;
    if (last < 0 || now > last)
        return;
    ks_time age = p->metadata_max_age_ns > 0 ? p->metadata_max_age_ns : 0;
    ks_event ev = {.kind = KS_EV_TIMER, .owner = p->index, .tag = KS_TIMER_METADATA};
    p->metadata_timer = ks_sim_schedule_daemon(&w->sim, ks_time_add(now, age), &ev);
}

static void trace_state(ks_producer *p, ks_world *w, const char *what, const char *error)
{
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_PRODUCER)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_str(tr, "what", what);
        if (p->producer_id >= 0) {
            ks_trace_i64(tr, "producer_id", p->producer_id);
            ks_trace_i64(tr, "epoch", p->epoch);
        }
        if (error)
            ks_trace_str(tr, "error", error);
        ks_trace_end(tr);
    }
}

/* The idempotent producer needs a producer id: InitProducerId without a
 * transactional.id ([K] TransactionManager.bumpIdempotentEpochAndReset
 * IdIfNeeded enqueues it; Sender.maybeSendAndPollTransactionalRequest
 * sends it first). Until the answer comes, nothing is drained. */
static void init_producer_id(ks_producer *p, ks_world *w)
{
    p->producer_id = -1;
    p->pid_needed = true;
    wake_sender(p, w, ks_sim_now(&w->sim));
}

/* InitProducerId answered: a fresh producer id at epoch 0, and every
 * partition's sequence starts over. */
static void got_producer_id(ks_producer *p, ks_world *w, const ks_request *q)
{
    p->pid_needed = false;
    p->pid_pending = false;
    p->producer_id = q->producer_id;
    p->epoch = q->epoch;
    for (uint32_t i = 0; i < p->max_partitions; i++) {
        ks_seq_state *sq = &p->seq[i];
        if (sq->incomplete == 0) {
            sq->epoch = p->epoch;
            sq->next_seq = 0;
            sq->last_acked = -1;
        } else {
            sq->epoch = -1; /* an old producer id's batches: start over once done */
        }
    }
    trace_state(p, w, "init_producer_id", NULL);
}

void ks_producer_start(ks_producer *p, ks_world *w)
{
    if (p->config_error[0]) {
        /* new KafkaProducer(...) threw: the application never sends */
        trace_state(p, w, "config_exception", p->config_error);
        return;
    }
    if (p->txn) {
        /* initTransactions(): the application waits until the producer id
         * is there */
        p->txn_phase = KS_TXNC_INITIALIZING;
        p->txn_blocked = true;
        p->producer_id = -1;
        wake_sender(p, w, p->conf->workload.start_ns);
    } else if (p->set.idempotent) {
        init_producer_id(p, w);
    }
    if (p->conf->workload.records > 0)
        schedule_arrival(p, w, p->conf->workload.start_ns);
    schedule_metadata(p, w);
}

/* metadata.max.age.ms passed: the producer refreshes its metadata and
 * sees partitions added since ([K] clients/.../Metadata.java). Keys are
 * hashed over the new count from the next record on. */
static uint32_t least_loaded(const ks_producer *p, const ks_world *w, ks_time now, ks_time *next);
static void address(ks_producer *p, ks_world *w, ks_request *q, uint32_t broker);
static void oom(ks_world *w);
static void launch(ks_producer *p, ks_world *w, uint32_t broker, uint32_t id, ks_time now,
                   bool *lost_out, ks_time *sent_out);

/* metadata.max.age.ms passed: a MetadataRequest for the topic goes to
 * the least loaded broker (a daemon: a refresh keeps no run alive). */
void ks_producer_on_metadata(ks_producer *p, ks_world *w)
{
    p->metadata_timer = KS_HANDLE_NONE;
    ks_time now = ks_sim_now(&w->sim), next = KS_TIME_MAX;
    uint32_t broker = least_loaded(p, w, now, &next);
    if (broker == UINT32_MAX) {
        if (next != KS_TIME_MAX) {
            ks_event ev = {.kind = KS_EV_TIMER, .owner = p->index, .tag = KS_TIMER_METADATA};
            p->metadata_timer = ks_sim_schedule_daemon(&w->sim, next, &ev);
        }
        return;
    }
    uint32_t id = ks_request_alloc(&w->reqs);
    if (id == KS_REQ_NONE) {
        oom(w);
        return;
    }
    ks_request *q = &w->reqs.reqs[id];
    q->api = KS_API_METADATA;
    address(p, w, q, broker);
    q->correlation_id = ++p->api_requests[KS_API_METADATA];
    q->expects_response = true;
    q->producer_id = -1;
    q->topic = p->topic;
    q->daemon = true;
    q->gen = p->nodes[broker].gen;
    q->pnext = KS_REQ_NONE;
    q->request_bytes = 30u + (uint32_t)strlen(p->client_id) + (uint32_t)strlen(topic_name(w, p));
    q->sent_ns = now;
    bool lost;
    ks_time sent;
    launch(p, w, broker, id, now, &lost, &sent);
}

/* The MetadataResponse: new partitions of the topic and their leaders. */
static void metadata_answered(ks_producer *p, ks_world *w, const ks_request *q)
{
    uint32_t known = q->nleaders < p->max_partitions ? q->nleaders : p->max_partitions;
    if (q->error == KS_KERR_NONE && known > p->partitions) {
        for (uint32_t i = p->partitions; i < known; i++)
            p->leader[i] = q->leaders[i];
        p->partitions = known;
        p->acc.partitions = known;
        p->part.partitions = known;
        assign_parts(p);
        ks_trace *tr = w->trace;
        if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_METADATA)) {
            ks_trace_str(tr, "producer", p->conf->id);
            ks_trace_str(tr, "topic", topic_name(w, p));
            ks_trace_u64(tr, "partitions", known);
            ks_trace_end(tr);
        }
    }
    schedule_metadata(p, w);
}

static void trace_ack(ks_producer *p, ks_world *w, uint64_t record, uint32_t partition,
                      int64_t offset, ks_time latency, const char *error)
{
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_ACK)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_u64(tr, "record", record);
        ks_trace_str(tr, "topic", topic_name(w, p));
        ks_trace_i64(tr, "partition", partition == KS_NONE ? -1 : (int64_t)partition);
        ks_trace_i64(tr, "offset", offset);
        ks_trace_i64(tr, "latency_ns", latency);
        ks_trace_str(tr, "error", error);
        ks_trace_end(tr);
    }
}

/* The application learns a record's outcome now. */
static void complete(ks_producer *p, ks_world *w, uint64_t record, ks_time produced_ns,
                     uint32_t partition, int64_t offset, uint32_t bytes, const char *error)
{
    ks_time now = ks_sim_now(&w->sim);
    ks_time latency = now - produced_ns;
    ks_bucket *bk = &w->metrics.cur;
    if (error) {
        p->failed++;
        bk->failed++;
    } else {
        p->acked++;
        bk->acked++;
        bk->bytes += bytes;
    }
    p->last_ack_ns = now;
    if (p->first_count > 0 && record <= p->first_ids[p->first_count - 1]) {
        for (uint32_t k = 0; k < p->first_count; k++)
            if (p->first_ids[k] == record)
                p->first_offsets[k] = error ? KS_OFFSET_FAILED : offset;
    }
    ks_hist_add(&p->latency, latency);
    if (w->metrics.bucket_ns > 0)
        ks_hist_add(&w->metrics.latency, latency);
    trace_ack(p, w, record, partition, offset, latency, error ? error : "NONE");
}

/* A record failed inside send(), before any batch held it. */
static void told_alone(ks_producer *p, ks_world *w, uint64_t record, const char *error)
{
    ks_obs_told(&w->obs, p->index, KS_OBS_NO_BATCH, UINT32_MAX, KS_TOLD_FAILED, error,
                    -1, &record, 1);
}

/* A record written for a record a consumer read: a "forward" trace line
 * (before its "produce" line), and the checker learns its source. */
static void forwarded(ks_producer *p, ks_world *w, const ks_send_rec *r)
{
    ks_obs_forward(&w->obs, r->id, r->source);
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_FORWARD))
        return;
    ks_trace_str(tr, "consumer", r->via >= 0 ? w->sc->consumers[r->via].id : NULL);
    ks_trace_u64(tr, "source", r->source);
    ks_trace_str(tr, "producer", p->conf->id);
    ks_trace_u64(tr, "record", r->id);
    ks_trace_end(tr);
}

static void trace_produce(ks_producer *p, ks_world *w, const ks_send_rec *r, int64_t partition)
{
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_PRODUCE)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_u64(tr, "record", r->id);
        ks_trace_str(tr, "topic", topic_name(w, p));
        ks_trace_i64(tr, "partition", partition);
        ks_trace_str(tr, "key", r->key);
        ks_trace_u64(tr, "value_bytes", r->value_bytes);
        ks_trace_end(tr);
    }
    p->last_partition = partition < 0 ? UINT32_MAX : (uint32_t)partition;
    if (p->first_count < KS_FIRST_RECORDS) {
        p->first_ids[p->first_count] = r->id;
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

/* The delivery.timeout.ms check runs at `at` (or earlier). It is a daemon:
 * when nothing else is left to happen, no batch is waiting on it. */
static void arm_expiry(ks_producer *p, ks_world *w, ks_time at)
{
    if (at == KS_TIME_MAX)
        return;
    if (p->expiry_timer != KS_HANDLE_NONE) {
        if (p->expiry_ns <= at)
            return;
        ks_sim_cancel(&w->sim, p->expiry_timer);
    }
    ks_event ev = {.kind = KS_EV_TIMER, .owner = p->index, .tag = KS_TIMER_EXPIRY};
    p->expiry_timer = ks_sim_schedule_daemon(&w->sim, at, &ev);
    p->expiry_ns = at;
}

static void after_append(ks_producer *p, ks_world *w, const ks_send_rec *r,
                         const ks_append_result *res)
{
    if (!r->keyed && p->part.kind == KS_PARTITIONER_UNIFORM_STICKY)
        ks_us_update(&p->part, res->appended, ks_acc_all_full(&p->acc, r->partition));
    if (res->new_batch)
        arm_expiry(p, w, ks_time_add(ks_sim_now(&w->sim), p->set.delivery_timeout_ns));
    if (res->batch_is_full || res->new_batch)
        wake_sender(p, w, ks_sim_now(&w->sim));
}

static void oom(ks_world *w)
{
    w->out_of_memory = true;
    ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
}

/* Appends with a buffer already reserved (possibly after blocking). */
static void append_new_batch(ks_producer *p, ks_world *w, const ks_send_rec *r, uint32_t alloc)
{
    ks_time now = ks_sim_now(&w->sim);
    /* Someone may have made room meanwhile (appendNewBatch tries first). */
    ks_append_result res = ks_acc_try_append(&p->acc, r->partition, r->id, r->send_ns,
                                             r->key_len, r->value_bytes);
    if (res.status == KS_APPEND_OK) {
        p->acc.memory_used -= alloc; /* the buffer goes back unused */
    } else if (!ks_acc_new_batch(&p->acc, r->partition, r->id, r->send_ns, now, r->key_len,
                                 r->value_bytes, alloc, &res)) {
        oom(w);
        return;
    }
    after_append(p, w, r, &res);
}

static void start_blocking(ks_producer *p, ks_world *w, const ks_send_rec *r, uint32_t alloc)
{
    p->blocked = true;
    p->blocked_count++;
    p->blocked_rec = *r;
    p->blocked_since_ns = ks_sim_now(&w->sim);
    p->blocked_alloc = alloc;
    ks_event ev = {.kind = KS_EV_TIMER,
                   .owner = p->index, .tag = KS_TIMER_BLOCK, .arg = r->id};
    p->block_timer = ks_sim_after(&w->sim, p->max_block_ns, &ev);
    /* While a thread waits for memory every partition counts as ready. */
    wake_sender(p, w, ks_sim_now(&w->sim));
}

/* One send() call by the application. */
/* The next record's key and value size: in turn from the workload's
 * lists, or drawn from the producer's keys and values streams. */
static void pick_record(ks_producer *p, ks_send_rec *r)
{
    const ks_workload_conf *wl = &p->conf->workload;
    if (wl->key_pick == KS_PICK_CYCLE) {
        /* record n (p->produced) gets keys[n % key_count]: a cursor
         * instead of the division, which cost a tenth of a record's time */
        r->key = wl->keys[p->key_at];
        p->key_at = p->key_at + 1u == wl->key_count ? 0 : p->key_at + 1u;
    } else {
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
    if (wl->value_pick == KS_PICK_UNIFORM)
        r->value_bytes = wl->value_min +
                         ks_rng_bounded(&p->values_rng, wl->value_max - wl->value_min + 1u);
    else {
        r->value_bytes = wl->value_bytes[p->value_at];
        p->value_at = p->value_at + 1u == wl->value_count ? 0 : p->value_at + 1u;
    }
    r->keyed = r->key != NULL && !p->ignore_keys;
}

static void do_send(ks_producer *p, ks_world *w, ks_send_rec rec)
{
    ks_time now = ks_sim_now(&w->sim);
    ks_send_rec r = rec;
    r.id = w->next_record_id++;
    r.send_ns = now;
    if (r.source != KS_NO_SOURCE)
        forwarded(p, w, &r);
    if (p->produced == 0)
        p->first_produce_ns = now;
    p->produced++;
    w->metrics.cur.produced++;
    p->record_bytes += r.value_bytes + (r.key_len > 0 ? (uint64_t)r.key_len : 0);
    if (p->txn && p->txn_phase == KS_TXNC_FENCED) {
        /* a fenced (or otherwise failed) producer refuses every send() */
        trace_produce(p, w, &r, -1);
        complete(p, w, r.id, now, KS_NONE, -1, 0, p->fatal_exception);
        told_alone(p, w, r.id, p->fatal_exception);
        return;
    }
    uint32_t upper = ks_record_upper_bound(r.key_len, r.value_bytes);
    /* KafkaProducer.ensureValidRecordSize */
    if (upper > p->max_request_size || upper > p->acc.memory_total) {
        trace_produce(p, w, &r, -1);
        complete(p, w, r.id, now, KS_NONE, -1, 0, "RecordTooLargeException");
        told_alone(p, w, r.id, "RecordTooLargeException");
        return;
    }
    r.partition = choose_partition(p, &r);
    ks_append_result res = ks_acc_try_append(&p->acc, r.partition, r.id, now, r.key_len,
                                             r.value_bytes);
    if (res.status != KS_APPEND_OK && p->abort_on_new_batch) {
        /* abortForNewBatch: onNewBatch, partition again, append again. */
        ks_sticky_on_new_batch(&p->part, r.partition);
        r.partition = choose_partition(p, &r);
        res = ks_acc_try_append(&p->acc, r.partition, r.id, now, r.key_len, r.value_bytes);
    } else if (res.status != KS_APPEND_OK && !r.keyed &&
               p->part.kind == KS_PARTITIONER_UNIFORM_STICKY) {
        /* The failed append closed the tail batch, so the partition's
         * batches are all full now: a switch held back until then happens
         * before the new batch is made, and the record goes to the new
         * partition (RecordAccumulator.append re-checks partitionChanged
         * after allocating). */
        uint32_t before = r.partition;
        r.partition = choose_partition(p, &r);
        if (r.partition != before)
            res = ks_acc_try_append(&p->acc, r.partition, r.id, now, r.key_len, r.value_bytes);
    }
    trace_produce(p, w, &r, r.partition);
    if (res.status == KS_APPEND_OK) {
        after_append(p, w, &r, &res);
        return;
    }
    uint32_t alloc = (uint64_t)p->acc.batch_size > upper ? (uint32_t)p->acc.batch_size : upper;
    if (alloc > p->acc.memory_total) {
        /* BufferPool.allocate: "Attempt to allocate X bytes, but there is
         * a hard limit of Y on memory allocations" - thrown at once. */
        complete(p, w, r.id, now, r.partition, -1, 0, "IllegalArgumentException");
        told_alone(p, w, r.id, "IllegalArgumentException");
        return;
    }
    if (ks_acc_reserve(&p->acc, alloc))
        append_new_batch(p, w, &r, alloc);
    else
        start_blocking(p, w, &r, alloc);
}

/* The application thread calls send() now and is busy for the record's
 * CPU cost. */
static void txn_after_send(ks_producer *p, ks_world *w);
static void txn_begin_end(ks_producer *p, ks_world *w);
static void txn_try_end(ks_producer *p, ks_world *w);
static void txn_abortable(ks_producer *p, ks_world *w);

static void app_send(ks_producer *p, ks_world *w)
{
    ks_send_rec r = {.source = KS_NO_SOURCE, .via = -1};
    if (p->fwd_len > 0) {
        r.source = p->fwd_src[p->fwd_head];
        r.via = p->fwd_via[p->fwd_head];
        p->fwd_head = (p->fwd_head + 1u) % p->fwd_cap;
        p->fwd_len--;
    }
    pick_record(p, &r);
    uint64_t bytes = r.value_bytes + (r.key_len > 0 ? (uint64_t)r.key_len : 0u);
    if (p->txn && p->txn_phase == KS_TXNC_READY) {
        /* beginTransaction(): local only */
        p->txn_phase = KS_TXNC_IN_TXN;
        p->txn_number++;
        p->txn_records = 0;
        p->txn_failed = false;
        p->txn_started = false;
        memset(p->txn_added, 0, p->max_partitions * sizeof *p->txn_added);
    }
    do_send(p, w, r);
    if (p->txn)
        txn_after_send(p, w);
    /* Records are compressed as they are appended (the batch's
     * compression stream), on the application thread. */
    ks_time compress = (ks_time)((bytes * (uint64_t)p->conf->compression.compress_ps + 500u) / 1000u);
    p->app_free_ns = ks_time_add(ks_sim_now(&w->sim), p->conf->cost.record_ns + compress);
}

/* Runs send() for arrivals that waited while the application thread was
 * blocked or busy; when it is busy, comes back once it is free. */
static void drain_backlog(ks_producer *p, ks_world *w)
{
    while (!p->blocked && !p->txn_blocked && p->backlog > 0 && w->sim.verdict == KS_SIM_RUNNING) {
        /* a paused producer (fault pause.producer) sends nothing until the
         * pause ends */
        ks_time until = ks_faults_producer_paused(w, p->index, ks_sim_now(&w->sim));
        if (until > p->app_free_ns)
            p->app_free_ns = until;
        if (ks_sim_now(&w->sim) < p->app_free_ns) {
            if (p->app_timer == KS_HANDLE_NONE) {
                ks_event ev = {.kind = KS_EV_TIMER,
                               .owner = p->index, .tag = KS_TIMER_APP};
                p->app_timer = ks_sim_schedule(&w->sim, p->app_free_ns, &ev);
            }
            return;
        }
        p->backlog--;
        app_send(p, w);
    }
    txn_try_end(p, w);
}

/* sendOffsetsToTransaction then commitTransaction, once every record
 * handed over for this transaction has been sent. */
static void txn_try_end(ks_producer *p, ks_world *w)
{
    if (!p->txn_end_after_backlog || p->backlog > 0 || p->blocked || p->txn_blocked ||
        p->txn_phase != KS_TXNC_IN_TXN)
        return;
    p->txn_end_after_backlog = false;
    p->txn_blocked = true;
    txn_begin_end(p, w);
}

void ks_producer_on_app_free(ks_producer *p, ks_world *w)
{
    p->app_timer = KS_HANDLE_NONE;
    drain_backlog(p, w);
}

/* Memory was freed: a blocked send() may go on. */
static void try_unblock(ks_producer *p, ks_world *w)
{
    if (!p->blocked || !ks_acc_reserve(&p->acc, p->blocked_alloc))
        return;
    p->blocked = false;
    p->blocked_ns_total += ks_sim_now(&w->sim) - p->blocked_since_ns;
    ks_sim_cancel(&w->sim, p->block_timer);
    p->block_timer = KS_HANDLE_NONE;
    append_new_batch(p, w, &p->blocked_rec, p->blocked_alloc);
    drain_backlog(p, w);
}

void ks_producer_on_block_timeout(ks_producer *p, ks_world *w)
{
    if (!p->blocked)
        return;
    /* BufferPool.allocate gives up after max.block.ms:
     * BufferExhaustedException, a TimeoutException. */
    p->blocked = false;
    p->blocked_ns_total += ks_sim_now(&w->sim) - p->blocked_since_ns;
    p->block_timer = KS_HANDLE_NONE;
    complete(p, w, p->blocked_rec.id, p->blocked_rec.send_ns, p->blocked_rec.partition, -1, 0,
             "BufferExhaustedException");
    told_alone(p, w, p->blocked_rec.id, "BufferExhaustedException");
    drain_backlog(p, w);
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
static void arrive(ks_producer *p, ks_world *w, uint64_t source, int32_t via)
{
    if (p->forward_target && !fwd_push(p, source, via)) {
        oom(w);
        return;
    }
    p->arrivals++;
    if (p->blocked || p->txn_blocked || p->backlog > 0 || ks_sim_now(&w->sim) < p->app_free_ns ||
        ks_faults_producer_paused(w, p->index, ks_sim_now(&w->sim)) > 0) {
        p->backlog++;
        drain_backlog(p, w);
    } else {
        app_send(p, w);
    }
}

void ks_producer_forward(ks_producer *p, ks_world *w, uint64_t source, uint32_t consumer)
{
    if (w->node_down[ks_node_producer(&w->nodes, p->index)] || p->config_error[0])
        return;
    arrive(p, w, source, (int32_t)consumer);
}

void ks_producer_on_produce(ks_producer *p, ks_world *w)
{
    const ks_workload_conf *wl = &p->conf->workload;
    ks_time now = ks_sim_now(&w->sim);
    if (wl->arrival == KS_ARRIVAL_BURST) {
        for (uint32_t i = 0; i < wl->burst_records && p->arrivals < wl->records; i++)
            arrive(p, w, KS_NO_SOURCE, -1);
        if (p->arrivals < wl->records)
            schedule_arrival(p, w, ks_time_add(now, wl->burst_interval_ns));
        return;
    }
    arrive(p, w, KS_NO_SOURCE, -1);
    if (p->arrivals < wl->records) {
        ks_time gap = wl->interval_ns;
        if (wl->arrival == KS_ARRIVAL_POISSON)
            gap = ks_round_i64(ks_rng_exponential(&p->workload_rng, (double)wl->interval_ns));
        schedule_arrival(p, w, ks_time_add(now, gap));
    }
}

/* Why a drained batch went: it was sendable itself, or it rode along in a
 * request that another partition's ready batch triggered. */
static const char *why_sent(const ks_producer *p, const ks_batch *b, bool was_full,
                            ks_time now)
{
    if (was_full)
        return "full";
    if (now - b->created_ns >= p->acc.linger_ns)
        return "linger";
    if (p->blocked)
        return "memory";
    return "ride";
}

static void trace_drain(ks_producer *p, ks_world *w, uint32_t broker, uint64_t corr,
                        const ks_batch *b, const char *why)
{
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_DRAIN)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_u64(tr, "broker", broker);
        ks_trace_u64(tr, "request", corr);
        ks_trace_str(tr, "topic", topic_name(w, p));
        ks_trace_u64(tr, "partition", b->partition);
        ks_trace_u64(tr, "batch", b->id);
        ks_trace_u64(tr, "records", b->records);
        ks_trace_u64(tr, "bytes", b->bytes);
        ks_trace_i64(tr, "waited_ns", ks_sim_now(&w->sim) - b->created_ns);
        ks_trace_str(tr, "why", why);
        ks_trace_end(tr);
    }
}

/* Room for the record ids of a batch in p->scratch_ids. */
static bool ensure_scratch(ks_producer *p, ks_world *w, uint32_t records)
{
    if (records <= p->scratch_cap)
        return true;
    uint32_t cap = records > 64 ? records : 64;
    uint64_t *ids = realloc(p->scratch_ids, cap * sizeof *ids);
    if (!ids) {
        oom(w);
        return false;
    }
    p->scratch_ids = ids;
    p->scratch_cap = cap;
    return true;
}

/* Was the batch ever in a request? */
static bool was_sent(const ks_batch *b)
{
    return b->state == KS_BATCH_IN_FLIGHT || b->attempts > 0;
}

/* Tells the application the outcome of every record of a batch
 * (error NULL: success at base_offset, -1 when unknown), tells the
 * checker, and gives the batch's memory back. */
static void finish_batch(ks_producer *p, ks_world *w, uint32_t bid, int64_t base_offset,
                         const char *error)
{
    ks_batch *b = ks_acc_batch(&p->acc, bid);
    if (!ensure_scratch(p, w, b->records))
        return;
    ks_told told = error ? KS_TOLD_FAILED
                         : base_offset >= 0 ? KS_TOLD_ACKED : KS_TOLD_ACKED_NO_OFFSET;
    int64_t offset = base_offset;
    uint32_t n = 0;
    for (uint32_t r = b->rec_head; r != KS_NONE; r = p->acc.recs[r].next) {
        const ks_rec *rec = &p->acc.recs[r];
        p->scratch_ids[n++] = rec->id;
        complete(p, w, rec->id, rec->produced_ns, b->partition, error ? -1 : offset, rec->bytes,
                 error);
        if (offset >= 0)
            offset++;
    }
    ks_obs_told(&w->obs, p->index, was_sent(b) ? b->id : KS_OBS_NO_BATCH,
                    p->first_partition + b->partition, told, error, base_offset, p->scratch_ids, n);
    ks_acc_release(&p->acc, bid);
}

static int32_t last_seq_of(const ks_batch *b)
{
    return (int32_t)(((int64_t)b->base_seq + b->records - 1) % 2147483648LL);
}

/* A batch that was being retried expired: whether some attempt of it
 * was written is unknown, so the partition's sequence is unresolved
 * (Sender.sendProducerData: markSequenceUnresolved when inRetry()). */
static void mark_unresolved(ks_producer *p, const ks_batch *b)
{
    if (!p->seq || !b->has_seq || b->attempts == 0)
        return;
    ks_seq_state *sq = &p->seq[b->partition];
    int32_t last = last_seq_of(b);
    if (!sq->unresolved || last > sq->unresolved_seq)
        sq->unresolved_seq = last;
    sq->unresolved = true;
}

/* Asks for a local epoch bump that renumbers the partition's batches
 * (TransactionManager.requestEpochBumpForPartition). */
static void request_bump(ks_producer *p, uint32_t partition)
{
    p->seq[partition].rewrite = true;
    p->bump_required = true;
}

/* A batch with a sequence is done: it leaves the partition's in-flight
 * set (removeInFlightBatch). */
static void seq_done(ks_producer *p, const ks_batch *b)
{
    if (p->seq && b->has_seq && b->epoch == p->seq[b->partition].epoch) {
        assert(p->seq[b->partition].incomplete > 0);
        p->seq[b->partition].incomplete--;
    }
}

static int32_t next_after(int32_t seq)
{
    return seq == INT32_MAX ? 0 : seq + 1;
}

static void trace_retry(ks_producer *p, ks_world *w, const ks_batch *b, ks_kerr err,
                        ks_time backoff)
{
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_RETRY)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_str(tr, "topic", topic_name(w, p));
        ks_trace_u64(tr, "partition", b->partition);
        ks_trace_u64(tr, "batch", b->id);
        ks_trace_u64(tr, "attempt", b->attempts + 2u); /* the one to come */
        ks_trace_str(tr, "error", ks_kerr_name(err));
        ks_trace_i64(tr, "backoff_ns", backoff);
        if (b->has_seq)
            ks_trace_i64(tr, "base_sequence", b->base_seq);
        ks_trace_end(tr);
    }
}

/* Sender.canRetry, with TransactionManager.canRetry for idempotent
 * producers: an OUT_OF_ORDER_SEQUENCE_NUMBER is always retried; when the
 * batch is the next one the broker should have taken (a real gap), or
 * follows the unresolved one, the producer first bumps its epoch. */
static bool can_retry(ks_producer *p, const ks_batch *b, ks_kerr err, ks_time now)
{
    if (now - b->created_ns >= p->set.delivery_timeout_ns)
        return false; /* hasReachedDeliveryTimeout */
    if ((int64_t)b->attempts >= p->set.retries)
        return false;
    if (p->seq && err == KS_KERR_OUT_OF_ORDER_SEQUENCE_NUMBER) {
        const ks_seq_state *sq = &p->seq[b->partition];
        bool next = b->base_seq == next_after(sq->last_acked);
        if (!sq->unresolved && (b->seq_reset || !next))
            return true;
        if (!sq->unresolved || b->base_seq == next_after(sq->unresolved_seq))
            request_bump(p, b->partition);
        return true;
    }
    return ks_kerr_retriable(err);
}

/* The leader answered a batch with an error, or its request was lost
 * with the connection: retry it, or fail it (Sender.completeBatch). A
 * batch that fails for a reason other than running out of retries makes
 * an idempotent producer bump its epoch (failBatch with
 * adjustSequenceNumbers, TransactionManager.handleFailedBatch). */
static void batch_error(ks_producer *p, ks_world *w, uint32_t bid, ks_kerr err)
{
    ks_time now = ks_sim_now(&w->sim);
    ks_batch *b = ks_acc_batch(&p->acc, bid);
    if (can_retry(p, b, err, now)) {
        ks_time backoff = ks_retry_backoff_ns(&p->set, b->attempts + 1u, &p->retry_rng);
        trace_retry(p, w, b, err, backoff);
        ks_acc_reenqueue(&p->acc, bid, ks_time_add(now, backoff), p->seq != NULL);
        p->retries++;
        return;
    }
    seq_done(p, b);
    bool txn = p->txn;
    if (!txn && p->seq && b->has_seq && (int64_t)b->attempts < p->set.retries)
        request_bump(p, b->partition);
    finish_batch(p, w, bid, -1, ks_kerr_exception(err));
    if (txn)
        txn_abortable(p, w); /* the transaction can only abort now */
}

/* The leader appended a batch (or recognised it as a duplicate). */
static void batch_success(ks_producer *p, ks_world *w, uint32_t bid, int64_t base_offset)
{
    ks_batch *b = ks_acc_batch(&p->acc, bid);
    seq_done(p, b);
    if (p->seq && b->has_seq && b->epoch == p->seq[b->partition].epoch) {
        ks_seq_state *sq = &p->seq[b->partition];
        int32_t last = last_seq_of(b);
        if (last > sq->last_acked)
            sq->last_acked = last;
    }
    finish_batch(p, w, bid, base_offset, NULL);
}

/* An answer for a batch that has meanwhile expired still tells the
 * producer where the partition's sequence stands
 * (Sender.completeBatch runs for done batches too). */
static void late_answer(ks_producer *p, const ks_req_batch *rb)
{
    if (!p->seq || rb->error != KS_KERR_NONE || rb->base_seq < 0)
        return;
    ks_seq_state *sq = &p->seq[rb->partition - p->first_partition];
    int32_t last = (int32_t)(((int64_t)rb->base_seq + rb->records - 1) % 2147483648LL);
    if (rb->epoch == sq->epoch && last > sq->last_acked)
        sq->last_acked = last;
}

/* A response is handled: every batch it answers, unless the batch has
 * meanwhile expired (then the answer comes too late to matter). */
static void handle_response(ks_producer *p, ks_world *w, const ks_request *q)
{
    for (uint32_t e = q->first; e != KS_REQ_NONE; e = w->reqs.entries[e].next) {
        const ks_req_batch *rb = &w->reqs.entries[e];
        ks_batch *b = ks_acc_batch(&p->acc, rb->batch);
        p->acc.dq[rb->partition - p->first_partition].muted = false;
        if (b->state != KS_BATCH_IN_FLIGHT || b->id != rb->batch_seq) {
            late_answer(p, rb);
            continue;
        }
        if (rb->error == KS_KERR_NONE)
            batch_success(p, w, rb->batch, rb->base_offset);
        else
            batch_error(p, w, rb->batch, rb->error);
    }
}

static void close_connection(ks_producer *p, ks_world *w, uint32_t broker, bool timed_out);

/* request.timeout.ms for the oldest request on a connection. The timer
 * is lazy: when it fires for a request already answered, it re-arms for
 * the one now oldest, and it is never cancelled (cancelled timers would
 * pile up in the queue for request.timeout.ms). It is a daemon, so that
 * it keeps no run alive after the last response; a request that will
 * never be answered gets a timer that does (ks_producer_lost). */
static void arm_timeout(ks_producer *p, ks_world *w, uint32_t broker)
{
    ks_prod_node *n = &p->nodes[broker];
    if (n->fifo_head == KS_REQ_NONE || n->timeout_timer != KS_HANDLE_NONE)
        return;
    ks_time at = ks_time_add(w->reqs.reqs[n->fifo_head].sent_ns, p->set.request_timeout_ns);
    ks_event ev = {.kind = KS_EV_TIMER,
                   .owner = p->index, .tag = KS_TIMER_REQUEST_TIMEOUT, .arg = broker};
    n->timeout_timer = ks_sim_schedule_daemon(&w->sim, at, &ev);
}

void ks_producer_lost(ks_producer *p, ks_world *w, uint32_t req)
{
    const ks_request *q = &w->reqs.reqs[req];
    if (!q->expects_response)
        return;
    ks_event ev = {.kind = KS_EV_TIMER,
                   .owner = p->index, .tag = KS_TIMER_LOST, .arg = q->server};
    /* With a request.timeout.ms shorter than the trip so far (0 is
     * legal), the deadline has passed already: check now, not in the
     * past (found by fuzz_run: request.timeout.ms 0 and a dropped
     * response hit the engine's assert). */
    ks_time at = ks_time_add(q->sent_ns, p->set.request_timeout_ns);
    ks_time now = ks_sim_now(&w->sim);
    ks_sim_schedule(&w->sim, at > now ? at : now, &ev);
}

/* A lost message's request has waited request.timeout.ms: if it is still
 * the oldest in flight (nothing answered it), the connection closes. */
void ks_producer_on_lost(ks_producer *p, ks_world *w, uint32_t broker)
{
    ks_prod_node *n = &p->nodes[broker];
    if (n->fifo_head == KS_REQ_NONE)
        return;
    ks_time deadline =
        ks_time_add(w->reqs.reqs[n->fifo_head].sent_ns, p->set.request_timeout_ns);
    if (deadline <= ks_sim_now(&w->sim))
        close_connection(p, w, broker, true);
}

/* Takes the oldest request off the connection's in-flight list. */
static uint32_t pop_in_flight(ks_producer *p, ks_world *w, ks_prod_node *n)
{
    uint32_t id = n->fifo_head;
    n->fifo_head = w->reqs.reqs[id].pnext;
    if (n->fifo_head == KS_REQ_NONE)
        n->fifo_tail = KS_REQ_NONE;
    assert(n->in_flight > 0);
    n->in_flight--;
    (void)p;
    return id;
}

/* NetworkClient closes the connection: every request in flight on it
 * fails with NETWORK_EXCEPTION, oldest first (InFlightRequests.clearAll
 * iterates oldest first), and each failed batch is retried or failed.
 * Responses still on the way are ignored when they arrive. The producer
 * reconnects after reconnect.backoff.ms. */
static void close_connection(ks_producer *p, ks_world *w, uint32_t broker, bool timed_out)
{
    ks_prod_node *n = &p->nodes[broker];
    ks_time now = ks_sim_now(&w->sim);
    n->gen++;
    n->ready_at_ns =
        ks_time_add(now, ks_time_from_ms(p->conf->config[KS_PCFG_RECONNECT_BACKOFF_MS].i));
    ks_net_reconnect(&w->net, n->conn);
    p->connection_closes++;
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, now, KS_TR_PRODUCER)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_str(tr, "what", "disconnect");
        ks_trace_u64(tr, "broker", broker);
        ks_trace_u64(tr, "in_flight", n->in_flight);
        ks_trace_str(tr, "error", timed_out ? "request timed out" : "connection closed");
        ks_trace_end(tr);
    }
    /* From 3.4 (KAFKA-14317) the requests of a connection closed for a
     * timeout fail with REQUEST_TIMED_OUT (Sender.handleProduceResponse:
     * wasTimedOut), before with NETWORK_EXCEPTION; both are retriable. */
    ks_kerr err = timed_out && w->sc->kafka_version >= KS_KV(3, 4, 0) ? KS_KERR_REQUEST_TIMED_OUT
                                                                       : KS_KERR_NETWORK_EXCEPTION;
    bool first = true;
    while (n->fifo_head != KS_REQ_NONE) {
        uint32_t id = pop_in_flight(p, w, n);
        ks_request *q = &w->reqs.reqs[id];
        if (q->api == KS_API_METADATA) {
            schedule_metadata(p, w); /* the next refresh asks again */
            ks_request_unref(&w->reqs, id);
            continue;
        }
        if (q->api != KS_API_PRODUCE) {
            /* retried after retry.backoff.ms, like every request of the
             * TransactionManager */
            p->pid_pending = false;
            p->pid_retry_at_ns = ks_time_add(now, p->set.retry_backoff_ns);
            p->txn_req_in_flight = false;
            p->txn_retry_at_ns = p->pid_retry_at_ns;
            first = false;
            ks_request_unref(&w->reqs, id);
            continue;
        }
        if (!q->fate_known)
            ks_obs_request_fate(&w->obs, p->index, q->correlation_id,
                                    first && timed_out ? KS_FATE_TIMED_OUT : KS_FATE_DISCARDED,
                                    KS_OBS_NO_FAULT);
        q->fate_known = true;
        first = false;
        for (uint32_t e = q->first; e != KS_REQ_NONE; e = w->reqs.entries[e].next) {
            ks_req_batch *rb = &w->reqs.entries[e];
            ks_batch *b = ks_acc_batch(&p->acc, rb->batch);
            p->acc.dq[rb->partition - p->first_partition].muted = false;
            if (b->state == KS_BATCH_IN_FLIGHT && b->id == rb->batch_seq)
                batch_error(p, w, rb->batch, err);
        }
        ks_request_unref(&w->reqs, id); /* the producer's hold */
    }
    try_unblock(p, w);
    wake_sender(p, w, now);
}

void ks_producer_on_request_timeout(ks_producer *p, ks_world *w, uint32_t broker)
{
    ks_prod_node *n = &p->nodes[broker];
    n->timeout_timer = KS_HANDLE_NONE;
    if (n->fifo_head == KS_REQ_NONE)
        return;
    ks_time deadline =
        ks_time_add(w->reqs.reqs[n->fifo_head].sent_ns, p->set.request_timeout_ns);
    if (deadline <= ks_sim_now(&w->sim))
        close_connection(p, w, broker, true);
    else
        arm_timeout(p, w, broker);
}

static ks_time deadline_of(const ks_producer *p, const ks_batch *b)
{
    return ks_time_add(b->created_ns, p->set.delivery_timeout_ns);
}

/* A batch ran out of delivery time: the application gets a
 * TimeoutException. One being retried leaves its partition's sequence
 * unresolved. */
static void expire(ks_producer *p, ks_world *w, uint32_t bid)
{
    ks_batch *b = ks_acc_batch(&p->acc, bid);
    seq_done(p, b);
    mark_unresolved(p, b);
    p->expired++;
    finish_batch(p, w, bid, -1, "TimeoutException");
    if (p->txn)
        p->txn_failed = true; /* the transaction can only abort now */
}

/* delivery.timeout.ms, as Sender.sendProducerData checks it: first each
 * deque from its head, stopping at the first batch still in time
 * (RecordAccumulator.expiredBatches), then the batches in flight, oldest
 * request first (getExpiredInflightBatches). An expired batch in flight
 * may still be written; its answer then only updates the sequence. */
void ks_producer_on_expiry(ks_producer *p, ks_world *w)
{
    ks_time now = ks_sim_now(&w->sim), next = KS_TIME_MAX;
    p->expiry_timer = KS_HANDLE_NONE;
    for (uint32_t part = 0; part < p->partitions; part++) {
        ks_deque *d = &p->acc.dq[part];
        while (d->head != KS_NONE) {
            uint32_t bid = d->head;
            ks_time deadline = deadline_of(p, ks_acc_batch(&p->acc, bid));
            if (deadline > now) {
                if (deadline < next)
                    next = deadline;
                break;
            }
            ks_acc_remove(&p->acc, bid);
            expire(p, w, bid);
        }
    }
    for (uint32_t b = 0; b < p->brokers && p->acks != 0; b++) {
        for (uint32_t id = p->nodes[b].fifo_head; id != KS_REQ_NONE; id = w->reqs.reqs[id].pnext) {
            const ks_request *q = &w->reqs.reqs[id];
            for (uint32_t e = q->first; e != KS_REQ_NONE; e = w->reqs.entries[e].next) {
                const ks_req_batch *rb = &w->reqs.entries[e];
                ks_batch *bt = ks_acc_batch(&p->acc, rb->batch);
                if (bt->state != KS_BATCH_IN_FLIGHT || bt->id != rb->batch_seq)
                    continue;
                ks_time deadline = deadline_of(p, bt);
                if (deadline > now) {
                    if (deadline < next)
                        next = deadline;
                    continue;
                }
                expire(p, w, rb->batch);
            }
        }
    }
    /* queued batches behind an unexpired head are checked when it goes */
    for (uint32_t bid = 0; bid < p->acc.batch_cap; bid++) {
        const ks_batch *bt = ks_acc_batch(&p->acc, bid);
        if (bt->state == KS_BATCH_QUEUED && deadline_of(p, bt) > now && deadline_of(p, bt) < next)
            next = deadline_of(p, bt);
    }
    arm_expiry(p, w, next > now ? next : KS_TIME_MAX);
    try_unblock(p, w);
    wake_sender(p, w, now);
}

/* Idempotence: a batch gets its sequence when first drained; a partition
 * whose numbering belongs to an older epoch starts again at 0 (the drain
 * rule below lets that happen only when nothing of it is in flight). */
static void assign_sequence(ks_producer *p, ks_batch *b)
{
    ks_seq_state *sq = &p->seq[b->partition];
    if (!b->has_seq) {
        if (sq->epoch != p->epoch) {
            assert(sq->incomplete == 0);
            sq->epoch = p->epoch;
            sq->next_seq = 0;
            sq->last_acked = -1;
        }
        b->has_seq = true;
        b->epoch = p->epoch;
        b->base_seq = sq->next_seq;
        sq->next_seq = (int32_t)(((int64_t)sq->next_seq + b->records) % 2147483648LL);
        sq->incomplete++;
    }
}

/* Fills the request's entry for batch `bid`. */
static void fill_entry(ks_producer *p, ks_world *w, ks_req_batch *rb, uint32_t bid)
{
    ks_batch *b = ks_acc_batch(&p->acc, bid);
    rb->partition = p->first_partition + b->partition;
    rb->batch = bid;
    rb->records = b->records;
    rb->bytes = b->bytes;
    rb->raw = b->raw;
    rb->decompress_ps = p->acc.compressed ? p->conf->compression.decompress_ps : 0;
    rb->batch_seq = b->id;
    rb->attempt = b->attempts + 1u;
    rb->epoch = -1;
    rb->base_seq = -1;
    rb->base_offset = -1;
    rb->transactional = p->txn;
    if (w->record_ids) {
        /* the log keeps record ids: the request carries them, so that a
         * copy landing after the producer let the batch go is known */
        rb->ids = malloc((size_t)b->records * sizeof *rb->ids);
        uint32_t n = 0;
        for (uint32_t r = b->rec_head; rb->ids && r != KS_NONE && n < b->records;
             r = p->acc.recs[r].next)
            rb->ids[n++] = p->acc.recs[r].id;
    }
    if (p->seq) {
        assign_sequence(p, b);
        rb->epoch = b->epoch;
        rb->base_seq = b->base_seq;
    }
}

/* The request leaves at `at`: faults may lose or delay it. */
static void put_on_wire(ks_producer *p, ks_world *w, uint32_t id, ks_time *arrival,
                        ks_time *sent, bool *lost)
{
    ks_request *q = &w->reqs.reqs[id];
    ks_sent s = ks_wire_request(w, id);
    int32_t fault = s.fault;
    *lost = fault >= 0;
    *arrival = s.arrival_ns;
    *sent = s.sent_ns;
    for (uint32_t e = q->first; q->api == KS_API_PRODUCE && e != KS_REQ_NONE;
         e = w->reqs.entries[e].next) {
        const ks_req_batch *rb = &w->reqs.entries[e];
        ks_obs_sent(&w->obs, p->index, rb->batch_seq, rb->partition, rb->records,
                        q->correlation_id, rb->attempt);
        if (*lost)
            ks_obs_not_appended(&w->obs, p->index, rb->batch_seq, q->correlation_id,
                                    "REQUEST_LOST");
    }
    if (*lost) {
        if (q->api == KS_API_PRODUCE)
            ks_obs_request_fate(&w->obs, p->index, q->correlation_id,
                                    KS_FATE_REQUEST_DROPPED, fault);
        q->fate_known = true;
        ks_producer_lost(p, w, id);
    }
}

/* The request is built: it leaves on the wire, the broker will get it
 * (unless lost), and, when an answer is expected, it joins the
 * connection's in-flight list. */
static void launch(ks_producer *p, ks_world *w, uint32_t broker, uint32_t id, ks_time now,
                   bool *lost_out, ks_time *sent_out)
{
    ks_prod_node *n = &p->nodes[broker];
    ks_request *q = &w->reqs.reqs[id];
    ks_time sent, arrival;
    bool lost;
    put_on_wire(p, w, id, &arrival, &sent, &lost);
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, now, KS_TR_SEND)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_u64(tr, "broker", broker);
        ks_trace_u64(tr, "request", q->correlation_id);
        if (q->api != KS_API_PRODUCE)
            ks_trace_str(tr, "api", ks_api_name(q->api));
        ks_trace_u64(tr, "batches", q->batches);
        ks_trace_u64(tr, "records", q->records);
        ks_trace_u64(tr, "bytes", q->request_bytes);
        ks_trace_i64(tr, "arrive_t", lost ? -1 : arrival);
        ks_trace_end(tr);
    }
    if (q->expects_response) {
        q->refs++; /* the producer's hold, until answered or given up */
        if (n->fifo_tail == KS_REQ_NONE)
            n->fifo_head = id;
        else
            w->reqs.reqs[n->fifo_tail].pnext = id;
        n->fifo_tail = id;
        n->in_flight++;
        arm_timeout(p, w, broker);
    }
    *lost_out = lost;
    *sent_out = sent;
}

/* The sender thread spends request.us (+ batch.us per batch) building a
 * request; it leaves when that is done. */
static void sender_cost(ks_producer *p, ks_request *q, ks_time now)
{
    const ks_producer_cost *cost = &p->conf->cost;
    ks_time start = p->sender_free_ns > now ? p->sender_free_ns : now;
    p->sender_free_ns = ks_time_add(
        start, ks_time_add(cost->request_ns, (ks_time)q->batches * cost->batch_ns));
    p->sender_busy_ns += p->sender_free_ns - start;
    q->sent_ns = p->sender_free_ns;
}

/* The version of `api` this producer's Kafka release speaks, as its
 * ApiVersions exchange would settle it with a broker of the same release
 * (the highest both know). What ksim's brokers read of it: Produce v11+
 * may be answered TRANSACTION_ABORTABLE (3.8, KIP-890), Produce v12 and
 * EndTxn v5 mean transaction version 2 (4.0, KIP-890 part 2) ([K]
 * clients/src/main/resources/common/message/ProduceRequest.json,
 * EndTxnRequest.json). */
static uint16_t api_version(const ks_producer *p, const ks_world *w, ks_api api)
{
    ks_kafka_version v = w->sc->kafka_version;
    switch (api) {
    case KS_API_PRODUCE:
        return p->txn_kip890       ? 12
               : v >= KS_KV(3, 8, 0) ? 11
               : v >= KS_KV(3, 7, 0) ? 10
               : v >= KS_KV(2, 8, 0) ? 9
               : v >= KS_KV(2, 4, 0) ? 8
                                     : 7;
    case KS_API_END_TXN:
        return p->txn_kip890 ? 5 : v >= KS_KV(3, 8, 0) ? 4 : v >= KS_KV(2, 8, 0) ? 3 : 2;
    case KS_API_INIT_PRODUCER_ID:
        return v >= KS_KV(3, 8, 0) ? 5 : v >= KS_KV(2, 7, 0) ? 4 : v >= KS_KV(2, 5, 0) ? 3 : 1;
    case KS_API_ADD_PARTITIONS_TO_TXN:
        return v >= KS_KV(2, 8, 0) ? 3 : 2;
    case KS_API_FIND_COORDINATOR:
        return v >= KS_KV(3, 0, 0) ? 4 : 3;
    case KS_API_ADD_OFFSETS_TO_TXN:
        return v >= KS_KV(3, 8, 0) ? 4 : v >= KS_KV(2, 8, 0) ? 3 : 2;
    case KS_API_TXN_OFFSET_COMMIT:
        return v >= KS_KV(3, 8, 0) ? 4 : v >= KS_KV(2, 5, 0) ? 3 : 2;
    case KS_API_METADATA:
        return v >= KS_KV(3, 0, 0) ? 12 : 9;
    case KS_API_WRITE_TXN_MARKERS:
    case KS_API_FETCH:
    case KS_API_LIST_OFFSETS:
    case KS_API_OFFSET_COMMIT:
    case KS_API_OFFSET_FETCH:
    case KS_API__COUNT:
        break;
    }
    return 0;
}

/* The request header and routing: from this producer's node to
 * `broker`, in the API version its Kafka release speaks, with the body
 * fields every request of a transactional producer carries. */
static void address(ks_producer *p, ks_world *w, ks_request *q, uint32_t broker)
{
    q->client = ks_node_producer(&w->nodes, p->index);
    q->server = broker;
    q->client_id = p->conf->id;
    q->conn = p->nodes[broker].conn;
    q->version = api_version(p, w, q->api);
    q->transactional_id = p->conf->config[KS_PCFG_TRANSACTIONAL_ID].s;
    q->txn_timeout_ns = p->conf->config[KS_PCFG_TRANSACTION_TIMEOUT_MS].i * KS_NS_PER_MS;
}

/* Sends InitProducerId to `broker`. InitProducerIdRequest: header +
 * client id + null transactional id + timeout + producer id and epoch
 * (-1); the response: header + error + producer id + epoch. */
static void send_init_producer_id(ks_producer *p, ks_world *w, uint32_t broker, ks_time now)
{
    uint32_t id = ks_request_alloc(&w->reqs);
    if (id == KS_REQ_NONE) {
        oom(w);
        return;
    }
    ks_prod_node *n = &p->nodes[broker];
    ks_request *q = &w->reqs.reqs[id];
    q->api = KS_API_INIT_PRODUCER_ID;
    address(p, w, q, broker);
    q->correlation_id = ++p->api_requests[KS_API_INIT_PRODUCER_ID];
    q->expects_response = true;
    q->producer_id = -1;
    q->gen = n->gen;
    q->pnext = KS_REQ_NONE;
    q->request_bytes = 30u + (uint32_t)strlen(p->client_id);
    sender_cost(p, q, now);
    p->pid_pending = true;
    bool lost;
    ks_time sent;
    launch(p, w, broker, id, now, &lost, &sent);
}

/* InitProducerId goes to the least loaded node that can take a request:
 * fewest requests in flight, the lowest broker on ties
 * (NetworkClient.leastLoadedNode starts its search at a random node;
 * ksim at broker 0, so that runs read the same every time). Returns
 * false when no node can take it now; *next then says when to look
 * again (a response wakes the sender earlier). */
static bool maybe_init_producer_id(ks_producer *p, ks_world *w, ks_time now, ks_time *next)
{
    if (!p->pid_needed || p->pid_pending)
        return false;
    if (now < p->pid_retry_at_ns) {
        *next = p->pid_retry_at_ns;
        return false;
    }
    uint32_t best = UINT32_MAX;
    for (uint32_t b = 0; b < p->brokers; b++) {
        const ks_prod_node *n = &p->nodes[b];
        ks_time wire = ks_net_wire_free(&w->net, n->conn, KS_NET_REQUEST);
        ks_time when = wire > n->ready_at_ns ? wire : n->ready_at_ns;
        if (n->in_flight >= p->max_in_flight)
            continue;
        if (when > now) {
            if (when < *next)
                *next = when;
            continue;
        }
        if (best == UINT32_MAX || n->in_flight < p->nodes[best].in_flight)
            best = b;
    }
    if (best == UINT32_MAX)
        return false;
    send_init_producer_id(p, w, best, now);
    return true;
}

/* Sends the drained chain to `broker` as one ProduceRequest. The sender
 * thread spends request.us + batch.us per batch building it; the request
 * leaves when that is done. */
static void send_request(ks_producer *p, ks_world *w, uint32_t broker, uint32_t chain,
                         const bool *was_full)
{
    ks_time now = ks_sim_now(&w->sim);
    uint32_t id = ks_request_alloc(&w->reqs);
    if (id == KS_REQ_NONE) {
        oom(w);
        return;
    }
    ks_prod_node *n = &p->nodes[broker];
    ks_request *q = &w->reqs.reqs[id];
    q->api = KS_API_PRODUCE;
    address(p, w, q, broker);
    q->correlation_id = ++p->api_requests[KS_API_PRODUCE]; /* from 1 */
    q->expects_response = p->acks != 0;
    q->producer_id = p->seq ? p->producer_id : -1;
    q->gen = n->gen;
    q->pnext = KS_REQ_NONE;
    uint32_t last = KS_REQ_NONE;
    uint64_t batch_bytes = 0;
    for (uint32_t bid = chain; bid != KS_NONE; bid = ks_acc_batch(&p->acc, bid)->next) {
        const ks_batch *b = ks_acc_batch(&p->acc, bid);
        uint32_t e = ks_request_add_batch(&w->reqs, id, &last);
        if (e == KS_REQ_NONE) {
            oom(w);
            return;
        }
        q = &w->reqs.reqs[id];
        fill_entry(p, w, &w->reqs.entries[e], bid);
        q->records += b->records;
        batch_bytes += b->bytes;
        ks_hist_add(&p->batch_records, b->records);
        ks_hist_add(&p->batch_bytes, b->bytes);
        if (p->max_in_flight == 1)
            p->acc.dq[b->partition].muted = true; /* guaranteeMessageOrder */
        trace_drain(p, w, broker, q->correlation_id, b,
                    b->attempts > 0 ? "retry" : why_sent(p, b, was_full[b->partition], now));
    }
    q->request_bytes = request_bytes(p, topic_name(w, p), q->batches, batch_bytes);
    if (p->txn && p->txn_kip890)
        p->txn_started = true; /* its first produce adds the partition */
    p->requests++;
    p->batches += q->batches;
    w->metrics.cur.requests++;
    w->metrics.cur.batches += q->batches;
    ks_hist_add(&p->request_batches, q->batches);
    sender_cost(p, q, now);
    bool lost;
    ks_time sent;
    if (p->acks == 0) {
        /* acks=0: the request expects no response; its batches complete
         * once it has been written to the connection, offset unknown ([K]
         * NetworkClient.handleCompletedSends, Sender's "acks = 0" case). */
        launch(p, w, broker, id, now, &lost, &sent);
        if (!lost) {
            ks_obs_request_fate(&w->obs, p->index, q->correlation_id,
                                    KS_FATE_NO_RESPONSE, KS_OBS_NO_FAULT);
            q->fate_known = true;
        }
        ks_event done = {.kind = KS_EV_TIMER,
                         .owner = p->index, .tag = KS_TIMER_SENT, .arg = chain};
        ks_sim_schedule(&w->sim, sent, &done);
        if (q->refs == 0)
            ks_request_release(&w->reqs, id);
        return;
    }
    launch(p, w, broker, id, now, &lost, &sent);
}

/* acks=0: a request has been written; its records are done. */
void ks_producer_on_sent(ks_producer *p, ks_world *w, uint32_t chain)
{
    for (uint32_t bid = chain; bid != KS_NONE;) {
        ks_batch *b = ks_acc_batch(&p->acc, bid);
        uint32_t next = b->next;
        p->acc.dq[b->partition].muted = false;
        finish_batch(p, w, bid, -1, NULL);
        bid = next;
    }
    try_unblock(p, w);
    wake_sender(p, w, ks_sim_now(&w->sim));
}

/* Records, per partition of a broker, whether its head batch is
 * sendable on its own, before drain takes it. */
static void note_full(ks_producer *p, const ks_prod_node *n, bool *was_full)
{
    for (uint32_t i = 0; i < n->nparts; i++) {
        const ks_deque *d = &p->acc.dq[n->parts[i]];
        was_full[n->parts[i]] =
            d->head != KS_NONE && (d->size > 1 || ks_batch_is_full(ks_acc_batch(&p->acc, d->head)));
    }
}

/* Feeds queue lengths to the adaptive partitioner, leaving out partitions
 * whose leader could not be drained for partitioner.availability.timeout.ms. */
static void update_load_stats(ks_producer *p, const ks_ready *r)
{
    if (p->part.kind != KS_PARTITIONER_UNIFORM_STICKY)
        return;
    if (!p->adaptive) {
        ks_us_load_stats(&p->part, r->queue, r->queue_ids, 0, false);
        return;
    }
    uint32_t len = 0;
    for (uint32_t i = 0; i < r->queue_len; i++) {
        const ks_prod_node *n = &p->nodes[p->leader[r->queue_ids[i]]];
        /* RecordAccumulator.partitionReady leaves empty deques in the
         * table (they `continue` before the exclusion) */
        if (p->availability_timeout_ns > 0 && r->queue[i] > 0 &&
            n->ready_ns - n->drain_ns > p->availability_timeout_ns)
            continue;
        r->queue[len] = r->queue[i];
        r->queue_ids[len] = r->queue_ids[i];
        len++;
    }
    ks_us_load_stats(&p->part, r->queue, r->queue_ids, len, r->queue_len >= p->partitions);
}

static bool node_has_batches(const ks_producer *p, const ks_prod_node *n)
{
    for (uint32_t i = 0; i < n->nparts; i++)
        if (p->acc.dq[n->parts[i]].head != KS_NONE)
            return true;
    return false;
}

/* ---- transactions: the client side ([K] TransactionManager) ---------- */

/* After a send() in a transaction: its partition must be added to the
 * transaction before its batches may go (classic protocol), and the
 * application ends the transaction after transactions.records records. */
static void txn_after_send(ks_producer *p, ks_world *w)
{
    if (p->txn_phase != KS_TXNC_IN_TXN)
        return;
    uint32_t part = p->last_partition;
    if (part == UINT32_MAX) {
        /* send() threw: doSend puts the transaction in an abortable state */
        txn_abortable(p, w);
        return;
    }
    if (!p->txn_added[part] && !p->txn_pending[part]) {
        p->txn_pending[part] = true; /* maybeAddPartition */
        p->txn_pending_count++;
    }
    p->txn_records++;
    if (p->ntxn_ids == p->txn_ids_cap) {
        uint32_t cap = p->txn_ids_cap ? p->txn_ids_cap * 2u : 16u;
        uint64_t *ids = realloc(p->txn_ids, cap * sizeof *ids);
        if (ids)
            p->txn_ids = ids;
        uint32_t *parts = realloc(p->txn_parts, cap * sizeof *parts);
        if (parts)
            p->txn_parts = parts;
        if (!ids || !parts) {
            oom(w);
            return;
        }
        p->txn_ids_cap = cap;
    }
    p->txn_parts[p->ntxn_ids] = part == UINT32_MAX ? UINT32_MAX : p->first_partition + part;
    p->txn_ids[p->ntxn_ids++] = w->next_record_id - 1; /* the record just sent */
    if (p->txn_offsets_consumer >= 0 || p->txn_records < p->conf->txn.records)
        return;
    for (uint32_t i = 0; i < w->consumer_count; i++)
        if (w->consumers[i].forward_to == (int32_t)p->index &&
            w->consumers[i].conf->commit == KS_COMMIT_TRANSACTION)
            return; /* its consumer ends it with the offsets */
    p->txn_blocked = true;
    if (p->conf->txn.end_delay_ns > 0) {
        ks_event ev = {.kind = KS_EV_TIMER, .owner = p->index, .tag = KS_TIMER_TXN_END};
        ks_sim_after(&w->sim, p->conf->txn.end_delay_ns, &ev);
    } else {
        txn_begin_end(p, w);
    }
}

void ks_producer_on_txn_end(ks_producer *p, ks_world *w)
{
    txn_begin_end(p, w);
}

static void trace_txn_client(ks_producer *p, ks_world *w, const char *what, const char *error)
{
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_PRODUCER)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_str(tr, "what", what);
        ks_trace_str(tr, "transactional_id", p->conf->config[KS_PCFG_TRANSACTIONAL_ID].s);
        ks_trace_u64(tr, "transaction", p->txn_number);
        ks_trace_i64(tr, "producer_id", p->producer_id);
        ks_trace_i64(tr, "epoch", p->epoch);
        if (error)
            ks_trace_str(tr, "error", error);
        ks_trace_end(tr);
    }
}

/* commitTransaction() or abortTransaction(): the application waits. An
 * abort fails the batches not yet sent (TransactionAbortedException); a
 * commit flushes them. EndTxn goes once nothing of the transaction is
 * left in flight. "none": the application never ends it. */
static void txn_begin_end(ks_producer *p, ks_world *w)
{
    if (p->txn_phase != KS_TXNC_IN_TXN)
        return;
    const ks_txn_conf *tc = &p->conf->txn;
    ks_txn_end how = tc->ends[(p->txn_number - 1) % tc->end_count];
    if (how == KS_TXN_END_NONE && !p->txn_failed) {
        trace_txn_client(p, w, "hangs", NULL);
        return; /* the application hangs: transaction.timeout.ms will tell */
    }
    p->txn_phase = KS_TXNC_ENDING;
    p->txn_commit = how == KS_TXN_END_COMMIT && !p->txn_failed;
    trace_txn_client(p, w, p->txn_commit ? "commit" : "abort", NULL);
    if (!p->txn_commit) {
        /* beginAbort: partitions not yet added are forgotten */
        memset(p->txn_pending, 0, p->max_partitions * sizeof *p->txn_pending);
        p->txn_pending_count = 0;
        for (uint32_t part = 0; part < p->partitions; part++) {
            ks_deque *d = &p->acc.dq[part];
            uint32_t bid = d->head;
            while (bid != KS_NONE) {
                ks_batch *b = ks_acc_batch(&p->acc, bid);
                uint32_t next = b->next;
                if (!was_sent(b)) {
                    ks_acc_remove(&p->acc, bid);
                    finish_batch(p, w, bid, -1, "TransactionAbortedException");
                }
                bid = next;
            }
        }
        try_unblock(p, w);
    }
    wake_sender(p, w, ks_sim_now(&w->sim));
}

/* ProducerFencedException: the producer can do nothing more; what it
 * holds fails. */
static void txn_fenced(ks_producer *p, ks_world *w, ks_kerr err)
{
    if (p->txn_phase == KS_TXNC_FENCED)
        return;
    bool fenced = err == KS_KERR_PRODUCER_FENCED || err == KS_KERR_INVALID_PRODUCER_EPOCH;
    const char *exc = fenced ? "ProducerFencedException" : ks_kerr_exception(err);
    p->txn_phase = KS_TXNC_FENCED;
    p->fatal_exception = exc;
    p->txn_blocked = false;
    trace_txn_client(p, w, fenced ? "fenced" : "fatal", ks_kerr_name(err));
    if (fenced)
        ks_obs_zombie(&w->obs, p->txn_ids, p->ntxn_ids);
    p->ntxn_ids = 0;
    /* abortIncompleteBatches: queued and in-flight batches alike fail;
     * late answers for the latter are ignored */
    for (uint32_t bid = 0; bid < p->acc.batch_cap; bid++) {
        ks_batch *b = ks_acc_batch(&p->acc, bid);
        if (b->state == KS_BATCH_FREE)
            continue;
        if (b->state == KS_BATCH_QUEUED)
            ks_acc_remove(&p->acc, bid);
        seq_done(p, b);
        finish_batch(p, w, bid, -1, exc);
    }
    try_unblock(p, w);
    drain_backlog(p, w);
}

/* An abortable error: the transaction can only abort, and what it has
 * not sent yet fails at once (Sender: abortUndrainedBatches). A later
 * InitProducerId bumps the epoch (epochBumpRequired). */
static void txn_abortable(ks_producer *p, ks_world *w)
{
    if (!p->txn || p->txn_phase == KS_TXNC_FENCED)
        return;
    p->txn_failed = true;
    for (uint32_t part = 0; part < p->partitions; part++) {
        uint32_t bid = p->acc.dq[part].head;
        while (bid != KS_NONE) {
            ks_batch *b = ks_acc_batch(&p->acc, bid);
            uint32_t next = b->next;
            if (!was_sent(b)) {
                ks_acc_remove(&p->acc, bid);
                finish_batch(p, w, bid, -1, "TransactionAbortedException");
            }
            bid = next;
        }
    }
}

/* The transaction is over (EndTxn answered): the application goes on. */
static void txn_done(ks_producer *p, ks_world *w, const ks_request *q)
{
    int32_t consumer = p->txn_offsets_consumer;
    if (p->txn_commit) {
        p->txn_committed++;
        ks_time decided = q && q->decided_ns > 0 ? q->decided_ns : ks_sim_now(&w->sim);
        ks_obs_txn_committed(&w->obs, p->index, p->txn_number, decided, p->txn_ids,
                                 p->txn_parts, p->ntxn_ids);
    } else {
        p->txn_aborted++;
        ks_obs_aborted(&w->obs, p->txn_ids, p->ntxn_ids);
    }
    p->ntxn_ids = 0;
    if (p->txn_kip890 && q && q->epoch >= 0 && q->epoch != p->epoch) {
        /* KIP-890: every commit or abort bumps the epoch; the sequences
         * start over under it */
        p->epoch = q->epoch;
    }
    p->txn_offsets_consumer = -1;
    p->txn_offsets_step = KS_TXN_OFFSETS_NONE;
    trace_txn_client(p, w, p->txn_commit ? "committed" : "aborted", NULL);
    p->txn_phase = KS_TXNC_READY;
    memset(p->txn_added, 0, p->max_partitions * sizeof *p->txn_added);
    p->txn_blocked = false;
    if (p->txn_failed && !p->txn_kip890 && p->txn_started) {
        /* epochBumpRequired: InitProducerId again, for a new epoch, before
         * the next transaction ([K] TransactionManager.
         * beginCompletingTransaction, KIP-360) */
        p->txn_phase = KS_TXNC_INITIALIZING;
        p->txn_blocked = true;
        p->producer_id = -1;
        wake_sender(p, w, ks_sim_now(&w->sim));
    }
    if (consumer >= 0) {
        if (p->txn_commit)
            ks_consumer_txn_committed(&w->consumers[consumer], w, NULL);
        else
            ks_consumer_txn_aborted(&w->consumers[consumer], w);
    }
    drain_backlog(p, w);
}

/* A transactional request of `api` to `broker`, with `parts` partitions
 * as entries (AddPartitionsToTxn). */
static void send_txn_request(ks_producer *p, ks_world *w, uint32_t broker, ks_api api,
                             ks_time now)
{
    uint32_t id = ks_request_alloc(&w->reqs);
    if (id == KS_REQ_NONE) {
        oom(w);
        return;
    }
    ks_prod_node *n = &p->nodes[broker];
    ks_request *q = &w->reqs.reqs[id];
    q->api = api;
    address(p, w, q, broker);
    q->correlation_id = ++p->api_requests[api];
    q->expects_response = true;
    q->producer_id = p->producer_id;
    q->epoch = p->epoch;
    q->commit = p->txn_commit;
    q->gen = n->gen;
    q->pnext = KS_REQ_NONE;
    const char *tid = p->conf->config[KS_PCFG_TRANSACTIONAL_ID].s;
    q->request_bytes = 30u + (uint32_t)strlen(p->client_id) + (uint32_t)strlen(tid);
    if (api == KS_API_FIND_COORDINATOR) {
        /* the transaction's coordinator first, then the group's */
        q->key_type = (uint8_t)(p->coordinator < 0 ? KS_COORD_TRANSACTION : KS_COORD_GROUP);
        q->group_id = p->txn_group_id;
    }
    if (api == KS_API_ADD_OFFSETS_TO_TXN || api == KS_API_TXN_OFFSET_COMMIT) {
        q->group_id = p->txn_group_id;
        q->member_id = p->txn_member_id;
        q->request_bytes += (uint32_t)strlen(p->txn_group_id);
    }
    if (api == KS_API_TXN_OFFSET_COMMIT) {
        /* the consumer's positions, committed with the transaction */
        uint32_t last = KS_REQ_NONE;
        for (uint32_t k = 0; k < p->txn_noffsets; k++) {
            uint32_t e = ks_request_add_batch(&w->reqs, id, &last);
            if (e == KS_REQ_NONE) {
                oom(w);
                return;
            }
            q = &w->reqs.reqs[id];
            w->reqs.entries[e].partition = p->txn_offset_parts[k];
            w->reqs.entries[e].base_offset = p->txn_offsets[k];
            q->request_bytes += 16u;
        }
    }
    if (api == KS_API_ADD_PARTITIONS_TO_TXN) {
        uint32_t last = KS_REQ_NONE;
        for (uint32_t part = 0; part < p->partitions; part++) {
            if (!p->txn_pending[part])
                continue;
            uint32_t e = ks_request_add_batch(&w->reqs, id, &last);
            if (e == KS_REQ_NONE) {
                oom(w);
                return;
            }
            q = &w->reqs.reqs[id];
            w->reqs.entries[e].partition = p->first_partition + part;
            q->request_bytes += 8u;
        }
    }
    sender_cost(p, q, now);
    p->txn_req_in_flight = true;
    bool lost;
    ks_time sent;
    launch(p, w, broker, id, now, &lost, &sent);
}

/* The least loaded broker whose connection can take a request now, or
 * UINT32_MAX (then *next says when to look again). */
static uint32_t least_loaded(const ks_producer *p, const ks_world *w, ks_time now, ks_time *next)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t b = 0; b < p->brokers; b++) {
        const ks_prod_node *n = &p->nodes[b];
        ks_time wire = ks_net_wire_free(&w->net, n->conn, KS_NET_REQUEST);
        ks_time when = wire > n->ready_at_ns ? wire : n->ready_at_ns;
        if (n->in_flight >= p->max_in_flight)
            continue;
        if (when > now) {
            if (when < *next)
                *next = when;
            continue;
        }
        if (best == UINT32_MAX || n->in_flight < p->nodes[best].in_flight)
            best = b;
    }
    return best;
}

/* Sends the transactional request due, if any, one at a time
 * (Sender.maybeSendAndPollTransactionalRequest): FindCoordinator, then
 * InitProducerId, AddPartitionsToTxn for partitions with records (classic
 * protocol), EndTxn once nothing of the transaction is left. */
static void txn_send_due(ks_producer *p, ks_world *w, ks_time now, ks_time *next)
{
    if (p->txn_req_in_flight || p->txn_phase == KS_TXNC_FENCED)
        return;
    if (now < p->txn_retry_at_ns) {
        if (p->txn_retry_at_ns < *next)
            *next = p->txn_retry_at_ns;
        return;
    }
    ks_api api;
    if (p->coordinator < 0)
        api = KS_API_FIND_COORDINATOR;
    else if (p->txn_phase == KS_TXNC_INITIALIZING)
        api = KS_API_INIT_PRODUCER_ID;
    else if (!p->txn_kip890 && p->txn_pending_count > 0)
        api = KS_API_ADD_PARTITIONS_TO_TXN;
    else if (p->txn_offsets_step == KS_TXN_OFFSETS_ADD)
        api = KS_API_ADD_OFFSETS_TO_TXN;
    else if (p->txn_offsets_step == KS_TXN_OFFSETS_COMMIT && p->group_coordinator < 0)
        api = KS_API_FIND_COORDINATOR; /* of the group */
    else if (p->txn_offsets_step == KS_TXN_OFFSETS_COMMIT)
        api = KS_API_TXN_OFFSET_COMMIT;
    else if (p->txn_phase == KS_TXNC_ENDING && p->acc.batches_live == 0)
        api = KS_API_END_TXN;
    else
        return;
    if (api == KS_API_END_TXN && p->txn_failed && p->txn_commit) {
        /* commitTransaction fails on the abortable error; the application
         * aborts instead */
        p->txn_commit = false;
        trace_txn_client(p, w, "abort", "a batch of the transaction failed");
    }
    if (api == KS_API_END_TXN && !p->txn_started) {
        txn_done(p, w, NULL); /* the coordinator never heard of it: nothing to end */
        return;
    }
    uint32_t broker = (uint32_t)(api == KS_API_TXN_OFFSET_COMMIT ? p->group_coordinator
                                                                 : p->coordinator);
    const ks_prod_node *n = api != KS_API_FIND_COORDINATOR ? &p->nodes[broker] : NULL;
    if (api == KS_API_FIND_COORDINATOR) {
        broker = least_loaded(p, w, now, next);
        if (broker == UINT32_MAX)
            return;
    } else if (n->in_flight >= p->max_in_flight || n->ready_at_ns > now ||
               ks_net_wire_free(&w->net, n->conn, KS_NET_REQUEST) > now) {
        ks_time when = n->ready_at_ns > now ? n->ready_at_ns
                                            : ks_net_wire_free(&w->net, n->conn, KS_NET_REQUEST);
        if (when > now && when < *next)
            *next = when;
        return;
    }
    send_txn_request(p, w, broker, api, now);
}

/* TxnOffsetCommit answered: the offsets wait at the group coordinator for
 * the transaction's end. A partition refused because the coordinator
 * moved is sent again to the new one ([K] TxnOffsetCommitHandler). */
static void txn_offsets_committed(ks_producer *p, ks_world *w, const ks_request *q)
{
    ks_kerr err = KS_KERR_NONE;
    for (uint32_t e = q->first; e != KS_REQ_NONE && err == KS_KERR_NONE;
         e = w->reqs.entries[e].next)
        err = w->reqs.entries[e].error;
    if (err == KS_KERR_NONE) {
        p->txn_offsets_step = KS_TXN_OFFSETS_DONE;
        return;
    }
    trace_txn_client(p, w, ks_api_name(q->api), ks_kerr_name(err));
    if (err == KS_KERR_NOT_COORDINATOR || err == KS_KERR_COORDINATOR_NOT_AVAILABLE)
        p->group_coordinator = -1;
    if (ks_kerr_retriable(err))
        p->txn_retry_at_ns = ks_time_add(ks_sim_now(&w->sim), p->set.retry_backoff_ns);
    else
        txn_fenced(p, w, err);
}

/* A transactional request's answer. Retriable errors go again after
 * retry.backoff.ms (AddPartitionsToTxn's CONCURRENT_TRANSACTIONS after
 * 20 ms, ADD_PARTITIONS_RETRY_BACKOFF_MS); a fenced producer is done. */
static void txn_answered(ks_producer *p, ks_world *w, const ks_request *q)
{
    ks_time now = ks_sim_now(&w->sim);
    p->txn_req_in_flight = false;
    if (q->error == KS_KERR_PRODUCER_FENCED || q->error == KS_KERR_INVALID_PRODUCER_EPOCH) {
        txn_fenced(p, w, q->error);
        return;
    }
    if (q->error == KS_KERR_INVALID_PRODUCER_ID_MAPPING && q->api == KS_API_ADD_PARTITIONS_TO_TXN) {
        txn_abortable(p, w); /* abortableErrorIfPossible */
        trace_txn_client(p, w, ks_api_name(q->api), ks_kerr_name(q->error));
        return;
    }
    if (q->error != KS_KERR_NONE && !ks_kerr_retriable(q->error)) {
        /* the handlers treat the rest as fatal (INVALID_TXN_STATE,
         * INVALID_TRANSACTION_TIMEOUT, unknown errors) */
        txn_fenced(p, w, q->error);
        return;
    }
    if (q->error != KS_KERR_NONE) {
        ks_time backoff = q->api == KS_API_ADD_PARTITIONS_TO_TXN &&
                                  q->error == KS_KERR_CONCURRENT_TRANSACTIONS
                              ? 20 * KS_NS_PER_MS
                              : p->set.retry_backoff_ns;
        p->txn_retry_at_ns = ks_time_add(now, backoff);
        trace_txn_client(p, w, ks_api_name(q->api), ks_kerr_name(q->error));
        return;
    }
    switch (q->api) {
    case KS_API_FIND_COORDINATOR:
        if (q->key_type == KS_COORD_GROUP)
            p->group_coordinator = (int32_t)q->node;
        else
            p->coordinator = (int32_t)q->node;
        break;
    case KS_API_ADD_OFFSETS_TO_TXN:
        p->txn_offsets_step = KS_TXN_OFFSETS_COMMIT;
        p->txn_started = true;
        break;
    case KS_API_TXN_OFFSET_COMMIT:
        txn_offsets_committed(p, w, q);
        break;
    case KS_API_INIT_PRODUCER_ID:
        got_producer_id(p, w, q);
        p->txn_phase = KS_TXNC_READY;
        p->txn_blocked = false;
        drain_backlog(p, w);
        break;
    case KS_API_ADD_PARTITIONS_TO_TXN:
        for (uint32_t e = q->first; e != KS_REQ_NONE; e = w->reqs.entries[e].next) {
            uint32_t part = w->reqs.entries[e].partition - p->first_partition;
            if (p->txn_pending[part]) {
                p->txn_pending[part] = false;
                p->txn_pending_count--;
            }
            p->txn_added[part] = true;
        }
        p->txn_started = true;
        break;
    case KS_API_END_TXN:
        txn_done(p, w, q);
        break;
    case KS_API_PRODUCE:
    case KS_API_WRITE_TXN_MARKERS:
    case KS_API_FETCH:
    case KS_API_LIST_OFFSETS:
    case KS_API_METADATA:
    case KS_API_OFFSET_COMMIT:
    case KS_API_OFFSET_FETCH:
    case KS_API__COUNT:
        break;
    }
}

void ks_producer_send_offsets(ks_producer *p, ks_world *w, uint32_t consumer,
                              const char *group_id, const char *member_id, const uint32_t *parts,
                              const int64_t *offsets, uint32_t n)
{
    if (!p->txn || w->node_down[ks_node_producer(&w->nodes, p->index)] ||
        p->txn_phase == KS_TXNC_FENCED)
        return;
    if (n > p->txn_offsets_cap) {
        int64_t *o = realloc(p->txn_offsets, n * sizeof *o);
        if (o)
            p->txn_offsets = o;
        uint32_t *pa = realloc(p->txn_offset_parts, n * sizeof *pa);
        if (pa)
            p->txn_offset_parts = pa;
        if (!o || !pa) {
            oom(w);
            return;
        }
        p->txn_offsets_cap = n;
    }
    memcpy(p->txn_offsets, offsets, n * sizeof *p->txn_offsets);
    memcpy(p->txn_offset_parts, parts, n * sizeof *p->txn_offset_parts);
    p->txn_noffsets = n;
    p->txn_offsets_consumer = (int32_t)consumer;
    p->txn_group_id = group_id;
    p->txn_member_id = member_id;
    p->txn_offsets_step = KS_TXN_OFFSETS_ADD;
    /* the records handed over may still wait for the application thread
     * (or for initTransactions): the transaction ends after them */
    p->txn_end_after_backlog = true;
    txn_try_end(p, w);
    wake_sender(p, w, ks_sim_now(&w->sim));
}

/* The lowest sequence of the partition's batches on the wire, or
 * INT32_MAX (with the head batch: firstInFlightSequence). */
static int32_t lowest_on_wire(const ks_producer *p, const ks_world *w, uint32_t part)
{
    int32_t low = INT32_MAX;
    const ks_prod_node *n = &p->nodes[p->leader[part]];
    for (uint32_t id = n->fifo_head; id != KS_REQ_NONE; id = w->reqs.reqs[id].pnext) {
        const ks_request *q = &w->reqs.reqs[id];
        for (uint32_t e = q->first; e != KS_REQ_NONE; e = w->reqs.entries[e].next) {
            const ks_req_batch *rb = &w->reqs.entries[e];
            const ks_batch *b = &p->acc.batches[rb->batch];
            if (rb->partition == p->first_partition + part && b->state == KS_BATCH_IN_FLIGHT &&
                b->id == rb->batch_seq && b->has_seq && b->base_seq < low)
                low = b->base_seq;
        }
    }
    return low;
}

/* Idempotence: may the partition's head batch be drained now?
 * ([K] RecordAccumulator.shouldStopDrainBatchesForPartition) A new batch
 * waits while the partition's sequence is unresolved, or while batches
 * numbered under an older epoch are not done; a retried batch goes only
 * when it has the lowest sequence not yet done. */
static bool may_drain(void *ctx, uint32_t part, const ks_batch *head)
{
    const ks_producer *p = ((const void *const *)ctx)[0];
    const ks_world *w = ((const void *const *)ctx)[1];
    const ks_seq_state *sq = &p->seq[part];
    if (p->txn && !p->txn_kip890 && !p->txn_added[part])
        return false; /* isSendToPartitionAllowed: AddPartitionsToTxn first */
    if (!head->has_seq)
        return !sq->unresolved && (sq->epoch == p->epoch || sq->incomplete == 0);
    return head->base_seq < lowest_on_wire(p, w, part);
}

/* Once nothing of an unresolved partition is left undone, its sequence
 * is resolved if no batch went missing, else an epoch bump is due
 * (TransactionManager.maybeResolveSequences). */
static void resolve_sequences(ks_producer *p)
{
    for (uint32_t i = 0; i < p->partitions; i++) {
        ks_seq_state *sq = &p->seq[i];
        if (!sq->unresolved || sq->incomplete > 0)
            continue;
        sq->unresolved = false;
        if (sq->next_seq != next_after(sq->last_acked))
            request_bump(p, i);
    }
}

/* KIP-360: the idempotent producer bumps its epoch locally and renumbers,
 * from 0, every batch not yet done of the partitions that asked for it,
 * (bumpIdempotentProducerEpoch, startSequencesAtBeginning). Other partitions start over at their next
 * new batch, once their older batches are done. At epoch 32767 Kafka
 * asks for a new producer id instead. */
static void maybe_bump_epoch(ks_producer *p, ks_world *w)
{
    if (!p->bump_required)
        return;
    /* ksim waits until none of the renumbered partitions' batches is on
     * the wire: an answer to the old numbering would otherwise be taken
     * for the new one. */
    for (uint32_t i = 0; i < p->partitions; i++)
        if (p->seq[i].rewrite && lowest_on_wire(p, w, i) != INT32_MAX)
            return;
    p->bump_required = false;
    p->epoch_bumps++;
    if (p->epoch == INT16_MAX) {
        p->producer_id = -1;
        for (uint32_t i = 0; i < p->max_partitions; i++)
            p->seq[i].rewrite = false;
        init_producer_id(p, w); /* every partition starts over */
        return;
    }
    p->epoch++;
    for (uint32_t i = 0; i < p->partitions; i++) {
        ks_seq_state *sq = &p->seq[i];
        if (!sq->rewrite)
            continue;
        sq->rewrite = false;
        sq->unresolved = false;
        sq->epoch = p->epoch;
        sq->last_acked = -1;
        sq->incomplete = 0;
        int32_t next = 0;
        for (;;) { /* in sequence order: the lowest not yet renumbered */
            ks_batch *low = NULL;
            for (uint32_t bid = 0; bid < p->acc.batch_cap; bid++) {
                ks_batch *b = ks_acc_batch(&p->acc, bid);
                if (b->state != KS_BATCH_FREE && b->partition == i && b->has_seq &&
                    b->epoch != p->epoch && (!low || b->base_seq < low->base_seq))
                    low = b;
            }
            if (!low)
                break;
            low->epoch = p->epoch;
            low->base_seq = next;
            low->seq_reset = true;
            next += (int32_t)low->records;
            sq->incomplete++;
        }
        sq->next_seq = next;
    }
    trace_state(p, w, "epoch_bump", NULL);
}

void ks_producer_on_sender(ks_producer *p, ks_world *w)
{
    ks_time now = ks_sim_now(&w->sim);
    p->wake = KS_HANDLE_NONE;
    if (now < p->sender_free_ns) { /* still building the last requests */
        wake_sender(p, w, p->sender_free_ns);
        return;
    }
    if (p->txn) {
        ks_time tnext = KS_TIME_MAX;
        txn_send_due(p, w, now, &tnext);
        if (tnext != KS_TIME_MAX)
            wake_sender(p, w, tnext);
        if (p->producer_id < 0 || p->txn_phase == KS_TXNC_FENCED)
            return;
        /* Sender.runOnce sends no produce data while a transactional
         * request is in flight (maybeSendAndPollTransactionalRequest) */
        if (p->txn_req_in_flight)
            return;
    }
    if (p->seq) {
        resolve_sequences(p);
        maybe_bump_epoch(p, w);
        if (p->producer_id < 0) {
            /* nothing is drained without a producer id; its answer (or a
             * connection becoming ready) wakes the sender */
            ks_time next = KS_TIME_MAX;
            if (!p->txn)
                maybe_init_producer_id(p, w, now, &next);
            if (next != KS_TIME_MAX)
                wake_sender(p, w, next);
            return;
        }
    }
    ks_ready r = {p->node_ready, KS_TIME_MAX, p->queue, p->queue_ids, 0};
    /* a transaction being committed flushes: every batch is ready */
    ks_acc_ready(&p->acc, p->leader, now, p->blocked || p->txn_phase == KS_TXNC_ENDING, &r);
    update_load_stats(p, &r);
    ks_time next = r.next_check_ns;
    for (uint32_t b = 0; b < p->brokers && w->sim.verdict == KS_SIM_RUNNING; b++) {
        if (!p->node_ready[b])
            continue;
        ks_prod_node *n = &p->nodes[b];
        ks_time wire = ks_net_wire_free(&w->net, n->conn, KS_NET_REQUEST);
        bool slot = p->acks == 0 || n->in_flight < p->max_in_flight;
        /* NetworkClient sends on a connection only when the previous
         * request has been fully written (InFlightRequests.canSendMore). */
        bool can = slot && wire <= now && n->ready_at_ns <= now;
        n->ready_ns = now;
        if (!can) {
            ks_time when = wire > n->ready_at_ns ? wire : n->ready_at_ns;
            if (slot && when < next)
                next = when;
            continue; /* else a response will wake the sender */
        }
        n->drain_ns = now;
        bool *was_full = p->was_full;
        void *ctx[2] = {p, w};
        note_full(p, n, was_full);
        uint32_t count;
        uint64_t bytes;
        uint32_t chain = ks_acc_drain(&p->acc, b, n->parts, n->nparts, p->max_request_size,
                                      now, p->seq ? may_drain : NULL, ctx, &count, &bytes);
        if (count > 0)
            send_request(p, w, b, chain, was_full);
        /* More batches may be waiting: look again once this request is
         * on the wire (Sender polls with timeout 0 while nodes are ready). */
        if (count > 0 && node_has_batches(p, n)) {
            wire = ks_net_wire_free(&w->net, n->conn, KS_NET_REQUEST);
            ks_time again = wire > p->sender_free_ns ? wire : p->sender_free_ns;
            if (again < now)
                again = now;
            if (again < next)
                next = again;
        }
    }
    if (next != KS_TIME_MAX)
        wake_sender(p, w, next);
}

/* Responses on a connection are handled in request order, as
 * NetworkClient does: one that arrives while an older request is still
 * unanswered waits behind it. */
static void handle_arrived(ks_producer *p, ks_world *w, uint32_t broker)
{
    ks_prod_node *n = &p->nodes[broker];
    ks_time now = ks_sim_now(&w->sim);
    while (n->fifo_head != KS_REQ_NONE && w->reqs.reqs[n->fifo_head].arrived) {
        uint32_t id = pop_in_flight(p, w, n);
        ks_request *q = &w->reqs.reqs[id];
        p->responses++;
        ks_trace *tr = w->trace;
        if (tr && ks_trace_begin(tr, now, KS_TR_RESPONSE)) {
            ks_trace_str(tr, "producer", p->conf->id);
            ks_trace_u64(tr, "broker", q->server);
            ks_trace_u64(tr, "request", q->correlation_id);
            if (q->api != KS_API_PRODUCE)
                ks_trace_str(tr, "api", ks_api_name(q->api));
            ks_kerr err = q->api == KS_API_PRODUCE ? KS_KERR_NONE : q->error;
            for (uint32_t e = q->first; q->api == KS_API_PRODUCE && e != KS_REQ_NONE &&
                                        err == KS_KERR_NONE;
                 e = w->reqs.entries[e].next)
                err = w->reqs.entries[e].error;
            ks_trace_str(tr, "error", ks_kerr_name(err));
            ks_trace_i64(tr, "rtt_ns", now - q->sent_ns);
            ks_trace_end(tr);
        }
        if (q->api != KS_API_PRODUCE) {
            if (q->api == KS_API_METADATA)
                metadata_answered(p, w, q);
            else if (p->txn)
                txn_answered(p, w, q);
            else
                got_producer_id(p, w, q);
            ks_request_unref(&w->reqs, id);
            continue;
        }
        if (!q->fate_known)
            ks_obs_request_fate(&w->obs, p->index, q->correlation_id, KS_FATE_ANSWERED,
                                    KS_OBS_NO_FAULT);
        q->fate_known = true;
        handle_response(p, w, q);
        ks_request_unref(&w->reqs, id); /* the producer's hold */
    }
    arm_timeout(p, w, broker);
}

void ks_producer_on_response(ks_producer *p, ks_world *w, uint32_t id)
{
    ks_request *q = &w->reqs.reqs[id];
    uint32_t broker = q->server;
    if (q->gen == p->nodes[broker].gen) {
        q->arrived = true;
        handle_arrived(p, w, broker);
    } /* else its connection was closed meanwhile: nobody reads it */
    ks_request_unref(&w->reqs, id); /* the response event's hold */
    try_unblock(p, w);
    wake_sender(p, w, ks_sim_now(&w->sim));
}

void ks_producer_rehandle(ks_producer *p, const ks_event *ev, ks_handle h, ks_time at)
{
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

void ks_producer_finish(ks_producer *p, ks_world *w)
{
    uint64_t untold = p->blocked ? 1u : 0u;
    for (uint32_t bid = 0; bid < p->acc.batch_cap; bid++) {
        const ks_batch *b = ks_acc_batch(&p->acc, bid);
        if (b->state != KS_BATCH_FREE && !was_sent(b))
            untold += b->records;
    }
    if (untold > 0)
        ks_obs_untold(&w->obs, p->index, untold);
}
