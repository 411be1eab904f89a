/*
 * report.c - `ksim report`: charts and a page from one or more runs (see
 * commands.h).
 *
 * Owns: reading traces as streams (one line at a time through
 * tools/trace_line.h, so a trace of any size costs the memory of its
 * longest line plus two histograms; the data rows wait in temporary
 * files), checking the type of every trace and summary field it reads
 * (a wrong one is an error, naming the file, the line and the field),
 * the data files under DIR/data (written only once every run was read:
 * a run that cannot be read leaves nothing behind), the gnuplot scripts made from the templates
 * in reports/ (placeholders @COMMON@, @PLOT@, @PLOT2@, @YMAX@), running gnuplot
 * on them, and the two pages, DIR/report.md and DIR/index.html, built
 * from one document model so that they always say the same. Every file
 * ksim writes goes through sim/outfile.h; gnuplot writes its images under
 * NAME.EXT.tmp and they are renamed when gnuplot succeeds. Nothing time-
 * or machine-dependent goes into any output: the same runs and options
 * give the same bytes.
 *
 * POSIX: stat, readlink, fork/execvp/waitpid (gnuplot runs in DIR, so
 * the scripts name their files relative to it and DIR can be moved).
 */
#define _POSIX_C_SOURCE 200809L

#include "tools/commands.h"

#include "ks_version.h"
#include "sim/histogram.h"
#include "models/check/verdicts.h"
#include "models/kafka/config.h"
#include "sim/outfile.h"
#include "sim/str.h"
#include "tools/chart.h"
#include "tools/options.h"
#include "tools/numfmt.h"
#include "tools/status.h"
#include "tools/templates.h"
#include "tools/trace_line.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

const char ks_usage_report[] =
    "usage: ksim report RUN... [-o DIR] [--templates DIR] [--format png|svg|both]\n"
    "\n"
    "Draws charts of one or more runs and writes a page about them. A RUN is\n"
    "a trace (trace.jsonl, any --trace-level) or a directory holding\n"
    "trace.jsonl and summary.json, as `ksim run --out` leaves them; for a\n"
    "trace file, the summary.json beside it is used when it belongs to the\n"
    "same scenario and seed. Several runs are drawn on the same axes, each\n"
    "labelled with its scenario's name; runs of one scenario are told apart\n"
    "by what differs between them: seed, Kafka version, the producers'\n"
    "partitioner and configs (e.g. \"rr-vs-sticky linger.ms=0\"; \"#I\", the\n"
    "run's place, when nothing does). Traces are read one line at a time.\n"
    "\n"
    "Charts, drawn by gnuplot from the templates in the templates directory:\n"
    "  throughput     records/s and MB/s per metrics bucket   (metrics lines)\n"
    "  latency        p50 and p99 latency per metrics bucket  (metrics lines)\n"
    "  requests       produce requests per second             (metrics lines)\n"
    "  latency-percentiles\n"
    "                 latency by percentile, as HdrHistogram draws it: p50,\n"
    "                 p90, p99, p99.9 ... equally apart on a log axis\n"
    "                                     (ack lines: --trace-level record)\n"
    "  batch-size     records per batch           (drain lines: --trace-level batch)\n"
    "  delivery       the delivery checker's counts per run, as bars: lost,\n"
    "                 duplicate, reordered, failed but present; failed and\n"
    "                 absent (what at-most-once loses) and indeterminate\n"
    "                 when a run has one; aborted read, zombie write visible,\n"
    "                 torn transaction, precommitted read and processed twice\n"
    "                 for runs with transactions or consumers\n"
    "                                                         (summary.json)\n"
    "  consumers      records read per consumer, and how many of them belong\n"
    "                 to aborted transactions   (summary.json, with consumers)\n"
    "On the time charts, rates start at 0; a bucket that completed nothing\n"
    "breaks the latency lines; the last bucket, cut short by the run's end,\n"
    "is an open point apart from the line; each run's faults are bands of\n"
    "its colour, named in the legend; runs more than 10 times apart in scale\n"
    "get panels of their own. A chart whose lines are missing from every run\n"
    "is left out, with a note saying what it needs.\n"
    "\n"
    "Outputs in DIR: report.md and index.html (runs, parameters, summary\n"
    "table, charts; index.html opens in a browser with no server), NAME.png\n"
    "and/or NAME.svg and NAME.gp per chart (run `gnuplot NAME.gp` in DIR to\n"
    "draw it again), and the plotted columns in data/*.dat. No time stamps:\n"
    "the same runs give the same bytes.\n"
    "\n"
    "options:\n"
    "  -o, --out DIR       output directory (default ksim-report; created)\n"
    "  --templates DIR     where the templates are (common.gp and one NAME.gp per\n"
    "                      chart); default: $KSIM_REPORTS_DIR, else ./reports,\n"
    "                      else reports/ or share/ksim/reports beside the\n"
    "                      directory of the ksim executable (the source tree's\n"
    "                      for a build in it; the installed ones), else the\n"
    "                      copies built into ksim\n"
    "  --format F          png, svg or both (default both)\n"
    "  -h, --help          show this help\n"
    "\n"
    "gnuplot is run from PATH, or as $KSIM_GNUPLOT when set. When it is\n"
    "missing or fails, the data files, the scripts and both pages are still\n"
    "written (the pages say which charts were not drawn) and the exit status\n"
    "is 2.\n"
    "\n"
    "exit status: 0 the report and every chart were written,\n"
    "             2 bad usage, a RUN that does not exist or is not a ksim\n"
    "               trace, missing templates, an output that cannot be\n"
    "               written, or gnuplot missing or failing\n";

/* ---- strings -------------------------------------------------------- */

static char *fmt_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A formatted, allocated string (NULL when memory ran out). */
static char *fmt_str(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Appends s as a gnuplot single-quoted string ('' stands for ', and a
 * control character, which would end the line, becomes '?'). */
static void sb_gp_string(ks_sbuf *b, const char *s)
{
    ks_sb_add(b, "'", 1);
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7F)
            ks_sb_add(b, "?", 1);
        else
            ks_sb_add(b, s, 1 + (*s == '\''));
    }
    ks_sb_add(b, "'", 1);
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- options -------------------------------------------------------- */

typedef struct report_opts {
    const char **runs;
    size_t n_runs;
    const char *out;
    const char *templates; /* NULL: looked for (see find_templates) */
    bool png, svg;
} report_opts;

enum { REPORT_HELP = 'h', REPORT_OUT = 'o', REPORT_TEMPLATES = 256, REPORT_FORMAT };

static const ks_opt_def report_options[] = {
    {REPORT_HELP, 'h', "help", false},
    {REPORT_OUT, 'o', "out", true},
    {REPORT_TEMPLATES, '\0', "templates", true},
    {REPORT_FORMAT, '\0', "format", true},
};

/* Handles one option (p->value its value). Returns 0 to go on, -1 after
 * --help, or KS_EXIT_USAGE (message printed). */
static int parse_option(int id, const ks_opt_parser *p, report_opts *o)
{
    const char *v = p->value;
    switch (id) {
    case REPORT_HELP:
        fputs(ks_usage_report, stdout);
        return -1;
    case REPORT_OUT:
        if (!*v)
            return ks_status_usage("report", "%s: expected a directory", p->name);
        o->out = v;
        break;
    case REPORT_TEMPLATES:
        if (!*v)
            return ks_status_usage("report", "--templates: expected a directory");
        o->templates = v;
        break;
    case REPORT_FORMAT:
        o->png = strcmp(v, "png") == 0 || strcmp(v, "both") == 0;
        o->svg = strcmp(v, "svg") == 0 || strcmp(v, "both") == 0;
        if (!o->png && !o->svg)
            return ks_status_usage("report", "--format: expected png, svg or both, got '%s'", v);
        break;
    }
    return 0;
}

/* Fills o from argv (argv[1] is "report"). Returns 0 to go on, -1 after
 * --help, or KS_EXIT_USAGE (message printed). */
static int parse_args(int argc, char **argv, report_opts *o)
{
    o->runs = malloc((size_t)argc * sizeof *o->runs);
    if (!o->runs)
        return ks_status_fail("report", "out of memory");
    o->out = "ksim-report";
    o->png = o->svg = true;
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 2, report_options, sizeof report_options / sizeof *report_options,
                false);
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END;) {
        int rc = 0;
        if (id == KS_OPT_ERROR)
            rc = ks_status_usage("report", "%s", p.error);
        else if (id == KS_OPT_OPERAND && strcmp(p.value, "-") == 0)
            rc = ks_status_usage("report", "a RUN is a trace file or a run directory, "
                                           "not standard input ('-')");
        else if (id == KS_OPT_OPERAND)
            o->runs[o->n_runs++] = p.value;
        else
            rc = parse_option(id, &p, o);
        if (rc != 0)
            return rc;
    }
    if (o->n_runs == 0)
        return ks_status_usage("report", "expected at least one RUN (a trace or a run directory)");
    return 0;
}

/* ---- one run -------------------------------------------------------- */

/* One metrics bucket (a metrics line's values). */
typedef struct mrow {
    int64_t t, from, acked, bytes, requests, p50, p99;
    bool set;
} mrow;

/* The values a time chart's scale is taken from: records/s, MB/s,
 * requests/s and p99 latency (ms). */
enum { MV_RECORDS, MV_MB, MV_REQUESTS, MV_P99, MV__COUNT };

/* A fault window begun (a `phase: begin` line) and not yet ended. */
typedef struct open_fault {
    int64_t fault, from;
    char *type;
} open_fault;

typedef struct run_data {
    const char *arg;   /* as given */
    char *trace;       /* the trace's path */
    char *summary_path; /* NULL: no summary */
    json_t *resolved, *derived; /* the header's objects (NULL: none) */
    json_t *summary;   /* NULL: no summary */
    char *summary_note; /* why a summary beside the trace was not used */
    char *scenario, *kafka, *level;
    uint64_t seed;
    char *label;
    FILE *metrics_rows, *fault_rows; /* the data rows, until every run was read */
    size_t metrics, faults, drains, acks; /* lines read of each kind */
    bool any_latency;  /* a metrics bucket completed records */
    int64_t bucket_ns; /* the scenario's metrics.bucket.ms */
    int64_t t_end;     /* the time of the trace's last line */
    mrow held;         /* the last bucket read: written when the next comes */
    mrow partial;      /* the last bucket, when shorter than bucket_ns */
    size_t full;       /* buckets written to metrics_rows */
    double max_value[MV__COUNT]; /* the largest of each over the buckets */
    open_fault *open;  /* fault windows begun, not yet ended */
    size_t n_open, cap_open;
    ks_sbuf fault_types; /* the types of the faults that struck, ", " apart */
    ks_hist latency;   /* ack latency_ns */
    ks_hist batch;     /* drain records */
} run_data;

static void run_free(run_data *r)
{
    free(r->trace);
    free(r->summary_path);
    free(r->summary_note);
    free(r->label);
    free(r->scenario);
    free(r->kafka);
    free(r->level);
    json_decref(r->resolved);
    json_decref(r->derived);
    json_decref(r->summary);
    if (r->metrics_rows)
        fclose(r->metrics_rows);
    if (r->fault_rows)
        fclose(r->fault_rows);
    for (size_t i = 0; i < r->n_open; i++)
        free(r->open[i].type);
    free(r->open);
    free(ks_sb_take(&r->fault_types));
    ks_hist_free(&r->latency);
    ks_hist_free(&r->batch);
}

