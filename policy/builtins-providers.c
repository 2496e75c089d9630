/*
 * builtins-providers.c: providers.aws.sign_req, an HTTP request object
 * signed with AWS Signature Version 4 the way OPA signs it.
 *
 * providers.aws.sign_req(request, config, time_ns) returns the request
 * with its "headers" extended by "Authorization", "host", "x-amz-date",
 * "x-amz-content-sha256" (services s3 and glacier) and
 * "x-amz-security-token" (with a session token).  What is signed: the
 * method and the URL's path and query as written, every header of the
 * request (names in lower case) except Authorization, User-Agent and
 * X-Amzn-Trace-Id, the headers above, and the SHA-256 of the body
 * ("raw_body" as it is, else "body" as Go's JSON), or UNSIGNED-PAYLOAD
 * when config.disable_payload_signing is true.  A header the request
 * already has is signed with its own value and then replaced by the
 * computed one, as OPA does.
 */
#include "config.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/common.h"
#include "policy/builtins.h"
#include "policy/value-extra-b.h"

#define SIGNED_MAX 256 /* headers signed at most */

struct hdr {
	char *name; /* lower case, malloc'd */
	const char *value;
	size_t value_len;
};

static void
hex(const unsigned char *p, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[p[i] >> 4];
		out[2 * i + 1] = hx[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static void
sha256_hex(const void *p, size_t n, char out[65])
{
	unsigned char d[32];

	axg_sha256(p, n, d);
	hex(d, 32, out);
}

static void
hmac256(const void *key, size_t klen, const char *msg, unsigned char out[32])
{
	unsigned int len = 32;

	HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg,
	    strlen(msg), out, &len);
}

/* Check the string-valued keys of o (sorted names): "missing required WHAT
 * parameters(s): {...}" when some are absent, else "invalid values for
 * ..." when some are not strings.  0, or AXP_BI_ERROR. */
static int
want_strings(struct axp_bctx *ctx, int pos, const struct axv *o,
    const char *const *keys, size_t n, const char *what)
{
	struct axv *missing = axv_set_new(n), *invalid = axv_set_new(n);
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		const struct axv *v = axv_object_gets(o, keys[i]);

		if (v == NULL)
			axv_set_add(missing, axv_cstr(keys[i]));
		else if (axv_kind(v) != AXV_STRING)
			axv_set_add(invalid, axv_cstr(keys[i]));
	}
	if (axv_set_len(missing) > 0 || axv_set_len(invalid) > 0) {
		bool m = axv_set_len(missing) > 0;
		char *set = axv_to_rego_string(m ? missing : invalid);

		rc = axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "operand %d %s required %s parameters(s): %s", pos,
		    m ? "missing" : "invalid values for", what, set);
		free(set);
	}
	axv_unref(missing);
	axv_unref(invalid);
	return rc;
}

static const char *
str_of(const struct axv *o, const char *key)
{
	const struct axv *v = axv_object_gets(o, key);

	return v != NULL && axv_kind(v) == AXV_STRING ? axv_str(v) : "";
}

/* The parts of a URL that are signed, as Go's url.Parse splits them:
 * the host (with its port, without userinfo), the path as written and
 * the raw query. */
struct url_parts {
	const char *host, *path, *query;
	size_t host_len, path_len, query_len;
};

static void
split_url(const char *u, struct url_parts *p)
{
	const char *s = strstr(u, "://"), *end;

	memset(p, 0, sizeof(*p));
	p->host = p->path = p->query = "";
	if (s != NULL && strcspn(u, "/?#") > (size_t)(s - u)) {
		const char *h = s + 3, *at;
		size_t hl = strcspn(h, "/?#");

		at = memchr(h, '@', hl);
		if (at != NULL) {
			hl -= (size_t)(at + 1 - h);
			h = at + 1;
		}
		p->host = h;
		p->host_len = hl;
		u = h + hl;
	}
	end = u + strcspn(u, "?#");
	p->path = u;
	p->path_len = (size_t)(end - u);
	if (*end == '?') {
		p->query = end + 1;
		p->query_len = strcspn(end + 1, "#");
	}
}

static int
hdr_cmp(const void *a, const void *b)
{
	return strcmp(((const struct hdr *)a)->name,
	    ((const struct hdr *)b)->name);
}

static bool
ignored(const char *name)
{
	return strcmp(name, "authorization") == 0 ||
	    strcmp(name, "user-agent") == 0 ||
	    strcmp(name, "x-amzn-trace-id") == 0;
}

