/*
 * summary.c - the run's results as one JSON object (see world.h and
 * docs/trace.md, "Summary").
 *
 * Keys never contain dots, so that a dotted path such as
 * "latency_ns.p99" in an expect block names exactly one value.
 * Durations are integer nanoseconds (suffix _ns), like the trace.
 */
#include "models/world.h"

#include "models/check/checker.h"

#include "ks_version.h"

#include <stdio.h>

#define SUMMARY_FORMAT 1

static json_t *hist_json(const ks_hist *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "count", json_integer((json_int_t)h->count));
    json_object_set_new(o, "min", json_integer(h->count ? h->min : 0));
    json_object_set_new(o, "mean", json_real(ks_hist_mean_real(h)));
    json_object_set_new(o, "p50", json_integer(ks_hist_quantile(h, 50, 100)));
    json_object_set_new(o, "p90", json_integer(ks_hist_quantile(h, 90, 100)));
    json_object_set_new(o, "p95", json_integer(ks_hist_quantile(h, 95, 100)));
    json_object_set_new(o, "p99", json_integer(ks_hist_quantile(h, 99, 100)));
    json_object_set_new(o, "p999", json_integer(ks_hist_quantile(h, 999, 1000)));
    json_object_set_new(o, "max", json_integer(h->count ? h->max : 0));
    return o;
}

/* What the codec did over the run: every batch closed compressed, its
 * records' bytes before and the batch's size after (header included),
 * and their ratio in parts per million. */
static json_t *compression_json(const ks_acc *a)
{
    json_t *c = json_object();
    json_object_set_new(c, "batches", json_integer((json_int_t)a->compressed_batches));
    json_object_set_new(c, "uncompressed_bytes", json_integer((json_int_t)a->compressed_raw_bytes));
    json_object_set_new(c, "compressed_bytes", json_integer((json_int_t)a->compressed_bytes));
    json_int_t ppm = 0;
    if (a->compressed_raw_bytes > 0)
        ppm = (json_int_t)(((unsigned __int128)a->compressed_bytes * 1000000u +
                            a->compressed_raw_bytes / 2u) / a->compressed_raw_bytes);
    json_object_set_new(c, "ratio_ppm", json_integer(ppm));
    return c;
}