static char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    return fmt_str("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

/* The directory part of a file's path ("." when it has none). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ks_strdup(".");
    return ks_strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* Finds the trace and the summary of r->arg. */
static int resolve_paths(run_data *r)
{
    char *dir;
    if (dir_exists(r->arg)) {
        r->trace = path_join(r->arg, "trace.jsonl");
        dir = ks_strdup(r->arg);
    } else if (file_exists(r->arg)) {
        r->trace = ks_strdup(r->arg);
        dir = dir_of(r->arg);
    } else {
        ks_status_fail("report", "%s: no such trace or run directory", r->arg);
        return KS_EXIT_USAGE;
    }
    char *summary = dir ? path_join(dir, "summary.json") : NULL;
    free(dir);
    if (!r->trace || !summary) {
        free(summary);
        ks_status_fail("report", "out of memory");
        return KS_EXIT_USAGE;
    }
    if (!file_exists(r->trace)) {
        ks_status_fail("report", "%s: no trace.jsonl in this directory", r->arg);
        free(summary);
        return KS_EXIT_USAGE;
    }
    if (file_exists(summary))
        r->summary_path = summary;
    else
        free(summary);
    return 0;
}

/* Checks the header's objects where the report reads them: each derived
 * producer's id, partitioner and config (its values are shown as they
 * are), and the scenario's description. */
static void check_model(ks_tl_error *te, const json_t *res, const json_t *der)
{
    const json_t *ps = ks_tl_jget(te, der, "derived", "producers", KS_TLT_ARRAY), *p;
    char at[64], idx[32];
    size_t i;
    json_array_foreach(ps, i, p) {
        snprintf(at, sizeof at, "derived.producers[%zu]", i);
        snprintf(idx, sizeof idx, "[%zu]", i);
        if (!json_is_object(p))
            ks_tl_jfail(te, "derived.producers", idx, KS_TLT_OBJECT, p);
        ks_tl_jget(te, p, at, "id", KS_TLT_STRING);
        ks_tl_jget(te, p, at, "partitioner", KS_TLT_STRING);
        ks_tl_jget(te, p, at, "config", KS_TLT_OBJECT);
    }
    ks_tl_jget(te, res, "resolved", "description", KS_TLT_STRING);
}

static char *dup_or(const char *s, const char *def)
{
    return ks_strdup(s ? s : def);
}

/* Line 1; false (err set) when it is not a ksim trace header of format 1
 * or a field the report reads has the wrong type. */
static bool read_header(run_data *r, ks_tline *h, char *err, size_t errlen)
{
    if (h->kind != KS_TR_HEADER || !ks_tl_has(h, "format")) {
        snprintf(err, errlen, "%s: not a ksim trace (its first line is no header)", r->trace);
        return false;
    }
    int64_t format = ks_tl_int(h, "format", -1);
    r->scenario = dup_or(ks_tl_str(h, "scenario", NULL), "?");
    r->kafka = dup_or(ks_tl_str(h, "kafka", NULL), "?");
    r->level = dup_or(ks_tl_str(h, "level", NULL), "?");
    r->seed = (uint64_t)ks_tl_int(h, "seed", 0);
    r->resolved = ks_tl_object(h, "resolved");
    r->derived = ks_tl_object(h, "derived");
    const json_t *bucket = json_object_get(json_object_get(r->resolved, "metrics"), "bucket.ms");
    r->bucket_ns = json_is_integer(bucket) ? (int64_t)json_integer_value(bucket) * 1000000 : 0;
    ks_tl_error te = {0};
    if (!ks_tline_error(h))
        check_model(&te, r->resolved, r->derived);
    const char *why = ks_tline_error(h) ? ks_tline_error(h) : te.set ? te.text : NULL;
    if (why)
        snprintf(err, errlen, "%s:1: %s", r->trace, why);
    else if (format != 1)
        snprintf(err, errlen, "%s: trace format %" PRId64 " (this ksim reads 1)", r->trace,
                 format);
    else if (!r->scenario || !r->kafka || !r->level)
        snprintf(err, errlen, "out of memory");
    return !why && format == 1 && r->scenario && r->kafka && r->level;
}

/* Writes a time in ns as seconds, exactly. */
static void put_seconds(FILE *f, int64_t ns)
{
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%" PRId64 ".%09" PRId64, ns / 1000000000, ns % 1000000000);
}

/* Writes s as a double-quoted string of a gnuplot data file (a '"' in it
 * becomes '\'', a control character '?'). */
static void dat_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        fputc(*s == '"' ? '\'' : (unsigned char)*s < 0x20 || *s == 0x7F ? '?' : *s, f);
    fputc('"', f);
}

/* The values of a bucket the time charts draw: records/s, MB/s,
 * requests/s, and the p99 latency in ms (-1 when it completed nothing). */
static void row_values(const mrow *m, double v[MV__COUNT])
{
    double secs = (double)(m->t > m->from ? m->t - m->from : 1) / 1e9;
    v[MV_RECORDS] = (double)m->acked / secs;
    v[MV_MB] = (double)m->bytes / secs / 1e6;
    v[MV_REQUESTS] = (double)m->requests / secs;
    v[MV_P99] = m->acked > 0 ? (double)m->p99 / 1e6 : -1;
}

/* One row of data/runN-metrics.dat (or runN-partial.dat) for bucket m;
 * NaN for the latencies of a bucket that completed no record, so that
 * gnuplot breaks the line there instead of drawing across it. */
static void put_row(FILE *f, const mrow *m)
{
    double v[MV__COUNT];
    row_values(m, v);
    put_seconds(f, m->t);
    fputc(' ', f);
    put_seconds(f, m->from);
    fprintf(f, " %" PRId64 " %.3f %.6f %" PRId64 " %.3f", m->acked, v[MV_RECORDS], v[MV_MB],
            m->requests, v[MV_REQUESTS]);
    if (m->acked > 0)
        fprintf(f, " %.6f %.6f\n", (double)m->p50 / 1e6, (double)m->p99 / 1e6);
    else
        fputs(" NaN NaN\n", f);
}

/* Counts bucket m into the run's largest values. */
static void note_max(run_data *r, const mrow *m)
{
    double v[MV__COUNT];
    row_values(m, v);
    for (int i = 0; i < MV__COUNT; i++)
        if (v[i] > r->max_value[i])
            r->max_value[i] = v[i];
}

/* Writes the bucket held back (f NULL: none) as a full one. */
static void flush_held(run_data *r, FILE *f)
{
    if (!r->held.set)
        return;
    if (f)
        put_row(f, &r->held);
    note_max(r, &r->held);
    r->full++;
    r->held.set = false;
}

/* A metrics line: the bucket before it is written; this one is held
 * back until the next comes, since the last bucket of a run may be cut
 * short by its end (see end_metrics). */
static void take_metrics(run_data *r, ks_tline *m)
{
    flush_held(r, r->metrics_rows);
    r->held = (mrow){.t = m->t,
                     .from = ks_tl_int(m, "from", 0),
                     .acked = ks_tl_int(m, "acked", 0),
                     .bytes = ks_tl_int(m, "bytes", 0),
                     .requests = ks_tl_int(m, "requests", 0),
                     .p50 = ks_tl_int(m, "latency_p50_ns", 0),
                     .p99 = ks_tl_int(m, "latency_p99_ns", 0),
                     .set = true};
    r->any_latency = r->any_latency || r->held.acked > 0;
}

/* The end of the trace: the last bucket is a full one, or a partial one
 * that the charts draw apart (an open point, no line to it; the axes
 * make room for it). */
static void end_metrics(run_data *r)
{
    if (r->held.set && r->held.t - r->held.from < r->bucket_ns) {
        r->partial = r->held;
        r->held.set = false;
        note_max(r, &r->partial);
    }
    flush_held(r, r->metrics_rows);
}

/* One row of data/runN-faults.dat (f NULL: none): the window a fault
 * covered, from and to (equal for a fault of an instant). */
static void put_fault_row(FILE *f, int64_t from, int64_t to, int64_t fault, const char *type)
{
    if (!f)
        return;
    put_seconds(f, from);
    fputc(' ', f);
    put_seconds(f, to);
    fprintf(f, " %" PRId64 " ", fault);
    dat_string(f, type);
    fputc('\n', f);
}

/* Adds type to the run's list of fault types when it is new. */
static void note_fault_type(run_data *r, const char *type)
{
    ks_sbuf *b = &r->fault_types;
    const char *seen = b->s;
    size_t len = strlen(type);
    for (const char *p = seen; p && (p = strstr(p, type)) != NULL; p += len)
        if ((p == seen || p[-1] == ' ') && (p[len] == ',' || p[len] == '\0'))
            return;
    if (b->len)
        ks_sb_puts(b, ", ");
    ks_sb_puts(b, type);
}

/* A fault line. A window (link.down, pause.*) is a row from its begin
 * line to its end line; a delay covers the time its message was held
 * (from at_t, when the decision came earlier, for delay_ns); any other
 * fault is an instant. */
static void take_fault(run_data *r, ks_tline *m)
{
    const char *type = ks_tl_str(m, "type", "?"), *phase = ks_tl_str(m, "phase", "-");
    int64_t fault = ks_tl_int(m, "fault", 0);
    note_fault_type(r, type);
    if (strcmp(phase, "begin") == 0) {
        if (r->n_open == r->cap_open) {
            size_t cap = r->cap_open ? 2 * r->cap_open : 4;
            open_fault *v = realloc(r->open, cap * sizeof *v);
            if (!v)
                return; /* drawn as an instant at its end: no worse than before */
            r->open = v;
            r->cap_open = cap;
        }
        r->open[r->n_open++] = (open_fault){fault, m->t, ks_strdup(type)};
        return;
    }
    int64_t from = m->t, to = m->t;
    if (strcmp(phase, "end") == 0) {
        for (size_t i = 0; i < r->n_open; i++)
            if (r->open[i].fault == fault) {
                from = r->open[i].from;
                free(r->open[i].type);
                r->open[i] = r->open[--r->n_open];
                break;
            }
    } else if (ks_tl_has(m, "delay_ns")) {
        from = ks_tl_int(m, "at_t", m->t);
        to = from + ks_tl_int(m, "delay_ns", 0);
    }
    put_fault_row(r->fault_rows, from, to, fault, type);
}

/* The windows still open when the trace ended reach its end. */
static void end_faults(run_data *r)
{
    for (size_t i = 0; i < r->n_open; i++) {
        put_fault_row(r->fault_rows, r->open[i].from, r->t_end, r->open[i].fault,
                      r->open[i].type ? r->open[i].type : "?");
        free(r->open[i].type);
    }
    r->n_open = 0;
}

/* Takes one trace line: the metrics and fault rows, the drains' records
 * and the latencies of the records acknowledged without error. */
static void take_line(run_data *r, ks_tline *m)
{
    r->t_end = m->t > r->t_end ? m->t : r->t_end;
    switch (m->kind) {
    case KS_TR_METRICS:
        take_metrics(r, m);
        r->metrics++;
        break;
    case KS_TR_FAULT:
        take_fault(r, m);
        r->faults++;
        break;
    case KS_TR_DRAIN:
        ks_hist_add(&r->batch, ks_tl_int(m, "records", 0));
        r->drains++;
        break;
    case KS_TR_ACK: {
        const char *err = ks_tl_str(m, "error", NULL);
        int64_t latency = ks_tl_int(m, "latency_ns", 0);
        if (ks_tl_has(m, "latency_ns") && (!err || strcmp(err, "NONE") == 0)) {
            ks_hist_add(&r->latency, latency);
            r->acks++;
        }
        break;
    }
    case KS_TR_HEADER: case KS_TR_END: case KS_TR_ADMIN: case KS_TR_METADATA:
    case KS_TR_PRODUCE: case KS_TR_SEND: case KS_TR_ARRIVE: case KS_TR_APPEND:
    case KS_TR_RESPONSE: case KS_TR_CONSUME: case KS_TR_OFFSET_COMMIT: case KS_TR_FORWARD:
    case KS_TR_RETRY: case KS_TR_SPLIT: case KS_TR_PRODUCER: case KS_TR_TXN: case KS_TR_MARKER:
    case KS_TR_DISCONNECT:
    case KS_TR_EVENT: case KS_TR__COUNT:
        break; /* parsed all the same: every line must be a trace record */
    }
}

/* Reads a trace from in: its header, then every line (see take_line).
 * False with err set when it is no ksim trace, a line is no trace
 * record, or a field the report reads has the wrong type. */
static bool read_stream(run_data *r, FILE *in, char *err, size_t errlen)
{
    ks_tl_reader rd;
    ks_tl_reader_init(&rd, in);
    ks_tline l;
    ks_tline_init(&l);
    int got = ks_tl_next(&rd, &l);
    bool ok = got > 0 && read_header(r, &l, err, errlen);
    if (got == 0)
        snprintf(err, errlen, "%s: not a ksim trace (empty)", r->trace);
    else if (got < 0)
        snprintf(err, errlen, "%s:%" PRIu64 ": not a ksim trace (its first line is no header): "
                 "%s", r->trace, rd.line_no, rd.err);
    while (ok && (got = ks_tl_next(&rd, &l)) > 0) {
        take_line(r, &l);
        if (ks_tline_error(&l)) {
            snprintf(err, errlen, "%s:%" PRIu64 ": %s", r->trace, rd.line_no, ks_tline_error(&l));
            ok = false;
        }
    }
    if (ok && got < 0) {
        snprintf(err, errlen, "%s:%" PRIu64 ": %s", r->trace, rd.line_no, rd.err);
        ok = false;
    }
    if (ok) {
        end_metrics(r);
        end_faults(r);
    }
    ks_tline_free(&l);
    ks_tl_reader_free(&rd);
    return ok;
}

