/* The compiled axgate policy: the built-in rules judging a YAML policy,
 * user modules that deny or override, fail-closed decisions, and errors
 * located in the file that caused them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "policy/gate.h"
#include "policy/value.h"
#include "tests/tap.h"

static const char yaml[] =
    "version: 1\n"
    "name: t-gate\n"
    "network:\n"
    "  policies:\n"
    "    - name: github\n"
    "      endpoints:\n"
    "        - {host: api.github.com, port: 443}\n"
    "        - {host: \"*.githubusercontent.com\", ports: [443]}\n"
    "    - name: registry\n"
    "      endpoints:\n"
    "        - {host: registry.internal, ports: [\"8000-8100\"]}\n"
    "        - {cidr: 10.20.0.0/16, port: 5432}\n"
    "    - name: docs\n"
    "      endpoints:\n"
    "        - {host: example.com, port: 80, rules: [{allow: {method: GET, "
    "path: \"/docs/**\"}}]}\n"
    "inference:\n"
    "  default_provider: local\n"
    "  routes:\n"
    "    - {name: local, provider: openai, endpoint: "
    "\"http://127.0.0.1:8080\", model: llama-3-8b}\n"
    "    - {name: other, provider: openai, endpoint: "
    "\"http://127.0.0.1:8081\", model: qwen-3}\n";

static struct gate *
load(const char *name, const char *text)
{
	struct axp_polfile_errors errs;
	struct gate *g = gate_load_mem(name, text, strlen(text), NULL, &errs);

	if (g == NULL) {
		size_t i;

		for (i = 0; i < errs.n; i++)
			printf("# %s\n", errs.msg[i]);
	}
	return g;
}

static struct gate_decision
decide(struct gate *g, enum gate_entry e, const char *host, unsigned port,
    const char *method, const char *path, const char *addr)
{
	struct gate_request r;
	struct gate_decision d;
	struct axv *in;

	memset(&r, 0, sizeof(r));
	r.entry = e;
	r.host = host;
	r.port = port;
	r.method = method;
	r.path = path;
	r.addr = addr;
	r.job = "j-00000001";
	r.client_addr = "10.200.0.2";
	r.tokens = -1;
	in = gate_input(&r);
	gate_decide(g, e, in, &d);
	axv_unref(in);
	return d;
}

#define CONNECT(g, h, p) decide(g, GATE_CONNECT, h, p, NULL, NULL, NULL)

static void
test_builtin(void)
{
	struct gate *g = load("t.yaml", yaml);
	struct gate_decision d;

	ok(g != NULL, "a policy with every endpoint form compiles");
	if (g == NULL)
		return;
	is_str(gate_name(g), "t-gate", "the policy's name");
	is_str(gate_mode(g), "proxy", "network mode defaults to proxy");
	is_int((long)strlen(gate_digest(g)), 16, "a 16-digit digest");

	d = CONNECT(g, "api.github.com", 443);
	ok(d.allow, "exact host and port: allowed");
	is_str(d.rule, "github", "the group that allowed it is the rule");
	like_str(d.reason, "allowed by policy github", "and the reason");
	d = CONNECT(g, "api.github.com", 80);
	ok(!d.allow, "a known host on another port: denied");
	like_str(d.reason, "port 80 of api.github.com is not allowed",
	    "the reason names the port");
	d = CONNECT(g, "raw.githubusercontent.com", 443);
	ok(d.allow && strcmp(d.rule, "github") == 0, "wildcard: one label");
	d = CONNECT(g, "a.b.githubusercontent.com", 443);
	ok(d.allow, "wildcard: two labels");
	d = CONNECT(g, "githubusercontent.com", 443);
	ok(!d.allow, "wildcard: never the apex");
	is_str(d.rule, "", "no group matched");
	d = CONNECT(g, "evilgithubusercontent.com", 443);
	ok(!d.allow, "wildcard: a suffix that is not a label boundary");
	d = CONNECT(g, "registry.internal", 8050);
	ok(d.allow && strcmp(d.rule, "registry") == 0, "port range: inside");
	d = CONNECT(g, "registry.internal", 8101);
	ok(!d.allow, "port range: outside");
	d = CONNECT(g, "10.20.3.4", 5432);
	ok(d.allow, "CIDR endpoint: an address inside");
	d = CONNECT(g, "10.21.3.4", 5432);
	ok(!d.allow, "CIDR endpoint: an address outside");
	d = CONNECT(g, "example.com", 80);
	ok(!d.allow, "an endpoint with HTTP rules never allows CONNECT");

	d = decide(g, GATE_HTTP, "example.com", 80, "GET", "/docs/a/b.html",
	    NULL);
	ok(d.allow && strcmp(d.rule, "docs") == 0, "http: rule allows GET");
	d = decide(g, GATE_HTTP, "example.com", 80, "POST", "/docs/a", NULL);
	ok(!d.allow, "http: the method is checked");
	d = decide(g, GATE_HTTP, "example.com", 80, "GET", "/admin", NULL);
	ok(!d.allow, "http: the path is checked");
	like_str(d.reason, "GET /admin on example.com:80 is not allowed",
	    "http: the reason names method, path and host");

	d = decide(g, GATE_ADDRESS, "api.github.com", 443, NULL, NULL,
	    "140.82.112.3");
	ok(d.allow, "address: a public address");
	d = decide(g, GATE_ADDRESS, "api.github.com", 443, NULL, NULL,
	    "127.0.0.1");
	ok(!d.allow, "address: loopback is refused (DNS rebinding)");
	like_str(d.reason, "127.0.0.0/8", "the reason names the range");
	d = decide(g, GATE_ADDRESS, "api.github.com", 443, NULL, NULL,
	    "169.254.169.254");
	ok(!d.allow, "address: the metadata service is refused");
	d = decide(g, GATE_ADDRESS, "api.github.com", 443, NULL, NULL,
	    "fd00::1");
	ok(!d.allow, "address: IPv6 unique-local is refused");
	{
		struct gate_request r;
		struct axv *in;

		memset(&r, 0, sizeof(r));
		r.entry = GATE_ADDRESS;
		r.host = "api.github.com";
		r.port = 443;
		r.addr = "::ffff:127.0.0.1";
		r.addr_class = "loopback";
		r.tokens = -1;
		in = gate_input(&r);
		gate_decide(g, GATE_ADDRESS, in, &d);
		ok(!d.allow, "address: the proxy's class decides (mapped v4)");
		like_str(d.reason, "a loopback address", "... and is named");
		axv_unref(in);
		r.addr = "140.82.112.3";
		r.addr_class = "public";
		in = gate_input(&r);
		gate_decide(g, GATE_ADDRESS, in, &d);
		ok(d.allow, "address: a public class is allowed");
		axv_unref(in);
	}
	d = decide(g, GATE_ADDRESS, "db", 5432, NULL, NULL, "10.20.0.9");
	ok(d.allow, "address: a private range a CIDR endpoint names");
	d = decide(g, GATE_ADDRESS, "db", 5433, NULL, NULL, "10.20.0.9");
	ok(!d.allow, "address: ... but only on its ports");

	{
		struct gate_request r;
		struct axv *in;

		memset(&r, 0, sizeof(r));
		r.entry = GATE_INFERENCE;
		r.route = "local";
		r.model = "llama-3-8b";
		r.tokens = 100;
		in = gate_input(&r);
		gate_decide(g, GATE_INFERENCE, in, &d);
		axv_unref(in);
		ok(d.allow, "inference: a configured route and its model");
		r.model = "gpt-5";
		in = gate_input(&r);
		gate_decide(g, GATE_INFERENCE, in, &d);
		axv_unref(in);
		ok(d.allow, "inference: the default route takes another model");
		r.route = "other";
		in = gate_input(&r);
		gate_decide(g, GATE_INFERENCE, in, &d);
		axv_unref(in);
		ok(!d.allow,
		    "inference: another model on a route that names one");
		r.route = "nope";
		in = gate_input(&r);
		gate_decide(g, GATE_INFERENCE, in, &d);
		axv_unref(in);
		ok(!d.allow, "inference: an unknown route");
	}

	{
		struct gate *r = gate_ref(g);

		gate_unref(g);
		d = CONNECT(r, "api.github.com", 443);
		ok(d.allow, "a reference outlives the loader's");
		gate_unref(r);
	}
}

static void
test_modes(void)
{
	struct gate *g;
	struct gate_decision d;

	g = load("block.yaml", "version: 1\nname: b\nnetwork: {mode: block}\n");
	ok(g != NULL, "block mode compiles");
	d = CONNECT(g, "api.github.com", 443);
	ok(!d.allow && strcmp(d.rule, "mode:block") == 0,
	    "block mode denies everything");
	gate_unref(g);
	g = load("allow.yaml", "version: 1\nname: a\nnetwork: {mode: allow}\n");
	d = CONNECT(g, "anything.example", 1);
	ok(d.allow && strcmp(d.rule, "mode:allow") == 0,
	    "allow mode allows everything");
	d = decide(g, GATE_ADDRESS, "x", 1, NULL, NULL, "127.0.0.1");
	ok(d.allow, "allow mode does not judge addresses");
	gate_unref(g);
}

/* Write a module beside the policy file and load the file. */
static struct gate *
load_with_module(const char *dir, const char *rego,
    struct axp_polfile_errors *errs)
{
	char path[512], text[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/extra.rego", dir);
	f = fopen(path, "w");
	fputs(rego, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/p.yaml", dir);
	snprintf(text, sizeof(text),
	    "version: 1\nname: m\nnetwork:\n  policies:\n"
	    "    - {name: github, endpoints: [{host: api.github.com, "
	    "port: 443}]}\nrego: [extra.rego]\n");
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return gate_load(path, NULL, errs);
}

static void
test_user_modules(void)
{
	char dir[] = "/tmp/t-gate-XXXXXX", path[600];
	struct axp_polfile_errors errs;
	struct gate *g;
	struct gate_decision d;

	if (mkdtemp(dir) == NULL) {
		ok(0, "a temporary folder for the modules");
		return;
	}
	g = load_with_module(dir,
	    "package axgate.deny\n"
	    "connect contains \"no github on this job\" if {\n"
	    "\tinput.host == \"api.github.com\"\n"
	    "\tinput.client.job == \"j-00000001\"\n"
	    "}\n",
	    &errs);
	ok(g != NULL, "a module adding deny rules compiles");
	if (g != NULL) {
		d = CONNECT(g, "api.github.com", 443);
		ok(!d.allow, "a user deny wins over the built-in allow");
		is_str(d.rule, "deny", "... with rule deny");
		is_str(d.reason, "no github on this job", "... and its reason");
		gate_unref(g);
	}

	g = load_with_module(dir,
	    "package axgate.override\n"
	    "connect := {\"allow\": true, \"rule\": \"lab\", \"reason\": "
	    "\"lab\"} if input.host == \"lab.example\"\n",
	    &errs);
	d = CONNECT(g, "lab.example", 443);
	ok(d.allow && strcmp(d.rule, "lab") == 0,
	    "an override replaces the built-in decision");
	d = CONNECT(g, "other.example", 443);
	ok(!d.allow, "... only where it is defined");
	gate_unref(g);

	g = load_with_module(dir,
	    "package axgate.override\nconnect := \"yes\"\n", &errs);
	d = CONNECT(g, "api.github.com", 443);
	ok(!d.allow, "a malformed decision fails closed");
	like_str(d.reason, "not an object with a boolean", "... and says why");
	gate_unref(g);

	g = load_with_module(dir,
	    "package axgate.deny\n"
	    "connect contains x if {\n\tinput.host == \"a\"\n}\n"
	    "http contains y if {\n\ty == z\n}\n",
	    &errs);
	ok(g == NULL, "a module with unsafe variables is refused");
	like_str(errs.msg[0], "extra.rego:2:18:", "the error is located");
	like_str(errs.msg[0], "var x is unsafe", "... in OPA's words");
	ok(errs.n >= 2, "every error is reported, not only the first");

	g = load_with_module(dir, "package axgate.deny\nconnect contains {\n",
	    &errs);
	ok(g == NULL && strstr(errs.msg[0], "extra.rego:") != NULL,
	    "a parse error is located in the module");

	g = load_with_module(dir,
	    "package axgate.override\n"
	    "connect := {\"allow\": true} if 1 / 0 > 0\n",
	    &errs);
	d = CONNECT(g, "api.github.com", 443);
	ok(!d.allow && strcmp(d.rule, "error") == 0,
	    "an evaluation error fails closed");
	like_str(d.reason, "divide by zero", "... and says why");
	gate_unref(g);

	snprintf(path, sizeof(path), "%s/extra.rego", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/p.yaml", dir);
	g = gate_load(path, NULL, &errs);
	ok(g == NULL, "a missing module is an error");
	like_str(errs.msg[0], "rego[0]", "... naming the key");
	unlink(path);
	rmdir(dir);
}

static void
test_bad_yaml(void)
{
	struct axp_polfile_errors errs;
	const char bad[] = "version: 1\nname: x\nnetwork: {mdoe: allow}\n";
	struct gate *g =
	    gate_load_mem("bad.yaml", bad, strlen(bad), NULL, &errs);

	ok(g == NULL, "a YAML error gives no gate");
	like_str(errs.msg[0], "bad.yaml:3:", "... located in the file");
}

static void
test_query(void)
{
	struct gate *g = load("t.yaml", yaml);
	struct axv *res = NULL, *v = NULL;
	char err[256];

	is_int(gate_query(g, "x := data.axgate.policy.name", NULL, &res, err,
		   sizeof(err)),
	    0, "a query against the policy document");
	{
		char *js = axv_json_str(res);

		like_str(js, "\"x\":\"t-gate\"", "binds the policy's name");
		free(js);
	}
	axv_unref(res);
	is_int(gate_query(g, "data.axgate.connect[", NULL, &res, err,
		   sizeof(err)),
	    -1, "a bad query is an error");
	is_int(gate_data(g, "axgate/policy/name", NULL, &v, err, sizeof(err)),
	    0, "a document by path");
	ok(v != NULL && axv_str_eq(v, "t-gate", 6), "its value");
	axv_unref(v);
	is_int(gate_data(g, "axgate/nothing", NULL, &v, err, sizeof(err)), 0,
	    "an undefined document");
	ok(v == NULL, "is NULL");
	gate_unref(g);
}

/* The input document is built in key order without sorting: every key
 * is found, and it equals the same document read back from its JSON. */
static void
test_input_doc(void)
{
	static const struct gate_header h[] = { { "X-A", 3, "1", 1 },
		{ "Accept", 6, "*", 1 } };
	static const char *const keys[] = { "addr", "addr_class", "client",
		"headers", "host", "host_suffixes", "host_type", "job", "kind",
		"method", "path", "port", "query", "scheme", "sni" };
	struct gate_request r;
	struct axv *in, *back;
	char *json;
	int missing = 0;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.entry = GATE_HTTP;
	r.host = "a.b.example.com";
	r.port = 8080;
	r.client_addr = "10.200.0.2";
	r.job = "j-1";
	r.addr = "93.184.216.34";
	r.addr_class = "public";
	r.scheme = "http";
	r.method = "GET";
	r.path = "/x";
	r.query = "q=1";
	r.headers = h;
	r.nheaders = 2;
	r.sni = "a.b.example.com";
	r.tokens = -1;
	in = gate_input(&r);
	for (i = 0; i < AXG_ARRAY_LEN(keys); i++)
		missing += axv_object_gets(in, keys[i]) == NULL;
	is_int(missing, 0, "every key of the input document is found");
	json = axv_json_str(in);
	back = axv_from_json(json, strlen(json), NULL, NULL, 0);
	ok(back != NULL && axv_equal(in, back) &&
		axv_object_len(in) == AXG_ARRAY_LEN(keys),
	    "and the document is the one its JSON reads back as");
	free(json);
	axv_unref(back);
	axv_unref(in);
}

int
main(void)
{
	test_builtin();
	test_input_doc();
	test_modes();
	test_user_modules();
	test_bad_yaml();
	test_query();
	return tap_done();
}
