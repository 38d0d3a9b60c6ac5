/*
 * sbf_hashset.c
 *	  The sorted 64-bit hash set (see sbf_hashset.h): the pending buffer and
 *	  its flush, merging sorted runs into the array, the streaming switch,
 *	  unions of sets and the one build of a right-sized filter.  Sorting
 *	  runs is in sbf_hashset_sort.c, merging an encoded set in
 *	  sbf_hashset_merge.c, the bytes in sbf_hashset_codec.c.
 *
 * Every loop whose length an input controls (a merge, a copy, the adds of a
 * stream) checks the allocator's interrupt every SBF_WORK_STRIDE hashes.
 */
#include <stdlib.h>

#include "sbf_hashset_int.h"
#include "sbf_kind.h"
#include "sbf_union.h"

/*
 * The pending buffer holds about a quarter as many hashes as the array
 * (nset >> SBF_HS_BUF_SHIFT), up to 2^20 hashes, 8 MB.  Halving or doubling
 * it made no difference measurable above the noise of the quick benchmark;
 * a quarter keeps the peak memory of a large group low.
 */
#define SBF_HS_BUF_SHIFT		2
#define SBF_HS_MAX_BUF			((uint64_t) 1 << 20)

/* Arrays up to this many hashes (16 MB) are merged by a forward pass (hs_merge). */
#define SBF_HS_FUSED_MAX		((uint64_t) 1 << 21)

/*
 * A set with few distinct hashes but many adds may still get a buffer of
 * this many hashes (adds / 8, capped), so that it does not sort every 8 adds.
 */
#define SBF_HS_ROWS_BUF			256

/* ---- the set ---- */

/* Starts an empty set. */
void
sbf_hs_init(SbfHashSet *s, const SbfAllocator *a, const SbfParams *params,
			uint64_t threshold)
{
	memset(s, 0, sizeof(*s));
	s->alloc = *a;
	if (params != NULL)
		s->params = *params;
	s->threshold = threshold;
	s->buf = s->inline_buf;
	s->bufcap = SBF_HS_INLINE_BUF;
}

/* Frees the array and buffer; the set is left empty, with no buffer. */
void
sbf_hs_release(SbfHashSet *s)
{
	if (s->set != NULL)
		s->alloc.free(s->set, s->alloc.ctx);
	if (s->buf != s->inline_buf)
		s->alloc.free(s->buf, s->alloc.ctx);
	s->set = NULL;
	s->nset = s->setcap = 0;
	s->buf = s->inline_buf;
	s->nbuf = 0;
	s->bufcap = 0;
}

/* Makes a set stream into f (it takes f); frees its array and buffer. */
void
sbf_hs_stream_into(SbfHashSet *s, const SbfFilter *f)
{
	sbf_hs_release(s);
	s->stream = *f;
	s->streaming = true;
}

/* Frees everything a set holds. */
void
sbf_hs_free(SbfHashSet *s)
{
	sbf_hs_release(s);
	if (s->streaming)
		sbf_filter_free(&s->stream);
	s->streaming = false;
}

/* Frees a scratch's memory. */
void
sbf_hs_scratch_free(SbfHsScratch *sc)
{
	sbf_free(sc->a, sc->tmp);
	sbf_free(sc->a, sc->count);
	sc->tmp = NULL;
	sc->count = NULL;
	sc->tmpcap = 0;
	sc->countcap = 0;
}

/*
 * Adds the iterator's hashes to a filter, in chunks through the core's batch
 * add (the same bytes as one add at a time, and itself checking the
 * filter's allocator for interrupts by the work of its adds), calling
 * interrupt between chunks too.
 */
SbfStatus
sbf_hs_filter_add_all(SbfFilter *f, SbfHsIter *it, const SbfAllocator *a,
				  void (*interrupt) (void))
{
	/* at most what the iterator holds: a small set's build stays small */
	uint64_t	left = (it->na - it->i) + (it->nb - it->j);
	size_t		cap = (size_t) SBF_HS_MAX(SBF_HS_MIN(left, SBF_HS_ADD_CHUNK), 1);
	uint64_t   *chunk = a->alloc(cap * sizeof(uint64_t), a->ctx);
	size_t		n = 0;
	uint64_t	h;
	bool		more;
	SbfStatus	status = SBF_OK;

	if (chunk == NULL)
		return SBF_E_NOMEM;
	do
	{
		more = hs_iter_next(it, &h);
		if (more)
			chunk[n++] = h;
		if (n == cap || (!more && n > 0))
		{
			if (interrupt != NULL)
				interrupt();
			status = sbf_add_hashes(f, chunk, n);
			if (status != SBF_OK)
				break;
			n = 0;
		}
	} while (more);
	a->free(chunk, a->ctx);
	return status;
}

