/*
 * graphql-parse.c: GraphQL lexer and parser for query and schema documents.
 *
 * It follows gqlparser (the Go library OPA uses) token for token, so that
 * the same input fails with the same message at the same line and column:
 * the lexer counts columns in runes, a token the lexer could not read is
 * "<Invalid>" to the parser, and the first error wins.  Unlike gqlparser it
 * stops at the first error, and it bounds nesting and the token count.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "policy/graphql-int.h"

enum tk {
	T_INVALID,
	T_EOF,
	T_BANG,
	T_DOLLAR,
	T_AMP,
	T_PARENL,
	T_PARENR,
	T_SPREAD,
	T_COLON,
	T_EQUALS,
	T_AT,
	T_BRACKETL,
	T_BRACKETR,
	T_BRACEL,
	T_BRACER,
	T_PIPE,
	T_NAME,
	T_INT,
	T_FLOAT,
	T_STRING,
	T_BLOCKSTRING,
};

static const char *const tk_str[] = {
	"<Invalid>",
	"<EOF>",
	"!",
	"$",
	"&",
	"(",
	")",
	"...",
	":",
	"=",
	"@",
	"[",
	"]",
	"{",
	"}",
	"|",
	"Name",
	"Int",
	"Float",
	"String",
	"BlockString",
};

struct tok {
	enum tk kind;
	char *val; /* owned, NUL-terminated; NULL for "" */
	size_t len;
	int line, col;
	char *lexerr; /* the lexer's message for T_INVALID, owned */
};

struct parser {
	const char *in;
	size_t n, end;
	long end_runes, line_start_runes;
	int line;
	size_t ntokens;
	int depth;
	bool peeked;
	struct tok peek, prev;
	bool failed;
	bool positions; /* add "Position" to the nodes */
	struct gql_err *err;
};

void
gql_seterr(struct gql_err *err, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->line = line;
	err->col = col;
}

static void
tok_clear(struct tok *t)
{
	free(t->val);
	free(t->lexerr);
	memset(t, 0, sizeof(*t));
}

static void perror_at(struct parser *p, int line, int col, const char *fmt, ...)
    AXG_PRINTF(4, 5);

/* ---- lexer ---- */

static void
adv(struct parser *p, size_t bytes)
{
	for (size_t i = 0; i < bytes && p->end < p->n; i++) {
		unsigned char c = (unsigned char)p->in[p->end++];

		if ((c & 0xc0) != 0x80)
			p->end_runes++;
	}
}

static void
newline(struct parser *p)
{
	p->line++;
	p->line_start_runes = p->end_runes;
}

static void
lex_ws(struct parser *p)
{
	while (p->end < p->n) {
		unsigned char c = (unsigned char)p->in[p->end];

		if (c == '\t' || c == ' ' || c == ',') {
			p->end++;
			p->end_runes++;
		} else if (c == '\n') {
			p->end++;
			p->end_runes++;
			newline(p);
		} else if (c == '\r') {
			p->end++;
			p->end_runes++;
			newline(p);
			if (p->end < p->n && p->in[p->end] == '\n') {
				p->end++;
				p->end_runes++;
			}
		} else if (c == 0xef && p->end + 2 < p->n &&
		    (unsigned char)p->in[p->end + 1] == 0xbb &&
		    (unsigned char)p->in[p->end + 2] == 0xbf) {
			p->end += 3;
			p->end_runes++;
		} else {
			return;
		}
	}
}

static void lex_error(struct parser *p, struct tok *t, const char *fmt, ...)
    AXG_PRINTF(3, 4);

static void
lex_error(struct parser *p, struct tok *t, const char *fmt, ...)
{
	va_list ap;
	char buf[256];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->kind = T_INVALID;
	t->line = p->line;
	t->col = (int)(p->end_runes - p->line_start_runes + 1);
	t->lexerr = axg_strdup(buf);
}

static void
set_val(struct tok *t, const char *s, size_t n)
{
	t->val = axg_strndup(s, n);
	t->len = n;
}

static size_t
accept_digits(struct parser *p)
{
	size_t c = 0;

	while (p->end < p->n && p->in[p->end] >= '0' && p->in[p->end] <= '9') {
		p->end++;
		p->end_runes++;
		c++;
	}
	return c;
}

static bool
accept_byte(struct parser *p, char a, char b)
{
	if (p->end < p->n && (p->in[p->end] == a || p->in[p->end] == b)) {
		p->end++;
		p->end_runes++;
		return true;
	}
	return false;
}

static void
describe_next(struct parser *p, char *out, size_t sz)
{
	if (p->end < p->n)
		snprintf(out, sz, "\"%c\"", p->in[p->end]);
	else
		snprintf(out, sz, "<EOF>");
}

static void
lex_number(struct parser *p, struct tok *t, size_t start)
{
	bool isfloat = false;
	char d[16];

	p->end--;
	p->end_runes--;
	accept_byte(p, '-', '-');
	if (accept_byte(p, '0', '0')) {
		size_t c = accept_digits(p);

		if (c != 0) {
			p->end -= c;
			p->end_runes -= (long)c;
			describe_next(p, d, sizeof(d));
			lex_error(p, t,
			    "Invalid number, unexpected digit after 0: %s.", d);
			return;
		}
	} else if (accept_digits(p) == 0) {
		describe_next(p, d, sizeof(d));
		lex_error(p, t, "Invalid number, expected digit but got: %s.",
		    d);
		return;
	}
	if (accept_byte(p, '.', '.')) {
		isfloat = true;
		if (accept_digits(p) == 0) {
			describe_next(p, d, sizeof(d));
			lex_error(p, t,
			    "Invalid number, expected digit but got: %s.", d);
			return;
		}
	}
	if (accept_byte(p, 'e', 'E')) {
		isfloat = true;
		accept_byte(p, '-', '+');
		if (accept_digits(p) == 0) {
			describe_next(p, d, sizeof(d));
			lex_error(p, t,
			    "Invalid number, expected digit but got: %s.", d);
			return;
		}
	}
	t->kind = isfloat ? T_FLOAT : T_INT;
	set_val(t, p->in + start, p->end - start);
}

static int
unhex4(const char *s)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		int h = axg_hexval((unsigned char)s[i]);

		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

