/*
 * builtins-encoding.c: base64, base64url, hex, urlquery, json and yaml
 * encoding builtins, with OPA's (Go's) exact output and error texts.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "policy/builtins.h"
#include "policy/value-extra-b.h"

/* Limits on documents decoded by json.unmarshal / yaml.unmarshal. */
#define ENC_MAX_DEPTH	 1000
#define YAML_MAX_NODES	 1000000 /* nodes after alias expansion */
#define YAML_MAX_ANCHORS 10000

/* ---- base64 ---- */

static int
bi_base64_encode(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	axv_b64_encode(axv_str(args[0]), axv_strlen(args[0]), false, true, &b);
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

static int
b64_decode_common(struct axp_bctx *ctx, const char *s, size_t n, bool url,
    struct axv **out)
{
	struct axg_buf b;
	size_t pos;

	axg_buf_init(&b, 0);
	if (axv_b64_decode(s, n, url, true, &b, &pos) < 0) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "illegal base64 data at input byte %zu", pos);
	}
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

static int
bi_base64_decode(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	return b64_decode_common(ctx, axv_str(args[0]), axv_strlen(args[0]),
	    false, out);
}

static int
bi_base64_is_valid(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;
	size_t pos;
	int rc;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	rc = axv_b64_decode(axv_str(args[0]), axv_strlen(args[0]), false, true,
	    &b, &pos);
	axg_buf_free(&b);
	*out = axv_bool(rc == 0);
	return AXP_BI_OK;
}

static int
bi_base64url_encode(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	axv_b64_encode(axv_str(args[0]), axv_strlen(args[0]), true, true, &b);
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

static int
bi_base64url_encode_no_pad(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	axv_b64_encode(axv_str(args[0]), axv_strlen(args[0]), true, false, &b);
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

/* Unpadded input is padded first (RFC 7515 appendix C), as OPA does. */
static int
bi_base64url_decode(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	const char *s;
	size_t n;
	char *tmp;
	int rc;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	s = axv_str(args[0]);
	n = axv_strlen(args[0]);
	if (n > 0 && s[n - 1] == '=')
		return b64_decode_common(ctx, s, n, true, out);
	switch (n % 4) {
	case 0:
		return b64_decode_common(ctx, s, n, true, out);
	case 2:
	case 3:
		tmp = axg_malloc(n + 3);
		memcpy(tmp, s, n);
		memcpy(tmp + n, "==", 2);
		rc = b64_decode_common(ctx, tmp, n + (n % 4 == 2 ? 2 : 1), true,
		    out);
		free(tmp);
		return rc;
	default:
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "illegal base64url string: %s", s);
	}
}

/* ---- hex ---- */

static int
bi_hex_encode(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *s;
	size_t n, i;
	char *r;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	s = (const unsigned char *)axv_str(args[0]);
	n = axv_strlen(args[0]);
	r = axg_malloc(2 * n + 1);
	for (i = 0; i < n; i++) {
		r[2 * i] = hx[s[i] >> 4];
		r[2 * i + 1] = hx[s[i] & 15];
	}
	r[2 * n] = '\0';
	*out = axv_string_own(r, 2 * n);
	return AXP_BI_OK;
}

/* Go's hex.InvalidByteError text: "invalid byte: U+0067 'g'". */
static int
hex_bad_byte(struct axp_bctx *ctx, const char *s, size_t n, size_t at)
{
	unsigned char c = (unsigned char)s[at];

	(void)n;
	if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "invalid byte: U+%04X '%c'", c, c);
	return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "invalid byte: U+%04X",
	    c);
}

