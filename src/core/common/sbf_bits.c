/*
 * sbf_bits.c
 *	  Bloom arithmetic that every layer shares, the kinds included: the
 *	  geometry SIZING gives a segment of n elements at rate p (sbf_core.h),
 *	  and the fill of a bit array.
 */
#include <math.h>

#include "sbf_internal.h"

/*
 * Bits and hashes for n elements at error p: the Bloom optimum
 * m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2) clamped to 1..SBF_MAX_K.
 * False if m would exceed max_bits (or p underflowed to 0).
 */
bool
sbf_segment_geometry(uint64_t n, double p, uint64_t max_bits,
					 uint64_t *m, uint32_t *k)
{
	double		bits;
	double		kk;

	if (n == 0 || !(p > 0.0 && p < 1.0))
		return false;
	bits = ceil(-(double) n * log(p) / (SBF_LN2 * SBF_LN2));
	if (!(bits <= (double) max_bits))
		return false;
	if (bits < 1.0)
		bits = 1.0;
	*m = (uint64_t) bits;
	kk = round((double) *m / (double) n * SBF_LN2);
	if (kk < 1.0)
		kk = 1.0;
	if (kk > SBF_MAX_K)
		kk = SBF_MAX_K;
	*k = (uint32_t) kk;
	return true;
}

/* Fraction of set bits of an m-bit array (popcount ignores byte order). */
double
sbf_bits_fill(const uint8_t *words, uint64_t m)
{
	uint64_t	nwords = sbf_words_bytes(m) / 8;
	uint64_t	ones = 0;
	uint64_t	w;

	for (w = 0; w < nwords; w++)
	{
		uint64_t	word;

		memcpy(&word, words + w * 8, sizeof(word));
		ones += (uint64_t) sbf_popcount64(word);
		if ((w + 1) % SBF_WORK_STRIDE == 0)
			sbf_hook_interrupt();
	}
	return (double) ones / (double) m;
}
