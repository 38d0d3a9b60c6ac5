/*
 * sbf_hashset.c
 *	  The sorted 64-bit hash set (see sbf_hashset.h): sorting and merging
 *	  runs of hashes, the streaming switch, the one build of a right-sized
 *	  filter, the sbf_hashset Golomb-Rice codec and its validator, and
 *	  sbf_agg's 1.0 partial-state codec.
 */
#include <stdlib.h>

#include "sbf_hashset.h"
#include "sbf_internal.h"

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

/* Runs of at most this many hashes are sorted by insertion. */
#define SBF_HS_SMALL_SORT		32

/* Hashes handed to sbf_add_hashes at a time (an interrupt check between). */
#define SBF_HS_ADD_CHUNK		65536

#define SBF_HS_MIN(a, b)		((a) < (b) ? (a) : (b))
#define SBF_HS_MAX(a, b)		((a) > (b) ? (a) : (b))

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

/* ---- sorting and merging runs of hashes ---- */

/* Sorts a[0..n) by insertion (small n). */
static inline void
hs_insertion_sort(uint64_t *a, uint64_t n)
{
	uint64_t	i;

	for (i = 1; i < n; i++)
	{
		uint64_t	x = a[i];
		uint64_t	j = i;

		while (j > 0 && a[j - 1] > x)
		{
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

/* qsort comparator for uint64_t. */
static int
hs_cmp64(const void *pa, const void *pb)
{
	uint64_t	a = *(const uint64_t *) pa;
	uint64_t	b = *(const uint64_t *) pb;

	return (a > b) - (a < b);
}

/* Bits of the bucket index hs_sort_unique uses for n hashes: about n/4 buckets. */
static inline int
hs_bucket_bits(uint64_t n)
{
	int			bits = sbf_log2_64(n) - 2;

	return SBF_HS_MIN(SBF_HS_MAX(bits, 1), 16);
}

/* Counters hs_sort_unique needs for n hashes (0: none). */
static inline size_t
hs_count_size(uint64_t n)
{
	if (n <= SBF_HS_SMALL_SORT || n > UINT32_MAX)
		return 0;
	return ((size_t) 1 << hs_bucket_bits(n)) + 1;
}

/*
 * Sorts src[0..n) into dst (n entries; dst may be src only when n <=
 * SBF_HS_SMALL_SORT) and drops repeats; returns the number of distinct
 * hashes.  Hashes are close to uniform, so one pass that distributes them by
 * their top bits into about n/4 buckets leaves buckets of a few hashes,
 * sorted by insertion; a bucket that is large anyway (repeats, or inputs
 * built to collide) is sorted by qsort, so the worst case stays n log n.
 * count has room for hs_count_size(n) counters.
 */
static uint64_t
hs_sort_unique(const uint64_t *src, uint64_t n, uint64_t *dst, uint32_t *count)
{
	uint64_t	i;
	uint64_t	k;

	if (n == 0)
		return 0;
	if (n <= SBF_HS_SMALL_SORT || n > UINT32_MAX)
	{
		if (dst != src)
			memcpy(dst, src, n * sizeof(uint64_t));
		if (n <= SBF_HS_SMALL_SORT)
			hs_insertion_sort(dst, n);
		else
			qsort(dst, n, sizeof(uint64_t), hs_cmp64);
	}
	else
	{
		int			bits = hs_bucket_bits(n);
		int			shift;
		uint32_t	nb;
		uint32_t	b;
		uint64_t	start = 0;

		shift = 64 - bits;
		nb = (uint32_t) 1 << bits;
		memset(count, 0, (nb + 1) * sizeof(uint32_t));
		for (i = 0; i < n; i++)
			count[(src[i] >> shift) + 1]++;
		for (b = 1; b <= nb; b++)
			count[b] += count[b - 1];
		for (i = 0; i < n; i++)
			dst[count[src[i] >> shift]++] = src[i];
		/* count[b] is now the end of bucket b */
		for (b = 0; b < nb; b++)
		{
			uint64_t	end = count[b];

			if (end - start <= SBF_HS_SMALL_SORT)
				hs_insertion_sort(dst + start, end - start);
			else
				qsort(dst + start, end - start, sizeof(uint64_t), hs_cmp64);
			start = end;
		}
	}
	for (i = 1, k = 1; i < n; i++)
	{
		dst[k] = dst[i];
		k += dst[i] != dst[k - 1];
	}
	return k;
}

/*
 * The first index p >= lo with a[p] >= x (n if none), by galloping from lo:
 * O(log distance), so a sorted run of probes costs about its length times
 * the log of the average gap.
 */
static inline uint64_t
hs_lower_bound(const uint64_t *a, uint64_t lo, uint64_t n, uint64_t x)
{
	uint64_t	step = 1;
	uint64_t	hi;

	if (lo >= n || a[lo] >= x)
		return lo;
	/* invariant: a[lo] < x */
	while (lo + step < n && a[lo + step] < x)
	{
		lo += step;
		step <<= 1;
	}
	hi = SBF_HS_MIN(lo + step, n);
	/* a[lo] < x, and hi == n or a[hi] >= x */
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/*
 * Removes from the sorted, distinct run[0..r) the hashes that the sorted
 * set[0..nset) has; returns how many remain (in place, still sorted).
 */
static uint64_t
hs_drop_known(const uint64_t *set, uint64_t nset, uint64_t *run, uint64_t r)
{
	uint64_t	p = 0;
	uint64_t	i;
	uint64_t	k = 0;

	for (i = 0; i < r; i++)
	{
		uint64_t	x = run[i];

		p = hs_lower_bound(set, p, nset, x);
		run[k] = x;
		k += p >= nset || set[p] != x;
	}
	return k;
}

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

/*
 * Sets up an iterator over all hashes of a non-streaming set without
 * changing it: the buffer is copied (with a), sorted and stripped of repeats
 * and of the array's hashes.  *copy is the copy to free (or NULL).
 */
static SbfStatus
hs_iter_of(const SbfHashSet *s, const SbfAllocator *a, SbfHsIter *it,
		   uint64_t **copy)
{
	uint64_t   *run = NULL;
	uint64_t	r = 0;

	*copy = NULL;
	if (s->nbuf > 0)
	{
		uint32_t   *count = NULL;

		run = a->alloc(s->nbuf * sizeof(uint64_t), a->ctx);
		if (run == NULL)
			return SBF_E_NOMEM;
		if (hs_count_size(s->nbuf) > 0)
		{
			/* as many counters as this sort uses: a small set stays cheap */
			count = a->alloc(hs_count_size(s->nbuf) * sizeof(uint32_t), a->ctx);
			if (count == NULL)
			{
				a->free(run, a->ctx);
				return SBF_E_NOMEM;
			}
		}
		r = hs_sort_unique(s->buf, s->nbuf, run, count);
		if (count != NULL)
			a->free(count, a->ctx);
		r = hs_drop_known(s->set, s->nset, run, r);
	}
	hs_iter_start(it, s->set, s->nset, run, r);
	*copy = run;
	return SBF_OK;
}

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
static void
hs_release(SbfHashSet *s)
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

/* Frees everything a set holds. */
void
sbf_hs_free(SbfHashSet *s)
{
	hs_release(s);
	if (s->streaming)
		sbf_filter_free(&s->stream);
	s->streaming = false;
}

/* Frees a scratch's memory. */
void
sbf_hs_scratch_free(SbfHsScratch *sc)
{
	if (sc->tmp != NULL)
		sc->a->free(sc->tmp, sc->a->ctx);
	if (sc->count != NULL)
		sc->a->free(sc->count, sc->a->ctx);
	sc->tmp = NULL;
	sc->count = NULL;
	sc->tmpcap = 0;
}

/*
 * Adds the iterator's hashes to a filter, in chunks through the core's batch
 * add (the same bytes as one add at a time), calling interrupt between
 * chunks: up to 10 Mi adds take a second or more.
 */
static SbfStatus
hs_filter_add_all(SbfFilter *f, SbfHsIter *it, const SbfAllocator *a,
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
	status = hs_filter_add_all(&s->stream, it, &s->alloc, s->interrupt);
	if (status != SBF_OK)
	{
		sbf_filter_free(&s->stream);
		return status;
	}
	hs_release(s);
	s->streaming = true;
	return SBF_OK;
}

/*
 * Gives a set whose buffer is empty a buffer for about a quarter as many
 * hashes as its array holds (a power of two, 8..SBF_HS_MAX_BUF), or for
 * adds / 8 up to SBF_HS_ROWS_BUF when the set saw many adds but few
 * distinct hashes.  Buffers only grow.
 */
static SbfStatus
hs_size_buffer(SbfHashSet *s)
{
	uint64_t	want = SBF_HS_MAX(s->nset >> SBF_HS_BUF_SHIFT,
								  SBF_HS_MIN(s->nrows / 8, SBF_HS_ROWS_BUF));
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
	r = hs_drop_known(s->set, s->nset, run, r);
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
	}
	while (j > 0)
		a[--k] = run[--j];
	s->nset += r;
	return SBF_OK;
}

/* Makes sure sc can sort n hashes. */
static SbfStatus
hs_scratch_reserve(SbfHsScratch *sc, uint64_t n)
{
	if (sc->count == NULL)
	{
		sc->count = sc->a->alloc(((1 << 16) + 1) * sizeof(uint32_t), sc->a->ctx);
		if (sc->count == NULL)
			return SBF_E_NOMEM;
	}
	if (sc->tmpcap < n)
	{
		uint64_t   *tmp = sc->a->alloc(n * sizeof(uint64_t), sc->a->ctx);

		if (tmp == NULL)
			return SBF_E_NOMEM;
		if (sc->tmp != NULL)
			sc->a->free(sc->tmp, sc->a->ctx);
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
	SbfHsScratch local = {NULL, 0, NULL, &s->alloc};
	uint32_t	pending;
	uint64_t	r;
	uint64_t   *run;
	SbfStatus	status;

	if (s->nbuf == 0 || s->streaming)
		return SBF_OK;
	if (s->nbuf <= SBF_HS_SMALL_SORT)
		run = s->buf;			/* sorted in place */
	else if (sc != NULL)
	{
		status = hs_scratch_reserve(sc, s->bufcap);
		if (status != SBF_OK)
			return status;
		run = sc->tmp;
	}
	else
	{
		/* one sort: scratch of exactly its size */
		sc = &local;
		local.tmp = s->alloc.alloc(s->nbuf * sizeof(uint64_t), s->alloc.ctx);
		local.count = s->alloc.alloc(hs_count_size(s->nbuf) * sizeof(uint32_t),
									 s->alloc.ctx);
		if (local.tmp == NULL || local.count == NULL)
		{
			sbf_hs_scratch_free(&local);
			return SBF_E_NOMEM;
		}
		run = local.tmp;
	}
	pending = s->nbuf;
	r = hs_sort_unique(s->buf, pending, run, sc != NULL ? sc->count : NULL);
	status = hs_merge(s, run, r);
	/* on failure the buffer keeps its hashes (sorted in place or not) */
	if (status == SBF_OK)
	{
		s->nrows += pending;
		s->nbuf = 0;
	}
	sbf_hs_scratch_free(&local);
	if (status == SBF_OK && !s->streaming)
		status = hs_size_buffer(s);
	return status;
}

/* Adds a hash to a set whose buffer is full (or that streams). */
SbfStatus
sbf_hs_add_slow(SbfHashSet *s, uint64_t h, SbfHsScratch *sc)
{
	SbfStatus	status;

	if (!s->streaming)
	{
		status = sbf_hs_flush(s, sc);
		if (status != SBF_OK)
			return status;
	}
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
	if (!s->streaming)
	{
		status = sbf_hs_flush(s, NULL);
		if (status != SBF_OK)
			return status;
	}
	if (s->streaming)
	{
		hs_iter_start(&it, run, n, NULL, 0);
		return hs_filter_add_all(&s->stream, &it, &s->alloc, s->interrupt);
	}
	s->nrows += n;
	status = hs_merge(s, run, n);
	if (status == SBF_OK && !s->streaming)
		status = hs_size_buffer(s);
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
			status = hs_iter_of(dst, &dst->alloc, &it, &copy);
			if (status == SBF_OK)
			{
				status = hs_filter_add_all(&f, &it, &dst->alloc, dst->interrupt);
				if (copy != NULL)
					dst->alloc.free(copy, dst->alloc.ctx);
			}
			if (status != SBF_OK)
			{
				sbf_filter_free(&f);
				return status;
			}
			hs_release(dst);
			dst->stream = f;
			dst->streaming = true;
			return SBF_OK;
		}
		/* both streamed: the FPR bound is then the sum of both (<= 2e) */
		sbf_filter_view(&src->stream, &v);
		return sbf_union(&dst->stream, &v);
	}

	status = hs_iter_of(src, &dst->alloc, &it, &copy);
	if (status != SBF_OK)
		return status;
	if (dst->streaming)
		status = hs_filter_add_all(&dst->stream, &it, &dst->alloc, dst->interrupt);
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
				run[r++] = h;
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
	status = hs_iter_of(s, a, &it, &copy);
	if (status != SBF_OK)
		return status;
	status = sbf_create_sized(out, params, SBF_HS_MAX(it.na + it.nb, 1), prefix, a);
	if (status == SBF_OK)
	{
		/* ascending order: the result depends only on the set */
		status = hs_filter_add_all(out, &it, a, s->interrupt);
		if (status != SBF_OK)
			sbf_filter_free(out);
	}
	if (copy != NULL)
		a->free(copy, a->ctx);
	return status;
}

/* Takes a sorted array of n distinct hashes (allocated with s's allocator). */
SbfStatus
sbf_hs_adopt(SbfHashSet *s, uint64_t *set, uint64_t n)
{
	hs_release(s);
	s->set = set;
	s->nset = s->setcap = n;
	s->nrows += n;
	s->bufcap = SBF_HS_INLINE_BUF;	/* not streaming: the inline buffer serves */
	return hs_size_buffer(s);
}

/* Makes an empty set stream into a copy of a validated filter. */
SbfStatus
sbf_hs_adopt_filter(SbfHashSet *s, const SbfView *fv)
{
	SbfStatus	status = sbf_copy(&s->stream, fv, sizeof(int32_t), 0, &s->alloc);

	if (status != SBF_OK)
		return status;
	hs_release(s);
	s->streaming = true;
	return SBF_OK;
}

/* Replaces an empty set's contents by a validated value. */
SbfStatus
sbf_hs_load(SbfHashSet *s, const SbfHsView *v, SbfHsError *e)
{
	*e = SBF_HS_OK;
	if (v->flags & SBF_HS_FLAG_FILTER)
	{
		SbfView		fv;

		if (sbf_validate(v->buf + v->body, v->len - v->body, &fv) != SBF_OK)
			return SBF_E_LENGTH;	/* cannot happen: validated */
		return sbf_hs_adopt_filter(s, &fv);
	}
	if (v->count > 0)
	{
		uint64_t   *a = s->alloc.alloc(v->count * sizeof(uint64_t), s->alloc.ctx);

		if (a == NULL)
			return SBF_E_NOMEM;
		*e = sbf_hs_walk(v, a);
		if (*e != SBF_HS_OK)
		{
			s->alloc.free(a, s->alloc.ctx);
			return SBF_OK;
		}
		return sbf_hs_adopt(s, a, v->count);
	}
	return hs_size_buffer(s);
}

