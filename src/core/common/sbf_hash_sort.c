/*
 * sbf_hash_sort.c
 *	  Sorting a run of element hashes and dropping repeats: a bucket sort
 *	  by the top bits, which suits hashes because they are close to
 *	  uniform.  Used by the hash set's pending buffer (core/hashset), the
 *	  window's batched adds (core/window) and the glue's spilled runs.
 */
#include <stdlib.h>
#include <string.h>

#include "sbf_hash_sort.h"
#include "sbf_internal.h"

#define Min64(a, b)		((a) < (b) ? (a) : (b))
#define Max64(a, b)		((a) > (b) ? (a) : (b))

/* Sorts a[0..n) by insertion (small n). */
static inline void
insertion_sort(uint64_t *a, uint64_t n)
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
cmp_u64(const void *pa, const void *pb)
{
	uint64_t	a = *(const uint64_t *) pa;
	uint64_t	b = *(const uint64_t *) pb;

	return (a > b) - (a < b);
}

/* Bits of the bucket index sbf_hash_sort_unique uses for n hashes: about n/4 buckets. */
static inline int
bucket_bits(uint64_t n)
{
	int			bits = sbf_log2_64(n) - 2;

	return Min64(Max64(bits, 1), 16);
}

/* Counters sbf_hash_sort_unique needs for n hashes (0: none). */
size_t
sbf_hash_sort_count_size(uint64_t n)
{
	if (n <= SBF_HASH_SORT_SMALL || n > UINT32_MAX)
		return 0;
	return ((size_t) 1 << bucket_bits(n)) + 1;
}

/*
 * Sorts src[0..n) into dst (n entries; dst may be src only when n <=
 * SBF_HASH_SORT_SMALL) and drops repeats; returns the number of distinct
 * hashes.  Hashes are close to uniform, so one pass that distributes them by
 * their top bits into about n/4 buckets leaves buckets of a few hashes,
 * sorted by insertion; a bucket that is large anyway (repeats, or inputs
 * built to collide) is sorted by qsort, so the worst case stays n log n.
 * count has room for sbf_hash_sort_count_size(n) counters.
 */
uint64_t
sbf_hash_sort_unique(const uint64_t *src, uint64_t n, uint64_t *dst, uint32_t *count)
{
	return sbf_hash_sort_unique_span(src, n, dst, count, 0, 64);
}

/*
 * The same for hashes that all lie in [lo, lo + 2^span_bits) (0 <= span_bits
 * <= 64): the buckets split that range, not the whole hash space, so a slice
 * of the hash space sorts as fast as the whole of it.
 */
uint64_t
sbf_hash_sort_unique_span(const uint64_t *src, uint64_t n, uint64_t *dst,
						uint32_t *count, uint64_t lo, int span_bits)
{
	uint64_t	i;
	uint64_t	k;

	if (n == 0)
		return 0;
	if (n <= SBF_HASH_SORT_SMALL || n > UINT32_MAX)
	{
		if (dst != src)
			memcpy(dst, src, n * sizeof(uint64_t));
		if (n <= SBF_HASH_SORT_SMALL)
			insertion_sort(dst, n);
		else
			qsort(dst, n, sizeof(uint64_t), cmp_u64);
	}
	else
	{
		int			bits = Min64(bucket_bits(n), span_bits);
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

			if (end - start <= SBF_HASH_SORT_SMALL)
				insertion_sort(dst + start, end - start);
			else
				qsort(dst + start, end - start, sizeof(uint64_t), cmp_u64);
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
 * Merges ascending a[0..na) and b[0..nb) into dst, dropping repeats (within
 * either or across both); returns the count.  The loop's choice is a
 * comparison turned into increments, not a branch: which input holds the
 * smaller of two uniform hashes is a coin toss a branch would mispredict.
 */
static uint64_t
merge_two(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb,
		  uint64_t *dst)
{
	uint64_t	i = 0;
	uint64_t	j = 0;
	uint64_t	n = 0;

	while (i < na && j < nb)
	{
		uint64_t	x = a[i];
		uint64_t	y = b[j];
		uint64_t	m = x < y ? x : y;

		i += x <= y;
		j += y <= x;
		dst[n] = m;
		n += n == 0 || dst[n - 1] != m;
	}
	for (; i < na; i++)
	{
		dst[n] = a[i];
		n += n == 0 || dst[n - 1] != a[i];
	}
	for (; j < nb; j++)
	{
		dst[n] = b[j];
		n += n == 0 || dst[n - 1] != b[j];
	}
	return n;
}

/*
 * Merges k <= SBF_HASH_MERGE_MAX_K ascending pieces of src, piece i being
 * src[ends[i - 1] .. ends[i]) (ends[-1] = 0), into dst, dropping repeats;
 * returns the count, and dst is what sbf_hash_sort_unique would give for
 * src[0..ends[k - 1]).  tmp has room for ends[k - 1] hashes (k = 3 uses
 * it); dst and tmp do not overlap src.
 */
uint64_t
sbf_hash_merge_unique(const uint64_t *src, const uint64_t *ends, int k,
					  uint64_t *dst, uint64_t *tmp)
{
	uint64_t	n;

	switch (k)
	{
		case 0:
			return 0;
		case 1:
			return merge_two(src, ends[0], NULL, 0, dst);
		case 2:
			return merge_two(src, ends[0], src + ends[0], ends[1] - ends[0], dst);
		default:
			n = merge_two(src, ends[0], src + ends[0], ends[1] - ends[0], tmp);
			return merge_two(tmp, n, src + ends[1], ends[2] - ends[1], dst);
	}
}

void
sbf_hash_sort_all(uint64_t *h, size_t n)
{
	qsort(h, n, sizeof(uint64_t), cmp_u64);
}