/* Reads run r's trace, its metrics and fault rows into temporary files
 * (nothing is written under DIR before every run was read). */
static int read_trace(run_data *r)
{
    char err[1024];
    FILE *in = fopen(r->trace, "rb");
    if (!in) {
        ks_status_fail("report", "%s: %s", r->trace, strerror(errno));
        return KS_EXIT_USAGE;
    }
    r->metrics_rows = tmpfile();
    r->fault_rows = tmpfile();
    bool ok = r->metrics_rows && r->fault_rows;
    if (!ok)
        snprintf(err, sizeof err, "a temporary file: %s", strerror(errno));
    ok = ok && read_stream(r, in, err, sizeof err);
    if (ok && (ferror(r->metrics_rows) || ferror(r->fault_rows))) {
        snprintf(err, sizeof err, "a temporary file: write error");
        ok = false;
    }
    if (!ok)
        ks_status_fail("report", "%s", err);
    fclose(in);
    return ok ? 0 : KS_EXIT_USAGE;
}

/* Opens DIR/data/runN-WHAT.dat (DIR/data/WHAT.dat for n 0, data of all
 * the runs) and writes its column line unless `columns` is NULL; false
 * with a message printed. */
static bool open_data(ks_outfile *of, const char *dir, size_t n, const char *what,
                      const char *columns)
{
    char err[512];
    char *path = n ? fmt_str("%s/data/run%zu-%s.dat", dir, n, what)
                   : fmt_str("%s/data/%s.dat", dir, what);
    bool ok = path && ks_outfile_open(of, path, err, sizeof err);
    if (!ok)
        ks_status_fail("report", "%s", path ? err : "out of memory");
    else if (columns)
        fprintf(of->f, "# %s\n", columns);
    free(path);
    return ok;
}

static bool commit_data(ks_outfile *of)
{
    char err[512];
    if (ks_outfile_commit(of, err, sizeof err))
        return true;
    ks_status_fail("report", "%s", err);
    return false;
}

#define METRICS_COLUMNS                                                                    \
    "t_s from_s acked records_per_s MB_per_s requests requests_per_s p50_ms p99_ms"

/* Writes DIR/data/runN-partial.dat: the run's last bucket, cut short by
 * its end (its rates are over the time it covered). */
static bool write_partial(const run_data *r, size_t n, const char *dir)
{
    ks_outfile of = {0};
    if (!open_data(&of, dir, n, "partial", METRICS_COLUMNS))
        return false;
    put_row(of.f, &r->partial);
    return commit_data(&of);
}

/* Writes DIR/data/runN-WHAT.dat from the rows kept in `rows`. */
static bool write_rows(FILE *rows, const char *dir, size_t n, const char *what,
                       const char *columns)
{
    ks_outfile of = {0};
    if (!open_data(&of, dir, n, what, columns))
        return false;
    char buf[65536];
    size_t got;
    rewind(rows);
    while ((got = fread(buf, 1, sizeof buf, rows)) > 0)
        fwrite(buf, 1, got, of.f);
    if (ferror(rows)) {
        ks_status_fail("report", "a temporary file: read error");
        ks_outfile_abort(&of);
        return false;
    }
    return commit_data(&of);
}

/* Every summary value the report reads or shows, with its type: these,
 * then the delivery checker's counts (verdicts.h), then
 * delivery.records.failed (for the delivery bars; not a row of the table). */
typedef enum cell_fmt { CF_PLAIN, CF_MS, CF_MBPS } cell_fmt;

static const struct summary_row {
    const char *name, *path;
    cell_fmt f;
    unsigned want;
} summary_rows[] = {
    {"verdict", "verdict", CF_PLAIN, KS_TLT_STRING},
    {"virtual time (ms)", "time_ns", CF_MS, KS_TLT_INT},
    {"records produced", "records.produced", CF_PLAIN, KS_TLT_INT},
    {"records acked", "records.acked", CF_PLAIN, KS_TLT_INT},
    {"records failed", "records.failed", CF_PLAIN, KS_TLT_INT},
    {"records unresolved", "records.unresolved", CF_PLAIN, KS_TLT_INT},
    {"latency avg (ms)", "latency_ns.mean", CF_MS, KS_TLT_INT | KS_TLT_REAL},
    {"latency p50 (ms)", "latency_ns.p50", CF_MS, KS_TLT_INT},
    {"latency p95 (ms)", "latency_ns.p95", CF_MS, KS_TLT_INT},
    {"latency p99 (ms)", "latency_ns.p99", CF_MS, KS_TLT_INT},
    {"latency p99.9 (ms)", "latency_ns.p999", CF_MS, KS_TLT_INT},
    {"latency max (ms)", "latency_ns.max", CF_MS, KS_TLT_INT},
    {"throughput (records/s)", "throughput.records_per_sec", CF_PLAIN, KS_TLT_INT | KS_TLT_REAL},
    {"throughput (MB/s)", "throughput.bytes_per_sec", CF_MBPS, KS_TLT_INT | KS_TLT_REAL},
};

/* The summary's path of a delivery count ("delivery.lost"); false for a
 * count the summary does not hold (a DERIVED one). */
static bool delivery_path(ks_verdict v, char *buf, size_t n)
{
    snprintf(buf, n, "delivery.%s", ks_verdict_key(v));
    return ks_verdict_info_of(v)->cls != KS_VC_DERIVED;
}

/* Checks the type of every summary field the report reads. */
static void check_summary(ks_tl_error *te, const json_t *s)
{
    char path[64];
    ks_tl_jget(te, s, "", "delivery", KS_TLT_OBJECT | KS_TLT_NULL);
    for (size_t i = 0; i < sizeof summary_rows / sizeof *summary_rows; i++)
        ks_tl_jpath(te, s, summary_rows[i].path, summary_rows[i].want);
    for (int v = 0; v < KS_VERDICT__COUNT; v++)
        if (delivery_path((ks_verdict)v, path, sizeof path))
            ks_tl_jpath(te, s, path, KS_TLT_INT);
    ks_tl_jpath(te, s, "delivery.records.failed", KS_TLT_INT); /* the delivery bars */
    const json_t *cs = ks_tl_jget(te, s, "", "consumers", KS_TLT_OBJECT), *c;
    const char *id;
    char at[160];
    json_object_foreach((json_t *)cs, id, c) {
        snprintf(at, sizeof at, "consumers.%.120s", id);
        if (!json_is_object(c))
            ks_tl_jfail(te, "consumers", id, KS_TLT_OBJECT, c);
        ks_tl_jget(te, c, at, "isolation_level", KS_TLT_STRING);
        ks_tl_jget(te, c, at, "records", KS_TLT_INT);
        ks_tl_jget(te, c, at, "read_aborted", KS_TLT_INT);
    }
}

/* Loads the summary beside the trace, keeping it only when it is of the
 * same scenario and seed (else r->summary_note says why not). False
 * (message printed) when a field the report reads has the wrong type. */
static bool read_summary(run_data *r)
{
    if (!r->summary_path)
        return true;
    json_error_t jerr;
    json_t *s = json_load_file(r->summary_path, 0, &jerr);
    ks_tl_error te = {0};
    const char *name = ks_tl_jstr(&te, s, "", "scenario", NULL);
    int64_t seed = ks_tl_jint(&te, s, "", "seed", 0);
    bool ours = !te.set && name && strcmp(name, r->scenario) == 0 && (uint64_t)seed == r->seed;
    if (ours)
        check_summary(&te, s);
    if (te.set) {
        ks_status_fail("report", "%s: %s", r->summary_path, te.text);
        json_decref(s);
        return false;
    }
    if (ours) {
        r->summary = s;
        return true;
    }
    if (!json_is_object(s) || !name)
        r->summary_note = fmt_str("%s is not a ksim summary", r->summary_path);
    else
        r->summary_note = fmt_str("%s is of another run (%s, seed %" PRId64 ")",
                                  r->summary_path, name, seed);
    json_decref(s);
    free(r->summary_path);
    r->summary_path = NULL;
    return true;
}

/* The value at a dotted path of a summary (its types were checked when
 * it was read), NULL when absent. */
static const json_t *jpath(const json_t *o, const char *dotted)
{
    ks_tl_error unused = {0};
    return ks_tl_jpath(&unused, o, dotted, ~0u);
}

/* A JSON value as a table cell: strings bare, others compact JSON, "-"
 * for none. */
static char *json_cell(const json_t *v)
{
    if (!v)
        return ks_strdup("-");
    if (json_is_string(v))
        return ks_strdup(json_string_value(v));
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    char *copy = s ? ks_strdup(s) : NULL;
    free(s);
    return copy;
}


/* The derived producer of run r with this id (NULL: none). */
static const json_t *producer_of(const run_data *r, const char *id)
{
    const json_t *ps = json_object_get(r->derived, "producers"), *p;
    size_t i;
    json_array_foreach(ps, i, p) {
        const char *pid = json_string_value(json_object_get(p, "id"));
        if (pid && strcmp(pid, id) == 0)
            return p;
    }
    return NULL;
}

/* A producer's value of key: "partitioner" is the partitioner in
 * effect, every other key an effective config. */
static const json_t *param_of(const run_data *r, const char *id, const char *key)
{
    const json_t *p = producer_of(r, id);
    if (strcmp(key, "partitioner") == 0)
        return json_object_get(p, "partitioner");
    return json_object_get(json_object_get(p, "config"), key);
}

/* The keys of a producer's config in ksim's order (KS_PRODUCER_CONFIGS),
 * then any other in the trace's order, so that the labels and the
 * parameter table do not depend on how the trace orders its keys. An
 * allocated array of json_object_size(config) keys; NULL when there are
 * none or memory ran out (*oom). */
static const char **config_keys(const json_t *config, bool *oom)
{
    static const char *const known[] = {
#define X(e, name) name,
        KS_PRODUCER_CONFIGS(X)
#undef X
    };
    size_t n = json_object_size(config), k = 0;
    const char **keys = n ? malloc(n * sizeof *keys) : NULL;
    *oom = n && !keys;
    for (size_t i = 0; keys && i < sizeof known / sizeof *known; i++)
        if (json_object_get(config, known[i]))
            keys[k++] = known[i];
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)config, key, v) {
        bool is_known = false;
        for (size_t i = 0; i < sizeof known / sizeof *known && !is_known; i++)
            is_known = strcmp(key, known[i]) == 0;
        if (keys && !is_known)
            keys[k++] = key;
    }
    return keys;
}

/* Adds " key=value" (" ID.key=value" when `id_too`) to run i's label when
 * the producer parameter differs between runs of the same scenario;
 * counts it in *shown, or in *more past LABEL_PARAMS. False when memory
 * ran out. */
#define LABEL_PARAMS 3
static bool label_param(const run_data *runs, size_t n, size_t i, const char *id, const char *key,
                        bool id_too, ks_sbuf *b, size_t *shown, size_t *more)
{
    char *mine = json_cell(param_of(&runs[i], id, key));
    bool differs = false;
    for (size_t j = 0; mine && j < n && !differs; j++) {
        if (j == i || strcmp(runs[i].scenario, runs[j].scenario) != 0)
            continue;
        char *theirs = json_cell(param_of(&runs[j], id, key));
        differs = !theirs || strcmp(mine, theirs) != 0;
        free(theirs);
    }
    if (differs && *shown < LABEL_PARAMS) {
        ks_sb_printf(b, " %s%s%s=%s", id_too ? id : "", id_too ? "." : "", key, mine);
        ++*shown;
    } else if (differs) {
        ++*more;
    }
    bool ok = mine != NULL;
    free(mine);
    return ok;
}

/* What run i's label adds to its scenario's name when other runs share
 * the name: what differs between them (seed, Kafka version, each
 * producer's partitioner and effective configs), the first LABEL_PARAMS
 * of it and "+N" for the rest. */
