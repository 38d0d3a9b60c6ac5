/*
 * sbf_kind_bloom.c
 *	  The standard Bloom segment kinds: kind 1, the segment of formats 1 and 2
 *	  (positions by enhanced double hashing, docs/format.md HASH), and kind 4,
 *	  the segment of format 3 (WINDOWED POSITIONS).  Both store m bits as
 *	  ceil(m/64) little-endian 64-bit words, bits past m zero; they differ
 *	  only in where an element's k bits are.  The descriptor: size = m,
 *	  width = k, every other byte 0 (docs/format4.md, section 3).
 *
 *	  These rows give the directory walks of formats 1-3 (sbf_dir.h) the same
 *	  operations the format-4 kinds have; the bytes are those 1.2 writes.
 */
#include <math.h>

#include "sbf_internal.h"
#include "sbf_kind.h"

/* Geometry ranges: 1 <= m <= SBF_MAX_SEGMENT_BITS, 1 <= k <= SBF_MAX_K. */
SbfStatus
sbf_bloom_check_geom(const SbfKindGeom *g)
{
	if (g->size < 1 || g->size > SBF_MAX_SEGMENT_BITS ||
		g->width < 1 || g->width > SBF_MAX_K ||
		g->arity != 0 || g->log2_len != 0 || g->attempt != 0)
		return SBF_E_SEGMENT;
	return SBF_OK;
}

/* ceil(m / 64) words of 8 bytes. */
bool
sbf_bloom_bytes(const SbfKindGeom *g, uint64_t *bytes)
{
	*bytes = sbf_words_bytes(g->size);
	return *bytes <= SBF_MAX_STORED_BYTES;
}

/* No bit may be set at or past m in the last word. */
SbfStatus
sbf_bloom_check_data(const SbfKindGeom *g, const uint8_t *data)
{
	uint64_t	wbytes = sbf_words_bytes(g->size);

	if (g->size % 64 != 0 &&
		sbf_load64(data + wbytes - 8) >> (g->size % 64) != 0)
		return SBF_E_BITS;
	return SBF_OK;
}

/*
 * Formats 1-2 store the error the segment was built for when full: its
 * range, count <= capacity, and a geometry some writer produces for that
 * capacity and error.  Every writer sizes a bloom segment by SIZING
 * (sbf_segment_geometry: m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2)
 * clamped to 1..SBF_MAX_K) and a union keeps an input's entry, so a segment
 * has at least half the optimum's bits for its capacity, and the model's
 * rate at its capacity, (1 - e^(-k cap/m))^k, is within twice the larger of
 * its p and the rate of SIZING's geometry (k's rounding costs less than 5%;
 * the clamp at SBF_MAX_K puts tiny p far below that rate);
 * SBF_BLOOM_ENTRY_SLACK.  Anything else (m = 1
 * for a capacity of 100) would let # and the rates answer nonsense.
 */
#define SBF_BLOOM_ENTRY_SLACK	2.0
/* and at most this (SIZING's largest, at p just under 0.5, is 0.53) */
#define SBF_BLOOM_MAX_RATE		0.75

SbfStatus
sbf_bloom_check_entry(const SbfKindGeom *g, uint64_t capacity, uint64_t count,
				  double p)
{
	SbfKindGeom w = {0};
	uint64_t	m;
	uint32_t	k;
	double		honest;

	/* written this way so that NaN fails too */
	if (capacity < 1 || count > capacity || !(p > 0.0 && p < 0.5))
		return SBF_E_SEGMENT;
	if (!sbf_segment_geometry(capacity, p, SBF_MAX_SEGMENT_BITS, &m, &k) ||
		!((double) g->size * SBF_BLOOM_ENTRY_SLACK >= (double) m))
		return SBF_E_SEGMENT;
	w.size = m;
	w.width = (uint8_t) k;
	honest = sbf_bloom_rate_at(&w, capacity);
	honest = (honest > p ? honest : p) * SBF_BLOOM_ENTRY_SLACK;
	if (!(sbf_bloom_rate_at(g, capacity) <=
		  (honest < SBF_BLOOM_MAX_RATE ? honest : SBF_BLOOM_MAX_RATE)))
		return SBF_E_SEGMENT;
	return SBF_OK;
}

/* SIZING: m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2), of a bloom kind. */
static SbfStatus
plan_kind(uint8_t kind, uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes)
{
	uint64_t	m;
	uint32_t	k;

	if (n < 1 || !(share > 0.0 && share < 0.5))
		return SBF_E_PARAM;
	if (!sbf_segment_geometry(n, share, SBF_MAX_SEGMENT_BITS, &m, &k))
		return SBF_E_TOO_LARGE;
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->size = m;
	g->width = (uint8_t) k;
	*bytes = sbf_words_bytes(m);
	return SBF_OK;
}

SbfStatus
sbf_bloom_plan(uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes)
{
	return plan_kind(SBF_KIND_BLOOM, n, share, g, bytes);
}

SbfStatus
sbf_wbloom_plan(uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes)
{
	return plan_kind(SBF_KIND_WBLOOM, n, share, g, bytes);
}

