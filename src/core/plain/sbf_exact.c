/*
 * sbf_exact.c
 *	  The exact small form of format 2 (sbf_core.h, "Exact form" and WRITES):
 *	  adding a run of hashes to it and deciding when it converts to segments.
 *	  A leaf under the filter: the conversion and the add that converts are
 *	  in sbf_filter.c (sbf_convert, sbf_exact_add), the union of exact values
 *	  in sbf_union_many.c.
 *
 * The exact form is kept exactly while it is no larger than the segmented
 * value that would hold the same hashes, so that nothing grows past what 1.0
 * would have built; SBF_EXACT_MAX bounds an add's memmove whatever the
 * first segment's size.
 */
#include <math.h>

#include "sbf_internal.h"
#include "sbf_plain.h"

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
bool
sbf_exact_fits(const SbfView *v, const uint64_t *extra, uint32_t nextra)
{
	uint64_t	n = (uint64_t) v->nhashes + nextra;
	uint64_t	bytes = SBF_EXACT_HEADER_BYTES + n * 8;

	if (n > SBF_EXACT_MAX)
		return false;
	return segmented_size(v, n, hll_bytes_of(v, extra, nextra),
						  bytes) >= bytes;
}

/* sbf_plain.h */
uint64_t
sbf_exact_agg_room(double error_rate, double tightening, uint16_t growth,
				   uint64_t n0, uint64_t upto)
{
	SbfView		v;
	uint64_t	n;

	memset(&v, 0, sizeof(v));
	v.error_rate = error_rate;
	v.tightening = tightening;
	v.growth = growth;
	v.capacity = SBF_DEFAULT_CAPACITY;
	v.first_capacity = n0;
	v.first_error = sbf_sized_error(error_rate, tightening);
	for (n = n0; n >= 1 && n <= SBF_EXACT_MAX && n <= upto; n++)
	{
		uint64_t	bytes = SBF_EXACT_HEADER_BYTES + n * 8;
		size_t		hll = n <= SBF_HLL_SPARSE_MAX(SBF_HLL_P_DEFAULT) ?
			(size_t) n * 4 : SBF_HLL_DENSE_BYTES(SBF_HLL_P_DEFAULT);

		if (segmented_size(&v, n, hll, bytes) < bytes)
			break;
	}
	return n > n0 ? n - 1 : 0;
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
			break;				/* sbf_exact_fits says no: the caller converts */
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
