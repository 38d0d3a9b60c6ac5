/*
 * sbf_format4.c
 *	  Format 4's plain form (docs/format4.md, section 2): relabelling a
 *	  segmented value of versions 1-2 to version 4 in place.  The directory
 *	  entry keeps its 40 bytes; its bloom fields become a kind-1 descriptor,
 *	  so no data byte moves.
 */
#include "sbf_dir.h"
#include "sbf_plain.h"

/*
 * Rewrites the payload buf (len bytes, a valid segmented value of version 1
 * or 2) as version 4: byte 0 becomes 4, a version-1 value gets OVERLAP (its
 * directory counts were never the COUNTS of version 2, as 1.1 relabelled
 * it), and each entry (capacity, count, m, p, k, reserved 0) becomes
 * (capacity, count, p, descriptor m / kind 1 / k).  A value of version 4's
 * layout (version 4 or 5) is left as it is; the exact form and the windowed
 * forms are refused with SBF_E_VERSION (they have no bloom directory to
 * relabel).
 */
SbfStatus
sbf_relabel4(uint8_t *buf, size_t len)
{
	uint16_t	nseg;
	uint16_t	i;

	if (len < SBF_HEADER_BYTES)
		return SBF_E_TRUNCATED;
	if (sbf_version_v4_layout(buf[SBF_OFF_VERSION]) &&
		(buf[SBF_OFF_FLAGS] & SBF_FLAG_WINDOWED) == 0)
		return SBF_OK;
	if ((buf[SBF_OFF_VERSION] != SBF_FORMAT_V1 &&
		 buf[SBF_OFF_VERSION] != SBF_FORMAT_VERSION) ||
		(buf[SBF_OFF_FLAGS] & SBF_FLAG_EXACT) != 0)
		return SBF_E_VERSION;
	nseg = sbf_load16(buf + SBF_OFF_NSEGMENTS);
	if (len < sbf_prefix_size(nseg))
		return SBF_E_TRUNCATED;
	for (i = 0; i < nseg; i++)
	{
		uint8_t    *e = buf + SBF_SEGDIR_OFFSET(i);
		SbfKindGeom g;
		uint64_t	m = sbf_load64(e + SBF_SEG_NBITS);
		double		p = sbf_load_double(e + SBF_SEG_ERROR);
		uint16_t	k = sbf_load16(e + SBF_SEG_K);

		memset(&g, 0, sizeof(g));
		g.kind = sbf_version(SBF_FORMAT_VERSION)->segment_ops->kind;
		g.size = m;
		g.width = (uint8_t) k;
		sbf_store_double(e + SBF_SEG4_ERROR, p);
		sbf_kind_encode(&g, e + SBF_SEG4_DESC);
	}
	if (buf[SBF_OFF_VERSION] == SBF_FORMAT_V1)
		buf[SBF_OFF_FLAGS] |= SBF_FLAG_OVERLAP;
	buf[SBF_OFF_VERSION] = SBF_FORMAT_V4;
	return SBF_OK;
}

/* sbf_relabel4 on a mutable filter's payload (see sbf_core.h). */
SbfStatus
sbf_filter_relabel4(SbfFilter *f)
{
	return sbf_relabel4(SBF_PAYLOAD(f), f->len);
}

/* Every segment's description in one walk (see sbf_kind.h). */
void
sbf_segments_describe(const SbfView *v, SbfSegmentDesc *out)
{
	SbfDirEntry e;

	SBF_DIR_FOREACH(e, v)
	{
		SbfSegmentDesc *d = &out[e.index];

		sbf_dir_segment(&e, &d->seg);
		d->g = e.g;
		d->bytes = e.bytes;
		d->expected_fill = sbf_segment_expected_fill_of(&d->seg);
		sbf_hook_interrupt();
	}
}

/* The kind geometry and data bytes of segment i (< nsegments) of a plain view. */
void
sbf_segment_geom(const SbfView *v, uint32_t i, SbfKindGeom *g, uint64_t *bytes)
{
	SbfDirIter	it;
	SbfDirEntry e;

	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e) && e.index < i)
		;
	*g = e.g;
	*bytes = e.bytes;
}
