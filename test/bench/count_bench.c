/*
 * count_bench.c
 *	  # (sbf_cardinality: the directory count), sbf_info's directory walks
 *	  (sbf_segments_describe, sbf_expected_fpr, sbf_fpr_bound) on issue 39's
 *	  crafted shape: many one-line blocked segments.  Shapes:
 *	    equal     every segment n = 3 at 1e-4 (one geometry, one count)
 *	    alt3      n = 1 + i % 3 at 1e-4 (issue 39's alternating value)
 *	    altk      n = 20 at a share cycling over 1e-2..1e-5 (alternating k)
 *	    distinct  n = 1 + i % 97 at a share cycling over five (485 keys)
 *	    heavy     n = 150 + i % 150 at 0.45: one line of k = 1 each, the
 *	              series longest (lambda up to 300), no two neighbours alike
 *	  Prints, per shape, the median time of each over reps runs and the
 *	  count's bits (%a), so two builds' answers can be compared exactly.
 *	  Run by count_compare.sh (this tree's core against a base commit's).
 *	    usage: count_bench shape nsegments reps
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "bench_util.h"
#include "sbf_internal.h"
#include "sbf_kind.h"
#include "../fuzz/craft4.h"

static void
shape_of(const char *shape, uint32_t i, Craft4Seg *s)
{
	static const double shares[5] = {1e-2, 1e-3, 1e-4, 1e-5, 3e-3};

	*s = (Craft4Seg) {SBF_KIND_BLOCKED, 3, 1e-4, 77 + i};
	if (strcmp(shape, "alt3") == 0)
		s->n = 1 + i % 3;
	else if (strcmp(shape, "altk") == 0)
	{
		s->n = 20;
		s->share = shares[i % 4];
	}
	else if (strcmp(shape, "distinct") == 0)
	{
		s->n = 1 + i % 97;
		s->share = shares[i % 5];
	}
	else if (strcmp(shape, "heavy") == 0)
	{
		s->n = 150 + i % 150;
		s->share = 0.45;
	}
}

int
main(int argc, char **argv)
{
	const char *shape = argc > 1 ? argv[1] : "alt3";
	uint32_t	nseg = argc > 2 ? (uint32_t) atoi(argv[2]) : 4096;
	int			reps = argc > 3 ? atoi(argv[3]) : 5;
	Craft4Seg  *segs = malloc(sizeof(Craft4Seg) * nseg);
	double	   *tc = malloc(sizeof(double) * reps);
	double	   *ti = malloc(sizeof(double) * reps);
	SbfSegmentDesc *d = malloc(sizeof(SbfSegmentDesc) * nseg);
	size_t		len;
	uint8_t    *buf;
	SbfView		v;
	double		c = 0.0;
	double		e = 0.0;
	uint32_t	i;
	int			r;

	for (i = 0; i < nseg; i++)
		shape_of(shape, i, &segs[i]);
	buf = craft4(segs, nseg, 0, &len);
	if (buf == NULL || sbf_validate(buf, len, &v) != SBF_OK)
	{
		printf("invalid\n");
		return 1;
	}
	for (r = 0; r < reps; r++)
	{
		double		t0 = bench_wall_now();

		c = sbf_cardinality(&v);
		tc[r] = bench_wall_now() - t0;
		t0 = bench_wall_now();
		sbf_segments_describe(&v, d);
		e = sbf_expected_fpr(&v) + sbf_fpr_bound(&v);
		ti[r] = bench_wall_now() - t0;
	}
	/* shape segments bytes count_ms walks_ms count_bits walks_bits */
	printf("%s %u %zu %.3f %.3f %a %a\n", shape, v.nsegments, len,
		   bench_median(tc, reps) * 1e3, bench_median(ti, reps) * 1e3, c, e);
	free(segs);
	free(tc);
	free(ti);
	free(d);
	free(buf);
	return 0;
}
