/*
 * cmd-scan.c: axgate scan: find credentials in files or stdin.
 *
 * Exit 0 when nothing is found, 1 when something is, 2 on errors (bad
 * usage, unreadable input, bad rules file).  Errors in one file do not
 * stop the scan of the others, but make the exit status 2.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "safety/safety.h"
#include "cli/cli.h"

#define SCAN_INPUT_MAX ((size_t)1 << 30)

static const char *const enc_names[] = { "raw", "escaped", "base64", "hex" };

static char *
read_stdin(size_t *lenp, char *err, size_t errlen)
{
	struct axg_buf b = AXG_BUF_INIT;
	char chunk[65536];
	size_t n;

	axg_buf_init(&b, SCAN_INPUT_MAX);
	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		if (axg_buf_append(&b, chunk, n) < 0) {
			axg_buf_free(&b);
			axg_seterr(err, errlen, "stdin: larger than %zu bytes",
			    SCAN_INPUT_MAX);
			return NULL;
		}
	if (ferror(stdin)) {
		axg_seterr(err, errlen, "stdin: %s", strerror(errno));
		axg_buf_free(&b);
		return NULL;
	}
	return axg_buf_steal(&b, lenp);
}

/* Report the findings of one input, counting lines as it goes. */
static void
report(const char *name, const char *data, size_t len,
    const struct leak_findings *f, bool json, json_t *arr)
{
	size_t line = 1, lstart = 0, at = 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct leak_finding *x = &f->v[i];
		size_t off = (size_t)x->offset;
		for (; at < off && at < len; at++)
			if (data[at] == '\n') {
				line++;
				lstart = at + 1;
			}
		size_t col = off - lstart + 1;
		if (json) {
			json_array_append_new(arr,
			    json_pack("{s:s, s:I, s:I, s:I, s:I, s:s, s:s, "
				      "s:s, s:s}",
				"file", name, "line", (json_int_t)line,
				"column", (json_int_t)col, "offset",
				(json_int_t)x->offset, "length",
				(json_int_t)x->length, "rule_id", x->rule_id,
				"description", x->description, "preview",
				x->preview, "encoding",
				enc_names[x->encoding]));
		} else {
			printf("%s:%zu:%zu: %s: %s [%s]%s%s\n", name, line, col,
			    x->rule_id, x->description, x->preview,
			    x->encoding != LEAK_ENC_RAW ? " encoded: " : "",
			    x->encoding != LEAK_ENC_RAW ? enc_names[x->encoding]
							: "");
		}
	}
}

static int
cmd_scan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "rules", required_argument, NULL, 'r' },
		{ "list-rules", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *rules = NULL;
	bool json = false, list = false;
	struct leak_ruleset *rs = NULL;
	struct leak_scan *sc = NULL;
	struct leak_findings f;
	json_t *arr = NULL;
	char err[512];
	int c, status = AXG_EXIT_OK;
	size_t found = 0;
	bool truncated = false;

	leak_findings_init(&f);
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:r:lh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "json") == 0)
				json = true;
			else if (strcmp(optarg, "text") == 0)
				json = false;
			else {
				fprintf(stderr,
				    "axgate scan: unknown format '%s' (want "
				    "text or json)\n",
				    optarg);
				return AXG_EXIT_USAGE;
			}
			break;
		case 'r':
			rules = optarg;
			break;
		case 'l':
			list = true;
			break;
		case 'h':
			axg_cmd_usage(&axg_cmd_scan);
			return AXG_EXIT_OK;
		default:
			return axg_cmd_usage(&axg_cmd_scan);
		}
	}

	rs = leak_ruleset_new(rules, err, sizeof(err));
	if (rs == NULL) {
		fprintf(stderr, "axgate scan: %s\n", err);
		return AXG_EXIT_USAGE;
	}
	if (list) {
		for (size_t i = 0; i < leak_ruleset_count(rs); i++)
			printf("%-36s %s\n", leak_ruleset_rule_id(rs, i),
			    leak_ruleset_rule_description(rs, i));
		leak_ruleset_free(rs);
		return AXG_EXIT_OK;
	}
	sc = leak_scan_new(rs, err, sizeof(err));
	if (sc == NULL) {
		fprintf(stderr, "axgate scan: %s\n", err);
		leak_ruleset_free(rs);
		return AXG_EXIT_USAGE;
	}
	if (json)
		arr = json_array();

	int nfiles = argc - optind;
	for (int i = 0; i < (nfiles > 0 ? nfiles : 1); i++) {
		const char *path = nfiles > 0 ? argv[optind + i] : "-";
		const char *name = strcmp(path, "-") == 0 ? "(stdin)" : path;
		char *data;
		size_t len = 0;

		if (strcmp(path, "-") == 0)
			data = read_stdin(&len, err, sizeof(err));
		else
			data = axg_read_file(path, SCAN_INPUT_MAX, &len, err,
			    sizeof(err));
		if (data == NULL) {
			fprintf(stderr, "axgate scan: %s\n", err);
			status = AXG_EXIT_USAGE;
			continue;
		}
		leak_findings_reset(&f);
		if (leak_scan_buffer(sc, data, len, &f, err, sizeof(err)) < 0) {
			fprintf(stderr, "axgate scan: %s: %s\n", name, err);
			status = AXG_EXIT_USAGE;
		} else {
			report(name, data, len, &f, json, arr);
			found += f.n;
			if (f.truncated) {
				fprintf(stderr,
				    "axgate scan: %s: more than %d findings; "
				    "only the first are listed\n",
				    name, LEAK_FINDINGS_MAX);
				truncated = true;
			}
		}
		free(data);
	}
	if (json) {
		json_t *doc = json_pack("{s:o, s:I, s:b}", "findings", arr,
		    "count", (json_int_t)found, "truncated", truncated);
		json_dumpf(doc, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(doc);
	}
	if (status == AXG_EXIT_OK && found > 0)
		status = AXG_EXIT_FAIL;
	leak_findings_free(&f);
	leak_scan_free(sc);
	leak_ruleset_free(rs);
	return status;
}

const struct axg_cmd axg_cmd_scan = {
	.name = "scan",
	.summary = "scan files or stdin for leaked credentials",
	.usage = "axgate scan [--format text|json] [--rules FILE] [FILE...]\n"
		 "axgate scan --list-rules [--rules FILE]\n",
	.run = cmd_scan,
};
