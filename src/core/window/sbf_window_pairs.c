/*
 * sbf_window_pairs.c
 *	  The (hash, bucket) pairs that sbf_window_agg collects: sorted, each
 *	  hash kept once with the newest bucket it was seen in, and those older
 *	  than the window dropped (see sbf_window.h); and the window holding them.
 */
#include <stdlib.h>

#include "sbf_window_int.h"

static int
pair_qsort_cmp(const void *a, const void *b)
{
	const SbfWinPair *x = a;
	const SbfWinPair *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	/* newest bucket first, so the first of a hash is kept */
	if (x->bucket != y->bucket)
		return x->bucket > y->bucket ? -1 : 1;
	return 0;
}

/* Sorts, keeps each hash's newest bucket, drops what is older than the window. */
size_t
sbf_win_pairs_normalize(SbfWinPair *pairs, size_t n, int64_t newest, uint32_t buckets)
{
	size_t		i;
	size_t		out = 0;

	if (n > 1)
		qsort(pairs, n, sizeof(SbfWinPair), pair_qsort_cmp);
	for (i = 0; i < n; i++)
	{
		/* newest - bucket in unsigned arithmetic: no wrap near INT64_MIN */
		if (pairs[i].bucket > newest ||
			sbf_win_age_of(newest, pairs[i].bucket) >= buckets)
			continue;
		if (out > 0 && pairs[out - 1].hash == pairs[i].hash)
			continue;
		pairs[out++] = pairs[i];
	}
	return out;
}

/* A window holding normalized pairs only (each bucket within the window). */
SbfStatus
sbf_win_from_pairs(SbfWindow *w, const SbfWinParams *p, int64_t newest,
				   const SbfWinPair *pairs, size_t n, const SbfAllocator *a)
{
	size_t		cap = n == 0 ? 1 : n;
	size_t		i;

	sbf_win_init(w, p, a);
	if (!sbf_win_bucket_in_range(newest, p->width))
		return SBF_E_PARAM;
	if (n > SBF_MAX_BYTES / SBF_WIN_PAIR_BYTES)
		return SBF_E_TOO_LARGE;
	w->flags = SBF_WIN_FLAG_STARTED;
	w->newest = newest;
	w->hash = a->alloc(cap * sizeof(uint64_t), a->ctx);
	w->age = a->alloc(cap * sizeof(uint16_t), a->ctx);
	w->paircap = (uint32_t) n;
	if (w->hash == NULL || w->age == NULL)
	{
		sbf_win_free(w);
		return SBF_E_NOMEM;
	}
	for (i = 0; i < n; i++)
	{
		if (pairs[i].bucket > newest ||
			sbf_win_age_of(newest, pairs[i].bucket) >= p->buckets)
		{
			sbf_win_free(w);
			return SBF_E_WINDOW;	/* not normalized for this newest */
		}
		w->hash[i] = pairs[i].hash;
		w->age[i] = (uint16_t) sbf_win_age_of(newest, pairs[i].bucket);
	}
	w->npairs = (uint32_t) n;
	return SBF_OK;
}
