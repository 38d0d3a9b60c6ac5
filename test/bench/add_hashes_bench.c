/*
 * add_hashes_bench.c
 *	  Micro benchmark of the core's batch add (sbf_add_hashes), as sbf_agg's
 *	  final function uses it: n distinct hashes into a filter right-sized for
 *	  n, in chunks of 65,536.  Prints the best of 7 runs in user CPU time and a
 *	  hash of the resulting payload, so that two builds of the core can be
 *	  compared for speed and for identical bytes (never a pass/fail test):
 *
 *	cc -O2 $(find src/core -type d -printf '-I%p ') -o /tmp/ahb_new test/bench/add_hashes_bench.c $(find src/core -name '*.c') -lm
 *	cc -O2 $(find /tmp/main/src/core -type d -printf '-I%p ') -o /tmp/ahb_base test/bench/add_hashes_bench.c $(find /tmp/main/src/core -name '*.c') -lm
 *	for n in 10000 500000 4000000; do /tmp/ahb_base $n; /tmp/ahb_new $n; done
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "bench_util.h"

/* User CPU seconds of this process. */
static double
cpu_seconds(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6;
}

int
main(int argc, char **argv)
{
	size_t		n = argc > 1 ? strtoull(argv[1], NULL, 10) : 500000;
	uint64_t   *h = malloc((n ? n : 1) * sizeof(uint64_t));
	SbfParams	p = {1000, 0.01, 0.9, 2, 9};
	double		best = 1e9;
	uint64_t	digest = 0;
	size_t		i;
	int			r;

	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64((int64_t) i);
	for (r = 0; r < 7; r++)
	{
		SbfFilter	f;
		size_t		done = 0;
		double		t0;
		double		t;

		if (sbf_create_sized(&f, &p, n ? n : 1, 0, &bench_allocator) != SBF_OK)
			return 1;
		t0 = cpu_seconds();
		while (done < n)
		{
			size_t		c = n - done < 65536 ? n - done : 65536;

			if (sbf_add_hashes(&f, h + done, c) != SBF_OK)
				return 1;
			done += c;
		}
		t = cpu_seconds() - t0;
		if (t < best)
			best = t;
		digest = sbf_hash(SBF_PAYLOAD(&f), f.len);
		sbf_filter_free(&f);
	}
	printf("n=%zu: best %.1f ms, %.1f ns per hash, payload xxh3 %016llx\n",
		   n, best * 1e3, n ? best * 1e9 / n : 0.0, (unsigned long long) digest);
	free(h);
	return 0;
}
