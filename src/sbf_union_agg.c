/*
 * sbf_union_agg.c
 *	  The aggregate sbf_union_agg(scalablebloom): the union of a column of
 *	  filters.
 *
 * The state keeps a mutable filter: a copy of the first input, then
 * sbf_union with each next one.  The aggregate returns NULL for zero rows
 * (or only NULL rows); its final function only reads the state, so it may be
 * called more than once (window aggregates).
 */
#include "postgres.h"

#include <string.h>

#include "fmgr.h"
#include "utils/memutils.h"

#include "sbf.h"

PG_FUNCTION_INFO_V1(sbf_union_agg_trans);
PG_FUNCTION_INFO_V1(sbf_union_agg_final);
PG_FUNCTION_INFO_V1(sbf_union_agg_combine);
PG_FUNCTION_INFO_V1(sbf_union_agg_serialize);
PG_FUNCTION_INFO_V1(sbf_union_agg_deserialize);

/* A filter that lives in the aggregate context, with its allocator. */
typedef struct UnionAggState
{
	SbfAllocator alloc;			/* sbf_palloc_allocator bound to the context */
	SbfFilter	filter;
} UnionAggState;

/* The aggregate context of a support function, checked to be in an Agg. */
static MemoryContext
union_agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggcxt;
}

/* The state unchanged, for a NULL input. */
static Datum
union_agg_skip(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* A varlena copy of a mutable filter's payload. */
static ScalableBloom *
union_agg_copy(const SbfFilter *f)
{
	ScalableBloom *result = palloc(VARHDRSZ + f->len);

	SET_VARSIZE(result, VARHDRSZ + f->len);
	memcpy(result->data, SBF_PAYLOAD(f), f->len);
	return result;
}

/* A new filter state in cxt holding a copy of v. */
static UnionAggState *
union_state_new(const SbfView *v, MemoryContext cxt)
{
	UnionAggState *sf = MemoryContextAlloc(cxt, sizeof(UnionAggState));
	SbfStatus	status;

	sf->alloc = sbf_palloc_allocator;
	sf->alloc.ctx = cxt;
	status = sbf_copy(&sf->filter, v, VARHDRSZ, 0, &sf->alloc);
	if (status != SBF_OK)
		sbf_report_status(status);
	return sf;
}

/* dst := dst UNION v, with the detailed error for incompatible filters. */
static void
union_state_add(UnionAggState *dst, const SbfView *v)
{
	SbfView		dv;
	SbfStatus	status;

	sbf_filter_view(&dst->filter, &dv);
	sbf_check_union_compatible(&dv, v);
	status = sbf_union(&dst->filter, v);
	if (status != SBF_OK)
		sbf_report_status(status);
}

/* sbf_union_agg transition: copy the first filter, unite the next ones. */
Datum
sbf_union_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = union_agg_context(fcinfo, "sbf_union_agg_trans");
	UnionAggState *sf = PG_ARGISNULL(0) ? NULL : (UnionAggState *) PG_GETARG_POINTER(0);
	ScalableBloom *f;
	SbfView		v;

	if (PG_ARGISNULL(1))
		return union_agg_skip(fcinfo);
	f = PG_GETARG_SCALABLEBLOOM_P(1);
	sbf_view_of(f, &v);
	if (sf == NULL)
		sf = union_state_new(&v, aggcxt);
	else
		union_state_add(sf, &v);
	PG_RETURN_POINTER(sf);
}

/* sbf_union_agg final: a copy of the united filter (the state is only read). */
Datum
sbf_union_agg_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_SCALABLEBLOOM_P(union_agg_copy(&((UnionAggState *) PG_GETARG_POINTER(0))->filter));
}

/* sbf_union_agg combine: sbf_union of the two partial filters. */
Datum
sbf_union_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = union_agg_context(fcinfo, "sbf_union_agg_combine");
	UnionAggState *sf1 = PG_ARGISNULL(0) ? NULL : (UnionAggState *) PG_GETARG_POINTER(0);
	UnionAggState *sf2 = PG_ARGISNULL(1) ? NULL : (UnionAggState *) PG_GETARG_POINTER(1);
	SbfView		v;

	if (sf2 == NULL)
	{
		if (sf1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(sf1);
	}
	sbf_filter_view(&sf2->filter, &v);
	if (sf1 == NULL)
		PG_RETURN_POINTER(union_state_new(&v, aggcxt));
	union_state_add(sf1, &v);
	PG_RETURN_POINTER(sf1);
}

/* sbf_union_agg serialize: the filter's payload. */
Datum
sbf_union_agg_serialize(PG_FUNCTION_ARGS)
{
	(void) union_agg_context(fcinfo, "sbf_union_agg_serialize");
	PG_RETURN_BYTEA_P((bytea *) union_agg_copy(&((UnionAggState *) PG_GETARG_POINTER(0))->filter));
}

/* sbf_union_agg deserialize: a payload that passes the one validator. */
Datum
sbf_union_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b;
	SbfView		v;

	(void) union_agg_context(fcinfo, "sbf_union_agg_deserialize");
	b = PG_GETARG_BYTEA_PP(0);
	sbf_check_payload((const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), &v);
	PG_RETURN_POINTER(union_state_new(&v, CurrentMemoryContext));
}
