/*
 * sbf_filter.c
 *	  Writing side of the format: creating, copying, adding to and merging
 *	  mutable filters.
 *
 * Every operation first computes the exact payload size it will need, checks
 * it against SBF_MAX_BYTES and reserves it; only then does it touch the
 * payload, so an error (too large, too many segments, allocator failure)
 * leaves the filter exactly as it was.
 */
#include <math.h>

#include "sbf_internal.h"

/* Scratch space of sbf_union: one allocation sized for the operands. */
typedef struct UnionScratch
{
	uint64_t   *counts;			/* dst counts after planned merges */
	uint64_t   *capacity;		/* dst capacities */
	uint64_t   *nbits;			/* dst bit counts */
	uint64_t   *offsets;		/* dst words offsets, from bits start */
	uint32_t   *k;				/* dst hash counts */
	uint8_t    *used;			/* dst segment already takes a src one */
	int32_t    *target;			/* dst segment of each src one, or -1 */
	uint8_t    *regs_a;			/* 2^max(p) registers */
	uint8_t    *regs_b;			/* 2^min(p) registers */
	uint8_t    *merged;			/* 2^min(p) registers */
	uint8_t    *hll;			/* encoded result, up to the dense size */
	void	   *mem;
} UnionScratch;

/* Allocates union scratch for dn dst and sn src segments; false if no memory. */
static bool
union_scratch_alloc(UnionScratch *s, const SbfAllocator *a, uint32_t dn,
					uint32_t sn, int maxp, int minp)
{
	size_t		regs_hi = SBF_HLL_REGISTERS(maxp);
	size_t		regs_lo = SBF_HLL_REGISTERS(minp);
	size_t		size;
	uint8_t    *p;

	/* at most 4096 segments and 2^14 registers: no overflow */
	size = (size_t) dn * 37 + (size_t) sn * 4 + regs_hi + 2 * regs_lo +
		SBF_HLL_DENSE_BYTES(minp);
	p = a->alloc(size, a->ctx);
	if (p == NULL)
		return false;
	s->mem = p;
	s->counts = (uint64_t *) p;
	p += (size_t) dn * 8;
	s->capacity = (uint64_t *) p;
	p += (size_t) dn * 8;
	s->nbits = (uint64_t *) p;
	p += (size_t) dn * 8;
	s->offsets = (uint64_t *) p;
	p += (size_t) dn * 8;
	s->k = (uint32_t *) p;
	p += (size_t) dn * 4;
	s->target = (int32_t *) p;
	p += (size_t) sn * 4;
	s->used = p;
	p += dn;
	s->regs_a = p;
	p += regs_hi;
	s->regs_b = p;
	p += regs_lo;
	s->merged = p;
	p += regs_lo;
	s->hll = p;
	return true;
}

/*
 * Makes room for needed payload bytes.  Some slack (up to the largest
 * HyperLogLog area) is added so that a growing sparse HyperLogLog does not
 * reallocate on every add; big segments are not over-allocated.
 */