static int
bi_hex_decode(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const char *s;
	size_t n, i;
	char *r;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	s = axv_str(args[0]);
	n = axv_strlen(args[0]);
	for (i = 0; i + 1 < n; i += 2) {
		if (axg_hexval((unsigned char)s[i]) < 0)
			return hex_bad_byte(ctx, s, n, i);
		if (axg_hexval((unsigned char)s[i + 1]) < 0)
			return hex_bad_byte(ctx, s, n, i + 1);
	}
	if (n % 2 == 1) {
		if (axg_hexval((unsigned char)s[n - 1]) < 0)
			return hex_bad_byte(ctx, s, n, n - 1);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "odd length hex string");
	}
	r = axg_malloc(n / 2 + 1);
	for (i = 0; i < n / 2; i++)
		r[i] = (char)(axg_hexval((unsigned char)s[2 * i]) << 4 |
		    axg_hexval((unsigned char)s[2 * i + 1]));
	r[n / 2] = '\0';
	*out = axv_string_own(r, n / 2);
	return AXP_BI_OK;
}

/* ---- urlquery (Go's url.QueryEscape / QueryUnescape / ParseQuery) ---- */

static void
query_escape(const char *s, size_t n, struct axg_buf *b)
{
	static const char hx[] = "0123456789ABCDEF";
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    c == '.' || c == '~')
			axg_buf_putc(b, (char)c);
		else if (c == ' ')
			axg_buf_putc(b, '+');
		else {
			char e[3] = { '%', hx[c >> 4], hx[c & 15] };
			axg_buf_append(b, e, 3);
		}
	}
}

/* Decode s[0..n) into b; -1 with the bad escape copied into bad. */
static int
query_unescape(const char *s, size_t n, struct axg_buf *b, char *bad,
    size_t badlen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			int h, l;
			if (i + 2 >= n) {
				size_t k = n - i < 3 ? n - i : 3;
				snprintf(bad, badlen, "%.*s", (int)k, s + i);
				return -1;
			}
			h = axg_hexval((unsigned char)s[i + 1]);
			l = axg_hexval((unsigned char)s[i + 2]);
			if (h < 0 || l < 0) {
				snprintf(bad, badlen, "%.3s", s + i);
				return -1;
			}
			axg_buf_putc(b, (char)(h << 4 | l));
			i += 2;
		} else if (s[i] == '+')
			axg_buf_putc(b, ' ');
		else
			axg_buf_putc(b, s[i]);
	}
	return 0;
}

static int
bi_urlquery_encode(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	query_escape(axv_str(args[0]), axv_strlen(args[0]), &b);
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

static int
bi_urlquery_decode(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;
	char bad[8];

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	if (query_unescape(axv_str(args[0]), axv_strlen(args[0]), &b, bad,
		sizeof(bad)) < 0) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "invalid URL escape \"%s\"", bad);
	}
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

static void
query_pair(struct axg_buf *b, const struct axv *k, const struct axv *v)
{
	if (b->len > 0)
		axg_buf_putc(b, '&');
	query_escape(axv_str(k), axv_strlen(k), b);
	axg_buf_putc(b, '=');
	query_escape(axv_str(v), axv_strlen(v), b);
}

static int
bi_urlquery_encode_object(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;
	size_t i, j, n;

	if (!axp_bi_want(ctx, args, 1, AXV_OBJECT))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	for (i = 0; i < axv_object_len(args[0]); i++) {
		const struct axv *k = axv_object_key(args[0], i);
		const struct axv *v = axv_object_val(args[0], i);
		enum axv_kind vk = axv_kind(v);

		if (axv_kind(k) != AXV_STRING) {
			axg_buf_free(&b);
			return axp_bi_type_error(ctx, 1,
			    "object with string keys", args[0]);
		}
		if (vk == AXV_STRING) {
			query_pair(&b, k, v);
			continue;
		}
		if (vk != AXV_ARRAY && vk != AXV_SET) {
			axg_buf_free(&b);
			return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "query parameters must be strings or arrays of "
			    "strings");
		}
		n = vk == AXV_SET ? axv_set_len(v) : axv_array_len(v);
		for (j = 0; j < n; j++) {
			const struct axv *e = vk == AXV_SET
			    ? axv_set_at(v, j)
			    : axv_array_get(v, j);
			if (axv_kind(e) != AXV_STRING) {
				axg_buf_free(&b);
				return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
				    "multiple value types not allowed");
			}
			query_pair(&b, k, e);
		}
	}
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

