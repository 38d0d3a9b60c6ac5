/*
 * window_positions.c
 *	  Why windowed segments use independent bit positions: the measured
 *	  false-positive rate of small right-sized Bloom segments (c elements at
 *	  p = (0.01/30)^1.04, as a compacted bucket of a default window) under the
 *	  plain filters' enhanced double hashing and under the windowed form's
 *	  positions (sbf_win_position), against the rate modelled from the
 *	  segment's set bits, (ones / m)^k.  200 segments per size, 100,000
 *	  probes never added each.
 *
 *	    cc -O2 $(find src/core -type d -printf '-I%p ') -o /tmp/window_positions test/bench/window_positions.c $(find src/core -name '*.c') -lm
 *	    /tmp/window_positions
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sbf_internal.h"
#include "sbf_window.h"

static uint64_t s = 1;

static uint64_t
rnd(void)
{
	uint64_t	z = (s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* position j of h: double hashing (scheme 0) or windowed (scheme 1) */
static void
positions(int scheme, uint64_t h, uint64_t m, uint32_t k, uint64_t *pos)
{
	uint32_t	j;

	if (scheme == 0)
	{
		sbf_positions(h, m, k, pos);
		return;
	}
	for (j = 0; j < k; j++)
		pos[j] = sbf_win_position(h, j, m);
}

int
main(void)
{
	int			cs[] = {1, 3, 5, 8, 16, 32, 64, 128, 1000};
	double		pe = pow(0.01 / 30, 1.04);
	int			ci;

	printf("%6s %7s %3s | %-31s | %-31s\n", "c", "m", "k", "double hashing: model  measured", "windowed: model  measured");
	for (ci = 0; ci < (int) (sizeof(cs) / sizeof(cs[0])); ci++)
	{
		int			c = cs[ci];
		uint64_t	m;
		uint32_t	k;
		int			scheme;

		sbf_segment_geometry((uint64_t) c, pe, (uint64_t) 1 << 40, &m, &k);
		printf("%6d %7lu %3u", c, (unsigned long) m, k);
		for (scheme = 0; scheme < 2; scheme++)
		{
			double		model = 0;
			long		fp = 0,
						trials = 0;
			int			rep;

			for (rep = 0; rep < 200; rep++)
			{
				uint8_t    *bits = calloc(sbf_words_bytes(m), 1);
				uint64_t	pos[SBF_MAX_K];
				uint64_t	ones = 0;
				uint64_t	j;
				int			i,
							q;

				for (i = 0; i < c; i++)
				{
					positions(scheme, rnd(), m, k, pos);
					for (j = 0; j < k; j++)
						sbf_bit_set(bits, pos[j]);
				}
				for (j = 0; j < m; j++)
					ones += sbf_bit_test(bits, j);
				model += pow((double) ones / (double) m, k);
				for (q = 0; q < 100000; q++)
				{
					bool		all = true;

					positions(scheme, rnd(), m, k, pos);
					for (j = 0; j < k && all; j++)
						all = sbf_bit_test(bits, pos[j]);
					fp += all;
					trials++;
				}
				free(bits);
			}
			printf(" | %12.3g %12.3g (%5.2fx)", model / 200, (double) fp / trials,
				   (double) fp / trials / (model / 200));
		}
		printf("\n");
	}
	return 0;
}
