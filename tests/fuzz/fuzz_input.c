/*
 * fuzz_input.c - splitting a fuzzer's input into --set overrides and a
 * scenario file (see fuzz_input.h). Never reads past `size`.
 */
#include "tests/fuzz/fuzz_input.h"

#include <stdlib.h>
#include <string.h>

/* The length of the override line at p (its newline excluded), or 0 when
 * the line is not an override. */
static size_t override_line(const char *p, size_t left)
{
    if (left == 0 || strchr("{ \t\r\n", p[0]) != NULL || p[0] == '=')
        return 0;
    const char *nl = memchr(p, '\n', left);
    if (!nl)
        return 0;
    size_t n = (size_t)(nl - p);
    if (memchr(p, '\0', n) || !memchr(p, '=', n))
        return 0;
    return n;
}

bool ks_fuzz_input_split(ks_fuzz_input *in, const uint8_t *data, size_t size)
{
    memset(in, 0, sizeof *in);
    const char *p = (const char *)data;
    size_t left = size;
    size_t n;
    while (in->n_ovr < KS_FUZZ_MAX_OVERRIDES && (n = override_line(p, left)) > 0) {
        char *t = malloc(n + 1);
        if (!t) {
            ks_fuzz_input_free(in);
            return false;
        }
        memcpy(t, p, n);
        t[n] = '\0';
        char *eq = strchr(t, '=');
        *eq = '\0';
        in->text[in->n_ovr] = t;
        in->ovr[in->n_ovr].path = t;
        in->ovr[in->n_ovr].value = eq + 1;
        in->n_ovr++;
        p += n + 1;
        left -= n + 1;
    }
    in->body = p;
    in->body_len = left;
    return true;
}

void ks_fuzz_input_free(ks_fuzz_input *in)
{
    for (size_t i = 0; i < in->n_ovr; i++)
        free(in->text[i]);
    in->n_ovr = 0;
}

ks_scenario *ks_fuzz_load(const ks_fuzz_input *in, ks_diag *diag)
{
    return ks_scenario_parse_bytes("fuzz.json", in->body, in->body_len, in->ovr, in->n_ovr,
                                   false, 0, diag);
}

bool ks_fuzz_too_big(const ks_scenario *sc)
{
    uint64_t parts = 0;
    for (uint32_t i = 0; i < sc->topic_count; i++)
        parts += sc->topics[i].max_partitions;
    uint64_t clients = (uint64_t)sc->producer_count + sc->consumer_count + 1;
    return parts * clients > KS_FUZZ_MAX_CELLS;
}
