/*
 * export.c - `ksim export`: a run's trace in another tool's format. One
 * format so far, Chrome's Trace Event format (the JSON that Perfetto's UI
 * and chrome://tracing open).
 *
 * Owns: the command's options, opening the trace and the output (whole,
 * or not at all: sim/outfile.h), and the loop that reads the trace line by
 * line (tools/trace_line.h): the header (header.c), every line (lines.c),
 * then the requests still in flight, the metadata naming the processes
 * and tracks (tracks.c) and the run's facts as "otherData".
 *
 * The output depends only on the trace: the same trace gives the same
 * bytes. Memory does not grow with the trace (tools/export/internal.h).
 */
#include "tools/commands.h"
#include "tools/export/internal.h"

#include "sim/outfile.h"
#include "tools/options.h"
#include "tools/status.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char ks_usage_export[] =
    "usage: ksim export [--format chrome] TRACE [-o FILE]\n"
    "\n"
    "Writes a run's trace in Chrome's Trace Event format: the JSON that\n"
    "Perfetto's UI (ui.perfetto.dev, Open trace file) and chrome://tracing\n"
    "open. Each node of the run is a process (brokers, then producers, then\n"
    "consumers, as ksim numbers nodes: pid = node + 1), the run itself one\n"
    "more (its metrics as counters, the end); each has tracks (threads):\n"
    "  - per connection of a client to a broker (a producer's, a consumer's,\n"
    "    or a broker's own: WriteTxnMarkers, AddPartitionsToTxn), its requests\n"
    "    from send to response as durations, named by API (args: the send\n"
    "    line's fields, the response's error and rtt_ns, and \"end\": how it\n"
    "    ended); requests in flight together are drawn on the connection's\n"
    "    lanes (\"p1 \xE2\x86\x92 broker 0 #2\", \"c1 \xE2\x86\x92 broker 0\",\n"
    "    \"broker0 \xE2\x86\x92 broker 1\");\n"
    "  - the producer's batches (created, drained, acked, failed, retried),\n"
    "    its state changes and the faults that hit it, its send() and acks;\n"
    "  - per broker: requests arriving, each partition's appends and\n"
    "    transaction markers, the transaction coordinator's states;\n"
    "  - per consumer: its polls and commits, and its connections.\n"
    "Instants carry their trace line's fields as args (times in ns, as in\n"
    "the trace). Faults are placed at the time they strike; a crash or a\n"
    "fault window marks its node's whole process.\n"
    "\n"
    "What a trace holds depends on its --trace-level (ksim run):\n"
    "  summary   the metrics counters and the end only\n"
    "  batch     (the default) + requests, batches, arrivals, appends,\n"
    "            markers, transactions, producer states, faults and crashes\n"
    "  record    + every record's send() and ack, consumer polls, offset\n"
    "            commits, forwards\n"
    "  debug     + every engine event, on the run's \"engine events\" track\n"
    "\n"
    "TRACE is a trace.jsonl, or the directory of a run (DIR/trace.jsonl);\n"
    "- reads standard input. Timestamps are microseconds written exactly\n"
    "(ns as decimals: 1234.567); the same trace gives the same bytes.\n"
    "\n"
    "options:\n"
    "  --format F          chrome (the default; the only format so far)\n"
    "  -o, --out FILE      write to FILE (whole, or not at all), not stdout\n"
    "  -h, --help          show this help\n"
    "\n"
    "exit status: 0 exported, 2 bad usage or a trace that cannot be read\n";

typedef struct xopts {
    const char *trace, *out;
} xopts;

enum { XP_HELP = 'h', XP_OUT = 'o', XP_FORMAT = 256 };

static const ks_opt_def export_options[] = {
    {XP_HELP, 'h', "help", false},
    {XP_OUT, 'o', "out", true},
    {XP_FORMAT, '\0', "format", true},
};

#define USAGE(...) ks_status_usage("export", __VA_ARGS__)

/* The options; 0, -1 after --help, or an exit code. */
static int parse_args(int argc, char **argv, xopts *o)
{
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 2, export_options, sizeof export_options / sizeof *export_options,
                false);
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END;) {
        if (id == KS_OPT_ERROR)
            return USAGE("%s", p.error);
        if (id == XP_HELP) {
            fputs(ks_usage_export, stdout);
            return -1;
        }
        if (id == XP_FORMAT && strcmp(p.value, "chrome") != 0)
            return USAGE("--format: expected chrome, got '%s'", p.value);
        if (id == XP_OUT && !*p.value)
            return USAGE("%s: expected FILE or -", p.name);
        if (id == XP_OUT)
            o->out = p.value;
        if (id == KS_OPT_OPERAND && o->trace)
            return USAGE("one trace at a time; unexpected '%s'", p.value);
        if (id == KS_OPT_OPERAND)
            o->trace = p.value;
    }
    if (!o->trace)
        return USAGE("missing TRACE (e.g. ksim export ksim-out/hello/trace.jsonl -o hello.json)");
    return 0;
}

static void exporter_free(exporter *x)
{
    ks_xp_requests_free(x);
    ks_xp_tracks_free(x);
    for (size_t i = 0; x->cons && i < x->ncons; i++)
        free(x->cons[i]);
    free(x->cons);
    free(x->prod_order);
    free(x->cons_order);
    free(x->scenario);
    free(x->kafka);
    free(x->level);
    free(x->ksim);
    free(x->verdict);
    ks_sb_free(&x->ev);
}

