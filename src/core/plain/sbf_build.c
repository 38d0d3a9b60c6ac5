/*
 * sbf_build.c
 *	  The one builder from sorted hashes (docs/format4.md, section 6): a
 *	  complete version-4 value of one segment, of the kind sbf_kind_choose
 *	  picks for the set, and its HyperLogLog from the same hashes.
 */
#include "sbf_dir.h"
#include "sbf_plain.h"

/* payload offset of a one-segment value's first data area (before padding) */
#define ONE_SEGMENT_END		(SBF_HEADER_BYTES + SBF_SEGDIR_BYTES)

/*
 * The HyperLogLog registers of h[0..n) in a new array of 2^p bytes (NULL if
 * the allocator fails); the area's size and representation.
 */
static uint8_t *
hll_of(const uint64_t *h, size_t n, int p, size_t *nbytes, bool *dense,
	   const SbfAllocator *a)
{
	uint8_t    *regs = a->alloc(SBF_HLL_REGISTERS(p), a->ctx);

	if (regs == NULL)
		return NULL;
	memset(regs, 0, SBF_HLL_REGISTERS(p));
	sbf_hll_regs_add(regs, p, h, n);
	*nbytes = sbf_hll_encoded_size(regs, p, dense);
	return regs;
}

/* sbf_plain.h */
SbfStatus
sbf_build_hll_size(const uint64_t *h, size_t n, int p, const SbfAllocator *a,
				   size_t *nbytes)
{
	bool		dense;
	uint8_t    *regs = hll_of(h, n, p, nbytes, &dense, a);

	if (regs == NULL)
		return SBF_E_NOMEM;
	a->free(regs, a->ctx);
	return SBF_OK;
}

/*
 * The geometry of the segment for n hashes at share: sbf_kind_choose, or
 * the choice without the complete kinds when fused_ok is false (the plain
 * order then plans blocked only).
 */
SbfStatus
sbf_build_plan(uint64_t n, double share, bool fused_ok, SbfKindGeom *g,
			   uint64_t *bytes)
{
	return sbf_kind_choose_in(SBF_KIND_IN_PLAIN5, n, share,
							  fused_ok ? 0 : sbf_kind_complete_mask(), g, bytes);
}

/* sbf_plain.h */
SbfStatus
sbf_build_first(uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes,
				double *error)
{
	SbfStatus	st = sbf_build_plan(n, share, true, g, bytes);

	if (st != SBF_OK)
		return st;
	/* as build_with stores it */
	*error = sbf_kind_ops(g->kind)->insert == NULL ?
		sbf_kind_ops(g->kind)->rate_at(g, n) : share;
	return SBF_OK;
}

/* sbf_plain.h */
double
sbf_build_first_bound(double e, double r, uint64_t n)
{
	double		share = sbf_sized_error(e, r);
	double		first;
	uint64_t	bytes;
	SbfKindGeom g;

	if (sbf_build_first(n, share, &g, &bytes, &first) == SBF_OK && first < share)
		return first;
	return share;
}

/* Writes the header and the one directory entry of a built value. */
void
sbf_build_write_head(uint8_t *buf, const SbfParams *p, uint8_t flags, bool dense,
					 size_t hll_bytes, const SbfKindGeom *g, uint64_t n,
					 double error)
{
	buf[SBF_OFF_VERSION] = SBF_FORMAT_V4;
	buf[SBF_OFF_FLAGS] = (uint8_t) ((flags & (SBF_FLAG_OVERLAP | SBF_FLAG_CHAIN)) |
									(dense ? SBF_FLAG_HLL_DENSE : 0));
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = p->hll_p;
	sbf_store16(buf + SBF_OFF_GROWTH, p->growth);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, 1);
	sbf_store32(buf + SBF_OFF_HLL_BYTES, (uint32_t) hll_bytes);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, p->error_rate);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, p->tightening);
	sbf_store64(buf + SBF_OFF_CAPACITY, p->capacity);
	sbf_write_entry(buf, 0, n, n, error, g);	/* count = capacity = n */
	sbf_write_version(buf);
}

/* One attempt of sbf_build_sorted with a planned geometry. */
static SbfStatus
build_with(SbfFilter *f, const SbfParams *p, const uint64_t *h, size_t n,
		   double share, uint8_t flags, SbfKindGeom *g, uint64_t bytes,
		   const uint8_t *regs, size_t hll_bytes, bool dense)
{
	const SbfAllocator *a = f->a;
	const SbfKindOps *ops = sbf_kind_ops(g->kind);
	size_t		pad;
	size_t		start = sbf_kind_area_start(g, ONE_SEGMENT_END, &pad);
	uint64_t	size = (uint64_t) start + bytes + hll_bytes;
	uint8_t    *buf;
	double		error;
	SbfStatus	st;

	if (size > SBF_MAX_BYTES || f->prefix > SIZE_MAX - size)
		return SBF_E_TOO_LARGE;
	f->base = a->alloc(f->prefix + (size_t) size, a->ctx);
	if (f->base == NULL)
		return SBF_E_NOMEM;
	memset(f->base, 0, f->prefix + (size_t) size);
	buf = SBF_PAYLOAD(f);
	/*
	 * The kind's build from the sorted hashes.  The count is n, the exact
	 * number of distinct hashes, whatever the kind: an insert that found its
	 * bits set (a false positive of the segment being built) still adds an
	 * element the set holds, and # answers the set's size.
	 */
	st = ops->build(g, buf + start, h, n, a);
	if (st != SBF_OK)
	{
		sbf_filter_free(f);
		return st;
	}
	/* the stored bound: the share sized for, or the kind's exact rate below it */
	error = ops->insert == NULL ? ops->rate_at(g, n) : share;
	sbf_build_write_head(buf, p, flags, dense, hll_bytes, g, n, error);
	sbf_hll_encode(regs, p->hll_p, dense, buf + start + bytes);
	f->len = (size_t) size;
	f->cap = (size_t) size;
	return SBF_OK;
}

/*
 * A complete version-4 value of one segment holding the n >= 1 strictly
 * ascending hashes h (see sbf_core.h).
 */
SbfStatus
sbf_build_sorted(SbfFilter *f, const SbfParams *p, const uint64_t *h, size_t n,
				 double share, uint8_t flags, size_t prefix, const SbfAllocator *a)
{
	SbfKindGeom g;
	uint64_t	bytes;
	uint8_t    *regs;
	size_t		hll_bytes;
	bool		dense;
	SbfStatus	st;

	sbf_filter_start(f, prefix, a);
	st = sbf_params_check(p);
	if (st != SBF_OK)
		return st;
	if (n < 1 || !(share > 0.0 && share < 0.5))
		return SBF_E_PARAM;
	st = sbf_build_plan(n, share, true, &g, &bytes);
	if (st != SBF_OK)
		return st;
	regs = hll_of(h, n, p->hll_p, &hll_bytes, &dense, a);
	if (regs == NULL)
		return SBF_E_NOMEM;
	st = build_with(f, p, h, n, share, flags, &g, bytes, regs, hll_bytes, dense);
	if (st == SBF_E_SEGMENT && sbf_kind_ops(g.kind)->complete)
	{
		/* no seed peeled: the set is stored blocked, only larger */
		st = sbf_build_plan(n, share, false, &g, &bytes);
		if (st == SBF_OK)
			st = build_with(f, p, h, n, share, flags, &g, bytes, regs,
							hll_bytes, dense);
	}
	a->free(regs, a->ctx);
	return st;
}