static bool label_params(const run_data *runs, size_t n, size_t i, ks_sbuf *b)
{
    size_t shown = 0, more = 0;
    bool seed = false, kafka = false;
    for (size_t j = 0; j < n; j++) {
        if (j == i || strcmp(runs[i].scenario, runs[j].scenario) != 0)
            continue;
        seed |= runs[j].seed != runs[i].seed;
        kafka |= strcmp(runs[j].kafka, runs[i].kafka) != 0;
    }
    if (seed) {
        ks_sb_printf(b, " seed %" PRIu64, runs[i].seed);
        shown++;
    }
    if (kafka) {
        ks_sb_printf(b, " Kafka %s", runs[i].kafka);
        shown++;
    }
    const json_t *ps = json_object_get(runs[i].derived, "producers"), *p;
    bool id_too = json_array_size(ps) > 1, oom = false;
    size_t k;
    json_array_foreach(ps, k, p) {
        const char *id = json_string_value(json_object_get(p, "id"));
        if (!id)
            continue;
        const json_t *config = json_object_get(p, "config");
        const char **keys = config_keys(config, &oom);
        bool ok = !oom && label_param(runs, n, i, id, "partitioner", id_too, b, &shown, &more);
        for (size_t c = 0; ok && keys && c < json_object_size(config); c++)
            ok = label_param(runs, n, i, id, keys[c], id_too, b, &shown, &more);
        free(keys);
        if (!ok)
            return false;
    }
    if (more)
        ks_sb_printf(b, " +%zu", more);
    return !b->oom;
}

/* Each run's label: its scenario's name, with what tells it apart from
 * other runs of the same scenario (label_params), plus "#I" (its place)
 * when labels still clash. */
static bool make_labels(run_data *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ks_sbuf b = {0};
        ks_sb_puts(&b, runs[i].scenario);
        bool ok = label_params(runs, n, i, &b);
        runs[i].label = ks_sb_take(&b);
        if (!ok || !runs[i].label)
            return false;
    }
    bool *clash = calloc(n, sizeof *clash);
    if (!clash)
        return false;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            clash[i] |= j != i && strcmp(runs[i].label, runs[j].label) == 0;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        char *l = clash[i] ? fmt_str("%s #%zu", runs[i].label, i + 1) : NULL;
        ok = !clash[i] || l;
        if (l) {
            free(runs[i].label);
            runs[i].label = l;
        }
    }
    free(clash);
    return ok;
}

/* ---- data files ----------------------------------------------------- */

/* The ladder's points at or below x = count (at least the first). */
static size_t ladder_points(uint64_t count)
{
    uint64_t num, den, x100;
    size_t k = 0;
    while ((x100 = ks_chart_ladder(k, &num, &den)) != 0 && (k == 0 || x100 <= count * 100))
        k++;
    return k;
}

/* Whether runN-percentiles.dat ends with the maximum at x = count: when
 * the ladder stops short of it. */
static bool percentile_ends_at_max(uint64_t count)
{
    uint64_t num, den;
    return ks_chart_ladder(ladder_points(count) - 1, &num, &den) < count * 100;
}

/* The rows of runN-percentiles.dat for count records. */
static size_t percentile_rows(uint64_t count)
{
    return ladder_points(count) + (percentile_ends_at_max(count) ? 1 : 0);
}

/* Writes DIR/data/runN-percentiles.dat: the latency at each point of
 * the percentile ladder (tools/chart.h: x = 1/(1 - q), ten points a
 * decade) up to x = the number of records, then the maximum at x = the
 * number of records when the ladder ends before it: HdrHistogram's
 * percentile distribution, from the run's histogram of ack latencies. */
static bool write_percentiles(const run_data *r, size_t n, const char *dir)
{
    ks_outfile of = {0};
    if (!open_data(&of, dir, n, "percentiles", "percentile x latency_ms"))
        return false;
    uint64_t count = r->latency.count, num, den, x100, last = 0;
    for (size_t k = 0; k < percentile_rows(count) - (percentile_ends_at_max(count) ? 1 : 0);
         k++) {
        x100 = ks_chart_ladder(k, &num, &den);
        int64_t v = ks_hist_quantile(&r->latency, num, den);
        fprintf(of.f, "%.4f %" PRIu64 ".%02" PRIu64 " %.6f\n", 100.0 * (double)num / (double)den,
                x100 / 100, x100 % 100, (double)v / 1e6);
        last = x100;
    }
    if (percentile_ends_at_max(count))
        fprintf(of.f, "100 %" PRIu64 " %.6f\n", count, (double)r->latency.max / 1e6);
    (void)last;
    return commit_data(&of);
}

/* Writes DIR/data/runN-batches.dat: per batch size (exact up to 127
 * records, then within 1/128), the fraction and number of batches. */
static bool write_batches(const run_data *r, size_t n, const char *dir)
{
    ks_outfile of = {0};
    if (!open_data(&of, dir, n, "batches", "records fraction batches"))
        return false;
    for (uint32_t b = 0; b < KS_HIST_BUCKETS; b++) {
        uint64_t c = ks_hist_count_at(&r->batch, b);
        if (c == 0)
            continue;
        int64_t lo, hi;
        ks_hist_bucket_range(b, &lo, &hi);
        fprintf(of.f, "%" PRId64 " %.6f %" PRIu64 "\n", lo + (hi - lo) / 2,
                (double)c / (double)r->batch.count, c);
    }
    return commit_data(&of);
}

/* The delivery checker's counts the bars show, as verdicts.h's `bar`
 * says: lost, duplicate, reordered and failed but present always (the
 * anomalies of Jepsen's queue checker, plus a write the producer was told
 * failed that is in a log anyway); a record told failed that no log holds
 * (what at-most-once loses) and an outcome never told only when some run
 * has one; the transactional anomalies whenever a summary has them (a
 * scenario with transactions or consumers), at 0 too: that they were
 * checked and not found is the point of such a run. */

/* An integer of a summary at a dotted path, 0 when absent (its type was
 * checked when the summary was read). */
static int64_t summary_int(const json_t *o, const char *dotted)
{
    ks_tl_error unused = {0};
    return (int64_t)json_integer_value(ks_tl_jpath(&unused, o, dotted, KS_TLT_INT));
}

/* One count of a run's summary (a derived one computed from it). */
static int64_t delivery_count(const json_t *summary, ks_verdict v)
{
    return ks_verdict_count(json_object_get(summary, "delivery"), v);
}

/* Does the bar of count v belong in the chart of these runs? */
static bool delivery_bar(const run_data *runs, size_t n, ks_verdict v)
{
    ks_verdict_show bar = ks_verdict_info_of(v)->bar;
    bool any = bar == KS_VS_ALWAYS;
    for (size_t r = 0; r < n && !any; r++) {
        const json_t *d = json_object_get(runs[r].summary, "delivery");
        if (bar == KS_VS_NONZERO)
            any = runs[r].summary && delivery_count(runs[r].summary, v) > 0;
        else if (bar == KS_VS_CHECKED)
            any = json_object_get(d, ks_verdict_key(v)) != NULL;
    }
    return any;
}

static size_t delivery_keys(const run_data *runs, size_t n, ks_verdict keys[KS_VERDICT__COUNT])
{
    size_t k = 0;
    for (int v = 0; v < KS_VERDICT__COUNT; v++)
        if (delivery_bar(runs, n, (ks_verdict)v))
            keys[k++] = (ks_verdict)v;
    return k;
}

/* The largest count the delivery bars show, at least 1 (gnuplot warns
 * about an empty range when every bar is 0). */
static int64_t delivery_max(const run_data *runs, size_t n)
{
    ks_verdict keys[KS_VERDICT__COUNT];
    size_t nk = delivery_keys(runs, n, keys);
    int64_t max = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < nk; k++) {
            int64_t v = delivery_count(runs[i].summary, keys[k]);
            max = v > max ? v : max;
        }
    return max;
}

/* Writes DIR/data/delivery.dat: one row per count, one column per run
 * that has a summary (in run order). */
static bool write_delivery(const run_data *runs, size_t n, const char *dir)
{
    ks_outfile of = {0};
    if (!open_data(&of, dir, 0, "delivery", NULL))
        return false;
    fputs("# count", of.f);
    for (size_t i = 0; i < n; i++)
        if (runs[i].summary)
            fprintf(of.f, " run%zu", i + 1);
    fputc('\n', of.f);
    ks_verdict keys[KS_VERDICT__COUNT];
    size_t nk = delivery_keys(runs, n, keys);
    for (size_t k = 0; k < nk; k++) {
        fputs(ks_verdict_key(keys[k]), of.f);
        for (size_t i = 0; i < n; i++)
            if (runs[i].summary)
                fprintf(of.f, " %" PRId64, delivery_count(runs[i].summary, keys[k]));
        fputc('\n', of.f);
    }
    return commit_data(&of);
}

/* Whether a summary has consumers (a scenario with a consumers list). */
static bool has_consumers(const json_t *summary)
{
    const json_t *cs = json_object_get(summary, "consumers");
    return json_is_object(cs) && json_object_size(cs) > 0;
}

/* The largest count the consumer bars show, at least 1. */
static int64_t consumers_max(const run_data *runs, size_t n)
{
    int64_t max = 1;
    for (size_t i = 0; i < n; i++) {
        const char *id;
        const json_t *c;
        json_object_foreach(json_object_get(runs[i].summary, "consumers"), id, c) {
            int64_t v = summary_int(c, "records");
            max = v > max ? v : max;
        }
    }
    return max;
}

/* Writes DIR/data/consumers.dat: one row per consumer of every run with
 * consumers, in run order and then in the scenario's order: its label
 * ("CONSUMER (ISOLATION)", prefixed with the run's label when there are
 * several runs), the records it read, and how many of them belong to
 * aborted transactions. */
static bool write_consumers(const run_data *runs, size_t n, const char *dir)
{
    size_t with = 0;
    for (size_t i = 0; i < n; i++)
        with += runs[i].summary && has_consumers(runs[i].summary);
    if (with == 0)
        return true;
    ks_outfile of = {0};
    if (!open_data(&of, dir, 0, "consumers", "run consumer records read_aborted"))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!runs[i].summary || !has_consumers(runs[i].summary))
            continue;
        const char *id;
        const json_t *c;
        json_object_foreach(json_object_get(runs[i].summary, "consumers"), id, c) {
            const char *iso = json_string_value(json_object_get(c, "isolation_level"));
            dat_string(of.f, with > 1 ? runs[i].label : "");
            fputc(' ', of.f);
            char *who = fmt_str("%s (%s)", id, iso ? iso : "?");
            dat_string(of.f, who ? who : id);
            free(who);
            fprintf(of.f, " %" PRId64 " %" PRId64 "\n", summary_int(c, "records"),
                    summary_int(c, "read_aborted"));
        }
    }
    return commit_data(&of);
}

/* ---- charts --------------------------------------------------------- */

typedef enum chart_id {
    CH_THROUGHPUT,
    CH_LATENCY,
    CH_REQUESTS,
    CH_PERCENTILES,
    CH_BATCH,
    CH_DELIVERY,
    CH_CONSUMERS,
    CH__COUNT
} chart_id;

typedef struct chart_info {
    const char *name;  /* file names: NAME.gp, NAME.png, NAME.svg */
    const char *title; /* heading on the pages */
    const char *needs; /* what a run must have to be drawn */
} chart_info;

static const chart_info *chart_of(chart_id c)
{
    static const chart_info info[CH__COUNT] = {
        {"throughput", "Throughput", "metrics lines (metrics.bucket.ms > 0)"},
        {"latency", "Latency percentiles over time",
         "metrics lines of buckets in which records completed"},
        {"requests", "Requests per second", "metrics lines (metrics.bucket.ms > 0)"},
        {"latency-percentiles", "Latency by percentile", "ack lines (--trace-level record)"},
        {"batch-size", "Batch size distribution", "drain lines (--trace-level batch or above)"},
        {"delivery", "Delivery anomalies", "a summary.json beside the trace"},
        {"consumers", "Records read by consumers",
         "consumers in the scenario and a summary.json beside the trace"},
    };
    return &info[c];
}

