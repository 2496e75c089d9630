/*
 * builtins-uri.c: uri.parse and uri.is_valid, with the parsing rules of
 * Go's net/url.Parse (which OPA uses): the scheme, an authority after //
 * (userinfo, host, port), a path kept raw when it is not the canonical
 * escaping of its decoded form, the raw query and the decoded fragment.
 * uri.parse gives an object of the non-empty parts among scheme,
 * hostname, port, path, raw_path, raw_query and fragment.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"

#define URI_MAX (1u << 20)

enum uenc { U_PATH, U_HOST, U_FRAGMENT, U_USER };

struct uri {
	char *scheme, *host, *path, *raw_path, *query, *fragment;
	char err[256];
};

static bool
is_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* Go's shouldEscape for the modes used here. */
static bool
should_escape(int c, enum uenc mode)
{
	if (is_alnum(c))
		return false;
	if (mode == U_HOST && strchr("!$&'()*+,;=:[]<>\"", c) != NULL)
		return false;
	if (c == '-' || c == '_' || c == '.' || c == '~')
		return false;
	if (c != '\0' && strchr("$&+,/:;=?@", c) != NULL) {
		if (mode == U_PATH)
			return c == '?';
		if (mode == U_USER)
			return c == '@' || c == '/' || c == '?' || c == ':';
		if (mode == U_FRAGMENT)
			return false;
	}
	if (mode == U_FRAGMENT && c != '\0' && strchr("!()*", c) != NULL)
		return false;
	return true;
}

/* Decode %XX escapes of s[0..n); NULL with u->err set on a bad escape. */
static char *
unescape(struct uri *u, const char *s, size_t n, enum uenc mode)
{
	char *out = axg_malloc(n + 1);
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '%') {
			if (i + 2 >= n || axg_hexval(s[i + 1]) < 0 ||
			    axg_hexval(s[i + 2]) < 0 ||
			    (mode == U_HOST && axg_hexval(s[i + 1]) < 8 &&
				!(s[i + 1] == '2' && s[i + 2] == '5'))) {
				size_t k = n - i < 3 ? n - i : 3;
				if (i + 2 < n && axg_hexval(s[i + 1]) >= 0 &&
				    axg_hexval(s[i + 2]) >= 0)
					k = 3;
				snprintf(u->err, sizeof(u->err),
				    "invalid URL escape \"%.*s\"", (int)k,
				    s + i);
				free(out);
				return NULL;
			}
			out[o++] = (char)(axg_hexval(s[i + 1]) * 16 +
			    axg_hexval(s[i + 2]));
			i += 2;
			continue;
		}
		if (mode == U_HOST && c < 0x80 && should_escape(c, U_HOST)) {
			snprintf(u->err, sizeof(u->err),
			    "invalid character \"%c\" in host name", c);
			free(out);
			return NULL;
		}
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return out;
}

/* Go's escape(s, encodePath): does it give back raw exactly? */
static bool
escapes_to(const char *s, const char *raw)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t r = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (should_escape(c, U_PATH)) {
			if (raw[r] != '%' || raw[r + 1] != hex[c >> 4] ||
			    raw[r + 2] != hex[c & 15])
				return false;
			r += 3;
		} else if (raw[r++] != (char)c) {
			return false;
		}
	}
	return raw[r] == '\0';
}

