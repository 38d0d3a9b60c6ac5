/*
 * sbf_agg.c
 *	  Aggregates that build scalablebloom values: sbf_agg(element
 *	  [, error_rate]) and sbf_union_agg(scalablebloom).
 *
 * sbf_agg does not add rows to a filter as they arrive.  A filter built that
 * way has to guess its size up front and, when the guess is low, becomes a
 * chain of growing segments.  Instead the transition state keeps the set of
 * distinct element hashes; the final function knows n, the number of
 * distinct elements, and builds one segment right-sized for n at error
 * e^1.04 (sbf_sized_error): m = ceil(-n ln p / ln^2 2) bits, 4% above the
 * Bloom optimum at e, so that later || adds still have e - e^1.04 of the
 * error budget to spend on new segments (Almeida et al. 2007).
 * The HyperLogLog receives every hash, so it equals the one the same
 * elements give when added one by one.
 *
 * The set is an ordered linear-probing table (Amble & Knuth 1974): a hash h
 * has the home slot floor(h * nhome / 2^64), which is monotone in h, and the
 * keys are kept in ascending order, so the occupied slots read from left to
 * right are the hashes sorted.  Everything built from a state (the filter,
 * the serialized bytes) therefore depends only on the set, not on the order
 * rows arrived in or on how a parallel plan split them: a combine is an
 * exact set union and a parallel result equals the serial one byte for byte.
 * Slot 0 marks an empty slot; the hash 0 is remembered in a flag.
 *
 * Memory: a state starts at 128 bytes with eight inline slots and doubles at
 * load 0.8 (10 to 20 bytes per distinct element, resized in place with
 * repalloc).  Past SBF_AGG_STREAM_THRESHOLD distinct hashes (10 Mi, a table
 * of 105 MB) it stops collecting: the hashes seen so far go into a real
 * filter whose first segment is sized for them, and every later row is added
 * to that filter, which grows segment by segment as any scalable filter does
 * (compound FPR still <= error_rate, but no longer right-sized).
 *
 * sbf_union_agg keeps a mutable filter: a copy of the first input, then
 * sbf_union with each next one.
 *
 * Both aggregates return NULL for zero rows (or only NULL rows), like
 * PostgreSQL's own aggregates other than count.  Their final functions only
 * read the state, so they may be called more than once (window aggregates).
 */
#include "postgres.h"

#include <string.h>

#include "fmgr.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "sbf.h"

PG_FUNCTION_INFO_V1(sbf_agg_trans_text);
PG_FUNCTION_INFO_V1(sbf_agg_trans_int8);
PG_FUNCTION_INFO_V1(sbf_agg_trans_bytea);
PG_FUNCTION_INFO_V1(sbf_agg_final);
PG_FUNCTION_INFO_V1(sbf_agg_combine);
PG_FUNCTION_INFO_V1(sbf_agg_serialize);
PG_FUNCTION_INFO_V1(sbf_agg_deserialize);
PG_FUNCTION_INFO_V1(sbf_union_agg_trans);
PG_FUNCTION_INFO_V1(sbf_union_agg_final);
PG_FUNCTION_INFO_V1(sbf_union_agg_combine);
PG_FUNCTION_INFO_V1(sbf_union_agg_serialize);
PG_FUNCTION_INFO_V1(sbf_union_agg_deserialize);

/*
 * Distinct hashes a state collects before it streams into a filter.  10 Mi
 * keeps aggregates right-sized up to ten million distinct elements per group
 * (the product's heaviest users have hundreds of thousands) while bounding
 * the table at SBF_AGG_MAX_HOME slots plus overflow, 105 MB.  Test builds
 * may lower it (-DSBF_AGG_STREAM_THRESHOLD=64, a multiple of 4) to exercise
 * the streaming paths with small inputs.
 */
#ifndef SBF_AGG_STREAM_THRESHOLD
#define SBF_AGG_STREAM_THRESHOLD	((uint64) 10 * 1024 * 1024)
#endif

/* The table grows when it would be fuller than 4/5. */
#define SBF_AGG_LOAD_NUM			4
#define SBF_AGG_LOAD_DEN			5
#define SBF_AGG_MAX_HOME \
	(SBF_AGG_STREAM_THRESHOLD / SBF_AGG_LOAD_NUM * SBF_AGG_LOAD_DEN)

