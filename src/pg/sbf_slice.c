/*
 * sbf_slice.c
 *	  Partial reads of a stored filter: by TOAST chunks for a single lookup
 *	  on a large value, and of header, directory and HyperLogLog only for
 *	  sbf_cardinality and sbf_info; and the views and lookup plans of stored
 *	  values (sbf_view_of, sbf_view_of_prefix, sbf_plan_of), which raise
 *	  XX001 when a value is corrupted.
 *
 * The type's STORAGE is external, so an out-of-line value is stored
 * uncompressed and detoast_attr_slice() fetches only the TOAST chunks a
 * range covers.  A sliced lookup reads the first chunk (header and segment
 * directory), then in each segment what its kind's row names: the byte
 * ranges a probe reads (probe_ranges, answered by probe_at from copies of
 * them: blocked, fused), or the probed bits of a flat bit array (the core's
 * sbf_segment_probes, stopping at the first clear bit: bloom).  A segment
 * whose row has no probe_span is never read by slices: the value is then
 * detoasted whole.  What the reads rely on is checked on every read by
 * sbf_parse_prefix: the header and directory must be in range and describe
 * exactly the value's length, so every probed byte lies inside the value.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/heaptoast.h"

#include "sbf.h"
#include "sbf_errors.h"
#include "sbf_probe.h"
#include "sbf_kind.h"

/*
 * Slice reads pay off only when they fetch far fewer chunks than the value
 * has: each detoast_attr_slice() is one TOAST index scan, which costs about
 * as much as fetching SBF_SLICE_SCAN_CHUNKS chunks in a full detoast
 * (measured with test/bench/lookup_bench.sh: about 5 us per scan, 0.5 us per
 * chunk).  A call reads by slices only when even its worst case (every
 * element present: k fetches per segment) costs at most 1/SBF_SLICE_SHARE
 * of a full detoast, so a call site that goes on to detoast the value on its
 * second call has wasted little.  Values shorter than SBF_SLICE_MIN_BYTES are
 * always detoasted whole.
 */
#define SBF_SLICE_MIN_BYTES		((Size) 64 * 1024)
#define SBF_SLICE_SCAN_CHUNKS	8
#define SBF_SLICE_SHARE			4

/* Chunks a sliced reader keeps while it probes. */
#define SBF_SLICE_KEEP			8

/* A large out-of-line value read chunk by chunk. */
struct SbfSliced
{
	struct varlena *raw;		/* the TOAST pointer */
	Size		len;			/* payload length */
	const uint8 *prefix;		/* payload bytes [0, prefix_len) */
	Size		prefix_len;
	SbfView		view;			/* header and directory (buf = prefix) */
	SbfSegmentDesc *segs;		/* each segment's entry and geometry */
	/* fetched chunks, replaced round-robin */
	int			nkept;
	int			next_slot;
	int64		chunkno[SBF_SLICE_KEEP];
	struct varlena *chunk[SBF_SLICE_KEEP];
};

/* Whether reading about nelems lookups of a len-byte value by slices may pay. */
bool
sbf_slices_may_pay(Size len, uint32 nelems)
{
	return len >= SBF_SLICE_MIN_BYTES &&
		(uint64) nelems * SBF_SLICE_SCAN_CHUNKS * SBF_SLICE_SHARE <
		len / TOAST_MAX_CHUNK_SIZE;
}

/* Fetches payload bytes [off, off + len) of an out-of-line value. */
static struct varlena *
fetch_slice(struct varlena *raw, Size off, Size len)
{
	struct varlena *s = detoast_attr_slice(raw, (int32) off, (int32) len);

	if (VARSIZE(s) - VARHDRSZ != len)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("scalablebloom value is corrupted"),
				 errdetail("A slice of %zu bytes at offset %zu of its stored form returned %zu bytes.",
						   len, off, (Size) (VARSIZE(s) - VARHDRSZ))));
	return s;
}

/*
 * Fetches the header and directory of an uncompressed out-of-line value of
 * len payload bytes (the first chunk, and the rest of the directory if it is
 * longer) and parses them into *v.
 */
static struct varlena *
fetch_prefix(struct varlena *raw, Size len, SbfView *v)
{
	Size		avail = Min(len, (Size) TOAST_MAX_CHUNK_SIZE);
	struct varlena *prefix = fetch_slice(raw, 0, avail);

	/* a windowed or compact value is read whole (sbf_view_of_prefix) */
	if ((sbf_is_window((const uint8 *) VARDATA(prefix), avail) ||
		 sbf_bytes_compact((const uint8 *) VARDATA(prefix), avail)) && avail < len)
	{
		pfree(prefix);
		avail = len;
		prefix = fetch_slice(raw, 0, avail);
	}
	while (!sbf_view_of_prefix((const uint8 *) VARDATA(prefix), avail, len, v))
	{
		/* the directory goes beyond the first chunk: read all of it */
		avail = Min(sbf_prefix_size(v->nsegments), len);
		pfree(prefix);
		prefix = fetch_slice(raw, 0, avail);
	}
	return prefix;
}

