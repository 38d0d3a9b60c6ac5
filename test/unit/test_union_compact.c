/*
 * test_union_compact.c
 *	  Merging unions of compact values as one compact value
 *	  (sbf_union_compact.c; docs/format5.md, section 3, "Unions"): the
 *	  fingerprints cut to the smallest b, each once, every member found, the
 *	  count the distinct fingerprints, the bytes the same in any order, the
 *	  HyperLogLog of its segmented form the hashes' own; the segmented union
 *	  where the compact one's bound would pass the sum of the inputs' or the
 *	  builder's bounds; the budget; failed allocations.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_compact.h"
#include "sbf_hash_sort.h"
#include "sbf_internal.h"
#include "sbf_plain.h"
#include "sbf_union.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

/* The union of f and g (merge, no budget) into u, from views. */
static SbfStatus
unite(const SbfFilter *f, const SbfFilter *g, SbfFilter *u, double rate,
	  bool enforce, double *bound)
{
	SbfView		in[2];
	SbfUnionSpec spec = {rate, true, enforce};

	sbf_filter_view(f, &in[0]);
	sbf_filter_view(g, &in[1]);
	return sbf_union_many(u, in, 2, &spec, bound, 4, &g_alloc);
}

/* The HyperLogLog registers of f's segmented form (f itself is kept). */
static void
registers(const SbfFilter *f, uint8_t *regs)
{
	SbfFilter	c;
	SbfView		v;

	sbf_filter_view(f, &v);
	CHECK_ST(sbf_copy(&c, &v, 4, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_convert(&c), SBF_OK);
	sbf_filter_view(&c, &v);
	CHECK(!sbf_is_compact(&v) && v.hll_p == SBF_HLL_P_DEFAULT);
	sbf_hll_unpack(v.buf + v.hll_offset, v.hll_bytes,
				   (v.flags & SBF_FLAG_HLL_DENSE) != 0, v.hll_p, regs);
	sbf_filter_free(&c);
}

/*
 * Equal, overlapping and disjoint sets of one size (one b), united at 5%
 * (the compact form's bound must be within its error rate): the union is
 * compact at that b, commutes byte for byte, finds every member of both, counts
 * about the union's size (each fingerprint once), its bound no larger than
 * the sum of the inputs', and its HyperLogLog is that of sbf_agg over the
 * union (both the hashes' own).
 */
static void
same_bits(void)
{
	static const uint64_t offs[] = {0, 500, 1000};
	size_t		c;

	for (c = 0; c < sizeof(offs) / sizeof(offs[0]); c++)
	{
		SbfFilter	f;
		SbfFilter	g;
		SbfFilter	u;
		SbfFilter	w;
		SbfFilter	all;
		SbfView		vf;
		SbfView		vg;
		SbfView		v;
		uint8_t		ru[1 << SBF_HLL_P_DEFAULT];
		uint8_t		ra[1 << SBF_HLL_P_DEFAULT];
		uint64_t	end = offs[c] + 1000;
		uint64_t	i;

		agg_keys(&f, 30, 0, 1000, 0.01);
		agg_keys(&g, 30, offs[c], end, 0.01);
		agg_keys(&all, 30, 0, end, 0.01);
		sbf_filter_view(&f, &vf);
		sbf_filter_view(&g, &vg);
		CHECK(sbf_is_compact(&vf) && sbf_is_compact(&vg) && vf.fp_bits == vg.fp_bits);
		CHECK_ST(unite(&f, &g, &u, 0.05, false, NULL), SBF_OK);
		CHECK_ST(unite(&g, &f, &w, 0.05, false, NULL), SBF_OK);
		CHECK(same_bytes(&u, &w));
		CHECK_ST(validate_filter(&u, &v), SBF_OK);
		CHECK(sbf_is_compact(&v) && v.fp_bits == vf.fp_bits && v.error_rate == 0.05);
		for (i = 0; i < end; i++)
			CHECK(sbf_contains_hash(&v, key(30, i)));
		CHECK(v.nfp <= end && v.nfp + 10 > end);
		CHECK(sbf_fpr_bound(&v) <= sbf_fpr_bound(&vf) + sbf_fpr_bound(&vg));
		registers(&u, ru);
		registers(&all, ra);
		CHECK(memcmp(ru, ra, sizeof(ru)) == 0);
		sbf_filter_free(&f);
		sbf_filter_free(&g);
		sbf_filter_free(&u);
		sbf_filter_free(&w);
		sbf_filter_free(&all);
	}
}

/*
 * Exact values (63 fingerprint bits, docs/format5.md, section 3, "Exact")
 * unite exactly, as 1.3's exact form: 5 and 6 elements, 3 shared, are one
 * value at 63 bits holding 8, # 8, every member found, in either order;
 * with a value of 100 elements cut to its bits.
 */
static void
exact_union(void)
{
	SbfFilter	f;
	SbfFilter	g;
	SbfFilter	u;
	SbfFilter	w;
	SbfView		v;
	uint64_t	i;

	agg_keys(&f, 31, 0, 5, 0.01);
	agg_keys(&g, 31, 2, 8, 0.01);
	CHECK_ST(unite(&f, &g, &u, 0.01, true, NULL), SBF_OK);
	CHECK_ST(unite(&g, &f, &w, 0.01, true, NULL), SBF_OK);
	CHECK(same_bytes(&u, &w));
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && v.fp_bits == SBF_COMPACT_EXACT_BITS && v.nfp == 8);
	CHECK(sbf_cardinality(&v) == 8.0);
	for (i = 0; i < 8; i++)
		CHECK(sbf_contains_hash(&v, key(31, i)));
	CHECK(!sbf_contains_hash(&v, key(31, 8)));
	sbf_filter_free(&g);
	sbf_filter_free(&w);
	agg_keys(&g, 31, 0, 100, 0.01);
	CHECK_ST(unite(&u, &g, &w, 0.01, true, NULL), SBF_OK);
	CHECK_ST(validate_filter(&w, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && v.fp_bits < 20 && v.nfp <= 100);
	for (i = 0; i < 100; i++)
		CHECK(sbf_contains_hash(&v, key(31, i)));
	sbf_filter_free(&f);
	sbf_filter_free(&g);
	sbf_filter_free(&u);
	sbf_filter_free(&w);
}

/*
 * Of different b: cut to the smaller where that bound is no larger than the
 * sum (a set and its superset twice its size, one bit apart), every member found and the
 * HyperLogLog the hashes' own; the segmented union where it would be (20
 * elements and 3,000), or past 4,096 fingerprints.
 */
static void
other_bits(void)
{
	SbfFilter	f;
	SbfFilter	g;
	SbfFilter	u;
	SbfFilter	all;
	SbfView		vf;
	SbfView		vg;
	SbfView		v;
	uint8_t		ru[1 << SBF_HLL_P_DEFAULT];
	uint8_t		ra[1 << SBF_HLL_P_DEFAULT];
	uint64_t	i;

	agg_keys(&f, 31, 0, 1000, 0.01);
	agg_keys(&g, 31, 0, 2000, 0.01);
	sbf_filter_view(&f, &vf);
	sbf_filter_view(&g, &vg);
	CHECK(vf.fp_bits + 1 == vg.fp_bits);
	CHECK_ST(unite(&f, &g, &u, 0.1, false, NULL), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && v.fp_bits == vf.fp_bits);
	for (i = 0; i < 2000; i++)
		CHECK(sbf_contains_hash(&v, key(31, i)));
	agg_keys(&all, 31, 0, 2000, 0.01);
	registers(&u, ru);
	registers(&all, ra);
	CHECK(memcmp(ru, ra, sizeof(ru)) == 0);
	sbf_filter_free(&f);
	sbf_filter_free(&g);
	sbf_filter_free(&u);
	sbf_filter_free(&all);

	agg_keys(&f, 32, 0, 20, 0.01);
	agg_keys(&g, 32, 100, 3100, 0.01);
	CHECK_ST(unite(&f, &g, &u, 0.1, false, NULL), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(!sbf_is_compact(&v) && v.nsegments == 2);
	sbf_filter_free(&f);
	sbf_filter_free(&g);
	sbf_filter_free(&u);

	agg_keys(&f, 33, 0, 3000, 0.01);
	agg_keys(&g, 33, 3000, 6000, 0.01);
	CHECK_ST(unite(&f, &g, &u, 0.1, false, NULL), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(!sbf_is_compact(&v));
	sbf_filter_free(&f);
	sbf_filter_free(&g);
	sbf_filter_free(&u);
}

/*
 * Ranks read from the longer fingerprints: a set at 1% (17 bits) united with
 * the same set at 0.1% (20 bits) plus one element whose hash has no bit from
 * 9 to 16 but bit 18 (capped at 17 bits, rank 10 there, seen only in the
 * longer fingerprint): the union is compact at 17 bits and its HyperLogLog
 * is that of sbf_agg over all the hashes, register 77 included.
 */
static void
longer_bits(void)
{
	SbfParams	p1 = params(1000, 0.01, 2, 0.9, SBF_HLL_P_DEFAULT);
	SbfParams	p2 = params(1000, 0.001, 2, 0.9, SBF_HLL_P_DEFAULT);
	uint64_t   *h = malloc(1001 * sizeof(uint64_t));
	uint8_t		ru[1 << SBF_HLL_P_DEFAULT];
	uint8_t		ra[1 << SBF_HLL_P_DEFAULT];
	SbfFilter	f;
	SbfFilter	g;
	SbfFilter	u;
	SbfFilter	all;
	SbfView		vf;
	SbfView		vg;
	SbfView		v;
	uint64_t	i;

	for (i = 0; i < 1000; i++)
		h[i] = key(36, i);
	sbf_hash_sort_all(h, 1000);
	CHECK_ST(sbf_build_final(&f, &p1, h, 1000, 4, &g_alloc), SBF_OK);
	h[1000] = 77 | UINT64_C(1) << 18;
	sbf_hash_sort_all(h, 1001);
	CHECK_ST(sbf_build_final(&g, &p2, h, 1001, 4, &g_alloc), SBF_OK);
	CHECK_ST(sbf_build_final(&all, &p1, h, 1001, 4, &g_alloc), SBF_OK);
	sbf_filter_view(&f, &vf);
	sbf_filter_view(&g, &vg);
	CHECK(sbf_is_compact(&vf) && sbf_is_compact(&vg) && vf.fp_bits == 17 && vg.fp_bits >= 19);
	CHECK_ST(unite(&f, &g, &u, 0.1, false, NULL), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && v.fp_bits == 17);
	registers(&u, ru);
	registers(&all, ra);
	CHECK(ru[77] == 10 && memcmp(ru, ra, sizeof(ru)) == 0);
	sbf_filter_free(&f);
	sbf_filter_free(&g);
	sbf_filter_free(&u);
	sbf_filter_free(&all);
	free(h);
}

/*
 * The budget: two disjoint values whose union's bound passes the error
 * rate are refused with that bound, which then fits as the union's own.
 */
static void
budget(void)
{
	SbfFilter	f;
	SbfFilter	g;
	SbfFilter	u;
	SbfView		v;
	double		bound = 0.0;

	agg_keys(&f, 34, 0, 2000, 0.01);
	agg_keys(&g, 34, 2000, 4000, 0.01);
	CHECK_ST(unite(&f, &g, &u, 0.0, true, &bound), SBF_E_OVER_BUDGET);
	CHECK(bound > 0.01 && u.base == NULL);
	CHECK_ST(unite(&f, &g, &u, bound, true, NULL), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && sbf_fpr_bound(&v) == bound && v.error_rate == bound);
	sbf_filter_free(&f);
	sbf_filter_free(&g);
	sbf_filter_free(&u);
}

/*
 * An exact set (63 bits) united with a compact value of 10 (14 bits): one
 * compact value at 14 bits, the exact set counted at what it takes cut to
 * them (1.3 united the two exact forms without spending a rate), every
 * member found, # 13; where the cut would pass the sum (3 and 3,000: 19
 * bits, but a 30-element value cut the 3,000 to 12), segments.
 */
static void
exact_with_cut(void)
{
	SbfFilter	f;
	SbfFilter	g;
	SbfFilter	u;
	SbfView		v;
	uint64_t	i;

	agg_keys(&f, 36, 0, 3, 0.01);
	agg_keys(&g, 36, 3, 13, 0.01);
	CHECK_ST(unite(&f, &g, &u, 0.05, true, NULL), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && v.fp_bits == 14 && v.nfp == 13 && sbf_cardinality(&v) == 13.0);
	for (i = 0; i < 13; i++)
		CHECK(sbf_contains_hash(&v, key(36, i)));
	CHECK(u.len < g.len + f.len);
	sbf_filter_free(&u);
	sbf_filter_free(&g);
	agg_keys(&g, 36, 3, 33, 0.01);
	sbf_filter_free(&f);
	agg_keys(&f, 36, 100, 3100, 0.01);
	CHECK_ST(unite(&f, &g, &u, 0.05, true, NULL), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(!sbf_is_compact(&v));
	sbf_filter_free(&f);
	sbf_filter_free(&g);
	sbf_filter_free(&u);
}

/* Every failed allocation: SBF_E_NOMEM and no result, then success. */
static void
failed_allocations(void)
{
	SbfFilter	f;
	SbfFilter	g;
	long		k;

	agg_keys(&f, 35, 0, 300, 0.01);
	agg_keys(&g, 35, 200, 500, 0.01);
	for (k = 0; k < 20; k++)
	{
		SbfFilter	u;
		SbfStatus	st;

		g_fail_after = k;
		st = unite(&f, &g, &u, 0.0, false, NULL);
		g_fail_after = -1;
		CHECK(st == SBF_OK || (st == SBF_E_NOMEM && u.base == NULL));
		sbf_filter_free(&u);
		if (st == SBF_OK)
			break;
	}
	CHECK(k > 0 && k < 20);
	sbf_filter_free(&f);
	sbf_filter_free(&g);
}

int
main(void)
{
	RUN(same_bits);
	RUN(exact_union);
	RUN(other_bits);
	RUN(longer_bits);
	RUN(budget);
	RUN(exact_with_cut);
	RUN(failed_allocations);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
