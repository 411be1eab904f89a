/*
 * trace_line.h - reading ksim traces (docs/trace.md) one line at a time,
 * fast, with the type of every field checked.
 *
 * Owns: splitting a trace into lines (any length up to a bound, `\r\n`
 * tolerated, the last line with or without its newline), parsing one
 * line as a JSON object (any JSON whitespace, keys in any order, every
 * string escape, integers exactly as int64), typed reads of its fields
 * that never coerce, and the same typed reads for values jansson parsed
 * (a header's nested objects, a summary). Nested objects and arrays of a
 * line are checked to be JSON and kept as text; jansson parses them only
 * when a caller asks (ks_tl_object). It never guesses: a field of the
 * wrong type is an error the caller reports, naming the field, what was
 * expected and the value as written.
 *
 * Ownership: a line returned by the reader, and the strings and spans of
 * a ks_tline parsed from it, live in the reader's buffer until the next
 * ks_tl_reader_next (or ks_tl_next); parsing decodes strings in place,
 * so the line's text is not kept. ks_tl_object returns a new reference.
 * The reader does not own its FILE.
 */
#ifndef KS_TRACE_LINE_H
#define KS_TRACE_LINE_H

#include "models/trace_kinds.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest line the reader takes by default (a big scenario's header
 * is several MB). */
#define KS_TL_MAX_LINE ((size_t)256 << 20)

/* A value's type; also bits of a mask of the types a read accepts. */
typedef enum ks_tl_type {
    KS_TLT_NULL = 1,
    KS_TLT_BOOL = 2,
    KS_TLT_INT = 4,    /* an integer, exactly (int64) */
    KS_TLT_REAL = 8,   /* a number with a fraction or an exponent, or -0 */
    KS_TLT_STRING = 16,
    KS_TLT_OBJECT = 32,
    KS_TLT_ARRAY = 64
} ks_tl_type;

/* The first wrongly typed field met, as "field \"X\": expected ..., got ...". */
typedef struct ks_tl_error {
    bool set;
    char text[448];
} ks_tl_error;

/* One top-level field of a line. */
typedef struct ks_tl_field {
    const char *key; /* decoded, NUL-terminated */
    size_t key_len;
    ks_tl_type type;
    int64_t i;       /* INT: the value; BOOL: 0 or 1 */
    const char *s;   /* STRING: decoded, NUL-terminated; REAL, OBJECT, ARRAY: the text */
    size_t len;      /* of s */
} ks_tl_field;

typedef struct ks_tline {
    ks_tl_field *fields;
    size_t n, cap;
    int64_t t;          /* ks_tl_next: the record's "t" */
    const char *ev;     /* ks_tl_next: its "ev" */
    ks_trace_kind kind; /* ev's kind; KS_TR__COUNT for one this ksim does not know */
    ks_tl_error err;    /* the first wrongly typed field read */
    char why[160];      /* why parsing failed */
} ks_tline;

void ks_tline_init(ks_tline *l);
void ks_tline_free(ks_tline *l);

/* Parses line[0..len) (line[len] must be '\0') as one JSON object,
 * decoding its strings in place. False when it is not one (empty, not
 * JSON, another value than an object, a duplicate key, an integer beyond
 * int64, a NUL byte): then l->why says what and at which column. */
bool ks_tline_parse(ks_tline *l, char *line, size_t len);

/* Typed reads. A missing field gives `def`; a field of another type
 * gives `def` too and records the first such error in l->err. */
bool ks_tl_has(const ks_tline *l, const char *key);
int64_t ks_tl_int(ks_tline *l, const char *key, int64_t def);
/* An integer or null (null gives def). */
int64_t ks_tl_int_or_null(ks_tline *l, const char *key, int64_t def);
const char *ks_tl_str(ks_tline *l, const char *key, const char *def);
/* A string or null: NULL for null or a missing field. */
const char *ks_tl_str_or_null(ks_tline *l, const char *key);
bool ks_tl_bool(ks_tline *l, const char *key, bool def);
/* A nested object, parsed by jansson (a new reference); NULL when
 * missing, of another type (error recorded) or out of memory (error
 * recorded). */
json_t *ks_tl_object(ks_tline *l, const char *key);
/* The first error recorded by a typed read since the line was parsed,
 * NULL when none. */
