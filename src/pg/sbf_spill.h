/*
 * sbf_spill.h
 *	  Spilling of large aggregate states to temporary files (src/pg/sbf_spill.c):
 *	  how sbf_agg, sbf_hashset_agg and sbf_hashset_union_agg keep a group's
 *	  private memory bounded by work_mem at any group size.
 *
 * A state (SbfHsObject, sbf_hashset_glue.h) made by an Agg node gets a spill
 * threshold, spill_at, in hashes: work_mem / SBF_SPILL_BYTES_PER_HASH, at
 * least SBF_SPILL_MIN_RUN and at most SBF_SPILL_MAX_RUN, or the test GUC
 * sbf.spill_threshold when it is set.  When the next flush of the pending
 * buffer would take the group's sorted array past spill_at, the array is
 * written as one sorted run of distinct hashes to the group's BufFile and
 * the array starts empty again.  From then on the buffer holds up to
 * spill_at hashes (the largest power of two within it), and a full buffer
 * that is at least half distinct is sorted and written as a run of its own,
 * without passing through the array.  Runs may share hashes with each other.
 *
 * What PostgreSQL provides does the file handling: BufFileCreateTemp under
 * the current resource owner, so the files go away on error, cancellation
 * and at transaction end, and temp_file_limit applies (53400).  On the
 * normal path the file is closed when the aggregate context is reset
 * (AggRegisterCallback).  A run is the hashes as native uint64 words, never
 * stored beyond the query.
 *
 * The final merges the runs twice: once to count the distinct hashes, once
 * to hand them in ascending order to a filter sized for that count (or to an
 * array of that size).  That is what the in-memory build does (sbf_hs_build:
 * a filter sized for n, the hashes added in ascending order), so the bytes
 * are the same.  A blocked build (more hashes than the fused kind takes)
 * merges once when no run shares a hash with another: the count is then
 * the sum of the runs' counts, known before the merge, and the filter sized
 * for it is built as the merge goes (sbf_spill_build).  The merge cuts the hash space into slices, gathers each
 * slice from every run and sorts it in memory (the hashes are close to
 * uniform, so a slice is a small, contiguous part of each run); runs past
 * the fan-in that work_mem allows are first merged into longer runs.
 */
#ifndef SBF_SPILL_H
#define SBF_SPILL_H

#include "postgres.h"
#include "fmgr.h"

#include "sbf.h"
#include "sbf_hashset_glue.h"

/*
 * Private bytes a state may take per hash of its array: the array (8), a
 * new array during a forward merge (8), the pending buffer and its sort
 * scratch (up to half the array each, 4 + 4).
 */
#define SBF_SPILL_BYTES_PER_HASH	24

/* Bounds of the work_mem-derived threshold, in hashes. */
#define SBF_SPILL_MIN_RUN			1024
#define SBF_SPILL_MAX_RUN			((uint64) 4 * 1024 * 1024)

/* Hashes read from a run at a time during a merge (8 kB). */
#define SBF_SPILL_READ_HASHES		1024

/* Defines sbf.spill_threshold (from _PG_init). */
extern void sbf_spill_define_gucs(void);

/* The spill threshold, in hashes, for a state made now. */
extern uint64 sbf_spill_threshold(void);

/*
 * Makes a new aggregate state spill: in an Agg node (not a window
 * aggregate, which cannot register a cleanup callback) it gets spill_at and
 * never streams.
 */
extern void sbf_spill_enable(FunctionCallInfo fcinfo, SbfHsObject *o);

/* Adds h to a state whose buffer is full: spills the array first if due. */
extern SbfStatus sbf_spill_add_slow(FunctionCallInfo fcinfo, SbfHsObject *o,
									uint64 h);

/* After a union into o: spills the array if it passed spill_at. */
extern void sbf_spill_check(FunctionCallInfo fcinfo, SbfHsObject *o);

/*
 * Writes the hashes of a parsed sbf_hashset (sbf_hs_parse; not a filter) as
 * one run of o (o must spill), decoding and checking them in chunks; the
 * walk's error, which the caller raises, if the body is malformed.
 */
extern SbfHsError sbf_spill_add_coded(FunctionCallInfo fcinfo, SbfHsObject *o,
									  const SbfHsView *v);

/*
 * The sbf_hashset encoding of a spilled state without bringing it into
 * memory, after prefix bytes of a new chunk of CurrentMemoryContext: *size
 * bytes (header included) of *n hashes with Rice parameter *k, from one
 * merge when the parameter guessed from the runs is the one, else two;
 * NULL when it would take more than max_bytes.  sbf_spill_encode writes the
 * same bytes again (size, n and k from the first) into out.
 */
extern uint8 *sbf_spill_encode_all(SbfHsObject *o, bool with_rate, size_t prefix,
								   uint64 max_bytes, uint64 *size, uint64 *n, int *k);
extern void sbf_spill_encode(SbfHsObject *o, bool with_rate, uint64 n, int k,
							 uint8 *out, size_t size);

/* True when some of o's hashes are in runs. */
extern bool sbf_spilled(const SbfHsObject *o);

/*
 * Brings every hash of a spilled state back into its array (8 bytes a
 * hash; 54000 past SBF_HS_MAX_COUNT) and closes its file: for readers that
 * need the whole set in memory (a union with a streamed state, #, and other
 * readers of a state; flattening and sbf_hashset_agg's result encode from
 * the runs instead, sbf_spill_encode).
 */
extern void sbf_spill_unspill(SbfHsObject *o);

/* The right-sized filter of a spilled state (sbf_agg's final). */
extern ScalableBloom *sbf_spill_build(SbfHsObject *o, const SbfParams *params);

#endif							/* SBF_SPILL_H */
