/*
 * workload_section.c - a producer's "workload", loaded and written back
 * (see workload_section.h). Reads only the document.
 */
#include "models/producer/workload_section.h"

#include "sim/detmath.h"
#include "sim/str.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static const char *const arrival_names[] = {
#define X(e, name) name,
    KS_ARRIVALS(X)
#undef X
};

const char *ks_arrival_name(ks_arrival a)
{
    assert((unsigned)a < (unsigned)KS_ARRIVAL__COUNT);
    return arrival_names[a];
}

#define MAX_PATTERN 100000u

/* "key": {"uniform": {"keys": K}} or {"zipf": {"keys": K, "s": 1.1}},
 * each with an optional "prefix" (default "key-"). */
static void load_key_distribution(ks_conf *L, json_t *v, ks_workload_conf *w)
{
    static const char *const kinds[] = {"uniform", "zipf", NULL};
    static const char *const k_uniform[] = {"keys", "prefix", NULL};
    static const char *const k_zipf[] = {"keys", "s", "prefix", NULL};
    ks_conf_check_keys(L, v, kinds, NULL);
    json_t *u = ks_conf_member(v, "uniform"), *z = ks_conf_member(v, "zipf");
    if ((u != NULL) == (z != NULL)) {
        ks_conf_err(L, "expected exactly one of {\"uniform\": {...}} and {\"zipf\": {...}}");
        return;
    }
    json_t *o = u ? u : z;
    size_t m = ks_conf_enter(L, u ? "uniform" : "zipf");
    if (!json_is_object(o)) {
        ks_conf_err_got(L, o, "an object");
        ks_conf_leave(L, m);
        return;
    }
    ks_conf_check_keys(L, o, u ? k_uniform : k_zipf, NULL);
    w->key_pick = u ? KS_PICK_UNIFORM : KS_PICK_ZIPF;
    w->key_space = 100;
    w->zipf_s = 1.0;
    ks_conf_get_u32(L, o, "keys", 1, 1000000, &w->key_space);
    if (z)
        ks_conf_get_real(L, o, "s", 0.0, true, 10.0, &w->zipf_s);
    const char *prefix = "key-";
    ks_conf_get_string(L, o, "prefix", false, &prefix);
    if (strlen(prefix) > 100) {
        size_t m2 = ks_conf_enter(L, "prefix");
        ks_conf_err(L, "at most 100 characters");
        ks_conf_leave(L, m2);
    } else {
        w->key_prefix = ks_strdup(prefix);
    }
    ks_conf_leave(L, m);
}

/* "key": null | "k" | ["a", null, "b"] (cycled) | a distribution. */
static void load_keys(ks_conf *L, json_t *v, ks_workload_conf *w)
{
    if (!v)
        return;
    size_t mark = ks_conf_enter(L, "key");
    if (json_is_object(v)) {
        load_key_distribution(L, v, w);
    } else if (json_is_array(v)) {
        size_t n = json_array_size(v);
        if (n == 0 || n > MAX_PATTERN) {
            ks_conf_err_got(L, v, "a key, null, or a non-empty array of keys and nulls");
        } else {
            char **keys = calloc(n, sizeof *keys);
            if (!keys) {
                ks_conf_err(L, "out of memory");
            } else {
                free(w->keys);
                w->keys = keys;
                w->key_count = (uint32_t)n;
                w->key_list = true;
                for (size_t i = 0; i < n; i++) {
                    json_t *k = json_array_get(v, i);
                    size_t m = ks_conf_enter_index(L, i);
                    if (json_is_string(k))
                        keys[i] = ks_strdup(json_string_value(k));
                    else if (!json_is_null(k))
                        ks_conf_err_got(L, k, "a string or null");
                    ks_conf_leave(L, m);
                }
            }
        }
    } else if (json_is_string(v) && !ks_conf_is_null(L, v)) {
        w->keys[0] = ks_strdup(json_string_value(v));
    } else if (!ks_conf_is_null(L, v)) {
        ks_conf_err_got(L, v, "a key, null, or an array of keys and nulls");
    }
    ks_conf_leave(L, mark);
}

