/*
 * sbf_mem.c
 *	  What binds the pure-C core to PostgreSQL memory: the palloc allocator
 *	  the core runs on (with the interrupt check of its long loops) and the
 *	  wrapping of a core filter as a varlena.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "sbf.h"

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
