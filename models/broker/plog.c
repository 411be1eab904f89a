/*
 * plog.c - one partition's log: offsets, the high watermark, the last
 * stable offset, the aborted-transaction index and the consumer's fetch
 * (see plog.h for the contract and its Kafka sources).
 *
 * Every array grows by doubling. A mutating call first makes room in every
 * array it will touch and only then changes the log, so running out of
 * memory leaves the log as it was. The fetch is stateless: each call is a
 * fresh broker read plus a fresh CompletedFetch, as each Kafka fetch
 * response gets its own aborted producer id set.
 */
#include "models/broker/plog.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 16u

void ks_plog_init(ks_plog *l, bool keep_ids)
{
    memset(l, 0, sizeof *l);
    l->keep_ids = keep_ids;
}

void ks_plog_free(ks_plog *l)
{
    free(l->batches);
    free(l->ids);
    free(l->open);
    free(l->aborted);
    free(l->unrepl);
    memset(l, 0, sizeof *l);
}

/* Returns arr resized so that `need` elements of `size` bytes fit, the
 * capacity doubling from FIRST_CAP but never above `max`, and stores the
 * new capacity in *cap. Returns NULL, with arr and *cap untouched, when
 * that is impossible or realloc fails. */
static void *grow(void *arr, uint64_t *cap, uint64_t need, uint64_t max, size_t size)
{
    if (need <= *cap)
        return arr;
    if (need > max)
        return NULL;
    uint64_t c = *cap ? *cap : FIRST_CAP;
    while (c < need)
        c = c > max / 2 ? max : c * 2;
    if (c > SIZE_MAX / size)
        return NULL;
    void *p = realloc(arr, (size_t)c * size);
    if (p)
        *cap = c;
    return p;
}

/* Room for one more batch. */
static bool room_batch(ks_plog *l)
{
    uint64_t cap = l->cap;
    void *p = grow(l->batches, &cap, (uint64_t)l->count + 1u, UINT32_MAX, sizeof *l->batches);
    if (!p)
        return false;
    l->batches = p;
    l->cap = (uint32_t)cap;
    return true;
}

/* Room for n more record ids. */
static bool room_ids(ks_plog *l, uint64_t n)
{
    if (n > UINT64_MAX - l->nids)
        return false;
    void *p = grow(l->ids, &l->ids_cap, l->nids + n, UINT64_MAX, sizeof *l->ids);
    if (!p)
        return false;
    l->ids = p;
    return true;
}

/* Room for one more ongoing transaction. */
static bool room_open(ks_plog *l)
{
    uint64_t cap = l->open_cap;
    void *p = grow(l->open, &cap, (uint64_t)l->nopen + 1u, UINT32_MAX, sizeof *l->open);
    if (!p)
        return false;
    l->open = p;
    l->open_cap = (uint32_t)cap;
    return true;
}

/* Room for one more aborted transaction. */
static bool room_aborted(ks_plog *l)
{
    uint64_t cap = l->aborted_cap;
    void *p = grow(l->aborted, &cap, (uint64_t)l->naborted + 1u, UINT32_MAX, sizeof *l->aborted);
    if (!p)
        return false;
    l->aborted = p;
    l->aborted_cap = (uint32_t)cap;
    return true;
}

/* Room for one more completed transaction awaiting the high watermark. */
static bool room_unrepl(ks_plog *l)
{
    uint64_t cap = l->unrepl_cap;
    void *p = grow(l->unrepl, &cap, (uint64_t)l->nunrepl + 1u, UINT32_MAX, sizeof *l->unrepl);
    if (!p)
        return false;
    l->unrepl = p;
    l->unrepl_cap = (uint32_t)cap;
    return true;
}

/* The index of pid's ongoing transaction, or l->nopen when it has none. */
static uint32_t open_index(const ks_plog *l, int64_t pid)
{
    uint32_t i = 0;
    while (i < l->nopen && l->open[i].producer_id != pid)
        i++;
    return i;
}

/* Forgets the completed transactions whose markers are now below the high
 * watermark ([K] ProducerStateManager.onHighWatermarkUpdated, which
 * removes those with lastOffset < highWatermark). Keeps marker order. */
static void forget_replicated(ks_plog *l)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < l->nunrepl; i++)
        if (l->unrepl[i].last_offset >= l->hw)
            l->unrepl[kept++] = l->unrepl[i];
    l->nunrepl = kept;
}

