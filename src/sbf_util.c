/*
 * sbf_util.c
 *	  Helpers shared by the scalablebloom glue: the palloc allocator handed to
 *	  the core, the validation wrappers, parameter checks, status reporting,
 *	  the element types, and aggregate support.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "sbf.h"

/* Allocates size bytes in ctx (or CurrentMemoryContext); NULL on failure. */
static void *
sbf_palloc(size_t size, void *ctx)
{
	MemoryContext mcxt = ctx ? (MemoryContext) ctx : CurrentMemoryContext;

	if (!AllocSizeIsValid(size))
		return NULL;
	return MemoryContextAllocExtended(mcxt, size, MCXT_ALLOC_NO_OOM);
}

/* Resizes a chunk from sbf_palloc; NULL if the size is beyond palloc's limit. */
static void *
sbf_repalloc(void *ptr, size_t size, void *ctx)
{
	if (ptr == NULL)
		return sbf_palloc(size, ctx);
	if (!AllocSizeIsValid(size))
		return NULL;
	/* PostgreSQL 15 has no no-OOM repalloc: out of memory raises 53200 */
	return repalloc(ptr, size);
}

/* Frees a chunk from sbf_palloc. */
static void
sbf_pfree(void *ptr, void *ctx)
{
	if (ptr != NULL)
		pfree(ptr);
}

/* The core's interrupt callback: a cancel or timeout leaves by longjmp. */
static void
sbf_interrupt(void *ctx)
{
	CHECK_FOR_INTERRUPTS();
}

const SbfAllocator sbf_palloc_allocator = {
	sbf_palloc,
	sbf_repalloc,
	sbf_pfree,
	NULL,
	sbf_interrupt
};

/* Formats a float8 the way float8out does, for messages. */
static char *
sbf_fmt_float(double d)
{
	return float8out_internal(d);
}

/* A full-sentence errdetail for a validator status on buf. */
static int
sbf_status_errdetail(SbfStatus st, const uint8 *buf, size_t len)
{
	if (st == SBF_E_VERSION && len > 0)
		return errdetail("The value has format version %u, but this build reads only versions %d, %d and %d.",
						 (unsigned) buf[0], SBF_FORMAT_V1, SBF_FORMAT_VERSION, SBF_WIN_VERSION);
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

/*
 * View of the header and directory of a stored value from its first avail of
 * len payload bytes.
 *
 * Only the header and segment directory are checked (O(segments), not
 * O(bytes)), which is enough for every later read to stay inside the value:
 * the directory must describe exactly the value's length.  The full
 * validator ran when the value entered the database.  Returns false, with
 * v->nsegments set, when avail < len is too short for the directory.
 */
bool
sbf_view_of_prefix(const uint8 *buf, size_t avail, size_t len, SbfView *v)
{
	SbfStatus	st;

	/* a windowed value (version 3) is only ever read whole: see sbf_window.c */
	if (sbf_is_window(buf, avail))
	{
		SbfWinView	wv;

		if (avail < len)
			elog(ERROR, "a windowed scalablebloom value read by its prefix");
		st = sbf_win_parse(buf, len, &wv);
		if (st == SBF_OK)
		{
			memset(v, 0, sizeof(*v));
			v->buf = buf;
			v->len = len;
			v->version = SBF_WIN_VERSION;
			return true;
		}
	}
	else
		st = sbf_parse_prefix(buf, avail, len, v);
	if (st == SBF_OK)
		return true;
	/* a short prefix of a longer value: the header says how much is needed */
	if (st == SBF_E_TRUNCATED && avail >= SBF_HEADER_BYTES && avail < len &&
		sbf_prefix_size(v->nsegments) > avail)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("scalablebloom value is corrupted"),
			 sbf_status_errdetail(st, buf, avail)));
	pg_unreachable();
}

