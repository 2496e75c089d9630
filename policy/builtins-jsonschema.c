/*
 * builtins-jsonschema.c: json.verify_schema and json.match_schema.
 *
 * A JSON Schema (draft 4/6/7) subset: type, enum, const, properties,
 * required, additionalProperties, items (one schema or a tuple),
 * additionalItems, min/maxItems, uniqueItems, min/maxLength, minimum,
 * maximum, exclusiveMinimum/Maximum (both the boolean and the number
 * forms), multipleOf, min/maxProperties, allOf, anyOf, oneOf and not.
 * Keywords outside the subset are ignored, as a validator ignores unknown
 * keywords.  Messages and error objects follow OPA (gojsonschema).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "policy/builtins.h"

#define SCHEMA_MAX_DEPTH  64
#define SCHEMA_MAX_ERRORS 256

static const char *const types[] = { "array", "boolean", "integer", "number",
	"null", "object", "string" };

/* A schema or document given as a value or as JSON text. */
static struct axv *
operand(struct axp_bctx *ctx, struct axv *v, int pos, bool *bad)
{
	char err[256];
	struct axv *r;

	*bad = false;
	if (axv_kind(v) != AXV_STRING)
		return axv_ref(v);
	r = axv_from_json(axv_str(v), axv_strlen(v), NULL, err, sizeof(err));
	if (r == NULL) {
		*bad = true;
		axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "operand %d: invalid JSON: %s", pos, err);
	}
	return r;
}

static bool
valid_type(const struct axv *t)
{
	if (axv_kind(t) != AXV_STRING)
		return false;
	for (size_t i = 0; i < AXG_ARRAY_LEN(types); i++)
		if (strcmp(axv_str(t), types[i]) == 0)
			return true;
	return false;
}

/* Check the schema itself; 0 or -1 with the message in msg. */
static int
check_schema(const struct axv *s, int depth, char *msg, size_t msglen)
{
	static const char *const subs[] = { "properties", "patternProperties",
		"definitions", "$defs", "dependencies" };
	static const char *const lists[] = { "allOf", "anyOf", "oneOf" };
	static const char *const ones[] = { "additionalProperties", "not",
		"additionalItems", "contains", "propertyNames", "if", "then",
		"else" };
	struct axv *t, *items;

	if (depth > SCHEMA_MAX_DEPTH)
		return axg_seterr(msg, msglen, "schema nested too deeply");
	if (axv_kind(s) == AXV_BOOL)
		return 0;
	if (axv_kind(s) != AXV_OBJECT)
		return axg_seterr(msg, msglen, "Invalid JSON");
	if ((t = axv_object_gets(s, "type")) != NULL) {
		const struct axv *bad = NULL;

		if (axv_kind(t) == AXV_ARRAY) {
			for (size_t i = 0; i < axv_array_len(t); i++)
				if (!valid_type(axv_array_get(t, i)))
					bad = axv_array_get(t, i);
		} else if (!valid_type(t)) {
			bad = t;
		}
		if (bad != NULL) {
			char *j = axv_json_str(bad);
			const char *p = j;
			size_t n = strlen(j);

			if (axv_kind(bad) == AXV_STRING) {
				p++;
				n -= 2;
			}
			axg_seterr(msg, msglen,
			    "has a primitive type that is NOT VALID -- given: "
			    "/%.*s/ Expected valid values are:[array boolean "
			    "integer number null object string]",
			    (int)n, p);
			free(j);
			return -1;
		}
	}
	for (size_t i = 0; i < AXG_ARRAY_LEN(subs); i++) {
		struct axv *o = axv_object_gets(s, subs[i]);

		if (o == NULL || axv_kind(o) != AXV_OBJECT)
			continue;
		for (size_t k = 0; k < axv_object_len(o); k++) {
			struct axv *d = axv_object_val(o, k);

			if (axv_kind(d) == AXV_ARRAY) /* dependencies */
				continue;
			if (check_schema(d, depth + 1, msg, msglen) < 0)
				return -1;
		}
	}
	for (size_t i = 0; i < AXG_ARRAY_LEN(lists); i++) {
		struct axv *a = axv_object_gets(s, lists[i]);

		if (a == NULL)
			continue;
		if (axv_kind(a) != AXV_ARRAY || axv_array_len(a) == 0)
			return axg_seterr(msg, msglen,
			    "%s must be a non-empty array", lists[i]);
		for (size_t k = 0; k < axv_array_len(a); k++)
			if (check_schema(axv_array_get(a, k), depth + 1, msg,
				msglen) < 0)
				return -1;
	}
	for (size_t i = 0; i < AXG_ARRAY_LEN(ones); i++) {
		struct axv *o = axv_object_gets(s, ones[i]);

		if (o != NULL && check_schema(o, depth + 1, msg, msglen) < 0)
			return -1;
	}
	if ((items = axv_object_gets(s, "items")) != NULL) {
		if (axv_kind(items) == AXV_ARRAY) {
			for (size_t k = 0; k < axv_array_len(items); k++)
				if (check_schema(axv_array_get(items, k),
					depth + 1, msg, msglen) < 0)
					return -1;
		} else if (check_schema(items, depth + 1, msg, msglen) < 0) {
			return -1;
		}
	}
	return 0;
}

