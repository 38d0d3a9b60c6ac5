/*
 * sbf_window.c
 *	  SQL functions of windowed filters (format version 3, "WINDOWED FORM" in
 *	  src/core/common/sbf_core.h): sbf_window_empty, timed adds, lookups since a
 *	  time, sbf_expire, and the windowed branches of the union, #, sbf_info
 *	  and the plain lookups (every bucket).
 *
 * A windowed value is a scalablebloom like any other: it enters through the
 * one validator (sbf_validate dispatches on the version byte), and
 * sbf_view_of gives a view with version 3 and nothing else, which every
 * segmented reader either dispatches here or refuses (sbf_window_refuse).
 * Lookups open the filter with sbf_probe_open, so a stored window is cached
 * like a plain filter; a windowed value is never read by slices.
 *
 * Times: a bucket is floor(unix microseconds / width); PostgreSQL's
 * timestamptz counts from 2000-01-01, so SBF_UNIX_OFFSET is added.
 *
 * NULLs follow the existing functions: a NULL filter in an add starts a new
 * one (here the default window: 1 day, 30 buckets, 0.01), a NULL element or
 * a NULL time adds nothing and returns the filter (a time is needed to place
 * an element); lookups, sbf_expire and sbf_window_empty are STRICT.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "common/int.h"
#include "common/shortest_dec.h"
#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"

#include "sbf.h"
#include "sbf_app.h"
#include "sbf_elem.h"
#include "sbf_errors.h"
#include "sbf_params.h"
#include "sbf_probe.h"
#include "sbf_window_glue.h"

/* hashes looked up (or hashed) between two interrupt checks */
#define SBF_WIN_COUNT_CHUNK		65536

/* microseconds from 1970-01-01 to 2000-01-01 */
#define SBF_UNIX_OFFSET \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

PG_FUNCTION_INFO_V1(sbf_window_empty);
PG_FUNCTION_INFO_V1(sbf_contains_since_text);
PG_FUNCTION_INFO_V1(sbf_contains_since_int8);
PG_FUNCTION_INFO_V1(sbf_contains_since_bytea);
PG_FUNCTION_INFO_V1(sbf_matches_since_text);
PG_FUNCTION_INFO_V1(sbf_matches_since_int8);
PG_FUNCTION_INFO_V1(sbf_expire);

/* ---- parameters and times ---- */

/* The bucket width of an interval, in microseconds (22023 unless usable). */
static int64
bucket_width(const Interval *iv)
{
	int64		days_us;
	int64		width;

	if (iv->month != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid windowed filter bucket: an interval with months"),
				 errdetail("Months and years have no fixed length, so buckets could not be aligned."),
				 errhint("Give the bucket in days, hours or minutes, e.g. '30 days' instead of '1 month'.")));
	if (pg_mul_s64_overflow((int64) iv->day, USECS_PER_DAY, &days_us) ||
		pg_add_s64_overflow(days_us, iv->time, &width) || width <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid windowed filter bucket: it must be longer than 0"),
				 errdetail("A bucket is a positive length of time."),
				 errhint("Use e.g. '1 day' or '1 hour'.")));
	if (width > SBF_WIN_MAX_WIDTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid windowed filter bucket: it is longer than 3650 days"),
				 errdetail("A bucket is at most 3650 days long."),
				 errhint("Use fewer, shorter buckets: the window is bucket times buckets.")));
	return width;
}

/* Window parameters from SQL arguments, checked (22023 with a hint). */
void
sbf_window_params(const Interval *bucket, int32 buckets, float8 error_rate,
			  SbfWinParams *p)
{
	p->width = bucket_width(bucket);
	if (buckets < 1 || buckets > SBF_WIN_MAX_BUCKETS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid windowed filter buckets: %d", buckets),
				 errdetail("A window holds between 1 and %d buckets.", SBF_WIN_MAX_BUCKETS),
				 errhint("For a longer window use a longer bucket, e.g. '7 days'.")));
	p->buckets = (uint32) buckets;
	sbf_check_error_rate(error_rate);
	p->error_rate = error_rate;
}

/* The default window: 1 day, 30 buckets, error_rate 0.01. */
static void
default_window_params(SbfWinParams *p)
{
	p->width = USECS_PER_DAY;
	p->buckets = 30;
	p->error_rate = SBF_DEFAULT_ERROR_RATE;
}

