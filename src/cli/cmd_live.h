/*
 * cmd_live.h — the live subcommands (cmd_watch.c, cmd_run.c).  Each
 * takes argv starting at the subcommand's name and returns the exit status
 * (util/exit_codes.h; `run` returns CMD's status when CMD ran).
 */
#ifndef GD_CLI_CMD_LIVE_H
#define GD_CLI_CMD_LIVE_H

#include "util/exit_codes.h"

gd_exit gd_cmd_watch(int argc, char **argv);
int gd_cmd_run(int argc, char **argv);

#endif
