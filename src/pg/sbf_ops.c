/*
 * sbf_ops.c
 *	  SQL functions of the scalablebloom type: creating, adding, membership,
 *	  hit counts, cardinality, union and the sbf_info() report.
 *
 * Functions that return a changed filter never touch their input datum:
 * they copy it into a new core SbfFilter (with room for a varlena header in
 * front), change the copy and wrap it as the result.  Writes build a view
 * over the detoasted value with sbf_view_of(), which checks only header and
 * directory: the full validator ran when the value entered the database.
 * Membership tests and hit counts go through sbf_probe_open() (sbf_cache.c),
 * which gives the value's lookup plan (src/core/plan/sbf_plan.h), built once per
 * value and kept with the session cache's copies (validated on every use)
 * and in the call site's memo, or reads only the needed chunks of a large
 * value for a single lookup; cardinality and sbf_info read header, directory
 * and HyperLogLog through sbf_prefix_open().
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "common/shortest_dec.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"

#include "sbf.h"
#include "sbf_app.h"
#include "sbf_elem.h"
#include "sbf_errors.h"
#include "sbf_kind.h"
#include "sbf_params.h"
#include "sbf_probe.h"
#include "sbf_window_glue.h"

/*
 * Extra room given to a copy that receives one element: enough for the
 * sparse HyperLogLog to grow by an entry without reallocating.
 */
#define SBF_ADD_EXTRA		64

/*
 * What sbf_concat_any does with its right-hand type, cached in fn_extra with
 * the type it was resolved for: elem NULL means the union.
 */
typedef struct SbfAnyCache
{
	Oid			argtype;
	const SbfElemType *elem;	/* the element type, or NULL: union */
	bool		array;			/* an array of elem */
} SbfAnyCache;

PG_FUNCTION_INFO_V1(sbf_empty);
PG_FUNCTION_INFO_V1(sbf_add_text);
PG_FUNCTION_INFO_V1(sbf_add_int8);
PG_FUNCTION_INFO_V1(sbf_add_bytea);
PG_FUNCTION_INFO_V1(sbf_add_text_array);
PG_FUNCTION_INFO_V1(sbf_add_int8_array);
PG_FUNCTION_INFO_V1(sbf_add_at_text);
PG_FUNCTION_INFO_V1(sbf_add_at_int8);
PG_FUNCTION_INFO_V1(sbf_add_at_bytea);
PG_FUNCTION_INFO_V1(sbf_add_at_text_array);
PG_FUNCTION_INFO_V1(sbf_add_at_int8_array);
PG_FUNCTION_INFO_V1(sbf_concat_any);
PG_FUNCTION_INFO_V1(sbf_contains_text);
PG_FUNCTION_INFO_V1(sbf_contains_int8);
PG_FUNCTION_INFO_V1(sbf_contains_bytea);
PG_FUNCTION_INFO_V1(sbf_contained_text);
PG_FUNCTION_INFO_V1(sbf_contained_int8);
PG_FUNCTION_INFO_V1(sbf_contained_bytea);
PG_FUNCTION_INFO_V1(sbf_matches_text);
PG_FUNCTION_INFO_V1(sbf_matches_int8);
PG_FUNCTION_INFO_V1(sbf_cardinality_pg);
PG_FUNCTION_INFO_V1(sbf_union_pg);
PG_FUNCTION_INFO_V1(sbf_union_budget_pg);
PG_FUNCTION_INFO_V1(sbf_info);

/* ---- creating and adding ---- */

/* A new empty filter with the default parameters. */
static ScalableBloom *
new_default(void)
{
	SbfParams	p;
	SbfFilter	nf;
	SbfStatus	st;

	sbf_default_params(&p);
	st = sbf_create(&nf, &p, VARHDRSZ, &sbf_palloc_allocator);
	if (st != SBF_OK)
		sbf_report_status(st);
	return sbf_filter_finish(&nf);
}

