/*
 * producer_section.c - the scenario's "producers" section, loaded and
 * written back (see producer_section.h). Reads only the document, the
 * topics already loaded and the Kafka version.
 */
#include "models/producer/producer_section.h"

#include "models/broker/topic_section.h"
#include "models/kafka/config_json.h"
#include "models/scenario_types.h"
#include "sim/detmath.h"
#include "sim/str.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const partitioner_names[] = {
#define X(e, name) name,
    KS_PARTITIONER_CHOICES(X)
#undef X
};

const char *ks_partitioner_choice_name(ks_partitioner_choice c)
{
    assert((unsigned)c < (unsigned)KS_PCHOICE__COUNT);
    return partitioner_names[c];
}

static const char *const txn_end_names[] = {
#define X(e, name) name,
    KS_TXN_ENDS(X)
#undef X
};

static const char *const txn_protocol_names[] = {
#define X(e, name) name,
    KS_TXN_PROTOCOLS(X)
#undef X
};

const char *ks_txn_end_name(ks_txn_end e)
{
    assert((unsigned)e < (unsigned)KS_TXN_END__COUNT);
    return txn_end_names[e];
}

const char *ks_txn_protocol_name(ks_txn_protocol pr)
{
    assert((unsigned)pr < (unsigned)KS_TXNP__COUNT);
    return txn_protocol_names[pr];
}

/* Codec defaults (docs/scenario.md, "Compression"). Order: none gzip
 * snappy lz4 zstd, as compression.type's choices.
 *
 * ratio: the asymptotic ratio for text-like records (JSON, logs); lzbench
 * on the Silesia corpus gives lz4 0.476, snappy 0.479, zlib -1 0.365 and
 * zstd -1 0.348 (facebook/zstd README); log-like text compresses better,
 * hence ksim's 0.45, 0.45, 0.25 and 0.28. Speeds: one modern core, the
 * same benchmarks' order of magnitude. To be replaced with measurements
 * of one's own data.
 *
 * Framing, from the formats Kafka's producer writes (each batch is one
 * stream of its codec, [K] common/compress/):
 *   gzip: java.util.zip.GZIPOutputStream, RFC 1952: a 10-byte header and
 *         an 8-byte trailer (CRC-32, ISIZE);
 *   snappy: xerial SnappyOutputStream: a 16-byte header (8 bytes of magic,
 *         version, compatible version), then a 4-byte length per chunk of
 *         up to 32 KiB;
 *   lz4: Kafka's Lz4BlockOutputStream (LZ4 frame format): magic 4, FLG,
 *         BD and header checksum 1 each, a 4-byte size per block of up to
 *         64 KiB, a 4-byte end mark, no block or content checksum;
 *   zstd: zstd-jni's ZstdOutputStream, RFC 8878: magic 4, frame header
 *         descriptor 1, window descriptor 1 (streamed: no content size),
 *         no checksum; a 3-byte header per block of up to 128 KiB.
 *
 * warmup_bytes L (r is halfway from 1 to ratio at L raw bytes) is ksim's
 * assumption, set so that one 4 KiB text file comes out as measured
 * alone: lz4 1.57:1 (0.64) and gzip -1 2.24:1 (0.45) (donghao.org, "LZ4
 * and GZIP on a 4KB file"): L = 2048 gives lz4 0.63, 1536 gives gzip 0.45;
 * snappy is lz4's kind, zstd gets lz4's L for want of a measurement. The
 * zstd README says the same in words: on small inputs "there is no past
 * to build upon", and a dictionary's gains are "mostly effective in the
 * first few KB". */
static const ks_compression_conf codec_defaults[5] = {
    /* ratio  L     frame block size    compress decompress (ps/byte) */
    {1.00, 0,    0,  0, 0,      0,     0},    /* none */
    {0.25, 1536, 18, 0, 0,      20000, 4000}, /* gzip: ~50 MB/s in, ~250 MB/s out */
    {0.45, 2048, 16, 4, 32768,  2000,  1000}, /* snappy: ~500 MB/s, ~1 GB/s */
    {0.45, 2048, 11, 4, 65536,  1500,  300},  /* lz4: ~650 MB/s, ~3 GB/s */
    {0.28, 2048, 6,  3, 131072, 4000,  1000}, /* zstd level 3: ~250 MB/s, ~1 GB/s */
};

/* "compression": {"ratio", "warmup.bytes", "frame.bytes", "block.bytes",
 * "block.size", "compress.ns.per.byte", "decompress.ns.per.byte"} over
 * the defaults of the producer's compression.type. */
