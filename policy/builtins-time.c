/*
 * builtins-time.c: time.now_ns, time.parse_ns, time.parse_rfc3339_ns,
 * time.parse_duration_ns, time.date, time.clock, time.weekday,
 * time.add_date, time.diff, time.format.
 *
 * Layouts are Go's reference-time layouts ("2006-01-02T15:04:05Z07:00"),
 * parsed and formatted as Go's time package does; zones come from the
 * system tz database (policy/tzfile.c).  Results are nanoseconds since the
 * epoch and must fit int64, as in OPA.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policy/builtins.h"
#include "policy/tzfile.h"
#include "policy/value-extra-b.h"

#define NS_PER_S INT64_C(1000000000)

enum std {
	STD_NONE = 0,
	STD_MONTH,
	STD_LONG_MONTH,
	STD_NUM_MONTH,
	STD_ZERO_MONTH,
	STD_WEEKDAY,
	STD_LONG_WEEKDAY,
	STD_DAY,
	STD_UNDER_DAY,
	STD_ZERO_DAY,
	STD_UNDER_YDAY,
	STD_ZERO_YDAY,
	STD_HOUR,
	STD_HOUR12,
	STD_ZERO_HOUR12,
	STD_MINUTE,
	STD_ZERO_MINUTE,
	STD_SECOND,
	STD_ZERO_SECOND,
	STD_LONG_YEAR,
	STD_YEAR,
	STD_PM,
	STD_pm,
	STD_TZ,
	STD_ISO_TZ,	    /* Z0700 */
	STD_ISO_SECS_TZ,    /* Z070000 */
	STD_ISO_SHORT_TZ,   /* Z07 */
	STD_ISO_COLON_TZ,   /* Z07:00 */
	STD_ISO_COLON_SECS, /* Z07:00:00 */
	STD_NUM_TZ,	    /* -0700 */
	STD_NUM_SECS_TZ,    /* -070000 */
	STD_NUM_SHORT_TZ,   /* -07 */
	STD_NUM_COLON_TZ,   /* -07:00 */
	STD_NUM_COLON_SECS, /* -07:00:00 */
	STD_FRAC0,	    /* .000 */
	STD_FRAC9,	    /* .999 */
};

struct chunk {
	size_t prefix; /* literal bytes before the element */
	enum std std;
	size_t len; /* bytes of the element in the layout */
	int digits; /* fractional seconds */
};

static const char *const month_names[] = { "January", "February", "March",
	"April", "May", "June", "July", "August", "September", "October",
	"November", "December" };
static const char *const day_names[] = { "Sunday", "Monday", "Tuesday",
	"Wednesday", "Thursday", "Friday", "Saturday" };

static const struct {
	const char *name, *layout;
} named_layouts[] = {
	{ "ANSIC", "Mon Jan _2 15:04:05 2006" },
	{ "UnixDate", "Mon Jan _2 15:04:05 MST 2006" },
	{ "RubyDate", "Mon Jan 02 15:04:05 -0700 2006" },
	{ "RFC822", "02 Jan 06 15:04 MST" },
	{ "RFC822Z", "02 Jan 06 15:04 -0700" },
	{ "RFC850", "Monday, 02-Jan-06 15:04:05 MST" },
	{ "RFC1123", "Mon, 02 Jan 2006 15:04:05 MST" },
	{ "RFC1123Z", "Mon, 02 Jan 2006 15:04:05 -0700" },
	{ "RFC3339", "2006-01-02T15:04:05Z07:00" },
	{ "RFC3339Nano", "2006-01-02T15:04:05.999999999Z07:00" },
	{ "Kitchen", "3:04PM" },
	{ "Stamp", "Jan _2 15:04:05" },
	{ "StampMilli", "Jan _2 15:04:05.000" },
	{ "StampMicro", "Jan _2 15:04:05.000000" },
	{ "StampNano", "Jan _2 15:04:05.000000000" },
	{ "DateTime", "2006-01-02 15:04:05" },
	{ "DateOnly", "2006-01-02" },
	{ "TimeOnly", "15:04:05" },
};

static const char *
resolve_layout(const char *l)
{
	size_t i;

	for (i = 0; i < AXG_ARRAY_LEN(named_layouts); i++)
		if (strcmp(l, named_layouts[i].name) == 0)
			return named_layouts[i].layout;
	return l;
}

static bool
starts(const char *s, size_t n, const char *w)
{
	size_t l = strlen(w);

	return n >= l && memcmp(s, w, l) == 0;
}

static bool
isdig(char c)
{
	return c >= '0' && c <= '9';
}

