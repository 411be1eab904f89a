/*
 * conf.c - strict loading of a JSON document (see conf.h): the messages,
 * the --set overrides and their plain-text values, the typed getters and
 * the key check with its suggestions. Never names a section or a key of
 * any schema: those are the caller's.
 */
#include "sim/conf.h"

#include "ks_version.h"
#include "sim/detmath.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ks_conf_init(ks_conf *L, const char *file, ks_diag *diag)
{
    memset(L, 0, sizeof *L);
    L->file = file;
    L->diag = diag;
    ks_jpath_init(&L->path);
}

void ks_conf_release(ks_conf *L)
{
    for (size_t i = 0; i < L->n_set; i++)
        json_decref(L->set_value[i]);
    L->n_set = 0;
}

size_t ks_conf_enter(ks_conf *L, const char *key)
{
    return ks_jpath_key(&L->path, key);
}

size_t ks_conf_enter_index(ks_conf *L, size_t i)
{
    return ks_jpath_index(&L->path, i);
}

void ks_conf_leave(ks_conf *L, size_t mark)
{
    ks_jpath_restore(&L->path, mark);
}

/* ---- messages ---------------------------------------------------------- */

static const ks_override *set_origin(const ks_conf *L, json_t *v)
{
    /* newest first: a value replaced by a later --set may have freed
     * memory that a later value now occupies */
    for (size_t i = L->n_set; v && i-- > 0;)
        if (L->set_value[i] == v)
            return L->set_from[i];
    return NULL;
}

void ks_conf_about(ks_conf *L, json_t *v)
{
    L->subject = v;
}

/* Reports at the current path; names the --set that put the subject
 * value there, if one did. */
static void verr(ks_conf *L, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void verr(ks_conf *L, const char *fmt, va_list ap)
{
    char msg[KS_DIAG_LEN];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const ks_override *o = set_origin(L, L->subject);
    L->subject = NULL;
    if (o)
        ks_diag_error(L->diag, "%s: %s: %s (from --set %s=%s)", L->file, L->path.buf, msg,
                      o->path, o->value);
    else
        ks_diag_error(L->diag, "%s: %s: %s", L->file, L->path.buf, msg);
}

void ks_conf_err(ks_conf *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(L, fmt, ap);
    va_end(ap);
}

void ks_conf_err_at(ks_conf *L, const char *key, const char *fmt, ...)
{
    size_t mark = ks_conf_enter(L, key);
    va_list ap;
    va_start(ap, fmt);
    verr(L, fmt, ap);
    va_end(ap);
    ks_conf_leave(L, mark);
}

void ks_conf_warn(ks_conf *L, const char *fmt, ...)
{
    char msg[KS_DIAG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    L->subject = NULL;
    ks_diag_warn(L->diag, "%s: %s: %s", L->file, L->path.buf, msg);
}

void ks_conf_describe(json_t *v, char *out, size_t n)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | KS_JSON_REALS);
    if (!s) {
        snprintf(out, n, "(unprintable)");
        return;
    }
    if (strlen(s) > 60)
        snprintf(out, n, "%.57s...", s);
    else
        snprintf(out, n, "%s", s);
    free(s);
}

void ks_conf_err_got(ks_conf *L, json_t *v, const char *expected)
{
    char got[80];
    ks_conf_describe(v, got, sizeof got);
    L->subject = v;
    ks_conf_err(L, "expected %s, got %s", expected, got);
}

/* ---- --set values ------------------------------------------------------- */

