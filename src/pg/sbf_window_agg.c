/*
 * sbf_window_agg.c
 *	  The aggregate sbf_window_agg(element, at [, bucket [, buckets
 *	  [, error_rate]]]): a windowed filter built from interaction rows, each
 *	  bucket right-sized for its distinct count.
 *
 * The state is a scalablebloom (a real type, so parallel query and Citus
 * aggregate partially): flat, it is a windowed value holding only (hash,
 * age) pairs -- each hash with the newest bucket it was seen in, pairs older
 * than the window dropped.  While rows come it is an expanded object whose
 * (hash, bucket) pairs are appended unsorted and normalized (sorted, one per
 * hash, old ones dropped) when the buffer is full, so a row costs no copy.
 * The final function compacts every bucket (WINDOW SIZING in sbf_core.h).
 * The result depends only on the set of (element, bucket) rows, so it is
 * the same bytes in any row order, serially, in parallel and under Citus:
 * a partial state drops only pairs older than its own newest bucket minus
 * the window, which are older than the final newest minus the window too.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "port/pg_bswap.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "sbf.h"
#include "sbf_agg_support.h"
#include "sbf_app.h"
#include "sbf_elem.h"
#include "sbf_errors.h"
#include "sbf_window_glue.h"

PG_FUNCTION_INFO_V1(sbf_window_agg_trans_text);
PG_FUNCTION_INFO_V1(sbf_window_agg_trans_int8);
PG_FUNCTION_INFO_V1(sbf_window_agg_trans_bytea);
PG_FUNCTION_INFO_V1(sbf_window_agg_combine);
PG_FUNCTION_INFO_V1(sbf_window_agg_final);


/* the expanded state */
typedef struct WinAggState
{
	ExpandedObjectHeader hdr;
	SbfWinParams p;
	bool		started;
	int64		newest;
	SbfWinPair *pairs;
	size_t		n;
	size_t		cap;
	size_t		normalized;		/* pairs[0..normalized) are normalized */
	ScalableBloom *flat;		/* cached flat form, NULL if stale */
} WinAggState;

/* Sorts and de-duplicates the pairs (see sbf_win_pairs_normalize). */
static void
win_agg_normalize(WinAggState *st)
{
	if (st->normalized == st->n)
		return;
	st->n = sbf_win_pairs_normalize(st->pairs, st->n, st->newest, st->p.buckets);
	st->normalized = st->n;
}

/* The state as a window of pairs only (normalized first). */
static void
win_agg_window(WinAggState *st, SbfWindow *w)
{
	SbfStatus	s;

	win_agg_normalize(st);
	if (!st->started)
	{
		sbf_win_init(w, &st->p, &sbf_palloc_allocator);
		return;
	}
	s = sbf_win_from_pairs(w, &st->p, st->newest, st->pairs, st->n,
						   &sbf_palloc_allocator);
	if (s != SBF_OK)
		sbf_report_status(s);
}

/* The flat form, built once per change in the object's context. */
static ScalableBloom *
win_agg_flat(WinAggState *st)
{
	MemoryContext old;
	SbfWindow	w;
	SbfFilter	nf;
	SbfStatus	s;

	if (st->flat != NULL)
		return st->flat;
	old = MemoryContextSwitchTo(st->hdr.eoh_context);
	win_agg_window(st, &w);
	s = sbf_win_encode(&w, &nf, VARHDRSZ);
	sbf_win_free(&w);
	if (s != SBF_OK)
		sbf_report_status(s);
	st->flat = sbf_filter_finish(&nf);
	MemoryContextSwitchTo(old);
	return st->flat;
}

static Size
win_agg_flat_size(ExpandedObjectHeader *eohptr)
{
	return VARSIZE(win_agg_flat((WinAggState *) eohptr));
}

static void
win_agg_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	ScalableBloom *flat = win_agg_flat((WinAggState *) eohptr);

	Assert(allocated_size == VARSIZE(flat));
	memcpy(result, flat, VARSIZE(flat));
}

static const ExpandedObjectMethods win_agg_methods = {
	win_agg_flat_size,
	win_agg_flatten
};

/* A new empty state in a child context of aggcxt. */
static WinAggState *
win_agg_new(MemoryContext aggcxt, const SbfWinParams *p)
{
	MemoryContext cxt = AllocSetContextCreate(aggcxt, "sbf_window_agg state",
											  ALLOCSET_DEFAULT_SIZES);
	WinAggState *st = MemoryContextAllocZero(cxt, sizeof(WinAggState));

	EOH_init_header(&st->hdr, &win_agg_methods, cxt);
	st->p = *p;
	st->cap = 64;
	st->pairs = MemoryContextAlloc(cxt, st->cap * sizeof(SbfWinPair));
	return st;
}