/* Whether run r has what chart c draws. */
static bool run_has(const run_data *r, chart_id c)
{
    switch (c) {
    case CH_THROUGHPUT:
    case CH_REQUESTS:
        return r->metrics > 0;
    case CH_LATENCY:
        return r->any_latency;
    case CH_PERCENTILES:
        return r->acks > 0;
    case CH_BATCH:
        return r->drains > 0;
    case CH_DELIVERY:
        return r->summary != NULL && json_is_object(json_object_get(r->summary, "delivery"));
    case CH_CONSUMERS:
        return r->summary != NULL && has_consumers(r->summary);
    case CH__COUNT:
        break;
    }
    return false;
}

/* Adds one plot clause to a plot list. */
static void add_clause(ks_sbuf *b, const char *clause)
{
    if (b->len)
        ks_sb_puts(b, ", \\\n     ");
    ks_sb_puts(b, clause);
}

/* Adds a clause made by fmt (NULL: out of memory). */
static void add_clausef(ks_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_clausef(ks_sbuf *b, const char *fmt, ...)
{
    ks_sbuf c = {0};
    va_list ap;
    va_start(ap, fmt);
    ks_sb_vprintf(&c, fmt, ap);
    va_end(ap);
    char *text = ks_sb_take(&c);
    if (text)
        add_clause(b, text);
    else
        b->oom = true;
    free(text);
}

/* The clause drawing run i's FILE `using` with style `with`, titled with
 * its label and `suffix` (notitle when `suffix` is NULL). */
static void run_clause(ks_sbuf *b, const run_data *runs, size_t i, const char *file,
                       const char *using, const char *with, const char *suffix)
{
    ks_sbuf c = {0};
    ks_sb_printf(&c, "'data/%s' using %s with %s lt %zu ", file, using, with, i + 1);
    if (suffix) {
        char *title = fmt_str("%s%s", runs[i].label, suffix);
        ks_sb_puts(&c, "title ");
        sb_gp_string(&c, title ? title : "?");
        c.oom |= title == NULL;
        free(title);
    } else {
        ks_sb_puts(&c, "notitle");
    }
    char *text = ks_sb_take(&c);
    if (!text)
        b->oom = true;
    else
        add_clause(b, text);
    free(text);
}

/* The latest time any run with chart c's data reaches, in seconds. */
static double time_span(const run_data *runs, size_t n, chart_id c)
{
    int64_t end = 0;
    for (size_t i = 0; i < n; i++)
        if (run_has(&runs[i], c) && runs[i].t_end > end)
            end = runs[i].t_end;
    return end > 0 ? (double)end / 1e9 : 1.0;
}

/* Run i's fault windows as bands in its colour over the panel's height
 * (y2 runs from 0 to 1), at least `min_s` wide so that an instant shows;
 * named in the legend with the run and the faults' types. */
static void fault_band(ks_sbuf *b, const run_data *runs, size_t i, double min_s)
{
    char *title = fmt_str("%s faults: %s", runs[i].label,
                          runs[i].fault_types.s ? runs[i].fault_types.s : "");
    ks_sbuf c = {0};
    ks_sb_printf(&c,
                 "'data/run%zu-faults.dat' using 1:(0):1:($2 - $1 < %.9f ? $1 + %.9f : $2):(0):(1) "
                 "axes x1y2 with boxxy fs transparent solid 0.3 noborder lt %zu title ",
                 i + 1, min_s, min_s, i + 1);
    sb_gp_string(&c, title ? title : "faults");
    c.oom |= title == NULL;
    free(title);
    char *text = ks_sb_take(&c);
    if (text)
        add_clause(b, text);
    b->oom |= text == NULL;
    free(text);
}

/* One line a time chart draws per run: a column of runN-metrics.dat,
 * its style, and what its title adds to the run's label. */
typedef struct series {
    int col;
    const char *with, *suffix;
} series;

/* A panel of a time chart: the value its scale follows, its y label and
 * its lines. */
typedef struct panel_kind {
    int value;
    const char *ylabel;
    series s[2];
    size_t n;
} panel_kind;

static const panel_kind panel_records = {
    MV_RECORDS, "records/s", {{4, "linespoints pt 7 ps 0.3", ""}}, 1};
static const panel_kind panel_mb = {MV_MB, "MB/s", {{5, "linespoints pt 7 ps 0.3", ""}}, 1};
static const panel_kind panel_requests = {
    MV_REQUESTS, "requests/s", {{7, "linespoints pt 7 ps 0.3", ""}}, 1};
static const panel_kind panel_latency = {MV_P99,
                                         "latency (ms)",
                                         {{9, "linespoints pt 7 ps 0.4", " p99"},
                                          {8, "linespoints pt 6 ps 0.4 dt 2", " p50"}},
                                         2};

/* One panel of time chart c: the runs of scale group g (group[i]), their
 * fault bands under their lines, and each run's partial last bucket as
 * an open point with no line to it. */
static void time_panel(ks_sbuf *b, const run_data *runs, size_t n, chart_id c,
                       const size_t *group, size_t g, const panel_kind *k)
{
    double top = 0, min_s = time_span(runs, n, c) / 150;
    for (size_t i = 0; i < n; i++)
        if (group[i] == g && runs[i].max_value[k->value] > top)
            top = runs[i].max_value[k->value];
    ks_sb_printf(b, "    set ylabel \"%s\"\n    set yrange [0:%s]\n", k->ylabel,
                 top > 0 ? "*" : "1");
    ks_sbuf list = {0};
    for (size_t i = 0; i < n; i++)
        if (group[i] == g && runs[i].faults > 0)
            fault_band(&list, runs, i, min_s);
    bool partial_titled = false;
    char file[64], using[64];
    for (size_t i = 0; i < n; i++) {
        if (group[i] != g)
            continue;
        snprintf(file, sizeof file, "run%zu-metrics.dat", i + 1);
        for (size_t s = 0; s < k->n; s++) {
            snprintf(using, sizeof using, "1:%d", k->s[s].col);
            if (runs[i].full > 0)
                run_clause(&list, runs, i, file, using, k->s[s].with, k->s[s].suffix);
            if (!runs[i].partial.set)
                continue;
            snprintf(file, sizeof file, "run%zu-partial.dat", i + 1);
            run_clause(&list, runs, i, file, using, "points pt 6 ps 1.2",
                       runs[i].full > 0 ? NULL : k->s[s].suffix);
            partial_titled |= runs[i].full > 0;
            snprintf(file, sizeof file, "run%zu-metrics.dat", i + 1);
        }
    }
    if (partial_titled)
        add_clausef(&list, "NaN with points pt 6 ps 1.2 lc rgb '#555555' title "
                           "'open point: last bucket, cut short'");
    char *text = ks_sb_take(&list);
    ks_sb_printf(b, "    plot %s\n", text ? text : "NaN notitle");
    b->oom |= text == NULL;
    free(text);
}

/* The scale groups of time chart c (tools/chart.h), by the value of
 * kind k; group[i] is KS_CHART_NO_GROUP for a run without the chart's
 * data. Returns their number (0 when memory ran out). */
static size_t time_groups(const run_data *runs, size_t n, chart_id c, const panel_kind *k,
                          size_t *group)
{
    double *max = calloc(n ? n : 1, sizeof *max);
    if (!max)
        return 0;
    for (size_t i = 0; i < n; i++)
        max[i] = run_has(&runs[i], c) ? runs[i].max_value[k->value] : -1;
    size_t groups = ks_chart_scale_groups(max, n, 10, group);
    free(max);
    return groups;
}

/* The drawing commands of time chart c: its panels, one per scale group
 * (runs more than 10 times apart get their own) and, for throughput, per
 * value (records/s, then MB/s). *panels is set to their number. */
static char *time_plots(const run_data *runs, size_t n, chart_id c, size_t *panels)
{
    const panel_kind *kinds[2] = {&panel_records, &panel_mb};
    size_t n_kinds = c == CH_THROUGHPUT ? 2 : 1;
    if (c == CH_REQUESTS)
        kinds[0] = &panel_requests;
    else if (c == CH_LATENCY)
        kinds[0] = &panel_latency;
    size_t *group = calloc(n ? n : 1, sizeof *group);
    size_t groups = group ? time_groups(runs, n, c, kinds[0], group) : 0;
    ks_sbuf b = {0};
    for (size_t k = 0; k < n_kinds; k++)
        for (size_t g = 0; g < groups; g++)
            time_panel(&b, runs, n, c, group, g, kinds[k]);
    *panels = n_kinds * groups;
    b.oom |= group == NULL || groups == 0;
    free(group);
    return ks_sb_take(&b);
}

/* The latency-by-percentile chart: one line per run over the percentile
 * ladder, a log x axis of 1/(1 - q); a log y axis when the runs' largest
 * latencies are more than 10 times apart. */
static char *percentile_plot(const run_data *runs, size_t n)
{
    double *max = calloc(n ? n : 1, sizeof *max);
    size_t *group = calloc(n ? n : 1, sizeof *group);
    uint64_t records = 10;
    for (size_t i = 0; max && i < n; i++) {
        max[i] = runs[i].acks ? (double)runs[i].latency.max : -1;
        if (runs[i].acks && runs[i].latency.count > records)
            records = runs[i].latency.count;
    }
    size_t groups = max && group ? ks_chart_scale_groups(max, n, 10, group) : 0;
    ks_sbuf b = {0};
    ks_sb_printf(&b, "    set xrange [0.8:%" PRIu64 "]\n", records * 8); /* room for the labels */
    ks_sb_puts(&b, groups > 1 ? "    set logscale y\n    set yrange [*:*]\n"
                              : "    set yrange [0:*]\n");
    ks_sbuf list = {0};
    char file[64];
    for (size_t i = 0; i < n; i++) {
        if (!runs[i].acks)
            continue;
        snprintf(file, sizeof file, "run%zu-percentiles.dat", i + 1);
        run_clause(&list, runs, i, file, "2:3", "linespoints pt 7 ps 0.5", "");
        /* the last point, the maximum, labelled with its value */
        size_t last = percentile_rows(runs[i].latency.count) - 1;
        add_clausef(&list,
                    "'data/%s' every ::%zu::%zu using 2:3:(sprintf('max %%.3f ms', $3)) "
                    "with labels left offset 0.8,0 font ',8' tc lt %zu notitle",
                    file, last, last, i + 1);
    }
    char *text = ks_sb_take(&list);
    ks_sb_printf(&b, "    plot %s\n", text ? text : "NaN notitle");
    b.oom |= !text || !max || !group;
    free(text);
    free(max);
    free(group);
    return ks_sb_take(&b);
}

/* The batch-size chart: the fraction of batches per size, one colour per
 * run; boxes side by side at each size when no batch held more than 40
 * records (integer ticks), impulses a little apart beyond. */
static char *batch_plot(const run_data *runs, size_t n)
{
    int64_t top = 1;
    size_t with = 0;
    for (size_t i = 0; i < n; i++)
        if (runs[i].drains) {
            with++;
            top = runs[i].batch.max > top ? runs[i].batch.max : top;
        }
    bool boxes = top <= 40;
    double w = boxes ? 0.8 / (double)(with ? with : 1) : (double)top / 400;
    ks_sbuf b = {0};
    ks_sb_printf(&b, "    set xrange [0:%" PRId64 "]\n", top + 1 + top / 20);
    if (boxes)
        ks_sb_printf(&b, "    set xtics %" PRId64 "\n    set boxwidth %.4f absolute\n",
                     ks_chart_count_step(top), w * 0.9);
    ks_sbuf list = {0};
    char file[64], using[64];
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (!runs[i].drains)
            continue;
        double off = ((double)j++ - (double)(with - 1) / 2) * w;
        snprintf(file, sizeof file, "run%zu-batches.dat", i + 1);
        snprintf(using, sizeof using, "($1%+.4f):2", off);
        run_clause(&list, runs, i, file, using,
                   boxes ? "boxes fs solid 0.75 noborder" : "impulses lw 3", "");
    }
    char *text = ks_sb_take(&list);
    ks_sb_printf(&b, "    plot %s\n", text ? text : "NaN notitle");
    b.oom |= text == NULL;
    free(text);
    return ks_sb_take(&b);
}

/* The label of count v under its bars (x): its name, one word a line
 * when `narrow`, else on two lines when long. */
