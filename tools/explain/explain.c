/*
 * explain.c - `ksim explain`: a run's trace drawn the way the
 * delivery-guarantee notes draw it.
 *
 * Owns: the command's options, opening the trace and the output, the
 * lines above the steps, and the loop that reads a trace (format 1) line
 * by line: the header (header.c), then every line up to --to through
 * the shadow model (state.c) into numbered steps (dispatch.c, the
 * handlers and steps.c), each drawn as text (render_text.c) or Mermaid
 * (render_mermaid.c), then [RESULT] (result.c). tools/explain/internal.h lists the files.
 *
 * Lines are read with tools/trace_line.h, whatever their JSON
 * formatting, and every field read is of the type the format gives it,
 * or the trace is refused (the file, the line and the field named): a
 * wrong type never draws a wrong picture. The summary beside the trace
 * is checked the same way, by JSON path.
 *
 * Memory does not grow with the trace: lines are parsed one at a time,
 * and what is remembered about records, batches and requests is bounded.
 * The output depends only on the trace (and on the summary beside it).
 */
#include "tools/commands.h"
#include "tools/explain/internal.h"
#include "tools/explain/scenario_input.h"

#include "sim/outfile.h"
#include "tools/options.h"
#include "tools/status.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char ks_usage_explain[] =
    "usage: ksim explain TRACE|SCENARIO [options]\n"
    "\n"
    "Prints a run the way the delivery-guarantee notes draw it: numbered steps\n"
    "([STEP n] t=... ms), each a small sequence diagram between the producer,\n"
    "the broker (partition), the transaction coordinator and consumers (send,\n"
    "ACK, a lost ACK \xE2\x9C\x95, retry, COMMIT/ABORT markers), with the partition log\n"
    "and the broker's producer state (PID | Partition | Last Sequence) as boxes\n"
    "after the steps that change them, and a [RESULT] section: the logs, what\n"
    "each producer was told and, when DIR/summary.json lies beside the trace,\n"
    "what the delivery checker found.\n"
    "\n"
    "TRACE is a trace written by `ksim run --trace-level record` (records are\n"
    "named by their key, else \"record N\"); a batch-level trace is explained\n"
    "with requests and batches only. - reads standard input. A SCENARIO file\n"
    "(e.g. scenarios/seed-at-least-once.json) is run first, in process, at\n"
    "trace level record, and that run is explained; nothing is written.\n"
    "\n"
    "options:\n"
    "  --format F          text (default) or mermaid (a Mermaid sequenceDiagram)\n"
    "  --brief             text with one line per step, no diagrams or boxes\n"
    "  --from MS, --to MS  only the steps in this window of virtual time, in\n"
    "                      milliseconds (e.g. --from 1000 --to 1113.5). With\n"
    "                      --to, the run up to --to is explained: [RESULT] shows\n"
    "                      the logs and what each producer was told at --to\n"
    "                      (the summary's verdicts stay the whole run's)\n"
    "  --record NAME       only the steps about this record, named as explain\n"
    "                      names it: \"record 12\" or 12 (its id), \"record A\" or A\n"
    "                      (its key; the first record with it): its send(), the\n"
    "                      requests and batches that carried it, its appends,\n"
    "                      its ACK (a record-level trace)\n"
    "  --partition TOPIC-N only the steps about this partition, e.g. events-0,\n"
    "                      and the fault windows and crashes\n"
    "  --max-steps N       draw at most N steps (default 200; 0: no limit)\n"
    "  -o, --out FILE      write to FILE (whole, or not at all), not stdout\n"
    "  -h, --help          show this help\n"
    "\n"
    "The trace is read one line at a time, from its start whatever --from:\n"
    "every earlier line feeds the offsets, logs and producer state the steps\n"
    "and [RESULT] show, so --from cannot seek (lines before it that change\n"
    "none of these are passed over unparsed). Reading stops at the first\n"
    "line past --to (every line at --to is read): a trace is in time order.\n"
    "Without --to it goes on to the end, and [RESULT] shows how the run ended.\n"
    "exit status: 0 explained, 2 bad usage or a trace that cannot be read\n";

/* The lines above the steps: the run, its producers' delivery settings,
 * the filters, and what a batch-level trace lacks. */