static void
put_utf8(struct axg_buf *b, unsigned r)
{
	char u[4];
	size_t n;

	if (r >= 0xd800 && r <= 0xdfff)
		r = 0xfffd; /* Go writes a lone surrogate as U+FFFD */
	if (r < 0x80) {
		u[0] = (char)r;
		n = 1;
	} else if (r < 0x800) {
		u[0] = (char)(0xc0 | r >> 6);
		u[1] = (char)(0x80 | (r & 0x3f));
		n = 2;
	} else {
		u[0] = (char)(0xe0 | r >> 12);
		u[1] = (char)(0x80 | (r >> 6 & 0x3f));
		u[2] = (char)(0x80 | (r & 0x3f));
		n = 3;
	}
	axg_buf_append(b, u, n);
}

static void
lex_string(struct parser *p, struct tok *t, size_t start, long start_runes)
{
	struct axg_buf b;
	bool esc = false;

	axg_buf_init(&b, 0);
	start++;
	start_runes++;
	while (p->end < p->n) {
		unsigned char c = (unsigned char)p->in[p->end];

		if (c == '\n' || c == '\r')
			break;
		if (c < 0x20 && c != '\t') {
			lex_error(p, t,
			    "Invalid character within String: \"\\u%04d\".", c);
			goto out;
		}
		if (c == '"') {
			t->kind = T_STRING;
			t->line = p->line;
			t->col = (int)(start_runes - p->line_start_runes + 1);
			if (esc)
				set_val(t, b.data != NULL ? b.data : "", b.len);
			else
				set_val(t, p->in + start, p->end - start);
			p->end++;
			p->end_runes++;
			goto out;
		}
		if (c != '\\') {
			size_t from = p->end;

			adv(p, 1);
			while (p->end < p->n &&
			    ((unsigned char)p->in[p->end] & 0xc0) == 0x80)
				p->end++;
			if (esc)
				axg_buf_append(&b, p->in + from, p->end - from);
			continue;
		}
		if (p->end + 1 >= p->n) {
			p->end++;
			p->end_runes++;
			lex_error(p, t, "Invalid character escape sequence.");
			goto out;
		}
		if (!esc) {
			axg_buf_append(&b, p->in + start, p->end - start);
			esc = true;
		}
		char e = p->in[p->end + 1];
		if (e == 'u') {
			int r;

			if (p->end + 6 >= p->n) {
				p->end++;
				p->end_runes++;
				lex_error(p, t,
				    "Invalid character escape sequence: "
				    "\\%.*s.",
				    (int)(p->n - p->end), p->in + p->end);
				goto out;
			}
			r = unhex4(p->in + p->end + 2);
			if (r < 0) {
				p->end++;
				p->end_runes++;
				lex_error(p, t,
				    "Invalid character escape sequence: "
				    "\\%.5s.",
				    p->in + p->end);
				goto out;
			}
			put_utf8(&b, (unsigned)r);
			p->end += 6;
			p->end_runes += 6;
			continue;
		}
		switch (e) {
		case '"':
		case '/':
		case '\\':
			axg_buf_putc(&b, e);
			break;
		case 'b':
			axg_buf_putc(&b, '\b');
			break;
		case 'f':
			axg_buf_putc(&b, '\f');
			break;
		case 'n':
			axg_buf_putc(&b, '\n');
			break;
		case 'r':
			axg_buf_putc(&b, '\r');
			break;
		case 't':
			axg_buf_putc(&b, '\t');
			break;
		default:
			p->end++;
			p->end_runes++;
			lex_error(p, t,
			    "Invalid character escape sequence: \\%c.", e);
			goto out;
		}
		p->end += 2;
		p->end_runes += 2;
	}
	lex_error(p, t, "Unterminated string.");
out:
	axg_buf_free(&b);
}

/* Leading spaces and tabs of a line; -1 if the line is only those. */
static long
leading_ws(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return (long)i;
	return -1;
}

/* The spec's BlockStringValue: common indentation (first line aside) and
 * blank leading and trailing lines removed. */
static void
block_value(struct tok *t, const char *raw, size_t n)
{
	size_t nl = 1, i, k;
	const char **ls;
	size_t *ll;
	long common = -1;
	size_t first, last;
	struct axg_buf b;

	for (i = 0; i < n; i++)
		if (raw[i] == '\n')
			nl++;
	ls = axg_calloc(nl, sizeof(*ls));
	ll = axg_calloc(nl, sizeof(*ll));
	for (i = 0, k = 0, ls[0] = raw; i < n; i++) {
		if (raw[i] == '\n') {
			ll[k] = (size_t)(raw + i - ls[k]);
			ls[++k] = raw + i + 1;
		}
	}
	ll[k] = (size_t)(raw + n - ls[k]);
	for (i = 1; i < nl; i++) {
		long w = leading_ws(ls[i], ll[i]);

		if (w >= 0 && (common < 0 || w < common))
			common = w;
	}
	if (common > 0) {
		for (i = 1; i < nl; i++) {
			if (ll[i] < (size_t)common) {
				ll[i] = 0;
			} else {
				ls[i] += common;
				ll[i] -= (size_t)common;
			}
		}
	}
	first = 0;
	last = nl;
	while (first < last && leading_ws(ls[first], ll[first]) < 0)
		first++;
	while (first < last && leading_ws(ls[last - 1], ll[last - 1]) < 0)
		last--;
	axg_buf_init(&b, 0);
	for (i = first; i < last; i++) {
		if (i > first)
			axg_buf_putc(&b, '\n');
		axg_buf_append(&b, ls[i], ll[i]);
	}
	set_val(t, b.data != NULL ? b.data : "", b.len);
	axg_buf_free(&b);
	free(ls);
	free(ll);
}

static void
lex_block(struct parser *p, struct tok *t, long start_runes)
{
	struct axg_buf b;

	axg_buf_init(&b, 0);
	start_runes += 3;
	p->end += 2;
	p->end_runes += 2;
	while (p->end < p->n) {
		unsigned char c = (unsigned char)p->in[p->end];

		if (c == '"' && p->end + 3 <= p->n &&
		    memcmp(p->in + p->end, "\"\"\"", 3) == 0) {
			t->kind = T_BLOCKSTRING;
			t->line = p->line;
			t->col = (int)(start_runes - p->line_start_runes + 1);
			block_value(t, b.data != NULL ? b.data : "", b.len);
			p->end += 3;
			p->end_runes += 3;
			goto out;
		}
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			lex_error(p, t,
			    "Invalid character within String: \"\\u%04d\".", c);
			goto out;
		}
		if (c == '\\' && p->end + 4 <= p->n &&
		    memcmp(p->in + p->end, "\\\"\"\"", 4) == 0) {
			axg_buf_puts(&b, "\"\"\"");
			p->end += 4;
			p->end_runes += 4;
		} else if (c == '\r') {
			if (p->end + 1 < p->n && p->in[p->end + 1] == '\n') {
				p->end++;
				p->end_runes++;
			}
			axg_buf_putc(&b, '\n');
			p->end++;
			p->end_runes++;
			newline(p);
		} else {
			size_t from = p->end;

			adv(p, 1);
			while (p->end < p->n &&
			    ((unsigned char)p->in[p->end] & 0xc0) == 0x80)
				p->end++;
			axg_buf_append(&b, p->in + from, p->end - from);
			if (c == '\n')
				newline(p);
		}
	}
	lex_error(p, t, "Unterminated string.");
