/*
 * sbf_build_final.c
 *	  The final of an aggregate (and of sbf_build): the exact form where it
 *	  stays exact, else the one builder's segment (sbf_build.c), or the
 *	  compact form (docs/format5.md, section 3) where it is smaller.  Apart from
 *	  the builder so that the builder needs nothing of the writers that
 *	  grow and convert values (sbf_filter.c), which start from it.
 */
#include <math.h>

#include "sbf_compact.h"
#include "sbf_dir.h"
#include "sbf_internal.h"
#include "sbf_plain.h"

/* The compact form a builder would write for a set (compact_plan). */
typedef struct CompactPlan
{
	SbfCompactParams cp;
	SbfCompactRanks rk;
	size_t		len;
	int			b;
} CompactPlan;

/* sbf_plain.h */
SbfStatus
sbf_build_compact_bits(const SbfParams *p, uint64_t n, int *b)
{
	uint64_t	room;

	*b = SBF_COMPACT_EXACT_BITS;
	if (n <= SBF_COMPACT_EXACT_MAX)
		return n >= 1 ? SBF_OK : SBF_E_PARAM;
	room = sbf_exact_agg_room(p->error_rate, p->tightening, p->growth, n,
							  SBF_EXACT_MAX);
	if (sbf_compact_bits(room > n ? room : n,
						 sbf_build_first_bound(p->error_rate, p->tightening, n),
						 SBF_HLL_P_DEFAULT, b) != SBF_OK)
		return SBF_E_PARAM;
	/* where 1.3 wrote a segment: only a value whose adds stay within its chain */
	if (room == 0 &&
		!sbf_compact_chain_fits(p->error_rate, p->tightening, p->growth, n, n, *b,
								false))
		return SBF_E_PARAM;
	return SBF_OK;
}

/*
 * The compact form of the n ascending hashes h: capacity n, b
 * sbf_build_compact_bits, the parameters stored, the hashes' ranks above
 * the fingerprints' cap listed (sbf_compact_ranks: its HyperLogLog is
 * theirs).  false when a builder writes none: above SBF_COMPACT_BUILD_MAX
 * hashes or SBF_COMPACT_BUILD_MAX_BYTES (what a lookup plan decodes), at
 * another HyperLogLog precision than the default (the form's), or where
 * sbf_build_compact_bits gives none.
 */
static bool
compact_plan(const SbfParams *p, const uint64_t *h, size_t n, CompactPlan *c)
{
	c->cp = (SbfCompactParams) {p->error_rate, (uint64_t) n, p->growth,
	p->tightening, false, &c->rk};
	if (n < 1 || n > SBF_COMPACT_BUILD_MAX || p->hll_p != SBF_HLL_P_DEFAULT ||
		sbf_build_compact_bits(p, (uint64_t) n, &c->b) != SBF_OK)
		return false;
	sbf_compact_ranks(h, (uint64_t) n, c->b, &c->rk);
	return sbf_compact_size((uint64_t) n, c->b, &c->cp, &c->len) == SBF_OK &&
		c->len <= SBF_COMPACT_BUILD_MAX_BYTES;
}

/*
 * The planned compact form c (compact_plan; NULL: none) into f in place of
 * the value f holds (segmented, or the exact form), when it is strictly
 * smaller.  f is kept as it is otherwise, and on any failure but
 * SBF_E_NOMEM.
 */
static SbfStatus
compact_if_smaller(SbfFilter *f, const CompactPlan *c, const uint64_t *h,
				   size_t n)
{
	SbfStatus	st;

	if (c == NULL || c->len >= f->len)
		return SBF_OK;
	st = sbf_compact_store(f, h, (uint64_t) n, c->b, &c->cp, c->len, false);
	return st == SBF_E_NOMEM ? st : SBF_OK;
}

