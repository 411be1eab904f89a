/*
 * check.c - `ksim check`: runs scenarios against their expect blocks, for
 * people and for CI (see commands.h).
 *
 * Owns: which files a check runs (directories expand to their *.json
 * files, not recursively, in byte order of their names), the per-scenario
 * outcome (ok, failed, skipped for want of an expect block, error when a
 * file does not load or cannot be built), the three ways of reporting it
 * (human lines, TAP version 13, JUnit XML), the reproduce command printed
 * for every failure, and the command's exit code. Scenarios run in this
 * process, one after another, with tracing off; the only file written is
 * the JUnit report, through sim/outfile.h. The JUnit report keeps to the
 * strict schema Jenkins' xunit plugin validates against (tests/junit.xsd
 * states its rules): a testcase has no properties and no file attribute,
 * so its file, seed, virtual time and expectation count are its
 * system-out.
 *
 * The wall clock: each scenario's load, run and check is timed with
 * CLOCK_MONOTONIC here, for the JUnit `time` attributes only; the
 * simulation never sees it, and nothing else printed depends on it.
 *
 * POSIX: opendir/readdir/stat, to list directories; clock_gettime.
 */
#define _POSIX_C_SOURCE 200809L

#include "tools/commands.h"

#include "ks_version.h"
#include "models/world.h"
#include "sim/expect.h"
#include "sim/json_path.h"
#include "sim/outfile.h"
#include "models/scenario.h"
#include "sim/str.h"
#include "sim/trace.h"
#include "tools/options.h"
#include "tools/status.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const char ks_usage_check[] =
    "usage: ksim check [options] [DIR|FILE]...\n"
    "\n"
    "Runs every scenario that has an expect block, checks the block as\n"
    "`ksim run` does, and prints one line per scenario and the totals. A DIR\n"
    "stands for its *.json files (not recursive; names starting with '.' left\n"
    "out; in byte order of their names, so every run lists them alike); a\n"
    "FILE runs whatever its name. Without arguments: the directory scenarios.\n"
    "Scenarios run in this process with tracing off; nothing is written but\n"
    "the JUnit report.\n"
    "\n"
    "options:\n"
    "  --junit FILE        also write a JUnit XML report to FILE (written under a\n"
    "                      temporary name, then renamed; - = standard output, and\n"
    "                      the human lines go to standard error)\n"
    "  --tap               print TAP version 13 instead of the human lines\n"
    "  --seed N            master seed of every scenario (overrides \"seed\")\n"
    "  --set PATH=VALUE    override a value in every scenario, as for run\n"
    "                      (repeatable; a scenario it does not fit is an error)\n"
    "  -q, --quiet         print only failures and errors (--tap prints all)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Lines: \"ok   NAME (N expectations)\"; \"FAIL NAME: K of N expectations\n"
    "failed\", then each failing expectation (path, expected, actual) and a\n"
    "command that reproduces the run with its seed and --set options;\n"
    "\"skip NAME (no expect block)\"; \"ERROR FILE: message\" for a file that\n"
    "does not load, with the loader's messages.\n"
    "\n"
    "JUnit (valid against the xunit plugin's junit-10 schema): <testsuites>\n"
    "holding one <testsuite name=\"ksim\"> with the check's properties (ksim\n"
    "version, --seed, every --set), one <testcase classname=\"ksim.scenarios\"\n"
    "name=NAME> per scenario, with <failure> (its text ends with the reproduce\n"
    "command), <skipped/> or <error>, and a <system-out> of \"key: value\"\n"
    "lines: file, seed, virtual_time_ns, expectations. A testcase's time is\n"
    "the wall-clock time its scenario took to load, run and check, in seconds\n"
    "with three decimals; a suite's time is the sum of its testcases'. TAP: a\n"
    "failure's YAML block has message, seed, failures and reproduce; a\n"
    "skipped scenario is \"ok N - NAME # SKIP no expect block\".\n"
    "\n"
    "exit status: 0 every expectation held (skipped scenarios do not count),\n"
    "             1 an expectation failed, or a scenario did not load or build,\n"
    "             2 bad usage, a path that does not exist, no scenario file\n"
    "               found, or a JUnit report that cannot be written\n";