/* sbf_empty(capacity, error_rate, growth, tightening): an empty filter. */
Datum
sbf_empty(PG_FUNCTION_ARGS)
{
	int64		capacity = PG_GETARG_INT64(0);
	float8		error_rate = PG_GETARG_FLOAT8(1);
	int32		growth = PG_GETARG_INT32(2);
	float8		tightening = PG_GETARG_FLOAT8(3);
	SbfParams	p;
	SbfFilter	nf;
	SbfStatus	st;

	sbf_params_from_sql(capacity, error_rate, growth, tightening, &p);

	/* the core sizes the first segment before it allocates anything */
	st = sbf_create(&nf, &p, VARHDRSZ, &sbf_palloc_allocator);
	if (st == SBF_E_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("scalablebloom capacity " INT64_FORMAT " is too large for error_rate %s",
						capacity, float8out_internal(error_rate)),
				 errdetail("The first segment would exceed the maximum value size of %zu bytes.",
						   (size_t) SBF_MAX_BYTES),
				 errhint("Use a smaller capacity; the filter grows beyond it by itself.")));
	if (st != SBF_OK)
		sbf_report_status(st);
	PG_RETURN_SCALABLEBLOOM_P(sbf_filter_finish(&nf));
}

/*
 * Starts the result of a write from filter argument 0: a new default filter
 * when it is NULL (NULL || x starts one), else over the argument's view
 * sbf_delta (delta) or a copy with extra bytes of room.  A windowed argument
 * is refused with fn and hint, as by sbf_window_refuse.
 */
void
sbf_start_result(FunctionCallInfo fcinfo, SbfFilter *nf, size_t extra,
				 bool delta, const char *fn, const char *hint)
{
	SbfStatus	st;

	if (PG_ARGISNULL(0))
	{
		SbfParams	p;

		sbf_default_params(&p);
		st = sbf_create(nf, &p, VARHDRSZ, &sbf_palloc_allocator);
	}
	else
	{
		ScalableBloom *f = PG_GETARG_SCALABLEBLOOM_P(0);
		SbfView		v;

		sbf_view_of(f, &v);
		if (sbf_view_is_window(&v))
			sbf_window_refuse(fn, hint);
		st = delta ? sbf_delta(nf, &v, VARHDRSZ, &sbf_palloc_allocator) :
			sbf_copy(nf, &v, VARHDRSZ, extra, &sbf_palloc_allocator);
		PG_FREE_IF_COPY(f, 0);
	}
	if (st != SBF_OK)
		sbf_report_status(st);
}

/* Starts the result of an add without a time (see sbf_start_result). */
static void
start_add(FunctionCallInfo fcinfo, SbfFilter *nf)
{
	sbf_start_result(fcinfo, nf, SBF_ADD_EXTRA, false, "an add without a time",
					 "Pass the time of the interaction: sbf_add(filter, element, at).");
}

/*
 * The result of adding a NULL element: the filter argument as it is, or an
 * empty default filter if that is NULL too (a filter is never lost to NULL).
 */
static Datum
add_null(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_SCALABLEBLOOM_P(new_default());
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* Adds one element hash to a copy of argument 0. */
static Datum
add_one(FunctionCallInfo fcinfo, uint64 h)
{
	SbfFilter	nf;
	SbfStatus	st;

	start_add(fcinfo, &nf);
	st = sbf_add_hash(&nf, h, NULL);
	if (st != SBF_OK)
		sbf_report_status(st);
	PG_RETURN_SCALABLEBLOOM_P(sbf_filter_finish(&nf));
}

/* Walks the non-NULL elements of an array argument, hashing each. */
typedef struct ElemArray
{
	const SbfElemType *et;		/* the element type */
	array_iter	it;
	int			nitems;
	int			i;				/* the next element */
} ElemArray;

/* Starts walking array argument argno, whose elements have type et. */
static void
elem_array_start(FunctionCallInfo fcinfo, int argno, const SbfElemType *et,
				 ElemArray *a)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(argno);

	a->et = et;
	a->nitems = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	a->i = 0;
	sbf_array_iter_setup(&a->it, (AnyArrayType *) arr, et->typlen,
						 et->typbyval, et->typalign);
}

