/*
 * commands.h - ksim's commands beyond run/validate/defaults/partition,
 * each in its own file: check (scenario regression runs for CI), explain
 * (a run as a step-by-step sequence diagram) and report (gnuplot charts
 * and a page from one or more runs).
 *
 * Each takes the whole argv (argv[1] is the command's name) and returns
 * an exit code of cli.h.
 */
#ifndef KS_COMMANDS_H
#define KS_COMMANDS_H

int ks_cmd_check(int argc, char **argv);
int ks_cmd_explain(int argc, char **argv);
int ks_cmd_report(int argc, char **argv);

/* Their --help texts. */
extern const char ks_usage_check[];
extern const char ks_usage_explain[];
extern const char ks_usage_report[];

#endif
