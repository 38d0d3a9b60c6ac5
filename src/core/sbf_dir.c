/*
 * sbf_dir.c
 *	  The version table (sbf_dir.h) and what the directory walks share.
 */
#include "sbf_dir.h"
#include "sbf_window.h"

/* What each version byte allows: row i is version i + 1. */
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
};

/* Plain values unite with plain ones (1.0's with 1.1's), windows with windows. */
bool
sbf_versions_unite(uint8_t a, uint8_t b)
{
	const SbfVersion *va = sbf_version(a);
	const SbfVersion *vb = sbf_version(b);

	if (va == NULL || vb == NULL)
		return false;
	return va->windowed == vb->windowed;
}

/* Fraction of set bits of an m-bit array (popcount ignores byte order). */
double
sbf_bits_fill(const uint8_t *words, uint64_t m)
{
	uint64_t	nwords = sbf_words_bytes(m) / 8;
	uint64_t	ones = 0;
	uint64_t	w;

	for (w = 0; w < nwords; w++)
	{
		uint64_t	word;

		memcpy(&word, words + w * 8, sizeof(word));
		ones += (uint64_t) sbf_popcount64(word);
	}
	return (double) ones / (double) m;
}

/* The name sbf_info shows for a segment's kind. */
const char *
sbf_segment_kind_name(const SbfSegment *seg)
{
	const SbfKindOps *ops = sbf_kind_ops(seg->kind);

	return ops != NULL ? ops->name : "unknown";
}
