/*
 * trace_kinds.c - the names and levels of the trace's record kinds (see
 * trace_kinds.h), generated from KS_TRACE_KINDS.
 */
#include "models/trace_kinds.h"

#include <assert.h>

static const char *const kind_names[] = {
#define X(e, name, level) name,
    KS_TRACE_KINDS(X)
#undef X
};

static const unsigned char kind_levels[] = {
#define X(e, name, level) (unsigned char)KS_TL_##level,
    KS_TRACE_KINDS(X)
#undef X
};

_Static_assert(KS_TR__COUNT <= KS_TRACE_KINDS_MAX, "the trace writer counts lines per kind");

const ks_trace_schema ks_trace_kinds = {KS_TR__COUNT, kind_names, kind_levels};

const char *ks_trace_kind_name(ks_trace_kind k)
{
    assert((unsigned)k < (unsigned)KS_TR__COUNT);
    return kind_names[k];
}
