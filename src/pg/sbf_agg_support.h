/*
 * sbf_agg_support.h
 *	  Aggregate support shared by sbf_agg.c, sbf_hashset.c, sbf_union_agg.c
 *	  and sbf_window_agg.c: the aggregate context, the transition of an
 *	  element aggregate, and recognising an aggregate's expanded state.
 *	  Everything here is inline: it runs once per row.
 */
#ifndef SBF_AGG_SUPPORT_H
#define SBF_AGG_SUPPORT_H

#include "sbf.h"
#include "sbf_elem.h"
#include "utils/expandeddatum.h"

/* Raises 0A000 for a support function fn called outside its aggregate. */
pg_noreturn extern void sbf_agg_context_error(const char *fn);

/*
 * The aggregate context; 0A000 naming fn when not called by an Agg (a
 * support function called directly from SQL).
 * Inline: every transition call asks.
 */
static inline MemoryContext
sbf_agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (unlikely(!AggCheckCallContext(fcinfo, &aggcxt)))
		sbf_agg_context_error(fn);
	return aggcxt;
}

/*
 * The state argument unchanged (NULL stays NULL): what a transition or
 * combine function returns for a NULL second argument.
 */
static inline Datum
sbf_agg_keep_state(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* A step that adds element hash h to the state of an element aggregate. */
typedef Datum (*SbfAggStep) (FunctionCallInfo fcinfo, MemoryContext aggcxt,
							 uint64 h);

/*
 * The transition of an element aggregate (sbf_agg, sbf_hashset_agg) whose
 * element, argument 1, has the given kind: checks the aggregate context,
 * keeps the state for a NULL element, else passes the element's hash to
 * step.  Always inlined, so that with constant kind and step each entry
 * point compiles to a direct hash and a direct step: no per-row indirection.
 */
static pg_attribute_always_inline Datum
sbf_agg_elem_trans(FunctionCallInfo fcinfo, const char *fn, SbfElemKind kind,
				   SbfAggStep step)
{
	MemoryContext aggcxt = sbf_agg_context(fcinfo, fn);

	if (PG_ARGISNULL(1))
		return sbf_agg_keep_state(fcinfo);
	return step(fcinfo, aggcxt, sbf_elem_hash(kind, PG_GETARG_DATUM(1)));
}

/*
 * The expanded object behind datum d if its methods are methods (only a
 * read-write one when rw), else NULL: how a glue file recognises its own
 * aggregate states.
 */
static inline ExpandedObjectHeader *
sbf_expanded_of(Datum d, const ExpandedObjectMethods *methods, bool rw)
{
	ExpandedObjectHeader *eoh;

	if (rw ? !VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)) :
		!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	return eoh->eoh_methods == methods ? eoh : NULL;
}

#endif							/* SBF_AGG_SUPPORT_H */