/* ---- strings -------------------------------------------------------- */

/* Appends s as one shell word in single quotes (' becomes '\''), as
 * `ksim run` prints its reproduce line. */
static void sb_shell_word(ks_sbuf *b, const char *s)
{
    ks_sb_add(b, "'", 1);
    for (; *s; s++) {
        if (*s == '\'')
            ks_sb_puts(b, "'\\''");
        else
            ks_sb_add(b, s, 1);
    }
    ks_sb_add(b, "'", 1);
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* Length (1 to 4) of the well-formed UTF-8 sequence at s, storing its code
 * point in *cp, or 0 when the bytes there are not one (a stray
 * continuation byte, an overlong form, a surrogate, beyond U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
    if (n == 0 || s[0] > 0xF4)
        return 0;
    uint32_t c = s[0] & (0x7Fu >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3Fu);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

/* Writes s as XML character data or (attr) an attribute value: the five
 * markup characters as entities, line breaks and tabs in attributes as
 * character references (a parser would turn them into spaces), and what
 * XML 1.0 cannot hold at all (other control characters, U+FFFE, U+FFFF,
 * bytes that are not UTF-8) as U+FFFD. */
static void xml_put(FILE *f, const char *s, bool attr)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t c;
        size_t n = utf8_seq(p, &c);
        if (n == 0 || c == 0xFFFE || c == 0xFFFF ||
            (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
            fputs("\xEF\xBF\xBD", f);
            p += n ? n : 1;
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\r': fputs("&#13;", f); break;
        case '\t': fputs(attr ? "&#9;" : "\t", f); break;
        case '\n': fputs(attr ? "&#10;" : "\n", f); break;
        default: fwrite(p, 1, n, f); break;
        }
        p += n;
    }
}

/* Writes s as a YAML double-quoted scalar: quote and backslash escaped,
 * control characters (C0, DEL, C1) as \xNN, bytes that are not UTF-8 as
 * \uFFFD. */
static void yaml_put(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        uint32_t c;
        size_t n = utf8_seq(p, &c);
        if (n == 0) {
            fputs("\\uFFFD", f);
            p++;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", (char)c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20 || (c >= 0x7F && c <= 0x9F))
            fprintf(f, "\\x%02X", (unsigned)c);
        else
            fwrite(p, 1, n, f);
        p += n;
    }
    fputc('"', f);
}

/* Writes a name or path on a report line: control characters become '?'
 * so that one scenario stays one line; for a TAP description (tap), '#'
 * and '\' are escaped so that no directive can be read into it. */
static void line_put(FILE *f, const char *s, bool tap)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7F)
            fputc('?', f);
        else if (tap && (c == '#' || c == '\\'))
            fprintf(f, "\\%c", c);
        else
            fputc(c, f);
    }
}

/* ---- options -------------------------------------------------------- */

typedef struct check_opts {
    ks_override ovr[KS_MAX_OVERRIDES];
    size_t n_ovr;
    bool has_seed;
    uint64_t seed;
    const char *junit;  /* NULL: no JUnit report */
    bool tap;
    bool quiet;
    const char **paths; /* the DIR and FILE arguments */
    size_t n_paths;
} check_opts;

/* Adds "--set PATH=VALUE"; false when it is not of that form or there are
 * too many. */
static bool add_override(check_opts *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || o->n_ovr == KS_MAX_OVERRIDES)
        return false;
    char *path = ks_strndup(arg, (size_t)(eq - arg));
    if (!path)
        return false;
    o->ovr[o->n_ovr].path = path;
    o->ovr[o->n_ovr].value = eq + 1;
    o->n_ovr++;
    return true;
}

enum {
    CHECK_HELP = 'h',
    CHECK_QUIET = 'q',
    CHECK_TAP = 256,
    CHECK_JUNIT,
    CHECK_SEED,
    CHECK_SET
};

static const ks_opt_def check_options[] = {
    {CHECK_HELP, 'h', "help", false},  {CHECK_QUIET, 'q', "quiet", false},
    {CHECK_TAP, '\0', "tap", false},   {CHECK_JUNIT, '\0', "junit", true},
    {CHECK_SEED, '\0', "seed", true},  {CHECK_SET, '\0', "set", true},
};

