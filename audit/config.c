/* config.c: the audit configuration and the sink spec strings. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "audit/audit.h"

void
ocsf_config_init(struct ocsf_config *c)
{
	memset(c, 0, sizeof(*c));
	c->overflow = OCSF_OVERFLOW_BLOCK;
	c->queue_size = 65536;
	c->drain_timeout_ms = 5000;
	c->error_interval_ms = 10000;
	c->syslog_facility = OCSF_SYSLOG_FACILITY;
}

static int
copy_field(char *dst, size_t size, const char *src, size_t n, const char *what,
    const char *spec, char *err, size_t errlen)
{
	if (n == 0)
		return axg_seterr(err, errlen, "audit sink '%s': empty %s",
		    spec, what);
	if (n >= size)
		return axg_seterr(err, errlen, "audit sink '%s': %s too long",
		    spec, what);
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

/* HOST:PORT or [V6]:PORT */
static int
parse_hostport(const char *hp, struct ocsf_sink_spec *out, const char *spec,
    char *err, size_t errlen)
{
	const char *host, *colon;
	size_t hlen;
	uint64_t port;

	if (hp[0] == '[') {
		const char *close = strchr(hp, ']');

		if (close == NULL || close[1] != ':')
			return axg_seterr(err, errlen,
			    "audit sink '%s': expected [ADDRESS]:PORT", spec);
		host = hp + 1;
		hlen = (size_t)(close - host);
		colon = close + 1;
	} else {
		colon = strrchr(hp, ':');
		if (colon == NULL)
			return axg_seterr(err, errlen,
			    "audit sink '%s': expected HOST:PORT", spec);
		host = hp;
		hlen = (size_t)(colon - hp);
		if (memchr(host, ':', hlen) != NULL)
			return axg_seterr(err, errlen,
			    "audit sink '%s': put an IPv6 address in brackets",
			    spec);
	}
	if (copy_field(out->target, sizeof(out->target), host, hlen, "host",
		spec, err, errlen) < 0)
		return -1;
	if (axg_parse_u64(colon + 1, 1, 65535, &port) != 0)
		return axg_seterr(err, errlen,
		    "audit sink '%s': port '%s' is not 1..65535", spec,
		    colon + 1);
	snprintf(out->port, sizeof(out->port), "%u", (unsigned)port);
	return 0;
}

int
ocsf_sink_spec_parse(const char *spec, struct ocsf_sink_spec *out, char *err,
    size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (spec == NULL || spec[0] == '\0')
		return axg_seterr(err, errlen, "audit sink: empty spec");
	if (strcmp(spec, "stdout") == 0 || strcmp(spec, "-") == 0) {
		out->kind = OCSF_SINK_STDOUT;
		return 0;
	}
	if (axg_startswith(spec, "file:")) {
		out->kind = OCSF_SINK_FILE;
		return copy_field(out->target, sizeof(out->target), spec + 5,
		    strlen(spec + 5), "path", spec, err, errlen);
	}
	if (strcmp(spec, "syslog") == 0) {
		out->kind = OCSF_SINK_SYSLOG;
		axg_strlcpy(out->target, OCSF_DEFAULT_SYSLOG,
		    sizeof(out->target));
		return 0;
	}
	if (axg_startswith(spec, "syslog:")) {
		out->kind = OCSF_SINK_SYSLOG;
		if (spec[7] != '/')
			return axg_seterr(err, errlen,
			    "audit sink '%s': the socket path must be absolute",
			    spec);
		/* sun_path is 108 bytes */
		if (strlen(spec + 7) >= 108)
			return axg_seterr(err, errlen,
			    "audit sink '%s': socket path too long", spec);
		return copy_field(out->target, sizeof(out->target), spec + 7,
		    strlen(spec + 7), "socket path", spec, err, errlen);
	}
	if (axg_startswith(spec, "fd:")) {
		uint64_t fd;

		if (axg_parse_u64(spec + 3, 0, 65535, &fd) < 0)
			return axg_seterr(err, errlen,
			    "audit sink '%s': not a file descriptor number",
			    spec);
		out->kind = OCSF_SINK_FD;
		snprintf(out->target, sizeof(out->target), "%u", (unsigned)fd);
		return 0;
	}
	if (axg_startswith(spec, "syslog+tcp://")) {
		out->kind = OCSF_SINK_SYSLOG_TCP;
		return parse_hostport(spec + 13, out, spec, err, errlen);
	}
	return axg_seterr(err, errlen,
	    "audit sink '%s': expected file:PATH, stdout, syslog[:SOCKET] or "
	    "syslog+tcp://HOST:PORT",
	    spec);
}

int
ocsf_config_add_sink(struct ocsf_config *c, const char *spec, char *err,
    size_t errlen)
{
	struct ocsf_sink_spec s;

	if (c->nsinks >= OCSF_MAX_SINKS)
		return axg_seterr(err, errlen,
		    "audit sink '%s': at most %d sinks", spec, OCSF_MAX_SINKS);
	if (ocsf_sink_spec_parse(spec, &s, err, errlen) < 0)
		return -1;
	c->sinks[c->nsinks++] = s;
	return 0;
}

int
ocsf_overflow_parse(const char *s, enum ocsf_overflow *out, char *err,
    size_t errlen)
{
	if (strcmp(s, "block") == 0)
		*out = OCSF_OVERFLOW_BLOCK;
	else if (strcmp(s, "drop") == 0)
		*out = OCSF_OVERFLOW_DROP;
	else if (strcmp(s, "deny") == 0)
		*out = OCSF_OVERFLOW_DENY;
	else
		return axg_seterr(err, errlen,
		    "audit overflow policy '%s': expected block, drop or deny",
		    s);
	return 0;
}

const char *
ocsf_overflow_name(enum ocsf_overflow o)
{
	switch (o) {
	case OCSF_OVERFLOW_BLOCK:
		return "block";
	case OCSF_OVERFLOW_DROP:
		return "drop";
	case OCSF_OVERFLOW_DENY:
		return "deny";
	}
	return "?";
}
