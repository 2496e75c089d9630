/*
 * Every event kind axgate writes, produced through a writer with a file
 * sink, checked line by line and then by the OCSF validator (strict).
 */
#include "config.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit/audit.h"
#include "tests/tap.h"
#include "tests/unit/t-audit-helpers.h"

#define JOB "j-1f3a"

static const struct ocsf_origin origin = {
	.device_hostname = "gw-1",
	.device_ip = "192.0.2.10",
	.pid = 3100,
	.process_name = "axgate",
	.user_name = "ci",
	.user_uid = "1000",
};

static const struct ocsf_policy pol = { "coding-agent", "sha256:9f2c41d0",
	"7" };
static const struct ocsf_policy pol8 = { "coding-agent", "sha256:4be07a93",
	"8" };

struct expect {
	int class_uid;
	int activity_id;
	const char *what;
};

static struct expect expected[64];
static int nexpected;

static void
want(int rc, int class_uid, int activity_id, const char *what)
{
	is_int(rc, OCSF_QUEUED, "emit %s", what);
	expected[nexpected].class_uid = class_uid;
	expected[nexpected].activity_id = activity_id;
	expected[nexpected].what = what;
	nexpected++;
}

static void
emit_all(struct ocsf_writer *w)
{
	struct ocsf_endpoint job = { .ip = "10.77.0.2",
		.port = 40312,
		.uid = JOB };
	struct ocsf_endpoint gh = { .hostname = "api.github.com",
		.ip = "140.82.112.5",
		.port = 443 };
	struct ocsf_net_event n;
	struct ocsf_http_event h;
	struct ocsf_finding_event f;
	struct ocsf_process_event p;
	struct ocsf_api_event a;
	struct ocsf_policy_event pe;
	struct ocsf_app_event ap;
	uint64_t t0 = 1767225600123ULL;

	memset(&ap, 0, sizeof(ap));
	ap.activity = OCSF_APP_START;
	want(ocsf_emit_app(w, &ap), 6002, 3, "serve started (6002 Start)");

	memset(&pe, 0, sizeof(pe));
	pe.change = OCSF_POLICY_LOADED;
	pe.trigger = "startup";
	pe.cur = pol;
	want(ocsf_emit_policy(w, &pe), 3004, 1, "policy loaded (3004 Create)");

	memset(&p, 0, sizeof(p));
	p.activity = OCSF_PROC_LAUNCH;
	p.correlation_uid = JOB;
	p.pid = 3121;
	p.name = "python3";
	p.cmd_line = "python3 agent.py";
	p.created_ms = t0 - 1000;
	p.user_name = "ci";
	p.user_uid = "1000";
	want(ocsf_emit_process(w, &p), 1007, 1, "job launched (1007 Launch)");

	memset(&n, 0, sizeof(n));
	n.activity = OCSF_NET_OPEN;
	n.time_ms = t0;
	n.correlation_uid = JOB;
	n.connection_uid = "c-0001";
	n.src = job;
	n.dst = gh;
	n.policy = pol;
	n.rule = "github";
	n.reason = "api.github.com:443 is in the allowed hosts";
	want(ocsf_emit_net(w, &n), 4001, 1, "CONNECT allowed (4001 Open)");

	n.activity = OCSF_NET_CLOSE;
	n.start_ms = t0;
	n.end_ms = t0 + 60666;
	n.bytes_out = 18234;
	n.bytes_in = 912345;
	want(ocsf_emit_net(w, &n), 4001, 2, "tunnel closed (4001 Close)");

	n.activity = OCSF_NET_RESET;
	n.reason = "SNI evil.example does not match api.github.com";
	want(ocsf_emit_net(w, &n), 4001, 3, "tunnel cut (4001 Reset)");

	memset(&n, 0, sizeof(n));
	n.activity = OCSF_NET_FAIL;
	n.correlation_uid = JOB;
	n.connection_uid = "c-0002";
	n.src = job;
	n.dst.hostname = "down.example.org";
	n.dst.port = 443;
	n.policy = pol;
	n.rule = "down";
	n.reason = "allowed";
	n.status_detail = "connect 203.0.113.9:443: connection refused";
	want(ocsf_emit_net(w, &n), 4001, 4, "upstream failed (4001 Fail)");

	n.activity = OCSF_NET_REFUSE;
	n.connection_uid = "c-0003";
	n.dst.hostname = "paste.example.net";
	n.rule = "default-deny";
	n.reason = "no rule allows paste.example.net:443";
	n.status_detail = NULL;
	want(ocsf_emit_net(w, &n), 4001, 5, "CONNECT denied (4001 Refuse)");

	memset(&h, 0, sizeof(h));
	h.correlation_uid = JOB;
	h.connection_uid = "c-0004";
	h.allowed = false;
	h.method = "POST";
	h.url.url_string = "http://upload.example.org/v1/files?x=1";
	h.url.scheme = "http";
	h.url.hostname = "upload.example.org";
	h.url.port = 80;
	h.url.path = "/v1/files";
	h.url.query = "x=1";
	h.http_version = "HTTP/1.1";
	h.user_agent = "python-requests/2.32.3";
	h.latency_ms = -1;
	h.src = job;
	h.dst.hostname = "upload.example.org";
	h.dst.port = 80;
	h.policy = pol;
	h.rule = "no-uploads";
	h.reason = "uploads are not allowed";
	want(ocsf_emit_http(w, &h), 4002, 6, "plain-HTTP POST denied (4002)");

	h.allowed = true;
	h.method = "GET";
	h.status_code = 200;
	h.content_type = "text/html";
	h.latency_ms = 42;
	h.rule = "docs";
	want(ocsf_emit_http(w, &h), 4002, 3, "plain-HTTP GET allowed (4002)");

	h.method = "PROPFIND";
	want(ocsf_emit_http(w, &h), 4002, 99, "unusual method (4002 Other)");

	memset(&h, 0, sizeof(h));
	h.correlation_uid = JOB;
	h.connection_uid = "c-0005";
	h.allowed = true;
	h.method = "POST";
	h.url.url_string = "http://inference.local/v1/chat/completions";
	h.url.scheme = "http";
	h.url.hostname = "inference.local";
	h.url.path = "/v1/chat/completions";
	h.http_version = "HTTP/1.1";
	h.status_code = 200;
	h.content_type = "text/event-stream";
	h.latency_ms = 2140;
	h.src = job;
	h.dst.hostname = "api.openai.com";
	h.dst.port = 443;
	h.policy = pol;
	h.rule = "inference-openai";
	h.reason = "route openai";
	h.route = "openai";
	h.backend_method = "POST";
	h.backend_url = "https://api.openai.com/v1/chat/completions";
	h.bytes_out = 5120;
	h.bytes_in = 48213;
	want(ocsf_emit_http(w, &h), 4002, 6, "inference request (4002 proxy)");

	memset(&a, 0, sizeof(a));
	a.correlation_uid = JOB;
	a.connection_uid = "c-0005";
	a.operation = "chat.completions";
	a.provider = "openai";
	a.model = "gpt-4.1-mini";
	a.prompt_tokens = 812;
	a.completion_tokens = 1450;
	a.total_tokens = -1;
	a.status_code = 200;
	a.latency_ms = 2140;
	a.job_pid = 3121;
	a.job_process_name = "python3";
	a.src = job;
	a.dst.hostname = "api.openai.com";
	a.dst.port = 443;
	want(ocsf_emit_api(w, &a), 6003, 1, "inference usage (6003)");

	memset(&f, 0, sizeof(f));
	f.correlation_uid = JOB;
	f.connection_uid = "c-0004";
	f.action = OCSF_LEAK_BLOCKED;
	f.rule_id = "aws-access-key-id";
	f.rule_title = "AWS access key ID";
	f.where = "body";
	f.offset = 117;
	f.preview = "AKIAIOSFODNN7EXAMPLE";
	f.confidence = 3;
	f.method = "POST";
	f.url = "http://upload.example.org/v1/files";
	f.src = job;
	f.dst.hostname = "upload.example.org";
	f.dst.port = 80;
	f.policy = pol;
	want(ocsf_emit_finding(w, &f), 2004, 1, "leak blocked (2004)");
	f.action = OCSF_LEAK_REDACTED;
	want(ocsf_emit_finding(w, &f), 2004, 1, "leak redacted (2004)");
	f.action = OCSF_LEAK_LOGGED;
	f.confidence = 0;
	f.method = "BREW";
	want(ocsf_emit_finding(w, &f), 2004, 1, "leak logged (2004)");

	memset(&pe, 0, sizeof(pe));
	pe.change = OCSF_POLICY_RELOADED;
	pe.trigger = "SIGHUP";
	pe.old = pol;
	pe.cur = pol8;
	want(ocsf_emit_policy(w, &pe), 3004, 3, "policy reloaded (3004)");
	pe.change = OCSF_POLICY_RELOAD_FAILED;
	pe.status_detail = "policy.yaml:12:3: unknown key 'hots'";
	want(ocsf_emit_policy(w, &pe), 3004, 3, "policy reload failed (3004)");

	memset(&p, 0, sizeof(p));
	p.activity = OCSF_PROC_TERMINATE;
	p.correlation_uid = JOB;
	p.pid = 3121;
	p.name = "python3";
	p.created_ms = t0 - 1000;
	p.terminated_ms = t0 + 120000;
	p.exit_code = 0;
	want(ocsf_emit_process(w, &p), 1007, 2, "job exited 0 (1007)");
	p.exit_code = 3;
	want(ocsf_emit_process(w, &p), 1007, 2, "job exited 3 (1007)");
	p.signal = 9;
	want(ocsf_emit_process(w, &p), 1007, 2, "job killed (1007)");
	memset(&p, 0, sizeof(p));
	p.activity = OCSF_PROC_LAUNCH;
	p.correlation_uid = "j-2b4c";
	p.failed = true;
	p.status_detail = "Landlock is not available (kernel without ABI 1)";
	want(ocsf_emit_process(w, &p), 1007, 1, "launch refused (1007)");

	memset(&ap, 0, sizeof(ap));
	ap.activity = OCSF_APP_STOP;
	want(ocsf_emit_app(w, &ap), 6002, 4, "serve stopped (6002 Stop)");
}

