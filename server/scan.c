/* scan.c: the credential scanner in the proxy, per the policy's safety
 * section, each finding written as a Detection Finding (server.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "safety/safety.h"
#include "server/server-int.h"

struct srv_scan {
	struct srv_gatekeeper *k;
	struct leak_ruleset *rs;
	struct leak_scan *sc;
	struct leak_hook *hook;
	char *job;
	char policy_name[128];
	char policy_uid[32];
	enum leak_mode mode;
};

static enum ocsf_leak_action
ocsf_action(enum leak_action a)
{
	switch (a) {
	case LEAK_ACTION_BLOCKED:
		return OCSF_LEAK_BLOCKED;
	case LEAK_ACTION_REDACTED:
		return OCSF_LEAK_REDACTED;
	default:
		return OCSF_LEAK_LOGGED;
	}
}

static void
on_finding(void *arg, const struct leak_report *r)
{
	struct srv_scan *s = arg;
	struct ocsf_writer *w = srv_gatekeeper_writer(s->k);
	struct ocsf_finding_event ev;

	axg_warn("credential %s in %s (%s): %s", r->rule_id, r->where,
	    r->preview, leak_action_name(r->action));
	if (w == NULL)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.correlation_uid = s->job;
	ev.action = ocsf_action(r->action);
	ev.rule_id = r->rule_id;
	ev.rule_title = r->title;
	ev.where = r->where;
	ev.offset = r->offset;
	ev.preview = r->preview;
	ev.confidence = 3;
	ev.src.uid = s->job;
	ev.policy.name = s->policy_name;
	ev.policy.uid = s->policy_uid;
	(void)ocsf_emit_finding(w, &ev);
}

struct srv_scan *
srv_scan_new(struct srv_gatekeeper *k, const struct gate *g, const char *job,
    char *err, size_t errlen)
{
	struct leak_ruleset *rs =
	    srv_scan_rules_new(gate_document(g), err, errlen);

	if (rs == NULL)
		return NULL;
	return srv_scan_new_rules(k, g, job, rs, err, errlen);
}

struct leak_ruleset *
srv_scan_rules_new(const struct axv *doc, char *err, size_t errlen)
{
	struct axv *sf = axv_object_gets(doc, "safety");
	struct axv *rules_v = axv_object_gets(sf, "rules");

	return leak_ruleset_new(rules_v ? axv_str(rules_v) : NULL, err, errlen);
}

struct srv_scan *
srv_scan_new_rules(struct srv_gatekeeper *k, const struct gate *g,
    const char *job, struct leak_ruleset *rs, char *err, size_t errlen)
{
	const struct axv *doc = gate_document(g);
	struct axv *sf = axv_object_gets(doc, "safety");
	struct axv *mode_v = axv_object_gets(sf, "credential_scan");
	struct srv_scan *s = axg_calloc(1, sizeof(*s));
	enum leak_mode mode = LEAK_MODE_BLOCK;

	s->k = k;
	s->job = job != NULL ? axg_strdup(job) : NULL;
	axg_strlcpy(s->policy_name, gate_name(g), sizeof(s->policy_name));
	axg_strlcpy(s->policy_uid, gate_digest(g), sizeof(s->policy_uid));
	if (mode_v != NULL && leak_mode_parse(axv_str(mode_v), &mode) < 0) {
		axg_seterr(err, errlen, "safety.credential_scan: '%s'",
		    axv_str(mode_v));
		goto fail;
	}
	s->rs = rs;
	rs = NULL;
	s->sc = leak_scan_new(s->rs, err, errlen);
	if (s->sc == NULL)
		goto fail;
	s->hook = leak_hook_new(s->sc, mode, on_finding, s);
	s->mode = mode;
	return s;
fail:
	leak_ruleset_free(rs);
	srv_scan_free(s);
	return NULL;
}

void
srv_scan_hook(struct srv_scan *s, struct px_scan_hook *out)
{
	leak_hook_fill(s->hook, out);
}

void
srv_scan_free(struct srv_scan *s)
{
	if (s == NULL)
		return;
	leak_hook_free(s->hook);
	leak_scan_free(s->sc);
	leak_ruleset_free(s->rs);
	free(s->job);
	free(s);
}

/* ---- for inference.c (server-int.h) ---- */

struct leak_scan *
srv_scan_scanner(struct srv_scan *s)
{
	return s->sc;
}

enum leak_mode
srv_scan_mode(struct srv_scan *s)
{
	return s->mode;
}

void
srv_scan_report(struct srv_scan *s, const struct leak_report *r)
{
	on_finding(s, r);
}
