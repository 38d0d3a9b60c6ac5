/*
 * hash_sort_ab.c
 *	  sbf_hash_sort_unique (core/common/sbf_hash_sort.c) on runs of n hashes:
 *	  what the hash set's buffer, the glue's spilled runs and a window's
 *	  waiting pairs sort.  Distinct uniform hashes at n from 20,000 to 4M,
 *	  and 1M hashes of 1,000 and of 100,000 distinct (repeats).  Per case the
 *	  median of REPS sorts (thread CPU time, ns a hash) and a digest of the
 *	  sorted distinct hashes, so that two builds of the core can be compared
 *	  (hash_sort_ab.sh).  Never a pass/fail test.
 *
 *	    cc -O2 $(find src/core -type d -printf '-I%p ') -Itest/bench -o /tmp/hsab test/bench/hash_sort_ab.c $(find src/core -name '[a-z]*.c') -lm
 *	    /tmp/hsab [REPS]      (default 7)
 */
#include <stdio.h>
#include <stdlib.h>

#include "sbf_core.h"
#include "sbf_hash_sort.h"
#include "bench_util.h"

/* One case: n hashes of ids i % distinct (distinct 0: all distinct). */
static void
sort_case(uint64_t n, uint64_t distinct, int reps)
{
	uint64_t   *src = malloc(n * sizeof(uint64_t));
	uint64_t   *dst = malloc(n * sizeof(uint64_t));
	uint32_t   *count = malloc((sbf_hash_sort_count_size(n) + 1) * sizeof(uint32_t));
	double	   *t = malloc((size_t) reps * sizeof(double));
	uint64_t	k = 0;
	uint64_t	dig = 0;
	uint64_t	i;
	int			r;

	if (src == NULL || dst == NULL || count == NULL || t == NULL)
		abort();
	for (i = 0; i < n; i++)
		src[i] = sbf_hash_int64((int64_t) (distinct ? i % distinct : i));
	for (r = 0; r < reps; r++)
	{
		double		t0 = bench_cpu_now();

		k = sbf_hash_sort_unique(src, n, dst, count);
		t[r] = (bench_cpu_now() - t0) * 1e9 / (double) n;
	}
	for (i = 0; i < k; i++)
		dig = dig * 31 + dst[i];
	printf("sort: n %llu distinct %llu %.2f ns a hash (%llu kept, digest %016llx)\n",
		   (unsigned long long) n, (unsigned long long) (distinct ? distinct : n),
		   bench_median(t, reps), (unsigned long long) k, (unsigned long long) dig);
	free(t);
	free(count);
	free(dst);
	free(src);
}

int
main(int argc, char **argv)
{
	static const uint64_t sizes[] = {20000, 65536, 262144, 524288, 1048576, 4194304};
	int			reps = argc > 1 ? atoi(argv[1]) : 7;
	size_t		i;

	if (reps < 1)
		reps = 1;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		sort_case(sizes[i], 0, reps);
	sort_case(1048576, 1000, reps);
	sort_case(1048576, 100000, reps);
	return 0;
}
