/*
 * consumer.c - consumers: the poll cycle poll -> fetch at the leaders ->
 * records back -> processing (and forwarding) -> commit -> next poll (see
 * consumer.h).
 *
 * Every event carries the consumer's generation in its arg: a crash bumps
 * the generation, so whatever the dead instance had in flight (a fetch,
 * records being processed, a commit without its answer) is ignored when
 * its event comes.
 *
 * How long a consumer keeps a run alive: its first poll (at start.ms)
 * and every step of a poll (fetch, records back, processing, commit) and
 * a restart are ordinary events; a later poll is a daemon when the
 * consumer has nothing to read below its fetch limits at the moment it is
 * scheduled, and ordinary when it has. So a consumer that has caught up
 * polls on as long as anything else happens but never keeps an otherwise
 * finished run going; ks_consumer_wake lets the world give it one more
 * chance when data arrived after it last looked.
 */
#include "models/consumer/consumer.h"

#include "models/world.h"
#include "sim/dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ks_consumer_init(ks_consumer *c, ks_world *w, uint32_t index)
{
    const ks_consumer_conf *cc = &w->sc->consumers[index];
    c->index = index;
    c->conf = cc;
    c->nparts = cc->partition_count;
    size_t n = c->nparts ? c->nparts : 1u;
    c->parts = calloc(n, sizeof *c->parts);
    c->position = calloc(n, sizeof *c->position);
    c->committed = calloc(n, sizeof *c->committed);
    c->pending_commit = calloc(n, sizeof *c->pending_commit);
    if (!c->parts || !c->position || !c->committed || !c->pending_commit)
        return false;
    uint32_t first = w->topic_first_partition[cc->topic];
    for (uint32_t k = 0; k < c->nparts; k++) {
        c->parts[k] = first + cc->partitions[k];
        c->committed[k] = -1;
    }
    c->forward_to = cc->forward_to;
    c->restart_forward_to = -1;
    c->alive = true;
    /* "consumer." + id + ".fetch": ids may be long, so the name is sized to fit */
    size_t len = strlen(cc->id) + sizeof "consumer..fetch";
    char *name = malloc(len);
    if (!name)
        return false;
    snprintf(name, len, "consumer.%s.fetch", cc->id);
    bool ok = ks_world_stream(w, &c->rng, name);
    free(name);
    return ok;
}

void ks_consumer_free(ks_consumer *c)
{
    free(c->parts);
    free(c->position);
    free(c->committed);
    free(c->pending_commit);
    free(c->buf);
    free(c->buf_part);
    free(c->open_reads);
    c->parts = c->buf_part = NULL;
    c->position = c->committed = c->pending_commit = NULL;
    c->buf = NULL;
    c->open_reads = NULL;
    c->nbuf = c->buf_cap = c->nopen_reads = c->open_reads_cap = 0;
}

/* ---- helpers ------------------------------------------------------------ */

static ks_isolation isolation(const ks_consumer *c)
{
    return c->conf->read_committed ? KS_READ_COMMITTED : KS_READ_UNCOMMITTED;
}

/* The log of part k. */
static const ks_plog *part_log(const ks_consumer *c, const ks_world *w, uint32_t k)
{
    return &w->partitions[c->parts[k]].log;
}

/* How far this consumer may read in l: the high watermark, or the last
 * stable offset for read_committed. */
static int64_t fetch_limit(const ks_consumer *c, const ks_plog *l)
{
    return c->conf->read_committed ? ks_plog_lso(l) : l->hw;
}

/* True when part k has a whole batch at the position below the limit: a
 * fetch now would move the position (it reads or skips that batch). */
static bool can_read(const ks_consumer *c, const ks_world *w, uint32_t k)
{
    const ks_plog *l = part_log(c, w, k);
    int64_t limit = fetch_limit(c, l);
    if (c->position[k] >= limit)
        return false;
    const ks_plog_batch *b = ks_plog_find(l, c->position[k]);
    return b != NULL && b->base_offset + b->records <= limit;
}

/* True when a fetch now would read or skip something in some part. */
static bool behind(const ks_consumer *c, const ks_world *w)
{
    for (uint32_t k = 0; k < c->nparts; k++)
        if (can_read(c, w, k))
            return true;
    return false;
}