static json_t *producers_json(const ks_world *w, ks_hist *all)
{
    json_t *o = json_object();
    for (uint32_t i = 0; i < w->producer_count; i++) {
        const ks_producer *p = &w->producers[i];
        json_t *j = json_object();
        json_object_set_new(j, "produced", json_integer((json_int_t)p->produced));
        json_object_set_new(j, "acked", json_integer((json_int_t)p->acked));
        json_object_set_new(j, "failed", json_integer((json_int_t)p->failed));
        json_object_set_new(j, "partitioner", json_string(ks_partitioner_name(p->part.kind)));
        json_t *firsts = json_array();
        for (uint32_t k = 0; k < p->first_count; k++)
            json_array_append_new(firsts, p->first_partitions[k] == UINT32_MAX
                                              ? json_integer(-1)
                                              : json_integer(p->first_partitions[k]));
        json_object_set_new(j, "first_partitions", firsts);
        /* offsets told: a number, -1 unknown (acks=0), "failed", null (never told) */
        json_t *offs = json_array();
        for (uint32_t k = 0; k < p->first_count; k++) {
            int64_t off = p->first_offsets[k];
            json_array_append_new(offs, off == KS_OFFSET_FAILED  ? json_string("failed")
                                        : off == KS_OFFSET_UNTOLD ? json_null()
                                                                  : json_integer(off));
        }
        json_object_set_new(j, "first_offsets", offs);
        if (p->config_error[0])
            json_object_set_new(j, "error", json_string(p->config_error));
        json_object_set_new(j, "idempotent", json_boolean(p->set.idempotent));
        if (p->producer_id >= 0) {
            json_object_set_new(j, "producer_id", json_integer(p->producer_id));
            json_object_set_new(j, "epoch", json_integer(p->epoch));
        }
        json_object_set_new(j, "requests", json_integer((json_int_t)p->requests));
        json_object_set_new(j, "retries", json_integer((json_int_t)p->retries));
        if (p->splits > 0) /* only then: older summaries read as they did */
            json_object_set_new(j, "splits", json_integer((json_int_t)p->splits));
        if (p->tm.transactional) {
            json_object_set_new(j, "transactional_id",
                                json_string(p->conf->config[KS_PCFG_TRANSACTIONAL_ID].s));
            json_object_set_new(j, "transactions_committed",
                                json_integer((json_int_t)p->tm.committed));
            json_object_set_new(j, "transactions_aborted", json_integer((json_int_t)p->tm.aborted));
            json_object_set_new(j, "fenced", json_boolean(p->tm.state == KS_TM_FATAL_ERROR));
        }
        json_object_set_new(j, "expired", json_integer((json_int_t)p->expired));
        json_object_set_new(j, "disconnects", json_integer((json_int_t)p->connection_closes));
        json_object_set_new(j, "epoch_bumps", json_integer((json_int_t)p->epoch_bumps));
        json_object_set_new(j, "responses", json_integer((json_int_t)p->responses));
        json_object_set_new(j, "batches", json_integer((json_int_t)p->batches));
        json_object_set_new(j, "partition_switches", json_integer(p->part.switches));
        json_object_set_new(j, "blocked", json_integer((json_int_t)p->blocked_count));
        json_object_set_new(j, "blocked_ns", json_integer(p->blocked_ns_total));
        json_object_set_new(j, "buffer_used_max", json_integer((json_int_t)p->acc.memory_used_max));
        json_object_set_new(j, "sender_busy_ns", json_integer(p->sender_busy_ns));
        json_object_set_new(j, "app_busy_ns", json_integer(p->app_busy_ns));
        json_object_set_new(j, "latency_ns", hist_json(&p->hist[KS_PH_LATENCY]));
        json_object_set_new(j, "batch_records", hist_json(&p->hist[KS_PH_BATCH_RECORDS]));
        json_object_set_new(j, "batch_bytes", hist_json(&p->hist[KS_PH_BATCH_BYTES]));
        if (p->acc.compressed) /* only then: uncompressed runs' summaries read as they did */
            json_object_set_new(j, "compression", compression_json(&p->acc));
        json_object_set_new(j, "request_batches", hist_json(&p->hist[KS_PH_REQUEST_BATCHES]));
        json_object_set_new(o, p->conf->id, j);
        ks_hist_merge(all, &p->hist[KS_PH_LATENCY]);
    }
    return o;
}

static json_t *brokers_json(const ks_world *w)
{
    json_t *arr = json_array();
    ks_time now = ks_sim_now(&w->ctx.sim);
    for (uint32_t b = 0; b < w->broker_count; b++) {
        const ks_broker *br = &w->brokers[b];
        json_t *j = json_object();
        json_object_set_new(j, "id", json_integer(b));
        json_object_set_new(j, "requests", json_integer((json_int_t)br->io.requests));
        json_object_set_new(j, "records", json_integer((json_int_t)br->leader.records));
        json_object_set_new(j, "bytes_in", json_integer((json_int_t)br->io.bytes_in));
        ks_time busy = ks_broker_busy_ns(br, now);
        json_object_set_new(j, "busy_ns", json_integer(busy));
        /* utilisation in parts per million of (threads x run time) */
        json_int_t ppm = 0;
        if (now > 0)
            ppm = (json_int_t)((unsigned __int128)busy * 1000000u /
                               ((unsigned __int128)now * br->io.threads));
        json_object_set_new(j, "utilization_ppm", json_integer(ppm));
        json_object_set_new(j, "queue_max", json_integer(br->io.queue_len_max));
        if (br->leader.too_large > 0)
            json_object_set_new(j, "too_large", json_integer((json_int_t)br->leader.too_large));
        json_array_append_new(arr, j);
    }
    return arr;
}

/* A partition as the summary shows it: its place in the cluster's
 * metadata and its replica at the leader. */
typedef struct part_view {
    uint32_t number, topic, index, leader;
    const ks_replica *rep;   /* NULL: no replica (then every count is 0) */
} part_view;

