/*
 * sbf_window_batch.c
 *	  Many adds at one bucket of a windowed filter (sbf_win_add_many): the
 *	  same window as one sbf_win_add per hash, in linear time.
 *
 * Each hash takes sbf_win_add's step (sbf_win_live_step, sbf_window_live.c:
 * new pairs wait in the window's hashed side buffer and join the sorted
 * pairs in one merge).  What a batch adds is the question the step asks of
 * the segments:
 *
 * Whether a segment already holds a new hash (sbf_win_segments_hold: the
 * newest that does) is asked for HOLD_CHUNK hashes at a time, segment by
 * segment with its kind's batched mark: a bucket of 1M hashes has about 62
 * segments, and one segment's data stays in the cache for the whole chunk
 * where a hash-by-hash walk reloads every segment for every hash.  The
 * answers are the same, found in another order: the segments do not change
 * until a conversion, after which the rest of the chunk is asked again.
 */
#include "sbf_window_int.h"

/* Hashes whose holding segments are found together (find_holders; < 2^16). */
#define HOLD_CHUNK		512
/* Mixes of each (sbf_win_mix 0 .. HOLD_MIXES - 1) computed once for all segments */
#define HOLD_MIXES		4

/*
 * Marks the hashes of h[0..n) not hit yet that segment s, whose positions
 * are sbf_win_position's (lane MIX), holds: its kind's contains, with the
 * first HOLD_MIXES mixes of each hash taken from mix (the same in every
 * segment).  Probe by probe over the hashes still in the running (idx): a
 * hash leaves at its first clear bit, so a hash not held costs about two
 * probes, and no branch depends on a bit (half of them are clear: such a
 * branch would mispredict half the time).
 */
static void
mark_mixed(const SbfWinSeg *s, const uint64_t *h, size_t n,
		   uint64_t (*mix)[HOLD_MIXES], bool *hit)
{
	uint32_t	k = s->g.width;
	uint16_t	idx[HOLD_CHUNK];
	size_t		m = 0;
	size_t		i;
	uint32_t	q;

	for (i = 0; i < n; i++)
	{
		idx[m] = (uint16_t) i;
		m += !hit[i];
	}
	for (q = 0; q < k && m > 0; q++)
	{
		size_t		keep = 0;

		/* keep <= i: idx[keep] is never a place still to be read */
		if (q < HOLD_MIXES)
			for (i = 0; i < m; i++)
			{
				uint16_t	t = idx[i];

				idx[keep] = t;
				keep += sbf_bit_test(s->bits, sbf_win_mulhi(mix[t][q], s->g.size));
			}
		else
			for (i = 0; i < m; i++)
			{
				uint16_t	t = idx[i];

				idx[keep] = t;
				keep += sbf_bit_test(s->bits, sbf_win_position(h[t], q, s->g.size));
			}
		m = keep;
	}
	for (i = 0; i < m; i++)
		hit[idx[i]] = true;
}

/* The mixes a chunk's hashes share across segments (find_holders). */
typedef struct HoldMixes
{
	bool		bloom;			/* mix filled */
	bool		fused;			/* fx, fx2 filled */
	uint64_t	mix[HOLD_CHUNK][HOLD_MIXES];	/* sbf_win_mix 0 .. */
	uint64_t	fx[HOLD_CHUNK];	/* sbf_fused_mixes of seed number 0 */
	uint64_t	fx2[HOLD_CHUNK];
} HoldMixes;

/*
 * Marks the hashes of h[0..n) not hit yet that segment s holds, by its
 * kind's contains or mark, with the mixes that every segment shares
 * computed once: windowed bloom positions (lane MIX) and fused segments
 * built with seed number 0 (nearly all) take theirs from x.
 */
