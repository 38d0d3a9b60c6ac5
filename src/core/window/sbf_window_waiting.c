/*
 * sbf_window_waiting.c
 *	  Where a windowed filter's pairs are kept while it is written: the sorted
 *	  pairs' room (sbf_win_reserve_pairs) and the new pairs that live adds
 *	  leave waiting in a hashed side buffer (SbfWinLive, sbf_window_int.h),
 *	  with the one merge that makes them sorted pairs (sbf_win_settle, which
 *	  every reader of the pairs calls first).  The steps that decide which
 *	  hashes wait are sbf_window_live.c's.
 */
#include "sbf_window_int.h"
#include "sbf_hash_sort.h"

/* The first side buffer's room (doubled as it fills). */
#define LIVE_FIRST_CAP	64

/* Room for need pairs. */
SbfStatus
sbf_win_reserve_pairs(SbfWindow *w, size_t need)
{
	size_t		cap;
	uint64_t   *h;
	uint16_t   *a;

	if (need <= w->paircap)
		return SBF_OK;
	if (need > SBF_MAX_BYTES / SBF_WIN_PAIR_BYTES)
		return SBF_E_TOO_LARGE;
	cap = w->paircap * 2 > need ? w->paircap * 2 : need;
	if (cap < 16)
		cap = 16;
	h = w->a->alloc(cap * sizeof(uint64_t), w->a->ctx);
	a = w->a->alloc(cap * sizeof(uint16_t), w->a->ctx);
	if (h == NULL || a == NULL)
	{
		sbf_free(w->a, h);
		sbf_free(w->a, a);
		return SBF_E_NOMEM;
	}
	if (w->npairs > 0)
	{
		memcpy(h, w->hash, w->npairs * sizeof(uint64_t));
		memcpy(a, w->age, w->npairs * sizeof(uint16_t));
	}
	sbf_free(w->a, w->hash);
	sbf_free(w->a, w->age);
	w->hash = h;
	w->age = a;
	w->paircap = (uint32_t) cap;
	return SBF_OK;
}

/* Pairs of the newest bucket among the sorted pairs. */
uint32_t
sbf_win_newest_pairs(const SbfWindow *w)
{
	uint32_t	c = 0;
	uint32_t	i;

	for (i = 0; i < w->npairs; i++)
		c += w->age[i] == 0;
	return c;
}

/* Room for one more waiting pair: doubles the buffer and rebuilds the table. */
static SbfStatus
live_grow(const SbfAllocator *a, SbfWinLive *L)
{
	uint32_t	cap = L->cap == 0 ? LIVE_FIRST_CAP : L->cap * 2;
	uint64_t   *h;
	uint16_t   *age;
	uint32_t   *slot;
	uint32_t	i;

	if (L->cap >= (UINT32_C(1) << 30))
		return SBF_E_TOO_LARGE;
	h = a->alloc((size_t) cap * sizeof(uint64_t), a->ctx);
	age = a->alloc((size_t) cap * sizeof(uint16_t), a->ctx);
	slot = a->alloc((size_t) cap * 2 * sizeof(uint32_t), a->ctx);
	if (h == NULL || age == NULL || slot == NULL)
	{
		sbf_free(a, h);
		sbf_free(a, age);
		sbf_free(a, slot);
		return SBF_E_NOMEM;
	}
	if (L->n > 0)
	{
		memcpy(h, L->h, (size_t) L->n * sizeof(uint64_t));
		memcpy(age, L->age, (size_t) L->n * sizeof(uint16_t));
	}
	memset(slot, 0, (size_t) cap * 2 * sizeof(uint32_t));
	sbf_free(a, L->h);
	sbf_free(a, L->age);
	sbf_free(a, L->slot);
	L->h = h;
	L->age = age;
	L->slot = slot;
	L->cap = cap;
	L->mask = cap * 2 - 1;
	for (i = 0; i < L->n; i++)
		L->slot[sbf_win_live_find(L, L->h[i])] = i + 1;
	return SBF_OK;
}