/* Sets *h to the hash of the next non-NULL element; false past the last. */
static inline bool
elem_array_next(ElemArray *a, uint64 *h)
{
	while (a->i < a->nitems)
	{
		bool		isnull;
		Datum		d;

		/* a big array is a long loop: let a cancel or timeout in */
		if ((a->i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		d = sbf_array_iter_next(&a->it, &isnull, a->i++, a->et->typlen,
							a->et->typbyval, a->et->typalign);
		if (!isnull)
		{
			*h = sbf_elem_hash(a->et->kind, d);
			return true;
		}
	}
	return false;
}

/* Adds every non-NULL element of array argument 1 to argument 0. */
static Datum
add_array(FunctionCallInfo fcinfo, const SbfElemType *et)
{
	ElemArray	a;
	SbfFilter	nf;
	uint64		h;

	if (PG_ARGISNULL(1))
		return add_null(fcinfo);
	elem_array_start(fcinfo, 1, et, &a);
	start_add(fcinfo, &nf);
	while (elem_array_next(&a, &h))
	{
		SbfStatus	st = sbf_add_hash(&nf, h, NULL);

		if (st != SBF_OK)
			sbf_report_status(st);
	}
	PG_RETURN_SCALABLEBLOOM_P(sbf_filter_finish(&nf));
}

/*
 * Adds element argument 1 of the given kind to argument 0 (a NULL element
 * leaves the filter as it is).  Inline, so each entry point hashes its kind
 * directly.
 */
static pg_attribute_always_inline Datum
add_elem(FunctionCallInfo fcinfo, SbfElemKind kind)
{
	if (PG_ARGISNULL(1))
		return add_null(fcinfo);
	return add_one(fcinfo, sbf_elem_hash(kind, PG_GETARG_DATUM(1)));
}

/* sbf_add(scalablebloom, text | bigint | bytea) */
SBF_ENTRY_POINT(sbf_add_text, add_elem(fcinfo, SBF_ELEM_BYTES));
SBF_ENTRY_POINT(sbf_add_int8, add_elem(fcinfo, SBF_ELEM_INT8));
SBF_ENTRY_POINT(sbf_add_bytea, add_elem(fcinfo, SBF_ELEM_BYTES));

/* sbf_add(scalablebloom, text[] | bigint[]): NULL elements are skipped. */
SBF_ENTRY_POINT(sbf_add_text_array, add_array(fcinfo, sbf_elem_type(TEXTOID)));
SBF_ENTRY_POINT(sbf_add_int8_array, add_array(fcinfo, sbf_elem_type(INT8OID)));

/*
 * sbf_add(scalablebloom, text | bigint | bytea | text[] | bigint[], at
 * timestamptz): a windowed filter places the element at the time
 * (sbf_window.c), a plain one is handed to the add without a time.
 */
SBF_ENTRY_POINT(sbf_add_at_text, sbf_window_add_at(fcinfo, SBF_ELEM_BYTES, NULL, sbf_add_text));
SBF_ENTRY_POINT(sbf_add_at_int8, sbf_window_add_at(fcinfo, SBF_ELEM_INT8, NULL, sbf_add_int8));
SBF_ENTRY_POINT(sbf_add_at_bytea, sbf_window_add_at(fcinfo, SBF_ELEM_BYTES, NULL, sbf_add_bytea));
SBF_ENTRY_POINT(sbf_add_at_text_array, sbf_window_add_at(fcinfo, SBF_ELEM_BYTES, sbf_elem_type(TEXTOID), sbf_add_text_array));
SBF_ENTRY_POINT(sbf_add_at_int8_array, sbf_window_add_at(fcinfo, SBF_ELEM_INT8, sbf_elem_type(INT8OID), sbf_add_int8_array));

/* ---- union ---- */

/*
 * The union of filters a and b (b may be NULL) within error_rate (0 = the
 * filters' own): see "Merging" in the README and sbf_union.c.
 */
static ScalableBloom *
union_views(const SbfView *va, const SbfView *vb, double error_rate)
{
	SbfUnionSpec spec = {error_rate, true, true};
	SbfView		in[2];
	SbfFilter	nf;
	SbfStatus	st;
	double		bound;

	in[0] = *va;
	if (vb != NULL)
	{
		sbf_check_union_compatible(va, vb, error_rate == 0.0);
		in[1] = *vb;
	}
	st = sbf_union_many(&nf, in, vb != NULL ? 2 : 1, &spec, &bound, VARHDRSZ,
						&sbf_palloc_allocator);
	if (st != SBF_OK)
		sbf_report_union(st, bound, error_rate > 0.0 ? error_rate : va->error_rate);
	return sbf_filter_finish(&nf);
}

/*
 * Union of arguments 0 and 1 within the filters' own error_rate; a NULL side
 * yields the other one, two NULLs yield NULL.
 */
static Datum
union_args(FunctionCallInfo fcinfo)
{
	SbfView		va;
	SbfView		vb;

	if (PG_ARGISNULL(0) && PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(0))
		PG_RETURN_DATUM(PG_GETARG_DATUM(1));
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	sbf_view_of(PG_GETARG_SCALABLEBLOOM_P(0), &va);
	sbf_view_of(PG_GETARG_SCALABLEBLOOM_P(1), &vb);
	if (sbf_view_is_window(&va) || sbf_view_is_window(&vb))
		PG_RETURN_SCALABLEBLOOM_P(sbf_window_union_views(&va, &vb, 0.0));
	PG_RETURN_SCALABLEBLOOM_P(union_views(&va, &vb, 0.0));
}

/* sbf_union(scalablebloom, scalablebloom) */
Datum
sbf_union_pg(PG_FUNCTION_ARGS)
{
	return union_args(fcinfo);
}

/*
 * sbf_union(scalablebloom, scalablebloom, error_rate): the result's budget
 * is error_rate, so filters of different error_rate may unite.  A NULL
 * filter is left out (the other one is re-budgeted alone); a NULL
 * error_rate means the filters' own.
 */
Datum
sbf_union_budget_pg(PG_FUNCTION_ARGS)
{
	SbfView		v[2];
	int			n = 0;
	double		error_rate = 0.0;
	int			i;

	if (!PG_ARGISNULL(2))
	{
		error_rate = PG_GETARG_FLOAT8(2);
		sbf_check_error_rate(error_rate);
	}
	for (i = 0; i < 2; i++)
		if (!PG_ARGISNULL(i))
			sbf_view_of(PG_GETARG_SCALABLEBLOOM_P(i), &v[n++]);
	if (n == 0)
		PG_RETURN_NULL();
	for (i = 0; i < n; i++)
		if (sbf_view_is_window(&v[i]))
		{
			/* each bucket of the result gets error_rate / buckets */
			if (n == 1 && error_rate == 0.0)
				PG_RETURN_DATUM(PG_GETARG_DATUM(PG_ARGISNULL(0) ? 1 : 0));
			PG_RETURN_SCALABLEBLOOM_P(sbf_window_union_views(&v[0], n == 2 ? &v[1] : NULL,
															 error_rate));
		}
	if (n == 1 && error_rate == 0.0)
		PG_RETURN_DATUM(PG_GETARG_DATUM(PG_ARGISNULL(0) ? 1 : 0));
	PG_RETURN_SCALABLEBLOOM_P(union_views(&v[0], n == 2 ? &v[1] : NULL,
										  error_rate));
}

/* Resolves what sbf_concat_any does with a right-hand type (see SbfAnyCache). */
static void
any_resolve(Oid sbftype, Oid argtype, SbfAnyCache *c)
{
	/* domains are looked through, once per call site (the result is cached) */
	Oid			types[2] = {argtype, getBaseType(argtype)};
	Oid			sbfbase = getBaseType(sbftype);
	int			i;

	for (i = 0; i < 2; i++)
	{
		c->elem = NULL;
		c->array = false;
		if (types[i] != sbfbase &&
			(c->elem = sbf_elem_type(types[i])) == NULL)
		{
			c->array = true;
			if ((c->elem = sbf_elem_array_type(types[i])) == NULL)
				continue;
		}
		c->argtype = argtype;
		return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cannot add a value of type %s to a scalablebloom",
					format_type_be(argtype)),
			 errhint("Elements are text, bigint, integer, smallint (the integers hash alike) or bytea values, or arrays of text or integers; || with a scalablebloom forms the union.  Cast other values to one of these types.")));
}

