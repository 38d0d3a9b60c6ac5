/*
 * sbf_window_glue.h
 *	  What the glue of windowed filters (format version 3, and 4 with flag WINDOWED: sbf_window.c,
 *	  sbf_window_agg.c) offers the rest of the glue.  The core's window API is
 *	  src/core/window/sbf_window.h.
 */
#ifndef SBF_WINDOW_GLUE_H
#define SBF_WINDOW_GLUE_H

#include "sbf.h"
#include "datatype/timestamp.h"
#include "sbf_elem.h"
#include "sbf_window.h"

/*
 * How many of n hashes a windowed value's lookup plan (sbf_plan.h) holds in
 * the buckets that end after time since (unix microseconds; SBF_WIN_ALL:
 * every bucket).
 */
struct SbfPlan;
extern int	sbf_window_count(const struct SbfPlan *p, const uint64 *h, int n,
							 int64 since);

/* Raises 22023 naming what a windowed filter cannot do (fn), with a hint. */
/* Window parameters from SQL arguments (bucket, buckets, error_rate), checked (22023). */
extern void sbf_window_params(const Interval *bucket, int32 buckets,
							  float8 error_rate, SbfWinParams *p);

/*
 * The bucket of an add's time (a timestamptz) for buckets of width
 * microseconds: 22008 with hint for an infinite time or one whose bucket
 * would end past the int64 microseconds a window can hold.
 */
extern int64 sbf_window_bucket_at(int64 at, int64 width, const char *hint);

pg_noreturn extern void sbf_window_refuse(const char *fn, const char *hint);

/* The union of two views of which at least one is windowed (else 22023). */
extern ScalableBloom *sbf_window_union_views(const SbfView *a, const SbfView *b,
											 double error_rate);

/*
 * A timed add (the entry points sbf_add_at_* in sbf_ops.c): element argument
 * 1 (kind; or an array of et) at time argument 2; a plain filter is handed
 * to plain.
 */
extern Datum sbf_window_add_at(FunctionCallInfo fcinfo, SbfElemKind kind,
							   const SbfElemType *et, PGFunction plain);

/* # and sbf_info of a windowed view. */
extern int64 sbf_window_cardinality(const SbfView *v);
extern Datum sbf_window_info(const SbfView *v);

/* Whether a view (from sbf_view_of) is of a windowed value. */
static inline bool
sbf_view_is_window(const SbfView *v)
{
	return sbf_view_windowed(v);
}

#endif							/* SBF_WINDOW_GLUE_H */
