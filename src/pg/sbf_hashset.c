/*
 * sbf_hashset.c
 *	  The sbf_hashset type: the exact, mergeable set of element hashes that
 *	  sbf_agg collects.  Text ("sbfh1:" + base64) and binary I/O, casts with
 *	  bytea, sbf_hashset_agg, sbf_hashset_union(_agg), # and sbf_build; and
 *	  the expanded object that every aggregate over sbf_hashset keeps its
 *	  state in (see sbf_hashset_glue.h).  The engine and the byte format are
 *	  in src/core/hashset/sbf_hashset.h; every value that enters passes its one
 *	  validator, sbf_hs_validate.
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "sbf_agg_support.h"
#include "sbf_elem.h"
#include "sbf_errors.h"
#include "sbf_hashset_glue.h"
#include "sbf_params.h"
#include "sbf_spill.h"

PG_FUNCTION_INFO_V1(sbf_hashset_in);
PG_FUNCTION_INFO_V1(sbf_hashset_out);
PG_FUNCTION_INFO_V1(sbf_hashset_recv);
PG_FUNCTION_INFO_V1(sbf_hashset_send);
PG_FUNCTION_INFO_V1(sbf_hashset_from_bytea);
PG_FUNCTION_INFO_V1(sbf_hashset_to_bytea);
PG_FUNCTION_INFO_V1(sbf_hashset_count);
PG_FUNCTION_INFO_V1(sbf_hashset_union);
PG_FUNCTION_INFO_V1(sbf_hashset_union_trans);
PG_FUNCTION_INFO_V1(sbf_hashset_agg_final);
PG_FUNCTION_INFO_V1(sbf_hashset_agg_trans_text);
PG_FUNCTION_INFO_V1(sbf_hashset_agg_trans_int8);
PG_FUNCTION_INFO_V1(sbf_hashset_agg_trans_bytea);
PG_FUNCTION_INFO_V1(sbf_hashset_build);

#define SBF_HS_TEXT_PREFIX		"sbfh1:"
#define SBF_HS_TEXT_PREFIX_LEN	(sizeof(SBF_HS_TEXT_PREFIX) - 1)

/*
 * Largest flat payload (after the varlena header): the largest whose text
 * form (the prefix and 4/3 of the payload) still has at most
 * SBF_MAX_TEXT_CHARS characters, so every sbf_hashset that can be made can be
 * written as text, COPY'd and dumped (LIMITS in sbf_core.h).
 */
#define SBF_HS_MAX_FLAT \
	((Size) (SBF_MAX_TEXT_CHARS - SBF_HS_TEXT_PREFIX_LEN) / 4 * 3)

/* ---- the expanded object ---- */

static Size hso_get_flat_size(ExpandedObjectHeader *eohptr);
static void hso_flatten_into(ExpandedObjectHeader *eohptr, void *result,
							 Size allocated_size);

const ExpandedObjectMethods sbf_hso_methods = {
	hso_get_flat_size,
	hso_flatten_into
};

/* CHECK_FOR_INTERRUPTS as a function, for the core's interrupt callback. */
void
sbf_hs_interrupt(void)
{
	CHECK_FOR_INTERRUPTS();
}

/* Error parameters of sbf_agg: defaults with error_rate e. */
void
sbf_agg_params(double error_rate, SbfParams *p)
{
	sbf_default_params(p);
	p->error_rate = error_rate;
}

/*
 * A new, empty expanded set: the object from objcxt, everything it
 * allocates from cxt (its eoh_context).
 */
static SbfHsObject *
hso_new_in(MemoryContext objcxt, MemoryContext cxt, const SbfParams *params,
		   uint64 threshold, bool with_rate)
{
	SbfHsObject *o = MemoryContextAllocZero(objcxt, sizeof(SbfHsObject));
	SbfAllocator a = sbf_palloc_allocator;

	EOH_init_header(&o->hdr, &sbf_hso_methods, cxt);
	a.ctx = cxt;
	sbf_hs_init(&o->hs, &a, params, threshold);
	o->hs.interrupt = sbf_hs_interrupt;
	o->with_rate = with_rate;
	return o;
}