/* Handles one option (its value v). Returns 0 to go on, -1 after --help,
 * or KS_EXIT_USAGE (message printed). */
static int parse_option(int id, const char *v, check_opts *o)
{
    switch (id) {
    case CHECK_HELP:
        fputs(ks_usage_check, stdout);
        return -1;
    case CHECK_QUIET:
        o->quiet = true;
        break;
    case CHECK_TAP:
        o->tap = true;
        break;
    case CHECK_JUNIT:
        if (!*v)
            return ks_status_usage("check", "--junit: expected FILE or -");
        o->junit = v;
        break;
    case CHECK_SEED:
        if (!ks_opt_uint(v, INT64_MAX, &o->seed))
            return ks_status_usage("check", "--seed: expected an integer from 0 to 2^63-1, "
                                   "got '%s'", v);
        o->has_seed = true;
        break;
    case CHECK_SET:
        if (!add_override(o, v))
            return ks_status_usage("check", "--set: expected PATH=VALUE (at most 256), got '%s'",
                                   v);
        break;
    }
    return 0;
}

/* Fills o from argv (argv[1] is "check"); no path arguments leave
 * n_paths 0, for the default. Returns 0 to go on, -1 after
 * --help, or KS_EXIT_USAGE (message printed). */
static int parse_args(int argc, char **argv, check_opts *o)
{
    o->paths = malloc((size_t)argc * sizeof *o->paths);
    if (!o->paths)
        return ks_status_fail("check", "out of memory");
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 2, check_options, sizeof check_options / sizeof *check_options,
                false);
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END;) {
        int rc = 0;
        if (id == KS_OPT_ERROR)
            rc = ks_status_usage("check", "%s", p.error);
        else if (id == KS_OPT_OPERAND && strcmp(p.value, "-") == 0)
            rc = ks_status_usage("check", "scenarios come from files and directories, "
                                          "not standard input ('-')");
        else if (id == KS_OPT_OPERAND)
            o->paths[o->n_paths++] = p.value;
        else
            rc = parse_option(id, p.value, o);
        if (rc != 0)
            return rc;
    }
    if (o->tap && o->junit && strcmp(o->junit, "-") == 0)
        return ks_status_usage("check", "--tap and --junit - cannot both use standard output");
    return 0;
}

/* ---- which files ---------------------------------------------------- */

typedef struct file_list {
    char **v;
    size_t n, cap;
} file_list;

/* Takes ownership of s; false when out of memory (s freed). */
static bool list_add(file_list *l, char *s)
{
    if (s && l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(s);
            return false;
        }
        l->v = v;
        l->cap = cap;
    }
    if (!s)
        return false;
    l->v[l->n++] = s;
    return true;
}

static void list_free(file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_scenario_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".json") == 0;
}

/* Adds DIR's *.json regular files (symbolic links followed), sorted by
 * name in byte order (strcmp: every entry shares the DIR/ prefix). */
static int add_directory(const char *dir, file_list *l)
{
    DIR *d = opendir(dir);
    if (!d) {
        ks_status_fail("check", "%s: cannot read the directory: %s", dir, strerror(errno));
        return KS_EXIT_USAGE;
    }
    size_t first = l->n, dlen = strlen(dir);
    bool slash = dlen > 0 && dir[dlen - 1] == '/';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_scenario_name(e->d_name))
            continue;
        size_t n = dlen + strlen(e->d_name) + 2;
        char *path = malloc(n);
        if (path)
            snprintf(path, n, "%s%s%s", dir, slash ? "" : "/", e->d_name);
        struct stat st;
        if (path && (stat(path, &st) != 0 || !S_ISREG(st.st_mode))) {
            free(path);
            continue;
        }
        if (!list_add(l, path)) {
            closedir(d);
            ks_status_fail("check", "out of memory");
            return KS_EXIT_USAGE;
        }
    }
    closedir(d);
    if (l->n == first)
        ks_status_warn("check", "%s: no *.json files", dir);
    else
        qsort(l->v + first, l->n - first, sizeof *l->v, compare_paths);
    return 0;
}

