/*
 * sbf_window4.c
 *	  Segments of windowed filters with a kind (docs/format4.md, section 8):
 *	  the one decode of a directory entry of version 3 (16 bytes, kind 4
 *	  windowed bloom) or version 4 (24 bytes: age, reserved, count, kind
 *	  descriptor), version 4's segment checks for the validator, the canonical
 *	  segment order, a bucket's segment made from its hashes with the kind of
 *	  sbf_win_kind_choose (the smallest of fused, blocked and kind 4), and the
 *	  canonical encoding (always version 4: a version-3 value is relabelled
 *	  when written).
 */
#include <math.h>

#include "sbf_dir.h"
#include "sbf_window.h"

/* version-4 entry fields (the iterator decodes them; the writer writes them) */
#define W4_AGE			0
#define W4_RESERVED		2
#define W4_COUNT		4
#define W4_DESC			8

/* The entry bytes of directory entry j. */
static inline const uint8_t *
entry_at(const SbfWinView *v, uint32_t j)
{
	return v->buf + SBF_WIN_HEADER_BYTES + (size_t) j * sbf_win_entry_bytes(v);
}

/*
 * Entry j at running data offset *off (checked: see sbf_window.h), through
 * the directory iterator (sbf_dir.h): version 3's entries are kind 4,
 * version 4's name their kind (2, 3 or 4) in a descriptor and their area
 * follows its line-alignment padding.  What the iterator leaves to the
 * format is checked here: version 3's geometry and zero byte 3, version 4's
 * zero reserved field.
 */
SbfStatus
sbf_win_entry(const SbfWinView *v, uint32_t j, size_t *off, SbfWinSeg *seg)
{
	SbfDirIter	it;
	SbfDirEntry e;

	sbf_dir_start(&it, v->buf, v->nsegments, *off);
	it.i = j;
	sbf_dir_decode(&it, &e);
	if (e.st != SBF_OK)
		return e.st;
	if (v->version == SBF_WIN_VERSION)
	{
		if (e.entry[3] != 0 || e.ops->check_geom(&e.g) != SBF_OK)
			return SBF_E_SEGMENT;
	}
	else if (sbf_load16(e.entry + W4_RESERVED) != 0)
		return SBF_E_SEGMENT;
	if (e.data > v->len || e.bytes > v->len - e.data)
		return SBF_E_TRUNCATED;
	seg->age = e.age;
	seg->count = (uint32_t) e.count;
	seg->g = e.g;
	seg->ops = e.ops;
	seg->bytes = e.bytes;
	seg->bits = v->buf + e.data;
	seg->owned = false;
	seg->fpr = 0.0;
	*off = e.data + (size_t) e.bytes;
	return SBF_OK;
}

/* Entry j of a parsed view (the parse checked every entry). */
void
sbf_win_read_segment(const SbfWinView *v, uint32_t j, size_t *off, SbfWinSeg *seg)
{
	(void) sbf_win_entry(v, j, off, seg);
}

/* Membership of h in one segment (its kind's probe). */
bool
sbf_win_segment_has(const SbfWinSeg *seg, uint64_t h)
{
	return seg->ops->contains(&seg->g, seg->bits, h);
}

/* The rate of a segment's data for a hash never added. */
double
sbf_win_segment_fpr(const SbfWinSeg *seg)
{
	return seg->ops->rate_of(&seg->g, seg->bits);
}

/*
 * Order of two segments: (age, descriptor bytes, count), then the data, the
 * canonical directory order of version 4; with bits_first (age, descriptor,
 * data, count), which puts segments of equal data side by side.
 */
int
sbf_win_segment_cmp(const SbfWinSeg *a, const SbfWinSeg *b, bool bits_first)
{
	uint8_t		da[SBF_KIND_DESC_BYTES];
	uint8_t		db[SBF_KIND_DESC_BYTES];
	int			c;

	if (a->age != b->age)
		return a->age < b->age ? -1 : 1;
	sbf_kind_encode(&a->g, da);
	sbf_kind_encode(&b->g, db);
	c = memcmp(da, db, SBF_KIND_DESC_BYTES);
	if (c != 0)
		return c;
	/* same descriptor: same data bytes */
	if (bits_first)
		c = memcmp(a->bits, b->bits, (size_t) a->bytes);
	if (c == 0 && a->count != b->count)
		c = a->count < b->count ? -1 : 1;
	if (c == 0 && !bits_first)
		c = memcmp(a->bits, b->bits, (size_t) a->bytes);
	return c;
}