static int
bi_urlquery_decode_object(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	const char *s, *end, *seg, *amp, *eq;
	struct axv *obj;
	struct axg_buf kb, vb;
	char bad[8], firsterr[96] = "";

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	s = axv_str(args[0]);
	end = s + axv_strlen(args[0]);
	obj = axv_object_new(0);
	axg_buf_init(&kb, 0);
	axg_buf_init(&vb, 0);
	for (seg = s; seg < end; seg = amp + 1) {
		struct axv *key, *arr, *old, *na;
		size_t i;

		amp = memchr(seg, '&', (size_t)(end - seg));
		if (amp == NULL)
			amp = end;
		if (amp == seg)
			continue;
		if (memchr(seg, ';', (size_t)(amp - seg)) != NULL) {
			if (firsterr[0] == '\0')
				snprintf(firsterr, sizeof(firsterr),
				    "invalid semicolon separator in query");
			continue;
		}
		eq = memchr(seg, '=', (size_t)(amp - seg));
		axg_buf_reset(&kb);
		axg_buf_reset(&vb);
		if (query_unescape(seg, (size_t)((eq ? eq : amp) - seg), &kb,
			bad, sizeof(bad)) < 0 ||
		    (eq &&
			query_unescape(eq + 1, (size_t)(amp - eq - 1), &vb, bad,
			    sizeof(bad)) < 0)) {
			if (firsterr[0] == '\0')
				snprintf(firsterr, sizeof(firsterr),
				    "invalid URL escape \"%s\"", bad);
			continue;
		}
		key = axv_string(kb.data ? kb.data : "", kb.len);
		old = axv_object_get(obj, key);
		na = axv_array_new(old ? axv_array_len(old) + 1 : 1);
		for (i = 0; old && i < axv_array_len(old); i++)
			axv_array_push(na, axv_ref(axv_array_get(old, i)));
		arr = axv_string(vb.data ? vb.data : "", vb.len);
		axv_array_push(na, arr);
		axv_object_put(obj, key, na);
		if (amp == end)
			break;
	}
	axg_buf_free(&kb);
	axg_buf_free(&vb);
	if (firsterr[0] != '\0') {
		axv_unref(obj);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "%s", firsterr);
	}
	*out = obj;
	return AXP_BI_OK;
}

/* ---- json ---- */

static int
bi_json_marshal(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	struct axg_buf b;

	axg_buf_init(&b, 0);
	if (axv_go_json(args[0], &b, NULL, NULL) < 0) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "value nested too deeply");
	}
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

static int
bi_json_marshal_with_options(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	const char *prefix = "", *indent = "\t";
	bool implicit = false, explicit_set = false, pretty = false;
	struct axg_buf b;
	size_t i;

	if (!axp_bi_want(ctx, args, 2, AXV_OBJECT))
		return AXP_BI_ERROR;
	for (i = 0; i < axv_object_len(args[1]); i++) {
		const struct axv *k = axv_object_key(args[1], i);
		const struct axv *v = axv_object_val(args[1], i);

		if (axv_kind(k) != AXV_STRING)
			return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
			    "operand 2 must be an object with string keys");
		if (strcmp(axv_str(k), "prefix") == 0) {
			if (axv_kind(v) != AXV_STRING)
				return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
				    "operand 2 prefix option must be a "
				    "string");
			prefix = axv_str(v);
			implicit = true;
		} else if (strcmp(axv_str(k), "indent") == 0) {
			if (axv_kind(v) != AXV_STRING)
				return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
				    "operand 2 indent option must be a "
				    "string");
			indent = axv_str(v);
			implicit = true;
		} else if (strcmp(axv_str(k), "pretty") == 0) {
			if (axv_kind(v) != AXV_BOOL)
				return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
				    "operand 2 pretty option must be a "
				    "boolean");
			explicit_set = true;
			pretty = axv_bool_get(v);
		} else
			return axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
			    "operand 2 object contained unknown key %s",
			    axv_str(k));
	}
	if (!explicit_set)
		pretty = implicit;
	axg_buf_init(&b, 0);
	if (pretty)
		axg_buf_puts(&b, prefix);
	if (axv_go_json(args[0], &b, prefix, pretty ? indent : NULL) < 0) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "value nested too deeply");
	}
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

