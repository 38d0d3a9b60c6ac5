/*
 * sbf_window_batch.c
 *	  Many adds at one bucket of a windowed filter (sbf_win_add_many): the
 *	  same window as one sbf_win_add per hash, in linear time.
 *
 * sbf_win_add keeps the pairs sorted by inserting each new one, which moves
 * every pair after it: fine for a few adds, quadratic for a bucket that
 * grows past what its segments take (once a bucket has spent its budget,
 * after about 62 segments of SBF_WIN_OPEN_MAX hashes, every further hash
 * stays a pair).  Here the new pairs of a batch wait in a side buffer with a
 * hash table for the "is it already a pair" test, and join the sorted pairs
 * in one merge: at the end, or when the newest bucket is converted into a
 * segment (which reads its pairs).  The count of newest-bucket pairs that
 * sbf_win_add recounts at every try is kept up to date instead, and a try
 * that cannot convert (the bucket's budget is spent: convert_age gives up
 * before reading the pairs) does not merge.  Every step that decides the
 * bytes (which hashes become pairs, segment counts, when a conversion is
 * tried and with which pairs) happens in the order sbf_win_add does it.
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
#include "sbf_hash_sort.h"

/* Hashes whose holding segments are found together (find_holders; < 2^16). */
#define HOLD_CHUNK		512
/* Mixes of each (sbf_win_mix 0 .. HOLD_MIXES - 1) computed once for all segments */
#define HOLD_MIXES		4

/* The batch's new pairs (all of the batch's age) and their hash table. */
typedef struct Pending
{
	uint64_t   *h;
	uint32_t	n;
	uint32_t	cap;
	uint32_t   *slot;			/* index + 1 into h; 0: empty */
	uint32_t	mask;			/* table size - 1 (size >= 2 cap) */
	const SbfAllocator *a;
} Pending;

static void
pend_free(Pending *p)
{
	sbf_free(p->a, p->h);
	sbf_free(p->a, p->slot);
	p->h = NULL;
	p->slot = NULL;
	p->n = p->cap = 0;
	p->mask = 0;
}

/* The table slot where h is or would go. */
static inline uint32_t
pend_find(const Pending *p, uint64_t h)
{
	uint32_t	i = (uint32_t) sbf_mix64(h) & p->mask;

	while (p->slot[i] != 0 && p->h[p->slot[i] - 1] != h)
		i = (i + 1) & p->mask;
	return i;
}

static inline bool
pend_has(const Pending *p, uint64_t h)
{
	return p->n > 0 && p->slot[pend_find(p, h)] != 0;
}

/* Room for one more hash: doubles the buffer and rebuilds the table. */
static SbfStatus
pend_grow(Pending *p)
{
	uint32_t	cap = p->cap == 0 ? 1024 : p->cap * 2;
	uint64_t   *h;
	uint32_t   *slot;
	uint32_t	i;

	if (p->cap >= (UINT32_C(1) << 30))
		return SBF_E_TOO_LARGE;
	h = p->a->alloc((size_t) cap * sizeof(uint64_t), p->a->ctx);
	slot = p->a->alloc((size_t) cap * 2 * sizeof(uint32_t), p->a->ctx);
	if (h == NULL || slot == NULL)
	{
		sbf_free(p->a, h);
		sbf_free(p->a, slot);
		return SBF_E_NOMEM;
	}
	if (p->n > 0)
		memcpy(h, p->h, (size_t) p->n * sizeof(uint64_t));
	memset(slot, 0, (size_t) cap * 2 * sizeof(uint32_t));
	sbf_free(p->a, p->h);
	sbf_free(p->a, p->slot);
	p->h = h;
	p->slot = slot;
	p->cap = cap;
	p->mask = cap * 2 - 1;
	for (i = 0; i < p->n; i++)
		p->slot[pend_find(p, p->h[i])] = i + 1;
	return SBF_OK;
}

static SbfStatus
pend_add(Pending *p, uint64_t h)
{
	SbfStatus	st;

	if (p->n == p->cap && (st = pend_grow(p)) != SBF_OK)
		return st;
	p->h[p->n] = h;
	p->slot[pend_find(p, h)] = ++p->n;
	return SBF_OK;
}

/*
 * Merges the pending hashes (none of them a pair yet) into the sorted
 * pairs at age a, and empties the buffer.
 */