static SbfStatus
filter_reserve(SbfFilter *f, size_t needed)
{
	size_t		slack;
	size_t		newcap;
	uint8_t    *p;

	if (needed > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	if (needed <= f->cap)
		return SBF_OK;
	slack = needed / 2;
	if (slack > SBF_HLL_DENSE_BYTES(SBF_HLL_P_MAX))
		slack = SBF_HLL_DENSE_BYTES(SBF_HLL_P_MAX);
	newcap = needed + slack;
	if (newcap > SBF_MAX_BYTES)
		newcap = SBF_MAX_BYTES;
	p = f->a->realloc(f->base, f->prefix + newcap, f->a->ctx);
	if (p == NULL)
		return SBF_E_NOMEM;
	f->base = p;
	f->cap = newcap;
	return SBF_OK;
}

/* Makes room for needed payload bytes (for sbf_exact.c). */
SbfStatus
sbf_filter_reserve(SbfFilter *f, size_t needed)
{
	return filter_reserve(f, needed);
}

/* Relabels a version-1 payload as version 2 with OVERLAP (see WRITES). */
void
sbf_upgrade_v1(SbfFilter *f)
{
	uint8_t    *buf = SBF_PAYLOAD(f);

	if (buf[SBF_OFF_VERSION] == SBF_FORMAT_V1)
	{
		buf[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
		buf[SBF_OFF_FLAGS] |= SBF_FLAG_OVERLAP;
	}
}

/*
 * Budget spent before a CHAIN value's first segment: its first segment got
 * (1 - r) of what was left, so what was left is the largest error / (1 - r).
 */
double
sbf_chain_spent(uint8_t flags, double error_rate, double tightening,
				double largest)
{
	double		spent;

	if (!(flags & SBF_FLAG_CHAIN) || tightening >= 1.0)
		return 0.0;
	spent = error_rate - largest / (1.0 - tightening);
	return spent > 0.0 ? spent : 0.0;
}

/* Writes a directory entry. */
static void
write_segment(uint8_t *e, uint64_t capacity, uint64_t count, uint64_t nbits,
			  double error, uint32_t k)
{
	sbf_store64(e + SBF_SEG_CAPACITY, capacity);
	sbf_store64(e + SBF_SEG_COUNT, count);
	sbf_store64(e + SBF_SEG_NBITS, nbits);
	sbf_store_double(e + SBF_SEG_ERROR, error);
	sbf_store16(e + SBF_SEG_K, (uint16_t) k);
	sbf_store16(e + SBF_SEG_RESERVED16, 0);
	sbf_store32(e + SBF_SEG_RESERVED, 0);
}

/*
 * Creates a segmented filter whose only segment is built for n elements at
 * error pe, with the given flags (OVERLAP, CHAIN).
 */
SbfStatus
sbf_create_segments(SbfFilter *f, const SbfParams *p, uint64_t n, double pe,
					uint8_t flags, size_t prefix, const SbfAllocator *a)
{
	uint64_t	m;
	uint32_t	k;
	size_t		size;
	uint8_t    *base;
	uint8_t    *buf;
	SbfStatus	st;

	f->base = NULL;
	f->prefix = prefix;
	f->len = 0;
	f->cap = 0;
	f->a = a;

	st = sbf_params_check(p);
	if (st != SBF_OK)
		return st;
	if (n < 1)
		return SBF_E_PARAM;
	if (!sbf_segment_geometry(n, pe, SBF_MAX_SEGMENT_BITS, &m, &k))
		return SBF_E_TOO_LARGE;
	size = sbf_payload_size(1, &m, 0);
	if (size > SBF_MAX_BYTES || prefix > SIZE_MAX - size)
		return SBF_E_TOO_LARGE;

	base = a->alloc(prefix + size, a->ctx);
	if (base == NULL)
		return SBF_E_NOMEM;
	memset(base, 0, prefix + size);
	buf = base + prefix;
	buf[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
	buf[SBF_OFF_FLAGS] = flags & (SBF_FLAG_OVERLAP | SBF_FLAG_CHAIN);
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = p->hll_p;
	sbf_store16(buf + SBF_OFF_GROWTH, p->growth);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, 1);
	sbf_store32(buf + SBF_OFF_HLL_BYTES, 0);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, p->error_rate);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, p->tightening);
	sbf_store64(buf + SBF_OFF_CAPACITY, p->capacity);
	write_segment(buf + SBF_SEGDIR_OFFSET(0), n, 0, m, pe, k);

	f->base = base;
	f->len = size;
	f->cap = size;
	return SBF_OK;
}

/*
 * Creates an empty exact filter that converts to a first segment of n
 * elements at error pe.  Checks first that this segment can be built, so an
 * impossible capacity fails here as it did in 1.0.
 */
static SbfStatus
create_exact(SbfFilter *f, const SbfParams *p, uint64_t n, double pe,
			 uint8_t flags, size_t prefix, const SbfAllocator *a)
{
	uint64_t	m;
	uint32_t	k;
	size_t		size = SBF_EXACT_HEADER_BYTES;
	uint8_t    *base;
	uint8_t    *buf;
	SbfStatus	st;

	f->base = NULL;
	f->prefix = prefix;
	f->len = 0;
	f->cap = 0;
	f->a = a;

	st = sbf_params_check(p);
	if (st != SBF_OK)
		return st;
	if (n < 1)
		return SBF_E_PARAM;
	if (!sbf_segment_geometry(n, pe, SBF_MAX_SEGMENT_BITS, &m, &k) ||
		sbf_payload_size(1, &m, 0) > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	if (prefix > SIZE_MAX - size)
		return SBF_E_TOO_LARGE;
	base = a->alloc(prefix + size, a->ctx);
	if (base == NULL)
		return SBF_E_NOMEM;
	memset(base, 0, prefix + size);
	buf = base + prefix;
	buf[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
	buf[SBF_OFF_FLAGS] = SBF_FLAG_EXACT | (flags & SBF_FLAG_CHAIN);
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = p->hll_p;
	sbf_store16(buf + SBF_OFF_GROWTH, p->growth);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, 0);
	sbf_store32(buf + SBF_OFF_NHASHES, 0);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, p->error_rate);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, p->tightening);
	sbf_store64(buf + SBF_OFF_CAPACITY, p->capacity);
	sbf_store64(buf + SBF_OFF_FIRST_CAPACITY, n);
	sbf_store_double(buf + SBF_OFF_FIRST_ERROR, pe);

	f->base = base;
	f->len = size;
	f->cap = size;
	return SBF_OK;
}

