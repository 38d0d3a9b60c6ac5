/*
 * fuzz_union4.h
 *	  fuzz_kinds' union mode (included by fuzz_kinds.c): two format-4 values
 *	  of mixed kinds, written from the input, are united (sbf_union.c,
 *	  sbf_union4.c; docs/format4.md, section 7).
 *
 * Input: byte 0 the parameters (bits 0-1 error_rate, bit 2 tightening 1,
 * bit 3 the budget check), then segments of 5 bytes each, at most
 * U4_MAX_SEGS:
 *	+0	bit 0 the value (0 or 1); bits 1-2 the kind (bloom, blocked, fused,
 *		blocked); bits 3-5 the share; bit 6 OR the data with later bytes
 *		(blocked and bloom: extra set bits, no key lost)
 *	+1	the key base (keys sbf_mix64(base * 32 + j): sets of segments
 *		overlap, repeat or nest)
 *	+2	keys: 1 + byte
 *	+3	capacity: keys + byte * 4 (fused: keys)
 *	+4	how many following bytes the OR takes (with bit 6)
 */
#ifndef FUZZ_UNION4_H
#define FUZZ_UNION4_H

#include "sbf_dir.h"
#include "sbf_union.h"

#define U4_MAX_SEGS		6
#define U4_HLL_P		4

/* One segment of a value to write. */
typedef struct U4Seg
{
	SbfKindGeom g;
	uint64_t	capacity;
	uint64_t	count;
	double		p;
	uint64_t	bytes;
	uint8_t    *data;
	uint8_t		base;
	uint32_t	keys;
} U4Seg;

static uint64_t
u4_key(uint8_t base, uint32_t j)
{
	return sbf_mix64((uint64_t) base * 32 + j);
}

static int
u4_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* The core table's rows that may stand in a plain directory, into rows. */
static uint32_t
u4_plain_rows(const SbfKindOps **rows)
{
	uint32_t	n = 0;
	uint32_t	i;

	for (i = 0; i < SBF_KIND_ROWS; i++)
		if (sbf_kind_rows[i] != NULL &&
			(sbf_kind_rows[i]->dirs & SBF_KIND_IN_PLAIN4) != 0)
			rows[n++] = sbf_kind_rows[i];
	return n;
}

/* Plans and builds one segment from its 5 bytes; false when it cannot. */
static bool
u4_segment(const uint8_t *d, const uint8_t *extra, size_t nextra, U4Seg *s)
{
	static const double shares[8] = {0.004, 0.001, 0.0003, 0.002, 0.0009,
	0.00005, 0.0005, 0.003};
	const SbfKindOps *rows[SBF_KIND_ROWS];
	uint32_t	nrows = u4_plain_rows(rows);
	uint64_t	h[256];
	uint32_t	j;
	const SbfKindOps *ops = rows[((d[0] >> 1) & 3) % nrows];

	memset(s, 0, sizeof(*s));
	s->base = d[1];
	s->keys = 1u + d[2];
	s->capacity = s->keys + (uint64_t) d[3] * 4;
	s->p = shares[(d[0] >> 3) & 7];
	for (j = 0; j < s->keys; j++)
		h[j] = u4_key(s->base, j);
	qsort(h, s->keys, sizeof(uint64_t), u4_cmp);
	if (ops->union_rule == SBF_UNION_FILL)
	{
		uint32_t	k;

		/* 1.2's fill rule merges segments of 1.2's SIZING: sized so */
		if (!sbf_segment_geometry(s->capacity, s->p, UINT64_C(1) << 20, &s->g.size, &k))
			return false;
		s->g.kind = ops->kind;
		s->g.width = (uint8_t) k;
		s->bytes = sbf_words_bytes(s->g.size);
	}
	else if (ops->plan(ops->complete ? s->keys : s->capacity,
					   s->p, &s->g, &s->bytes) != SBF_OK || s->bytes > (1 << 18))
		return false;
	if (ops->complete)
	{
		s->capacity = s->keys;
		s->p = ldexp(1.0, -(int) s->g.width);
	}
	s->data = malloc((size_t) s->bytes);
	if (ops->build(&s->g, s->data, h, s->keys, &fuzz_allocator) != SBF_OK)
	{
		free(s->data);
		return false;
	}
	if ((d[0] & 0x40) && ops->merge != NULL)
		for (j = 0; j < d[4] && j < nextra; j++)
			s->data[(j * 61u) % s->bytes] |= extra[j];
	{
		uint64_t	b;

		/* bits past those that hold set bits (bloom: past m) stay 0 */
		for (b = sbf_kind_fill_bits(ops, &s->g, s->bytes); b < s->bytes * 8; b++)
			s->data[b >> 3] &= (uint8_t) ~(1u << (b & 7));
	}
	s->count = s->keys;
	return true;
}

