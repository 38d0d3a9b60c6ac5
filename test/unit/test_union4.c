/*
 * test_union4.c
 *	  Unit tests of unions that write format 4 (docs/format4.md, section 7;
 *	  sbf_union.c, sbf_union4.c): mixed kinds, byte equality in every order
 *	  and for an aggregate's partial collections, no false negatives and a
 *	  measured false-positive rate within error_rate after unions, blocked
 *	  segments OR-ed only within their p, fused segments never OR-ed, the
 *	  budget refusal, format 1-2 inputs relabelled.  Format-4 inputs are
 *	  written here by hand from the kinds' build functions, and results are
 *	  read back by an independent walk of the layout (v4_walk), so a wrong
 *	  offset or padding in the writer shows.  Deterministic keys.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_union.h"
#include "sbf_internal.h"
#include "sbf_kind.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

/* One segment of a hand-written format-4 value: keys [from, to) of space. */
typedef struct SegSpec
{
	uint8_t		kind;
	int			space;
	uint64_t	from;
	uint64_t	to;
	uint64_t	capacity;		/* blocked and bloom; fused: the key count */
	double		share;			/* the rate it is sized for */
} SegSpec;

/* One segment as v4_walk reads it back. */
typedef struct SegRead
{
	SbfKindGeom g;
	uint64_t	capacity;
	uint64_t	count;
	double		p;
	const uint8_t *data;
	uint64_t	bytes;
} SegRead;

#define UT_HLL_P	10

/* Sorted hashes of keys [from, to) of a space (a new array). */
static uint64_t *
spec_hashes(const SegSpec *s, size_t *n)
{
	size_t		m = (size_t) (s->to - s->from);
	uint64_t   *h = malloc((m ? m : 1) * sizeof(uint64_t));
	size_t		i;

	for (i = 0; i < m; i++)
		h[i] = key(s->space, s->from + i);
	qsort(h, m, sizeof(uint64_t), unit_cmp_u64);
	*n = m;
	return h;
}

/* Geometry, data and p of one segment; data is malloc'ed. */
static uint8_t *
spec_build(const SegSpec *s, SbfKindGeom *g, uint64_t *bytes, double *p,
		   uint64_t *capacity)
{
	size_t		n;
	uint64_t   *h = spec_hashes(s, &n);
	const SbfKindOps *ops = sbf_kind_ops(s->kind);
	uint8_t    *data;

	memset(g, 0, sizeof(*g));
	*capacity = s->capacity;
	*p = s->share;
	if (s->kind == SBF_KIND_BLOOM)
	{
		uint32_t	k;

		CHECK(sbf_segment_geometry(s->capacity, s->share, UINT64_C(1) << 33,
								   &g->size, &k));
		g->kind = SBF_KIND_BLOOM;
		g->width = (uint8_t) k;
		*bytes = sbf_words_bytes(g->size);
	}
	else if (s->kind == SBF_KIND_FUSED)
	{
		CHECK_ST(ops->plan(n, s->share, g, bytes), SBF_OK);
		*capacity = n;
		*p = ldexp(1.0, -(int) g->width);
	}
	else
		CHECK_ST(ops->plan(s->capacity, s->share, g, bytes), SBF_OK);
	data = calloc(1, (size_t) *bytes);
	CHECK_ST(ops->build(g, data, h, n, &g_alloc), SBF_OK);
	free(h);
	return data;
}

/* Writes the HyperLogLog of every spec's keys at UT_HLL_P; returns its bytes. */
static size_t
spec_hll(const SegSpec *s, uint32_t n, uint8_t *area)
{
	uint8_t		regs[1 << UT_HLL_P];
	bool		dense;
	size_t		bytes;
	uint32_t	i;
	uint64_t	j;

	memset(regs, 0, sizeof(regs));
	bytes = sbf_hll_encoded_size(regs, UT_HLL_P, &dense);
	sbf_hll_encode(regs, UT_HLL_P, dense, area);
	for (i = 0; i < n; i++)
		for (j = s[i].from; j < s[i].to; j++)
			bytes = sbf_hll_apply_add(area, bytes, &dense, UT_HLL_P,
									  key(s[i].space, j));
	return dense ? bytes | ((size_t) 1 << 31) : bytes;
}