/*
 * Starts a sliced read: fetches the first chunk (and the rest of the
 * directory if it is longer) and parses header and directory.  Returns NULL
 * when probing nelems elements by slices would likely fetch more than a full
 * detoast.
 */
SbfSliced *
sbf_sliced_open(struct varlena *raw, Size len, uint32 nelems)
{
	SbfSliced  *s = palloc0(sizeof(SbfSliced));
	struct varlena *prefix;
	uint64		fetches = 0;
	uint32		i;

	prefix = fetch_prefix(raw, len, &s->view);

	/* the exact and compact forms are read whole (they are small); a
	 * windowed value is looked up by sbf_window.c from a whole copy */
	if (sbf_is_exact(&s->view) || sbf_is_compact(&s->view) ||
		sbf_view_windowed(&s->view))
	{
		pfree(prefix);
		pfree(s);
		return NULL;
	}

	/*
	 * a present element costs its kind's probe span per segment (bloom: k
	 * fetches; an absent one about 2)
	 */
	s->segs = palloc(sizeof(SbfSegmentDesc) * s->view.nsegments);
	sbf_segments_describe(&s->view, s->segs);
	for (i = 0; i < s->view.nsegments; i++)
	{
		const SbfKindOps *ops = sbf_kind_ops(s->segs[i].g.kind);

		/* the chunks a probe fetches (its kind's probe span); or read whole */
		if (ops != NULL && ops->probe_span != NULL)
			fetches += ops->probe_span(&s->segs[i].g);
		if (ops == NULL || ops->probe_span == NULL ||
			fetches * nelems * SBF_SLICE_SCAN_CHUNKS * SBF_SLICE_SHARE >
			len / TOAST_MAX_CHUNK_SIZE)
		{
			pfree(prefix);
			pfree(s->segs);
			pfree(s);
			return NULL;
		}
	}

	elog(DEBUG2, "scalablebloom: reading a %zu-byte value by slices", len);
	s->raw = raw;
	s->len = len;
	s->prefix = (const uint8 *) VARDATA(prefix);
	s->prefix_len = VARSIZE(prefix) - VARHDRSZ;
	return s;
}

/* The fetched chunk holding payload byte off, or NULL if not fetched yet. */
static inline const uint8 *
sliced_peek(const SbfSliced *s, Size off)
{
	int64		chunkno = (int64) (off / TOAST_MAX_CHUNK_SIZE);
	int			i;

	if (off < s->prefix_len)
		return s->prefix + off;
	for (i = 0; i < s->nkept; i++)
		if (s->chunkno[i] == chunkno)
			return (const uint8 *) VARDATA(s->chunk[i]) +
				(off - (Size) chunkno * TOAST_MAX_CHUNK_SIZE);
	return NULL;
}

/* Payload byte off in memory, fetching its chunk if needed. */
static const uint8 *
sliced_fetch(SbfSliced *s, Size off)
{
	const uint8 *p = sliced_peek(s, off);
	int64		chunkno;
	Size		start;
	int			slot;

	if (p != NULL)
		return p;

	/* the directory matched the length, so this cannot fail on a sane value */
	if (off >= s->len)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("scalablebloom value is corrupted"),
				 errdetail("A bit position lies outside the value.")));

	chunkno = (int64) (off / TOAST_MAX_CHUNK_SIZE);
	start = (Size) chunkno * TOAST_MAX_CHUNK_SIZE;
	slot = s->next_slot;
	s->next_slot = (s->next_slot + 1) % SBF_SLICE_KEEP;
	if (slot < s->nkept)
		pfree(s->chunk[slot]);
	else
		s->nkept++;
	s->chunk[slot] = fetch_slice(s->raw, start,
								 Min((Size) TOAST_MAX_CHUNK_SIZE, s->len - start));
	s->chunkno[slot] = chunkno;
	return (const uint8 *) VARDATA(s->chunk[slot]) + (off - start);
}

/* Payload byte off, fetching its chunk if needed. */
static inline uint8
sliced_byte(SbfSliced *s, Size off)
{
	return *sliced_fetch(s, off);
}

/*
 * Copies payload bytes [off, off + len) into out, fetching the chunks they
 * lie in: a range may straddle two chunks, or the prefix and a chunk.
 */