/* Schedules step `tag` of this generation at `at`. */
static ks_handle schedule(ks_consumer *c, ks_world *w, ks_time at, uint32_t tag, bool daemon)
{
    ks_event ev = {.kind = KS_EV_CONSUMER,
                   .owner = c->index, .tag = tag, .arg = c->generation};
    return daemon ? ks_sim_schedule_daemon(&w->sim, at, &ev) : ks_sim_schedule(&w->sim, at, &ev);
}

/* The next poll at `at`: a daemon unless there is something to read now
 * (see the top of this file). */
static void schedule_poll(ks_consumer *c, ks_world *w, ks_time at)
{
    c->poll_daemon = !behind(c, w);
    c->poll_at = at;
    c->poll_ev = schedule(c, w, at, KS_CONSUMER_POLL, c->poll_daemon);
}

/* One network latency, from the consumer's own stream. */
static ks_time latency(ks_consumer *c, ks_world *w)
{
    return ks_dist_draw(&w->net.latency, &c->rng);
}

/* Makes room for `more` records in buf. False when out of memory. */
static bool reserve_buf(ks_consumer *c, uint64_t more)
{
    uint64_t need = c->nbuf + more;
    if (need <= c->buf_cap)
        return true;
    uint64_t cap = c->buf_cap ? c->buf_cap : 16u;
    while (cap < need)
        cap *= 2;
    ks_fetched *buf = realloc(c->buf, cap * sizeof *buf);
    if (buf)
        c->buf = buf;
    uint32_t *bp = realloc(c->buf_part, cap * sizeof *bp);
    if (bp)
        c->buf_part = bp;
    if (!buf || !bp)
        return false;
    c->buf_cap = (uint32_t)cap;
    return true;
}

/* Ends the run: the model cannot go on without memory. */
static void out_of_memory(ks_world *w)
{
    w->out_of_memory = true;
    ks_sim_stop(&w->sim, KS_SIM_OUT_OF_MEMORY);
}

/* ---- transactions a read_uncommitted consumer read into ----------------- */

/* What became of the transaction of producer id `pid` that holds `offset`
 * in l, as far as l tells now. */
typedef enum txn_fate { FATE_OPEN, FATE_COMMITTED, FATE_ABORTED } txn_fate;

static txn_fate fate_of(const ks_plog *l, int64_t pid, int64_t offset)
{
    for (uint32_t i = 0; i < l->nopen; i++)
        if (l->open[i].producer_id == pid && l->open[i].first_offset <= offset)
            return FATE_OPEN;
    /* The aborted index is in marker order: find the first ABORT marker
     * at or after the offset, then the first of them for this producer
     * id. Its transaction holds the offset if it began at or before it;
     * if it began later, the one that held the offset ended in a commit. */
    uint32_t lo = 0, hi = l->naborted;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->aborted[mid].last_offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = lo; i < l->naborted; i++)
        if (l->aborted[i].producer_id == pid)
            return l->aborted[i].first_offset <= offset ? FATE_ABORTED : FATE_COMMITTED;
    return FATE_COMMITTED;
}

/* Counts a transactional record just read: aborted already, or remembered
 * until its transaction ends. */
static void note_txn_read(ks_consumer *c, ks_world *w, uint32_t k, const ks_fetched *f)
{
    txn_fate fate = fate_of(part_log(c, w, k), f->producer_id, f->offset);
    if (fate == FATE_ABORTED)
        c->read_aborted++;
    if (fate != FATE_OPEN)
        return;
    if (c->nopen_reads == c->open_reads_cap) {
        uint32_t cap = c->open_reads_cap ? c->open_reads_cap * 2u : 16u;
        ks_open_read *r = realloc(c->open_reads, cap * sizeof *r);
        if (!r) {
            out_of_memory(w);
            return;
        }
        c->open_reads = r;
        c->open_reads_cap = cap;
    }
    c->open_reads[c->nopen_reads++] = (ks_open_read){k, f->offset, f->producer_id};
}

/* Settles the remembered reads whose transactions have ended since. */
static void settle_open_reads(ks_consumer *c, const ks_world *w)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < c->nopen_reads; i++) {
        const ks_open_read *r = &c->open_reads[i];
        txn_fate fate = fate_of(part_log(c, w, r->part), r->producer_id, r->offset);
        if (fate == FATE_ABORTED)
            c->read_aborted++;
        else if (fate == FATE_OPEN)
            c->open_reads[kept++] = *r;
    }
    c->nopen_reads = kept;
}

/* ---- the poll cycle ----------------------------------------------------- */

