/*
 * tracks.c - the processes and tracks of the exported trace, and the
 * metadata events that name and order them.
 *
 * Owns: the numbering. Every node of the run is a process, numbered as
 * ksim numbers nodes (brokers, then producers, then consumers, each in
 * scenario order), pid = node + 1 (pid 0 means the kernel's idle task to
 * Perfetto); the run itself (metrics, the end, engine events) is one more
 * process after them. Tracks are made when an event first needs one;
 * their tids count from 1 in that order, unique across processes (a tid
 * shared by two pids confuses viewers that follow Linux's rules). The
 * metadata, written last, names every process and track that was used
 * and gives sort indices: the run first, then the nodes by number; in a
 * process, tracks by kind, then broker and lane, or topic (in the
 * header's order) and partition. Topics are interned here too.
 */
#include "tools/export/internal.h"

#include "sim/rng.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

size_t ks_xp_node_of_broker(exporter *x, int64_t b)
{
    (void)x;
    return (size_t)b;
}

size_t ks_xp_node_of_prod(exporter *x, size_t p)
{
    return x->nbrokers + p;
}

size_t ks_xp_node_of_cons(exporter *x, size_t c)
{
    return x->nbrokers + x->nprods + c;
}

size_t ks_xp_run_node(const exporter *x)
{
    return x->nbrokers + x->nprods + x->ncons;
}

/* ---- names looked up by id -------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    const xname *i = a, *j = b;
    int c = strcmp(i->name, j->name);
    return c ? c : (i->idx > j->idx) - (i->idx < j->idx);
}

bool ks_xp_sort_names(exporter *x, char *const *names, size_t n, xname **order)
{
    *order = malloc((n ? n : 1) * sizeof **order);
    if (!*order) {
        x->oom = true;
        return false;
    }
    for (size_t i = 0; i < n; i++)
        (*order)[i] = (xname){names[i], i};
    qsort(*order, n, sizeof **order, by_name);
    return true;
}

size_t ks_xp_find_name(const xname *order, size_t n, const char *id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(order[mid].name, id);
        if (c == 0)
            return order[mid].idx;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

/* ---- topics --------------------------------------------------------------------- */

size_t ks_xp_topic(exporter *x, const char *name)
{
    uint64_t h = ks_rng_fnv1a64(name);
    size_t at = (size_t)(uintptr_t)ks_u64map_get(&x->topic_map, h);
    for (size_t i = at; i; i = x->topics[i - 1].chain)
        if (strcmp(x->topics[i - 1].name, name) == 0)
            return i - 1;
    if (x->ntopics == x->captopics) {
        size_t cap = x->captopics ? 2 * x->captopics : 8;
        xtopic *t = realloc(x->topics, cap * sizeof *t);
        if (!t) {
            x->oom = true;
            return SIZE_MAX;
        }
        x->topics = t;
        x->captopics = cap;
    }
    xtopic *t = &x->topics[x->ntopics];
    if (!(t->name = ks_strdup(name))) {
        x->oom = true;
        return SIZE_MAX;
    }
    t->chain = at;
    if (at)
        ks_u64map_del(&x->topic_map, h);
    if (!ks_u64map_put(&x->topic_map, h, (void *)(uintptr_t)(x->ntopics + 1))) {
        free(t->name);
        x->oom = true;
        return SIZE_MAX;
    }
    return x->ntopics++;
}

/* ---- tracks ---------------------------------------------------------------------- */

static uint64_t track_hash(size_t node, trk_kind kind, int64_t a, int64_t b)
{
    uint64_t h = 0x9E3779B97F4A7C15u;
    uint64_t parts[4] = {node, (uint64_t)kind, (uint64_t)a, (uint64_t)b};
    for (size_t i = 0; i < 4; i++) {
        h ^= parts[i] + 0x9E3779B97F4A7C15u + (h << 6) + (h >> 2);
        h *= 0xBF58476D1CE4E5B9u;
    }
    return h ^ (h >> 31);
}

/* The track (made on first use); NULL when out of memory. */
const track *ks_xp_track(exporter *x, size_t node, trk_kind kind, int64_t a, int64_t b)
{
    uint64_t h = track_hash(node, kind, a, b);
    size_t at = (size_t)(uintptr_t)ks_u64map_get(&x->track_map, h);
    for (size_t i = at; i; i = x->tracks[i - 1].chain) {
        const track *t = &x->tracks[i - 1];
        if (t->node == node && t->kind == kind && t->a == a && t->b == b)
            return t;
    }
    if (x->ntracks == x->captracks) {
        size_t cap = x->captracks ? 2 * x->captracks : 32;
        track *t = realloc(x->tracks, cap * sizeof *t);
        if (!t) {
            x->oom = true;
            return NULL;
        }
        x->tracks = t;
        x->captracks = cap;
    }
    if (at)
        ks_u64map_del(&x->track_map, h);
    if (!ks_u64map_put(&x->track_map, h, (void *)(uintptr_t)(x->ntracks + 1))) {
        x->oom = true;
        return NULL;
    }
    track *t = &x->tracks[x->ntracks];
    *t = (track){node, kind, a, b, (int64_t)x->ntracks + 1, at};
    x->ntracks++;
    return t;
}

