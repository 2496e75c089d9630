/*
 * events-net.c: the events of the proxy: Network Activity (4001), HTTP
 * Activity (4002) and Detection Finding (2004).
 */
#include "config.h"

#include <string.h>

#include "audit/audit-int.h"

static const char *const prof_sc_host[] = { "security_control", "host", NULL };
static const char *const prof_sc_proxy_host[] = { "security_control",
	"network_proxy", "host", NULL };
static const char *const prof_sc[] = { "security_control", NULL };

static bool
set(const char *s)
{
	return s != NULL && s[0] != '\0';
}

/* "host:port" of an endpoint, into a message being built. */
static void
msg_hostport(struct jw *w, const struct ocsf_endpoint *e)
{
	jw_sadds(w, set(e->hostname) ? e->hostname : set(e->ip) ? e->ip : "?");
	if (e->port != 0) {
		jw_sadds(w, ":");
		jw_saddu(w, e->port);
	}
}

/* The rule and the reason: firewall_rule and unmapped.axgate.reason. */
static void
put_rule(struct jw *w, const char *rule)
{
	if (!set(rule))
		return;
	jw_obj(w, "firewall_rule");
	jw_str(w, "name", rule);
	jw_str(w, "uid", rule);
	jw_end(w);
}

/* ---- 4001 ---- */

static const struct {
	const char *name;
	const char *type_name;
	int severity;
	int status;
	bool allowed;
} net_acts[] = {
	[OCSF_NET_OPEN] = { "Open", "Network Activity: Open", 1, 1, true },
	[OCSF_NET_CLOSE] = { "Close", "Network Activity: Close", 1, 1, true },
	[OCSF_NET_RESET] = { "Reset", "Network Activity: Reset", 2, 2, false },
	[OCSF_NET_FAIL] = { "Fail", "Network Activity: Fail", 1, 2, true },
	[OCSF_NET_REFUSE] = { "Refuse", "Network Activity: Refuse", 2, 2,
	    false },
};

int
ocsf__net(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_net_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen)
{
	struct jw w = { .b = out };
	struct ocsf_head h;
	size_t start = out->len;
	int a = (int)ev->activity;
	const char *detail;

	if (a < OCSF_NET_OPEN || a > OCSF_NET_REFUSE)
		return axg_seterr(err, errlen,
		    "network event: activity %d "
		    "is not Open, Close, Reset, Fail or Refuse",
		    a);
	if (ocsf_endpoint_empty(&ev->src) && ocsf_endpoint_empty(&ev->dst))
		return axg_seterr(err, errlen,
		    "network event: neither src nor dst endpoint is set");
	memset(&h, 0, sizeof(h));
	h.class_uid = 4001;
	h.class_name = "Network Activity";
	h.category_uid = 4;
	h.category_name = "Network Activity";
	h.activity_id = a;
	h.activity_name = net_acts[a].name;
	h.type_name = net_acts[a].type_name;
	h.severity_id = net_acts[a].severity;
	h.time_ms = ev->time_ms;
	h.status_id = net_acts[a].status;
	h.status = h.status_id == 1 ? "Success" : "Failure";
	h.correlation_uid = ev->correlation_uid;
	h.profiles = prof_sc_host;
	ocsf_event_begin(&w, &h, m);
	ocsf_put_decision(&w, net_acts[a].allowed);

	jw_sbegin(&w, "message");
	if (ev->message != NULL) {
		jw_sadds(&w, ev->message);
	} else if (a == OCSF_NET_OPEN || a == OCSF_NET_REFUSE ||
	    a == OCSF_NET_FAIL) {
		jw_sadds(&w, "CONNECT ");
		msg_hostport(&w, &ev->dst);
		jw_sadds(&w,
		    a == OCSF_NET_OPEN	       ? " allowed"
			: a == OCSF_NET_REFUSE ? " denied"
					       : " failed");
		if (a != OCSF_NET_FAIL && set(ev->rule)) {
			jw_sadds(&w, " by rule ");
			jw_sadds(&w, ev->rule);
		}
	} else {
		jw_sadds(&w, "tunnel to ");
		msg_hostport(&w, &ev->dst);
		jw_sadds(&w,
		    a == OCSF_NET_CLOSE ? " closed" : " reset by axgate");
		jw_sadds(&w, " (");
		jw_saddu(&w, ev->bytes_out);
		jw_sadds(&w, " bytes out, ");
		jw_saddu(&w, ev->bytes_in);
		jw_sadds(&w, " bytes in)");
	}
	if (ev->message == NULL && a != OCSF_NET_OPEN && a != OCSF_NET_CLOSE) {
		detail =
		    set(ev->status_detail) ? ev->status_detail : ev->reason;
		if (set(detail)) {
			jw_sadds(&w, ": ");
			jw_sadds(&w, detail);
		}
	}
	jw_send(&w);
	detail = set(ev->status_detail) ? ev->status_detail : ev->reason;
	if (set(detail))
		jw_str(&w, "status_detail", detail);

	if (a == OCSF_NET_CLOSE || a == OCSF_NET_RESET) {
		if (ev->start_ms != 0)
			jw_u64(&w, "start_time", ev->start_ms);
		if (ev->end_ms != 0)
			jw_u64(&w, "end_time", ev->end_ms);
		if (ev->start_ms != 0 && ev->end_ms >= ev->start_ms)
			jw_u64(&w, "duration", ev->end_ms - ev->start_ms);
		jw_obj(&w, "traffic");
		jw_u64(&w, "bytes_out", ev->bytes_out);
		jw_u64(&w, "bytes_in", ev->bytes_in);
		jw_u64(&w, "bytes", ev->bytes_out + ev->bytes_in);
		jw_end(&w);
	}
	ocsf_put_endpoint(&w, "src_endpoint", &ev->src);
	ocsf_put_endpoint(&w, "dst_endpoint", &ev->dst);
	ocsf_put_conn_info(&w, ev->connection_uid);
	ocsf_put_device(&w, o);
	ocsf_put_policy(&w, "policy", &ev->policy);
	put_rule(&w, ev->rule);
	if (set(ev->reason)) {
		JW_LIT(&w, ",\"unmapped\":{\"axgate\":{");
		jw_str(&w, "reason", ev->reason);
		JW_LIT(&w, "}}");
	}
	ocsf_event_end(&w, start);
	return 0;
}