/*
 * Switches a set to streaming: a filter right-sized for n hashes takes the
 * iterator's hashes; the array and buffer are freed.
 */
static SbfStatus
hs_start_stream(SbfHashSet *s, SbfHsIter *it, uint64_t n)
{
	SbfStatus	status;

	status = sbf_create_sized(&s->stream, &s->params, SBF_HS_MAX(n, 1),
							  sizeof(int32_t), &s->alloc);
	if (status != SBF_OK)
		return status;
	status = sbf_hs_filter_add_all(&s->stream, it, &s->alloc, s->interrupt);
	if (status != SBF_OK)
	{
		sbf_filter_free(&s->stream);
		return status;
	}
	sbf_hs_release(s);
	s->streaming = true;
	return SBF_OK;
}

/*
 * Gives a set whose buffer is empty a buffer of at least want hashes (a
 * power of two, 8..SBF_HS_MAX_BUF); buffers only grow.
 */
static SbfStatus
hs_grow_buffer(SbfHashSet *s, uint64_t want)
{
	uint64_t	cap;
	uint64_t   *buf;

	want = SBF_HS_MIN(want, SBF_HS_MAX_BUF);
	if (want <= s->bufcap)
		return SBF_OK;
	cap = SBF_HS_INLINE_BUF;
	while (cap < want)
		cap *= 2;
	if (cap <= s->bufcap)
		return SBF_OK;
	buf = s->alloc.alloc(cap * sizeof(uint64_t), s->alloc.ctx);
	if (buf == NULL)
		return SBF_E_NOMEM;
	if (s->buf != s->inline_buf)
		s->alloc.free(s->buf, s->alloc.ctx);
	s->buf = buf;
	s->bufcap = (uint32_t) cap;
	return SBF_OK;
}

/*
 * Gives a set whose buffer is empty a buffer for about a quarter as many
 * hashes as its array holds (a power of two, 8..SBF_HS_MAX_BUF), or for
 * adds / 8 up to SBF_HS_ROWS_BUF when the set saw many adds but few
 * distinct hashes.  Buffers only grow.
 */
SbfStatus
sbf_hs_size_buffer(SbfHashSet *s)
{
	return hs_grow_buffer(s, SBF_HS_MAX(s->nset >> SBF_HS_BUF_SHIFT,
										SBF_HS_MIN(s->nrows / 8, SBF_HS_ROWS_BUF)));
}

SbfStatus
sbf_hs_reserve_buffer(SbfHashSet *s, uint64_t cap)
{
	if (s->nbuf != 0 || s->streaming)
		return SBF_E_PARAM;
	return hs_grow_buffer(s, cap);
}

/*
 * Merges the sorted, distinct run[0..r) (scratch: it is changed) into the
 * array, or switches to streaming when the union would pass the threshold.
 */
