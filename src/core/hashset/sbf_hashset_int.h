/*
 * sbf_hashset_int.h
 *	  Internals shared by the files of the sorted hash set (sbf_hashset.h):
 *	  sbf_hashset.c (the set), sbf_hashset_sort.c (sorting and merging runs
 *	  of hashes), sbf_hashset_merge.c (merging an encoded set into a set)
 *	  and sbf_hashset_codec.c (the bytes).  Not for the glue.
 */
#ifndef SBF_HASHSET_INT_H
#define SBF_HASHSET_INT_H

#include "sbf_hash_sort.h"
#include "sbf_hashset.h"
#include "sbf_internal.h"
#include "sbf_plain.h"

/* Runs of at most this many hashes are sorted by insertion. */
#define SBF_HS_SMALL_SORT		SBF_HASH_SORT_SMALL

/* Hashes handed to sbf_add_hashes at a time (an interrupt check between). */
#define SBF_HS_ADD_CHUNK		65536

#define SBF_HS_MIN(a, b)		((a) < (b) ? (a) : (b))
#define SBF_HS_MAX(a, b)		((a) > (b) ? (a) : (b))

/*
 * True once every SBF_WORK_STRIDE steps of a loop counter: where a loop
 * whose length an input controls checks for interrupts.
 */
#define SBF_HS_STRIDE_DUE(i)	(((i) & (SBF_WORK_STRIDE - 1)) == SBF_WORK_STRIDE - 1)

/* The hashes of a set in ascending order: two sorted runs with no common hash. */
typedef struct SbfHsIter
{
	const uint64_t *a;
	uint64_t	na;
	uint64_t	i;
	const uint64_t *b;
	uint64_t	nb;
	uint64_t	j;
} SbfHsIter;

/* Starts an iterator over the union of two sorted runs with no common hash. */
static inline void
hs_iter_start(SbfHsIter *it, const uint64_t *a, uint64_t na,
			  const uint64_t *b, uint64_t nb)
{
	it->a = a;
	it->na = na;
	it->i = 0;
	it->b = b;
	it->nb = nb;
	it->j = 0;
}

/* The next hash in ascending order; false at the end. */
static inline bool
hs_iter_next(SbfHsIter *it, uint64_t *h)
{
	if (it->i < it->na && (it->j >= it->nb || it->a[it->i] < it->b[it->j]))
	{
		*h = it->a[it->i++];
		return true;
	}
	if (it->j < it->nb)
	{
		*h = it->b[it->j++];
		return true;
	}
	return false;
}

/* ---- sbf_hashset_sort.c ---- */

/*
 * Removes from the sorted, distinct run[0..r) the hashes that the sorted
 * set[0..nset) has; returns how many remain.  Checks a's interrupt.
 */
extern uint64_t sbf_hs_drop_known(const uint64_t *set, uint64_t nset, uint64_t *run,
								  uint64_t r, const SbfAllocator *a);

/*
 * An iterator over all hashes of a non-streaming set without changing it;
 * *copy is the sorted copy of its buffer to free (or NULL).
 */
extern SbfStatus sbf_hs_iter_of(const SbfHashSet *s, const SbfAllocator *a,
								SbfHsIter *it, uint64_t **copy);

/* ---- sbf_hashset.c ---- */

/* Frees the array and buffer; the set is left empty, with no buffer. */
extern void sbf_hs_release(SbfHashSet *s);

/* Makes a set stream into f (it takes f); frees its array and buffer. */
extern void sbf_hs_stream_into(SbfHashSet *s, const SbfFilter *f);

/* Gives a set whose buffer is empty a buffer sized for its array. */
extern SbfStatus sbf_hs_size_buffer(SbfHashSet *s);

/* Adds the iterator's hashes to a filter in chunks (ascending order). */
extern SbfStatus sbf_hs_filter_add_all(SbfFilter *f, SbfHsIter *it,
									   const SbfAllocator *a,
									   void (*interrupt) (void));

/* ---- sbf_hashset_codec.c: reading a body hash by hash ---- */

/* A Golomb-Rice reader over the body of a parsed hash set. */
typedef struct SbfHsReader
{
	const uint8_t *body;
	size_t		len;
	uint64_t	pos;			/* next bit */
	uint64_t	prev;			/* last hash read */
	uint64_t	i;				/* hashes read */
	uint64_t	count;			/* hashes in the body */
	int			k;
	const SbfAllocator *a;		/* interrupt checks in a long gap, or NULL */
} SbfHsReader;

/*
 * Starts a reader over the body of a parsed (sbf_hs_parse) hash set, with
 * no interrupt checks (set r->a for them).
 */
extern void sbf_hs_reader_start(SbfHsReader *r, const SbfHsView *v);

/*
 * The next hash (r->i < r->count), checked as the validator checks it: a
 * truncated body, a repeat or a gap past 2^64 - 1 is an error.
 */
extern SbfHsError sbf_hs_reader_next(SbfHsReader *r, uint64_t *h);

/* After the last hash: only zero padding of the last byte may be left. */
extern SbfHsError sbf_hs_reader_end(const SbfHsReader *r);

#endif							/* SBF_HASHSET_INT_H */
