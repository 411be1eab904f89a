/* main.c - the ksim executable: everything else lives in libksim. */
#include "tools/cli.h"

int main(int argc, char **argv)
{
    return ks_cli_main(argc, argv);
}
