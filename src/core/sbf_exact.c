/*
 * sbf_exact.c
 *	  The exact small form of format 2 (sbf_core.h, "Exact form" and WRITES):
 *	  adding to it, deciding when it converts to segments, converting, and
 *	  the exact cases of a union.
 *
 * The exact form is kept exactly while it is no larger than the segmented
 * value that would hold the same hashes, so that nothing grows past what 1.0
 * would have built; SBF_EXACT_MAX bounds an add's memmove whatever the
 * first segment's size.
 */
#include <math.h>

#include "sbf_internal.h"

/*
 * Bytes of the HyperLogLog area of the hashes of an exact view plus an
 * optional extra array: sparse 4 bytes per nonzero register, or dense.
 */
static size_t
hll_bytes_of(const SbfView *v, const uint64_t *extra, uint32_t nextra, int p)
{
	uint64_t	map[SBF_HLL_REGISTERS(SBF_HLL_P_MAX) / 64];
	uint32_t	mask = SBF_HLL_REGISTERS(p) - 1;
	size_t		nwords = (SBF_HLL_REGISTERS(p) + 63) / 64;
	size_t		nz = 0;
	size_t		w;
	uint32_t	i;

	memset(map, 0, nwords * sizeof(uint64_t));
	for (i = 0; i < v->nhashes; i++)
	{
		uint32_t	r = (uint32_t) (sbf_exact_hash(v, i) & mask);

		map[r / 64] |= (uint64_t) 1 << (r % 64);
	}
	for (i = 0; i < nextra; i++)
	{
		uint32_t	r = (uint32_t) (extra[i] & mask);

		map[r / 64] |= (uint64_t) 1 << (r % 64);
	}
	for (w = 0; w < nwords; w++)
		nz += (size_t) sbf_popcount64(map[w]);
	return nz <= SBF_HLL_SPARSE_MAX(p) ? nz * 4 : SBF_HLL_DENSE_BYTES(p);
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
	return segmented_size(v, n, hll_bytes_of(v, extra, nextra, v->hll_p),
						  bytes) >= bytes;
}

