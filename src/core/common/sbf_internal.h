/*
 * sbf_internal.h
 *	  Helpers shared by the core's .c files: little-endian loads and stores,
 *	  field offsets of the plain forms of formats 1, 2 and 4 (sbf_core.h;
 *	  docs/format.md and docs/format4.md), the Bloom position iterator and
 *	  the HyperLogLog area primitives.  Not installed; the
 *	  PostgreSQL glue uses sbf_core.h only.
 */
#ifndef SBF_INTERNAL_H
#define SBF_INTERNAL_H

#include <string.h>

#include "sbf_core.h"

/* ln 2, spelled out because M_LN2 is not ISO C */
#define SBF_LN2					0.693147180559945309417232121458176568

/* keeps rarely used code with large stack frames out of hot callers */
#if defined(__GNUC__) || defined(__clang__)
#define SBF_NOINLINE __attribute__((noinline))
#else
#define SBF_NOINLINE
#endif

/* header field offsets */
#define SBF_OFF_VERSION			0
#define SBF_OFF_FLAGS			1
#define SBF_OFF_HASH			2
#define SBF_OFF_HLL_P			3
#define SBF_OFF_GROWTH			4
#define SBF_OFF_NSEGMENTS		6
#define SBF_OFF_HLL_BYTES		8
#define SBF_OFF_ERROR_RATE		12
#define SBF_OFF_TIGHTENING		20
#define SBF_OFF_CAPACITY		28
/* exact form only */
#define SBF_OFF_NHASHES			8
#define SBF_OFF_FIRST_CAPACITY	36
#define SBF_OFF_FIRST_ERROR		44

/* directory entry field offsets */
#define SBF_SEG_CAPACITY		0
#define SBF_SEG_COUNT			8
#define SBF_SEG_NBITS			16
#define SBF_SEG_ERROR			24
#define SBF_SEG_K				32
#define SBF_SEG_RESERVED16		34
#define SBF_SEG_RESERVED		36
/* format 4 (docs/format4.md, section 2): the error moves, a kind descriptor follows */
#define SBF_SEG4_ERROR			16
#define SBF_SEG4_DESC			24

/* payload offset of directory entry i */
#define SBF_SEGDIR_OFFSET(i)	(SBF_HEADER_BYTES + (size_t) (i) * SBF_SEGDIR_BYTES)

/* bytes of the bit array of a segment with m bits: ceil(m / 64) words */
static inline uint64_t
sbf_words_bytes(uint64_t m)
{
	return (m / 64 + (m % 64 != 0)) * 8;
}

/*
 * Little-endian loads and stores.  On little-endian hosts they compile to a
 * plain unaligned move; elsewhere the portable byte form is used (the unit
 * tests also run with SBF_PORTABLE_LOADS defined to cover that form).
 */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !defined(SBF_PORTABLE_LOADS)
#define SBF_HOST_LE 1
#else
#define SBF_HOST_LE 0
#endif

/*
 * Loads the n (at most 8) little-endian bytes at p.  On a little-endian host
 * the copy into the low bytes of a zeroed word is the value.
 */
static inline uint64_t
sbf_load_le(const uint8_t *p, size_t n)
{
	uint64_t	v = 0;

#if SBF_HOST_LE
	memcpy(&v, p, n);
#else
	for (size_t i = n; i > 0; i--)
		v = (v << 8) | p[i - 1];
#endif
	return v;
}

/* Stores the low n (at most 8) bytes of v at p, little-endian. */
static inline void
sbf_store_le(uint8_t *p, uint64_t v, size_t n)
{
#if SBF_HOST_LE
	memcpy(p, &v, n);
#else
	for (size_t i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t) v;
#endif
}

/* Loads a little-endian uint16, uint32 or uint64. */
static inline uint16_t
sbf_load16(const uint8_t *p)
{
	return (uint16_t) sbf_load_le(p, 2);
}

static inline uint32_t
sbf_load32(const uint8_t *p)
{
	return (uint32_t) sbf_load_le(p, 4);
}

static inline uint64_t
sbf_load64(const uint8_t *p)
{
	return sbf_load_le(p, 8);
}

