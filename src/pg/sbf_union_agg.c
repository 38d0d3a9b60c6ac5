/*
 * sbf_union_agg.c
 *	  The aggregates sbf_union_agg(scalablebloom [, error_rate]): the union
 *	  of a column of filters.
 *
 * The state is a scalablebloom (a real type, so PostgreSQL's parallel query
 * and Citus can aggregate partially): the canonical collection of every
 * input segment, duplicates dropped, nothing merged yet (sbf_union_many
 * without merge).  Collecting is associative and commutative, so the state
 * depends only on the set of input segments; the final function merges and
 * checks the budget once (sbf_union_many with merge and enforce), so the
 * result's bytes do not depend on row order or on how a parallel plan split
 * the rows.  The result's error_rate is the inputs' (they must agree) or,
 * for sbf_union_agg(f, error_rate), the given one, which lets filters of
 * different error_rate unite; growth, tightening and hash must match.
 *
 * While aggregating, the state is an expanded object in the aggregate
 * context (no copy per row): inputs are copied into a pending list and
 * collected into the canonical form when their bytes pass those of the
 * collection (at least UNION_AGG_MIN_PENDING), so each byte is collected a
 * logarithmic number of times.  Flattening (to send a partial state, or when
 * PostgreSQL copies it) collects first.  Only a collection that would pass
 * SBF_MAX_SEGMENTS is merged early, which can make the result depend on the
 * row order; the result is still a correct filter.  Exact (format 2)
 * inputs are converted to segments one by one as they come in
 * (union_agg_segments_of), so the collection is segments only and stays a
 * function of the set of rows.  The final is a union of the collection
 * alone: where every segment is compact (compact inputs) it is one compact
 * value, the inputs' own merging union (sbf_union_compact_collected), else
 * segments, where a pairwise sbf_union of small exact filters stays exact.
 *
 * The aggregate returns NULL for zero rows (or only NULL rows); its final
 * function only reads the state, so it may be called more than once.
 */
#include "postgres.h"

#include <string.h>

#include "fmgr.h"
#include "utils/expandeddatum.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "sbf.h"
#include "sbf_agg_support.h"
#include "sbf_errors.h"
#include "sbf_params.h"
#include "sbf_probe.h"
#include "sbf_window_glue.h"

PG_FUNCTION_INFO_V1(sbf_union_agg_step);
PG_FUNCTION_INFO_V1(sbf_union_agg_step_budget);
PG_FUNCTION_INFO_V1(sbf_union_agg_merge);
PG_FUNCTION_INFO_V1(sbf_union_agg_result);
PG_FUNCTION_INFO_V1(sbf_union_agg_trans);
PG_FUNCTION_INFO_V1(sbf_union_agg_final);
PG_FUNCTION_INFO_V1(sbf_union_agg_combine);
PG_FUNCTION_INFO_V1(sbf_union_agg_serialize);
PG_FUNCTION_INFO_V1(sbf_union_agg_deserialize);

/* Pending bytes collected at once at the least (then: the collection's). */
#define UNION_AGG_MIN_PENDING		((size_t) 1024 * 1024)

/* Pending inputs collected at once at the most. */
#define UNION_AGG_MAX_INPUTS		1024

/* The expanded state of sbf_union_agg. */
typedef struct UnionAggState
{
	ExpandedObjectHeader hdr;
	SbfAllocator alloc;			/* sbf_palloc_allocator in the object's context */
	SbfView		shape;			/* parameters every input must match (its
								 * error_rate is the result's); buf unused */
	bool		own_rate;		/* inputs must match shape's error_rate */
	SbfFilter	coll;			/* canonical collection; base NULL if none */
	ScalableBloom **pending;	/* inputs not collected yet */
	uint32		npending;
	size_t		pending_bytes;
} UnionAggState;

static Size union_agg_flat_size(ExpandedObjectHeader *eohptr);
static void union_agg_flatten(ExpandedObjectHeader *eohptr, void *result,
							  Size allocated_size);

static const ExpandedObjectMethods union_agg_methods = {
	union_agg_flat_size,
	union_agg_flatten
};

