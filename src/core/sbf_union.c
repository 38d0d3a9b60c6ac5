/*
 * sbf_union.c
 *	  Union of filters: one compatibility rule, a plan and an apply step.
 *
 * A union is a function of the multiset of its inputs' segments, never of
 * the order the inputs come in, so sbf_union(a, b) and sbf_union(b, a) give
 * the same bytes, and so does an aggregate over any row order:
 *
 *	1. plan, collect: every input segment becomes an item with its set-bit
 *	   count and a digest (XXH3) of its words.  Items are sorted into the
 *	   canonical order: geometry (capacity, nbits, k, error) ascending --
 *	   a growth chain keeps its order, the open segment stays last -- then
 *	   set bits descending, digest, words.  Equal neighbours (same geometry,
 *	   same words) are one segment: a duplicate changes no answer.  A
 *	   segment without a set bit is dropped unless it is all there is.
 *	2. plan, merge (optional): within one geometry, in that order, an item
 *	   is OR-ed into the first earlier result segment it fits: its bits are
 *	   a subset of that segment's, or the OR's fill stays at most the fill
 *	   expected at capacity, 1 - e^(-k cap / m), so the segment's error p
 *	   still holds.  Whether it fits is first decided from the set-bit
 *	   counts alone (ones(a) + ones(b) within the limit); only when that
 *	   cannot decide are the words compared, with an early exit, and for at
 *	   most UNION_MAX_SCANS candidates per item: the plan is linear in the
 *	   words, never every segment against every segment word by word.  An
 *	   item that fits nowhere is a result segment of its own (appended).
 *	3. plan, budget: the result's fpr_bound is the sum of its segments' p;
 *	   with tightening < 1 a result over the error_rate is refused
 *	   (SBF_E_OVER_BUDGET) when the caller asks for the check.
 *	4. apply: the result segments are sorted again in canonical order (on
 *	   their final bits, so that a union of the result with itself keeps
 *	   it byte for byte) and written into a new buffer;
 *	   the HyperLogLogs are merged register-wise at the smallest precision.
 *	   The destination of sbf_union is replaced only on success.
 *
 * Exact inputs, and the entry points sbf_union, sbf_union_budget and
 * sbf_union_many, are in sbf_union_many.c.
 *
 * Flags of a result with segments: CHAIN when every input has it; OVERLAP
 * (the directory counts may count an element twice, so the HyperLogLog
 * answers) unless the result's directory and bits equal, byte for byte,
 * those of a version-2 input without OVERLAP (then the counts are that
 * input's).  Both rules are symmetric, so sbf_union(a, b) and sbf_union(b,
 * a) give the same bytes.  Adding exact hashes afterwards is a series of
 * adds and keeps OVERLAP as it is.  Version-1 inputs (1.0 values) unite
 * with version 2; the result is version 2.
 *
 * Long loops call the allocator's interrupt callback (a PostgreSQL backend
 * passes CHECK_FOR_INTERRUPTS), which may not return.
 */
#include <math.h>
#include <stdlib.h>

#include "sbf_dir.h"

/*
 * Word-by-word comparisons an item may make with candidate result segments
 * when the set-bit counts cannot decide.  Enough for the cases that matter
 * (a filter and a superset of it, two half-full segments that overlap); a
 * segment that would need more is appended instead, which is safe.
 */
#define UNION_MAX_SCANS			8

/* Words processed between two interrupt checks inside one segment. */
#define UNION_CHUNK_WORDS		((uint64_t) 1 << 16)

/* Word-by-word comparisons of unions in this process (sbf_internal.h). */
uint64_t	sbf_union_word_scans = 0;

/* One input segment. */
typedef struct UnionItem
{
	uint64_t	capacity;
	uint64_t	count;
	uint64_t	nbits;
	double		error;
	uint32_t	k;
	uint64_t	ones;			/* set bits */
	uint64_t	digest;			/* XXH3 of its words */
	const uint8_t *words;
} UnionItem;

/* One result segment: an item, and what was OR-ed into it. */
typedef struct UnionOut
{
	const UnionItem *seed;
	uint64_t	ones;
	uint64_t	count;
	bool		grew;			/* a merge added bits: count re-estimated */
	uint8_t    *bits;			/* private copy once bits were added */
} UnionOut;

/*
 * Named scratch of a union: each array is sized by its own count and
 * allocated on its own.
 */