out:
	axg_buf_free(&b);
}

static bool
is_name_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	    (c >= 'a' && c <= 'z') || c == '_';
}

static void
read_token(struct parser *p, struct tok *t)
{
	size_t start;
	long start_runes;
	unsigned char c;

	memset(t, 0, sizeof(*t));
again:
	lex_ws(p);
	start = p->end;
	start_runes = p->end_runes;
	t->line = p->line;
	t->col = (int)(start_runes - p->line_start_runes + 1);
	if (++p->ntokens > GQL_MAX_TOKENS) {
		/* not a token the parser may report on: fail right here */
		t->kind = T_EOF;
		perror_at(p, t->line, t->col, "more than %d tokens",
		    GQL_MAX_TOKENS);
		return;
	}
	if (p->end >= p->n) {
		t->kind = T_EOF;
		return;
	}
	c = (unsigned char)p->in[start];
	p->end++;
	p->end_runes++;
	switch (c) {
	case '!':
		t->kind = T_BANG;
		return;
	case '$':
		t->kind = T_DOLLAR;
		return;
	case '&':
		t->kind = T_AMP;
		return;
	case '(':
		t->kind = T_PARENL;
		return;
	case ')':
		t->kind = T_PARENR;
		return;
	case '.':
		if (p->n > start + 2 && memcmp(p->in + start, "...", 3) == 0) {
			p->end += 2;
			p->end_runes += 2;
			t->kind = T_SPREAD;
			return;
		}
		break;
	case ':':
		t->kind = T_COLON;
		return;
	case '=':
		t->kind = T_EQUALS;
		return;
	case '@':
		t->kind = T_AT;
		return;
	case '[':
		t->kind = T_BRACKETL;
		return;
	case ']':
		t->kind = T_BRACKETR;
		return;
	case '{':
		t->kind = T_BRACEL;
		return;
	case '}':
		t->kind = T_BRACER;
		return;
	case '|':
		t->kind = T_PIPE;
		return;
	case '#':
		while (p->end < p->n) {
			unsigned char d = (unsigned char)p->in[p->end];

			if (d > 0x1f || d == '\t')
				adv(p, 1);
			else
				break;
		}
		p->ntokens--;
		goto again;
	case '"':
		if (p->n > start + 2 && memcmp(p->in + start, "\"\"\"", 3) == 0)
			lex_block(p, t, start_runes);
		else
			lex_string(p, t, start, start_runes);
		return;
	default:
		if (c == '-' || (c >= '0' && c <= '9')) {
			lex_number(p, t, start);
			return;
		}
		if (is_name_byte(c)) {
			while (p->end < p->n &&
			    is_name_byte((unsigned char)p->in[p->end])) {
				p->end++;
				p->end_runes++;
			}
			t->kind = T_NAME;
			set_val(t, p->in + start, p->end - start);
			return;
		}
		break;
	}
	p->end--;
	p->end_runes--;
	if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
		lex_error(p, t,
		    "Cannot contain the invalid character \"\\u%04d\"", c);
	else if (c == '\'')
		lex_error(p, t,
		    "Unexpected single quote character ('), did you mean to "
		    "use a double quote (\")?");
	else if (c < 0x80)
		lex_error(p, t, "Cannot parse the unexpected character \"%c\".",
		    c);
	else
		lex_error(p, t,
		    "Cannot parse the unexpected character \"%c%c\".",
		    (char)(0xc0 | c >> 6), (char)(0x80 | (c & 0x3f)));
}

/* ---- parser primitives (gqlparser's parser.go) ---- */

static const struct tok *
peek(struct parser *p)
{
	if (p->failed)
		return &p->prev;
	if (!p->peeked) {
		read_token(p, &p->peek);
		p->peeked = true;
	}
	return &p->peek;
}

static void perror_at(struct parser *p, int line, int col, const char *fmt, ...)
    AXG_PRINTF(4, 5);

static void
perror_at(struct parser *p, int line, int col, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	p->err->line = line;
	p->err->col = col;
}

/* Go's strconv.Quote, for the printable text a token holds. */
static void
quote(char *out, size_t sz, const char *s, size_t n)
{
	struct axg_buf b;

	axg_buf_init(&b, 0);
	axg_buf_putc(&b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			axg_buf_printf(&b, "\\%c", c);
		else if (c == '\n')
			axg_buf_puts(&b, "\\n");
		else if (c == '\t')
			axg_buf_puts(&b, "\\t");
		else if (c == '\r')
			axg_buf_puts(&b, "\\r");
		else if (c < 0x20 || c == 0x7f)
			axg_buf_printf(&b, "\\x%02x", c);
		else
			axg_buf_putc(&b, (char)c);
	}
	axg_buf_putc(&b, '"');
	axg_buf_putc(&b, 0);
	axg_strlcpy(out, b.data, sz);
	axg_buf_free(&b);
}

static void
tok_string(const struct tok *t, char *out, size_t sz)
{
	char q[200];

	if (t->len > 0) {
		quote(q, sizeof(q), t->val, t->len);
		snprintf(out, sz, "%s %s", tk_str[t->kind], q);
	} else {
		snprintf(out, sz, "%s", tk_str[t->kind]);
	}
}

static void
unexpected_tok(struct parser *p, const struct tok *t)
{
	char s[256];

	tok_string(t, s, sizeof(s));
	perror_at(p, t->line, t->col, "Unexpected %s", s);
}

static void
unexpected(struct parser *p)
{
	unexpected_tok(p, peek(p));
}

static const struct tok *
next(struct parser *p)
{
	if (p->failed)
		return &p->prev;
	tok_clear(&p->prev);
	if (p->peeked) {
		p->peeked = false;
		p->prev = p->peek;
		memset(&p->peek, 0, sizeof(p->peek));
	} else {
		read_token(p, &p->prev);
	}
	if (p->prev.kind == T_INVALID)
		perror_at(p, p->prev.line, p->prev.col, "%s", p->prev.lexerr);
	return &p->prev;
}