/* The first poll is an ordinary event, like a producer's first send():
 * a consumer that starts after the producers are done still reads what
 * they wrote. */
void ks_consumer_start(ks_consumer *c, ks_world *w)
{
    c->poll_daemon = false;
    c->poll_at = c->conf->start_ns;
    c->poll_ev = schedule(c, w, c->poll_at, KS_CONSUMER_POLL, false);
}

/* poll(): a fetch leaves for the leaders. */
static void on_poll(ks_consumer *c, ks_world *w)
{
    c->poll_ev = KS_HANDLE_NONE;
    c->polls++;
    ks_time at = ks_time_add(ks_sim_now(&w->sim), latency(c, w));
    schedule(c, w, at, KS_CONSUMER_FETCH, false);
}

/* Reads part k from its position into buf, at most `room` records.
 * Returns the number read, or UINT32_MAX when out of memory. */
static uint32_t fetch_part(ks_consumer *c, ks_world *w, uint32_t k, uint32_t room)
{
    const ks_plog *l = part_log(c, w, k);
    int64_t from = c->position[k], limit = fetch_limit(c, l);
    if (from >= limit)
        return 0;
    /* a fetch returns at most one record per offset below the limit */
    uint64_t most = (uint64_t)(limit - from) < room ? (uint64_t)(limit - from) : room;
    if (!reserve_buf(c, most))
        return UINT32_MAX;
    int64_t next;
    uint32_t n = ks_plog_fetch(l, from, isolation(c), (uint32_t)most, c->buf + c->nbuf, &next);
    if (n == 0 && next == from && can_read(c, w, k))
        return UINT32_MAX; /* read_committed's scratch memory was refused */
    c->position[k] = next;
    for (uint32_t j = 0; j < n; j++)
        c->buf_part[c->nbuf + j] = k;
    c->nbuf += n;
    return n;
}

/* The fetch at the leaders: every part in turn from next_part, up to
 * max.poll.records in all; the answer takes one latency back. */
static void on_fetch(ks_consumer *c, ks_world *w)
{
    settle_open_reads(c, w);
    c->nbuf = 0;
    c->cursor = 0;
    uint32_t room = c->conf->max_poll_records;
    for (uint32_t i = 0; i < c->nparts && room > 0; i++) {
        uint32_t k = (c->next_part + i) % c->nparts;
        uint32_t n = fetch_part(c, w, k, room);
        if (n == UINT32_MAX) {
            out_of_memory(w);
            return;
        }
        room -= n;
    }
    /* round robin: the next poll starts one partition further */
    if (c->nparts > 0)
        c->next_part = (c->next_part + 1) % c->nparts;
    ks_time at = ks_time_add(ks_sim_now(&w->sim), latency(c, w));
    schedule(c, w, at, KS_CONSUMER_FETCHED, false);
}

/* One "consume" trace record: poll() handed the record to the application. */
static void trace_consume(const ks_consumer *c, ks_world *w, const ks_fetched *f, uint32_t k)
{
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_CONSUME))
        return;
    const ks_partition *p = &w->partitions[c->parts[k]];
    ks_trace_str(tr, "consumer", c->conf->id);
    ks_trace_str(tr, "topic", w->sc->topics[p->topic].name);
    ks_trace_u64(tr, "partition", p->index);
    ks_trace_i64(tr, "offset", f->offset);
    if (f->record == KS_PLOG_NO_RECORD)
        ks_trace_str(tr, "record", NULL);
    else
        ks_trace_u64(tr, "record", f->record);
    ks_trace_str(tr, "producer", f->producer < w->producer_count
                                     ? w->sc->producers[f->producer].id
                                     : NULL);
    ks_trace_end(tr);
}

/* The group's committed offsets become `offsets` (commit "sync" or
 * "transaction"): an "offset_commit" trace record for each partition
 * whose committed offset moves. */
static void set_committed(ks_consumer *c, ks_world *w, const int64_t *offsets)
{
    ks_trace *tr = w->trace;
    for (uint32_t k = 0; k < c->nparts; k++) {
        if (offsets[k] == c->committed[k])
            continue;
        c->committed[k] = offsets[k];
        if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->sim), KS_TR_OFFSET_COMMIT))
            continue;
        const ks_partition *p = &w->partitions[c->parts[k]];
        ks_trace_str(tr, "consumer", c->conf->id);
        ks_trace_str(tr, "group", c->conf->group_id);
        ks_trace_str(tr, "topic", w->sc->topics[p->topic].name);
        ks_trace_u64(tr, "partition", p->index);
        ks_trace_i64(tr, "offset", offsets[k]);
        ks_trace_str(tr, "commit", ks_commit_mode_name(c->conf->commit));
        ks_trace_end(tr);
    }
}

