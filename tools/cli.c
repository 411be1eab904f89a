/*
 * cli.c - the ksim command line (see cli.h).
 */
#include "tools/cli.h"
#include "tools/commands.h"

#include "ks_version.h"
#include "models/check/verdicts.h"
#include "models/producer/partitioner.h"
#include "models/world.h"
#include "sim/expect.h"
#include "sim/json_path.h"
#include "sim/outfile.h"
#include "models/scenario.h"
#include "sim/str.h"
#include "sim/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OVERRIDES KS_MAX_OVERRIDES

static const char usage_main[] =
    "usage: ksim COMMAND [ARGS]\n"
    "\n"
    "ksim replays what Kafka producers and brokers do, record by record, in\n"
    "virtual time. Same scenario + same seed = the same trace, byte for byte.\n"
    "\n"
    "commands:\n"
    "  run SCENARIO        simulate a scenario; write its trace and summary\n"
    "  validate SCENARIO...  check scenario files without running them\n"
    "  check [PATH]...     run scenarios against their expect blocks, for CI\n"
    "                      (one line each; --junit FILE, --tap)\n"
    "  report RUN...       charts and a page (index.html, report.md) from runs\n"
    "  explain TRACE       a run step by step, as the notes draw it (text or\n"
    "                      Mermaid), with the partition logs as boxes\n"
    "  defaults            list the Kafka configs ksim knows, with defaults\n"
    "  partition           where keys go under Kafka's default partitioner\n"
    "  help [COMMAND]      show help for a command\n"
    "\n"
    "options:\n"
    "  -h, --help          show this help\n"
    "  -V, --version       print the version\n"
    "\n"
    "exit status: 0 success, 1 an expectation in the scenario failed,\n"
    "             2 bad usage or bad input (or outputs that cannot be written)\n"
    "\n"
    "Scenario format: docs/scenario.md. Trace and summary format: docs/trace.md.\n"
    "Delivery guarantees step by step, with these commands: docs/tutorial.md.\n";

static const char usage_run[] =
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
    "  --out DIR           directory for the outputs (default ksim-out/NAME)\n"
    "  --trace FILE|-      trace file (default DIR/trace.jsonl; - = stdout)\n"
    "  --summary FILE|-    summary file (default DIR/summary.json; - = stdout)\n"
    "  --trace-level L     summary | batch | record | debug (default batch)\n"
    "  --no-trace          write no trace file\n"
    "  -q, --quiet         print nothing but errors\n"
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

static const char usage_validate[] =
    "usage: ksim validate [--set PATH=VALUE]... [--resolved] SCENARIO...\n"
    "\n"
    "Loads and checks each scenario as `ksim run` would, without running it,\n"
    "and reports every problem found: unknown keys (with \"did you mean\"),\n"
    "wrong types, out-of-range values, each with file and JSON path.\n"
    "\n"
    "options:\n"
    "  --set PATH=VALUE    as for run\n"
    "  --resolved          print each scenario with every default filled in\n"
    "\n"
    "exit status: 0 all valid, 2 some scenario is invalid\n";

static const char usage_defaults[] =
    "usage: ksim defaults [--kafka-version V]\n"
    "\n"
    "Lists the producer and broker configs a scenario may set, with their\n"
    "defaults under Kafka version V (default " KS_KAFKA_VERSION_DEFAULT
    "), and the ksim model that\n"
    "reads each one (\"-\": accepted, no model reads it yet).\n";

static const char usage_partition[] =
    "usage: ksim partition --partitions N [--key-hex] [-v] [KEY...]\n"
    "\n"
    "Prints the partition of each KEY under Kafka's default partitioner, one\n"
    "per line: toPositive(murmur2(key bytes)) % N, over all N partitions, as\n"
    "the Java client computes it. Keys are taken as UTF-8 text (what\n"
    "StringSerializer sends), or as hex bytes with --key-hex. Without KEY\n"
    "arguments, keys are read from standard input, one per line. An empty key\n"
    "is a key and is hashed; a null key has no key partition (the keyless\n"
    "partitioners decide).\n"
    "\n"
    "options:\n"
    "  --partitions N      the topic's partition count (1..1000000)\n"
    "  --key-hex           keys are hex byte strings, e.g. 0a1bff\n"
    "  -v, --verbose       print key, murmur2 (as Java's int) and partition\n";

