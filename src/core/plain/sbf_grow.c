/*
 * sbf_grow.c
 *	  Adds to a segmented value of format 4 (docs/format4.md, section 6):
 *	  the growth rule as written (which kind an appended segment is; the
 *	  rule itself is sbf_format.c's sizing), the geometry of the next
 *	  segment (1.2's SIZING and CHAIN), appending it, and the add of one
 *	  hash.  A 1.0-1.2 value is relabelled to version 4 by the write that
 *	  changes it, only once nothing can fail any more, so a failed add
 *	  leaves it exactly as it was.
 */
#include "sbf_dir.h"
#include "sbf_plain.h"

/* The rule as written (SBF_GROW_BLOOM_BELOW, measured in test/bench/growth_bench.c). */
SbfStatus
sbf_grow_plan(uint64_t capacity, double error, SbfKindGeom *g, uint64_t *bytes)
{
	return sbf_grow_plan_rule(capacity, error,
							  sbf_write_v2 ? 1.0 : SBF_GROW_BLOOM_BELOW, g, bytes);
}

/*
 * Capacity and error of the segment to append (sbf_core.h, SIZING; CHAIN):
 * capacity min(largest * s, c * s^nsegments), error (1 - r) of the budget
 * left.  Any kind: the directory's capacities and error bounds.  Where the
 * first segment is compact and holds at least c (a compact value's
 * segmented form, version 5) the capacity continues the chain release 1.3
 * grew from sbf_agg's value of c elements (sbf_compact_chain_next: the
 * first segment counts what it holds, every other its capacity).
 */
SbfStatus
sbf_plan_next(const SbfView *v, uint64_t *capacity, double *error)
{
	uint64_t	maxcap = 0;
	uint64_t	geo = v->capacity;
	uint64_t	held = 0;
	uint64_t	first = 0;
	int			bits = 0;
	bool		compact_first = false;
	double		spent = 0.0;
	double		smallest = 0.5;
	double		largest = 0.0;
	SbfDirIter	it;
	SbfDirEntry e;

	if (v->nsegments >= SBF_MAX_SEGMENTS)
		return SBF_E_TOO_MANY_SEGMENTS;
	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
	{
		if (e.index == 0 && e.g.kind == SBF_KIND_COMPACT)
		{
			compact_first = true;
			first = e.count;
			bits = e.g.width;
		}
		held = e.capacity > UINT64_MAX - held ? UINT64_MAX : held + e.capacity;
		if (e.capacity > maxcap)
			maxcap = e.capacity;
		spent += e.error;
		if (e.error < smallest)
			smallest = e.error;
		if (e.error > largest)
			largest = e.error;
		geo = geo > UINT64_MAX / v->growth ? UINT64_MAX : geo * v->growth;
	}
	spent += sbf_chain_spent(v->flags, v->error_rate, v->tightening,
							 largest);
	*capacity = maxcap > UINT64_MAX / v->growth ? UINT64_MAX : maxcap * v->growth;
	if (geo < *capacity)
		*capacity = geo;
	*error = sbf_next_error(v->error_rate, v->tightening, spent, smallest);
	/* tightening has shrunk the rates to underflow: the chain is at its end */
	if (!(*error >= SBF_MIN_SEGMENT_ERROR))
		return SBF_E_TOO_MANY_SEGMENTS;
	/*
	 * a compact segment's capacity is its count; where 1.3's chain cannot be
	 * planned for the value's numbers, the capacity above stays
	 */
	if (compact_first && first >= v->capacity)
		(void) sbf_compact_chain_next(v->error_rate, v->tightening, v->growth,
									  v->capacity, first, bits, held, capacity);
	return SBF_OK;
}

/*
 * Payload length of v with one more segment of geometry g (bytes of data)
 * and extra bytes after its HyperLogLog: every area at its place in the
 * longer directory (the line padding moves with it).  UINT64_MAX if over
 * SBF_MAX_BYTES.
 */
static uint64_t
appended_size(const SbfView *v, const SbfKindGeom *g, uint64_t bytes,
			  size_t extra)
{
	size_t		off = sbf_prefix_size(v->nsegments + 1u);
	size_t		pad;
	uint64_t	total;
	SbfDirIter	it;
	SbfDirEntry e;

	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
		off = sbf_kind_area_start(&e.g, off, &pad) + (size_t) e.bytes;
	off = sbf_kind_area_start(g, off, &pad);
	if (bytes > SBF_MAX_BYTES - off)
		return UINT64_MAX;
	total = off + bytes + v->hll_bytes;
	if (total > SBF_MAX_BYTES || extra > SBF_MAX_BYTES - total)
		return UINT64_MAX;
	return total;
}