int
ocsf_format_net(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_net_event *ev, char *err, size_t errlen)
{
	return ocsf__net(out, o, ev, NULL, err, errlen);
}

/* ---- 4002 ---- */

static const struct {
	const char *method;
	const char *caption;
} http_methods[] = {
	{ "CONNECT", "Connect" }, /* 1 */
	{ "DELETE", "Delete" },	  /* 2 */
	{ "GET", "Get" },	  /* 3 */
	{ "HEAD", "Head" },	  /* 4 */
	{ "OPTIONS", "Options" }, /* 5 */
	{ "POST", "Post" },	  /* 6 */
	{ "PUT", "Put" },	  /* 7 */
	{ "TRACE", "Trace" },	  /* 8 */
	{ "PATCH", "Patch" },	  /* 9 */
};

/* 1..9 for a method OCSF knows (exact, upper case), else 99. */
static int
http_method_id(const char *m)
{
	if (m == NULL)
		return 99;
	for (size_t i = 0; i < AXG_ARRAY_LEN(http_methods); i++)
		if (strcmp(m, http_methods[i].method) == 0)
			return (int)i + 1;
	return 99;
}

static const char *const http_type_names[] = {
	"HTTP Activity: Unknown",
	"HTTP Activity: Connect",
	"HTTP Activity: Delete",
	"HTTP Activity: Get",
	"HTTP Activity: Head",
	"HTTP Activity: Options",
	"HTTP Activity: Post",
	"HTTP Activity: Put",
	"HTTP Activity: Trace",
	"HTTP Activity: Patch",
};

