/* Unit tests of policy/builtins-uuid.c. */
#include "config.h"

#include "tests/unit/policy-bi-rows.h"

#define V2                                                                     \
	"{\"clocksequence\":12800,\"domain\":\"Person\",\"id\":1000,"          \
	"\"macvariables\":\"local:unicast\","                                  \
	"\"nodeid\":\"32-50-96-b3-9f-47\","                                    \
	"\"time\":1693566990121469600,\"variant\":\"RFC4122\","                \
	"\"version\":2}"

static const struct bi_row rows[] = {
	{ "uuid.parse", "[\"00000000-0000-4000-8000-000000000000\"]",
	    "{\"variant\":\"RFC4122\",\"version\":4}" },
	{ "uuid.parse", "[\"{00000000-0000-4000-8000-000000000000}\"]",
	    "{\"variant\":\"RFC4122\",\"version\":4}" },
	{ "uuid.parse", "[\"(00000000-0000-4000-8000-000000000000)\"]",
	    "{\"variant\":\"RFC4122\",\"version\":4}" },
	{ "uuid.parse", "[\"000003e8-48b9-21ee-b200-325096b39f47\"]", V2 },
	{ "uuid.parse", "[\"urn:uuid:000003e8-48b9-21ee-b200-325096b39f47\"]",
	    V2 },
	{ "uuid.parse", "[\"URN:UUID:000003E8-48B9-21EE-B200-325096B39F47\"]",
	    V2 },
	{ "uuid.parse", "[\"6bea8ef2d3d33cd184e09bab06a52ece\"]",
	    "{\"variant\":\"RFC4122\",\"version\":3}" },
	{ "uuid.parse", "[\"38074da4-0b00-388d-dc3c-362de965547a\"]",
	    "{\"variant\":\"Microsoft\",\"version\":3}" },
	{ "uuid.parse", "[\"00000000-0000-4000-8000-00000000000\"]",
	    "undefined" },
	{ "uuid.parse", "[\"00000000x0000-4000-8000-000000000000\"]",
	    "undefined" },
	{ "uuid.parse", "[\"0000000g-0000-4000-8000-000000000000\"]",
	    "undefined" },
	{ "uuid.parse", "[123]",
	    "!eval_type_error:operand 1 must be string but got number" },
	{ "uuid.rfc4122", "[1]",
	    "!eval_type_error:operand 1 must be string but got number" },
};

static char *
gen(const char *k, int64_t seed)
{
	struct axv *a = axv_cstr(k), *r = NULL;
	struct axp_bctx ctx;
	char *s;

	bi_now_ns = seed;
	if (bi_call("uuid.rfc4122", &a, 1, &ctx, &r) != AXP_BI_OK)
		s = strdup("error");
	else
		s = strdup(axv_str(r));
	axv_unref(r);
	axv_unref(a);
	return s;
}

static void
test_rfc4122(void)
{
	char *a = gen("x", 1), *b = gen("x", 1), *c = gen("y", 1),
	     *d = gen("x", 2);
	struct axv *s = axv_cstr(a), *p = NULL;
	struct axp_bctx ctx;

	is_str(a, b, "same key, same evaluation: same UUID");
	ok(strcmp(a, c) != 0, "another key: another UUID");
	ok(strcmp(a, d) != 0, "another evaluation seed: another UUID");
	is_int(strlen(a), 36, "canonical length");
	is_int(bi_call("uuid.parse", &s, 1, &ctx, &p), AXP_BI_OK,
	    "uuid.parse reads it back");
	{
		struct axv *four = axv_int(4);
		ok(p && axv_equal(axv_object_gets(p, "version"), four),
		    "it is version 4");
		axv_unref(four);
	}
	ok(p && strcmp(axv_str(axv_object_gets(p, "variant")), "RFC4122") == 0,
	    "of the RFC 4122 variant");
	axv_unref(p);
	axv_unref(s);
	free(a);
	free(b);
	free(c);
	free(d);
}

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	test_rfc4122();
	return tap_done();
}
