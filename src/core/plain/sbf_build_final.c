/*
 * sbf_build_final.c
 *	  The final of an aggregate (and of sbf_build): the exact form where it
 *	  stays exact, else the one builder's segment (sbf_build.c).  Apart from
 *	  the builder so that the builder needs nothing of the writers that
 *	  grow and convert values (sbf_filter.c), which start from it.
 */
#include "sbf_internal.h"
#include "sbf_plain.h"

/*
 * The final of an aggregate over the complete set of n strictly ascending
 * distinct hashes h (n may be 0): the exact form, version 2 byte for byte
 * as 1.2 wrote it, when the whole set stays exact by 1.2's rule; else one
 * version-4 segment from sbf_build_sorted at share sbf_sized_error (1.2's
 * right-sized first segment).  sbf_write_v2: 1.2's create and add.
 */
SbfStatus
sbf_build_final(SbfFilter *f, const SbfParams *p, const uint64_t *h, size_t n,
				size_t prefix, const SbfAllocator *a)
{
	SbfStatus	st;

	if (n <= SBF_EXACT_MAX || sbf_write_v2)
	{
		size_t		used = 0;
		SbfView		v;

		st = sbf_create_sized(f, p, n > 0 ? n : 1, prefix, a);
		if (st != SBF_OK || n == 0)
			return st;
		if (sbf_write_v2)
			st = sbf_add_hashes(f, h, n);
		else
			st = sbf_exact_add_run(f, h, n, &used);
		sbf_filter_view(f, &v);
		if (st != SBF_OK || sbf_write_v2 || (used == n && sbf_is_exact(&v)))
		{
			if (st != SBF_OK)
				sbf_filter_free(f);
			return st;
		}
		sbf_filter_free(f);
	}
	return sbf_build_sorted(f, p, h, n,
							sbf_sized_error(p->error_rate, p->tightening), 0,
							prefix, a);
}