bool
sbf_bloom_contains(const SbfKindGeom *g, const uint8_t *data, uint64_t h)
{
	return sbf_bloom_has(data, g->size, g->width, h);
}

/* hashes the batched bloom probe holds at once */
#define BLOOM_BATCH		16
#if defined(__GNUC__) || defined(__clang__)
#define BLOOM_PREFETCH(p)	__builtin_prefetch((p), 0, 1)
#else
#define BLOOM_PREFETCH(p)	((void) (p))
#endif

/*
 * Marks hit[b] for the hashes of h[0..n) not yet hit that a bloom segment
 * holds, BLOOM_BATCH at a time: the first two probe bytes of each are
 * prefetched before any is tested, so the cache misses overlap.
 */
void
sbf_bloom_mark(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h,
			   size_t n, bool *hit)
{
	uint64_t	m = g->size;
	uint32_t	k = g->width;
	size_t		base;

	for (base = 0; base < n; base += BLOOM_BATCH)
	{
		size_t		nb = n - base < BLOOM_BATCH ? n - base : BLOOM_BATCH;
		SbfPosIter	it[BLOOM_BATCH];
		uint64_t	first[BLOOM_BATCH][2] = {{0}};
		size_t		b;

		for (b = 0; b < nb; b++)
		{
			if (hit[base + b])
				continue;
			sbf_pos_start(&it[b], h[base + b], sbf_mix64(h[base + b]) | 1, m);
			first[b][0] = sbf_pos_next(&it[b]);
			BLOOM_PREFETCH(data + (first[b][0] >> 3));
			if (k > 1)
			{
				first[b][1] = sbf_pos_next(&it[b]);
				BLOOM_PREFETCH(data + (first[b][1] >> 3));
			}
		}
		for (b = 0; b < nb; b++)
		{
			uint32_t	j;

			if (hit[base + b] || !sbf_bit_test(data, first[b][0]) ||
				(k > 1 && !sbf_bit_test(data, first[b][1])))
				continue;
			for (j = 2; j < k; j++)
				if (!sbf_bit_test(data, sbf_pos_next(&it[b])))
					break;
			hit[base + b] = j >= k;
		}
	}
}

bool
sbf_wbloom_contains(const SbfKindGeom *g, const uint8_t *data, uint64_t h)
{
	uint32_t	j;

	for (j = 0; j < g->width; j++)
		if (!sbf_bit_test(data, sbf_win_position(h, j, g->size)))
			return false;
	return true;
}

/*
 * How many of h[0..n) are found, hash by hash (the plain reader's batched,
 * prefetching loop over every segment is sbf_count_contained's).
 */
static size_t
count_with(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h,
		   size_t n, bool (*contains) (const SbfKindGeom *, const uint8_t *, uint64_t))
{
	size_t		found = 0;
	size_t		i;

	for (i = 0; i < n; i++)
		found += contains(g, data, h[i]) ? 1 : 0;
	return found;
}

size_t
sbf_bloom_count(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h,
			size_t n)
{
	return count_with(g, data, h, n, sbf_bloom_contains);
}

size_t
sbf_wbloom_count(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h,
			 size_t n)
{
	return count_with(g, data, h, n, sbf_wbloom_contains);
}

bool
sbf_bloom_insert(const SbfKindGeom *g, uint8_t *data, uint64_t h)
{
	return sbf_bloom_set(data, g->size, g->width, h);
}

bool
sbf_wbloom_insert(const SbfKindGeom *g, uint8_t *data, uint64_t h)
{
	uint8_t		clear = 0;
	uint32_t	j;

	for (j = 0; j < g->width; j++)
	{
		uint64_t	q = sbf_win_position(h, j, g->size);
		uint8_t		bit = (uint8_t) (1u << (q & 7));

		clear |= (uint8_t) (bit & ~data[q >> 3]);
		data[q >> 3] |= bit;
	}
	return clear != 0;
}

SbfStatus
sbf_bloom_build(SbfKindGeom *g, uint8_t *data, const uint64_t *h, size_t n,
			const SbfAllocator *a)
{
	return sbf_kind_build_by_insert(g, data, sbf_words_bytes(g->size), h, n, a,
									sbf_bloom_insert);
}

SbfStatus
sbf_wbloom_build(SbfKindGeom *g, uint8_t *data, const uint64_t *h, size_t n,
			 const SbfAllocator *a)
{
	return sbf_kind_build_by_insert(g, data, sbf_words_bytes(g->size), h, n, a,
									sbf_wbloom_insert);
}

/* dst |= src, word by word (byte order does not matter to an OR). */
void
sbf_bloom_merge(const SbfKindGeom *g, uint8_t *dst, const uint8_t *src)
{
	uint64_t	n = sbf_words_bytes(g->size) / 8;
	uint64_t	w;

	for (w = 0; w < n; w++)
	{
		uint64_t	x;
		uint64_t	y;

		memcpy(&x, dst + w * 8, 8);
		memcpy(&y, src + w * 8, 8);
		x |= y;
		memcpy(dst + w * 8, &x, 8);
	}
}

