/* value-json.c: JSON text to values and back, and Rego term text. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/value-build.h"
#include "policy/value-int.h"

struct jp {
	const char *s, *end, *p;
	int depth, max_depth;
	char *err;
	size_t errlen;
	bool failed;
	/* Scratch stacks: the members of the objects and arrays being read,
	 * so that each is allocated once at its final size. */
	struct axv_kv *kv;
	size_t nkv, capkv;
	struct axv **el;
	size_t nel, capel;
};

static void
jp_push_kv(struct jp *j, struct axv *k, struct axv *v)
{
	if (j->nkv == j->capkv) {
		j->capkv = j->capkv ? j->capkv * 2 : 64;
		j->kv = axg_reallocarray(j->kv, j->capkv, sizeof(*j->kv));
	}
	j->kv[j->nkv].k = k;
	j->kv[j->nkv].v = v;
	j->nkv++;
}

static void
jp_push_el(struct jp *j, struct axv *v)
{
	if (j->nel == j->capel) {
		j->capel = j->capel ? j->capel * 2 : 64;
		j->el = axg_reallocarray(j->el, j->capel, sizeof(*j->el));
	}
	j->el[j->nel++] = v;
}

/* Release the scratch entries above the given marks. */
static void
jp_drop(struct jp *j, size_t kv_base, size_t el_base)
{
	while (j->nkv > kv_base) {
		j->nkv--;
		axv_unref(j->kv[j->nkv].k);
		axv_unref(j->kv[j->nkv].v);
	}
	while (j->nel > el_base) {
		j->nel--;
		axv_unref(j->el[j->nel]);
	}
}

static void
jp_error(struct jp *j, const char *what)
{
	int line = 1, col = 1;
	const char *q;

	if (j->failed)
		return;
	j->failed = true;
	for (q = j->s; q < j->p && q < j->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	axg_seterr(j->err, j->errlen, "line %d, column %d: %s", line, col,
	    what);
}

static void
jp_ws(struct jp *j)
{
	while (j->p < j->end &&
	    (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static void
put_utf8(struct axg_buf *b, uint32_t cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	axg_buf_append(b, u, n);
}

static int
read_hex4(const char *p, const char *end, uint32_t *out)
{
	uint32_t v = 0;
	int i, h;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if ((h = axg_hexval(p[i])) < 0)
			return -1;
		v = v << 4 | (uint32_t)h;
	}
	*out = v;
	return 0;
}

/* Decode a JSON string body starting after the opening quote.  On success
 * *stop points after the closing quote. */
int
axv_json_unquote(const char *p, const char *end, struct axg_buf *b,
    const char **stop, const char **why)
{
	const char *run = p;

	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (c == '"') {
			axg_buf_append(b, run, (size_t)(p - run));
			*stop = p + 1;
			return 0;
		}
		if (c < 0x20) {
			*stop = p;
			*why = "control character in string";
			return -1;
		}
		if (c != '\\') {
			p++;
			continue;
		}
		axg_buf_append(b, run, (size_t)(p - run));
		p++;
		if (p >= end)
			break;
		switch (*p) {
		case '"':
		case '\\':
		case '/':
			axg_buf_putc(b, *p);
			p++;
			break;
		case 'b':
			axg_buf_putc(b, '\b'), p++;
			break;
		case 'f':
			axg_buf_putc(b, '\f'), p++;
			break;
		case 'n':
			axg_buf_putc(b, '\n'), p++;
			break;
		case 'r':
			axg_buf_putc(b, '\r'), p++;
			break;
		case 't':
			axg_buf_putc(b, '\t'), p++;
			break;
		case 'u': {
			uint32_t cp, lo;
			if (read_hex4(p + 1, end, &cp) < 0) {
				*stop = p;
				*why = "bad \\u escape";
				return -1;
			}
			p += 5;
			if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u' &&
			    read_hex4(p + 2, end, &lo) == 0 && lo >= 0xdc00 &&
			    lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
				p += 6;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			put_utf8(b, cp);
			break;
		}
		default:
			*stop = p;
			*why = "bad escape in string";
			return -1;
		}
		run = p;
	}
	*stop = end;
	*why = "unterminated string";
	return -1;
}

static struct axv *jp_value(struct jp *j);

static struct axv *
jp_string(struct jp *j)
{
	struct axg_buf b;
	const char *stop, *why, *q = j->p + 1;
	bool ascii = true;
	struct axv *v;

	/* Fast path: no escapes (the usual case): one copy, straight from the
	 * text into the value. */
	while (q < j->end) {
		unsigned char c = (unsigned char)*q;

		if (c == '"' || c == '\\' || c < 0x20)
			break;
		ascii &= c < 0x80;
		q++;
	}
	if (q < j->end && *q == '"') {
		const char *st = j->p + 1;
		size_t n = (size_t)(q - st);

		if (!ascii && !axg_utf8_valid(st, n)) {
			j->p = st;
			jp_error(j, "invalid UTF-8 in string");
			return NULL;
		}
		j->p = q + 1;
		return axv_string(st, n);
	}
	axg_buf_init(&b, 0);
	j->p++;
	if (axv_json_unquote(j->p, j->end, &b, &stop, &why) < 0) {
		j->p = stop;
		jp_error(j, why);
		axg_buf_free(&b);
		return NULL;
	}
	if (!axg_utf8_valid(b.data ? b.data : "", b.len)) {
		jp_error(j, "invalid UTF-8 in string");
		axg_buf_free(&b);
		return NULL;
	}
	j->p = stop;
	v = axv_string(b.data ? b.data : "", b.len);
	axg_buf_free(&b);
	return v;
}

static bool
num_char(char c)
{
	return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' ||
	    c == 'e' || c == 'E';
}

static struct axv *
jp_number(struct jp *j)
{
	const char *st = j->p, *q = j->p;
	struct axv *v;
	bool neg = false;
	int64_t n = 0;

	/* Fast path: a plain integer of at most 18 digits. */
	if (*q == '-')
		neg = true, q++;
	while (q < j->end && *q >= '0' && *q <= '9' && q - st - neg < 18) {
		n = n * 10 + (*q - '0');
		q++;
	}
	if (q > st + neg && (q == j->end || !num_char(*q))) {
		j->p = q;
		return axv_int(neg ? -n : n);
	}
	while (j->p < j->end && num_char(*j->p))
		j->p++;
	v = axv_number_parse(st, (size_t)(j->p - st));
	if (v == NULL) {
		j->p = st;
		jp_error(j, "bad number");
	}
	return v;
}

static bool
jp_lit(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) >= n && memcmp(j->p, w, n) == 0) {
		j->p += n;
		return true;
	}
	return false;
}

