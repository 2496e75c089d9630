/*
 * bench-polfile: load time of large YAML policy files.
 *
 * Generates policies of 100, 1,000 and 10,000 endpoints (exact hosts,
 * wildcards, port ranges, CIDRs mixed) and times axp_polfile_load_mem()
 * against libyaml's own parse of the same text, measured in the same run.
 * Target: 10,000 endpoints load in under 100 ms.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <yaml.h>

#include "common/common.h"
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

int
main(void)
{
	static const int sizes[] = { 100, 1000, 10000 };

	printf("%-10s %10s %12s %12s %8s %s\n", "endpoints", "bytes",
	    "libyaml ms", "load ms", "ratio", "target");
	for (size_t i = 0; i < AXG_ARRAY_LEN(sizes); i++) {
		size_t len;
		char *text = make_policy(sizes[i], &len);
		uint64_t y = time_yaml(text, len), l = time_load(text, len);

		printf("%-10d %10zu %12.2f %12.2f %7.2fx %s\n", sizes[i], len,
		    (double)y / 1e6, (double)l / 1e6, (double)l / (double)y,
		    sizes[i] == 10000
			? (l < 100000000 ? "< 100 ms: met" : "< 100 ms: MISSED")
			: "");
		free(text);
	}
	return 0;
}