static int usage_error(const char *fmt, const char *arg, const char *cmd)
{
    fprintf(stderr, "ksim: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'ksim %s--help' for more information.\n", cmd);
    return KS_EXIT_USAGE;
}

const char *ks_cli_option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc)
        return "";
    (*i)++;
    return argv[*i];
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

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
    bool quiet;
} run_opts;

static void print_ms(FILE *f, int64_t ns)
{
    fprintf(f, "%" PRId64 ".%03" PRId64 " ms", ns / 1000000, (ns % 1000000) / 1000);
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
    if (batches > 0 && retries > 0)
        fprintf(f, "  batching   %lld requests, %lld batches sent (%lld of them retries), "
                   "%.1f records per batch\n",
                (long long)requests, (long long)batches, (long long)retries,
                firsts > 0 ? (double)records / (double)firsts : 0.0);
    else if (batches > 0)
        fprintf(f, "  batching   %lld requests, %lld batches, %.1f records per batch\n",
                (long long)requests, (long long)batches, (double)records / (double)batches);
    json_t *brokers = json_object_get(summary, "brokers");
    if (json_array_size(brokers) < 2 || json_array_size(brokers) > 8)
        return;
    fprintf(f, "  brokers    records");
    size_t i;
    json_t *b;
    json_array_foreach(brokers, i, b) {
        fprintf(f, "%s%lld", i ? " / " : " ", (long long)json_integer_value(json_object_get(b, "records")));
    }
    fprintf(f, ", utilization");
    json_array_foreach(brokers, i, b) {
        fprintf(f, "%s%.1f%%", i ? " / " : " ",
                (double)json_integer_value(json_object_get(b, "utilization_ppm")) / 1e4);
    }
    fprintf(f, "\n");
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
    json_object_foreach(json_object_get(summary, "consumers"), tid, t)
        fprintf(f, "  consumer   %s (%s): %lld records read in %lld polls, %lld commits%s\n", tid,
                json_string_value(json_object_get(t, "isolation_level")),
                (long long)json_integer_value(json_object_get(t, "records")),
                (long long)json_integer_value(json_object_get(t, "polls")),
                (long long)json_integer_value(json_object_get(t, "commits")),
                json_integer_value(json_object_get(t, "restarts")) > 0 ? ", restarted" : "");
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

static void print_report(FILE *f, const run_opts *o, const ks_scenario *sc, json_t *summary,
                         const ks_expect_result *er, const ks_trace *tr, const char *trace_path,
                         const char *summary_path)
{
    fprintf(f, "ksim %s: %s (seed %" PRIu64 ", Kafka %s)\n", KS_VERSION, sc->name, sc->seed,
            sc->kafka_version_text);
    fprintf(f, "  verdict    %s at ", json_string_value(jget(summary, "verdict")));
    print_ms(f, jint(summary, "time_ns"));
    fprintf(f, " of virtual time, %" PRId64 " events\n", jint(summary, "events"));
    fprintf(f, "  records    %" PRId64 " produced, %" PRId64 " acked, %" PRId64 " failed, %" PRId64
               " unresolved\n",
            jint(summary, "records.produced"), jint(summary, "records.acked"),
            jint(summary, "records.failed"), jint(summary, "records.unresolved"));
    fprintf(f, "  latency    p50 ");
    print_ms(f, jint(summary, "latency_ns.p50"));
    fprintf(f, ", p99 ");
    print_ms(f, jint(summary, "latency_ns.p99"));
    fprintf(f, ", max ");
    print_ms(f, jint(summary, "latency_ns.max"));
    fprintf(f, " (send() to ack)\n");
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
    if (er->checked > 0) {
        fprintf(f, "  expect     %zu of %zu held\n", er->checked - er->failed, er->checked);
        size_t i;
        json_t *e;
        json_array_foreach(er->report, i, e) {
            if (json_is_true(json_object_get(e, "ok")))
                continue;
            char *want = json_dumps(json_object_get(e, "expected"), JSON_ENCODE_ANY | JSON_COMPACT);
            char *got = json_dumps(json_object_get(e, "actual"), JSON_ENCODE_ANY | JSON_COMPACT);
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
        if (er->failed)
            print_reproduce(f, o, sc);
    }
    if (trace_path)
        fprintf(f, "  trace      %s (%" PRIu64 " lines, level %s)\n", trace_path, tr->lines,
                ks_trace_level_name(tr->level));
    fprintf(f, "  summary    %s\n", summary_path);
}

static int parse_run_args(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->level = KS_TL_BATCH;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_run, stdout);
            return -1;
        } else if ((v = ks_cli_option_value(argc, argv, &i, "--seed"))) {
            if (!parse_u64(v, &o->seed) || o->seed > (uint64_t)INT64_MAX)
                return usage_error("--seed: expected an integer from 0 to 2^63-1, got '%s'", v,
                                   "run ");
            o->has_seed = true;
        } else if ((v = ks_cli_option_value(argc, argv, &i, "--set"))) {
            if (o->n_ovr == MAX_OVERRIDES)
                return usage_error("%s: too many --set options", "--set", "run ");
            if (!parse_override(v, &o->ovr[o->n_ovr]))
                return usage_error("--set: expected PATH=VALUE, got '%s'", v, "run ");
            o->n_ovr++;
        } else if ((v = ks_cli_option_value(argc, argv, &i, "--out"))) {
            o->out_dir = v;
        } else if ((v = ks_cli_option_value(argc, argv, &i, "--trace"))) {
            o->trace_path = v;
        } else if ((v = ks_cli_option_value(argc, argv, &i, "--summary"))) {
            o->summary_path = v;
        } else if ((v = ks_cli_option_value(argc, argv, &i, "--trace-level"))) {
            if (!ks_trace_level_parse(v, &o->level))
                return usage_error("--trace-level: expected summary, batch, record or debug, "
                                   "got '%s'", v, "run ");
        } else if (strcmp(a, "--no-trace") == 0) {
            o->no_trace = true;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            o->quiet = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("run: unknown option '%s'", a, "run ");
        } else if (o->scenario) {
            return usage_error("run: one scenario at a time; unexpected '%s'", a, "run ");
        } else {
            o->scenario = a;
        }
    }
    if (!o->scenario)
        return usage_error("run: %s", "missing SCENARIO (e.g. ksim run scenarios/hello.json)",
                           "run ");
    if (o->trace_path && !*o->trace_path)
        return usage_error("--trace: %s", "expected FILE or -", "run ");
    if (o->summary_path && !*o->summary_path)
        return usage_error("--summary: %s", "expected FILE or -", "run ");
    if (o->trace_path && o->summary_path && strcmp(o->trace_path, "-") == 0 &&
        strcmp(o->summary_path, "-") == 0)
        return usage_error("%s", "--trace - and --summary - cannot both use standard output",
                           "run ");
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
 * results added, or NULL (message printed) when it cannot run. */
