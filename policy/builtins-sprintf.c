/*
 * builtins-sprintf.c: the sprintf builtin with Go's fmt rules, as OPA
 * passes the values to Go: integers that fit int64 as int, larger ones as
 * *big.Int, other numbers as float64, strings as string, and everything
 * else as its Rego text (a string).  Wrong verbs and missing or extra
 * arguments are written into the result as Go writes them
 * ("%!d(string=x)", "%!d(MISSING)", "%!(EXTRA int=1)").
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtins.h"
#include "policy/value-extra-a.h"

enum arg_type { A_INT, A_BIG, A_FLOAT, A_STRING };

struct arg {
	enum arg_type type;
	int64_t i;
	double d;
	const struct axv *num; /* A_INT, A_BIG, A_FLOAT */
	char *s;	       /* A_STRING */
	size_t slen;
	bool owned; /* s is ours to free (else borrowed from the value) */
};

struct spec {
	bool minus, plus, sharp, space, zero;
	int width, prec; /* -1: none */
};

static const char *
type_name(const struct arg *a)
{
	static const char *const names[] = { "int", "*big.Int", "float64",
		"string" };

	return names[a->type];
}

/* Pad body (already signed) to the width. */
static void
pad(struct axg_buf *b, const struct spec *sp, const char *body, size_t n,
    bool zero_ok)
{
	size_t w = sp->width > 0 ? (size_t)sp->width : 0;
	size_t cps, i, sign = 0;

	if (w == 0 || n >= 4 * w) { /* no code point is over 4 bytes */
		axg_buf_append(b, body, n);
		return;
	}
	cps = axv_utf8_count(body, n);
	if (cps >= w) {
		axg_buf_append(b, body, n);
		return;
	}
	if (sp->minus) {
		axg_buf_append(b, body, n);
		for (i = cps; i < w; i++)
			axg_buf_putc(b, ' ');
		return;
	}
	if (sp->zero && zero_ok) {
		if (n > 0 &&
		    (body[0] == '-' || body[0] == '+' || body[0] == ' '))
			sign = 1;
		axg_buf_append(b, body, sign);
		for (i = cps; i < w; i++)
			axg_buf_putc(b, '0');
		axg_buf_append(b, body + sign, n - sign);
		return;
	}
	for (i = cps; i < w; i++)
		axg_buf_putc(b, ' ');
	axg_buf_append(b, body, n);
}

/* Go's strconv.Quote (simplified: printable non-ASCII is kept). */
static void
quote(struct axg_buf *b, const char *s, size_t n)
{
	size_t i = 0, l;
	uint32_t c;

	axg_buf_putc(b, '"');
	while (i < n) {
		l = axv_utf8_next(s + i, n - i, &c);
		if (c == 0xfffd && l == 1 &&
		    !(n - i >= 3 && memcmp(s + i, "\xef\xbf\xbd", 3) == 0)) {
			axg_buf_printf(b, "\\x%02x", (unsigned char)s[i]);
		} else if (c == '"' || c == '\\') {
			axg_buf_putc(b, '\\');
			axg_buf_putc(b, (char)c);
		} else if (c == '\a') {
			axg_buf_puts(b, "\\a");
		} else if (c == '\b') {
			axg_buf_puts(b, "\\b");
		} else if (c == '\f') {
			axg_buf_puts(b, "\\f");
		} else if (c == '\n') {
			axg_buf_puts(b, "\\n");
		} else if (c == '\r') {
			axg_buf_puts(b, "\\r");
		} else if (c == '\t') {
			axg_buf_puts(b, "\\t");
		} else if (c == '\v') {
			axg_buf_puts(b, "\\v");
		} else if (c < 0x20 || c == 0x7f) {
			axg_buf_printf(b, "\\x%02x", c);
		} else if (c >= 0x80 && c < 0xa0) {
			axg_buf_printf(b, "\\u%04x", c);
		} else {
			axg_buf_append(b, s + i, l);
		}
		i += l;
	}
	axg_buf_putc(b, '"');
}

