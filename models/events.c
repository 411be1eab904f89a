/*
 * events.c - the names of the event kinds (see events.h).
 */
#include "models/events.h"

#include <assert.h>

static const char *const kind_names[] = {
#define X(e, name) name,
    KS_EVENT_KINDS(X)
#undef X
};

const char *ks_event_kind_name(ks_event_kind kind)
{
    assert((unsigned)kind < (unsigned)KS_EV__COUNT);
    return kind_names[kind];
}