static int
bi_json_unmarshal(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	char err[160];
	struct axv *v;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	v = axv_json_parse(axv_str(args[0]), axv_strlen(args[0]), err,
	    sizeof(err));
	if (v == NULL)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "%s", err);
	*out = v;
	return AXP_BI_OK;
}

static int
bi_json_is_valid(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	char err[160];
	struct axv *v;

	(void)ctx;
	if (axv_kind(args[0]) != AXV_STRING) {
		*out = axv_bool(false);
		return AXP_BI_OK;
	}
	v = axv_json_parse(axv_str(args[0]), axv_strlen(args[0]), err,
	    sizeof(err));
	*out = axv_bool(v != NULL);
	axv_unref(v);
	return AXP_BI_OK;
}

/* ---- yaml: decoding (YAML 1.1 scalars, as Go's yaml.v2 resolves them) */

struct yanchor {
	char *name;
	struct axv *v;
	size_t nodes;
};

struct ydec {
	yaml_parser_t p;
	struct yanchor *anchors;
	size_t nanchors;
	size_t nodes;
	char err[200];
};

static bool
in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static const char *const y_null[] = { "", "~", "null", "Null", "NULL", NULL };
static const char *const y_true[] = { "true", "True", "TRUE", "y", "Y", "yes",
	"Yes", "YES", "on", "On", "ON", NULL };
static const char *const y_false[] = { "false", "False", "FALSE", "n", "N",
	"no", "No", "NO", "off", "Off", "OFF", NULL };
static const char *const y_inf[] = { ".inf", ".Inf", ".INF", "+.inf", "+.Inf",
	"+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN", NULL };

/* An integer in Go's ParseInt(s, 0, 64) syntax (underscores allowed), or
 * a YAML float; NULL if s is neither. */