int
ocsf__http(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_http_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen)
{
	struct jw w = { .b = out };
	struct ocsf_head h;
	size_t start = out->len;
	int mid = http_method_id(ev->method);
	bool inference = set(ev->route) || set(ev->backend_url) ||
	    ev->bytes_in != 0 || ev->bytes_out != 0;
	int code = ev->status_code ? ev->status_code : ev->allowed ? 200 : 403;
	const char *detail;

	if (code < 100 || code > 999)
		return axg_seterr(err, errlen,
		    "http event: status code %d out of range", code);
	memset(&h, 0, sizeof(h));
	h.class_uid = 4002;
	h.class_name = "HTTP Activity";
	h.category_uid = 4;
	h.category_name = "Network Activity";
	h.activity_id = mid;
	/* 99 Other takes any caption: the method itself */
	h.activity_name = mid == 99 ? (set(ev->method) ? ev->method : "Other")
				    : http_methods[mid - 1].caption;
	h.type_name = mid == 99 ? "HTTP Activity: Other" : http_type_names[mid];
	h.severity_id = ev->allowed ? 1 : 2;
	h.time_ms = ev->time_ms;
	h.status_id = ev->allowed ? 1 : 2;
	h.status = ev->allowed ? "Success" : "Failure";
	h.correlation_uid = ev->correlation_uid;
	h.profiles = inference ? prof_sc_proxy_host : prof_sc_host;
	ocsf_event_begin(&w, &h, m);
	ocsf_put_decision(&w, ev->allowed);

	jw_sbegin(&w, "message");
	if (ev->message != NULL) {
		jw_sadds(&w, ev->message);
	} else if (set(ev->route)) {
		jw_sadds(&w, "inference route ");
		jw_sadds(&w, ev->route);
		jw_sadds(&w, ": ");
		jw_sadds(&w, set(ev->method) ? ev->method : "?");
		jw_sadds(&w, " ");
		jw_sadds(&w,
		    set(ev->url.path) ? ev->url.path : ev->url.url_string);
		jw_sadds(&w, " -> ");
		jw_saddu(&w, (uint64_t)code);
	} else {
		jw_sadds(&w, set(ev->method) ? ev->method : "?");
		jw_sadds(&w, " ");
		jw_sadds(&w,
		    set(ev->url.url_string) ? ev->url.url_string
					    : ev->url.path);
		jw_sadds(&w, ev->allowed ? " allowed" : " denied");
		if (set(ev->rule)) {
			jw_sadds(&w, " by rule ");
			jw_sadds(&w, ev->rule);
		}
	}
	jw_send(&w);
	detail = set(ev->status_detail) ? ev->status_detail : ev->reason;
	if (set(detail))
		jw_str(&w, "status_detail", detail);

	ocsf_put_endpoint(&w, "src_endpoint", &ev->src);
	ocsf_put_endpoint(&w, "dst_endpoint", &ev->dst);
	ocsf_put_conn_info(&w, ev->connection_uid);
	jw_obj(&w, "http_request");
	if (mid != 99)
		jw_str(&w, "http_method", ev->method);
	if (set(ev->http_version))
		jw_str(&w, "version", ev->http_version);
	if (set(ev->user_agent))
		jw_str(&w, "user_agent", ev->user_agent);
	ocsf_put_url(&w, "url", &ev->url);
	jw_end(&w);
	jw_obj(&w, "http_response");
	jw_i64(&w, "code", code);
	if (set(ev->content_type))
		jw_str(&w, "content_type", ev->content_type);
	if (ev->latency_ms >= 0)
		jw_i64(&w, "latency",
		    ev->latency_ms > INT32_MAX ? INT32_MAX : ev->latency_ms);
	jw_end(&w);
	if (inference) {
		if (set(ev->backend_url)) {
			jw_obj(&w, "proxy_http_request");
			if (http_method_id(ev->backend_method) != 99)
				jw_str(&w, "http_method", ev->backend_method);
			jw_obj(&w, "url");
			jw_str(&w, "url_string", ev->backend_url);
			jw_end(&w);
			jw_end(&w);
		}
		jw_obj(&w, "proxy_traffic");
		jw_u64(&w, "bytes_out", ev->bytes_out);
		jw_u64(&w, "bytes_in", ev->bytes_in);
		jw_end(&w);
	}
	ocsf_put_device(&w, o);
	ocsf_put_policy(&w, "policy", &ev->policy);
	put_rule(&w, ev->rule);
	if (set(ev->reason) || mid == 99 || set(ev->route)) {
		JW_LIT(&w, ",\"unmapped\":{\"axgate\":{");
		if (set(ev->reason))
			jw_str(&w, "reason", ev->reason);
		if (mid == 99 && ev->method != NULL)
			jw_str(&w, "http_method", ev->method);
		if (set(ev->route))
			jw_str(&w, "inference_route", ev->route);
		JW_LIT(&w, "}}");
	}
	ocsf_event_end(&w, start);
	return 0;
}

int
ocsf_format_http(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_http_event *ev, char *err, size_t errlen)
{
	return ocsf__http(out, o, ev, NULL, err, errlen);
}

/* ---- 2004 ---- */