static void delivery_tic(ks_sbuf *b, ks_verdict v, size_t x, bool narrow)
{
    const char *label = ks_verdict_info_of(v)->label;
    size_t len = strlen(label), cut = len;
    if (!narrow && len > 10) /* break at the space nearest the middle */
        for (size_t d = 0; d < len / 2 && cut == len; d++) {
            if (label[len / 2 + d] == ' ')
                cut = len / 2 + d;
            else if (label[len / 2 - d] == ' ')
                cut = len / 2 - d;
        }
    ks_sb_puts(b, x ? ", \"" : "\"");
    for (size_t i = 0; i < len; i++)
        if (label[i] == ' ' && (narrow || i == cut))
            ks_sb_puts(b, "\\n");
        else
            ks_sb_add(b, label + i, 1);
    ks_sb_printf(b, "\" %zu", x);
}

/* The delivery chart: per count (x = 0, 1, ...) one bar per run with a
 * summary, side by side around the count's label, each topped with its
 * number when it is not 0. */
static char *delivery_plot(const run_data *runs, size_t n)
{
    ks_verdict keys[KS_VERDICT__COUNT];
    size_t nk = delivery_keys(runs, n, keys), with = 0;
    for (size_t i = 0; i < n; i++)
        with += run_has(&runs[i], CH_DELIVERY);
    double w = 0.8 / (double)(with ? with : 1);
    ks_sbuf b = {0};
    ks_sb_puts(&b, "    set xtics (");
    for (size_t k = 0; k < nk; k++)
        delivery_tic(&b, keys[k], k, nk > 6);
    ks_sb_printf(&b, ")\n    set xrange [-0.6:%.1f]\n    set boxwidth %.4f absolute\n",
                 (double)nk - 0.4, w * 0.9);
    ks_sbuf list = {0};
    size_t col = 2, j = 0;
    for (size_t i = 0; i < n; i++) {
        if (!runs[i].summary)
            continue;
        if (run_has(&runs[i], CH_DELIVERY)) {
            double off = ((double)j++ - (double)(with - 1) / 2) * w;
            char using[96];
            snprintf(using, sizeof using, "($0%+.4f):%zu", off, col);
            run_clause(&list, runs, i, "delivery.dat", using, "boxes fs solid 0.8 border -1",
                       "");
            add_clausef(&list,
                        "'data/delivery.dat' using ($0%+.4f):($%zu > 0 ? $%zu : 1/0):"
                        "(sprintf('%%d', $%zu)) with labels offset 0,0.7 font ',9' notitle, \\\n"
                        "     '' using ($0%+.4f):($%zu == 0 ? 0 : 1/0):('0') with labels "
                        "offset 0,0.5 font ',8' tc rgb '#999999' notitle",
                        off, col, col, col, off, col);
        }
        col++;
    }
    char *text = ks_sb_take(&list);
    ks_sb_printf(&b, "    plot %s\n", text ? text : "NaN notitle");
    b.oom |= text == NULL;
    free(text);
    return ks_sb_take(&b);
}

/* The consumers chart: records read and of them aborted, per consumer. */
static char *consumers_plot(void)
{
    /* the label: the consumer, under it the run when there are several */
    return ks_strdup("    plot 'data/consumers.dat' using 3:xtic(two_lines(strcol(2)) . "
                     "(strcol(1) eq '' ? '' : \"\\n\".strcol(1))) lt 1 title 'records read', \\\n"
                     "         '' using 4 lt 2 title 'of them from aborted transactions'\n");
}

/* The drawing commands of chart c (@PLOT@ of its template); *panels is
 * set to the number of panels. NULL when memory ran out. */
static char *chart_plot(const run_data *runs, size_t n, chart_id c, size_t *panels)
{
    *panels = 1;
    switch (c) {
    case CH_THROUGHPUT:
    case CH_LATENCY:
    case CH_REQUESTS:
        return time_plots(runs, n, c, panels);
    case CH_PERCENTILES:
        return percentile_plot(runs, n);
    case CH_BATCH:
        return batch_plot(runs, n);
    case CH_DELIVERY:
        return delivery_plot(runs, n);
    case CH_CONSUMERS:
        return consumers_plot();
    case CH__COUNT:
        break;
    }
    return NULL;
}

/* Reads a whole template (small files) from tdir, or from the copies
 * built into ksim when tdir is ""; NULL with a message printed. */
static char *read_template(const char *tdir, const char *name)
{
    if (!*tdir) {
        for (const ks_template *t = ks_builtin_templates; t->name; t++)
            if (strcmp(t->name, name) == 0)
                return ks_strdup(t->text);
        ks_status_fail("report", "no built-in template %s.gp", name);
        return NULL;
    }
    char *path = fmt_str("%s/%s.gp", tdir, name);
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f) {
        ks_status_fail("report", "%s: %s", path ? path : name,
                       path ? strerror(errno) : "out of memory");
        free(path);
        return NULL;
    }
    ks_sbuf b = {0};
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        ks_sb_add(&b, buf, got);
    bool bad = ferror(f);
    fclose(f);
    if (bad)
        ks_status_fail("report", "%s: cannot read", path);
    free(path);
    char *text = ks_sb_take(&b);
    if (bad) {
        free(text);
        return NULL;
    }
    return text;
}

/* Copies text into b with each "@KEY@" of keys[] replaced by vals[]. */
static void substitute(ks_sbuf *b, const char *text, const char *const *keys,
                       const char *const *vals, size_t n)
{
    while (*text) {
        size_t k = n;
        if (*text == '@')
            for (k = 0; k < n; k++)
                if (strncmp(text, keys[k], strlen(keys[k])) == 0)
                    break;
        if (k < n) {
            ks_sb_puts(b, vals[k]);
            text += strlen(keys[k]);
        } else {
            ks_sb_add(b, text, 1);
            text++;
        }
    }
}

/* The script's first lines: what it is, and the variables the
 * templates read: chart, formats, panels (how many the chart has),
 * height (of the image: 270 pixels a panel, at least 540) and xmax (the
 * time charts' x axis, in seconds, the same on every panel). */
static void script_head(ks_sbuf *b, const report_opts *o, const run_data *runs, size_t n,
                        chart_id c, size_t panels)
{
    const char *name = chart_of(c)->name;
    ks_sb_printf(b,
                 "# %s.gp - written by ksim report from the template %s.gp; run\n"
                 "# `gnuplot %s.gp` in this directory to draw the chart again.\n"
                 "chart = \"%s\"\nformats = \"%s\"\n",
                 name, name, name, name,
                 o->png && o->svg ? "png svg"
                 : o->png         ? "png"
                                  : "svg");
    ks_sb_printf(b, "panels = %zu\nheight = %zu\nxmax = %.9f\n", panels,
                 panels > 2 ? 270 * panels : 540, time_span(runs, n, c) * 1.02);
}

/* Writes DIR/NAME.gp from the chart's template and common.gp. */
static bool write_script(const report_opts *o, const char *tdir, const run_data *runs,
                         size_t n, chart_id c)
{
    const chart_info *ci = chart_of(c);
    char *common = read_template(tdir, "common");
    char *tmpl = common ? read_template(tdir, ci->name) : NULL;
    size_t panels = 1;
    char *plot = chart_plot(runs, n, c, &panels);
    ks_sbuf b = {0};
    script_head(&b, o, runs, n, c, panels);
    int64_t ymax = c == CH_CONSUMERS ? consumers_max(runs, n) : delivery_max(runs, n);
    char ymax_s[32], ystep[32];
    snprintf(ymax_s, sizeof ymax_s, "%" PRId64, ymax);
    snprintf(ystep, sizeof ystep, "%" PRId64, ks_chart_count_step(ymax));
    const char *keys[] = {"@COMMON@", "@PLOT@", "@YMAX@", "@YSTEP@"};
    const char *vals[] = {common ? common : "", plot ? plot : "", ymax_s, ystep};
    if (tmpl)
        substitute(&b, tmpl, keys, vals, 4);
    char *text = ks_sb_take(&b);
    bool ok = common && tmpl && plot && text;
    if (common && tmpl && !ok)
        ks_status_fail("report", "out of memory");
    if (ok) {
        char *path = fmt_str("%s/%s.gp", o->out, ci->name);
        ks_outfile of = {0};
        char err[512];
        ok = path && ks_outfile_open(&of, path, err, sizeof err);
        if (ok) {
            fputs(text, of.f);
            ok = ks_outfile_commit(&of, err, sizeof err);
        }
        if (!ok)
            ks_status_fail("report", "%s", path ? err : "out of memory");
        free(path);
    }
    free(common);
    free(tmpl);
    free(plot);
    free(text);
    return ok;
}

/* ---- running gnuplot ------------------------------------------------ */

/* DIR when it holds common.gp (DIR is freed otherwise); NULL. */
static char *templates_in(char *dir)
{
    char *common = dir ? path_join(dir, "common.gp") : NULL;
    bool ok = common && file_exists(common);
    free(common);
    if (ok)
        return dir;
    free(dir);
    return NULL;
}

/* Where the templates are: --templates, else $KSIM_REPORTS_DIR (either
 * must hold them), else ./reports, else reports/ beside the directory of
 * the executable (the source tree's, for a build directory in it), else
 * share/ksim/reports beside it (where `cmake --install` puts them), else
 * the copies built into ksim: "" (tools/templates.h). NULL with a
 * message when a directory given does not hold them. */
static char *find_templates(const report_opts *o)
{
    const char *given = o->templates ? o->templates : getenv("KSIM_REPORTS_DIR");
    if (given && *given) {
        char *dir = templates_in(ks_strdup(given));
        if (!dir)
            ks_status_fail("report", "%s: no gnuplot templates there (common.gp and one "
                                     "NAME.gp per chart, as in the source tree's reports/)",
                           given);
        return dir;
    }
    char *dir = templates_in(ks_strdup("reports"));
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (!dir && len > 0) {
        exe[len] = '\0';
        char *bin = dir_of(exe);
        dir = templates_in(bin ? fmt_str("%s/../reports", bin) : NULL);
        if (!dir)
            dir = templates_in(bin ? fmt_str("%s/../share/ksim/reports", bin) : NULL);
        free(bin);
    }
    return dir ? dir : ks_strdup("");
}

/* Runs `gnuplot -e "out_suffix='.tmp'" NAME.gp` in DIR (the program is
 * $KSIM_GNUPLOT when set). Returns its exit status, 127 when it could not
 * be started, or -1 when no process could be made. */