static void load_compression(ks_conf *L, json_t *obj, ks_producer_conf *pc)
{
    static const char *const keys[] = {"ratio", "warmup.bytes", "frame.bytes", "block.bytes",
                                       "block.size", "compress.ns.per.byte",
                                       "decompress.ns.per.byte", NULL};
    ks_compression_conf *c = &pc->compression;
    *c = codec_defaults[pc->config[KS_PCFG_COMPRESSION_TYPE].i];
    if (!obj)
        return;
    size_t m = ks_conf_enter(L, "compression");
    if (!json_is_object(obj)) {
        ks_conf_err_got(L, obj, "an object");
    } else {
        ks_conf_check_keys(L, obj, keys, NULL);
        double d;
        ks_conf_get_real(L, obj, "ratio", 0.01, false, 1.0, &c->ratio);
        ks_conf_get_u32(L, obj, "warmup.bytes", 0, 1u << 30, &c->warmup_bytes);
        ks_conf_get_u32(L, obj, "frame.bytes", 0, 65536, &c->frame_bytes);
        ks_conf_get_u32(L, obj, "block.bytes", 0, 65536, &c->block_bytes);
        ks_conf_get_u32(L, obj, "block.size", 0, 1u << 30, &c->block_size);
        if (ks_conf_get_real(L, obj, "compress.ns.per.byte", 0.0, false, 1e6, &d))
            c->compress_ps = ks_round_i64(d * 1e3);
        if (ks_conf_get_real(L, obj, "decompress.ns.per.byte", 0.0, false, 1e6, &d))
            c->decompress_ps = ks_round_i64(d * 1e3);
        if (pc->config[KS_PCFG_COMPRESSION_TYPE].i == 0 &&
            (c->ratio != 1.0 || c->warmup_bytes || c->frame_bytes || c->block_bytes ||
             c->block_size))
            ks_conf_err(L, "compression.type is none: a ratio other than 1, or a codec's "
                           "warm-up and framing, have no codec to come from");
    }
    ks_conf_leave(L, m);
}

/* "transactions": how a transactional producer's application groups its
 * records. Needs transactional.id; a transactional.id without it gets
 * the defaults (one record per transaction, committed). */
static void load_transactions(ks_conf *L, json_t *obj, ks_kafka_version kv, ks_producer_conf *pc)
{
    static const char *const keys[] = {"records", "end", "end.delay.ms", "protocol", NULL};
    ks_txn_conf *t = &pc->txn;
    t->enabled = pc->config[KS_PCFG_TRANSACTIONAL_ID].s != NULL;
    t->records = 1;
    t->protocol = KS_TXNP_DEFAULT;
    t->ends = malloc(sizeof *t->ends);
    if (!t->ends) {
        ks_conf_err(L, "out of memory");
        return;
    }
    t->ends[0] = KS_TXN_END_COMMIT;
    t->end_count = 1;
    if (!obj)
        return;
    size_t mark = ks_conf_enter(L, "transactions");
    if (!json_is_object(obj)) {
        ks_conf_err_got(L, obj, "an object such as {\"records\": 10, \"end\": \"commit\"}");
        ks_conf_leave(L, mark);
        return;
    }
    ks_conf_check_keys(L, obj, keys, NULL);
    if (!t->enabled)
        ks_conf_err(L, "transactions need a transactional.id in the producer's config");
    ks_conf_get_u32(L, obj, "records", 1, 1000000, &t->records);
    ks_conf_get_ms(L, obj, "end.delay.ms", false, &t->end_delay_ns);
    json_t *pv = ks_conf_member(obj, "protocol");
    unsigned c;
    if (pv) {
        size_t m = ks_conf_enter(L, "protocol");
        if (ks_conf_check_choice(L, pv, txn_protocol_names, KS_TXNP__COUNT, &c))
            t->protocol = (ks_txn_protocol)c;
        if (t->protocol == KS_TXNP_KIP890 && kv < KS_KV(4, 0, 0))
            ks_conf_err(L, "KIP-890's transaction version 2 came with Kafka 4.0: set kafka.version to "
                   "\"4.0\" or later, or use \"classic\"");
        ks_conf_leave(L, m);
    }
    json_t *ev = ks_conf_member(obj, "end");
    if (ev) {
        size_t m = ks_conf_enter(L, "end");
        size_t n = json_is_array(ev) ? json_array_size(ev) : 1;
        if (n == 0 || n > 10000) {
            ks_conf_err_got(L, ev, "\"commit\", \"abort\", \"none\" or an array of them");
            ks_conf_leave(L, m);
            ks_conf_leave(L, mark);
            return;
        }
        ks_txn_end *ends = realloc(t->ends, n * sizeof *ends);
        if (!ends) {
            ks_conf_err(L, "out of memory");
            ks_conf_leave(L, m);
            ks_conf_leave(L, mark);
            return;
        }
        t->ends = ends;
        t->end_count = (uint32_t)n;
        for (size_t k = 0; k < n; k++) {
            bool list = json_is_array(ev);
            size_t mk = list ? ks_conf_enter_index(L, k) : 0;
            if (ks_conf_check_choice(L, list ? json_array_get(ev, k) : ev, txn_end_names,
                             KS_TXN_END__COUNT, &c))
                ends[k] = (ks_txn_end)c;
            if (list)
                ks_conf_leave(L, mk);
        }
        ks_conf_leave(L, m);
    }
    ks_conf_leave(L, mark);
}

