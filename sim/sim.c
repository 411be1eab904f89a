/*
 * sim.c - the event queue and the virtual clock; see sim.h.
 *
 * Layout, chosen for speed (DESIGN §8: keep events small, the queue
 * compact):
 *   heap   16-byte entries {time, key}, key = seq << 24 | slot. Comparing
 *          keys compares seqs, since seqs are unique; the slot rides along.
 *   slots  32-byte payloads {key, event}; a daemon's kind carries a flag
 *          in its top bit. A slot is freed only when its heap entry is
 *          popped, so a heap entry never points at a reused slot.
 *          Cancelling writes key = 0 (a tombstone); the pop that meets the
 *          entry sees the mismatch, frees the slot and skips it.
 * The pop is lazy: ks_sim_next hands out the root and leaves it in place.
 * Most handlers schedule an event next, which then takes the root's place
 * and its slot (one sift down instead of a pop and a push, and no
 * free-list round trip); otherwise the next ks_sim_next pops it. Either
 * way the order is the total (time, seq) order, so which events run when
 * does not depend on it. schedule() ends in tail calls to the heap's
 * sifts and to the cold paths (growing, refusing), so that its fast path
 * saves no registers; ks_sim_next tests the run's end, the time limit and
 * the event limit in one branch (ending a run zeroes the event limit).
 * A pop sifts Floyd's way, bottom-up: the hole moves to a leaf along the
 * smaller children, then the heap's last element (usually a late one)
 * climbs from there. An event put in the root's place sifts top-down
 * instead (see schedule()). ks_sim_chain skips the queue for an event
 * that would run next anyway (see sim.h).
 */
#include "sim/sim.h"

#include "sim/compiler.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_BITS 24u
#define SLOT_MASK ((UINT64_C(1) << SLOT_BITS) - 1u)
/* Live keys stay below 2^63; free slots carry FREE_BIT | next-free, so no
 * handle can ever match a free slot. */
#define SEQ_MAX (UINT64_C(1) << (63u - SLOT_BITS))
#define FREE_BIT (UINT64_C(1) << 63)

struct ks_sim_entry {
    ks_time t;
    uint64_t key;
};

/* A slot holds the event as given, with the daemon flag in the kind's
 * top bit (kinds stay below KS_EVENT_KINDS_MAX), so that it is 32 bytes. */
struct ks_sim_slot {
    uint64_t key; /* live: its key; cancelled: 0; free: FREE_BIT | next */
    ks_event ev;
};

#define DAEMON_SHIFT 31u
#define KIND_MASK ((UINT32_C(1) << DAEMON_SHIFT) - 1u)

_Static_assert(sizeof(struct ks_sim_slot) <= 32, "slots stay small");

static const char *const verdict_names[] = {
#define X(e, name) name,
    KS_SIM_VERDICTS(X)
#undef X
};

const char *ks_sim_verdict_name(ks_sim_verdict v)
{
    assert((size_t)v < sizeof verdict_names / sizeof verdict_names[0]);
    return verdict_names[v];
}

void ks_sim_init(ks_sim *s, const ks_sim_limits *limits)
{
    memset(s, 0, sizeof *s);
    s->next_seq = 1; /* so that no key, and no handle, is 0 */
    s->free_head = UINT32_MAX;
    s->taken_slot = UINT32_MAX;
    if (limits)
        s->limits = *limits;
    if (s->limits.max_pending == 0 || s->limits.max_pending > KS_SIM_PENDING_MAX)
        s->limits.max_pending = KS_SIM_PENDING_MAX;
    /* 0 means "no limit": fold that into the comparisons' bounds. */
    s->time_limit = s->limits.max_time_ns > 0 ? s->limits.max_time_ns : KS_TIME_MAX;
    s->event_limit = s->limits.max_events > 0 ? s->limits.max_events : UINT64_MAX;
    s->verdict = KS_SIM_RUNNING;
    s->seq_gate = SEQ_MAX;
}

void ks_sim_free(ks_sim *s)
{
    free(s->heap);
    free(s->slots);
    s->heap = NULL;
    s->slots = NULL;
    s->heap_len = s->heap_cap = s->slots_cap = s->slots_used = 0;
    s->free_head = UINT32_MAX;
}

/* Ends the run: the first verdict stays; scheduling is closed. */
static void end_run(ks_sim *s, ks_sim_verdict v)
{
    if (s->verdict == KS_SIM_RUNNING)
        s->verdict = v;
    s->seq_gate = 0;
    s->event_limit = 0;
}