/* Partition number p, if it exists. */
static bool view_of(const ks_world *w, uint32_t p, part_view *v)
{
    uint32_t leader = ks_meta_leader(&w->meta, p);
    if (leader == KS_META_NO_LEADER)
        return false;
    *v = (part_view){.number = p, .topic = ks_meta_topic_of(&w->meta, p),
                     .index = ks_meta_index_of(&w->meta, p), .leader = leader,
                     .rep = ks_broker_replica(&w->brokers[leader], p)};
    return true;
}

/* One partition's object of the summary's "partitions". */
static json_t *partition_json(const part_view *v)
{
    static const ks_replica none = {.log_end_offset = 0};
    const ks_replica *p = v->rep ? v->rep : &none;
    json_t *j = json_object();
    json_object_set_new(j, "leader", json_integer(v->leader));
    json_object_set_new(j, "records", json_integer((json_int_t)p->records));
    json_object_set_new(j, "batches", json_integer((json_int_t)p->batches));
    json_object_set_new(j, "log_end_offset", json_integer(p->log_end_offset));
    if (p->logged) {
        json_object_set_new(j, "high_watermark", json_integer(p->log->hw));
        json_object_set_new(j, "last_stable_offset", json_integer(ks_plog_lso(p->log)));
        uint32_t markers = 0;
        for (uint32_t b = 0; b < p->log->count; b++)
            markers += p->log->batches[b].control;
        json_object_set_new(j, "markers", json_integer(markers));
        json_object_set_new(j, "aborted_transactions", json_integer(p->log->naborted));
    }
    return j;
}

/* The "partitions" object: every partition. */
static json_t *partitions_json(const ks_world *w)
{
    json_t *o = json_object();
    part_view v;
    for (uint32_t i = 0; i < w->meta.partition_count; i++) {
        if (!view_of(w, i, &v))
            continue;
        json_object_set_new(o, w->partition_names[i], partition_json(&v));
    }
    return o;
}

/* The partition an expect key "partitions.TOPIC-N[.field]" names, or
 * UINT32_MAX (topic names may hold dots, so each topic's name is tried
 * whole). */
static uint32_t expected_partition(const ks_world *w, const char *key)
{
    if (strncmp(key, "partitions.", 11) != 0)
        return UINT32_MAX;
    const char *rest = key + 11;
    for (uint32_t t = 0; t < w->sc->topic_count; t++) {
        size_t len = strlen(w->sc->topics[t].name);
        if (strncmp(rest, w->sc->topics[t].name, len) != 0 || rest[len] != '-')
            continue;
        const char *d = rest + len + 1;
        uint64_t n = 0;
        size_t digits = 0;
        for (; *d >= '0' && *d <= '9' && digits < 10; d++, digits++)
            n = n * 10 + (uint64_t)(*d - '0');
        if (digits == 0 || (*d != '.' && *d != '\0') || n >= w->meta.topic_partitions[t] ||
            (digits > 1 && rest[len + 1] == '0'))
            continue;
        return w->meta.topic_first[t] + (uint32_t)n;
    }
    return UINT32_MAX;
}

/* The "partitions" object with only the partitions the expect block
 * names, for checking it when the whole object is written as text. */
static json_t *expected_partitions_json(const ks_world *w)
{
    json_t *o = json_object();
    const char *k;
    json_t *val;
    part_view v;
    json_object_foreach(w->sc->expect, k, val) {
        uint32_t p = expected_partition(w, k);
        if (p == UINT32_MAX || !view_of(w, p, &v))
            continue;
        if (!json_object_get(o, w->partition_names[p]))
            json_object_set_new(o, w->partition_names[p], partition_json(&v));
    }
    return o;
}

/* Per partition of a consumer, keyed "TOPIC-N": one of its offset arrays. */
static json_t *offsets_json(const ks_world *w, const ks_consumer *c, const int64_t *offsets)
{
    json_t *o = json_object();
    for (uint32_t k = 0; k < c->nparts; k++)
        json_object_set_new(o, w->partition_names[c->parts[k]], json_integer(offsets[k]));
    return o;
}

