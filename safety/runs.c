/*
 * runs.c: byte classes as bitmaps, and the runs of them that the scanner
 * decodes (base64 runs, and hex runs inside them).
 *
 * One pass over a layer sets, for each byte, a bit in four bitmaps: base64
 * alphabet, hex digit, upper-case and lower-case letter.  The runs and
 * the tests the scanner makes of them (is there a run of 24 here, of 32
 * hex digits there, both cases in it?) are then answered 64 bytes at a
 * time from the words, without reading the bytes again: most runs in
 * clean text (UUIDs, commit hashes, ids) are refused by these tests.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RUNS_X86 1
#endif

#include "common/common.h"
#include "safety/safety-int.h"

void
leak_runmask_free(struct leak_runmask *rm)
{
	free(rm->b64);
	memset(rm, 0, sizeof(*rm));
}

/* The classes of byte c as bits: 1 base64, 2 hex, 4 upper, 8 lower. */
static unsigned
byte_classes(uint8_t c)
{
	bool up = c >= 'A' && c <= 'Z', low = c >= 'a' && c <= 'z';
	bool dig = c >= '0' && c <= '9';
	bool hex = dig || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
	bool b64 =
	    up || low || dig || c == '+' || c == '/' || c == '-' || c == '_';

	return (unsigned)b64 | (unsigned)hex << 1 | (unsigned)up << 2 |
	    (unsigned)low << 3;
}

/* Words [from, ...) of the bitmaps, for p[from * 64 .. n), a byte at a
 * time; bits at n and past it are clear. */
static void
build_scalar(struct leak_runmask *rm, const uint8_t *p, size_t n, size_t from)
{
	for (size_t w = from; w * 64 < n; w++) {
		size_t lim = n - w * 64 < 64 ? n - w * 64 : 64;
		uint64_t b = 0, h = 0, u = 0, l = 0;
		for (size_t j = 0; j < lim; j++) {
			unsigned k = byte_classes(p[w * 64 + j]);
			b |= (uint64_t)(k & 1) << j;
			h |= (uint64_t)(k >> 1 & 1) << j;
			u |= (uint64_t)(k >> 2 & 1) << j;
			l |= (uint64_t)(k >> 3 & 1) << j;
		}
		rm->b64[w] = b;
		rm->hex[w] = h;
		rm->upper[w] = u;
		rm->lower[w] = l;
	}
}

#ifdef RUNS_X86
/* The bitmaps with AVX2, looked up by nibbles: a byte has a class if its
 * high nibble's class bits and its low nibble's share one.  Classes:
 * 0x01 "+-/" (high 2, low B D F), 0x02 digits (3, 0-9), 0x04 A-O and a-o
 * (4 and 6, 1-F), 0x08 P-Z and p-z (5 and 7, 0-A), 0x10 '_' (5, F), 0x20
 * A-F and a-f (4 and 6, 1-6).  Base64 is any of 0x1f, hex 0x22, a letter
 * 0x0c; a letter is lower-case if its bit 0x20 is set.  The tail, under 64
 * bytes, is done a byte at a time. */
