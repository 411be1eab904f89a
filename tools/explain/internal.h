/*
 * internal.h - what the files of `ksim explain` share: the shadow model of
 * the run that the trace lines rebuild, the step being built, and the
 * functions each file offers the others.
 *
 * Internal to tools/explain/: the command's entry points are
 * ks_cmd_explain (tools/commands.h) and ks_explain_stream
 * (tools/trace_line.h). The files, in the order a line travels:
 *   explain.c         the command: options, the output, the read loop
 *   header.c          the trace's header: topics, partitions, producers,
 *                     consumers, faults; --partition against it
 *   state.c           the shadow model: participants, record names, the
 *                     records waiting for a batch, batches, requests (and
 *                     the reset of the step being built)
 *   dispatch.c        the dispatch of a line to its kind's handler
 *   steps.c           building steps (one per moment and participant)
 *   texts.c           the texts steps and drawings share (names, labels,
 *                     offsets, times)
 *   send.c            send(), batches drained into requests, requests leaving
 *   faults.c          faults on messages, fault windows, crashes
 *   broker.c          appends (and the broker's producer state), the
 *                     coordinator's transaction log, markers, admin, and
 *                     a broker's own requests (WriteTxnMarkers, the
 *                     leader's AddPartitionsToTxn)
 *   answers.c         responses, what send() completes with, retries
 *   producer.c        the producer's own state: ids, epochs, transactions,
 *                     closed connections, metadata
 *   consumer.c        poll(), committed offsets, records written for
 *                     others, the consumers' requests
 *   render_text.c     a step as text (sequence diagram and boxes), --brief
 *   render_mermaid.c  a step as Mermaid
 *   result.c          [RESULT]: the logs, what each producer was told, and
 *                     the delivery checker's verdicts from summary.json
 *   scenario_input.c  a scenario given for a trace: run, then explained
 *                     (its own header: it includes the models)
 *
 * Ownership: the explain object owns everything it points to (freed by
 * ks_ex_free); strings read from a trace line are copied before the next
 * line is read. Memory does not grow with the trace: what is remembered
 * about records, batches and requests is bounded (the constants below).
 * Shared functions are prefixed ks_ex_; each is described where it is
 * defined. A file calls only files below it (tests/circles_check.sh):
 * explain.c > dispatch.c > the handlers (send.c > faults.c; broker.c,
 * answers.c, producer.c, consumer.c) > steps.c > render_mermaid.c >
 * render_text.c > texts.c > state.c; header.c and result.c beside them.
 */
#ifndef KS_EXPLAIN_INTERNAL_H
#define KS_EXPLAIN_INTERNAL_H

#include "models/broker/txn_state.h"
#include "models/kafka/errors.h"
#include "sim/str.h"
#include "tools/trace_line.h"
#include "tools/u64map.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BOX_ROWS 8          /* entries a log box shows */
#define NAME_SLOTS 65536    /* record names remembered (the most recent) */
#define LIVE_BATCHES 16384  /* batches remembered (the most recent) */
#define LIVE_REQUESTS 16384 /* produce requests remembered */
#define NAME_BUF 160        /* a record's name: "record " + 24 characters of key */
#define KEY_CHARS 24        /* characters of a key shown */
#define LIST_NAMES 3        /* names an arrow label lists before "+N more" */
#define TOLD_MAX 8          /* outcomes listed per producer or consumer in [RESULT] */
#define DUPS_MAX 4          /* duplicates listed per partition in [RESULT] */
#define RESULT_PARTS 4      /* partitions drawn in [RESULT] */
#define NONE SIZE_MAX

/* The result of an append line for a batch the leader recognised as a
 * duplicate (idempotence): not stored again, answered with the original
 * offsets (models/broker/broker.c). */
#define DUPLICATE_RESULT "DUPLICATE"

/* ---- what the trace describes -------------------------------------------- */

/* The last `cap` keys remembered, oldest first, so that the oldest can be
 * forgotten when a new one comes. */
typedef struct keyring {
    uint64_t *keys;
    size_t head, count, cap;
} keyring;

