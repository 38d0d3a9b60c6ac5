/*
 * sbf_kind_fused.h
 *	  The fused segment kind of format 4 (sbf_kind_fused.c): a binary fuse
 *	  filter of a complete set (docs/format4.md, section 5).  Included by
 *	  sbf_kind.h.
 */
#ifndef SBF_KIND_FUSED_H
#define SBF_KIND_FUSED_H

#include "sbf_kind_ops.h"
#include "sbf_mulhi.h"

#define SBF_KIND_FUSED			3	/* binary fuse filter of a complete set */

#define SBF_FUSED_MAX_F			32
#define SBF_FUSED_MAX_LOG2_LEN	18
/* seeds tried before a build gives up (the caller then builds blocked) */
#define SBF_FUSED_MAX_ATTEMPTS	64
/* slots are indexed with uint32 in the builder */
#define SBF_FUSED_MAX_SLOTS		((uint64_t) UINT32_MAX)

/*
 * The largest complete set written fused (docs/format4.md, section 6): a
 * fused build costs 2-3x a blocked one and its scratch is about 15 bytes a
 * hash (13 a slot), so above this the builders write another kind (its row's
 * choose_max_n).
 */
#define SBF_FUSED_MAX_BUILD		((uint64_t) 1 << 22)

/* its row */
extern const SbfKindOps sbf_kind_fused_ops;

SBF_KIND_CHECKS(fused);
SBF_KIND_USES(fused);


/* The mixes of h for seed number attempt: x = sbf_mix64(h + seed), x2 = sbf_mix64(x). */
extern void sbf_fused_mixes(uint8_t attempt, uint64_t h, uint64_t *x, uint64_t *x2);

/*
 * contains() of a fused segment from the mixes of sbf_fused_mixes for its
 * seed number (g->attempt), its area being nbytes bytes.
 */
extern bool sbf_fused_has_mixed(const SbfKindGeom *g, const uint8_t *data,
								uint64_t nbytes, uint64_t x, uint64_t x2);

/* sbf_fused_has_mixed of n hashes: marks hit[i] where it holds (set stays set). */
extern void sbf_fused_mark_mixed(const SbfKindGeom *g, const uint8_t *data,
								 uint64_t nbytes, const uint64_t *x,
								 const uint64_t *x2, size_t n, bool *hit);

/* plan() for a given arity (3 or 4). */
extern SbfStatus sbf_fused_plan_arity(uint64_t n, double share, uint8_t arity,
									  SbfKindGeom *g, uint64_t *bytes);

#endif							/* SBF_KIND_FUSED_H */
