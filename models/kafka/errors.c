/*
 * errors.c - the error table of kafka_errors.h, generated from its
 * X-macro list.
 */
#include "models/kafka/errors.h"

#include <assert.h>
#include <string.h>

typedef struct kerr_def {
    int16_t code;
    const char *name, *exception;
    bool retriable, injectable;
} kerr_def;

static const kerr_def defs[] = {
#define X(e, code, name, exc, retriable, injectable) {code, name, exc, retriable, injectable},
    KS_KAFKA_ERRORS(X)
#undef X
};

static const kerr_def *def(ks_kerr e)
{
    assert((unsigned)e < (unsigned)KS_KERR__COUNT);
    return &defs[e];
}

int16_t ks_kerr_code(ks_kerr e) { return def(e)->code; }
const char *ks_kerr_name(ks_kerr e) { return def(e)->name; }
const char *ks_kerr_exception(ks_kerr e) { return def(e)->exception; }
bool ks_kerr_retriable(ks_kerr e) { return def(e)->retriable; }
bool ks_kerr_injectable(ks_kerr e) { return def(e)->injectable; }

bool ks_kerr_find(const char *name, ks_kerr *out)
{
    for (int i = 0; i < KS_KERR__COUNT; i++) {
        if (strcmp(defs[i].name, name) == 0) {
            *out = (ks_kerr)i;
            return true;
        }
    }
    return false;
}

static const char *const api_names[] = {
#define X(e, name, key) name,
    KS_APIS(X)
#undef X
};

const char *ks_api_name(ks_api a)
{
    assert((unsigned)a < (unsigned)KS_API__COUNT);
    return api_names[a];
}

bool ks_api_find(const char *name, ks_api *out)
{
    for (int i = 0; i < KS_API__COUNT; i++) {
        if (strcmp(api_names[i], name) == 0) {
            *out = (ks_api)i;
            return true;
        }
    }
    return false;
}

bool ks_kerr_invalid_metadata(ks_kerr e)
{
    return e == KS_KERR_NOT_LEADER_OR_FOLLOWER || e == KS_KERR_UNKNOWN_TOPIC_OR_PARTITION ||
           e == KS_KERR_KAFKA_STORAGE_ERROR;
}
