/*
 * sbf_union4.c
 *	  The kind-aware steps of a union (docs/format4.md, section 7): an input
 *	  segment is scanned, ordered, merged and written through its kind's row
 *	  (sbf_kind.h: bytes, merge, rate_of), never by a loop that knows one
 *	  kind's layout; the result is written in format 4.  The plan that calls
 *	  these steps is sbf_union.c.
 *
 * Merging (the 1.1 policy, unchanged in meaning):
 *	- bloom (kind 1, relabelled 1.0-1.2 segments) with bloom of the same
 *	  capacity, bits, hashes and p, as 1.2: the OR's fill stays at most the
 *	  fill expected at capacity, 1 - e^(-k cap / m);
 *	- any other kind that merges (blocked) with a segment of the same kind,
 *	  descriptor and capacity: when its bits are a subset, or the OR's exact
 *	  rate (ops->rate_of) stays within the larger p, which the result keeps;
 *	- a kind without a merge (fused) never merges: it is appended.
 *
 * Long loops call the allocator's interrupt callback every SBF_WORK_STRIDE
 * words (the kinds' merge and rate_of run on slices of that size).
 */
#include <math.h>
#include <stdlib.h>

#include "sbf_union_int.h"

/* Words of a slice between two interrupt checks. */
#define UNION_SLICE_WORDS		SBF_WORK_STRIDE

/* Word-by-word comparisons of unions in this process (sbf_internal.h). */
uint64_t	sbf_union_word_scans = 0;

/* Three-way comparison of two values. */
#define UNION_CMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)

/* Loads word w of a data area (OR and popcount do not care about order). */
static inline uint64_t
union_word(const uint8_t *data, uint64_t w)
{
	uint64_t	x;

	memcpy(&x, data + w * 8, 8);
	return x;
}

/* Set bits of a data area of bytes bytes (a multiple of 8). */
static uint64_t
union_ones(const uint8_t *data, uint64_t bytes, const SbfAllocator *a)
{
	uint64_t	n = bytes / 8;
	uint64_t	ones = 0;
	uint64_t	w;

	for (w = 0; w < n; w++)
	{
		if (w % UNION_SLICE_WORDS == UNION_SLICE_WORDS - 1)
			sbf_check_interrupt(a);
		ones += (uint64_t) sbf_popcount64(union_word(data, w));
	}
	return ones;
}

/*
 * An item's limit of set bits (computed once: the merge loop compares it
 * with many candidates).  Bloom, as 1.2: the fill expected at capacity,
 * 1 - e^(-k cap / m), of its m bits.  Other kinds: the most ones whose
 * mean fill f keeps f^k within p; the rate of a segment with more is above
 * p, since the mean over lines of (ones/bits)^k is at least (mean ones /
 * bits)^k (Jensen).
 */
static uint64_t
union_limit(const UnionItem *it)
{
	double		m = (double) it->bits;
	double		k = (double) it->g.width;
	double		fill;

	if (it->ops->union_rule == SBF_UNION_FILL)
		fill = 1.0 - exp(-k * (double) it->capacity / m);
	else
		fill = pow(it->error, 1.0 / k);
	return (uint64_t) floor(fill * m);
}

/* Fills an item from entry e of view v. */
SbfStatus
sbf_union_item(UnionItem *it, const SbfView *v, const SbfDirEntry *e,
			   const SbfAllocator *a)
{
	memset(it, 0, sizeof(*it));
	it->ops = e->ops;
	it->g = e->g;
	it->capacity = e->capacity;
	it->count = e->count;
	it->error = e->error;
	it->bytes = e->bytes;
	if (e->st != SBF_OK || e->data > v->len || it->bytes > v->len - e->data)
		return SBF_E_SEGMENT;
	it->data = v->buf + e->data;
	if (e->ops->merge != NULL)
	{
		it->bits = sbf_kind_fill_bits(e->ops, &e->g, it->bytes);
		it->ones = union_ones(it->data, it->bytes, a);
		it->limit = union_limit(it);
	}
	it->digest = sbf_hash(it->data, (size_t) it->bytes);
	return SBF_OK;
}

