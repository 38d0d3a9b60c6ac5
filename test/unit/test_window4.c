/*
 * test_window4.c
 *	  Unit tests of windowed filters in format 4 (docs/format4.md, section 8):
 *	  buckets compacted into the kind sbf_win_kind_choose gives (the
 *	  smallest of fused, blocked and kind 4), no false negatives within the window, measured rates within
 *	  each bucket's budget, version-3 values (1.2) answering as before and
 *	  relabelled (kind 4) when written, the same bytes for any row order, and
 *	  crafted version-4 values the validator refuses.  Built with
 *	  AddressSanitizer and UndefinedBehaviorSanitizer like test_window.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_internal.h"
#include "sbf_window.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_window.h"

#define DAY		((int64_t) 86400 * 1000000)
#define T0		((int64_t) 20000)	/* the newest bucket of the tests */

static uint64_t
rnd(uint64_t *s)
{
	uint64_t	z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/*
 * Kinds the windows of agg_window must not choose (SbfWindow.avoid_kinds):
 * 0 writes as the extension does; tests that need blocked segments, which
 * are never the smallest, set it to kind 4's bit.
 */
static unsigned g_avoid;
#define AVOID_WBLOOM	(1u << SBF_KIND_WBLOOM)

/*
 * The aggregate's window: bucket T0 - a holds sizes[a] elements (ids from
 * base + 1000000 a on), every bucket compacted as sbf_window_agg's final does.
 */
static void
agg_window(SbfWindow *w, const SbfWinParams *p, const uint32_t *sizes,
		   uint32_t nb, uint64_t base)
{
	size_t		n = 0;
	size_t		total = 0;
	SbfWinPair *pairs;
	uint32_t	a;
	uint32_t	i;

	for (a = 0; a < nb; a++)
		total += sizes[a];
	pairs = malloc(sizeof(SbfWinPair) * (total + 1));
	for (a = 0; a < nb; a++)
		for (i = 0; i < sizes[a]; i++)
		{
			pairs[n].hash = elem(base + 1000000ULL * a + i);
			pairs[n++].bucket = T0 - (int64_t) a;
		}
	n = sbf_win_pairs_normalize(pairs, n, T0, p->buckets);
	CHECK(sbf_win_from_pairs(w, p, T0, pairs, n, &g_alloc) == SBF_OK);
	w->avoid_kinds = g_avoid;
	CHECK(sbf_win_compact(w, true) == SBF_OK);
	free(pairs);
}

/* How many segments of each kind a view holds (kinds[0..4]). */
static void
count_kinds(const SbfWinView *v, uint32_t *kinds)
{
	size_t		off = v->bits_offset;
	uint32_t	j;

	memset(kinds, 0, sizeof(uint32_t) * 5);
	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(v, j, &off, &seg);
		if (seg.g.kind <= 4)
			kinds[seg.g.kind]++;
	}
}

