/*
 * kinds_shape.c
 *	  The sizing figures docs/format4.md quotes, from the kinds' own planners
 *	  and builders (no timing, deterministic):
 *	    1. fused builds: how often the first seed peels, 3-wise against 4-wise,
 *	       by set size (200 sets each below 10,000, 20 above);
 *	    2. bytes of a segment by kind and size at 0.96% and 0.1%, and which
 *	       one sbf_kind_choose writes;
 *	    3. bits per element of a filter grown 1,023x by adds (growth 2,
 *	       tightening 0.9) in bloom segments against blocked ones.
 *
 *	cc -O2 $(find src/core -type d -printf '-I%p ') -o /tmp/kinds_shape test/bench/kinds_shape.c $(find src/core -name '*.c') -lm
 *	/tmp/kinds_shape > test/bench/results/kinds_shape.txt
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sbf_core.h"
#include "bench_util.h"
#include "sbf_kind.h"

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* 1. first-seed success and retries of fused builds. */
static void
retries(void)
{
	static const uint64_t sizes[] = {1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000,
	2000, 5000, 10000, 100000};

	printf("1. fused builds at 0.96%% (f = 7): sets whose first seed peels\n");
	printf("%8s %6s | %9s %7s %5s %7s | %9s %7s %5s %7s\n", "n", "sets", "3w first",
		   "retries", "max", "bits/e", "4w first", "retries", "max", "bits/e");
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		uint64_t	n = sizes[si];
		int			sets = n >= 10000 ? 20 : 200;

		printf("%8llu %6d |", (unsigned long long) n, sets);
		for (uint8_t arity = 3; arity <= 4; arity++)
		{
			int			first = 0;
			int			total = 0;
			int			most = 0;
			int			fails = 0;
			double		bits = 0;

			for (int s = 0; s < sets; s++)
			{
				uint64_t   *h = malloc(n * sizeof(uint64_t));
				SbfKindGeom g;
				uint64_t	bytes;
				uint8_t    *d;

				for (uint64_t i = 0; i < n; i++)
					h[i] = sbf_hash_int64((int64_t) (i + (uint64_t) s * 1000003u * n + 7));
				qsort(h, n, sizeof(uint64_t), cmp_u64);
				if (sbf_fused_plan_arity(n, 0.0096, arity, &g, &bytes) != SBF_OK)
					exit(1);
				d = malloc(bytes);
				if (sbf_kind_fused_ops.build(&g, d, h, n, &bench_allocator) != SBF_OK)
					fails++;
				else
				{
					first += g.attempt == 0;
					total += g.attempt;
					most = g.attempt > most ? g.attempt : most;
				}
				bits += bytes * 8.0 / n;
				free(d);
				free(h);
			}
			printf(" %8.1f%% %7.2f %5d %7.2f%s", 100.0 * first / sets,
				   (double) total / sets, most, bits / sets, fails ? " FAILED" : "");
			printf(arity == 3 ? " |" : "\n");
		}
	}
}

/* 2. segment bytes by kind, and the writer's choice. */
static void
crossover(void)
{
	static const double shares[] = {0.0096, 0.001};
	static const uint64_t ns[] = {1, 2, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000,
	2000, 10000, 100000, 1000000, 10000000};

	for (int r = 0; r < 2; r++)
	{
		printf("\n2. segment bytes at share %g (fused f = %d)\n", shares[r], r ? 10 : 7);
		printf("%10s %10s %4s %8s %10s %8s %10s %8s  %s\n", "n", "blocked", "k", "bits/e",
			   "fused 3w", "bits/e", "fused 4w", "bits/e", "written");
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		{
			SbfKindGeom b;
			SbfKindGeom f3;
			SbfKindGeom f4;
			SbfKindGeom c;
			uint64_t	bb;
			uint64_t	f3b;
			uint64_t	f4b;
			uint64_t	cb;

			if (sbf_kind_blocked_ops.plan(ns[i], shares[r], &b, &bb) != SBF_OK ||
				sbf_fused_plan_arity(ns[i], shares[r], 3, &f3, &f3b) != SBF_OK ||
				sbf_fused_plan_arity(ns[i], shares[r], 4, &f4, &f4b) != SBF_OK ||
				sbf_kind_choose(ns[i], shares[r], &c, &cb) != SBF_OK)
				exit(1);
			printf("%10llu %10llu %4d %8.2f %10llu %8.2f %10llu %8.2f  %s\n",
				   (unsigned long long) ns[i], (unsigned long long) bb, b.width,
				   bb * 8.0 / ns[i], (unsigned long long) f3b, f3b * 8.0 / ns[i],
				   (unsigned long long) f4b, f4b * 8.0 / ns[i],
				   sbf_kind_ops(c.kind)->name);
		}
	}
}

/* 3. a filter grown 1,023x by adds: bloom against blocked segments. */
static void
growth(void)
{
	printf("\n3. grown 1,023x by adds from capacity 10,000 (growth 2, tightening 0.9)\n");
	for (int r = 0; r < 2; r++)
	{
		double		e = r ? 0.001 : 0.01;
		double		spent = 0;
		double		bloom = 0;
		double		blocked = 0;
		double		total = 0;
		uint64_t	cap = 10000;

		for (int i = 0; i < 10; i++, cap *= 2)
		{
			double		p = 0.1 * (e - spent);
			uint64_t	m;
			uint32_t	k;
			SbfKindGeom g;
			uint64_t	bytes;

			spent += p;
			if (!sbf_segment_geometry(cap, p, SBF_MAX_SEGMENT_BITS, &m, &k) ||
				sbf_kind_blocked_ops.plan(cap, p, &g, &bytes) != SBF_OK)
				exit(1);
			bloom += m;
			blocked += bytes * 8.0;
			total += cap;
		}
		printf("  e = %-6g bloom %.2f bits/e, blocked %.2f (%+.1f%%)\n", e,
			   bloom / total, blocked / total, 100 * (blocked / bloom - 1));
	}
}

int
main(void)
{
	retries();
	crossover();
	growth();
	return 0;
}
