/*
 * sbf_write.c
 *	  What every writer of a plain value shares (sbf_filter.c, sbf_exact.c,
 *	  sbf_grow.c, sbf_build.c, sbf_union4.c): reserving payload room, the
 *	  1.2 switch (sbf_write_v2), relabelling to version 4, the budget a CHAIN
 *	  value spent before its first segment, and writing a directory entry.
 */
#include "sbf_dir.h"
#include "sbf_plain.h"

/*
 * Makes room for needed payload bytes.  Some slack (up to the largest
 * HyperLogLog area) is added so that a growing sparse HyperLogLog does not
 * reallocate on every add; big segments are not over-allocated.
 */
static SbfStatus
filter_reserve(SbfFilter *f, size_t needed)
{
	size_t		slack;
	size_t		newcap;
	uint8_t    *p;

	if (needed > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	if (needed <= f->cap)
		return SBF_OK;
	slack = needed / 2;
	if (slack > SBF_HLL_DENSE_BYTES(SBF_HLL_P_MAX))
		slack = SBF_HLL_DENSE_BYTES(SBF_HLL_P_MAX);
	newcap = needed + slack;
	if (newcap > SBF_MAX_BYTES)
		newcap = SBF_MAX_BYTES;
	p = f->a->realloc(f->base, f->prefix + newcap, f->a->ctx);
	if (p == NULL)
		return SBF_E_NOMEM;
	f->base = p;
	f->cap = newcap;
	return SBF_OK;
}

/* Makes room for needed payload bytes (every writer). */
SbfStatus
sbf_filter_reserve(SbfFilter *f, size_t needed)
{
	return filter_reserve(f, needed);
}

bool		sbf_write_v2 = false;

/*
 * Relabels a segmented 1.0-1.2 payload as version 4 (the exact form stays);
 * as 1.2 wrote, a version-1 payload as version 2 with OVERLAP.
 */
void
sbf_upgrade_v4(SbfFilter *f)
{
	uint8_t    *buf = SBF_PAYLOAD(f);

	if (!sbf_write_v2)
		(void) sbf_relabel4(buf, f->len);
	else if (buf[SBF_OFF_VERSION] == SBF_FORMAT_V1)
	{
		buf[SBF_OFF_VERSION] = SBF_FORMAT_VERSION;
		buf[SBF_OFF_FLAGS] |= SBF_FLAG_OVERLAP;
	}
}

/*
 * Budget spent before a CHAIN value's first segment: its first segment got
 * (1 - r) of what was left, so what was left is the largest error / (1 - r).
 */
double
sbf_chain_spent(uint8_t flags, double error_rate, double tightening,
				double largest)
{
	double		spent;

	if (!(flags & SBF_FLAG_CHAIN) || tightening >= 1.0)
		return 0.0;
	spent = error_rate - largest / (1.0 - tightening);
	return spent > 0.0 ? spent : 0.0;
}

/*
 * Writes directory entry i of payload buf: version 4's (and 5's), or
 * version 2's when the payload is version 2 (sbf_write_v2; bloom segments
 * only).
 */
void
sbf_write_entry(uint8_t *buf, uint32_t i, uint64_t capacity, uint64_t count,
				double error, const SbfKindGeom *g)
{
	uint8_t    *e = buf + SBF_SEGDIR_OFFSET(i);

	sbf_store64(e + SBF_SEG_CAPACITY, capacity);
	sbf_store64(e + SBF_SEG_COUNT, count);
	if (!sbf_version_v4_layout(buf[SBF_OFF_VERSION]))
	{
		sbf_store64(e + SBF_SEG_NBITS, g->size);
		sbf_store_double(e + SBF_SEG_ERROR, error);
		sbf_store16(e + SBF_SEG_K, g->width);
		sbf_store16(e + SBF_SEG_RESERVED16, 0);
		sbf_store32(e + SBF_SEG_RESERVED, 0);
		return;
	}
	sbf_store_double(e + SBF_SEG4_ERROR, error);
	sbf_kind_encode(g, e + SBF_SEG4_DESC);
}

/*
 * Sets the version byte of a plain payload of version 4's layout whose
 * directory is written: the least version whose directory admits every
 * segment's kind -- 4, or 5 when one is admitted only there (the compact
 * kind) -- as the validator requires.  Other versions are left.
 */
void
sbf_write_version(uint8_t *buf)
{
	uint16_t	n = sbf_load16(buf + SBF_OFF_NSEGMENTS);
	uint16_t	i;

	if (!sbf_version_v4_layout(buf[SBF_OFF_VERSION]))
		return;
	buf[SBF_OFF_VERSION] = SBF_FORMAT_V4;
	for (i = 0; i < n; i++)
	{
		const SbfKindOps *ops =
			sbf_kind_ops(buf[SBF_SEGDIR_OFFSET(i) + SBF_SEG4_DESC +
									 SBF_KIND_DESC_KIND]);

		if (ops != NULL && !(ops->dirs & SBF_KIND_IN_PLAIN4))
			buf[SBF_OFF_VERSION] = SBF_FORMAT_V5;
	}
}

/* Releases a filter's memory. */
void
sbf_filter_free(SbfFilter *f)
{
	sbf_free(f->a, f->base);
	f->base = NULL;
	f->len = 0;
	f->cap = 0;
}
