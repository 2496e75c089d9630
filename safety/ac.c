/*
 * ac.c: the keyword prefilter: every occurrence of every keyword, in one
 * pass, without regard to ASCII case.
 *
 * A shift-or filter over hashed byte pairs (the scheme of Hyperscan's
 * FDR), which stays selective with hundreds of keywords where a nibble
 * matcher (Teddy) lights up on every letter:
 *
 *   - Keywords are put into 8 buckets by length (see assign_buckets).
 *   - Each input position p is given a 12-bit hash h(p) of the byte pair
 *     (p[-1], p[0]), case folded by OR-ing 0x20 (see pair_hash).
 *   - reach[h] is 8 bytes: bit b of byte t is clear if some keyword of
 *     bucket b can have, t bytes before its last byte, a pair hashing to
 *     h (or is shorter than that, or t is at its first byte, whose
 *     predecessor is unknown).
 *   - The bytes of reach[h(p)] are OR-ed into positions p .. p + 7; a
 *     position whose byte still has a clear bit b can be the end of a
 *     keyword of bucket b.  Only there is the keyword looked up (by its
 *     last three bytes) and compared in full.
 *
 * Each input byte costs one table load, a shift and an OR, with no
 * branch; a block of 8 ends is tested with one compare, and the SIMD loops
 * set the blocks that pass aside, without a branch, to report them in
 * batches (see struct cands).  With AVX2
 * (chosen at run time) the pair hashes of 32 positions are computed with
 * a handful of vector instructions; with AVX-512 those of 64, and their
 * table entries are gathered, shifted and OR-ed 8 at a time; elsewhere
 * one at a time.  All paths compute the same filter bytes and report
 * exactly the same hits in the same order: by end position, ascending.
 * AXGATE_SCAN_SCALAR=1 in the environment forces the scalar path (for
 * tests).
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define AC_X86 1
#endif

#include "common/common.h"
#include "safety/safety-int.h"

#define DBITS	 12	 /* pair hash bits: reach[] is 4096 x 8 bytes */
#define HMUL16	 0x10f1u /* see pair_hash */
#define NBUCKETS 8
#define DEPTH	 8 /* bytes of a keyword's tail the filter looks at */

/* A keyword, in the array of them sorted by (bucket and last 3 bytes,
 * length descending). */
struct lit {
	uint32_t w; /* the folded last 3 bytes | bucket << 24 */
	uint32_t id;
	uint16_t len;
	uint8_t bucket;
	const char *kw; /* lower-case */
	/* The last min(len, 8) bytes of kw at the end of 8 bytes read as a
	 * word (zero before them), and the mask of those bytes. */
	uint64_t tail, tmask;
};

struct leak_ac {
	uint64_t reach[1u << DBITS];
	struct lit *lits;
	/* Open addressing on w: index + 1 of the first keyword with that
	 * w (the others follow it in lits), or 0. */
	uint32_t *head;
	uint32_t hmask;
	uint32_t hshift; /* 32 - log2(table size) */
	size_t nlits;
	bool avx2;
	bool avx512; /* with avx2 */
};

/* A multiplicative hash.  The multiplier gives each of the 1296 pairs of
 * letters and digits (case folded) a hash of its own, and shares the
 * fewest (7) among the 4096 pairs of those and 28 other common bytes.
 * Where a pair of text shares a hash with a pair of a keyword, the filter
 * passes ends of no keyword: 0x9e37 shared 185 hashes of pairs of letters
 * and digits and passed a quarter more such ends on prose, code and
 * logs. */
static inline uint32_t
pair_hash(uint32_t pair)
{
	return (uint32_t)(uint16_t)((pair | 0x2020u) * HMUL16) >> (16 - DBITS);
}

/* The table index: the high bits of a multiplicative hash. */
static inline uint32_t
slot_of(const struct leak_ac *ac, uint32_t w)
{
	return (w * 0x85ebca6bu) >> ac->hshift;
}

static inline uint32_t
fold3(const uint8_t *p)
{
	return ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16) |
	    0x202020u;
}

#if defined(AC_X86) && defined(__GNUC__)
/* The CPU's vector extensions, from CPUID and what the kernel enabled in
 * XCR0, read on the first scanner's creation rather than by a constructor
 * at every start-up (__builtin_cpu_supports() brings libgcc's): in a
 * virtual machine each CPUID traps to the hypervisor, microseconds each,
 * and `axgate run` starts more often than it scans. */
