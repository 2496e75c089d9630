/*
 * rules-yaml.c: user rules in YAML.
 *
 *   rules:
 *     - id: acme-token
 *       description: ACME deploy token
 *       keywords: [acme_]
 *       regex: 'acme_[a-z0-9]{32}'
 *       entropy: 3.5            # optional, bits per byte
 *       allowlist: ['acme_0+']  # optional regexes
 *       generic: false          # optional: loses overlaps to specific rules
 *
 * Everything is bounded: file size (by the caller), rule count, keyword
 * count, string lengths.  Unknown fields are errors, so a typo does not
 * silently disable a rule.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "common/common.h"
#include "safety/safety-int.h"

#define KW_MAX	  32
#define ALLOW_MAX 16
#define STR_MAX	  4096

struct yctx {
	yaml_document_t *doc;
	const char *name;
	char *err;
	size_t errlen;
};

static int
yerr(struct yctx *y, yaml_node_t *n, const char *fmt, ...) AXG_PRINTF(3, 4);

static int
yerr(struct yctx *y, yaml_node_t *n, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return axg_seterr(y->err, y->errlen, "%s:%zu:%zu: %s", y->name,
	    n ? (size_t)n->start_mark.line + 1 : 0,
	    n ? (size_t)n->start_mark.column + 1 : 0, msg);
}

static const char *
scalar(struct yctx *y, yaml_node_t *n, const char *what)
{
	if (n == NULL || n->type != YAML_SCALAR_NODE) {
		yerr(y, n, "%s must be a string", what);
		return NULL;
	}
	if (n->data.scalar.length > STR_MAX ||
	    strlen((const char *)n->data.scalar.value) !=
		n->data.scalar.length) {
		yerr(y, n, "%s is too long or holds a NUL byte", what);
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

/* A string or a sequence of strings, into out[max]. */
static int
strings(struct yctx *y, yaml_node_t *n, const char *what, const char **out,
    size_t max, size_t *count)
{
	*count = 0;
	if (n->type == YAML_SCALAR_NODE) {
		out[0] = scalar(y, n, what);
		*count = 1;
		return out[0] ? 0 : -1;
	}
	if (n->type != YAML_SEQUENCE_NODE)
		return yerr(y, n, "%s must be a string or a list", what);
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		if (*count == max)
			return yerr(y, n, "too many %s", what);
		out[*count] =
		    scalar(y, yaml_document_get_node(y->doc, *it), what);
		if (out[*count] == NULL)
			return -1;
		(*count)++;
	}
	return 0;
}

static int
load_rule(struct leak_ruleset *rs, struct yctx *y, yaml_node_t *n)
{
	const char *id = NULL, *desc = NULL, *regex = NULL;
	const char *kws[KW_MAX], *allow[ALLOW_MAX];
	size_t nkw = 0, nallow = 0;
	double entropy = 0;
	unsigned flags = LEAK_RF_NOALLOW;

	if (n->type != YAML_MAPPING_NODE)
		return yerr(y, n, "%s", "a rule must be a mapping");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(y->doc, p->value);
		const char *key = scalar(y, k, "a field name");

		if (key == NULL || v == NULL)
			return -1;
		if (strcmp(key, "id") == 0) {
			if ((id = scalar(y, v, "id")) == NULL)
				return -1;
		} else if (strcmp(key, "description") == 0) {
			if ((desc = scalar(y, v, "description")) == NULL)
				return -1;
		} else if (strcmp(key, "regex") == 0) {
			if ((regex = scalar(y, v, "regex")) == NULL)
				return -1;
		} else if (strcmp(key, "keywords") == 0) {
			if (strings(y, v, "keywords", kws, KW_MAX, &nkw) < 0)
				return -1;
		} else if (strcmp(key, "allowlist") == 0) {
			if (strings(y, v, "allowlist", allow, ALLOW_MAX,
				&nallow) < 0)
				return -1;
		} else if (strcmp(key, "entropy") == 0) {
			const char *s = scalar(y, v, "entropy");
			char *end;
			if (s == NULL)
				return -1;
			entropy = strtod(s, &end);
			if (end == s || *end != '\0')
				return yerr(y, v,
				    "entropy '%s' is not a number", s);
		} else if (strcmp(key, "generic") == 0) {
			const char *s = scalar(y, v, "generic");
			if (s == NULL)
				return -1;
			if (strcmp(s, "true") == 0)
				flags |= LEAK_RF_GENERIC;
			else if (strcmp(s, "false") != 0)
				return yerr(y, v,
				    "generic must be true or false");
		} else {
			return yerr(y, k, "unknown field '%s'", key);
		}
	}
	if (id == NULL)
		return yerr(y, n, "%s", "a rule needs an id");
	for (const char *c = id; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
			*c == '-' || *c == '_' || *c == '.'))
			return yerr(y, n,
			    "rule id '%s' may hold only a-z, 0-9, '-', '_', "
			    "'.'",
			    id);
	if (regex == NULL)
		return yerr(y, n, "rule %s needs a regex", id);
	if (nkw == 0)
		return yerr(y, n, "rule %s needs keywords", id);
	if (leak_ruleset_add(rs, id, desc, kws, nkw, regex, entropy, allow,
		nallow, flags, LEAK_V_NONE, 0, 0, true, y->err,
		y->errlen) < 0) {
		/* Prefix the location to the rule's own message. */
		char msg[512];
		axg_strlcpy(msg, y->err ? y->err : "", sizeof(msg));
		return axg_seterr(y->err, y->errlen, "%s:%zu: %s", y->name,
		    (size_t)n->start_mark.line + 1, msg);
	}
	return 0;
}

int
leak_rules_yaml_load(struct leak_ruleset *rs, const char *text, size_t len,
    const char *name, char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct yctx y = { &doc, name, err, errlen };
	yaml_node_t *root, *rules = NULL;
	int rc = -1;
	size_t count = 0;

	if (!yaml_parser_initialize(&parser))
		return axg_seterr(err, errlen, "%s: cannot start YAML parser",
		    name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		axg_seterr(err, errlen, "%s:%zu:%zu: %s", name,
		    (size_t)parser.problem_mark.line + 1,
		    (size_t)parser.problem_mark.column + 1,
		    parser.problem ? parser.problem : "YAML syntax error");
		yaml_parser_delete(&parser);
		return -1;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL) {
		rc = 0; /* an empty file adds nothing */
		goto out;
	}
	if (root->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
		     p < root->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(&doc, p->key);
			const char *key = scalar(&y, k, "a field name");
			if (key == NULL)
				goto out;
			if (strcmp(key, "rules") != 0) {
				yerr(&y, k, "unknown field '%s' (want rules)",
				    key);
				goto out;
			}
			rules = yaml_document_get_node(&doc, p->value);
		}
	} else if (root->type == YAML_SEQUENCE_NODE) {
		rules = root;
	}
	if (rules == NULL || rules->type != YAML_SEQUENCE_NODE) {
		yerr(&y, root, "%s", "want a list of rules under 'rules:'");
		goto out;
	}
	for (yaml_node_item_t *it = rules->data.sequence.items.start;
	     it < rules->data.sequence.items.top; it++) {
		if (++count > LEAK_USER_RULES_MAX) {
			yerr(&y, rules, "more than %d rules",
			    LEAK_USER_RULES_MAX);
			goto out;
		}
		if (load_rule(rs, &y, yaml_document_get_node(&doc, *it)) < 0)
			goto out;
	}
	rc = 0;
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}
