/*
 * sbf_kind_compact.h
 *	  The compact segment kind (sbf_kind_compact.c): a complete set stored as
 *	  its elements' sorted fingerprints in Elias-Fano form, the segment that
 *	  docs/format5.md puts first in a compact value grown past its
 *	  capacity.  Included by sbf_kind.h.
 *
 *	  Stored in version 5's plain directory only (docs/format5.md, section
 *	  5); formats 1-4 refuse kind 5.  No choice of the server plans it yet
 *	  (choose_max_n 0); the unit tests let a copy of its row that plans
 *	  stand in (SBF_TEST_KINDS) and run the generic suites of every kind
 *	  over version-5 values holding it.
 */
#ifndef SBF_KIND_COMPACT_H
#define SBF_KIND_COMPACT_H

#include "sbf_kind_ops.h"

#define SBF_KIND_COMPACT		5	/* sorted fingerprints of a complete set */

/* its row */
extern const SbfKindOps sbf_kind_compact_ops;

SBF_KIND_CHECKS(compactseg);
SBF_KIND_USES(compactseg);

#endif							/* SBF_KIND_COMPACT_H */
