/*
 * test_core.c
 *	  Unit tests of the pure-C core of sbf, built with AddressSanitizer and
 *	  UndefinedBehaviorSanitizer.  Prints "ok - name" or "not ok - name" per
 *	  case and one final "N passed, N failed" line; exits non-zero on failure.
 *	  Everything is deterministic: keys come from fixed sequences.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbf_core.h"
#include "sbf_hashset.h"
#include "sbf_internal.h"

#include "unit_check.h"

#define CHECK_ST(expr, expected) \
	do { \
		SbfStatus	st_ = (expr); \
		if (st_ != (expected)) \
		{ \
			fprintf(stderr, "  %s:%d: %s returned %d (%s), expected %s\n", \
					__FILE__, __LINE__, #expr, (int) st_, \
					sbf_status_message(st_), #expected); \
			case_ok = false; \
		} \
	} while (0)

/* ---- a counting allocator ---- */

typedef struct CountingCtx
{
	size_t		calls;			/* alloc + realloc calls */
	size_t		largest;		/* largest size requested */
	long		live;			/* blocks not yet freed */
	size_t		fail_above;		/* requests above this many bytes fail */
} CountingCtx;

static void *
count_alloc(size_t size, void *ctx)
{
	CountingCtx *c = ctx;
	void	   *p;

	c->calls++;
	if (size > c->largest)
		c->largest = size;
	if (size > c->fail_above)
		return NULL;
	p = malloc(size);
	if (p)
		c->live++;
	return p;
}

static void *
count_realloc(void *ptr, size_t size, void *ctx)
{
	CountingCtx *c = ctx;
	void	   *p;

	c->calls++;
	if (size > c->largest)
		c->largest = size;
	if (size > c->fail_above)
		return NULL;
	p = realloc(ptr, size);
	if (p && ptr == NULL)
		c->live++;
	return p;
}

static void
count_free(void *ptr, void *ctx)
{
	CountingCtx *c = ctx;

	if (ptr)
		c->live--;
	free(ptr);
}

/* Interrupt checks the core made (any context). */
static uint64_t g_interrupts;

static void
count_interrupt(void *ctx)
{
	(void) ctx;
	g_interrupts++;
}

static CountingCtx g_ctx = {0, 0, 0, SIZE_MAX};
static const SbfAllocator g_alloc = {count_alloc, count_realloc, count_free, &g_ctx,
count_interrupt};

/*
 * The segmented form from the start, as 1.0 created it: sbf_create and
 * sbf_create_sized followed by sbf_convert.  Most cases below test the
 * segmented form; the exact form has its own cases.
 */
static SbfStatus
seg_create(SbfFilter *f, const SbfParams *p, size_t prefix, const SbfAllocator *a)
{
	SbfStatus	st = sbf_create(f, p, prefix, a);

	if (st == SBF_OK)
	{
		st = sbf_convert(f);
		if (st != SBF_OK)
			sbf_filter_free(f);
	}
	return st;
}

/* sbf_create_sized, converted to the segmented form at once. */
static SbfStatus
seg_create_sized(SbfFilter *f, const SbfParams *p, uint64_t n, size_t prefix,
				 const SbfAllocator *a)
{
	SbfStatus	st = sbf_create_sized(f, p, n, prefix, a);

	if (st == SBF_OK)
	{
		st = sbf_convert(f);
		if (st != SBF_OK)
			sbf_filter_free(f);
	}
	return st;
}

/* Resets the counting allocator's statistics (not its live count). */
static void
reset_counts(size_t fail_above)
{
	g_ctx.calls = 0;
	g_ctx.largest = 0;
	g_ctx.fail_above = fail_above;
}

/* ---- helpers ---- */

static SbfParams
params(uint64_t capacity, double e, uint16_t growth, double r, uint8_t p)
{
	SbfParams	sp;

	sp.capacity = capacity;
	sp.error_rate = e;
	sp.growth = growth;
	sp.tightening = r;
	sp.hll_p = p;
	return sp;
}

/* Hash of key i of a key space (space 0 = inserted, 1 = absent, ...). */
static uint64_t
key(int space, uint64_t i)
{
	return sbf_hash_int64((int64_t) (((uint64_t) space << 40) + i));
}

/* Adds keys [from, to) of a space, checking status. */
static void
add_keys(SbfFilter *f, int space, uint64_t from, uint64_t to)
{
	uint64_t	i;

	for (i = from; i < to; i++)
	{
		SbfStatus	st = sbf_add_hash(f, key(space, i), NULL);

		if (st != SBF_OK)
		{
			CHECK_ST(st, SBF_OK);
			return;
		}
	}
}

/* Validates a filter's payload, returning the view. */
static SbfStatus
validate_filter(const SbfFilter *f, SbfView *v)
{
	return sbf_validate(SBF_PAYLOAD(f), f->len, v);
}

/* Status of validating a modified copy of buf. */
static SbfStatus
validate_copy(const uint8_t *buf, size_t len)
{
	uint8_t    *copy = malloc(len ? len : 1);
	SbfView		v;
	SbfStatus	st;

	memcpy(copy, buf, len);
	st = sbf_validate(copy, len, &v);
	free(copy);
	return st;
}

/* ---- cases ---- */

/* The element hash is frozen forever: these values must never change. */
static void
hash_vectors(void)
{
	uint64_t	pos[8];
	static const uint64_t expect_pos[8] =
	{13959, 5758, 11936, 3738, 9921, 1730, 7922, 14120};
	int			i;

	CHECK(sbf_hash("", 0) == UINT64_C(0x2d06800538d394c2));
	CHECK(sbf_hash("a", 1) == UINT64_C(0xe6c632b61e964e1f));
	CHECK(sbf_hash("sku:123", 7) == UINT64_C(0x8acb0e6504ca2d6d));
	CHECK(sbf_hash_int64(1) == UINT64_C(0x2fbc593564db792e));
	CHECK(sbf_hash_int64(-1) == UINT64_C(0x5111c7e47d784413));
	{
		uint8_t		le1[8] = {1, 0, 0, 0, 0, 0, 0, 0};

		CHECK(sbf_hash_int64(1) == sbf_hash(le1, 8));
	}
	CHECK(sbf_mix64(1) == UINT64_C(0x5692161d100b05e5));
	sbf_positions(sbf_hash("sku:123", 7), 14378, 8, pos);
	for (i = 0; i < 8; i++)
		CHECK(pos[i] == expect_pos[i]);
}

/* Positions are in range, deterministic and match a plain reference. */
static void
positions(void)
{
	static const uint64_t ms[] = {1, 2, 3, 7, 63, 64, 65, 1000, 14378,
		UINT64_C(1) << 32, SBF_MAX_SEGMENT_BITS};
	size_t		mi;
	int			t;

	for (mi = 0; mi < sizeof(ms) / sizeof(ms[0]); mi++)
	{
		for (t = 0; t < 200; t++)
		{
			uint64_t	h = key(7, (uint64_t) t);
			uint64_t	m = ms[mi];
			uint64_t	a[SBF_MAX_K];
			uint64_t	b[SBF_MAX_K];
			uint64_t	x = h % m;
			uint64_t	y = (sbf_mix64(h) | 1) % m;
			int			i;

			sbf_positions(h, m, SBF_MAX_K, a);
			sbf_positions(h, m, SBF_MAX_K, b);
			for (i = 0; i < SBF_MAX_K; i++)
			{
				CHECK(a[i] < m);
				CHECK(a[i] == b[i]);
				CHECK(a[i] == x);
				/* m < 2^34 here, so the plain sums cannot overflow */
				x = (x + y) % m;
				y = (y + (uint64_t) i + 1) % m;
			}
		}
	}
}

/* Sizing follows m = ceil(-n ln P / ln^2 2), k = round(m/n ln 2). */
static void
sizing(void)
{
	uint64_t	m;
	uint32_t	k;

	CHECK(sbf_segment_geometry(1000, 0.001, SBF_MAX_SEGMENT_BITS, &m, &k));
	CHECK(m == 14378 && k == 10);
	CHECK(sbf_segment_geometry(1000, 0.01, SBF_MAX_SEGMENT_BITS, &m, &k));
	CHECK(m == 9586 && k == 7);
	CHECK(sbf_segment_geometry(1, 0.4, SBF_MAX_SEGMENT_BITS, &m, &k));
	CHECK(m == 2 && k == 1);
	CHECK(sbf_segment_geometry(10, 1e-300, SBF_MAX_SEGMENT_BITS, &m, &k));
	CHECK(k == SBF_MAX_K);
	CHECK(!sbf_segment_geometry(UINT64_MAX, 0.01, SBF_MAX_SEGMENT_BITS, &m, &k));
	CHECK(!sbf_segment_geometry(UINT64_C(1) << 40, 0.01, SBF_MAX_SEGMENT_BITS, &m, &k));
	CHECK(!sbf_segment_geometry(1000, 0.0, SBF_MAX_SEGMENT_BITS, &m, &k));
	CHECK(!sbf_segment_geometry(1000, NAN, SBF_MAX_SEGMENT_BITS, &m, &k));
	CHECK(!sbf_segment_geometry(0, 0.01, SBF_MAX_SEGMENT_BITS, &m, &k));
	CHECK(!sbf_segment_geometry(1000, 0.01, 9585, &m, &k));
	CHECK(sbf_segment_geometry(1000, 0.01, 9586, &m, &k));

	/* the error budget: (1 - r) of what is left, e when r = 1 */
	CHECK(sbf_next_error(0.01, 1.0, 0.07, 0.01) == 0.01);
	CHECK(fabs(sbf_next_error(0.01, 0.9, 0.0, 0.5) - 0.001) < 1e-15);
	CHECK(fabs(sbf_next_error(0.01, 0.9, 0.001, 0.001) - 0.0009) < 1e-15);
	CHECK(fabs(sbf_next_error(0.01, 0.5, 0.0075, 0.0025) - 0.00125) < 1e-15);
	/* overspent by a union: r times the smallest */
	CHECK(fabs(sbf_next_error(0.01, 0.5, 0.02, 0.001) - 0.0005) < 1e-15);
	CHECK(fabs(sbf_sized_error(0.01, 0.9) - pow(0.01, 1.04)) < 1e-15);
	CHECK(sbf_sized_error(0.01, 1.0) == 0.01);

	{
		uint64_t	nb[2] = {64, 65};

		CHECK(sbf_payload_size(2, nb, 12) == 36 + 80 + 8 + 16 + 12);
		nb[1] = UINT64_MAX;
		CHECK(sbf_payload_size(2, nb, 0) > SBF_MAX_BYTES);
	}
}

/* Parameter ranges. */
static void
params_check(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);

	CHECK_ST(sbf_params_check(&p), SBF_OK);
	p.capacity = 0;
	CHECK_ST(sbf_params_check(&p), SBF_E_PARAM);
	p = params(1000, 0.5, 2, 0.9, 9);
	CHECK_ST(sbf_params_check(&p), SBF_E_PARAM);
	p = params(1000, NAN, 2, 0.9, 9);
	CHECK_ST(sbf_params_check(&p), SBF_E_PARAM);
	p = params(1000, 0.01, 0, 0.9, 9);
	CHECK_ST(sbf_params_check(&p), SBF_E_PARAM);
	p = params(1000, 0.01, 17, 0.9, 9);
	CHECK_ST(sbf_params_check(&p), SBF_E_PARAM);
	p = params(1000, 0.01, 2, 0.0, 9);
	CHECK_ST(sbf_params_check(&p), SBF_E_PARAM);
	p = params(1000, 0.01, 2, INFINITY, 9);
	CHECK_ST(sbf_params_check(&p), SBF_E_PARAM);
	p = params(1000, 0.01, 2, 1.0, 3);
	CHECK_ST(sbf_params_check(&p), SBF_E_PARAM);
	p = params(1000, 0.01, 2, 1.0, 15);
	CHECK_ST(sbf_params_check(&p), SBF_E_PARAM);
	p = params(1000, 0.01, 16, 1.0, 14);
	CHECK_ST(sbf_params_check(&p), SBF_OK);
}

/* The byte layout of a small filter is frozen. */
static void
golden_payload(void)
{
	SbfParams	p = params(10, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;

	CHECK_ST(seg_create(&f, &p, 4, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, sbf_hash("a", 1), NULL), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, sbf_hash_int64(42), NULL), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(f.len == 36 + 40 + 8 * 3 + 8);
	/* format 2's segmented layout is format 1's but for the version byte */
	CHECK(SBF_PAYLOAD(&f)[0] == 2);
	SBF_PAYLOAD(&f)[0] = 1;
	CHECK(sbf_hash(SBF_PAYLOAD(&f), f.len) == UINT64_C(0xd5ec27e209cbc51d));
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	sbf_filter_free(&f);
}

/* No false negatives over 200k distinct adds. */
static void
no_false_negatives(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	uint64_t	i;
	uint64_t	missing = 0;

	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 200000);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	for (i = 0; i < 200000; i++)
		missing += !sbf_contains_hash(&v, key(0, i));
	CHECK(missing == 0);
	CHECK(v.nsegments > 1);
	sbf_filter_free(&f);
}

/*
 * Probe bits from sbf_segment_probes answer exactly as sbf_contains_hash, for
 * present and absent keys over several segments.
 */
static void
segment_probes(void)
{
	SbfParams	p = params(100, 0.05, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	uint64_t	i;
	uint64_t	disagree = 0;
	uint64_t	present = 0;

	CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 3000);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.nsegments > 3);
	for (i = 0; i < 6000; i++)
	{
		uint64_t	h = key(i < 3000 ? 0 : 1, i % 3000);
		bool		any = false;
		uint32_t	s;

		for (s = 0; s < v.nsegments && !any; s++)
		{
			SbfSegment	seg;
			SbfProbeBit bits[SBF_MAX_K];
			uint32_t	j;

			sbf_get_segment(&v, s, &seg);
			sbf_segment_probes(&seg, h, bits);
			any = true;
			for (j = 0; j < seg.k; j++)
			{
				CHECK(bits[j].byte >= seg.words_offset && bits[j].byte < v.hll_offset);
				if (!(v.buf[bits[j].byte] & bits[j].mask))
					any = false;
			}
		}
		disagree += any != sbf_contains_hash(&v, h);
		present += any;
	}
	CHECK(disagree == 0);
	CHECK(present >= 3000 && present < 3300);
	sbf_filter_free(&f);
}

/*
 * sbf_count_contained counts what sbf_contains_hash answers, for batches of
 * every length around its group size, mixed present and absent keys, one
 * and several segments, small and large k.
 */
static void
count_contained(void)
{
	static const double rates[] = {0.01, 0.4, 1e-12};
	static const size_t lens[] = {0, 1, 2, 15, 16, 17, 33, 1000};
	size_t		r;

	for (r = 0; r < 3; r++)
	{
		SbfParams	p = params(200, rates[r], 2, 0.9, 9);
		SbfFilter	f;
		SbfView		v;
		uint64_t	h[1000];
		size_t		c;

		CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
		add_keys(&f, 0, 0, r == 1 ? 100 : 2000);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		for (c = 0; c < 1000; c++)
			h[c] = key(c % 3 == 0 ? 1 : 0, c * 7 % 2000);
		for (c = 0; c < sizeof(lens) / sizeof(lens[0]); c++)
		{
			size_t		expect = 0;
			size_t		i;

			for (i = 0; i < lens[c]; i++)
				expect += sbf_contains_hash(&v, h[i]);
			CHECK(sbf_count_contained(&v, h, lens[c]) == expect);
		}
		sbf_filter_free(&f);
	}
}

/* Measured FPR over 200k absent keys stays within the bound. */
static void
measured_fpr(void)
{
	static const uint16_t growths[] = {1, 2, 4};
	size_t		gi;

	for (gi = 0; gi < 3; gi++)
	{
		SbfParams	p = params(1000, 0.01, growths[gi], 0.9, 9);
		SbfFilter	f;
		SbfView		v;
		uint64_t	i;
		uint64_t	fp = 0;
		double		fpr;
		double		bound;
		double		est;

		CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
		add_keys(&f, 0, 0, 200000);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		for (i = 0; i < 200000; i++)
			fp += sbf_contains_hash(&v, key(1, i));
		fpr = fp / 200000.0;
		bound = sbf_fpr_bound(&v);
		est = sbf_current_fpr(&v);
		printf("# growth %u: %u segments, %zu bytes, measured fpr %.5f, "
			   "estimated %.5f, bound %.5f\n", growths[gi], v.nsegments,
			   v.len, fpr, est, bound);
		CHECK(bound <= 0.01 + 1e-12);
		/* three standard deviations of a 200k-sample measurement */
		CHECK(fpr <= bound + 3 * sqrt(bound / 200000));
		/* the fill-based estimate agrees with the measurement */
		CHECK(fabs(fpr - est) < 0.25 * est + 0.0005);
		sbf_filter_free(&f);
	}
}

/* Growth 1 and tightening 1 reproduce equal segments all at e (seed 000). */
static void
seed000_mode(void)
{
	SbfParams	p = params(1000, 0.01, 1, 1.0, 9);
	SbfFilter	f;
	SbfView		v;
	SbfSegment	s0;
	uint32_t	i;

	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 4500);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.nsegments == 5);
	sbf_get_segment(&v, 0, &s0);
	CHECK(s0.nbits == 9586 && s0.k == 7 && s0.capacity == 1000);
	for (i = 0; i < v.nsegments; i++)
	{
		SbfSegment	s;

		sbf_get_segment(&v, i, &s);
		CHECK(s.capacity == 1000 && s.nbits == s0.nbits && s.k == s0.k);
		CHECK(s.count <= s.capacity);
		CHECK(s.error == 0.01);
		CHECK(s.words_offset == v.bits_offset + i * sbf_words_bytes(s0.nbits));
	}
	CHECK(fabs(sbf_fpr_bound(&v) - 0.05) < 1e-12);
	sbf_filter_free(&f);
}

/* create_sized: one segment right-sized for n. */
static void
create_sized(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	SbfSegment	s;
	uint64_t	m;
	uint32_t	k;

	CHECK_ST(seg_create_sized(&f, &p, 12345, 0, &g_alloc), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.nsegments == 1 && v.capacity == 1000);
	sbf_get_segment(&v, 0, &s);
	CHECK(sbf_segment_geometry(12345, pow(0.01, 1.04), SBF_MAX_SEGMENT_BITS, &m, &k));
	CHECK(s.capacity == 12345 && s.nbits == m && s.k == k);
	CHECK(s.error == sbf_sized_error(0.01, 0.9));
	/* within 1.05x of the Bloom optimum at e itself */
	CHECK(m <= 1.05 * (12345 * -log(0.01) / (SBF_LN2 * SBF_LN2)));
	add_keys(&f, 0, 0, 12345);
	sbf_filter_view(&f, &v);
	CHECK(v.nsegments == 1);
	add_keys(&f, 0, 12345, 12400);
	sbf_filter_view(&f, &v);
	CHECK(v.nsegments == 2);
	sbf_get_segment(&v, 1, &s);
	/* growth restarts from c: min(12345 * 2, 1000 * 2^1) */
	CHECK(s.capacity == 2000);
	CHECK(fabs(s.error - (0.01 - pow(0.01, 1.04)) * 0.1) < 1e-15);
	CHECK(sbf_fpr_bound(&v) < 0.01);
	sbf_filter_free(&f);
	CHECK_ST(seg_create_sized(&f, &p, 0, 0, &g_alloc), SBF_E_PARAM);
	CHECK(f.base == NULL);
}

