/*
 * client.c - a client's side of one connection (see client.h).
 */
#include "models/net/client.h"

#include <stdlib.h>
#include <string.h>

void ks_client_conn_init(ks_client_conn *cc)
{
    memset(cc, 0, sizeof *cc);
    cc->conn = KS_CLIENT_NONE;
    cc->timer = KS_HANDLE_NONE;
}

void ks_client_conn_free(ks_client_conn *cc)
{
    free(cc->ring);
    cc->ring = NULL;
    cc->head = cc->len = cc->cap = 0;
}

static ks_client_req *at(ks_client_conn *cc, uint32_t i)
{
    return &cc->ring[(cc->head + i) % cc->cap];
}

/* Doubles the ring, keeping its order from index 0. */
static bool grow(ks_client_conn *cc)
{
    uint32_t cap = cc->cap ? cc->cap * 2u : 4u;
    ks_client_req *r = malloc(cap * sizeof *r);
    if (!r)
        return false;
    for (uint32_t i = 0; i < cc->len; i++)
        r[i] = *at(cc, i);
    free(cc->ring);
    cc->ring = r;
    cc->cap = cap;
    cc->head = 0;
    return true;
}

static void arm(ks_client_conn *cc, ks_sim *sim, ks_time timeout_ns, const ks_event *timer)
{
    ks_time when = ks_time_add(at(cc, 0)->sent_ns, timeout_ns);
    when = ks_sim_not_before_now(sim, when);
    if (cc->timer != KS_HANDLE_NONE && cc->timer_at == when)
        return;
    if (cc->timer != KS_HANDLE_NONE)
        ks_sim_cancel(sim, cc->timer);
    cc->timer = ks_sim_schedule_daemon(sim, when, timer);
    cc->timer_at = when;
}

bool ks_client_sent(ks_client_conn *cc, ks_sim *sim, uint32_t id, ks_time sent_ns,
                    ks_time timeout_ns, const ks_event *timer)
{
    if (cc->len == cc->cap && !grow(cc))
        return false;
    *at(cc, cc->len++) = (ks_client_req){.id = id, .sent_ns = sent_ns};
    if (cc->len == 1)
        arm(cc, sim, timeout_ns, timer);
    return true;
}

bool ks_client_arrived(ks_client_conn *cc, uint32_t id)
{
    for (uint32_t i = 0; i < cc->len; i++) {
        if (at(cc, i)->id == id) {
            at(cc, i)->arrived = true;
            return true;
        }
    }
    return false;
}

uint32_t ks_client_take(ks_client_conn *cc)
{
    if (cc->len == 0)
        return KS_CLIENT_NONE;
    uint32_t id = at(cc, 0)->id;
    cc->head = (cc->head + 1u) % cc->cap;
    cc->len--;
    return id;
}

uint32_t ks_client_take_answered(ks_client_conn *cc)
{
    if (cc->len == 0 || !at(cc, 0)->arrived)
        return KS_CLIENT_NONE;
    return ks_client_take(cc);
}

void ks_client_rearm(ks_client_conn *cc, ks_sim *sim, ks_time timeout_ns, const ks_event *timer)
{
    if (cc->len > 0) {
        arm(cc, sim, timeout_ns, timer);
        return;
    }
    if (cc->timer != KS_HANDLE_NONE)
        ks_sim_cancel(sim, cc->timer);
    cc->timer = KS_HANDLE_NONE;
}

bool ks_client_on_timer(ks_client_conn *cc, ks_sim *sim, ks_time timeout_ns,
                        const ks_event *timer)
{
    cc->timer = KS_HANDLE_NONE;
    if (cc->len == 0)
        return false;
    if (ks_time_add(at(cc, 0)->sent_ns, timeout_ns) <= ks_sim_now(sim))
        return true;
    arm(cc, sim, timeout_ns, timer);
    return false;
}

uint32_t ks_client_close(ks_client_conn *cc, ks_sim *sim)
{
    cc->gen++;
    if (cc->timer != KS_HANDLE_NONE)
        ks_sim_cancel(sim, cc->timer);
    cc->timer = KS_HANDLE_NONE;
    return cc->len;
}

void ks_client_trace_disconnect(ks_trace *tr, unsigned kind, ks_time now, const char *key,
                                const char *id, uint32_t broker, const char *channel, uint32_t n,
                                ks_time timeout_ns)
{
    if (!tr || !ks_trace_begin(tr, now, kind))
        return;
    ks_trace_str(tr, key, id);
    ks_trace_u64(tr, "broker", broker);
    if (channel)
        ks_trace_str(tr, "channel", channel);
    ks_trace_u64(tr, "in_flight", n);
    ks_trace_str(tr, "error", "request timed out");
    ks_trace_u64(tr, "timeout_ms", (uint64_t)(timeout_ns / KS_NS_PER_MS));
    ks_trace_end(tr);
}
