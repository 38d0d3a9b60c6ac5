/*
 * sbf_format.c
 *	  Reading side of the format described in sbf_core.h: parameter checks,
 *	  segment sizing, the one validator, prefix parsing for partial reads,
 *	  and the read-only queries (membership, cardinality, fill, FPR); the
 *	  directory's count of distinct elements is sbf_count.c.
 */
#include <math.h>

#include "sbf_dir.h"
#include "sbf_window.h"
#include "sbf_plain.h"

/* Checks ranges and finiteness; SBF_OK or SBF_E_PARAM. */
SbfStatus
sbf_params_check(const SbfParams *p)
{
	/* comparisons written so that NaN fails them */
	if (p->capacity < 1)
		return SBF_E_PARAM;
	if (!(p->error_rate > 0.0 && p->error_rate < 0.5))
		return SBF_E_PARAM;
	if (!(p->tightening > 0.0 && p->tightening <= 1.0))
		return SBF_E_PARAM;
	if (p->growth < 1 || p->growth > SBF_MAX_GROWTH)
		return SBF_E_PARAM;
	if (p->hll_p < SBF_HLL_P_MIN || p->hll_p > SBF_HLL_P_MAX)
		return SBF_E_PARAM;
	return SBF_OK;
}

/* Whether a filter created with error_rate e and tightening r is sizable. */
static bool
error_rate_creatable(double e, double r)
{
	return sbf_next_error(e, r, 0.0, 0.0) >= SBF_MIN_SEGMENT_ERROR &&
		sbf_sized_error(e, r) >= SBF_MIN_SEGMENT_ERROR;
}

/*
 * sbf_params_check, and an error_rate whose first segment's rate does not
 * underflow.  Only creation checks this: stored values keep reading.
 */
SbfStatus
sbf_params_check_create(const SbfParams *p)
{
	SbfStatus	st = sbf_params_check(p);

	if (st != SBF_OK)
		return st;
	if (!error_rate_creatable(p->error_rate, p->tightening))
		return SBF_E_PARAM;
	return SBF_OK;
}

/*
 * The smallest error_rate sbf_params_check_create accepts with tightening r
 * (in (0, 1]): a binary search over the bit patterns of the doubles in
 * [SBF_MIN_SEGMENT_ERROR, 0.5), which are ordered like the doubles, on a
 * condition that is monotone in the error_rate.
 */
double
sbf_min_error_rate(double tightening)
{
	double		lo_d = SBF_MIN_SEGMENT_ERROR;
	double		hi_d = 0.5;
	uint64_t	lo;
	uint64_t	hi;

	if (error_rate_creatable(lo_d, tightening))
		return lo_d;
	memcpy(&lo, &lo_d, sizeof(lo));
	memcpy(&hi, &hi_d, sizeof(hi));
	/* invariant: lo is refused; hi (0.5, outside the range) stands for "accepted" */
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;
		double		m;

		memcpy(&m, &mid, sizeof(m));
		if (error_rate_creatable(m, tightening))
			hi = mid;
		else
			lo = mid;
	}
	memcpy(&hi_d, &hi, sizeof(hi_d));
	return hi_d;
}

/*
 * Error of the next segment: (1 - r) of what is left of the budget e after
 * the segments so far spent `spent' (Almeida et al. 2007's P0 r^i when built
 * one by one); e itself when r = 1 (seed 000's equal segments); r times the
 * smallest existing error when unions overspent the budget.
 */
double
sbf_next_error(double error_rate, double tightening, double spent,
			   double smallest)
{
	double		left = error_rate - spent;

	if (tightening >= 1.0)
		return error_rate;
	if (left > 0.0)
		return left * (1.0 - tightening);
	return smallest * tightening;
}

/*
 * The growth rule, in one place: the kind of a segment appended for
 * capacity elements at rate error.  Blocked (one cache line a probe) while
 * the share is at least bloom_below; below it the standard Bloom segment
 * (kind 1), whose bits per element grow more slowly as the share shrinks
 * (docs/format4.md, section 4: a line's load variance costs most at small
 * shares).  bloom_below = 0 is pure blocked, 1 is 1.2's all-bloom.
 */
SbfStatus
sbf_grow_plan_rule(uint64_t capacity, double error, double bloom_below,
				   SbfKindGeom *g, uint64_t *bytes)
{
	if (error < bloom_below)
		return sbf_kind_bloom_ops.plan(capacity, error, g, bytes);
	return sbf_kind_blocked_ops.plan(capacity, error, g, bytes);
}

