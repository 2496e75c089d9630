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

#endif /* AXG_CLI_H */
