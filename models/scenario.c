/*
 * scenario.c - scenario loading and validation (see scenario.h and
 * docs/scenario.md).
 *
 * Structure: parse (jansson, with line and column on syntax errors) ->
 * apply --set overrides to the document -> walk it section by section.
 * Every section function checks its object's keys first (unknown key ->
 * error with a suggestion), then reads each known key with a typed getter
 * that reports "FILE: $.path: expected ..., got VALUE" and leaves the
 * default in place, so one run reports every problem.
 */
#include "models/scenario.h"

#include "ks_version.h"
#include "sim/detmath.h"
#include "sim/json_path.h"
#include "sim/str.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CLI_VALUES KS_MAX_OVERRIDES
#define MAX_COUNT 100000u

typedef struct loader {
    const char *file;
    ks_diag *diag;
    ks_jpath path;
    ks_kafka_version kv;
    /* Values put in place by --set: for messages ("from --set ...") and,
     * when given as plain text, for converting to the type a key wants. */
    json_t *cli[MAX_CLI_VALUES];
    const ks_override *cli_from[MAX_CLI_VALUES];
    bool cli_is_text[MAX_CLI_VALUES];
    size_t n_cli;
    json_t *subject; /* the value the next message is about, or NULL */
} loader;

static const char *const arrival_names[] = {
#define X(e, name) name,
    KS_ARRIVALS(X)
#undef X
};

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
static const char *const commit_mode_names[] = {
#define X(e, name) name,
    KS_COMMIT_MODES(X)
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

const char *ks_commit_mode_name(ks_commit_mode m)
{
    assert((unsigned)m < (unsigned)KS_COMMIT__COUNT);
    return commit_mode_names[m];
}

const char *ks_arrival_name(ks_arrival a)
{
    assert((unsigned)a < (unsigned)KS_ARRIVAL__COUNT);
    return arrival_names[a];
}

/* The format's own dotted keys: a --set path ending in one of them sets
 * that key, even beside an object sharing its first segment
 * ("network.latency.ms" next to a "latency" object). Kafka's config names
 * are added from the config tables. */
static const char *const ksim_dotted_keys[] = {
    "scenario.format", "kafka.version", "max.events", "max.time.ms", "max.pending.events",
    "request.us", "batch.us", "byte.ns", "response.delay.ms", "latency.ms", "bandwidth.mbps",
    "min.ms", "max.ms", "mean.ms", "median.ms", "replication.factor", "rate.per.sec",
    "start.ms", "value.bytes", "record.us", "at.ms", "create.partitions", "bucket.ms",
    "compress.ns.per.byte", "decompress.ns.per.byte", "burst.records", "burst.interval.ms",
    "after.ms", "delay.ms", "from.ms", "to.ms", "producer.state.batches", "first.producer.id",
    "txn.log.write.ms", "end.delay.ms", "isolation.level", "group.id", "poll.interval.ms",
    "max.poll.records", "process.us", "forward.to", "restart.ms",
    NULL};

/* Builds the NULL-terminated list of every dotted key (caller frees the
 * array, not the strings). */
static const char **leaf_keys(void)
{
    size_t n = 0;
    while (ksim_dotted_keys[n])
        n++;
    size_t total = n + (size_t)ks_producer_configs.count + (size_t)ks_broker_configs.count + 1;
    const char **list = malloc(total * sizeof *list);
    if (!list)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        list[k++] = ksim_dotted_keys[i];
    for (int i = 0; i < ks_producer_configs.count; i++)
        list[k++] = ks_producer_configs.names[i];
    for (int i = 0; i < ks_broker_configs.count; i++)
        list[k++] = ks_broker_configs.names[i];
    list[k] = NULL;
    return list;
}

/* Objects a --set may create on the way to a key. */
static const char *const sections[] = {"limits", "brokers", "config", "cost", "network",
                                       "workload", "metrics", "expect", NULL};

/* ---- messages ---------------------------------------------------------- */

static const ks_override *set_origin(const loader *L, json_t *v)
{
    /* newest first: a value replaced by a later --set may have freed
     * memory that a later value now occupies */
    for (size_t i = L->n_cli; v && i-- > 0;)
        if (L->cli[i] == v)
            return L->cli_from[i];
    return NULL;
}

/* Reports at the current path; names the --set that put the subject
 * value there, if one did. */
static void verr(loader *L, const char *fmt, va_list ap)
{
    char msg[KS_DIAG_LEN];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const ks_override *o = set_origin(L, L->subject);
    L->subject = NULL;
    if (o)
        ks_diag_error(L->diag, "%s: %s: %s (from --set %s=%s)", L->file, L->path.buf, msg,
                      o->path, o->value);
    else
        ks_diag_error(L->diag, "%s: %s: %s", L->file, L->path.buf, msg);
}

static void err(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void err(loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(L, fmt, ap);
    va_end(ap);
}

static void warn(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(loader *L, const char *fmt, ...)
{
    char msg[KS_DIAG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    L->subject = NULL;
    ks_diag_warn(L->diag, "%s: %s: %s", L->file, L->path.buf, msg);
}

/* A short rendering of a value for messages: its JSON text, cut at 60. */
static void describe(json_t *v, char *out, size_t n)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
    if (!s) {
        snprintf(out, n, "(unprintable)");
        return;
    }
    if (strlen(s) > 60)
        snprintf(out, n, "%.57s...", s);
    else
        snprintf(out, n, "%s", s);
    free(s);
}

static void err_got(loader *L, json_t *v, const char *expected)
{
    char got[80];
    describe(v, got, sizeof got);
    L->subject = v;
    err(L, "expected %s, got %s", expected, got);
}

/* ---- --set values ------------------------------------------------------- */

/* A --set value that was not JSON text is kept as a string and converted
 * when the schema wants another type, so "--set linger.ms=5" and
 * "--set kafka.version=3.9" both mean what they say. */
static const char *cli_text_of(const loader *L, json_t *v)
{
    for (size_t i = L->n_cli; i-- > 0;)
        if (L->cli[i] == v)
            return L->cli_is_text[i] ? L->cli_from[i]->value : NULL;
    return NULL;
}

/* True if s is a plain decimal number: -?digits(.digits)?([eE][+-]?digits)?
 * (no spaces, no hex, no "inf"), which strtod and strtoll read the same
 * everywhere. */
static bool plain_number(const char *s, bool *is_integer)
{
    const char *p = s;
    if (*p == '-')
        p++;
    size_t d = strspn(p, "0123456789");
    if (d == 0)
        return false;
    p += d;
    *is_integer = true;
    if (*p == '.') {
        size_t f = strspn(p + 1, "0123456789");
        if (f == 0)
            return false;
        p += 1 + f;
        *is_integer = false;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        size_t e = strspn(p, "0123456789");
        if (e == 0)
            return false;
        p += e;
        *is_integer = false;
    }
    return *p == '\0';
}

static json_t *coerce_number(const loader *L, json_t *v)
{
    if (!json_is_string(v) || !cli_text_of(L, v))
        return NULL;
    const char *s = json_string_value(v);
    bool is_integer;
    if (!plain_number(s, &is_integer))
        return NULL;
    errno = 0;
    if (is_integer) {
        long long ll = strtoll(s, NULL, 10);
        if (errno == 0)
            return json_integer(ll);
        errno = 0;
    }
    double d = strtod(s, NULL);
    if (errno == 0 && isfinite(d))
        return json_real(d);
    return NULL;
}

static json_t *coerce_bool(const loader *L, json_t *v)
{
    if (!json_is_string(v) || !cli_text_of(L, v))
        return NULL;
    const char *s = json_string_value(v);
    if (strcmp(s, "true") == 0)
        return json_true();
    if (strcmp(s, "false") == 0)
        return json_false();
    return NULL;
}

static bool is_cli_null(const loader *L, json_t *v)
{
    return json_is_string(v) && cli_text_of(L, v) && strcmp(json_string_value(v), "null") == 0;
}

/* ---- typed getters ------------------------------------------------------ */

/* Checks that every key of `obj` is in `allowed`; `planned` lists keys
 * the format reserves for models still to come. */
static void check_keys(loader *L, json_t *obj, const char *const *allowed,
                       const char *const *planned)
{
    const char *k;
    json_t *v;
    size_t n = 0;
    while (allowed[n])
        n++;
    json_object_foreach(obj, k, v) {
        bool ok = false;
        for (size_t i = 0; i < n && !ok; i++)
            ok = strcmp(k, allowed[i]) == 0;
        if (ok)
            continue;
        size_t mark = ks_jpath_key(&L->path, k);
        L->subject = v;
        bool is_planned = false;
        for (size_t i = 0; planned && planned[i] && !is_planned; i++)
            is_planned = strcmp(k, planned[i]) == 0;
        if (is_planned) {
            err(L, "\"%s\" is reserved by the scenario format for a model this ksim (%s) "
                   "does not have; remove it",
                k, KS_VERSION);
        } else {
            const char *s = ks_suggest(k, allowed, n);
            if (s)
                err(L, "unknown key \"%s\" (did you mean \"%s\"?)", k, s);
            else
                err(L, "unknown key \"%s\"", k);
        }
        ks_jpath_restore(&L->path, mark);
    }
}

/* Returns the member, or NULL when absent. */
static json_t *member(json_t *obj, const char *key)
{
    return obj ? json_object_get(obj, key) : NULL;
}

static bool get_object(loader *L, json_t *obj, const char *key, json_t **out)
{
    json_t *v = member(obj, key);
    *out = NULL;
    if (!v)
        return false;
    size_t mark = ks_jpath_key(&L->path, key);
    if (!json_is_object(v)) {
        err_got(L, v, "an object");
        ks_jpath_restore(&L->path, mark);
        return false;
    }
    ks_jpath_restore(&L->path, mark);
    *out = v;
    return true;
}

/* Integer in [min, max]. A real with no fraction is accepted. */
static bool check_int(loader *L, json_t *v, int64_t min, int64_t max, int64_t *out)
{
    json_t *c = coerce_number(L, v);
    json_t *use = c ? c : v;
    bool ok = false;
    int64_t x = 0;
    if (json_is_integer(use)) {
        x = (int64_t)json_integer_value(use);
        ok = true;
    } else if (json_is_real(use)) {
        double d = json_real_value(use);
        if (d == floor(d) && d >= -9.2e18 && d <= 9.2e18) {
            x = (int64_t)d;
            ok = true;
        }
    }
    char expected[128];
    if (max == INT64_MAX)
        snprintf(expected, sizeof expected, "an integer >= %lld", (long long)min);
    else
        snprintf(expected, sizeof expected, "an integer from %lld to %lld", (long long)min,
                 (long long)max);
    if (!ok || x < min || x > max) {
        err_got(L, v, expected);
        ok = false;
    } else {
        *out = x;
    }
    json_decref(c);
    return ok;
}

static bool get_int(loader *L, json_t *obj, const char *key, int64_t min, int64_t max,
                    int64_t *out)
{
    json_t *v = member(obj, key);
    if (!v)
        return false;
    size_t mark = ks_jpath_key(&L->path, key);
    bool ok = check_int(L, v, min, max, out);
    ks_jpath_restore(&L->path, mark);
    return ok;
}

static bool get_u32(loader *L, json_t *obj, const char *key, uint32_t min, uint32_t max,
                    uint32_t *out)
{
    int64_t x;
    if (!get_int(L, obj, key, min, max, &x))
        return false;
    *out = (uint32_t)x;
    return true;
}

/* Number in [min, max] (min_open: > min). */
static bool check_real(loader *L, json_t *v, double min, bool min_open, double max, double *out)
{
    json_t *c = coerce_number(L, v);
    json_t *use = c ? c : v;
    bool ok = json_is_number(use);
    double d = ok ? json_number_value(use) : 0.0;
    json_decref(c);
    if (ok && (min_open ? d > min : d >= min) && d <= max && isfinite(d)) {
        *out = d;
        return true;
    }
    char expected[96];
    snprintf(expected, sizeof expected, "a number %s %g%s", min_open ? ">" : ">=", min,
             max < 1e300 ? "" : "");
    if (max < 1e300)
        snprintf(expected, sizeof expected, "a number %s %g and <= %g", min_open ? ">" : ">=",
                 min, max);
    err_got(L, v, expected);
    return false;
}

static bool get_real(loader *L, json_t *obj, const char *key, double min, bool min_open,
                     double max, double *out)
{
    json_t *v = member(obj, key);
    if (!v)
        return false;
    size_t mark = ks_jpath_key(&L->path, key);
    bool ok = check_real(L, v, min, min_open, max, out);
    ks_jpath_restore(&L->path, mark);
    return ok;
}

/* Milliseconds (fractions allowed) to integer nanoseconds. */
static bool get_ms(loader *L, json_t *obj, const char *key, bool positive, ks_time *out_ns)
{
    double ms;
    /* 1e12 ms is about 31 years of virtual time: far beyond any run. */
    if (!get_real(L, obj, key, 0.0, positive, 1e12, &ms))
        return false;
    *out_ns = ks_round_i64(ms * 1e6);
    /* A positive duration must stay positive once rounded to ns: 1e-9 ms
     * became 0, and the resolved scenario (0) did not load again (found
     * by fuzzing the round trip). */
    if (positive && *out_ns <= 0) {
        size_t mark = ks_jpath_key(&L->path, key);
        err_got(L, member(obj, key), "a number of at least 0.000001 (one nanosecond)");
        ks_jpath_restore(&L->path, mark);
        return false;
    }
    return true;
}

/* A string (or null when allow_null; *out = NULL then). */
static bool get_string(loader *L, json_t *obj, const char *key, bool allow_null,
                       const char **out)
{
    json_t *v = member(obj, key);
    if (!v)
        return false;
    size_t mark = ks_jpath_key(&L->path, key);
    bool ok = true;
    if (allow_null && (json_is_null(v) || is_cli_null(L, v)))
        *out = NULL;
    else if (json_is_string(v))
        *out = json_string_value(v);
    else {
        err_got(L, v, allow_null ? "a string or null" : "a string");
        ok = false;
    }
    ks_jpath_restore(&L->path, mark);
    return ok;
}

static bool check_bool(loader *L, json_t *v, bool *out)
{
    json_t *c = coerce_bool(L, v);
    json_t *use = c ? c : v;
    bool ok = json_is_boolean(use);
    if (ok)
        *out = json_is_true(use);
    else
        err_got(L, v, "true or false");
    json_decref(c);
    return ok;
}

static bool check_choice(loader *L, json_t *v, const char *const *choices, size_t n,
                         unsigned *out)
{
    const char *s = json_string_value(v);
    for (size_t i = 0; s && i < n; i++) {
        if (strcmp(s, choices[i]) == 0) {
            *out = (unsigned)i;
            return true;
        }
    }
    char expected[256] = "one of";
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(expected);
        snprintf(expected + len, sizeof expected - len, "%s\"%s\"", i ? ", " : " ", choices[i]);
    }
    const char *sug = s ? ks_suggest(s, choices, n) : NULL;
    if (sug) {
        char got[80];
        describe(v, got, sizeof got);
        L->subject = v;
        err(L, "expected %s, got %s (did you mean \"%s\"?)", expected, got, sug);
    } else {
        err_got(L, v, expected);
    }
    return false;
}

/* ---- Kafka config objects ----------------------------------------------- */

static void version_text(ks_kafka_version v, char *out, size_t n)
{
    int maj = v / 10000, min = v / 100 % 100, patch = v % 100;
    if (patch == KS_KV_PATCH_LATEST || patch == 0)
        snprintf(out, n, "%d.%d", maj, min);
    else
        snprintf(out, n, "%d.%d.%d", maj, min, patch);
}

static void load_config_value(loader *L, const ks_cfg_table *t, int i, json_t *v,
                              ks_cfg_value *val)
{
    const ks_cfg_def *d = &t->defs[i];
    char ver[16];
    L->subject = v;
    if (d->since && L->kv < d->since) {
        version_text(d->since, ver, sizeof ver);
        err(L, "%s config \"%s\" does not exist before Kafka %s (kafka.version selects an "
               "older release)",
            t->what, t->names[i], ver);
        return;
    }
    if (d->until && L->kv >= d->until) {
        version_text(d->until, ver, sizeof ver);
        err(L, "%s config \"%s\" was removed in Kafka %s", t->what, t->names[i], ver);
        return;
    }
    bool b;
    unsigned choice;
    switch (d->type) {
    case KS_CFG_INT:
    case KS_CFG_LONG:
        if (!check_int(L, v, d->min, d->max, &val->i))
            return;
        break;
    case KS_CFG_BOOL:
        if (!check_bool(L, v, &b))
            return;
        val->i = b;
        break;
    case KS_CFG_STRING:
        if (json_is_null(v) || is_cli_null(L, v)) {
            val->s = NULL;
        } else if (json_is_string(v)) {
            val->s = json_string_value(v); /* the document outlives the scenario's use */
        } else {
            err_got(L, v, "a string or null");
            return;
        }
        break;
    case KS_CFG_ENUM: {
        size_t n = 0;
        while (d->choices[n])
            n++;
        if (!check_choice(L, v, d->choices, n, &choice))
            return;
        /* zstd arrived in Kafka 2.1 (KIP-110). */
        if (t == &ks_producer_configs && i == KS_PCFG_COMPRESSION_TYPE &&
            strcmp(d->choices[choice], "zstd") == 0 && L->kv < KS_KV(2, 1, 0)) {
            err(L, "compression.type \"zstd\" does not exist before Kafka 2.1 (KIP-110)");
            return;
        }
        val->i = choice;
        break;
    }
    case KS_CFG_ACKS: {
        static const char *const acks[] = {"all", "-1", "0", "1"};
        static const int64_t acks_val[] = {KS_ACKS_ALL, KS_ACKS_ALL, 0, 1};
        if (json_is_integer(v)) {
            json_int_t x = json_integer_value(v);
            if (x == -1 || x == 0 || x == 1) {
                val->i = (int64_t)x;
                break;
            }
        }
        if (!json_is_string(v)) {
            err_got(L, v, "one of \"all\", \"-1\", \"0\", \"1\"");
            return;
        }
        if (!check_choice(L, v, acks, 4, &choice))
            return;
        val->i = acks_val[choice];
        break;
    }
    }
    val->set = true;
    if (!d->read_by)
        warn(L, "accepted, but no model in ksim %s reads %s config \"%s\" yet: it has no "
                "effect on this run",
             KS_VERSION, t->what, t->names[i]);
}

/* Reads a "config" object against a Kafka config table. */
static void load_config(loader *L, json_t *obj, const ks_cfg_table *t, ks_cfg_value *vals)
{
    ks_cfg_defaults(t, L->kv, vals);
    if (!obj)
        return;
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        size_t mark = ks_jpath_key(&L->path, k);
        int i = ks_cfg_find(t, k);
        L->subject = v;
        if (i < 0) {
            const char *s = ks_suggest(k, t->names, (size_t)t->count);
            if (s)
                err(L, "unknown %s config \"%s\" (did you mean \"%s\"?)", t->what, k, s);
            else
                err(L, "unknown %s config \"%s\"; docs/scenario.md lists the supported keys",
                    t->what, k);
        } else {
            load_config_value(L, t, i, v, &vals[i]);
        }
        ks_jpath_restore(&L->path, mark);
    }
}

/* ---- sections ----------------------------------------------------------- */

static void load_metrics(loader *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"bucket.ms", NULL};
    sc->metrics_bucket_ns = 100 * KS_NS_PER_MS;
    json_t *obj;
    if (!get_object(L, root, "metrics", &obj) || !obj)
        return;
    size_t mark = ks_jpath_key(&L->path, "metrics");
    check_keys(L, obj, keys, NULL);
    get_ms(L, obj, "bucket.ms", false, &sc->metrics_bucket_ns);
    ks_jpath_restore(&L->path, mark);
}

