/*
 * sbf_app.h
 *	  Pure-C steps that the PostgreSQL glue and readers outside the server
 *	  (the Python package in clients/python) share, so that both answer from
 *	  one implementation: rounding a count estimate, the bucket a "since"
 *	  time selects in a windowed filter, and the finish of sbf_window_agg.
 *	  No PostgreSQL headers.
 */
#ifndef SBF_APP_H
#define SBF_APP_H

#include "sbf_core.h"
#include "sbf_window.h"

/*
 * A count estimate as the bigint that # and sbf_info give: rounded half
 * away from zero, 0 for a negative or NaN estimate, INT64_MAX at the top.
 */
extern int64_t sbf_count_round(double est);

/*
 * The bucket from which a lookup "since" counts, for a since time in
 * microseconds since 1970-01-01 UTC: SBF_WIN_ALL (every bucket) passes
 * through, INT64_MAX (after any bucket) stays INT64_MAX, anything else is
 * the bucket holding that time.  Feed it to sbf_win_max_age.
 */
extern int64_t sbf_win_since_bucket(int64_t since_us, int64_t width);

/*
 * The finish of sbf_window_agg: every bucket of w compacted, the newest
 * too (WINDOW SIZING in sbf_core.h), and the canonical payload written into
 * a new filter with prefix bytes in front.  w stays the caller's to free.
 */
extern SbfStatus sbf_win_agg_finish(SbfWindow *w, SbfFilter *out, size_t prefix);

#endif							/* SBF_APP_H */
