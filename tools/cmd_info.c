/*
 * cmd_info.c - `ksim defaults` and `ksim partition`: what ksim knows of
 * Kafka, asked without a scenario.
 *
 * Owns: both commands' options and usage texts; the tables of the configs
 * a scenario may set with their defaults under a Kafka version, the model
 * that reads each and the configs that depend on the version (from
 * models/kafka/config.h), as text or as the Markdown tables of
 * docs/scenario.md; and the partition of keys under Kafka's
 * default partitioner (models/producer/partitioner.h), from arguments or
 * standard input. Writes only to standard output and standard error.
 */
#include "tools/commands.h"

#include "models/kafka/config.h"
#include "models/producer/partitioner.h"
#include "tools/options.h"
#include "tools/status.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char ks_usage_defaults[] =
    "usage: ksim defaults [--kafka-version V] [--format text|markdown] [TABLE...]\n"
    "\n"
    "Lists the producer, broker and topic configs a scenario may set, with\n"
    "their defaults under Kafka version V (default " KS_KAFKA_VERSION_DEFAULT
    "), the ksim model\n"
    "that reads each one (\"-\": accepted, no model reads it yet) and a note.\n"
    "A topic config a topic does not set takes the broker's value. TABLE\n"
    "picks what is listed: producer, broker, topic, versions (the configs\n"
    "whose default or existence depends on the Kafka version); without it,\n"
    "producer, broker and topic.\n"
    "\n"
    "options:\n"
    "  --kafka-version V   a release from 2.0 to 4.1, e.g. 3.9\n"
    "  --format F          text (default) or markdown: Markdown tables with the\n"
    "                      type of each config too, as docs/scenario.md shows them\n"
    "  -h, --help          show this help\n";

const char ks_usage_partition[] =
    "usage: ksim partition --partitions N [--key-hex] [-v] [KEY...]\n"
    "\n"
    "Prints the partition of each KEY under Kafka's default partitioner, one\n"
    "per line: toPositive(murmur2(key bytes)) % N, over all N partitions, as\n"
    "the Java client computes it. Keys are taken as UTF-8 text (what\n"
    "StringSerializer sends), or as hex bytes with --key-hex. Without KEY\n"
    "arguments, keys are read from standard input, one per line. An empty key\n"
    "is a key and is hashed; a null key has no key partition (the keyless\n"
    "partitioners decide).\n"
    "\n"
    "options:\n"
    "  --partitions N      the topic's partition count (1..1000000)\n"
    "  --key-hex           keys are hex byte strings, e.g. 0a1bff\n"
    "  -v, --verbose       print key, murmur2 (as Java's int) and partition\n"
    "  -h, --help          show this help\n"
    "\n"
    "Options come before the keys: the first KEY ends them, and so does --\n"
    "(for a first key that starts with -).\n";

/* The tables the command can list, as bits. */
enum { TABLE_PRODUCER = 1, TABLE_BROKER = 2, TABLE_VERSIONS = 4, TABLE_TOPIC = 8 };

typedef struct defaults_opts {
    const char *version; /* as given */
    ks_kafka_version kv;
    bool markdown;
    unsigned tables;
} defaults_opts;

static bool exists_in(const ks_cfg_def *d, ks_kafka_version v)
{
    return !(d->since && v < d->since) && !(d->until && v >= d->until);
}

/* A value of key i as a scenario would write it; in Markdown, strings and
 * choices in backquotes. */
static void value_text(const ks_cfg_table *t, int i, ks_cfg_value val, bool md, char *out,
                       size_t n)
{
    const ks_cfg_def *d = &t->defs[i];
    const char *q = md ? "`" : "";
    switch (d->type) {
    case KS_CFG_INT:
    case KS_CFG_LONG:
        snprintf(out, n, "%" PRId64, val.i);
        break;
    case KS_CFG_BOOL:
        snprintf(out, n, "%s", val.i ? "true" : "false");
        break;
    case KS_CFG_STRING:
        if (val.s)
            snprintf(out, n, "%s\"%s\"%s", q, val.s, q);
        else
            snprintf(out, n, "null");
        break;
    case KS_CFG_ENUM:
        snprintf(out, n, "%s%s%s", q, d->choices[val.i], q);
        break;
    case KS_CFG_ACKS:
        snprintf(out, n, md ? "`\"%s\"`" : "%s",
                 val.i == KS_ACKS_ALL ? "all" : val.i ? "1" : "0");
        break;
    }
}

