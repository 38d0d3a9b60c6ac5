/*
 * sbf_compact_expand.c
 *	  A compact value (sbf_compact.h) as the segmented value of version 5
 *	  that answers the same (docs/format5.md, sections 3 and 5): one compact
 *	  segment holding the value's code, its HyperLogLog made from the
 *	  fingerprints: what every writer on a compact value starts from
 *	  (sbf_view_expand, sbf_compact_value.c).
 */
#include <math.h>

#include "sbf_compact.h"
#include "sbf_dir.h"
#include "sbf_plain.h"

#define ONE_SEGMENT_END		(SBF_HEADER_BYTES + SBF_SEGDIR_BYTES)

/*
 * The segmented value of the checked compact value cv, built into f (its
 * payload prefix bytes in): header from cv's parameters (e, growth,
 * tightening; HyperLogLog precision SBF_HLL_P_DEFAULT; capacity cv's, the
 * count it was built for, from which the segments adds append continue
 * the chain release 1.3 grew from sbf_agg's value of that count,
 * sbf_compact_chain_next), OVERLAP when cv has it; one
 * directory entry of the compact kind, capacity = count = n and error cv's
 * bound max(n, capacity) / 2^b; the data cv's code, zero-padded; the
 * HyperLogLog of the fingerprints (sbf_compact_hll).  Every lookup answers
 * as cv's, # is n while cv's is exact, fpr_bound is cv's.  SBF_E_PARAM
 * when b is not above the precision (the compact form's writer keeps it
 * above), SBF_E_NOMEM,
 * SBF_E_TOO_LARGE.
 */
SbfStatus
sbf_compact_expand(const SbfCompactView *cv, SbfFilter *f, size_t prefix,
				   const SbfAllocator *a)
{
	SbfParams	p;
	SbfKindGeom g;
	uint64_t	bytes;
	uint64_t	size;
	size_t		pad;
	size_t		start;
	size_t		hll_bytes;
	bool		dense;
	uint8_t    *regs;
	uint8_t    *buf;
	SbfStatus	st;

	sbf_filter_start(f, prefix, a);
	p.capacity = cv->capacity;
	p.error_rate = cv->error_rate;
	p.growth = cv->growth;
	p.tightening = cv->tightening;
	p.hll_p = SBF_HLL_P_DEFAULT;
	memset(&g, 0, sizeof(g));
	g.kind = SBF_KIND_COMPACT;
	g.size = cv->shape.n;
	g.width = (uint8_t) cv->shape.b;
	if (cv->shape.b <= p.hll_p || sbf_params_check(&p) != SBF_OK ||
		sbf_kind_compact_ops.check_geom(&g) != SBF_OK)
		return SBF_E_PARAM;
	if (!sbf_kind_compact_ops.bytes(&g, &bytes) || bytes < cv->code_len)
		return SBF_E_TOO_LARGE;

	regs = a->alloc((size_t) 1 << p.hll_p, a->ctx);
	if (regs == NULL)
		return SBF_E_NOMEM;
	st = sbf_compact_hll(cv, p.hll_p, regs, a);
	hll_bytes = sbf_hll_encoded_size(regs, p.hll_p, &dense);
	start = sbf_kind_area_start(&g, ONE_SEGMENT_END, &pad);
	size = (uint64_t) start + bytes + hll_bytes;
	if (st == SBF_OK && (size > SBF_MAX_BYTES || prefix > SIZE_MAX - size))
		st = SBF_E_TOO_LARGE;
	if (st == SBF_OK)
	{
		f->base = a->alloc(prefix + (size_t) size, a->ctx);
		if (f->base == NULL)
			st = SBF_E_NOMEM;
	}
	if (st != SBF_OK)
	{
		a->free(regs, a->ctx);
		return st;
	}
	memset(f->base, 0, prefix + (size_t) size);
	buf = SBF_PAYLOAD(f);
	memcpy(buf + start, cv->code, cv->code_len);
	sbf_build_write_head(buf, &p,
						 (cv->flags & SBF_COMPACT_FLAG_OVERLAP) ? SBF_FLAG_OVERLAP : 0,
						 dense, hll_bytes, &g, cv->shape.n,
						 sbf_compact_fpr_bound(cv));
	sbf_hll_encode(regs, p.hll_p, dense, buf + start + bytes);
	a->free(regs, a->ctx);
	f->len = (size_t) size;
	f->cap = (size_t) size;
	return SBF_OK;
}

/* The segmented form of a compact view (sbf_view_compact, then the above). */
SbfStatus
sbf_view_expand(const SbfView *v, SbfFilter *f, size_t prefix,
				const SbfAllocator *a)
{
	SbfCompactView cv;

	sbf_view_compact(v, &cv);
	return sbf_compact_expand(&cv, f, prefix, a);
}
