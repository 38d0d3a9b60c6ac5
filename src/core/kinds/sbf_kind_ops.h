/*
 * sbf_kind_ops.h
 *	  The types of the table of segment kinds (sbf_kind.h, whose header
 *	  comment gives the descriptor's layout): the decoded descriptor
 *	  (SbfKindGeom) and a kind's row of operations (SbfKindOps), with the
 *	  constants of their fields.  Each kind's own header includes this one,
 *	  so that sbf_kind.h, which includes every kind's header, is never
 *	  included back by them.  Pure C, no PostgreSQL headers.
 */
#ifndef SBF_KIND_OPS_H
#define SBF_KIND_OPS_H

#include "sbf_core.h"

#define SBF_KIND_DESC_BYTES		16

/* A decoded kind descriptor. */
typedef struct SbfKindGeom
{
	uint64_t	size;			/* bits, lines or segment count */
	uint8_t		kind;
	uint8_t		width;			/* k or f */
	uint8_t		arity;
	uint8_t		log2_len;
	uint8_t		attempt;
} SbfKindGeom;

/*
 * A byte range a probe reads (SbfKindOps.probe_ranges): offset within the
 * segment's data area and length.  A probe reads at most
 * SBF_PROBE_MAX_RANGES ranges of at most SBF_PROBE_MAX_BYTES bytes each, so
 * that a sliced reader can copy them into a small buffer of its own.
 */
#define SBF_PROBE_MAX_RANGES	4
#define SBF_PROBE_MAX_BYTES		64

typedef struct SbfProbeRange
{
	uint64_t	offset;
	uint32_t	len;			/* 1..SBF_PROBE_MAX_BYTES */
} SbfProbeRange;

/* One geometry key of sbf_info. */
typedef struct SbfInfoKey
{
	const char *key;
	uint64_t	value;
} SbfInfoKey;

#define SBF_INFO_MAX_KEYS		4

/*
 * The operations of one segment kind.  data is the segment's data area of
 * exactly bytes(g) bytes (any alignment); h are element hashes (hash id 1).
 * insert and merge are NULL for a kind that cannot do them.
 */