static int run_gnuplot(const char *dir, const char *script)
{
    const char *prog = getenv("KSIM_GNUPLOT");
    if (!prog || !*prog)
        prog = "gnuplot";
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        char *const args[] = {(char *)prog, (char *)"-e", (char *)"out_suffix='.tmp'",
                              (char *)script, NULL};
        if (chdir(dir) == 0)
            execvp(prog, args);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Renames DIR/NAME.EXT.tmp to DIR/NAME.EXT (commit) or removes it, and
 * on failure removes an older NAME.EXT, so the pages never show an image
 * of another report. False when a rename failed. */
static bool settle_image(const char *dir, const char *name, const char *ext, bool commit)
{
    char *tmp = fmt_str("%s/%s.%s.tmp", dir, name, ext);
    char *final = fmt_str("%s/%s.%s", dir, name, ext);
    bool ok = tmp && final;
    if (ok && commit && rename(tmp, final) != 0) {
        ks_status_fail("report", "%s: %s", final, strerror(errno));
        ok = false;
    }
    if (tmp && (!commit || !ok))
        remove(tmp);
    if (final && (!commit || !ok))
        remove(final);
    free(tmp);
    free(final);
    return ok;
}

/* Draws chart c: runs gnuplot on its script and settles its images.
 * Returns 0, 127 when gnuplot could not be run, or 1 when it failed
 * (message printed). */
static int draw_chart(const report_opts *o, chart_id c)
{
    const char *name = chart_of(c)->name;
    char script[64];
    snprintf(script, sizeof script, "%s.gp", name);
    int st = run_gnuplot(o->out, script);
    if (st == 127)
        ks_status_fail("report", "cannot run gnuplot (install gnuplot-nox, or set "
                                 "KSIM_GNUPLOT): the charts were not drawn");
    else if (st != 0)
        ks_status_fail("report", "gnuplot failed on %s/%s (status %d)", o->out, script, st);
    bool ok = st == 0;
    if (o->png)
        ok = settle_image(o->out, name, "png", st == 0) && ok;
    if (o->svg)
        ok = settle_image(o->out, name, "svg", st == 0) && ok;
    return st == 127 ? 127 : ok ? 0 : 1;
}

/* Removes what an earlier report left of a chart this one leaves out. */
static void remove_chart(const char *dir, chart_id c)
{
    const char *name = chart_of(c)->name;
    settle_image(dir, name, "png", false);
    settle_image(dir, name, "svg", false);
    char *gp = fmt_str("%s/%s.gp", dir, name);
    if (gp)
        remove(gp);
    free(gp);
}

/* ---- the document --------------------------------------------------- */

/* Both pages are rendered from one list of elements. */
typedef enum el_kind { EL_H1, EL_H2, EL_H3, EL_PARA, EL_NOTE, EL_TABLE, EL_IMAGE } el_kind;

typedef struct el {
    el_kind kind;
    char *text;    /* heading, paragraph, note; an image's title */
    char *name;    /* image: the chart's file name without extension */
    bool png, svg; /* image: which files exist */
    size_t cols, n_cells;
    char **cells;  /* table: row after row, the first row the header */
} el;

typedef struct doc {
    el *v;
    size_t n, cap;
    bool oom;
} doc;

/* Adds an element, taking ownership of text (NULL counts as out of
 * memory); returns it, or NULL when memory ran out. */
static el *doc_add(doc *d, el_kind kind, char *text)
{
    if (!text || d->oom) {
        free(text);
        d->oom = true;
        return NULL;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 32;
        el *v = realloc(d->v, cap * sizeof *v);
        if (!v) {
            free(text);
            d->oom = true;
            return NULL;
        }
        d->v = v;
        d->cap = cap;
    }
    el *e = &d->v[d->n++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->text = text;
    return e;
}

/* Adds a table cell, taking ownership of s. */
static void cell(doc *d, el *t, char *s)
{
    char **v = t && s ? realloc(t->cells, (t->n_cells + 1) * sizeof *v) : NULL;
    if (!v) {
        free(s);
        d->oom = true;
        return;
    }
    t->cells = v;
    t->cells[t->n_cells++] = s;
}

static el *table(doc *d, size_t cols)
{
    el *t = doc_add(d, EL_TABLE, ks_strdup(""));
    if (t)
        t->cols = cols;
    return t;
}

static void doc_free(doc *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].text);
        free(d->v[i].name);
        for (size_t c = 0; c < d->v[i].n_cells; c++)
            free(d->v[i].cells[c]);
        free(d->v[i].cells);
    }
    free(d->v);
}


/* ---- the pages' content --------------------------------------------- */

/* The table of runs and each scenario's description. */
static void add_runs(doc *d, const run_data *runs, size_t n)
{
    doc_add(d, EL_H2, ks_strdup("Runs"));
    el *t = table(d, 8);
    const char *head[] = {"#", "label", "scenario", "seed", "Kafka", "trace level", "trace",
                          "summary"};
    for (size_t c = 0; c < 8; c++)
        cell(d, t, ks_strdup(head[c]));
    for (size_t i = 0; i < n; i++) {
        const run_data *r = &runs[i];
        cell(d, t, fmt_str("%zu", i + 1));
        cell(d, t, ks_strdup(r->label));
        cell(d, t, ks_strdup(r->scenario));
        cell(d, t, fmt_str("%" PRIu64, r->seed));
        cell(d, t, ks_strdup(r->kafka));
        cell(d, t, ks_strdup(r->level));
        cell(d, t, ks_strdup(r->trace));
        cell(d, t, ks_strdup(r->summary_path ? r->summary_path : "none"));
    }
    for (size_t i = 0; i < n; i++) {
        const char *desc =
            json_string_value(json_object_get(runs[i].resolved, "description"));
        if (desc)
            doc_add(d, EL_PARA, fmt_str("%s: %s", runs[i].label, desc));
        if (runs[i].summary_note)
            doc_add(d, EL_NOTE, fmt_str("%s: not used: %s", runs[i].label,
                                        runs[i].summary_note));
    }
}

/* One parameter row when it is new (no earlier run has it) and, with
 * several runs, its values differ. Returns whether a row was added. */
static bool param_row(doc *d, el *t, const run_data *runs, size_t n, size_t first,
                      const char *id, const char *key)
{
    for (size_t j = 0; j < first; j++)
        if (param_of(&runs[j], id, key))
            return false;
    char **vals = calloc(n, sizeof *vals);
    bool differ = n == 1, ok = vals != NULL;
    for (size_t j = 0; ok && j < n; j++) {
        vals[j] = json_cell(param_of(&runs[j], id, key));
        ok = vals[j] != NULL;
        differ |= ok && j > 0 && strcmp(vals[j], vals[0]) != 0;
    }
    if (!ok)
        d->oom = true;
    if (ok && differ) {
        cell(d, t, ks_strdup(id));
        cell(d, t, ks_strdup(key));
        for (size_t j = 0; j < n; j++) {
            cell(d, t, vals[j]); /* the table owns it now */
            vals[j] = NULL;
        }
    }
    for (size_t j = 0; vals && j < n; j++)
        free(vals[j]);
    free(vals);
    return ok && differ;
}

/* The producers' parameters: with one run every effective config, with
 * several those whose values differ between runs. */
static void add_params(doc *d, const run_data *runs, size_t n)
{
    doc_add(d, EL_H2, ks_strdup("Parameters"));
    doc_add(d, EL_PARA, ks_strdup(n == 1 ? "Each producer's partitioner and effective configs "
                                           "(the trace header's derived.producers):"
                                         : "The producer configs (and partitioners) in effect "
                                           "that differ between the runs:"));
    el *t = table(d, 2 + n);
    cell(d, t, ks_strdup("producer"));
    cell(d, t, ks_strdup("parameter"));
    for (size_t j = 0; j < n; j++)
        cell(d, t, ks_strdup(runs[j].label));
    size_t rows = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *ps = json_object_get(runs[i].derived, "producers"), *p;
        size_t k;
        json_array_foreach(ps, k, p) {
            const char *id = json_string_value(json_object_get(p, "id"));
            if (!id)
                continue;
            rows += param_row(d, t, runs, n, i, id, "partitioner");
            const json_t *config = json_object_get(p, "config");
            bool oom;
            const char **keys = config_keys(config, &oom);
            d->oom = d->oom || oom;
            for (size_t c = 0; keys && c < json_object_size(config); c++)
                rows += param_row(d, t, runs, n, i, id, keys[c]);
            free(keys);
        }
    }
    if (rows == 0) /* the table, a header alone, is not rendered */
        doc_add(d, EL_NOTE, ks_strdup("No producer parameter differs between the runs."));
}

static char *summary_cell(const json_t *summary, const char *path, cell_fmt f)
{
    const json_t *v = summary ? jpath(summary, path) : NULL;
    if (!v || !json_is_number(v) || f == CF_PLAIN)
        return json_cell(v);
    double x = json_number_value(v);
    if (f != CF_MS)
        return fmt_str("%.3f", x / 1e6); /* bytes/s as MB/s */
    char b[40]; /* ns: the milliseconds run and explain print */
    return fmt_str("%s", ks_fmt_ms(b, sizeof b, json_is_integer(v) ? json_integer_value(v)
                                                                   : (int64_t)(x + 0.5)));
}

/* A row of the summary table, when some run's summary has the value
 * (e.g. aborted_read, only with consumers); `name` is the row's. */
static void summary_row(doc *d, el *t, const run_data *runs, size_t n, char *name,
                        const char *path, cell_fmt f)
{
    bool any = false;
    for (size_t j = 0; j < n; j++)
        any |= runs[j].summary && jpath(runs[j].summary, path);
    if (!any) {
        free(name);
        return;
    }
    cell(d, t, name);
    for (size_t j = 0; j < n; j++)
        cell(d, t, summary_cell(runs[j].summary, path, f));
}

/* The name of a delivery count's row: its label, with the summary's key
 * after it when the label does not spell the key ("reordered
 * (nonmonotonic_send)"). */
static char *delivery_label(ks_verdict v)
{
    const ks_verdict_info *vi = ks_verdict_info_of(v);
    bool spelt = strlen(vi->label) == strlen(vi->key);
    for (size_t i = 0; spelt && vi->key[i]; i++)
        spelt = vi->label[i] == (vi->key[i] == '_' ? ' ' : vi->key[i]);
    return spelt ? ks_strdup(vi->label) : fmt_str("%s (%s)", vi->label, vi->key);
}

/* The summary table: one row per value, one column per run. */
static void add_summary(doc *d, const run_data *runs, size_t n)
{
    const struct summary_row *rows = summary_rows;
    doc_add(d, EL_H2, ks_strdup("Summary"));
    size_t with = 0;
    for (size_t j = 0; j < n; j++)
        with += runs[j].summary != NULL;
    if (with == 0) {
        doc_add(d, EL_NOTE, ks_strdup("No summary.json beside the traces: the summary table "
                                      "and the delivery bars are left out."));
        return;
    }
    el *t = table(d, 1 + n);
    cell(d, t, ks_strdup(""));
    for (size_t j = 0; j < n; j++)
        cell(d, t, ks_strdup(runs[j].label));
    for (size_t r = 0; r < sizeof summary_rows / sizeof *summary_rows; r++)
        summary_row(d, t, runs, n, ks_strdup(rows[r].name), rows[r].path, rows[r].f);
    char path[64];
    for (int v = 0; v < KS_VERDICT__COUNT; v++)
        if (delivery_path((ks_verdict)v, path, sizeof path))
            summary_row(d, t, runs, n, delivery_label((ks_verdict)v), path, CF_PLAIN);
    if (with < n)
        doc_add(d, EL_NOTE, ks_strdup("Runs without a summary.json show \"-\"."));
}

/* The notes of a chart: why it is missing, or which runs it leaves out. */
static void chart_notes(doc *d, const run_data *runs, size_t n, chart_id c, bool drawn)
{
    const chart_info *ci = chart_of(c);
    ks_sbuf left = {0};
    size_t have = 0;
    for (size_t i = 0; i < n; i++) {
        if (run_has(&runs[i], c)) {
            have++;
        } else {
            ks_sb_puts(&left, left.len ? ", " : "");
            ks_sb_puts(&left, runs[i].label);
        }
    }
    char *names = ks_sb_take(&left);
    if (have == 0)
        doc_add(d, EL_NOTE, fmt_str("Not drawn: this chart needs %s.", ci->needs));
    else if (have < n)
        doc_add(d, EL_NOTE, fmt_str("Left out (this chart needs %s): %s.", ci->needs,
                                    names ? names : "?"));
    if (have > 0 && !drawn)
        doc_add(d, EL_NOTE, fmt_str("Not drawn: gnuplot did not draw it; run `gnuplot %s.gp` "
                                    "in this directory.", ci->name));
    free(names);
}

/* The charts: each one's heading, image and notes. drawn[c] says whether
 * gnuplot drew chart c; the images listed are those that exist. */
static void add_charts(doc *d, const report_opts *o, const run_data *runs, size_t n,
                       const bool drawn[CH__COUNT])
{
    doc_add(d, EL_H2, ks_strdup("Charts"));
    doc_add(d, EL_PARA,
            ks_strdup("Time is virtual time; one value per metrics bucket, the last one "
                      "(cut short by the run's end) an open point. Shaded bands in a run's "
                      "colour mark the faults that struck it. Runs more than 10 times apart "
                      "in scale are drawn in panels of their own."));
    for (int c = 0; c < CH__COUNT; c++) {
        const chart_info *ci = chart_of((chart_id)c);
        doc_add(d, EL_H3, ks_strdup(ci->title));
        el *img = doc_add(d, EL_IMAGE, ks_strdup(ci->title));
        if (img) {
            img->name = ks_strdup(ci->name);
            char *png = fmt_str("%s/%s.png", o->out, ci->name);
            char *svg = fmt_str("%s/%s.svg", o->out, ci->name);
            img->png = drawn[c] && o->png && png && file_exists(png);
            img->svg = drawn[c] && o->svg && svg && file_exists(svg);
            d->oom |= !img->name || !png || !svg;
            free(png);
            free(svg);
        }
        chart_notes(d, runs, n, (chart_id)c, drawn[c]);
    }
}

/* ---- rendering ------------------------------------------------------ */