/* Slots of the initial, inline table (the state struct is then 128 bytes). */
#define SBF_AGG_INLINE_SLOTS		8

/* Slots after the last home slot, for keys displaced past it. */
#define SBF_AGG_MAX_OVERFLOW		1024

/*
 * Serialized state of sbf_agg (private to this file, but validated as fully
 * as any outside input).  Integers and the double are little-endian.
 *
 *	offset	size	field
 *	0		1		version			1
 *	1		1		mode			0 = hash set, 1 = filter
 *	2		6		reserved		must be 0
 *	8		8		error_rate		0 < e < 0.5
 *	16		8		count			mode 0: number of hashes, 1..threshold;
 *									mode 1: 0
 *	24		...		mode 0: count uint64 hashes, strictly ascending;
 *					mode 1: a format-v1 scalablebloom payload with the same
 *					error_rate (checked by sbf_check_payload)
 */
#define SBF_AGG_SERIAL_VERSION		1
#define SBF_AGG_MODE_SET			0
#define SBF_AGG_MODE_FILTER			1
#define SBF_AGG_SERIAL_HEADER		24

/* A filter that lives in the aggregate context, with its allocator. */
typedef struct SbfAggFilter
{
	SbfAllocator alloc;			/* sbf_palloc_allocator bound to the context */
	SbfFilter	filter;
} SbfAggFilter;

/* Transition state of sbf_agg. */
typedef struct SbfAggState
{
	double		error_rate;
	uint64		nhashes;		/* distinct hashes in the set, 0 included */
	uint64	   *slots;			/* ordered table; inline_slots or palloc'd */
	uint64		nhome;			/* home slots */
	uint64		nslots;			/* allocated slots: nhome plus overflow */
	SbfAggFilter *stream;		/* non-NULL once streaming */
	bool		has_zero;		/* the hash 0 is in the set */
	uint64		inline_slots[SBF_AGG_INLINE_SLOTS];
} SbfAggState;

/* ---- little-endian fields of the serialized state ---- */

/* Stores a uint64 little-endian. */
static inline void
agg_store64(uint8 *p, uint64 v)
{
	int			i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8) (v >> (8 * i));
}

/* Loads a little-endian uint64. */
static inline uint64
agg_load64(const uint8 *p)
{
	uint64		v = 0;
	int			i;

	for (i = 0; i < 8; i++)
		v |= (uint64) p[i] << (8 * i);
	return v;
}

/* True when two doubles have the same bits (NaN-safe, unlike ==). */
static inline bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

/* ---- the ordered hash set ---- */

/* Home slot of h: floor(h * nhome / 2^64) on 32 bits, monotone in h. */
static inline uint64
agg_home(uint64 h, uint64 nhome)
{
	return ((h >> 32) * nhome) >> 32;
}

/* Allocated slots for nhome home slots. */
static inline uint64
agg_nslots(uint64 nhome)
{
	if (nhome <= SBF_AGG_INLINE_SLOTS)
		return SBF_AGG_INLINE_SLOTS;
	return nhome + Min(nhome / 8, SBF_AGG_MAX_OVERFLOW);
}

/*
 * Puts right-aligned keys at their final places: each key goes to
 * max(home, previous place + 1).  That place is never right of where the key
 * is unless the keys from it on cannot fit, in which case false is returned
 * with the keys still in ascending order.
 */
static bool
agg_set_place(SbfAggState *st, uint64 first)
{
	uint64	   *s = st->slots;
	uint64		next = 0;
	uint64		src;

	for (src = first; src < st->nslots; src++)
	{
		uint64		h = s[src];
		uint64		pos = Max(agg_home(h, st->nhome), next);

		if (pos > src)
			return false;
		s[src] = 0;
		s[pos] = h;
		next = pos + 1;
	}
	return true;
}

/*
 * Grows the table to nhome home slots in place: repalloc, move the keys to
 * the right end (keys only move right, so from the last one backwards), then
 * place them.  If the last cluster overflows, double again.
 */
