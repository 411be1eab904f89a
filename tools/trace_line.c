/*
 * trace_line.c - a reader made for ksim's trace lines (see trace_line.h).
 *
 * Owns: the line reader (one growing buffer, lines found with memchr),
 * a hand-written parser for one JSON object per line that decodes
 * strings in place and stores each top-level field's type and value,
 * a validating scanner that skips nested values (kept as text for
 * jansson), and the typed reads with their error messages.
 *
 * The hot path (reading and parsing a line of ksim's own traces) does
 * not allocate once the buffers have grown, and does not call jansson.
 * The parser relies on the NUL written after each line: every scan stops
 * at a byte it does not expect, and a NUL before the end is reported.
 */
#include "tools/trace_line.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 512         /* nesting a line may hold (jansson takes 2048) */
#define READ_CHUNK (1u << 20) /* bytes read at a time */
#define SHOWN_CHARS 48        /* of a value, in an error message */

/* ---- the parser's state -------------------------------------------------- */

typedef struct pstate {
    char *p, *base, *end; /* end: the NUL after the line */
    ks_tline *l;
    uint64_t seen; /* the keys' bits (parse_member) */
} pstate;

#define S16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v

/* Bytes that end a run of plain string characters: control characters
 * (NUL too), '"', '\\' and every byte of a multi-byte UTF-8 sequence. */
static const unsigned char str_stop[256] = {
    S16(1), S16(1),                                 /* 0x00-0x1F */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* '"' */
    S16(0), S16(0),
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* '\\' */
    S16(0), S16(0),
    S16(1), S16(1), S16(1), S16(1), S16(1), S16(1), S16(1), S16(1), /* 0x80-0xFF */
};

static bool fail_at(pstate *ps, const char *p, const char *what)
{
    size_t col = (size_t)(p - ps->base) + 1;
    if (p < ps->end && *p == '\0')
        snprintf(ps->l->why, sizeof ps->l->why, "a NUL byte at column %zu", col);
    else if (p >= ps->end)
        snprintf(ps->l->why, sizeof ps->l->why, "not JSON: %s at column %zu (the line ends)",
                 what, col);
    else
        snprintf(ps->l->why, sizeof ps->l->why, "not JSON: %s at column %zu", what, col);
    return false;
}

static void skip_ws(pstate *ps)
{
    char *p = ps->p;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    ps->p = p;
}

/* ---- strings --------------------------------------------------------------- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The 4 hex digits at p, or -1. Reads stop at the first non-digit, so
 * never past the NUL. */