static void write_intro(explain *e, ks_sbuf *out)
{
    ks_sb_printf(out, "ksim explain: %s (seed %" PRId64 ", Kafka %s), trace level %s\n",
                 e->scenario, e->seed, e->kafka, e->level);
    for (size_t i = 0; i < e->nprods && i < TOLD_MAX; i++) {
        const producer *p = &e->prods[i];
        ks_sb_printf(out, "  %s: acks=%s, enable.idempotence=%s, retries=%" PRId64, p->id, p->acks,
                     p->idempotent ? "true" : "false", p->retries);
        if (p->tid)
            ks_sb_printf(out, ", transactional.id=%s", p->tid);
        ks_sb_puts(out, "\n");
    }
    char a[32], b[32];
    ks_ex_fmt_ms(a, sizeof a, e->o.from_ns);
    ks_ex_fmt_ms(b, sizeof b, e->o.to_ns);
    if (e->o.has_from && e->o.has_to)
        ks_sb_printf(out, "  only the steps from t=%s ms to t=%s ms\n", a, b);
    else if (e->o.has_from)
        ks_sb_printf(out, "  only the steps from t=%s ms on\n", a);
    else if (e->o.has_to)
        ks_sb_printf(out, "  only the steps up to t=%s ms\n", b);
    if (e->o.has_record)
        ks_sb_printf(out, "  only the steps about record %" PRIu64 "\n", e->o.record);
    else if (e->o.by_record)
        ks_sb_printf(out, "  only the steps about record %s\n", e->o.record_key);
    if (e->o.partition)
        ks_sb_printf(out, "  only the steps about %s\n", e->o.partition);
    if (!e->record_level)
        ks_sb_puts(out, "  note: a batch-level trace has no produce, ack or consume lines: records "
                        "are not named, the steps show requests and batches only (run the scenario "
                        "with --trace-level record to see each record)\n");
}

/* What the read loop does with a line, from its first bytes. */
enum { LINE_PARSE, LINE_PASS, LINE_STOP };

/* LINE_STOP for a line past --to: the trace is in time order, so none
 * after it is in the window, and explain describes the run up to --to.
 * LINE_PASS for a line before --from of a kind ks_ex_handle_line returns
 * at once for (metrics, arrive, event): it changes nothing shown.
 * LINE_PARSE for any other, and for a line not written as ksim writes it
 * (ks_tl_peek reads the time and kind of those only): its time is known
 * once it is parsed. */
static int line_fate(const explain *e, const char *line, size_t len)
{
    int64_t t;
    ks_trace_kind k;
    size_t rest;
    if (!ks_tl_peek(line, len, &t, &k, &rest))
        return LINE_PARSE;
    if (e->o.has_to && t > e->o.to_ns)
        return LINE_STOP;
    bool before = e->o.has_from && t < e->o.from_ns;
    if (before && !e->read_all &&
        (k == KS_TR_METRICS || k == KS_TR_ARRIVE || k == KS_TR_EVENT))
        return LINE_PASS;
    return LINE_PARSE;
}

/* Follows the lines after the header, drawing the steps. Offsets, logs
 * and producer state are followed from the first line: the steps of the
 * window and [RESULT] (the logs, what each producer was told) show them,
 * so every line before --from is read. Reading stops at the first line
 * past --to (e->stopped_at_to): [RESULT] then shows the state at --to. */
static bool read_steps(explain *e, ks_tl_reader *r, ks_tline *l, char *err, size_t errlen)
{
    char *line;
    size_t len;
    for (;;) {
        int got = ks_tl_reader_next(r, &line, &len), fate = LINE_PARSE;
        if (got == 0)
            break;
        if (got > 0 && (fate = line_fate(e, line, len)) == LINE_PASS)
            continue;
        if (fate == LINE_STOP) {
            e->stopped_at_to = true;
            break;
        }
        if (got < 0 || ks_tl_record(r, l, line, len) < 0) {
            snprintf(err, errlen, "%s:%" PRIu64 ": %s", e->o.trace, r->line_no, r->err);
            return false;
        }
        if (e->o.has_to && l->t > e->o.to_ns) { /* a line ks_tl_peek cannot read */
            e->stopped_at_to = true;
            break;
        }
        ks_ex_handle_line(e, l);
        if (ks_tline_error(l)) {
            snprintf(err, errlen, "%s:%" PRIu64 ": %s", e->o.trace, r->line_no,
                     ks_tline_error(l));
            return false;
        }
        if (e->oom) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
    }
    if (e->pf.on)
        ks_ex_flush_pending_fault(e);
    ks_ex_step_flush(e);
    return true;
}

/* Reads and checks line 1 (the header), the --partition filter against
 * it, and the summary beside the trace. */
static bool explain_begin(explain *e, ks_tl_reader *r, ks_tline *l, char *err, size_t errlen)
{
    int got = ks_tl_next(r, l);
    if (got == 0)
        snprintf(err, errlen, "%s: empty: not a ksim trace", e->o.trace);
    else if (got < 0)
        snprintf(err, errlen, "%s:%" PRIu64 ": %s", e->o.trace, r->line_no, r->err);
    return got > 0 && ks_ex_read_header(e, l, err, errlen) &&
           ks_ex_resolve_partition(e, err, errlen) && ks_ex_load_summary(e, err, errlen);
}