static void
agg_set_resize(SbfAggState *st, uint64 nhome, MemoryContext cxt)
{
	for (;;)
	{
		uint64		nslots = agg_nslots(nhome);
		uint64	   *s;
		uint64		dst;
		uint64		i;

		if (st->slots == st->inline_slots)
		{
			s = MemoryContextAlloc(cxt, nslots * sizeof(uint64));
			memcpy(s, st->inline_slots, st->nslots * sizeof(uint64));
		}
		else
			s = repalloc(st->slots, nslots * sizeof(uint64));
		memset(s + st->nslots, 0, (nslots - st->nslots) * sizeof(uint64));
		st->slots = s;
		st->nslots = nslots;
		st->nhome = nhome;

		dst = nslots;
		for (i = nslots; i-- > 0;)
		{
			if (s[i] != 0)
			{
				uint64		h = s[i];

				s[i] = 0;
				s[--dst] = h;
			}
		}
		if (agg_set_place(st, dst))
			return;
		/* a cluster of 1024+ keys at the end: practically never */
		nhome *= 2;
	}
}

/* The home-slot count for a table that grows past its load limit. */
static uint64
agg_next_home(uint64 nhome)
{
	if (nhome >= SBF_AGG_MAX_HOME)
		return nhome * 2;		/* overflow only; see agg_set_resize */
	return Min(nhome * 2, SBF_AGG_MAX_HOME);
}

/*
 * Steps through the set in ascending order: the hash 0 first if present,
 * then the occupied slots from left to right.  *pos starts at 0.
 */
static inline bool
agg_set_next(const SbfAggState *st, uint64 *pos, uint64 *h)
{
	if (*pos == 0)
	{
		*pos = 1;
		if (st->has_zero)
		{
			*h = 0;
			return true;
		}
	}
	while (*pos <= st->nslots)
	{
		uint64		x = st->slots[*pos - 1];

		(*pos)++;
		if (x != 0)
		{
			*h = x;
			return true;
		}
	}
	return false;
}

/* Parameters of a filter built by sbf_agg: defaults, with error_rate e. */
static void
agg_params(double error_rate, uint64 capacity, SbfParams *p)
{
	sbf_default_params(p);
	p->error_rate = error_rate;
	p->capacity = Max(capacity, 1);
}

/*
 * Switches a state to streaming: a filter whose first segment is right-sized
 * for the hashes collected so far takes them, and the table is freed.
 */
static void
agg_start_streaming(SbfAggState *st, MemoryContext cxt)
{
	SbfAggFilter *sf;
	SbfParams	p;
	SbfStatus	status;
	uint64		pos;
	uint64		h;

	sf = MemoryContextAlloc(cxt, sizeof(SbfAggFilter));
	sf->alloc = sbf_palloc_allocator;
	sf->alloc.ctx = cxt;
	agg_params(st->error_rate, st->nhashes, &p);
	status = sbf_create_sized(&sf->filter, &p, p.capacity, VARHDRSZ, &sf->alloc);
	if (status != SBF_OK)
		sbf_report_status(status);
	for (pos = 0; agg_set_next(st, &pos, &h);)
	{
		status = sbf_add_hash(&sf->filter, h, NULL);
		if (status != SBF_OK)
			sbf_report_status(status);
	}
	if (st->slots != st->inline_slots)
		pfree(st->slots);
	st->slots = st->inline_slots;
	st->nhome = st->nslots = SBF_AGG_INLINE_SLOTS;
	memset(st->inline_slots, 0, sizeof(st->inline_slots));
	st->nhashes = 0;
	st->has_zero = false;
	st->stream = sf;
}

/* Adds a hash to a streaming state's filter. */
static inline void
agg_stream_add(SbfAggState *st, uint64 h)
{
	SbfStatus	status = sbf_add_hash(&st->stream->filter, h, NULL);

	if (status != SBF_OK)
		sbf_report_status(status);
}

/* Adds a hash to a state, growing the table or switching to streaming. */
static void
agg_add(SbfAggState *st, uint64 h, MemoryContext cxt)
{
	uint64	   *s;
	uint64		i;
	uint64		j;

	if (st->stream != NULL)
	{
		agg_stream_add(st, h);
		return;
	}
	if (h == 0)
	{
		if (st->has_zero)
			return;
		if (st->nhashes >= SBF_AGG_STREAM_THRESHOLD)
		{
			agg_start_streaming(st, cxt);
			agg_stream_add(st, h);
			return;
		}
		st->has_zero = true;
		st->nhashes++;
		return;
	}

	for (;;)
	{
		s = st->slots;
		i = agg_home(h, st->nhome);
		while (i < st->nslots && s[i] != 0 && s[i] < h)
			i++;
		if (i < st->nslots && s[i] == h)
			return;				/* seen before: the common case */

		if (st->nhashes >= SBF_AGG_STREAM_THRESHOLD)
		{
			agg_start_streaming(st, cxt);
			agg_stream_add(st, h);
			return;
		}
		if ((st->nhashes + 1) * SBF_AGG_LOAD_DEN > st->nhome * SBF_AGG_LOAD_NUM)
		{
			agg_set_resize(st, agg_next_home(st->nhome), cxt);
			continue;
		}
		/* the run from i up to the next empty slot moves right by one */
		for (j = i; j < st->nslots && s[j] != 0; j++)
			;
		if (j == st->nslots)
		{
			agg_set_resize(st, agg_next_home(st->nhome), cxt);
			continue;
		}
		memmove(s + i + 1, s + i, (j - i) * sizeof(uint64));
		s[i] = h;
		st->nhashes++;
		return;
	}
}