void ks_sim_stop(ks_sim *s, ks_sim_verdict v)
{
    assert(v != KS_SIM_RUNNING);
    end_run(s, v);
}

static bool entry_less(const ks_sim_entry *a, const ks_sim_entry *b)
{
    return a->t < b->t || (a->t == b->t && a->key < b->key);
}

/* Grows the heap and slot arrays together; the heap can hold every slot
 * (live + tombstoned) at once, so one capacity serves both. */
static bool grow(ks_sim *s)
{
    uint32_t cap = s->slots_cap ? s->slots_cap * 2u : 1024u;
    if (cap > KS_SIM_PENDING_MAX)
        cap = KS_SIM_PENDING_MAX;
    if (cap <= s->slots_cap)
        return false;
    ks_sim_entry *heap = realloc(s->heap, (size_t)cap * sizeof *heap);
    if (!heap)
        return false;
    s->heap = heap;
    s->heap_cap = cap;
    ks_sim_slot *slots = realloc(s->slots, (size_t)cap * sizeof *slots);
    if (!slots)
        return false;
    /* the new slots are free without being written: slots_used marks
     * where they begin, so their pages are touched only when used */
    s->slots = slots;
    s->slots_cap = cap;
    return true;
}

/* A free slot: the last freed, else the first never used (the order a
 * free list holding the new slots in ascending order would give);
 * UINT32_MAX when every slot is taken (then the arrays must grow). */
static KS_INLINE uint32_t take_slot(ks_sim *s)
{
    uint32_t slot = s->free_head;
    if (slot != UINT32_MAX) {
        s->free_head = (uint32_t)s->slots[slot].key;
        return slot;
    }
    if (ks_unlikely(s->slots_used == s->slots_cap))
        return UINT32_MAX;
    return s->slots_used++;
}

static KS_OUTLINE ks_handle sift_up(ks_sim_entry *h, uint32_t i, ks_time at, uint64_t key);
static KS_OUTLINE ks_handle sift_down_from(ks_sim_entry *h, uint32_t n, uint32_t i, ks_time at,
                                           uint64_t key);

/* Why schedule() refuses an event; ends the run with that verdict
 * (unless it has ended already). Kept out of line: it never happens in
 * a run that goes well. */
static KS_COLD ks_handle refuse(ks_sim *s, ks_time at)
{
    if (s->verdict != KS_SIM_RUNNING)
        return KS_HANDLE_NONE;
    if (at < s->now) /* a model's bug; never let time run backwards */
        end_run(s, KS_SIM_INTERNAL_ERROR);
    else if (s->live >= s->limits.max_pending)
        end_run(s, KS_SIM_MAX_PENDING);
    else if (s->next_seq >= SEQ_MAX)
        end_run(s, KS_SIM_SEQUENCE_EXHAUSTED);
    else /* no slot: the arrays could not grow */
        end_run(s, s->slots_cap >= KS_SIM_PENDING_MAX ? KS_SIM_MAX_PENDING
                                                      : KS_SIM_OUT_OF_MEMORY);
    return KS_HANDLE_NONE;
}

static ks_handle grow_and_schedule(ks_sim *s, ks_time at, const ks_event *ev, uint32_t daemon);

/* The body of both schedule functions, inlined into each so that the
 * daemon flag is a constant. The heap work is a tail call, so this part
 * keeps nothing in callee-saved registers. */
