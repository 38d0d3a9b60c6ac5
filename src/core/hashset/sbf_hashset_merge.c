/*
 * sbf_hashset_merge.c
 *	  Merging an encoded sbf_hashset into a set (see sbf_hashset.h) while it
 *	  is decoded and checked, with no decoded copy of it: what loading a
 *	  value, sbf_hashset_union and every combine of a flat state do.
 *
 * The union of a set's array A (n0 hashes) and an encoded body B (n hashes)
 * is written into one array of cap = n0 + n entries (at most
 * SBF_HS_MAX_COUNT): A is moved to its end, then a forward merge writes the
 * union from its start.  Before each write k hashes are written and i of A
 * read, and k <= i + (hashes of B read) - 1 < i + n = the position of A's
 * next unread hash, so a write never reaches an unread hash of A.  When cap
 * had to be clamped to SBF_HS_MAX_COUNT, reaching A's next hash means the
 * union has more than cap hashes: SBF_E_TOO_LARGE, as for any merge past
 * the limit.  So the peak memory of a union of two sets is the result's
 * array (A's own array, grown in place where the allocator can), where
 * decoding B into an array, copying it and merging it into a new array had
 * four arrays alive at once.
 *
 * A set with a streaming threshold that the union may pass first counts the
 * union in a pass without writing, so that it switches to streaming into a
 * filter right-sized for exactly that count, as sbf_hs_union_run would.
 *
 * On a reading error or SBF_E_TOO_LARGE the set holds its own hashes and
 * possibly some of B's (a valid set); callers raise an error and drop it.
 * Every loop checks the set's allocator for interrupts every
 * SBF_WORK_STRIDE hashes.
 */
#include "sbf_hashset_int.h"

/* The union of a sorted array and an encoded body, hash by hash. */
typedef struct HsMergeWalk
{
	const uint64_t *a;
	uint64_t	na;
	uint64_t	i;				/* hashes of a read */
	SbfHsReader r;
	bool		have;			/* y is B's next hash, not yet returned */
	uint64_t	y;
	SbfHsError	e;				/* the reading error, if any */
} HsMergeWalk;

/*
 * Starts a walk over a[0..na) and the body of v; alloc's interrupt is
 * checked inside a long gap.
 */
static void
hs_mw_start(HsMergeWalk *w, const uint64_t *a, uint64_t na, const SbfHsView *v,
			const SbfAllocator *alloc)
{
	w->a = a;
	w->na = na;
	w->i = 0;
	sbf_hs_reader_start(&w->r, v);
	w->r.a = alloc;
	w->have = false;
	w->y = 0;
	w->e = SBF_HS_OK;
}

/*
 * The next hash of the union in ascending order; false at the end, or on a
 * reading error (w->e), which includes what is left after B's last hash.
 */
static inline bool
hs_mw_next(HsMergeWalk *w, uint64_t *h)
{
	if (!w->have && w->r.i < w->r.count)
	{
		w->e = sbf_hs_reader_next(&w->r, &w->y);
		if (w->e != SBF_HS_OK)
			return false;
		w->have = true;
	}
	if (w->i < w->na && (!w->have || w->a[w->i] <= w->y))
	{
		*h = w->a[w->i++];
		if (w->have && w->y == *h)
			w->have = false;
		return true;
	}
	if (w->have)
	{
		*h = w->y;
		w->have = false;
		return true;
	}
	w->e = sbf_hs_reader_end(&w->r);
	return false;
}

/* Adds the rest of a walk to filter f, in chunks, in ascending order. */
static SbfStatus
hs_mw_into_filter(HsMergeWalk *w, SbfFilter *f, const SbfAllocator *a)
{
	uint64_t	left = (w->na - w->i) + (w->r.count - w->r.i);
	size_t		cap = (size_t) SBF_HS_MAX(SBF_HS_MIN(left, SBF_HS_ADD_CHUNK), 1);
	uint64_t   *chunk = a->alloc(cap * sizeof(uint64_t), a->ctx);
	SbfStatus	status = SBF_OK;
	size_t		n = 0;
	bool		more;

	if (chunk == NULL)
		return SBF_E_NOMEM;
	do
	{
		more = hs_mw_next(w, &chunk[n]);
		n += more;
		if (n == cap || (!more && n > 0 && w->e == SBF_HS_OK))
		{
			sbf_check_interrupt(a);
			status = sbf_add_hashes(f, chunk, n);
			n = 0;
		}
	} while (more && status == SBF_OK);
	a->free(chunk, a->ctx);
	return status;
}

/* The number of distinct hashes in the union of s's array and v's body. */
static SbfStatus
hs_union_count(const SbfHashSet *s, const SbfHsView *v, uint64_t *u,
			   SbfHsError *e)
{
	HsMergeWalk w;
	uint64_t	h;

	*u = 0;
	hs_mw_start(&w, s->set, s->nset, v, &s->alloc);
	while (hs_mw_next(&w, &h))
	{
		(*u)++;
		if (SBF_HS_STRIDE_DUE(*u))
			sbf_check_interrupt(&s->alloc);
	}
	*e = w.e;
	return SBF_OK;
}

/*
 * Switches a set to streaming into a filter right-sized for the u hashes of
 * the union of its array and v's body (hs_start_stream's filter).
 */
