/*
 * agg_core_bench.c
 *	  The stages of sbf_agg's build on the core alone (no server): hashing
 *	  n distinct bigints (sbf_hash_int64, as sbf_agg(bigint) does), adding
 *	  them to the hash set (sbf_hs_add: the buffer, its sort and the merges),
 *	  the final build (sbf_hs_build: HyperLogLog and the segment), and for
 *	  comparison a spill-sized run sort (sbf_hash_sort_unique of runs of
 *	  174,762 hashes, work_mem 4MB / 24 bytes).  Prints ns per element of
 *	  each stage (thread CPU time, median of REPS) and a digest of the built
 *	  bytes, so two builds of the code can be compared for speed and bytes.
 *	  Never a pass/fail test; also the target of perf record and callgrind.
 *
 *	    cc -O2 $(find src/core -type d -printf '-I%p ') -o /tmp/agg_core_bench test/bench/agg_core_bench.c $(find src/core -name '*.c') -lm
 *	    /tmp/agg_core_bench [n ...]      (default 1000000 10000000)
 *	  REPS (environment): repetitions (default 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "bench_util.h"
#include "sbf_hashset_int.h"

#define MAX_REPS	9
#define RUN_HASHES	174762

static void
run(uint64_t n, int reps)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t   *tmp = malloc(RUN_HASHES * sizeof(uint64_t));
	uint32_t   *count = malloc(sbf_hash_sort_count_size(RUN_HASHES) * sizeof(uint32_t) + 8);
	double		th[MAX_REPS], ta[MAX_REPS], tb[MAX_REPS], ts[MAX_REPS];
	uint64_t	dig = 0;
	size_t		len = 0;
	SbfParams	p;
	int			r;

	p.capacity = SBF_DEFAULT_CAPACITY;
	p.error_rate = SBF_DEFAULT_ERROR_RATE;
	p.growth = SBF_DEFAULT_GROWTH;
	p.tightening = SBF_DEFAULT_TIGHTENING;
	p.hll_p = SBF_HLL_P_DEFAULT;
	for (r = 0; r < reps; r++)
	{
		SbfHashSet	s;
		SbfHsScratch sc = {NULL, 0, NULL, &bench_allocator, 0};
		SbfFilter	f;
		double		t0;
		uint64_t	i;
		uint64_t	sink = 0;

		t0 = bench_cpu_now();
		for (i = 0; i < n; i++)
			h[i] = sbf_hash_int64((int64_t) i + 1);
		th[r] = bench_cpu_now() - t0;

		sbf_hs_init(&s, &bench_allocator, &p, SBF_HS_AGG_THRESHOLD);
		t0 = bench_cpu_now();
		for (i = 0; i < n; i++)
			if (sbf_hs_add(&s, h[i], &sc) != SBF_OK)
				abort();
		if (sbf_hs_flush(&s, &sc) != SBF_OK)
			abort();
		ta[r] = bench_cpu_now() - t0;

		t0 = bench_cpu_now();
		if (sbf_hs_build(&s, &p, 0, &bench_allocator, &f) != SBF_OK)
			abort();
		tb[r] = bench_cpu_now() - t0;
		dig = bench_digest(f.base, f.len);
		len = f.len;
		sbf_filter_free(&f);
		sbf_hs_free(&s);
		sbf_hs_scratch_free(&sc);

		t0 = bench_cpu_now();
		for (i = 0; i < n; i += RUN_HASHES)
		{
			uint64_t	k = n - i < RUN_HASHES ? n - i : RUN_HASHES;

			sink += sbf_hash_sort_unique(h + i, k, tmp, count);
		}
		ts[r] = bench_cpu_now() - t0;
		if (sink != n)
			abort();
	}
	printf("%10llu  hash %6.1f  hs_add %6.1f  build %6.1f  total %6.1f  | run sort %6.1f ns/elem  bytes %zu digest %016llx\n",
		   (unsigned long long) n, bench_median(th, reps) * 1e9 / n,
		   bench_median(ta, reps) * 1e9 / n, bench_median(tb, reps) * 1e9 / n,
		   (bench_median(th, reps) + bench_median(ta, reps) + bench_median(tb, reps)) * 1e9 / n,
		   bench_median(ts, reps) * 1e9 / n, len, (unsigned long long) dig);
	free(h);
	free(tmp);
	free(count);
}

int
main(int argc, char **argv)
{
	int			reps = getenv("REPS") ? atoi(getenv("REPS")) : 3;
	int			i;

	if (reps < 1 || reps > MAX_REPS)
		reps = 3;
	if (argc < 2)
	{
		run(1000000, reps);
		run(10000000, reps);
		return 0;
	}
	for (i = 1; i < argc; i++)
		run(strtoull(argv[i], NULL, 10), reps);
	return 0;
}