/* The log end offset moved: the high watermark follows unless held. */
static void leo_moved(ks_plog *l)
{
    if (!l->hw_held)
        l->hw = l->leo;
    forget_replicated(l);
}

/* Whether a data batch opens a transaction here: a transactional batch of
 * a producer id with none ongoing ([K] ProducerAppendInfo.appendDataBatch:
 * "Began a new transaction" at the batch's first offset). */
static bool opens_txn(const ks_plog *l, const ks_plog_batch *b)
{
    return b->transactional && open_index(l, b->producer_id) == l->nopen;
}

int64_t ks_plog_append(ks_plog *l, ks_plog_batch *b, const uint64_t *ids)
{
    assert(!b->control && b->records >= 1u);
    assert(!b->transactional || b->producer_id >= 0);
    assert(!l->keep_ids || ids != NULL);
    bool opens = opens_txn(l, b);
    if (!room_batch(l) || (l->keep_ids && !room_ids(l, b->records)) || (opens && !room_open(l)))
        return -1;
    b->base_offset = l->leo;
    b->ids_at = l->nids;
    if (l->keep_ids) {
        memcpy(l->ids + l->nids, ids, (size_t)b->records * sizeof *ids);
        l->nids += b->records;
    }
    if (opens)
        l->open[l->nopen++] = (ks_open_txn){ b->producer_id, b->base_offset };
    l->batches[l->count++] = *b;
    l->leo += b->records;
    leo_moved(l);
    return b->base_offset;
}

/* Ends pid's ongoing transaction, if any, with the marker at `offset`:
 * returns its first offset (the marker's own offset when none was open,
 * as [K] ProducerAppendInfo.appendEndTxnMarker did before KAFKA-10702 in
 * 2.8; a fetch cannot tell, as that entry is consumed and dropped again
 * at its own marker) and, when
 * one was open, keeps it unstable while the marker is at or above the
 * high watermark ([K] ProducerStateManager.completeTxn). The caller made
 * room in unrepl. */
static int64_t end_txn(ks_plog *l, int64_t pid, int64_t offset)
{
    uint32_t i = open_index(l, pid);
    if (i == l->nopen)
        return offset;
    int64_t first = l->open[i].first_offset;
    memmove(&l->open[i], &l->open[i + 1], (size_t)(l->nopen - i - 1u) * sizeof *l->open);
    l->nopen--;
    l->unrepl[l->nunrepl++] = (ks_completed_txn){ pid, first, offset };
    return first;
}

/* The control batch of a marker at the LEO. */
static ks_plog_batch marker_batch(const ks_plog *l, int64_t pid, int16_t epoch, ks_marker m,
                                  ks_time now)
{
    ks_plog_batch b;
    memset(&b, 0, sizeof b);
    b.base_offset = l->leo;
    b.records = 1;
    b.producer_id = pid;
    b.epoch = epoch;
    b.transactional = true;
    b.control = true;
    b.marker = m;
    b.producer = UINT32_MAX;
    b.appended_ns = now;
    b.ids_at = l->nids;
    return b;
}

int64_t ks_plog_append_marker(ks_plog *l, int64_t producer_id, int16_t epoch, ks_marker m,
                              ks_time now)
{
    assert(producer_id >= 0);
    bool aborts = m == KS_MARKER_ABORT;
    bool closes = open_index(l, producer_id) < l->nopen;
    if (!room_batch(l) || (aborts && !room_aborted(l)) || (closes && !room_unrepl(l)))
        return -1;
    int64_t offset = l->leo;
    l->batches[l->count++] = marker_batch(l, producer_id, epoch, m, now);
    int64_t first = end_txn(l, producer_id, offset);
    /* [K] LogSegment.updateTxnIndex appends AbortedTxn(producerId,
     * firstOffset, lastOffset = the marker) for an aborted transaction. */
    if (aborts)
        l->aborted[l->naborted++] = (ks_aborted_txn){ producer_id, first, offset };
    l->leo++;
    leo_moved(l);
    return offset;
}

void ks_plog_set_hw(ks_plog *l, int64_t hw)
{
    assert(hw == -1 || (hw >= l->hw && hw <= l->leo));
    l->hw_held = hw >= 0;
    l->hw = l->hw_held ? hw : l->leo;
    forget_replicated(l);
}

