/*
 * cli.h — entry point of the gpudiag command line.
 */
#ifndef GD_CLI_CLI_H
#define GD_CLI_CLI_H

/* Run the CLI; returns the process exit status (see --help). */
int gd_cli_run(int argc, char **argv);

#include <stdio.h>

/* `gpudiag compare` (cmd_compare.c): argv[0] is "compare"; returns the exit status. */
int gd_cmd_compare(int argc, char **argv);
/* Its --help text. */
void gd_usage_compare(FILE *fp);

#endif
