/*
 * json_mutator.c - a libFuzzer custom mutator for the scenario harnesses
 * (fuzz_scenario, fuzz_run): byte-level mutations mostly break the JSON,
 * and the loader then stops at the syntax error. Half of the time this
 * mutator parses the scenario (after its --set lines, fuzz_input.h) and
 * changes its structure instead: a value replaced by a boundary number,
 * another type or a copy of another part of the document, a member or
 * element deleted, a known key added (every ksim section and Kafka config
 * name), an array element duplicated; sometimes it writes a --set line
 * for a path of the document instead. The other half, and whenever the
 * scenario does not parse, it hands the input to libFuzzer's own
 * mutations (which use the dictionary).
 *
 * Linked only into -DKSIM_FUZZ=ON builds (LLVMFuzzerMutate is
 * libFuzzer's). Deterministic for a given seed, as libFuzzer requires.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "tests/fuzz/fuzz_target.h"

#include "models/kafka/config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#define MAX_NODES 2048

/* Keys of the scenario format (docs/scenario.md) a mutation may add. */
static const char *const ksim_keys[] = {
    "scenario.format", "name", "seed", "kafka.version", "limits", "max.events", "max.time.ms",
    "max.pending.events", "brokers", "count", "config", "cost", "overrides", "network",
    "latency.ms", "latency", "bandwidth.mbps", "topics", "partitions", "replication.factor",
    "producers", "id", "topic", "partitioner", "workload", "records", "arrival", "rate.per.sec",
    "start.ms", "key", "value.bytes", "burst.records", "burst.interval.ms", "compression",
    "transactions", "end", "end.delay.ms", "protocol", "consumers", "isolation.level",
    "group.id", "poll.interval.ms", "max.poll.records", "process.us", "commit", "forward.to",
    "admin", "at.ms", "create.partitions", "total", "faults", "type", "producer", "broker",
    "partition", "api", "request", "after.ms", "delay.ms", "error", "probability", "from.ms",
    "to.ms", "consumer", "restart.ms", "metrics", "bucket.ms", "expect", "producer.state.batches",
    "first.producer.id", "txn.log.write.ms", "request.us", "batch.us", "byte.ns", "record.us",
    "response.delay.ms", "uniform", "zipf", "keys", "s", "prefix", "min", "max", "ratio"};

static const double reals[] = {0.0, -0.0, 0.5, -1.5, 1e-9, 1e9, 1e18, 1e308, -1e308, 3.9};
static const json_int_t ints[] = {0, 1, -1, 2, 3, 5, 7, 100, 255, 1000, 16384, 65536,
                                  2147483647, -2147483648LL, 4294967295LL, 4294967296LL,
                                  1099511627776LL, 9007199254740993LL, INT64_MAX, INT64_MIN};

typedef struct node {
    json_t *v, *parent; /* parent NULL: the root */
    const char *key;    /* in an object parent */
    size_t index;       /* in an array parent */
} node;

typedef struct mut {
    uint64_t rng;
    node nodes[MAX_NODES];
    size_t n;
} mut;

static uint64_t draw(mut *m, uint64_t below)
{
    m->rng ^= m->rng << 13;
    m->rng ^= m->rng >> 7;
    m->rng ^= m->rng << 17;
    return below ? m->rng % below : 0;
}

static void collect(mut *m, json_t *v, json_t *parent, const char *key, size_t index)
{
    if (m->n == MAX_NODES)
        return;
    m->nodes[m->n++] = (node){v, parent, key, index};
    const char *k;
    json_t *c;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach(v, k, c) {
            collect(m, c, v, k, 0);
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, c) {
            collect(m, c, v, NULL, i);
        }
    }
}

static const char *random_key(mut *m)
{
    size_t nk = sizeof ksim_keys / sizeof *ksim_keys;
    size_t np = (size_t)ks_producer_configs.count, nb = (size_t)ks_broker_configs.count;
    size_t r = (size_t)draw(m, nk + np + nb);
    if (r < nk)
        return ksim_keys[r];
    if (r < nk + np)
        return ks_producer_configs.names[r - nk];
    return ks_broker_configs.names[r - nk - np];
}

/* A new value: a boundary number, another type, a key as a string, or a
 * copy of some node of the document. */
static json_t *random_value(mut *m)
{
    switch (draw(m, 8)) {
    case 0:
        return json_integer(ints[draw(m, sizeof ints / sizeof *ints)]);
    case 1:
        return json_real(reals[draw(m, sizeof reals / sizeof *reals)]);
    case 2:
        return json_string(random_key(m));
    case 3:
        return draw(m, 2) ? json_true() : json_false();
    case 4:
        return draw(m, 3) ? json_null() : draw(m, 2) ? json_object() : json_array();
    default:
        return json_deep_copy(m->nodes[draw(m, m->n)].v);
    }
}

/* Puts v (a new reference, stolen) where node x is; NULL deletes x. The
 * key is copied first: it lives in the member being replaced. */
static void replace(const node *x, json_t *v)
{
    if (json_is_array(x->parent)) {
        if (v)
            json_array_set_new(x->parent, x->index, v);
        else
            json_array_remove(x->parent, x->index);
        return;
    }
    char *key = strdup(x->key);
    if (key && v)
        json_object_set_new(x->parent, key, v);
    else if (key)
        json_object_del(x->parent, key);
    else
        json_decref(v);
    free(key);
}

