/*
 * sbf_plain.h
 *	  The public face of core/plain: reading, checking, sizing, building and
 *	  growing plain values (formats 1, 2 and plain 4), and the mutable
 *	  filter's operations.  The types and format constants are in
 *	  sbf_core.h.
 */
#ifndef SBF_PLAIN_H
#define SBF_PLAIN_H

#include "sbf_core.h"

/* ---- parameters and sizing ---- */

/*
 * Checks ranges and finiteness; SBF_OK or SBF_E_PARAM.  What a stored value
 * must satisfy; new filters must also pass sbf_params_check_create.
 */
extern SbfStatus sbf_params_check(const SbfParams *p);

/*
 * sbf_params_check, and the error_rate is large enough that the first
 * segment's rate, grown (sbf_next_error) or right-sized (sbf_sized_error),
 * is at least SBF_MIN_SEGMENT_ERROR: SBF_OK or SBF_E_PARAM.  For filters
 * being created; 1.0 stored some below it, which still read.
 */
extern SbfStatus sbf_params_check_create(const SbfParams *p);

/* The smallest error_rate sbf_params_check_create accepts with a tightening. */
extern double sbf_min_error_rate(double tightening);

/* Error of the next segment given the errors already spent (see SIZING). */
extern double sbf_next_error(double error_rate, double tightening,
							 double spent, double smallest);
/* Error of a first segment right-sized for a known element count: e^1.04. */
extern double sbf_sized_error(double error_rate, double tightening);

/* Bytes of a payload with the given segment bit counts and hll bytes. */
extern size_t sbf_payload_size(uint32_t nseg, const uint64_t *nbits, size_t hll_bytes);

/* ---- reading ---- */

/*
 * The one validator: every byte string that enters from outside (text input,
 * binary receive, bytea cast, aggregate deserialize) passes here first.
 */
extern SbfStatus sbf_validate(const uint8_t *buf, size_t len, SbfView *v);

/*
 * Parses and checks the header and directory from the first avail bytes of a
 * payload whose total length is total_len, without touching bits or the
 * HyperLogLog.  avail must be >= sbf_prefix_size(nsegments); call first with
 * SBF_HEADER_BYTES to learn nsegments.  Returns SBF_E_TRUNCATED if avail is
 * too short.  For values already validated when stored: ranges and lengths
 * only, not each entry's fields against its kind (the rate bounds), which
 * the validator checked when the value entered.
 */
extern SbfStatus sbf_parse_prefix(const uint8_t *buf, size_t avail, size_t total_len,
								  SbfView *v);
extern size_t sbf_prefix_size(uint32_t nsegments);

extern void sbf_get_segment(const SbfView *v, uint32_t i, SbfSegment *seg);

/* Membership by hash: false = definitely absent. */
extern bool sbf_contains_hash(const SbfView *v, uint64_t h);

/*
 * How many of n hashes are probably present (the sum of sbf_contains_hash),
 * with the memory accesses of neighbouring hashes overlapped.
 */
extern size_t sbf_count_contained(const SbfView *v, const uint64_t *h, size_t n);

/*
 * Where a probe looks: payload byte offset and the mask of the bit in it.
 * Readers that fetch a stored value piecewise (by TOAST chunks) use these
 * instead of knowing the bit layout: the element is absent from a segment as
 * soon as one (buf[byte] & mask) is zero.
 */
typedef struct SbfProbeBit
{
	size_t		byte;
	uint8_t		mask;
} SbfProbeBit;

/*
 * Fills out[0..seg->k-1] with the probe bits of hash h in segment seg (as
 * sbf_get_segment returns it, words_offset included): the same bits, in the
 * same order, that sbf_contains_hash tests.
 */
extern void sbf_segment_probes(const SbfSegment *seg, uint64_t h, SbfProbeBit *out);

/*
 * Distinct-count estimate (COUNTS): n in the exact form, the directory count
 * corrected for false-positive skips for a version-2 value without OVERLAP,
 * else the HyperLogLog's.
 */
extern double sbf_cardinality(const SbfView *v);
/* HyperLogLog estimate (Ertl 2017 improved raw estimator); n if exact. */
extern double sbf_hll_cardinality(const SbfView *v);
/* The same from its HyperLogLog area read separately (hll NULL if exact). */
extern double sbf_hll_cardinality_parts(const SbfView *v, const uint8_t *hll);
/* The directory estimate of COUNTS, whatever the flags (0 if exact). */
extern double sbf_directory_count(const SbfView *v);
/* Which answer sbf_cardinality gives: "exact", "directory" or "hll". */
extern const char *sbf_count_source(const SbfView *v);
/* Hash i (< nhashes) of an exact view. */
extern uint64_t sbf_exact_hash(const SbfView *v, uint32_t i);

