/*
 * producer.c - the producer model (see producer.h).
 *
 * Sizes follow Kafka's wire formats so that bandwidth and per-byte costs
 * see realistic byte counts: record batch v2 ([K] clients/.../common/record/
 * DefaultRecordBatch.java, DefaultRecord.java) and ProduceRequest v7
 * framing ([K] clients/src/main/resources/common/message/
 * ProduceRequest.json, RequestHeader.json).
 */
#include "models/producer.h"

#include "models/world.h"
#include "sim/detmath.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of a zig-zag varint ([K] common/utils/ByteUtils.sizeOfVarint). */
static uint32_t varint_size(int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    uint32_t n = 1;
    while (z >= 0x80u) {
        z >>= 7;
        n++;
    }
    return n;
}

uint32_t ks_record_size_v2(int64_t key_len, uint32_t value_len, uint32_t offset_delta)
{
    uint32_t body = 1u                           /* attributes */
                    + varint_size(0)             /* timestamp delta */
                    + varint_size(offset_delta)  /* offset delta */
                    + varint_size(key_len < 0 ? -1 : key_len)
                    + (key_len < 0 ? 0u : (uint32_t)key_len)
                    + varint_size(value_len) + value_len
                    + varint_size(0);            /* header count */
    return varint_size(body) + body;
}

/* v2 record batch header ([K] DefaultRecordBatch.RECORD_BATCH_OVERHEAD). */
#define BATCH_OVERHEAD 61u

/* ProduceRequest v7 around one partition's batch: size(4) api_key(2)
 * api_version(2) correlation_id(4) client_id(2+n) transactional_id(2)
 * acks(2) timeout_ms(4) topics(4) name(2+n) partitions(4) index(4)
 * records_size(4). */
static uint32_t request_bytes(const char *client_id, const char *topic, uint32_t batch)
{
    return 40u + (uint32_t)strlen(client_id) + (uint32_t)strlen(topic) + batch;
}

bool ks_producer_init(ks_producer *p, ks_world *w, uint32_t index)
{
    const ks_producer_conf *pc = &w->sc->producers[index];
    memset(p, 0, sizeof *p);
    p->index = index;
    p->conf = pc;
    const char *cid = pc->config[KS_PCFG_CLIENT_ID].s;
    /* KafkaProducer names unnamed clients "producer-1", "producer-2", ... */
    if (cid)
        snprintf(p->client_id, sizeof p->client_id, "%s", cid);
    else
        snprintf(p->client_id, sizeof p->client_id, "producer-%u", index + 1);
    char name[128];
    snprintf(name, sizeof name, "producer.%s.workload", pc->id);
    if (!ks_world_stream(w, &p->workload_rng, name))
        return false;
    p->partition = w->topic_first_partition[pc->topic];
    p->leader = w->partitions[p->partition].leader;
    p->conn = ks_net_conn_id(&w->net, index, p->leader);
    p->acks = (int)pc->config[KS_PCFG_ACKS].i;
    int64_t key_len = pc->workload.key ? (int64_t)strlen(pc->workload.key) : -1;
    p->record_bytes_v2 = ks_record_size_v2(key_len, pc->workload.value_bytes, 0);
    p->batch_bytes = BATCH_OVERHEAD + p->record_bytes_v2;
    p->request_bytes = request_bytes(p->client_id, w->sc->topics[pc->topic].name, p->batch_bytes);
    p->max_in_flight = (uint32_t)pc->config[KS_PCFG_MAX_IN_FLIGHT].i;
    ks_hist_init(&p->latency);
    p->q_cap = 64;
    p->queue = malloc(p->q_cap * sizeof *p->queue);
    return p->queue != NULL;
}

void ks_producer_free(ks_producer *p)
{
    free(p->queue);
    p->queue = NULL;
}

static void schedule_produce(ks_producer *p, ks_world *w, ks_time at)
{
    ks_event ev = {.kind = KS_EV_PRODUCE, .u.produce = {.producer = p->index}};
    ks_sim_schedule(&w->sim, at, &ev);
}

void ks_producer_start(ks_producer *p, ks_world *w)
{
    if (p->conf->workload.records > 0)
        schedule_produce(p, w, p->conf->workload.start_ns);
}

static bool enqueue(ks_producer *p, ks_pending_record r)
{
    if (p->q_len == p->q_cap) {
        size_t cap = p->q_cap * 2;
        ks_pending_record *q = malloc(cap * sizeof *q);
        if (!q)
            return false;
        for (size_t i = 0; i < p->q_len; i++)
            q[i] = p->queue[(p->q_head + i) % p->q_cap];
        free(p->queue);
        p->queue = q;
        p->q_cap = cap;
        p->q_head = 0;
    }
    p->queue[(p->q_head + p->q_len) % p->q_cap] = r;
    p->q_len++;
    if (p->q_len > p->q_len_max)
        p->q_len_max = p->q_len;
    return true;
}

static const char *topic_of(const ks_world *w, const ks_producer *p)
{
    return w->sc->topics[p->conf->topic].name;
}

static void trace_ack(ks_producer *p, ks_world *w, uint64_t record, int64_t offset,
                      ks_time latency)
{
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_ACK)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_u64(tr, "record", record);
        ks_trace_str(tr, "topic", topic_of(w, p));
        ks_trace_u64(tr, "partition", w->partitions[p->partition].index);
        ks_trace_i64(tr, "offset", offset);
        ks_trace_i64(tr, "latency_ns", latency);
        ks_trace_end(tr);
    }
}