/* Go's nextStdChunk. */
static struct chunk
next_chunk(const char *l, size_t n)
{
	struct chunk c = { n, STD_NONE, 0, 0 };
	size_t i;

#define RET(std_, len_)                                                        \
	do {                                                                   \
		c.prefix = i;                                                  \
		c.std = (std_);                                                \
		c.len = (len_);                                                \
		return c;                                                      \
	} while (0)

	for (i = 0; i < n; i++) {
		const char *p = l + i;
		size_t r = n - i;
		switch (*p) {
		case 'J':
			if (starts(p, r, "Jan")) {
				if (starts(p, r, "January"))
					RET(STD_LONG_MONTH, 7);
				if (!(r > 3 && p[3] >= 'a' && p[3] <= 'z'))
					RET(STD_MONTH, 3);
			}
			break;
		case 'M':
			if (starts(p, r, "Mon")) {
				if (starts(p, r, "Monday"))
					RET(STD_LONG_WEEKDAY, 6);
				if (!(r > 3 && p[3] >= 'a' && p[3] <= 'z'))
					RET(STD_WEEKDAY, 3);
			}
			if (starts(p, r, "MST"))
				RET(STD_TZ, 3);
			break;
		case '0':
			if (r >= 2 && p[1] >= '1' && p[1] <= '6') {
				static const enum std z[] = { STD_ZERO_MONTH,
					STD_ZERO_DAY, STD_ZERO_HOUR12,
					STD_ZERO_MINUTE, STD_ZERO_SECOND,
					STD_YEAR };
				RET(z[p[1] - '1'], 2);
			}
			if (starts(p, r, "002"))
				RET(STD_ZERO_YDAY, 3);
			break;
		case '1':
			if (r >= 2 && p[1] == '5')
				RET(STD_HOUR, 2);
			RET(STD_NUM_MONTH, 1);
		case '2':
			if (starts(p, r, "2006"))
				RET(STD_LONG_YEAR, 4);
			RET(STD_DAY, 1);
		case '_':
			if (r >= 2 && p[1] == '2') {
				if (starts(p + 1, r - 1, "2006")) {
					i++;
					RET(STD_LONG_YEAR, 4);
				}
				RET(STD_UNDER_DAY, 2);
			}
			if (starts(p, r, "__2"))
				RET(STD_UNDER_YDAY, 3);
			break;
		case '3':
			RET(STD_HOUR12, 1);
		case '4':
			RET(STD_MINUTE, 1);
		case '5':
			RET(STD_SECOND, 1);
		case 'P':
			if (r >= 2 && p[1] == 'M')
				RET(STD_PM, 2);
			break;
		case 'p':
			if (r >= 2 && p[1] == 'm')
				RET(STD_pm, 2);
			break;
		case '-':
			if (starts(p, r, "-070000"))
				RET(STD_NUM_SECS_TZ, 7);
			if (starts(p, r, "-07:00:00"))
				RET(STD_NUM_COLON_SECS, 9);
			if (starts(p, r, "-0700"))
				RET(STD_NUM_TZ, 5);
			if (starts(p, r, "-07:00"))
				RET(STD_NUM_COLON_TZ, 6);
			if (starts(p, r, "-07"))
				RET(STD_NUM_SHORT_TZ, 3);
			break;
		case 'Z':
			if (starts(p, r, "Z070000"))
				RET(STD_ISO_SECS_TZ, 7);
			if (starts(p, r, "Z07:00:00"))
				RET(STD_ISO_COLON_SECS, 9);
			if (starts(p, r, "Z0700"))
				RET(STD_ISO_TZ, 5);
			if (starts(p, r, "Z07:00"))
				RET(STD_ISO_COLON_TZ, 6);
			if (starts(p, r, "Z07"))
				RET(STD_ISO_SHORT_TZ, 3);
			break;
		case '.':
		case ',':
			if (r >= 2 && (p[1] == '0' || p[1] == '9')) {
				size_t j = 1;
				while (j < r && p[j] == p[1])
					j++;
				if (!(j < r && isdig(p[j]))) {
					c.digits = (int)(j - 1);
					RET(p[1] == '0' ? STD_FRAC0 : STD_FRAC9,
					    j);
				}
			}
			break;
		default:
			break;
		}
	}
#undef RET
	return c;
}

/* ---- broken-down times ---- */

struct tm_go {
	int64_t ut; /* seconds since the epoch */
	int32_t nsec;
	int32_t off; /* seconds east of UTC */
	const char *abbr;
	/* local fields */
	int64_t year;
	int month, day, hour, min, sec, wday, yday;
};

static int64_t
fdiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static void
tm_fill(struct tm_go *t, const struct axp_tz *tz)
{
	int64_t local, days, sod;

	t->off = axp_tz_offset(tz, t->ut, &t->abbr);
	local = t->ut + t->off;
	days = fdiv(local, 86400);
	sod = local - days * 86400;
	axp_civil_from_days(days, &t->year, &t->month, &t->day);
	t->hour = (int)(sod / 3600);
	t->min = (int)(sod / 60 % 60);
	t->sec = (int)(sod % 60);
	t->wday = (int)(((days + 4) % 7 + 7) % 7);
	t->yday = (int)(days - axp_days_from_civil(t->year, 1, 1)) + 1;
}

static void
tm_from_ns(struct tm_go *t, int64_t ns, const struct axp_tz *tz)
{
	memset(t, 0, sizeof(*t));
	t->ut = ns / NS_PER_S;
	t->nsec = (int32_t)(ns % NS_PER_S);
	if (t->nsec < 0) {
		t->nsec += (int32_t)NS_PER_S;
		t->ut--;
	}
	tm_fill(t, tz);
}

/* Nanoseconds of (ut, nsec); false outside int64. */
static bool
tm_ns(int64_t ut, int32_t nsec, int64_t *ns)
{
	__int128 v = (__int128)ut * NS_PER_S + nsec;

	if (v < INT64_MIN || v > INT64_MAX)
		return false;
	*ns = (int64_t)v;
	return true;
}

/* Go's time.Date in zone tz: normalises every field.  The fields are
 * bounded by the callers so nothing overflows. */
static int64_t
date_unix(int64_t y, int64_t mon, int64_t d, int64_t h, int64_t mi, int64_t s,
    const struct axp_tz *tz)
{
	int64_t local =
	    axp_days_from_civil(y, mon, d) * 86400 + h * 3600 + mi * 60 + s;
	int32_t off = axp_tz_offset(tz, local, NULL);
	int32_t off2 = axp_tz_offset(tz, local - off, NULL);

	if (off2 != off)
		off = off2;
	return local - off;
}

static int
days_in(int m, int64_t y)
{
	static const int dm[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
		31 };

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return dm[m - 1];
}

/* ---- formatting ---- */

static void
put_int(struct axg_buf *b, int64_t v, int width)
{
	if (v < 0) {
		axg_buf_putc(b, '-');
		v = -v;
	}
	axg_buf_printf(b, "%0*lld", width, (long long)v);
}