/* A format-4 value of n segments, in the order given (a reader accepts any). */
static void
v4_make(SbfFilter *f, const SbfParams *sp, const SegSpec *s, uint32_t n)
{
	uint8_t    *data[8];
	SbfKindGeom g[8];
	uint64_t	bytes[8];
	uint64_t	cap[8];
	double		p[8];
	uint8_t		hll[4096];
	size_t		hb = spec_hll(s, n, hll);
	bool		dense = (hb >> 31) != 0;
	size_t		off = SBF_HEADER_BYTES + (size_t) n * SBF_SEGDIR_BYTES;
	size_t		pad;
	uint8_t    *buf;
	uint32_t	i;

	hb &= ~((size_t) 1 << 31);
	for (i = 0; i < n; i++)
	{
		data[i] = spec_build(&s[i], &g[i], &bytes[i], &p[i], &cap[i]);
		off = sbf_kind_area_start(&g[i], off, &pad) + (size_t) bytes[i];
	}
	buf = t_alloc(off + hb, NULL);
	memset(buf, 0, off + hb);
	buf[SBF_OFF_VERSION] = 4;
	buf[SBF_OFF_FLAGS] = dense ? SBF_FLAG_HLL_DENSE : 0;
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = UT_HLL_P;
	sbf_store16(buf + SBF_OFF_GROWTH, sp->growth);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, (uint16_t) n);
	sbf_store32(buf + SBF_OFF_HLL_BYTES, (uint32_t) hb);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, sp->error_rate);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, sp->tightening);
	sbf_store64(buf + SBF_OFF_CAPACITY, sp->capacity);
	off = SBF_HEADER_BYTES + (size_t) n * SBF_SEGDIR_BYTES;
	for (i = 0; i < n; i++)
	{
		uint8_t    *e = buf + SBF_SEGDIR_OFFSET(i);

		sbf_store64(e, cap[i]);
		sbf_store64(e + 8, s[i].to - s[i].from);
		sbf_store_double(e + 16, p[i]);
		sbf_kind_encode(&g[i], e + 24);
		off = sbf_kind_area_start(&g[i], off, &pad);
		memcpy(buf + off, data[i], (size_t) bytes[i]);
		off += (size_t) bytes[i];
		free(data[i]);
	}
	memcpy(buf + off, hll, hb);
	f->base = buf;
	f->prefix = 0;
	f->len = off + hb;
	f->cap = f->len;
	f->a = &g_alloc;
}

/*
 * Reads a plain format-4 payload back, independently of the core's
 * iterator: segment i into r[i] (at most max); returns the segment count,
 * or -1 when the layout does not add up (padding nonzero, length).
 */
static int
v4_walk(const uint8_t *buf, size_t len, SegRead *r, int max)
{
	int			n;
	size_t		off;
	int			i;

	if (len < SBF_HEADER_BYTES || buf[0] != 4)
		return -1;
	n = sbf_load16(buf + SBF_OFF_NSEGMENTS);
	off = SBF_HEADER_BYTES + (size_t) n * SBF_SEGDIR_BYTES;
	for (i = 0; i < n; i++)
	{
		const uint8_t *e = buf + SBF_SEGDIR_OFFSET(i);
		SegRead		x;
		size_t		pad;
		size_t		j;

		if (sbf_kind_decode(e + 24, &x.g) != SBF_OK ||
			!sbf_kind_ops(x.g.kind)->bytes(&x.g, &x.bytes))
			return -1;
		x.capacity = sbf_load64(e);
		x.count = sbf_load64(e + 8);
		x.p = sbf_load_double(e + 16);
		off = sbf_kind_area_start(&x.g, off, &pad);
		for (j = off - pad; j < off; j++)
			if (buf[j] != 0)
				return -1;
		x.data = buf + off;
		off += (size_t) x.bytes;
		if (i < max)
			r[i] = x;
	}
	if (off + sbf_load32(buf + SBF_OFF_HLL_BYTES) != len)
		return -1;
	return n;
}

