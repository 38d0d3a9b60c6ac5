/*
 * sbf_hashset_glue.h
 *	  PostgreSQL glue of the sbf_hashset type (src/pg/sbf_hashset.c), shared with
 *	  sbf_agg (src/pg/sbf_agg.c): the read-write expanded object that aggregate
 *	  states live in, and the helpers that open sbf_hashset arguments.  The
 *	  byte format is in src/core/hashset/sbf_hashset.h.
 *
 * An aggregate whose state type is sbf_hashset keeps its state as an
 * expanded object (src/include/utils/expandeddatum.h) whose memory context
 * is a child of the aggregate context.  Transition and combine functions
 * change it in place and return the same read-write pointer, so nodeAgg
 * neither copies nor frees it per row (ExecAggTransReparent).  It becomes
 * bytes only when PostgreSQL needs a datum: a parallel worker's partial
 * result, Citus's worker_partial_agg (via the text output), a value stored
 * in a table.  Then get_flat_size encodes nothing but sizes the encoding
 * (raising 54000 past 1 GB) and flatten_into writes it.
 */
#ifndef SBF_HASHSET_GLUE_H
#define SBF_HASHSET_GLUE_H

#include "postgres.h"
#include "fmgr.h"
#include "utils/expandeddatum.h"

#include "sbf.h"
#include "sbf_agg_support.h"
#include "sbf_hashset.h"

/*
 * An expanded sbf_hashset.  A row of sbf_agg reads the header (the datum
 * points into it) and the first fields of hs (its pending buffer), which
 * follow the 48-byte header directly, and nothing else of the object.
 *
 * flat_size caches get_flat_size's answer, which flushes the buffer: it is
 * valid while the buffer is still empty and the set does not stream (adds
 * to a streaming set bypass the buffer).  So a row's add needs no write to
 * invalidate it; every other change (a union, a load) sets it to 0.
 */
typedef struct SbfHsObject
{
	ExpandedObjectHeader hdr;
	SbfHashSet	hs;				/* allocates in hdr.eoh_context */
	bool		with_rate;		/* an sbf_agg state: flatten with error_rate */
	Size		flat_size;		/* cached by get_flat_size; 0 = unknown */
	uint64		flat_n;			/* of a spilled state: its hashes and Rice */
	int			flat_k;			/* parameter, with flat_size, and */
	uint8	   *flat_buf;		/* its encoding, made with them, or NULL */
	uint64		spill_at;		/* spill the array past this many hashes
								 * (sbf_spill.h); 0 = never */
	struct SbfSpill *spill;		/* runs in a temporary file, or NULL */
} SbfHsObject;

/*
 * A new, empty expanded set in a child context of parent.  threshold and
 * params as for sbf_hs_init; with_rate as above.
 */
extern SbfHsObject *sbf_hso_new(MemoryContext parent, const SbfParams *params,
								uint64 threshold, bool with_rate);

/*
 * What an aggregate call site keeps in fn_extra: scratch for sorting full
 * buffers, and the arena its states live in.
 *
 * The arena: nodeAgg adopts a returned read-write expanded object without
 * copying only if its context is a child of the aggregate context.  A child
 * context per group would cost about 1.2 kB per group (a context header and
 * a first 1 kB block), for the millions of small groups of GROUP BY
 * user_id.  So all states of one aggregate context share one child context,
 * the arena, and their 304-byte objects come from a slab inside it
 * (measured: 100,000 groups of 10 rows take about 385 bytes a group, 1.0's
 * internal state about 195).  That is safe because nothing deletes
 * one state alone: nodeAgg deletes a read-write state only when a
 * transition or combine function returns a different datum, and ours always
 * return the state they were given once it exists; the arena goes with its
 * aggregate context, and a reset callback forgets it then.
 *
 * One call site can serve several aggregate contexts at once: with GROUPING
 * SETS, ROLLUP or CUBE each sorted set has its own and the hashed sets
 * share another, and rows alternate between them.  So the call site keeps
 * an arena per aggregate context (up to SBF_HS_ARENAS; past that the oldest
 * slot is reused, which only means a new arena for that context).
 */
#define SBF_HS_ARENAS			8

typedef struct SbfHsArena
{
	MemoryContext parent;		/* aggregate context of the arena */
	MemoryContext arena;		/* NULL when the slot is free */
	MemoryContext objects;		/* slab of the arena's SbfHsObjects */
} SbfHsArena;

typedef struct SbfHsCallCache
{
	SbfAllocator alloc;			/* palloc in fn_mcxt, for the scratch */
	SbfHsScratch scratch;
	SbfHsArena	arenas[SBF_HS_ARENAS];
	int			next;			/* the slot to reuse when all are taken */
} SbfHsCallCache;