static void load_limits(loader *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"max.events", "max.time.ms", "max.pending.events", NULL};
    sc->limits.max_events = 1000000000u;
    sc->limits.max_time_ns = 24 * 3600 * KS_NS_PER_S;
    sc->limits.max_pending = KS_SIM_PENDING_MAX;
    json_t *obj;
    if (!get_object(L, root, "limits", &obj))
        return;
    size_t mark = ks_jpath_key(&L->path, "limits");
    check_keys(L, obj, keys, NULL);
    int64_t x;
    if (get_int(L, obj, "max.events", 1, INT64_MAX, &x))
        sc->limits.max_events = (uint64_t)x;
    get_ms(L, obj, "max.time.ms", true, &sc->limits.max_time_ns);
    if (get_int(L, obj, "max.pending.events", 1, KS_SIM_PENDING_MAX, &x))
        sc->limits.max_pending = (uint32_t)x;
    ks_jpath_restore(&L->path, mark);
}

/* Reads a "cost" object over the values in *c. */
static void load_cost(loader *L, json_t *cost, ks_broker_cost *c)
{
    static const char *const cost_keys[] = {"request.us", "batch.us", "byte.ns",
                                            "response.delay.ms", "txn.log.write.ms", NULL};
    size_t m = ks_jpath_key(&L->path, "cost");
    check_keys(L, cost, cost_keys, NULL);
    double d;
    if (get_real(L, cost, "request.us", 0.0, false, 1e9, &d))
        c->request_ns = ks_round_i64(d * 1e3);
    if (get_real(L, cost, "batch.us", 0.0, false, 1e9, &d))
        c->batch_ns = ks_round_i64(d * 1e3);
    if (get_real(L, cost, "byte.ns", 0.0, false, 1e6, &d))
        c->byte_ps = ks_round_i64(d * 1e3);
    get_ms(L, cost, "response.delay.ms", false, &c->response_delay_ns);
    get_ms(L, cost, "txn.log.write.ms", false, &c->txn_log_write_ns);
    ks_jpath_restore(&L->path, m);
}

/* "overrides": [{"id": 2, "cost": {...}}]: per-broker costs (a slow
 * broker) over the common ones. */
