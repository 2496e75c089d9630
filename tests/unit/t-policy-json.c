/* Unit tests of the bulk builders (policy/value-build.c) and of the JSON
 * parser's fast paths: the same values as building key by key. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "policy/value-build.h"
#include "policy/value.h"
#include "tests/tap.h"

static struct axv *
J(const char *text, char *err, size_t errlen)
{
	return axv_from_json(text, strlen(text), NULL, err, errlen);
}

static void
is_json(const char *text, const char *want, const char *name)
{
	char err[128] = "";
	struct axv *v = J(text, err, sizeof(err));
	char *s = v ? axv_json_str(v) : axg_strdup(err);

	is_str(s, want, "%s", name);
	free(s);
	axv_unref(v);
}

static void
is_err(const char *text, const char *want, const char *name)
{
	char err[128] = "";
	struct axv *v = J(text, err, sizeof(err));

	ok(v == NULL, "%s: refused", name);
	is_str(err, want, "%s: message", name);
	axv_unref(v);
}

static void
test_objects(void)
{
	is_json("{}", "{}", "empty object");
	is_json("[]", "[]", "empty array");
	is_json("{\"a\":{},\"b\":[[],{}]}", "{\"a\":{},\"b\":[[],{}]}",
	    "nested empties");
	is_json("{\"b\":1,\"a\":2,\"c\":3}", "{\"a\":2,\"b\":1,\"c\":3}",
	    "unsorted keys sorted");
	is_json("{\"a\":1,\"b\":2,\"a\":3}", "{\"a\":3,\"b\":2}",
	    "duplicate key: the last value wins");
	is_json("{\"a\":1,\"a\":2,\"a\":3}", "{\"a\":3}",
	    "three duplicates: the last wins");
	is_json("{\"ab\":1,\"a\":2,\"\":3,\"b\":4}",
	    "{\"\":3,\"a\":2,\"ab\":1,\"b\":4}", "prefixes order bytewise");
	is_json("[{\"y\":[1,{\"z\":2,\"x\":1}],\"x\":0},3]",
	    "[{\"x\":0,\"y\":[1,{\"x\":1,\"z\":2}]},3]",
	    "objects inside arrays inside objects");
	is_err("{\"a\":[1,2,{\"b\":}]}",
	    "line 1, column 16: unexpected character",
	    "error deep inside nested members");
	is_err("{\"a\":1,\"b\"}", "line 1, column 11: expected ':'",
	    "missing colon");
}

/* A large object in shuffled order with duplicates, built three ways. */
static void
test_bulk_equals_put(void)
{
	enum { N = 5000 };
	struct axv *byput = axv_object_new(0), *bybuild, *byjson;
	struct axv_kv *kv = axg_calloc(N, sizeof(*kv));
	struct axg_buf b = AXG_BUF_INIT;
	char err[128] = "";
	unsigned x = 12345;

	axg_buf_putc(&b, '{');
	for (int i = 0; i < N; i++) {
		char key[32];
		int k;

		x = x * 1103515245u + 12345u;
		k = (int)((x >> 8) % (N / 2)); /* about half are repeats */
		snprintf(key, sizeof(key), "h%d.example", k);
		axv_object_put(byput, axv_cstr(key), axv_int(i));
		kv[i].k = axv_cstr(key);
		kv[i].v = axv_int(i);
		axg_buf_printf(&b, "%s\"%s\":%d", i ? "," : "", key, i);
	}
	axg_buf_putc(&b, '}');
	bybuild = axv_object_build(kv, N);
	byjson = axv_from_json(b.data, b.len, NULL, err, sizeof(err));
	ok(axv_object_len(bybuild) < N, "duplicates were merged");
	is_int(axv_object_len(bybuild), axv_object_len(byput),
	    "bulk: as many keys as key by key");
	ok(axv_equal(bybuild, byput), "bulk: same object as key by key");
	ok(byjson != NULL && axv_equal(byjson, byput),
	    "JSON: same object as key by key");
	{
		bool sorted = true;

		for (size_t i = 1; i < axv_object_len(bybuild); i++)
			if (axv_compare(axv_object_key(bybuild, i - 1),
				axv_object_key(bybuild, i)) >= 0)
				sorted = false;
		ok(sorted, "bulk: keys strictly ascending");
	}
	axv_unref(byput);
	axv_unref(bybuild);
	axv_unref(byjson);
	axg_buf_free(&b);
	free(kv);
}

