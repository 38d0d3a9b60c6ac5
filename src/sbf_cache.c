/*
 * sbf_cache.c
 *	  How lookups read a stored filter: a small cache of detoasted values and
 *	  their parsed views kept in the call site's fn_extra, and partial reads
 *	  of large out-of-line values.
 *
 * A ranking query passes one stored filter with each of its candidate rows
 * (a join, = ANY, a LATERAL).  The filter reaches sbf_contains or
 * sbf_matches as the same TOAST pointer every time, and detoasting it per
 * call would copy the whole value per row.  So the first sbf_probe_open() of
 * an out-of-line value detoasts it into a memory context of the call site's
 * FmgrInfo and keeps it, with its parsed view, under the pointer's identity:
 * the toast relation and the value id.  A TOAST value is never changed in
 * place; an UPDATE stores a new value with a new value id, and a value id is
 * only reused after the old value is gone and the OID counter has wrapped
 * around, which a single statement does not outlive.  A key therefore never
 * names two different contents while a cache exists, and a hit cannot be
 * stale.  The cache keeps at most SBF_CACHE_ENTRIES values and evicts the
 * least recently used one beyond SBF_CACHE_BYTES, so a query that alternates
 * between a few filters does not thrash and one that walks many does not
 * grow.
 *
 * A single lookup on a large filter needs a few 8-byte words, not the whole
 * value.  The type's STORAGE is external, so an out-of-line value is stored
 * uncompressed and detoast_attr_slice() fetches only the TOAST chunks a
 * range covers.  The first time a large value reaches a call site it is read
 * by slices: the first chunk (header and segment directory), then the chunk
 * of each probed word, stopping at the first clear bit of a segment.  If the
 * same value comes again the call site is evidently reading it row after row,
 * and it is detoasted and cached as above.
 *
 * Values stored in line are read where they are, without a copy (a short
 * 1-byte header is fine: the core reads every field with unaligned loads).
 *
 * Lookups never re-run the full validator: every value passed it when it
 * entered.  What they rely on is checked on every read by sbf_parse_prefix:
 * the header and directory must be in range and describe exactly the value's
 * length, so every bit position (< m of its segment) lies inside the value.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/heaptoast.h"
#include "utils/memutils.h"

#include "sbf.h"

/* Values kept per call site, and the bytes they may take beyond the newest. */
#define SBF_CACHE_ENTRIES		4
#define SBF_CACHE_BYTES			((Size) 64 * 1024 * 1024)

/* Recently sliced values remembered per call site (a second read caches). */
#define SBF_CACHE_SEEN			4

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

/* One cached value. */
typedef struct SbfCacheEntry
{
	Oid			toastrelid;		/* key: InvalidOid when the slot is empty */
	Oid			valueid;
	int32		extsize;
	uint64		lastuse;
	Size		bytes;
	MemoryContext mcxt;			/* holds the copy; reset on eviction */
	ScalableBloom *copy;
	SbfView		view;
} SbfCacheEntry;

/* What a call site keeps in fn_extra. */
typedef struct SbfLookupCache
{
	uint64		clock;
	SbfCacheEntry entries[SBF_CACHE_ENTRIES];
	/* values read by slices, most recent at seen_next - 1 */
	Oid			seen_toastrelid[SBF_CACHE_SEEN];
	Oid			seen_valueid[SBF_CACHE_SEEN];
	int			seen_next;
} SbfLookupCache;

/* One segment of a sliced value. */
typedef struct SbfSliceSeg
{
	uint64		nbits;
	uint32		k;
	Size		words_offset;
} SbfSliceSeg;