typedef struct UnionScratch
{
	UnionItem  *items;			/* nitems input segments, canonical order */
	uint32_t	nitems;
	UnionOut   *out;			/* nout result segments */
	uint32_t	nout;
	uint8_t    *regs;			/* 2^maxp: one input's registers */
	uint8_t    *folded;			/* 2^p: those folded to the result's p */
	uint8_t    *merged;			/* 2^p: the result's registers */
} UnionScratch;

/* What the apply step writes. */
typedef struct UnionPlan
{
	const SbfView *first;		/* header fields common to all inputs */
	double		error_rate;
	uint64_t	capacity;		/* largest initial capacity */
	int			hll_p;			/* smallest precision */
	bool		dense;
	size_t		hll_bytes;
	size_t		len;
	double		bound;
	uint8_t		flags;			/* OVERLAP and CHAIN of the result */
	UnionScratch s;
} UnionPlan;

/* True when two doubles have the same bits. */
static bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

/* Bit mask (SBF_DIFF_*) of the parameters in which two filters differ. */
uint32_t
sbf_union_mismatch(const SbfView *a, const SbfView *b)
{
	uint32_t	diff = 0;

	/* versions 1 and 2 unite (the result is version 2); no other exists */
	if (a->version != b->version && !sbf_versions_unite(a->version, b->version))
		diff |= SBF_DIFF_VERSION;
	if (a->hash_id != b->hash_id)
		diff |= SBF_DIFF_HASH;
	if (a->growth != b->growth)
		diff |= SBF_DIFF_GROWTH;
	if (!same_double(a->tightening, b->tightening))
		diff |= SBF_DIFF_TIGHTENING;
	if (!same_double(a->error_rate, b->error_rate))
		diff |= SBF_DIFF_ERROR_RATE;
	return diff;
}

/* Frees the scratch (safe on a partly allocated one). */
static void
union_scratch_free(UnionScratch *s, const SbfAllocator *a)
{
	uint32_t	i;

	if (s->out != NULL)
		for (i = 0; i < s->nout; i++)
			if (s->out[i].bits != NULL)
				a->free(s->out[i].bits, a->ctx);
	if (s->items != NULL)
		a->free(s->items, a->ctx);
	if (s->out != NULL)
		a->free(s->out, a->ctx);
	if (s->regs != NULL)
		a->free(s->regs, a->ctx);
	if (s->folded != NULL)
		a->free(s->folded, a->ctx);
	if (s->merged != NULL)
		a->free(s->merged, a->ctx);
	memset(s, 0, sizeof(*s));
}

/* Number of 64-bit words of a segment of m bits. */
static inline uint64_t
union_nwords(uint64_t m)
{
	return sbf_words_bytes(m) / 8;
}

/* Loads word w of a bit array (OR and popcount do not care about order). */
static inline uint64_t
union_word(const uint8_t *words, uint64_t w)
{
	uint64_t	x;

	memcpy(&x, words + w * 8, 8);
	return x;
}

/* Fills an item's set-bit count and digest, checking for interrupts. */
static void
union_item_scan(UnionItem *it, const SbfAllocator *a)
{
	uint64_t	n = union_nwords(it->nbits);
	uint64_t	ones = 0;
	uint64_t	w;

	for (w = 0; w < n; w++)
	{
		if (w % UNION_CHUNK_WORDS == UNION_CHUNK_WORDS - 1)
			sbf_check_interrupt(a);
		ones += (uint64_t) sbf_popcount64(union_word(it->words, w));
	}
	it->ones = ones;
	it->digest = sbf_hash(it->words, (size_t) n * 8);
}

/* Three-way comparison of two values. */
#define UNION_CMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)

/* Orders items by geometry only. */
static int
union_geometry_cmp(const UnionItem *x, const UnionItem *y)
{
	UNION_CMP(x->capacity, y->capacity);
	UNION_CMP(x->nbits, y->nbits);
	UNION_CMP(x->k, y->k);
	UNION_CMP(x->error, y->error);
	return 0;
}

/* The canonical order of items (see the file header); 0 means equal words. */
static int
union_item_cmp(const void *pa, const void *pb)
{
	const UnionItem *x = pa;
	const UnionItem *y = pb;
	int			c = union_geometry_cmp(x, y);

	if (c != 0)
		return c;
	UNION_CMP(y->ones, x->ones);	/* fuller first */
	UNION_CMP(x->digest, y->digest);
	return memcmp(x->words, y->words, (size_t) sbf_words_bytes(x->nbits));
}

/*
 * Collects the inputs' segments into s->items in canonical order, and checks
 * that the inputs can be united: equal version, hash, growth and tightening,
 * and equal error_rate unless the caller sets the result's.
 */
