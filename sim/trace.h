/*
 * trace.h - the JSON Lines trace writer.
 *
 * Owns: the trace format (docs/trace.md, format version KS_TRACE_FORMAT);
 * which record kinds exist is the models' (a ks_trace_schema).
 * One line per record, fields in the order they are written: "t" (virtual
 * ns) first, then "ev", then the fields of that record kind. Lines are
 * built in a buffer and written in large blocks; the writer never
 * allocates and never reorders fields, so equal runs give equal bytes.
 *
 * Levels: a record kind is written when its level is at or below the
 * trace's level (summary < batch < record < debug). A writer with no
 * stream writes nothing, at any level.
 */
#ifndef KS_TRACE_H
#define KS_TRACE_H

#include "sim/compiler.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KS_TRACE_FORMAT 1

#define KS_TRACE_LEVELS(X)                                        \
    X(SUMMARY, "summary") /* header, periodic metrics, end */     \
    X(BATCH, "batch")     /* requests and batches */              \
    X(RECORD, "record")   /* every record */                      \
    X(DEBUG, "debug")     /* every dispatched engine event too */

typedef enum ks_trace_level {
#define X(e, name) KS_TL_##e,
    KS_TRACE_LEVELS(X)
#undef X
    KS_TL__COUNT
} ks_trace_level;

const char *ks_trace_level_name(ks_trace_level l);
/* Parses a level name; false if unknown. */
bool ks_trace_level_parse(const char *name, ks_trace_level *out);

/* The record kinds a trace may hold are the models': the writer only
 * needs each kind's "ev" name and the level it is written at. */
typedef struct ks_trace_schema {
    unsigned count;
    const char *const *names;
    const unsigned char *levels; /* ks_trace_level of each kind */
} ks_trace_schema;

#define KS_TRACE_KINDS_MAX 64u

#define KS_TRACE_BUF 65536
/* The room for each kind's ,"ev":"<name>", rendered once (a longer name
 * is written as it is, each time). */
#define KS_TRACE_EV_TEXT 32u

typedef struct ks_trace {
    FILE *f;              /* NULL: tracing off */
    ks_trace_level level;
    bool io_error;        /* a write failed; the trace is incomplete */
    int io_errno;         /* the OS error of the first failed write */
    bool in_line;
    uint64_t lines;
    uint64_t passed;      /* bytes that left the buffer (see ks_trace_mark) */
    uint64_t lines_by_kind[KS_TRACE_KINDS_MAX];
    const ks_trace_schema *schema; /* NULL until the models set theirs */
    unsigned char on[KS_TRACE_KINDS_MAX]; /* 1: kind k is written */
    unsigned char ev_len[KS_TRACE_KINDS_MAX]; /* strlen of each kind's ev_text; 0:
                                                 its name is too long for it */
    char ev_text[KS_TRACE_KINDS_MAX][KS_TRACE_EV_TEXT]; /* ,"ev":"<name>" */
    size_t len;
    char buf[KS_TRACE_BUF];
} ks_trace;

/* f may be NULL (no trace). The writer does not own f. f and level stay
 * as given for the trace's life. */
void ks_trace_init(ks_trace *tr, FILE *f, ks_trace_level level);
/* The kinds this trace's records are of (the models set it before the
 * first record). */
void ks_trace_use_schema(ks_trace *tr, const ks_trace_schema *schema);
/* Writes out what is buffered. Returns false if any write failed (then
 * io_errno says why). After a failed write nothing more is written. */
bool ks_trace_flush(ks_trace *tr);

/* True when records of kind k are written. Test it before computing
 * anything only the trace needs. */
static inline bool ks_trace_on(const ks_trace *tr, unsigned k)
{
    return tr->on[k] != 0; /* f, schema and level, decided in ks_trace_use_schema */
}

/* Starts a line: {"t":<t>,"ev":"<name>". Returns false (and writes
 * nothing, now or for the field calls up to ks_trace_end) when the kind is
 * not traced at this level. */