static void
go_format(const struct tm_go *t, const char *layout, struct axg_buf *b)
{
	size_t n = strlen(layout);
	const char *l = layout;

	while (n > 0) {
		struct chunk c = next_chunk(l, n);
		int hr12, zone, absoff;

		axg_buf_append(b, l, c.prefix);
		if (c.std == STD_NONE)
			break;
		switch (c.std) {
		case STD_YEAR:
			put_int(b, (t->year % 100 + 100) % 100, 2);
			break;
		case STD_LONG_YEAR:
			put_int(b, t->year, 4);
			break;
		case STD_MONTH:
			axg_buf_append(b, month_names[t->month - 1], 3);
			break;
		case STD_LONG_MONTH:
			axg_buf_puts(b, month_names[t->month - 1]);
			break;
		case STD_NUM_MONTH:
			put_int(b, t->month, 0);
			break;
		case STD_ZERO_MONTH:
			put_int(b, t->month, 2);
			break;
		case STD_WEEKDAY:
			axg_buf_append(b, day_names[t->wday], 3);
			break;
		case STD_LONG_WEEKDAY:
			axg_buf_puts(b, day_names[t->wday]);
			break;
		case STD_DAY:
			put_int(b, t->day, 0);
			break;
		case STD_UNDER_DAY:
			if (t->day < 10)
				axg_buf_putc(b, ' ');
			put_int(b, t->day, 0);
			break;
		case STD_ZERO_DAY:
			put_int(b, t->day, 2);
			break;
		case STD_UNDER_YDAY:
			axg_buf_printf(b, "%3d", t->yday);
			break;
		case STD_ZERO_YDAY:
			put_int(b, t->yday, 3);
			break;
		case STD_HOUR:
			put_int(b, t->hour, 2);
			break;
		case STD_HOUR12:
		case STD_ZERO_HOUR12:
			hr12 = t->hour % 12;
			if (hr12 == 0)
				hr12 = 12;
			put_int(b, hr12, c.std == STD_HOUR12 ? 0 : 2);
			break;
		case STD_MINUTE:
			put_int(b, t->min, 0);
			break;
		case STD_ZERO_MINUTE:
			put_int(b, t->min, 2);
			break;
		case STD_SECOND:
			put_int(b, t->sec, 0);
			break;
		case STD_ZERO_SECOND:
			put_int(b, t->sec, 2);
			break;
		case STD_PM:
			axg_buf_puts(b, t->hour >= 12 ? "PM" : "AM");
			break;
		case STD_pm:
			axg_buf_puts(b, t->hour >= 12 ? "pm" : "am");
			break;
		case STD_ISO_TZ:
		case STD_ISO_SECS_TZ:
		case STD_ISO_SHORT_TZ:
		case STD_ISO_COLON_TZ:
		case STD_ISO_COLON_SECS:
			if (t->off == 0) {
				axg_buf_putc(b, 'Z');
				break;
			}
			AXG_FALLTHROUGH;
		case STD_NUM_TZ:
		case STD_NUM_SECS_TZ:
		case STD_NUM_SHORT_TZ:
		case STD_NUM_COLON_TZ:
		case STD_NUM_COLON_SECS: {
			bool colon = c.std == STD_ISO_COLON_TZ ||
			    c.std == STD_NUM_COLON_TZ ||
			    c.std == STD_ISO_COLON_SECS ||
			    c.std == STD_NUM_COLON_SECS;
			bool secs = c.std == STD_ISO_SECS_TZ ||
			    c.std == STD_NUM_SECS_TZ ||
			    c.std == STD_ISO_COLON_SECS ||
			    c.std == STD_NUM_COLON_SECS;
			zone = t->off / 60;
			absoff = t->off;
			if (zone < 0) {
				axg_buf_putc(b, '-');
				zone = -zone;
				absoff = -absoff;
			} else
				axg_buf_putc(b, '+');
			put_int(b, zone / 60, 2);
			if (colon)
				axg_buf_putc(b, ':');
			if (c.std != STD_NUM_SHORT_TZ &&
			    c.std != STD_ISO_SHORT_TZ)
				put_int(b, zone % 60, 2);
			if (secs) {
				if (colon)
					axg_buf_putc(b, ':');
				put_int(b, absoff % 60, 2);
			}
			break;
		}
		case STD_TZ:
			if (t->abbr != NULL && t->abbr[0] != '\0') {
				axg_buf_puts(b, t->abbr);
				break;
			}
			zone = t->off / 60;
			if (zone < 0) {
				axg_buf_putc(b, '-');
				zone = -zone;
			} else
				axg_buf_putc(b, '+');
			put_int(b, zone / 60, 2);
			put_int(b, zone % 60, 2);
			break;
		case STD_FRAC0:
		case STD_FRAC9: {
			char digits[10];
			int nd = c.digits > 9 ? 9 : c.digits;
			snprintf(digits, sizeof(digits), "%09d", (int)t->nsec);
			if (c.std == STD_FRAC9) {
				while (nd > 0 && digits[nd - 1] == '0')
					nd--;
				if (nd == 0)
					break;
			}
			axg_buf_putc(b, l[c.prefix]);
			axg_buf_append(b, digits, (size_t)nd);
			break;
		}
		default:
			break;
		}
		l += c.prefix + c.len;
		n -= c.prefix + c.len;
	}
}

/* ---- parsing ---- */

static void
go_quote(struct axg_buf *b, const char *s, size_t n)
{
	size_t i;

	axg_buf_putc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			axg_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			axg_buf_printf(b, "\\x%02x", c);
		else
			axg_buf_putc(b, (char)c);
	}
	axg_buf_putc(b, '"');
}

struct perr {
	char msg[400];
};

static void
perr_set(struct perr *e, const char *layout, const char *value,
    const char *velem, size_t vlen, const char *lelem, size_t llen,
    const char *message)
{
	struct axg_buf b;

	axg_buf_init(&b, 0);
	axg_buf_puts(&b, "parsing time ");
	go_quote(&b, value, strlen(value));
	if (message != NULL)
		axg_buf_puts(&b, message);
	else {
		axg_buf_puts(&b, " as ");
		go_quote(&b, layout, strlen(layout));
		axg_buf_puts(&b, ": cannot parse ");
		go_quote(&b, velem, vlen);
		axg_buf_puts(&b, " as ");
		go_quote(&b, lelem, llen);
	}
	snprintf(e->msg, sizeof(e->msg), "%s", b.data);
	axg_buf_free(&b);
}

