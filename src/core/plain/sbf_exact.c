/*
 * sbf_exact.c
 *	  The exact small form of format 2 (sbf_core.h, "Exact form" and WRITES):
 *	  adding to it, deciding when it converts to segments, converting, and
 *	  the union of exact values.
 *
 * The exact form is kept exactly while it is no larger than the segmented
 * value that would hold the same hashes, so that nothing grows past what 1.0
 * would have built; SBF_EXACT_MAX bounds an add's memmove whatever the
 * first segment's size.
 */
#include <math.h>
#include <stdlib.h>

#include "sbf_internal.h"

/* Marks in map the HyperLogLog register (p bits) of hash x: bit r for register r. */
static inline void
hll_map_set(uint64_t *map, uint64_t x, int p)
{
	uint32_t	r = (uint32_t) (x & (SBF_HLL_REGISTERS(p) - 1));

	map[r / 64] |= (uint64_t) 1 << (r % 64);
}

/* HyperLogLog area bytes for nz nonzero registers: sparse 4 each, or dense. */
static inline size_t
hll_bytes_for(size_t nz, int p)
{
	return nz <= SBF_HLL_SPARSE_MAX(p) ? nz * 4 : SBF_HLL_DENSE_BYTES(p);
}

/*
 * Fills map (cleared here) with the registers the hashes of an exact view
 * use, and returns how many there are.
 */
static size_t
hll_map_of(const SbfView *v, uint64_t *map)
{
	size_t		nwords = (SBF_HLL_REGISTERS(v->hll_p) + 63) / 64;
	size_t		nz = 0;
	size_t		w;
	uint32_t	i;

	memset(map, 0, nwords * sizeof(uint64_t));
	for (i = 0; i < v->nhashes; i++)
		hll_map_set(map, sbf_exact_hash(v, i), v->hll_p);
	for (w = 0; w < nwords; w++)
		nz += (size_t) sbf_popcount64(map[w]);
	return nz;
}

/*
 * Bytes of the HyperLogLog area of the hashes of an exact view plus an
 * optional extra array (none of them in it).
 */
static size_t
hll_bytes_of(const SbfView *v, const uint64_t *extra, uint32_t nextra)
{
	uint64_t	map[SBF_HLL_REGISTERS(SBF_HLL_P_MAX) / 64];
	size_t		nz = hll_map_of(v, map);
	uint32_t	i;

	for (i = 0; i < nextra; i++)
	{
		uint32_t	r = (uint32_t) (extra[i] & (SBF_HLL_REGISTERS(v->hll_p) - 1));

		nz += (map[r / 64] >> (r % 64) & 1) == 0;
		hll_map_set(map, extra[i], v->hll_p);
	}
	return hll_bytes_for(nz, v->hll_p);
}

/*
 * Bytes of the segmented value that would hold n elements of an exact view:
 * its first segment, then segments as SIZING appends them (each filled to
 * capacity first), plus hll bytes.  Stops as soon as the total passes limit
 * (the answer is then just "more than limit").
 */
static uint64_t
segmented_size(const SbfView *v, uint64_t n, size_t hll, uint64_t limit)
{
	uint64_t	total = SBF_HEADER_BYTES + (uint64_t) hll;
	uint64_t	held = 0;
	uint64_t	cap = v->first_capacity;
	uint64_t	maxcap = 0;
	uint64_t	geo = v->capacity;
	double		err = v->first_error;
	double		spent = sbf_chain_spent(v->flags, v->error_rate, v->tightening,
										v->first_error);
	double		smallest = 0.5;
	uint32_t	nseg = 0;

	for (;;)
	{
		uint64_t	m;
		uint32_t	k;

		if (!sbf_segment_geometry(cap, err, SBF_MAX_SEGMENT_BITS, &m, &k))
			return UINT64_MAX;
		total += SBF_SEGDIR_BYTES + sbf_words_bytes(m);
		nseg++;
		held = cap > UINT64_MAX - held ? UINT64_MAX : held + cap;
		if (held >= n || total > limit)
			return total;
		if (nseg >= SBF_MAX_SEGMENTS)
			return UINT64_MAX;
		spent += err;
		if (err < smallest)
			smallest = err;
		if (cap > maxcap)
			maxcap = cap;
		geo = geo > UINT64_MAX / v->growth ? UINT64_MAX : geo * v->growth;
		cap = maxcap > UINT64_MAX / v->growth ? UINT64_MAX : maxcap * v->growth;
		if (geo < cap)
			cap = geo;
		err = sbf_next_error(v->error_rate, v->tightening, spent, smallest);
	}
}

/*
 * Whether an exact view plus the nextra extra hashes (none of them in it)
 * should stay exact: at most SBF_EXACT_MAX hashes and no larger than the
 * segmented value holding them.
 */
