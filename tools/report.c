/* report.c - placeholder until the command lands (not reachable from the CLI yet). */
#include "tools/commands.h"

#include "tools/cli.h"

const char ks_usage_report[] = "";

int ks_cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return KS_EXIT_USAGE;
}
