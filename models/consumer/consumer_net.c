/*
 * consumer_net.c - a consumer's side of the network (see consumer_net.h).
 */
#include "models/consumer/consumer_net.h"

#include "models/net/wire.h"

#include <stdlib.h>
#include <string.h>

/* ---- requests ------------------------------------------------------------ */

/* The connection a request of `api` to `broker` travels on: the group
 * coordinator's requests have one of their own. */
uint32_t ks_cons_slot_of(ks_api api, uint32_t broker)
{
    bool coord = api == KS_API_OFFSET_FETCH || api == KS_API_OFFSET_COMMIT;
    return broker * KS_CHAN__COUNT + (coord ? KS_CHAN_COORDINATOR : KS_CHAN_DATA);
}

/* Its request.timeout.ms timer: a consumer event of the connection. */
ks_event ks_cons_timeout_timer(const ks_consumer *c, uint32_t slot)
{
    return (ks_event){.kind = KS_EV_CONSUMER, .owner = c->node, .tag = KS_CONSUMER_TIMEOUT,
                      .arg = slot};
}

/* A new request of `api` to `broker`, numbered per API from 1; KS_REQ_NONE
 * (the run stopped) when out of memory. */
uint32_t ks_cons_new_request(ks_consumer *c, ks_ctx *cx, ks_api api, uint32_t broker,
                            uint16_t version)
{
    uint32_t slot = ks_cons_slot_of(api, broker);
    uint32_t *conn = &c->cc[slot].conn;
    if (*conn == KS_CLIENT_NONE)
        *conn = ks_net_connect_channel(cx->net, c->node, broker, slot % KS_CHAN__COUNT);
    ks_request_head h = {api, version, c->node, broker, c->conf->id, *conn,
                         c->api_requests[api] + 1};
    uint32_t id = *conn == UINT32_MAX ? KS_REQ_NONE : ks_request_open(&cx->reqs, &h);
    if (id == KS_REQ_NONE) {
        ks_ctx_oom(cx);
        return KS_REQ_NONE;
    }
    c->api_requests[api]++;
    ks_request *q = ks_req(&cx->reqs, id);
    q->group_id = c->conf->group_id;
    q->read_committed = c->conf->read_committed;
    q->gen = c->generation;
    return id;
}

bool ks_cons_add_part(ks_ctx *cx, uint32_t id, uint32_t *last, uint32_t partition, int64_t off)
{
    uint32_t e = ks_request_add_batch(&cx->reqs, id, last);
    if (e == KS_REQ_NONE) {
        ks_ctx_oom(cx);
        return false;
    }
    ks_req_entry(&cx->reqs, e)->partition = partition;
    ks_req_entry(&cx->reqs, e)->base_offset = off;
    return true;
}

/* The request leaves. Whether it gets there the consumer learns from its
 * answer or from its own request.timeout.ms. */
void ks_cons_send(ks_consumer *c, ks_ctx *cx, uint32_t id)
{
    ks_request *q = ks_req(&cx->reqs, id);
    q->sent_ns = ks_sim_now(&cx->sim);
    if (q->request_bytes == 0)
        q->request_bytes = 30u + (uint32_t)strlen(c->conf->id) + 8u * q->batches;
    q->refs++; /* the consumer's hold, until answered or given up */
    uint32_t slot = ks_cons_slot_of(q->api, q->server);
    ks_event t = ks_cons_timeout_timer(c, slot);
    if (!ks_client_sent(&c->cc[slot], &cx->sim, id, q->sent_ns, KS_CONS_REQUEST_TIMEOUT_NS,
                        &t)) {
        ks_ctx_oom(cx);
        return;
    }
    (void)ks_wire_request(cx->wire, id);
}

/* The first broker for a request any broker can answer (FindCoordinator):
 * NetworkClient.leastLoadedNode picks at random among the least loaded;
 * ksim takes the lowest-numbered broker with no fetch of this consumer
 * in flight, so that runs read the same every time. */
uint32_t ks_cons_any_broker(const ks_consumer *c)
{
    for (uint32_t b = 0; b < c->brokers; b++)
        if (c->fetch_req[b] == KS_REQ_NONE)
            return b;
    return 0;
}