/* New empty filter (exact form converting to one segment of p->capacity). */
SbfStatus
sbf_create(SbfFilter *f, const SbfParams *p, size_t prefix, const SbfAllocator *a)
{
	return create_exact(f, p, p->capacity,
						sbf_next_error(p->error_rate, p->tightening, 0.0, 0.0),
						0, prefix, a);
}

/*
 * New empty filter whose first segment is right-sized for n elements; exact
 * while n <= SBF_EXACT_MAX (beyond, the exact form could not hold them).
 */
SbfStatus
sbf_create_sized(SbfFilter *f, const SbfParams *p, uint64_t n, size_t prefix,
				 const SbfAllocator *a)
{
	double		pe = sbf_sized_error(p->error_rate, p->tightening);

	if (n <= SBF_EXACT_MAX)
		return create_exact(f, p, n, pe, 0, prefix, a);
	return sbf_create_segments(f, p, n, pe, 0, prefix, a);
}

/* Copy of a validated view into a new mutable filter with extra room. */
SbfStatus
sbf_copy(SbfFilter *f, const SbfView *v, size_t prefix, size_t extra,
		 const SbfAllocator *a)
{
	size_t		cap;
	uint8_t    *base;

	f->base = NULL;
	f->prefix = prefix;
	f->len = 0;
	f->cap = 0;
	f->a = a;

	if (v->len > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	if (extra > SBF_MAX_BYTES - v->len)
		extra = SBF_MAX_BYTES - v->len;
	cap = v->len + extra;
	if (prefix > SIZE_MAX - cap)
		return SBF_E_TOO_LARGE;
	base = a->alloc(prefix + cap, a->ctx);
	if (base == NULL)
		return SBF_E_NOMEM;
	memset(base, 0, prefix);
	memcpy(base + prefix, v->buf, v->len);
	f->base = base;
	f->len = v->len;
	f->cap = cap;
	return SBF_OK;
}

/* The largest segment error of a segmented view. */
static double
largest_error(const SbfView *v)
{
	double		largest = 0.0;
	uint32_t	i;

	for (i = 0; i < v->nsegments; i++)
	{
		double		e = sbf_load_double(v->buf + SBF_SEGDIR_OFFSET(i) + SBF_SEG_ERROR);

		if (e > largest)
			largest = e;
	}
	return largest;
}

/*
 * Geometry of the segment to append (sbf_core.h, SIZING; CHAIN): capacity
 * min(largest * s, c * s^nsegments), error (1 - r) of the budget left.
 */
static SbfStatus
plan_segment(const SbfView *v, uint64_t *capacity, uint64_t *nbits,
			 uint32_t *k, double *error)
{
	uint64_t	maxcap = 0;
	uint64_t	geo = v->capacity;
	double		spent = 0.0;
	double		smallest = 0.5;
	uint32_t	i;

	if (v->nsegments >= SBF_MAX_SEGMENTS)
		return SBF_E_TOO_MANY_SEGMENTS;
	for (i = 0; i < v->nsegments; i++)
	{
		SbfSegment	seg;

		sbf_read_segment(v->buf, i, &seg);
		if (seg.capacity > maxcap)
			maxcap = seg.capacity;
		spent += seg.error;
		if (seg.error < smallest)
			smallest = seg.error;
		geo = geo > UINT64_MAX / v->growth ? UINT64_MAX : geo * v->growth;
	}
	spent += sbf_chain_spent(v->flags, v->error_rate, v->tightening,
							 largest_error(v));
	*capacity = maxcap > UINT64_MAX / v->growth ? UINT64_MAX : maxcap * v->growth;
	if (geo < *capacity)
		*capacity = geo;
	*error = sbf_next_error(v->error_rate, v->tightening, spent, smallest);
	if (!sbf_segment_geometry(*capacity, *error, SBF_MAX_SEGMENT_BITS, nbits, k))
		return SBF_E_TOO_LARGE;
	return SBF_OK;
}

/*
 * Appends an empty segment; room must be reserved.  The directory grows by
 * one entry, so the bit arrays shift by SBF_SEGDIR_BYTES and the
 * HyperLogLog moves behind the new words.
 */
static void
append_segment(SbfFilter *f, const SbfView *v, uint64_t capacity,
			   uint64_t nbits, uint32_t k, double error)
{
	uint8_t    *buf = SBF_PAYLOAD(f);
	size_t		b = v->bits_offset;
	size_t		h = v->hll_offset;
	size_t		w = (size_t) sbf_words_bytes(nbits);

	memmove(buf + h + SBF_SEGDIR_BYTES + w, buf + h, v->hll_bytes);
	memmove(buf + b + SBF_SEGDIR_BYTES, buf + b, h - b);
	write_segment(buf + b, capacity, 0, nbits, error, k);
	memset(buf + h + SBF_SEGDIR_BYTES, 0, w);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, (uint16_t) (v->nsegments + 1));
	f->len += SBF_SEGDIR_BYTES + w;
}