/* Whether the bytes buf[from..to) are all zero. */
static bool
zero_bytes(const uint8_t *buf, size_t from, size_t to)
{
	size_t		i;

	for (i = from; i < to; i++)
		if (buf[i] != 0)
			return false;
	return true;
}

/*
 * Version 4's segments, after the parse: each one's descriptor and data
 * (sbf_kind_check), zero padding before it, strictly ascending canonical
 * order, and every bucket's rates (rate_of, linear in the data bytes) within
 * its budget P = e/B.
 */
SbfStatus
sbf_win4_check_segments(const SbfWinView *v)
{
	SbfWinSpend sp = {.budget = sbf_win_budget(v) * SBF_WIN_BUDGET_SLACK};
	size_t		off = v->bits_offset;
	uint32_t	j;

	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;
		SbfKindGeom g;
		uint64_t	used;
		size_t		end = off;
		SbfStatus	st = sbf_win_entry(v, j, &off, &seg);
		size_t		start = (size_t) (seg.bits - v->buf);

		if (st != SBF_OK)
			return st;
		st = sbf_kind_check(entry_at(v, j) + W4_DESC, seg.bits, v->len - start,
							&g, &used);
		if (st != SBF_OK)
			return st;
		if (!zero_bytes(v->buf, end, start))
			return SBF_E_BITS;
		sbf_hook_interrupt();
		if (sbf_win_spend(&sp, &seg, j,
						  j == 0 || sbf_win_segment_cmp(&sp.prev, &seg, false) < 0) != SBF_OK)
			return SBF_E_WINDOW;
	}
	return SBF_OK;
}

/*
 * The windowed builder's choice (docs/format4.md, section 8): the one
 * choice of sbf_kind.c over the kinds of a windowed directory, the smallest
 * area of fused (up to SBF_FUSED_MAX_BUILD hashes), blocked and kind 4
 * (version 3's WINDOW SIZING) for n hashes at share, leaving out the kinds
 * whose bit (1 << kind) is set in avoid; ties go to the faster kind, in
 * that order.  SBF_E_PARAM or SBF_E_TOO_LARGE when no kind plans.
 */
SbfStatus
sbf_win_kind_choose(uint64_t n, double share, unsigned avoid,
					SbfKindGeom *g, uint64_t *bytes)
{
	return sbf_kind_choose_in(SBF_KIND_IN_WINDOW4, n, share, avoid, g, bytes);
}