/* Orders geometries: kind, then the descriptor's fields. */
static int
union_geom_cmp(const SbfKindGeom *x, const SbfKindGeom *y)
{
	UNION_CMP(x->kind, y->kind);
	UNION_CMP(x->size, y->size);
	UNION_CMP(x->width, y->width);
	UNION_CMP(x->arity, y->arity);
	UNION_CMP(x->log2_len, y->log2_len);
	UNION_CMP(x->attempt, y->attempt);
	return 0;
}

/*
 * The group key of merging: capacity and geometry, and for bloom also p (as
 * 1.2).  Items of one group are adjacent in the plan's order.
 */
static int
union_group_cmp(const UnionItem *x, const UnionItem *y)
{
	int			c;

	UNION_CMP(x->capacity, y->capacity);
	c = union_geom_cmp(&x->g, &y->g);
	if (c != 0)
		return c;
	if (x->ops->union_rule == SBF_UNION_FILL)
		UNION_CMP(x->error, y->error);
	return 0;
}

/* Whether two items may merge (see the file header). */
bool
sbf_union_same_group(const UnionItem *x, const UnionItem *y)
{
	return x->ops->merge != NULL && union_group_cmp(x, y) == 0;
}

/*
 * The plan's order: group, then larger p first (a group's first result
 * segment keeps the larger p), fuller first, digest, data.
 */
int
sbf_union_item_cmp(const void *pa, const void *pb)
{
	const UnionItem *x = pa;
	const UnionItem *y = pb;
	int			c = union_group_cmp(x, y);

	if (c != 0)
		return c;
	UNION_CMP(y->error, x->error);
	UNION_CMP(y->ones, x->ones);
	UNION_CMP(x->digest, y->digest);
	return memcmp(x->data, y->data, (size_t) x->bytes);
}

/* The data of a result segment. */
static inline const uint8_t *
union_out_data(const UnionOut *o)
{
	return o->bits != NULL ? o->bits : o->seed->data;
}

/*
 * Bits of item x not set in result segment o, stopping early once there are
 * more than stop of them (then some number > stop is returned).
 */
static uint64_t
union_extra_bits(const UnionOut *o, const UnionItem *x, uint64_t stop,
				 const SbfAllocator *a)
{
	const uint8_t *dw = union_out_data(o);
	uint64_t	n = x->bytes / 8;
	uint64_t	extra = 0;
	uint64_t	w;

	for (w = 0; w < n; w++)
	{
		extra += (uint64_t) sbf_popcount64(union_word(x->data, w) &
										   ~union_word(dw, w));
		if (extra > stop)
			return extra;
		if (w % UNION_SLICE_WORDS == UNION_SLICE_WORDS - 1)
			sbf_check_interrupt(a);
	}
	return extra;
}

/*
 * A walk over the slices of a segment: its kind's slice (bloom by words,
 * blocked by lines); a kind that is not a bit array is one slice.
 */
typedef struct UnionSlices
{
	const SbfKindOps *ops;
	const SbfKindGeom *g;
	uint64_t	unit;			/* units before this slice */
	uint64_t	take;			/* units in it; 0 before the first */
	SbfKindGeom sub;			/* its geometry */
	uint64_t	off;			/* its byte offset */
} UnionSlices;

/* The next slice into it, with an interrupt check between slices. */
static bool
union_slices_next(UnionSlices *it, const SbfAllocator *a)
{
	if (it->take == UINT64_MAX)
		return false;			/* one slice was the whole area */
	if (it->take != 0)
	{
		sbf_check_interrupt(a);
		it->unit += it->take;
	}
	if (it->ops->slice == NULL)
	{
		it->sub = *it->g;
		it->off = 0;
		it->take = UINT64_MAX;
		return true;
	}
	it->take = it->ops->slice(it->g, it->unit, UNION_SLICE_WORDS, &it->sub, &it->off);
	return it->take != 0;
}

