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

#include "sbf_core.h"

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

#endif							/* FUZZ_COMMON_H */
