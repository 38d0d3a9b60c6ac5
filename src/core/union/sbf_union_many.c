/*
 * sbf_union_many.c
 *	  Unions with exact inputs, and the entry points of every union:
 *	  sbf_union_many, sbf_union and sbf_union_budget.  The union of
 *	  segmented views (plan and apply) is in sbf_union.c.
 *
 * Exact inputs (format 2's exact form) have no segments, only hashes:
 *	- all inputs exact: the sorted distinct union of their hashes, exact
 *	  while it fits (sbf_exact.c: no larger than the segmented value and at
 *	  most SBF_EXACT_MAX hashes), else converted.  The header is chosen by an
 *	  order-free rule: the first capacity and first error of the input with
 *	  the largest first capacity (ties: smallest first error, then smallest
 *	  error_rate), that error scaled down to the union's own error_rate
 *	  if it sets a smaller one; the largest capacity; the smallest hll_p; CHAIN only when
 *	  every input has it.
 *	- exact and segmented inputs: the exact ones are united as above; if
 *	  that stays exact, the segmented ones are united (sbf_union.c, steps 1-4) and its
 *	  hashes are added to the result in ascending order (a series of adds,
 *	  so no false negative, and growth follows the budget), and the result
 *	  is put in the canonical order of a union (union_canonical); if it converted,
 *	  its segments join the others' in step 1.  The header of the result is
 *	  the segmented inputs' union's.
 *	Both depend only on the set of inputs.  A union of unions (the
 *	aggregate's partial states) may differ in bytes from one union of all
 *	the inputs when exact and segmented inputs mix, because the hashes
 *	are added at a different stage; it is still a correct filter.
 *
 * Adds of exact hashes go through sbf_add_hashes, which checks the
 * allocator's interrupt by the work of its adds (a filter may have 4,096
 * segments of 64 hash functions that every add probes).
 */
#include "sbf_internal.h"

/*
 * Adds the hashes of exact view x to filter u, in ascending order (a series
 * of adds: u's flags and directory counts stay what adds make them).
 */
static SbfStatus
union_add_exact(SbfFilter *u, const SbfView *x)
{
	const SbfAllocator *a = u->a;
	uint64_t   *h = sbf_exact_hashes(x, a);
	SbfStatus	st;

	if (h == NULL)
		return SBF_E_NOMEM;
	st = sbf_add_hashes(u, h, x->nhashes);
	a->free(h, a->ctx);
	return st;
}

/*
 * Puts u (a union the exact hashes were added to) in the canonical order of
 * a union (sbf_union_segments of u alone), so that (f || e) || (f || e)
 * keeps the bytes of f || e: the adds may have appended a segment of the
 * chain's capacity after a larger one.  When that only reordered u's
 * segments (none merged or dropped), u's directory counts still answer: u's
 * OVERLAP is kept rather than the one a union of a single input sets.  u is
 * replaced on success.
 */
static SbfStatus
union_canonical(SbfFilter *u, const SbfUnionSpec *spec)
{
	SbfView		uv;
	SbfView		cv;
	SbfFilter	c;
	SbfStatus	st;

	sbf_filter_view(u, &uv);
	st = sbf_union_segments(&c, &uv, 1, spec, NULL, u->prefix, u->a);
	if (st != SBF_OK)
		return st;
	sbf_filter_view(&c, &cv);
	if (cv.nsegments == uv.nsegments && (uv.flags & SBF_FLAG_OVERLAP) == 0)
		c.base[c.prefix + SBF_OFF_FLAGS] &= (uint8_t) ~SBF_FLAG_OVERLAP;
	sbf_filter_free(u);
	*u = c;
	return SBF_OK;
}

/*
 * The union of n validated views, exact ones included (see the file
 * header, "Exact inputs"), into a new filter.
 */
