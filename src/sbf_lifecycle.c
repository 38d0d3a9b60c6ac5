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
#include "sbf_errors.h"
#include "sbf_params.h"
#include "sbf_window_glue.h"

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
	SbfStatus	st;

	if (PG_ARGISNULL(0))
	{
		SbfParams	p;

		sbf_default_params(&p);
		st = sbf_create(&nf, &p, VARHDRSZ, &sbf_palloc_allocator);
	}
	else
	{
		ScalableBloom *f = PG_GETARG_SCALABLEBLOOM_P(0);
		SbfView		v;

		sbf_view_of(f, &v);
		if (sbf_view_is_window(&v))
			sbf_window_refuse("sbf_delta",
							  "A windowed filter forgets by itself: keep one per user and add to it, or use sbf_expire.");
		st = sbf_delta(&nf, &v, VARHDRSZ, &sbf_palloc_allocator);
		PG_FREE_IF_COPY(f, 0);
	}
	if (st != SBF_OK)
		sbf_report_status(st);
	PG_RETURN_SCALABLEBLOOM_P(sbf_filter_finish(&nf));
}
