/*
 * checker.c - the delivery checker (see checker.h): the record and batch
 * bookkeeping behind every observation entry point.
 *
 * Owns the ledger, which maps (producer, batch id) to the batch's entry,
 * and the request table, which maps (producer, request number) to what
 * became of the request, counted by the entries that list it so that it
 * is forgotten with the last of them (both hash tables of
 * checker_table.c); and, when consumers are checked, the records read,
 * aborted, fenced and written for others, and the committed transactions.
 * A settled batch is judged at once (checker_delivery.c) and forgotten;
 * ks_checker_finish judges what is left and runs the transactional
 * (checker_txn.c) and end-to-end (checker_effects.c) judges. Anomalies
 * are listed in the order batches are judged, which follows the calls;
 * nothing is ever ordered by an address. Never builds an anomaly or the
 * summary itself (checker_json.c does).
 */
#include "models/check/checker.h"

#include "models/check/checker_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The entry's kept record of `request`, or NULL. */
static carrier *find_carrier(entry *e, uint64_t request)
{
    uint32_t n = e->ncarriers < INLINE ? e->ncarriers : INLINE;
    for (uint32_t i = 0; i < n; i++)
        if (e->carriers[i].request == request)
            return &e->carriers[i];
    return NULL;
}

/* ---- the ledger ------------------------------------------------------ */

/* Counts one more entry listing the request, creating its record. */
static bool request_ref(ks_checker *c, uint32_t producer, uint64_t request)
{
    size_t empty;
    slot *s = ks_ck_map_probe(&c->requests, producer, request, &empty);
    if (!s) {
        s = ks_ck_map_insert_at(c, &c->requests, producer, request, empty);
        if (!s)
            return false;
        s->v.r.fate = KS_FATE_PENDING;
        s->v.r.fault = KS_CHECK_NO_FAULT;
    }
    s->v.r.refs++;
    return true;
}

static void request_unref(ks_checker *c, uint32_t producer, uint64_t request)
{
    slot *s = ks_ck_map_find(&c->requests, producer, request);
    if (s && --s->v.r.refs == 0)
        ks_ck_map_remove(c, &c->requests, s);
}

/* Releases an entry that has left the ledger (or never entered it). */
static void entry_free(ks_checker *c, entry *e)
{
    uint32_t n = e->ncarriers < INLINE ? e->ncarriers : INLINE;
    for (uint32_t i = 0; i < n; i++)
        if (e->carriers[i].counted)
            request_unref(c, e->producer, e->carriers[i].request);
    ks_ck_free(c, e->ids, (size_t)e->nids * sizeof *e->ids);
    if (c->nspare < SPARE_MAX) {
        /* kept for the next batch; counted as released */
        c->spare[c->nspare++] = e;
        c->bytes -= sizeof *e;
        return;
    }
    ks_ck_free(c, e, sizeof *e);
}

/* A zeroed entry: a spare one if any. */
static entry *entry_alloc(ks_checker *c)
{
    if (c->nspare == 0)
        return ks_ck_alloc(c, sizeof(entry), true);
    entry *e = c->spare[--c->nspare];
    /* copies[] and carriers[] are read only below ncopies and ncarriers,
     * and each is written whole when added */
    memset(e, 0, offsetof(entry, copies));
    c->bytes += sizeof *e;
    return e;
}

/* Judges a settled entry and forgets it. */
static void settle(ks_checker *c, entry *e, const uint64_t *ids, uint32_t nids)
{
    ks_ck_judge(c, e, ids, nids);
    slot *s = ks_ck_map_find(&c->ledger, e->producer, e->batch);
    if (s)
        ks_ck_map_remove(c, &c->ledger, s);
    entry_free(c, e);
}

static entry *ledger_find(const ks_checker *c, uint32_t producer, uint64_t batch)
{
    const slot *s = ks_ck_map_find(&c->ledger, producer, batch);
    return s ? s->v.e : NULL;
}

/* ledger_find, with where an entry for it would go (entry_open). */
static entry *ledger_probe(const ks_checker *c, uint32_t producer, uint64_t batch,
                           size_t *empty)
{
    const slot *s = ks_ck_map_probe(&c->ledger, producer, batch, empty);
    return s ? s->v.e : NULL;
}