static void
sliced_copy(SbfSliced *s, Size off, Size len, uint8 *out)
{
	while (len > 0)
	{
		const uint8 *p = sliced_fetch(s, off);
		Size		avail;
		Size		n;

		/* the bytes of p's piece from off on: the prefix's, or its chunk's */
		if (off < s->prefix_len)
			avail = s->prefix_len - off;
		else
			avail = TOAST_MAX_CHUNK_SIZE - off % TOAST_MAX_CHUNK_SIZE;
		n = Min(len, avail);
		memcpy(out, p, n);
		out += n;
		off += n;
		len -= n;
	}
}

/*
 * Membership by hash in one segment of a kind that names its probe ranges:
 * each range copied (from the chunks at hand or fetched), then the kind's
 * probe_at answers as its contains would.
 */
static bool
sliced_segment_has(SbfSliced *s, const SbfSegmentDesc *d,
				   const SbfKindOps *ops, uint64 h)
{
	SbfProbeRange ranges[SBF_PROBE_MAX_RANGES];
	uint8		copy[SBF_PROBE_MAX_RANGES][SBF_PROBE_MAX_BYTES];
	const uint8 *bytes[SBF_PROBE_MAX_RANGES];
	int			n = ops->probe_ranges(&d->g, h, ranges);
	int			j;

	if (n < 1 || n > SBF_PROBE_MAX_RANGES)
		elog(ERROR, "scalablebloom kind %u named %d probe ranges", d->g.kind, n);
	for (j = 0; j < n; j++)
	{
		/* inside the segment's area, which the directory put inside the value */
		if (ranges[j].len < 1 || ranges[j].len > SBF_PROBE_MAX_BYTES ||
			ranges[j].len > d->bytes ||
			ranges[j].offset > d->bytes - ranges[j].len)
			elog(ERROR, "scalablebloom kind %u named a probe range outside its segment",
				 d->g.kind);
		sliced_copy(s, d->seg.words_offset + (Size) ranges[j].offset,
					ranges[j].len, copy[j]);
		bytes[j] = copy[j];
	}
	return ops->probe_at(&d->g, h, bytes);
}

/*
 * Membership by hash in a sliced value, segment by segment: by the ranges
 * its kind names (sliced_segment_has), or the bytes and masks the core names
 * for a flat bit array (sbf_segment_probes, the same bits sbf_contains_hash
 * tests).  Such bytes in chunks already at hand are tested first, so an
 * absent element often costs no fetch at all.
 */
bool
sbf_sliced_contains(SbfSliced *s, uint64 h)
{
	SbfProbeBit bits[SBF_MAX_K];
	uint32		i;

	for (i = 0; i < s->view.nsegments; i++)
	{
		const SbfSegment *seg = &s->segs[i].seg;
		const SbfKindOps *ops = sbf_kind_ops(seg->kind);
		bool		absent = false;
		uint32		j;

		if (ops->probe_ranges != NULL)
		{
			if (sliced_segment_has(s, &s->segs[i], ops, h))
				return true;
			continue;
		}
		sbf_segment_probes(seg, h, bits);
		for (j = 0; j < seg->k && !absent; j++)
		{
			const uint8 *p = sliced_peek(s, bits[j].byte);

			if (p != NULL && !(*p & bits[j].mask))
				absent = true;
		}
		for (j = 0; j < seg->k && !absent; j++)
			if (!(sliced_byte(s, bits[j].byte) & bits[j].mask))
				absent = true;
		if (!absent)
			return true;
	}
	return false;
}

/* ---- reading header and directory only ---- */

/*
 * Opens a filter for reading its header and directory: an uncompressed
 * out-of-line value by slices (the first chunk, more only for a long
 * directory), an in-line one in place, anything else by a full detoast.
 */
void
sbf_prefix_open(Datum d, SbfPrefixRead *r)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);

	memset(r, 0, sizeof(*r));
	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		struct varatt_external ext;

		VARATT_EXTERNAL_GET_POINTER(ext, raw);
		if (!VARATT_EXTERNAL_IS_COMPRESSED(ext))
		{
			r->len = (Size) VARATT_EXTERNAL_GET_EXTSIZE(ext);
			r->tofree = fetch_prefix(raw, r->len, &r->view);
			r->raw = raw;
			return;
		}
	}
	else if (!VARATT_IS_EXTENDED(raw))
	{
		r->len = VARSIZE(raw) - VARHDRSZ;
		(void) sbf_view_of_prefix((const uint8 *) VARDATA(raw), r->len, r->len, &r->view);
		return;
	}
	else if (VARATT_IS_SHORT(raw) && !VARATT_IS_EXTERNAL(raw))
	{
		r->len = VARSIZE_SHORT(raw) - VARHDRSZ_SHORT;
		(void) sbf_view_of_prefix((const uint8 *) VARDATA_SHORT(raw), r->len, r->len,
								  &r->view);
		return;
	}
	r->tofree = detoast_attr(raw);
	sbf_view_of((ScalableBloom *) r->tofree, &r->view);
	r->len = r->view.len;
}