static bool
exact_fits(const SbfView *v, const uint64_t *extra, uint32_t nextra)
{
	uint64_t	n = (uint64_t) v->nhashes + nextra;
	uint64_t	bytes = SBF_EXACT_HEADER_BYTES + n * 8;

	if (n > SBF_EXACT_MAX)
		return false;
	return segmented_size(v, n, hll_bytes_of(v, extra, nextra),
						  bytes) >= bytes;
}

/*
 * Builds into g the segmented value of an exact view's header holding the
 * ascending hashes h[0..n): its first segment, then one add per hash.
 */
static SbfStatus
build_segments(SbfFilter *g, const SbfView *v, const uint64_t *h, size_t n,
			   size_t prefix, const SbfAllocator *a)
{
	SbfParams	p;
	SbfStatus	st;

	sbf_view_params(v, &p);
	st = sbf_create_segments(g, &p, v->first_capacity, v->first_error,
							 v->flags & SBF_FLAG_CHAIN, prefix, a);
	if (st != SBF_OK)
		return st;
	st = sbf_add_hashes(g, h, n);
	if (st != SBF_OK)
		sbf_filter_free(g);
	return st;
}

/* Copies the hashes of an exact view into a new array (NULL if no memory). */
uint64_t *
sbf_exact_hashes(const SbfView *v, const SbfAllocator *a)
{
	/* one more than needed: an empty view still gets an allocation */
	uint64_t   *h = a->alloc(((size_t) v->nhashes + 1) * 8, a->ctx);
	uint32_t	i;

	if (h != NULL)
		for (i = 0; i < v->nhashes; i++)
			h[i] = sbf_exact_hash(v, i);
	return h;
}

/* Replaces f's buffer with g's (same prefix and allocator). */
static void
replace_filter(SbfFilter *f, SbfFilter *g)
{
	sbf_filter_free(f);
	*f = *g;
}

/* Converts an exact filter to the segmented form (no-op if segmented). */
SbfStatus
sbf_convert(SbfFilter *f)
{
	const SbfAllocator *a = f->a;
	SbfView		v;
	SbfFilter	g;
	uint64_t   *h;
	SbfStatus	st;

	sbf_upgrade_v4(f);
	sbf_filter_view(f, &v);
	if (!sbf_is_exact(&v))
		return SBF_OK;
	h = sbf_exact_hashes(&v, a);
	if (h == NULL)
		return SBF_E_NOMEM;
	st = build_segments(&g, &v, h, v.nhashes, f->prefix, a);
	a->free(h, a->ctx);
	if (st == SBF_OK)
		replace_filter(f, &g);
	return st;
}

/*
 * Adds h to an exact filter: a sorted insert while the form stays small,
 * else a conversion and then the segmented add.
 */
SbfStatus
sbf_exact_add(SbfFilter *f, uint64_t h, bool *inserted)
{
	SbfView		v;
	uint8_t    *buf;
	uint32_t	pos;
	bool		found;
	SbfStatus	st;

	sbf_filter_view(f, &v);
	pos = sbf_exact_search(&v, h, &found);
	if (found)
		return SBF_OK;
	if (!exact_fits(&v, &h, 1))
	{
		/* convert into a new buffer, so that a failure leaves f as it was */
		SbfFilter	g;
		uint64_t   *hs = sbf_exact_hashes(&v, f->a);

		if (hs == NULL)
			return SBF_E_NOMEM;
		st = build_segments(&g, &v, hs, v.nhashes, f->prefix, f->a);
		f->a->free(hs, f->a->ctx);
		if (st != SBF_OK)
			return st;
		st = sbf_add_hash(&g, h, inserted);
		if (st != SBF_OK)
		{
			sbf_filter_free(&g);
			return st;
		}
		replace_filter(f, &g);
		return SBF_OK;
	}
	st = sbf_filter_reserve(f, f->len + 8);
	if (st != SBF_OK)
		return st;
	buf = SBF_PAYLOAD(f) + SBF_EXACT_HEADER_BYTES;
	memmove(buf + ((size_t) pos + 1) * 8, buf + (size_t) pos * 8,
			((size_t) v.nhashes - pos) * 8);
	sbf_store64(buf + (size_t) pos * 8, h);
	sbf_store32(SBF_PAYLOAD(f) + SBF_OFF_NHASHES, v.nhashes + 1);
	f->len += 8;
	if (inserted)
		*inserted = true;
	return SBF_OK;
}

