/* Unit tests of server/config.c (axgate.yaml) and server/data-api.c. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/server-int.h"
#include "server/server.h"
#include "tests/tap.h"

static char dir[] = "/tmp/t-server-config.XXXXXX";

static char *
write_file(const char *name, const char *text)
{
	char *path = axg_asprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (f == NULL)
		tap_skip_all("cannot write a temporary file");
	fputs(text, f);
	fclose(f);
	return path;
}

/* Load text as a config; returns the rc, the message in err. */
static int
load(const char *text, struct srv_config *c, char *err, size_t errlen)
{
	char *path = write_file("axgate.yaml", text);
	int rc;

	srv_config_init(c);
	err[0] = '\0';
	rc = srv_config_load(c, path, err, errlen);
	free(path);
	return rc;
}

static void
test_good(void)
{
	struct srv_config c;
	char err[512];
	int rc;

	rc = load("listeners: [127.0.0.1:3128, \"[::1]:8080\"]\n"
		  "policy: p.yaml\n"
		  "audit:\n"
		  "  sinks: [file:/var/log/a.jsonl, stdout]\n"
		  "  overflow: drop\n"
		  "  queue_size: 1024\n"
		  "  fsync: true\n"
		  "limits:\n"
		  "  max_conns: 77\n"
		  "  max_head: 4096\n"
		  "  idle_timeout_ms: 1234\n"
		  "  max_request_body: 1048576\n"
		  "  sni_mode: match-if-set\n"
		  "  tls_ports: [443, 8443]\n"
		  "resolver: 127.0.0.1:5353\n"
		  "admin: 9901\n"
		  "user: axgate\n"
		  "workers: 3\n"
		  "drain_timeout_ms: 500\n",
	    &c, err, sizeof(err));
	ok(rc == 0, "a full config loads");
	if (rc != 0)
		tap_diag("%s", err);
	is_int((int)c.nlisteners, 2, "two listeners");
	is_str(c.listeners[0].text, "127.0.0.1:3128", "an IPv4 listener");
	is_str(c.listeners[1].text, "[::1]:8080", "an IPv6 listener");
	ok(c.listeners[1].addr.ss_family == AF_INET6, "  as IPv6");
	ok(c.policy != NULL && axg_endswith(c.policy, "/p.yaml") &&
		strncmp(c.policy, dir, strlen(dir)) == 0,
	    "a relative policy is read beside the config");
	is_int((int)c.audit.nsinks, 2, "two audit sinks");
	ok(c.audit.overflow == OCSF_OVERFLOW_DROP &&
		c.audit.queue_size == 1024 && c.audit.fsync,
	    "overflow, queue_size and fsync");
	is_int((int)c.limits.max_conns, 77, "limits.max_conns");
	is_int((int)c.limits.http.max_head, 4096, "limits.max_head");
	is_int((int)c.limits.idle_timeout_ms, 1234, "limits.idle_timeout_ms");
	ok(c.limits.max_request_body == 1048576, "limits.max_request_body");
	ok(c.limits.sni_mode == PX_SNI_MATCH_IF_SET, "limits.sni_mode");
	ok(c.limits.tls_ports[0] == 443 && c.limits.tls_ports[1] == 8443 &&
		c.limits.tls_ports[2] == 0,
	    "limits.tls_ports");
	is_str(c.limits.resolver, "127.0.0.1:5353", "resolver");
	ok(c.admin_set, "admin is on");
	is_str(c.admin.text, "127.0.0.1:9901", "a bare admin port is loopback");
	is_str(c.user, "axgate", "user");
	is_int((int)c.workers, 3, "workers");
	is_int((int)c.drain_timeout_ms, 500, "drain_timeout_ms");
	srv_config_clear(&c);
}

