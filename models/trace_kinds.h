/*
 * trace_kinds.h - the record kinds of ksim's trace: the one list from which
 * the kind enum, the "ev" names and the levels are generated
 * (docs/trace.md lists each kind's fields).
 *
 * Owns: the schema the world gives its trace writer (sim/trace.h knows
 * levels, not kinds).
 */
#ifndef KS_TRACE_KINDS_H
#define KS_TRACE_KINDS_H

#include "sim/trace.h"

/* X(ENUM_SUFFIX, "ev name", level) */
#define KS_TRACE_KINDS(X)                     \
    X(HEADER, "header", SUMMARY)              \
    X(END, "end", SUMMARY)                    \
    X(METRICS, "metrics", SUMMARY)            \
    X(ADMIN, "admin", BATCH)                  \
    X(METADATA, "metadata", BATCH)            \
    X(PRODUCE, "produce", RECORD)             \
    X(DRAIN, "drain", BATCH)                  \
    X(SEND, "send", BATCH)                    \
    X(ARRIVE, "arrive", BATCH)                \
    X(APPEND, "append", BATCH)                \
    X(RESPONSE, "response", BATCH)            \
    X(ACK, "ack", RECORD)                     \
    X(CONSUME, "consume", RECORD)             \
    X(OFFSET_COMMIT, "offset_commit", RECORD) \
    X(FORWARD, "forward", RECORD)             \
    X(FAULT, "fault", BATCH)                  \
    X(RETRY, "retry", BATCH)                  \
    X(DISCONNECT, "disconnect", BATCH)        \
    X(SPLIT, "split", BATCH)                  \
    X(PRODUCER, "producer", BATCH)            \
    X(TXN, "txn", BATCH)                      \
    X(MARKER, "marker", BATCH)                \
    X(EVENT, "event", DEBUG)

typedef enum ks_trace_kind {
#define X(e, name, level) KS_TR_##e,
    KS_TRACE_KINDS(X)
#undef X
    KS_TR__COUNT
} ks_trace_kind;

/* The schema of ksim's trace, for ks_trace_use_schema. */
extern const ks_trace_schema ks_trace_kinds;

const char *ks_trace_kind_name(ks_trace_kind k);

#endif