/*
 * The bucket of an add's time; an infinite time is refused, and so is a time
 * whose bucket would end past the last microsecond an int64 counts from 1970
 * (294247-01-10 04:00:54.775807 UTC): the validator refuses such a newest
 * bucket, so no add, expire or aggregate may make one.
 */
int64
sbf_window_bucket_at(int64 at, int64 width, const char *hint)
{
	int64		us;
	int64		b;

	if (TIMESTAMP_NOT_FINITE(at))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the time of a windowed add must be finite"),
				 errdetail("An element is placed in the bucket of its time."),
				 errhint("%s", hint)));
	if (pg_add_s64_overflow(at, SBF_UNIX_OFFSET, &us) ||
		!sbf_win_bucket_in_range(b = sbf_win_bucket_of(us, width), width))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the time of a windowed add is out of range"),
				 errdetail("Its bucket of " INT64_FORMAT " microseconds would end after 294247-01-10 04:00:54.775807+00, the last time a windowed filter can hold.",
						   width),
				 errhint("Pass an earlier time, or use a shorter bucket.")));
	return b;
}

/* The bucket of an add's time in the timed adds and sbf_expire. */
static int64
at_bucket(TimestampTz at, int64 width)
{
	return sbf_window_bucket_at(at, width, "Pass the time of the interaction, e.g. now().");
}

/* A since time in unix microseconds: -infinity is every bucket, +infinity none. */
static int64
since_us(TimestampTz since)
{
	int64		us;

	if (TIMESTAMP_IS_NOBEGIN(since))
		return SBF_WIN_ALL;
	if (TIMESTAMP_IS_NOEND(since) || pg_add_s64_overflow(since, SBF_UNIX_OFFSET, &us))
		return PG_INT64_MAX;
	return us;
}

/* ---- shared with the other glue files (sbf_window_glue.h) ---- */

void
sbf_window_refuse(const char *fn, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s is not defined for a windowed scalablebloom", fn),
			 errdetail("The filter was made by sbf_window_empty or sbf_window_agg."),
			 errhint("%s", hint)));
	pg_unreachable();
}

/* The windowed view of an SbfView of version 3 (from sbf_view_of). */
static void
window_view(const SbfView *v, SbfWinView *wv)
{
	SbfStatus	st = sbf_win_parse(v->buf, v->len, wv);

	if (st != SBF_OK)
		sbf_report_status(st);
}

int
sbf_window_count(const SbfPlan *p, const uint64 *h, int n, int64 since)
{
	int64		max_age;
	int			found = 0;
	int			i;

	max_age = sbf_win_max_age(&p->wv, sbf_win_since_bucket(since, p->wv.width));
	/* in chunks, with an interrupt check between them (huge arrays) */
	for (i = 0; i < n; i += SBF_WIN_COUNT_CHUNK)
	{
		CHECK_FOR_INTERRUPTS();
		found += (int) sbf_plan_count_since(p, h + i,
											(size_t) Min(n - i, SBF_WIN_COUNT_CHUNK),
											max_age);
	}
	return found;
}

/* A window as a new varlena. */
static ScalableBloom *
window_finish(SbfWindow *w)
{
	SbfFilter	nf;
	SbfStatus	st = sbf_win_encode(w, &nf, VARHDRSZ);

	if (st != SBF_OK)
		sbf_report_status(st);
	sbf_win_free(w);
	return sbf_filter_finish(&nf);
}

/* Raises 22023 for a union whose buckets would not fit their budget. */
static void
window_over_budget(double need)
{
	double		fits = sbf_rate_that_fits(need);

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the union of these windowed filters would exceed their error_rate"),
			 errdetail("A bucket would hold right-sized parts of both filters whose false-positive rates sum to more than error_rate / buckets."),
			 fits < 0.5 ?
			 errhint("Pass error_rate %s or more, as in sbf_union(f, g, %s), or build the combined window from the interaction rows with sbf_window_agg.",
					 float8out_internal(fits), float8out_internal(fits)) :
			 errhint("No error_rate below 0.5 fits; build the combined window from the interaction rows with sbf_window_agg.")));
}

/*
 * a UNION b (b NULL: a alone), bucket by bucket.  error_rate 0: the
 * windows' own, which must be equal; otherwise the result's budget (the 1.1
 * policy: an explicit budget lets different error_rates unite).
 */
