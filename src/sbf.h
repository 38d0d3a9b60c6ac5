/*
 * sbf.h
 *	  PostgreSQL glue for the scalablebloom type: the varlena that carries a
 *	  payload of format version 1, 2 or 3 (the byte layouts are in
 *	  docs/format.md), fmgr macros, and helpers shared by the glue files.
 *
 * On disk and in memory a scalablebloom is a plain varlena: a 4-byte length
 * word followed by the payload.  Because the payload's first field group is 4
 * bytes long, every 8-byte field and every bit word lands 8-byte aligned in a
 * palloc'd (MAXALIGN'd) copy.
 *
 * NAMING: a name tells which layer a function belongs to.
 *	- Core API (src/core/sbf_core.h; pure C, no PostgreSQL types, never
 *	  raises an error but returns an SbfStatus): sbf_<object>_<verb> or
 *	  sbf_<verb> (sbf_validate, sbf_add_hash, sbf_text_encode), types Sbf<Name>,
 *	  constants SBF_<NAME>.  Helpers shared by core files (sbf_internal.h)
 *	  look the same.
 *	- Glue helpers shared by the glue files (this header): sbf_<verb>_<object>
 *	  on PostgreSQL types (sbf_check_payload, sbf_view_of, sbf_probe_open);
 *	  they may ereport.  None takes a core function's name.
 *	- SQL entry points (PG_FUNCTION_INFO_V1): sbf_<SQL name>[_<argument
 *	  type>] (sbf_add_text, sbf_contains_int8, sbf_agg_trans_bytea); where that
 *	  is a core function's name, it ends in _pg instead (sbf_union_pg,
 *	  sbf_cardinality_pg).  The install script of every released version
 *	  records these symbols in the catalog, so a released entry point keeps
 *	  its name and keeps working for as long as a database may still be at
 *	  that version (see sbf--1.0.sql).
 *	  Entry points that differ only in their element type are one-line
 *	  SBF_ENTRY_POINT wrappers over one inlined implementation.
 *	- File-local (static) functions: no prefix, named for what they do
 *	  (check_prefix, hll_split, b64_value), so that a reader knows at once
 *	  that nothing outside the file calls them.  The core follows this; some
 *	  glue statics still carry sbf_ and lose it when their file is reworked.
 *	- SQL objects: functions and aggregates sbf_<name>; types scalablebloom
 *	  and sbf_hashset; aggregate support functions <aggregate>_<role>
 *	  (sbf_agg_trans, sbf_union_agg_final).
 */
#ifndef SBF_H
#define SBF_H

#include "postgres.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/expandeddatum.h"

#include "sbf_compat.h"

#include "sbf_core.h"
#include "sbf_window.h"

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

/*
 * Defines SQL entry point name (declared with PG_FUNCTION_INFO_V1 as usual)
 * as "return expr;" with fcinfo in scope.  For the element functions, whose
 * entry points differ only in the element kind they pass to one shared,
 * inlined implementation: one line each.
 */
#define SBF_ENTRY_POINT(name, expr) \
	Datum name(PG_FUNCTION_ARGS) { return (expr); } \
	extern int no_such_variable

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
pg_noreturn extern void sbf_report_status(SbfStatus st);

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
 * filters can be united (sbf_union_mismatch); own_rate: the result keeps the
 * filters' error_rate, so it must be equal too.
 */
extern void sbf_check_union_compatible(const SbfView *a, const SbfView *b,
									   bool own_rate);

/* The one wording of an incompatible union (views may be NULL). */
pg_noreturn extern void sbf_union_incompatible(const SbfView *a,
											  const SbfView *b, uint32 diff);

/*
 * Raises the error of a failed union: for SBF_E_OVER_BUDGET 22023 with a
 * hint naming the error_rate that would fit (from bound) and sbf_hashset;
 * else as sbf_report_status.
 */
