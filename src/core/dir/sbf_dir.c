/*
 * sbf_dir.c
 *	  The version table (sbf_dir.h) and what the directory walks share.
 */
#include "sbf_dir.h"

/* a version-4 windowed entry: age, reserved, count, descriptor */
#define WIN4_SEGDIR_BYTES	24
#define WIN4_DESC			8

/*
 * What each version byte allows: rows 0-2 are versions 1-3; version 4 is
 * row 3 (plain) and row 4 (windowed), told apart by flag bit 7; version 5
 * (plain only) is row 5: version 4's plain layout, whose directory also
 * admits the compact kind, and holds at least one segment of a kind
 * version 4's does not (docs/format5.md).
 */
const SbfVersion sbf_version_table[SBF_VERSION_ROWS] = {
	{
		.version = SBF_FORMAT_V1,
		.flags = SBF_FLAG_HLL_DENSE,
		.windowed = false, .exact = false, .directory_counts = false,
		.written = false,
		.header_bytes = SBF_HEADER_BYTES, .entry_bytes = SBF_SEGDIR_BYTES,
		.segment_ops = &sbf_kind_bloom_ops,
	},
	{
		.version = SBF_FORMAT_VERSION,
		.flags = SBF_FLAG_HLL_DENSE | SBF_FLAG_EXACT | SBF_FLAG_OVERLAP |
		SBF_FLAG_CHAIN,
		.windowed = false, .exact = true, .directory_counts = true,
		.written = true,
		.header_bytes = SBF_HEADER_BYTES, .entry_bytes = SBF_SEGDIR_BYTES,
		.segment_ops = &sbf_kind_bloom_ops,
	},
	{
		.version = SBF_WIN_VERSION,
		.flags = SBF_WIN_FLAG_STARTED,
		.windowed = true, .exact = false, .directory_counts = true,
		.written = true,
		.header_bytes = SBF_WIN_HEADER_BYTES, .entry_bytes = SBF_WIN_SEGDIR_BYTES,
		.segment_ops = &sbf_kind_wbloom_ops,
	},
	{
		.version = SBF_FORMAT_V4,
		.flags = SBF_FLAG_HLL_DENSE | SBF_FLAG_OVERLAP | SBF_FLAG_CHAIN,
		.windowed = false, .exact = false, .directory_counts = true,
		.written = true,
		.header_bytes = SBF_HEADER_BYTES, .entry_bytes = SBF_SEGDIR_BYTES,
		.segment_ops = NULL,
		.desc_offset = SBF_SEG4_DESC, .dir = SBF_KIND_IN_PLAIN4,
	},
	{
		.version = SBF_FORMAT_V4,
		.flags = SBF_WIN_FLAG_STARTED | SBF_FLAG_WINDOWED,
		.windowed = true, .exact = false, .directory_counts = true,
		.written = true,
		.header_bytes = SBF_WIN_HEADER_BYTES, .entry_bytes = WIN4_SEGDIR_BYTES,
		.segment_ops = NULL,
		.desc_offset = WIN4_DESC, .dir = SBF_KIND_IN_WINDOW4,
	},
	{
		.version = SBF_FORMAT_V5,
		.flags = SBF_FLAG_HLL_DENSE | SBF_FLAG_OVERLAP | SBF_FLAG_CHAIN,
		.windowed = false, .exact = false, .directory_counts = true,
		.written = true,
		.header_bytes = SBF_HEADER_BYTES, .entry_bytes = SBF_SEGDIR_BYTES,
		.segment_ops = NULL,
		.desc_offset = SBF_SEG4_DESC, .dir = SBF_KIND_IN_PLAIN5,
		.dir_before = SBF_KIND_IN_PLAIN4,
	},
};

/* Plain values unite with plain ones (1.0's with 1.1's), windows with windows. */
static bool
rows_unite(const SbfVersion *va, const SbfVersion *vb)
{
	return va != NULL && vb != NULL && va->windowed == vb->windowed;
}

bool
sbf_versions_unite(uint8_t a, uint8_t b)
{
	return rows_unite(sbf_version(a), sbf_version(b));
}

/* The same for two payloads: version 4 is plain or windowed by its flag bit 7. */
bool
sbf_payloads_unite(const uint8_t *a, const uint8_t *b)
{
	return rows_unite(sbf_version_of(a), sbf_version_of(b));
}

/* The name sbf_info shows for a segment's kind. */
const char *
sbf_segment_kind_name(const SbfSegment *seg)
{
	const SbfKindOps *ops = sbf_kind_ops(seg->kind);

	return ops != NULL ? ops->name : "unknown";
}