static SbfStatus
hs_merge_to_stream(SbfHashSet *s, const SbfHsView *v, uint64_t u, SbfHsError *e)
{
	HsMergeWalk w;
	SbfFilter	f;
	SbfStatus	status;

	status = sbf_create_sized(&f, &s->params, SBF_HS_MAX(u, 1), sizeof(int32_t),
							  &s->alloc);
	if (status != SBF_OK)
		return status;
	hs_mw_start(&w, s->set, s->nset, v, &s->alloc);
	status = hs_mw_into_filter(&w, &f, &s->alloc);
	*e = w.e;
	if (status != SBF_OK || *e != SBF_HS_OK)
	{
		sbf_filter_free(&f);
		return status;
	}
	sbf_hs_stream_into(s, &f);
	return SBF_OK;
}

/*
 * Moves s->set[0..n0) to s->set[off..off + n0), from the back, a stride at a
 * time (off > 0: the ranges may overlap).
 */
static void
hs_move_up(SbfHashSet *s, uint64_t n0, uint64_t off)
{
	uint64_t	rest = n0;

	while (rest > 0 && off > 0)
	{
		uint64_t	c = SBF_HS_MIN(rest, SBF_WORK_STRIDE);

		memmove(s->set + off + rest - c, s->set + rest - c, c * sizeof(uint64_t));
		rest -= c;
		sbf_check_interrupt(&s->alloc);
	}
}

/* Merges v's body into s's array (see the file header). */
static SbfStatus
hs_merge_array(SbfHashSet *s, const SbfHsView *v, SbfHsError *e)
{
	const SbfAllocator *a = &s->alloc;
	uint64_t	n0 = s->nset;
	uint64_t	cap = SBF_HS_MIN(n0 + v->count, SBF_HS_MAX_COUNT);
	uint64_t	off;
	uint64_t	k = 0;
	uint64_t	h;
	HsMergeWalk w;
	SbfStatus	status = SBF_OK;

	if (cap > s->setcap)
	{
		uint64_t   *grown = s->set == NULL ?
			a->alloc(cap * sizeof(uint64_t), a->ctx) :
			a->realloc(s->set, cap * sizeof(uint64_t), a->ctx);

		if (grown == NULL)
			return SBF_E_NOMEM;
		s->set = grown;
		s->setcap = cap;
	}
	off = cap - n0;
	hs_move_up(s, n0, off);
	hs_mw_start(&w, s->set + off, n0, v, a);
	while (hs_mw_next(&w, &h))
	{
		/* only a hash of B can reach A's next unread one (file header) */
		if (k >= cap || (w.i < n0 && k >= off + w.i))
		{
			status = SBF_E_TOO_LARGE;
			break;
		}
		s->set[k++] = h;
		if (SBF_HS_STRIDE_DUE(k))
			sbf_check_interrupt(a);
	}
	*e = w.e;
	/* what is left of A follows what was written: a valid set either way */
	memmove(s->set + k, s->set + off + w.i, (n0 - w.i) * sizeof(uint64_t));
	s->nset = k + (n0 - w.i);
	if (status != SBF_OK || *e != SBF_HS_OK)
		return status;
	s->nrows += v->count;
	/* many known hashes: give back what the array does not use */
	if (s->nset > 0 && s->setcap - s->nset > s->nset / 8)
	{
		uint64_t   *shrunk = a->realloc(s->set, s->nset * sizeof(uint64_t), a->ctx);

		if (shrunk != NULL)
		{
			s->set = shrunk;
			s->setcap = s->nset;
		}
	}
	return sbf_hs_size_buffer(s);
}

/*
 * s := s UNION the hash set whose header sbf_hs_parse accepted (flag bit 1
 * clear); its body is checked while it is merged, and *e is the reading
 * error.  See the file header.
 */
SbfStatus
sbf_hs_merge_coded(SbfHashSet *s, const SbfHsView *v, SbfHsError *e)
{
	SbfStatus	status;

	*e = SBF_HS_OK;
	if (v->flags & SBF_HS_FLAG_FILTER)
		return SBF_E_PARAM;
	/* (a no-op once the set streams) */
	status = sbf_hs_flush(s, NULL);
	if (status != SBF_OK)
		return status;
	if (s->streaming)
	{
		HsMergeWalk w;

		hs_mw_start(&w, NULL, 0, v, &s->alloc);
		status = hs_mw_into_filter(&w, &s->stream, &s->alloc);
		*e = w.e;
		return status;
	}
	if (v->count == 0)
	{
		/* nothing to merge; the body must still be empty */
		SbfHsReader r;

		sbf_hs_reader_start(&r, v);
		*e = sbf_hs_reader_end(&r);
		return SBF_OK;
	}
	if (s->threshold != 0 && s->nset + v->count > s->threshold)
	{
		uint64_t	u;

		status = hs_union_count(s, v, &u, e);
		if (status != SBF_OK || *e != SBF_HS_OK)
			return status;
		if (u > s->threshold)
			return hs_merge_to_stream(s, v, u, e);
	}
	return hs_merge_array(s, v, e);
}

/* Replaces an empty set's contents by a value whose header was parsed. */
SbfStatus
sbf_hs_load(SbfHashSet *s, const SbfHsView *v, SbfHsError *e)
{
	SbfStatus	status;

	*e = SBF_HS_OK;
	if (v->flags & SBF_HS_FLAG_FILTER)
	{
		SbfView		fv;

		if (sbf_validate(v->buf + v->body, v->len - v->body, &fv) != SBF_OK)
			return SBF_E_LENGTH;	/* cannot happen: validated */
		return sbf_hs_adopt_filter(s, &fv);
	}
	if (v->count == 0)
		return sbf_hs_size_buffer(s);
	status = sbf_hs_merge_coded(s, v, e);
	if (*e != SBF_HS_OK)
	{
		/* empty again, with its inline buffer */
		sbf_hs_release(s);
		s->bufcap = SBF_HS_INLINE_BUF;
	}
	return status;
}