__attribute__((target("avx2"))) static size_t
build_avx2(struct leak_runmask *rm, const uint8_t *p, size_t n)
{
	const __m256i lo_cls = _mm256_setr_epi8(0x0a, 0x2e, 0x2e, 0x2e, 0x2e,
	    0x2e, 0x2e, 0x0e, 0x0e, 0x0e, 0x0c, 0x05, 0x04, 0x05, 0x04, 0x15,
	    0x0a, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x0e, 0x0e, 0x0e, 0x0c,
	    0x05, 0x04, 0x05, 0x04, 0x15);
	const __m256i hi_cls = _mm256_setr_epi8(0, 0, 0x01, 0x02, 0x24, 0x18,
	    0x24, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02, 0x24, 0x18,
	    0x24, 0x08, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m256i nib = _mm256_set1_epi8(0x0f);
	const __m256i zero = _mm256_setzero_si256();
	const __m256i c_b64 = _mm256_set1_epi8(0x1f);
	const __m256i c_hex = _mm256_set1_epi8(0x22);
	const __m256i c_let = _mm256_set1_epi8(0x0c);
	size_t w = 0;

	for (; w * 64 + 64 <= n; w++) {
		uint64_t b = 0, h = 0, u = 0, l = 0;
		for (unsigned half = 0; half < 2; half++) {
			__m256i v = _mm256_loadu_si256(
			    (const __m256i *)(p + w * 64 + 32 * half));
			__m256i t =
			    _mm256_and_si256(_mm256_shuffle_epi8(lo_cls,
						 _mm256_and_si256(v, nib)),
				_mm256_shuffle_epi8(hi_cls,
				    _mm256_and_si256(_mm256_srli_epi16(v, 4),
					nib)));
			/* A bit clear for each byte outside the class. */
			uint32_t nb = (uint32_t)_mm256_movemask_epi8(
			    _mm256_cmpeq_epi8(_mm256_and_si256(t, c_b64),
				zero));
			uint32_t nh = (uint32_t)_mm256_movemask_epi8(
			    _mm256_cmpeq_epi8(_mm256_and_si256(t, c_hex),
				zero));
			uint32_t nl = (uint32_t)_mm256_movemask_epi8(
			    _mm256_cmpeq_epi8(_mm256_and_si256(t, c_let),
				zero));
			/* Bit 0x20 of each byte, moved to its top bit. */
			uint32_t b5 = (uint32_t)_mm256_movemask_epi8(
			    _mm256_slli_epi16(v, 2));
			unsigned sh = 32 * half;
			b |= (uint64_t)~nb << sh;
			h |= (uint64_t)~nh << sh;
			u |= (uint64_t)(~nl & ~b5) << sh;
			l |= (uint64_t)(~nl & b5) << sh;
		}
		rm->b64[w] = b;
		rm->hex[w] = h;
		rm->upper[w] = u;
		rm->lower[w] = l;
	}
	return w;
}

/* build_avx2 with AVX-512: the same nibble classes, 64 bytes at a time,
 * each class's bits taken straight from a byte test. */
__attribute__((target("avx512f,avx512bw"))) static size_t
build_avx512(struct leak_runmask *rm, const uint8_t *p, size_t n)
{
	const __m512i lo_cls = _mm512_broadcast_i32x4(
	    _mm_setr_epi8(0x0a, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x0e, 0x0e,
		0x0e, 0x0c, 0x05, 0x04, 0x05, 0x04, 0x15));
	const __m512i hi_cls = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 0, 0x01,
	    0x02, 0x24, 0x18, 0x24, 0x08, 0, 0, 0, 0, 0, 0, 0, 0));
	const __m512i nib = _mm512_set1_epi8(0x0f);
	const __m512i c_b64 = _mm512_set1_epi8(0x1f);
	const __m512i c_hex = _mm512_set1_epi8(0x22);
	const __m512i c_let = _mm512_set1_epi8(0x0c);
	const __m512i c_b5 = _mm512_set1_epi8(0x20);
	size_t w = 0;

	for (; w * 64 + 64 <= n; w++) {
		__m512i v = _mm512_loadu_si512(p + w * 64);
		__m512i t = _mm512_and_si512(_mm512_shuffle_epi8(lo_cls,
						 _mm512_and_si512(v, nib)),
		    _mm512_shuffle_epi8(hi_cls,
			_mm512_and_si512(_mm512_srli_epi16(v, 4), nib)));
		uint64_t let = _mm512_test_epi8_mask(t, c_let);
		uint64_t b5 = _mm512_test_epi8_mask(v, c_b5);
		rm->b64[w] = _mm512_test_epi8_mask(t, c_b64);
		rm->hex[w] = _mm512_test_epi8_mask(t, c_hex);
		rm->upper[w] = let & ~b5;
		rm->lower[w] = let & b5;
	}
	return w;
}
#endif

/* Bit i of the result: bits w * 64 + i .. w * 64 + i + len - 1 of m are
 * all set (len 17 to 32), so a run of at least len starts there or runs
 * through it.  Each step ANDs the pair (lo, hi) with itself shifted right
 * by k, which doubles the span each bit stands for (2, 4, 8, 16), and the
 * last extends it to len.  lo's bits need hi's first len - 1 only, which
 * come from word w + 1 alone. */
#define RUN_STEP(k)                                                            \
	do {                                                                   \
		lo &= lo >> (k) | hi << (64 - (k));                            \
		hi &= hi >> (k);                                               \
	} while (0)

static inline uint64_t
run_bits(const uint64_t *m, size_t w, unsigned len)
{
	uint64_t lo = m[w], hi = m[w + 1];

	RUN_STEP(1);
	RUN_STEP(2);
	RUN_STEP(4);
	RUN_STEP(8);
	lo &= lo >> (len - 16) | hi << (64 - (len - 16));
	return lo;
}
#undef RUN_STEP

_Static_assert(LEAK_B64_RUN_MIN > 16 && LEAK_B64_RUN_MIN <= 32 &&
	LEAK_HEX_RUN_MIN > 16 && LEAK_HEX_RUN_MIN <= 32,
    "run_bits finds runs of 17 to 32");