/* Milliseconds such as 1113.5 as nanoseconds (exactly: no floating point). */
static bool parse_ms(const char *s, int64_t *ns)
{
    int64_t whole = 0, frac = 0;
    int digits = 0;
    if (*s < '0' || *s > '9')
        return false;
    for (; *s >= '0' && *s <= '9'; s++)
        if ((whole = whole * 10 + (*s - '0')) > 9000000000000LL)
            return false;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9' && digits < 6; s++, digits++)
            frac = frac * 10 + (*s - '0');
    if (*s)
        return false;
    for (; digits < 6; digits++)
        frac *= 10;
    *ns = whole * 1000000 + frac;
    return true;
}

enum {
    EX_HELP = 'h',
    EX_OUT = 'o',
    EX_FORMAT = 256,
    EX_BRIEF,
    EX_FROM,
    EX_TO,
    EX_RECORD,
    EX_PARTITION,
    EX_MAX_STEPS
};

static const ks_opt_def explain_options[] = {
    {EX_HELP, 'h', "help", false},         {EX_OUT, 'o', "out", true},
    {EX_FORMAT, '\0', "format", true},     {EX_BRIEF, '\0', "brief", false},
    {EX_FROM, '\0', "from", true},         {EX_TO, '\0', "to", true},
    {EX_RECORD, '\0', "record", true},     {EX_PARTITION, '\0', "partition", true},
    {EX_MAX_STEPS, '\0', "max-steps", true},
};

#define USAGE(...) ks_status_usage("explain", __VA_ARGS__)

/* One option (p->value its value); returns 0, -1 after --help, or an
 * exit code. */
static int parse_option(int id, const ks_opt_parser *p, opts *o)
{
    const char *v = p->value;
    uint64_t n;
    switch (id) {
    case EX_HELP:
        fputs(ks_usage_explain, stdout);
        return -1;
    case EX_FORMAT:
        if (strcmp(v, "text") != 0 && strcmp(v, "mermaid") != 0)
            return USAGE("--format: expected text or mermaid, got '%s'", v);
        o->mermaid = strcmp(v, "mermaid") == 0;
        break;
    case EX_BRIEF:
        o->brief = true;
        break;
    case EX_FROM:
        if (!(o->has_from = parse_ms(v, &o->from_ns)))
            return USAGE("--from: expected milliseconds such as 1000 or 1.5, got '%s'", v);
        break;
    case EX_TO:
        if (!(o->has_to = parse_ms(v, &o->to_ns)))
            return USAGE("--to: expected milliseconds such as 1000 or 1.5, got '%s'", v);
        break;
    case EX_RECORD:
        /* the names explain prints: "record 12", "record A" (its key), or
         * the id or key alone */
        if (strncmp(v, "record ", 7) == 0)
            v += 7;
        if (!*v)
            return USAGE("--record: expected a record id (0, 1, ...) or key, got '%s'", p->value);
        o->by_record = true;
        o->has_record = ks_opt_uint(v, INT64_MAX, &o->record);
        o->record_key = o->has_record ? NULL : v;
        break;
    case EX_PARTITION:
        o->partition = v;
        break;
    case EX_MAX_STEPS:
        if (!ks_opt_uint(v, INT64_MAX, &n))
            return USAGE("--max-steps: expected a number of steps (0: no limit), got '%s'", v);
        o->max_steps = (int64_t)n;
        break;
    case EX_OUT:
        if (!*v)
            return USAGE("%s: expected FILE or -", p->name);
        o->out = v;
        break;
    }
    return 0;
}

static int parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_steps = 200;
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 2, explain_options,
                sizeof explain_options / sizeof *explain_options, false);
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END;) {
        int rc = 0;
        if (id == KS_OPT_ERROR)
            rc = USAGE("%s", p.error);
        else if (id == KS_OPT_OPERAND && o->trace)
            rc = USAGE("one trace at a time; unexpected '%s'", p.value);
        else if (id == KS_OPT_OPERAND)
            o->trace = p.value;
        else
            rc = parse_option(id, &p, o);
        if (rc)
            return rc;
    }
    if (!o->trace)
        return USAGE("missing TRACE (e.g. ksim explain ksim-out/hello/trace.jsonl)");
    if (o->has_from && o->has_to && o->from_ns > o->to_ns)
        return USAGE("--from is after --to");
    return 0;
}

