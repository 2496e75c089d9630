/*
 * netns-exec: run a command inside (or beside) a job network, for the
 * shell tests of netns/.
 *
 *   netns-exec [--block] [--host] [--port N]... -- COMMAND [ARG]...
 *   netns-exec --sweep
 *
 * Builds a job network (proxy mode with ports 3128 and 80 unless --port or
 * --block say otherwise), runs COMMAND in the job's namespace (or, with
 * --host, in ours) with AXG_HOST_ADDR, AXG_JOB_ADDR, AXG_HOST_IF,
 * AXG_JOB_IF, AXG_HOST_TABLE and AXG_JOB_ID in its environment, tears the
 * network down and exits with COMMAND's status (125 if the set-up failed,
 * 126/127 if COMMAND could not run).  --sweep runs ns_sweep() and prints how
 * many objects it removed.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/common.h"
#include "netns/netns.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: netns-exec [--block] [--host] [--port N]... "
	    "-- COMMAND [ARG]...\n"
	    "       netns-exec --sweep\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	uint16_t ports[NS_MAX_PORTS];
	struct ns_config cfg = { NS_MODE_PROXY, NULL, ports, 0, false };
	struct ns_job_net *net;
	bool host = false;
	char err[512], id[16];
	int i, st = 0;
	pid_t pid;

	axg_log_init("netns-exec", AXG_LOG_WARN);
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--sweep") == 0) {
			int r = ns_sweep(err, sizeof(err));

			if (r < 0)
				axg_fatal(1, "%s", err);
			printf("%d\n", r);
			return 0;
		} else if (strcmp(argv[i], "--block") == 0) {
			cfg.mode = NS_MODE_BLOCK;
		} else if (strcmp(argv[i], "--host") == 0) {
			host = true;
		} else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc &&
		    cfg.nports < NS_MAX_PORTS) {
			uint64_t p;

			if (axg_parse_u64(argv[++i], 1, 65535, &p) != 0)
				usage();
			ports[cfg.nports++] = (uint16_t)p;
		} else {
			usage();
		}
	}
	if (i + 1 >= argc)
		usage();
	if (cfg.mode == NS_MODE_PROXY && cfg.nports == 0) {
		ports[0] = 3128;
		ports[1] = 80;
		cfg.nports = 2;
	}
	net = ns_job_net_new(&cfg, err, sizeof(err));
	if (net == NULL) {
		fprintf(stderr, "netns-exec: %s\n", err);
		return 125;
	}
	snprintf(id, sizeof(id), "%d", ns_job_net_id(net));
	setenv("AXG_HOST_ADDR", ns_job_net_host_addr(net), 1);
	setenv("AXG_JOB_ADDR", ns_job_net_job_addr(net), 1);
	setenv("AXG_HOST_IF", ns_job_net_host_ifname(net), 1);
	setenv("AXG_JOB_IF", ns_job_net_job_ifname(net), 1);
	setenv("AXG_HOST_TABLE", ns_job_net_host_table(net), 1);
	setenv("AXG_JOB_ID", id, 1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (!host && ns_job_net_enter(net, err, sizeof(err)) != 0) {
			fprintf(stderr, "netns-exec: %s\n", err);
			_exit(126);
		}
		execvp(argv[i + 1], argv + i + 1);
		fprintf(stderr, "netns-exec: %s: %s\n", argv[i + 1],
		    strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		st = 125 << 8;
	ns_job_net_free(net);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