static void load_producer(ks_conf *L, json_t *p, ks_scenario *sc, uint32_t i)
{
    static const char *const keys[] = {"id", "topic", "partitioner", "config", "workload",
                                       "cost", "compression", "transactions", NULL};
    static const char *const cost_keys[] = {"record.us", "batch.us", "request.us",
                                            "idempotent.batch.us", NULL};
    ks_producer_conf *pc = &sc->producers[i];
    ks_conf_check_keys(L, p, keys, NULL);
    pc->cost.record_ns = 500;
    pc->cost.batch_ns = 5 * KS_NS_PER_US;
    pc->cost.request_ns = 10 * KS_NS_PER_US;
    json_t *cost = NULL;
    if (ks_conf_get_object(L, p, "cost", &cost) && cost) {
        size_t mc = ks_conf_enter(L, "cost");
        ks_conf_check_keys(L, cost, cost_keys, NULL);
        double d;
        if (ks_conf_get_real(L, cost, "record.us", 0.0, false, 1e9, &d))
            pc->cost.record_ns = ks_round_i64(d * 1e3);
        if (ks_conf_get_real(L, cost, "batch.us", 0.0, false, 1e9, &d))
            pc->cost.batch_ns = ks_round_i64(d * 1e3);
        if (ks_conf_get_real(L, cost, "request.us", 0.0, false, 1e9, &d))
            pc->cost.request_ns = ks_round_i64(d * 1e3);
        if (ks_conf_get_real(L, cost, "idempotent.batch.us", 0.0, false, 1e9, &d))
            pc->cost.idempotent_batch_ns = ks_round_i64(d * 1e3);
        ks_conf_leave(L, mc);
    }
    const char *id = NULL;
    char defid[24];
    snprintf(defid, sizeof defid, "p%u", i + 1);
    if (!ks_conf_get_string(L, p, "id", false, &id))
        id = defid;
    size_t idlen = strlen(id);
    if (idlen == 0 || idlen > 100 ||
        strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != idlen) {
        size_t m = ks_conf_enter(L, "id");
        ks_conf_err(L, "\"%s\" is not a valid producer id: 1-100 characters of a-z A-Z 0-9 . _ -", id);
        ks_conf_leave(L, m);
    }
    for (uint32_t j = 0; j < i; j++) {
        if (sc->producers[j].id && strcmp(sc->producers[j].id, id) == 0) {
            size_t m = ks_conf_enter(L, "id");
            ks_conf_err(L, "producer id \"%s\" is used twice", id);
            ks_conf_leave(L, m);
        }
    }
    pc->id = ks_strdup(id);
    ks_topic_ref_load(L, p, sc, &pc->topic);
    pc->partitioner = KS_PCHOICE_DEFAULT;
    json_t *pv = ks_conf_member(p, "partitioner");
    if (pv) {
        size_t mp = ks_conf_enter(L, "partitioner");
        unsigned c;
        if (ks_conf_check_choice(L, pv, partitioner_names, KS_PCHOICE__COUNT, &c))
            pc->partitioner = (ks_partitioner_choice)c;
        ks_conf_leave(L, mp);
    }
    json_t *cfg = NULL, *wl = NULL;
    ks_conf_get_object(L, p, "config", &cfg);
    size_t m = ks_conf_enter(L, "config");
    ks_cfg_load_json(L, cfg, &ks_producer_configs, sc->kafka_version, pc->config);
    ks_conf_leave(L, m);
    ks_conf_get_object(L, p, "workload", &wl);
    m = ks_conf_enter(L, "workload");
    ks_workload_load(L, wl, &pc->workload);
    ks_conf_leave(L, m);
    load_compression(L, ks_conf_member(p, "compression"), pc);
    load_transactions(L, ks_conf_member(p, "transactions"), sc->kafka_version, pc);
}

