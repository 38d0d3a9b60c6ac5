/*
 * sbf_params.h
 *	  Checks of user-supplied filter parameters (sbf_params.c).
 */
#ifndef SBF_PARAMS_H
#define SBF_PARAMS_H

#include "sbf.h"

/* Checks user-supplied parameters, raising 22023 with a hint on failure. */
extern void sbf_check_params(const SbfParams *p);

/*
 * Checks SQL-level parameters (before they are narrowed to SbfParams' field
 * types) and fills *p, with hll_p = SBF_HLL_P_DEFAULT.
 */
extern void sbf_params_from_sql(int64 capacity, float8 error_rate, int32 growth,
								float8 tightening, SbfParams *p);

/* Raises 22023 with a hint for an error_rate outside (0, 0.5). */
extern void sbf_check_error_rate(double error_rate);

/* Default parameters (used when a NULL filter starts a new one). */
extern void sbf_default_params(SbfParams *p);

#endif							/* SBF_PARAMS_H */
