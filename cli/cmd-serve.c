/* cmd-serve.c: axgate serve: the proxy as a daemon (server.h does the
 * work; this file reads the command line over axgate.yaml). */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "server/server.h"

static const struct option longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "policy", required_argument, NULL, 'p' },
	{ "listen", required_argument, NULL, 'l' },
	{ "audit", required_argument, NULL, 'a' },
	{ "audit-sink", required_argument, NULL, 'S' },
	{ "admin", required_argument, NULL, 'A' },
	{ "resolver", required_argument, NULL, 'r' },
	{ "user", required_argument, NULL, 'u' },
	{ "workers", required_argument, NULL, 'w' },
	{ "drain-timeout", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A command-line value that replaces what the file said. */
struct overrides {
	const char *policy, *admin, *resolver, *user;
	const char *listen[SRV_MAX_LISTENERS];
	size_t nlisten;
	char *sinks[OCSF_MAX_SINKS];
	size_t nsinks;
	uint64_t workers, drain;
	bool workers_set, drain_set;
};

static int AXG_PRINTF(1, 2) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "axgate serve: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return AXG_EXIT_USAGE;
}

static int
add_sink(struct overrides *o, const char *spec, bool is_file)
{
	char cwd[PATH_MAX];

	if (o->nsinks == OCSF_MAX_SINKS)
		return usage_error("at most %d audit sinks", OCSF_MAX_SINKS);
	if (is_file && spec[0] != '/') {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return usage_error("getcwd failed");
		o->sinks[o->nsinks++] = axg_asprintf("file:%s/%s", cwd, spec);
	} else if (is_file)
		o->sinks[o->nsinks++] = axg_asprintf("file:%s", spec);
	else
		o->sinks[o->nsinks++] = axg_strdup(spec);
	return 0;
}

static int
apply(struct srv_config *c, const struct overrides *o)
{
	char err[512];
	size_t i;

	if (o->policy != NULL) {
		free(c->policy);
		c->policy = axg_strdup(o->policy);
	}
	if (o->nlisten > 0) {
		c->nlisteners = 0;
		for (i = 0; i < o->nlisten; i++)
			if (srv_parse_addr(o->listen[i], false,
				&c->listeners[c->nlisteners++], err,
				sizeof(err)) < 0)
				return usage_error("--listen: %s", err);
	}
	if (o->nsinks > 0) {
		c->audit.nsinks = 0;
		for (i = 0; i < o->nsinks; i++)
			if (ocsf_config_add_sink(&c->audit, o->sinks[i], err,
				sizeof(err)) < 0)
				return usage_error("--audit: %s", err);
	}
	if (o->admin != NULL) {
		if (strcmp(o->admin, "off") == 0)
			c->admin_set = false;
		else if (srv_parse_addr(o->admin, true, &c->admin, err,
			     sizeof(err)) < 0)
			return usage_error("--admin: %s", err);
		else
			c->admin_set = true;
	}
	if (o->resolver != NULL) {
		struct srv_listen r;

		if (srv_parse_addr(o->resolver, false, &r, err, sizeof(err)) <
		    0)
			return usage_error("--resolver: %s", err);
		axg_strlcpy(c->limits.resolver, r.text,
		    sizeof(c->limits.resolver));
	}
	if (o->user != NULL) {
		free(c->user);
		c->user = axg_strdup(o->user);
	}
	if (o->workers_set)
		c->workers = (unsigned)o->workers;
	if (o->drain_set)
		c->drain_timeout_ms = (unsigned)o->drain;
	return 0;
}

static int
cmd_serve(int argc, char **argv)
{
	struct overrides o;
	struct srv_config cfg;
	const char *config = NULL;
	char err[1024];
	int c, status = AXG_EXIT_USAGE;

	memset(&o, 0, sizeof(o));
	srv_config_init(&cfg);
	while ((c = getopt_long(argc, argv, "c:p:l:a:S:A:r:u:w:d:h", longopts,
		    NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'p':
			o.policy = optarg;
			break;
		case 'l':
			if (o.nlisten == SRV_MAX_LISTENERS) {
				usage_error("at most %d --listen addresses",
				    SRV_MAX_LISTENERS);
				goto out;
			}
			o.listen[o.nlisten++] = optarg;
			break;
		case 'a':
		case 'S':
			if (add_sink(&o, optarg, c == 'a') != 0)
				goto out;
			break;
		case 'A':
			o.admin = optarg;
			break;
		case 'r':
			o.resolver = optarg;
			break;
		case 'u':
			o.user = optarg;
			break;
		case 'w':
			if (axg_parse_u64(optarg, 1, SRV_MAX_WORKERS,
				&o.workers) < 0) {
				usage_error("--workers: '%s' is not 1 to %d",
				    optarg, SRV_MAX_WORKERS);
				goto out;
			}
			o.workers_set = true;
			break;
		case 'd':
			if (axg_parse_u64(optarg, 0, 3600000, &o.drain) < 0) {
				usage_error("--drain-timeout: '%s' is not a "
					    "number of milliseconds",
				    optarg);
				goto out;
			}
			o.drain_set = true;
			break;
		case 'h':
			axg_cmd_usage(&axg_cmd_serve);
			status = AXG_EXIT_OK;
			goto out;
		default:
			axg_cmd_usage(&axg_cmd_serve);
			goto out;
		}
	}
	if (optind < argc) {
		usage_error("unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (config != NULL &&
	    srv_config_load(&cfg, config, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	if (apply(&cfg, &o) != 0)
		goto out;
	status = srv_serve(&cfg);
out:
	for (size_t i = 0; i < o.nsinks; i++)
		free(o.sinks[i]);
	srv_config_clear(&cfg);
	return status;
}

const struct axg_cmd axg_cmd_serve = {
	.name = "serve",
	.summary = "run the proxy as a daemon",
	.usage = "axgate serve [--config FILE] [--policy FILE] "
		 "[--listen ADDR:PORT]...\n"
		 "             [--audit FILE]... [--audit-sink SPEC]... "
		 "[--admin [ADDR:]PORT]\n"
		 "             [--resolver ADDR:PORT] [--user USER] "
		 "[--workers N] [--drain-timeout MS]\n",
	.run = cmd_serve,
};
