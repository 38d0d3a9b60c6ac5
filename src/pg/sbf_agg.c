/*
 * sbf_agg.c
 *	  The aggregate that builds scalablebloom values: sbf_agg(element
 *	  [, error_rate]).  sbf_union_agg lives in sbf_union_agg.c.
 *
 * sbf_agg does not add rows to a filter as they arrive.  A filter built that
 * way has to guess its size up front and, when the guess is low, becomes a
 * chain of growing segments.  Instead the transition state keeps the set of
 * distinct element hashes (the core's hash-set engine, sbf_hashset.h); the
 * final function knows n, the number of distinct elements, and builds one
 * segment right-sized for n at error e^1.04 (sbf_sized_error) through
 * sbf_hs_build, the build sbf_build(sbf_hashset) uses too, so the two are
 * byte-identical.  The HyperLogLog receives every hash, so it equals the
 * one the same elements give when added one by one.  Past
 * SBF_HS_AGG_THRESHOLD (10 Mi) distinct hashes a group streams into a
 * growing filter, which bounds its memory at about 80 MB plus the buffer.
 *
 * Since 1.1 the state type is sbf_hashset, so that PostgreSQL's parallel
 * query and Citus (worker_partial_agg / coord_combine_agg) aggregate
 * partially where the rows are.  The state is a read-write expanded object
 * in the aggregate context (sbf_hashset_glue.h): a row costs a store into
 * its buffer, never a copy of the state.  It is flattened only when
 * PostgreSQL needs bytes: then it carries the aggregate's error_rate (flag
 * bit 0 of the sbf_hashset format), or, for a group that streamed, its
 * filter (flag bit 1).  A flattened state of up to 10 Mi hashes takes about
 * 5.5 bytes a hash, far below 1 GB; a streamed one is a filter, itself
 * below 1 GB.  1.0's internal-state entry points (sbf_agg_trans_text ...
 * sbf_agg_deserialize) stay for databases not yet updated; they run on
 * the same engine, with 1.0's serialized state format.
 *
 * The aggregate returns NULL for zero rows (or only NULL rows), like
 * PostgreSQL's own aggregates other than count.  Its final function only
 * reads the state, so it may be called more than once (window aggregates).
 */
#include "postgres.h"

#include <string.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "sbf.h"
#include "sbf_agg_support.h"
#include "sbf_elem.h"
#include "sbf_errors.h"
#include "sbf_hashset_glue.h"
#include "sbf_params.h"
#include "sbf_spill.h"

PG_FUNCTION_INFO_V1(sbf_agg_trans_text);
PG_FUNCTION_INFO_V1(sbf_agg_trans_int8);
PG_FUNCTION_INFO_V1(sbf_agg_trans_bytea);
PG_FUNCTION_INFO_V1(sbf_agg_final);
PG_FUNCTION_INFO_V1(sbf_agg_combine);
PG_FUNCTION_INFO_V1(sbf_agg_serialize);
PG_FUNCTION_INFO_V1(sbf_agg_deserialize);
PG_FUNCTION_INFO_V1(sbf_agg_hs_trans_text);
PG_FUNCTION_INFO_V1(sbf_agg_hs_trans_int8);
PG_FUNCTION_INFO_V1(sbf_agg_hs_trans_bytea);
PG_FUNCTION_INFO_V1(sbf_agg_hs_final);
PG_FUNCTION_INFO_V1(sbf_agg_hs_combine);

/* 1.0's internal transition state: the engine, in the aggregate context. */
typedef struct SbfAggState
{
	SbfHashSet	hs;
} SbfAggState;

/* True when two doubles have the same bits (NaN-safe, unlike ==). */
static inline bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

/* Raises 22023 when a row's error_rate differs from the aggregate's. */
static void
agg_check_rate(double state_rate, double error_rate)
{
	SbfParams	p;

	if (same_double(state_rate, error_rate))
		return;
	sbf_agg_params(error_rate, &p);
	sbf_check_params(&p);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("sbf_agg error_rate must be the same for all rows"),
			 errdetail("The aggregate saw error_rate %s and %s.",
					   float8out_internal(state_rate),
					   float8out_internal(error_rate)),
			 errhint("Pass a constant error_rate.")));
}