/* Keys of every kind mixed, as Rego object literals have them. */
static void
test_mixed_keys(void)
{
	struct axv *keys[] = { axv_cstr("b"), axv_int(2), axv_null(),
		axv_bool(true), axv_cstr("a"), axv_int(-7), axv_bool(false),
		axv_cstr("b"), axv_int(2) };
	enum { N = sizeof(keys) / sizeof(keys[0]) };
	struct axv_kv kv[N];
	struct axv_pairs p = AXV_PAIRS_INIT;
	struct axv *byput = axv_object_new(0), *bybuild, *bypairs;
	char *s;

	for (int i = 0; i < N; i++) {
		axv_object_put(byput, axv_ref(keys[i]), axv_int(i));
		axv_pairs_add(&p, axv_ref(keys[i]), axv_int(i));
		kv[i].k = keys[i];
		kv[i].v = axv_int(i);
	}
	bybuild = axv_object_build(kv, N);
	bypairs = axv_pairs_object(&p);
	ok(axv_equal(bybuild, byput), "mixed key kinds: same as key by key");
	ok(axv_equal(bypairs, byput), "pairs list: same as key by key");
	s = axv_to_rego_string(bybuild);
	is_str(s,
	    "{null: 2, false: 6, true: 3, -7: 5, 2: 8, \"a\": 4, \"b\": 7}",
	    "mixed key kinds in OPA's order, the last value wins");
	free(s);
	ok(p.len == 0 && p.kv == NULL, "pairs list left empty");
	bypairs = (axv_unref(bypairs), axv_pairs_object(&p));
	is_int(axv_object_len(bypairs), 0, "no pairs: empty object");
	axv_unref(bypairs);
	axv_pairs_add(&p, axv_cstr("x"), axv_int(1));
	axv_pairs_clear(&p);
	ok(p.len == 0, "clear releases what is held");
	axv_unref(byput);
	axv_unref(bybuild);
}

/* The index builder: each key to the list of its values, in order. */
static void
test_group(void)
{
	struct axv *keys[] = { axv_cstr("b.example"), axv_int(2),
		axv_cstr("a.example"), axv_cstr("b.example"), axv_int(2),
		axv_null(), axv_cstr("b.example") };
	enum { N = sizeof(keys) / sizeof(keys[0]) };
	struct axv_pairs p = AXV_PAIRS_INIT;
	struct axv *idx, *want = axv_object_new(0), *g;
	char *s;

	/* What index building did before: look up, append or insert. */
	for (int i = 0; i < N; i++) {
		struct axv *list = axv_object_get(want, keys[i]);

		if (list == NULL) {
			list = axv_array_new(0);
			axv_object_put(want, axv_ref(keys[i]), list);
		}
		axv_array_push(list, axv_int(i));
		axv_pairs_add(&p, keys[i], axv_int(i));
	}
	idx = axv_pairs_group(&p);
	ok(axv_equal(idx, want), "group: same index as key by key");
	s = axv_to_rego_string(idx);
	is_str(s,
	    "{null: [5], 2: [1, 4], \"a.example\": [2], "
	    "\"b.example\": [0, 3, 6]}",
	    "group: duplicates keep their order, mixed key kinds sorted");
	free(s);
	ok(p.len == 0 && p.kv == NULL, "group: pairs list left empty");
	g = axv_pairs_group(&p);
	is_int(axv_object_len(g), 0, "group of nothing: empty object");
	axv_unref(g);
	axv_unref(idx);
	axv_unref(want);
}

static void
test_numbers(void)
{
	is_json("[0,-0,7,-7,443,0123]", "[0,0,7,-7,443,123]", "small integers");
	is_json("[999999999999999999,-999999999999999999]",
	    "[999999999999999999,-999999999999999999]", "18 digits");
	is_json("[9223372036854775807,-9223372036854775808]",
	    "[9223372036854775807,-9223372036854775808]",
	    "int64 limits (19 digits) stay exact");
	is_json("[12345678901234567890123]", "[12345678901234567890123]",
	    "big integer stays exact");
	is_json("[1e2,1.5,-2.50,1E+1]", "[100,1.5,-2.50,10]",
	    "exponents and fractions take the full parser");
	is_json("{\"a\":1}", "{\"a\":1}", "integer followed by a brace");
	is_err("[12-3]", "line 1, column 2: bad number", "12-3 refused");
	is_err("[1.]", "line 1, column 2: bad number", "1. refused");
	is_err("[-]", "line 1, column 2: bad number", "lone minus refused");
	is_err("[- 1]", "line 1, column 2: bad number", "minus space refused");
}

static void
test_strings(void)
{
	is_json("[\"plain\",\"\",\"caf\xc3\xa9\"]",
	    "[\"plain\",\"\",\"caf\xc3\xa9\"]",
	    "plain, empty and UTF-8 strings");
	is_json("[\"a\\\"b\\\\c\\/d\\u0041\\n\"]", "[\"a\\\"b\\\\c/dA\\n\"]",
	    "escapes take the full decoder");
	is_err("[\"ab\xff\"]", "line 1, column 3: invalid UTF-8 in string",
	    "bad UTF-8 without escapes");
	is_err("[\"a\\n\xc3\"]", "line 1, column 3: invalid UTF-8 in string",
	    "bad UTF-8 with escapes");
	is_err("[\"ab\ncd\"]", "line 1, column 5: control character in string",
	    "raw newline refused");
	is_err("[\"abc", "line 1, column 6: unterminated string",
	    "unterminated");
}

int
main(void)
{
	test_objects();
	test_bulk_equals_put();
	test_mixed_keys();
	test_group();
	test_numbers();
	test_strings();
	return tap_done();
}
