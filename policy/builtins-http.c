/*
 * builtins-http.c: http.send, which checks its request and then refuses.
 *
 * A policy must not make network calls from inside the proxy, so http.send
 * never sends: it reports a malformed request as OPA does (unknown or
 * missing parameters, eval_type_error) and any well-formed one as an
 * eval_builtin_error.  Either way the evaluation ends with an error, which
 * the gate would treat as a denial; but the gate compiles with
 * AXP_COMPILE_OFFLINE, so a policy that calls it does not even load there
 * (AXP_BIF_NETWORK), and only axgate policy eval ever runs it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "policy/builtins.h"

/* OPA's request parameters. */
static const char *const http_params[] = { "body", "cache",
	"cache_ignored_headers", "caching_mode", "enable_redirect",
	"force_cache", "force_cache_duration_seconds", "force_json_decode",
	"force_yaml_decode", "headers", "max_retry_attempts", "method",
	"raise_error", "raw_body", "timeout", "tls_ca_cert",
	"tls_ca_cert_env_variable", "tls_ca_cert_file", "tls_client_cert",
	"tls_client_cert_env_variable", "tls_client_cert_file",
	"tls_client_key", "tls_client_key_env_variable", "tls_client_key_file",
	"tls_insecure_skip_verify", "tls_server_name", "tls_use_system_certs",
	"url" };

static bool
known_param(const struct axv *k)
{
	if (axv_kind(k) != AXV_STRING)
		return false;
	for (size_t i = 0; i < AXG_ARRAY_LEN(http_params); i++)
		if (strcmp(axv_str(k), http_params[i]) == 0)
			return true;
	return false;
}

static int
bi_http_send(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axv *bad, *missing;
	int rc;

	(void)out;
	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT))
		return AXP_BI_ERROR;
	bad = axv_set_new(0);
	missing = axv_set_new(0);
	for (size_t i = 0; i < axv_object_len(args[0]); i++)
		if (!known_param(axv_object_key(args[0], i)))
			axv_set_add(bad, axv_ref(axv_object_key(args[0], i)));
	if (axv_object_gets(args[0], "method") == NULL)
		axv_set_add(missing, axv_cstr("method"));
	if (axv_object_gets(args[0], "url") == NULL)
		axv_set_add(missing, axv_cstr("url"));
	if (axv_set_len(bad) > 0 || axv_set_len(missing) > 0) {
		struct axv *which = axv_set_len(bad) > 0 ? bad : missing;
		char *s = axv_to_rego_string(which);

		rc = axp_bi_error(ctx, AXP_ERR_EVAL_TYPE, "%s: %s",
		    which == bad ? "invalid request parameters(s)"
				 : "missing required request parameters(s)",
		    s);
		free(s);
	} else {
		rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "network calls are not allowed in policies");
	}
	axv_unref(bad);
	axv_unref(missing);
	return rc;
}

const struct axp_builtin axp_builtins_http[] = {
	{ "http.send", 1, bi_http_send, "(object) => object",
	    AXP_BIF_NONDET | AXP_BIF_NETWORK },
	{ NULL, 0, NULL, NULL, 0 },
};
