/*
 * cmd_run.c - `ksim run` and `ksim validate`: a scenario loaded, checked
 * and (run) simulated.
 *
 * Owns: both commands' options and usage texts; for run, where the
 * outputs go (--out/-o DIR, else ksim-out/NAME; --trace, --summary), the
 * trace and the summary written as one (sim/outfile.h: both whole, or
 * neither), the report printed after a run, the reproduce line of a
 * failed expectation, and the exit code (0, 1 an expectation failed, 2);
 * for validate, the line per valid scenario or its resolved form. The
 * scenario loader's messages are printed as the command's own
 * (tools/status.h). Never writes anything but the run's two outputs.
 */
#include "tools/commands.h"

#include "ks_version.h"
#include "models/check/verdicts.h"
#include "models/scenario.h"
#include "models/world.h"
#include "sim/expect.h"
#include "sim/json_path.h"
#include "sim/outfile.h"
#include "sim/str.h"
#include "sim/trace.h"
#include "tools/options.h"
#include "tools/numfmt.h"
#include "tools/status.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OVERRIDES KS_MAX_OVERRIDES

const char ks_usage_run[] =
    "usage: ksim run SCENARIO [options]\n"
    "\n"
    "Simulates SCENARIO (a JSON file, or - for standard input), writes a JSON\n"
    "Lines trace and a JSON summary, and checks the scenario's expect block.\n"
    "\n"
    "options:\n"
    "  --seed N            master seed (overrides the scenario's \"seed\")\n"
    "  --set PATH=VALUE    override any scenario value before validation; PATH\n"
    "                      is dotted, arrays by id/name or index, e.g.\n"
    "                      --set producers.p1.config.acks=0\n"
    "                      --set network.latency.ms=2.5\n"
    "                      --set 'faults=[{\"type\": \"drop.response\", \"request\": 3}]'\n"
    "                      VALUE is text, or JSON when it starts with [ { or \"\n"
    "                      (repeatable; applied in order)\n"
    "  -o, --out DIR       directory for the outputs (default ksim-out/NAME)\n"
    "  --trace FILE|-      trace file (default DIR/trace.jsonl; - = stdout)\n"
    "  --summary FILE|-    summary file (default DIR/summary.json; - = stdout)\n"
    "  --trace-level L     summary | batch | record | debug (default batch)\n"
    "  --no-trace          write no trace file\n"
    "  --no-expect         do not check the expect block (exploring with --set:\n"
    "                      the run exits 0 whatever it computes)\n"
    "  -q, --quiet         print nothing but errors and failed expectations\n"
    "  -h, --help          show this help\n"
    "\n"
    "The report ends with the delivery checker's verdicts (lost, duplicated,\n"
    "reordered, failed but present, indeterminate records) and the cause of\n"
    "the first anomalies; the summary's \"delivery\" object lists them all\n"
    "(docs/trace.md). Fault types: docs/scenario.md, \"faults\"; transactions\n"
    "and consumers: docs/scenario.md, \"transactions\" and \"consumers\".\n"
    "\n"
    "Outputs are written under a temporary name and renamed when complete.\n"
    "exit status: 0 ran and every expectation held, 1 an expectation failed,\n"
    "             2 bad usage, bad scenario, or outputs not writable\n";

const char ks_usage_validate[] =
    "usage: ksim validate [--set PATH=VALUE]... [--resolved] SCENARIO...\n"
    "\n"
    "Loads and checks each scenario as `ksim run` would, without running it,\n"
    "and reports every problem found: unknown keys (with \"did you mean\"),\n"
    "wrong types, out-of-range values, each with file and JSON path.\n"
    "\n"
    "options:\n"
    "  --set PATH=VALUE    as for run\n"
    "  --resolved          print each scenario with every default filled in\n"
    "  -h, --help          show this help\n"
    "\n"
    "exit status: 0 all valid, 2 some scenario is invalid\n";

static bool parse_override(const char *arg, ks_override *o)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return false;
    char *path = ks_strndup(arg, (size_t)(eq - arg));
    if (!path)
        return false;
    o->path = path;
    o->value = eq + 1;
    return true;
}

static void free_overrides(ks_override *ovr, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)ovr[i].path);
}

