/*
 * metrics.c - bucketed throughput and latency (see metrics.h).
 */
#include "models/metrics.h"

#include "models/events.h"
#include "models/trace_kinds.h"

#include <stdlib.h>
#include <string.h>

void ks_metrics_init(ks_metrics *m, ks_time bucket_ns)
{
    memset(m, 0, sizeof *m);
    m->bucket_ns = bucket_ns;
    ks_hist_init(&m->latency);
}

void ks_metrics_free(ks_metrics *m)
{
    ks_hist_free(&m->latency);
    free(m->series);
    free(m->p50);
    free(m->p99);
    m->series = NULL;
    m->p50 = m->p99 = NULL;
}

static void schedule_tick(ks_sim *sim, ks_time at)
{
    ks_event ev = {.kind = KS_EV_METRICS};
    ks_sim_schedule_daemon(sim, at, &ev);
}

void ks_metrics_start(ks_metrics *m, ks_sim *sim)
{
    if (m->bucket_ns > 0)
        schedule_tick(sim, m->bucket_ns);
}

static bool keep(ks_metrics *m, const ks_bucket *b, int64_t p50, int64_t p99)
{
    if (m->count >= KS_METRICS_SERIES_MAX)
        return true;
    if (m->count == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2u : 64u;
        ks_bucket *s = realloc(m->series, cap * sizeof *s);
        if (s)
            m->series = s;
        int64_t *a = realloc(m->p50, cap * sizeof *a);
        if (a)
            m->p50 = a;
        int64_t *c = realloc(m->p99, cap * sizeof *c);
        if (c)
            m->p99 = c;
        if (!s || !a || !c)
            return false;
        m->cap = cap;
    }
    m->series[m->count] = *b;
    m->p50[m->count] = p50;
    m->p99[m->count] = p99;
    return true;
}

/* Closes the bucket [start, end). */
static bool close_bucket(ks_metrics *m, ks_trace *tr, ks_time end)
{
    int64_t p50 = ks_hist_quantile(&m->latency, 50, 100);
    int64_t p99 = ks_hist_quantile(&m->latency, 99, 100);
    if (tr && ks_trace_begin(tr, end, KS_TR_METRICS)) {
        ks_trace_i64(tr, "from", m->start_ns);
        ks_trace_u64(tr, "produced", m->cur.produced);
        ks_trace_u64(tr, "acked", m->cur.acked);
        ks_trace_u64(tr, "failed", m->cur.failed);
        ks_trace_u64(tr, "bytes", m->cur.bytes);
        ks_trace_u64(tr, "requests", m->cur.requests);
        ks_trace_u64(tr, "batches", m->cur.batches);
        ks_trace_i64(tr, "latency_p50_ns", p50);
        ks_trace_i64(tr, "latency_p99_ns", p99);
        ks_trace_i64(tr, "latency_max_ns", m->latency.count ? m->latency.max : 0);
        ks_trace_end(tr);
    }
    bool kept = keep(m, &m->cur, p50, p99);
    m->count++;
    memset(&m->cur, 0, sizeof m->cur);
    ks_hist_reset(&m->latency);
    m->start_ns = end;
    return kept;
}

bool ks_metrics_on_tick(ks_metrics *m, ks_sim *sim, ks_trace *tr)
{
    ks_time now = ks_sim_now(sim);
    bool kept = close_bucket(m, tr, now);
    schedule_tick(sim, ks_time_add(now, m->bucket_ns));
    return kept;
}

bool ks_metrics_finish(ks_metrics *m, ks_sim *sim, ks_trace *tr)
{
    ks_time now = ks_sim_now(sim);
    if (m->bucket_ns > 0 && (now > m->start_ns || m->cur.produced || m->cur.acked))
        return close_bucket(m, tr, now);
    return true;
}

static json_t *u64_array(const ks_bucket *s, uint32_t n, size_t offset)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, (const char *)&s[i] + offset, sizeof v);
        json_array_append_new(a, json_integer((json_int_t)v));
    }
    return a;
}

json_t *ks_metrics_json(const ks_metrics *m)
{
    json_t *o = json_object();
    uint32_t n = m->count < KS_METRICS_SERIES_MAX ? m->count : KS_METRICS_SERIES_MAX;
    json_object_set_new(o, "bucket_ns", json_integer(m->bucket_ns));
    json_object_set_new(o, "buckets", json_integer(m->count));
    json_object_set_new(o, "truncated", json_boolean(m->count > n));
    json_object_set_new(o, "acked", u64_array(m->series, n, offsetof(ks_bucket, acked)));
    json_object_set_new(o, "failed", u64_array(m->series, n, offsetof(ks_bucket, failed)));
    json_object_set_new(o, "bytes", u64_array(m->series, n, offsetof(ks_bucket, bytes)));
    json_object_set_new(o, "requests", u64_array(m->series, n, offsetof(ks_bucket, requests)));
    json_t *p50 = json_array(), *p99 = json_array();
    for (uint32_t i = 0; i < n; i++) {
        json_array_append_new(p50, json_integer(m->p50[i]));
        json_array_append_new(p99, json_integer(m->p99[i]));
    }
    json_object_set_new(o, "latency_p50_ns", p50);
    json_object_set_new(o, "latency_p99_ns", p99);
    return o;
}
