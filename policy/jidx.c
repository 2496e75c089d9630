/* jidx.c: join indexes over constant collections (see jidx.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "policy/jidx.h"

#define POLY 0x100000001b3ull

struct jentry {
	uint8_t kind;
	uint32_t pos;
	struct axv *key;
};

struct jidx_builder {
	struct axv *coll;
	struct jcidr *c;
	size_t nc, capc;
	struct jentry *e;
	size_t n, cap;
	uint32_t *always;
	size_t nalways, capalways;
	bool need_string;
};

struct jslot {
	uint64_t h;
	const struct axv *key; /* JK_EQ */
	const char *s;	       /* JK_PREFIX, JK_SUFFIX */
	uint32_t len;
	uint8_t kind, used;
	uint32_t off, n;
};

/* A CIDR key: the masked network, its family (4 or 16 bytes) and
 * prefix length. */
struct jcidr {
	uint8_t fam, len;
	uint8_t a[16];
	uint32_t pos;
};

/* The CIDR keys of one family and prefix length: cidr[off..off+n),
 * sorted by address then position. */
struct jcgroup {
	uint8_t fam, len;
	uint32_t off, n;
};

struct jidx {
	const struct axv *coll;
	struct jcidr *cidr;
	struct jcgroup *cg;
	uint32_t ncg;
	struct jslot *tab;
	uint32_t mask;
	uint32_t *post;
	uint32_t *always;
	uint32_t nalways;
	bool need_string, has_eq;
	uint32_t minp, maxp; /* prefix key lengths (maxp 0: none) */
	uint32_t mins, maxs; /* suffix key lengths */
};

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static uint64_t
key_hash(int kind, uint64_t poly, size_t len)
{
	return mix(poly ^ ((uint64_t)len << 40) ^ ((uint64_t)kind << 60));
}

/* sum of s[j] * POLY^j: prefixes extend it at the end */
static uint64_t
poly_prefix(const unsigned char *s, size_t n)
{
	uint64_t h = 0, pw = 1;
	size_t j;

	for (j = 0; j < n; j++) {
		h += s[j] * pw;
		pw *= POLY;
	}
	return h;
}

/* sum of s[j] * POLY^(n-1-j): suffixes extend it at the front */
static uint64_t
poly_suffix(const unsigned char *s, size_t n)
{
	uint64_t h = 0;
	size_t j;

	for (j = 0; j < n; j++)
		h = h * POLY + s[j];
	return h;
}

static uint64_t
entry_hash(int kind, const struct axv *key)
{
	const unsigned char *s;
	size_t n;

	if (kind == JK_EQ)
		return key_hash(kind, axv_hash(key), 0);
	s = (const unsigned char *)axv_str(key);
	n = axv_strlen(key);
	return key_hash(kind,
	    kind == JK_PREFIX ? poly_prefix(s, n) : poly_suffix(s, n), n);
}

struct jidx_builder *
jidx_builder_new(struct axv *coll)
{
	struct jidx_builder *b = axg_calloc(1, sizeof(*b));

	b->coll = axv_ref(coll);
	return b;
}

void
jidx_builder_free(struct jidx_builder *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->n; i++)
		axv_unref(b->e[i].key);
	free(b->e);
	free(b->c);
	free(b->always);
	axv_unref(b->coll);
	free(b);
}

static void
mask_bits(uint8_t *a, unsigned fam, unsigned len)
{
	unsigned i;

	for (i = 0; i < fam; i++) {
		int keep = (int)len - 8 * (int)i;
		if (keep <= 0)
			a[i] = 0;
		else if (keep < 8)
			a[i] &= (uint8_t)(0xff << (8 - keep));
	}
}

/* Text s[0..n) as an IPv4 or IPv6 address: 4, 16, or 0 when it is not
 * one, or is one that the IPv4/IPv6 mixing rules of net.cidr_contains
 * could relate to the other family (IPv4-mapped or -compatible IPv6). */
static unsigned
parse_addr(const char *s, size_t n, uint8_t *a)
{
	char buf[64];
	static const uint8_t zero[10];

	if (n == 0 || n >= sizeof(buf) || memchr(s, '\0', n) != NULL)
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (memchr(buf, ':', n) == NULL)
		return inet_pton(AF_INET, buf, a) == 1 ? 4 : 0;
	if (inet_pton(AF_INET6, buf, a) != 1 || memcmp(a, zero, 10) == 0)
		return 0;
	return 16;
}