/* A new entry for a batch the ledger does not hold; `empty` is where
 * the ledger's probe for it ended (ledger_probe). */
static entry *entry_open(ks_checker *c, uint32_t producer, uint64_t batch,
                         uint32_t partition, uint32_t records, size_t empty)
{
    entry *e = entry_alloc(c);
    if (!e)
        return NULL;
    slot *s = ks_ck_map_insert_at(c, &c->ledger, producer, batch, empty);
    if (!s) {
        ks_ck_free(c, e, sizeof *e);
        return NULL;
    }
    s->v.e = e;
    e->producer = producer;
    e->batch = batch;
    e->partition = partition;
    e->records = records;
    e->order = batch;
    e->told_offset = -1;
    return e;
}

/* Forgets an entry without judging it: a batch split into others, whose
 * records those are judged with. */
static void forget(ks_checker *c, entry *e)
{
    slot *s = ks_ck_map_find(&c->ledger, e->producer, e->batch);
    if (s)
        ks_ck_map_remove(c, &c->ledger, s);
    entry_free(c, e);
}

/* One request carrying the batch was appended or refused. */
static void resolve_one(ks_checker *c, entry *e)
{
    if (e->unresolved > 0)
        e->unresolved--;
    if (e->unresolved == 0 && e->split_records >= e->records && e->records > 0)
        forget(c, e);
    else if (e->unresolved == 0 && e->told != KS_TOLD_NOTHING)
        settle(c, e, e->ids, e->nids);
}

/* ---- the API --------------------------------------------------------- */

ks_checker *ks_checker_create(uint32_t producers, const char *const *producer_ids,
                              uint32_t partitions, const char *const *partition_names)
{
    ks_checker *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->bytes = sizeof *c;
    c->alloc_budget = UINT64_MAX;
    c->producers = producers;
    c->partitions = partitions;
    c->producer_ids = producer_ids;
    c->partition_names = partition_names;
    size_t cells = (size_t)producers * partitions;
    bool sizes_ok = partitions == 0 || cells / partitions == producers;
    if (sizes_ok && cells > 0)
        c->high = ks_ck_alloc(c, cells * sizeof *c->high, true);
    c->anomalies = json_array();
    if (!sizes_ok || (cells > 0 && !c->high) || !c->anomalies ||
        !ks_ck_map_init(c, &c->ledger) || !ks_ck_map_init(c, &c->requests) ||
        !ks_ck_map_init(c, &c->aborted) || !ks_ck_map_init(c, &c->reads) ||
        !ks_ck_map_init(c, &c->ureads) || !ks_ck_map_init(c, &c->zombie) ||
        !ks_ck_map_init(c, &c->lineage)) {
        ks_checker_free(c);
        return NULL;
    }
    return c;
}

void ks_checker_free(ks_checker *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->ledger.cap; i++)
        if (c->ledger.slots[i].used)
            entry_free(c, c->ledger.slots[i].v.e);
    ks_ck_map_free(c, &c->ledger);
    ks_ck_map_free(c, &c->requests);
    ks_ck_map_free(c, &c->aborted);
    ks_ck_map_free(c, &c->zombie);
    free(c->ctx_ids);
    free(c->ctx_parts);
    free(c->ctx_decided);
    free(c->ctx_start);
    free(c->ctx_producer);
    free(c->ctx_number);
    free(c->part_read);
    ks_ck_map_free(c, &c->reads);
    ks_ck_map_free(c, &c->ureads);
    free(c->read_aborted_by);
    ks_ck_map_free(c, &c->lineage);
    free(c->effects);
    while (c->nspare > 0)
        free(c->spare[--c->nspare]);
    for (uint32_t i = 0; i < c->nnames; i++)
        ks_ck_free(c, c->names[i], strlen(c->names[i]) + 1u);
    ks_ck_free(c, c->names, c->names_cap * sizeof *c->names);
    ks_ck_free(c, c->high, (size_t)c->producers * c->partitions * sizeof *c->high);
    json_decref(c->anomalies);
    free(c);
}