/* A large out-of-line value read chunk by chunk. */
struct SbfSliced
{
	struct varlena *raw;		/* the TOAST pointer */
	Size		len;			/* payload length */
	const uint8 *prefix;		/* payload bytes [0, prefix_len) */
	Size		prefix_len;
	SbfView		view;			/* header and directory (buf = prefix) */
	SbfSliceSeg *segs;
	/* fetched chunks, replaced round-robin */
	int			nkept;
	int			next_slot;
	int64		chunkno[SBF_SLICE_KEEP];
	struct varlena *chunk[SBF_SLICE_KEEP];
};

/* The call site's cache, created on first use in fn_mcxt. */
static SbfLookupCache *
sbf_lookup_cache(FunctionCallInfo fcinfo)
{
	SbfLookupCache *c = (SbfLookupCache *) fcinfo->flinfo->fn_extra;

	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(SbfLookupCache));
		fcinfo->flinfo->fn_extra = c;
	}
	return c;
}

/* The cached entry for a TOAST pointer, or NULL. */
static inline SbfCacheEntry *
sbf_cache_find(SbfLookupCache *c, const struct varatt_external *ext)
{
	int			i;

	for (i = 0; i < SBF_CACHE_ENTRIES; i++)
	{
		SbfCacheEntry *e = &c->entries[i];

		if (e->valueid == ext->va_valueid &&
			e->toastrelid == ext->va_toastrelid &&
			e->extsize == (int32) VARATT_EXTERNAL_GET_EXTSIZE(*ext) &&
			OidIsValid(e->toastrelid))
		{
			e->lastuse = ++c->clock;
			return e;
		}
	}
	return NULL;
}

/*
 * Detoasts raw into a cache slot and parses its view: the slot is an empty
 * one, else the least recently used; older entries are dropped while the
 * others would exceed SBF_CACHE_BYTES.
 */
static SbfCacheEntry *
sbf_cache_fill(FunctionCallInfo fcinfo, SbfLookupCache *c,
			   struct varlena *raw, const struct varatt_external *ext)
{
	Size		need = (Size) VARATT_EXTERNAL_GET_EXTSIZE(*ext);
	SbfCacheEntry *slot = NULL;
	MemoryContext oldcxt;
	Size		others;
	int			i;

	for (;;)
	{
		SbfCacheEntry *lru = NULL;

		others = 0;
		for (i = 0; i < SBF_CACHE_ENTRIES; i++)
		{
			SbfCacheEntry *e = &c->entries[i];

			if (!OidIsValid(e->toastrelid))
			{
				if (slot == NULL)
					slot = e;
				continue;
			}
			others += e->bytes;
			if (lru == NULL || e->lastuse < lru->lastuse)
				lru = e;
		}
		if (lru == NULL || (slot != NULL && others + need <= SBF_CACHE_BYTES))
			break;
		/* evict the least recently used entry and look again */
		lru->toastrelid = InvalidOid;
		lru->copy = NULL;
		MemoryContextReset(lru->mcxt);
		slot = NULL;
	}

	if (slot->mcxt == NULL)
		slot->mcxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt,
										   "scalablebloom lookup cache",
										   ALLOCSET_SMALL_SIZES);
	else
		MemoryContextReset(slot->mcxt); /* left over from a failed fill */

	/* whatever detoasting allocates goes away with the slot */
	oldcxt = MemoryContextSwitchTo(slot->mcxt);
	slot->copy = (ScalableBloom *) detoast_attr(raw);
	MemoryContextSwitchTo(oldcxt);

	elog(DEBUG2, "scalablebloom: caching a %zu-byte value", need);
	sbf_view_of(slot->copy, &slot->view);
	slot->toastrelid = ext->va_toastrelid;
	slot->valueid = ext->va_valueid;
	slot->extsize = (int32) VARATT_EXTERNAL_GET_EXTSIZE(*ext);
	slot->bytes = VARSIZE(slot->copy);
	slot->lastuse = ++c->clock;
	return slot;
}

