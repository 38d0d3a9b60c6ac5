/*
 * java_kinds.c
 *	  The C side of test/bench/java_bench.sh's per-kind probes: builds one
 *	  value of each kind from the same n elements "sku:i" (i = 1..n) through
 *	  the core -- one plain format-4 segment of kind bloom, blocked and fused
 *	  at share 0.01 (the kinds' own plan and build; empty HyperLogLog), the
 *	  exact form (version 2, the first 2,000 elements) and a windowed value
 *	  (the elements over 30 daily buckets, sbf_window_agg's final) -- checks
 *	  each with sbf_validate, writes its bytes to DIR/KIND.bin and prints,
 *	  per kind, ns per probe of members ("sku:1".."sku:q") and of
 *	  non-members ("miss:1".."miss:q") by sbf_contains_hash or
 *	  sbf_win_contains over pre-computed hashes: the median of reps runs in
 *	  thread CPU time, and how many it found (the Java side must find as
 *	  many).  Output lines: "KIND n bytes pos_ns neg_ns pos_batch_ns
 *	  neg_batch_ns pos_found neg_found" (batch: see probe).
 *	  Never a pass/fail test.
 *	  usage: java_kinds DIR [n] [q] [reps]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbf_app.h"
#include "sbf_core.h"
#include "sbf_plain.h"
#include "bench_util.h"
#include "sbf_dir.h"
#include "sbf_internal.h"
#include "sbf_kind.h"
#include "sbf_window.h"

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static uint64_t
hash_of(const char *prefix, size_t i)
{
	char		s[64];
	int			len = snprintf(s, sizeof(s), "%s%zu", prefix, i);

	return sbf_hash(s, (size_t) len);
}

/* One plain format-4 value of one segment of kind g (planned), empty HyperLogLog. */
static uint8_t *
one_segment(uint8_t kind, const uint64_t *sorted, size_t n, double share, size_t *len)
{
	const SbfKindOps *ops = sbf_kind_ops(kind);
	SbfKindGeom g;
	uint64_t	bytes;
	size_t		pad;
	size_t		start;
	uint8_t    *buf;

	if (ops->plan(n, share, &g, &bytes) != SBF_OK)
		return NULL;
	start = sbf_kind_area_start(&g, SBF_HEADER_BYTES + SBF_SEGDIR_BYTES, &pad);
	*len = start + (size_t) bytes;
	buf = calloc(1, *len);
	buf[SBF_OFF_VERSION] = SBF_FORMAT_V4;
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = SBF_HLL_P_DEFAULT;
	sbf_store16(buf + SBF_OFF_GROWTH, 2);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, 1);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, 0.02);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, 0.9);
	sbf_store64(buf + SBF_OFF_CAPACITY, n);
	if (ops->build(&g, buf + start, sorted, n, &bench_allocator) != SBF_OK)
		return NULL;
	sbf_write_entry(buf, 0, n, n, ops->insert == NULL ? ops->rate_at(&g, n) : share, &g);
	return buf;
}

/* The exact form (version 2) of n <= SBF_EXACT_MAX sorted hashes. */
static uint8_t *
exact_value(const uint64_t *sorted, size_t n, size_t *len)
{
	uint8_t    *buf;
	size_t		i;

	*len = SBF_EXACT_HEADER_BYTES + 8 * n;
	buf = calloc(1, *len);
	buf[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
	buf[SBF_OFF_FLAGS] = SBF_FLAG_EXACT;
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = SBF_HLL_P_DEFAULT;
	sbf_store16(buf + SBF_OFF_GROWTH, 2);
	sbf_store32(buf + SBF_OFF_NHASHES, (uint32_t) n);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, 0.01);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, 0.9);
	sbf_store64(buf + SBF_OFF_CAPACITY, 100000);
	sbf_store64(buf + SBF_OFF_FIRST_CAPACITY, 100000);
	sbf_store_double(buf + SBF_OFF_FIRST_ERROR, 0.001);
	for (i = 0; i < n; i++)
		sbf_store64(buf + SBF_EXACT_HEADER_BYTES + 8 * i, sorted[i]);
	return buf;
}

static uint8_t *
window_value(size_t n, size_t *len)
{
	SbfWinParams p = {86400LL * 1000000, 30, 0.01};
	SbfWinPair *pairs = malloc(sizeof(SbfWinPair) * n);
	int64_t		newest = 20000;
	SbfWindow	w;
	SbfFilter	f;
	size_t		i;
	size_t		m;

	for (i = 0; i < n; i++)
	{
		pairs[i].hash = hash_of("sku:", i + 1);
		pairs[i].bucket = newest - (int64_t) (i % 30);
	}
	m = sbf_win_pairs_normalize(pairs, n, newest, 30);
	if (sbf_win_from_pairs(&w, &p, newest, pairs, m, &bench_allocator) != SBF_OK ||
		sbf_win_agg_finish(&w, &f, 0) != SBF_OK)
		return NULL;
	sbf_win_free(&w);
	free(pairs);
	*len = f.len;
	return f.base;
}

