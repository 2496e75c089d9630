/* YAML policy files: the format, canonicalisation, and every rejection,
 * each asserting the message and its location. */
#include "config.h"

#include "common/common.h"
#include "policy/polfile.h"
#include "policy/value.h"
#include "tests/tap.h"

static const char good[] =
    "version: 1\n"
    "name: coding-agent\n"
    "filesystem: {read_only: [/usr, /lib, /etc/ssl/certs], read_write: "
    "[\"{workspace}\"], deny: [\"~/.ssh\", \"~/.aws\"], "
    "workspace_read_only: false}\n"
    "process: {max_processes: 64, max_memory_mb: 4096, cpu_rate_percent: "
    "80, timeout_sec: 3600, env: {pass: [LANG, TERM], set: {}}}\n"
    "network:\n"
    "  mode: proxy\n"
    "  policies:\n"
    "    - name: github\n"
    "      endpoints:\n"
    "        - {host: API.GitHub.com., port: 443}\n"
    "        - {host: \"*.githubusercontent.com\", ports: [443]}\n"
    "        - {host: registry.internal, ports: [\"8000-8100\"]}\n"
    "        - {cidr: 10.20.0.0/16, port: 5432}\n"
    "        - {host: example.com, port: 80, rules: [{allow: {method: get, "
    "path: \"/docs/**\"}}]}\n"
    "inference:\n"
    "  default_provider: local\n"
    "  routes:\n"
    "    - {name: local, provider: openai, endpoint: "
    "\"http://127.0.0.1:8080\", model: llama-3-8b}\n"
    "    - {name: claude, provider: anthropic, endpoint: "
    "\"https://api.anthropic.com\", model: claude-sonnet-4, api_key_env: "
    "ANTHROPIC_API_KEY}\n"
    "  token_budget: {max_tokens_per_hour: 500000, max_tokens_per_request: "
    "32768, action_on_exhaust: reject}\n"
    "safety: {credential_scan: block}\n"
    "rego: [extra.rego]\n";

static char *
json_at(struct axv *doc, const char *a, const char *b, const char *c)
{
	struct axv *v = axv_object_gets(doc, a);

	if (v != NULL && b != NULL)
		v = axv_object_gets(v, b);
	if (v != NULL && c != NULL)
		v = axv_object_gets(v, c);
	return v ? axv_json_str(v) : axg_strdup("(undefined)");
}

static void
test_good(void)
{
	struct axp_polfile_opts opts = { "/srv/space", "/tmp/j1", "/home/u" };
	struct axp_polfile_errors errs;
	struct axv *rego = NULL;
	struct axv *doc = axp_polfile_load_mem("/etc/axgate/p.yaml", good,
	    sizeof(good) - 1, &opts, &errs, &rego);
	char *s;

	ok(doc != NULL, "the issue's example policy loads");
	if (doc == NULL) {
		for (size_t i = 0; i < errs.n; i++)
			tap_diag("%s", errs.msg[i]);
		return;
	}
	s = json_at(doc, "index", "exact", NULL);
	like_str(s,
	    "\"api.github.com\":[{\"policy\":\"github\","
	    "\"ports\":[[443,443]]}]",
	    "host lower-cased, trailing dot dropped, indexed exactly");
	like_str(s,
	    "\"registry.internal\":[{\"policy\":\"github\","
	    "\"ports\":[[8000,8100]]}]",
	    "a port range becomes [low, high]");
	like_str(s, "\"rules\":[{\"method\":\"GET\",\"path\":\"/docs/**\"}]",
	    "rules are kept, method upper-cased");
	free(s);
	s = json_at(doc, "index", "suffix", NULL);
	is_str(s,
	    "{\"githubusercontent.com\":[{\"policy\":\"github\","
	    "\"ports\":[[443,443]]}]}",
	    "a wildcard is indexed by its suffix");
	free(s);
	s = json_at(doc, "index", "cidr", NULL);
	is_str(s,
	    "[{\"cidr\":\"10.20.0.0/16\",\"policy\":\"github\","
	    "\"ports\":[[5432,5432]]}]",
	    "CIDR endpoints are listed");
	free(s);
	s = json_at(doc, "filesystem", "read_write", NULL);
	is_str(s, "[\"/srv/space\"]", "{workspace} is expanded");
	free(s);
	s = json_at(doc, "filesystem", "deny", NULL);
	is_str(s, "[\"/home/u/.ssh\",\"/home/u/.aws\"]", "~ is expanded");
	free(s);
	s = json_at(doc, "inference", "default_provider", NULL);
	is_str(s, "\"local\"", "default provider names a route");
	free(s);
	s = json_at(doc, "process", "env", "pass");
	is_str(s, "[\"LANG\",\"TERM\"]", "env pass list");
	free(s);
	s = axv_json_str(rego);
	is_str(s, "[\"/etc/axgate/extra.rego\"]",
	    "rego modules resolve against the policy's folder");
	free(s);
	axv_unref(rego);
	axv_unref(doc);
}