/* The lower bound of an INT or LONG and its range in words. */
static void range_text(const ks_cfg_def *d, char *out, size_t n)
{
    const char *java = d->type == KS_CFG_INT ? "int" : "long";
    int64_t top = d->type == KS_CFG_INT ? INT64_C(2147483647) : INT64_MAX;
    if (d->max != top)
        snprintf(out, n, "%" PRId64 "…%" PRId64, d->min, d->max);
    else
        snprintf(out, n, "%s ≥ %" PRId64, java, d->min);
}

/* The type column of the Markdown table: Java's type, its range or
 * choices, and the release that brought or removed the key. */
static void type_text(const ks_cfg_def *d, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    switch (d->type) {
    case KS_CFG_INT:
    case KS_CFG_LONG:
        range_text(d, out, n);
        break;
    case KS_CFG_BOOL:
        snprintf(out, n, "bool");
        break;
    case KS_CFG_STRING:
        snprintf(out, n, "string or null");
        break;
    case KS_CFG_ENUM:
        for (size_t c = 0; d->choices[c]; c++) {
            len = strlen(out);
            snprintf(out + len, n - len, "%s`%s`", c ? " " : "", d->choices[c]);
        }
        break;
    case KS_CFG_ACKS:
        snprintf(out, n, "`\"all\"`, `\"-1\"`, `\"0\"`, `\"1\"` (or −1, 0, 1)");
        break;
    }
    char ver[16];
    len = strlen(out);
    if (d->since) {
        ks_kafka_version_text(d->since, ver, sizeof ver);
        snprintf(out + len, n - len, " (%s+)", ver);
    } else if (d->until) {
        ks_kafka_version_text(d->until, ver, sizeof ver);
        snprintf(out + len, n - len, " (before %s)", ver);
    }
}

/* Writes s in a Markdown table cell: '|' escaped. */
static void md_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', stdout);
        fputc(*s, stdout);
    }
}

static void print_table(const ks_cfg_table *t, const defaults_opts *o)
{
    if (o->markdown)
        printf("| key | type | default (%s) | read by | note |\n|---|---|---|---|---|\n",
               o->version);
    else
        printf("%s configs:\n", t->what);
    for (int i = 0; i < t->count; i++) {
        const ks_cfg_def *d = &t->defs[i];
        if (!exists_in(d, o->kv))
            continue;
        char def[64], type[160];
        value_text(t, i, ks_cfg_default(t, i, o->kv), o->markdown, def, sizeof def);
        if (!o->markdown) {
            printf("  %-58s %-11s %-24s %s\n", t->names[i], def, d->read_by ? d->read_by : "-",
                   d->doc);
            continue;
        }
        type_text(d, type, sizeof type);
        printf("| `%s` | %s | %s | %s | ", t->names[i], type, def, d->read_by ? d->read_by : "–");
        md_cell(d->doc);
        printf(" |\n");
    }
}

/* One row of the versions table: what key i was before the first release
 * that changed it, and from then on. */
static void print_version_row(const ks_cfg_table *t, int i, bool md)
{
    const ks_cfg_def *d = &t->defs[i];
    ks_kafka_version at = d->since ? d->since : d->until ? d->until : d->changed;
    char ver[16], before[64], from[96];
    ks_kafka_version_text(at, ver, sizeof ver);
    if (d->since)
        snprintf(before, sizeof before, "(absent)");
    else
        value_text(t, i, ks_cfg_default(t, i, at - 1), md, before, sizeof before);
    if (d->until) {
        snprintf(from, sizeof from, "removed in %s", ver);
    } else {
        char val[64];
        value_text(t, i, ks_cfg_default(t, i, KS_KAFKA_VERSION_MAX), md, val, sizeof val);
        snprintf(from, sizeof from, "%s in %s", val, ver);
    }
    if (md)
        printf("| `%s` | %s | %s | %s |\n", t->names[i], t->what, before, from);
    else
        printf("  %-58s %-9s %-11s %s\n", t->names[i], t->what, before, from);
}

