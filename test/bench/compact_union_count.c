/*
 * compact_union_count.c
 *	  Issue 36: how well `#` counts a union of many small values when they
 *	  are in the compact form (docs/format5.md, section 3) against 1.3's
 *	  one-segment values.  K sets of n distinct elements each at 1%, every
 *	  element in one set only; each set written (a) in the compact form at
 *	  the share 1.3's builder sizes for (e^1.04), b the least with n / 2^b
 *	  within it and at least 10, without the RANKS list ("capped") and with
 *	  it ("ranks"; "entries" its mean length a value), and (b) by 1.3's builder
 *	  (sbf_build_sorted at that share); then the K values united
 *	  (sbf_union_many, error_rate 0.4 so that no budget refuses) and the
 *	  union's count compared with the true K n.  A union of compact values
 *	  works on their segmented forms, whose HyperLogLog is made from the
 *	  fingerprints: a register's rank is capped at b - p + 1, so a union much
 *	  larger than 2^b saturates, unless the RANKS list restores the ranks
 *	  above the cap (the hashes' own registers).  Prints one line a (n, K); never a
 *	  pass/fail test.
 *	    usage: compact_union_count [n K] ...
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sbf_core.h"
#include "sbf_compact.h"
#include "sbf_hash_sort.h"
#include "sbf_plain.h"
#include "sbf_union.h"

static void *
b_alloc(size_t size, void *ctx)
{
	(void) ctx;
	return malloc(size > 0 ? size : 1);
}

static void *
b_realloc(void *p, size_t size, void *ctx)
{
	(void) ctx;
	return realloc(p, size > 0 ? size : 1);
}

static void
b_free(void *p, void *ctx)
{
	(void) ctx;
	free(p);
}

static const SbfAllocator alloc = {b_alloc, b_realloc, b_free, NULL, NULL};

static void
die(const char *what, SbfStatus st)
{
	fprintf(stderr, "compact_union_count: %s: %s\n", what, sbf_status_message(st));
	exit(1);
}

/* The count of the union of the K views. */
static double
union_count(const SbfView *v, int K)
{
	SbfUnionSpec spec = {0.4, true, false};
	SbfFilter	u;
	SbfView		uv;
	SbfStatus	st = sbf_union_many(&u, v, (uint32_t) K, &spec, NULL, 0, &alloc);
	double		c;

	if (st != SBF_OK)
		die("union", st);
	sbf_filter_view(&u, &uv);
	c = sbf_cardinality(&uv);
	sbf_filter_free(&u);
	return c;
}

/*
 * The compact value of the n hashes h at b into *buf, its view into *v:
 * with the RANKS list of the hashes' ranks above the cap, or without.
 */
static void
write_compact(const uint64_t *h, int n, int b, bool ranks, uint8_t **buf,
			  SbfView *v)
{
	SbfCompactParams cp = {0.01, (uint64_t) n, 2, 0.9, false, NULL};
	SbfCompactRanks rk;
	size_t		len = 0;
	SbfStatus	st;

	sbf_compact_ranks(h, (uint64_t) n, b, &rk);
	cp.ranks = ranks ? &rk : NULL;
	st = sbf_compact_size((uint64_t) n, b, &cp, &len);
	if (st != SBF_OK)
		die("size", st);
	*buf = malloc(len);
	st = sbf_compact_write(h, (uint64_t) n, b, &cp, *buf, len, &alloc);
	if (st == SBF_OK)
		st = sbf_validate(*buf, len, v);
	if (st != SBF_OK)
		die("compact", st);
}

static void
run(int n, int K)
{
	SbfParams	p = {.capacity = 1000, .error_rate = 0.01, .tightening = 0.9,
	.growth = 2, .hll_p = SBF_HLL_P_DEFAULT};
	double		share = pow(0.01, 1.04);
	uint8_t   **cbuf = calloc((size_t) 2 * K, sizeof(uint8_t *));
	SbfFilter  *seg = calloc((size_t) K, sizeof(SbfFilter));
	SbfView    *cv = calloc((size_t) 2 * K, sizeof(SbfView));
	SbfView    *sv = calloc((size_t) K, sizeof(SbfView));
	uint64_t   *h = malloc((size_t) n * sizeof(uint64_t));
	double		truth = (double) n * K;
	double		c0;
	double		c1;
	double		entries = 0;
	double		sc;
	SbfCompactRanks rk;
	int			b = 0;
	int			k;
	int			j;

	for (k = 0; k < K; k++)
	{
		SbfStatus	st;

		for (j = 0; j < n; j++)
			h[j] = sbf_hash_int64((int64_t) k * 100000000 + j);
		sbf_hash_sort_all(h, (size_t) n);
		st = sbf_compact_bits((uint64_t) n, share, SBF_HLL_P_DEFAULT, &b);
		if (st != SBF_OK)
			die("bits", st);
		write_compact(h, n, b, false, &cbuf[k], &cv[k]);
		write_compact(h, n, b, true, &cbuf[K + k], &cv[K + k]);
		sbf_compact_ranks(h, (uint64_t) n, b, &rk);
		entries += rk.count;
		st = sbf_build_sorted(&seg[k], &p, h, (size_t) n, share, 0, 0, &alloc);
		if (st != SBF_OK)
			die("build", st);
		sbf_filter_view(&seg[k], &sv[k]);
	}
	c0 = union_count(cv, K);
	c1 = union_count(cv + K, K);
	sc = union_count(sv, K);
	printf("%7d %5d %9.0f %4d %7.2f %9.0f %+8.1f%% %9.0f %+8.1f%% %9.0f %+8.1f%%\n",
		   n, K, truth, b, entries / K, c0, 100.0 * (c0 / truth - 1.0), c1,
		   100.0 * (c1 / truth - 1.0), sc, 100.0 * (sc / truth - 1.0));
	for (k = 0; k < K; k++)
	{
		free(cbuf[k]);
		free(cbuf[K + k]);
		sbf_filter_free(&seg[k]);
	}
	free(cbuf);
	free(seg);
	free(cv);
	free(sv);
	free(h);
}

int
main(int argc, char **argv)
{
	static const int pairs[][2] = {{30, 10}, {30, 100}, {30, 1000}, {100, 300},
	{300, 30}, {300, 300}, {1000, 100}, {3000, 30}};
	int			i;

	printf("%7s %5s %9s %4s %7s %9s %9s %9s %9s %9s %9s\n", "n", "K", "true", "b",
		   "entries", "capped", "error", "ranks", "error", "1.3", "error");
	if (argc >= 3)
	{
		for (i = 1; i + 1 < argc; i += 2)
			run(atoi(argv[i]), atoi(argv[i + 1]));
		return 0;
	}
	for (i = 0; i < (int) (sizeof(pairs) / sizeof(pairs[0])); i++)
		run(pairs[i][0], pairs[i][1]);
	return 0;
}