static SbfStatus
union_collect(UnionPlan *pl, const SbfView *in, uint32_t n, bool own_rate,
			  const SbfAllocator *a)
{
	uint64_t	total = 0;
	uint32_t	i;
	UnionItem  *it;

	for (i = 0; i < n; i++)
	{
		uint32_t	diff = sbf_union_mismatch(&in[0], &in[i]);

		if (!own_rate)
			diff &= ~(uint32_t) SBF_DIFF_ERROR_RATE;
		if (diff != 0)
			return SBF_E_INCOMPATIBLE;
		total += in[i].nsegments;
	}
	/* at most n * 4096 items of 64 bytes */
	if (total > SIZE_MAX / sizeof(UnionItem))
		return SBF_E_TOO_LARGE;
	pl->s.items = a->alloc((size_t) total * sizeof(UnionItem), a->ctx);
	if (pl->s.items == NULL)
		return SBF_E_NOMEM;
	it = pl->s.items;
	for (i = 0; i < n; i++)
	{
		SbfDirIter	di;
		SbfDirEntry e;

		sbf_dir_view(&di, &in[i]);
		while (sbf_dir_next(&di, &e))
		{
			it->capacity = e.capacity;
			it->count = e.count;
			it->nbits = e.g.size;
			it->error = e.error;
			it->k = e.g.width;
			it->words = in[i].buf + e.data;
			union_item_scan(it, a);
			sbf_check_interrupt(a);
			it++;
		}
	}
	pl->s.nitems = (uint32_t) total;
	qsort(pl->s.items, total, sizeof(UnionItem), union_item_cmp);
	sbf_check_interrupt(a);
	return SBF_OK;
}

/*
 * Most set bits a segment of this geometry may have after an OR: the fill
 * expected at capacity, 1 - e^(-k cap / m), of its m bits.
 */
static uint64_t
union_fill_limit(const UnionItem *g)
{
	double		m = (double) g->nbits;
	double		fill = 1.0 - exp(-(double) g->k * (double) g->capacity / m);

	return (uint64_t) floor(fill * m);
}

/*
 * Bits of item x not set in result segment o, stopping early once there are
 * more than stop of them (then some number > stop is returned).
 */
static uint64_t
union_extra_bits(const UnionOut *o, const UnionItem *x, uint64_t stop,
				 const SbfAllocator *a)
{
	const uint8_t *dw = o->bits != NULL ? o->bits : o->seed->words;
	uint64_t	n = union_nwords(x->nbits);
	uint64_t	extra = 0;
	uint64_t	w;

	for (w = 0; w < n; w++)
	{
		extra += (uint64_t) sbf_popcount64(union_word(x->words, w) &
										   ~union_word(dw, w));
		if (extra > stop)
			return extra;
		if (w % UNION_CHUNK_WORDS == UNION_CHUNK_WORDS - 1)
			sbf_check_interrupt(a);
	}
	return extra;
}

/* ORs item x into result segment o, which gets its own copy of the bits. */
static SbfStatus
union_or_into(UnionOut *o, const UnionItem *x, uint64_t extra,
			  const SbfAllocator *a)
{
	size_t		nbytes = (size_t) sbf_words_bytes(x->nbits);
	uint64_t	n = union_nwords(x->nbits);
	uint64_t	w;

	if (extra == 0)
		return SBF_OK;
	if (o->bits == NULL)
	{
		o->bits = a->alloc(nbytes, a->ctx);
		if (o->bits == NULL)
			return SBF_E_NOMEM;
		memcpy(o->bits, o->seed->words, nbytes);
	}
	for (w = 0; w < n; w++)
	{
		uint64_t	v = union_word(o->bits, w) | union_word(x->words, w);

		memcpy(o->bits + w * 8, &v, 8);
		if (w % UNION_CHUNK_WORDS == UNION_CHUNK_WORDS - 1)
			sbf_check_interrupt(a);
	}
	o->ones += extra;
	o->grew = true;
	return SBF_OK;
}

/*
 * Whether item x may be OR-ed into result segment o of the same geometry,
 * and the bits it would add.  *scans counts word-by-word comparisons.
 */