/* A new, empty expanded set in a child context of parent. */
SbfHsObject *
sbf_hso_new(MemoryContext parent, const SbfParams *params, uint64 threshold,
			bool with_rate)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "sbf_hashset", ALLOCSET_SMALL_SIZES);

	return hso_new_in(cxt, cxt, params, threshold, with_rate);
}

/* What an arena's reset callback needs: its slot, and which arena it was. */
typedef struct HsArenaGone
{
	MemoryContextCallback cb;
	SbfHsArena *slot;
	MemoryContext arena;
} HsArenaGone;

/*
 * Forgets an arena that its aggregate context is resetting or deleting,
 * unless its slot already holds another.
 */
static void
hs_arena_gone(void *arg)
{
	HsArenaGone *g = (HsArenaGone *) arg;

	if (g->slot->arena == g->arena)
		memset(g->slot, 0, sizeof(SbfHsArena));
}

/* A new, empty expanded set in the arena of aggcxt (see SbfHsCallCache). */
static SbfHsObject *
hso_new_state(FunctionCallInfo fcinfo, MemoryContext aggcxt,
			  const SbfParams *params, uint64 threshold, bool with_rate)
{
	SbfHsCallCache *c = sbf_hs_call_cache(fcinfo);
	SbfHsArena *slot = NULL;
	int			i;

	for (i = 0; i < SBF_HS_ARENAS; i++)
	{
		if (c->arenas[i].arena != NULL && c->arenas[i].parent == aggcxt)
			return hso_new_in(c->arenas[i].objects, c->arenas[i].arena,
							  params, threshold, with_rate);
		if (slot == NULL && c->arenas[i].arena == NULL)
			slot = &c->arenas[i];
	}
	if (slot == NULL)
	{
		slot = &c->arenas[c->next];
		c->next = (c->next + 1) % SBF_HS_ARENAS;
	}
	{
		HsArenaGone *g;

		slot->arena = AllocSetContextCreate(aggcxt, "sbf_hashset states",
											ALLOCSET_DEFAULT_SIZES);
		/*
		 * The objects themselves in a slab, a child of the arena: an
		 * AllocSet would round their 320 bytes up to a 512-byte chunk.
		 */
		slot->objects = SlabContextCreate(slot->arena, "sbf_hashset objects",
										  SLAB_DEFAULT_BLOCK_SIZE, sizeof(SbfHsObject));
		slot->parent = aggcxt;
		/* in the arena, so that it lives exactly as long as it */
		g = MemoryContextAlloc(slot->arena, sizeof(HsArenaGone));
		g->slot = slot;
		g->arena = slot->arena;
		g->cb.func = hs_arena_gone;
		g->cb.arg = g;
		MemoryContextRegisterResetCallback(slot->arena, &g->cb);
	}
	return hso_new_in(slot->objects, slot->arena, params, threshold, with_rate);
}

/* A new aggregate state: the same, made to spill when in an Agg node. */
SbfHsObject *
sbf_hso_new_state(FunctionCallInfo fcinfo, MemoryContext aggcxt,
				  const SbfParams *params, uint64 threshold, bool with_rate)
{
	SbfHsObject *o = hso_new_state(fcinfo, aggcxt, params, threshold, with_rate);

	sbf_spill_enable(fcinfo, o);
	return o;
}

/* Frees an expanded set. */
void
sbf_hso_free(SbfHsObject *o)
{
	MemoryContextDelete(o->hdr.eoh_context);
}

/* The read-write datum of an expanded set, whose contents may change. */
Datum
sbf_hso_datum(SbfHsObject *o)
{
	o->flat_size = 0;
	return EOHPGetRWDatum(&o->hdr);
}

/* Our expanded object behind d, or NULL. */
static inline SbfHsObject *
hso_of(Datum d)
{
	return (SbfHsObject *) sbf_expanded_of(d, &sbf_hso_methods, false);
}

/* Raises 54000 for a set whose flat form would not fit. */
static void
hso_too_large(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("sbf_hashset is too large to pass as a value"),
			 errdetail("Its encoding would exceed %zu bytes, the most whose text form fits in 1 GB.",
					   (size_t) SBF_HS_MAX_FLAT),
			 errhint("Aggregate without parallel workers or sharding, or split the group.")));
}

