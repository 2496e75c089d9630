/*
 * ac.c: the keyword prefilter: every occurrence of every keyword, in one
 * pass, without regard to ASCII case.
 *
 * Each keyword of 4 to 64 bytes is represented by one 4-byte window, its
 * rarest (judged by English letter frequency, so "datadog" by "adog", not
 * "data"); each keyword of 3 bytes by itself.  Two bitmaps, indexed by a
 * hash of the 4 (or 3) bytes at a position (case folded by OR-ing 0x20),
 * say whether a keyword's window can be there; only where one can is the
 * window looked up in a small hash table of (window, keyword, offset) and
 * the keyword compared in full.
 *
 * The bitmap test has no dependency between positions, so the CPU overlaps
 * the loads of many positions, and the bitmap stays in cache; almost every
 * position of ordinary text stops there.
 */
#include "config.h"

#include <string.h>

#include "common/common.h"
#include "safety/safety-int.h"

#define HASH_BITS  17 /* the 4-byte windows: 16 KB */
#define HASH3_BITS 16 /* the 3-byte keywords: 8 KB */

struct win {
	uint32_t w; /* the folded window */
	uint32_t id;
	uint16_t off, len;
	const char *kw; /* NULL: empty slot */
};

struct leak_ac {
	uint64_t bits[(1u << HASH_BITS) / 64];
	uint64_t bits3[(1u << HASH3_BITS) / 64];
	struct win *wins; /* open addressing on w */
	uint32_t wmask;
	uint32_t wshift; /* 32 - log2(table size) */
};

static inline uint32_t
hash4(uint32_t w)
{
	return (w * 0x85ebca6bu) >> (32 - HASH_BITS);
}

static inline uint32_t
hash3(uint32_t w)
{
	return ((w & 0xffffff) * 0x9e3779b1u) >> (32 - HASH3_BITS);
}

/* The table index: the high bits of a multiplicative hash, which depend
 * on every byte of the window. */
static inline uint32_t
slot_of(const struct leak_ac *ac, uint32_t w)
{
	return (w * 0x9e3779b1u) >> ac->wshift;
}

static uint32_t
fold4(const uint8_t *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w | 0x20202020u;
}

/* How rare a byte is in text: letters by English frequency, other bytes
 * but space rarer still. */
static int
rarity(uint8_t c)
{
	static const char freq[] = "etaoinshrdlcumwfgypbvkjxqz";
	const char *f;

	if (c >= 'A' && c <= 'Z')
		c = (uint8_t)(c + 32);
	if (c == ' ')
		return 0;
	f = memchr(freq, c, sizeof(freq) - 1);
	return f != NULL ? (int)(f - freq) + 1 : 30;
}

static void
insert(struct leak_ac *ac, uint32_t w, const struct leak_ac_pattern *pat,
    size_t off)
{
	uint32_t slot = slot_of(ac, w);

	if (pat->len == 3) {
		uint32_t h = hash3(w);
		ac->bits3[h / 64] |= (uint64_t)1 << (h % 64);
	} else {
		uint32_t h = hash4(w);
		ac->bits[h / 64] |= (uint64_t)1 << (h % 64);
	}
	while (ac->wins[slot].kw != NULL)
		slot = (slot + 1) & ac->wmask;
	ac->wins[slot] = (struct win){ w, pat->id, (uint16_t)off,
		(uint16_t)pat->len, pat->bytes };
}

