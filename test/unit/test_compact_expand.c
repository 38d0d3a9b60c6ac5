/*
 * test_compact_expand.c
 *	  A compact value as the version-5 segmented value that answers the same
 *	  (sbf_compact_expand, docs/format5.md sections 3 and 5): valid, every
 *	  lookup the compact value's own, the count, the bound, the parameters
 *	  and OVERLAP carried, the HyperLogLog the fingerprints', growth by adds
 *	  and a union with a version-4 value after it, the refusals and every
 *	  failed allocation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_compact.h"
#include "sbf_dir.h"
#include "sbf_internal.h"
#include "sbf_plain.h"
#include "sbf_union.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

#define ABSENT		20000

/* The compact value of hashes key(space, 0 .. n) with p (capacity n if 0). */
static uint8_t *
make_value(uint64_t n, int space, SbfCompactParams p, size_t *len)
{
	SbfCompactRanks rk;
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint8_t    *buf;
	uint64_t	i;
	int			b;

	if (p.capacity == 0)
		p.capacity = n;
	for (i = 0; i < n; i++)
		h[i] = key(space, i);
	CHECK_ST(sbf_compact_bits(p.capacity, p.error_rate, SBF_HLL_P_DEFAULT, &b), SBF_OK);
	sbf_compact_ranks(h, n, b, &rk);
	p.ranks = &rk;
	CHECK_ST(sbf_compact_size(n, b, &p, len), SBF_OK);
	buf = malloc(*len);
	CHECK_ST(sbf_compact_write(h, n, b, &p, buf, *len, &g_alloc), SBF_OK);
	free(h);
	return buf;
}

/* The expanded value of cv, checked: valid, version 5, one compact segment. */
static void
expand(const SbfCompactView *cv, SbfFilter *f, SbfView *v)
{
	SbfSegment	s;

	CHECK_ST(sbf_compact_expand(cv, f, 4, &g_alloc), SBF_OK);
	CHECK_ST(validate_filter(f, v), SBF_OK);
	CHECK(v->version == SBF_FORMAT_V5 && v->nsegments == 1);
	sbf_get_segment(v, 0, &s);
	CHECK(s.kind == SBF_KIND_COMPACT && s.count == cv->shape.n &&
		  s.capacity == cv->shape.n);
}

/*
 * At 1 to 3,000 elements, two rates and a capacity above n: members found,
 * every absent key answered as the compact value's fingerprints answer it,
 * # = n from the directory, fpr_bound the compact value's, the header its
 * parameters, the HyperLogLog within 10% where it has enough registers.
 */
static void
expand_answers(void)
{
	static const uint64_t ns[] = {1, 30, 500, 3000};
	size_t		i;
	int			t;

	for (i = 0; i < 4; i++)
		for (t = 0; t < 3; t++)
		{
			SbfCompactParams p = {t == 1 ? 0.001 : 0.01, t == 2 ? 4 * ns[i] : 0,
			SBF_DEFAULT_GROWTH, SBF_DEFAULT_TIGHTENING, false, NULL};
			size_t		len;
			uint8_t    *buf = make_value(ns[i], 0, p, &len);
			SbfCompactView cv;
			SbfFilter	f;
			SbfView		v;
			uint64_t   *fp = malloc(ns[i] * sizeof(uint64_t));
			uint64_t	j;
			uint64_t	missed = 0;
			uint64_t	differ = 0;

			CHECK_ST(sbf_compact_check(buf, len, &cv), SBF_OK);
			CHECK_ST(sbf_compact_decode(&cv, fp, &g_alloc), SBF_OK);
			expand(&cv, &f, &v);
			for (j = 0; j < ns[i]; j++)
				missed += sbf_contains_hash(&v, key(0, j)) ? 0 : 1;
			for (j = 0; j < ABSENT; j++)
				differ += sbf_contains_hash(&v, key(1, j)) !=
					sbf_compact_array_has(&cv, fp, key(1, j));
			CHECK(missed == 0 && differ == 0);
			CHECK(strcmp(sbf_count_source(&v), "directory") == 0 &&
				  sbf_cardinality(&v) == (double) ns[i]);
			CHECK(sbf_fpr_bound(&v) == sbf_compact_fpr_bound(&cv));
			/* the count it was built for: the chain continues 1.3's from it */
			CHECK(v.capacity == cv.capacity &&
				  v.error_rate == cv.error_rate &&
				  v.growth == cv.growth && v.tightening == cv.tightening &&
				  v.hll_p == SBF_HLL_P_DEFAULT && (v.flags & SBF_FLAG_OVERLAP) == 0);
			if (ns[i] >= 500)
				CHECK(fabs(sbf_hll_cardinality(&v) - (double) ns[i]) < 0.1 * (double) ns[i]);
			sbf_filter_free(&f);
			free(fp);
			free(buf);
		}
}

