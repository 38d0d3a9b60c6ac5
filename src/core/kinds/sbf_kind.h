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
#include "sbf_kind_ops.h"

/*
 * The map from a stored kind code to its row (sbf_kind.c): codes
 * 1..SBF_KIND_ROWS.  Each kind's row is defined in the kind's own file.
 */
#define SBF_KIND_ROWS			5
/* codes are below this: a kind is a bit in an avoid mask */
#define SBF_KIND_CODES			32
extern const SbfKindOps *const sbf_kind_rows[SBF_KIND_ROWS];

#ifdef SBF_TEST_KINDS
/*
 * Unit tests only (never compiled into the server): one extra row, at its
 * code (SBF_KIND_ROWS < code < SBF_KIND_CODES), while it is set; or, at a
 * table row's code, a copy of that row that stands in for it (the compact
 * kind admitted to a directory).
 */
extern const SbfKindOps *sbf_kind_test_row;
/* and kinds (bit 1 << code) every choice leaves out while it is set */
extern unsigned sbf_kind_test_avoid;
#endif

/* The row of a kind, NULL if unknown. */
static inline const SbfKindOps *
sbf_kind_ops(uint8_t kind)
{
#ifdef SBF_TEST_KINDS
	if (sbf_kind_test_row != NULL && kind == sbf_kind_test_row->kind)
		return sbf_kind_test_row;
#endif
	if (kind >= 1 && kind <= SBF_KIND_ROWS)
		return sbf_kind_rows[kind - 1];
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

/* The offset of the kind code in a 16-byte descriptor. */
#define SBF_KIND_DESC_KIND	8

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
 * hashes at rate share, for a directory (SBF_KIND_IN_PLAIN5 or
 * SBF_KIND_IN_WINDOW4), leaving out the kinds whose bit (1 << code) is set
 * in avoid: the rows of that directory in their choose order (see
 * SbfKindOps), the smallest area winning, ties to the earlier.  Fills *g and
 * *bytes of the choice; SBF_E_PARAM or SBF_E_TOO_LARGE when none plans.
 */
extern SbfStatus sbf_kind_choose_in(uint8_t dir, uint64_t n, double share,
									unsigned avoid, SbfKindGeom *g,
									uint64_t *bytes);

/* The plain builder's choice: sbf_kind_choose_in(SBF_KIND_IN_PLAIN5, n, share, 0). */
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

/*
 * A lookup over several segments: how many of h[0..n) are found, taking the
 * hashes SBF_MARK_BATCH at a time; mark_batch(arg, batch, nb, hit) has every
 * segment mark its hits (sbf_kind_mark each), so one segment's cache misses
 * overlap before the next segment is probed.
 */
#define SBF_MARK_BATCH		16
typedef void (*SbfMarkBatch) (const void *arg, const uint64_t *h, size_t nb,
							  bool *hit);
extern size_t sbf_count_marked(const uint64_t *h, size_t n,
							   SbfMarkBatch mark_batch, const void *arg);

/* The kinds: each one file and its header. */
#include "sbf_kind_bloom.h"
#include "sbf_kind_blocked.h"
#include "sbf_kind_fused.h"
#include "sbf_kind_compact.h"

#endif							/* SBF_KIND_H */
