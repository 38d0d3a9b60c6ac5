/*
 * sbf_hll.c
 *	  The HyperLogLog area of a filter: sparse and dense encodings, in-place
 *	  adds, exact folding to a lower precision, and the cardinality estimate.
 *
 * The representation is canonical: sparse while at most SBF_HLL_SPARSE_MAX(p)
 * registers are nonzero, dense otherwise, so equal register states always
 * encode to equal bytes.  Since 4 * SBF_HLL_SPARSE_MAX(p) equals the dense
 * size for every allowed p, switching to dense never needs more room than the
 * largest sparse area.
 */
#include <math.h>

#include "sbf_internal.h"

/* Register index and rho of hash h at precision p. */
static inline void
hll_split(uint64_t h, int p, uint32_t *idx, uint8_t *rho)
{
	uint64_t	w = h >> p;

	*idx = (uint32_t) (h & ((UINT64_C(1) << p) - 1));
	*rho = (uint8_t) (w == 0 ? 65 - p : sbf_ctz64(w) + 1);
}

/* Reads 6-bit register j of a dense area. */
static inline uint8_t
dense_get(const uint8_t *a, uint32_t j)
{
	size_t		bit = (size_t) j * 6;
	size_t		byte = bit >> 3;
	unsigned	shift = (unsigned) (bit & 7);
	unsigned	v = (unsigned) a[byte] >> shift;

	if (shift > 2)
		v |= (unsigned) a[byte + 1] << (8 - shift);
	return (uint8_t) (v & 63);
}

/* Writes 6-bit register j of a dense area. */
static inline void
dense_set(uint8_t *a, uint32_t j, uint8_t val)
{
	size_t		bit = (size_t) j * 6;
	size_t		byte = bit >> 3;
	unsigned	shift = (unsigned) (bit & 7);
	unsigned	mask = (63u << shift) & 0xFF;

	a[byte] = (uint8_t) ((a[byte] & ~mask) | ((unsigned) val << shift));
	if (shift > 2)
	{
		mask = 63u >> (8 - shift);
		a[byte + 1] = (uint8_t) ((a[byte + 1] & ~mask) |
								 ((unsigned) val >> (8 - shift)));
	}
}

/* Position in a sparse area of index idx, or of where it would be inserted. */
static size_t
sparse_search(const uint8_t *area, size_t n, uint32_t idx, bool *found)
{
	size_t		lo = 0;
	size_t		hi = n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		uint32_t	e = sbf_load32(area + mid * 4) >> 8;

		if (e < idx)
			lo = mid + 1;
		else if (e > idx)
			hi = mid;
		else
		{
			*found = true;
			return mid;
		}
	}
	*found = false;
	return lo;
}

/* Checks only the length of an area against its representation. */
SbfStatus
sbf_hll_check_size(size_t bytes, bool dense, int p)
{
	if (dense)
		return bytes == SBF_HLL_DENSE_BYTES(p) ? SBF_OK : SBF_E_HLL;
	if (bytes % 4 != 0 || bytes / 4 > SBF_HLL_SPARSE_MAX(p))
		return SBF_E_HLL;
	return SBF_OK;
}

/* Checks the whole area: ranges, order, canonical representation. */
SbfStatus
sbf_hll_check(const uint8_t *area, size_t bytes, bool dense, int p)
{
	uint32_t	nregs = SBF_HLL_REGISTERS(p);
	unsigned	maxrho = SBF_HLL_MAX_RHO(p);
	SbfStatus	st = sbf_hll_check_size(bytes, dense, p);

	if (st != SBF_OK)
		return st;
	if (dense)
	{
		size_t		nonzero = 0;
		uint32_t	j;

		for (j = 0; j < nregs; j++)
		{
			uint8_t		r = dense_get(area, j);

			if (r > maxrho)
				return SBF_E_HLL;
			nonzero += (r != 0);
		}
		/* few nonzero registers must be stored sparse */
		if (nonzero <= SBF_HLL_SPARSE_MAX(p))
			return SBF_E_HLL;
	}
	else
	{
		size_t		n = bytes / 4;
		size_t		i;
		int64_t		prev = -1;

		for (i = 0; i < n; i++)
		{
			uint32_t	e = sbf_load32(area + i * 4);
			uint32_t	idx = e >> 8;
			unsigned	rho = e & 0xFF;

			if (idx >= nregs || (int64_t) idx <= prev ||
				rho == 0 || rho > maxrho)
				return SBF_E_HLL;
			prev = idx;
		}
	}
	return SBF_OK;
}