/* dst |= src through the kind's merge, slice by slice. */
static void
union_merge_data(const UnionItem *x, uint8_t *dst, const uint8_t *src,
				 const SbfAllocator *a)
{
	UnionSlices it = {.ops = x->ops, .g = &x->g};

	while (union_slices_next(&it, a))
		x->ops->merge(&it.sub, dst + it.off, src + it.off);
}

/*
 * The kind's rate_of of data (a kind of rule SBF_UNION_RATE), slice by
 * slice when it slices (blocked: the mean over lines is the lines-weighted
 * mean over slices); other kinds at once.
 */
static double
union_rate_data(const UnionItem *x, const uint8_t *data, const SbfAllocator *a)
{
	UnionSlices it = {.ops = x->ops, .g = &x->g};
	double		sum = 0.0;
	uint64_t	units = 0;

	if (x->ops->slice == NULL)
		return x->ops->rate_of(&x->g, data);
	while (union_slices_next(&it, a))
	{
		sum += x->ops->rate_of(&it.sub, data + it.off) * (double) it.take;
		units += it.take;
	}
	return sum / (double) units;
}

/* Gives result segment o its own copy of its data. */
static SbfStatus
union_own(UnionOut *o, const SbfAllocator *a)
{
	if (o->bits != NULL)
		return SBF_OK;
	o->bits = a->alloc((size_t) o->seed->bytes, a->ctx);
	if (o->bits == NULL)
		return SBF_E_NOMEM;
	memcpy(o->bits, o->seed->data, (size_t) o->seed->bytes);
	return SBF_OK;
}

/*
 * Bloom, as 1.2: most set bits a segment may have after an OR is x->limit
 * (union_limit).  Decided from the set-bit counts when they can, else word
 * by word (at most UNION_MAX_SCANS times for one item).
 */
static SbfStatus
union_try_fill(UnionOut *o, const UnionItem *x, uint32_t *scans, bool *placed,
			   const SbfAllocator *a)
{
	uint64_t	limit = x->limit;
	uint64_t	room = o->ones <= limit ? limit - o->ones : 0;
	uint64_t	extra;
	SbfStatus	st;

	*placed = false;
	if (x->ones <= room)
		extra = union_extra_bits(o, x, UINT64_MAX, a);
	else if (x->ones > o->ones && x->ones - o->ones > room)
		return SBF_OK;
	else if (*scans >= UNION_MAX_SCANS)
		return SBF_OK;
	else
	{
		(*scans)++;
		sbf_union_word_scans++;
		extra = union_extra_bits(o, x, room, a);
		if (extra > room)
			return SBF_OK;
	}
	*placed = true;
	if (extra == 0)
		return SBF_OK;
	st = union_own(o, a);
	if (st != SBF_OK)
		return st;
	union_merge_data(x, o->bits, x->data, a);
	o->ones += extra;
	o->grew = true;
	return SBF_OK;
}

/*
 * Other kinds that merge: x's bits a subset of o's, or the OR's exact rate
 * within o's p (the larger of the two: p descends within a group).  The
 * limit of o's seed (union_limit) rejects an OR that adds bits without
 * computing its rate: the OR has at least as many ones as either side.  A
 * subset (only possible when x has no more ones than o) always fits.
 */
static SbfStatus
union_try_rate(UnionOut *o, const UnionItem *x, uint32_t *scans, bool *placed,
			   const SbfAllocator *a)
{
	double		p = o->seed->error;
	uint64_t	least = o->ones > x->ones ? o->ones : x->ones;
	bool		over = least > o->seed->limit;
	uint64_t	extra;
	uint8_t    *tmp;

	*placed = false;
	if ((over && x->ones > o->ones) || *scans >= UNION_MAX_SCANS)
		return SBF_OK;
	(*scans)++;
	sbf_union_word_scans++;
	extra = union_extra_bits(o, x, over ? 0 : UINT64_MAX, a);
	if (extra == 0)
	{
		*placed = true;
		return SBF_OK;
	}
	if (over)
		return SBF_OK;
	tmp = a->alloc((size_t) x->bytes, a->ctx);
	if (tmp == NULL)
		return SBF_E_NOMEM;
	memcpy(tmp, union_out_data(o), (size_t) x->bytes);
	union_merge_data(x, tmp, x->data, a);
	if (!(union_rate_data(x, tmp, a) <= p))
	{
		a->free(tmp, a->ctx);
		return SBF_OK;
	}
	sbf_free(a, o->bits);
	o->bits = tmp;
	o->ones += extra;
	o->grew = true;
	*placed = true;
	return SBF_OK;
}