/*
 * Size of the flat form (varlena header included); 54000 past 1 GB.  A
 * spilled state is sized, and then flattened, from merges of its runs.
 */
static Size
hso_get_flat_size(ExpandedObjectHeader *eohptr)
{
	SbfHsObject *o = (SbfHsObject *) eohptr;
	size_t		size;
	SbfStatus	st;

	if (o->flat_size != 0 && o->hs.nbuf == 0 && !o->hs.streaming)
		return o->flat_size;
	if (sbf_spilled(o))
	{
		/*
		 * Encoded now, mostly in the one merge that sizes it, and kept for
		 * flatten_into; in the object's context, as PostgreSQL may flatten
		 * in one without pfree (a sort's bump context, 17+).
		 */
		MemoryContext old = MemoryContextSwitchTo(o->hdr.eoh_context);
		uint64		total;

		if (o->flat_buf != NULL)
			pfree(o->flat_buf);
		o->flat_buf = sbf_spill_encode_all(o, o->with_rate, 0, SBF_HS_MAX_FLAT, &total,
										   &o->flat_n, &o->flat_k);
		MemoryContextSwitchTo(old);
		if (o->flat_buf == NULL || o->flat_n > SBF_HS_MAX_COUNT)
			hso_too_large();
		o->flat_size = VARHDRSZ + total;
		return o->flat_size;
	}
	if (o->flat_buf != NULL)
	{
		/* brought back into memory since (sbf_spill_unspill) */
		pfree(o->flat_buf);
		o->flat_buf = NULL;
	}
	st = sbf_hs_encoded_size(&o->hs, o->with_rate, SBF_HS_MAX_FLAT, &size);
	if (st == SBF_E_TOO_LARGE)
		hso_too_large();
	if (st != SBF_OK)
		sbf_hs_report_status(st);
	o->flat_size = VARHDRSZ + size;
	return o->flat_size;
}

/* Writes the flat form sized by hso_get_flat_size. */
static void
hso_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	SbfHsObject *o = (SbfHsObject *) eohptr;

	/* PostgreSQL sizes and flattens back to back; nothing adds in between */
	if (allocated_size != o->flat_size || o->hs.nbuf != 0)
		elog(ERROR, "sbf_hashset changed between sizing and flattening");
	/* the caller's fresh chunk: this writes it first (a parallel partial state) */
	sbf_mem_hint_huge(result, allocated_size);
	if (sbf_spilled(o) && o->flat_buf != NULL)
	{
		memcpy(VARDATA(result), o->flat_buf, allocated_size - VARHDRSZ);
		pfree(o->flat_buf);
		o->flat_buf = NULL;
	}
	else if (sbf_spilled(o))
		sbf_spill_encode(o, o->with_rate, o->flat_n, o->flat_k,
						 (uint8 *) VARDATA(result), allocated_size - VARHDRSZ);
	else
		sbf_hs_encode(&o->hs, o->with_rate, (uint8 *) VARDATA(result),
					  allocated_size - VARHDRSZ);
	SET_VARSIZE(result, allocated_size);
}

/* Raises sqlerrcode for a malformed sbf_hashset. */
static void
hs_bad_value(SbfHsError e, int sqlerrcode)
{
	ereport(ERROR,
			(errcode(sqlerrcode),
			 errmsg("invalid sbf_hashset value"),
			 errdetail("%s", sbf_hs_error_message(e))));
}

/* Validates outside bytes, raising sqlerrcode when they are malformed. */
static void
hs_check(const uint8 *buf, size_t len, SbfHsView *v, int sqlerrcode)
{
	SbfHsError	e = sbf_hs_check(buf, len, v, &sbf_palloc_allocator);

	if (e != SBF_HS_OK)
		hs_bad_value(e, sqlerrcode);
}

/* Raises 22023 for a streamed sbf_agg state where a set is needed. */
static void
hs_refuse_filter(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("sbf_hashset value is a streamed sbf_agg state, not a set"),
			 errdetail("sbf_agg passes a group with more than %llu distinct elements between processes as a filter.",
					   (unsigned long long) SBF_HS_AGG_THRESHOLD),
			 errhint("Use the state only with sbf_agg.")));
}

