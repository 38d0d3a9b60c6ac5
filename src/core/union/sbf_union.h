/*
 * sbf_union.h
 *	  The public face of core/union: the compatibility rule of unions and
 *	  the union of values (sbf_union.c, sbf_union_many.c).
 */
#ifndef SBF_UNION_H
#define SBF_UNION_H

#include "sbf_plain.h"

/* Bits of sbf_union_mismatch: the parameters in which two filters differ. */
#define SBF_DIFF_VERSION		0x01
#define SBF_DIFF_HASH			0x02
#define SBF_DIFF_GROWTH			0x04
#define SBF_DIFF_TIGHTENING		0x08
#define SBF_DIFF_ERROR_RATE		0x10

/*
 * The one compatibility rule of unions: which parameters of a and b differ
 * (0 = none).  Version (1 and 2 match each other), hash, growth and
 * tightening must always match;
 * error_rate must match unless the union is given its own error_rate.  A
 * differing capacity or hll_p never matters (the larger initial capacity
 * is kept; the HyperLogLog folds to the smaller precision).
 */
extern uint32_t sbf_union_mismatch(const SbfView *a, const SbfView *b);

/* How sbf_union_many unites. */
typedef struct SbfUnionSpec
{
	double		error_rate;		/* the result's error_rate; 0 = the inputs'
								 * own, which must then be equal */
	bool		merge;			/* OR segments of equal geometry that fit;
								 * false: only drop duplicate segments */
	bool		enforce;		/* SBF_E_OVER_BUDGET when the result's
								 * budget exceeds its error_rate (never
								 * with tightening 1: no compound bound) */
} SbfUnionSpec;

/*
 * out := the union of n >= 1 validated views, a new filter.  The result
 * depends only on the multiset of the inputs' segments and hashes (exact
 * inputs, see sbf_union.c), not on their order
 * (canonical segment order, see sbf_union.c): equal segments are one,
 * segments without a set bit are dropped (unless all are empty);
 * with merge a bloom or blocked segment is OR-ed into an earlier one of
 * its kind and geometry when its bits are a subset or the OR stays within
 * the segment's rate bound (bloom: the fill expected at capacity; blocked:
 * the OR's exact rate within the larger p); a fused segment and every
 * other segment are appended unchanged.  Segmented results are format 4.  No false negatives
 * either way.  *bound (if not NULL) receives the result's budget (the sum
 * of its stored rates, sbf_fpr_budget; its fpr_bound is at least that),
 * also when SBF_E_OVER_BUDGET is returned, so a caller can name the
 * error_rate that would fit.  SBF_E_INCOMPATIBLE per sbf_union_mismatch.
 */
extern SbfStatus sbf_union_many(SbfFilter *out, const SbfView *in, uint32_t n,
								const SbfUnionSpec *spec, double *bound,
								size_t prefix, const SbfAllocator *a);

/*
 * dst := dst UNION src (sbf_union_many with merge, equal error_rates, no
 * budget check: 1.0's meaning for callers).  Exact operands unite exactly
 * (exact while small) or add their hashes to the segmented side; the bytes
 * do not depend on the order of the operands.  On error dst is unchanged.
 */
extern SbfStatus sbf_union(SbfFilter *dst, const SbfView *src);

/*
 * dst := dst UNION src with merge and the budget check: error_rate is the
 * result's (0 = the filters' own, which must be equal).  On error dst is
 * unchanged; *bound as in sbf_union_many.
 */
extern SbfStatus sbf_union_budget(SbfFilter *dst, const SbfView *src,
								  double error_rate, double *bound);

#endif							/* SBF_UNION_H */