/* Expands the arguments, in the order given, into scenario files.
 * Returns 0 or KS_EXIT_USAGE (message printed). */
static int collect_files(const char *const *paths, size_t n, file_list *l)
{
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            ks_status_fail("check", "%s: %s", paths[i], strerror(errno));
            return KS_EXIT_USAGE;
        }
        if (S_ISDIR(st.st_mode)) {
            int rc = add_directory(paths[i], l);
            if (rc != 0)
                return rc;
        } else if (!list_add(l, ks_strdup(paths[i]))) {
            ks_status_fail("check", "out of memory");
            return KS_EXIT_USAGE;
        }
    }
    if (l->n == 0) {
        ks_status_fail("check", "no scenario files found");
        return KS_EXIT_USAGE;
    }
    return 0;
}

/* ---- running one scenario ------------------------------------------- */

typedef enum outcome { OUTCOME_OK, OUTCOME_FAIL, OUTCOME_SKIP, OUTCOME_ERROR } outcome;

typedef struct scen_result {
    const char *file;  /* as listed (owned by the file list) */
    char *name;        /* the scenario's name; NULL when it did not load */
    outcome what;
    uint64_t seed;
    size_t checked, failed;
    int64_t virtual_ns;
    int64_t wall_ms;   /* wall-clock milliseconds it took, for JUnit */
    char *message;     /* FAIL: "K of N expectations failed"; ERROR: the first error */
    char *details;     /* FAIL: one line per failing expectation; ERROR: every message */
    char *reproduce;   /* FAIL: the `ksim run` command line */
    json_t *failures;  /* FAIL: the failing entries of the expect report */
} scen_result;

static void result_free(scen_result *r)
{
    free(r->name);
    free(r->message);
    free(r->details);
    free(r->reproduce);
    json_decref(r->failures);
}

/* The command that reruns one scenario as this check ran it. */
static char *reproduce_command(const check_opts *o, const char *file, uint64_t seed)
{
    ks_sbuf b = {0};
    ks_sb_puts(&b, "ksim run ");
    sb_shell_word(&b, file);
    ks_sb_printf(&b, " --seed %" PRIu64, seed);
    for (size_t i = 0; i < o->n_ovr; i++) {
        ks_sbuf arg = {0};
        ks_sb_printf(&arg, "%s=%s", o->ovr[i].path, o->ovr[i].value);
        ks_sb_puts(&b, " --set ");
        sb_shell_word(&b, or_empty(arg.s));
        b.oom = b.oom || arg.oom;
        ks_sb_free(&arg);
    }
    return ks_sb_take(&b);
}

/* One failing expectation as a line: "PATH: expected E, got A", with the
 * expectation's error and suggestion when it has them. */
static void expect_line(ks_sbuf *b, json_t *e)
{
    char *want = json_dumps(json_object_get(e, "expected"),
                           JSON_ENCODE_ANY | JSON_COMPACT | KS_JSON_REALS);
    char *got = json_dumps(json_object_get(e, "actual"),
                           JSON_ENCODE_ANY | JSON_COMPACT | KS_JSON_REALS);
    const char *err = json_string_value(json_object_get(e, "error"));
    const char *sug = json_string_value(json_object_get(e, "did_you_mean"));
    ks_sb_printf(b, "%s: expected %s, got %s",
                 or_empty(json_string_value(json_object_get(e, "path"))), want ? want : "?",
                 got ? got : "?");
    if (err)
        ks_sb_printf(b, " (%s%s%s%s)", err, sug ? "; did you mean \"" : "", sug ? sug : "",
                     sug ? "\"?" : "");
    free(want);
    free(got);
}

/* Fills a FAIL result from the expectations' report. */
static void set_failure(scen_result *r, const ks_expect_result *er)
{
    ks_sbuf msg = {0}, det = {0};
    ks_sb_printf(&msg, "%zu of %zu expectation%s failed", er->failed, er->checked,
                 er->checked == 1 ? "" : "s");
    r->failures = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(er->report, i, e) {
        if (json_is_true(json_object_get(e, "ok")))
            continue;
        json_array_append(r->failures, e);
        expect_line(&det, e);
        ks_sb_puts(&det, "\n");
    }
    r->what = OUTCOME_FAIL;
    r->message = ks_sb_take(&msg);
    r->details = ks_sb_take(&det);
}

