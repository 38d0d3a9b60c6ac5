/*
 * sbf_union_many.c
 *	  Unions with exact inputs (sbf_exact_union: the union of exact views),
 *	  and the entry points of every union: sbf_union_many, sbf_union and
 *	  sbf_union_budget.  The union of
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
#include <stdlib.h>

#include "sbf_union_int.h"

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
 * Hands u to out unless the spec's budget refuses it (then u is freed):
 * *bound gets u's budget (sbf_fpr_budget: its segments' stored rates)
 * either way.
 */
static SbfStatus
union_finish(SbfFilter *out, SbfFilter *u, const SbfView *first,
			 const SbfUnionSpec *spec, double *bound)
{
	SbfView		uv;
	double		b;

	sbf_filter_view(u, &uv);
	b = sbf_fpr_budget(&uv);
	if (bound != NULL)
		*bound = b;
	if (spec->enforce && first->tightening < 1.0 &&
		b > (spec->error_rate > 0.0 ? spec->error_rate : first->error_rate) *
		(1.0 + 1e-9))
	{
		sbf_filter_free(u);
		return SBF_E_OVER_BUDGET;
	}
	*out = *u;
	return SBF_OK;
}

/*
 * Whether the union is of n >= 2 copies of one value as this release
 * writes it (version 4 plain, or the exact form), merged and with the
 * value's own error_rate: that value is the union, byte for byte.  A value
 * grown by adds may hold its segments out of the canonical order of a
 * union (an add appends a segment smaller than a built one), so f || f
 * must not reorder them.  Depends only on the inputs' bytes, so the
 * result still depends only on the set of inputs.
 */
static bool
union_of_copies(const SbfView *in, uint32_t n, const SbfUnionSpec *spec)
{
	uint32_t	i;

	if (n < 2 || !spec->merge ||
		(spec->error_rate > 0.0 && spec->error_rate != in[0].error_rate))
		return false;
	if (!sbf_is_exact(&in[0]) && !sbf_is_compact(&in[0]) &&
		(!sbf_version_v4_layout(in[0].version) ||
		 (in[0].flags & SBF_FLAG_WINDOWED) != 0))
		return false;
	for (i = 1; i < n; i++)
		if (in[i].len != in[0].len ||
			memcmp(in[i].buf, in[0].buf, in[0].len) != 0)
			return false;
	return true;
}

/*
 * The views in[0..n) with every compact one replaced by its segmented form
 * (built into tmp[i], which the caller frees with expanded_free):
 * what a union reads.
 */
static SbfStatus
views_expand(const SbfView *in, uint32_t n, SbfView *out, SbfFilter *tmp,
				 const SbfAllocator *a)
{
	uint32_t	i;
	SbfStatus	st;

	for (i = 0; i < n; i++)
		sbf_filter_start(&tmp[i], 0, a);
	for (i = 0; i < n; i++)
	{
		out[i] = in[i];
		if (!sbf_is_compact(&in[i]))
			continue;
		st = sbf_view_expand(&in[i], &tmp[i], 0, a);
		if (st != SBF_OK)
			return st;
		sbf_filter_view(&tmp[i], &out[i]);
	}
	return SBF_OK;
}

static void
expanded_free(SbfFilter *tmp, uint32_t n)
{
	uint32_t	i;

	for (i = 0; i < n; i++)
		sbf_filter_free(&tmp[i]);
}

/*
 * The union of n views some of which are compact: of their segmented forms
 * (views_expand), the compact segments appended as every union appends
 * them.
 */
