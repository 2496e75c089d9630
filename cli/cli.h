/*
 * cli.h: the axgate command's subcommands.
 *
 * Each subcommand lives in its own cmd-NAME.c and is one entry of the table
 * in axgate.c.  A subcommand gets argv with argv[0] = its own name and
 * returns the process exit status.
 */
#ifndef AXG_CLI_H
#define AXG_CLI_H

/* Exit statuses of the axgate command itself. */
enum {
	AXG_EXIT_OK = 0,
	AXG_EXIT_FAIL = 1,  /* the command ran and found a problem */
	AXG_EXIT_USAGE = 2, /* bad command line or unusable input */
};

struct axg_cmd {
	const char *name;
	const char *summary; /* one line for `axgate help` */
	const char *usage;   /* the synopsis lines, each ending in \n */
	int (*run)(int argc, char **argv);
};

/* Print "usage: axgate ..." for cmd on stderr and return AXG_EXIT_USAGE. */
int axg_cmd_usage(const struct axg_cmd *cmd);

extern const struct axg_cmd axg_cmd_run;
extern const struct axg_cmd axg_cmd_serve;
extern const struct axg_cmd axg_cmd_policy;
extern const struct axg_cmd axg_cmd_scan;

/* YAML policy files (policy-gate.c). */
#include <stdbool.h>

#include "policy/gate.h"

#define AXG_DEFAULT_POLICY_NAME "(built-in default policy)"

bool axg_is_yaml_path(const char *path);
/* Load and compile a policy file, or the built-in default when path is
 * NULL; every problem is printed on stderr, prefixed by who when it is
 * not located. */
struct gate *axg_gate_open(const char *path,
    const struct axp_polfile_opts *opts, const char *who);
int axg_policy_check_yaml(const char *path);
/* A policy file compiled together with the .rego files (and folders of
 * them) in paths, for `axgate policy test -p`. */
struct gate *axg_gate_open_tests(const char *yaml, char **paths, int n);
int axg_policy_explain(int argc, char **argv);
int axg_policy_show_builtin(int argc, char **argv);

#endif /* AXG_CLI_H */