/* [K] UnifiedLog.lastStableOffset: the first unstable offset if it is
 * below the high watermark, else the high watermark; the first unstable
 * offset is the oldest first offset among the ongoing transactions and
 * the completed ones whose markers the high watermark has not passed
 * ([K] ProducerStateManager.firstUnstableOffset). */
int64_t ks_plog_lso(const ks_plog *l)
{
    int64_t lso = l->hw;
    if (l->nopen > 0 && l->open[0].first_offset < lso)
        lso = l->open[0].first_offset;
    for (uint32_t i = 0; i < l->nunrepl; i++)
        if (l->unrepl[i].last_offset >= l->hw && l->unrepl[i].first_offset < lso)
            lso = l->unrepl[i].first_offset;
    return lso;
}

/* The index of the batch holding offset (0 <= offset < LEO). */
static uint32_t batch_index(const ks_plog *l, int64_t offset)
{
    uint32_t lo = 0, hi = l->count - 1u;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1u) / 2u;
        if (l->batches[mid].base_offset <= offset)
            lo = mid;
        else
            hi = mid - 1u;
    }
    return lo;
}

const ks_plog_batch *ks_plog_find(const ks_plog *l, int64_t offset)
{
    if (offset < 0 || offset >= l->leo || l->count == 0)
        return NULL;
    return &l->batches[batch_index(l, offset)];
}

/* ---- the fetch ---- */

/* An aborted transaction as the fetch response carries it. */
typedef struct window_txn {
    int64_t first_offset;
    int64_t producer_id;
    uint32_t order;          /* its index in the log's aborted list */
} window_txn;

/* One fetch in progress: the consumer's CompletedFetch state. */
typedef struct fetch {
    const ks_plog *l;
    bool committed;          /* read_committed */
    window_txn *txns;        /* aborted transactions, by first offset */
    uint32_t ntxns, taken;   /* txns[0..taken) were consumed */
    int64_t *pids;           /* the aborted producer id set */
    uint32_t npids;
    uint32_t n, max;         /* records written, and the most to write */
    ks_fetched *out;
    int64_t next;            /* the consumer's nextFetchOffset */
} fetch;

/* Orders the window by first offset as CompletedFetch's priority queue
 * does ([K] Comparator.comparingLong(firstOffset)); ties keep index order
 * so the result never depends on qsort. */
