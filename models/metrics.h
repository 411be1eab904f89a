/*
 * metrics.h - throughput and latency over virtual time, in fixed buckets.
 *
 * Owns: the current bucket's counters, the series of finished buckets for
 * the summary, and the "metrics" trace records. A bucket closes on a
 * daemon tick (it does not keep the run alive) and once more at the end
 * of the run for the partial last bucket. Producers count into the
 * current bucket; nothing here changes the simulation.
 */
#ifndef KS_METRICS_H
#define KS_METRICS_H

#include "sim/histogram.h"
#include "sim/sim.h"
#include "sim/trace.h"

#include <jansson.h>
#include <stdint.h>


/* Buckets kept for the summary; later ones are only traced. */
#define KS_METRICS_SERIES_MAX 10000u

typedef struct ks_bucket {
    uint64_t produced, acked, failed;
    uint64_t bytes;          /* key + value bytes acknowledged */
    uint64_t requests, batches;
} ks_bucket;

typedef struct ks_metrics {
    ks_time bucket_ns;       /* 0: no series */
    ks_time start_ns;        /* the current bucket's start */
    ks_bucket cur;
    ks_hist latency;         /* the current bucket's latencies */
    uint32_t count;          /* buckets closed */
    uint32_t cap;
    ks_bucket *series;
    int64_t *p50, *p99;      /* per closed bucket */
} ks_metrics;

void ks_metrics_init(ks_metrics *m, ks_time bucket_ns);
void ks_metrics_free(ks_metrics *m);
/* Schedules the first tick. */
void ks_metrics_start(ks_metrics *m, ks_sim *sim);
/* The tick: closes the bucket ending now (a "metrics" trace line) and
 * schedules the next. False when memory ran out keeping the bucket. */
bool ks_metrics_on_tick(ks_metrics *m, ks_sim *sim, ks_trace *tr);
/* Closes the last, partial bucket at the end of the run; false when
 * memory ran out. */
bool ks_metrics_finish(ks_metrics *m, ks_sim *sim, ks_trace *tr);
/* The series for the summary. */
json_t *ks_metrics_json(const ks_metrics *m);

#endif