static void load_broker_overrides(loader *L, json_t *arr, ks_scenario *sc)
{
    static const char *const keys[] = {"id", "cost", NULL};
    size_t mark = ks_jpath_key(&L->path, "overrides");
    if (!json_is_array(arr)) {
        err_got(L, arr, "an array of {\"id\": broker, \"cost\": {...}}");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        size_t m = ks_jpath_index(&L->path, i);
        uint32_t id = 0;
        json_t *cost = NULL;
        if (!json_is_object(o)) {
            err_got(L, o, "an object {\"id\": broker, \"cost\": {...}}");
        } else if (!member(o, "id")) {
            check_keys(L, o, keys, NULL);
            size_t m2 = ks_jpath_key(&L->path, "id");
            err(L, "missing: the broker id this override is for");
            ks_jpath_restore(&L->path, m2);
        } else {
            check_keys(L, o, keys, NULL);
            if (get_u32(L, o, "id", 0, sc->broker_count - 1, &id) &&
                get_object(L, o, "cost", &cost) && cost) {
                if (sc->broker_overridden[id]) {
                    size_t m2 = ks_jpath_key(&L->path, "id");
                    err(L, "broker %u is overridden twice", id);
                    ks_jpath_restore(&L->path, m2);
                }
                sc->broker_overridden[id] = true;
                load_cost(L, cost, &sc->broker_costs[id]);
            }
        }
        ks_jpath_restore(&L->path, m);
    }
    ks_jpath_restore(&L->path, mark);
}

static void load_brokers(loader *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"count", "config", "cost", "overrides",
                                       "producer.state.batches", "first.producer.id", NULL};
    sc->broker_count = 1;
    sc->producer_state_batches = 5;
    sc->first_producer_id = 0;
    sc->broker_cost.request_ns = 20 * KS_NS_PER_US;
    sc->broker_cost.batch_ns = 10 * KS_NS_PER_US;
    sc->broker_cost.byte_ps = 1000;
    sc->broker_cost.response_delay_ns = 0;
    sc->broker_cost.txn_log_write_ns = KS_NS_PER_MS;
    json_t *obj = NULL, *cfg = NULL, *cost = NULL;
    get_object(L, root, "brokers", &obj);
    size_t mark = ks_jpath_key(&L->path, "brokers");
    if (obj) {
        check_keys(L, obj, keys, NULL);
        get_u32(L, obj, "count", 1, 1024, &sc->broker_count);
        get_u32(L, obj, "producer.state.batches", 1, 64, &sc->producer_state_batches);
        get_int(L, obj, "first.producer.id", 0, INT64_MAX / 2, &sc->first_producer_id);
        get_object(L, obj, "config", &cfg);
        get_object(L, obj, "cost", &cost);
    }
    size_t m2 = ks_jpath_key(&L->path, "config");
    load_config(L, cfg, &ks_broker_configs, sc->broker_config);
    ks_jpath_restore(&L->path, m2);
    if (cost)
        load_cost(L, cost, &sc->broker_cost);
    sc->broker_costs = calloc(sc->broker_count, sizeof *sc->broker_costs);
    sc->broker_overridden = calloc(sc->broker_count, sizeof *sc->broker_overridden);
    if (!sc->broker_costs || !sc->broker_overridden) {
        err(L, "out of memory");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    for (uint32_t b = 0; b < sc->broker_count; b++)
        sc->broker_costs[b] = sc->broker_cost;
    json_t *ov = member(obj, "overrides");
    if (ov)
        load_broker_overrides(L, ov, sc);
    ks_jpath_restore(&L->path, mark);
}

static void load_latency_object(loader *L, json_t *obj, ks_dist *d)
{
    static const char *const dist_names[] = {"constant", "uniform", "exponential", "lognormal"};
    static const char *const k_const[] = {"dist", "ms", NULL};
    static const char *const k_unif[] = {"dist", "min.ms", "max.ms", NULL};
    static const char *const k_exp[] = {"dist", "mean.ms", "min.ms", NULL};
    static const char *const k_logn[] = {"dist", "median.ms", "sigma", "min.ms", NULL};
    json_t *kind = member(obj, "dist");
    size_t mark = ks_jpath_key(&L->path, "dist");
    unsigned k = 0;
    if (!kind) {
        err(L, "missing: one of \"constant\", \"uniform\", \"exponential\", \"lognormal\"");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    if (!check_choice(L, kind, dist_names, 4, &k)) {
        ks_jpath_restore(&L->path, mark);
        return;
    }
    ks_jpath_restore(&L->path, mark);
    ks_dist nd = ks_dist_constant(0);
    nd.kind = (ks_dist_kind)k;
    const char *need = NULL;
    switch (nd.kind) {
    case KS_DIST_CONSTANT:
        check_keys(L, obj, k_const, NULL);
        if (!get_ms(L, obj, "ms", false, &nd.a_ns))
            need = "ms";
        nd.b_ns = nd.a_ns;
        break;
    case KS_DIST_UNIFORM:
        check_keys(L, obj, k_unif, NULL);
        if (!get_ms(L, obj, "min.ms", false, &nd.a_ns))
            need = "min.ms";
        if (!get_ms(L, obj, "max.ms", false, &nd.b_ns))
            need = "max.ms";
        if (!need && nd.b_ns < nd.a_ns)
            err(L, "max.ms must be >= min.ms");
        break;
    case KS_DIST_EXPONENTIAL:
        check_keys(L, obj, k_exp, NULL);
        if (!get_ms(L, obj, "mean.ms", true, &nd.a_ns))
            need = "mean.ms";
        get_ms(L, obj, "min.ms", false, &nd.min_ns);
        break;
    case KS_DIST_LOGNORMAL:
        check_keys(L, obj, k_logn, NULL);
        if (!get_ms(L, obj, "median.ms", true, &nd.a_ns))
            need = "median.ms";
        if (!get_real(L, obj, "sigma", 0.0, false, 10.0, &nd.sigma))
            need = need ? need : "sigma";
        get_ms(L, obj, "min.ms", false, &nd.min_ns);
        break;
    case KS_DIST__COUNT:
        break;
    }
    if (need && !member(obj, need)) {
        size_t m = ks_jpath_key(&L->path, need);
        err(L, "missing (a %s distribution needs it)", ks_dist_name(nd.kind));
        ks_jpath_restore(&L->path, m);
    }
    *d = nd;
}

static void load_network(loader *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"latency.ms", "latency", "bandwidth.mbps", NULL};
    static const char *const planned[] = {"links", NULL};
    sc->network.latency = ks_dist_constant(500 * KS_NS_PER_US);
    sc->network.bandwidth_bps = UINT64_C(10000000000);
    json_t *obj;
    if (!get_object(L, root, "network", &obj))
        return;
    size_t mark = ks_jpath_key(&L->path, "network");
    for (int i = 0; i < 2; i++) {
        const char *k = i ? "response.loss" : "request.loss";
        json_t *v = member(obj, k);
        if (!v)
            continue;
        size_t m = ks_jpath_key(&L->path, k);
        err(L, "loss is a fault: add {\"type\": \"%s\", \"probability\": P} to the top-level "
               "\"faults\" list (optionally with \"producer\", \"broker\", \"from.ms\", \"to.ms\")",
            k);
        ks_jpath_restore(&L->path, m);
        json_object_del(obj, k);
    }
    check_keys(L, obj, keys, planned);
    ks_time ns;
    json_t *lat = NULL;
    if (member(obj, "latency.ms") && member(obj, "latency")) {
        err(L, "give either \"latency.ms\" (constant) or \"latency\" (a distribution), not both");
    } else if (get_ms(L, obj, "latency.ms", false, &ns)) {
        sc->network.latency = ks_dist_constant(ns);
    } else if (get_object(L, obj, "latency", &lat)) {
        size_t m = ks_jpath_key(&L->path, "latency");
        load_latency_object(L, lat, &sc->network.latency);
        ks_jpath_restore(&L->path, m);
    }
    double mbps;
    if (get_real(L, obj, "bandwidth.mbps", 0.0, false, 1e9, &mbps)) {
        sc->network.bandwidth_bps = (uint64_t)ks_round_i64(mbps * 1e6);
        if (mbps > 0 && sc->network.bandwidth_bps == 0) {
            size_t m = ks_jpath_key(&L->path, "bandwidth.mbps");
            err(L, "below 1 bit/s (0.000001 Mbit/s); use 0 for unlimited");
            ks_jpath_restore(&L->path, m);
        }
    }
    ks_jpath_restore(&L->path, mark);
}

/* Kafka topic names: [a-zA-Z0-9._-], 1 to 249 characters ([K] Topic.java). */
static bool valid_topic_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 249 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static void load_topics(loader *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"name", "partitions", "replication.factor", NULL};
    json_t *arr = member(root, "topics");
    size_t mark = ks_jpath_key(&L->path, "topics");
    if (!arr) {
        sc->topic_count = 1;
        sc->topics = calloc(1, sizeof *sc->topics);
        if (sc->topics)
            sc->topics[0].name = ks_strdup("events");
        if (!sc->topics || !sc->topics[0].name) {
            err(L, "out of memory");
        } else {
            sc->topics[0].partitions = 1;
            sc->topics[0].replication_factor = 1;
        }
        ks_jpath_restore(&L->path, mark);
        return;
    }
    if (!json_is_array(arr) || json_array_size(arr) == 0 || json_array_size(arr) > MAX_COUNT) {
        err_got(L, arr, "a non-empty array of topics");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    sc->topic_count = (uint32_t)json_array_size(arr);
    sc->topics = calloc(sc->topic_count, sizeof *sc->topics);
    if (!sc->topics) {
        err(L, "out of memory");
        sc->topic_count = 0;
    }
    for (uint32_t i = 0; i < sc->topic_count; i++) {
        json_t *t = json_array_get(arr, i);
        ks_topic_conf *tc = &sc->topics[i];
        size_t m = ks_jpath_index(&L->path, i);
        tc->partitions = 1;
        tc->replication_factor = 1;
        if (!json_is_object(t)) {
            err_got(L, t, "a topic object");
            ks_jpath_restore(&L->path, m);
            continue;
        }
        check_keys(L, t, keys, NULL);
        const char *name = NULL;
        if (!member(t, "name")) {
            size_t m2 = ks_jpath_key(&L->path, "name");
            err(L, "missing: every topic needs a name");
            ks_jpath_restore(&L->path, m2);
        } else if (get_string(L, t, "name", false, &name)) {
            size_t m2 = ks_jpath_key(&L->path, "name");
            if (!valid_topic_name(name))
                err(L, "\"%s\" is not a valid Kafka topic name (1-249 characters of "
                       "a-z A-Z 0-9 . _ -)", name);
            for (uint32_t j = 0; j < i; j++)
                if (sc->topics[j].name && strcmp(sc->topics[j].name, name) == 0)
                    err(L, "topic \"%s\" is defined twice", name);
            ks_jpath_restore(&L->path, m2);
            tc->name = ks_strdup(name);
        }
        get_u32(L, t, "partitions", 1, MAX_COUNT, &tc->partitions);
        get_u32(L, t, "replication.factor", 1, 1024, &tc->replication_factor);
        if (tc->replication_factor > sc->broker_count) {
            size_t m2 = ks_jpath_key(&L->path, "replication.factor");
            err(L, "replication factor %u is larger than the %u broker(s) of brokers.count "
                   "(Kafka: INVALID_REPLICATION_FACTOR)",
                tc->replication_factor, sc->broker_count);
            ks_jpath_restore(&L->path, m2);
        }
        ks_jpath_restore(&L->path, m);
    }
    ks_jpath_restore(&L->path, mark);
}