/* Adds h to the HyperLogLog in place; room must be reserved. */
static void
hll_apply(SbfFilter *f, uint64_t h)
{
	uint8_t    *buf = SBF_PAYLOAD(f);
	SbfView		v;
	bool		dense;
	size_t		nbytes;

	sbf_filter_view(f, &v);
	dense = (v.flags & SBF_FLAG_HLL_DENSE) != 0;
	nbytes = sbf_hll_apply_add(buf + v.hll_offset, v.hll_bytes, &dense,
							   v.hll_p, h);
	buf[SBF_OFF_FLAGS] = (uint8_t) ((v.flags & ~SBF_FLAG_HLL_DENSE) |
									(dense ? SBF_FLAG_HLL_DENSE : 0));
	sbf_store32(buf + SBF_OFF_HLL_BYTES, (uint32_t) nbytes);
	f->len += nbytes - v.hll_bytes;
}

/* HyperLogLog area size of f after adding h. */
static size_t
hll_size_after(const SbfView *v, uint64_t h)
{
	return sbf_hll_size_after_add(v->buf + v->hll_offset, v->hll_bytes,
								  (v->flags & SBF_FLAG_HLL_DENSE) != 0,
								  v->hll_p, h);
}

/* Updates only the HyperLogLog. */
SbfStatus
sbf_hll_add_hash(SbfFilter *f, uint64_t h)
{
	SbfView		v;
	SbfStatus	st;

	sbf_filter_view(f, &v);
	if (sbf_is_exact(&v))
		return SBF_OK;
	st = filter_reserve(f, f->len + (hll_size_after(&v, h) - v.hll_bytes));
	if (st != SBF_OK)
		return st;
	sbf_upgrade_v1(f);
	hll_apply(f, h);
	return SBF_OK;
}

/*
 * Adds an element by hash: HyperLogLog only if probably present, else its
 * bits go into the last segment, appended first when that one is full.
 * (The exact form: sbf_exact_add.)  Every failure happens before the payload
 * changes.
 */
static SbfStatus
add_hash(SbfFilter *f, uint64_t h, bool *inserted)
{
	SbfView		v;
	SbfSegment	last;
	uint64_t	capacity = 0;
	uint64_t	nbits = 0;
	uint32_t	k = 0;
	double		error = 0.0;
	size_t		seg_bytes = 0;
	size_t		words_offset;
	uint8_t    *buf;
	bool		append;
	SbfPosIter	it;
	uint32_t	i;
	SbfStatus	st;

	sbf_filter_view(f, &v);
	if (sbf_is_exact(&v))
		return sbf_exact_add(f, h, inserted);
	if (sbf_contains_hash(&v, h))
		return sbf_hll_add_hash(f, h);

	sbf_read_segment(v.buf, v.nsegments - 1u, &last);
	append = last.count >= last.capacity;
	if (append)
	{
		st = plan_segment(&v, &capacity, &nbits, &k, &error);
		if (st != SBF_OK)
			return st;
		seg_bytes = SBF_SEGDIR_BYTES + (size_t) sbf_words_bytes(nbits);
		if (seg_bytes > SBF_MAX_BYTES - f->len)
			return SBF_E_TOO_LARGE;
	}
	st = filter_reserve(f, f->len + seg_bytes +
						(hll_size_after(&v, h) - v.hll_bytes));
	if (st != SBF_OK)
		return st;

	if (append)
	{
		sbf_filter_view(f, &v);
		append_segment(f, &v, capacity, nbits, k, error);
	}
	sbf_filter_view(f, &v);
	buf = SBF_PAYLOAD(f);
	sbf_read_segment(buf, v.nsegments - 1u, &last);
	words_offset = v.hll_offset - (size_t) sbf_words_bytes(last.nbits);
	sbf_pos_start(&it, h, sbf_mix64(h) | 1, last.nbits);
	for (i = 0; i < last.k; i++)
		sbf_bit_set(buf + words_offset, sbf_pos_next(&it));
	sbf_store64(buf + SBF_SEGDIR_OFFSET(v.nsegments - 1u) + SBF_SEG_COUNT,
				last.count + 1);
	hll_apply(f, h);
	if (inserted)
		*inserted = true;
	return SBF_OK;
}

