/*
 * sbf_spill_out.c
 *	  What the finals make from a spilled aggregate state's runs (see
 *	  sbf_spill.h): the sbf_hashset encoding, the right-sized filter, the set
 *	  brought back into memory.  Each is one or two merges of the runs
 *	  (sbf_spill_merge) into a sink.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "sbf_errors.h"
#include "sbf_kind.h"
#include "sbf_spill.h"
#include "sbf_spill_int.h"

/* A sink that adds to a filter. */
static void
sink_filter(void *arg, const uint64 *h, size_t n)
{
	SbfStatus	st = sbf_add_hashes((SbfFilter *) arg, h, n);

	if (st != SBF_OK)
		sbf_report_status(st);
}

/* Where sink_fill writes: an array of cap hashes, n filled. */
typedef struct FillTarget
{
	uint64	   *a;
	uint64		n;
	uint64		cap;
} FillTarget;

/* A sink that fills an array sized by the merge's count. */
static void
sink_fill(void *arg, const uint64 *h, size_t n)
{
	FillTarget *t = (FillTarget *) arg;

	if (t->n + n > t->cap)
		elog(ERROR, "sbf spill run has more hashes than it recorded");
	memcpy(t->a + t->n, h, n * sizeof(uint64));
	t->n += n;
}

/* A sink that gathers the statistics of the sbf_hashset encoding. */
static void
sink_stats(void *arg, const uint64 *h, size_t n)
{
	sbf_hs_stats_add((SbfHsRiceStats *) arg, h, n);
}

/* A sink that writes the sbf_hashset encoding. */
static void
sink_encode(void *arg, const uint64 *h, size_t n)
{
	sbf_hs_encoder_add((SbfHsEncoder *) arg, h, n);
}

/* What sink_stats_encode feeds: the statistics and the encoder beside them. */
typedef struct StatsEncode
{
	SbfHsRiceStats st;
	SbfHsEncoder e;
} StatsEncode;

/* A sink that gathers the statistics and writes the encoding in one go. */
static void
sink_stats_encode(void *arg, const uint64 *h, size_t n)
{
	StatsEncode *t = (StatsEncode *) arg;

	sbf_hs_stats_add(&t->st, h, n);
	sbf_hs_encoder_add(&t->e, h, n);
}

/* A new chunk of prefix + size bytes (beyond 1 GB allowed: checked by callers). */
static uint8 *
spill_out_chunk(size_t prefix, uint64 size)
{
	uint8	   *p = palloc_extended(prefix + size, MCXT_ALLOC_HUGE);

	sbf_mem_hint_huge(p, prefix + size);
	return p;
}

/*
 * The sbf_hashset encoding of a spilled state, after prefix bytes of a new
 * chunk of CurrentMemoryContext (which may be larger): *size bytes of *n
 * hashes with Rice parameter *k; NULL, with *size and *n, when it would take
 * more than max_bytes.  The set never comes into memory.
 *
 * One merge when the guess holds: the runs' largest hash and the sum of
 * their counts (the count when no run shares a hash) predict the parameter
 * (sbf_hs_rice_guess), and the merge writes the code with it into a chunk of
 * its bound while gathering the statistics, which are exact whatever the
 * repeats (the merge hands over distinct hashes).  When they choose the
 * guessed parameter, the code is the encoding (its count set afterwards);
 * otherwise, or when the bound passes max_bytes, a second merge writes it
 * (sbf_spill_encode).  The statistics keep only the sums the choice can
 * read: the count lies between the largest run's and the sum.
 */