int
ocsf__finding(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_finding_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen)
{
	static const char *const conf_names[] = { "Unknown", "Low", "Medium",
		"High" };
	struct jw w = { .b = out };
	struct ocsf_head h;
	size_t start = out->len;
	char uuid[37], masked[48];
	const char *title = set(ev->rule_title) ? ev->rule_title : ev->rule_id;
	const char *rule = set(ev->rule_id) ? ev->rule_id : ev->rule_title;
	const char *host;
	uint64_t t = ev->time_ms ? ev->time_ms : axg_now_ms();

	if (ev->action < OCSF_LEAK_BLOCKED || ev->action > OCSF_LEAK_LOGGED)
		return axg_seterr(err, errlen,
		    "finding event: action %d is not blocked, redacted or "
		    "logged",
		    (int)ev->action);
	if (!set(rule))
		return axg_seterr(err, errlen,
		    "finding event: rule_id or rule_title is required");
	if (ev->confidence < 0 || ev->confidence > 3)
		return axg_seterr(err, errlen,
		    "finding event: confidence %d is not 0..3", ev->confidence);
	memset(&h, 0, sizeof(h));
	h.class_uid = 2004;
	h.class_name = "Detection Finding";
	h.category_uid = 2;
	h.category_name = "Findings";
	h.activity_id = 1;
	h.activity_name = "Create";
	h.type_name = "Detection Finding: Create";
	h.severity_id = ev->action == OCSF_LEAK_LOGGED ? 5 : 4;
	h.time_ms = t;
	h.status_id = 1;
	h.status = "New";
	h.correlation_uid = ev->correlation_uid;
	h.profiles = prof_sc;
	ocsf_event_begin(&w, &h, m);
	switch (ev->action) {
	case OCSF_LEAK_BLOCKED:
		JW_LIT(&w,
		    ",\"action_id\":2,\"action\":\"Denied\","
		    "\"disposition_id\":2,\"disposition\":\"Blocked\"");
		break;
	case OCSF_LEAK_REDACTED:
		JW_LIT(&w,
		    ",\"action_id\":4,\"action\":\"Modified\","
		    "\"disposition_id\":99,\"disposition\":\"Redacted\"");
		break;
	case OCSF_LEAK_LOGGED:
		JW_LIT(&w,
		    ",\"action_id\":3,\"action\":\"Observed\","
		    "\"disposition_id\":15,\"disposition\":\"Detected\"");
		break;
	}
	if (ev->confidence > 0) {
		jw_i64(&w, "confidence_id", ev->confidence);
		jw_str(&w, "confidence", conf_names[ev->confidence]);
	}
	JW_LIT(&w, ",\"is_alert\":true");
	host = set(ev->dst.hostname) ? ev->dst.hostname : ev->dst.ip;
	jw_sbegin(&w, "message");
	if (ev->message != NULL) {
		jw_sadds(&w, ev->message);
	} else {
		jw_sadds(&w, title);
		jw_sadds(&w, " in ");
		jw_sadds(&w, set(ev->where) ? ev->where : "request");
		if (set(host)) {
			jw_sadds(&w, " to ");
			jw_sadds(&w, host);
		}
		jw_sadds(&w,
		    ev->action == OCSF_LEAK_BLOCKED ? "; request blocked"
			: ev->action == OCSF_LEAK_REDACTED
			? "; secret redacted"
			: "; logged only (monitor mode)");
	}
	jw_send(&w);

	ocsf_uuid4(uuid);
	jw_obj(&w, "finding_info");
	jw_sbegin(&w, "uid");
	jw_sadds(&w, "leak-");
	jw_sadds(&w, uuid);
	jw_send(&w);
	jw_sbegin(&w, "title");
	jw_sadds(&w, "Credential leak: ");
	jw_sadds(&w, title);
	jw_send(&w);
	JW_LIT(&w, ",\"types\":[\"Credential Leak\"]");
	jw_u64(&w, "created_time", t);
	JW_LIT(&w,
	    ",\"analytic\":{\"type_id\":8,"
	    "\"type\":\"Regular Expressions\"");
	jw_str(&w, "name", rule);
	jw_str(&w, "uid", rule);
	jw_end(&w);
	jw_end(&w);

	jw_arr(&w, "evidences");
	jw_obj(&w, NULL);
	ocsf_put_endpoint(&w, "src_endpoint", &ev->src);
	ocsf_put_endpoint(&w, "dst_endpoint", &ev->dst);
	if (set(ev->connection_uid))
		ocsf_put_conn_info(&w, ev->connection_uid);
	if (set(ev->url)) {
		jw_obj(&w, "url");
		jw_str(&w, "url_string", ev->url);
		jw_end(&w);
	}
	if (http_method_id(ev->method) != 99) {
		jw_obj(&w, "http_request");
		jw_str(&w, "http_method", ev->method);
		jw_end(&w);
	}
	jw_obj(&w, "data");
	jw_str(&w, "where", set(ev->where) ? ev->where : "request");
	jw_u64(&w, "offset", ev->offset);
	ocsf_mask_preview(masked, sizeof(masked), ev->preview);
	if (masked[0] != '\0')
		jw_str(&w, "match", masked);
	jw_end(&w);
	jw_end(&w);
	jw_arr_end(&w);
	ocsf_put_policy(&w, "policy", &ev->policy);
	ocsf_event_end(&w, start);
	return 0;
}

int
ocsf_format_finding(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_finding_event *ev, char *err, size_t errlen)
{
	return ocsf__finding(out, o, ev, NULL, err, errlen);
}