void
leak_runmask_build(struct leak_runmask *rm, const uint8_t *p, size_t n,
    enum leak_simd simd)
{
	size_t words = (n + 63) / 64, w = 0;

	if (rm->cap < words + 1) {
		free(rm->b64);
		/* One allocation, the five bitmaps one after another. */
		rm->b64 = axg_calloc(5 * (words + 1), sizeof(uint64_t));
		rm->cap = words + 1;
	}
	rm->hex = rm->b64 + rm->cap;
	rm->upper = rm->hex + rm->cap;
	rm->lower = rm->upper + rm->cap;
	rm->start = rm->lower + rm->cap;
	rm->n = n;
#ifdef RUNS_X86
	if (simd == LEAK_SIMD_AVX512)
		w = build_avx512(rm, p, n);
	else if (simd == LEAK_SIMD_AVX2)
		w = build_avx2(rm, p, n);
#else
	(void)simd;
#endif
	build_scalar(rm, p, n, w);
	rm->b64[words] = 0; /* read by run_bits */
	rm->hex[words] = 0;
	/* No branch: the words are independent, and the CPU overlaps them. */
	for (size_t i = 0; i < words; i++)
		rm->start[i] = run_bits(rm->b64, i, LEAK_B64_RUN_MIN);
}

/* The first i in [from, e) whose bit is (set) or is not (!set), or e. */
static size_t
next_bit(const uint64_t *m, size_t from, size_t e, bool set)
{
	size_t i = from;

	while (i < e) {
		uint64_t x = (set ? m[i / 64] : ~m[i / 64]) >> (i % 64);
		if (x != 0) {
			i += (size_t)__builtin_ctzll(x);
			return i < e ? i : e;
		}
		i = (i | 63) + 1;
	}
	return e;
}

/* The start of the run of set bits that ends at e (exclusive), but not
 * before lo (lo <= e). */
static size_t
run_start(const uint64_t *m, size_t lo, size_t e)
{
	size_t j = e;

	while (j > lo) {
		size_t last = j - 1;
		/* Bits 0 .. last % 64 of the word that holds last. */
		uint64_t keep = ~(uint64_t)0 >> (63 - last % 64);
		uint64_t x = ~m[last / 64] & keep;
		if (x != 0) {
			size_t s = (last & ~(size_t)63) + 64 -
			    (size_t)__builtin_clzll(x);
			return s > lo ? s : lo;
		}
		j = last & ~(size_t)63;
	}
	return lo;
}

bool
leak_runmask_b64_run(const struct leak_runmask *rm, size_t from, size_t *s,
    size_t *e)
{
	size_t words = (rm->n + 63) / 64, w = from / 64;
	uint64_t z;

	if (w >= words)
		return false;
	z = rm->start[w] & ~(uint64_t)0 << (from % 64);
	while (z == 0) {
		if (++w >= words)
			return false;
		z = rm->start[w];
	}
	size_t q = w * 64 + (size_t)__builtin_ctzll(z);
	*s = run_start(rm->b64, from, q);
	*e = next_bit(rm->b64, q, rm->n, false);
	return true;
}

bool
leak_runmask_hex_run(const struct leak_runmask *rm, size_t from, size_t e,
    size_t *hs, size_t *he)
{
	if (from + LEAK_HEX_RUN_MIN > e)
		return false;
	/* The first start of 32 digits in [from, e - 32]: the digits are
	 * inside a base64 run, which e ends, so none runs past e. */
	size_t last = e - LEAK_HEX_RUN_MIN;
	for (size_t w = from / 64; w <= last / 64; w++) {
		uint64_t z = run_bits(rm->hex, w, LEAK_HEX_RUN_MIN);
		if (w == from / 64)
			z &= ~(uint64_t)0 << (from % 64);
		if (w == last / 64)
			z &= ~(uint64_t)0 >> (63 - last % 64);
		if (z != 0) {
			size_t q = w * 64 + (size_t)__builtin_ctzll(z);
			*hs = run_start(rm->hex, from, q);
			*he = next_bit(rm->hex, q, e, false);
			return true;
		}
	}
	return false;
}

/* Is a bit of m[s..e) set? */
static bool
any_bit(const uint64_t *m, size_t s, size_t e)
{
	return next_bit(m, s, e, true) < e;
}

bool
leak_runmask_both_cases(const struct leak_runmask *rm, size_t s, size_t e)
{
	return any_bit(rm->upper, s, e) && any_bit(rm->lower, s, e);
}