/* Adding an element already present changes only the HyperLogLog. */
static void
add_duplicate(void)
{
	SbfParams	p = params(100, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	SbfSegment	s;
	bool		inserted;

	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, key(0, 1), &inserted), SBF_OK);
	CHECK(inserted);
	CHECK_ST(sbf_add_hash(&f, key(0, 1), &inserted), SBF_OK);
	CHECK(!inserted);
	sbf_filter_view(&f, &v);
	sbf_get_segment(&v, 0, &s);
	CHECK(s.count == 1);
	CHECK_ST(sbf_hll_add_hash(&f, key(0, 2)), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(!sbf_contains_hash(&v, key(0, 2)));
	CHECK(v.hll_bytes == 8);
	sbf_filter_free(&f);
}

/* Builds the small two-segment sparse-HLL filter the rejection tests mutate. */
static void
small_filter(SbfFilter *f, uint8_t hll_p, int nkeys)
{
	SbfParams	p = params(4, 0.1, 2, 0.5, hll_p);

	CHECK_ST(seg_create(f, &p, 0, &g_alloc), SBF_OK);
	add_keys(f, 0, 0, (uint64_t) nkeys);
}

/* Validation rejects every malformed case. */
static void
validate_rejects(void)
{
	SbfFilter	f;
	SbfView		v;
	uint8_t    *b;
	uint8_t    *buf;
	size_t		len;
	size_t		i;
	size_t		seg1;
	SbfSegment	s0;
	SbfSegment	s1;

	small_filter(&f, 14, 6);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.nsegments == 2 && !(v.flags & SBF_FLAG_HLL_DENSE));
	CHECK(v.hll_bytes == 24);
	sbf_get_segment(&v, 0, &s0);
	sbf_get_segment(&v, 1, &s1);
	CHECK(s0.nbits == 25 && s0.k == 4 && s1.capacity == 8 && s1.error < s0.error);
	len = f.len;
	buf = SBF_PAYLOAD(&f);
	b = malloc(len + 1);
	seg1 = SBF_SEGDIR_OFFSET(1);

	/* truncated at every length, and a trailing byte */
	for (i = 0; i < len; i++)
		CHECK(validate_copy(buf, i) != SBF_OK);
	memcpy(b, buf, len);
	b[len] = 0;
	CHECK_ST(validate_copy(b, len + 1), SBF_E_LENGTH);

#define MUTATE(stmt, expected) \
	do { \
		memcpy(b, buf, len); \
		stmt; \
		CHECK_ST(validate_copy(b, len), expected); \
	} while (0)
#define MUTATE_BAD(stmt) \
	do { \
		memcpy(b, buf, len); \
		stmt; \
		CHECK(validate_copy(b, len) != SBF_OK); \
	} while (0)

	MUTATE((void) 0, SBF_OK);
	/* version 3 is the windowed form: this header is not one */
	MUTATE_BAD(b[0] = 3);
	MUTATE(b[0] = 4, SBF_E_VERSION);
	MUTATE(b[0] = 0, SBF_E_VERSION);
	MUTATE(b[1] = 0x10, SBF_E_FLAGS);
	/* version 1 knows no OVERLAP or CHAIN flag */
	MUTATE((b[0] = 1, b[1] |= SBF_FLAG_OVERLAP), SBF_E_FLAGS);
	MUTATE((b[0] = 1, b[1] |= SBF_FLAG_CHAIN), SBF_E_FLAGS);
	MUTATE(b[0] = 1, SBF_OK);
	MUTATE(b[1] |= SBF_FLAG_OVERLAP | SBF_FLAG_CHAIN, SBF_OK);
	MUTATE(b[1] = 0x80, SBF_E_FLAGS);
	MUTATE(b[2] = 2, SBF_E_HASH);
	MUTATE(b[2] = 0, SBF_E_HASH);
	MUTATE(b[3] = 3, SBF_E_PARAM);
	MUTATE(b[3] = 15, SBF_E_PARAM);
	MUTATE(sbf_store16(b + 4, 0), SBF_E_PARAM);
	MUTATE(sbf_store16(b + 4, 17), SBF_E_PARAM);
	MUTATE(sbf_store16(b + 6, 0), SBF_E_SEGMENT);
	MUTATE(sbf_store16(b + 6, SBF_MAX_SEGMENTS + 1), SBF_E_SEGMENT);
	MUTATE_BAD(sbf_store16(b + 6, 3));
	MUTATE(sbf_store16(b + 6, 1), SBF_E_LENGTH);
	MUTATE(sbf_store16(b + 6, 4000), SBF_E_TRUNCATED);
	MUTATE(sbf_store32(b + 8, 20), SBF_E_LENGTH);
	MUTATE(sbf_store32(b + 8, 23), SBF_E_HLL);
	MUTATE(sbf_store32(b + 8, UINT32_MAX), SBF_E_HLL);
	MUTATE(sbf_store_double(b + 12, NAN), SBF_E_PARAM);
	MUTATE(sbf_store_double(b + 12, INFINITY), SBF_E_PARAM);
	MUTATE(sbf_store_double(b + 12, -INFINITY), SBF_E_PARAM);
	MUTATE(sbf_store_double(b + 12, 0.0), SBF_E_PARAM);
	MUTATE(sbf_store_double(b + 12, 0.5), SBF_E_PARAM);
	MUTATE(sbf_store_double(b + 12, -0.01), SBF_E_PARAM);
	MUTATE(sbf_store_double(b + 20, NAN), SBF_E_PARAM);
	MUTATE(sbf_store_double(b + 20, 0.0), SBF_E_PARAM);
	MUTATE(sbf_store_double(b + 20, 1.0000001), SBF_E_PARAM);
	MUTATE(sbf_store_double(b + 20, INFINITY), SBF_E_PARAM);
	MUTATE(sbf_store64(b + 28, 0), SBF_E_PARAM);
	/* directory */
	MUTATE(sbf_store64(b + seg1 + SBF_SEG_CAPACITY, 0), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + seg1 + SBF_SEG_COUNT, 9), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + seg1 + SBF_SEG_COUNT, UINT64_MAX), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + seg1 + SBF_SEG_NBITS, 0), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + seg1 + SBF_SEG_NBITS, SBF_MAX_SEGMENT_BITS + 1), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + seg1 + SBF_SEG_NBITS, UINT64_MAX), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + seg1 + SBF_SEG_NBITS, SBF_MAX_SEGMENT_BITS), SBF_E_TRUNCATED);
	MUTATE(sbf_store64(b + seg1 + SBF_SEG_NBITS, s1.nbits + 64), SBF_E_TRUNCATED);
	MUTATE(sbf_store64(b + SBF_SEGDIR_OFFSET(0) + SBF_SEG_NBITS, 64), SBF_OK);
	MUTATE(sbf_store16(b + seg1 + SBF_SEG_K, 0), SBF_E_SEGMENT);
	MUTATE(sbf_store16(b + seg1 + SBF_SEG_K, 65), SBF_E_SEGMENT);
	MUTATE(sbf_store16(b + seg1 + SBF_SEG_K, 64), SBF_OK);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, 0.0), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, -0.001), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, 0.5), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, NAN), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, INFINITY), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, 1e-300), SBF_OK);
	MUTATE(b[seg1 + SBF_SEG_RESERVED16 + 1] = 1, SBF_E_FLAGS);
	MUTATE(b[seg1 + SBF_SEG_RESERVED] = 1, SBF_E_FLAGS);
	MUTATE(b[seg1 + SBF_SEG_RESERVED + 3] = 0x80, SBF_E_FLAGS);
	/* bits past m = 25 in segment 0's only word */
	MUTATE(b[v.bits_offset + 3] |= 0x02, SBF_E_BITS);
	MUTATE(b[v.bits_offset + 7] |= 0x80, SBF_E_BITS);
	MUTATE(b[v.bits_offset + 3] |= 0x01, SBF_OK);
	/* sparse HyperLogLog: 6 entries at hll_offset */
	{
		size_t		h = v.hll_offset;
		uint32_t	e0 = sbf_load32(buf + h);
		uint32_t	e1 = sbf_load32(buf + h + 4);
		uint32_t	e4 = sbf_load32(buf + h + 16);

		MUTATE((sbf_store32(b + h, e1), sbf_store32(b + h + 4, e0)), SBF_E_HLL);
		MUTATE(sbf_store32(b + h + 4, e0), SBF_E_HLL);
		MUTATE(sbf_store32(b + h, e0 & ~0xFFu), SBF_E_HLL);
		MUTATE(sbf_store32(b + h, (e0 & ~0xFFu) | 52), SBF_E_HLL);
		MUTATE(sbf_store32(b + h, (e0 & ~0xFFu) | 51), SBF_OK);
		MUTATE(sbf_store32(b + h + 20, (UINT32_C(1) << 22) | 1), SBF_E_HLL);
		MUTATE(sbf_store32(b + h + 20, (UINT32_C(0x3FFF) << 8) | 1),
			   e4 >> 8 < 0x3FFF ? SBF_OK : SBF_E_HLL);
		/* claiming dense with a sparse-sized area */
		MUTATE(b[1] = SBF_FLAG_HLL_DENSE, SBF_E_HLL);
	}
	free(b);
	sbf_filter_free(&f);

	/* a dense HyperLogLog at p = 4 */
	small_filter(&f, 4, 40);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.flags & SBF_FLAG_HLL_DENSE);
	CHECK(v.hll_bytes == 12);
	len = f.len;
	buf = SBF_PAYLOAD(&f);
	b = malloc(len + 1);
	{
		size_t		h = v.hll_offset;

		/* wrong dense length, consistently declared */
		memcpy(b, buf, len);
		sbf_store32(b + 8, 11);
		CHECK_ST(validate_copy(b, len - 1), SBF_E_HLL);
		memcpy(b, buf, len);
		sbf_store32(b + 8, 13);
		b[len] = 0;
		CHECK_ST(validate_copy(b, len + 1), SBF_E_HLL);
		/* register 0 = 62 > 65 - 4 */
		MUTATE(b[h] = (uint8_t) ((b[h] & 0xC0) | 62), SBF_E_HLL);
		MUTATE(b[h] = (uint8_t) ((b[h] & 0xC0) | 61), SBF_OK);
		/* last register (bits 90..95) */
		MUTATE(b[h + 11] = (uint8_t) ((b[h + 11] & 0x03) | (63 << 2)), SBF_E_HLL);
		/* too few nonzero registers for dense: not canonical */
		MUTATE(memset(b + h, 0, 12), SBF_E_HLL);
		MUTATE((memset(b + h, 0, 12), b[h] = 1, b[h + 1] = 0x10), SBF_E_HLL);
		MUTATE((memset(b + h, 0, 12), b[h] = 1, b[h + 1] = 0x10, b[h + 2] = 0x04), SBF_E_HLL);
		MUTATE((memset(b + h, 0, 12), b[h] = 1, b[h + 1] = 0x10, b[h + 2] = 0x04,
				b[h + 3] = 1), SBF_OK);
		/* dense cleared: a dense area read as sparse */
		MUTATE(b[1] = 0, SBF_E_HLL);
	}
#undef MUTATE
#undef MUTATE_BAD
	free(b);
	sbf_filter_free(&f);
}

/* parse_prefix checks the header and directory only. */
static void
parse_prefix(void)
{
	SbfFilter	f;
	SbfView		v;
	SbfView		pv;
	uint8_t    *buf;
	size_t		need;

	small_filter(&f, 9, 30);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	buf = SBF_PAYLOAD(&f);
	CHECK_ST(sbf_parse_prefix(buf, 10, f.len, &pv), SBF_E_TRUNCATED);
	CHECK_ST(sbf_parse_prefix(buf, SBF_HEADER_BYTES, f.len, &pv), SBF_E_TRUNCATED);
	CHECK(pv.nsegments == v.nsegments);
	need = sbf_prefix_size(pv.nsegments);
	CHECK_ST(sbf_parse_prefix(buf, need - 1, f.len, &pv), SBF_E_TRUNCATED);
	CHECK_ST(sbf_parse_prefix(buf, need, f.len, &pv), SBF_OK);
	CHECK(pv.bits_offset == v.bits_offset && pv.hll_offset == v.hll_offset &&
		  pv.len == v.len && pv.hll_bytes == v.hll_bytes);
	CHECK_ST(sbf_parse_prefix(buf, need, f.len + 1, &pv), SBF_E_LENGTH);
	CHECK_ST(sbf_parse_prefix(buf, need, f.len - 1, &pv), SBF_E_LENGTH);
	CHECK_ST(sbf_parse_prefix(buf, f.len, f.len, &pv), SBF_OK);
	buf[0] = 9;
	CHECK_ST(sbf_parse_prefix(buf, need, f.len, &pv), SBF_E_VERSION);
	sbf_filter_free(&f);
}

/* Text form round trips and decoding is strict. */
static void
text_form(void)
{
	static const char *bad[] = {
		"", "sbf1", "sbf2:AAAA", "SBF1:AAAA", "sbf1:AAA", "sbf1:AAAAA",
		"sbf1:AA=A", "sbf1:A===", "sbf1:====", "sbf1:AA==AAAA", "sbf1:AAA*",
		"sbf1: AAA", "sbf1:AAAA\n", "sbf1:AB==", "sbf1:AAB=", "sbf1:AA-_",
		" sbf1:AAAA", "sbf1:AAAA=", "sbf1:AAAA===="
	};
	SbfFilter	f;
	SbfView		v;
	char	   *text;
	uint8_t    *out;
	size_t		outlen;
	size_t		i;
	size_t		n;
	uint8_t		raw[8];

	small_filter(&f, 9, 20);
	text = malloc(sbf_text_size(f.len) + 1);
	sbf_text_encode(SBF_PAYLOAD(&f), f.len, text);
	CHECK(strlen(text) == sbf_text_size(f.len));
	CHECK(strncmp(text, SBF_TEXT_PREFIX, 5) == 0);
	out = malloc(sbf_text_decoded_max(strlen(text)));
	CHECK(sbf_text_decode(text, strlen(text), out, &outlen));
	CHECK(outlen == f.len && memcmp(out, SBF_PAYLOAD(&f), f.len) == 0);
	CHECK_ST(sbf_validate(out, outlen, &v), SBF_OK);
	free(out);
	free(text);
	sbf_filter_free(&f);

	/* every short length and padding case round-trips */
	for (i = 0; i < 8; i++)
		raw[i] = (uint8_t) (0xF7 - 37 * i);
	for (n = 0; n <= 8; n++)
	{
		char		t[32];
		uint8_t		o[16];

		sbf_text_encode(raw, n, t);
		CHECK(strlen(t) == sbf_text_size(n));
		CHECK(sbf_text_decoded_max(strlen(t)) >= n);
		CHECK(sbf_text_decode(t, strlen(t), o, &outlen));
		CHECK(outlen == n && memcmp(o, raw, n) == 0);
	}
	{
		char		t[32];

		sbf_text_encode((const uint8_t *) "\xfb\xff", 2, t);
		CHECK(strcmp(t, "sbf1:+/8=") == 0);
		sbf_text_encode((const uint8_t *) "foobar", 6, t);
		CHECK(strcmp(t, "sbf1:Zm9vYmFy") == 0);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		uint8_t		o[16];

		if (sbf_text_decode(bad[i], strlen(bad[i]), o, &outlen))
		{
			fprintf(stderr, "  accepted bad text \"%s\"\n", bad[i]);
			case_ok = false;
		}
	}
	{
		uint8_t		o[16];
		/* an embedded NUL is not base64 */
		static const char nul[] = "sbf1:AA\0A";

		CHECK(!sbf_text_decode(nul, 9, o, &outlen));
		CHECK(sbf_text_decode("sbf1:", 5, o, &outlen) && outlen == 0);
	}
}

/*
 * Batch adds give exactly the bytes of one-by-one adds: k = 7 and k > 32
 * (the one-pass and the plain bit loops; batch_add_large has the batched
 * one), repeats far apart and adjacent, groups cut short at the end.
 */
static void
batch_add(void)
{
	static const size_t sizes[] = {0, 1, 15, 16, 17, 50, 96, 97, 200, 5000};
	static const double rates[] = {0.01, 1e-12};
	size_t		c;
	size_t		r;

	for (r = 0; r < 2; r++)
	for (c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++)
	{
		SbfParams	p = params(1000, rates[r], 2, 0.9, 9);
		size_t		n = sizes[c];
		uint64_t   *h = malloc((n + 1) * sizeof(uint64_t));
		SbfFilter	a;
		SbfFilter	b;
		size_t		i;
		int			start;

		for (i = 0; i < n; i++)
			h[i] = (i % 3 == 0) ? key(9, i / 2) : key(9, i % (n / 2 + 1));	/* with repeats */
		/* right-sized (the aggregate), empty default, and half-full default */
		for (start = 0; start < 3; start++)
		{
			if (start == 0)
			{
				CHECK_ST(seg_create_sized(&a, &p, n + 1, 0, &g_alloc), SBF_OK);
				CHECK_ST(seg_create_sized(&b, &p, n + 1, 0, &g_alloc), SBF_OK);
			}
			else
			{
				CHECK_ST(seg_create(&a, &p, 0, &g_alloc), SBF_OK);
				CHECK_ST(seg_create(&b, &p, 0, &g_alloc), SBF_OK);
				if (start == 2)
				{
					add_keys(&a, 10, 0, 600);
					add_keys(&b, 10, 0, 600);
				}
			}
			for (i = 0; i < n; i++)
				CHECK_ST(sbf_add_hash(&a, h[i], NULL), SBF_OK);
			CHECK_ST(sbf_add_hashes(&b, h, n), SBF_OK);
			CHECK(a.len == b.len &&
				  memcmp(SBF_PAYLOAD(&a), SBF_PAYLOAD(&b), a.len) == 0);
			sbf_filter_free(&a);
			sbf_filter_free(&b);
		}
		free(h);
	}
}

/*
 * The batched bit loop (bit arrays past SBF_CACHED_BITS, 256 kB) gives the
 * bytes of one-by-one adds too: 300,000 hashes with repeats, right-sized as
 * sbf_agg builds, in chunks that cut prefetch groups short.
 */