#define MAX_PATTERN 100000u

/* "key": {"uniform": {"keys": K}} or {"zipf": {"keys": K, "s": 1.1}},
 * each with an optional "prefix" (default "key-"). */
static void load_key_distribution(loader *L, json_t *v, ks_workload_conf *w)
{
    static const char *const kinds[] = {"uniform", "zipf", NULL};
    static const char *const k_uniform[] = {"keys", "prefix", NULL};
    static const char *const k_zipf[] = {"keys", "s", "prefix", NULL};
    check_keys(L, v, kinds, NULL);
    json_t *u = member(v, "uniform"), *z = member(v, "zipf");
    if ((u != NULL) == (z != NULL)) {
        err(L, "expected exactly one of {\"uniform\": {...}} and {\"zipf\": {...}}");
        return;
    }
    json_t *o = u ? u : z;
    size_t m = ks_jpath_key(&L->path, u ? "uniform" : "zipf");
    if (!json_is_object(o)) {
        err_got(L, o, "an object");
        ks_jpath_restore(&L->path, m);
        return;
    }
    check_keys(L, o, u ? k_uniform : k_zipf, NULL);
    w->key_pick = u ? KS_PICK_UNIFORM : KS_PICK_ZIPF;
    w->key_space = 100;
    w->zipf_s = 1.0;
    get_u32(L, o, "keys", 1, 1000000, &w->key_space);
    if (z)
        get_real(L, o, "s", 0.0, true, 10.0, &w->zipf_s);
    const char *prefix = "key-";
    get_string(L, o, "prefix", false, &prefix);
    if (strlen(prefix) > 100) {
        size_t m2 = ks_jpath_key(&L->path, "prefix");
        err(L, "at most 100 characters");
        ks_jpath_restore(&L->path, m2);
    } else {
        w->key_prefix = ks_strdup(prefix);
    }
    ks_jpath_restore(&L->path, m);
}

/* "key": null | "k" | ["a", null, "b"] (cycled) | a distribution. */
static void load_keys(loader *L, json_t *v, ks_workload_conf *w)
{
    if (!v)
        return;
    size_t mark = ks_jpath_key(&L->path, "key");
    if (json_is_object(v)) {
        load_key_distribution(L, v, w);
    } else if (json_is_array(v)) {
        size_t n = json_array_size(v);
        if (n == 0 || n > MAX_PATTERN) {
            err_got(L, v, "a key, null, or a non-empty array of keys and nulls");
        } else {
            char **keys = calloc(n, sizeof *keys);
            if (!keys) {
                err(L, "out of memory");
            } else {
                free(w->keys);
                w->keys = keys;
                w->key_count = (uint32_t)n;
                w->key_list = true;
                for (size_t i = 0; i < n; i++) {
                    json_t *k = json_array_get(v, i);
                    size_t m = ks_jpath_index(&L->path, i);
                    if (json_is_string(k))
                        keys[i] = ks_strdup(json_string_value(k));
                    else if (!json_is_null(k))
                        err_got(L, k, "a string or null");
                    ks_jpath_restore(&L->path, m);
                }
            }
        }
    } else if (json_is_string(v) && !is_cli_null(L, v)) {
        w->keys[0] = ks_strdup(json_string_value(v));
    } else if (!json_is_null(v) && !is_cli_null(L, v)) {
        err_got(L, v, "a key, null, or an array of keys and nulls");
    }
    ks_jpath_restore(&L->path, mark);
}

/* "value.bytes": 100 | [100, 20000] (cycled). */
static void load_value_sizes(loader *L, json_t *v, ks_workload_conf *w)
{
    const int64_t max = 100 * 1024 * 1024;
    if (!v)
        return;
    size_t mark = ks_jpath_key(&L->path, "value.bytes");
    if (json_is_object(v)) {
        /* {"uniform": {"min": a, "max": b}} */
        static const char *const kinds[] = {"uniform", NULL};
        static const char *const k_uniform[] = {"min", "max", NULL};
        check_keys(L, v, kinds, NULL);
        json_t *u = member(v, "uniform");
        size_t m = ks_jpath_key(&L->path, "uniform");
        if (!json_is_object(u)) {
            err_got(L, u ? u : v, "{\"uniform\": {\"min\": bytes, \"max\": bytes}}");
        } else {
            check_keys(L, u, k_uniform, NULL);
            w->value_pick = KS_PICK_UNIFORM;
            w->value_min = 0;
            w->value_max = 1000;
            get_u32(L, u, "min", 0, (uint32_t)max, &w->value_min);
            get_u32(L, u, "max", 0, (uint32_t)max, &w->value_max);
            if (w->value_max < w->value_min)
                err(L, "max must be >= min");
        }
        ks_jpath_restore(&L->path, m);
    } else if (json_is_array(v)) {
        size_t n = json_array_size(v);
        uint32_t *sizes = n > 0 && n <= MAX_PATTERN ? calloc(n, sizeof *sizes) : NULL;
        if (!sizes) {
            err_got(L, v, "a size, or a non-empty array of sizes");
        } else {
            free(w->value_bytes);
            w->value_bytes = sizes;
            w->value_count = (uint32_t)n;
            w->value_list = true;
            for (size_t i = 0; i < n; i++) {
                size_t m = ks_jpath_index(&L->path, i);
                int64_t x;
                if (check_int(L, json_array_get(v, i), 0, max, &x))
                    sizes[i] = (uint32_t)x;
                ks_jpath_restore(&L->path, m);
            }
        }
    } else {
        int64_t x;
        if (check_int(L, v, 0, max, &x))
            w->value_bytes[0] = (uint32_t)x;
    }
    ks_jpath_restore(&L->path, mark);
}

static void load_workload(loader *L, json_t *obj, ks_workload_conf *w)
{
    static const char *const keys[] = {"records", "arrival", "rate.per.sec", "start.ms",
                                       "key", "value.bytes", "burst.records",
                                       "burst.interval.ms", NULL};
    w->records = 10;
    w->arrival = KS_ARRIVAL_CONSTANT;
    w->rate_per_sec = 1000.0;
    w->start_ns = 0;
    w->keys = calloc(1, sizeof *w->keys);
    w->key_count = 1;
    w->value_bytes = calloc(1, sizeof *w->value_bytes);
    w->value_count = 1;
    if (!w->keys || !w->value_bytes) {
        err(L, "out of memory");
        return;
    }
    w->value_bytes[0] = 100;
    if (obj) {
        check_keys(L, obj, keys, NULL);
        int64_t x;
        if (get_int(L, obj, "records", 0, INT64_C(1) << 40, &x))
            w->records = (uint64_t)x;
        json_t *a = member(obj, "arrival");
        if (a) {
            size_t m = ks_jpath_key(&L->path, "arrival");
            unsigned c;
            if (check_choice(L, a, arrival_names, KS_ARRIVAL__COUNT, &c))
                w->arrival = (ks_arrival)c;
            ks_jpath_restore(&L->path, m);
        }
        /* 1e-6/s is one send() per 11.6 virtual days */
        get_real(L, obj, "rate.per.sec", 1e-6, false, 1e9, &w->rate_per_sec);
        get_ms(L, obj, "start.ms", false, &w->start_ns);
        load_keys(L, member(obj, "key"), w);
        load_value_sizes(L, member(obj, "value.bytes"), w);
    }
    w->burst_records = 10;
    w->burst_interval_ns = 100 * KS_NS_PER_MS;
    if (obj) {
        get_u32(L, obj, "burst.records", 1, 1000000, &w->burst_records);
        get_ms(L, obj, "burst.interval.ms", true, &w->burst_interval_ns);
        if (w->arrival != KS_ARRIVAL_BURST &&
            (member(obj, "burst.records") || member(obj, "burst.interval.ms")))
            err(L, "burst.records and burst.interval.ms need \"arrival\": \"burst\"");
    }
    w->interval_ns = ks_round_i64(1e9 / w->rate_per_sec);
    if (w->interval_ns < 1)
        w->interval_ns = 1;
}

/* Codec defaults: ratios for text-like records (JSON, logs), speeds of
 * one modern core; order-of-magnitude figures from the codecs' published
 * benchmarks, to be replaced with measurements of one's own data. Order:
 * none gzip snappy lz4 zstd, as compression.type's choices. */
static const ks_compression_conf codec_defaults[5] = {
    {1.00, 0, 0},          /* none */
    {0.25, 20000, 4000},   /* gzip: ~50 MB/s in, ~250 MB/s out */
    {0.45, 2000, 1000},    /* snappy: ~500 MB/s, ~1 GB/s */
    {0.45, 1500, 300},     /* lz4: ~650 MB/s, ~3 GB/s */
    {0.28, 4000, 1000},    /* zstd level 3: ~250 MB/s, ~1 GB/s */
};

/* "compression": {"ratio", "compress.ns.per.byte", "decompress.ns.per.byte"}
 * over the defaults of the producer's compression.type. */
static void load_compression(loader *L, json_t *obj, ks_producer_conf *pc)
{
    static const char *const keys[] = {"ratio", "compress.ns.per.byte",
                                       "decompress.ns.per.byte", NULL};
    pc->compression = codec_defaults[pc->config[KS_PCFG_COMPRESSION_TYPE].i];
    if (!obj)
        return;
    size_t m = ks_jpath_key(&L->path, "compression");
    if (!json_is_object(obj)) {
        err_got(L, obj, "an object");
    } else {
        check_keys(L, obj, keys, NULL);
        double d;
        get_real(L, obj, "ratio", 0.01, false, 1.0, &pc->compression.ratio);
        if (get_real(L, obj, "compress.ns.per.byte", 0.0, false, 1e6, &d))
            pc->compression.compress_ps = ks_round_i64(d * 1e3);
        if (get_real(L, obj, "decompress.ns.per.byte", 0.0, false, 1e6, &d))
            pc->compression.decompress_ps = ks_round_i64(d * 1e3);
        if (pc->config[KS_PCFG_COMPRESSION_TYPE].i == 0 && pc->compression.ratio != 1.0)
            err(L, "compression.type is none: a ratio other than 1 has no codec to come from");
    }
    ks_jpath_restore(&L->path, m);
}

/* Resolves a producer's "topic" to an index (default: the first topic). */
static void load_producer_topic(loader *L, json_t *p, const ks_scenario *sc, uint32_t *topic_out)
{
    const char *topic = NULL;
    *topic_out = 0;
    if (!get_string(L, p, "topic", false, &topic) || !sc->topics)
        return;
    const char *names[64];
    size_t nn = 0;
    for (uint32_t t = 0; t < sc->topic_count; t++) {
        if (sc->topics[t].name && strcmp(sc->topics[t].name, topic) == 0) {
            *topic_out = t;
            return;
        }
        if (nn < 64 && sc->topics[t].name)
            names[nn++] = sc->topics[t].name;
    }
    size_t m = ks_jpath_key(&L->path, "topic");
    const char *s = ks_suggest(topic, names, nn);
    if (s)
        err(L, "no topic \"%s\" in topics (did you mean \"%s\"?)", topic, s);
    else
        err(L, "no topic \"%s\" in topics", topic);
    ks_jpath_restore(&L->path, m);
}

/* "transactions": how a transactional producer's application groups its
 * records. Needs transactional.id; a transactional.id without it gets
 * the defaults (one record per transaction, committed). */