static long hex4(const char *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(p[i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The length of the valid UTF-8 sequence at p (a byte >= 0x80), 0 if
 * invalid: no overlong forms, no surrogates, nothing past U+10FFFF. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

static char *put_utf8(char *w, unsigned long cp)
{
    if (cp < 0x80) {
        *w++ = (char)cp;
    } else if (cp < 0x800) {
        *w++ = (char)(0xC0 | (cp >> 6));
        *w++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *w++ = (char)(0xE0 | (cp >> 12));
        *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *w++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *w++ = (char)(0xF0 | (cp >> 18));
        *w++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *w++ = (char)(0x80 | (cp & 0x3F));
    }
    return w;
}

/* The \u escape at p (p[0] == '\\', p[1] == 'u'): its code point, with a
 * surrogate pair joined; *next after it. -1 (error set) when invalid. */
static long unicode_escape(pstate *ps, const char *p, const char **next)
{
    long hi = hex4(p + 2);
    const char *bad = NULL;
    if (hi < 0)
        bad = "a \\u escape without 4 hex digits";
    else if (hi == 0)
        bad = "\\u0000 (a NUL byte in a string)";
    else if (hi >= 0xDC00 && hi <= 0xDFFF)
        bad = "a lone low surrogate";
    if (bad) {
        fail_at(ps, p, bad);
        return -1;
    }
    *next = p + 6;
    if (hi < 0xD800 || hi > 0xDBFF)
        return hi;
    long lo = p[6] == '\\' && p[7] == 'u' ? hex4(p + 8) : -1;
    if (lo < 0xDC00 || lo > 0xDFFF) {
        fail_at(ps, p, "a high surrogate without its low half");
        return -1;
    }
    *next = p + 12;
    return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
}

/* The escape at p (p[0] == '\\'): written at *w when decoding; the
 * position after it, NULL (error set) when invalid. */
static const char *escape(pstate *ps, const char *p, char **w)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *hit = p[1] ? strchr(from, p[1]) : NULL;
    if (hit) {
        if (*w)
            *(*w)++ = to[hit - from];
        return p + 2;
    }
    if (p[1] != 'u') {
        fail_at(ps, p, "an invalid escape");
        return NULL;
    }
    const char *next;
    long cp = unicode_escape(ps, p, &next);
    if (cp < 0)
        return NULL;
    if (*w)
        *w = put_utf8(*w, (unsigned long)cp);
    return next;
}

/* Scans the string whose opening quote ps->p is at. When `decode`, the
 * decoded text replaces it in place, NUL-terminated, at *out (*n bytes);
 * else the text is only checked. */
static bool scan_string(pstate *ps, bool decode, const char **out, size_t *n)
{
    char *start = ps->p + 1, *p = start, *seg = start, *w = NULL;
    for (;;) {
        while (!str_stop[(unsigned char)*p])
            p++;
        if (w) {
            memmove(w, seg, (size_t)(p - seg));
            w += p - seg;
        }
        seg = p;
        if (*p == '"')
            break;
        if (*p == '\\') {
            if (decode && !w)
                w = p;
            const char *next = escape(ps, p, &w);
            if (!next)
                return false;
            p = seg = (char *)next;
        } else if ((unsigned char)*p >= 0x80) {
            size_t len = utf8_len((const unsigned char *)p);
            if (!len)
                return fail_at(ps, p, "invalid UTF-8");
            p += len; /* copied with the next run */
        } else {
            return fail_at(ps, p, p >= ps->end ? "an unterminated string"
                                               : "a control character in a string");
        }
    }
    ps->p = p + 1;
    if (decode) {
        char *stop = w ? w : p;
        *stop = '\0';
        *out = start;
        *n = (size_t)(stop - start);
    }
    return true;
}

/* ---- numbers and literals ----------------------------------------------------- */

/* Scans the number at ps->p: an integer (*type KS_TLT_INT, *v exact) or
 * a real; false (error set) when it is no JSON number, or an integer out
 * of int64 when `exact`. */
static bool scan_number(pstate *ps, bool exact, ks_tl_type *type, int64_t *v)
{
    char *p = ps->p;
    bool neg = *p == '-';
    p += neg;
    uint64_t u = 0;
    bool over = false;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        for (; *p >= '0' && *p <= '9'; p++) {
            unsigned d = (unsigned)(*p - '0');
            /* u * 10 + d > UINT64_MAX (18446744073709551615) */
            over |= u >= UINT64_MAX / 10 && (u > UINT64_MAX / 10 || d > UINT64_MAX % 10);
            u = u * 10 + d;
        }
    } else {
        return fail_at(ps, p, "a number without digits");
    }
    bool real = false;
    if (*p == '.') {
        real = true;
        if (*++p < '0' || *p > '9')
            return fail_at(ps, p, "a number without digits after '.'");
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        real = true;
        p++;
        p += *p == '+' || *p == '-';
        if (*p < '0' || *p > '9')
            return fail_at(ps, p, "a number without digits in its exponent");
        while (*p >= '0' && *p <= '9')
            p++;
    }
    real = real || (neg && u == 0);
    over = over || (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX);
    if (!real && over && exact)
        return fail_at(ps, ps->p, "an integer out of range (beyond 64 bits)");
    ps->p = p;
    *type = real || over ? KS_TLT_REAL : KS_TLT_INT;
    *v = real || over ? 0 : neg ? (int64_t)(0 - u) : (int64_t)u;
    return true;
}

static bool scan_literal(pstate *ps, ks_tl_type *type, int64_t *v)
{
    static const struct {
        const char *text;
        size_t len;
        ks_tl_type type;
        int64_t v;
    } lit[] = {{"true", 4, KS_TLT_BOOL, 1},
               {"false", 5, KS_TLT_BOOL, 0},
               {"null", 4, KS_TLT_NULL, 0}};
    size_t left = (size_t)(ps->end - ps->p);
    for (size_t i = 0; i < sizeof lit / sizeof *lit; i++) {
        if (left >= lit[i].len && memcmp(ps->p, lit[i].text, lit[i].len) == 0) {
            ps->p += lit[i].len;
            *type = lit[i].type;
            *v = lit[i].v;
            return true;
        }
    }
    return fail_at(ps, ps->p, "an unexpected character");
}

/* ---- nested values: checked, not stored ---------------------------------------- */

static bool skip_value(pstate *ps, int depth);

/* The members of the object or the elements of the array whose opening
 * bracket ps->p is at. */
static bool skip_container(pstate *ps, int depth)
{
    char close = *ps->p == '{' ? '}' : ']';
    if (depth > MAX_DEPTH)
        return fail_at(ps, ps->p, "values nested too deep");
    ps->p++;
    skip_ws(ps);
    if (*ps->p == close) {
        ps->p++;
        return true;
    }
    for (;;) {
        if (close == '}') {
            if (*ps->p != '"')
                return fail_at(ps, ps->p, "expected a key");
            if (!scan_string(ps, false, NULL, NULL))
                return false;
            skip_ws(ps);
            if (*ps->p != ':')
                return fail_at(ps, ps->p, "expected ':'");
            ps->p++;
            skip_ws(ps);
        }
        if (!skip_value(ps, depth + 1))
            return false;
        skip_ws(ps);
        if (*ps->p == close) {
            ps->p++;
            return true;
        }
        if (*ps->p != ',')
            return fail_at(ps, ps->p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        ps->p++;
        skip_ws(ps);
    }
}

static bool skip_value(pstate *ps, int depth)
{
    ks_tl_type type;
    int64_t v;
    char c = *ps->p;
    if (c == '{' || c == '[')
        return skip_container(ps, depth);
    if (c == '"')
        return scan_string(ps, false, NULL, NULL);
    if (c == '-' || (c >= '0' && c <= '9'))
        return scan_number(ps, false, &type, &v);
    return scan_literal(ps, &type, &v);
}

/* ---- one line ---------------------------------------------------------------------- */

/* The field named key (key_len bytes), or NULL. */
static ks_tl_field *find_n(const ks_tline *l, const char *key, size_t key_len)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->fields[i].key_len == key_len && l->fields[i].key[0] == key[0] &&
            memcmp(l->fields[i].key, key, key_len) == 0)
            return &l->fields[i];
    return NULL;
}