static bool
union_fits(const UnionOut *o, const UnionItem *x, uint64_t limit,
		   uint32_t *scans, uint64_t *extra, const SbfAllocator *a)
{
	uint64_t	room = o->ones <= limit ? limit - o->ones : 0;

	/* decided by counts: the OR cannot pass the limit */
	if (x->ones <= room)
	{
		*extra = union_extra_bits(o, x, UINT64_MAX, a);
		return true;
	}
	/* decided by counts: x has at least x->ones - o->ones bits o lacks */
	if (x->ones > o->ones && x->ones - o->ones > room)
		return false;
	if (*scans >= UNION_MAX_SCANS)
		return false;
	(*scans)++;
	sbf_union_word_scans++;
	*extra = union_extra_bits(o, x, room, a);
	return *extra <= room;
}

/*
 * Drops items equal to their predecessor, keeping the larger count, and
 * segments without a set bit (they answer no to everything, so they would
 * only add their error to the bound) unless nothing else is left.
 */
static void
union_dedupe(UnionScratch *s, const SbfAllocator *a)
{
	uint32_t	n = 0;
	uint32_t	i;
	bool		any_bits = false;

	for (i = 0; i < s->nitems; i++)
		any_bits |= s->items[i].ones > 0;
	for (i = 0; i < s->nitems; i++)
	{
		if (i % 64 == 63)
			sbf_check_interrupt(a);
		if (s->items[i].ones == 0 && (any_bits || n > 0))
			continue;
		if (n > 0 && union_item_cmp(&s->items[n - 1], &s->items[i]) == 0)
		{
			if (s->items[i].count > s->items[n - 1].count)
				s->items[n - 1].count = s->items[i].count;
			continue;
		}
		s->items[n++] = s->items[i];
	}
	s->nitems = n;
}

/*
 * Turns the canonical, distinct items into result segments; with merge, an
 * item is OR-ed into the first earlier result segment of its geometry that
 * it fits (union_fits), else it starts one.
 */
static SbfStatus
union_merge(UnionPlan *pl, bool merge, const SbfAllocator *a)
{
	UnionScratch *s = &pl->s;
	uint32_t	group = 0;		/* first result segment of this geometry */
	uint32_t	i;

	union_dedupe(s, a);
	s->out = a->alloc((size_t) (s->nitems > 0 ? s->nitems : 1) * sizeof(UnionOut),
					  a->ctx);
	if (s->out == NULL)
		return SBF_E_NOMEM;
	s->nout = 0;
	for (i = 0; i < s->nitems; i++)
	{
		const UnionItem *x = &s->items[i];
		UnionOut   *o;
		bool		placed = false;

		sbf_check_interrupt(a);
		if (s->nout > group &&
			union_geometry_cmp(s->out[group].seed, x) != 0)
			group = s->nout;
		if (merge)
		{
			uint64_t	limit = union_fill_limit(x);
			uint32_t	scans = 0;
			uint32_t	b;

			for (b = group; b < s->nout && !placed; b++)
			{
				uint64_t	extra = 0;
				SbfStatus	st;

				o = &s->out[b];
				if (!union_fits(o, x, limit, &scans, &extra, a))
					continue;
				st = union_or_into(o, x, extra, a);
				if (st != SBF_OK)
					return st;
				if (x->count > o->count)
					o->count = x->count;
				placed = true;
			}
		}
		if (!placed)
		{
			o = &s->out[s->nout++];
			o->seed = x;
			o->ones = x->ones;
			o->count = x->count;
			o->grew = false;
			o->bits = NULL;
		}
	}
	return SBF_OK;
}

/* The bits of a result segment. */
static inline const uint8_t *
union_out_words(const UnionOut *o)
{
	return o->bits != NULL ? o->bits : o->seed->words;
}

/*
 * The canonical order of result segments, as of items but on their final
 * bits: a segment that took bits by OR may now come before another of its
 * geometry, and the result must be in the order a further union (of the
 * result with itself) would sort it into.
 */
static int
union_out_cmp(const void *pa, const void *pb)
{
	const UnionOut *x = pa;
	const UnionOut *y = pb;
	int			c = union_geometry_cmp(x->seed, y->seed);

	if (c != 0)
		return c;
	UNION_CMP(y->ones, x->ones);	/* fuller first */
	return memcmp(union_out_words(x), union_out_words(y),
				  (size_t) sbf_words_bytes(x->seed->nbits));
}

/*
 * Count of a result segment that took new bits: the larger of its members'
 * counts and of the union's size estimated from the fill, -(m/k) ln(1 -
 * fill) (Swamidass & Baldi 2007), at most the capacity.
 */