static KS_INLINE ks_handle schedule(ks_sim *s, ks_time at, const ks_event *ev, uint32_t daemon)
{
    assert(at >= s->now);
    assert(ev->kind < KS_EVENT_KINDS_MAX);
    uint64_t seq = s->next_seq;
    /* seq_gate is 0 once the run has ended, so one comparison covers
     * both the verdict and the sequence space. */
    if (ks_unlikely((seq >= s->seq_gate) | (at < s->now) | (s->live >= s->limits.max_pending)))
        return refuse(s, at);
    /* The event just dispatched lends its slot (no free-list round
     * trip), else a free one. */
    uint32_t slot = s->taken_slot;
    bool top = slot != UINT32_MAX;
    if (!top)
        slot = take_slot(s);
    if (ks_unlikely(slot == UINT32_MAX))
        return grow_and_schedule(s, at, ev, daemon);
    uint64_t key = (seq << SLOT_BITS) | slot;
    s->next_seq = seq + 1u;
    s->live_daemon += daemon;
    s->live++;
    ks_sim_slot *sl = &s->slots[slot];
    sl->key = key;
    /* Field by field: the caller has just written *ev field by field,
     * and one wide load of it would miss the store-forwarding path. */
    sl->ev.kind = ev->kind | daemon << DAEMON_SHIFT;
    sl->ev.owner = ev->owner;
    sl->ev.tag = ev->tag;
    sl->ev.arg = ev->arg;
    if (top) { /* the event just dispatched leaves its place to this one */
        s->taken_slot = UINT32_MAX;
        ks_sim_entry *h = s->heap;
        uint32_t n = s->heap_len;
        /* Earlier than the smaller child (the usual case for an event
         * due soon): it stays in the root. Else that child rises and the
         * event moves on down from its place, top-down: it is usually
         * due soon, and with many far timers pending (1000 producers'
         * request timeouts) a leaf lies far below where it belongs. */
        ks_sim_entry e = {at, key};
        uint32_t c = n > 2u && entry_less(&h[2], &h[1]) ? 2u : 1u;
        if (c >= n || entry_less(&e, &h[c])) {
            h[0] = e;
            return key;
        }
        h[0] = h[c];
        return sift_down_from(h, n, c, at, key);
    }
    return sift_up(s->heap, s->heap_len++, at, key);
}

ks_handle ks_sim_schedule(ks_sim *s, ks_time at, const ks_event *ev)
{
    return schedule(s, at, ev, 0);
}

ks_handle ks_sim_schedule_daemon(ks_sim *s, ks_time at, const ks_event *ev)
{
    return schedule(s, at, ev, 1);
}

/* Every slot is taken: grows the arrays and schedules again, or refuses.
 * A tail call from schedule(), so that its fast path saves no registers
 * for the realloc. */
static KS_COLD ks_handle grow_and_schedule(ks_sim *s, ks_time at, const ks_event *ev,
                                               uint32_t daemon)
{
    if (!grow(s))
        return refuse(s, at);
    return daemon ? ks_sim_schedule_daemon(s, at, ev) : ks_sim_schedule(s, at, ev);
}

/* Puts (at, key) in the heap's new leaf i and lets it climb; returns
 * key (the handle), so that schedule() can end in a tail call. */
