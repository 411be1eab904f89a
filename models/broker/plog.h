/*
 * plog.h - a partition's log as consumers and the delivery checker read
 * it: its batches (data and control), the high watermark, the last
 * stable offset (LSO) and the index of aborted transactions; and the
 * fetch that hands records to a consumer under its isolation.level.
 *
 * Owns: one partition's batch list and, when kept, the record ids in it.
 * Follows [K] storage/.../log/UnifiedLog (lastStableOffset = min(first
 * unstable offset, high watermark)), ProducerStateManager (an ongoing
 * transaction starts at its first data batch and ends at its marker),
 * the transaction index (.txnindex: AbortedTxn(producerId, firstOffset,
 * lastOffset = the ABORT marker's offset, lastStableOffset)), control
 * records ([K] ControlRecordType ABORT 0 / COMMIT 1: one record, one
 * offset), and the consumer's CompletedFetch, which for read_committed
 * skips the batches of aborted transactions using the aborted list and
 * never returns control records; read_uncommitted reads up to the high
 * watermark and returns aborted data too.
 *
 * Offsets are assigned here: the log end offset (LEO) is the next offset.
 * Without replication the high watermark is the LEO; ks_plog_set_hw lets
 * a replication model hold it back later.
 *
 * Never: decides whether a batch may be appended (producer_state.c and
 * the broker do) or schedules anything.
 */
#ifndef KS_PLOG_H
#define KS_PLOG_H

#include "models/kafka/records.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum ks_marker { KS_MARKER_ABORT = 0, KS_MARKER_COMMIT = 1 } ks_marker;

typedef enum ks_isolation { KS_READ_UNCOMMITTED = 0, KS_READ_COMMITTED = 1 } ks_isolation;

/* One batch as stored. */
typedef struct ks_plog_batch {
    int64_t base_offset;
    uint32_t records;        /* 1 for a control batch */
    int64_t producer_id;     /* -1: none */
    int16_t epoch;
    bool transactional;
    bool control;            /* a transaction marker */
    ks_marker marker;        /* control only */
    uint32_t producer;       /* ksim producer index; UINT32_MAX for markers */
    uint64_t batch;          /* the producer's batch id (data only) */
    ks_time appended_ns;
    uint64_t ids_at;         /* index of its first record id in the id store */
    uint32_t bytes;          /* as stored (a fetch sends as much) */
} ks_plog_batch;

/* An aborted transaction, as in the .txnindex. */
typedef struct ks_aborted_txn {
    int64_t producer_id;
    int64_t first_offset;    /* its first data batch in this partition */
    int64_t last_offset;     /* its ABORT marker */
} ks_aborted_txn;

/* An ongoing transaction: a producer id with transactional data here and
 * no marker yet. */
typedef struct ks_open_txn {
    int64_t producer_id;
    int64_t first_offset;
} ks_open_txn;

/* A completed transaction whose marker is not yet below the high
 * watermark: it stays unstable, holding the LSO at its first offset, until
 * the high watermark passes its marker ([K] ProducerStateManager
 * .unreplicatedTxns, completeTxn, onHighWatermarkUpdated). */
typedef struct ks_completed_txn {
    int64_t producer_id;
    int64_t first_offset;
    int64_t last_offset;     /* its marker */
} ks_completed_txn;

typedef struct ks_plog {
    ks_plog_batch *batches;
    uint32_t count, cap;
    uint64_t *ids;           /* record ids, when kept (ks_plog_init) */
    uint64_t nids, ids_cap;
    bool keep_ids;
    int64_t leo;             /* log end offset: the next offset */
    int64_t hw;              /* high watermark */
    bool hw_held;            /* held by ks_plog_set_hw; else hw follows the LEO */
    ks_open_txn *open;       /* ongoing transactions, by first offset */
    uint32_t nopen, open_cap;
    ks_aborted_txn *aborted; /* in marker order */
    uint32_t naborted, aborted_cap;
    ks_completed_txn *unrepl; /* completed, marker >= hw; in marker order */
    uint32_t nunrepl, unrepl_cap;
} ks_plog;

/* Has producer id pid a transaction ongoing here (transactional data and
 * no marker yet)? ([K] UnifiedLog.hasOngoingTransaction) */
bool ks_plog_txn_ongoing(const ks_plog *l, int64_t pid);

/* keep_ids: store every data record's id (consumers and the checker read
 * them); without, only batches are kept. */
void ks_plog_init(ks_plog *l, bool keep_ids);
void ks_plog_free(ks_plog *l);

/* Appends a data batch of `records` records (ids[0..records) when ids are
 * kept; may be NULL otherwise) at the LEO; a transactional batch of a
 * producer id with no ongoing transaction here starts one. Fills
 * b->base_offset and b->ids_at from the log and returns the base offset,
 * or -1 when out of memory. The high watermark follows the LEO unless
 * held (ks_plog_set_hw). */
int64_t ks_plog_append(ks_plog *l, ks_plog_batch *b, const uint64_t *ids);
/* Appends a transaction marker for producer_id (one control record, one
 * offset) and ends its ongoing transaction here, if any: an ABORT adds
 * the transaction to the aborted index (a marker with no transaction
 * open here is still appended and indexed with first = last = its own
 * offset, as Kafka writes markers to every partition of a transaction).
 * Returns its offset, or -1 when out of memory. */
int64_t ks_plog_append_marker(ks_plog *l, int64_t producer_id, int16_t epoch, ks_marker m,
                              ks_time now);

/* Holds the high watermark at hw (<= LEO); -1 releases it to follow the
 * LEO again. A leader's high watermark never goes back ([K] UnifiedLog
 * .maybeIncrementHighWatermark), so hw is at least the current one. */
void ks_plog_set_hw(ks_plog *l, int64_t hw);
/* The last stable offset: the first offset of the oldest transaction
 * that is ongoing or whose marker is not yet below the high watermark, or
 * the high watermark if none is older. */
int64_t ks_plog_lso(const ks_plog *l);
/* The batch holding `offset`, or NULL (binary search). */
const ks_plog_batch *ks_plog_find(const ks_plog *l, int64_t offset);

/*
 * A consumer fetch from `from`: up to `max` records below the fetch limit
 * (the high watermark for read_uncommitted, the LSO for read_committed),
 * in offset order, skipping control records always and, for
 * read_committed, the data of aborted transactions as the consumer's
 * CompletedFetch does: the broker sends the aborted transactions with
 * last_offset >= from; a batch with a producer id moves every one with
 * first_offset <= its last offset into the aborted producer id set; an
 * ABORT marker takes its producer id out; a transactional batch of a
 * producer id in the set is skipped. Only whole batches below the limit
 * are read. *next receives the offset to fetch from next time (past
 * skipped records and markers, never past the limit). Returns the number
 * of records written to out. read_committed needs scratch memory while
 * aborted transactions are in range: out of memory, it returns 0 with
 * *next = from, like an empty fetch.
 */
uint32_t ks_plog_fetch(const ks_plog *l, int64_t from, ks_isolation iso, uint32_t max,
                       ks_fetched *out, int64_t *next);

#endif