typedef struct run_opts {
    const char *scenario;
    bool has_seed;
    uint64_t seed;
    ks_override ovr[MAX_OVERRIDES];
    size_t n_ovr;
    const char *out_dir;
    const char *trace_path;
    const char *summary_path;
    ks_trace_level level;
    bool no_trace;
    bool no_expect;
    bool quiet;
} run_opts;

static void print_ms(FILE *f, int64_t ns)
{
    char b[40];
    fprintf(f, "%s ms", ks_fmt_ms(b, sizeof b, ns));
}

static json_t *jget(json_t *o, const char *path)
{
    ks_jref ref;
    const char *rest;
    return ks_json_lookup(o, path, &ref, &rest) ? ref.value : NULL;
}

static int64_t jint(json_t *o, const char *path)
{
    return (int64_t)json_integer_value(jget(o, path));
}

/* Prints s as one shell word in single quotes (' becomes '\''). */
static void print_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* Batches the leaders refused as larger than max.message.bytes, and how
 * many of them the producers split and sent again (a batch of one record
 * fails instead); nothing when there were none. */
static void print_too_large(FILE *f, json_t *summary, json_t *brokers)
{
    json_int_t refused = 0, split = 0;
    size_t i;
    json_t *b;
    json_array_foreach(brokers, i, b)
        refused += json_integer_value(json_object_get(b, "too_large"));
    const char *id;
    json_t *p;
    json_object_foreach(json_object_get(summary, "producers"), id, p)
        split += json_integer_value(json_object_get(p, "splits"));
    if (refused == 0)
        return;
    char rf[48];
    ks_fmt_count(rf, sizeof rf, refused, "batch", "batches");
    fprintf(f, "  too large  %s refused (MESSAGE_TOO_LARGE): %lld split and sent again, "
               "%lld failed (RecordTooLargeException)\n",
            rf, (long long)split, (long long)(refused - split));
}

/* Requests and batches over all producers, and how the brokers shared
 * the records. */
static void print_traffic(FILE *f, json_t *summary)
{
    json_int_t requests = 0, batches = 0, records = 0, retries = 0;
    const char *id;
    json_t *p;
    json_object_foreach(json_object_get(summary, "producers"), id, p) {
        requests += json_integer_value(json_object_get(p, "requests"));
        batches += json_integer_value(json_object_get(p, "batches"));
        retries += json_integer_value(json_object_get(p, "retries"));
        records += json_integer_value(json_object_get(p, "acked")) +
                   json_integer_value(json_object_get(p, "failed"));
    }
    /* records per batch over first sends: a retried batch is the same batch */
    json_int_t firsts = batches - retries;
    char rq[48], bt[48];
    ks_fmt_count(rq, sizeof rq, requests, "request", "requests");
    ks_fmt_count(bt, sizeof bt, batches, "batch", "batches");
    if (batches > 0 && retries > 0)
        fprintf(f, "  batching   %s, %s sent (%lld of them retries), %.1f records per batch\n",
                rq, bt, (long long)retries, firsts > 0 ? (double)records / (double)firsts : 0.0);
    else if (batches > 0)
        fprintf(f, "  batching   %s, %s, %.1f records per batch\n", rq, bt,
                (double)records / (double)batches);
    json_t *brokers = json_object_get(summary, "brokers");
    print_too_large(f, summary, brokers);
    if (json_array_size(brokers) < 2 || json_array_size(brokers) > 8)
        return;
    size_t i;
    json_t *b;
    /* one entry per broker, named: "broker 0: 20 records, 1.2% busy" */
    json_array_foreach(brokers, i, b) {
        char rec[48];
        ks_fmt_count(rec, sizeof rec, json_integer_value(json_object_get(b, "records")), "record",
                     "records");
        fprintf(f, "%s broker %lld: %s, %.1f%% busy", i ? ";" : "  brokers   ",
                (long long)json_integer_value(json_object_get(b, "id")), rec,
                (double)json_integer_value(json_object_get(b, "utilization_ppm")) / 1e4);
    }
    fprintf(f, "\n");
}

/* Of the records acknowledged, those whose producer has acks=0: they were
 * sent, and nobody acknowledged them. */
