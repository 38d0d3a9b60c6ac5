/*
 * sbf_compact.h
 *	  The compact form that docs/format5.md (section 3) proposes for
 *	  small values: one complete set stored as its elements' fingerprints
 *	  (the low b bits of each hash), sorted, in Elias-Fano form
 *	  (sbf_efset.h), behind a header of 14 to 36 bytes, with no HyperLogLog.
 *
 *	  Read as a stored value since 1.4 (sbf_compact_value.c: the one
 *	  validator's branch, which also requires b > 9, and every reader); no
 *	  writer of the server makes it from elements yet.  This is the value's
 *	  layout -- its size, writer, checker, reader and the HyperLogLog made
 *	  from its fingerprints (test/unit/test_compact.c).
 *
 *	  Layout (all fields little-endian; "LEB128" is unsigned, shortest form):
 *	    0   1   version = 5
 *	    1   1   flags: 0x40 COMPACT (set), 0x20 PARAMS, 0x10 RANKS,
 *	            0x04 OVERLAP; others 0
 *	    2   1   b, fingerprint bits, 1..63
 *	    3   1   L, low bits: sbf_ef_low_bits(n, b)
 *	    4   8   error_rate e, 0 < e < 0.5
 *	    12  ..  n, fingerprints (LEB128), 1..SBF_EF_MAX_N
 *	    ..  ..  capacity (LEB128) >= 1, the count the value was built for;
 *	            max(n, capacity) <= e 2^b (adds in place take n past it)
 *	    ..  10  if PARAMS: growth (2 bytes, 1..SBF_MAX_GROWTH) and tightening
 *	            (8, 0 < r <= 1), not both the defaults (then PARAMS is clear)
 *	    ..  ..  if RANKS (only where b > 9): k (LEB128, 1..512) and k entries
 *	            of 2 bytes, register index j (bits 0-8) and rank r (bits
 *	            9-14, bit 15 zero), j ascending, b - 8 < r <= 56, and the
 *	            fingerprint j among the value's: the registers of the
 *	            HyperLogLog at precision 9 whose rank the fingerprints cap
 *	            (sbf_compact_hll); RANKS is clear when there are none
 *	    ..  ..  the Elias-Fano code of the n ascending fingerprints
 *	  and nothing after it.  A non-member matches with probability about
 *	  n / 2^b, at most max(n, capacity) / 2^b <= e (the form's fpr_bound).  # is n,
 *	  exact; with OVERLAP (a union kept once a fingerprint two inputs held)
 *	  the elements behind n distinct fingerprints (sbf_compact_view_count).
 */
#ifndef SBF_COMPACT_H
#define SBF_COMPACT_H

#include "sbf_core.h"
#include "sbf_efset.h"

#define SBF_COMPACT_VERSION			5
#define SBF_COMPACT_FLAG_COMPACT	SBF_FLAG_COMPACT
#define SBF_COMPACT_FLAG_PARAMS		0x20
#define SBF_COMPACT_FLAG_OVERLAP	0x04
#define SBF_COMPACT_FLAG_RANKS		0x10
/* the precision of the HyperLogLog a compact value's ranks complete */
#define SBF_COMPACT_HLL_P			SBF_HLL_P_DEFAULT
#define SBF_COMPACT_REGISTERS		(1 << SBF_COMPACT_HLL_P)
/* the fixed fields; n and capacity take 1 to 10 bytes each */
#define SBF_COMPACT_FIXED_BYTES		12
#define SBF_COMPACT_PARAMS_BYTES	10
/*
 * The most hashes, and bytes, of a value a builder writes in the compact
 * form: what a lookup plan decodes (SBF_PLAN_DECODE_MAX and
 * SBF_PLAN_KEY_DATA_MAX); a larger code would be read from its bytes,
 * whose cost grows with it.
 */
#define SBF_COMPACT_BUILD_MAX		4096
#define SBF_COMPACT_BUILD_MAX_BYTES	8192

/*
 * A set of at most SBF_COMPACT_EXACT_MAX elements is written with
 * SBF_COMPACT_EXACT_BITS fingerprint bits (docs/format5.md, section 3,
 * "Exact"): 63 of its hashes' 64 bits, so that it answers, counts and unites
 * as the exact form of 1.0-1.3 (a non-member matches with probability
 * n / 2^63) in at most 8 bytes an element behind the compact header.
 */
#define SBF_COMPACT_EXACT_MAX		8
#define SBF_COMPACT_EXACT_BITS		63

/*
 * The registers at precision SBF_COMPACT_HLL_P whose rank in the hashes is
 * above the cap of their fingerprints' (b - 8): rank[j] that rank, else 0.
 */
typedef struct SbfCompactRanks
{
	uint32_t	count;			/* registers with rank[j] > 0 */
	uint8_t		rank[SBF_COMPACT_REGISTERS];
} SbfCompactRanks;