/* The field named key (NUL-terminated), or NULL. Keys hold no NUL (the
 * parser refuses \u0000), so comparing as C strings is exact. */
static ks_tl_field *find(const ks_tline *l, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->fields[i].key[0] == key[0] && strcmp(l->fields[i].key, key) == 0)
            return &l->fields[i];
    return NULL;
}

/* A new field at the end; NULL when memory ran out. */
static ks_tl_field *add_field(ks_tline *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        ks_tl_field *f = realloc(l->fields, cap * sizeof *f);
        if (!f)
            return NULL;
        l->fields = f;
        l->cap = cap;
    }
    return &l->fields[l->n++];
}

/* The value at ps->p, into f. */
static bool parse_value(pstate *ps, ks_tl_field *f)
{
    char c = *ps->p, *start = ps->p;
    f->i = 0;
    f->s = NULL;
    f->len = 0;
    if (c == '"') {
        f->type = KS_TLT_STRING;
        return scan_string(ps, true, &f->s, &f->len);
    }
    if (c == '{' || c == '[') {
        f->type = c == '{' ? KS_TLT_OBJECT : KS_TLT_ARRAY;
        if (!skip_container(ps, 1))
            return false;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        if (!scan_number(ps, true, &f->type, &f->i))
            return false;
    } else if (!scan_literal(ps, &f->type, &f->i)) {
        return fail_at(ps, start, "expected a value");
    }
    if (f->type == KS_TLT_OBJECT || f->type == KS_TLT_ARRAY || f->type == KS_TLT_REAL) {
        f->s = start;
        f->len = (size_t)(ps->p - start);
    }
    return true;
}

