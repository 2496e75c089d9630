/*
 * ac.c: the keyword prefilter: every occurrence of every keyword, in one
 * pass, without regard to ASCII case.
 *
 * Each keyword (3 to 64 bytes) is represented by one 3-byte window, its
 * rarest (judged by English letter frequency, so "datadog" by "dog", not
 * "dat").  A bitmap indexed by a multiplicative hash of the 3 bytes at a
 * position (case folded by OR-ing 0x20) says whether some keyword's window
 * can be there.  Only where one can is the window looked up in a small
 * hash table of (window, keyword, offset) and the keyword compared in
 * full.
 *
 * The filter is one hash and one bit test per position with no dependency
 * between positions.  With AVX2 (chosen at run time) 16 positions are
 * hashed with two shuffles and two vector multiplies and tested with two
 * gathers; elsewhere a scalar loop tests 8 positions per branch.  Both
 * report exactly the same hits in the same order.
 */
#include "config.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define AC_X86 1
#endif

#include "common/common.h"
#include "safety/safety-int.h"

#define FBITS 17 /* filter bits: 2^17 bits, 16 KB */
#define HMUL  0x9e3779b1u

struct win {
	uint32_t w; /* the folded 3-byte window */
	uint32_t id;
	uint16_t off, len;
	const char *kw; /* NULL: empty slot; lower-case */
};

struct leak_ac {
	uint32_t bits[(1u << FBITS) / 32];
	struct win *wins; /* open addressing on w */
	uint32_t wmask;
	uint32_t wshift; /* 32 - log2(table size) */
	bool avx2;
};

static inline uint32_t
fhash(uint32_t w3)
{
	return (w3 * HMUL) >> (32 - FBITS);
}

/* The table index: the high bits of another multiplicative hash. */
static inline uint32_t
slot_of(const struct leak_ac *ac, uint32_t w)
{
	return (w * 0x85ebca6bu) >> ac->wshift;
}

static inline uint32_t
load3(const uint8_t *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return (w | 0x20202020u) & 0xffffffu; /* little-endian: bytes 0..2 */
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
	uint32_t slot = slot_of(ac, w), h = fhash(w);

	ac->bits[h / 32] |= (uint32_t)1 << (h % 32);
	while (ac->wins[slot].kw != NULL)
		slot = (slot + 1) & ac->wmask;
	ac->wins[slot] = (struct win){ w, pat->id, (uint16_t)off,
		(uint16_t)pat->len, pat->bytes };
}

static bool
cpu_has_avx2(void)
{
#if defined(AC_X86) && defined(__GNUC__)
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") != 0;
#else
	return false;
#endif
}

