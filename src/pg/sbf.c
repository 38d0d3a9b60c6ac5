/*
 * sbf.c
 *	  The module: PG_MODULE_MAGIC, _PG_init (which calls each subsystem's
 *	  init), and what binds the pure-C core to PostgreSQL memory: the palloc
 *	  allocator the core runs on and the wrapping of a core filter as a
 *	  varlena.  Where the extension starts.
 *
 * The glue is split by concern: sbf_io.c (text and binary forms, casts),
 * sbf_ops.c (add, contains, union, info), sbf_agg.c, sbf_union_agg.c and
 * sbf_hashset.c (aggregates), sbf_window*.c (windowed filters), sbf_slice.c
 * and sbf_cache*.c (reading stored filters for probes), sbf_spill.c (large
 * aggregate states), sbf_elem.c (element types), sbf_params.c (parameter
 * checks), sbf_errors.c (validation and status errors), sbf_lifecycle.c.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "sbf.h"
#include "sbf_probe.h"
#include "sbf_spill.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* The core's interrupt check of loops without an allocator (the validators). */
static void
core_hook_interrupt(void)
{
	CHECK_FOR_INTERRUPTS();
}

/*
 * Module load: each subsystem defines its settings (all named sbf.*); the
 * core's validators and directory walks check for interrupts.
 */
void
_PG_init(void)
{
	sbf_interrupt_hook = core_hook_interrupt;
	sbf_cache_define_gucs();
	sbf_spill_define_gucs();
	MarkGUCPrefixReserved("sbf");
}

/* Allocates size bytes in ctx (or CurrentMemoryContext); NULL on failure. */
static void *
core_alloc(size_t size, void *ctx)
{
	MemoryContext mcxt = ctx ? (MemoryContext) ctx : CurrentMemoryContext;

	if (!AllocSizeIsValid(size))
		return NULL;
	return MemoryContextAllocExtended(mcxt, size, MCXT_ALLOC_NO_OOM);
}

/* Resizes a chunk from core_alloc; NULL if the size is beyond palloc's limit. */
static void *
core_realloc(void *ptr, size_t size, void *ctx)
{
	if (ptr == NULL)
		return core_alloc(size, ctx);
	if (!AllocSizeIsValid(size))
		return NULL;
	/* PostgreSQL 15 has no no-OOM repalloc: out of memory raises 53200 */
	return repalloc(ptr, size);
}

/* Frees a chunk from core_alloc. */
static void
core_free(void *ptr, void *ctx)
{
	if (ptr != NULL)
		pfree(ptr);
}

/* The core's interrupt callback: a cancel or timeout leaves by longjmp. */
static void
core_interrupt(void *ctx)
{
	CHECK_FOR_INTERRUPTS();
}

const SbfAllocator sbf_palloc_allocator = {
	core_alloc,
	core_realloc,
	core_free,
	NULL,
	core_interrupt
};

/* Wraps a mutable core filter (created with prefix VARHDRSZ) as a varlena. */
ScalableBloom *
sbf_filter_finish(SbfFilter *f)
{
	if (f->prefix != VARHDRSZ)
		elog(ERROR, "scalablebloom filter built with prefix %zu", f->prefix);
	/* the core keeps len <= SBF_MAX_BYTES, so the total fits a varlena */
	SET_VARSIZE(f->base, VARHDRSZ + f->len);
	return (ScalableBloom *) f->base;
}