/* One "key": value member at ps->p. */
static bool parse_member(pstate *ps)
{
    ks_tline *l = ps->l;
    if (*ps->p != '"')
        return fail_at(ps, ps->p, "expected a key");
    char *at = ps->p;
    const char *key;
    size_t key_len;
    if (!scan_string(ps, true, &key, &key_len))
        return false;
    /* a key is looked for among the earlier ones only when one of them
     * shares its bit of a 64-bit summary (length and first byte) */
    uint64_t bit = (uint64_t)1 << ((key_len * 7 + (unsigned char)key[0]) & 63);
    bool maybe = (ps->seen & bit) != 0;
    ps->seen |= bit;
    if (maybe && find_n(l, key, key_len)) {
        snprintf(l->why, sizeof l->why, "a duplicate key \"%.64s\" at column %zu", key,
                 (size_t)(at - ps->base) + 1);
        return false;
    }
    skip_ws(ps);
    if (*ps->p != ':')
        return fail_at(ps, ps->p, "expected ':'");
    ps->p++;
    skip_ws(ps);
    ks_tl_field *f = add_field(l);
    if (!f) {
        snprintf(l->why, sizeof l->why, "out of memory");
        return false;
    }
    f->key = key;
    f->key_len = key_len;
    if (parse_value(ps, f))
        return true;
    l->n--;
    return false;
}

/* Whether a line that is no object is JSON at all, for the message. */
static void not_an_object(pstate *ps)
{
    char *start = ps->p;
    if (skip_value(ps, 1) && (skip_ws(ps), ps->p == ps->end))
        snprintf(ps->l->why, sizeof ps->l->why, "not a JSON object (another JSON value)");
    else if (start == ps->end)
        snprintf(ps->l->why, sizeof ps->l->why, "an empty line (not a JSON object)");
    else
        fail_at(ps, start, "expected '{'");
}

bool ks_tline_parse(ks_tline *l, char *line, size_t len)
{
    pstate ps = {line, line, line + len, l, 0};
    l->n = 0;
    l->err.set = false;
    l->why[0] = '\0';
    skip_ws(&ps);
    if (*ps.p != '{') {
        not_an_object(&ps);
        return false;
    }
    ps.p++;
    skip_ws(&ps);
    if (*ps.p != '}') {
        for (;;) {
            if (!parse_member(&ps))
                return false;
            skip_ws(&ps);
            if (*ps.p == '}')
                break;
            if (*ps.p != ',')
                return fail_at(&ps, ps.p, "expected ',' or '}'");
            ps.p++;
            skip_ws(&ps);
        }
    }
    ps.p++;
    skip_ws(&ps);
    if (ps.p != ps.end)
        return fail_at(&ps, ps.p, "text after the object");
    return true;
}

void ks_tline_init(ks_tline *l)
{
    memset(l, 0, sizeof *l);
    l->ev = "";
    l->kind = KS_TR__COUNT;
}

void ks_tline_free(ks_tline *l)
{
    free(l->fields);
    ks_tline_init(l);
}

/* ---- typed reads ----------------------------------------------------------------- */

/* What a mask of types accepts, in words ("an integer", "a string or null"). */
static void want_text(unsigned want, char *buf, size_t n)
{
    static const struct {
        unsigned mask;
        const char *text;
    } words[] = {{KS_TLT_INT | KS_TLT_REAL, "a number"}, {KS_TLT_INT, "an integer"},
                 {KS_TLT_REAL, "a number"},              {KS_TLT_STRING, "a string"},
                 {KS_TLT_BOOL, "true or false"},         {KS_TLT_OBJECT, "an object"},
                 {KS_TLT_ARRAY, "an array"},             {KS_TLT_NULL, "null"}};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        if ((want & words[i].mask) != words[i].mask)
            continue;
        want &= ~words[i].mask;
        int k = snprintf(buf + used, n - used, "%s%s", used ? " or " : "", words[i].text);
        used = k > 0 && (size_t)k < n - used ? used + (size_t)k : n - 1;
    }
}

/* text[0..len) as a JSON string literal, shortened to SHOWN_CHARS. */
static void quote(const char *text, size_t len, char *buf, size_t n)
{
    size_t o = 0;
    buf[o++] = '"';
    for (size_t i = 0; i < len && o + 8 < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (i == SHOWN_CHARS) {
            o += (size_t)snprintf(buf + o, n - o, "...");
            break;
        }
        if (c == '"' || c == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)c;
        } else if (c < 0x20 || c == 0x7F) {
            o += (size_t)snprintf(buf + o, n - o, "\\u%04x", c);
        } else {
            buf[o++] = (char)c;
        }
    }
    buf[o++] = '"';
    buf[o] = '\0';
}

/* JSON text as shown in a message: at most SHOWN_CHARS of it. */
static void shorten(const char *text, size_t len, char *buf, size_t n)
{
    if (len > SHOWN_CHARS)
        snprintf(buf, n, "%.*s...", SHOWN_CHARS, text);
    else
        snprintf(buf, n, "%.*s", (int)len, text);
}