/* A new, empty state in cxt (error_rate already checked). */
static SbfAggState *
agg_state_new(double error_rate, MemoryContext cxt)
{
	SbfAggState *st = MemoryContextAllocZero(cxt, sizeof(SbfAggState));

	st->error_rate = error_rate;
	st->slots = st->inline_slots;
	st->nhome = st->nslots = SBF_AGG_INLINE_SLOTS;
	return st;
}

/* A copy of src in cxt (combine keeps states from deserialize this way). */
static SbfAggState *
agg_state_copy(const SbfAggState *src, MemoryContext cxt)
{
	SbfAggState *st = MemoryContextAlloc(cxt, sizeof(SbfAggState));

	memcpy(st, src, sizeof(SbfAggState));
	st->slots = st->inline_slots;
	if (src->stream != NULL)
	{
		SbfView		v;
		SbfStatus	status;

		st->stream = MemoryContextAlloc(cxt, sizeof(SbfAggFilter));
		st->stream->alloc = sbf_palloc_allocator;
		st->stream->alloc.ctx = cxt;
		sbf_filter_view(&src->stream->filter, &v);
		status = sbf_copy(&st->stream->filter, &v, VARHDRSZ, 0, &st->stream->alloc);
		if (status != SBF_OK)
			sbf_report_status(status);
	}
	else if (src->slots != src->inline_slots)
	{
		st->slots = MemoryContextAlloc(cxt, src->nslots * sizeof(uint64));
		memcpy(st->slots, src->slots, src->nslots * sizeof(uint64));
	}
	return st;
}

/* Raises 22023 when a row's error_rate differs from the aggregate's. */
static void
agg_check_rate(const SbfAggState *st, double error_rate)
{
	SbfParams	p;

	if (same_double(st->error_rate, error_rate))
		return;
	agg_params(error_rate, 1, &p);
	sbf_check_params(&p);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("sbf_agg error_rate must be the same for all rows"),
			 errdetail("The aggregate saw error_rate %s and %s.",
					   float8out_internal(st->error_rate),
					   float8out_internal(error_rate)),
			 errhint("Pass a constant error_rate.")));
}

/* The state argument of a transition function, checked to be in an Agg. */
static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggcxt;
}

/*
 * The shared transition step of sbf_agg: start the state on the first
 * non-NULL element (NULL error_rate = default), then add its hash.
 */
static Datum
agg_trans(FunctionCallInfo fcinfo, MemoryContext aggcxt, uint64 h)
{
	double		error_rate = SBF_DEFAULT_ERROR_RATE;
	SbfAggState *st;

	if (PG_NARGS() > 2 && !PG_ARGISNULL(2))
		error_rate = PG_GETARG_FLOAT8(2);
	if (PG_ARGISNULL(0))
	{
		SbfParams	p;

		agg_params(error_rate, 1, &p);
		sbf_check_params(&p);
		st = agg_state_new(error_rate, aggcxt);
	}
	else
	{
		st = (SbfAggState *) PG_GETARG_POINTER(0);
		agg_check_rate(st, error_rate);
	}
	agg_add(st, h, aggcxt);
	PG_RETURN_POINTER(st);
}