/*
 * Adds an element by hash (add_hash), relabelling a version-1 value first;
 * on failure the filter is left exactly as it was, label included.
 */
SbfStatus
sbf_add_hash(SbfFilter *f, uint64_t h, bool *inserted)
{
	uint8_t		vflags[2];
	SbfStatus	st;

	if (inserted)
		*inserted = false;
	memcpy(vflags, SBF_PAYLOAD(f), 2);
	sbf_upgrade_v1(f);
	st = add_hash(f, h, inserted);
	if (st != SBF_OK)
		memcpy(SBF_PAYLOAD(f), vflags, 2);
	return st;
}

/* Adds n hashes one at a time. */
static SbfStatus
add_each(SbfFilter *f, const uint64_t *h, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		SbfStatus	st = sbf_add_hash(f, h[i], NULL);

		if (st != SBF_OK)
			return st;
	}
	return SBF_OK;
}

/*
 * Adds n hashes as n sbf_add_hash calls would.  Fast path, for a filter
 * with one segment that has room for all n (the aggregate's right-sized
 * build): one view; each hash tests and sets its k bits in one pass and
 * counts only if one of them was clear (the same as "not probably present"
 * for a single segment); the HyperLogLog registers are updated unpacked and
 * encoded once, canonically, as the one-by-one path leaves them.
 */
SbfStatus
sbf_add_hashes(SbfFilter *f, const uint64_t *h, size_t n)
{
	const SbfAllocator *a = f->a;
	SbfView		v;
	SbfSegment	seg;
	uint8_t    *regs;
	uint8_t    *buf;
	uint8_t    *words;
	uint64_t	count;
	uint64_t	h2;
	uint32_t	mask;
	size_t		nbytes;
	size_t		i;
	bool		dense;
	int			p;
	SbfStatus	st;

	sbf_upgrade_v1(f);
	sbf_filter_view(f, &v);
	/* exact: one at a time (each O(SBF_EXACT_MAX)) until it converts */
	while (sbf_is_exact(&v) && n > 0)
	{
		st = sbf_add_hash(f, *h++, NULL);
		if (st != SBF_OK)
			return st;
		n--;
		sbf_filter_view(f, &v);
	}
	if (n == 0)
		return SBF_OK;
	sbf_read_segment(v.buf, 0, &seg);
	if (n == 0 || v.nsegments != 1 || seg.count > seg.capacity ||
		n > seg.capacity - seg.count)
		return add_each(f, h, n);

	p = v.hll_p;
	mask = SBF_HLL_REGISTERS(p) - 1;
	regs = a->alloc(SBF_HLL_REGISTERS(p), a->ctx);
	if (regs == NULL)
		return SBF_E_NOMEM;
	sbf_hll_unpack(v.buf + v.hll_offset, v.hll_bytes,
				   (v.flags & SBF_FLAG_HLL_DENSE) != 0, p, regs);
	for (i = 0; i < n; i++)
	{
		uint64_t	w = h[i] >> p;
		uint8_t		rho = (uint8_t) (w == 0 ? 65 - p : sbf_ctz64(w) + 1);

		if (rho > regs[h[i] & mask])
			regs[h[i] & mask] = rho;
	}
	nbytes = sbf_hll_encoded_size(regs, p, &dense);
	/* registers only grow: the area never shrinks */
	st = filter_reserve(f, f->len - v.hll_bytes + nbytes);
	if (st != SBF_OK)
	{
		a->free(regs, a->ctx);
		return st;
	}

	/* from here on nothing can fail */
	buf = SBF_PAYLOAD(f);
	words = buf + v.bits_offset;
	count = seg.count;
	for (i = 0; i < n; i++)
	{
		SbfPosIter	it;
		bool		present = true;
		uint32_t	j;

		h2 = sbf_mix64(h[i]) | 1;
		sbf_pos_start(&it, h[i], h2, seg.nbits);
		for (j = 0; j < seg.k; j++)
		{
			uint64_t	pos = sbf_pos_next(&it);

			if (!sbf_bit_test(words, pos))
			{
				present = false;
				sbf_bit_set(words, pos);
			}
		}
		if (!present)
			count++;
	}
	sbf_store64(buf + SBF_SEGDIR_OFFSET(0) + SBF_SEG_COUNT, count);
	sbf_hll_encode(regs, p, dense, buf + v.hll_offset);
	buf[SBF_OFF_FLAGS] = (uint8_t) ((v.flags & ~SBF_FLAG_HLL_DENSE) |
									(dense ? SBF_FLAG_HLL_DENSE : 0));
	sbf_store32(buf + SBF_OFF_HLL_BYTES, (uint32_t) nbytes);
	f->len = v.hll_offset + nbytes;
	a->free(regs, a->ctx);
	return SBF_OK;
}

