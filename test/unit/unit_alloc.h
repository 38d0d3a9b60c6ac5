/*
 * unit_alloc.h
 *	  The counting allocator shared by the core unit tests.  g_alloc hands the
 *	  core malloc'd blocks and counts them: g_live (blocks not yet freed,
 *	  which the no_leaks case checks at the end of each program), g_calls
 *	  (allocations and reallocations) and g_largest (the largest request).
 *	  A request above g_fail_above bytes fails, as does an allocation once
 *	  g_fail_after more have succeeded (-1: never), so that a test can drive
 *	  the core into every out-of-memory path.  Its interrupt callback counts
 *	  the core's checks in g_interrupt_calls.  Included once by each test
 *	  program, after unit_check.h.
 */
#ifndef UNIT_ALLOC_H
#define UNIT_ALLOC_H

#include <stdint.h>
#include <stdlib.h>

#include "sbf_core.h"

static long g_live;				/* blocks not yet freed */
static size_t g_calls;			/* allocations and reallocations */
static size_t g_largest;		/* largest size requested */
static size_t g_fail_above = SIZE_MAX;	/* larger requests fail */
static long g_fail_after = -1;	/* allocations left before one fails; -1 never */
static uint64_t g_interrupt_calls;	/* interrupt checks the core made */

/* Counts a request of size bytes; false if it is to fail. */
static bool
t_admit(size_t size)
{
	g_calls++;
	if (size > g_largest)
		g_largest = size;
	return size <= g_fail_above;
}

static void *
t_alloc(size_t size, void *ctx)
{
	void	   *p;

	(void) ctx;
	if (!t_admit(size) || g_fail_after == 0)
		return NULL;
	if (g_fail_after > 0)
		g_fail_after--;
	p = malloc(size ? size : 1);
	if (p)
		g_live++;
	return p;
}

static void *
t_realloc(void *ptr, size_t size, void *ctx)
{
	void	   *p;

	(void) ctx;
	if (!t_admit(size))
		return NULL;
	p = realloc(ptr, size ? size : 1);
	if (p && ptr == NULL)
		g_live++;
	return p;
}

static void
t_free(void *ptr, void *ctx)
{
	(void) ctx;
	if (ptr)
		g_live--;
	free(ptr);
}

static void
t_count_interrupt(void *ctx)
{
	(void) ctx;
	g_interrupt_calls++;
}

static const SbfAllocator g_alloc = {t_alloc, t_realloc, t_free, NULL,
t_count_interrupt};

/* Resets the request statistics and the size limit (not g_live). */
static inline void
reset_counts(size_t fail_above)
{
	g_calls = 0;
	g_largest = 0;
	g_fail_above = fail_above;
}

/* Every block the program's cases allocated was freed. */
static inline void
no_leaks(void)
{
	CHECK(g_live == 0);
}

#endif							/* UNIT_ALLOC_H */
