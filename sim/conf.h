/*
 * conf.h - strict loading of a JSON configuration document: typed getters,
 * unknown keys with "did you mean", and "--set path=value" overrides.
 *
 * Owns: the loader context (ks_conf): the file named in messages, the
 * diagnostics, the JSON path being read, and the values --set put into the
 * document. Every message reads "FILE: $.path: what, got VALUE" and names
 * the --set that put the value there, if one did. A getter that finds a
 * bad value reports it and returns false, leaving the caller's default in
 * place, so that one pass reports every problem. A --set value that is not
 * JSON text is kept as a string and converted when a getter wants a
 * number or a boolean ("--set linger.ms=5").
 *
 * Knows no schema: which keys exist, their ranges and their defaults are
 * the caller's (models/ for scenarios). Never names a Kafka thing.
 *
 * Ownership: a ks_conf borrows the file name, the diag and the overrides;
 * it holds a reference to each value a --set put in place, released by
 * ks_conf_release. Strings handed back point into the document.
 */
#ifndef KS_CONF_H
#define KS_CONF_H

#include "sim/diag.h"
#include "sim/json_path.h"
#include "sim/sim.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most --set overrides one load takes. */
#define KS_MAX_OVERRIDES 256

/* One "--set path=value" override. */
typedef struct ks_override {
    const char *path;
    const char *value;
} ks_override;

typedef struct ks_conf {
    const char *file;
    ks_diag *diag;
    ks_jpath path;                 /* where the reader is: "$.producers[0]" */
    /* Values put in place by --set: for messages ("from --set ...") and,
     * when given as plain text, for converting to the type a key wants. */
    json_t *set_value[KS_MAX_OVERRIDES];
    const ks_override *set_from[KS_MAX_OVERRIDES];
    bool set_is_text[KS_MAX_OVERRIDES];
    size_t n_set;
    json_t *subject;               /* the value the next message is about, or NULL */
} ks_conf;

void ks_conf_init(ks_conf *L, const char *file, ks_diag *diag);
/* Applies one --set to `root` (ks_json_set with the schema's `sections`
 * and dotted `leaves`, sim/json_path.h), reporting a value that is not
 * valid JSON or a path that leads nowhere. */
void ks_conf_apply(ks_conf *L, json_t *root, const ks_override *o, const char *const *sections,
                   const char *const *leaves);
/* Drops the references to the --set values; the end of a load. */
void ks_conf_release(ks_conf *L);

/* The path: ks_conf_enter appends ".key" (or "[i]") and returns the mark
 * that ks_conf_leave restores. */
size_t ks_conf_enter(ks_conf *L, const char *key);
size_t ks_conf_enter_index(ks_conf *L, size_t i);
void ks_conf_leave(ks_conf *L, size_t mark);

/* Messages. An error names the --set that put the subject value there
 * (ks_conf_about sets it until the next message). */
void ks_conf_about(ks_conf *L, json_t *v);
void ks_conf_err(ks_conf *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error at the member `key` of the current path. */
void ks_conf_err_at(ks_conf *L, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ks_conf_warn(ks_conf *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "expected EXPECTED, got VALUE", about v. */
void ks_conf_err_got(ks_conf *L, json_t *v, const char *expected);
/* A short rendering of a value for messages: its JSON text, cut at 60. */
void ks_conf_describe(json_t *v, char *out, size_t n);

/* The text of a --set given as plain text that put v in place, or NULL. */
const char *ks_conf_set_text(const ks_conf *L, json_t *v);
/* JSON null, or the plain text "null" of a --set. */
bool ks_conf_is_null(const ks_conf *L, json_t *v);

/* Checks that every key of `obj` is in `allowed` (with a suggestion for
 * the others); `planned` lists keys the format reserves for what is still
 * to come. Both NULL-terminated; planned may be NULL. */
void ks_conf_check_keys(ks_conf *L, json_t *obj, const char *const *allowed,
                        const char *const *planned);

/* The member, or NULL when absent (or obj NULL). */
json_t *ks_conf_member(json_t *obj, const char *key);

/*
 * Typed getters. get_* read the member `key` of `obj`: absent, they
 * return false without a message; of the wrong type or out of range, they
 * report it at ".key" and return false; *out is written only on success.
 * check_* read a value at the current path.
 */
bool ks_conf_get_object(ks_conf *L, json_t *obj, const char *key, json_t **out);
/* An integer in [min, max]; a real with no fraction counts. */
bool ks_conf_check_int(ks_conf *L, json_t *v, int64_t min, int64_t max, int64_t *out);
bool ks_conf_get_int(ks_conf *L, json_t *obj, const char *key, int64_t min, int64_t max,
                     int64_t *out);
bool ks_conf_get_u32(ks_conf *L, json_t *obj, const char *key, uint32_t min, uint32_t max,
                     uint32_t *out);
/* A finite number in [min, max] (min_open: > min). */
bool ks_conf_check_real(ks_conf *L, json_t *v, double min, bool min_open, double max,
                        double *out);
bool ks_conf_get_real(ks_conf *L, json_t *obj, const char *key, double min, bool min_open,
                      double max, double *out);
/* Milliseconds (fractions allowed, at most 1e12) as integer nanoseconds;
 * positive: more than 0, and at least 1 ns once rounded (a value that
 * rounds to 0 ns is written to *out_ns, then refused). */
bool ks_conf_get_ms(ks_conf *L, json_t *obj, const char *key, bool positive, ks_time *out_ns);
/* A string (or null when allow_null; *out = NULL then). */
bool ks_conf_get_string(ks_conf *L, json_t *obj, const char *key, bool allow_null,
                        const char **out);
bool ks_conf_check_bool(ks_conf *L, json_t *v, bool *out);
/* One of n strings; *out is its index. */
bool ks_conf_check_choice(ks_conf *L, json_t *v, const char *const *choices, size_t n,
                          unsigned *out);

/* The index of the element whose id is `id`, among n ids found `stride`
 * bytes apart from ids[0]; -1, with "no WHAT "ID" (did you mean ...)"
 * at the current path, when none is. */
int32_t ks_conf_find_id(ks_conf *L, const char *what, const char *id, char *const *ids,
                        size_t stride, uint32_t n);

/* Writing values back the way the getters read them: milliseconds as an
 * integer when whole, else a real; a number as an integer when whole. */
json_t *ks_conf_ms_json(ks_time ns);
json_t *ks_conf_number_json(double d);
/* json_dumps flags for v's reals written exactly but no longer than
 * needed: the fewest significant digits (15, 16 or 17) at which every
 * real in v reads back as itself. jansson's default, 17, writes the 0.3
 * a user gave as 0.29999999999999999; a real that needs 17 keeps them. */
size_t ks_conf_reals_exact(const json_t *v);

#endif
