/*
 * sbf_agg.c
 *	  The aggregate that builds scalablebloom values: sbf_agg(element
 *	  [, error_rate]).  sbf_union_agg lives in sbf_union_agg.c.
 *
 * sbf_agg does not add rows to a filter as they arrive.  A filter built that
 * way has to guess its size up front and, when the guess is low, becomes a
 * chain of growing segments.  Instead the transition state keeps the set of
 * distinct element hashes; the final function knows n, the number of
 * distinct elements, and builds one segment right-sized for n at error
 * e^1.04 (sbf_sized_error): m = ceil(-n ln p / ln^2 2) bits, 4% above the
 * Bloom optimum at e, so that later || adds still have e - e^1.04 of the
 * error budget to spend on new segments (Almeida et al. 2007).
 * The HyperLogLog receives every hash, so it equals the one the same
 * elements give when added one by one.
 *
 * The set is a sorted array of distinct hashes plus a pending buffer.  A row
 * only appends its hash to the buffer (a sequential store: no probe of a
 * table that may be megabytes large and cold in the cache).  When the buffer
 * is full it is sorted (one most-significant-bits bucket pass, then
 * insertion sort of the small buckets), deduplicated, stripped of the hashes
 * the array already has (galloping search), and merged into the array in
 * place from the back after one repalloc.  The buffer holds about a quarter
 * as many hashes as the array (at least 8, at most SBF_AGG_MAX_BUF), so each
 * row costs a bounded number of moves on average.  Everything built from a
 * state (the filter, the serialized bytes) reads the array merged with a
 * sorted copy of the buffer, in ascending order, so it depends only on the
 * set, not on the order rows arrived in or on how a parallel plan split
 * them: a combine is an exact set union and a parallel result equals the
 * serial one byte for byte.
 *
 * Memory: a state starts at 128 bytes with an eight-hash buffer inside it;
 * a group of 10 rows adds one 64-byte array.  A growing group holds 8 bytes
 * per distinct hash in the array plus a buffer of up to half that (a
 * quarter, rounded up to a power of two); while a full buffer is sorted, the
 * call site's scratch holds a copy of it.  When a flush would take the array
 * past SBF_AGG_STREAM_THRESHOLD distinct hashes (10 Mi, an 80 MB array) it
 * stops collecting: the hashes seen so far go, in ascending order, into a
 * real filter whose first segment is sized for them, and every later row is
 * added to that filter, which grows segment by segment as any scalable
 * filter does (compound FPR still <= error_rate, but no longer
 * right-sized).  A state that has not flushed yet may hold up to a buffer
 * more than the threshold; its final filter is then right-sized for all of
 * them, and serialize flushes first, so that it sends such a state as the
 * filter it becomes.
 *
 * The aggregate returns NULL for zero rows (or only NULL rows), like
 * PostgreSQL's own aggregates other than count.  Its final function only
 * reads the state, so it may be called more than once (window aggregates).
 */
#include "postgres.h"

#include <string.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "sbf.h"

PG_FUNCTION_INFO_V1(sbf_agg_trans_text);
PG_FUNCTION_INFO_V1(sbf_agg_trans_int8);
PG_FUNCTION_INFO_V1(sbf_agg_trans_bytea);
PG_FUNCTION_INFO_V1(sbf_agg_final);
PG_FUNCTION_INFO_V1(sbf_agg_combine);
PG_FUNCTION_INFO_V1(sbf_agg_serialize);
PG_FUNCTION_INFO_V1(sbf_agg_deserialize);

/*
 * Distinct hashes a state collects before it streams into a filter.  10 Mi
 * keeps aggregates right-sized up to ten million distinct elements per group
 * (the product's heaviest users have hundreds of thousands) while bounding
 * the array at 80 MB (plus the pending buffer).  Test builds may lower it
 * (-DSBF_AGG_STREAM_THRESHOLD=64) to exercise the streaming paths with small
 * inputs.
 */
#ifndef SBF_AGG_STREAM_THRESHOLD
#define SBF_AGG_STREAM_THRESHOLD	((uint64) 10 * 1024 * 1024)
#endif

/* Pending hashes kept inside the state (the state is then 128 bytes). */
#define SBF_AGG_INLINE_BUF			8

/*
 * The pending buffer holds about a quarter as many hashes as the array
 * (nset >> SBF_AGG_BUF_SHIFT), up to 2^20 hashes, 8 MB.  Halving or doubling
 * it made no difference measurable above the noise of the quick benchmark;
 * a quarter keeps the peak memory of a large group low.
 */
#define SBF_AGG_BUF_SHIFT			2
#define SBF_AGG_MAX_BUF				((uint64) 1 << 20)