/* Filter argument argno (detoasted), with its view in *v. */
static ScalableBloom *
filter_arg(FunctionCallInfo fcinfo, int argno, SbfView *v)
{
	ScalableBloom *f = PG_GETARG_SCALABLEBLOOM_P(argno);

	sbf_view_of(f, v);
	return f;
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

/* A new, empty expanded state in a child context of aggcxt. */
static UnionAggState *
union_agg_new(MemoryContext aggcxt, const SbfView *shape, bool own_rate)
{
	MemoryContext cxt = AllocSetContextCreate(aggcxt, "sbf_union_agg state",
											  ALLOCSET_DEFAULT_SIZES);
	UnionAggState *st = MemoryContextAllocZero(cxt, sizeof(UnionAggState));

	EOH_init_header(&st->hdr, &union_agg_methods, cxt);
	st->alloc = sbf_palloc_allocator;
	st->alloc.ctx = cxt;
	st->shape = *shape;
	st->shape.buf = NULL;
	st->own_rate = own_rate;
	st->pending = MemoryContextAlloc(cxt, UNION_AGG_MAX_INPUTS * sizeof(ScalableBloom *));
	return st;
}

/*
 * Collects the pending inputs into the canonical collection; only when it
 * would pass the segment limit are segments merged (see the file header).
 */
static void
union_agg_collect(UnionAggState *st)
{
	SbfUnionSpec spec = {st->shape.error_rate, false, false};
	SbfView    *in;
	SbfFilter	nf;
	SbfStatus	status;
	uint32		n = 0;
	uint32		i;

	if (st->npending == 0)
		return;
	in = palloc((st->npending + 1) * sizeof(SbfView));
	if (st->coll.base != NULL)
		sbf_filter_view(&st->coll, &in[n++]);
	for (i = 0; i < st->npending; i++)
		sbf_view_of(st->pending[i], &in[n++]);
	status = sbf_union_many(&nf, in, n, &spec, NULL, VARHDRSZ, &st->alloc);
	if (status == SBF_E_TOO_MANY_SEGMENTS)
	{
		spec.merge = true;
		status = sbf_union_many(&nf, in, n, &spec, NULL, VARHDRSZ, &st->alloc);
	}
	if (status != SBF_OK)
		sbf_report_status(status);
	pfree(in);
	if (st->coll.base != NULL)
		sbf_filter_free(&st->coll);
	st->coll = nf;
	for (i = 0; i < st->npending; i++)
		pfree(st->pending[i]);
	st->npending = 0;
	st->pending_bytes = 0;
}

/* Adds a copy of a checked input to the state's pending list. */
static void
union_agg_push(UnionAggState *st, const ScalableBloom *f)
{
	size_t		len = VARSIZE(f);
	ScalableBloom *copy;

	if (st->npending >= UNION_AGG_MAX_INPUTS ||
		st->pending_bytes >= Max(UNION_AGG_MIN_PENDING,
								 st->coll.base != NULL ? st->coll.len : 0))
		union_agg_collect(st);
	copy = MemoryContextAlloc(st->hdr.eoh_context, len);
	memcpy(copy, f, len);
	st->pending[st->npending++] = copy;
	st->pending_bytes += len;
}

/* Flat size of the state: its collection as a scalablebloom. */
static Size
union_agg_flat_size(ExpandedObjectHeader *eohptr)
{
	UnionAggState *st = (UnionAggState *) eohptr;

	union_agg_collect(st);
	return VARHDRSZ + st->coll.len;
}

/* Writes the flat state (after union_agg_flat_size). */
static void
union_agg_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	UnionAggState *st = (UnionAggState *) eohptr;

	Assert(allocated_size == VARHDRSZ + st->coll.len);
	SET_VARSIZE(result, allocated_size);
	memcpy(VARDATA(result), SBF_PAYLOAD(&st->coll), st->coll.len);
}

/* The state argument as our read-write expanded object, or NULL if not one. */
static inline UnionAggState *
union_agg_rw(Datum d)
{
	return (UnionAggState *) sbf_expanded_of(d, &union_agg_methods, true);
}

static ScalableBloom *union_agg_segments_of(const SbfView *v);