static json_t *simulate(const ks_scenario *sc, ks_trace *tr, ks_expect_result *er)
{
    ks_diag diag;
    ks_diag_init(&diag);
    ks_world *w = ks_world_create(sc, tr, &diag);
    if (!w) {
        ks_diag_print(&diag, stderr);
        return NULL;
    }
    ks_world_run(w);
    json_t *summary = ks_world_summary(w);
    ks_world_free(w);
    ks_expect_check(sc->expect, summary, er);
    json_t *ej = json_object();
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
static bool write_outputs(const run_paths *p, json_t *summary, ks_outfile *tout, ks_trace *tr)
{
    char err[512];
    ks_outfile sout = {0};
    ks_outfile *both[2] = {tout, &sout};
    if (p->trace && !ks_trace_flush(tr)) {
        fprintf(stderr, "ksim: error: %s: write failed: %s\n",
                strcmp(p->trace, "-") == 0 ? "standard output" : p->trace,
                strerror(tr->io_errno));
        ks_outfile_abort_all(both, 2);
        return false;
    }
    if (!ks_outfile_open(&sout, p->summary, err, sizeof err)) {
        fprintf(stderr, "ksim: error: %s\n", err);
        ks_outfile_abort_all(both, 2);
        return false;
    }
    errno = 0;
    if (json_dumpf(summary, sout.f, JSON_INDENT(2)) != 0 || fputc('\n', sout.f) == EOF) {
        fprintf(stderr, "ksim: error: %s: write failed: %s\n",
                sout.is_stdout ? "standard output" : p->summary,
                strerror(errno ? errno : EIO));
        ks_outfile_abort_all(both, 2);
        return false;
    }
    if (!ks_outfile_commit_all(both, 2, err, sizeof err)) {
        fprintf(stderr, "ksim: error: %s\n", err);
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
    int rc = KS_EXIT_USAGE;
    ks_trace *tr = malloc(sizeof *tr);
    if (!tr || !resolve_paths(o, sc, &paths)) {
        fprintf(stderr, "ksim: error: out of memory\n");
        free(tr);
        free_paths(&paths);
        return KS_EXIT_USAGE;
    }
    if (paths.trace && ks_outfile_same_target(paths.trace, paths.summary)) {
        rc = usage_error("run: the trace and the summary would be one file: %s", paths.trace,
                         "run ");
        goto out;
    }
    if (paths.trace && !ks_outfile_open(&tout, paths.trace, err, sizeof err)) {
        fprintf(stderr, "ksim: error: %s\n", err);
        goto out;
    }
    ks_trace_init(tr, paths.trace ? tout.f : NULL, o->level);
    summary = simulate(sc, tr, &er);
    if (!summary) {
        ks_outfile_abort(&tout);
        goto out;
    }
    if (!write_outputs(&paths, summary, &tout, tr))
        goto out;
    rc = er.failed ? KS_EXIT_EXPECT : KS_EXIT_OK;
    if (!o->quiet) {
        bool to_stdout = (paths.trace && strcmp(paths.trace, "-") == 0) ||
                         strcmp(paths.summary, "-") == 0;
        print_report(to_stdout ? stderr : stdout, o, sc, summary, &er, tr, paths.trace,
                     paths.summary);
    } else if (er.failed) {
        fprintf(stderr, "ksim: %s: %zu of %zu expectations failed\n", sc->name, er.failed,
                er.checked);
        print_reproduce(stderr, o, sc);
    }

out:
    json_decref(er.report);
    json_decref(summary);
    free(tr);
    free_paths(&paths);
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    run_opts *o = malloc(sizeof *o);
    if (!o)
        return KS_EXIT_USAGE;
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
        ks_diag_print(&diag, stderr);
    rc = sc ? run_loaded(o, sc) : KS_EXIT_USAGE;
    ks_scenario_free(sc);
    free_overrides(o->ovr, o->n_ovr);
    free(o);
    return rc;
}

static int cmd_validate(int argc, char **argv)
{
    ks_override ovr[MAX_OVERRIDES];
    size_t n_ovr = 0;
    bool resolved = false;
    int files = 0, bad = 0;
    for (int i = 2; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage_validate, stdout);
            free_overrides(ovr, n_ovr);
            return KS_EXIT_OK;
        } else if (strcmp(argv[i], "--resolved") == 0) {
            resolved = true;
        } else if ((v = ks_cli_option_value(argc, argv, &i, "--set"))) {
            if (n_ovr == MAX_OVERRIDES || !parse_override(v, &ovr[n_ovr])) {
                free_overrides(ovr, n_ovr);
                return usage_error("--set: expected PATH=VALUE, got '%s'", v, "validate ");
            }
            n_ovr++;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            free_overrides(ovr, n_ovr);
            return usage_error("validate: unknown option '%s'", argv[i], "validate ");
        }
    }
    for (int i = 2; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            if (strcmp(argv[i], "--set") == 0)
                i++;
            continue;
        }
        files++;
        ks_diag diag;
        ks_diag_init(&diag);
        ks_scenario *sc = ks_scenario_load(argv[i], ovr, n_ovr, false, 0, &diag);
        ks_world *w = sc ? ks_world_create(sc, NULL, &diag) : NULL;
        ks_diag_print(&diag, stderr);
        if (!w) {
            bad++;
        } else if (resolved) {
            json_t *j = ks_scenario_to_json(sc);
            json_dumpf(j, stdout, JSON_INDENT(2));
            fputc('\n', stdout);
            json_decref(j);
        } else {
            printf("%s: ok (%s: %u producer(s), %u topic(s), %u broker(s), Kafka %s%s)\n",
                   argv[i], sc->name, sc->producer_count, sc->topic_count, sc->broker_count,
                   sc->kafka_version_text, sc->expect ? ", with expectations" : "");
        }
        ks_world_free(w);
        ks_scenario_free(sc);
    }
    free_overrides(ovr, n_ovr);
    if (files == 0)
        return usage_error("validate: %s", "missing SCENARIO", "validate ");
    return bad ? KS_EXIT_USAGE : KS_EXIT_OK;
}