/* Whether a segment of a plain format-4 payload holds h (v4_walk's layout). */
static bool
v4_has(const SbfFilter *f, uint64_t h)
{
	SegRead		r[64];
	int			n = v4_walk(SBF_PAYLOAD(f), f->len, r, 64);
	int			i;

	for (i = 0; i < n && i < 64; i++)
		if (sbf_kind_ops(r[i].g.kind)->contains(&r[i].g, r[i].data, h))
			return true;
	return false;
}

/* Every key of the specs is found (no false negative). */
static bool
v4_has_all(const SbfFilter *f, const SegSpec *s, uint32_t n)
{
	uint32_t	i;
	uint64_t	j;

	for (i = 0; i < n; i++)
		for (j = s[i].from; j < s[i].to; j++)
			if (!v4_has(f, key(s[i].space, j)))
				return false;
	return true;
}

/* out := the union of n filters in the given order with spec. */
static SbfStatus
union_of(SbfFilter *out, SbfFilter *const *f, uint32_t n, SbfUnionSpec spec)
{
	SbfView		v[8];
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		SbfStatus	st = validate_filter(f[i], &v[i]);

		if (st != SBF_OK)
			return st;
	}
	return sbf_union_many(out, v, n, &spec, NULL, 0, &g_alloc);
}

static const SbfUnionSpec MERGE = {0.0, true, false};
static const SbfUnionSpec COLLECT = {0.0, false, false};

/* Segments of a result, read back; -1 if the layout is wrong. */
static int
walk(const SbfFilter *f, SegRead *r)
{
	return v4_walk(SBF_PAYLOAD(f), f->len, r, 16);
}

/*
 * Mixed kinds (blocked, fused, a format-2 bloom segment) unite into a
 * valid format-4 value that finds every key, and f || g = g || f byte for
 * byte; the fused segments come through unchanged, byte for byte.
 */
static void
union4_mixed(void)
{
	SbfParams	sp = params(1000, 0.01, 2, 0.9, UT_HLL_P);
	SegSpec		fs[2] = {
		{SBF_KIND_BLOCKED, 0, 0, 700, 1000, 0.004},
		{SBF_KIND_FUSED, 0, 700, 3700, 0, 0.004},
	};
	SegSpec		gs[1] = {{SBF_KIND_FUSED, 1, 0, 2000, 0, 0.002}};
	SbfFilter	f, g, h, r1, r2;
	SbfFilter  *fg[3], *gf[3];
	SegRead		rf[4], rg[4], rr[8];
	SbfView		v;
	int			n, i, j, fused = 0, bloom = 0;

	v4_make(&f, &sp, fs, 2);
	v4_make(&g, &sp, gs, 1);
	/* a version-2 value of bloom segments, as 1.2 wrote it */
	sbf_write_v2 = true;
	CHECK_ST(seg_create(&h, &sp, 0, &g_alloc), SBF_OK);
	add_keys(&h, 2, 0, 500);
	sbf_write_v2 = false;
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK_ST(validate_filter(&g, &v), SBF_OK);
	fg[0] = &f; fg[1] = &g; fg[2] = &h;
	gf[0] = &h; gf[1] = &g; gf[2] = &f;
	CHECK_ST(union_of(&r1, fg, 3, MERGE), SBF_OK);
	CHECK_ST(union_of(&r2, gf, 3, MERGE), SBF_OK);
	CHECK(same_bytes(&r1, &r2));
	CHECK_ST(validate_filter(&r1, &v), SBF_OK);
	CHECK(v.version == 4 && (v.flags & SBF_FLAG_OVERLAP) != 0);
	n = walk(&r1, rr);
	CHECK(n == 4);
	CHECK(v4_has_all(&r1, fs, 2) && v4_has_all(&r1, gs, 1));
	for (i = 0; i < 500; i++)
		CHECK(v4_has(&r1, key(2, (uint64_t) i)) || !"bloom key lost");
	walk(&f, rf);
	walk(&g, rg);
	for (i = 0; i < n && i < 8; i++)
	{
		const SegRead *src = NULL;

		if (rr[i].g.kind == SBF_KIND_BLOOM)
			bloom++;
		if (rr[i].g.kind != SBF_KIND_FUSED)
			continue;
		fused++;
		for (j = 0; j < 1; j++)
			if (rr[i].bytes == rg[j].bytes && rr[i].g.kind == rg[j].g.kind &&
				memcmp(rr[i].data, rg[j].data, rr[i].bytes) == 0)
				src = &rg[j];
		if (rr[i].bytes == rf[1].bytes && memcmp(rr[i].data, rf[1].data, rr[i].bytes) == 0)
			src = &rf[1];
		CHECK(src != NULL && src->p == rr[i].p && src->count == rr[i].count);
	}
	CHECK(fused == 2 && bloom == 1);
	/* the result's segments in the canonical order (docs/format4.md section 7): capacity, then kind and size */
	for (i = 1; i < n && i < 8; i++)
		CHECK(rr[i - 1].capacity < rr[i].capacity ||
			  (rr[i - 1].capacity == rr[i].capacity &&
			   (rr[i - 1].g.kind < rr[i].g.kind ||
				(rr[i - 1].g.kind == rr[i].g.kind && rr[i - 1].g.size <= rr[i].g.size))));
	/* the bound is the sum of p: 0.004 + 2^-8 + 2^-9 + h's segment's p */
	{
		SbfView		vh;
		SbfSegment	seg;

		CHECK_ST(validate_filter(&h, &vh), SBF_OK);
		sbf_get_segment(&vh, 0, &seg);
		CHECK(fabs(sbf_fpr_bound(&v) - (0.004 + ldexp(1.0, -8) + ldexp(1.0, -9) +
										seg.error)) < 1e-15);
	}
	sbf_filter_free(&f);
	sbf_filter_free(&g);
	sbf_filter_free(&h);
	sbf_filter_free(&r1);
	sbf_filter_free(&r2);
}

