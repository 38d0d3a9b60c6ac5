/*
 * sbf_hash_sort.h
 *	  Sorting runs of element hashes, dropping repeats (sbf_hash_sort.c).
 */
#ifndef SBF_HASH_SORT_H
#define SBF_HASH_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Runs of at most this many hashes are sorted by insertion, in place. */
#define SBF_HASH_SORT_SMALL		32

/* Counters sbf_hash_sort_unique(_span) needs for n hashes (0: none). */
extern size_t sbf_hash_sort_count_size(uint64_t n);

/*
 * Sorts src[0..n) into dst (n entries; dst may be src only when n <=
 * SBF_HASH_SORT_SMALL) and drops repeats; returns the number of distinct
 * hashes.  count has room for sbf_hash_sort_count_size(n) counters.
 */
extern uint64_t sbf_hash_sort_unique(const uint64_t *src, uint64_t n,
									 uint64_t *dst, uint32_t *count);

/*
 * The same for hashes that all lie in [lo, lo + 2^span_bits) (0 <= span_bits
 * <= 64): the buckets split that range, not the whole hash space.
 */
extern uint64_t sbf_hash_sort_unique_span(const uint64_t *src, uint64_t n,
										  uint64_t *dst, uint32_t *count,
										  uint64_t lo, int span_bits);

/* Pieces sbf_hash_merge_unique merges (more: sort them). */
#define SBF_HASH_MERGE_MAX_K	3

/*
 * Merges k <= SBF_HASH_MERGE_MAX_K ascending pieces of src (piece i ends at
 * ends[i], the next starts there) into dst, dropping repeats; returns the
 * count.  The result is sbf_hash_sort_unique's for the whole of them, at a
 * third of its cost or less.  tmp: room for ends[k - 1] hashes; neither dst
 * nor tmp overlaps src.
 */
extern uint64_t sbf_hash_merge_unique(const uint64_t *src, const uint64_t *ends,
									  int k, uint64_t *dst, uint64_t *tmp);

/* Sorts h[0..n) in place, ascending, keeping repeats (a multiset's order). */
extern void sbf_hash_sort_all(uint64_t *h, size_t n);

#endif							/* SBF_HASH_SORT_H */