void ks_conf_apply(ks_conf *L, json_t *root, const ks_override *o, const char *const *sections,
                   const char *const *leaves)
{
    json_t *value;
    const char *t = o->value;
    bool string_value = false;
    if (t[0] == '[' || t[0] == '{' || t[0] == '"') {
        json_error_t je;
        value = json_loads(t, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
        if (!value) {
            ks_diag_error(L->diag, "--set %s=%s: the value is not valid JSON: %s (column %d)",
                          o->path, t, je.text, je.column);
            return;
        }
    } else {
        value = json_string(t);
        string_value = true;
        if (!value) {
            ks_diag_error(L->diag, "--set %s=%s: the value is not valid UTF-8", o->path, t);
            return;
        }
    }
    json_incref(value);
    char msg[256];
    if (!ks_json_set(root, o->path, value, sections, leaves, msg, sizeof msg)) {
        ks_diag_error(L->diag, "--set %s=%s: %s", o->path, t, msg);
    } else if (L->n_set < KS_MAX_OVERRIDES) {
        /* Keep a reference of our own: a later --set may replace the value
         * in the document, and its address must not be reused by another
         * value while we still compare addresses. Released by
         * ks_conf_release. */
        json_incref(value);
        L->set_value[L->n_set] = value;
        L->set_from[L->n_set] = o;
        L->set_is_text[L->n_set] = string_value;
        L->n_set++;
    }
    json_decref(value);
}

const char *ks_conf_set_text(const ks_conf *L, json_t *v)
{
    for (size_t i = L->n_set; i-- > 0;)
        if (L->set_value[i] == v)
            return L->set_is_text[i] ? L->set_from[i]->value : NULL;
    return NULL;
}

/* True if s is a plain decimal number: -?digits(.digits)?([eE][+-]?digits)?
 * (no spaces, no hex, no "inf"), which strtod and strtoll read the same
 * everywhere. */
static bool plain_number(const char *s, bool *is_integer)
{
    const char *p = s;
    if (*p == '-')
        p++;
    size_t d = strspn(p, "0123456789");
    if (d == 0)
        return false;
    p += d;
    *is_integer = true;
    if (*p == '.') {
        size_t f = strspn(p + 1, "0123456789");
        if (f == 0)
            return false;
        p += 1 + f;
        *is_integer = false;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        size_t e = strspn(p, "0123456789");
        if (e == 0)
            return false;
        p += e;
        *is_integer = false;
    }
    return *p == '\0';
}

/* The number a plain-text --set value means, or NULL (caller decrefs). */
static json_t *coerce_number(const ks_conf *L, json_t *v)
{
    if (!json_is_string(v) || !ks_conf_set_text(L, v))
        return NULL;
    const char *s = json_string_value(v);
    bool is_integer;
    if (!plain_number(s, &is_integer))
        return NULL;
    errno = 0;
    if (is_integer) {
        long long ll = strtoll(s, NULL, 10);
        if (errno == 0)
            return json_integer(ll);
        errno = 0;
    }
    double d = strtod(s, NULL);
    if (errno == 0 && isfinite(d))
        return json_real(d);
    return NULL;
}

static json_t *coerce_bool(const ks_conf *L, json_t *v)
{
    if (!json_is_string(v) || !ks_conf_set_text(L, v))
        return NULL;
    const char *s = json_string_value(v);
    if (strcmp(s, "true") == 0)
        return json_true();
    if (strcmp(s, "false") == 0)
        return json_false();
    return NULL;
}

bool ks_conf_is_null(const ks_conf *L, json_t *v)
{
    return json_is_null(v) || (json_is_string(v) && ks_conf_set_text(L, v) &&
                               strcmp(json_string_value(v), "null") == 0);
}

/* ---- keys --------------------------------------------------------------- */

static bool in_list(const char *k, const char *const *list)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(k, list[i]) == 0)
            return true;
    return false;
}

void ks_conf_check_keys(ks_conf *L, json_t *obj, const char *const *allowed,
                        const char *const *planned)
{
    const char *k;
    json_t *v;
    size_t n = 0;
    while (allowed[n])
        n++;
    json_object_foreach(obj, k, v) {
        if (in_list(k, allowed))
            continue;
        size_t mark = ks_conf_enter(L, k);
        L->subject = v;
        if (in_list(k, planned)) {
            ks_conf_err(L, "\"%s\" is reserved by the scenario format for a model this ksim "
                           "(%s) does not have; remove it",
                        k, KS_VERSION);
        } else {
            const char *s = ks_suggest(k, allowed, n);
            if (s)
                ks_conf_err(L, "unknown key \"%s\" (did you mean \"%s\"?)", k, s);
            else
                ks_conf_err(L, "unknown key \"%s\"", k);
        }
        ks_conf_leave(L, mark);
    }
}