static void
test_defaults(void)
{
	static const char min[] = "version: 1\nname: minimal\n";
	struct axp_polfile_errors errs;
	struct axv *doc = axp_polfile_load_mem("m.yaml", min, sizeof(min) - 1,
	    NULL, &errs, NULL);
	char *s;

	ok(doc != NULL, "a minimal policy loads");
	s = doc ? json_at(doc, "network", "mode", NULL) : NULL;
	is_str(s, "\"proxy\"", "network mode defaults to proxy");
	free(s);
	s = doc ? json_at(doc, "safety", "credential_scan", NULL) : NULL;
	is_str(s, "\"block\"", "credential scanning defaults to block");
	free(s);
	axv_unref(doc);
}

/* Each bad policy: the text, and what the first error must contain. */
static const struct {
	const char *yaml;
	const char *want;
} bad[] = {
	{ "version: 1\nname: x\nnetwork: {mode: proxy, polices: []}\n",
	    "bad.yaml:3:24: network.polices: unknown key (expected one of: "
	    "mode, policies)" },
	{ "version: 1\nname: x\nfilesystm: {}\n",
	    "bad.yaml:3:1: filesystm: unknown key" },
	{ "version: 2\nname: x\n",
	    "bad.yaml:1:10: version: must be a whole number from 1 to 1" },
	{ "name: x\n", "bad.yaml:1:1: missing required key 'version'" },
	{ "version: 1\n", "bad.yaml:1:1: missing required key 'name'" },
	{ "version: 1\nname: \"bad name\"\n",
	    "bad.yaml:2:7: name: 'bad name': names use letters" },
	{ "version: 1\nname: x\nname: y\n",
	    "bad.yaml:3:1: name: duplicate key" },
	{ "version: 1\nname: x\nnetwork: {mode: open}\n",
	    "bad.yaml:3:17: network.mode: must be one of: proxy, block, "
	    "allow" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: \"*\", port: 443}]}\n",
	    "network.policies[0].endpoints[0].host: '*': a bare '*' would "
	    "allow every host" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: \"*.com\", port: 443}]}\n",
	    "bad.yaml:5:36: network.policies[0].endpoints[0].host: '*.com': a "
	    "wildcard over a top-level domain is too wide" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: \"ex*ample.com\", port: 443}]}\n",
	    "'*' is allowed only as the whole first label" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: my_host.com, port: 443}]}\n",
	    "'_' is not allowed in a host name" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: \"b\xc3\xbc"
	  "cher.de\", port: 443}]}\n",
	    "non-ASCII host name; write its IDNA form" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: a..b.com, port: 443}]}\n",
	    "empty label" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: "
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."
	  "com,"
	  " port: 443}]}\n",
	    "a label is longer than 63 characters" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: 127.1, port: 443}]}\n",
	    "legacy spellings such as 127.1" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: 2130706433, port: 443}]}\n",
	    "not a dotted-quad IPv4 address" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: a.com, port: 70000}]}\n",
	    "port: must be a whole number from 1 to 65535" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: a.com, ports: [\"90-80\"]}]}\n",
	    "ports[0]: a port range is \"LOW-HIGH\"" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: a.com}]}\n",
	    "names exactly one of port or ports" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: a.com, cidr: 10.0.0.0/8, port: "
	  "1}]}\n",
	    "names exactly one of host or cidr" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{cidr: 10.1.2.3/16, port: 1}]}\n",
	    "host bits are set; did you mean 10.1.0.0/16?" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: a.com, port: 443, rules: "
	  "[{allow: {method: GET}}]}]}\n",
	    "HTTP rules cannot be enforced on port 443" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: a.com, port: 443}], binaries: "
	  "[{path: /usr/bin/git}]}\n",
	    "network.policies[0].binaries: per-binary rules need connect-time "
	    "attribution" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: []}\n    - {name: p, endpoints: []}\n",
	    "network.policies[1].name: another policy is already named 'p'" },
	{ "version: 1\nname: x\nfilesystem: {read_only: [usr/lib]}\n",
	    "filesystem.read_only[0]: must be an absolute path" },
	{ "version: 1\nname: x\nfilesystem: {read_only: [\"/a/../etc\"]}\n",
	    "'..' is not allowed in paths" },
	{ "version: 1\nname: x\nfilesystem: {workspace_read_only: yes}\n",
	    "workspace_read_only: must be true or false" },
	{ "version: 1\nname: x\nprocess: {max_processes: -1}\n",
	    "process.max_processes: must be a whole number from 1" },
	{ "version: 1\nname: x\nprocess: {env: {pass: [\"A-B\"]}}\n",
	    "'A-B' is not an environment variable name" },
	{ "version: 1\nname: x\ninference: {default_provider: nope, routes: "
	  "[{name: a, provider: openai, endpoint: \"http://h:1\"}]}\n",
	    "inference.default_provider: 'nope' names no route" },
	{ "version: 1\nname: x\ninference: {routes: [{name: a, provider: "
	  "grok, endpoint: \"http://h\"}]}\n",
	    "provider: must be one of: openai, anthropic" },
	{ "version: 1\nname: x\ninference: {routes: [{name: a, provider: "
	  "openai, endpoint: \"http://user:pw@h\"}]}\n",
	    "endpoint: must be an http:// or https:// URL with a host and no "
	    "credentials" },
	{ "version: 1\nname: x\nsafety: {credential_scan: maybe}\n",
	    "safety.credential_scan: must be one of: block, redact, log, off" },
	{ "version: 1\nname: x\nrego: [extra.txt]\n",
	    "rego[0]: a Rego module's file name ends in .rego" },
	{ "version: 1\nname: x\nnetwork: [1, 2\n",
	    "bad.yaml:4:1: YAML syntax error" },
	{ "version: 1\nname: x\n---\nversion: 1\n",
	    "more than one YAML document" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: a.com, port: 443, rules: "
	  "[{allow: {method: GET}}]}]}\n",
	    "network.policies[0].endpoints[0].rules: HTTP rules cannot be "
	    "enforced" },
	{ "version: 1\nname: x\nnetwork:\n  policies:\n"
	  "    - {name: p, endpoints: [{host: a.com, port: 80}]}\n"
	  "    - {name: q, endpoints: [{host: a.com, port: 80}, {host: b.com, "
	  "port: 80, rules: [{allow: {methd: GET}}]}]}\n",
	    "bad.yaml:6:95: network.policies[1].endpoints[1].rules[0].allow."
	    "methd: unknown key" },
	{ "version: 1\nname: x\nprocess: {env: {set: {FOO: [1]}}}\n",
	    "bad.yaml:3:28: process.env.set.FOO: must be a string" },
	{ "", "empty policy file" },
	{ "- 1\n- 2\n", "bad.yaml:1:1: must be a mapping" },
};