static SbfStatus
pend_settle(SbfWindow *w, Pending *p, uint16_t a)
{
	uint64_t   *run;
	uint32_t   *count = NULL;
	size_t		nc = sbf_hash_sort_count_size(p->n);
	uint64_t	i;
	uint64_t	j;
	uint64_t	k;
	SbfStatus	st;

	if (p->n == 0)
		return SBF_OK;
	if ((st = sbf_win_reserve_pairs(w, (size_t) w->npairs + p->n)) != SBF_OK)
		return st;
	run = p->a->alloc((size_t) p->n * sizeof(uint64_t), p->a->ctx);
	if (nc > 0)
		count = p->a->alloc(nc * sizeof(uint32_t), p->a->ctx);
	if (run == NULL || (nc > 0 && count == NULL))
	{
		sbf_free(p->a, run);
		sbf_free(p->a, count);
		return SBF_E_NOMEM;
	}
	(void) sbf_hash_sort_unique(p->h, p->n, run, count);
	/* from the back: each pair moves once, to its final place */
	i = w->npairs;
	j = p->n;
	k = w->npairs + p->n;
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
			w->age[k] = a;
		}
	}
	w->npairs += p->n;
	p->a->free(run, p->a->ctx);
	sbf_free(p->a, count);
	p->n = 0;
	memset(p->slot, 0, ((size_t) p->mask + 1) * sizeof(uint32_t));
	return SBF_OK;
}

/* Pairs of the newest bucket among the sorted pairs. */
static uint32_t
newest_pairs(const SbfWindow *w)
{
	uint32_t	c = 0;
	uint32_t	i;

	for (i = 0; i < w->npairs; i++)
		c += w->age[i] == 0;
	return c;
}

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

/*
 * sbf_win_add's maybe_close_open after a new newest-bucket pair: c pairs of
 * age 0 among total; the pending ones are merged first when the try would
 * read them.  *tried is set when a conversion was tried (the segments may
 * have changed).
 */
static SbfStatus
batch_close_open(SbfWindow *w, Pending *p, uint32_t *c, bool *tried)
{
	uint32_t	total = w->npairs + p->n;
	bool		done;
	SbfStatus	st;

	if (total < SBF_WIN_OPEN_MAX || total < w->open_retry || *c < SBF_WIN_OPEN_MAX)
		return SBF_OK;
	*tried = true;
	if (sbf_win_open_reads_pairs(w))
	{
		if ((st = pend_settle(w, p, 0)) != SBF_OK)
			return st;
		st = sbf_win_close_open(w, *c, total, &done);
		if (st == SBF_OK && done)
			*c = newest_pairs(w);
		return st;
	}
	return sbf_win_close_open(w, *c, total, NULL);
}

/* The loop of sbf_win_add_many at age a (the window slid already). */
static SbfStatus
add_all(SbfWindow *w, uint16_t a, const uint64_t *h, size_t n, Pending *p)
{
	uint32_t	c = a == 0 ? newest_pairs(w) : 0;
	SbfWinSeg  *holder[HOLD_CHUNK];
	size_t		base = 0;		/* holder[] answers h[base .. base + have) */
	size_t		have = 0;
	bool		batched = false;
	size_t		i;
	SbfStatus	st;

	for (i = 0; i < n; i++)
	{
		uint64_t	x = h[i];
		uint32_t	pos = sbf_win_pair_search(w, x);
		bool		tried = false;

		if ((i & (SBF_WORK_STRIDE - 1)) == SBF_WORK_STRIDE - 1)
			sbf_check_interrupt(w->a);
		if (i >= base + have)
		{
			base = i;
			have = n - i < HOLD_CHUNK ? n - i : HOLD_CHUNK;
			batched = find_holders(w, h + base, have, holder);
		}
		if (pos < w->npairs && w->hash[pos] == x)
		{
			if (a < w->age[pos])
			{
				c += a == 0;
				w->age[pos] = a;
			}
			continue;
		}
		/* a pending pair has age a already */
		if (pend_has(p, x))
			continue;
		if (batched ? sbf_win_holder_holds(holder[i - base], a) :
			sbf_win_segments_hold(w, x, a))
			continue;
		if ((size_t) w->npairs + p->n + 1 > SBF_MAX_BYTES / SBF_WIN_PAIR_BYTES)
			return SBF_E_TOO_LARGE;
		if ((st = pend_add(p, x)) != SBF_OK)
			return st;
		if (a == 0)
		{
			c++;
			if ((st = batch_close_open(w, p, &c, &tried)) != SBF_OK)
				return st;
			/* the segments may have changed: ask again from the next hash */
			if (tried)
			{
				base = i + 1;
				have = 0;
			}
		}
	}
	return pend_settle(w, p, a);
}

SbfStatus
sbf_win_add_many(SbfWindow *w, int64_t b, const uint64_t *h, size_t n)
{
	Pending		p;
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
	memset(&p, 0, sizeof(p));
	p.a = w->a;
	st = add_all(w, (uint16_t) sbf_win_age_of(w->newest, b), h, n, &p);
	pend_free(&p);
	return st;
}
