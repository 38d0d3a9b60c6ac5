/*
 * sbf_spill_int.h
 *	  What the spill (src/pg/sbf_spill.c) shares with the finals that read a
 *	  spilled state's runs (src/pg/sbf_spill_out.c): the runs and the merge.
 */
#ifndef SBF_SPILL_INT_H
#define SBF_SPILL_INT_H

#include "postgres.h"

#include "storage/buffile.h"

#include "sbf_hashset_glue.h"

/* A position in a BufFile, as BufFileTell gives it. */
typedef struct SpillPos
{
	int			fileno;
	off_t		offset;
} SpillPos;

/* One sorted run of distinct hashes in the file. */
typedef struct SpillRun
{
	SpillPos	start;
	uint64		count;
	uint64		last;			/* its largest hash */
} SpillRun;

/* The spilled part of a state: its file and runs (in the state's context). */
typedef struct SbfSpill
{
	BufFile    *file;			/* NULL when closed */
	SpillRun   *runs;
	int			nruns;
	int			maxruns;
	SpillPos	end;			/* where the next run starts */
	MemoryContext cxt;			/* the state's context */
} SbfSpill;

/* What a merge hands its distinct hashes to, in ascending order. */
typedef void (*SpillSink) (void *arg, const uint64 *h, size_t n);

/*
 * Merges runs [first, first + k) of sp, handing their distinct hashes in
 * ascending order to sink (or only counting them, sink NULL); returns the
 * count.  repeated: as described at the definition.
 */
extern uint64 sbf_spill_merge(SbfSpill *sp, int first, int k, SpillSink sink,
							  void *arg, bool *repeated);

/* Puts every hash of a spilled state into runs, at most the fan-in of them. */
extern void sbf_spill_prepare(SbfHsObject *o);

/* The same, and returns the number of distinct hashes (a merge counts them). */
extern uint64 sbf_spill_count(SbfHsObject *o);

/* Closes a spill's file; its runs are gone. */
extern void sbf_spill_close(SbfSpill *sp);

#endif							/* SBF_SPILL_INT_H */
