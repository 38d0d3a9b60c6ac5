/*
 * sbf_errors.h
 *	  The errors the glue raises for what the core reports (sbf_errors.c):
 *	  validation of values that come from outside, malformed text forms,
 *	  failed writes and refused unions.  The views over stored values, which
 *	  raise XX001 on a corrupted one, are opened in sbf_slice.c (sbf_probe.h).
 */
#ifndef SBF_ERRORS_H
#define SBF_ERRORS_H

#include "sbf.h"

/*
 * Validates bytes that come from outside (recv, bytea cast, deserialize);
 * raises ERRCODE_INVALID_BINARY_REPRESENTATION with a detail naming the
 * defect.  Copies nothing.
 */
extern void sbf_check_payload(const uint8 *buf, size_t len, SbfView *v);

/*
 * The same check with the caller's SQLSTATE: text input passes
 * ERRCODE_INVALID_TEXT_REPRESENTATION.
 */
extern void sbf_check_payload_code(const uint8 *buf, size_t len, SbfView *v,
								   int sqlerrcode);

/*
 * The errdetail of a validator status on buf: a full sentence, naming the
 * version or hash a build does not read (for XX001 and 22P0x alike).
 */
extern int	sbf_status_errdetail(SbfStatus st, const uint8 *buf, size_t len);

/* Raises the error matching a non-OK status from a write operation. */
pg_noreturn extern void sbf_report_status(SbfStatus st);

/*
 * Raises 22023 with a detail naming the differing parameters unless two
 * filters can be united (sbf_union_mismatch); own_rate: the result keeps the
 * filters' error_rate, so it must be equal too.
 */
extern void sbf_check_union_compatible(const SbfView *a, const SbfView *b,
									   bool own_rate);

/* The one wording of an incompatible union (views may be NULL). */
pg_noreturn extern void sbf_union_incompatible(const SbfView *a,
											  const SbfView *b, uint32 diff);

/* Smallest error_rate with two significant digits that is at least bound. */
extern double sbf_rate_that_fits(double bound);

/*
 * Raises the error of a failed union: for SBF_E_OVER_BUDGET 22023 with a
 * hint naming the error_rate that would fit (from bound) and sbf_hashset;
 * else as sbf_report_status.
 */
pg_noreturn extern void sbf_report_union(SbfStatus st, double bound,
										double error_rate);

/*
 * Raises 22P02 for text that is not the text form of type typname, whose
 * values start with prefix: the prefix is missing, or (bad_base64) the text
 * after it is not valid padded base64.  what names such a value in the
 * detail ("A scalablebloom").
 */
pg_noreturn extern void sbf_report_text_syntax(const char *typname,
											  const char *what,
											  const char *prefix,
											  bool bad_base64);

/* Raises the error for a non-OK status of an sbf_hashset operation. */
pg_noreturn extern void sbf_hs_report_status(SbfStatus st);

/* Appends a double as a JSON number in its shortest exact form (sbf_info). */
extern void sbf_append_json_float(StringInfo buf, double d);

/* Formats a float8 the way float8out does, for messages (palloc'd). */
extern char *sbf_fmt_float(double d);

#endif							/* SBF_ERRORS_H */
