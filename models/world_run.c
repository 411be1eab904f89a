/*
 * world_run.c - a run: every event routed to the node it belongs to,
 * through that node's operations; the faults' windows and crashes
 * applied through them; admin operations handed to the brokers as
 * metadata (see world.h).
 *
 * Routing is by node id, never by node kind: a message's arrival goes to
 * the node its event names (KS_EV_ARRIVE at the server, KS_EV_RESPONSE
 * at the client: the tag), a node's own event to its owner (the broker's
 * handler and response events name it in the tag). A paused node's
 * events wait until the pause ends, in their order (as daemons when they
 * were), but for those its operations let run (arrivals from outside its
 * process); a crashed node's events go nowhere.
 */
#include "models/world.h"

#include "models/check/checker.h"
#include "sim/hugeheap.h"

#include <stdlib.h>

/* Memory malloc holds once a world is built from which the rest of the
 * run's allocations come from huge pages, and the room set aside for
 * them (reserved address space; memory only as malloc uses it). */
#define KS_WORLD_HUGE_FROM ((size_t)8 << 20)
#define KS_WORLD_HUGE_ROOM ((size_t)256 << 20)

/* Tag of a KS_EV_FAULT event that restarts a crashed node (1 opens a
 * window or crashes, 0 closes a window). */
#define RESTART 2u

static void trace_event(ks_world *w, const ks_event *ev)
{
    ks_trace *tr = w->trace;
    if (!tr || !ks_trace_begin(tr, ks_sim_now(&w->ctx.sim), KS_TR_EVENT))
        return;
    ks_trace_str(tr, "kind", ks_event_kind_name(ev->kind));
    ks_trace_u64(tr, "n", w->ctx.sim.dispatched);
    ks_trace_end(tr);
}

/* The node an event belongs to, or KS_NODE_NONE for the world's own
 * (faults, metrics, admin). */
static ks_node node_of(const ks_event *ev)
{
    switch ((ks_event_kind)ev->kind) {
    case KS_EV_ARRIVE:
    case KS_EV_RESPONSE:
    case KS_EV_APPEND:
    case KS_EV_RESPONDED:
        return ev->tag;
    case KS_EV_TIMER:
    case KS_EV_PRODUCE:
    case KS_EV_SENDER:
    case KS_EV_CONSUMER:
    case KS_EV_TXN:
    case KS_EV_BROKER:
        return ev->owner;
    case KS_EV_ADMIN:
    case KS_EV_METRICS:
    case KS_EV_FAULT:
    case KS_EV__COUNT:
        break;
    }
    return KS_NODE_NONE;
}

static bool is_message(const ks_event *ev)
{
    return ev->kind == KS_EV_ARRIVE || ev->kind == KS_EV_RESPONSE;
}

/* A paused node's event waits for the end of the pause; a crashed
 * node's goes nowhere. Returns true when the event was moved or
 * dropped. */
static bool held_back(ks_world *w, ks_node_slot *s, const ks_event *ev)
{
    if (s->down) {
        if (is_message(ev))
            ks_request_unref(&w->ctx.reqs, (uint32_t)ev->arg); /* nobody is there */
        return true;
    }
    ks_time now = ks_sim_now(&w->ctx.sim), until = s->paused_until;
    if (until <= now || (s->ops->runs_paused && s->ops->runs_paused(ev)))
        return false;
    ks_handle h = ks_sim_dispatched_daemon(&w->ctx.sim) ? ks_sim_schedule_daemon(&w->ctx.sim, until, ev)
                                                     : ks_sim_schedule(&w->ctx.sim, until, ev);
    if (s->ops->rehandle)
        s->ops->rehandle(s->self, ev, h, until);
    return true;
}

/* What a fault does to a node, through the node's operations. */
static void nemesis(ks_world *w, uint32_t fault, const ks_nemesis *a)
{
    ks_node_slot *s = &w->slots[a->node];
    ks_time now = ks_sim_now(&w->ctx.sim);
    switch (a->what) {
    case KS_NEMESIS_CRASH:
        if (s->down)
            break; /* already dead: there is no process to kill */
        s->down = true;
        if (s->ops->crash)
            s->ops->crash(s->self, &w->ctx, a->until, a->arg);
        if (a->until != KS_TIME_MAX) {
            ks_event ev = {.kind = KS_EV_FAULT, .owner = fault, .tag = RESTART, .arg = a->node};
            ks_sim_schedule(&w->ctx.sim, a->until > now ? a->until : now, &ev);
        }
        break;
    case KS_NEMESIS_PAUSE:
    case KS_NEMESIS_RESUME:
        /* pauses may overlap: the node waits for the last to end */
        s->paused_until = ks_faults_paused_until(&w->faults, a->node, now);
        if (s->paused_until > now && s->ops->pause)
            s->ops->pause(s->self, &w->ctx, s->paused_until);
        else if (s->paused_until <= now && s->ops->resume)
            s->ops->resume(s->self, &w->ctx);
        break;
    case KS_NEMESIS_NONE:
        break;
    }
}