/* Stores a little-endian uint16, uint32 or uint64. */
static inline void
sbf_store16(uint8_t *p, uint16_t v)
{
	sbf_store_le(p, v, 2);
}

static inline void
sbf_store32(uint8_t *p, uint32_t v)
{
	sbf_store_le(p, v, 4);
}

static inline void
sbf_store64(uint8_t *p, uint64_t v)
{
	sbf_store_le(p, v, 8);
}

/* Loads a little-endian IEEE 754 binary64. */
static inline double
sbf_load_double(const uint8_t *p)
{
	uint64_t	bits = sbf_load64(p);
	double		d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* Stores a little-endian IEEE 754 binary64. */
static inline void
sbf_store_double(uint8_t *p, double d)
{
	uint64_t	bits;

	memcpy(&bits, &d, sizeof(bits));
	sbf_store64(p, bits);
}

/*
 * Binary search of n ascending little-endian uint64 values at a: the index
 * of the first value >= h (n if none).  Without a branch on the values (the
 * step is a conditional move), so a lookup of a random hash, a member or
 * not, costs the same log2(n) steps with no mispredicted jump.
 */
static inline uint32_t
sbf_search64(const uint8_t *a, uint32_t n, uint64_t h)
{
	uint32_t	base = 0;
	uint32_t	len = n;

	if (n == 0)
		return 0;
	while (len > 1)
	{
		uint32_t	half = len / 2;

		/* the answer lies in [base, base + len] */
		base = sbf_load64(a + (size_t) (base + half) * 8) < h ? base + half : base;
		len -= half;
	}
	return base + (sbf_load64(a + (size_t) base * 8) < h);
}

/* Number of trailing zero bits of a nonzero x. */
static inline int
sbf_ctz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_ctzll(x);
#else
	int			n;

	for (n = 0; (x & 1) == 0; n++)
		x >>= 1;
	return n;
#endif
}

/* Number of set bits of x. */
static inline int
sbf_popcount64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_popcountll(x);
#else
	int			n;

	for (n = 0; x != 0; n++)
		x &= x - 1;
	return n;
#endif
}

/* Position of the most significant set bit of a nonzero x. */
static inline int
sbf_log2_64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return 63 - __builtin_clzll(x);
#else
	int			r = 0;

	while (x >>= 1)
		r++;
	return r;
#endif
}

/*
 * Enhanced double hashing (Dillinger & Manolios 2004) as an iterator, so that
 * lookups can stop at the first clear bit.  sbf_positions() is the reference
 * use; every (x + y) mod m is a conditional subtraction since x, y < m.
 */
typedef struct SbfPosIter
{
	uint64_t	x;
	uint64_t	y;
	uint64_t	m;
	uint64_t	i;
} SbfPosIter;

/* Starts the position sequence of hash h (h2 = sbf_mix64(h) | 1) for m bits. */
static inline void
sbf_pos_start(SbfPosIter *it, uint64_t h, uint64_t h2, uint64_t m)
{
	it->x = h % m;
	it->y = h2 % m;
	it->m = m;
	it->i = 0;
}

/* Returns the next position of the sequence. */
static inline uint64_t
sbf_pos_next(SbfPosIter *it)
{
	uint64_t	pos = it->x;
	uint64_t	inc = ++it->i;

	it->x += it->y;
	if (it->x >= it->m)
		it->x -= it->m;
	if (inc >= it->m)
		inc %= it->m;
	it->y += inc;
	if (it->y >= it->m)
		it->y -= it->m;
	return pos;
}

/*
 * Remainders by a divisor fixed for many uses (a bloom segment's m, kept in
 * a plan), by a multiplication instead of a division: Granlund & Montgomery,
 * "Division by invariant integers using multiplication" (PLDI 1994), figure
 * 4.1, for every 64-bit n and every d >= 1.  With l = ceil(log2 d):
 * magic = floor(2^64 (2^l - d) / d) + 1, t = mulhi(magic, n),
 * q = (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0), and n mod d = n - q d.
 * Where the compiler has no 128-bit integers, the plain remainder.
 */
typedef struct SbfDivisor
{
	uint64_t	d;
	uint64_t	magic;
	uint8_t		sh1;
	uint8_t		sh2;
} SbfDivisor;

