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

#include "sbf_core.h"
#include "sbf_internal.h"

static int	n_passed;
static int	n_failed;
static bool case_ok;

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "  %s:%d: check failed: %s\n", \
					__FILE__, __LINE__, #cond); \
			case_ok = false; \
		} \
	} while (0)

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

#define RUN(fn) \
	do { \
		case_ok = true; \
		fn(); \
		if (case_ok) \
		{ \
			n_passed++; \
			printf("ok - %s\n", #fn); \
		} \
		else \
		{ \
			n_failed++; \
			printf("not ok - %s\n", #fn); \
		} \
		fflush(stdout); \
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

static CountingCtx g_ctx = {0, 0, 0, SIZE_MAX};
static const SbfAllocator g_alloc = {count_alloc, count_realloc, count_free, &g_ctx};

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
	MUTATE(b[0] = 3, SBF_E_VERSION);
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

/* Batch adds give exactly the bytes of one-by-one adds. */
static void
batch_add(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	static const size_t sizes[] = {0, 1, 50, 96, 97, 200, 5000};
	size_t		c;

	for (c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++)
	{
		size_t		n = sizes[c];
		uint64_t   *h = malloc((n + 1) * sizeof(uint64_t));
		SbfFilter	a;
		SbfFilter	b;
		size_t		i;
		int			start;

		for (i = 0; i < n; i++)
			h[i] = key(9, i % (n / 2 + 1));	/* with repeats */
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
	 * OR into a full one within its design load: still f UNION f = f
	 */
	p = params(100, 0.01, 1, 1.0, 9);
	for (i = 1; i <= 20; i++)
	{
		CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
		add_keys(&f, 11, 0, 300 + i);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		CHECK_ST(sbf_copy(&g, &v, 0, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_union(&f, &v), SBF_OK);
		CHECK(f.len == g.len && memcmp(SBF_PAYLOAD(&f), SBF_PAYLOAD(&g), f.len) == 0);
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
	sbf_get_segment(&va, 1, &s);
	CHECK(s.count == 1000);
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

	/* an appended segment that cannot be sized: P_2 underflows to 0 */
	p = params(1, 0.01, 1, 1e-300, 9);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, key(0, 0), NULL), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, key(0, 1), NULL), SBF_OK);
	blen = f.len;
	before = malloc(blen);
	memcpy(before, SBF_PAYLOAD(&f), blen);
	reset_counts(SIZE_MAX);
	CHECK_ST(sbf_add_hash(&f, key(0, 2), NULL), SBF_E_TOO_LARGE);
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

	for (s = SBF_OK; s <= SBF_E_NOMEM; s++)
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

/* The batch add from the exact form is the one-by-one add, byte for byte. */
static void
exact_batch(void)
{
	static const uint64_t sizes[] = {1, 14, 15, 40, 2048, 2049, 5000};
	size_t		si;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
		uint64_t	n = sizes[si];
		uint64_t   *h = malloc(n * 8);
		SbfFilter	a;
		SbfFilter	b;
		uint64_t	i;

		for (i = 0; i < n; i++)
			h[i] = key(3, i);
		CHECK_ST(sbf_create_sized(&a, &p, n, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_create_sized(&b, &p, n, 0, &g_alloc), SBF_OK);
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
	 * a segmented src whose segments lie in dst's changes no count; the
	 * other way round the segments may be kept side by side, so the
	 * HyperLogLog answers
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
		sbf_filter_view(&y, &v);
		CHECK(strcmp(sbf_count_source(&v), "hll") == 0);
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

/* Every filter the tests made was freed. */
static void
no_leaks(void)
{
	CHECK(g_ctx.live == 0);
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
	RUN(measured_fpr);
	RUN(seed000_mode);
	RUN(create_sized);
	RUN(add_duplicate);
	RUN(validate_rejects);
	RUN(parse_prefix);
	RUN(text_form);
	RUN(union_filters);
	RUN(union_idempotent);
	RUN(batch_add);
	RUN(hll_fold_exact);
	RUN(hll_canonical);
	RUN(hll_accuracy);
	RUN(too_large);
	RUN(out_of_memory);
	RUN(copy_filter);
	RUN(status_messages);
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
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
