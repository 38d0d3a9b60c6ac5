/*
 * sbf_window_live.c
 *	  Live adds to a windowed filter (sbf_win_add, and each hash of
 *	  sbf_win_add_many): the steps that decide the bytes, in amortised
 *	  constant time per hash at any size of the window.
 *
 * A hash that no pair and no segment of its bucket or a newer one holds
 * becomes a new pair.  The pairs are kept sorted by hash, so inserting each
 * new one in place moves every pair after it: quadratic once a bucket has
 * spent its budget (after about 62 segments of SBF_WIN_OPEN_MAX hashes every
 * further hash stays a pair).  Here a new pair waits instead in a hashed side
 * buffer that lives with the window (SbfWinLive), and the waiting pairs join
 * the sorted ones in one merge when something reads the pairs: the newest
 * bucket's conversion into a segment, a slide, a union, a compaction, an
 * encoding (sbf_win_settle; the buffer and the merge are
 * sbf_window_waiting.c's).  The count of newest-bucket pairs that decides
 * when a conversion is tried is kept up to date rather than recounted, and a
 * try that cannot convert (the bucket's budget is spent: convert_age gives
 * up before reading the pairs) does not merge.  Every step that decides the
 * bytes (which hashes become pairs, with which age, segment counts, when a
 * conversion is tried and with which pairs) happens in the order one sorted
 * insert per hash did it (unit test_window_live: the bytes recorded before).
 */
#include "sbf_window_int.h"

/* Single adds to a window that insert in place before the side buffer starts */
#define LIVE_DIRECT_ADDS	64

/*
 * A conversion of the newest bucket after a new pair of age 0, when one is
 * due (SBF_WIN_OPEN_MAX pairs of age 0, and not before w->open_retry pairs
 * in all); the waiting pairs are merged first when the try would read them.
 * *tried tells whether a conversion was tried (the segments may have
 * changed).
 */
static SbfStatus
live_close_open(SbfWindow *w, SbfWinLive *L, bool *tried)
{
	uint32_t	total = w->npairs + L->n;
	bool		done;
	SbfStatus	st;

	if (total < SBF_WIN_OPEN_MAX || total < w->open_retry || L->c < SBF_WIN_OPEN_MAX)
		return SBF_OK;
	*tried = true;
	if (!sbf_win_open_reads_pairs(w))
		return sbf_win_close_open(w, L->c, total, NULL);
	if ((st = sbf_win_live_merge(w, L)) != SBF_OK)
		return st;
	st = sbf_win_close_open(w, L->c, total, &done);
	if (st == SBF_OK && done)
		L->c = sbf_win_newest_pairs(w);
	return st;
}

/*
 * One hash x at age a (below B, the window slid already; w->live started):
 * a pair that holds it already takes the smaller age; otherwise, unless a
 * segment of age <= a probably holds it (holder: the newest segment that
 * does, when known; NULL to look), it becomes a new pair.  *tried as in
 * live_close_open.
 */
SbfStatus
sbf_win_live_step(SbfWindow *w, uint64_t x, uint16_t a, SbfWinSeg *const *holder,
				  bool *tried)
{
	SbfWinLive *L = w->live;
	uint32_t	pos = sbf_win_pair_search(w, x);
	uint16_t   *age = NULL;
	SbfStatus	st;

	*tried = false;
	if (pos < w->npairs && w->hash[pos] == x)
		age = &w->age[pos];
	else if (L->n > 0)
	{
		uint32_t	s = L->slot[sbf_win_live_find(L, x)];

		if (s != 0)
		{
			age = &L->age[s - 1];
			if (a < *age)
				L->same_age = -1;	/* a waiting pair's age lowered */
		}
	}
	if (age != NULL)
	{
		if (a < *age)
		{
			L->c += a == 0;
			*age = a;
		}
		return SBF_OK;
	}
	if (holder != NULL ? sbf_win_holder_holds(*holder, a) :
		sbf_win_segments_hold(w, x, a))
		return SBF_OK;
	if ((size_t) w->npairs + L->n + 1 > SBF_MAX_BYTES / SBF_WIN_PAIR_BYTES)
		return SBF_E_TOO_LARGE;
	if ((st = sbf_win_live_push(w, x, a)) != SBF_OK)
		return st;
	if (a != 0)
		return SBF_OK;
	L->c++;
	return live_close_open(w, L, tried);
}

/*
 * One hash x at age a inserted into the sorted pairs in place, as 1.3 did
 * every add: the pairs after it move, and a conversion is tried by counting
 * the newest bucket's pairs.  For the first few single adds to a window
 * (LIVE_DIRECT_ADDS): one add to a stored value (sbf_add(window, element,
 * at)) costs less this way than starting and merging the side buffer.  The
 * same steps as sbf_win_live_step's, so the same bytes.
 */
static SbfStatus
direct_step(SbfWindow *w, uint64_t x, uint16_t a)
{
	uint32_t	pos = sbf_win_pair_search(w, x);
	uint32_t	c;
	SbfStatus	st;

	if (pos < w->npairs && w->hash[pos] == x)
	{
		if (a < w->age[pos])
			w->age[pos] = a;
		return SBF_OK;
	}
	if (sbf_win_segments_hold(w, x, a))
		return SBF_OK;
	if ((st = sbf_win_reserve_pairs(w, (size_t) w->npairs + 1)) != SBF_OK)
		return st;
	memmove(w->hash + pos + 1, w->hash + pos, (w->npairs - pos) * sizeof(uint64_t));
	memmove(w->age + pos + 1, w->age + pos, (w->npairs - pos) * sizeof(uint16_t));
	w->hash[pos] = x;
	w->age[pos] = a;
	w->npairs++;
	if (a != 0 || w->npairs < SBF_WIN_OPEN_MAX || w->npairs < w->open_retry)
		return SBF_OK;
	c = sbf_win_newest_pairs(w);
	return c < SBF_WIN_OPEN_MAX ? SBF_OK : sbf_win_close_open(w, c, w->npairs, NULL);
}

/* Adds hash h at bucket b. */
SbfStatus
sbf_win_add(SbfWindow *w, int64_t b, uint64_t h)
{
	uint16_t	a;
	bool		tried;
	SbfStatus	st;

	if ((st = sbf_win_slide(w, b)) != SBF_OK)
		return st;
	/* b <= newest now; the age in unsigned arithmetic cannot wrap */
	if (sbf_win_age_of(w->newest, b) >= w->p.buckets)
		return SBF_OK;			/* older than the window: nothing changes */
	a = (uint16_t) sbf_win_age_of(w->newest, b);
	if (w->live == NULL && w->direct_adds < LIVE_DIRECT_ADDS)
	{
		w->direct_adds++;
		return direct_step(w, h, a);
	}
	if ((st = sbf_win_live_start(w)) != SBF_OK)
		return st;
	return sbf_win_live_step(w, h, a, NULL, &tried);
}