static KS_OUTLINE ks_handle sift_up(ks_sim_entry *h, uint32_t i, ks_time at, uint64_t key)
{
    ks_sim_entry e = {at, key};
    while (i > 0) {
        uint32_t parent = (i - 1u) >> 1;
        if (!entry_less(&e, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
    return key;
}

ks_handle ks_sim_after(ks_sim *s, ks_time delay, const ks_event *ev)
{
    assert(delay >= 0);
    ks_time at = ks_time_add(s->now, delay);
    return ks_sim_schedule(s, at, ev);
}

bool ks_sim_cancel(ks_sim *s, ks_handle h)
{
    if (h == KS_HANDLE_NONE)
        return false;
    uint32_t slot = (uint32_t)(h & SLOT_MASK);
    if (slot >= s->slots_used || s->slots[slot].key != h)
        return false;
    s->slots[slot].key = 0;
    s->live--;
    s->live_daemon -= s->slots[slot].ev.kind >> DAEMON_SHIFT;
    s->cancelled++;
    return true;
}

/* Fills the heap's hole `hole` with `last` and restores the heap below
 * and above it: Floyd's bottom-up sift. The hole moves to a leaf along
 * the smaller children, then `last` climbs from there; a late `last`
 * (usually the case) rarely climbs far. */
static KS_INLINE void sift_hole(ks_sim_entry *h, uint32_t n, uint32_t hole, ks_sim_entry last)
{
    for (;;) {
        uint32_t c = 2u * hole + 1u;
        if (c >= n)
            break;
        if (c + 1u < n && entry_less(&h[c + 1u], &h[c]))
            c++;
        h[hole] = h[c];
        hole = c;
    }
    while (hole > 0) {
        uint32_t parent = (hole - 1u) >> 1;
        if (!entry_less(&last, &h[parent]))
            break;
        h[hole] = h[parent];
        hole = parent;
    }
    h[hole] = last;
}

/* Puts (at, key) in the heap's hole i, whose parent is earlier, moving
 * it down past every smaller child until both are later; returns key.
 * (With 1000 producers this is 4% fewer instructions in all than Floyd's
 * sift, which took the hole to a leaf and the event back up.) */
static KS_OUTLINE ks_handle sift_down_from(ks_sim_entry *h, uint32_t n, uint32_t i, ks_time at,
                                           uint64_t key)
{
    ks_sim_entry e = {at, key};
    for (;;) {
        uint32_t c = 2u * i + 1u;
        if (c >= n)
            break;
        if (c + 1u < n && entry_less(&h[c + 1u], &h[c]))
            c++;
        if (!entry_less(&h[c], &e))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
    return key;
}

/* Removes the heap's minimum. */
static void heap_pop(ks_sim *s)
{
    uint32_t n = --s->heap_len;
    if (n > 0)
        sift_hole(s->heap, n, 0, s->heap[n]);
}

static void free_slot(ks_sim *s, uint32_t slot)
{
    s->slots[slot].key = FREE_BIT | s->free_head;
    s->free_head = slot;
}

bool ks_sim_chain(ks_sim *s, ks_time at, uint32_t kind)
{
    assert(kind < KS_EVENT_KINDS_MAX);
    /* what schedule() would refuse, and what ks_sim_next would stop at,
     * take the usual path (the run has ended when seq_gate is 0) */
    if ((s->next_seq >= s->seq_gate) | (at < s->now) | (at > s->time_limit) |
        (s->dispatched >= s->event_limit) | (s->live >= s->limits.max_pending))
        return false;
    /* The earliest pending entry (cancelled ones too, to keep this
     * simple) must lie after `at`: its seq is older, so a tie is its. A
     * taken root is the event running; the pending minimum is then one
     * of its children. */
    const ks_sim_entry *h = s->heap;
    uint32_t n = s->heap_len;
    if (s->taken_slot != UINT32_MAX ? (n > 1u && h[1].t <= at) || (n > 2u && h[2].t <= at)
                     : n > 0u && h[0].t <= at)
        return false;
    s->next_seq++;
    s->now = at;
    s->dispatched++;
    s->dispatched_by_kind[kind]++;
    return true;
}

/* Pops cancelled entries off the top until a live one is there, and
 * returns its slot. Only called while a live event is pending. */
static KS_COLD uint32_t skip_cancelled(ks_sim *s)
{
    for (;;) {
        uint32_t slot = (uint32_t)(s->heap[0].key & SLOT_MASK);
        if (s->slots[slot].key == s->heap[0].key)
            return slot;
        heap_pop(s);
        free_slot(s, slot);
    }
}

/* The next event lies past a limit, or the run has ended (end_run makes
 * event_limit 0 so that this one test also catches that). */
static KS_COLD bool at_limit(ks_sim *s, ks_time t)
{
    if (s->verdict != KS_SIM_RUNNING)
        return false;
    if (t > s->time_limit) {
        s->now = s->time_limit;
        end_run(s, KS_SIM_MAX_TIME);
    } else {
        end_run(s, KS_SIM_MAX_EVENTS);
    }
    return false;
}

bool ks_sim_next(ks_sim *s, ks_event *out)
{
    if (s->taken_slot != UINT32_MAX) { /* nothing took its place: pop it now */
        heap_pop(s);
        free_slot(s, s->taken_slot);
        s->taken_slot = UINT32_MAX;
    }
    /* Only daemons left (or nothing), and nobody waiting for a message
     * that may never come: the scenario has run out. */
    if (ks_unlikely(s->live == s->live_daemon) && (s->holds == 0 || s->live == 0)) {
        end_run(s, KS_SIM_COMPLETE);
        return false;
    }
    uint32_t slot = (uint32_t)(s->heap[0].key & SLOT_MASK);
    if (ks_unlikely(s->slots[slot].key != s->heap[0].key))
        slot = skip_cancelled(s);
    ks_sim_slot *sl = &s->slots[slot];
    ks_time t = s->heap[0].t;
    if (ks_unlikely((t > s->time_limit) | (s->dispatched >= s->event_limit)))
        return at_limit(s, t);
    uint32_t kind = sl->ev.kind;
    out->kind = kind & KIND_MASK;
    out->owner = sl->ev.owner;
    out->tag = sl->ev.tag;
    out->arg = sl->ev.arg;
    s->daemon_out = (kind >> DAEMON_SHIFT) != 0;
    if (ks_unlikely(s->daemon_out))
        s->live_daemon--;
    /* Popped lazily: the next schedule() takes its place and its slot,
     * else the next ks_sim_next pops it. */
    s->taken_slot = slot;
    sl->key = FREE_BIT; /* no handle matches it any more */
    s->now = t;
    s->live--;
    s->dispatched++;
    s->dispatched_by_kind[kind & KIND_MASK]++;
    return true;
}