/*
 * The same estimate for a reader that holds only the header and directory
 * (sbf_parse_prefix): it fetches the HyperLogLog area (v->hll_bytes bytes at
 * v->hll_offset) only if sbf_cardinality_needs_hll(v) says the estimator
 * reads it, and passes it as hll (else NULL).
 */
extern bool sbf_cardinality_needs_hll(const SbfView *v);
extern double sbf_cardinality_parts(const SbfView *v, const uint8_t *hll);

/*
 * Fill and false-positive rate expected from the directory's counts alone
 * (no bit is read): 1 - (1 - 1/m)^(k count), and 1 - prod(1 - fill^k).
 */
extern double sbf_segment_expected_fill(const SbfView *v, uint32_t i);
/* The same from the segment itself (no walk). */
extern double sbf_segment_expected_fill_of(const SbfSegment *seg);
extern double sbf_expected_fpr(const SbfView *v);

/* Fraction of set bits of a segment. */
extern double sbf_segment_fill(const SbfView *v, uint32_t i);
/* Estimated current false-positive rate: 1 - prod(1 - fill_i^k_i). */
extern double sbf_current_fpr(const SbfView *v);
/* Upper bound of the false-positive rate when every segment is full: sum P_t. */
extern double sbf_fpr_bound(const SbfView *v);
/* the sum of the stored rates: what a union spends of its error_rate */
extern double sbf_fpr_budget(const SbfView *v);
/* whether sbf_fpr_bound reads data areas (a view of the prefix cannot give it) */
extern bool sbf_fpr_bound_reads_data(const SbfView *v);

/* ---- writing ---- */

/*
 * New empty filter, in the exact form; it converts to one segment of
 * capacity p->capacity (sparse HLL) when that is smaller.  Fails with
 * SBF_E_TOO_LARGE at once if that segment could not be built.
 */
extern SbfStatus sbf_create(SbfFilter *f, const SbfParams *p, size_t prefix,
							const SbfAllocator *a);
/*
 * New empty filter whose first segment is right-sized for n elements
 * (n >= 1) at error sbf_sized_error(); later segments grow from p->capacity.
 * Exact form while n <= SBF_EXACT_MAX (it converts to that segment).
 */
extern SbfStatus sbf_create_sized(SbfFilter *f, const SbfParams *p, uint64_t n,
								  size_t prefix, const SbfAllocator *a);
/* Copy of a validated view into a new mutable filter with extra room. */
extern SbfStatus sbf_copy(SbfFilter *f, const SbfView *v, size_t prefix,
						  size_t extra, const SbfAllocator *a);

/*
 * Adds an element by hash.  If it is already probably present nothing but the
 * HyperLogLog changes (*inserted = false); otherwise its bits go into the last
 * segment, first appending a new segment (see SIZING) when that one is full.
 */
extern SbfStatus sbf_add_hash(SbfFilter *f, uint64_t h, bool *inserted);

/*
 * Adds n hashes with exactly the result of n sbf_add_hash calls in the same
 * order, faster when the filter has one segment with room for all of them
 * (one view, one HyperLogLog re-encoding); otherwise one add at a time.
 */
extern SbfStatus sbf_add_hashes(SbfFilter *f, const uint64_t *h, size_t n);

/* Updates only the HyperLogLog (nothing in the exact form, which has none). */
extern SbfStatus sbf_hll_add_hash(SbfFilter *f, uint64_t h);

/* Converts an exact filter to the segmented form (no-op if segmented). */
extern SbfStatus sbf_convert(SbfFilter *f);

/*
 * Relabels a valid segmented value of version 1 or 2 to version 4 in place
 * (docs/format4.md, section 2: same bits, same length; version 1 gets
 * OVERLAP).  SBF_OK also for a plain version-4 value (unchanged);
 * SBF_E_VERSION for the exact form and the windowed forms.
 */
extern SbfStatus sbf_relabel4(uint8_t *buf, size_t len);
extern SbfStatus sbf_filter_relabel4(SbfFilter *f);

/*
 * The one builder from sorted hashes (docs/format4.md, section 6): a new
 * version-4 value, header from p, of one segment holding the n >= 1
 * strictly ascending distinct hashes h at rate share (the kind
 * sbf_kind_choose picks; blocked above SBF_FUSED_MAX_BUILD hashes or when
 * no fused seed peels), its capacity n, and the HyperLogLog of h.  flags:
 * OVERLAP, CHAIN.  SBF_E_PARAM when h is not strictly ascending.
 */