/* Parameters other than the defaults and OVERLAP are carried; # then comes from the HyperLogLog. */
static void
expand_params_overlap(void)
{
	SbfCompactParams p = {0.05, 0, 3, 0.7, true, NULL};
	size_t		len;
	uint8_t    *buf = make_value(2000, 2, p, &len);
	SbfCompactView cv;
	SbfFilter	f;
	SbfView		v;

	CHECK_ST(sbf_compact_check(buf, len, &cv), SBF_OK);
	expand(&cv, &f, &v);
	CHECK(v.growth == 3 && v.tightening == 0.7 && v.error_rate == 0.05 &&
		  (v.flags & SBF_FLAG_OVERLAP) != 0);
	CHECK(strcmp(sbf_count_source(&v), "hll") == 0 &&
		  fabs(sbf_cardinality(&v) - 2000.0) < 200.0);
	sbf_filter_free(&f);
	free(buf);
}

/*
 * Adds after it append by the growth rule: the first new segment 1.3's
 * second after its sbf_agg of n (capacity n growth, plus the margin for
 * 1.3's false-positive skips; the expanded value's capacity n; at error
 * (e - p)(1 - r), below p), the value staying version 5; a union
 * with a version-4 value is version 5 too; every key found in both.
 */
static void
expand_then_write(void)
{
	SbfCompactParams p = {0.01, 0, SBF_DEFAULT_GROWTH, SBF_DEFAULT_TIGHTENING, false, NULL};
	size_t		len;
	uint8_t    *buf = make_value(300, 3, p, &len);
	SbfCompactView cv;
	SbfFilter	f;
	SbfFilter	b;
	SbfView		v;
	SbfView		vb;
	SbfSegment	s0;
	SbfSegment	s1;
	SbfParams	bp = params(1000, 0.01, 2, 0.9, 9);
	uint64_t	h[400];
	uint64_t	i;
	uint64_t	missed = 0;
	bool		ins;

	CHECK_ST(sbf_compact_check(buf, len, &cv), SBF_OK);
	expand(&cv, &f, &v);
	for (i = 0; i < 200; i++)
		CHECK_ST(sbf_add_hash(&f, key(4, i), &ins), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.version == SBF_FORMAT_V5 && v.nsegments == 2);
	sbf_get_segment(&v, 0, &s0);
	sbf_get_segment(&v, 1, &s1);
	CHECK(s1.capacity >= 600 && s1.capacity <= 640 && s1.error < s0.error);
	for (i = 0; i < 400; i++)
		h[i] = key(6, i);
	qsort(h, 400, sizeof(uint64_t), unit_cmp_u64);
	CHECK_ST(sbf_build_sorted(&b, &bp, h, 400, 0.001, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK(vb.version == SBF_FORMAT_V4);
	CHECK_ST(sbf_union(&b, &v), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK(vb.version == SBF_FORMAT_V5 && vb.nsegments == 3);
	for (i = 0; i < 300; i++)
		missed += sbf_contains_hash(&vb, key(3, i)) ? 0 : 1;
	for (i = 0; i < 200; i++)
		missed += sbf_contains_hash(&vb, key(4, i)) ? 0 : 1;
	for (i = 0; i < 400; i++)
		missed += sbf_contains_hash(&vb, h[i]) ? 0 : 1;
	CHECK(missed == 0);
	sbf_filter_free(&b);
	sbf_filter_free(&f);
	free(buf);
}

/*
 * Fingerprints no wider than the HyperLogLog's precision (a compact value
 * the writer never makes) are refused; a failed allocation at either step
 * leaves nothing behind.
 */
static void
expand_refusals(void)
{
	SbfCompactParams p = {0.4, 0, SBF_DEFAULT_GROWTH, SBF_DEFAULT_TIGHTENING, false, NULL};
	uint64_t	h[2] = {key(0, 0), key(0, 1)};
	uint8_t		buf[64];
	size_t		len;
	SbfCompactView cv;
	SbfFilter	f;
	int			b;
	long		k;

	p.capacity = 2;
	CHECK_ST(sbf_compact_bits(2, 0.4, SBF_HLL_P_MIN, &b), SBF_OK);
	CHECK(b == 5);
	CHECK_ST(sbf_compact_size(2, b, &p, &len), SBF_OK);
	CHECK_ST(sbf_compact_write(h, 2, b, &p, buf, len, &g_alloc), SBF_OK);
	CHECK_ST(sbf_compact_check(buf, len, &cv), SBF_OK);
	CHECK_ST(sbf_compact_expand(&cv, &f, 0, &g_alloc), SBF_E_PARAM);
	CHECK(f.base == NULL);

	CHECK_ST(sbf_compact_bits(2, 0.4, SBF_HLL_P_DEFAULT, &b), SBF_OK);
	CHECK_ST(sbf_compact_size(2, b, &p, &len), SBF_OK);
	CHECK_ST(sbf_compact_write(h, 2, b, &p, buf, len, &g_alloc), SBF_OK);
	CHECK_ST(sbf_compact_check(buf, len, &cv), SBF_OK);
	for (k = 0;; k++)
	{
		SbfStatus	st;

		g_fail_after = k;
		st = sbf_compact_expand(&cv, &f, 0, &g_alloc);
		g_fail_after = -1;
		CHECK(st == (f.base != NULL ? SBF_OK : SBF_E_NOMEM));
		sbf_filter_free(&f);
		if (st != SBF_E_NOMEM || k > 10)
			break;
	}
	CHECK(k >= 2);				/* the registers and the value, at least */
}

int
main(void)
{
	RUN(expand_answers);
	RUN(expand_params_overlap);
	RUN(expand_then_write);
	RUN(expand_refusals);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
