/* lexer.h: Rego tokens (internal). */
#ifndef AXP_LEXER_H
#define AXP_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/common.h"

enum tok_kind {
	TK_EOF = 0,
	TK_IDENT,
	TK_STRING, /* text holds the decoded bytes */
	TK_NUMBER,
	TK_PUNCT, /* text holds the operator: { } [ ] ( ) . , ; : := = == ...*/
	TK_TEMPLATE, /* $"...": start/len cover it all */
	TK_ERROR,    /* text holds the message */
};

struct token {
	enum tok_kind kind;
	const char *start; /* in the source */
	size_t len;	   /* source bytes */
	char *text;	   /* decoded string or message; owned by the lexer */
	size_t tlen;
	int line, col;
	bool nl_before; /* a newline separates it from the previous token */
	bool raw;	/* a raw (backquoted) string */
};

struct lexer {
	const char *src, *p, *end;
	int line;
	const char *line_start;
	size_t max_literal;
	struct axg_buf sbuf;
	/* Called once for each comment ("# ..." up to the end of the line),
	 * in source order, even when the parser backs up; NULL: none. */
	void (
	    *on_comment)(void *arg, const char *p, size_t n, int line, int col);
	void *comment_arg;
	const char *comment_seen; /* end of the last comment reported */
};

void
lex_init(struct lexer *lx, const char *src, size_t len, size_t max_literal);
void lex_free(struct lexer *lx);
/* Read the next token into t (t->text stays valid until the next call that
 * decodes a string). */
void lex_next(struct lexer *lx, struct token *t);

#endif /* AXP_LEXER_H */