/* Go's getnum: one or two digits (two when fixed). */
static bool
getnum(const char **v, size_t *n, bool fixed, int *out)
{
	const char *s = *v;

	if (*n < 1 || !isdig(s[0]))
		return false;
	if (*n < 2 || !isdig(s[1])) {
		if (fixed)
			return false;
		*out = s[0] - '0';
		*v += 1;
		*n -= 1;
		return true;
	}
	*out = (s[0] - '0') * 10 + (s[1] - '0');
	*v += 2;
	*n -= 2;
	return true;
}

static bool
lookup_name(const char **v, size_t *n, const char *const *names, size_t count,
    size_t abbr, int *out)
{
	size_t i;

	for (i = 0; i < count; i++) {
		size_t l = abbr ? abbr : strlen(names[i]);
		if (*n >= l && axg_strncaseeq(*v, names[i], l)) {
			*out = (int)i;
			*v += l;
			*n -= l;
			return true;
		}
	}
	return false;
}

/* Go's parseTimeZone: how many bytes name a zone, 0 if none. */
static size_t
tz_name_len(const char *v, size_t n)
{
	size_t u = 0;

	if (n < 3)
		return 0;
	if (n >= 4 && (memcmp(v, "ChST", 4) == 0 || memcmp(v, "MeST", 4) == 0))
		return 4;
	if (memcmp(v, "GMT", 3) == 0) {
		size_t i = 3;
		if (i < n && (v[i] == '+' || v[i] == '-')) {
			size_t j = i + 1;
			while (j < n && isdig(v[j]) && j - i <= 2)
				j++;
			if (j > i + 1)
				i = j;
		}
		return i;
	}
	while (u < 6 && u < n && v[u] >= 'A' && v[u] <= 'Z')
		u++;
	if (u == 3)
		return 3;
	if (u == 4 && (v[3] == 'T' || memcmp(v, "WITA", 4) == 0))
		return 4;
	if (u == 5 && v[4] == 'T')
		return 5;
	return 0;
}

/* Fractional seconds ".ddd" (n bytes including the separator). */
static int32_t
parse_nanos(const char *v, size_t n)
{
	int32_t ns = 0;
	size_t i, digits = 0;

	for (i = 1; i < n && digits < 9; i++, digits++)
		ns = ns * 10 + (v[i] - '0');
	for (; digits < 9; digits++)
		ns *= 10;
	return ns;
}

/* Go's time.Parse (in UTC).  0 with *ns; -1 with the message in e (or
 * range set when the time is outside int64 nanoseconds). */