static void print_table(const ks_cfg_table *t, ks_kafka_version v)
{
    printf("%s configs:\n", t->what);
    for (int i = 0; i < t->count; i++) {
        const ks_cfg_def *d = &t->defs[i];
        if ((d->since && v < d->since) || (d->until && v >= d->until))
            continue;
        ks_cfg_value val = ks_cfg_default(t, i, v);
        char def[64];
        switch (d->type) {
        case KS_CFG_INT:
        case KS_CFG_LONG:
            snprintf(def, sizeof def, "%" PRId64, val.i);
            break;
        case KS_CFG_BOOL:
            snprintf(def, sizeof def, "%s", val.i ? "true" : "false");
            break;
        case KS_CFG_STRING:
            snprintf(def, sizeof def, "%s", val.s ? val.s : "null");
            break;
        case KS_CFG_ENUM:
            snprintf(def, sizeof def, "%s", d->choices[val.i]);
            break;
        case KS_CFG_ACKS:
            snprintf(def, sizeof def, "%s", val.i == KS_ACKS_ALL ? "all" : val.i ? "1" : "0");
            break;
        }
        printf("  %-58s %-11s %-9s %s\n", t->names[i], def, d->read_by ? d->read_by : "-", d->doc);
    }
}

static int cmd_defaults(int argc, char **argv)
{
    const char *ver = KS_KAFKA_VERSION_DEFAULT;
    for (int i = 2; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage_defaults, stdout);
            return KS_EXIT_OK;
        } else if ((v = ks_cli_option_value(argc, argv, &i, "--kafka-version"))) {
            ver = v;
        } else {
            return usage_error("defaults: unexpected '%s'", argv[i], "defaults ");
        }
    }
    ks_kafka_version kv;
    if (!ks_kafka_version_parse(ver, &kv))
        return usage_error("--kafka-version: expected a release from 2.0 to 4.1 such as 3.9, "
                           "got '%s'", ver, "defaults ");
    printf("Kafka %s defaults (key, default, read by, note)\n\n", ver);
    print_table(&ks_producer_configs, kv);
    printf("\n");
    print_table(&ks_broker_configs, kv);
    return KS_EXIT_OK;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Prints one key's partition; false (message printed) for a bad hex key. */
