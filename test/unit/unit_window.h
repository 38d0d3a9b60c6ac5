/*
 * unit_window.h
 *	  Helpers shared by the windowed filters' unit tests (test_window.c,
 *	  test_window_limits.c).  Included after unit_check.h.
 */
#ifndef UNIT_WINDOW_H
#define UNIT_WINDOW_H

#include <stdio.h>

#include "sbf_core.h"
#include "sbf_internal.h"
#include "sbf_window.h"

/* The element hash of id (as the glue hashes a bigint). */
static uint64_t
elem(uint64_t id)
{
	return sbf_hash_int64((int64_t) id);
}

/*
 * Encodes w into *f with prefix bytes before the payload, and validates the
 * result into *v (f keeps the bytes).
 */
static bool
win_encode_valid(size_t prefix, SbfWindow *w, SbfFilter *f, SbfWinView *v)
{
	SbfStatus	st = sbf_win_encode(w, f, prefix);

	if (st != SBF_OK)
		return false;
	st = sbf_win_validate(SBF_PAYLOAD(f), f->len, v);
	if (st != SBF_OK)
		fprintf(stderr, "  does not validate: %s\n", sbf_status_message(st));
	return st == SBF_OK;
}

#endif							/* UNIT_WINDOW_H */