/* ---- validation ---- */

struct vstate {
	struct axv *errors; /* array of error objects */
	bool quiet;	    /* only whether it matches (anyOf, oneOf, not) */
	size_t nerr;
};

static const char *
json_type(const struct axv *v)
{
	switch (axv_kind(v)) {
	case AXV_NULL:
		return "null";
	case AXV_BOOL:
		return "boolean";
	case AXV_NUMBER:
		return axv_num_is_int(v) ? "integer" : "number";
	case AXV_STRING:
		return "string";
	case AXV_ARRAY:
	case AXV_SET:
		return "array";
	default:
		return "object";
	}
}

static void add_error(struct vstate *vs, const char *field, const char *type,
    const char *fmt, ...) AXG_PRINTF(4, 5);

static void
add_error(struct vstate *vs, const char *field, const char *type,
    const char *fmt, ...)
{
	char desc[512], full[1024];
	struct axv *o;
	va_list ap;

	vs->nerr++;
	if (vs->quiet || vs->nerr > SCHEMA_MAX_ERRORS)
		return;
	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "%s: %s", field, desc);
	o = axv_object_new(4);
	axv_object_put(o, axv_cstr("desc"), axv_cstr(desc));
	axv_object_put(o, axv_cstr("error"), axv_cstr(full));
	axv_object_put(o, axv_cstr("field"), axv_cstr(field));
	axv_object_put(o, axv_cstr("type"), axv_cstr(type));
	axv_array_push(vs->errors, o);
}

static bool
type_matches(const char *want, const struct axv *v)
{
	const char *got = json_type(v);

	if (strcmp(want, got) == 0)
		return true;
	return strcmp(want, "number") == 0 && strcmp(got, "integer") == 0;
}

static char *
child_field(const char *field, const char *key)
{
	char *s;

	if (strcmp(field, "(root)") == 0)
		return axg_strdup(key);
	s = axg_asprintf("%s.%s", field, key);
	return s;
}

static void validate(struct vstate *vs, const struct axv *s,
    const struct axv *v, const char *field, int depth);

/* Does v match s (no errors recorded)? */
static bool
matches(const struct axv *s, const struct axv *v, const char *field, int depth)
{
	struct vstate q = { NULL, true, 0 };

	validate(&q, s, v, field, depth);
	return q.nerr == 0;
}

static double
num(const struct axv *v)
{
	return axv_num_get_double(v);
}

