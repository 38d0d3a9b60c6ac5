/*
 * sbf_union.c
 *	  Union of filters: one compatibility rule, a plan and an apply step.
 *
 * A union is a function of the multiset of its inputs' segments, never of
 * the order the inputs come in, so sbf_union(a, b) and sbf_union(b, a) give
 * the same bytes, and so does an aggregate over any row order
 * (docs/format4.md, section 7).  Inputs of format 1, 2 and 4 mix; the
 * result is format 4 (a bloom segment of format 1-2 is kind 1 there).
 * Every step that knows a kind goes through its row (sbf_union4.c).
 *
 *	1. plan, collect: every input segment becomes an item with its kind,
 *	   geometry, set-bit count (kinds that merge) and a digest (XXH3) of its
 *	   data.  Items are sorted into the plan's order: group (capacity, kind,
 *	   descriptor; for bloom also p, as 1.2), larger p first, set bits
 *	   descending, digest, data.  Equal neighbours (same entry but count,
 *	   same data) are one segment: a duplicate changes no answer.  A
 *	   bit-array segment without a set bit is dropped unless it is all
 *	   there is.
 *	2. plan, merge (optional): within one group, in that order, an item is
 *	   OR-ed (its kind's merge) into the first earlier result segment it
 *	   fits: bloom as 1.2 (the OR's fill at most the fill expected at
 *	   capacity, 1 - e^(-k cap / m)); blocked when its bits are a subset or
 *	   the OR's exact rate (its kind's rate_of) stays within the larger p.
 *	   Whether it fits is first decided from the set-bit counts when they
 *	   can; only then is the data compared, for at most UNION_MAX_SCANS
 *	   candidates per item: the plan is linear in the data, never every
 *	   segment against every segment.  A kind without a merge (fused) and
 *	   an item that fits nowhere are result segments of their own
 *	   (appended, unchanged).
 *	3. plan, budget: the sum of the result segments' stored p (its
 *	   sbf_fpr_budget; its fpr_bound is at least that: RATE BOUND);
 *	   with tightening < 1 a result over the error_rate is refused
 *	   (SBF_E_OVER_BUDGET) when the caller asks for the check.
 *	4. apply: the result segments are sorted into the result's canonical
 *	   order (capacity, descriptor, p, count descending, then their final
 *	   data, so that a union of the result with itself keeps it byte for
 *	   byte) and written in format 4, blocked areas with their line
 *	   padding; the HyperLogLogs are merged register-wise at the smallest
 *	   precision.
 *	   The destination of sbf_union is replaced only on success.
 *
 * With sbf_write_v2 (the tests' switch for 1.2's bytes) a result of bloom
 * segments is written as 1.2 wrote it: version 2, 1.2's order.
 *
 * Exact inputs, and the entry points sbf_union, sbf_union_budget and
 * sbf_union_many, are in sbf_union_many.c.
 *
 * Flags of a result with segments: CHAIN when every input has it; OVERLAP
 * (the directory counts may count an element twice, so the HyperLogLog
 * answers) unless the result's segments equal, entry for entry and byte for
 * byte, those of a version-2 or version-4 input without OVERLAP (then the
 * counts are that input's).  Both rules are symmetric, so sbf_union(a, b)
 * and sbf_union(b, a) give the same bytes.  Adding exact hashes afterwards
 * is a series of adds and keeps OVERLAP as it is.  A version-1 input (1.0)
 * always leaves OVERLAP, as its relabelling does.
 *
 * Long loops call the allocator's interrupt callback (a PostgreSQL backend
 * passes CHECK_FOR_INTERRUPTS), which may not return.
 */
#include <stdlib.h>

#include "sbf_union_int.h"

/* True when two doubles have the same bits. */
static bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

/* Bit mask (SBF_DIFF_*) of the parameters in which two filters differ. */
uint32_t
sbf_union_mismatch(const SbfView *a, const SbfView *b)
{
	uint32_t	diff = 0;

	/* versions 1 and 2 unite (the result is version 2); no other exists */
	if (a->version != b->version && !sbf_versions_unite(a->version, b->version))
		diff |= SBF_DIFF_VERSION;
	if (a->hash_id != b->hash_id)
		diff |= SBF_DIFF_HASH;
	if (a->growth != b->growth)
		diff |= SBF_DIFF_GROWTH;
	if (!same_double(a->tightening, b->tightening))
		diff |= SBF_DIFF_TIGHTENING;
	if (!same_double(a->error_rate, b->error_rate))
		diff |= SBF_DIFF_ERROR_RATE;
	return diff;
}

/* Frees the scratch (safe on a partly allocated one). */
static void
union_scratch_free(UnionScratch *s, const SbfAllocator *a)
{
	uint32_t	i;

	if (s->out != NULL)
		for (i = 0; i < s->nout; i++)
			if (s->out[i].bits != NULL)
				a->free(s->out[i].bits, a->ctx);
	sbf_free(a, s->items);
	sbf_free(a, s->out);
	sbf_free(a, s->regs);
	sbf_free(a, s->folded);
	sbf_free(a, s->merged);
	memset(s, 0, sizeof(*s));
}

