/*
 * sbf_params.c
 *	  Checks of the parameters a user passes (capacity, error_rate, growth,
 *	  tightening): each failure is 22023 with a detail and a hint.
 */
#include "postgres.h"

#include "sbf.h"
#include "sbf_errors.h"
#include "sbf_params.h"

/* Raises 22023 for an error_rate outside (0, 0.5). */
void
sbf_check_error_rate(double error_rate)
{
	/* written so that NaN fails */
	if (!(error_rate > 0.0 && error_rate < 0.5))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid scalablebloom error_rate: %s",
						sbf_fmt_float(error_rate)),
				 errdetail("The error rate must be greater than 0 and less than 0.5."),
				 errhint("Typical values are 0.01 or 0.001.")));
}

/* Raises 22023 for a tightening ratio outside (0, 1]. */
static void
check_tightening(double tightening)
{
	if (!(tightening > 0.0 && tightening <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid scalablebloom tightening: %s",
						sbf_fmt_float(tightening)),
				 errdetail("The tightening ratio must be greater than 0 and at most 1."),
				 errhint("Use %s (the default); 1 keeps every segment at the requested error_rate.",
						 sbf_fmt_float(SBF_DEFAULT_TIGHTENING))));
}

/* Raises 22023 for a growth factor outside 1..SBF_MAX_GROWTH. */
static void
check_growth(int64 growth)
{
	if (growth < 1 || growth > SBF_MAX_GROWTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid scalablebloom growth: " INT64_FORMAT, growth),
				 errdetail("The growth factor must be between 1 and %d.",
						   SBF_MAX_GROWTH),
				 errhint("Use %d (the default) to make each new segment %d times larger, or 1 for equal segments.",
						 SBF_DEFAULT_GROWTH, SBF_DEFAULT_GROWTH)));
}

/* Raises 22023 for a capacity below 1. */
static void
check_capacity(int64 capacity)
{
	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid scalablebloom capacity: " INT64_FORMAT, capacity),
				 errdetail("The capacity must be at least 1."),
				 errhint("Pass the number of elements the first segment should hold; the filter grows beyond it by itself.")));
}

/*
 * Raises 22023 for an error_rate so small that the first segment's rate
 * would underflow (sbf_params_check_create); the range checks passed.
 */
static void
check_error_underflow(const SbfParams *p)
{
	if (sbf_params_check_create(p) == SBF_OK)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("scalablebloom error_rate %s is too small",
					sbf_fmt_float(p->error_rate)),
			 errdetail("With tightening %s the first segment's false-positive rate would be below %s, the smallest normal double.",
					   sbf_fmt_float(p->tightening),
					   sbf_fmt_float(SBF_MIN_SEGMENT_ERROR)),
			 errhint("Use an error_rate of at least %s.",
					 sbf_fmt_float(sbf_min_error_rate(p->tightening)))));
}

/* Checks user-supplied parameters, raising 22023 with a hint on failure. */
void
sbf_check_params(const SbfParams *p)
{
	if (p->capacity < 1)
		check_capacity(0);
	sbf_check_error_rate(p->error_rate);
	check_growth(p->growth);
	check_tightening(p->tightening);
	if (sbf_params_check(p) != SBF_OK)
		sbf_report_status(SBF_E_PARAM);
	check_error_underflow(p);
}

/* Checks SQL-level parameters and fills *p. */
void
sbf_params_from_sql(int64 capacity, float8 error_rate, int32 growth,
					float8 tightening, SbfParams *p)
{
	/* range checks first: narrowing must not turn a bad value into a good one */
	check_capacity(capacity);
	sbf_check_error_rate(error_rate);
	check_growth(growth);
	check_tightening(tightening);

	p->capacity = (uint64) capacity;
	p->error_rate = error_rate;
	p->growth = (uint16) growth;
	p->tightening = tightening;
	p->hll_p = SBF_HLL_P_DEFAULT;
	sbf_check_params(p);
}

/* Default parameters (used when a NULL filter starts a new one). */
void
sbf_default_params(SbfParams *p)
{
	p->capacity = SBF_DEFAULT_CAPACITY;
	p->error_rate = SBF_DEFAULT_ERROR_RATE;
	p->growth = SBF_DEFAULT_GROWTH;
	p->tightening = SBF_DEFAULT_TIGHTENING;
	p->hll_p = SBF_HLL_P_DEFAULT;
}
