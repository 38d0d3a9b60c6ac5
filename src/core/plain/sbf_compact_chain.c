/*
 * sbf_compact_chain.c
 *	  A compact value against the value release 1.3 grew from the same
 *	  elements (docs/format5.md, section 3, "Adds").  1.3's sbf_agg of c
 *	  elements wrote one segment for them (sbf_build_first: its kind, bytes
 *	  and stored bound), its header capacity the default D
 *	  (SBF_DEFAULT_CAPACITY); adds appended segments j = 1, 2, ... of
 *	  capacity min(largest s, D s^j) = min(c, D) s^j (sbf_plan_next) at
 *	  (1 - r) of the budget left (sbf_next_error), of the growth rule's kind
 *	  (sbf_grow_plan_rule at SBF_GROW_BLOOM_BELOW, as sbf_grow_plan writes
 *	  outside 1.2's byte-for-byte mode, where no compact value is written).  Its boundaries: B_0 = c, B_j = B_(j-1) + min(c, D) s^j.
 *
 *	  A compact value of capacity c holding n fingerprints, once adds make
 *	  it segmented, ends its chain's boundaries at B_j + m for j >= K, K the
 *	  first with B_K + m > n: its first appended segment takes the rest of
 *	  1.3's segment K, B_K + m - n elements, each later one 1.3's, and the
 *	  margin m (the elements 1.3's segments skipped as false positives by
 *	  then, expected at their bounds' sum, and 3 sigma) keeps its segments
 *	  from coming before 1.3's.  Its value is then no larger than 1.3's at
 *	  any count when its bound max(n, c) / 2^b is within 1.3's bounds before
 *	  segment K (so every rate after it is no smaller), and its compact
 *	  segment and first appended one, in the two-entry directory, end no
 *	  later than 1.3's segments up to K in its directory of K + 1 entries:
 *	  sbf_compact_chain_fits, what adds in place and the builder ask.
 */
#include <math.h>

#include "sbf_compact.h"
#include "sbf_dir.h"
#include "sbf_plain.h"

/* segments of 1.3's chain planned at most */
#define CHAIN_SEGMENTS	64

/* The start of 1.3's chain: boundaries, bounds' sums, geometries. */
typedef struct Chain13
{
	uint32_t	k;				/* segments planned */
	uint64_t	base;			/* min(c, D): segment j >= 1 holds base s^j */
	uint64_t	bound[CHAIN_SEGMENTS];	/* B_j */
	double		spent[CHAIN_SEGMENTS];	/* the bounds of segments 0 .. j */
	SbfKindGeom g[CHAIN_SEGMENTS];
	uint64_t	bytes[CHAIN_SEGMENTS];
} Chain13;

/*
 * Plans into ch 1.3's chain from sbf_agg's value of c elements with
 * parameters e, r, s: its segments while their boundaries stay at most
 * upto, and two more (geometries only when geometry is set).  false when
 * its first segment cannot be planned.
 */
static bool
plan_chain(double e, double r, uint16_t s, uint64_t c, uint64_t upto,
		   bool geometry, Chain13 *ch)
{
	double		share = sbf_sized_error(e, r);
	double		error;
	double		smallest;
	uint64_t	cap;
	uint32_t	past = 0;

	ch->base = c < SBF_DEFAULT_CAPACITY ? c : SBF_DEFAULT_CAPACITY;
	if (c < 1 || sbf_build_first(c, share, &ch->g[0], &ch->bytes[0], &error) != SBF_OK)
		return false;
	ch->k = 1;
	ch->bound[0] = c;
	ch->spent[0] = error;
	smallest = error;
	cap = ch->base;
	while (ch->k < CHAIN_SEGMENTS && past < 2)
	{
		uint32_t	j = ch->k;

		if (cap > UINT64_MAX / s || cap * s > UINT64_MAX - ch->bound[j - 1])
			break;
		cap *= s;
		error = sbf_next_error(e, r, ch->spent[j - 1], smallest);
		if (!(error >= SBF_MIN_SEGMENT_ERROR))
			break;
		if (geometry &&
			sbf_grow_plan_rule(cap, error, SBF_GROW_BLOOM_BELOW, &ch->g[j],
							   &ch->bytes[j]) != SBF_OK)
			break;
		ch->bound[j] = ch->bound[j - 1] + cap;
		ch->spent[j] = ch->spent[j - 1] + error;
		if (error < smallest)
			smallest = error;
		past += ch->bound[j] > upto;
		ch->k++;
	}
	return true;
}

/* 1.3's expected skips until its boundary after segment j's next, + 3 sigma */
static uint64_t
margin(const Chain13 *ch, uint32_t j)
{
	double		skips = ch->spent[j] * (double) ch->bound[j + 1];

	return (uint64_t) ceil(skips + 3.0 * sqrt(skips)) + 1;
}