static void
validate_number(struct vstate *vs, const struct axv *s, const struct axv *v,
    const char *field)
{
	struct axv *m;
	double d = num(v);
	bool exmin = false, exmax = false;

	if ((m = axv_object_gets(s, "exclusiveMinimum")) != NULL) {
		if (axv_kind(m) == AXV_BOOL)
			exmin = axv_bool_get(m);
		else if (axv_kind(m) == AXV_NUMBER && !(d > num(m)))
			add_error(vs, field, "number_gt",
			    "Must be greater than %g", num(m));
	}
	if ((m = axv_object_gets(s, "exclusiveMaximum")) != NULL) {
		if (axv_kind(m) == AXV_BOOL)
			exmax = axv_bool_get(m);
		else if (axv_kind(m) == AXV_NUMBER && !(d < num(m)))
			add_error(vs, field, "number_lt",
			    "Must be less than %g", num(m));
	}
	if ((m = axv_object_gets(s, "minimum")) != NULL &&
	    axv_kind(m) == AXV_NUMBER) {
		if (exmin ? !(d > num(m)) : !(d >= num(m)))
			add_error(vs, field, exmin ? "number_gt" : "number_gte",
			    exmin ? "Must be greater than %g"
				  : "Must be greater than or equal to %g",
			    num(m));
	}
	if ((m = axv_object_gets(s, "maximum")) != NULL &&
	    axv_kind(m) == AXV_NUMBER) {
		if (exmax ? !(d < num(m)) : !(d <= num(m)))
			add_error(vs, field, exmax ? "number_lt" : "number_lte",
			    exmax ? "Must be less than %g"
				  : "Must be less than or equal to %g",
			    num(m));
	}
	if ((m = axv_object_gets(s, "multipleOf")) != NULL &&
	    axv_kind(m) == AXV_NUMBER && num(m) > 0) {
		double q = d / num(m);

		if (q != (double)(long long)q)
			add_error(vs, field, "multiple_of",
			    "Must be a multiple of %g", num(m));
	}
}

static size_t
utf8_len(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			c++;
	return c;
}

static bool
get_count(const struct axv *s, const char *key, int64_t *out)
{
	struct axv *m = axv_object_gets(s, key);

	return m != NULL && axv_kind(m) == AXV_NUMBER &&
	    axv_num_get_i64(m, out);
}

static void
validate_object(struct vstate *vs, const struct axv *s, const struct axv *v,
    const char *field, int depth)
{
	struct axv *props = axv_object_gets(s, "properties");
	struct axv *req = axv_object_gets(s, "required");
	struct axv *addl = axv_object_gets(s, "additionalProperties");
	int64_t lim;

	if (req != NULL && axv_kind(req) == AXV_ARRAY)
		for (size_t i = 0; i < axv_array_len(req); i++) {
			struct axv *k = axv_array_get(req, i);

			if (axv_kind(k) == AXV_STRING &&
			    axv_object_get(v, k) == NULL)
				add_error(vs, field, "required",
				    "%s is required", axv_str(k));
		}
	for (size_t i = 0; i < axv_object_len(v); i++) {
		struct axv *k = axv_object_key(v, i);
		struct axv *ps = NULL;
		char *cf;

		if (axv_kind(k) != AXV_STRING)
			continue;
		if (props != NULL && axv_kind(props) == AXV_OBJECT)
			ps = axv_object_get(props, k);
		cf = child_field(field, axv_str(k));
		if (ps != NULL) {
			validate(vs, ps, axv_object_val(v, i), cf, depth + 1);
		} else if (addl != NULL) {
			if (axv_kind(addl) == AXV_BOOL && !axv_bool_get(addl))
				add_error(vs, field,
				    "additional_property_not_allowed",
				    "Additional property %s is not allowed",
				    axv_str(k));
			else if (axv_kind(addl) == AXV_OBJECT)
				validate(vs, addl, axv_object_val(v, i), cf,
				    depth + 1);
		}
		free(cf);
	}
	if (get_count(s, "minProperties", &lim) &&
	    (int64_t)axv_object_len(v) < lim)
		add_error(vs, field, "array_min_properties",
		    "Must have at least %lld properties", (long long)lim);
	if (get_count(s, "maxProperties", &lim) &&
	    (int64_t)axv_object_len(v) > lim)
		add_error(vs, field, "array_max_properties",
		    "Must have at most %lld properties", (long long)lim);
}