static SbfStatus
hs_merge(SbfHashSet *s, uint64_t *run, uint64_t r)
{
	uint64_t   *a;
	uint64_t	i;
	uint64_t	j;
	uint64_t	k;

	/*
	 * Usually one forward pass into a new array, which drops the run's
	 * known hashes as it goes: a single walk over the array, where finding
	 * them first and then merging in place walked it twice and copied it
	 * when the array grew.  Near the streaming threshold and the size limit
	 * the exact count matters first, so the known hashes are dropped first;
	 * and a large array (past SBF_HS_FUSED_MAX) is merged in place, where
	 * growing it may not copy it, so that the peak memory of a large group
	 * stays that of one array.
	 */
	if (s->nset > 0 && r > 0 && s->nset <= SBF_HS_FUSED_MAX &&
		s->nset + r <= SBF_HS_MAX_COUNT &&
		(s->threshold == 0 || s->nset + r <= s->threshold))
	{
		uint64_t	cap = s->nset + r;
		const uint64_t *b = s->set;

		a = s->alloc.alloc(cap * sizeof(uint64_t), s->alloc.ctx);
		if (a == NULL)
			return SBF_E_NOMEM;
		i = j = k = 0;
		while (i < s->nset && j < r)
		{
			uint64_t	x = b[i];
			uint64_t	y = run[j];

			a[k++] = x < y ? x : y;
			i += x <= y;
			j += y <= x;
			if (SBF_HS_STRIDE_DUE(k))
				sbf_check_interrupt(&s->alloc);
		}
		while (i < s->nset)
			a[k++] = b[i++];
		while (j < r)
			a[k++] = run[j++];
		s->alloc.free(s->set, s->alloc.ctx);
		s->set = a;
		s->nset = k;
		s->setcap = cap;
		/* many known hashes: give back what the new array does not use */
		if (cap - k > k / 8)
		{
			uint64_t   *shrunk = s->alloc.realloc(a, k * sizeof(uint64_t), s->alloc.ctx);

			if (shrunk != NULL)
			{
				s->set = shrunk;
				s->setcap = k;
			}
		}
		return SBF_OK;
	}
	r = sbf_hs_drop_known(s->set, s->nset, run, r, &s->alloc);
	if (r == 0)
		return SBF_OK;
	if (s->threshold != 0 && s->nset + r > s->threshold)
	{
		SbfHsIter	it;

		hs_iter_start(&it, s->set, s->nset, run, r);
		return hs_start_stream(s, &it, s->nset + r);
	}
	if (s->nset + r > SBF_HS_MAX_COUNT)
		return SBF_E_TOO_LARGE;
	if (s->nset + r > s->setcap)
	{
		uint64_t	cap = s->nset + r;

		a = s->alloc.realloc(s->set, cap * sizeof(uint64_t), s->alloc.ctx);
		if (a == NULL)
			return SBF_E_NOMEM;
		s->set = a;
		s->setcap = cap;
	}
	/* from the back: each hash moves once, to its final place */
	a = s->set;
	i = s->nset;
	j = r;
	k = s->nset + r;
	while (j > 0 && i > 0)
	{
		uint64_t	x = a[i - 1];
		uint64_t	y = run[j - 1];
		uint64_t	from_set = x > y;

		a[--k] = from_set ? x : y;
		i -= from_set;
		j -= 1 - from_set;
		if (SBF_HS_STRIDE_DUE(k))
			sbf_check_interrupt(&s->alloc);
	}
	while (j > 0)
	{
		a[--k] = run[--j];
		if (SBF_HS_STRIDE_DUE(j))
			sbf_check_interrupt(&s->alloc);
	}
	s->nset += r;
	return SBF_OK;
}

/* Makes sure sc can sort n hashes. */
static SbfStatus
hs_scratch_reserve(SbfHsScratch *sc, uint64_t n)
{
	size_t		nc = sbf_hash_sort_count_size(n);

	/* the counters a sort of n asks for (as many for any fewer: monotone) */
	if (sc->countcap < nc)
	{
		uint32_t   *count = sc->a->alloc(nc * sizeof(uint32_t), sc->a->ctx);

		if (count == NULL)
			return SBF_E_NOMEM;
		sbf_free(sc->a, sc->count);
		sc->count = count;
		sc->countcap = nc;
	}
	if (sc->tmpcap < n)
	{
		uint64_t   *tmp = sc->a->alloc(n * sizeof(uint64_t), sc->a->ctx);

		if (tmp == NULL)
			return SBF_E_NOMEM;
		sbf_free(sc->a, sc->tmp);
		sc->tmp = tmp;
		sc->tmpcap = n;
	}
	return SBF_OK;
}

/*
 * Empties the buffer into the array (or into the filter, if that makes the
 * set stream), then resizes the buffer.  sc may be NULL (then the sort
 * allocates its own scratch).
 */
SbfStatus
sbf_hs_flush(SbfHashSet *s, SbfHsScratch *sc)
{
	return sbf_hs_flush_runs(s, sc, 0, NULL, NULL);
}

