/*
 * sbf_union_compact.c
 *	  A merging union of compact values only, as one compact value
 *	  (docs/format5.md, section 3, "Unions"): their fingerprints cut to the
 *	  smallest b among them, merged and each kept once; the ranks list of
 *	  the registers whose rank passes the cap of b (from the longer
 *	  fingerprints and the inputs' lists), so that its HyperLogLog is the
 *	  hashes' own; capacity the count.  Only where that value's bound is no
 *	  larger than the one of the union of their segmented forms (the sum of
 *	  the inputs' bounds) and it is what the builder writes compact (at most
 *	  SBF_COMPACT_BUILD_MAX fingerprints in SBF_COMPACT_BUILD_MAX_BYTES);
 *	  otherwise sbf_union_many unites the segmented forms.  The result
 *	  depends only on the set of inputs.
 */
#include <math.h>

#include "sbf_compact.h"
#include "sbf_dir.h"
#include "sbf_hash_sort.h"
#include "sbf_union_int.h"

/* The most fingerprints the inputs may hold together. */
#define UNION_COMPACT_MAX_INPUT		(4 * SBF_COMPACT_BUILD_MAX)

/*
 * Raises r to the ranks that cv's n fingerprints fp (of cv's b bits) give
 * the registers whose fingerprints are capped at b bits: the zeros above
 * the register where a bit of the longer fingerprint is set, else cv's list
 * entry or its own cap.
 */
static void
cut_ranks(const SbfCompactView *cv, const uint64_t *fp, int b, SbfCompactRanks *r)
{
	SbfCompactRanks own;
	uint64_t	mask = (UINT64_C(1) << (b - SBF_COMPACT_HLL_P)) - 1;
	int			cap = b - SBF_COMPACT_HLL_P + 1;
	int			own_cap = cv->shape.b - SBF_COMPACT_HLL_P + 1;
	uint64_t	i;

	sbf_compact_view_ranks(cv, &own);
	for (i = 0; i < cv->shape.n; i++)
	{
		uint64_t	w = fp[i] >> SBF_COMPACT_HLL_P;
		uint32_t	j = (uint32_t) (fp[i] & (SBF_COMPACT_REGISTERS - 1));
		int			rho;

		if ((w & mask) != 0)
			continue;
		rho = w != 0 ? sbf_ctz64(w) + 1 : own.rank[j] > 0 ? own.rank[j] : own_cap;
		if (rho > cap && rho > r->rank[j])
		{
			r->count += r->rank[j] == 0;
			r->rank[j] = (uint8_t) rho;
		}
	}
}

/*
 * Whether the n views can unite as one compact value: all compact, the
 * parameters that must match matching, not too many fingerprints.  *b gets
 * the smallest b, *appended the sum of their bounds, an exact set's (b =
 * SBF_COMPACT_EXACT_BITS, the exact form 1.3 united without spending a
 * rate) at its fingerprints over 2^b: what it takes cut to b.
 */
static bool
compact_inputs(const SbfView *in, uint32_t n, const SbfUnionSpec *spec, int *b,
			   double *appended)
{
	uint64_t	total = 0;
	uint64_t	exact = 0;
	uint32_t	i;

	*b = 64;
	*appended = 0.0;
	if (n < 2 || !spec->merge)
		return false;
	for (i = 0; i < n; i++)
	{
		uint32_t	diff;

		if (!sbf_is_compact(&in[i]))
			return false;
		diff = sbf_union_mismatch(&in[0], &in[i]);
		if (spec->error_rate > 0.0)
			diff &= ~(uint32_t) SBF_DIFF_ERROR_RATE;
		total += in[i].nfp;
		if (diff != 0 || total > UNION_COMPACT_MAX_INPUT)
			return false;
		if (in[i].fp_bits < *b)
			*b = in[i].fp_bits;
		if (in[i].fp_bits == SBF_COMPACT_EXACT_BITS)
			exact += in[i].nfp;
		else
			*appended += sbf_compact_view_rate(&in[i], SBF_COMPACT_RATE_BOUND);
	}
	*appended += ldexp((double) exact, -*b);
	return true;
}

/* The n fingerprints fp cut to b bits, ascending and each once; their count. */
static uint64_t
cut_unique(uint64_t *fp, uint64_t n, int b)
{
	uint64_t	d = 0;
	uint64_t	i;

	for (i = 0; i < n; i++)
		fp[i] = sbf_ef_fingerprint(fp[i], b);
	sbf_hash_sort_all(fp, (size_t) n);
	for (i = 0; i < n; i++)
		if (d == 0 || fp[i] != fp[d - 1])
			fp[d++] = fp[i];
	return d;
}

