/*
 * cli.h — entry point of the gpudiag command line.
 */
#ifndef GD_CLI_CLI_H
#define GD_CLI_CLI_H

/* Run the CLI; returns the process exit status: a gd_exit (util/exit_codes.h),
 * or for `run` its CMD's status. */
int gd_cli_run(int argc, char **argv);

#include <stdio.h>

#include "util/exit_codes.h"

/* 1 when a directory entry's name is one a directory of rank traces is read
 * for: *.json, *.json.gz, *.sqlite (analyze and compare alike). */
int gd_is_trace_name(const char *name);

/* `gpudiag compare` (cmd_compare.c): argv[0] is "compare"; returns the exit status. */
gd_exit gd_cmd_compare(int argc, char **argv);
/* Its --help text. */
void gd_usage_compare(FILE *fp);

#endif