/* The state unchanged, for a NULL element. */
static Datum
agg_skip(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* sbf_agg(text [, error_rate]) transition: hash of the text's bytes. */
Datum
sbf_agg_trans_text(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_agg_trans");

	if (PG_ARGISNULL(1))
		return agg_skip(fcinfo);
	return agg_trans(fcinfo, aggcxt, sbf_hash_text(PG_GETARG_TEXT_PP(1)));
}

/* sbf_agg(bigint [, error_rate]) transition: hash of 8 bytes little-endian. */
Datum
sbf_agg_trans_int8(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_agg_trans");

	if (PG_ARGISNULL(1))
		return agg_skip(fcinfo);
	return agg_trans(fcinfo, aggcxt, sbf_hash_int64(PG_GETARG_INT64(1)));
}

/* sbf_agg(bytea [, error_rate]) transition: hash of the bytes. */
Datum
sbf_agg_trans_bytea(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_agg_trans");

	if (PG_ARGISNULL(1))
		return agg_skip(fcinfo);
	return agg_trans(fcinfo, aggcxt, sbf_hash_bytea(PG_GETARG_BYTEA_PP(1)));
}

/* A varlena copy of a mutable filter's payload. */
static ScalableBloom *
agg_filter_copy(const SbfFilter *f)
{
	ScalableBloom *result = palloc(VARHDRSZ + f->len);

	SET_VARSIZE(result, VARHDRSZ + f->len);
	memcpy(result->data, SBF_PAYLOAD(f), f->len);
	return result;
}

/*
 * sbf_agg final: one segment right-sized for the n distinct hashes, or a copy
 * of the streaming filter.  The state is only read.
 */
Datum
sbf_agg_final(PG_FUNCTION_ARGS)
{
	SbfAggState *st;
	SbfFilter	f;
	SbfParams	p;
	SbfStatus	status;
	uint64		pos;
	uint64		h;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (SbfAggState *) PG_GETARG_POINTER(0);
	if (st->stream != NULL)
		PG_RETURN_SCALABLEBLOOM_P(agg_filter_copy(&st->stream->filter));

	agg_params(st->error_rate, st->nhashes, &p);
	status = sbf_create_sized(&f, &p, p.capacity, VARHDRSZ, &sbf_palloc_allocator);
	if (status != SBF_OK)
		sbf_report_status(status);
	/* ascending order: the result depends only on the set */
	for (pos = 0; agg_set_next(st, &pos, &h);)
	{
		status = sbf_add_hash(&f, h, NULL);
		if (status != SBF_OK)
			sbf_report_status(status);
	}
	PG_RETURN_SCALABLEBLOOM_P(sbf_filter_finish(&f));
}

/*
 * sbf_agg combine: exact union of the hash sets.  A streaming side takes the
 * other side's hashes as ordinary adds; only when both sides streamed are two
 * filters united, whose FPR bound is then the sum of both bounds (<= 2e).
 */
Datum
sbf_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_agg_combine");
	SbfAggState *st1 = PG_ARGISNULL(0) ? NULL : (SbfAggState *) PG_GETARG_POINTER(0);
	SbfAggState *st2 = PG_ARGISNULL(1) ? NULL : (SbfAggState *) PG_GETARG_POINTER(1);
	SbfView		v;
	SbfStatus	status;
	uint64		pos;
	uint64		h;

	if (st2 == NULL)
	{
		if (st1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st1);
	}
	if (st1 == NULL)
		PG_RETURN_POINTER(agg_state_copy(st2, aggcxt));
	agg_check_rate(st1, st2->error_rate);

	if (st2->stream == NULL)
	{
		for (pos = 0; agg_set_next(st2, &pos, &h);)
			agg_add(st1, h, aggcxt);
	}
	else if (st1->stream == NULL)
	{
		SbfAggFilter *sf = MemoryContextAlloc(aggcxt, sizeof(SbfAggFilter));

		sf->alloc = sbf_palloc_allocator;
		sf->alloc.ctx = aggcxt;
		sbf_filter_view(&st2->stream->filter, &v);
		status = sbf_copy(&sf->filter, &v, VARHDRSZ, 0, &sf->alloc);
		if (status != SBF_OK)
			sbf_report_status(status);
		for (pos = 0; agg_set_next(st1, &pos, &h);)
		{
			status = sbf_add_hash(&sf->filter, h, NULL);
			if (status != SBF_OK)
				sbf_report_status(status);
		}
		if (st1->slots != st1->inline_slots)
			pfree(st1->slots);
		st1->slots = st1->inline_slots;
		st1->nhome = st1->nslots = SBF_AGG_INLINE_SLOTS;
		memset(st1->inline_slots, 0, sizeof(st1->inline_slots));
		st1->nhashes = 0;
		st1->has_zero = false;
		st1->stream = sf;
	}
	else
	{
		sbf_filter_view(&st2->stream->filter, &v);
		status = sbf_union(&st1->stream->filter, &v);
		if (status != SBF_OK)
			sbf_report_status(status);
	}
	PG_RETURN_POINTER(st1);
}