/*
 * Two blocked segments of one geometry whose OR stays within p are one
 * segment, and its bytes are those of the blocked segment built from the
 * union of the sets; a subset adds nothing; two whose OR would pass p stay
 * two.
 */
static void
union4_blocked_merge(void)
{
	SbfParams	sp = params(10000, 0.01, 2, 0.9, UT_HLL_P);
	SegSpec		a = {SBF_KIND_BLOCKED, 0, 0, 2000, 10000, 0.005};
	SegSpec		b = {SBF_KIND_BLOCKED, 0, 2000, 4000, 10000, 0.005};
	SegSpec		ab = {SBF_KIND_BLOCKED, 0, 0, 4000, 10000, 0.005};
	SegSpec		sub = {SBF_KIND_BLOCKED, 0, 100, 900, 10000, 0.005};
	SegSpec		full1 = {SBF_KIND_BLOCKED, 3, 0, 10000, 10000, 0.005};
	SegSpec		full2 = {SBF_KIND_BLOCKED, 4, 0, 10000, 10000, 0.005};
	SbfFilter	fa, fb, fab, fs, f1, f2, r;
	SbfFilter  *in[2];
	SegRead		rr[4], rab[1], ra[1];

	v4_make(&fa, &sp, &a, 1);
	v4_make(&fb, &sp, &b, 1);
	v4_make(&fab, &sp, &ab, 1);
	v4_make(&fs, &sp, &sub, 1);
	v4_make(&f1, &sp, &full1, 1);
	v4_make(&f2, &sp, &full2, 1);

	in[0] = &fa; in[1] = &fb;
	CHECK_ST(union_of(&r, in, 2, MERGE), SBF_OK);
	CHECK(walk(&r, rr) == 1);
	walk(&fab, rab);
	CHECK(rr[0].bytes == rab[0].bytes &&
		  memcmp(rr[0].data, rab[0].data, rab[0].bytes) == 0);
	CHECK(rr[0].p == 0.005 && rr[0].count >= 3600 && rr[0].count <= 10000);
	CHECK(sbf_kind_blocked_ops.rate_of(&rr[0].g, rr[0].data) <= 0.005);
	sbf_filter_free(&r);

	in[0] = &fs; in[1] = &fa;
	CHECK_ST(union_of(&r, in, 2, MERGE), SBF_OK);
	CHECK(walk(&r, rr) == 1);
	walk(&fa, ra);
	CHECK(memcmp(rr[0].data, ra[0].data, ra[0].bytes) == 0 && rr[0].count == 2000);
	sbf_filter_free(&r);

	in[0] = &f1; in[1] = &f2;
	CHECK_ST(union_of(&r, in, 2, MERGE), SBF_OK);
	CHECK(walk(&r, rr) == 2);
	CHECK(v4_has_all(&r, &full1, 1) && v4_has_all(&r, &full2, 1));
	sbf_filter_free(&r);

	/* without merge (an aggregate's collection) nothing is OR-ed */
	in[0] = &fa; in[1] = &fb;
	CHECK_ST(union_of(&r, in, 2, COLLECT), SBF_OK);
	CHECK(walk(&r, rr) == 2);
	sbf_filter_free(&r);
	sbf_filter_free(&fa);
	sbf_filter_free(&fb);
	sbf_filter_free(&fab);
	sbf_filter_free(&fs);
	sbf_filter_free(&f1);
	sbf_filter_free(&f2);
}