/*
 * The planned compact form c (NULL: none) into the new value f when it is
 * strictly smaller than
 * anything the paths of sbf_build_final below could write, known without
 * writing them (so *done, and the same bytes they end with): the exact
 * form (while n <= SBF_EXACT_MAX), and any one-segment value, whose data
 * holds at least n log2(1/share) bits (no structure answering a
 * non-member with rate at most share holds less: Carter, Floyd, Gill,
 * Markowsky and Wegman, "Exact and approximate membership testers", STOC
 * 1978) behind its header, directory entry and HyperLogLog.  Else *done is
 * false and f untouched (also on a failure to write it but SBF_E_NOMEM).
 */
static SbfStatus
compact_first(SbfFilter *f, const SbfParams *p, const uint64_t *h, size_t n,
			  double share, const CompactPlan *c, bool *done)
{
	size_t		hll_bytes;
	double		floor_bytes;
	SbfStatus	st;

	*done = false;
	if (c == NULL || sbf_params_check(p) != SBF_OK || !(share > 0.0 && share < 0.5))
		return SBF_OK;
	if (n <= SBF_EXACT_MAX && c->len >= SBF_EXACT_HEADER_BYTES + 8 * n)
		return SBF_OK;
	st = sbf_build_hll_size(h, n, p->hll_p, f->a, &hll_bytes);
	if (st != SBF_OK)
		return st;
	floor_bytes = (double) (SBF_HEADER_BYTES + SBF_SEGDIR_BYTES + hll_bytes) +
		(double) n * -log2(share) / 8.0;
	if (!((double) c->len < floor_bytes))
		return SBF_OK;
	st = sbf_compact_store(f, h, (uint64_t) n, c->b, &c->cp, c->len, false);
	*done = st == SBF_OK;
	/* as compact_if_smaller: only an allocation's failure is the final's */
	return st == SBF_E_NOMEM ? st : SBF_OK;
}

/*
 * The final of an aggregate over the complete set of n strictly ascending
 * distinct hashes h (n may be 0): while the whole set stays exact by 1.2's
 * rule, the exact form, version 2 byte for byte as 1.2 wrote it, or in its
 * place the compact form where that is smaller: at 63 fingerprint bits up to
 * SBF_COMPACT_EXACT_MAX hashes, else at the share below; past that rule one
 * version-4 segment from sbf_build_sorted at share sbf_sized_error (1.2's
 * right-sized first segment), or the compact form at that share when it is
 * smaller (compact_if_smaller).  sbf_write_v2: 1.2's create and add.
 */
SbfStatus
sbf_build_final(SbfFilter *f, const SbfParams *p, const uint64_t *h, size_t n,
				size_t prefix, const SbfAllocator *a)
{
	double		share = sbf_sized_error(p->error_rate, p->tightening);
	CompactPlan plan;
	const CompactPlan *c = NULL;
	bool		done = false;
	SbfStatus	st;

	sbf_filter_start(f, prefix, a);
	if (!sbf_write_v2)
	{
		/* planned once: the paths below only compare its length */
		if (compact_plan(p, h, n, &plan))
			c = &plan;
		st = compact_first(f, p, h, n, share, c, &done);
		if (st != SBF_OK || done)
			return st;
	}
	if (n <= SBF_EXACT_MAX || sbf_write_v2)
	{
		size_t		used = 0;
		bool		exact;
		SbfView		v;

		st = sbf_create_sized(f, p, n > 0 ? n : 1, prefix, a);
		if (st != SBF_OK || n == 0)
			return st;
		if (sbf_write_v2)
			st = sbf_add_hashes(f, h, n);
		else
			st = sbf_exact_add_run(f, h, n, &used);
		sbf_filter_view(f, &v);
		exact = st == SBF_OK && used == n && sbf_is_exact(&v);
		if (exact && !sbf_write_v2)
			st = compact_if_smaller(f, c, h, n);
		if (st != SBF_OK || sbf_write_v2 || exact)
		{
			if (st != SBF_OK)
				sbf_filter_free(f);
			return st;
		}
		sbf_filter_free(f);
	}
	st = sbf_build_sorted(f, p, h, n, share, 0, prefix, a);
	if (st == SBF_OK)
	{
		st = compact_if_smaller(f, c, h, n);
		if (st != SBF_OK)
			sbf_filter_free(f);
	}
	return st;
}
