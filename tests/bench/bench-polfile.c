/*
 * bench-polfile: load time of large YAML policy files, and the speed of
 * the decisions the built-in rules make on them.
 *
 * Generates policies of 10, 1,000 and 10,000 endpoints (exact hosts,
 * wildcards, port ranges, CIDRs mixed) and times axp_polfile_load_mem()
 * and gate_load_mem() (load and compile with the built-in rules) against
 * libyaml's own parse of the same text, measured in the same run; then
 * the median and p99 of data.axgate.connect and data.axgate.address
 * decisions on an input document built beforehand, with the time of
 * building and freeing that document too (what the proxy pays per
 * request), and the ratio to building it alone.
 * Targets: 10,000 endpoints load and compile in under 100 ms; connect
 * decides in under 1 microsecond median.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/common.h"
#include "policy/gate.h"
#include "policy/polfile.h"

static char *
make_policy(int n, size_t *len)
{
	struct axg_buf b = AXG_BUF_INIT;

	axg_buf_puts(&b, "version: 1\nname: bench\nnetwork:\n  policies:\n");
	for (int g = 0; g < (n + 99) / 100; g++) {
		axg_buf_printf(&b, "    - name: group-%d\n      endpoints:\n",
		    g);
		for (int i = g * 100; i < n && i < (g + 1) * 100; i++) {
			switch (i % 4) {
			case 0:
				axg_buf_printf(&b,
				    "        - {host: api%d.example%d.com, "
				    "port: 443}\n",
				    i, i % 97);
				break;
			case 1:
				axg_buf_printf(&b,
				    "        - {host: \"*.svc%d.example.net\", "
				    "ports: [443, 8443]}\n",
				    i);
				break;
			case 2:
				axg_buf_printf(&b,
				    "        - {host: reg%d.internal, ports: "
				    "[\"8000-8100\"]}\n",
				    i);
				break;
			default:
				axg_buf_printf(&b,
				    "        - {cidr: 10.%d.%d.0/24, port: "
				    "5432}\n",
				    (i / 256) % 256, i % 256);
				break;
			}
		}
	}
	return axg_buf_steal(&b, len);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define RUNS 9

static uint64_t
time_yaml(const char *text, size_t len)
{
	uint64_t t[RUNS];

	for (int r = 0; r < RUNS; r++) {
		yaml_parser_t p;
		yaml_document_t d;
		uint64_t t0 = axg_monotonic_ns();

		yaml_parser_initialize(&p);
		yaml_parser_set_input_string(&p, (const unsigned char *)text,
		    len);
		if (!yaml_parser_load(&p, &d))
			axg_fatal(1, "libyaml refused the generated policy");
		yaml_document_delete(&d);
		yaml_parser_delete(&p);
		t[r] = axg_monotonic_ns() - t0;
	}
	qsort(t, RUNS, sizeof(t[0]), cmp_u64);
	return t[RUNS / 2];
}

static uint64_t
time_load(const char *text, size_t len)
{
	uint64_t t[RUNS];

	for (int r = 0; r < RUNS; r++) {
		struct axp_polfile_errors errs;
		uint64_t t0 = axg_monotonic_ns();
		struct axv *doc = axp_polfile_load_mem("bench.yaml", text, len,
		    NULL, &errs, NULL);

		t[r] = axg_monotonic_ns() - t0;
		if (doc == NULL)
			axg_fatal(1, "the generated policy did not load: %s",
			    errs.msg[0]);
		axv_unref(doc);
	}
	qsort(t, RUNS, sizeof(t[0]), cmp_u64);
	return t[RUNS / 2];
}

static uint64_t
time_gate(const char *text, size_t len, struct gate **keep)
{
	uint64_t t[RUNS];

	for (int r = 0; r < RUNS; r++) {
		struct axp_polfile_errors errs;
		uint64_t t0 = axg_monotonic_ns();
		struct gate *g =
		    gate_load_mem("bench.yaml", text, len, NULL, &errs);

		t[r] = axg_monotonic_ns() - t0;
		if (g == NULL)
			axg_fatal(1, "the generated policy did not compile: %s",
			    errs.msg[0]);
		if (r == 0)
			*keep = g;
		else
			gate_unref(g);
	}
	qsort(t, RUNS, sizeof(t[0]), cmp_u64);
	return t[RUNS / 2];
}

#define ITERS 2000

struct lat {
	uint64_t p50, p99;
};

/* What time_decision times. */
enum timed {
	T_INPUT,  /* building and freeing the input document */
	T_DECIDE, /* the decision alone, on an input built beforehand */
	T_BOTH,	  /* both: what the proxy pays per request */
};