/* Smallest error_rate with two significant digits that is at least bound. */
extern double sbf_rate_that_fits(double bound);
pg_noreturn extern void sbf_report_union(SbfStatus st, double bound,
										double error_rate);

/* Raises 22023 with a hint for an error_rate outside (0, 0.5). */
extern void sbf_check_error_rate(double error_rate);

/* Appends a double as a JSON number in its shortest exact form (sbf_info). */
extern void sbf_append_json_float(StringInfo buf, double d);

/* Default parameters (used when a NULL filter starts a new one). */
extern void sbf_default_params(SbfParams *p);

/* Wraps a mutable core filter (created with prefix VARHDRSZ) as a varlena. */
extern ScalableBloom *sbf_filter_finish(SbfFilter *f);

/*
 * Element types.  One table (sbf_elem_types in sbf_util.c) says, for each
 * SQL type whose values are filter elements, how a value becomes the
 * canonical bytes that sbf_hash turns into the element's hash: text, varchar
 * and bytea hash their data bytes; bigint, integer and smallint hash as the
 * equal bigint (sbf_hash_int64), so 42::integer and 42::bigint are one
 * element.  add, ||, contains, <@, matches and the element aggregates all
 * hash through it: a new element type is a new row (and its SQL).
 */
typedef enum SbfElemKind
{
	SBF_ELEM_BYTES,				/* a varlena: its data bytes */
	SBF_ELEM_INT8,				/* bigint */
	SBF_ELEM_INT4,				/* integer, as the equal bigint */
	SBF_ELEM_INT2				/* smallint, as the equal bigint */
} SbfElemKind;

typedef struct SbfElemType
{
	Oid			typid;
	Oid			arraytypid;		/* its array type if || takes such arrays,
								 * else InvalidOid */
	SbfElemKind kind;
	/* storage of the type, so that walking an array needs no catalog lookup */
	int16		typlen;
	bool		typbyval;
	char		typalign;
} SbfElemType;

/* The row of an element type, or NULL if typid is not one. */
extern const SbfElemType *sbf_elem_type(Oid typid);

/* The row whose arrays have type arraytypid, or NULL. */
extern const SbfElemType *sbf_elem_array_type(Oid arraytypid);

/* Hash of a compressed or out-of-line varlena element (detoasts a copy). */
extern uint64 sbf_hash_toasted(struct varlena *p);

/*
 * Hash of an element datum of the given kind, in any form (a varlena may be
 * short, compressed or out of line).  Inline: a caller that passes a constant
 * kind gets just that kind's code, with no per-row dispatch.
 */
static inline uint64
sbf_elem_hash(SbfElemKind kind, Datum d)
{
	switch (kind)
	{
		case SBF_ELEM_BYTES:
			{
				struct varlena *p = (struct varlena *) DatumGetPointer(d);

				if (likely(!VARATT_IS_EXTENDED(p) || VARATT_IS_SHORT(p)))
					return sbf_hash(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p));
				return sbf_hash_toasted(p);
			}
		case SBF_ELEM_INT8:
			return sbf_hash_int64(DatumGetInt64(d));
		case SBF_ELEM_INT4:
			return sbf_hash_int64((int64) DatumGetInt32(d));
		case SBF_ELEM_INT2:
			return sbf_hash_int64((int64) DatumGetInt16(d));
	}
	pg_unreachable();
}

/* ---- aggregate support shared by sbf_agg.c, sbf_hashset.c, sbf_union_agg.c ---- */

/*
 * The aggregate context; elog(ERROR) naming fn when not called by an Agg.
 * Inline: every transition call asks.
 */
static inline MemoryContext
sbf_agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (unlikely(!AggCheckCallContext(fcinfo, &aggcxt)))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggcxt;
}

/*
 * The state argument unchanged (NULL stays NULL): what a transition or
 * combine function returns for a NULL second argument.
 */
extern Datum sbf_agg_keep_state(FunctionCallInfo fcinfo);

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

