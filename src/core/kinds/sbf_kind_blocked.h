/*
 * sbf_kind_blocked.h
 *	  The blocked segment kind of format 4 (sbf_kind_blocked.c): an
 *	  element's k probes in one 512-bit line (docs/format4.md, section 4).
 *	  Included by sbf_kind.h.
 */
#ifndef SBF_KIND_BLOCKED_H
#define SBF_KIND_BLOCKED_H

#include "sbf_kind_ops.h"
#include "sbf_mulhi.h"

#define SBF_KIND_BLOCKED		2	/* an element's probes in one 512-bit line */

/* a line is one 64-byte cache line of 512 bits */
#define SBF_BLOCKED_LINE_BYTES	64
#define SBF_BLOCKED_LINE_BITS	512
#define SBF_BLOCKED_MAX_K		32
/* more lines than this would exceed SBF_MAX_STORED_BYTES */
#define SBF_BLOCKED_MAX_LINES \
	((uint64_t) SBF_MAX_STORED_BYTES / SBF_BLOCKED_LINE_BYTES)
/* an area of this many lines or more starts line-aligned (sbf_kind_area_start) */
#define SBF_BLOCKED_ALIGN_LINES	64

/* its row */
extern const SbfKindOps sbf_kind_blocked_ops;

SBF_KIND_CHECKS(blocked);
SBF_KIND_USES(blocked);
SBF_KIND_GROWS(blocked);

/* Putze et al.'s rate of a blocked filter with lambda elements a line, k probes. */
extern double sbf_blocked_fpr(double lambda, uint32_t k);

/*
 * Probes 0..k-1 of hash h in its line (0..511), the same in every blocked
 * segment (the line: sbf_blocked_line).
 */
extern void sbf_blocked_probes(uint64_t h, uint32_t k, uint16_t *bits);


/*
 * The line of hash h in a blocked segment of g->size lines at data
 * (docs/format4.md, section 4: line mulhi(h, L)); the kind and the
 * windowed lookups use it.
 */
static inline const uint8_t *
sbf_blocked_line(const SbfKindGeom *g, const uint8_t *data, uint64_t h)
{
	return data + sbf_win_mulhi(h, g->size) * SBF_BLOCKED_LINE_BYTES;
}

#endif							/* SBF_KIND_BLOCKED_H */