static json_t *consumers_json(const ks_world *w)
{
    json_t *o = json_object();
    for (uint32_t i = 0; i < w->consumer_count; i++) {
        const ks_consumer *c = &w->consumers[i];
        json_t *j = json_object();
        json_object_set_new(j, "isolation_level",
                            json_string(c->conf->read_committed ? "read_committed"
                                                                : "read_uncommitted"));
        json_object_set_new(j, "polls", json_integer((json_int_t)c->polls));
        json_object_set_new(j, "records", json_integer((json_int_t)c->records));
        json_object_set_new(j, "read_aborted", json_integer((json_int_t)ks_checker_read_aborted(w->checker, c->index)));
        json_object_set_new(j, "commits", json_integer((json_int_t)c->commits));
        json_object_set_new(j, "crashes", json_integer((json_int_t)c->crashes));
        json_object_set_new(j, "restarts", json_integer((json_int_t)c->restarts));
        json_object_set_new(j, "positions", offsets_json(w, c, c->position));
        json_object_set_new(j, "committed", offsets_json(w, c, c->committed));
        json_object_set_new(o, c->conf->id, j);
    }
    return o;
}

static json_t *network_json(const ks_world *w)
{
    uint64_t msgs[2] = {0, 0}, bytes[2] = {0, 0};
    for (uint32_t c = 0; c < w->net.conn_count; c++) {
        for (int d = 0; d < 2; d++) {
            msgs[d] += w->net.conns[c].lane[d].messages;
            bytes[d] += w->net.conns[c].lane[d].bytes;
        }
    }
    json_t *o = json_object();
    json_object_set_new(o, "requests", json_integer((json_int_t)msgs[0]));
    json_object_set_new(o, "request_bytes", json_integer((json_int_t)bytes[0]));
    json_object_set_new(o, "responses", json_integer((json_int_t)msgs[1]));
    json_object_set_new(o, "response_bytes", json_integer((json_int_t)bytes[1]));
    return o;
}

/* The run itself: format, versions, verdict, virtual time, events. */
static void run_json(json_t *o, const ks_world *w)
{
    const ks_sim *s = &w->ctx.sim;
    json_object_set_new(o, "format", json_integer(SUMMARY_FORMAT));
    json_object_set_new(o, "ksim", json_string(KS_VERSION));
    json_object_set_new(o, "scenario", json_string(w->sc->name));
    json_object_set_new(o, "seed", json_integer((json_int_t)w->sc->seed));
    json_object_set_new(o, "kafka", json_string(w->sc->kafka_version_text));
    json_object_set_new(o, "verdict", json_string(ks_sim_verdict_name(s->verdict)));
    json_object_set_new(o, "time_ns", json_integer(ks_sim_now(s)));
    json_object_set_new(o, "events", json_integer((json_int_t)s->dispatched));
    json_t *kinds = json_object();
    for (int k = 0; k < KS_EV__COUNT; k++)
        json_object_set_new(kinds, ks_event_kind_name((ks_event_kind)k),
                            json_integer((json_int_t)s->dispatched_by_kind[k]));
    json_object_set_new(o, "events_by_kind", kinds);
    json_object_set_new(o, "events_pending", json_integer(ks_sim_pending(s)));
}

/* "records", "latency_ns" and "throughput" over all producers; returns
 * the "producers" object, which the summary places after them. */
static json_t *records_json(json_t *o, const ks_world *w)
{
    ks_hist all;
    ks_hist_init(&all);
    json_t *prods = producers_json(w, &all);
    uint64_t produced = 0, acked = 0, failed = 0, bytes = 0;
    ks_time first = -1, last = 0;
    for (uint32_t i = 0; i < w->producer_count; i++) {
        const ks_producer *p = &w->producers[i];
        produced += p->produced;
        acked += p->acked;
        failed += p->failed;
        bytes += p->record_bytes;
        if (p->produced && (first < 0 || p->first_produce_ns < first))
            first = p->first_produce_ns;
        if (p->last_ack_ns > last)
            last = p->last_ack_ns;
    }
    json_t *rec = json_object();
    json_object_set_new(rec, "produced", json_integer((json_int_t)produced));
    json_object_set_new(rec, "acked", json_integer((json_int_t)acked));
    json_object_set_new(rec, "failed", json_integer((json_int_t)failed));
    json_object_set_new(rec, "unresolved", json_integer((json_int_t)(produced - acked - failed)));
    json_object_set_new(o, "records", rec);
    json_object_set_new(o, "latency_ns", hist_json(&all));
    ks_hist_free(&all);

    /* Throughput over the span from the first send() to the last ack, in
     * records and bytes per second of virtual time. */
    json_t *thr = json_object();
    ks_time span = first >= 0 && last > first ? last - first : 0;
    json_object_set_new(thr, "span_ns", json_integer(span));
    json_object_set_new(thr, "records_per_sec",
                        json_integer(span ? (json_int_t)((double)acked * 1e9 / (double)span) : 0));
    json_object_set_new(thr, "bytes_per_sec",
                        json_integer(span ? (json_int_t)((double)bytes * 1e9 / (double)span) : 0));
    json_object_set_new(thr, "series", ks_metrics_json(&w->ctx.metrics));
    json_object_set_new(o, "throughput", thr);
    return prods;
}