/*
 * Error of a first segment right-sized for a known count: e^1.04 costs 4%
 * more bits than the Bloom optimum at e (bits scale with -ln p) and leaves
 * e - e^1.04 of the budget for later growth.
 */
double
sbf_sized_error(double error_rate, double tightening)
{
	if (tightening >= 1.0)
		return error_rate;
	return pow(error_rate, 1.04);
}

/* Bytes of a payload with the given segment bit counts and hll bytes. */
size_t
sbf_payload_size(uint32_t nseg, const uint64_t *nbits, size_t hll_bytes)
{
	uint64_t	total = SBF_HEADER_BYTES + (uint64_t) nseg * SBF_SEGDIR_BYTES;
	uint32_t	i;

	/* saturate to SIZE_MAX: any answer above SBF_MAX_BYTES is an error */
	for (i = 0; i < nseg; i++)
	{
		if (nbits[i] > SBF_MAX_SEGMENT_BITS)
			return SIZE_MAX;
		total += sbf_words_bytes(nbits[i]);
		if (total > SBF_MAX_BYTES)
			return SIZE_MAX;
	}
	if (hll_bytes > SBF_MAX_BYTES || total + hll_bytes > SBF_MAX_BYTES)
		return SIZE_MAX;
	return (size_t) (total + hll_bytes);
}

/* Bytes of the header and directory of a payload with nsegments segments. */
size_t
sbf_prefix_size(uint32_t nsegments)
{
	return SBF_HEADER_BYTES + (size_t) nsegments * SBF_SEGDIR_BYTES;
}

/* Fills the header fields of v from buf (at least SBF_HEADER_BYTES). */
static void
read_header(const uint8_t *buf, SbfView *v)
{
	v->buf = buf;
	v->version = buf[SBF_OFF_VERSION];
	v->flags = buf[SBF_OFF_FLAGS];
	v->hash_id = buf[SBF_OFF_HASH];
	v->hll_p = buf[SBF_OFF_HLL_P];
	v->growth = sbf_load16(buf + SBF_OFF_GROWTH);
	v->nsegments = sbf_load16(buf + SBF_OFF_NSEGMENTS);
	v->hll_bytes = sbf_load32(buf + SBF_OFF_HLL_BYTES);
	v->error_rate = sbf_load_double(buf + SBF_OFF_ERROR_RATE);
	v->tightening = sbf_load_double(buf + SBF_OFF_TIGHTENING);
	v->capacity = sbf_load64(buf + SBF_OFF_CAPACITY);
	v->bits_offset = sbf_prefix_size(v->nsegments);
	v->nhashes = 0;
	v->first_capacity = 0;
	v->first_error = 0.0;
	if (v->version == SBF_FORMAT_VERSION && (v->flags & SBF_FLAG_EXACT))
	{
		/* the exact form reuses the hll_bytes field for n */
		v->nhashes = v->hll_bytes;
		v->hll_bytes = 0;
		v->bits_offset = SBF_EXACT_HEADER_BYTES;
	}
}

/*
 * Checks the rest of an exact form's header (the common fields are checked)
 * and computes its total length.  The first segment must be one that can be
 * built, so a conversion never fails on the stored parameters alone.
 */
static SbfStatus
check_exact_prefix(const uint8_t *buf, size_t avail, SbfView *v, uint64_t *total)
{
	uint64_t	m;
	uint32_t	k;

	if (v->flags & ~(SBF_FLAG_EXACT | SBF_FLAG_CHAIN))
		return SBF_E_FLAGS;
	if (avail < SBF_EXACT_HEADER_BYTES)
		return SBF_E_TRUNCATED;
	if (v->nsegments != 0)
		return SBF_E_FLAGS;
	v->first_capacity = sbf_load64(buf + SBF_OFF_FIRST_CAPACITY);
	v->first_error = sbf_load_double(buf + SBF_OFF_FIRST_ERROR);
	if (v->nhashes > SBF_EXACT_MAX)
		return SBF_E_EXACT;
	/* written this way so that NaN fails too */
	if (v->first_capacity < 1 || !(v->first_error > 0.0 && v->first_error < 0.5) ||
		!sbf_segment_geometry(v->first_capacity, v->first_error,
							  SBF_MAX_SEGMENT_BITS, &m, &k))
		return SBF_E_EXACT;
	*total = SBF_EXACT_HEADER_BYTES + (uint64_t) v->nhashes * 8;
	return SBF_OK;
}

