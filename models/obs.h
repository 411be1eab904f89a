/*
 * obs.h - what the nodes report to whoever watches the run: the
 * observation points of a record's life (sent in a request, appended or
 * not, the request's fate, what the application was told, read by a
 * consumer, inside a transaction that committed or aborted).
 *
 * Owns: the vocabulary of those observations (ks_told, ks_request_fate)
 * and one observer slot, a table of functions and its context. The nodes
 * call ks_obs_*; they never see who listens. The world plugs the delivery
 * checker in (models/check/checker.h, ks_checker_observer); a run with no
 * observer (ops NULL) costs one test per point. An observer only reads
 * what it is told: it never answers, so it can change nothing in the run.
 *
 * Identities are the run's: `producer` and `consumer` are node indices in
 * scenario order, `partition` the world's partition index, `batch` the
 * producer's batch id (increasing in creation order), `request` the
 * producer's request number, record ids as the world numbers them.
 */
#ifndef KS_OBS_H
#define KS_OBS_H

#include <stdbool.h>
#include <stdint.h>

/* What the application was told about a batch's records. */
typedef enum ks_told {
    KS_TOLD_NOTHING,        /* not (yet) */
    KS_TOLD_ACKED,          /* success with offsets */
    KS_TOLD_ACKED_NO_OFFSET,/* success, offset unknown (acks=0) */
    KS_TOLD_FAILED          /* an exception */
} ks_told;

/* What became of a request that carried a batch. */
#define KS_REQUEST_FATES(X)                                                  \
    X(PENDING, "pending")           /* no fate yet */                        \
    X(ANSWERED, "answered")         /* its response reached the producer */  \
    X(REQUEST_DROPPED, "request_dropped")   /* lost before the broker */     \
    X(RESPONSE_DROPPED, "response_dropped") /* response lost on the way */   \
    X(DISCARDED, "discarded")       /* response arrived behind a lost one and \
                                       was dropped when the connection closed */ \
    X(TIMED_OUT, "timed_out")       /* request.timeout.ms expired on it */   \
    X(NO_RESPONSE, "no_response")   /* acks=0: none expected */

typedef enum ks_request_fate {
#define X(e, name) KS_FATE_##e,
    KS_REQUEST_FATES(X)
#undef X
    KS_FATE__COUNT
} ks_request_fate;

const char *ks_request_fate_name(ks_request_fate f);

#define KS_OBS_NO_FAULT (-1)        /* a fate no fault of the scenario caused */
#define KS_OBS_NO_BATCH UINT64_MAX  /* told about records never sent in a batch */

/* The observation points; the meaning of each is documented on the
 * ks_obs_* call below. */
typedef struct ks_obs_ops {
    void (*sent)(void *ctx, uint32_t producer, uint64_t batch, uint32_t partition,
                 uint32_t records, uint64_t request, uint32_t attempt);
    void (*appended)(void *ctx, uint32_t producer, uint64_t batch, uint64_t request,
                     int64_t base_offset);
    void (*not_appended)(void *ctx, uint32_t producer, uint64_t batch, uint64_t request,
                         const char *why);
    void (*request_fate)(void *ctx, uint32_t producer, uint64_t request, ks_request_fate fate,
                         int32_t fault);
    void (*told)(void *ctx, uint32_t producer, uint64_t batch, uint32_t partition, ks_told told,
                 const char *error, int64_t offset, const uint64_t *record_ids, uint32_t n);
    void (*untold)(void *ctx, uint32_t producer, uint64_t records);
    void (*split)(void *ctx, uint32_t producer, uint64_t batch, uint64_t into,
                  uint32_t partition, uint32_t records);
    void (*aborted)(void *ctx, const uint64_t *ids, uint32_t n);
    void (*read)(void *ctx, uint32_t consumer, uint64_t record, bool read_committed,
                 bool transactional, int64_t now);
    void (*forward)(void *ctx, uint64_t record, uint64_t source);
    void (*txn_committed)(void *ctx, uint32_t producer, uint64_t txn, int64_t decided_ns,
                          const uint64_t *ids, const uint32_t *partitions, uint32_t n);
    void (*zombie)(void *ctx, const uint64_t *ids, uint32_t n);
} ks_obs_ops;

typedef struct ks_obs {
    const ks_obs_ops *ops; /* NULL: nobody watches */
    void *ctx;
} ks_obs;