static void
batch_add_large(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		n = 300000;
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	SbfFilter	a;
	SbfFilter	b;
	SbfView		v;
	size_t		i;

	for (i = 0; i < n; i++)
		h[i] = key(11, i % 7 == 0 ? i / 2 : i);
	CHECK_ST(seg_create_sized(&a, &p, n, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create_sized(&b, &p, n, 0, &g_alloc), SBF_OK);
	CHECK_ST(validate_filter(&a, &v), SBF_OK);
	CHECK(v.hll_offset - v.bits_offset > 256 * 1024);
	for (i = 0; i < n; i++)
		CHECK_ST(sbf_add_hash(&a, h[i], NULL), SBF_OK);
	for (i = 0; i < n; i += 65531)
		CHECK_ST(sbf_add_hashes(&b, h + i, n - i < 65531 ? n - i : 65531), SBF_OK);
	CHECK(a.len == b.len && memcmp(SBF_PAYLOAD(&a), SBF_PAYLOAD(&b), a.len) == 0);
	free(h);
	sbf_filter_free(&a);
	sbf_filter_free(&b);
}

/* Union is idempotent: f UNION f = f byte for byte, however often. */
static void
union_idempotent(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfFilter	g;
	SbfView		v;
	int			i;

	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 5000);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.nsegments == 3);
	CHECK_ST(sbf_copy(&g, &v, 0, 0, &g_alloc), SBF_OK);
	for (i = 0; i < 10; i++)
	{
		sbf_filter_view(&f, &v);
		CHECK_ST(sbf_union(&f, &v), SBF_OK);
	}
	CHECK(f.len == g.len && memcmp(SBF_PAYLOAD(&f), SBF_PAYLOAD(&g), f.len) == 0);
	sbf_filter_free(&f);
	sbf_filter_free(&g);

	/*
	 * equal segments (growth 1) with an almost empty last one, which could
	 * OR into a full one within its design load: f UNION f is f's canonical
	 * form (equal segments ordered by their bits), which every further
	 * union with f keeps, with the same segments
	 */
	p = params(100, 0.01, 1, 1.0, 9);
	for (i = 1; i <= 20; i++)
	{
		SbfView		vf;
		uint32_t	nseg;

		CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
		add_keys(&f, 11, 0, 300 + i);
		CHECK_ST(validate_filter(&f, &vf), SBF_OK);
		nseg = vf.nsegments;
		CHECK_ST(sbf_copy(&g, &vf, 0, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_union(&g, &vf), SBF_OK);
		CHECK_ST(validate_filter(&g, &v), SBF_OK);
		CHECK(v.nsegments == nseg && g.len == f.len);
		{
			SbfFilter	h;
			SbfView		vg;

			CHECK_ST(sbf_copy(&h, &v, 0, 0, &g_alloc), SBF_OK);
			CHECK_ST(sbf_union(&h, &vf), SBF_OK);
			sbf_filter_view(&g, &vg);
			CHECK_ST(sbf_union(&h, &vg), SBF_OK);
			CHECK(h.len == g.len && memcmp(SBF_PAYLOAD(&h), SBF_PAYLOAD(&g), h.len) == 0);
			sbf_filter_free(&h);
		}
		sbf_filter_free(&f);
		sbf_filter_free(&g);
	}
}

/* Union: no false negatives, OR-merge, append, incompatibility, folding. */
static void
union_filters(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 12);
	SbfFilter	a;
	SbfFilter	b;
	SbfView		va;
	SbfView		vb;
	SbfSegment	s;
	uint64_t	i;
	uint64_t	missing = 0;
	double		ca;
	uint64_t	c1;

	/* equal geometry, counts fit: OR-merged into one segment */
	CHECK_ST(seg_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&b, &p, 0, &g_alloc), SBF_OK);
	add_keys(&a, 0, 0, 300);
	add_keys(&b, 2, 0, 300);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK(va.nsegments == 1);
	sbf_get_segment(&va, 0, &s);
	/* the count of an OR-merge is estimated from the fill */
	CHECK(s.count >= 570 && s.count <= 630);
	for (i = 0; i < 300; i++)
		missing += !sbf_contains_hash(&va, key(0, i)) + !sbf_contains_hash(&va, key(2, i));
	CHECK(missing == 0);
	ca = sbf_cardinality(&va);
	CHECK(fabs(ca - 600) < 600 * 3 * 1.04 / 64);
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/* counts do not fit: appended, then more adds go on */
	CHECK_ST(seg_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&b, &p, 0, &g_alloc), SBF_OK);
	add_keys(&a, 0, 0, 800);
	add_keys(&b, 2, 0, 2500);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK(vb.nsegments == 2);
	{
		SbfSegment	b1;

		sbf_get_segment(&vb, 1, &b1);
		c1 = b1.count;
		CHECK(c1 > 1400 && c1 <= 1500);
	}
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK(va.nsegments == 3);
	/* canonical order: by geometry, the fuller of equal ones first */
	sbf_get_segment(&va, 0, &s);
	CHECK(s.count == 1000 && s.capacity == 1000);
	sbf_get_segment(&va, 1, &s);
	CHECK(s.count <= 800 && s.count > 790 && s.capacity == 1000);
	sbf_get_segment(&va, 2, &s);
	CHECK(s.count == c1 && s.capacity == 2000);
	add_keys(&a, 3, 0, 3000);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	for (i = 0; i < 800; i++)
		missing += !sbf_contains_hash(&va, key(0, i));
	for (i = 0; i < 2500; i++)
		missing += !sbf_contains_hash(&va, key(2, i));
	for (i = 0; i < 3000; i++)
		missing += !sbf_contains_hash(&va, key(3, i));
	CHECK(missing == 0);
	sbf_filter_free(&b);

	/* incompatible parameters leave dst alone */
	{
		static const SbfParams other[] = {
			{1000, 0.02, 0.9, 2, 12},
			{1000, 0.01, 0.8, 2, 12},
			{1000, 0.01, 0.9, 4, 12},
		};
		size_t		j;

		for (j = 0; j < 3; j++)
		{
			uint8_t    *before = malloc(a.len);
			size_t		blen = a.len;

			memcpy(before, SBF_PAYLOAD(&a), a.len);
			CHECK_ST(seg_create(&b, &other[j], 0, &g_alloc), SBF_OK);
			CHECK_ST(validate_filter(&b, &vb), SBF_OK);
			CHECK_ST(sbf_union(&a, &vb), SBF_E_INCOMPATIBLE);
			CHECK(a.len == blen && memcmp(before, SBF_PAYLOAD(&a), blen) == 0);
			sbf_filter_free(&b);
			free(before);
		}
	}
	/* a different capacity and hll_p are compatible; hll_p folds down */
	{
		SbfParams	q = params(50, 0.01, 2, 0.9, 7);

		CHECK_ST(seg_create(&b, &q, 0, &g_alloc), SBF_OK);
		add_keys(&b, 4, 0, 100);
		CHECK_ST(validate_filter(&b, &vb), SBF_OK);
		CHECK_ST(sbf_union(&a, &vb), SBF_OK);
		CHECK_ST(validate_filter(&a, &va), SBF_OK);
		CHECK(va.hll_p == 7);
		CHECK(va.capacity == 1000);
		for (i = 0; i < 100; i++)
			missing += !sbf_contains_hash(&va, key(4, i));
		CHECK(missing == 0);
		sbf_filter_free(&b);
	}
	/* union with itself, through the same buffer */
	{
		size_t		before = a.len;
		uint32_t	nseg;

		sbf_filter_view(&a, &va);
		nseg = va.nsegments;
		CHECK_ST(sbf_union(&a, &va), SBF_OK);
		CHECK_ST(validate_filter(&a, &va), SBF_OK);
		CHECK(va.nsegments >= nseg && a.len >= before);
		for (i = 0; i < 800; i++)
			missing += !sbf_contains_hash(&va, key(0, i));
		CHECK(missing == 0);
	}
	CHECK(g_ctx.live == 1);
	sbf_filter_free(&a);
}

/* Registers of hash h at precision p, computed directly (reference). */
static void
ref_add(uint8_t *regs, int p, uint64_t h)
{
	uint64_t	w = h >> p;
	uint32_t	idx = (uint32_t) (h & ((UINT64_C(1) << p) - 1));
	uint8_t		rho = (uint8_t) (w == 0 ? 65 - p : __builtin_ctzll(w) + 1);

	if (rho > regs[idx])
		regs[idx] = rho;
}

/* Folding to a lower precision equals computing at that precision. */
static void
hll_fold_exact(void)
{
	static uint8_t hi[1 << 14];
	static uint8_t lo[1 << 14];
	static uint8_t folded[1 << 14];
	static const uint64_t ns[] = {5, 300, 5000, 200000};
	size_t		ni;
	int			q;
	uint64_t	i;

	for (ni = 0; ni < 4; ni++)
	{
		memset(hi, 0, sizeof(hi));
		for (i = 0; i < ns[ni]; i++)
			ref_add(hi, 14, key(5, i));
		/* a hash with w == 0 at p = 14 exercises the saturated rho */
		ref_add(hi, 14, UINT64_C(0x1234));
		for (q = 4; q <= 14; q++)
		{
			memset(lo, 0, sizeof(lo));
			for (i = 0; i < ns[ni]; i++)
				ref_add(lo, q, key(5, i));
			ref_add(lo, q, UINT64_C(0x1234));
			sbf_hll_fold(hi, 14, q, folded);
			CHECK(memcmp(lo, folded, (size_t) 1 << q) == 0);
		}
	}

	/* and through the public union: p 12 folded into an empty p 8 */
	{
		SbfParams	p12 = params(1000, 0.01, 2, 0.9, 12);
		SbfParams	p8 = params(1000, 0.01, 2, 0.9, 8);
		SbfFilter	a;
		SbfFilter	b;
		SbfFilter	c;
		SbfView		va;
		SbfView		vb;

		CHECK_ST(seg_create(&a, &p12, 0, &g_alloc), SBF_OK);
		CHECK_ST(seg_create(&b, &p8, 0, &g_alloc), SBF_OK);
		CHECK_ST(seg_create(&c, &p8, 0, &g_alloc), SBF_OK);
		for (i = 0; i < 3000; i++)
		{
			CHECK_ST(sbf_hll_add_hash(&a, key(6, i)), SBF_OK);
			CHECK_ST(sbf_hll_add_hash(&c, key(6, i)), SBF_OK);
		}
		CHECK_ST(validate_filter(&a, &va), SBF_OK);
		CHECK_ST(sbf_union(&b, &va), SBF_OK);
		CHECK_ST(validate_filter(&b, &vb), SBF_OK);
		CHECK(b.len == c.len && memcmp(SBF_PAYLOAD(&b), SBF_PAYLOAD(&c), b.len) == 0);
		/* a dense p 12 folded all the way down to p 4 */
		sbf_filter_free(&b);
		sbf_filter_free(&c);
		{
			SbfParams	p4 = params(1000, 0.01, 2, 0.9, 4);
			SbfFilter	d;
			SbfView		vd;

			CHECK(va.flags & SBF_FLAG_HLL_DENSE);
			CHECK_ST(seg_create(&d, &p4, 0, &g_alloc), SBF_OK);
			CHECK_ST(sbf_union(&d, &va), SBF_OK);
			CHECK_ST(validate_filter(&d, &vd), SBF_OK);
			CHECK(vd.hll_p == 4 && (vd.flags & SBF_FLAG_HLL_DENSE));
			CHECK(vd.hll_bytes == SBF_HLL_DENSE_BYTES(4));
			sbf_filter_free(&d);
		}
		sbf_filter_free(&a);
	}
}

/* The sparse/dense choice is a function of the register state only. */
static void
hll_canonical(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 8);
	SbfFilter	a;
	SbfFilter	b;
	SbfView		v;
	uint64_t	i;
	size_t		nonzero;
	static uint8_t regs[1 << 8];

	CHECK_ST(seg_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&b, &p, 0, &g_alloc), SBF_OK);
	memset(regs, 0, sizeof(regs));
	for (i = 0; i < 400; i++)
	{
		CHECK_ST(sbf_hll_add_hash(&a, key(8, i)), SBF_OK);
		ref_add(regs, 8, key(8, i));
		CHECK_ST(validate_filter(&a, &v), SBF_OK);
		nonzero = 0;
		for (size_t j = 0; j < 256; j++)
			nonzero += regs[j] != 0;
		CHECK(((v.flags & SBF_FLAG_HLL_DENSE) != 0) == (nonzero > SBF_HLL_SPARSE_MAX(8)));
		CHECK(v.hll_bytes == (nonzero > SBF_HLL_SPARSE_MAX(8) ?
							  SBF_HLL_DENSE_BYTES(8) : nonzero * 4));
	}
	/* reverse order gives the same bytes */
	for (i = 400; i-- > 0;)
		CHECK_ST(sbf_hll_add_hash(&b, key(8, i)), SBF_OK);
	CHECK(a.len == b.len && memcmp(SBF_PAYLOAD(&a), SBF_PAYLOAD(&b), a.len) == 0);
	sbf_filter_free(&a);
	sbf_filter_free(&b);
}

/* Estimates stay within 3 standard errors (1.04/sqrt(m)) from 10 to 1e6. */
static void
hll_accuracy(void)
{
	static const uint8_t ps[] = {6, 9, 12, 14};
	static const uint64_t checkpoints[] = {10, 100, 1000, 10000, 100000, 1000000};
	size_t		pi;

	for (pi = 0; pi < sizeof(ps); pi++)
	{
		SbfParams	p = params(1000, 0.01, 2, 0.9, ps[pi]);
		SbfFilter	f;
		SbfView		v;
		uint64_t	n = 0;
		size_t		ci;
		double		tol = 3 * 1.04 / sqrt((double) (1 << ps[pi]));

		CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
		sbf_filter_view(&f, &v);
		CHECK(sbf_hll_cardinality(&v) == 0.0);
		for (ci = 0; ci < 6; ci++)
		{
			double		est;

			for (; n < checkpoints[ci]; n++)
				CHECK_ST(sbf_hll_add_hash(&f, key(9 + (int) pi, n)), SBF_OK);
			CHECK_ST(validate_filter(&f, &v), SBF_OK);
			est = sbf_hll_cardinality(&v);
			if (fabs(est - (double) n) > tol * (double) n)
			{
				fprintf(stderr, "  p=%u n=%" PRIu64 " estimate %.1f\n",
						ps[pi], n, est);
				case_ok = false;
			}
		}
		sbf_filter_free(&f);
	}
}

/* Absurd sizes fail with TOO_LARGE before any big allocation. */
static void
too_large(void)
{
	SbfParams	p = params(UINT64_C(1) << 62, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	uint8_t    *before;
	size_t		blen;
	uint64_t	i;

	reset_counts(SIZE_MAX);
	CHECK_ST(seg_create(&f, &p, 4, &g_alloc), SBF_E_TOO_LARGE);
	CHECK(f.base == NULL);
	/* m fits SBF_MAX_SEGMENT_BITS but the payload does not fit */
	p.capacity = UINT64_C(4504094200);
	p.error_rate = 0.4;
	p.tightening = 1.0;
	CHECK_ST(seg_create(&f, &p, 4, &g_alloc), SBF_E_TOO_LARGE);
	{
		uint64_t	m;
		uint32_t	k;

		CHECK(sbf_segment_geometry(p.capacity, 0.4, SBF_MAX_SEGMENT_BITS, &m, &k));
	}
	CHECK_ST(seg_create_sized(&f, &p, UINT64_MAX, 4, &g_alloc), SBF_E_TOO_LARGE);
	CHECK(g_ctx.calls == 0);

	/*
	 * an appended segment that cannot be sized: P_2 underflows to 0, so the
	 * chain of segments is at its end
	 */
	p = params(1, 0.01, 1, 1e-300, 9);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, key(0, 0), NULL), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, key(0, 1), NULL), SBF_OK);
	blen = f.len;
	before = malloc(blen);
	memcpy(before, SBF_PAYLOAD(&f), blen);
	reset_counts(SIZE_MAX);
	CHECK_ST(sbf_add_hash(&f, key(0, 2), NULL), SBF_E_TOO_MANY_SEGMENTS);
	CHECK(g_ctx.calls == 0);
	CHECK(f.len == blen && memcmp(before, SBF_PAYLOAD(&f), blen) == 0);
	free(before);
	sbf_filter_free(&f);

	/* an appended segment bigger than the payload limit */
	p = params(1, 0.4, 16, 1.0, 9);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	{
		/* a full segment 0 of huge capacity: s times it is too big */
		uint8_t    *buf = SBF_PAYLOAD(&f);

		sbf_store64(buf + SBF_SEGDIR_OFFSET(0) + SBF_SEG_CAPACITY, 300000000);
		sbf_store64(buf + SBF_SEGDIR_OFFSET(0) + SBF_SEG_COUNT, 300000000);
		/* the initial capacity too: growth continues from min(largest, c) */
		sbf_store64(buf + 28, 300000000);
	}
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	reset_counts(SIZE_MAX);
	CHECK_ST(sbf_add_hash(&f, key(0, 1), NULL), SBF_E_TOO_LARGE);
	CHECK(g_ctx.calls == 0);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.nsegments == 1);
	sbf_filter_free(&f);

	/*
	 * too many segments: union full four-element filters (capacity 4, growth
	 * 1) into f until it has the maximum number of segments; two full
	 * segments of different elements OR to a fill past the design load, so
	 * each is appended (while f UNION f = f)
	 */
	p = params(4, 0.001, 1, 1.0, 4);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 5, 0, 4);
	for (i = 1; i < SBF_MAX_SEGMENTS; i++)
	{
		SbfFilter	g;
		SbfView		vg;

		CHECK_ST(seg_create(&g, &p, 0, &g_alloc), SBF_OK);
		add_keys(&g, 5, 4 * i, 4 * i + 4);
		sbf_filter_view(&g, &vg);
		CHECK_ST(sbf_union(&f, &vg), SBF_OK);
		sbf_filter_free(&g);
	}
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.nsegments == SBF_MAX_SEGMENTS);
	blen = f.len;
	before = malloc(blen);
	memcpy(before, SBF_PAYLOAD(&f), blen);
	{
		SbfFilter	g;
		SbfView		vg;

		/* one more segment by union is refused, f unchanged */
		CHECK_ST(seg_create(&g, &p, 0, &g_alloc), SBF_OK);
		add_keys(&g, 6, 0, 4);
		sbf_filter_view(&g, &vg);
		CHECK_ST(sbf_union(&f, &vg), SBF_E_TOO_MANY_SEGMENTS);
		sbf_filter_free(&g);
		CHECK(f.len == blen && memcmp(before, SBF_PAYLOAD(&f), blen) == 0);
		/*
		 * and so is one more segment by an add: 4096 small segments answer
		 * "present" for many keys, so clear their bits first (still a valid
		 * value: every segment stays full by its count)
		 */
		memset(SBF_PAYLOAD(&f) + v.bits_offset, 0, v.hll_offset - v.bits_offset);
		for (i = 0; i < SBF_MAX_SEGMENTS; i++)
			sbf_store64(SBF_PAYLOAD(&f) + SBF_SEGDIR_OFFSET(i) + SBF_SEG_COUNT, 4);
		memcpy(before, SBF_PAYLOAD(&f), blen);
		CHECK(!sbf_contains_hash(&v, key(7, 0)));
		CHECK_ST(sbf_add_hash(&f, key(7, 0), NULL), SBF_E_TOO_MANY_SEGMENTS);
	}
	CHECK(f.len == blen && memcmp(before, SBF_PAYLOAD(&f), blen) == 0);
	/*
	 * an element already present still only updates the HyperLogLog: set
	 * every bit of segment 0 (m = 58: one word), then anything is present
	 */
	{
		SbfSegment	s0;

		sbf_get_segment(&v, 0, &s0);
		CHECK(s0.nbits == 58);
		memset(SBF_PAYLOAD(&f) + s0.words_offset, 0xff, 7);
		SBF_PAYLOAD(&f)[s0.words_offset + 7] = 0x03;
		CHECK(sbf_contains_hash(&v, key(8, 0)));
		CHECK_ST(sbf_add_hash(&f, key(8, 0), NULL), SBF_OK);
	}
	free(before);
	sbf_filter_free(&f);
	reset_counts(SIZE_MAX);
	CHECK(g_ctx.live == 0);
}

