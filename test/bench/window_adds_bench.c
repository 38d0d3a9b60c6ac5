/*
 * window_adds_bench.c
 *	  Live adds into one windowed bucket (issue 37): n distinct hashes added
 *	  at one bucket of a 30-day window, by sbf_win_add_many (what sbf_add of
 *	  an array does) and one sbf_win_add at a time, against 10 windows of
 *	  n / 10 each.  Linear adds give a ratio near 1; 1.3's single adds were
 *	  quadratic past about 250,000 pairs (the bucket's budget spent, every
 *	  further hash a pair inserted into the sorted pairs), and so were 1.4's
 *	  until the pairs waited in a side buffer (sbf_window_live.c).  Thread
 *	  CPU time of the adds and the encoding, never a pass/fail test.  Last,
 *	  one add to a stored window of 150 and of 5,000 pairs (load, add,
 *	  encode: what sbf_add(window, element, at) does per call).
 *
 *	    cc -O2 $(find src/core -type d -printf '-I%p ') -o window_adds_bench test/bench/window_adds_bench.c $(find src/core -name '*.c') -lm
 *	    ./window_adds_bench [n [single_n]]     (default 1000000 and 400000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sbf_core.h"
#include "bench_util.h"
#include "sbf_window.h"
#include "sbf_plain.h"

/*
 * Seconds to add n hashes (from id first) to a new window; batch or single.
 * *pairs gets the pairs left, *dig a digest of the window's bytes.
 */
static double
fill(uint64_t first, uint64_t n, int batch, uint32_t *pairs, uint64_t *dig)
{
	SbfFilter	out;
	SbfWinParams p = {INT64_C(86400000000) * 30, 30, 0.01};
	SbfWindow	w;
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t	i;
	double		t0;
	double		t;

	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64((int64_t) (first + i));
	sbf_win_init(&w, &p, &bench_allocator);
	t0 = bench_cpu_now();
	if (batch)
	{
		if (sbf_win_add_many(&w, 0, h, n) != SBF_OK)
			abort();
	}
	else
		for (i = 0; i < n; i++)
			if (sbf_win_add(&w, 0, h[i]) != SBF_OK)
				abort();
	/* timed with the adds: the pairs still waiting join the sorted ones */
	if (sbf_win_encode(&w, &out, 0) != SBF_OK)
		abort();
	t = bench_cpu_now() - t0;
	*pairs = w.npairs;
	*dig = bench_digest(out.base, out.len);
	sbf_filter_free(&out);
	sbf_win_free(&w);
	free(h);
	return t;
}

/*
 * Nanoseconds a call of one add to a stored window of n pairs (over 30
 * buckets), as sbf_add(window, element, at) does it: load, add, encode.
 */
static double
stored_call(uint64_t n, uint64_t calls)
{
	SbfWinParams p = {INT64_C(86400000000), 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint64_t	i;
	double		t0;

	sbf_win_init(&w, &p, &bench_allocator);
	for (i = 0; i < n; i++)
		if (sbf_win_add(&w, 100 + (int64_t) (i % 30), sbf_hash_int64((int64_t) i)) != SBF_OK)
			abort();
	if (sbf_win_encode(&w, &f, 0) != SBF_OK || sbf_win_validate(f.base, f.len, &v) != SBF_OK)
		abort();
	sbf_win_free(&w);
	t0 = bench_cpu_now();
	for (i = 0; i < calls; i++)
	{
		SbfWindow	x;
		SbfFilter	o;

		if (sbf_win_load(&x, &v, &bench_allocator) != SBF_OK ||
			sbf_win_add(&x, 129, sbf_hash_int64((int64_t) (n + i))) != SBF_OK ||
			sbf_win_encode(&x, &o, 0) != SBF_OK)
			abort();
		sbf_filter_free(&o);
		sbf_win_free(&x);
	}
	t0 = (bench_cpu_now() - t0) * 1e9 / (double) calls;
	sbf_filter_free(&f);
	return t0;
}

int
main(int argc, char **argv)
{
	uint64_t	n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	uint64_t	ns = argc > 2 ? strtoull(argv[2], NULL, 10) : 400000;
	double		one;
	double		ten = 0;
	uint32_t	pairs;
	uint32_t	pairs10;
	uint64_t	dig;
	uint64_t	dig10;
	int			i;

	one = fill(1, n, 1, &pairs, &dig);
	for (i = 0; i < 10; i++)
		ten += fill(1 + (uint64_t) i * n, n / 10, 1, &pairs10, &dig10);
	printf("add_many: 1 x %llu %.3f s (%.1f ns each, %u pairs left, bytes %016llx), 10 x %llu %.3f s: ratio %.2f\n",
		   (unsigned long long) n, one, one * 1e9 / n, pairs, (unsigned long long) dig,
		   (unsigned long long) (n / 10), ten, one / ten);
	one = fill(1, ns, 0, &pairs, &dig);
	ten = 0;
	for (i = 0; i < 10; i++)
		ten += fill(1 + (uint64_t) i * ns, ns / 10, 0, &pairs10, &dig10);
	printf("single adds: 1 x %llu %.3f s (bytes %016llx), 10 x %llu %.3f s: ratio %.2f\n",
		   (unsigned long long) ns, one, (unsigned long long) dig,
		   (unsigned long long) (ns / 10), ten, one / ten);
	printf("stored: one add to a window of 150 pairs %.0f ns a call, of 5000 pairs %.0f ns\n",
		   stored_call(150, 20000), stored_call(5000, 2000));
	return 0;
}