static void record(ks_tl_error *e, const char *path, const char *key, unsigned want,
                   const char *got)
{
    if (e->set)
        return;
    char expected[96];
    want_text(want, expected, sizeof expected);
    /* an element ("[2]") follows its array's path without a dot */
    const char *dot = path && *path && key[0] != '[' ? "." : "";
    snprintf(e->text, sizeof e->text, "field \"%.120s%s%.64s\": expected %.60s, got %.160s",
             path ? path : "", dot, key, expected, got);
    e->set = true;
}

static void wrong_type(ks_tline *l, const ks_tl_field *f, unsigned want)
{
    char got[SHOWN_CHARS * 6 + 16];
    if (f->type == KS_TLT_STRING)
        quote(f->s, f->len, got, sizeof got);
    else if (f->type == KS_TLT_INT)
        snprintf(got, sizeof got, "%" PRId64, f->i);
    else if (f->type == KS_TLT_BOOL)
        snprintf(got, sizeof got, "%s", f->i ? "true" : "false");
    else if (f->type == KS_TLT_NULL)
        snprintf(got, sizeof got, "null");
    else
        shorten(f->s, f->len, got, sizeof got);
    record(&l->err, NULL, f->key, want, got);
}

/* The field named key when its type is in want; NULL when missing or
 * (error recorded) of another type. */
static const ks_tl_field *typed(ks_tline *l, const char *key, unsigned want)
{
    const ks_tl_field *f = find(l, key);
    if (f && !(f->type & want)) {
        wrong_type(l, f, want);
        return NULL;
    }
    return f;
}

bool ks_tl_has(const ks_tline *l, const char *key)
{
    return find(l, key) != NULL;
}

int64_t ks_tl_int(ks_tline *l, const char *key, int64_t def)
{
    const ks_tl_field *f = typed(l, key, KS_TLT_INT);
    return f ? f->i : def;
}

int64_t ks_tl_int_or_null(ks_tline *l, const char *key, int64_t def)
{
    const ks_tl_field *f = typed(l, key, KS_TLT_INT | KS_TLT_NULL);
    return f && f->type == KS_TLT_INT ? f->i : def;
}

const char *ks_tl_str(ks_tline *l, const char *key, const char *def)
{
    const ks_tl_field *f = typed(l, key, KS_TLT_STRING);
    return f ? f->s : def;
}

const char *ks_tl_str_or_null(ks_tline *l, const char *key)
{
    const ks_tl_field *f = typed(l, key, KS_TLT_STRING | KS_TLT_NULL);
    return f && f->type == KS_TLT_STRING ? f->s : NULL;
}

bool ks_tl_bool(ks_tline *l, const char *key, bool def)
{
    const ks_tl_field *f = typed(l, key, KS_TLT_BOOL);
    return f ? f->i != 0 : def;
}

json_t *ks_tl_object(ks_tline *l, const char *key)
{
    const ks_tl_field *f = typed(l, key, KS_TLT_OBJECT);
    if (!f)
        return NULL;
    json_error_t jerr;
    json_t *j = json_loadb(f->s, f->len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j && !l->err.set) {
        snprintf(l->err.text, sizeof l->err.text, "field \"%.64s\": %.200s", f->key, jerr.text);
        l->err.set = true;
    }
    return j;
}

const char *ks_tline_error(const ks_tline *l)
{
    return l->err.set ? l->err.text : NULL;
}

/* ---- typed reads of jansson values -------------------------------------------------- */

static unsigned json_type_bit(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return KS_TLT_OBJECT;
    case JSON_ARRAY:
        return KS_TLT_ARRAY;
    case JSON_STRING:
        return KS_TLT_STRING;
    case JSON_INTEGER:
        return KS_TLT_INT;
    case JSON_REAL:
        return KS_TLT_REAL;
    case JSON_TRUE:
    case JSON_FALSE:
        return KS_TLT_BOOL;
    case JSON_NULL:
        break;
    }
    return KS_TLT_NULL;
}

void ks_tl_jfail(ks_tl_error *e, const char *path, const char *key, unsigned want,
                 const json_t *v)
{
    char got[SHOWN_CHARS * 6 + 16];
    if (json_is_string(v)) {
        quote(json_string_value(v), json_string_length(v), got, sizeof got);
    } else {
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        shorten(text ? text : "?", text ? strlen(text) : 1, got, sizeof got);
        free(text);
    }
    record(e, path, key, want, got);
}

