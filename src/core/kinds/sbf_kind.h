/*
 * sbf_kind.h
 *	  Segment kinds of format 4: one table of operations per kind, so that a
 *	  directory walk, a probe, a builder or a validator asks the table instead
 *	  of switching on the kind.  Pure C, no PostgreSQL headers.  The byte
 *	  layout of every kind is specified in docs/format4.md (the one format
 *	  document); this header only names it.
 *
 *	  A segment of format 4 is a 16-byte kind descriptor (in its directory
 *	  entry) and a data area of sizeof bytes (after the directory, 8-byte
 *	  multiples).  The descriptor, little-endian:
 *
 *		+0	8	size		bloom: bits m; blocked: lines L; fused: segment
 *						count S
 *		+8	1	kind		SBF_KIND_BLOOM, SBF_KIND_BLOCKED, SBF_KIND_FUSED
 *		+9	1	width		bloom, blocked: probes k; fused: fingerprint bits f
 *		+10	1	arity		fused: 3 or 4; else 0
 *		+11	1	log2 len	fused: log2 of the segment length; else 0
 *		+12	1	attempt		fused: the seed number that peeled; else 0
 *		+13	3	reserved	0
 */
#ifndef SBF_KIND_H
#define SBF_KIND_H

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

	/* ---- what the generic code asks of a kind instead of naming it ---- */

	/* the directories it may stand in: SBF_KIND_IN_PLAIN4 | SBF_KIND_IN_WINDOW4 */
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

	/* the bits of its data that hold set bits (fill, union limits) */
	uint64_t	(*fill_bits) (const SbfKindGeom *g, uint64_t bytes);

	/*
	 * A sliced read (src/pg/sbf_slice.c): the chunks a present element's probe
	 * fetches in this segment; NULL when the segment is read whole.
	 */
	uint32_t	(*probe_span) (const SbfSegment *seg);

	/*
	 * sbf_info's geometry keys of the segment, in order, into out (at most
	 * SBF_INFO_MAX_KEYS); returns how many.  seg is the directory entry,
	 * g and bytes its descriptor and data length.
	 */
	int			(*describe) (const SbfSegment *seg, const SbfKindGeom *g,
							 uint64_t bytes, SbfInfoKey *out);

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
	 * count() of a lookup over several segments: probes (batched,
	 * prefetching) only the hashes of h[0..n) whose hit is false, and sets
	 * hit of those found.  NULL: sbf_kind_mark tests hash by hash.
	 */
	void		(*mark) (const SbfKindGeom *g, const uint8_t *data,
						 const uint64_t *h, size_t n, bool *hit);
} SbfKindOps;

/* SbfKindOps.dirs */
#define SBF_KIND_IN_PLAIN4		0x01	/* a plain version-4 directory */
#define SBF_KIND_IN_WINDOW4		0x02	/* a windowed version-4 directory */

/* SbfKindOps.union_rule (docs/format4.md, section 7) */
#define SBF_UNION_APPEND		0	/* never merges: appended */
#define SBF_UNION_FILL			1	/* 1.2's rule: fill within the fill expected at capacity */
#define SBF_UNION_RATE			2	/* the OR's exact rate within the larger p */

/*
 * The map from a stored kind code to its row (sbf_kind.c): codes
 * 1..SBF_KIND_ROWS.  Each kind's row is defined in the kind's own file.
 */
#define SBF_KIND_ROWS			4
/* codes are below this: a kind is a bit in an avoid mask */
#define SBF_KIND_CODES			32
extern const SbfKindOps *const sbf_kind_rows[SBF_KIND_ROWS];

#ifdef SBF_TEST_KINDS
/*
 * Unit tests only (never compiled into the server): one extra row, at its
 * code (SBF_KIND_ROWS < code < SBF_KIND_CODES), while it is set.
 */
extern const SbfKindOps *sbf_kind_test_row;
/* and kinds (bit 1 << code) every choice leaves out while it is set */
extern unsigned sbf_kind_test_avoid;
#endif

/* The row of a kind, NULL if unknown. */
static inline const SbfKindOps *
sbf_kind_ops(uint8_t kind)
{
	if (kind >= 1 && kind <= SBF_KIND_ROWS)
		return sbf_kind_rows[kind - 1];
#ifdef SBF_TEST_KINDS
	if (sbf_kind_test_row != NULL && kind == sbf_kind_test_row->kind)
		return sbf_kind_test_row;
#endif
	return NULL;
}

/* The kinds whose complete flag is set, as an avoid mask (1 << code). */
extern unsigned sbf_kind_complete_mask(void);

/*
 * What a kind file defines for its row: sbf_<p>_check_geom ... sbf_<p>_rate_of,
 * the members of SbfKindOps in order (a kind without insert or merge leaves
 * those two out and its row names NULL).
 */
#define SBF_KIND_CHECKS(p) \
	extern SbfStatus sbf_##p##_check_geom(const SbfKindGeom *g); \
	extern bool sbf_##p##_bytes(const SbfKindGeom *g, uint64_t *bytes); \
	extern SbfStatus sbf_##p##_check_data(const SbfKindGeom *g, const uint8_t *data); \
	extern SbfStatus sbf_##p##_check_entry(const SbfKindGeom *g, uint64_t capacity, \
										   uint64_t count, double p_); \
	extern double sbf_##p##_rate_at(const SbfKindGeom *g, uint64_t n); \
	extern double sbf_##p##_rate_of(const SbfKindGeom *g, const uint8_t *data)