static inline void
sbf_divisor_init(SbfDivisor *v, uint64_t d)
{
	v->d = d;
	v->magic = 0;
	v->sh1 = v->sh2 = 0;
#ifdef __SIZEOF_INT128__
	if (d > 1)
	{
		int			l = sbf_log2_64(d - 1) + 1;
		uint64_t	t = l == 64 ? (uint64_t) 0 - d : ((uint64_t) 1 << l) - d;

		v->magic = (uint64_t) (((unsigned __int128) t << 64) / d) + 1;
		v->sh1 = 1;
		v->sh2 = (uint8_t) (l - 1);
	}
	else
		v->magic = 1;			/* d = 1: q = n */
#endif
}

static inline uint64_t
sbf_divisor_rem(const SbfDivisor *v, uint64_t n)
{
#ifdef __SIZEOF_INT128__
	uint64_t	t = (uint64_t) (((unsigned __int128) v->magic * n) >> 64);
	uint64_t	q = (t + ((n - t) >> v->sh1)) >> v->sh2;

	return n - q * v->d;
#else
	return n % v->d;
#endif
}

/*
 * Whether the k bits of a started position sequence are all set, stopping at
 * the first clear one (sbf_bloom_has and sbf_bloom_has_div).
 */
static inline bool
sbf_bloom_has_from(const uint8_t *words, SbfPosIter *it, uint32_t k)
{
	uint32_t	j;

	for (j = 0; j < k; j++)
	{
		uint64_t	q = sbf_pos_next(it);

		if (!((words[q >> 3] >> (q & 7)) & 1))
			return false;
	}
	return true;
}

/*
 * Whether all k bits of hash h are set in a formats 1-2 segment of m bits
 * (HASH: enhanced double hashing), stopping at the first clear one.
 */
static inline bool
sbf_bloom_has(const uint8_t *words, uint64_t m, uint32_t k, uint64_t h)
{
	SbfPosIter	it;

	sbf_pos_start(&it, h, sbf_mix64(h) | 1, m);
	return sbf_bloom_has_from(words, &it, k);
}

/*
 * The same for a segment whose m is dv's divisor (a plan's): the sequence's
 * two starting remainders by dv instead of by division.
 */
static inline bool
sbf_bloom_has_div(const uint8_t *words, const SbfDivisor *dv, uint32_t k,
				  uint64_t h)
{
	SbfPosIter	it;

	it.x = sbf_divisor_rem(dv, h);
	it.y = sbf_divisor_rem(dv, sbf_mix64(h) | 1);
	it.m = dv->d;
	it.i = 0;
	return sbf_bloom_has_from(words, &it, k);
}

/* Sets the k bits of h in such a segment; true when one of them was clear. */
static inline bool
sbf_bloom_set(uint8_t *words, uint64_t m, uint32_t k, uint64_t h)
{
	SbfPosIter	it;
	uint8_t		clear = 0;
	uint32_t	j;

	sbf_pos_start(&it, h, sbf_mix64(h) | 1, m);
	for (j = 0; j < k; j++)
	{
		uint64_t	q = sbf_pos_next(&it);
		uint8_t		bit = (uint8_t) (1u << (q & 7));

		clear |= (uint8_t) (bit & ~words[q >> 3]);
		words[q >> 3] |= bit;
	}
	return clear != 0;
}

/* Fraction of set bits of an m-bit array (ceil(m/64) words). */
extern double sbf_bits_fill(const uint8_t *words, uint64_t m);

/* x^k for a small integer k by squaring (the Java reader's Rates.ipow). */
static inline double
sbf_ipow(double x, uint32_t k)
{
	double		r = 1.0;

	while (k)
	{
		if (k & 1)
			r *= x;
		x *= x;
		k >>= 1;
	}
	return r;
}

/* Decodes directory entry i of a payload, without its words offset. */
static inline void
sbf_read_segment(const uint8_t *buf, uint32_t i, SbfSegment *seg)
{
	const uint8_t *e = buf + SBF_SEGDIR_OFFSET(i);

	seg->capacity = sbf_load64(e + SBF_SEG_CAPACITY);
	seg->count = sbf_load64(e + SBF_SEG_COUNT);
	seg->nbits = sbf_load64(e + SBF_SEG_NBITS);
	seg->error = sbf_load_double(e + SBF_SEG_ERROR);
	seg->k = sbf_load16(e + SBF_SEG_K);
	seg->kind = 1;				/* kind 1, bloom: every segment of formats 1-2 */
	seg->words_offset = 0;
}