/* Expands an area into one byte per register (regs has 2^p entries). */
void
sbf_hll_unpack(const uint8_t *area, size_t bytes, bool dense, int p,
			   uint8_t *regs)
{
	uint32_t	nregs = SBF_HLL_REGISTERS(p);

	if (dense)
	{
		uint32_t	j;

		for (j = 0; j < nregs; j++)
			regs[j] = dense_get(area, j);
	}
	else
	{
		size_t		n = bytes / 4;
		size_t		i;

		memset(regs, 0, nregs);
		for (i = 0; i < n; i++)
		{
			uint32_t	e = sbf_load32(area + i * 4);

			if ((e >> 8) < nregs)
				regs[e >> 8] = (uint8_t) (e & 0xFF);
		}
	}
}

/*
 * Folds registers from precision p to np <= p.  This is exact: register j
 * at precision p saw hashes whose low p bits are j, so at precision np their
 * index is j's low np bits and their w gains j's upper p - np bits as its
 * lowest bits.  If those bits are not all zero they decide rho alone;
 * otherwise rho grows by p - np.
 */
void
sbf_hll_fold(const uint8_t *regs, int p, int np, uint8_t *out)
{
	uint32_t	nregs = SBF_HLL_REGISTERS(p);
	uint32_t	mask = SBF_HLL_REGISTERS(np) - 1;
	unsigned	maxrho = SBF_HLL_MAX_RHO(np);
	uint32_t	j;

	if (np == p)
	{
		memcpy(out, regs, nregs);
		return;
	}
	memset(out, 0, (size_t) mask + 1);
	for (j = 0; j < nregs; j++)
	{
		uint32_t	hi = j >> np;
		unsigned	r;

		if (regs[j] == 0)
			continue;
		if (hi != 0)
			r = (unsigned) sbf_ctz64(hi) + 1;
		else
			r = (unsigned) (p - np) + regs[j];
		if (r > maxrho)
			r = maxrho;
		if (r > out[j & mask])
			out[j & mask] = (uint8_t) r;
	}
}

/* Size of the canonical encoding of regs; *dense tells the representation. */
size_t
sbf_hll_encoded_size(const uint8_t *regs, int p, bool *dense)
{
	uint32_t	nregs = SBF_HLL_REGISTERS(p);
	size_t		nonzero = 0;
	uint32_t	j;

	for (j = 0; j < nregs; j++)
		nonzero += (regs[j] != 0);
	*dense = nonzero > SBF_HLL_SPARSE_MAX(p);
	return *dense ? SBF_HLL_DENSE_BYTES(p) : nonzero * 4;
}

/* Writes the canonical encoding chosen by sbf_hll_encoded_size. */
void
sbf_hll_encode(const uint8_t *regs, int p, bool dense, uint8_t *out)
{
	uint32_t	nregs = SBF_HLL_REGISTERS(p);
	uint32_t	j;

	if (dense)
	{
		memset(out, 0, SBF_HLL_DENSE_BYTES(p));
		for (j = 0; j < nregs; j++)
			if (regs[j] != 0)
				dense_set(out, j, regs[j]);
	}
	else
	{
		size_t		n = 0;

		for (j = 0; j < nregs; j++)
			if (regs[j] != 0)
				sbf_store32(out + 4 * n++, (j << 8) | regs[j]);
	}
}

/* Area size after adding hash h (never smaller than bytes). */
size_t
sbf_hll_size_after_add(const uint8_t *area, size_t bytes, bool dense, int p,
					   uint64_t h)
{
	uint32_t	idx;
	uint8_t		rho;
	bool		found;
	size_t		n = bytes / 4;

	if (dense)
		return bytes;
	hll_split(h, p, &idx, &rho);
	(void) sparse_search(area, n, idx, &found);
	if (found)
		return bytes;
	if (n + 1 > SBF_HLL_SPARSE_MAX(p))
		return SBF_HLL_DENSE_BYTES(p);
	return bytes + 4;
}

/*
 * Raises regs (2^p registers) to each of n hashes.  No branch: whether a
 * register grows is a coin toss while the registers fill.
 */
void
sbf_hll_regs_add(uint8_t *regs, int p, const uint64_t *h, size_t n)
{
	uint32_t	mask = SBF_HLL_REGISTERS(p) - 1;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		uint64_t	w = h[i] >> p;
		uint8_t		rho = (uint8_t) (w == 0 ? 65 - p : sbf_ctz64(w) + 1);
		uint8_t    *r = &regs[h[i] & mask];

		*r = rho > *r ? rho : *r;
	}
}