static int
go_parse(const char *layout, const char *value, int64_t *ns, struct perr *e,
    bool *range)
{
	const char *l = layout, *v = value;
	size_t ln = strlen(layout), vn = strlen(value);
	int64_t year = 0;
	int month = -1, day = -1, yday = -1, hour = 0, min = 0, sec = 0;
	int32_t nsec = 0;
	bool pm = false, am = false, utc = false, have_off = false;
	int32_t zoff = 0;
	const char *zname = NULL;
	size_t znlen = 0;
	int64_t ut;

	*range = false;
	for (;;) {
		struct chunk c = next_chunk(l, ln);
		const char *hold = v;
		size_t holdn = vn, i;
		const char *rangeerr = NULL;
		bool bad = false;
		int x;

		/* the literal prefix */
		for (i = 0; i < c.prefix;) {
			if (l[i] == ' ') {
				if (vn > 0 && v[0] != ' ') {
					bad = true;
					break;
				}
				while (i < c.prefix && l[i] == ' ')
					i++;
				while (vn > 0 && v[0] == ' ')
					v++, vn--;
				continue;
			}
			if (vn == 0 || v[0] != l[i]) {
				bad = true;
				break;
			}
			v++, vn--, i++;
		}
		if (bad) {
			perr_set(e, layout, value, hold, holdn, l, c.prefix,
			    NULL);
			return -1;
		}
		if (c.std == STD_NONE) {
			if (vn > 0) {
				struct axg_buf b;
				axg_buf_init(&b, 0);
				axg_buf_puts(&b, ": extra text: ");
				go_quote(&b, v, vn);
				perr_set(e, layout, value, NULL, 0, NULL, 0,
				    b.data);
				axg_buf_free(&b);
				return -1;
			}
			break;
		}
		hold = v;
		holdn = vn;
		switch (c.std) {
		case STD_YEAR:
			if (vn < 2 || !isdig(v[0]) || !isdig(v[1])) {
				bad = true;
				break;
			}
			year = (v[0] - '0') * 10 + (v[1] - '0');
			year += year >= 69 ? 1900 : 2000;
			v += 2, vn -= 2;
			break;
		case STD_LONG_YEAR:
			if (vn < 4 || !isdig(v[0]) || !isdig(v[1]) ||
			    !isdig(v[2]) || !isdig(v[3])) {
				bad = true;
				break;
			}
			year = (v[0] - '0') * 1000 + (v[1] - '0') * 100 +
			    (v[2] - '0') * 10 + (v[3] - '0');
			v += 4, vn -= 4;
			break;
		case STD_MONTH:
			bad = !lookup_name(&v, &vn, month_names, 12, 3, &month);
			month++;
			break;
		case STD_LONG_MONTH:
			bad = !lookup_name(&v, &vn, month_names, 12, 0, &month);
			month++;
			break;
		case STD_NUM_MONTH:
		case STD_ZERO_MONTH:
			bad = !getnum(&v, &vn, c.std == STD_ZERO_MONTH, &month);
			if (!bad && (month <= 0 || month > 12))
				rangeerr = "month";
			break;
		case STD_WEEKDAY:
			bad = !lookup_name(&v, &vn, day_names, 7, 3, &x);
			break;
		case STD_LONG_WEEKDAY:
			bad = !lookup_name(&v, &vn, day_names, 7, 0, &x);
			break;
		case STD_DAY:
		case STD_UNDER_DAY:
		case STD_ZERO_DAY:
			if (c.std == STD_UNDER_DAY && vn > 0 && v[0] == ' ')
				v++, vn--;
			bad = !getnum(&v, &vn, c.std == STD_ZERO_DAY, &day);
			break;
		case STD_UNDER_YDAY:
		case STD_ZERO_YDAY:
			for (i = 0; i < 2; i++)
				if (c.std == STD_UNDER_YDAY && vn > 0 &&
				    v[0] == ' ')
					v++, vn--;
			yday = 0;
			for (i = 0; i < 3 && vn > 0 && isdig(v[0]); i++)
				yday = yday * 10 + (*v++ - '0'), vn--;
			if (i == 0 || (c.std == STD_ZERO_YDAY && i < 3))
				bad = true;
			else if (yday < 1 || yday > 366)
				rangeerr = "day-of-year";
			break;
		case STD_HOUR:
			bad = !getnum(&v, &vn, false, &hour);
			if (!bad && (hour < 0 || hour >= 24))
				rangeerr = "hour";
			break;
		case STD_HOUR12:
		case STD_ZERO_HOUR12:
			bad = !getnum(&v, &vn, c.std == STD_ZERO_HOUR12, &hour);
			if (!bad && (hour < 0 || hour > 12))
				rangeerr = "hour";
			break;
		case STD_MINUTE:
		case STD_ZERO_MINUTE:
			bad = !getnum(&v, &vn, c.std == STD_ZERO_MINUTE, &min);
			if (!bad && (min < 0 || min >= 60))
				rangeerr = "minute";
			break;
		case STD_SECOND:
		case STD_ZERO_SECOND:
			bad = !getnum(&v, &vn, c.std == STD_ZERO_SECOND, &sec);
			if (bad)
				break;
			if (sec < 0 || sec >= 60) {
				rangeerr = "second";
				break;
			}
			/* fractional seconds the layout does not mention */
			if (vn >= 2 && (v[0] == '.' || v[0] == ',') &&
			    isdig(v[1])) {
				struct chunk nc =
				    next_chunk(l + c.prefix + c.len,
					ln - c.prefix - c.len);
				if (nc.std == STD_FRAC0 || nc.std == STD_FRAC9)
					break;
				i = 2;
				while (i < vn && isdig(v[i]))
					i++;
				nsec = parse_nanos(v, i);
				v += i, vn -= i;
			}
			break;
		case STD_PM:
			if (vn < 2) {
				bad = true;
				break;
			}
			if (memcmp(v, "PM", 2) == 0)
				pm = true;
			else if (memcmp(v, "AM", 2) == 0)
				am = true;
			else
				bad = true;
			if (!bad)
				v += 2, vn -= 2;
			break;
		case STD_pm:
			if (vn < 2) {
				bad = true;
				break;
			}
			if (memcmp(v, "pm", 2) == 0)
				pm = true;
			else if (memcmp(v, "am", 2) == 0)
				am = true;
			else
				bad = true;
			if (!bad)
				v += 2, vn -= 2;
			break;
		case STD_ISO_TZ:
		case STD_ISO_SECS_TZ:
		case STD_ISO_SHORT_TZ:
		case STD_ISO_COLON_TZ:
		case STD_ISO_COLON_SECS:
			if (vn >= 1 && v[0] == 'Z') {
				v++, vn--;
				utc = true;
				break;
			}
			AXG_FALLTHROUGH;
		case STD_NUM_TZ:
		case STD_NUM_SECS_TZ:
		case STD_NUM_SHORT_TZ:
		case STD_NUM_COLON_TZ:
		case STD_NUM_COLON_SECS: {
			/* sign hh [:] mm [[:] ss] */
			bool colon = c.std == STD_ISO_COLON_TZ ||
			    c.std == STD_NUM_COLON_TZ ||
			    c.std == STD_ISO_COLON_SECS ||
			    c.std == STD_NUM_COLON_SECS;
			bool secs = c.std == STD_ISO_SECS_TZ ||
			    c.std == STD_NUM_SECS_TZ ||
			    c.std == STD_ISO_COLON_SECS ||
			    c.std == STD_NUM_COLON_SECS;
			bool shrt = c.std == STD_ISO_SHORT_TZ ||
			    c.std == STD_NUM_SHORT_TZ;
			size_t need = shrt ? 3
			    : colon	   ? (secs ? 9 : 6)
					   : (secs ? 7 : 5);
			int hh, mm = 0, ss = 0;
			const char *q = v;
			if (vn < need || (q[0] != '+' && q[0] != '-') ||
			    !isdig(q[1]) || !isdig(q[2])) {
				bad = true;
				break;
			}
			hh = (q[1] - '0') * 10 + (q[2] - '0');
			q += 3;
			if (!shrt) {
				if (colon && *q++ != ':') {
					bad = true;
					break;
				}
				if (!isdig(q[0]) || !isdig(q[1])) {
					bad = true;
					break;
				}
				mm = (q[0] - '0') * 10 + (q[1] - '0');
				q += 2;
				if (secs) {
					if (colon && *q++ != ':') {
						bad = true;
						break;
					}
					if (!isdig(q[0]) || !isdig(q[1])) {
						bad = true;
						break;
					}
					ss = (q[0] - '0') * 10 + (q[1] - '0');
					q += 2;
				}
			}
			if (hh > 24 || mm > 60 || ss > 60) {
				rangeerr = "time zone offset";
				break;
			}
			zoff = (hh * 60 + mm) * 60 + ss;
			if (v[0] == '-')
				zoff = -zoff;
			have_off = true;
			vn -= (size_t)(q - v);
			v = q;
			break;
		}
		case STD_TZ:
			if (vn >= 3 && memcmp(v, "UTC", 3) == 0) {
				utc = true;
				v += 3, vn -= 3;
				break;
			}
			znlen = tz_name_len(v, vn);
			if (znlen == 0) {
				bad = true;
				break;
			}
			zname = v;
			v += znlen, vn -= znlen;
			break;
		case STD_FRAC0:
			if (vn < (size_t)c.digits + 1 || v[0] != l[c.prefix]) {
				bad = true;
				break;
			}
			for (i = 1; i <= (size_t)c.digits; i++)
				if (!isdig(v[i]))
					bad = true;
			if (bad)
				break;
			nsec = parse_nanos(v, (size_t)c.digits + 1);
			v += c.digits + 1, vn -= (size_t)c.digits + 1;
			break;
		case STD_FRAC9:
			if (vn < 2 || (v[0] != '.' && v[0] != ',') ||
			    !isdig(v[1]))
				break;
			i = 0;
			while (i < 9 && i + 1 < vn && isdig(v[i + 1]))
				i++;
			nsec = parse_nanos(v, 1 + i);
			v += 1 + i, vn -= 1 + i;
			break;
		default:
			break;
		}
		if (rangeerr != NULL) {
			char m[64];
			snprintf(m, sizeof(m), ": %s out of range", rangeerr);
			perr_set(e, layout, value, NULL, 0, NULL, 0, m);
			return -1;
		}
		if (bad) {
			perr_set(e, layout, value, hold, holdn, l + c.prefix,
			    c.len, NULL);
			return -1;
		}
		l += c.prefix + c.len;
		ln -= c.prefix + c.len;
	}
	if (pm && hour < 12)
		hour += 12;
	else if (am && hour == 12)
		hour = 0;
	if (yday >= 0) {
		int64_t d0 = axp_days_from_civil(year, 1, 1) + yday - 1;
		int64_t yy;
		int mm2, dd2;
		if (yday > 365 && days_in(2, year) == 28) {
			perr_set(e, layout, value, NULL, 0, NULL, 0,
			    ": day-of-year out of range");
			return -1;
		}
		axp_civil_from_days(d0, &yy, &mm2, &dd2);
		if ((month >= 0 && month != mm2) || (day >= 0 && day != dd2)) {
			perr_set(e, layout, value, NULL, 0, NULL, 0,
			    ": day-of-year does not match month");
			return -1;
		}
		month = mm2;
		day = dd2;
	} else {
		if (month < 0)
			month = 1;
		if (day < 0)
			day = 1;
	}
	if (day < 1 || day > days_in(month, year)) {
		perr_set(e, layout, value, NULL, 0, NULL, 0,
		    ": day out of range");
		return -1;
	}
	ut = axp_days_from_civil(year, month, day) * 86400 + hour * 3600 +
	    min * 60 + sec;
	if (!utc && have_off)
		ut -= zoff;
	else if (!utc && zname != NULL && znlen > 3 &&
	    memcmp(zname, "GMT", 3) == 0) {
		int h = 0;
		size_t i;
		for (i = 4; i < znlen; i++)
			h = h * 10 + (zname[i] - '0');
		if (zname[3] == '-')
			h = -h;
		ut -= (int64_t)h * 3600;
	}
	if (!tm_ns(ut, nsec, ns)) {
		*range = true;
		return -1;
	}
	return 0;
}