static const struct tok *
expect(struct parser *p, enum tk kind)
{
	const struct tok *t = peek(p);

	if (t->kind == kind)
		return next(p);
	perror_at(p, t->line, t->col, "Expected %s, found %s", tk_str[kind],
	    tk_str[t->kind]);
	return t;
}

static bool
tok_is(const struct tok *t, const char *s)
{
	return t->len == strlen(s) && memcmp(t->val, s, t->len) == 0;
}

static void
expect_keyword(struct parser *p, const char *kw)
{
	const struct tok *t = peek(p);
	char s[256];

	if (t->kind == T_NAME && tok_is(t, kw)) {
		next(p);
		return;
	}
	tok_string(t, s, sizeof(s));
	perror_at(p, t->line, t->col, "Expected \"%s\", found %s", kw, s);
}

static bool
skip(struct parser *p, enum tk kind)
{
	if (p->failed || peek(p)->kind != kind)
		return false;
	next(p);
	return true;
}

/* ---- building nodes ---- */

static void
put(struct axv *o, const char *k, struct axv *v)
{
	axv_object_put(o, axv_cstr(k), v);
}

static void
put_str(struct axv *o, const char *k, const char *s)
{
	put(o, k, axv_cstr(s != NULL ? s : ""));
}

static void
put_list(struct axv *o, const char *k, struct axv *arr)
{
	if (arr != NULL && axv_array_len(arr) > 0)
		put(o, k, arr);
	else
		axv_unref(arr);
}

static void
put_pos(struct parser *p, struct axv *o, int line, int col)
{
	if (!p->positions)
		return;
	struct axv *a = axv_array_new(2);

	axv_array_push(a, axv_int(line));
	axv_array_push(a, axv_int(col));
	put(o, "Position", a);
}

static struct axv *
node_at(struct parser *p, const struct tok *t)
{
	struct axv *o = axv_object_new(8);

	put_pos(p, o, t->line, t->col);
	return o;
}

/* The name a token holds, as a new string ("" after an error). */
static struct axv *
name_of(const struct tok *t)
{
	return t->val != NULL ? axv_string(t->val, t->len) : axv_cstr("");
}

static struct axv *
parse_name(struct parser *p)
{
	const struct tok *t = expect(p, T_NAME);

	return p->failed ? NULL : name_of(t);
}

static bool
enter(struct parser *p)
{
	if (++p->depth > GQL_MAX_DEPTH) {
		const struct tok *t = peek(p);

		perror_at(p, t->line, t->col, "nesting deeper than %d",
		    GQL_MAX_DEPTH);
		return false;
	}
	return true;
}

/* ---- query documents (gqlparser's query.go) ---- */

static struct axv *parse_value(struct parser *p, bool isconst);
static struct axv *parse_selection_set(struct parser *p);

static struct axv *
parse_variable(struct parser *p)
{
	expect(p, T_DOLLAR);
	if (p->failed)
		return NULL;
	return parse_name(p);
}

static struct axv *
value_node(struct parser *p, const struct tok *t, const char *raw,
    size_t rawlen, int kind)
{
	struct axv *v = node_at(p, t);

	put(v, "Raw", axv_string(raw != NULL ? raw : "", rawlen));
	put(v, "Kind", axv_int(kind));
	put(v, "ExpectedTypeHasDefault", axv_bool(false));
	return v;
}

static struct axv *
parse_compound(struct parser *p, bool isconst, bool list)
{
	struct tok at = *peek(p);
	struct axv *kids = axv_array_new(4), *v;
	enum tk close = list ? T_BRACKETR : T_BRACER;

	at.val = NULL;
	at.lexerr = NULL;
	if (!skip(p, list ? T_BRACKETL : T_BRACEL))
		goto fail;
	while (peek(p)->kind != close && !p->failed) {
		struct axv *c = axv_object_new(4), *val;

		axv_array_push(kids, c);
		if (list) {
			put_str(c, "Name", "");
		} else {
			struct axv *name;

			put_pos(p, c, peek(p)->line, peek(p)->col);
			if ((name = parse_name(p)) == NULL)
				goto fail;
			put(c, "Name", name);
			expect(p, T_COLON);
			if (p->failed)
				goto fail;
		}
		if ((val = parse_value(p, isconst)) == NULL)
			goto fail;
		put(c, "Value", val);
	}
	next(p);
	if (p->failed)
		goto fail;
	v = value_node(p, &at, "", 0, list ? VK_LIST : VK_OBJECT);
	put_list(v, "Children", kids);
	return v;
fail:
	axv_unref(kids);
	return NULL;
}

static struct axv *
parse_value(struct parser *p, bool isconst)
{
	const struct tok *t = peek(p);
	struct axv *v = NULL;
	int kind;

	if (!enter(p))
		return NULL;
	switch (t->kind) {
	case T_BRACKETL:
	case T_BRACEL:
		v = parse_compound(p, isconst, t->kind == T_BRACKETL);
		p->depth--;
		return v;
	case T_DOLLAR: {
		struct tok at = *t;
		struct axv *name;

		if (isconst) {
			unexpected(p);
			return NULL;
		}
		if ((name = parse_variable(p)) == NULL)
			return NULL;
		v = node_at(p, &at);
		put(v, "Raw", name);
		put(v, "Kind", axv_int(VK_VARIABLE));
		put(v, "ExpectedTypeHasDefault", axv_bool(false));
		p->depth--;
		return v;
	}
	case T_INT:
		kind = VK_INT;
		break;
	case T_FLOAT:
		kind = VK_FLOAT;
		break;
	case T_STRING:
		kind = VK_STRING;
		break;
	case T_BLOCKSTRING:
		kind = VK_BLOCK;
		break;
	case T_NAME:
		if (tok_is(t, "true") || tok_is(t, "false"))
			kind = VK_BOOLEAN;
		else if (tok_is(t, "null"))
			kind = VK_NULL;
		else
			kind = VK_ENUM;
		break;
	default:
		unexpected(p);
		return NULL;
	}
	t = next(p);
	if (p->failed)
		return NULL;
	p->depth--;
	return value_node(p, t, t->val, t->len, kind);
}

static struct axv *
parse_arguments(struct parser *p, bool isconst)
{
	struct axv *args = axv_array_new(2);

	if (!skip(p, T_PARENL))
		return args;
	while (peek(p)->kind != T_PARENR && !p->failed) {
		struct axv *a = node_at(p, peek(p)), *name, *val;

		axv_array_push(args, a);
		if ((name = parse_name(p)) == NULL)
			goto fail;
		put(a, "Name", name);
		expect(p, T_COLON);
		if (p->failed || (val = parse_value(p, isconst)) == NULL)
			goto fail;
		put(a, "Value", val);
	}
	next(p);
	if (p->failed)
		goto fail;
	return args;
fail:
	axv_unref(args);
	return NULL;
}