/* What a writer is asked for beside the hashes. */
typedef struct SbfCompactParams
{
	double		error_rate;
	uint64_t	capacity;		/* the count it was built for (>= 1) */
	uint16_t	growth;			/* for the segments that follow at capacity */
	double		tightening;
	bool		overlap;		/* n counts an estimate (after a union) */
	const SbfCompactRanks *ranks;	/* NULL or none: RANKS clear */
} SbfCompactParams;

/* A checked compact value. */
typedef struct SbfCompactView
{
	uint8_t		flags;
	double		error_rate;
	uint64_t	capacity;
	uint16_t	growth;
	double		tightening;
	SbfEfShape	shape;			/* n, b, L */
	uint32_t	nranks;			/* entries of the RANKS list */
	const uint8_t *ranks;		/* its first entry */
	const uint8_t *code;		/* the Elias-Fano code */
	size_t		code_len;
} SbfCompactView;

/*
 * The fingerprint bits of a compact value of this capacity at rate e whose
 * HyperLogLog is wanted at precision hll_p: the least b with capacity / 2^b
 * <= e, and at least hll_p + 1.  SBF_E_PARAM when that is over 63 bits (or
 * the arguments are out of range).
 */
extern SbfStatus sbf_compact_bits(uint64_t capacity, double e, int hll_p, int *b);

/*
 * The ranks of the n hashes h above the cap of b-bit fingerprints, into *r
 * (none where b <= SBF_COMPACT_HLL_P): what a writer given the hashes
 * passes, so that the value's HyperLogLog is theirs exactly.
 */
extern void sbf_compact_ranks(const uint64_t *h, uint64_t n, int b,
							  SbfCompactRanks *r);

/* The ranks list of a checked value as sbf_compact_ranks gives it. */
extern void sbf_compact_view_ranks(const SbfCompactView *v, SbfCompactRanks *r);

/* Bytes of a value of n fingerprints of b bits with these parameters. */
extern SbfStatus sbf_compact_size(uint64_t n, int b, const SbfCompactParams *p,
								  size_t *len);

/*
 * Writes the value of the n >= 1 hashes h (any order; a hash given twice
 * is two fingerprints) into out[0..len), len = sbf_compact_size's.  The
 * result passes sbf_compact_check.  SBF_E_PARAM when the parameters do not
 * make a valid value (ranks too: each above the cap, at most 56, its
 * fingerprint among h's), SBF_E_NOMEM.
 */
extern SbfStatus sbf_compact_write(const uint64_t *h, uint64_t n, int b,
								   const SbfCompactParams *p, uint8_t *out,
								   size_t len, const SbfAllocator *a);

/*
 * The same from the n fingerprints fp of b bits, already ascending (a
 * writer that merged them: nothing allocated, nothing sorted; SBF_E_PARAM
 * when they are not).
 */
extern SbfStatus sbf_compact_write_sorted(const uint64_t *fp, uint64_t n, int b,
										  const SbfCompactParams *p, uint8_t *out,
										  size_t len);

/*
 * The validator: whether buf[0..len) is exactly a compact value (every
 * rule of the layout above, and sbf_ef_check on its code), filling *v.
 * SBF_E_TRUNCATED, SBF_E_VERSION, SBF_E_FLAGS, SBF_E_PARAM, SBF_E_LENGTH or
 * SBF_E_BITS.
 */
extern SbfStatus sbf_compact_check(const uint8_t *buf, size_t len, SbfCompactView *v);

/*
 * The header of a stored value, checked when it entered: every rule but the
 * code's own (its length is checked, its bits are not).  What a reader of
 * stored bytes needs to stay inside them; sbf_ef_has_bytes and a plan's
 * decode (which checks the code first) read the code safely.
 */
extern SbfStatus sbf_compact_parse(const uint8_t *buf, size_t len, SbfCompactView *v);

/* The n fingerprints of a checked value, ascending, into fp. */
extern SbfStatus sbf_compact_decode(const SbfCompactView *v, uint64_t *fp,
									const SbfAllocator *a);

/* Whether hash h matches, given the value's decoded fingerprints fp. */
static inline bool
sbf_compact_array_has(const SbfCompactView *v, const uint64_t *fp, uint64_t h)
{
	return sbf_ef_array_has(fp, v->shape.n, sbf_ef_fingerprint(h, v->shape.b));
}

/* The form's fpr_bound: max(n, capacity) / 2^b. */
extern double sbf_compact_fpr_bound(const SbfCompactView *v);

/*
 * The HyperLogLog registers (one byte each, 2^p of them) of the value's
 * fingerprints at precision 4 <= p < b: a fingerprint's low p bits are its
 * hash's register and the run of zeros above them its rank, capped at
 * b - p + 1 where all b - p bits are zero; so each register is the hashes'
 * own register capped at b - p + 1 (exactly equal while that cap is above
 * every rank).  At p = SBF_COMPACT_HLL_P the RANKS list then raises the
 * registers it names: the hashes' own registers exactly, when the writer
 * was given sbf_compact_ranks.  SBF_E_PARAM, SBF_E_NOMEM.
 */
extern SbfStatus sbf_compact_hll(const SbfCompactView *v, int p, uint8_t *regs,
								 const SbfAllocator *a);

#endif							/* SBF_COMPACT_H */