static void
validate_array(struct vstate *vs, const struct axv *s, const struct axv *v,
    const char *field, int depth)
{
	struct axv *items = axv_object_gets(s, "items");
	struct axv *addl = axv_object_gets(s, "additionalItems");
	size_t n = axv_array_len(v);
	int64_t lim;

	for (size_t i = 0; items != NULL && i < n; i++) {
		const struct axv *is = items;
		char key[32];
		char *cf;

		if (axv_kind(items) == AXV_ARRAY) {
			if (i < axv_array_len(items)) {
				is = axv_array_get(items, i);
			} else if (addl != NULL && axv_kind(addl) == AXV_BOOL &&
			    !axv_bool_get(addl)) {
				add_error(vs, field,
				    "array_no_additional_items",
				    "No additional items allowed on array");
				break;
			} else if (addl != NULL &&
			    axv_kind(addl) == AXV_OBJECT) {
				is = addl;
			} else {
				break;
			}
		}
		snprintf(key, sizeof(key), "%zu", i);
		cf = child_field(field, key);
		validate(vs, is, axv_array_get(v, i), cf, depth + 1);
		free(cf);
	}
	if (get_count(s, "minItems", &lim) && (int64_t)n < lim)
		add_error(vs, field, "array_min_items",
		    "Array must have at least %lld items", (long long)lim);
	if (get_count(s, "maxItems", &lim) && (int64_t)n > lim)
		add_error(vs, field, "array_max_items",
		    "Array must have at most %lld items", (long long)lim);
	if ((items = axv_object_gets(s, "uniqueItems")) != NULL &&
	    axv_is_true(items))
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (axv_equal(axv_array_get(v, i),
					axv_array_get(v, j))) {
					add_error(vs, field, "unique",
					    "array items[%zu,%zu] must be "
					    "unique",
					    i, j);
					return;
				}
}

static void
validate(struct vstate *vs, const struct axv *s, const struct axv *v,
    const char *field, int depth)
{
	struct axv *t, *m;
	int64_t lim;

	if (depth > SCHEMA_MAX_DEPTH) {
		add_error(vs, field, "depth", "document nested too deeply");
		return;
	}
	if (axv_kind(s) == AXV_BOOL) {
		if (!axv_bool_get(s))
			add_error(vs, field, "false",
			    "False always fails validation");
		return;
	}
	if (axv_kind(s) != AXV_OBJECT)
		return;
	if ((t = axv_object_gets(s, "type")) != NULL) {
		bool ok = false;
		struct axg_buf want;

		axg_buf_init(&want, 0);
		if (axv_kind(t) == AXV_STRING) {
			ok = type_matches(axv_str(t), v);
			axg_buf_puts(&want, axv_str(t));
		} else if (axv_kind(t) == AXV_ARRAY) {
			for (size_t i = 0; i < axv_array_len(t); i++) {
				struct axv *e = axv_array_get(t, i);

				if (axv_kind(e) != AXV_STRING)
					continue;
				ok = ok || type_matches(axv_str(e), v);
				axg_buf_printf(&want, "%s%s", i ? "," : "",
				    axv_str(e));
			}
		} else {
			ok = true;
		}
		if (!ok) {
			add_error(vs, field, "invalid_type",
			    "Invalid type. Expected: %s, given: %s",
			    want.data ? want.data : "", json_type(v));
			axg_buf_free(&want);
			return;
		}
		axg_buf_free(&want);
	}
	if ((m = axv_object_gets(s, "enum")) != NULL &&
	    axv_kind(m) == AXV_ARRAY) {
		bool found = false;

		for (size_t i = 0; i < axv_array_len(m) && !found; i++)
			found = axv_equal(axv_array_get(m, i), v);
		if (!found) {
			char *j = axv_json_str(m);

			add_error(vs, field, "enum",
			    "%s must be one of the following: %s", field, j);
			free(j);
		}
	}
	if ((m = axv_object_gets(s, "const")) != NULL && !axv_equal(m, v))
		add_error(vs, field, "const", "%s does not match", field);
	switch (axv_kind(v)) {
	case AXV_NUMBER:
		validate_number(vs, s, v, field);
		break;
	case AXV_STRING:
		if (get_count(s, "minLength", &lim) &&
		    (int64_t)utf8_len(axv_str(v), axv_strlen(v)) < lim)
			add_error(vs, field, "string_gte",
			    "String length must be greater than or equal to "
			    "%lld",
			    (long long)lim);
		if (get_count(s, "maxLength", &lim) &&
		    (int64_t)utf8_len(axv_str(v), axv_strlen(v)) > lim)
			add_error(vs, field, "string_lte",
			    "String length must be less than or equal to %lld",
			    (long long)lim);
		break;
	case AXV_OBJECT:
		validate_object(vs, s, v, field, depth);
		break;
	case AXV_ARRAY:
		validate_array(vs, s, v, field, depth);
		break;
	default:
		break;
	}
	if ((m = axv_object_gets(s, "allOf")) != NULL &&
	    axv_kind(m) == AXV_ARRAY)
		for (size_t i = 0; i < axv_array_len(m); i++)
			validate(vs, axv_array_get(m, i), v, field, depth + 1);
	if ((m = axv_object_gets(s, "anyOf")) != NULL &&
	    axv_kind(m) == AXV_ARRAY) {
		bool any = false;

		for (size_t i = 0; i < axv_array_len(m) && !any; i++)
			any = matches(axv_array_get(m, i), v, field, depth + 1);
		if (!any)
			add_error(vs, field, "number_any_of",
			    "Must validate at least one schema (anyOf)");
	}
	if ((m = axv_object_gets(s, "oneOf")) != NULL &&
	    axv_kind(m) == AXV_ARRAY) {
		size_t n = 0;

		for (size_t i = 0; i < axv_array_len(m); i++)
			n += matches(axv_array_get(m, i), v, field, depth + 1);
		if (n != 1)
			add_error(vs, field, "number_one_of",
			    "Must validate one and only one schema (oneOf)");
	}
	if ((m = axv_object_gets(s, "not")) != NULL &&
	    matches(m, v, field, depth + 1))
		add_error(vs, field, "number_not",
		    "Must not validate the schema (not)");
}