ScalableBloom *
sbf_window_union_views(const SbfView *a, const SbfView *b, double error_rate)
{
	SbfWinView	wa;
	SbfWinView	wb;
	SbfWindow	w;
	SbfStatus	st;
	double		need = 0.0;

	if (!sbf_view_is_window(a) || (b != NULL && !sbf_view_is_window(b)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot unite a windowed scalablebloom with a plain one"),
				 errdetail("A windowed filter knows when each element was added; a plain one does not."),
				 errhint("Keep windowed and plain filters apart, or add the plain filter's elements with sbf_add(filter, element, at).")));
	window_view(a, &wa);
	if (b != NULL)
		window_view(b, &wb);
	if (b != NULL &&
		(wa.width != wb.width || wa.buckets != wb.buckets ||
		 (error_rate == 0.0 && wa.error_rate != wb.error_rate)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot unite windowed filters with different parameters"),
				 errdetail("Buckets of " INT64_FORMAT " and " INT64_FORMAT " microseconds, %u and %u buckets, error_rate %s and %s.",
						   wa.width, wb.width, (unsigned) wa.buckets, (unsigned) wb.buckets,
						   float8out_internal(wa.error_rate), float8out_internal(wb.error_rate)),
				 errhint(wa.width != wb.width || wa.buckets != wb.buckets ?
						 "Unite windows made with the same bucket and buckets." :
						 "Unite windows of the same error_rate, or give the result's with sbf_union(f, g, error_rate).")));
	st = sbf_win_load(&w, &wa, &sbf_palloc_allocator);
	if (st == SBF_OK && b != NULL)
		st = sbf_win_union_budget(&w, &wb, error_rate, &need);
	else if (st == SBF_OK && error_rate != 0.0)
		st = sbf_win_rebudget(&w, error_rate, &need);
	if (st == SBF_E_OVER_BUDGET)
		window_over_budget(need);
	if (st != SBF_OK)
		sbf_report_status(st);
	return window_finish(&w);
}

int64
sbf_window_cardinality(const SbfView *v)
{
	SbfWinView	wv;

	window_view(v, &wv);
	return (int64) llround(sbf_win_cardinality(&wv));
}

/* ---- sbf_window_empty ---- */

/* sbf_window_empty(bucket, buckets, error_rate) */
Datum
sbf_window_empty(PG_FUNCTION_ARGS)
{
	SbfWinParams p;
	SbfWindow	w;

	sbf_window_params(PG_GETARG_INTERVAL_P(0), PG_GETARG_INT32(1), PG_GETARG_FLOAT8(2), &p);
	sbf_win_init(&w, &p, &sbf_palloc_allocator);
	PG_RETURN_SCALABLEBLOOM_P(window_finish(&w));
}

/* ---- timed adds ---- */

/*
 * The window of argument 0 loaded into *w, or the default window when it is
 * NULL; false (nothing loaded) when argument 0 is a plain filter.
 */
static bool
window_arg(FunctionCallInfo fcinfo, SbfWindow *w)
{
	ScalableBloom *f;
	SbfView		v;
	SbfWinView	wv;
	SbfStatus	st;

	if (PG_ARGISNULL(0))
	{
		SbfWinParams p;

		default_window_params(&p);
		sbf_win_init(w, &p, &sbf_palloc_allocator);
		return true;
	}
	f = PG_GETARG_SCALABLEBLOOM_P(0);
	sbf_view_of(f, &v);
	if (!sbf_view_is_window(&v))
		return false;
	window_view(&v, &wv);
	st = sbf_win_load(w, &wv, &sbf_palloc_allocator);
	if (st != SBF_OK)
		sbf_report_status(st);
	return true;
}

/*
 * Adds element argument 1 (kind; or an array of et) at time argument 2; a
 * plain filter is handed to plain, the add without a time (the entry points
 * sbf_add_at_* are in sbf_ops.c with the other adds).
 */
