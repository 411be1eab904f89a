/*
 * options.c - the commands' option parser (see options.h).
 *
 * A result is decided by the argument at p->next, or by the rest of a
 * cluster of short options (p->cluster) when one is being read:
 *   in a cluster             the next letter: a flag, or an option whose
 *                            value is the rest of the cluster or the
 *                            next argument
 *   after "--" (or the first operand, when options end there)
 *                            an operand
 *   "--"                     ends the options, read on
 *   "--name" / "--name=v"    a long option
 *   "-x..." (not "-")        starts a cluster
 *   anything else            an operand
 */
#include "tools/options.h"

#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ks_opt_init(ks_opt_parser *p, int argc, char **argv, int first, const ks_opt_def *defs,
                 size_t n_defs, bool stop_at_operand)
{
    memset(p, 0, sizeof *p);
    p->argc = argc;
    p->argv = argv;
    p->defs = defs;
    p->n_defs = n_defs;
    p->stop_at_operand = stop_at_operand;
    p->next = first;
}

int ks_opt_index(const ks_opt_parser *p)
{
    return p->next;
}

/* An error about the option in p->name: "BEFORE'NAME'AFTER". */
static int fail(ks_opt_parser *p, bool unknown, const char *before, const char *after)
{
    p->unknown = unknown;
    snprintf(p->error, sizeof p->error, "%s'%s'%s", before, p->name, after);
    return KS_OPT_ERROR;
}

static const ks_opt_def *find_long(const ks_opt_parser *p, const char *name, size_t len)
{
    for (size_t i = 0; i < p->n_defs; i++) {
        const char *l = p->defs[i].long_name;
        if (l && strlen(l) == len && strncmp(l, name, len) == 0)
            return &p->defs[i];
    }
    return NULL;
}

static const ks_opt_def *find_short(const ks_opt_parser *p, char c)
{
    for (size_t i = 0; i < p->n_defs; i++)
        if (p->defs[i].short_name != '\0' && p->defs[i].short_name == c)
            return &p->defs[i];
    return NULL;
}

/* "--name" or "--name=value" at argv[p->next - 1] (already taken). */
static int long_option(ks_opt_parser *p, const char *arg)
{
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    snprintf(p->name, sizeof p->name, "--%.*s", (int)(len < 120 ? len : 120), name);
    const ks_opt_def *d = find_long(p, name, len);
    if (!d)
        return fail(p, true, "unknown option ", "");
    if (!d->has_value) {
        if (eq)
            return fail(p, false, "option ", " takes no value");
        return d->id;
    }
    if (eq) {
        p->value = eq + 1;
    } else if (p->next < p->argc) {
        p->value = p->argv[p->next++];
    } else {
        return fail(p, false, "option ", " requires a value");
    }
    return d->id;
}

/* The next letter of the cluster at p->cluster. */
static int short_option(ks_opt_parser *p)
{
    char c = *p->cluster++;
    snprintf(p->name, sizeof p->name, "-%c", c);
    const ks_opt_def *d = find_short(p, c);
    if (*p->cluster == '\0')
        p->cluster = NULL;
    if (!d)
        return fail(p, true, "unknown option ", "");
    if (!d->has_value)
        return d->id;
    if (p->cluster) {
        p->value = p->cluster;
        p->cluster = NULL;
    } else if (p->next < p->argc) {
        p->value = p->argv[p->next++];
    } else {
        return fail(p, false, "option ", " requires a value");
    }
    return d->id;
}

int ks_opt_next(ks_opt_parser *p)
{
    p->value = NULL;
    p->name[0] = '\0';
    p->unknown = false;
    p->error[0] = '\0';
    if (p->cluster)
        return short_option(p);
    if (p->next >= p->argc)
        return KS_OPT_END;
    const char *arg = p->argv[p->next++];
    if (!p->options_ended && strcmp(arg, "--") == 0) {
        p->options_ended = true;
        return ks_opt_next(p);
    }
    if (!p->options_ended && arg[0] == '-' && arg[1] == '-')
        return long_option(p, arg);
    if (!p->options_ended && arg[0] == '-' && arg[1] != '\0') {
        p->cluster = arg + 1;
        return short_option(p);
    }
    if (p->stop_at_operand)
        p->options_ended = true;
    p->value = arg;
    return KS_OPT_OPERAND;
}

bool ks_opt_uint(const char *s, uint64_t max, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}
