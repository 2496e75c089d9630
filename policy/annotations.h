/*
 * annotations.h: OPA's METADATA comment blocks, for rego.metadata.rule()
 * and rego.metadata.chain() (internal to policy/).
 *
 * A block is a run of comments on consecutive lines whose first one is
 * "# METADATA"; the lines after it, without their "#", are YAML.  It
 * annotates the package or rule that starts on the line right after it.
 * Scopes: "rule" (the default before a rule: that definition only),
 * "document" (every definition of the rule's name in the package),
 * "package" (the default before a package clause) and "subpackages".
 */
#ifndef AXP_ANNOTATIONS_H
#define AXP_ANNOTATIONS_H

#include <stddef.h>

#include "policy/ast.h"
#include "policy/value.h"

/* The values of rego.metadata.rule() and rego.metadata.chain() for rule
 * r (a definition of module m), given every module of the policy.  New
 * references in *rule and *chain.  -1 with a message naming the block's
 * file and line in err when a METADATA block on the way is not a YAML
 * mapping. */
int axp_annot_for_rule(struct ast_module *const *mods, size_t nmods,
    const struct ast_module *m, const struct ast_rule *r, struct axv **rule,
    struct axv **chain, char *err, size_t errlen);

#endif /* AXP_ANNOTATIONS_H */