/*
 * Collects the inputs' segments into s->items in canonical order, and checks
 * that the inputs can be united: equal version, hash, growth and tightening,
 * and equal error_rate unless the caller sets the result's.
 */
static SbfStatus
union_collect(UnionPlan *pl, const SbfView *in, uint32_t n, bool own_rate,
			  const SbfAllocator *a)
{
	uint64_t	total = 0;
	uint32_t	i;
	UnionItem  *it;

	for (i = 0; i < n; i++)
	{
		uint32_t	diff = sbf_union_mismatch(&in[0], &in[i]);

		if (!own_rate)
			diff &= ~(uint32_t) SBF_DIFF_ERROR_RATE;
		if (diff != 0)
			return SBF_E_INCOMPATIBLE;
		total += in[i].nsegments;
	}
	/* at most n * 4096 items of 64 bytes */
	if (total > SIZE_MAX / sizeof(UnionItem))
		return SBF_E_TOO_LARGE;
	pl->s.items = a->alloc((size_t) total * sizeof(UnionItem), a->ctx);
	if (pl->s.items == NULL)
		return SBF_E_NOMEM;
	it = pl->s.items;
	for (i = 0; i < n; i++)
	{
		SbfDirIter	di;
		SbfDirEntry e;

		sbf_dir_view(&di, &in[i]);
		while (sbf_dir_next(&di, &e))
		{
			SbfStatus	st = sbf_union_item(it, &in[i], &e, a);

			if (st != SBF_OK)
				return st;
			sbf_check_interrupt(a);
			it++;
		}
	}
	pl->s.nitems = (uint32_t) total;
	qsort(pl->s.items, total, sizeof(UnionItem), sbf_union_item_cmp);
	sbf_check_interrupt(a);
	return SBF_OK;
}

/*
 * Drops items equal to their predecessor, keeping the larger count, and
 * bit-array segments without a set bit (they answer no to everything, so
 * they would only add their error to the bound) unless nothing else is
 * left.  A segment of a kind that is not a bit array (fused) is kept.
 */
static void
union_dedupe(UnionScratch *s, const SbfAllocator *a)
{
	uint32_t	n = 0;
	uint32_t	i;
	bool		any_bits = false;

	for (i = 0; i < s->nitems; i++)
		any_bits |= s->items[i].ones > 0 || s->items[i].bits == 0;
	for (i = 0; i < s->nitems; i++)
	{
		if (i % 64 == 63)
			sbf_check_interrupt(a);
		if (s->items[i].bits > 0 && s->items[i].ones == 0 && (any_bits || n > 0))
			continue;
		if (n > 0 && sbf_union_item_cmp(&s->items[n - 1], &s->items[i]) == 0)
		{
			if (s->items[i].count > s->items[n - 1].count)
				s->items[n - 1].count = s->items[i].count;
			continue;
		}
		s->items[n++] = s->items[i];
	}
	s->nitems = n;
}

/*
 * Turns the canonical, distinct items into result segments; with merge, an
 * item is OR-ed into the first earlier result segment of its group that it
 * fits (sbf_union_place), else it starts one.
 */
static SbfStatus
union_merge(UnionPlan *pl, bool merge, const SbfAllocator *a)
{
	UnionScratch *s = &pl->s;
	uint32_t	group = 0;		/* first result segment of this group */
	uint32_t	i;

	union_dedupe(s, a);
	s->out = a->alloc((size_t) (s->nitems > 0 ? s->nitems : 1) * sizeof(UnionOut),
					  a->ctx);
	if (s->out == NULL)
		return SBF_E_NOMEM;
	s->nout = 0;
	for (i = 0; i < s->nitems; i++)
	{
		const UnionItem *x = &s->items[i];
		UnionOut   *o;
		bool		placed = false;

		sbf_check_interrupt(a);
		if (s->nout > group && !sbf_union_same_group(s->out[group].seed, x))
			group = s->nout;
		if (merge)
		{
			SbfStatus	st = sbf_union_place(s, group, x, &placed, a);

			if (st != SBF_OK)
				return st;
		}
		if (!placed)
		{
			o = &s->out[s->nout++];
			o->seed = x;
			o->ones = x->ones;
			o->count = x->count;
			o->grew = false;
			o->bits = NULL;
		}
	}
	return SBF_OK;
}

