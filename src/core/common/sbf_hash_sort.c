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

/*
 * Sorts a[0..n) by insertion (small n, or runs of buckets in order).  The
 * largest hash so far is carried in a register, and a hash not below it
 * stays where it is, unwritten: comparing with a[i - 1] waited for the store
 * of the step before, which was nearly always that hash written back in place.
 */
static inline void
insertion_sort(uint64_t *a, uint64_t n)
{
	uint64_t	top;
	uint64_t	i;

	if (n == 0)
		return;
	top = a[0];
	for (i = 1; i < n; i++)
	{
		uint64_t	x = a[i];
		uint64_t	j = i;

		if (x >= top)
		{
			top = x;
			continue;
		}
		do
		{
			a[j] = a[j - 1];
			j--;
		} while (j > 0 && a[j - 1] > x);
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

/*
 * Bits of the bucket index for n hashes: about n final buckets, most of
 * them holding zero to two hashes (n/4 buckets measured 1.1-1.2 times as
 * long: longer insertions).
 */
static inline int
bucket_bits(uint64_t n)
{
	return Max64(sbf_log2_64(n), 1);
}

/*
 * Up to 2^ONE_PASS_BITS buckets the hashes are distributed in one pass (its
 * scatter's targets stay in the caches); more are split into two passes,
 * the first into at least 2^FIRST_MIN_BITS buckets, each then distributed
 * by the next bits from a copy in the caches.  One pass into 65,536 buckets
 * took 20 ns a hash at 1M hashes, a cache miss a hash; two take 13
 * (test/bench/hash_sort_ab.sh).
 */
#define ONE_PASS_BITS	10
#define FIRST_MIN_BITS	8

/* The bits of the first and second pass for B bucket bits (b2 = 0: one pass). */
static inline void
split_bits(int bits, int *b1, int *b2)
{
	if (bits <= ONE_PASS_BITS)
	{
		*b1 = bits;
		*b2 = 0;
		return;
	}
	*b1 = Max64(FIRST_MIN_BITS, (bits + 1) / 2);
	*b2 = bits - *b1;
}

/*
 * Hashes a first-pass bucket of n may hold to be distributed again: four
 * times the mean of n / 2^FIRST_MIN_BITS (a larger one, which uniform hashes
 * do not give, is sorted by qsort).
 */
static inline size_t
copy_room(uint64_t n)
{
	return (size_t) (n / 64 + 256);
}

/*
 * Counters (uint32_t) sbf_hash_sort_unique needs for n hashes (0: none):
 * both passes' counters, then room for the copy of a bucket (and one for
 * its alignment).  Never smaller for a larger n (a caller sizes them once
 * for the largest run).
 */
size_t
sbf_hash_sort_count_size(uint64_t n)
{
	int			b1;
	int			b2;

	if (n <= SBF_HASH_SORT_SMALL || n > UINT32_MAX)
		return 0;
	split_bits(bucket_bits(n), &b1, &b2);
	if (b2 == 0)
		return ((size_t) 1 << b1) + 1;
	/* (never fewer than the most one pass takes) */
	return Max64(((size_t) 1 << b1) + 1 + ((size_t) 1 << b2) + 1 + 1 + 2 * copy_room(n),
				 ((size_t) 1 << ONE_PASS_BITS) + 1);
}

/*
 * Sorts src[0..n) into dst (n entries; dst may be src only when n <=
 * SBF_HASH_SORT_SMALL) and drops repeats; returns the number of distinct
 * hashes.  Hashes are close to uniform, so distributing them by their top
 * bits into about n buckets (one pass, or two: see ONE_PASS_BITS) leaves
 * buckets of a few hashes, sorted by insertion; a bucket that is large
 * anyway (repeats, or inputs built to collide) is sorted by qsort, so the
 * worst case stays n log n.  count has room for sbf_hash_sort_count_size(n)
 * counters.
 */
uint64_t
sbf_hash_sort_unique(const uint64_t *src, uint64_t n, uint64_t *dst, uint32_t *count)
{
	return sbf_hash_sort_unique_span(src, n, dst, count, 0, 64);
}

/* Whether a[0..n) holds one value only (n >= 1). */
static inline bool
all_equal(const uint64_t *a, uint64_t n)
{
	uint64_t	diff = 0;
	uint64_t	i;

	for (i = 1; i < n; i++)
		diff |= a[i] ^ a[0];
	return diff == 0;
}

/*
 * Sorts a[0..n): by insertion when small, else by qsort, unless every hash
 * is the same (a bucket of one repeated element: nothing to sort).
 */
static inline void
sort_small(uint64_t *a, uint64_t n)
{
	if (n <= SBF_HASH_SORT_SMALL)
		insertion_sort(a, n);
	else if (!all_equal(a, n))
		qsort(a, n, sizeof(uint64_t), cmp_u64);
}

/*
 * Distributes src[0..n) into dst by bits [shift, shift + bits) of x - lo
 * (x - lo < 2^(shift + bits) for every hash), using count[0..2^bits]; then
 * count[b] is the end of bucket b.
 */
static void
distribute(const uint64_t *src, uint64_t n, uint64_t *dst, uint32_t *count,
		   uint64_t lo, int shift, int bits)
{
	uint64_t	mask = ((uint64_t) 1 << bits) - 1;
	uint32_t	nb = (uint32_t) 1 << bits;
	uint64_t	i;
	uint32_t	b;

	memset(count, 0, (nb + 1) * sizeof(uint32_t));
	for (i = 0; i < n; i++)
		count[(((src[i] - lo) >> shift) & mask) + 1]++;
	for (b = 1; b <= nb; b++)
		count[b] += count[b - 1];
	for (i = 0; i < n; i++)
		dst[count[((src[i] - lo) >> shift) & mask]++] = src[i];
}

/*
 * Sorts dst[0..n) whose buckets (count[b]: the end of bucket b of nb) are in
 * order: a bucket too large for insertion is sorted first (sort_small), then
 * one insertion pass moves each hash within its bucket only (no loop a
 * bucket: most buckets hold zero to two hashes).
 */
static void
sort_buckets(uint64_t *dst, uint64_t n, const uint32_t *count, uint32_t nb)
{
	uint64_t	start = 0;
	uint32_t	b;

	for (b = 0; b < nb; b++)
	{
		if (count[b] - start > SBF_HASH_SORT_SMALL)
			sort_small(dst + start, count[b] - start);
		start = count[b];
	}
	insertion_sort(dst, n);
}

/*
 * Drops the repeats of ascending a[0..n) (n >= 1) in place; returns how many
 * hashes are left.  The hash before a[i] is carried in a register: read
 * back from the last place written, each step waited for the store of the
 * step before (58% of this function's time at 10M hashes, perf).
 */
static inline uint64_t
drop_repeats(uint64_t *a, uint64_t n)
{
	uint64_t	prev = a[0];
	uint64_t	i;
	uint64_t	k;

	for (i = 1, k = 1; i < n; i++)
	{
		uint64_t	x = a[i];

		a[k] = x;
		k += x != prev;
		prev = x;
	}
	return k;
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
	if (n == 0)
		return 0;
	if (n <= SBF_HASH_SORT_SMALL || n > UINT32_MAX)
	{
		if (dst != src)
			memcpy(dst, src, n * sizeof(uint64_t));
		sort_small(dst, n);
	}
	else
	{
		int			b1;
		int			b2;

		split_bits(Min64(bucket_bits(n), span_bits), &b1, &b2);
		distribute(src, n, dst, count, lo, span_bits - b1, b1);
		if (b2 == 0)
			sort_buckets(dst, n, count, (uint32_t) 1 << b1);
		else
		{
			/* count[0..2^b1]: the first pass's ends; then c2; then the copy */
			uint32_t	nb1 = (uint32_t) 1 << b1;
			uint32_t   *c2 = count + nb1 + 1;
			uintptr_t	at = (uintptr_t) (c2 + ((size_t) 1 << b2) + 1);
			uint64_t   *copy = (uint64_t *) ((at + 7) & ~(uintptr_t) 7);
			size_t		room = copy_room(n);
			uint64_t	start = 0;
			uint32_t	b;

			for (b = 0; b < nb1; b++)
			{
				uint64_t	m = count[b] - start;

				if (m <= SBF_HASH_SORT_SMALL || m > room)
					sort_small(dst + start, m);
				else
				{
					memcpy(copy, dst + start, m * sizeof(uint64_t));
					distribute(copy, m, dst + start, c2, lo, span_bits - b1 - b2, b2);
					sort_buckets(dst + start, m, c2, (uint32_t) 1 << b2);
				}
				start = count[b];
			}
		}
	}
	return drop_repeats(dst, n);
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
	uint64_t	last = 0;		/* dst[n - 1] once n > 0, kept in a register */

	while (i < na && j < nb)
	{
		uint64_t	x = a[i];
		uint64_t	y = b[j];
		uint64_t	m = x < y ? x : y;

		i += x <= y;
		j += y <= x;
		dst[n] = m;
		n += (n == 0) | (m != last);
		last = m;
	}
	for (; i < na; i++)
	{
		dst[n] = a[i];
		n += (n == 0) | (a[i] != last);
		last = a[i];
	}
	for (; j < nb; j++)
	{
		dst[n] = b[j];
		n += (n == 0) | (b[j] != last);
		last = b[j];
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