/*
 * The payload limit is the largest payload whose text form fits in
 * SBF_MAX_TEXT_CHARS, and that text, its NUL and a text varlena header fit in
 * one PostgreSQL allocation.
 */
static void
limit_arithmetic(void)
{
	CHECK(sbf_text_size(SBF_MAX_BYTES) <= SBF_MAX_TEXT_CHARS);
	CHECK(sbf_text_size(SBF_MAX_BYTES + 1) > SBF_MAX_TEXT_CHARS);
	/* the headroom holds the NUL, a text varlena header and the rest of a row */
	CHECK(sbf_text_size(SBF_MAX_BYTES) + SBF_TEXT_HEADROOM <= SBF_ALLOC_LIMIT);
	CHECK(SBF_ALLOC_LIMIT - sbf_text_size(SBF_MAX_BYTES) > 1 + 4 + 1000000);
	/* whole base64 groups: the longest text form has no padding */
	CHECK(SBF_MAX_BYTES % 3 == 0);
	CHECK(SBF_MAX_BYTES == 804519930);
	CHECK(SBF_MAX_BYTES < SBF_MAX_STORED_BYTES);
	CHECK(SBF_MAX_STORED_BYTES + 4 == SBF_ALLOC_LIMIT);
	/* the decoder's bound agrees: the longest text decodes within the limit */
	CHECK(sbf_text_decoded_max(SBF_MAX_TEXT_CHARS) <= SBF_MAX_BYTES);
	CHECK(sbf_text_decoded_max(sbf_text_size(SBF_MAX_BYTES)) == SBF_MAX_BYTES);
	/* 1.0's example: 838,692,692 bytes, created by 1.0, is past the limit */
	{
		uint64_t	m;
		uint32_t	k;

		CHECK(sbf_segment_geometry(700000000, 0.01, SBF_MAX_SEGMENT_BITS, &m, &k));
		CHECK(sbf_payload_size(1, &m, 0) == SIZE_MAX);
		CHECK(SBF_HEADER_BYTES + SBF_SEGDIR_BYTES + (m + 63) / 64 * 8 == 838692692);
	}
}

/* Payload of an empty filter whose one segment is built for n at error p. */
static size_t
one_segment_size(uint64_t n, double p)
{
	uint64_t	m;
	uint32_t	k;

	if (!sbf_segment_geometry(n, p, SBF_MAX_SEGMENT_BITS, &m, &k))
		return SIZE_MAX;
	return sbf_payload_size(1, &m, 0);
}

/*
 * The largest capacity whose first segment fits is accepted (asking the
 * allocator, which refuses anything large here, for at most the limit) and
 * one more is refused with TOO_LARGE before any allocation; likewise for
 * right-sized segments.  (A filter that starts small and allocates its first
 * segment later passes with SBF_OK.)
 */
static void
limit_create_boundary(void)
{
	SbfParams	p = params(1, 0.01, 2, 0.9, 9);
	double		pe = sbf_next_error(0.01, 0.9, 0.0, 0.0);
	uint64_t	lo = 1;
	uint64_t	hi = UINT64_C(1) << 33;
	SbfFilter	f;
	SbfStatus	st;

	/* the largest n with a payload <= SBF_MAX_BYTES */
	CHECK(one_segment_size(hi, pe) == SIZE_MAX);
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (one_segment_size(mid, pe) <= SBF_MAX_BYTES)
			lo = mid;
		else
			hi = mid;
	}
	printf("# largest sbf_empty capacity at error_rate 0.01: %" PRIu64 " (%zu bytes)\n",
		   lo, one_segment_size(lo, pe));
	CHECK(one_segment_size(lo, pe) > SBF_MAX_BYTES - 64);

	p.capacity = lo;
	reset_counts(4096);
	st = sbf_create(&f, &p, 4, &g_alloc);
	CHECK(st == SBF_E_NOMEM || st == SBF_OK);
	if (st == SBF_E_NOMEM)
		CHECK(g_ctx.largest == 4 + one_segment_size(lo, pe));
	else
		sbf_filter_free(&f);
	CHECK(g_ctx.largest <= 4 + SBF_MAX_BYTES);
	p.capacity = lo + 1;
	reset_counts(4096);
	CHECK_ST(sbf_create(&f, &p, 4, &g_alloc), SBF_E_TOO_LARGE);
	CHECK(g_ctx.largest <= 4096);

	/* the aggregate's right-sized first segment */
	pe = sbf_sized_error(0.01, 0.9);
	lo = 1;
	hi = UINT64_C(1) << 33;
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (one_segment_size(mid, pe) <= SBF_MAX_BYTES)
			lo = mid;
		else
			hi = mid;
	}
	p.capacity = 1000;
	reset_counts(4096);
	CHECK_ST(sbf_create_sized(&f, &p, lo, 4, &g_alloc), SBF_E_NOMEM);
	CHECK(g_ctx.largest > 4096 && g_ctx.largest <= 4 + SBF_MAX_BYTES);
	reset_counts(4096);
	CHECK_ST(sbf_create_sized(&f, &p, lo + 1, 4, &g_alloc), SBF_E_TOO_LARGE);
	CHECK(g_ctx.largest <= 4096);
	reset_counts(SIZE_MAX);
}

/*
 * Values stored by 1.0 up to the varlena limit still read (sbf_parse_prefix),
 * but neither come in again (sbf_validate) nor grow (sbf_copy): TOO_LARGE,
 * decided from the length alone.
 */
static void
limit_stored_values(void)
{
	uint8_t		buf[SBF_HEADER_BYTES + SBF_SEGDIR_BYTES];
	uint8_t    *e = buf + SBF_HEADER_BYTES;
	SbfFilter	g;
	SbfView		v;
	uint64_t	nbits;
	size_t		total;

	/*
	 * header and directory of a format-1 value (what 1.0 wrote) with one
	 * empty segment whose bits make the payload fall between the two limits
	 */
	memset(buf, 0, sizeof(buf));
	buf[SBF_OFF_VERSION] = 1;
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = 9;
	sbf_store16(buf + SBF_OFF_GROWTH, 2);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, 1);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, 0.01);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, 0.9);
	sbf_store64(buf + SBF_OFF_CAPACITY, 1000);
	nbits = (uint64_t) (SBF_MAX_STORED_BYTES - sizeof(buf)) / 8 * 64;
	sbf_store64(e + SBF_SEG_CAPACITY, 1000);
	sbf_store64(e + SBF_SEG_NBITS, nbits);
	sbf_store_double(e + SBF_SEG_ERROR, 0.001);
	sbf_store16(e + SBF_SEG_K, 10);
	total = sizeof(buf) + (size_t) (nbits / 8);
	CHECK(total > SBF_MAX_BYTES && total <= SBF_MAX_STORED_BYTES);
	CHECK_ST(sbf_parse_prefix(buf, sizeof(buf), total, &v), SBF_OK);
	CHECK(v.len == total);
	CHECK_ST(sbf_parse_prefix(buf, sizeof(buf), SBF_MAX_STORED_BYTES + 1, &v),
			 SBF_E_LENGTH);
	/* the length alone decides: nothing past the real buffer is read */
	CHECK_ST(sbf_validate(buf, total, &v), SBF_E_TOO_LARGE);
	CHECK_ST(sbf_validate(buf, SBF_MAX_BYTES + 1, &v), SBF_E_TOO_LARGE);
	/* growing it: refused before any allocation (the view covers the prefix) */
	CHECK_ST(sbf_parse_prefix(buf, sizeof(buf), total, &v), SBF_OK);
	reset_counts(SIZE_MAX);
	CHECK_ST(sbf_copy(&g, &v, 4, 64, &g_alloc), SBF_E_TOO_LARGE);
	CHECK(g_ctx.calls == 0);
}

/*
 * error_rates whose first segment's rate underflows are parameter errors at
 * creation, and sbf_min_error_rate is exactly the smallest accepted; values
 * stored with such rates still pass sbf_params_check.  A chain whose rates
 * tighten to underflow ends with TOO_MANY_SEGMENTS.
 */
static void
error_underflow(void)
{
	static const double rs[] = {1.0, 0.999999, 0.9, 0.5, 1e-9, 1e-300};
	SbfParams	p = params(1, 5e-324, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	size_t		i;
	SbfStatus	st = SBF_OK;
	uint32_t	n;

	CHECK_ST(sbf_params_check(&p), SBF_OK);
	CHECK_ST(sbf_params_check_create(&p), SBF_E_PARAM);
	p.tightening = 1.0;
	CHECK_ST(sbf_params_check_create(&p), SBF_E_PARAM);
	p.error_rate = DBL_MIN;
	CHECK_ST(sbf_params_check_create(&p), SBF_OK);
	p = params(1, 1e-300, 2, 0.9, 9);
	CHECK_ST(sbf_params_check_create(&p), SBF_E_PARAM);	/* e^1.04 underflows */
	p.tightening = 1.0;
	CHECK_ST(sbf_params_check_create(&p), SBF_OK);
	p = params(0, 0.01, 2, 0.9, 9);
	CHECK_ST(sbf_params_check_create(&p), SBF_E_PARAM);	/* still the range checks */

	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++)
	{
		double		min = sbf_min_error_rate(rs[i]);

		p = params(1, min, 2, rs[i], 9);
		CHECK_ST(sbf_params_check_create(&p), SBF_OK);
		CHECK(sbf_next_error(min, rs[i], 0.0, 0.0) >= SBF_MIN_SEGMENT_ERROR);
		CHECK(sbf_sized_error(min, rs[i]) >= SBF_MIN_SEGMENT_ERROR);
		p.error_rate = nextafter(min, 0.0);
		CHECK_ST(sbf_params_check_create(&p), SBF_E_PARAM);
		printf("# smallest error_rate with tightening %g: %.17g\n", rs[i], min);
	}
	CHECK(sbf_min_error_rate(1.0) == DBL_MIN);
	CHECK(sbf_min_error_rate(0.9) > 1e-297 && sbf_min_error_rate(0.9) < 1e-295);

	/*
	 * capacity 1, growth 1, tightening 1e-100: one segment per element; the
	 * first takes the whole budget (e(1 - r) rounds to e), so each next one
	 * gets r times the smallest rate: 1e-102, 1e-202, 1e-302, and then
	 * 1e-402 would be below SBF_MIN_SEGMENT_ERROR: the chain ends at four
	 * segments.  The value is written by hand, as 1.0 stored it (format 1,
	 * four full one-word segments, empty HyperLogLog), so that the add must
	 * append a segment; the refused add changes nothing.
	 */
	{
		static const double errs[] = {0.01, 1e-102, 1e-202, 1e-302};
		uint8_t		buf[SBF_HEADER_BYTES + 4 * SBF_SEGDIR_BYTES + 4 * 8];
		uint32_t	j;

		memset(buf, 0, sizeof(buf));
		buf[SBF_OFF_VERSION] = 1;
		buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
		buf[SBF_OFF_HLL_P] = 9;
		sbf_store16(buf + SBF_OFF_GROWTH, 1);
		sbf_store16(buf + SBF_OFF_NSEGMENTS, 4);
		sbf_store_double(buf + SBF_OFF_ERROR_RATE, 0.01);
		sbf_store_double(buf + SBF_OFF_TIGHTENING, 1e-100);
		sbf_store64(buf + SBF_OFF_CAPACITY, 1);
		for (j = 0; j < 4; j++)
		{
			uint8_t    *e = buf + SBF_SEGDIR_OFFSET(j);

			sbf_store64(e + SBF_SEG_CAPACITY, 1);
			sbf_store64(e + SBF_SEG_COUNT, 1);
			sbf_store64(e + SBF_SEG_NBITS, 64);
			sbf_store_double(e + SBF_SEG_ERROR, errs[j]);
			sbf_store16(e + SBF_SEG_K, 1);
		}
		CHECK_ST(sbf_validate(buf, sizeof(buf), &v), SBF_OK);
		CHECK_ST(sbf_copy(&f, &v, 0, 4096, &g_alloc), SBF_OK);
		for (n = 0; n < 100 && st == SBF_OK; n++)
			st = sbf_add_hash(&f, key(0, n), NULL);
		CHECK(n == 1);
		CHECK_ST(st, SBF_E_TOO_MANY_SEGMENTS);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		CHECK(v.nsegments == 4 && f.len == sizeof(buf));
		sbf_filter_free(&f);
	}
}

/* Allocator failures leave the filter valid and unchanged. */
static void
out_of_memory(void)
{
	SbfParams	p = params(10, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfFilter	g;
	SbfView		v;
	uint8_t    *before;
	size_t		blen;
	uint64_t	i;
	int			failures = 0;

	reset_counts(0);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_E_NOMEM);
	reset_counts(SIZE_MAX);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&g, &p, 0, &g_alloc), SBF_OK);
	add_keys(&g, 1, 0, 50);
	for (i = 0; i < 300; i++)
	{
		SbfStatus	st;

		blen = f.len;
		before = malloc(blen);
		memcpy(before, SBF_PAYLOAD(&f), blen);
		reset_counts(f.cap);	/* any growth fails */
		st = sbf_add_hash(&f, key(0, i), NULL);
		if (st == SBF_E_NOMEM)
		{
			failures++;
			CHECK(f.len == blen && memcmp(before, SBF_PAYLOAD(&f), blen) == 0);
			reset_counts(SIZE_MAX);
			CHECK_ST(sbf_add_hash(&f, key(0, i), NULL), SBF_OK);
		}
		else
			CHECK_ST(st, SBF_OK);
		free(before);
	}
	CHECK(failures > 0);
	CHECK_ST(validate_filter(&g, &v), SBF_OK);
	reset_counts(0);
	CHECK_ST(sbf_union(&f, &v), SBF_E_NOMEM);
	reset_counts(SIZE_MAX);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	sbf_filter_free(&g);
	sbf_filter_free(&f);
	CHECK(g_ctx.live == 0);
}

/* Copies are byte-identical, extra room is honored. */
static void
copy_filter(void)
{
	SbfFilter	f;
	SbfFilter	g;
	SbfView		v;

	small_filter(&f, 9, 50);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK_ST(sbf_copy(&g, &v, 4, 1000, &g_alloc), SBF_OK);
	CHECK(g.len == f.len && g.cap == f.len + 1000 && g.prefix == 4);
	CHECK(memcmp(SBF_PAYLOAD(&g), SBF_PAYLOAD(&f), f.len) == 0);
	add_keys(&g, 1, 0, 50);
	CHECK_ST(validate_filter(&g, &v), SBF_OK);
	sbf_filter_free(&g);
	sbf_filter_free(&f);
}

/* Every status has a lowercase message without a period. */
static void
status_messages(void)
{
	int			s;

	for (s = SBF_OK; s <= SBF_E_OVER_BUDGET; s++)
	{
		const char *m = sbf_status_message((SbfStatus) s);

		CHECK(m[0] >= 'a' && m[0] <= 'z');
		CHECK(m[strlen(m) - 1] != '.');
	}
}

/*
 * Fuzz regressions, replayed through the fuzz targets themselves so that the
 * same invariants are checked; their assertions become CHECKs here.
 */
#define FUZZ_ASSERT(cond) CHECK(cond)
#define LLVMFuzzerTestOneInput fuzz_validate_one
#include "../fuzz/fuzz_validate.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_text_one
#include "../fuzz/fuzz_text.c"
#undef LLVMFuzzerTestOneInput

/* Inputs found by the fuzzers (base64 of the raw fuzz_validate input). */
static const char *const fuzz_cases[] = {
	/* a huge format-v1-draft tier (32-byte directory entries): rejected */
	"AQABBAIAAQAAAAAAexSuR+F6hD/NzMzMzMzsPwEAAAEAAAAAAf8AAAAA////////+wsAAA8AAAAAAAAACgAB/wAAAAAAAAAAAAAAAA==",
};

/* Every past fuzz finding still passes both targets. */
static void
fuzz_regressions(void)
{
	size_t		i;

	for (i = 0; i < sizeof(fuzz_cases) / sizeof(fuzz_cases[0]); i++)
	{
		size_t		tlen = 5 + strlen(fuzz_cases[i]);
		char	   *text = malloc(tlen + 1);
		uint8_t    *raw = malloc(sbf_text_decoded_max(tlen) + 1);
		size_t		len;

		snprintf(text, tlen + 1, "sbf1:%s", fuzz_cases[i]);
		CHECK(sbf_text_decode(text, tlen, raw, &len));
		fuzz_validate_one(raw, len);
		fuzz_text_one((const uint8_t *) text, tlen);
		free(raw);
		free(text);
	}
}


/* True when two filters have the same bytes. */
static bool
same_bytes(const SbfFilter *a, const SbfFilter *b)
{
	return a->len == b->len && memcmp(SBF_PAYLOAD(a), SBF_PAYLOAD(b), a->len) == 0;
}

/*
 * sbf_union_many: the same bytes for every order of three inputs, collecting
 * only or merging; collecting is associative, so an aggregate may collect
 * in any grouping and merge once.
 */