/*
 * Copies the view's value into buf as version 4 with the entry of a new,
 * empty segment appended: entries relabelled (a 1.0-1.2 value's bloom
 * fields become kind-1 descriptors), each area moved to its place, the new
 * area and every padding zero, the HyperLogLog last.  buf holds len zeroed
 * bytes.
 */
static void
write_appended(uint8_t *buf, const SbfView *v, uint64_t capacity, double error,
			   const SbfKindGeom *g, uint64_t bytes)
{
	uint32_t	n = v->nsegments;
	size_t		off = sbf_prefix_size(n + 1u);
	size_t		pad;
	SbfDirIter	it;
	SbfDirEntry e;

	memcpy(buf, v->buf, SBF_HEADER_BYTES);
	if (buf[SBF_OFF_VERSION] == SBF_FORMAT_V1)
		buf[SBF_OFF_FLAGS] |= SBF_FLAG_OVERLAP;
	buf[SBF_OFF_VERSION] = sbf_write_v2 ? SBF_FORMAT_VERSION : SBF_FORMAT_V4;
	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
	{
		off = sbf_kind_area_start(&e.g, off, &pad);
		sbf_write_entry(buf, e.index, e.capacity, e.count, e.error, &e.g);
		memcpy(buf + off, v->buf + e.data, (size_t) e.bytes);
		off += (size_t) e.bytes;
	}
	off = sbf_kind_area_start(g, off, &pad);
	sbf_write_entry(buf, n, capacity, 0, error, g);
	off += (size_t) bytes;
	memcpy(buf + off, v->buf + v->hll_offset, v->hll_bytes);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, (uint16_t) (n + 1u));
	sbf_write_version(buf);
}

/*
 * Appends an empty segment (capacity, error, geometry g of bytes) to the
 * segmented filter f, with extra bytes of room after it: a new buffer, so
 * that a failure leaves f as it was.
 */
SbfStatus
sbf_append4(SbfFilter *f, uint64_t capacity, double error,
			const SbfKindGeom *g, uint64_t bytes, size_t extra)
{
	const SbfAllocator *a = f->a;
	SbfView		v;
	uint64_t	len;
	uint8_t    *base;

	sbf_filter_view(f, &v);
	len = appended_size(&v, g, bytes, extra);
	if (len == UINT64_MAX || f->prefix > SIZE_MAX - len - extra)
		return SBF_E_TOO_LARGE;
	base = a->alloc(f->prefix + (size_t) len + extra, a->ctx);
	if (base == NULL)
		return SBF_E_NOMEM;
	memset(base, 0, f->prefix + (size_t) len + extra);
	memcpy(base, f->base, f->prefix);
	write_appended(base + f->prefix, &v, capacity, error, g, bytes);
	a->free(f->base, a->ctx);
	f->base = base;
	f->len = (size_t) len;
	f->cap = (size_t) len + extra;
	return SBF_OK;
}

/* The last entry of a segmented view. */
void
sbf_last_entry(const SbfView *v, SbfDirEntry *last)
{
	SbfDirEntry e;

	SBF_DIR_FOREACH(e, v)
		*last = e;
}

/*
 * Adds h (not found in any segment) to a segmented filter: into its last
 * segment while that one has room and can take inserts, else into a new
 * segment appended by the growth rule.  extra: the bytes the HyperLogLog
 * grows by, reserved here.  Every failure happens before the payload
 * changes; the value is version 4 after it.
 */
SbfStatus
sbf_grow_add(SbfFilter *f, uint64_t h, size_t extra)
{
	SbfView		v;
	SbfDirEntry last;
	uint8_t    *buf;
	SbfStatus	st;

	sbf_filter_view(f, &v);
	sbf_last_entry(&v, &last);
	if (last.ops->insert == NULL || last.count >= last.capacity)
	{
		uint64_t	capacity;
		double		error;
		SbfKindGeom g;
		uint64_t	bytes;

		st = sbf_plan_next(&v, &capacity, &error);
		if (st != SBF_OK)
			return st;
		st = sbf_grow_plan(capacity, error, &g, &bytes);
		if (st != SBF_OK)
			return st;
		st = sbf_append4(f, capacity, error, &g, bytes, extra);
	}
	else
	{
		st = sbf_filter_reserve(f, f->len + extra);
		if (st == SBF_OK)
			sbf_upgrade_v4(f);
	}
	if (st != SBF_OK)
		return st;
	/* from here on nothing can fail */
	sbf_filter_view(f, &v);
	sbf_last_entry(&v, &last);
	buf = SBF_PAYLOAD(f);
	(void) last.ops->insert(&last.g, buf + last.data, h);
	sbf_store64(buf + SBF_SEGDIR_OFFSET(last.index) + SBF_SEG_COUNT, last.count + 1);
	return SBF_OK;
}