/* The error_rate argument of a transition call (NULL or absent: default). */
static inline double
agg_rate_arg(FunctionCallInfo fcinfo)
{
	if (PG_NARGS() > 2 && !PG_ARGISNULL(2))
		return PG_GETARG_FLOAT8(2);
	return SBF_DEFAULT_ERROR_RATE;
}

/* Checked parameters of a new state (first non-NULL row). */
static void
agg_new_params(double error_rate, SbfParams *p)
{
	sbf_agg_params(error_rate, p);
	sbf_check_params(p);
}

/* Adds a hash to a state's set. */
static inline void
agg_add(SbfHashSet *hs, uint64 h, FunctionCallInfo fcinfo)
{
	SbfStatus	st = sbf_hs_add_hash(fcinfo, hs, h);

	if (unlikely(st != SBF_OK))
		sbf_report_status(st);
}

/* Adds a hash to an sbf_hashset state, which may spill. */
static inline void
agg_hso_add(SbfHsObject *o, uint64 h, FunctionCallInfo fcinfo)
{
	SbfStatus	st = sbf_hso_add(fcinfo, o, h);

	if (unlikely(st != SBF_OK))
		sbf_report_status(st);
}

/* ---- 1.1: the state is an sbf_hashset (an expanded object) ---- */

/*
 * The state argument ready to change: our read-write object; on the first
 * non-NULL element a new one at error_rate; else (not ours to change, which
 * cannot happen in an Agg) a new one holding a copy.
 */
static SbfHsObject *
agg_hs_state(FunctionCallInfo fcinfo, MemoryContext aggcxt, double error_rate)
{
	SbfHsObject *o;
	SbfHsObject *tmp;
	SbfHashSet *s;
	SbfStatus	st;

	if (PG_ARGISNULL(0))
	{
		SbfParams	p;

		agg_new_params(error_rate, &p);
		return sbf_hso_new_state(fcinfo, aggcxt, &p, SBF_HS_AGG_THRESHOLD, true);
	}
	if ((o = sbf_hso_rw(PG_GETARG_DATUM(0))) != NULL)
		return o;
	s = sbf_hso_open(PG_GETARG_DATUM(0), true, &tmp);
	o = sbf_hso_new_state(fcinfo, aggcxt, &s->params, SBF_HS_AGG_THRESHOLD, true);
	st = sbf_hs_union(&o->hs, s);
	if (st != SBF_OK)
		sbf_report_status(st);
	if (tmp != NULL)
		sbf_hso_free(tmp);
	return o;
}

/*
 * The shared transition step: the state (started on the first non-NULL
 * element) gets the hash in place; returns the same read-write datum.
 */
static Datum
agg_hs_trans(FunctionCallInfo fcinfo, MemoryContext aggcxt, uint64 h)
{
	double		error_rate = agg_rate_arg(fcinfo);
	SbfHsObject *o = agg_hs_state(fcinfo, aggcxt, error_rate);

	agg_check_rate(o->hs.params.error_rate, error_rate);
	agg_hso_add(o, h, fcinfo);
	return EOHPGetRWDatum(&o->hdr);
}

/*
 * An sbf_agg transition.  Every row after a group's first finds the state
 * it returned before (sbf_hso_row_state); for the aggregate without an
 * error_rate argument (its state has the default rate) it skips the context
 * and rate checks and touches only the object's first cache line and its
 * buffer (SbfHsObject).  Everything else takes the general step.
 */
static pg_attribute_always_inline Datum
agg_hs_trans_elem(FunctionCallInfo fcinfo, SbfElemKind kind)
{
	SbfHsObject *o;

	if (likely(PG_NARGS() == 2 && (o = sbf_hso_row_state(fcinfo)) != NULL))
	{
		agg_hso_add(o, sbf_elem_hash(kind, PG_GETARG_DATUM(1)), fcinfo);
		return PG_GETARG_DATUM(0);
	}
	return sbf_agg_elem_trans(fcinfo, "sbf_agg_trans", kind, agg_hs_trans);
}