void ks_producer_section_load(ks_conf *L, json_t *root, ks_scenario *sc)
{
    json_t *arr = ks_conf_member(root, "producers");
    size_t mark = ks_conf_enter(L, "producers");
    if (!arr || !json_is_array(arr) || json_array_size(arr) == 0 ||
        json_array_size(arr) > 10000) {
        if (!arr)
            ks_conf_err(L, "missing: a scenario needs at least one producer");
        else
            ks_conf_err_got(L, arr, "a non-empty array of at most 10000 producers");
        ks_conf_leave(L, mark);
        return;
    }
    sc->producer_count = (uint32_t)json_array_size(arr);
    sc->producers = calloc(sc->producer_count, sizeof *sc->producers);
    if (!sc->producers) {
        ks_conf_err(L, "out of memory");
        sc->producer_count = 0;
    }
    for (uint32_t i = 0; i < sc->producer_count; i++) {
        json_t *p = json_array_get(arr, i);
        size_t m = ks_conf_enter_index(L, i);
        if (json_is_object(p))
            load_producer(L, p, sc, i);
        else
            ks_conf_err_got(L, p, "a producer object");
        ks_conf_leave(L, m);
    }
    ks_conf_leave(L, mark);
}

static json_t *txn_json(const ks_txn_conf *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "records", json_integer(t->records));
    json_t *ends = json_array();
    for (uint32_t k = 0; k < t->end_count; k++)
        json_array_append_new(ends, json_string(ks_txn_end_name(t->ends[k])));
    json_object_set_new(o, "end", ends);
    json_object_set_new(o, "end.delay.ms", ks_conf_ms_json(t->end_delay_ns));
    json_object_set_new(o, "protocol", json_string(ks_txn_protocol_name(t->protocol)));
    return o;
}

static json_t *producer_json(const ks_scenario *sc, const ks_producer_conf *pc)
{
    json_t *p = json_object();
    json_object_set_new(p, "id", json_string(pc->id));
    json_object_set_new(p, "topic", json_string(sc->topics[pc->topic].name));
    json_object_set_new(p, "partitioner", json_string(ks_partitioner_choice_name(pc->partitioner)));
    json_object_set_new(p, "config", ks_config_json(&ks_producer_configs, pc->config, sc->kafka_version, true));
    json_object_set_new(p, "workload", ks_workload_json(&pc->workload));
    json_t *pcost = json_object();
    json_object_set_new(pcost, "record.us", ks_conf_number_json((double)pc->cost.record_ns / 1e3));
    json_object_set_new(pcost, "batch.us", ks_conf_number_json((double)pc->cost.batch_ns / 1e3));
    json_object_set_new(pcost, "request.us", ks_conf_number_json((double)pc->cost.request_ns / 1e3));
    if (pc->cost.idempotent_batch_ns != 0) /* 0 by default: resolved forms read as before */
        json_object_set_new(pcost, "idempotent.batch.us",
                            ks_conf_number_json((double)pc->cost.idempotent_batch_ns / 1e3));
    json_object_set_new(p, "cost", pcost);
    json_t *comp = json_object();
    json_object_set_new(comp, "ratio", json_real(pc->compression.ratio));
    if (pc->config[KS_PCFG_COMPRESSION_TYPE].i != 0) { /* none has no size model */
        json_object_set_new(comp, "warmup.bytes", json_integer(pc->compression.warmup_bytes));
        json_object_set_new(comp, "frame.bytes", json_integer(pc->compression.frame_bytes));
        json_object_set_new(comp, "block.bytes", json_integer(pc->compression.block_bytes));
        json_object_set_new(comp, "block.size", json_integer(pc->compression.block_size));
    }
    json_object_set_new(comp, "compress.ns.per.byte",
                        ks_conf_number_json((double)pc->compression.compress_ps / 1e3));
    json_object_set_new(comp, "decompress.ns.per.byte",
                        ks_conf_number_json((double)pc->compression.decompress_ps / 1e3));
    json_object_set_new(p, "compression", comp);
    if (pc->txn.enabled)
        json_object_set_new(p, "transactions", txn_json(&pc->txn));
    return p;
}

json_t *ks_producer_section_json(const ks_scenario *sc)
{
    json_t *prods = json_array();
    for (uint32_t i = 0; i < sc->producer_count; i++)
        json_array_append_new(prods, producer_json(sc, &sc->producers[i]));
    return prods;
}

void ks_producer_section_free(ks_scenario *sc)
{
    for (uint32_t i = 0; sc->producers && i < sc->producer_count; i++) {
        free(sc->producers[i].id);
        ks_workload_free(&sc->producers[i].workload);
        free(sc->producers[i].txn.ends);
    }
    free(sc->producers);
}