/* Appends new pair (x, a) to the waiting pairs (x is no pair yet). */
SbfStatus
sbf_win_live_push(SbfWindow *w, uint64_t x, uint16_t a)
{
	SbfWinLive *L = w->live;
	SbfStatus	st;

	if (L->n == L->cap && (st = live_grow(w->a, L)) != SBF_OK)
		return st;
	if (L->n == 0)
		L->same_age = a;
	else if (L->same_age != a)
		L->same_age = -1;
	L->h[L->n] = x;
	L->age[L->n] = a;
	L->slot[sbf_win_live_find(L, x)] = ++L->n;
	return SBF_OK;
}

/*
 * Merges the waiting pairs (none of them a sorted pair) into the sorted
 * pairs, and empties the buffer.
 */
SbfStatus
sbf_win_live_merge(SbfWindow *w, SbfWinLive *L)
{
	const SbfAllocator *a = w->a;
	uint64_t   *run;
	uint32_t   *count = NULL;
	size_t		nc = sbf_hash_sort_count_size(L->n);
	uint64_t	i;
	uint64_t	j;
	uint64_t	k;
	SbfStatus	st;

	if (L->n == 0)
		return SBF_OK;
	if ((st = sbf_win_reserve_pairs(w, (size_t) w->npairs + L->n)) != SBF_OK)
		return st;
	run = a->alloc((size_t) L->n * sizeof(uint64_t), a->ctx);
	if (nc > 0)
		count = a->alloc(nc * sizeof(uint32_t), a->ctx);
	if (run == NULL || (nc > 0 && count == NULL))
	{
		sbf_free(a, run);
		sbf_free(a, count);
		return SBF_E_NOMEM;
	}
	/* distinct already: the sort keeps all L->n */
	(void) sbf_hash_sort_unique(L->h, L->n, run, count);
	/* from the back: each sorted pair moves once, to its final place */
	i = w->npairs;
	j = L->n;
	k = w->npairs + L->n;
	while (j > 0)
	{
		if (i > 0 && w->hash[i - 1] > run[j - 1])
		{
			w->hash[--k] = w->hash[--i];
			w->age[k] = w->age[i];
		}
		else
		{
			w->hash[--k] = run[--j];
			/* a batch's pairs share one age: no look-up (a random access each) */
			w->age[k] = L->same_age >= 0 ? (uint16_t) L->same_age :
				L->age[L->slot[sbf_win_live_find(L, run[j])] - 1];
		}
	}
	w->npairs += L->n;
	a->free(run, a->ctx);
	sbf_free(a, count);
	L->n = 0;
	memset(L->slot, 0, ((size_t) L->mask + 1) * sizeof(uint32_t));
	return SBF_OK;
}

SbfStatus
sbf_win_settle(SbfWindow *w)
{
	SbfWinLive *L = w->live;
	SbfStatus	st;

	if (L == NULL)
		return SBF_OK;
	/* a failed merge changed nothing: the pairs keep waiting */
	if ((st = sbf_win_live_merge(w, L)) == SBF_OK)
		sbf_win_live_free(w);
	return st;
}

void
sbf_win_live_free(SbfWindow *w)
{
	SbfWinLive *L = w->live;

	if (L == NULL)
		return;
	sbf_free(w->a, L->h);
	sbf_free(w->a, L->age);
	sbf_free(w->a, L->slot);
	sbf_free(w->a, L);
	w->live = NULL;
}

SbfStatus
sbf_win_live_start(SbfWindow *w)
{
	SbfWinLive *L;

	if (w->live != NULL)
		return SBF_OK;
	L = w->a->alloc(sizeof(SbfWinLive), w->a->ctx);
	if (L == NULL)
		return SBF_E_NOMEM;
	memset(L, 0, sizeof(*L));
	L->c = sbf_win_newest_pairs(w);
	w->live = L;
	return SBF_OK;
}

