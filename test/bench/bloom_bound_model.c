/*
 * bloom_bound_model.c
 *	  The model behind RATE BOUND (docs/format.md; src/core/kinds/
 *	  sbf_bloom_bound.c) against the exact rate: kind-1 arrays built by
 *	  SIZING for n = 150..2,500 elements at 0.1% to 30% (three seeds each,
 *	  arrays up to 30,000 bits), their exact rate over every (x, y) of
 *	  HASH's double hashing counted one by one, and
 *	    c = (exact - count / (m ny) - fill^k) / fill^k * m / k^2,
 *	  the coefficient the model fill^k (1 + k^2 / m) + count / (m ny) takes
 *	  as 1.  Prints a line per array and the range of c.
 *	    bloom_bound_model		(fixed seeds: the same output every run)
 *	  Exits 0 (a measurement, not a test).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_internal.h"
#include "sbf_kind.h"

/* The rate over every start x and reachable step y, one by one. */
static double
brute(const SbfKindGeom *g, const uint8_t *data)
{
	uint64_t	m = g->size;
	uint64_t	hits = 0;
	uint64_t	ys = 0;
	uint64_t	c[SBF_MAX_K];
	uint64_t	x;
	uint64_t	y;

	for (y = 0; y < m; y++)
	{
		SbfPosIter	it = {.x = 0, .y = y, .m = m, .i = 0};
		int			i;

		if (m % 2 == 0 && y % 2 == 0)
			continue;
		ys++;
		for (i = 0; i < g->width; i++)
			c[i] = sbf_pos_next(&it);
		for (x = 0; x < m; x++)
		{
			for (i = 0; i < g->width; i++)
			{
				uint64_t	q = x + c[i] >= m ? x + c[i] - m : x + c[i];

				if (!((data[q >> 3] >> (q & 7)) & 1))
					break;
			}
			hits += i == g->width;
		}
	}
	return (double) hits / ((double) m * (double) ys);
}

int
main(void)
{
	static const double ps[] = {0.3, 0.1, 0.01, 0.001};
	static const uint64_t ns[] = {150, 300, 600, 1200, 2500};
	const SbfKindOps *ops = &sbf_kind_bloom_ops;
	double		cmin = INFINITY;
	double		cmax = -INFINITY;
	int			narrays = 0;
	size_t		pi;
	size_t		ni;
	int			seed;

	for (pi = 0; pi < sizeof(ps) / sizeof(ps[0]); pi++)
		for (ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++)
			for (seed = 0; seed < 3; seed++)
			{
				uint64_t	n = ns[ni];
				uint64_t	m = (uint64_t) ceil(-(double) n * log(ps[pi]) / (M_LN2 * M_LN2));
				int			k = (int) fmax(1.0, round((double) m / (double) n * M_LN2));
				SbfKindGeom g;
				uint64_t	bytes;
				uint64_t	count = 0;
				uint64_t	ny = m % 2 == 0 ? m / 2 : m;
				uint64_t	i;
				uint8_t    *d;
				double		fk,
							ex,
							memb,
							c;

				if (m > 30000)
					continue;
				memset(&g, 0, sizeof(g));
				g.kind = SBF_KIND_BLOOM;
				g.size = m;
				g.width = (uint8_t) k;
				if (!ops->bytes(&g, &bytes))
					return 1;
				d = calloc(1, bytes);
				for (i = 0; i < n; i++)
					count += ops->insert(&g, d, sbf_hash_int64((int64_t) (i + 1000000 * (uint64_t) seed +
																		   100000000 * (uint64_t) ni +
																		   1000000000ULL * pi)));
				fk = sbf_ipow(sbf_bits_fill(d, m), (uint32_t) k);
				ex = brute(&g, d);
				memb = (double) count / ((double) m * (double) ny);
				c = (ex - memb - fk) / fk * (double) m / ((double) k * k);
				cmin = c < cmin ? c : cmin;
				cmax = c > cmax ? c : cmax;
				narrays++;
				printf("p %.3f n %5llu m %6llu k %2d fill^k %.6f exact %.6f member %.2e c %.3f\n",
					   ps[pi], (unsigned long long) n, (unsigned long long) m, k, fk, ex, memb, c);
				free(d);
			}
	printf("# %d arrays: %.3f <= c <= %.3f (the model takes c = 1)\n", narrays, cmin, cmax);
	return 0;
}