/* True when two doubles have the same bits. */
static bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

/* Merges the HyperLogLogs of dst and src, folded to the smaller precision. */
static void
union_hll(const SbfView *dv, const SbfView *sv, UnionScratch *s, int *np,
		  size_t *nbytes, bool *dense)
{
	uint32_t	j;

	*np = dv->hll_p < sv->hll_p ? dv->hll_p : sv->hll_p;
	sbf_hll_unpack(dv->buf + dv->hll_offset, dv->hll_bytes,
				   (dv->flags & SBF_FLAG_HLL_DENSE) != 0, dv->hll_p, s->regs_a);
	sbf_hll_fold(s->regs_a, dv->hll_p, *np, s->merged);
	sbf_hll_unpack(sv->buf + sv->hll_offset, sv->hll_bytes,
				   (sv->flags & SBF_FLAG_HLL_DENSE) != 0, sv->hll_p, s->regs_a);
	sbf_hll_fold(s->regs_a, sv->hll_p, *np, s->regs_b);
	for (j = 0; j < SBF_HLL_REGISTERS(*np); j++)
		if (s->regs_b[j] > s->merged[j])
			s->merged[j] = s->regs_b[j];
	*nbytes = sbf_hll_encoded_size(s->merged, *np, dense);
	sbf_hll_encode(s->merged, *np, *dense, s->hll);
}

/* True when every bit set in sw (m bits) is set in dw too. */
static bool
bits_subset(const uint8_t *sw, const uint8_t *dw, uint64_t m)
{
	uint64_t	nwords = sbf_words_bytes(m) / 8;
	uint64_t	w;

	for (w = 0; w < nwords; w++)
	{
		uint64_t	x;
		uint64_t	y;

		memcpy(&x, dw + w * 8, 8);
		memcpy(&y, sw + w * 8, 8);
		if ((y & ~x) != 0)
			return false;
	}
	return true;
}

/*
 * Whether two segments of m bits and k hashes can be OR-ed into the first
 * without passing its design load, and the count of the result.  The OR of
 * equal-geometry Bloom filters is the filter of the union of their sets; its
 * false-positive rate is fill^k, so the merge is allowed while the fill stays
 * at most the fill expected at capacity, 1 - e^(-k cap / m).  The count is
 * the larger of the two and of the union's size estimated from the fill,
 * -(m/k) ln(1 - fill) (Swamidass & Baldi 2007), capped at the capacity.  A
 * src whose bits are all set in dst merges with dst's count unchanged, so
 * f UNION f = f.
 */
static bool
merge_fits(const uint8_t *dw, const uint8_t *sw, uint64_t m, uint32_t k,
		   uint64_t capacity, uint64_t dcount, uint64_t scount,
		   uint64_t *count)
{
	uint64_t	nwords = sbf_words_bytes(m) / 8;
	uint64_t	ones = 0;
	uint64_t	extra = 0;
	uint64_t	w;
	double		fill;
	double		est;

	for (w = 0; w < nwords; w++)
	{
		uint64_t	x;
		uint64_t	y;

		memcpy(&x, dw + w * 8, 8);
		memcpy(&y, sw + w * 8, 8);
		ones += (uint64_t) sbf_popcount64(x | y);
		extra += (uint64_t) sbf_popcount64(y & ~x);
	}
	if (extra == 0)
	{
		*count = dcount;
		return true;
	}
	fill = (double) ones / (double) m;
	if (fill > 1.0 - exp(-(double) k * (double) capacity / (double) m))
		return false;
	est = fill < 1.0 ? -((double) m / k) * log(1.0 - fill) : (double) capacity;
	*count = dcount > scount ? dcount : scount;
	if (est > (double) *count)
		*count = est >= (double) capacity ? capacity : (uint64_t) (est + 0.5);
	if (*count > capacity)
		*count = capacity;
	return true;
}