#define SBF_KIND_USES(p) \
	extern SbfStatus sbf_##p##_plan(uint64_t n, double share, SbfKindGeom *g, \
									uint64_t *bytes); \
	extern bool sbf_##p##_contains(const SbfKindGeom *g, const uint8_t *data, \
								   uint64_t h); \
	extern size_t sbf_##p##_count(const SbfKindGeom *g, const uint8_t *data, \
								  const uint64_t *h, size_t n); \
	extern SbfStatus sbf_##p##_build(SbfKindGeom *g, uint8_t *data, \
									 const uint64_t *h, size_t n, \
									 const SbfAllocator *a)
#define SBF_KIND_GROWS(p) \
	extern bool sbf_##p##_insert(const SbfKindGeom *g, uint8_t *data, uint64_t h); \
	extern void sbf_##p##_merge(const SbfKindGeom *g, uint8_t *dst, const uint8_t *src)

/*
 * Decodes a 16-byte descriptor: SBF_E_SEGMENT for an unknown kind or nonzero
 * reserved bytes, else the row's check_geom.
 */
extern SbfStatus sbf_kind_decode(const uint8_t *desc, SbfKindGeom *g);
/* Writes a 16-byte descriptor. */
extern void sbf_kind_encode(const SbfKindGeom *g, uint8_t *desc);

/*
 * The one check of a segment that comes in: descriptor, data length and data.
 * avail is the bytes available from data on; *used receives bytes(g).
 */
extern SbfStatus sbf_kind_check(const uint8_t *desc, const uint8_t *data,
								size_t avail, SbfKindGeom *g, uint64_t *used);

/*
 * Payload offset where the data area of a segment of geometry g begins when
 * the previous area (or the directory) ends at end (docs/format4.md,
 * section 2, "Line alignment"): a blocked area of SBF_BLOCKED_ALIGN_LINES lines or more
 * begins at the next offset = 60 (mod 64), the bytes between being zero;
 * every other area at end.  *pad receives the padding bytes (0..56 when end
 * is = 4 (mod 8), as every format-4 area end is).
 */
extern size_t sbf_kind_area_start(const SbfKindGeom *g, size_t end, size_t *pad);

/* The next area's start in a layout walk (see sbf_kind.c); UINT64_MAX past max. */
extern uint64_t sbf_kind_area_place(const SbfKindGeom *g, uint64_t bytes,
									uint64_t *off, uint64_t max);

/*
 * The one choice of a segment's kind for a complete set of n distinct
 * hashes at rate share, for a directory (SBF_KIND_IN_PLAIN4 or
 * SBF_KIND_IN_WINDOW4), leaving out the kinds whose bit (1 << code) is set
 * in avoid: the rows of that directory in their choose order (see
 * SbfKindOps), the smallest area winning, ties to the earlier.  Fills *g and
 * *bytes of the choice; SBF_E_PARAM or SBF_E_TOO_LARGE when none plans.
 */
extern SbfStatus sbf_kind_choose_in(uint8_t dir, uint64_t n, double share,
									unsigned avoid, SbfKindGeom *g,
									uint64_t *bytes);

/* The plain builder's choice: sbf_kind_choose_in(SBF_KIND_IN_PLAIN4, n, share, 0). */
extern SbfStatus sbf_kind_choose(uint64_t n, double share, SbfKindGeom *g,
								 uint64_t *bytes);

/*
 * build() of a kind that inserts hash by hash: SBF_E_PARAM unless h[0..n)
 * ascends strictly; else bytes of data zeroed, each hash inserted.
 */
extern SbfStatus sbf_kind_build_by_insert(const SbfKindGeom *g, uint8_t *data,
										  uint64_t bytes, const uint64_t *h,
										  size_t n, const SbfAllocator *a,
										  bool (*insert) (const SbfKindGeom *,
														  uint8_t *, uint64_t));

/*
 * The builder's geometry for n hashes at share (sbf_build.c):
 * sbf_kind_choose when fused_ok, else the choice without the complete
 * kinds.
 */
extern SbfStatus sbf_build_plan(uint64_t n, double share, bool fused_ok,
								SbfKindGeom *g, uint64_t *bytes);

/* What sbf_info shows of one segment (sbf_segments_describe). */
typedef struct SbfSegmentDesc
{
	SbfSegment	seg;
	SbfKindGeom g;
	uint64_t	bytes;			/* its data bytes */
	double		expected_fill;	/* sbf_segment_expected_fill */
} SbfSegmentDesc;

/*
 * Every segment of a plain segmented view into out[0 .. nsegments), in one
 * walk of the directory (sbf_get_segment and sbf_segment_geom walk from
 * the start each: a loop over them is quadratic in segments).
 */
extern void sbf_segments_describe(const SbfView *v, SbfSegmentDesc *out);

/* The kind geometry and data bytes of segment i of a plain view. */
extern void sbf_segment_geom(const SbfView *v, uint32_t i, SbfKindGeom *g,
							 uint64_t *bytes);

/*
 * sbf_info's geometry keys of a described segment (the server's sbf_info
 * and the Python package's both print these): its kind's describe.
 */
extern int	sbf_segment_info_keys(const SbfSegmentDesc *d, SbfInfoKey *out);

/* The mark of g's kind (a per-hash contains for kinds without one). */
extern void sbf_kind_mark(const SbfKindGeom *g, const uint8_t *data,
						  const uint64_t *h, size_t n, bool *hit);

/* The kinds: each one file and its header. */
#include "sbf_kind_bloom.h"
#include "sbf_kind_blocked.h"
#include "sbf_kind_fused.h"

#endif							/* SBF_KIND_H */
