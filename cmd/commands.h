/* One function per command (cmd/<command>.c): argv[0] is the command name. */
#ifndef PC_COMMANDS_H
#define PC_COMMANDS_H

int cmd_collect(int argc, char **argv);
int cmd_start(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_stacks(int argc, char **argv);
int cmd_setenv(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_livetrace(int argc, char **argv);

#endif