/* The set of an sbf_hashset datum for reading (see sbf_hashset_glue.h). */
SbfHashSet *
sbf_hso_open(Datum d, bool allow_filter, SbfHsObject **tmp)
{
	SbfHsObject *o = hso_of(d);
	struct varlena *flat;
	SbfHsView	v;
	SbfHsError	e;
	SbfStatus	st;

	*tmp = NULL;
	if (o != NULL)
	{
		/* readers other than sbf_agg's final need the whole set in memory */
		sbf_spill_unspill(o);
		if (o->hs.streaming && !allow_filter)
			hs_refuse_filter();
		return &o->hs;
	}
	flat = PG_DETOAST_DATUM(d);

	/*
	 * A stored value was validated when it entered; this catches corruption.
	 * The header here, the body while it is decoded (one pass, not two).
	 */
	e = sbf_hs_parse((const uint8 *) VARDATA(flat), VARSIZE(flat) - VARHDRSZ, &v);
	if (e != SBF_HS_OK)
		hs_bad_value(e, ERRCODE_DATA_CORRUPTED);
	if ((v.flags & SBF_HS_FLAG_FILTER) && !allow_filter)
		hs_refuse_filter();
	o = sbf_hso_new(CurrentMemoryContext, NULL, 0, false);
	sbf_agg_params(SBF_DEFAULT_ERROR_RATE, &o->hs.params);
	if (v.flags & SBF_HS_FLAG_RATE)
	{
		o->hs.params.error_rate = v.error_rate;
		o->with_rate = true;
	}
	st = sbf_hs_load(&o->hs, &v, &e);
	if (e != SBF_HS_OK)
		hs_bad_value(e, ERRCODE_DATA_CORRUPTED);
	if (st != SBF_OK)
		sbf_hs_report_status(st);
	*tmp = o;
	return &o->hs;
}

/*
 * The error_rate an sbf_hashset datum carries (flag bit 0, or an expanded
 * sbf_agg state's), or 0.
 */
double
sbf_hs_datum_rate(Datum d)
{
	SbfHsObject *o = hso_of(d);
	struct varlena *flat;
	SbfHsView	v;
	SbfHsError	e;

	if (o != NULL)
		return o->with_rate ? o->hs.params.error_rate : 0.0;
	flat = PG_DETOAST_DATUM(d);
	e = sbf_hs_parse((const uint8 *) VARDATA(flat), VARSIZE(flat) - VARHDRSZ, &v);
	if (e != SBF_HS_OK)
		hs_bad_value(e, ERRCODE_DATA_CORRUPTED);
	return v.error_rate;
}

/*
 * dst := dst UNION the set of datum d (only read).  A flat hash set is
 * checked while it is decoded straight into dst's array, grown once to the
 * union's size at most (sbf_hs_merge_coded): the fast path of every combine
 * and union, with no decoded copy of the value.  With o (dst's object, an
 * aggregate state that may spill), a set of at least o->spill_at hashes is
 * decoded into one run that goes to the spill instead, and a spilled o is
 * brought back into memory before a streamed state is united with it.
 */
static void
hs_union_datum(SbfHashSet *dst, SbfHsObject *o, FunctionCallInfo fcinfo,
			   Datum d, bool allow_filter)
{
	SbfHsObject *src = hso_of(d);
	struct varlena *flat;
	SbfHsView	v;
	SbfHsError	e;
	SbfStatus	st;

	if (src == NULL)
	{
		flat = PG_DETOAST_DATUM(d);
		e = sbf_hs_parse((const uint8 *) VARDATA(flat), VARSIZE(flat) - VARHDRSZ, &v);
		if (e != SBF_HS_OK)
			hs_bad_value(e, ERRCODE_DATA_CORRUPTED);
		if (!(v.flags & SBF_HS_FLAG_FILTER))
		{
			if (o != NULL && o->spill_at != 0 && !dst->streaming && v.count >= o->spill_at)
			{
				/* straight into a run, a chunk at a time */
				e = sbf_spill_add_coded(fcinfo, o, &v);
				if (e != SBF_HS_OK)
					hs_bad_value(e, ERRCODE_DATA_CORRUPTED);
				return;
			}
			st = sbf_hs_merge_coded(dst, &v, &e);
			if (e != SBF_HS_OK)
				hs_bad_value(e, ERRCODE_DATA_CORRUPTED);
			if (st != SBF_OK)
				sbf_hs_report_status(st);
			return;
		}
	}
	/* a streamed side makes dst stream: every hash must be in memory first */
	if (o != NULL && sbf_spilled(o) && (src == NULL || src->hs.streaming))
		sbf_spill_unspill(o);
	{
		SbfHsObject *tmp;
		SbfHashSet *s = sbf_hso_open(d, allow_filter, &tmp);

		st = sbf_hs_union(dst, s);
		if (st != SBF_OK)
			sbf_hs_report_status(st);
		if (tmp != NULL)
			sbf_hso_free(tmp);
	}
}

