/* cmd_serve.h — `gpudiag serve` (Prometheus exporter). */
#ifndef GD_CLI_CMD_SERVE_H
#define GD_CLI_CMD_SERVE_H

#include "util/exit_codes.h"

/* argv[0] is "serve".  Returns the exit status (see gpudiag serve --help). */
gd_exit gd_cmd_serve(int argc, char **argv);

#endif
