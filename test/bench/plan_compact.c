/*
 * plan_compact.c
 *	  Lookups through a value's plan (sbf_plan_contains, what every SQL
 *	  lookup runs) in a version-5 value of one compact segment against the
 *	  same set stored as a fused or a bloom segment (version 4), at n = 30,
 *	  300 and 3,000 (decoded by the plan) and 6,000 (read from its bytes:
 *	  above SBF_PLAN_DECODE_MAX), each set at its share (the values crafted
 *	  by test/fuzz/craft4.h with the kinds' own plan and build).  Members and
 *	  absent hashes alternate.  Prints ns a lookup (median of 5 runs in
 *	  thread CPU time), the ratio to fused's, and the data bytes; and
 *	  first_ns, a value's first lookup (its plan built, one absent probe,
 *	  the plan freed: what a query that looks each value up once pays per
 *	  value, where a compact segment's plan decodes it).  Core only:
 *	    bash test/bench/plan_compact.sh [N]   (lookups a run, default 10^6)
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "sbf_plan.h"
#include "../fuzz/craft4.h"

#define RUNS	5
#define FIRST_REPS	20000

/* Median ns a lookup of the plan of buf over probes[0..n). */
static double
ns_per_lookup(const uint8_t *buf, size_t len, const uint64_t *probe, size_t n,
			  bool *decoded)
{
	SbfPlan    *p = NULL;
	double		t[RUNS];
	volatile size_t sink = 0;
	int			r;

	if (sbf_plan_build(buf, len, &bench_allocator, &p) != SBF_OK)
	{
		fprintf(stderr, "plan_compact: no plan\n");
		exit(1);
	}
	*decoded = p->seg[0].keys != NULL;
	for (r = 0; r < RUNS; r++)
	{
		double		t0 = bench_cpu_now();
		size_t		i;

		for (i = 0; i < n; i++)
			sink += sbf_plan_contains(p, probe[i]);
		t[r] = (bench_cpu_now() - t0) * 1e9 / (double) n;
	}
	(void) sink;
	sbf_plan_free(p, &bench_allocator);
	return bench_median(t, RUNS);
}

/*
 * Median ns of a value's first lookup: its plan built, one lookup, the
 * plan freed -- what a query pays per value when it looks a value up once
 * (a feed's candidate rows, each of another user).
 */
static double
ns_first_lookup(const uint8_t *buf, size_t len, uint64_t probe)
{
	double		t[RUNS];
	volatile size_t sink = 0;
	int			r;

	for (r = 0; r < RUNS; r++)
	{
		double		t0 = bench_cpu_now();
		int			i;

		for (i = 0; i < FIRST_REPS; i++)
		{
			SbfPlan    *p = NULL;

			if (sbf_plan_build(buf, len, &bench_allocator, &p) != SBF_OK)
				exit(1);
			sink += sbf_plan_contains(p, probe);
			sbf_plan_free(p, &bench_allocator);
		}
		t[r] = (bench_cpu_now() - t0) * 1e9 / FIRST_REPS;
	}
	(void) sink;
	return bench_median(t, RUNS);
}

int
main(int argc, char **argv)
{
	static const uint32_t ns[] = {30, 300, 3000, 6000};
	static const uint8_t kinds[] = {SBF_KIND_FUSED, SBF_KIND_BLOOM, SBF_KIND_COMPACT};
	static const char *const names[] = {"fused", "bloom", "compact"};
	size_t		n = argc > 1 ? (size_t) strtoull(argv[1], NULL, 10) : 1000000;
	uint64_t   *probe = malloc(n * sizeof(uint64_t));
	size_t		i;
	int			j;
	int			k;

	printf("%6s %8s %10s %8s %10s %9s %12s %8s\n", "n", "kind", "ns/lookup", "/fused",
		   "data_bytes", "decoded", "first_ns", "/fused");
	for (j = 0; j < 4; j++)
	{
		double		fused_ns = 0.0;
		double		fused_first = 0.0;

		for (k = 0; k < 3; k++)
		{
			Craft4Seg	s = {kinds[k], ns[j], 0.0083, 21};
			size_t		len;
			uint8_t    *buf = craft4(&s, 1, 0, &len);
			uint64_t   *members = craft4_hashes(&s);
			bool		decoded;
			double		t;
			double		first;

			if (buf == NULL)
			{
				printf("%6u %8s  (not planned)\n", ns[j], names[k]);
				free(members);
				continue;
			}
			for (i = 0; i < n; i++)
				probe[i] = i % 2 == 0 ? members[(i * 7919) % ns[j]] :
					sbf_mix64(i * 0x9E3779B97F4A7C15ULL + 17);
			t = ns_per_lookup(buf, len, probe, n, &decoded);
			first = ns_first_lookup(buf, len, probe[1]);
			if (k == 0)
			{
				fused_ns = t;
				fused_first = first;
			}
			printf("%6u %8s %10.1f %8.2f %10zu %9s %12.1f %8.2f\n", ns[j], names[k], t,
				   fused_ns > 0.0 ? t / fused_ns : 0.0,
				   len - SBF_HEADER_BYTES - SBF_SEGDIR_BYTES,
				   kinds[k] == SBF_KIND_COMPACT ? (decoded ? "yes" : "no") : "-",
				   first, fused_first > 0.0 ? first / fused_first : 0.0);
			free(members);
			free(buf);
		}
	}
	free(probe);
	return 0;
}
