/*
 * sbf_efset.h
 *	  A multiset of b-bit fingerprints in Elias-Fano form: the code of the
 *	  compact form that docs/format5.md proposes for small values.
 *	  The codec, its validator and its readers, tested on their own
 *	  (test/unit/test_efset.c), which the compact value (sbf_compact.c, not
 *	  stored yet) and the compact segment kind (sbf_kind_compact.c, stored
 *	  in version 5) share.
 *
 *	  Layout of n ascending fingerprints f_0 <= ... <= f_{n-1} < 2^b, with L
 *	  low bits (sbf_ef_low_bits: the fewest bytes, ties to the larger L):
 *	  the high area, ceil((n + 2^(b-L)) / 8) bytes, then the low area,
 *	  ceil(n * L / 8) bytes; bits are numbered from bit 0 of byte 0 on.
 *	  Element i is the one bit at position (f_i >> L) + i of the high area
 *	  (so bucket j's elements follow j zeros) and its low L bits are bits
 *	  i * L .. i * L + L - 1 of the low area.  Every bit past those is 0.
 */
#ifndef SBF_EFSET_H
#define SBF_EFSET_H

#include "sbf_core.h"

/* Fingerprints in one set: at most 2^32 (and b at most 63 bits). */
#define SBF_EF_MAX_N		(UINT64_C(1) << 32)
#define SBF_EF_MAX_BITS		63

typedef struct SbfEfShape
{
	uint64_t	n;				/* fingerprints, 1..SBF_EF_MAX_N */
	uint64_t	nbuckets;		/* 2^(b - L) */
	uint64_t	hibits;			/* n + nbuckets */
	uint64_t	lobits;			/* n * L */
	int			b;				/* fingerprint bits, 1..SBF_EF_MAX_BITS */
	int			L;				/* low bits, 0..b - 1 */
} SbfEfShape;

/* The low bits that make n fingerprints of b bits smallest. */
extern int	sbf_ef_low_bits(uint64_t n, int b);

/* The shape of n fingerprints of b bits; SBF_E_PARAM out of range. */
extern SbfStatus sbf_ef_shape(uint64_t n, int b, SbfEfShape *s);

/* Bytes of the code of shape s. */
extern uint64_t sbf_ef_bytes(const SbfEfShape *s);

/*
 * The fingerprint of hash h: its low b bits.  The low bits, because the
 * HyperLogLog's register is the hash's low p bits and its rank the run of
 * zeros above them (sbf_hll.c), so a set of fingerprints with b > p still
 * gives a HyperLogLog; and two sets of different widths unite at the
 * smaller one by dropping high bits.
 */
static inline uint64_t
sbf_ef_fingerprint(uint64_t h, int b)
{
	return h & (UINT64_MAX >> (64 - b));
}

/* The fingerprints of h[0..n) in the hashes' order (sort them to write). */
extern void sbf_ef_fingerprints(const uint64_t *h, uint64_t n, int b, uint64_t *fp);

/*
 * Writes the code of s->n ascending fingerprints fp (each < 2^b) into
 * out[0 .. sbf_ef_bytes(s)).
 */
extern void sbf_ef_write(const SbfEfShape *s, const uint64_t *fp, uint8_t *out);

/*
 * The same from the s->n hashes h in any order (a hash given twice is two
 * fingerprints): their fingerprints sorted in scratch from a, then coded.
 * SBF_E_NOMEM.
 */
extern SbfStatus sbf_ef_write_hashes(const SbfEfShape *s, const uint64_t *h,
									 uint8_t *out, const SbfAllocator *a);

/*
 * Whether buf[0..len) is exactly a code of shape s: its length, n ones and
 * 2^(b-L) zeros in the high area with a zero last, zero bits past both
 * areas, and fingerprints in ascending order.  SBF_E_LENGTH or SBF_E_BITS.
 */
extern SbfStatus sbf_ef_check(const SbfEfShape *s, const uint8_t *buf, size_t len);

/* How many distinct fingerprints a checked code holds. */
extern uint64_t sbf_ef_distinct(const SbfEfShape *s, const uint8_t *buf);

/*
 * Whether fingerprint x is in a checked code, read from its bytes (no
 * reader): the high area is scanned word by word to x's bucket, so it
 * costs about hibits / 64 words; a value that answers many lookups
 * decodes once instead (sbf_ef_decode, sbf_ef_array_has).
 */
extern bool sbf_ef_has_bytes(const SbfEfShape *s, const uint8_t *buf, uint64_t x);

/*
 * A reader of a checked code: both areas as 64-bit words, and the position
 * of every 64th zero of the high area, so that a lookup goes straight to
 * its bucket.  One allocation of about the code's size.
 */
typedef struct SbfEfReader
{
	SbfEfShape	s;
	uint64_t   *hi;				/* hibits / 64 + 2 words */
	uint64_t   *lo;				/* lobits / 64 + 2 words */
	uint64_t   *samp;			/* position of zero 64 j */
	void	   *mem;
} SbfEfReader;

extern SbfStatus sbf_ef_reader_init(SbfEfReader *r, const SbfEfShape *s,
									const uint8_t *buf, const SbfAllocator *a);
extern void sbf_ef_reader_free(SbfEfReader *r, const SbfAllocator *a);

/* Whether fingerprint x is in the set. */
extern bool sbf_ef_has(const SbfEfReader *r, uint64_t x);

/* The n fingerprints, ascending, into out. */
extern void sbf_ef_decode(const SbfEfReader *r, uint64_t *out);

/*
 * The same from the code's bytes, with nothing allocated (a lookup plan's
 * late decode): buf is a code sbf_ef_check accepted.
 */
extern void sbf_ef_decode_bytes(const SbfEfShape *s, const uint8_t *buf,
								uint64_t *out);

/*
 * Whether x is among n >= 1 ascending fingerprints fp (sbf_ef_decode's):
 * a binary search whose step is an index computed from a comparison, not
 * a jump, so a lookup costs log2(n) steps whatever it finds.  The reader a
 * value that answers many lookups wants (docs/format5.md).
 */
static inline bool
sbf_ef_array_has(const uint64_t *fp, uint64_t n, uint64_t x)
{
	const uint64_t *base = fp;

	while (n > 1)
	{
		uint64_t	half = n / 2;

		/* x, if there, is in base[0 .. n) */
		base += (uint64_t) (base[half - 1] < x) * half;
		n -= half;
	}
	return *base == x;
}

/*
 * The number of distinct elements whose b-bit fingerprints take d distinct
 * values: the inverse of E[d] = 2^b (1 - e^(-N / 2^b)) (occupancy of 2^b
 * cells), N = -2^b ln(1 - d / 2^b); d itself when b >= 53.
 */
extern double sbf_ef_distinct_estimate(uint64_t d, int b);

#endif							/* SBF_EFSET_H */
