/*
 * sbf_status.c
 *	  How the core speaks to its host: the wording of its statuses (SbfStatus
 *	  in sbf_core.h) and the interrupt check of loops without an allocator.
 */
#include "sbf_internal.h"

/* A lowercase, period-free sentence fragment describing a status. */
const char *
sbf_status_message(SbfStatus st)
{
	switch (st)
	{
		case SBF_OK:
			return "no error";
		case SBF_E_TRUNCATED:
			return "value is truncated";
		case SBF_E_VERSION:
			return "unsupported format version";
		case SBF_E_FLAGS:
			return "unknown flag bits or nonzero reserved field";
		case SBF_E_HASH:
			return "unsupported hash function";
		case SBF_E_PARAM:
			return "parameter out of range";
		case SBF_E_SEGMENT:
			return "invalid segment directory entry";
		case SBF_E_BITS:
			return "bits set past the end of a segment";
		case SBF_E_HLL:
			return "malformed HyperLogLog area";
		case SBF_E_LENGTH:
			return "length does not match contents";
		case SBF_E_TOO_LARGE:
			return "filter would exceed the maximum size";
		case SBF_E_TOO_MANY_SEGMENTS:
			return "filter would exceed the maximum number of segments";
		case SBF_E_INCOMPATIBLE:
			return "filters have incompatible parameters";
		case SBF_E_OVER_BUDGET:
			return "union would exceed its error budget";
		case SBF_E_WINDOW:
			return "malformed windowed filter";
		case SBF_E_EXACT:
			return "malformed exact hash list";
		case SBF_E_NOMEM:
			return "out of memory";
	}
	return "unknown error";
}

/* The interrupt check of loops without an allocator (sbf_core.h). */
void		(*sbf_interrupt_hook) (void) = NULL;