/* Parameters stored in a view's header. */
static void
view_params(const SbfView *v, SbfParams *p)
{
	p->capacity = v->capacity;
	p->error_rate = v->error_rate;
	p->tightening = v->tightening;
	p->growth = v->growth;
	p->hll_p = v->hll_p;
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

	view_params(v, &p);
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
static uint64_t *
exact_hashes(const SbfView *v, const SbfAllocator *a, uint32_t extra)
{
	uint64_t   *h = a->alloc(((size_t) v->nhashes + extra + 1) * 8, a->ctx);
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

	sbf_upgrade_v1(f);
	sbf_filter_view(f, &v);
	if (!sbf_is_exact(&v))
		return SBF_OK;
	h = exact_hashes(&v, a, 0);
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
		uint64_t   *hs = exact_hashes(&v, f->a, 0);

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

/* True when two doubles have the same bits. */
static bool
same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

/*
 * True when every segment of src has a segment of equal geometry in dst that
 * already has all its bits.
 */
static bool
segments_contained(const SbfView *dv, const SbfView *sv)
{
	size_t		soff = sv->bits_offset;
	uint32_t	i;

	for (i = 0; i < sv->nsegments; i++)
	{
		SbfSegment	ss;
		size_t		doff = dv->bits_offset;
		bool		found = false;
		uint32_t	j;

		sbf_read_segment(sv->buf, i, &ss);
		for (j = 0; j < dv->nsegments && !found; j++)
		{
			SbfSegment	ds;

			sbf_read_segment(dv->buf, j, &ds);
			if (ds.nbits == ss.nbits && ds.k == ss.k)
			{
				uint64_t	nw = sbf_words_bytes(ss.nbits) / 8;
				uint64_t	w;

				found = true;
				for (w = 0; w < nw && found; w++)
				{
					uint64_t	x;
					uint64_t	y;

					memcpy(&x, dv->buf + doff + w * 8, 8);
					memcpy(&y, sv->buf + soff + w * 8, 8);
					found = (y & ~x) == 0;
				}
			}
			doff += (size_t) sbf_words_bytes(ds.nbits);
		}
		if (!found)
			return false;
		soff += (size_t) sbf_words_bytes(ss.nbits);
	}
	return true;
}

/* Union of two exact operands: the merged hash list, exact if it fits. */
static SbfStatus
union_exact_exact(SbfFilter *dst, const SbfView *dv, const SbfView *sv)
{
	const SbfAllocator *a = dst->a;
	uint64_t   *h;
	uint64_t   *extra;
	uint32_t	n = 0;
	uint32_t	nextra = 0;
	uint32_t	i = 0;
	uint32_t	j = 0;
	SbfView		hv = *dv;
	uint8_t    *buf;
	SbfStatus	st;

	h = a->alloc(((size_t) dv->nhashes + sv->nhashes + 1) * 8 * 2, a->ctx);
	if (h == NULL)
		return SBF_E_NOMEM;
	extra = h + dv->nhashes + sv->nhashes + 1;
	/* merge; extra collects src's hashes that dst lacks */
	while (i < dv->nhashes || j < sv->nhashes)
	{
		uint64_t	x = i < dv->nhashes ? sbf_exact_hash(dv, i) : UINT64_MAX;
		uint64_t	y = j < sv->nhashes ? sbf_exact_hash(sv, j) : UINT64_MAX;

		if (i < dv->nhashes && (j >= sv->nhashes || x <= y))
		{
			h[n++] = x;
			i++;
			if (j < sv->nhashes && x == y)
				j++;
		}
		else
		{
			h[n++] = y;
			extra[nextra++] = y;
			j++;
		}
	}
	/* the result's HyperLogLog precision is the smaller one, as in 1.0 */
	if (sv->hll_p < hv.hll_p)
		hv.hll_p = sv->hll_p;
	if (exact_fits(&hv, extra, nextra))
	{
		st = sbf_filter_reserve(dst, SBF_EXACT_HEADER_BYTES + (size_t) n * 8);
		if (st == SBF_OK)
		{
			buf = SBF_PAYLOAD(dst);
			for (i = 0; i < n; i++)
				sbf_store64(buf + SBF_EXACT_HEADER_BYTES + (size_t) i * 8, h[i]);
			sbf_store32(buf + SBF_OFF_NHASHES, n);
			buf[SBF_OFF_HLL_P] = hv.hll_p;
			if (!(sv->flags & SBF_FLAG_CHAIN))
				buf[SBF_OFF_FLAGS] &= (uint8_t) ~SBF_FLAG_CHAIN;
			dst->len = SBF_EXACT_HEADER_BYTES + (size_t) n * 8;
		}
	}
	else
	{
		SbfFilter	g;

		if (!(sv->flags & SBF_FLAG_CHAIN))
			hv.flags &= (uint8_t) ~SBF_FLAG_CHAIN;
		st = build_segments(&g, &hv, h, n, dst->prefix, a);
		if (st == SBF_OK)
			replace_filter(dst, &g);
	}
	a->free(h, a->ctx);
	return st;
}

/*
 * The exact cases of sbf_union, and version-1 sources.  For two segmented
 * values it only sets dst's version and flags (OVERLAP unless src's
 * segments lie in dst's; CHAIN only if both have it) and leaves the rest to
 * sbf_union (*handled false), which restores those two bytes if it fails.
 */
SbfStatus
sbf_union_dispatch(SbfFilter *dst, const SbfView *src, bool *handled)
{
	const SbfAllocator *a = dst->a;
	SbfView		dv;
	SbfStatus	st;

	*handled = true;
	if (src->version == SBF_FORMAT_V1)
	{
		/* a relabelled copy, as a write of that value would make it */
		SbfView		sv = *src;
		uint8_t    *copy = a->alloc(src->len, a->ctx);

		if (copy == NULL)
			return SBF_E_NOMEM;
		memcpy(copy, src->buf, src->len);
		copy[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
		copy[SBF_OFF_FLAGS] |= SBF_FLAG_OVERLAP;
		sv.buf = copy;
		sv.version = SBF_FORMAT_VERSION;
		sv.flags = copy[SBF_OFF_FLAGS];
		st = sbf_union(dst, &sv);
		a->free(copy, a->ctx);
		return st;
	}
	sbf_upgrade_v1(dst);
	sbf_filter_view(dst, &dv);
	if (src->hash_id != dv.hash_id || src->growth != dv.growth ||
		!same_bits(src->error_rate, dv.error_rate) ||
		!same_bits(src->tightening, dv.tightening))
		return SBF_E_INCOMPATIBLE;

	if (!sbf_is_exact(&dv) && !sbf_is_exact(src))
	{
		uint8_t    *buf = SBF_PAYLOAD(dst);

		*handled = false;
		if (!(src->flags & SBF_FLAG_CHAIN))
			buf[SBF_OFF_FLAGS] &= (uint8_t) ~SBF_FLAG_CHAIN;
		/*
		 * Counts stay disjoint only when src's segments all lie in equal
		 * segments of dst (the union then changes no count).  Not the other
		 * way round: a full dst segment may not take src's by OR, and then
		 * both are kept, counting the same elements twice.
		 */
		if ((src->flags & SBF_FLAG_OVERLAP) || !segments_contained(&dv, src))
			buf[SBF_OFF_FLAGS] |= SBF_FLAG_OVERLAP;
		return SBF_OK;
	}
	if (sbf_is_exact(&dv) && sbf_is_exact(src))
		return union_exact_exact(dst, &dv, src);
	if (sbf_is_exact(src))
	{
		/*
		 * Added to a copy of dst, so that a failure leaves dst as it was (src
		 * may also live in dst's buffer).
		 */
		SbfFilter	g;
		uint64_t   *h = exact_hashes(src, a, 0);

		if (h == NULL)
			return SBF_E_NOMEM;
		st = sbf_copy(&g, &dv, dst->prefix, (size_t) src->nhashes * 8 + 64, a);
		if (st == SBF_OK)
		{
			st = sbf_add_hashes(&g, h, src->nhashes);
			if (st == SBF_OK)
				replace_filter(dst, &g);
			else
				sbf_filter_free(&g);
		}
		a->free(h, a->ctx);
		return st;
	}
	else
	{
		/* exact dst, segmented src: src with dst's hashes added */
		SbfFilter	g;
		uint64_t   *h = exact_hashes(&dv, a, 0);

		if (h == NULL)
			return SBF_E_NOMEM;
		st = sbf_copy(&g, src, dst->prefix, 64, a);
		if (st == SBF_OK)
		{
			st = sbf_add_hashes(&g, h, dv.nhashes);
			if (st == SBF_OK)
				replace_filter(dst, &g);
			else
				sbf_filter_free(&g);
		}
		a->free(h, a->ctx);
		return st;
	}
}