/* Each transactional.id as its coordinator ends the run. */
static json_t *transactions_json(const ks_world *w)
{
    json_t *txns = json_object();
    for (uint32_t b = 0; b < w->broker_count; b++) {
      for (uint32_t i = 0; i < w->brokers[b].coord.count; i++) {
        const ks_coord_txn *t = &w->brokers[b].coord.txns[i];
        json_t *j = json_object();
        json_object_set_new(j, "coordinator", json_integer(t->broker));
        json_object_set_new(j, "state", json_string(ks_txn_state_name(t->meta.state)));
        json_object_set_new(j, "producer_id", json_integer(t->meta.producer_id));
        json_object_set_new(j, "epoch", json_integer(t->meta.epoch));
        json_object_set_new(j, "transitions", json_integer(t->meta.transitions));
        json_object_set_new(txns, t->meta.transactional_id, j);
      }
    }
    return txns;
}

static json_t *faults_json(const ks_world *w)
{
    json_t *faults = json_array();
    for (uint32_t i = 0; i < w->faults.n; i++) {
        json_t *j = json_object();
        json_object_set_new(j, "type", json_string(ks_fault_type_name(w->faults.conf[i].type)));
        json_object_set_new(j, "hits", json_integer(w->faults.hits[i]));
        json_array_append_new(faults, j);
    }
    return faults;
}

/* Text on its way to a file, through a buffer of its own (one fwrite per
 * 64 KiB: a 100 000-partition object is some 8 MB, never held whole);
 * `failed` once a write failed. */
typedef struct text {
    FILE *f;
    size_t len;
    bool failed;
    char s[65536];
} text;

static void text_flush(text *t)
{
    if (!t->failed && t->len && fwrite(t->s, 1, t->len, t->f) != t->len)
        t->failed = true;
    t->len = 0;
}

static void text_put(text *t, const char *s, size_t n)
{
    if (t->len + n > sizeof t->s)
        text_flush(t);
    if (n > sizeof t->s) {
        t->failed |= fwrite(s, 1, n, t->f) != n;
        return;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
}

static void text_str(text *t, const char *s) { text_put(t, s, strlen(s)); }

static void text_i64(text *t, int64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[--i] = (char)('0' + (int)(u % 10u));
        u /= 10u;
    } while (u);
    if (v < 0)
        tmp[--i] = '-';
    text_put(t, tmp + i, sizeof tmp - i);
}

/* One "key": value member of a partition, as jansson indents it at depth 3. */
static void text_member(text *t, bool first, const char *key, int64_t v)
{
    text_str(t, first ? "\n      \"" : ",\n      \"");
    text_str(t, key);
    text_str(t, "\": ");
    text_i64(t, v);
}

/* Writes the "partitions" object to f as json_dumpf(JSON_INDENT(2))
 * writes it at depth 1: the same members as partitions_json, in the same
 * order (topic names need no escapes: [a-zA-Z0-9._-]). False when memory
 * ran out or a write failed. */