static int by_first_offset(const void *a, const void *b)
{
    const window_txn *x = a, *y = b;
    if (x->first_offset != y->first_offset)
        return x->first_offset < y->first_offset ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The index of the first aborted transaction whose marker is at or after
 * `from` (the aborted list is in marker order). */
static uint32_t first_ending_at_or_after(const ks_plog *l, int64_t from)
{
    uint32_t lo = 0, hi = l->naborted;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (l->aborted[mid].last_offset < from)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

/* Fills f->txns with the aborted transactions the broker sends with a
 * read_committed fetch from `from` below `limit` ([K] TransactionIndex
 * .collectAbortedTxns: lastOffset >= fetchOffset and firstOffset <
 * upperBoundOffset) and sizes the producer id set. False when out of
 * memory. */
static bool collect_aborted(fetch *f, int64_t from, int64_t limit)
{
    const ks_plog *l = f->l;
    uint32_t start = first_ending_at_or_after(l, from), n = 0;
    if (start == l->naborted)
        return true;
    f->txns = malloc((size_t)(l->naborted - start) * sizeof *f->txns);
    f->pids = malloc((size_t)(l->naborted - start) * sizeof *f->pids);
    if (!f->txns || !f->pids)
        return false;
    for (uint32_t i = start; i < l->naborted; i++)
        if (l->aborted[i].first_offset < limit)
            f->txns[n++] = (window_txn){ l->aborted[i].first_offset, l->aborted[i].producer_id, i };
    qsort(f->txns, n, sizeof *f->txns, by_first_offset);
    f->ntxns = n;
    return true;
}

/* The position of pid in the aborted producer id set, or f->npids. */
static uint32_t pid_index(const fetch *f, int64_t pid)
{
    uint32_t i = 0;
    while (i < f->npids && f->pids[i] != pid)
        i++;
    return i;
}

/* [K] CompletedFetch.consumeAbortedTransactionsUpTo: every aborted
 * transaction that begins at or before `offset` leaves the queue and puts
 * its producer id in the set. */
static void consume_aborted_up_to(fetch *f, int64_t offset)
{
    while (f->taken < f->ntxns && f->txns[f->taken].first_offset <= offset) {
        int64_t pid = f->txns[f->taken++].producer_id;
        if (pid_index(f, pid) == f->npids)
            f->pids[f->npids++] = pid;
    }
}

/* Takes pid out of the aborted producer id set, if there. */
static void forget_aborted_pid(fetch *f, int64_t pid)
{
    uint32_t i = pid_index(f, pid);
    if (i < f->npids)
        f->pids[i] = f->pids[--f->npids];
}

/* The read_committed step of [K] CompletedFetch.nextFetchedRecord for a
 * new batch: for a batch with a producer id, consume the aborted
 * transactions up to its last offset; then an ABORT marker removes its
 * producer id from the set (containsAbortMarker) and a transactional
 * batch of a producer id in the set is aborted (isBatchAborted). Returns
 * whether the batch is skipped. */
static bool skip_aborted(fetch *f, const ks_plog_batch *b)
{
    if (!f->committed || b->producer_id < 0)
        return false;
    consume_aborted_up_to(f, b->base_offset + b->records - 1);
    if (b->control && b->marker == KS_MARKER_ABORT) {
        forget_aborted_pid(f, b->producer_id);
        return false;
    }
    return b->transactional && pid_index(f, b->producer_id) < f->npids;
}

/* Hands over the records of b from f->next on, as CompletedFetch's record
 * loop does: records below nextFetchOffset are skipped; a control record
 * is never returned but moves nextFetchOffset past it; a returned record
 * moves it to the record's offset + 1 (fetchRecords). Stops at f->max. */
static void read_records(fetch *f, const ks_plog_batch *b)
{
    int64_t end = b->base_offset + b->records;
    for (int64_t off = f->next > b->base_offset ? f->next : b->base_offset; off < end; off++) {
        if (f->n == f->max)
            return;
        f->next = off + 1;
        if (b->control)
            continue;
        uint64_t at = b->ids_at + (uint64_t)(off - b->base_offset);
        f->out[f->n++] = (ks_fetched){
            .offset = off,
            .record = f->l->keep_ids ? f->l->ids[at] : 0u,
            .producer = b->producer,
            .producer_id = b->producer_id,
            .transactional = b->transactional,
            .bytes = b->records ? b->bytes / b->records : 0u,
        };
    }
}

/* Walks the batches from the one holding `from` while they lie wholly
 * below `limit`: the broker returns whole batches up to the limit's
 * position ([K] LocalLog.read with maxOffsetMetadata, LogSegment.read
 * from translateOffset, the batch whose last offset >= startOffset). */
static void read_batches(fetch *f, int64_t from, int64_t limit)
{
    const ks_plog *l = f->l;
    for (uint32_t i = batch_index(l, from); i < l->count && f->n < f->max; i++) {
        const ks_plog_batch *b = &l->batches[i];
        if (b->base_offset + b->records > limit)
            return;
        if (skip_aborted(f, b))
            f->next = b->base_offset + b->records;
        else
            read_records(f, b);
    }
}

uint32_t ks_plog_fetch(const ks_plog *l, int64_t from, ks_isolation iso, uint32_t max,
                       ks_fetched *out, int64_t *next)
{
    assert(from >= 0 && (max == 0 || out != NULL));
    bool committed = iso == KS_READ_COMMITTED;
    int64_t limit = committed ? ks_plog_lso(l) : l->hw;
    fetch f = { .l = l, .committed = committed, .max = max, .out = out, .next = from };
    *next = from;
    if (max == 0 || from >= limit)
        return 0;
    if (committed && !collect_aborted(&f, from, limit)) {
        free(f.txns);
        free(f.pids);
        return 0;
    }
    read_batches(&f, from, limit);
    free(f.txns);
    free(f.pids);
    *next = f.next;
    return f.n;
}

bool ks_plog_txn_ongoing(const ks_plog *l, int64_t pid)
{
    for (uint32_t i = 0; i < l->nopen; i++)
        if (l->open[i].producer_id == pid)
            return true;
    return false;
}