/* Whether a value was read by slices at this call site recently. */
static bool
sbf_seen_recently(SbfLookupCache *c, const struct varatt_external *ext)
{
	int			i;

	for (i = 0; i < SBF_CACHE_SEEN; i++)
		if (c->seen_valueid[i] == ext->va_valueid &&
			c->seen_toastrelid[i] == ext->va_toastrelid &&
			OidIsValid(c->seen_toastrelid[i]))
			return true;
	return false;
}

/* Remembers that a value was read by slices. */
static void
sbf_remember_seen(SbfLookupCache *c, const struct varatt_external *ext)
{
	c->seen_toastrelid[c->seen_next] = ext->va_toastrelid;
	c->seen_valueid[c->seen_next] = ext->va_valueid;
	c->seen_next = (c->seen_next + 1) % SBF_CACHE_SEEN;
}

/* Fetches payload bytes [off, off + len) of an out-of-line value. */
static struct varlena *
sbf_fetch_slice(struct varlena *raw, Size off, Size len)
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
 * Starts a sliced read: fetches the first chunk (and the rest of the
 * directory if it is longer) and parses header and directory.  Returns NULL
 * when probing nelems elements by slices would likely fetch more than a full
 * detoast.
 */
static SbfSliced *
sbf_sliced_open(struct varlena *raw, Size len, uint32 nelems)
{
	SbfSliced  *s = palloc0(sizeof(SbfSliced));
	struct varlena *prefix;
	Size		avail = Min(len, (Size) TOAST_MAX_CHUNK_SIZE);
	uint64		fetches = 0;
	uint32		i;

	prefix = sbf_fetch_slice(raw, 0, avail);
	while (!sbf_view_of_prefix((const uint8 *) VARDATA(prefix), avail, len, &s->view))
	{
		/* the directory goes beyond the first chunk: read all of it */
		avail = Min(sbf_prefix_size(s->view.nsegments), len);
		pfree(prefix);
		prefix = sbf_fetch_slice(raw, 0, avail);
	}

	/* the exact form is a sorted list: read it whole (it is small) */
	if (s->view.flags & SBF_FLAG_EXACT)
	{
		pfree(prefix);
		pfree(s);
		return NULL;
	}

	/* a present element costs k fetches per segment, an absent one about 2 */
	s->segs = palloc(sizeof(SbfSliceSeg) * s->view.nsegments);
	for (i = 0; i < s->view.nsegments; i++)
	{
		SbfSegment	seg;

		/* O(i) each; only values with a few segments get far */
		sbf_get_segment(&s->view, i, &seg);
		s->segs[i].nbits = seg.nbits;
		s->segs[i].k = seg.k;
		s->segs[i].words_offset = seg.words_offset;
		fetches += seg.k;
		if (fetches * nelems * SBF_SLICE_SCAN_CHUNKS * SBF_SLICE_SHARE >
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
	s->prefix_len = avail;
	return s;
}

/* The fetched chunk holding payload byte off, or NULL if not fetched yet. */
static inline const uint8 *
sbf_sliced_peek(const SbfSliced *s, Size off)
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

/* Payload byte off, fetching its chunk if needed. */
static uint8
sbf_sliced_byte(SbfSliced *s, Size off)
{
	const uint8 *p = sbf_sliced_peek(s, off);
	int64		chunkno;
	Size		start;
	int			slot;

	if (p != NULL)
		return *p;

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
	s->chunk[slot] = sbf_fetch_slice(s->raw, start,
									 Min((Size) TOAST_MAX_CHUNK_SIZE, s->len - start));
	s->chunkno[slot] = chunkno;
	return *((const uint8 *) VARDATA(s->chunk[slot]) + (off - start));
}

/*
 * Membership by hash in a sliced value: the same positions as
 * sbf_contains_hash (sbf_positions), bit j of a segment being bit j % 8 of
 * its byte j / 8.  Positions in chunks already at hand are tested first, so
 * an absent element often costs no fetch at all.
 */
bool
sbf_sliced_contains(SbfSliced *s, uint64 h)
{
	uint64		pos[SBF_MAX_K];
	uint32		i;

	for (i = 0; i < s->view.nsegments; i++)
	{
		const SbfSliceSeg *seg = &s->segs[i];
		bool		absent = false;
		uint32		j;

		sbf_positions(h, seg->nbits, seg->k, pos);
		for (j = 0; j < seg->k && !absent; j++)
		{
			const uint8 *p = sbf_sliced_peek(s, seg->words_offset + pos[j] / 8);

			if (p != NULL && !((*p >> (pos[j] & 7)) & 1))
				absent = true;
		}
		for (j = 0; j < seg->k && !absent; j++)
		{
			uint8		b = sbf_sliced_byte(s, seg->words_offset + pos[j] / 8);

			if (!((b >> (pos[j] & 7)) & 1))
				absent = true;
		}
		if (!absent)
			return true;
	}
	return false;
}

/*
 * Opens filter argument argno of the current call for nelems lookups; see
 * the file comment for the three ways.
 */
void
sbf_probe_open(FunctionCallInfo fcinfo, int argno, uint32 nelems, SbfProbe *p)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));

	p->view = &p->local;
	p->sliced = NULL;
	p->tofree = NULL;

	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		SbfLookupCache *c = sbf_lookup_cache(fcinfo);
		struct varatt_external ext;
		SbfCacheEntry *e;
		Size		len;

		VARATT_EXTERNAL_GET_POINTER(ext, raw);
		e = sbf_cache_find(c, &ext);
		if (e != NULL)
		{
			p->view = &e->view;
			return;
		}

		len = (Size) VARATT_EXTERNAL_GET_EXTSIZE(ext);
		if (!VARATT_EXTERNAL_IS_COMPRESSED(ext) && len >= SBF_SLICE_MIN_BYTES &&
			(uint64) nelems * SBF_SLICE_SCAN_CHUNKS * SBF_SLICE_SHARE <
			len / TOAST_MAX_CHUNK_SIZE &&
			!sbf_seen_recently(c, &ext))
		{
			p->sliced = sbf_sliced_open(raw, len, nelems);
			if (p->sliced != NULL)
			{
				sbf_remember_seen(c, &ext);
				p->view = NULL;
				return;
			}
		}
		p->view = &sbf_cache_fill(fcinfo, c, raw, &ext)->view;
		return;
	}

	if (!VARATT_IS_EXTENDED(raw))
	{
		/* in line with a 4-byte header: read in place */
		(void) sbf_view_of_prefix((const uint8 *) VARDATA(raw), VARSIZE(raw) - VARHDRSZ,
								  VARSIZE(raw) - VARHDRSZ, &p->local);
		return;
	}
	if (VARATT_IS_SHORT(raw) && !VARATT_IS_EXTERNAL(raw))
	{
		/* in line with a 1-byte header: read in place, unaligned */
		(void) sbf_view_of_prefix((const uint8 *) VARDATA_SHORT(raw),
								  VARSIZE_SHORT(raw) - VARHDRSZ_SHORT,
								  VARSIZE_SHORT(raw) - VARHDRSZ_SHORT, &p->local);
		return;
	}

	/* compressed in line, or an expanded or indirect datum: a private copy */
	p->tofree = detoast_attr(raw);
	sbf_view_of((ScalableBloom *) p->tofree, &p->local);
}

/* Releases what sbf_probe_open allocated for this call. */
void
sbf_probe_close(SbfProbe *p)
{
	if (p->sliced != NULL)
	{
		SbfSliced  *s = p->sliced;
		int			i;

		for (i = 0; i < s->nkept; i++)
			pfree(s->chunk[i]);
		pfree((char *) s->prefix - VARHDRSZ);
		pfree(s->segs);
		pfree(s);
		p->sliced = NULL;
	}
	if (p->tofree != NULL)
	{
		pfree(p->tofree);
		p->tofree = NULL;
	}
}