SbfStatus
sbf_union_many(SbfFilter *out, const SbfView *in, uint32_t n,
			   const SbfUnionSpec *spec, double *bound, size_t prefix,
			   const SbfAllocator *a)
{
	SbfUnionSpec inner = *spec;
	SbfView    *v;
	SbfFilter	ex;
	SbfFilter	u;
	SbfView		xv;
	uint32_t	nexact = 0;
	uint32_t	nseg = 0;
	uint32_t	i;
	double		b;
	SbfStatus	st;

	sbf_filter_start(out, prefix, a);
	if (bound != NULL)
		*bound = 0.0;
	if (n == 0)
		return SBF_E_PARAM;
	for (i = 0; i < n; i++)
		if (sbf_is_exact(&in[i]))
			nexact++;
	if (nexact == 0)
		return sbf_union_segments(out, in, n, spec, bound, prefix, a);

	if (spec->error_rate > 0.0 && !(spec->error_rate < 0.5))
		return SBF_E_PARAM;
	for (i = 0; i < n; i++)
	{
		uint32_t	diff = sbf_union_mismatch(&in[0], &in[i]);

		if (spec->error_rate > 0.0)
			diff &= ~(uint32_t) SBF_DIFF_ERROR_RATE;
		if (diff != 0)
			return SBF_E_INCOMPATIBLE;
	}
	/* exact views first, then the segmented ones */
	v = a->alloc((size_t) (n + 1) * sizeof(SbfView), a->ctx);
	if (v == NULL)
		return SBF_E_NOMEM;
	for (i = 0; i < n; i++)
		if (sbf_is_exact(&in[i]))
			v[nseg++] = in[i];
	for (i = 0; i < n; i++)
		if (!sbf_is_exact(&in[i]))
			v[nseg++] = in[i];
	nseg = n - nexact;

	st = sbf_exact_union(&ex, v, nexact, spec->error_rate, prefix, a);
	if (st == SBF_OK && nseg == 0)
		u = ex;
	else if (st == SBF_OK)
	{
		inner.enforce = false;
		sbf_filter_view(&ex, &xv);
		if (sbf_is_exact(&xv))
		{
			/* the segmented union, then the exact hashes added to it */
			st = sbf_union_segments(&u, v + nexact, nseg, &inner, NULL, prefix, a);
			if (st == SBF_OK)
			{
				st = union_add_exact(&u, &xv);
				if (st == SBF_OK)
					st = union_canonical(&u, &inner);
				if (st != SBF_OK)
					sbf_filter_free(&u);
			}
		}
		else
		{
			/* so many hashes that they converted: their segments join */
			v[n] = xv;
			st = sbf_union_segments(&u, v + nexact, nseg + 1, &inner, NULL, prefix, a);
		}
		sbf_filter_free(&ex);
	}
	a->free(v, a->ctx);
	if (st != SBF_OK)
		return st;

	sbf_filter_view(&u, &xv);
	b = sbf_fpr_bound(&xv);
	if (bound != NULL)
		*bound = b;
	if (spec->enforce && in[0].tightening < 1.0 &&
		b > (spec->error_rate > 0.0 ? spec->error_rate : in[0].error_rate) *
		(1.0 + 1e-9))
	{
		sbf_filter_free(&u);
		return SBF_E_OVER_BUDGET;
	}
	*out = u;
	return SBF_OK;
}

/* dst := the union of dst and src; dst is replaced only on success. */
static SbfStatus
union_into(SbfFilter *dst, const SbfView *src, const SbfUnionSpec *spec,
		   double *bound)
{
	SbfView		in[2];
	SbfFilter	nf;
	SbfStatus	st;

	sbf_filter_view(dst, &in[0]);
	in[1] = *src;
	st = sbf_union_many(&nf, in, 2, spec, bound, dst->prefix, dst->a);
	if (st != SBF_OK)
		return st;
	/* the old prefix bytes (e.g. a varlena header) are the caller's */
	memcpy(nf.base, dst->base, dst->prefix);
	sbf_filter_free(dst);
	*dst = nf;
	return SBF_OK;
}

/* dst := dst UNION src with merges and no budget check (see sbf_core.h). */
SbfStatus
sbf_union(SbfFilter *dst, const SbfView *src)
{
	SbfUnionSpec spec = {0.0, true, false};

	return union_into(dst, src, &spec, NULL);
}

/* dst := dst UNION src within a budget (see sbf_core.h). */
SbfStatus
sbf_union_budget(SbfFilter *dst, const SbfView *src, double error_rate,
				 double *bound)
{
	SbfUnionSpec spec = {error_rate, true, true};

	return union_into(dst, src, &spec, bound);
}
