/*
 * sbf_plan.h
 *	  A stored value's lookup plan: its header and directory decoded once, so
 *	  that every lookup on the value probes without parsing again.  Pure C, no
 *	  PostgreSQL headers.
 *
 *	  A plan holds what a lookup needs: the form (exact, plain or windowed);
 *	  the exact form's hashes; a plain value's segments, each with its kind
 *	  row, geometry and data; a window's header (SbfWinView) and its segments
 *	  decoded into chunks grouped by kind (sbf_window_int.h), whose ages select
 *	  the buckets of a lookup since a time.  It is built from bytes that were
 *	  validated when they entered the database: sbf_plan_build checks that the
 *	  header and directory are in range and describe exactly the value's
 *	  length (so every probe stays inside the value), never the rate bounds
 *	  or the geometry formulas, which only the validator computes.
 *
 *	  A plan depends on nothing but the value's length and its header and
 *	  directory bytes, and the data areas it decoded (its key, copied into
 *	  the plan): a value with the same length and key has the same plan.
 *	  Its data pointers point into the value it was bound to (sbf_plan_bind
 *	  moves them to another copy); decoded keys are in the plan.
 */
#ifndef SBF_PLAN_H
#define SBF_PLAN_H

#include <string.h>

#include "sbf_core.h"
#include "sbf_internal.h"
#include "sbf_kind.h"
#include "sbf_window.h"

#define SBF_PLAN_EXACT		1
#define SBF_PLAN_PLAIN		2
#define SBF_PLAN_WINDOW		3

/* One segment of a plain value. */
typedef struct SbfPlanSeg
{
	const uint8_t *data;		/* its data area in the bound value */
	size_t		off;			/* payload offset of the data area */
	uint64_t	bytes;
	SbfKindGeom g;
	const SbfKindOps *ops;
	SbfDivisor	div;			/* a flat (bloom) segment's m (plain_has) */
	const uint64_t *keys;		/* its decoded keys in the plan's block, or NULL */
	uint64_t   *left;			/* with keys: lookups read from its bytes before
								 * the decode; 0 once decoded */
} SbfPlanSeg;

/*
 * A plan decodes the data of a kind that decodes (the compact kind's
 * fingerprints) when its keys stay within SBF_PLAN_DECODE_MAX in all (8
 * bytes each) and its data within SBF_PLAN_KEY_DATA_MAX bytes of the
 * directory's end: the key then extends over that data, which every call
 * compares (sbf_plan_matches).  Above, the kind reads its bytes.
 */
#define SBF_PLAN_DECODE_MAX		4096
#define SBF_PLAN_KEY_DATA_MAX	8192

/*
 * A plan decodes late: a decodable segment of n keys answers its first
 * SBF_PLAN_DECODE_AFTER(n) - 1 lookups from its bytes and is decoded at the
 * next, so that a value looked up a few times pays no decode, and one
 * looked up often pays it once (test/bench/plan_compact.sh: a decode costs
 * about as many lookups from the bytes as this, at 30 to 3,000 keys).
 */
#define SBF_PLAN_DECODE_AFTER(n)	(4 + (uint64_t) (n) / 32)

struct SbfWinChunk;

typedef struct SbfPlan
{
	const uint8_t *base;		/* the payload the pointers are bound to */
	size_t		len;			/* payload length */
	size_t		keylen;			/* header, directory and decoded data bytes */
	const uint8_t *key;			/* a copy of them (in the plan's block) */
	size_t		bytes;			/* the plan's own size */
	uint8_t		form;			/* SBF_PLAN_* */
	/* exact: nhashes ascending hashes at hashes_off */
	uint32_t	nhashes;
	size_t		hashes_off;
	/* plain */
	uint32_t	nseg;
	bool		prefetch;		/* segments beyond the caches: batch and prefetch */
	SbfPlanSeg *seg;
	/* windowed: the header (buf is base) and the segments in chunks */
	SbfWinView	wv;
	uint32_t	nchunks;
	struct SbfWinChunk *chunks;
} SbfPlan;

/*
 * Builds the plan of the payload buf[0..len) into one block from a (freed
 * with sbf_plan_free), bound to buf: SBF_OK, SBF_E_NOMEM, or the status of a
 * header or directory out of range or not describing exactly len bytes.
 */
extern SbfStatus sbf_plan_build(const uint8_t *buf, size_t len,
								const SbfAllocator *a, SbfPlan **out);
extern void sbf_plan_free(SbfPlan *p, const SbfAllocator *a);

/* Plans built by this process so far (a diagnostic: sbf_debug_plan_builds()). */
extern uint64_t sbf_plan_builds(void);

/*
 * Whether p is the plan of the payload buf[0..len): the same length and the
 * same header and directory bytes (and the data it decoded).
 */
static inline bool
sbf_plan_matches(const SbfPlan *p, const uint8_t *buf, size_t len)
{
	return p->len == len && memcmp(p->key, buf, p->keylen) == 0;
}

/* Binds a plan to another payload that it matches (sbf_plan_matches). */
extern void sbf_plan_bind(SbfPlan *p, const uint8_t *buf);

static inline bool
sbf_plan_windowed(const SbfPlan *p)
{
	return p->form == SBF_PLAN_WINDOW;
}

/* Membership of h (a window: in any bucket). */
extern bool sbf_plan_contains(const SbfPlan *p, uint64_t h);

/* How many of h[0..n) are probably in the value (a window: in any bucket). */
extern size_t sbf_plan_count(const SbfPlan *p, const uint64_t *h, size_t n);

/*
 * A window's lookups in the buckets of age <= max_age (sbf_win_max_age of
 * p->wv): how many of h[0..n) are there.
 */
extern size_t sbf_plan_count_since(const SbfPlan *p, const uint64_t *h, size_t n,
								   int64_t max_age);

#endif							/* SBF_PLAN_H */
