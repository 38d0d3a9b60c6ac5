/*
 * growth_bench.c
 *	  Memory after 1000x growth by adds (issue 27; docs/format4.md, sections
 *	  4 and 6): a filter of capacity 1,000, growth 2, tightening 0.9 grown
 *	  to ten full segments (1,023,000 elements), at error_rate 1% and 0.1%.
 *	  For each rule of the appended segments' kind -- 1.2 (every segment
 *	  bloom), pure blocked, and the hybrid (blocked while the share is at
 *	  least 1e-3, bloom below; the first segment blocked) -- the bits per
 *	  element of the segments by the kinds' planners; then the rule the core
 *	  writes (and 1.2's, through sbf_write_v2) by real adds: the whole value's
 *	  bytes per element and the false-positive rate measured on 1,000,000
 *	  absent elements.
 *	  bash test/bench/growth_bench.sh
 */
#include <stdio.h>
#include <stdlib.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "bench_util.h"
#include "sbf_internal.h"
#include "sbf_dir.h"

#define GROWN	1023000u

/*
 * Bits per element of the ten segments (1.2's SIZING chain: capacity 1000
 * s^i, error (1 - r) of the budget left) when the first segment is blocked
 * unless first_bloom, and appended ones follow bloom_below.
 */
static double
planned_bits(double e, bool first_bloom, double bloom_below)
{
	double		spent = 0.0;
	uint64_t	cap = 1000;
	uint64_t	held = 0;
	uint64_t	bits = 0;
	int			i;

	for (i = 0; held < GROWN; i++)
	{
		double		p = sbf_next_error(e, 0.9, spent, 0.5);
		SbfKindGeom g;
		uint64_t	bytes;
		SbfStatus	st;

		if (i == 0)
			st = first_bloom ? sbf_kind_bloom_ops.plan(cap, p, &g, &bytes) :
				sbf_kind_blocked_ops.plan(cap, p, &g, &bytes);
		else
			st = sbf_grow_plan_rule(cap, p, bloom_below, &g, &bytes);
		if (st != SBF_OK)
			return -1.0;
		bits += bytes * 8;
		held += cap;
		spent += p;
		cap *= 2;
	}
	return (double) bits / (double) held;
}

/* Real adds of GROWN elements: the value's bits per element and measured rate. */
static void
grown(double e, bool v2, double *bits, double *fpr, uint32_t *nseg, int *kinds)
{
	SbfParams	p = {1000, e, 0.9, 2, 9};
	SbfFilter	f;
	SbfView		v;
	uint64_t	i;
	uint64_t	fp = 0;
	uint32_t	s;

	sbf_write_v2 = v2;
	if (sbf_create(&f, &p, 0, &bench_allocator) != SBF_OK)
		exit(1);
	for (i = 0; i < GROWN; i++)
		if (sbf_add_hash(&f, sbf_hash_int64((int64_t) i), NULL) != SBF_OK)
			exit(1);
	sbf_write_v2 = false;
	if (sbf_validate(SBF_PAYLOAD(&f), f.len, &v) != SBF_OK)
		exit(1);
	for (i = 0; i < 1000000; i++)
		fp += sbf_contains_hash(&v, sbf_hash_int64(-1 - (int64_t) i)) ? 1 : 0;
	*bits = (double) f.len * 8 / GROWN;
	*fpr = (double) fp / 1e6;
	*nseg = v.nsegments;
	kinds[0] = kinds[1] = kinds[2] = 0;
	for (s = 0; s < v.nsegments; s++)
	{
		SbfSegment	seg;

		sbf_get_segment(&v, s, &seg);
		kinds[seg.kind == SBF_KIND_BLOOM ? 0 : seg.kind == SBF_KIND_BLOCKED ? 1 : 2]++;
	}
	sbf_filter_free(&f);
}

int
main(void)
{
	static const double rates[] = {0.01, 0.001};
	int			r;

	printf("segments only, planned (1,023,000 elements, 10 segments):\n");
	printf("%-8s %10s %14s %10s\n", "e", "1.2 bloom", "pure blocked", "hybrid");
	for (r = 0; r < 2; r++)
		printf("%-8g %10.2f %14.2f %10.2f\n", rates[r],
			   planned_bits(rates[r], true, 1.0),
			   planned_bits(rates[r], false, 0.0),
			   planned_bits(rates[r], false, SBF_GROW_BLOOM_BELOW));
	printf("\nhybrid by threshold (blocked while the share >= t), e = 1%% and 0.1%%:\n");
	{
		static const double ts[] = {1e-3, 7e-4, 5e-4, 4e-4, 3e-4, 1e-4};
		int			t;

		for (t = 0; t < 6; t++)
			printf("t = %-8g %8.2f %8.2f\n", ts[t], planned_bits(0.01, false, ts[t]),
				   planned_bits(0.001, false, ts[t]));
	}
	printf("\nreal adds, whole value (header, directory, HyperLogLog):\n");
	printf("%-8s %-8s %10s %10s %8s %s\n", "e", "writer", "bits/elem", "fpr", "segs",
		   "bloom/blocked/fused");
	for (r = 0; r < 2; r++)
	{
		int			w;

		for (w = 0; w < 2; w++)
		{
			double		bits;
			double		fpr;
			uint32_t	nseg;
			int			kinds[3];

			grown(rates[r], w == 0, &bits, &fpr, &nseg, kinds);
			printf("%-8g %-8s %10.2f %10.5f %8u %d/%d/%d\n", rates[r],
				   w == 0 ? "1.2" : "1.3", bits, fpr, nseg, kinds[0], kinds[1], kinds[2]);
		}
	}
	return 0;
}
