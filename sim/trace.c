/*
 * trace.c - JSON Lines trace writer (see trace.h).
 */
#include "sim/trace.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

static const char *const level_names[] = {
#define X(e, name) name,
    KS_TRACE_LEVELS(X)
#undef X
};

const char *ks_trace_level_name(ks_trace_level l)
{
    assert((unsigned)l < (unsigned)KS_TL__COUNT);
    return level_names[l];
}

bool ks_trace_level_parse(const char *name, ks_trace_level *out)
{
    for (unsigned i = 0; i < (unsigned)KS_TL__COUNT; i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *out = (ks_trace_level)i;
            return true;
        }
    }
    return false;
}

void ks_trace_init(ks_trace *tr, FILE *f, ks_trace_level level)
{
    tr->f = f;
    tr->level = level;
    tr->io_error = false;
    tr->io_errno = 0;
    tr->in_line = false;
    tr->lines = 0;
    tr->passed = 0;
    memset(tr->lines_by_kind, 0, sizeof tr->lines_by_kind);
    memset(tr->on, 0, sizeof tr->on);
    tr->len = 0;
    tr->schema = NULL;
}

void ks_trace_use_schema(ks_trace *tr, const ks_trace_schema *schema)
{
    assert(schema->count <= KS_TRACE_KINDS_MAX);
    tr->schema = schema;
    memset(tr->ev_text, 0, sizeof tr->ev_text);
    for (unsigned k = 0; k < schema->count; k++) {
        size_t n = strlen(schema->names[k]);
        tr->on[k] = tr->f != NULL && schema->levels[k] <= (unsigned char)tr->level;
        tr->ev_len[k] = 0; /* a name too long for ev_text is written as it is */
        if (n + 8u > KS_TRACE_EV_TEXT)
            continue;
        memcpy(tr->ev_text[k], ",\"ev\":\"", 7);
        memcpy(tr->ev_text[k] + 7, schema->names[k], n);
        tr->ev_text[k][7 + n] = '"';
        tr->ev_len[k] = (unsigned char)(n + 8u);
    }
}

const uint64_t ks_trace__pow10[20] = {
    UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000),
    UINT64_C(100000), UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000),
    UINT64_C(1000000000), UINT64_C(10000000000), UINT64_C(100000000000),
    UINT64_C(1000000000000), UINT64_C(10000000000000), UINT64_C(100000000000000),
    UINT64_C(1000000000000000), UINT64_C(10000000000000000),
    UINT64_C(100000000000000000), UINT64_C(1000000000000000000),
    UINT64_C(10000000000000000000)};

/* exactly 200 characters: no terminating NUL */
const char ks_trace__pairs[200] =
    "0001020304050607080910111213141516171819"
    "2021222324252627282930313233343536373839"
    "4041424344454647484950515253545556575859"
    "6061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

#define ONES8 1, 1, 1, 1, 1, 1, 1, 1
const unsigned char ks_trace__stop[256] = {ONES8, ONES8, ONES8, ONES8, ['"'] = 1, ['\\'] = 1};
#undef ONES8

/* Writes n bytes to the stream unless a write failed before. */
static void write_out(ks_trace *tr, const char *s, size_t n)
{
    if (tr->io_error || n == 0)
        return;
    errno = 0;
    if (fwrite(s, 1, n, tr->f) != n) {
        tr->io_error = true;
        tr->io_errno = errno ? errno : EIO;
    }
}

bool ks_trace_flush(ks_trace *tr)
{
    if (!tr->f)
        return true;
    write_out(tr, tr->buf, tr->len);
    tr->passed += tr->len;
    tr->len = 0;
    errno = 0;
    if (!tr->io_error && fflush(tr->f) != 0) {
        tr->io_error = true;
        tr->io_errno = errno ? errno : EIO;
    }
    return !tr->io_error;
}

static void put(ks_trace *tr, const char *s, size_t n)
{
    if (tr->len + n > sizeof tr->buf) {
        write_out(tr, tr->buf, tr->len);
        tr->passed += tr->len;
        tr->len = 0;
        if (n > sizeof tr->buf) {
            write_out(tr, s, n);
            tr->passed += n;
            return;
        }
    }
    memcpy(tr->buf + tr->len, s, n);
    tr->len += n;
}

static void put_cstr(ks_trace *tr, const char *s)
{
    put(tr, s, strlen(s));
}

static void put_u64(ks_trace *tr, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v);
    put(tr, tmp + i, sizeof tmp - i);
}

