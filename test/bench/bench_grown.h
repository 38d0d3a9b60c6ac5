/*
 * bench_grown.h
 *	  The filter grown_rates.c and grown_segments.c probe: created at 1%
 *	  (tightening 0.9, HyperLogLog p 9) and grown by single adds of the
 *	  unit tests' keys.  Compiles against any core layout (1.3's flat core
 *	  declares everything in sbf_core.h).
 */
#ifndef SBF_BENCH_GROWN_H
#define SBF_BENCH_GROWN_H

#include "sbf_core.h"
#if __has_include("sbf_plain.h")
#include "sbf_plain.h"
#endif
#include "bench_util.h"

/* Key i of a space (0: added, 1: absent), as the unit tests' keys. */
static inline uint64_t
bench_grown_key(int space, uint64_t i)
{
	return sbf_hash_int64((int64_t) (((uint64_t) space << 40) + i));
}

/*
 * *f: capacity cap and growth at 1%, grown by n single adds of keys 0..n-1
 * of space 0; *v its view.  Aborts on any error.
 */
static inline void
bench_grow(SbfFilter *f, SbfView *v, uint64_t cap, uint16_t growth, uint64_t n)
{
	SbfParams	p = {.capacity = cap, .error_rate = 0.01, .tightening = 0.9,
	.growth = growth, .hll_p = 9};
	uint64_t	i;

	if (sbf_create(f, &p, 0, &bench_allocator) != SBF_OK)
		abort();
	for (i = 0; i < n; i++)
		if (sbf_add_hash(f, bench_grown_key(0, i), NULL) != SBF_OK)
			abort();
	if (sbf_validate(SBF_PAYLOAD(f), f->len, v) != SBF_OK)
		abort();
}

#endif							/* SBF_BENCH_GROWN_H */