SbfStatus
sbf_hs_flush_runs(SbfHashSet *s, SbfHsScratch *sc, uint64_t min_run,
				  SbfHsChunkFn emit, void *arg)
{
	SbfHsScratch local = {NULL, 0, NULL, &s->alloc, 0};
	uint32_t	pending;
	uint64_t	r;
	uint64_t   *run;
	SbfStatus	status;

	if (s->nbuf == 0 || s->streaming)
		return SBF_OK;
	if (s->nbuf <= SBF_HS_SMALL_SORT)
		run = s->buf;			/* sorted in place */
	else
	{
		/* a kept scratch sized for the buffer; else one of exactly this sort's size */
		status = sc != NULL ? hs_scratch_reserve(sc, s->bufcap) :
			hs_scratch_reserve(&local, s->nbuf);
		if (sc == NULL)
			sc = &local;
		if (status != SBF_OK)
		{
			sbf_hs_scratch_free(&local);
			return status;
		}
		run = sc->tmp;
	}
	pending = s->nbuf;
	r = sbf_hash_sort_unique(s->buf, pending, run, sc != NULL ? sc->count : NULL);
	if (emit != NULL && r >= min_run && r > 0)
	{
		emit(arg, run, (size_t) r);
		status = SBF_OK;
	}
	else
		status = hs_merge(s, run, r);
	/* on failure the buffer keeps its hashes (sorted in place or not) */
	if (status == SBF_OK)
	{
		s->nrows += pending;
		s->nbuf = 0;
	}
	sbf_hs_scratch_free(&local);
	if (status == SBF_OK && !s->streaming)
		status = sbf_hs_size_buffer(s);
	return status;
}

/* Adds a hash to a set whose buffer is full (or that streams). */
SbfStatus
sbf_hs_add_slow(SbfHashSet *s, uint64_t h, SbfHsScratch *sc)
{
	SbfStatus	status;

	/* (a no-op once the set streams) */
	status = sbf_hs_flush(s, sc);
	if (status != SBF_OK)
		return status;
	if (s->streaming)
		return sbf_add_hash(&s->stream, h, NULL);
	s->buf[s->nbuf++] = h;
	return SBF_OK;
}

/* Adds n sorted, distinct hashes to s; run is scratch and is changed. */
SbfStatus
sbf_hs_union_run(SbfHashSet *s, uint64_t *run, uint64_t n)
{
	SbfHsIter	it;
	SbfStatus	status;

	if (n == 0)
		return SBF_OK;
	/* (a no-op once the set streams) */
	status = sbf_hs_flush(s, NULL);
	if (status != SBF_OK)
		return status;
	if (s->streaming)
	{
		hs_iter_start(&it, run, n, NULL, 0);
		return sbf_hs_filter_add_all(&s->stream, &it, &s->alloc, s->interrupt);
	}
	s->nrows += n;
	status = hs_merge(s, run, n);
	if (status == SBF_OK && !s->streaming)
		status = sbf_hs_size_buffer(s);
	return status;
}

/* dst := dst UNION src; src is only read. */
SbfStatus
sbf_hs_union(SbfHashSet *dst, const SbfHashSet *src)
{
	SbfHsIter	it;
	uint64_t   *copy;
	SbfStatus	status;

	if (src->streaming)
	{
		SbfView		v;

		if (!dst->streaming)
		{
			SbfFilter	f;

			/* dst becomes a copy of src's filter plus dst's hashes */
			sbf_filter_view(&src->stream, &v);
			status = sbf_copy(&f, &v, sizeof(int32_t), 0, &dst->alloc);
			if (status != SBF_OK)
				return status;
			status = sbf_hs_iter_of(dst, &dst->alloc, &it, &copy);
			if (status == SBF_OK)
			{
				status = sbf_hs_filter_add_all(&f, &it, &dst->alloc, dst->interrupt);
				if (copy != NULL)
					dst->alloc.free(copy, dst->alloc.ctx);
			}
			if (status != SBF_OK)
			{
				sbf_filter_free(&f);
				return status;
			}
			sbf_hs_stream_into(dst, &f);
			return SBF_OK;
		}
		/* both streamed: the FPR bound is then the sum of both (<= 2e) */
		sbf_filter_view(&src->stream, &v);
		return sbf_union(&dst->stream, &v);
	}

	status = sbf_hs_iter_of(src, &dst->alloc, &it, &copy);
	if (status != SBF_OK)
		return status;
	if (dst->streaming)
		status = sbf_hs_filter_add_all(&dst->stream, &it, &dst->alloc, dst->interrupt);
	else if (it.na + it.nb > 0)
	{
		/* src's hashes as one sorted run */
		uint64_t	n = it.na + it.nb;
		uint64_t   *run = dst->alloc.alloc(n * sizeof(uint64_t), dst->alloc.ctx);
		uint64_t	r = 0;
		uint64_t	h;

		if (run == NULL)
			status = SBF_E_NOMEM;
		else
		{
			while (hs_iter_next(&it, &h))
			{
				run[r++] = h;
				if (SBF_HS_STRIDE_DUE(r))
					sbf_check_interrupt(&dst->alloc);
			}
			status = sbf_hs_union_run(dst, run, r);
			dst->alloc.free(run, dst->alloc.ctx);
		}
	}
	if (copy != NULL)
		dst->alloc.free(copy, dst->alloc.ctx);
	return status;
}