/* True when some position moved since the last commit was sent. */
static bool moved(const ks_consumer *c)
{
    for (uint32_t k = 0; k < c->nparts; k++)
        if (c->position[k] != c->pending_commit[k])
            return true;
    return false;
}

/* When the application polls next: poll.interval.ms from now. A poll that
 * returned nothing in no time at all (zero latency and interval) waits
 * 1 ms, so that an idle poll loop cannot spin without time passing. */
static ks_time next_poll_at(const ks_consumer *c, ks_time now)
{
    ks_time gap = c->conf->poll_interval_ns;
    if (gap == 0 && c->nbuf == 0 && now == c->poll_at)
        gap = KS_NS_PER_MS;
    return ks_time_add(now, gap);
}

/* The application has processed the poll's records: it commits as
 * configured, then polls again after poll.interval.ms (commit "sync"
 * blocks it until the OffsetCommit is answered). */
static void after_processing(ks_consumer *c, ks_world *w)
{
    ks_time now = ks_sim_now(&w->sim);
    switch (c->conf->commit) {
    case KS_COMMIT_SYNC:
        if (moved(c)) {
            memcpy(c->pending_commit, c->position, c->nparts * sizeof *c->position);
            ks_time rtt = ks_time_add(latency(c, w), latency(c, w));
            schedule(c, w, ks_time_add(now, rtt), KS_CONSUMER_COMMITTED, false);
            return;
        }
        break;
    case KS_COMMIT_TRANSACTION:
        /* the producer commits them with its transaction; like
         * commitTransaction, that blocks the application: it polls again
         * once the transaction is over (ks_consumer_txn_committed or
         * ks_consumer_txn_aborted) */
        if (c->nbuf > 0 && c->forward_to >= 0) {
            memcpy(c->pending_commit, c->position, c->nparts * sizeof *c->position);
            c->txn_waiting = true;
            ks_producer_send_offsets(&w->producers[c->forward_to], w, c->index);
            return;
        }
        break;
    case KS_COMMIT_NONE:
    case KS_COMMIT__COUNT:
        break;
    }
    schedule_poll(c, w, next_poll_at(c, now));
}

/* Hands record `cursor` to the forward producer, if any. */
static void forward_one(ks_consumer *c, ks_world *w)
{
    if (c->forward_to >= 0)
        ks_producer_forward(&w->producers[c->forward_to], w, c->buf[c->cursor].record,
                            c->index);
    c->cursor++;
}

/* The records are back: poll() returns them to the application, which
 * processes them one by one (process.us each), forwarding each when it
 * is done with it. */
static void on_fetched(ks_consumer *c, ks_world *w)
{
    for (uint32_t j = 0; j < c->nbuf; j++) {
        const ks_fetched *f = &c->buf[j];
        trace_consume(c, w, f, c->buf_part[j]);
        ks_checker_read(w->checker, c->index, f->record, c->conf->read_committed,
                        ks_sim_now(&w->sim));
        if (f->transactional && !c->conf->read_committed)
            note_txn_read(c, w, c->buf_part[j], f);
    }
    c->records += c->nbuf;
    ks_time each = c->conf->process_ns, now = ks_sim_now(&w->sim);
    if (c->nbuf == 0 || each == 0) {
        while (c->cursor < c->nbuf)
            forward_one(c, w);
        after_processing(c, w);
    } else if (c->forward_to < 0) {
        /* nothing happens between records: one step for them all */
        schedule(c, w, ks_time_add(now, each * (ks_time)c->nbuf), KS_CONSUMER_PROCESSED, false);
    } else {
        schedule(c, w, ks_time_add(now, each), KS_CONSUMER_PROCESSED, false);
    }
}

/* Processing of record `cursor` is over (of all of them without a
 * forward producer). */
static void on_processed(ks_consumer *c, ks_world *w)
{
    if (c->forward_to < 0) {
        c->cursor = c->nbuf;
    } else {
        forward_one(c, w);
        if (c->cursor < c->nbuf) {
            ks_time at = ks_time_add(ks_sim_now(&w->sim), c->conf->process_ns);
            schedule(c, w, at, KS_CONSUMER_PROCESSED, false);
            return;
        }
    }
    after_processing(c, w);
}

