/*
 * sbf_kind_compact.c
 *	  The compact segment kind: a complete set of n elements stored as the
 *	  multiset of their b-bit fingerprints (the low b bits of each hash,
 *	  sbf_ef_fingerprint), ascending, in the Elias-Fano code of sbf_efset.h,
 *	  zero-padded to a multiple of 8 bytes.  A hash not in the set matches
 *	  with probability d / 2^b for d distinct fingerprints, at most n / 2^b:
 *	  the kind's rate.
 *
 *	  Descriptor: size = n (1..SBF_EF_MAX_N), width = b (1..63), every
 *	  other byte 0; the low bits L are sbf_ef_low_bits(n, b), one code per
 *	  set.  Directory entry: count = capacity = n, p at least n / 2^b.
 *	  Appended in unions, never merged; read whole (no sliced probe).
 */
#include <math.h>

#include "sbf_internal.h"
#include "sbf_kind.h"
#include "sbf_efset.h"

/* The code's shape of a checked geometry. */
static inline SbfEfShape
shape_of(const SbfKindGeom *g)
{
	SbfEfShape	s;

	(void) sbf_ef_shape(g->size, g->width, &s);
	return s;
}

SbfStatus
sbf_compactseg_check_geom(const SbfKindGeom *g)
{
	if (g->size < 1 || g->size > SBF_EF_MAX_N ||
		g->width < 1 || g->width > SBF_EF_MAX_BITS ||
		g->arity != 0 || g->log2_len != 0 || g->attempt != 0)
		return SBF_E_SEGMENT;
	return SBF_OK;
}

/* The code's bytes rounded up to 8; false past what a value can store. */
bool
sbf_compactseg_bytes(const SbfKindGeom *g, uint64_t *bytes)
{
	SbfEfShape	s = shape_of(g);
	uint64_t	b = (sbf_ef_bytes(&s) + 7) / 8 * 8;

	if (b > SBF_MAX_STORED_BYTES)
		return false;
	*bytes = b;
	return true;
}

/* The code exactly (sbf_ef_check), then zero padding. */
SbfStatus
sbf_compactseg_check_data(const SbfKindGeom *g, const uint8_t *data)
{
	SbfEfShape	s = shape_of(g);
	uint64_t	code = sbf_ef_bytes(&s);
	uint64_t	bytes = 0;
	uint64_t	i;
	SbfStatus	st = sbf_ef_check(&s, data, (size_t) code);

	if (st != SBF_OK)
		return SBF_E_BITS;
	(void) sbf_compactseg_bytes(g, &bytes);
	for (i = code; i < bytes; i++)
		if (data[i] != 0)
			return SBF_E_BITS;
	return SBF_OK;
}

/* n / 2^b, however many of the n are repeats (1 if none). */
double
sbf_compactseg_rate_at(const SbfKindGeom *g, uint64_t n)
{
	if (n == 0)
		return 1.0;
	return ldexp((double) n, -(int) g->width);
}

/* d / 2^b for the code's d distinct fingerprints. */
double
sbf_compactseg_rate_of(const SbfKindGeom *g, const uint8_t *data)
{
	SbfEfShape	s = shape_of(g);

	return ldexp((double) sbf_ef_distinct(&s, data), -(int) g->width);
}

/* A complete set: count = capacity = n, p a bound of n / 2^b. */
SbfStatus
sbf_compactseg_check_entry(const SbfKindGeom *g, uint64_t capacity,
						   uint64_t count, double p)
{
	if (count != capacity || count != g->size ||
		!(p >= sbf_compactseg_rate_at(g, count) && p < 0.5))
		return SBF_E_SEGMENT;
	return SBF_OK;
}

/* The least b with n / 2^b <= share. */
SbfStatus
sbf_compactseg_plan(uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes)
{
	int			b = 1;

	if (n < 1 || !(share > 0.0 && share < 0.5))
		return SBF_E_PARAM;
	if (n > SBF_EF_MAX_N)
		return SBF_E_TOO_LARGE;
	while (b < SBF_EF_MAX_BITS && ldexp((double) n, -b) > share)
		b++;
	if (ldexp((double) n, -b) > share)
		return SBF_E_PARAM;
	memset(g, 0, sizeof(*g));
	g->kind = SBF_KIND_COMPACT;
	g->size = n;
	g->width = (uint8_t) b;
	return sbf_compactseg_bytes(g, bytes) ? SBF_OK : SBF_E_TOO_LARGE;
}

