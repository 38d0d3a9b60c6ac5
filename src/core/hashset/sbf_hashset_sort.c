/*
 * sbf_hashset_sort.c
 *	  Merging runs of hashes for the sorted hash set (sbf_hashset.h):
 *	  galloping search for the hashes a set already has, and the iterator
 *	  over a set's hashes in ascending order.  The bucket sort of a pending
 *	  buffer is common/sbf_hash_sort.c.
 */
#include <stdlib.h>

#include "sbf_hashset_int.h"

/*
 * The first index p >= lo with a[p] >= x (n if none), by galloping from lo:
 * O(log distance), so a sorted run of probes costs about its length times
 * the log of the average gap.
 */
static inline uint64_t
hs_lower_bound(const uint64_t *a, uint64_t lo, uint64_t n, uint64_t x)
{
	uint64_t	step = 1;
	uint64_t	hi;

	if (lo >= n || a[lo] >= x)
		return lo;
	/* invariant: a[lo] < x */
	while (lo + step < n && a[lo + step] < x)
	{
		lo += step;
		step <<= 1;
	}
	hi = SBF_HS_MIN(lo + step, n);
	/* a[lo] < x, and hi == n or a[hi] >= x */
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/*
 * Removes from the sorted, distinct run[0..r) the hashes that the sorted
 * set[0..nset) has; returns how many remain (in place, still sorted).  A run
 * may be a whole decoded set: a's interrupt is checked every
 * SBF_WORK_STRIDE hashes.
 */
uint64_t
sbf_hs_drop_known(const uint64_t *set, uint64_t nset, uint64_t *run, uint64_t r,
				  const SbfAllocator *a)
{
	uint64_t	p = 0;
	uint64_t	i;
	uint64_t	k = 0;

	for (i = 0; i < r; i++)
	{
		uint64_t	x = run[i];

		p = hs_lower_bound(set, p, nset, x);
		run[k] = x;
		k += p >= nset || set[p] != x;
		if (SBF_HS_STRIDE_DUE(i))
			sbf_check_interrupt(a);
	}
	return k;
}

/*
 * Sets up an iterator over all hashes of a non-streaming set without
 * changing it: the buffer is copied (with a), sorted and stripped of repeats
 * and of the array's hashes.  *copy is the copy to free (or NULL).
 */
SbfStatus
sbf_hs_iter_of(const SbfHashSet *s, const SbfAllocator *a, SbfHsIter *it,
		   uint64_t **copy)
{
	uint64_t   *run = NULL;
	uint64_t	r = 0;

	*copy = NULL;
	if (s->nbuf > 0)
	{
		uint32_t   *count = NULL;

		run = a->alloc(s->nbuf * sizeof(uint64_t), a->ctx);
		if (run == NULL)
			return SBF_E_NOMEM;
		if (sbf_hash_sort_count_size(s->nbuf) > 0)
		{
			/* as many counters as this sort uses: a small set stays cheap */
			count = a->alloc(sbf_hash_sort_count_size(s->nbuf) * sizeof(uint32_t), a->ctx);
			if (count == NULL)
			{
				a->free(run, a->ctx);
				return SBF_E_NOMEM;
			}
		}
		r = sbf_hash_sort_unique(s->buf, s->nbuf, run, count);
		sbf_free(a, count);
		r = sbf_hs_drop_known(s->set, s->nset, run, r, a);
	}
	hs_iter_start(it, s->set, s->nset, run, r);
	*copy = run;
	return SBF_OK;
}