static uint64_t
union_count(const UnionOut *o)
{
	const UnionItem *g = o->seed;
	double		m = (double) g->nbits;
	double		fill = (double) o->ones / m;
	double		est;

	if (!o->grew)
		return o->count;
	est = fill < 1.0 ? -(m / g->k) * log(1.0 - fill) : (double) g->capacity;
	if (est > (double) o->count)
		return est >= (double) g->capacity ? g->capacity : (uint64_t) (est + 0.5);
	return o->count;
}

/* Merges the inputs' HyperLogLogs at the smallest precision. */
static SbfStatus
union_hll(UnionPlan *pl, const SbfView *in, uint32_t n, const SbfAllocator *a)
{
	UnionScratch *s = &pl->s;
	int			maxp = in[0].hll_p;
	int			p = in[0].hll_p;
	uint32_t	i;
	uint32_t	j;

	for (i = 1; i < n; i++)
	{
		if (in[i].hll_p > maxp)
			maxp = in[i].hll_p;
		if (in[i].hll_p < p)
			p = in[i].hll_p;
	}
	s->regs = a->alloc(SBF_HLL_REGISTERS(maxp), a->ctx);
	s->folded = a->alloc(SBF_HLL_REGISTERS(p), a->ctx);
	s->merged = a->alloc(SBF_HLL_REGISTERS(p), a->ctx);
	if (s->regs == NULL || s->folded == NULL || s->merged == NULL)
		return SBF_E_NOMEM;
	memset(s->merged, 0, SBF_HLL_REGISTERS(p));
	for (i = 0; i < n; i++)
	{
		sbf_hll_unpack(in[i].buf + in[i].hll_offset, in[i].hll_bytes,
					   (in[i].flags & SBF_FLAG_HLL_DENSE) != 0, in[i].hll_p,
					   s->regs);
		sbf_hll_fold(s->regs, in[i].hll_p, p, s->folded);
		for (j = 0; j < SBF_HLL_REGISTERS(p); j++)
			if (s->folded[j] > s->merged[j])
				s->merged[j] = s->folded[j];
		sbf_check_interrupt(a);
	}
	pl->hll_p = p;
	pl->hll_bytes = sbf_hll_encoded_size(s->merged, p, &pl->dense);
	return SBF_OK;
}

/*
 * Plans the union of n >= 1 validated views: canonical segments, merges,
 * HyperLogLog, size and fpr_bound.  Nothing is written.
 */
static SbfStatus
union_plan(UnionPlan *pl, const SbfView *in, uint32_t n,
		   const SbfUnionSpec *spec, const SbfAllocator *a)
{
	bool		own_rate = !(spec->error_rate > 0.0);
	uint64_t	len;
	uint32_t	i;
	SbfStatus	st;

	memset(pl, 0, sizeof(*pl));
	pl->first = &in[0];
	if (!own_rate && !(spec->error_rate < 0.5))
		return SBF_E_PARAM;
	pl->error_rate = own_rate ? in[0].error_rate : spec->error_rate;
	for (i = 0; i < n; i++)
		if (in[i].capacity > pl->capacity)
			pl->capacity = in[i].capacity;

	st = union_collect(pl, in, n, own_rate, a);
	if (st == SBF_OK)
		st = union_merge(pl, spec->merge, a);
	if (st == SBF_OK)
		st = union_hll(pl, in, n, a);
	if (st != SBF_OK)
		return st;
	if (pl->s.nout > SBF_MAX_SEGMENTS)
		return SBF_E_TOO_MANY_SEGMENTS;
	if (spec->merge)
		qsort(pl->s.out, pl->s.nout, sizeof(UnionOut), union_out_cmp);

	len = SBF_HEADER_BYTES + (uint64_t) pl->s.nout * SBF_SEGDIR_BYTES + pl->hll_bytes;
	pl->bound = 0.0;
	for (i = 0; i < pl->s.nout; i++)
	{
		len += sbf_words_bytes(pl->s.out[i].seed->nbits);
		if (len > SBF_MAX_BYTES)
			return SBF_E_TOO_LARGE;
		/* the same sum, in the same order, as sbf_fpr_bound */
		pl->bound += pl->s.out[i].seed->error;
	}
	pl->len = (size_t) len;
	return SBF_OK;
}

