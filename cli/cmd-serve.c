/* cmd-serve.c: axgate serve. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static int
cmd_serve(int argc, char **argv)
{
	if (argc > 1 &&
	    (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		axg_cmd_usage(&axg_cmd_serve);
		return AXG_EXIT_OK;
	}
	fprintf(stderr, "axgate serve: not available in this version\n");
	return AXG_EXIT_USAGE;
}

const struct axg_cmd axg_cmd_serve = {
	.name = "serve",
	.summary = "run the proxy as a daemon",
	.usage = "axgate serve [--config FILE] [--policy FILE] [--listen "
		 "ADDR:PORT] [--audit FILE]\n",
	.run = cmd_serve,
};