static void load_transactions(loader *L, json_t *obj, ks_producer_conf *pc)
{
    static const char *const keys[] = {"records", "end", "end.delay.ms", "protocol", NULL};
    ks_txn_conf *t = &pc->txn;
    t->enabled = pc->config[KS_PCFG_TRANSACTIONAL_ID].s != NULL;
    t->records = 1;
    t->protocol = KS_TXNP_DEFAULT;
    t->ends = malloc(sizeof *t->ends);
    if (!t->ends) {
        err(L, "out of memory");
        return;
    }
    t->ends[0] = KS_TXN_END_COMMIT;
    t->end_count = 1;
    if (!obj)
        return;
    size_t mark = ks_jpath_key(&L->path, "transactions");
    if (!json_is_object(obj)) {
        err_got(L, obj, "an object such as {\"records\": 10, \"end\": \"commit\"}");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    check_keys(L, obj, keys, NULL);
    if (!t->enabled)
        err(L, "transactions need a transactional.id in the producer's config");
    get_u32(L, obj, "records", 1, 1000000, &t->records);
    get_ms(L, obj, "end.delay.ms", false, &t->end_delay_ns);
    json_t *pv = member(obj, "protocol");
    unsigned c;
    if (pv) {
        size_t m = ks_jpath_key(&L->path, "protocol");
        if (check_choice(L, pv, txn_protocol_names, KS_TXNP__COUNT, &c))
            t->protocol = (ks_txn_protocol)c;
        if (t->protocol == KS_TXNP_KIP890 && L->kv < KS_KV(4, 0, 0))
            err(L, "KIP-890's transaction version 2 came with Kafka 4.0: set kafka.version to "
                   "\"4.0\" or later, or use \"classic\"");
        ks_jpath_restore(&L->path, m);
    }
    json_t *ev = member(obj, "end");
    if (ev) {
        size_t m = ks_jpath_key(&L->path, "end");
        size_t n = json_is_array(ev) ? json_array_size(ev) : 1;
        if (n == 0 || n > 10000) {
            err_got(L, ev, "\"commit\", \"abort\", \"none\" or an array of them");
            ks_jpath_restore(&L->path, m);
            ks_jpath_restore(&L->path, mark);
            return;
        }
        ks_txn_end *ends = realloc(t->ends, n * sizeof *ends);
        if (!ends) {
            err(L, "out of memory");
            ks_jpath_restore(&L->path, m);
            ks_jpath_restore(&L->path, mark);
            return;
        }
        t->ends = ends;
        t->end_count = (uint32_t)n;
        for (size_t k = 0; k < n; k++) {
            bool list = json_is_array(ev);
            size_t mk = list ? ks_jpath_index(&L->path, k) : 0;
            if (check_choice(L, list ? json_array_get(ev, k) : ev, txn_end_names,
                             KS_TXN_END__COUNT, &c))
                ends[k] = (ks_txn_end)c;
            if (list)
                ks_jpath_restore(&L->path, mk);
        }
        ks_jpath_restore(&L->path, m);
    }
    ks_jpath_restore(&L->path, mark);
}

static void load_producer(loader *L, json_t *p, ks_scenario *sc, uint32_t i)
{
    static const char *const keys[] = {"id", "topic", "partitioner", "config", "workload",
                                       "cost", "compression", "transactions", NULL};
    static const char *const cost_keys[] = {"record.us", "batch.us", "request.us", NULL};
    ks_producer_conf *pc = &sc->producers[i];
    check_keys(L, p, keys, NULL);
    pc->cost.record_ns = 500;
    pc->cost.batch_ns = 5 * KS_NS_PER_US;
    pc->cost.request_ns = 10 * KS_NS_PER_US;
    json_t *cost = NULL;
    if (get_object(L, p, "cost", &cost) && cost) {
        size_t mc = ks_jpath_key(&L->path, "cost");
        check_keys(L, cost, cost_keys, NULL);
        double d;
        if (get_real(L, cost, "record.us", 0.0, false, 1e9, &d))
            pc->cost.record_ns = ks_round_i64(d * 1e3);
        if (get_real(L, cost, "batch.us", 0.0, false, 1e9, &d))
            pc->cost.batch_ns = ks_round_i64(d * 1e3);
        if (get_real(L, cost, "request.us", 0.0, false, 1e9, &d))
            pc->cost.request_ns = ks_round_i64(d * 1e3);
        ks_jpath_restore(&L->path, mc);
    }
    const char *id = NULL;
    char defid[24];
    snprintf(defid, sizeof defid, "p%u", i + 1);
    if (!get_string(L, p, "id", false, &id))
        id = defid;
    size_t idlen = strlen(id);
    if (idlen == 0 || idlen > 100 ||
        strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != idlen) {
        size_t m = ks_jpath_key(&L->path, "id");
        err(L, "\"%s\" is not a valid producer id: 1-100 characters of a-z A-Z 0-9 . _ -", id);
        ks_jpath_restore(&L->path, m);
    }
    for (uint32_t j = 0; j < i; j++) {
        if (sc->producers[j].id && strcmp(sc->producers[j].id, id) == 0) {
            size_t m = ks_jpath_key(&L->path, "id");
            err(L, "producer id \"%s\" is used twice", id);
            ks_jpath_restore(&L->path, m);
        }
    }
    pc->id = ks_strdup(id);
    load_producer_topic(L, p, sc, &pc->topic);
    pc->partitioner = KS_PCHOICE_DEFAULT;
    json_t *pv = member(p, "partitioner");
    if (pv) {
        size_t mp = ks_jpath_key(&L->path, "partitioner");
        unsigned c;
        if (check_choice(L, pv, partitioner_names, KS_PCHOICE__COUNT, &c))
            pc->partitioner = (ks_partitioner_choice)c;
        ks_jpath_restore(&L->path, mp);
    }
    json_t *cfg = NULL, *wl = NULL;
    get_object(L, p, "config", &cfg);
    size_t m = ks_jpath_key(&L->path, "config");
    load_config(L, cfg, &ks_producer_configs, pc->config);
    ks_jpath_restore(&L->path, m);
    get_object(L, p, "workload", &wl);
    m = ks_jpath_key(&L->path, "workload");
    load_workload(L, wl, &pc->workload);
    ks_jpath_restore(&L->path, m);
    load_compression(L, member(p, "compression"), pc);
    load_transactions(L, member(p, "transactions"), pc);
}

static void load_producers(loader *L, json_t *root, ks_scenario *sc)
{
    json_t *arr = member(root, "producers");
    size_t mark = ks_jpath_key(&L->path, "producers");
    if (!arr || !json_is_array(arr) || json_array_size(arr) == 0 ||
        json_array_size(arr) > 10000) {
        if (!arr)
            err(L, "missing: a scenario needs at least one producer");
        else
            err_got(L, arr, "a non-empty array of at most 10000 producers");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    sc->producer_count = (uint32_t)json_array_size(arr);
    sc->producers = calloc(sc->producer_count, sizeof *sc->producers);
    if (!sc->producers) {
        err(L, "out of memory");
        sc->producer_count = 0;
    }
    for (uint32_t i = 0; i < sc->producer_count; i++) {
        json_t *p = json_array_get(arr, i);
        size_t m = ks_jpath_index(&L->path, i);
        if (json_is_object(p))
            load_producer(L, p, sc, i);
        else
            err_got(L, p, "a producer object");
        ks_jpath_restore(&L->path, m);
    }
    ks_jpath_restore(&L->path, mark);
}

/* create.partitions needs both "topic" and "total": without them the
 * operation set topic 0 to 0 partitions, and the next keyed send() hit
 * the partitioner's assert (found by fuzz_run). */
static void require_topic_total(loader *L, json_t *cp)
{
    static const char *const required[] = {"topic", "total"};
    for (size_t k = 0; k < 2; k++) {
        if (!member(cp, required[k])) {
            size_t m = ks_jpath_key(&L->path, required[k]);
            err(L, "missing: create.partitions needs a \"topic\" and a \"total\"");
            ks_jpath_restore(&L->path, m);
        }
    }
}

/* "admin": [{"at.ms": 500, "create.partitions": {"topic": "t", "total": 6}}] */
static void load_admin(loader *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"at.ms", "create.partitions", NULL};
    static const char *const cp_keys[] = {"topic", "total", NULL};
    for (uint32_t t = 0; t < sc->topic_count; t++)
        sc->topics[t].max_partitions = sc->topics[t].partitions;
    json_t *arr = member(root, "admin");
    if (!arr)
        return;
    size_t mark = ks_jpath_key(&L->path, "admin");
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    if (!json_is_array(arr) || n > 10000) {
        err_got(L, arr, "an array of at most 10000 admin operations");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    sc->admin = calloc(n ? n : 1, sizeof *sc->admin);
    if (!sc->admin) {
        err(L, "out of memory");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i), *cp = NULL;
        size_t m = ks_jpath_index(&L->path, i);
        ks_admin_op op = {0, 0, 0};
        const char *topic = NULL;
        int64_t total = 0;
        if (!json_is_object(o)) {
            err_got(L, o, "an admin operation object");
        } else {
            check_keys(L, o, keys, NULL);
            get_ms(L, o, "at.ms", false, &op.at_ns);
            if (!get_object(L, o, "create.partitions", &cp) || !cp) {
                size_t m2 = ks_jpath_key(&L->path, "create.partitions");
                err(L, "missing: the operation (create.partitions)");
                ks_jpath_restore(&L->path, m2);
            } else {
                size_t m2 = ks_jpath_key(&L->path, "create.partitions");
                check_keys(L, cp, cp_keys, NULL);
                require_topic_total(L, cp);
                bool found = false;
                if (get_string(L, cp, "topic", false, &topic)) {
                    for (uint32_t t = 0; t < sc->topic_count && !found; t++) {
                        if (sc->topics[t].name && strcmp(sc->topics[t].name, topic) == 0) {
                            op.topic = t;
                            found = true;
                        }
                    }
                    if (!found) {
                        size_t m3 = ks_jpath_key(&L->path, "topic");
                        err(L, "no topic \"%s\" in topics", topic);
                        ks_jpath_restore(&L->path, m3);
                    }
                }
                if (get_int(L, cp, "total", 1, MAX_COUNT, &total) && found) {
                    ks_topic_conf *tc = &sc->topics[op.topic];
                    if ((uint32_t)total <= tc->max_partitions) {
                        size_t m3 = ks_jpath_key(&L->path, "total");
                        /* Kafka: INVALID_PARTITIONS, partitions can only grow */
                        err(L, "topic \"%s\" has %u partitions by then; partitions can only be "
                               "added (Kafka: INVALID_PARTITIONS)",
                            tc->name, tc->max_partitions);
                        ks_jpath_restore(&L->path, m3);
                    } else {
                        tc->max_partitions = (uint32_t)total;
                        op.total = (uint32_t)total;
                    }
                }
                ks_jpath_restore(&L->path, m2);
            }
        }
        if (i > 0 && op.at_ns < sc->admin[i - 1].at_ns) {
            size_t m2 = ks_jpath_key(&L->path, "at.ms");
            err(L, "admin operations must be listed in time order");
            ks_jpath_restore(&L->path, m2);
        }
        sc->admin[i] = op;
        ks_jpath_restore(&L->path, m);
    }
    sc->admin_count = (uint32_t)n;
    ks_jpath_restore(&L->path, mark);
}

/* Looks up a consumer or producer id; -1 (with an error) when unknown. */
static int32_t find_client(loader *L, const char *what, const char *id, char *const *ids,
                           size_t stride, uint32_t n)
{
    const char *cands[256];
    size_t nc = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *cid = *(char *const *)((const char *)ids + i * stride);
        if (cid && strcmp(cid, id) == 0)
            return (int32_t)i;
        if (cid && nc < 256)
            cands[nc++] = cid;
    }
    const char *sug = ks_suggest(id, cands, nc);
    if (sug)
        err(L, "no %s \"%s\" (did you mean \"%s\"?)", what, id, sug);
    else
        err(L, "no %s \"%s\"", what, id);
    return -1;
}

