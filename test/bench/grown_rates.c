/*
 * grown_rates.c
 *	  Filters grown by single adds (issue 36, item 4: is fpr_bound an upper
 *	  bound, and the rate within error_rate?): for capacities 100, 1,000 and
 *	  10,000 at 1% and growth 1, 2 and 4 (tightening 0.9), 200,000 distinct
 *	  hashes added one at a time, then N absent hashes probed (default
 *	  1,000,000).  Prints the segments, the measured rate with its standard
 *	  error, how many of those it lies above error_rate (z), fpr_bound and
 *	  the fill estimate (sbf_current_fpr, which assumes independent probes).
 *	  Core only; never a pass/fail test.
 *
 *	    bash test/bench/grown_rates.sh [N]
 *	    BASE=0d9b718 bash test/bench/grown_rates.sh [N]	(1.3's core)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_grown.h"

int
main(int argc, char **argv)
{
	static const uint64_t caps[] = {100, 1000, 10000};
	static const uint16_t growths[] = {1, 2, 4};
	uint64_t	nprobe = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	size_t		c,
				g;

	printf("# 200,000 adds at error_rate 0.01, tightening 0.9; %llu absent probes a filter\n",
		   (unsigned long long) nprobe);
	printf("# capacity growth segments     rate    sigma  z(rate - e)  fpr_bound  fill estimate\n");
	for (c = 0; c < 3; c++)
		for (g = 0; g < 3; g++)
		{
			SbfFilter	f;
			SbfView		v;
			uint64_t	i;
			uint64_t	hits = 0;
			double		rate;

			bench_grow(&f, &v, caps[c], growths[g], 200000);
			for (i = 0; i < nprobe; i++)
				hits += sbf_contains_hash(&v, bench_grown_key(1, i));
			rate = (double) hits / (double) nprobe;
			printf("%10llu %6u %8u %8.5f %8.5f %+12.1f %10.5f %14.5f\n",
				   (unsigned long long) caps[c], growths[g], v.nsegments, rate,
				   sqrt(rate * (1 - rate) / (double) nprobe),
				   (rate - 0.01) / sqrt(0.01 * 0.99 / (double) nprobe),
				   sbf_fpr_bound(&v), sbf_current_fpr(&v));
			sbf_filter_free(&f);
		}
	return 0;
}