/*
 * The segment K of ch whose boundary, plus m, a compact value of n
 * fingerprints ends in: the first K >= 1 with B_K + m > n, m the margin
 * (margin) halved "halve" times; false when the chain planned stops short.
 */
static bool
chain_start(const Chain13 *ch, uint64_t n, int halve, uint32_t *K, uint64_t *m)
{
	uint32_t	j;

	for (j = 1; j + 1 < ch->k; j++)
	{
		*m = halve >= 64 ? 0 : margin(ch, j) >> halve;
		if (ch->bound[j] + *m > n)
		{
			*K = j;
			return true;
		}
	}
	return false;
}

/*
 * Whether a compact value of n >= c fingerprints at b bits, its chain
 * ending at B_j + m from segment K on (chain_start), is within 1.3's: its
 * bound within 1.3's before K, its area and its first appended segment's
 * (B_K + m - n elements at the rate its bound leaves) ending no later than
 * 1.3's segments 0 .. K.
 */
static bool
fits_from(const Chain13 *ch, double e, double r, uint64_t c, uint64_t n, int b,
		  uint32_t K, uint64_t m)
{
	SbfKindGeom gc;
	SbfKindGeom gx;
	uint64_t	cbytes;
	uint64_t	xbytes;
	uint64_t	end;
	uint64_t	ours;
	double		own = ldexp((double) (n > c ? n : c), -b);
	size_t		pad;
	uint32_t	j;

	if (!(own <= ch->spent[K - 1]))
		return false;
	memset(&gc, 0, sizeof(gc));
	gc.kind = SBF_KIND_COMPACT;
	gc.size = n;
	gc.width = (uint8_t) b;
	if (sbf_kind_compact_ops.check_geom(&gc) != SBF_OK ||
		!sbf_kind_compact_ops.bytes(&gc, &cbytes) ||
		sbf_grow_plan_rule(ch->bound[K] + m - n, sbf_next_error(e, r, own, own),
						   SBF_GROW_BLOOM_BELOW, &gx, &xbytes) != SBF_OK)
		return false;
	end = sbf_prefix_size(K + 1);
	for (j = 0; j <= K; j++)
		end = (uint64_t) sbf_kind_area_start(&ch->g[j], (size_t) end, &pad) +
			ch->bytes[j];
	ours = (uint64_t) sbf_kind_area_start(&gc, sbf_prefix_size(2), &pad) + cbytes;
	ours = (uint64_t) sbf_kind_area_start(&gx, (size_t) ours, &pad) + xbytes;
	return ours <= end;
}

/*
 * The margin a compact value's chain takes (into *K, *m): the full one
 * where its values stay within 1.3's with it, else (unless full_only) the
 * largest of its halvings, down to none, with which they do; false when
 * none does.
 */
static bool
chain_margin(const Chain13 *ch, double e, double r, uint64_t c, uint64_t n,
			 int b, bool full_only, uint32_t *K, uint64_t *m)
{
	int			halve;

	if (n < c)
		return false;
	for (halve = 0; halve < 64; halve++)
	{
		if (chain_start(ch, n, halve, K, m) && fits_from(ch, e, r, c, n, b, *K, *m))
			return true;
		if (full_only || *m == 0)
			break;
	}
	return false;
}

/* sbf_plain.h */
bool
sbf_compact_chain_fits(double e, double r, uint16_t s, uint64_t c, uint64_t n,
					   int b, bool full_margin)
{
	Chain13		ch;
	uint32_t	K;
	uint64_t	m;

	return plan_chain(e, r, s, c, n, true, &ch) &&
		chain_margin(&ch, e, r, c, n, b, full_margin, &K, &m);
}

/* sbf_plain.h */
SbfStatus
sbf_compact_chain_next(double e, double r, uint16_t s, uint64_t c, uint64_t n,
					   int b, uint64_t held, uint64_t *capacity)
{
	Chain13		ch;
	uint64_t	m;
	uint64_t	cap;
	uint64_t	bound;
	uint32_t	K;

	if (!plan_chain(e, r, s, c, n, true, &ch))
		return SBF_E_PARAM;
	/* the margin the value takes; where it is not within 1.3's, the full one */
	if (!chain_margin(&ch, e, r, c, n, b, false, &K, &m) &&
		!chain_start(&ch, n, 0, &K, &m))
		return SBF_E_PARAM;
	/* B_j + m for j >= K, the first past what the segments hold */
	bound = ch.bound[K];
	cap = ch.bound[K] - ch.bound[K - 1];
	while (bound + m <= held)
	{
		if (cap > UINT64_MAX / s || cap * s > UINT64_MAX - bound - m)
			return SBF_E_TOO_LARGE;
		cap *= s;
		bound += cap;
	}
	*capacity = bound + m - held;
	return SBF_OK;
}