/*
 * Adds the longest strictly ascending run at the start of h[0..n) to an
 * exact filter, as sbf_exact_add would one hash at a time, but stops before
 * the first hash that would convert it; *used is how many hashes were taken
 * (hashes it already holds count as taken).  The caller hands h[*used] to
 * sbf_add_hash, which converts, or starts the next run.  One sbf_exact_add
 * costs O(n) for the HyperLogLog size of the grown form; here that size is
 * kept incrementally, so a build of n hashes is O(n) instead of O(n^2).
 */
SbfStatus
sbf_exact_add_run(SbfFilter *f, const uint64_t *h, size_t n, size_t *used)
{
	uint64_t	map[SBF_HLL_REGISTERS(SBF_HLL_P_MAX) / 64];
	SbfView		v;
	uint32_t	mask;
	size_t		nz;
	size_t		i;
	size_t		nnew = 0;
	uint32_t	j = 0;
	uint64_t   *fresh;
	uint8_t    *buf;
	uint64_t	w;
	uint32_t	old;
	SbfStatus	st;

	*used = 0;
	sbf_filter_view(f, &v);
	mask = SBF_HLL_REGISTERS(v.hll_p) - 1;
	nz = hll_map_of(&v, map);
	/* at most SBF_EXACT_MAX hashes can join: the form never holds more */
	fresh = f->a->alloc(sizeof(uint64_t) * (n < SBF_EXACT_MAX ? n : SBF_EXACT_MAX) + 8,
						f->a->ctx);
	if (fresh == NULL)
		return SBF_E_NOMEM;
	for (i = 0, j = 0; i < n && (i == 0 || h[i] > h[i - 1]); i++)
	{
		uint32_t	r = (uint32_t) (h[i] & mask);
		size_t		nz2 = nz + ((map[r / 64] >> (r % 64) & 1) == 0);
		uint64_t	total = (uint64_t) v.nhashes + nnew + 1;
		uint64_t	bytes = SBF_EXACT_HEADER_BYTES + total * 8;
		size_t		hll;

		while (j < v.nhashes && sbf_exact_hash(&v, j) < h[i])
			j++;
		if (j < v.nhashes && sbf_exact_hash(&v, j) == h[i])
			continue;			/* already there: sbf_exact_add's no-op */
		hll = hll_bytes_for(nz2, v.hll_p);
		if (total > SBF_EXACT_MAX || segmented_size(&v, total, hll, bytes) < bytes)
			break;				/* exact_fits says no: the caller converts */
		hll_map_set(map, h[i], v.hll_p);
		nz = nz2;
		fresh[nnew++] = h[i];
	}
	*used = i;
	if (nnew == 0)
	{
		f->a->free(fresh, f->a->ctx);
		return SBF_OK;
	}
	st = sbf_filter_reserve(f, f->len + nnew * 8);
	if (st != SBF_OK)
	{
		f->a->free(fresh, f->a->ctx);
		*used = 0;
		return st;
	}
	/* merge the two ascending runs from the back, in place */
	buf = SBF_PAYLOAD(f) + SBF_EXACT_HEADER_BYTES;
	old = v.nhashes;
	w = (uint64_t) old + nnew;
	sbf_store32(SBF_PAYLOAD(f) + SBF_OFF_NHASHES, (uint32_t) w);
	f->len += nnew * 8;
	while (nnew > 0)
	{
		uint64_t	x = old > 0 ? sbf_load64(buf + (size_t) (old - 1) * 8) : 0;

		if (old > 0 && x > fresh[nnew - 1])
		{
			sbf_store64(buf + (size_t) (--w) * 8, x);
			old--;
		}
		else
			sbf_store64(buf + (size_t) (--w) * 8, fresh[--nnew]);
	}
	f->a->free(fresh, f->a->ctx);
	return SBF_OK;
}

/* Orders uint64_t ascending (qsort). */
static int
hash_cmp(const void *pa, const void *pb)
{
	uint64_t	x = *(const uint64_t *) pa;
	uint64_t	y = *(const uint64_t *) pb;

	return x < y ? -1 : x > y;
}

/*
 * Whether exact view x's first segment comes before y's in the header rule
 * of sbf_exact_union: larger first capacity, then smaller first error, then
 * smaller error_rate.  A total order on what can differ, so the pick does
 * not depend on the inputs' order.
 */
static bool
header_before(const SbfView *x, const SbfView *y)
{
	if (x->first_capacity != y->first_capacity)
		return x->first_capacity > y->first_capacity;
	if (x->first_error != y->first_error)
		return x->first_error < y->first_error;
	return x->error_rate < y->error_rate;
}

/*
 * The union of n exact views (see sbf_internal.h).  The result's header is
 * a function of the set of inputs: first capacity and first error of the
 * input first in header_before's order (its first error scaled by
 * error_rate / that input's error_rate when the union sets a smaller
 * error_rate of its own, so the first segment keeps its share of the
 * budget; never scaled up, so converted hashes spend no more than the
 * input's own segments would), the
 * largest capacity, the smallest hll_p, CHAIN only when every input has
 * it.  The hashes are the sorted distinct union; the result stays exact
 * while exact_fits says so, else it is built as a series of ascending adds
 * to that first segment, like a conversion.
 */
