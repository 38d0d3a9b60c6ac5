/*
 * test_union_collected.c
 *	  sbf_union_agg's final over a collection of compact segments
 *	  (sbf_union_compact_collected, sbf_union_compact.c): the collection the
 *	  aggregate keeps (each input's segmented form, the segments collected
 *	  without merging), united as one input, gives the compact value that
 *	  the merging union of the inputs themselves gives, byte for byte, in
 *	  any input order and any split into partial collections; one input
 *	  comes back as it was; # counts the elements behind fingerprints a
 *	  union kept once (OVERLAP); a collection with another kind, or whose
 *	  compact union passes the budget or the builder's bounds, takes the
 *	  union of its segments as before; failed allocations.
 */
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

#define MAX_IN	40

/*
 * The aggregate's collection of f[order[0..n)] into c: each input's
 * segmented form (union_agg_segments_of), collected by a union that does
 * not merge (union_agg_collect), the given number at a time, each partial
 * collection collected again as the next one's first input.
 */
static void
collect(SbfFilter *f, const int *order, int n, int step, SbfFilter *c)
{
	SbfUnionSpec spec = {0.0, false, false};
	SbfFilter	seg[MAX_IN];
	int			i;

	for (i = 0; i < n; i++)
	{
		SbfView		v;

		sbf_filter_view(&f[order[i]], &v);
		CHECK_ST(sbf_copy(&seg[i], &v, 4, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_convert(&seg[i]), SBF_OK);
	}
	sbf_filter_start(c, 4, &g_alloc);
	for (i = 0; i < n; i += step)
	{
		SbfView		in[MAX_IN + 1];
		SbfFilter	next;
		int			k = 0;
		int			j;

		if (c->base != NULL)
			sbf_filter_view(c, &in[k++]);
		for (j = i; j < n && j < i + step; j++)
			sbf_filter_view(&seg[j], &in[k++]);
		CHECK_ST(sbf_union_many(&next, in, (uint32_t) k, &spec, NULL, 4, &g_alloc),
				 SBF_OK);
		sbf_filter_free(c);
		*c = next;
	}
	for (i = 0; i < n; i++)
		sbf_filter_free(&seg[i]);
}

/* The aggregate's final: the collection united alone, merging, at rate. */
static SbfStatus
final(const SbfFilter *c, double rate, SbfFilter *u, double *bound)
{
	SbfUnionSpec spec = {rate, true, true};
	SbfView		v;

	sbf_filter_view(c, &v);
	return sbf_union_many(u, &v, 1, &spec, bound, 4, &g_alloc);
}

/* The merging union of f[0..n) themselves at rate (pairwise's rule). */
static SbfStatus
unite_all(SbfFilter *f, int n, double rate, SbfFilter *u, double *bound)
{
	SbfUnionSpec spec = {rate, true, true};
	SbfView		in[MAX_IN];
	int			i;

	for (i = 0; i < n; i++)
		sbf_filter_view(&f[i], &in[i]);
	return sbf_union_many(u, in, (uint32_t) n, &spec, bound, 4, &g_alloc);
}

/*
 * Compact inputs of several sizes (b = 15, and 63 for the exact one: cut
 * to the smallest, the union stays within their bounds), overlapping: the final
 * is compact, the bytes of the inputs' own merging union, whatever the
 * order and the split of the collection; every member is found and the
 * count is the union's within the fingerprints' collisions.
 */
static void
as_the_inputs_union(void)
{
	static const int orders[][5] = {{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}};
	static const int steps[] = {5, 1, 2};
	SbfFilter	f[5];
	SbfFilter	want;
	SbfView		v;
	uint64_t	i;
	size_t		o;

	agg_keys(&f[0], 40, 0, 150, 0.01);
	agg_keys(&f[1], 40, 100, 300, 0.01);
	agg_keys(&f[2], 40, 250, 490, 0.01);
	agg_keys(&f[3], 40, 400, 580, 0.01);
	agg_keys(&f[4], 40, 5, 9, 0.01);
	for (i = 0; i < 5; i++)
	{
		sbf_filter_view(&f[i], &v);
		CHECK(sbf_is_compact(&v));
	}
	CHECK_ST(unite_all(f, 5, 0.05, &want, NULL), SBF_OK);
	CHECK_ST(validate_filter(&want, &v), SBF_OK);

	CHECK(sbf_is_compact(&v));
	for (o = 0; o < sizeof(orders) / sizeof(orders[0]); o++)
	{
		SbfFilter	c;
		SbfFilter	u;
		double		bound = 0.0;

		collect(f, orders[o], 5, steps[o], &c);
		sbf_filter_view(&c, &v);
		CHECK(!sbf_is_compact(&v) && v.nsegments == 5);
		CHECK_ST(final(&c, 0.05, &u, &bound), SBF_OK);
		CHECK(same_bytes(&u, &want));
		CHECK_ST(validate_filter(&u, &v), SBF_OK);
		CHECK(bound == sbf_fpr_bound(&v));
		for (i = 0; i < 580; i++)
			CHECK(sbf_contains_hash(&v, key(40, i)));
		CHECK(sbf_cardinality(&v) <= 580.0 && sbf_cardinality(&v) > 570.0);
		sbf_filter_free(&c);
		sbf_filter_free(&u);
	}
	for (i = 0; i < 5; i++)
		sbf_filter_free(&f[i]);
	sbf_filter_free(&want);
}

/*
 * One input, or the same input twice (the collection drops the repeat):
 * the value comes back byte for byte, its capacity (below its count after
 * an add in place) and repeated fingerprints kept.
 */
static void
one_input_back(void)
{
	static const int once[] = {0};
	static const int twice[] = {0, 0};
	SbfFilter	f[1];
	SbfFilter	c;
	SbfFilter	u;
	SbfView		v;
	uint64_t	h = key(41, 100);
	bool		inserted;

	agg_keys(&f[0], 41, 0, 100, 0.01);
	CHECK_ST(sbf_add_hash(&f[0], h, &inserted), SBF_OK);
	CHECK_ST(validate_filter(&f[0], &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && v.nfp == 101);
	collect(f, once, 1, 1, &c);
	CHECK_ST(final(&c, 0.0, &u, NULL), SBF_OK);
	CHECK(same_bytes(&u, &f[0]));
	sbf_filter_free(&c);
	sbf_filter_free(&u);
	collect(f, twice, 2, 2, &c);
	CHECK_ST(final(&c, 0.0, &u, NULL), SBF_OK);
	CHECK(same_bytes(&u, &f[0]));
	sbf_filter_free(&c);
	sbf_filter_free(&u);
	sbf_filter_free(&f[0]);
}

/*
 * A collection with a segment of another kind (a fused value of 20,000),
 * and one whose compact union would pass the budget (two disjoint sets of
 * 1,000 at the inputs' own 1%): the union of the segments, as before -- segmented,
 * or refused with the segments' bound.
 */
static void
segments_otherwise(void)
{
	static const int both[] = {0, 1};
	SbfFilter	f[2];
	SbfFilter	c;
	SbfFilter	u;
	SbfView		v;
	double		bound = 0.0;

	agg_keys(&f[0], 42, 0, 1000, 0.01);
	agg_keys(&f[1], 42, 1000, 21000, 0.01);
	collect(f, both, 2, 2, &c);
	CHECK_ST(final(&c, 0.05, &u, NULL), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(!sbf_is_compact(&v) && v.nsegments == 2);
	CHECK(sbf_contains_hash(&v, key(42, 0)) && sbf_contains_hash(&v, key(42, 20999)));
	sbf_filter_free(&c);
	sbf_filter_free(&u);
	sbf_filter_free(&f[1]);
	agg_keys(&f[1], 42, 1000, 2000, 0.01);
	collect(f, both, 2, 2, &c);
	sbf_filter_view(&c, &v);
	CHECK_ST(final(&c, 0.0, &u, &bound), SBF_E_OVER_BUDGET);
	CHECK(u.base == NULL && bound > 0.01 && bound == sbf_fpr_bound(&v));
	sbf_filter_free(&c);
	sbf_filter_free(&f[0]);
	sbf_filter_free(&f[1]);
}

/*
 * The count after a union that keeps fewer fingerprints than its inputs
 * held: 40 overlapping days of 30 elements at 1% (b = 12) united within
 * 30%, 810 elements in 4,096 fingerprint values (about 80 collide):
 * OVERLAP, and # the elements the fingerprints stand for (within 2% of 810,
 * where n is short by the collisions); the same bytes from the aggregate's
 * final; two small disjoint sets whose fingerprints stay apart count
 * exactly, OVERLAP clear.
 */
static void
counts_elements(void)
{
	SbfFilter	f[40];
	int			order[40];
	SbfFilter	c;
	SbfFilter	u;
	SbfFilter	w;
	SbfView		v;
	int			i;

	for (i = 0; i < 40; i++)
	{
		agg_keys(&f[i], 44, (uint64_t) i * 20, (uint64_t) i * 20 + 30, 0.01);
		order[i] = 39 - i;
	}
	CHECK_ST(unite_all(f, 40, 0.3, &u, NULL), SBF_OK);
	collect(f, order, 40, 7, &c);
	CHECK_ST(final(&c, 0.3, &w, NULL), SBF_OK);
	CHECK(same_bytes(&u, &w));
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && v.fp_bits == 12 && (v.flags & SBF_COMPACT_FLAG_OVERLAP) != 0);
	CHECK(v.nfp < 770 && sbf_cardinality(&v) > 793.8 && sbf_cardinality(&v) < 826.2);
	sbf_filter_free(&c);
	sbf_filter_free(&u);
	sbf_filter_free(&w);
	for (i = 0; i < 40; i++)
		sbf_filter_free(&f[i]);
	agg_keys(&f[0], 45, 0, 5, 0.01);
	agg_keys(&f[1], 45, 5, 10, 0.01);
	CHECK_ST(unite_all(f, 2, 0.0, &u, NULL), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && (v.flags & SBF_COMPACT_FLAG_OVERLAP) == 0 &&
		  sbf_cardinality(&v) == 10.0);
	sbf_filter_free(&u);
	sbf_filter_free(&f[0]);
	sbf_filter_free(&f[1]);
}

/* Every failed allocation: SBF_E_NOMEM and no result, then success. */
static void
failed_allocations(void)
{
	static const int both[] = {0, 1};
	SbfFilter	f[2];
	SbfFilter	c;
	long		k;

	agg_keys(&f[0], 43, 0, 300, 0.01);
	agg_keys(&f[1], 43, 200, 500, 0.01);
	collect(f, both, 2, 2, &c);
	for (k = 0; k < 20; k++)
	{
		SbfFilter	u;
		SbfView		v;
		SbfStatus	st;

		g_fail_after = k;
		st = final(&c, 0.05, &u, NULL);
		g_fail_after = -1;
		CHECK(st == SBF_OK || (st == SBF_E_NOMEM && u.base == NULL));
		if (st == SBF_OK)
		{
			CHECK_ST(validate_filter(&u, &v), SBF_OK);
			CHECK(sbf_is_compact(&v));
		}
		sbf_filter_free(&u);
		if (st == SBF_OK)
			break;
	}
	CHECK(k > 0 && k < 20);
	sbf_filter_free(&c);
	sbf_filter_free(&f[0]);
	sbf_filter_free(&f[1]);
}

int
main(void)
{
	RUN(as_the_inputs_union);
	RUN(one_input_back);
	RUN(segments_otherwise);
	RUN(counts_elements);
	RUN(failed_allocations);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
