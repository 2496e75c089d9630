/*
 * events-host.c: the events of the launcher and the daemon: Process
 * Activity (1007), API Activity (6003), Entity Management (3004) and
 * Application Lifecycle (6002), plus the writer's own drop report.
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "audit/audit-int.h"

static const char *const prof_none[] = { NULL };
static const char *const prof_host[] = { "host", NULL };
static const char *const prof_ai_host[] = { "ai_operation", "host", NULL };

static bool
set(const char *s)
{
	return s != NULL && s[0] != '\0';
}

static int64_t
clamp32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
}

/* ---- 1007 ---- */

int
ocsf__process(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_process_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen)
{
	struct jw w = { .b = out };
	struct ocsf_head h;
	size_t start = out->len;
	bool launch = ev->activity == OCSF_PROC_LAUNCH;
	bool ok;
	const char *job = ev->correlation_uid;

	if (ev->activity != OCSF_PROC_LAUNCH &&
	    ev->activity != OCSF_PROC_TERMINATE)
		return axg_seterr(err, errlen,
		    "process event: activity %d is not Launch or Terminate",
		    (int)ev->activity);
	if (ev->pid <= 0 && !set(job))
		return axg_seterr(err, errlen,
		    "process event: needs the job's pid or its id");
	if (ev->signal < 0 || ev->signal > 127)
		return axg_seterr(err, errlen,
		    "process event: signal %d out of range", ev->signal);
	ok = launch ? !ev->failed : (ev->signal == 0 && ev->exit_code == 0);
	memset(&h, 0, sizeof(h));
	h.class_uid = 1007;
	h.class_name = "Process Activity";
	h.category_uid = 1;
	h.category_name = "System Activity";
	h.activity_id = (int)ev->activity;
	h.activity_name = launch ? "Launch" : "Terminate";
	h.type_name =
	    launch ? "Process Activity: Launch" : "Process Activity: Terminate";
	h.severity_id = launch && ev->failed ? 3 : 1;
	h.time_ms = ev->time_ms;
	h.status_id = ok ? 1 : 2;
	h.status = ok ? "Success" : "Failure";
	h.correlation_uid = job;
	h.profiles = prof_none;
	ocsf_event_begin(&w, &h, m);
	if (launch)
		JW_LIT(&w, ",\"launch_type_id\":1,\"launch_type\":\"Spawn\"");
	else
		jw_i64(&w, "exit_code",
		    ev->signal ? 128 + ev->signal : clamp32(ev->exit_code));

	jw_sbegin(&w, "message");
	if (ev->message != NULL) {
		jw_sadds(&w, ev->message);
	} else {
		jw_sadds(&w, "job ");
		jw_sadds(&w, set(job) ? job : "?");
		if (launch && ev->failed) {
			jw_sadds(&w, " not launched");
			if (set(ev->status_detail)) {
				jw_sadds(&w, ": ");
				jw_sadds(&w, ev->status_detail);
			}
		} else if (launch) {
			jw_sadds(&w, " started");
			if (set(ev->cmd_line) || set(ev->name)) {
				jw_sadds(&w, ": ");
				jw_sadds(&w,
				    set(ev->cmd_line) ? ev->cmd_line
						      : ev->name);
			}
		} else if (ev->signal) {
			jw_sadds(&w, " killed by signal ");
			jw_saddu(&w, (uint64_t)ev->signal);
			if (sigabbrev_np(ev->signal) != NULL) {
				jw_sadds(&w, " (SIG");
				jw_sadds(&w, sigabbrev_np(ev->signal));
				jw_sadds(&w, ")");
			}
		} else {
			char tmp[24];

			jw_sadds(&w, " exited with status ");
			if (ev->exit_code < 0)
				jw_sadds(&w, "-");
			jw_sadd(&w, tmp,
			    jw_fmt_u64(tmp,
				(uint64_t)(ev->exit_code < 0
					? -(int64_t)ev->exit_code
					: ev->exit_code)));
		}
	}
	jw_send(&w);
	if (set(ev->status_detail)) {
		jw_str(&w, "status_detail", ev->status_detail);
	} else if (!launch && ev->signal) {
		jw_sbegin(&w, "status_detail");
		jw_sadds(&w, "killed by signal ");
		jw_saddu(&w, (uint64_t)ev->signal);
		jw_send(&w);
	}

	ocsf_put_actor_process(&w, o, true);
	ocsf_put_device(&w, o);
	jw_obj(&w, "process");
	if (ev->pid > 0)
		jw_i64(&w, "pid", ev->pid);
	if (set(job))
		jw_str(&w, "uid", job);
	if (set(ev->name))
		jw_str(&w, "name", ev->name);
	if (set(ev->cmd_line))
		jw_str(&w, "cmd_line", ev->cmd_line);
	JW_LIT(&w, ",\"sandbox\":\"axgate\"");
	if (ev->created_ms != 0)
		jw_u64(&w, "created_time", ev->created_ms);
	if (ev->terminated_ms != 0)
		jw_u64(&w, "terminated_time", ev->terminated_ms);
	if (set(ev->user_name) || set(ev->user_uid)) {
		jw_obj(&w, "user");
		if (set(ev->user_name))
			jw_str(&w, "name", ev->user_name);
		if (set(ev->user_uid))
			jw_str(&w, "uid", ev->user_uid);
		jw_end(&w);
	}
	jw_end(&w);
	if (!launch && ev->signal) {
		JW_LIT(&w, ",\"unmapped\":{\"axgate\":{");
		jw_i64(&w, "signal", ev->signal);
		JW_LIT(&w, "}}");
	}
	ocsf_event_end(&w, start);
	return 0;
}