/* ---- durations (Go's time.ParseDuration) ---- */

static int
go_duration(const char *s0, int64_t *out)
{
	const char *s = s0;
	uint64_t d = 0;
	bool neg = false;
	const uint64_t lim = UINT64_C(1) << 63;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	if (*s == '\0')
		return -1;
	while (*s != '\0') {
		uint64_t v = 0, f = 0, unit;
		double scale = 1;
		bool pre, post = false, over = false;
		const char *st = s;
		size_t i;

		if (!(*s == '.' || isdig(*s)))
			return -1;
		while (isdig(*s)) {
			if (v > lim / 10)
				return -1;
			v = v * 10 + (uint64_t)(*s - '0');
			if (v > lim)
				return -1;
			s++;
		}
		pre = s != st;
		if (*s == '.') {
			const char *fs = ++s;
			while (isdig(*s)) {
				if (!over) {
					if (f > (lim - 1) / 10)
						over = true;
					else {
						f = f * 10 +
						    (uint64_t)(*s - '0');
						scale *= 10;
					}
				}
				s++;
			}
			post = s != fs;
		}
		if (!pre && !post)
			return -1;
		for (i = 0; s[i] != '\0' && s[i] != '.' && !isdig(s[i]); i++)
			;
		if (i == 0)
			return -2;
		if (i == 2 && memcmp(s, "ns", 2) == 0)
			unit = 1;
		else if ((i == 2 && memcmp(s, "us", 2) == 0) ||
		    (i == 3 && memcmp(s, "\xc2\xb5s", 3) == 0) ||
		    (i == 3 && memcmp(s, "\xce\xbcs", 3) == 0))
			unit = 1000;
		else if (i == 2 && memcmp(s, "ms", 2) == 0)
			unit = 1000000;
		else if (i == 1 && s[0] == 's')
			unit = 1000000000;
		else if (i == 1 && s[0] == 'm')
			unit = UINT64_C(60000000000);
		else if (i == 1 && s[0] == 'h')
			unit = UINT64_C(3600000000000);
		else
			return -3;
		s += i;
		if (v > lim / unit)
			return -1;
		v *= unit;
		if (f > 0) {
			v += (uint64_t)((double)f * ((double)unit / scale));
			if (v > lim)
				return -1;
		}
		d += v;
		if (d > lim)
			return -1;
	}
	if (neg) {
		*out = d == lim ? INT64_MIN : -(int64_t)d;
		return 0;
	}
	if (d > lim - 1)
		return -1;
	*out = (int64_t)d;
	return 0;
}

/* ---- operands ---- */