/* View over a detoasted value that was validated when it entered. */
void
sbf_view_of(const ScalableBloom *f, SbfView *v)
{
	size_t		len = SBF_PAYLOAD_LEN(f);

	(void) sbf_view_of_prefix(SBF_PAYLOAD_PTR(f), len, len, v);
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
sbf_check_tightening(double tightening)
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
sbf_check_growth(int64 growth)
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
sbf_check_capacity(int64 capacity)
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
sbf_check_error_underflow(const SbfParams *p)
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
		sbf_check_capacity(0);
	sbf_check_error_rate(p->error_rate);
	sbf_check_growth(p->growth);
	sbf_check_tightening(p->tightening);
	if (sbf_params_check(p) != SBF_OK)
		sbf_report_status(SBF_E_PARAM);
	sbf_check_error_underflow(p);
}

/* Checks SQL-level parameters and fills *p. */
void
sbf_params_from_sql(int64 capacity, float8 error_rate, int32 growth,
					float8 tightening, SbfParams *p)
{
	/* range checks first: narrowing must not turn a bad value into a good one */
	sbf_check_capacity(capacity);
	sbf_check_error_rate(error_rate);
	sbf_check_growth(growth);
	sbf_check_tightening(tightening);

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

/* Wraps a mutable core filter (created with prefix VARHDRSZ) as a varlena. */
ScalableBloom *
sbf_filter_finish(SbfFilter *f)
{
	if (f->prefix != VARHDRSZ)
		elog(ERROR, "scalablebloom filter built with prefix %zu", f->prefix);
	/* the core keeps len <= SBF_MAX_BYTES, so the total fits a varlena */
	SET_VARSIZE(f->base, VARHDRSZ + f->len);
	return (ScalableBloom *) f->base;
}

/*
 * The element types (see SbfElemType).  bytea[] is not a collection of
 * elements for || (1.0 never took it); varchar[] shares text[]'s layout.
 */
static const SbfElemType sbf_elem_types[] = {
	{TEXTOID, TEXTARRAYOID, SBF_ELEM_BYTES, -1, false, TYPALIGN_INT},
	{VARCHAROID, VARCHARARRAYOID, SBF_ELEM_BYTES, -1, false, TYPALIGN_INT},
	{INT8OID, INT8ARRAYOID, SBF_ELEM_INT8, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE},
	{INT4OID, INT4ARRAYOID, SBF_ELEM_INT4, sizeof(int32), true, TYPALIGN_INT},
	{INT2OID, INT2ARRAYOID, SBF_ELEM_INT2, sizeof(int16), true, TYPALIGN_SHORT},
	{BYTEAOID, InvalidOid, SBF_ELEM_BYTES, -1, false, TYPALIGN_INT},
};

/* The row of an element type, or NULL if typid is not one. */
const SbfElemType *
sbf_elem_type(Oid typid)
{
	size_t		i;

	for (i = 0; i < lengthof(sbf_elem_types); i++)
		if (sbf_elem_types[i].typid == typid)
			return &sbf_elem_types[i];
	return NULL;
}

/* The row whose arrays have type arraytypid, or NULL. */
const SbfElemType *
sbf_elem_array_type(Oid arraytypid)
{
	size_t		i;

	if (!OidIsValid(arraytypid))
		return NULL;
	for (i = 0; i < lengthof(sbf_elem_types); i++)
		if (sbf_elem_types[i].arraytypid == arraytypid)
			return &sbf_elem_types[i];
	return NULL;
}

/* Hash of a compressed or out-of-line varlena element (detoasts a copy). */
uint64
sbf_hash_toasted(struct varlena *p)
{
	struct varlena *flat = pg_detoast_datum_packed(p);
	uint64		h = sbf_hash(VARDATA_ANY(flat), VARSIZE_ANY_EXHDR(flat));

	if (flat != p)
		pfree(flat);
	return h;
}

/* The state argument unchanged, for a NULL second argument. */
Datum
sbf_agg_keep_state(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}