/*
 * Rewrites a full sparse area as dense, with register idx raised to rho.
 * Kept out of line so that the common add path has no large stack frame.
 */
static SBF_NOINLINE void
sparse_to_dense(uint8_t *area, size_t bytes, int p, uint32_t idx, uint8_t rho)
{
	uint8_t		regs[SBF_HLL_REGISTERS(SBF_HLL_P_MAX)];

	sbf_hll_unpack(area, bytes, false, p, regs);
	if (rho > regs[idx])
		regs[idx] = rho;
	sbf_hll_encode(regs, p, true, area);
}

/*
 * Adds hash h in place; the area must have room for sbf_hll_size_after_add
 * bytes.  Returns the new size and updates *dense.
 */
size_t
sbf_hll_apply_add(uint8_t *area, size_t bytes, bool *dense, int p, uint64_t h)
{
	uint32_t	idx;
	uint8_t		rho;
	bool		found;
	size_t		n = bytes / 4;
	size_t		pos;

	hll_split(h, p, &idx, &rho);
	if (*dense)
	{
		if (rho > dense_get(area, idx))
			dense_set(area, idx, rho);
		return bytes;
	}

	pos = sparse_search(area, n, idx, &found);
	if (found)
	{
		if (rho > (sbf_load32(area + pos * 4) & 0xFF))
			sbf_store32(area + pos * 4, (idx << 8) | rho);
		return bytes;
	}
	if (n + 1 > SBF_HLL_SPARSE_MAX(p))
	{
		sparse_to_dense(area, bytes, p, idx, rho);
		*dense = true;
		return SBF_HLL_DENSE_BYTES(p);
	}
	memmove(area + (pos + 1) * 4, area + pos * 4, (n - pos) * 4);
	sbf_store32(area + pos * 4, (idx << 8) | rho);
	return bytes + 4;
}

/* sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1) of Ertl 2017; infinite at 1. */
static double
hll_sigma(double x)
{
	double		y = 1.0;
	double		z = x;
	double		zprev;

	if (x >= 1.0)
		return INFINITY;
	do
	{
		x *= x;
		zprev = z;
		z += x * y;
		y += y;
	} while (z != zprev);
	return z;
}

/* tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3 of Ertl 2017. */
static double
hll_tau(double x)
{
	double		y = 1.0;
	double		z;
	double		zprev;

	if (x <= 0.0 || x >= 1.0)
		return 0.0;
	z = 1.0 - x;
	do
	{
		x = sqrt(x);
		zprev = z;
		y *= 0.5;
		z -= (1.0 - x) * (1.0 - x) * y;
	} while (z != zprev);
	return z / 3.0;
}

/*
 * Improved raw estimator of Ertl 2017, "New cardinality estimation
 * algorithms for HyperLogLog sketches" (algorithm 6): with the register
 * histogram C and q = 64 - p,
 *	z = m tau(1 - C[q+1]/m);  z = (z + C[v]) / 2 for v = q..1;
 *	z += m sigma(C[0]/m);  estimate = alpha_inf m^2 / z, alpha_inf = 1/(2 ln 2).
 * It needs no bias tables and stays unbiased from tiny to huge counts.
 */
double
sbf_hll_estimate(const uint8_t *area, size_t bytes, bool dense, int p)
{
	uint32_t	nregs = SBF_HLL_REGISTERS(p);
	unsigned	q = (unsigned) (64 - p);
	uint32_t	hist[66];
	double		m = (double) nregs;
	double		z;
	unsigned	v;

	memset(hist, 0, sizeof(hist));
	if (dense)
	{
		uint32_t	j;

		for (j = 0; j < nregs; j++)
		{
			unsigned	r = dense_get(area, j);

			hist[r > q + 1 ? q + 1 : r]++;
		}
	}
	else
	{
		size_t		n = bytes / 4;
		size_t		i;

		if (n > nregs)
			n = nregs;
		hist[0] = nregs - (uint32_t) n;
		for (i = 0; i < n; i++)
		{
			unsigned	r = sbf_load32(area + i * 4) & 0xFF;

			hist[r > q + 1 ? q + 1 : r]++;
		}
	}
	if (hist[0] == nregs)
		return 0.0;

	z = m * hll_tau(1.0 - hist[q + 1] / m);
	for (v = q; v >= 1; v--)
		z = 0.5 * (z + hist[v]);
	z += m * hll_sigma(hist[0] / m);
	return m * m / (2.0 * SBF_LN2 * z);
}