/* ---- consumers --------------------------------------------------------- */

static void consumer_partitions(loader *L, json_t *v, const ks_scenario *sc, ks_consumer_conf *c)
{
    /* "topics" may have failed to load (its error is reported already) */
    if (!sc->topics || c->topic >= sc->topic_count)
        return;
    const ks_topic_conf *tc = &sc->topics[c->topic];
    c->all_partitions = v == NULL;
    size_t n = v ? (json_is_array(v) ? json_array_size(v) : 0) : tc->partitions;
    if (v && (!json_is_array(v) || n == 0 || n > MAX_COUNT)) {
        size_t m = ks_jpath_key(&L->path, "partitions");
        err_got(L, v, "an array of partition numbers");
        ks_jpath_restore(&L->path, m);
        return;
    }
    c->partitions = calloc(n, sizeof *c->partitions);
    if (!c->partitions) {
        err(L, "out of memory");
        return;
    }
    c->partition_count = (uint32_t)n;
    for (size_t k = 0; k < n; k++) {
        c->partitions[k] = (uint32_t)k;
        if (!v)
            continue;
        size_t m = ks_jpath_key(&L->path, "partitions");
        size_t mi = ks_jpath_index(&L->path, k);
        int64_t num;
        if (check_int(L, json_array_get(v, k), 0, (int64_t)tc->max_partitions - 1, &num))
            c->partitions[k] = (uint32_t)num;
        ks_jpath_restore(&L->path, mi);
        ks_jpath_restore(&L->path, m);
    }
}

static void load_consumer(loader *L, json_t *o, ks_scenario *sc, uint32_t i)
{
    static const char *const keys[] = {"id", "topic", "partitions", "isolation.level",
                                       "group.id", "start.ms", "poll.interval.ms",
                                       "max.poll.records", "process.us", "commit",
                                       "forward.to", "fetch.max.wait.ms", "auto.offset.reset",
                                       NULL};
    static const char *const isolation_names[] = {"read_uncommitted", "read_committed"};
    static const char *const reset_names[] = {"latest", "earliest"};
    ks_consumer_conf *c = &sc->consumers[i];
    c->forward_to = -1;
    c->poll_interval_ns = 10 * KS_NS_PER_MS;
    c->max_poll_records = 500;
    c->process_ns = 0;
    c->fetch_max_wait_ns = 500 * KS_NS_PER_MS; /* [K] ConsumerConfig: fetch.max.wait.ms */
    c->reset_earliest = false;                 /* auto.offset.reset: latest */
    check_keys(L, o, keys, NULL);
    const char *id = NULL;
    char defid[24];
    snprintf(defid, sizeof defid, "c%u", i + 1);
    if (!get_string(L, o, "id", false, &id))
        id = defid;
    for (uint32_t j = 0; j < i; j++) {
        if (sc->consumers[j].id && strcmp(sc->consumers[j].id, id) == 0) {
            size_t m = ks_jpath_key(&L->path, "id");
            err(L, "consumer id \"%s\" is used twice", id);
            ks_jpath_restore(&L->path, m);
        }
    }
    c->id = ks_strdup(id);
    load_producer_topic(L, o, sc, &c->topic);
    consumer_partitions(L, member(o, "partitions"), sc, c);
    unsigned ch;
    json_t *iso = member(o, "isolation.level");
    if (iso) {
        size_t m = ks_jpath_key(&L->path, "isolation.level");
        if (check_choice(L, iso, isolation_names, 2, &ch))
            c->read_committed = ch == 1;
        ks_jpath_restore(&L->path, m);
    }
    const char *g = id;
    get_string(L, o, "group.id", false, &g);
    c->group_id = ks_strdup(g);
    get_ms(L, o, "start.ms", false, &c->start_ns);
    get_ms(L, o, "poll.interval.ms", false, &c->poll_interval_ns);
    get_u32(L, o, "max.poll.records", 1, 1000000, &c->max_poll_records);
    get_ms(L, o, "fetch.max.wait.ms", false, &c->fetch_max_wait_ns);
    json_t *reset = member(o, "auto.offset.reset");
    if (reset) {
        size_t m = ks_jpath_key(&L->path, "auto.offset.reset");
        if (check_choice(L, reset, reset_names, 2, &ch))
            c->reset_earliest = ch == 1;
        ks_jpath_restore(&L->path, m);
    }
    double us;
    if (get_real(L, o, "process.us", 0.0, false, 1e9, &us))
        c->process_ns = ks_round_i64(us * 1e3);
    json_t *cm = member(o, "commit");
    if (cm) {
        size_t m = ks_jpath_key(&L->path, "commit");
        if (check_choice(L, cm, commit_mode_names, KS_COMMIT__COUNT, &ch))
            c->commit = (ks_commit_mode)ch;
        ks_jpath_restore(&L->path, m);
    }
    const char *fw;
    if (get_string(L, o, "forward.to", false, &fw)) {
        size_t m = ks_jpath_key(&L->path, "forward.to");
        c->forward_to = find_client(L, "producer", fw, sc->producers ? &sc->producers[0].id : NULL,
                                    sizeof(ks_producer_conf), sc->producer_count);
        ks_jpath_restore(&L->path, m);
    }
    if (c->commit == KS_COMMIT_TRANSACTION &&
        (c->forward_to < 0 || !sc->producers[c->forward_to].txn.enabled)) {
        size_t m = ks_jpath_key(&L->path, "commit");
        err(L, "\"transaction\" commits the offsets with a transactional producer's "
               "transaction: give \"forward.to\" a producer with a transactional.id");
        ks_jpath_restore(&L->path, m);
    }
}

