/*
 * commands.h - ksim's commands, each in its own file:
 *   run, validate   tools/cmd_run.c   a scenario simulated, or only checked
 *   defaults, partition
 *                   tools/cmd_info.c  Kafka's config defaults; where keys go
 *   check           tools/check.c     scenarios against their expect blocks, for CI
 *   report          tools/report.c    gnuplot charts and a page from runs
 *   explain         tools/explain/    a run as a step-by-step sequence diagram
 *   export          tools/export/     a trace in Chrome's Trace Event format
 *
 * Each takes the whole argv (argv[1] is the command's name), reads its
 * options with tools/options.h, prints its failures as "ksim CMD: ..."
 * and returns an exit code of tools/status.h. The dispatcher
 * (tools/cli.c) calls them; they never call it.
 */
#ifndef KS_COMMANDS_H
#define KS_COMMANDS_H

int ks_cmd_run(int argc, char **argv);
int ks_cmd_validate(int argc, char **argv);
int ks_cmd_defaults(int argc, char **argv);
int ks_cmd_partition(int argc, char **argv);
int ks_cmd_check(int argc, char **argv);
int ks_cmd_explain(int argc, char **argv);
int ks_cmd_report(int argc, char **argv);
int ks_cmd_export(int argc, char **argv);

/* Their --help texts. */
extern const char ks_usage_run[];
extern const char ks_usage_validate[];
extern const char ks_usage_defaults[];
extern const char ks_usage_partition[];
extern const char ks_usage_check[];
extern const char ks_usage_explain[];
extern const char ks_usage_report[];
extern const char ks_usage_export[];

#endif
