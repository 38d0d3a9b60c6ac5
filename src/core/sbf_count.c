/*
 * sbf_count.c
 *	  How many distinct elements a segmented value holds by its directory
 *	  (docs/format.md COUNTS, docs/format4.md section 7, Counts): each
 *	  segment's count of inserts corrected for the elements a false positive
 *	  of the segments before it skipped, and which answer # gives.
 */
#include <math.h>

#include "sbf_dir.h"

/*
 * The model's false-positive rate of the segment of e with x elements: a
 * bloom kind's (1 - e^(-kx/m))^k, a blocked segment's Putze rate at x/L
 * (docs/format4.md, section 7, Counts).
 */
static double
model_fpr(const SbfDirEntry *e, double x)
{
	if (e->g.kind == SBF_KIND_BLOCKED)
		return sbf_blocked_fpr(x / (double) e->g.size, e->g.width);
	return pow(1.0 - exp(-(double) e->g.width * x / (double) e->g.size),
			   (double) e->g.width);
}

/*
 * Expected distinct elements behind a count of c inserts into the segment
 * of e while earlier segments pass a probe with probability pass (1 - their
 * false-positive rate): the integral of dx / (1 - q(x)), q(x) = 1 - pass
 * (1 - fpr(x)), by Simpson's rule.  A fused segment counts its complete set
 * exactly.
 */
static double
segment_distinct(const SbfDirEntry *e, double pass)
{
#define SBF_COUNT_STEPS 64
	uint64_t	c = e->count;
	double		h = (double) c / SBF_COUNT_STEPS;
	double		sum = 0.0;
	int			i;

	if (c == 0)
		return 0.0;
	if (e->g.kind == SBF_KIND_FUSED)
		return (double) c;
	for (i = 0; i <= SBF_COUNT_STEPS; i++)
	{
		double		g = pass * (1.0 - model_fpr(e, h * i));
		double		w = (i == 0 || i == SBF_COUNT_STEPS) ? 1.0 : (i % 2 ? 4.0 : 2.0);

		/* a saturated model (q -> 1) cannot say more than the count */
		sum += w / (g > 1e-9 ? g : 1e-9);
	}
	return sum * h / 3.0;
}

/* The directory estimate of COUNTS, whatever the flags (0 if exact). */
double
sbf_directory_count(const SbfView *v)
{
	double		total = 0.0;
	double		pass = 1.0;
	SbfDirIter	it;
	SbfDirEntry e;

	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
	{
		total += segment_distinct(&e, pass);
		/* the model's false-positive rate of this segment at its count */
		pass *= 1.0 - e.ops->rate_at(&e.g, e.count);
	}
	return total;
}

/* Which answer sbf_cardinality gives: "exact", "directory" or "hll". */
const char *
sbf_count_source(const SbfView *v)
{
	if (sbf_is_exact(v))
		return "exact";
	if (!sbf_version(v->version)->directory_counts ||
		(v->flags & SBF_FLAG_OVERLAP))
		return "hll";
	return "directory";
}