/*
 * scalablebloom || anyelement: the union when the right side is a
 * scalablebloom, else an add of that element.
 *
 * Why this exists instead of ||(scalablebloom, scalablebloom) and of ||
 * operators for bigint, integer, smallint and text[]: PostgreSQL resolves an
 * unknown literal to the other argument's type, and prefers an operator that
 * matches the known argument exactly.  ||(scalablebloom, scalablebloom) would
 * make  seen || 'sku:42'  parse the literal as a filter; ||(scalablebloom,
 * integer) would make  'sku:' || 42  do the same anywhere in the database.
 * A polymorphic right argument never wins those contests, so the literal
 * resolves to text, and filters and integers arrive here.
 */
Datum
sbf_concat_any(PG_FUNCTION_ARGS)
{
	SbfAnyCache *cache = (SbfAnyCache *) fcinfo->flinfo->fn_extra;
	Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, 1);

	if (!OidIsValid(argtype))
		elog(ERROR, "could not determine the type of the value added to a scalablebloom");
	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(SbfAnyCache));
		fcinfo->flinfo->fn_extra = cache;
	}
	if (cache->argtype != argtype)
	{
		/* invalid until resolved: an error leaves no stale resolution */
		cache->argtype = InvalidOid;
		any_resolve(get_fn_expr_argtype(fcinfo->flinfo, 0), argtype, cache);
	}

	if (cache->elem == NULL)
		return union_args(fcinfo);
	if (cache->array)
		return add_array(fcinfo, cache->elem);
	if (PG_ARGISNULL(1))
		return add_null(fcinfo);
	return add_one(fcinfo, sbf_elem_hash(cache->elem->kind, PG_GETARG_DATUM(1)));
}

