/*
 * sbf_union_int.h
 *	  What the two halves of the union of segmented views share: the plan
 *	  (sbf_union.c: collect, dedupe, merge loop, HyperLogLog, budget) and the
 *	  kind-aware steps (sbf_union4.c: scanning, ordering and merging a
 *	  segment through its kind's row, writing the format-4 result).  Not
 *	  installed.
 */
#ifndef SBF_UNION_INT_H
#define SBF_UNION_INT_H

#include "sbf_dir.h"
#include "sbf_union.h"

/*
 * Word-by-word comparisons an item may make with candidate result segments
 * when the set-bit counts cannot decide.  Enough for the cases that matter
 * (a filter and a superset of it, two half-full segments that overlap); a
 * segment that would need more is appended instead, which is safe.
 */
#define UNION_MAX_SCANS			8

/*
 * The union of n >= 1 validated segmented views into a new filter: plan
 * (collect, merge, budget) and apply (sbf_union.c).
 */
extern SbfStatus sbf_union_segments(SbfFilter *out, const SbfView *in, uint32_t n,
									const SbfUnionSpec *spec, double *bound,
									size_t prefix, const SbfAllocator *a);

/*
 * A merging union of n >= 2 compact views as one compact value
 * (sbf_union_compact.c): true when done (*st SBF_OK, *bound its bound),
 * refused by the budget (*st SBF_E_OVER_BUDGET, *bound) or failed (*st);
 * false when the union is of their segmented forms instead.
 */
extern bool sbf_union_compact(SbfFilter *out, const SbfView *in, uint32_t n,
							  const SbfUnionSpec *spec, double *bound,
							  size_t prefix, const SbfAllocator *a, SbfStatus *st);

/*
 * A merging union of one segmented view whose every segment is compact
 * (sbf_union_agg's collection) as one compact value, as sbf_union_compact
 * unites the compact values those segments came from: fingerprints cut to
 * the smallest b and kept once, the ranks list from the view's
 * HyperLogLog, capacity the count (one segment: the view's capacity and
 * OVERLAP, so that the value it came from comes back).  True when done
 * (*st SBF_OK, *bound its bound) or failed (*st); false when the union of
 * the segments is to be taken instead (not such a view, or beyond what the
 * builder writes compact or the budget).
 */
extern bool sbf_union_compact_collected(SbfFilter *out, const SbfView *v,
										const SbfUnionSpec *spec, double *bound,
										size_t prefix, const SbfAllocator *a,
										SbfStatus *st);

/* One input segment. */
typedef struct UnionItem
{
	const SbfKindOps *ops;		/* its kind's row */
	SbfKindGeom g;				/* its geometry (the kind descriptor) */
	uint64_t	capacity;
	uint64_t	count;
	double		error;			/* the stored rate bound p */
	uint64_t	bytes;			/* data bytes (ops->bytes) */
	uint64_t	bits;			/* bits of a kind that merges (bloom m,
								 * blocked 512 L); 0: never merges */
	uint64_t	ones;			/* set bits (kinds that merge) */
	uint64_t	limit;			/* bloom: most set bits after an OR; other
								 * kinds that merge: more set bits than
								 * this cannot stay within p */
	uint64_t	digest;			/* XXH3 of its data */
	const uint8_t *data;
} UnionItem;

/* One result segment: an item, and what was OR-ed into it. */
typedef struct UnionOut
{
	const UnionItem *seed;
	uint64_t	ones;
	uint64_t	count;			/* the larger of its members' counts */
	uint64_t	final_count;	/* what the directory stores (union_out_count) */
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
	UnionScratch s;
} UnionPlan;

/* ---- sbf_union4.c ---- */

/* Fills an item from a directory entry of a view (set bits, digest). */
extern SbfStatus sbf_union_item(UnionItem *it, const SbfView *v,
								const SbfDirEntry *e, const SbfAllocator *a);
/* The plan's order of items (0: the same entry but count, and data). */
extern int	sbf_union_item_cmp(const void *pa, const void *pb);
/* Whether two items may merge: one kind that merges, one geometry. */
extern bool sbf_union_same_group(const UnionItem *x, const UnionItem *y);
/*
 * ORs item x into the first result segment of s->out[group..nout) (the
 * result segments of x's group so far) that it fits (the 1.1 policy, see
 * sbf_union.c): *placed when it did.
 */
extern SbfStatus sbf_union_place(UnionScratch *s, uint32_t group,
								 const UnionItem *x, bool *placed,
								 const SbfAllocator *a);
/* Sorts the result segments into the canonical order of the result. */
extern void sbf_union_order(UnionScratch *s, bool merge, const SbfAllocator *a);
/* Payload bytes of the planned directory and data areas with padding; false over max. */
extern bool sbf_union_areas(const UnionScratch *s, uint64_t *len, uint64_t max);
/* Writes the planned union into buf (pl->len bytes, format 4). */
extern void sbf_union_write(const UnionPlan *pl, uint8_t *buf, const SbfAllocator *a);
/*
 * Whether the result's directory and data equal those of a plain input with
 * directory counts and without OVERLAP (then the result's counts are exact).
 */
extern bool sbf_union_same_as(const UnionScratch *s, const SbfView *in);

#endif							/* SBF_UNION_INT_H */