bool
sbf_compactseg_contains(const SbfKindGeom *g, const uint8_t *data, uint64_t h)
{
	SbfEfShape	s = shape_of(g);

	return sbf_ef_has_bytes(&s, data, sbf_ef_fingerprint(h, g->width));
}

size_t
sbf_compactseg_count(const SbfKindGeom *g, const uint8_t *data,
					 const uint64_t *h, size_t n)
{
	SbfEfShape	s = shape_of(g);
	size_t		found = 0;
	size_t		i;

	for (i = 0; i < n; i++)
		found += sbf_ef_has_bytes(&s, data, sbf_ef_fingerprint(h[i], g->width)) ? 1 : 0;
	return found;
}

/* The fingerprints of n = size strictly ascending hashes, sorted and coded. */
SbfStatus
sbf_compactseg_build(SbfKindGeom *g, uint8_t *data, const uint64_t *h,
					 size_t n, const SbfAllocator *a)
{
	SbfEfShape	s;
	uint64_t	bytes;
	size_t		i;

	if (n < 1 || n != g->size || sbf_ef_shape(n, g->width, &s) != SBF_OK)
		return SBF_E_PARAM;
	for (i = 1; i < n; i++)
	{
		if (h[i - 1] >= h[i])
			return SBF_E_PARAM;
		if ((i & (SBF_WORK_STRIDE - 1)) == 0)
			sbf_check_interrupt(a);
	}
	(void) sbf_compactseg_bytes(g, &bytes);
	memset(data, 0, (size_t) bytes);
	return sbf_ef_write_hashes(&s, h, data, a);
}

/* No fill model (a code, not a bit array), as the fused kind. */
static double
compact_expected_fill(const SbfSegment *seg)
{
	(void) seg;
	return 0.5;
}

/*
 * A plan decodes the code once: its n fingerprints, ascending; SBF_E_BITS
 * when the code is not one (a stored value's data changed since it was
 * checked), SBF_E_NOMEM.
 */
static uint64_t
compact_decode_count(const SbfKindGeom *g)
{
	return g->size;
}

static SbfStatus
compact_decode(const SbfKindGeom *g, const uint8_t *data, uint64_t *keys,
			   const SbfAllocator *a)
{
	SbfEfShape	s = shape_of(g);

	(void) a;
	/* a plan trusts only ranges: the code is checked before it is decoded */
	if (sbf_ef_check(&s, data, (size_t) sbf_ef_bytes(&s)) != SBF_OK)
		return SBF_E_BITS;
	sbf_ef_decode_bytes(&s, data, keys);
	return SBF_OK;
}

/* contains over the decoded fingerprints: a branch-free binary search. */
static bool
compact_decoded_has(const SbfKindGeom *g, const uint64_t *keys, uint64_t h)
{
	return sbf_ef_array_has(keys, g->size, sbf_ef_fingerprint(h, g->width));
}

/* sbf_info's keys after "bits": fingerprint width, low bits, fingerprints. */
static int
compact_describe(const SbfKindGeom *g, SbfInfoKey *out)
{
	SbfEfShape	s = shape_of(g);

	out[0] = (SbfInfoKey) {"fingerprint_bits", g->width};
	out[1] = (SbfInfoKey) {"low_bits", (uint64_t) s.L};
	out[2] = (SbfInfoKey) {"fingerprints", g->size};
	return 3;
}

/*
 * The compact kind's row: a complete set only; its count is exact, it
 * never merges, it is read whole.  Stored in a plain version-5 directory
 * only (docs/format5.md).  Planned by no choice yet (choose_max_n 0): the
 * writers that put it first in a grown compact value, and the choice that
 * would take it after fused (rank 1) when strictly smaller -- about
 * log2(1/share) + 2 bits an element, under fused's 1.23 f at small n --
 * come with the compact value's writers.
 */
const SbfKindOps sbf_kind_compact_ops = {
	SBF_KIND_ROW(SBF_KIND_COMPACT, "compact", sbf_compactseg),
	.dirs = SBF_KIND_IN_PLAIN5, .complete = true,
	.choose_rank = 1, .choose_max_n = 0,
	.expected_fill = compact_expected_fill, .expected_rate = sbf_compactseg_rate_at,
	.describe = compact_describe,
	.decode_count = compact_decode_count, .decode = compact_decode,
	.decoded_has = compact_decoded_has,
	.union_rule = SBF_UNION_APPEND,
	.win_lane = SBF_WIN_LANE_OWN,
};