int
ocsf_format_process(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_process_event *ev, char *err, size_t errlen)
{
	return ocsf__process(out, o, ev, NULL, err, errlen);
}

/* ---- 6003 ---- */

int
ocsf__api(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_api_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen)
{
	struct jw w = { .b = out };
	struct ocsf_head h;
	size_t start = out->len;
	const char *job = set(ev->src.uid) ? ev->src.uid : ev->correlation_uid;
	int64_t total = ev->total_tokens;

	if (!set(ev->operation) || !set(ev->provider) || !set(ev->model))
		return axg_seterr(err, errlen,
		    "api event: operation, provider and model are required");
	if (ocsf_endpoint_empty(&ev->src))
		return axg_seterr(err, errlen,
		    "api event: the src endpoint (the job) is required");
	if (total < 0 && ev->prompt_tokens >= 0 && ev->completion_tokens >= 0)
		total = ev->prompt_tokens + ev->completion_tokens;
	memset(&h, 0, sizeof(h));
	h.class_uid = 6003;
	h.class_name = "API Activity";
	h.category_uid = 6;
	h.category_name = "Application Activity";
	h.activity_id = 1;
	h.activity_name = "Create";
	h.type_name = "API Activity: Create";
	h.severity_id = 1;
	h.time_ms = ev->time_ms;
	h.status_id = ev->failed ? 2 : 1;
	h.status = ev->failed ? "Failure" : "Success";
	h.correlation_uid = ev->correlation_uid;
	h.profiles = prof_ai_host;
	ocsf_event_begin(&w, &h, m);

	jw_sbegin(&w, "message");
	if (ev->message != NULL) {
		jw_sadds(&w, ev->message);
	} else {
		jw_sadds(&w, ev->model);
		jw_sadds(&w, ": ");
		jw_saddu(&w,
		    ev->prompt_tokens > 0 ? (uint64_t)ev->prompt_tokens : 0);
		jw_sadds(&w, " prompt + ");
		jw_saddu(&w,
		    ev->completion_tokens > 0 ? (uint64_t)ev->completion_tokens
					      : 0);
		jw_sadds(&w, " completion tokens");
		if (set(job)) {
			jw_sadds(&w, " charged to job ");
			jw_sadds(&w, job);
		}
	}
	jw_send(&w);
	if (set(ev->status_detail))
		jw_str(&w, "status_detail", ev->status_detail);

	jw_obj(&w, "actor");
	if (set(job))
		jw_str(&w, "app_name", job);
	if (ev->job_pid > 0 || set(job)) {
		jw_obj(&w, "process");
		if (ev->job_pid > 0)
			jw_i64(&w, "pid", ev->job_pid);
		if (set(job))
			jw_str(&w, "uid", job);
		if (set(ev->job_process_name))
			jw_str(&w, "name", ev->job_process_name);
		jw_end(&w);
	} else {
		jw_str(&w, "app_name", "unknown");
	}
	jw_end(&w);
	ocsf_put_endpoint(&w, "src_endpoint", &ev->src);
	ocsf_put_endpoint(&w, "dst_endpoint", &ev->dst);
	jw_obj(&w, "api");
	jw_str(&w, "operation", ev->operation);
	jw_obj(&w, "service");
	jw_str(&w, "name", ev->provider);
	jw_end(&w);
	jw_end(&w);
	jw_obj(&w, "ai_model");
	jw_str(&w, "name", ev->model);
	jw_str(&w, "ai_provider", ev->provider);
	if (set(ev->model_version))
		jw_str(&w, "version", ev->model_version);
	jw_end(&w);
	jw_obj(&w, "message_context");
	jw_obj(&w, "service");
	jw_str(&w, "name", ev->provider);
	jw_end(&w);
	if (ev->prompt_tokens >= 0)
		jw_i64(&w, "prompt_tokens", clamp32(ev->prompt_tokens));
	if (ev->completion_tokens >= 0)
		jw_i64(&w, "completion_tokens", clamp32(ev->completion_tokens));
	if (total >= 0)
		jw_i64(&w, "total_tokens", clamp32(total));
	jw_end(&w);
	if (ev->status_code > 0) {
		jw_obj(&w, "http_response");
		jw_i64(&w, "code", clamp32(ev->status_code));
		if (ev->latency_ms >= 0)
			jw_i64(&w, "latency", clamp32(ev->latency_ms));
		jw_end(&w);
	}
	ocsf_put_device(&w, o);
	ocsf_event_end(&w, start);
	return 0;
}