static void
test_bad(void)
{
	for (size_t i = 0; i < AXG_ARRAY_LEN(bad); i++) {
		struct axp_polfile_errors errs;
		struct axv *doc = axp_polfile_load_mem("bad.yaml", bad[i].yaml,
		    strlen(bad[i].yaml), NULL, &errs, NULL);

		ok(doc == NULL && errs.n >= 1, "bad policy %zu is refused", i);
		like_str(errs.n ? errs.msg[0] : "", bad[i].want,
		    "bad policy %zu: the message names the place and why", i);
		axv_unref(doc);
	}
}

static void
test_several_errors_and_aliases(void)
{
	static const char many[] = "version: 3\nname: \"a b\"\nbogus: 1\n";
	struct axp_polfile_errors errs;
	struct axv *doc;
	struct axg_buf bomb = AXG_BUF_INIT;

	doc = axp_polfile_load_mem("m.yaml", many, sizeof(many) - 1, NULL,
	    &errs, NULL);
	ok(doc == NULL, "a file with three problems is refused");
	is_int(errs.n, 3, "all three are reported, not just the first");

	/* A billion-laughs document: aliases multiply the nodes to visit. */
	axg_buf_puts(&bomb,
	    "version: 1\nname: x\nfilesystem:\n"
	    "  a0: &a0 "
	    "[\"/x\",\"/x\",\"/x\",\"/x\",\"/x\",\"/x\",\"/x\",\"/x\",\"/"
	    "x\",\"/x\"]\n");
	for (int i = 1; i < 9; i++)
		axg_buf_printf(&bomb,
		    "  a%d: &a%d [*a%d,*a%d,*a%d,*a%d,*a%d,"
		    "*a%d,*a%d,*a%d,*a%d,*a%d]\n",
		    i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
		    i - 1, i - 1, i - 1);
	doc = axp_polfile_load_mem("bomb.yaml", bomb.data, bomb.len, NULL,
	    &errs, NULL);
	ok(doc == NULL, "an alias bomb is refused, quickly");
	axg_buf_free(&bomb);

	doc = axp_polfile_load("/nonexistent/p.yaml", NULL, &errs, NULL);
	ok(doc == NULL, "a missing file is refused");
	like_str(errs.msg[0], "/nonexistent/p.yaml: No such file",
	    "naming the file");
}