/* ---- metadata --------------------------------------------------------------------- */

/* The process's name: "broker 0", "producer p1", "consumer c1", the run. */
static void process_name(const exporter *x, size_t node, char *buf, size_t n)
{
    if (node < x->nbrokers)
        snprintf(buf, n, "broker %zu", node);
    else if (node < x->nbrokers + x->nprods)
        snprintf(buf, n, "producer %s", x->prods[node - x->nbrokers].id);
    else if (node < ks_xp_run_node(x))
        snprintf(buf, n, "consumer %s", x->cons[node - x->nbrokers - x->nprods]);
    else
        snprintf(buf, n, "ksim run %s (seed %" PRId64 ")", x->scenario, x->seed);
}

/* The node's short name: "broker 0", "p1", "c1". */
static const char *node_label(const exporter *x, size_t node, char *buf, size_t n)
{
    if (node < x->nbrokers) {
        snprintf(buf, n, "broker %zu", node);
        return buf;
    }
    if (node < x->nbrokers + x->nprods)
        return x->prods[node - x->nbrokers].id;
    return x->cons[node - x->nbrokers - x->nprods];
}

static void track_name(const exporter *x, const track *t, char *buf, size_t n)
{
    char nb[32];
    const char *who = t->node < ks_xp_run_node(x) ? node_label(x, t->node, nb, sizeof nb) : "";
    switch (t->kind) {
    case TRK_NODE:
        snprintf(buf, n, "%s: state, faults", who);
        break;
    case TRK_APP:
        snprintf(buf, n, "%s: send() and acks", who);
        break;
    case TRK_BATCHES:
        snprintf(buf, n, "%s: batches", who);
        break;
    case TRK_CONN:
        if (t->node < x->nbrokers) { /* a broker as a client: as the trace names it */
            snprintf(nb, sizeof nb, "broker%zu", t->node);
            who = nb;
        }
        if (t->b == 0)
            snprintf(buf, n, "%s \xE2\x86\x92 broker %" PRId64, who, t->a);
        else
            snprintf(buf, n, "%s \xE2\x86\x92 broker %" PRId64 " #%" PRId64, who, t->a, t->b + 1);
        break;
    case TRK_ARRIVALS:
        snprintf(buf, n, "%s: requests arriving", who);
        break;
    case TRK_PART:
        snprintf(buf, n, "%s-%" PRId64, x->topics[t->a].name, t->b);
        break;
    case TRK_COORD:
        snprintf(buf, n, "%s: transaction coordinator", who);
        break;
    case TRK_METRICS:
        snprintf(buf, n, "metrics");
        break;
    case TRK_RUN:
        snprintf(buf, n, "run");
        break;
    case TRK_ENGINE:
        snprintf(buf, n, "engine events");
        break;
    }
}

static int by_place(const void *pa, const void *pb)
{
    const track *a = *(const track *const *)pa, *b = *(const track *const *)pb;
    if (a->node != b->node)
        return (a->node > b->node) - (a->node < b->node);
    if (a->kind != b->kind)
        return (a->kind > b->kind) - (a->kind < b->kind);
    if (a->a != b->a)
        return (a->a > b->a) - (a->a < b->a);
    return (a->b > b->b) - (a->b < b->b);
}

/* An "M" event: {"name":WHAT,"ph":"M","ts":0,"pid":..,"tid":..,"args":{KEY:..}}. */
static void meta(exporter *x, const char *what, const track *t, const char *name, int64_t index)
{
    ks_xp_ev_begin(x, what, "__metadata", 'M', 0, t);
    if (name)
        ks_xp_arg_str(x, "name", name);
    else
        ks_xp_arg_int(x, "sort_index", index);
    ks_xp_ev_end(x);
}

void ks_xp_write_metadata(exporter *x)
{
    track **order = malloc((x->ntracks ? x->ntracks : 1) * sizeof *order);
    if (!order) {
        x->oom = true;
        return;
    }
    for (size_t i = 0; i < x->ntracks; i++)
        order[i] = &x->tracks[i];
    qsort(order, x->ntracks, sizeof *order, by_place);
    char name[512];
    int64_t rank = 0;
    for (size_t i = 0; i < x->ntracks; i++) {
        const track *t = order[i];
        if (i == 0 || order[i - 1]->node != t->node) {
            process_name(x, t->node, name, sizeof name);
            meta(x, "process_name", t, name, 0);
            int64_t pindex = t->node == ks_xp_run_node(x) ? 0 : (int64_t)t->node + 1;
            meta(x, "process_sort_index", t, NULL, pindex);
            rank = 0;
        }
        track_name(x, t, name, sizeof name);
        meta(x, "thread_name", t, name, 0);
        meta(x, "thread_sort_index", t, NULL, rank++);
    }
    free(order);
}

void ks_xp_tracks_free(exporter *x)
{
    for (size_t i = 0; i < x->ntopics; i++)
        free(x->topics[i].name);
    free(x->topics);
    free(x->tracks);
    ks_u64map_free(&x->topic_map);
    ks_u64map_free(&x->track_map);
}
