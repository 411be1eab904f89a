/*
 * cli.c - the ksim command line (see cli.h): the top-level options, the
 * table of commands, `help [COMMAND]`, and the dispatch.
 */
#include "tools/cli.h"

#include "ks_version.h"
#include "models/scenario.h"
#include "sim/json_path.h"
#include "sim/trace.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char usage_main[] =
    "usage: ksim COMMAND [ARGS]\n"
    "\n"
    "ksim replays what Kafka producers and brokers do, record by record, in\n"
    "virtual time. Same scenario + same seed = the same trace, byte for byte.\n"
    "\n"
    "commands:\n"
    "  run SCENARIO        simulate a scenario; write its trace and summary\n"
    "  validate SCENARIO...  check scenario files without running them\n"
    "  check [PATH]...     run scenarios against their expect blocks, for CI\n"
    "                      (one line each; --junit FILE, --tap)\n"
    "  report RUN...       charts and a page (index.html, report.md) from runs\n"
    "  explain TRACE       a run step by step, as the notes draw it (text or\n"
    "                      Mermaid), with the partition logs as boxes\n"
    "  export TRACE        the trace as Chrome's Trace Event format, for\n"
    "                      Perfetto's UI and chrome://tracing\n"
    "  defaults            list the Kafka configs ksim knows, with defaults\n"
    "  partition           where keys go under Kafka's default partitioner\n"
    "  help [COMMAND]      show help for a command\n"
    "\n"
    "options:\n"
    "  -h, --help          show this help\n"
    "  -V, --version       print the version\n"
    "\n"
    "Every command takes -h (--help). Options are --name VALUE or --name=VALUE;\n"
    "short ones combine (-qo DIR is -q -o DIR); -- ends the options. -o is\n"
    "where the command's output goes: run -o DIR and report -o DIR a\n"
    "directory, explain -o FILE and export -o FILE a file.\n"
    "\n"
    "exit status: 0 success, 1 an expectation in the scenario failed,\n"
    "             2 bad usage or bad input (or outputs that cannot be written)\n"
    "\n"
    "Scenario format: docs/scenario.md. Trace and summary format: docs/trace.md.\n"
    "Delivery guarantees step by step, with these commands: docs/tutorial.md.\n";

static const char usage_help[] =
    "usage: ksim help [COMMAND]\n"
    "\n"
    "Prints what `ksim COMMAND --help` prints: how to use COMMAND, its\n"
    "options and its exit status. Without COMMAND, the list of commands, as\n"
    "`ksim --help` does.\n"
    "\n"
    "options:\n"
    "  -h, --help          show this help\n";

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage; /* its --help text */
} command;

static int cmd_help(int argc, char **argv);

/* In this order "did you mean" weighs them. */
static const command commands[] = {
    {"run", ks_cmd_run, ks_usage_run},
    {"validate", ks_cmd_validate, ks_usage_validate},
    {"defaults", ks_cmd_defaults, ks_usage_defaults},
    {"partition", ks_cmd_partition, ks_usage_partition},
    {"check", ks_cmd_check, ks_usage_check},
    {"report", ks_cmd_report, ks_usage_report},
    {"explain", ks_cmd_explain, ks_usage_explain},
    {"export", ks_cmd_export, ks_usage_export},
    {"help", cmd_help, usage_help},
};

#define N_COMMANDS (sizeof commands / sizeof *commands)

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* "unknown command 'NAME'" (with a "did you mean") for the top level
 * (cmd NULL) or `help` (cmd "help"). */
static int unknown_command(const char *cmd, const char *name)
{
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    const char *s = ks_suggest(name, names, N_COMMANDS);
    return ks_status_usage(cmd, "unknown command '%s'%s%s%s", name, s ? " (did you mean '" : "",
                           s ? s : "", s ? "'?)" : "");
}

static const ks_opt_def help_options[] = {
    {'h', 'h', "help", false},
};

/* `ksim help [COMMAND]`: a command's --help text, or the list. */
static int cmd_help(int argc, char **argv)
{
    const char *topic = NULL;
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 2, help_options, sizeof help_options / sizeof *help_options,
                false);
    for (int id; (id = ks_opt_next(&p)) != KS_OPT_END;) {
        if (id == KS_OPT_ERROR)
            return ks_status_usage("help", "%s", p.error);
        if (id == 'h') {
            fputs(usage_help, stdout);
            return KS_EXIT_OK;
        }
        if (topic)
            return ks_status_usage("help", "one command at a time; unexpected '%s'", p.value);
        topic = p.value;
    }
    if (!topic) {
        fputs(usage_main, stdout);
        return KS_EXIT_OK;
    }
    const command *c = find_command(topic);
    if (!c)
        return unknown_command("help", topic);
    fputs(c->usage, stdout);
    return KS_EXIT_OK;
}

static const ks_opt_def top_options[] = {
    {'h', 'h', "help", false},
    {'V', 'V', "version", false},
};

/* Reads the top-level options up to the command's name and runs the
 * command (its name in *name, for the message about standard output). */
static int dispatch(int argc, char **argv, const char **name)
{
    ks_opt_parser p;
    ks_opt_init(&p, argc, argv, 1, top_options, sizeof top_options / sizeof *top_options, true);
    int id = ks_opt_next(&p);
    if (id == KS_OPT_END) {
        fputs(usage_main, stderr);
        return KS_EXIT_USAGE;
    }
    if (id == KS_OPT_ERROR)
        return ks_status_usage(NULL, "%s", p.error);
    if (id == 'h') {
        fputs(usage_main, stdout);
        return KS_EXIT_OK;
    }
    if (id == 'V') {
        printf("ksim %s (scenario format %d, trace format %d)\n", KS_VERSION, KS_SCENARIO_FORMAT,
               KS_TRACE_FORMAT);
        return KS_EXIT_OK;
    }
    int at = ks_opt_index(&p) - 1; /* the command's name */
    const command *c = find_command(argv[at]);
    if (!c)
        return unknown_command(NULL, argv[at]);
    *name = c->name;
    return c->run(argc - at + 1, argv + at - 1);
}

int ks_cli_main(int argc, char **argv)
{
    const char *name = NULL;
    int rc = dispatch(argc, argv, &name);
    return ks_status_finish(name, rc);
}
