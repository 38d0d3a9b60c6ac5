/*
 * unit_kinds.h
 *	  The segment kinds as the tests list them: from the table (sbf_kind.h),
 *	  never from a list of their own, so a row added to the table (the
 *	  trivial test kind of test_kind_trivial.c) joins every loop over them.
 *	  Include after the core headers.
 */
#ifndef UNIT_KINDS_H
#define UNIT_KINDS_H

#include <stdlib.h>
#include <string.h>

#include "sbf_dir.h"

/* Whether a row is the one kind of a version 1-3 (formats 1-3's bloom rows). */
static inline bool
unit_kind_inherited(const SbfKindOps *ops)
{
	int			r;

	for (r = 0; r < SBF_VERSION_ROWS; r++)
		if (sbf_version_table[r].segment_ops == ops)
			return true;
	return false;
}

/* The rows of the table that inherited equals unit_kind_inherited of, into out; how many. */
static inline int
unit_kind_rows(const SbfKindOps **out, bool inherited)
{
	int			n = 0;
	unsigned	c;

	for (c = 1; c < SBF_KIND_CODES; c++)
	{
		const SbfKindOps *ops = sbf_kind_ops((uint8_t) c);

		if (ops != NULL && unit_kind_inherited(ops) == inherited)
			out[n++] = ops;
	}
	return n;
}

/*
 * A row's sliced probe of h in a segment of g whose data area is data
 * (bytes bytes): probe_ranges, each range checked to lie inside the area and
 * copied into a buffer of exactly its length (so the sanitizers catch a
 * probe_at that reads past a range), then probe_at.  With zero, the copies
 * are zeroed instead, which must change probe_at's answers for members (it
 * reads the bytes it is given).  *ok is cleared when a range is malformed.
 */
static inline bool
unit_probe_at(const SbfKindOps *ops, const SbfKindGeom *g, const uint8_t *data,
			  uint64_t bytes, uint64_t h, bool zero, bool *ok)
{
	SbfProbeRange r[SBF_PROBE_MAX_RANGES];
	uint8_t    *copy[SBF_PROBE_MAX_RANGES];
	const uint8_t *at[SBF_PROBE_MAX_RANGES];
	int			n = ops->probe_ranges(g, h, r);
	int			j;
	bool		found;

	if (n < 1 || n > SBF_PROBE_MAX_RANGES)
	{
		*ok = false;
		return false;
	}
	for (j = 0; j < n; j++)
	{
		if (r[j].len < 1 || r[j].len > SBF_PROBE_MAX_BYTES ||
			r[j].len > bytes || r[j].offset > bytes - r[j].len)
		{
			*ok = false;
			r[j].offset = 0;
			r[j].len = 1;
		}
		copy[j] = malloc(r[j].len);
		if (zero)
			memset(copy[j], 0, r[j].len);
		else
			memcpy(copy[j], data + r[j].offset, r[j].len);
		at[j] = copy[j];
	}
	found = ops->probe_at(g, h, at);
	for (j = 0; j < n; j++)
		free(copy[j]);
	return found;
}

#endif							/* UNIT_KINDS_H */