static void
test_host_patterns(void)
{
	static const struct {
		const char *in, *out;
		bool wild;
	} good_hosts[] = {
		{ "Example.COM.", "example.com", false },
		{ "*.Example.com", "example.com", true },
		{ "10.0.0.1", "10.0.0.1", false },
		{ "[2001:DB8::0:1]", "2001:db8::1", false },
		{ "::ffff:127.0.0.1", "::ffff:127.0.0.1", false },
		{ "localhost", "localhost", false },
		{ "xn--bcher-kva.de", "xn--bcher-kva.de", false },
	};
	static const char *const bad_hosts[] = { "", "*", "*.com", "a.*.com",
		"*foo.com", "0x7f.0.0.1", "0177.0.0.1", "127.1", "1.2.3.256",
		"-a.com", "a-.com", "a b.com", "fe80::1%eth0", "a..com",
		".a.com", "*.10.0.0.1" };
	char out[256];
	const char *why;
	bool wild;

	for (size_t i = 0; i < AXG_ARRAY_LEN(good_hosts); i++) {
		int rc = axp_host_pattern(good_hosts[i].in, out, sizeof(out),
		    &wild, &why);

		ok(rc == 0 && strcmp(out, good_hosts[i].out) == 0 &&
			wild == good_hosts[i].wild,
		    "host '%s' -> '%s'%s", good_hosts[i].in, good_hosts[i].out,
		    good_hosts[i].wild ? " (wildcard)" : "");
	}
	for (size_t i = 0; i < AXG_ARRAY_LEN(bad_hosts); i++)
		ok(axp_host_pattern(bad_hosts[i], out, sizeof(out), &wild,
		       &why) == -1,
		    "host '%s' is refused", bad_hosts[i]);
}

/* Every shipped template loads. */
static void
test_templates(void)
{
	static const char *const names[] = { "default", "minimal",
		"coding-agent", "claude-code", "codex", "gemini-cli",
		"opencode" };
	const char *top = getenv("top_srcdir");
	struct axp_polfile_opts opts = { "/ws", "/tmp/t", "/home/u" };

	if (top == NULL)
		top = ".";
	for (size_t i = 0; i < AXG_ARRAY_LEN(names); i++) {
		struct axp_polfile_errors errs;
		char *path =
		    axg_asprintf("%s/contrib/policies/%s.yaml", top, names[i]);
		struct axv *doc = axp_polfile_load(path, &opts, &errs, NULL);

		ok(doc != NULL, "template %s loads", names[i]);
		for (size_t k = 0; doc == NULL && k < errs.n; k++)
			tap_diag("%s", errs.msg[k]);
		axv_unref(doc);
		free(path);
	}
}

int
main(void)
{
	test_templates();
	test_good();
	test_defaults();
	test_bad();
	test_several_errors_and_aliases();
	test_host_patterns();
	return tap_done();
}