const char *ks_tline_error(const ks_tline *l);

/* ---- typed reads of values jansson parsed -------------------------------- */

/* Member `key` of object o when its type is in `want`; NULL when o is
 * not an object, the member is missing, or (error recorded in e) of
 * another type. `path` names o in messages ("derived.producers[0]", ""
 * for the root). */
const json_t *ks_tl_jget(ks_tl_error *e, const json_t *o, const char *path, const char *key,
                         unsigned want);
/* The value at a dotted path ("delivery.records.failed") under root,
 * when its type is in `want`; every step must be an object, or null (the
 * path is then absent). */
const json_t *ks_tl_jpath(ks_tl_error *e, const json_t *root, const char *dotted,
                          unsigned want);
int64_t ks_tl_jint(ks_tl_error *e, const json_t *o, const char *path, const char *key,
                   int64_t def);
const char *ks_tl_jstr(ks_tl_error *e, const json_t *o, const char *path, const char *key,
                       const char *def);
/* Records "field PATH.KEY: expected WANT, got V" (the first error only);
 * a KEY such as "[2]" names an element of the array at PATH. */
void ks_tl_jfail(ks_tl_error *e, const char *path, const char *key, unsigned want,
                 const json_t *v);

/* ---- reading lines ------------------------------------------------------------ */

typedef struct ks_tl_reader {
    FILE *in;
    char *buf;
    size_t cap, pos, end; /* unread bytes: buf[pos, end) */
    size_t scanned;       /* bytes from pos known to hold no newline */
    size_t max_line;      /* KS_TL_MAX_LINE unless set after init */
    uint64_t line_no;     /* of the line last returned (or refused) */
    bool eof;
    bool failed;          /* a line too long or a read error: every later call fails */
    char err[480];
} ks_tl_reader;

void ks_tl_reader_init(ks_tl_reader *r, FILE *in);
void ks_tl_reader_free(ks_tl_reader *r);
/* The next line, without its newline (nor a '\r' before it), writable
 * and NUL-terminated: 1, 0 at the end of the input, -1 when it is longer
 * than max_line or cannot be read (r->err says which, r->line_no is its
 * number; every later call fails the same way). */
int ks_tl_reader_next(ks_tl_reader *r, char **line, size_t *len);
/* The next line parsed as a trace record: an object with an integer "t"
 * and a string "ev" (l->t, l->ev, l->kind). 1, 0 at the end, -1 when it
 * cannot be read or is no trace record (r->err says why; r->line_no is
 * its number; after a line that is no record, the next call reads on). */
int ks_tl_next(ks_tl_reader *r, ks_tline *l);
/* A line ks_tl_reader_next returned, parsed as ks_tl_next parses the
 * lines it reads: 1, or -1 (r->err says why). */
int ks_tl_record(ks_tl_reader *r, ks_tline *l, char *line, size_t len);
/* The time and kind of a line as ksim writes it, from its first bytes and
 * without parsing it: true when line[0..len) begins {"t":T,"ev":"KIND"
 * (T an integer of at most 18 digits, KIND without escapes) followed by
 * ',' or '}'; *kind is KS_TR__COUNT for a name this ksim does not know,
 * *rest the offset of that ',' or '}'. False for any other beginning.
 * Nothing after it is checked: a line that must be checked is for
 * ks_tl_record. */
bool ks_tl_peek(const char *line, size_t len, int64_t *t, ks_trace_kind *kind, size_t *rest);

/* ---- the readers built on it, callable in-process ------------------------------ */

/* `ksim explain` with its default options on a whole trace read from in
 * (named `name` in messages), written to out. No summary is read. 0, or
 * 2 (KS_EXIT_USAGE) with the reason in err. */
int ks_explain_stream(FILE *in, const char *name, FILE *out, char *err, size_t errlen);
/* What `ksim report` reads of one trace (its header, then every line,
 * the metrics, fault, drain and ack lines used), the data rows discarded.
 * 0, or 2 with the reason in err. */
int ks_report_stream(FILE *in, const char *name, char *err, size_t errlen);
/* `ksim export --format chrome` of a whole trace read from in (named
 * `name` in messages), written to out as it goes (a failure may leave
 * part of it). 0, or 2 with the reason in err. */
int ks_export_stream(FILE *in, const char *name, FILE *out, char *err, size_t errlen);

#endif