static struct axv *
parse_directives(struct parser *p, bool isconst)
{
	struct axv *dirs = axv_array_new(1);

	while (peek(p)->kind == T_AT && !p->failed) {
		struct axv *d, *name, *args;

		expect(p, T_AT);
		d = node_at(p, peek(p));
		axv_array_push(dirs, d);
		if ((name = parse_name(p)) == NULL ||
		    (args = parse_arguments(p, isconst)) == NULL) {
			axv_unref(name);
			goto fail;
		}
		put(d, "Name", name);
		put_list(d, "Arguments", args);
		put_str(d, "Location", "");
	}
	if (p->failed)
		goto fail;
	return dirs;
fail:
	axv_unref(dirs);
	return NULL;
}

static struct axv *
parse_type(struct parser *p)
{
	struct axv *t = axv_object_new(4);

	if (!enter(p))
		goto fail;
	if (skip(p, T_BRACKETL)) {
		struct axv *elem;

		put_pos(p, t, peek(p)->line, peek(p)->col);
		if ((elem = parse_type(p)) == NULL)
			goto fail;
		put(t, "Elem", elem);
		put_str(t, "NamedType", "");
		expect(p, T_BRACKETR);
	} else {
		struct axv *name;

		if (p->failed)
			goto fail;
		put_pos(p, t, peek(p)->line, peek(p)->col);
		if ((name = parse_name(p)) == NULL)
			goto fail;
		put(t, "NamedType", name);
	}
	if (p->failed)
		goto fail;
	put(t, "NonNull", axv_bool(skip(p, T_BANG)));
	if (p->failed)
		goto fail;
	p->depth--;
	return t;
fail:
	axv_unref(t);
	return NULL;
}

static struct axv *
parse_variable_definitions(struct parser *p)
{
	struct axv *defs = axv_array_new(2);

	if (!skip(p, T_PARENL))
		return p->failed ? (axv_unref(defs), NULL) : defs;
	while (peek(p)->kind != T_PARENR && !p->failed) {
		struct axv *d = node_at(p, peek(p)), *x;

		axv_array_push(defs, d);
		if ((x = parse_variable(p)) == NULL)
			goto fail;
		put(d, "Variable", x);
		expect(p, T_COLON);
		if (p->failed || (x = parse_type(p)) == NULL)
			goto fail;
		put(d, "Type", x);
		if (skip(p, T_EQUALS)) {
			if ((x = parse_value(p, true)) == NULL)
				goto fail;
			put(d, "DefaultValue", x);
		}
		if (p->failed || (x = parse_directives(p, false)) == NULL)
			goto fail;
		put_list(d, "Directives", x);
		put(d, "Used", axv_bool(false));
	}
	next(p);
	if (p->failed)
		goto fail;
	return defs;
fail:
	axv_unref(defs);
	return NULL;
}

static struct axv *
parse_fragment_name(struct parser *p)
{
	if (tok_is(peek(p), "on")) {
		unexpected(p);
		return NULL;
	}
	return parse_name(p);
}

static struct axv *
parse_selection(struct parser *p)
{
	struct axv *s, *x;

	if (peek(p)->kind == T_SPREAD) {
		const struct tok *t;

		expect(p, T_SPREAD);
		t = peek(p);
		if (p->failed)
			return NULL;
		if (t->kind == T_NAME && !tok_is(t, "on")) {
			s = node_at(p, t);
			if ((x = parse_fragment_name(p)) == NULL)
				goto fail;
			put(s, "Name", x);
			if ((x = parse_directives(p, false)) == NULL)
				goto fail;
			put_list(s, "Directives", x);
			return s;
		}
		s = node_at(p, t);
		put_str(s, "TypeCondition", "");
		if (tok_is(t, "on")) {
			next(p);
			if (p->failed || (x = parse_name(p)) == NULL)
				goto fail;
			put(s, "TypeCondition", x);
		}
		if ((x = parse_directives(p, false)) == NULL)
			goto fail;
		put_list(s, "Directives", x);
		if ((x = parse_selection_set(p)) == NULL)
			goto fail;
		put_list(s, "SelectionSet", x);
		return s;
	}
	s = node_at(p, peek(p));
	if ((x = parse_name(p)) == NULL)
		goto fail;
	put(s, "Alias", axv_ref(x));
	if (skip(p, T_COLON)) {
		axv_unref(x);
		if ((x = parse_name(p)) == NULL)
			goto fail;
	}
	put(s, "Name", x);
	if (p->failed || (x = parse_arguments(p, false)) == NULL)
		goto fail;
	put_list(s, "Arguments", x);
	if ((x = parse_directives(p, false)) == NULL)
		goto fail;
	put_list(s, "Directives", x);
	if (peek(p)->kind == T_BRACEL) {
		if ((x = parse_selection_set(p)) == NULL)
			goto fail;
		put_list(s, "SelectionSet", x);
	}
	if (p->failed)
		goto fail;
	return s;
fail:
	axv_unref(s);
	return NULL;
}

/* gqlparser's some(): at least one element between start and end. */
static bool
some_empty(struct parser *p)
{
	const struct tok *t = peek(p);

	perror_at(p, t->line, t->col,
	    "expected at least one definition, found %s", tk_str[t->kind]);
	return false;
}

static struct axv *
parse_selection_set(struct parser *p)
{
	const struct tok *t = peek(p);
	struct axv *sels;
	bool called = false;

	if (t->kind != T_BRACEL) {
		perror_at(p, t->line, t->col, "Expected {, found %s",
		    tk_str[t->kind]);
		return NULL;
	}
	if (!enter(p))
		return NULL;
	sels = axv_array_new(4);
	skip(p, T_BRACEL);
	while (peek(p)->kind != T_BRACER && !p->failed) {
		struct axv *s = parse_selection(p);

		called = true;
		if (s == NULL)
			goto fail;
		axv_array_push(sels, s);
	}
	if (p->failed || (!called && !some_empty(p)))
		goto fail;
	next(p);
	if (p->failed)
		goto fail;
	p->depth--;
	return sels;
fail:
	axv_unref(sels);
	return NULL;
}