/* Writes the serialized header. */
static void
agg_serial_header(uint8 *p, uint8 mode, double error_rate, uint64 count)
{
	uint64		bits;

	memcpy(&bits, &error_rate, sizeof(bits));
	p[0] = SBF_AGG_SERIAL_VERSION;
	p[1] = mode;
	memset(p + 2, 0, 6);
	agg_store64(p + 8, bits);
	agg_store64(p + 16, count);
}

/* sbf_agg serialize: the versioned bytea described above. */
Datum
sbf_agg_serialize(PG_FUNCTION_ARGS)
{
	SbfAggState *st;
	bytea	   *result;
	uint8	   *p;
	uint64		pos;
	uint64		h;

	(void) agg_context(fcinfo, "sbf_agg_serialize");
	st = (SbfAggState *) PG_GETARG_POINTER(0);
	if (st->stream != NULL)
	{
		const SbfFilter *f = &st->stream->filter;

		result = palloc(VARHDRSZ + SBF_AGG_SERIAL_HEADER + f->len);
		SET_VARSIZE(result, VARHDRSZ + SBF_AGG_SERIAL_HEADER + f->len);
		p = (uint8 *) VARDATA(result);
		agg_serial_header(p, SBF_AGG_MODE_FILTER, st->error_rate, 0);
		memcpy(p + SBF_AGG_SERIAL_HEADER, SBF_PAYLOAD(f), f->len);
		PG_RETURN_BYTEA_P(result);
	}

	/* nhashes <= 10 Mi, so this is at most 80 MB */
	result = palloc(VARHDRSZ + SBF_AGG_SERIAL_HEADER + st->nhashes * sizeof(uint64));
	SET_VARSIZE(result, VARHDRSZ + SBF_AGG_SERIAL_HEADER + st->nhashes * sizeof(uint64));
	p = (uint8 *) VARDATA(result);
	agg_serial_header(p, SBF_AGG_MODE_SET, st->error_rate, st->nhashes);
	p += SBF_AGG_SERIAL_HEADER;
	for (pos = 0; agg_set_next(st, &pos, &h);)
	{
		agg_store64(p, h);
		p += sizeof(uint64);
	}
	PG_RETURN_BYTEA_P(result);
}

/* Raises 22P03 for a malformed serialized sbf_agg state. */
static void
agg_bad_state(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid sbf_agg state"),
			 errdetail("%s", detail)));
}

/*
 * sbf_agg deserialize: checks every field before allocating anything; the
 * table it builds is at most 5/4 of the input's size.
 */
