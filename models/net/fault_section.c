/*
 * fault_section.c - the scenario's "faults" section, loaded and written
 * back (see fault_section.h). Reads only the document and the sections
 * loaded before it; never injects anything.
 */
#include "models/net/fault_section.h"

#include "models/scenario_types.h"
#include "sim/rng.h"
#include "sim/str.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names as a list for messages, from the same X-macros (the first
 * ", " skipped). */
#define X(e, name) ", " name
static const char fault_type_list[] = "" KS_FAULT_TYPES(X);
#undef X
#define X(e, name, key) ", " name
static const char api_list[] = "" KS_APIS(X);
#undef X

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

/* The keys each fault type takes ("type", "note" and "name" all do). */
static const char *const *fault_keys(ks_fault_type t)
{
    static const char *const targeted[] = {"type", "note", "name", "producer", "consumer",
                                           "broker", "partition", "api", "request", "after.ms",
                                           "count", NULL};
    static const char *const delayed[] = {"type", "note", "name", "producer", "consumer",
                                          "broker", "partition", "api", "request", "after.ms",
                                          "count", "delay.ms", NULL};
    static const char *const failing[] = {"type", "note", "name", "producer", "broker",
                                          "partition", "request", "after.ms", "count", "error",
                                          NULL};
    static const char *const loss[] = {"type", "note", "name", "producer", "consumer", "broker",
                                       "probability", "from.ms", "to.ms", NULL};
    static const char *const link[] = {"type", "note", "name", "producer", "consumer", "broker",
                                       "from.ms", "to.ms", NULL};
    static const char *const pause_b[] = {"type", "note", "name", "broker", "from.ms", "to.ms",
                                          NULL};
    static const char *const pause_p[] = {"type", "note", "name", "producer", "from.ms", "to.ms",
                                          NULL};
    static const char *const crash_p[] = {"type", "note", "name", "producer", "at.ms", NULL};
    static const char *const crash_c[] = {"type", "note", "name", "consumer", "at.ms",
                                          "restart.ms", "forward.to", NULL};
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

static void fault_producer(ks_conf *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *id;
    if (!ks_conf_get_string(L, o, "producer", false, &id))
        return;
    size_t m = ks_conf_enter(L, "producer");
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
            ks_conf_err(L, "no producer \"%s\" (did you mean \"%s\"?)", id, sug);
        else
            ks_conf_err(L, "no producer \"%s\"", id);
    }
    ks_conf_leave(L, m);
}

/* "partition": "events-0": a topic name, a dash, a partition number. */
static void fault_partition(ks_conf *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *text;
    if (!ks_conf_get_string(L, o, "partition", false, &text))
        return;
    size_t m = ks_conf_enter(L, "partition");
    const char *dash = strrchr(text, '-');
    char *end = NULL;
    long num = dash && dash[1] ? strtol(dash + 1, &end, 10) : -1;
    if (!dash || dash == text || !end || *end || num < 0) {
        ks_conf_err(L, "expected \"TOPIC-N\" such as \"events-0\", got \"%s\"", text);
        ks_conf_leave(L, m);
        return;
    }
    size_t len = (size_t)(dash - text);
    for (uint32_t t = 0; t < sc->topic_count; t++) {
        const ks_topic_conf *tc = &sc->topics[t];
        if (!tc->name || strlen(tc->name) != len || strncmp(tc->name, text, len) != 0)
            continue;
        if ((uint64_t)num >= tc->max_partitions)
            ks_conf_err(L, "topic \"%s\" has %u partitions; there is no partition %ld", tc->name,
                tc->max_partitions, num);
        f->topic = (int32_t)t;
        f->partition = (int32_t)num;
    }
    if (f->topic < 0)
        ks_conf_err(L, "no topic \"%.*s\" in topics", (int)len, text);
    ks_conf_leave(L, m);
}

/* crash.consumer: the consumer's process dies at at.ms; with restart.ms
 * a new one starts from the group's committed offsets, forwarding to
 * forward.to (a producer of the same transactional.id, the restarted
 * process's) if given. */
