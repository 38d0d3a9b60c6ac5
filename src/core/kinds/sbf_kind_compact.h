/*
 * sbf_kind_compact.h
 *	  The compact segment kind (sbf_kind_compact.c): a complete set stored as
 *	  its elements' sorted fingerprints in Elias-Fano form, the segment that
 *	  docs/format5-proposal.md puts first in a compact value grown past its
 *	  capacity.  Included by sbf_kind.h.
 *
 *	  In no directory yet: its row's dirs is 0, so every stored directory
 *	  (formats 1-4) refuses kind 5 as before, and no writer chooses it.  The
 *	  unit tests admit it to a plain version-4 directory (SBF_TEST_KINDS)
 *	  and run the generic suites of every kind over it.
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
