/*
 * sbf_count.c
 *	  How many distinct elements a segmented value holds by its directory
 *	  (docs/format.md COUNTS, docs/format4.md section 7, Counts): each
 *	  segment's count of inserts corrected for the elements a false positive
 *	  of the segments before it skipped, and which answer # gives.
 */
#include <math.h>

#include "sbf_dir.h"
#include "sbf_plain.h"

/*
 * A segment's rate at its capacity taken as at most this in the bound (the
 * validator keeps a bloom entry's at most 0.75, a blocked one's within p),
 * and the bound's product never below the model's floor (1e-9).
 */
#define SBF_COUNT_MAX_RATE	0.75
#define SBF_COUNT_MIN_PASS	1e-9

/* Model evaluations of the directory counts in this process (a statistic for the tests). */
uint64_t	sbf_count_model_calls = 0;

/*
 * What one segment's geometry and count give, whatever segments come
 * before: the model's rate at the count, at the capacity, and at the
 * points of Simpson's rule over [0, c].  The last SBF_COUNT_MEMOS distinct
 * ones are kept (a value of many segments alike, or alternating between a
 * few geometries, models each once): the blocked rate is a sum of a series,
 * 65 of them a segment.  A kept model is the same values, so the count is
 * the same bit for bit.
 */
#define SBF_COUNT_STEPS 64
#define SBF_COUNT_MEMOS 16

typedef struct CountMemo
{
	bool		have;
	SbfKindGeom g;
	uint64_t	count;
	uint64_t	capacity;
	double		rate_count;
	double		rate_full;
	double		fpr[SBF_COUNT_STEPS + 1];
} CountMemo;

typedef struct CountMemos
{
	CountMemo	m[SBF_COUNT_MEMOS];
	uint32_t	next;			/* the one replaced next (round robin) */
} CountMemos;

static bool
memo_is(const CountMemo *m, const SbfDirEntry *e)
{
	return m->have && m->count == e->count && m->capacity == e->capacity &&
		m->g.size == e->g.size && m->g.kind == e->g.kind &&
		m->g.width == e->g.width && m->g.arity == e->g.arity &&
		m->g.log2_len == e->g.log2_len && m->g.attempt == e->g.attempt;
}

/* The model of the segment of e: a kept one, or computed in place of the oldest. */
static const CountMemo *
segment_model(const SbfDirEntry *e, CountMemos *ms)
{
	uint64_t	c = e->count;
	double		h = (double) c / SBF_COUNT_STEPS;
	CountMemo  *m;
	uint32_t	j;
	int			i;

	for (j = 0; j < SBF_COUNT_MEMOS; j++)
		if (memo_is(&ms->m[j], e))
			return &ms->m[j];
	m = &ms->m[ms->next];
	ms->next = (ms->next + 1) % SBF_COUNT_MEMOS;
	sbf_count_model_calls++;
	m->have = true;
	m->g = e->g;
	m->count = c;
	m->capacity = e->capacity;
	m->rate_count = e->ops->rate_at(&e->g, c);
	m->rate_full = e->ops->rate_at(&e->g, e->capacity);
	if (c == 0 || e->ops->model_rate == NULL)
		return m;
	if (e->ops->model_rates != NULL)
		e->ops->model_rates(&e->g, h, SBF_COUNT_STEPS, m->fpr);
	else
		for (i = 0; i <= SBF_COUNT_STEPS; i++)
			m->fpr[i] = e->ops->model_rate(&e->g, h * i);
	return m;
}

/*
 * Expected distinct elements behind a count of c inserts into the segment
 * of e while earlier segments pass a probe with probability pass (1 - their
 * false-positive rate): the integral of dx / (1 - q(x)), q(x) = 1 - pass
 * (1 - fpr(x)), by Simpson's rule over the memo's rates, fpr the kind's
 * model_rate (a bloom kind's (1 - e^(-kx/m))^k, a blocked segment's Putze
 * rate at x/L: docs/format4.md, section 7, Counts).  A complete kind
 * (fused: no model) counts its set exactly.
 */
static double
segment_distinct(const SbfDirEntry *e, const CountMemo *m, double pass)
{
	uint64_t	c = e->count;
	double		h = (double) c / SBF_COUNT_STEPS;
	double		sum = 0.0;
	int			i;

	if (c == 0)
		return 0.0;
	if (e->ops->model_rate == NULL)
		return (double) c;
	for (i = 0; i <= SBF_COUNT_STEPS; i++)
	{
		double		g = pass * (1.0 - m->fpr[i]);
		double		w = (i == 0 || i == SBF_COUNT_STEPS) ? 1.0 : (i % 2 ? 4.0 : 2.0);

		/* a saturated model (q -> 1) cannot say more than the count */
		sum += w / (g > SBF_COUNT_MIN_PASS ? g : SBF_COUNT_MIN_PASS);
	}
	return sum * h / 3.0;
}

/*
 * The directory estimate of COUNTS, whatever the flags (0 if exact).  The
 * bound: a count is at most its capacity (the validator) and the model's
 * rates grow with the count, so 1 - q(x) is never below the product of
 * (1 - rate at capacity) over the segments so far; the validator keeps
 * those rates below 1 (a bloom entry's geometry against its capacity, at
 * most 0.75; blocked at most p).  So a segment counts at most c / that
 * product (never more than c / 1e-9, the model's floor): what its
 * directory can hold, whatever a crafted value's model says.
 */
double
sbf_directory_count(const SbfView *v)
{
	double		total = 0.0;
	double		pass = 1.0;
	double		floor = 1.0;
	CountMemos	ms;
	SbfDirEntry e;

	if (sbf_is_compact(v))
		return sbf_compact_view_count(v);
	memset(&ms, 0, sizeof(ms));
	SBF_DIR_FOREACH(e, v)
	{
		const CountMemo *m = segment_model(&e, &ms);
		double		full;
		double		d;

		full = m->rate_full < SBF_COUNT_MAX_RATE ? m->rate_full : SBF_COUNT_MAX_RATE;
		floor *= 1.0 - full;
		if (floor < SBF_COUNT_MIN_PASS)
			floor = SBF_COUNT_MIN_PASS;
		d = segment_distinct(&e, m, pass);
		if (d > (double) e.count / floor)
			d = (double) e.count / floor;
		total += d;
		/* the model's false-positive rate of this segment at its count */
		pass *= 1.0 - m->rate_count;
		sbf_hook_interrupt();
	}
	return total;
}

/* Which answer sbf_cardinality gives: "exact", "directory" or "hll". */
const char *
sbf_count_source(const SbfView *v)
{
	if (sbf_is_exact(v))
		return "exact";
	if (sbf_is_compact(v))
		return "fingerprints";
	if (!sbf_version(v->version)->directory_counts ||
		(v->flags & SBF_FLAG_OVERLAP))
		return "hll";
	return "directory";
}
