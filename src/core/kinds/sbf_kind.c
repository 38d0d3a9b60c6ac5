/*
 * sbf_kind.c
 *	  The table of segment kinds of format 4 and what every kind shares: the
 *	  16-byte descriptor, the one segment check, and the writer's choice of
 *	  kind for a complete set (docs/format4.md, section 6).
 */
#include "sbf_internal.h"
#include "sbf_kind.h"

/* descriptor field offsets */
#define DESC_SIZE		0
#define DESC_KIND		8
#define DESC_WIDTH		9
#define DESC_ARITY		10
#define DESC_LOG2_LEN	11
#define DESC_ATTEMPT	12
#define DESC_RESERVED	13

/* One row: the checks of kind c, the uses of kind u, insert, merge. */
#define ROW(kind, name, c, u, insert, merge) \
	{kind, name, sbf_##c##_check_geom, sbf_##c##_bytes, sbf_##c##_check_data, \
	 sbf_##c##_check_entry, sbf_##u##_plan, sbf_##u##_contains, sbf_##u##_count, \
	 insert, sbf_##u##_build, merge, sbf_##c##_rate_at, sbf_##c##_rate_of}

/*
 * The one table of segment kinds, row kind - 1: a new kind is one new file
 * and one row here.  The windowed bloom (format 3's segment) has the bits,
 * checks and rates of the bloom kind and its own positions.
 */
const SbfKindOps sbf_kind_rows[SBF_KIND_ROWS] = {
	ROW(SBF_KIND_BLOOM, "bloom", bloom, bloom, sbf_bloom_insert, sbf_bloom_merge),
	ROW(SBF_KIND_BLOCKED, "blocked", blocked, blocked, sbf_blocked_insert, sbf_blocked_merge),
	ROW(SBF_KIND_FUSED, "fused", fused, fused, NULL, NULL),
	ROW(SBF_KIND_WBLOOM, "bloom", bloom, wbloom, sbf_wbloom_insert, sbf_bloom_merge),
};

/* Decodes a descriptor and checks its geometry. */
SbfStatus
sbf_kind_decode(const uint8_t *desc, SbfKindGeom *g)
{
	const SbfKindOps *ops;

	g->size = sbf_load64(desc + DESC_SIZE);
	g->kind = desc[DESC_KIND];
	g->width = desc[DESC_WIDTH];
	g->arity = desc[DESC_ARITY];
	g->log2_len = desc[DESC_LOG2_LEN];
	g->attempt = desc[DESC_ATTEMPT];
	if (desc[DESC_RESERVED] != 0 || desc[DESC_RESERVED + 1] != 0 ||
		desc[DESC_RESERVED + 2] != 0)
		return SBF_E_SEGMENT;
	ops = sbf_kind_ops(g->kind);
	if (ops == NULL)
		return SBF_E_SEGMENT;
	return ops->check_geom(g);
}

/* Writes a descriptor (reserved bytes 0). */
void
sbf_kind_encode(const SbfKindGeom *g, uint8_t *desc)
{
	memset(desc, 0, SBF_KIND_DESC_BYTES);
	sbf_store64(desc + DESC_SIZE, g->size);
	desc[DESC_KIND] = g->kind;
	desc[DESC_WIDTH] = g->width;
	desc[DESC_ARITY] = g->arity;
	desc[DESC_LOG2_LEN] = g->log2_len;
	desc[DESC_ATTEMPT] = g->attempt;
}

/* Descriptor, data length (at most avail) and data of one incoming segment. */
SbfStatus
sbf_kind_check(const uint8_t *desc, const uint8_t *data, size_t avail,
			   SbfKindGeom *g, uint64_t *used)
{
	const SbfKindOps *ops;
	SbfStatus	st = sbf_kind_decode(desc, g);

	if (st != SBF_OK)
		return st;
	ops = sbf_kind_ops(g->kind);
	if (!ops->bytes(g, used))
		return SBF_E_SEGMENT;
	if (*used > avail)
		return SBF_E_TRUNCATED;
	return ops->check_data(g, data);
}

/* Where an area begins after end (see sbf_kind.h). */
size_t
sbf_kind_area_start(const SbfKindGeom *g, size_t end, size_t *pad)
{
	size_t		start = end;

	if (g->kind == SBF_KIND_BLOCKED && g->size >= SBF_BLOCKED_ALIGN_LINES)
		start = end + ((60 - end % 64) + 64) % 64;
	*pad = start - end;
	return start;
}

/*
 * Places an area of geometry g and bytes after *off in a layout walk: *off
 * becomes the area's end; returns its start, or UINT64_MAX when it would
 * pass max (*off unchanged).
 */
uint64_t
sbf_kind_area_place(const SbfKindGeom *g, uint64_t bytes, uint64_t *off,
					uint64_t max)
{
	size_t		pad;
	uint64_t	start;

	if (*off > max)
		return UINT64_MAX;
	start = sbf_kind_area_start(g, (size_t) *off, &pad);
	if (bytes > max || start > max - bytes)
		return UINT64_MAX;
	*off = start + bytes;
	return start;
}

/*
 * Kind of a complete set: the fewer bytes of fused and bloom at share, ties
 * to fused (docs/format4.md, section 6).  Bloom wins below about 700 hashes
 * at 1% (fused's small-set overhead), so no set is stored larger than 1.2
 * stored it.  A blocked segment never takes fewer bytes than a bloom one
 * (a line cannot spread its probes as the whole array does), so blocked is
 * planned only when neither fits: its plan searches, and a final of many
 * small groups must not pay that per group.  A bloom array of fewer than
 * SBF_CHOOSE_BLOOM_MIN_BITS bits is not chosen while fused fits: the
 * standard formula does not bound so small an array (measured: m = 101,
 * k = 10 answers 2.2 times its p; m = 10, k = 7 five times).
 */
#define SBF_CHOOSE_BLOOM_MIN_BITS	512
SbfStatus
sbf_kind_choose(uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes)
{
	const SbfKindOps *order[3] = {&sbf_kind_fused_ops, &sbf_kind_bloom_ops,
	&sbf_kind_blocked_ops};
	SbfStatus	st = SBF_E_TOO_LARGE;
	int			i;

	for (i = 0; i < 3 && !(i == 2 && st == SBF_OK); i++)
	{
		SbfKindGeom cand;
		uint64_t	cand_bytes = 0;
		SbfStatus	c = order[i]->plan(n, share, &cand, &cand_bytes);

		if (c == SBF_E_PARAM && order[i] != &sbf_kind_fused_ops)
			return c;			/* n or share out of range */
		if (c == SBF_OK && order[i] == &sbf_kind_bloom_ops &&
			cand.size < SBF_CHOOSE_BLOOM_MIN_BITS && st == SBF_OK)
			continue;			/* too small for its formula to bound it */
		if (c == SBF_OK && (st != SBF_OK || cand_bytes < *bytes))
		{
			*g = cand;
			*bytes = cand_bytes;
			st = SBF_OK;
		}
	}
	return st;
}

/*
 * The build of a kind that inserts one hash at a time: checks that h[0..n)
 * ascends strictly, zeroes the bytes of data and inserts each hash, with an
 * interrupt check every SBF_WORK_STRIDE hashes.
 */
SbfStatus
sbf_kind_build_by_insert(const SbfKindGeom *g, uint8_t *data, uint64_t bytes,
						 const uint64_t *h, size_t n, const SbfAllocator *a,
						 bool (*insert) (const SbfKindGeom *, uint8_t *, uint64_t))
{
	size_t		i;

	for (i = 1; i < n; i++)
		if (h[i - 1] >= h[i])
			return SBF_E_PARAM;
	memset(data, 0, (size_t) bytes);
	for (i = 0; i < n; i++)
	{
		if ((i & (SBF_WORK_STRIDE - 1)) == SBF_WORK_STRIDE - 1 && a != NULL)
			sbf_check_interrupt(a);
		(void) insert(g, data, h[i]);
	}
	return SBF_OK;
}

/* The batched mark of g's kind; kinds without one test hash by hash. */
void
sbf_kind_mark(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h,
			  size_t n, bool *hit)
{
	const SbfKindOps *ops;
	size_t		b;

	if (g->kind == SBF_KIND_BLOOM)
		sbf_bloom_mark(g, data, h, n, hit);
	else if (g->kind == SBF_KIND_BLOCKED)
		sbf_blocked_mark(g, data, h, n, hit);
	else if (g->kind == SBF_KIND_FUSED)
		sbf_fused_mark(g, data, h, n, hit);
	else if ((ops = sbf_kind_ops(g->kind)) != NULL)
		for (b = 0; b < n; b++)
			if (!hit[b])
				hit[b] = ops->contains(g, data, h[b]);
}