static struct axv *
jp_value(struct jp *j)
{
	struct axv *v = NULL, *k, *e;
	size_t kv_base = j->nkv, el_base = j->nel;

	jp_ws(j);
	if (j->p >= j->end) {
		jp_error(j, "unexpected end of input");
		return NULL;
	}
	switch (*j->p) {
	case '{':
		if (++j->depth > j->max_depth) {
			jp_error(j, "nesting too deep");
			return NULL;
		}
		j->p++;
		jp_ws(j);
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			j->depth--;
			return axv_object_new(0);
		}
		for (;;) {
			jp_ws(j);
			if (j->p >= j->end || *j->p != '"') {
				jp_error(j, "expected a string key");
				goto fail;
			}
			if ((k = jp_string(j)) == NULL)
				goto fail;
			jp_ws(j);
			if (j->p >= j->end || *j->p != ':') {
				axv_unref(k);
				jp_error(j, "expected ':'");
				goto fail;
			}
			j->p++;
			if ((e = jp_value(j)) == NULL) {
				axv_unref(k);
				goto fail;
			}
			jp_push_kv(j, k, e);
			jp_ws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == '}') {
				j->p++;
				break;
			}
			jp_error(j, "expected ',' or '}'");
			goto fail;
		}
		j->depth--;
		/* Sorted once, not key by key. */
		v = axv_object_build(j->kv + kv_base, j->nkv - kv_base);
		j->nkv = kv_base;
		return v;
	case '[':
		if (++j->depth > j->max_depth) {
			jp_error(j, "nesting too deep");
			return NULL;
		}
		j->p++;
		jp_ws(j);
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			j->depth--;
			return axv_array_new(0);
		}
		for (;;) {
			if ((e = jp_value(j)) == NULL)
				goto fail;
			jp_push_el(j, e);
			jp_ws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == ']') {
				j->p++;
				break;
			}
			jp_error(j, "expected ',' or ']'");
			goto fail;
		}
		j->depth--;
		v = axv_array_new(j->nel - el_base);
		for (size_t i = el_base; i < j->nel; i++)
			axv_array_push(v, j->el[i]);
		j->nel = el_base;
		return v;
	case '"':
		return jp_string(j);
	case 't':
		if (jp_lit(j, "true"))
			return axv_bool(true);
		break;
	case 'f':
		if (jp_lit(j, "false"))
			return axv_bool(false);
		break;
	case 'n':
		if (jp_lit(j, "null"))
			return axv_null();
		break;
	default:
		if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
			return jp_number(j);
		break;
	}
	jp_error(j, "unexpected character");
	return NULL;
fail:
	jp_drop(j, kv_base, el_base);
	axv_unref(v);
	return NULL;
}

