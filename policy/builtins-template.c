/*
 * builtins-template.c: strings.render_template, a subset of Go's
 * text/template as OPA exposes it.
 *
 * Text and {{ actions }} (with the {{- and -}} trim markers); an action is
 * a value: `.`, `.a.b`, `$v`, `$v.a`, a "string" or a number; blocks are
 * `if V` [`else`] `end` and `range [$k, ]$v := V` / `range V` [`else`]
 * `end`.  A missing key prints <undefined>, as OPA does.  Anything else is
 * an error rather than a guess.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "policy/builtins.h"

#define TMPL_MAX_DEPTH 32
#define TMPL_MAX_VARS  64
#define TMPL_MAX_OUT   (1u << 20)

struct tvar {
	const char *name;
	size_t len;
	struct axv *val; /* borrowed */
};

struct tmpl {
	struct axp_bctx *ctx;
	const char *p, *end;
	struct axg_buf *out;
	struct tvar vars[TMPL_MAX_VARS];
	size_t nvars;
	int depth;
	bool failed;
};

/* One action's text, between {{ and }}, trimmed of blanks. */
struct action {
	const char *s;
	size_t n;
};

static int
tfail(struct tmpl *t, const char *what)
{
	if (!t->failed)
		axp_bi_error(t->ctx, AXP_ERR_EVAL_BUILTIN, "template: %s",
		    what);
	t->failed = true;
	return -1;
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Copy text up to the next action (into out when emit), and read the
 * action.  0: an action read; 1: end of input; -1: error. */
static int
next_action(struct tmpl *t, bool emit, struct action *a)
{
	const char *open = NULL, *close, *s, *e;
	size_t tlen;

	for (const char *q = t->p; q + 1 < t->end; q++)
		if (q[0] == '{' && q[1] == '{') {
			open = q;
			break;
		}
	tlen = open != NULL ? (size_t)(open - t->p) : (size_t)(t->end - t->p);
	s = open != NULL ? open + 2 : NULL;
	/* {{- trims the blanks before it */
	if (s != NULL && s < t->end && *s == '-' && s + 1 < t->end &&
	    is_blank(s[1])) {
		while (tlen > 0 && is_blank(t->p[tlen - 1]))
			tlen--;
		s++;
	}
	if (emit && !t->failed)
		axg_buf_append(t->out, t->p, tlen);
	if (open == NULL) {
		t->p = t->end;
		return 1;
	}
	close = NULL;
	for (const char *q = s; q + 1 < t->end; q++)
		if (q[0] == '}' && q[1] == '}') {
			close = q;
			break;
		}
	if (close == NULL)
		return tfail(t, "unclosed action");
	e = close;
	t->p = close + 2;
	if (e > s && e[-1] == '-' && e - 1 > s && is_blank(e[-2])) {
		e--;
		while (t->p < t->end && is_blank(*t->p))
			t->p++;
	}
	while (s < e && is_blank(*s))
		s++;
	while (e > s && is_blank(e[-1]))
		e--;
	a->s = s;
	a->n = (size_t)(e - s);
	return 0;
}

static bool
word_is(const struct action *a, const char *w)
{
	size_t n = strlen(w);

	return a->n >= n && memcmp(a->s, w, n) == 0 &&
	    (a->n == n || is_blank(a->s[n]));
}

static struct axv *
lookup_var(struct tmpl *t, const char *name, size_t n)
{
	for (size_t i = t->nvars; i-- > 0;)
		if (t->vars[i].len == n &&
		    memcmp(t->vars[i].name, name, n) == 0)
			return t->vars[i].val;
	return NULL;
}

/* Evaluate one operand; *out borrowed or NULL (missing); new is set when
 * *out is a new reference. */
static int
operand(struct tmpl *t, const char *s, size_t n, struct axv *dot,
    struct axv **out, bool *fresh)
{
	struct axv *v;
	size_t i = 0;

	*fresh = false;
	*out = NULL;
	if (n == 0)
		return tfail(t, "missing value");
	if (s[0] == '"') {
		char err[128];
		struct axv *r = axv_from_json(s, n, NULL, err, sizeof(err));

		if (r == NULL || axv_kind(r) != AXV_STRING) {
			axv_unref(r);
			return tfail(t, "bad string");
		}
		*out = r;
		*fresh = true;
		return 0;
	}
	if ((s[0] >= '0' && s[0] <= '9') || s[0] == '-') {
		*out = axv_number_parse(s, n);
		if (*out == NULL)
			return tfail(t, "bad number");
		*fresh = true;
		return 0;
	}
	if (s[0] == '$') {
		for (i = 1; i < n && s[i] != '.'; i++)
			;
		v = lookup_var(t, s, i);
		if (v == NULL)
			return tfail(t, "undefined variable");
	} else if (s[0] == '.') {
		v = dot;
	} else {
		return tfail(t, "unsupported action");
	}
	while (i < n && v != NULL) {
		size_t j;
		struct axv *k;

		if (s[i] != '.')
			return tfail(t, "unsupported action");
		for (j = ++i; j < n && s[j] != '.'; j++)
			if (is_blank(s[j]))
				return tfail(t, "unsupported action");
		if (j == i)
			break; /* a lone "." */
		if (axv_kind(v) != AXV_OBJECT)
			return tfail(t, "field of a non-object");
		k = axv_string(s + i, j - i);
		v = axv_object_get(v, k);
		axv_unref(k);
		i = j;
	}
	*out = v;
	return 0;
}

static bool
truthy(const struct axv *v)
{
	if (v == NULL)
		return false;
	switch (axv_kind(v)) {
	case AXV_NULL:
		return false;
	case AXV_BOOL:
		return axv_bool_get(v);
	case AXV_NUMBER:
		return !axv_num_is_zero(v);
	case AXV_STRING:
		return axv_strlen(v) > 0;
	default:
		return axv_count(v) > 0;
	}
}

static void
print(struct tmpl *t, const struct axv *v)
{
	if (t->failed)
		return;
	if (v == NULL)
		axg_buf_puts(t->out, "<undefined>");
	else if (axv_kind(v) == AXV_STRING)
		axg_buf_append(t->out, axv_str(v), axv_strlen(v));
	else
		axv_to_json(v, t->out, false);
}

/* Run the list up to its end (or else): *stop gets "end", "else" or EOF
 * (NULL).  emit false skips output (an untaken branch). */
static int
run_list(struct tmpl *t, struct axv *dot, bool emit, const char **stop);

static int
run_if(struct tmpl *t, const struct action *a, struct axv *dot, bool emit)
{
	struct axv *v;
	bool fresh, cond;
	const char *stop;

	{
		const char *s = a->s + 2;
		size_t n = a->n - 2;

		while (n > 0 && is_blank(*s)) {
			s++;
			n--;
		}
		if (operand(t, s, n, dot, &v, &fresh) < 0)
			return -1;
	}
	cond = truthy(v);
	if (fresh)
		axv_unref(v);
	if (run_list(t, dot, emit && cond, &stop) < 0)
		return -1;
	if (stop == NULL)
		return tfail(t, "missing end");
	if (strcmp(stop, "else") == 0) {
		if (run_list(t, dot, emit && !cond, &stop) < 0)
			return -1;
		if (stop == NULL || strcmp(stop, "end") != 0)
			return tfail(t, "missing end");
	}
	return 0;
}

static int
run_range(struct tmpl *t, const struct action *a, struct axv *dot, bool emit)
{
	const char *s = a->s + 5, *e = a->s + a->n, *assign;
	struct action kv[2];
	size_t nkv = 0, n, base = t->nvars;
	struct axv *coll;
	bool fresh;
	const char *body, *stop = NULL;

	while (s < e && is_blank(*s))
		s++;
	assign = NULL;
	for (const char *q = s; q + 1 < e; q++)
		if (q[0] == ':' && q[1] == '=') {
			assign = q;
			break;
		}
	if (assign != NULL) {
		const char *q = s;

		while (q < assign && nkv < 2) {
			const char *w = q;

			while (q < assign && !is_blank(*q) && *q != ',')
				q++;
			if (q > w && *w == '$') {
				kv[nkv].s = w;
				kv[nkv++].n = (size_t)(q - w);
			}
			while (q < assign && (is_blank(*q) || *q == ','))
				q++;
		}
		s = assign + 2;
		while (s < e && is_blank(*s))
			s++;
	}
	if (operand(t, s, (size_t)(e - s), dot, &coll, &fresh) < 0)
		return -1;
	body = t->p;
	n = coll == NULL
	    ? 0
	    : (axv_kind(coll) == AXV_ARRAY	     ? axv_array_len(coll)
		      : axv_kind(coll) == AXV_OBJECT ? axv_object_len(coll)
		      : axv_kind(coll) == AXV_SET    ? axv_set_len(coll)
						     : 0);
	if (!emit || n == 0) {
		if (run_list(t, dot, false, &stop) < 0)
			goto fail;
	}
	for (size_t i = 0; emit && i < n; i++) {
		struct axv *k, *v;

		if (axv_kind(coll) == AXV_ARRAY) {
			k = axv_int((int64_t)i);
			v = axv_array_get(coll, i);
		} else if (axv_kind(coll) == AXV_SET) {
			k = axv_int((int64_t)i);
			v = axv_set_at(coll, i);
		} else {
			k = axv_ref(axv_object_key(coll, i));
			v = axv_object_val(coll, i);
		}
		t->nvars = base;
		if (base + 2 > TMPL_MAX_VARS) {
			axv_unref(k);
			tfail(t, "too many variables");
			goto fail;
		}
		if (nkv == 2) {
			t->vars[t->nvars++] =
			    (struct tvar){ kv[0].s, kv[0].n, k };
			t->vars[t->nvars++] =
			    (struct tvar){ kv[1].s, kv[1].n, v };
		} else if (nkv == 1) {
			t->vars[t->nvars++] =
			    (struct tvar){ kv[0].s, kv[0].n, v };
		}
		t->p = body;
		if (run_list(t, v, true, &stop) < 0) {
			axv_unref(k);
			goto fail;
		}
		axv_unref(k);
	}
	t->nvars = base;
	if (stop == NULL)
		goto missing;
	if (strcmp(stop, "else") == 0) {
		if (run_list(t, dot, emit && n == 0, &stop) < 0)
			goto fail;
		if (stop == NULL || strcmp(stop, "end") != 0)
			goto missing;
	}
	if (fresh)
		axv_unref(coll);
	return 0;
missing:
	tfail(t, "missing end");
fail:
	t->nvars = base;
	if (fresh)
		axv_unref(coll);
	return -1;
}

static int
run_list(struct tmpl *t, struct axv *dot, bool emit, const char **stop)
{
	struct action a;
	int r;

	if (++t->depth > TMPL_MAX_DEPTH)
		return tfail(t, "blocks nested too deeply");
	*stop = NULL;
	for (;;) {
		if (t->out->len > TMPL_MAX_OUT)
			return tfail(t, "output too large");
		r = next_action(t, emit, &a);
		if (r < 0)
			return -1;
		if (r == 1)
			break;
		if (a.n >= 2 && a.s[0] == '/' && a.s[1] == '*')
			continue; /* a comment */
		if (word_is(&a, "end")) {
			*stop = "end";
			break;
		}
		if (word_is(&a, "else")) {
			*stop = "else";
			break;
		}
		if (word_is(&a, "if")) {
			if (run_if(t, &a, dot, emit) < 0)
				return -1;
		} else if (word_is(&a, "range")) {
			if (run_range(t, &a, dot, emit) < 0)
				return -1;
		} else if (emit) {
			struct axv *v;
			bool fresh;

			if (operand(t, a.s, a.n, dot, &v, &fresh) < 0)
				return -1;
			print(t, v);
			if (fresh)
				axv_unref(v);
		} else {
			struct axv *v;
			bool fresh;

			/* check it all the same */
			if (operand(t, a.s, a.n, dot, &v, &fresh) < 0)
				return -1;
			if (fresh)
				axv_unref(v);
		}
	}
	t->depth--;
	return 0;
}

static int
bi_render_template(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	struct axg_buf b;
	struct tmpl t;
	const char *stop;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_OBJECT))
		return AXP_BI_ERROR;
	memset(&t, 0, sizeof(t));
	axg_buf_init(&b, 0);
	t.ctx = ctx;
	t.p = axv_str(args[0]);
	t.end = t.p + axv_strlen(args[0]);
	t.out = &b;
	if (run_list(&t, args[1], true, &stop) < 0 ||
	    (stop != NULL && tfail(&t, "unexpected {{end}} or {{else}}"))) {
		axg_buf_free(&b);
		return AXP_BI_ERROR;
	}
	*out = axv_string(b.data ? b.data : "", b.len);
	axg_buf_free(&b);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_template[] = {
	{ "strings.render_template", 2, bi_render_template,
	    "(string, object) => string", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
