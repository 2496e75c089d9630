/* tzfile.c: TZif time zone files and POSIX TZ rules, read directly. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "policy/tzfile.h"

#define TZ_DIR	     "/usr/share/zoneinfo"
#define TZ_MAX_FILE  (1024 * 1024)
#define TZ_MAX_CACHE 256

struct tz_type {
	int32_t off;
	bool dst;
	char abbr[16];
};

/* A POSIX TZ rule ("PST8PDT,M3.2.0,M11.1.0"). */
struct tz_when {
	char kind; /* 'J', 'D' (zero-based day), 'M' */
	int m, w, d, n;
	int32_t secs; /* local time of day of the change */
};

struct tz_rule {
	bool valid, has_dst;
	struct tz_type std, dst;
	struct tz_when start, end;
};

struct axp_tz {
	char *name;
	size_t ntrans;
	int64_t *trans;
	uint8_t *idx;
	size_t ntypes;
	struct tz_type *types;
	struct tz_rule rule;
};

static struct axp_tz tz_utc_zone = {
	"UTC",
	0,
	NULL,
	NULL,
	1,
	(struct tz_type[]){ { 0, false, "UTC" } },
	{ false, false, { 0, false, "" }, { 0, false, "" },
	    { 0, 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 } },
};

static pthread_mutex_t tz_lock = PTHREAD_MUTEX_INITIALIZER;
static struct axp_tz *tz_cache[TZ_MAX_CACHE];
static size_t tz_ncache;

const struct axp_tz *
axp_tz_utc(void)
{
	return &tz_utc_zone;
}

/* ---- civil dates (H. Hinnant's algorithms) ---- */

static int64_t
floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

int64_t
axp_days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe, mp;

	/* normalise the month into 1..12 */
	y += floordiv(m - 1, 12);
	m = m - 1 - floordiv(m - 1, 12) * 12 + 1;
	y -= m <= 2;
	era = floordiv(y, 400);
	yoe = y - era * 400;
	mp = (m + 9) % 12;
	doy = (153 * mp + 2) / 5;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468 + (d - 1);
}

void
axp_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = floordiv(z, 146097);
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static bool
is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* ---- POSIX TZ strings ---- */

static const char *
rule_name(const char *p, char *out, size_t outlen)
{
	size_t n = 0;

	if (*p == '<') {
		p++;
		while (*p && *p != '>') {
			if (n + 1 < outlen)
				out[n++] = *p;
			p++;
		}
		if (*p != '>')
			return NULL;
		p++;
	} else {
		while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')) {
			if (n + 1 < outlen)
				out[n++] = *p;
			p++;
		}
	}
	out[n] = '\0';
	return n >= 3 ? p : NULL;
}

/* [+-]hh[:mm[:ss]] into seconds. */
static const char *
rule_secs(const char *p, int32_t *secs)
{
	int sign = 1, part = 0, v[3] = { 0, 0, 0 };

	if (*p == '+' || *p == '-')
		sign = *p++ == '-' ? -1 : 1;
	for (;;) {
		int digits = 0;
		while (*p >= '0' && *p <= '9' && digits < 3) {
			v[part] = v[part] * 10 + (*p++ - '0');
			digits++;
		}
		if (digits == 0)
			return NULL;
		if (*p != ':' || part == 2)
			break;
		p++;
		part++;
	}
	*secs = sign * (v[0] * 3600 + v[1] * 60 + v[2]);
	return p;
}

static const char *
rule_when(const char *p, struct tz_when *w)
{
	int v = 0, n = 0;

	memset(w, 0, sizeof(*w));
	if (*p == 'M') {
		int f[3] = { 0, 0, 0 }, i;
		p++;
		for (i = 0; i < 3; i++) {
			if (*p < '0' || *p > '9')
				return NULL;
			while (*p >= '0' && *p <= '9')
				f[i] = f[i] * 10 + (*p++ - '0');
			if (i < 2 && *p++ != '.')
				return NULL;
		}
		if (f[0] < 1 || f[0] > 12 || f[1] < 1 || f[1] > 5 || f[2] > 6)
			return NULL;
		w->kind = 'M';
		w->m = f[0];
		w->w = f[1];
		w->d = f[2];
	} else {
		w->kind = 'D';
		if (*p == 'J') {
			w->kind = 'J';
			p++;
		}
		while (*p >= '0' && *p <= '9' && n < 4) {
			v = v * 10 + (*p++ - '0');
			n++;
		}
		if (n == 0)
			return NULL;
		w->n = v;
	}
	w->secs = 7200;
	if (*p == '/')
		p = rule_secs(p + 1, &w->secs);
	return p;
}