/*
 * Checks the header and directory found in the first avail bytes and
 * computes the total payload length they describe into *total.  With full
 * (the validator), each entry's fields against its kind (check_entry: a
 * blocked segment's rate bound integrates Putze's formula); without (a value
 * read from storage, validated when it entered), ranges and lengths only.
 */
static SbfStatus
check_prefix(const uint8_t *buf, size_t avail, SbfView *v, uint64_t *total,
			 bool full)
{
	const SbfVersion *ver;
	SbfParams	params;
	SbfDirIter	it;
	SbfDirEntry e;
	SbfStatus	st;
	bool		needs_version = false;

	if (avail < SBF_HEADER_BYTES)
		return SBF_E_TRUNCATED;
	read_header(buf, v);
	ver = sbf_version_of(buf);
	if (ver == NULL || ver->windowed)
		return SBF_E_VERSION;
	if ((v->flags & ~ver->flags) != 0)
		return SBF_E_FLAGS;
	if (v->hash_id != SBF_HASH_XXH3)
		return SBF_E_HASH;
	sbf_view_params(v, &params);
	st = sbf_params_check(&params);
	if (st != SBF_OK)
		return st;
	if (sbf_is_exact(v))
		return check_exact_prefix(buf, avail, v, total);
	if (v->nsegments < 1 || v->nsegments > SBF_MAX_SEGMENTS)
		return SBF_E_SEGMENT;
	if (avail < sbf_prefix_size(v->nsegments))
		return SBF_E_TRUNCATED;

	/* each entry is checked before the next data offset is used */
	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
	{
		/* format 4: descriptor, kind allowed here, data length */
		if (e.st != SBF_OK)
			return SBF_E_SEGMENT;
		if (ver->segment_ops != NULL &&
			(sbf_load32(e.entry + SBF_SEG_RESERVED) != 0 ||
			 sbf_load16(e.entry + SBF_SEG_RESERVED16) != 0))
			return SBF_E_FLAGS;
		if ((full && e.ops->check_entry(&e.g, e.capacity, e.count, e.error) != SBF_OK) ||
			e.ops->check_geom(&e.g) != SBF_OK)
			return SBF_E_SEGMENT;
		needs_version |= (e.ops->dirs & ver->dir_before) == 0;
	}
	/* version 5: the least version that admits its kinds (one code a value) */
	if (ver->dir_before != 0 && !needs_version)
		return SBF_E_VERSION;

	st = sbf_hll_check_size(v->hll_bytes, (v->flags & SBF_FLAG_HLL_DENSE) != 0,
							v->hll_p);
	if (st != SBF_OK)
		return st;
	/* at most 4096 * 2^30 bytes: cannot overflow */
	*total = (uint64_t) it.off + v->hll_bytes;
	return SBF_OK;
}

/*
 * The one validator: every byte string that enters from outside passes here
 * first.  Linear in len and never reads past it.
 */
/*
 * The windowed form (version 3, or 4 with WINDOWED): sbf_win_validate; the
 * view says only version, flags and length.
 */
static SbfStatus
validate_window(const uint8_t *buf, size_t len, SbfView *v)
{
	SbfWinView	wv;

	memset(v, 0, sizeof(*v));
	v->buf = buf;
	v->len = len;
	v->version = buf[0];
	v->flags = len > 1 ? buf[1] : 0;	/* a 1-byte value is refused below */
	return sbf_win_validate(buf, len, &wv);
}