static bool print_partition(const char *key, bool hex, bool verbose, uint32_t n)
{
    size_t len = strlen(key);
    uint8_t *bytes = malloc(len + 1);
    if (!bytes)
        return false;
    size_t blen = len;
    if (hex) {
        if (len % 2 != 0) {
            fprintf(stderr, "ksim: partition: '%s': a hex key needs an even number of digits\n", key);
            free(bytes);
            return false;
        }
        blen = len / 2;
        for (size_t i = 0; i < blen; i++) {
            int hi = hex_value(key[2 * i]), lo = hex_value(key[2 * i + 1]);
            if (hi < 0 || lo < 0) {
                fprintf(stderr, "ksim: partition: '%s': not a hex byte string\n", key);
                free(bytes);
                return false;
            }
            bytes[i] = (uint8_t)(hi * 16 + lo);
        }
    } else {
        memcpy(bytes, key, len);
    }
    uint32_t p = ks_partition_for_key(bytes, blen, n);
    if (verbose)
        printf("%s\t%" PRId32 "\t%" PRIu32 "\n", key, ks_murmur2(bytes, blen), p);
    else
        printf("%" PRIu32 "\n", p);
    free(bytes);
    return true;
}

static int cmd_partition(int argc, char **argv)
{
    uint64_t n = 0;
    bool hex = false, verbose = false, have_n = false;
    int first_key = argc;
    for (int i = 2; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage_partition, stdout);
            return KS_EXIT_OK;
        } else if ((v = ks_cli_option_value(argc, argv, &i, "--partitions"))) {
            if (!parse_u64(v, &n) || n < 1 || n > 1000000)
                return usage_error("--partitions: expected an integer from 1 to 1000000, got '%s'",
                                   v, "partition ");
            have_n = true;
        } else if (strcmp(argv[i], "--key-hex") == 0) {
            hex = true;
        } else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
            verbose = true;
        } else if (strcmp(argv[i], "--") == 0) {
            first_key = i + 1;
            break;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage_error("partition: unknown option '%s' (use -- before keys that start "
                               "with -)", argv[i], "partition ");
        } else {
            first_key = i;
            break;
        }
    }
    if (!have_n)
        return usage_error("partition: %s", "--partitions N is required", "partition ");
    bool ok = true;
    if (first_key < argc) {
        for (int i = first_key; i < argc; i++)
            ok = print_partition(argv[i], hex, verbose, (uint32_t)n) && ok;
    } else {
        char line[65536];
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\r\n")] = '\0';
            ok = print_partition(line, hex, verbose, (uint32_t)n) && ok;
        }
    }
    return ok ? KS_EXIT_OK : KS_EXIT_USAGE;
}