/* Fills an ERROR result from the loader's (or the world's) messages: the
 * first error, and all of them, one per line. */
static void set_error(scen_result *r, const ks_diag *d)
{
    ks_sbuf det = {0};
    for (unsigned i = 0; i < d->kept; i++)
        if (!d->is_warning[i])
            ks_sb_printf(&det, "%s\n", d->msg[i]);
    if (d->count > d->kept)
        ks_sb_printf(&det, "... and %u more\n", d->count - d->kept);
    const char *first = ks_diag_first(d);
    r->what = OUTCOME_ERROR;
    r->message = ks_strdup(*first ? first : "cannot be run");
    r->details = ks_sb_take(&det);
}

/* Builds and runs the world with tracing off and checks the expectations
 * into r. */
static void run_world(const check_opts *o, const ks_scenario *sc, scen_result *r)
{
    ks_diag diag;
    ks_diag_init(&diag);
    ks_trace *tr = malloc(sizeof *tr);
    ks_world *w = NULL;
    if (tr) {
        ks_trace_init(tr, NULL, KS_TL_SUMMARY);
        w = ks_world_create(sc, tr, &diag);
    } else {
        ks_diag_error(&diag, "%s: out of memory", r->file);
    }
    if (!w) {
        set_error(r, &diag);
        free(tr);
        return;
    }
    ks_world_run(w);
    json_t *summary = ks_world_summary(w);
    ks_world_free(w);
    free(tr);
    ks_expect_result er;
    ks_expect_check(sc->expect, summary, &er);
    r->virtual_ns = (int64_t)json_integer_value(json_object_get(summary, "time_ns"));
    r->checked = er.checked;
    r->failed = er.failed;
    if (er.failed) {
        set_failure(r, &er);
        r->reproduce = reproduce_command(o, r->file, sc->seed);
    } else {
        r->what = OUTCOME_OK;
    }
    json_decref(er.report);
    json_decref(summary);
}

static void run_one(const check_opts *o, const char *file, scen_result *r)
{
    memset(r, 0, sizeof *r);
    r->file = file;
    ks_diag diag;
    ks_diag_init(&diag);
    ks_scenario *sc = ks_scenario_load(file, o->ovr, o->n_ovr, o->has_seed, o->seed, &diag);
    if (!sc) {
        set_error(r, &diag); /* warnings are left to `ksim validate` */
        return;
    }
    r->name = ks_strdup(*sc->name ? sc->name : file);
    r->seed = sc->seed;
    if (sc->expect)
        run_world(o, sc, r);
    else
        r->what = OUTCOME_SKIP;
    ks_scenario_free(sc);
}

/* ---- reports -------------------------------------------------------- */

/* Writes each line of text indented by `indent`. */
static void put_indented(FILE *f, const char *indent, const char *text)
{
    while (*text) {
        size_t n = strcspn(text, "\n");
        fprintf(f, "%s%.*s\n", indent, (int)n, text);
        text += n + (text[n] == '\n');
    }
}

/* The human lines of one scenario. */
static void report_human(FILE *f, const check_opts *o, const scen_result *r)
{
    switch (r->what) {
    case OUTCOME_OK:
        if (o->quiet)
            return;
        fputs("ok   ", f);
        line_put(f, r->name, false);
        fprintf(f, " (%zu expectation%s)\n", r->checked, r->checked == 1 ? "" : "s");
        break;
    case OUTCOME_FAIL:
        fputs("FAIL ", f);
        line_put(f, r->name, false);
        fprintf(f, ": %s\n", or_empty(r->message));
        put_indented(f, "  ", or_empty(r->details));
        fprintf(f, "  reproduce: %s\n", or_empty(r->reproduce));
        break;
    case OUTCOME_SKIP:
        if (o->quiet)
            return;
        fputs("skip ", f);
        line_put(f, r->name, false);
        fputs(" (no expect block)\n", f);
        break;
    case OUTCOME_ERROR:
        /* the loader's messages mostly start with the file's name */
        fputs("ERROR ", f);
        if (strncmp(or_empty(r->message), r->file, strlen(r->file)) != 0) {
            line_put(f, r->file, false);
            fputs(": ", f);
        }
        line_put(f, or_empty(r->message), false);
        fputc('\n', f);
        /* the first message is on the ERROR line; the rest follow */
        const char *rest = strchr(or_empty(r->details), '\n');
        put_indented(f, "  ", rest ? rest + 1 : "");
        break;
    }
}

