/*
 * sbf_probe.h
 *	  Reading stored filters for lookups: the views and plans of stored values
 *	  (sbf_slice.c), by slices of an out-of-line value (sbf_slice.c), through the session cache or the call site's memo
 *	  (sbf_cache.c, sbf_cache_session.c), and the one probe entry point that
 *	  dispatches a lookup to a plain view, a windowed view or a sliced
 *	  reader.
 */
#ifndef SBF_PROBE_H
#define SBF_PROBE_H

#include "sbf.h"
#include "sbf_window_glue.h"
#include "sbf_plan.h"

/* ---- sbf_slice.c: opening a stored value's view or plan ---- */

/* View over a detoasted value that was validated when it entered. */
extern void sbf_view_of(const ScalableBloom *f, SbfView *v);

/*
 * View of the header and directory of a stored value from its first avail
 * of len payload bytes; raises XX001 if they are inconsistent.  Returns false
 * when avail is too short: then it needs sbf_prefix_size(v->nsegments) bytes.
 */
extern bool sbf_view_of_prefix(const uint8 *buf, size_t avail, size_t len,
							   SbfView *v);

/*
 * The lookup plan (src/core/plan/sbf_plan.h) of a stored value's payload, in
 * mcxt; raises XX001 if its header or directory is inconsistent.
 */
extern SbfPlan *sbf_plan_of(const uint8 *buf, size_t len, MemoryContext mcxt);

/* ---- sbf_slice.c: reading a stored value by slices ---- */

/* A large out-of-line value read by slices (opaque). */
typedef struct SbfSliced SbfSliced;

/* Whether about nelems lookups in a stored len-byte value should read slices. */
extern bool sbf_slices_may_pay(Size len, uint32 nelems);

/*
 * Opens an uncompressed out-of-line value of len payload bytes for nelems
 * lookups by slices; NULL when that would likely fetch more than a detoast.
 */
extern SbfSliced *sbf_sliced_open(struct varlena *raw, Size len, uint32 nelems);
extern bool sbf_sliced_contains(SbfSliced *s, uint64 h);
extern void sbf_sliced_close(SbfSliced *s);

/*
 * A filter opened for its header and directory only (sbf_cardinality,
 * sbf_info): view.buf covers at least header and directory; len is the
 * payload length.  sbf_prefix_hll() fetches the HyperLogLog area when the
 * caller needs it.
 */
typedef struct SbfPrefixRead
{
	SbfView		view;
	Size		len;
	struct varlena *raw;		/* out-of-line value read by slices, or NULL */
	void	   *tofree;
	void	   *hll_tofree;
} SbfPrefixRead;

extern void sbf_prefix_open(Datum d, SbfPrefixRead *r);
extern const uint8 *sbf_prefix_hll(SbfPrefixRead *r);
extern void sbf_prefix_close(SbfPrefixRead *r);
extern double sbf_prefix_fpr_bound(SbfPrefixRead *r, Datum d);

/* ---- sbf_cache.c and sbf_cache_session.c: opening a filter for probes ---- */

/*
 * A filter argument opened for lookups: the value's lookup plan
 * (src/core/plan/sbf_plan.h, bound to the value for this call) from the session
 * cache or the call site's memo in fn_extra, or a reader that fetches only
 * the TOAST chunks its probes touch.  Valid until sbf_probe_close.
 */
typedef struct SbfProbe
{
	const SbfPlan *plan;		/* NULL when sliced */
	SbfSliced  *sliced;
	void	   *tofree;			/* a per-call copy */
} SbfProbe;

/*
 * Opens filter argument argno for about nelems lookups.  Uses fn_extra of
 * the call's FmgrInfo: a function that calls it must not use fn_extra
 * otherwise.
 */
extern void sbf_probe_open(FunctionCallInfo fcinfo, int argno, uint32 nelems,
						   SbfProbe *p);
extern void sbf_probe_close(SbfProbe *p);

/* Defines sbf.cache_size (from _PG_init). */
extern void sbf_cache_define_gucs(void);

/* ---- the probe dispatch ---- */

/* How many of n hashes are probably in an opened filter (a window: anywhere). */
static inline int
sbf_probe_count(SbfProbe *p, const uint64 *h, int n)
{
	int			hits = 0;
	int			i;

	if (likely(p->plan != NULL))
		return (int) sbf_plan_count(p->plan, h, (size_t) n);
	for (i = 0; i < n; i++)
		hits += sbf_sliced_contains(p->sliced, h[i]);
	return hits;
}

/* Membership by hash in an opened filter: false = definitely absent. */
static inline bool
sbf_probe_contains(SbfProbe *p, uint64 h)
{
	if (likely(p->plan != NULL))
		return sbf_plan_contains(p->plan, h);
	return sbf_sliced_contains(p->sliced, h);
}

#endif							/* SBF_PROBE_H */