/* The elements of a window are found; small buckets written as kind small. */
static void
window_found_by_kind(uint8_t small)
{
	static const uint32_t sizes[8] = {3, 40, 120, 600, 3000, 20000, 0, 250};
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint32_t	kinds[5];
	uint32_t	a;
	uint32_t	i;
	size_t		missed = 0;

	agg_window(&w, &p, sizes, 8, 0);
	CHECK(win_encode_valid(4, &w, &f, &v));
	CHECK(v.version == 4 && (v.flags & SBF_WIN_FLAG_WINDOWED) != 0);
	count_kinds(&v, kinds);
	fprintf(stderr, "  segments: %u blocked, %u fused, %u kind 4; %u pairs\n",
			kinds[SBF_KIND_BLOCKED], kinds[SBF_KIND_FUSED], kinds[SBF_KIND_WBLOOM], v.npairs);
	CHECK(kinds[small] >= 1 && kinds[SBF_KIND_FUSED] >= 1);
	CHECK(kinds[SBF_KIND_BLOOM] == 0 && kinds[SBF_KIND_BLOCKED + SBF_KIND_WBLOOM - small] == 0);
	CHECK(sbf_win_fpr_bound(&v) <= 0.01 * SBF_WIN_BUDGET_SLACK);
	for (a = 0; a < 8; a++)
	{
		uint64_t   *h = malloc(sizeof(uint64_t) * (sizes[a] + 1));

		for (i = 0; i < sizes[a]; i++)
		{
			h[i] = elem(1000000ULL * a + i);
			missed += !sbf_win_contains(&v, h[i], sbf_win_max_age(&v, T0 - (int64_t) a));
		}
		CHECK(sbf_win_count_contained(&v, h, sizes[a], (int64_t) a) == sizes[a]);
		free(h);
	}
	CHECK(missed == 0);
	CHECK(llround(sbf_win_cardinality(&v)) == 3 + 40 + 120 + 600 + 3000 + 20000 + 250);
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/*
 * Every element of the window is found since its bucket; kind 4 (small
 * buckets) and fused (large ones) written, and with kind 4 avoided,
 * blocked and fused.
 */
static void
no_false_negatives_by_kind(void)
{
	g_avoid = 0;
	window_found_by_kind(SBF_KIND_WBLOOM);
	g_avoid = AVOID_WBLOOM;
	window_found_by_kind(SBF_KIND_BLOCKED);
	g_avoid = 0;
}

/*
 * One bucket of n elements: the measured rate of 100,000 non-members within
 * the bucket's budget P = e/B (here 0.01), and the stored bound too.
 */
static void
rate_within_bucket_budget(void)
{
	static const uint32_t sizes[3] = {100, 3000, 30000};
	SbfWinParams p = {DAY, 5, 0.05};
	double		budget = 0.05 / 5;
	int			s;

	for (s = 0; s < 3; s++)
	{
		SbfWindow	w;
		SbfFilter	f;
		SbfWinView	v;
		uint32_t	kinds[5];
		uint32_t	fp = 0;
		uint32_t	i;

		agg_window(&w, &p, &sizes[s], 1, 0);
		CHECK(win_encode_valid(0, &w, &f, &v));
		count_kinds(&v, kinds);
		for (i = 0; i < 100000; i++)
			fp += sbf_win_contains(&v, elem((1ULL << 40) + i), 4);
		fprintf(stderr, "  %u elements (%s): rate %.5f, bound %.5f, budget %.3f, %.2f bits each\n",
				sizes[s], kinds[SBF_KIND_FUSED] ? "fused" : kinds[SBF_KIND_WBLOOM] ? "kind 4" : "blocked",
				fp / 100000.0,
				sbf_win_fpr_bound(&v), budget, f.len * 8.0 / sizes[s]);
		CHECK(v.nsegments == 1);
		CHECK(sbf_win_fpr_bound(&v) <= budget);
		/* 3.3 standard deviations above the budget at most */
		CHECK(fp <= 100000 * budget + 3.3 * sqrt(100000 * budget));
		sbf_filter_free(&f);
		sbf_win_free(&w);
	}
}

/*
 * Writes w as 1.2 did (version 3): every segment must be kind 4, in version
 * 3's order (age, m, k, count, bits); here one segment per bucket.
 */
static uint8_t *
encode_v3(const SbfWindow *w, size_t *len)
{
	size_t		total = SBF_WIN_HEADER_BYTES + (size_t) w->nsegs * SBF_WIN_SEGDIR_BYTES +
		(size_t) w->npairs * SBF_WIN_PAIR_BYTES;
	uint8_t    *buf;
	size_t		off;
	uint32_t	j;

	for (j = 0; j < w->nsegs; j++)
		total += (size_t) w->segs[j].bytes;
	buf = calloc(1, total);
	buf[0] = SBF_WIN_VERSION;
	buf[1] = w->flags & SBF_WIN_FLAG_STARTED;
	buf[2] = SBF_HASH_XXH3;
	sbf_store16(buf + 4, (uint16_t) w->p.buckets);
	sbf_store32(buf + 8, w->nsegs);
	sbf_store32(buf + 12, w->npairs);
	sbf_store64(buf + 16, (uint64_t) w->p.width);
	sbf_store64(buf + 24, (uint64_t) w->newest);
	sbf_store_double(buf + 32, w->p.error_rate);
	off = SBF_WIN_HEADER_BYTES + (size_t) w->nsegs * SBF_WIN_SEGDIR_BYTES;
	for (j = 0; j < w->nsegs; j++)
	{
		uint8_t    *e = buf + SBF_WIN_HEADER_BYTES + (size_t) j * SBF_WIN_SEGDIR_BYTES;

		sbf_store16(e, w->segs[j].age);
		e[2] = w->segs[j].g.width;
		sbf_store32(e + 4, w->segs[j].count);
		sbf_store64(e + 8, w->segs[j].g.size);
		memcpy(buf + off, w->segs[j].bits, (size_t) w->segs[j].bytes);
		off += (size_t) w->segs[j].bytes;
	}
	for (j = 0; j < w->npairs; j++)
	{
		sbf_store64(buf + off + (size_t) j * 8, w->hash[j]);
		sbf_store16(buf + off + (size_t) w->npairs * 8 + (size_t) j * 2, w->age[j]);
	}
	*len = total;
	return buf;
}

/*
 * A window whose bucket ages[s] holds one segment of kind ops of sizes[s]
 * elements (ids 7000000 (s + 1) on), planned at share P^1.04 (1.2's WINDOW
 * SIZING for kind 4), ages ascending; nothing else.
 */
static void
seg_window(SbfWindow *w, const SbfWinParams *p, const SbfKindOps *ops,
		   const uint32_t *ages, const uint32_t *sizes, uint32_t n)
{
	double		share = pow(p->error_rate / p->buckets, 1.04);
	uint32_t	s;

	sbf_win_init(w, p, &g_alloc);
	w->flags = SBF_WIN_FLAG_STARTED;
	w->newest = T0;
	w->segs = g_alloc.alloc(sizeof(SbfWinSeg) * n, g_alloc.ctx);
	w->segcap = n;
	for (s = 0; s < n; s++)
	{
		SbfWinSeg  *seg = &w->segs[s];
		uint64_t   *h = malloc(sizeof(uint64_t) * sizes[s]);
		uint8_t    *data;
		uint32_t	i;

		for (i = 0; i < sizes[s]; i++)
			h[i] = elem(7000000ULL * (s + 1) + i);
		qsort(h, sizes[s], sizeof(uint64_t), unit_cmp_u64);
		memset(seg, 0, sizeof(*seg));
		CHECK(ops->plan(sizes[s], share, &seg->g, &seg->bytes) == SBF_OK);
		data = g_alloc.alloc((size_t) seg->bytes, g_alloc.ctx);
		CHECK(ops->build(&seg->g, data, h, sizes[s], &g_alloc) == SBF_OK);
		seg->ops = ops;
		seg->age = (uint16_t) ages[s];
		seg->count = sizes[s];
		seg->bits = data;
		seg->owned = true;
		seg->fpr = sbf_win_segment_fpr(seg);
		free(h);
	}
	w->nsegs = n;
}

/*
 * A 1.2 window: buckets of ages 0, 2 and 5 as windowed bloom segments (kind
 * 4), and 3 pairs at age 1.
 */
static void
v3_window(SbfWindow *w, const SbfWinParams *p)
{
	static const uint32_t ages[3] = {0, 2, 5};
	static const uint32_t sizes[3] = {500, 80, 2000};
	uint64_t	s;

	seg_window(w, p, &sbf_kind_wbloom_ops, ages, sizes, 3);
	for (s = 0; s < 3; s++)
		CHECK(sbf_win_add(w, T0 - 1, elem(9000000ULL + s)) == SBF_OK);
	CHECK(sbf_win_settle(w) == SBF_OK);	/* encode_v3 reads w's pairs */
}

/* Answers of a view for ids [lo, lo + n) at every max_age, into out. */
static void
answers(const SbfWinView *v, uint64_t lo, uint32_t n, uint8_t *out)
{
	uint32_t	i;
	int64_t		a;

	for (i = 0; i < n; i++)
		for (a = 0; a < 7; a++)
			out[(size_t) i * 7 + (size_t) a] = sbf_win_contains(v, elem(lo + i), a);
}

/* A version-3 value validates, answers as 1.2 did, and is written as version 4, kind 4. */
static void
version3_read_and_relabelled(void)
{
	SbfWinParams p = {DAY, 10, 0.01};
	SbfWindow	w;
	SbfWindow	r;
	SbfFilter	f;
	SbfWinView	v3;
	SbfWinView	v4;
	SbfView		gv;
	size_t		len;
	uint8_t    *buf;
	uint8_t    *ans3 = malloc(60000 * 7);
	uint8_t    *ans4 = malloc(60000 * 7);
	uint32_t	kinds[5];
	uint32_t	j;

	v3_window(&w, &p);
	buf = encode_v3(&w, &len);
	CHECK(sbf_validate(buf, len, &gv) == SBF_OK && gv.version == 3);
	CHECK(sbf_view_windowed(&gv));
	CHECK(sbf_win_validate(buf, len, &v3) == SBF_OK && v3.version == 3);
	/* members (ids of the three segments, the pairs) and non-members */
	answers(&v3, 7000000, 20000, ans3);
	answers(&v3, 14000000, 20000, ans3 + 20000 * 7);
	answers(&v3, 1ULL << 41, 20000, ans3 + 40000 * 7);
	for (j = 0; j < 500; j++)
		CHECK(sbf_win_contains(&v3, elem(7000000 + j), 0));
	for (j = 0; j < 2000; j++)
		CHECK(sbf_win_contains(&v3, elem(21000000 + j), 5));
	CHECK(sbf_win_contains(&v3, elem(9000000), 1) && !sbf_win_contains(&v3, elem(9000000), 0));

	CHECK(sbf_win_load(&r, &v3, &g_alloc) == SBF_OK);
	CHECK(win_encode_valid(0, &r, &f, &v4));
	CHECK(v4.version == 4 && v4.nsegments == 3 && v4.npairs == 3);
	count_kinds(&v4, kinds);
	CHECK(kinds[SBF_KIND_WBLOOM] == 3);
	answers(&v4, 7000000, 20000, ans4);
	answers(&v4, 14000000, 20000, ans4 + 20000 * 7);
	answers(&v4, 1ULL << 41, 20000, ans4 + 40000 * 7);
	CHECK(memcmp(ans3, ans4, 60000 * 7) == 0);
	CHECK(fabs(sbf_win_fpr_bound(&v3) - sbf_win_fpr_bound(&v4)) < 1e-15);
	CHECK(sbf_win_cardinality(&v3) == sbf_win_cardinality(&v4));
	{
		/* no bit moved: each data area is the version-3 one */
		size_t		o3 = v3.bits_offset;
		size_t		o4 = v4.bits_offset;

		for (j = 0; j < 3; j++)
		{
			SbfWinSeg	s3;
			SbfWinSeg	s4;

			sbf_win_read_segment(&v3, j, &o3, &s3);
			sbf_win_read_segment(&v4, j, &o4, &s4);
			CHECK(s3.bytes == s4.bytes && memcmp(s3.bits, s4.bits, (size_t) s3.bytes) == 0);
		}
	}
	/* the relabelled window grows: the new bucket gets a format-4 kind */
	sbf_win_free(&r);
	CHECK(sbf_win_load(&r, &v4, &g_alloc) == SBF_OK);
	for (j = 0; j < 3000; j++)
		CHECK(sbf_win_add(&r, T0 + 1, elem(30000000ULL + j)) == SBF_OK);
	CHECK(sbf_win_slide(&r, T0 + 2) == SBF_OK);
	{
		SbfFilter	g;
		SbfWinView	vg;

		CHECK(win_encode_valid(0, &r, &g, &vg));
		SbfKindGeom kg;
		uint64_t	kb;

		count_kinds(&vg, kinds);
		/* the new bucket's kind: the smallest at its size and share */
		CHECK(sbf_win_kind_choose(3000, pow(0.01 / 10, 1.04), 0, &kg, &kb) == SBF_OK);
		CHECK(kinds[SBF_KIND_WBLOOM] == 3 + (kg.kind == SBF_KIND_WBLOOM) &&
			  kinds[SBF_KIND_FUSED] == (kg.kind == SBF_KIND_FUSED));
		for (j = 0; j < 3000; j++)
			CHECK(sbf_win_contains(&vg, elem(30000000ULL + j), 1));
		for (j = 0; j < 500; j++)
			CHECK(sbf_win_contains(&vg, elem(7000000 + j), 2));
		sbf_filter_free(&g);
	}
	sbf_win_free(&r);
	sbf_filter_free(&f);
	sbf_win_free(&w);
	free(buf);
	free(ans3);
	free(ans4);
}

/* Fisher-Yates with the test's generator. */
static void
shuffle(SbfWinPair *a, size_t n, uint64_t seed)
{
	size_t		i;

	for (i = n; i > 1; i--)
	{
		size_t		j = (size_t) (rnd(&seed) % i);
		SbfWinPair	t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* The same pairs in any order (and repeated) give the same bytes; unions commute. */
static void
same_bytes_any_order(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	size_t		n = 60000;
	SbfWinPair *base = malloc(sizeof(SbfWinPair) * n);
	SbfWinPair *pairs = malloc(sizeof(SbfWinPair) * n);
	SbfFilter	f[3];
	uint64_t	s = 42;
	size_t		i;
	int			t;

	for (i = 0; i < n; i++)
	{
		/* heavy-tailed buckets, some elements repeated in several */
		base[i].hash = elem(rnd(&s) % 40000);
		base[i].bucket = T0 - (int64_t) ((rnd(&s) % 30) * (rnd(&s) % 30) / 30);
	}
	for (t = 0; t < 3; t++)
	{
		SbfWindow	w;
		SbfWinView	v;
		size_t		m;

		memcpy(pairs, base, sizeof(SbfWinPair) * n);
		if (t > 0)
			shuffle(pairs, n, 7 + (uint64_t) t);
		m = sbf_win_pairs_normalize(pairs, n, T0, p.buckets);
		CHECK(sbf_win_from_pairs(&w, &p, T0, pairs, m, &g_alloc) == SBF_OK);
		CHECK(sbf_win_compact(&w, true) == SBF_OK);
		CHECK(win_encode_valid(0, &w, &f[t], &v));
		sbf_win_free(&w);
	}
	CHECK(f[0].len == f[1].len && memcmp(SBF_PAYLOAD(&f[0]), SBF_PAYLOAD(&f[1]), f[0].len) == 0);
	CHECK(f[0].len == f[2].len && memcmp(SBF_PAYLOAD(&f[0]), SBF_PAYLOAD(&f[2]), f[0].len) == 0);
	for (t = 0; t < 3; t++)
		sbf_filter_free(&f[t]);
	free(base);
	free(pairs);
}

/* Two windows of one bucket each: a || b == b || a, both segments kept, f || f == f. */
static void
union_keeps_both_segments(void)
{
	static const uint32_t sa[2] = {3000, 100};
	static const uint32_t sb[2] = {2500, 90};
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	a;
	SbfWindow	b;
	SbfFilter	fa;
	SbfFilter	fb;
	SbfFilter	ab;
	SbfFilter	ba;
	SbfFilter	aa;
	SbfWinView	va;
	SbfWinView	vb;
	SbfWinView	v;
	uint32_t	i;

	/* fused segments (2^-f, half the share) let two fit a bucket; kind 4 would not */
	g_avoid = AVOID_WBLOOM;
	agg_window(&a, &p, sa, 2, 0);
	agg_window(&b, &p, sb, 2, 500000);
	g_avoid = 0;
	CHECK(win_encode_valid(0, &a, &fa, &va));
	CHECK(win_encode_valid(0, &b, &fb, &vb));
	CHECK(sbf_win_union(&a, &vb) == SBF_OK);
	CHECK(win_encode_valid(0, &a, &ab, &v));
	CHECK(v.nsegments == 4);
	for (i = 0; i < 3000; i++)
		CHECK(sbf_win_contains(&v, elem(i), 0));
	for (i = 0; i < 2500; i++)
		CHECK(sbf_win_contains(&v, elem(500000 + i), 0));
	for (i = 0; i < 90; i++)
		CHECK(sbf_win_contains(&v, elem(1500000 + i), 1));
	CHECK(sbf_win_union(&b, &va) == SBF_OK);
	CHECK(win_encode_valid(0, &b, &ba, &v));
	CHECK(ab.len == ba.len && memcmp(SBF_PAYLOAD(&ab), SBF_PAYLOAD(&ba), ab.len) == 0);
	sbf_win_free(&a);
	sbf_win_free(&b);
	CHECK(sbf_win_load(&a, &va, &g_alloc) == SBF_OK);
	CHECK(sbf_win_union(&a, &va) == SBF_OK);
	CHECK(win_encode_valid(0, &a, &aa, &v));
	CHECK(aa.len == fa.len && memcmp(SBF_PAYLOAD(&aa), SBF_PAYLOAD(&fa), aa.len) == 0);
	sbf_win_free(&a);
	sbf_filter_free(&fa);
	sbf_filter_free(&fb);
	sbf_filter_free(&ab);
	sbf_filter_free(&ba);
	sbf_filter_free(&aa);
}

/* One pass of lookups_match_reference: kinds in avoid left out, small buckets of kind small. */
static void
lookups_match_reference_of(unsigned avoid, uint8_t small)
{
	SbfWinParams p = {DAY, 200, 0.05};
	uint32_t	sizes[200];
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint32_t	kinds[5];
	uint32_t	a;
	uint32_t	i;
	uint32_t	bad = 0;

	for (a = 0; a < 200; a++)
		sizes[a] = a % 20 == 0 ? 6000 : a % 3 == 0 ? 400 : 20 + a % 50;
	g_avoid = avoid;
	agg_window(&w, &p, sizes, 200, 0);
	g_avoid = 0;
	CHECK(win_encode_valid(0, &w, &f, &v));
	count_kinds(&v, kinds);
	CHECK(v.nsegments > 64 && kinds[small] > 0 && kinds[SBF_KIND_FUSED] > 0);
	for (i = 0; i < 20000; i++)
	{
		uint64_t	h = i % 2 ? elem(1000000ULL * (i % 200) + i % 20) : elem((1ULL << 42) + i);
		int64_t		max_age = (int64_t) (i % 210);
		bool		want = false;
		size_t		off = v.bits_offset;
		uint32_t	j;

		for (j = 0; j < v.nsegments; j++)
		{
			SbfWinSeg	seg;

			sbf_win_read_segment(&v, j, &off, &seg);
			if (seg.age <= max_age && sbf_win_segment_has(&seg, h))
				want = true;
		}
		for (j = 0; j < v.npairs; j++)
			if (sbf_load64(v.buf + v.pairs_offset + (size_t) j * 8) == h &&
				sbf_load16(v.buf + v.pairs_offset + (size_t) v.npairs * 8 + (size_t) j * 2) <= max_age)
				want = true;
		bad += sbf_win_contains(&v, h, max_age) != want;
		bad += (sbf_win_count_contained(&v, &h, 1, max_age) == 1) != want;
	}
	CHECK(bad == 0);
	sbf_filter_free(&f);
	sbf_win_free(&w);
}


/*
 * More segments than one lookup chunk, of mixed kinds (fused and kind 4 as
 * written; fused and blocked with kind 4 avoided): lookups match a reference.
 */
static void
lookups_match_reference(void)
{
	lookups_match_reference_of(0, SBF_KIND_WBLOOM);
	lookups_match_reference_of(AVOID_WBLOOM, SBF_KIND_BLOCKED);
}

/* A copy of a payload with byte at off set to x, validated. */
static SbfStatus
validate_with(const SbfFilter *f, size_t off, uint8_t x, size_t cut)
{
	uint8_t    *b = malloc(f->len);
	SbfWinView	v;
	SbfStatus	st;

	memcpy(b, SBF_PAYLOAD(f), f->len);
	b[off] = x;
	st = sbf_win_validate(b, f->len - cut, &v);
	free(b);
	return st;
}

/* Crafted version-4 values: what section 9 lists is refused. */
static void
crafted_v4_refused(void)
{
	static const uint32_t sizes[2] = {3000, 100};
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	SbfView		gv;
	const uint8_t *b;
	size_t		e0 = SBF_WIN_HEADER_BYTES;
	size_t		e1 = SBF_WIN_HEADER_BYTES + SBF_WIN4_SEGDIR_BYTES;
	uint32_t	kinds[5];

	g_avoid = AVOID_WBLOOM;		/* a fused and a blocked entry to craft */
	agg_window(&w, &p, sizes, 2, 0);
	g_avoid = 0;
	CHECK(win_encode_valid(0, &w, &f, &v));
	b = SBF_PAYLOAD(&f);
	count_kinds(&v, kinds);
	CHECK(v.nsegments == 2 && b[e0 + 16] == SBF_KIND_FUSED && b[e1 + 16] == SBF_KIND_BLOCKED);
	CHECK(validate_with(&f, 0, 4, 0) == SBF_OK);
	/* WINDOWED clear: not windowed; and the windowed reader refuses it */
	CHECK(validate_with(&f, 1, b[1] & 0x7F, 0) == SBF_E_FLAGS);
	{
		uint8_t    *c = malloc(f.len);

		memcpy(c, b, f.len);
		c[1] &= 0x7F;
		CHECK(!sbf_is_window(c, f.len));
		CHECK(sbf_validate(c, f.len, &gv) != SBF_OK);
		free(c);
	}
	CHECK(validate_with(&f, 1, b[1] | 0x02, 0) == SBF_E_FLAGS);
	CHECK(validate_with(&f, 0, 5, 0) != SBF_OK);
	/* entry fields: reserved, kind 1 and unknown kinds, descriptor's reserved */
	CHECK(validate_with(&f, e0 + 2, 1, 0) == SBF_E_SEGMENT);
	CHECK(validate_with(&f, e0 + 16, SBF_KIND_BLOOM, 0) == SBF_E_SEGMENT);
	CHECK(validate_with(&f, e1 + 16, SBF_KIND_BLOOM, 0) == SBF_E_SEGMENT);
	CHECK(validate_with(&f, e0 + 16, 9, 0) == SBF_E_SEGMENT);
	CHECK(validate_with(&f, e0 + 8 + 13, 1, 0) == SBF_E_SEGMENT);
	/* fused: seed number 64, arity 5; blocked: a nonzero arity */
	CHECK(validate_with(&f, e0 + 8 + 12, 64, 0) == SBF_E_SEGMENT);
	CHECK(validate_with(&f, e0 + 8 + 10, 5, 0) == SBF_E_SEGMENT);
	CHECK(validate_with(&f, e1 + 8 + 10, 3, 0) == SBF_E_SEGMENT);
	/* another width: the areas no longer fit the length */
	CHECK(validate_with(&f, e0 + 8 + 9, (uint8_t) (b[e0 + 8 + 9] + 1), 0) != SBF_OK);
	/* ages out of order, or past B */
	CHECK(validate_with(&f, e0, 2, 0) == SBF_E_WINDOW);
	CHECK(validate_with(&f, e1, 30, 0) == SBF_E_SEGMENT);
	/* both in one bucket in the wrong order, or over its budget */
	CHECK(validate_with(&f, e1, 0, 0) != SBF_OK);
	CHECK(validate_with(&f, 32 + 7, 0x3E, 0) == SBF_E_WINDOW);	/* e ~ 1e-9 */
	/* truncated */
	CHECK(validate_with(&f, 0, 4, 1) != SBF_OK);
	/* a blocked segment whose lines are full: over the budget */
	{
		uint8_t    *c = malloc(f.len);
		size_t		off = v.bits_offset;
		SbfWinSeg	seg;

		memcpy(c, b, f.len);
		sbf_win_read_segment(&v, 0, &off, &seg);
		sbf_win_read_segment(&v, 1, &off, &seg);
		memset(c + (seg.bits - b), 0xFF, (size_t) seg.bytes);
		CHECK(sbf_win_validate(c, f.len, &v) == SBF_E_WINDOW);
		free(c);
	}
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/* A blocked area of 64 lines or more starts at 60 (mod 64), its zero padding checked. */
static void
blocked_area_padding(void)
{
	static const uint32_t ages[2] = {0, 1};
	static const uint32_t sizes[2] = {3000, 5};
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	SbfWinSeg	seg;
	size_t		off;
	size_t		start;
	uint32_t	i;

	seg_window(&w, &p, &sbf_kind_blocked_ops, ages, sizes, 2);
	CHECK(win_encode_valid(0, &w, &f, &v));
	off = v.bits_offset;
	sbf_win_read_segment(&v, 0, &off, &seg);
	start = (size_t) (seg.bits - v.buf);
	CHECK(seg.g.kind == SBF_KIND_BLOCKED && seg.g.size >= SBF_BLOCKED_ALIGN_LINES);
	CHECK(start % 64 == 60 && start > v.bits_offset);
	for (i = 0; i < 3000; i++)
		CHECK(sbf_win_contains(&v, elem(7000000ULL + i), 0));
	for (i = 0; i < 5; i++)
		CHECK(sbf_win_contains(&v, elem(14000000ULL + i), 1) &&
			  !sbf_win_contains(&v, elem(14000000ULL + i), 0));
	CHECK(validate_with(&f, start - 1, 1, 0) == SBF_E_BITS);
	CHECK(validate_with(&f, v.bits_offset, 1, 0) == SBF_E_BITS);
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

int
main(void)
{
	RUN(no_false_negatives_by_kind);
	RUN(rate_within_bucket_budget);
	RUN(version3_read_and_relabelled);
	RUN(same_bytes_any_order);
	RUN(union_keeps_both_segments);
	RUN(lookups_match_reference);
	RUN(crafted_v4_refused);
	RUN(blocked_area_padding);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