/* Writes the explanation of the steps after the header to out. */
static bool explain_body(explain *e, ks_tl_reader *r, ks_tline *l, FILE *out, char *err,
                         size_t errlen)
{
    e->out = out;
    ks_sbuf intro = {0};
    write_intro(e, &intro);
    if (!e->o.mermaid)
        fprintf(e->out, "%s\n", ks_sb_str(&intro));
    bool ok = read_steps(e, r, l, err, errlen);
    if (ok && e->o.by_record && !e->o.has_record) {
        char ms[32], to[48] = "";
        ks_ex_fmt_ms(ms, sizeof ms, e->o.to_ns);
        if (e->stopped_at_to) /* the key may come later */
            snprintf(to, sizeof to, " up to t=%s ms", ms);
        snprintf(err, errlen, "%s: --record: no record%s has the key '%s'", e->o.trace, to,
                 e->o.record_key);
        ok = false;
    }
    if (ok) {
        ks_ex_render_result(e);
        if (e->o.mermaid)
            ks_ex_write_mermaid(e, &intro);
    }
    ks_sb_free(&intro);
    if (ok && (e->oom || intro.oom)) {
        snprintf(err, errlen, "%s: out of memory", e->o.trace);
        ok = false;
    }
    return ok;
}

/* Reads the header, then the steps, writing to the output opened between
 * (whole, or not at all). */
static int explain_trace(explain *e, ks_tl_reader *r)
{
    char err[1024];
    ks_tline l;
    ks_tline_init(&l);
    ks_outfile out = {0};
    int rc = KS_EXIT_USAGE;
    if (!explain_begin(e, r, &l, err, sizeof err)) {
        ks_status_fail("explain", "%s", err);
    } else if (!ks_outfile_open(&out, e->o.out ? e->o.out : "-", err, sizeof err)) {
        ks_status_fail("explain", "%s", err);
    } else if (!explain_body(e, r, &l, out.f, err, sizeof err)) {
        ks_status_fail("explain", "%s", err);
        ks_outfile_abort(&out);
    } else if (!ks_outfile_commit(&out, err, sizeof err)) {
        ks_status_fail("explain", "%s", err);
    } else {
        rc = KS_EXIT_OK;
    }
    ks_tline_free(&l);
    return rc;
}

/* The command (tools/commands.h). */
int ks_cmd_explain(int argc, char **argv)
{
    explain *e = calloc(1, sizeof *e);
    if (!e)
        return KS_EXIT_USAGE;
    /* every line parsed and followed, none passed over: the reference the
     * tests compare windows with (tests/explain_window_check.sh) */
    const char *all = getenv("KSIM_EXPLAIN_READ_ALL");
    e->read_all = all && *all && strcmp(all, "0") != 0;
    int rc = parse_args(argc, argv, &e->o);
    if (rc) {
        free(e);
        return rc < 0 ? KS_EXIT_OK : rc;
    }
    FILE *in = strcmp(e->o.trace, "-") == 0 ? stdin : fopen(e->o.trace, "rb");
    int open_errno = errno;
    json_t *summary = NULL;
    bool is_scenario = false;
    FILE *run = in ? ks_ex_scenario_trace(in, e->o.trace, &summary, &is_scenario) : NULL;
    ks_tl_reader r;
    ks_tl_reader_init(&r, run ? run : in);
    if (!in) {
        ks_status_fail("explain", "%s: cannot open: %s", e->o.trace, strerror(open_errno));
        rc = KS_EXIT_USAGE;
    } else if (is_scenario && !run) {
        rc = KS_EXIT_USAGE; /* a scenario that cannot run: its messages are out */
    } else if (!ks_ex_init(e)) {
        ks_status_fail("explain", "out of memory");
        rc = KS_EXIT_USAGE;
    } else {
        if (run) { /* the run's own summary, not a file beside it */
            e->summary = summary;
            e->summary_ran = true;
            summary = NULL;
            e->o.no_summary = true;
        }
        rc = explain_trace(e, &r);
    }
    json_decref(summary);
    if (run)
        fclose(run);
    if (in && in != stdin)
        fclose(in);
    ks_tl_reader_free(&r);
    ks_ex_free(e);
    free(e);
    return rc;
}

/* The command with its default options, in process (tools/trace_line.h). */
int ks_explain_stream(FILE *in, const char *name, FILE *out, char *err, size_t errlen)
{
    explain *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return KS_EXIT_USAGE;
    }
    e->o.trace = name;
    e->o.max_steps = 200;
    e->o.no_summary = true;
    ks_tl_reader r;
    ks_tl_reader_init(&r, in);
    ks_tline l;
    ks_tline_init(&l);
    bool ok = ks_ex_init(e);
    if (!ok)
        snprintf(err, errlen, "out of memory");
    ok = ok && explain_begin(e, &r, &l, err, errlen) && explain_body(e, &r, &l, out, err, errlen);
    ks_tline_free(&l);
    ks_tl_reader_free(&r);
    ks_ex_free(e);
    free(e);
    return ok ? KS_EXIT_OK : KS_EXIT_USAGE;
}
