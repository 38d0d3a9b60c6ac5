/*
 * unit_core.h
 *	  Helpers shared by the unit tests of the filter core (test_format,
 *	  test_union, test_hll, test_limits, test_exact, test_hashset): CHECK_ST,
 *	  parameters, deterministic keys, segmented filters as 1.0 created them,
 *	  validation of a filter or of a modified copy, byte equality, and the
 *	  crafted operand of the union cancel test.  Everything is static inline,
 *	  so a program that uses part of it compiles warning-free.  Include after
 *	  unit_check.h and unit_alloc.h.
 */
#ifndef UNIT_CORE_H
#define UNIT_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_hash_sort.h"
#include "sbf_plain.h"
#include "sbf_internal.h"

/*
 * Runs a case that is about 1.2's bytes (version 2, bloom segments): the
 * core writes as 1.2 did while it runs (sbf_write_v2).
 */
#define RUN_V2(fn) \
	do { \
		sbf_write_v2 = true; \
		RUN(fn); \
		sbf_write_v2 = false; \
	} while (0)

/* CHECK that expr returns status expected, naming both when it does not. */
#define CHECK_ST(expr, expected) \
	do { \
		SbfStatus	st_ = (expr); \
		if (st_ != (expected)) \
		{ \
			fprintf(stderr, "  %s:%d: %s returned %d (%s), expected %s\n", \
					__FILE__, __LINE__, #expr, (int) st_, \
					sbf_status_message(st_), #expected); \
			case_ok = false; \
		} \
	} while (0)

/*
 * The segmented form from the start, as 1.0 created it: sbf_create and
 * sbf_create_sized followed by sbf_convert.  Most cases below test the
 * segmented form; the exact form has its own cases.
 */
static inline SbfStatus
seg_create(SbfFilter *f, const SbfParams *p, size_t prefix, const SbfAllocator *a)
{
	SbfStatus	st = sbf_create(f, p, prefix, a);

	if (st == SBF_OK)
	{
		st = sbf_convert(f);
		if (st != SBF_OK)
			sbf_filter_free(f);
	}
	return st;
}

/* sbf_create_sized, converted to the segmented form at once. */
static inline SbfStatus
seg_create_sized(SbfFilter *f, const SbfParams *p, uint64_t n, size_t prefix,
				 const SbfAllocator *a)
{
	SbfStatus	st = sbf_create_sized(f, p, n, prefix, a);

	if (st == SBF_OK)
	{
		st = sbf_convert(f);
		if (st != SBF_OK)
			sbf_filter_free(f);
	}
	return st;
}

/* Parameters in SbfParams' field order. */
static inline SbfParams
params(uint64_t capacity, double e, uint16_t growth, double r, uint8_t p)
{
	SbfParams	sp;

	sp.capacity = capacity;
	sp.error_rate = e;
	sp.growth = growth;
	sp.tightening = r;
	sp.hll_p = p;
	return sp;
}

/* Hash of key i of a key space (space 0 = inserted, 1 = absent, ...). */
static inline uint64_t
key(int space, uint64_t i)
{
	return sbf_hash_int64((int64_t) (((uint64_t) space << 40) + i));
}

/* Adds keys [from, to) of a space, checking status. */
static inline void
add_keys(SbfFilter *f, int space, uint64_t from, uint64_t to)
{
	uint64_t	i;

	for (i = from; i < to; i++)
	{
		SbfStatus	st = sbf_add_hash(f, key(space, i), NULL);

		if (st != SBF_OK)
		{
			CHECK_ST(st, SBF_OK);
			return;
		}
	}
}

/*
 * sbf_agg's value of keys [from, to) of a space at error rate e (capacity
 * 1,000, growth 2, tightening 0.9) into f.
 */
static inline void
agg_keys(SbfFilter *f, int space, uint64_t from, uint64_t to, double e)
{
	SbfParams	p = params(1000, e, 2, 0.9, SBF_HLL_P_DEFAULT);
	uint64_t	n = to - from;
	uint64_t   *h = malloc((n ? n : 1) * sizeof(uint64_t));
	uint64_t	i;

	for (i = 0; i < n; i++)
		h[i] = key(space, from + i);
	sbf_hash_sort_all(h, (size_t) n);
	CHECK_ST(sbf_build_final(f, &p, h, (size_t) n, 4, &g_alloc), SBF_OK);
	free(h);
}

/* Validates a filter's payload, returning the view. */
static inline SbfStatus
validate_filter(const SbfFilter *f, SbfView *v)
{
	return sbf_validate(SBF_PAYLOAD(f), f->len, v);
}

/* Status of validating a modified copy of buf. */
static inline SbfStatus
validate_copy(const uint8_t *buf, size_t len)
{
	uint8_t    *copy = malloc(len ? len : 1);
	SbfView		v;
	SbfStatus	st;

	memcpy(copy, buf, len);
	st = sbf_validate(copy, len, &v);
	free(copy);
	return st;
}

/* True when two filters have the same bytes. */
static inline bool
same_bytes(const SbfFilter *a, const SbfFilter *b)
{
	return a->len == b->len && memcmp(SBF_PAYLOAD(a), SBF_PAYLOAD(b), a->len) == 0;
}

/*
 * Builds the crafted operand of the cancel test: n segments of w words,
 * every bit set except, when holes, the last word of each (which gets the
 * segment's number OR salt, so that no two segments are equal).
 */
static inline void
crafted(SbfFilter *f, uint32_t n, uint32_t w, bool holes, uint64_t salt)
{
	size_t		len = SBF_HEADER_BYTES + (size_t) n * (SBF_SEGDIR_BYTES + 8 * w);
	uint8_t    *buf = calloc(1, len);
	uint32_t	i;
	uint32_t	j;

	buf[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = 9;
	sbf_store16(buf + SBF_OFF_GROWTH, 1);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, (uint16_t) n);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, 0.01);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, 1.0);
	sbf_store64(buf + SBF_OFF_CAPACITY, 1000);
	for (i = 0; i < n; i++)
	{
		uint8_t    *e = buf + SBF_SEGDIR_OFFSET(i);
		uint8_t    *words = buf + SBF_SEGDIR_OFFSET(n) + (size_t) i * 8 * w;

		sbf_store64(e + SBF_SEG_CAPACITY, 1000);
		sbf_store64(e + SBF_SEG_COUNT, 1000);
		sbf_store64(e + SBF_SEG_NBITS, (uint64_t) w * 64);
		sbf_store_double(e + SBF_SEG_ERROR, 0.01);
		sbf_store16(e + SBF_SEG_K, 7);
		for (j = 0; j < w; j++)
			sbf_store64(words + 8 * j, holes && j == w - 1 ? (uint64_t) i | salt : UINT64_MAX);
	}
	f->base = NULL;
	CHECK_ST(sbf_copy(f, &(SbfView) {.buf = buf, .len = len}, 0, 0, &g_alloc), SBF_OK);
	free(buf);
}

#endif							/* UNIT_CORE_H */
