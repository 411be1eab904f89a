/*
 * options.h - the commands' option parser: getopt_long's rules, with no
 * global state.
 *
 * Owns: reading one command's arguments against its table of options.
 * The rules are getopt_long's (GNU, argument permutation):
 *   --name=value and --name value; -o value and -ovalue;
 *   short options without a value combine: -qh is -q -h, and -qo DIR
 *   (or -qoDIR) is -q -o DIR;
 *   an option that takes a value takes the next argument whatever it is
 *   (--seed -3 gives the value "-3"); a flag given a value (--quiet=yes)
 *   is an error;
 *   "--" ends the options: every argument after it is an operand;
 *   "-" alone is an operand;
 *   operands may come before, between and after options (they are
 *   handed back in order), unless the table asks for options to end at
 *   the first operand (getopt's "+", for `ksim partition KEY...` and the
 *   top level `ksim COMMAND ...`).
 * Long names are matched whole: no abbreviations, so that adding an
 * option never breaks a command line that worked.
 *
 * Never prints: an error is handed back as a message for the caller to
 * print with its command's prefix (tools/status.h). Borrows argv and the
 * table; every string handed back points into argv or into the parser.
 */
#ifndef KS_OPTIONS_H
#define KS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One option: its id (handed back when it is met; any value >= 0), its
 * short letter ('\0': none), its long name without the dashes (NULL:
 * none), and whether it takes a value. */
typedef struct ks_opt_def {
    int id;
    char short_name;
    const char *long_name;
    bool has_value;
} ks_opt_def;

/* What ks_opt_next hands back besides an option's id. */
enum {
    KS_OPT_END = -1,     /* no arguments left */
    KS_OPT_OPERAND = -2, /* an operand, in value */
    KS_OPT_ERROR = -3    /* bad usage, described in error */
};

typedef struct ks_opt_parser {
    /* set by ks_opt_init */
    int argc;
    char **argv;
    const ks_opt_def *defs;
    size_t n_defs;
    bool stop_at_operand; /* options end at the first operand */
    /* where the parser is */
    int next;            /* the next argument to read */
    const char *cluster; /* the rest of a cluster of short options, or NULL */
    bool options_ended;  /* after "--", or the first operand when stop_at_operand */
    /* the last result */
    const char *value;   /* an option's value (NULL for a flag), or the operand */
    char name[128];      /* the option as written: "--seed" or "-o" */
    bool unknown;        /* the error is an option not in the table */
    char error[320];     /* KS_OPT_ERROR: what is wrong, e.g. "unknown option '--x'" */
} ks_opt_parser;

/* Starts reading argv[first..argc-1] against defs. */
void ks_opt_init(ks_opt_parser *p, int argc, char **argv, int first, const ks_opt_def *defs,
                 size_t n_defs, bool stop_at_operand);

/* The next option's id (its value, if it takes one, in p->value),
 * KS_OPT_OPERAND (the operand in p->value), KS_OPT_END, or KS_OPT_ERROR
 * (p->error says why; reading on after an error is allowed but the
 * commands stop). */
int ks_opt_next(ks_opt_parser *p);

/* The index in argv of the next argument to read: after KS_OPT_OPERAND,
 * the operand was argv[ks_opt_index(p) - 1]. */
int ks_opt_index(const ks_opt_parser *p);

/* A decimal option value: digits only (no sign, no space), at most max;
 * false otherwise. */
bool ks_opt_uint(const char *s, uint64_t max, uint64_t *out);

#endif
