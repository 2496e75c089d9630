/* builtins-units.c: units.parse and units.parse_bytes (OPA's rules: quotes
 * removed, no spaces, a decimal or scientific amount then a unit). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

/* The largest decimal exponent accepted (OPA computes with big rationals;
 * we bound the size of the result). */
#define UNITS_EXP_MAX 1000

struct unit {
	const char *name;
	int dec; /* multiply by 10^dec */
	int bin; /* multiply by 2^bin */
};

/* units.parse: the first letter keeps its case (m is milli, M mega). */
static const struct unit units_si[] = {
	{ "", 0, 0 },
	{ "m", -3, 0 },
	{ "k", 3, 0 },
	{ "K", 3, 0 },
	{ "ki", 0, 10 },
	{ "Ki", 0, 10 },
	{ "M", 6, 0 },
	{ "mi", 0, 20 },
	{ "Mi", 0, 20 },
	{ "g", 9, 0 },
	{ "G", 9, 0 },
	{ "gi", 0, 30 },
	{ "Gi", 0, 30 },
	{ "t", 12, 0 },
	{ "T", 12, 0 },
	{ "ti", 0, 40 },
	{ "Ti", 0, 40 },
	{ "p", 15, 0 },
	{ "P", 15, 0 },
	{ "pi", 0, 50 },
	{ "Pi", 0, 50 },
	{ "e", 18, 0 },
	{ "E", 18, 0 },
	{ "ei", 0, 60 },
	{ "Ei", 0, 60 },
	{ NULL, 0, 0 },
};

/* units.parse_bytes: lower case. */
static const struct unit units_bytes[] = {
	{ "", 0, 0 },
	{ "k", 3, 0 },
	{ "kb", 3, 0 },
	{ "ki", 0, 10 },
	{ "kib", 0, 10 },
	{ "m", 6, 0 },
	{ "mb", 6, 0 },
	{ "mi", 0, 20 },
	{ "mib", 0, 20 },
	{ "g", 9, 0 },
	{ "gb", 9, 0 },
	{ "gi", 0, 30 },
	{ "gib", 0, 30 },
	{ "t", 12, 0 },
	{ "tb", 12, 0 },
	{ "ti", 0, 40 },
	{ "tib", 0, 40 },
	{ "p", 15, 0 },
	{ "pb", 15, 0 },
	{ "pi", 0, 50 },
	{ "pib", 0, 50 },
	{ "e", 18, 0 },
	{ "eb", 18, 0 },
	{ "ei", 0, 60 },
	{ "eib", 0, 60 },
	{ NULL, 0, 0 },
};

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* OPA's extractNumAndUnit: the length of the amount at the start of s. */
static size_t
amount_len(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!is_digit(c) && c != '.' && c != 'e' && c != 'E' &&
		    c != '+' && c != '-')
			return i;
		if (c == 'e' || c == 'E') {
			if (i == n - 1 ||
			    (!is_digit(s[i + 1]) && s[i + 1] != '+' &&
				s[i + 1] != '-'))
				return i;
			if (s[i + 1] == '+' || s[i + 1] == '-')
				i++;
		}
	}
	return n;
}

