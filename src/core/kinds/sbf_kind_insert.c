/*
 * sbf_kind_insert.c
 *	  What the kinds share below the table (sbf_kind.c names every kind's
 *	  row, so a helper the kinds call lives here, not there): the build of a
 *	  kind that inserts one hash at a time.
 */
#include "sbf_internal.h"
#include "sbf_kind.h"

/*
 * The build of a kind that inserts one hash at a time: checks that h[0..n)
 * ascends strictly, zeroes the bytes of data and inserts each hash, with an
 * interrupt check every SBF_WORK_STRIDE hashes.
 */
SbfStatus
sbf_kind_build_by_insert(const SbfKindGeom *g, uint8_t *data, uint64_t bytes,
						 const uint64_t *h, size_t n, const SbfAllocator *a,
						 bool (*insert) (const SbfKindGeom *, uint8_t *, uint64_t))
{
	size_t		i;

	for (i = 1; i < n; i++)
		if (h[i - 1] >= h[i])
			return SBF_E_PARAM;
	memset(data, 0, (size_t) bytes);
	for (i = 0; i < n; i++)
	{
		if ((i & (SBF_WORK_STRIDE - 1)) == SBF_WORK_STRIDE - 1 && a != NULL)
			sbf_check_interrupt(a);
		(void) insert(g, data, h[i]);
	}
	return SBF_OK;
}
