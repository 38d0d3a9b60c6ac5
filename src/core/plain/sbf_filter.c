/*
 * sbf_filter.c
 *	  Writing side of the format: creating, copying and adding to mutable
 *	  filters, and converting the exact form to segments (sbf_convert,
 *	  sbf_exact_add).  The exact form's runs are in sbf_exact.c, what every
 *	  writer shares in sbf_write.c, growth in sbf_grow.c, unions in
 *	  sbf_union.c.
 *
 * Every operation first computes the exact payload size it will need, checks
 * it against SBF_MAX_BYTES and reserves it; only then does it touch the
 * payload, so an error (too large, too many segments, allocator failure)
 * leaves the filter exactly as it was.
 */
#include <math.h>

#include "sbf_dir.h"
#include "sbf_plain.h"

/*
 * The first segment of a filter that grows (a conversion from the exact
 * form, sbf_delta's): bloom while its data fits SBF_FIRST_BLOOM_MAX_BYTES
 * (sbf_dir.h: a segment that small is in the caches whenever it is probed,
 * where blocked's one line a probe buys nothing and its load variance costs
 * bytes; so a filter grown from the defaults takes 1.0's bytes), else
 * blocked, sized by its own rate formula for n elements at pe
 * (docs/format4.md, section 6); a segment the blocked kind cannot fit
 * within SBF_MAX_BYTES takes the bloom kind, as 1.2 sized it, so that every
 * filter 1.2 could create can be created.
 */
static SbfStatus
first_segment_plan(uint64_t n, double pe, SbfKindGeom *g, uint64_t *bytes)
{
	SbfStatus	st = sbf_kind_bloom_ops.plan(n, pe, g, bytes);

	if (sbf_write_v2 || (st == SBF_OK && *bytes <= SBF_FIRST_BLOOM_MAX_BYTES))
		return st;
	st = sbf_kind_blocked_ops.plan(n, pe, g, bytes);
	/* 76 bytes of header and entry, at most 56 of padding */
	if (st == SBF_OK && *bytes <= SBF_MAX_BYTES - 132)
		return st;
	return sbf_kind_bloom_ops.plan(n, pe, g, bytes);
}

/* Segmented filters from this size on are made with room for a dense HyperLogLog. */
#define ROOM_MIN_BYTES		((size_t) 1 << 20)

/*
 * A new filter of either form: checks the parameters and that a first
 * segment of n elements at error pe can be built (an impossible one fails at
 * creation, as in 1.0, even for the exact form), allocates the zeroed
 * payload after prefix and writes its header.  The exact form is empty and
 * converts to that segment (flags: CHAIN); else the segment is its only one
 * (flags: OVERLAP, CHAIN).
 */