static void put_i64(ks_trace *tr, int64_t v)
{
    if (v < 0) {
        put(tr, "-", 1);
        put_u64(tr, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(tr, (uint64_t)v);
    }
}

/* Keys are ours (ASCII, no escapes needed); values are escaped. */
static void put_key(ks_trace *tr, const char *key)
{
    put(tr, ",\"", 2);
    put_cstr(tr, key);
    put(tr, "\":", 2);
}

static void put_escaped(ks_trace *tr, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    put(tr, "\"", 1);
    const char *run = s;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        put(tr, run, (size_t)(p - run));
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15u]};
        if (c == '"' || c == '\\') {
            esc[1] = (char)c;
            put(tr, esc, 2);
        } else if (c == '\n') {
            put(tr, "\\n", 2);
        } else {
            put(tr, esc, 6);
        }
        run = p + 1;
    }
    put_cstr(tr, run);
    put(tr, "\"", 1);
}

/* A line of kind k starts, when that kind is written. */
bool ks_trace__line_starts(ks_trace *tr, unsigned k)
{
    assert(!tr->in_line);
    if (!ks_trace_on(tr, k))
        return false;
    tr->in_line = true;
    tr->lines++;
    tr->lines_by_kind[k]++;
    return true;
}

bool ks_trace_begin(ks_trace *tr, ks_time t, unsigned k)
{
    if (!ks_trace__line_starts(tr, k))
        return false;
    if (t >= 0 && tr->ev_len[k] > 0 && tr->len + 5u + 20u + KS_TRACE_EV_TEXT <= sizeof tr->buf) {
        /* {"t":<t>,"ev":"<name>" straight into the buffer; the kind's
         * text is copied whole (a fixed size), its length kept */
        char *p = tr->buf + tr->len;
        memcpy(p, "{\"t\":", 5);
        p = ks_trace__u64(p + 5, (uint64_t)t);
        memcpy(p, tr->ev_text[k], KS_TRACE_EV_TEXT);
        tr->len = (size_t)(p + tr->ev_len[k] - tr->buf);
        return true;
    }
    put(tr, "{\"t\":", 5);
    put_i64(tr, t);
    if (tr->ev_len[k] > 0) {
        put(tr, tr->ev_text[k], tr->ev_len[k]);
    } else {
        put(tr, ",\"ev\":\"", 7);
        put_cstr(tr, tr->schema->names[k]);
        put(tr, "\"", 1);
    }
    return true;
}

void ks_trace__i64_slow(ks_trace *tr, const char *key, int64_t v)
{
    put_key(tr, key);
    put_i64(tr, v);
}

void ks_trace__u64_slow(ks_trace *tr, const char *key, uint64_t v)
{
    put_key(tr, key);
    put_u64(tr, v);
}

void ks_trace_bool(ks_trace *tr, const char *key, bool v)
{
    if (!tr->in_line)
        return;
    put_key(tr, key);
    put_cstr(tr, v ? "true" : "false");
}

void ks_trace__str_slow(ks_trace *tr, const char *key, const char *s)
{
    put_key(tr, key);
    if (s)
        put_escaped(tr, s);
    else
        put(tr, "null", 4);
}

void ks_trace_raw(ks_trace *tr, const char *key, const char *json)
{
    if (!tr->in_line)
        return;
    put_key(tr, key);
    put_cstr(tr, json);
}

void ks_trace_null(ks_trace *tr, const char *key)
{
    if (!tr->in_line)
        return;
    put_key(tr, key);
    put(tr, "null", 4);
}

void ks_trace_end(ks_trace *tr)
{
    if (!tr->in_line)
        return;
    put(tr, "}\n", 2);
    tr->in_line = false;
}

bool ks_trace_keep(const ks_trace *tr, uint64_t mark, ks_trace_run *run)
{
    assert(tr->in_line && mark <= ks_trace_mark(tr));
    _Static_assert(KS_TRACE_RUN_MAX % 16u == 0, "runs are copied 16 bytes at a time");
    run->len = 0;
    if (mark < tr->passed || ks_trace_mark(tr) - mark > KS_TRACE_RUN_MAX)
        return false;
    size_t from = (size_t)(mark - tr->passed), n = tr->len - from;
    memcpy(run->text, tr->buf + from, n);
    memset(run->text + n, 0, KS_TRACE_RUN_MAX - n);
    run->len = (uint32_t)n;
    return true;
}

void ks_trace__put_slow(ks_trace *tr, const char *s, size_t n)
{
    put(tr, s, n);
}