bool ks_trace_begin(ks_trace *tr, ks_time t, unsigned k);
static inline void ks_trace_i64(ks_trace *tr, const char *key, int64_t v);
static inline void ks_trace_u64(ks_trace *tr, const char *key, uint64_t v);
void ks_trace_bool(ks_trace *tr, const char *key, bool v);
/* A JSON string, escaped. s == NULL writes null. */
static inline void ks_trace_str(ks_trace *tr, const char *key, const char *s);
/* Already-serialised JSON text (an object from jansson, say). */
void ks_trace_raw(ks_trace *tr, const char *key, const char *json);
void ks_trace_null(ks_trace *tr, const char *key);
/* Ends the line. */
void ks_trace_end(ks_trace *tr);

/* The field writers are inline so that a key's length is known where it
 * is written (keys are literals); a field that does not fit in what is
 * left of the buffer, or a string that needs escapes, takes the slow path
 * in trace.c, which writes the same bytes. */
void ks_trace__i64_slow(ks_trace *tr, const char *key, int64_t v);
void ks_trace__u64_slow(ks_trace *tr, const char *key, uint64_t v);
void ks_trace__str_slow(ks_trace *tr, const char *key, const char *s);

/* The writers below are forced inline: a key's strlen then folds to a
 * constant where the key is a literal. A model's function that writes a
 * line per record is best kept out of line (KS_TRACE_NOINLINE) behind a
 * ks_trace_on test, so that an untraced run pays for the test only. */
#define KS_TRACE_INLINE static KS_INLINE
#define KS_TRACE_NOINLINE KS_OUTLINE

/* ,"key": at p; returns the end. */
KS_TRACE_INLINE char *ks_trace__key(char *p, const char *key, size_t n)
{
    *p++ = ',';
    *p++ = '"';
    memcpy(p, key, n);
    p += n;
    *p++ = '"';
    *p++ = ':';
    return p;
}

/* "00" "01" ... "99": two digits per step. */
extern const char ks_trace__pairs[200];

/* 10^k for k = 0..19. */
extern const uint64_t ks_trace__pow10[20];

/* Decimal digits of v (1 for 0): log10 from the bit length (1233/4096
 * is just above log10(2)), corrected by one comparison. */
KS_TRACE_INLINE unsigned ks_trace__digits(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1u);
    unsigned n = (bits * 1233u) >> 12; /* floor(log10(2^bits)), <= 19 */
    return n + ((v | 1u) >= ks_trace__pow10[n]); /* v | 1: 0 has one digit */
#else
    unsigned n = 1;
    while (n < 20u && v >= ks_trace__pow10[n])
        n++;
    return n;
#endif
}

/* Two digits of d < 100 at q (one 16-bit load and store). */
KS_TRACE_INLINE void ks_trace__pair(char *q, unsigned d)
{
    memcpy(q, ks_trace__pairs + 2u * d, 2);
}

/* v in decimal at p, written from its last digit back, four at a time
 * (the two halves of a group are independent of each other); returns the
 * end. */
KS_TRACE_INLINE char *ks_trace__u64(char *p, uint64_t v)
{
    char *end = p + ks_trace__digits(v), *q = end;
    while (v >= 10000u) {
        uint32_t c = (uint32_t)(v % 10000u);
        v /= 10000u;
        q -= 4;
        ks_trace__pair(q, c / 100u);
        ks_trace__pair(q + 2, c % 100u);
    }
    uint32_t c = (uint32_t)v; /* < 10000: 1 to 4 digits left */
    if (c >= 100u) {
        q -= 2;
        ks_trace__pair(q, c % 100u);
        c /= 100u;
    }
    if (c >= 10u)
        ks_trace__pair(q - 2, c);
    else
        q[-1] = (char)('0' + (int)c);
    return end;
}

KS_TRACE_INLINE void ks_trace_u64(ks_trace *tr, const char *key, uint64_t v)
{
    if (!tr->in_line)
        return;
    size_t n = strlen(key);
    if (tr->len + n + 24 > KS_TRACE_BUF) {
        ks_trace__u64_slow(tr, key, v);
        return;
    }
    char *p = ks_trace__u64(ks_trace__key(tr->buf + tr->len, key, n), v);
    tr->len = (size_t)(p - tr->buf);
}

