/*
 * sbf_spill.c
 *	  Spilling of large aggregate states to temporary files: the threshold
 *	  tied to work_mem, the runs written to a BufFile, and the slice merge
 *	  of them.  What a final makes from the runs is in sbf_spill_out.c.
 *	  See sbf_spill.h.
 */
#include "postgres.h"

#include <limits.h>

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "nodes/execnodes.h"
#include "storage/buffile.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "sbf_errors.h"
#include "sbf_hash_sort.h"
#include "sbf_kind.h"
#include "sbf_spill.h"
#include "sbf_spill_int.h"

/* Hashes handed to a merge's consumer at a time (an interrupt check between). */
#define SPILL_OUT_HASHES		16384

/*
 * Hashes a slice of the merge may gather (twice that in 8-byte words, plus
 * the sort's counters: about 1.1 MB).  At least the largest fan-in, so that
 * a slice of one hash value always fits.
 */
#define SPILL_SLICE_HASHES		65536

/* Hashes written to the file at a time (an interrupt check between). */
#define SPILL_WRITE_HASHES		65536

/* sbf.spill_threshold: 0 = derived from work_mem. */
static int	sbf_spill_threshold_guc = 0;

/* A run being merged: a window of its hashes and where the rest is. */
typedef struct MergeSrc
{
	uint64	   *buf;
	uint32		pos;
	uint32		len;
	uint64		left;			/* hashes of the run not yet read */
	SpillPos	at;				/* where they start */
	SpillPos	buf_at;			/* where buf[0] was read from */
} MergeSrc;

