/*
 * commands.h — the kforge sub-commands.  Each takes the arguments after the
 * sub-command name (argv[0] is the sub-command) and returns the process exit
 * status: 0 ok, 1 candidate failed, 2 bad input (KF_EXIT_*).
 */
#ifndef KF_CLI_COMMANDS_H
#define KF_CLI_COMMANDS_H

int kf_cmd_backends(int argc, char **argv);
int kf_cmd_check(int argc, char **argv);
int kf_cmd_verify(int argc, char **argv);   /* also "profile": argv[0] decides */
int kf_cmd_run(int argc, char **argv);
int kf_cmd_suite(int argc, char **argv);
int kf_cmd_report(int argc, char **argv);
int kf_cmd_import(int argc, char **argv);
int kf_cmd_export(int argc, char **argv);

#endif
