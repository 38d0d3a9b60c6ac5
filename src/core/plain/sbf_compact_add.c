/*
 * sbf_compact_add.c
 *	  Adds to a compact value in place (docs/format5.md, section 3, "Adds"):
 *	  while its fingerprints with the new ones stay where its segmented form
 *	  would be no larger than the value release 1.3 grew from the same
 *	  elements (capacity_for), the value is written again in the compact
 *	  form, at the same fingerprint bits and capacity, its ranks list the
 *	  old one with the new hashes'.  An exact value (SBF_COMPACT_EXACT_BITS
 *	  fingerprint bits) that adds take past SBF_COMPACT_EXACT_MAX is written
 *	  at fewer bits instead, with the room 1.3's exact form had.  Otherwise
 *	  the caller adds to its segmented form (sbf_filter.c).
 */
#include <math.h>

#include "sbf_compact.h"
#include "sbf_dir.h"
#include "sbf_hash_sort.h"
#include "sbf_internal.h"
#include "sbf_plain.h"

/* Whether x is among the n ascending fingerprints fp. */
static bool
sorted_has(const uint64_t *fp, uint64_t n, uint64_t x)
{
	uint64_t	lo = 0;
	uint64_t	hi = n;

	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (fp[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && fp[lo] == x;
}

/*
 * Puts into nw the fingerprints of h[0..k) not among the n ascending fp nor
 * given before, ascending; returns how many.
 */
static uint64_t
new_fingerprints(const uint64_t *fp, uint64_t n, int b, const uint64_t *h,
				 size_t k, uint64_t *nw)
{
	uint64_t	m = 0;
	uint64_t	i;
	uint64_t	j;

	for (i = 0; i < k; i++)
	{
		uint64_t	x = sbf_ef_fingerprint(h[i], b);

		if (!sorted_has(fp, n, x))
			nw[m++] = x;
	}
	if (m <= 1)
		return m;
	sbf_hash_sort_all(nw, (size_t) m);
	for (i = 1, j = 1; i < m; i++)
	{
		if (nw[i] != nw[j - 1])
			nw[j++] = nw[i];
	}
	return j;
}

/*
 * Merges the m ascending nw into the n ascending fp, which has room for
 * them (from the end, so nothing is moved twice; nw lies past fp[n + m)).
 */
static void
merge_into(uint64_t *fp, uint64_t n, const uint64_t *nw, uint64_t m)
{
	uint64_t	i = n;
	uint64_t	j = m;
	uint64_t	w = n + m;

	while (j > 0)
	{
		if (i > 0 && fp[i - 1] > nw[j - 1])
			fp[--w] = fp[--i];
		else
			fp[--w] = nw[--j];
	}
}

/* r takes the larger rank of r and s in every register. */
static bool
merge_ranks(SbfCompactRanks *r, const SbfCompactRanks *s)
{
	bool		changed = false;
	int			j;

	for (j = 0; j < SBF_COMPACT_REGISTERS; j++)
	{
		if (s->rank[j] > r->rank[j])
		{
			r->count += r->rank[j] == 0;
			r->rank[j] = s->rank[j];
			changed = true;
		}
	}
	return changed;
}

/*
 * The capacity of a compact value of cv's parameters holding n fingerprints
 * after adds in place, 0 where it must take its segmented form instead.
 * Its capacity is kept: the count it was built for, where release 1.3's
 * value of the same elements started (docs/format5.md, section 3, "Adds").
 * At SBF_COMPACT_EXACT_BITS while it may (the caller cuts past
 * SBF_COMPACT_EXACT_MAX).  Where 1.3 wrote that count in the exact form
 * (sbf_exact_agg_room), while max(n, c) / 2^b is within
 * sbf_build_first_bound: the writers gave b the room for the count to
 * which 1.3 kept it exact.  Any other while it and the values adds grow from it stay within the chain
 * 1.3 grew from that count (sbf_compact_chain_fits).  So no value on the
 * way is larger than 1.3's for the same elements.
 */
static uint64_t
capacity_for(const SbfCompactView *cv, uint64_t n)
{
	uint64_t	c = cv->capacity;

	if (cv->shape.b == SBF_COMPACT_EXACT_BITS)
		return c;
	if (n < c)
		return 0;
	if (sbf_exact_agg_room(cv->error_rate, cv->tightening, cv->growth, c, c) > 0)
	{
		double		bound = sbf_build_first_bound(cv->error_rate, cv->tightening, c);

		return (double) n <= ldexp(bound, cv->shape.b) ? c : 0;
	}
	return sbf_compact_chain_fits(cv->error_rate, cv->tightening, cv->growth, c, n,
								  cv->shape.b, true) ? c : 0;
}

/*
 * Writes the n ascending fingerprints fp with cv's parameters, this
 * capacity and ranks into a new buffer that replaces f's.  false (f as it
 * was) when the value would pass what the builder writes compact; a
 * failure to allocate is *st = SBF_E_NOMEM.
 */
static bool
rewrite(SbfFilter *f, const SbfCompactView *cv, const uint64_t *fp, uint64_t n,
		uint64_t capacity, const SbfCompactRanks *ranks, SbfStatus *st)
{
	SbfCompactParams cp = {cv->error_rate, capacity, cv->growth, cv->tightening,
		(cv->flags & SBF_COMPACT_FLAG_OVERLAP) != 0, ranks};
	size_t		len;

	if (sbf_compact_size(n, cv->shape.b, &cp, &len) != SBF_OK ||
		len > SBF_COMPACT_BUILD_MAX_BYTES)
		return false;
	*st = sbf_compact_store(f, fp, n, cv->shape.b, &cp, len, true);
	/* only an allocation fails on what the checks above let through */
	return *st == SBF_OK || *st == SBF_E_NOMEM;
}

/*
 * Writes the n ascending fingerprints fp of an exact value (b
 * SBF_COMPACT_EXACT_BITS) that an add takes past SBF_COMPACT_EXACT_MAX in
 * the compact form at fewer bits: its capacity kept, b the least with room
 * for the count to which release 1.3 kept its exact form of that capacity
 * (sbf_exact_agg_room, at least n) within sbf_build_first_bound, the
 * ranks above that b's cap those of fp with the value's own (which hold each hash's rank
 * where its 63 bits do not).  false (f as it was) when the value would
 * pass what the builder writes compact; a failure to allocate is *st =
 * SBF_E_NOMEM.
 */
static bool
rewrite_cut(SbfFilter *f, const SbfCompactView *cv, const uint64_t *fp,
			uint64_t n, const SbfCompactRanks *ranks, SbfStatus *st)
{
	SbfCompactRanks rk;
	SbfCompactParams cp = {cv->error_rate, cv->capacity, cv->growth,
		cv->tightening, (cv->flags & SBF_COMPACT_FLAG_OVERLAP) != 0, &rk};
	uint64_t	room = sbf_exact_agg_room(cv->error_rate, cv->tightening,
										  cv->growth, cv->capacity,
										  SBF_EXACT_MAX);
	size_t		len;
	int			b;

	if (sbf_compact_bits(room > n ? room : n,
						 sbf_build_first_bound(cv->error_rate, cv->tightening,
											   cv->capacity),
						 SBF_HLL_P_DEFAULT, &b) != SBF_OK)
		return false;
	sbf_compact_ranks(fp, n, b, &rk);
	merge_ranks(&rk, ranks);
	if (sbf_compact_size(n, b, &cp, &len) != SBF_OK ||
		len > SBF_COMPACT_BUILD_MAX_BYTES)
		return false;
	*st = sbf_compact_store(f, fp, n, b, &cp, len, false);
	return *st == SBF_OK || *st == SBF_E_NOMEM;
}

/* sbf_plain.h */
SbfStatus
sbf_compact_store(SbfFilter *f, const uint64_t *h, uint64_t n, int b,
				  const SbfCompactParams *cp, size_t len, bool sorted)
{
	const SbfAllocator *a = f->a;
	uint8_t    *base = a->alloc(f->prefix + len, a->ctx);
	SbfStatus	st;

	if (base == NULL)
		return SBF_E_NOMEM;
	if (f->base != NULL)
		memcpy(base, f->base, f->prefix);
	else
		memset(base, 0, f->prefix);
	st = sorted ? sbf_compact_write_sorted(h, n, b, cp, base + f->prefix, len) :
		sbf_compact_write(h, n, b, cp, base + f->prefix, len, a);
	if (st != SBF_OK)
	{
		a->free(base, a->ctx);
		return st;
	}
	sbf_filter_free(f);
	f->base = base;
	f->len = f->cap = len;
	return SBF_OK;
}

/* sbf_plain.h */
bool
sbf_compact_add_in_place(SbfFilter *f, const SbfView *v, const uint64_t *h,
						 size_t k, bool *inserted, SbfStatus *st)
{
	SbfCompactView cv;
	SbfCompactRanks r;
	SbfCompactRanks add;
	const SbfAllocator *a = f->a;
	uint64_t   *fp;
	uint64_t	n = v->nfp;
	uint64_t	m;
	uint64_t	capacity;
	bool		done = true;
	bool		changed;

	*st = SBF_OK;
	if (k > SBF_COMPACT_BUILD_MAX || n > SBF_COMPACT_BUILD_MAX)
		return false;
	/* the decoded fingerprints, room for the new ones, then the new ones */
	fp = a->alloc((size_t) (n + 2 * k) * sizeof(uint64_t), a->ctx);
	if (fp == NULL)
	{
		*st = SBF_E_NOMEM;
		return true;
	}
	sbf_view_compact(v, &cv);
	sbf_ef_decode_bytes(&cv.shape, cv.code, fp);
	m = new_fingerprints(fp, n, cv.shape.b, h, k, fp + n + k);
	sbf_compact_view_ranks(&cv, &r);
	sbf_compact_ranks(h, (uint64_t) k, cv.shape.b, &add);
	changed = merge_ranks(&r, &add);
	/* a rank raised, no new fingerprint: the count and its room as they were */
	capacity = m == 0 ? cv.capacity : capacity_for(&cv, n + m);
	if (m == 0 && !changed)
		done = true;
	else if (n + m > SBF_COMPACT_BUILD_MAX || capacity == 0)
		done = false;
	else
	{
		merge_into(fp, n, fp + n + k, m);
		if (cv.shape.b == SBF_COMPACT_EXACT_BITS && m > 0 &&
			n + m > SBF_COMPACT_EXACT_MAX)
			done = rewrite_cut(f, &cv, fp, n + m, &r, st);
		else
			done = rewrite(f, &cv, fp, n + m, capacity, &r, st);
	}
	a->free(fp, a->ctx);
	if (inserted)
		*inserted = done && *st == SBF_OK && m > 0;
	return done;
}
