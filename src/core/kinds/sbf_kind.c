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
#define DESC_KIND		SBF_KIND_DESC_KIND
#define DESC_WIDTH		9
#define DESC_ARITY		10
#define DESC_LOG2_LEN	11
#define DESC_ATTEMPT	12
#define DESC_RESERVED	13

/*
 * The map from a stored kind code to its row, code - 1: each row is defined
 * in its kind's own file; a new kind is that file and one entry here.
 */
const SbfKindOps *const sbf_kind_rows[SBF_KIND_ROWS] = {
	&sbf_kind_bloom_ops,
	&sbf_kind_blocked_ops,
	&sbf_kind_fused_ops,
	&sbf_kind_wbloom_ops,
	&sbf_kind_compact_ops,
};

#ifdef SBF_TEST_KINDS
const SbfKindOps *sbf_kind_test_row = NULL;
unsigned	sbf_kind_test_avoid = 0;
#endif

/* The complete kinds as an avoid mask. */
unsigned
sbf_kind_complete_mask(void)
{
	unsigned	mask = 0;
	unsigned	c;

	for (c = 1; c < SBF_KIND_CODES; c++)
	{
		const SbfKindOps *ops = sbf_kind_ops((uint8_t) c);

		if (ops != NULL && ops->complete)
			mask |= 1u << c;
	}
	return mask;
}

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
 * The rows of directory dir in their choose order (rank, then code) into
 * order; returns how many.
 */
static int
choose_order(uint8_t dir, const SbfKindOps **order)
{
	int			n = 0;
	unsigned	c;

	for (c = 1; c < SBF_KIND_CODES; c++)
	{
		const SbfKindOps *ops = sbf_kind_ops((uint8_t) c);
		int			j;

		if (ops == NULL || !(ops->dirs & dir))
			continue;
		for (j = n; j > 0 && order[j - 1]->choose_rank > ops->choose_rank; j--)
			order[j] = order[j - 1];
		order[j] = ops;
		n++;
	}
	return n;
}

/*
 * The one choice of a kind (docs/format4.md, sections 6 and 8): the rows
 * of dir in their order, each planned unless avoided, over its choose_max_n,
 * a fallback after a plan, or beside no complete kind; the smallest area
 * wins, ties to the earlier, faster kind.  Plain: fused, else bloom when
 * smaller (no set is stored larger than 1.2 stored it: bloom wins below
 * about 700 hashes at 1%), blocked only when neither plans; windowed: the
 * smallest of fused, blocked and kind 4.  The status of the last kind that
 * did not plan when none did.
 */
SbfStatus
sbf_kind_choose_in(uint8_t dir, uint64_t n, double share, unsigned avoid,
				   SbfKindGeom *g, uint64_t *bytes)
{
	const SbfKindOps *order[SBF_KIND_CODES];
	int			nrows = choose_order(dir, order);
	SbfStatus	last = SBF_E_PARAM;
	bool		have = false;
	bool		complete = false;
	int			i;

#ifdef SBF_TEST_KINDS
	avoid |= sbf_kind_test_avoid;
#endif
	for (i = 0; i < nrows; i++)
	{
		const SbfKindOps *ops = order[i];
		SbfKindGeom cand;
		uint64_t	cand_bytes = 0;
		SbfStatus	st;

		if ((avoid & (1u << ops->kind)) || n > ops->choose_max_n ||
			((ops->choose_fallback & dir) && have) ||
			(ops->choose_beside_complete && !complete))
			continue;
		complete |= ops->complete;
		st = ops->plan(n, share, &cand, &cand_bytes);
		if (st != SBF_OK)
		{
			last = st;
			continue;
		}
		if (have && (cand.size < ops->choose_min_size || cand_bytes >= *bytes))
			continue;
		*g = cand;
		*bytes = cand_bytes;
		have = true;
	}
	return have ? SBF_OK : last;
}

/* The plain builder's choice for a complete set. */
SbfStatus
sbf_kind_choose(uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes)
{
	return sbf_kind_choose_in(SBF_KIND_IN_PLAIN5, n, share, 0, g, bytes);
}

/* The batched mark of g's kind; kinds without one test hash by hash. */
void
sbf_kind_mark(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h,
			  size_t n, bool *hit)
{
	const SbfKindOps *ops = sbf_kind_ops(g->kind);
	size_t		b;

	if (ops == NULL)
		return;
	if (ops->mark != NULL)
	{
		ops->mark(g, data, h, n, hit);
		return;
	}
	for (b = 0; b < n; b++)
		if (!hit[b])
			hit[b] = ops->contains(g, data, h[b]);
}

size_t
sbf_count_marked(const uint64_t *h, size_t n, SbfMarkBatch mark_batch,
				 const void *arg)
{
	size_t		found = 0;
	size_t		done = 0;

	while (done < n)
	{
		bool		hit[SBF_MARK_BATCH] = {false};
		size_t		nb = n - done < SBF_MARK_BATCH ? n - done : SBF_MARK_BATCH;
		size_t		b;

		mark_batch(arg, h + done, nb, hit);
		for (b = 0; b < nb; b++)
			found += hit[b];
		done += nb;
	}
	return found;
}

/* sbf_info's geometry keys of a described segment: its kind's describe. */
int
sbf_segment_info_keys(const SbfSegmentDesc *d, SbfInfoKey *out)
{
	const SbfKindOps *ops = sbf_kind_ops(d->g.kind);

	if (ops == NULL)
		return 0;
	out[0] = (SbfInfoKey) {"bits", sbf_kind_fill_bits(ops, &d->g, d->bytes)};
	if (ops->describe == NULL)
		return 1;
	return 1 + ops->describe(&d->g, out + 1);
}
