/*
 * internal.h - what the files of `ksim export` share: the exporter's
 * state (the run's nodes, the tracks made so far, the requests in flight
 * per connection) and the functions each file offers the others.
 *
 * Internal to tools/export/: the command's entry points are
 * ks_cmd_export (tools/commands.h) and ks_export_stream
 * (tools/trace_line.h). The files, in the order a line travels:
 *   export.c    the command: options, the input and the output, the read
 *               loop (header, lines, the end)
 *   header.c    line 1: the run's name, its nodes (brokers, producers and
 *               their acks, consumers) and topics
 *   lines.c     one trace line as Chrome events, by kind
 *   requests.c  connections of every client (producers, consumers,
 *               brokers as clients): requests in flight as durations on
 *               lanes, the batches they carry and what became of them
 *   tracks.c    processes and tracks (pid, tid), topics, and the
 *               metadata events naming and ordering them
 *   out.c       writing one event: JSON text, timestamps in microseconds;
 *               the exporter's error (ks_xp_fail)
 *
 * Chrome's Trace Event format (the JSON object form): a "traceEvents"
 * array of events with name, cat, ph (X complete, i instant, C counter,
 * M metadata), ts and dur in microseconds, pid, tid, s (an instant's
 * scope) and args. Every timestamp is ksim's integer nanoseconds written
 * as an exact decimal number of microseconds, by integer arithmetic.
 *
 * Ownership: the exporter owns everything it points to (ks_xp_free);
 * strings of a trace line are copied before the next line is read.
 * Memory follows the run's shape (nodes, connections, partitions) and
 * what is in flight (requests, batches waiting for a retry), never the
 * number of lines. Shared functions are prefixed ks_xp_. A file calls
 * only files below it (tests/circles_check.sh): export.c > header.c,
 * lines.c > requests.c > tracks.c > out.c.
 */
#ifndef KS_EXPORT_INTERNAL_H
#define KS_EXPORT_INTERNAL_H

#include "sim/str.h"
#include "tools/trace_line.h"
#include "tools/u64map.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The tracks of a process, in the order they are shown. */
typedef enum trk_kind {
    TRK_NODE,     /* a node's own instants: state changes, faults, crashes */
    TRK_APP,      /* a producer's send() and acks (record level) */
    TRK_BATCHES,  /* a producer's batches: created, drained, acked, failed */
    TRK_CONN,     /* one lane of a connection: its requests in flight */
    TRK_ARRIVALS, /* a broker: requests arriving */
    TRK_PART,     /* a broker: one partition's appends and markers */
    TRK_COORD,    /* a broker: the transaction coordinator's states */
    TRK_METRICS,  /* the run: metrics buckets as counters */
    TRK_RUN,      /* the run: admin operations, the end */
    TRK_ENGINE    /* the run: every engine event (debug level) */
} trk_kind;

typedef struct track {
    size_t node;   /* the process: a node, or the run (nnodes) */
    trk_kind kind;
    int64_t a, b;  /* CONN: broker, lane; PART: topic index, partition */
    int64_t tid;
    size_t chain;  /* the next track with the same hash, index + 1; 0: none */
} track;

/* A batch a request carries, and what the leader did with it. */
typedef struct xbatch {
    int64_t batch, partition, offset, request;
    size_t topic;
    char *result; /* the append's result (NULL: appended, or no append seen) */
    bool appended;
} xbatch;

/* A request in flight on a connection. */
typedef struct xreq {
    char *api;     /* "Produce" or another API's name */
    int64_t request, t0;
    size_t lane;
    char *args;    /* its send line's fields as JSON members */
    xbatch *b;
    size_t nb;
} xreq;

/* A client's connection to one broker. */
typedef struct xconn {
    xreq *open;
    size_t nopen, capopen;
    int64_t *lane_until; /* per lane: busy until (INT64_MAX while open) */
    size_t nlanes;
    xbatch *drained;     /* drained for a request not yet sent */
    size_t ndrained, capdrained;
} xconn;

typedef struct xproducer {
    char *id;
    bool acks0;    /* acks=0: Produce requests get no response */
} xproducer;

/* An id and its index, in a list sorted by id for lookups. */
typedef struct xname {
    const char *name;
    size_t idx;
} xname;

typedef struct xtopic {
    char *name;
    size_t chain;
} xtopic;