static void
rule_parse(const char *s, struct tz_rule *r)
{
	const char *p = s;
	int32_t off;

	memset(r, 0, sizeof(*r));
	p = rule_name(p, r->std.abbr, sizeof(r->std.abbr));
	if (p == NULL || (p = rule_secs(p, &off)) == NULL)
		return;
	r->std.off = -off;
	if (*p == '\0') {
		r->valid = true;
		return;
	}
	p = rule_name(p, r->dst.abbr, sizeof(r->dst.abbr));
	if (p == NULL)
		return;
	r->dst.dst = true;
	r->dst.off = r->std.off + 3600;
	if (*p != ',' && *p != '\0') {
		if ((p = rule_secs(p, &off)) == NULL)
			return;
		r->dst.off = -off;
	}
	if (*p == '\0') {
		/* no rule: the US rules are the POSIX default */
		rule_when("M3.2.0", &r->start);
		rule_when("M11.1.0", &r->end);
	} else {
		if (*p++ != ',' || (p = rule_when(p, &r->start)) == NULL ||
		    *p++ != ',' || (p = rule_when(p, &r->end)) == NULL ||
		    *p != '\0')
			return;
	}
	r->has_dst = true;
	r->valid = true;
}

/* Seconds from the start of year y (local) to the change w. */
static int64_t
when_secs(const struct tz_when *w, int64_t y)
{
	int64_t day;

	switch (w->kind) {
	case 'J':
		day = w->n - 1;
		if (is_leap(y) && w->n >= 60)
			day++;
		break;
	case 'D':
		day = w->n;
		break;
	default: {
		int64_t first = axp_days_from_civil(y, w->m, 1);
		int64_t jan1 = axp_days_from_civil(y, 1, 1);
		int wd = (int)(((first + 4) % 7 + 7) % 7);
		int64_t d = (w->d - wd + 7) % 7;
		int64_t mdays = axp_days_from_civil(y, w->m + 1, 1) - first;
		d += 7 * (w->w - 1);
		while (d >= mdays)
			d -= 7;
		day = first - jan1 + d;
		break;
	}
	}
	return day * 86400 + w->secs;
}

static const struct tz_type *
rule_type(const struct tz_rule *r, int64_t ut)
{
	int64_t y, ys, start, end;
	int m, d;

	if (!r->has_dst)
		return &r->std;
	axp_civil_from_days(floordiv(ut + r->std.off, 86400), &y, &m, &d);
	ys = axp_days_from_civil(y, 1, 1) * 86400;
	start = ys + when_secs(&r->start, y) - r->std.off;
	end = ys + when_secs(&r->end, y) - r->dst.off;
	if (start < end)
		return ut >= start && ut < end ? &r->dst : &r->std;
	return ut >= end && ut < start ? &r->std : &r->dst;
}

/* ---- TZif ---- */

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static int64_t
be64(const unsigned char *p)
{
	return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

static struct axp_tz *
tzif_parse(const unsigned char *p, size_t n)
{
	struct axp_tz *tz = NULL;
	size_t cnt[6], i, need, tsz = 4;
	const unsigned char *d, *end = p + n;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		if ((size_t)(end - p) < 44 || memcmp(p, "TZif", 4) != 0)
			return NULL;
		for (i = 0; i < 6; i++)
			cnt[i] = be32(p + 20 + 4 * i);
		if (cnt[3] > 100000 || cnt[4] == 0 || cnt[4] > 256 ||
		    cnt[5] > 65536 || cnt[2] > 100000)
			return NULL;
		need = cnt[3] * tsz + cnt[3] + cnt[4] * 6 + cnt[5] +
		    cnt[2] * (tsz + 4) + cnt[1] + cnt[0];
		if ((size_t)(end - p) - 44 < need)
			return NULL;
		if (pass == 0 && p[4] >= '2') {
			/* skip the 32-bit data to the 64-bit block */
			p += 44 + need;
			tsz = 8;
			continue;
		}
		break;
	}
	d = p + 44;
	tz = axg_calloc(1, sizeof(*tz));
	tz->ntrans = cnt[3];
	tz->trans = axg_calloc(cnt[3] + 1, sizeof(*tz->trans));
	tz->idx = axg_calloc(cnt[3] + 1, 1);
	for (i = 0; i < cnt[3]; i++)
		tz->trans[i] =
		    tsz == 8 ? be64(d + 8 * i) : (int32_t)be32(d + 4 * i);
	d += cnt[3] * tsz;
	for (i = 0; i < cnt[3]; i++) {
		tz->idx[i] = d[i];
		if (d[i] >= cnt[4])
			goto fail;
	}
	d += cnt[3];
	tz->ntypes = cnt[4];
	tz->types = axg_calloc(cnt[4], sizeof(*tz->types));
	for (i = 0; i < cnt[4]; i++) {
		const unsigned char *t = d + 6 * i;
		size_t ai = t[5];
		tz->types[i].off = (int32_t)be32(t);
		tz->types[i].dst = t[4] != 0;
		if (ai < cnt[5]) {
			const unsigned char *a = d + 6 * cnt[4] + ai;
			size_t al = strnlen((const char *)a, cnt[5] - ai);
			if (al >= sizeof(tz->types[i].abbr))
				al = sizeof(tz->types[i].abbr) - 1;
			memcpy(tz->types[i].abbr, a, al);
		}
	}
	d += cnt[4] * 6 + cnt[5] + cnt[2] * (tsz + 4) + cnt[1] + cnt[0];
	if (tsz == 8 && d < end && *d == '\n') {
		const unsigned char *nl =
		    memchr(d + 1, '\n', (size_t)(end - d - 1));
		if (nl != NULL && nl - d - 1 < 128) {
			char footer[128];
			memcpy(footer, d + 1, (size_t)(nl - d - 1));
			footer[nl - d - 1] = '\0';
			rule_parse(footer, &tz->rule);
		}
	}
	return tz;
fail:
	free(tz->trans);
	free(tz->idx);
	free(tz);
	return NULL;
}

