/*
 * window_lookup_bench.c
 *	  The ranking request's kernel on windowed filters (never a pass/fail
 *	  test): 120 candidates (a third members) looked up with
 *	  sbf_win_count_contained in a window of 30 daily buckets of n elements
 *	  each, as format 4 writes it (sbf_window_agg's final: each bucket the
 *	  smallest of fused, blocked and kind 4) and as 1.2 wrote it (windowed
 *	  bloom, kind 4, relabelled), in thread CPU time.  Prints the kinds, the bytes and microseconds a
 *	  request.
 *	    cc -O2 $(find src/core -type d -printf '-I%p ') -o /tmp/wlb test/bench/window_lookup_bench.c \
 *	        $(find src/core -name '*.c') -lm;  /tmp/wlb [n ...]   (default 5 25 100 300 3000 10000)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "bench_util.h"
#include "sbf_internal.h"
#include "sbf_window.h"

#define NB		30
#define T0		20000
#define REPS	20000

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* 1.2's window of the same pairs: one kind-4 segment a bucket at P^1.04. */
static void
kind4_window(SbfWindow *w, const SbfWinParams *p, const SbfWinPair *pr, size_t n)
{
	uint64_t   *h = malloc(sizeof(uint64_t) * (n + 1));
	int			a;

	sbf_win_init(w, p, &bench_allocator);
	w->flags = SBF_WIN_FLAG_STARTED;
	w->newest = T0;
	w->segs = malloc(sizeof(SbfWinSeg) * NB);
	w->segcap = NB;
	for (a = 0; a < NB; a++)
	{
		SbfWinSeg  *s = &w->segs[w->nsegs];
		size_t		c = 0;
		size_t		i;
		uint8_t    *d;

		for (i = 0; i < n; i++)
			if (pr[i].bucket == T0 - a)
				h[c++] = pr[i].hash;
		if (c == 0)
			continue;
		qsort(h, c, sizeof(uint64_t), cmp_u64);
		memset(s, 0, sizeof(*s));
		if (sbf_kind_wbloom_ops.plan(c, pow(p->error_rate / p->buckets, 1.04),
									 &s->g, &s->bytes) != SBF_OK)
			exit(1);
		d = malloc((size_t) s->bytes);
		(void) sbf_kind_wbloom_ops.build(&s->g, d, h, c, &bench_allocator);
		s->ops = &sbf_kind_wbloom_ops;
		s->age = (uint16_t) a;
		s->count = (uint32_t) c;
		s->bits = d;
		s->owned = true;
		w->nsegs++;
	}
	free(h);
}

/* Microseconds a request of 120 candidates takes on v. */
static double
request_us(const SbfWinView *v, const uint64_t *q, size_t *sink)
{
	double		t0 = bench_cpu_now();
	int			r;

	for (r = 0; r < REPS; r++)
		*sink += sbf_win_count_contained(v, q, 120, NB - 1);
	return (bench_cpu_now() - t0) / REPS * 1e6;
}

static void
run(int per)
{
	SbfWinParams p = {86400000000LL, NB, 0.01};
	size_t		n = (size_t) per * NB;
	SbfWinPair *pr = malloc(sizeof(SbfWinPair) * n);
	SbfWindow	w4;
	SbfWindow	w3;
	SbfFilter	f4;
	SbfFilter	f3;
	SbfWinView	v4;
	SbfWinView	v3;
	uint64_t	q[120];
	uint32_t	kinds[5] = {0};
	size_t		off;
	size_t		sink = 0;
	size_t		i;
	uint32_t	j;

	for (i = 0; i < n; i++)
	{
		pr[i].hash = sbf_hash_int64((int64_t) i);
		pr[i].bucket = T0 - (int64_t) (i % NB);
	}
	n = sbf_win_pairs_normalize(pr, n, T0, NB);
	if (sbf_win_from_pairs(&w4, &p, T0, pr, n, &bench_allocator) != SBF_OK ||
		sbf_win_compact(&w4, true) != SBF_OK ||
		sbf_win_encode(&w4, &f4, 0) != SBF_OK ||
		sbf_win_validate(SBF_PAYLOAD(&f4), f4.len, &v4) != SBF_OK)
		exit(1);
	kind4_window(&w3, &p, pr, n);
	if (sbf_win_encode(&w3, &f3, 0) != SBF_OK ||
		sbf_win_parse(SBF_PAYLOAD(&f3), f3.len, &v3) != SBF_OK)
		exit(1);
	off = v4.bits_offset;
	for (j = 0; j < v4.nsegments; j++)
	{
		SbfWinSeg	s;

		sbf_win_read_segment(&v4, j, &off, &s);
		kinds[s.g.kind]++;
	}
	for (i = 0; i < 120; i++)
		q[i] = sbf_hash_int64(i % 3 == 0 ? (int64_t) i : 1000000 + (int64_t) i);
	printf("| %5d | %2u kind 4, %2u blocked, %2u fused, %4u pairs | %6zu | %6.2f | %6zu | %6.2f |\n",
		   per, kinds[SBF_KIND_WBLOOM], kinds[SBF_KIND_BLOCKED], kinds[SBF_KIND_FUSED], v4.npairs,
		   f4.len, request_us(&v4, q, &sink), f3.len, request_us(&v3, q, &sink));
	if (sink == 0)
		printf("(no hit)\n");
	sbf_filter_free(&f4);
	sbf_filter_free(&f3);
	sbf_win_free(&w4);
	sbf_win_free(&w3);
	free(pr);
}

int
main(int argc, char **argv)
{
	static const int def[] = {5, 25, 100, 300, 3000, 10000};
	int			i;

	printf("| n/bucket | format 4 buckets | bytes | us/request | 1.2 (kind 4) bytes | us/request |\n");
	if (argc > 1)
		for (i = 1; i < argc; i++)
			run(atoi(argv[i]));
	else
		for (i = 0; i < 6; i++)
			run(def[i]);
	return 0;
}