/* The amount times 10^dec as a number; NULL with *why on error. */
static struct axv *
parse_amount(const char *s, size_t n, int dec, const char **why)
{
	struct axg_buf d;
	size_t i = 0;
	long exp = 0, frac = 0;
	bool neg = false, digits = false, dot = false;
	struct axv *v = NULL;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	axg_buf_init(&d, 0);
	for (; i < n; i++) {
		if (is_digit(s[i])) {
			if (d.len > 0 || s[i] != '0')
				axg_buf_putc(&d, s[i]);
			digits = true;
			if (dot)
				frac++;
		} else if (s[i] == '.' && !dot) {
			dot = true;
		} else {
			break;
		}
	}
	if (!digits)
		goto bad;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		bool eneg = false, edig = false;
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		for (; i < n && is_digit(s[i]); i++) {
			edig = true;
			if (exp < 100000000)
				exp = exp * 10 + (s[i] - '0');
		}
		if (!edig)
			goto bad;
		if (eneg)
			exp = -exp;
	}
	if (i != n)
		goto bad;
	exp = exp - frac + dec;
	if (d.len == 0) {
		v = axv_int(0);
	} else if (exp > UNITS_EXP_MAX || exp < -UNITS_EXP_MAX) {
		*why = "exponent too large";
	} else {
		struct axg_buf t;
		long k;
		axg_buf_init(&t, 0);
		if (neg)
			axg_buf_putc(&t, '-');
		axg_buf_append(&t, d.data, d.len);
		if (exp >= 0)
			for (k = 0; k < exp; k++)
				axg_buf_putc(&t, '0');
		else
			axg_buf_printf(&t, "e%ld", exp);
		if (exp >= 0) {
			v = axv_number_parse(t.data, t.len);
		} else {
			/* A fraction: binary64, printed in its shortest form.
			 */
			double x = strtod(t.data, NULL);
			v = isfinite(x) ? axv_double(x) : NULL;
		}
		if (v == NULL)
			*why = "exponent too large";
		axg_buf_free(&t);
	}
	axg_buf_free(&d);
	return v;
bad:
	axg_buf_free(&d);
	*why = NULL;
	return NULL;
}

static int
units_common(struct axp_bctx *ctx, struct axv *const *args, struct axv **out,
    bool bytes)
{
	const struct unit *table = bytes ? units_bytes : units_si;
	const char *what = bytes ? "byte amount" : "amount";
	const char *why = NULL;
	struct axg_buf b;
	struct axv *v, *t;
	size_t i, an;
	char *unit;
	int rc = AXP_BI_ERROR;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	axg_buf_init(&b, 0);
	for (i = 0; i < axv_strlen(args[0]); i++) {
		char c = axv_str(args[0])[i];
		if (c != '"')
			axg_buf_putc(&b, c);
	}
	if (b.data == NULL)
		axg_buf_puts(&b, "");
	if (memchr(b.data, ' ', b.len) != NULL) {
		rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "spaces not allowed in resource strings");
		goto done;
	}
	if (bytes)
		axg_str_lower(b.data);
	an = amount_len(b.data, b.len);
	if (an == 0) {
		rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "no %s provided",
		    what);
		goto done;
	}
	unit = b.data + an;
	if (!bytes && unit[0] != '\0')
		axg_str_lower(unit + 1);
	for (i = 0; table[i].name != NULL; i++)
		if (strcmp(table[i].name, unit) == 0)
			break;
	if (table[i].name == NULL) {
		rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "unit %.64s not recognized", unit);
		goto done;
	}
	v = parse_amount(b.data, an, table[i].dec, &why);
	if (v == NULL) {
		if (why != NULL)
			rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "%s", why);
		else
			rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
			    "could not parse %s to a number", what);
		goto done;
	}
	if (table[i].bin > 0) {
		struct axv *m = axv_int((int64_t)1 << table[i].bin);
		t = axv_num_mul(v, m);
		axv_unref(m);
		axv_unref(v);
		v = t;
	}
	if (bytes && !axv_num_is_int(v)) {
		/* Truncate toward zero. */
		bool neg;
		char *dig = axv_num_int_digits(v, 10, &neg);
		char *txt = axg_asprintf("%s%s", neg ? "-" : "", dig);
		axv_unref(v);
		v = axv_number_parse(txt, strlen(txt));
		free(dig);
		free(txt);
	}
	*out = v;
	rc = AXP_BI_OK;
done:
	axg_buf_free(&b);
	return rc;
}

static int
bi_units_parse(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	return units_common(ctx, args, out, false);
}

static int
bi_units_parse_bytes(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	return units_common(ctx, args, out, true);
}

const struct axp_builtin axp_builtins_units[] = {
	{ "units.parse", 1, bi_units_parse, "(string) => number", 0 },
	{ "units.parse_bytes", 1, bi_units_parse_bytes, "(string) => number",
	    0 },
	{ NULL, 0, NULL, NULL, 0 },
};
