/* axgate.c: the axgate command: global options and subcommand dispatch. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "policy/axpolicy.h"
#include "cli/cli.h"

static const struct axg_cmd *const commands[] = {
	&axg_cmd_run,
	&axg_cmd_serve,
	&axg_cmd_policy,
	&axg_cmd_scan,
};

static const struct axg_cmd *
find_command(const char *name)
{
	for (size_t i = 0; i < AXG_ARRAY_LEN(commands); i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static void
print_help(FILE *fp)
{
	fprintf(fp,
	    "usage: axgate [--version] [--help] COMMAND [ARGS]\n"
	    "\n"
	    "axgate puts a job behind an egress gate: a proxy that decides\n"
	    "every connection with a Rego policy, scans what leaves for\n"
	    "credentials and writes every decision as an OCSF event.\n"
	    "\n"
	    "Commands:\n");
	for (size_t i = 0; i < AXG_ARRAY_LEN(commands); i++)
		fprintf(fp, "  %-8s %s\n", commands[i]->name,
		    commands[i]->summary);
	fprintf(fp, "  %-8s %s\n", "help", "show this help, or a command's");
	fprintf(fp, "  %-8s %s\n", "version", "print the version");
	fprintf(fp, "\nSee axgate(1) and `axgate help COMMAND`.\n");
}

static void
print_version(void)
{
	printf("axgate %s (policy engine %s)\n", PACKAGE_VERSION,
	    axp_version());
}

int
axg_cmd_usage(const struct axg_cmd *cmd)
{
	const char *p = cmd->usage;
	bool first = true;

	/* Each synopsis line gets "usage: " or an aligned indent. */
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		fprintf(stderr, "%s%.*s\n", first ? "usage: " : "       ",
		    (int)n, p);
		first = false;
		p += n + (nl != NULL);
	}
	return AXG_EXIT_USAGE;
}

static int
cmd_help(int argc, char **argv)
{
	const struct axg_cmd *cmd;

	if (argc < 2) {
		print_help(stdout);
		return AXG_EXIT_OK;
	}
	if (argc > 2 || (cmd = find_command(argv[1])) == NULL) {
		fprintf(stderr, "axgate help: unknown command '%s'\n", argv[1]);
		print_help(stderr);
		return AXG_EXIT_USAGE;
	}
	printf("axgate %s: %s\n\n", cmd->name, cmd->summary);
	fflush(stdout);
	/* The synopsis goes to stdout here: it was asked for. */
	for (const char *p = cmd->usage; *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		printf("%s%.*s\n", p == cmd->usage ? "usage: " : "       ",
		    (int)n, p);
		p += n + (nl != NULL);
	}
	return AXG_EXIT_OK;
}

/* print() in a policy the proxy runs: a debug line of the log. */
static void
print_to_log(const char *line, void *arg)
{
	(void)arg;
	axg_log(AXG_LOG_DEBUG, "policy print: %s", line);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct axg_cmd *cmd;
	int c;

	axg_log_init("axgate", AXG_LOG_INFO);
	axp_set_print_hook(print_to_log, NULL);
	/* '+': stop at the first non-option, the subcommand. */
	while ((c = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_help(stdout);
			return AXG_EXIT_OK;
		case 'V':
			print_version();
			return AXG_EXIT_OK;
		default:
			print_help(stderr);
			return AXG_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		print_help(stderr);
		return AXG_EXIT_USAGE;
	}
	if (strcmp(argv[0], "help") == 0)
		return cmd_help(argc, argv);
	if (strcmp(argv[0], "version") == 0) {
		print_version();
		return AXG_EXIT_OK;
	}
	cmd = find_command(argv[0]);
	if (cmd == NULL) {
		fprintf(stderr, "axgate: unknown command '%s'\n", argv[0]);
		print_help(stderr);
		return AXG_EXIT_USAGE;
	}
	optind = 0; /* let the subcommand run getopt afresh */
	return cmd->run(argc, argv);
}