/* "consumers": [{"id": "c1", "topic": "events", "isolation.level": "read_committed"}] */
static void load_consumers(loader *L, json_t *root, ks_scenario *sc)
{
    json_t *arr = member(root, "consumers");
    if (!arr)
        return;
    size_t mark = ks_jpath_key(&L->path, "consumers");
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    if (!json_is_array(arr) || n > 1000) {
        err_got(L, arr, "an array of at most 1000 consumers");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    sc->consumers = calloc(n ? n : 1, sizeof *sc->consumers);
    if (!sc->consumers) {
        err(L, "out of memory");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    sc->consumer_count = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        size_t m = ks_jpath_index(&L->path, i);
        if (!json_is_object(o))
            err_got(L, o, "a consumer object such as {\"id\": \"c1\", \"topic\": \"events\"}");
        else
            load_consumer(L, o, sc, (uint32_t)i);
        ks_jpath_restore(&L->path, m);
    }
    ks_jpath_restore(&L->path, mark);
}

/* ---- faults ------------------------------------------------------------ */

static const char *const fault_type_names[] = {
#define X(e, name) name,
    KS_FAULT_TYPES(X)
#undef X
    NULL};

const char *ks_fault_type_name(ks_fault_type t)
{
    assert((unsigned)t < (unsigned)KS_FAULT__COUNT);
    return fault_type_names[t];
}

/* The keys each fault type takes, besides "type" and "note". */
static const char *const *fault_keys(ks_fault_type t)
{
    static const char *const targeted[] = {"type", "note", "producer", "consumer", "broker",
                                           "partition", "api", "request", "after.ms", "count",
                                           NULL};
    static const char *const delayed[] = {"type", "note", "producer", "consumer", "broker",
                                          "partition", "api", "request", "after.ms", "count",
                                          "delay.ms", NULL};
    static const char *const failing[] = {"type", "note", "producer", "broker", "partition",
                                          "request", "after.ms", "count", "error", NULL};
    static const char *const loss[] = {"type", "note", "producer", "consumer", "broker",
                                       "probability", "from.ms", "to.ms", NULL};
    static const char *const link[] = {"type", "note", "producer", "consumer", "broker",
                                       "from.ms", "to.ms", NULL};
    static const char *const pause_b[] = {"type", "note", "broker", "from.ms", "to.ms", NULL};
    static const char *const pause_p[] = {"type", "note", "producer", "from.ms", "to.ms", NULL};
    static const char *const crash_p[] = {"type", "note", "producer", "at.ms", NULL};
    static const char *const crash_c[] = {"type", "note", "consumer", "at.ms", "restart.ms",
                                          "forward.to", NULL};
    switch (t) {
    case KS_FAULT_DROP_REQUEST:
    case KS_FAULT_DROP_RESPONSE:
        return targeted;
    case KS_FAULT_DELAY_REQUEST:
    case KS_FAULT_DELAY_RESPONSE:
        return delayed;
    case KS_FAULT_APPEND_ERROR:
        return failing;
    case KS_FAULT_REQUEST_LOSS:
    case KS_FAULT_RESPONSE_LOSS:
        return loss;
    case KS_FAULT_LINK_DOWN:
        return link;
    case KS_FAULT_PAUSE_BROKER:
        return pause_b;
    case KS_FAULT_PAUSE_PRODUCER:
        return pause_p;
    case KS_FAULT_CRASH_PRODUCER:
        return crash_p;
    case KS_FAULT_CRASH_CONSUMER:
        return crash_c;
    case KS_FAULT__COUNT:
        break;
    }
    return targeted;
}

static void fault_producer(loader *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *id;
    if (!get_string(L, o, "producer", false, &id))
        return;
    size_t m = ks_jpath_key(&L->path, "producer");
    const char *ids[256];
    size_t n = 0;
    for (uint32_t i = 0; i < sc->producer_count; i++) {
        if (sc->producers[i].id && strcmp(sc->producers[i].id, id) == 0)
            f->producer = (int32_t)i;
        if (n < 256 && sc->producers[i].id)
            ids[n++] = sc->producers[i].id;
    }
    if (f->producer < 0) {
        const char *sug = ks_suggest(id, ids, n);
        if (sug)
            err(L, "no producer \"%s\" (did you mean \"%s\"?)", id, sug);
        else
            err(L, "no producer \"%s\"", id);
    }
    ks_jpath_restore(&L->path, m);
}

/* "partition": "events-0": a topic name, a dash, a partition number. */
static void fault_partition(loader *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *text;
    if (!get_string(L, o, "partition", false, &text))
        return;
    size_t m = ks_jpath_key(&L->path, "partition");
    const char *dash = strrchr(text, '-');
    char *end = NULL;
    long num = dash && dash[1] ? strtol(dash + 1, &end, 10) : -1;
    if (!dash || dash == text || !end || *end || num < 0) {
        err(L, "expected \"TOPIC-N\" such as \"events-0\", got \"%s\"", text);
        ks_jpath_restore(&L->path, m);
        return;
    }
    size_t len = (size_t)(dash - text);
    for (uint32_t t = 0; t < sc->topic_count; t++) {
        const ks_topic_conf *tc = &sc->topics[t];
        if (!tc->name || strlen(tc->name) != len || strncmp(tc->name, text, len) != 0)
            continue;
        if ((uint64_t)num >= tc->max_partitions)
            err(L, "topic \"%s\" has %u partitions; there is no partition %ld", tc->name,
                tc->max_partitions, num);
        f->topic = (int32_t)t;
        f->partition = (int32_t)num;
    }
    if (f->topic < 0)
        err(L, "no topic \"%.*s\" in topics", (int)len, text);
    ks_jpath_restore(&L->path, m);
}

/* crash.consumer: the consumer's process dies at at.ms; with restart.ms
 * a new one starts from the group's committed offsets, forwarding to
 * forward.to (a producer of the same transactional.id, the restarted
 * process's) if given. */
static void fault_crash_consumer(loader *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *id;
    if (!member(o, "consumer"))
        err(L, "missing: \"consumer\", the consumer whose process dies");
    if (get_string(L, o, "consumer", false, &id)) {
        size_t m = ks_jpath_key(&L->path, "consumer");
        f->consumer = find_client(L, "consumer", id, sc->consumers ? &sc->consumers[0].id : NULL,
                                  sizeof(ks_consumer_conf), sc->consumer_count);
        ks_jpath_restore(&L->path, m);
    }
    if (!member(o, "at.ms"))
        err(L, "missing: \"at.ms\", when it dies");
    get_ms(L, o, "at.ms", false, &f->from_ns);
    if (get_ms(L, o, "restart.ms", false, &f->to_ns) && f->to_ns <= f->from_ns) {
        size_t m = ks_jpath_key(&L->path, "restart.ms");
        err(L, "the restart comes before the crash (restart.ms must be greater than at.ms)");
        ks_jpath_restore(&L->path, m);
    }
    if (get_string(L, o, "forward.to", false, &id)) {
        size_t m = ks_jpath_key(&L->path, "forward.to");
        f->forward_to = find_client(L, "producer", id, sc->producers ? &sc->producers[0].id : NULL,
                                    sizeof(ks_producer_conf), sc->producer_count);
        ks_jpath_restore(&L->path, m);
    }
}

/* "consumer": a message fault that strikes only that consumer's requests
 * or their answers (crash.consumer names its consumer itself). */
static void fault_client_consumer(loader *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *id;
    if (f->type == KS_FAULT_CRASH_CONSUMER || !get_string(L, o, "consumer", false, &id))
        return;
    size_t m = ks_jpath_key(&L->path, "consumer");
    if (f->producer >= 0)
        err(L, "a fault strikes one client's messages: name a producer or a consumer, not both");
    else
        f->consumer = find_client(L, "consumer", id, sc->consumers ? &sc->consumers[0].id : NULL,
                                  sizeof(ks_consumer_conf), sc->consumer_count);
    ks_jpath_restore(&L->path, m);
}

/* "api": the requests a targeted fault looks at (default Produce). */
static void fault_api(loader *L, json_t *o, ks_fault_conf *f)
{
    const char *name;
    if (!get_string(L, o, "api", false, &name))
        return;
    size_t m = ks_jpath_key(&L->path, "api");
    ks_api a;
    const char *names[KS_API__COUNT];
    for (int i = 0; i < KS_API__COUNT; i++)
        names[i] = ks_api_name((ks_api)i);
    if (ks_api_find(name, &a)) {
        f->api = a;
    } else {
        const char *sug = ks_suggest(name, names, KS_API__COUNT);
        if (sug)
            err(L, "unknown API \"%s\" (did you mean \"%s\"?)", name, sug);
        else
            err(L, "unknown API \"%s\": one of Produce, Fetch, ListOffsets, Metadata, "
                   "OffsetCommit, OffsetFetch, FindCoordinator, InitProducerId, "
                   "AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn, WriteTxnMarkers",
                name);
    }
    ks_jpath_restore(&L->path, m);
}

static void fault_window(loader *L, json_t *o, ks_fault_conf *f, bool required)
{
    get_ms(L, o, "from.ms", false, &f->from_ns);
    get_ms(L, o, "to.ms", false, &f->to_ns);
    if (required && (!member(o, "from.ms") || !member(o, "to.ms"))) {
        err(L, "missing: a window needs \"from.ms\" and \"to.ms\"");
    } else if (f->to_ns <= f->from_ns) {
        size_t m = ks_jpath_key(&L->path, "to.ms");
        err(L, "the window ends before it begins (to.ms must be greater than from.ms)");
        ks_jpath_restore(&L->path, m);
    }
}

static void fault_error(loader *L, json_t *o, ks_fault_conf *f)
{
    const char *name;
    if (!member(o, "error")) {
        err(L, "missing: \"error\", the Kafka error the leader answers with");
        return;
    }
    if (!get_string(L, o, "error", false, &name))
        return;
    size_t m = ks_jpath_key(&L->path, "error");
    const char *names[KS_KERR__COUNT];
    size_t n = 0;
    for (int i = 0; i < KS_KERR__COUNT; i++)
        if (ks_kerr_injectable((ks_kerr)i))
            names[n++] = ks_kerr_name((ks_kerr)i);
    ks_kerr e;
    if (ks_kerr_find(name, &e) && ks_kerr_injectable(e)) {
        f->error = e;
    } else {
        char list[1024];
        size_t k = 0;
        list[0] = '\0';
        for (size_t i = 0; i < n && k < sizeof list; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", names[i]);
        const char *sug = ks_suggest(name, names, n);
        if (sug)
            err(L, "\"%s\" is not an error ksim injects (did you mean \"%s\"?); one of %s",
                name, sug, list);
        else
            err(L, "\"%s\" is not an error ksim injects; one of %s", name, list);
    }
    ks_jpath_restore(&L->path, m);
}

static void load_fault(loader *L, json_t *o, ks_scenario *sc, ks_fault_conf *f)
{
    const char *type = NULL;
    if (!member(o, "type")) {
        err(L, "missing: \"type\", one of drop.request, drop.response, delay.request, "
               "delay.response, append.error, request.loss, response.loss, link.down, "
               "pause.broker, pause.producer");
        return;
    }
    if (!get_string(L, o, "type", false, &type))
        return;
    int t = -1;
    for (int i = 0; i < KS_FAULT__COUNT; i++)
        if (strcmp(type, fault_type_names[i]) == 0)
            t = i;
    if (t < 0) {
        size_t m = ks_jpath_key(&L->path, "type");
        const char *sug = ks_suggest(type, fault_type_names, KS_FAULT__COUNT);
        if (sug)
            err(L, "unknown fault type \"%s\" (did you mean \"%s\"?)", type, sug);
        else
            err(L, "unknown fault type \"%s\"", type);
        ks_jpath_restore(&L->path, m);
        return;
    }
    f->type = (ks_fault_type)t;
    check_keys(L, o, fault_keys(f->type), NULL);
    const char *note;
    if (get_string(L, o, "note", false, &note))
        f->note = ks_strdup(note);
    fault_producer(L, o, sc, f);
    fault_client_consumer(L, o, sc, f);
    if (member(o, "broker")) {
        uint32_t b;
        if (get_u32(L, o, "broker", 0, sc->broker_count - 1, &b))
            f->broker = (int32_t)b;
    }
    fault_partition(L, o, sc, f);
    fault_api(L, o, f);
    int64_t req;
    if (get_int(L, o, "request", 1, INT64_MAX, &req))
        f->request = req;
    if (f->request >= 0 && f->producer < 0 && sc->producer_count > 1 && !member(o, "producer"))
        err(L, "\"request\" numbers are per producer: with %u producers, say which "
               "(\"producer\")",
            sc->producer_count);
    get_ms(L, o, "after.ms", false, &f->after_ns);
    get_u32(L, o, "count", 1, UINT32_MAX, &f->count);
    switch (f->type) {
    case KS_FAULT_DELAY_REQUEST:
    case KS_FAULT_DELAY_RESPONSE:
        if (!member(o, "delay.ms"))
            err(L, "missing: \"delay.ms\", how long the message is held up");
        get_ms(L, o, "delay.ms", false, &f->delay_ns);
        break;
    case KS_FAULT_APPEND_ERROR:
        fault_error(L, o, f);
        break;
    case KS_FAULT_REQUEST_LOSS:
    case KS_FAULT_RESPONSE_LOSS:
        if (!member(o, "probability"))
            err(L, "missing: \"probability\", the chance that each message is lost");
        get_real(L, o, "probability", 0.0, false, 1.0, &f->probability);
        fault_window(L, o, f, false);
        break;
    case KS_FAULT_LINK_DOWN:
        fault_window(L, o, f, true);
        break;
    case KS_FAULT_PAUSE_BROKER:
        if (!member(o, "broker"))
            err(L, "missing: \"broker\", the broker to pause");
        fault_window(L, o, f, true);
        break;
    case KS_FAULT_PAUSE_PRODUCER:
        if (!member(o, "producer"))
            err(L, "missing: \"producer\", the producer to pause");
        fault_window(L, o, f, true);
        break;
    case KS_FAULT_CRASH_PRODUCER:
        if (!member(o, "producer"))
            err(L, "missing: \"producer\", the producer whose process dies");
        if (!member(o, "at.ms"))
            err(L, "missing: \"at.ms\", when it dies");
        get_ms(L, o, "at.ms", false, &f->from_ns);
        break;
    case KS_FAULT_CRASH_CONSUMER:
        fault_crash_consumer(L, o, sc, f);
        break;
    case KS_FAULT_DROP_REQUEST:
    case KS_FAULT_DROP_RESPONSE:
    case KS_FAULT__COUNT:
        break;
    }
}

/* "faults": [{"type": "drop.response", "request": 1}, ...] */
static void load_faults(loader *L, json_t *root, ks_scenario *sc)
{
    json_t *arr = member(root, "faults");
    if (!arr)
        return;
    size_t mark = ks_jpath_key(&L->path, "faults");
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    if (!json_is_array(arr) || n > 10000) {
        err_got(L, arr, "an array of at most 10000 faults");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    sc->faults = calloc(n ? n : 1, sizeof *sc->faults);
    if (!sc->faults) {
        err(L, "out of memory");
        ks_jpath_restore(&L->path, mark);
        return;
    }
    sc->fault_count = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        size_t m = ks_jpath_index(&L->path, i);
        ks_fault_conf *f = &sc->faults[i];
        *f = (ks_fault_conf){.producer = -1, .broker = -1, .topic = -1, .partition = -1,
                             .api = KS_API_PRODUCE, .request = -1, .count = 1,
                             .to_ns = KS_TIME_MAX, .consumer = -1, .forward_to = -1};
        if (!json_is_object(o))
            err_got(L, o, "a fault object such as {\"type\": \"drop.response\", \"request\": 1}");
        else
            load_fault(L, o, sc, f);
        ks_jpath_restore(&L->path, m);
    }
    ks_jpath_restore(&L->path, mark);
}

/* Comparison operators an expectation may use. */
static const char *const expect_ops[] = {"==", "!=", "<", "<=", ">", ">=", NULL};

static void load_expect(loader *L, json_t *root, ks_scenario *sc)
{
    json_t *obj;
    if (!get_object(L, root, "expect", &obj))
        return;
    size_t mark = ks_jpath_key(&L->path, "expect");
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        size_t m = ks_jpath_key(&L->path, k);
        const char *text = cli_text_of(L, v);
        if (text) {
            /* --set expect.PATH=TEXT: read TEXT as JSON when it is JSON
             * ("10", "true", "null"), else keep it as a string. */
            json_error_t je;
            json_t *parsed = json_loads(text, JSON_DECODE_ANY, &je);
            if (parsed)
                json_object_set_new(obj, k, parsed);
            v = json_object_get(obj, k);
        }
        if (json_is_object(v) && json_object_size(v) > 0) {
            size_t ops = 0;
            const char *ok;
            json_t *ov;
            json_object_foreach(v, ok, ov) {
                bool known = false;
                for (size_t i = 0; expect_ops[i]; i++)
                    known = known || strcmp(ok, expect_ops[i]) == 0;
                if (known) {
                    ops++;
                    if (strcmp(ok, "==") && strcmp(ok, "!=") && !json_is_number(ov)) {
                        size_t m2 = ks_jpath_key(&L->path, ok);
                        err_got(L, ov, "a number to compare with");
                        ks_jpath_restore(&L->path, m2);
                    }
                }
            }
            if (ops > 0 && ops != json_object_size(v))
                err(L, "mixes comparison operators with other keys; write "
                       "{\"<=\": 5} style comparisons or a plain value, not both");
        }
        ks_jpath_restore(&L->path, m);
    }
    sc->expect = json_deep_copy(obj);
    ks_jpath_restore(&L->path, mark);
}

static void load_top(loader *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"scenario.format", "name", "description", "seed",
                                       "kafka.version", "limits", "brokers", "network",
                                       "topics", "producers", "consumers", "admin", "faults",
                                       "metrics", "expect", NULL};
    static const char *const planned[] = {"transactions",
                                          "replication", NULL};
    check_keys(L, root, keys, planned);
    int64_t fmt = KS_SCENARIO_FORMAT;
    if (get_int(L, root, "scenario.format", 1, INT64_MAX, &fmt) && fmt != KS_SCENARIO_FORMAT) {
        size_t m = ks_jpath_key(&L->path, "scenario.format");
        err(L, "format %lld is newer than this ksim (%s) reads: it reads format %d",
            (long long)fmt, KS_VERSION, KS_SCENARIO_FORMAT);
        ks_jpath_restore(&L->path, m);
    }
    const char *s = NULL;
    if (get_string(L, root, "name", false, &s))
        sc->name = ks_strdup(s);
    if (get_string(L, root, "description", false, &s))
        sc->description = ks_strdup(s);
    int64_t seed;
    sc->seed = 1;
    if (get_int(L, root, "seed", 0, INT64_MAX, &seed))
        sc->seed = (uint64_t)seed;
    const char *ver = KS_KAFKA_VERSION_DEFAULT;
    get_string(L, root, "kafka.version", false, &ver);
    if (!ks_kafka_version_parse(ver, &sc->kafka_version)) {
        size_t m = ks_jpath_key(&L->path, "kafka.version");
        err(L, "expected a Kafka release from 2.0 to 4.1 such as \"3.9\" or \"3.0.0\", "
               "got \"%s\"", ver);
        ks_jpath_restore(&L->path, m);
        ks_kafka_version_parse(KS_KAFKA_VERSION_DEFAULT, &sc->kafka_version);
    }
    sc->kafka_version_text = ks_strdup(ver);
    L->kv = sc->kafka_version;
}

