/*
 * window_adds_aged.c
 *	  Live adds into the newest bucket of a window that already holds older
 *	  buckets (issue 37, live adds): 29 buckets of `older` hashes each (built
 *	  by adds, compacted as the window slides), then n hashes added at the
 *	  30th by sbf_win_add_many (what sbf_add of an array does) in chunks of
 *	  `chunk`, as a feed adds a day's interactions.  Prints the thread CPU
 *	  time of the last bucket's adds, how many of its chunks found the
 *	  segments out of age order (the batched lookup of sbf_window_batch.c
 *	  then falls back to one hash at a time), and a digest of the window's
 *	  bytes.  Never a pass/fail test.
 *
 *	    cc -O2 $(find src/core -type d -printf '-I%p ') -Itest/bench -o /tmp/window_adds_aged test/bench/window_adds_aged.c $(find src/core -name '[a-z]*.c') -lm
 *	    /tmp/window_adds_aged [n [older [chunk]]]   (default 400000, 20000, 4096)
 *	(result: test/bench/results/window_adds_aged.txt)
 */
#include <stdio.h>
#include <stdlib.h>

#include "sbf_core.h"
#include "bench_util.h"
#include "sbf_window.h"
#include "sbf_plain.h"

/* Whether w's segments are in age order (what find_holders asks). */
static bool
in_age_order(const SbfWindow *w)
{
	uint32_t	j;

	for (j = 1; j < w->nsegs; j++)
		if (w->segs[j].age < w->segs[j - 1].age)
			return false;
	return true;
}

int
main(int argc, char **argv)
{
	uint64_t	n = argc > 1 ? strtoull(argv[1], NULL, 10) : 400000;
	uint64_t	older = argc > 2 ? strtoull(argv[2], NULL, 10) : 20000;
	uint64_t	chunk = argc > 3 ? strtoull(argv[3], NULL, 10) : 4096;
	SbfWinParams p = {INT64_C(86400000000), 30, 0.01};
	SbfWindow	w;
	SbfFilter	out;
	uint64_t   *h = malloc((n > older ? n : older) * sizeof(uint64_t));
	uint64_t	next = 1;
	uint64_t	i;
	uint64_t	off;
	uint32_t	unordered = 0;
	uint32_t	chunks = 0;
	int64_t		b;
	double		t0;
	double		t;

	sbf_win_init(&w, &p, &bench_allocator);
	for (b = 0; b < 29; b++)
	{
		for (i = 0; i < older; i++)
			h[i] = sbf_hash_int64((int64_t) next++);
		if (sbf_win_add_many(&w, b, h, older) != SBF_OK)
			abort();
	}
	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64((int64_t) next++);
	t0 = bench_cpu_now();
	for (off = 0; off < n; off += chunk)
	{
		unordered += in_age_order(&w) ? 0 : 1;
		chunks++;
		if (sbf_win_add_many(&w, 29, h + off,
							 (size_t) (n - off < chunk ? n - off : chunk)) != SBF_OK)
			abort();
	}
	t = bench_cpu_now() - t0;
	if (sbf_win_encode(&w, &out, 0) != SBF_OK)
		abort();
	printf("add_many: %llu into the newest bucket beside 29 of %llu: %.3f s, %u of %u chunks out of age order, %u segments, bytes %016llx\n",
		   (unsigned long long) n, (unsigned long long) older, t, unordered, chunks,
		   w.nsegs, (unsigned long long) bench_digest(out.base, out.len));
	sbf_filter_free(&out);
	sbf_win_free(&w);
	free(h);
	return 0;
}