void ks_cons_trace_disconnect(const ks_consumer *c, ks_ctx *cx, uint32_t slot, uint32_t n)
{
    bool coord = slot % KS_CHAN__COUNT == KS_CHAN_COORDINATOR;
    ks_client_trace_disconnect(cx->trace, KS_TR_DISCONNECT, ks_sim_now(&cx->sim), "consumer",
                               c->conf->id, slot / KS_CHAN__COUNT, coord ? "coordinator" : "data",
                               n, KS_CONS_REQUEST_TIMEOUT_NS);
}

/* ---- the metadata refresh ------------------------------------------------ */

/* When the next refresh is due ([K] Metadata.timeToNextUpdate): the
 * metadata's age limit, or, when an update was asked for, at once but
 * not within retry.backoff.ms of the last one. */
static ks_time md_due_at(const ks_consumer *c, ks_time now)
{
    ks_time backoff = c->md_last_ns + KS_CONS_RETRY_BACKOFF_NS;
    if (c->md_need)
        return backoff > now ? backoff : now;
    return c->md_last_ns + KS_CONS_METADATA_MAX_AGE_NS;
}

/* Arms the refresh timer (a daemon: a refresh keeps no run alive) at
 * its due time, unless a refresh is in flight. */
static void md_schedule(ks_consumer *c, ks_ctx *cx)
{
    if (c->md_in_flight || !c->alive)
        return;
    ks_time at = md_due_at(c, ks_sim_now(&cx->sim));
    if (c->md_timer != KS_HANDLE_NONE) {
        if (c->md_at == at)
            return;
        ks_sim_cancel(&cx->sim, c->md_timer);
    }
    ks_event ev = {.kind = KS_EV_CONSUMER, .owner = c->node, .tag = KS_CONSUMER_METADATA,
                   .arg = c->generation};
    c->md_timer = ks_sim_schedule_daemon(&cx->sim, at, &ev);
    c->md_at = at;
}

void ks_cons_md_start(ks_consumer *c, ks_ctx *cx)
{
    c->md_last_ns = ks_sim_now(&cx->sim);
    c->md_need = c->md_in_flight = false;
    if (c->md_timer != KS_HANDLE_NONE)
        ks_sim_cancel(&cx->sim, c->md_timer);
    c->md_timer = KS_HANDLE_NONE;
    md_schedule(c, cx);
}

void ks_cons_md_stale(ks_consumer *c, ks_ctx *cx)
{
    c->md_need = true;
    md_schedule(c, cx);
}

/* A MetadataRequest (v12) for the consumer's topic, to the least loaded
 * broker. */
void ks_cons_md_due(ks_consumer *c, ks_ctx *cx)
{
    c->md_timer = KS_HANDLE_NONE;
    if (c->md_in_flight)
        return;
    uint32_t id = ks_cons_new_request(c, cx, KS_API_METADATA, ks_cons_any_broker(c), 12);
    if (id == KS_REQ_NONE)
        return;
    ks_request *q = ks_req(&cx->reqs, id);
    q->topic = c->conf->topic;
    q->daemon = true;
    q->request_bytes = 30u + (uint32_t)strlen(c->conf->id) +
                       (uint32_t)strlen(cx->sc->topics[c->conf->topic].name);
    c->md_in_flight = true;
    ks_cons_send(c, cx, id);
}

/* The leaders it names are the consumer's from now on; a part with a
 * fetch in flight keeps its leader until that fetch is answered, and the
 * consumer asks again after retry.backoff.ms. */
void ks_cons_md_answered(ks_consumer *c, ks_ctx *cx, const ks_request *q)
{
    c->md_in_flight = false;
    if (q->error == KS_KERR_NONE) {
        c->md_need = false;
        c->md_last_ns = ks_sim_now(&cx->sim);
        for (uint32_t k = 0; k < c->nparts; k++) {
            uint32_t p = c->parts[k] - c->first_partition;
            if (p >= q->nleaders || q->leaders[p] == c->leader[k])
                continue;
            if (c->fetching[k])
                c->md_need = true;
            else
                c->leader[k] = q->leaders[p];
        }
    } else {
        c->md_need = true;
    }
    md_schedule(c, cx);
}

void ks_cons_md_given_up(ks_consumer *c, ks_ctx *cx)
{
    c->md_in_flight = false;
    ks_cons_md_stale(c, cx);
}
