/*
 * fuse_tight.c
 *	  How few slots a fused segment can have for n hashes (issue 36's windows
 *	  row): for arity 3 and 4, each segment length 2^l and each slot factor c,
 *	  how many of SETS random sets of n distinct hashes peel within the
 *	  format's 64 seed numbers, the mean seeds tried, and the bits per
 *	  element at fingerprint width F.  A reader accepts any S and l (the
 *	  descriptor stores them), so the writer's shape rule (fuse_shape,
 *	  docs/format4.md section 5) is a choice; this measures what a tighter
 *	  choice could give.  Deterministic (no timing), never a pass/fail test.
 *
 *	cc -O2 $(find src/core -type d -printf '-I%p ') -Itest/bench -o /tmp/fuse_tight test/bench/fuse_tight.c $(find src/core -name '[a-z]*.c') -lm
 *	/tmp/fuse_tight [n [F [SETS]]] > test/bench/results/fuse_tight.txt
 *	(defaults: n = 20000, F = 13, SETS = 3)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "bench_util.h"
#include "sbf_kind.h"

/* Set number s of n distinct hashes, ascending. */
static void
make_set(uint64_t *h, size_t n, int s)
{
	size_t		i;

	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64((int64_t) (i + 1 + (uint64_t) s * 100000000u));
	qsort(h, n, sizeof(uint64_t), bench_cmp_u64);
}

/* The geometry of about c n slots in segments of 2^l; false if too few. */
static bool
shape(size_t n, uint8_t arity, uint8_t width, int l, double c, SbfKindGeom *g,
	  uint64_t *slots)
{
	uint64_t	len = (uint64_t) 1 << l;
	uint64_t	segs = ((uint64_t) ceil(c * (double) n) + len - 1) / len;

	if (segs <= arity)
		return false;
	memset(g, 0, sizeof(*g));
	g->kind = SBF_KIND_FUSED;
	g->arity = arity;
	g->width = width;
	g->log2_len = (uint8_t) l;
	g->size = segs - (arity - 1);
	*slots = segs * len;
	return true;
}

int
main(int argc, char **argv)
{
	size_t		n = argc > 1 ? (size_t) atol(argv[1]) : 20000;
	uint8_t		width = argc > 2 ? (uint8_t) atoi(argv[2]) : 13;
	int			sets = argc > 3 ? atoi(argv[3]) : 3;
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint8_t		arity;

	if (h == NULL || n < 100 || width < 1 || width > 32 || sets < 1)
		return 2;
	printf("# fused shapes for n = %zu at f = %u: sets (of %d) that peel within 64 seed numbers\n",
		   n, width, sets);
	printf("# arity  l  c_asked  slots/n  bits/elem  peeled  mean_seeds\n");
	for (arity = 3; arity <= 4; arity++)
	{
		double		best = 0;

		for (int l = 6; l <= 11; l++)
			for (int ci = 0; ci <= 20; ci++)
			{
				double		c = 1.03 + 0.01 * ci;
				SbfKindGeom g;
				uint64_t	slots;
				uint64_t	bytes;
				int			ok = 0;
				double		seeds = 0;

				if (!shape(n, arity, width, l, c, &g, &slots) ||
					!sbf_fused_bytes(&g, &bytes))
					continue;
				for (int s = 0; s < sets; s++)
				{
					uint8_t    *d = calloc(bytes, 1);

					make_set(h, n, s);
					g.attempt = 0;
					if (d != NULL &&
						sbf_kind_fused_ops.build(&g, d, h, n, &bench_allocator) == SBF_OK)
					{
						ok++;
						seeds += g.attempt + 1;
					}
					free(d);
				}
				if (ok == 0)
					continue;
				printf("%7u %2d %8.2f %8.4f %10.2f %4d/%d %11.1f\n", arity, l, c,
					   (double) slots / n, (double) width * slots / n, ok, sets,
					   seeds / ok);
				if (ok == sets && (best == 0 || (double) slots / n < best))
					best = (double) slots / n;
			}
		printf("# arity %u: fewest slots/n with every set peeled: %.4f (%.2f bits an element)\n",
			   arity, best, best * width);
	}
	free(h);
	return 0;
}
