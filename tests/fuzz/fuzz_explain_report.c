/*
 * fuzz_explain_report.c - fuzzes the commands that read a whole trace
 * with the trace-line reader (tools/trace_line.h): `ksim explain` with
 * its default options (ks_explain_stream, written to /dev/null), then
 * what `ksim report` reads of a trace (ks_report_stream), then `ksim
 * export` (ks_export_stream, written to /dev/null). The input is
 * the trace, read from memory. The reader itself, line by line, is
 * fuzz_trace's; this harness is slower (each run builds and frees all of
 * explain's state), so it has its own.
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen */

#include "tests/fuzz/fuzz_target.h"

#include "tools/trace_line.h"

#include <stdio.h>

static FILE *sink(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    return f;
}

/* The input as a stream; an empty input is an empty file (fmemopen may
 * refuse a size of 0). */
static FILE *open_input(const uint8_t *data, size_t size)
{
    return size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    FILE *in = open_input(data, size);
    if (in) {
        ks_explain_stream(in, "fuzz.jsonl", sink(), err, sizeof err);
        fclose(in);
    }
    in = open_input(data, size);
    if (in) {
        ks_report_stream(in, "fuzz.jsonl", err, sizeof err);
        fclose(in);
    }
    in = open_input(data, size);
    if (in) {
        ks_export_stream(in, "fuzz.jsonl", sink(), err, sizeof err);
        fclose(in);
    }
    return 0;
}