static void
mark_segment(const SbfWinSeg *s, const uint64_t *h, size_t n, HoldMixes *x,
			 bool *hit)
{
	size_t		i;
	uint32_t	q;

	if (s->ops->win_lane == SBF_WIN_LANE_MIX)
	{
		for (i = 0; !x->bloom && i < n; i++)
			for (q = 0; q < HOLD_MIXES; q++)
				x->mix[i][q] = sbf_win_mix(h[i], q);
		x->bloom = true;
		mark_mixed(s, h, n, x->mix, hit);
	}
	else if (s->ops->win_lane == SBF_WIN_LANE_FUSE && s->g.attempt == 0)
	{
		for (i = 0; !x->fused && i < n; i++)
			sbf_fused_mixes(0, h[i], &x->fx[i], &x->fx2[i]);
		x->fused = true;
		sbf_fused_mark_mixed(&s->g, s->bits, s->bytes, x->fx, x->fx2, n, hit);
	}
	else
		sbf_kind_mark(&s->g, s->bits, h, n, hit);
}

/*
 * For each of h[0..n) (n <= HOLD_CHUNK), the segment sbf_win_segments_hold
 * would find: the first of w->segs that holds it, the newest, since the
 * segments are kept in age order (sbf_win_sort_segments).  NULL where none
 * does.  False, and nothing found, if they are not in age order.
 */
static bool
find_holders(SbfWindow *w, const uint64_t *h, size_t n, SbfWinSeg **holder)
{
	bool		hit[HOLD_CHUNK];
	HoldMixes	x;
	size_t		found = 0;
	size_t		i;
	uint32_t	j;

	for (j = 1; j < w->nsegs; j++)
		if (w->segs[j].age < w->segs[j - 1].age)
			return false;
	memset(hit, 0, n * sizeof(bool));
	x.bloom = x.fused = false;
	for (i = 0; i < n; i++)
		holder[i] = NULL;
	for (j = 0; j < w->nsegs && found < n; j++)
	{
		SbfWinSeg  *s = &w->segs[j];

		mark_segment(s, h, n, &x, hit);
		for (i = 0; i < n; i++)
			if (hit[i] && holder[i] == NULL)
			{
				holder[i] = s;
				found++;
			}
	}
	return true;
}

/* The loop of sbf_win_add_many at age a (the window slid, w->live started). */
static SbfStatus
add_all(SbfWindow *w, uint16_t a, const uint64_t *h, size_t n)
{
	SbfWinSeg  *holder[HOLD_CHUNK];
	size_t		base = 0;		/* holder[] answers h[base .. base + have) */
	size_t		have = 0;
	bool		batched = false;
	size_t		i;
	SbfStatus	st;

	for (i = 0; i < n; i++)
	{
		bool		tried;

		if ((i & (SBF_WORK_STRIDE - 1)) == SBF_WORK_STRIDE - 1)
			sbf_check_interrupt(w->a);
		if (i >= base + have)
		{
			base = i;
			have = n - i < HOLD_CHUNK ? n - i : HOLD_CHUNK;
			batched = find_holders(w, h + base, have, holder);
		}
		st = sbf_win_live_step(w, h[i], a, batched ? &holder[i - base] : NULL, &tried);
		if (st != SBF_OK)
			return st;
		/* the segments may have changed: ask again from the next hash */
		if (tried)
		{
			base = i + 1;
			have = 0;
		}
	}
	return SBF_OK;
}

SbfStatus
sbf_win_add_many(SbfWindow *w, int64_t b, const uint64_t *h, size_t n)
{
	SbfStatus	st;

	if (n == 0)
		return SBF_OK;
	if (n == 1)
		return sbf_win_add(w, b, h[0]);
	if ((st = sbf_win_slide(w, b)) != SBF_OK)
		return st;
	/* b <= newest now, and later slides to b change nothing */
	if (sbf_win_age_of(w->newest, b) >= w->p.buckets)
		return SBF_OK;			/* older than the window: nothing changes */
	if ((st = sbf_win_live_start(w)) != SBF_OK)
		return st;
	return add_all(w, (uint16_t) sbf_win_age_of(w->newest, b), h, n);
}