static struct axv *
y_number(const char *s)
{
	char buf[128];
	size_t i, n = 0;
	const char *d;
	int base = 10;
	bool neg = false;
	char *endp;

	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == '_')
			continue;
		if (n + 1 >= sizeof(buf))
			return NULL;
		buf[n++] = s[i];
	}
	buf[n] = '\0';
	if (n == 0)
		return NULL;
	d = buf;
	if (*d == '+' || *d == '-')
		neg = *d++ == '-';
	if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
		base = 16, d += 2;
	else if (d[0] == '0' && (d[1] == 'b' || d[1] == 'B'))
		base = 2, d += 2;
	else if (d[0] == '0' && (d[1] == 'o' || d[1] == 'O'))
		base = 8, d += 2;
	else if (d[0] == '0' && d[1] != '\0' &&
	    strspn(d, "01234567") == strlen(d))
		base = 8, d += 1;
	if (base != 10) {
		unsigned long long u;
		if (*d == '\0' || *d == '-' || *d == '+')
			return NULL;
		errno = 0;
		u = strtoull(d, &endp, base);
		if (*endp != '\0' || errno != 0 ||
		    u > (unsigned long long)INT64_MAX)
			return NULL;
		return axv_int(neg ? -(int64_t)u : (int64_t)u);
	}
	if (strspn(d, "0123456789") == strlen(d) && *d != '\0') {
		const char *t = buf[0] == '+' ? buf + 1 : buf;
		/* "007" is octal above; decimals keep exact big values */
		return axv_number_parse(t, strlen(t));
	}
	/* float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
	{
		const char *p = d;
		size_t ip = strspn(p, "0123456789"), fp = 0;
		double v;
		p += ip;
		if (*p == '.') {
			p++;
			fp = strspn(p, "0123456789");
			p += fp;
		} else if (ip == 0)
			return NULL;
		if (ip == 0 && fp == 0)
			return NULL;
		if (*p == 'e' || *p == 'E') {
			p++;
			if (*p == '+' || *p == '-')
				p++;
			if (strspn(p, "0123456789") == 0)
				return NULL;
			p += strspn(p, "0123456789");
		}
		if (*p != '\0')
			return NULL;
		errno = 0;
		v = strtod(buf, &endp);
		if (*endp != '\0' || !isfinite(v))
			return NULL;
		return axv_double(v);
	}
}

static void
ydec_fail(struct ydec *d)
{
	const yaml_parser_t *p = &d->p;
	size_t line = p->problem_mark.line;

	if (p->error == YAML_SCANNER_ERROR)
		line++;
	else if (line == 0)
		line = p->context_mark.line ? p->context_mark.line : 0;
	if (line == 0)
		line = 1;
	snprintf(d->err, sizeof(d->err), "yaml: line %zu: %s", line,
	    p->problem ? p->problem : "syntax error");
}

static struct axv *
ydec_node(struct ydec *d, yaml_event_t *ev, int depth, size_t *nodes);

static void
ydec_anchor(struct ydec *d, const yaml_char_t *name, struct axv *v,
    size_t nodes)
{
	size_t i;

	if (name == NULL)
		return;
	for (i = 0; i < d->nanchors; i++)
		if (strcmp(d->anchors[i].name, (const char *)name) == 0) {
			axv_unref(d->anchors[i].v);
			d->anchors[i].v = axv_ref(v);
			d->anchors[i].nodes = nodes;
			return;
		}
	d->anchors =
	    axg_realloc(d->anchors, (d->nanchors + 1) * sizeof(*d->anchors));
	d->anchors[d->nanchors].name = axg_strdup((const char *)name);
	d->anchors[d->nanchors].v = axv_ref(v);
	d->anchors[d->nanchors].nodes = nodes;
	d->nanchors++;
}

static bool
ynext(struct ydec *d, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&d->p, ev)) {
		ydec_fail(d);
		return false;
	}
	return true;
}

static struct axv *
ydec_scalar(struct ydec *d, yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	const char *tag = (const char *)ev->data.scalar.tag;
	struct axv *v;

	if (tag != NULL && strcmp(tag, YAML_STR_TAG) == 0)
		return axv_string(s, n);
	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE &&
	    (tag == NULL || strcmp(tag, "!") == 0))
		return axv_string(s, n);
	if (strlen(s) != n)
		return axv_string(s, n);
	if (in_list(s, y_null))
		return axv_null();
	if (in_list(s, y_true))
		return axv_bool(true);
	if (in_list(s, y_false))
		return axv_bool(false);
	if (in_list(s, y_inf)) {
		snprintf(d->err, sizeof(d->err), "json: unsupported value: %s",
		    s);
		return NULL;
	}
	v = y_number(s);
	if (v != NULL)
		return v;
	return axv_string(s, n);
}

/* A mapping key as a string (sigs.k8s.io/yaml turns scalar keys into
 * their text). */
static struct axv *
ykey(struct ydec *d, struct axv *k)
{
	struct axg_buf b;

	switch (axv_kind(k)) {
	case AXV_STRING:
		return axv_ref(k);
	case AXV_NULL:
		return axv_cstr("null");
	case AXV_BOOL:
		return axv_cstr(axv_bool_get(k) ? "true" : "false");
	case AXV_NUMBER:
		axg_buf_init(&b, 0);
		axv_num_format(k, &b);
		return axv_string_buf(&b);
	default:
		snprintf(d->err, sizeof(d->err), "yaml: invalid map key: %s",
		    axv_type_name(k));
		return NULL;
	}
}