/* The configs whose default or existence depends on the Kafka version. */
static void print_versions(const defaults_opts *o)
{
    if (o->markdown)
        printf("| config | of | before | from |\n|---|---|---|---|\n");
    else
        printf("configs that depend on the Kafka version (key, of, before, from):\n");
    const ks_cfg_table *tables[] = {&ks_producer_configs, &ks_broker_configs};
    for (size_t k = 0; k < 2; k++)
        for (int i = 0; i < tables[k]->count; i++)
            if (tables[k]->defs[i].since || tables[k]->defs[i].until ||
                tables[k]->defs[i].changed)
                print_version_row(tables[k], i, o->markdown);
}

enum { DEFAULTS_HELP = 'h', DEFAULTS_KAFKA_VERSION = 256, DEFAULTS_FORMAT };

static const ks_opt_def defaults_options[] = {
    {DEFAULTS_HELP, 'h', "help", false},
    {DEFAULTS_KAFKA_VERSION, '\0', "kafka-version", true},
    {DEFAULTS_FORMAT, '\0', "format", true},
};

/* Handles a TABLE operand or an option with a value; returns 0 or
 * KS_EXIT_USAGE (message printed). */
static int defaults_arg(int id, const char *v, defaults_opts *o)
{
    static const char *const names[] = {"producer", "broker", "versions", "topic"};
    if (id == DEFAULTS_KAFKA_VERSION) {
        o->version = v;
    } else if (id == DEFAULTS_FORMAT) {
        if (strcmp(v, "text") != 0 && strcmp(v, "markdown") != 0)
            return ks_status_usage("defaults", "--format: expected text or markdown, got '%s'",
                                   v);
        o->markdown = strcmp(v, "markdown") == 0;
    } else {
        for (unsigned k = 0; k < 4; k++) {
            if (strcmp(v, names[k]) == 0) {
                o->tables |= 1u << k;
                return 0;
            }
        }
        return ks_status_usage("defaults", "unexpected '%s' (a TABLE is producer, broker, "
                                           "topic or versions)", v);
    }
    return 0;
}

/* The command (tools/commands.h). */
int ks_cmd_defaults(int argc, char **argv)
{
    defaults_opts o = {.version = KS_KAFKA_VERSION_DEFAULT};
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 2, defaults_options,
                sizeof defaults_options / sizeof *defaults_options, false);
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END;) {
        if (id == KS_OPT_ERROR)
            return ks_status_usage("defaults", "%s", p.error);
        if (id == DEFAULTS_HELP) {
            fputs(ks_usage_defaults, stdout);
            return KS_EXIT_OK;
        }
        if (defaults_arg(id, p.value, &o) != 0)
            return KS_EXIT_USAGE;
    }
    if (!ks_kafka_version_parse(o.version, &o.kv))
        return ks_status_usage("defaults", "--kafka-version: expected a release from 2.0 to 4.1 "
                               "such as 3.9, got '%s'", o.version);
    unsigned tables = o.tables ? o.tables : TABLE_PRODUCER | TABLE_BROKER | TABLE_TOPIC;
    unsigned configs = TABLE_PRODUCER | TABLE_BROKER | TABLE_TOPIC;
    bool first = o.markdown || !(tables & configs);
    if (!first)
        printf("Kafka %s defaults (key, default, read by, note)\n", o.version);
    static const char *const heads[] = {"producer configs", "broker configs", "versions",
                                        "topic configs"};
    static const ks_cfg_table *const cfgs[] = {&ks_producer_configs, &ks_broker_configs, NULL,
                                               &ks_topic_configs};
    for (unsigned k = 0; k < 4; k++) {
        if (!(tables & (1u << k)))
            continue;
        if (!first)
            printf("\n");
        first = false;
        /* several Markdown tables: each under a line that names it */
        if (o.markdown && tables != (1u << k))
            printf("**%s** (Kafka %s)\n\n", heads[k], o.version);
        if (cfgs[k])
            print_table(cfgs[k], &o);
        else
            print_versions(&o);
    }
    return KS_EXIT_OK;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Prints one key's partition; false (message printed) for a bad hex key. */