/* Markdown table cell: '|' escaped, line breaks as spaces. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', f);
        else
            fputc(*s, f);
    }
}

static void md_table(FILE *f, const el *e)
{
    if (e->n_cells <= e->cols)
        return;
    for (size_t i = 0; i < e->n_cells; i++) {
        fputs(i % e->cols ? " | " : "| ", f);
        md_cell(f, e->cells[i]);
        if (i % e->cols == e->cols - 1) {
            fputs(" |\n", f);
            if (i + 1 == e->cols) {
                for (size_t c = 0; c < e->cols; c++)
                    fputs("|---", f);
                fputs("|\n", f);
            }
        }
    }
    fputc('\n', f);
}

static void md_write(FILE *f, const doc *d)
{
    for (size_t i = 0; i < d->n; i++) {
        const el *e = &d->v[i];
        switch (e->kind) {
        case EL_H1: fprintf(f, "# %s\n\n", e->text); break;
        case EL_H2: fprintf(f, "## %s\n\n", e->text); break;
        case EL_H3: fprintf(f, "### %s\n\n", e->text); break;
        case EL_PARA: fprintf(f, "%s\n\n", e->text); break;
        case EL_NOTE: fprintf(f, "> %s\n\n", e->text); break;
        case EL_TABLE: md_table(f, e); break;
        case EL_IMAGE:
            if (e->png || e->svg)
                fprintf(f, "![%s](%s.%s)\n\n", e->text, e->name, e->png ? "png" : "svg");
            if (e->png && e->svg)
                fprintf(f, "([SVG](%s.svg))\n\n", e->name);
            break;
        }
    }
}

/* HTML text or attribute value. */
static void html_put(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

static void html_table(FILE *f, const el *e)
{
    if (e->n_cells <= e->cols)
        return;
    fputs("<table>\n", f);
    for (size_t i = 0; i < e->n_cells; i++) {
        const char *tag = i < e->cols ? "th" : "td";
        fprintf(f, "%s<%s>", i % e->cols ? "" : "<tr>", tag);
        html_put(f, e->cells[i]);
        fprintf(f, "</%s>%s", tag, i % e->cols == e->cols - 1 ? "</tr>\n" : "");
    }
    fputs("</table>\n", f);
}

static void html_image(FILE *f, const el *e)
{
    if (!e->png && !e->svg)
        return;
    fputs("<figure>", f);
    if (e->png && e->svg)
        fprintf(f, "<a href=\"%s.svg\">", e->name);
    fprintf(f, "<img src=\"%s.%s\" alt=\"", e->name, e->png ? "png" : "svg");
    html_put(f, e->text);
    fputs("\">", f);
    if (e->png && e->svg)
        fputs("</a>", f);
    fputs("</figure>\n", f);
}

static void html_write(FILE *f, const doc *d)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>ksim report</title>\n<style>\n"
          "body { font-family: sans-serif; max-width: 1000px; margin: 2em auto; }\n"
          "table { border-collapse: collapse; margin: 1em 0; }\n"
          "th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }\n"
          "figure { margin: 1em 0; } img { max-width: 100%; }\n"
          ".note { color: #555; border-left: 3px solid #ccc; padding-left: 0.6em; }\n"
          "</style>\n</head>\n<body>\n", f);
    for (size_t i = 0; i < d->n; i++) {
        const el *e = &d->v[i];
        static const char *const tags[] = {"h1", "h2", "h3", "p", "p class=\"note\""};
        static const char *const ends[] = {"h1", "h2", "h3", "p", "p"};
        switch (e->kind) {
        case EL_H1:
        case EL_H2:
        case EL_H3:
        case EL_PARA:
        case EL_NOTE:
            fprintf(f, "<%s>", tags[e->kind]);
            html_put(f, e->text);
            fprintf(f, "</%s>\n", ends[e->kind]);
            break;
        case EL_TABLE: html_table(f, e); break;
        case EL_IMAGE: html_image(f, e); break;
        }
    }
    /* Once the page has loaded, the body says how many images did
     * (data-images="loaded/total") and each image whether it did
     * (data-loaded="yes"): a browser test reads them, and a reader whose
     * copy lost a chart sees it in the page's source. */
    fputs("<script>\nwindow.addEventListener('load', function () {\n"
          "  var imgs = document.images, ok = 0;\n"
          "  for (var i = 0; i < imgs.length; i++) {\n"
          "    var loaded = imgs[i].complete && imgs[i].naturalWidth > 0;\n"
          "    imgs[i].setAttribute('data-loaded', loaded ? 'yes' : 'no');\n"
          "    if (loaded)\n"
          "      ok++;\n"
          "  }\n"
          "  document.body.setAttribute('data-images', ok + '/' + imgs.length);\n"
          "});\n</script>\n", f);
    fputs("</body>\n</html>\n", f);
}

/* ---- the command ---------------------------------------------------- */

/* Writes DIR/NAME from the document, as Markdown or HTML. */
static bool write_page(const char *dir, const char *name, const doc *d, bool html)
{
    char err[512];
    char *path = path_join(dir, name);
    ks_outfile of = {0};
    bool ok = path && ks_outfile_open(&of, path, err, sizeof err);
    if (ok) {
        if (html)
            html_write(of.f, d);
        else
            md_write(of.f, d);
        ok = ks_outfile_commit(&of, err, sizeof err);
    }
    if (!ok)
        ks_status_fail("report", "%s", path ? err : "out of memory");
    free(path);
    return ok;
}

/* Writes run number n's data files: its metrics and fault rows, its CDF
 * and batch-size data. */
static bool write_run_data(const run_data *r, size_t n, const char *dir)
{
    return write_rows(r->metrics_rows, dir, n, "metrics", METRICS_COLUMNS) &&
           (!r->partial.set || write_partial(r, n, dir)) &&
           write_rows(r->fault_rows, dir, n, "faults", "from_s to_s fault type") &&
           (!r->acks || write_percentiles(r, n, dir)) &&
           (!r->drains || write_batches(r, n, dir));
}

/* Reads every run (its trace and its summary) before anything is
 * written, so that a run that cannot be read leaves no file behind; then
 * labels them and writes the data files. */
static int read_runs(const report_opts *o, run_data *runs)
{
    for (size_t i = 0; i < o->n_runs; i++) {
        run_data *r = &runs[i];
        int rc = resolve_paths(r);
        if (rc == 0)
            rc = read_trace(r);
        if (rc != 0)
            return rc;
        if (!read_summary(r))
            return KS_EXIT_USAGE;
    }
    if (!make_labels(runs, o->n_runs)) {
        ks_status_fail("report", "out of memory");
        return KS_EXIT_USAGE;
    }
    for (size_t i = 0; i < o->n_runs; i++)
        if (!write_run_data(&runs[i], i + 1, o->out))
            return KS_EXIT_USAGE;
    for (size_t i = 0; i < o->n_runs; i++)
        if (runs[i].summary)
            return write_delivery(runs, o->n_runs, o->out) &&
                           write_consumers(runs, o->n_runs, o->out)
                       ? 0
                       : KS_EXIT_USAGE;
    return 0;
}

/* What draw_all achieved. */
enum { DRAW_OK = 0, DRAW_NOT_ALL = 1, DRAW_FAILED = 2 };

/* Writes each chart's script and draws it; fills drawn[]. Returns
 * DRAW_OK, DRAW_NOT_ALL when gnuplot is missing or failed on some chart
 * (the other charts are still drawn), or DRAW_FAILED when a script could
 * not be written. */
static int draw_all(const report_opts *o, const char *tdir, const run_data *runs,
                    bool drawn[CH__COUNT], size_t *n_drawn)
{
    int rc = DRAW_OK;
    bool no_gnuplot = false;
    for (int c = 0; c < CH__COUNT; c++) {
        bool any = false;
        for (size_t i = 0; i < o->n_runs; i++)
            any |= run_has(&runs[i], (chart_id)c);
        if (!any) {
            remove_chart(o->out, (chart_id)c);
            continue;
        }
        if (!write_script(o, tdir, runs, o->n_runs, (chart_id)c))
            return DRAW_FAILED;
        int st = no_gnuplot ? 127 : draw_chart(o, (chart_id)c);
        no_gnuplot = st == 127;
        drawn[c] = st == 0;
        *n_drawn += st == 0;
        if (st != 0)
            rc = DRAW_NOT_ALL;
    }
    return rc;
}

/* Builds the document and writes both pages. */
static int write_pages(const report_opts *o, const run_data *runs, const bool drawn[CH__COUNT])
{
    doc d = {0};
    doc_add(&d, EL_H1, ks_strdup("ksim report"));
    doc_add(&d, EL_PARA, fmt_str("%zu run%s, read by ksim %s from the traces and summaries "
                                 "below. The plotted values are in data/; each chart's "
                                 "gnuplot script is NAME.gp.",
                                 o->n_runs, o->n_runs == 1 ? "" : "s", KS_VERSION));
    add_runs(&d, runs, o->n_runs);
    add_params(&d, runs, o->n_runs);
    add_summary(&d, runs, o->n_runs);
    add_charts(&d, o, runs, o->n_runs, drawn);
    int rc = 0;
    if (d.oom) {
        ks_status_fail("report", "out of memory");
        rc = KS_EXIT_USAGE;
    } else if (!write_page(o->out, "report.md", &d, false) ||
               !write_page(o->out, "index.html", &d, true)) {
        rc = KS_EXIT_USAGE;
    }
    doc_free(&d);
    return rc;
}

/* Makes DIR and DIR/data, recording those that did not exist. */
static int make_out_dirs(const char *dir, ks_outdir *made)
{
    char err[512];
    char *data = fmt_str("%s/data", dir);
    bool ok = data && ks_outdir_make(made, dir, err, sizeof err) &&
              ks_outdir_make(made, data, err, sizeof err);
    if (!ok)
        ks_status_fail("report", "%s", data ? err : "out of memory");
    free(data);
    return ok ? 0 : KS_EXIT_USAGE;
}

/* Runs the report once the options are parsed; returns the exit code. */
static int report(const report_opts *o)
{
    char *tdir = find_templates(o);
    if (!tdir)
        return KS_EXIT_USAGE;
    run_data *runs = calloc(o->n_runs, sizeof *runs);
    if (!runs) {
        free(tdir);
        ks_status_fail("report", "out of memory");
        return KS_EXIT_USAGE;
    }
    for (size_t i = 0; i < o->n_runs; i++) {
        runs[i].arg = o->runs[i];
        ks_hist_init(&runs[i].latency);
        ks_hist_init(&runs[i].batch);
    }
    bool drawn[CH__COUNT] = {false};
    size_t n_drawn = 0;
    /* The directories made here are removed again if the report cannot be
     * written whole; charts gnuplot could not draw are no such failure:
     * the page says so and the data and scripts stay for a rerun. */
    ks_outdir made = {0};
    int rc = make_out_dirs(o->out, &made);
    if (rc == 0)
        rc = read_runs(o, runs);
    int draw_rc = 0;
    if (rc == 0) {
        int d = draw_all(o, tdir, runs, drawn, &n_drawn);
        draw_rc = d == DRAW_OK ? 0 : KS_EXIT_USAGE;
        if (d == DRAW_FAILED)
            rc = KS_EXIT_USAGE;
    }
    if (rc == 0)
        rc = write_pages(o, runs, drawn);
    if (rc != 0)
        ks_outdir_remove(&made);
    ks_outdir_keep(&made);
    if (rc == 0) {
        printf("ksim report: %zu run%s, %zu chart%s drawn: %s/index.html, %s/report.md\n",
               o->n_runs, o->n_runs == 1 ? "" : "s", n_drawn, n_drawn == 1 ? "" : "s", o->out,
               o->out);
        rc = draw_rc;
    }
    for (size_t i = 0; i < o->n_runs; i++)
        run_free(&runs[i]);
    free(runs);
    free(tdir);
    return rc;
}

int ks_cmd_report(int argc, char **argv)
{
    report_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc == 0)
        rc = report(&o);
    else if (rc < 0)
        rc = KS_EXIT_OK;
    free(o.runs);
    return rc;
}

int ks_report_stream(FILE *in, const char *name, char *err, size_t errlen)
{
    run_data r = {0};
    r.trace = ks_strdup(name);
    ks_hist_init(&r.latency);
    ks_hist_init(&r.batch);
    bool ok = r.trace && read_stream(&r, in, err, errlen);
    if (!r.trace)
        snprintf(err, errlen, "out of memory");
    run_free(&r);
    return ok ? KS_EXIT_OK : KS_EXIT_USAGE;
}