/* Makes room for one more pair, normalizing first when that frees room. */
static void
win_agg_room(WinAggState *st)
{
	if (st->n < st->cap)
		return;
	win_agg_normalize(st);
	if (st->n * 2 <= st->cap)
		return;
	if (st->cap >= MaxAllocHugeSize / sizeof(SbfWinPair) / 2)
		sbf_report_status(SBF_E_TOO_LARGE);
	st->cap *= 2;
	st->pairs = repalloc_huge(st->pairs, st->cap * sizeof(SbfWinPair));
}

/* Adds (h, bucket b) to the state. */
static void
win_agg_add(WinAggState *st, uint64 h, int64 b)
{
	st->flat = NULL;
	if (!st->started || b > st->newest)
	{
		st->started = true;
		st->newest = b;
	}
	/* b <= newest; the age in unsigned arithmetic cannot wrap */
	if (sbf_win_age_of(st->newest, b) >= st->p.buckets)
		return;
	win_agg_room(st);
	st->pairs[st->n].hash = h;
	st->pairs[st->n].bucket = b;
	st->n++;
}

/*
 * Raises 22023 unless p (a row's or a partial state's) equals the state's
 * parameters.  The one rule for rows whose bucket, buckets or error_rate
 * differ: the transition compares every row with its state and the combine
 * every partial state with its own, so a serial and a parallel plan both
 * refuse such rows with this error.
 */
static void
win_agg_same_params(const WinAggState *st, const SbfWinParams *p, const char *what)
{
	if (p->width != st->p.width || p->buckets != st->p.buckets ||
		p->error_rate != st->p.error_rate)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sbf_window_agg bucket, buckets and error_rate must be the same for all rows"),
				 errdetail("%s", what),
				 errhint("Pass constants for bucket, buckets and error_rate, or group by them.")));
}

/* Adds the pairs of a flat windowed value with the same parameters. */
static void
win_agg_add_flat(WinAggState *st, const SbfWinView *v)
{
	const uint8 *hashes = v->buf + v->pairs_offset;
	const uint8 *ages = hashes + (size_t) v->npairs * 8;
	SbfWinParams vp = {v->width, v->buckets, v->error_rate};
	uint32		i;

	win_agg_same_params(st, &vp, "Two partial states of one group differ in their parameters.");
	if (v->nsegments != 0 || sbf_win_check_pairs(v) != SBF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an sbf_window_agg state must hold sorted pairs only"),
				 errdetail("A partial state has segments, or pairs out of order or of an age past the window.")));
	if (!(v->flags & SBF_WIN_FLAG_STARTED))
		return;
	for (i = 0; i < v->npairs; i++)
	{
		uint64		h;
		uint16		a;

		memcpy(&h, hashes + (size_t) i * 8, 8);
		memcpy(&a, ages + (size_t) i * 2, 2);
#ifdef WORDS_BIGENDIAN
		h = pg_bswap64(h);
		a = pg_bswap16(a);
#endif
		/* a pair older than INT64_MIN is in no bucket a time can reach */
		if (v->newest >= PG_INT64_MIN + (int64) a)
			win_agg_add(st, h, v->newest - (int64) a);
	}
	if (v->newest > st->newest || !st->started)
	{
		st->started = true;
		st->newest = v->newest;
	}
}

/* The windowed view of a flat state argument. */
static void
flat_view(FunctionCallInfo fcinfo, int argno, SbfWinView *wv)
{
	ScalableBloom *f = PG_GETARG_SCALABLEBLOOM_P(argno);
	SbfStatus	s = sbf_win_parse(SBF_PAYLOAD_PTR(f), SBF_PAYLOAD_LEN(f), wv);

	if (s != SBF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an sbf_window_agg state must be a windowed scalablebloom"),
				 errdetail("Format check failed: %s.", sbf_status_message(s))));
}

/* State argument argno as our read-write state in aggcxt (a flat one loaded). */
static WinAggState *
win_agg_state(FunctionCallInfo fcinfo, int argno, MemoryContext aggcxt)
{
	WinAggState *st = (WinAggState *) sbf_expanded_of(PG_GETARG_DATUM(argno),
													  &win_agg_methods, true);
	SbfWinView	wv;
	SbfWinParams p;

	if (st != NULL)
		return st;
	flat_view(fcinfo, argno, &wv);
	p.width = wv.width;
	p.buckets = wv.buckets;
	p.error_rate = wv.error_rate;
	st = win_agg_new(aggcxt, &p);
	win_agg_add_flat(st, &wv);
	return st;
}