int
ocsf_format_api(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_api_event *ev, char *err, size_t errlen)
{
	return ocsf__api(out, o, ev, NULL, err, errlen);
}

/* ---- 3004 ---- */

static void
put_entity(struct jw *w, const char *key, const struct ocsf_policy *p)
{
	jw_obj(w, key);
	JW_LIT(w, "\"type_id\":5,\"type\":\"Policy\"");
	if (set(p->name))
		jw_str(w, "name", p->name);
	if (set(p->uid))
		jw_str(w, "uid", p->uid);
	if (set(p->version))
		jw_str(w, "version", p->version);
	ocsf_put_policy(w, "policy", p);
	jw_end(w);
}

int
ocsf__policy(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_policy_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen)
{
	struct jw w = { .b = out };
	struct ocsf_head h;
	size_t start = out->len;
	bool loaded = ev->change == OCSF_POLICY_LOADED;
	bool failed = ev->change == OCSF_POLICY_RELOAD_FAILED;
	const struct ocsf_policy *ent = loaded ? &ev->cur : &ev->old;
	const char *name;

	if (ev->change < OCSF_POLICY_LOADED ||
	    ev->change > OCSF_POLICY_RELOAD_FAILED)
		return axg_seterr(err, errlen,
		    "policy event: change %d is not loaded, reloaded or "
		    "reload failed",
		    (int)ev->change);
	if (ocsf_policy_empty(ent))
		return axg_seterr(err, errlen,
		    "policy event: the %s policy needs a name or uid",
		    loaded ? "loaded" : "previous");
	name = set(ent->name) ? ent->name : ent->uid;
	memset(&h, 0, sizeof(h));
	h.class_uid = 3004;
	h.class_name = "Entity Management";
	h.category_uid = 3;
	h.category_name = "Identity & Access Management";
	h.activity_id = loaded ? 1 : 3;
	h.activity_name = loaded ? "Create" : "Update";
	h.type_name =
	    loaded ? "Entity Management: Create" : "Entity Management: Update";
	h.severity_id = failed ? 3 : 1;
	h.time_ms = ev->time_ms;
	h.status_id = failed ? 2 : 1;
	h.status = failed ? "Failure" : "Success";
	h.profiles = prof_host;
	ocsf_event_begin(&w, &h, m);

	jw_sbegin(&w, "message");
	if (ev->message != NULL) {
		jw_sadds(&w, ev->message);
	} else {
		jw_sadds(&w, "policy ");
		jw_sadds(&w, name);
		if (loaded) {
			jw_sadds(&w, " loaded");
		} else {
			jw_sadds(&w, failed ? " reload failed" : " reloaded");
		}
		if (set(ev->trigger)) {
			jw_sadds(&w, " on ");
			jw_sadds(&w, ev->trigger);
		}
		if (loaded && set(ev->cur.version)) {
			jw_sadds(&w, ": version ");
			jw_sadds(&w, ev->cur.version);
		} else if (!loaded && !failed) {
			jw_sadds(&w, ": version ");
			jw_sadds(&w,
			    set(ev->old.version) ? ev->old.version : "?");
			jw_sadds(&w, " -> ");
			jw_sadds(&w,
			    set(ev->cur.version) ? ev->cur.version : "?");
		} else if (failed) {
			if (set(ev->status_detail)) {
				jw_sadds(&w, ": ");
				jw_sadds(&w, ev->status_detail);
			}
			jw_sadds(&w, "; version ");
			jw_sadds(&w,
			    set(ev->old.version) ? ev->old.version : "?");
			jw_sadds(&w, " kept");
		}
	}
	jw_send(&w);
	if (set(ev->status_detail))
		jw_str(&w, "status_detail", ev->status_detail);
	ocsf_put_actor_process(&w, o, false);
	ocsf_put_device(&w, o);
	put_entity(&w, "entity", ent);
	if (!loaded && !ocsf_policy_empty(&ev->cur))
		put_entity(&w, "entity_result", &ev->cur);
	if (set(ev->trigger)) {
		JW_LIT(&w, ",\"unmapped\":{\"axgate\":{");
		jw_str(&w, "trigger", ev->trigger);
		JW_LIT(&w, "}}");
	}
	ocsf_event_end(&w, start);
	return 0;
}

