/*
 * prod.c - what every module of a producer shares (see prod.h): its
 * topic's name, running out of memory, its "producer" trace lines, and
 * its sender thread's wakeups and time.
 */
#include "models/producer/prod.h"

const char *ks_prod_topic_name(const ks_ctx *cx, const ks_producer *p)
{
    return cx->sc->topics[p->topic].name;
}

void ks_prod_oom(ks_ctx *cx)
{
    ks_ctx_oom(cx);
}

void ks_prod_trace_state(ks_producer *p, ks_ctx *cx, const char *what, const char *error)
{
    ks_trace *tr = cx->trace;
    if (tr && ks_trace_begin(tr, ks_sim_now(&cx->sim), KS_TR_PRODUCER)) {
        ks_trace_str(tr, "producer", p->conf->id);
        ks_trace_str(tr, "what", what);
        if (p->producer_id >= 0) {
            ks_trace_i64(tr, "producer_id", p->producer_id);
            ks_trace_i64(tr, "epoch", p->epoch);
        }
        if (error)
            ks_trace_str(tr, "error", error);
        ks_trace_end(tr);
    }
}

void ks_prod_sender_wake(ks_producer *p, ks_ctx *cx, ks_time at)
{
    if (p->wake != KS_HANDLE_NONE) {
        if (p->wake_ns <= at)
            return;
        ks_sim_cancel(&cx->sim, p->wake);
    }
    ks_event ev = {.kind = KS_EV_SENDER, .owner = p->node};
    p->wake = ks_sim_schedule(&cx->sim, at, &ev);
    p->wake_ns = at;
}

/* The sender thread spends request.us (+ batch.us per batch, and for an
 * idempotent producer idempotent.batch.us per batch: the sequence and
 * in-flight bookkeeping of TransactionManager) building a request; it
 * leaves when that is done. */
void ks_prod_sender_cost(ks_producer *p, ks_request *q, ks_time now)
{
    const ks_producer_cost *cost = &p->conf->cost;
    ks_time start = p->sender_free_ns > now ? p->sender_free_ns : now;
    ks_time per_batch = cost->batch_ns + (p->seq ? cost->idempotent_batch_ns : 0);
    p->sender_free_ns = ks_time_add(
        start, ks_time_add(cost->request_ns, (ks_time)q->batches * per_batch));
    p->sender_busy_ns += p->sender_free_ns - start;
    q->sent_ns = p->sender_free_ns;
}