/* An integer (digits in base, sign apart) with Go's flags: precision is
 * the minimum number of digits; '#' adds 0x / 0 / 0b. */
static void
put_int_digits(struct axg_buf *b, const struct spec *sp, bool neg,
    const char *digits, char verb)
{
	struct axg_buf t;
	size_t n = strlen(digits), i;

	axg_buf_init(&t, 0);
	if (neg)
		axg_buf_putc(&t, '-');
	else if (sp->plus)
		axg_buf_putc(&t, '+');
	else if (sp->space)
		axg_buf_putc(&t, ' ');
	if (verb == 'O')
		axg_buf_puts(&t, "0o");
	else if (sp->sharp && (verb == 'x' || verb == 'X'))
		axg_buf_puts(&t, verb == 'x' ? "0x" : "0X");
	else if (sp->sharp && verb == 'b')
		axg_buf_puts(&t, "0b");
	else if (sp->sharp && verb == 'o' && digits[0] != '0')
		axg_buf_putc(&t, '0');
	if (sp->prec == 0 && strcmp(digits, "0") == 0)
		n = 0, digits = "";
	for (i = n; sp->prec > 0 && i < (size_t)sp->prec; i++)
		axg_buf_putc(&t, '0');
	for (i = 0; i < n; i++)
		axg_buf_putc(&t,
		    verb == 'X' && digits[i] >= 'a' ? (char)(digits[i] - 32)
						    : digits[i]);
	pad(b, sp, t.data ? t.data : "", t.len, sp->prec < 0);
	axg_buf_free(&t);
}

/* The digits of |i| in base (2 to 16, lower case) into buf (at least 65
 * bytes); returns the start of the NUL-terminated digits. */
static char *
i64_digits(int64_t i, int base, char *buf, size_t n)
{
	uint64_t u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
	char *p = buf + n - 1;

	*p = '\0';
	do {
		*--p = "0123456789abcdef"[u % (unsigned)base];
		u /= (unsigned)base;
	} while (u > 0);
	return p;
}

static bool
spec_plain(const struct spec *sp)
{
	return !sp->minus && !sp->plus && !sp->sharp && !sp->space &&
	    sp->width < 0 && sp->prec < 0;
}

static void
fmt_integer(struct axg_buf *b, const struct spec *sp, const struct arg *a,
    char verb)
{
	int base = verb == 'x' || verb == 'X' ? 16
	    : verb == 'o' || verb == 'O'      ? 8
	    : verb == 'b'		      ? 2
					      : 10;
	bool neg;
	char *digits, buf[72];

	if (a->type == A_INT) {
		digits = i64_digits(a->i, base, buf, sizeof(buf));
		if (base == 10 && spec_plain(sp)) {
			if (a->i < 0)
				*--digits = '-';
			axg_buf_puts(b, digits);
			return;
		}
		put_int_digits(b, sp, a->i < 0, digits, verb);
		return;
	}
	digits = axv_num_int_digits(a->num, base, &neg);
	put_int_digits(b, sp, neg, digits, verb);
	free(digits);
}

/* Go's shortest %g / %v of a float64 (exponent form when exp < -4 or
 * exp >= eprec). */