/* Pushes a checked input f (view v): an exact or compact one as its segments. */
static void
union_agg_take(UnionAggState *st, const ScalableBloom *f, const SbfView *v)
{
	union_agg_push(st, sbf_is_exact(v) || sbf_is_compact(v) ?
				   union_agg_segments_of(v) : f);
}

/*
 * The state argument argno as an expanded state in aggcxt: ours, or a new
 * one holding a flat state (from a worker, or copied by PostgreSQL).  Our
 * aggregate's flat states are never exact; an exact one (the merge function
 * used as the transition of another aggregate) is converted as the step
 * converts an exact row.
 */
static UnionAggState *
union_agg_state(FunctionCallInfo fcinfo, int argno, MemoryContext aggcxt)
{
	UnionAggState *st = union_agg_rw(PG_GETARG_DATUM(argno));
	ScalableBloom *f;
	SbfView		v;

	if (st != NULL)
		return st;
	f = filter_arg(fcinfo, argno, &v);
	/* a flat state carries the result's error_rate: later inputs match it */
	st = union_agg_new(aggcxt, &v, true);
	union_agg_take(st, f, &v);
	return st;
}

/*
 * Whether state argument argno is a windowed value: windowed filters unite
 * pairwise (sbf_window_union_views), their state is the running union.
 */
static bool
union_agg_state_is_window(FunctionCallInfo fcinfo, int argno)
{
	SbfView		v;

	if (PG_ARGISNULL(argno) || union_agg_rw(PG_GETARG_DATUM(argno)) != NULL)
		return false;
	(void) filter_arg(fcinfo, argno, &v);
	return sbf_view_is_window(&v);
}

/*
 * The windowed step and combine: the state := state UNION input (nodeAgg
 * copies the new state into its context and frees the old one).  A plain
 * state or input with a windowed one is refused by sbf_window_union_views.
 */
static Datum
union_agg_window(FunctionCallInfo fcinfo, double error_rate)
{
	SbfView		vs;
	SbfView		vi;
	ScalableBloom *in = filter_arg(fcinfo, 1, &vi);

	if (PG_ARGISNULL(0) && error_rate > 0.0)
		PG_RETURN_SCALABLEBLOOM_P(sbf_window_union_views(&vi, NULL, error_rate));
	if (PG_ARGISNULL(0))
	{
		ScalableBloom *copy = palloc(VARSIZE(in));

		memcpy(copy, in, VARSIZE(in));
		PG_RETURN_SCALABLEBLOOM_P(copy);
	}
	if (union_agg_rw(PG_GETARG_DATUM(0)) != NULL)
	{
		/* a plain collection so far: the windowed input is refused */
		memset(&vs, 0, sizeof(vs));
		vs.version = SBF_FORMAT_VERSION;
	}
	else
		(void) filter_arg(fcinfo, 0, &vs);
	PG_RETURN_SCALABLEBLOOM_P(sbf_window_union_views(&vs, &vi, error_rate));
}

/*
 * An exact or compact input in segment form, converted on its own.  The collection
 * holds segments only, so that it is a function of the set of input rows:
 * exact hashes added to whatever segments a partial state happened to hold
 * would make the bytes depend on how the rows were split and ordered.  (A
 * pairwise sbf_union of small filters stays exact.)
 */
static ScalableBloom *
union_agg_segments_of(const SbfView *v)
{
	SbfFilter	nf;
	SbfStatus	status;

	status = sbf_copy(&nf, v, VARHDRSZ, 0, &sbf_palloc_allocator);
	if (status == SBF_OK)
		status = sbf_convert(&nf);
	if (status != SBF_OK)
		sbf_report_status(status);
	/* the converted buffer is the varlena: no second copy */
	return sbf_filter_finish(&nf);
}

/*
 * The shared transition step: error_rate <= 0 means the inputs' own (then
 * every input must have it); otherwise it is the result's, constant over
 * the rows.
 */