static void fault_crash_consumer(ks_conf *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *id;
    if (!ks_conf_member(o, "consumer"))
        ks_conf_err(L, "missing: \"consumer\", the consumer whose process dies");
    if (ks_conf_get_string(L, o, "consumer", false, &id)) {
        size_t m = ks_conf_enter(L, "consumer");
        f->consumer = ks_conf_find_id(L, "consumer", id, sc->consumers ? &sc->consumers[0].id : NULL,
                                  sizeof(ks_consumer_conf), sc->consumer_count);
        ks_conf_leave(L, m);
    }
    if (!ks_conf_member(o, "at.ms"))
        ks_conf_err(L, "missing: \"at.ms\", when it dies");
    ks_conf_get_ms(L, o, "at.ms", false, &f->from_ns);
    if (ks_conf_get_ms(L, o, "restart.ms", false, &f->to_ns) && f->to_ns <= f->from_ns) {
        size_t m = ks_conf_enter(L, "restart.ms");
        ks_conf_err(L, "the restart comes before the crash (restart.ms must be greater than at.ms)");
        ks_conf_leave(L, m);
    }
    if (ks_conf_get_string(L, o, "forward.to", false, &id)) {
        size_t m = ks_conf_enter(L, "forward.to");
        f->forward_to = ks_conf_find_id(L, "producer", id, sc->producers ? &sc->producers[0].id : NULL,
                                    sizeof(ks_producer_conf), sc->producer_count);
        ks_conf_leave(L, m);
    }
}

/* "consumer": a message fault that strikes only that consumer's requests
 * or their answers (crash.consumer names its consumer itself). */
static void fault_client_consumer(ks_conf *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *id;
    if (f->type == KS_FAULT_CRASH_CONSUMER || !ks_conf_get_string(L, o, "consumer", false, &id))
        return;
    size_t m = ks_conf_enter(L, "consumer");
    if (f->producer >= 0)
        ks_conf_err(L, "a fault strikes one client's messages: name a producer or a consumer, not both");
    else
        f->consumer = ks_conf_find_id(L, "consumer", id, sc->consumers ? &sc->consumers[0].id : NULL,
                                  sizeof(ks_consumer_conf), sc->consumer_count);
    ks_conf_leave(L, m);
}

/* "api": the requests a targeted fault looks at (default Produce). */
static void fault_api(ks_conf *L, json_t *o, ks_fault_conf *f)
{
    const char *name;
    if (!ks_conf_get_string(L, o, "api", false, &name))
        return;
    size_t m = ks_conf_enter(L, "api");
    ks_api a;
    const char *names[KS_API__COUNT];
    for (int i = 0; i < KS_API__COUNT; i++)
        names[i] = ks_api_name((ks_api)i);
    if (ks_api_find(name, &a)) {
        f->api = a;
    } else {
        const char *sug = ks_suggest(name, names, KS_API__COUNT);
        if (sug)
            ks_conf_err(L, "unknown API \"%s\" (did you mean \"%s\"?)", name, sug);
        else
            ks_conf_err(L, "unknown API \"%s\": one of %s", name, api_list + 2);
    }
    ks_conf_leave(L, m);
}

static void fault_window(ks_conf *L, json_t *o, ks_fault_conf *f, bool required)
{
    ks_conf_get_ms(L, o, "from.ms", false, &f->from_ns);
    ks_conf_get_ms(L, o, "to.ms", false, &f->to_ns);
    if (required && (!ks_conf_member(o, "from.ms") || !ks_conf_member(o, "to.ms"))) {
        ks_conf_err(L, "missing: a window needs \"from.ms\" and \"to.ms\"");
    } else if (f->to_ns <= f->from_ns) {
        size_t m = ks_conf_enter(L, "to.ms");
        ks_conf_err(L, "the window ends before it begins (to.ms must be greater than from.ms)");
        ks_conf_leave(L, m);
    }
}