/* Defines sbf.spill_threshold (from _PG_init). */
void
sbf_spill_define_gucs(void)
{
	DefineCustomIntVariable("sbf.spill_threshold",
							"Distinct hashes an aggregate group keeps in memory before spilling them to a temporary file.",
							"0 derives it from work_mem (work_mem / 24 bytes, 1024 to 4194304 hashes).  Meant for tests: when set, the final merge also works in slices of that many hashes and starts from the whole hash space.",
							&sbf_spill_threshold_guc,
							0, 0, INT_MAX,
							PGC_USERSET, GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
}

/* The spill threshold, in hashes, for a state made now. */
uint64
sbf_spill_threshold(void)
{
	uint64		t;

	if (sbf_spill_threshold_guc > 0)
		return (uint64) sbf_spill_threshold_guc;
	t = (uint64) work_mem * 1024 / SBF_SPILL_BYTES_PER_HASH;
	return Min(Max(t, SBF_SPILL_MIN_RUN), SBF_SPILL_MAX_RUN);
}

/* Runs a merge may read at once: one read window each within work_mem. */
static int
spill_fanin(void)
{
	uint64		f = (uint64) work_mem * 1024 / (SBF_SPILL_READ_HASHES * sizeof(uint64));

	return (int) Min(Max(f, 4), 1024);
}

/* Makes a new aggregate state spill (only in an Agg node). */
void
sbf_spill_enable(FunctionCallInfo fcinfo, SbfHsObject *o)
{
	if (fcinfo->context != NULL && IsA(fcinfo->context, AggState))
	{
		o->spill_at = sbf_spill_threshold();
		o->hs.threshold = 0;	/* never streams: it spills */
	}
}

/* True when some of o's hashes are in runs. */
bool
sbf_spilled(const SbfHsObject *o)
{
	return o->spill != NULL && o->spill->nruns > 0;
}

/* Closes a spill's file; its runs are gone. */
void
sbf_spill_close(SbfSpill *sp)
{
	if (sp->file != NULL)
		BufFileClose(sp->file);
	sp->file = NULL;
	sp->nruns = 0;
}

/*
 * The Agg node's cleanup of a spilled state, before the aggregate context
 * is reset (between groups, at a rescan, at the end).  Not called on error:
 * then the resource owner deletes the files.
 */
static void
spill_shutdown(Datum arg)
{
	sbf_spill_close((SbfSpill *) DatumGetPointer(arg));
}

/* The spill of o with an open file, made on first use. */
static SbfSpill *
spill_get(FunctionCallInfo fcinfo, SbfHsObject *o)
{
	SbfSpill   *sp = o->spill;

	if (sp == NULL)
	{
		sp = MemoryContextAllocZero(o->hdr.eoh_context, sizeof(SbfSpill));
		sp->cxt = o->hdr.eoh_context;
		sp->maxruns = 16;
		sp->runs = MemoryContextAlloc(sp->cxt, sp->maxruns * sizeof(SpillRun));
		AggRegisterCallback(fcinfo, spill_shutdown, PointerGetDatum(sp));
		o->spill = sp;
	}
	if (sp->file == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(sp->cxt);

		/* under CurrentResourceOwner: deleted on error and at transaction end */
		sp->file = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
		sp->end.fileno = 0;
		sp->end.offset = 0;
		sp->nruns = 0;
	}
	return sp;
}

/* Moves the file's position to pos. */
static void
spill_seek(SbfSpill *sp, const SpillPos *pos)
{
	if (BufFileSeek(sp->file, pos->fileno, pos->offset, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in an sbf aggregate's temporary file"),
				 errdetail("The position was segment %d, offset %lld.",
						   pos->fileno, (long long) pos->offset)));
}

/* Appends n hashes at the end of the file. */
static void
spill_write(SbfSpill *sp, const uint64 *h, uint64 n)
{
	uint64		i;

	spill_seek(sp, &sp->end);
	for (i = 0; i < n; i += SPILL_WRITE_HASHES)
	{
		uint64		k = Min(n - i, SPILL_WRITE_HASHES);

		CHECK_FOR_INTERRUPTS();
		/* temp_file_limit is enforced here (53400) */
		BufFileWrite(sp->file, (void *) (h + i), k * sizeof(uint64));
	}
	BufFileTell(sp->file, &sp->end.fileno, &sp->end.offset);
}

/* Records a run of count hashes that starts at start. */
static void
spill_record_run(SbfSpill *sp, const SpillPos *start, uint64 count, uint64 last)
{
	if (sp->nruns == sp->maxruns)
	{
		sp->maxruns *= 2;
		sp->runs = repalloc(sp->runs, sp->maxruns * sizeof(SpillRun));
	}
	sp->runs[sp->nruns].start = *start;
	sp->runs[sp->nruns].count = count;
	sp->runs[sp->nruns].last = last;
	sp->nruns++;
}

/* Writes n sorted, distinct hashes as a new run. */
static void
spill_append_run(SbfSpill *sp, const uint64 *h, uint64 n)
{
	SpillPos	start = sp->end;

	if (n == 0)
		return;
	spill_write(sp, h, n);
	spill_record_run(sp, &start, n, h[n - 1]);
}

/*
 * Moves a state's sorted array into a new run; the array is freed and the
 * state keeps its (empty or not) pending buffer.
 */
static void
spill_array(SbfSpill *sp, SbfHsObject *o)
{
	SbfHashSet *hs = &o->hs;

	if (hs->nset == 0)
		return;
	spill_append_run(sp, hs->set, hs->nset);
	hs->alloc.free(hs->set, hs->alloc.ctx);
	hs->set = NULL;
	hs->nset = 0;
	hs->setcap = 0;
}

/* Writes a sorted buffer of a spilled state as a run of its own. */
static void
spill_emit_run(void *arg, const uint64 *h, size_t n)
{
	spill_append_run((SbfSpill *) arg, h, n);
}

/*
 * Empties the full buffer of a state that has spilled: sorted once, it is
 * a run of its own when at least half of it is distinct (merging it into
 * the array first only copied it there, one and a half moves a hash for a
 * table of distinct values); else it is merged into the array, spilled
 * first if the merge could take it past spill_at.  The buffer is then the
 * largest power of two within spill_at, so runs hold at least spill_at / 4
 * hashes, and the buffer, the sort's copy and the array hold at most
 * spill_at hashes each (work_mem at 24 bytes a hash).
 */
static SbfStatus
spill_flush_spilled(FunctionCallInfo fcinfo, SbfHsObject *o)
{
	SbfHashSet *hs = &o->hs;
	uint64		cap = (uint64) 1 << pg_leftmost_one_pos64(o->spill_at);
	uint64		min_run = Max(hs->bufcap / 2, 1);
	SbfStatus	st;

	if (hs->nset + min_run > o->spill_at)
		spill_array(o->spill, o);
	st = sbf_hs_flush_runs(hs, &sbf_hs_call_cache(fcinfo)->scratch, min_run,
						   spill_emit_run, o->spill);
	if (st != SBF_OK)
		return st;
	return sbf_hs_reserve_buffer(hs, cap);
}

/*
 * Adds h to a state whose buffer is full: once it has spilled, through
 * spill_flush_spilled; before, the array is spilled first if the flush
 * would take it past spill_at.
 */
SbfStatus
sbf_spill_add_slow(FunctionCallInfo fcinfo, SbfHsObject *o, uint64 h)
{
	SbfHashSet *hs = &o->hs;

	if (o->spill != NULL && o->spill_at != 0 && !hs->streaming)
	{
		SbfStatus	st = spill_flush_spilled(fcinfo, o);

		if (st != SBF_OK)
			return st;
		hs->buf[hs->nbuf++] = h;
		return SBF_OK;
	}
	/* the flush would merge up to nbuf hashes into the array */
	if (o->spill_at != 0 && !hs->streaming && hs->nset + hs->nbuf > o->spill_at)
		spill_array(spill_get(fcinfo, o), o);
	return sbf_hs_add_slow(hs, h, &sbf_hs_call_cache(fcinfo)->scratch);
}

/* After a union into o: spills the array if it passed spill_at. */
void
sbf_spill_check(FunctionCallInfo fcinfo, SbfHsObject *o)
{
	if (o->spill_at != 0 && !o->hs.streaming && o->hs.nset > o->spill_at)
		spill_array(spill_get(fcinfo, o), o);
}

/* Where spill_chunk appends: a run being written, and its last hash. */
typedef struct RunWriter
{
	SbfSpill   *sp;
	uint64		last;
} RunWriter;

/* Appends a chunk of a decoded set to the run being written. */
static void
spill_chunk(void *arg, const uint64 *h, size_t n)
{
	RunWriter  *w = (RunWriter *) arg;

	spill_write(w->sp, h, n);
	w->last = h[n - 1];
}

/*
 * Writes the hashes of a parsed sbf_hashset as one run of o (o must spill),
 * decoded SPILL_WRITE_HASHES at a time (512 kB, not the whole set); a
 * malformed body stops it with the walk's error, and the caller raises it,
 * so the part written is never read.
 */
SbfHsError
sbf_spill_add_coded(FunctionCallInfo fcinfo, SbfHsObject *o, const SbfHsView *v)
{
	RunWriter	w;
	SpillPos	start;
	uint64	   *buf;
	SbfHsError	e;

	w.sp = spill_get(fcinfo, o);
	w.last = 0;
	start = w.sp->end;
	buf = palloc(SPILL_WRITE_HASHES * sizeof(uint64));
	e = sbf_hs_walk_chunks(v, buf, SPILL_WRITE_HASHES, spill_chunk, &w,
						   &sbf_palloc_allocator);
	pfree(buf);
	if (e == SBF_HS_OK && v->count > 0)
		spill_record_run(w.sp, &start, v->count, w.last);
	return e;
}

/* Reads n hashes at pos into buf. */
static void
spill_read(SbfSpill *sp, const SpillPos *pos, uint64 *buf, uint32 n)
{
	size_t		got;

	spill_seek(sp, pos);
	got = BufFileRead(sp->file, buf, n * sizeof(uint64));
	if (got != n * sizeof(uint64))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read an sbf aggregate's temporary file"),
				 errdetail("Read %zu of %zu bytes.", got, n * sizeof(uint64))));
}