const json_t *ks_tl_jget(ks_tl_error *e, const json_t *o, const char *path, const char *key,
                         unsigned want)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    if (v && !(json_type_bit(v) & want)) {
        ks_tl_jfail(e, path, key, want, v);
        return NULL;
    }
    return v;
}

const json_t *ks_tl_jpath(ks_tl_error *e, const json_t *root, const char *dotted,
                          unsigned want)
{
    char path[256], key[128];
    const json_t *o = root;
    size_t used = 0;
    path[0] = '\0';
    while (o && *dotted) {
        size_t n = strcspn(dotted, ".");
        bool last = dotted[n] == '\0';
        if (n >= sizeof key || used + n + 2 >= sizeof path)
            return NULL;
        memcpy(key, dotted, n);
        key[n] = '\0';
        o = ks_tl_jget(e, o, path, key, last ? want : KS_TLT_OBJECT | KS_TLT_NULL);
        used += (size_t)snprintf(path + used, sizeof path - used, "%s%s", used ? "." : "", key);
        dotted += n + !last;
    }
    return o;
}

int64_t ks_tl_jint(ks_tl_error *e, const json_t *o, const char *path, const char *key,
                   int64_t def)
{
    const json_t *v = ks_tl_jget(e, o, path, key, KS_TLT_INT);
    return v ? (int64_t)json_integer_value(v) : def;
}

const char *ks_tl_jstr(ks_tl_error *e, const json_t *o, const char *path, const char *key,
                       const char *def)
{
    const json_t *v = ks_tl_jget(e, o, path, key, KS_TLT_STRING);
    return v ? json_string_value(v) : def;
}

/* ---- lines ------------------------------------------------------------------------ */

void ks_tl_reader_init(ks_tl_reader *r, FILE *in)
{
    memset(r, 0, sizeof *r);
    r->in = in;
    r->max_line = KS_TL_MAX_LINE;
}

void ks_tl_reader_free(ks_tl_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = r->pos = r->end = r->scanned = 0;
}

static int too_long(ks_tl_reader *r)
{
    r->line_no++;
    r->failed = true;
    if (r->max_line % ((size_t)1 << 20) == 0)
        snprintf(r->err, sizeof r->err, "longer than %zu MiB (the longest line ksim reads)",
                 r->max_line >> 20);
    else
        snprintf(r->err, sizeof r->err, "longer than %zu bytes (the longest line ksim reads)",
                 r->max_line);
    return -1;
}

/* Reads more input after the unread bytes, moving them to the front or
 * growing the buffer when it is full. -1 (err set) on a read error or
 * when memory runs out. */
static int fill(ks_tl_reader *r)
{
    size_t room = READ_CHUNK / 4 + 1;
    if (r->cap - r->end < room && r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->end -= r->pos;
        r->pos = 0;
    }
    if (r->cap - r->end < room) {
        size_t most = r->max_line < SIZE_MAX - READ_CHUNK ? r->max_line + READ_CHUNK : SIZE_MAX;
        size_t cap = r->cap ? r->cap * 2 : READ_CHUNK;
        char *b = realloc(r->buf, cap < most ? cap : most);
        if (!b) {
            snprintf(r->err, sizeof r->err, "out of memory (a line of %zu bytes)", r->end);
            r->line_no++;
            r->failed = true;
            return -1;
        }
        r->buf = b;
        r->cap = cap < most ? cap : most;
    }
    size_t got = fread(r->buf + r->end, 1, r->cap - 1 - r->end, r->in);
    r->end += got;
    if (got == 0 && ferror(r->in)) {
        snprintf(r->err, sizeof r->err, "cannot be read: %s", strerror(errno));
        r->line_no++;
        r->failed = true;
        return -1;
    }
    r->eof = got == 0;
    return 0;
}

/* Hands out buf[pos, pos + len) and moves past it and `skip` more bytes. */
static int take(ks_tl_reader *r, char **line, size_t *len, size_t n, size_t skip)
{
    char *s = r->buf + r->pos;
    r->pos += n + skip;
    r->scanned = 0;
    r->line_no++;
    if (n > 0 && s[n - 1] == '\r')
        n--;
    s[n] = '\0';
    *line = s;
    *len = n;
    return 1;
}