/* One line of a partition's log box: a record, a batch (batch-level traces)
 * or a transaction marker. */
typedef struct log_entry {
    int64_t offset, count; /* the offsets it covers */
    int64_t dup_of;        /* the offset of the first copy, or -1 */
    char *text;
    bool fresh; /* appended by the step being built */
} log_entry;

enum { ROW_SAME, ROW_NEW, ROW_UPDATED, ROW_DUPLICATE };

/* A broker's idempotent-producer state for one producer id on one partition. */
typedef struct pid_row {
    int64_t pid, epoch, last_seq, dup_seq;
    int flag; /* ROW_*: what the step being built did to it */
} pid_row;

typedef struct partition {
    size_t topic;
    int64_t number, leader; /* leader -1: not seen yet */
    char *label;            /* "P0" when the run has one topic, else "events-0" */
    log_entry ring[BOX_ROWS];
    uint64_t entries; /* log entries ever: the ring holds the last BOX_ROWS */
    int64_t end_offset, records, markers, duplicates;
    ks_sbuf dups; /* the first DUPS_MAX duplicates, for [RESULT] */
    pid_row pids[BOX_ROWS];
    size_t npids;
    /* the last marker, to recognise one written again */
    int64_t mk_pid, mk_epoch, mk_offset;
    char mk_type[8];
    bool mk_data; /* its producer id appended data since */
    bool log_touched, pids_touched; /* by the step being built */
} partition;

typedef struct topic {
    char *name;
    size_t *parts; /* partition number -> index into parts, NONE if unseen */
    size_t nparts;
} topic;

typedef struct producer {
    char *id, *tid; /* tid: transactional.id, NULL if none */
    bool idempotent;
    char acks[8];
    int64_t retries, request_timeout_ms, txn_timeout_ms;
    int64_t pid, epoch;
    int64_t seq_gen; /* counts the renumberings of its sequences (epoch bumps, new ids) */
    bool committing, txn_open;
    size_t txn_parts[4]; /* partitions written since the last AddPartitionsToTxn */
    size_t ntxn_parts;
    int64_t acked, failed;
    ks_sbuf told; /* the first TOLD_MAX outcomes */
    size_t ntold;
} producer;

typedef struct consumer {
    char *id, *isolation;
    char *group, *reset; /* group.id (NULL: none), auto.offset.reset */
    int64_t records;
    ks_sbuf read; /* the first TOLD_MAX records read */
    int64_t fetches, fetch_answers; /* Fetch requests sent, answered */
    int64_t *fetched_from; /* brokers sent a Fetch since the instance started */
    size_t nfetched;
} consumer;

typedef struct txn {
    char *tid;
    int64_t coordinator, pid, epoch, partitions;
    char state[32];
} txn;

typedef struct batch {
    size_t producer, part;
    int64_t id, records, first_offset, last_offset, last_request, attempt, base_seq;
    int64_t seq_gen; /* its producer's seq_gen when base_seq was learnt */
    char last_result[48]; /* "" appended, "DUPLICATE", or the error */
    uint64_t *recs;       /* its record ids, when the trace names them */
    size_t nrecs;
    size_t split_taken;   /* records already handed on to split batches */
    bool selected; /* carries the --record record */
} batch;

typedef struct request {
    size_t producer;
    int64_t id, broker;
    int64_t *batches;
    size_t n, cap;
    bool selected;
} request;

/* Records placed by send() and not yet drained into a batch, per producer
 * and partition, in order (ids increase). */
typedef struct fifo {
    uint64_t *ids;
    size_t head, len, cap;
} fifo;

typedef struct name_slot {
    uint64_t id;
    char *key; /* the shown part of its key; NULL: keyless */
    bool used;
    bool has_source;  /* written for a record a consumer read ... */
    uint64_t source;  /* ... this one (a "forward" line) */
} name_slot;

/* ---- steps --------------------------------------------------------------- */

