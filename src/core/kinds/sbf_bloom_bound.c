/*
 * sbf_bloom_bound.c
 *	  The false-positive rate of a kind-1 bloom segment computed from its
 *	  bits (docs/format.md, RATE BOUND): the fraction of the position
 *	  sequences of HASH whose k positions are all set.
 *
 *	  A hash not in the segment starts its sequence at x = h mod m with step
 *	  y = (sbf_mix64(h) | 1) mod m, and its i-th position is (x + c_i(y))
 *	  mod m with c_0 = 0, c_(i+1) = c_i + y + i(i+1)/2: each x in [0, m)
 *	  and each reachable y (the odd residues when m is even, every residue
 *	  when m is odd) is equally likely.  The rate is therefore the mean, over
 *	  reachable y, of the fraction of x whose k positions hold a one: for
 *	  one y that is the population count of the AND of the bit array
 *	  rotated by each c_i(y), 64 values of x a word.  Small arrays answer
 *	  far above (ones / m)^k (two hashes share positions when their (x, y)
 *	  are close; a member's own (x, y) always answers yes), which is why
 *	  stored rates of 1.0-1.3 segments can understate their rate.
 *
 *	  Cost: k extractions of 64 bits for 64 values of x, ny m / 64 of them
 *	  for the exact rate.  Where that passes the work the caller gives
 *	  (sbf_fpr_bound: SBF_BLOOM_BOUND_WORK for the value, shared by its bloom
 *	  segments), the model fill^k (1 + k^2 / m) + count / (m ny): the exact
 *	  rates of 57 arrays of 376 to 23,963 bits at 0.1-30%
 *	  (test/bench/bloom_bound_model.sh) are fill^k (1 + c k^2 / m) + count /
 *	  (m ny) with -1.6 < c < 0.44, the second term a member's own (x, y).
 */
#include <math.h>

#include "sbf_internal.h"
#include "sbf_kind.h"

/*
 * The len <= 64 bits at positions pos..pos+len-1 of the m-bit array, pos + len
 * <= m, position pos in bit 0 (bits above len zero).
 */
static inline uint64_t
bits_lin(const uint8_t *data, uint64_t pos, int len)
{
	uint64_t	q = pos >> 6;
	int			r = (int) (pos & 63);
	uint64_t	w = sbf_load64(data + q * 8) >> r;

	if (r != 0 && r + len > 64)
		w |= sbf_load64(data + (q + 1) * 8) << (64 - r);
	return len == 64 ? w : w & ((UINT64_C(1) << len) - 1);
}

/*
 * The 64 bits at positions t, t+1, ..., t+63 (mod m) as one word, position
 * t in bit 0; t < m.
 */
static inline uint64_t
bits_from(const uint8_t *data, uint64_t m, uint64_t t)
{
	uint64_t	w = 0;
	int			j = 0;

	if (m - t >= 64)
		return bits_lin(data, t, 64);
	if (m >= 64)
	{
		int			len = (int) (m - t);

		return bits_lin(data, t, len) | bits_lin(data, 0, 64 - len) << len;
	}
	while (j < 64)				/* an array of fewer than 64 bits wraps again */
	{
		int			len = (int) (m - t) < 64 - j ? (int) (m - t) : 64 - j;

		w |= bits_lin(data, t, len) << j;
		j += len;
		t = 0;
	}
	return w;
}

/*
 * How many x of [x0, x0 + n) (mod m) have all k positions x + c[i] set;
 * x0 < m, n <= m.
 */
static uint64_t
count_all_set(const uint8_t *data, uint64_t m, const uint64_t *c, int k,
			  uint64_t x0, uint64_t n)
{
	uint64_t	hits = 0;
	uint64_t	done;

	for (done = 0; done < n; done += 64)
	{
		uint64_t	x = x0 + done;
		uint64_t	acc = n - done >= 64 ? ~UINT64_C(0) :
			(UINT64_C(1) << (n - done)) - 1;
		int			i;

		/* x0 + done < 2m: one wrap at most */
		if (x >= m)
			x -= m;
		for (i = 0; i < k && acc != 0; i++)
		{
			uint64_t	t = x + c[i];

			if (t >= m)
				t -= m;
			acc &= bits_from(data, m, t);
		}
		hits += (uint64_t) sbf_popcount64(acc);
	}
	return hits;
}

/* The offsets c_0..c_(k-1) of step y (HASH's recurrence from x = 0). */
static void
offsets(uint64_t m, uint64_t y, int k, uint64_t *c)
{
	SbfPosIter	it;
	int			i;

	it.x = 0;
	it.y = y;
	it.m = m;
	it.i = 0;
	for (i = 0; i < k; i++)
		c[i] = sbf_pos_next(&it);
}

/*
 * The rate of a kind-1 segment of geometry g, count elements and data, from
 * its bits: exact where every (x, y) takes at most work 64-bit extractions,
 * else the model of the file header.  At most 1.
 */
double
sbf_bloom_bound_of(const SbfKindGeom *g, const uint8_t *data, uint64_t count,
				   uint64_t work)
{
	uint64_t	m = g->size;
	int			k = g->width;
	uint64_t	ny = (m % 2 == 0) ? m / 2 : m;	/* reachable y */
	uint64_t	words = (m + 63) / 64;
	uint64_t	c[SBF_MAX_K];
	double		sum = 0.0;
	double		r;
	uint64_t	j;

	if (words <= work / (uint64_t) k / ny)
	{
		for (j = 0; j < ny; j++)
		{
			offsets(m, (m % 2 == 0) ? 2 * j + 1 : j, k, c);
			sum += (double) count_all_set(data, m, c, k, 0, m) / (double) m;
		}
		return sum / (double) ny;
	}
	r = sbf_ipow(sbf_bits_fill(data, m), (uint32_t) k) *
		(1.0 + (double) k * k / (double) m) +
		(double) count / ((double) m * (double) ny);
	return r < 1.0 ? r : 1.0;
}