SbfStatus
sbf_validate(const uint8_t *buf, size_t len, SbfView *v)
{
	uint64_t	total;
	SbfDirIter	it;
	SbfDirEntry e;
	uint32_t	i;
	SbfStatus	st;

	/* a value longer than this could not be written as text (LIMITS) */
	if (len > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	if (sbf_is_window(buf, len))
		return validate_window(buf, len, v);
	if (sbf_bytes_compact(buf, len))
		return sbf_compact_validate(buf, len, v);
	st = check_prefix(buf, len, v, &total, true);
	if (st != SBF_OK)
		return st;
	if (total > len)
		return SBF_E_TRUNCATED;
	if (total < len)
		return SBF_E_LENGTH;
	v->len = len;
	v->hll_offset = len - v->hll_bytes;

	if (sbf_is_exact(v))
	{
		/* strictly ascending: sorted and distinct, so the form is canonical */
		for (i = 1; i < v->nhashes; i++)
		{
			if (sbf_load64(buf + v->bits_offset + (size_t) i * 8) <=
				sbf_load64(buf + v->bits_offset + (size_t) (i - 1) * 8))
				return SBF_E_EXACT;
			if (i % SBF_WORK_STRIDE == 0)
				sbf_hook_interrupt();
		}
		return SBF_OK;
	}

	/*
	 * each kind checks its data (bloom: no bit at or past m); the padding
	 * before a format-4 blocked area is zero
	 */
	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
	{
		for (i = 0; i < e.pad; i++)
			if (buf[e.data - e.pad + i] != 0)
				return SBF_E_BITS;
		if (e.ops->check_data(&e.g, buf + e.data) != SBF_OK)
			return SBF_E_BITS;
		sbf_hook_interrupt();
	}

	return sbf_hll_check(buf + v->hll_offset, v->hll_bytes,
						 (v->flags & SBF_FLAG_HLL_DENSE) != 0, v->hll_p);
}

/*
 * Parses and checks the header and directory from the first avail bytes of a
 * payload whose total length is total_len, without touching bits or the
 * HyperLogLog.
 */
SbfStatus
sbf_parse_prefix(const uint8_t *buf, size_t avail, size_t total_len, SbfView *v)
{
	uint64_t	total;
	SbfStatus	st;

	/* stored values: 1.0 wrote them up to the varlena limit (LIMITS) */
	if (total_len > SBF_MAX_STORED_BYTES)
		return SBF_E_LENGTH;
	if (avail > total_len)
		avail = total_len;
	if (sbf_bytes_compact(buf, avail))
		return sbf_compact_parse_view(buf, avail, total_len, v);
	st = check_prefix(buf, avail, v, &total, false);
	if (st != SBF_OK)
		return st;
	if (total != total_len)
		return SBF_E_LENGTH;
	v->len = total_len;
	v->hll_offset = total_len - v->hll_bytes;
	return SBF_OK;
}

/* Decodes directory entry i of a view, including where its words start. */
void
sbf_get_segment(const SbfView *v, uint32_t i, SbfSegment *seg)
{
	SbfDirIter	it;
	SbfDirEntry e;

	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e) && e.index < i)
		;
	sbf_dir_segment(&e, seg);
}

/* Parameters stored in a view's header. */
void
sbf_view_params(const SbfView *v, SbfParams *p)
{
	p->capacity = v->capacity;
	p->error_rate = v->error_rate;
	p->tightening = v->tightening;
	p->growth = v->growth;
	p->hll_p = v->hll_p;
}

/* Hash i (< nhashes) of an exact view. */
uint64_t
sbf_exact_hash(const SbfView *v, uint32_t i)
{
	return sbf_load64(v->buf + v->bits_offset + (size_t) i * 8);
}

/*
 * Position of h in an exact view's ascending hashes: the index of the first
 * hash >= h (nhashes if none); *found tells whether it equals h.
 */
uint32_t
sbf_exact_search(const SbfView *v, uint64_t h, bool *found)
{
	uint32_t	i = sbf_search64(v->buf + v->bits_offset, v->nhashes, h);

	*found = i < v->nhashes && sbf_exact_hash(v, i) == h;
	return i;
}

/*
 * Membership by hash: in the exact form a binary search; else true when all
 * k bits are set in some segment.
 */
bool
sbf_contains_hash(const SbfView *v, uint64_t h)
{
	SbfDirIter	it;
	SbfDirEntry e;

	if (sbf_is_exact(v))
	{
		bool		found;

		(void) sbf_exact_search(v, h, &found);
		return found;
	}
	if (sbf_is_compact(v))
		return sbf_compact_view_has(v, h);
	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
		if (sbf_dir_has(v->buf, &e, h))
			return true;
	return false;
}

/* A batch of sbf_count_contained: every segment marks its hits. */
static void
view_mark_batch(const void *arg, const uint64_t *h, size_t nb, bool *hit)
{
	const SbfView *v = arg;
	SbfDirEntry e;

	SBF_DIR_FOREACH(e, v)
		sbf_kind_mark(&e.g, v->buf + e.data, h, nb, hit);
}

