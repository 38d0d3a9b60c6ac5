/*
 * sbf_window_build.c
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
 * The windowed builder's choice (docs/format4.md, section 8): the one
 * choice of sbf_kind.c over the kinds of a windowed directory, the smallest
 * area of fused (up to SBF_FUSED_MAX_BUILD hashes), blocked and kind 4
 * (version 3's WINDOW SIZING) for n hashes at share, leaving out the kinds
 * whose bit (1 << kind) is set in avoid; ties go to the faster kind, in
 * that order.  SBF_E_PARAM or SBF_E_TOO_LARGE when no kind plans.
 */
SbfStatus
sbf_win_kind_choose(uint64_t n, double share, unsigned avoid,
					SbfKindGeom *g, uint64_t *bytes)
{
	return sbf_kind_choose_in(SBF_KIND_IN_WINDOW4, n, share, avoid, g, bytes);
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
	if (st == SBF_E_SEGMENT && seg->ops != NULL && seg->ops->complete)
		st = plan_and_build(h, n, share, avoid | (1u << seg->g.kind),
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
