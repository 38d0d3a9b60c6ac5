/*
 * sbf_app.c
 *	  Steps shared by the PostgreSQL glue and the readers outside the server
 *	  (sbf_app.h).
 */
#include <math.h>

#include "sbf_app.h"

/* A count estimate rounded to a bigint (see sbf_app.h). */
int64_t
sbf_count_round(double est)
{
	if (!(est >= 0.0))
		return 0;
	if (est >= (double) INT64_MAX)
		return INT64_MAX;
	return (int64_t) llround(est);
}

/* The bucket a lookup since since_us counts from (see sbf_app.h). */
int64_t
sbf_win_since_bucket(int64_t since_us, int64_t width)
{
	if (since_us == SBF_WIN_ALL || since_us == INT64_MAX)
		return since_us;
	return sbf_win_bucket_of(since_us, width);
}

/* sbf_window_agg's final step (see sbf_app.h). */
SbfStatus
sbf_win_agg_finish(SbfWindow *w, SbfFilter *out, size_t prefix)
{
	SbfStatus	st = sbf_win_compact(w, true);

	if (st != SBF_OK)
		return st;
	return sbf_win_encode(w, out, prefix);
}