/* ---- lookups ---- */

/*
 * Membership of the element in the other argument, of the given kind, in
 * filter argument fpos.  The filter is read through sbf_probe_open: from the
 * session cache or the call site's memo, or by slices for a single lookup on
 * a large value.
 */
static pg_attribute_always_inline bool
contains_elem(FunctionCallInfo fcinfo, int fpos, SbfElemKind kind)
{
	uint64		h = sbf_elem_hash(kind, PG_GETARG_DATUM(1 - fpos));
	SbfProbe	p;
	bool		result;

	sbf_probe_open(fcinfo, fpos, 1, &p);
	result = sbf_probe_contains(&p, h);
	sbf_probe_close(&p);
	return result;
}

/* sbf_contains(scalablebloom, text | bigint | bytea) */
SBF_ENTRY_POINT(sbf_contains_text, BoolGetDatum(contains_elem(fcinfo, 0, SBF_ELEM_BYTES)));
SBF_ENTRY_POINT(sbf_contains_int8, BoolGetDatum(contains_elem(fcinfo, 0, SBF_ELEM_INT8)));
SBF_ENTRY_POINT(sbf_contains_bytea, BoolGetDatum(contains_elem(fcinfo, 0, SBF_ELEM_BYTES)));

/* text | bigint | bytea <@ scalablebloom: sbf_contains, arguments swapped */
SBF_ENTRY_POINT(sbf_contained_text, BoolGetDatum(contains_elem(fcinfo, 1, SBF_ELEM_BYTES)));
SBF_ENTRY_POINT(sbf_contained_int8, BoolGetDatum(contains_elem(fcinfo, 1, SBF_ELEM_INT8)));
SBF_ENTRY_POINT(sbf_contained_bytea, BoolGetDatum(contains_elem(fcinfo, 1, SBF_ELEM_BYTES)));

/*
 * Counts the non-NULL elements of argument 1 that are probably in filter
 * argument 0.  The filter is opened once per call (and cached across calls,
 * see sbf_probe_open); elements are hashed in place, with no allocation per
 * element, and looked up SBF_MATCH_BATCH at a time so that their memory
 * accesses overlap (sbf_count_contained).  Duplicates count each time.
 */
#define SBF_MATCH_BATCH 16

