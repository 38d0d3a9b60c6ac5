/*
 * sbf_window4.c
 *	  Building a bucket of a windowed filter (docs/format4.md, section 8):
 *	  a bucket's segment made from its hashes with the kind of
 *	  sbf_win_kind_choose (the smallest of fused, blocked and kind 4).  The
 *	  layer "building a bucket" of the window subsystem (sbf_window_int.h):
 *	  the decode of a directory entry, version 4's segment checks and the
 *	  canonical segment order are read in sbf_window.c, the canonical
 *	  encoding is written in sbf_window_encode.c.
 */
#include <math.h>

#include "sbf_window_int.h"

/*
 * The largest set built fused (its scratch, about 24 bytes a hash, and a
 * build 2-3 times a blocked one); larger buckets are built blocked.  The same
 * limit as the plain builder's (sbf_kind.h defines it there).
 */
#ifndef SBF_FUSED_MAX_BUILD
#define SBF_FUSED_MAX_BUILD		((uint64_t) 1 << 22)
#endif

/*
 * Keeps (g2, b2) in (*g, *bytes) when it planned (st2) and is strictly
 * smaller than what *have holds; ties keep the earlier, faster kind.
 */
static void
keep_smaller(SbfStatus st2, const SbfKindGeom *g2, uint64_t b2,
			 SbfKindGeom *g, uint64_t *bytes, bool *have)
{
	if (st2 != SBF_OK || (*have && b2 >= *bytes))
		return;
	*g = *g2;
	*bytes = b2;
	*have = true;
}

/*
 * The windowed twin of sbf_kind_choose (docs/format4.md, section 8): the
 * smallest area of fused (up to SBF_FUSED_MAX_BUILD hashes), blocked and
 * kind 4 (version 3's WINDOW SIZING) for n hashes at share, leaving out the
 * kinds whose bit (1 << kind) is set in avoid; ties go to the faster kind, in
 * that order.  SBF_E_PARAM or SBF_E_TOO_LARGE when no kind plans.
 */
SbfStatus
sbf_win_kind_choose(uint64_t n, double share, unsigned avoid,
					SbfKindGeom *g, uint64_t *bytes)
{
	SbfKindGeom g2;
	uint64_t	b2 = 0;
	SbfStatus	st;
	SbfStatus	last = SBF_E_PARAM;
	bool		have = false;

	if (!(avoid & (1u << SBF_KIND_FUSED)) && n <= SBF_FUSED_MAX_BUILD)
	{
		st = sbf_kind_fused_ops.plan(n, share, &g2, &b2);
		keep_smaller(st, &g2, b2, g, bytes, &have);
		last = st == SBF_OK ? last : st;
	}
	if (!(avoid & (1u << SBF_KIND_BLOCKED)))
	{
		st = sbf_kind_blocked_ops.plan(n, share, &g2, &b2);
		keep_smaller(st, &g2, b2, g, bytes, &have);
		last = st == SBF_OK ? last : st;
	}
	if (!(avoid & (1u << SBF_KIND_WBLOOM)))
	{
		st = sbf_kind_wbloom_ops.plan(n, share, &g2, &b2);
		keep_smaller(st, &g2, b2, g, bytes, &have);
		last = st == SBF_OK ? last : st;
	}
	return have ? SBF_OK : last;
}

/* Plans (the choice), allocates and builds seg's area; *data owned by a. */
static SbfStatus
plan_and_build(const uint64_t *h, uint32_t n, double share, unsigned avoid,
			   uint64_t max_bytes, const SbfAllocator *a, SbfWinSeg *seg,
			   uint8_t **data, bool *skip)
{
	SbfStatus	st;

	*data = NULL;
	*skip = false;
	st = sbf_win_kind_choose(n, share, avoid, &seg->g, &seg->bytes);
	if (st != SBF_OK)
		return st;
	if (max_bytes != 0 && seg->bytes >= max_bytes)
	{
		*skip = true;
		return SBF_OK;
	}
	if (seg->bytes > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	seg->ops = sbf_kind_ops(seg->g.kind);
	*data = a->alloc((size_t) seg->bytes, a->ctx);
	if (*data == NULL)
		return SBF_E_NOMEM;
	st = seg->ops->build(&seg->g, *data, h, n, a);
	if (st != SBF_OK)
	{
		a->free(*data, a->ctx);
		*data = NULL;
	}
	return st;
}

/*
 * A segment of the n >= 1 strictly ascending hashes h at rate share, of the
 * kind sbf_win_kind_choose gives but none in avoid (a fused build that no
 * seed peels is made again as the smaller of the others), its data allocated through a
 * (owned).  The geometry is planned first: when max_bytes is not 0 and the
 * area would take max_bytes or more, *built is false and nothing is
 * allocated (the caller keeps the pairs).  SBF_E_PARAM or SBF_E_TOO_LARGE:
 * no kind reaches share for n.
 */
SbfStatus
sbf_win_make_segment(const uint64_t *h, uint32_t n, double share,
					 unsigned avoid, uint64_t max_bytes, const SbfAllocator *a,
					 SbfWinSeg *seg, bool *built)
{
	SbfStatus	st;
	uint8_t    *data;
	bool		skip;

	*built = false;
	memset(seg, 0, sizeof(*seg));
	st = plan_and_build(h, n, share, avoid, max_bytes, a, seg, &data, &skip);
	if (st == SBF_E_SEGMENT && seg->g.kind == SBF_KIND_FUSED)
		st = plan_and_build(h, n, share, avoid | (1u << SBF_KIND_FUSED),
							max_bytes, a, seg, &data, &skip);
	if (st != SBF_OK || skip)
		return st;
	seg->count = n;
	seg->bits = data;
	seg->owned = true;
	seg->fpr = sbf_win_segment_fpr(seg);
	*built = true;
	return SBF_OK;
}