/*
 * ns per probe of q hashes (median of reps) and how many were found: one
 * call a hash (sbf_contains_hash, sbf_win_contains), or with batch the
 * batched lookups of sbf_matches (sbf_count_contained, sbf_win_count_contained
 * over 120 hashes a call).
 */
static double
probe(const uint8_t *buf, size_t len, const uint64_t *h, size_t q, int reps, bool batch,
	  size_t *found)
{
	double		t[16];
	SbfView		v;
	SbfWinView	wv;
	bool		win = sbf_is_window(buf, len);
	int64_t		max_age = 0;
	int			r;

	if (win)
	{
		sbf_win_parse(buf, len, &wv);
		max_age = sbf_win_max_age(&wv, SBF_WIN_ALL);
	}
	else
		sbf_validate(buf, len, &v);
	for (r = 0; r < reps; r++)
	{
		double		t0 = bench_cpu_now();
		size_t		k = 0;
		size_t		i;

		if (batch)
			for (i = 0; i < q; i += 120)
			{
				size_t		b = q - i < 120 ? q - i : 120;

				k += win ? sbf_win_count_contained(&wv, h + i, b, max_age) :
					sbf_count_contained(&v, h + i, b);
			}
		else
			for (i = 0; i < q; i++)
				k += win ? sbf_win_contains(&wv, h[i], max_age) : sbf_contains_hash(&v, h[i]);
		t[r] = (bench_cpu_now() - t0) / (double) q * 1e9;
		*found = k;
	}
	qsort(t, reps, sizeof(double), bench_cmp_double);
	return t[reps / 2];
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	size_t		n = argc > 2 ? (size_t) atol(argv[2]) : 100000;
	size_t		q = argc > 3 ? (size_t) atol(argv[3]) : 1000000;
	int			reps = argc > 4 ? atoi(argv[4]) : 5;
	const char *names[] = {"bloom", "blocked", "fused", "exact", "windowed"};
	uint64_t   *sorted = malloc(sizeof(uint64_t) * n);
	uint64_t   *pos = malloc(sizeof(uint64_t) * q);
	uint64_t   *neg = malloc(sizeof(uint64_t) * q);
	size_t		i;
	int			k;

	if (reps > 15)
		reps = 15;
	for (i = 0; i < n; i++)
		sorted[i] = hash_of("sku:", i + 1);
	qsort(sorted, n, sizeof(uint64_t), cmp_u64);
	for (k = 0; k < 5; k++)
	{
		size_t		len = 0;
		size_t		members = k == 3 ? 2000 : n;
		uint8_t    *buf;
		SbfView		v;
		char		path[4096];
		FILE	   *out;
		size_t		pf = 0;
		size_t		nf = 0;
		double		pns;
		double		nns;
		double		pbatch;
		double		nbatch;

		if (k < 3)
			buf = one_segment((uint8_t) (k == 0 ? SBF_KIND_BLOOM : k == 1 ? SBF_KIND_BLOCKED : SBF_KIND_FUSED),
							  sorted, n, 0.01, &len);
		else if (k == 3)
		{
			uint64_t   *ex = malloc(sizeof(uint64_t) * members);

			for (i = 0; i < members; i++)
				ex[i] = hash_of("sku:", i + 1);
			qsort(ex, members, sizeof(uint64_t), cmp_u64);
			buf = exact_value(ex, members, &len);
			free(ex);
		}
		else
			buf = window_value(n, &len);
		if (buf == NULL || sbf_validate(buf, len, &v) != SBF_OK)
		{
			fprintf(stderr, "java_kinds: the %s value did not build or validate\n", names[k]);
			return 1;
		}
		snprintf(path, sizeof(path), "%s/%s.bin", dir, names[k]);
		out = fopen(path, "wb");
		if (out == NULL || fwrite(buf, 1, len, out) != len || fclose(out) != 0)
		{
			fprintf(stderr, "java_kinds: cannot write %s\n", path);
			return 1;
		}
		for (i = 0; i < q; i++)
		{
			pos[i] = hash_of("sku:", i % members + 1);
			neg[i] = hash_of("miss:", i + 1);
		}
		pns = probe(buf, len, pos, q, reps, false, &pf);
		nns = probe(buf, len, neg, q, reps, false, &nf);
		pbatch = probe(buf, len, pos, q, reps, true, &pf);
		nbatch = probe(buf, len, neg, q, reps, true, &nf);
		printf("%s %zu %zu %.2f %.2f %.2f %.2f %zu %zu\n", names[k], members, len, pns, nns,
			   pbatch, nbatch, pf, nf);
		free(buf);
	}
	return 0;
}