/*
 * dst := dst UNION src.  A src segment whose bits a dst segment of equal
 * geometry already has changes nothing (so f UNION f = f); otherwise it is
 * OR-ed into the first dst segment of equal geometry that it fits
 * (merge_fits; at most one such merge per dst segment in one call), else
 * appended with its directory entry unchanged.  Either way there are no
 * false negatives; appended segments add their error to the filter's bound.
 */
SbfStatus
sbf_union(SbfFilter *dst, const SbfView *src)
{
	const SbfAllocator *a = dst->a;
	SbfView		dv;
	SbfView		sv = *src;
	UnionScratch scratch;
	UnionScratch *s = &scratch;
	uint8_t    *srccopy = NULL;
	uint8_t    *buf;
	uint64_t	newlen;
	size_t		hll_bytes;
	size_t		dbits;
	size_t		nbo;
	size_t		soff;
	size_t		tail;
	uint32_t	dn;
	uint32_t	na = 0;
	uint32_t	i;
	uint32_t	j;
	int			np;
	bool		dense;
	bool		handled;
	uint8_t		vflags[2];		/* version and flags, restored on failure */
	SbfStatus	st = SBF_OK;

	/* exact operands and version-1 sources (sbf_exact.c) */
	memcpy(vflags, SBF_PAYLOAD(dst), 2);
	st = sbf_union_dispatch(dst, src, &handled);
	if (handled)
		return st;
	sbf_filter_view(dst, &dv);
	if (sv.version != dv.version || sv.hash_id != dv.hash_id ||
		sv.growth != dv.growth ||
		!same_double(sv.error_rate, dv.error_rate) ||
		!same_double(sv.tightening, dv.tightening))
	{
		memcpy(SBF_PAYLOAD(dst), vflags, 2);
		return SBF_E_INCOMPATIBLE;
	}
	dn = dv.nsegments;

	/* src may live inside dst's buffer (dst UNION dst): work on a copy */
	if ((uintptr_t) sv.buf < (uintptr_t) dst->base + dst->prefix + dst->cap &&
		(uintptr_t) sv.buf + sv.len > (uintptr_t) dst->base)
	{
		srccopy = a->alloc(sv.len, a->ctx);
		if (srccopy == NULL)
		{
			memcpy(SBF_PAYLOAD(dst), vflags, 2);
			return SBF_E_NOMEM;
		}
		memcpy(srccopy, sv.buf, sv.len);
		sv.buf = srccopy;
	}
	s->mem = NULL;
	if (!union_scratch_alloc(s, a, dn, sv.nsegments,
							 dv.hll_p > sv.hll_p ? dv.hll_p : sv.hll_p,
							 dv.hll_p < sv.hll_p ? dv.hll_p : sv.hll_p))
	{
		st = SBF_E_NOMEM;
		goto done;
	}

	union_hll(&dv, &sv, s, &np, &hll_bytes, &dense);

	/* plan: which src segments merge into which dst segment */
	soff = 0;
	for (j = 0; j < dn; j++)
	{
		SbfSegment	seg;

		sbf_read_segment(dv.buf, j, &seg);
		s->counts[j] = seg.count;
		s->capacity[j] = seg.capacity;
		s->nbits[j] = seg.nbits;
		s->k[j] = seg.k;
		s->offsets[j] = soff;
		soff += (size_t) sbf_words_bytes(seg.nbits);
	}
	newlen = dv.hll_offset;
	memset(s->used, 0, dn);
	soff = sv.bits_offset;
	for (i = 0; i < sv.nsegments; i++)
	{
		SbfSegment	ss;

		sbf_read_segment(sv.buf, i, &ss);
		s->target[i] = -1;
		/* first a dst segment that already has all its bits: no change */
		for (j = 0; j < dn; j++)
		{
			if (s->nbits[j] == ss.nbits && s->k[j] == ss.k &&
				bits_subset(sv.buf + soff, dv.buf + dv.bits_offset + s->offsets[j],
							ss.nbits))
			{
				s->target[i] = (int32_t) j;
				break;
			}
		}
		for (j = 0; j < dn && s->target[i] < 0; j++)
		{
			uint64_t	count;

			if (s->used[j] || s->nbits[j] != ss.nbits || s->k[j] != ss.k)
				continue;
			if (merge_fits(dv.buf + dv.bits_offset + s->offsets[j],
						   sv.buf + soff, ss.nbits, ss.k, s->capacity[j],
						   s->counts[j], ss.count, &count))
			{
				s->target[i] = (int32_t) j;
				s->counts[j] = count;
				s->used[j] = 1;
				break;
			}
		}
		soff += (size_t) sbf_words_bytes(ss.nbits);
		if (s->target[i] < 0)
		{
			na++;
			newlen += SBF_SEGDIR_BYTES + sbf_words_bytes(ss.nbits);
		}
	}
	if (dn + na > SBF_MAX_SEGMENTS)
	{
		st = SBF_E_TOO_MANY_SEGMENTS;
		goto done;
	}
	newlen += hll_bytes;
	if (newlen > SBF_MAX_BYTES)
	{
		st = SBF_E_TOO_LARGE;
		goto done;
	}
	st = filter_reserve(dst, (size_t) newlen);
	if (st != SBF_OK)
		goto done;

	/* from here on nothing can fail */
	buf = SBF_PAYLOAD(dst);
	dbits = dv.hll_offset - dv.bits_offset;
	nbo = dv.bits_offset + (size_t) na * SBF_SEGDIR_BYTES;
	memmove(buf + nbo, buf + dv.bits_offset, dbits);
	tail = nbo + dbits;
	soff = sv.bits_offset;
	na = 0;
	for (i = 0; i < sv.nsegments; i++)
	{
		SbfSegment	ss;
		size_t		wb;

		sbf_read_segment(sv.buf, i, &ss);
		wb = (size_t) sbf_words_bytes(ss.nbits);
		if (s->target[i] >= 0)
		{
			uint8_t    *d = buf + nbo + s->offsets[s->target[i]];
			size_t		w;

			/* OR does not care about byte order */
			for (w = 0; w < wb; w += 8)
			{
				uint64_t	x;
				uint64_t	y;

				memcpy(&x, d + w, 8);
				memcpy(&y, sv.buf + soff + w, 8);
				x |= y;
				memcpy(d + w, &x, 8);
			}
		}
		else
		{
			memcpy(buf + SBF_SEGDIR_OFFSET(dn + na), sv.buf + SBF_SEGDIR_OFFSET(i),
				   SBF_SEGDIR_BYTES);
			memcpy(buf + tail, sv.buf + soff, wb);
			tail += wb;
			na++;
		}
		soff += wb;
	}
	for (j = 0; j < dn; j++)
		sbf_store64(buf + SBF_SEGDIR_OFFSET(j) + SBF_SEG_COUNT, s->counts[j]);
	memcpy(buf + tail, s->hll, hll_bytes);
	buf[SBF_OFF_FLAGS] = (uint8_t) ((dv.flags & ~SBF_FLAG_HLL_DENSE) |
									(dense ? SBF_FLAG_HLL_DENSE : 0));
	buf[SBF_OFF_HLL_P] = (uint8_t) np;
	sbf_store16(buf + SBF_OFF_NSEGMENTS, (uint16_t) (dn + na));
	sbf_store32(buf + SBF_OFF_HLL_BYTES, (uint32_t) hll_bytes);
	dst->len = tail + hll_bytes;

done:
	if (st != SBF_OK)
		memcpy(SBF_PAYLOAD(dst), vflags, 2);
	if (s->mem != NULL)
		a->free(s->mem, a->ctx);
	if (srccopy != NULL)
		a->free(srccopy, a->ctx);
	return st;
}