static Datum
union_agg_step(FunctionCallInfo fcinfo, double error_rate)
{
	MemoryContext aggcxt = sbf_agg_context(fcinfo, "sbf_union_agg_step");
	bool		own_rate = !(error_rate > 0.0);
	UnionAggState *st;
	ScalableBloom *f;
	SbfView		v;

	if (PG_ARGISNULL(1))
		return sbf_agg_keep_state(fcinfo);
	f = filter_arg(fcinfo, 1, &v);
	if (sbf_view_is_window(&v) || union_agg_state_is_window(fcinfo, 0))
		return union_agg_window(fcinfo, error_rate);
	if (PG_ARGISNULL(0))
	{
		SbfView		shape = v;

		if (!own_rate)
			shape.error_rate = error_rate;
		st = union_agg_new(aggcxt, &shape, own_rate);
	}
	else
	{
		st = union_agg_state(fcinfo, 0, aggcxt);
		if (!own_rate && st->shape.error_rate != error_rate)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sbf_union_agg error_rate must be the same for all rows"),
					 errdetail("The aggregate saw error_rate %s and %s.",
							   float8out_internal(st->shape.error_rate),
							   float8out_internal(error_rate)),
					 errhint("Pass a constant error_rate.")));
	}
	sbf_check_union_compatible(&st->shape, &v, own_rate && st->own_rate);
	union_agg_take(st, f, &v);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

/* sbf_union_agg(scalablebloom) transition: collect the filter's segments. */
Datum
sbf_union_agg_step(PG_FUNCTION_ARGS)
{
	return union_agg_step(fcinfo, 0.0);
}

/*
 * sbf_union_agg(scalablebloom, error_rate) transition: the same, with the
 * result's budget (a NULL error_rate means the filters' own).
 */
Datum
sbf_union_agg_step_budget(PG_FUNCTION_ARGS)
{
	double		error_rate = 0.0;

	if (!PG_ARGISNULL(2))
	{
		error_rate = PG_GETARG_FLOAT8(2);
		sbf_check_error_rate(error_rate);
	}
	return union_agg_step(fcinfo, error_rate);
}

