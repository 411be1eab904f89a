/*
 * faults.c - faults as `ksim explain` draws them: a request lost or held
 * up on its way (joined to its send line, which may come after the fault
 * line), an answer lost or held up on its way back (of a producer's, a
 * consumer's or a broker's own request), fault windows opening and
 * closing, processes crashing.
 */
#include "tools/explain/internal.h"

#include "models/scenario.h"

#include <inttypes.h>
#include <string.h>

/* A fault struck request s->request on its way: it is lost, or held up. */
static void step_fault_request(explain *e, step *s, int64_t fault, int64_t delay_ns)
{
    char ms[32];
    if (delay_ns > 0) {
        ks_ex_fmt_ms(ms, sizeof ms, delay_ns);
        ks_sb_printf(&s->desc, "; fault %" PRId64 " (%s) holds it up %s ms", fault,
                     ks_ex_fault_type(e, fault), ms);
        ks_sb_printf(&s->after, "+%s ms (fault %" PRId64 ")", ms, fault);
        return;
    }
    ks_sb_printf(&s->desc, "; it is lost on the way (fault %" PRId64 ": %s)", fault,
                 ks_ex_fault_type(e, fault));
    ks_sb_clear(&s->mlabel);
    ks_sb_printf(&s->mlabel, "%s lost (fault %" PRId64 ")", ks_sb_str(&s->label), fault);
    ks_sb_clear(&s->label);
    if (s->api[0])
        ks_sb_printf(&s->label, "%s lost (fault %" PRId64 ")", s->api, fault);
    else
        ks_sb_printf(&s->label, "request %" PRId64 " lost (fault %" PRId64 ")", s->request, fault);
    s->style = MS_LOST_REQ;
}

/* Applies the request fault waiting for this send line, if it is its. */
void ks_ex_take_pending_fault(explain *e, lane client, const char *api, int64_t r)
{
    pending_fault *f = &e->pf;
    if (f->on && ks_ex_lane_eq(f->client, client) && f->request == r &&
        strcmp(f->api, api) == 0) {
        step_fault_request(e, &e->cur, f->fault, f->delay_ns);
        f->on = false;
    }
}

/* The lanes and description of a request a fault struck, by its client:
 * a producer, a consumer, or a broker (the coordinator when the trace
 * does not name it). */
static void lost_request_text(explain *e, step *s, const pending_fault *f)
{
    int64_t n = f->client.n;
    const char *api = f->api[0] ? f->api : NULL;
    if (f->client.kind == 'P') {
        s->from = (lane){'P', n};
        s->to = ks_ex_api_lane(e, (size_t)n, f->api, f->broker);
        ks_sb_printf(&s->desc, "%s sends %s request %" PRId64 " to broker %" PRId64,
                     e->prods[n].id, api ? api : "produce", f->request, f->broker);
    } else if (f->client.kind == 'K') {
        s->consumer = (size_t)n;
        s->from = (lane){'K', n};
        s->to = (lane){'B', f->broker};
        ks_sb_printf(&s->desc, "%s sends %s request %" PRId64 " to broker %" PRId64,
                     e->cons[n].id, api ? api : "a", f->request, f->broker);
    } else if (n < 0 || !api || ks_ex_api_is(api, KS_API_WRITE_TXN_MARKERS)) {
        s->from = (lane){'C', n < 0 ? e->marker_coord : n};
        s->to = (lane){'B', f->broker};
        ks_sb_printf(&s->desc, "the coordinator sends %s request %" PRId64 " to broker %" PRId64,
                     api ? api : ks_api_name(KS_API_WRITE_TXN_MARKERS), f->request, f->broker);
    } else {
        s->from = ks_ex_broker_lane(api, n, true);
        s->to = ks_ex_broker_lane(api, f->broker, false);
        ks_sb_printf(&s->desc, "broker %" PRId64 " sends %s request %" PRId64 " to %s %" PRId64,
                     n, api, f->request, s->to.kind == 'C' ? "the coordinator on broker" : "broker",
                     f->broker);
    }
}

/* A request fault whose send line did not follow: a step of its own. */
void ks_ex_flush_pending_fault(explain *e)
{
    pending_fault f = e->pf;
    e->pf.on = false;
    ks_ex_step_begin(e, SK_LOST, f.t, f.client.kind == 'P' ? (size_t)f.client.n : NONE);
    step *s = &e->cur;
    s->request = f.request;
    s->broker = f.broker;
    ks_ex_copy_str(s->api, sizeof s->api, f.api);
    lost_request_text(e, s, &f);
    ks_sb_printf(&s->label, "%s(request %" PRId64 ")", f.api[0] ? f.api : "send", f.request);
    s->style = MS_REQ;
    step_fault_request(e, s, f.fault, f.delay_ns);
}

