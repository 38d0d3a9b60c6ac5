/*
 * sbf_window.h
 *	  Pure-C core of windowed filters: reading, the validator's windowed
 *	  branch, lookups since a bucket, and the mutable form that adds, slides,
 *	  unites and compacts.  No PostgreSQL headers.  Two layouts are read:
 *	  version 3 (1.2; "The windowed form" in docs/format.md, WINDOWED FORM in
 *	  sbf_core.h) and version 4 with flag bit 7 (docs/format4.md, section 8),
 *	  which is what every write produces:
 *
 *		header (40 bytes)	version 3's, with byte 0 = 4 and flags STARTED (bit 0)
 *							and WINDOWED (bit 7), every other bit 0
 *		directory			24 bytes an entry: age u16 (< B), reserved u16 = 0,
 *							count u32, 16-byte kind descriptor (sbf_kind.h) of
 *							kind 2 (blocked), 3 (fused) or 4 (version 3's
 *							windowed bloom, relabelled); strictly ascending by
 *							(age, descriptor bytes, count, data)
 *		data areas			in directory order, a blocked area of 64 lines or
 *							more after zero padding to offset = 60 (mod 64)
 *		pairs				as version 3: n hashes u64 ascending, then n ages u16
 *
 *	  A reader rejects what version 3's reader rejects and: flag bits other
 *	  than those two, WINDOWED clear, a nonzero reserved field or descriptor
 *	  byte, kind 1 or an unknown kind, nonzero padding, and a bucket whose
 *	  segments' rates (each kind's rate_of) sum to more than e/B.
 *
 *	  This header is the subsystem's public face; its files, their layers
 *	  (reading a value, building a bucket, writing a value) and what they
 *	  share privately are in sbf_window_int.h.
 */
#ifndef SBF_WINDOW_H
#define SBF_WINDOW_H

#include "sbf_core.h"
#include "sbf_kind.h"

/* the layout constants of the windowed form are in sbf_core.h */
#define SBF_WIN_MAX_BUCKETS		1000
#define SBF_WIN_MAX_SEGMENTS	65535
#define SBF_WIN_MAX_WIDTH		((int64_t) 3650 * 86400 * 1000000)
/* the newest bucket's pairs become a segment at this many (live adds) */
#define SBF_WIN_OPEN_MAX		4096
/* a bucket's f sum may exceed its budget P by this factor (rounding) */
#define SBF_WIN_BUDGET_SLACK	(1.0 + 1e-9)

/* "all buckets": a since-bucket older than any window */
#define SBF_WIN_ALL				INT64_MIN

typedef struct SbfWinParams
{
	int64_t		width;			/* microseconds, 1..SBF_WIN_MAX_WIDTH */
	uint32_t	buckets;		/* 1..SBF_WIN_MAX_BUCKETS */
	double		error_rate;		/* 0 < e < 0.5 */
} SbfWinParams;

/*
 * One decoded segment: its kind row and geometry (a version-3 segment is
 * kind 4, windowed bloom), its data area of bytes bytes, which bits points
 * to (into the payload, or a mutable copy).
 */
typedef struct SbfWinSeg
{
	uint16_t	age;
	uint32_t	count;
	SbfKindGeom g;
	const SbfKindOps *ops;
	uint64_t	bytes;
	const uint8_t *bits;
	bool		owned;			/* mutable form: bits allocated by it */
	double		fpr;			/* mutable form: sbf_win_segment_fpr */
} SbfWinSeg;

/* A read-only view of a validated (or parsed) windowed payload. */
typedef struct SbfWinView
{
	const uint8_t *buf;
	size_t		len;
	uint8_t		version;		/* 3 or 4 */
	uint8_t		flags;
	uint16_t	buckets;
	uint32_t	nsegments;
	uint32_t	npairs;
	int64_t		width;
	int64_t		newest;
	double		error_rate;
	size_t		bits_offset;	/* first segment's words */
	size_t		pairs_offset;	/* pair hashes; their ages follow */
} SbfWinView;

/*
 * Whether a payload is in the windowed form: version 3, or version 4 with
 * flag bit 7 (WINDOWED) set.
 */