struct axv *
axv_from_json(const char *text, size_t len, const struct axv_json_limits *lim,
    char *err, size_t errlen)
{
	struct jp j;
	struct axv *v;

	memset(&j, 0, sizeof(j));
	j.s = j.p = text;
	j.end = text + len;
	j.err = err;
	j.errlen = errlen;
	j.max_depth = lim && lim->max_depth > 0 ? lim->max_depth : 1000;
	if (lim && lim->max_bytes > 0 && len > lim->max_bytes) {
		axg_seterr(err, errlen,
		    "document too large (%zu bytes, limit %zu)", len,
		    lim->max_bytes);
		return NULL;
	}
	v = jp_value(&j);
	free(j.kv);
	free(j.el);
	if (v == NULL)
		return NULL;
	jp_ws(&j);
	if (j.p != j.end) {
		jp_error(&j, "trailing characters after the document");
		axv_unref(v);
		return NULL;
	}
	return v;
}

/* ---- output ---- */
static int
put_json_string(struct axg_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	axg_buf_putc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char u[7];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		axg_buf_append(b, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		default:
			u[0] = '\\';
			u[1] = 'u';
			u[2] = '0';
			u[3] = '0';
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
			u[6] = 0;
			esc = u;
			break;
		}
		axg_buf_puts(b, esc);
	}
	axg_buf_append(b, s + run, n - run);
	return axg_buf_putc(b, '"');
}

static void
indent(struct axg_buf *b, int depth)
{
	int i;

	axg_buf_putc(b, '\n');
	for (i = 0; i < depth; i++)
		axg_buf_puts(b, "  ");
}

static int
put_value(const struct axv *v, struct axg_buf *b, bool rego, int pretty_depth);

static int
put_seq(struct axv *const *e, size_t n, struct axg_buf *b, bool rego, int pd,
    char open, char close)
{
	size_t i;

	axg_buf_putc(b, open);
	for (i = 0; i < n; i++) {
		if (i > 0)
			axg_buf_puts(b, rego ? ", " : ",");
		if (pd >= 0)
			indent(b, pd + 1);
		put_value(e[i], b, rego, pd >= 0 ? pd + 1 : -1);
	}
	if (pd >= 0 && n > 0)
		indent(b, pd);
	return axg_buf_putc(b, close);
}

static int
put_value(const struct axv *v, struct axg_buf *b, bool rego, int pd)
{
	size_t i;

	switch (v->kind) {
	case AXV_NULL:
		return axg_buf_puts(b, "null");
	case AXV_BOOL:
		return axg_buf_puts(b, v->sub ? "true" : "false");
	case AXV_NUMBER:
		if (axv_num_literal(v) != NULL)
			return axg_buf_puts(b, axv_num_literal(v));
		return axv_num_format(v, b);
	case AXV_STRING:
		return put_json_string(b, AXV_STR(v)->s, AXV_STR(v)->len);
	case AXV_ARRAY:
		return put_seq(AXV_ARR(v)->e, AXV_ARR(v)->len, b, rego, pd, '[',
		    ']');
	case AXV_SET:
		if (rego && AXV_SET(v)->len == 0)
			return axg_buf_puts(b, "set()");
		return put_seq(AXV_SET(v)->e, AXV_SET(v)->len, b, rego, pd,
		    rego ? '{' : '[', rego ? '}' : ']');
	case AXV_OBJECT: {
		const struct axv_obj *o = AXV_OBJ(v);
		axg_buf_putc(b, '{');
		for (i = 0; i < o->len; i++) {
			if (i > 0)
				axg_buf_puts(b, rego ? ", " : ",");
			if (pd >= 0)
				indent(b, pd + 1);
			if (rego || o->k[i]->kind == AXV_STRING) {
				put_value(o->k[i], b, rego, -1);
			} else {
				char *t = axv_json_str(o->k[i]);
				put_json_string(b, t, strlen(t));
				free(t);
			}
			axg_buf_puts(b, pd >= 0 || rego ? ": " : ":");
			put_value(o->v[i], b, rego, pd >= 0 ? pd + 1 : -1);
		}
		if (pd >= 0 && o->len > 0)
			indent(b, pd);
		return axg_buf_putc(b, '}');
	}
	}
	return -1;
}

int
axv_to_json(const struct axv *v, struct axg_buf *b, bool pretty)
{
	return put_value(v, b, false, pretty ? 0 : -1);
}

char *
axv_json_str(const struct axv *v)
{
	struct axg_buf b;

	axg_buf_init(&b, 0);
	axv_to_json(v, &b, false);
	return axg_buf_steal(&b, NULL);
}

int
axv_to_rego(const struct axv *v, struct axg_buf *b)
{
	return put_value(v, b, true, -1);
}

char *
axv_to_rego_string(const struct axv *v)
{
	struct axg_buf b;

	axg_buf_init(&b, 0);
	axv_to_rego(v, &b);
	return axg_buf_steal(&b, NULL);
}
