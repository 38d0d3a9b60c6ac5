/*
 * sbf.h
 *	  PostgreSQL glue for the scalablebloom type: the varlena that carries a
 *	  payload of format version 1, 2, 3 or 4 (the byte layouts are in
 *	  docs/format.md and docs/format4.md), its fmgr macros, and what binds
 *	  the core to PostgreSQL memory (sbf_mem.c).  Each subsystem of the glue has its own
 *	  header: sbf_errors.h (validation and status errors), sbf_params.h
 *	  (parameter checks), sbf_elem.h (element types), sbf_agg_support.h
 *	  (aggregate support), sbf_probe.h (reading stored filters: slices, the
 *	  cache, the probe dispatch), sbf_window_glue.h (windowed filters),
 *	  sbf_hashset_glue.h and sbf_spill.h.
 *
 * On disk and in memory a scalablebloom is a plain varlena: a 4-byte length
 * word followed by the payload.  Because the payload's first field group is 4
 * bytes long, every 8-byte field and every bit word lands 8-byte aligned in a
 * palloc'd (MAXALIGN'd) copy.
 *
 * NAMING: a name tells which layer a function belongs to.
 *	- Core API (src/core: sbf_core.h and each folder's header, e.g.
 *	  sbf_plain.h, sbf_union.h; pure C, no PostgreSQL types, never raises an
 *	  error but returns an SbfStatus): sbf_<object>_<verb> or
 *	  sbf_<verb> (sbf_validate, sbf_add_hash, sbf_text_encode), types Sbf<Name>,
 *	  constants SBF_<NAME>.  Helpers shared by core files (sbf_internal.h)
 *	  look the same.
 *	- Glue helpers shared by the glue files (the glue headers): sbf_<verb>_<object>
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
 *	  that nothing outside the file calls them.  The core and the glue follow
 *	  this, but for statics of sbf_cache.c and sbf_cache_session.c, which
 *	  still carry sbf_ and lose it when those files are reworked.
 *	- SQL objects: functions and aggregates sbf_<name>; types scalablebloom
 *	  and sbf_hashset; aggregate support functions <aggregate>_<role>
 *	  (sbf_agg_trans, sbf_union_agg_final).
 */
#ifndef SBF_H
#define SBF_H

#include "postgres.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

#include "sbf_compat.h"

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_union.h"

typedef struct ScalableBloom
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	uint8		data[FLEXIBLE_ARRAY_MEMBER];	/* payload, format 1, 2, 3 or 4 */
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

/* ---- sbf_mem.c ---- */

/*
 * palloc-backed allocator for the core.  Its ctx is NULL, meaning
 * CurrentMemoryContext; a copy whose ctx is a MemoryContext allocates there
 * instead (e.g. an aggregate's context).  Requests above MaxAllocSize fail
 * with NULL, which the core reports as SBF_E_NOMEM.
 */
extern const SbfAllocator sbf_palloc_allocator;
extern void sbf_mem_hint_huge(void *p, Size size);
extern void sbf_mem_define_gucs(void);

/* Wraps a mutable core filter (created with prefix VARHDRSZ) as a varlena. */
extern ScalableBloom *sbf_filter_finish(SbfFilter *f);

/* ---- sbf_ops.c ---- */

/*
 * Starts the result of a write from filter argument 0: a new default filter
 * when it is NULL, else the argument's sbf_delta (delta) or a copy with
 * extra bytes of room; a windowed argument is refused (fn, hint: as for
 * sbf_window_refuse).  Reports a failed status.
 */
extern void sbf_start_result(FunctionCallInfo fcinfo, SbfFilter *nf,
							 size_t extra, bool delta, const char *fn,
							 const char *hint);

#endif							/* SBF_H */