static int64_t unacknowledged(const ks_scenario *sc, json_t *summary)
{
    int64_t n = 0;
    for (uint32_t i = 0; i < sc->producer_count; i++)
        if (sc->producers[i].config[KS_PCFG_ACKS].i == 0)
            n += json_integer_value(json_object_get(
                json_object_get(json_object_get(summary, "producers"), sc->producers[i].id),
                "acked"));
    return n;
}

/* The records line and the latency line: avg, p50, p95, p99, p99.9 and
 * max, as kafka-producer-perf-test reports them. */
static void print_records(FILE *f, const ks_scenario *sc, json_t *summary)
{
    int64_t acked = jint(summary, "records.acked"), sent = unacknowledged(sc, summary);
    fprintf(f, "  records    %" PRId64 " produced, ", jint(summary, "records.produced"));
    if (sent > 0 && sent == acked)
        fprintf(f, "%" PRId64 " sent, not acknowledged (acks=0)", sent);
    else if (sent > 0)
        fprintf(f, "%" PRId64 " acked (%" PRId64 " of them sent, not acknowledged: acks=0)", acked,
                sent);
    else
        fprintf(f, "%" PRId64 " acked", acked);
    fprintf(f, ", %" PRId64 " failed, %" PRId64 " unresolved\n", jint(summary, "records.failed"),
            jint(summary, "records.unresolved"));
    static const char *const q[][2] = {{"p50", "p50"}, {"p95", "p95"}, {"p99", "p99"},
                                       {"p99.9", "p999"}, {"max", "max"}};
    char path[64], b[40];
    double mean = json_number_value(jget(summary, "latency_ns.mean"));
    fprintf(f, "  latency    avg %s ms", ks_fmt_ms(b, sizeof b, (int64_t)(mean + 0.5)));
    for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
        snprintf(path, sizeof path, "latency_ns.%s", q[i][1]);
        fprintf(f, ", %s %s ms", q[i][0], ks_fmt_ms(b, sizeof b, jint(summary, path)));
    }
    fprintf(f, sent > 0 && sent == acked ? " (send() to written: acks=0)\n"
                                         : " (send() to ack)\n");
}

/* Producers that never started, retries, and the delivery checker's
 * verdicts, with the first anomalies' causes. */
static void print_delivery(FILE *f, json_t *summary)
{
    const char *id;
    json_t *p;
    json_int_t retries = 0, expired = 0, closes = 0;
    json_object_foreach(json_object_get(summary, "producers"), id, p) {
        json_t *e = json_object_get(p, "error");
        if (e)
            fprintf(f, "  producer   %s did not start: %s\n", id, json_string_value(e));
        retries += json_integer_value(json_object_get(p, "retries"));
        expired += json_integer_value(json_object_get(p, "expired"));
        closes += json_integer_value(json_object_get(p, "disconnects"));
    }
    const char *tid;
    json_t *t;
    json_object_foreach(json_object_get(summary, "transactions"), tid, t)
        fprintf(f, "  txn        %s: %s at producer id %lld, epoch %lld (coordinator %lld)\n", tid,
                json_string_value(json_object_get(t, "state")),
                (long long)json_integer_value(json_object_get(t, "producer_id")),
                (long long)json_integer_value(json_object_get(t, "epoch")),
                (long long)json_integer_value(json_object_get(t, "coordinator")));
    json_object_foreach(json_object_get(summary, "consumers"), tid, t) {
        char rec[48], polls[48], commits[48];
        ks_fmt_count(rec, sizeof rec, json_integer_value(json_object_get(t, "records")), "record",
                     "records");
        ks_fmt_count(polls, sizeof polls, json_integer_value(json_object_get(t, "polls")), "poll",
                     "polls");
        ks_fmt_count(commits, sizeof commits, json_integer_value(json_object_get(t, "commits")),
                     "commit", "commits");
        fprintf(f, "  consumer   %s (%s): %s read in %s, %s%s\n", tid,
                json_string_value(json_object_get(t, "isolation_level")), rec, polls, commits,
                json_integer_value(json_object_get(t, "restarts")) > 0 ? ", restarted" : "");
    }
    json_int_t faults = 0;
    size_t i;
    json_t *fj;
    json_array_foreach(json_object_get(summary, "faults"), i, fj)
        faults += json_integer_value(json_object_get(fj, "hits"));
    if (retries || expired || closes || faults)
        fprintf(f, "  faults     %lld struck; %lld retries, %lld batches expired, %lld disconnects\n",
                (long long)faults, (long long)retries, (long long)expired, (long long)closes);
    json_t *d = json_object_get(summary, "delivery");
    if (!json_is_object(d))
        return;
    ks_sbuf counts = {0};
    ks_verdicts_phrases(&counts, d, true);
    fprintf(f, "  delivery   %s: %s\n", json_is_true(json_object_get(d, "ok")) ? "ok" : "ANOMALIES",
            ks_sb_str(&counts));
    ks_sb_free(&counts);
    json_t *a;
    json_array_foreach(json_object_get(d, "anomalies"), i, a) {
        if (i == 3) {
            fprintf(f, "             ... %lld in all: see the summary's delivery.anomalies\n",
                    (long long)jint(d, "anomalies_total"));
            break;
        }
        json_t *cause = json_object_get(a, "cause");
        fprintf(f, "             %s\n", cause ? json_string_value(cause) : "");
    }
}

