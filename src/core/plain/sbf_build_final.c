/*
 * sbf_build_final.c
 *	  The final of an aggregate (and of sbf_build): the exact form where it
 *	  stays exact, else the one builder's segment (sbf_build.c), or the
 *	  compact form (docs/format5.md, section 3) where it is smaller.  Apart from
 *	  the builder so that the builder needs nothing of the writers that
 *	  grow and convert values (sbf_filter.c), which start from it.
 */
#include "sbf_compact.h"
#include "sbf_internal.h"
#include "sbf_plain.h"

/*
 * The compact form of the n ascending hashes h at share into f in place of
 * the value f holds (segmented, or the exact form), when it is strictly
 * smaller: capacity n, b SBF_COMPACT_EXACT_BITS for at most
 * SBF_COMPACT_EXACT_MAX hashes (the exact form's answers), else the least
 * with n / 2^b <= share and above the default HyperLogLog precision
 * (sbf_compact_bits), the parameters stored, the hashes' ranks above the
 * fingerprints' cap listed (sbf_compact_ranks: its HyperLogLog is theirs).
 * Only up to SBF_COMPACT_BUILD_MAX hashes in SBF_COMPACT_BUILD_MAX_BYTES,
 * which a lookup plan decodes, and only at the default HyperLogLog
 * precision (the form's).  f is kept as it is otherwise, and on any failure
 * but SBF_E_NOMEM.
 */
static SbfStatus
compact_if_smaller(SbfFilter *f, const SbfParams *p, const uint64_t *h, size_t n,
				   double share)
{
	SbfCompactParams cp = {p->error_rate, (uint64_t) n, p->growth, p->tightening,
	false, NULL};
	SbfCompactRanks rk;
	size_t		len;
	int			b = SBF_COMPACT_EXACT_BITS;
	SbfStatus	st;

	if (n < 1 || n > SBF_COMPACT_BUILD_MAX || p->hll_p != SBF_HLL_P_DEFAULT ||
		(n > SBF_COMPACT_EXACT_MAX &&
		 sbf_compact_bits((uint64_t) n, share, SBF_HLL_P_DEFAULT, &b) != SBF_OK))
		return SBF_OK;
	sbf_compact_ranks(h, (uint64_t) n, b, &rk);
	cp.ranks = &rk;
	if (sbf_compact_size((uint64_t) n, b, &cp, &len) != SBF_OK || len >= f->len ||
		len > SBF_COMPACT_BUILD_MAX_BYTES)
		return SBF_OK;
	st = sbf_compact_store(f, h, (uint64_t) n, b, &cp, len, false);
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
	SbfStatus	st;

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
			st = compact_if_smaller(f, p, h, n, share);
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
		st = compact_if_smaller(f, p, h, n, share);
		if (st != SBF_OK)
			sbf_filter_free(f);
	}
	return st;
}