/* Reads the next window of a run being merged. */
static void
spill_refill(SbfSpill *sp, MergeSrc *s)
{
	uint32		n = (uint32) Min(s->left, SBF_SPILL_READ_HASHES);

	s->buf_at = s->at;
	spill_read(sp, &s->at, s->buf, n);
	BufFileTell(sp->file, &s->at.fileno, &s->at.offset);
	s->pos = 0;
	s->len = n;
	s->left -= n;
}

/*
 * Puts a run back where it stood when a slice began (mark, a copy of it
 * then), reading that window again if it has been refilled since.
 */
static void
merge_rewind(SbfSpill *sp, MergeSrc *s, const MergeSrc *mark)
{
	if (s->buf_at.fileno != mark->buf_at.fileno || s->buf_at.offset != mark->buf_at.offset)
		spill_read(sp, &mark->buf_at, s->buf, mark->len);
	*s = *mark;
}

/*
 * Appends to g (which has gathered *ng hashes) the hashes of run s up to and
 * including hi; false when g would pass cap.
 */
static bool
merge_gather(SbfSpill *sp, MergeSrc *s, uint64 hi, uint64 *g, uint32 *ng, uint32 cap)
{
	for (;;)
	{
		uint32		p;

		if (s->pos == s->len)
		{
			if (s->left == 0)
				return true;
			spill_refill(sp, s);
		}
		for (p = s->pos; p < s->len && s->buf[p] <= hi; p++)
			;
		if (*ng + (p - s->pos) > cap)
			return false;
		memcpy(g + *ng, s->buf + s->pos, (p - s->pos) * sizeof(uint64));
		*ng += p - s->pos;
		s->pos = p;
		if (p < s->len)
			return true;
	}
}