static int32
matches_array(FunctionCallInfo fcinfo, const SbfElemType *et)
{
	ElemArray	a;
	SbfProbe	p;
	uint64		batch[SBF_MATCH_BATCH];
	int			nbatch = 0;
	int32		hits = 0;
	uint64		h;

	elem_array_start(fcinfo, 1, et, &a);
	if (a.nitems == 0)
		return 0;
	sbf_probe_open(fcinfo, 0, (uint32) a.nitems, &p);
	while (elem_array_next(&a, &h))
	{
		batch[nbatch++] = h;
		if (nbatch == SBF_MATCH_BATCH)
		{
			hits += sbf_probe_count(&p, batch, nbatch);
			nbatch = 0;
		}
	}
	hits += sbf_probe_count(&p, batch, nbatch);
	sbf_probe_close(&p);
	return hits;
}

/* sbf_matches(scalablebloom, text[] | bigint[]) */
SBF_ENTRY_POINT(sbf_matches_text, Int32GetDatum(matches_array(fcinfo, sbf_elem_type(TEXTOID))));
SBF_ENTRY_POINT(sbf_matches_int8, Int32GetDatum(matches_array(fcinfo, sbf_elem_type(INT8OID))));

/* A count estimate rounded to a bigint (the core's, shared with clients). */
static inline int64
round_count(double est)
{
	return sbf_count_round(est);
}

/*
 * The count estimate (exact, directory or HyperLogLog: sbf_cardinality_parts)
 * rounded to a bigint; fetches the HyperLogLog area only if it is used.
 */
static int64
cardinality_rounded(SbfPrefixRead *r)
{
	return round_count(sbf_cardinality_parts(&r->view,
											 sbf_cardinality_needs_hll(&r->view) ?
											 sbf_prefix_hll(r) : NULL));
}

/*
 * sbf_cardinality(scalablebloom) and prefix operator #: reads header and
 * directory, and the HyperLogLog area only if the estimator uses it, never
 * the bits (O(header) on a stored value).
 */
Datum
sbf_cardinality_pg(PG_FUNCTION_ARGS)
{
	SbfPrefixRead r;
	int64		result;

	sbf_prefix_open(PG_GETARG_DATUM(0), &r);
	result = sbf_view_is_window(&r.view) ? sbf_window_cardinality(&r.view) :
		cardinality_rounded(&r);
	sbf_prefix_close(&r);
	PG_RETURN_INT64(result);
}

/* ---- sbf_info ---- */

/*
 * sbf_info's geometry of a segment: its kind's keys (sbf_segment_info_keys,
 * docs/format4.md, sections 3-5).
 */
static void
info_geometry(StringInfo buf, const SbfSegmentDesc *d)
{
	SbfInfoKey	keys[SBF_INFO_MAX_KEYS];
	int			n = sbf_segment_info_keys(d, keys);
	int			i;

	for (i = 0; i < n; i++)
		appendStringInfo(buf, ", \"%s\": " UINT64_FORMAT, keys[i].key,
						 (uint64) keys[i].value);
}

/*
 * sbf_info's "form" and the keys of the forms without segments: the exact
 * form's hashes and first segment, the compact form's fingerprints, their
 * bits and low bits (docs/format5.md, 3).
 */
static void
info_form(StringInfo buf, const SbfView *v)
{
	appendStringInfo(buf, ", \"form\": \"%s\"",
					 sbf_is_exact(v) ? "exact" :
					 sbf_is_compact(v) ? "compact" : "segments");
	if (sbf_is_exact(v))
	{
		appendStringInfo(buf, ", \"hashes\": %u, \"first_segment\": {\"capacity\": "
						 UINT64_FORMAT ", \"error_rate\": ",
						 (unsigned) v->nhashes, (uint64) v->first_capacity);
		sbf_append_json_float(buf, v->first_error);
		appendStringInfoChar(buf, '}');
	}
	if (sbf_is_compact(v))
		appendStringInfo(buf, ", \"fingerprints\": " UINT64_FORMAT
						 ", \"fingerprint_bits\": %u, \"low_bits\": %u",
						 (uint64) v->nfp, (unsigned) v->fp_bits,
						 (unsigned) v->fp_low);
}

/*
 * sbf_info(scalablebloom) -> jsonb: format version, parameters, HyperLogLog,
 * form (exact: hashes and first segment), count source, estimates and one
 * object per segment, with its kind.  Reads header, directory and the
 * HyperLogLog area only: fill and fpr_estimate are expected values from the
 * directory's counts (sbf_segment_expected_fill), so the cost does not grow
 * with the bit arrays, but for fpr_bound of a value with kind-1 segments,
 * computed from their bits (sbf_prefix_fpr_bound).
 */