/* The file's base name without ".json": the default scenario name. */
static char *default_name(const char *file)
{
    if (strcmp(file, "-") == 0)
        return ks_strdup("stdin");
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    return ks_strndup(base, n);
}

/* Applies one --set; records string values for coercion. */
static void apply_override(loader *L, json_t *root, const ks_override *o,
                           const char *const *leaves)
{
    json_t *value;
    const char *t = o->value;
    bool string_value = false;
    if (t[0] == '[' || t[0] == '{' || t[0] == '"') {
        json_error_t je;
        value = json_loads(t, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
        if (!value) {
            ks_diag_error(L->diag, "--set %s=%s: the value is not valid JSON: %s (column %d)",
                          o->path, t, je.text, je.column);
            return;
        }
    } else {
        value = json_string(t);
        string_value = true;
        if (!value) {
            ks_diag_error(L->diag, "--set %s=%s: the value is not valid UTF-8", o->path, t);
            return;
        }
    }
    json_incref(value);
    char msg[256];
    if (!ks_json_set(root, o->path, value, sections, leaves, msg, sizeof msg)) {
        ks_diag_error(L->diag, "--set %s=%s: %s", o->path, t, msg);
    } else if (L->n_cli < MAX_CLI_VALUES) {
        /* Keep a reference of our own: a later --set may replace the value
         * in the document, and its address must not be reused by another
         * value while we still compare addresses. Released at the end of
         * the load. */
        json_incref(value);
        L->cli[L->n_cli] = value;
        L->cli_from[L->n_cli] = o;
        L->cli_is_text[L->n_cli] = string_value;
        L->n_cli++;
    }
    json_decref(value);
}

/* Writes the default producer ids and the default topic into the
 * document, so that --set paths can name them ("producers.p2...",
 * "topics.events...") as the documentation says. */
static void name_defaults(json_t *root)
{
    json_t *prods = json_object_get(root, "producers");
    size_t i;
    json_t *p;
    json_array_foreach(prods, i, p) {
        if (json_is_object(p) && !json_object_get(p, "id")) {
            char id[32];
            snprintf(id, sizeof id, "p%zu", i + 1);
            json_object_set_new(p, "id", json_string(id));
        }
    }
    if (!json_object_get(root, "topics")) {
        json_t *t = json_object();
        json_object_set_new(t, "name", json_string("events"));
        json_t *arr = json_array();
        json_array_append_new(arr, t);
        json_object_set_new(root, "topics", arr);
    }
}

ks_scenario *ks_scenario_parse(const char *file, const char *text, const ks_override *ovr,
                               size_t n_ovr, bool has_seed, uint64_t seed, ks_diag *diag)
{
    return ks_scenario_parse_bytes(file, text, strlen(text), ovr, n_ovr, has_seed, seed, diag);
}

ks_scenario *ks_scenario_parse_bytes(const char *file, const char *data, size_t len,
                                     const ks_override *ovr, size_t n_ovr, bool has_seed,
                                     uint64_t seed, ks_diag *diag)
{
    /* jansson would stop at a NUL byte and read what comes before it as
     * the whole file; a scenario is text, so a NUL anywhere is refused. */
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        ks_diag_error(diag, "%s: byte %zu is a NUL byte (0x00): a scenario file is JSON text",
                      file, (size_t)(nul - data));
        return NULL;
    }
    json_error_t je;
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        ks_diag_error(diag, "%s:%d:%d: invalid JSON: %s", file, je.line, je.column, je.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        ks_diag_error(diag, "%s: $: expected a scenario object ({...}) at the top level", file);
        json_decref(root);
        return NULL;
    }
    loader L;
    memset(&L, 0, sizeof L);
    L.file = file;
    L.diag = diag;
    ks_jpath_init(&L.path);
    unsigned errors_before = diag->count;
    if (n_ovr > KS_MAX_OVERRIDES) {
        ks_diag_error(diag, "more than %d --set overrides", KS_MAX_OVERRIDES);
        json_decref(root);
        return NULL;
    }
    name_defaults(root);
    const char **leaves = n_ovr ? leaf_keys() : NULL;
    for (size_t i = 0; i < n_ovr; i++)
        apply_override(&L, root, &ovr[i], leaves);
    free(leaves);

    ks_scenario *sc = calloc(1, sizeof *sc);
    if (!sc) {
        ks_diag_error(diag, "%s: out of memory", file);
        json_decref(root);
        return NULL;
    }
    sc->file = ks_strdup(file);
    sc->doc = root;
    load_top(&L, root, sc);
    if (!sc->name)
        sc->name = default_name(file);
    if (has_seed)
        sc->seed = seed;
    load_limits(&L, root, sc);
    load_metrics(&L, root, sc);
    load_brokers(&L, root, sc);
    load_network(&L, root, sc);
    load_topics(&L, root, sc);
    load_producers(&L, root, sc);
    load_admin(&L, root, sc);
    load_consumers(&L, root, sc);
    load_faults(&L, root, sc);
    if ((uint64_t)sc->producer_count * sc->broker_count > 1000000u)
        ks_diag_error(diag, "%s: $.producers: %u producers x %u brokers is more than the "
                            "1000000 connections ksim simulates at once",
                      file, sc->producer_count, sc->broker_count);
    load_expect(&L, root, sc);
    for (size_t i = 0; i < L.n_cli; i++)
        json_decref(L.cli[i]);
    if (diag->count > errors_before) {
        ks_scenario_free(sc);
        return NULL;
    }
    return sc;
}

ks_scenario *ks_scenario_load(const char *file, const ks_override *ovr, size_t n_ovr,
                              bool has_seed, uint64_t seed, ks_diag *diag)
{
    FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "rb");
    if (!f) {
        ks_diag_error(diag, "%s: cannot open: %s", file, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            if (cap >= (size_t)64 << 20) {
                ks_diag_error(diag, "%s: larger than 64 MiB; not a scenario file", file);
                free(buf);
                buf = NULL;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    bool read_error = ferror(f) != 0;
    if (f != stdin)
        fclose(f);
    if (!buf || read_error) {
        if (diag->count == 0)
            ks_diag_error(diag, "%s: cannot read the file", file);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    ks_scenario *sc = ks_scenario_parse_bytes(file, buf, len, ovr, n_ovr, has_seed, seed, diag);
    free(buf);
    return sc;
}

void ks_scenario_free(ks_scenario *sc)
{
    if (!sc)
        return;
    for (uint32_t i = 0; sc->topics && i < sc->topic_count; i++)
        free(sc->topics[i].name);
    free(sc->topics);
    for (uint32_t i = 0; sc->producers && i < sc->producer_count; i++) {
        free(sc->producers[i].id);
        ks_workload_conf *w = &sc->producers[i].workload;
        for (uint32_t k = 0; w->keys && k < w->key_count; k++)
            free(w->keys[k]);
        free(w->keys);
        free(w->value_bytes);
        free(w->key_prefix);
        free(sc->producers[i].txn.ends);
    }
    free(sc->producers);
    for (uint32_t i = 0; sc->consumers && i < sc->consumer_count; i++) {
        free(sc->consumers[i].id);
        free(sc->consumers[i].group_id);
        free(sc->consumers[i].partitions);
    }
    free(sc->consumers);
    free(sc->admin);
    for (uint32_t i = 0; sc->faults && i < sc->fault_count; i++)
        free(sc->faults[i].note);
    free(sc->faults);
    free(sc->broker_costs);
    free(sc->broker_overridden);
    free(sc->file);
    free(sc->name);
    free(sc->description);
    free(sc->kafka_version_text);
    json_decref(sc->expect);
    json_decref(sc->doc);
    free(sc);
}