static inline bool
sbf_is_window(const uint8_t *buf, size_t len)
{
	return len >= 1 && (buf[0] == SBF_WIN_VERSION ||
						(buf[0] == SBF_WIN4_VERSION && len >= 2 &&
						 (buf[1] & SBF_WIN_FLAG_WINDOWED) != 0));
}

/* Whether a view of sbf_validate or sbf_view_of is of a windowed value. */
static inline bool
sbf_view_windowed(const SbfView *v)
{
	return sbf_is_window(v->buf, v->len);
}

/* Checks parameters: SBF_OK or SBF_E_PARAM. */
extern SbfStatus sbf_win_params_check(const SbfWinParams *p);

/* Floor of us / width: the bucket holding a time (microseconds since 1970). */
extern int64_t sbf_win_bucket_of(int64_t unix_us, int64_t width);

/*
 * Whether bucket t's start and end, t * width and (t + 1) * width, fit in an
 * int64 of microseconds: the buckets a value may have as its newest.
 */
extern bool sbf_win_bucket_in_range(int64_t t, int64_t width);

/* newest - b for b <= newest, exact in unsigned arithmetic (never wraps). */
extern uint64_t sbf_win_age_of(int64_t newest, int64_t b);

/*
 * The validator's windowed branch (sbf_validate dispatches version 3 here):
 * everything "WINDOWED FORM" lists, in time linear in len.
 */
extern SbfStatus sbf_win_validate(const uint8_t *buf, size_t len, SbfWinView *v);

/*
 * Header and directory only (O(segments)): enough for every later read to
 * stay inside the value, and the directory's ages in range and ascending,
 * which lookups rely on.  For values validated when they were stored;
 * readers that decode the pairs also run sbf_win_check_pairs.
 */
extern SbfStatus sbf_win_parse(const uint8_t *buf, size_t len, SbfWinView *v);

/*
 * The pairs of a parsed view: hashes ascending, ages below B (O(pairs)).
 * sbf_win_validate runs it; so does every reader that decodes the pairs.
 */
extern SbfStatus sbf_win_check_pairs(const SbfWinView *v);

/*
 * Directory entry j of a parsed view, with its data; off is the running data
 * offset (start at v->bits_offset; version 4's line-alignment padding is
 * skipped).  sbf_win_entry is the checked form the parse uses: SBF_OK,
 * SBF_E_SEGMENT (a geometry or kind not allowed) or SBF_E_TRUNCATED.
 */
extern void sbf_win_read_segment(const SbfWinView *v, uint32_t j, size_t *off,
								 SbfWinSeg *seg);
extern SbfStatus sbf_win_entry(const SbfWinView *v, uint32_t j, size_t *off,
							   SbfWinSeg *seg);

/* The directory entry bytes of a view's version (16 or 24). */
static inline size_t
sbf_win_entry_bytes(const SbfWinView *v)
{
	return v->version == SBF_WIN_VERSION ? SBF_WIN_SEGDIR_BYTES : SBF_WIN4_SEGDIR_BYTES;
}

/*
 * Canonical order of version-4 segments: (age, the 16 descriptor bytes,
 * count), then the data; with bits_first (age, descriptor, data, count).
 */
extern int	sbf_win_segment_cmp(const SbfWinSeg *a, const SbfWinSeg *b,
								bool bits_first);

/*
 * sbf_win_mulhi (sbf_mulhi.h), sbf_blocked_line (sbf_kind_blocked.h) and
 * the windowed bloom positions sbf_win_mix, sbf_win_position
 * (sbf_kind_bloom.h) come with sbf_kind.h.
 */

/* Membership of hash h in one segment. */
extern bool sbf_win_segment_has(const SbfWinSeg *seg, uint64_t h);

/*
 * False-positive rate of a segment for a probe never added, from its data
 * (the kind's rate_of: windowed bloom (ones / m)^k, exact for the independent
 * positions of sbf_win_position; blocked the mean over lines of
 * (ones/512)^k; fused 2^-f).  O(data bytes).
 */