static void
union_many_orders(void)
{
	static const int orders[6][3] = {
		{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}
	};
	SbfParams	p = params(500, 0.01, 2, 0.9, 10);
	SbfFilter	f[3];
	SbfView		v[3];
	int			mode;
	int			i;

	for (i = 0; i < 3; i++)
	{
		CHECK_ST(seg_create(&f[i], &p, 0, &g_alloc), SBF_OK);
		/* 200 (ORs with the others), 700 (two segments), 150 */
		add_keys(&f[i], 20 + i, 0, i == 1 ? 700 : 200 - 25 * i);
		CHECK_ST(validate_filter(&f[i], &v[i]), SBF_OK);
	}
	for (mode = 0; mode < 2; mode++)
	{
		SbfUnionSpec spec = {0.0, mode == 1, false};
		SbfFilter	first;
		int			o;

		for (o = 0; o < 6; o++)
		{
			SbfView		in[3];
			SbfFilter	u;
			SbfView		vu;
			uint64_t	missing = 0;
			uint64_t	j;
			double		bound;

			for (i = 0; i < 3; i++)
				in[i] = v[orders[o][i]];
			CHECK_ST(sbf_union_many(&u, in, 3, &spec, &bound, 0, &g_alloc), SBF_OK);
			CHECK_ST(validate_filter(&u, &vu), SBF_OK);
			CHECK(bound == sbf_fpr_bound(&vu));
			for (i = 0; i < 3; i++)
				for (j = 0; j < (i == 1 ? 700u : 200u - 25 * i); j++)
					missing += !sbf_contains_hash(&vu, key(20 + i, j));
			CHECK(missing == 0);
			if (o == 0)
				first = u;
			else
			{
				CHECK(same_bytes(&first, &u));
				sbf_filter_free(&u);
			}
		}
		/* merging ORs the three first segments into one: 2 segments */
		sbf_filter_view(&first, &v[0]);
		/*
		 * merging: f1's full first segment stays alone, f0 and f2 (350
		 * elements) OR into one of capacity 500, f1's second stays
		 */
		CHECK(v[0].nsegments == (mode == 1 ? 3 : 4));
		/* collecting twice, in another grouping, then merging: the same */
		if (mode == 0)
		{
			SbfUnionSpec merge = {0.0, true, false};
			SbfFilter	ab;
			SbfFilter	m1;
			SbfFilter	m2;
			SbfView		in[2];

			sbf_filter_view(&f[0], &in[0]);
			sbf_filter_view(&f[1], &in[1]);
			CHECK_ST(sbf_union_many(&ab, in, 2, &spec, NULL, 0, &g_alloc), SBF_OK);
			sbf_filter_view(&ab, &in[0]);
			sbf_filter_view(&f[2], &in[1]);
			CHECK_ST(sbf_union_many(&m1, in, 2, &spec, NULL, 0, &g_alloc), SBF_OK);
			CHECK(same_bytes(&m1, &first));
			sbf_filter_view(&m1, &in[0]);
			CHECK_ST(sbf_union_many(&m2, in, 1, &merge, NULL, 0, &g_alloc), SBF_OK);
			sbf_filter_view(&m2, &in[0]);
			CHECK(in[0].nsegments == 3);
			sbf_filter_free(&ab);
			sbf_filter_free(&m1);
			sbf_filter_free(&m2);
		}
		sbf_filter_free(&first);
		for (i = 0; i < 3; i++)
			sbf_filter_view(&f[i], &v[i]);
	}
	for (i = 0; i < 3; i++)
		sbf_filter_free(&f[i]);
}

/* The budget: refuse over it with the bound, explicit rates, tightening 1. */
static void
union_budget(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfParams	q = params(1000, 0.05, 2, 0.9, 9);
	SbfParams	seed = params(100, 0.01, 2, 1.0, 9);
	SbfFilter	a;
	SbfFilter	b;
	SbfFilter	c;
	SbfView		va;
	SbfView		vb;
	double		bound = -1;
	double		pa = sbf_sized_error(0.01, 0.9);

	/* two right-sized filters spend e^1.04 each: over 0.01 */
	CHECK_ST(sbf_create_sized(&a, &p, 2000, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create_sized(&b, &p, 2000, 0, &g_alloc), SBF_OK);
	add_keys(&a, 30, 0, 2000);
	add_keys(&b, 31, 0, 2000);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK(sbf_union_mismatch(&va, &vb) == 0);
	{
		uint8_t    *before = malloc(a.len);
		size_t		blen = a.len;

		memcpy(before, SBF_PAYLOAD(&a), blen);
		CHECK_ST(sbf_union_budget(&a, &vb, 0.0, &bound), SBF_E_OVER_BUDGET);
		CHECK(bound == pa + pa);
		CHECK(a.len == blen && memcmp(before, SBF_PAYLOAD(&a), blen) == 0);
		free(before);
	}
	/* the plain union keeps 1.0's meaning: no check */
	CHECK_ST(sbf_copy(&c, &va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&c, &vb), SBF_OK);
	sbf_filter_free(&c);
	/* an explicit budget that fits: the result carries it */
	CHECK_ST(sbf_union_budget(&a, &vb, 0.0167, &bound), SBF_OK);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK(va.error_rate == 0.0167 && sbf_fpr_bound(&va) == bound);
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/* different error_rate: incompatible unless the union has its own */
	CHECK_ST(seg_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&b, &q, 0, &g_alloc), SBF_OK);
	add_keys(&a, 34, 0, 10);
	add_keys(&b, 35, 0, 10);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK(sbf_union_mismatch(&va, &vb) == SBF_DIFF_ERROR_RATE);
	CHECK_ST(sbf_union_budget(&a, &vb, 0.0, NULL), SBF_E_INCOMPATIBLE);
	CHECK_ST(sbf_union(&a, &vb), SBF_E_INCOMPATIBLE);
	CHECK_ST(sbf_union_budget(&a, &vb, 0.02, &bound), SBF_OK);
	/* the two first segments (errors 0.001 and 0.005) both stay */
	CHECK(fabs(bound - 0.006) < 1e-12);
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/* every other parameter in the mask */
	{
		SbfParams	g4 = params(1000, 0.02, 4, 0.5, 9);

		CHECK_ST(sbf_create(&a, &p, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_create(&b, &g4, 0, &g_alloc), SBF_OK);
		CHECK_ST(validate_filter(&a, &va), SBF_OK);
		CHECK_ST(validate_filter(&b, &vb), SBF_OK);
		CHECK(sbf_union_mismatch(&va, &vb) ==
			  (SBF_DIFF_ERROR_RATE | SBF_DIFF_GROWTH | SBF_DIFF_TIGHTENING));
		CHECK_ST(sbf_union_budget(&a, &vb, 0.3, NULL), SBF_E_INCOMPATIBLE);
		sbf_filter_free(&a);
		sbf_filter_free(&b);
	}

	/* an empty filter adds no segment; two empty ones stay one */
	CHECK_ST(sbf_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&b, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&c, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	CHECK(same_bytes(&a, &c));
	add_keys(&b, 36, 0, 10);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK_ST(sbf_union(&c, &vb), SBF_OK);
	CHECK(same_bytes(&b, &c));
	sbf_filter_free(&a);
	sbf_filter_free(&b);
	sbf_filter_free(&c);

	/* tightening 1: no compound bound, so no refusal */
	CHECK_ST(sbf_create(&a, &seed, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&b, &seed, 0, &g_alloc), SBF_OK);
	add_keys(&a, 32, 0, 1000);
	add_keys(&b, 33, 0, 1000);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK_ST(sbf_union_budget(&a, &vb, 0.0, &bound), SBF_OK);
	CHECK(bound > 0.05);
	sbf_filter_free(&a);
	sbf_filter_free(&b);
}

/*
 * Builds the crafted operand of the cancel test: n segments of w words,
 * every bit set except, when holes, the last word of each (which gets the
 * segment's number OR salt, so that no two segments are equal).
 */
static void
crafted(SbfFilter *f, uint32_t n, uint32_t w, bool holes, uint64_t salt)
{
	size_t		len = SBF_HEADER_BYTES + (size_t) n * (SBF_SEGDIR_BYTES + 8 * w);
	uint8_t    *buf = calloc(1, len);
	uint32_t	i;
	uint32_t	j;

	buf[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = 9;
	sbf_store16(buf + SBF_OFF_GROWTH, 1);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, (uint16_t) n);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, 0.01);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, 1.0);
	sbf_store64(buf + SBF_OFF_CAPACITY, 1000);
	for (i = 0; i < n; i++)
	{
		uint8_t    *e = buf + SBF_SEGDIR_OFFSET(i);
		uint8_t    *words = buf + SBF_SEGDIR_OFFSET(n) + (size_t) i * 8 * w;

		sbf_store64(e + SBF_SEG_CAPACITY, 1000);
		sbf_store64(e + SBF_SEG_COUNT, 1000);
		sbf_store64(e + SBF_SEG_NBITS, (uint64_t) w * 64);
		sbf_store_double(e + SBF_SEG_ERROR, 0.01);
		sbf_store16(e + SBF_SEG_K, 7);
		for (j = 0; j < w; j++)
			sbf_store64(words + 8 * j, holes && j == w - 1 ? (uint64_t) i | salt : UINT64_MAX);
	}
	f->base = NULL;
	CHECK_ST(sbf_copy(f, &(SbfView) {.buf = buf, .len = len}, 0, 0, &g_alloc), SBF_OK);
	free(buf);
}

/*
 * crafted() with no subsets among its segments: the last two words of
 * segment i are x = i | salt and ~x, so every segment has the same set-bit
 * count and differs from every other.
 */
static void
crafted_antichain(SbfFilter *f, uint32_t n, uint32_t w, uint64_t salt)
{
	uint8_t    *buf;
	uint32_t	i;

	crafted(f, n, w, false, 0);
	buf = SBF_PAYLOAD(f);
	for (i = 0; i < n; i++)
	{
		uint8_t    *words = buf + SBF_SEGDIR_OFFSET(n) + (size_t) i * 8 * w;

		sbf_store64(words + 8 * (w - 2), (uint64_t) i | salt);
		sbf_store64(words + 8 * (w - 1), ~((uint64_t) i | salt));
	}
}

/*
 * The crafted pair (2,048 segments of 512 words each side, all bits set but
 * the last word of each destination segment) that kept 1.0's union busy for
 * seconds: the plan compares no pair of segments word by word beyond
 * UNION_MAX_SCANS per segment, checks for interrupts, and finds everything.
 */
static void
union_crafted_pair(void)
{
	SbfFilter	a;
	SbfFilter	b;
	SbfView		va;
	SbfView		vb;
	uint64_t	before = g_interrupts;
	uint64_t	scans;
	clock_t		t0;
	double		secs;
	uint32_t	i;

	crafted(&a, 2048, 512, true, 0);
	crafted(&b, 2048, 512, false, 0);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	t0 = clock();
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	secs = (double) (clock() - t0) / CLOCKS_PER_SEC;
	printf("# crafted pair union: %.3f s (sanitizer build), %" PRIu64 " interrupt checks\n",
		   secs, g_interrupts - before);
	CHECK(g_interrupts - before >= 4096);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	/*
	 * b's segments are one (duplicates), and every segment of a is a subset
	 * of it: one all-ones segment remains, which answers yes to everything
	 */
	CHECK(va.nsegments == 1);
	for (i = 0; i < 1000; i++)
		CHECK(sbf_contains_hash(&va, key(40, i)));
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/*
	 * no subsets across the pair (bits 40 and 41 differ): every segment
	 * tries its candidates, at most UNION_MAX_SCANS word by word
	 */
	crafted(&a, 2048, 512, true, UINT64_C(1) << 40);
	crafted(&b, 2048, 512, true, UINT64_C(1) << 41);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	before = g_interrupts;
	scans = sbf_union_word_scans;
	t0 = clock();
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	secs = (double) (clock() - t0) / CLOCKS_PER_SEC;
	scans = sbf_union_word_scans - scans;
	printf("# crafted pair without subsets: %.3f s (sanitizer build), %" PRIu64
		   " interrupt checks, %" PRIu64 " word-by-word scans\n",
		   secs, g_interrupts - before, scans);
	CHECK(g_interrupts - before >= 4096);
	CHECK(scans <= (uint64_t) 4096 * 8);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK(va.nsegments >= 2 && va.nsegments <= 4096);
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/*
	 * an input that needs the cap: the last two words of segment i are
	 * x and ~x for a distinct x, so no segment is a subset of another, all
	 * have the same set-bit count (no count decides), and none fits another
	 * (they are fuller than their fill limit).  Each would be compared word
	 * by word with every earlier result segment, 8 million comparisons of
	 * 512 words; with the cap each makes at most 8, and almost all make 8.
	 */
	crafted_antichain(&a, 2048, 512, UINT64_C(1) << 40);
	crafted_antichain(&b, 2048, 512, UINT64_C(1) << 41);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	scans = sbf_union_word_scans;
	t0 = clock();
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	secs = (double) (clock() - t0) / CLOCKS_PER_SEC;
	scans = sbf_union_word_scans - scans;
	printf("# crafted antichain pair: %.3f s (sanitizer build), %" PRIu64 " word-by-word scans\n",
		   secs, scans);
	CHECK(scans > (uint64_t) 4096 * 7 && scans <= (uint64_t) 4096 * 8);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK(va.nsegments == 4096);
	sbf_filter_free(&a);
	sbf_filter_free(&b);
}

/* ---- format 2: exact form, counts, delta, format-1 values ---- */

/* sbf_create's empty filter is the 52-byte exact form; adds stay exact. */
static void
exact_small(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	uint64_t	i;
	uint64_t	fp = 0;
	bool		ins;

	CHECK_ST(sbf_create(&f, &p, 4, &g_alloc), SBF_OK);
	CHECK(f.len == SBF_EXACT_HEADER_BYTES);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(sbf_is_exact(&v) && v.version == 2 && v.nhashes == 0 && v.nsegments == 0);
	CHECK(sbf_cardinality(&v) == 0.0 && sbf_fpr_bound(&v) == 0.0);
	CHECK(strcmp(sbf_count_source(&v), "exact") == 0);
	add_keys(&f, 0, 0, 100);
	CHECK_ST(sbf_add_hash(&f, key(0, 7), &ins), SBF_OK);
	CHECK(!ins);
	CHECK(f.len == SBF_EXACT_HEADER_BYTES + 8 * 100);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(sbf_is_exact(&v) && v.nhashes == 100);
	CHECK(sbf_cardinality(&v) == 100.0);
	for (i = 1; i < v.nhashes; i++)
		CHECK(sbf_exact_hash(&v, i - 1) < sbf_exact_hash(&v, i));
	for (i = 0; i < 100; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	/* no false positives at all */
	for (i = 0; i < 200000; i++)
		fp += sbf_contains_hash(&v, key(1, i));
	CHECK(fp == 0);
	CHECK(sbf_current_fpr(&v) == 0.0);
	sbf_filter_free(&f);
}

/* A frozen exact payload: header fields and hashes at fixed offsets. */
static void
exact_golden(void)
{
	SbfParams	p = params(10, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	const uint8_t *b;

	CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, sbf_hash_int64(42), NULL), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, sbf_hash("a", 1), NULL), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	b = SBF_PAYLOAD(&f);
	CHECK(f.len == 52 + 16);
	CHECK(b[0] == 2 && b[1] == SBF_FLAG_EXACT && b[2] == 1 && b[3] == 9);
	CHECK(sbf_load16(b + 4) == 2 && sbf_load16(b + 6) == 0 && sbf_load32(b + 8) == 2);
	CHECK(sbf_load64(b + 28) == 10 && sbf_load64(b + 36) == 10);
	CHECK(sbf_load_double(b + 44) == sbf_next_error(0.01, 0.9, 0.0, 0.0));
	/* ascending: 0xe6c6... ("a") after the bigint 42's hash when smaller */
	CHECK(sbf_load64(b + 52) < sbf_load64(b + 60));
	CHECK((sbf_load64(b + 52) == sbf_hash("a", 1)) !=
		  (sbf_load64(b + 60) == sbf_hash("a", 1)));
	sbf_filter_free(&f);
}

/*
 * Growing by adds: the exact form is never larger than the 1.0 filter
 * (segmented from the start) with the same adds, and converts exactly once,
 * with no false negative at any step and an exact count while exact.  After
 * the conversion both are segmented; when each appends a segment depends on
 * its order-dependent false-positive skips, so the converted one may append
 * a few adds earlier: sizes are compared with a slack of 16 adds.
 */
static void
exact_conversion(void)
{
#define CONV_N 3000
#define CONV_SLACK 16
	static const uint64_t caps[] = {1, 10, 1000};
	static size_t newlen[CONV_N + CONV_SLACK + 1];
	static size_t oldlen[CONV_N + CONV_SLACK + 1];
	size_t		ci;

	for (ci = 0; ci < 3; ci++)
	{
		SbfParams	p = params(caps[ci], 0.01, 2, 0.9, 9);
		SbfFilter	f;
		SbfFilter	old;
		SbfView		v;
		uint64_t	n;
		uint64_t	converted_at = 0;
		uint64_t	i;

		CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
		CHECK_ST(seg_create(&old, &p, 0, &g_alloc), SBF_OK);
		for (n = 1; n <= CONV_N + CONV_SLACK; n++)
		{
			add_keys(&f, 0, n - 1, n);
			add_keys(&old, 0, n - 1, n);
			newlen[n] = f.len;
			oldlen[n] = old.len;
			sbf_filter_view(&f, &v);
			if (sbf_is_exact(&v))
			{
				CHECK(converted_at == 0);
				CHECK(f.len <= old.len);
				CHECK(v.nhashes == n && sbf_cardinality(&v) == (double) n);
			}
			else if (converted_at == 0)
			{
				converted_at = n;
				CHECK_ST(validate_filter(&f, &v), SBF_OK);
				for (i = 0; i < n; i++)
					CHECK(sbf_contains_hash(&v, key(0, i)));
			}
		}
		for (n = 1; n <= CONV_N; n++)
			CHECK(newlen[n] <= oldlen[n + CONV_SLACK]);
		CHECK(converted_at > 0);
		if (caps[ci] == 1000)
			CHECK(converted_at > 100);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		for (i = 0; i < CONV_N; i++)
			CHECK(sbf_contains_hash(&v, key(0, i)));
		fprintf(stderr, "# capacity %" PRIu64 ": exact until %" PRIu64 " elements\n",
				caps[ci], converted_at - 1);
		sbf_filter_free(&f);
		sbf_filter_free(&old);
	}
}

/*
 * The batch add from the exact form is the one-by-one add, byte for byte:
 * unsorted, ascending (sbf_exact_add_run's runs), ascending with repeats and
 * with hashes the filter holds already, from an empty and from a non-empty
 * exact filter, with a sparse and a quickly dense HyperLogLog.
 */
static int
exact_batch_cmp(const void *pa, const void *pb)
{
	uint64_t	a = *(const uint64_t *) pa;
	uint64_t	b = *(const uint64_t *) pb;

	return (a > b) - (a < b);
}

