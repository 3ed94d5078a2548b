/* main.c — the gpudiag binary: everything happens in gd_cli_run(). */
#include "cli/cli.h"

int main(int argc, char **argv)
{
    return gd_cli_run(argc, argv);
}