static int dispatch(int argc, char **argv);

/* The OS error of the first failed flush of standard output, for the
 * message at the end (command-line state, not simulation state). */
static int stdout_errno;

bool ks_cli_flush(FILE *f)
{
    errno = 0;
    if (fflush(f) == 0)
        return true;
    if (f == stdout && !stdout_errno)
        stdout_errno = errno;
    return false;
}

/* Whatever a command printed must have reached standard output: a full
 * disk or a closed pipe is an error (exit 2), never a silent success. */
static int check_stdout(const char *cmd, int rc)
{
    if (ks_cli_flush(stdout) && !ferror(stdout) && !stdout_errno)
        return rc;
    int e = stdout_errno;
    stdout_errno = 0;
    clearerr(stdout);
    if (rc == KS_EXIT_USAGE && !e)
        return rc; /* the command failed already and said why */
    fprintf(stderr, "ksim: %s%sstandard output: write failed: %s\n", cmd, *cmd ? ": " : "",
            e ? strerror(e) : "an earlier write failed");
    return KS_EXIT_USAGE;
}

int ks_cli_main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    const char *cmd = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
    return check_stdout(cmd, rc);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return KS_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        fputs(usage_main, stdout);
        return KS_EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("ksim %s (scenario format %d, trace format %d)\n", KS_VERSION, KS_SCENARIO_FORMAT,
               KS_TRACE_FORMAT);
        return KS_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0) {
        const char *topic = argc > 2 ? argv[2] : "";
        if (strcmp(topic, "run") == 0)
            fputs(usage_run, stdout);
        else if (strcmp(topic, "partition") == 0)
            fputs(usage_partition, stdout);
        else if (strcmp(topic, "validate") == 0)
            fputs(usage_validate, stdout);
        else if (strcmp(topic, "defaults") == 0)
            fputs(usage_defaults, stdout);
        else if (strcmp(topic, "check") == 0)
            fputs(ks_usage_check, stdout);
        else if (strcmp(topic, "report") == 0)
            fputs(ks_usage_report, stdout);
        else if (strcmp(topic, "explain") == 0)
            fputs(ks_usage_explain, stdout);
        else if (!*topic)
            fputs(usage_main, stdout);
        else
            return usage_error("help: unknown command '%s'", topic, "");
        return KS_EXIT_OK;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc, argv);
    if (strcmp(cmd, "validate") == 0)
        return cmd_validate(argc, argv);
    if (strcmp(cmd, "defaults") == 0)
        return cmd_defaults(argc, argv);
    if (strcmp(cmd, "partition") == 0)
        return cmd_partition(argc, argv);
    if (strcmp(cmd, "check") == 0)
        return ks_cmd_check(argc, argv);
    if (strcmp(cmd, "report") == 0)
        return ks_cmd_report(argc, argv);
    if (strcmp(cmd, "explain") == 0)
        return ks_cmd_explain(argc, argv);
    static const char *const cmds[] = {"run", "validate", "defaults", "partition", "check",
                                       "report", "explain", "help"};
    const char *s = ks_suggest(cmd, cmds, sizeof cmds / sizeof *cmds);
    fprintf(stderr, "ksim: unknown command '%s'", cmd);
    if (s)
        fprintf(stderr, " (did you mean '%s'?)", s);
    fprintf(stderr, "\nTry 'ksim --help' for more information.\n");
    return KS_EXIT_USAGE;
}
