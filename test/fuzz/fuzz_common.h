/*
 * fuzz_common.h
 *	  Helpers shared by the fuzz targets: an allocator that refuses large
 *	  requests (so allocation-failure paths get exercised and no input can
 *	  make the fuzzer allocate gigabytes) and an always-on assertion.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_union.h"
#include "sbf_window.h"

/*
 * requests above this many bytes fail as if memory were exhausted (a target
 * may allow more, defining it before including this header)
 */
#ifndef FUZZ_ALLOC_LIMIT
#define FUZZ_ALLOC_LIMIT	((size_t) 1 << 20)
#endif

/* the unit test, which replays regressions through the targets, has its own */
#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "%s:%d: assertion failed: %s\n", \
					__FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)
#endif

static long fuzz_live;

static void *
fuzz_alloc(size_t size, void *ctx)
{
	void	   *p;

	(void) ctx;
	if (size > FUZZ_ALLOC_LIMIT)
		return NULL;
	p = malloc(size);
	if (p)
		fuzz_live++;
	return p;
}

static void *
fuzz_realloc(void *ptr, size_t size, void *ctx)
{
	void	   *p;

	(void) ctx;
	if (size > FUZZ_ALLOC_LIMIT)
		return NULL;
	p = realloc(ptr, size);
	if (p && ptr == NULL)
		fuzz_live++;
	return p;
}

static void
fuzz_free(void *ptr, void *ctx)
{
	(void) ctx;
	if (ptr)
		fuzz_live--;
	free(ptr);
}

static const SbfAllocator fuzz_allocator = {fuzz_alloc, fuzz_realloc, fuzz_free, NULL, NULL};

/* Encodes a window and checks that the bytes validate; frees the encoding. */
static inline void
fuzz_window_valid(SbfWindow *w)
{
	SbfFilter	f;
	SbfWinView	v;

	if (sbf_win_encode(w, &f, 0) != SBF_OK)
		return;
	FUZZ_ASSERT(sbf_win_validate(SBF_PAYLOAD(&f), f.len, &v) == SBF_OK);
	sbf_filter_free(&f);
}

/*
 * Drives a valid windowed payload (version 3) through the windowed
 * operations: the queries stay in range, load and encode give the same
 * bytes, an added hash is found, and every result validates again.
 */
static inline void
fuzz_check_window(const uint8_t *data, size_t size)
{
	SbfWinView	v;
	SbfWinView	pv;
	SbfWindow	w;
	SbfFilter	f;
	SbfStatus	st;
	uint64_t	h = sbf_hash(data, size);
	int64_t		b;

	FUZZ_ASSERT(sbf_win_validate(data, size, &v) == SBF_OK);
	FUZZ_ASSERT(sbf_win_parse(data, size, &pv) == SBF_OK);
	FUZZ_ASSERT(pv.pairs_offset == v.pairs_offset);
	FUZZ_ASSERT(sbf_win_cardinality(&v) >= 0.0);
	FUZZ_ASSERT(sbf_win_fpr_bound(&v) <= v.error_rate * SBF_WIN_BUDGET_SLACK);
	(void) sbf_win_contains(&v, h, sbf_win_max_age(&v, SBF_WIN_ALL));
	if (sbf_win_load(&w, &v, &fuzz_allocator) != SBF_OK)
		return;
	if (sbf_win_encode(&w, &f, 0) == SBF_OK)
	{
		SbfWinView	rv;

		/* version 4 is canonical; version 3 is relabelled, segment for segment */
		if (v.version == SBF_WIN4_VERSION)
			FUZZ_ASSERT(f.len == size && memcmp(SBF_PAYLOAD(&f), data, size) == 0);
		FUZZ_ASSERT(sbf_win_validate(SBF_PAYLOAD(&f), f.len, &rv) == SBF_OK);
		FUZZ_ASSERT(rv.version == SBF_WIN4_VERSION && rv.nsegments == v.nsegments &&
					rv.npairs == v.npairs);
		sbf_filter_free(&f);
	}
	b = (v.flags & SBF_WIN_FLAG_STARTED) ? v.newest : 0;
	st = sbf_win_add(&w, b, h);
	if (st == SBF_OK && sbf_win_encode(&w, &f, 0) == SBF_OK)
	{
		SbfWinView	av;

		FUZZ_ASSERT(sbf_win_validate(SBF_PAYLOAD(&f), f.len, &av) == SBF_OK);
		FUZZ_ASSERT(sbf_win_contains(&av, h, 0));
		sbf_filter_free(&f);
	}
	if (st == SBF_OK && b < INT64_MAX / SBF_WIN_MAX_WIDTH &&
		sbf_win_slide(&w, b + 1) == SBF_OK)
		fuzz_window_valid(&w);
	st = sbf_win_union(&w, &v);
	if (st == SBF_OK)
		fuzz_window_valid(&w);
	else
		FUZZ_ASSERT(st == SBF_E_OVER_BUDGET || st == SBF_E_TOO_LARGE ||
					st == SBF_E_NOMEM || st == SBF_E_TOO_MANY_SEGMENTS);
	sbf_win_free(&w);
}

#endif							/* FUZZ_COMMON_H */