json_t *ks_conf_member(json_t *obj, const char *key)
{
    return obj ? json_object_get(obj, key) : NULL;
}

/* ---- typed getters ------------------------------------------------------ */

bool ks_conf_get_object(ks_conf *L, json_t *obj, const char *key, json_t **out)
{
    json_t *v = ks_conf_member(obj, key);
    *out = NULL;
    if (!v)
        return false;
    if (!json_is_object(v)) {
        size_t mark = ks_conf_enter(L, key);
        ks_conf_err_got(L, v, "an object");
        ks_conf_leave(L, mark);
        return false;
    }
    *out = v;
    return true;
}

bool ks_conf_check_int(ks_conf *L, json_t *v, int64_t min, int64_t max, int64_t *out)
{
    json_t *c = coerce_number(L, v);
    json_t *use = c ? c : v;
    bool ok = false;
    int64_t x = 0;
    if (json_is_integer(use)) {
        x = (int64_t)json_integer_value(use);
        ok = true;
    } else if (json_is_real(use)) {
        double d = json_real_value(use);
        if (d == floor(d) && d >= -9.2e18 && d <= 9.2e18) {
            x = (int64_t)d;
            ok = true;
        }
    }
    json_decref(c);
    if (ok && x >= min && x <= max) {
        *out = x;
        return true;
    }
    char expected[128];
    if (max == INT64_MAX)
        snprintf(expected, sizeof expected, "an integer >= %lld", (long long)min);
    else
        snprintf(expected, sizeof expected, "an integer from %lld to %lld", (long long)min,
                 (long long)max);
    ks_conf_err_got(L, v, expected);
    return false;
}

bool ks_conf_get_int(ks_conf *L, json_t *obj, const char *key, int64_t min, int64_t max,
                     int64_t *out)
{
    json_t *v = ks_conf_member(obj, key);
    if (!v)
        return false;
    size_t mark = ks_conf_enter(L, key);
    bool ok = ks_conf_check_int(L, v, min, max, out);
    ks_conf_leave(L, mark);
    return ok;
}

bool ks_conf_get_u32(ks_conf *L, json_t *obj, const char *key, uint32_t min, uint32_t max,
                     uint32_t *out)
{
    int64_t x;
    if (!ks_conf_get_int(L, obj, key, min, max, &x))
        return false;
    *out = (uint32_t)x;
    return true;
}

bool ks_conf_check_real(ks_conf *L, json_t *v, double min, bool min_open, double max,
                        double *out)
{
    json_t *c = coerce_number(L, v);
    json_t *use = c ? c : v;
    bool ok = json_is_number(use);
    double d = ok ? json_number_value(use) : 0.0;
    json_decref(c);
    if (ok && (min_open ? d > min : d >= min) && d <= max && isfinite(d)) {
        *out = d;
        return true;
    }
    char expected[96];
    if (max < 1e300)
        snprintf(expected, sizeof expected, "a number %s %g and <= %g", min_open ? ">" : ">=",
                 min, max);
    else
        snprintf(expected, sizeof expected, "a number %s %g", min_open ? ">" : ">=", min);
    ks_conf_err_got(L, v, expected);
    return false;
}

bool ks_conf_get_real(ks_conf *L, json_t *obj, const char *key, double min, bool min_open,
                      double max, double *out)
{
    json_t *v = ks_conf_member(obj, key);
    if (!v)
        return false;
    size_t mark = ks_conf_enter(L, key);
    bool ok = ks_conf_check_real(L, v, min, min_open, max, out);
    ks_conf_leave(L, mark);
    return ok;
}

bool ks_conf_get_ms(ks_conf *L, json_t *obj, const char *key, bool positive, ks_time *out_ns)
{
    double ms;
    /* 1e12 ms is about 31 years of virtual time: far beyond any run. */
    if (!ks_conf_get_real(L, obj, key, 0.0, positive, 1e12, &ms))
        return false;
    *out_ns = ks_round_i64(ms * 1e6);
    /* A positive duration must stay positive once rounded to ns: 1e-9 ms
     * became 0, and the resolved scenario (0) did not load again (found
     * by fuzzing the round trip). */
    if (positive && *out_ns <= 0) {
        size_t mark = ks_conf_enter(L, key);
        ks_conf_err_got(L, ks_conf_member(obj, key),
                        "a number of at least 0.000001 (one nanosecond)");
        ks_conf_leave(L, mark);
        return false;
    }
    return true;
}