/* The description and labels of an answer lost on its way back: to a
 * broker's own request (WriteTxnMarkers: the coordinator will send it
 * again), to another API, or a produce response. */
static void lost_answer(explain *e, step *s, lane client, int64_t fault)
{
    const char *ft = ks_ex_fault_type(e, fault);
    bool markers = !s->api[0] || ks_ex_api_is(s->api, KS_API_WRITE_TXN_MARKERS);
    char who[96];
    if (client.kind == 'B' && markers) {
        ks_sb_printf(&s->desc,
                     "broker %" PRId64 "'s answer to WriteTxnMarkers request %" PRId64
                     " is lost (fault %" PRId64 ": %s): the coordinator will send the "
                     "marker again",
                     s->broker, s->request, fault, ft);
        ks_sb_printf(&s->label, "WriteTxnMarkers answer lost (fault %" PRId64 ")", fault);
    } else if (client.kind != 'P' || s->api[0]) {
        if (client.kind == 'B')
            snprintf(who, sizeof who, "broker %" PRId64, client.n);
        else
            snprintf(who, sizeof who, "%s",
                     client.kind == 'K' ? e->cons[client.n].id : e->prods[client.n].id);
        ks_sb_printf(&s->desc,
                     "the answer to %s's %s (request %" PRId64 ") is lost on the way "
                     "back (fault %" PRId64 ": %s)",
                     who, s->api, s->request, fault, ft);
        ks_sb_printf(&s->label, "%s answer lost (fault %" PRId64 ")", s->api, fault);
    } else {
        size_t p = (size_t)client.n;
        request *q = ks_ex_request_get(e, p, s->request);
        char ack[128];
        ks_ex_ack_label(e, q, ks_kerr_name(KS_KERR_NONE), ack, sizeof ack);
        ks_sb_printf(&s->desc,
                     "the response to request %" PRId64 " is lost on the way back (fault %" PRId64
                     ": %s): %s never sees %s",
                     s->request, fault, ft, e->prods[p].id, ack);
        ks_sb_printf(&s->label, "ACK lost (fault %" PRId64 ")", fault);
        ks_sb_printf(&s->mlabel, "%s lost (fault %" PRId64 ")", ack, fault);
        ks_ex_touch_request(e, q);
    }
}

/* The lanes of an answer on its way back from broker s->broker to the
 * client. */
static void answer_lanes(explain *e, step *s, lane client)
{
    if (client.kind == 'P') {
        s->from = ks_ex_api_lane(e, (size_t)client.n, s->api, s->broker);
        s->to = client;
    } else if (client.kind == 'K') {
        s->consumer = (size_t)client.n;
        s->from = (lane){'B', s->broker};
        s->to = client;
    } else {
        s->from = ks_ex_broker_lane(s->api, s->broker, false);
        s->to = ks_ex_broker_lane(s->api, client.n < 0 ? e->marker_coord : client.n, true);
    }
}

/* A fault struck an answer on its way back: it is held up, or lost. */
static void fault_response(explain *e, ks_tline *j, int64_t t, lane client, int64_t fault)
{
    size_t p = client.kind == 'P' ? (size_t)client.n : NONE;
    ks_ex_step_begin(e, SK_LOST, t, p);
    step *s = &e->cur;
    ks_ex_copy_str(s->api, sizeof s->api, ks_tl_str(j, "api", ""));
    s->request = ks_tl_int(j, "request", -1);
    s->broker = ks_tl_int(j, "broker", -1);
    answer_lanes(e, s, client);
    int64_t delay = ks_tl_int(j, "delay_ns", 0);
    if (delay > 0) {
        char ms[32];
        ks_ex_fmt_ms(ms, sizeof ms, delay);
        ks_sb_printf(&s->desc,
                     "the answer to request %" PRId64 " is held up %s ms on the way back "
                     "(fault %" PRId64 ": %s)",
                     s->request, ms, fault, ks_ex_fault_type(e, fault));
        ks_sb_printf(&s->label, "answer to request %" PRId64 " held up %s ms (fault %" PRId64 ")",
                     s->request, ms, fault);
        s->style = MS_NOTE;
        if (p != NONE)
            ks_ex_touch_request(e, ks_ex_request_get(e, p, s->request));
        return;
    }
    s->style = MS_LOST_RESP;
    lost_answer(e, s, client, fault);
}

