/* counts.c: request outcomes counted by rule and by where they stopped,
 * for /metrics.  It sits between the proxy and the gatekeeper's audit hook:
 * every record is counted here, then passed on.
 *
 * Label values come from the policy (rule names) and from the proxy (stage
 * and status), so the tables are bounded: past SRV_COUNT_SLOTS distinct
 * values, the rest are counted under rule "(other)". */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server/server-int.h"

struct slot {
	char key[64];
	int n; /* outcome (by rule) or status (by stage) */
	uint64_t count;
};

struct srv_counts {
	pthread_mutex_t lock;
	struct px_audit_hook next;
	struct slot rules[SRV_COUNT_SLOTS];
	size_t nrules;
	uint64_t other[3];
	struct slot stops[SRV_COUNT_SLOTS];
	size_t nstops;
};

static bool
bump(struct slot *t, size_t *n, const char *key, int k)
{
	for (size_t i = 0; i < *n; i++)
		if (t[i].n == k && strcmp(t[i].key, key) == 0) {
			t[i].count++;
			return true;
		}
	if (*n == SRV_COUNT_SLOTS)
		return false;
	axg_strlcpy(t[*n].key, key, sizeof(t[*n].key));
	t[*n].n = k;
	t[*n].count = 1;
	(*n)++;
	return true;
}

static void
record(void *arg, const struct px_audit_record *r)
{
	struct srv_counts *c = arg;
	const char *rule = r->rule != NULL && r->rule[0] ? r->rule : "(none)";
	int o = (int)r->outcome;

	pthread_mutex_lock(&c->lock);
	if (o >= 0 && o < 3 && !bump(c->rules, &c->nrules, rule, o))
		c->other[o]++;
	if (r->outcome != PX_OUTCOME_ALLOWED && r->stage != NULL)
		bump(c->stops, &c->nstops, r->stage, r->status);
	pthread_mutex_unlock(&c->lock);
	if (c->next.record != NULL)
		c->next.record(c->next.arg, r);
}

static void
opened(void *arg, const struct px_audit_record *r)
{
	struct srv_counts *c = arg;

	if (c->next.opened != NULL)
		c->next.opened(c->next.arg, r);
}

struct srv_counts *
srv_counts_new(const struct px_audit_hook *next, struct px_audit_hook *out)
{
	struct srv_counts *c = axg_calloc(1, sizeof(*c));

	pthread_mutex_init(&c->lock, NULL);
	c->next = *next;
	out->record = record;
	out->opened = opened;
	out->arg = c;
	return c;
}

void
srv_counts_free(struct srv_counts *c)
{
	if (c == NULL)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static void
label(struct axg_buf *b, const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			axg_buf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			axg_buf_puts(b, "\\n");
		else
			axg_buf_putc(b, *s);
}

static const char *const outcome_names[3] = { "allowed", "denied", "error" };

void
srv_counts_metrics(struct srv_counts *c, struct axg_buf *b)
{
	pthread_mutex_lock(&c->lock);
	axg_buf_puts(b,
	    "# HELP axgate_requests_by_rule_total Requests by the rule that "
	    "decided and outcome.\n"
	    "# TYPE axgate_requests_by_rule_total counter\n");
	for (size_t i = 0; i < c->nrules; i++) {
		axg_buf_puts(b, "axgate_requests_by_rule_total{rule=\"");
		label(b, c->rules[i].key);
		axg_buf_printf(b, "\",outcome=\"%s\"} %llu\n",
		    outcome_names[c->rules[i].n],
		    (unsigned long long)c->rules[i].count);
	}
	for (int o = 0; o < 3; o++)
		if (c->other[o] > 0)
			axg_buf_printf(b,
			    "axgate_requests_by_rule_total{rule=\"(other)\","
			    "outcome=\"%s\"} %llu\n",
			    outcome_names[o], (unsigned long long)c->other[o]);
	axg_buf_puts(b,
	    "# HELP axgate_refusals_total Requests not allowed, by where they "
	    "stopped (stage limit: a limit) and the status sent.\n"
	    "# TYPE axgate_refusals_total counter\n");
	for (size_t i = 0; i < c->nstops; i++) {
		axg_buf_puts(b, "axgate_refusals_total{stage=\"");
		label(b, c->stops[i].key);
		axg_buf_printf(b, "\",status=\"%d\"} %llu\n", c->stops[i].n,
		    (unsigned long long)c->stops[i].count);
	}
	pthread_mutex_unlock(&c->lock);
}