static bool print_partition(const char *key, bool hex, bool verbose, uint32_t n)
{
    size_t len = strlen(key);
    uint8_t *bytes = malloc(len + 1);
    if (!bytes)
        return false;
    size_t blen = len;
    if (hex) {
        if (len % 2 != 0) {
            ks_status_fail("partition", "'%s': a hex key needs an even number of digits", key);
            free(bytes);
            return false;
        }
        blen = len / 2;
        for (size_t i = 0; i < blen; i++) {
            int hi = hex_value(key[2 * i]), lo = hex_value(key[2 * i + 1]);
            if (hi < 0 || lo < 0) {
                ks_status_fail("partition", "'%s': not a hex byte string", key);
                free(bytes);
                return false;
            }
            bytes[i] = (uint8_t)(hi * 16 + lo);
        }
    } else {
        memcpy(bytes, key, len);
    }
    uint32_t p = ks_partition_for_key(bytes, blen, n);
    if (verbose)
        printf("%s\t%" PRId32 "\t%" PRIu32 "\n", key, ks_murmur2(bytes, blen), p);
    else
        printf("%" PRIu32 "\n", p);
    free(bytes);
    return true;
}

enum { PARTITION_HELP = 'h', PARTITION_VERBOSE = 'v', PARTITION_N = 256, PARTITION_KEY_HEX };

static const ks_opt_def partition_options[] = {
    {PARTITION_HELP, 'h', "help", false},
    {PARTITION_VERBOSE, 'v', "verbose", false},
    {PARTITION_N, '\0', "partitions", true},
    {PARTITION_KEY_HEX, '\0', "key-hex", false},
};

typedef struct partition_opts {
    uint64_t n; /* 0: not given */
    bool hex, verbose;
    int first_key; /* argc: keys from standard input */
} partition_opts;

/* Fills o from argv (argv[1] is "partition"): the options end at the
 * first key. Returns 0 to go on, -1 after --help, or an exit code
 * (message printed). */
static int parse_partition_args(int argc, char **argv, partition_opts *o)
{
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 2, partition_options,
                sizeof partition_options / sizeof *partition_options, true);
    o->first_key = argc;
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END;) {
        if (id == KS_OPT_ERROR)
            return ks_status_usage("partition", "%s%s", p.error,
                                   p.unknown ? " (use -- before keys that start with -)" : "");
        if (id == KS_OPT_OPERAND) {
            o->first_key = ks_opt_index(&p) - 1;
            break;
        }
        if (id == PARTITION_HELP) {
            fputs(ks_usage_partition, stdout);
            return -1;
        } else if (id == PARTITION_VERBOSE) {
            o->verbose = true;
        } else if (id == PARTITION_KEY_HEX) {
            o->hex = true;
        } else if (!ks_opt_uint(p.value, 1000000, &o->n) || o->n < 1) {
            return ks_status_usage("partition", "--partitions: expected an integer from 1 to "
                                   "1000000, got '%s'", p.value);
        }
    }
    if (o->n == 0)
        return ks_status_usage("partition", "--partitions N is required");
    return 0;
}

/* The command (tools/commands.h). */
int ks_cmd_partition(int argc, char **argv)
{
    partition_opts o = {0};
    int rc = parse_partition_args(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? KS_EXIT_OK : rc;
    bool ok = true;
    if (o.first_key < argc) {
        for (int i = o.first_key; i < argc; i++)
            ok = print_partition(argv[i], o.hex, o.verbose, (uint32_t)o.n) && ok;
    } else {
        char line[65536];
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\r\n")] = '\0';
            ok = print_partition(line, o.hex, o.verbose, (uint32_t)o.n) && ok;
        }
    }
    return ok ? KS_EXIT_OK : KS_EXIT_USAGE;
}
