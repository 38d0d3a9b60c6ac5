/*
 * exact_lookup_ab.c
 *	  Lookups in small values through the lookup plan (sbf_plan_contains),
 *	  the path of every server lookup: sbf_agg's final of n distinct
 *	  elements at 1% (the exact form up to about 10 elements, one segment
 *	  above), 10^6 non-members and 10^6 members in no pattern, ns a lookup
 *	  in thread CPU time, median of 7 runs.  Built against two cores by
 *	  exact_lookup_ab.sh; never a pass/fail test.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_plan.h"
#include "bench_util.h"

#define PROBES	1000000
#define REPS	7

static bool
probe_plan(const void *ctx, uint64_t h)
{
	return sbf_plan_contains(ctx, h);
}

int
main(void)
{
	static const size_t sizes[] = {1, 2, 3, 5, 8, 10, 12, 20, 30};
	uint64_t   *neg = malloc(PROBES * sizeof(uint64_t));
	uint64_t   *pos = malloc(PROBES * sizeof(uint64_t));
	SbfParams	p = {SBF_DEFAULT_CAPACITY, SBF_DEFAULT_ERROR_RATE, SBF_DEFAULT_TIGHTENING,
	SBF_DEFAULT_GROWTH, SBF_HLL_P_DEFAULT};
	size_t		s,
				i;

	for (i = 0; i < PROBES; i++)
		neg[i] = sbf_hash_int64(-(int64_t) i - 1);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		size_t		n = sizes[s],
					fps,
					hits;
		uint64_t	h[64];
		SbfFilter	f;
		SbfPlan    *plan;
		double		a,
					b;

		for (i = 0; i < n; i++)
			h[i] = sbf_hash_int64((int64_t) i + 1);
		for (i = 0; i < PROBES; i++)
			pos[i] = h[sbf_hash_int64((int64_t) i + PROBES) % n];
		qsort(h, n, sizeof(uint64_t), bench_cmp_u64);
		if (sbf_build_final(&f, &p, h, n, 0, &bench_allocator) != SBF_OK ||
			sbf_plan_build(f.base, f.len, &bench_allocator, &plan) != SBF_OK)
			abort();
		a = bench_time_probes(probe_plan, plan, neg, PROBES, REPS, &fps);
		b = bench_time_probes(probe_plan, plan, pos, PROBES, REPS, &hits);
		if (hits != PROBES)
			abort();
		printf("n %3zu %-5s bytes %4zu absent_ns %6.2f present_ns %6.2f false_pos %zu\n", n,
			   f.base[0] == 2 ? "exact" : "seg", f.len, a, b, fps);
		sbf_plan_free(plan, &bench_allocator);
		sbf_filter_free(&f);
	}
	free(neg);
	free(pos);
	return 0;
}
