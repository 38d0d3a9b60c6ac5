/*
 * sbf_lifecycle.c
 *	  sbf_delta: the small companion filter of the two-column pattern for
 *	  live updates (README, "Keeping filters current").
 *
 * An UPDATE that replaces a big filter rewrites and WAL-logs all of it.  A
 * delta is a second, small column that takes the live adds; the big value
 * stays untouched (PostgreSQL keeps an unchanged TOASTed value by
 * reference), lookups test both, and a periodic seen || recent folds it in.
 * The delta continues the big filter's growth chain and error budget (core
 * sbf_delta, sbf_core.h "CHAIN"), so that merge keeps fpr_bound <=
 * error_rate.
 */
#include "postgres.h"

#include "fmgr.h"

#include "sbf.h"

PG_FUNCTION_INFO_V1(sbf_delta_pg);

/*
 * sbf_delta(scalablebloom) -> an empty filter (exact form) continuing the
 * argument's chain; a NULL argument gives a default empty filter, as
 * NULL || x starts one.
 */
Datum
sbf_delta_pg(PG_FUNCTION_ARGS)
{
	SbfFilter	nf;

	sbf_start_result(fcinfo, &nf, 0, true, "sbf_delta",
					 "A windowed filter forgets by itself: keep one per user and add to it, or use sbf_expire.");
	PG_RETURN_SCALABLEBLOOM_P(sbf_filter_finish(&nf));
}
