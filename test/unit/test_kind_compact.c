/*
 * test_kind_compact.c
 *	  Unit tests of the compact segment kind (sbf_kind_compact.c) through
 *	  its row alone: the geometry its plan picks, the data a build writes
 *	  (the Elias-Fano code of the sorted fingerprints, the same code as a
 *	  compact value's), lookups against the codec's reader, the rate of
 *	  the data against measured false positives, what its checks refuse,
 *	  and allocations.  The generic suites run over it in
 *	  test_kind_trivial.c (test_compact_admitted) and test_kinds.c.
 *	  Prints "ok - name" or "not ok - name" per case and a final count.
 */
#include <math.h>

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"
#include "sbf_kind.h"
#include "sbf_compact.h"

static const SbfKindOps *const ops = &sbf_kind_compact_ops;

/* n distinct ascending hashes of key space `space`. */
static uint64_t *
sorted_keys(uint64_t n, int space)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t	i;

	for (i = 0; i < n; i++)
		h[i] = key(space, i);
	qsort(h, n, sizeof(uint64_t), unit_cmp_u64);
	for (i = 1; i < n; i++)
		CHECK(h[i - 1] < h[i]);
	return h;
}

/* A segment planned and built for n keys of space at share (malloc'd data). */
static uint8_t *
build(uint64_t n, double share, int space, SbfKindGeom *g, uint64_t *bytes,
	  uint64_t **h)
{
	uint8_t    *data;

	*h = sorted_keys(n, space);
	CHECK_ST(ops->plan(n, share, g, bytes), SBF_OK);
	data = malloc(*bytes);
	memset(data, 0xA5, *bytes);	/* build must write every byte */
	CHECK_ST(ops->build(g, data, *h, n, &g_alloc), SBF_OK);
	CHECK_ST(ops->check_geom(g), SBF_OK);
	CHECK_ST(ops->check_data(g, data), SBF_OK);
	return data;
}

/* The least b with n / 2^b <= share; out-of-range arguments refused. */
static void
plan_picks_least_bits(void)
{
	static const uint64_t ns[] = {1, 2, 3, 10, 30, 100, 1000, 5000, 1000000};
	static const double shares[] = {0.3, 0.01, 0.0096, 0.001, 1e-6};
	SbfKindGeom g;
	uint64_t	bytes;
	size_t		i,
				j;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (j = 0; j < sizeof(shares) / sizeof(shares[0]); j++)
		{
			SbfEfShape	s;

			CHECK_ST(ops->plan(ns[i], shares[j], &g, &bytes), SBF_OK);
			CHECK(g.kind == SBF_KIND_COMPACT && g.size == ns[i]);
			CHECK(g.arity == 0 && g.log2_len == 0 && g.attempt == 0);
			CHECK(ldexp((double) ns[i], -(int) g.width) <= shares[j]);
			CHECK(g.width == 1 || ldexp((double) ns[i], 1 - (int) g.width) > shares[j]);
			CHECK_ST(sbf_ef_shape(ns[i], g.width, &s), SBF_OK);
			CHECK(bytes % 8 == 0 && bytes >= sbf_ef_bytes(&s) && bytes < sbf_ef_bytes(&s) + 8);
			CHECK(ops->rate_at(&g, ns[i]) <= shares[j] && ops->rate_at(&g, 0) == 1.0);
		}
	/* 100 at 1%: 14 bits (100 / 2^14 = 0.0061; 2^13 gives 0.0122) */
	CHECK_ST(ops->plan(100, 0.01, &g, &bytes), SBF_OK);
	CHECK(g.width == 14);
	CHECK_ST(ops->plan(0, 0.01, &g, &bytes), SBF_E_PARAM);
	CHECK_ST(ops->plan(10, 0.0, &g, &bytes), SBF_E_PARAM);
	CHECK_ST(ops->plan(10, 0.5, &g, &bytes), SBF_E_PARAM);
	CHECK_ST(ops->plan(10, NAN, &g, &bytes), SBF_E_PARAM);
	CHECK_ST(ops->plan(SBF_EF_MAX_N + 1, 0.01, &g, &bytes), SBF_E_TOO_LARGE);
	/* 2^32 at 1e-10 needs 66 bits */
	CHECK_ST(ops->plan(SBF_EF_MAX_N, 1e-10, &g, &bytes), SBF_E_PARAM);
}