int ks_tl_reader_next(ks_tl_reader *r, char **line, size_t *len)
{
    if (r->failed)
        return -1; /* the same error again: the line cannot be passed */
    for (;;) {
        size_t avail = r->end - r->pos;
        char *nl = avail > r->scanned
                       ? memchr(r->buf + r->pos + r->scanned, '\n', avail - r->scanned)
                       : NULL;
        if (nl) {
            size_t n = (size_t)(nl - (r->buf + r->pos));
            if (n > r->max_line)
                return too_long(r);
            return take(r, line, len, n, 1);
        }
        r->scanned = avail;
        if (avail > r->max_line)
            return too_long(r);
        if (r->eof)
            return avail ? take(r, line, len, avail, 0) : 0;
        if (fill(r) < 0)
            return -1;
    }
}

/* The kind named ev, KS_TR__COUNT when none is. */
static ks_trace_kind kind_of(const char *ev, size_t len)
{
    static const struct {
        const char *name;
        size_t len;
    } kinds[] = {
#define X(e, name, level) {name, sizeof name - 1},
        KS_TRACE_KINDS(X)
#undef X
    };
    for (size_t k = 0; k < KS_TR__COUNT; k++)
        if (kinds[k].len == len && kinds[k].name[0] == ev[0] && memcmp(kinds[k].name, ev, len) == 0)
            return (ks_trace_kind)k;
    return KS_TR__COUNT;
}

int ks_tl_record(ks_tl_reader *r, ks_tline *l, char *line, size_t len)
{
    if (!ks_tline_parse(l, line, len)) {
        snprintf(r->err, sizeof r->err, "%.160s", l->why);
        return -1;
    }
    const ks_tl_field *t = find_n(l, "t", 1), *ev = find_n(l, "ev", 2);
    if (!t || !ev || t->type != KS_TLT_INT || ev->type != KS_TLT_STRING) {
        if (t && ev) {
            ks_tl_int(l, "t", 0);
            ks_tl_str(l, "ev", NULL);
        }
        snprintf(r->err, sizeof r->err, "not a trace record (%.440s)",
                 l->err.set ? l->err.text : "an object with an integer \"t\" and a string \"ev\"");
        l->err.set = false;
        return -1;
    }
    l->t = t->i;
    l->ev = ev->s;
    l->kind = kind_of(ev->s, ev->len);
    return 1;
}

int ks_tl_next(ks_tl_reader *r, ks_tline *l)
{
    char *line;
    size_t len;
    int got = ks_tl_reader_next(r, &line, &len);
    return got <= 0 ? got : ks_tl_record(r, l, line, len);
}

/* The integer written at p (JSON's form: no leading zero, no '+'), at
 * most 18 digits; the bytes after it in *end. False when none is. */
static bool peek_int(const char *p, const char *stop, int64_t *v, const char **end)
{
    bool neg = p < stop && *p == '-';
    p += neg;
    const char *d = p;
    int64_t n = 0;
    for (; p < stop && *p >= '0' && *p <= '9' && p - d < 18; p++)
        n = n * 10 + (*p - '0');
    if (p == d || (p < stop && *p >= '0' && *p <= '9') || (*d == '0' && p - d > 1) ||
        (neg && n == 0))
        return false; /* none, too long, a leading zero, or -0 (a real) */
    *v = neg ? -n : n;
    *end = p;
    return true;
}

bool ks_tl_peek(const char *line, size_t len, int64_t *t, ks_trace_kind *kind, size_t *rest)
{
    static const char head[] = "{\"t\":", mid[] = ",\"ev\":\"";
    const char *p = line, *stop = line + len, *q;
    if (len < sizeof head - 1 || memcmp(p, head, sizeof head - 1) != 0 ||
        !peek_int(p + sizeof head - 1, stop, t, &p))
        return false;
    if ((size_t)(stop - p) < sizeof mid - 1 || memcmp(p, mid, sizeof mid - 1) != 0)
        return false;
    p += sizeof mid - 1;
    for (q = p; q < stop && *q != '"' && *q != '\\'; q++)
        ;
    if (q + 1 >= stop || *q != '"' || (q[1] != ',' && q[1] != '}'))
        return false;
    *kind = kind_of(p, (size_t)(q - p));
    *rest = (size_t)(q + 1 - line);
    return true;
}