/* Tests bit j of a segment's bit array (bit j%64 of LE word j/64). */
static inline bool
sbf_bit_test(const uint8_t *words, uint64_t j)
{
	return (words[j >> 3] >> (j & 7)) & 1;
}

/* Sets bit j of a segment's bit array. */
static inline void
sbf_bit_set(uint8_t *words, uint64_t j)
{
	words[j >> 3] |= (uint8_t) (1u << (j & 7));
}

/*
 * Bit arrays up to this many bytes are likely to stay in the CPU's caches
 * while a batch is added or looked up: there the batched loops' second pass
 * over the positions (sbf_add_hashes, sbf_count_contained) costs more than
 * the misses it hides, so they go hash by hash.  Measured with
 * test/bench/add_hashes_bench.c: the one-pass add is faster up to about
 * 400 kB here, the batched one beyond.
 */
#define SBF_CACHED_BITS		(256 * 1024)

/*
 * Units of work between two interrupt checks in a loop whose length an input
 * controls: bit probes of adds (sbf_add_hashes), hashes decoded, moved or
 * merged (sbf_hashset*.c).  2^18 probes that each miss the caches take
 * about 20 ms; 2^18 hashes decoded or merged about 3 ms (134 million
 * hashes are validated in 1.35 s on the 2-core test VM).
 */
#define SBF_WORK_STRIDE		((uint64_t) 1 << 18)

/*
 * Word-by-word comparisons of an item with a candidate segment that unions
 * in this process made (sbf_union.c, at most UNION_MAX_SCANS per item): a
 * statistic, so that a test can bound the plan's work from above.
 */
extern uint64_t sbf_union_word_scans;

/*
 * Model evaluations (one segment's integral and rates) that directory
 * counts in this process made (sbf_count.c): a statistic, so that a test
 * can show # does the model once per run of equal segments.
 */
extern uint64_t sbf_count_model_calls;

/* Calls sbf_interrupt_hook, if set (loops without an allocator). */
static inline void
sbf_hook_interrupt(void)
{
	if (sbf_interrupt_hook != NULL)
		sbf_interrupt_hook();
}

/* Calls the allocator's interrupt callback, if any (long loops call it now and then). */
static inline void
sbf_check_interrupt(const SbfAllocator *a)
{
	if (a->interrupt != NULL)
		a->interrupt(a->ctx);
}

/* Sets f to no filter yet: what a create or copy starts from, and leaves on failure. */
static inline void
sbf_filter_start(SbfFilter *f, size_t prefix, const SbfAllocator *a)
{
	f->base = NULL;
	f->prefix = prefix;
	f->len = 0;
	f->cap = 0;
	f->a = a;
}

/* ---- exact form (sbf_format.c, sbf_exact.c) ---- */

/* Index of the first hash >= h in an exact view; *found if it equals h. */
extern uint32_t sbf_exact_search(const SbfView *v, uint64_t h, bool *found);

/* Creates a segmented filter with one empty segment of n elements at pe. */
extern SbfStatus sbf_create_segments(SbfFilter *f, const SbfParams *p, uint64_t n,
									 double pe, uint8_t flags, size_t prefix,
									 const SbfAllocator *a);
/* Makes room for needed payload bytes (sbf_write.c). */
extern SbfStatus sbf_filter_reserve(SbfFilter *f, size_t needed);
/*
 * Relabels a segmented payload of version 1 or 2 as version 4 (sbf_relabel4;
 * the exact form stays version 2): what every write does to a 1.0-1.2 value.
 */
extern void sbf_upgrade_v4(SbfFilter *f);

/*
 * Write as release 1.2 did (version 2, bloom segments only, no relabelling):
 * for the tests and benchmarks that compare with 1.2's bytes and sizes
 * (test_bloom's golden digests, test/bench/growth_bench.c).  False in the
 * extension; a process-wide switch of the core.
 */