static void fault_error(ks_conf *L, json_t *o, ks_fault_conf *f)
{
    const char *name;
    if (!ks_conf_member(o, "error")) {
        ks_conf_err(L, "missing: \"error\", the Kafka error the leader answers with");
        return;
    }
    if (!ks_conf_get_string(L, o, "error", false, &name))
        return;
    size_t m = ks_conf_enter(L, "error");
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
            ks_conf_err(L, "\"%s\" is not an error ksim injects (did you mean \"%s\"?); one of %s",
                name, sug, list);
        else
            ks_conf_err(L, "\"%s\" is not an error ksim injects; one of %s", name, list);
    }
    ks_conf_leave(L, m);
}

/* The keys only some types take, and the ones a type needs. */
static void fault_by_type(ks_conf *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    switch (f->type) {
    case KS_FAULT_DELAY_REQUEST:
    case KS_FAULT_DELAY_RESPONSE:
        if (!ks_conf_member(o, "delay.ms"))
            ks_conf_err(L, "missing: \"delay.ms\", how long the message is held up");
        ks_conf_get_ms(L, o, "delay.ms", false, &f->delay_ns);
        break;
    case KS_FAULT_APPEND_ERROR:
        fault_error(L, o, f);
        break;
    case KS_FAULT_REQUEST_LOSS:
    case KS_FAULT_RESPONSE_LOSS:
        if (!ks_conf_member(o, "probability"))
            ks_conf_err(L, "missing: \"probability\", the chance that each message is lost");
        ks_conf_get_real(L, o, "probability", 0.0, false, 1.0, &f->probability);
        fault_window(L, o, f, false);
        break;
    case KS_FAULT_LINK_DOWN:
        fault_window(L, o, f, true);
        break;
    case KS_FAULT_PAUSE_BROKER:
        if (!ks_conf_member(o, "broker"))
            ks_conf_err(L, "missing: \"broker\", the broker to pause");
        fault_window(L, o, f, true);
        break;
    case KS_FAULT_PAUSE_PRODUCER:
        if (!ks_conf_member(o, "producer"))
            ks_conf_err(L, "missing: \"producer\", the producer to pause");
        fault_window(L, o, f, true);
        break;
    case KS_FAULT_CRASH_PRODUCER:
        if (!ks_conf_member(o, "producer"))
            ks_conf_err(L, "missing: \"producer\", the producer whose process dies");
        if (!ks_conf_member(o, "at.ms"))
            ks_conf_err(L, "missing: \"at.ms\", when it dies");
        ks_conf_get_ms(L, o, "at.ms", false, &f->from_ns);
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

/* "name": the fault's own name, which its random stream is called by
 * ("fault.NAME"); unique among the faults, in the producers' id alphabet
 * (so never one with the "#" of a derived name). */
static void fault_name(ks_conf *L, json_t *o, const ks_scenario *sc, ks_fault_conf *f)
{
    const char *name;
    if (!ks_conf_get_string(L, o, "name", false, &name))
        return;
    size_t m = ks_conf_enter(L, "name");
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789._-";
    size_t len = strlen(name);
    if (len == 0 || len > 100 || strspn(name, alphabet) != len) {
        ks_conf_err(L, "\"%s\" is not a valid fault name: 1-100 characters of a-z A-Z 0-9 . _ -",
                    name);
        ks_conf_leave(L, m);
        return;
    }
    for (const ks_fault_conf *g = sc->faults; g < f; g++) {
        if (g->name && strcmp(g->name, name) == 0) {
            ks_conf_err(L, "fault name \"%s\" is used twice (also by $.faults[%u])", name,
                        (unsigned)(g - sc->faults));
            ks_conf_leave(L, m);
            return;
        }
    }
    f->name = ks_strdup(name);
    if (!f->name)
        ks_conf_err(L, "out of memory");
    ks_conf_leave(L, m);
}

static void load_fault(ks_conf *L, json_t *o, ks_scenario *sc, ks_fault_conf *f)
{
    const char *type = NULL;
    if (!ks_conf_member(o, "type")) {
        ks_conf_err(L, "missing: \"type\", one of %s", fault_type_list + 2);
        return;
    }
    if (!ks_conf_get_string(L, o, "type", false, &type))
        return;
    int t = -1;
    for (int i = 0; i < KS_FAULT__COUNT; i++)
        if (strcmp(type, fault_type_names[i]) == 0)
            t = i;
    if (t < 0) {
        size_t m = ks_conf_enter(L, "type");
        const char *sug = ks_suggest(type, fault_type_names, KS_FAULT__COUNT);
        if (sug)
            ks_conf_err(L, "unknown fault type \"%s\" (did you mean \"%s\"?)", type, sug);
        else
            ks_conf_err(L, "unknown fault type \"%s\"", type);
        ks_conf_leave(L, m);
        return;
    }
    f->type = (ks_fault_type)t;
    ks_conf_check_keys(L, o, fault_keys(f->type), NULL);
    const char *note;
    if (ks_conf_get_string(L, o, "note", false, &note))
        f->note = ks_strdup(note);
    fault_name(L, o, sc, f);
    fault_producer(L, o, sc, f);
    fault_client_consumer(L, o, sc, f);
    if (ks_conf_member(o, "broker")) {
        uint32_t b;
        if (ks_conf_get_u32(L, o, "broker", 0, sc->broker_count - 1, &b))
            f->broker = (int32_t)b;
    }
    fault_partition(L, o, sc, f);
    fault_api(L, o, f);
    int64_t req;
    if (ks_conf_get_int(L, o, "request", 1, INT64_MAX, &req))
        f->request = req;
    /* a consumer numbers its requests too: naming it says whose */
    if (f->request >= 0 && f->producer < 0 && sc->producer_count > 1 &&
        !ks_conf_member(o, "producer") && !ks_conf_member(o, "consumer"))
        ks_conf_err(L, "\"request\" numbers are per producer: with %u producers, say which "
               "(\"producer\")",
            sc->producer_count);
    ks_conf_get_ms(L, o, "after.ms", false, &f->after_ns);
    ks_conf_get_u32(L, o, "count", 1, UINT32_MAX, &f->count);
    fault_by_type(L, o, sc, f);
}

static void name_streams(ks_conf *L, ks_scenario *sc);

/* "faults": [{"type": "drop.response", "request": 1}, ...] */
void ks_fault_section_load(ks_conf *L, json_t *root, ks_scenario *sc)
{
    json_t *arr = ks_conf_member(root, "faults");
    if (!arr)
        return;
    unsigned errors_before = L->diag->count;
    size_t mark = ks_conf_enter(L, "faults");
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    if (!json_is_array(arr) || n > 10000) {
        ks_conf_err_got(L, arr, "an array of at most 10000 faults");
        ks_conf_leave(L, mark);
        return;
    }
    sc->faults = calloc(n ? n : 1, sizeof *sc->faults);
    if (!sc->faults) {
        ks_conf_err(L, "out of memory");
        ks_conf_leave(L, mark);
        return;
    }
    sc->fault_count = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        size_t m = ks_conf_enter_index(L, i);
        ks_fault_conf *f = &sc->faults[i];
        *f = (ks_fault_conf){.producer = -1, .broker = -1, .topic = -1, .partition = -1,
                             .api = KS_API_PRODUCE, .request = -1, .count = 1,
                             .to_ns = KS_TIME_MAX, .consumer = -1, .forward_to = -1};
        if (!json_is_object(o))
            ks_conf_err_got(L, o, "a fault object such as {\"type\": \"drop.response\", \"request\": 1}");
        else
            load_fault(L, o, sc, f);
        ks_conf_leave(L, m);
    }
    /* streams are named by the faults' resolved JSON, which only valid
     * faults have */
    if (L->diag->count == errors_before)
        name_streams(L, sc);
    ks_conf_leave(L, mark);
}

/* The selectors a fault was given: the client (producer or consumer),
 * the broker, the partition. */
static void selectors_json(json_t *o, const ks_scenario *sc, const ks_fault_conf *f)
{
    if (f->producer >= 0)
        json_object_set_new(o, "producer", json_string(sc->producers[f->producer].id));
    if (f->consumer >= 0)
        json_object_set_new(o, "consumer", json_string(sc->consumers[f->consumer].id));
    if (f->broker >= 0)
        json_object_set_new(o, "broker", json_integer(f->broker));
    if (f->topic >= 0) {
        char name[320];
        snprintf(name, sizeof name, "%s-%d", sc->topics[f->topic].name, f->partition);
        json_object_set_new(o, "partition", json_string(name));
    }
}

/* A targeted fault's keys: which requests, from when, how many, and
 * what it does to them. */
static void targeted_json(json_t *o, const ks_fault_conf *f)
{
    if (f->type != KS_FAULT_APPEND_ERROR)
        json_object_set_new(o, "api", json_string(ks_api_name(f->api)));
    if (f->request >= 0)
        json_object_set_new(o, "request", json_integer(f->request));
    json_object_set_new(o, "after.ms", ks_conf_ms_json(f->after_ns));
    json_object_set_new(o, "count", json_integer(f->count));
    if (f->type == KS_FAULT_DELAY_REQUEST || f->type == KS_FAULT_DELAY_RESPONSE)
        json_object_set_new(o, "delay.ms", ks_conf_ms_json(f->delay_ns));
    if (f->type == KS_FAULT_APPEND_ERROR)
        json_object_set_new(o, "error", json_string(ks_kerr_name(f->error)));
}

/* One fault with the keys its type takes, selectors only when given,
 * "name" only when the file gave one. */
static json_t *fault_json(const ks_scenario *sc, const ks_fault_conf *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string(ks_fault_type_name(f->type)));
    if (f->name)
        json_object_set_new(o, "name", json_string(f->name));
    if (f->note)
        json_object_set_new(o, "note", json_string(f->note));
    selectors_json(o, sc, f);
    switch (f->type) {
    case KS_FAULT_DROP_REQUEST:
    case KS_FAULT_DROP_RESPONSE:
    case KS_FAULT_DELAY_REQUEST:
    case KS_FAULT_DELAY_RESPONSE:
    case KS_FAULT_APPEND_ERROR:
        targeted_json(o, f);
        break;
    case KS_FAULT_REQUEST_LOSS:
    case KS_FAULT_RESPONSE_LOSS:
    case KS_FAULT_LINK_DOWN:
    case KS_FAULT_PAUSE_BROKER:
    case KS_FAULT_PAUSE_PRODUCER:
        if (f->type == KS_FAULT_REQUEST_LOSS || f->type == KS_FAULT_RESPONSE_LOSS)
            json_object_set_new(o, "probability", ks_conf_number_json(f->probability));
        json_object_set_new(o, "from.ms", ks_conf_ms_json(f->from_ns));
        if (f->to_ns != KS_TIME_MAX)
            json_object_set_new(o, "to.ms", ks_conf_ms_json(f->to_ns));
        break;
    case KS_FAULT_CRASH_PRODUCER:
        json_object_set_new(o, "at.ms", ks_conf_ms_json(f->from_ns));
        break;
    case KS_FAULT_CRASH_CONSUMER:
        json_object_set_new(o, "at.ms", ks_conf_ms_json(f->from_ns));
        if (f->to_ns != KS_TIME_MAX)
            json_object_set_new(o, "restart.ms", ks_conf_ms_json(f->to_ns));
        if (f->forward_to >= 0)
            json_object_set_new(o, "forward.to", json_string(sc->producers[f->forward_to].id));
        break;
    case KS_FAULT__COUNT:
        break;
    }
    return o;
}