/* sbf_agg(text | bigint | bytea [, error_rate]) over an sbf_hashset state. */
SBF_ENTRY_POINT(sbf_agg_hs_trans_text, agg_hs_trans_elem(fcinfo, SBF_ELEM_BYTES));
SBF_ENTRY_POINT(sbf_agg_hs_trans_int8, agg_hs_trans_elem(fcinfo, SBF_ELEM_INT8));
SBF_ENTRY_POINT(sbf_agg_hs_trans_bytea, agg_hs_trans_elem(fcinfo, SBF_ELEM_BYTES));

/* Builds a state's filter through the one core build. */
static ScalableBloom *
agg_build(const SbfHashSet *hs)
{
	SbfFilter	f;
	SbfStatus	st = sbf_hs_build(hs, &hs->params, VARHDRSZ, &sbf_palloc_allocator, &f);

	if (st != SBF_OK)
		sbf_report_status(st);
	return sbf_filter_finish(&f);
}

/*
 * sbf_agg final over an sbf_hashset state (expanded, or flat after a
 * parallel or Citus combine of nothing): the state is only read.
 */
Datum
sbf_agg_hs_final(PG_FUNCTION_ARGS)
{
	SbfHsObject *tmp;
	SbfHashSet *hs;
	ScalableBloom *result;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	/* a spilled state: built from its runs, within work_mem */
	if ((tmp = sbf_hso_any(PG_GETARG_DATUM(0))) != NULL && sbf_spilled(tmp))
		PG_RETURN_SCALABLEBLOOM_P(sbf_spill_build(tmp, &tmp->hs.params));
	hs = sbf_hso_open(PG_GETARG_DATUM(0), true, &tmp);
	result = agg_build(hs);
	if (tmp != NULL)
		sbf_hso_free(tmp);
	PG_RETURN_SCALABLEBLOOM_P(result);
}

/* The error_rate of an sbf_agg state datum (the default if it has none). */
static double
agg_datum_rate(Datum d)
{
	double		rate = sbf_hs_datum_rate(d);

	return rate == 0.0 ? SBF_DEFAULT_ERROR_RATE : rate;
}

/*
 * sbf_agg combine over sbf_hashset states: exact union (see sbf_hs_union
 * for streamed sides).  The second state, a worker's flat partial state or
 * a read-only one, is only read; the first is changed in place.
 */
Datum
sbf_agg_hs_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = sbf_agg_context(fcinfo, "sbf_agg_combine");
	SbfHsObject *o;

	if (PG_ARGISNULL(1))
		return sbf_agg_keep_state(fcinfo);
	if (PG_ARGISNULL(0) || (o = sbf_hso_rw(PG_GETARG_DATUM(0))) == NULL)
	{
		/* a new state with the first input's error_rate and hashes */
		Datum		first = PG_GETARG_DATUM(PG_ARGISNULL(0) ? 1 : 0);
		SbfParams	p;

		agg_new_params(agg_datum_rate(first), &p);
		o = sbf_hso_new_state(fcinfo, aggcxt, &p, SBF_HS_AGG_THRESHOLD, true);
		if (!PG_ARGISNULL(0))
			sbf_hso_union_datum(fcinfo, o, first, true);
	}
	o->flat_size = 0;
	agg_check_rate(o->hs.params.error_rate, agg_datum_rate(PG_GETARG_DATUM(1)));
	sbf_hso_union_datum(fcinfo, o, PG_GETARG_DATUM(1), true);
	return EOHPGetRWDatum(&o->hdr);
}

/* ---- 1.0: the internal state, kept for databases not yet updated ---- */

/* A new, empty 1.0 state in aggcxt. */
static SbfAggState *
agg_state_new(const SbfParams *p, MemoryContext aggcxt)
{
	SbfAggState *st = MemoryContextAllocZero(aggcxt, sizeof(SbfAggState));
	SbfAllocator a = sbf_palloc_allocator;

	a.ctx = aggcxt;
	sbf_hs_init(&st->hs, &a, p, SBF_HS_AGG_THRESHOLD);
	st->hs.interrupt = sbf_hs_interrupt;
	return st;
}

