/*
 * grown_small_ab.c
 *	  A filter grown by adds from the defaults (capacity 1,000, 1%, growth
 *	  2, tightening 0.9) to n = 1,000 / 2,000 / 3,000 / 5,000 distinct hashes:
 *	  its payload bytes + 4 (pg_column_size) and the nanoseconds a probe costs
 *	  through a plan (sbf_plan_count, batches of 64, as the server's
 *	  sbf_matches), absent and present elements, the best of 7 rounds of 4M
 *	  probes.  Built against two cores by grown_small_ab.sh.  Timings are the
 *	  machine's: only the ratio of the two builds in one run counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_plan.h"
#include "bench_util.h"

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

int
main(void)
{
	static const uint64_t ns[] = {1000, 2000, 3000, 5000};
	const uint64_t probes = 4000000;
	uint64_t	found = 0;

	for (size_t j = 0; j < sizeof(ns) / sizeof(ns[0]); j++)
	{
		SbfParams	p = {SBF_DEFAULT_CAPACITY, SBF_DEFAULT_ERROR_RATE,
		SBF_DEFAULT_TIGHTENING, SBF_DEFAULT_GROWTH, SBF_HLL_P_DEFAULT};
		SbfFilter	f;
		SbfPlan    *plan = NULL;
		uint64_t	batch[64];
		double		best[2] = {1e9, 1e9};

		if (sbf_create(&f, &p, 0, &bench_allocator) != SBF_OK)
			return 1;
		for (uint64_t i = 0; i < ns[j]; i++)
			if (sbf_add_hash(&f, mix(i), NULL) != SBF_OK)
				return 1;
		if (sbf_plan_build(SBF_PAYLOAD(&f), f.len, &bench_allocator, &plan) != SBF_OK)
			return 1;
		for (int r = 0; r < 7; r++)
			for (int present = 0; present < 2; present++)
			{
				double		t = seconds();

				for (uint64_t i = 0; i < probes; i += 64)
				{
					for (int q = 0; q < 64; q++)
						batch[q] = present ? mix((i + q) % ns[j]) : mix(i + q + (1ULL << 60));
					found += sbf_plan_count(plan, batch, 64);
				}
				t = (seconds() - t) / (double) probes * 1e9;
				if (t < best[present])
					best[present] = t;
			}
		printf("n %5lu bytes %6zu absent_ns %5.1f present_ns %5.1f\n",
			   (unsigned long) ns[j], f.len + 4, best[0], best[1]);
		sbf_plan_free(plan, &bench_allocator);
		sbf_filter_free(&f);
	}
	return found == 0;
}