Datum
sbf_window_add_at(FunctionCallInfo fcinfo, SbfElemKind kind, const SbfElemType *et,
				  PGFunction plain)
{
	SbfWindow	w;
	int64		b;

	if (!window_arg(fcinfo, &w))
		return plain(fcinfo);	/* a plain filter ignores the time */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		/* nothing to place: the filter as it is (or a new default window) */
		if (!PG_ARGISNULL(0))
			PG_RETURN_DATUM(PG_GETARG_DATUM(0));
		PG_RETURN_SCALABLEBLOOM_P(window_finish(&w));
	}
	b = at_bucket(PG_GETARG_TIMESTAMPTZ(2), w.p.width);
	if (et == NULL)
	{
		SbfStatus	st = sbf_win_add(&w, b, sbf_elem_hash(kind, PG_GETARG_DATUM(1)));

		if (st != SBF_OK)
			sbf_report_status(st);
	}
	else
	{
		int			k;
		uint64	   *h = sbf_elem_hash_array(PG_GETARG_ARRAYTYPE_P(1), et, &k);
		SbfStatus	st;

		/* one batch: the bytes of one add per element, in linear time */
		st = sbf_win_add_many(&w, b, h, (size_t) k);
		if (st != SBF_OK)
			sbf_report_status(st);
		pfree(h);
	}
	PG_RETURN_SCALABLEBLOOM_P(window_finish(&w));
}

/* ---- sbf_expire ---- */

/* sbf_expire(filter, now): the window slid to now; a plain filter as it is. */
Datum
sbf_expire(PG_FUNCTION_ARGS)
{
	SbfWindow	w;
	SbfStatus	st;

	if (!window_arg(fcinfo, &w))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	st = sbf_win_slide(&w, at_bucket(PG_GETARG_TIMESTAMPTZ(1), w.p.width));
	if (st != SBF_OK)
		sbf_report_status(st);
	PG_RETURN_SCALABLEBLOOM_P(window_finish(&w));
}

/* ---- lookups since a time ---- */

/*
 * How many of n hashes filter argument 0 holds in the buckets that end after
 * time argument 2 (a plain filter: anywhere).
 */
static int
count_since(FunctionCallInfo fcinfo, const uint64 *h, int n)
{
	SbfProbe	p;
	int			hits;

	sbf_probe_open(fcinfo, 0, (uint32) Max(n, 1), &p);
	if (p.plan != NULL && sbf_plan_windowed(p.plan))
		hits = sbf_window_count(p.plan, h, n, since_us(PG_GETARG_TIMESTAMPTZ(2)));
	else
		hits = sbf_probe_count(&p, h, n);
	sbf_probe_close(&p);
	return hits;
}

static pg_attribute_always_inline Datum
contains_since(FunctionCallInfo fcinfo, SbfElemKind kind)
{
	uint64		h = sbf_elem_hash(kind, PG_GETARG_DATUM(1));

	PG_RETURN_BOOL(count_since(fcinfo, &h, 1) > 0);
}

/* sbf_contains(scalablebloom, text | bigint | bytea, since timestamptz) */
SBF_ENTRY_POINT(sbf_contains_since_text, contains_since(fcinfo, SBF_ELEM_BYTES));
SBF_ENTRY_POINT(sbf_contains_since_int8, contains_since(fcinfo, SBF_ELEM_INT8));
SBF_ENTRY_POINT(sbf_contains_since_bytea, contains_since(fcinfo, SBF_ELEM_BYTES));

/* Counts the non-NULL elements of array argument 1 found since argument 2. */
static Datum
matches_since(FunctionCallInfo fcinfo, const SbfElemType *et)
{
	int			m;
	uint64	   *h = sbf_elem_hash_array(PG_GETARG_ARRAYTYPE_P(1), et, &m);

	if (m == 0)
		PG_RETURN_INT32(0);
	PG_RETURN_INT32(count_since(fcinfo, h, m));
}

/* sbf_matches(scalablebloom, text[] | bigint[], since timestamptz) */
SBF_ENTRY_POINT(sbf_matches_since_text, matches_since(fcinfo, sbf_elem_type(TEXTOID)));
SBF_ENTRY_POINT(sbf_matches_since_int8, matches_since(fcinfo, sbf_elem_type(INT8OID)));

/* ---- sbf_info ---- */

/* Appends the start of bucket b as a JSON string in UTC (ISO 8601). */
static void
json_bucket_start(StringInfo buf, int64 b, int64 width)
{
	struct pg_tm tm;
	fsec_t		fsec;
	int64		us;

	if (pg_mul_s64_overflow(b, width, &us) ||
		pg_sub_s64_overflow(us, SBF_UNIX_OFFSET, &us) ||
		timestamp2tm((Timestamp) us, NULL, &tm, &fsec, NULL, NULL) != 0)
	{
		appendStringInfoString(buf, "null");
		return;
	}
	appendStringInfo(buf, "\"%04d-%02d-%02dT%02d:%02d:%02d.%06dZ\"",
					 tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min,
					 tm.tm_sec, (int) fsec);
}

