/* cmd_serve.h — `gpudiag serve` (Prometheus exporter). */
#ifndef GD_CLI_CMD_SERVE_H
#define GD_CLI_CMD_SERVE_H

/* argv[0] is "serve".  Returns the exit status (see gpudiag serve --help). */
int gd_cmd_serve(int argc, char **argv);

#endif
