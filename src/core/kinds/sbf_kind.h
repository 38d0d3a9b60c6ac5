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

#define SBF_KIND_BLOOM			1	/* formats 1-2's segment: double hashing */
#define SBF_KIND_BLOCKED		2	/* an element's probes in one 512-bit line */
#define SBF_KIND_FUSED			3	/* binary fuse filter of a complete set */
#define SBF_KIND_WBLOOM			4	/* format 3's segment: windowed positions */

#define SBF_KIND_DESC_BYTES		16

/* blocked: a line is one 64-byte cache line of 512 bits */
#define SBF_BLOCKED_LINE_BYTES	64
#define SBF_BLOCKED_LINE_BITS	512
#define SBF_BLOCKED_MAX_K		32
/* more lines than this would exceed SBF_MAX_STORED_BYTES */
#define SBF_BLOCKED_MAX_LINES \
	((uint64_t) SBF_MAX_STORED_BYTES / SBF_BLOCKED_LINE_BYTES)

/* fused */
#define SBF_FUSED_MAX_F			32
#define SBF_FUSED_MAX_LOG2_LEN	18
/* seeds tried before a build gives up (the caller then builds blocked) */
#define SBF_FUSED_MAX_ATTEMPTS	64
/* slots are indexed with uint32 in the builder */
#define SBF_FUSED_MAX_SLOTS		((uint64_t) UINT32_MAX)

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
} SbfKindOps;

/*
 * The one table of segment kinds (sbf_kind.c), row kind - 1: a new kind is
 * one new file and one row there.
 */
#define SBF_KIND_ROWS			4
extern const SbfKindOps sbf_kind_rows[SBF_KIND_ROWS];

#define sbf_kind_bloom_ops		(sbf_kind_rows[SBF_KIND_BLOOM - 1])
#define sbf_kind_blocked_ops	(sbf_kind_rows[SBF_KIND_BLOCKED - 1])
#define sbf_kind_fused_ops		(sbf_kind_rows[SBF_KIND_FUSED - 1])
#define sbf_kind_wbloom_ops		(sbf_kind_rows[SBF_KIND_WBLOOM - 1])

/* The row of a kind, NULL if unknown. */
static inline const SbfKindOps *
sbf_kind_ops(uint8_t kind)
{
	if (kind < 1 || kind > SBF_KIND_ROWS)
		return NULL;
	return &sbf_kind_rows[kind - 1];
}

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

SBF_KIND_CHECKS(bloom);
SBF_KIND_USES(bloom);
SBF_KIND_GROWS(bloom);
SBF_KIND_USES(wbloom);
extern bool sbf_wbloom_insert(const SbfKindGeom *g, uint8_t *data, uint64_t h);
SBF_KIND_CHECKS(blocked);
SBF_KIND_USES(blocked);
SBF_KIND_GROWS(blocked);
SBF_KIND_CHECKS(fused);
SBF_KIND_USES(fused);

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
#define SBF_BLOCKED_ALIGN_LINES	64
extern size_t sbf_kind_area_start(const SbfKindGeom *g, size_t end, size_t *pad);

/* The next area's start in a layout walk (see sbf_kind.c); UINT64_MAX past max. */
extern uint64_t sbf_kind_area_place(const SbfKindGeom *g, uint64_t bytes,
									uint64_t *off, uint64_t max);

/*
 * Which kind a complete set of n distinct hashes is written as at rate
 * share: fused when it plans and is smaller than blocked, else blocked.
 * Fills *g and *bytes of the choice.
 */
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
 * The largest complete set written fused (docs/format4.md, section 6): a
 * fused build costs 2-3x a blocked one, so above this the builder writes
 * blocked.
 */
#define SBF_FUSED_MAX_BUILD		((uint64_t) 1 << 22)

/*
 * The builder's geometry for n hashes at share (sbf_build.c):
 * sbf_kind_choose up to SBF_FUSED_MAX_BUILD hashes when fused_ok, else
 * blocked.
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

/* ---- blocked internals shared with tests and benchmarks ---- */

/* Putze et al.'s rate of a blocked filter with lambda elements a line, k probes. */
extern double sbf_blocked_fpr(double lambda, uint32_t k);

/*
 * Probes 0..k-1 of hash h in its line (0..511), the same in every blocked
 * segment (the line: sbf_blocked_line in sbf_window.h).
 */
extern void sbf_blocked_probes(uint64_t h, uint32_t k, uint16_t *bits);

/*
 * count() of a lookup over several segments: probes (batched, prefetching)
 * only the hashes of h[0..n) whose hit is false, and sets hit of those found.
 */
extern void sbf_blocked_mark(const SbfKindGeom *g, const uint8_t *data,
							 const uint64_t *h, size_t n, bool *hit);
extern void sbf_fused_mark(const SbfKindGeom *g, const uint8_t *data,
						   const uint64_t *h, size_t n, bool *hit);
extern void sbf_bloom_mark(const SbfKindGeom *g, const uint8_t *data,
						   const uint64_t *h, size_t n, bool *hit);
/* The mark of g's kind (a per-hash contains for kinds without one). */
extern void sbf_kind_mark(const SbfKindGeom *g, const uint8_t *data,
						  const uint64_t *h, size_t n, bool *hit);

/* ---- fused internals shared with tests and benchmarks ---- */

/* The mixes of h for seed number attempt: x = sbf_mix64(h + seed), x2 = sbf_mix64(x). */
extern void sbf_fused_mixes(uint8_t attempt, uint64_t h, uint64_t *x, uint64_t *x2);

/*
 * contains() of a fused segment from the mixes of sbf_fused_mixes for its
 * seed number (g->attempt), its area being nbytes bytes.
 */
extern bool sbf_fused_has_mixed(const SbfKindGeom *g, const uint8_t *data,
								uint64_t nbytes, uint64_t x, uint64_t x2);

/* plan() for a given arity (3 or 4). */
extern SbfStatus sbf_fused_plan_arity(uint64_t n, double share, uint8_t arity,
									  SbfKindGeom *g, uint64_t *bytes);

#endif							/* SBF_KIND_H */