extern SbfStatus sbf_build_sorted(SbfFilter *f, const SbfParams *p,
								  const uint64_t *h, size_t n, double share,
								  uint8_t flags, size_t prefix,
								  const SbfAllocator *a);

/*
 * The fingerprint bits of the compact form the builder writes for n
 * elements with p's parameters (sbf_build_final.c; docs/format5.md,
 * section 3): SBF_COMPACT_EXACT_BITS up to SBF_COMPACT_EXACT_MAX, else the
 * least b with m / 2^b within sbf_sized_error and the bound the segment
 * 1.3 wrote in its place stored (sbf_build_first: a fused segment's exact
 * rate may be below the share; the compact value then spends no more of
 * the budget, and the chain adds append is no larger than 1.3's), m = n,
 * or where 1.3 wrote the set in the exact form the count to which its
 * adds kept it so (sbf_exact_agg_room: adds in place reach it,
 * sbf_compact_add.c), and above the default HyperLogLog precision.
 * SBF_E_PARAM when the builder writes no compact form: n 0, no b up to the
 * form's largest, or, where 1.3 wrote a segment, a value whose first add
 * would make it larger than 1.3's value of the same elements
 * (sbf_compact_chain_fits).
 */
extern SbfStatus sbf_build_compact_bits(const SbfParams *p, uint64_t n, int *b);

/*
 * The smaller of sbf_sized_error(e, r) and the bound 1.3's segment for n
 * elements stored (sbf_build_first): the bound a compact value taking its
 * place keeps within (sbf_build_final.c, sbf_compact_add.c).
 */
extern double sbf_build_first_bound(double e, double r, uint64_t n);

/*
 * The largest count, up to upto, to which release 1.3 kept exact under
 * single adds the value its sbf_agg wrote in the exact form for n0 elements
 * (first segment n0 at sbf_sized_error, header capacity
 * SBF_DEFAULT_CAPACITY) with these parameters; 0 when its sbf_agg of n0
 * wrote a segment (or upto < n0).  Counted with
 * the HyperLogLog at its largest for each count, so at least 1.3's own
 * (sbf_exact.c; sbf_compact_add.c and sbf_build_final.c give a compact
 * value taking its place the room to pass it).
 */
extern uint64_t sbf_exact_agg_room(double error_rate, double tightening,
								   uint16_t growth, uint64_t n0, uint64_t upto);

/*
 * A compact value against release 1.3's value of the same elements
 * (sbf_compact_chain.c; docs/format5.md, section 3, "Adds"), for
 * parameters e, r, s and capacity c (the count sbf_agg built it for):
 * sbf_compact_chain_fits, whether one of n >= c fingerprints at b bits,
 * and every value adds grow from it, is no larger than 1.3's for the same
 * elements (full_margin: with the margin for 1.3's false-positive skips,
 * what adds in place ask; else with it or without, what the builder asks);
 * sbf_compact_chain_next, the capacity of the segment to append to the
 * segmented form of such a value, whose first segment holds n and whose
 * segments held elements in all: its chain ends its segments at 1.3's
 * boundaries plus that margin.  SBF_E_PARAM when the chain cannot be
 * planned, SBF_E_TOO_LARGE past 64 bits (*capacity untouched: the caller
 * keeps its own rule).
 */
extern bool sbf_compact_chain_fits(double e, double r, uint16_t s, uint64_t c,
								   uint64_t n, int b, bool full_margin);
extern SbfStatus sbf_compact_chain_next(double e, double r, uint16_t s,
										uint64_t c, uint64_t n, int b,
										uint64_t held, uint64_t *capacity);

/*
 * The bytes of the HyperLogLog area sbf_build_sorted writes for the n
 * hashes h at precision p, into *nbytes.  SBF_E_NOMEM.
 */
extern SbfStatus sbf_build_hll_size(const uint64_t *h, size_t n, int p,
									const SbfAllocator *a, size_t *nbytes);

/*
 * An aggregate's final from the complete set of n >= 0 strictly ascending
 * distinct hashes: the exact form (version 2, as 1.2) while the whole set
 * fits it, else sbf_build_sorted at 1.2's right-sized share.
 */
extern SbfStatus sbf_build_final(SbfFilter *f, const SbfParams *p,
								 const uint64_t *h, size_t n, size_t prefix,
								 const SbfAllocator *a);