static void
fmt_shortest(struct axg_buf *t, double d, int eprec_shortest)
{
	char buf[64], digits[32], *e;
	int p, exp, nd = 0, i;

	for (p = 0; p < 17; p++) {
		snprintf(buf, sizeof(buf), "%.*e", p, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	/* buf: [-]d.ddde[+-]xx */
	e = strchr(buf, 'e');
	exp = (int)strtol(e + 1, NULL, 10);
	for (i = 0; buf + i < e; i++)
		if (buf[i] >= '0' && buf[i] <= '9')
			digits[nd++] = buf[i];
	digits[nd] = '\0';
	if (d < 0)
		axg_buf_putc(t, '-');
	if (exp < -4 || exp >= eprec_shortest) {
		axg_buf_putc(t, digits[0]);
		if (nd > 1) {
			axg_buf_putc(t, '.');
			axg_buf_puts(t, digits + 1);
		}
		axg_buf_printf(t, "e%c%02d", exp < 0 ? '-' : '+',
		    exp < 0 ? -exp : exp);
		return;
	}
	if (exp < 0) {
		axg_buf_puts(t, "0.");
		for (i = -1; i > exp; i--)
			axg_buf_putc(t, '0');
		axg_buf_puts(t, digits);
		return;
	}
	for (i = 0; i <= exp || i < nd; i++) {
		if (i == exp + 1)
			axg_buf_putc(t, '.');
		axg_buf_putc(t, i < nd ? digits[i] : '0');
	}
}

/* C's printf for one float verb (literal formats only). */
static int
c_float(char *buf, size_t n, char verb, bool sharp, int prec, double d)
{
#define CF(v, f, fs)                                                           \
	case v:                                                                \
		return sharp ? snprintf(buf, n, fs, prec, d)                   \
			     : snprintf(buf, n, f, prec, d)
	switch (verb) {
		CF('e', "%.*e", "%#.*e");
		CF('E', "%.*E", "%#.*E");
		CF('f', "%.*f", "%#.*f");
		CF('F', "%.*F", "%#.*F");
		CF('g', "%.*g", "%#.*g");
		CF('G', "%.*G", "%#.*G");
		CF('a', "%.*a", "%#.*a");
		CF('A', "%.*A", "%#.*A");
	default:
		return snprintf(buf, n, "%.*g", prec, d);
	}
#undef CF
}

static void
fmt_float(struct axg_buf *b, const struct spec *sp, double d, char verb)
{
	struct axg_buf t;
	char buf[512];
	int n;

	axg_buf_init(&t, 0);
	if (sp->plus && !signbit(d))
		axg_buf_putc(&t, '+');
	else if (sp->space && !signbit(d))
		axg_buf_putc(&t, ' ');
	if ((verb == 'v' || verb == 'g' || verb == 'G') && sp->prec < 0 &&
	    !sp->sharp) {
		struct axg_buf s;
		axg_buf_init(&s, 0);
		fmt_shortest(&s, d, 6);
		if (verb == 'G')
			for (n = 0; (size_t)n < s.len; n++)
				if (s.data[n] == 'e')
					s.data[n] = 'E';
		axg_buf_append(&t, s.data, s.len);
		axg_buf_free(&s);
	} else {
		if (verb == 'v')
			verb = 'g';
		if (verb == 'x')
			verb = 'a';
		if (verb == 'X')
			verb = 'A';
		n = c_float(buf, sizeof(buf), verb, sp->sharp,
		    sp->prec < 0 ? (verb == 'a' || verb == 'A' ? -1 : 6)
				 : (sp->prec > 400 ? 400 : sp->prec),
		    d);
		if (n > 0)
			axg_buf_append(&t, buf,
			    (size_t)n < sizeof(buf) ? (size_t)n
						    : sizeof(buf) - 1);
	}
	pad(b, sp, t.data ? t.data : "", t.len, true);
	axg_buf_free(&t);
}

/* The %v text of an argument (for %!verb(type=value)). */
static void
put_plain(struct axg_buf *b, const struct arg *a)
{
	struct spec sp = { false, false, false, false, false, -1, -1 };

	switch (a->type) {
	case A_INT:
	case A_BIG:
		fmt_integer(b, &sp, a, 'd');
		break;
	case A_FLOAT:
		fmt_float(b, &sp, a->d, 'v');
		break;
	case A_STRING:
		axg_buf_append(b, a->s, a->slen);
		break;
	}
}

static void
bad_verb(struct axg_buf *b, char verb, const struct arg *a)
{
	axg_buf_printf(b, "%%!%c(%s=", verb, type_name(a));
	put_plain(b, a);
	axg_buf_putc(b, ')');
}

static void
format_one(struct axg_buf *b, const struct spec *sp, char verb,
    const struct arg *a)
{
	char enc[8];
	size_t n;

	if (verb == 'T') {
		pad(b, sp, type_name(a), strlen(type_name(a)), false);
		return;
	}
	switch (a->type) {
	case A_INT:
		if (strchr("bdoOxXv", verb) != NULL) {
			fmt_integer(b, sp, a, verb == 'v' ? 'd' : verb);
		} else if (verb == 'c' || verb == 'q' || verb == 'U') {
			uint32_t c = a->i < 0 || a->i > 0x10ffff
			    ? 0xfffd
			    : (uint32_t)a->i;
			struct axg_buf t;
			axg_buf_init(&t, 0);
			n = axv_utf8_put(c, enc);
			if (verb == 'c') {
				axg_buf_append(&t, enc, n);
			} else if (verb == 'U') {
				axg_buf_printf(&t, "U+%04" PRIX64, a->i);
			} else {
				axg_buf_putc(&t, '\'');
				if (c == '\'' || c == '\\')
					axg_buf_putc(&t, '\\');
				axg_buf_append(&t, enc, n);
				axg_buf_putc(&t, '\'');
			}
			pad(b, sp, t.data, t.len, false);
			axg_buf_free(&t);
		} else {
			bad_verb(b, verb, a);
		}
		return;
	case A_BIG:
		if (strchr("bdoxXsv", verb) != NULL)
			fmt_integer(b, sp, a,
			    verb == 'v' || verb == 's' ? 'd' : verb);
		else
			bad_verb(b, verb, a);
		return;
	case A_FLOAT:
		if (strchr("eEfFgGxXv", verb) != NULL)
			fmt_float(b, sp, a->d, verb);
		else
			bad_verb(b, verb, a);
		return;
	case A_STRING:
		if (verb == 's' || verb == 'v') {
			size_t len = a->slen;
			if (sp->prec >= 0)
				len = axv_utf8_offset(a->s, a->slen,
				    (size_t)sp->prec);
			pad(b, sp, a->s, len, true);
		} else if (verb == 'q') {
			struct axg_buf t;
			axg_buf_init(&t, 0);
			quote(&t, a->s, a->slen);
			pad(b, sp, t.data, t.len, false);
			axg_buf_free(&t);
		} else if (verb == 'x' || verb == 'X') {
			struct axg_buf t;
			size_t i;
			axg_buf_init(&t, 0);
			for (i = 0; i < a->slen; i++)
				axg_buf_printf(&t,
				    verb == 'x' ? "%s%02x" : "%s%02X",
				    sp->space && i > 0 ? " " : "",
				    (unsigned char)a->s[i]);
			pad(b, sp, t.data ? t.data : "", t.len, false);
			axg_buf_free(&t);
		} else {
			bad_verb(b, verb, a);
		}
		return;
	}
}

static void
make_arg(struct arg *a, const struct axv *v)
{
	memset(a, 0, sizeof(*a));
	switch (axv_kind(v)) {
	case AXV_NUMBER:
		a->num = v;
		if (axv_num_literal(v) != NULL) {
			/* OPA: neither an int64 nor a float64, so its text */
			a->type = A_STRING;
			a->s = (char *)axv_num_literal(v);
			a->slen = strlen(a->s);
			return;
		}
		if (axv_num_get_i64(v, &a->i))
			a->type = A_INT;
		else if (axv_num_is_int(v))
			a->type = A_BIG;
		else
			a->type = A_FLOAT;
		a->d = axv_num_get_double(v);
		return;
	case AXV_STRING:
		a->type = A_STRING;
		a->s = (char *)axv_str(v); /* borrowed: the args outlive us */
		a->slen = axv_strlen(v);
		return;
	default:
		a->type = A_STRING;
		a->s = axv_to_rego_string(v);
		a->slen = strlen(a->s);
		a->owned = true;
		return;
	}
}

/* Parse a number at *p (width or precision); -1 if none. */
static int
parse_num(const char **p, const char *end)
{
	int v = -1;

	while (*p < end && **p >= '0' && **p <= '9') {
		v = (v < 0 ? 0 : v) * 10 + (**p - '0');
		if (v > 1000000)
			v = 1000000;
		(*p)++;
	}
	return v;
}

/* "[n]" argument index at *p: sets *argi; false if malformed. */
static bool
parse_index(const char **p, const char *end, size_t nargs, size_t *argi,
    bool *reordered)
{
	const char *q = *p + 1;
	int v;

	v = parse_num(&q, end);
	if (q >= end || *q != ']' || v < 1 || (size_t)v > nargs) {
		while (*p < end && **p != ']')
			(*p)++;
		if (*p < end)
			(*p)++;
		return false;
	}
	*argi = (size_t)v - 1;
	*p = q + 1;
	*reordered = true;
	return true;
}

/* The common formats: only %s, %d and %v (and %%), each taking the next
 * argument, a string or an integer that fits int64 as Go prints them, and
 * as many arguments as verbs.  Writes the result in one pass; false if the
 * format or the arguments need the general path. */
static bool
sprintf_simple(const struct axv *fmt, const struct axv *arr, struct axv **out)
{
	const char *f = axv_str(fmt), *end = f + axv_strlen(fmt), *p;
	size_t nargs = axv_array_len(arr), argi = 0, len = 0;
	char buf[512], num[24];

	for (p = f; p < end; p++) {
		const struct axv *a;
		int64_t i;
		size_t n;
		if (*p != '%') {
			/* the literal text up to the next verb, at once */
			const char *q = memchr(p, '%', (size_t)(end - p));
			n = (size_t)((q ? q : end) - p);
			if (n > sizeof(buf) - len)
				return false;
			memcpy(buf + len, p, n);
			len += n;
			p += n - 1;
			continue;
		}
		if (++p == end)
			return false;
		if (*p == '%') {
			if (len == sizeof(buf))
				return false;
			buf[len++] = '%';
			continue;
		}
		if ((*p != 's' && *p != 'd' && *p != 'v') || argi == nargs)
			return false;
		a = axv_array_get(arr, argi++);
		if (axv_kind(a) == AXV_STRING && *p != 'd') {
			n = axv_strlen(a);
			if (n > sizeof(buf) - len)
				return false;
			memcpy(buf + len, axv_str(a), n);
			len += n;
			continue;
		}
		if (axv_kind(a) != AXV_NUMBER || *p == 's' ||
		    !axv_num_get_i64(a, &i))
			return false;
		{
			uint64_t u =
			    i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
			char *q = num + sizeof(num);
			do {
				*--q = (char)('0' + u % 10);
				u /= 10;
			} while (u != 0);
			if (i < 0)
				*--q = '-';
			n = (size_t)(num + sizeof(num) - q);
			if (n > sizeof(buf) - len)
				return false;
			memcpy(buf + len, q, n);
			len += n;
		}
	}
	if (argi != nargs)
		return false;
	*out = axv_string(buf, len);
	return true;
}

static int
bi_sprintf(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const char *p, *end;
	struct arg *av, avbuf[8];
	struct axg_buf b;
	char stack[256];
	size_t nargs, i, argi = 0, guess;
	bool reordered = false;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_ARRAY))
		return AXP_BI_ERROR;
	if (sprintf_simple(args[0], args[1], out))
		return AXP_BI_OK;
	nargs = axv_array_len(args[1]);
	av = nargs <= AXG_ARRAY_LEN(avbuf) ? avbuf
					   : axg_calloc(nargs, sizeof(*av));
	guess = axv_strlen(args[0]) + 16;
	for (i = 0; i < nargs; i++) {
		make_arg(&av[i], axv_array_get(args[1], i));
		if (av[i].type == A_STRING)
			guess += av[i].slen;
	}
	axg_buf_init_ext(&b, stack, sizeof(stack), AXP_BIA_STR_MAX);
	if (guess < AXP_BIA_STR_MAX)
		(void)axg_buf_reserve(&b, guess);
	p = axv_str(args[0]);
	end = p + axv_strlen(args[0]);
	while (p < end) {
		struct spec sp = { false, false, false, false, false, -1, -1 };
		const char *pct = memchr(p, '%', (size_t)(end - p));
		bool badidx = false;
		char verb;

		if (pct == NULL) {
			axg_buf_append(&b, p, (size_t)(end - p));
			break;
		}
		axg_buf_append(&b, p, (size_t)(pct - p));
		p = pct + 1;
		for (; p < end; p++) {
			if (*p == '-')
				sp.minus = true, sp.zero = false;
			else if (*p == '+')
				sp.plus = true;
			else if (*p == '#')
				sp.sharp = true;
			else if (*p == ' ')
				sp.space = true;
			else if (*p == '0')
				sp.zero = !sp.minus;
			else
				break;
		}
		if (p < end && *p == '[')
			badidx |=
			    !parse_index(&p, end, nargs, &argi, &reordered);
		if (p < end && *p == '*') {
			p++;
			if (argi < nargs && av[argi].type == A_INT &&
			    av[argi].i > -1000000 && av[argi].i < 1000000) {
				sp.width = (int)av[argi].i;
				if (sp.width < 0) {
					sp.minus = true;
					sp.zero = false;
					sp.width = -sp.width;
				}
			} else {
				axg_buf_puts(&b, "%!(BADWIDTH)");
			}
			argi++;
		} else {
			sp.width = parse_num(&p, end);
		}
		if (p < end && *p == '.') {
			p++;
			if (p < end && *p == '[')
				badidx |= !parse_index(&p, end, nargs, &argi,
				    &reordered);
			if (p < end && *p == '*') {
				p++;
				if (argi < nargs && av[argi].type == A_INT &&
				    av[argi].i >= 0 && av[argi].i < 1000000) {
					sp.prec = (int)av[argi].i;
				} else {
					axg_buf_puts(&b, "%!(BADPREC)");
				}
				argi++;
			} else {
				sp.prec = parse_num(&p, end);
				if (sp.prec < 0)
					sp.prec = 0;
			}
		}
		if (p < end && *p == '[')
			badidx |=
			    !parse_index(&p, end, nargs, &argi, &reordered);
		if (p >= end) {
			axg_buf_puts(&b, "%!(NOVERB)");
			break;
		}
		verb = *p++;
		if ((unsigned char)verb >= 0x80) {
			/* A multi-byte verb: copy the code point. */
			uint32_t c;
			size_t l =
			    axv_utf8_next(p - 1, (size_t)(end - p + 1), &c);
			axg_buf_puts(&b, "%!");
			axg_buf_append(&b, p - 1, l);
			axg_buf_puts(&b, "(BADVERB)");
			p += l - 1;
			continue;
		}
		if (verb == '%') {
			axg_buf_putc(&b, '%');
			continue;
		}
		if (badidx) {
			axg_buf_printf(&b, "%%!%c(BADINDEX)", verb);
			continue;
		}
		if (argi >= nargs) {
			axg_buf_printf(&b, "%%!%c(MISSING)", verb);
			continue;
		}
		if (av[argi].type == A_STRING && (verb == 's' || verb == 'v') &&
		    spec_plain(&sp)) { /* the common case, without a copy */
			axg_buf_append(&b, av[argi].s, av[argi].slen);
			argi++;
			continue;
		}
		format_one(&b, &sp, verb, &av[argi++]);
	}
	if (!reordered && argi < nargs) {
		axg_buf_puts(&b, "%!(EXTRA ");
		for (i = argi; i < nargs; i++) {
			if (i > argi)
				axg_buf_puts(&b, ", ");
			axg_buf_printf(&b, "%s=", type_name(&av[i]));
			put_plain(&b, &av[i]);
		}
		axg_buf_putc(&b, ')');
	}
	for (i = 0; i < nargs; i++)
		if (av[i].owned)
			free(av[i].s);
	if (av != avbuf)
		free(av);
	if (b.len + 1 >= AXP_BIA_STR_MAX) {
		axg_buf_free(&b);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "result over %d bytes", AXP_BIA_STR_MAX);
	}
	*out = axv_string(b.data ? b.data : "", b.len);
	axg_buf_free(&b);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_sprintf[] = {
	{ "sprintf", 2, bi_sprintf, "(string, array[any]) => string", 0 },
	{ NULL, 0, NULL, NULL, 0 },
};