static void
exact_batch(void)
{
	static const uint64_t sizes[] = {1, 14, 15, 40, 300, 2048, 2049, 5000};
	static const int hllp[] = {9, 4};
	size_t		si;
	int			order;
	int			pi;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (order = 0; order < 4; order++)
			for (pi = 0; pi < 2; pi++)
			{
				SbfParams	p = params(1000, 0.01, 2, 0.9, hllp[pi]);
				uint64_t	n = sizes[si];
				uint64_t   *h = malloc(n * 8);
				SbfFilter	a;
				SbfFilter	b;
				uint64_t	i;

				for (i = 0; i < n; i++)
					h[i] = order == 2 ? key(3, i / 2) : key(3, i);
				if (order >= 1)
					qsort(h, n, 8, exact_batch_cmp);
				CHECK_ST(sbf_create_sized(&a, &p, n, 0, &g_alloc), SBF_OK);
				CHECK_ST(sbf_create_sized(&b, &p, n, 0, &g_alloc), SBF_OK);
				if (order == 3)
				{
					/* some of the batch is there already, and some is not */
					for (i = 0; i < n; i += 3)
					{
						CHECK_ST(sbf_add_hash(&a, h[i], NULL), SBF_OK);
						CHECK_ST(sbf_add_hash(&b, h[i], NULL), SBF_OK);
					}
					add_keys(&a, 4, 0, 5);
					add_keys(&b, 4, 0, 5);
				}
				CHECK_ST(sbf_add_hashes(&a, h, n), SBF_OK);
				for (i = 0; i < n; i++)
					CHECK_ST(sbf_add_hash(&b, h[i], NULL), SBF_OK);
				CHECK(a.len == b.len && memcmp(SBF_PAYLOAD(&a), SBF_PAYLOAD(&b), a.len) == 0);
				free(h);
				sbf_filter_free(&a);
				sbf_filter_free(&b);
			}
}

/* The validator rejects every malformed exact form. */
static void
exact_rejects(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	uint8_t    *b;
	uint8_t    *buf;
	size_t		len;
	size_t		i;

	CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 3);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	len = f.len;
	buf = SBF_PAYLOAD(&f);
	b = malloc(len + 8);
	for (i = 0; i < len; i++)
		CHECK(validate_copy(buf, i) != SBF_OK);
	memcpy(b, buf, len);
	memset(b + len, 0, 8);
	CHECK(validate_copy(b, len + 8) != SBF_OK);

#define MUTATE(stmt, expected) \
	do { \
		memcpy(b, buf, len); \
		stmt; \
		CHECK_ST(validate_copy(b, len), expected); \
	} while (0)
	MUTATE((void) 0, SBF_OK);
	MUTATE(b[1] |= SBF_FLAG_CHAIN, SBF_OK);
	MUTATE(b[0] = 1, SBF_E_FLAGS);
	MUTATE(b[1] |= SBF_FLAG_HLL_DENSE, SBF_E_FLAGS);
	MUTATE(b[1] |= SBF_FLAG_OVERLAP, SBF_E_FLAGS);
	MUTATE(b[1] |= 0x40, SBF_E_FLAGS);
	MUTATE(b[6] = 1, SBF_E_FLAGS);
	MUTATE(b[8] = 2, SBF_E_LENGTH);
	MUTATE(b[8] = 4, SBF_E_TRUNCATED);
	MUTATE(sbf_store32(b + 8, SBF_EXACT_MAX + 1), SBF_E_EXACT);
	MUTATE(sbf_store64(b + 36, 0), SBF_E_EXACT);
	MUTATE(sbf_store64(b + 36, UINT64_C(1) << 62), SBF_E_EXACT);
	MUTATE(sbf_store_double(b + 44, 0.5), SBF_E_EXACT);
	MUTATE(sbf_store_double(b + 44, NAN), SBF_E_EXACT);
	MUTATE(sbf_store_double(b + 44, 0.0), SBF_E_EXACT);
	MUTATE(sbf_store_double(b + 12, 0.6), SBF_E_PARAM);
	/* hashes out of order, or a duplicate */
	MUTATE((sbf_store64(b + 52, sbf_load64(buf + 60)),
			sbf_store64(b + 60, sbf_load64(buf + 52))), SBF_E_EXACT);
	MUTATE(sbf_store64(b + 60, sbf_load64(buf + 52)), SBF_E_EXACT);
#undef MUTATE
	free(b);
	sbf_filter_free(&f);
}

/*
 * Unions with an exact side are exact: two exact operands merge their
 * lists (the same bytes in either order), an exact one adds its hashes to a
 * segmented one (the same bytes in either order, directory count kept).
 */
