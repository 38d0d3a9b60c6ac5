/*
 * sbf_compact_value.c
 *	  The compact form (docs/format5.md, section 3: version 5 with flag
 *	  COMPACT, one complete set as its sorted fingerprints) read as an
 *	  SbfView: the validator's branch for it and the stored reader's, its
 *	  lookups and rates.  Writers start from its segmented form
 *	  (sbf_view_expand, sbf_compact_expand.c).
 *
 *	  A view of the compact form has no segments and no HyperLogLog
 *	  (nsegments and hll_bytes 0), hash XXH3, HyperLogLog precision the
 *	  default (the one its segmented form takes), and its code from
 *	  bits_offset to len; nfp, fp_bits and fp_low are its shape.
 */
#include <math.h>

#include "sbf_compact.h"
#include "sbf_internal.h"
#include "sbf_plain.h"

bool
sbf_bytes_compact(const uint8_t *buf, size_t len)
{
	return len >= 2 && buf[0] == SBF_FORMAT_V5 && (buf[1] & SBF_FLAG_COMPACT) != 0;
}

/* The view of a parsed compact value over buf[0..len). */
static SbfStatus
fill_view(const SbfCompactView *cv, const uint8_t *buf, size_t len, SbfView *v)
{
	/* every stored compact value has a segmented form (its HyperLogLog) */
	if (cv->shape.b <= SBF_HLL_P_DEFAULT)
		return SBF_E_PARAM;
	memset(v, 0, sizeof(*v));
	v->buf = buf;
	v->len = len;
	v->version = SBF_FORMAT_V5;
	v->flags = cv->flags;
	v->hash_id = SBF_HASH_XXH3;
	v->hll_p = SBF_HLL_P_DEFAULT;
	v->growth = cv->growth;
	v->error_rate = cv->error_rate;
	v->tightening = cv->tightening;
	v->capacity = cv->capacity;
	v->bits_offset = (size_t) (cv->code - buf);
	v->hll_offset = len;
	v->nfp = cv->shape.n;
	v->fp_bits = (uint8_t) cv->shape.b;
	v->fp_low = (uint8_t) cv->shape.L;
	return SBF_OK;
}

SbfStatus
sbf_compact_validate(const uint8_t *buf, size_t len, SbfView *v)
{
	SbfCompactView cv;
	SbfStatus	st = sbf_compact_check(buf, len, &cv);

	return st != SBF_OK ? st : fill_view(&cv, buf, len, v);
}

SbfStatus
sbf_compact_parse_view(const uint8_t *buf, size_t avail, size_t total_len,
					   SbfView *v)
{
	SbfCompactView cv;
	SbfStatus	st;

	/* read whole: its header's length is not fixed and its code is small */
	if (avail < total_len)
		return SBF_E_TRUNCATED;
	st = sbf_compact_parse(buf, total_len, &cv);
	return st != SBF_OK ? st : fill_view(&cv, buf, total_len, v);
}

void
sbf_view_compact(const SbfView *v, SbfCompactView *cv)
{
	/* its header was checked as it entered: the same view again */
	(void) sbf_compact_parse(v->buf, v->len, cv);
}

bool
sbf_compact_view_has(const SbfView *v, uint64_t h)
{
	SbfEfShape	s;

	(void) sbf_ef_shape(v->nfp, v->fp_bits, &s);
	return sbf_ef_has_bytes(&s, v->buf + v->bits_offset,
							sbf_ef_fingerprint(h, v->fp_bits));
}

bool
sbf_compact_view_keeps(const SbfView *v, uint64_t h)
{
	uint64_t	w = h >> SBF_COMPACT_HLL_P;
	int			cap = v->fp_bits - SBF_COMPACT_HLL_P + 1;
	int			rho;
	SbfCompactView cv;
	SbfCompactRanks r;

	if (!sbf_compact_view_has(v, h))
		return false;
	/* a fingerprint with a bit above its register has its rank */
	if ((w & ((UINT64_C(1) << (v->fp_bits - SBF_COMPACT_HLL_P)) - 1)) != 0)
		return true;
	rho = w == 0 ? SBF_HLL_MAX_RHO(SBF_COMPACT_HLL_P) : sbf_ctz64(w) + 1;
	if (rho <= cap)
		return true;
	sbf_view_compact(v, &cv);
	sbf_compact_view_ranks(&cv, &r);
	return rho <= r.rank[h & (SBF_COMPACT_REGISTERS - 1)];
}

double
sbf_compact_view_count(const SbfView *v)
{
	if ((v->flags & SBF_COMPACT_FLAG_OVERLAP) == 0)
		return (double) v->nfp;
	return log1p(-ldexp((double) v->nfp, -(int) v->fp_bits)) /
		log1p(-ldexp(1.0, -(int) v->fp_bits));
}

double
sbf_compact_view_rate(const SbfView *v, SbfCompactRate which)
{
	SbfEfShape	s;

	switch (which)
	{
		case SBF_COMPACT_RATE_EXPECTED:
			return ldexp((double) v->nfp, -(int) v->fp_bits);
		case SBF_COMPACT_RATE_CURRENT:
			(void) sbf_ef_shape(v->nfp, v->fp_bits, &s);
			return ldexp((double) sbf_ef_distinct(&s, v->buf + v->bits_offset),
						 -(int) v->fp_bits);
		case SBF_COMPACT_RATE_BOUND:
			break;
	}
	return ldexp((double) (v->capacity > v->nfp ? v->capacity : v->nfp),
				 -(int) v->fp_bits);
}
