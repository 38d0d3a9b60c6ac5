/*
 * sbf_errors.c
 *	  The errors the glue raises for what the core reports: a malformed or
 *	  corrupted value (the validator's status, with a detail naming the
 *	  defect), a malformed text form, a failed write, and a refused union.
 *	  The views over stored values, where corruption is found, are opened
 *	  with the probe code (sbf_slice.c).  Also the formatting of numbers for
 *	  messages and for sbf_info's JSON.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "common/shortest_dec.h"
#include "utils/float.h"

#include "sbf.h"
#include "sbf_agg_support.h"
#include "sbf_errors.h"
#include "sbf_hashset.h"

/* Formats a float8 the way float8out does, for messages. */
char *
sbf_fmt_float(double d)
{
	return float8out_internal(d);
}

/* A full-sentence errdetail for a validator status on buf. */
int
sbf_status_errdetail(SbfStatus st, const uint8 *buf, size_t len)
{
	if (st == SBF_E_VERSION && len > 0 && buf[0] == SBF_FORMAT_V5)
		return errdetail("The value has format version 5, but no segment of a kind only version 5 admits (compact): a value of version 4's kinds is version 4.");
	if (st == SBF_E_VERSION && len > 0)
		return errdetail("The value has format version %u, but this build reads only versions %d to %d.",
						 (unsigned) buf[0], SBF_FORMAT_V1, SBF_FORMAT_V5);
	if (st == SBF_E_HASH && len > 2)
		return errdetail("The value uses hash function %u, but this build knows only %d (XXH3_64).",
						 (unsigned) buf[2], SBF_HASH_XXH3);
	return errdetail("Format check failed: %s.", sbf_status_message(st));
}

/* Validates an outside payload, raising sqlerrcode on a malformed one. */
void
sbf_check_payload_code(const uint8 *buf, size_t len, SbfView *v, int sqlerrcode)
{
	SbfStatus	st = sbf_validate(buf, len, v);

	if (st == SBF_OK)
		return;
	if (st == SBF_E_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("scalablebloom value is too large"),
				 errdetail("The value has %zu bytes; a scalablebloom value is limited to %zu bytes, so that its text form fits in 1 GB.",
						   len, (size_t) SBF_MAX_BYTES),
				 errhint("Rebuild the filter with a larger error_rate, or split its elements over several filters.")));
	if (sqlerrcode == ERRCODE_INVALID_TEXT_REPRESENTATION)
		ereport(ERROR,
				(errcode(sqlerrcode),
				 errmsg("invalid input syntax for type scalablebloom"),
				 sbf_status_errdetail(st, buf, len)));
	ereport(ERROR,
			(errcode(sqlerrcode),
			 errmsg("invalid binary data for type scalablebloom"),
			 sbf_status_errdetail(st, buf, len)));
}

/* Validates bytes from recv, the bytea cast or deserialize (22P03). */
void
sbf_check_payload(const uint8 *buf, size_t len, SbfView *v)
{
	sbf_check_payload_code(buf, len, v, ERRCODE_INVALID_BINARY_REPRESENTATION);
}

/* Raises the error matching a non-OK status from a write operation. */
void
sbf_report_status(SbfStatus st)
{
	switch (st)
	{
		case SBF_E_TOO_LARGE:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("scalablebloom value would be too large"),
					 errdetail("A scalablebloom value is limited to %zu bytes, so that its text form fits in 1 GB.",
							   (size_t) SBF_MAX_BYTES),
					 errhint("Split the elements over several filters, or use a larger error_rate.")));
			break;
		case SBF_E_TOO_MANY_SEGMENTS:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("scalablebloom value would have too many segments"),
					 errdetail("A scalablebloom value is limited to %d segments.",
							   SBF_MAX_SEGMENTS),
					 errhint("Build the filter with a larger capacity or growth.")));
			break;
		case SBF_E_INCOMPATIBLE:
			sbf_union_incompatible(NULL, NULL, 0);
			break;
		case SBF_E_PARAM:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid scalablebloom parameters"),
					 errdetail("Format check failed: %s.", sbf_status_message(st))));
			break;
		case SBF_E_NOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory"),
					 errdetail("The scalablebloom value could not be allocated.")));
			break;
		case SBF_E_OVER_BUDGET:
			elog(ERROR, "over-budget union reported without its bound");
			break;
		case SBF_OK:
			elog(ERROR, "sbf_report_status called without an error");
			break;
		default:
			/* a write found a stored value the prefix check let through */
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("scalablebloom value is corrupted"),
					 errdetail("Format check failed: %s.", sbf_status_message(st))));
			break;
	}
	pg_unreachable();
}

/* Raises 0A000 for an aggregate support function called outside its aggregate. */
void
sbf_agg_context_error(const char *fn)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s called in non-aggregate context", fn),
			 errdetail("It is a support function of an aggregate and runs only inside it."),
			 errhint("Call the aggregate instead, e.g. sbf_agg(element) or sbf_window_agg(element, at).")));
	pg_unreachable();
}

/*
 * The one wording of "these filters cannot be united": with the views, a
 * detail names each differing parameter (diff from sbf_union_mismatch).
 */
