/*
 * checker_internal.h - what the files of the delivery checker share: the
 * checker's state (struct ks_checker), a ledger entry per batch in flight,
 * the hash tables they live in, and the functions each file offers the
 * others. Internal to models/check/: everyone else uses checker.h.
 *
 * The files, each below the ones that call it (no file calls back up):
 *   checker.c           the record and batch bookkeeping: the ledger, the
 *                       request table, the reads and transactions recorded,
 *                       and every observation entry point; ks_checker_finish
 *   checker_delivery.c  the verdicts on a batch: lost, duplicate,
 *                       nonmonotonic_send, failed_but_present,
 *                       indeterminate (and the records never sent)
 *   checker_txn.c       the transactional verdicts: aborted read, zombie
 *                       write visible, torn transaction, precommitted read,
 *                       and the aborted records read uncommitted
 *   checker_effects.c   end to end: a record processed twice
 *   checker_json.c      the JSON of the verdicts: each anomaly, its cause,
 *                       and the summary object
 *   checker_table.c     memory accounting, the hash tables, interned names
 *
 * Ownership: the checker owns everything it points to except the names
 * given to ks_checker_create. Shared functions are prefixed ks_ck_; each
 * is described where it is defined. Never include this header outside
 * models/check/, and never from checker.h.
 */
#ifndef KS_CHECK_CHECKER_INTERNAL_H
#define KS_CHECK_CHECKER_INTERNAL_H

#include "models/check/verdicts.h"
#include "models/obs.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the same type as checker.h's, which this header does not include */
typedef struct ks_checker ks_checker;

/* Copies and requests kept in detail per batch; beyond, only counted. */
#define INLINE 8u
/* Smallest table capacity (a power of two). */
#define MAP_MIN_CAP 256u
/* Entries kept for reuse, so that the common batch costs no malloc. */
#define SPARE_MAX 256u

/* A verdict as a bit of a batch's verdicts, listed in "kinds" in the
 * order of verdicts.h. */
#define VERDICT_BIT(v) (1u << KS_VERDICT_##v)

/* What the leader did with the copy a request carried. */
enum { OUT_PENDING, OUT_APPENDED, OUT_REFUSED };

typedef struct copy_rec {
    int64_t offset;
    uint64_t request;
    uint32_t attempt; /* 0 when unknown (the request was not kept) */
} copy_rec;

typedef struct carrier {
    uint64_t request;
    uint32_t attempt;
    uint8_t outcome; /* OUT_* */
    bool counted;    /* holds a reference in the request table */
    uint16_t why;    /* interned refusal reason, 0 for none */
} carrier;

/* The batch that landed furthest in a producer's partition: 1 + its
 * order (0: none yet), and its id. */
typedef struct landed {
    uint64_t order1, batch;
} landed;

/* One batch in flight (see checker.h, "Owns"). */
typedef struct entry {
    uint64_t batch;
    uint64_t order;        /* its place among the producer's batches: its id,
                              or for a batch split from another, that one's */
    uint64_t overtaken_by; /* 1 + the later batch that landed first; 0 if none */
    uint64_t last_request; /* the latest request, kept even past INLINE */
    uint64_t *ids;         /* record ids, copied when told before settled */
    int64_t told_offset;
    uint32_t producer, partition, records;
    uint32_t unresolved; /* requests carrying it not yet appended or refused */
    uint32_t ncopies, ncarriers, nids, last_attempt;
    uint32_t split_records; /* records moved on into split batches */
    ks_told told;
    uint16_t error; /* interned error name, 0 for none */
    copy_rec copies[INLINE];
    carrier carriers[INLINE];
} entry;

/* What became of a request, and how many ledger entries list it. */
typedef struct req_info {
    uint32_t refs;
    int32_t fault;
    ks_request_fate fate;
} req_info;

typedef struct slot {
    uint64_t key;
    uint32_t producer;
    bool used;
    ks_time read_ns;   /* the reads table: when it was first read */
    union {
        entry *e;
        req_info r;
        uint64_t source; /* the lineage table: the record it was written for */
    } v;
} slot;

/* A consumer read a record written for record `source` (consume-
 * transform-produce). */
typedef struct effect_read {
    uint64_t source, output;
    uint32_t consumer;
} effect_read;

typedef struct map {
    slot *slots;
    size_t cap; /* a power of two */
    size_t count;
} map;

