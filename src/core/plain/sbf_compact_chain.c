/*
 * sbf_compact_chain.c
 *	  A compact value grown in place against the value release 1.3 grew
 *	  from the same elements (docs/format5.md, section 3, "Adds").  1.3's
 *	  sbf_agg of c elements wrote one segment for them (sbf_build_first: its
 *	  kind, bytes and stored bound), its header capacity the default D
 *	  (SBF_DEFAULT_CAPACITY); adds appended segments j = 1, 2, ... of
 *	  capacity min(largest s, D s^j) = min(c, D) s^j (sbf_plan_next) at
 *	  (1 - r) of the budget left (sbf_next_error), of the growth rule's kind
 *	  (sbf_grow_plan).  A compact value of n >= c fingerprints takes the
 *	  place of that chain's first K segments when it holds at least their
 *	  capacities (for K > 1 with a margin: 1.3 skipped the elements its
 *	  segments falsely held, so its next segment came later by as many --
 *	  their expected count at its bounds' sum, and 3 sigma), its bound max(n, c) / 2^b is within their bounds' sum and
 *	  its area, in the directory of two entries its segmented form has once
 *	  a segment is appended, ends no later than theirs in 1.3's directory of
 *	  K + 1.  Its segmented form then appends 1.3's segment K (header
 *	  capacity min(c, D) s^(K-1)) at a rate no smaller, no earlier than 1.3
 *	  did, and so on: every value on the way is no larger than 1.3's, and
 *	  every value in place is smaller than that form.
 */
#include <math.h>

#include "sbf_compact.h"
#include "sbf_dir.h"
#include "sbf_plain.h"

/* segments of 1.3's chain a compact value may take the place of */
#define CHAIN_SEGMENTS	64

/* The first k segments of 1.3's chain: geometries, capacities and rates. */
typedef struct Chain13
{
	uint32_t	k;
	uint64_t	held;			/* their capacities' sum */
	double		spent;			/* their stored bounds' sum */
	uint64_t	base;			/* min(c, D): segment j holds base s^j */
	SbfKindGeom g[CHAIN_SEGMENTS];
	uint64_t	bytes[CHAIN_SEGMENTS];
} Chain13;

/*
 * Plans into ch the longest start of 1.3's chain from sbf_agg's value of
 * cv's capacity whose capacities sum to at most n.  false when not even
 * its first segment can be planned.
 */
static bool
plan_chain(const SbfCompactView *cv, uint64_t n, Chain13 *ch)
{
	double		share = sbf_sized_error(cv->error_rate, cv->tightening);
	double		error;
	double		smallest;
	uint64_t	cap;

	ch->base = cv->capacity < SBF_DEFAULT_CAPACITY ? cv->capacity :
		SBF_DEFAULT_CAPACITY;
	if (sbf_build_first(cv->capacity, share, &ch->g[0], &ch->bytes[0],
						&error) != SBF_OK)
		return false;
	ch->k = 1;
	ch->held = cv->capacity;
	ch->spent = error;
	smallest = error;
	cap = ch->base;
	while (ch->k < CHAIN_SEGMENTS)
	{
		double		skips;

		if (cap > UINT64_MAX / cv->growth / cv->growth)
			break;
		cap *= cv->growth;
		error = sbf_next_error(cv->error_rate, cv->tightening, ch->spent,
							   smallest);
		/* 1.3's false-positive skips until it fills the next one, + 3 sigma */
		skips = (ch->spent + error) * (double) (ch->held + cap + cap * cv->growth);
		skips += 3.0 * sqrt(skips) + 1.0;
		if (cap > n - ch->held || skips > (double) (n - ch->held - cap))
			break;
		if (!(error >= SBF_MIN_SEGMENT_ERROR) ||
			sbf_grow_plan(cap, error, &ch->g[ch->k], &ch->bytes[ch->k]) != SBF_OK)
			break;
		ch->held += cap;
		ch->spent += error;
		if (error < smallest)
			smallest = error;
		ch->k++;
	}
	return true;
}

/* sbf_plain.h */
bool
sbf_compact_chain(const SbfCompactView *cv, uint64_t n, uint64_t *capacity)
{
	Chain13		ch;
	SbfKindGeom gc;
	uint64_t	cbytes;
	uint64_t	end;
	uint64_t	most = n > cv->capacity ? n : cv->capacity;
	size_t		pad;
	uint32_t	j;

	*capacity = cv->capacity < SBF_DEFAULT_CAPACITY ? cv->capacity :
		SBF_DEFAULT_CAPACITY;
	if (n < cv->capacity || !plan_chain(cv, n, &ch))
		return false;
	if (!(ldexp((double) most, -cv->shape.b) <= ch.spent))
		return false;
	memset(&gc, 0, sizeof(gc));
	gc.kind = SBF_KIND_COMPACT;
	gc.size = n;
	gc.width = (uint8_t) cv->shape.b;
	if (sbf_kind_compact_ops.check_geom(&gc) != SBF_OK ||
		!sbf_kind_compact_ops.bytes(&gc, &cbytes))
		return false;
	end = sbf_prefix_size(ch.k + 1);
	for (j = 0; j < ch.k; j++)
		end = (uint64_t) sbf_kind_area_start(&ch.g[j], (size_t) end, &pad) +
			ch.bytes[j];
	if ((uint64_t) sbf_kind_area_start(&gc, sbf_prefix_size(2), &pad) + cbytes > end)
		return false;
	/* the header capacity whose next segment is 1.3's segment k */
	for (j = 1; j < ch.k; j++)
		*capacity *= cv->growth;
	return true;
}
