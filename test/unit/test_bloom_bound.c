/*
 * test_bloom_bound.c
 *	  Unit tests of the kind-1 rate computed from a segment's bits
 *	  (sbf_bloom_bound.c, docs/format.md RATE BOUND): exact where every
 *	  (x, y) fits the work, the model above the exact rate (and near it)
 *	  where it does not, near (ones / m)^k for large arrays, and above it
 *	  for small ones, whose stored p 1.0-1.3 wrote from the formula alone.
 *	  Prints "ok - name" or "not ok - name" per case and a final count.
 */
#include <math.h>

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"
#include "sbf_kind.h"

static const SbfKindOps *const ops = &sbf_kind_bloom_ops;

/* work enough for every (x, y) of the arrays below */
#define ALL_WORK	(UINT64_C(1) << 40)

/*
 * A zeroed kind-1 segment of m bits and k hashes with n keys of space; its
 * count (the keys that set a bit, as an add counts them) into *count.
 */
static uint8_t *
segment(uint64_t m, int k, uint64_t n, int space, SbfKindGeom *g,
		uint64_t *count)
{
	uint64_t	bytes;
	uint8_t    *data;
	uint64_t	i;

	memset(g, 0, sizeof(*g));
	g->kind = SBF_KIND_BLOOM;
	g->size = m;
	g->width = (uint8_t) k;
	CHECK(ops->bytes(g, &bytes));
	data = calloc(1, bytes);
	*count = 0;
	for (i = 0; i < n; i++)
		*count += ops->insert(g, data, key(space, i));
	return data;
}

/* SIZING's geometry for n elements at p. */
static void
sizing(uint64_t n, double p, uint64_t *m, int *k)
{
	*m = (uint64_t) ceil(-(double) n * log(p) / (M_LN2 * M_LN2));
	*k = (int) fmax(1.0, round((double) *m / (double) n * M_LN2));
}

/* The rate over every start x and every step y HASH can give, one by one. */
static double
brute_rate(const SbfKindGeom *g, const uint8_t *data)
{
	uint64_t	m = g->size;
	uint64_t	hits = 0;
	uint64_t	ys = 0;
	uint64_t	x;
	uint64_t	y;

	for (y = 0; y < m; y++)
	{
		if (m % 2 == 0 && y % 2 == 0)
			continue;			/* h2 is odd: so is y when m is even */
		ys++;
		for (x = 0; x < m; x++)
		{
			SbfPosIter	it = {.x = x, .y = y, .m = m, .i = 0};
			int			i;
			bool		all = true;

			for (i = 0; i < g->width && all; i++)
			{
				uint64_t	pos = sbf_pos_next(&it);

				all = (sbf_load64(data + pos / 64 * 8) >> (pos % 64)) & 1;
			}
			hits += all;
		}
	}
	return (double) hits / ((double) m * (double) ys);
}

/* Every (x, y) counted: the exact rate, arrays of 1 bit on. */
static void
exact_with_the_work(void)
{
	static const uint64_t ms[] = {1, 2, 7, 63, 64, 65, 100, 128, 1000, 1999};
	static const int ks[] = {1, 3, 7, 12};
	size_t		i;
	size_t		j;

	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
		for (j = 0; j < sizeof(ks) / sizeof(ks[0]); j++)
		{
			SbfKindGeom g;
			uint64_t	count;
			uint8_t    *data = segment(ms[i], ks[j], 1 + ms[i] / 16, (int) j, &g, &count);
			double		b = ops->bound_of(&g, data, count, ALL_WORK);
			double		r = brute_rate(&g, data);

			CHECK(fabs(b - r) <= 1e-12 * r);
			free(data);
		}
}

/*
 * The model (no work): at least the exact rate, and within 10% of it, over
 * arrays of 150 to 1,200 elements at 0.1% to 30% as SIZING makes them (up
 * to 6,000 bits).
 */
static void
model_covers_the_rate(void)
{
	static const uint64_t ns[] = {150, 300, 600, 1200};
	static const double ps[] = {0.3, 0.1, 0.01, 0.001};
	size_t		i;
	size_t		j;
	int			seed;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++)
			for (seed = 0; seed < 2; seed++)
			{
				SbfKindGeom g;
				uint64_t	m;
				uint64_t	count;
				int			k;
				uint8_t    *data;
				double		b;
				double		r;

				sizing(ns[i], ps[j], &m, &k);
				if (m > 6000)
					continue;	/* the brute force's time */
				data = segment(m, k, ns[i], 40 + (int) (i * 8 + j * 2) + seed, &g, &count);
				b = ops->bound_of(&g, data, count, 0);
				r = brute_rate(&g, data);
				CHECK(b >= r);
				CHECK(b <= 1.1 * r);
				free(data);
			}
}

/* Small arrays answer far above (ones / m)^k, the rate 1.0-1.3 assumed. */
static void
small_arrays_above_fill_model(void)
{
	SbfKindGeom g;
	uint64_t	count;
	uint8_t    *data = segment(52, 12, 3, 7, &g, &count);
	double		b = ops->bound_of(&g, data, count, SBF_BLOOM_BOUND_WORK);

	CHECK(b > 2.0 * ops->rate_of(&g, data));
	CHECK(fabs(b - brute_rate(&g, data)) <= 1e-12 * b);
	free(data);
}

/*
 * A large array at 1% (the model): within 5% of (ones / m)^k and of the
 * rate measured on 10^6 keys not in it.
 */
static void
large_arrays_near_fill_model(void)
{
	SbfKindGeom g;
	uint64_t	m;
	uint64_t	count;
	int			k;
	uint8_t    *data;
	double		b;
	double		f;
	uint64_t	hits = 0;
	uint64_t	i;

	sizing(100000, 0.01, &m, &k);
	data = segment(m, k, 100000, 3, &g, &count);
	b = ops->bound_of(&g, data, count, SBF_BLOOM_BOUND_WORK);
	f = ops->rate_of(&g, data);
	for (i = 0; i < 1000000; i++)
		hits += ops->contains(&g, data, key(4, i));
	CHECK(b >= f && b <= 1.05 * f);
	CHECK(fabs(b - (double) hits / 1e6) <= 0.05 * b);
	free(data);
}

/* No bit: 0; every bit: 1, exact or by the model; any width up to SBF_MAX_K. */
static void
empty_and_full(void)
{
	SbfKindGeom g;
	uint64_t	count;
	uint8_t    *data = segment(1000, SBF_MAX_K, 0, 0, &g, &count);
	uint64_t	bytes;

	CHECK(ops->bound_of(&g, data, 0, ALL_WORK) == 0.0);
	CHECK(ops->bound_of(&g, data, 0, 0) == 0.0);
	CHECK(ops->bytes(&g, &bytes));
	memset(data, 0xFF, bytes);
	data[bytes - 1] = 0xFF >> (bytes * 8 - 1000);
	CHECK(ops->bound_of(&g, data, 1000, ALL_WORK) == 1.0);
	CHECK(ops->bound_of(&g, data, 1000, 0) == 1.0);
	free(data);
}

int
main(void)
{
	RUN(exact_with_the_work);
	RUN(model_covers_the_rate);
	RUN(small_arrays_above_fill_model);
	RUN(large_arrays_near_fill_model);
	RUN(empty_and_full);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
