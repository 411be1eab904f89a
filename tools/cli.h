/*
 * cli.h - the ksim command line: the dispatch to a command, `--help`,
 * `--version` and `help [COMMAND]`.
 *
 * Owns: which command runs (tools/commands.h), the top-level options and
 * messages ("ksim: unknown command ..."), and the final exit code once
 * standard output is flushed (tools/status.h). Lives in the tools'
 * library so tests can drive it; tools/main.c only calls it. No command
 * includes this header: the dispatcher sits above them.
 */
#ifndef KS_CLI_H
#define KS_CLI_H

int ks_cli_main(int argc, char **argv);

#endif