uint8 *
sbf_spill_encode_all(SbfHsObject *o, bool with_rate, size_t prefix, uint64 max_bytes,
					 uint64 *size, uint64 *n, int *k)
{
	SbfSpill   *sp;
	StatsEncode t;
	uint64		total = 0;
	uint64		largest = 0;
	uint64		max = 0;
	uint64		cap;
	uint8	   *out = NULL;
	int			guess;
	int			i;

	sbf_spill_prepare(o);
	sp = o->spill;
	for (i = 0; i < sp->nruns; i++)
	{
		total += sp->runs[i].count;
		largest = Max(largest, sp->runs[i].count);
		max = Max(max, sp->runs[i].last);
	}
	guess = sbf_hs_rice_guess(max, total);
	cap = sbf_hs_encoded_bound(total, max, guess, with_rate);
	sbf_hs_stats_start(&t.st, max, largest, total);
	if (cap <= max_bytes)
	{
		out = spill_out_chunk(prefix, cap);
		sbf_hs_encoder_start(&t.e, out + prefix, cap, total, guess, with_rate,
							 o->hs.params.error_rate);
		(void) sbf_spill_merge(sp, 0, sp->nruns, sink_stats_encode, &t, NULL);
		sbf_hs_encoder_finish(&t.e);
	}
	else
		(void) sbf_spill_merge(sp, 0, sp->nruns, sink_stats, &t.st, NULL);
	*n = t.st.n;
	*size = sbf_hs_stats_size(&t.st, with_rate, k);
	if (*size == PG_UINT64_MAX)
		elog(ERROR, "sbf spill runs hold more hashes than their counts say");
	elog(DEBUG1, "sbf spill: encoding %llu hashes with Rice parameter %d (guessed %d%s)",
		 (unsigned long long) *n, *k, guess, out == NULL ? ", past the bound" : "");
	if (out != NULL && *k == guess)
	{
		if (t.e.p != out + prefix + *size)
			elog(ERROR, "sbf spill encoding is not the size its statistics give");
		sbf_hs_encoder_set_count(out + prefix, *n);
		return out;
	}
	if (out != NULL)
		pfree(out);
	if (*size > max_bytes)
		return NULL;
	out = spill_out_chunk(prefix, *size);
	sbf_spill_encode(o, with_rate, *n, *k, out + prefix, *size);
	return out;
}

/*
 * Writes the sbf_hashset encoding of a spilled state, sized by
 * sbf_spill_encode_all's first merge, from a second merge: the same bytes
 * as encoding the set from memory.
 */
void
sbf_spill_encode(SbfHsObject *o, bool with_rate, uint64 n, int k, uint8 *out,
				 size_t size)
{
	SbfHsEncoder e;
	uint64		got;

	sbf_hs_encoder_start(&e, out, size, n, k, with_rate, o->hs.params.error_rate);
	got = sbf_spill_merge(o->spill, 0, o->spill->nruns, sink_encode, &e, NULL);
	sbf_hs_encoder_finish(&e);
	if (got != n || e.p != out + size)
		elog(ERROR, "sbf spill encoding changed between sizing and writing");
}

/* Brings every hash of a spilled state back into its array. */
void
sbf_spill_unspill(SbfHsObject *o)
{
	SbfSpill   *sp;
	FillTarget	t;
	SbfStatus	st;

	if (!sbf_spilled(o))
		return;
	t.cap = sbf_spill_count(o);
	sp = o->spill;
	if (t.cap > SBF_HS_MAX_COUNT)
		sbf_hs_report_status(SBF_E_TOO_LARGE);
	t.a = o->hs.alloc.alloc(t.cap * sizeof(uint64), o->hs.alloc.ctx);
	if (t.a == NULL)
		sbf_hs_report_status(SBF_E_NOMEM);
	t.n = 0;
	(void) sbf_spill_merge(sp, 0, sp->nruns, sink_fill, &t, NULL);
	sbf_spill_close(sp);
	st = sbf_hs_adopt(&o->hs, t.a, t.n);
	if (st != SBF_OK)
		sbf_hs_report_status(st);
	o->flat_size = 0;
}

