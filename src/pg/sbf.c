/*
 * sbf.c
 *	  The module: PG_MODULE_MAGIC and _PG_init (which calls each subsystem's
 *	  init).  Where the extension starts.
 *
 * The glue is split by concern: sbf_io.c (text and binary forms, casts),
 * sbf_ops.c (add, contains, union, info), sbf_agg.c, sbf_union_agg.c and
 * sbf_hashset.c (aggregates), sbf_window*.c (windowed filters), sbf_slice.c
 * and sbf_cache*.c (reading stored filters for probes), sbf_spill.c (large
 * aggregate states), sbf_elem.c (element types), sbf_params.c (parameter
 * checks), sbf_errors.c (validation and status errors), sbf_mem.c (the
 * palloc allocator of the core, a core filter as a varlena),
 * sbf_lifecycle.c.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/guc.h"

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
	sbf_mem_define_gucs();
	MarkGUCPrefixReserved("sbf");
}