extern double sbf_win_segment_fpr(const SbfWinSeg *seg);

/* The budget of one bucket: e / B. */
static inline double
sbf_win_budget(const SbfWinView *v)
{
	return v->error_rate / (double) v->buckets;
}

/*
 * The largest age a lookup since bucket "since" counts: t - since (-1: none;
 * B - 1 or more: all).  SBF_WIN_ALL counts all.
 */
extern int64_t sbf_win_max_age(const SbfWinView *v, int64_t since);

/* Membership of hash h in the buckets of age <= max_age. */
extern bool sbf_win_contains(const SbfWinView *v, uint64_t h, int64_t max_age);

/* How many of n hashes sbf_win_contains finds (max_age as there). */
extern size_t sbf_win_count_contained(const SbfWinView *v, const uint64_t *h,
									  size_t n, int64_t max_age);

/*
 * Distinct-count estimate of the window: the pairs (exact, one per hash) plus
 * the segments' counts, each the elements whose newest bucket is that
 * segment's (COUNTS in sbf_core.h).  Exact while the window holds only pairs
 * and for sbf_window_agg's windows; live adds and unions keep it within the
 * segments' false-positive rates, except that a union of two windows that
 * both compacted the same element counts it twice.
 */
extern double sbf_win_cardinality(const SbfWinView *v);

/* Sum of the segments' false-positive rates: the bound for any since. */
extern double sbf_win_fpr_bound(const SbfWinView *v);

/* ---- the mutable form (sbf_window_write.c) ---- */

typedef struct SbfWindow
{
	SbfWinParams p;
	uint8_t		flags;
	int64_t		newest;
	uint32_t	nsegs;
	uint32_t	segcap;
	SbfWinSeg  *segs;
	uint32_t	npairs;
	uint32_t	paircap;
	uint64_t   *hash;			/* ascending */
	uint16_t   *age;
	/*
	 * Live adds: the pair count below which the newest bucket is not tried
	 * again after its pairs did not fit in a segment (0: try at
	 * SBF_WIN_OPEN_MAX); a slide or union resets it.
	 */
	uint32_t	open_retry;
	/*
	 * Kinds (bit 1 << kind) compaction must not choose: 0 in every window
	 * the extension makes; tests set it to write the kinds a size would not
	 * choose (blocked, which is never the smallest).
	 */
	unsigned	avoid_kinds;
	/*
	 * Live adds: new pairs not yet among the sorted ones (sbf_window_live.c;
	 * NULL: none).  Every function below that reads or changes the pairs
	 * merges them first (sbf_win_settle).
	 */
	struct SbfWinLive *live;
	/* single adds inserted in place so far (the first few: sbf_window_live.c) */
	uint32_t	direct_adds;
	const SbfAllocator *a;
} SbfWindow;

typedef struct SbfWinLive SbfWinLive;

/*
 * Merges the pairs that live adds left waiting into the sorted pairs
 * (w->hash, w->age); every reader of the pairs calls it first.
 */
extern SbfStatus sbf_win_settle(SbfWindow *w);

/* An empty, unstarted window. */
extern void sbf_win_init(SbfWindow *w, const SbfWinParams *p, const SbfAllocator *a);

/* Decodes a view; segment bits stay borrowed from v->buf (keep it alive). */
extern SbfStatus sbf_win_load(SbfWindow *w, const SbfWinView *v, const SbfAllocator *a);

/*
 * Slides the window so that bucket b is the newest (no-op if b <= t).
 * SBF_E_PARAM, the window unchanged, unless sbf_win_bucket_in_range(b).
 */
extern SbfStatus sbf_win_slide(SbfWindow *w, int64_t b);

/*
 * Adds hash h at bucket b (WRITES).  SBF_E_PARAM, the window unchanged,
 * unless sbf_win_bucket_in_range(b); a b older than the window changes
 * nothing (SBF_OK).
 */
extern SbfStatus sbf_win_add(SbfWindow *w, int64_t b, uint64_t h);