extern bool sbf_write_v2;
/* Budget spent before a CHAIN value's first segment (0 without CHAIN). */
extern double sbf_chain_spent(uint8_t flags, double error_rate, double tightening,
							  double largest_error);
/* The hashes of an exact view in a new array; NULL if the allocator fails. */
/* The parameters stored in a view's header. */
extern void sbf_view_params(const SbfView *v, SbfParams *p);
extern uint64_t *sbf_exact_hashes(const SbfView *v, const SbfAllocator *a);
/* Adds h to an exact filter, converting it first when it would grow too big. */
extern SbfStatus sbf_exact_add(SbfFilter *f, uint64_t h, bool *inserted);
/*
 * Whether an exact view plus the nextra extra hashes (none of them in it)
 * stays exact (sbf_exact.c): at most SBF_EXACT_MAX hashes and no larger than
 * the segmented value holding them.
 */
extern bool sbf_exact_fits(const SbfView *v, const uint64_t *extra, uint32_t nextra);
/*
 * The segmented value of an exact view's header holding the ascending hashes
 * h[0..n), built into g (sbf_filter.c): a conversion from the exact form.
 */
extern SbfStatus sbf_build_segments(SbfFilter *g, const SbfView *v, const uint64_t *h,
									size_t n, size_t prefix, const SbfAllocator *a);
/*
 * Adds the ascending run at the start of h[0..n) to an exact filter while it
 * stays exact (the same bytes as sbf_exact_add one by one); *used: how many
 * hashes it took.
 */
extern SbfStatus sbf_exact_add_run(SbfFilter *f, const uint64_t *h, size_t n,
								   size_t *used);
/*
 * The union of n >= 1 exact views (no other check): their merged hashes,
 * exact while that fits, else converted; header per sbf_union.c ("exact
 * inputs").  error_rate > 0 is the result's (else the inputs' common one).
 */
extern SbfStatus sbf_exact_union(SbfFilter *out, const SbfView *in, uint32_t n,
								 double error_rate, size_t prefix,
								 const SbfAllocator *a);

/* ---- HyperLogLog area (sbf_hll.c) ---- */

#define SBF_HLL_REGISTERS(p)	((uint32_t) 1 << (p))
#define SBF_HLL_MAX_RHO(p)		(65 - (p))

/* Checks only the length of an area against its representation. */
extern SbfStatus sbf_hll_check_size(size_t bytes, bool dense, int p);
/* Checks the whole area: ranges, order, canonical representation. */
extern SbfStatus sbf_hll_check(const uint8_t *area, size_t bytes, bool dense, int p);
/* Expands an area into one byte per register (regs has 2^p entries). */
extern void sbf_hll_unpack(const uint8_t *area, size_t bytes, bool dense, int p,
						   uint8_t *regs);
/* Raises the 2^p registers regs to every hash of h[0..n). */
extern void sbf_hll_regs_add(uint8_t *regs, int p, const uint64_t *h, size_t n);
/* Folds registers from precision p to np <= p exactly. */
extern void sbf_hll_fold(const uint8_t *regs, int p, int np, uint8_t *out);
/* Size of the canonical encoding of regs; *dense tells the representation. */
extern size_t sbf_hll_encoded_size(const uint8_t *regs, int p, bool *dense);
/* Writes the canonical encoding chosen by sbf_hll_encoded_size. */
extern void sbf_hll_encode(const uint8_t *regs, int p, bool dense, uint8_t *out);
/* Area size after adding hash h (never smaller than bytes). */
extern size_t sbf_hll_size_after_add(const uint8_t *area, size_t bytes, bool dense,
									 int p, uint64_t h);
/*
 * Adds hash h in place; the area must have room for sbf_hll_size_after_add
 * bytes.  Returns the new size and updates *dense.
 */
extern size_t sbf_hll_apply_add(uint8_t *area, size_t bytes, bool *dense, int p,
								uint64_t h);
/* Ertl's improved raw estimate of the area's cardinality. */
extern double sbf_hll_estimate(const uint8_t *area, size_t bytes, bool dense, int p);

#endif							/* SBF_INTERNAL_H */