static void
check_invalid(struct ocsf_writer *w)
{
	struct ocsf_net_event n;
	struct ocsf_api_event a;
	struct ocsf_stats st;
	struct axg_buf b;
	char err[256];

	memset(&n, 0, sizeof(n));
	n.activity = 7;
	n.dst.hostname = "x";
	is_int(ocsf_emit_net(w, &n), OCSF_ERROR,
	    "an unknown activity is refused");
	axg_buf_init(&b, 0);
	ok(ocsf_format_net(&b, &origin, &n, err, sizeof(err)) == -1,
	    "format says why");
	like_str(err, "activity 7", "  naming the field");
	n.activity = OCSF_NET_OPEN;
	n.dst.hostname = NULL;
	ok(ocsf_format_net(&b, &origin, &n, err, sizeof(err)) == -1,
	    "a network event needs an endpoint");
	memset(&a, 0, sizeof(a));
	a.src.uid = JOB;
	ok(ocsf_format_api(&b, &origin, &a, err, sizeof(err)) == -1,
	    "an API event needs operation, provider and model");
	like_str(err, "operation", "  saying so");
	is_int(b.len, 0, "failed formats write nothing");
	axg_buf_free(&b);
	ocsf_writer_stats(w, &st);
	is_int(st.invalid, 1, "the refused event is counted as invalid");
}