static struct {
	pthread_once_t once;
	bool avx2, avx512; /* avx512: F, BW and POPCNT */
} cpu = { PTHREAD_ONCE_INIT, false, false };

static void
cpu_read(void)
{
	unsigned a, b, c, d, lo, hi;
	bool popcnt;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return;
	popcnt = (c & bit_POPCNT) != 0;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	(void)hi;
	if (__get_cpuid_max(0, NULL) < 7)
		return;
	__cpuid_count(7, 0, a, b, c, d);
	/* XCR0: SSE and AVX state (bits 1, 2); opmask, ZMM halves and upper
	 * ZMM registers (5, 6, 7) */
	cpu.avx2 = (lo & 0x06) == 0x06 && (b & bit_AVX2);
	cpu.avx512 = cpu.avx2 && (lo & 0xe0) == 0xe0 && (b & bit_AVX512F) &&
	    (b & bit_AVX512BW) && popcnt;
}
#endif

static bool
cpu_has_avx2(void)
{
#if defined(AC_X86) && defined(__GNUC__)
	const char *force = getenv("AXGATE_SCAN_SCALAR");

	if (force != NULL && force[0] != '\0' && strcmp(force, "0") != 0)
		return false;
	pthread_once(&cpu.once, cpu_read);
	return cpu.avx2;
#else
	return false;
#endif
}

/* The AVX-512 filter is used with AVX2, where the CPU has both. */
static bool
cpu_has_avx512(void)
{
#if defined(AC_X86) && defined(__GNUC__)
	pthread_once(&cpu.once, cpu_read);
	return cpu.avx512;
#else
	return false;
#endif
}