static SbfStatus
create_filter(SbfFilter *f, const SbfParams *p, uint64_t n, double pe,
			  bool exact, uint8_t flags, size_t prefix, const SbfAllocator *a)
{
	uint64_t	m;
	uint32_t	k;
	SbfKindGeom g;
	uint64_t	bytes;
	size_t		pad;
	size_t		start = 0;
	size_t		size;
	size_t		room;
	uint8_t    *base;
	uint8_t    *buf;
	SbfStatus	st;

	sbf_filter_start(f, prefix, a);

	st = sbf_params_check(p);
	if (st != SBF_OK)
		return st;
	if (n < 1)
		return SBF_E_PARAM;
	/* the exact form stores a first segment 1.2 could build (its validator's rule) */
	if (!sbf_segment_geometry(n, pe, SBF_MAX_SEGMENT_BITS, &m, &k) ||
		sbf_payload_size(1, &m, 0) > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	/*
	 * The exact form's bytes do not depend on the segment's geometry, only
	 * on whether one can be planned: when the bloom plan fits, so does
	 * first_segment_plan (its blocked plan, or bloom as its fallback), and
	 * the blocked plan, a search over its rate bound that costs far more
	 * than the rest of a small group's final, is not run for nothing.
	 */
	if (!exact || sbf_kind_bloom_ops.plan(n, pe, &g, &bytes) != SBF_OK ||
		bytes > SBF_MAX_BYTES - sbf_kind_area_start(&g, sbf_prefix_size(1), &pad))
	{
		st = first_segment_plan(n, pe, &g, &bytes);
		if (st != SBF_OK)
			return st;
	}
	start = sbf_kind_area_start(&g, sbf_prefix_size(1), &pad);
	if (bytes > SBF_MAX_BYTES - start)
		return SBF_E_TOO_LARGE;
	size = exact ? SBF_EXACT_HEADER_BYTES : start + (size_t) bytes;
	/*
	 * A large segment gets room for its dense HyperLogLog up front: filled,
	 * it has one, and growing a large chunk later may copy it (a chunk the
	 * allocator hinted for huge pages cannot be remapped): twice the filter
	 * in memory at the end of a build.
	 */
	room = !exact && size >= ROOM_MIN_BYTES ? SBF_HLL_DENSE_BYTES(p->hll_p) : 0;
	if (room > SBF_MAX_BYTES - size)
		room = SBF_MAX_BYTES - size;	/* never past the largest payload */
	if (prefix > SIZE_MAX - size - room)
		return SBF_E_TOO_LARGE;

	base = a->alloc(prefix + size + room, a->ctx);
	if (base == NULL)
		return SBF_E_NOMEM;
	memset(base, 0, prefix + size);
	buf = base + prefix;
	buf[SBF_OFF_VERSION] = exact || sbf_write_v2 ? SBF_FORMAT_VERSION : SBF_FORMAT_V4;
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = p->hll_p;
	sbf_store16(buf + SBF_OFF_GROWTH, p->growth);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, p->error_rate);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, p->tightening);
	sbf_store64(buf + SBF_OFF_CAPACITY, p->capacity);
	if (exact)
	{
		buf[SBF_OFF_FLAGS] = SBF_FLAG_EXACT | (flags & SBF_FLAG_CHAIN);
		sbf_store16(buf + SBF_OFF_NSEGMENTS, 0);
		sbf_store32(buf + SBF_OFF_NHASHES, 0);
		sbf_store64(buf + SBF_OFF_FIRST_CAPACITY, n);
		sbf_store_double(buf + SBF_OFF_FIRST_ERROR, pe);
	}
	else
	{
		buf[SBF_OFF_FLAGS] = flags & (SBF_FLAG_OVERLAP | SBF_FLAG_CHAIN);
		sbf_store16(buf + SBF_OFF_NSEGMENTS, 1);
		sbf_store32(buf + SBF_OFF_HLL_BYTES, 0);
		sbf_write_entry(buf, 0, n, 0, pe, &g);
	}
	f->base = base;
	f->len = size;
	f->cap = size + room;
	return SBF_OK;
}

/*
 * Creates a segmented filter whose only segment is built for n elements at
 * error pe, with the given flags (OVERLAP, CHAIN).
 */
SbfStatus
sbf_create_segments(SbfFilter *f, const SbfParams *p, uint64_t n, double pe,
					uint8_t flags, size_t prefix, const SbfAllocator *a)
{
	return create_filter(f, p, n, pe, false, flags, prefix, a);
}

/* New empty filter (exact form converting to one segment of p->capacity). */
SbfStatus
sbf_create(SbfFilter *f, const SbfParams *p, size_t prefix, const SbfAllocator *a)
{
	return create_filter(f, p, p->capacity,
						 sbf_next_error(p->error_rate, p->tightening, 0.0, 0.0),
						 true, 0, prefix, a);
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
		return create_filter(f, p, n, pe, true, 0, prefix, a);
	return sbf_create_segments(f, p, n, pe, 0, prefix, a);
}