/* json.verify_schema(schema): [true, null] or [false, "message"]. */
static int
bi_verify_schema(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	char msg[512];
	struct axv *s, *r;
	bool bad;

	if (axv_kind(args[0]) != AXV_STRING &&
	    axv_kind(args[0]) != AXV_OBJECT && axv_kind(args[0]) != AXV_BOOL)
		return axp_bi_type_error(ctx, 1, "one of {string, object}",
		    args[0]);
	s = operand(ctx, args[0], 1, &bad);
	r = axv_array_new(2);
	if (s == NULL) {
		axv_array_push(r, axv_bool(false));
		axv_array_push(r, axv_cstr(ctx->msg));
		ctx->msg[0] = '\0';
	} else if (check_schema(s, 0, msg, sizeof(msg)) < 0) {
		char full[600];

		snprintf(full, sizeof(full), "jsonschema: %s", msg);
		axv_array_push(r, axv_bool(false));
		axv_array_push(r, axv_cstr(full));
	} else {
		axv_array_push(r, axv_bool(true));
		axv_array_push(r, axv_null());
	}
	(void)bad;
	axv_unref(s);
	*out = r;
	return AXP_BI_OK;
}

/* json.match_schema(document, schema): [true, []] or [false, errors]. */
static int
bi_match_schema(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	char msg[512];
	struct axv *doc = NULL, *s = NULL, *r;
	struct vstate vs = { NULL, false, 0 };
	bool bad;
	int rc = AXP_BI_ERROR;

	if (axv_kind(args[1]) != AXV_STRING &&
	    axv_kind(args[1]) != AXV_OBJECT && axv_kind(args[1]) != AXV_BOOL)
		return axp_bi_type_error(ctx, 2, "one of {string, object}",
		    args[1]);
	if ((doc = operand(ctx, args[0], 1, &bad)) == NULL)
		goto out;
	if ((s = operand(ctx, args[1], 2, &bad)) == NULL)
		goto out;
	if (check_schema(s, 0, msg, sizeof(msg)) < 0) {
		axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "%s", msg);
		goto out;
	}
	vs.errors = axv_array_new(0);
	validate(&vs, s, doc, "(root)", 0);
	r = axv_array_new(2);
	axv_array_push(r, axv_bool(vs.nerr == 0));
	axv_array_push(r, vs.errors);
	*out = r;
	rc = AXP_BI_OK;
out:
	axv_unref(doc);
	axv_unref(s);
	return rc;
}

const struct axp_builtin axp_builtins_jsonschema[] = {
	{ "json.verify_schema", 1, bi_verify_schema,
	    "(any<string, object>) => array<boolean, any<null, string>>", 0 },
	{ "json.match_schema", 2, bi_match_schema,
	    "(any<string, object>, any<string, object>) => "
	    "array<boolean, array[object]>",
	    0 },
	{ NULL, 0, NULL, NULL, 0 },
};