/* A fault window opens or closes, or a process crashes. */
static void fault_window(explain *e, ks_tline *j, int64_t t, int64_t fault, const char *phase)
{
    const char *type = ks_tl_str(j, "type", "");
    const char *pname = ks_tl_str(j, "producer", NULL), *cname = ks_tl_str(j, "consumer", NULL);
    int64_t broker = ks_tl_int(j, "broker", -1), until = ks_tl_int(j, "until", -1);
    ks_ex_step_begin(e, SK_NOTE, t, pname ? ks_ex_prod_of(e, pname) : NONE);
    step *s = &e->cur;
    char who[96], ms[32];
    if (pname) {
        s->from = (lane){'P', (int64_t)ks_ex_prod_of(e, pname)};
    } else if (cname) {
        s->from = (lane){'K', (int64_t)ks_ex_cons_of(e, cname)};
        s->consumer = (size_t)s->from.n;
        if (strcmp(phase, "crash") == 0) /* a new instance fetches anew */
            e->cons[s->consumer].nfetched = 0;
    }
    else if (broker >= 0)
        s->from = (lane){'B', broker};
    s->style = s->from.kind ? MS_NOTE : MS_NONE;
    if (pname && broker >= 0)
        snprintf(who, sizeof who, "the link between %s and broker %" PRId64, pname, broker);
    else if (pname || cname)
        snprintf(who, sizeof who, "%s", pname ? pname : cname);
    else if (broker >= 0)
        snprintf(who, sizeof who, "broker %" PRId64, broker);
    else
        snprintf(who, sizeof who, "every link");
    ks_ex_fmt_ms(ms, sizeof ms, until);
    ks_sbuf *what = &s->label;
    if (strcmp(phase, "crash") == 0)
        ks_sb_printf(what, "%s's process dies", who);
    else if (strcmp(phase, "begin") == 0 &&
             strcmp(type, ks_fault_type_name(KS_FAULT_LINK_DOWN)) == 0)
        ks_sb_printf(what, "%s goes down", who);
    else if (strcmp(phase, "begin") == 0)
        ks_sb_printf(what, "%s stops", who);
    else
        ks_sb_printf(what, "%s is back", who);
    if (strcmp(phase, "crash") == 0 && until >= 0)
        ks_sb_printf(what, "; a new one starts at t=%s ms", ms);
    else if (strcmp(phase, "end") != 0 && until >= 0)
        ks_sb_printf(what, " until t=%s ms", ms);
    ks_sb_printf(&s->desc, "fault %" PRId64 " (%s): %s", fault, type, ks_sb_str(what));
    /* a pause, a cut link or a crash is context for every partition:
     * --partition keeps it */
    s->about_part = true;
}

/* A fault line: a fault window or crash, a request lost or held up (its
 * step is the send line's, which may come next), or an answer lost or
 * held up. Append faults are named by their append line. */
void ks_ex_on_fault(explain *e, ks_tline *j, int64_t t)
{
    const char *what = ks_tl_str(j, "what", NULL), *phase = ks_tl_str(j, "phase", NULL);
    int64_t fault = ks_tl_int(j, "fault", -1);
    if (phase) {
        fault_window(e, j, t, fault, phase);
        return;
    }
    if (!what || strcmp(what, "append") == 0)
        return; /* the append line names its fault */
    lane client = ks_ex_client_of(e, j);
    if (strcmp(what, "request") != 0) {
        fault_response(e, j, t, client, fault);
        return;
    }
    const char *api = ks_tl_str(j, "api", "");
    int64_t r = ks_tl_int(j, "request", -1);
    if (client.kind == 'P' && !api[0] && e->cur.kind == SK_SEND &&
        e->cur.producer == (size_t)client.n && e->cur.request == r) {
        step_fault_request(e, &e->cur, fault, ks_tl_int(j, "delay_ns", 0));
        return;
    }
    if (e->pf.on)
        ks_ex_flush_pending_fault(e);
    e->pf = (pending_fault){true, client, t, ks_tl_int(j, "broker", -1), r, fault,
                            ks_tl_int(j, "delay_ns", 0), ""};
    ks_ex_copy_str(e->pf.api, sizeof e->pf.api, api);
}