/* A request carrying `batch` of `partition` (`records` records) left the
 * producer; `attempt` counts from 1. */
static inline void ks_obs_sent(const ks_obs *o, uint32_t producer, uint64_t batch,
                               uint32_t partition, uint32_t records, uint64_t request,
                               uint32_t attempt)
{
    if (o->ops)
        o->ops->sent(o->ctx, producer, batch, partition, records, request, attempt);
}

/* The leader appended that copy at base_offset. */
static inline void ks_obs_appended(const ks_obs *o, uint32_t producer, uint64_t batch,
                                   uint64_t request, int64_t base_offset)
{
    if (o->ops)
        o->ops->appended(o->ctx, producer, batch, request, base_offset);
}

/* The copy did not reach a log: refused (`why` is the error name,
 * "DUPLICATE" for a duplicate the leader recognised) or lost on the way. */
static inline void ks_obs_not_appended(const ks_obs *o, uint32_t producer, uint64_t batch,
                                       uint64_t request, const char *why)
{
    if (o->ops)
        o->ops->not_appended(o->ctx, producer, batch, request, why);
}

/* What became of the request; `fault` is the index of the scenario's
 * fault responsible, or KS_OBS_NO_FAULT. Before or after its appends.
 * Both the network (a message it lost) and the producer (what it saw:
 * answered, timed out, discarded) report; the first report of a request
 * is the one kept. */
static inline void ks_obs_request_fate(const ks_obs *o, uint32_t producer, uint64_t request,
                                       ks_request_fate fate, int32_t fault)
{
    if (o->ops)
        o->ops->request_fate(o->ctx, producer, request, fate, fault);
}

/* The application was told the outcome of record_ids[0..n) (the batch's
 * order); batch KS_OBS_NO_BATCH for records never sent in one. `error`
 * is the exception name or NULL, `offset` the base offset told or -1. */
static inline void ks_obs_told(const ks_obs *o, uint32_t producer, uint64_t batch,
                               uint32_t partition, ks_told told, const char *error,
                               int64_t offset, const uint64_t *record_ids, uint32_t n)
{
    if (o->ops)
        o->ops->told(o->ctx, producer, batch, partition, told, error, offset, record_ids, n);
}

/* The producer split `batch`, which the leader refused as too large:
 * `records` of its records continue in the new batch `into` (called once
 * per new batch, in record order, before any of them is sent). `batch`
 * itself is done and will be told nothing. */
static inline void ks_obs_split(const ks_obs *o, uint32_t producer, uint64_t batch,
                                uint64_t into, uint32_t partition, uint32_t records)
{
    if (o->ops && o->ops->split)
        o->ops->split(o->ctx, producer, batch, into, partition, records);
}

/* At the end: `records` the producer never told anything and never sent. */
static inline void ks_obs_untold(const ks_obs *o, uint32_t producer, uint64_t records)
{
    if (o->ops)
        o->ops->untold(o->ctx, producer, records);
}

/* The transaction holding ids[0..n) aborted. */
static inline void ks_obs_aborted(const ks_obs *o, const uint64_t *ids, uint32_t n)
{
    if (o->ops)
        o->ops->aborted(o->ctx, ids, n);
}

/* A consumer's application read `record` at `now`. */
static inline void ks_obs_read(const ks_obs *o, uint32_t consumer, uint64_t record,
                               bool read_committed, bool transactional, int64_t now)
{
    if (o->ops)
        o->ops->read(o->ctx, consumer, record, read_committed, transactional, now);
}

/* Consume-transform-produce: `record` was written for record `source`. */
static inline void ks_obs_forward(const ks_obs *o, uint64_t record, uint64_t source)
{
    if (o->ops)
        o->ops->forward(o->ctx, record, source);
}

/* The producer's transaction `txn` committed, decided at decided_ns:
 * records ids[0..n), written to partitions[0..n). */
static inline void ks_obs_txn_committed(const ks_obs *o, uint32_t producer, uint64_t txn,
                                        int64_t decided_ns, const uint64_t *ids,
                                        const uint32_t *partitions, uint32_t n)
{
    if (o->ops)
        o->ops->txn_committed(o->ctx, producer, txn, decided_ns, ids, partitions, n);
}

/* Records sent in the transaction their producer was fenced in. */
static inline void ks_obs_zombie(const ks_obs *o, const uint64_t *ids, uint32_t n)
{
    if (o->ops)
        o->ops->zombie(o->ctx, ids, n);
}

#endif
