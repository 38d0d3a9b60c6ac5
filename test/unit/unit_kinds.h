/*
 * unit_kinds.h
 *	  The segment kinds as the tests list them: from the table (sbf_kind.h),
 *	  never from a list of their own, so a row added to the table (the
 *	  trivial test kind of test_kind_trivial.c) joins every loop over them.
 *	  Include after the core headers.
 */
#ifndef UNIT_KINDS_H
#define UNIT_KINDS_H

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

#endif							/* UNIT_KINDS_H */