static void print_reproduce(FILE *f, const run_opts *o, const ks_scenario *sc)
{
    fprintf(f, "  reproduce  ksim run ");
    if (strcmp(o->scenario, "-") == 0)
        fprintf(f, "SCENARIO.json");
    else
        print_quoted(f, o->scenario);
    fprintf(f, " --seed %" PRIu64, sc->seed);
    for (size_t i = 0; i < o->n_ovr; i++) {
        char *arg = malloc(strlen(o->ovr[i].path) + strlen(o->ovr[i].value) + 2);
        if (!arg)
            break;
        sprintf(arg, "%s=%s", o->ovr[i].path, o->ovr[i].value);
        fprintf(f, " --set ");
        print_quoted(f, arg);
        free(arg);
    }
    if (strcmp(o->scenario, "-") == 0)
        fprintf(f, "   (the scenario came from standard input: save it as SCENARIO.json)");
    fprintf(f, "\n");
}

/* One line per expectation that did not hold: its path, what was
 * expected, what the run gave, and why when it is no number. */
static void print_failed(FILE *f, const ks_expect_result *er)
{
    size_t i;
    json_t *e;
    json_array_foreach(er->report, i, e) {
        if (json_is_true(json_object_get(e, "ok")))
            continue;
        char *want = json_dumps(json_object_get(e, "expected"),
                                JSON_ENCODE_ANY | JSON_COMPACT | KS_JSON_REALS);
        char *got = json_dumps(json_object_get(e, "actual"),
                               JSON_ENCODE_ANY | JSON_COMPACT | KS_JSON_REALS);
        const char *sug = json_string_value(json_object_get(e, "did_you_mean"));
        fprintf(f, "    FAILED   %s: expected %s, got %s", json_string_value(json_object_get(e, "path")),
                want ? want : "?", got ? got : "?");
        if (json_object_get(e, "error"))
            fprintf(f, " (%s%s%s%s)", json_string_value(json_object_get(e, "error")),
                    sug ? "; did you mean \"" : "", sug ? sug : "", sug ? "\"?" : "");
        fprintf(f, "\n");
        free(want);
        free(got);
    }
}

