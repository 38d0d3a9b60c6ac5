/*
 * sbf_hashset_sort.c
 *	  Sorting and merging runs of hashes for the sorted hash set
 *	  (sbf_hashset.h): the bucket sort of a pending buffer, galloping search
 *	  for the hashes a set already has, and the iterator over a set's
 *	  hashes in ascending order.
 */
#include <stdlib.h>

#include "sbf_hashset_int.h"

/* Sorts a[0..n) by insertion (small n). */
static inline void
hs_insertion_sort(uint64_t *a, uint64_t n)
{
	uint64_t	i;

	for (i = 1; i < n; i++)
	{
		uint64_t	x = a[i];
		uint64_t	j = i;

		while (j > 0 && a[j - 1] > x)
		{
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

/* qsort comparator for uint64_t. */
static int
hs_cmp64(const void *pa, const void *pb)
{
	uint64_t	a = *(const uint64_t *) pa;
	uint64_t	b = *(const uint64_t *) pb;

	return (a > b) - (a < b);
}

/* Bits of the bucket index sbf_hs_sort_unique uses for n hashes: about n/4 buckets. */
static inline int
hs_bucket_bits(uint64_t n)
{
	int			bits = sbf_log2_64(n) - 2;

	return SBF_HS_MIN(SBF_HS_MAX(bits, 1), 16);
}

/* Counters sbf_hs_sort_unique needs for n hashes (0: none). */
size_t
sbf_hs_count_size(uint64_t n)
{
	if (n <= SBF_HS_SMALL_SORT || n > UINT32_MAX)
		return 0;
	return ((size_t) 1 << hs_bucket_bits(n)) + 1;
}

/*
 * Sorts src[0..n) into dst (n entries; dst may be src only when n <=
 * SBF_HS_SMALL_SORT) and drops repeats; returns the number of distinct
 * hashes.  Hashes are close to uniform, so one pass that distributes them by
 * their top bits into about n/4 buckets leaves buckets of a few hashes,
 * sorted by insertion; a bucket that is large anyway (repeats, or inputs
 * built to collide) is sorted by qsort, so the worst case stays n log n.
 * count has room for sbf_hs_count_size(n) counters.
 */
uint64_t
sbf_hs_sort_unique(const uint64_t *src, uint64_t n, uint64_t *dst, uint32_t *count)
{
	return sbf_hs_sort_unique_span(src, n, dst, count, 0, 64);
}

/*
 * The same for hashes that all lie in [lo, lo + 2^span_bits) (0 <= span_bits
 * <= 64): the buckets split that range, not the whole hash space, so a slice
 * of the hash space sorts as fast as the whole of it.
 */
uint64_t
sbf_hs_sort_unique_span(const uint64_t *src, uint64_t n, uint64_t *dst,
						uint32_t *count, uint64_t lo, int span_bits)
{
	uint64_t	i;
	uint64_t	k;

	if (n == 0)
		return 0;
	if (n <= SBF_HS_SMALL_SORT || n > UINT32_MAX)
	{
		if (dst != src)
			memcpy(dst, src, n * sizeof(uint64_t));
		if (n <= SBF_HS_SMALL_SORT)
			hs_insertion_sort(dst, n);
		else
			qsort(dst, n, sizeof(uint64_t), hs_cmp64);
	}
	else
	{
		int			bits = SBF_HS_MIN(hs_bucket_bits(n), span_bits);
		int			shift;
		uint32_t	nb;
		uint32_t	b;
		uint64_t	start = 0;

		shift = span_bits - bits;
		nb = (uint32_t) 1 << bits;
		memset(count, 0, (nb + 1) * sizeof(uint32_t));
		for (i = 0; i < n; i++)
			count[((src[i] - lo) >> shift) + 1]++;
		for (b = 1; b <= nb; b++)
			count[b] += count[b - 1];
		for (i = 0; i < n; i++)
			dst[count[(src[i] - lo) >> shift]++] = src[i];
		/* count[b] is now the end of bucket b */
		for (b = 0; b < nb; b++)
		{
			uint64_t	end = count[b];

			if (end - start <= SBF_HS_SMALL_SORT)
				hs_insertion_sort(dst + start, end - start);
			else
				qsort(dst + start, end - start, sizeof(uint64_t), hs_cmp64);
			start = end;
		}
	}
	for (i = 1, k = 1; i < n; i++)
	{
		dst[k] = dst[i];
		k += dst[i] != dst[k - 1];
	}
	return k;
}

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
		if (sbf_hs_count_size(s->nbuf) > 0)
		{
			/* as many counters as this sort uses: a small set stays cheap */
			count = a->alloc(sbf_hs_count_size(s->nbuf) * sizeof(uint32_t), a->ctx);
			if (count == NULL)
			{
				a->free(run, a->ctx);
				return SBF_E_NOMEM;
			}
		}
		r = sbf_hs_sort_unique(s->buf, s->nbuf, run, count);
		if (count != NULL)
			a->free(count, a->ctx);
		r = sbf_hs_drop_known(s->set, s->nset, run, r, a);
	}
	hs_iter_start(it, s->set, s->nset, run, r);
	*copy = run;
	return SBF_OK;
}