struct leak_ac *
leak_ac_new(const struct leak_ac_pattern *pats, size_t n)
{
	struct leak_ac *ac = axg_calloc(1, sizeof(*ac));
	size_t cap = 16;

	ac->wshift = 28;
	while (cap < 2 * n + 2) {
		cap *= 2;
		ac->wshift--;
	}
	ac->wins = axg_calloc(cap, sizeof(*ac->wins));
	ac->wmask = (uint32_t)cap - 1;
	ac->avx2 = cpu_has_avx2();

	for (size_t i = 0; i < n; i++) {
		const uint8_t *k = (const uint8_t *)pats[i].bytes;
		size_t len = pats[i].len, best = 0;
		int bs = -1;

		if (len < 3 || len > UINT16_MAX)
			continue; /* refused when rules are added */
		for (size_t o = 0; o + 3 <= len; o++) {
			int sc =
			    rarity(k[o]) + rarity(k[o + 1]) + rarity(k[o + 2]);
			if (sc > bs) {
				bs = sc;
				best = o;
			}
		}
		uint8_t b[4] = { k[best], k[best + 1], k[best + 2], 0 };
		insert(ac, load3(b), &pats[i], best);
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

void
leak_ac_set_simd(struct leak_ac *ac, bool on)
{
	ac->avx2 = on && cpu_has_avx2();
}

static inline bool
fold_eq(const uint8_t *p, const char *kw, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		uint8_t c = p[i];
		if (c >= 'A' && c <= 'Z')
			c = (uint8_t)(c + 32);
		if (c != (uint8_t)kw[i])
			return false;
	}
	return true;
}

/* Confirm the keywords whose window w is at p[i]. */
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
		if (st + e->len > n || !fold_eq(p + st, e->kw, e->len))
			continue;
		int rc = hit(st + e->len, e->id, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static inline uint32_t
test_at(const uint32_t *bits, uint32_t w)
{
	uint32_t h = fhash(w);

	return (bits[h / 32] >> (h % 32)) & 1;
}

/* Positions [i, i + 8) from a mask of set filter bits. */
static int
report_mask(const struct leak_ac *ac, const uint8_t *p, size_t n, size_t i,
    uint32_t m, int (*hit)(size_t, uint32_t, void *), void *arg)
{
	while (m != 0) {
		unsigned k = (unsigned)__builtin_ctz(m);
		m &= m - 1;
		int rc =
		    windows_at(ac, p, n, i + k, load3(p + i + k), hit, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

#ifdef AC_X86
/* 16 positions per step: each 128-bit lane of a broadcast 16-byte load is
 * shuffled into four 3-byte windows (zero in the fourth byte), folded,
 * hashed with one 32-bit multiply per window and tested with a gather. */
__attribute__((target("avx2"))) static size_t
scan_avx2(const struct leak_ac *ac, const uint8_t *p, size_t n,
    int (*hit)(size_t, uint32_t, void *), void *arg, int *rcp)
{
	const __m256i shuf = _mm256_setr_epi8(0, 1, 2, -128, 1, 2, 3, -128, 2,
	    3, 4, -128, 3, 4, 5, -128, 4, 5, 6, -128, 5, 6, 7, -128, 6, 7, 8,
	    -128, 7, 8, 9, -128);
	const __m256i fold = _mm256_set1_epi32(0x00202020);
	const __m256i mul = _mm256_set1_epi32((int)HMUL);
	const __m256i low5 = _mm256_set1_epi32(31);
	const __m256i one = _mm256_set1_epi32(1);
	const int *bits = (const int *)ac->bits;
	size_t i = 0;

	for (; i + 32 <= n; i += 16) {
		__m256i a = _mm256_broadcastsi128_si256(
		    _mm_loadu_si128((const __m128i *)(p + i)));
		__m256i b = _mm256_broadcastsi128_si256(
		    _mm_loadu_si128((const __m128i *)(p + i + 8)));
		a = _mm256_or_si256(_mm256_shuffle_epi8(a, shuf), fold);
		b = _mm256_or_si256(_mm256_shuffle_epi8(b, shuf), fold);
		a = _mm256_srli_epi32(_mm256_mullo_epi32(a, mul), 32 - FBITS);
		b = _mm256_srli_epi32(_mm256_mullo_epi32(b, mul), 32 - FBITS);
		__m256i ga =
		    _mm256_i32gather_epi32(bits, _mm256_srli_epi32(a, 5), 4);
		__m256i gb =
		    _mm256_i32gather_epi32(bits, _mm256_srli_epi32(b, 5), 4);
		ga = _mm256_and_si256(_mm256_srlv_epi32(ga,
					  _mm256_and_si256(a, low5)),
		    one);
		gb = _mm256_and_si256(_mm256_srlv_epi32(gb,
					  _mm256_and_si256(b, low5)),
		    one);
		if (__builtin_expect(_mm256_testz_si256(_mm256_or_si256(ga, gb),
					 _mm256_or_si256(ga, gb)),
			1))
			continue;
		uint32_t m = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(
				 _mm256_slli_epi32(ga, 31))) |
		    (uint32_t)_mm256_movemask_ps(
			_mm256_castsi256_ps(_mm256_slli_epi32(gb, 31)))
			<< 8;
		int rc = report_mask(ac, p, n, i, m, hit, arg);
		if (rc != 0) {
			*rcp = rc;
			return i;
		}
	}
	return i;
}
#endif

int
leak_ac_scan(const struct leak_ac *ac, const uint8_t *p, size_t n,
    int (*hit)(size_t end, uint32_t id, void *arg), void *arg)
{
	const uint32_t *bits = ac->bits;
	size_t i = 0;
	int rc = 0;

#ifdef AC_X86
	if (ac->avx2) {
		i = scan_avx2(ac, p, n, hit, arg, &rc);
		if (rc != 0)
			return rc;
	}
#endif
	/* Eight positions per branch; the 4-byte loads stay inside p. */
	for (; i + 12 <= n; i += 8) {
		uint32_t m = 0;
		for (unsigned k = 0; k < 8; k++)
			m |= test_at(bits, load3(p + i + k)) << k;
		if (__builtin_expect(m == 0, 1))
			continue;
		rc = report_mask(ac, p, n, i, m, hit, arg);
		if (rc != 0)
			return rc;
	}
	/* The last positions, copied so that no load reads past p + n. */
	for (; i + 3 <= n; i++) {
		uint8_t b[4] = { p[i], p[i + 1], p[i + 2], 0 };
		uint32_t w = load3(b);
		if (test_at(bits, w)) {
			rc = windows_at(ac, p, n, i, w, hit, arg);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}