/* Copy of a validated view into a new mutable filter with extra room. */
SbfStatus
sbf_copy(SbfFilter *f, const SbfView *v, size_t prefix, size_t extra,
		 const SbfAllocator *a)
{
	size_t		cap;
	uint8_t    *base;

	sbf_filter_start(f, prefix, a);

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

static void replace_filter(SbfFilter *f, SbfFilter *g);

/*
 * Adds n hashes to the compact value v of f: to its segmented form, built
 * in a new buffer that replaces f's on success (a failure leaves f as it
 * was).
 */
static SbfStatus
compact_add(SbfFilter *f, const SbfView *v, const uint64_t *h, size_t n,
			bool *inserted)
{
	SbfFilter	g;
	SbfStatus	st = sbf_view_expand(v, &g, f->prefix, f->a);

	if (st == SBF_OK)
		st = n == 1 ? sbf_add_hash(&g, *h, inserted) : sbf_add_hashes(&g, h, n);
	if (st != SBF_OK)
	{
		sbf_filter_free(&g);
		return st;
	}
	memcpy(g.base, f->base, f->prefix);
	replace_filter(f, &g);
	return SBF_OK;
}

/* Updates only the HyperLogLog. */
SbfStatus
sbf_hll_add_hash(SbfFilter *f, uint64_t h)
{
	SbfView		v;
	SbfStatus	st;

	sbf_filter_view(f, &v);
	/* the exact and compact forms count without a HyperLogLog */
	if (sbf_is_exact(&v) || sbf_is_compact(&v))
		return SBF_OK;
	st = sbf_filter_reserve(f, f->len + (hll_size_after(&v, h) - v.hll_bytes));
	if (st != SBF_OK)
		return st;
	sbf_upgrade_v4(f);
	hll_apply(f, h);
	return SBF_OK;
}

/*
 * Adds an element by hash: HyperLogLog only if probably present, else its
 * bits go into the last segment, appended first when that one is full or
 * cannot take inserts (sbf_grow_add).  (The exact form: sbf_exact_add.)
 * Every failure happens before the payload changes, so a failed add leaves
 * a 1.0-1.2 value unrelabelled too.
 */
SbfStatus
sbf_add_hash(SbfFilter *f, uint64_t h, bool *inserted)
{
	SbfView		v;
	SbfStatus	st;

	if (inserted)
		*inserted = false;
	sbf_filter_view(f, &v);
	if (sbf_is_exact(&v))
		return sbf_exact_add(f, h, inserted);
	/* the compact form: kept when h matches, rewritten while it fits */
	if (sbf_is_compact(&v))
	{
		if (sbf_compact_view_keeps(&v, h))
			return SBF_OK;
		if (sbf_compact_add_in_place(f, &v, &h, 1, inserted, &st))
			return st;
		return compact_add(f, &v, &h, 1, inserted);
	}
	if (sbf_contains_hash(&v, h))
		return sbf_hll_add_hash(f, h);
	st = sbf_grow_add(f, h, hll_size_after(&v, h) - v.hll_bytes);
	if (st != SBF_OK)
		return st;
	hll_apply(f, h);
	if (inserted)
		*inserted = true;
	return SBF_OK;
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
 * Hashes whose positions are computed and prefetched together before any of
 * their bits is tested, and the largest k this is done for (the positions of
 * a group take SBF_BATCH * SBF_BATCH_MAX_K * 8 bytes of stack).
 */
#define SBF_BATCH			16
#define SBF_BATCH_MAX_K		32

#if defined(__GNUC__) || defined(__clang__)
#define SBF_PREFETCH_W(p)	__builtin_prefetch((p), 1, 1)
#else
#define SBF_PREFETCH_W(p)	((void) (p))
#endif

/*
 * Tests and sets the k bits of each of n hashes in one segment of m bits, in
 * order, and returns count plus the number of hashes that had a clear bit.
 * For a filter larger than the CPU caches every bit costs a cache miss, one
 * after the other.  So the positions of SBF_BATCH hashes are computed first
 * and their bytes prefetched, and only then are the bits tested and set --
 * still hash by hash and position by position, so the result (and whether a
 * hash counts, which depends on the bits set by the hashes before it) is
 * exactly that of the plain loop.
 */
static uint64_t
set_bits_batched(uint8_t *words, uint64_t m, uint32_t k, const uint64_t *h,
				 size_t n, uint64_t count)
{
	uint64_t	pos[SBF_BATCH * SBF_BATCH_MAX_K];
	size_t		base;

	for (base = 0; base < n; base += SBF_BATCH)
	{
		size_t		nb = n - base < SBF_BATCH ? n - base : SBF_BATCH;
		size_t		b;
		uint64_t   *p = pos;

		for (b = 0; b < nb; b++)
		{
			SbfPosIter	it;
			uint32_t	j;

			sbf_pos_start(&it, h[base + b], sbf_mix64(h[base + b]) | 1, m);
			for (j = 0; j < k; j++)
			{
				*p = sbf_pos_next(&it);
				SBF_PREFETCH_W(words + (*p >> 3));
				p++;
			}
		}
		p = pos;
		for (b = 0; b < nb; b++)
		{
			uint8_t		clear = 0;
			uint32_t	j;

			for (j = 0; j < k; j++, p++)
			{
				uint8_t    *byte = words + (*p >> 3);
				uint8_t		bit = (uint8_t) (1u << (*p & 7));

				clear |= (uint8_t) (~*byte & bit);
				*byte |= bit;
			}
			count += clear != 0;
		}
	}
	return count;
}

/*
 * Adds n hashes as n sbf_add_hash calls would.  Fast path, for a filter
 * with one segment that has room for all n (the aggregate's right-sized
 * build): one view; each hash tests and sets its k bits in one pass and
 * counts only if one of them was clear (the same as "not probably present"
 * for a single segment); the HyperLogLog registers are updated unpacked and
 * encoded once, canonically, as the one-by-one path leaves them.
 */
static SbfStatus
add_hashes_run(SbfFilter *f, const uint64_t *h, size_t n)
{
	const SbfAllocator *a = f->a;
	SbfView		v;
	SbfDirEntry seg;
	uint8_t    *regs;
	uint8_t    *buf;
	uint8_t    *words;
	uint64_t	count;
	size_t		nbytes;
	size_t		i;
	bool		dense;
	int			p;
	SbfStatus	st;

	sbf_filter_view(f, &v);
	/*
	 * exact: ascending runs while it stays exact; the hash that ends a run
	 * goes through sbf_add_hash, which converts when that is the reason
	 */
	while (sbf_is_exact(&v) && n > 0)
	{
		size_t		used;

		st = sbf_exact_add_run(f, h, n, &used);
		if (st != SBF_OK)
			return st;
		h += used;
		n -= used;
		if (n > 0)
		{
			st = sbf_add_hash(f, *h++, NULL);
			if (st != SBF_OK)
				return st;
			n--;
		}
		sbf_filter_view(f, &v);
	}
	if (n == 0)
		return SBF_OK;
	sbf_last_entry(&v, &seg);
	if (v.nsegments != 1 || seg.ops->insert == NULL ||
		seg.count > seg.capacity || n > seg.capacity - seg.count)
		return add_each(f, h, n);

	p = v.hll_p;
	regs = a->alloc(SBF_HLL_REGISTERS(p), a->ctx);
	if (regs == NULL)
		return SBF_E_NOMEM;
	sbf_hll_unpack(v.buf + v.hll_offset, v.hll_bytes,
				   (v.flags & SBF_FLAG_HLL_DENSE) != 0, p, regs);
	sbf_hll_regs_add(regs, p, h, n);
	nbytes = sbf_hll_encoded_size(regs, p, &dense);
	/* registers only grow: the area never shrinks */
	st = sbf_filter_reserve(f, f->len - v.hll_bytes + nbytes);
	if (st != SBF_OK)
	{
		a->free(regs, a->ctx);
		return st;
	}

	/* from here on nothing can fail */
	sbf_upgrade_v4(f);
	buf = SBF_PAYLOAD(f);
	words = buf + seg.data;
	count = seg.count;
	if (!sbf_kind_is_flat(&seg.g))
	{
		/* one line an element: no batch needed */
		for (i = 0; i < n; i++)
			count += seg.ops->insert(&seg.g, words, h[i]) ? 1 : 0;
	}
	else if (seg.g.width <= SBF_BATCH_MAX_K && seg.bytes > SBF_CACHED_BITS)
		count = set_bits_batched(words, seg.g.size, seg.g.width, h, n, count);
	else
	{
		/* in the caches, or k too large for the batch: hash by hash */
		for (i = 0; i < n; i++)
			count += sbf_bloom_set(words, seg.g.size, seg.g.width, h[i]) ? 1 : 0;
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

/*
 * Bit probes an add of one hash may cost in filter f: a lookup in every
 * segment (k probes each) and the k bits of the last, or a new one; an
 * exact-form add (a binary search and a move of at most SBF_EXACT_MAX
 * hashes) counts as SBF_MAX_K.
 */
static uint64_t
add_cost(const SbfFilter *f)
{
	SbfView		v;
	SbfDirIter	it;
	SbfDirEntry e;
	uint64_t	cost = SBF_MAX_K;

	sbf_filter_view(f, &v);
	if (sbf_is_exact(&v))
		return cost;
	sbf_dir_view(&it, &v);
	while (sbf_dir_next(&it, &e))
		cost += e.g.width;
	return cost;
}

/*
 * Adds n hashes as n sbf_add_hash calls would (add_hashes_run), in chunks of
 * at most SBF_WORK_STRIDE bit probes (add_cost per hash, at least one hash),
 * with an interrupt check between chunks: an input may hold millions of
 * hashes, and a crafted filter 4,096 segments of 64 hash functions that
 * every add scans.  Chunking changes no byte of the result.
 */
SbfStatus
sbf_add_hashes(SbfFilter *f, const uint64_t *h, size_t n)
{
	SbfView		v;

	/* the compact form: kept while the hashes match, rewritten while they fit */
	sbf_filter_view(f, &v);
	if (sbf_is_compact(&v))
	{
		SbfStatus	st;

		while (n > 0 && sbf_compact_view_keeps(&v, *h))
		{
			h++;
			n--;
		}
		if (n == 0 || sbf_compact_add_in_place(f, &v, h, n, NULL, &st))
			return n == 0 ? SBF_OK : st;
		return compact_add(f, &v, h, n, NULL);
	}
	while (n > 0)
	{
		uint64_t	per = add_cost(f);
		size_t		chunk = per >= SBF_WORK_STRIDE ? 1 :
			(size_t) (SBF_WORK_STRIDE / per);
		SbfStatus	st;

		if (chunk > n)
			chunk = n;
		st = add_hashes_run(f, h, chunk);
		if (st != SBF_OK)
			return st;
		h += chunk;
		n -= chunk;
		if (n > 0)
			sbf_check_interrupt(f->a);
	}
	return SBF_OK;
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
	double		error;
	SbfStatus	st;

	if (sbf_is_compact(v))
	{
		/* the delta of its segmented form, which continues the same chain */
		SbfFilter	x;
		SbfView		xv;

		/* f empty on failure, as every branch leaves it */
		sbf_filter_start(f, prefix, a);
		st = sbf_view_expand(v, &x, 0, a);
		if (st != SBF_OK)
			return st;
		sbf_filter_view(&x, &xv);
		st = sbf_delta(f, &xv, prefix, a);
		sbf_filter_free(&x);
		return st;
	}
	sbf_view_params(v, &p);
	sbf_filter_start(f, prefix, a);
	if (sbf_is_exact(v))
		return create_filter(f, &p, v->first_capacity, v->first_error, true,
							 v->flags & SBF_FLAG_CHAIN, prefix, a);
	st = sbf_plan_next(v, &capacity, &error);
	if (st != SBF_OK)
		return st;
	/* growth continues from the new segment: min(cap s, cap s^i) agree */
	p.capacity = capacity;
	return create_filter(f, &p, capacity, error, true, SBF_FLAG_CHAIN, prefix, a);
}

/*
 * Builds into g the segmented value of an exact view's header holding the
 * ascending hashes h[0..n): its first segment, then one add per hash.
 */
SbfStatus
sbf_build_segments(SbfFilter *g, const SbfView *v, const uint64_t *h, size_t n,
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

	sbf_filter_view(f, &v);
	if (sbf_is_compact(&v))
	{
		st = sbf_view_expand(&v, &g, f->prefix, a);
		if (st == SBF_OK)
			replace_filter(f, &g);
		return st;
	}
	sbf_upgrade_v4(f);
	sbf_filter_view(f, &v);
	if (!sbf_is_exact(&v))
		return SBF_OK;
	h = sbf_exact_hashes(&v, a);
	if (h == NULL)
		return SBF_E_NOMEM;
	st = sbf_build_segments(&g, &v, h, v.nhashes, f->prefix, a);
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
	if (!sbf_exact_fits(&v, &h, 1))
	{
		/* convert into a new buffer, so that a failure leaves f as it was */
		SbfFilter	g;
		uint64_t   *hs = sbf_exact_hashes(&v, f->a);

		if (hs == NULL)
			return SBF_E_NOMEM;
		st = sbf_build_segments(&g, &v, hs, v.nhashes, f->prefix, f->a);
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