int
main(void)
{
	char dir[] = "/tmp/t-audit-events.XXXXXX";
	char path[256], err[256], out[8192];
	struct ocsf_config c;
	struct ocsf_writer *w;
	json_error_t jerr;
	json_t *uids = json_object();
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, good = 0;

	if (mkdtemp(dir) == NULL)
		tap_skip_all("cannot create a temporary directory");
	snprintf(path, sizeof(path), "%s/audit.jsonl", dir);
	ocsf_config_init(&c);
	snprintf(out, sizeof(out), "file:%s", path);
	ok(ocsf_config_add_sink(&c, out, err, sizeof(err)) == 0, "file sink");
	w = ocsf_writer_new(&c, &origin, err, sizeof(err));
	ok(w != NULL, "writer starts");
	if (w == NULL)
		return tap_done();
	emit_all(w);
	check_invalid(w);
	ok(ocsf_writer_flush(w, 10000) == 0, "flush");
	ocsf_writer_free(w);

	fp = fopen(path, "r");
	ok(fp != NULL, "the audit file exists");
	while (fp != NULL && getline(&line, &cap, fp) > 0) {
		json_t *j = json_loads(line, 0, &jerr);
		json_t *meta = json_object_get(j, "metadata");
		const char *uid =
		    json_string_value(json_object_get(meta, "uid"));
		struct expect *e = &expected[lineno];
		bool fine = j != NULL && lineno < nexpected &&
		    json_integer_value(json_object_get(j, "class_uid")) ==
			e->class_uid &&
		    json_integer_value(json_object_get(j, "activity_id")) ==
			e->activity_id &&
		    strcmp(json_string_value(
			       json_object_get(json_object_get(meta, "product"),
				   "name"))
			    ?: "",
			"axgate") == 0 &&
		    uid != NULL && json_object_get(uids, uid) == NULL;

		if (uid != NULL)
			json_object_set_new(uids, uid, json_true());
		if (fine && e->class_uid != 6002 && e->class_uid != 3004) {
			const char *corr = json_string_value(
			    json_object_get(meta, "correlation_uid"));

			fine = corr != NULL &&
			    (strcmp(corr, JOB) == 0 ||
				strcmp(corr, "j-2b4c") == 0);
		}
		if (fine && lineno < nexpected &&
		    (e->class_uid == 4001 || e->class_uid == 4002))
			fine = json_object_get(j, "firewall_rule") != NULL &&
			    json_object_get(j, "status_detail") != NULL;
		ok(fine, "line %d: %s", lineno + 1,
		    lineno < nexpected ? expected[lineno].what : "unexpected");
		if (!fine)
			tap_diag("%s", line);
		good += fine;
		json_decref(j);
		lineno++;
	}
	free(line);
	if (fp != NULL)
		fclose(fp);
	is_int(lineno, nexpected, "one line per event");
	json_decref(uids);

	{
		int rc = run_validator(path, out, sizeof(out));

		if (rc == -2)
			tap_skip("ocsf-validate",
			    "AXG_SHARED_DIR has no ocsf/ocsf-validate");
		else if (!ok(rc == 0,
			     "ocsf-validate (strict) passes all %d events",
			     nexpected))
			tap_diag("%s", out);
		else
			tap_diag("ocsf-validate: %s", out);
	}
	unlink(path);
	rmdir(dir);
	return tap_done();
}