static struct axv *
ydec_node(struct ydec *d, yaml_event_t *ev, int depth, size_t *nodes)
{
	struct axv *v = NULL, *k = NULL, *e;
	yaml_event_t c;
	const yaml_char_t *anchor = NULL;
	size_t i, sub;

	*nodes = 1;
	if (depth > ENC_MAX_DEPTH) {
		snprintf(d->err, sizeof(d->err),
		    "yaml: exceeded max depth of %d", ENC_MAX_DEPTH);
		return NULL;
	}
	if (++d->nodes > YAML_MAX_NODES) {
		snprintf(d->err, sizeof(d->err),
		    "yaml: document contains excessive aliasing");
		return NULL;
	}
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		for (i = 0; i < d->nanchors; i++)
			if (strcmp(d->anchors[i].name,
				(const char *)ev->data.alias.anchor) == 0)
				break;
		if (i == d->nanchors) {
			snprintf(d->err, sizeof(d->err),
			    "yaml: unknown anchor '%s' referenced",
			    (const char *)ev->data.alias.anchor);
			return NULL;
		}
		d->nodes += d->anchors[i].nodes;
		if (d->nodes > YAML_MAX_NODES) {
			snprintf(d->err, sizeof(d->err),
			    "yaml: document contains excessive aliasing");
			return NULL;
		}
		*nodes = d->anchors[i].nodes;
		return axv_ref(d->anchors[i].v);
	case YAML_SCALAR_EVENT:
		anchor = ev->data.scalar.anchor;
		v = ydec_scalar(d, ev);
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor;
		v = axv_array_new(0);
		for (;;) {
			if (!ynext(d, &c))
				goto fail;
			if (c.type == YAML_SEQUENCE_END_EVENT) {
				yaml_event_delete(&c);
				break;
			}
			e = ydec_node(d, &c, depth + 1, &sub);
			yaml_event_delete(&c);
			if (e == NULL)
				goto fail;
			*nodes += sub;
			axv_array_push(v, e);
		}
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor;
		v = axv_object_new(0);
		for (;;) {
			struct axv *ks;
			if (!ynext(d, &c))
				goto fail;
			if (c.type == YAML_MAPPING_END_EVENT) {
				yaml_event_delete(&c);
				break;
			}
			k = ydec_node(d, &c, depth + 1, &sub);
			yaml_event_delete(&c);
			if (k == NULL)
				goto fail;
			ks = ykey(d, k);
			axv_unref(k);
			k = NULL;
			if (ks == NULL)
				goto fail;
			if (!ynext(d, &c)) {
				axv_unref(ks);
				goto fail;
			}
			e = ydec_node(d, &c, depth + 1, &sub);
			yaml_event_delete(&c);
			if (e == NULL) {
				axv_unref(ks);
				goto fail;
			}
			*nodes += sub + 1;
			axv_object_put(v, ks, e);
		}
		break;
	default:
		snprintf(d->err, sizeof(d->err), "yaml: unexpected event");
		return NULL;
	}
	if (v != NULL && anchor != NULL) {
		if (d->nanchors >= YAML_MAX_ANCHORS) {
			snprintf(d->err, sizeof(d->err),
			    "yaml: too many anchors");
			goto fail;
		}
		ydec_anchor(d, anchor, v, *nodes);
	}
	return v;
fail:
	axv_unref(v);
	return NULL;
}