void ks_checker_sent(ks_checker *c, uint32_t producer, uint64_t batch, uint32_t partition,
                     uint32_t records, uint64_t request, uint32_t attempt)
{
    if (!c || producer >= c->producers || partition >= c->partitions ||
        batch == KS_CHECK_NO_BATCH)
        return;
    size_t empty;
    entry *e = ledger_probe(c, producer, batch, &empty);
    if (!e)
        e = entry_open(c, producer, batch, partition, records, empty);
    if (!e)
        return;
    e->unresolved++;
    e->last_request = request;
    e->last_attempt = attempt;
    if (e->ncarriers < INLINE) {
        carrier *k = &e->carriers[e->ncarriers];
        k->request = request;
        k->attempt = attempt;
        k->outcome = OUT_PENDING;
        k->why = 0;
        k->counted = request_ref(c, producer, request);
    }
    if (e->ncarriers < UINT32_MAX)
        e->ncarriers++;
}

void ks_checker_appended(ks_checker *c, uint32_t producer, uint64_t batch, uint64_t request,
                         int64_t base_offset)
{
    entry *e = c ? ledger_find(c, producer, batch) : NULL;
    if (!e)
        return;
    carrier *k = find_carrier(e, request);
    if (k)
        k->outcome = OUT_APPENDED;
    if (e->ncopies == 0) {
        /* The first copy decides the batch's place in its partition. */
        landed *high = &c->high[(size_t)e->producer * c->partitions + e->partition];
        if (high->order1 > e->order + 1u) {
            e->overtaken_by = high->batch + 1u;
        } else {
            high->order1 = e->order + 1u;
            high->batch = batch;
        }
    }
    if (e->ncopies < INLINE) {
        copy_rec *cp = &e->copies[e->ncopies];
        cp->offset = base_offset;
        cp->request = request;
        cp->attempt = k ? k->attempt : request == e->last_request ? e->last_attempt : 0;
    }
    if (e->ncopies < UINT32_MAX)
        e->ncopies++;
    resolve_one(c, e);
}

void ks_checker_not_appended(ks_checker *c, uint32_t producer, uint64_t batch,
                             uint64_t request, const char *why)
{
    entry *e = c ? ledger_find(c, producer, batch) : NULL;
    if (!e)
        return;
    carrier *k = find_carrier(e, request);
    if (k) {
        k->outcome = OUT_REFUSED;
        k->why = ks_ck_intern(c, why);
    }
    resolve_one(c, e);
}

void ks_checker_split(ks_checker *c, uint32_t producer, uint64_t batch, uint64_t into,
                      uint32_t partition, uint32_t records)
{
    if (!c || producer >= c->producers || partition >= c->partitions)
        return;
    entry *old = ledger_find(c, producer, batch);
    size_t empty;
    entry *e = ledger_probe(c, producer, into, &empty);
    if (!e)
        e = entry_open(c, producer, into, partition, records, empty);
    if (e) /* the split batch keeps the place of the one it came from */
        e->order = old ? old->order : batch;
    if (!old)
        return;
    old->split_records += records;
    if (old->split_records >= old->records && old->unresolved == 0)
        forget(c, old);
}

void ks_checker_request_fate(ks_checker *c, uint32_t producer, uint64_t request,
                             ks_request_fate fate, int32_t fault)
{
    /* Only requests that ledger entries list are kept: a fate for any
     * other can no longer explain anything. The first word stays: the
     * network's, when it lost a message of the request (the producer,
     * who cannot know, says later only that it timed out or discarded
     * the answer). */
    slot *s = c ? ks_ck_map_find(&c->requests, producer, request) : NULL;
    if (s && (size_t)fate < KS_FATE__COUNT && s->v.r.fate == KS_FATE_PENDING) {
        s->v.r.fate = fate;
        s->v.r.fault = fault;
    }
}

static void count_told(ks_checker *c, ks_told told, uint32_t n)
{
    switch (told) {
    case KS_TOLD_NOTHING:
        break;
    case KS_TOLD_ACKED:
        c->acked += n;
        break;
    case KS_TOLD_ACKED_NO_OFFSET:
        c->acked_no_offset += n;
        break;
    case KS_TOLD_FAILED:
        c->failed += n;
        break;
    }
}

/* Told about a batch the ledger does not hold: it was never sent, so it
 * is judged at once with no copies. */