/*
 * A group with few distinct hashes but many rows may still get a buffer of
 * this many hashes (rows / 8, capped), so that it does not sort every 8 rows.
 */
#define SBF_AGG_ROWS_BUF			256

/* Runs of at most this many hashes are sorted by insertion. */
#define SBF_AGG_SMALL_SORT			32

/*
 * Serialized state of sbf_agg (private to this file, but validated as fully
 * as any outside input).  Integers and the double are little-endian.
 *
 *	offset	size	field
 *	0		1		version			1
 *	1		1		mode			0 = hash set, 1 = filter
 *	2		6		reserved		must be 0
 *	8		8		error_rate		0 < e < 0.5
 *	16		8		count			mode 0: number of hashes, 1..threshold;
 *									mode 1: 0
 *	24		...		mode 0: count uint64 hashes, strictly ascending;
 *					mode 1: a format-v1 scalablebloom payload with the same
 *					error_rate (checked by sbf_check_payload)
 */
#define SBF_AGG_SERIAL_VERSION		1
#define SBF_AGG_MODE_SET			0
#define SBF_AGG_MODE_FILTER			1
#define SBF_AGG_SERIAL_HEADER		24

/* A filter that lives in the aggregate context, with its allocator. */
typedef struct SbfAggFilter
{
	SbfAllocator alloc;			/* sbf_palloc_allocator bound to the context */
	SbfFilter	filter;
} SbfAggFilter;

/* Transition state of sbf_agg. */
typedef struct SbfAggState
{
	double		error_rate;
	SbfAggFilter *stream;		/* non-NULL once streaming */
	uint64	   *set;			/* nset distinct hashes, ascending, or NULL */
	uint64		nset;
	uint64		setcap;			/* allocated entries of set */
	uint64	   *buf;			/* pending hashes, unsorted, with repeats */
	uint32		nbuf;
	uint32		bufcap;			/* 0 once streaming */
	uint64		nrows;			/* hashes that went through the buffer */
	uint64		inline_buf[SBF_AGG_INLINE_BUF];
} SbfAggState;

/*
 * The hashes of a state in ascending order: its array merged with a sorted,
 * deduplicated copy of its buffer from which the array's hashes were removed.
 */
typedef struct SbfAggIter
{
	const uint64 *a;
	uint64		na;
	uint64		i;
	const uint64 *b;
	uint64		nb;
	uint64		j;
} SbfAggIter;

/*
 * Scratch memory for sorting full buffers, kept by a transition function's
 * call site in fn_extra so that sorts do not allocate (and page-fault) anew.
 */
typedef struct SbfAggScratch
{
	uint64	   *tmp;
	uint64		tmpcap;			/* entries of tmp */
	uint32	   *count;			/* 2^16 + 1 bucket counters */
} SbfAggScratch;

/* ---- little-endian fields of the serialized state ---- */

/* Stores a uint64 little-endian. */
static inline void
agg_store64(uint8 *p, uint64 v)
{
	int			i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8) (v >> (8 * i));
}

/* Loads a little-endian uint64. */
static inline uint64
agg_load64(const uint8 *p)
{
	uint64		v = 0;
	int			i;

	for (i = 0; i < 8; i++)
		v |= (uint64) p[i] << (8 * i);
	return v;
}

/* True when two doubles have the same bits (NaN-safe, unlike ==). */
static inline bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

/* ---- sorting and merging runs of hashes ---- */

