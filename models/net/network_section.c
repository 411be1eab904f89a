/*
 * network_section.c - the scenario's "network" section, loaded and written
 * back (see network_section.h). Reads only the document.
 */
#include "models/net/network_section.h"

#include "models/scenario_types.h"
#include "sim/detmath.h"

static void load_latency_object(ks_conf *L, json_t *obj, ks_dist *d)
{
    static const char *const dist_names[] = {
#define X(e, name) name,
        KS_DISTS(X)
#undef X
    };
#define X(e, name) ", \"" name "\""
    static const char dist_list[] = "" KS_DISTS(X);
#undef X
    static const char *const k_const[] = {"dist", "ms", NULL};
    static const char *const k_unif[] = {"dist", "min.ms", "max.ms", NULL};
    static const char *const k_exp[] = {"dist", "mean.ms", "min.ms", NULL};
    static const char *const k_logn[] = {"dist", "median.ms", "sigma", "min.ms", NULL};
    json_t *kind = ks_conf_member(obj, "dist");
    size_t mark = ks_conf_enter(L, "dist");
    unsigned k = 0;
    if (!kind) {
        ks_conf_err(L, "missing: one of %s", dist_list + 2);
        ks_conf_leave(L, mark);
        return;
    }
    if (!ks_conf_check_choice(L, kind, dist_names, KS_DIST__COUNT, &k)) {
        ks_conf_leave(L, mark);
        return;
    }
    ks_conf_leave(L, mark);
    ks_dist nd = ks_dist_constant(0);
    nd.kind = (ks_dist_kind)k;
    const char *need = NULL;
    switch (nd.kind) {
    case KS_DIST_CONSTANT:
        ks_conf_check_keys(L, obj, k_const, NULL);
        if (!ks_conf_get_ms(L, obj, "ms", false, &nd.a_ns))
            need = "ms";
        nd.b_ns = nd.a_ns;
        break;
    case KS_DIST_UNIFORM:
        ks_conf_check_keys(L, obj, k_unif, NULL);
        if (!ks_conf_get_ms(L, obj, "min.ms", false, &nd.a_ns))
            need = "min.ms";
        if (!ks_conf_get_ms(L, obj, "max.ms", false, &nd.b_ns))
            need = "max.ms";
        if (!need && nd.b_ns < nd.a_ns)
            ks_conf_err(L, "max.ms must be >= min.ms");
        break;
    case KS_DIST_EXPONENTIAL:
        ks_conf_check_keys(L, obj, k_exp, NULL);
        if (!ks_conf_get_ms(L, obj, "mean.ms", true, &nd.a_ns))
            need = "mean.ms";
        ks_conf_get_ms(L, obj, "min.ms", false, &nd.min_ns);
        break;
    case KS_DIST_LOGNORMAL:
        ks_conf_check_keys(L, obj, k_logn, NULL);
        if (!ks_conf_get_ms(L, obj, "median.ms", true, &nd.a_ns))
            need = "median.ms";
        if (!ks_conf_get_real(L, obj, "sigma", 0.0, false, 10.0, &nd.sigma))
            need = need ? need : "sigma";
        ks_conf_get_ms(L, obj, "min.ms", false, &nd.min_ns);
        break;
    case KS_DIST__COUNT:
        break;
    }
    if (need && !ks_conf_member(obj, need)) {
        size_t m = ks_conf_enter(L, need);
        ks_conf_err(L, "missing (a %s distribution needs it)", ks_dist_name(nd.kind));
        ks_conf_leave(L, m);
    }
    *d = nd;
}

void ks_network_section_load(ks_conf *L, json_t *root, ks_scenario *sc)
{
    static const char *const keys[] = {"latency.ms", "latency", "bandwidth.mbps", NULL};
    static const char *const planned[] = {"links", NULL};
    sc->network.latency = ks_dist_constant(500 * KS_NS_PER_US);
    sc->network.bandwidth_bps = UINT64_C(10000000000);
    json_t *obj;
    if (!ks_conf_get_object(L, root, "network", &obj))
        return;
    size_t mark = ks_conf_enter(L, "network");
    for (int i = 0; i < 2; i++) {
        const char *k = i ? "response.loss" : "request.loss";
        json_t *v = ks_conf_member(obj, k);
        if (!v)
            continue;
        size_t m = ks_conf_enter(L, k);
        ks_conf_err(L, "loss is a fault: add {\"type\": \"%s\", \"probability\": P} to the top-level "
               "\"faults\" list (optionally with \"producer\", \"broker\", \"from.ms\", \"to.ms\")",
            k);
        ks_conf_leave(L, m);
        json_object_del(obj, k);
    }
    ks_conf_check_keys(L, obj, keys, planned);
    ks_time ns;
    json_t *lat = NULL;
    if (ks_conf_member(obj, "latency.ms") && ks_conf_member(obj, "latency")) {
        ks_conf_err(L, "give either \"latency.ms\" (constant) or \"latency\" (a distribution), not both");
    } else if (ks_conf_get_ms(L, obj, "latency.ms", false, &ns)) {
        sc->network.latency = ks_dist_constant(ns);
    } else if (ks_conf_get_object(L, obj, "latency", &lat)) {
        size_t m = ks_conf_enter(L, "latency");
        load_latency_object(L, lat, &sc->network.latency);
        ks_conf_leave(L, m);
    }
    double mbps;
    if (ks_conf_get_real(L, obj, "bandwidth.mbps", 0.0, false, 1e9, &mbps)) {
        sc->network.bandwidth_bps = (uint64_t)ks_round_i64(mbps * 1e6);
        if (mbps > 0 && sc->network.bandwidth_bps == 0) {
            size_t m = ks_conf_enter(L, "bandwidth.mbps");
            ks_conf_err(L, "below 1 bit/s (0.000001 Mbit/s); use 0 for unlimited");
            ks_conf_leave(L, m);
        }
    }
    ks_conf_leave(L, mark);
}

static json_t *dist_json(const ks_dist *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "dist", json_string(ks_dist_name(d->kind)));
    switch (d->kind) {
    case KS_DIST_CONSTANT:
        json_object_set_new(o, "ms", ks_conf_ms_json(d->a_ns));
        break;
    case KS_DIST_UNIFORM:
        json_object_set_new(o, "min.ms", ks_conf_ms_json(d->a_ns));
        json_object_set_new(o, "max.ms", ks_conf_ms_json(d->b_ns));
        break;
    case KS_DIST_EXPONENTIAL:
        json_object_set_new(o, "mean.ms", ks_conf_ms_json(d->a_ns));
        json_object_set_new(o, "min.ms", ks_conf_ms_json(d->min_ns));
        break;
    case KS_DIST_LOGNORMAL:
        json_object_set_new(o, "median.ms", ks_conf_ms_json(d->a_ns));
        json_object_set_new(o, "sigma", json_real(d->sigma));
        json_object_set_new(o, "min.ms", ks_conf_ms_json(d->min_ns));
        break;
    case KS_DIST__COUNT:
        break;
    }
    return o;
}

json_t *ks_network_section_json(const ks_scenario *sc)
{
    json_t *net = json_object();
    json_object_set_new(net, "latency", dist_json(&sc->network.latency));
    json_object_set_new(net, "bandwidth.mbps",
                        ks_conf_number_json((double)sc->network.bandwidth_bps / 1e6));
    return net;
}