static SbfStatus
union_expanded(SbfFilter *out, const SbfView *in, uint32_t n,
			   const SbfUnionSpec *spec, double *bound, size_t prefix,
			   const SbfAllocator *a)
{
	SbfView    *v = a->alloc((size_t) n * sizeof(SbfView), a->ctx);
	SbfFilter  *tmp = a->alloc((size_t) n * sizeof(SbfFilter), a->ctx);
	SbfStatus	st = SBF_E_NOMEM;

	if (v != NULL && tmp != NULL)
	{
		st = views_expand(in, n, v, tmp, a);
		if (st == SBF_OK)
			st = sbf_union_many(out, v, n, spec, bound, prefix, a);
		expanded_free(tmp, n);
	}
	sbf_free(a, v);
	sbf_free(a, tmp);
	return st;
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
	SbfStatus	st;

	sbf_filter_start(out, prefix, a);
	if (bound != NULL)
		*bound = 0.0;
	if (n == 0)
		return SBF_E_PARAM;
	if (union_of_copies(in, n, spec))
	{
		st = sbf_copy(&u, &in[0], prefix, 0, a);
		return st != SBF_OK ? st : union_finish(out, &u, &in[0], spec, bound);
	}
	if (sbf_union_compact(out, in, n, spec, bound, prefix, a, &st))
		return st;
	if (n == 1 && sbf_union_compact_collected(out, &in[0], spec, bound, prefix, a, &st))
		return st;
	for (i = 0; i < n; i++)
		if (sbf_is_compact(&in[i]))
			return union_expanded(out, in, n, spec, bound, prefix, a);
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
	return union_finish(out, &u, &in[0], spec, bound);
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

/* Orders uint64_t ascending (qsort). */
static int
hash_cmp(const void *pa, const void *pb)
{
	uint64_t	x = *(const uint64_t *) pa;
	uint64_t	y = *(const uint64_t *) pb;

	return x < y ? -1 : x > y;
}

/*
 * Whether exact view x's first segment comes before y's in the header rule
 * of sbf_exact_union: larger first capacity, then smaller first error, then
 * smaller error_rate.  A total order on what can differ, so the pick does
 * not depend on the inputs' order.
 */
static bool
header_before(const SbfView *x, const SbfView *y)
{
	if (x->first_capacity != y->first_capacity)
		return x->first_capacity > y->first_capacity;
	if (x->first_error != y->first_error)
		return x->first_error < y->first_error;
	return x->error_rate < y->error_rate;
}

/*
 * The union of n exact views (see sbf_internal.h).  The result's header is
 * a function of the set of inputs: first capacity and first error of the
 * input first in header_before's order (its first error scaled by
 * error_rate / that input's error_rate when the union sets a smaller
 * error_rate of its own, so the first segment keeps its share of the
 * budget; never scaled up, so converted hashes spend no more than the
 * input's own segments would), the
 * largest capacity, the smallest hll_p, CHAIN only when every input has
 * it.  The hashes are the sorted distinct union; the result stays exact
 * while sbf_exact_fits says so, else it is built as a series of ascending adds
 * to that first segment, like a conversion.
 */
SbfStatus
sbf_exact_union(SbfFilter *out, const SbfView *in, uint32_t n,
				double error_rate, size_t prefix, const SbfAllocator *a)
{
	const SbfView *pick = &in[0];
	uint64_t	total = 0;
	uint64_t	capacity = 0;
	uint64_t	nh = 0;
	uint64_t	m;
	uint32_t	k;
	uint8_t		chain = SBF_FLAG_CHAIN;
	int			hll_p = SBF_HLL_P_MAX;
	double		rate;
	double		first_error;
	uint64_t   *h;
	uint8_t    *base;
	uint8_t    *buf;
	size_t		len;
	uint32_t	i;
	uint64_t	j;
	SbfView		v;
	SbfStatus	st;

	sbf_filter_start(out, prefix, a);
	if (n == 0)
		return SBF_E_PARAM;
	for (i = 0; i < n; i++)
	{
		total += in[i].nhashes;
		if (header_before(&in[i], pick))
			pick = &in[i];
		if (in[i].capacity > capacity)
			capacity = in[i].capacity;
		if (in[i].hll_p < hll_p)
			hll_p = in[i].hll_p;
		chain &= in[i].flags;
	}
	rate = error_rate > 0.0 ? error_rate : pick->error_rate;
	first_error = pick->first_error;
	/* never scaled up: its segments then spend what the input's would */
	if (rate < pick->error_rate)
		first_error = first_error * (rate / pick->error_rate);
	if (!(first_error > 0.0 && first_error < 0.5) ||
		!sbf_segment_geometry(pick->first_capacity, first_error,
							  SBF_MAX_SEGMENT_BITS, &m, &k))
		return SBF_E_TOO_LARGE;

	/* every input is at most SBF_EXACT_MAX hashes: no overflow */
	h = a->alloc(((size_t) total + 1) * 8, a->ctx);
	if (h == NULL)
		return SBF_E_NOMEM;
	for (i = 0; i < n; i++)
	{
		for (j = 0; j < in[i].nhashes; j++)
			h[nh++] = sbf_exact_hash(&in[i], (uint32_t) j);
		sbf_check_interrupt(a);
	}
	qsort(h, (size_t) nh, 8, hash_cmp);
	total = nh;
	nh = 0;
	for (j = 0; j < total; j++)
		if (nh == 0 || h[j] != h[nh - 1])
			h[nh++] = h[j];

	/* the exact result (only its header when there are too many hashes) */
	len = SBF_EXACT_HEADER_BYTES + (nh <= SBF_EXACT_MAX ? (size_t) nh * 8 : 0);
	if (prefix > SIZE_MAX - len)
	{
		a->free(h, a->ctx);
		return SBF_E_TOO_LARGE;
	}
	base = a->alloc(prefix + len, a->ctx);
	if (base == NULL)
	{
		a->free(h, a->ctx);
		return SBF_E_NOMEM;
	}
	memset(base, 0, prefix + len);
	buf = base + prefix;
	buf[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
	buf[SBF_OFF_FLAGS] = SBF_FLAG_EXACT | chain;
	buf[SBF_OFF_HASH] = pick->hash_id;
	buf[SBF_OFF_HLL_P] = (uint8_t) hll_p;
	sbf_store16(buf + SBF_OFF_GROWTH, pick->growth);
	sbf_store32(buf + SBF_OFF_NHASHES, (uint32_t) (len - SBF_EXACT_HEADER_BYTES) / 8);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, rate);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, pick->tightening);
	sbf_store64(buf + SBF_OFF_CAPACITY, capacity);
	sbf_store64(buf + SBF_OFF_FIRST_CAPACITY, pick->first_capacity);
	sbf_store_double(buf + SBF_OFF_FIRST_ERROR, first_error);
	for (j = 0; j < (len - SBF_EXACT_HEADER_BYTES) / 8; j++)
		sbf_store64(buf + SBF_EXACT_HEADER_BYTES + j * 8, h[j]);
	st = sbf_validate(buf, len, &v);
	if (st == SBF_OK && nh <= SBF_EXACT_MAX && sbf_exact_fits(&v, NULL, 0))
	{
		out->base = base;
		out->len = len;
		out->cap = len;
	}
	else
	{
		if (st == SBF_OK)
			st = sbf_build_segments(out, &v, h, (size_t) nh, prefix, a);
		a->free(base, a->ctx);
	}
	a->free(h, a->ctx);
	return st;
}