SbfStatus
sbf_exact_union(SbfFilter *out, const SbfView *in, uint32_t n,
				double error_rate, size_t prefix, const SbfAllocator *a)
{
	const SbfView *pick = &in[0];
	uint64_t	total = 0;
	uint64_t	capacity = 0;
	uint64_t	nh = 0;
	uint64_t	m;
	uint32_t	k;
	uint8_t		chain = SBF_FLAG_CHAIN;
	int			hll_p = SBF_HLL_P_MAX;
	double		rate;
	double		first_error;
	uint64_t   *h;
	uint8_t    *base;
	uint8_t    *buf;
	size_t		len;
	uint32_t	i;
	uint64_t	j;
	SbfView		v;
	SbfStatus	st;

	sbf_filter_start(out, prefix, a);
	if (n == 0)
		return SBF_E_PARAM;
	for (i = 0; i < n; i++)
	{
		total += in[i].nhashes;
		if (header_before(&in[i], pick))
			pick = &in[i];
		if (in[i].capacity > capacity)
			capacity = in[i].capacity;
		if (in[i].hll_p < hll_p)
			hll_p = in[i].hll_p;
		chain &= in[i].flags;
	}
	rate = error_rate > 0.0 ? error_rate : pick->error_rate;
	first_error = pick->first_error;
	/* never scaled up: its segments then spend what the input's would */
	if (rate < pick->error_rate)
		first_error = first_error * (rate / pick->error_rate);
	if (!(first_error > 0.0 && first_error < 0.5) ||
		!sbf_segment_geometry(pick->first_capacity, first_error,
							  SBF_MAX_SEGMENT_BITS, &m, &k))
		return SBF_E_TOO_LARGE;

	/* every input is at most SBF_EXACT_MAX hashes: no overflow */
	h = a->alloc(((size_t) total + 1) * 8, a->ctx);
	if (h == NULL)
		return SBF_E_NOMEM;
	for (i = 0; i < n; i++)
	{
		for (j = 0; j < in[i].nhashes; j++)
			h[nh++] = sbf_exact_hash(&in[i], (uint32_t) j);
		sbf_check_interrupt(a);
	}
	qsort(h, (size_t) nh, 8, hash_cmp);
	total = nh;
	nh = 0;
	for (j = 0; j < total; j++)
		if (nh == 0 || h[j] != h[nh - 1])
			h[nh++] = h[j];

	/* the exact result (only its header when there are too many hashes) */
	len = SBF_EXACT_HEADER_BYTES + (nh <= SBF_EXACT_MAX ? (size_t) nh * 8 : 0);
	if (prefix > SIZE_MAX - len)
	{
		a->free(h, a->ctx);
		return SBF_E_TOO_LARGE;
	}
	base = a->alloc(prefix + len, a->ctx);
	if (base == NULL)
	{
		a->free(h, a->ctx);
		return SBF_E_NOMEM;
	}
	memset(base, 0, prefix + len);
	buf = base + prefix;
	buf[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
	buf[SBF_OFF_FLAGS] = SBF_FLAG_EXACT | chain;
	buf[SBF_OFF_HASH] = pick->hash_id;
	buf[SBF_OFF_HLL_P] = (uint8_t) hll_p;
	sbf_store16(buf + SBF_OFF_GROWTH, pick->growth);
	sbf_store32(buf + SBF_OFF_NHASHES, (uint32_t) (len - SBF_EXACT_HEADER_BYTES) / 8);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, rate);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, pick->tightening);
	sbf_store64(buf + SBF_OFF_CAPACITY, capacity);
	sbf_store64(buf + SBF_OFF_FIRST_CAPACITY, pick->first_capacity);
	sbf_store_double(buf + SBF_OFF_FIRST_ERROR, first_error);
	for (j = 0; j < (len - SBF_EXACT_HEADER_BYTES) / 8; j++)
		sbf_store64(buf + SBF_EXACT_HEADER_BYTES + j * 8, h[j]);
	st = sbf_validate(buf, len, &v);
	if (st == SBF_OK && nh <= SBF_EXACT_MAX && exact_fits(&v, NULL, 0))
	{
		out->base = base;
		out->len = len;
		out->cap = len;
	}
	else
	{
		if (st == SBF_OK)
			st = build_segments(out, &v, h, (size_t) nh, prefix, a);
		a->free(base, a->ctx);
	}
	a->free(h, a->ctx);
	return st;
}