typedef struct SbfKindOps
{
	uint8_t		kind;
	const char *name;			/* sbf_info's "kind": "bloom", "blocked", "fused" */

	/* geometry ranges: SBF_OK or SBF_E_SEGMENT */
	SbfStatus	(*check_geom) (const SbfKindGeom *g);
	/* a checked geometry's data bytes; false when over SBF_MAX_STORED_BYTES */
	bool		(*bytes) (const SbfKindGeom *g, uint64_t *bytes);
	/* the data itself (padding bits 0): SBF_OK or SBF_E_BITS */
	SbfStatus	(*check_data) (const SbfKindGeom *g, const uint8_t *data);

	/*
	 * The directory fields beside the descriptor: count <= capacity (fused:
	 * count = capacity, 1..A) and the stored error p a true bound of the
	 * kind's rate at capacity (p >= rate_at(capacity), within 1e-9 for
	 * libm rounding), 0 < p < 0.5: SBF_OK or SBF_E_SEGMENT.  The bloom
	 * kinds check p's range only: formats 1-2 store the rate the segment was
	 * built for when full, which is its bound as 1.0-1.2 wrote it.
	 */
	SbfStatus	(*check_entry) (const SbfKindGeom *g, uint64_t capacity,
								uint64_t count, double p);

	/*
	 * The smallest geometry of this kind for n >= 1 elements at rate share
	 * (0 < share < 0.5) and its data bytes: SBF_OK, SBF_E_PARAM (this kind
	 * cannot reach share) or SBF_E_TOO_LARGE.
	 */
	SbfStatus	(*plan) (uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes);

	bool		(*contains) (const SbfKindGeom *g, const uint8_t *data, uint64_t h);
	/* how many of h[0..n) contains() finds, misses overlapped */
	size_t		(*count) (const SbfKindGeom *g, const uint8_t *data,
						  const uint64_t *h, size_t n);
	/* adds h; returns true when some bit changed (h was not yet found) */
	bool		(*insert) (const SbfKindGeom *g, uint8_t *data, uint64_t h);

	/*
	 * Fills data (bytes(g) bytes) from n >= 1 strictly ascending hashes: the
	 * same bytes for the same set.  May change g->attempt (fused).  SBF_OK,
	 * SBF_E_PARAM (not strictly ascending, or n beyond the geometry),
	 * SBF_E_NOMEM, or SBF_E_SEGMENT (fused: no seed peeled within
	 * SBF_FUSED_MAX_ATTEMPTS; data is then all zero).
	 */
	SbfStatus	(*build) (SbfKindGeom *g, uint8_t *data, const uint64_t *h,
						  size_t n, const SbfAllocator *a);

	/* dst |= src for two segments of the same geometry */
	void		(*merge) (const SbfKindGeom *g, uint8_t *dst, const uint8_t *src);

	/* the rate bound with n elements in the segment (expected; 1 if none) */
	double		(*rate_at) (const SbfKindGeom *g, uint64_t n);
	/* the rate of this data for any hash not inserted (from its bits) */
	double		(*rate_of) (const SbfKindGeom *g, const uint8_t *data);
	/*
	 * That rate where the stored error p may understate it, for a segment
	 * of count elements, exact where it takes at most about work steps,
	 * else a model with a margin (fpr_bound takes the larger of p and it:
	 * docs/format.md RATE BOUND); NULL: the stored p bounds the data's rate.
	 */
	double		(*bound_of) (const SbfKindGeom *g, const uint8_t *data,
							 uint64_t count, uint64_t work);

	/* ---- what the generic code asks of a kind instead of naming it ---- */

	/* the directories it may stand in: SBF_KIND_IN_PLAIN4, _PLAIN5, _WINDOW4 */
	uint8_t		dirs;

	/*
	 * Built from a complete set only (no insert): its directory count is
	 * the set's exact size (#), the builder stores its exact rate_at(n) as
	 * the bound, and a build may fail (SBF_E_SEGMENT: the builders then
	 * choose again without it).
	 */
	bool		complete;

	/*
	 * Its place in sbf_kind_choose_in (lower first; a later kind replaces
	 * the choice only when strictly smaller):
	 * - choose_max_n: not planned for more hashes than this (a complete
	 *   kind's scratch and build time);
	 * - choose_fallback: the directories in which it is planned only when no
	 *   earlier kind planned;
	 * - choose_beside_complete: planned only when a complete kind was
	 *   planned in the same choice (or tried);
	 * - choose_min_size: not chosen below this size once an earlier kind
	 *   planned (a geometry its own rate formula does not bound).
	 */
	uint8_t		choose_rank;
	uint8_t		choose_fallback;
	bool		choose_beside_complete;
	uint64_t	choose_max_n;
	uint64_t	choose_min_size;

	/*
	 * COUNTS (sbf_count.c): the model's rate with x elements, integrated
	 * over the count (docs/format4.md, section 7, Counts); NULL for a
	 * complete kind, whose count is exact.
	 */
	double		(*model_rate) (const SbfKindGeom *g, double x);
	/*
	 * model_rate at x = h i for i = 0..steps into out[0..steps], the same
	 * values bit for bit (a kind whose model shares work between points);
	 * NULL: model_rate point by point.
	 */
	void		(*model_rates) (const SbfKindGeom *g, double h, int steps,
								double *out);

	/*
	 * sbf_info and sbf_expected_fpr, from the directory entry alone: the
	 * fill expected after seg->count inserts, and the rate expected then.
	 */
	double		(*expected_fill) (const SbfSegment *seg);
	double		(*expected_rate) (const SbfKindGeom *g, uint64_t count);

	/*
	 * the bits of its data that hold set bits (fill, union limits); NULL:
	 * every bit (sbf_kind_fill_bits)
	 */
	uint64_t	(*fill_bits) (const SbfKindGeom *g, uint64_t bytes);

	/*
	 * A sliced read (src/pg/sbf_slice.c), which fetches only the TOAST
	 * chunks a probe touches:
	 * - probe_span: about how many chunks a present element's probe fetches
	 *   in a segment of g (its cost estimate); NULL when the segment is read
	 *   whole;
	 * - probe_ranges: the byte ranges of the data area that contains(h)
	 *   reads, into out (at most SBF_PROBE_MAX_RANGES, each inside the area
	 *   and at most SBF_PROBE_MAX_BYTES long); returns how many;
	 * - probe_at: contains(h)'s answer, bit for bit, from bytes[i] pointing
	 *   at a copy of range i of probe_ranges(g, h).
	 * A row with probe_span but no probe_ranges is a flat bit array probed
	 * by the bits of sbf_segment_probes (kind 1: k bytes, each tested as
	 * soon as it is at hand).
	 */
	uint32_t	(*probe_span) (const SbfKindGeom *g);
	int			(*probe_ranges) (const SbfKindGeom *g, uint64_t h,
								 SbfProbeRange *out);
	bool		(*probe_at) (const SbfKindGeom *g, uint64_t h,
							 const uint8_t *const *bytes);

	/*
	 * sbf_info's geometry keys of the segment after "bits" (which every
	 * kind shows: its fill_bits), in order, into out (at most
	 * SBF_INFO_MAX_KEYS - 1); returns how many.  g is the segment's
	 * descriptor.
	 */
	int			(*describe) (const SbfKindGeom *g, SbfInfoKey *out);

	/* how a union merges two segments of the kind (sbf_union4.c) */
	uint8_t		union_rule;

	/*
	 * The slice of g starting unit units in, at most units 8-byte words:
	 * its geometry and byte offset; returns the units taken (0 past the
	 * end).  NULL: the data is one slice.
	 */
	uint64_t	(*slice) (const SbfKindGeom *g, uint64_t unit, uint64_t words,
						  SbfKindGeom *sub, uint64_t *offset);

	/* a lookup plan of one such segment counts through count() (batched) */
	bool		count_batched;

	/*
	 * How a windowed lookup probes the kind's segments of a chunk
	 * (SBF_WIN_LANE_*, src/core/window/sbf_window_int.h): one by one through
	 * contains, or in a lane that shares the work of a hash between them.
	 */
	uint8_t		win_lane;

	/*
	 * count() of a lookup over several segments: probes (batched,
	 * prefetching) only the hashes of h[0..n) whose hit is false, and sets
	 * hit of those found.  NULL: sbf_kind_mark tests hash by hash.
	 */
	void		(*mark) (const SbfKindGeom *g, const uint8_t *data,
						 const uint64_t *h, size_t n, bool *hit);

	/*
	 * Optional: a data area a lookup plan decodes once into decode_count(g)
	 * 64-bit keys (decode: SBF_OK, SBF_E_BITS when the data is not valid,
	 * SBF_E_NOMEM) and probes through
	 * decoded_has instead of contains, answering the same (the compact
	 * kind: its fingerprints, ascending).  NULL: probed from its bytes.
	 * decode allocates nothing: a plan calls it inside a lookup, with a
	 * NULL (sbf_plan.c's late_has).
	 */
	uint64_t	(*decode_count) (const SbfKindGeom *g);
	SbfStatus	(*decode) (const SbfKindGeom *g, const uint8_t *data, uint64_t *keys,
						   const SbfAllocator *a);
	bool		(*decoded_has) (const SbfKindGeom *g, const uint64_t *keys, uint64_t h);
} SbfKindOps;