/*
 * Fused segments never merge: two of one geometry stay two, each byte for
 * byte; a fused and a blocked segment of one set stay two as well.
 */
static void
union4_fused_never(void)
{
	SbfParams	sp = params(1000, 0.05, 2, 0.9, UT_HLL_P);
	SegSpec		a = {SBF_KIND_FUSED, 0, 0, 1000, 0, 0.01};
	SegSpec		b = {SBF_KIND_FUSED, 1, 0, 1000, 0, 0.01};
	SbfFilter	fa, fb, r;
	SbfFilter  *in[2];
	SegRead		rr[4], ra[1], rb[1];

	v4_make(&fa, &sp, &a, 1);
	v4_make(&fb, &sp, &b, 1);
	walk(&fa, ra);
	walk(&fb, rb);
	CHECK(ra[0].g.size == rb[0].g.size && ra[0].g.width == rb[0].g.width);
	in[0] = &fa; in[1] = &fb;
	CHECK_ST(union_of(&r, in, 2, MERGE), SBF_OK);
	CHECK(walk(&r, rr) == 2);
	CHECK((memcmp(rr[0].data, ra[0].data, ra[0].bytes) == 0 &&
		   memcmp(rr[1].data, rb[0].data, rb[0].bytes) == 0) ||
		  (memcmp(rr[0].data, rb[0].data, rb[0].bytes) == 0 &&
		   memcmp(rr[1].data, ra[0].data, ra[0].bytes) == 0));
	CHECK(rr[0].count == 1000 && rr[1].count == 1000);
	CHECK(v4_has_all(&r, &a, 1) && v4_has_all(&r, &b, 1));
	sbf_filter_free(&r);
	/* the same value twice is one */
	in[1] = &fa;
	CHECK_ST(union_of(&r, in, 2, MERGE), SBF_OK);
	CHECK(same_bytes(&r, &fa) || (walk(&r, rr) == 1 &&
								  memcmp(rr[0].data, ra[0].data, ra[0].bytes) == 0));
	sbf_filter_free(&r);
	sbf_filter_free(&fa);
	sbf_filter_free(&fb);
}

/*
 * Over the budget: two fused segments of p = 2^-7 each pass error_rate
 * 0.01; sbf_union_budget refuses and names the bound, sbf_union (no
 * check) and a union given a rate that fits accept.
 */
