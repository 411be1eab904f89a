/*
 * cmd_info.c - `ksim defaults` and `ksim partition`: what ksim knows of
 * Kafka, asked without a scenario.
 *
 * Owns: both commands' options and usage texts; the table of the configs
 * a scenario may set with their defaults under a Kafka version (from
 * models/kafka/config.h), and the partition of keys under Kafka's
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
    "usage: ksim defaults [--kafka-version V]\n"
    "\n"
    "Lists the producer, broker and topic configs a scenario may set, with\n"
    "their defaults under Kafka version V (default " KS_KAFKA_VERSION_DEFAULT
    "), and the ksim model\n"
    "that reads each one (\"-\": accepted, no model reads it yet). A topic\n"
    "config a topic does not set takes the broker's value.\n"
    "\n"
    "options:\n"
    "  --kafka-version V   a release from 2.0 to 4.1, e.g. 3.9\n"
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

static void print_table(const ks_cfg_table *t, ks_kafka_version v)
{
    printf("%s configs:\n", t->what);
    for (int i = 0; i < t->count; i++) {
        const ks_cfg_def *d = &t->defs[i];
        if ((d->since && v < d->since) || (d->until && v >= d->until))
            continue;
        ks_cfg_value val = ks_cfg_default(t, i, v);
        char def[64];
        switch (d->type) {
        case KS_CFG_INT:
        case KS_CFG_LONG:
            snprintf(def, sizeof def, "%" PRId64, val.i);
            break;
        case KS_CFG_BOOL:
            snprintf(def, sizeof def, "%s", val.i ? "true" : "false");
            break;
        case KS_CFG_STRING:
            snprintf(def, sizeof def, "%s", val.s ? val.s : "null");
            break;
        case KS_CFG_ENUM:
            snprintf(def, sizeof def, "%s", d->choices[val.i]);
            break;
        case KS_CFG_ACKS:
            snprintf(def, sizeof def, "%s", val.i == KS_ACKS_ALL ? "all" : val.i ? "1" : "0");
            break;
        }
        printf("  %-58s %-11s %-9s %s\n", t->names[i], def, d->read_by ? d->read_by : "-", d->doc);
    }
}

enum { DEFAULTS_HELP = 'h', DEFAULTS_KAFKA_VERSION = 256 };

static const ks_opt_def defaults_options[] = {
    {DEFAULTS_HELP, 'h', "help", false},
    {DEFAULTS_KAFKA_VERSION, '\0', "kafka-version", true},
};

/* The command (tools/commands.h). */
int ks_cmd_defaults(int argc, char **argv)
{
    const char *ver = KS_KAFKA_VERSION_DEFAULT;
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 2, defaults_options,
                sizeof defaults_options / sizeof *defaults_options, false);
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END;) {
        if (id == KS_OPT_ERROR)
            return ks_status_usage("defaults", "%s", p.error);
        if (id == KS_OPT_OPERAND)
            return ks_status_usage("defaults", "unexpected '%s'", p.value);
        if (id == DEFAULTS_HELP) {
            fputs(ks_usage_defaults, stdout);
            return KS_EXIT_OK;
        }
        ver = p.value;
    }
    ks_kafka_version kv;
    if (!ks_kafka_version_parse(ver, &kv))
        return ks_status_usage("defaults", "--kafka-version: expected a release from 2.0 to 4.1 "
                               "such as 3.9, got '%s'", ver);
    printf("Kafka %s defaults (key, default, read by, note)\n\n", ver);
    print_table(&ks_producer_configs, kv);
    printf("\n");
    print_table(&ks_broker_configs, kv);
    printf("\n");
    print_table(&ks_topic_configs, kv);
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
