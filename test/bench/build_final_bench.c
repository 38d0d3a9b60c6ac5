/*
 * build_final_bench.c
 *	  The final build of sbf_agg on the core alone: sbf_build_final on n
 *	  strictly ascending distinct hashes (sbf_hash_int64 of 1..n, sorted), as
 *	  the aggregate's final function calls it after merging its state (the
 *	  fused kind up to 2^22 hashes, blocked above).  Each repetition times one
 *	  build (the thread's CPU time; the median of REPS after one warm-up
 *	  build) and prints a digest of the bytes, so two builds of the core can
 *	  be compared for speed and bytes (build_compare.sh).  The first build
 *	  of a size ("cold") is timed apart with its minor page faults: in a
 *	  fresh process (as a fresh backend) its scratch is memory never touched
 *	  before, which costs a page fault a 4 kB page.  Never a pass/fail
 *	  test.
 *
 *	    cc -O2 -Isrc/core -o /tmp/bfb test/bench/build_final_bench.c src/core/[a-z]*.c -lm
 *	    /tmp/bfb REPS n [n ...]
 *	  prints per n: "n median-ns-per-hash bytes digest cold-ns-per-hash
 *	  cold-faults" (run one size a process for a cold figure of a fresh
 *	  process).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "bench_util.h"

#define MAX_REPS	31

/* Minor page faults of the process so far. */
static long
faults(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return u.ru_minflt;
}

static int
cmp_u64(const void *pa, const void *pb)
{
	uint64_t	a = *(const uint64_t *) pa;
	uint64_t	b = *(const uint64_t *) pb;

	return (a > b) - (a < b);
}

static void
run(uint64_t n, int reps)
{
	uint64_t   *h = malloc((n ? n : 1) * sizeof(uint64_t));
	double		t[MAX_REPS];
	SbfParams	p;
	uint64_t	dig = 0;
	size_t		len = 0;
	double		cold = 0;
	long		cold_faults = 0;
	uint64_t	i;
	int			r;

	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64((int64_t) i + 1);
	qsort(h, n, sizeof(uint64_t), cmp_u64);
	p.capacity = SBF_DEFAULT_CAPACITY;
	p.error_rate = SBF_DEFAULT_ERROR_RATE;
	p.growth = SBF_DEFAULT_GROWTH;
	p.tightening = SBF_DEFAULT_TIGHTENING;
	p.hll_p = SBF_HLL_P_DEFAULT;
	for (r = -1; r < reps; r++)
	{
		SbfFilter	f;
		long		f0 = faults();
		double		t0 = bench_cpu_now();

		if (sbf_build_final(&f, &p, h, n, 0, &bench_allocator) != SBF_OK)
			abort();
		if (r >= 0)
			t[r] = bench_cpu_now() - t0;
		else
		{
			cold = bench_cpu_now() - t0;
			cold_faults = faults() - f0;
		}
		dig = bench_digest(f.base, f.len);
		len = f.len;
		sbf_filter_free(&f);
	}
	qsort(t, reps, sizeof(double), bench_cmp_double);
	printf("%llu %.2f %zu %016llx %.2f %ld\n", (unsigned long long) n,
		   t[reps / 2] * 1e9 / (double) (n ? n : 1), len, (unsigned long long) dig,
		   cold * 1e9 / (double) (n ? n : 1), cold_faults);
	free(h);
}

int
main(int argc, char **argv)
{
	int			reps = argc > 1 ? atoi(argv[1]) : 5;
	int			i;

	if (reps < 1 || reps > MAX_REPS)
		reps = 5;
	for (i = 2; i < argc; i++)
		run(strtoull(argv[i], NULL, 10), reps);
	return 0;
}