static void print_report(FILE *f, const run_opts *o, const ks_scenario *sc, json_t *summary,
                         const ks_expect_result *er, const ks_trace *tr, const char *trace_path,
                         const char *summary_path)
{
    fprintf(f, "ksim %s: %s (seed %" PRIu64 ", Kafka %s)\n", KS_VERSION, sc->name, sc->seed,
            sc->kafka_version_text);
    fprintf(f, "  verdict    %s at ", json_string_value(jget(summary, "verdict")));
    print_ms(f, jint(summary, "time_ns"));
    fprintf(f, " of virtual time, %" PRId64 " events\n", jint(summary, "events"));
    print_records(f, sc, summary);
    int64_t span = jint(summary, "throughput.span_ns");
    if (span > 0) {
        /* from the counts, so that slow runs do not print 0 records/s */
        double rate = (double)jint(summary, "records.acked") * 1e9 / (double)span;
        fprintf(f, "  throughput %.*f records/s, %.3f MB/s of keys and values over ",
                rate < 100.0 ? 1 : 0, rate,
                (double)jint(summary, "throughput.bytes_per_sec") / 1e6);
        print_ms(f, span);
        fprintf(f, "\n");
    }
    print_traffic(f, summary);
    print_delivery(f, summary);
    if (o->no_expect && sc->expect)
        fprintf(f, "  expect     not checked (--no-expect)\n");
    if (er->checked > 0) {
        fprintf(f, "  expect     %zu of %zu held\n", er->checked - er->failed, er->checked);
        print_failed(f, er);
        if (er->failed)
            print_reproduce(f, o, sc);
    }
    if (trace_path)
        fprintf(f, "  trace      %s (%" PRIu64 " lines, level %s)\n", trace_path, tr->lines,
                ks_trace_level_name(tr->level));
    fprintf(f, "  summary    %s\n", summary_path);
}

/* The options of run. */
enum {
    RUN_HELP = 'h',
    RUN_QUIET = 'q',
    RUN_OUT = 'o',
    RUN_SEED = 256,
    RUN_SET,
    RUN_TRACE,
    RUN_SUMMARY,
    RUN_TRACE_LEVEL,
    RUN_NO_TRACE,
    RUN_NO_EXPECT
};

static const ks_opt_def run_options[] = {
    {RUN_HELP, 'h', "help", false},          {RUN_QUIET, 'q', "quiet", false},
    {RUN_OUT, 'o', "out", true},             {RUN_SEED, '\0', "seed", true},
    {RUN_SET, '\0', "set", true},            {RUN_TRACE, '\0', "trace", true},
    {RUN_SUMMARY, '\0', "summary", true},    {RUN_TRACE_LEVEL, '\0', "trace-level", true},
    {RUN_NO_TRACE, '\0', "no-trace", false}, {RUN_NO_EXPECT, '\0', "no-expect", false},
};

/* One option of run (p->value its value); returns 0, -1 after --help,
 * or an exit code (message printed). */
static int run_option(run_opts *o, int id, const ks_opt_parser *p)
{
    const char *v = p->value;
    switch (id) {
    case RUN_HELP:
        fputs(ks_usage_run, stdout);
        return -1;
    case RUN_QUIET:
        o->quiet = true;
        return 0;
    case RUN_OUT:
        if (!*v)
            return ks_status_usage("run", "%s: expected a directory", p->name);
        o->out_dir = v;
        return 0;
    case RUN_SEED:
        if (!ks_opt_uint(v, INT64_MAX, &o->seed))
            return ks_status_usage("run", "--seed: expected an integer from 0 to 2^63-1, got '%s'",
                                   v);
        o->has_seed = true;
        return 0;
    case RUN_SET:
        if (o->n_ovr == MAX_OVERRIDES)
            return ks_status_usage("run", "--set: too many --set options");
        if (!parse_override(v, &o->ovr[o->n_ovr]))
            return ks_status_usage("run", "--set: expected PATH=VALUE, got '%s'", v);
        o->n_ovr++;
        return 0;
    case RUN_TRACE:
        o->trace_path = v;
        return 0;
    case RUN_SUMMARY:
        o->summary_path = v;
        return 0;
    case RUN_TRACE_LEVEL:
        if (!ks_trace_level_parse(v, &o->level))
            return ks_status_usage("run", "--trace-level: expected summary, batch, record or "
                                   "debug, got '%s'", v);
        return 0;
    case RUN_NO_TRACE:
        o->no_trace = true;
        return 0;
    case RUN_NO_EXPECT:
        o->no_expect = true;
        return 0;
    }
    return 0;
}

/* Fills o from argv (argv[1] is "run"). Returns 0 to go on, -1 after
 * --help, or an exit code (message printed). */
