/* env.c: the job's environment and the command's path. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "sandbox/sandbox-int.h"

extern char **environ;

/* Bounds on what the caller may pass through. */
#define SBX_ENV_MAX	  1024
#define SBX_ENV_VAR_MAX	  (128 * 1024)
#define SBX_NO_PROXY_DFLT "localhost,127.0.0.1,::1"

void
sbx_strv_free(char **v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

char **
sbx_strv_dup(char *const *v)
{
	size_t n = 0;
	char **out;

	while (v[n] != NULL)
		n++;
	out = axg_calloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = axg_strdup(v[i]);
	return out;
}

const char *
sbx_env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

static bool
allowed(const char *var, const char *const *allow)
{
	const char *eq = strchr(var, '=');
	size_t n;

	if (eq == NULL || eq == var || allow == NULL)
		return false;
	n = (size_t)(eq - var);
	for (size_t i = 0; allow[i] != NULL; i++) {
		size_t an = strlen(allow[i]);

		if (an > 0 && allow[i][an - 1] == '*') {
			if (n >= an - 1 && strncmp(var, allow[i], an - 1) == 0)
				return true;
		} else if (an == n && strncmp(var, allow[i], n) == 0)
			return true;
	}
	return false;
}

/* Set NAME=VALUE in v (replacing an earlier NAME). */
static int
env_put(char **v, size_t *n, char *var, char *err, size_t errlen)
{
	size_t nl = (size_t)(strchr(var, '=') - var);

	for (size_t i = 0; i < *n; i++) {
		if (strncmp(v[i], var, nl) == 0 && v[i][nl] == '=') {
			free(v[i]);
			v[i] = var;
			return 0;
		}
	}
	if (*n >= SBX_ENV_MAX) {
		free(var);
		return axg_seterr(err, errlen,
		    "environment: more than %d variables", SBX_ENV_MAX);
	}
	v[(*n)++] = var;
	return 0;
}

char **
sbx_env_build(const struct sbx_spec *spec, char *err, size_t errlen)
{
	char *const *src = spec->envp != NULL ? spec->envp : environ;
	char **v = axg_calloc(SBX_ENV_MAX + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; src != NULL && src[i] != NULL; i++) {
		if (!allowed(src[i], spec->env_allow))
			continue;
		if (strlen(src[i]) > SBX_ENV_VAR_MAX)
			continue;
		if (env_put(v, &n, axg_strdup(src[i]), err, errlen) == -1)
			goto fail;
	}
	for (size_t i = 0; spec->env_set != NULL && spec->env_set[i] != NULL;
	     i++) {
		const char *s = spec->env_set[i];
		const char *eq = strchr(s, '=');

		if (eq == NULL || eq == s) {
			axg_seterr(err, errlen,
			    "environment: '%.64s' is not NAME=VALUE", s);
			goto fail;
		}
		if (env_put(v, &n, axg_strdup(s), err, errlen) == -1)
			goto fail;
	}
	if (spec->proxy_addr != NULL) {
		const char *a = spec->proxy_addr;
		const char *np =
		    spec->no_proxy != NULL ? spec->no_proxy : SBX_NO_PROXY_DFLT;
		bool v6 = strchr(a, ':') != NULL && a[0] != '[';
		static const char *const names[] = { "HTTP_PROXY",
			"HTTPS_PROXY", "http_proxy", "https_proxy" };

		if (spec->proxy_port == 0) {
			axg_seterr(err, errlen,
			    "proxy address %.64s given without a port", a);
			goto fail;
		}
		for (size_t i = 0; i < AXG_ARRAY_LEN(names); i++) {
			char *s = axg_asprintf("%s=http://%s%s%s:%u", names[i],
			    v6 ? "[" : "", a, v6 ? "]" : "",
			    (unsigned)spec->proxy_port);

			if (env_put(v, &n, s, err, errlen) == -1)
				goto fail;
		}
		if (env_put(v, &n, axg_asprintf("NO_PROXY=%s", np), err,
			errlen) == -1 ||
		    env_put(v, &n, axg_asprintf("no_proxy=%s", np), err,
			errlen) == -1)
			goto fail;
	}
	return v;
fail:
	sbx_strv_free(v);
	return NULL;
}

char *
sbx_find_exec(const char *argv0, const char *path, char *err, size_t errlen)
{
	const char *p;

	if (argv0 == NULL || argv0[0] == '\0') {
		axg_seterr(err, errlen, "no command given");
		return NULL;
	}
	if (strchr(argv0, '/') != NULL)
		return axg_strdup(argv0);
	if (path == NULL || path[0] == '\0')
		path = "/usr/bin:/bin";
	p = path;
	for (;;) {
		const char *end = strchr(p, ':');
		size_t dl = end != NULL ? (size_t)(end - p) : strlen(p);
		struct stat st;
		char *cand;

		if (dl > 0) {
			cand = axg_asprintf("%.*s/%s", (int)dl, p, argv0);
			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
			    (st.st_mode & 0111) != 0)
				return cand;
			free(cand);
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	axg_seterr(err, errlen,
	    "command '%.64s' not found in the job's PATH (%.128s): give its "
	    "full path or pass PATH to the job",
	    argv0, path);
	return NULL;
}
