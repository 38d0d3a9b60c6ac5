/*
 * sbf_kind_bloom.h
 *	  The standard Bloom segment kinds (sbf_kind_bloom.c): kind 1, the
 *	  segment of formats 1 and 2 (enhanced double hashing), and kind 4, the
 *	  segment of format 3 (WINDOWED POSITIONS).  Included by sbf_kind.h.
 */
#ifndef SBF_KIND_BLOOM_H
#define SBF_KIND_BLOOM_H

#include "sbf_kind_ops.h"
#include "sbf_mulhi.h"

#define SBF_KIND_BLOOM			1	/* formats 1-2's segment: double hashing */
#define SBF_KIND_WBLOOM			4	/* format 3's segment: windowed positions */

/* their rows */
extern const SbfKindOps sbf_kind_bloom_ops;
extern const SbfKindOps sbf_kind_wbloom_ops;

SBF_KIND_CHECKS(bloom);
SBF_KIND_USES(bloom);
SBF_KIND_GROWS(bloom);
SBF_KIND_USES(wbloom);
extern bool sbf_wbloom_insert(const SbfKindGeom *g, uint8_t *data, uint64_t h);

/*
 * kind 1's rate from its bits (SbfKindOps.bound_of; sbf_bloom_bound.c),
 * and the 64-bit extractions a value's bound takes at most in all (a few
 * ms; shared by its bloom segments)
 */
#define SBF_BLOOM_BOUND_WORK	(UINT64_C(1) << 20)
extern double sbf_bloom_bound_of(const SbfKindGeom *g, const uint8_t *data,
								 uint64_t count, uint64_t work);

/* the batched mark of kind 1 (SbfKindOps.mark) */
extern void sbf_bloom_mark(const SbfKindGeom *g, const uint8_t *data,
						   const uint64_t *h, size_t n, bool *hit);

/*
 * Whether g is kind 1, the flat bit array of formats 1-2: the plain
 * lookup's and add's hot loops probe it inline (sbf_bloom_has) rather than
 * through the row.
 */
static inline bool
sbf_kind_is_flat(const SbfKindGeom *g)
{
	return g->kind == SBF_KIND_BLOOM;
}

/*
 * Bloom position i (0-based) of hash h in a windowed segment of m bits
 * (WINDOWED POSITIONS in sbf_core.h): independent positions, so that small
 * segments keep the false-positive rate their sizing promises.  r_i
 * (sbf_win_mix) does not depend on m, so a lookup mixes once per i for all
 * the segments it probes.
 */
static inline uint64_t
sbf_win_mix(uint64_t h, uint32_t i)
{
	return sbf_mix64(h + (uint64_t) (i + 1) * 0x9E3779B97F4A7C15ULL);
}

static inline uint64_t
sbf_win_position(uint64_t h, uint32_t i, uint64_t m)
{
	return sbf_win_mulhi(sbf_win_mix(h, i), m);
}

#endif							/* SBF_KIND_BLOOM_H */