static int parse_run_args(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->level = KS_TL_BATCH;
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 2, run_options, sizeof run_options / sizeof *run_options, false);
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END;) {
        int rc = 0;
        if (id == KS_OPT_ERROR)
            rc = ks_status_usage("run", "%s", p.error);
        else if (id == KS_OPT_OPERAND && o->scenario)
            rc = ks_status_usage("run", "one scenario at a time; unexpected '%s'", p.value);
        else if (id == KS_OPT_OPERAND)
            o->scenario = p.value;
        else
            rc = run_option(o, id, &p);
        if (rc != 0)
            return rc;
    }
    if (!o->scenario)
        return ks_status_usage("run", "missing SCENARIO (e.g. ksim run scenarios/hello.json)");
    if (o->trace_path && !*o->trace_path)
        return ks_status_usage("run", "--trace: expected FILE or -");
    if (o->summary_path && !*o->summary_path)
        return ks_status_usage("run", "--summary: expected FILE or -");
    if (o->trace_path && o->summary_path && strcmp(o->trace_path, "-") == 0 &&
        strcmp(o->summary_path, "-") == 0)
        return ks_status_usage("run", "--trace - and --summary - cannot both use standard output");
    return 0;
}

/* A scenario name as a directory name: anything but [A-Za-z0-9._-]
 * becomes '_', and a name made only of dots too, so that no name can
 * climb out of ksim-out/. */
static char *safe_dir_name(const char *name)
{
    char *d = ks_strdup(*name ? name : "unnamed");
    if (!d)
        return NULL;
    bool only_dots = true;
    for (char *p = d; *p; p++) {
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p))
            *p = '_';
        only_dots = only_dots && *p == '.';
    }
    if (only_dots || d[0] == '.')
        d[0] = '_'; /* no hidden or climbing directories */
    return d;
}

static char *join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

typedef struct run_paths {
    char *dir, *trace, *summary; /* trace NULL: --no-trace */
} run_paths;

static void free_paths(run_paths *p)
{
    free(p->dir);
    free(p->trace);
    free(p->summary);
}

/* Where the outputs go: --trace/--summary as given, else under --out or
 * ksim-out/NAME. */
static bool resolve_paths(const run_opts *o, const ks_scenario *sc, run_paths *p)
{
    memset(p, 0, sizeof *p);
    if (o->out_dir) {
        p->dir = ks_strdup(o->out_dir);
    } else {
        char *safe = safe_dir_name(sc->name);
        p->dir = safe ? join_path("ksim-out", safe) : NULL;
        free(safe);
    }
    if (!p->dir)
        return false;
    if (!o->no_trace)
        p->trace = o->trace_path ? ks_strdup(o->trace_path) : join_path(p->dir, "trace.jsonl");
    p->summary = o->summary_path ? ks_strdup(o->summary_path) : join_path(p->dir, "summary.json");
    return p->summary && (o->no_trace || p->trace);
}

/* Builds and runs the world; returns its summary with the expectations'
 * results added, or NULL (message printed) when it cannot run. A big
 * topology's summary is lean (models/world.h): *lean is then the world,
 * kept for ks_summary_dumpf to write its partitions from (the caller
 * frees it), else NULL. */
static json_t *simulate(const ks_scenario *sc, bool check, ks_trace *tr, ks_expect_result *er,
                        ks_world **lean)
{
    ks_diag diag;
    ks_diag_init(&diag);
    ks_world *w = ks_world_create(sc, tr, &diag);
    if (!w) {
        ks_status_diag("run", &diag);
        return NULL;
    }
    ks_world_run(w);
    bool is_lean = false;
    json_t *summary = ks_world_summary_lean(w, &is_lean);
    if (summary && is_lean) {
        *lean = w;
    } else {
        ks_world_free(w);
    }
    if (!summary) {
        ks_status_fail("run", "out of memory");
        return NULL;
    }
    ks_expect_check(check ? sc->expect : NULL, summary, er);
    json_t *ej = json_object();
    if (!check && sc->expect)
        json_object_set_new(ej, "skipped", json_true()); /* --no-expect */
    json_object_set_new(ej, "checked", json_integer((json_int_t)er->checked));
    json_object_set_new(ej, "failed", json_integer((json_int_t)er->failed));
    json_object_set(ej, "results", er->report);
    json_object_set_new(summary, "expect", ej);
    json_object_set_new(summary, "trace_lines", json_integer((json_int_t)tr->lines));
    return summary;
}

