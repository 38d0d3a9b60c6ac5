/*
 * sbf_mem.c
 *	  What binds the pure-C core to PostgreSQL memory: the palloc allocator
 *	  the core runs on (with the interrupt check of its long loops) and the
 *	  wrapping of a core filter as a varlena.
 */
#include "postgres.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "sbf.h"

/* sbf.huge_pages: whether large scratch arrays ask for huge pages */
static bool sbf_huge_pages_guc = true;

/* the huge page size hinted for; a smaller chunk holds no aligned one */
#define HUGE_PAGE		((uintptr_t) 2 << 20)

/* Defines sbf.huge_pages (from _PG_init). */
void
sbf_mem_define_gucs(void)
{
	DefineCustomBoolVariable("sbf.huge_pages",
							 "Asks for transparent huge pages for the large arrays that building a filter uses.",
							 "Arrays of 2 MB and more (an aggregate group's hashes, a fused build's scratch, large results) are offered to the kernel with madvise(MADV_HUGEPAGE) on Linux: one page fault per 2 MB instead of one per 4 kB.  Has an effect only where /sys/kernel/mm/transparent_hugepage/enabled is \"madvise\" or \"always\"; never changes a result.",
							 &sbf_huge_pages_guc,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
}

/*
 * Asks the kernel to back the 2 MB-aligned interior of [p, p + size) with
 * transparent huge pages (Linux; sbf.huge_pages): a large array then takes
 * one page fault per 2 MB instead of one per 4 kB, which is most of the
 * cost of touching new memory (a fresh backend building one group of 1M
 * hashes took ~7,300 faults).  Only a hint: madvise's answer is ignored
 * and the memory and its contents are unchanged.
 */
void
sbf_mem_hint_huge(void *p, Size size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t	lo;
	uintptr_t	hi;

	if (!sbf_huge_pages_guc || p == NULL || size < HUGE_PAGE)
		return;
	lo = ((uintptr_t) p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	hi = ((uintptr_t) p + size) & ~(HUGE_PAGE - 1);
	if (hi > lo)
		(void) madvise((void *) lo, hi - lo, MADV_HUGEPAGE);
#endif
}

/* Allocates size bytes in ctx (or CurrentMemoryContext); NULL on failure. */
static void *
core_alloc(size_t size, void *ctx)
{
	MemoryContext mcxt = ctx ? (MemoryContext) ctx : CurrentMemoryContext;
	void	   *p;

	if (!AllocSizeIsValid(size))
		return NULL;
	p = MemoryContextAllocExtended(mcxt, size, MCXT_ALLOC_NO_OOM);
	sbf_mem_hint_huge(p, size);
	return p;
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
	ptr = repalloc(ptr, size);
	sbf_mem_hint_huge(ptr, size);
	return ptr;
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