/* Builds through the one builder from the merged runs in one array of cap. */
static ScalableBloom *
spill_build_array(SbfSpill *sp, const SbfParams *params, uint64 cap)
{
	FillTarget	t;
	SbfFilter	f;
	SbfStatus	st;

	t.cap = cap;
	t.n = 0;
	t.a = palloc_extended(Max(cap, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	sbf_mem_hint_huge(t.a, Max(cap, 1) * sizeof(uint64));
	(void) sbf_spill_merge(sp, 0, sp->nruns, sink_fill, &t, NULL);
	st = sbf_build_final(&f, params, t.a, t.n, VARHDRSZ, &sbf_palloc_allocator);
	pfree(t.a);
	if (st != SBF_OK)
		sbf_report_status(st);
	return sbf_filter_finish(&f);
}

/* A blocked filter sized for a count of hashes, made by the first add. */
typedef struct SizedTarget
{
	const SbfParams *params;
	uint64		n;
	MemoryContext cxt;			/* the filter's (not the merge's) */
	bool		made;
	SbfFilter	f;
} SizedTarget;

/* A sink that adds to a SizedTarget's filter, making it first. */
static void
sink_sized(void *arg, const uint64 *h, size_t n)
{
	SizedTarget *t = (SizedTarget *) arg;

	if (!t->made)
	{
		MemoryContext old = MemoryContextSwitchTo(t->cxt);
		SbfStatus	st = sbf_create_sized(&t->f, t->params, t->n, VARHDRSZ,
										  &sbf_palloc_allocator);

		MemoryContextSwitchTo(old);
		if (st != SBF_OK)
			sbf_report_status(st);
		t->made = true;
	}
	sink_filter(&t->f, h, n);
}

/*
 * The distinct hashes of a spilled state's runs, and the filter sized for
 * all of them (total, the sum of the runs' counts) when that is their count:
 * no run shares a hash with another, as in a table of distinct values, and
 * one merge both counts and builds.  The filter is made after the first
 * slice (SPILL_SLICE_HASHES / 2 hashes) has shown no repeat, so a set of
 * many repeats never allocates one sized for their sum; a repeat found
 * later frees it.  Otherwise *built is false and the result is the count.
 */
static uint64
spill_count_or_build(SbfSpill *sp, const SbfParams *params, uint64 total,
					 SbfFilter *built, bool *ok)
{
	SizedTarget t;
	bool		repeated = false;
	uint64		n;

	t.params = params;
	t.n = total;
	t.cxt = CurrentMemoryContext;
	t.made = false;
	n = sbf_spill_merge(sp, 0, sp->nruns, sink_sized, &t, &repeated);
	*ok = !repeated && t.made && n == total;
	if (*ok)
		*built = t.f;
	else if (t.made)
	{
		elog(DEBUG1, "sbf spill: runs share hashes; the filter sized for %llu is dropped",
			 (unsigned long long) total);
		sbf_filter_free(&t.f);
	}
	return n;
}

/*
 * The right-sized filter of a spilled state, as sbf_hs_build does for a set
 * in memory.  When the runs hold at most SBF_FUSED_MAX_BUILD hashes in all
 * (repeats across runs included), one merge fills an array of that size and
 * the one builder (exact, fused or blocked) takes the distinct ones.
 * Otherwise one merge counts them and, when no run shares a hash with
 * another, builds the blocked filter for that count on the way
 * (spill_count_or_build); after repeats, a set the builder takes whole is
 * filled by a second merge, a larger one (blocked) is built by streaming
 * adds into a segment sized by the count.  The state keeps its hashes (all
 * in runs now), so a second final call gives the same bytes.
 */
ScalableBloom *
sbf_spill_build(SbfHsObject *o, const SbfParams *params)
{
	uint64		n;
	uint64		total = 0;
	SbfSpill   *sp = o->spill;
	SbfFilter	f;
	SbfStatus	st;
	int			i;
	bool		built = false;

	elog(DEBUG1, "sbf spill: merging %d runs", sp->nruns + (o->hs.nset + o->hs.nbuf > 0));
	sbf_spill_prepare(o);
	for (i = 0; i < sp->nruns; i++)
		total += sp->runs[i].count;
	if (total <= SBF_FUSED_MAX_BUILD)
		return spill_build_array(sp, params, total);
	n = sp->nruns == 1 ? sp->runs[0].count : spill_count_or_build(sp, params, total, &f, &built);
	elog(DEBUG1, "sbf spill: %s a filter of %llu distinct hashes",
		 built ? "built" : "building", (unsigned long long) n);
	if (built)
		return sbf_filter_finish(&f);
	if (n <= SBF_FUSED_MAX_BUILD)
		return spill_build_array(sp, params, n);
	/* larger: blocked, built by streaming adds into a right-sized segment */
	st = sbf_create_sized(&f, params, Max(n, 1), VARHDRSZ, &sbf_palloc_allocator);
	if (st != SBF_OK)
		sbf_report_status(st);
	(void) sbf_spill_merge(sp, 0, sp->nruns, sink_filter, &f, NULL);
	return sbf_filter_finish(&f);
}