static void
test_bad(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "policy: p.yaml\nlistner: [1.2.3.4:1]\n",
		    "axgate.yaml:2:1: listner: unknown key" },
		{ "limits:\n  max_conns: 5\n  bogus: 1\n",
		    "axgate.yaml:3:3: limits.bogus: unknown key" },
		{ "audit:\n  overflow: sometimes\n",
		    "axgate.yaml:2:13: audit.overflow:" },
		{ "limits:\n  max_conns: -1\n",
		    "axgate.yaml:2:14: limits.max_conns: must be a whole "
		    "number" },
		{ "limits:\n  max_conns: \"5\"\n",
		    "limits.max_conns: must be a whole number" },
		{ "listeners: [localhost:80]\n",
		    "listeners: localhost: not a numeric" },
		{ "listeners: [\"::1:80\"]\n", "IPv6 in brackets" },
		{ "listeners: []\n", "at least one address" },
		{ "admin: 1.2.3.4\n", "admin: 1.2.3.4: expected" },
		{ "workers: 65\n",
		    "workers: must be a whole number from 0 to 64" },
		{ "policy: a\npolicy: b\n", "policy: duplicate key" },
		{ "limits:\n  sni_mode: maybe\n",
		    "limits.sni_mode: must be one of" },
		{ "audit:\n  fsync: yes\n",
		    "audit.fsync: must be true or false" },
		{ "- a\n- b\n", "must be a mapping" },
		{ "policy: [\n", "axgate.yaml:2:1:" },
		{ "a: 1\n---\nb: 2\n", "unknown key" },
		{ "", "empty file" },
	};
	struct srv_config c;
	char err[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = load(cases[i].text, &c, err, sizeof(err));

		ok(rc == -1, "refused: %s", cases[i].want);
		like_str(err, cases[i].want, "  message");
		srv_config_clear(&c);
	}
	srv_config_init(&c);
	ok(srv_config_load(&c, "/nonexistent/axgate.yaml", err, sizeof(err)) ==
		-1,
	    "a missing file is an error");
	like_str(err, "/nonexistent/axgate.yaml", "  naming it");
	srv_config_clear(&c);
}

static void
test_addr(void)
{
	struct srv_listen l;
	char err[256];

	ok(srv_parse_addr("0.0.0.0:0", false, &l, err, sizeof(err)) == 0,
	    "0.0.0.0:0");
	ok(srv_parse_addr("[::]:443", false, &l, err, sizeof(err)) == 0 &&
		l.addr.ss_family == AF_INET6,
	    "[::]:443");
	ok(srv_parse_addr("8080", false, &l, err, sizeof(err)) == -1,
	    "a bare port is refused for a listener");
	ok(srv_parse_addr("1.2.3.4:65536", false, &l, err, sizeof(err)) == -1,
	    "a port past 65535 is refused");
	ok(srv_parse_addr("[::1]80", false, &l, err, sizeof(err)) == -1,
	    "[::1]80 is refused");
}

static size_t
blen(const char *body)
{
	return body != NULL ? strlen(body) : 0;
}

static void
test_data_api(void)
{
	const char *pol = "version: 1\nname: t-data\nnetwork:\n  mode: proxy\n"
			  "  policies:\n    - name: gh\n      endpoints:\n"
			  "        - {host: github.com, port: 443}\n";
	struct axp_polfile_errors errs;
	struct axg_buf out = AXG_BUF_INIT;
	struct gate *g;
	int status;

	memset(&errs, 0, sizeof(errs));
	g = gate_load_mem("t.yaml", pol, strlen(pol), NULL, &errs);
	if (!ok(g != NULL, "a policy compiles for the Data API")) {
		tap_diag("%s", errs.n ? errs.msg[0] : "?");
		return;
	}
#define Q(path, body)                                                          \
	(axg_buf_reset(&out),                                                  \
	    srv_data_api(g, path, body, blen(body), &status, &out))
	Q("axgate/policy/name", NULL);
	is_int(status, 200, "GET a document: 200");
	is_str(out.data, "{\"result\":\"t-data\"}\n", "  {\"result\": value}");
	Q("/axgate/connect",
	    "{\"input\":{\"kind\":\"connect\",\"host\":\"github.com\","
	    "\"port\":443}}");
	like_str(out.data, "\"allow\":true", "POST with input: allowed");
	like_str(out.data, "\"rule\":\"gh\"", "  by the rule that matched");
	Q("axgate/connect",
	    "{\"input\":{\"kind\":\"connect\",\"host\":\"evil.example\","
	    "\"port\":443}}");
	like_str(out.data, "\"allow\":false", "POST with input: denied");
	Q("no/such/thing", "{}");
	is_int(status, 200, "an undefined document: 200");
	is_str(out.data, "{}\n", "  answered {}");
	Q("axgate/connect", "  ");
	is_int(status, 200, "an empty body is a query without input");
	Q("axgate/connect", "{\"input\":");
	is_int(status, 400, "malformed JSON: 400");
	like_str(out.data, "{\"code\":\"invalid_parameter\",\"message\":",
	    "  OPA's error shape");
	Q("axgate/connect", "[1]");
	is_int(status, 400, "a body that is not an object: 400");
#undef Q
	axg_buf_free(&out);
	gate_unref(g);
}

int
main(void)
{
	char *p;

	if (mkdtemp(dir) == NULL)
		tap_skip_all("mkdtemp failed");
	test_good();
	test_bad();
	test_addr();
	test_data_api();
	p = axg_asprintf("%s/axgate.yaml", dir);
	unlink(p);
	free(p);
	rmdir(dir);
	return tap_done();
}