/* The call site's cache, made on first use (sbf_spill.c). */
extern SbfHsCallCache *sbf_hs_call_cache(FunctionCallInfo fcinfo);

/* A new, empty expanded set in the arena of aggcxt (an aggregate state). */
extern SbfHsObject *sbf_hso_new_state(FunctionCallInfo fcinfo, MemoryContext aggcxt,
									  const SbfParams *params, uint64 threshold,
									  bool with_rate);

/* The methods of our expanded objects (how one is recognised). */
extern const ExpandedObjectMethods sbf_hso_methods;

/*
 * The expanded object behind datum d if it is one of ours and read-write,
 * else NULL.  Inline: every transition call asks.
 */
static inline SbfHsObject *
sbf_hso_rw(Datum d)
{
	return (SbfHsObject *) sbf_expanded_of(d, &sbf_hso_methods, true);
}

/*
 * The state of an element aggregate's row that can take the fast path: a
 * non-NULL element and a state that is our read-write object.  Only an
 * aggregate holds one (nothing else makes one a transition could be
 * handed), so the row needs no aggregate-context check; the first row of a
 * group, NULL elements and anything else go through sbf_agg_elem_trans.
 */
static inline SbfHsObject *
sbf_hso_row_state(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return NULL;
	return sbf_hso_rw(PG_GETARG_DATUM(0));
}

/* The expanded object behind datum d if it is one of ours (any mode), else NULL. */
static inline SbfHsObject *
sbf_hso_any(Datum d)
{
	return (SbfHsObject *) sbf_expanded_of(d, &sbf_hso_methods, false);
}

/* Adds h to a state whose buffer is full (sbf_spill.c). */
extern SbfStatus sbf_spill_add_slow(FunctionCallInfo fcinfo, SbfHsObject *o,
									uint64 h);

/*
 * Adds hash h to an aggregate state: a store into the buffer, inline; a
 * full buffer is sorted in with the call site's scratch, after the array is
 * spilled to a temporary file if it is due (sbf_spill_add_slow).
 */
static inline SbfStatus
sbf_hso_add(FunctionCallInfo fcinfo, SbfHsObject *o, uint64 h)
{
	SbfHashSet *hs = &o->hs;

	if (likely(hs->nbuf < hs->bufcap))
	{
		hs->buf[hs->nbuf++] = h;
		return SBF_OK;
	}
	return sbf_spill_add_slow(fcinfo, o, h);
}

/*
 * Adds hash h to set hs (1.0's internal state, which never spills): a
 * store into the buffer, inline; a full buffer is sorted in with the call
 * site's scratch (sbf_hs_add_slow).
 */
static inline SbfStatus
sbf_hs_add_hash(FunctionCallInfo fcinfo, SbfHashSet *hs, uint64 h)
{
	if (likely(hs->nbuf < hs->bufcap))
	{
		hs->buf[hs->nbuf++] = h;
		return SBF_OK;
	}
	return sbf_hs_add_slow(hs, h, &sbf_hs_call_cache(fcinfo)->scratch);
}

/*
 * The set of an sbf_hashset datum for reading: the object itself when d is
 * an expanded one (read-only or read-write), else a temporary set decoded
 * from the flat value (validated, 22P03 / XX001 on malformed bytes);
 * *tmp is then that temporary object, to free with sbf_hso_free (or NULL).
 * allow_filter: accept a streamed sbf_agg state (else 22023).
 */
extern SbfHashSet *sbf_hso_open(Datum d, bool allow_filter, SbfHsObject **tmp);

/* The error_rate an sbf_hashset datum carries, or 0 (sbf_agg's states). */
extern double sbf_hs_datum_rate(Datum d);

/*
 * dst := dst UNION the set of datum d (only read; a flat value is checked
 * as it is decoded).  allow_filter as for sbf_hso_open.
 */
extern void sbf_hs_union_datum(SbfHashSet *dst, Datum d, bool allow_filter);

/*
 * The same for an aggregate state o: a large flat set goes to o's spill as
 * one run, and o's array is spilled if the union took it past spill_at.
 */
extern void sbf_hso_union_datum(FunctionCallInfo fcinfo, SbfHsObject *o,
								Datum d, bool allow_filter);

/* Frees an expanded set. */
extern void sbf_hso_free(SbfHsObject *o);

/* The read-write datum of an expanded set (its flat size forgotten). */
extern Datum sbf_hso_datum(SbfHsObject *o);

/* CHECK_FOR_INTERRUPTS as a function, for the core's interrupt callback. */
extern void sbf_hs_interrupt(void);

/* Error parameters of sbf_agg: defaults with error_rate e. */
extern void sbf_agg_params(double error_rate, SbfParams *p);

#endif							/* SBF_HASHSET_GLUE_H */