/* Writes a plain format-4 value of n segments (an empty HyperLogLog). */
static uint8_t *
u4_write(const U4Seg *s, uint32_t n, double e, double r, size_t *len)
{
	uint8_t		regs[1 << U4_HLL_P] = {0};
	bool		dense;
	size_t		hb = sbf_hll_encoded_size(regs, U4_HLL_P, &dense);
	size_t		off = SBF_HEADER_BYTES + (size_t) n * SBF_SEGDIR_BYTES;
	size_t		pad;
	uint8_t    *buf;
	uint32_t	i;

	for (i = 0; i < n; i++)
		off = sbf_kind_area_start(&s[i].g, off, &pad) + (size_t) s[i].bytes;
	*len = off + hb;
	buf = calloc(1, *len);
	buf[0] = 4;
	buf[1] = dense ? SBF_FLAG_HLL_DENSE : 0;
	buf[2] = SBF_HASH_XXH3;
	buf[3] = U4_HLL_P;
	sbf_store16(buf + 4, 2);
	sbf_store16(buf + 6, (uint16_t) n);
	sbf_store32(buf + 8, (uint32_t) hb);
	sbf_store_double(buf + 12, e);
	sbf_store_double(buf + 20, r);
	sbf_store64(buf + 28, 100);
	off = SBF_HEADER_BYTES + (size_t) n * SBF_SEGDIR_BYTES;
	for (i = 0; i < n; i++)
	{
		uint8_t    *en = buf + SBF_SEGDIR_OFFSET(i);

		sbf_store64(en, s[i].capacity);
		sbf_store64(en + 8, s[i].count);
		sbf_store_double(en + 16, s[i].p);
		sbf_kind_encode(&s[i].g, en + 24);
		off = sbf_kind_area_start(&s[i].g, off, &pad);
		memcpy(buf + off, s[i].data, (size_t) s[i].bytes);
		off += (size_t) s[i].bytes;
	}
	sbf_hll_encode(regs, U4_HLL_P, dense, buf + off);
	return buf;
}

/* Whether some segment of view v has fused segment s's entry fields and data. */
static bool
u4_has_segment(const SbfView *v, const U4Seg *s)
{
	SbfDirIter	di;
	SbfDirEntry e;

	sbf_dir_view(&di, v);
	while (sbf_dir_next(&di, &e))
		if (e.g.kind == s->g.kind && e.g.size == s->g.size &&
			e.g.width == s->g.width && e.g.attempt == s->g.attempt &&
			e.count == s->count && e.error == s->p && e.bytes == s->bytes &&
			memcmp(v->buf + e.data, s->data, (size_t) s->bytes) == 0)
			return true;
	return false;
}

/* Whether two results have the same bytes, but the flag bits ignore. */
static bool
u4_same(const SbfFilter *a, const SbfFilter *b, uint8_t ignore)
{
	const uint8_t *x = SBF_PAYLOAD(a);
	const uint8_t *y = SBF_PAYLOAD(b);

	return a->len == b->len && a->len > 2 && x[0] == y[0] &&
		((x[1] ^ y[1]) & ~ignore) == 0 &&
		memcmp(x + 2, y + 2, a->len - 2) == 0;
}

/* The checks of one union result (see fuzz_kinds.c's header). */
static void
u4_check_result(const SbfFilter *u, const U4Seg *s, uint32_t n,
				const SbfView *in, const SbfUnionSpec *spec)
{
	SbfView		v;
	SbfFilter	again;
	SbfView		two[2];
	uint32_t	i;
	uint32_t	j;

	FUZZ_ASSERT(sbf_validate(SBF_PAYLOAD(u), u->len, &v) == SBF_OK);
	FUZZ_ASSERT(v.version == 4);
	for (i = 0; i < n; i++)
	{
		for (j = 0; j < s[i].keys; j++)
			FUZZ_ASSERT(sbf_contains_hash(&v, u4_key(s[i].base, j)));
		if (sbf_kind_ops(s[i].g.kind)->union_rule == SBF_UNION_APPEND)
			FUZZ_ASSERT(u4_has_segment(&v, &s[i]));
	}
	if (spec->enforce && in[0].tightening < 1.0)
		FUZZ_ASSERT(sbf_fpr_budget(&v) <= in[0].error_rate * (1.0 + 1e-9));
	FUZZ_ASSERT(sbf_fpr_bound(&v) >= sbf_fpr_budget(&v));
	/* its own union: of two copies (the value itself), and of the value
	 * alone (the full union: canonical order is a fixed point) */
	two[0] = v;
	two[1] = v;
	FUZZ_ASSERT(sbf_union_many(&again, two, 2, spec, NULL, 0, &fuzz_allocator) == SBF_OK);
	FUZZ_ASSERT(u4_same(&again, u, 0));
	sbf_filter_free(&again);
	FUZZ_ASSERT(sbf_union_many(&again, two, 1, spec, NULL, 0, &fuzz_allocator) == SBF_OK);
	FUZZ_ASSERT(u4_same(&again, u, 0));
	sbf_filter_free(&again);
}