/* dst := dst UNION the set of datum d (only read). */
void
sbf_hs_union_datum(SbfHashSet *dst, Datum d, bool allow_filter)
{
	hs_union_datum(dst, NULL, NULL, d, allow_filter);
}

/* The same for an aggregate state, which may spill (sbf_spill.h). */
void
sbf_hso_union_datum(FunctionCallInfo fcinfo, SbfHsObject *o, Datum d,
					bool allow_filter)
{
	hs_union_datum(&o->hs, o, fcinfo, d, allow_filter);
	sbf_spill_check(fcinfo, o);
}

/* A flat sbf_hashset (in CurrentMemoryContext) of a set, without error_rate. */
static struct varlena *
hs_flat(SbfHashSet *s)
{
	size_t		size;
	struct varlena *result;
	SbfStatus	st = sbf_hs_encoded_size(s, false, SBF_HS_MAX_FLAT, &size);

	if (st != SBF_OK)
		sbf_hs_report_status(st);
	result = palloc(VARHDRSZ + size);
	sbf_mem_hint_huge(result, VARHDRSZ + size);
	SET_VARSIZE(result, VARHDRSZ + size);
	sbf_hs_encode(s, false, (uint8 *) VARDATA(result), size);
	return result;
}

/* ---- I/O and casts ---- */

/* Text input: "sbfh1:" + base64, decoded and validated. */
Datum
sbf_hashset_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	size_t		len = strlen(str);
	size_t		plen;
	struct varlena *result;
	SbfHsView	v;

	if (len < SBF_HS_TEXT_PREFIX_LEN ||
		memcmp(str, SBF_HS_TEXT_PREFIX, SBF_HS_TEXT_PREFIX_LEN) != 0)
		sbf_report_text_syntax("sbf_hashset", "An sbf_hashset",
							   SBF_HS_TEXT_PREFIX, false);
	/* a cstring is below 1 GB, so the decoded bytes fit one palloc */
	result = palloc(VARHDRSZ + (len - SBF_HS_TEXT_PREFIX_LEN) / 4 * 3);
	if (!sbf_base64_decode(str + SBF_HS_TEXT_PREFIX_LEN, len - SBF_HS_TEXT_PREFIX_LEN,
						   (uint8 *) VARDATA(result), &plen))
		sbf_report_text_syntax("sbf_hashset", "An sbf_hashset",
							   SBF_HS_TEXT_PREFIX, true);
	hs_check((const uint8 *) VARDATA(result), plen, &v,
			 ERRCODE_INVALID_TEXT_REPRESENTATION);
	SET_VARSIZE(result, VARHDRSZ + plen);
	PG_RETURN_POINTER(result);
}

/* Text output: "sbfh1:" + base64 of the bytes (flattens an expanded state). */
Datum
sbf_hashset_out(PG_FUNCTION_ARGS)
{
	struct varlena *h = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	size_t		plen = VARSIZE(h) - VARHDRSZ;
	size_t		tlen = SBF_HS_TEXT_PREFIX_LEN + sbf_base64_size(plen);
	char	   *out;

	if (tlen >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("sbf_hashset value is too large for its text form"),
				 errdetail("The value has %zu bytes; its text form would exceed 1 GB.",
						   plen),
				 errhint("Use the binary format or a cast to bytea.")));
	out = palloc(tlen + 1);
	memcpy(out, SBF_HS_TEXT_PREFIX, SBF_HS_TEXT_PREFIX_LEN);
	sbf_base64_encode((const uint8 *) VARDATA(h), plen, out + SBF_HS_TEXT_PREFIX_LEN);
	PG_RETURN_CSTRING(out);
}