/* "value.bytes": 100 | [100, 20000] (cycled). */
static void load_value_sizes(ks_conf *L, json_t *v, ks_workload_conf *w)
{
    const int64_t max = 100 * 1024 * 1024;
    if (!v)
        return;
    size_t mark = ks_conf_enter(L, "value.bytes");
    if (json_is_object(v)) {
        /* {"uniform": {"min": a, "max": b}} */
        static const char *const kinds[] = {"uniform", NULL};
        static const char *const k_uniform[] = {"min", "max", NULL};
        ks_conf_check_keys(L, v, kinds, NULL);
        json_t *u = ks_conf_member(v, "uniform");
        size_t m = ks_conf_enter(L, "uniform");
        if (!json_is_object(u)) {
            ks_conf_err_got(L, u ? u : v, "{\"uniform\": {\"min\": bytes, \"max\": bytes}}");
        } else {
            ks_conf_check_keys(L, u, k_uniform, NULL);
            w->value_pick = KS_PICK_UNIFORM;
            w->value_min = 0;
            w->value_max = 1000;
            ks_conf_get_u32(L, u, "min", 0, (uint32_t)max, &w->value_min);
            ks_conf_get_u32(L, u, "max", 0, (uint32_t)max, &w->value_max);
            if (w->value_max < w->value_min)
                ks_conf_err(L, "max must be >= min");
        }
        ks_conf_leave(L, m);
    } else if (json_is_array(v)) {
        size_t n = json_array_size(v);
        uint32_t *sizes = n > 0 && n <= MAX_PATTERN ? calloc(n, sizeof *sizes) : NULL;
        if (!sizes) {
            ks_conf_err_got(L, v, "a size, or a non-empty array of sizes");
        } else {
            free(w->value_bytes);
            w->value_bytes = sizes;
            w->value_count = (uint32_t)n;
            w->value_list = true;
            for (size_t i = 0; i < n; i++) {
                size_t m = ks_conf_enter_index(L, i);
                int64_t x;
                if (ks_conf_check_int(L, json_array_get(v, i), 0, max, &x))
                    sizes[i] = (uint32_t)x;
                ks_conf_leave(L, m);
            }
        }
    } else {
        int64_t x;
        if (ks_conf_check_int(L, v, 0, max, &x))
            w->value_bytes[0] = (uint32_t)x;
    }
    ks_conf_leave(L, mark);
}

void ks_workload_load(ks_conf *L, json_t *obj, ks_workload_conf *w)
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
        ks_conf_err(L, "out of memory");
        return;
    }
    w->value_bytes[0] = 100;
    if (obj) {
        ks_conf_check_keys(L, obj, keys, NULL);
        int64_t x;
        if (ks_conf_get_int(L, obj, "records", 0, INT64_C(1) << 40, &x))
            w->records = (uint64_t)x;
        json_t *a = ks_conf_member(obj, "arrival");
        if (a) {
            size_t m = ks_conf_enter(L, "arrival");
            unsigned c;
            if (ks_conf_check_choice(L, a, arrival_names, KS_ARRIVAL__COUNT, &c))
                w->arrival = (ks_arrival)c;
            ks_conf_leave(L, m);
        }
        /* 1e-6/s is one send() per 11.6 virtual days */
        ks_conf_get_real(L, obj, "rate.per.sec", 1e-6, false, 1e9, &w->rate_per_sec);
        ks_conf_get_ms(L, obj, "start.ms", false, &w->start_ns);
        load_keys(L, ks_conf_member(obj, "key"), w);
        load_value_sizes(L, ks_conf_member(obj, "value.bytes"), w);
    }
    w->burst_records = 10;
    w->burst_interval_ns = 100 * KS_NS_PER_MS;
    if (obj) {
        ks_conf_get_u32(L, obj, "burst.records", 1, 1000000, &w->burst_records);
        ks_conf_get_ms(L, obj, "burst.interval.ms", true, &w->burst_interval_ns);
        if (w->arrival != KS_ARRIVAL_BURST &&
            (ks_conf_member(obj, "burst.records") || ks_conf_member(obj, "burst.interval.ms")))
            ks_conf_err(L, "burst.records and burst.interval.ms need \"arrival\": \"burst\"");
    }
    w->interval_ns = ks_round_i64(1e9 / w->rate_per_sec);
    if (w->interval_ns < 1)
        w->interval_ns = 1;
}

