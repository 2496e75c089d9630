/* policy-gate.c: the `axgate policy` subcommands for YAML policy files:
 * check of a .yaml file, explain and show-builtin, and the loader that
 * run, serve and eval -p share. */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "common/common.h"
#include "policy/gate.h"
#include "proxy/proxy.h"

extern const char axg_default_policy[];

bool
axg_is_yaml_path(const char *path)
{
	return axg_endswith(path, ".yaml") || axg_endswith(path, ".yml");
}

struct gate *
axg_gate_open(const char *path, const struct axp_polfile_opts *opts,
    const char *who)
{
	struct axp_polfile_errors errs;
	struct gate *g;
	size_t i;

	if (path != NULL)
		g = gate_load(path, opts, &errs);
	else
		g = gate_load_mem(AXG_DEFAULT_POLICY_NAME, axg_default_policy,
		    strlen(axg_default_policy), opts, &errs);
	if (g != NULL)
		return g;
	for (i = 0; i < errs.n; i++)
		fprintf(stderr, "%s\n", errs.msg[i]);
	if (errs.truncated)
		fprintf(stderr, "%s: more problems not shown\n", who);
	return NULL;
}

#define TEST_MAX_MODULES 256

static void
collect_rego(const char *path, struct gate_module *m, size_t *n, char **texts,
    int *errors)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char err[512];

	if (stat(path, &st) < 0) {
		fprintf(stderr, "axgate policy test: %s: %s\n", path,
		    strerror(errno));
		(*errors)++;
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		if ((d = opendir(path)) == NULL) {
			fprintf(stderr, "axgate policy test: %s: %s\n", path,
			    strerror(errno));
			(*errors)++;
			return;
		}
		while ((de = readdir(d)) != NULL) {
			char *p;

			if (de->d_name[0] == '.' ||
			    !axg_endswith(de->d_name, ".rego"))
				continue;
			p = axg_asprintf("%s/%s", path, de->d_name);
			collect_rego(p, m, n, texts, errors);
			free(p);
		}
		closedir(d);
		return;
	}
	if (*n == TEST_MAX_MODULES) {
		fprintf(stderr, "axgate policy test: more than %d modules\n",
		    TEST_MAX_MODULES);
		(*errors)++;
		return;
	}
	texts[*n] = axg_read_file(path, 4u << 20, NULL, err, sizeof(err));
	if (texts[*n] == NULL) {
		fprintf(stderr, "axgate policy test: %s\n", err);
		(*errors)++;
		return;
	}
	m[*n].name = axg_strdup(path);
	m[*n].text = texts[*n];
	(*n)++;
}

struct gate *
axg_gate_open_tests(const char *yaml, char **paths, int npaths)
{
	struct gate_module m[TEST_MAX_MODULES];
	char *texts[TEST_MAX_MODULES];
	struct axp_polfile_errors errs;
	struct gate *g = NULL;
	size_t n = 0, i;
	int errors = 0;

	for (int k = 0; k < npaths; k++)
		collect_rego(paths[k], m, &n, texts, &errors);
	if (errors == 0) {
		g = gate_load_extra(yaml, NULL, m, n, &errs);
		for (i = 0; g == NULL && i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
	}
	for (i = 0; i < n; i++) {
		free((char *)m[i].name);
		free(texts[i]);
	}
	return g;
}

int
axg_policy_check_yaml(const char *path)
{
	struct gate *g = axg_gate_open(path, NULL, "axgate policy check");

	if (g == NULL)
		return AXG_EXIT_FAIL;
	gate_unref(g);
	return AXG_EXIT_OK;
}

int
axg_policy_show_builtin(int argc, char **argv)
{
	size_t i;

	if (argc > 1) {
		axg_cmd_usage(&axg_cmd_policy);
		return AXG_EXIT_USAGE;
	}
	for (i = 0; i < gate_builtin_nmodules; i++) {
		printf("# ---- %s ----\n", gate_builtin_modules[i].name);
		fputs(gate_builtin_modules[i].text, stdout);
		if (i + 1 < gate_builtin_nmodules)
			putchar('\n');
	}
	return AXG_EXIT_OK;
}

/* "host:port" or "[v6]:port", canonicalised as the proxy does. */
static int
parse_target(const char *s, uint16_t dflt, struct px_hostport *hp)
{
	char err[256];

	if (px_host_parse_authority(s, strlen(s), dflt, hp, err, sizeof(err)) <
	    0) {
		fprintf(stderr, "axgate policy explain: %s: %s\n", s, err);
		return -1;
	}
	return 0;
}

/* http://host[:port]/path?query */
static int
parse_url(const char *url, struct px_hostport *hp, char **path, char **query)
{
	const char *p, *auth, *slash, *q;

	if (strncmp(url, "http://", 7) != 0) {
		fprintf(stderr,
		    "axgate policy explain: --http %s: the URL must start "
		    "with http:// (HTTPS goes through CONNECT: use "
		    "--connect)\n",
		    url);
		return -1;
	}
	auth = url + 7;
	slash = strchr(auth, '/');
	p = slash ? slash : "/";
	{
		char *a = axg_strndup(auth,
		    slash ? (size_t)(slash - auth) : strlen(auth));
		int rc = parse_target(a, 80, hp);

		free(a);
		if (rc < 0)
			return -1;
	}
	q = strchr(p, '?');
	*path = q ? axg_strndup(p, (size_t)(q - p)) : axg_strdup(p);
	*query = q ? axg_strdup(q + 1) : NULL;
	return 0;
}

/* The class the proxy gives an address; NULL if it is not one. */
static const char *
addr_class(const char *s)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, s, &s4->sin_addr) == 1)
		s4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, s, &s6->sin6_addr) == 1)
		s6->sin6_family = AF_INET6;
	else
		return NULL;
	return px_addr_class_name(px_addr_classify((struct sockaddr *)&ss));
}