/* Completes a record: the application learns its outcome now. */
static void complete(ks_producer *p, ks_world *w, uint64_t record, ks_time produced_ns,
                     int64_t offset)
{
    ks_time now = ks_sim_now(&w->sim);
    ks_time latency = now - produced_ns;
    p->acked++;
    p->last_ack_ns = now;
    ks_hist_add(&p->latency, latency);
    trace_ack(p, w, record, offset, latency);
}

static void send_request(ks_producer *p, ks_world *w, ks_pending_record r)
{
    uint32_t id = ks_request_alloc(&w->reqs);
    if (id == KS_REQ_NONE) {
        w->out_of_memory = true;
        ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
        return;
    }
    ks_request *q = &w->reqs.reqs[id];
    q->producer = p->index;
    q->broker = p->leader;
    q->conn = p->conn;
    q->partition = p->partition;
    q->correlation_id = p->next_correlation_id++;
    q->record_id = r.id;
    q->records = 1;
    q->batch_bytes = p->batch_bytes;
    q->request_bytes = p->request_bytes;
    q->produced_ns = r.produced_ns;
    ks_time now = ks_sim_now(&w->sim);
    q->sent_ns = now;
    q->expects_response = p->acks != 0;
    p->requests++;

    ks_time arrival = ks_net_transit(&w->net, p->conn, KS_NET_REQUEST, now, q->request_bytes);
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, now, KS_TR_SEND)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_u64(tr, "broker", p->leader);
        ks_trace_u64(tr, "request", q->correlation_id);
        ks_trace_str(tr, "topic", topic_of(w, p));
        ks_trace_u64(tr, "partition", w->partitions[p->partition].index);
        ks_trace_u64(tr, "record", r.id);
        ks_trace_u64(tr, "records", q->records);
        ks_trace_u64(tr, "bytes", q->request_bytes);
        ks_trace_i64(tr, "arrive_t", arrival);
        ks_trace_end(tr);
    }
    ks_event ev = {.kind = KS_EV_ARRIVE,
                   .u.request = {.conn = p->conn, .broker = p->leader, .request = id}};
    ks_sim_schedule(&w->sim, arrival, &ev);

    /* acks=0: the request expects no response; the producer completes the
     * record as soon as it is sent, offset unknown (-1) ([K] Sender.java,
     * handleProduceResponse, "acks = 0" case). It holds no in-flight slot. */
    if (p->acks == 0)
        complete(p, w, r.id, r.produced_ns, -1);
    else
        p->in_flight++;
}

static void try_send(ks_producer *p, ks_world *w)
{
    while (p->q_len > 0 && (p->acks == 0 || p->in_flight < p->max_in_flight) &&
           w->sim.verdict == KS_SIM_RUNNING) {
        ks_pending_record r = p->queue[p->q_head];
        p->q_head = (p->q_head + 1) % p->q_cap;
        p->q_len--;
        send_request(p, w, r);
    }
}

void ks_producer_on_produce(ks_producer *p, ks_world *w)
{
    ks_time now = ks_sim_now(&w->sim);
    const ks_workload_conf *wl = &p->conf->workload;
    uint64_t id = w->next_record_id++;
    if (p->produced == 0)
        p->first_produce_ns = now;
    p->produced++;
    p->record_bytes += wl->value_bytes + (wl->key ? strlen(wl->key) : 0);
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, now, KS_TR_PRODUCE)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_u64(tr, "record", id);
        ks_trace_str(tr, "topic", topic_of(w, p));
        ks_trace_u64(tr, "partition", w->partitions[p->partition].index);
        ks_trace_str(tr, "key", wl->key);
        ks_trace_u64(tr, "value_bytes", wl->value_bytes);
        ks_trace_end(tr);
    }
    ks_pending_record r = {id, now};
    if (!enqueue(p, r)) {
        w->out_of_memory = true;
        ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
        return;
    }
    try_send(p, w);
    if (p->produced < wl->records) {
        ks_time gap = wl->interval_ns;
        if (wl->arrival == KS_ARRIVAL_POISSON)
            gap = ks_round_i64(ks_rng_exponential(&p->workload_rng, (double)wl->interval_ns));
        schedule_produce(p, w, now + gap);
    }
}

void ks_producer_on_response(ks_producer *p, ks_world *w, uint32_t id)
{
    ks_request *q = &w->reqs.reqs[id];
    ks_time now = ks_sim_now(&w->sim);
    assert(p->in_flight > 0);
    p->in_flight--;
    p->responses++;
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, now, KS_TR_RESPONSE)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_u64(tr, "broker", q->broker);
        ks_trace_u64(tr, "request", q->correlation_id);
        ks_trace_str(tr, "topic", topic_of(w, p));
        ks_trace_u64(tr, "partition", w->partitions[q->partition].index);
        ks_trace_str(tr, "error", "NONE");
        ks_trace_i64(tr, "offset", q->base_offset);
        ks_trace_i64(tr, "rtt_ns", now - q->sent_ns);
        ks_trace_end(tr);
    }
    complete(p, w, q->record_id, q->produced_ns, q->base_offset);
    ks_request_release(&w->reqs, id);
    try_send(p, w);
}