/* Both orders, the collection route, and the result's checks. */
static void
u4_unite(const SbfView *in, const U4Seg *s, uint32_t n, const SbfUnionSpec *spec)
{
	SbfView		rev[2] = {in[1], in[0]};
	SbfUnionSpec collect = {0.0, false, false};
	SbfFilter	u1;
	SbfFilter	u2;
	SbfFilter	c;
	SbfStatus	st1 = sbf_union_many(&u1, in, 2, spec, NULL, 0, &fuzz_allocator);
	SbfStatus	st2 = sbf_union_many(&u2, rev, 2, spec, NULL, 0, &fuzz_allocator);

	FUZZ_ASSERT(st1 == st2);
	if (st1 != SBF_OK)
		return;
	FUZZ_ASSERT(u4_same(&u1, &u2, 0));
	u4_check_result(&u1, s, n, in, spec);
	if (sbf_union_many(&c, rev, 2, &collect, NULL, 0, &fuzz_allocator) == SBF_OK)
	{
		SbfView		cv;
		SbfFilter	f;

		FUZZ_ASSERT(sbf_validate(SBF_PAYLOAD(&c), c.len, &cv) == SBF_OK);
		if (sbf_union_many(&f, &cv, 1, spec, NULL, 0, &fuzz_allocator) == SBF_OK)
		{
			/* OVERLAP may differ: the collection is not an input */
			FUZZ_ASSERT(u4_same(&f, &u1, SBF_FLAG_OVERLAP));
			sbf_filter_free(&f);
		}
		sbf_filter_free(&c);
	}
	sbf_filter_free(&u1);
	sbf_filter_free(&u2);
}

static void
fuzz_union4(const uint8_t *d, size_t size)
{
	static const double rates[4] = {0.01, 0.005, 0.02, 0.001};
	U4Seg		s[U4_MAX_SEGS];
	U4Seg		side[2][U4_MAX_SEGS];
	uint32_t	nside[2] = {0, 0};
	uint32_t	n = 0;
	size_t		off = 1;
	double		e;
	double		r;
	SbfUnionSpec spec;
	uint8_t    *buf[2];
	size_t		len[2];
	SbfView		in[2];
	uint32_t	i;

	if (size < 1)
		return;
	e = rates[d[0] & 3];
	r = (d[0] & 4) ? 1.0 : 0.9;
	spec.error_rate = 0.0;
	spec.merge = true;
	spec.enforce = (d[0] & 8) != 0;
	for (; off + 5 <= size && n < U4_MAX_SEGS; off += 5)
		if (u4_segment(d + off, d + off + 5, size - off - 5, &s[n]))
		{
			side[d[off] & 1][nside[d[off] & 1]++] = s[n];
			n++;
		}
	if (nside[0] == 0 || nside[1] == 0)
	{
		for (i = 0; i < n; i++)
			free(s[i].data);
		return;
	}
	for (i = 0; i < 2; i++)
		buf[i] = u4_write(side[i], nside[i], e, r, &len[i]);
	if (sbf_validate(buf[0], len[0], &in[0]) == SBF_OK &&
		sbf_validate(buf[1], len[1], &in[1]) == SBF_OK)
		u4_unite(in, s, n, &spec);
	else
	{
		/* the writer is right: only a value over its budget may be refused */
		double		sum[2] = {0.0, 0.0};

		for (i = 0; i < 2; i++)
			for (uint32_t j = 0; j < nside[i]; j++)
				sum[i] += side[i][j].p;
		FUZZ_ASSERT(sum[0] > e || sum[1] > e);
	}
	for (i = 0; i < 2; i++)
		free(buf[i]);
	for (i = 0; i < n; i++)
		free(s[i].data);
}

#endif							/* FUZZ_UNION4_H */