static bool
valid_name(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || name[0] == '/' || name[0] == '\\' || n > 200)
		return false;
	for (i = 0; i + 1 < n; i++)
		if (name[i] == '.' && name[i + 1] == '.')
			return false;
	return true;
}

const struct axp_tz *
axp_tz_get(const char *name0, size_t n, char *err, size_t errlen)
{
	char name[256], path[512];
	struct axp_tz *tz = NULL;
	char *data = NULL;
	size_t len = 0, i;

	if (n == 0 || (n == 3 && memcmp(name0, "UTC", 3) == 0))
		return &tz_utc_zone;
	if (n >= sizeof(name) || memchr(name0, '\0', n) != NULL) {
		snprintf(err, errlen, "time: invalid location name");
		return NULL;
	}
	memcpy(name, name0, n);
	name[n] = '\0';
	pthread_mutex_lock(&tz_lock);
	for (i = 0; i < tz_ncache; i++)
		if (strcmp(tz_cache[i]->name, name) == 0) {
			tz = tz_cache[i];
			pthread_mutex_unlock(&tz_lock);
			return tz;
		}
	pthread_mutex_unlock(&tz_lock);
	if (strcmp(name, "Local") == 0)
		snprintf(path, sizeof(path), "/etc/localtime");
	else if (!valid_name(name)) {
		snprintf(err, errlen, "time: invalid location name");
		return NULL;
	} else
		snprintf(path, sizeof(path), "%s/%s", TZ_DIR, name);
	data = axg_read_file(path, TZ_MAX_FILE, &len, err, errlen);
	if (data != NULL)
		tz = tzif_parse((const unsigned char *)data, len);
	free(data);
	if (tz == NULL) {
		if (strcmp(name, "Local") == 0)
			return &tz_utc_zone;
		snprintf(err, errlen, "unknown time zone %s", name);
		return NULL;
	}
	tz->name = axg_strdup(name);
	pthread_mutex_lock(&tz_lock);
	for (i = 0; i < tz_ncache; i++)
		if (strcmp(tz_cache[i]->name, name) == 0)
			break;
	if (i < tz_ncache) {
		/* another thread loaded it meanwhile */
		struct axp_tz *old = tz_cache[i];
		pthread_mutex_unlock(&tz_lock);
		free(tz->name);
		free(tz->trans);
		free(tz->idx);
		free(tz->types);
		free(tz);
		return old;
	}
	if (tz_ncache == TZ_MAX_CACHE) {
		/* full: keep the zone anyway (zones are few and small), but
		 * stop caching, so leak at most one per distinct lookup. */
		pthread_mutex_unlock(&tz_lock);
		snprintf(err, errlen, "too many time zones in use");
		free(tz->name);
		free(tz->trans);
		free(tz->idx);
		free(tz->types);
		free(tz);
		return NULL;
	}
	tz_cache[tz_ncache++] = tz;
	pthread_mutex_unlock(&tz_lock);
	return tz;
}

static const struct tz_type *
first_type(const struct axp_tz *tz)
{
	size_t i;

	if (tz->ntrans > 0 && tz->types[tz->idx[0]].dst) {
		for (i = tz->idx[0]; i-- > 0;)
			if (!tz->types[i].dst)
				return &tz->types[i];
	}
	for (i = 0; i < tz->ntypes; i++)
		if (!tz->types[i].dst)
			return &tz->types[i];
	return &tz->types[0];
}

int32_t
axp_tz_offset(const struct axp_tz *tz, int64_t ut, const char **abbr)
{
	const struct tz_type *t;
	size_t lo = 0, hi = tz->ntrans;

	if (tz->ntrans == 0 || ut < tz->trans[0]) {
		if (tz->ntrans == 0 && tz->rule.valid)
			t = rule_type(&tz->rule, ut);
		else
			t = first_type(tz);
	} else if (ut >= tz->trans[tz->ntrans - 1] && tz->rule.valid)
		t = rule_type(&tz->rule, ut);
	else {
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (tz->trans[mid] <= ut)
				lo = mid;
			else
				hi = mid;
		}
		t = &tz->types[tz->idx[lo]];
	}
	if (abbr != NULL)
		*abbr = t->abbr;
	return t->off;
}