/*
 * The fingerprints of the n compact views cut to b bits, ascending and each
 * once, into fp (room for all); their count.  r gets the ranks list.
 */
static uint64_t
cut_fingerprints(const SbfView *in, uint32_t n, int b, uint64_t *fp,
				 SbfCompactRanks *r)
{
	uint64_t	total = 0;
	uint32_t	k;

	memset(r, 0, sizeof(*r));
	for (k = 0; k < n; k++)
	{
		SbfCompactView cv;

		sbf_view_compact(&in[k], &cv);
		sbf_ef_decode_bytes(&cv.shape, cv.code, fp + total);
		cut_ranks(&cv, fp + total, b, r);
		total += cv.shape.n;
	}
	return cut_unique(fp, total, b);
}

/*
 * Writes the compact value of the n ascending fingerprints fp at b bits with
 * cp into out (its prefix bytes zero), or returns false when it is not what
 * the builder writes compact; *st the status of a write that was tried.
 */
static bool
write_compact(SbfFilter *out, const SbfCompactParams *cp, const uint64_t *fp,
			  uint64_t n, int b, size_t prefix, SbfStatus *st)
{
	const SbfAllocator *a = out->a;
	size_t		len;

	if (sbf_compact_size(n, b, cp, &len) != SBF_OK || len > SBF_COMPACT_BUILD_MAX_BYTES)
		return false;
	out->base = a->alloc(prefix + len, a->ctx);
	if (out->base == NULL)
	{
		*st = SBF_E_NOMEM;
		return true;
	}
	memset(out->base, 0, prefix);
	*st = sbf_compact_write_sorted(fp, n, b, cp, out->base + prefix, len);
	if (*st != SBF_OK)
	{
		sbf_filter_free(out);
		sbf_filter_start(out, prefix, a);
		return *st == SBF_E_NOMEM;
	}
	out->len = out->cap = len;
	return true;
}

/*
 * Writes the union of compact views (first: the first of them) as the
 * compact value of the n fingerprints fp at b bits, as write_compact:
 * capacity n, OVERLAP where the inputs held more fingerprints (total) than
 * it keeps, so that # counts the elements behind them
 * (sbf_compact_view_count).
 */
static bool
write_union(SbfFilter *out, const SbfView *first, const SbfUnionSpec *spec,
			const uint64_t *fp, uint64_t n, uint64_t total, int b,
			const SbfCompactRanks *r, size_t prefix, SbfStatus *st)
{
	SbfCompactParams cp = {spec->error_rate > 0.0 ? spec->error_rate : first->error_rate,
		n, first->growth, first->tightening, n < total, r};

	return write_compact(out, &cp, fp, n, b, prefix, st);
}

/* sbf_union_int.h */
bool
sbf_union_compact(SbfFilter *out, const SbfView *in, uint32_t n,
				  const SbfUnionSpec *spec, double *bound, size_t prefix,
				  const SbfAllocator *a, SbfStatus *st)
{
	SbfCompactRanks r;
	uint64_t   *fp;
	uint64_t	total = 0;
	uint64_t	m;
	double		appended;
	double		b_out;
	double		budget;
	bool		done = false;
	uint32_t	i;
	int			b;

	*st = SBF_OK;
	if (!compact_inputs(in, n, spec, &b, &appended))
		return false;
	for (i = 0; i < n; i++)
		total += in[i].nfp;
	fp = a->alloc((size_t) total * sizeof(uint64_t), a->ctx);
	if (fp == NULL)
	{
		*st = SBF_E_NOMEM;
		return true;
	}
	m = cut_fingerprints(in, n, b, fp, &r);
	b_out = ldexp((double) m, -b);
	budget = spec->error_rate > 0.0 ? spec->error_rate : in[0].error_rate;
	if (m <= SBF_COMPACT_BUILD_MAX && b_out <= appended)
	{
		if (spec->enforce && in[0].tightening < 1.0 && b_out > budget * (1.0 + 1e-9))
		{
			*st = SBF_E_OVER_BUDGET;
			done = true;
		}
		else if ((double) m <= ldexp(budget, b))
			done = write_union(out, &in[0], spec, fp, m, total, b, &r, prefix, st);
	}
	a->free(fp, a->ctx);
	if (done && bound != NULL)
		*bound = b_out;
	return done;
}

/*
 * Whether v is a segmented value of version 5 whose every segment is
 * compact, with the HyperLogLog a compact value's ranks complete: *b gets
 * the smallest b, *total the fingerprints, *appended the sum of the
 * segments' bounds (an exact set's as compact_inputs counts it).
 */
