/*
 * bucket_kinds.c
 *	  A window's bucket as each complete kind would store it (issue 36's
 *	  windows row: <= 14.0 bits per element-bucket at 20,000 a bucket, 1%,
 *	  30 buckets).  For n hashes at the share a bucket's first segment is
 *	  built for (format.md, WINDOW SIZING: p = P^1.04, P = e / B) and at P
 *	  itself: the bits per element of the fused kind (3- and 4-wise, as the
 *	  writer plans it) and of the compact kind (sorted fingerprints,
 *	  sbf_kind_compact.c), the compact segment's measured rate over N absent
 *	  hashes, and lookup ns of the compact code read from its bytes
 *	  (contains), through a select reader (sbf_ef_has) and decoded
 *	  (sbf_ef_array_has), beside the fused segment's contains.  ns are the
 *	  median of 5 runs in thread CPU time; on this shared machine read them
 *	  as sizes, not ratios.  Never a pass/fail test.
 *
 *	    bash test/bench/bucket_kinds.sh [N]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sbf_core.h"
#include "sbf_kind.h"
#include "sbf_efset.h"
#include "bench_util.h"

typedef struct Seg
{
	const SbfKindOps *ops;
	SbfKindGeom g;
	uint64_t	bytes;
	uint8_t    *data;
	SbfEfShape	s;
	SbfEfReader r;
	uint64_t   *fp;
} Seg;

static bool
probe_kind(const void *ctx, uint64_t h)
{
	const Seg  *s = ctx;

	return s->ops->contains(&s->g, s->data, h);
}

static bool
probe_reader(const void *ctx, uint64_t h)
{
	const Seg  *s = ctx;

	return sbf_ef_has(&s->r, sbf_ef_fingerprint(h, s->g.width));
}

static bool
probe_array(const void *ctx, uint64_t h)
{
	const Seg  *s = ctx;

	return sbf_ef_array_has(s->fp, s->s.n, sbf_ef_fingerprint(h, s->g.width));
}

/* Plans and builds h[0..n) as ops at share (fused: arity 3 or 4). */
static bool
make(Seg *s, const SbfKindOps *ops, int arity, const uint64_t *h, uint64_t n,
	 double share)
{
	SbfStatus	st;

	s->ops = ops;
	st = arity ? sbf_fused_plan_arity(n, share, (uint8_t) arity, &s->g, &s->bytes)
		: ops->plan(n, share, &s->g, &s->bytes);
	if (st != SBF_OK)
		return false;
	s->data = malloc(s->bytes);
	return ops->build(&s->g, s->data, h, n, &bench_allocator) == SBF_OK;
}

static void
row(uint64_t n, double share, const char *which, uint64_t nabsent)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t   *q = malloc(nabsent * sizeof(uint64_t));
	Seg			f3 = {0},
				f4 = {0},
				c = {0};
	uint64_t	i;
	size_t		hits = 0;
	double		ns_f3,
				ns_raw,
				ns_reader,
				ns_array;

	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64((int64_t) i);
	qsort(h, n, sizeof(uint64_t), bench_cmp_u64);
	for (i = 0; i < nabsent; i++)
		q[i] = sbf_hash_int64((int64_t) (i + ((uint64_t) 1 << 40)));
	if (!make(&f3, &sbf_kind_fused_ops, 3, h, n, share) ||
		!make(&f4, &sbf_kind_fused_ops, 4, h, n, share) ||
		!make(&c, &sbf_kind_compact_ops, 0, h, n, share))
		abort();
	(void) sbf_ef_shape(n, c.g.width, &c.s);
	if (sbf_ef_reader_init(&c.r, &c.s, c.data, &bench_allocator) != SBF_OK)
		abort();
	c.fp = malloc(n * sizeof(uint64_t));
	sbf_ef_decode(&c.r, c.fp);
	ns_f3 = bench_time_probes(probe_kind, &f3, q, nabsent < 200000 ? nabsent : 200000, 5, &hits);
	ns_raw = bench_time_probes(probe_kind, &c, q, nabsent < 200000 ? nabsent : 200000, 5, &hits);
	ns_reader = bench_time_probes(probe_reader, &c, q, nabsent < 200000 ? nabsent : 200000, 5, &hits);
	ns_array = bench_time_probes(probe_array, &c, q, nabsent < 200000 ? nabsent : 200000, 5, &hits);
	hits = 0;
	for (i = 0; i < nabsent; i++)
		hits += c.ops->contains(&c.g, c.data, q[i]) ? 1 : 0;
	printf("| %llu | %s %.3g | %.2f (f %u) | %.2f (f %u) | %.2f (b %u, L %d) | %.3g / %.3g | %.1f | %.1f / %.1f / %.1f |\n",
		   (unsigned long long) n, which, share,
		   8.0 * (double) f3.bytes / (double) n, f3.g.width,
		   8.0 * (double) f4.bytes / (double) n, f4.g.width,
		   8.0 * (double) c.bytes / (double) n, c.g.width, c.s.L,
		   (double) hits / (double) nabsent, c.ops->rate_of(&c.g, c.data),
		   ns_f3, ns_raw, ns_reader, ns_array);
	sbf_ef_reader_free(&c.r, &bench_allocator);
	free(c.fp);
	free(c.data);
	free(f3.data);
	free(f4.data);
	free(q);
	free(h);
}

int
main(int argc, char **argv)
{
	static const uint64_t ns[] = {1000, 20000};
	uint64_t	nabsent = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	double		P = 0.01 / 30;
	size_t		i;

	printf("# e = 1%%, B = 30 buckets: P = e / B; %llu absent hashes\n",
		   (unsigned long long) nabsent);
	printf("| n | share | fused 3-wise bits/elem | fused 4-wise | compact | compact rate measured / rate_of | fused ns | compact ns: bytes / reader / decoded |\n");
	printf("|--:|---|--:|--:|--:|--:|--:|--:|\n");
	for (i = 0; i < 2; i++)
	{
		row(ns[i], pow(P, 1.04), "P^1.04", nabsent);
		row(ns[i], P, "P", nabsent);
	}
	return 0;
}