/* Writes the summary, then commits it with the trace as one
 * (ks_outfile_commit_all): both appear, or neither, and a summary never
 * sits beside the trace of another run. On failure (message printed)
 * nothing is left behind, not even the directories the run created. */
static bool write_outputs(const run_paths *p, json_t *summary, const ks_world *lean,
                          ks_outfile *tout, ks_trace *tr)
{
    char err[512];
    ks_outfile sout = {0};
    ks_outfile *both[2] = {tout, &sout};
    if (p->trace && !ks_trace_flush(tr)) {
        ks_status_fail("run", "%s: write failed: %s",
                       strcmp(p->trace, "-") == 0 ? "standard output" : p->trace,
                       strerror(tr->io_errno));
        ks_outfile_abort_all(both, 2);
        return false;
    }
    if (!ks_outfile_open(&sout, p->summary, err, sizeof err)) {
        ks_status_fail("run", "%s", err);
        ks_outfile_abort_all(both, 2);
        return false;
    }
    errno = 0;
    if (ks_summary_dumpf(summary, lean, sout.f, JSON_INDENT(2) | KS_JSON_REALS) != 0 ||
        fputc('\n', sout.f) == EOF) {
        ks_status_fail("run", "%s: write failed: %s",
                       sout.is_stdout ? "standard output" : p->summary,
                       strerror(errno ? errno : EIO));
        ks_outfile_abort_all(both, 2);
        return false;
    }
    if (!ks_outfile_commit_all(both, 2, err, sizeof err)) {
        ks_status_fail("run", "%s", err);
        return false;
    }
    return true;
}

/* Runs the loaded scenario; returns the exit code. */
static int run_loaded(run_opts *o, ks_scenario *sc)
{
    char err[512];
    run_paths paths = {0};
    ks_outfile tout = {0};
    ks_expect_result er = {0};
    json_t *summary = NULL;
    ks_world *lean = NULL; /* the world of a lean summary, until it is written */
    int rc = KS_EXIT_USAGE;
    ks_trace *tr = malloc(sizeof *tr);
    if (!tr || !resolve_paths(o, sc, &paths)) {
        ks_status_fail("run", "out of memory");
        free(tr);
        free_paths(&paths);
        return KS_EXIT_USAGE;
    }
    if (paths.trace && ks_outfile_same_target(paths.trace, paths.summary)) {
        rc = ks_status_usage("run", "the trace and the summary would be one file: %s",
                             paths.trace);
        goto out;
    }
    if (paths.trace && !ks_outfile_open(&tout, paths.trace, err, sizeof err)) {
        ks_status_fail("run", "%s", err);
        goto out;
    }
    ks_trace_init(tr, paths.trace ? tout.f : NULL, o->level);
    summary = simulate(sc, !o->no_expect, tr, &er, &lean);
    if (!summary) {
        ks_outfile_abort(&tout);
        goto out;
    }
    bool written = write_outputs(&paths, summary, lean, &tout, tr);
    ks_world_free(lean);
    lean = NULL;
    if (!written)
        goto out;
    rc = er.failed ? KS_EXIT_EXPECT : KS_EXIT_OK;
    if (!o->quiet) {
        bool to_stdout = (paths.trace && strcmp(paths.trace, "-") == 0) ||
                         strcmp(paths.summary, "-") == 0;
        print_report(to_stdout ? stderr : stdout, o, sc, summary, &er, tr, paths.trace,
                     paths.summary);
    } else if (er.failed) {
        ks_status_fail("run", "%s: %zu of %zu expectations failed", sc->name, er.failed,
                       er.checked);
        print_failed(stderr, &er);
        print_reproduce(stderr, o, sc);
    }

out:
    json_decref(er.report);
    json_decref(summary);
    ks_world_free(lean);
    free(tr);
    free_paths(&paths);
    return rc;
}