static struct axv *
parse_operation(struct parser *p)
{
	const struct tok *t = peek(p);
	struct axv *op = node_at(p, t), *x;

	if (t->kind == T_BRACEL) {
		put_str(op, "Operation", "query");
		put_str(op, "Name", "");
	} else {
		t = next(p);
		if (tok_is(t, "query") || tok_is(t, "mutation") ||
		    tok_is(t, "subscription")) {
			put(op, "Operation", name_of(t));
		} else {
			unexpected_tok(p, t);
			goto fail;
		}
		if (p->failed)
			goto fail;
		if (peek(p)->kind == T_NAME)
			put(op, "Name", name_of(next(p)));
		else
			put_str(op, "Name", "");
		if ((x = parse_variable_definitions(p)) == NULL)
			goto fail;
		put_list(op, "VariableDefinitions", x);
		if ((x = parse_directives(p, false)) == NULL)
			goto fail;
		put_list(op, "Directives", x);
	}
	if ((x = parse_selection_set(p)) == NULL)
		goto fail;
	put_list(op, "SelectionSet", x);
	return op;
fail:
	axv_unref(op);
	return NULL;
}

static struct axv *
parse_fragment_definition(struct parser *p)
{
	struct axv *f = node_at(p, peek(p)), *x;

	expect_keyword(p, "fragment");
	if (p->failed || (x = parse_fragment_name(p)) == NULL)
		goto fail;
	put(f, "Name", x);
	if ((x = parse_variable_definitions(p)) == NULL)
		goto fail;
	put_list(f, "VariableDefinition", x);
	expect_keyword(p, "on");
	if (p->failed || (x = parse_name(p)) == NULL)
		goto fail;
	put(f, "TypeCondition", x);
	if ((x = parse_directives(p, false)) == NULL)
		goto fail;
	put_list(f, "Directives", x);
	if ((x = parse_selection_set(p)) == NULL)
		goto fail;
	put_list(f, "SelectionSet", x);
	return f;
fail:
	axv_unref(f);
	return NULL;
}

static void
parser_init(struct parser *p, const char *s, size_t n, unsigned flags,
    struct gql_err *err)
{
	memset(p, 0, sizeof(*p));
	p->positions = (flags & GQL_POSITIONS) != 0;
	p->in = s;
	p->n = n;
	p->line = 1;
	p->err = err;
	memset(err, 0, sizeof(*err));
}

static void
parser_done(struct parser *p)
{
	tok_clear(&p->peek);
	tok_clear(&p->prev);
}

static bool
too_big(size_t n, struct gql_err *err)
{
	if (n <= GQL_MAX_INPUT)
		return false;
	gql_seterr(err, 1, 1, "document larger than %u bytes", GQL_MAX_INPUT);
	return true;
}

struct axv *
gql_parse_query(const char *s, size_t n, unsigned flags, struct gql_err *err)
{
	struct parser p;
	struct axv *ops = axv_array_new(2), *frags = axv_array_new(2), *doc;

	if (too_big(n, err))
		goto fail0;
	parser_init(&p, s, n, flags, err);
	while (peek(&p)->kind != T_EOF && !p.failed) {
		const struct tok *t = peek(&p);
		struct axv *d;

		if (t->kind == T_BRACEL ||
		    (t->kind == T_NAME &&
			(tok_is(t, "query") || tok_is(t, "mutation") ||
			    tok_is(t, "subscription")))) {
			if ((d = parse_operation(&p)) == NULL)
				goto fail;
			axv_array_push(ops, d);
		} else if (t->kind == T_NAME && tok_is(t, "fragment")) {
			if ((d = parse_fragment_definition(&p)) == NULL)
				goto fail;
			axv_array_push(frags, d);
		} else {
			unexpected(&p);
		}
	}
	if (p.failed)
		goto fail;
	parser_done(&p);
	doc = axv_object_new(2);
	put_list(doc, "Operations", ops);
	put_list(doc, "Fragments", frags);
	return doc;
fail:
	parser_done(&p);
fail0:
	axv_unref(ops);
	axv_unref(frags);
	return NULL;
}

/* ---- schema documents (gqlparser's schema.go) ---- */

static struct axv *
parse_description(struct parser *p)
{
	const struct tok *t = peek(p);

	if (t->kind != T_BLOCKSTRING && t->kind != T_STRING)
		return axv_cstr("");
	return name_of(next(p));
}

/* An optional separator, then names separated by it: the interfaces after
 * "implements" (sep &) and the members after "union U =" (sep |). */
static struct axv *
parse_name_list(struct parser *p, enum tk sep)
{
	struct axv *names = axv_array_new(2), *x;

	skip(p, sep);
	do {
		if ((x = parse_name(p)) == NULL) {
			axv_unref(names);
			return NULL;
		}
		axv_array_push(names, x);
	} while (skip(p, sep) && !p->failed);
	if (p->failed) {
		axv_unref(names);
		return NULL;
	}
	return names;
}

static struct axv *
parse_implements(struct parser *p)
{
	if (!tok_is(peek(p), "implements"))
		return axv_array_new(0);
	next(p);
	return parse_name_list(p, T_AMP);
}

/* An argument definition, an input value definition or a field
 * definition (with arguments when args). */
static struct axv *
parse_input_value(struct parser *p, bool args_allowed, bool field)
{
	struct axv *d = node_at(p, peek(p)), *x;

	if ((x = parse_description(p)) == NULL)
		goto fail;
	put(d, "Description", x);
	if ((x = parse_name(p)) == NULL)
		goto fail;
	put(d, "Name", x);
	if (args_allowed) {
		struct axv *args = axv_array_new(2);
		bool called = false;

		if (skip(p, T_PARENL)) {
			while (peek(p)->kind != T_PARENR && !p->failed) {
				called = true;
				if ((x = parse_input_value(p, false, false)) ==
				    NULL)
					break;
				axv_array_push(args, x);
			}
			if (!p->failed && !called)
				some_empty(p);
			next(p);
		}
		put_list(d, "Arguments", args);
		if (p->failed)
			goto fail;
	}
	expect(p, T_COLON);
	if (p->failed || (x = parse_type(p)) == NULL)
		goto fail;
	put(d, "Type", x);
	if (!field && skip(p, T_EQUALS)) {
		if ((x = parse_value(p, true)) == NULL)
			goto fail;
		put(d, "DefaultValue", x);
	}
	if (p->failed || (x = parse_directives(p, true)) == NULL)
		goto fail;
	put_list(d, "Directives", x);
	return d;
fail:
	axv_unref(d);
	return NULL;
}

enum body { B_FIELDS, B_INPUT_FIELDS, B_ENUM_VALUES };