/*
 * Adds the n hashes h at bucket b: the same window, byte for byte, as n
 * calls of sbf_win_add in that order, each segment asked about many hashes
 * at once (sbf_window_batch.c).  Both take amortised constant time per hash
 * at any size of the bucket: new pairs wait in a hashed side buffer and are
 * merged into the sorted pairs when the newest bucket is converted into a
 * segment or the pairs are read (sbf_window_live.c).
 */
extern SbfStatus sbf_win_add_many(SbfWindow *w, int64_t b, const uint64_t *h,
								  size_t n);

/*
 * w := w UNION src (w copies the segments it keeps: src may go after the
 * call); SBF_E_INCOMPATIBLE, SBF_E_NOMEM or SBF_E_OVER_BUDGET leave w unusable.
 */
extern SbfStatus sbf_win_union(SbfWindow *w, const SbfWinView *src);
/*
 * The same with an explicit budget (0: the inputs' own error_rate, which
 * must be equal): the result has error_rate budget, and *need (when not
 * NULL) is the smallest error_rate whose share every bucket fits.
 */
extern SbfStatus sbf_win_union_budget(SbfWindow *w, const SbfWinView *src,
									  double budget, double *need);

/* Gives w the error_rate budget; SBF_E_OVER_BUDGET if a bucket does not fit. */
extern SbfStatus sbf_win_rebudget(SbfWindow *w, double budget, double *need);

/*
 * Compacts the buckets that are not the newest (WINDOW SIZING); with
 * newest_too also the newest one by the same rule (the aggregate's final).
 */
extern SbfStatus sbf_win_compact(SbfWindow *w, bool newest_too);

/*
 * Sorts the segments canonically and keeps one of the segments with the same
 * bucket, descriptor and data: the one with the smallest count.
 */
extern void sbf_win_sort_segments(SbfWindow *w);

/*
 * The kind of a bucket's segment of n hashes at share: the smallest area of
 * fused (not above SBF_FUSED_MAX_BUILD hashes), blocked and kind 4, none
 * whose bit 1 << kind is set in avoid; ties to the faster kind (fused,
 * blocked, kind 4).
 */
extern SbfStatus sbf_win_kind_choose(uint64_t n, double share, unsigned avoid,
									 SbfKindGeom *g, uint64_t *bytes);

/*
 * A bucket's segment from its n >= 1 strictly ascending hashes at rate share
 * (sbf_window_build.c; see there), of no kind in avoid.  *built false: not made (its area would take
 * max_bytes or more, max_bytes != 0).
 */
extern SbfStatus sbf_win_make_segment(const uint64_t *h, uint32_t n, double share,
									  unsigned avoid, uint64_t max_bytes, const SbfAllocator *a,
									  SbfWinSeg *seg, bool *built);

/*
 * Writes the canonical payload into a new filter (prefix bytes left in
 * front): always version 4 (a version-3 value is relabelled).
 */
extern SbfStatus sbf_win_encode(SbfWindow *w, SbfFilter *out, size_t prefix);

extern void sbf_win_free(SbfWindow *w);

/* The sort the aggregate uses: pairs (hash, bucket) by hash. */
typedef struct SbfWinPair
{
	uint64_t	hash;
	int64_t		bucket;
} SbfWinPair;

/*
 * Sorts pairs by hash and keeps, for each hash, the newest bucket; drops
 * pairs older than newest - B + 1 or newer than newest (ages computed
 * without overflow, so a newest near INT64_MIN keeps its pairs).  Returns
 * the new count.
 */
extern size_t sbf_win_pairs_normalize(SbfWinPair *pairs, size_t n, int64_t newest,
									  uint32_t buckets);

/*
 * A window whose newest bucket is newest holding the normalized pairs
 * (every bucket >= newest - B + 1), as pairs only; then compact as wanted.
 * SBF_E_PARAM when newest is out of range (sbf_win_bucket_in_range),
 * SBF_E_WINDOW when a pair is outside the window.
 */
extern SbfStatus sbf_win_from_pairs(SbfWindow *w, const SbfWinParams *p,
									int64_t newest, const SbfWinPair *pairs,
									size_t n, const SbfAllocator *a);

#endif							/* SBF_WINDOW_H */