static void
exact_union(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	a;
	SbfFilter	b;
	SbfFilter	c;
	SbfFilter	d;
	SbfView		va;
	SbfView		vb;
	SbfView		v;
	uint64_t	i;

	CHECK_ST(sbf_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&b, &p, 0, &g_alloc), SBF_OK);
	add_keys(&a, 0, 0, 60);
	add_keys(&b, 0, 40, 100);
	sbf_filter_view(&a, &va);
	sbf_filter_view(&b, &vb);
	CHECK_ST(sbf_copy(&c, &va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_copy(&d, &vb, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&c, &vb), SBF_OK);
	CHECK_ST(sbf_union(&d, &va), SBF_OK);
	CHECK(c.len == d.len && memcmp(SBF_PAYLOAD(&c), SBF_PAYLOAD(&d), c.len) == 0);
	CHECK_ST(validate_filter(&c, &v), SBF_OK);
	CHECK(sbf_is_exact(&v) && sbf_cardinality(&v) == 100.0);
	/* f UNION f = f */
	sbf_filter_free(&d);
	CHECK_ST(sbf_copy(&d, &v, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&d, &v), SBF_OK);
	CHECK(c.len == d.len && memcmp(SBF_PAYLOAD(&c), SBF_PAYLOAD(&d), c.len) == 0);
	sbf_filter_free(&d);

	/* big exact operands convert; no false negatives */
	sbf_filter_free(&a);
	sbf_filter_free(&b);
	CHECK_ST(sbf_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&b, &p, 0, &g_alloc), SBF_OK);
	add_keys(&a, 0, 0, 150);
	add_keys(&b, 0, 150, 300);
	sbf_filter_view(&a, &va);
	sbf_filter_view(&b, &vb);
	CHECK(sbf_is_exact(&va) && sbf_is_exact(&vb));
	CHECK_ST(sbf_copy(&d, &va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&d, &vb), SBF_OK);
	CHECK_ST(validate_filter(&d, &v), SBF_OK);
	CHECK(!sbf_is_exact(&v));
	CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
	for (i = 0; i < 300; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	sbf_filter_free(&d);

	/* exact with segmented, both orders */
	sbf_filter_free(&b);
	CHECK_ST(seg_create(&b, &p, 0, &g_alloc), SBF_OK);
	add_keys(&b, 0, 1000, 5000);
	sbf_filter_view(&b, &vb);
	CHECK_ST(sbf_copy(&d, &va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&d, &vb), SBF_OK);
	sbf_filter_free(&c);
	CHECK_ST(sbf_copy(&c, &vb, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&c, &va), SBF_OK);
	CHECK(c.len == d.len && memcmp(SBF_PAYLOAD(&c), SBF_PAYLOAD(&d), c.len) == 0);
	CHECK_ST(validate_filter(&c, &v), SBF_OK);
	CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
	for (i = 0; i < 150; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	for (i = 1000; i < 5000; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	/*
	 * a union whose result has the segments of an input without OVERLAP
	 * (here big's: small's lie in them) keeps the directory count, in
	 * either order, with the same bytes
	 */
	{
		SbfFilter	big;
		SbfFilter	small;
		SbfFilter	x;
		SbfFilter	y;
		SbfView		vbig;
		SbfView		vsmall;

		CHECK_ST(seg_create(&small, &p, 0, &g_alloc), SBF_OK);
		add_keys(&small, 0, 0, 500);
		sbf_filter_view(&small, &vsmall);
		CHECK_ST(sbf_copy(&big, &vsmall, 0, 0, &g_alloc), SBF_OK);
		add_keys(&big, 0, 500, 3000);
		sbf_filter_view(&big, &vbig);
		CHECK_ST(sbf_copy(&x, &vbig, 0, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_union(&x, &vsmall), SBF_OK);
		CHECK_ST(sbf_copy(&y, &vsmall, 0, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_union(&y, &vbig), SBF_OK);
		sbf_filter_view(&x, &v);
		CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
		CHECK(fabs(sbf_cardinality(&v) - 3000.0) < 30.0);
		CHECK(same_bytes(&x, &y));
		/* the result's segments are big's, byte for byte */
		CHECK(memcmp(SBF_PAYLOAD(&x) + SBF_SEGDIR_OFFSET(0),
					 vbig.buf + SBF_SEGDIR_OFFSET(0),
					 vbig.hll_offset - SBF_SEGDIR_OFFSET(0)) == 0);
		sbf_filter_free(&big);
		sbf_filter_free(&small);
		sbf_filter_free(&x);
		sbf_filter_free(&y);
	}
	/* two segmented operands: the HyperLogLog answers */
	CHECK_ST(sbf_union(&c, &vb), SBF_OK);
	CHECK_ST(validate_filter(&c, &v), SBF_OK);
	CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
	sbf_filter_free(&d);
	CHECK_ST(seg_create(&d, &p, 0, &g_alloc), SBF_OK);
	add_keys(&d, 0, 4000, 9000);
	sbf_filter_view(&d, &v);
	CHECK_ST(sbf_union(&c, &v), SBF_OK);
	CHECK_ST(validate_filter(&c, &v), SBF_OK);
	CHECK(strcmp(sbf_count_source(&v), "hll") == 0);
	sbf_filter_free(&a);
	sbf_filter_free(&b);
	sbf_filter_free(&c);
	sbf_filter_free(&d);
}

/*
 * A format-1 value (the frozen golden payload of 1.0) reads, answers with
 * the HyperLogLog, and grows: a write relabels it version 2 with OVERLAP.
 */
static void
format1_values(void)
{
	SbfParams	p = params(10, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfFilter	g;
	SbfView		v;
	SbfView		v1;
	uint8_t    *one;
	size_t		len;
	double		card;
	uint64_t	i;

	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, sbf_hash("a", 1), NULL), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, sbf_hash_int64(42), NULL), SBF_OK);
	len = f.len;
	one = malloc(len);
	memcpy(one, SBF_PAYLOAD(&f), len);
	one[0] = 1;
	CHECK(sbf_hash(one, len) == UINT64_C(0xd5ec27e209cbc51d));
	CHECK_ST(sbf_validate(one, len, &v1), SBF_OK);
	CHECK(v1.version == 1 && strcmp(sbf_count_source(&v1), "hll") == 0);
	CHECK(sbf_contains_hash(&v1, sbf_hash("a", 1)));
	card = sbf_cardinality(&v1);
	CHECK(card == sbf_hll_cardinality(&v1));
	/* grows */
	CHECK_ST(sbf_copy(&g, &v1, 0, 0, &g_alloc), SBF_OK);
	add_keys(&g, 0, 0, 100);
	CHECK_ST(validate_filter(&g, &v), SBF_OK);
	CHECK(v.version == 2 && (v.flags & SBF_FLAG_OVERLAP) && v.nsegments > 1);
	CHECK(sbf_contains_hash(&v, sbf_hash("a", 1)) && sbf_contains_hash(&v, sbf_hash_int64(42)));
	for (i = 0; i < 100; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	/* unites with version 2 either way */
	sbf_filter_free(&g);
	CHECK_ST(sbf_create(&g, &p, 0, &g_alloc), SBF_OK);
	add_keys(&g, 0, 0, 3);
	CHECK_ST(sbf_union(&g, &v1), SBF_OK);
	CHECK_ST(validate_filter(&g, &v), SBF_OK);
	CHECK(v.version == 2 && sbf_contains_hash(&v, sbf_hash("a", 1)) &&
		  sbf_contains_hash(&v, key(0, 2)));
	sbf_filter_free(&g);
	CHECK_ST(sbf_copy(&g, &v1, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&g, &v1), SBF_OK);
	CHECK_ST(validate_filter(&g, &v), SBF_OK);
	CHECK(v.version == 2 && (v.flags & SBF_FLAG_OVERLAP));
	sbf_filter_free(&g);
	free(one);
	sbf_filter_free(&f);
}

/*
 * A filter written by sbf 1.0, in its text form: SELECT sbf_agg('o' || i)
 * FROM generate_series(1, 20) i.  It must read, answer as 1.0 did (the
 * HyperLogLog's count, 20), and grow.
 */
static const char v1_agg20[] =
	"sbf1:AQABCQIAAQBQAAAAexSuR+F6hD/NzMzMzMzsP+gDAAAAAAAAFAAAAAAAAAAUAAAAAAAAAMgAAAAAAAAAVjeXb9YIgT8HAAAAAAAAAKVJVQ+txbt9cO7qVCMzeWxBoalMC8sLnoAAAAAAAAAAAQAAAAEgAAADLwAAAWYAAAKVAAABzQAAA88AAAT1AAAFBAEAATABAAI5AQABOwEAAUsBAAOOAQABwAEAAskBAAHKAQADzAEABM8BAAHuAQA=";

/* The 1.0 text value above reads, answers and grows. */
static void
format1_text_vector(void)
{
	size_t		tlen = strlen(v1_agg20);
	uint8_t    *raw = malloc(sbf_text_decoded_max(tlen) + 1);
	size_t		len;
	SbfView		v;
	SbfFilter	f;
	char		key[8];
	int			i;

	CHECK(sbf_text_decode(v1_agg20, tlen, raw, &len));
	CHECK_ST(sbf_validate(raw, len, &v), SBF_OK);
	CHECK(v.version == 1 && v.nsegments == 1 && !sbf_is_exact(&v));
	CHECK(llround(sbf_cardinality(&v)) == 20);
	CHECK(strcmp(sbf_count_source(&v), "hll") == 0);
	for (i = 1; i <= 20; i++)
	{
		int			n = snprintf(key, sizeof(key), "o%d", i);

		CHECK(sbf_contains_hash(&v, sbf_hash(key, (size_t) n)));
	}
	CHECK_ST(sbf_copy(&f, &v, 0, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 500);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.version == 2 && v.nsegments > 1 && (v.flags & SBF_FLAG_OVERLAP));
	for (i = 1; i <= 20; i++)
	{
		int			n = snprintf(key, sizeof(key), "o%d", i);

		CHECK(sbf_contains_hash(&v, sbf_hash(key, (size_t) n)));
	}
	sbf_filter_free(&f);
	free(raw);
}

/*
 * sbf_delta continues the chain: its first segment is what f appends next,
 * and f UNION delta keeps the bound <= error_rate however far both grow.
 */
static void
delta_chain(void)
{
	static const double rs[] = {0.5, 0.9};
	size_t		ri;

	for (ri = 0; ri < 2; ri++)
	{
		SbfParams	p = params(100, 0.01, 2, rs[ri], 9);
		SbfFilter	f;
		SbfFilter	d;
		SbfFilter	next;
		SbfView		v;
		SbfView		vd;
		SbfSegment	seg;
		SbfSegment	want;
		uint64_t	i;
		int			round;

		CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
		add_keys(&f, 0, 0, 1000);
		for (round = 0; round < 4; round++)
		{
			sbf_filter_view(&f, &v);
			CHECK_ST(sbf_delta(&d, &v, 0, &g_alloc), SBF_OK);
			CHECK_ST(validate_filter(&d, &vd), SBF_OK);
			CHECK(sbf_is_exact(&vd) && (vd.flags & SBF_FLAG_CHAIN) && vd.nhashes == 0);
			/* what f would append next */
			CHECK_ST(sbf_copy(&next, &v, 0, 0, &g_alloc), SBF_OK);
			for (i = 0;; i++)
			{
				SbfView		vn;

				CHECK_ST(sbf_add_hash(&next, key(5 + round, i), NULL), SBF_OK);
				sbf_filter_view(&next, &vn);
				if (vn.nsegments > v.nsegments)
				{
					sbf_read_segment(vn.buf, v.nsegments, &want);
					break;
				}
			}
			sbf_filter_free(&next);
			CHECK(vd.first_capacity == want.capacity && vd.first_error == want.error);
			/* the delta grows past its first segment */
			add_keys(&d, 1, (uint64_t) round * 100000,
					 (uint64_t) round * 100000 + want.capacity * 4);
			CHECK_ST(validate_filter(&d, &vd), SBF_OK);
			CHECK(vd.nsegments >= 2);
			sbf_read_segment(vd.buf, 0, &seg);
			CHECK(seg.capacity == want.capacity && seg.nbits == want.nbits);
			CHECK_ST(sbf_union(&f, &vd), SBF_OK);
			CHECK_ST(validate_filter(&f, &v), SBF_OK);
			CHECK(sbf_fpr_bound(&v) <= 0.01);
			for (i = 0; i < want.capacity * 4; i++)
				CHECK(sbf_contains_hash(&v, key(1, (uint64_t) round * 100000 + i)));
			sbf_filter_free(&d);
		}
		for (i = 0; i < 1000; i++)
			CHECK(sbf_contains_hash(&v, key(0, i)));
		fprintf(stderr, "# r=%.1f: %u segments after 4 delta merges, bound %.5f\n",
				rs[ri], (unsigned) v.nsegments, sbf_fpr_bound(&v));
		sbf_filter_free(&f);
	}
}

/*
 * Directory counts: sbf_agg's path (sized, batch) within 0.1% at 1e6, adds
 * one at a time within 1% at 1e5 (1e6: test/study, count).
 */
static void
directory_counts(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	uint64_t	n = 1000000;
	uint64_t   *h = malloc(n * 8);
	SbfFilter	f;
	SbfView		v;
	uint64_t	i;
	double		est;

	for (i = 0; i < n; i++)
		h[i] = key(2, i);
	CHECK_ST(sbf_create_sized(&f, &p, n, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hashes(&f, h, n), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	est = sbf_cardinality(&v);
	fprintf(stderr, "# sized 1e6: directory %.0f (%+.4f%%), hll %.0f\n", est,
			100.0 * (est - (double) n) / (double) n, sbf_hll_cardinality(&v));
	CHECK(fabs(est - (double) n) <= 0.001 * (double) n);
	sbf_filter_free(&f);

	n = 100000;
	CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
	for (i = 0; i < n; i++)
		CHECK_ST(sbf_add_hash(&f, h[i], NULL), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	est = sbf_cardinality(&v);
	fprintf(stderr, "# grown 1e5: directory %.0f (%+.4f%%), hll %.0f\n", est,
			100.0 * (est - (double) n) / (double) n, sbf_hll_cardinality(&v));
	CHECK(fabs(est - (double) n) <= 0.01 * (double) n);
	sbf_filter_free(&f);
	free(h);
}

/* Unites a copy of x with y (sbf_union) into *out. */
static void
union_copy(SbfFilter *out, const SbfFilter *x, const SbfFilter *y)
{
	SbfView		vx;
	SbfView		vy;

	sbf_filter_view(x, &vx);
	sbf_filter_view(y, &vy);
	CHECK_ST(sbf_copy(out, &vx, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(out, &vy), SBF_OK);
}

/*
 * Canonical unions with exact inputs: both orders give the same bytes for
 * exact operands of different first segments (header rule: larger first
 * capacity), exact with segmented, sbf_delta's pattern, OVERLAP both ways,
 * and sbf_union_many over every order of mixed inputs.
 */
static void
union_exact_canonical(void)
{
	static const int orders[6][3] = {
		{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}
	};
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfParams	q = params(1000, 0.01, 2, 0.9, 12);
	SbfFilter	a;
	SbfFilter	b;
	SbfFilter	s;
	SbfFilter	t;
	SbfFilter	x;
	SbfFilter	y;
	SbfFilter	d;
	SbfView		v;
	SbfView		in[3];
	SbfView		vs;
	uint64_t	i;
	int			o;

	/* exact, different first segments and hll_p */
	CHECK_ST(sbf_create_sized(&a, &p, 400, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&b, &q, 0, &g_alloc), SBF_OK);
	add_keys(&a, 50, 0, 20);
	add_keys(&b, 50, 10, 40);
	sbf_filter_view(&a, &v);
	CHECK(sbf_is_exact(&v) && v.first_capacity == 400);
	sbf_filter_view(&b, &v);
	CHECK(sbf_is_exact(&v) && v.first_capacity == 1000);
	union_copy(&x, &a, &b);
	union_copy(&y, &b, &a);
	CHECK(same_bytes(&x, &y));
	CHECK_ST(validate_filter(&x, &v), SBF_OK);
	CHECK(sbf_is_exact(&v) && v.nhashes == 40 && v.first_capacity == 1000 &&
		  v.hll_p == 9 && v.capacity == 1000);
	CHECK(v.first_error == sbf_next_error(0.01, 0.9, 0.0, 0.0));
	for (i = 0; i < 40; i++)
		CHECK(sbf_contains_hash(&v, key(50, i)));
	sbf_filter_free(&x);
	sbf_filter_free(&y);

	/* exact ones that convert: still the same bytes both ways */
	add_keys(&a, 51, 0, 400);
	add_keys(&b, 52, 0, 400);
	union_copy(&x, &a, &b);
	union_copy(&y, &b, &a);
	CHECK(same_bytes(&x, &y));
	CHECK_ST(validate_filter(&x, &v), SBF_OK);
	CHECK(!sbf_is_exact(&v) && !(v.flags & SBF_FLAG_OVERLAP));
	for (i = 0; i < 400; i++)
		CHECK(sbf_contains_hash(&v, key(51, i)) && sbf_contains_hash(&v, key(52, i)));
	sbf_filter_free(&x);
	sbf_filter_free(&y);
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/* two segmented, disjoint: OVERLAP both ways, same bytes */
	CHECK_ST(seg_create(&s, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&t, &p, 0, &g_alloc), SBF_OK);
	add_keys(&s, 53, 0, 3000);
	add_keys(&t, 54, 0, 500);
	union_copy(&x, &s, &t);
	union_copy(&y, &t, &s);
	CHECK(same_bytes(&x, &y));
	CHECK_ST(validate_filter(&x, &v), SBF_OK);
	CHECK(v.flags & SBF_FLAG_OVERLAP);
	CHECK(strcmp(sbf_count_source(&v), "hll") == 0);
	sbf_filter_free(&x);
	sbf_filter_free(&y);

	/* sbf_delta's pattern: f UNION delta keeps f's flags and directory count */
	sbf_filter_view(&s, &vs);
	CHECK_ST(sbf_delta(&d, &vs, 0, &g_alloc), SBF_OK);
	add_keys(&d, 55, 0, 30);
	union_copy(&x, &s, &d);
	union_copy(&y, &d, &s);
	CHECK(same_bytes(&x, &y));
	CHECK_ST(validate_filter(&x, &v), SBF_OK);
	CHECK(!(v.flags & (SBF_FLAG_OVERLAP | SBF_FLAG_CHAIN)));
	CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
	CHECK(fabs(sbf_cardinality(&v) - 3030.0) < 30.0);
	for (i = 0; i < 30; i++)
		CHECK(sbf_contains_hash(&v, key(55, i)));
	sbf_filter_free(&x);
	sbf_filter_free(&y);

	/* sbf_union_many: two exact and one segmented, every order */
	CHECK_ST(sbf_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create_sized(&b, &p, 1500, 0, &g_alloc), SBF_OK);
	add_keys(&a, 56, 0, 50);
	add_keys(&b, 57, 0, 50);
	sbf_filter_view(&a, &v);
	CHECK(sbf_is_exact(&v));
	sbf_filter_view(&b, &v);
	CHECK(sbf_is_exact(&v));
	for (o = 0; o < 2; o++)
	{
		SbfUnionSpec spec = {0.0, o == 1, o == 1};
		SbfFilter	first;
		int			k;

		for (k = 0; k < 6; k++)
		{
			SbfView		all[3];

			sbf_filter_view(&a, &all[0]);
			sbf_filter_view(&b, &all[1]);
			sbf_filter_view(&t, &all[2]);
			for (i = 0; i < 3; i++)
				in[i] = all[orders[k][i]];
			CHECK_ST(sbf_union_many(k == 0 ? &first : &x, in, 3, &spec, NULL, 0,
									&g_alloc), SBF_OK);
			if (k > 0)
			{
				CHECK(same_bytes(&first, &x));
				sbf_filter_free(&x);
			}
		}
		CHECK_ST(validate_filter(&first, &v), SBF_OK);
		for (i = 0; i < 50; i++)
			CHECK(sbf_contains_hash(&v, key(56, i)) && sbf_contains_hash(&v, key(57, i)));
		for (i = 0; i < 500; i++)
			CHECK(sbf_contains_hash(&v, key(54, i)));
		CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
		sbf_filter_free(&first);
	}

	/* an own error_rate and the exact result's first error; bound 0 */
	{
		SbfParams	r = params(1000, 0.05, 2, 0.9, 9);
		double		bound = -1.0;
		SbfView		va;

		CHECK_ST(sbf_create(&x, &r, 0, &g_alloc), SBF_OK);
		add_keys(&x, 58, 0, 5);
		sbf_filter_view(&a, &va);
		sbf_filter_view(&x, &v);
		CHECK_ST(sbf_union_budget(&x, &va, 0.0, NULL), SBF_E_INCOMPATIBLE);
		CHECK_ST(sbf_union_budget(&x, &va, 0.02, &bound), SBF_OK);
		CHECK_ST(validate_filter(&x, &v), SBF_OK);
		CHECK(sbf_is_exact(&v) && bound == 0.0 && v.error_rate == 0.02 &&
			  v.nhashes == 55);
		/* a's first segment (smaller error) is picked, never scaled up */
		CHECK(v.first_error == sbf_next_error(0.01, 0.9, 0.0, 0.0));
		sbf_filter_free(&x);
		/* a smaller own error_rate scales the picked first error down */
		CHECK_ST(sbf_create(&x, &r, 0, &g_alloc), SBF_OK);
		add_keys(&x, 58, 0, 5);
		CHECK_ST(sbf_union_budget(&x, &va, 0.005, &bound), SBF_OK);
		CHECK_ST(validate_filter(&x, &v), SBF_OK);
		CHECK(sbf_is_exact(&v) && bound == 0.0 && v.error_rate == 0.005);
		CHECK(fabs(v.first_error - sbf_next_error(0.005, 0.9, 0.0, 0.0)) < 1e-15);
		sbf_filter_free(&x);
	}
	sbf_filter_free(&a);
	sbf_filter_free(&b);
	sbf_filter_free(&d);
	sbf_filter_free(&s);
	sbf_filter_free(&t);
}

/* Every filter the tests made was freed. */
static void
no_leaks(void)
{
	CHECK(g_ctx.live == 0);
}

/* ---- the sorted hash set (sbf_hashset.c, sbf_hashset_codec.c) ---- */

/* qsort comparator for the reference sort-and-dedup. */
static int
ref_cmp64(const void *pa, const void *pb)
{
	uint64_t	a = *(const uint64_t *) pa;
	uint64_t	b = *(const uint64_t *) pb;

	return (a > b) - (a < b);
}

/* The reference: sorts in[0..n) into a new array and drops repeats. */
static uint64_t *
ref_sort_unique(const uint64_t *in, uint64_t n, uint64_t *nout)
{
	uint64_t   *a = malloc((n + 1) * sizeof(uint64_t));
	uint64_t	i;
	uint64_t	k = 0;

	memcpy(a, in, n * sizeof(uint64_t));
	qsort(a, n, sizeof(uint64_t), ref_cmp64);
	for (i = 0; i < n; i++)
		if (k == 0 || a[i] != a[k - 1])
			a[k++] = a[i];
	*nout = k;
	return a;
}

/*
 * Input pattern p of n hashes: 0 distinct uniform, 1 heavy repeats,
 * 2 clustered in a narrow range (one big bucket), 3 descending.
 */
static uint64_t *
hs_input(int p, uint64_t n)
{
	uint64_t   *a = malloc((n + 1) * sizeof(uint64_t));
	uint64_t	i;

	for (i = 0; i < n; i++)
	{
		if (p == 0)
			a[i] = key(7, i);
		else if (p == 1)
			a[i] = key(8, i % (n / 10 + 1));
		else if (p == 2)
			a[i] = UINT64_C(0x8000000000000000) + (key(9, i) & 0xFFFF);
		else
			a[i] = UINT64_MAX - i * 3;
	}
	return a;
}

/* The reference build: a right-sized filter, hashes added one at a time. */
static void
ref_build(const uint64_t *h, uint64_t n, const SbfParams *p, SbfFilter *f)
{
	uint64_t	i;

	CHECK_ST(sbf_create_sized(f, p, n > 0 ? n : 1, 4, &g_alloc), SBF_OK);
	for (i = 0; i < n; i++)
		CHECK_ST(sbf_add_hash(f, h[i], NULL), SBF_OK);
}

/*
 * The two-pass stream encoder (a spilled state's) gives sbf_hs_encode's
 * bytes: the statistics taken 7 hashes at a time, the code written 5 at a
 * time, so every chunk boundary falls inside a word of the code somewhere.
 */
static void
hs_stream_same(const SbfHashSet *s, bool with_rate, const uint8_t *buf, size_t size)
{
	SbfHsRiceStats st;
	SbfHsEncoder e;
	uint8_t    *sbuf = malloc(size);
	uint64_t	i;
	int			k;

	memset(&st, 0, sizeof(st));
	for (i = 0; i < s->nset; i += 7)
		sbf_hs_stats_add(&st, s->set + i, s->nset - i < 7 ? s->nset - i : 7);
	CHECK(st.n == s->nset);
	CHECK(sbf_hs_stats_size(&st, with_rate, &k) == size);
	CHECK(size < 3 || k == buf[2]);
	sbf_hs_encoder_start(&e, sbuf, size, st.n, k, with_rate, s->params.error_rate);
	for (i = 0; i < s->nset; i += 5)
		sbf_hs_encoder_add(&e, s->set + i, s->nset - i < 5 ? s->nset - i : 5);
	sbf_hs_encoder_finish(&e);
	CHECK(e.p == sbuf + size);
	CHECK(memcmp(sbuf, buf, size) == 0);
	free(sbuf);
}

/* Encodes s, validates and decodes the bytes; returns the decoded array. */
static uint64_t *
hs_roundtrip(SbfHashSet *s, bool with_rate, uint64_t *n, size_t *bytes)
{
	size_t		size;
	uint8_t    *buf;
	SbfHsView	v;
	uint64_t   *out;

	CHECK_ST(sbf_hs_encoded_size(s, with_rate, SIZE_MAX, &size), SBF_OK);
	buf = malloc(size);
	sbf_hs_encode(s, with_rate, buf, size);
	CHECK(sbf_hs_validate(buf, size, &v) == SBF_HS_OK);
	CHECK(v.count == s->nset);
	hs_stream_same(s, with_rate, buf, size);
	out = malloc((v.count + 1) * sizeof(uint64_t));
	sbf_hs_decode(&v, out);
	*n = v.count;
	*bytes = size;
	free(buf);
	return out;
}

/*
 * The engine against a plain sort-and-dedup: every pattern and size, at
 * thresholds that never stream, stream exactly at the switch, and stream
 * early.  A set that did not stream holds exactly the distinct hashes and
 * builds the reference filter byte for byte; a streamed one switched only
 * past its threshold and answers every hash it was given.
 */
static void
hashset_engine(void)
{
	static const uint64_t sizes[] = {0, 1, 7, 8, 9, 33, 100, 1000, 5000, 20000};
	static const uint64_t thresholds[] = {0, 64, 1000, 4096};
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		si;
	size_t		ti;
	int			pat;

	for (pat = 0; pat < 4; pat++)
		for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
			for (ti = 0; ti < sizeof(thresholds) / sizeof(thresholds[0]); ti++)
			{
				uint64_t	n = sizes[si];
				uint64_t   *in = hs_input(pat, n);
				uint64_t	nref;
				uint64_t   *ref = ref_sort_unique(in, n, &nref);
				SbfHsScratch sc = {NULL, 0, NULL, &g_alloc};
				SbfHashSet	s;
				SbfFilter	built;
				uint64_t	i;
				uint64_t	count;

				sbf_hs_init(&s, &g_alloc, &p, thresholds[ti]);
				for (i = 0; i < n; i++)
					CHECK_ST(sbf_hs_add(&s, in[i], (i & 1) ? &sc : NULL), SBF_OK);
				/* the build reads the set without flushing it */
				CHECK_ST(sbf_hs_build(&s, &p, 4, &g_alloc, &built), SBF_OK);
				CHECK_ST(sbf_hs_count(&s, &count), SBF_OK);
				CHECK(s.streaming == (thresholds[ti] != 0 && nref > thresholds[ti]));
				if (!s.streaming)
				{
					SbfFilter	rf;
					uint64_t	nd;
					size_t		bytes;
					uint64_t   *dec = hs_roundtrip(&s, (pat & 1) != 0, &nd, &bytes);

					CHECK(count == nref);
					CHECK(s.nset == nref && (nref == 0 || memcmp(s.set, ref, nref * 8) == 0));
					CHECK(nd == nref && (nref == 0 || memcmp(dec, ref, nref * 8) == 0));
					ref_build(ref, nref, &p, &rf);
					CHECK(rf.len == built.len &&
						  memcmp(SBF_PAYLOAD(&rf), SBF_PAYLOAD(&built), rf.len) == 0);
					sbf_filter_free(&rf);
					free(dec);
				}
				else
				{
					SbfView		v;
					SbfSegment	seg;

					CHECK(count == 0);
					CHECK_ST(sbf_validate(SBF_PAYLOAD(&built), built.len, &v), SBF_OK);
					sbf_get_segment(&v, 0, &seg);
					CHECK(seg.capacity > thresholds[ti]);
					for (i = 0; i < n; i++)
						CHECK(sbf_contains_hash(&v, in[i]));
					CHECK(built.len == s.stream.len &&
						  memcmp(SBF_PAYLOAD(&built), SBF_PAYLOAD(&s.stream), built.len) == 0);
				}
				sbf_filter_free(&built);
				sbf_hs_free(&s);
				sbf_hs_scratch_free(&sc);
				free(in);
				free(ref);
			}
}

/*
 * Unions: two halves of an input, split any way, unite to the set of the
 * whole (both orders), also when one or both sides streamed.
 */
static void
hashset_union(void)
{
	static const uint64_t thresholds[] = {0, 64, 3000};
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		ti;
	int			pat;

	for (pat = 0; pat < 4; pat++)
		for (ti = 0; ti < 3; ti++)
		{
			uint64_t	n = 5000;
			uint64_t   *in = hs_input(pat, n);
			uint64_t	nref;
			uint64_t   *ref = ref_sort_unique(in, n, &nref);
			uint64_t	split;

			for (split = 0; split <= n; split += 1250)
			{
				SbfHashSet	a;
				SbfHashSet	b;
				SbfHashSet	whole;
				uint64_t	i;

				sbf_hs_init(&a, &g_alloc, &p, thresholds[ti]);
				sbf_hs_init(&b, &g_alloc, &p, thresholds[ti]);
				sbf_hs_init(&whole, &g_alloc, &p, thresholds[ti]);
				for (i = 0; i < n; i++)
				{
					CHECK_ST(sbf_hs_add(i < split ? &a : &b, in[i], NULL), SBF_OK);
					CHECK_ST(sbf_hs_add(&whole, in[i], NULL), SBF_OK);
				}
				CHECK_ST(sbf_hs_union(&a, &b), SBF_OK);
				CHECK_ST(sbf_hs_flush(&a, NULL), SBF_OK);
				CHECK_ST(sbf_hs_flush(&whole, NULL), SBF_OK);
				CHECK(a.streaming == whole.streaming);
				if (!a.streaming)
					CHECK(a.nset == nref && (nref == 0 || memcmp(a.set, ref, nref * 8) == 0));
				else
				{
					SbfView		v;

					sbf_filter_view(&a.stream, &v);
					for (i = 0; i < n; i++)
						CHECK(sbf_contains_hash(&v, in[i]));
				}
				sbf_hs_free(&a);
				sbf_hs_free(&b);
				sbf_hs_free(&whole);
			}
			free(in);
			free(ref);
		}
}

/* Writes a hand-made hash set: count, k, then gaps as Rice codes. */
static size_t
hs_craft(uint8_t *buf, uint64_t count, int k, const uint64_t *gaps, int ngaps)
{
	size_t		bit = 0;
	int			i;

	memset(buf, 0, 256);
	buf[0] = 1;
	buf[2] = (uint8_t) k;
	sbf_store64(buf + 8, count);
	for (i = 0; i < ngaps; i++)
	{
		uint64_t	q = gaps[i] >> k;
		uint64_t	j;
		int			b;

		bit += q;				/* q zero bits */
		buf[16 + bit / 8] |= (uint8_t) (1u << (bit % 8));
		bit++;
		for (b = 0; b < k; b++, bit++)
			if ((gaps[i] >> b) & 1)
				buf[16 + bit / 8] |= (uint8_t) (1u << (bit % 8));
		(void) j;
	}
	return 16 + (bit + 7) / 8;
}

/*
 * The codec: sizes per hash, canonical bytes, and every defect the format
 * section lists rejected with its own error.
 */
static void
hashset_codec(void)
{
	static const uint64_t sizes[] = {1000, 2000, 100000, 1000000};
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	uint8_t		buf[256];
	uint8_t		bad[256];
	SbfHsView	v;
	size_t		len;
	size_t		i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		SbfHashSet	s;
		uint64_t	j;
		uint64_t	nd;
		size_t		bytes;
		uint64_t   *dec;

		sbf_hs_init(&s, &g_alloc, &p, 0);
		for (j = 0; j < sizes[i]; j++)
			CHECK_ST(sbf_hs_add(&s, key(11, j), NULL), SBF_OK);
		dec = hs_roundtrip(&s, false, &nd, &bytes);
		CHECK(nd == sizes[i] && memcmp(dec, s.set, nd * 8) == 0);
		printf("# sbf_hashset: %" PRIu64 " hashes, %zu bytes, %.3f bytes/hash\n",
			   sizes[i], bytes, (double) bytes / sizes[i]);
		CHECK((double) bytes / sizes[i] <= (sizes[i] <= 2000 ? 9.0 : 7.0));
		free(dec);
		sbf_hs_free(&s);
	}

	/* a valid hand-made value: hashes 5, 6, 100 with k = 2 */
	{
		uint64_t	g[] = {5, 1, 94};

		len = hs_craft(buf, 3, 2, g, 3);
		CHECK(sbf_hs_validate(buf, len, &v) == SBF_HS_OK);
		{
			uint64_t	out[3];

			sbf_hs_decode(&v, out);
			CHECK(out[0] == 5 && out[1] == 6 && out[2] == 100);
		}
		for (i = 0; i < len; i++)
			CHECK(sbf_hs_validate(buf, i, &v) != SBF_HS_OK);
		memcpy(bad, buf, len);
		bad[0] = 2;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_VERSION);
		memcpy(bad, buf, len);
		bad[1] = 4;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_FLAGS);
		bad[1] = SBF_HS_FLAG_FILTER;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_FLAGS);
		memcpy(bad, buf, len);
		bad[5] = 1;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_FLAGS);
		memcpy(bad, buf, len);
		bad[2] = 64;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_RICE);
		memcpy(bad, buf, len);
		sbf_store64(bad + 8, UINT64_C(1) << 40);
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_COUNT);
		memcpy(bad, buf, len);
		bad[len] = 0;
		CHECK(sbf_hs_validate(bad, len + 1, &v) == SBF_HS_E_TRAILING);
		memcpy(bad, buf, len);
		bad[len - 1] |= 0x80;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_PADDING);
		memcpy(bad, buf, len);
		bad[1] = SBF_HS_FLAG_RATE;	/* the rate would be read from the body */
		CHECK(sbf_hs_validate(bad, len, &v) != SBF_HS_OK);
	}
	/* a repeated hash: a zero gap after the first */
	{
		uint64_t	g[] = {5, 0, 94};

		len = hs_craft(buf, 3, 2, g, 3);
		CHECK(sbf_hs_validate(buf, len, &v) == SBF_HS_E_REPEAT);
	}
	/* descending: a gap that wraps past 2^64 - 1 */
	{
		uint64_t	g[] = {UINT64_MAX - 3, UINT64_C(1) << 62, 1};

		len = hs_craft(buf, 3, 61, g, 3);
		CHECK(sbf_hs_validate(buf, len, &v) == SBF_HS_E_ORDER);
	}
	/* fewer hashes in the body than the count */
	{
		uint64_t	g[] = {5, 1, 94};

		len = hs_craft(buf, 4, 2, g, 3);
		CHECK(sbf_hs_validate(buf, len, &v) == SBF_HS_E_TRUNCATED ||
			  sbf_hs_validate(buf, len, &v) == SBF_HS_E_COUNT);
	}
	/* the empty set: header only */
	len = hs_craft(buf, 0, 0, NULL, 0);
	CHECK(len == 16 && sbf_hs_validate(buf, len, &v) == SBF_HS_OK && v.count == 0);
	CHECK(strlen(sbf_hs_error_message(SBF_HS_E_ORDER)) > 10);
}