/* Merges the inputs' HyperLogLogs at the smallest precision. */
static SbfStatus
union_hll(UnionPlan *pl, const SbfView *in, uint32_t n, const SbfAllocator *a)
{
	UnionScratch *s = &pl->s;
	int			maxp = in[0].hll_p;
	int			p = in[0].hll_p;
	uint32_t	i;
	uint32_t	j;

	for (i = 1; i < n; i++)
	{
		if (in[i].hll_p > maxp)
			maxp = in[i].hll_p;
		if (in[i].hll_p < p)
			p = in[i].hll_p;
	}
	s->regs = a->alloc(SBF_HLL_REGISTERS(maxp), a->ctx);
	s->folded = a->alloc(SBF_HLL_REGISTERS(p), a->ctx);
	s->merged = a->alloc(SBF_HLL_REGISTERS(p), a->ctx);
	if (s->regs == NULL || s->folded == NULL || s->merged == NULL)
		return SBF_E_NOMEM;
	memset(s->merged, 0, SBF_HLL_REGISTERS(p));
	for (i = 0; i < n; i++)
	{
		sbf_hll_unpack(in[i].buf + in[i].hll_offset, in[i].hll_bytes,
					   (in[i].flags & SBF_FLAG_HLL_DENSE) != 0, in[i].hll_p,
					   s->regs);
		sbf_hll_fold(s->regs, in[i].hll_p, p, s->folded);
		for (j = 0; j < SBF_HLL_REGISTERS(p); j++)
			if (s->folded[j] > s->merged[j])
				s->merged[j] = s->folded[j];
		sbf_check_interrupt(a);
	}
	pl->hll_p = p;
	pl->hll_bytes = sbf_hll_encoded_size(s->merged, p, &pl->dense);
	return SBF_OK;
}

/*
 * Plans the union of n >= 1 validated views: canonical segments, merges,
 * HyperLogLog, size and budget.  Nothing is written.
 */
static SbfStatus
union_plan(UnionPlan *pl, const SbfView *in, uint32_t n,
		   const SbfUnionSpec *spec, const SbfAllocator *a)
{
	bool		own_rate = !(spec->error_rate > 0.0);
	uint64_t	len;
	uint32_t	i;
	SbfStatus	st;

	memset(pl, 0, sizeof(*pl));
	pl->first = &in[0];
	if (!own_rate && !(spec->error_rate < 0.5))
		return SBF_E_PARAM;
	pl->error_rate = own_rate ? in[0].error_rate : spec->error_rate;
	for (i = 0; i < n; i++)
		if (in[i].capacity > pl->capacity)
			pl->capacity = in[i].capacity;

	st = union_collect(pl, in, n, own_rate, a);
	if (st == SBF_OK)
		st = union_merge(pl, spec->merge, a);
	if (st == SBF_OK)
		st = union_hll(pl, in, n, a);
	if (st != SBF_OK)
		return st;
	if (pl->s.nout > SBF_MAX_SEGMENTS)
		return SBF_E_TOO_MANY_SEGMENTS;
	sbf_union_order(&pl->s, spec->merge, a);

	if (!sbf_union_areas(&pl->s, &len, SBF_MAX_BYTES) ||
		pl->hll_bytes > SBF_MAX_BYTES - len)
		return SBF_E_TOO_LARGE;
	len += pl->hll_bytes;
	pl->bound = 0.0;
	/* the same sum, in the same order, as sbf_fpr_budget */
	for (i = 0; i < pl->s.nout; i++)
		pl->bound += pl->s.out[i].seed->error;
	pl->len = (size_t) len;
	return SBF_OK;
}

/*
 * The result's OVERLAP and CHAIN flags (see the file header, "Flags"):
 * CHAIN when every input has it; OVERLAP unless the result's segments
 * equal, entry for entry and byte for byte, those of an input whose
 * directory counts answer (version 2 or 4) and without OVERLAP.
 */
static uint8_t
union_flags(const UnionPlan *pl, const SbfView *in, uint32_t n)
{
	uint8_t		chain = SBF_FLAG_CHAIN;
	bool		overlap = true;
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		chain &= in[i].flags;
		if (overlap && sbf_union_same_as(&pl->s, &in[i]))
			overlap = false;
	}
	return (uint8_t) (chain | (overlap ? SBF_FLAG_OVERLAP : 0));
}

/* The union of n validated segmented views into a new filter (steps 1-4). */
SbfStatus
sbf_union_segments(SbfFilter *out, const SbfView *in, uint32_t n,
			   const SbfUnionSpec *spec, double *bound, size_t prefix,
			   const SbfAllocator *a)
{
	UnionPlan	pl;
	uint8_t    *base;
	SbfStatus	st;

	sbf_filter_start(out, prefix, a);
	if (bound != NULL)
		*bound = 0.0;
	if (n == 0)
		return SBF_E_PARAM;

	st = union_plan(&pl, in, n, spec, a);
	if (st == SBF_OK && bound != NULL)
		*bound = pl.bound;
	/* a rounding margin: the sum of a growth chain's p may round above e */
	if (st == SBF_OK && spec->enforce && in[0].tightening < 1.0 &&
		pl.bound > pl.error_rate * (1.0 + 1e-9))
		st = SBF_E_OVER_BUDGET;
	if (st == SBF_OK && prefix > SIZE_MAX - pl.len)
		st = SBF_E_TOO_LARGE;
	if (st == SBF_OK)
	{
		base = a->alloc(prefix + pl.len, a->ctx);
		if (base == NULL)
			st = SBF_E_NOMEM;
		else
		{
			memset(base, 0, prefix);
			sbf_union_write(&pl, base + prefix, a);
			base[prefix + SBF_OFF_FLAGS] |= union_flags(&pl, in, n);
			out->base = base;
			out->len = pl.len;
			out->cap = pl.len;
		}
	}
	union_scratch_free(&pl.s, a);
	return st;
}