/*
 * New empty filter continuing v's growth chain and budget: exact, converting
 * to the segment v would append next (plan_segment), with CHAIN set so that
 * its own later segments count v's spending (sbf_core.h, CHAIN).
 */
SbfStatus
sbf_delta(SbfFilter *f, const SbfView *v, size_t prefix, const SbfAllocator *a)
{
	SbfParams	p;
	uint64_t	capacity;
	uint64_t	nbits;
	uint32_t	k;
	double		error;
	SbfStatus	st;

	p.capacity = v->capacity;
	p.error_rate = v->error_rate;
	p.tightening = v->tightening;
	p.growth = v->growth;
	p.hll_p = v->hll_p;
	f->base = NULL;
	f->prefix = prefix;
	f->len = 0;
	f->cap = 0;
	f->a = a;
	if (sbf_is_exact(v))
		return create_exact(f, &p, v->first_capacity, v->first_error,
							v->flags & SBF_FLAG_CHAIN, prefix, a);
	st = plan_segment(v, &capacity, &nbits, &k, &error);
	if (st != SBF_OK)
		return st;
	/* growth continues from the new segment: min(cap s, cap s^i) agree */
	p.capacity = capacity;
	return create_exact(f, &p, capacity, error, SBF_FLAG_CHAIN, prefix, a);
}

/* Releases a filter's memory. */
void
sbf_filter_free(SbfFilter *f)
{
	if (f->base != NULL)
		f->a->free(f->base, f->a->ctx);
	f->base = NULL;
	f->len = 0;
	f->cap = 0;
}