/* Binary input: the raw bytes, validated, consuming the whole message. */
Datum
sbf_hashset_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			nbytes = buf->len - buf->cursor;
	const char *bytes = pq_getmsgbytes(buf, nbytes);
	struct varlena *result;
	SbfHsView	v;

	hs_check((const uint8 *) bytes, nbytes, &v, ERRCODE_INVALID_BINARY_REPRESENTATION);
	result = palloc(VARHDRSZ + nbytes);
	memcpy(VARDATA(result), bytes, nbytes);
	SET_VARSIZE(result, VARHDRSZ + nbytes);
	PG_RETURN_POINTER(result);
}

/* Binary output: the raw bytes. */
Datum
sbf_hashset_send(PG_FUNCTION_ARGS)
{
	struct varlena *h = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA(h), VARSIZE(h) - VARHDRSZ);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* Cast bytea -> sbf_hashset: the same bytes, validated (22P03). */
Datum
sbf_hashset_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	SbfHsView	v;

	hs_check((const uint8 *) VARDATA(b), VARSIZE(b) - VARHDRSZ, &v,
			 ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_POINTER(b);
}

/* Cast sbf_hashset -> bytea: the bytes as they are. */
Datum
sbf_hashset_to_bytea(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(PG_DETOAST_DATUM(PG_GETARG_DATUM(0)));
}

/* ---- functions ---- */

/* # h: the exact number of distinct hashes. */
Datum
sbf_hashset_count(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	uint64		n;

	if (hso_of(d) != NULL)
	{
		SbfHsObject *tmp;
		SbfHashSet *s = sbf_hso_open(d, false, &tmp);
		SbfStatus	st = sbf_hs_count(s, &n);

		if (st != SBF_OK)
			sbf_hs_report_status(st);
	}
	else
	{
		struct varlena *flat = PG_DETOAST_DATUM(d);
		SbfHsView	v;

		hs_check((const uint8 *) VARDATA(flat), VARSIZE(flat) - VARHDRSZ, &v,
				 ERRCODE_DATA_CORRUPTED);
		if (v.flags & SBF_HS_FLAG_FILTER)
			hs_refuse_filter();
		n = v.count;
	}
	PG_RETURN_INT64((int64) n);
}

/*
 * sbf_hashset_union(a, b): the exact union.  Flat arguments are merged into
 * the result's one array while they are decoded (sbf_hs_union_datum).
 */
Datum
sbf_hashset_union(PG_FUNCTION_ARGS)
{
	SbfHsObject *u = sbf_hso_new(CurrentMemoryContext, NULL, 0, false);
	struct varlena *result;

	sbf_hs_union_datum(&u->hs, PG_GETARG_DATUM(0), false);
	sbf_hs_union_datum(&u->hs, PG_GETARG_DATUM(1), false);
	result = hs_flat(&u->hs);
	sbf_hso_free(u);
	PG_RETURN_POINTER(result);
}

/*
 * The state argument of an sbf_hashset_agg / sbf_hashset_union_agg step,
 * ready to change: our read-write object, or a new one in the aggregate
 * context (holding a copy of a flat or read-only state, if any).
 */
static SbfHsObject *
hs_agg_state(FunctionCallInfo fcinfo, MemoryContext aggcxt)
{
	SbfHsObject *o;

	if (!PG_ARGISNULL(0) && (o = sbf_hso_rw(PG_GETARG_DATUM(0))) != NULL)
		return o;
	o = sbf_hso_new_state(fcinfo, aggcxt, NULL, 0, false);
	if (!PG_ARGISNULL(0))
		sbf_hso_union_datum(fcinfo, o, PG_GETARG_DATUM(0), false);
	return o;
}

/*
 * sbf_hashset_union_agg transition and the combine of both set aggregates:
 * state := state UNION h (h is only read).
 */
Datum
sbf_hashset_union_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = sbf_agg_context(fcinfo, "sbf_hashset_union_trans");
	SbfHsObject *o = PG_ARGISNULL(1) ? NULL : hs_agg_state(fcinfo, aggcxt);

	if (o == NULL)
		return sbf_agg_keep_state(fcinfo);
	sbf_hso_union_datum(fcinfo, o, PG_GETARG_DATUM(1), false);
	PG_RETURN_DATUM(sbf_hso_datum(o));
}