/* Writes the planned union into buf (pl->len bytes). */
static void
union_apply(const UnionPlan *pl, uint8_t *buf, const SbfAllocator *a)
{
	const SbfView *f = pl->first;
	size_t		off = SBF_HEADER_BYTES + (size_t) pl->s.nout * SBF_SEGDIR_BYTES;
	uint32_t	i;

	buf[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
	buf[SBF_OFF_FLAGS] = (uint8_t) (pl->flags | (pl->dense ? SBF_FLAG_HLL_DENSE : 0));
	buf[SBF_OFF_HASH] = f->hash_id;
	buf[SBF_OFF_HLL_P] = (uint8_t) pl->hll_p;
	sbf_store16(buf + SBF_OFF_GROWTH, f->growth);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, (uint16_t) pl->s.nout);
	sbf_store32(buf + SBF_OFF_HLL_BYTES, (uint32_t) pl->hll_bytes);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, pl->error_rate);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, f->tightening);
	sbf_store64(buf + SBF_OFF_CAPACITY, pl->capacity);
	for (i = 0; i < pl->s.nout; i++)
	{
		const UnionOut *o = &pl->s.out[i];
		const UnionItem *g = o->seed;
		uint8_t    *e = buf + SBF_SEGDIR_OFFSET(i);
		size_t		nbytes = (size_t) sbf_words_bytes(g->nbits);

		sbf_store64(e + SBF_SEG_CAPACITY, g->capacity);
		sbf_store64(e + SBF_SEG_COUNT, union_count(o));
		sbf_store64(e + SBF_SEG_NBITS, g->nbits);
		sbf_store_double(e + SBF_SEG_ERROR, g->error);
		sbf_store16(e + SBF_SEG_K, (uint16_t) g->k);
		sbf_store16(e + SBF_SEG_RESERVED16, 0);
		sbf_store32(e + SBF_SEG_RESERVED, 0);
		memcpy(buf + off, o->bits != NULL ? o->bits : g->words, nbytes);
		off += nbytes;
		sbf_check_interrupt(a);
	}
	sbf_hll_encode(pl->s.merged, pl->hll_p, pl->dense, buf + off);
}

/*
 * Sets the result's OVERLAP and CHAIN flags (see the file header, "Flags"):
 * CHAIN when every input has it; OVERLAP unless the result's directory and
 * bits equal, byte for byte, those of a version-2 input without OVERLAP.
 */
static void
union_set_flags(uint8_t *buf, size_t len, size_t hll_bytes,
				const SbfView *in, uint32_t n)
{
	size_t		start = SBF_SEGDIR_OFFSET(0);
	size_t		end = len - hll_bytes;
	uint8_t		chain = SBF_FLAG_CHAIN;
	bool		overlap = true;
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		chain &= in[i].flags;
		if (overlap && in[i].version == SBF_FORMAT_VERSION &&
			!(in[i].flags & SBF_FLAG_OVERLAP) &&
			in[i].hll_offset - start == end - start &&
			memcmp(in[i].buf + start, buf + start, end - start) == 0)
			overlap = false;
	}
	buf[SBF_OFF_FLAGS] = (uint8_t) ((buf[SBF_OFF_FLAGS] & SBF_FLAG_HLL_DENSE) |
									chain |
									(overlap ? SBF_FLAG_OVERLAP : 0));
}

/* The union of n validated segmented views into a new filter (steps 1-4). */
SbfStatus
sbf_union_segments(SbfFilter *out, const SbfView *in, uint32_t n,
			   const SbfUnionSpec *spec, double *bound, size_t prefix,
			   const SbfAllocator *a)
{
	UnionPlan	pl;
	uint8_t    *base;
	SbfStatus	st;

	sbf_filter_start(out, prefix, a);
	if (bound != NULL)
		*bound = 0.0;
	if (n == 0)
		return SBF_E_PARAM;

	st = union_plan(&pl, in, n, spec, a);
	if (st == SBF_OK && bound != NULL)
		*bound = pl.bound;
	/* a rounding margin: the sum of a growth chain's p may round above e */
	if (st == SBF_OK && spec->enforce && in[0].tightening < 1.0 &&
		pl.bound > pl.error_rate * (1.0 + 1e-9))
		st = SBF_E_OVER_BUDGET;
	if (st == SBF_OK && prefix > SIZE_MAX - pl.len)
		st = SBF_E_TOO_LARGE;
	if (st == SBF_OK)
	{
		base = a->alloc(prefix + pl.len, a->ctx);
		if (base == NULL)
			st = SBF_E_NOMEM;
		else
		{
			memset(base, 0, prefix);
			union_apply(&pl, base + prefix, a);
			union_set_flags(base + prefix, pl.len, pl.hll_bytes, in, n);
			out->base = base;
			out->len = pl.len;
			out->cap = pl.len;
		}
	}
	union_scratch_free(&pl.s, a);
	return st;
}