/* ---- stream names -------------------------------------------------------- */

/* The FNV-1a 64 of a fault's content: its resolved JSON without "note"
 * (free text) and "name", keys sorted, compact, reals as the resolved
 * form writes them. False when out of memory. */
static bool content_hash(const ks_scenario *sc, const ks_fault_conf *f, uint64_t *hash)
{
    json_t *o = fault_json(sc, f);
    if (!o)
        return false;
    json_object_del(o, "note");
    json_object_del(o, "name");
    char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | ks_conf_reals_exact(o));
    json_decref(o);
    if (!text)
        return false;
    *hash = ks_rng_fnv1a64(text);
    free(text);
    return true;
}

/* An unnamed fault: its content's hash, then its position. */
typedef struct derived {
    uint64_t hash;
    uint32_t fault;
} derived;

static int by_hash_then_fault(const void *a, const void *b)
{
    const derived *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return x->fault < y->fault ? -1 : x->fault > y->fault;
}

/* "fault.NAME" when given a name, else "fault.HASH", "fault.HASH#NTH". */
static bool set_stream(ks_fault_conf *f, const char *name, uint64_t hash, uint32_t nth)
{
    char buf[160];
    if (name)
        snprintf(buf, sizeof buf, "fault.%s", name);
    else if (nth == 1)
        snprintf(buf, sizeof buf, "fault.%016" PRIx64, hash);
    else
        snprintf(buf, sizeof buf, "fault.%016" PRIx64 "#%" PRIu32, hash, nth);
    f->stream = ks_strdup(buf);
    return f->stream != NULL;
}