/* gqlparser's some() over fields, input fields or enum values. */
static struct axv *
parse_body(struct parser *p, enum body what)
{
	struct axv *list = axv_array_new(4), *x;
	bool called = false;

	if (!skip(p, T_BRACEL))
		return p->failed ? (axv_unref(list), NULL) : list;
	while (peek(p)->kind != T_BRACER && !p->failed) {
		called = true;
		if (what == B_ENUM_VALUES) {
			x = node_at(p, peek(p));
			struct axv *y;

			if ((y = parse_description(p)) != NULL)
				put(x, "Description", y);
			if ((y = parse_name(p)) == NULL) {
				axv_unref(x);
				goto fail;
			}
			put(x, "Name", y);
			if ((y = parse_directives(p, true)) == NULL) {
				axv_unref(x);
				goto fail;
			}
			put_list(x, "Directives", y);
		} else {
			x = parse_input_value(p, what == B_FIELDS,
			    what == B_FIELDS);
			if (x == NULL)
				goto fail;
		}
		axv_array_push(list, x);
	}
	if (p->failed || (!called && !some_empty(p)))
		goto fail;
	next(p);
	if (p->failed)
		goto fail;
	return list;
fail:
	axv_unref(list);
	return NULL;
}

static struct axv *
parse_union_members(struct parser *p)
{
	if (!skip(p, T_EQUALS))
		return p->failed ? NULL : axv_array_new(0);
	return parse_name_list(p, T_PIPE);
}

/* A type definition (ext false) or extension (ext true), positioned after
 * the keyword; kw is "scalar", "type", ... */
static struct axv *
parse_type_def(struct parser *p, const char *kw, struct axv *descr, bool ext,
    bool builtin)
{
	struct axv *d, *x, *ifaces = NULL, *dirs = NULL, *body = NULL;
	const char *kind;
	bool is_obj = strcmp(kw, "type") == 0;
	bool is_iface = strcmp(kw, "interface") == 0;

	expect_keyword(p, kw);
	d = node_at(p, peek(p));
	kind = strcmp(kw, "scalar") == 0 ? "SCALAR"
	    : is_obj			 ? "OBJECT"
	    : is_iface			 ? "INTERFACE"
	    : strcmp(kw, "union") == 0	 ? "UNION"
	    : strcmp(kw, "enum") == 0	 ? "ENUM"
					 : "INPUT_OBJECT";
	put_str(d, "Kind", kind);
	put(d, "Description", descr != NULL ? axv_ref(descr) : axv_cstr(""));
	put(d, "BuiltIn", axv_bool(builtin));
	if (p->failed || (x = parse_name(p)) == NULL)
		goto fail;
	put(d, "Name", x);
	if (is_obj || (is_iface && !ext)) {
		if ((ifaces = parse_implements(p)) == NULL)
			goto fail;
	}
	/* an input extension reads non-constant directives, as gqlparser */
	dirs = parse_directives(p, !(ext && strcmp(kw, "input") == 0));
	if (dirs == NULL)
		goto fail;
	if (is_obj || is_iface)
		body = parse_body(p, B_FIELDS);
	else if (strcmp(kw, "input") == 0)
		body = parse_body(p, B_INPUT_FIELDS);
	else if (strcmp(kw, "enum") == 0)
		body = parse_body(p, B_ENUM_VALUES);
	else if (strcmp(kw, "union") == 0)
		body = parse_union_members(p);
	else
		body = axv_array_new(0);
	if (body == NULL)
		goto fail;
	if (ext && axv_array_len(dirs) == 0 && axv_array_len(body) == 0 &&
	    (ifaces == NULL || axv_array_len(ifaces) == 0)) {
		unexpected(p);
		goto fail;
	}
	if (ifaces != NULL)
		put_list(d, "Interfaces", axv_ref(ifaces));
	put_list(d, "Directives", axv_ref(dirs));
	put_list(d,
	    strcmp(kind, "UNION") == 0	    ? "Types"
		: strcmp(kind, "ENUM") == 0 ? "EnumValues"
					    : "Fields",
	    axv_ref(body));
	axv_unref(ifaces);
	axv_unref(dirs);
	axv_unref(body);
	return d;
fail:
	axv_unref(ifaces);
	axv_unref(dirs);
	axv_unref(body);
	axv_unref(d);
	return NULL;
}

static struct axv *
parse_schema_def(struct parser *p, struct axv *descr, bool ext)
{
	struct axv *d, *x, *ops = axv_array_new(3);
	bool called = false;

	expect_keyword(p, "schema");
	d = node_at(p, peek(p));
	put(d, "Description", descr != NULL ? axv_ref(descr) : axv_cstr(""));
	if (p->failed || (x = parse_directives(p, true)) == NULL)
		goto fail;
	put_list(d, "Directives", x);
	if (skip(p, T_BRACEL)) {
		while (peek(p)->kind != T_BRACER && !p->failed) {
			const struct tok *t = peek(p);
			struct axv *o = node_at(p, t);

			called = true;
			axv_array_push(ops, o);
			t = next(p);
			if (tok_is(t, "query") || tok_is(t, "mutation") ||
			    tok_is(t, "subscription"))
				put(o, "Operation", name_of(t));
			else
				unexpected_tok(p, t);
			expect(p, T_COLON);
			if (p->failed || (x = parse_name(p)) == NULL)
				goto fail;
			put(o, "Type", x);
		}
		if (p->failed || (!called && !some_empty(p)))
			goto fail;
		next(p);
	}
	if (p->failed)
		goto fail;
	if (ext && axv_object_gets(d, "Directives") == NULL &&
	    axv_array_len(ops) == 0) {
		unexpected(p);
		goto fail;
	}
	put_list(d, "OperationTypes", ops);
	return d;
fail:
	axv_unref(ops);
	axv_unref(d);
	return NULL;
}

static const char *const dir_locations[] = { "QUERY", "MUTATION",
	"SUBSCRIPTION", "FIELD", "FRAGMENT_DEFINITION", "FRAGMENT_SPREAD",
	"INLINE_FRAGMENT", "VARIABLE_DEFINITION", "SCHEMA", "SCALAR", "OBJECT",
	"FIELD_DEFINITION", "ARGUMENT_DEFINITION", "INTERFACE", "UNION", "ENUM",
	"ENUM_VALUE", "INPUT_OBJECT", "INPUT_FIELD_DEFINITION" };

static struct axv *
parse_dir_location(struct parser *p)
{
	const struct tok *t = expect(p, T_NAME);

	if (p->failed)
		return NULL;
	for (size_t i = 0; i < AXG_ARRAY_LEN(dir_locations); i++)
		if (tok_is(t, dir_locations[i]))
			return axv_cstr(dir_locations[i]);
	unexpected_tok(p, t);
	return NULL;
}