static bool
compact_segments(const SbfView *v, int *b, uint64_t *total, double *appended)
{
	SbfDirIter	it;
	SbfDirEntry e;
	uint64_t	exact = 0;

	*b = 64;
	*total = 0;
	*appended = 0.0;
	if (v->version != SBF_FORMAT_V5 || sbf_is_compact(v) || sbf_is_exact(v) ||
		(v->flags & SBF_FLAG_WINDOWED) != 0 || v->hash_id != SBF_HASH_XXH3 ||
		v->hll_p != SBF_COMPACT_HLL_P || v->nsegments < 1)
		return false;
	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
	{
		if (e.st != SBF_OK || e.g.kind != SBF_KIND_COMPACT)
			return false;
		*total += e.g.size;
		if (*total > UNION_COMPACT_MAX_INPUT)
			return false;
		if (e.g.width < *b)
			*b = e.g.width;
		if (e.g.width == SBF_COMPACT_EXACT_BITS)
			exact += e.g.size;
		else
			*appended += e.error;
	}
	*appended += ldexp((double) exact, -*b);
	return *b > SBF_COMPACT_HLL_P;
}

/*
 * The fingerprints of v's compact segments (compact_segments) cut to b
 * bits, ascending and each once, into fp (room for all); their count.  One
 * segment's are its own, repeats kept (a builder's value of n hashes holds
 * n fingerprints), so that the value it came from comes back.
 */
static uint64_t
cut_segments(const SbfView *v, int b, uint64_t *fp)
{
	SbfDirIter	it;
	SbfDirEntry e;
	uint64_t	total = 0;

	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
	{
		SbfEfShape	s;

		(void) sbf_ef_shape(e.g.size, e.g.width, &s);
		sbf_ef_decode_bytes(&s, v->buf + e.data, fp + total);
		total += e.g.size;
	}
	if (v->nsegments == 1)
		return total;
	return cut_unique(fp, total, b);
}

/*
 * The ranks list of the n fingerprints fp at b bits from v's HyperLogLog:
 * a register whose rank passes the cap of b holds a hash whose bits
 * between the register and b are zero, so its fingerprint is the
 * register's number (a register without it, which only a value written
 * elsewhere could hold, is left out).
 */
static void
collected_ranks(const SbfView *v, const uint64_t *fp, uint64_t n, int b,
				SbfCompactRanks *r)
{
	uint8_t		regs[SBF_COMPACT_REGISTERS];
	int			cap = b - SBF_COMPACT_HLL_P + 1;
	uint32_t	j;

	memset(r, 0, sizeof(*r));
	sbf_hll_unpack(v->buf + v->hll_offset, v->hll_bytes,
				   (v->flags & SBF_FLAG_HLL_DENSE) != 0, v->hll_p, regs);
	for (j = 0; j < SBF_COMPACT_REGISTERS; j++)
		if (regs[j] > cap && sbf_ef_array_has(fp, n, j))
		{
			r->rank[j] = regs[j];
			r->count++;
		}
}

/* sbf_union_int.h */
bool
sbf_union_compact_collected(SbfFilter *out, const SbfView *v,
							const SbfUnionSpec *spec, double *bound,
							size_t prefix, const SbfAllocator *a, SbfStatus *st)
{
	SbfCompactRanks r;
	SbfCompactParams cp;
	uint64_t   *fp;
	uint64_t	total;
	uint64_t	m;
	double		appended;
	double		b_out;
	double		budget = spec->error_rate > 0.0 ? spec->error_rate : v->error_rate;
	bool		done = false;
	int			b;

	*st = SBF_OK;
	if (!spec->merge || !compact_segments(v, &b, &total, &appended))
		return false;
	fp = a->alloc((size_t) total * sizeof(uint64_t), a->ctx);
	if (fp == NULL)
	{
		*st = SBF_E_NOMEM;
		return true;
	}
	m = cut_segments(v, b, fp);
	b_out = ldexp((double) m, -b);
	/* over the budget: the union of the segments says so with its bound */
	if (m <= SBF_COMPACT_BUILD_MAX && b_out <= appended &&
		b_out <= budget * (1.0 + 1e-9) && (double) m <= ldexp(budget, b))
	{
		collected_ranks(v, fp, m, b, &r);
		cp.error_rate = budget;
		/* one segment: the compact value it was, capacity and OVERLAP kept */
		cp.capacity = v->nsegments == 1 ? v->capacity : m;
		cp.growth = v->growth;
		cp.tightening = v->tightening;
		cp.overlap = v->nsegments == 1 ? (v->flags & SBF_FLAG_OVERLAP) != 0 : m < total;
		cp.ranks = &r;
		done = write_compact(out, &cp, fp, m, b, prefix, st);
	}
	a->free(fp, a->ctx);
	if (done && bound != NULL)
		*bound = b_out;
	return done;
}