struct leak_ac *
leak_ac_new(const struct leak_ac_pattern *pats, size_t n)
{
	struct leak_ac *ac = axg_calloc(1, sizeof(*ac));
	size_t need = 0, cap = 16;

	need = n;
	ac->wshift = 28;
	while (cap < 2 * need + 2) {
		cap *= 2;
		ac->wshift--;
	}
	ac->wins = axg_calloc(cap, sizeof(*ac->wins));
	ac->wmask = (uint32_t)cap - 1;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *k = (const uint8_t *)pats[i].bytes;
		size_t len = pats[i].len, best = 0;
		int bs = -1;

		if (len < 3)
			continue; /* refused when rules are added */
		if (len == 3) {
			uint8_t b[4] = { k[0], k[1], k[2], 0 };
			insert(ac, fold4(b) & 0xffffff, &pats[i], 0);
			continue;
		}
		for (size_t o = 0; o + 4 <= len; o++) {
			int sc = rarity(k[o]) + rarity(k[o + 1]) +
			    rarity(k[o + 2]) + rarity(k[o + 3]);
			if (sc > bs) {
				bs = sc;
				best = o;
			}
		}
		insert(ac, fold4(k + best), &pats[i], best);
	}
	return ac;
}

void
leak_ac_free(struct leak_ac *ac)
{
	if (ac == NULL)
		return;
	free(ac->wins);
	free(ac);
}

/* Confirm the keywords whose window w is at p[i] (w holds 3 bytes for the
 * 3-byte keywords). */
static int
windows_at(const struct leak_ac *ac, const uint8_t *p, size_t n, size_t i,
    uint32_t w, int (*hit)(size_t, uint32_t, void *), void *arg)
{
	for (uint32_t slot = slot_of(ac, w); ac->wins[slot].kw != NULL;
	     slot = (slot + 1) & ac->wmask) {
		const struct win *e = &ac->wins[slot];
		if (e->w != w || i < e->off)
			continue;
		size_t st = i - e->off;
		if (st + e->len > n ||
		    !axg_strncaseeq((const char *)p + st, e->kw, e->len))
			continue;
		int rc = hit(st + e->len, e->id, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

#define TEST(x)	 ((bits[hash4(x) / 64] >> (hash4(x) % 64)) & 1)
#define TEST3(x) ((bits3[hash3(x) / 64] >> (hash3(x) % 64)) & 1)

int
leak_ac_scan(const struct leak_ac *ac, const uint8_t *p, size_t n,
    int (*hit)(size_t end, uint32_t id, void *arg), void *arg)
{
	const uint64_t *bits = ac->bits, *bits3 = ac->bits3;
	size_t i = 0;
	int rc;

	/* Four positions per step, each a 32-bit window of 8 bytes. */
	for (; i + 8 <= n; i += 4) {
		uint64_t w;
		memcpy(&w, p + i, sizeof(w));
		w |= 0x2020202020202020ULL;
		uint32_t x[4] = { (uint32_t)w, (uint32_t)(w >> 8),
			(uint32_t)(w >> 16), (uint32_t)(w >> 24) };
		uint32_t m = (uint32_t)(TEST(x[0]) | TEST(x[1]) << 1 |
		    TEST(x[2]) << 2 | TEST(x[3]) << 3 | TEST3(x[0]) << 4 |
		    TEST3(x[1]) << 5 | TEST3(x[2]) << 6 | TEST3(x[3]) << 7);
		if (__builtin_expect(m == 0, 1))
			continue;
		for (int k = 0; k < 4; k++) {
			if ((m >> k) & 1) {
				rc = windows_at(ac, p, n, i + (size_t)k, x[k],
				    hit, arg);
				if (rc != 0)
					return rc;
			}
			if ((m >> (k + 4)) & 1) {
				rc = windows_at(ac, p, n, i + (size_t)k,
				    x[k] & 0xffffff, hit, arg);
				if (rc != 0)
					return rc;
			}
		}
	}
	/* The last positions, padded with bytes that fold to a space. */
	for (; i + 3 <= n; i++) {
		uint8_t b[4] = { 0, 0, 0, 0 };
		memcpy(b, p + i, n - i < 4 ? n - i : 4);
		uint32_t x = fold4(b);
		rc = 0;
		if (TEST(x))
			rc = windows_at(ac, p, n, i, x, hit, arg);
		if (rc == 0 && TEST3(x))
			rc = windows_at(ac, p, n, i, x & 0xffffff, hit, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}