static bool partitions_text(const ks_world *w, FILE *f)
{
    text *tp = malloc(sizeof *tp);
    if (!tp)
        return false;
    tp->f = f;
    tp->len = 0;
    tp->failed = false;
    bool any = false;
    static const ks_replica none = {.log_end_offset = 0};
    part_view v;
    for (uint32_t i = 0; i < w->meta.partition_count; i++) {
        if (!view_of(w, i, &v))
            continue;
        const ks_replica *p = v.rep ? v.rep : &none;
        text_str(tp, any ? ",\n    \"" : "{\n    \"");
        any = true;
        text_str(tp, w->sc->topics[v.topic].name);
        text_str(tp, "-");
        text_i64(tp, v.index);
        text_str(tp, "\": {");
        text_member(tp, true, "leader", v.leader);
        text_member(tp, false, "records", (int64_t)p->records);
        text_member(tp, false, "batches", (int64_t)p->batches);
        text_member(tp, false, "log_end_offset", p->log_end_offset);
        if (p->logged) {
            uint32_t markers = 0;
            for (uint32_t b = 0; b < p->log->count; b++)
                markers += p->log->batches[b].control;
            text_member(tp, false, "high_watermark", p->log->hw);
            text_member(tp, false, "last_stable_offset", ks_plog_lso(p->log));
            text_member(tp, false, "markers", markers);
            text_member(tp, false, "aborted_transactions", p->log->naborted);
        }
        text_str(tp, "\n    }");
    }
    text_str(tp, any ? "\n  }" : "{}");
    text_flush(tp);
    bool ok = !tp->failed;
    free(tp);
    return ok;
}

/* Does the expect block read the "partitions" object whole? */
static bool expect_reads_all_partitions(const ks_world *w)
{
    return json_object_get(w->sc->expect, "partitions") != NULL;
}

static json_t *summary_tree(const ks_world *w, json_t *partitions);

json_t *ks_world_summary(const ks_world *w)
{
    return summary_tree(w, partitions_json(w));
}

json_t *ks_world_summary_lean(const ks_world *w, bool *lean)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->meta.partition_count && n <= KS_SUMMARY_TREE_PARTITIONS; i++)
        n += ks_meta_leader(&w->meta, i) != KS_META_NO_LEADER;
    *lean = n > KS_SUMMARY_TREE_PARTITIONS && !expect_reads_all_partitions(w);
    if (!*lean)
        return ks_world_summary(w);
    return summary_tree(w, expected_partitions_json(w));
}

int ks_summary_dumpf(const json_t *summary, const ks_world *lean, FILE *f, size_t flags)
{
    if (!lean)
        return json_dumpf(summary, f, flags);
    /* the tree's "partitions" holds only what the expect block reads: a
     * shallow copy with null there, where the text goes */
    json_t *shallow = json_copy((json_t *)summary);
    if (!shallow || json_object_set_new(shallow, "partitions", json_null()) != 0) {
        json_decref(shallow);
        return -1;
    }
    char *s = json_dumps(shallow, flags);
    json_decref(shallow);
    const char *mark = "\n  \"partitions\": null"; /* only a top-level key is there */
    char *at = s ? strstr(s, mark) : NULL;
    if (!at) {
        free(s);
        return -1;
    }
    at += strlen(mark) - 4;
    int rc = fwrite(s, 1, (size_t)(at - s), f) == (size_t)(at - s) && partitions_text(lean, f) &&
                     fputs(at + 4, f) >= 0
                 ? 0
                 : -1;
    free(s);
    return rc;
}

static json_t *summary_tree(const ks_world *w, json_t *partitions)
{
    json_t *o = json_object();
    run_json(o, w);
    json_t *prods = records_json(o, w);
    json_object_set_new(o, "producers", prods);
    json_object_set_new(o, "brokers", brokers_json(w));
    json_object_set_new(o, "partitions", partitions);
    json_object_set_new(o, "consumers", consumers_json(w));
    json_object_set_new(o, "network", network_json(w));
    bool txns = false;
    for (uint32_t b = 0; b < w->broker_count; b++)
        txns = txns || w->brokers[b].coord.count > 0;
    if (txns)
        json_object_set_new(o, "transactions", transactions_json(w));
    json_object_set_new(o, "delivery", w->delivery ? json_deep_copy(w->delivery) : json_null());
    json_object_set_new(o, "faults", faults_json(w));
    return o;
}
