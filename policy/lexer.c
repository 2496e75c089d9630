/* lexer.c: Rego source to tokens. */
#include "config.h"

#include <string.h>

#include "policy/lexer.h"
#include "policy/value-int.h"

void
lex_init(struct lexer *lx, const char *src, size_t len, size_t max_literal)
{
	memset(lx, 0, sizeof(*lx));
	lx->src = lx->p = lx->line_start = src;
	lx->end = src + len;
	lx->line = 1;
	lx->max_literal = max_literal ? max_literal : 1 << 20;
	axg_buf_init(&lx->sbuf, 0);
}

void
lex_free(struct lexer *lx)
{
	axg_buf_free(&lx->sbuf);
}

static bool
is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void
tok_error(struct lexer *lx, struct token *t, const char *msg)
{
	t->kind = TK_ERROR;
	axg_buf_reset(&lx->sbuf);
	axg_buf_puts(&lx->sbuf, msg);
	t->text = lx->sbuf.data;
	t->tlen = lx->sbuf.len;
}

void
lex_next(struct lexer *lx, struct token *t)
{
	static const char *const ops3[] = { NULL };
	static const char *const ops2[] = { ":=", "==", "!=", "<=", ">=" };
	const char *p;
	size_t i;

	(void)ops3;
	t->nl_before = false;
	t->raw = false;
	t->text = NULL;
	t->tlen = 0;
	for (;;) {
		if (lx->p >= lx->end)
			break;
		if (*lx->p == '\n') {
			t->nl_before = true;
			lx->line++;
			lx->p++;
			lx->line_start = lx->p;
		} else if (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r') {
			lx->p++;
		} else if (*lx->p == '#') {
			const char *c = lx->p;
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
			if (lx->on_comment != NULL && c >= lx->comment_seen) {
				lx->comment_seen = lx->p;
				lx->on_comment(lx->comment_arg, c,
				    (size_t)(lx->p - c), lx->line,
				    (int)(c - lx->line_start) + 1);
			}
		} else {
			break;
		}
	}
	t->start = lx->p;
	t->line = lx->line;
	t->col = (int)(lx->p - lx->line_start) + 1;
	if (lx->p >= lx->end) {
		t->kind = TK_EOF;
		t->len = 0;
		return;
	}
	p = lx->p;
	if (is_ident_start(*p)) {
		while (p < lx->end && (is_ident_start(*p) || is_digit(*p)))
			p++;
		t->kind = TK_IDENT;
		goto done;
	}
	if (is_digit(*p)) {
		while (p < lx->end && is_digit(*p))
			p++;
		if (p + 1 < lx->end && *p == '.' && is_digit(p[1])) {
			p++;
			while (p < lx->end && is_digit(*p))
				p++;
		}
		if (p < lx->end && (*p == 'e' || *p == 'E')) {
			const char *q = p + 1;
			if (q < lx->end && (*q == '+' || *q == '-'))
				q++;
			if (q < lx->end && is_digit(*q)) {
				p = q;
				while (p < lx->end && is_digit(*p))
					p++;
			}
		}
		if ((size_t)(p - lx->p) > lx->max_literal) {
			lx->p = p;
			tok_error(lx, t, "number literal too long");
			return;
		}
		t->kind = TK_NUMBER;
		goto done;
	}
	if (*p == '"') {
		const char *stop, *why;
		axg_buf_reset(&lx->sbuf);
		if (axv_json_unquote(p + 1, lx->end, &lx->sbuf, &stop, &why) <
		    0) {
			if (stop && memchr(p + 1, '\n', (size_t)(stop - p - 1)))
				why = "non-terminated string";
			lx->p = stop;
			tok_error(lx, t, why);
			return;
		}
		if (memchr(p + 1, '\n', (size_t)(stop - p - 1)) != NULL) {
			tok_error(lx, t, "non-terminated string");
			lx->p = stop;
			return;
		}
		if (lx->sbuf.len > lx->max_literal) {
			lx->p = stop;
			tok_error(lx, t, "string literal too long");
			return;
		}
		p = stop;
		t->kind = TK_STRING;
		t->text = lx->sbuf.data ? lx->sbuf.data : (char *)"";
		t->tlen = lx->sbuf.len;
		goto done;
	}
	if (*p == '`') {
		const char *q = memchr(p + 1, '`', (size_t)(lx->end - p - 1));
		const char *r;
		if (q == NULL) {
			lx->p = lx->end;
			tok_error(lx, t, "non-terminated raw string");
			return;
		}
		if ((size_t)(q - p - 1) > lx->max_literal) {
			lx->p = q + 1;
			tok_error(lx, t, "string literal too long");
			return;
		}
		for (r = p + 1; r < q; r++)
			if (*r == '\n') {
				lx->line++;
				lx->line_start = r + 1;
			}
		axg_buf_reset(&lx->sbuf);
		axg_buf_append(&lx->sbuf, p + 1, (size_t)(q - p - 1));
		t->kind = TK_STRING;
		t->raw = true;
		t->text = lx->sbuf.data ? lx->sbuf.data : (char *)"";
		t->tlen = lx->sbuf.len;
		p = q + 1;
		goto done;
	}
	if (*p == '$' && p + 1 < lx->end && p[1] == '`') {
		const char *q = p + 2, *r;
		int depth = 0;
		while (q < lx->end && (depth > 0 || *q != '`')) {
			if (*q == '\\' && q + 1 < lx->end && q[1] != '`')
				q++;
			else if (*q == '{')
				depth++;
			else if (*q == '}' && depth > 0)
				depth--;
			else if (depth > 0 && (*q == '"' || *q == '`')) {
				char quote = *q++;
				while (q < lx->end && *q != quote) {
					if (quote == '"' && *q == '\\')
						q++;
					q++;
				}
			}
			q++;
		}
		if (q >= lx->end) {
			lx->p = lx->end;
			tok_error(lx, t, "non-terminated template string");
			return;
		}
		for (r = p; r < q; r++)
			if (*r == '\n') {
				lx->line++;
				lx->line_start = r + 1;
			}
		p = q + 1;
		t->kind = TK_TEMPLATE;
		goto done;
	}
	if (*p == '$' && p + 1 < lx->end && p[1] == '"') {
		/* a template string: find its end, skipping the strings inside
		 * its {expressions} */
		int depth = 0;
		const char *q = p + 2;
		while (q < lx->end) {
			if (*q == '\\') {
				q += 2;
				continue;
			}
			if (*q == '\n')
				break;
			if (depth == 0 && *q == '"')
				break;
			if (*q == '{')
				depth++;
			else if (*q == '}' && depth > 0)
				depth--;
			else if (depth > 0 && (*q == '"' || *q == '`')) {
				char quote = *q++;
				while (q < lx->end && *q != quote) {
					if (quote == '"' && *q == '\\')
						q++;
					q++;
				}
			}
			q++;
		}
		if (q >= lx->end || *q != '"') {
			lx->p = q < lx->end ? q : lx->end;
			tok_error(lx, t, "non-terminated template string");
			return;
		}
		p = q + 1;
		t->kind = TK_TEMPLATE;
		goto done;
	}
	for (i = 0; i < AXG_ARRAY_LEN(ops2); i++) {
		if (lx->end - p >= 2 && memcmp(p, ops2[i], 2) == 0) {
			p += 2;
			t->kind = TK_PUNCT;
			goto done;
		}
	}
	if (strchr("{}[]().,;:=<>+-*/%&|!", *p) != NULL && *p != '\0') {
		p++;
		t->kind = TK_PUNCT;
		goto done;
	}
	lx->p = p + 1;
	tok_error(lx, t, "illegal token");
	return;
done:
	t->len = (size_t)(p - lx->p);
	lx->p = p;
}