static void judge_unsent(ks_checker *c, uint32_t producer, uint64_t batch, uint32_t partition,
                         ks_told told, const char *error, int64_t offset,
                         const uint64_t *record_ids, uint32_t n)
{
    entry e;
    memset(&e, 0, sizeof e);
    e.producer = producer;
    e.batch = batch;
    e.partition = partition;
    e.records = n;
    e.told = told;
    e.error = ks_ck_intern(c, error);
    e.told_offset = offset;
    ks_ck_judge(c, &e, record_ids, n);
}

void ks_checker_told(ks_checker *c, uint32_t producer, uint64_t batch, uint32_t partition,
                     ks_told told, const char *error, int64_t offset,
                     const uint64_t *record_ids, uint32_t n)
{
    if (!c || producer >= c->producers || told == KS_TOLD_NOTHING)
        return;
    entry *e = batch == KS_CHECK_NO_BATCH ? NULL : ledger_find(c, producer, batch);
    if (e && e->told != KS_TOLD_NOTHING)
        return; /* told twice: the first word stands */
    count_told(c, told, n);
    if (told == KS_TOLD_FAILED)
        ks_checker_aborted(c, record_ids, n);
    if (batch == KS_CHECK_NO_BATCH)
        return;
    if (!e) {
        judge_unsent(c, producer, batch, partition, told, error, offset, record_ids, n);
        return;
    }
    e->told = told;
    e->error = ks_ck_intern(c, error);
    e->told_offset = offset;
    if (e->unresolved == 0) {
        settle(c, e, record_ids, n);
        return;
    }
    if (record_ids && n > 0) {
        e->ids = ks_ck_alloc(c, (size_t)n * sizeof *e->ids, true);
        if (e->ids) {
            memcpy(e->ids, record_ids, (size_t)n * sizeof *e->ids);
            e->nids = n;
        }
    }
}

uint64_t ks_checker_open_batches(const ks_checker *c)
{
    return c ? (uint64_t)c->ledger.count : 0;
}

size_t ks_checker_bytes(const ks_checker *c)
{
    return c ? c->bytes : 0;
}

void ks_checker_fail_allocations_after(ks_checker *c, uint64_t n)
{
    if (c)
        c->alloc_budget = n;
}

/* ---- the end ------------------------------------------------------- */

static int by_producer_batch(const void *a, const void *b)
{
    const slot *x = a, *y = b;
    if (x->producer != y->producer)
        return x->producer < y->producer ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

/* Judges the entries still open in ascending (producer, batch) order. The
 * ledger's slots are sorted in place, which needs no memory; the ledger is
 * empty afterwards. */
static void judge_open(ks_checker *c)
{
    map *m = &c->ledger;
    size_t n = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].used)
            m->slots[n++] = m->slots[i];
    qsort(m->slots, n, sizeof *m->slots, by_producer_batch);
    for (size_t i = 0; i < n; i++) {
        entry *e = m->slots[i].v.e;
        ks_ck_judge(c, e, e->ids, e->nids);
        entry_free(c, e);
    }
    memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->count = 0;
    if (m->cap > MAP_MIN_CAP)
        (void)ks_ck_map_resize(c, m, MAP_MIN_CAP, false);
}

/* ---- reads and transactions (recorded when consumers are checked) ---- */

void ks_checker_aborted(ks_checker *c, const uint64_t *ids, uint32_t n)
{
    if (!c || !c->reads_on || !ids)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (!ks_ck_map_find(&c->aborted, 0, ids[i]) && !ks_ck_map_insert(c, &c->aborted, 0, ids[i]))
            return;
}

void ks_checker_zombie(ks_checker *c, const uint64_t *ids, uint32_t n)
{
    if (!c || !c->reads_on || !ids)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (!ks_ck_map_find(&c->zombie, 0, ids[i]) && !ks_ck_map_insert(c, &c->zombie, 0, ids[i]))
            return;
}

void ks_checker_forward(ks_checker *c, uint64_t record, uint64_t source)
{
    if (!c || !c->reads_on || ks_ck_map_find(&c->lineage, 0, record))
        return;
    slot *s = ks_ck_map_insert(c, &c->lineage, 0, record);
    if (s)
        s->v.source = source;
}