/*
 * ORs x into the first of s->out[group..nout) it fits (see the file
 * header); those are the result segments of x's group so far.  The loop
 * stays in this file so that its per-candidate checks inline: it may
 * compare one item with thousands of candidates.
 */
SbfStatus
sbf_union_place(UnionScratch *s, uint32_t group, const UnionItem *x,
				bool *placed, const SbfAllocator *a)
{
	bool		bloom = x->ops->union_rule == SBF_UNION_FILL;
	uint64_t	xones = x->ones;
	uint64_t	limit = x->limit;
	uint32_t	scans = 0;
	uint32_t	b;

	*placed = false;
	if (x->ops->merge == NULL)
		return SBF_OK;
	for (b = group; b < s->nout; b++)
	{
		UnionOut   *o = &s->out[b];
		bool		here = false;
		SbfStatus	st;

		if (bloom)
		{
			uint64_t	ones = o->ones;
			uint64_t	room = ones <= limit ? limit - ones : 0;

			/* union_try_fill's refusals by the counts, without a call */
			if (xones > room &&
				((xones > ones && xones - ones > room) || scans >= UNION_MAX_SCANS))
				continue;
			st = union_try_fill(o, x, &scans, &here, a);
		}
		else
			st = union_try_rate(o, x, &scans, &here, a);
		if (st != SBF_OK)
			return st;
		if (here)
		{
			if (x->count > o->count)
				o->count = x->count;
			*placed = true;
			return SBF_OK;
		}
	}
	return SBF_OK;
}

/*
 * Count of a result segment: the larger of its members' counts and, when a
 * merge added bits, of the union's size estimated from the fill, -(m/k)
 * ln(1 - fill) (Swamidass & Baldi 2007; for blocked, m = 512 L), at most
 * the capacity.
 */
static uint64_t
union_out_count(const UnionOut *o)
{
	const UnionItem *g = o->seed;
	double		m = (double) g->bits;
	double		fill;
	double		est;

	if (!o->grew)
		return o->count;
	fill = (double) o->ones / m;
	est = fill < 1.0 ? -(m / g->g.width) * log(1.0 - fill) : (double) g->capacity;
	if (est > (double) o->count)
		return est >= (double) g->capacity ? g->capacity : (uint64_t) (est + 0.5);
	return o->count;
}

/*
 * The canonical order of the result's segments: capacity (a growth chain
 * keeps its order, the open segment last), descriptor, p, count descending
 * (of equal ones the fuller first, so the one with room is last and adds
 * fill it, as 1.2), then the final data (a union of the result with itself
 * keeps it byte for byte).
 */
static int
union_out_order(const UnionOut *x, const UnionOut *y, bool v2)
{
	int			c;

	UNION_CMP(x->seed->capacity, y->seed->capacity);
	c = union_geom_cmp(&x->seed->g, &y->seed->g);
	if (c != 0)
		return c;
	UNION_CMP(x->seed->error, y->seed->error);
	if (v2)
		UNION_CMP(y->ones, x->ones);
	else
		UNION_CMP(y->final_count, x->final_count);
	return memcmp(union_out_data(x), union_out_data(y), (size_t) x->seed->bytes);
}

static int
union_out_cmp(const void *pa, const void *pb)
{
	return union_out_order(pa, pb, false);
}

/* 1.2's order of result segments (sbf_write_v2): the fuller by its bits. */
static int
union_out_cmp_v2(const void *pa, const void *pb)
{
	return union_out_order(pa, pb, true);
}

/*
 * Whether the result is written as 1.2 wrote it (sbf_write_v2, the tests'
 * switch for 1.2's bytes): version 2, which holds bloom segments only.
 */
