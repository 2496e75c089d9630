/* cmd-policy.c: axgate policy. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static int
cmd_policy(int argc, char **argv)
{
	if (argc > 1 &&
	    (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		axg_cmd_usage(&axg_cmd_policy);
		return AXG_EXIT_OK;
	}
	fprintf(stderr, "axgate policy: not available in this version\n");
	return AXG_EXIT_USAGE;
}

const struct axg_cmd axg_cmd_policy = {
	.name = "policy",
	.summary = "check, test, evaluate and format policies",
	.usage = "axgate policy check FILE_OR_DIR...\naxgate policy eval [-d "
		 "FILE_OR_DIR]... [-i INPUT] QUERY\naxgate policy test "
		 "DIR...\naxgate policy fmt [-w] FILE...\n",
	.run = cmd_policy,
};