KS_TRACE_INLINE void ks_trace_i64(ks_trace *tr, const char *key, int64_t v)
{
    if (!tr->in_line)
        return;
    size_t n = strlen(key);
    if (tr->len + n + 25 > KS_TRACE_BUF) {
        ks_trace__i64_slow(tr, key, v);
        return;
    }
    char *p = ks_trace__key(tr->buf + tr->len, key, n);
    if (v < 0) {
        *p++ = '-';
        p = ks_trace__u64(p, (uint64_t)0 - (uint64_t)v);
    } else {
        p = ks_trace__u64(p, (uint64_t)v);
    }
    tr->len = (size_t)(p - tr->buf);
}

/* 1 for the bytes that end a string's plain run: NUL, the controls
 * below 0x20, '"' and '\\'. */
extern const unsigned char ks_trace__stop[256];

KS_TRACE_INLINE void ks_trace_str(ks_trace *tr, const char *key, const char *s)
{
    if (!tr->in_line)
        return;
    size_t n = strlen(key);
    if (tr->len + n + 8 > KS_TRACE_BUF) {
        ks_trace__str_slow(tr, key, s); /* no room */
        return;
    }
    char *p = ks_trace__key(tr->buf + tr->len, key, n);
    if (!s) {
        memcpy(p, "null", 4);
        tr->len = (size_t)(p + 4 - tr->buf);
        return;
    }
    *p++ = '"';
    /* Copied as it is scanned, while it needs no escape and fits; else
     * the slow path writes the field again from its start. */
    size_t room = KS_TRACE_BUF - tr->len - n - 8, m = 0;
    unsigned char c;
    while (!ks_trace__stop[c = (unsigned char)s[m]] && m < room)
        p[m++] = (char)c;
    if (c != 0 || m == room) {
        ks_trace__str_slow(tr, key, s); /* escapes, or no room */
        return;
    }
    p[m] = '"';
    tr->len = (size_t)(p + m + 1 - tr->buf);
}

/* Lines that repeat: a model writing many lines that share runs of
 * fields (the "ack" lines of one batch share their time, producer, topic
 * and partition) writes the first with the calls above, keeps those runs
 * and starts the next lines from them. The bytes are the same.
 *
 * A place in the trace, for ks_trace_keep. */
static inline uint64_t ks_trace_mark(const ks_trace *tr) { return tr->passed + tr->len; }

/* A kept run of a line's text, copied in 16-byte steps. */
#define KS_TRACE_RUN_MAX 160u
typedef struct ks_trace_run {
    uint32_t len; /* 0: none kept */
    char text[KS_TRACE_RUN_MAX];
} ks_trace_run;

/* Keeps what the line being written holds from `mark` (taken in this
 * line) on; false (run->len 0) when that is more than KS_TRACE_RUN_MAX
 * bytes or has left the buffer. */
bool ks_trace_keep(const ks_trace *tr, uint64_t mark, ks_trace_run *run);
void ks_trace__put_slow(ks_trace *tr, const char *s, size_t n);
bool ks_trace__line_starts(ks_trace *tr, unsigned k);

/* A kept run into the line, 16 bytes at a time (a run's text is zeroed
 * past its length, and the buffer has the room). */
KS_TRACE_INLINE void ks_trace_put_run(ks_trace *tr, const ks_trace_run *run)
{
    if (!tr->in_line)
        return;
    if (tr->len + KS_TRACE_RUN_MAX > KS_TRACE_BUF) {
        ks_trace__put_slow(tr, run->text, run->len);
        return;
    }
    char *p = tr->buf + tr->len;
    for (uint32_t i = 0; i < run->len; i += 16u)
        memcpy(p + i, run->text + i, 16);
    tr->len += run->len;
}

/* ks_trace_begin for a line whose start, from its "{" on, is a run kept
 * from an earlier line (its "t" included). */
KS_TRACE_INLINE bool ks_trace_begin_run(ks_trace *tr, unsigned k, const ks_trace_run *run)
{
    if (!ks_trace__line_starts(tr, k))
        return false;
    ks_trace_put_run(tr, run);
    return true;
}

#endif