/* "ADDR/LEN" as a key; anything else may match every probe. */
static void
cidr_add(struct jidx_builder *b, uint32_t pos, const struct axv *key)
{
	const char *s = axv_str(key), *slash;
	size_t n = axv_strlen(key), ml, i;
	unsigned fam, len = 0;
	struct jcidr c;

	memset(&c, 0, sizeof(c));
	slash = memchr(s, '/', n);
	if (slash == NULL ||
	    (fam = parse_addr(s, (size_t)(slash - s), c.a)) == 0)
		goto always;
	ml = n - (size_t)(slash - s) - 1;
	if (ml == 0 || ml > 3)
		goto always;
	for (i = 0; i < ml; i++) {
		if (slash[1 + i] < '0' || slash[1 + i] > '9')
			goto always;
		len = len * 10 + (unsigned)(slash[1 + i] - '0');
	}
	if (len > 8 * fam)
		goto always;
	mask_bits(c.a, fam, len);
	c.fam = (uint8_t)fam;
	c.len = (uint8_t)len;
	c.pos = pos;
	if (b->nc == b->capc) {
		b->capc = b->capc ? b->capc * 2 : 64;
		b->c = axg_reallocarray(b->c, b->capc, sizeof(*b->c));
	}
	b->c[b->nc++] = c;
	return;
always:
	jidx_add_always(b, pos);
}

