/*
 * verdicts.c - the table of the delivery checker's verdicts, generated
 * from KS_VERDICTS (see verdicts.h), and how a summary's counts read.
 */
#include "models/check/verdicts.h"

#include <assert.h>
#include <inttypes.h>

static const ks_verdict_info verdicts[] = {
#define X(e, key, label, phrase, cls, txn, bar, console) \
    {key, label, phrase, KS_VC_##cls, txn, KS_VS_##bar, KS_VS_##console},
    KS_VERDICTS(X)
#undef X
};

_Static_assert(sizeof verdicts / sizeof verdicts[0] == KS_VERDICT__COUNT,
               "one entry per verdict");

const ks_verdict_info *ks_verdict_info_of(ks_verdict v)
{
    assert((unsigned)v < (unsigned)KS_VERDICT__COUNT);
    return &verdicts[v];
}

const char *ks_verdict_key(ks_verdict v)
{
    return ks_verdict_info_of(v)->key;
}

static int64_t count_of(const json_t *delivery, const char *key)
{
    return (int64_t)json_integer_value(json_object_get(delivery, key));
}

/* failed_and_absent: the records told they failed, less those present
 * anyway (never below 0). */
int64_t ks_verdict_count(const json_t *delivery, ks_verdict v)
{
    if (v != KS_VERDICT_FAILED_AND_ABSENT)
        return count_of(delivery, ks_verdict_key(v));
    int64_t failed = count_of(json_object_get(delivery, "records"), "failed");
    int64_t n = failed - count_of(delivery, ks_verdict_key(KS_VERDICT_FAILED_BUT_PRESENT));
    return n > 0 ? n : 0;
}

void ks_verdicts_phrases(ks_sbuf *out, const json_t *delivery, bool txn)
{
    bool first = true;
    for (int i = 0; i < KS_VERDICT__COUNT; i++) {
        const ks_verdict_info *v = &verdicts[i];
        int64_t n = ks_verdict_count(delivery, (ks_verdict)i);
        bool shown = v->console == KS_VS_ALWAYS ||
                     (v->console == KS_VS_CHECKED && json_object_get(delivery, v->key)) ||
                     (v->console == KS_VS_NONZERO && n > 0);
        if (!shown || (v->txn && !txn))
            continue;
        if (v->cls == KS_VC_MEASURE)
            ks_sb_printf(out, " (+%" PRId64 " %s)", n, v->phrase);
        else
            ks_sb_printf(out, "%s%" PRId64 " %s", first ? "" : ", ", n, v->phrase);
        first = false;
    }
}