/* The aggregate's parameters from the row (defaults where not given). */
static void
row_params(FunctionCallInfo fcinfo, SbfWinParams *p)
{
	Interval	one_day = {0, 1, 0};
	int			n = PG_NARGS();
	int			i;

	for (i = 3; i < n; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sbf_window_agg bucket, buckets and error_rate must not be NULL"),
					 errdetail("Argument %d is NULL.", i),
					 errhint("Leave an argument out to get its default.")));
	sbf_window_params(n > 3 ? PG_GETARG_INTERVAL_P(3) : &one_day,
					  n > 4 ? PG_GETARG_INT32(4) : 30,
					  n > 5 ? PG_GETARG_FLOAT8(5) : SBF_DEFAULT_ERROR_RATE, p);
}

/* The transition for elements of the given kind. */
static Datum
win_agg_trans(FunctionCallInfo fcinfo, SbfElemKind kind)
{
	MemoryContext aggcxt = sbf_agg_context(fcinfo, "sbf_window_agg_trans");
	WinAggState *st;
	SbfWinParams p;
	int64		b;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		return sbf_agg_keep_state(fcinfo);
	row_params(fcinfo, &p);
	if (PG_ARGISNULL(0))
		st = win_agg_new(aggcxt, &p);
	else
	{
		st = win_agg_state(fcinfo, 0, aggcxt);
		win_agg_same_params(st, &p, "A row's parameters differ from those of the rows before it.");
	}
	b = sbf_window_bucket_at(PG_GETARG_TIMESTAMPTZ(2), st->p.width,
							 "Leave out rows with infinite times.");
	win_agg_add(st, sbf_elem_hash(kind, PG_GETARG_DATUM(1)), b);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

SBF_ENTRY_POINT(sbf_window_agg_trans_text, win_agg_trans(fcinfo, SBF_ELEM_BYTES));
SBF_ENTRY_POINT(sbf_window_agg_trans_int8, win_agg_trans(fcinfo, SBF_ELEM_INT8));
SBF_ENTRY_POINT(sbf_window_agg_trans_bytea, win_agg_trans(fcinfo, SBF_ELEM_BYTES));

/* The windowed view of state argument 1, expanded or flat; only read. */
static void
other_view(FunctionCallInfo fcinfo, SbfWinView *wv)
{
	WinAggState *other = (WinAggState *) sbf_expanded_of(PG_GETARG_DATUM(1),
														 &win_agg_methods, false);
	ScalableBloom *flat;

	if (other == NULL)
	{
		flat_view(fcinfo, 1, wv);
		return;
	}
	flat = win_agg_flat(other);
	if (sbf_win_parse(SBF_PAYLOAD_PTR(flat), SBF_PAYLOAD_LEN(flat), wv) != SBF_OK)
		elog(ERROR, "malformed sbf_window_agg state");
}

/* Combine: the pairs of both partial states. */
Datum
sbf_window_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = sbf_agg_context(fcinfo, "sbf_window_agg_combine");
	WinAggState *st;
	SbfWinView	wv;
	SbfWinParams p;

	if (PG_ARGISNULL(1))
		return sbf_agg_keep_state(fcinfo);
	if (PG_ARGISNULL(0))
	{
		/* never share the second state: start a copy of it */
		other_view(fcinfo, &wv);
		p.width = wv.width;
		p.buckets = wv.buckets;
		p.error_rate = wv.error_rate;
		st = win_agg_new(aggcxt, &p);
	}
	else
	{
		st = win_agg_state(fcinfo, 0, aggcxt);
		other_view(fcinfo, &wv);
	}
	win_agg_add_flat(st, &wv);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

/* Final: every bucket compacted; the state is only read. */
Datum
sbf_window_agg_final(PG_FUNCTION_ARGS)
{
	WinAggState *st;
	SbfWindow	w;
	SbfFilter	nf;
	SbfStatus	s;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (WinAggState *) sbf_expanded_of(PG_GETARG_DATUM(0), &win_agg_methods, false);
	if (st != NULL)
		win_agg_window(st, &w);
	else
	{
		SbfWinView	wv;

		flat_view(fcinfo, 0, &wv);
		s = sbf_win_load(&w, &wv, &sbf_palloc_allocator);
		if (s != SBF_OK)
			sbf_report_status(s);
	}
	s = sbf_win_agg_finish(&w, &nf, VARHDRSZ);
	sbf_win_free(&w);
	if (s != SBF_OK)
		sbf_report_status(s);
	PG_RETURN_SCALABLEBLOOM_P(sbf_filter_finish(&nf));
}