static bool
valid_port(const char *p, size_t n)
{
	size_t i;

	if (n == 0)
		return true;
	if (p[0] != ':')
		return false;
	for (i = 1; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

static bool
valid_userinfo(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (is_alnum(c))
			continue;
		if (c >= 0x80)
			return false;
		if (strchr("-._:~!$&'()*+,;=%@", c) == NULL || c == '\0')
			return false;
	}
	return true;
}

static int
parse_host(struct uri *u, const char *h, size_t n)
{
	const char *port;
	size_t i;

	if (n > 0 && h[0] == '[') {
		for (i = n; i > 0 && h[i - 1] != ']'; i--)
			;
		if (i == 0) {
			snprintf(u->err, sizeof(u->err), "missing ']' in host");
			return -1;
		}
		port = h + i;
	} else {
		for (i = n; i > 0 && h[i - 1] != ':'; i--)
			;
		port = i > 0 ? h + i - 1 : h + n;
	}
	if (!valid_port(port, (size_t)(h + n - port))) {
		snprintf(u->err, sizeof(u->err),
		    "invalid port \"%.*s\" after host", (int)(h + n - port),
		    port);
		return -1;
	}
	u->host = unescape(u, h, n, U_HOST);
	return u->host ? 0 : -1;
}

static int
uri_parse(struct uri *u, const char *s, size_t n)
{
	const char *hash = memchr(s, '#', n), *rest, *end, *q;
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			snprintf(u->err, sizeof(u->err),
			    "net/url: invalid control character in URL");
			return -1;
		}
	if (hash != NULL) {
		u->fragment = unescape(u, hash + 1, (size_t)(s + n - hash - 1),
		    U_FRAGMENT);
		if (u->fragment == NULL)
			return -1;
		n = (size_t)(hash - s);
	}
	end = s + n;
	rest = s;
	/* scheme */
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (is_alnum(c) && (i > 0 || !(c >= '0' && c <= '9')))
			continue;
		if (i > 0 && (c == '+' || c == '-' || c == '.'))
			continue;
		if (c == ':') {
			if (i == 0) {
				snprintf(u->err, sizeof(u->err),
				    "missing protocol scheme");
				return -1;
			}
			u->scheme = axg_malloc(i + 1);
			for (size_t k = 0; k < i; k++)
				u->scheme[k] =
				    (char)((s[k] >= 'A' && s[k] <= 'Z')
					    ? s[k] + 32
					    : s[k]);
			u->scheme[i] = '\0';
			rest = s + i + 1;
		}
		break;
	}
	/* query */
	if ((q = memchr(rest, '?', (size_t)(end - rest))) != NULL) {
		u->query = axg_malloc((size_t)(end - q));
		memcpy(u->query, q + 1, (size_t)(end - q - 1));
		u->query[end - q - 1] = '\0';
		end = q;
	}
	if (rest == end || *rest != '/') {
		if (u->scheme != NULL)
			return 0; /* opaque */
		{
			const char *slash =
			    memchr(rest, '/', (size_t)(end - rest));
			const char *seg_end = slash ? slash : end;
			if (memchr(rest, ':', (size_t)(seg_end - rest))) {
				snprintf(u->err, sizeof(u->err),
				    "first path segment in URL cannot "
				    "contain colon");
				return -1;
			}
		}
	}
	if (end - rest >= 2 && rest[0] == '/' && rest[1] == '/' &&
	    (u->scheme != NULL || end - rest < 3 || rest[2] != '/')) {
		const char *auth = rest + 2, *aend, *at = NULL, *p;
		aend = memchr(auth, '/', (size_t)(end - auth));
		if (aend == NULL)
			aend = end;
		for (p = auth; p < aend; p++)
			if (*p == '@')
				at = p;
		if (at != NULL) {
			if (!valid_userinfo(auth, (size_t)(at - auth))) {
				snprintf(u->err, sizeof(u->err),
				    "net/url: invalid userinfo");
				return -1;
			}
			auth = at + 1;
		}
		if (parse_host(u, auth, (size_t)(aend - auth)) < 0)
			return -1;
		rest = aend;
	}
	if (rest < end) {
		size_t len = (size_t)(end - rest);
		char *raw = axg_malloc(len + 1);
		memcpy(raw, rest, len);
		raw[len] = '\0';
		u->path = unescape(u, rest, len, U_PATH);
		if (u->path == NULL) {
			free(raw);
			return -1;
		}
		if (escapes_to(u->path, raw))
			free(raw);
		else
			u->raw_path = raw;
	}
	return 0;
}

static void
uri_free(struct uri *u)
{
	free(u->scheme);
	free(u->host);
	free(u->path);
	free(u->raw_path);
	free(u->query);
	free(u->fragment);
}

static void
put(struct axv *o, const char *k, const char *v, size_t n)
{
	if (v != NULL && n > 0)
		axv_object_put(o, axv_cstr(k), axv_string(v, n));
}

static int
bi_uri_parse(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct uri u;
	struct axv *o;
	const char *h, *port = NULL;
	size_t hn = 0, pn = 0, i;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	if (axv_strlen(args[0]) > URI_MAX)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "URI too long");
	memset(&u, 0, sizeof(u));
	if (uri_parse(&u, axv_str(args[0]), axv_strlen(args[0])) < 0) {
		uri_free(&u);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "parse \"%s\": %s", axv_str(args[0]), u.err);
	}
	o = axv_object_new(0);
	put(o, "scheme", u.scheme, u.scheme ? strlen(u.scheme) : 0);
	if ((h = u.host) != NULL) {
		/* Hostname() and Port(): the last :digits, brackets off */
		hn = strlen(h);
		for (i = hn; i > 0 && h[i - 1] != ':'; i--)
			;
		if (i > 0 && valid_port(h + i - 1, hn - i + 1)) {
			port = h + i;
			pn = hn - i;
			hn = i - 1;
		}
		if (hn >= 2 && h[0] == '[' && h[hn - 1] == ']') {
			h++;
			hn -= 2;
		}
		put(o, "hostname", h, hn);
		put(o, "port", port, pn);
	}
	if (u.path != NULL) {
		put(o, "path", u.path, strlen(u.path));
		put(o, "raw_path", u.raw_path ? u.raw_path : u.path,
		    strlen(u.raw_path ? u.raw_path : u.path));
	}
	put(o, "raw_query", u.query, u.query ? strlen(u.query) : 0);
	put(o, "fragment", u.fragment, u.fragment ? strlen(u.fragment) : 0);
	uri_free(&u);
	*out = o;
	return AXP_BI_OK;
}

static int
bi_uri_is_valid(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct uri u;
	int rc;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	memset(&u, 0, sizeof(u));
	rc = axv_strlen(args[0]) <= URI_MAX
	    ? uri_parse(&u, axv_str(args[0]), axv_strlen(args[0]))
	    : -1;
	uri_free(&u);
	*out = axv_bool(rc == 0);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_uri[] = {
	{ "uri.parse", 1, bi_uri_parse, "(string) => object[string: string]",
	    0 },
	{ "uri.is_valid", 1, bi_uri_is_valid, "(string) => boolean", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