/* The YAML diagnostic of a failed scenario's TAP line. */
static void tap_failure_yaml(FILE *f, const scen_result *r)
{
    fprintf(f, "  seed: %" PRIu64 "\n  virtual_time_ns: %" PRId64 "\n  failures:\n", r->seed,
            r->virtual_ns);
    size_t i;
    json_t *e;
    json_array_foreach(r->failures, i, e) {
        char *want = json_dumps(json_object_get(e, "expected"),
                               JSON_ENCODE_ANY | JSON_COMPACT | KS_JSON_REALS);
        char *got = json_dumps(json_object_get(e, "actual"),
                               JSON_ENCODE_ANY | JSON_COMPACT | KS_JSON_REALS);
        const char *err = json_string_value(json_object_get(e, "error"));
        const char *sug = json_string_value(json_object_get(e, "did_you_mean"));
        fputs("    - path: ", f);
        yaml_put(f, or_empty(json_string_value(json_object_get(e, "path"))));
        fputs("\n      expected: ", f);
        yaml_put(f, want ? want : "?");
        fputs("\n      actual: ", f);
        yaml_put(f, got ? got : "?");
        if (err) {
            fputs("\n      error: ", f);
            yaml_put(f, err);
        }
        if (sug) {
            fputs("\n      did_you_mean: ", f);
            yaml_put(f, sug);
        }
        fputc('\n', f);
        free(want);
        free(got);
    }
    fputs("  reproduce: ", f);
    yaml_put(f, or_empty(r->reproduce));
    fputc('\n', f);
}

/* The TAP line (and, when it failed, YAML block) of scenario number n. */
static void report_tap(FILE *f, size_t n, const scen_result *r)
{
    bool bad = r->what == OUTCOME_FAIL || r->what == OUTCOME_ERROR;
    fprintf(f, "%sok %zu - ", bad ? "not " : "", n);
    line_put(f, r->what == OUTCOME_ERROR ? r->file : r->name, true);
    fputs(r->what == OUTCOME_SKIP ? " # SKIP no expect block\n" : "\n", f);
    if (!bad)
        return;
    fputs("  ---\n  message: ", f);
    yaml_put(f, or_empty(r->message));
    fprintf(f, "\n  severity: %s\n  file: ", r->what == OUTCOME_FAIL ? "fail" : "error");
    yaml_put(f, r->file);
    fputc('\n', f);
    if (r->what == OUTCOME_FAIL) {
        tap_failure_yaml(f, r);
    } else {
        fputs("  errors:\n", f);
        const char *d = or_empty(r->details);
        while (*d) {
            size_t len = strcspn(d, "\n");
            char *line = ks_strndup(d, len);
            fputs("    - ", f);
            yaml_put(f, or_empty(line));
            fputc('\n', f);
            free(line);
            d += len + (d[len] == '\n');
        }
    }
    fputs("  ...\n", f);
}

/* Counts of each outcome. */
typedef struct totals {
    size_t n[4];
    int64_t wall_ms; /* the sum of the scenarios' */
} totals;

static void report_totals(FILE *f, const check_opts *o, size_t count, const totals *t)
{
    bool bad = t->n[OUTCOME_FAIL] || t->n[OUTCOME_ERROR];
    if (!o->tap && o->quiet && !bad)
        return;
    fprintf(f, "%s%zu scenario%s: %zu ok, %zu failed, %zu error%s, %zu skipped\n",
            o->tap ? "# " : "", count, count == 1 ? "" : "s", t->n[OUTCOME_OK],
            t->n[OUTCOME_FAIL], t->n[OUTCOME_ERROR], t->n[OUTCOME_ERROR] == 1 ? "" : "s",
            t->n[OUTCOME_SKIP]);
}

/* ---- JUnit ---------------------------------------------------------- */