/* One bucket of sbf_info: start, age, count, bytes, fpr bound, segment kinds. */
static void
json_bucket(StringInfo buf, const SbfWinView *v, uint32 age, const uint32 *npairs)
{
	size_t		off = v->bits_offset;
	uint64		count = npairs[age];
	uint64		bytes = (uint64) npairs[age] * SBF_WIN_PAIR_BYTES;
	uint32		nseg = 0;
	double		fpr = 0.0;
	uint32		j;
	StringInfoData kinds;		/* the segments' kinds, in directory order */

	initStringInfo(&kinds);
	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(v, j, &off, &seg);
		if (seg.age != age)
			continue;
		appendStringInfo(&kinds, "%s\"%s\"", nseg > 0 ? ", " : "", seg.ops->name);
		nseg++;
		count += seg.count;
		bytes += sbf_win_entry_bytes(v) + seg.bytes;
		fpr += sbf_win_segment_fpr(&seg);
	}
	appendStringInfoString(buf, "{\"start\": ");
	if (v->newest < PG_INT64_MIN + (int64) age)
		appendStringInfoString(buf, "null");	/* before any int64 time */
	else
		json_bucket_start(buf, v->newest - (int64) age, v->width);
	appendStringInfo(buf, ", \"age\": %u, \"count\": " UINT64_FORMAT
					 ", \"pairs\": %u, \"segments\": %u, \"bytes\": " UINT64_FORMAT
					 ", \"fpr_bound\": ",
					 age, count, npairs[age], nseg, bytes);
	sbf_append_json_float(buf, fpr);
	appendStringInfo(buf, ", \"kinds\": [%s]}", kinds.data);
	pfree(kinds.data);
}

Datum
sbf_window_info(const SbfView *view)
{
	SbfWinView	v;
	StringInfoData buf;
	uint32	   *npairs;
	bool	   *used;
	size_t		off;
	uint32		i;
	bool		first = true;

	window_view(view, &v);
	/* npairs is indexed by the pairs' ages: the parse does not check them */
	if (sbf_win_check_pairs(&v) != SBF_OK)
		sbf_report_status(SBF_E_WINDOW);
	npairs = palloc0(sizeof(uint32) * v.buckets);
	used = palloc0(sizeof(bool) * v.buckets);
	for (i = 0; i < v.npairs; i++)
	{
		uint16		a = (uint16) (v.buf[v.pairs_offset + (size_t) v.npairs * 8 + i * 2] |
								  (v.buf[v.pairs_offset + (size_t) v.npairs * 8 + i * 2 + 1] << 8));

		npairs[a]++;
		used[a] = true;
	}
	off = v.bits_offset;
	for (i = 0; i < v.nsegments; i++)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(&v, i, &off, &seg);
		used[seg.age] = true;
	}
	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"version\": %d, \"form\": \"window\", \"hash\": \"xxh3_64\""
					 ", \"bucket_us\": " INT64_FORMAT ", \"buckets\": %u, \"error_rate\": ",
					 (int) v.version, v.width, (unsigned) v.buckets);
	sbf_append_json_float(&buf, v.error_rate);
	appendStringInfoString(&buf, ", \"newest_bucket_start\": ");
	if (v.flags & SBF_WIN_FLAG_STARTED)
		json_bucket_start(&buf, v.newest, v.width);
	else
		appendStringInfoString(&buf, "null");
	appendStringInfo(&buf, ", \"pairs\": %u, \"segments\": %u, \"cardinality\": " INT64_FORMAT
					 ", \"fpr_bound\": ",
					 v.npairs, v.nsegments, (int64) llround(sbf_win_cardinality(&v)));
	sbf_append_json_float(&buf, sbf_win_fpr_bound(&v));
	appendStringInfo(&buf, ", \"bytes\": %zu, \"window\": [", v.len + VARHDRSZ);
	for (i = 0; i < v.buckets; i++)
	{
		if (!used[i])
			continue;
		if (!first)
			appendStringInfoString(&buf, ", ");
		first = false;
		json_bucket(&buf, &v, i, npairs);
	}
	appendStringInfoString(&buf, "]}");
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data));
}
