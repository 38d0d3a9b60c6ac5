/*
 * test_format.c
 *	  Unit tests of the segmented form: hashing and bit positions, sizing and parameters, the
 *	  golden payload, adds and probes, the validator and the prefix parser, the
 *	  text form, copies, status messages, and replayed fuzz findings
 *	  (sbf_hash.c, sbf_filter.c, sbf_format.c, sbf_text.c, sbf_status.c).  Prints "ok - name" or "not ok - name" per case and one final
 *	  "N passed, N failed" line; exits non-zero on failure.  Everything is
 *	  deterministic: keys come from fixed sequences.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_hashset.h"
#include "sbf_internal.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

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
		/*
		 * growth 2 and 4 keep the budget; growth 1's small-p segments
		 * answer above their p (docs/sizing.md), and the bound says so
		 */
		CHECK(growths[gi] == 1 ? bound > 0.01 : bound <= 0.01 + 1e-12);
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
	/* five times e, or more where a full segment's bits answer above e */
	CHECK(sbf_fpr_bound(&v) >= 0.05 && sbf_fpr_bound(&v) < 0.055);
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
	/* version 4's entries carry a descriptor: a version-2 directory is not one */
	MUTATE(b[0] = 4, SBF_E_SEGMENT);
	/* version 5 is version 4's layout: the same */
	MUTATE(b[0] = 5, SBF_E_SEGMENT);
	MUTATE(b[0] = 6, SBF_E_VERSION);
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
	/*
	 * geometry no writer produces for the entry's capacity and error (1.4):
	 * 64 hashes where SIZING gives 7, an error SIZING would give far more
	 * bits, bits far below SIZING's; k one off and SIZING's own bits pass
	 */
	MUTATE(sbf_store16(b + seg1 + SBF_SEG_K, 64), SBF_E_SEGMENT);
	MUTATE(sbf_store16(b + seg1 + SBF_SEG_K, s1.k + 1), SBF_OK);
	MUTATE(sbf_store16(b + seg1 + SBF_SEG_K, s1.k - 1), SBF_OK);
	MUTATE(sbf_store64(b + seg1 + SBF_SEG_CAPACITY, s1.capacity * 3), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, 0.0), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, -0.001), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, 0.5), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, NAN), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, INFINITY), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + seg1 + SBF_SEG_ERROR, 1e-300), SBF_E_SEGMENT);
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
	/* a one-byte windowed value (version 3): refused without reading a flags byte */
	"Aw==",
	/*
	 * a version-5 value whose first segment is compact, at parameters 1.3's
	 * chain cannot be planned for: sbf_delta and adds keep the classical
	 * capacity (the fuzzer's sbf_delta had returned SBF_E_PARAM)
	 */
	"BQEBCQIABACAAQAAexSuR+F6hD/NzMzMzNUZGQMAAAAAAAAAMgAAAAAAAAAyAAAAAAAAAAAAAAAAAEk/MgAAAAAA"
	"AAAFEAAAAAAAAGQAAAAAAAAAZAAAAAAAAAD2U+Olm0ROP68FAAAAAAAAAQoAAAAAAADIAAAAAAAAAMgAAAAAAAAA"
	"kct/SL89Sz+JCwAAAAAAAAEKAAAAAAAAkAEAAAAAAAD6AAAAAAAAAGlq2VpfhEg/aRcAAAAAAAABCgAAAAAAACxT"
	"dklVS1Zk0wukyCGyALwwhDEu5IyqE39ei2YimsH+sgicdmNw8EWxwsdkHYIFsLF4RaC805Ghv4anq8G+qWMrafwu"
	"kcfbL9faQly2CwAAYwhXKeUVbi8FikApVH4ASmZLaRFIFM03FdgEjALlydU5f3Xp3fuQJnyoSgR/UDEY4N6bUqrG"
	"9Se1muPlyiWCBRpd4SdhZfEXdF1S7/n4+e+ZXiSSA7d97EueLFpXkljMjpTDm56nxhYn0iF52hr+lefFDjTU89P4"
	"uNNZ/i1iQPfPK+d3xlOiAKNDlyM5p3p3j+7qxxZCDfXKciqITSt3ZCjUq9vRV14kDsFDKhCWFiK7OBlVK2IAAJaR"
	"UG7tjOWaprD+gq1o+rD3w9gclNMsoYYj3w38rt4nJKvLQeB2qUAEqLnlF87ffMwOODKOkS8a5TJPwybdBDKls2+y"
	"hFN318Me08rzzulMJf49Ips7S4K178VMUCx9DR4VLfVk7ZpWCWTwlv1Z0b/MB8aNxL7vO2WhJtPkk78jhncqhX6f"
	"gpeb3L4cM9fPRUUgb7OxYVJx2Gc5HgRoBfw/fqRDoGpBAMMVAw2rwYJ5J2YPgulLIc4NOqRPiXT1Ayazo5O9YGI2"
	"NrKmYqIxJ8l5mNBgR5oIJEQGCQ4Tg4bnjv4ZHsrvxCaaM4Qw7+ug5RzU2rd6E9lbF5O+n26bjX8CKInRsixRkVBu"
	"7Yzlmqaw/oKtaPqw98PYHJTTLKGGI98N/K7eJySry0HgdqlABKi55RfO33zMDjgyjpEvGuUyT8Mm3QQypbNvsoRT"
	"d9fDHtPK887pTCX+PSKbA+ZRzHPLJWmG9lrGWwmO2JNXcVGwFgAAAAAAAABhRCciIg0rHZ8EVYuOUWKFMzWE+4Aq"
	"Y0DQBMAZxpIIoxgUQDcUgFQACUZxCMANEGouA04j8oPrRyCQskA0GUAA9CliEkDtLSIKwuAIgoLEhACr2gkojgwx"
	"i4jA2qOHKCDkUsMVaLFOIigHFIAIkAosENQFEYUogqDISBiqJkgokAFBDDsOEwO4SRdIRAMjZdsocCLQUgSJjiAu"
	"OGvTHwCkAh8IdRSABSDF8QSC1CwF7IkBiKFAiSAQNV9UiYaCsPCCBgcSgDBIEFKvJXAVQAkU+5YGLlsgKAQ9gBow"
	"QgaCqAAJUojllGPqAWwgbVJFwQgvSDNC+hmRwOdigAoFDNAAAQnJoqYiGNQkxKMEYSkFJoJCCSFEk6DvwhgoBCgE"
	"wCAhgIVlhKASzKTJsOkQgAUfqwLEjAggJFg5B8YpBUKRFFhosF8hEmzIw5FQWCom0ECTLOFTFIWqoA34EQCK5Ooa"
	"ATUHNsAXIWqpBbQBMGARgQMamSXMpo1knxPqTANQBkgABUQAiCDQJ1ABBiYI1B7QlgaKbwnHECQTIYhTkZASCOYk"
	"IliUjNEHRvQlryOigEiKVOyzhQWwK45sgkJkAcBEotYYGQEohCYFDSNYhWvGKaghRADRAAMgBE5niMgigQFWKIU4"
	"ZQHwCMCQgKUA0SUSDkrgCGBTTrFs8KAIWsTBGQnrMsALBDVOJgdTnoCYC8gkFISIQNQFQRsAlAAWJwAjCtxi0RyA"
	"EoYFgdBjAVYDAjPeCrQvAaABYAGcAAcVgBgvh9oGgCgoSIoCHpgEjOIk4xFYuEsGGAIARGa6gggEocIchMhwUSWB"
	"cJdAkUWBJgMLdQyMrLJgwDgjCSypgiKpiIhhXw0IE4IJKUaFSiGQbZ4mEIgGUkBowoBYFNSkogIRJ7UEtcgDRJ0A"
	"JlDCIMgMIIEUgAhC0VBAAyhIVQPgiTASgbAwFQWBNBGYaBgweHeagAADwWaARRWBAZFgL8DkOEboDSQAAEERmSAV"
	"UwAAAIAAAEBAAIEABEAAAAARFIAgBIIBBAESDAAwDAAQCIIABEBQIAQRAAEwBAIQBIAQCAcABIAADIAQBEEAAAcA"
	"AAIABAEQBEEAAEEQDMIwAIwAFIAABEURAEMBCMEQEIEAAAJABAAQCAAiGIkQAARBCEEABEAAAAQABEEABAEREIEg"
	"DMSAAEQQFEIACAUAAAMwDEJABAFwFMBADIMABIIhEMBABMAAAIEQAAEQBIIwAEQQAMAgAEIACAAAAIARBABQAEMC"
	"BIYQBAEREMMQAMBAAMIRDAEwEMUQBIhAAEMQEIMQDAJgAAMQCIEABEBQDAAAAAEBDEEQDIEwBAUAEEEgAAIABAAA"
	"AIAQAEBgBMAQAEAwBANgBAUADIEQBIEgCIMQFIcwAAIgBAUQDAAQBAQQEEAQAEAAAAABBEEgDEAABABQAIMACAEh"
	"GEAxCAEgAAEwFIEACAMwDAUgFEBQDEEQDAIgBEQwBAEgGAEhBAABBEYgBMBgBMUQAEEwBMAwCIMQCA==",
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

int
main(void)
{
	RUN(hash_vectors);
	RUN(positions);
	RUN(sizing);
	RUN(params_check);
	RUN_V2(golden_payload);
	RUN(no_false_negatives);
	RUN_V2(segment_probes);
	RUN(count_contained);
	RUN(measured_fpr);
	RUN_V2(seed000_mode);
	RUN_V2(create_sized);
	RUN(add_duplicate);
	RUN_V2(validate_rejects);
	RUN(parse_prefix);
	RUN(text_form);
	RUN(batch_add);
	RUN(batch_add_large);
	RUN(copy_filter);
	RUN(status_messages);
	RUN(fuzz_regressions);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