static void junit_property(FILE *f, const char *indent, const char *name, const char *value)
{
    fprintf(f, "%s<property name=\"", indent);
    xml_put(f, name, true);
    fputs("\" value=\"", f);
    xml_put(f, value, true);
    fputs("\"/>\n", f);
}

/* Writes ms as seconds with three decimals: "12.345". */
static void put_seconds(FILE *f, int64_t ms)
{
    fprintf(f, "%" PRId64 ".%03" PRId64, ms / 1000, ms % 1000);
}

/* A testcase's <system-out>: what the schema leaves no attribute or
 * property for, as "key: value" lines. */
static void junit_system_out(FILE *f, const scen_result *r)
{
    fputs("      <system-out>file: ", f);
    xml_put(f, r->file, false);
    fputc('\n', f);
    if (r->what != OUTCOME_ERROR)
        fprintf(f, "seed: %" PRIu64 "\n", r->seed);
    if (r->what == OUTCOME_OK || r->what == OUTCOME_FAIL)
        fprintf(f, "virtual_time_ns: %" PRId64 "\nexpectations: %zu\n", r->virtual_ns,
                r->checked);
    fputs("</system-out>\n", f);
}

/* A failure: the message attribute names the first failing expectation;
 * the text has them all and the command that reproduces the run. */
static void junit_failure(FILE *f, const scen_result *r)
{
    const char *d = or_empty(r->details);
    size_t len = strcspn(d, "\n");
    char *first = ks_strndup(d, len);
    char *msg = malloc(strlen(or_empty(r->message)) + len + 3);
    if (msg)
        sprintf(msg, "%s: %s", or_empty(r->message), or_empty(first));
    fputs("      <failure type=\"expectation\" message=\"", f);
    xml_put(f, msg ? msg : or_empty(r->message), true);
    fputs("\">", f);
    xml_put(f, d, false);
    fputs("reproduce: ", f);
    xml_put(f, or_empty(r->reproduce), false);
    fputs("\n</failure>\n", f);
    free(first);
    free(msg);
}

/* One <testcase>. */
static void junit_testcase(FILE *f, const scen_result *r)
{
    fputs("    <testcase classname=\"ksim.scenarios\" name=\"", f);
    xml_put(f, r->what == OUTCOME_ERROR ? r->file : r->name, true);
    fputs("\" time=\"", f);
    put_seconds(f, r->wall_ms);
    fputs("\">\n", f);
    switch (r->what) {
    case OUTCOME_OK:
        break;
    case OUTCOME_SKIP:
        fputs("      <skipped message=\"no expect block\"/>\n", f);
        break;
    case OUTCOME_FAIL:
        junit_failure(f, r);
        break;
    case OUTCOME_ERROR:
        fputs("      <error type=\"load\" message=\"", f);
        xml_put(f, or_empty(r->message), true);
        fputs("\">", f);
        xml_put(f, or_empty(r->details), false);
        fputs("</error>\n", f);
        break;
    }
    junit_system_out(f, r);
    fputs("    </testcase>\n", f);
}

/* The counts and the time shared by <testsuites> and <testsuite>. */
static void junit_counts(FILE *f, size_t n, const totals *t)
{
    fprintf(f, "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\"", n, t->n[OUTCOME_FAIL],
            t->n[OUTCOME_ERROR]);
    fputs(" time=\"", f);
    put_seconds(f, t->wall_ms);
    fputc('"', f);
}

/* The whole report. Suite properties record how the check ran: the ksim
 * version, --seed when given and every --set. Only <testsuite> may say
 * how many were skipped. */