typedef struct exporter {
    const char *name;  /* the trace, in messages */
    FILE *out;
    ks_sbuf ev;        /* the event being written */
    bool args_open;
    uint64_t written;  /* events written */
    bool oom;
    bool write_failed;
    char err[640];     /* set when a line is refused */
    /* the header */
    char *scenario, *kafka, *level, *ksim;
    int64_t seed;
    /* the nodes, numbered as ksim numbers them: brokers, producers, consumers */
    size_t nbrokers, nprods, ncons;
    xproducer *prods;
    char **cons;
    xname *prod_order, *cons_order; /* sorted by id, for lookups */
    /* topics, interned */
    xtopic *topics;
    size_t ntopics, captopics;
    ks_u64map topic_map;
    /* tracks, in the order made (tid = index + 1) */
    track *tracks;
    size_t ntracks, captracks;
    ks_u64map track_map;
    ks_u64map retried; /* (producer, batch) waiting to be drained again */
    /* per node (a client: producer, consumer, or broker as a client), its
     * connections, one per broker; made on first use */
    xconn **conns;
    int64_t broker_timeout_ns; /* a broker's request.timeout.ms as a client; -1: unknown */
    int64_t next_deadline;     /* no broker's request times out before it */
    /* the run */
    int64_t last_t;
    bool ended;
    char *verdict;
    int64_t end_events, end_pending;
    uint64_t requests; /* request durations written */
} exporter;

/* header.c */
bool ks_xp_read_header(exporter *x, ks_tline *h);

/* lines.c */
bool ks_xp_line(exporter *x, ks_tline *l);

/* requests.c */
size_t ks_xp_prod_of(exporter *x, ks_tline *l, const char *key);
/* The consumer named by the line's "consumer", or SIZE_MAX (error set). */
size_t ks_xp_cons_of(exporter *x, ks_tline *l);
/* The node of the client a message line names: its "producer",
 * "consumer" or "client" (a broker as a client, "broker<N>"); SIZE_MAX
 * (error set) when it names none or one the run does not have. */
size_t ks_xp_client_of(exporter *x, ks_tline *l);
bool ks_xp_drain(exporter *x, ks_tline *l);
bool ks_xp_send(exporter *x, ks_tline *l);
bool ks_xp_append(exporter *x, ks_tline *l, size_t topic);
bool ks_xp_response(exporter *x, ks_tline *l);
bool ks_xp_disconnect(exporter *x, ks_tline *l, size_t p);
/* A consumer's "disconnect" line: its requests on the closed channel
 * (the group coordinator's, or the data one) end there. */
bool ks_xp_channel_closed(exporter *x, ks_tline *l, size_t node);
/* Ends every request of node (a producer or a consumer) at t: it crashed. */
void ks_xp_crash(exporter *x, size_t node, int64_t t);
/* Ends the brokers' requests that timed out before t (or at t, when
 * `at_t`): their connections closed. */
void ks_xp_expire(exporter *x, int64_t t, bool at_t);
/* Ends every request still in flight at t (the end of the trace). */
void ks_xp_close_all(exporter *x, int64_t t);
bool ks_xp_retry(exporter *x, ks_tline *l);
void ks_xp_requests_free(exporter *x);

/* tracks.c */
size_t ks_xp_node_of_broker(exporter *x, int64_t b);
size_t ks_xp_node_of_prod(exporter *x, size_t p);
size_t ks_xp_node_of_cons(exporter *x, size_t c);
size_t ks_xp_run_node(const exporter *x);
/* The index of id among the sorted names, or SIZE_MAX. */
size_t ks_xp_find_name(const xname *order, size_t n, const char *id);
bool ks_xp_sort_names(exporter *x, char *const *names, size_t n, xname **order);
size_t ks_xp_topic(exporter *x, const char *name);
const track *ks_xp_track(exporter *x, size_t node, trk_kind kind, int64_t a, int64_t b);
void ks_xp_write_metadata(exporter *x);
void ks_xp_tracks_free(exporter *x);

/* out.c: one event, written in order: begin, then dur / scope / args,
 * then end (which writes it out). */
void ks_xp_ev_begin(exporter *x, const char *name, const char *cat, char ph, int64_t ts_ns,
                    const track *tk);
void ks_xp_ev_dur(exporter *x, int64_t dur_ns);
void ks_xp_ev_scope(exporter *x, char scope);
void ks_xp_arg_int(exporter *x, const char *key, int64_t v);
void ks_xp_arg_str(exporter *x, const char *key, const char *v);
/* Every field of l but t and ev, as it was written. */
void ks_xp_arg_fields(exporter *x, const ks_tline *l);
/* Members already written as JSON text ("\"k\":1,\"j\":2"). */
void ks_xp_arg_raw(exporter *x, const char *members);
void ks_xp_ev_end(exporter *x);
/* An instant with the line's fields as args, on tk, at ts. */
void ks_xp_instant(exporter *x, const char *name, const char *cat, int64_t ts_ns, const track *tk,
                   char scope, const ks_tline *l);
/* The fields of l but t and ev as JSON members, in a new string (NULL:
 * out of memory). Keys in `skip` (NULL-terminated) are left out. */
char *ks_xp_fields_text(const ks_tline *l, const char *const *skip);
/* Appends s as a JSON string. */
void ks_xp_json_str(ks_sbuf *b, const char *s);
/* Appends ns as microseconds, exactly: 1234567 -> 1234.567. */
void ks_xp_json_us(ks_sbuf *b, int64_t ns);
/* Writes raw text to the output. */
void ks_xp_write(exporter *x, const char *s, size_t n);
bool ks_xp_fail(exporter *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