static bool
union_as_v2(const UnionScratch *s)
{
	const SbfVersion *v2 = sbf_version(SBF_FORMAT_VERSION);
	uint32_t	i;

	if (!sbf_write_v2)
		return false;
	for (i = 0; i < s->nout; i++)
		if (s->out[i].seed->ops != v2->segment_ops)
			return false;
	return true;
}

/*
 * Final counts, then the canonical order; as 1.2 (sbf_write_v2): its order,
 * and without merge the plan's.
 */
void
sbf_union_order(UnionScratch *s, bool merge, const SbfAllocator *a)
{
	uint32_t	i;

	for (i = 0; i < s->nout; i++)
		s->out[i].final_count = union_out_count(&s->out[i]);
	if (!union_as_v2(s))
		qsort(s->out, s->nout, sizeof(UnionOut), union_out_cmp);
	else if (merge)
		qsort(s->out, s->nout, sizeof(UnionOut), union_out_cmp_v2);
	sbf_check_interrupt(a);
}

/* Header, directory and areas with their padding (docs/format4.md, section 2). */
bool
sbf_union_areas(const UnionScratch *s, uint64_t *len, uint64_t max)
{
	uint64_t	off = SBF_HEADER_BYTES + (uint64_t) s->nout * SBF_SEGDIR_BYTES;
	uint32_t	i;

	for (i = 0; i < s->nout; i++)
		if (sbf_kind_area_place(&s->out[i].seed->g, s->out[i].seed->bytes,
								&off, max) == UINT64_MAX)
			return false;
	*len = off;
	return true;
}

/* Writes the planned union into buf (pl->len bytes). */
void
sbf_union_write(const UnionPlan *pl, uint8_t *buf, const SbfAllocator *a)
{
	const SbfView *f = pl->first;
	size_t		off = SBF_HEADER_BYTES + (size_t) pl->s.nout * SBF_SEGDIR_BYTES;
	uint32_t	i;
	bool		v2 = union_as_v2(&pl->s);

	/* as 1.2 wrote (sbf_write_v2: tests and benchmarks) when every segment is bloom */
	buf[SBF_OFF_VERSION] = v2 ? SBF_FORMAT_VERSION : SBF_FORMAT_V4;
	buf[SBF_OFF_FLAGS] = pl->dense ? SBF_FLAG_HLL_DENSE : 0;
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
		size_t		pad;
		size_t		start = sbf_kind_area_start(&g->g, off, &pad);

		sbf_write_entry(buf, i, g->capacity, o->final_count, g->error, &g->g);
		memset(buf + off, 0, pad);
		memcpy(buf + start, union_out_data(o), (size_t) g->bytes);
		off = start + (size_t) g->bytes;
		sbf_check_interrupt(a);
	}
	sbf_hll_encode(pl->s.merged, pl->hll_p, pl->dense, buf + off);
	sbf_write_version(buf);
}

/*
 * Whether the planned segments equal, entry for entry and byte for byte,
 * those of input in: a plain value whose directory counts answer (format 2
 * or 4) and without OVERLAP.
 */
bool
sbf_union_same_as(const UnionScratch *s, const SbfView *in)
{
	const SbfVersion *ver = sbf_version(in->version);
	SbfDirIter	di;
	SbfDirEntry e;
	uint32_t	i = 0;

	if (ver == NULL || ver->windowed || !ver->directory_counts ||
		(in->flags & (SBF_FLAG_OVERLAP | SBF_FLAG_EXACT)) != 0 ||
		in->nsegments != s->nout)
		return false;
	sbf_dir_view(&di, in);
	while (sbf_dir_next(&di, &e))
	{
		const UnionOut *o = &s->out[i++];
		const UnionItem *g = o->seed;

		if (e.capacity != g->capacity || e.count != o->final_count ||
			memcmp(&e.error, &g->error, sizeof(double)) != 0 ||
			union_geom_cmp(&e.g, &g->g) != 0 ||
			memcmp(in->buf + e.data, union_out_data(o), (size_t) g->bytes) != 0)
			return false;
	}
	return true;
}
