/*
 * kinds_bench.c
 *	  Micro benchmark of the segment kinds, side by side in one run: the
 *	  standard Bloom segment of formats 1-2 (through the core's own API:
 *	  sbf_create with tightening 1, so its one segment is built for rate e,
 *	  sbf_add_hashes and sbf_count_contained), the blocked kind and the fused
 *	  kind (3-wise as written, 4-wise for comparison).  For n elements at rate
 *	  e it prints bits per element, ns per insert (in arrival order), ns per
 *	  element of a build from sorted hashes, ns per probe of non-members and of
 *	  members, the measured false-positive rate, and ratios against the
 *	  standard kind.  Times are the median of SBF_BENCH_REPS (default 3) runs
 *	  in thread CPU time.  Never a pass/fail test.
 *
 *	  bash test/bench/kinds_bench.sh         (10k, 1M, 10M; SBF_BENCH_100M=1 adds 100M)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "bench_util.h"
#include "sbf_kind.h"

#define MAX_REPS	9

static int	reps = 3;

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* One row of the table. */
typedef struct Row
{
	const char *name;
	double		bits;			/* bits per element of the segment */
	double		insert_ns;		/* < 0: the kind has no insert */
	double		build_ns;
	double		neg_ns;
	double		pos_ns;
	double		fpr;
} Row;

/* Shared inputs of one (n, e) cell. */
typedef struct Cell
{
	size_t		n;
	double		e;
	const uint64_t *h;			/* arrival order (distinct) */
	const uint64_t *sorted;
	const uint64_t *neg;		/* non-members */
	const uint64_t *pos;		/* members, arrival order */
	size_t		q;
} Cell;

static void
print_row(const Row *r, const Row *base)
{
	char		ins[32];

	if (r->insert_ns < 0)
		snprintf(ins, sizeof(ins), "%9s", "-");
	else
		snprintf(ins, sizeof(ins), "%9.1f", r->insert_ns);
	printf("  %-14s %6.2f %s %8.1f %8.1f %8.1f %8.5f   %5.2fx %6.2fx %6.2fx %6.2fx\n",
		   r->name, r->bits, ins, r->build_ns, r->neg_ns, r->pos_ns, r->fpr,
		   r->bits / base->bits, r->build_ns / base->build_ns,
		   r->neg_ns / base->neg_ns, r->pos_ns / base->pos_ns);
}

/* The standard kind: a 1.2 filter of one segment built for n at rate e. */
static void
run_standard(const Cell *c, Row *r)
{
	SbfParams	p = {c->n, c->e, 1.0, 2, 9};
	double		ti[MAX_REPS];
	double		tb[MAX_REPS];
	double		tn[MAX_REPS];
	double		tp[MAX_REPS];
	size_t		fp = 0;
	int			i;

	for (i = 0; i < reps; i++)
	{
		SbfFilter	f;
		SbfView		v;
		SbfSegment	seg;
		double		t0;

		/* arrival order, one add at a time as live adds do */
		if (sbf_create(&f, &p, 0, &bench_allocator) != SBF_OK)
			exit(1);
		t0 = bench_cpu_now();
		for (size_t j = 0; j < c->n; j++)
			if (sbf_add_hash(&f, c->h[j], &(bool) {false}) != SBF_OK)
				exit(1);
		ti[i] = (bench_cpu_now() - t0) * 1e9 / c->n;
		sbf_filter_free(&f);
		/* sorted, as the aggregate's final adds them */
		if (sbf_create(&f, &p, 0, &bench_allocator) != SBF_OK)
			exit(1);
		t0 = bench_cpu_now();
		if (sbf_add_hashes(&f, c->sorted, c->n) != SBF_OK)
			exit(1);
		tb[i] = (bench_cpu_now() - t0) * 1e9 / c->n;
		sbf_filter_view(&f, &v);
		sbf_get_segment(&v, 0, &seg);
		r->bits = (double) seg.nbits / c->n;
		t0 = bench_cpu_now();
		fp = sbf_count_contained(&v, c->neg, c->q);
		tn[i] = (bench_cpu_now() - t0) * 1e9 / c->q;
		t0 = bench_cpu_now();
		if (sbf_count_contained(&v, c->pos, c->q) != c->q)
			exit(2);
		tp[i] = (bench_cpu_now() - t0) * 1e9 / c->q;
		sbf_filter_free(&f);
	}
	r->name = "standard";
	r->insert_ns = bench_median(ti, reps);
	r->build_ns = bench_median(tb, reps);
	r->neg_ns = bench_median(tn, reps);
	r->pos_ns = bench_median(tp, reps);
	r->fpr = (double) fp / c->q;
}