/*
 * Merges runs [first, first + k) and hands their distinct hashes, in
 * ascending order, to sink (or only counts them, sink NULL); returns how
 * many there were.  With repeated non-NULL, the first hash found in two
 * runs sets *repeated and the sink gets nothing more (the merge goes on
 * counting).  Its memory (one read window per run and a slice) is freed
 * before it returns.
 *
 * The hashes are close to uniform, so instead of a heap over k runs the
 * hash space is cut into slices of about SPILL_SLICE_HASHES / 2 hashes: each
 * run's part of a slice is contiguous, so the slice is gathered from every
 * run and sorted and de-duplicated in memory by the bucket sort, whose cost
 * does not grow with k; up to SBF_HASH_MERGE_MAX_K runs (the three partial
 * states of a parallel build, a group a little over spill_at) have their
 * parts merged instead, at a third of the cost.  A slice that would gather
 * more than its buffer (hashes that crowd together, or repeats) is halved
 * and gathered again; a slice of one hash value gathers at most
 * k <= SPILL_SLICE_HASHES.  With the
 * test setting sbf.spill_threshold, a slice holds that many hashes (at least
 * k) and the first slice is the whole hash space, so that the halving, the
 * gathering again and the widening back are all exercised.
 */
uint64
sbf_spill_merge(SbfSpill *sp, int first, int k, SpillSink sink, void *arg,
			bool *repeated)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "sbf spill merge",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	MergeSrc   *src = palloc(k * sizeof(MergeSrc));
	MergeSrc   *mark = palloc(k * sizeof(MergeSrc));
	uint32		cap = sbf_spill_threshold_guc > 0 ?
		(uint32) Min(Max(sbf_spill_threshold_guc, k), SPILL_SLICE_HASHES) : SPILL_SLICE_HASHES;
	uint64	   *g = palloc(cap * sizeof(uint64));
	uint64	   *out = palloc(cap * sizeof(uint64));
	uint32	   *count = palloc(Max(sbf_hash_sort_count_size(cap), 1) * sizeof(uint32));
	/* few runs: each slice is their parts merged, not sorted */
	bool		merge = k <= SBF_HASH_MERGE_MAX_K;
	uint64	   *tmp = merge && k > 2 ? palloc(cap * sizeof(uint64)) : NULL;
	uint64		ends[SBF_HASH_MERGE_MAX_K];
	uint64		all = 0;
	uint64		total = 0;
	uint64		lo = 0;
	int			base;
	int			span;
	int			i;

	for (i = 0; i < k; i++)
	{
		src[i].buf = palloc(SBF_SPILL_READ_HASHES * sizeof(uint64));
		src[i].left = sp->runs[first + i].count;
		src[i].at = sp->runs[first + i].start;
		src[i].pos = src[i].len = 0;
		src[i].buf_at = src[i].at;
		all += src[i].left;
	}
	/* slices of 2^base hash values hold about cap / 2 */
	base = 64 - pg_leftmost_one_pos64(Max(all / (cap / 2 + 1), 1));
	if (sbf_spill_threshold_guc > 0)
		base = 64;
	span = base;
	for (;;)
	{
		uint64		hi = span == 64 ? PG_UINT64_MAX : lo + (((uint64) 1 << span) - 1);
		uint32		ng = 0;
		uint64		nu;
		uint64		j;
		bool		fits = true;

		CHECK_FOR_INTERRUPTS();
		memcpy(mark, src, k * sizeof(MergeSrc));
		for (i = 0; i < k && fits; i++)
		{
			fits = merge_gather(sp, &src[i], hi, g, &ng, cap);
			if (merge)
				ends[i] = ng;
		}
		if (!fits)
		{
			if (span == 0)
				elog(ERROR, "sbf spill merge: a slice of one hash value outgrew its buffer");
			for (i = 0; i < k; i++)
				merge_rewind(sp, &src[i], &mark[i]);
			span--;
			continue;
		}
		if (merge)
			nu = sbf_hash_merge_unique(g, ends, k, out, tmp);
		else
			nu = sbf_hash_sort_unique_span(g, ng, out, count, lo, Max(span, 1));
		total += nu;
		if (repeated != NULL && nu < ng && !*repeated)
		{
			/* runs share a hash: the sink's work is void, only count on */
			*repeated = true;
			sink = NULL;
		}
		for (j = 0; sink != NULL && j < nu; j += SPILL_OUT_HASHES)
		{
			CHECK_FOR_INTERRUPTS();
			sink(arg, out + j, Min(nu - j, SPILL_OUT_HASHES));
		}
		if (hi == PG_UINT64_MAX)
			break;
		lo = hi + 1;
		/* back to the wider slices once aligned to them */
		while (span < base && (lo & (((uint64) 1 << (span + 1)) - 1)) == 0)
			span++;
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return total;
}

