/* Builtins: object.*, json.filter, json.remove, json.patch. */
#include "config.h"

#include "tests/unit/policy-bi.h"

static const struct bi_row rows[] = {
	/* object.get */
	{ "object.get", "[{\"a\": \"b\"}, \"a\", \"c\"]", "\"b\"" },
	{ "object.get", "[{\"a\": \"b\"}, \"c\", \"c\"]", "\"c\"" },
	{ "object.get", "[{\"a\": {\"b\": \"c\"}}, \"a\", true]",
	    "{\"b\": \"c\"}" },
	{ "object.get", "[{\"a\": 1}, [], 2]", "{\"a\": 1}" },
	{ "object.get", "[{\"a\": 1}, [\"a\"], 2]", "1" },
	{ "object.get",
	    "[{\"a\": {\"b\": {\"c\": 1}}}, [\"a\", \"b\", \"c\"], 2]", "1" },
	{ "object.get", "[{\"a\": {\"b\": 1}}, [\"b\", \"a\"], 2]", "2" },
	{ "object.get",
	    "[{\"a\": {\"b\": [1, 2, 3]}}, [\"a\", \"b\", \"a\"], 2]", "2" },
	{ "object.get",
	    "[{\"a\": {\"b\": [{\"c\": 1}]}}, [\"a\", \"b\", 0, \"c\"], 2]",
	    "1" },
	{ "object.get", "[{\"a\": [5]}, [\"a\", \"0\"], 2]", "2" },
	{ "object.get", "[{\"a\": [5]}, [\"a\", 1], 2]", "2" },
	{ "object.get", "[\"object\", [\"a\"], 2]",
	    "!eval_type_error: object.get: operand 1 must be object but got "
	    "string" },
	/* object.keys */
	{ "object.keys", "[{\"a\": 1, \"b\": 2}]",
	    "{\"$set\": [\"a\", \"b\"]}" },
	{ "object.keys", "[{}]", "{\"$set\": []}" },
	{ "object.keys", "[[1]]",
	    "!eval_type_error: object.keys: operand 1 must be object but got "
	    "array" },
	/* object.union, object.union_n */
	{ "object.union", "[{}, {}]", "{}" },
	{ "object.union", "[{\"a\": 1}, {\"b\": 2}]", "{\"a\": 1, \"b\": 2}" },
	{ "object.union", "[{\"a\": {\"b\": {\"c\": 1}}}, {\"b\": 2}]",
	    "{\"a\": {\"b\": {\"c\": 1}}, \"b\": 2}" },
	{ "object.union",
	    "[{\"a\": {\"b\": {\"c\": 1}}}, {\"a\": {\"b\": {\"d\": 2}}}]",
	    "{\"a\": {\"b\": {\"c\": 1, \"d\": 2}}}" },
	{ "object.union", "[{\"a\": {\"b\": 1}}, {\"a\": 7}]", "{\"a\": 7}" },
	{ "object.union", "[{\"a\": 7}, {\"a\": {\"b\": 1}}]",
	    "{\"a\": {\"b\": 1}}" },
	{ "object.union", "[[], {}]",
	    "!eval_type_error: object.union: operand 1 must be object but got "
	    "array" },
	{ "object.union_n", "[[{}]]", "{}" },
	{ "object.union_n", "[[]]", "{}" },
	{ "object.union_n", "[[{\"foo\": \"bar\"}, {\"foo\": \"baz\"}]]",
	    "{\"foo\": \"baz\"}" },
	{ "object.union_n",
	    "[[{\"a\": 1, \"b\": 2, \"c\": 3}, {\"foo\": \"baz\", \"a\": "
	    "\"a\", "
	    "\"b\": 2, \"d\": 4}, {\"a\": \"final A!\", \"e\": 5.0}]]",
	    "{\"a\": \"final A!\", \"b\": 2, \"c\": 3, \"d\": 4, \"e\": 5, "
	    "\"foo\": \"baz\"}" },
	{ "object.union_n", "[[{\"foo\": 1}, {\"bar\": 2}, \"baz\"]]",
	    "!eval_type_error: object.union_n: operand 1 must be array of "
	    "objects but got array containing string" },
	/* object.remove, object.filter */
	{ "object.remove", "[{\"a\": 1, \"b\": 2, \"c\": 3}, [\"a\", \"c\"]]",
	    "{\"b\": 2}" },
	{ "object.remove", "[{\"a\": 1, \"b\": 2}, {\"$set\": [\"b\"]}]",
	    "{\"a\": 1}" },
	{ "object.remove", "[{\"a\": 1, \"b\": 2}, {\"b\": 0, \"z\": 1}]",
	    "{\"a\": 1}" },
	{ "object.remove", "[{\"a\": 1}, []]", "{\"a\": 1}" },
	{ "object.remove", "[[], []]",
	    "!eval_type_error: object.remove: operand 1 must be object but got "
	    "array" },
	{ "object.remove", "[{}, \"a\"]",
	    "!eval_type_error: object.remove: operand 2 must be one of "
	    "{object, "
	    "set, array} but got string" },
	{ "object.filter",
	    "[{\"a\": {\"b\": {\"c\": 7, \"d\": 8}}, \"e\": 9}, "
	    "{\"$set\": [\"a\"]}]",
	    "{\"a\": {\"b\": {\"c\": 7, \"d\": 8}}}" },
	{ "object.filter", "[{\"a\": 7}, {\"$set\": []}]", "{}" },
	{ "object.filter", "[{\"a\": 7}, {}]", "{}" },
	{ "object.filter", "[{}, [\"a\"]]", "{}" },
	{ "object.filter", "[{\"a\": 1, \"b\": 2}, [\"b\", \"x\"]]",
	    "{\"b\": 2}" },
	{ "object.filter", "[false, [\"a\"]]",
	    "!eval_type_error: object.filter: operand 1 must be object but got "
	    "boolean" },
	{ "object.filter", "[{\"a\": 1}, null]",
	    "!eval_type_error: object.filter: operand 2 must be one of "
	    "{object, "
	    "set, array} but got null" },
	/* object.subset */
	{ "object.subset", "[{\"a\": 5, \"b\": 7, \"c\": 15}, {\"a\": 5}]",
	    "true" },
	{ "object.subset", "[{\"a\": 5}, {\"a\": 5, \"b\": 7}]", "false" },
	{ "object.subset", "[{\"a\": 5, \"b\": 7}, {\"a\": 5, \"b\": 10}]",
	    "false" },
	{ "object.subset",
	    "[{\"a\": 5, \"n\": {\"x\": 10, \"y\": 15, \"s\": {\"$set\": [1, "
	    "2, "
	    "3, 4]}, \"r\": [6, 7, 8, 9]}}, {\"n\": {\"x\": 10, \"s\": "
	    "{\"$set\": [4, 1]}, \"r\": [6, 7]}}]",
	    "true" },
	{ "object.subset", "[{\"$set\": [1, 2, 3]}, {\"$set\": [3, 2]}]",
	    "true" },
	{ "object.subset", "[{\"$set\": [3, 2]}, {\"$set\": [1, 2, 3]}]",
	    "false" },
	{ "object.subset",
	    "[{\"$set\": [1, {\"$set\": [\"a\", \"b\"]}]}, {\"$set\": "
	    "[{\"$set\": [\"a\"]}]}]",
	    "false" },
	{ "object.subset", "[[1, 2, 3, 4, 5, 6], [3, 4, 5]]", "true" },
	{ "object.subset", "[[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]]", "true" },
	{ "object.subset", "[[1, 2, 3, 4, 5, 6], [4, 5, 6, 8]]", "false" },
	{ "object.subset", "[[1, 2, 3, 4, 5, 6], [3, 5]]", "false" },
	{ "object.subset", "[[1, 2, 3], []]", "true" },
	{ "object.subset", "[[1, 2, 3, 4, 5, 6], {\"$set\": [4, 3, 2]}]",
	    "true" },
	{ "object.subset", "[[1, 2, 3, 4, 5, 6], {\"$set\": [9, 8, 7]}]",
	    "false" },
	{ "object.subset", "[{\"$set\": [4, 3, 2]}, [1, 2, 3, 4]]",
	    "!eval_type_error: object.subset: both arguments object.subset "
	    "must be of the same type or array and set" },
	{ "object.subset", "[{}, []]",
	    "!eval_type_error: must be of the same type" },
	/* json.filter */
	{ "json.filter",
	    "[{\"a\": {\"b\": {\"c\": 7, \"d\": 8}}, \"e\": 9}, "
	    "{\"$set\": [\"a/b/c\"]}]",
	    "{\"a\": {\"b\": {\"c\": 7}}}" },
	{ "json.filter",
	    "[{\"a\": {\"b\": {\"c\": 7, \"d\": 8}}, \"e\": 9}, "
	    "{\"$set\": [\"a/b/c\", \"e\"]}]",
	    "{\"a\": {\"b\": {\"c\": 7}}, \"e\": 9}" },
	{ "json.filter",
	    "[{\"a\": {\"b\": {\"c\": 7, \"d\": 8}, \"e\": 9}}, "
	    "{\"$set\": [\"a/b/c\", \"a/e\"]}]",
	    "{\"a\": {\"b\": {\"c\": 7}, \"e\": 9}}" },
	{ "json.filter", "[{\"a\": {\"b\": 7}}, {\"$set\": [\"a\", \"a/b\"]}]",
	    "{\"a\": {\"b\": 7}}" },
	{ "json.filter", "[{\"a\": 7}, {\"$set\": []}]", "{}" },
	{ "json.filter",
	    "[{\"a\": [{\"b\": 7, \"c\": 8}, {\"d\": 9}]}, "
	    "{\"$set\": [\"a/0/b\", \"a/1\"]}]",
	    "{\"a\": [{\"b\": 7}, {\"d\": 9}]}" },
	{ "json.filter",
	    "[{\"a\": [{\"1\": [\"b\", \"c\", \"d\"]}, {\"x\": \"y\"}]}, "
	    "{\"$set\": [\"a/0/1/2\"]}]",
	    "{\"a\": [{\"1\": [\"d\"]}]}" },
	{ "json.filter",
	    "[{\"a\": {\"b\": {\"c\": 7, \"d\": 8, \"x\": 0}}, \"e\": 9}, "
	    "{\"$set\": [\"a/b/d\", [\"a\", \"b\", \"c\"]]}]",
	    "{\"a\": {\"b\": {\"c\": 7, \"d\": 8}}}" },
	{ "json.filter", "[{\"a/b\": 1, \"c\": 2}, [\"/a~1b\"]]",
	    "{\"a/b\": 1}" },
	{ "json.filter", "[{\"a\": 1}, \"a\"]",
	    "!eval_type_error: json.filter: operand 2 must be one of {set, "
	    "array} but got string" },
	/* json.remove */
	{ "json.remove",
	    "[{\"a\": {\"b\": {\"c\": 7, \"d\": 8}}, \"e\": 9}, "
	    "[\"a/b/c\", \"e\"]]",
	    "{\"a\": {\"b\": {\"d\": 8}}}" },
	{ "json.remove",
	    "[{\"a\": {\"b\": 7}, \"c\": 1}, {\"$set\": [\"a\", "
	    "\"a/b\"]}]",
	    "{\"c\": 1}" },
	{ "json.remove", "[{\"a\": 7}, {\"$set\": []}]", "{\"a\": 7}" },
	{ "json.remove", "[{}, {\"$set\": [\"a/b\"]}]", "{}" },
	{ "json.remove", "[{\"a\": {\"b\": 7}, \"c\": 1}, [\"a/b\", \"c\"]]",
	    "{\"a\": {}}" },
	{ "json.remove",
	    "[{\"a\": [{\"b\": 7, \"c\": 8}, {\"d\": 9}]}, "
	    "{\"$set\": [\"a/0/b\", \"a/1\"]}]",
	    "{\"a\": [{\"c\": 8}]}" },
	{ "json.remove",
	    "[{\"a\": [{\"1\": [\"b\", \"c\", \"d\"]}, {\"x\": \"y\"}]}, "
	    "{\"$set\": [\"a/0/1/2\"]}]",
	    "{\"a\": [{\"1\": [\"b\", \"c\"]}, {\"x\": \"y\"}]}" },
	{ "json.remove",
	    "[{\"a\": {\"b\": {\"c\": 7, \"d\": 8, \"x\": 0}}, \"e\": 9}, "
	    "{\"$set\": [\"a/b/d\", [\"a\", \"b\", \"c\"]]}]",
	    "{\"a\": {\"b\": {\"x\": 0}}, \"e\": 9}" },
	{ "json.remove", "[22, [\"a\"]]",
	    "!eval_type_error: json.remove: operand 1 must be object but got "
	    "number" },
	{ "json.remove", "[{}, {\"y\": 1}]",
	    "!eval_type_error: json.remove: operand 2 must be one of {set, "
	    "array} but got object" },
	{ "json.remove", "[{}, [\"a\", 1]]",
	    "!eval_type_error: json.remove: operand 2 must be one of {set, "
	    "array} containing string paths or array of path segments but got "
	    "number" },
	/* json.patch */
	{ "json.patch",
	    "[{\"foo\": \"bar\"}, [{\"op\": \"add\", \"path\": \"/baz\", "
	    "\"value\": \"qux\"}]]",
	    "{\"baz\": \"qux\", \"foo\": \"bar\"}" },
	{ "json.patch",
	    "[{\"foo\": [\"bar\", \"baz\"]}, [{\"op\": \"add\", \"path\": "
	    "\"/foo/1\", \"value\": \"qux\"}]]",
	    "{\"foo\": [\"bar\", \"qux\", \"baz\"]}" },
	{ "json.patch",
	    "[{\"baz\": \"qux\", \"foo\": \"bar\"}, [{\"op\": \"remove\", "
	    "\"path\": \"/baz\"}]]",
	    "{\"foo\": \"bar\"}" },
	{ "json.patch",
	    "[{\"foo\": [\"bar\", \"qux\", \"baz\"]}, [{\"op\": \"remove\", "
	    "\"path\": \"/foo/1\"}]]",
	    "{\"foo\": [\"bar\", \"baz\"]}" },
	{ "json.patch",
	    "[{\"baz\": \"qux\"}, [{\"op\": \"replace\", \"path\": \"/baz\", "
	    "\"value\": \"boo\"}]]",
	    "{\"baz\": \"boo\"}" },
	{ "json.patch",
	    "[{\"foo\": {\"bar\": \"baz\", \"waldo\": \"fred\"}, \"qux\": "
	    "{\"corge\": \"grault\"}}, [{\"op\": \"move\", \"from\": "
	    "\"/foo/waldo\", \"path\": \"/qux/thud\"}]]",
	    "{\"foo\": {\"bar\": \"baz\"}, \"qux\": {\"corge\": \"grault\", "
	    "\"thud\": \"fred\"}}" },
	{ "json.patch",
	    "[{\"foo\": [\"all\", \"grass\", \"cows\", \"eat\"]}, [{\"op\": "
	    "\"move\", \"from\": \"/foo/1\", \"path\": \"/foo/3\"}]]",
	    "{\"foo\": [\"all\", \"cows\", \"eat\", \"grass\"]}" },
	{ "json.patch",
	    "[{\"baz\": \"qux\", \"foo\": [\"a\", 2]}, [{\"op\": \"test\", "
	    "\"path\": \"/baz\", \"value\": \"qux\"}, {\"op\": \"test\", "
	    "\"path\": \"/foo/1\", \"value\": 2}]]",
	    "{\"baz\": \"qux\", \"foo\": [\"a\", 2]}" },
	{ "json.patch",
	    "[{\"baz\": \"qux\"}, [{\"op\": \"test\", \"path\": \"/baz\", "
	    "\"value\": \"bar\"}]]",
	    "!eval_builtin_error: json.patch: operation 0: test failed" },
	{ "json.patch",
	    "[{\"foo\": \"bar\"}, [{\"op\": \"add\", \"path\": \"/baz/bat\", "
	    "\"value\": \"qux\"}]]",
	    "!eval_builtin_error: path does not exist" },
	{ "json.patch",
	    "[{\"/\": 9, \"~1\": 10}, [{\"op\": \"test\", \"path\": \"/~01\", "
	    "\"value\": 10}]]",
	    "{\"/\": 9, \"~1\": 10}" },
	{ "json.patch",
	    "[{\"foo\": [\"bar\"]}, [{\"op\": \"add\", \"path\": \"/foo/-\", "
	    "\"value\": [\"abc\"]}]]",
	    "{\"foo\": [\"bar\", [\"abc\"]]}" },
	{ "json.patch",
	    "[{}, [{\"op\": \"add\", \"path\": \"\", \"value\": []}]]", "[]" },
	{ "json.patch",
	    "[[], [{\"op\": \"add\", \"path\": \"/-\", \"value\": \"hi\"}]]",
	    "[\"hi\"]" },
	{ "json.patch",
	    "[{}, [{\"op\": \"add\", \"path\": \"/\", \"value\": 1}]]",
	    "{\"\": 1}" },
	{ "json.patch",
	    "[[\"foo\", \"sil\"], [{\"op\": \"add\", \"path\": \"/2\", "
	    "\"value\": \"bar\"}]]",
	    "[\"foo\", \"sil\", \"bar\"]" },
	{ "json.patch",
	    "[[\"foo\", \"sil\"], [{\"op\": \"add\", \"path\": \"/3\", "
	    "\"value\": \"bar\"}]]",
	    "!eval_builtin_error: array index out of range" },
	{ "json.patch",
	    "[[1, 2, 3], [{\"op\": \"add\", \"path\": \"1.2\", \"value\": "
	    "\"foo\"}]]",
	    "!eval_builtin_error: invalid array index" },
	{ "json.patch",
	    "[[\"foo\", \"bar\"], [{\"op\": \"test\", \"path\": \"/01\", "
	    "\"value\": \"bar\"}]]",
	    "!eval_builtin_error: test failed" },
	{ "json.patch",
	    "[[1, 2, 3, 4], [{\"op\": \"remove\", \"path\": \"/1\"}, {\"op\": "
	    "\"remove\", \"path\": \"/2\"}]]",
	    "[1, 3]" },
	{ "json.patch",
	    "[[1, 2, [3, [4, 5]]], [{\"op\": \"add\", \"path\": \"/2/1/-\", "
	    "\"value\": 6}]]",
	    "[1, 2, [3, [4, 5, 6]]]" },
	{ "json.patch",
	    "[{\"foo\": 1}, [{\"op\": \"move\", \"from\": \"/foo\", \"path\": "
	    "\"/foo\"}]]",
	    "{\"foo\": 1}" },
	{ "json.patch",
	    "[{\"baz\": [1, 2], \"bar\": 1}, [{\"op\": \"copy\", \"from\": "
	    "\"/baz/1\", \"path\": \"/boo\"}]]",
	    "{\"baz\": [1, 2], \"bar\": 1, \"boo\": 2}" },
	{ "json.patch",
	    "[{\"foo\": 1}, [{\"op\": \"copy\", \"from\": \"/bar\", \"path\": "
	    "\"/foo\"}]]",
	    "!eval_builtin_error: \"from\" location does not exist" },
	{ "json.patch", "[{}, [{\"op\": \"add\", \"value\": \"bar\"}]]",
	    "!eval_builtin_error: missing or invalid \"path\"" },
	{ "json.patch", "[[1], [{\"op\": \"add\", \"path\": \"/-\"}]]",
	    "!eval_builtin_error: missing \"value\"" },
	{ "json.patch",
	    "[{\"foo\": 1}, [{\"op\": \"spam\", \"path\": \"/foo\", \"value\": "
	    "1}]]",
	    "!eval_builtin_error: unknown operation" },
	{ "json.patch",
	    "[{\"bar\": \"baz\"}, [{\"op\": \"replace\", \"path\": "
	    "\"/foo/bar\", "
	    "\"value\": false}]]",
	    "!eval_builtin_error: path does not exist" },
	{ "json.patch",
	    "[{\"a\": {\"b\": 1}}, [{\"op\": \"move\", \"from\": \"/a\", "
	    "\"path\": \"/a/b/c\"}]]",
	    "!eval_builtin_error: path does not exist" },
	{ "json.patch",
	    "[{\"a\": {\"b\": 1}}, [{\"op\": \"add\", \"path\": [\"a\", "
	    "\"c\"], "
	    "\"value\": 2}]]",
	    "{\"a\": {\"b\": 1, \"c\": 2}}" },
	{ "json.patch", "[{}, [1]]",
	    "!eval_type_error: json.patch: operand 2 must be array of objects "
	    "but got array containing number" },
	{ "json.patch", "[{}, {}]",
	    "!eval_type_error: json.patch: operand 2 must be array but got "
	    "object" },
};

int
main(void)
{
	bi_run(rows, AXG_ARRAY_LEN(rows));
	return tap_done();
}