typedef enum skind {
    SK_NONE,
    SK_PRODUCE,      /* send() calls */
    SK_SEND,         /* a produce request leaves */
    SK_API_SEND,     /* another API's request leaves */
    SK_APPEND,       /* the leader handles a produce request */
    SK_LOST,         /* a message lost or held up by a fault */
    SK_RESPONSE,     /* a produce response reaches the producer */
    SK_API_RESPONSE, /* another API's response */
    SK_TIMEOUT,      /* request.timeout.ms, retries decided without a response */
    SK_ACK,          /* send() completes without a response */
    SK_PRODUCER,     /* the producer's own state changes */
    SK_TXN,          /* the coordinator's transaction log */
    SK_MARKER,       /* a transaction marker appended */
    SK_CONSUME,      /* poll() returns records */
    SK_NOTE          /* fault windows, admin operations, metadata */
} skind;

/* How the step is drawn: one participant with note lines, or a message from
 * one participant to another. */
typedef enum mstyle { MS_NONE, MS_NOTE, MS_REQ, MS_RESP, MS_LOST_REQ, MS_LOST_RESP } mstyle;

/* A participant: 'P' producer (index), 'C' coordinator (broker id, -1
 * unknown), 'B' broker (id), 'K' consumer (index); kind 0: none. */
typedef struct lane {
    char kind;
    int64_t n;
} lane;

typedef struct step {
    skind kind;
    int64_t t;
    size_t producer, consumer, part, txn;
    int64_t broker, request, attempt, nrecords, nbatches, first_produced;
    int64_t produced, produced_sent;
    char api[32];
    lane from, to;
    mstyle style;
    ks_sbuf desc;   /* the one-line description */
    ks_sbuf label;  /* the arrow's label (text drawn on the arrow) */
    ks_sbuf mlabel; /* the same for Mermaid, when it says more */
    ks_sbuf after;  /* after the receiving participant's lifeline */
    ks_sbuf notes;  /* lines: under the lane (MS_NOTE) or below the arrow */
    ks_sbuf names;  /* the records it is about, for labels */
    size_t nnames;
    size_t *touched; /* partitions whose boxes may follow */
    size_t ntouched, touched_cap;
    char txn_from[32];
    bool retry, acks0_noted, about_part, about_record;
} step;

/* A request fault seen before the request's send line; its client is a
 * lane: 'P' producer, 'K' consumer, 'B' broker as a client (n -1: a
 * broker not named, as traces before the "client" field wrote it). */
typedef struct pending_fault {
    bool on;
    lane client;
    int64_t t, broker, request, fault, delay_ns;
    char api[32];
} pending_fault;

typedef struct opts {
    const char *trace, *out, *partition;
    bool mermaid, brief, has_from, has_to;
    bool by_record;         /* --record: only the steps about one record */
    bool has_record;        /* ... whose id is known (given, or its key seen) */
    const char *record_key; /* --record named it by its key: not yet seen */
    bool no_summary; /* do not read the summary beside the trace */
    int64_t from_ns, to_ns, max_steps;
    uint64_t record;
} opts;

typedef struct explain {
    opts o;
    FILE *out;
    char *scenario, *kafka, *level;
    int64_t seed;
    json_t *summary; /* the run's summary.json, NULL if none */
    bool summary_ran; /* ... from the scenario explain ran itself */
    bool record_level, single_topic;
    char **fault_types;
    size_t nfaults;
    topic *topics;
    size_t ntopics;
    partition *parts;
    size_t nparts, parts_cap;
    producer *prods;
    size_t nprods;
    consumer *cons;
    size_t ncons;
    txn *txns;
    size_t ntxns;
    ks_u64map batches, requests, fifos;
    keyring batch_ring, req_ring;
    name_slot *names;
    step cur;
    pending_fault pf;
    int64_t shown, more;
    ks_sbuf mer;             /* the Mermaid body, written out at the end */
    ks_u64map used;             /* Mermaid participants used (lane_key) */
    int64_t max_broker;      /* the highest broker id a used lane names */
    size_t filter_part;      /* --partition's index, NONE without */
    size_t sel_part;         /* --record: its partition */
    int64_t sel_pid;         /* --record: the producer id of its batch */
    bool sel_txn_open;       /* --record: its transaction not yet ended */
    ks_sbuf sel_fate;        /* --record: where it went */
    int64_t marker_coord;    /* the coordinator writing markers last */
    int64_t own_struck;      /* a broker whose own request a fault struck, unanswered; -1 */
    char own_struck_api[32]; /* ... its API */
    bool ended;
    char verdict[32];
    int64_t end_t;
    uint64_t line_no;
    bool read_all; /* parse every line (KSIM_EXPLAIN_READ_ALL): none passed over */
    bool stopped_at_to; /* reading stopped at a line past --to: the state is --to's */
    bool oom;
} explain;