void
sbf_union_incompatible(const SbfView *a, const SbfView *b, uint32 diff)
{
	StringInfoData left;
	StringInfoData right;
	const char *sep = "";

	if (a == NULL || b == NULL || diff == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot union scalablebloom values with different parameters"),
				 errhint("Build both filters with the same error_rate, growth and tightening.")));

	initStringInfo(&left);
	initStringInfo(&right);
	if (diff & SBF_DIFF_ERROR_RATE)
	{
		appendStringInfo(&left, "error_rate %s", sbf_fmt_float(a->error_rate));
		appendStringInfo(&right, "error_rate %s", sbf_fmt_float(b->error_rate));
		sep = ", ";
	}
	if (diff & SBF_DIFF_GROWTH)
	{
		appendStringInfo(&left, "%sgrowth %u", sep, (unsigned) a->growth);
		appendStringInfo(&right, "%sgrowth %u", sep, (unsigned) b->growth);
		sep = ", ";
	}
	if (diff & SBF_DIFF_TIGHTENING)
	{
		appendStringInfo(&left, "%stightening %s", sep, sbf_fmt_float(a->tightening));
		appendStringInfo(&right, "%stightening %s", sep, sbf_fmt_float(b->tightening));
		sep = ", ";
	}
	if (diff & (SBF_DIFF_HASH | SBF_DIFF_VERSION))
	{
		appendStringInfo(&left, "%shash %u", sep, (unsigned) a->hash_id);
		appendStringInfo(&right, "%shash %u", sep, (unsigned) b->hash_id);
	}

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot union scalablebloom values with different parameters"),
			 errdetail("The first filter has %s; the second has %s.",
					   left.data, right.data),
			 (diff & ~(uint32) SBF_DIFF_ERROR_RATE) == 0 ?
			 errhint("Build both filters with the same error_rate, or give the union its own: sbf_union(f, g, error_rate).") :
			 errhint("Build both filters with the same error_rate, growth and tightening.")));
	pg_unreachable();
}

/*
 * Raises 22023 naming the differing parameters unless a and b can unite;
 * own_rate: the union keeps the filters' error_rate, so it must match too.
 */
void
sbf_check_union_compatible(const SbfView *a, const SbfView *b, bool own_rate)
{
	uint32		diff = sbf_union_mismatch(a, b);

	if (!own_rate)
		diff &= ~(uint32) SBF_DIFF_ERROR_RATE;
	if (diff != 0)
		sbf_union_incompatible(a, b, diff);
}

/*
 * Smallest error_rate with two significant digits that is at least bound:
 * what the hint of a refused union offers.
 */
double
sbf_rate_that_fits(double bound)
{
	double		scale = pow(10.0, 1.0 - floor(log10(bound)));
	double		r = ceil(bound * scale) / scale;

	/* guard against the division rounding below the bound */
	while (r < bound)
		r = nextafter(r, 1.0);
	return r;
}

/*
 * Raises the error of a failed union: the over-budget refusal with the
 * error_rate that would fit, else as sbf_report_status.
 */
void
sbf_report_union(SbfStatus st, double bound, double error_rate)
{
	double		fits;

	if (st != SBF_E_OVER_BUDGET)
		sbf_report_status(st);
	fits = sbf_rate_that_fits(bound);
	if (fits < 0.5)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scalablebloom union would exceed its error_rate"),
				 errdetail("The united filter's false-positive bound would be %s, above its error_rate %s.",
						   sbf_fmt_float(bound), sbf_fmt_float(error_rate)),
				 errhint("Pass error_rate %s or more to accept that bound, e.g. sbf_union(f, g, %s) or sbf_union_agg(f, %s); for exact rollups keep sbf_hashset values and build the filter with sbf_build().",
						 sbf_fmt_float(fits), sbf_fmt_float(fits), sbf_fmt_float(fits))));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("scalablebloom union would exceed its error_rate"),
			 errdetail("The united filter's false-positive bound would be %s, above its error_rate %s.",
					   sbf_fmt_float(bound), sbf_fmt_float(error_rate)),
			 errhint("No error_rate below 0.5 fits these filters; for exact rollups keep sbf_hashset values and build the filter with sbf_build().")));
	pg_unreachable();
}

/* Raises 22P02 for a malformed text form of type typname (see sbf_errors.h). */
void
sbf_report_text_syntax(const char *typname, const char *what,
					   const char *prefix, bool bad_base64)
{
	if (bad_base64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", typname),
				 errdetail("The text after \"%s\" is not valid padded base64.",
						   prefix)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s", typname),
			 errdetail("%s text value starts with \"%s\".", what, prefix)));
	pg_unreachable();
}

/* Raises the error for a non-OK status of a set operation. */
void
sbf_hs_report_status(SbfStatus st)
{
	if (st == SBF_E_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("sbf_hashset is too large"),
				 errdetail("A set holds at most %llu hashes, and its value at most 1 GB.",
						   (unsigned long long) SBF_HS_MAX_COUNT),
				 errhint("Build a filter with sbf_agg, which streams past %llu distinct elements per group.",
						 (unsigned long long) SBF_HS_AGG_THRESHOLD)));
	sbf_report_status(st);
}

/* Appends a double as a JSON number in its shortest exact form. */
void
sbf_append_json_float(StringInfo buf, double d)
{
	char		num[DOUBLE_SHORTEST_DECIMAL_LEN];

	if (!isfinite(d))
	{
		appendStringInfoString(buf, "null");
		return;
	}
	double_to_shortest_decimal_buf(d, num);
	appendStringInfoString(buf, num);
}