/* commit "sync": the OffsetCommit is answered; the group's committed
 * offsets are the positions sent. */
static void on_committed(ks_consumer *c, ks_world *w)
{
    set_committed(c, w, c->pending_commit);
    c->commits++;
    schedule_poll(c, w, next_poll_at(c, ks_sim_now(&w->sim)));
}

/* A new instance starts from the group's committed offsets (offset 0
 * where none: auto.offset.reset=earliest) and polls at once. */
static void on_restart(ks_consumer *c, ks_world *w)
{
    c->alive = true;
    c->restarts++;
    if (c->restart_forward_to >= 0)
        c->forward_to = c->restart_forward_to;
    c->restart_forward_to = -1;
    for (uint32_t k = 0; k < c->nparts; k++)
        c->position[k] = c->pending_commit[k] = c->committed[k] >= 0 ? c->committed[k] : 0;
    c->nbuf = c->cursor = 0;
    schedule_poll(c, w, ks_sim_now(&w->sim));
}

void ks_consumer_on_event(ks_consumer *c, ks_world *w, uint32_t tag, uint64_t arg)
{
    if (arg != c->generation)
        return; /* an event of an instance that crashed */
    if (!c->alive && tag != KS_CONSUMER_RESTART)
        return;
    switch (tag) {
    case KS_CONSUMER_POLL:
        on_poll(c, w);
        break;
    case KS_CONSUMER_FETCH:
        on_fetch(c, w);
        break;
    case KS_CONSUMER_FETCHED:
        on_fetched(c, w);
        break;
    case KS_CONSUMER_PROCESSED:
        on_processed(c, w);
        break;
    case KS_CONSUMER_COMMITTED:
        on_committed(c, w);
        break;
    case KS_CONSUMER_RESTART:
        on_restart(c, w);
        break;
    default:
        break;
    }
}

void ks_consumer_crash(ks_consumer *c, ks_world *w, ks_time restart_ns, int32_t forward_to)
{
    if (!c->alive)
        return; /* already dead: there is no process to kill */
    c->alive = false;
    c->generation++;
    c->crashes++;
    c->txn_waiting = false; /* the transaction it waited for is not its own any more */
    if (c->poll_ev != KS_HANDLE_NONE)
        ks_sim_cancel(&w->sim, c->poll_ev);
    c->poll_ev = KS_HANDLE_NONE;
    c->nbuf = c->cursor = 0;
    if (restart_ns == KS_TIME_MAX)
        return;
    c->restart_forward_to = forward_to;
    ks_time now = ks_sim_now(&w->sim);
    schedule(c, w, restart_ns > now ? restart_ns : now, KS_CONSUMER_RESTART, false);
}

bool ks_consumer_wake(ks_consumer *c, ks_world *w)
{
    if (!c->alive || c->poll_ev == KS_HANDLE_NONE || !c->poll_daemon || !behind(c, w))
        return false;
    ks_sim_cancel(&w->sim, c->poll_ev);
    c->poll_daemon = false;
    c->poll_ev = schedule(c, w, c->poll_at, KS_CONSUMER_POLL, false);
    return c->poll_ev != KS_HANDLE_NONE;
}

void ks_consumer_offsets_committed(ks_consumer *c, ks_world *w, const int64_t *offsets)
{
    set_committed(c, w, offsets);
    c->commits++;
}

void ks_consumer_txn_committed(ks_consumer *c, ks_world *w, const int64_t *offsets)
{
    if (offsets)
        ks_consumer_offsets_committed(c, w, offsets);
    if (c->txn_waiting && c->alive) {
        c->txn_waiting = false;
        schedule_poll(c, w, next_poll_at(c, ks_sim_now(&w->sim)));
    }
}

void ks_consumer_txn_aborted(ks_consumer *c, ks_world *w)
{
    if (!c->txn_waiting || !c->alive)
        return;
    /* the transaction's output is gone: read again from the committed
     * offsets ([K] the application seeks back after abortTransaction) */
    c->txn_waiting = false;
    for (uint32_t k = 0; k < c->nparts; k++)
        c->position[k] = c->committed[k] >= 0 ? c->committed[k] : 0;
    schedule_poll(c, w, next_poll_at(c, ks_sim_now(&w->sim)));
}
