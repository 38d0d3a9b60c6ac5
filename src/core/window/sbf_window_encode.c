/*
 * sbf_window_encode.c
 *	  The canonical payload of a windowed filter (docs/format4.md, section 8):
 *	  always version 4 (a version-3 value is relabelled when written).  The
 *	  layer "writing a value" of the window subsystem (sbf_window_int.h).
 */
#include "sbf_window_int.h"

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
	if ((st = sbf_win_settle(w)) != SBF_OK)
		return st;
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