/* Sorts a[0..n) by insertion (small n). */
static inline void
agg_insertion_sort(uint64 *a, uint64 n)
{
	uint64		i;

	for (i = 1; i < n; i++)
	{
		uint64		x = a[i];
		uint64		j = i;

		while (j > 0 && a[j - 1] > x)
		{
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

/* qsort comparator for uint64. */
static int
agg_cmp64(const void *pa, const void *pb)
{
	uint64		a = *(const uint64 *) pa;
	uint64		b = *(const uint64 *) pb;

	return (a > b) - (a < b);
}

/*
 * Sorts src[0..n) into dst (n entries; dst may be src only when n <=
 * SBF_AGG_SMALL_SORT) and drops repeats; returns the number of distinct
 * hashes.  Hashes are close to uniform, so one pass that distributes them by
 * their top bits into about n/4 buckets leaves buckets of a few hashes,
 * sorted by insertion; a bucket that is large anyway (repeats, or inputs
 * built to collide) is sorted by qsort, so the worst case stays n log n.
 * count has room for 2^16 + 1 counters, or is NULL (then allocated).
 */
static uint64
agg_sort_unique(const uint64 *src, uint64 n, uint64 *dst, uint32 *count)
{
	int			bits;
	int			shift;
	uint32		nb;
	uint32	   *cnt;
	uint64		i;
	uint64		k;
	uint64		start;
	uint32		b;

	if (n == 0)
		return 0;
	if (n <= SBF_AGG_SMALL_SORT || n > PG_UINT32_MAX)
	{
		if (dst != src)
			memcpy(dst, src, n * sizeof(uint64));
		if (n <= SBF_AGG_SMALL_SORT)
			agg_insertion_sort(dst, n);
		else
			qsort(dst, n, sizeof(uint64), agg_cmp64);
	}
	else
	{
		Assert(dst != src);
		bits = pg_leftmost_one_pos64(n) - 2;
		bits = Max(bits, 1);
		bits = Min(bits, 16);
		shift = 64 - bits;
		nb = (uint32) 1 << bits;
		if (count != NULL)
		{
			cnt = count;
			memset(cnt, 0, (nb + 1) * sizeof(uint32));
		}
		else
			cnt = palloc0((nb + 1) * sizeof(uint32));
		for (i = 0; i < n; i++)
			cnt[(src[i] >> shift) + 1]++;
		for (b = 1; b <= nb; b++)
			cnt[b] += cnt[b - 1];
		for (i = 0; i < n; i++)
			dst[cnt[src[i] >> shift]++] = src[i];
		/* cnt[b] is now the end of bucket b */
		start = 0;
		for (b = 0; b < nb; b++)
		{
			uint64		end = cnt[b];

			if (end - start <= SBF_AGG_SMALL_SORT)
				agg_insertion_sort(dst + start, end - start);
			else
				qsort(dst + start, end - start, sizeof(uint64), agg_cmp64);
			start = end;
		}
		if (cnt != count)
			pfree(cnt);
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
static inline uint64
agg_lower_bound(const uint64 *a, uint64 lo, uint64 n, uint64 x)
{
	uint64		step = 1;
	uint64		hi;

	if (lo >= n || a[lo] >= x)
		return lo;
	/* invariant: a[lo] < x */
	while (lo + step < n && a[lo + step] < x)
	{
		lo += step;
		step <<= 1;
	}
	hi = Min(lo + step, n);
	/* a[lo] < x, and hi == n or a[hi] >= x */
	while (hi - lo > 1)
	{
		uint64		mid = lo + (hi - lo) / 2;

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
static uint64
agg_drop_known(const uint64 *set, uint64 nset, uint64 *run, uint64 r)
{
	uint64		p = 0;
	uint64		i;
	uint64		k = 0;

	for (i = 0; i < r; i++)
	{
		uint64		x = run[i];

		p = agg_lower_bound(set, p, nset, x);
		run[k] = x;
		k += p >= nset || set[p] != x;
	}
	return k;
}

/* Starts an iterator over the union of two sorted runs with no common hash. */
static inline void
agg_iter_start(SbfAggIter *it, const uint64 *a, uint64 na, const uint64 *b, uint64 nb)
{
	it->a = a;
	it->na = na;
	it->i = 0;
	it->b = b;
	it->nb = nb;
	it->j = 0;
}

/* The next hash in ascending order. */
static inline bool
agg_iter_next(SbfAggIter *it, uint64 *h)
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
 * Sets up an iterator over all hashes of a non-streaming state without
 * changing it: the buffer is copied (in CurrentMemoryContext), sorted and
 * stripped of repeats and of the array's hashes.  Returns the number of
 * distinct hashes; *copy is the buffer copy to pfree (or NULL).
 */
static uint64
agg_state_iter(const SbfAggState *st, SbfAggIter *it, uint64 **copy)
{
	uint64	   *run = NULL;
	uint64		r = 0;

	if (st->nbuf > 0)
	{
		run = palloc(st->nbuf * sizeof(uint64));
		r = agg_sort_unique(st->buf, st->nbuf, run, NULL);
		r = agg_drop_known(st->set, st->nset, run, r);
	}
	agg_iter_start(it, st->set, st->nset, run, r);
	*copy = run;
	return st->nset + r;
}

/* ---- the state ---- */

/*
 * Parameters of a filter built by sbf_agg: defaults, with error_rate e.  The
 * header keeps the default initial capacity: the first segment is sized for
 * the group by sbf_create_sized, and a later || that needs a new segment
 * starts again from that capacity rather than doubling the big segment.
 */
static void
agg_params(double error_rate, SbfParams *p)
{
	sbf_default_params(p);
	p->error_rate = error_rate;
}

/* Frees a state's array and buffer; it is left empty, with no buffer. */
static void
agg_release(SbfAggState *st)
{
	if (st->set != NULL)
		pfree(st->set);
	if (st->buf != st->inline_buf)
		pfree(st->buf);
	st->set = NULL;
	st->nset = st->setcap = 0;
	st->buf = st->inline_buf;
	st->nbuf = 0;
	st->bufcap = 0;
}

/* A new streaming filter in cxt, its first segment sized for n hashes. */
static SbfAggFilter *
agg_stream_new(double error_rate, uint64 n, MemoryContext cxt)
{
	SbfAggFilter *sf = MemoryContextAlloc(cxt, sizeof(SbfAggFilter));
	SbfParams	p;
	SbfStatus	status;

	sf->alloc = sbf_palloc_allocator;
	sf->alloc.ctx = cxt;
	agg_params(error_rate, &p);
	status = sbf_create_sized(&sf->filter, &p, Max(n, 1), VARHDRSZ, &sf->alloc);
	if (status != SBF_OK)
		sbf_report_status(status);
	return sf;
}

/*
 * Adds the iterator's hashes to a filter, in chunks through the core's batch
 * add (the same bytes as one add at a time, with one view and one
 * HyperLogLog encoding per chunk).  Up to SBF_AGG_STREAM_THRESHOLD adds take
 * a second or more: a cancel or timeout is let in between chunks.
 */
static void
agg_filter_add_all(SbfFilter *f, SbfAggIter *it)
{
#define AGG_ADD_CHUNK 65536
	/* at most what the iterator holds: a small group's final stays small */
	uint64		left = (it->na - it->i) + (it->nb - it->j);
	size_t		cap = (size_t) Max(Min(left, AGG_ADD_CHUNK), 1);
	uint64	   *chunk = palloc(cap * sizeof(uint64));
	size_t		n = 0;
	uint64		h;
	bool		more;

	do
	{
		more = agg_iter_next(it, &h);
		if (more)
			chunk[n++] = h;
		if (n == cap || (!more && n > 0))
		{
			SbfStatus	status;

			CHECK_FOR_INTERRUPTS();
			status = sbf_add_hashes(f, chunk, n);
			if (status != SBF_OK)
				sbf_report_status(status);
			n = 0;
		}
	} while (more);
	pfree(chunk);
}

/* Adds a hash to a streaming state's filter. */
static inline void
agg_stream_add(SbfAggState *st, uint64 h)
{
	SbfStatus	status = sbf_add_hash(&st->stream->filter, h, NULL);

	if (status != SBF_OK)
		sbf_report_status(status);
}

/*
 * Gives a state whose buffer is empty a buffer for about a quarter as many
 * hashes as its array holds (a power of two, 8..SBF_AGG_MAX_BUF), or for
 * rows / 8 up to SBF_AGG_ROWS_BUF when the group has many rows but few
 * distinct hashes.  Buffers only grow.
 */
static void
agg_size_buffer(SbfAggState *st, MemoryContext cxt)
{
	uint64		want = Max(st->nset >> SBF_AGG_BUF_SHIFT, Min(st->nrows / 8, SBF_AGG_ROWS_BUF));
	uint64		cap;

	Assert(st->nbuf == 0);
	want = Min(want, SBF_AGG_MAX_BUF);
	if (want <= st->bufcap)
		return;
	cap = SBF_AGG_INLINE_BUF;
	while (cap < want)
		cap *= 2;
	if (cap <= st->bufcap)
		return;
	if (st->buf != st->inline_buf)
		pfree(st->buf);
	st->buf = MemoryContextAlloc(cxt, cap * sizeof(uint64));
	st->bufcap = (uint32) cap;
}

/*
 * Merges the sorted, distinct run[0..r) (scratch: it is changed) into the
 * state's array.  When the union would pass SBF_AGG_STREAM_THRESHOLD, the
 * state switches to streaming instead: a filter right-sized for the union
 * takes all of it in ascending order, and the array and buffer are freed.
 */
static void
agg_merge(SbfAggState *st, uint64 *run, uint64 r, MemoryContext cxt)
{
	uint64	   *s;
	uint64		i;
	uint64		j;
	uint64		k;

	r = agg_drop_known(st->set, st->nset, run, r);
	if (r == 0)
		return;
	if (st->nset + r > SBF_AGG_STREAM_THRESHOLD)
	{
		SbfAggIter	it;

		st->stream = agg_stream_new(st->error_rate, st->nset + r, cxt);
		agg_iter_start(&it, st->set, st->nset, run, r);
		agg_filter_add_all(&st->stream->filter, &it);
		agg_release(st);
		return;
	}
	if (st->nset + r > st->setcap)
	{
		uint64		cap = st->nset + r;

		if (st->set == NULL)
			st->set = MemoryContextAlloc(cxt, cap * sizeof(uint64));
		else
			st->set = repalloc(st->set, cap * sizeof(uint64));
		st->setcap = cap;
	}
	/* from the back: each hash moves once, to its final place */
	s = st->set;
	i = st->nset;
	j = r;
	k = st->nset + r;
	while (j > 0 && i > 0)
	{
		uint64		a = s[i - 1];
		uint64		b = run[j - 1];
		uint64		from_set = a > b;

		s[--k] = from_set ? a : b;
		i -= from_set;
		j -= 1 - from_set;
	}
	while (j > 0)
		s[--k] = run[--j];
	st->nset += r;
}

/*
 * Empties the buffer into the array (or into the filter, if that makes the
 * state stream), then resizes the buffer.
 */
static void
agg_flush(SbfAggState *st, MemoryContext cxt, SbfAggScratch *scratch)
{
	uint64		r;
	uint64	   *run;
	bool		own = false;

	if (st->nbuf == 0)
		return;
	st->nrows += st->nbuf;
	if (st->nbuf <= SBF_AGG_SMALL_SORT)
		run = st->buf;			/* sorted in place */
	else if (scratch != NULL && scratch->tmpcap >= st->nbuf)
		run = scratch->tmp;
	else
	{
		run = palloc(st->nbuf * sizeof(uint64));
		own = true;
	}
	r = agg_sort_unique(st->buf, st->nbuf, run, scratch ? scratch->count : NULL);
	st->nbuf = 0;
	agg_merge(st, run, r, cxt);
	if (own)
		pfree(run);
	if (st->stream == NULL)
		agg_size_buffer(st, cxt);
}

/* Adds a hash to a state whose buffer is full (or that streams). */
static pg_noinline void
agg_add_slow(SbfAggState *st, uint64 h, MemoryContext cxt, FunctionCallInfo fcinfo)
{
	if (st->stream == NULL)
	{
		SbfAggScratch *scratch = (SbfAggScratch *) fcinfo->flinfo->fn_extra;
		MemoryContext fcxt = fcinfo->flinfo->fn_mcxt;

		/* small buffers sort in place; larger ones need the scratch */
		if (st->nbuf > SBF_AGG_SMALL_SORT)
		{
			if (scratch == NULL)
			{
				scratch = MemoryContextAllocZero(fcxt, sizeof(SbfAggScratch));
				scratch->count = MemoryContextAlloc(fcxt, ((1 << 16) + 1) * sizeof(uint32));
				fcinfo->flinfo->fn_extra = scratch;
			}
			if (scratch->tmpcap < st->nbuf)
			{
				if (scratch->tmp != NULL)
					pfree(scratch->tmp);
				scratch->tmp = MemoryContextAlloc(fcxt, st->bufcap * sizeof(uint64));
				scratch->tmpcap = st->bufcap;
			}
		}
		agg_flush(st, cxt, scratch);
	}
	if (st->stream != NULL)
	{
		agg_stream_add(st, h);
		return;
	}
	Assert(st->nbuf < st->bufcap);
	st->buf[st->nbuf++] = h;
}

/* Adds a hash to a state. */
static inline void
agg_add(SbfAggState *st, uint64 h, MemoryContext cxt, FunctionCallInfo fcinfo)
{
	if (likely(st->nbuf < st->bufcap))
		st->buf[st->nbuf++] = h;
	else
		agg_add_slow(st, h, cxt, fcinfo);
}

/* A new, empty state in cxt (error_rate already checked). */
static SbfAggState *
agg_state_new(double error_rate, MemoryContext cxt)
{
	SbfAggState *st = MemoryContextAllocZero(cxt, sizeof(SbfAggState));

	st->error_rate = error_rate;
	st->buf = st->inline_buf;
	st->bufcap = SBF_AGG_INLINE_BUF;
	return st;
}

/* A streaming copy of a filter in cxt. */
static SbfAggFilter *
agg_stream_copy(const SbfFilter *f, MemoryContext cxt)
{
	SbfAggFilter *sf = MemoryContextAlloc(cxt, sizeof(SbfAggFilter));
	SbfView		v;
	SbfStatus	status;

	sf->alloc = sbf_palloc_allocator;
	sf->alloc.ctx = cxt;
	sbf_filter_view(f, &v);
	status = sbf_copy(&sf->filter, &v, VARHDRSZ, 0, &sf->alloc);
	if (status != SBF_OK)
		sbf_report_status(status);
	return sf;
}

/*
 * A copy of src in cxt (combine keeps states from deserialize this way), its
 * buffer merged into the array.
 */
static SbfAggState *
agg_state_copy(const SbfAggState *src, MemoryContext cxt)
{
	SbfAggState *st = agg_state_new(src->error_rate, cxt);

	st->nrows = src->nrows + src->nbuf;
	if (src->stream != NULL)
	{
		st->stream = agg_stream_copy(&src->stream->filter, cxt);
		st->buf = st->inline_buf;
		st->bufcap = 0;
	}
	else
	{
		SbfAggIter	it;
		uint64	   *copy;
		uint64		n = agg_state_iter(src, &it, &copy);
		uint64	   *run = palloc(Max(n, 1) * sizeof(uint64));
		uint64		r = 0;
		uint64		h;

		while (agg_iter_next(&it, &h))
			run[r++] = h;
		if (copy != NULL)
			pfree(copy);
		/* with the buffer, src may hold more than the threshold */
		agg_merge(st, run, r, cxt);
		pfree(run);
		if (st->stream == NULL)
			agg_size_buffer(st, cxt);
	}
	return st;
}

/* Raises 22023 when a row's error_rate differs from the aggregate's. */
static void
agg_check_rate(const SbfAggState *st, double error_rate)
{
	SbfParams	p;

	if (same_double(st->error_rate, error_rate))
		return;
	agg_params(error_rate, &p);
	sbf_check_params(&p);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("sbf_agg error_rate must be the same for all rows"),
			 errdetail("The aggregate saw error_rate %s and %s.",
					   float8out_internal(st->error_rate),
					   float8out_internal(error_rate)),
			 errhint("Pass a constant error_rate.")));
}

/* The state argument of a transition function, checked to be in an Agg. */
static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggcxt;
}

/*
 * The shared transition step of sbf_agg: start the state on the first
 * non-NULL element (NULL error_rate = default), then add its hash.
 */
static Datum
agg_trans(FunctionCallInfo fcinfo, MemoryContext aggcxt, uint64 h)
{
	double		error_rate = SBF_DEFAULT_ERROR_RATE;
	SbfAggState *st;

	if (PG_NARGS() > 2 && !PG_ARGISNULL(2))
		error_rate = PG_GETARG_FLOAT8(2);
	if (PG_ARGISNULL(0))
	{
		SbfParams	p;

		agg_params(error_rate, &p);
		sbf_check_params(&p);
		st = agg_state_new(error_rate, aggcxt);
	}
	else
	{
		st = (SbfAggState *) PG_GETARG_POINTER(0);
		agg_check_rate(st, error_rate);
	}
	agg_add(st, h, aggcxt, fcinfo);
	PG_RETURN_POINTER(st);
}

/* The state unchanged, for a NULL element. */
static Datum
agg_skip(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* sbf_agg(text [, error_rate]) transition: hash of the text's bytes. */
Datum
sbf_agg_trans_text(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_agg_trans");

	if (PG_ARGISNULL(1))
		return agg_skip(fcinfo);
	return agg_trans(fcinfo, aggcxt, sbf_hash_text(PG_GETARG_TEXT_PP(1)));
}

/* sbf_agg(bigint [, error_rate]) transition: hash of 8 bytes little-endian. */
Datum
sbf_agg_trans_int8(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_agg_trans");

	if (PG_ARGISNULL(1))
		return agg_skip(fcinfo);
	return agg_trans(fcinfo, aggcxt, sbf_hash_int64(PG_GETARG_INT64(1)));
}

/* sbf_agg(bytea [, error_rate]) transition: hash of the bytes. */
Datum
sbf_agg_trans_bytea(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_agg_trans");

	if (PG_ARGISNULL(1))
		return agg_skip(fcinfo);
	return agg_trans(fcinfo, aggcxt, sbf_hash_bytea(PG_GETARG_BYTEA_PP(1)));
}

/* A varlena copy of a mutable filter's payload. */
static ScalableBloom *
agg_filter_copy(const SbfFilter *f)
{
	ScalableBloom *result = palloc(VARHDRSZ + f->len);

	SET_VARSIZE(result, VARHDRSZ + f->len);
	memcpy(result->data, SBF_PAYLOAD(f), f->len);
	return result;
}

/*
 * sbf_agg final: one segment right-sized for the n distinct hashes, or a copy
 * of the streaming filter.  The state is only read.
 */
Datum
sbf_agg_final(PG_FUNCTION_ARGS)
{
	SbfAggState *st;
	SbfFilter	f;
	SbfParams	p;
	SbfStatus	status;
	SbfAggIter	it;
	uint64	   *copy;
	uint64		n;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (SbfAggState *) PG_GETARG_POINTER(0);
	if (st->stream != NULL)
		PG_RETURN_SCALABLEBLOOM_P(agg_filter_copy(&st->stream->filter));

	n = agg_state_iter(st, &it, &copy);
	agg_params(st->error_rate, &p);
	status = sbf_create_sized(&f, &p, Max(n, 1), VARHDRSZ, &sbf_palloc_allocator);
	if (status != SBF_OK)
		sbf_report_status(status);
	/* ascending order: the result depends only on the set */
	agg_filter_add_all(&f, &it);
	if (copy != NULL)
		pfree(copy);
	PG_RETURN_SCALABLEBLOOM_P(sbf_filter_finish(&f));
}

/*
 * sbf_agg combine: exact union of the hash sets.  A streaming side takes the
 * other side's hashes as ordinary adds; only when both sides streamed are two
 * filters united, whose FPR bound is then the sum of both bounds (<= 2e).
 * The second state is only read.
 */
Datum
sbf_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_agg_combine");
	SbfAggState *st1 = PG_ARGISNULL(0) ? NULL : (SbfAggState *) PG_GETARG_POINTER(0);
	SbfAggState *st2 = PG_ARGISNULL(1) ? NULL : (SbfAggState *) PG_GETARG_POINTER(1);
	SbfAggIter	it;
	uint64	   *copy;
	uint64		n;
	uint64		h;

	if (st2 == NULL)
	{
		if (st1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st1);
	}
	if (st1 == NULL)
		PG_RETURN_POINTER(agg_state_copy(st2, aggcxt));
	agg_check_rate(st1, st2->error_rate);

	if (st2->stream == NULL)
	{
		n = agg_state_iter(st2, &it, &copy);
		if (st1->stream != NULL)
			agg_filter_add_all(&st1->stream->filter, &it);
		else if (n > 0)
		{
			/* st2's hashes as one sorted run (agg_merge changes its run) */
			uint64	   *run = palloc(n * sizeof(uint64));
			uint64		r = 0;

			while (agg_iter_next(&it, &h))
				run[r++] = h;
			agg_flush(st1, aggcxt, NULL);
			if (st1->stream != NULL)
			{
				agg_iter_start(&it, run, r, NULL, 0);
				agg_filter_add_all(&st1->stream->filter, &it);
			}
			else
			{
				st1->nrows += st2->nrows + st2->nbuf;
				agg_merge(st1, run, r, aggcxt);
				if (st1->stream == NULL)
					agg_size_buffer(st1, aggcxt);
			}
			pfree(run);
		}
		if (copy != NULL)
			pfree(copy);
	}
	else if (st1->stream == NULL)
	{
		SbfAggFilter *sf = agg_stream_copy(&st2->stream->filter, aggcxt);

		n = agg_state_iter(st1, &it, &copy);
		agg_filter_add_all(&sf->filter, &it);
		if (copy != NULL)
			pfree(copy);
		agg_release(st1);
		st1->stream = sf;
	}
	else
	{
		SbfView		v;
		SbfStatus	status;

		sbf_filter_view(&st2->stream->filter, &v);
		status = sbf_union(&st1->stream->filter, &v);
		if (status != SBF_OK)
			sbf_report_status(status);
	}
	PG_RETURN_POINTER(st1);
}

/* Writes the serialized header. */
static void
agg_serial_header(uint8 *p, uint8 mode, double error_rate, uint64 count)
{
	uint64		bits;

	memcpy(&bits, &error_rate, sizeof(bits));
	p[0] = SBF_AGG_SERIAL_VERSION;
	p[1] = mode;
	memset(p + 2, 0, 6);
	agg_store64(p + 8, bits);
	agg_store64(p + 16, count);
}

/* sbf_agg serialize: the versioned bytea described above. */
Datum
sbf_agg_serialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_agg_serialize");
	SbfAggState *st;
	bytea	   *result;
	uint8	   *p;
	uint64		i;

	st = (SbfAggState *) PG_GETARG_POINTER(0);

	/*
	 * Empty the buffer first (the set stays the same), so that a state whose
	 * buffer takes it past the threshold is sent as the filter it becomes.
	 */
	if (st->stream == NULL)
		agg_flush(st, aggcxt, NULL);
	if (st->stream != NULL)
	{
		const SbfFilter *f = &st->stream->filter;

		result = palloc(VARHDRSZ + SBF_AGG_SERIAL_HEADER + f->len);
		SET_VARSIZE(result, VARHDRSZ + SBF_AGG_SERIAL_HEADER + f->len);
		p = (uint8 *) VARDATA(result);
		agg_serial_header(p, SBF_AGG_MODE_FILTER, st->error_rate, 0);
		memcpy(p + SBF_AGG_SERIAL_HEADER, SBF_PAYLOAD(f), f->len);
		PG_RETURN_BYTEA_P(result);
	}

	/* nset <= 10 Mi, so this is at most 80 MB */
	result = palloc(VARHDRSZ + SBF_AGG_SERIAL_HEADER + st->nset * sizeof(uint64));
	SET_VARSIZE(result, VARHDRSZ + SBF_AGG_SERIAL_HEADER + st->nset * sizeof(uint64));
	p = (uint8 *) VARDATA(result);
	agg_serial_header(p, SBF_AGG_MODE_SET, st->error_rate, st->nset);
	p += SBF_AGG_SERIAL_HEADER;
	for (i = 0; i < st->nset; i++)
		agg_store64(p + i * sizeof(uint64), st->set[i]);
	PG_RETURN_BYTEA_P(result);
}

/* Raises 22P03 for a malformed serialized sbf_agg state. */
static void
agg_bad_state(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid sbf_agg state"),
			 errdetail("%s", detail)));
}

/*
 * sbf_agg deserialize: checks every field before allocating anything; the
 * array it builds is the input's size.
 */
Datum
sbf_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b;
	const uint8 *p;
	size_t		len;
	double		error_rate;
	uint64		bits;
	uint64		count;
	uint64		prev = 0;
	uint64		i;
	SbfAggState *st;
	int			r;

	(void) agg_context(fcinfo, "sbf_agg_deserialize");
	b = PG_GETARG_BYTEA_PP(0);
	p = (const uint8 *) VARDATA_ANY(b);
	len = VARSIZE_ANY_EXHDR(b);

	if (len < SBF_AGG_SERIAL_HEADER)
		agg_bad_state("The state is shorter than its header.");
	if (p[0] != SBF_AGG_SERIAL_VERSION)
		agg_bad_state("The state has an unknown version.");
	if (p[1] != SBF_AGG_MODE_SET && p[1] != SBF_AGG_MODE_FILTER)
		agg_bad_state("The state has an unknown mode.");
	for (r = 2; r < 8; r++)
		if (p[r] != 0)
			agg_bad_state("A reserved field of the state is not zero.");
	bits = agg_load64(p + 8);
	memcpy(&error_rate, &bits, sizeof(error_rate));
	if (!(error_rate > 0.0 && error_rate < 0.5))
		agg_bad_state("The state has an error_rate outside (0, 0.5).");
	count = agg_load64(p + 16);

	if (p[1] == SBF_AGG_MODE_FILTER)
	{
		SbfView		v;

		if (count != 0)
			agg_bad_state("A filter state has a nonzero hash count.");
		sbf_check_payload(p + SBF_AGG_SERIAL_HEADER, len - SBF_AGG_SERIAL_HEADER, &v);
		if (!same_double(v.error_rate, error_rate))
			agg_bad_state("The filter's error_rate differs from the state's.");
		st = agg_state_new(error_rate, CurrentMemoryContext);
		st->stream = palloc(sizeof(SbfAggFilter));
		st->stream->alloc = sbf_palloc_allocator;
		st->stream->alloc.ctx = CurrentMemoryContext;
		{
			SbfStatus	status = sbf_copy(&st->stream->filter, &v, VARHDRSZ, 0,
										  &st->stream->alloc);

			if (status != SBF_OK)
				sbf_report_status(status);
		}
		st->bufcap = 0;
		PG_RETURN_POINTER(st);
	}

	if (count < 1 || count > SBF_AGG_STREAM_THRESHOLD)
		agg_bad_state("The state's hash count is out of range.");
	if ((len - SBF_AGG_SERIAL_HEADER) % sizeof(uint64) != 0 ||
		(len - SBF_AGG_SERIAL_HEADER) / sizeof(uint64) != count)
		agg_bad_state("The state's length does not match its hash count.");
	p += SBF_AGG_SERIAL_HEADER;
	for (i = 0; i < count; i++)
	{
		uint64		h = agg_load64(p + i * sizeof(uint64));

		if (i > 0 && h <= prev)
			agg_bad_state("The state's hashes are not strictly ascending.");
		prev = h;
	}

	st = agg_state_new(error_rate, CurrentMemoryContext);
	st->set = palloc(count * sizeof(uint64));
	st->setcap = st->nset = count;
	st->nrows = count;
	for (i = 0; i < count; i++)
		st->set[i] = agg_load64(p + i * sizeof(uint64));
	agg_size_buffer(st, CurrentMemoryContext);
	PG_RETURN_POINTER(st);
}