/*
 * The standard kind's bits alone, without the 1.2 filter's HyperLogLog and
 * duplicate check: sbf_positions (the core's position sequence) into a bit
 * array of the geometry sbf_segment_geometry gives for n at e; lookups as
 * the standard row's.
 */
static void
run_standard_bits(const Cell *c, const Row *std, Row *r)
{
	uint64_t	m;
	uint32_t	k;
	uint64_t	pos[SBF_MAX_K];
	uint8_t    *bits;
	double		ti[MAX_REPS];
	double		tb[MAX_REPS];
	int			i;

	if (!sbf_segment_geometry(c->n, c->e, SBF_MAX_SEGMENT_BITS, &m, &k))
		exit(1);
	bits = malloc(m / 8 + 8);
	for (i = 0; i < reps; i++)
	{
		const uint64_t *src[2] = {c->h, c->sorted};
		double	   *t[2] = {ti, tb};

		for (int pass = 0; pass < 2; pass++)
		{
			double		t0;

			memset(bits, 0, m / 8 + 8);
			t0 = bench_cpu_now();
			for (size_t j = 0; j < c->n; j++)
			{
				sbf_positions(src[pass][j], m, k, pos);
				for (uint32_t q = 0; q < k; q++)
					bits[pos[q] >> 3] |= (uint8_t) (1u << (pos[q] & 7));
			}
			t[pass][i] = (bench_cpu_now() - t0) * 1e9 / c->n;
		}
	}
	free(bits);
	*r = *std;
	r->name = "std bits only";
	r->bits = (double) m / c->n;
	r->insert_ns = bench_median(ti, reps);
	r->build_ns = bench_median(tb, reps);
}

/*
 * A kind: geometry from plan (arity 4 when arity4), data at an 8-byte but not
 * 64-byte aligned address unless aligned (a varlena's payload is 8-aligned).
 */
static void
run_kind(const Cell *c, const SbfKindOps *ops, bool arity4, bool aligned,
		 const char *name, Row *r)
{
	SbfKindGeom g;
	uint64_t	bytes;
	double		ti[MAX_REPS];
	double		tb[MAX_REPS];
	double		tn[MAX_REPS];
	double		tp[MAX_REPS];
	size_t		fp = 0;
	uint8_t    *mem;
	uint8_t    *data;
	int			i;

	if ((arity4 ? sbf_fused_plan_arity(c->n, c->e, 4, &g, &bytes)
		 : ops->plan(c->n, c->e, &g, &bytes)) != SBF_OK)
		exit(1);
	mem = aligned_alloc(64, (bytes + 128) / 64 * 64);
	data = mem + (aligned ? 0 : 8);
	for (i = 0; i < reps; i++)
	{
		SbfKindGeom gb = g;
		double		t0;

		ti[i] = -1;
		if (ops->insert)
		{
			memset(data, 0, bytes);
			t0 = bench_cpu_now();
			for (size_t j = 0; j < c->n; j++)
				(void) ops->insert(&g, data, c->h[j]);
			ti[i] = (bench_cpu_now() - t0) * 1e9 / c->n;
		}
		t0 = bench_cpu_now();
		if (ops->build(&gb, data, c->sorted, c->n, &bench_allocator) != SBF_OK)
			exit(1);
		tb[i] = (bench_cpu_now() - t0) * 1e9 / c->n;
		t0 = bench_cpu_now();
		fp = ops->count(&gb, data, c->neg, c->q);
		tn[i] = (bench_cpu_now() - t0) * 1e9 / c->q;
		t0 = bench_cpu_now();
		if (ops->count(&gb, data, c->pos, c->q) != c->q)
			exit(2);
		tp[i] = (bench_cpu_now() - t0) * 1e9 / c->q;
	}
	free(mem);
	r->name = name;
	r->bits = (double) bytes * 8 / c->n;
	r->insert_ns = ti[0] < 0 ? -1 : bench_median(ti, reps);
	r->build_ns = bench_median(tb, reps);
	r->neg_ns = bench_median(tn, reps);
	r->pos_ns = bench_median(tp, reps);
	r->fpr = (double) fp / c->q;
}