struct axv *
axv_yaml_decode(const char *s, size_t n, char *err, size_t errlen)
{
	struct ydec d;
	yaml_event_t ev;
	struct axv *v = NULL;
	size_t i, nodes;
	bool started = false;

	memset(&d, 0, sizeof(d));
	if (!yaml_parser_initialize(&d.p)) {
		snprintf(err, errlen, "yaml: out of memory");
		return NULL;
	}
	yaml_parser_set_input_string(&d.p, (const unsigned char *)s, n);
	for (;;) {
		if (!ynext(&d, &ev))
			break;
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			if (v == NULL && d.err[0] == '\0')
				v = axv_null();
			break;
		}
		if (ev.type == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			if (started)
				break;
			started = true;
			continue;
		}
		if (ev.type == YAML_STREAM_START_EVENT ||
		    ev.type == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		v = ydec_node(&d, &ev, 0, &nodes);
		yaml_event_delete(&ev);
		if (v == NULL)
			break;
	}
	if (d.err[0] != '\0') {
		axv_unref(v);
		v = NULL;
		snprintf(err, errlen, "%s", d.err);
	}
	for (i = 0; i < d.nanchors; i++) {
		free(d.anchors[i].name);
		axv_unref(d.anchors[i].v);
	}
	free(d.anchors);
	yaml_parser_delete(&d.p);
	return v;
}

static int
bi_yaml_unmarshal(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	char err[256];
	struct axv *v;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	v = axv_yaml_decode(axv_str(args[0]), axv_strlen(args[0]), err,
	    sizeof(err));
	if (v == NULL)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "%s", err);
	*out = v;
	return AXP_BI_OK;
}

static int
bi_yaml_is_valid(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	char err[256];
	struct axv *v;

	(void)ctx;
	if (axv_kind(args[0]) != AXV_STRING) {
		*out = axv_bool(false);
		return AXP_BI_OK;
	}
	v = axv_yaml_decode(axv_str(args[0]), axv_strlen(args[0]), err,
	    sizeof(err));
	*out = axv_bool(v != NULL);
	axv_unref(v);
	return AXP_BI_OK;
}

/* ---- yaml: encoding (block style, as yaml.v2 writes it) ---- */

static int
yaml_write(void *data, unsigned char *buf, size_t size)
{
	return axg_buf_append(data, buf, size) == 0;
}

/* Would this string, written plain, read back as something else? */
static bool
y_needs_quotes(const char *s, size_t n)
{
	struct axv *v;

	if (strlen(s) != n)
		return true;
	if (in_list(s, y_null) || in_list(s, y_true) || in_list(s, y_false) ||
	    in_list(s, y_inf))
		return true;
	v = y_number(s);
	if (v != NULL) {
		axv_unref(v);
		return true;
	}
	return false;
}

static int
yenc_scalar(yaml_emitter_t *em, const char *s, size_t n,
    yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
		(yaml_char_t *)(uintptr_t)s, (int)n, 1, 1, style))
		return -1;
	return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int
yenc_str(yaml_emitter_t *em, const char *s, size_t n)
{
	if (y_needs_quotes(s, n))
		return yenc_scalar(em, s, n, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	if (memchr(s, '\n', n) != NULL)
		return yenc_scalar(em, s, n, YAML_LITERAL_SCALAR_STYLE);
	return yenc_scalar(em, s, n, YAML_PLAIN_SCALAR_STYLE);
}

static int
yenc(yaml_emitter_t *em, const struct axv *v, int depth)
{
	yaml_event_t ev;
	struct axg_buf b;
	size_t i, n;
	int rc;
	char *t;

	if (depth > ENC_MAX_DEPTH)
		return -1;
	switch (axv_kind(v)) {
	case AXV_NULL:
		return yenc_scalar(em, "null", 4, YAML_PLAIN_SCALAR_STYLE);
	case AXV_BOOL:
		return axv_bool_get(v)
		    ? yenc_scalar(em, "true", 4, YAML_PLAIN_SCALAR_STYLE)
		    : yenc_scalar(em, "false", 5, YAML_PLAIN_SCALAR_STYLE);
	case AXV_NUMBER:
		axg_buf_init(&b, 0);
		axv_num_format(v, &b);
		rc = yenc_scalar(em, b.data, b.len, YAML_PLAIN_SCALAR_STYLE);
		axg_buf_free(&b);
		return rc;
	case AXV_STRING:
		return yenc_str(em, axv_str(v), axv_strlen(v));
	case AXV_ARRAY:
	case AXV_SET:
		n = axv_kind(v) == AXV_SET ? axv_set_len(v) : axv_array_len(v);
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
		    YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return -1;
		for (i = 0; i < n; i++)
			if (yenc(em,
				axv_kind(v) == AXV_SET ? axv_set_at(v, i)
						       : axv_array_get(v, i),
				depth + 1) < 0)
				return -1;
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) ? 0 : -1;
	case AXV_OBJECT:
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
		    YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return -1;
		for (i = 0; i < axv_object_len(v); i++) {
			const struct axv *k = axv_object_key(v, i);
			if (axv_kind(k) == AXV_STRING)
				rc = yenc_str(em, axv_str(k), axv_strlen(k));
			else {
				t = axv_to_rego_string(k);
				rc = yenc_str(em, t, strlen(t));
				free(t);
			}
			if (rc < 0 ||
			    yenc(em, axv_object_val(v, i), depth + 1) < 0)
				return -1;
		}
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) ? 0 : -1;
	}
	return -1;
}