/* The command (tools/commands.h). */
int ks_cmd_run(int argc, char **argv)
{
    run_opts *o = malloc(sizeof *o);
    if (!o)
        return ks_status_fail("run", "out of memory");
    int rc = parse_run_args(argc, argv, o);
    if (rc != 0) {
        free_overrides(o->ovr, o->n_ovr);
        free(o);
        return rc < 0 ? KS_EXIT_OK : rc;
    }
    ks_diag diag;
    ks_diag_init(&diag);
    ks_scenario *sc = ks_scenario_load(o->scenario, o->ovr, o->n_ovr, o->has_seed, o->seed, &diag);
    if (!o->quiet || !sc)
        ks_status_diag("run", &diag);
    rc = sc ? run_loaded(o, sc) : KS_EXIT_USAGE;
    ks_scenario_free(sc);
    free_overrides(o->ovr, o->n_ovr);
    free(o);
    return rc;
}

typedef struct validate_opts {
    ks_override ovr[MAX_OVERRIDES];
    size_t n_ovr;
    bool resolved;
    const char **files; /* the SCENARIO arguments */
    size_t n_files;
} validate_opts;

enum { VALIDATE_HELP = 'h', VALIDATE_SET = 256, VALIDATE_RESOLVED };

static const ks_opt_def validate_options[] = {
    {VALIDATE_HELP, 'h', "help", false},
    {VALIDATE_SET, '\0', "set", true},
    {VALIDATE_RESOLVED, '\0', "resolved", false},
};

/* Fills o from argv (argv[1] is "validate"). Returns 0 to go on, -1 after
 * --help, or an exit code (message printed). */
static int parse_validate_args(int argc, char **argv, validate_opts *o)
{
    o->files = malloc((size_t)argc * sizeof *o->files);
    if (!o->files)
        return ks_status_fail("validate", "out of memory");
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 2, validate_options,
                sizeof validate_options / sizeof *validate_options, false);
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END;) {
        if (id == KS_OPT_ERROR)
            return ks_status_usage("validate", "%s", p.error);
        if (id == KS_OPT_OPERAND) {
            o->files[o->n_files++] = p.value;
        } else if (id == VALIDATE_HELP) {
            fputs(ks_usage_validate, stdout);
            return -1;
        } else if (id == VALIDATE_RESOLVED) {
            o->resolved = true;
        } else if (o->n_ovr == MAX_OVERRIDES || !parse_override(p.value, &o->ovr[o->n_ovr])) {
            return ks_status_usage("validate", "--set: expected PATH=VALUE, got '%s'", p.value);
        } else {
            o->n_ovr++;
        }
    }
    if (o->n_files == 0)
        return ks_status_usage("validate", "missing SCENARIO");
    return 0;
}

/* Loads and checks one scenario, printing its line (or its resolved
 * form) or the loader's messages; false when it is not valid. */
static bool validate_one(const validate_opts *o, const char *file)
{
    ks_diag diag;
    ks_diag_init(&diag);
    ks_scenario *sc = ks_scenario_load(file, o->ovr, o->n_ovr, false, 0, &diag);
    ks_world *w = sc ? ks_world_create(sc, NULL, &diag) : NULL;
    ks_status_diag("validate", &diag);
    if (w && o->resolved) {
        json_t *j = ks_scenario_to_json(sc);
        json_dumpf(j, stdout, JSON_INDENT(2) | ks_conf_reals_exact(j));
        fputc('\n', stdout);
        json_decref(j);
    } else if (w) {
        printf("%s: ok (%s: %u producer(s), %u topic(s), %u broker(s), Kafka %s%s)\n", file,
               sc->name, sc->producer_count, sc->topic_count, sc->broker_count,
               sc->kafka_version_text, sc->expect ? ", with expectations" : "");
    }
    bool ok = w != NULL;
    ks_world_free(w);
    ks_scenario_free(sc);
    return ok;
}

/* The command (tools/commands.h). */
int ks_cmd_validate(int argc, char **argv)
{
    validate_opts *o = calloc(1, sizeof *o);
    if (!o)
        return ks_status_fail("validate", "out of memory");
    int rc = parse_validate_args(argc, argv, o);
    if (rc == 0) {
        size_t bad = 0;
        for (size_t i = 0; i < o->n_files; i++)
            bad += !validate_one(o, o->files[i]);
        rc = bad ? KS_EXIT_USAGE : KS_EXIT_OK;
    } else if (rc < 0) {
        rc = KS_EXIT_OK;
    }
    free_overrides(o->ovr, o->n_ovr);
    free(o->files);
    free(o);
    return rc;
}
