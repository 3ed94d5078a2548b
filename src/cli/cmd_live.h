/*
 * cmd_live.h — the live subcommands (cmd_watch.c, cmd_run.c).  Each
 * takes argv starting at the subcommand's name and returns the exit status.
 */
#ifndef GD_CLI_CMD_LIVE_H
#define GD_CLI_CMD_LIVE_H

int gd_cmd_watch(int argc, char **argv);
int gd_cmd_run(int argc, char **argv);

#endif