int
ocsf_format_policy(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_policy_event *ev, char *err, size_t errlen)
{
	return ocsf__policy(out, o, ev, NULL, err, errlen);
}

/* ---- 6002 ---- */

static void
app_tail(struct jw *w, const struct ocsf_origin *o)
{
	JW_LIT(w,
	    ",\"app\":{\"name\":\"axgate\",\"vendor_name\":\"axgate\","
	    "\"version\":\"" PACKAGE_VERSION "\"}");
	ocsf_put_actor_process(w, o, true);
	ocsf_put_device(w, o);
}

int
ocsf__app(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_app_event *ev, struct ocsf_meta *m, char *err,
    size_t errlen)
{
	struct jw w = { .b = out };
	struct ocsf_head h;
	size_t start = out->len;
	bool st = ev->activity == OCSF_APP_START;

	if (ev->activity != OCSF_APP_START && ev->activity != OCSF_APP_STOP)
		return axg_seterr(err, errlen,
		    "application event: activity %d is not Start or Stop",
		    (int)ev->activity);
	memset(&h, 0, sizeof(h));
	h.class_uid = 6002;
	h.class_name = "Application Lifecycle";
	h.category_uid = 6;
	h.category_name = "Application Activity";
	h.activity_id = (int)ev->activity;
	h.activity_name = st ? "Start" : "Stop";
	h.type_name =
	    st ? "Application Lifecycle: Start" : "Application Lifecycle: Stop";
	h.severity_id = ev->failed ? 3 : 1;
	h.time_ms = ev->time_ms;
	h.status_id = ev->failed ? 2 : 1;
	h.status = ev->failed ? "Failure" : "Success";
	h.profiles = prof_host;
	ocsf_event_begin(&w, &h, m);
	jw_sbegin(&w, "message");
	if (ev->message != NULL) {
		jw_sadds(&w, ev->message);
	} else {
		jw_sadds(&w, "axgate " PACKAGE_VERSION);
		jw_sadds(&w,
		    st ? (ev->failed ? " failed to start" : " started")
		       : (ev->failed ? " stopped on error" : " stopped"));
	}
	jw_send(&w);
	if (set(ev->status_detail))
		jw_str(&w, "status_detail", ev->status_detail);
	app_tail(&w, o);
	ocsf_event_end(&w, start);
	return 0;
}

int
ocsf_format_app(struct axg_buf *out, const struct ocsf_origin *o,
    const struct ocsf_app_event *ev, char *err, size_t errlen)
{
	return ocsf__app(out, o, ev, NULL, err, errlen);
}

int
ocsf__drop_report(struct axg_buf *out, const struct ocsf_origin *o,
    uint64_t dropped, uint64_t total, struct ocsf_meta *m)
{
	struct jw w = { .b = out };
	struct ocsf_head h;
	size_t start = out->len;

	memset(&h, 0, sizeof(h));
	h.class_uid = 6002;
	h.class_name = "Application Lifecycle";
	h.category_uid = 6;
	h.category_name = "Application Activity";
	h.activity_id = 99;
	h.activity_name = "Audit Events Dropped";
	h.type_name = "Application Lifecycle: Other";
	h.severity_id = 3;
	h.status_id = 2;
	h.status = "Failure";
	h.profiles = prof_host;
	ocsf_event_begin(&w, &h, m);
	jw_i64(&w, "count",
	    clamp32((int64_t)(dropped > INT32_MAX ? INT32_MAX : dropped)));
	jw_sbegin(&w, "message");
	jw_saddu(&w, dropped);
	jw_sadds(&w, " audit events dropped: the audit queue was full (");
	jw_saddu(&w, total);
	jw_sadds(&w, " since start)");
	jw_send(&w);
	JW_LIT(&w, ",\"status_detail\":\"audit queue full\"");
	app_tail(&w, o);
	JW_LIT(&w, ",\"unmapped\":{\"axgate\":{");
	jw_u64(&w, "dropped_events", dropped);
	jw_u64(&w, "dropped_total", total);
	JW_LIT(&w, "}}");
	ocsf_event_end(&w, start);
	return 0;
}
