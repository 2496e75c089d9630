/* cmd-run.c: axgate run. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static int
cmd_run(int argc, char **argv)
{
	if (argc > 1 &&
	    (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		axg_cmd_usage(&axg_cmd_run);
		return AXG_EXIT_OK;
	}
	fprintf(stderr, "axgate run: not available in this version\n");
	return AXG_EXIT_USAGE;
}

const struct axg_cmd axg_cmd_run = {
	.name = "run",
	.summary = "run a job behind the egress gate",
	.usage =
	    "axgate run [--policy FILE] [--workspace DIR] [--audit FILE] -- "
	    "COMMAND [ARGS]\n",
	.run = cmd_run,
};