/* A sink that appends to the spill file (an intermediate merge). */
static void
sink_write(void *arg, const uint64 *h, size_t n)
{
	SbfSpill   *sp = (SbfSpill *) arg;

	/* the merge's reads moved the position: back to the end */
	spill_write(sp, h, n);
}

/*
 * Merges the first runs into one until at most fanin remain, each time
 * merging just enough of them, so that the final merge reads at most fanin
 * windows (within work_mem).
 */
static void
spill_reduce(SbfSpill *sp, int fanin)
{
	while (sp->nruns > fanin)
	{
		int			k = Min(fanin, sp->nruns - fanin + 1);
		SpillPos	start = sp->end;
		uint64		count = sbf_spill_merge(sp, 0, k, sink_write, sp, NULL);
		uint64		last = 0;
		int			i;

		for (i = 0; i < k; i++)
			last = Max(last, sp->runs[i].last);
		memmove(sp->runs, sp->runs + k, (sp->nruns - k) * sizeof(SpillRun));
		sp->nruns -= k;
		spill_record_run(sp, &start, count, last);
	}
}

/*
 * Puts every hash of a spilled state into runs: the buffer is flushed into
 * the array, the array spilled, the runs reduced to the fan-in.
 */
void
sbf_spill_prepare(SbfHsObject *o)
{
	SbfStatus	st = sbf_hs_flush(&o->hs, NULL);

	if (st != SBF_OK)
		sbf_hs_report_status(st);
	spill_array(o->spill, o);
	spill_reduce(o->spill, spill_fanin());
}

/*
 * Puts every hash of a spilled state into runs and returns the number of
 * distinct hashes, which a merge that only counts finds.  The caller's
 * second merge hands them over in order.  Merging twice sorts each slice
 * again instead of writing the merged run and reading it back, and so
 * leaves half the temporary bytes (which a cancellation deletes before the
 * client has its answer).
 */
uint64
sbf_spill_count(SbfHsObject *o)
{
	SbfSpill   *sp = o->spill;

	sbf_spill_prepare(o);
	if (sp->nruns == 1)
		return sp->runs[0].count;
	return sbf_spill_merge(sp, 0, sp->nruns, NULL, NULL, NULL);
}

/* The call site's cache, made on first use. */
SbfHsCallCache *
sbf_hs_call_cache(FunctionCallInfo fcinfo)
{
	SbfHsCallCache *c = (SbfHsCallCache *) fcinfo->flinfo->fn_extra;

	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(SbfHsCallCache));
		c->alloc = sbf_palloc_allocator;
		c->alloc.ctx = fcinfo->flinfo->fn_mcxt;
		c->scratch.a = &c->alloc;
		fcinfo->flinfo->fn_extra = c;
	}
	return c;
}