/* splitmix64 */
static uint64_t
rnd(uint64_t *s)
{
	uint64_t	z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void
run_cell(size_t n, double e)
{
	Cell		c;
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t   *sorted = malloc(n * sizeof(uint64_t));
	uint64_t   *neg;
	uint64_t   *pos;
	uint64_t	s = 12345;
	Row			rows[6];
	size_t		i;
	size_t		out = 0;

	/* element hashes of the bigints 0..n-1: distinct, arrival order */
	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64((int64_t) i);
	memcpy(sorted, h, n * sizeof(uint64_t));
	qsort(sorted, n, sizeof(uint64_t), cmp_u64);
	for (i = 0; i < n; i++)
		if (out == 0 || sorted[out - 1] != sorted[i])
			sorted[out++] = sorted[i];
	if (out != n)
		exit(3);				/* an XXH3 collision among n bigints: none known */
	c.n = n;
	c.e = e;
	c.h = h;
	c.sorted = sorted;
	c.q = n < 1000000 ? 1000000 : n / 4 > 4000000 ? 4000000 : 1000000;
	neg = malloc(c.q * sizeof(uint64_t));
	pos = malloc(c.q * sizeof(uint64_t));
	for (i = 0; i < c.q; i++)
	{
		neg[i] = sbf_hash_int64(-(int64_t) i - 1);	/* bigints never added */
		pos[i] = h[rnd(&s) % n];
	}
	c.neg = neg;
	c.pos = pos;
	run_standard(&c, &rows[0]);
	run_standard_bits(&c, &rows[0], &rows[1]);
	run_kind(&c, &sbf_kind_blocked_ops, false, false, "blocked", &rows[2]);
	run_kind(&c, &sbf_kind_blocked_ops, false, true, "blocked@64", &rows[3]);
	run_kind(&c, &sbf_kind_fused_ops, false, false, "fused (3-wise)", &rows[4]);
	run_kind(&c, &sbf_kind_fused_ops, true, false, "fused 4-wise", &rows[5]);
	printf("n = %zu, rate %g (probes: %zu non-members, %zu members)\n", n, e, c.q, c.q);
	for (i = 0; i < 6; i++)
		print_row(&rows[i], &rows[0]);
	fflush(stdout);
	free(h);
	free(sorted);
	free(neg);
	free(pos);
}

int
main(int argc, char **argv)
{
	static const double rates[] = {0.01, 0.001};
	size_t		sizes[4] = {10000, 1000000, 10000000, 100000000};
	int			nsizes = getenv("SBF_BENCH_100M") ? 4 : 3;
	const char *r = getenv("SBF_BENCH_REPS");
	int			si;
	int			ri;

	if (r != NULL)
		reps = atoi(r) < 1 ? 1 : atoi(r) > MAX_REPS ? MAX_REPS : atoi(r);
	if (argc > 1)
	{
		sizes[0] = strtoull(argv[1], NULL, 10);
		nsizes = 1;
	}
	printf("segment kinds, median of %d runs, thread CPU time; ratios against the standard kind\n", reps);
	printf("  %-14s %6s %9s %8s %8s %8s %8s   %6s %7s %7s %7s\n", "kind", "bits/e",
		   "insert ns", "build ns", "probe- ns", "probe+", "FPR", "bits", "build", "probe-", "probe+");
	for (si = 0; si < nsizes; si++)
		for (ri = 0; ri < 2; ri++)
			run_cell(sizes[si], rates[ri]);
	return 0;
}