bool ks_conf_get_string(ks_conf *L, json_t *obj, const char *key, bool allow_null,
                        const char **out)
{
    json_t *v = ks_conf_member(obj, key);
    if (!v)
        return false;
    if (allow_null && ks_conf_is_null(L, v)) {
        *out = NULL;
        return true;
    }
    if (json_is_string(v)) {
        *out = json_string_value(v);
        return true;
    }
    size_t mark = ks_conf_enter(L, key);
    ks_conf_err_got(L, v, allow_null ? "a string or null" : "a string");
    ks_conf_leave(L, mark);
    return false;
}

bool ks_conf_check_bool(ks_conf *L, json_t *v, bool *out)
{
    json_t *c = coerce_bool(L, v);
    json_t *use = c ? c : v;
    bool ok = json_is_boolean(use);
    if (ok)
        *out = json_is_true(use);
    else
        ks_conf_err_got(L, v, "true or false");
    json_decref(c);
    return ok;
}

bool ks_conf_check_choice(ks_conf *L, json_t *v, const char *const *choices, size_t n,
                          unsigned *out)
{
    const char *s = json_string_value(v);
    for (size_t i = 0; s && i < n; i++) {
        if (strcmp(s, choices[i]) == 0) {
            *out = (unsigned)i;
            return true;
        }
    }
    char expected[256] = "one of";
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(expected);
        snprintf(expected + len, sizeof expected - len, "%s\"%s\"", i ? ", " : " ", choices[i]);
    }
    const char *sug = s ? ks_suggest(s, choices, n) : NULL;
    if (sug) {
        char got[80];
        ks_conf_describe(v, got, sizeof got);
        L->subject = v;
        ks_conf_err(L, "expected %s, got %s (did you mean \"%s\"?)", expected, got, sug);
    } else {
        ks_conf_err_got(L, v, expected);
    }
    return false;
}

int32_t ks_conf_find_id(ks_conf *L, const char *what, const char *id, char *const *ids,
                        size_t stride, uint32_t n)
{
    const char *cands[256];
    size_t nc = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *cid = *(char *const *)((const char *)ids + i * stride);
        if (cid && strcmp(cid, id) == 0)
            return (int32_t)i;
        if (cid && nc < 256)
            cands[nc++] = cid;
    }
    const char *sug = ks_suggest(id, cands, nc);
    if (sug)
        ks_conf_err(L, "no %s \"%s\" (did you mean \"%s\"?)", what, id, sug);
    else
        ks_conf_err(L, "no %s \"%s\"", what, id);
    return -1;
}

/* ---- writing back ------------------------------------------------------- */

json_t *ks_conf_ms_json(ks_time ns)
{
    if (ns % KS_NS_PER_MS == 0)
        return json_integer((json_int_t)(ns / KS_NS_PER_MS));
    return json_real((double)ns / 1e6);
}

/* The significant digits (15..17) at which %g of d reads back as d. */
static int digits_exact(double d)
{
    char buf[40];
    for (int p = 15; p < 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, d);
        if (strtod(buf, NULL) == d)
            return p;
    }
    return 17;
}

static int reals_digits(const json_t *v)
{
    int most = 15;
    if (json_is_real(v))
        return digits_exact(json_real_value(v));
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            int d = reals_digits(json_array_get(v, i));
            most = d > most ? d : most;
        }
    } else if (json_is_object(v)) {
        const char *key;
        json_t *m;
        json_object_foreach((json_t *)v, key, m) {
            int d = reals_digits(m);
            most = d > most ? d : most;
        }
    }
    return most;
}

size_t ks_conf_reals_exact(const json_t *v)
{
    return (size_t)JSON_REAL_PRECISION(reals_digits(v));
}

json_t *ks_conf_number_json(double d)
{
    if (d == (double)(json_int_t)d && d < 9e15 && d > -9e15)
        return json_integer((json_int_t)d);
    return json_real(d);
}
