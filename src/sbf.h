/*
 * sbf.h
 *	  PostgreSQL glue for the scalablebloom type: the varlena that carries a
 *	  payload of format version 1 or 2 (see src/core/sbf_core.h for the byte
 *	  layout), fmgr
 *	  macros, and helpers shared by sbf_io.c, sbf_ops.c and sbf_agg.c.
 *
 * On disk and in memory a scalablebloom is a plain varlena: a 4-byte length
 * word followed by the payload.  Because the payload's first field group is 4
 * bytes long, every 8-byte field and every bit word lands 8-byte aligned in a
 * palloc'd (MAXALIGN'd) copy.
 */
#ifndef SBF_H
#define SBF_H

#include "postgres.h"
#include "fmgr.h"

#include "sbf_core.h"

typedef struct ScalableBloom
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	uint8		data[FLEXIBLE_ARRAY_MEMBER];	/* payload, format 1 or 2 */
} ScalableBloom;

#define SBF_PAYLOAD_LEN(x)			(VARSIZE(x) - VARHDRSZ)
#define SBF_PAYLOAD_PTR(x)			((const uint8_t *) VARDATA(x))

#define DatumGetScalableBloomP(x)	((ScalableBloom *) PG_DETOAST_DATUM(x))
#define PG_GETARG_SCALABLEBLOOM_P(x) DatumGetScalableBloomP(PG_GETARG_DATUM(x))
#define PG_RETURN_SCALABLEBLOOM_P(x) PG_RETURN_POINTER(x)

/* ---- sbf_util.c ---- */

/*
 * palloc-backed allocator for the core.  Its ctx is NULL, meaning
 * CurrentMemoryContext; a copy whose ctx is a MemoryContext allocates there
 * instead (e.g. an aggregate's context).  Requests above MaxAllocSize fail
 * with NULL, which the core reports as SBF_E_NOMEM.
 */
extern const SbfAllocator sbf_palloc_allocator;

/*
 * Validates bytes that come from outside (recv, bytea cast, deserialize);
 * raises ERRCODE_INVALID_BINARY_REPRESENTATION with a detail naming the
 * defect.  Copies nothing.
 */
extern void sbf_check_payload(const uint8 *buf, size_t len, SbfView *v);

/*
 * The same check with the caller's SQLSTATE: text input passes
 * ERRCODE_INVALID_TEXT_REPRESENTATION.
 */
extern void sbf_check_payload_code(const uint8 *buf, size_t len, SbfView *v,
								   int sqlerrcode);

/* View over a detoasted value that was validated when it entered. */
extern void sbf_view_of(const ScalableBloom *f, SbfView *v);

/*
 * View of the header and directory of a stored value from its first avail
 * of len payload bytes; raises XX001 if they are inconsistent.  Returns false
 * when avail is too short: then it needs sbf_prefix_size(v->nsegments) bytes.
 */
extern bool sbf_view_of_prefix(const uint8 *buf, size_t avail, size_t len,
							   SbfView *v);

/* Raises the error matching a non-OK status from a write operation. */
extern void sbf_report_status(SbfStatus st) pg_attribute_noreturn();

/* Checks user-supplied parameters, raising 22023 with a hint on failure. */
extern void sbf_check_params(const SbfParams *p);

/*
 * Checks SQL-level parameters (before they are narrowed to SbfParams' field
 * types) and fills *p, with hll_p = SBF_HLL_P_DEFAULT.
 */
extern void sbf_params_from_sql(int64 capacity, float8 error_rate, int32 growth,
								float8 tightening, SbfParams *p);

/*
 * Raises 22023 with a detail naming the differing parameters unless two
 * filters can be united.
 */
extern void sbf_check_union_compatible(const SbfView *a, const SbfView *b);

/* Default parameters (used when a NULL filter starts a new one). */
extern void sbf_default_params(SbfParams *p);

/* Wraps a mutable core filter (created with prefix VARHDRSZ) as a varlena. */
extern ScalableBloom *sbf_filter_finish(SbfFilter *f);

/*
 * Element hashing by SQL type: text, bigint, bytea.  sbf_hash_text and
 * sbf_hash_bytea take values that may have a short header but are neither
 * compressed nor external (PG_GETARG_TEXT_PP / PG_GETARG_BYTEA_PP);
 * sbf_hash_datum accepts text, varchar, bigint, integer, smallint and bytea
 * datums in any form.
 */
extern uint64 sbf_hash_text(text *t);
extern uint64 sbf_hash_bytea(bytea *b);
extern uint64 sbf_hash_datum(Datum d, Oid typid);

/* ---- sbf_cache.c ---- */

/* A large out-of-line value read by slices (opaque). */
typedef struct SbfSliced SbfSliced;

/*
 * A filter argument opened for lookups: a view over the whole value (cached
 * in fn_extra, or read in place), or a reader that fetches only the TOAST
 * chunks its probes touch.
 */
typedef struct SbfProbe
{
	const SbfView *view;		/* NULL when sliced */
	SbfSliced  *sliced;
	SbfView		local;			/* the view when it is not cached */
	void	   *tofree;			/* a per-call copy */
} SbfProbe;

/*
 * Opens filter argument argno for about nelems lookups.  Uses fn_extra of
 * the call's FmgrInfo: a function that calls it must not use fn_extra
 * otherwise.
 */
extern void sbf_probe_open(FunctionCallInfo fcinfo, int argno, uint32 nelems,
						   SbfProbe *p);
extern bool sbf_sliced_contains(SbfSliced *s, uint64 h);
extern void sbf_probe_close(SbfProbe *p);

/* Membership by hash in an opened filter: false = definitely absent. */
static inline bool
sbf_probe_contains(SbfProbe *p, uint64 h)
{
	if (likely(p->view != NULL))
		return sbf_contains_hash(p->view, h);
	return sbf_sliced_contains(p->sliced, h);
}

#endif							/* SBF_H */