int
axg_policy_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "connect", required_argument, NULL, 'c' },
		{ "http", required_argument, NULL, 'u' },
		{ "method", required_argument, NULL, 'm' },
		{ "address", required_argument, NULL, 'a' },
		{ "inference", required_argument, NULL, 'n' },
		{ "model", required_argument, NULL, 'M' },
		{ "job", required_argument, NULL, 'j' },
		{ "input", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy = NULL, *target = NULL, *method = "GET";
	const char *addr = NULL, *model = NULL, *job = NULL;
	enum gate_entry entry = GATE_NENTRIES;
	struct gate_request r;
	struct gate_decision d;
	struct px_hostport hp;
	struct gate *g = NULL;
	struct axv *in = NULL;
	char *path = NULL, *query = NULL, *js;
	bool show_input = false;
	int ch, rc = AXG_EXIT_USAGE;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			policy = optarg;
			break;
		case 'c':
		case 'u':
		case 'a':
		case 'n':
			if (entry != GATE_NENTRIES) {
				fprintf(stderr,
				    "axgate policy explain: give one of "
				    "--connect, --http, --address, "
				    "--inference\n");
				return AXG_EXIT_USAGE;
			}
			entry = ch == 'c' ? GATE_CONNECT
			    : ch == 'u'	  ? GATE_HTTP
			    : ch == 'a'	  ? GATE_ADDRESS
					  : GATE_INFERENCE;
			target = optarg;
			break;
		case 'm':
			method = optarg;
			break;
		case 'M':
			model = optarg;
			break;
		case 'j':
			job = optarg;
			break;
		case 'I':
			show_input = true;
			break;
		default:
			axg_cmd_usage(&axg_cmd_policy);
			return AXG_EXIT_USAGE;
		}
	}
	if (entry == GATE_NENTRIES || optind != argc) {
		axg_cmd_usage(&axg_cmd_policy);
		return AXG_EXIT_USAGE;
	}
	memset(&r, 0, sizeof(r));
	r.entry = entry;
	r.job = job;
	r.tokens = -1;
	switch (entry) {
	case GATE_CONNECT:
		if (parse_target(target, 0, &hp) < 0)
			goto out;
		if (hp.port == 0) {
			fprintf(stderr,
			    "axgate policy explain: --connect %s: give "
			    "HOST:PORT\n",
			    target);
			goto out;
		}
		r.host = hp.host;
		r.port = hp.port;
		break;
	case GATE_HTTP:
		if (parse_url(target, &hp, &path, &query) < 0)
			goto out;
		r.host = hp.host;
		r.port = hp.port;
		r.scheme = "http";
		r.method = method;
		r.path = path;
		r.query = query;
		break;
	case GATE_ADDRESS: {
		/* HOST:PORT=ADDR */
		char *eq = strrchr(target, '=');
		char *t;

		if (eq == NULL) {
			fprintf(stderr,
			    "axgate policy explain: --address %s: give "
			    "HOST:PORT=ADDRESS\n",
			    target);
			goto out;
		}
		t = axg_strndup(target, (size_t)(eq - target));
		ch = parse_target(t, 443, &hp);
		free(t);
		if (ch < 0)
			goto out;
		r.host = hp.host;
		r.port = hp.port;
		addr = eq + 1;
		r.addr = addr;
		r.addr_class = addr_class(addr);
		if (r.addr_class == NULL) {
			fprintf(stderr,
			    "axgate policy explain: --address: '%s' is not an "
			    "IP address\n",
			    addr);
			goto out;
		}
		break;
	}
	default:
		r.route = target;
		r.model = model ? model : "";
		r.path = "/v1/chat/completions";
		break;
	}
	rc = AXG_EXIT_USAGE;
	if ((g = axg_gate_open(policy, NULL, "axgate policy explain")) == NULL)
		goto out;
	in = gate_input(&r);
	(void)gate_decide(g, entry, in, &d);
	printf("decision: %s\n", d.allow ? "allow" : "deny");
	printf("rule:     %s\n", d.rule[0] ? d.rule : "(none)");
	printf("reason:   %s\n", d.reason);
	printf("entry:    data.axgate.%s\n", gate_entry_name(entry));
	printf("policy:   %s (%s, digest %s)\n", gate_name(g), gate_source(g),
	    gate_digest(g));
	if (show_input) {
		js = axv_json_str(in);
		printf("input:    %s\n", js);
		free(js);
	}
	rc = d.allow ? AXG_EXIT_OK : AXG_EXIT_FAIL;
out:
	axv_unref(in);
	gate_unref(g);
	free(path);
	free(query);
	return rc;
}