Datum
sbf_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b;
	const uint8 *p;
	size_t		len;
	double		error_rate;
	uint64		bits;
	uint64		count;
	uint64		nz;
	uint64		prev = 0;
	uint64		nhome;
	uint64		first;
	uint64		i;
	SbfAggState *st;
	int			r;

	(void) agg_context(fcinfo, "sbf_agg_deserialize");
	b = PG_GETARG_BYTEA_PP(0);
	p = (const uint8 *) VARDATA_ANY(b);
	len = VARSIZE_ANY_EXHDR(b);

	if (len < SBF_AGG_SERIAL_HEADER)
		agg_bad_state("The state is shorter than its header.");
	if (p[0] != SBF_AGG_SERIAL_VERSION)
		agg_bad_state("The state has an unknown version.");
	if (p[1] != SBF_AGG_MODE_SET && p[1] != SBF_AGG_MODE_FILTER)
		agg_bad_state("The state has an unknown mode.");
	for (r = 2; r < 8; r++)
		if (p[r] != 0)
			agg_bad_state("A reserved field of the state is not zero.");
	bits = agg_load64(p + 8);
	memcpy(&error_rate, &bits, sizeof(error_rate));
	if (!(error_rate > 0.0 && error_rate < 0.5))
		agg_bad_state("The state has an error_rate outside (0, 0.5).");
	count = agg_load64(p + 16);

	st = agg_state_new(error_rate, CurrentMemoryContext);
	if (p[1] == SBF_AGG_MODE_FILTER)
	{
		SbfView		v;
		SbfStatus	status;

		if (count != 0)
			agg_bad_state("A filter state has a nonzero hash count.");
		sbf_check_payload(p + SBF_AGG_SERIAL_HEADER, len - SBF_AGG_SERIAL_HEADER, &v);
		if (!same_double(v.error_rate, error_rate))
			agg_bad_state("The filter's error_rate differs from the state's.");
		st->stream = palloc(sizeof(SbfAggFilter));
		st->stream->alloc = sbf_palloc_allocator;
		st->stream->alloc.ctx = CurrentMemoryContext;
		status = sbf_copy(&st->stream->filter, &v, VARHDRSZ, 0, &st->stream->alloc);
		if (status != SBF_OK)
			sbf_report_status(status);
		PG_RETURN_POINTER(st);
	}

	if (count < 1 || count > SBF_AGG_STREAM_THRESHOLD)
		agg_bad_state("The state's hash count is out of range.");
	if ((len - SBF_AGG_SERIAL_HEADER) % sizeof(uint64) != 0 ||
		(len - SBF_AGG_SERIAL_HEADER) / sizeof(uint64) != count)
		agg_bad_state("The state's length does not match its hash count.");
	p += SBF_AGG_SERIAL_HEADER;
	for (i = 0; i < count; i++)
	{
		uint64		h = agg_load64(p + i * sizeof(uint64));

		if (i > 0 && h <= prev)
			agg_bad_state("The state's hashes are not strictly ascending.");
		prev = h;
	}

	/* a table sized as growth would have sized it, keys right-aligned */
	st->has_zero = agg_load64(p) == 0;
	st->nhashes = count;
	nz = count - (st->has_zero ? 1 : 0);
	for (nhome = SBF_AGG_INLINE_SLOTS;
		 count * SBF_AGG_LOAD_DEN > nhome * SBF_AGG_LOAD_NUM;)
		nhome = agg_next_home(nhome);
	if (nhome > SBF_AGG_INLINE_SLOTS)
		agg_set_resize(st, nhome, CurrentMemoryContext);
	first = st->nslots - nz;
	for (i = 0; i < nz; i++)
		st->slots[first + i] = agg_load64(p + (count - nz + i) * sizeof(uint64));
	if (nz > 0 && !agg_set_place(st, first))
		agg_set_resize(st, st->nhome * 2, CurrentMemoryContext);
	PG_RETURN_POINTER(st);
}

/* ---- sbf_union_agg ---- */

/* A new filter state in cxt holding a copy of v. */
static SbfAggFilter *
union_state_new(const SbfView *v, MemoryContext cxt)
{
	SbfAggFilter *sf = MemoryContextAlloc(cxt, sizeof(SbfAggFilter));
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
union_state_add(SbfAggFilter *dst, const SbfView *v)
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
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_union_agg_trans");
	SbfAggFilter *sf = PG_ARGISNULL(0) ? NULL : (SbfAggFilter *) PG_GETARG_POINTER(0);
	ScalableBloom *f;
	SbfView		v;

	if (PG_ARGISNULL(1))
		return agg_skip(fcinfo);
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
	PG_RETURN_SCALABLEBLOOM_P(agg_filter_copy(&((SbfAggFilter *) PG_GETARG_POINTER(0))->filter));
}

/* sbf_union_agg combine: sbf_union of the two partial filters. */
Datum
sbf_union_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "sbf_union_agg_combine");
	SbfAggFilter *sf1 = PG_ARGISNULL(0) ? NULL : (SbfAggFilter *) PG_GETARG_POINTER(0);
	SbfAggFilter *sf2 = PG_ARGISNULL(1) ? NULL : (SbfAggFilter *) PG_GETARG_POINTER(1);
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
	(void) agg_context(fcinfo, "sbf_union_agg_serialize");
	PG_RETURN_BYTEA_P((bytea *) agg_filter_copy(&((SbfAggFilter *) PG_GETARG_POINTER(0))->filter));
}

/* sbf_union_agg deserialize: a payload that passes the one validator. */
Datum
sbf_union_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b;
	SbfView		v;

	(void) agg_context(fcinfo, "sbf_union_agg_deserialize");
	b = PG_GETARG_BYTEA_PP(0);
	sbf_check_payload((const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), &v);
	PG_RETURN_POINTER(union_state_new(&v, CurrentMemoryContext));
}