void ks_checker_read(ks_checker *c, uint32_t consumer, uint64_t record, bool read_committed,
                     bool transactional, ks_time now)
{
    if (!c || !c->reads_on || record == UINT64_MAX)
        return;
    if (consumer + 1u > c->consumers_seen)
        c->consumers_seen = consumer + 1u;
    if (!read_committed && transactional && !ks_ck_map_find(&c->ureads, consumer, record))
        (void)ks_ck_map_insert(c, &c->ureads, consumer, record);
    const slot *l = c->lineage.count ? ks_ck_map_find(&c->lineage, 0, record) : NULL;
    if (l && !c->out_of_memory) {
        if (c->neffects == c->effects_cap) {
            uint64_t cap = c->effects_cap ? c->effects_cap * 2u : 64u;
            if (!ks_ck_grow((void **)&c->effects, cap, sizeof *c->effects)) {
                c->out_of_memory = true;
                return;
            }
            c->effects_cap = cap;
        }
        c->effects[c->neffects++] = (effect_read){l->v.source, record, consumer};
    }
    if (!read_committed)
        return;
    if (ks_ck_map_find(&c->reads, consumer, record))
        return;
    slot *s = ks_ck_map_insert(c, &c->reads, consumer, record);
    if (s)
        s->read_ns = now;
    if (consumer + 1u > c->consumers_seen)
        c->consumers_seen = consumer + 1u;
}

void ks_checker_watch_reads(ks_checker *c)
{
    if (!c)
        return;
    c->reads_on = true;
    if (!c->part_read && c->partitions > 0)
        c->part_read = calloc(c->partitions, sizeof *c->part_read);
    if (!c->part_read && c->partitions > 0)
        c->out_of_memory = true;
}

void ks_checker_reads_partition(ks_checker *c, uint32_t partition)
{
    if (c && c->part_read && partition < c->partitions)
        c->part_read[partition] = true;
}

void ks_checker_txn_committed(ks_checker *c, uint32_t producer, uint64_t txn, ks_time decided_ns,
                              const uint64_t *ids, const uint32_t *partitions, uint32_t n)
{
    if (!c || !c->reads_on || c->out_of_memory)
        return;
    if (c->ntx == c->tx_cap) {
        uint64_t cap = c->tx_cap ? c->tx_cap * 2u : 16u;
        if (!ks_ck_grow((void **)&c->ctx_start, cap, sizeof *c->ctx_start) ||
            !ks_ck_grow((void **)&c->ctx_producer, cap, sizeof *c->ctx_producer) ||
            !ks_ck_grow((void **)&c->ctx_number, cap, sizeof *c->ctx_number)) {
            c->out_of_memory = true;
            return;
        }
        c->tx_cap = cap;
    }
    if (c->nctx + n > c->ctx_cap) {
        uint64_t cap = c->ctx_cap ? c->ctx_cap : 64u;
        while (cap < c->nctx + n)
            cap *= 2u;
        if (!ks_ck_grow((void **)&c->ctx_ids, cap, sizeof *c->ctx_ids) ||
            !ks_ck_grow((void **)&c->ctx_parts, cap, sizeof *c->ctx_parts) ||
            !ks_ck_grow((void **)&c->ctx_decided, cap, sizeof *c->ctx_decided)) {
            c->out_of_memory = true;
            return;
        }
        c->ctx_cap = cap;
    }
    c->ctx_start[c->ntx] = c->nctx;
    c->ctx_producer[c->ntx] = producer;
    c->ctx_number[c->ntx] = txn;
    c->ntx++;
    for (uint32_t i = 0; i < n; i++) {
        c->ctx_ids[c->nctx] = ids[i];
        c->ctx_parts[c->nctx] = partitions[i];
        c->ctx_decided[c->nctx] = decided_ns;
        c->nctx++;
    }
}

json_t *ks_checker_finish(ks_checker *c)
{
    if (!c)
        return NULL;
    judge_open(c);
    ks_ck_count_uncommitted_reads(c);
    ks_ck_judge_reads(c);
    ks_ck_judge_transactions(c);
    ks_ck_judge_effects(c);
    return ks_ck_summary(c);
}