/* Add or replace name -> value in the signed set (name is taken). */
static void
hdr_set(struct hdr *h, size_t *n, char *name, const char *value,
    size_t value_len)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp(h[i].name, name) == 0) {
			free(name);
			h[i].value = value;
			h[i].value_len = value_len;
			return;
		}
	}
	h[*n] = (struct hdr){ name, value, value_len };
	(*n)++;
}

static char *
lower_dup(const char *s, size_t n)
{
	char *d = axg_strndup(s, n);

	for (size_t i = 0; i < n; i++)
		if (d[i] >= 'A' && d[i] <= 'Z')
			d[i] = (char)(d[i] - 'A' + 'a');
	return d;
}

static int
bi_aws_sign_req(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	static const char *const req_keys[] = { "method", "url" };
	static const char *const cfg_keys[] = { "aws_access_key", "aws_region",
		"aws_secret_access_key", "aws_service" };
	const struct axv *req = args[0], *cfg = args[1], *headers, *v;
	struct hdr signed_h[SIGNED_MAX];
	size_t nsigned = 0;
	struct axg_buf body, creq, sts;
	struct url_parts url;
	const char *service, *region, *token, *payload;
	char date[9], stamp[17], body_hash[65], creq_hash[65], sig[65];
	unsigned char key[32];
	int64_t ns;
	time_t secs;
	struct tm tm;
	bool unsigned_payload = false;
	struct axv *hdrs, *res;
	int rc = AXP_BI_ERROR;

	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT) ||
	    !axp_bi_want(ctx, args, 2, AXV_OBJECT) ||
	    !axp_bi_want(ctx, args, 3, AXV_NUMBER))
		return AXP_BI_ERROR;
	if (want_strings(ctx, 1, req, req_keys, 2, "request") != 0 ||
	    want_strings(ctx, 2, cfg, cfg_keys, 4, "AWS config") != 0)
		return AXP_BI_ERROR;
	v = axv_object_gets(cfg, "disable_payload_signing");
	if (v != NULL) {
		if (axv_kind(v) != AXV_BOOL)
			return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
			    "operand 2 invalid value for "
			    "'disable_payload_signing' in AWS config");
		unsigned_payload = axv_bool_get(v);
	}
	if (!axv_num_get_i64(args[2], &ns))
		return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "operand 3 could not convert time_ns value into a unix "
		    "timestamp");
	headers = axv_object_gets(req, "headers");
	if (headers != NULL && axv_kind(headers) != AXV_OBJECT)
		return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "operand 1 'headers' must be an object");
	if (headers != NULL && axv_object_len(headers) > SIGNED_MAX - 4)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "too many headers to sign (over %d)", SIGNED_MAX - 4);
	for (size_t i = 0; headers != NULL && i < axv_object_len(headers);
	     i++) {
		if (axv_kind(axv_object_key(headers, i)) != AXV_STRING ||
		    axv_kind(axv_object_val(headers, i)) != AXV_STRING)
			return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
			    "operand 1 'headers' must map strings to strings");
	}

	/* the payload */
	axg_buf_init(&body, 0);
	v = axv_object_gets(req, "raw_body");
	if (v != NULL && axv_kind(v) == AXV_STRING) {
		axg_buf_append(&body, axv_str(v), axv_strlen(v));
	} else if ((v = axv_object_gets(req, "body")) != NULL &&
	    axv_go_json(v, &body, NULL, NULL) < 0) {
		axg_buf_free(&body);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "body nested too deeply");
	}
	sha256_hex(body.data != NULL ? body.data : "", body.len, body_hash);
	axg_buf_free(&body);
	payload = unsigned_payload ? "UNSIGNED-PAYLOAD" : body_hash;

	/* the time, in UTC */
	secs = (time_t)(ns / 1000000000 - (ns % 1000000000 < 0 ? 1 : 0));
	if (gmtime_r(&secs, &tm) == NULL || tm.tm_year + 1900 > 9999 ||
	    tm.tm_year + 1900 < 0)
		return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "operand 3 could not convert time_ns value into a unix "
		    "timestamp");
	strftime(date, sizeof(date), "%Y%m%d", &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);

	service = str_of(cfg, "aws_service");
	region = str_of(cfg, "aws_region");
	token = str_of(cfg, "aws_session_token");
	split_url(str_of(req, "url"), &url);

	/* the headers AWS wants, then the request's over them */
	hdr_set(signed_h, &nsigned, axg_strdup("host"), url.host, url.host_len);
	hdr_set(signed_h, &nsigned, axg_strdup("x-amz-date"), stamp,
	    strlen(stamp));
	if (strcmp(service, "s3") == 0 || strcmp(service, "glacier") == 0)
		hdr_set(signed_h, &nsigned, axg_strdup("x-amz-content-sha256"),
		    payload, strlen(payload));
	if (token[0] != '\0')
		hdr_set(signed_h, &nsigned, axg_strdup("x-amz-security-token"),
		    token, strlen(token));
	for (size_t i = 0; headers != NULL && i < axv_object_len(headers);
	     i++) {
		const struct axv *k = axv_object_key(headers, i);
		const struct axv *hv = axv_object_val(headers, i);
		char *name = lower_dup(axv_str(k), axv_strlen(k));

		if (ignored(name))
			free(name);
		else
			hdr_set(signed_h, &nsigned, name, axv_str(hv),
			    axv_strlen(hv));
	}
	qsort(signed_h, nsigned, sizeof(signed_h[0]), hdr_cmp);

	/* the canonical request, the string to sign, the signature */
	axg_buf_init(&creq, 0);
	axg_buf_printf(&creq, "%s\n%.*s\n%.*s\n", str_of(req, "method"),
	    (int)url.path_len, url.path, (int)url.query_len, url.query);
	for (size_t i = 0; i < nsigned; i++)
		axg_buf_printf(&creq, "%s:%.*s\n", signed_h[i].name,
		    (int)signed_h[i].value_len, signed_h[i].value);
	axg_buf_putc(&creq, '\n');
	for (size_t i = 0; i < nsigned; i++)
		axg_buf_printf(&creq, "%s%s", i ? ";" : "", signed_h[i].name);
	axg_buf_printf(&creq, "\n%s", payload);
	sha256_hex(creq.data, creq.len, creq_hash);

	axg_buf_init(&sts, 0);
	axg_buf_printf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s",
	    stamp, date, region, service, creq_hash);
	{
		const char *secret = str_of(cfg, "aws_secret_access_key");
		char *k0 = axg_asprintf("AWS4%s", secret);

		hmac256(k0, strlen(k0), date, key);
		OPENSSL_cleanse(k0, strlen(k0));
		free(k0);
		hmac256(key, 32, region, key);
		hmac256(key, 32, service, key);
		hmac256(key, 32, "aws4_request", key);
		hmac256(key, 32, sts.data, key);
		hex(key, 32, sig);
		OPENSSL_cleanse(key, sizeof(key));
	}

	/* the request with its headers: its own, then Authorization and the
	 * AWS ones over them */
	hdrs = axv_object_new(0);
	for (size_t i = 0; headers != NULL && i < axv_object_len(headers); i++)
		axv_object_put(hdrs, axv_ref(axv_object_key(headers, i)),
		    axv_ref(axv_object_val(headers, i)));
	{
		struct axg_buf auth;

		axg_buf_init(&auth, 0);
		axg_buf_printf(&auth,
		    "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request,"
		    "SignedHeaders=",
		    str_of(cfg, "aws_access_key"), date, region, service);
		for (size_t i = 0; i < nsigned; i++)
			axg_buf_printf(&auth, "%s%s", i ? ";" : "",
			    signed_h[i].name);
		axg_buf_printf(&auth, ",Signature=%s", sig);
		axv_object_put(hdrs, axv_cstr("Authorization"),
		    axv_string_buf(&auth));
	}
	axv_object_put(hdrs, axv_cstr("host"),
	    axv_string(url.host, url.host_len));
	axv_object_put(hdrs, axv_cstr("x-amz-date"), axv_cstr(stamp));
	if (strcmp(service, "s3") == 0 || strcmp(service, "glacier") == 0)
		axv_object_put(hdrs, axv_cstr("x-amz-content-sha256"),
		    axv_cstr(payload));
	if (token[0] != '\0')
		axv_object_put(hdrs, axv_cstr("x-amz-security-token"),
		    axv_cstr(token));
	res = axv_object_new(axv_object_len(req) + 1);
	for (size_t i = 0; i < axv_object_len(req); i++)
		axv_object_put(res, axv_ref(axv_object_key(req, i)),
		    axv_ref(axv_object_val(req, i)));
	axv_object_put(res, axv_cstr("headers"), hdrs);
	*out = res;
	rc = AXP_BI_OK;

	for (size_t i = 0; i < nsigned; i++)
		free(signed_h[i].name);
	axg_buf_free(&creq);
	OPENSSL_cleanse(sts.data, sts.len);
	axg_buf_free(&sts);
	return rc;
}

const struct axp_builtin axp_builtins_providers[] = {
	{ "providers.aws.sign_req", 3, bi_aws_sign_req,
	    "(object, object, number) => object", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
