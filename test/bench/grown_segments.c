/*
 * grown_segments.c
 *	  Where a filter grown far past its capacity at growth 1 loses its rate
 *	  (issue 36, item 4; docs/sizing.md, "A known limit"): the filter of
 *	  grown_rates.c (capacity 100 or 1,000 at 1%, tightening 0.9, 200,000
 *	  single adds) probed segment by segment with N absent hashes (default
 *	  1,000,000), the segments summed in bands of their position in the
 *	  chain.  Per band: the stored error shares p (what fpr_bound sums), the
 *	  rate of each segment's bits (rate_of: fill^k, what the sizing formula
 *	  assumes of independent positions), the measured rate, and n/m^2, the
 *	  chance that an absent hash's two double-hashing seeds equal a member's
 *	  modulo m -- a floor that does not shrink with p.  Core only; never a
 *	  pass/fail test.
 *
 *	    bash test/bench/grown_segments.sh [N]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_grown.h"
#include "sbf_kind.h"

/* One band of segments [lo, hi): sums. */
typedef struct Band
{
	uint32_t	lo;
	uint32_t	hi;
	double		p;
	double		rate_of;
	double		floor;
	uint64_t	hits;
	uint64_t	kmin;
	uint64_t	kmax;
} Band;

static void
probe_filter(uint64_t cap, uint64_t nprobe)
{
	static const uint32_t edges[] = {0, 10, 30, 60, 100, 200, 500, 1000, 100000};
	Band		band[8];
	SbfFilter	f;
	SbfView		v;
	SbfSegmentDesc *d;
	uint64_t	i;
	uint64_t	any = 0;
	uint32_t	s;
	int			b;

	bench_grow(&f, &v, cap, 1, 200000);
	d = malloc(sizeof(*d) * v.nsegments);
	sbf_segments_describe(&v, d);
	for (b = 0; b < 8; b++)
		band[b] = (Band) {edges[b], edges[b + 1], 0, 0, 0, 0, UINT64_MAX, 0};
	for (s = 0; s < v.nsegments; s++)
	{
		const SbfKindOps *o = sbf_kind_ops(d[s].seg.kind);
		const uint8_t *data = v.buf + d[s].seg.words_offset;
		double		m = (double) d[s].g.size;

		for (b = 0; s >= band[b].hi; b++)
			;
		band[b].p += d[s].seg.error;
		band[b].rate_of += o->rate_of(&d[s].g, data);
		band[b].floor += (double) d[s].seg.count / (m * m);
		band[b].kmin = d[s].g.width < band[b].kmin ? d[s].g.width : band[b].kmin;
		band[b].kmax = d[s].g.width > band[b].kmax ? d[s].g.width : band[b].kmax;
		for (i = 0; i < nprobe; i++)
			band[b].hits += o->contains(&d[s].g, data, bench_grown_key(1, i)) ? 1 : 0;
	}
	for (i = 0; i < nprobe; i++)
		any += sbf_contains_hash(&v, bench_grown_key(1, i)) ? 1 : 0;
	printf("\n## capacity %llu, growth 1: %u segments, measured rate %.5f, fpr_bound %.5f\n",
		   (unsigned long long) cap, v.nsegments, (double) any / (double) nprobe,
		   sbf_fpr_bound(&v));
	printf("| segments | k | sum p | sum rate_of | sum measured | measured / rate_of | sum n/m^2 | (measured - rate_of) / (n/m^2) |\n");
	printf("|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (b = 0; b < 8 && band[b].lo < v.nsegments; b++)
	{
		double		meas = (double) band[b].hits / (double) nprobe;

		printf("| %u-%u | %llu-%llu | %.3g | %.3g | %.3g | %.2f | %.3g | %.2f |\n",
			   band[b].lo, (band[b].hi < v.nsegments ? band[b].hi : v.nsegments) - 1,
			   (unsigned long long) band[b].kmin, (unsigned long long) band[b].kmax,
			   band[b].p, band[b].rate_of, meas, meas / band[b].rate_of, band[b].floor,
			   (meas - band[b].rate_of) / band[b].floor);
	}
	free(d);
	sbf_filter_free(&f);
}

int
main(int argc, char **argv)
{
	uint64_t	nprobe = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;

	printf("# 200,000 single adds at error_rate 0.01, tightening 0.9, growth 1;"
		   " %llu absent probes through every segment\n", (unsigned long long) nprobe);
	probe_filter(100, nprobe);
	probe_filter(1000, nprobe);
	return 0;
}
