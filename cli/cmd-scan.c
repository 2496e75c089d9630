/* cmd-scan.c: axgate scan. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static int
cmd_scan(int argc, char **argv)
{
	if (argc > 1 &&
	    (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		axg_cmd_usage(&axg_cmd_scan);
		return AXG_EXIT_OK;
	}
	fprintf(stderr, "axgate scan: not available in this version\n");
	return AXG_EXIT_USAGE;
}

const struct axg_cmd axg_cmd_scan = {
	.name = "scan",
	.summary = "scan files or stdin for leaked credentials",
	.usage = "axgate scan [--format text|json] [FILE...]\n",
	.run = cmd_scan,
};
