/*
 * bench-proxyrate.c: what a connection's policy decisions cost the
 * worker, with the decision cache and without it, in the same run.
 *
 * The gatekeeper's decider (the one `axgate serve` gives the proxy)
 * decides a CONNECT (connect, then address) for a few hosts over and
 * over: once with a policy of built-in rules only (cached after the first
 * decision of each host), once with the same policy plus an empty `rego:`
 * module (never cached).  Prints decisions per second of each and the
 * ratio.  `bench-proxyrate N cached|evaluated` runs one of the two, for
 * `valgrind --tool=callgrind` (instructions per connection, whatever the
 * load of the machine).
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "policy/gate.h"
#include "proxy/proxy.h"
#include "server/server.h"

#define HOSTS  8
#define ROUNDS 20000

static const char yaml[] = "version: 1\n"
			   "name: bench\n"
			   "network:\n"
			   "  mode: proxy\n"
			   "  policies:\n"
			   "    - name: upstream\n"
			   "      endpoints:\n"
			   "        - {host: 127.0.0.1, ports: [8080]}\n"
			   "        - {cidr: 127.0.0.1/32, ports: [8080]}\n"
			   "        - {host: '*.example.com', port: 443}\n";

static double
run(struct gate *g, unsigned rounds, unsigned *allowed)
{
	struct srv_gatekeeper *k = srv_gatekeeper_new(g, NULL, "bench");
	struct px_decider dec;
	struct sockaddr_in cli = { .sin_family = AF_INET }, up = cli;
	uint64_t t0;
	double secs;

	srv_gatekeeper_decider(k, &dec);
	inet_pton(AF_INET, "127.0.0.1", &cli.sin_addr);
	inet_pton(AF_INET, "93.184.216.34", &up.sin_addr);
	*allowed = 0;
	t0 = axg_monotonic_ns();
	for (unsigned r = 0; r < rounds; r++) {
		void *snap = dec.acquire(dec.arg);
		struct px_hostport t;
		struct px_decision d;
		char host[64], err[128];

		snprintf(host, sizeof(host), "h%u.example.com:443", r % HOSTS);
		if (px_host_parse_authority(host, strlen(host), 0, &t, err,
			sizeof(err)) != 0) {
			fprintf(stderr, "bench-proxyrate: %s\n", err);
			exit(1);
		}
		dec.decide_connect(snap, &t, (struct sockaddr *)&cli, &d);
		if (d.allow)
			dec.decide_address(snap, &t, (struct sockaddr *)&up,
			    &d);
		*allowed += d.allow;
		dec.release(dec.arg, snap);
	}
	secs = (double)(axg_monotonic_ns() - t0) / 1e9;
	srv_gatekeeper_free(k);
	return secs;
}

int
main(int argc, char **argv)
{
	char dir[] = "/tmp/bench-proxyrate.XXXXXX", path[128], mod[128];
	struct axp_polfile_errors errs;
	struct gate *cached, *evaluated;
	uint64_t n = ROUNDS;
	unsigned rounds, a1, a2;
	double s1 = 0, s2 = 0;
	const char *only = argc > 2 ? argv[2] : "";
	FILE *f;

	if (argc > 1 && axg_parse_u64(argv[1], 1, 100000000, &n) != 0) {
		fprintf(stderr, "usage: bench-proxyrate [CONNECTIONS]\n");
		return 2;
	}
	rounds = (unsigned)n;
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(mod, sizeof(mod), "%s/empty.rego", dir);
	f = fopen(mod, "w");
	if (f == NULL)
		return 1;
	fputs("package axgate.bench\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/policy.yaml", dir);
	f = fopen(path, "w");
	if (f == NULL)
		return 1;
	fprintf(f, "%srego:\n  - %s\n", yaml, mod);
	fclose(f);
	cached =
	    gate_load_mem("bench.yaml", yaml, sizeof(yaml) - 1, NULL, &errs);
	evaluated = gate_load(path, NULL, &errs);
	unlink(mod);
	unlink(path);
	rmdir(dir);
	if (cached == NULL || evaluated == NULL) {
		fprintf(stderr, "bench-proxyrate: the policies do not load\n");
		return 1;
	}
	a1 = a2 = 0;
	if (strcmp(only, "cached") != 0)
		s2 = run(evaluated, rounds, &a2);
	if (strcmp(only, "evaluated") != 0)
		s1 = run(cached, rounds, &a1);
	if (only[0] != '\0') {
		printf("%s: %u connections in %.3f s\n", only, rounds, s1 + s2);
		gate_unref(cached);
		gate_unref(evaluated);
		return 0;
	}
	printf("decisions (connect + address), %u connections over %d hosts\n",
	    rounds, HOSTS);
	printf("  evaluated: %10.0f connections/s (%u allowed)\n", rounds / s2,
	    a2);
	printf("  cached:    %10.0f connections/s (%u allowed)\n", rounds / s1,
	    a1);
	printf("  cached/evaluated: %.2fx\n", s2 / s1);
	gate_unref(cached);
	gate_unref(evaluated);
	return a1 == a2 ? 0 : 1;
}