static struct axv *
parse_directive_def(struct parser *p, struct axv *descr)
{
	struct axv *d, *x, *args = axv_array_new(2), *locs = axv_array_new(2);
	bool called = false;

	expect_keyword(p, "directive");
	expect(p, T_AT);
	d = node_at(p, peek(p));
	put(d, "Description", descr != NULL ? axv_ref(descr) : axv_cstr(""));
	if (p->failed || (x = parse_name(p)) == NULL)
		goto fail;
	put(d, "Name", x);
	if (skip(p, T_PARENL)) {
		while (peek(p)->kind != T_PARENR && !p->failed) {
			called = true;
			if ((x = parse_input_value(p, false, false)) == NULL)
				goto fail;
			axv_array_push(args, x);
		}
		if (p->failed || (!called && !some_empty(p)))
			goto fail;
		next(p);
	}
	put_list(d, "Arguments", args);
	args = NULL;
	put(d, "IsRepeatable", axv_bool(false));
	if (peek(p)->kind == T_NAME && tok_is(peek(p), "repeatable")) {
		put(d, "IsRepeatable", axv_bool(true));
		skip(p, T_NAME);
	}
	expect_keyword(p, "on");
	skip(p, T_PIPE);
	if (p->failed || (x = parse_dir_location(p)) == NULL)
		goto fail;
	axv_array_push(locs, x);
	while (skip(p, T_PIPE) && !p->failed) {
		if ((x = parse_dir_location(p)) == NULL)
			goto fail;
		axv_array_push(locs, x);
	}
	if (p->failed)
		goto fail;
	put_list(d, "Locations", locs);
	return d;
fail:
	axv_unref(args);
	axv_unref(locs);
	axv_unref(d);
	return NULL;
}

struct axv *
gql_parse_schema(const char *s, size_t n, unsigned flags, struct gql_err *err)
{
	bool builtin = (flags & GQL_BUILTIN) != 0;
	struct parser p;
	struct axv *defs = axv_array_new(8), *exts = axv_array_new(2),
		   *schemas = axv_array_new(1), *sexts = axv_array_new(1),
		   *dirs = axv_array_new(2), *doc;

	if (too_big(n, err)) {
		memset(&p, 0, sizeof(p));
		goto fail;
	}
	parser_init(&p, s, n, flags, err);
	while (peek(&p)->kind != T_EOF && !p.failed) {
		struct axv *descr = NULL, *d = NULL;
		const struct tok *t;

		if (peek(&p)->kind == T_BLOCKSTRING ||
		    peek(&p)->kind == T_STRING)
			descr = parse_description(&p);
		t = peek(&p);
		if (p.failed || t->kind != T_NAME) {
			axv_unref(descr);
			unexpected(&p);
			break;
		}
		if (tok_is(t, "scalar") || tok_is(t, "type") ||
		    tok_is(t, "interface") || tok_is(t, "union") ||
		    tok_is(t, "enum") || tok_is(t, "input")) {
			char kw[16];

			snprintf(kw, sizeof(kw), "%s", t->val);
			d = parse_type_def(&p, kw, descr, false, builtin);
			if (d != NULL)
				axv_array_push(defs, d);
		} else if (tok_is(t, "schema")) {
			d = parse_schema_def(&p, descr, false);
			if (d != NULL)
				axv_array_push(schemas, d);
		} else if (tok_is(t, "directive")) {
			d = parse_directive_def(&p, descr);
			if (d != NULL)
				axv_array_push(dirs, d);
		} else if (tok_is(t, "extend")) {
			char kw[16];

			if (descr != NULL && axv_strlen(descr) > 0)
				unexpected_tok(&p, &p.prev);
			expect_keyword(&p, "extend");
			t = peek(&p);
			if (p.failed) {
				/* the error is set */
			} else if (tok_is(t, "schema")) {
				d = parse_schema_def(&p, NULL, true);
				if (d != NULL)
					axv_array_push(sexts, d);
			} else if (tok_is(t, "scalar") || tok_is(t, "type") ||
			    tok_is(t, "interface") || tok_is(t, "union") ||
			    tok_is(t, "enum") || tok_is(t, "input")) {
				snprintf(kw, sizeof(kw), "%s", t->val);
				d = parse_type_def(&p, kw, NULL, true, builtin);
				if (d != NULL)
					axv_array_push(exts, d);
			} else {
				unexpected(&p);
			}
		} else {
			unexpected(&p);
		}
		axv_unref(descr);
	}
	if (p.failed)
		goto fail;
	parser_done(&p);
	doc = axv_object_new(5);
	put_list(doc, "Definitions", defs);
	put_list(doc, "Extensions", exts);
	put_list(doc, "Schema", schemas);
	put_list(doc, "SchemaExtension", sexts);
	put_list(doc, "Directives", dirs);
	return doc;
fail:
	parser_done(&p);
	axv_unref(defs);
	axv_unref(exts);
	axv_unref(schemas);
	axv_unref(sexts);
	axv_unref(dirs);
	return NULL;
}

/* ---- OPA's pruning ---- */

static bool
empty_coll(const struct axv *v)
{
	switch (axv_kind(v)) {
	case AXV_NULL:
		return true;
	case AXV_ARRAY:
		return axv_array_len(v) == 0;
	case AXV_OBJECT:
		return axv_object_len(v) == 0;
	default:
		return false;
	}
}

struct axv *
gql_prune(const struct axv *v)
{
	struct axv *out;

	switch (axv_kind(v)) {
	case AXV_ARRAY:
		out = axv_array_new(axv_array_len(v));
		for (size_t i = 0; i < axv_array_len(v); i++) {
			struct axv *e = gql_prune(axv_array_get(v, i));

			if (empty_coll(e))
				axv_unref(e);
			else
				axv_array_push(out, e);
		}
		return out;
	case AXV_OBJECT:
		out = axv_object_new(axv_object_len(v));
		for (size_t i = 0; i < axv_object_len(v); i++) {
			struct axv *k = axv_object_key(v, i);
			struct axv *e;

			if (axv_kind(k) == AXV_STRING &&
			    axv_str_eq(k, "Position", 8))
				continue;
			e = gql_prune(axv_object_val(v, i));
			if (empty_coll(e))
				axv_unref(e);
			else
				axv_object_put(out, axv_ref(k), e);
		}
		return out;
	default:
		return axv_ref((struct axv *)v);
	}
}