/* Plans (the choice), allocates and builds seg's area; *data owned by a. */
static SbfStatus
plan_and_build(const uint64_t *h, uint32_t n, double share, unsigned avoid,
			   uint64_t max_bytes, const SbfAllocator *a, SbfWinSeg *seg,
			   uint8_t **data, bool *skip)
{
	SbfStatus	st;

	*data = NULL;
	*skip = false;
	st = sbf_win_kind_choose(n, share, avoid, &seg->g, &seg->bytes);
	if (st != SBF_OK)
		return st;
	if (max_bytes != 0 && seg->bytes >= max_bytes)
	{
		*skip = true;
		return SBF_OK;
	}
	if (seg->bytes > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	seg->ops = sbf_kind_ops(seg->g.kind);
	*data = a->alloc((size_t) seg->bytes, a->ctx);
	if (*data == NULL)
		return SBF_E_NOMEM;
	st = seg->ops->build(&seg->g, *data, h, n, a);
	if (st != SBF_OK)
	{
		a->free(*data, a->ctx);
		*data = NULL;
	}
	return st;
}

/*
 * A segment of the n >= 1 strictly ascending hashes h at rate share, of the
 * kind sbf_win_kind_choose gives but none in avoid (a fused build that no
 * seed peels is made again as the smaller of the others), its data allocated through a
 * (owned).  The geometry is planned first: when max_bytes is not 0 and the
 * area would take max_bytes or more, *built is false and nothing is
 * allocated (the caller keeps the pairs).  SBF_E_PARAM or SBF_E_TOO_LARGE:
 * no kind reaches share for n.
 */
SbfStatus
sbf_win_make_segment(const uint64_t *h, uint32_t n, double share,
					 unsigned avoid, uint64_t max_bytes, const SbfAllocator *a,
					 SbfWinSeg *seg, bool *built)
{
	SbfStatus	st;
	uint8_t    *data;
	bool		skip;

	*built = false;
	memset(seg, 0, sizeof(*seg));
	st = plan_and_build(h, n, share, avoid, max_bytes, a, seg, &data, &skip);
	if (st == SBF_E_SEGMENT && seg->ops != NULL && seg->ops->complete)
		st = plan_and_build(h, n, share, avoid | (1u << seg->g.kind),
							max_bytes, a, seg, &data, &skip);
	if (st != SBF_OK || skip)
		return st;
	seg->count = n;
	seg->bits = data;
	seg->owned = true;
	seg->fpr = sbf_win_segment_fpr(seg);
	*built = true;
	return SBF_OK;
}

/*
 * The payload length of w's canonical version-4 encoding, and each segment's
 * data offset into offs (nsegs entries): SBF_E_TOO_LARGE past SBF_MAX_BYTES.
 */
static SbfStatus
layout(const SbfWindow *w, size_t *offs, uint64_t *total)
{
	uint64_t	off = SBF_WIN_HEADER_BYTES + (uint64_t) w->nsegs * SBF_WIN4_SEGDIR_BYTES;
	uint32_t	j;

	for (j = 0; j < w->nsegs; j++)
	{
		uint64_t	start = sbf_kind_area_place(&w->segs[j].g, w->segs[j].bytes,
												&off, SBF_MAX_BYTES);

		if (start == UINT64_MAX)
			return SBF_E_TOO_LARGE;
		offs[j] = (size_t) start;
	}
	off += (uint64_t) w->npairs * SBF_WIN_PAIR_BYTES;
	if (off > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	*total = off;
	return SBF_OK;
}

/* Header, directory, data areas (padding zero) and pairs into buf. */
static void
write_payload(const SbfWindow *w, const size_t *offs, size_t total, uint8_t *buf)
{
	size_t		poff = total - (size_t) w->npairs * SBF_WIN_PAIR_BYTES;
	uint32_t	j;

	buf[0] = SBF_WIN4_VERSION;
	buf[1] = (uint8_t) ((w->flags & SBF_WIN_FLAG_STARTED) | SBF_WIN_FLAG_WINDOWED);
	buf[2] = SBF_HASH_XXH3;
	sbf_store16(buf + 4, (uint16_t) w->p.buckets);
	sbf_store32(buf + 8, w->nsegs);
	sbf_store32(buf + 12, w->npairs);
	sbf_store64(buf + 16, (uint64_t) w->p.width);
	sbf_store64(buf + 24, (uint64_t) ((w->flags & SBF_WIN_FLAG_STARTED) ? w->newest : 0));
	sbf_store_double(buf + 32, w->p.error_rate);
	for (j = 0; j < w->nsegs; j++)
	{
		uint8_t    *e = buf + SBF_WIN_HEADER_BYTES + (size_t) j * SBF_WIN4_SEGDIR_BYTES;

		sbf_store16(e + W4_AGE, w->segs[j].age);
		sbf_store32(e + W4_COUNT, w->segs[j].count);
		sbf_kind_encode(&w->segs[j].g, e + W4_DESC);
		memcpy(buf + offs[j], w->segs[j].bits, (size_t) w->segs[j].bytes);
	}
	for (j = 0; j < w->npairs; j++)
	{
		sbf_store64(buf + poff + (size_t) j * 8, w->hash[j]);
		sbf_store16(buf + poff + (size_t) w->npairs * 8 + (size_t) j * 2, w->age[j]);
	}
}

/* Writes the canonical payload (version 4, windowed). */
SbfStatus
sbf_win_encode(SbfWindow *w, SbfFilter *out, size_t prefix)
{
	uint64_t	total;
	size_t	   *offs;
	uint8_t    *base;
	SbfStatus	st;

	sbf_win_sort_segments(w);
	sbf_filter_start(out, prefix, w->a);
	offs = w->a->alloc(sizeof(size_t) * (w->nsegs + 1), w->a->ctx);
	if (offs == NULL)
		return SBF_E_NOMEM;
	st = layout(w, offs, &total);
	if (st == SBF_OK)
	{
		base = w->a->alloc(prefix + (size_t) total, w->a->ctx);
		if (base == NULL)
			st = SBF_E_NOMEM;
		else
		{
			memset(base, 0, prefix + (size_t) total);
			write_payload(w, offs, (size_t) total, base + prefix);
			out->base = base;
			out->len = (size_t) total;
			out->cap = (size_t) total;
		}
	}
	w->a->free(offs, w->a->ctx);
	return st;
}