/*
 * A build writes the code of the sorted fingerprints, zero-padded: the same
 * code, byte for byte, as a compact value of the same hashes and width
 * (sbf_compact_write); any order of input hashes is refused but ascending.
 */
static void
build_writes_the_code(void)
{
	static const uint64_t ns[] = {1, 7, 100, 3000};
	size_t		i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
	{
		SbfKindGeom g;
		uint64_t	bytes;
		uint64_t   *h;
		uint8_t    *data = build(ns[i], 0.01, (int) i, &g, &bytes, &h);
		SbfCompactParams p = {.error_rate = 0.01, .capacity = ns[i], .growth = 2,
		.tightening = 0.9};
		SbfCompactView cv;
		size_t		len;
		uint8_t    *val;
		uint64_t	j;

		CHECK_ST(sbf_compact_size(ns[i], g.width, &p, &len), SBF_OK);
		val = malloc(len);
		CHECK_ST(sbf_compact_write(h, ns[i], g.width, &p, val, len, &g_alloc), SBF_OK);
		CHECK_ST(sbf_compact_check(val, len, &cv), SBF_OK);
		CHECK(cv.code_len <= bytes && memcmp(cv.code, data, cv.code_len) == 0);
		for (j = cv.code_len; j < bytes; j++)
			CHECK(data[j] == 0);
		if (ns[i] > 1)
		{
			uint64_t	t = h[0];

			h[0] = h[1];
			h[1] = t;
			CHECK_ST(ops->build(&g, data, h, ns[i], &g_alloc), SBF_E_PARAM);
			CHECK_ST(ops->build(&g, data, h + 2, ns[i] - 2, &g_alloc), SBF_E_PARAM);
		}
		free(val);
		free(data);
		free(h);
	}
	CHECK(g_live == 0);
}

/*
 * contains and count answer as the codec's reader for members and absent
 * keys; the rate of the data is its distinct fingerprints over 2^b, and
 * absent keys match at that rate (within 4 sigma), at widths that make
 * repeats common and rare.
 */
static void
lookups_and_rate(void)
{
	static const double shares[] = {0.3, 0.05, 0.01};
	size_t		i;

	for (i = 0; i < sizeof(shares) / sizeof(shares[0]); i++)
	{
		const uint64_t n = 2000;
		const uint64_t absent = 200000;
		SbfKindGeom g;
		uint64_t	bytes;
		uint64_t   *h;
		uint8_t    *data = build(n, shares[i], 10 + (int) i, &g, &bytes, &h);
		SbfEfShape	s;
		SbfEfReader r;
		uint64_t	j;
		uint64_t	fp = 0;
		uint64_t	differ = 0;
		double		rate = ops->rate_of(&g, data);
		double		sigma = sqrt(rate * (1 - rate) / (double) absent);

		CHECK_ST(sbf_ef_shape(n, g.width, &s), SBF_OK);
		CHECK_ST(sbf_ef_reader_init(&r, &s, data, &g_alloc), SBF_OK);
		CHECK(rate == ldexp((double) sbf_ef_distinct(&s, data), -(int) g.width));
		CHECK(rate <= ops->rate_at(&g, n));
		if (i == 0)
			CHECK(rate < ops->rate_at(&g, n));	/* 2000 in 2^13: repeats */
		CHECK(ops->count(&g, data, h, n) == n);
		for (j = 0; j < absent; j++)
		{
			uint64_t	x = key(50, j);
			bool		c = ops->contains(&g, data, x);

			differ += c != sbf_ef_has(&r, sbf_ef_fingerprint(x, g.width));
			fp += c ? 1 : 0;
		}
		CHECK(differ == 0);
		CHECK(fabs((double) fp / (double) absent - rate) <= 4 * sigma);
		sbf_ef_reader_free(&r, &g_alloc);
		free(data);
		free(h);
	}
	CHECK(g_live == 0);
}

/*
 * The checks: every single-bit flip of the data area is refused or reads
 * as another valid code (never one with a padding bit set); descriptors
 * out of range; directory entries whose count, capacity or bound break
 * the kind's rules.
 */