static void on_fault(ks_world *w, const ks_event *ev)
{
    if (ev->tag == RESTART) {
        ks_node_slot *s = &w->slots[ev->arg];
        s->down = false; /* a new process */
        if (s->ops->restart)
            s->ops->restart(s->self, &w->ctx);
        return;
    }
    ks_nemesis a = ks_faults_on_window(&w->faults, ev->owner, ev->tag != 0);
    if (a.what != KS_NEMESIS_NONE)
        nemesis(w, ev->owner, &a);
}

/* An admin operation takes effect: the topic has more partitions now,
 * led round-robin as the first ones. The controller's metadata changes
 * and every broker receives it (what KRaft brokers learn from the
 * metadata log); producers see the new partitions at their next
 * metadata refresh. */
static void admin(ks_world *w, uint32_t i)
{
    const ks_admin_op *op = &w->sc->admin[i];
    uint32_t first = w->meta.topic_first[op->topic];
    for (uint32_t p = w->meta.topic_partitions[op->topic]; p < op->total; p++)
        w->meta.leaders[first + p] = w->next_leader++ % w->broker_count;
    w->meta.topic_partitions[op->topic] = op->total;
    for (uint32_t b = 0; b < w->broker_count; b++) {
        if (!ks_broker_metadata(&w->brokers[b], &w->meta)) {
            ks_ctx_oom(&w->ctx);
            return;
        }
    }
    ks_trace *tr = w->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&w->ctx.sim), KS_TR_ADMIN)) {
        ks_trace_str(tr, "op", "create.partitions");
        ks_trace_str(tr, "topic", w->sc->topics[op->topic].name);
        ks_trace_u64(tr, "partitions", op->total);
        ks_trace_end(tr);
    }
}

static void dispatch(ks_world *w, const ks_event *ev)
{
    ks_node n = node_of(ev);
    if (n == KS_NODE_NONE) {
        if (ev->kind == KS_EV_FAULT)
            on_fault(w, ev);
        else if (ev->kind == KS_EV_METRICS && !ks_metrics_on_tick(&w->ctx.metrics, &w->ctx.sim, w->trace))
            ks_ctx_oom(&w->ctx);
        else if (ev->kind == KS_EV_ADMIN)
            admin(w, ev->owner);
        return;
    }
    ks_node_slot *s = &w->slots[n];
    if (w->faults.n > 0 && held_back(w, s, ev)) /* no call without faults */
        return;
    if (!is_message(ev)) {
        s->ops->on_timer(s->self, &w->ctx, ev);
        return;
    }
    uint32_t msg = (uint32_t)ev->arg;
    ks_net_dir dir = ev->kind == KS_EV_ARRIVE ? KS_NET_REQUEST : KS_NET_RESPONSE;
    if (!ks_wire_delivered(&w->wire, msg, dir)) {
        ks_request_unref(&w->ctx.reqs, msg); /* its connection is gone */
        return;
    }
    s->ops->on_message(s->self, &w->ctx, msg, dir == KS_NET_RESPONSE);
}

static void start(ks_world *w)
{
    ks_metrics_start(&w->ctx.metrics, &w->ctx.sim);
    for (uint32_t i = 0; i < w->sc->admin_count; i++) {
        /* a daemon: an operation after everything else is over is moot */
        ks_event ev = {.kind = KS_EV_ADMIN, .owner = i};
        ks_sim_schedule_daemon(&w->ctx.sim, w->sc->admin[i].at_ns, &ev);
    }
    ks_faults_start(&w->faults);
    for (ks_node n = 0; n < ks_nodes_count(&w->nodes); n++)
        if (w->slots[n].ops->start)
            w->slots[n].ops->start(w->slots[n].self, &w->ctx);
}

void ks_world_run(ks_world *w)
{
    /* A world whose state has outgrown what the TLB reaches in 4 KiB
     * pages grows the rest in huge ones (sim/hugeheap.h). */
    if (ks_hugeheap_in_use() >= KS_WORLD_HUGE_FROM)
        (void)ks_hugeheap_grow(KS_WORLD_HUGE_ROOM);
    ks_world_trace_header(w);
    start(w);
    ks_event ev;
    bool debug = w->trace && ks_trace_on(w->trace, KS_TR_EVENT);
    w->ctx.chain = !debug && w->faults.n == 0;
    while (ks_sim_next(&w->ctx.sim, &ev)) {
        if (debug)
            trace_event(w, &ev);
        dispatch(w, &ev);
    }
    if (!ks_metrics_finish(&w->ctx.metrics, &w->ctx.sim, w->trace))
        w->out_of_memory = true;
    for (ks_node n = 0; n < ks_nodes_count(&w->nodes); n++)
        if (w->slots[n].ops->finish)
            w->slots[n].ops->finish(w->slots[n].self, &w->ctx);
    w->delivery = ks_checker_finish(w->checker);
    ks_world_trace_end(w);
}
