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

/* One lookup in one structure, by the element's hash. */
typedef bool (*BenchProbeFn) (const void *ctx, uint64_t h);

#define BENCH_MAX_REPS	15

/*
 * ns per lookup of q[0..nq) in thread CPU time, the median of reps (at most
 * BENCH_MAX_REPS) runs; *hits the lookups that answered true.
 */
static inline double
bench_time_probes(BenchProbeFn fn, const void *ctx, const uint64_t *q, size_t nq,
				  int reps, size_t *hits)
{
	double		t[BENCH_MAX_REPS];
	int			r;

	for (r = 0; r < reps && r < BENCH_MAX_REPS; r++)
	{
		double		t0 = bench_cpu_now();
		size_t		i,
					c = 0;

		for (i = 0; i < nq; i++)
			c += fn(ctx, q[i]);
		t[r] = bench_cpu_now() - t0;
		*hits = c;
	}
	return bench_median(t, r) * 1e9 / (double) nq;
}

/* FNV-1a of some bytes: a digest to compare two builds' output. */
static inline uint64_t
bench_digest(const uint8_t *p, size_t n)
{
	uint64_t	d = UINT64_C(1469598103934665603);
	size_t		i;

	for (i = 0; i < n; i++)
		d = (d ^ p[i]) * UINT64_C(1099511628211);
	return d;
}

#endif							/* SBF_BENCH_UTIL_H */