/*
 * How many of n hashes are probably present: the sum of sbf_contains_hash
 * over them.  In a filter larger than the CPU caches every probe is a cache
 * miss, one after the other; here, segment by segment, the hashes not found
 * yet go a batch at a time to the kind's batched, prefetching mark
 * (sbf_count_marked), so the misses overlap.
 */
size_t
sbf_count_contained(const SbfView *v, const uint64_t *h, size_t n)
{
	size_t		found = 0;
	size_t		i;

	/*
	 * the exact form is a sorted array: each lookup a binary search; bit
	 * arrays that fit the caches gain nothing from prefetching
	 */
	if (sbf_is_exact(v) || sbf_is_compact(v) ||
		v->hll_offset - v->bits_offset <= SBF_CACHED_BITS)
	{
		for (i = 0; i < n; i++)
			found += sbf_contains_hash(v, h[i]) ? 1 : 0;
		return found;
	}
	return sbf_count_marked(h, n, view_mark_batch, v);
}

/* Probe bits of h in one segment, in sbf_contains_hash's order. */
void
sbf_segment_probes(const SbfSegment *seg, uint64_t h, SbfProbeBit *out)
{
	SbfPosIter	it;
	uint32_t	j;

	sbf_pos_start(&it, h, sbf_mix64(h) | 1, seg->nbits);
	for (j = 0; j < seg->k; j++)
	{
		uint64_t	pos = sbf_pos_next(&it);

		out[j].byte = seg->words_offset + (size_t) (pos >> 3);
		out[j].mask = (uint8_t) (1u << (pos & 7));
	}
}

/* Whether sbf_cardinality_parts reads the HyperLogLog area of v. */
bool
sbf_cardinality_needs_hll(const SbfView *v)
{
	return strcmp(sbf_count_source(v), "hll") == 0;
}

/*
 * Distinct-count estimate from the header and directory of v and, when
 * sbf_cardinality_needs_hll(v), its HyperLogLog area (v->hll_bytes bytes at
 * hll; otherwise hll may be NULL): n if exact, the directory count for a
 * version-2 value without OVERLAP, else the HyperLogLog (COUNTS).
 */
double
sbf_cardinality_parts(const SbfView *v, const uint8_t *hll)
{
	if (sbf_is_exact(v))
		return (double) v->nhashes;
	if (sbf_is_compact(v))
		return sbf_compact_view_count(v);
	if (!sbf_cardinality_needs_hll(v))
		return sbf_directory_count(v);
	return sbf_hll_cardinality_parts(v, hll);
}

/* Distinct-count estimate of a whole payload (see COUNTS). */
double
sbf_cardinality(const SbfView *v)
{
	return sbf_cardinality_parts(v, sbf_cardinality_needs_hll(v) ?
								 v->buf + v->hll_offset : NULL);
}

/*
 * Expected fill of segment i from its directory alone: after n distinct
 * inserts of k bits each into m bits, 1 - (1 - 1/m)^(k n).
 */
double
sbf_segment_expected_fill(const SbfView *v, uint32_t i)
{
	SbfSegment	seg;

	sbf_get_segment(v, i, &seg);
	return sbf_segment_expected_fill_of(&seg);
}

/* The same from the segment itself: its kind's expected_fill. */
double
sbf_segment_expected_fill_of(const SbfSegment *seg)
{
	return sbf_kind_ops(seg->kind)->expected_fill(seg);
}

/*
 * The chance that some segment reports a false positive, 1 - prod(1 - p),
 * where a segment with k hashes reports one with p = fill^k: its actual fill
 * (rate_of), or the fill expected from its directory entry.
 */
static double
fpr_of_fills(const SbfView *v, bool expected)
{
	double		pass = 1.0;
	SbfDirIter	it;
	SbfDirEntry e;

	/* the exact form has no false positives; nsegments is 0 */
	if (sbf_is_compact(v))
		return sbf_compact_view_rate(v, expected ? SBF_COMPACT_RATE_EXPECTED :
									 SBF_COMPACT_RATE_CURRENT);
	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
	{
		double		p;

		/* from the entry: a walk per segment would be quadratic */
		if (expected)
			p = e.ops->expected_rate(&e.g, e.count);
		else
			p = e.ops->rate_of(&e.g, v->buf + e.data);
		pass *= 1.0 - p;
		sbf_hook_interrupt();
	}
	return 1.0 - pass;
}