/*
 * Streamed sets encode as their filter (flag bit 1) and load back; sbf_agg's
 * 1.0 partial state round-trips in both modes and rejects its defects.
 */
static void
hashset_states(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	int			streamed;

	for (streamed = 0; streamed < 2; streamed++)
	{
		SbfHashSet	s;
		SbfHashSet	t;
		SbfHashSet	u;
		size_t		size;
		uint8_t    *buf;
		SbfHsView	v;
		SbfHsError	herr;
		SbfStatus	st;
		uint64_t	i;

		sbf_hs_init(&s, &g_alloc, &p, streamed ? 100 : 0);
		for (i = 0; i < 500; i++)
			CHECK_ST(sbf_hs_add(&s, key(12, i), NULL), SBF_OK);
		CHECK_ST(sbf_hs_encoded_size(&s, true, SIZE_MAX, &size), SBF_OK);
		CHECK(s.streaming == (streamed != 0));
		buf = malloc(size);
		sbf_hs_encode(&s, true, buf, size);
		CHECK(sbf_hs_validate(buf, size, &v) == SBF_HS_OK);
		CHECK(v.error_rate == 0.01);
		CHECK(((v.flags & SBF_HS_FLAG_FILTER) != 0) == (streamed != 0));
		sbf_hs_init(&t, &g_alloc, &p, streamed ? 100 : 0);
		CHECK_ST(sbf_hs_load(&t, &v, &herr), SBF_OK);
		CHECK(herr == SBF_HS_OK);
		CHECK(t.streaming == s.streaming);
		/* the same hashes, or the same filter byte for byte */
		if (t.streaming)
			CHECK(t.stream.len == s.stream.len &&
				  memcmp(SBF_PAYLOAD(&t.stream), SBF_PAYLOAD(&s.stream), s.stream.len) == 0);
		else
			CHECK(t.nset == 500 && s.nset == 500 &&
				  memcmp(t.set, s.set, 500 * sizeof(uint64_t)) == 0);
		CHECK_ST(sbf_hs_encoded_size(&s, false, 10, &size), SBF_E_TOO_LARGE);
		free(buf);

		CHECK_ST(sbf_hs_v1state_size(&s, &size), SBF_OK);
		buf = malloc(size + 8);
		sbf_hs_v1state_write(&s, buf);
		sbf_hs_init(&u, &g_alloc, &p, SBF_HS_AGG_THRESHOLD);
		CHECK(sbf_hs_v1state_read(&u, buf, size, &st) == SBF_HS_OK && st == SBF_OK);
		CHECK(u.streaming == s.streaming);
		if (!streamed)
		{
			CHECK(u.nset == 500 && memcmp(u.set, s.set, 500 * 8) == 0);
			memcpy(buf + size, buf + size - 8, 8);
			sbf_store64(buf + 16, 501);
			CHECK(sbf_hs_v1state_read(&t, buf, size + 8, &st) == SBF_HS_E_REPEAT);
			sbf_store64(buf + 16, 500);
			CHECK(sbf_hs_v1state_read(&t, buf, size - 1, &st) != SBF_HS_OK);
			buf[1] = 2;
			CHECK(sbf_hs_v1state_read(&t, buf, size, &st) == SBF_HS_E_FLAGS);
		}
		else
			CHECK(u.stream.len == s.stream.len &&
				  memcmp(SBF_PAYLOAD(&u.stream), SBF_PAYLOAD(&s.stream), s.stream.len) == 0);
		buf[0] = 9;
		CHECK(sbf_hs_v1state_read(&t, buf, size, &st) == SBF_HS_E_VERSION);
		free(buf);
		sbf_hs_free(&s);
		sbf_hs_free(&t);
		sbf_hs_free(&u);
	}
}

/* Encodes a set (flushed) into a new buffer; *size its length. */
static uint8_t *
hs_encode_new(SbfHashSet *s, size_t *size)
{
	uint8_t    *buf;

	CHECK_ST(sbf_hs_encoded_size(s, false, SIZE_MAX, size), SBF_OK);
	buf = malloc(*size);
	sbf_hs_encode(s, false, buf, *size);
	return buf;
}

/*
 * Merging an encoded set while it is decoded (sbf_hs_merge_coded) gives
 * what the union of the decoded sets gives: the same hashes, the same
 * streaming switch and the same filter bytes; a truncated body is a reading
 * error that leaves a valid set holding the destination's hashes.
 */
static void
hashset_merge_coded(void)
{
	static const uint64_t thresholds[] = {0, 64, 3000};
	static const uint64_t splits[] = {0, 1, 1000, 2500, 5000};
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		ti;
	size_t		si;
	int			pat;

	for (pat = 0; pat < 4; pat++)
		for (ti = 0; ti < 3; ti++)
			for (si = 0; si < 5; si++)
			{
				uint64_t	n = 5000;
				uint64_t	split = splits[si];
				uint64_t   *in = hs_input(pat, n);
				SbfHashSet	a;
				SbfHashSet	b;
				SbfHashSet	ref;
				SbfHashSet	src;
				SbfHsView	v;
				SbfHsError	e;
				uint8_t    *buf;
				size_t		size;
				uint64_t	i;

				sbf_hs_init(&a, &g_alloc, &p, thresholds[ti]);
				sbf_hs_init(&ref, &g_alloc, &p, thresholds[ti]);
				sbf_hs_init(&src, &g_alloc, &p, 0);
				/* the halves overlap: keys split/2 .. split are in both */
				for (i = 0; i < n; i++)
				{
					if (i <= split)
					{
						CHECK_ST(sbf_hs_add(&a, in[i], NULL), SBF_OK);
						CHECK_ST(sbf_hs_add(&ref, in[i], NULL), SBF_OK);
					}
					if (i >= split / 2)
						CHECK_ST(sbf_hs_add(&src, in[i], NULL), SBF_OK);
				}
				buf = hs_encode_new(&src, &size);
				CHECK(sbf_hs_parse(buf, size, &v) == SBF_HS_OK);
				CHECK_ST(sbf_hs_merge_coded(&a, &v, &e), SBF_OK);
				CHECK(e == SBF_HS_OK);
				CHECK_ST(sbf_hs_union(&ref, &src), SBF_OK);
				CHECK_ST(sbf_hs_flush(&ref, NULL), SBF_OK);
				CHECK_ST(sbf_hs_flush(&a, NULL), SBF_OK);
				CHECK(a.streaming == ref.streaming);
				if (a.streaming)
					CHECK(a.stream.len == ref.stream.len &&
						  memcmp(SBF_PAYLOAD(&a.stream), SBF_PAYLOAD(&ref.stream),
								 a.stream.len) == 0);
				else
					CHECK(a.nset == ref.nset &&
						  memcmp(a.set, ref.set, a.nset * sizeof(uint64_t)) == 0);

				/* a truncated body: an error, and b keeps its own hashes */
				sbf_hs_init(&b, &g_alloc, &p, 0);
				for (i = 0; i <= split; i++)
					CHECK_ST(sbf_hs_add(&b, in[i], NULL), SBF_OK);
				CHECK_ST(sbf_hs_flush(&b, NULL), SBF_OK);
				CHECK(sbf_hs_parse(buf, size - 1, &v) == SBF_HS_OK ||
					  sbf_hs_parse(buf, size - 1, &v) == SBF_HS_E_COUNT);
				if (sbf_hs_parse(buf, size - 1, &v) == SBF_HS_OK)
				{
					uint64_t	nb = b.nset;
					uint64_t   *own = malloc((nb + 1) * sizeof(uint64_t));
					uint64_t	j = 0;

					memcpy(own, b.set, nb * sizeof(uint64_t));
					CHECK_ST(sbf_hs_merge_coded(&b, &v, &e), SBF_OK);
					CHECK(e == SBF_HS_E_TRUNCATED);
					for (i = 1; i < b.nset; i++)
						CHECK(b.set[i - 1] < b.set[i]);
					for (i = 0; i < b.nset && j < nb; i++)
						j += b.set[i] == own[j];
					CHECK(j == nb);
					free(own);
				}
				sbf_hs_free(&b);
				free(buf);
				free(in);
				sbf_hs_free(&a);
				sbf_hs_free(&ref);
				sbf_hs_free(&src);
			}
}

/* A body of hashes 0 .. 4 nbytes - 1 at Rice parameter 0, 2 bits a hash. */
static uint8_t *
hs_dense(size_t nbytes, uint64_t count, size_t *len)
{
	uint8_t    *buf = malloc(16 + nbytes);

	memset(buf, 0, 16);
	buf[0] = 1;
	sbf_store64(buf + 8, count);
	memset(buf + 16, 0x55, nbytes);
	*len = 16 + nbytes;
	return buf;
}

/*
 * The decoded size is bounded by the body before anything is allocated (2
 * bits a hash at k = 0), and every loop over a crafted dense set, and every
 * run of adds into a filter of many segments, checks for interrupts by its
 * work (SBF_WORK_STRIDE hashes, or bit probes).
 */
static void
hashset_bounded_work(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		nbytes = (size_t) 1 << 18;
	uint64_t	n = (uint64_t) nbytes * 4;
	size_t		len;
	uint8_t    *buf = hs_dense(nbytes, n, &len);
	SbfHsView	v;
	SbfHsError	e;
	SbfHashSet	s;
	SbfFilter	f;
	SbfFilter	x;
	SbfView		xv;
	uint64_t	before;
	uint64_t	h[2048];
	size_t		size;
	uint64_t	i;

	/* the count rule: 4 hashes a byte at k = 0, one more is refused */
	CHECK(sbf_hs_validate(buf, len, &v) == SBF_HS_OK && v.count == n);
	sbf_store64(buf + 8, n + 1);
	CHECK(sbf_hs_parse(buf, len, &v) == SBF_HS_E_COUNT);
	buf[2] = 1;					/* k = 1: 2 bits a hash at least */
	CHECK(sbf_hs_parse(buf, len, &v) == SBF_HS_E_COUNT);
	sbf_store64(buf + 8, n);
	CHECK(sbf_hs_parse(buf, len, &v) == SBF_HS_OK);
	buf[2] = 0;

	/* validation, the merge into one array and the encoder: stride checks */
	before = g_interrupts;
	CHECK(sbf_hs_check(buf, len, &v, &g_alloc) == SBF_HS_OK);
	CHECK(g_interrupts - before >= n / SBF_WORK_STRIDE);
	sbf_hs_init(&s, &g_alloc, &p, 0);
	before = g_interrupts;
	CHECK_ST(sbf_hs_merge_coded(&s, &v, &e), SBF_OK);
	CHECK(e == SBF_HS_OK && s.nset == n && s.set[0] == 0 && s.set[n - 1] == n - 1);
	CHECK(g_interrupts - before >= n / SBF_WORK_STRIDE);
	/* the union with itself: no new hash, and the one array did not grow */
	CHECK_ST(sbf_hs_merge_coded(&s, &v, &e), SBF_OK);
	CHECK(e == SBF_HS_OK && s.nset == n && s.setcap == n);
	before = g_interrupts;
	CHECK_ST(sbf_hs_encoded_size(&s, false, SIZE_MAX, &size), SBF_OK);
	CHECK(size == len);
	CHECK(g_interrupts - before >= n / SBF_WORK_STRIDE);
	sbf_hs_free(&s);
	free(buf);

	/* one gap over 4 MB of zero bits: checked inside the gap too */
	buf = calloc(1, 16 + ((size_t) 1 << 22) + 1);
	buf[0] = 1;
	sbf_store64(buf + 8, 1);
	buf[16 + ((size_t) 1 << 22)] = 1;
	before = g_interrupts;
	CHECK(sbf_hs_check(buf, 16 + ((size_t) 1 << 22) + 1, &v, &g_alloc) == SBF_HS_OK);
	CHECK(g_interrupts - before >= 1);
	free(buf);

	/*
	 * adds into a filter of 4,000 segments (k = 7): an add probes every
	 * segment, so 2,048 hashes are 57 million probes, a check every 2^18
	 */
	crafted(&f, 4000, 1, true, 0);
	for (i = 0; i < 2048; i++)
		h[i] = key(14, i);
	before = g_interrupts;
	CHECK_ST(sbf_add_hashes(&f, h, 2048), SBF_OK);
	CHECK(g_interrupts - before >= (uint64_t) 2048 * 4000 * 7 / SBF_WORK_STRIDE);
	/* the union of an exact filter and that one adds its hashes: the same */
	p = params(1000, 0.01, 1, 1.0, 9);
	CHECK_ST(sbf_create(&x, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hashes(&x, h + 1024, 100), SBF_OK);
	CHECK_ST(validate_filter(&x, &xv), SBF_OK);
	CHECK(sbf_is_exact(&xv) && xv.nhashes == 100);
	before = g_interrupts;
	CHECK_ST(sbf_union(&f, &xv), SBF_OK);
	CHECK(g_interrupts - before >= (uint64_t) 100 * 4000 * 7 / SBF_WORK_STRIDE);
	sbf_filter_free(&x);
	sbf_filter_free(&f);
}

/* Allocation failures anywhere in the engine are reported, never crash. */
static void
hashset_nomem(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		limit;

	for (limit = 64; limit <= 65536; limit *= 4)
	{
		SbfHashSet	s;
		uint64_t	i;
		uint64_t	added;
		SbfStatus	st = SBF_OK;

		reset_counts(limit);
		sbf_hs_init(&s, &g_alloc, &p, 3000);
		for (i = 0; i < 20000 && st == SBF_OK; i++)
			st = sbf_hs_add(&s, key(13, i), NULL);
		CHECK(st == SBF_E_NOMEM);
		/* the add of key i - 1 failed; keys 0 .. i - 2 are in the set */
		added = i - 1;
		reset_counts(SIZE_MAX);
		/*
		 * a failed flush keeps its pending hashes: with memory back, the
		 * flush merges them, and the set holds exactly the added keys
		 */
		CHECK_ST(sbf_hs_flush(&s, NULL), SBF_OK);
		if (s.streaming)
		{
			SbfView		v;

			sbf_filter_view(&s.stream, &v);
			for (i = 0; i < added; i++)
				CHECK(sbf_contains_hash(&v, key(13, i)));
		}
		else
		{
			uint64_t   *in = malloc((added + 1) * sizeof(uint64_t));
			uint64_t	nref;
			uint64_t   *ref;

			for (i = 0; i < added; i++)
				in[i] = key(13, i);
			ref = ref_sort_unique(in, added, &nref);
			CHECK(s.nset == nref && memcmp(s.set, ref, nref * sizeof(uint64_t)) == 0);
			free(ref);
			free(in);
		}
		sbf_hs_free(&s);
	}
	reset_counts(SIZE_MAX);
}

int
main(void)
{
	RUN(hash_vectors);
	RUN(positions);
	RUN(sizing);
	RUN(params_check);
	RUN(golden_payload);
	RUN(no_false_negatives);
	RUN(segment_probes);
	RUN(count_contained);
	RUN(measured_fpr);
	RUN(seed000_mode);
	RUN(create_sized);
	RUN(add_duplicate);
	RUN(validate_rejects);
	RUN(parse_prefix);
	RUN(text_form);
	RUN(union_filters);
	RUN(union_idempotent);
	RUN(union_many_orders);
	RUN(union_budget);
	RUN(union_crafted_pair);
	RUN(batch_add);
	RUN(batch_add_large);
	RUN(hll_fold_exact);
	RUN(hll_canonical);
	RUN(hll_accuracy);
	RUN(too_large);
	RUN(limit_arithmetic);
	RUN(limit_create_boundary);
	RUN(limit_stored_values);
	RUN(error_underflow);
	RUN(out_of_memory);
	RUN(copy_filter);
	RUN(status_messages);
	RUN(hashset_engine);
	RUN(hashset_union);
	RUN(hashset_codec);
	RUN(hashset_states);
	RUN(hashset_nomem);
	RUN(hashset_merge_coded);
	RUN(hashset_bounded_work);
	RUN(fuzz_regressions);
	RUN(exact_small);
	RUN(exact_golden);
	RUN(exact_conversion);
	RUN(exact_batch);
	RUN(exact_rejects);
	RUN(exact_union);
	RUN(format1_values);
	RUN(format1_text_vector);
	RUN(delta_chain);
	RUN(directory_counts);
	RUN(union_exact_canonical);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
