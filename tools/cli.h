/*
 * cli.h - the ksim command line: run, validate, defaults, help, version.
 *
 * Owns: argument parsing, where outputs go, what is printed, and exit
 * codes (0 success, 1 an expectation failed, 2 bad usage or bad input,
 * including outputs that cannot be written). Lives in libksim so tests
 * can drive it; tools/main.c only calls it.
 */
#ifndef KS_CLI_H
#define KS_CLI_H

#define KS_EXIT_OK 0
#define KS_EXIT_EXPECT 1
#define KS_EXIT_USAGE 2

int ks_cli_main(int argc, char **argv);

#endif