/* sbf_union_agg combine: the collection of both partial states. */
Datum
sbf_union_agg_merge(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = sbf_agg_context(fcinfo, "sbf_union_agg_merge");
	UnionAggState *st;
	ScalableBloom *f;
	SbfView		v;

	if (PG_ARGISNULL(1))
		return sbf_agg_keep_state(fcinfo);
	if (union_agg_state_is_window(fcinfo, 0) || union_agg_state_is_window(fcinfo, 1))
		return union_agg_window(fcinfo, 0.0);
	if (PG_ARGISNULL(0))
	{
		st = union_agg_state(fcinfo, 1, aggcxt);
		/* the second argument may be our own object: never share it */
		if (st == union_agg_rw(PG_GETARG_DATUM(1)))
		{
			UnionAggState *copy = union_agg_new(aggcxt, &st->shape, st->own_rate);

			union_agg_collect(st);
			if (st->coll.base != NULL)
				union_agg_push(copy, union_agg_copy(&st->coll));
			st = copy;
		}
		PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
	}
	st = union_agg_state(fcinfo, 0, aggcxt);
	/* flattens an expanded second state; it is only read */
	f = filter_arg(fcinfo, 1, &v);
	/* both states carry the result's error_rate: it must agree */
	sbf_check_union_compatible(&st->shape, &v, true);
	/* never from our aggregate (see union_agg_state), converted as a row */
	union_agg_take(st, f, &v);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

/*
 * sbf_union_agg final: the collection merged and checked against its
 * budget (sbf_union_many with merge and enforce).  The state is only read.
 */
Datum
sbf_union_agg_result(PG_FUNCTION_ARGS)
{
	SbfUnionSpec spec = {0.0, true, true};
	UnionAggState *st;
	SbfView		v;
	SbfFilter	nf;
	SbfStatus	status;
	double		bound;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	/* a windowed state is the union itself */
	if (union_agg_state_is_window(fcinfo, 0))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	st = union_agg_rw(PG_GETARG_DATUM(0));
	if (st != NULL)
	{
		union_agg_collect(st);
		sbf_filter_view(&st->coll, &v);
	}
	else
		(void) filter_arg(fcinfo, 0, &v);
	spec.error_rate = v.error_rate;
	status = sbf_union_many(&nf, &v, 1, &spec, &bound, VARHDRSZ,
							&sbf_palloc_allocator);
	if (status != SBF_OK)
		sbf_report_union(status, bound, v.error_rate);
	PG_RETURN_SCALABLEBLOOM_P(sbf_filter_finish(&nf));
}

/* ---- 1.0's internal-state support functions ---- */

/*
 * A database still at extension version 1.0 binds these (sbf--1.0.sql):
 * the state is a mutable filter, united with each next input by sbf_union
 * (1.0's meaning: no budget check).  1.1 replaces the aggregate.
 */

/* 1.0's state: a filter in the aggregate context, with its allocator. */
typedef struct LegacyUnionState
{
	SbfAllocator alloc;			/* sbf_palloc_allocator bound to the context */
	SbfFilter	filter;
} LegacyUnionState;

/* A new filter state in cxt holding a copy of v. */
static LegacyUnionState *
union_state_new(const SbfView *v, MemoryContext cxt)
{
	LegacyUnionState *sf = MemoryContextAlloc(cxt, sizeof(LegacyUnionState));
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
union_state_add(LegacyUnionState *dst, const SbfView *v)
{
	SbfView		dv;
	SbfStatus	status;

	sbf_filter_view(&dst->filter, &dv);
	sbf_check_union_compatible(&dv, v, true);
	status = sbf_union(&dst->filter, v);
	if (status != SBF_OK)
		sbf_report_status(status);
}

/* sbf_union_agg transition: copy the first filter, unite the next ones. */
Datum
sbf_union_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = sbf_agg_context(fcinfo, "sbf_union_agg_trans");
	LegacyUnionState *sf = PG_ARGISNULL(0) ? NULL : (LegacyUnionState *) PG_GETARG_POINTER(0);
	SbfView		v;

	if (PG_ARGISNULL(1))
		return sbf_agg_keep_state(fcinfo);
	(void) filter_arg(fcinfo, 1, &v);
	if (sbf_view_is_window(&v))
		sbf_window_refuse("sbf_union_agg at extension version 1.0",
						  "ALTER EXTENSION sbf UPDATE.");
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
	PG_RETURN_SCALABLEBLOOM_P(union_agg_copy(&((LegacyUnionState *) PG_GETARG_POINTER(0))->filter));
}

/* sbf_union_agg combine: sbf_union of the two partial filters. */
Datum
sbf_union_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = sbf_agg_context(fcinfo, "sbf_union_agg_combine");
	LegacyUnionState *sf1;
	SbfView		v;

	if (PG_ARGISNULL(1))
		return sbf_agg_keep_state(fcinfo);
	sf1 = PG_ARGISNULL(0) ? NULL : (LegacyUnionState *) PG_GETARG_POINTER(0);
	sbf_filter_view(&((LegacyUnionState *) PG_GETARG_POINTER(1))->filter, &v);
	if (sf1 == NULL)
		PG_RETURN_POINTER(union_state_new(&v, aggcxt));
	union_state_add(sf1, &v);
	PG_RETURN_POINTER(sf1);
}

/* sbf_union_agg serialize: the filter's payload. */
Datum
sbf_union_agg_serialize(PG_FUNCTION_ARGS)
{
	(void) sbf_agg_context(fcinfo, "sbf_union_agg_serialize");
	PG_RETURN_BYTEA_P((bytea *) union_agg_copy(&((LegacyUnionState *) PG_GETARG_POINTER(0))->filter));
}

/* sbf_union_agg deserialize: a payload that passes the one validator. */
Datum
sbf_union_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b;
	SbfView		v;

	(void) sbf_agg_context(fcinfo, "sbf_union_agg_deserialize");
	b = PG_GETARG_BYTEA_PP(0);
	sbf_check_payload((const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), &v);
	if (sbf_view_is_window(&v))
		sbf_window_refuse("sbf_union_agg at extension version 1.0",
						  "ALTER EXTENSION sbf UPDATE.");
	PG_RETURN_POINTER(union_state_new(&v, CurrentMemoryContext));
}