static int
by_length(const void *a, const void *b)
{
	const struct leak_ac_pattern *x =
	    *(const struct leak_ac_pattern *const *)a;
	const struct leak_ac_pattern *y =
	    *(const struct leak_ac_pattern *const *)b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int
by_tail(const void *a, const void *b)
{
	const struct lit *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Fill in x->tail and x->tmask from x->kw and x->len. */
static void
set_tail(struct lit *x)
{
	uint8_t t[8] = { 0 }, mk[8] = { 0 };
	size_t l = x->len < 8 ? x->len : 8;

	memcpy(t + 8 - l, x->kw + x->len - l, l);
	memset(mk + 8 - l, 0xff, l);
	memcpy(&x->tail, t, 8);
	memcpy(&x->tmask, mk, 8);
}

/* Bucket b's filter byte t constrains nothing if a keyword of b is
 * shorter than t + 2, so each bucket should hold one length, and as few
 * short keywords as it can: those have one or two pairs to test, which
 * common text pairs pass.  ord[0..m) is sorted by length.  Each length of
 * 3 to 6 bytes gets a bucket, lengths 3 and 4 two (keywords alternating)
 * when they hold over a sixteenth of the keywords; the longer keywords,
 * seven pairs or more of which are tested, share the rest by count. */
static void
assign_buckets(const struct leak_ac_pattern *const *ord, size_t m,
    unsigned *bucket)
{
	unsigned nb = 0;
	size_t i = 0;

	while (i < m && ord[i]->len <= 6) {
		size_t j = i;
		while (j < m && ord[j]->len == ord[i]->len)
			j++;
		unsigned k = ord[i]->len <= 4 && (j - i) * 16 > m ? 2 : 1;
		for (size_t x = i; x < j; x++)
			bucket[x] = nb + (unsigned)((x - i) % k);
		nb += k;
		i = j;
	}
	/* At most 2 + 2 + 1 + 1 buckets are used so far. */
	for (size_t base = i; i < m; i++)
		bucket[i] =
		    nb + (unsigned)((i - base) * (NBUCKETS - nb) / (m - base));
}

struct leak_ac *
leak_ac_new(const struct leak_ac_pattern *pats, size_t n)
{
	struct leak_ac *ac = axg_calloc(1, sizeof(*ac));
	const struct leak_ac_pattern **ord;
	unsigned *bucket;
	uint64_t any = 0; /* bits clear in every entry */
	size_t cap = 16, m = 0;

	ac->hshift = 28;
	while (cap < 2 * n + 2) {
		cap *= 2;
		ac->hshift--;
	}
	ac->head = axg_calloc(cap, sizeof(*ac->head));
	ac->hmask = (uint32_t)cap - 1;
	ac->avx2 = cpu_has_avx2();
	ac->avx512 = ac->avx2 && cpu_has_avx512();
	memset(ac->reach, 0xff, sizeof(ac->reach));

	ord = axg_calloc(n ? n : 1, sizeof(*ord));
	for (size_t i = 0; i < n; i++)
		if (pats[i].len >= 3 && pats[i].len <= UINT16_MAX)
			ord[m++] = &pats[i]; /* others refused when added */
	qsort(ord, m, sizeof(*ord), by_length);
	bucket = axg_calloc(m ? m : 1, sizeof(*bucket));
	assign_buckets(ord, m, bucket);
	ac->lits = axg_calloc(m ? m : 1, sizeof(*ac->lits));
	ac->nlits = m;
	for (size_t i = 0; i < m; i++) {
		const struct leak_ac_pattern *pat = ord[i];
		const uint8_t *k = (const uint8_t *)pat->bytes;
		size_t len = pat->len;
		unsigned b = bucket[i];

		for (unsigned t = 0; t < DEPTH; t++) {
			uint64_t bit = (uint64_t)1 << (8 * t + b);
			if (t + 1 >= len) /* the first byte, or before it */
				any |= bit;
			else
				ac->reach[pair_hash((uint32_t)k[len - 2 - t] |
				    (uint32_t)k[len - 1 - t] << 8)] &= ~bit;
		}
		/* Case folding by OR 0x20 also maps other bytes together;
		 * the filter only needs to be a superset. */
		ac->lits[i] = (struct lit){ fold3(k + len - 3) | b << 24,
			pat->id, (uint16_t)len, (uint8_t)b, pat->bytes, 0, 0 };
		set_tail(&ac->lits[i]);
	}
	for (size_t h = 0; h < AXG_ARRAY_LEN(ac->reach); h++)
		ac->reach[h] &= ~any;
	qsort(ac->lits, m, sizeof(*ac->lits), by_tail);
	for (size_t i = 0; i < m; i++) {
		if (i > 0 && ac->lits[i - 1].w == ac->lits[i].w)
			continue;
		uint32_t slot = slot_of(ac, ac->lits[i].w);
		while (ac->head[slot] != 0)
			slot = (slot + 1) & ac->hmask;
		ac->head[slot] = (uint32_t)i + 1;
	}
	free(ord);
	free(bucket);
	return ac;
}

void
leak_ac_free(struct leak_ac *ac)
{
	if (ac == NULL)
		return;
	free(ac->head);
	free(ac->lits);
	free(ac);
}

void
leak_ac_set_simd(struct leak_ac *ac, bool on)
{
#if defined(AC_X86) && defined(__GNUC__)
	pthread_once(&cpu.once, cpu_read);
	ac->avx2 = on && cpu.avx2;
	ac->avx512 = ac->avx2 && cpu.avx512;
#else
	(void)on;
	ac->avx2 = false;
	ac->avx512 = false;
#endif
}

void
leak_ac_set_avx512(struct leak_ac *ac, bool on)
{
	ac->avx512 = on && ac->avx2 && cpu_has_avx512();
}

bool
leak_ac_simd(const struct leak_ac *ac)
{
	return ac->avx2;
}

enum leak_simd
leak_ac_simd_level(const struct leak_ac *ac)
{
	return ac->avx512 ? LEAK_SIMD_AVX512
	    : ac->avx2	  ? LEAK_SIMD_AVX2
			  : LEAK_SIMD_NONE;
}

/* p[0..len) equals the lower-case kw without regard to ASCII case;
 * compared from the end, where keywords sharing a tail differ last. */
static inline bool
fold_eq(const uint8_t *p, const char *kw, size_t len)
{
	for (size_t i = len; i-- > 0;) {
		uint8_t c = p[i];
		if (c >= 'A' && c <= 'Z')
			c = (uint8_t)(c + 32);
		if (c != (uint8_t)kw[i])
			return false;
	}
	return true;
}

/* The 8 bytes at p with ASCII upper-case letters made lower-case. */
static inline uint64_t
fold8(const uint8_t *p)
{
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t hi = ones * 0x80;
	uint64_t v, t;

	memcpy(&v, p, 8);
	t = v & ~hi; /* each byte under 0x80: the sums below stay in it */
	uint64_t up = (t + ones * (0x80 - 'A')) &
	    ~(t + ones * (0x80 - 'Z' - 1)) & ~v & hi;
	return v | up >> 2;
}

/* Does the keyword x end at p[e] (the byte before p + e + 1)?  Its last
 * 8 bytes are compared as one word when the input has 8 bytes there. */
static inline bool
lit_ends_at(const struct lit *x, const uint8_t *p, size_t e)
{
	if (e + 1 < x->len)
		return false;
	if (e + 1 < 8)
		return fold_eq(p + e + 1 - x->len, x->kw, x->len);
	if (((fold8(p + e + 1 - 8) ^ x->tail) & x->tmask) != 0)
		return false;
	return x->len <= 8 || fold_eq(p + e + 1 - x->len, x->kw, x->len - 8);
}

/* Confirm the keywords of bucket b that can end at p[e]. */
static int
ends_at(const struct leak_ac *ac, const uint8_t *p, size_t e, unsigned b,
    int (*hit)(size_t, uint32_t, void *), void *arg)
{
	uint32_t w = fold3(p + e - 2) | b << 24;
	uint32_t slot = slot_of(ac, w), first;

	for (;; slot = (slot + 1) & ac->hmask) {
		first = ac->head[slot];
		if (first == 0)
			return 0;
		if (ac->lits[first - 1].w == w)
			break;
	}
	for (size_t i = first - 1; i < ac->nlits && ac->lits[i].w == w; i++) {
		const struct lit *x = &ac->lits[i];
		if (!lit_ends_at(x, p, e))
			continue;
		int rc = hit(e + 1, x->id, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Ends [e0, e0 + 8) whose filter bytes are in r (byte k: end e0 + k;
 * a byte with a clear bit is a candidate). */
static int
report(const struct leak_ac *ac, const uint8_t *p, size_t e0, uint64_t r,
    int (*hit)(size_t, uint32_t, void *), void *arg)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t x = ~r;
	/* The high bit of each non-zero byte of x. */
	uint64_t nz = (((x & lo7) + lo7) | x) & ~lo7;

	while (nz != 0) {
		unsigned k = (unsigned)__builtin_ctzll(nz) / 8;
		nz &= nz - 1;
		if (e0 + k < 2)
			continue;
		unsigned bs = (unsigned)(x >> (8 * k)) & 0xff;
		while (bs != 0) {
			unsigned b = (unsigned)__builtin_ctz(bs);
			bs &= bs - 1;
			int rc = ends_at(ac, p, e0 + k, b, hit, arg);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

/* Positions [p0, p0 + cnt), cnt <= 8, one at a time; *carry holds the
 * filter bytes of ends p0 .. p0 + 7 from earlier positions and gets
 * those of the next 8 ends. */
static inline uint64_t
block_scalar(const struct leak_ac *ac, const uint8_t *p, size_t p0,
    unsigned cnt, uint64_t *carry)
{
	uint64_t lo = *carry, hi = 0;

	for (unsigned k = 0; k < cnt; k++) {
		size_t i = p0 + k;
		uint64_t r = ac->reach[pair_hash(
		    (uint32_t)p[i - 1] | (uint32_t)p[i] << 8)];
		lo |= r << (8 * k);
		if (k > 0)
			hi |= r >> (64 - 8 * k);
	}
	*carry = hi;
	return lo;
}

#ifdef AC_X86
/* Blocks of 8 ends with a candidate, as the SIMD loops find them: they
 * are kept here and reported CAND_MAX at a time, not at once.  Whether a
 * block has a candidate cannot be predicted (on text, about one in eight
 * does), and a branch on it cost the loops a third of their time; they
 * append every block and count only those with one, without a branch. */
#define CAND_MAX 128

struct cands {
	uint64_t r[CAND_MAX];  /* filter bytes, as report takes them */
	uint64_t at[CAND_MAX]; /* end of byte 0 */
	size_t n;
};

static int
report_cands(const struct leak_ac *ac, const uint8_t *p, struct cands *c,
    int (*hit)(size_t, uint32_t, void *), void *arg)
{
	size_t n = c->n;

	c->n = 0;
	for (size_t j = 0; j < n; j++) {
		int rc = report(ac, p, c->at[j], c->r[j], hit, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The filter bytes of 8 positions whose pair hashes are h[0..8). */
#define ACC(k)                                                                 \
	acc = _mm_or_si128(acc,                                                \
	    _mm_slli_si128(_mm_loadl_epi64((const __m128i *)&reach[h[k]]), k))

__attribute__((target("avx2"))) static size_t
scan_avx2(const struct leak_ac *ac, const uint8_t *p, size_t n, size_t i,
    uint64_t *carry, int (*hit)(size_t, uint32_t, void *), void *arg, int *rcp)
{
	const __m256i fold = _mm256_set1_epi16(0x2020);
	const __m256i mul = _mm256_set1_epi16((short)HMUL16);
	const uint64_t *reach = ac->reach;
	uint16_t hs[32] __attribute__((aligned(32)));
	__m128i cr = _mm_cvtsi64_si128((long long)*carry);
	struct cands c;
	int rc;

	c.n = 0;

	for (; i + 32 <= n; i += 32) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(p + i - 1));
		__m256i y = _mm256_loadu_si256((const __m256i *)(p + i));
		/* 16-bit lanes p[j-1] | p[j] << 8: positions 0-7 and 16-23,
		 * then 8-15 and 24-31. */
		__m256i a = _mm256_unpacklo_epi8(x, y);
		__m256i b = _mm256_unpackhi_epi8(x, y);
		a = _mm256_srli_epi16(_mm256_mullo_epi16(_mm256_or_si256(a,
							     fold),
					  mul),
		    16 - DBITS);
		b = _mm256_srli_epi16(_mm256_mullo_epi16(_mm256_or_si256(b,
							     fold),
					  mul),
		    16 - DBITS);
		_mm256_store_si256((__m256i *)hs,
		    _mm256_permute2x128_si256(a, b, 0x20));
		_mm256_store_si256((__m256i *)(hs + 16),
		    _mm256_permute2x128_si256(a, b, 0x31));
		for (unsigned blk = 0; blk < 4; blk++) {
			const uint16_t *h = hs + 8 * blk;
			__m128i acc = cr;
			ACC(0);
			ACC(1);
			ACC(2);
			ACC(3);
			ACC(4);
			ACC(5);
			ACC(6);
			ACC(7);
			uint64_t lo = (uint64_t)_mm_cvtsi128_si64(acc);
			cr = _mm_srli_si128(acc, 8);
			c.r[c.n] = lo;
			c.at[c.n] = i + 8 * blk;
			c.n += lo != ~(uint64_t)0;
		}
		if (c.n > CAND_MAX - 4 &&
		    (rc = report_cands(ac, p, &c, hit, arg)) != 0) {
			*rcp = rc;
			return i;
		}
	}
	if ((rc = report_cands(ac, p, &c, hit, arg)) != 0)
		*rcp = rc;
	*carry = (uint64_t)_mm_cvtsi128_si64(cr);
	return i;
}
#undef ACC

/* scan_avx2's filter bytes with AVX-512, 64 positions at a time as 8
 * blocks of 8: for each offset k in a block, one load gives in 64-bit
 * lane b the pair of position 8b + k in its low 16 bits, which is hashed
 * in place, and one gather fetches the 8 reach entries; shifted by k
 * bytes they are OR-ed into lane b, and what passes the lane's end is
 * the carry into block b + 1.  The filter bytes, and so the hits and
 * their order, are those of the other paths. */
__attribute__((target("avx512f,avx512bw,popcnt"))) static size_t
scan_avx512(const struct leak_ac *ac, const uint8_t *p, size_t n, size_t i,
    uint64_t *carry, int (*hit)(size_t, uint32_t, void *), void *arg, int *rcp)
{
	const __m512i fold = _mm512_set1_epi64(0x2020);
	const __m512i mul = _mm512_set1_epi16((short)HMUL16);
	const __m512i hmask = _mm512_set1_epi64((1u << DBITS) - 1);
	const __m512i ones = _mm512_set1_epi64(-1);
	const long long *reach = (const long long *)ac->reach;
	/* The end of byte 0 of each lane's filter bytes, less i. */
	const __m512i lane_at = _mm512_set_epi64(56, 48, 40, 32, 24, 16, 8, 0);
	__m512i prev = _mm512_set_epi64((long long)*carry, 0, 0, 0, 0, 0, 0, 0);
	uint64_t lanes[8] __attribute__((aligned(64)));
	struct cands c;
	int rc;

	c.n = 0;

	/* The loads read p[i + k - 1 .. i + k + 63), k < 8. */
	for (; i + 70 <= n; i += 64) {
		__m512i lo = _mm512_setzero_si512(), hi = lo;
#define GATHER(k)                                                              \
	do {                                                                   \
		__m512i v = _mm512_loadu_si512(p + i + (k)-1);                 \
		v = _mm512_mullo_epi16(_mm512_or_si512(v, fold), mul);         \
		v = _mm512_and_si512(_mm512_srli_epi64(v, 16 - DBITS), hmask); \
		__m512i r = _mm512_i64gather_epi64(v, reach, 8);               \
		lo = _mm512_or_si512(lo, _mm512_slli_epi64(r, 8 * (k)));       \
		/* A shift by 64 (k = 0) gives 0. */                           \
		hi = _mm512_or_si512(hi, _mm512_srli_epi64(r, 64 - 8 * (k)));  \
	} while (0)
		GATHER(0);
		GATHER(1);
		GATHER(2);
		GATHER(3);
		GATHER(4);
		GATHER(5);
		GATHER(6);
		GATHER(7);
#undef GATHER
		/* Lane b gets the carry out of lane b - 1 (lane 0: of the
		 * last lane of the previous 64). */
		lo = _mm512_or_si512(lo, _mm512_alignr_epi64(hi, prev, 7));
		prev = hi;
		/* The lanes with a candidate, in order, to c. */
		__mmask8 cand = _mm512_cmpneq_epi64_mask(lo, ones);
		_mm512_storeu_si512(c.r + c.n,
		    _mm512_maskz_compress_epi64(cand, lo));
		_mm512_storeu_si512(c.at + c.n,
		    _mm512_maskz_compress_epi64(cand,
			_mm512_add_epi64(lane_at,
			    _mm512_set1_epi64((long long)i))));
		c.n += (size_t)__builtin_popcount(cand);
		if (c.n > CAND_MAX - 8 &&
		    (rc = report_cands(ac, p, &c, hit, arg)) != 0) {
			*rcp = rc;
			return i;
		}
	}
	if ((rc = report_cands(ac, p, &c, hit, arg)) != 0)
		*rcp = rc;
	_mm512_store_si512(lanes, prev);
	*carry = lanes[7];
	return i;
}
#endif

void
leak_ac_filter(const struct leak_ac *ac, const uint8_t *p, size_t n,
    uint8_t *out)
{
	uint64_t carry = 0;

	if (n > 0)
		out[0] = 0;
	for (size_t i = 1; i < n; i += 8) {
		unsigned cnt = n - i < 8 ? (unsigned)(n - i) : 8;
		uint64_t lo = block_scalar(ac, p, i, cnt, &carry);
		for (unsigned k = 0; k < cnt; k++)
			out[i + k] = (uint8_t) ~(lo >> (8 * k));
	}
}

int
leak_ac_scan(const struct leak_ac *ac, const uint8_t *p, size_t n,
    int (*hit)(size_t end, uint32_t id, void *arg), void *arg)
{
	uint64_t carry = 0;
	size_t i = 1; /* position 0 has no pair: it constrains nothing */
	int rc = 0;

	if (n < 3)
		return 0;
#ifdef AC_X86
	if (ac->avx512) {
		i = scan_avx512(ac, p, n, i, &carry, hit, arg, &rc);
		if (rc != 0)
			return rc;
	}
	if (ac->avx2) {
		i = scan_avx2(ac, p, n, i, &carry, hit, arg, &rc);
		if (rc != 0)
			return rc;
	}
#endif
	while (i < n) {
		unsigned cnt = n - i < 8 ? (unsigned)(n - i) : 8;
		uint64_t lo = block_scalar(ac, p, i, cnt, &carry);
		if (cnt < 8)
			lo |= ~(uint64_t)0 << (8 * cnt);
		if (lo != ~(uint64_t)0) {
			rc = report(ac, p, i, lo, hit, arg);
			if (rc != 0)
				return rc;
		}
		i += cnt;
	}
	return 0;
}
