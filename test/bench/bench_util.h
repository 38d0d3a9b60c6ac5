/*
 * bench_util.h
 *	  What the core benchmarks in test/bench share: a malloc allocator
 *	  for the core, CPU and wall clocks, and the median of a sample.
 */
#ifndef SBF_BENCH_UTIL_H
#define SBF_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

#include "sbf_core.h"

static void *
bench_malloc(size_t size, void *ctx)
{
	(void) ctx;
	return malloc(size);
}

static void *
bench_realloc(void *ptr, size_t size, void *ctx)
{
	(void) ctx;
	return realloc(ptr, size);
}

static void
bench_free(void *ptr, void *ctx)
{
	(void) ctx;
	free(ptr);
}

/* The core's allocations on the C heap. */
static const SbfAllocator bench_allocator = {bench_malloc, bench_realloc, bench_free, NULL, NULL};

/* Seconds of this thread's CPU time. */
static inline double
bench_cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

/* Seconds of wall time (monotonic). */
static inline double
bench_wall_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

/* qsort order of doubles, ascending. */
static inline int
bench_cmp_double(const void *pa, const void *pb)
{
	double		a = *(const double *) pa;
	double		b = *(const double *) pb;

	return (a > b) - (a < b);
}

/* The median of t[0..n), n >= 1 (sorts t). */
static inline double
bench_median(double *t, int n)
{
	qsort(t, (size_t) n, sizeof(double), bench_cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2.0;
}

/* qsort's order of uint64_t values, ascending. */
static inline int
bench_cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

#endif							/* SBF_BENCH_UTIL_H */