/* The HyperLogLog area of a filter opened by sbf_prefix_open. */
const uint8 *
sbf_prefix_hll(SbfPrefixRead *r)
{
	struct varlena *area;

	if (r->raw == NULL || r->view.hll_bytes == 0)
		return r->view.buf + (r->raw == NULL ? r->view.hll_offset : 0);
	area = fetch_slice(r->raw, r->view.hll_offset, r->view.hll_bytes);
	r->hll_tofree = area;
	return (const uint8 *) VARDATA(area);
}

/*
 * The fpr_bound of the filter d opened by sbf_prefix_open as r: from the
 * prefix where the bound reads only the directory, else from the whole
 * value (a kind-1 segment's bound counts its bits: docs/format.md RATE
 * BOUND).
 */
double
sbf_prefix_fpr_bound(SbfPrefixRead *r, Datum d)
{
	ScalableBloom *whole;
	SbfView		v;
	double		bound;

	if (r->raw == NULL || !sbf_fpr_bound_reads_data(&r->view))
		return sbf_fpr_bound(&r->view);
	whole = (ScalableBloom *) detoast_attr((struct varlena *) DatumGetPointer(d));
	sbf_view_of(whole, &v);
	bound = sbf_fpr_bound(&v);
	pfree(whole);
	return bound;
}

/* Releases what sbf_prefix_open and sbf_prefix_hll fetched. */
void
sbf_prefix_close(SbfPrefixRead *r)
{
	if (r->tofree != NULL)
		pfree(r->tofree);
	if (r->hll_tofree != NULL)
		pfree(r->hll_tofree);
	r->tofree = r->hll_tofree = NULL;
}

/* Releases a sliced reader. */
void
sbf_sliced_close(SbfSliced *s)
{
	int			i;

	for (i = 0; i < s->nkept; i++)
		pfree(s->chunk[i]);
	pfree((char *) s->prefix - VARHDRSZ);
	pfree(s->segs);
	pfree(s);
}

/*
 * View of the header and directory of a stored value from its first avail of
 * len payload bytes.
 *
 * Only the header and segment directory are checked (O(segments), not
 * O(bytes)), which is enough for every later read to stay inside the value:
 * the directory must describe exactly the value's length.  The full
 * validator ran when the value entered the database.  Returns false, with
 * v->nsegments set, when avail < len is too short for the directory.
 */
bool
sbf_view_of_prefix(const uint8 *buf, size_t avail, size_t len, SbfView *v)
{
	SbfStatus	st;

	/* a windowed value (version 3) is only ever read whole: see sbf_window.c */
	if (sbf_is_window(buf, avail))
	{
		SbfWinView	wv;

		if (avail < len)
			elog(ERROR, "a windowed scalablebloom value read by its prefix");
		st = sbf_win_parse(buf, len, &wv);
		if (st == SBF_OK)
		{
			memset(v, 0, sizeof(*v));
			v->buf = buf;
			v->len = len;
			v->version = wv.version;
			v->flags = wv.flags;
			return true;
		}
	}
	else
	{
		/* a compact value too (its header's length varies) */
		if (sbf_bytes_compact(buf, avail) && avail < len)
			elog(ERROR, "a compact scalablebloom value read by its prefix");
		st = sbf_parse_prefix(buf, avail, len, v);
	}
	if (st == SBF_OK)
		return true;
	/* a short prefix of a longer value: the header says how much is needed */
	if (st == SBF_E_TRUNCATED && avail >= SBF_HEADER_BYTES && avail < len &&
		sbf_prefix_size(v->nsegments) > avail)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("scalablebloom value is corrupted"),
			 sbf_status_errdetail(st, buf, avail)));
	pg_unreachable();
}

/*
 * The lookup plan of a stored value's payload buf[0..len), allocated in
 * mcxt: raises XX001 if its header or directory is inconsistent (the full
 * validator ran when the value entered).
 */
SbfPlan *
sbf_plan_of(const uint8 *buf, size_t len, MemoryContext mcxt)
{
	SbfAllocator a = sbf_palloc_allocator;
	SbfPlan    *p;
	SbfStatus	st;

	a.ctx = mcxt;
	st = sbf_plan_build(buf, len, &a, &p);
	if (st == SBF_OK)
		return p;
	if (st == SBF_E_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed to plan lookups on a %zu-byte scalablebloom value.", len)));
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("scalablebloom value is corrupted"),
			 sbf_status_errdetail(st, buf, len)));
	pg_unreachable();
}

/* View over a detoasted value that was validated when it entered. */
void
sbf_view_of(const ScalableBloom *f, SbfView *v)
{
	size_t		len = SBF_PAYLOAD_LEN(f);

	(void) sbf_view_of_prefix(SBF_PAYLOAD_PTR(f), len, len, v);
}