Datum
sbf_info(PG_FUNCTION_ARGS)
{
	SbfPrefixRead r;
	SbfView		v;
	StringInfoData buf;
	const uint8 *hll;
	SbfSegmentDesc *descs;
	uint32		i;

	sbf_prefix_open(PG_GETARG_DATUM(0), &r);
	if (sbf_view_is_window(&r.view))
	{
		Datum		d = sbf_window_info(&r.view);

		sbf_prefix_close(&r);
		PG_RETURN_DATUM(d);
	}
	v = r.view;
	/* read once: the HyperLogLog's own estimate is shown for every value */
	hll = sbf_is_exact(&v) || sbf_is_compact(&v) ? NULL : sbf_prefix_hll(&r);
	initStringInfo(&buf);

	appendStringInfo(&buf, "{\"version\": %u, \"hash\": \"%s\", \"error_rate\": ",
					 (unsigned) v.version,
					 v.hash_id == SBF_HASH_XXH3 ? "xxh3_64" : "unknown");
	sbf_append_json_float(&buf, v.error_rate);
	appendStringInfo(&buf, ", \"growth\": %u, \"tightening\": ", (unsigned) v.growth);
	sbf_append_json_float(&buf, v.tightening);
	appendStringInfo(&buf, ", \"capacity\": " UINT64_FORMAT, (uint64) v.capacity);
	appendStringInfo(&buf,
					 ", \"hll\": {\"precision\": %u, \"form\": \"%s\", \"bytes\": %u",
					 (unsigned) v.hll_p,
					 hll == NULL ? "none" :
					 (v.flags & SBF_FLAG_HLL_DENSE) ? "dense" : "sparse",
					 (unsigned) v.hll_bytes);
	/* the HyperLogLog's own estimate, also when the count comes from elsewhere */
	if (hll != NULL)
		appendStringInfo(&buf, ", \"estimate\": %.0f",
						 sbf_hll_cardinality_parts(&v, hll));
	appendStringInfoChar(&buf, '}');
	info_form(&buf, &v);
	if (v.flags & SBF_FLAG_CHAIN)
		appendStringInfoString(&buf, ", \"continues_chain\": true");
	appendStringInfo(&buf, ", \"count_source\": \"%s\"", sbf_count_source(&v));
	appendStringInfo(&buf, ", \"cardinality\": " INT64_FORMAT,
					 round_count(sbf_cardinality_parts(&v, hll)));
	appendStringInfoString(&buf, ", \"fpr_bound\": ");
	sbf_append_json_float(&buf, sbf_prefix_fpr_bound(&r, PG_GETARG_DATUM(0)));
	appendStringInfoString(&buf, ", \"fpr_estimate\": ");
	sbf_append_json_float(&buf, sbf_expected_fpr(&v));
	appendStringInfo(&buf, ", \"bytes\": %zu, \"segments\": [", r.len + VARHDRSZ);

	/* one walk of the directory for every segment (not one per segment) */
	descs = palloc(sizeof(SbfSegmentDesc) * Max(v.nsegments, 1));
	sbf_segments_describe(&v, descs);
	for (i = 0; i < v.nsegments; i++)
	{
		const SbfSegment *seg = &descs[i].seg;

		appendStringInfo(&buf,
						 "%s{\"kind\": \"%s\", \"capacity\": " UINT64_FORMAT
						 ", \"count\": " UINT64_FORMAT,
						 i > 0 ? ", " : "", sbf_segment_kind_name(seg),
						 (uint64) seg->capacity, (uint64) seg->count);
		info_geometry(&buf, &descs[i]);
		appendStringInfoString(&buf, ", \"fill\": ");
		sbf_append_json_float(&buf, descs[i].expected_fill);
		appendStringInfoString(&buf, ", \"error_rate\": ");
		sbf_append_json_float(&buf, seg->error);
		appendStringInfoChar(&buf, '}');
		CHECK_FOR_INTERRUPTS();
	}
	pfree(descs);
	appendStringInfoString(&buf, "]}");
	sbf_prefix_close(&r);

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}