static void
union4_budget(void)
{
	SbfParams	sp = params(1000, 0.01, 2, 0.9, UT_HLL_P);
	SegSpec		a = {SBF_KIND_FUSED, 0, 0, 3000, 0, 0.009};
	SegSpec		b = {SBF_KIND_FUSED, 1, 0, 3000, 0, 0.009};
	SbfFilter	fa, fb, r;
	SbfView		va, vb;
	SegRead		rr[4];
	double		bound = 0.0;

	v4_make(&fa, &sp, &a, 1);
	v4_make(&fb, &sp, &b, 1);
	CHECK_ST(validate_filter(&fb, &vb), SBF_OK);
	CHECK_ST(validate_filter(&fa, &va), SBF_OK);
	CHECK_ST(sbf_copy(&r, &va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union_budget(&r, &vb, 0.0, &bound), SBF_E_OVER_BUDGET);
	CHECK(bound == 2 * ldexp(1.0, -7));
	CHECK(same_bytes(&r, &fa));
	CHECK_ST(sbf_union_budget(&r, &vb, 0.016, &bound), SBF_OK);
	CHECK(v4_has_all(&r, &a, 1) && v4_has_all(&r, &b, 1));
	sbf_filter_free(&r);
	CHECK_ST(sbf_copy(&r, &va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&r, &vb), SBF_OK);
	CHECK(walk(&r, rr) == 2);
	sbf_filter_free(&r);
	sbf_filter_free(&fa);
	sbf_filter_free(&fb);
}

/*
 * Format 1-2 inputs: a version-2 value united with itself is written as
 * version 4 with its segments unchanged (kind 1, same bits, same counts)
 * and without OVERLAP; a version-1 value's union keeps OVERLAP.
 */
static void
union4_relabel(void)
{
	SbfParams	sp = params(500, 0.01, 2, 0.9, UT_HLL_P);
	SbfFilter	h, r, r1;
	SbfFilter  *in[2];
	SbfView		v, vr;
	SbfSegment	seg;
	SegRead		rr[8];
	int			n, i;

	sbf_write_v2 = true;
	CHECK_ST(seg_create(&h, &sp, 0, &g_alloc), SBF_OK);
	add_keys(&h, 0, 0, 1500);
	sbf_write_v2 = false;
	CHECK_ST(validate_filter(&h, &v), SBF_OK);
	CHECK(v.version == 2 && v.nsegments >= 2);
	in[0] = &h; in[1] = &h;
	CHECK_ST(union_of(&r, in, 2, MERGE), SBF_OK);
	CHECK_ST(validate_filter(&r, &vr), SBF_OK);
	CHECK(vr.version == 4 && (vr.flags & SBF_FLAG_OVERLAP) == 0);
	n = walk(&r, rr);
	CHECK(n == v.nsegments);
	for (i = 0; i < n && i < 8; i++)
	{
		sbf_get_segment(&v, (uint32_t) i, &seg);
		CHECK(rr[i].g.kind == SBF_KIND_BLOOM && rr[i].g.size == seg.nbits &&
			  rr[i].g.width == seg.k && rr[i].capacity == seg.capacity &&
			  rr[i].count == seg.count && rr[i].p == seg.error &&
			  memcmp(rr[i].data, v.buf + seg.words_offset, rr[i].bytes) == 0);
	}
	for (i = 0; i < 1500; i++)
		CHECK(sbf_contains_hash(&vr, key(0, (uint64_t) i)) || !"lost");
	/* the result united with itself is itself */
	in[0] = &r; in[1] = &r;
	CHECK_ST(union_of(&r1, in, 2, MERGE), SBF_OK);
	CHECK(same_bytes(&r1, &r));
	sbf_filter_free(&r1);
	sbf_filter_free(&r);

	/* a 1.0 value (version 1: same layout, no counts) */
	SBF_PAYLOAD(&h)[SBF_OFF_VERSION] = SBF_FORMAT_V1;
	CHECK_ST(validate_filter(&h, &v), SBF_OK);
	in[0] = &h; in[1] = &h;
	CHECK_ST(union_of(&r, in, 2, MERGE), SBF_OK);
	CHECK_ST(validate_filter(&r, &vr), SBF_OK);
	CHECK(vr.version == 4 && (vr.flags & SBF_FLAG_OVERLAP) != 0);
	sbf_filter_free(&r);
	sbf_filter_free(&h);
}

/*
 * Unions of many filters: every order of the inputs, and an aggregate's
 * partial collections split and ordered any way (sbf_union_many without
 * merge, then one merge) give the same bytes; the result is its own union.
 */
static void
union4_orders(void)
{
	SbfParams	sp = params(4000, 0.02, 2, 0.9, UT_HLL_P);
	SegSpec		s0[2] = {{SBF_KIND_BLOCKED, 0, 0, 1000, 4000, 0.004},
						 {SBF_KIND_FUSED, 0, 1000, 2000, 0, 0.002}};
	SegSpec		s1 = {SBF_KIND_BLOCKED, 1, 0, 1500, 4000, 0.004};
	SegSpec		s2 = {SBF_KIND_BLOCKED, 1, 1000, 2500, 4000, 0.004};
	SegSpec		s3 = {SBF_KIND_FUSED, 2, 0, 600, 0, 0.004};
	SbfFilter	f[5], r0, r, c1, c2, c;
	SbfFilter  *in[5], *pair[2];
	static const int perms[4][5] = {
		{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}, {3, 4, 0, 2, 1}
	};
	int			p, i;

	v4_make(&f[0], &sp, s0, 2);
	v4_make(&f[1], &sp, &s1, 1);
	v4_make(&f[2], &sp, &s2, 1);
	v4_make(&f[3], &sp, &s3, 1);
	CHECK_ST(seg_create(&f[4], &sp, 0, &g_alloc), SBF_OK);
	add_keys(&f[4], 5, 0, 3000);
	for (i = 0; i < 5; i++)
		in[i] = &f[i];
	CHECK_ST(union_of(&r0, in, 5, MERGE), SBF_OK);
	CHECK(v4_has_all(&r0, s0, 2) && v4_has_all(&r0, &s1, 1) &&
		  v4_has_all(&r0, &s2, 1) && v4_has_all(&r0, &s3, 1));
	for (p = 1; p < 4; p++)
	{
		for (i = 0; i < 5; i++)
			in[i] = &f[perms[p][i]];
		CHECK_ST(union_of(&r, in, 5, MERGE), SBF_OK);
		CHECK(same_bytes(&r, &r0));
		sbf_filter_free(&r);

		/* partial states: the first two, the other three, combined */
		CHECK_ST(union_of(&c1, in, 2, COLLECT), SBF_OK);
		CHECK_ST(union_of(&c2, in + 2, 3, COLLECT), SBF_OK);
		pair[0] = p % 2 ? &c2 : &c1;
		pair[1] = p % 2 ? &c1 : &c2;
		CHECK_ST(union_of(&c, pair, 2, COLLECT), SBF_OK);
		pair[0] = &c;
		CHECK_ST(union_of(&r, pair, 1, MERGE), SBF_OK);
		CHECK(same_bytes(&r, &r0));
		sbf_filter_free(&r);
		sbf_filter_free(&c);
		sbf_filter_free(&c1);
		sbf_filter_free(&c2);
	}
	pair[0] = &r0; pair[1] = &r0;
	CHECK_ST(union_of(&r, pair, 2, MERGE), SBF_OK);
	CHECK(same_bytes(&r, &r0));
	sbf_filter_free(&r);
	sbf_filter_free(&r0);
	for (i = 0; i < 5; i++)
		sbf_filter_free(&f[i]);
}

/*
 * The measured false-positive rate after unions stays within error_rate:
 * three filters, each a blocked segment of 20,000 keys sized for e/4, and
 * a fused one of 30,000 at e/8; 200,000 absent keys.
 */
static void
union4_fpr(void)
{
	const double e = 0.01;
	SbfParams	sp = params(20000, e, 2, 0.9, UT_HLL_P);
	SegSpec		s[4] = {
		{SBF_KIND_BLOCKED, 0, 0, 20000, 20000, e / 4},
		{SBF_KIND_BLOCKED, 1, 0, 20000, 20000, e / 4},
		{SBF_KIND_BLOCKED, 2, 0, 20000, 20000, e / 4},
		{SBF_KIND_FUSED, 3, 0, 30000, 0, e / 8},
	};
	SbfFilter	f[4], r;
	SbfFilter  *in[4];
	SbfView		v;
	uint64_t	fp = 0;
	uint64_t	i;
	int			j;

	for (j = 0; j < 4; j++)
	{
		v4_make(&f[j], &sp, &s[j], 1);
		in[j] = &f[j];
	}
	CHECK_ST(union_of(&r, in, 4, (SbfUnionSpec) {0.0, true, true}), SBF_OK);
	CHECK_ST(validate_filter(&r, &v), SBF_OK);
	CHECK(v4_has_all(&r, s, 4));
	for (i = 0; i < 200000; i++)
		fp += sbf_contains_hash(&v, key(9, i));
	printf("  measured rate after union: %.5f (bound %.5f, error_rate %.3f)\n",
		   (double) fp / 200000.0, sbf_fpr_bound(&v), e);
	CHECK((double) fp / 200000.0 <= e);
	CHECK(sbf_fpr_bound(&v) <= e);
	sbf_filter_free(&r);
	for (j = 0; j < 4; j++)
		sbf_filter_free(&f[j]);
}

/*
 * Values grown by adds (format 4: blocked segments, growth 1 and 2): f || f
 * is f's canonical form, which every further union with f or with itself
 * keeps byte for byte, and finds every key.
 */
static void
union4_grown(void)
{
	int			i;

	for (i = 0; i < 12; i++)
	{
		SbfParams	sp = params(100, 0.01, (uint16_t) (i % 2 + 1), i % 3 ? 1.0 : 0.9, 9);
		SbfFilter	f, g, h;
		SbfFilter  *in[2];
		SbfView		v;
		uint64_t	j;

		CHECK_ST(seg_create(&f, &sp, 0, &g_alloc), SBF_OK);
		add_keys(&f, 11, 0, 250 + 37 * (uint64_t) i);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		CHECK(v.version == 4);
		in[0] = &f; in[1] = &f;
		CHECK_ST(union_of(&g, in, 2, MERGE), SBF_OK);
		in[0] = &g; in[1] = &f;
		CHECK_ST(union_of(&h, in, 2, MERGE), SBF_OK);
		CHECK(same_bytes(&h, &g));
		sbf_filter_free(&h);
		in[1] = &g;
		CHECK_ST(union_of(&h, in, 2, MERGE), SBF_OK);
		CHECK(same_bytes(&h, &g));
		CHECK_ST(validate_filter(&h, &v), SBF_OK);
		for (j = 0; j < 250 + 37 * (uint64_t) i; j++)
			CHECK(sbf_contains_hash(&v, key(11, j)) || !"lost");
		sbf_filter_free(&h);
		sbf_filter_free(&g);
		sbf_filter_free(&f);
	}
}

/*
 * The loops over a segment's data check for interrupts every
 * SBF_WORK_STRIDE words: two blocked segments of 3.4 MB (over one stride
 * each) that OR call the callback at least once per stride in each pass
 * (set bits of both, the subset test, the merge, the rate).
 */
static void
union4_interrupts(void)
{
	SbfParams	sp = params(3000000, 0.02, 2, 0.9, UT_HLL_P);
	SegSpec		a = {SBF_KIND_BLOCKED, 0, 0, 1000, 3000000, 0.01};
	SegSpec		b = {SBF_KIND_BLOCKED, 1, 0, 1000, 3000000, 0.01};
	SbfFilter	fa, fb, r;
	SbfFilter  *in[2];
	SegRead		rr[2];
	uint64_t	before;
	uint64_t	strides;

	v4_make(&fa, &sp, &a, 1);
	v4_make(&fb, &sp, &b, 1);
	walk(&fa, rr);
	strides = rr[0].bytes / 8 / SBF_WORK_STRIDE;
	CHECK(strides >= 1);
	in[0] = &fa; in[1] = &fb;
	before = g_interrupt_calls;
	CHECK_ST(union_of(&r, in, 2, MERGE), SBF_OK);
	CHECK(walk(&r, rr) == 1);
	CHECK(g_interrupt_calls - before >= 5 * strides);
	CHECK(v4_has_all(&r, &a, 1) && v4_has_all(&r, &b, 1));
	sbf_filter_free(&r);
	sbf_filter_free(&fa);
	sbf_filter_free(&fb);
}

int
main(void)
{
	RUN(union4_mixed);
	RUN(union4_blocked_merge);
	RUN(union4_fused_never);
	RUN(union4_budget);
	RUN(union4_relabel);
	RUN(union4_orders);
	RUN(union4_fpr);
	RUN(union4_grown);
	RUN(union4_interrupts);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