/* Exact number of distinct hashes; flushes the buffer. */
SbfStatus
sbf_hs_count(SbfHashSet *s, uint64_t *n)
{
	SbfStatus	status = sbf_hs_flush(s, NULL);

	*n = s->streaming ? 0 : s->nset;
	return status;
}

/*
 * The build of a set of at most SBF_FUSED_MAX_BUILD hashes: the iterator's
 * hashes in one ascending array (the set's own when the buffer is empty),
 * then the one builder (sbf_build_final: exact, fused or blocked).
 */
static SbfStatus
hs_build_array(const SbfHashSet *s, const SbfParams *params, size_t prefix,
			   const SbfAllocator *a, SbfHsIter *it, SbfFilter *out)
{
	uint64_t	n = it->na + it->nb;
	uint64_t   *merged = NULL;
	const uint64_t *h = it->a;
	SbfStatus	status;

	if (it->nb > 0)
	{
		uint64_t	i;

		merged = a->alloc((size_t) n * sizeof(uint64_t), a->ctx);
		if (merged == NULL)
			return SBF_E_NOMEM;
		for (i = 0; hs_iter_next(it, &merged[i]); i++)
			if ((i & (SBF_WORK_STRIDE - 1)) == SBF_WORK_STRIDE - 1 &&
				s->interrupt != NULL)
				s->interrupt();
		h = merged;
	}
	status = sbf_build_final(out, params, h, (size_t) n, prefix, a);
	sbf_free(a, merged);
	return status;
}

/* The one build of a right-sized filter from a set (see the header). */
SbfStatus
sbf_hs_build(const SbfHashSet *s, const SbfParams *params, size_t prefix,
			 const SbfAllocator *a, SbfFilter *out)
{
	SbfHsIter	it;
	uint64_t   *copy;
	SbfStatus	status;

	if (s->streaming)
	{
		SbfView		v;

		sbf_filter_view(&s->stream, &v);
		return sbf_copy(out, &v, prefix, 0, a);
	}
	status = sbf_hs_iter_of(s, a, &it, &copy);
	if (status != SBF_OK)
		return status;
	if (it.na + it.nb <= SBF_FUSED_MAX_BUILD)
		status = hs_build_array(s, params, prefix, a, &it, out);
	else if ((status = sbf_create_sized(out, params, SBF_HS_MAX(it.na + it.nb, 1),
										prefix, a)) == SBF_OK)
	{
		/* ascending order: the result depends only on the set */
		status = sbf_hs_filter_add_all(out, &it, a, s->interrupt);
		if (status != SBF_OK)
			sbf_filter_free(out);
	}
	sbf_free(a, copy);
	return status;
}

/* Takes a sorted array of n distinct hashes (allocated with s's allocator). */
SbfStatus
sbf_hs_adopt(SbfHashSet *s, uint64_t *set, uint64_t n)
{
	sbf_hs_release(s);
	s->set = set;
	s->nset = s->setcap = n;
	s->nrows += n;
	s->bufcap = SBF_HS_INLINE_BUF;	/* not streaming: the inline buffer serves */
	return sbf_hs_size_buffer(s);
}

/* Makes an empty set stream into a copy of a validated filter. */
SbfStatus
sbf_hs_adopt_filter(SbfHashSet *s, const SbfView *fv)
{
	SbfStatus	status = sbf_copy(&s->stream, fv, sizeof(int32_t), 0, &s->alloc);

	if (status != SBF_OK)
		return status;
	sbf_hs_release(s);
	s->streaming = true;
	return SBF_OK;
}