static void junit_write(FILE *f, const check_opts *o, const scen_result *res, size_t n,
                        const totals *t)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fputs("<testsuites name=\"ksim check\" ", f);
    junit_counts(f, n, t);
    fputs(">\n  <testsuite name=\"ksim\" ", f);
    junit_counts(f, n, t);
    fprintf(f, " skipped=\"%zu\">\n", t->n[OUTCOME_SKIP]);
    fputs("    <properties>\n", f);
    junit_property(f, "      ", "ksim.version", KS_VERSION);
    if (o->has_seed) {
        char num[32];
        snprintf(num, sizeof num, "%" PRIu64, o->seed);
        junit_property(f, "      ", "seed", num);
    }
    for (size_t i = 0; i < o->n_ovr; i++) {
        ks_sbuf arg = {0};
        ks_sb_printf(&arg, "%s=%s", o->ovr[i].path, o->ovr[i].value);
        junit_property(f, "      ", "set", or_empty(arg.oom ? NULL : arg.s));
        ks_sb_free(&arg);
    }
    fputs("    </properties>\n", f);
    for (size_t i = 0; i < n; i++)
        junit_testcase(f, &res[i]);
    fputs("  </testsuite>\n</testsuites>\n", f);
}

/* ---- the command ---------------------------------------------------- */

/* The monotonic clock in nanoseconds; 0 when it cannot be read. */
static int64_t monotonic_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Runs one file and records, rounded to the millisecond, the wall-clock
 * time it took (never below 0, should the clock fail between the two
 * readings). */
static void run_timed(const check_opts *o, const char *file, scen_result *r)
{
    int64_t start = monotonic_ns();
    run_one(o, file, r);
    int64_t took = monotonic_ns() - start;
    r->wall_ms = took > 0 ? (took + 500000) / 1000000 : 0;
}

/* Runs every file, reporting as it goes; fills res and t. */
static void run_all(const check_opts *o, const file_list *files, scen_result *res, totals *t,
                    FILE *out)
{
    if (o->tap)
        fprintf(out, "TAP version 13\n1..%zu\n", files->n);
    ks_status_flush(out);
    for (size_t i = 0; i < files->n; i++) {
        run_timed(o, files->v[i], &res[i]);
        t->n[res[i].what]++;
        t->wall_ms += res[i].wall_ms;
        if (o->tap)
            report_tap(out, i + 1, &res[i]);
        else
            report_human(out, o, &res[i]);
        ks_status_flush(out); /* a CI log shows each scenario as it ends */
    }
    report_totals(out, o, files->n, t);
    ks_status_flush(out);
}

/* Runs the check once the options are parsed; returns the exit code. */
static int check(const check_opts *o)
{
    static const char *const default_paths[] = {"scenarios"};
    file_list files = {0};
    int rc = o->n_paths ? collect_files(o->paths, o->n_paths, &files)
                        : collect_files(default_paths, 1, &files);
    char err[512];
    ks_outfile junit = {0};
    if (rc == 0 && o->junit && !ks_outfile_open(&junit, o->junit, err, sizeof err)) {
        ks_status_fail("check", "%s", err);
        rc = KS_EXIT_USAGE;
    }
    scen_result *res = rc == 0 ? calloc(files.n, sizeof *res) : NULL;
    if (rc == 0 && !res) {
        ks_status_fail("check", "out of memory");
        if (o->junit)
            ks_outfile_abort(&junit);
        rc = KS_EXIT_USAGE;
    }
    if (rc != 0) {
        list_free(&files);
        return rc;
    }
    bool junit_stdout = o->junit && strcmp(o->junit, "-") == 0;
    totals t = {{0}, 0};
    run_all(o, &files, res, &t, junit_stdout ? stderr : stdout);
    rc = t.n[OUTCOME_FAIL] || t.n[OUTCOME_ERROR] ? KS_EXIT_EXPECT : KS_EXIT_OK;
    if (o->junit) {
        junit_write(junit.f, o, res, files.n, &t);
        if (!ks_outfile_commit(&junit, err, sizeof err)) {
            ks_status_fail("check", "%s", err);
            rc = KS_EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < files.n; i++)
        result_free(&res[i]);
    free(res);
    list_free(&files);
    return rc;
}

int ks_cmd_check(int argc, char **argv)
{
    check_opts *o = calloc(1, sizeof *o);
    if (!o) {
        ks_status_fail("check", "out of memory");
        return KS_EXIT_USAGE;
    }
    int rc = parse_args(argc, argv, o);
    if (rc == 0)
        rc = check(o);
    else if (rc < 0)
        rc = KS_EXIT_OK;
    for (size_t i = 0; i < o->n_ovr; i++)
        free((char *)o->ovr[i].path);
    free(o->paths);
    free(o);
    return rc;
}