/* ---- sbf_slice.c ---- */

/* A large out-of-line value read by slices (opaque). */
typedef struct SbfSliced SbfSliced;

/* Whether about nelems lookups in a stored len-byte value should read slices. */
extern bool sbf_slices_may_pay(Size len, uint32 nelems);

/*
 * Opens an uncompressed out-of-line value of len payload bytes for nelems
 * lookups by slices; NULL when that would likely fetch more than a detoast.
 */
extern SbfSliced *sbf_sliced_open(struct varlena *raw, Size len, uint32 nelems);
extern bool sbf_sliced_contains(SbfSliced *s, uint64 h);
extern void sbf_sliced_close(SbfSliced *s);

/*
 * A filter opened for its header and directory only (sbf_cardinality,
 * sbf_info): view.buf covers at least header and directory; len is the
 * payload length.  sbf_prefix_hll() fetches the HyperLogLog area when the
 * caller needs it.
 */
typedef struct SbfPrefixRead
{
	SbfView		view;
	Size		len;
	struct varlena *raw;		/* out-of-line value read by slices, or NULL */
	void	   *tofree;
	void	   *hll_tofree;
} SbfPrefixRead;

extern void sbf_prefix_open(Datum d, SbfPrefixRead *r);
extern const uint8 *sbf_prefix_hll(SbfPrefixRead *r);
extern void sbf_prefix_close(SbfPrefixRead *r);

/* ---- sbf_cache.c ---- */

/*
 * A filter argument opened for lookups: a view over the whole value (from
 * the session cache or the call site's memo in fn_extra, both valid for the
 * current command only unless validated again; or read in place), or a
 * reader that fetches only the TOAST chunks its probes touch.  The view is
 * valid until sbf_probe_close.
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
extern void sbf_probe_close(SbfProbe *p);

/* ---- sbf_window.c ---- */

/*
 * How many of n hashes a windowed view (version 3, from sbf_view_of) holds
 * in the buckets that end after bucket since (SBF_WIN_ALL: every bucket).
 */
extern int	sbf_window_count(const SbfView *v, const uint64 *h, int n, int64 since);

/* Raises 22023 naming what a windowed filter cannot do (fn), with a hint. */
pg_noreturn extern void sbf_window_refuse(const char *fn, const char *hint);

/* The union of two views of which at least one is windowed (else 22023). */
extern ScalableBloom *sbf_window_union_views(const SbfView *a, const SbfView *b,
											 double error_rate);

/* # and sbf_info of a windowed view. */
extern int64 sbf_window_cardinality(const SbfView *v);
extern Datum sbf_window_info(const SbfView *v);

static inline bool
sbf_view_is_window(const SbfView *v)
{
	return v->version == SBF_WIN_VERSION;
}

/* How many of n hashes are probably in an opened filter. */
static inline int
sbf_probe_count(SbfProbe *p, const uint64 *h, int n)
{
	int			hits = 0;
	int			i;

	if (likely(p->view != NULL) && unlikely(sbf_view_is_window(p->view)))
		return sbf_window_count(p->view, h, n, SBF_WIN_ALL);
	if (likely(p->view != NULL))
		return (int) sbf_count_contained(p->view, h, (size_t) n);
	for (i = 0; i < n; i++)
		hits += sbf_sliced_contains(p->sliced, h[i]);
	return hits;
}

/* Membership by hash in an opened filter: false = definitely absent. */
static inline bool
sbf_probe_contains(SbfProbe *p, uint64 h)
{
	if (likely(p->view != NULL) && unlikely(sbf_view_is_window(p->view)))
		return sbf_window_count(p->view, &h, 1, SBF_WIN_ALL) > 0;
	if (likely(p->view != NULL))
		return sbf_contains_hash(p->view, h);
	return sbf_sliced_contains(p->sliced, h);
}

#endif							/* SBF_H */