static void
checks_refuse(void)
{
	SbfKindGeom g;
	SbfKindGeom bad;
	uint64_t	bytes;
	uint64_t   *h;
	uint8_t    *data = build(40, 0.01, 20, &g, &bytes, &h);
	SbfEfShape	s;
	uint64_t	bit;
	uint64_t	refused = 0;
	double		r = ops->rate_at(&g, 40);

	CHECK_ST(sbf_ef_shape(40, g.width, &s), SBF_OK);
	for (bit = 0; bit < bytes * 8; bit++)
	{
		SbfStatus	st;

		data[bit / 8] ^= (uint8_t) (1u << (bit % 8));
		st = ops->check_data(&g, data);
		CHECK(st == SBF_OK || st == SBF_E_BITS);
		if (bit >= sbf_ef_bytes(&s) * 8)
			CHECK(st == SBF_E_BITS);
		refused += st != SBF_OK ? 1 : 0;
		data[bit / 8] ^= (uint8_t) (1u << (bit % 8));
	}
	CHECK(refused > 0 && refused < bytes * 8);
	CHECK_ST(ops->check_data(&g, data), SBF_OK);
	bad = g;
	bad.size = 0;
	CHECK_ST(ops->check_geom(&bad), SBF_E_SEGMENT);
	bad.size = SBF_EF_MAX_N + 1;
	CHECK_ST(ops->check_geom(&bad), SBF_E_SEGMENT);
	bad = g;
	bad.width = 0;
	CHECK_ST(ops->check_geom(&bad), SBF_E_SEGMENT);
	bad.width = 64;
	CHECK_ST(ops->check_geom(&bad), SBF_E_SEGMENT);
	bad.width = 63;
	CHECK_ST(ops->check_geom(&bad), SBF_OK);
	CHECK_ST(ops->check_entry(&g, 40, 40, r), SBF_OK);
	CHECK_ST(ops->check_entry(&g, 40, 40, 0.4999), SBF_OK);
	CHECK_ST(ops->check_entry(&g, 41, 40, r), SBF_E_SEGMENT);
	CHECK_ST(ops->check_entry(&g, 39, 39, r), SBF_E_SEGMENT);
	CHECK_ST(ops->check_entry(&g, 40, 40, r * 0.999), SBF_E_SEGMENT);
	CHECK_ST(ops->check_entry(&g, 40, 40, 0.5), SBF_E_SEGMENT);
	CHECK_ST(ops->check_entry(&g, 40, 40, NAN), SBF_E_SEGMENT);
	free(data);
	free(h);
}

/* sbf_info's keys; a build whose scratch cannot be had leaves nothing behind. */
static void
describe_and_nomem(void)
{
	SbfKindGeom g;
	uint64_t	bytes;
	uint64_t   *h;
	uint8_t    *data = build(1000, 0.01, 30, &g, &bytes, &h);
	SbfInfoKey	keys[SBF_INFO_MAX_KEYS];
	SbfEfShape	s;
	int			nk = ops->describe(&g, keys);

	CHECK_ST(sbf_ef_shape(1000, g.width, &s), SBF_OK);
	CHECK(nk == 3 && nk < SBF_INFO_MAX_KEYS);
	CHECK(strcmp(keys[0].key, "fingerprint_bits") == 0 && keys[0].value == 17);
	CHECK(strcmp(keys[1].key, "low_bits") == 0 && keys[1].value == (uint64_t) s.L);
	CHECK(strcmp(keys[2].key, "fingerprints") == 0 && keys[2].value == 1000);
	CHECK(ops->complete && ops->insert == NULL && ops->merge == NULL);
	CHECK(ops->union_rule == SBF_UNION_APPEND && ops->probe_ranges == NULL);
	g_fail_after = 0;
	CHECK_ST(ops->build(&g, data, h, 1000, &g_alloc), SBF_E_NOMEM);
	g_fail_after = -1;
	CHECK(g_live == 0);
	free(data);
	free(h);
}

int
main(void)
{
	RUN(plan_picks_least_bits);
	RUN(build_writes_the_code);
	RUN(lookups_and_rate);
	RUN(checks_refuse);
	RUN(describe_and_nomem);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