/* The shared 1.0 transition step over an internal state. */
static Datum
agg_trans(FunctionCallInfo fcinfo, MemoryContext aggcxt, uint64 h)
{
	double		error_rate = agg_rate_arg(fcinfo);
	SbfAggState *st;

	if (PG_ARGISNULL(0))
	{
		SbfParams	p;

		agg_new_params(error_rate, &p);
		st = agg_state_new(&p, aggcxt);
	}
	else
		st = (SbfAggState *) PG_GETARG_POINTER(0);
	agg_check_rate(st->hs.params.error_rate, error_rate);
	agg_add(&st->hs, h, fcinfo);
	PG_RETURN_POINTER(st);
}

/* sbf_agg(text | bigint | bytea [, error_rate]) transitions (1.0, internal state). */
SBF_ENTRY_POINT(sbf_agg_trans_text, sbf_agg_elem_trans(fcinfo, "sbf_agg_trans", SBF_ELEM_BYTES, agg_trans));
SBF_ENTRY_POINT(sbf_agg_trans_int8, sbf_agg_elem_trans(fcinfo, "sbf_agg_trans", SBF_ELEM_INT8, agg_trans));
SBF_ENTRY_POINT(sbf_agg_trans_bytea, sbf_agg_elem_trans(fcinfo, "sbf_agg_trans", SBF_ELEM_BYTES, agg_trans));

/* sbf_agg final (1.0): the state is only read. */
Datum
sbf_agg_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_SCALABLEBLOOM_P(agg_build(&((SbfAggState *) PG_GETARG_POINTER(0))->hs));
}

/* sbf_agg combine (1.0): exact union; the second state is only read. */
Datum
sbf_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = sbf_agg_context(fcinfo, "sbf_agg_combine");
	SbfAggState *st1;
	SbfAggState *st2;
	SbfStatus	status;

	if (PG_ARGISNULL(1))
		return sbf_agg_keep_state(fcinfo);
	st1 = PG_ARGISNULL(0) ? NULL : (SbfAggState *) PG_GETARG_POINTER(0);
	st2 = (SbfAggState *) PG_GETARG_POINTER(1);
	if (st1 == NULL)
		st1 = agg_state_new(&st2->hs.params, aggcxt);
	else
		agg_check_rate(st1->hs.params.error_rate, st2->hs.params.error_rate);
	status = sbf_hs_union(&st1->hs, &st2->hs);
	if (status != SBF_OK)
		sbf_report_status(status);
	PG_RETURN_POINTER(st1);
}

/* sbf_agg serialize (1.0): the versioned bytea of sbf_hashset.h. */
Datum
sbf_agg_serialize(PG_FUNCTION_ARGS)
{
	SbfAggState *st;
	bytea	   *result;
	size_t		size;
	SbfStatus	status;

	(void) sbf_agg_context(fcinfo, "sbf_agg_serialize");
	st = (SbfAggState *) PG_GETARG_POINTER(0);
	/* flushes first, so a state past the threshold is sent as its filter */
	status = sbf_hs_v1state_size(&st->hs, &size);
	if (status != SBF_OK)
		sbf_report_status(status);
	/* at most 80 MB of hashes, or a filter below 1 GB */
	result = palloc(VARHDRSZ + size);
	sbf_mem_hint_huge(result, VARHDRSZ + size);
	SET_VARSIZE(result, VARHDRSZ + size);
	sbf_hs_v1state_write(&st->hs, (uint8 *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

/*
 * sbf_agg deserialize (1.0): checks every field before allocating anything;
 * the array it builds is the input's size.
 */
Datum
sbf_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b;
	SbfAggState *st;
	SbfParams	p;
	SbfHsError	e;
	SbfStatus	status;

	(void) sbf_agg_context(fcinfo, "sbf_agg_deserialize");
	b = PG_GETARG_BYTEA_PP(0);
	sbf_agg_params(SBF_DEFAULT_ERROR_RATE, &p);
	st = agg_state_new(&p, CurrentMemoryContext);
	e = sbf_hs_v1state_read(&st->hs, (const uint8 *) VARDATA_ANY(b),
							VARSIZE_ANY_EXHDR(b), &status);
	if (e != SBF_HS_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid sbf_agg state"),
				 errdetail("%s", sbf_hs_error_message(e))));
	if (status != SBF_OK)
		sbf_report_status(status);
	PG_RETURN_POINTER(st);
}