/* ---- state.c: the shadow model --------------------------------------------- */

bool ks_ex_init(explain *e);
void ks_ex_free(explain *e);
void ks_ex_copy_str(char *dst, size_t n, const char *src);
char *ks_ex_dup_or_oom(explain *e, const char *s);
size_t ks_ex_prod_of(explain *e, const char *id);
size_t ks_ex_cons_of(explain *e, const char *id);
lane ks_ex_client_of(explain *e, ks_tline *j);
bool ks_ex_lane_eq(lane a, lane b);
size_t ks_ex_topic_of(explain *e, const char *name);
size_t ks_ex_part_of(explain *e, const char *topic_name, int64_t n);
size_t ks_ex_txn_of(explain *e, const char *tid);
int64_t ks_ex_coord_of_tid(const explain *e, const char *tid);
void ks_ex_name_store(explain *e, uint64_t id, const char *key);
void ks_ex_name_source(explain *e, uint64_t id, uint64_t source);
size_t ks_ex_put_str(char *buf, size_t n, size_t at, const char *s);
void ks_ex_record_name(const explain *e, uint64_t id, char *buf, size_t n);
fifo *ks_ex_fifo_of(explain *e, size_t prod, size_t part, bool create);
bool ks_ex_fifo_push(fifo *q, uint64_t id);
void ks_ex_fifo_remove(fifo *q, uint64_t id);
uint64_t ks_ex_obj_key(size_t prod, int64_t id);
batch *ks_ex_batch_get(const explain *e, size_t prod, int64_t id);
batch *ks_ex_batch_new(explain *e, size_t prod, int64_t id, size_t part, int64_t records);
request *ks_ex_request_get(const explain *e, size_t prod, int64_t id);
request *ks_ex_request_new(explain *e, size_t prod, int64_t id, int64_t broker);
void ks_ex_request_add_batch(explain *e, request *q, int64_t b);
void ks_ex_request_free(request *q);
void ks_ex_step_reset(step *s);

/* ---- header.c: line 1 ------------------------------------------------------- */

bool ks_ex_read_header(explain *e, ks_tline *h, char *err, size_t errlen);
bool ks_ex_resolve_partition(explain *e, char *err, size_t errlen);

/* ---- dispatch.c: a line to its handler ------------------------------------- */

void ks_ex_handle_line(explain *e, ks_tline *j);

/* ---- steps.c: building steps ------------------------------------------------ */

void ks_ex_step_flush(explain *e);
void ks_ex_step_begin(explain *e, skind k, int64_t t, size_t prod);
bool ks_ex_step_is(const explain *e, skind k, int64_t t, size_t prod);
bool ks_ex_step_drawn(const explain *e, const step *s);
bool ks_ex_joins_producer_step(const explain *e, int64_t t, size_t p);
void ks_ex_step_touch(explain *e, size_t part);
void ks_ex_touch_request(explain *e, const request *q);
void ks_ex_step_add_batch(explain *e, const batch *b);

/* ---- texts.c: the texts steps and drawings share ---------------------------- */

void ks_ex_step_add_name(step *s, const char *name);
void ks_ex_names_text(const step *s, char *buf, size_t n);
void ks_ex_batch_text(const explain *e, const batch *b, char *buf, size_t n);
void ks_ex_batch_names(const explain *e, const batch *b, char *buf, size_t n);
void ks_ex_offsets_text(char *buf, size_t n, int64_t offset, int64_t records);
void ks_ex_ack_label(const explain *e, const request *q, const char *error, char *buf, size_t n);
void ks_ex_fmt_ms(char *buf, size_t n, int64_t ns);
const char *ks_ex_part_label(const explain *e, size_t part);
const char *ks_ex_fault_type(const explain *e, int64_t i);
lane ks_ex_api_lane(const explain *e, size_t p, const char *api, int64_t broker);
lane ks_ex_broker_lane(const char *api, int64_t broker, bool client_side);
bool ks_ex_api_is(const char *name, ks_api a);
bool ks_ex_no_error(const char *error);
bool ks_ex_txn_state_is(const char *name, ks_txn_state s);