/* The shared step of sbf_hashset_agg: add the element's hash. */
static Datum
hs_agg_add(FunctionCallInfo fcinfo, MemoryContext aggcxt, uint64 h)
{
	SbfHsObject *o = hs_agg_state(fcinfo, aggcxt);
	SbfStatus	st = sbf_hso_add(fcinfo, o, h);

	if (unlikely(st != SBF_OK))
		sbf_hs_report_status(st);
	PG_RETURN_DATUM(sbf_hso_datum(o));
}

/*
 * Final function of the set aggregates: the state as a flat value (the
 * state itself is only read), so that the result owns no aggregate memory.
 */
Datum
sbf_hashset_agg_final(PG_FUNCTION_ARGS)
{
	SbfHsObject *tmp;
	SbfHashSet *s;
	struct varlena *result;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if ((tmp = hso_of(PG_GETARG_DATUM(0))) != NULL && sbf_spilled(tmp))
	{
		/* encoded from the runs: the set never comes back into memory */
		uint64		size;
		uint64		n;
		int			k;

		result = (struct varlena *) sbf_spill_encode_all(tmp, tmp->with_rate, VARHDRSZ,
														 SBF_HS_MAX_FLAT, &size, &n, &k);
		if (result == NULL || n > SBF_HS_MAX_COUNT)
			hso_too_large();
		SET_VARSIZE(result, VARHDRSZ + size);
		PG_RETURN_POINTER(result);
	}
	s = sbf_hso_open(PG_GETARG_DATUM(0), false, &tmp);
	result = hs_flat(s);
	if (tmp != NULL)
		sbf_hso_free(tmp);
	PG_RETURN_POINTER(result);
}

/*
 * An sbf_hashset_agg transition: rows after a group's first add their hash
 * to the state in place (sbf_hso_row_state); the rest take the general step.
 */
static pg_attribute_always_inline Datum
hs_agg_elem(FunctionCallInfo fcinfo, SbfElemKind kind)
{
	SbfHsObject *o = sbf_hso_row_state(fcinfo);

	if (likely(o != NULL))
	{
		SbfStatus	st = sbf_hso_add(fcinfo, o, sbf_elem_hash(kind, PG_GETARG_DATUM(1)));

		if (unlikely(st != SBF_OK))
			sbf_hs_report_status(st);
		return PG_GETARG_DATUM(0);
	}
	return sbf_agg_elem_trans(fcinfo, "sbf_hashset_agg_trans", kind, hs_agg_add);
}

/* sbf_hashset_agg(text | bigint | bytea) transitions. */
SBF_ENTRY_POINT(sbf_hashset_agg_trans_text, hs_agg_elem(fcinfo, SBF_ELEM_BYTES));
SBF_ENTRY_POINT(sbf_hashset_agg_trans_int8, hs_agg_elem(fcinfo, SBF_ELEM_INT8));
SBF_ENTRY_POINT(sbf_hashset_agg_trans_bytea, hs_agg_elem(fcinfo, SBF_ELEM_BYTES));

/*
 * sbf_build(h, error_rate): the filter sbf_agg builds from the same elements
 * at that error_rate, through the same core build.
 */
Datum
sbf_hashset_build(PG_FUNCTION_ARGS)
{
	double		error_rate = PG_ARGISNULL(1) ? SBF_DEFAULT_ERROR_RATE : PG_GETARG_FLOAT8(1);
	SbfHsObject *tmp;
	SbfHashSet *s;
	SbfParams	p;
	SbfFilter	f;
	SbfStatus	st;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	sbf_agg_params(error_rate, &p);
	sbf_check_params(&p);
	s = sbf_hso_open(PG_GETARG_DATUM(0), false, &tmp);
	st = sbf_hs_build(s, &p, VARHDRSZ, &sbf_palloc_allocator, &f);
	if (st != SBF_OK)
		sbf_report_status(st);
	if (tmp != NULL)
		sbf_hso_free(tmp);
	PG_RETURN_SCALABLEBLOOM_P(sbf_filter_finish(&f));
}
