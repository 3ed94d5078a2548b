/*
 * cli.h — entry point of the gpudiag command line.
 */
#ifndef GD_CLI_CLI_H
#define GD_CLI_CLI_H

/* Run the CLI; returns the process exit status (see --help). */
int gd_cli_run(int argc, char **argv);

#endif