/* OPA's tzTime: a number of ns, or [ns, tz] / [ns, tz, layout]. */
static int
tz_time(struct axp_bctx *ctx, const struct axv *a, int pos, int64_t *ns,
    const struct axp_tz **tz, const char **layout)
{
	const struct axv *n = a;
	const char *want = "either number (ns) or [number (ns), string (tz)]";
	char err[128];

	*tz = axp_tz_utc();
	if (layout != NULL)
		*layout = NULL;
	if (axv_kind(a) == AXV_ARRAY) {
		if (axv_array_len(a) == 0)
			return axp_bi_type_error(ctx, pos, want, a);
		n = axv_array_get(a, 0);
		if (axv_kind(n) != AXV_NUMBER)
			return axp_bi_type_error(ctx, pos, "number", n);
		if (axv_array_len(a) > 1) {
			const struct axv *z = axv_array_get(a, 1);
			if (axv_kind(z) != AXV_STRING)
				return axp_bi_type_error(ctx, pos, "string", z);
			*tz = axp_tz_get(axv_str(z), axv_strlen(z), err,
			    sizeof(err));
			if (*tz == NULL)
				return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
				    "%s", err);
		}
		if (axv_array_len(a) > 2) {
			const struct axv *l = axv_array_get(a, 2);
			if (axv_kind(l) != AXV_STRING)
				return axp_bi_type_error(ctx, pos, "string", l);
			if (layout != NULL)
				*layout = axv_str(l);
		}
	} else if (axv_kind(a) != AXV_NUMBER)
		return axp_bi_type_error(ctx, pos, want, a);
	if (!axv_num_is_int(n) || !axv_num_i64(n, ns))
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "timestamp too big");
	return AXP_BI_OK;
}

static int
out_range(struct axp_bctx *ctx)
{
	return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
	    "time outside of valid range");
}

/* ---- the builtins ---- */

static int
bi_now_ns(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	(void)args;
	*out = axv_int(axp_bctx_now_ns(ctx));
	return AXP_BI_OK;
}

static int
parse_common(struct axp_bctx *ctx, const char *layout, const struct axv *v,
    struct axv **out)
{
	struct perr e;
	bool range;
	int64_t ns;

	if (go_parse(layout, axv_str(v), &ns, &e, &range) < 0) {
		if (range)
			return out_range(ctx);
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "%s", e.msg);
	}
	*out = axv_int(ns);
	return AXP_BI_OK;
}

static int
bi_parse_ns(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	if (!axp_bi_want(ctx, args, 1, AXV_STRING) ||
	    !axp_bi_want(ctx, args, 2, AXV_STRING))
		return AXP_BI_ERROR;
	return parse_common(ctx, resolve_layout(axv_str(args[0])), args[1],
	    out);
}

static int
bi_parse_rfc3339_ns(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	return parse_common(ctx, "2006-01-02T15:04:05Z07:00", args[0], out);
}

/* test.sleep(duration): OPA's testing aid, for policy tests (axgate
 * policy test, eval).  It sleeps at most TEST_SLEEP_MAX_NS; axgate's own
 * policies may not call it (AXP_BIF_STALL). */
#define TEST_SLEEP_MAX_NS (10 * 1000000000LL)

static int
bi_test_sleep(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	int64_t d;
	struct timespec ts;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	if (go_duration(axv_str(args[0]), &d) != 0)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "time: invalid duration \"%.64s\"", axv_str(args[0]));
	if (d > TEST_SLEEP_MAX_NS)
		return axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN,
		    "sleeps of over %lld s are refused",
		    TEST_SLEEP_MAX_NS / 1000000000LL);
	if (d > 0) {
		ts.tv_sec = (time_t)(d / 1000000000);
		ts.tv_nsec = (long)(d % 1000000000);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	*out = axv_null();
	return AXP_BI_OK;
}

static int
bi_parse_duration_ns(struct axp_bctx *ctx, struct axv *const *args,
    struct axv **out)
{
	int64_t d;
	int rc;
	struct axg_buf b;

	if (!axp_bi_want(ctx, args, 1, AXV_STRING))
		return AXP_BI_ERROR;
	rc = go_duration(axv_str(args[0]), &d);
	if (rc == 0) {
		*out = axv_int(d);
		return AXP_BI_OK;
	}
	axg_buf_init(&b, 0);
	if (rc == -2)
		axg_buf_puts(&b, "time: missing unit in duration ");
	else if (rc == -3) {
		const char *s = axv_str(args[0]);
		size_t i = 0, j;
		/* find the unit Go complains about: the first one unknown */
		for (;;) {
			while (s[i] == '-' || s[i] == '+' || s[i] == '.' ||
			    isdig(s[i]))
				i++;
			j = i;
			while (s[j] != '\0' && s[j] != '.' && !isdig(s[j]))
				j++;
			if (!((j - i == 2 &&
				  (memcmp(s + i, "ns", 2) == 0 ||
				      memcmp(s + i, "us", 2) == 0 ||
				      memcmp(s + i, "ms", 2) == 0)) ||
				(j - i == 1 && strchr("smh", s[i]) != NULL) ||
				(j - i == 3 &&
				    (memcmp(s + i, "\xc2\xb5s", 3) == 0 ||
					memcmp(s + i, "\xce\xbcs", 3) == 0))) ||
			    s[j] == '\0')
				break;
			i = j;
		}
		axg_buf_puts(&b, "time: unknown unit ");
		go_quote(&b, s + i, j - i);
		axg_buf_puts(&b, " in duration ");
	} else
		axg_buf_puts(&b, "time: invalid duration ");
	go_quote(&b, axv_str(args[0]), axv_strlen(args[0]));
	rc = axp_bi_error(ctx, AXP_ERR_EVAL_BUILTIN, "%s", b.data);
	axg_buf_free(&b);
	return rc;
}

static int
bi_date(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const struct axp_tz *tz;
	struct tm_go t;
	int64_t ns;
	struct axv *r;

	if (tz_time(ctx, args[0], 1, &ns, &tz, NULL) != AXP_BI_OK)
		return AXP_BI_ERROR;
	tm_from_ns(&t, ns, tz);
	r = axv_array_new(3);
	axv_array_push(r, axv_int(t.year));
	axv_array_push(r, axv_int(t.month));
	axv_array_push(r, axv_int(t.day));
	*out = r;
	return AXP_BI_OK;
}

static int
bi_clock(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const struct axp_tz *tz;
	struct tm_go t;
	int64_t ns;
	struct axv *r;

	if (tz_time(ctx, args[0], 1, &ns, &tz, NULL) != AXP_BI_OK)
		return AXP_BI_ERROR;
	tm_from_ns(&t, ns, tz);
	r = axv_array_new(3);
	axv_array_push(r, axv_int(t.hour));
	axv_array_push(r, axv_int(t.min));
	axv_array_push(r, axv_int(t.sec));
	*out = r;
	return AXP_BI_OK;
}

