/*
 * consumer_section.c - the scenario's "consumers" section, loaded and
 * written back (see consumer_section.h). Reads only the document and the
 * sections loaded before it (topics, admin, producers).
 */
#include "models/consumer/consumer_section.h"

#include "models/broker/topic_section.h"
#include "models/scenario_types.h"
#include "sim/detmath.h"
#include "sim/str.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const commit_mode_names[] = {
#define X(e, name) name,
    KS_COMMIT_MODES(X)
#undef X
};

const char *ks_commit_mode_name(ks_commit_mode m)
{
    assert((unsigned)m < (unsigned)KS_COMMIT__COUNT);
    return commit_mode_names[m];
}

static void consumer_partitions(ks_conf *L, json_t *v, const ks_scenario *sc, ks_consumer_conf *c)
{
    /* "topics" may have failed to load (its error is reported already) */
    if (!sc->topics || c->topic >= sc->topic_count)
        return;
    const ks_topic_conf *tc = &sc->topics[c->topic];
    c->all_partitions = v == NULL;
    size_t n = v ? (json_is_array(v) ? json_array_size(v) : 0) : tc->partitions;
    if (v && (!json_is_array(v) || n == 0 || n > KS_MAX_PARTITIONS)) {
        size_t m = ks_conf_enter(L, "partitions");
        ks_conf_err_got(L, v, "an array of partition numbers");
        ks_conf_leave(L, m);
        return;
    }
    c->partitions = calloc(n, sizeof *c->partitions);
    if (!c->partitions) {
        ks_conf_err(L, "out of memory");
        return;
    }
    c->partition_count = (uint32_t)n;
    /* assign() takes a set: a partition listed twice is a mistake */
    bool *seen = v ? calloc(tc->max_partitions ? tc->max_partitions : 1u, sizeof *seen) : NULL;
    if (v && !seen) {
        ks_conf_err(L, "out of memory");
        return;
    }
    for (size_t k = 0; k < n; k++) {
        c->partitions[k] = (uint32_t)k;
        if (!v)
            continue;
        size_t m = ks_conf_enter(L, "partitions");
        size_t mi = ks_conf_enter_index(L, k);
        int64_t num;
        if (ks_conf_check_int(L, json_array_get(v, k), 0, (int64_t)tc->max_partitions - 1, &num)) {
            c->partitions[k] = (uint32_t)num;
            if (seen[num])
                ks_conf_err(L, "partition %lld is listed twice", (long long)num);
            seen[num] = true;
        }
        ks_conf_leave(L, mi);
        ks_conf_leave(L, m);
    }
    free(seen);
}

/* "commit" and "forward.to": a consumer committing with a transaction
 * forwards to a transactional producer. */
static void consumer_commit(ks_conf *L, json_t *o, const ks_scenario *sc, ks_consumer_conf *c)
{
    unsigned ch;
    json_t *cm = ks_conf_member(o, "commit");
    if (cm) {
        size_t m = ks_conf_enter(L, "commit");
        if (ks_conf_check_choice(L, cm, commit_mode_names, KS_COMMIT__COUNT, &ch))
            c->commit = (ks_commit_mode)ch;
        ks_conf_leave(L, m);
    }
    const char *fw;
    if (ks_conf_get_string(L, o, "forward.to", false, &fw)) {
        size_t m = ks_conf_enter(L, "forward.to");
        c->forward_to = ks_conf_find_id(L, "producer", fw, sc->producers ? &sc->producers[0].id : NULL,
                                    sizeof(ks_producer_conf), sc->producer_count);
        ks_conf_leave(L, m);
    }
    if (c->commit == KS_COMMIT_TRANSACTION &&
        (c->forward_to < 0 || !sc->producers[c->forward_to].txn.enabled)) {
        size_t m = ks_conf_enter(L, "commit");
        ks_conf_err(L, "\"transaction\" commits the offsets with a transactional producer's "
               "transaction: give \"forward.to\" a producer with a transactional.id");
        ks_conf_leave(L, m);
    }
}