/* Median and p99 of ITERS runs of what. */
static struct lat
time_decision(struct gate *g, const struct gate_request *r, enum timed what,
    bool *allow)
{
	static uint64_t t[ITERS];
	struct gate_decision d;
	struct axv *pre = what == T_DECIDE ? gate_input(r) : NULL;
	struct lat l;

	for (int i = 0; i < ITERS; i++) {
		uint64_t t0 = axg_monotonic_ns();
		struct axv *in = pre != NULL ? pre : gate_input(r);

		if (what != T_INPUT)
			gate_decide(g, r->entry, in, &d);
		if (pre == NULL)
			axv_unref(in);
		t[i] = axg_monotonic_ns() - t0;
	}
	axv_unref(pre);
	if (what != T_INPUT)
		*allow = d.allow;
	qsort(t, ITERS, sizeof(t[0]), cmp_u64);
	l.p50 = t[ITERS / 2];
	l.p99 = t[ITERS * 99 / 100];
	return l;
}

static void
decisions(int n, struct gate *g)
{
	static const struct {
		const char *what, *host, *addr;
		unsigned port;
		enum gate_entry e;
	} cases[] = {
		{ "connect exact", "api0.example0.com", NULL, 443,
		    GATE_CONNECT },
		{ "connect wildcard", "a.b.svc1.example.net", NULL, 8443,
		    GATE_CONNECT },
		{ "connect miss", "nowhere.example.org", NULL, 443,
		    GATE_CONNECT },
		{ "connect bad port", "reg2.internal", NULL, 9000,
		    GATE_CONNECT },
		{ "address public", "api0.example0.com", "93.184.216.34", 443,
		    GATE_ADDRESS },
		{ "address loopback", "api0.example0.com", "127.0.0.1", 443,
		    GATE_ADDRESS },
	};

	for (size_t i = 0; i < AXG_ARRAY_LEN(cases); i++) {
		struct gate_request r;
		struct lat base, dec, both;
		bool allow = false;

		memset(&r, 0, sizeof(r));
		r.entry = cases[i].e;
		r.host = cases[i].host;
		r.port = cases[i].port;
		r.addr = cases[i].addr;
		r.job = "j-00000001";
		r.client_addr = "10.200.0.2";
		r.tokens = -1;
		base = time_decision(g, &r, T_INPUT, &allow);
		dec = time_decision(g, &r, T_DECIDE, &allow);
		both = time_decision(g, &r, T_BOTH, &allow);
		printf("%-10d %-18s %-6s %9.0f %9.0f %9.0f %9.0f %8.1fx %s\n",
		    n, cases[i].what, allow ? "allow" : "deny", (double)dec.p50,
		    (double)dec.p99, (double)both.p50, (double)base.p50,
		    (double)dec.p50 / (double)(base.p50 ? base.p50 : 1),
		    r.entry == GATE_CONNECT
			? (dec.p50 < 1000 ? "< 1 us: met" : "< 1 us: MISSED")
			: "");
	}
}

int
main(void)
{
	static const int sizes[] = { 10, 1000, 10000 };
	struct gate *gates[AXG_ARRAY_LEN(sizes)];

	printf("%-10s %10s %12s %12s %8s %14s %8s %s\n", "endpoints", "bytes",
	    "libyaml ms", "load ms", "ratio", "load+compile", "ratio",
	    "target");
	for (size_t i = 0; i < AXG_ARRAY_LEN(sizes); i++) {
		size_t len;
		char *text = make_policy(sizes[i], &len);
		uint64_t y = time_yaml(text, len), l = time_load(text, len);
		uint64_t c = time_gate(text, len, &gates[i]);

		printf("%-10d %10zu %12.2f %12.2f %7.2fx %11.2f ms %7.2fx %s\n",
		    sizes[i], len, (double)y / 1e6, (double)l / 1e6,
		    (double)l / (double)y, (double)c / 1e6,
		    (double)c / (double)y,
		    sizes[i] == 10000
			? (c < 100000000 ? "< 100 ms: met" : "< 100 ms: MISSED")
			: "");
		free(text);
	}
	printf("\ndecisions (ns): p50 and p99 of the decision on a built "
	       "input (the target);\nwith input: building and freeing the "
	       "input too, as the proxy does per request;\ninput: that "
	       "alone, the baseline of the ratio\n");
	printf("%-10s %-18s %-6s %9s %9s %9s %9s %9s %s\n", "endpoints", "case",
	    "answer", "p50", "p99", "with input", "input", "ratio", "target");
	for (size_t i = 0; i < AXG_ARRAY_LEN(sizes); i++) {
		decisions(sizes[i], gates[i]);
		gate_unref(gates[i]);
	}
	return 0;
}