/* "key": one key (or null), the array of keys cycled, or the
 * distribution they are drawn from. */
static void keys_json(json_t *w, const ks_workload_conf *wc)
{
    if (wc->key_pick != KS_PICK_CYCLE) {
        json_t *kd = json_object(), *params = json_object();
        json_object_set_new(params, "keys", json_integer(wc->key_space));
        if (wc->key_pick == KS_PICK_ZIPF)
            json_object_set_new(params, "s", json_real(wc->zipf_s));
        json_object_set_new(params, "prefix", json_string(wc->key_prefix));
        json_object_set_new(kd, wc->key_pick == KS_PICK_ZIPF ? "zipf" : "uniform", params);
        json_object_set_new(w, "key", kd);
        return;
    }
    json_t *keys = json_array();
    for (uint32_t k = 0; k < wc->key_count; k++)
        json_array_append_new(keys, wc->keys[k] ? json_string(wc->keys[k]) : json_null());
    if (wc->key_list) {
        json_object_set_new(w, "key", keys);
    } else {
        json_object_set(w, "key", json_array_get(keys, 0));
        json_decref(keys);
    }
}

/* "value.bytes": one size, the array of sizes cycled, or a uniform range. */
static void sizes_json(json_t *w, const ks_workload_conf *wc)
{
    if (wc->value_pick == KS_PICK_UNIFORM) {
        json_t *vd = json_object(), *params = json_object();
        json_object_set_new(params, "min", json_integer(wc->value_min));
        json_object_set_new(params, "max", json_integer(wc->value_max));
        json_object_set_new(vd, "uniform", params);
        json_object_set_new(w, "value.bytes", vd);
        return;
    }
    json_t *sizes = json_array();
    for (uint32_t k = 0; k < wc->value_count; k++)
        json_array_append_new(sizes, json_integer(wc->value_bytes[k]));
    if (wc->value_list) {
        json_object_set_new(w, "value.bytes", sizes);
    } else {
        json_object_set(w, "value.bytes", json_array_get(sizes, 0));
        json_decref(sizes);
    }
}

json_t *ks_workload_json(const ks_workload_conf *wc)
{
    json_t *w = json_object();
    json_object_set_new(w, "records", json_integer((json_int_t)wc->records));
    json_object_set_new(w, "arrival", json_string(ks_arrival_name(wc->arrival)));
    json_object_set_new(w, "rate.per.sec", ks_conf_number_json(wc->rate_per_sec));
    json_object_set_new(w, "start.ms", ks_conf_ms_json(wc->start_ns));
    if (wc->arrival == KS_ARRIVAL_BURST) {
        json_object_set_new(w, "burst.records", json_integer(wc->burst_records));
        json_object_set_new(w, "burst.interval.ms", ks_conf_ms_json(wc->burst_interval_ns));
    }
    keys_json(w, wc);
    sizes_json(w, wc);
    return w;
}

void ks_workload_free(ks_workload_conf *w)
{
    for (uint32_t k = 0; w->keys && k < w->key_count; k++)
        free(w->keys[k]);
    free(w->keys);
    free(w->value_bytes);
    free(w->key_prefix);
}