/* ---- the handlers of the line kinds (dispatch.c dispatches) ----------------- */

void ks_ex_on_produce(explain *e, ks_tline *j, int64_t t);       /* send.c */
void ks_ex_on_drain(explain *e, ks_tline *j, int64_t t);         /* send.c */
void ks_ex_on_send(explain *e, ks_tline *j, int64_t t);          /* send.c */
void ks_ex_on_fault(explain *e, ks_tline *j, int64_t t);         /* faults.c */
void ks_ex_on_append(explain *e, ks_tline *j, int64_t t);        /* broker.c */
void ks_ex_on_txn(explain *e, ks_tline *j, int64_t t);           /* broker.c */
void ks_ex_on_marker(explain *e, ks_tline *j, int64_t t);        /* broker.c */
void ks_ex_on_admin(explain *e, ks_tline *j, int64_t t);         /* broker.c */
void ks_ex_on_response(explain *e, ks_tline *j, int64_t t);      /* answers.c */
void ks_ex_on_ack(explain *e, ks_tline *j, int64_t t);           /* answers.c */
void ks_ex_on_retry(explain *e, ks_tline *j, int64_t t);         /* answers.c */
void ks_ex_on_split(explain *e, ks_tline *j, int64_t t);         /* answers.c */
void ks_ex_on_producer(explain *e, ks_tline *j, int64_t t);      /* producer.c */
void ks_ex_on_metadata(explain *e, ks_tline *j, int64_t t);      /* producer.c */
void ks_ex_on_consume(explain *e, ks_tline *j, int64_t t);       /* consumer.c */
void ks_ex_on_offset_commit(explain *e, ks_tline *j, int64_t t); /* consumer.c */
void ks_ex_on_forward(explain *e, ks_tline *j, int64_t t);       /* consumer.c */
void ks_ex_on_consumer_send(explain *e, ks_tline *j, int64_t t);     /* consumer.c */
void ks_ex_on_consumer_response(explain *e, ks_tline *j, int64_t t); /* consumer.c */
void ks_ex_on_disconnect(explain *e, ks_tline *j, int64_t t);        /* consumer.c */
void ks_ex_on_broker_disconnect(explain *e, ks_tline *j, int64_t t); /* broker.c */
void ks_ex_on_broker_send(explain *e, ks_tline *j, int64_t t);       /* broker.c */
void ks_ex_on_broker_response(explain *e, ks_tline *j, int64_t t);   /* broker.c */

/* ---- faults.c: a request fault waiting for its send line -------------------- */

void ks_ex_take_pending_fault(explain *e, lane client, const char *api, int64_t r);
void ks_ex_flush_pending_fault(explain *e);

/* ---- drawing: render_text.c, render_mermaid.c, result.c --------------------- */

void ks_ex_render_text(explain *e, const step *s);
void ks_ex_render_brief(explain *e, const step *s);
void ks_ex_render_mermaid(explain *e, const step *s);
void ks_ex_draw_box(FILE *f, const char *title, const char *lines);
void ks_ex_log_box_lines(const partition *pt, bool fresh, ks_sbuf *out);
void ks_ex_log_box_title(const partition *pt, char *buf, size_t n);
void ks_ex_txn_box_lines(const explain *e, const step *s, ks_sbuf *out);
bool ks_ex_box_wanted(const explain *e, size_t part);
void ks_ex_mer_note(explain *e, lane l, const char *text);
void ks_ex_write_mermaid(explain *e, const ks_sbuf *intro);
bool ks_ex_load_summary(explain *e, char *err, size_t errlen);
void ks_ex_render_result(explain *e);

#endif