/*
 * New empty filter continuing v's growth chain and error budget (CHAIN): its
 * first segment is the one v would append next.  Exact form.  For an exact v,
 * an empty copy of its parameters.
 */
extern SbfStatus sbf_delta(SbfFilter *f, const SbfView *v, size_t prefix,
						   const SbfAllocator *a);

extern void sbf_filter_free(SbfFilter *f);

/*
 * The segmented value of version 5 that answers as the checked compact value
 * cv (sbf_compact_expand.c): one compact segment of its code, the
 * HyperLogLog of its fingerprints.  SBF_E_PARAM, SBF_E_NOMEM,
 * SBF_E_TOO_LARGE.
 */
struct SbfCompactView;
extern SbfStatus sbf_compact_expand(const struct SbfCompactView *cv, SbfFilter *f,
									size_t prefix, const SbfAllocator *a);

/* Builds a view over a mutable filter's current payload (no validation). */
extern void sbf_filter_view(const SbfFilter *f, SbfView *v);

/*
 * The compact form as a view (sbf_compact_value.c; docs/format5.md, 3).
 * sbf_bytes_compact: whether bytes are labelled so (version 5, flag
 * COMPACT).  sbf_compact_validate: the validator's branch (sbf_compact_check,
 * and b above the default HyperLogLog precision, so that every such value
 * has a segmented form).  sbf_compact_parse_view: the stored reader's
 * (sbf_compact_parse), needing the whole value (SBF_E_TRUNCATED when avail
 * is short).  Its lookups read the code's bytes; the rates are n / 2^b
 * (expected), distinct fingerprints / 2^b (current) and max(n, capacity)
 * / 2^b (bound).  sbf_compact_view_count: its # -- n, or where OVERLAP (a
 * union kept once a fingerprint that two inputs held) the number of
 * distinct elements whose b-bit fingerprints take n distinct values,
 * expected: ln(1 - n/2^b) / ln(1 - 2^-b).  sbf_compact_view_keeps: whether an add of h leaves the value
 * as it is (h matches, and its rank is within the value's HyperLogLog:
 * below the cap, or not above its RANKS entry).  sbf_view_expand
 * (sbf_compact_expand.c): its segmented form
 * (sbf_compact_expand), what every writer starts from.
 */
typedef enum SbfCompactRate
{
	SBF_COMPACT_RATE_EXPECTED,
	SBF_COMPACT_RATE_CURRENT,
	SBF_COMPACT_RATE_BOUND
} SbfCompactRate;

extern bool sbf_bytes_compact(const uint8_t *buf, size_t len);
extern SbfStatus sbf_compact_validate(const uint8_t *buf, size_t len, SbfView *v);
extern SbfStatus sbf_compact_parse_view(const uint8_t *buf, size_t avail,
										size_t total_len, SbfView *v);
extern void sbf_view_compact(const SbfView *v, struct SbfCompactView *cv);
extern bool sbf_compact_view_has(const SbfView *v, uint64_t h);
extern bool sbf_compact_view_keeps(const SbfView *v, uint64_t h);
extern double sbf_compact_view_rate(const SbfView *v, SbfCompactRate which);
extern double sbf_compact_view_count(const SbfView *v);
extern SbfStatus sbf_view_expand(const SbfView *v, SbfFilter *f, size_t prefix,
								 const SbfAllocator *a);

/*
 * Adds the k hashes h to the compact value v of f in place
 * (sbf_compact_add.c): true when done (*st SBF_OK; *inserted, unless NULL,
 * whether a fingerprint was new) or failed (*st, f as it was); false when
 * the value must take its segmented form instead (more than
 * SBF_COMPACT_BUILD_MAX fingerprints or bytes, or past both its capacity and
 * the share its builder sizes a set at).
 */
extern bool sbf_compact_add_in_place(SbfFilter *f, const SbfView *v,
									 const uint64_t *h, size_t k,
									 bool *inserted, SbfStatus *st);

/*
 * Writes the compact value of the n hashes h (sbf_compact_write: b, cp,
 * len its size; sorted: h are its fingerprints, ascending,
 * sbf_compact_write_sorted) into a new buffer that replaces f's, f's prefix
 * kept; on any failure f is as it was (sbf_compact_add.c).
 */
struct SbfCompactParams;
extern SbfStatus sbf_compact_store(SbfFilter *f, const uint64_t *h, uint64_t n,
								   int b, const struct SbfCompactParams *cp,
								   size_t len, bool sorted);

#endif							/* SBF_PLAIN_H */