static int
bi_yaml_marshal(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	struct axg_buf b;
	int ok = 0;

	axg_buf_init(&b, 0);
	if (!yaml_emitter_initialize(&em))
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "out of memory");
	yaml_emitter_set_output(&em, yaml_write, &b);
	yaml_emitter_set_unicode(&em, 1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	ok = yaml_emitter_emit(&em, &ev);
	if (ok) {
		yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
		ok = yaml_emitter_emit(&em, &ev);
	}
	if (ok)
		ok = yenc(&em, args[0], 0) == 0;
	if (ok) {
		yaml_document_end_event_initialize(&ev, 1);
		ok = yaml_emitter_emit(&em, &ev);
	}
	if (ok) {
		yaml_stream_end_event_initialize(&ev);
		ok = yaml_emitter_emit(&em, &ev);
	}
	if (ok)
		ok = yaml_emitter_flush(&em);
	yaml_emitter_delete(&em);
	if (!ok) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "cannot encode value as YAML");
	}
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_encoding[] = {
	{ "base64.encode", 1, bi_base64_encode, "(string) => string", 0 },
	{ "base64.decode", 1, bi_base64_decode, "(string) => string", 0 },
	{ "base64.is_valid", 1, bi_base64_is_valid, "(string) => boolean", 0 },
	{ "base64url.encode", 1, bi_base64url_encode, "(string) => string", 0 },
	{ "base64url.encode_no_pad", 1, bi_base64url_encode_no_pad,
	    "(string) => string", 0 },
	{ "base64url.decode", 1, bi_base64url_decode, "(string) => string", 0 },
	{ "hex.encode", 1, bi_hex_encode, "(string) => string", 0 },
	{ "hex.decode", 1, bi_hex_decode, "(string) => string", 0 },
	{ "urlquery.encode", 1, bi_urlquery_encode, "(string) => string", 0 },
	{ "urlquery.decode", 1, bi_urlquery_decode, "(string) => string", 0 },
	{ "urlquery.encode_object", 1, bi_urlquery_encode_object,
	    "(object[string: any<string, array[string], set[string]>]) => "
	    "string",
	    0 },
	{ "urlquery.decode_object", 1, bi_urlquery_decode_object,
	    "(string) => object[string: array[string]]", 0 },
	{ "json.marshal", 1, bi_json_marshal, "(any) => string", 0 },
	{ "json.marshal_with_options", 2, bi_json_marshal_with_options,
	    "(any, object) => string", 0 },
	{ "json.unmarshal", 1, bi_json_unmarshal, "(string) => any", 0 },
	{ "json.is_valid", 1, bi_json_is_valid, "(string) => boolean", 0 },
	{ "yaml.marshal", 1, bi_yaml_marshal, "(any) => string", 0 },
	{ "yaml.unmarshal", 1, bi_yaml_unmarshal, "(string) => any", 0 },
	{ "yaml.is_valid", 1, bi_yaml_is_valid, "(string) => boolean", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