/* The fill model of COUNTS: (1 - e^(-kn/m))^k (0 when empty). */
double
sbf_bloom_rate_at(const SbfKindGeom *g, uint64_t n)
{
	return pow(1.0 - exp(-(double) g->width * (double) n / (double) g->size),
			   (double) g->width);
}

/* (ones / m)^k: sbf_current_fpr's and WINDOWED POSITIONS' rate of a segment. */
double
sbf_bloom_rate_of(const SbfKindGeom *g, const uint8_t *data)
{
	return pow(sbf_bits_fill(data, g->size), (double) g->width);
}

/* COUNTS' model at x elements: (1 - e^(-kx/m))^k. */
static double
bloom_model_rate(const SbfKindGeom *g, double x)
{
	return pow(1.0 - exp(-(double) g->width * x / (double) g->size),
			   (double) g->width);
}

/*
 * Expected fill from the directory entry alone: after n distinct inserts of
 * k bits each into m bits, 1 - (1 - 1/m)^(k n).
 */
static double
bloom_expected_fill(const SbfSegment *seg)
{
	double		bits = (double) seg->nbits;

	return -expm1((double) seg->k * (double) seg->count * log1p(-1.0 / bits));
}

/* The rate expected after count inserts: fill^k. */
static double
bloom_expected_rate(const SbfKindGeom *g, uint64_t count)
{
	SbfSegment	seg;

	memset(&seg, 0, sizeof(seg));
	seg.nbits = g->size;
	seg.k = g->width;
	seg.count = count;
	return pow(bloom_expected_fill(&seg), (double) g->width);
}

/* m bits hold its ones (the words' padding bits are 0). */
static uint64_t
bloom_fill_bits(const SbfKindGeom *g, uint64_t bytes)
{
	(void) bytes;
	return g->size;
}

/* A sliced read fetches k chunks for a present element. */
static uint32_t
bloom_probe_span(const SbfKindGeom *g)
{
	return g->width;
}

/* sbf_info's keys after "bits": its hashes. */
static int
bloom_describe(const SbfKindGeom *g, SbfInfoKey *out)
{
	out[0] = (SbfInfoKey) {"hashes", g->width};
	return 1;
}

/*
 * A union's slice of g: whole words, unit words in; the last slice keeps
 * the bits of m past its start.
 */
static uint64_t
bloom_slice(const SbfKindGeom *g, uint64_t unit, uint64_t words,
			SbfKindGeom *sub, uint64_t *offset)
{
	uint64_t	total = sbf_words_bytes(g->size) / 8;
	uint64_t	take = total - unit < words ? total - unit : words;

	*sub = *g;
	*offset = unit * 8;
	sub->size = unit + take == total ? g->size - unit * 64 : take * 64;
	return take;
}

/*
 * The bloom kinds' rows: what they share, and their own positions (the
 * functions prefix_plan, _contains, _count, _insert and _build).
 */
#define BLOOM_ROW(code, prefix) \
	.kind = code, \
	.name = "bloom", \
	.plan = prefix##_plan, \
	.contains = prefix##_contains, \
	.count = prefix##_count, \
	.insert = prefix##_insert, \
	.build = prefix##_build, \
	.check_geom = sbf_bloom_check_geom, \
	.bytes = sbf_bloom_bytes, \
	.check_data = sbf_bloom_check_data, \
	.check_entry = sbf_bloom_check_entry, \
	.merge = sbf_bloom_merge, \
	.rate_at = sbf_bloom_rate_at, \
	.rate_of = sbf_bloom_rate_of, \
	.choose_max_n = UINT64_MAX, \
	.model_rate = bloom_model_rate, \
	.expected_fill = bloom_expected_fill, \
	.expected_rate = bloom_expected_rate, \
	.fill_bits = bloom_fill_bits, \
	.describe = bloom_describe, \
	.union_rule = SBF_UNION_FILL, \
	.slice = bloom_slice

/*
 * Kind 1: the segment of formats 1-2, kind 1 of format 4 plain.  Chosen for
 * a complete set beside fused when smaller, but never an array of fewer
 * than 512 bits while fused fits: the standard formula does not bound so
 * small an array (measured: m = 101, k = 10 answers 2.2 times its p;
 * m = 10, k = 7 five times).
 */
const SbfKindOps sbf_kind_bloom_ops = {
	BLOOM_ROW(SBF_KIND_BLOOM, sbf_bloom),
	.dirs = SBF_KIND_IN_PLAIN4 | SBF_KIND_IN_PLAIN5,
	.choose_rank = 1,
	.choose_beside_complete = true,
	.choose_min_size = 512,
	.probe_span = bloom_probe_span,
	.mark = sbf_bloom_mark,
	.bound_of = sbf_bloom_bound_of,
};

/* Kind 4: format 3's segment, kind 4 of format 4 windowed. */
const SbfKindOps sbf_kind_wbloom_ops = {
	BLOOM_ROW(SBF_KIND_WBLOOM, sbf_wbloom),
	.dirs = SBF_KIND_IN_WINDOW4,
	.choose_rank = 3,
	.win_lane = SBF_WIN_LANE_MIX,
};