/* The run's facts, after the events. */
static void write_tail(exporter *x)
{
    ks_sbuf *b = &x->ev;
    ks_sb_clear(b);
    ks_sb_puts(b, "\n],\n\"otherData\":{\"ksim\":");
    ks_xp_json_str(b, x->ksim);
    ks_sb_puts(b, ",\"scenario\":");
    ks_xp_json_str(b, x->scenario);
    ks_sb_printf(b, ",\"seed\":%" PRId64 ",\"kafka\":", x->seed);
    ks_xp_json_str(b, x->kafka);
    ks_sb_puts(b, ",\"level\":");
    ks_xp_json_str(b, x->level);
    ks_sb_puts(b, ",\"verdict\":");
    if (x->verdict)
        ks_xp_json_str(b, x->verdict);
    else
        ks_sb_puts(b, "null");
    ks_sb_printf(b, ",\"time_ns\":%" PRId64 ",\"requests\":%" PRIu64 ",\"trace_format\":1}}\n",
                 x->last_t, x->requests);
    if (b->oom)
        x->oom = true;
    else
        ks_xp_write(x, b->s, b->len);
}

/* Reads the trace (its header already in l) and writes the export. */
static bool convert(exporter *x, ks_tl_reader *r, ks_tline *l, char *err, size_t errlen)
{
    static const char head[] = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
    ks_xp_write(x, head, sizeof head - 1);
    for (int got; (got = ks_tl_next(r, l)) != 0;) {
        if (got < 0) {
            snprintf(err, errlen, "%s:%" PRIu64 ": %s", x->name, r->line_no, r->err);
            return false;
        }
        if (!ks_xp_line(x, l)) {
            const char *why = ks_tline_error(l) ? ks_tline_error(l)
                              : x->err[0]       ? x->err
                                                : "out of memory";
            snprintf(err, errlen, "%s:%" PRIu64 ": %s", x->name, r->line_no, why);
            return false;
        }
    }
    ks_xp_close_all(x, x->last_t); /* a trace cut short has no end line */
    ks_xp_write_metadata(x);
    write_tail(x);
    if (x->oom)
        snprintf(err, errlen, "%s: out of memory", x->name);
    else if (x->write_failed || ferror(x->out))
        snprintf(err, errlen, "%s: write failed", x->name);
    return !x->oom && !x->write_failed && !ferror(x->out);
}

/* Line 1: the header. */
static bool begin(exporter *x, ks_tl_reader *r, ks_tline *l, char *err, size_t errlen)
{
    int got = ks_tl_next(r, l);
    if (got == 0)
        snprintf(err, errlen, "%s: empty: not a ksim trace", x->name);
    else if (got < 0)
        snprintf(err, errlen, "%s:%" PRIu64 ": %s: not a ksim trace", x->name, r->line_no,
                 r->err);
    else if (!ks_xp_read_header(x, l))
        snprintf(err, errlen, "%s", x->err[0] ? x->err : "out of memory");
    return got > 0 && !x->err[0] && !x->oom;
}

/* Reads the trace from in, writing the export to the output `out` opens
 * (whole, or not at all). */
static int export_trace(FILE *in, const char *name, const char *out_path)
{
    char err[1024];
    exporter *x = calloc(1, sizeof *x);
    if (!x)
        return ks_status_fail("export", "out of memory");
    x->name = name;
    ks_tl_reader r;
    ks_tl_reader_init(&r, in);
    ks_tline l;
    ks_tline_init(&l);
    ks_outfile out = {0};
    int rc = KS_EXIT_USAGE;
    bool opened = begin(x, &r, &l, err, sizeof err) &&
                  ks_outfile_open(&out, out_path, err, sizeof err);
    x->out = out.f;
    if (!opened) {
        ks_status_fail("export", "%s", err);
    } else if (!convert(x, &r, &l, err, sizeof err)) {
        ks_status_fail("export", "%s", err);
        ks_outfile_abort(&out);
    } else if (!ks_outfile_commit(&out, err, sizeof err)) {
        ks_status_fail("export", "%s", err);
    } else {
        rc = KS_EXIT_OK;
    }
    ks_tline_free(&l);
    ks_tl_reader_free(&r);
    exporter_free(x);
    free(x);
    return rc;
}

/* The command (tools/commands.h). */
int ks_cmd_export(int argc, char **argv)
{
    xopts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? KS_EXIT_OK : rc;
    char path[4096];
    struct stat st;
    const char *trace = o.trace;
    if (strcmp(trace, "-") != 0 && stat(trace, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(path, sizeof path, "%s/trace.jsonl", trace);
        trace = path;
    }
    const char *out = o.out ? o.out : "-";
    if (strcmp(trace, "-") != 0 && ks_outfile_same_target(trace, out))
        return ks_status_fail("export", "%s: -o names the trace itself: it would be overwritten",
                              out);
    FILE *in = strcmp(trace, "-") == 0 ? stdin : fopen(trace, "rb");
    if (!in)
        return ks_status_fail("export", "%s: cannot open: %s", trace, strerror(errno));
    rc = export_trace(in, trace, out);
    if (in != stdin)
        fclose(in);
    return rc;
}

/* The command in process (tools/trace_line.h): the trace read from in,
 * the export written to out as it goes. */
int ks_export_stream(FILE *in, const char *name, FILE *out, char *err, size_t errlen)
{
    exporter *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return KS_EXIT_USAGE;
    }
    x->name = name;
    x->out = out;
    ks_tl_reader r;
    ks_tl_reader_init(&r, in);
    ks_tline l;
    ks_tline_init(&l);
    bool ok = begin(x, &r, &l, err, errlen) && convert(x, &r, &l, err, errlen);
    ks_tline_free(&l);
    ks_tl_reader_free(&r);
    exporter_free(x);
    free(x);
    return ok ? KS_EXIT_OK : KS_EXIT_USAGE;
}