static int
cmp_cidr(const void *x, const void *y)
{
	const struct jcidr *a = x, *b = y;
	int r;

	if (a->fam != b->fam)
		return a->fam < b->fam ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	if ((r = memcmp(a->a, b->a, a->fam)) != 0)
		return r;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

void
jidx_add(struct jidx_builder *b, uint32_t pos, enum jidx_kind kind,
    struct axv *key)
{
	if (kind != JK_EQ && axv_kind(key) != AXV_STRING) {
		jidx_add_always(b, pos);
		return;
	}
	if (kind == JK_CIDR) {
		cidr_add(b, pos, key);
		return;
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->e = axg_reallocarray(b->e, b->cap, sizeof(*b->e));
	}
	b->e[b->n].kind = (uint8_t)kind;
	b->e[b->n].pos = pos;
	b->e[b->n].key = axv_ref(key);
	b->n++;
}

void
jidx_add_always(struct jidx_builder *b, uint32_t pos)
{
	if (b->nalways > 0 && b->always[b->nalways - 1] == pos)
		return;
	if (b->nalways == b->capalways) {
		b->capalways = b->capalways ? b->capalways * 2 : 16;
		b->always = axg_reallocarray(b->always, b->capalways,
		    sizeof(*b->always));
	}
	b->always[b->nalways++] = pos;
}

void
jidx_need_string(struct jidx_builder *b)
{
	b->need_string = true;
}

static bool
slot_match(const struct jslot *sl, uint64_t h, int kind, const struct axv *key,
    const char *s, size_t len)
{
	if (sl->h != h || sl->kind != kind)
		return false;
	if (kind == JK_EQ)
		return axv_equal(sl->key, key);
	return sl->len == len && memcmp(sl->s, s, len) == 0;
}

/* The slot of a key: found, or the empty one where it would go. */
static struct jslot *
slot_find(struct jslot *tab, uint32_t mask, uint64_t h, int kind,
    const struct axv *key, const char *s, size_t len)
{
	uint32_t i = (uint32_t)h & mask;

	for (;; i = (i + 1) & mask) {
		struct jslot *sl = &tab[i];
		if (!sl->used || slot_match(sl, h, kind, key, s, len))
			return sl;
	}
}

const struct jidx *
jidx_freeze(struct jidx_builder *b, struct ast_arena *a)
{
	struct jidx *x;
	uint32_t size = 16, *fill, i, nel = (uint32_t)axv_count(b->coll);
	uint64_t *hs;
	struct jslot **where;
	size_t total = 0;

	/* an index that keeps most elements narrows nothing */
	if (b->nalways * 2 > nel || nel == 0)
		return NULL;
	while (size < b->n * 2 + 16)
		size *= 2;
	x = ast_alloc(a, sizeof(*x));
	x->coll = ast_keep(a, axv_ref(b->coll));
	x->tab = ast_alloc(a, size * sizeof(*x->tab));
	x->mask = size - 1;
	x->need_string = b->need_string;
	x->minp = x->mins = UINT32_MAX;
	hs = axg_calloc(b->n + 1, sizeof(*hs));
	where = axg_calloc(b->n + 1, sizeof(*where));
	for (i = 0; i < b->n; i++) {
		struct jentry *e = &b->e[i];
		const char *s = NULL;
		uint32_t len = 0;
		struct jslot *sl;
		if (e->kind != JK_EQ) {
			s = axv_str(e->key);
			len = (uint32_t)axv_strlen(e->key);
		}
		hs[i] = entry_hash(e->kind, e->key);
		sl = slot_find(x->tab, x->mask, hs[i], e->kind, e->key, s, len);
		if (!sl->used) {
			sl->used = 1;
			sl->h = hs[i];
			sl->kind = e->kind;
			sl->key = ast_keep(a, axv_ref(e->key));
			sl->s = s ? axv_str(sl->key) : NULL;
			sl->len = len;
			if (e->kind == JK_EQ)
				x->has_eq = true;
			else if (e->kind == JK_PREFIX) {
				if (len < x->minp)
					x->minp = len;
				if (len > x->maxp)
					x->maxp = len;
			} else {
				if (len < x->mins)
					x->mins = len;
				if (len > x->maxs)
					x->maxs = len;
			}
		}
		where[i] = sl;
		sl->n++;
		total++;
	}
	/* postings: positions arrive ascending; drop repeats */
	x->post = ast_alloc(a, (total + 1) * sizeof(*x->post));
	total = 0;
	for (i = 0; i <= x->mask; i++) {
		x->tab[i].off = (uint32_t)total;
		total += x->tab[i].n;
		x->tab[i].n = 0;
	}
	fill = x->post;
	for (i = 0; i < b->n; i++) {
		struct jslot *sl = where[i];
		uint32_t *p = fill + sl->off;
		if (sl->n > 0 && p[sl->n - 1] == b->e[i].pos)
			continue;
		p[sl->n++] = b->e[i].pos;
	}
	x->always = ast_alloc(a, (b->nalways + 1) * sizeof(*x->always));
	if (b->nalways > 0)
		memcpy(x->always, b->always, b->nalways * sizeof(*x->always));
	x->nalways = (uint32_t)b->nalways;
	if (b->nc > 0) {
		qsort(b->c, b->nc, sizeof(*b->c), cmp_cidr);
		x->cidr = ast_alloc(a, b->nc * sizeof(*x->cidr));
		memcpy(x->cidr, b->c, b->nc * sizeof(*x->cidr));
		x->cg = ast_alloc(a, (33 + 129) * sizeof(*x->cg));
		for (i = 0; i < b->nc; i++) {
			struct jcgroup *g = x->ncg ? &x->cg[x->ncg - 1] : NULL;
			if (g == NULL || g->fam != b->c[i].fam ||
			    g->len != b->c[i].len) {
				g = &x->cg[x->ncg++];
				g->fam = b->c[i].fam;
				g->len = b->c[i].len;
				g->off = i;
				g->n = 0;
			}
			g->n++;
		}
	}
	free(hs);
	free(where);
	return x;
}

const struct axv *
jidx_coll(const struct jidx *x)
{
	return x->coll;
}

void
jidx_cands_init(struct jidx_cands *c)
{
	c->v = c->small;
	c->n = 0;
	c->cap = AXG_ARRAY_LEN(c->small);
}

void
jidx_cands_free(struct jidx_cands *c)
{
	if (c->v != c->small)
		free(c->v);
	jidx_cands_init(c);
}

static void
out_push(struct jidx_cands *c, const uint32_t *p, size_t k)
{
	if (c->n + k > c->cap) {
		size_t cap = c->cap;
		while (c->n + k > cap)
			cap *= 2;
		if (c->v == c->small) {
			c->v = axg_reallocarray(NULL, cap, sizeof(*c->v));
			memcpy(c->v, c->small, c->n * sizeof(*c->v));
		} else {
			c->v = axg_reallocarray(c->v, cap, sizeof(*c->v));
		}
		c->cap = cap;
	}
	memcpy(c->v + c->n, p, k * sizeof(*p));
	c->n += k;
}

static void
probe_slot(const struct jidx *x, uint64_t h, int kind, const struct axv *key,
    const char *s, size_t len, struct jidx_cands *c, int *lists)
{
	const struct jslot *sl =
	    slot_find(x->tab, x->mask, h, kind, key, s, len);

	if (sl->used && sl->n > 0) {
		out_push(c, x->post + sl->off, sl->n);
		(*lists)++;
	}
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The CIDR keys that contain the address probe; -1 when the probe is not
 * an address the table can answer for. */
static int
cidr_lookup(const struct jidx *x, const struct axv *probe, struct jidx_cands *c,
    int *lists)
{
	uint8_t a[16], m[16];
	unsigned fam;
	uint32_t g;

	if (axv_kind(probe) != AXV_STRING ||
	    (fam = parse_addr(axv_str(probe), axv_strlen(probe), a)) == 0)
		return -1;
	for (g = 0; g < x->ncg; g++) {
		const struct jcgroup *cg = &x->cg[g];
		const struct jcidr *v = x->cidr + cg->off;
		size_t lo = 0, hi = cg->n, k;
		if (cg->fam != fam)
			continue;
		memcpy(m, a, fam);
		mask_bits(m, fam, cg->len);
		while (lo < hi) { /* the first key >= m */
			size_t mid = lo + (hi - lo) / 2;
			if (memcmp(v[mid].a, m, fam) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k < cg->n && memcmp(v[k].a, m, fam) == 0; k++) {
			out_push(c, &v[k].pos, 1);
			*lists += k == lo;
		}
	}
	return 0;
}

int
jidx_lookup(const struct jidx *x, const struct axv *probe, struct jidx_cands *c)
{
	size_t len, i, j;
	int lists = 0;
	const unsigned char *s;

	c->n = 0;
	if (x->need_string && axv_kind(probe) != AXV_STRING)
		return -1;
	if (x->ncg > 0 && cidr_lookup(x, probe, c, &lists) < 0)
		return -1;
	if (x->nalways > 0) {
		out_push(c, x->always, x->nalways);
		lists++;
	}
	if (x->has_eq)
		probe_slot(x, entry_hash(JK_EQ, probe), JK_EQ, probe, NULL, 0,
		    c, &lists);
	if (axv_kind(probe) == AXV_STRING) {
		s = (const unsigned char *)axv_str(probe);
		len = axv_strlen(probe);
		if (x->maxp > 0 || x->minp == 0) {
			uint64_t h = 0, pw = 1;
			size_t top = len < x->maxp ? len : x->maxp;
			for (i = x->minp == UINT32_MAX ? top + 1 : 0; i <= top;
			     i++) {
				if (i >= x->minp)
					probe_slot(x, key_hash(JK_PREFIX, h, i),
					    JK_PREFIX, NULL, (const char *)s, i,
					    c, &lists);
				if (i < top) {
					h += s[i] * pw;
					pw *= POLY;
				}
			}
		}
		if (x->maxs > 0 || x->mins == 0) {
			uint64_t h = 0, pw = 1;
			size_t top = len < x->maxs ? len : x->maxs;
			for (j = x->mins == UINT32_MAX ? top + 1 : 0; j <= top;
			     j++) {
				/* the suffix of length j */
				if (j >= x->mins)
					probe_slot(x, key_hash(JK_SUFFIX, h, j),
					    JK_SUFFIX, NULL,
					    (const char *)s + len - j, j, c,
					    &lists);
				if (j < top) {
					h += s[len - 1 - j] * pw;
					pw *= POLY;
				}
			}
		}
	}
	if (lists > 1 && c->n > 1) {
		qsort(c->v, c->n, sizeof(*c->v), cmp_u32);
		for (i = 1, j = 1; i < c->n; i++)
			if (c->v[i] != c->v[j - 1])
				c->v[j++] = c->v[i];
		c->n = j;
	}
	return 0;
}