/* A number moved a little: +-1, halved, doubled, negated. */
static json_t *nudge(mut *m, json_t *v)
{
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        json_int_t c[] = {i < INT64_MAX ? i + 1 : i, i > INT64_MIN ? i - 1 : i, i / 2,
                          i < INT64_MAX / 2 && i > INT64_MIN / 2 ? i * 2 : 0,
                          i > INT64_MIN ? -i : 0};
        return json_integer(c[draw(m, 5)]);
    }
    double d = json_real_value(v);
    double c[] = {d * 10, d / 10, -d, d + 0.5, d - 0.5};
    return json_real(c[draw(m, 5)]);
}

/* One structural change somewhere in the document. */
static void mutate_once(mut *m, json_t *root)
{
    m->n = 0;
    collect(m, root, NULL, NULL, 0);
    const node *x = &m->nodes[draw(m, m->n)];
    unsigned what = (unsigned)draw(m, 6);
    if (what == 0 && json_is_object(x->v)) {
        json_object_set_new(x->v, random_key(m), random_value(m));
    } else if (what == 1 && json_is_array(x->v) && json_array_size(x->v) > 0) {
        json_t *e = json_array_get(x->v, draw(m, json_array_size(x->v)));
        json_array_append_new(x->v, json_deep_copy(e));
    } else if (what == 2 && x->parent) {
        replace(x, NULL);
    } else if (what == 3 && x->parent && json_is_number(x->v)) {
        replace(x, nudge(m, x->v));
    } else if (x->parent) {
        replace(x, random_value(m));
    }
}

/* The dotted path of node x (for a --set line), into buf. */
static void path_of(const mut *m, const node *x, char *buf, size_t n)
{
    char tmp[512];
    buf[0] = '\0';
    while (x && x->parent) {
        if (x->key)
            snprintf(tmp, sizeof tmp, "%s%s%s", x->key, buf[0] ? "." : "", buf);
        else
            snprintf(tmp, sizeof tmp, "%zu%s%s", x->index, buf[0] ? "." : "", buf);
        size_t len = strlen(tmp) < n ? strlen(tmp) : n - 1; /* cut, as snprintf would */
        memcpy(buf, tmp, len);
        buf[len] = '\0';
        const node *p = NULL;
        for (size_t i = 0; i < m->n && !p; i++)
            if (m->nodes[i].v == x->parent)
                p = &m->nodes[i];
        x = p;
    }
}

/* A --set line for some path of the document, with a new value:
 * "PATH=VALUE\n" (a string as plain text, anything else as JSON). */
static char *override_line(mut *m, json_t *root)
{
    m->n = 0;
    collect(m, root, NULL, NULL, 0);
    char path[256];
    path_of(m, &m->nodes[draw(m, m->n)], path, sizeof path);
    if (!path[0])
        snprintf(path, sizeof path, "%s", random_key(m));
    json_t *v = random_value(m);
    char *text = json_is_string(v) ? strdup(json_string_value(v))
                                   : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    json_decref(v);
    if (!text)
        return NULL;
    size_t len = strlen(path) + strlen(text) + 3;
    char *line = malloc(len);
    if (line)
        snprintf(line, len, "%s=%s\n", path, strchr(text, '\n') ? "0" : text);
    free(text);
    return line;
}

/* Where the scenario starts: after the --set lines (fuzz_input.h), of
 * which there are *lines. */
static size_t body_offset(const uint8_t *data, size_t size, int *lines)
{
    size_t off = 0;
    for (*lines = 0; *lines < 4 && off < size && !strchr("{ \t\r\n=", data[off]); (*lines)++) {
        const uint8_t *nl = memchr(data + off, '\n', size - off);
        if (!nl || memchr(data + off, '\0', (size_t)(nl - data) - off) ||
            !memchr(data + off, '=', (size_t)(nl - data) - off))
            break;
        off = (size_t)(nl - data) + 1;
    }
    return off;
}

/* Writes, after the --set lines kept (data[0, keep), already in place),
 * a new one (or NULL) and the document; 0 when they do not fit. */
static size_t emit(uint8_t *data, size_t max_size, size_t keep, const char *extra, const char *doc)
{
    size_t el = extra ? strlen(extra) : 0, dl = strlen(doc);
    if (keep + el + dl > max_size)
        return 0;
    memcpy(data + keep, extra ? extra : "", el);
    memcpy(data + keep + el, doc, dl);
    return keep + el + dl;
}

static size_t mutate_json(uint8_t *data, size_t size, size_t max_size, mut *m)
{
    int lines;
    size_t off = body_offset(data, size, &lines);
    json_t *root = json_loadb((const char *)data + off, size - off, 0, NULL);
    if (!json_is_object(root)) {
        json_decref(root);
        return 0;
    }
    char *extra = NULL;
    if (draw(m, 8) == 0)
        extra = override_line(m, root);
    else
        for (uint64_t k = draw(m, 3) + 1; k > 0; k--)
            mutate_once(m, root);
    char *doc = json_dumps(root, draw(m, 2) ? JSON_COMPACT : JSON_INDENT(1));
    json_decref(root);
    /* a fifth --set line would be read as the scenario: start afresh */
    size_t n = doc ? emit(data, max_size, extra && lines == 4 ? 0 : off, extra, doc) : 0;
    free(doc);
    free(extra);
    return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    static mut m;
    m.rng = (uint64_t)seed * 0x9E3779B97F4A7C15u + 1;
    if (draw(&m, 2)) {
        size_t n = mutate_json(data, size, max_size, &m);
        if (n > 0)
            return n;
    }
    return LLVMFuzzerMutate(data, size, max_size);
}