/* SbfKindOps.dirs */
#define SBF_KIND_IN_PLAIN4		0x01	/* a plain version-4 directory */
#define SBF_KIND_IN_WINDOW4		0x02	/* a windowed version-4 directory */
#define SBF_KIND_IN_PLAIN5		0x04	/* a plain version-5 directory */

/* SbfKindOps.win_lane */
#define SBF_WIN_LANE_OWN		0	/* each segment by its contains */
#define SBF_WIN_LANE_MIX		1	/* the shared mixes r_i (sbf_win_mix): kind 4 */
#define SBF_WIN_LANE_LINE		2	/* the shared probes, each from its own line: blocked */
#define SBF_WIN_LANE_FUSE		3	/* the shared mixes of seed number 0: fused */

/* SbfKindOps.union_rule (docs/format4.md, section 7) */
#define SBF_UNION_APPEND		0	/* never merges: appended */
#define SBF_UNION_FILL			1	/* 1.2's rule: fill within the fill expected at capacity */
#define SBF_UNION_RATE			2	/* the OR's exact rate within the larger p */

/*
 * The entries of a row that every kind fills, from its functions named
 * prefix_check_geom, _bytes, _check_data, _check_entry, _plan, _contains,
 * _count, _build, _rate_at and _rate_of (SBF_KIND_CHECKS and SBF_KIND_USES
 * in sbf_kind.h declare them).
 */
#define SBF_KIND_ROW(code, kind_name, prefix) \
	.kind = code, \
	.name = kind_name, \
	.check_geom = prefix##_check_geom, \
	.bytes = prefix##_bytes, \
	.check_data = prefix##_check_data, \
	.check_entry = prefix##_check_entry, \
	.plan = prefix##_plan, \
	.contains = prefix##_contains, \
	.count = prefix##_count, \
	.build = prefix##_build, \
	.rate_at = prefix##_rate_at, \
	.rate_of = prefix##_rate_of

/* The entries of a row read by slices: prefix_probe_span, _ranges and _at. */
#define SBF_KIND_SLICED_READS(prefix) \
	.probe_span = prefix##_probe_span, \
	.probe_ranges = prefix##_probe_ranges, \
	.probe_at = prefix##_probe_at

/*
 * The count and mark ops (prefix_count, as SBF_KIND_USES declares it, and a
 * static prefix_mark) of a kind whose one batched loop does both:
 * count_or_mark(g, data, h, n, hit) counts the hashes found, and with hit
 * not NULL probes only those not yet hit and marks the ones it finds.
 */
#define SBF_KIND_COUNT_AND_MARK(prefix, count_or_mark) \
size_t \
prefix##_count(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h, \
			   size_t n) \
{ \
	return count_or_mark(g, data, h, n, NULL); \
} \
static void \
prefix##_mark(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h, \
			  size_t n, bool *hit) \
{ \
	(void) count_or_mark(g, data, h, n, hit); \
}

/* The bits of a segment's data that hold set bits (SbfKindOps.fill_bits). */
static inline uint64_t
sbf_kind_fill_bits(const SbfKindOps *ops, const SbfKindGeom *g, uint64_t bytes)
{
	return ops->fill_bits != NULL ? ops->fill_bits(g, bytes) : bytes * 8;
}

#endif							/* SBF_KIND_OPS_H */