struct ks_checker {
    entry *spare[SPARE_MAX];
    uint32_t nspare;
    uint32_t producers, partitions;
    const char *const *producer_ids;
    const char *const *partition_names;
    landed *high;   /* [producer * partitions + partition]: the furthest batch landed */
    map ledger, requests;
    map aborted;      /* records whose writer failed or whose transaction aborted */
    map zombie;       /* records a fenced producer sent in its last transaction */
    /* committed transactions: their records (and partitions), in commit
     * order, and the partitions read_committed consumers read */
    uint64_t *ctx_ids;
    uint32_t *ctx_parts;
    ks_time *ctx_decided;      /* per record: when its transaction committed */
    uint64_t nctx, ctx_cap;
    uint64_t *ctx_start;       /* per transaction: index of its first record */
    uint32_t *ctx_producer;
    uint64_t *ctx_number;
    uint64_t ntx, tx_cap;
    bool *part_read;           /* per partition: a read_committed consumer reads it */
    ks_time *read_at;          /* per slot of `reads`: when it was first read */
    uint32_t consumers_seen;   /* 1 + the highest consumer index read by */
    map reads;        /* records read by read_committed consumers (producer = consumer) */
    map ureads;       /* transactional records read by read_uncommitted ones */
    uint64_t *read_aborted_by; /* per consumer, after the finish: reads of aborted data */
    uint32_t nread_aborted_by;
    map lineage;      /* records written for a record read, and that record */
    effect_read *effects; /* every read of such a record, by any consumer */
    uint64_t neffects, effects_cap;
    bool reads_on;    /* the maps above are kept (a consumer reads committed) */
    char **names; /* interned error names; index + 1 is the handle */
    uint32_t nnames, names_cap;
    json_t *anomalies;
    uint64_t anomalies_total;
    uint64_t acked, acked_no_offset, failed, untold;
    uint64_t count[KS_VERDICT__COUNT]; /* records per verdict (verdicts.h) */
    size_t bytes;          /* held, for ks_checker_bytes */
    uint64_t alloc_budget; /* allocations left before simulated exhaustion */
    bool out_of_memory;
};

/* ---- checker_table.c: memory, hash tables, names ------------------------ */

void *ks_ck_alloc(ks_checker *c, size_t n, bool needed);
void ks_ck_free(ks_checker *c, void *p, size_t n);
bool ks_ck_grow(void **p, uint64_t cap, size_t size);
bool ks_ck_map_init(ks_checker *c, map *m);
void ks_ck_map_free(ks_checker *c, map *m);
bool ks_ck_map_resize(ks_checker *c, map *m, size_t cap, bool needed);
slot *ks_ck_map_probe(const map *m, uint32_t producer, uint64_t key, size_t *empty);
slot *ks_ck_map_find(const map *m, uint32_t producer, uint64_t key);
slot *ks_ck_map_insert(ks_checker *c, map *m, uint32_t producer, uint64_t key);
slot *ks_ck_map_insert_at(ks_checker *c, map *m, uint32_t producer, uint64_t key, size_t empty);
void ks_ck_map_remove(ks_checker *c, map *m, slot *s);
uint16_t ks_ck_intern(ks_checker *c, const char *name);
const char *ks_ck_name_of(const ks_checker *c, uint16_t handle);

/* ---- checker_json.c: anomalies and the summary --------------------------- */

void ks_ck_describe(ks_checker *c, const entry *e, unsigned kinds, const uint64_t *ids,
                    uint32_t nids);
void ks_ck_describe_untold(ks_checker *c, uint32_t producer, uint64_t records);
void ks_ck_list_read(ks_checker *c, uint64_t record, uint32_t consumer, bool aborted,
                     bool zombie);
void ks_ck_list_torn(ks_checker *c, uint64_t tx, uint64_t seen, uint64_t unseen);
void ks_ck_list_precommitted(ks_checker *c, uint64_t tx, uint64_t early);
void ks_ck_list_twice(ks_checker *c, const effect_read *g, const uint64_t outs[2],
                      uint64_t distinct);
json_t *ks_ck_summary(const ks_checker *c);

/* ---- the verdicts ----------------------------------------------------------- */

/* checker_delivery.c */
void ks_ck_judge(ks_checker *c, const entry *e, const uint64_t *ids, uint32_t nids);
/* checker_txn.c */
void ks_ck_count_uncommitted_reads(ks_checker *c);
void ks_ck_judge_reads(ks_checker *c);
void ks_ck_judge_transactions(ks_checker *c);
/* checker_effects.c */
void ks_ck_judge_effects(ks_checker *c);

#endif