static void load_consumer(ks_conf *L, json_t *o, ks_scenario *sc, uint32_t i)
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
    ks_conf_check_keys(L, o, keys, NULL);
    const char *id = NULL;
    char defid[24];
    snprintf(defid, sizeof defid, "c%u", i + 1);
    if (!ks_conf_get_string(L, o, "id", false, &id))
        id = defid;
    for (uint32_t j = 0; j < i; j++) {
        if (sc->consumers[j].id && strcmp(sc->consumers[j].id, id) == 0) {
            size_t m = ks_conf_enter(L, "id");
            ks_conf_err(L, "consumer id \"%s\" is used twice", id);
            ks_conf_leave(L, m);
        }
    }
    c->id = ks_strdup(id);
    ks_topic_ref_load(L, o, sc, &c->topic);
    consumer_partitions(L, ks_conf_member(o, "partitions"), sc, c);
    unsigned ch;
    json_t *iso = ks_conf_member(o, "isolation.level");
    if (iso) {
        size_t m = ks_conf_enter(L, "isolation.level");
        if (ks_conf_check_choice(L, iso, isolation_names, 2, &ch))
            c->read_committed = ch == 1;
        ks_conf_leave(L, m);
    }
    const char *g = id;
    ks_conf_get_string(L, o, "group.id", false, &g);
    c->group_id = ks_strdup(g);
    ks_conf_get_ms(L, o, "start.ms", false, &c->start_ns);
    ks_conf_get_ms(L, o, "poll.interval.ms", false, &c->poll_interval_ns);
    ks_conf_get_u32(L, o, "max.poll.records", 1, 1000000, &c->max_poll_records);
    ks_conf_get_ms(L, o, "fetch.max.wait.ms", false, &c->fetch_max_wait_ns);
    json_t *reset = ks_conf_member(o, "auto.offset.reset");
    if (reset) {
        size_t m = ks_conf_enter(L, "auto.offset.reset");
        if (ks_conf_check_choice(L, reset, reset_names, 2, &ch))
            c->reset_earliest = ch == 1;
        ks_conf_leave(L, m);
    }
    double us;
    if (ks_conf_get_real(L, o, "process.us", 0.0, false, 1e9, &us))
        c->process_ns = ks_round_i64(us * 1e3);
    consumer_commit(L, o, sc, c);
}

/* "consumers": [{"id": "c1", "topic": "events", "isolation.level": "read_committed"}] */
void ks_consumer_section_load(ks_conf *L, json_t *root, ks_scenario *sc)
{
    json_t *arr = ks_conf_member(root, "consumers");
    if (!arr)
        return;
    size_t mark = ks_conf_enter(L, "consumers");
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    if (!json_is_array(arr) || n > 1000) {
        ks_conf_err_got(L, arr, "an array of at most 1000 consumers");
        ks_conf_leave(L, mark);
        return;
    }
    sc->consumers = calloc(n ? n : 1, sizeof *sc->consumers);
    if (!sc->consumers) {
        ks_conf_err(L, "out of memory");
        ks_conf_leave(L, mark);
        return;
    }
    sc->consumer_count = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        size_t m = ks_conf_enter_index(L, i);
        if (!json_is_object(o))
            ks_conf_err_got(L, o, "a consumer object such as {\"id\": \"c1\", \"topic\": \"events\"}");
        else
            load_consumer(L, o, sc, (uint32_t)i);
        ks_conf_leave(L, m);
    }
    ks_conf_leave(L, mark);
}

static json_t *consumer_json(const ks_scenario *sc, const ks_consumer_conf *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(c->id));
    json_object_set_new(o, "topic", json_string(sc->topics[c->topic].name));
    if (!c->all_partitions) {
        json_t *parts = json_array();
        for (uint32_t k = 0; k < c->partition_count; k++)
            json_array_append_new(parts, json_integer(c->partitions[k]));
        json_object_set_new(o, "partitions", parts);
    }
    json_object_set_new(o, "isolation.level",
                        json_string(c->read_committed ? "read_committed" : "read_uncommitted"));
    json_object_set_new(o, "group.id", json_string(c->group_id));
    json_object_set_new(o, "start.ms", ks_conf_ms_json(c->start_ns));
    json_object_set_new(o, "poll.interval.ms", ks_conf_ms_json(c->poll_interval_ns));
    json_object_set_new(o, "max.poll.records", json_integer(c->max_poll_records));
    json_object_set_new(o, "fetch.max.wait.ms", ks_conf_ms_json(c->fetch_max_wait_ns));
    json_object_set_new(o, "auto.offset.reset",
                        json_string(c->reset_earliest ? "earliest" : "latest"));
    json_object_set_new(o, "process.us", ks_conf_number_json((double)c->process_ns / 1e3));
    json_object_set_new(o, "commit", json_string(ks_commit_mode_name(c->commit)));
    if (c->forward_to >= 0)
        json_object_set_new(o, "forward.to", json_string(sc->producers[c->forward_to].id));
    return o;
}

json_t *ks_consumer_section_json(const ks_scenario *sc)
{
    if (sc->consumer_count == 0)
        return NULL;
    json_t *arr = json_array();
    for (uint32_t i = 0; i < sc->consumer_count; i++)
        json_array_append_new(arr, consumer_json(sc, &sc->consumers[i]));
    return arr;
}

void ks_consumer_section_free(ks_scenario *sc)
{
    for (uint32_t i = 0; sc->consumers && i < sc->consumer_count; i++) {
        free(sc->consumers[i].id);
        free(sc->consumers[i].group_id);
        free(sc->consumers[i].partitions);
    }
    free(sc->consumers);
}