static int by_hash(const void *a, const void *b)
{
    const derived *x = a, *y = b;
    return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* A given name of 16 hex digits may be an unnamed fault's derived one:
 * the two would share a stream. d holds the unnamed faults, sorted. */
static void check_taken(ks_conf *L, const ks_scenario *sc, const derived *d, size_t nd)
{
    for (uint32_t i = 0; nd && i < sc->fault_count; i++) {
        const char *name = sc->faults[i].name;
        if (!name || strlen(name) != 16 || strspn(name, "0123456789abcdef") != 16)
            continue;
        derived key = {.hash = strtoull(name, NULL, 16), .fault = 0};
        const derived *hit = bsearch(&key, d, nd, sizeof *d, by_hash);
        if (!hit)
            continue;
        while (hit > d && hit[-1].hash == key.hash)
            hit--; /* the first of that content is the one without "#" */
        size_t m = ks_conf_enter_index(L, i), k = ks_conf_enter(L, "name");
        ks_conf_err(L, "\"%s\" is the name $.faults[%u] has by its content, so both would draw "
                       "from stream \"fault.%s\": choose another, or name that fault too",
                    name, (unsigned)hit->fault, name);
        ks_conf_leave(L, k);
        ks_conf_leave(L, m);
    }
}

/* Every fault's stream (ks_fault_section_load, fault_section.h): by its
 * name, else by its content, the second, third... of one content in
 * scenario order "#2", "#3"... */
static void name_streams(ks_conf *L, ks_scenario *sc)
{
    derived *d = calloc(sc->fault_count ? sc->fault_count : 1, sizeof *d);
    size_t nd = 0;
    bool ok = d != NULL;
    for (uint32_t i = 0; ok && i < sc->fault_count; i++) {
        if (sc->faults[i].name)
            ok = set_stream(&sc->faults[i], sc->faults[i].name, 0, 1);
        else if ((ok = content_hash(sc, &sc->faults[i], &d[nd].hash)))
            d[nd++].fault = i;
    }
    if (ok)
        qsort(d, nd, sizeof *d, by_hash_then_fault);
    for (size_t k = 0, nth = 1; ok && k < nd; k++) {
        nth = k > 0 && d[k].hash == d[k - 1].hash ? nth + 1 : 1;
        ok = set_stream(&sc->faults[d[k].fault], NULL, d[k].hash, (uint32_t)nth);
    }
    if (!ok)
        ks_conf_err(L, "out of memory");
    else
        check_taken(L, sc, d, nd);
    free(d);
}

json_t *ks_fault_section_json(const ks_scenario *sc)
{
    if (sc->fault_count == 0)
        return NULL;
    json_t *arr = json_array();
    for (uint32_t i = 0; i < sc->fault_count; i++)
        json_array_append_new(arr, fault_json(sc, &sc->faults[i]));
    return arr;
}

void ks_fault_section_free(ks_scenario *sc)
{
    for (uint32_t i = 0; sc->faults && i < sc->fault_count; i++) {
        free(sc->faults[i].note);
        free(sc->faults[i].name);
        free(sc->faults[i].stream);
    }
    free(sc->faults);
}