static int
bi_weekday(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const struct axp_tz *tz;
	struct tm_go t;
	int64_t ns;

	if (tz_time(ctx, args[0], 1, &ns, &tz, NULL) != AXP_BI_OK)
		return AXP_BI_ERROR;
	tm_from_ns(&t, ns, tz);
	*out = axv_cstr(day_names[t.wday]);
	return AXP_BI_OK;
}

static bool
want_int_arg(struct axp_bctx *ctx, struct axv *const *args, int pos, int64_t *v)
{
	if (!axp_bi_want(ctx, args, pos, AXV_NUMBER))
		return false;
	if (!axv_num_is_int(args[pos - 1])) {
		axp_bi_error(ctx, AXP_ERR_EVAL_TYPE,
		    "operand %d must be integer number but got "
		    "floating-point number",
		    pos);
		return false;
	}
	if (!axv_num_i64(args[pos - 1], v)) {
		out_range(ctx);
		return false;
	}
	return true;
}

static int
bi_add_date(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const struct axp_tz *tz;
	struct tm_go t;
	int64_t ns, y, m, d, ut, r;

	if (tz_time(ctx, args[0], 1, &ns, &tz, NULL) != AXP_BI_OK)
		return AXP_BI_ERROR;
	if (!want_int_arg(ctx, args, 2, &y) ||
	    !want_int_arg(ctx, args, 3, &m) || !want_int_arg(ctx, args, 4, &d))
		return AXP_BI_ERROR;
	/* anything past these cannot land inside int64 nanoseconds */
	if (y < -1000000 || y > 1000000 || m < -12000000 || m > 12000000 ||
	    d < -400000000 || d > 400000000)
		return out_range(ctx);
	tm_from_ns(&t, ns, tz);
	ut = date_unix(t.year + y, t.month + m, t.day + d, t.hour, t.min, t.sec,
	    tz);
	if (!tm_ns(ut, t.nsec, &r))
		return out_range(ctx);
	*out = axv_int(r);
	return AXP_BI_OK;
}

static int
bi_diff(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const struct axp_tz *tz1, *tz2;
	struct tm_go a, b, tmp;
	int64_t n1, n2, year;
	int month, day, hour, min, sec;
	struct axv *r;

	if (tz_time(ctx, args[0], 1, &n1, &tz1, NULL) != AXP_BI_OK ||
	    tz_time(ctx, args[1], 2, &n2, &tz2, NULL) != AXP_BI_OK)
		return AXP_BI_ERROR;
	/* both in the first time's zone, earlier first */
	tm_from_ns(&a, n1 < n2 ? n1 : n2, tz1);
	tm_from_ns(&b, n1 < n2 ? n2 : n1, tz1);
	year = b.year - a.year;
	month = b.month - a.month;
	day = b.day - a.day;
	hour = b.hour - a.hour;
	min = b.min - a.min;
	sec = b.sec - a.sec;
	if (sec < 0)
		sec += 60, min--;
	if (min < 0)
		min += 60, hour--;
	if (hour < 0)
		hour += 24, day--;
	if (day < 0) {
		/* days in a's month: Date(y1, M1, 32) overflows into the
		 * next month by 32 - len days */
		int64_t dd = axp_days_from_civil(a.year, a.month, 32);
		axp_civil_from_days(dd, &tmp.year, &tmp.month, &tmp.day);
		day += 32 - tmp.day;
		month--;
	}
	if (month < 0)
		month += 12, year--;
	r = axv_array_new(6);
	axv_array_push(r, axv_int(year));
	axv_array_push(r, axv_int(month));
	axv_array_push(r, axv_int(day));
	axv_array_push(r, axv_int(hour));
	axv_array_push(r, axv_int(min));
	axv_array_push(r, axv_int(sec));
	*out = r;
	return AXP_BI_OK;
}

static int
bi_format(struct axp_bctx *ctx, struct axv *const *args, struct axv **out)
{
	const struct axp_tz *tz;
	const char *layout;
	struct tm_go t;
	struct axg_buf b;
	int64_t ns;

	if (tz_time(ctx, args[0], 1, &ns, &tz, &layout) != AXP_BI_OK)
		return AXP_BI_ERROR;
	if (layout == NULL)
		layout = "RFC3339Nano";
	layout = resolve_layout(layout);
	tm_from_ns(&t, ns, tz);
	axg_buf_init(&b, 0);
	go_format(&t, layout, &b);
	*out = axv_string_buf(&b);
	return AXP_BI_OK;
}

const struct axp_builtin axp_builtins_time[] = {
	{ "time.now_ns", 0, bi_now_ns, "() => number", AXP_BIF_NONDET },
	{ "time.parse_ns", 2, bi_parse_ns, "(string, string) => number", 0 },
	{ "time.parse_rfc3339_ns", 1, bi_parse_rfc3339_ns, "(string) => number",
	    0 },
	{ "test.sleep", 1, bi_test_sleep, "(string) => null",
	    AXP_BIF_NONDET | AXP_BIF_STALL },
	{ "time.parse_duration_ns", 1, bi_parse_duration_ns,
	    "(string) => number", 0 },
	{ "time.date", 1, bi_date,
	    "(any<number, array[number, string]>) => array[number, number, "
	    "number]",
	    0 },
	{ "time.clock", 1, bi_clock,
	    "(any<number, array[number, string]>) => array[number, number, "
	    "number]",
	    0 },
	{ "time.weekday", 1, bi_weekday,
	    "(any<number, array[number, string]>) => string", 0 },
	{ "time.add_date", 4, bi_add_date,
	    "(number, number, number, number) => number", 0 },
	{ "time.diff", 2, bi_diff,
	    "(any<number, array[number, string]>, any<number, array[number, "
	    "string]>) => array[number, number, number, number, number, "
	    "number]",
	    0 },
	{ "time.format", 1, bi_format,
	    "(any<number, array[number, string], array[number, string, "
	    "string]>) => string",
	    0 },
	{ NULL, 0, NULL, NULL, 0 },
};