/* Expected current false-positive rate from the directory: 1 - prod(1 - fill^k). */
double
sbf_expected_fpr(const SbfView *v)
{
	return fpr_of_fills(v, true);
}

/* HyperLogLog estimate (Ertl 2017 improved raw estimator); n if exact. */
double
sbf_hll_cardinality(const SbfView *v)
{
	return sbf_hll_cardinality_parts(v, sbf_is_exact(v) || sbf_is_compact(v) ? NULL :
									 v->buf + v->hll_offset);
}

/* The same from a separately read HyperLogLog area (NULL if exact). */
double
sbf_hll_cardinality_parts(const SbfView *v, const uint8_t *hll)
{
	if (sbf_is_exact(v))
		return (double) v->nhashes;
	if (sbf_is_compact(v))
		return (double) v->nfp;
	return sbf_hll_estimate(hll, v->hll_bytes,
							(v->flags & SBF_FLAG_HLL_DENSE) != 0, v->hll_p);
}

/* Fraction of set bits of segment i. */
double
sbf_segment_fill(const SbfView *v, uint32_t i)
{
	SbfDirIter	it;
	SbfDirEntry e;

	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e) && e.index < i)
		;
	/* bloom: m bits; the other kinds: every bit of their area */
	return sbf_bits_fill(v->buf + e.data, sbf_kind_fill_bits(e.ops, &e.g, e.bytes));
}

/*
 * Estimated current false-positive rate: a segment with fill f and k hashes
 * reports a false positive with probability f^k, the filter when any does.
 */
double
sbf_current_fpr(const SbfView *v)
{
	return fpr_of_fills(v, false);
}

/*
 * The sum over v's segments of the stored p, or with data of the larger of
 * it and, for a kind whose stored p may understate it, the rate its bits
 * give (the exact computation's work shared out between the segments), at
 * most 1; the compact form's bound.
 */
static double
rate_sum(const SbfView *v, bool data)
{
	double		sum = 0.0;
	SbfDirIter	it;
	SbfDirEntry e;

	if (sbf_is_compact(v))
		return sbf_compact_view_rate(v, SBF_COMPACT_RATE_BOUND);
	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
	{
		double		r = e.error;

		if (data && e.ops->bound_of != NULL)
		{
			double		d = e.ops->bound_of(&e.g, v->buf + e.data, e.count,
											SBF_BLOOM_BOUND_WORK / v->nsegments);

			if (d > r)
				r = d;
		}
		sum += r;
	}
	return sum < 1.0 ? sum : 1.0;
}

/*
 * The budget a value spends (what unions and writers check against its
 * error_rate, every release alike): the sum of its segments' stored p.
 */
double
sbf_fpr_budget(const SbfView *v)
{
	return rate_sum(v, false);
}

/* Upper bound of the false-positive rate (docs/format.md RATE BOUND). */
double
sbf_fpr_bound(const SbfView *v)
{
	return rate_sum(v, true);
}

/*
 * Whether sbf_fpr_bound reads segment data (not only the header and
 * directory): when a segment's kind computes a bound from its bits.
 */
bool
sbf_fpr_bound_reads_data(const SbfView *v)
{
	SbfDirIter	it;
	SbfDirEntry e;

	if (sbf_is_compact(v))
		return false;
	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
		if (e.ops->bound_of != NULL)
			return true;
	return false;
}

/* Builds a view over a mutable filter's current payload (no validation). */
void
sbf_filter_view(const SbfFilter *f, SbfView *v)
{
	/* a compact value a writer made: its header is checked by its writer */
	if (sbf_bytes_compact(SBF_PAYLOAD(f), f->len) &&
		sbf_compact_parse_view(SBF_PAYLOAD(f), f->len, f->len, v) == SBF_OK)
		return;
	read_header(SBF_PAYLOAD(f), v);
	v->len = f->len;
	v->hll_offset = f->len - v->hll_bytes;
	if (sbf_is_exact(v))
	{
		v->first_capacity = sbf_load64(v->buf + SBF_OFF_FIRST_CAPACITY);
		v->first_error = sbf_load_double(v->buf + SBF_OFF_FIRST_ERROR);
	}
}
