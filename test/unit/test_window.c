/*
 * test_window.c
 *	  Unit tests of windowed filters (sbf_window.c, sbf_window_write.c), built
 *	  with AddressSanitizer and UndefinedBehaviorSanitizer like the others.
 *	  Prints "ok - name" / "not ok - name" and a final count; deterministic.
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

/* splitmix64: deterministic element hashes */
static uint64_t
rnd(uint64_t *s)
{
	uint64_t	z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
empty_window(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	SbfView		gv;

	CHECK(sbf_win_params_check(&p) == SBF_OK);
	sbf_win_init(&w, &p, &g_alloc);
	CHECK(win_encode_valid(4, &w, &f, &v));
	CHECK(f.len == SBF_WIN_HEADER_BYTES);
	CHECK(!sbf_win_contains(&v, elem(1), 29));
	/* the one validator dispatches the windowed form: version 4, WINDOWED */
	CHECK(sbf_validate(SBF_PAYLOAD(&f), f.len, &gv) == SBF_OK);
	CHECK(gv.version == 4 && (gv.flags & SBF_WIN_FLAG_WINDOWED) != 0);
	CHECK(sbf_view_windowed(&gv));
	/* and the segmented readers refuse it */
	CHECK(sbf_parse_prefix(SBF_PAYLOAD(&f), f.len, f.len, &gv) != SBF_OK);
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

static void
bucket_of_floors(void)
{
	CHECK(sbf_win_bucket_of(0, DAY) == 0);
	CHECK(sbf_win_bucket_of(DAY - 1, DAY) == 0);
	CHECK(sbf_win_bucket_of(DAY, DAY) == 1);
	CHECK(sbf_win_bucket_of(-1, DAY) == -1);
	CHECK(sbf_win_bucket_of(-DAY, DAY) == -1);
	CHECK(sbf_win_bucket_of(-DAY - 1, DAY) == -2);
}

/* Day sizes of a bursty user: most days 0..50, some 20,000, gaps. */
static uint32_t
day_size(uint32_t day)
{
	if (day % 11 == 3)
		return 20000;
	if (day % 7 == 5)
		return 0;
	return (day * 37) % 51;
}

/*
 * Live adds over 40 days into a 30-bucket window: every element of the last
 * 30 buckets is found with since at or before its bucket; elements of older
 * buckets are gone.
 */
static void
live_no_false_negatives_and_forgets(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint32_t	day;
	uint64_t	id = 0;
	uint64_t	first_id[41];
	uint32_t	missing = 0;
	uint32_t	old_found = 0;

	sbf_win_init(&w, &p, &g_alloc);
	for (day = 0; day < 40; day++)
	{
		uint32_t	i;

		first_id[day] = id;
		for (i = 0; i < day_size(day); i++)
			CHECK(sbf_win_add(&w, 20000 + day, elem(id++)) == SBF_OK);
	}
	first_id[40] = id;
	CHECK(win_encode_valid(4, &w, &f, &v));
	CHECK(v.newest == 20039);
	for (day = 0; day < 40; day++)
	{
		uint64_t	x;

		for (x = first_id[day]; x < first_id[day + 1]; x++)
		{
			bool		in_all = sbf_win_contains(&v, elem(x), sbf_win_max_age(&v, SBF_WIN_ALL));
			bool		in_since = sbf_win_contains(&v, elem(x), sbf_win_max_age(&v, 20000 + day));

			if (day >= 10)
				missing += !in_all + !in_since;
			else
				old_found += in_all;
		}
	}
	CHECK(missing == 0);
	/* older than the window: never added as far as the filter knows (FPR) */
	CHECK(old_found <= (first_id[10] - first_id[0]) / 50);
	CHECK(v.nsegments > 0);
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/* FPR of never-added probes for since windows of 1, 7 and 30 buckets. */
static void
fpr_within_error_rate(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint64_t	s = 42;
	uint32_t	day;
	int			lens[3] = {1, 7, 30};
	int			l;

	sbf_win_init(&w, &p, &g_alloc);
	for (day = 0; day < 30; day++)
	{
		uint32_t	i;

		for (i = 0; i < 3000; i++)
			CHECK(sbf_win_add(&w, day, rnd(&s)) == SBF_OK);
	}
	CHECK(sbf_win_compact(&w, true) == SBF_OK);
	CHECK(win_encode_valid(4, &w, &f, &v));
	CHECK(v.npairs == 0);
	CHECK(sbf_win_fpr_bound(&v) <= 0.01 * SBF_WIN_BUDGET_SLACK);
	for (l = 0; l < 3; l++)
	{
		uint64_t	q = 1ULL << 40;
		uint32_t	fp = 0;
		uint32_t	i;

		for (i = 0; i < 200000; i++)
			fp += sbf_win_contains(&v, elem(q + i), lens[l] - 1);
		fprintf(stderr, "  window %d buckets: fpr %.5f\n", lens[l], fp / 200000.0);
		CHECK(fp / 200000.0 <= 0.01);
	}
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/*
 * A compacted bucket of 1,000 or more costs at most 19 bits per element
 * (1.2: 18; format 4 writes a fused segment, whose small-set factor costs
 * more at 1,000 than the windowed bloom segment did: measured 18.85).
 */
static void
bits_per_element(void)
{
	uint32_t	sizes[3] = {1000, 5000, 20000};
	int			i;

	for (i = 0; i < 3; i++)
	{
		SbfWinParams p = {DAY, 30, 0.01};
		SbfWindow	w;
		SbfFilter	f;
		SbfWinView	v;
		uint32_t	j;

		sbf_win_init(&w, &p, &g_alloc);
		for (j = 0; j < sizes[i]; j++)
			CHECK(sbf_win_add(&w, 7, elem(j + 1000000ULL * i)) == SBF_OK);
		CHECK(sbf_win_slide(&w, 8) == SBF_OK);
		CHECK(win_encode_valid(4, &w, &f, &v));
		fprintf(stderr, "  %u elements: %.2f bits each (live, closed)\n", sizes[i],
				(f.len + 4) * 8.0 / sizes[i]);
		if (sizes[i] <= SBF_WIN_OPEN_MAX)
			CHECK((f.len + 4) * 8.0 / sizes[i] <= 19.0);
		CHECK((f.len + 4) * 8.0 / sizes[i] <= 18.0 * 1.3);
		sbf_filter_free(&f);
		sbf_win_free(&w);
	}
}

/* A repeat moves an element to its newest bucket: it stays as long as that one. */
static void
repeat_keeps_newest(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint32_t	i;

	/* a few pairs (they stay exact) and a bucket of 200 (compacted) */
	sbf_win_init(&w, &p, &g_alloc);
	for (i = 0; i < 202; i++)
		CHECK(sbf_win_add(&w, i < 2 ? 101 : 100, elem(i)) == SBF_OK);
	for (i = 0; i < 202; i += 2)
		CHECK(sbf_win_add(&w, 120, elem(i)) == SBF_OK);
	CHECK(sbf_win_slide(&w, 145) == SBF_OK);
	CHECK(win_encode_valid(4, &w, &f, &v));
	for (i = 0; i < 202; i += 2)
		CHECK(sbf_win_contains(&v, elem(i), sbf_win_max_age(&v, 120)));
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/* The newest bucket compacts at SBF_WIN_OPEN_MAX pairs, before any slide. */
static void
open_bucket_compacts(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint32_t	i;

	sbf_win_init(&w, &p, &g_alloc);
	for (i = 0; i < SBF_WIN_OPEN_MAX + 10; i++)
		CHECK(sbf_win_add(&w, 7, elem(i)) == SBF_OK);
	CHECK(win_encode_valid(4, &w, &f, &v));
	CHECK(v.nsegments == 1 && v.npairs < SBF_WIN_OPEN_MAX);
	CHECK(f.len * 8.0 / (SBF_WIN_OPEN_MAX + 10) < 24.0);
	for (i = 0; i < SBF_WIN_OPEN_MAX + 10; i++)
		CHECK(sbf_win_contains(&v, elem(i), 0));
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/* A small window is 40 bytes plus 10 per element-bucket. */
static void
small_window_size(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint32_t	i;

	sbf_win_init(&w, &p, &g_alloc);
	for (i = 0; i < 100; i++)
		CHECK(sbf_win_add(&w, i % 30 == 0 ? 29 : i % 30, elem(i)) == SBF_OK);
	CHECK(win_encode_valid(4, &w, &f, &v));
	CHECK(f.len + 4 <= 64 + 10 * 100);
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/* Builds the window of ids [lo, hi) spread over days, compacted. */
static void
build_avoiding(SbfWindow *w, uint64_t lo, uint64_t hi, int64_t day0, unsigned avoid)
{
	SbfWinParams p = {DAY, 30, 0.01};
	uint64_t	x;

	sbf_win_init(w, &p, &g_alloc);
	w->avoid_kinds = avoid;
	for (x = lo; x < hi; x++)
		(void) sbf_win_add(w, day0 + (int64_t) (x % 5) * 3, elem(x));
}

/* The window of build_avoiding, every kind allowed (as the extension writes). */
static void
build(SbfWindow *w, uint64_t lo, uint64_t hi, int64_t day0)
{
	build_avoiding(w, lo, hi, day0, 0);
}

static void
union_symmetric(void)
{
	SbfWindow	a,
				b,
				u1,
				u2;
	SbfFilter	fa,
				fb,
				g1,
				g2;
	SbfWinView	va,
				vb,
				w1,
				w2;
	uint64_t	x;
	uint32_t	missing = 0;

	build(&a, 0, 300, 100);
	build(&b, 200, 700, 104);
	CHECK(win_encode_valid(4, &a, &fa, &va));
	CHECK(win_encode_valid(4, &b, &fb, &vb));
	CHECK(sbf_win_load(&u1, &va, &g_alloc) == SBF_OK);
	CHECK(sbf_win_union(&u1, &vb) == SBF_OK);
	CHECK(sbf_win_load(&u2, &vb, &g_alloc) == SBF_OK);
	CHECK(sbf_win_union(&u2, &va) == SBF_OK);
	CHECK(win_encode_valid(4, &u1, &g1, &w1));
	CHECK(win_encode_valid(4, &u2, &g2, &w2));
	CHECK(g1.len == g2.len && memcmp(SBF_PAYLOAD(&g1), SBF_PAYLOAD(&g2), g1.len) == 0);
	CHECK(w1.newest == 116);
	for (x = 0; x < 700; x++)
	{
		int64_t		bucket = (x < 300 ? 100 : 104) + (int64_t) (x % 5) * 3;

		missing += !sbf_win_contains(&w1, elem(x), sbf_win_max_age(&w1, bucket));
	}
	CHECK(missing == 0);
	sbf_filter_free(&g1);
	sbf_filter_free(&g2);
	sbf_win_free(&u1);
	sbf_win_free(&u2);
	/* f || f is f */
	CHECK(sbf_win_load(&u1, &va, &g_alloc) == SBF_OK);
	CHECK(sbf_win_union(&u1, &va) == SBF_OK);
	CHECK(win_encode_valid(4, &u1, &g1, &w1));
	CHECK(g1.len == fa.len && memcmp(SBF_PAYLOAD(&g1), SBF_PAYLOAD(&fa), fa.len) == 0);
	sbf_filter_free(&g1);
	sbf_win_free(&u1);
	sbf_filter_free(&fa);
	sbf_filter_free(&fb);
	sbf_win_free(&a);
	sbf_win_free(&b);
}

/* Adds ids [lo, hi) at bucket b. */
static void
add_range(SbfWindow *w, uint64_t lo, uint64_t hi, int64_t b)
{
	uint64_t	x;

	for (x = lo; x < hi; x++)
		CHECK(sbf_win_add(w, b, elem(x)) == SBF_OK);
}

/* The distinct count of an encoded window (or -1 when it does not validate). */
static double
card_of(SbfWindow *w)
{
	SbfFilter	f;
	SbfWinView	v;
	double		c = -1.0;

	if (win_encode_valid(4, w, &f, &v))
		c = sbf_win_cardinality(&v);
	sbf_filter_free(&f);
	return c;
}

/*
 * # counts an element once, in its newest bucket: 1,000 elements on day 1,
 * compacted by the slide to day 2, the same 1,000 again on day 3 are 1,000
 * (counting each compacted bucket's elements again gave 2,000).
 */
static void
count_repeats_once(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	double		c;

	sbf_win_init(&w, &p, &g_alloc);
	add_range(&w, 0, 1000, 1);
	CHECK(sbf_win_slide(&w, 2) == SBF_OK);
	CHECK(w.nsegs == 1 && w.npairs == 0);
	add_range(&w, 0, 1000, 3);
	c = card_of(&w);
	fprintf(stderr, "  1,000 twice: # = %.0f\n", c);
	CHECK(c >= 970 && c <= 1000);
	/* and again two days later, once more compacted: still 1,000 */
	add_range(&w, 0, 1000, 5);
	c = card_of(&w);
	CHECK(c >= 940 && c <= 1000);
	/* 500 new ones and 500 repeats of day 1 at day 7: 1,500 */
	add_range(&w, 500, 1500, 7);
	c = card_of(&w);
	fprintf(stderr, "  and 500 new: # = %.0f\n", c);
	CHECK(c >= 1440 && c <= 1500);
	/* the older segments now count (nearly) nothing, and still validate */
	CHECK(win_encode_valid(4, &w, &f, &v));
	{
		size_t		off = v.bits_offset;
		uint32_t	j;
		uint32_t	zero = 0;

		for (j = 0; j < v.nsegments; j++)
		{
			SbfWinSeg	seg;

			sbf_win_read_segment(&v, j, &off, &seg);
			zero += seg.count <= 30;
		}
		CHECK(v.nsegments >= 3 && zero >= 2);
	}
	/* every element still answers true since its newest bucket */
	{
		uint64_t	x;
		uint32_t	missing = 0;

		for (x = 0; x < 1500; x++)
			missing += !sbf_win_contains(&v, elem(x), sbf_win_max_age(&v, x < 500 ? 5 : 7));
		CHECK(missing == 0);
	}
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/* Unions count an element once too, and stay symmetric and idempotent. */
static void
count_union_once(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	a,
				b,
				u;
	SbfFilter	fa,
				fb,
				g1,
				g2;
	SbfWinView	va,
				vb,
				w1,
				w2;
	double		c;

	/* a: 1,000 on day 1, compacted; b: a plus the same 1,000 on day 3 */
	sbf_win_init(&a, &p, &g_alloc);
	add_range(&a, 0, 1000, 1);
	CHECK(sbf_win_slide(&a, 2) == SBF_OK);
	CHECK(win_encode_valid(4, &a, &fa, &va));
	CHECK(sbf_win_load(&b, &va, &g_alloc) == SBF_OK);
	add_range(&b, 0, 1000, 3);
	CHECK(win_encode_valid(4, &b, &fb, &vb));
	CHECK(sbf_win_load(&u, &va, &g_alloc) == SBF_OK);
	CHECK(sbf_win_union(&u, &vb) == SBF_OK);
	CHECK(win_encode_valid(4, &u, &g1, &w1));
	/* a || b is b: the day-1 segment with b's count, once */
	CHECK(g1.len == fb.len && memcmp(SBF_PAYLOAD(&g1), SBF_PAYLOAD(&fb), fb.len) == 0);
	sbf_win_free(&u);
	CHECK(sbf_win_load(&u, &vb, &g_alloc) == SBF_OK);
	CHECK(sbf_win_union(&u, &va) == SBF_OK);
	CHECK(win_encode_valid(4, &u, &g2, &w2));
	CHECK(g2.len == g1.len && memcmp(SBF_PAYLOAD(&g1), SBF_PAYLOAD(&g2), g1.len) == 0);
	sbf_filter_free(&g1);
	sbf_filter_free(&g2);
	sbf_win_free(&u);
	sbf_win_free(&b);
	sbf_filter_free(&fb);

	/* b: only the same 1,000 on day 3 (pairs): a || b counts them once */
	sbf_win_init(&b, &p, &g_alloc);
	add_range(&b, 0, 1000, 3);
	CHECK(win_encode_valid(4, &b, &fb, &vb));
	CHECK(sbf_win_load(&u, &va, &g_alloc) == SBF_OK);
	CHECK(sbf_win_union(&u, &vb) == SBF_OK);
	c = card_of(&u);
	fprintf(stderr, "  a || b: # = %.0f\n", c);
	CHECK(c >= 970 && c <= 1000);
	sbf_win_free(&u);
	sbf_win_free(&b);
	sbf_filter_free(&fb);

	/*
	 * b: the 1,000 as pairs of day 0 (older than a's segment): a's segment
	 * answers for them since as early, so the pairs are dropped
	 */
	sbf_win_init(&b, &p, &g_alloc);
	add_range(&b, 0, 1000, 0);
	CHECK(win_encode_valid(4, &b, &fb, &vb));
	CHECK(sbf_win_load(&u, &va, &g_alloc) == SBF_OK);
	CHECK(sbf_win_union(&u, &vb) == SBF_OK);
	CHECK(win_encode_valid(4, &u, &g1, &w1));
	CHECK(w1.npairs == 0 && g1.len == fa.len);
	CHECK(sbf_win_cardinality(&w1) == 1000.0);
	{
		uint64_t	x;
		uint32_t	missing = 0;

		for (x = 0; x < 1000; x++)
			missing += !sbf_win_contains(&w1, elem(x), sbf_win_max_age(&w1, 0));
		CHECK(missing == 0);
	}
	sbf_filter_free(&g1);
	sbf_win_free(&u);
	sbf_win_free(&b);
	sbf_filter_free(&fb);
	sbf_win_free(&a);
	sbf_filter_free(&fa);
}

/* Two windows of pairs only unite (no segment on either side to reconcile). */
static void
union_pairs_only(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	a,
				b;
	SbfFilter	fb,
				g;
	SbfWinView	vb,
				v;

	sbf_win_init(&a, &p, &g_alloc);
	sbf_win_init(&b, &p, &g_alloc);
	add_range(&a, 0, 5, 10);
	add_range(&b, 3, 9, 12);
	CHECK(win_encode_valid(4, &b, &fb, &vb));
	CHECK(sbf_win_union(&a, &vb) == SBF_OK);
	CHECK(win_encode_valid(4, &a, &g, &v));
	CHECK(v.nsegments == 0 && v.npairs == 9 && sbf_win_cardinality(&v) == 9.0);
	sbf_filter_free(&g);
	sbf_filter_free(&fb);
	sbf_win_free(&a);
	sbf_win_free(&b);
}

/* Whether every segment of v is of kind. */
static bool
segments_all_of(const SbfWinView *v, uint8_t kind)
{
	size_t		off = v->bits_offset;
	uint32_t	j;

	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(v, j, &off, &seg);
		if (seg.g.kind != kind)
			return false;
	}
	return true;
}

static void
union_incompatible_and_over_budget(void)
{
	SbfWinParams p7 = {DAY, 7, 0.01};
	SbfWindow	a,
				b,
				c;
	SbfFilter	fa,
				fb[3],
				fc;
	SbfWinView	va,
				vb,
				vc;
	uint32_t	i;
	uint32_t	k;

	build(&a, 0, 10, 5);
	CHECK(win_encode_valid(4, &a, &fa, &va));
	sbf_win_init(&c, &p7, &g_alloc);
	CHECK(sbf_win_add(&c, 5, elem(1)) == SBF_OK);
	CHECK(win_encode_valid(4, &c, &fc, &vc));
	CHECK(sbf_win_union(&a, &vc) == SBF_E_INCOMPATIBLE);
	sbf_win_free(&a);
	sbf_win_free(&c);
	/*
	 * different right-sized buckets of the same days (600 elements a bucket):
	 * a fused segment spends 2^-f <= P^1.04, so two fit a bucket's budget P
	 * and a third does not; kind 4, the smallest at this size and the one
	 * written, spends about P^1.04 (version 3's sizing), so a second is
	 * refused already
	 */
	for (k = 0; k < 2; k++)
	{
		unsigned	avoid = k == 0 ? 0 : (1u << SBF_KIND_WBLOOM) | (1u << SBF_KIND_BLOCKED);

		build_avoiding(&a, 0, 3000, 5, avoid);
		CHECK(sbf_win_compact(&a, true) == SBF_OK);
		for (i = 1; i <= 2; i++)
		{
			SbfStatus	want = i == 1 && k == 1 ? SBF_OK : SBF_E_OVER_BUDGET;

			build_avoiding(&b, 5000 * i, 5000 * i + 3000, 5, avoid);
			CHECK(sbf_win_compact(&b, true) == SBF_OK);
			CHECK(win_encode_valid(4, &b, &fb[i], &vb));
			CHECK(vb.nsegments == 5 && segments_all_of(&vb, k == 0 ? SBF_KIND_WBLOOM : SBF_KIND_FUSED));
			CHECK(sbf_win_union(&a, &vb) == want);
			sbf_win_free(&b);
		}
		/* a's segments borrow the inputs' bytes: freed after a */
		sbf_win_free(&a);
		sbf_filter_free(&fb[1]);
		sbf_filter_free(&fb[2]);
	}
	sbf_filter_free(&fa);
	sbf_filter_free(&fc);
}

/* The aggregate's path: same bytes in any order of the pairs. */
static void
pairs_order_free(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	enum {N = 6000};
	SbfWinPair *x = malloc(N * sizeof(SbfWinPair));
	SbfWinPair *y = malloc(N * sizeof(SbfWinPair));
	SbfWindow	w1,
				w2;
	SbfFilter	f1,
				f2;
	SbfWinView	v1,
				v2;
	size_t		n1,
				n2;
	uint64_t	s = 7;
	int			i;

	for (i = 0; i < N; i++)
	{
		x[i].hash = elem((uint64_t) (i % 4000));
		x[i].bucket = 1000 + (int64_t) (rnd(&s) % 40);
	}
	for (i = 0; i < N; i++)
		y[i] = x[N - 1 - i];
	n1 = sbf_win_pairs_normalize(x, N, 1039, 30);
	n2 = sbf_win_pairs_normalize(y, N, 1039, 30);
	CHECK(n1 == n2);
	CHECK(sbf_win_from_pairs(&w1, &p, 1039, x, n1, &g_alloc) == SBF_OK);
	CHECK(sbf_win_from_pairs(&w2, &p, 1039, y, n2, &g_alloc) == SBF_OK);
	CHECK(sbf_win_compact(&w1, true) == SBF_OK);
	CHECK(sbf_win_compact(&w2, true) == SBF_OK);
	CHECK(win_encode_valid(4, &w1, &f1, &v1));
	CHECK(win_encode_valid(4, &w2, &f2, &v2));
	CHECK(f1.len == f2.len && memcmp(SBF_PAYLOAD(&f1), SBF_PAYLOAD(&f2), f1.len) == 0);
	for (i = 0; i < (int) n1; i++)
		CHECK(sbf_win_contains(&v1, x[i].hash, sbf_win_max_age(&v1, x[i].bucket)));
	sbf_filter_free(&f1);
	sbf_filter_free(&f2);
	sbf_win_free(&w1);
	sbf_win_free(&w2);
	free(x);
	free(y);
}

/* The plain definition of a lookup: any pair or segment of age <= max_age. */
static bool
reference_contains(const SbfWinView *v, uint64_t h, int64_t max_age)
{
	const uint8_t *hashes = v->buf + v->pairs_offset;
	size_t		off = v->bits_offset;
	uint32_t	j;

	for (j = 0; j < v->npairs; j++)
		if (sbf_load64(hashes + (size_t) j * 8) == h &&
			sbf_load16(hashes + (size_t) v->npairs * 8 + (size_t) j * 2) <= max_age)
			return true;
	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(v, j, &off, &seg);
		if (seg.age <= max_age && sbf_win_segment_has(&seg, h))
			return true;
	}
	return false;
}

/*
 * Lookups (decoded once per call, probed hash function by hash function, in
 * chunks of 64 segments) answer as the plain definition: a 100-bucket window
 * of 100 segments and some pairs, members and probes never added, every
 * since, one hash at a time and many at once.
 */
static void
lookup_matches_reference(void)
{
	SbfWinParams p = {DAY, 100, 0.05};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint64_t   *probe = malloc(4000 * sizeof(uint64_t));
	int64_t		ages[6] = {-1, 0, 6, 63, 64, 99};
	uint32_t	day;
	uint32_t	i;
	int			a;
	uint32_t	differ = 0;
	uint32_t	hits = 0;

	sbf_win_init(&w, &p, &g_alloc);
	for (day = 0; day < 100; day++)
		add_range(&w, day * 300, day * 300 + (day % 9 == 4 ? 3 : 300), 500 + day);
	CHECK(win_encode_valid(4, &w, &f, &v));
	CHECK(v.nsegments > 64 && v.npairs > 0);
	for (i = 0; i < 4000; i++)
		probe[i] = i % 2 == 0 ? elem((uint64_t) i * 7) : elem((uint64_t) i + (1ULL << 40));
	for (a = 0; a < 6; a++)
	{
		size_t		expect = 0;

		for (i = 0; i < 4000; i++)
		{
			bool		r = reference_contains(&v, probe[i], ages[a]);

			expect += r;
			differ += r != sbf_win_contains(&v, probe[i], ages[a]);
		}
		differ += expect != sbf_win_count_contained(&v, probe, 4000, ages[a]);
		hits += (uint32_t) expect;
	}
	CHECK(differ == 0);
	CHECK(hits > 2000);
	sbf_filter_free(&f);
	sbf_win_free(&w);
	free(probe);
}

/* Every single-byte change of a valid value validates or is refused cleanly. */
static void
validator_rejects(void)
{
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint8_t    *buf;
	size_t		len;

	build(&w, 0, 400, 50);
	CHECK(sbf_win_compact(&w, true) == SBF_OK);
	(void) sbf_win_add(&w, 62, elem(99999));
	CHECK(win_encode_valid(4, &w, &f, &v));
	CHECK(v.nsegments > 0 && v.npairs > 0);
	buf = SBF_PAYLOAD(&f);
	len = f.len;
	CHECK(sbf_win_validate(buf, len - 1, &v) != SBF_OK);
	buf[1] ^= 0x02;
	CHECK(sbf_win_validate(buf, len, &v) == SBF_E_FLAGS);
	buf[1] ^= 0x02;
	buf[4] = 0;
	buf[5] = 0;					/* buckets 0 */
	CHECK(sbf_win_validate(buf, len, &v) == SBF_E_PARAM);
	buf[4] = 30;
	sbf_store64(buf + 16, 0);	/* width 0 */
	CHECK(sbf_win_validate(buf, len, &v) == SBF_E_PARAM);
	sbf_store64(buf + 16, (uint64_t) DAY);
	sbf_store64(buf + 24, (uint64_t) INT64_MAX / 2);	/* t * w overflows */
	CHECK(sbf_win_validate(buf, len, &v) == SBF_E_PARAM);
	sbf_store64(buf + 24, 62);
	CHECK(sbf_win_validate(buf, len, &v) == SBF_OK);
	/* a pair age >= B */
	sbf_store16(buf + len - 2, 30);
	CHECK(sbf_win_validate(buf, len, &v) == SBF_E_WINDOW);
	sbf_store16(buf + len - 2, 0);
	/* a segment age >= B */
	sbf_store16(buf + SBF_WIN_HEADER_BYTES, 30);
	CHECK(sbf_win_validate(buf, len, &v) == SBF_E_SEGMENT);
	sbf_store16(buf + SBF_WIN_HEADER_BYTES, 0);
	CHECK(sbf_win_validate(buf, len, &v) == SBF_OK);
	/* a segment over the bucket's budget: a smaller error_rate */
	sbf_store_double(buf + 32, 1e-6);
	CHECK(sbf_win_validate(buf, len, &v) == SBF_E_WINDOW);
	sbf_store_double(buf + 32, 0.01);
	CHECK(sbf_win_validate(buf, len, &v) == SBF_OK);
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

static void
unstarted_with_fields(void)
{
	uint8_t		buf[SBF_WIN_HEADER_BYTES] = {0};
	SbfWinView	v;

	buf[0] = 3;
	buf[2] = 1;
	buf[4] = 30;
	sbf_store64(buf + 16, (uint64_t) DAY);
	sbf_store_double(buf + 32, 0.01);
	CHECK(sbf_win_validate(buf, sizeof(buf), &v) == SBF_OK);
	sbf_store64(buf + 24, 5);
	CHECK(sbf_win_validate(buf, sizeof(buf), &v) == SBF_E_FLAGS);
}

/*
 * One step of add_many_equals_single: n hashes of elem(first + i * step)
 * (step 0: repeats of one; ids may repeat earlier ones) added at bucket b
 * to x one by one and to y in one batch.
 */
static void
add_both(SbfWindow *x, SbfWindow *y, int64_t b, uint64_t first, uint64_t step,
		 uint32_t n)
{
	uint64_t   *h = malloc((size_t) n * sizeof(uint64_t));
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		/* every seventh hash repeats one of the batch's own */
		h[i] = elem(first + (i % 7 == 6 ? i / 2 : i) * step);
		CHECK(sbf_win_add(x, b, h[i]) == SBF_OK);
	}
	CHECK(sbf_win_add_many(y, b, h, n) == SBF_OK);
	free(h);
}

/* Two windows have the same encoding. */
static void
same_windows(SbfWindow *x, SbfWindow *y)
{
	SbfFilter	fx;
	SbfFilter	fy;
	SbfWinView	vx;
	SbfWinView	vy;

	CHECK(win_encode_valid(4, x, &fx, &vx));
	CHECK(win_encode_valid(4, y, &fy, &vy));
	CHECK(fx.len == fy.len && memcmp(fx.base, fy.base, fx.len) == 0);
	sbf_filter_free(&fx);
	sbf_filter_free(&fy);
}

/*
 * sbf_win_add_many writes the bytes of one sbf_win_add per hash: in the
 * newest bucket (conversions at SBF_WIN_OPEN_MAX, repeats, hashes older
 * buckets hold), in an older bucket, and past the point where the newest
 * bucket has spent its budget and every further hash stays a pair (the
 * case that made single adds quadratic).
 */
static void
add_many_equals_single(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	x;
	SbfWindow	y;
	int64_t		d;

	sbf_win_init(&x, &p, &g_alloc);
	sbf_win_init(&y, &p, &g_alloc);
	for (d = 10; d < 14; d++)
		add_both(&x, &y, d, (uint64_t) d * 1000, 1, 3000);
	same_windows(&x, &y);
	/* repeats of every bucket, new hashes, a conversion or two */
	add_both(&x, &y, 15, 10000, 1, 12000);
	add_both(&x, &y, 15, 1, 3, 5000);
	/* an older bucket: ages lowered and new pairs at age 2 */
	add_both(&x, &y, 13, 500, 5, 6000);
	add_both(&x, &y, 15, 42, 0, 10);
	same_windows(&x, &y);
	/* the newest bucket past its budget: 62 segments, then pairs */
	add_both(&x, &y, 40, 1000000, 1, 76 * SBF_WIN_OPEN_MAX);
	add_both(&x, &y, 40, 1000000 + 76 * SBF_WIN_OPEN_MAX, 1, 9000);
	same_windows(&x, &y);
	CHECK(x.npairs > SBF_WIN_OPEN_MAX);
	sbf_win_free(&x);
	sbf_win_free(&y);
}

int
main(void)
{
	RUN(empty_window);
	RUN(bucket_of_floors);
	RUN(live_no_false_negatives_and_forgets);
	RUN(fpr_within_error_rate);
	RUN(bits_per_element);
	RUN(small_window_size);
	RUN(repeat_keeps_newest);
	RUN(open_bucket_compacts);
	RUN(union_symmetric);
	RUN(union_incompatible_and_over_budget);
	RUN(count_repeats_once);
	RUN(count_union_once);
	RUN(union_pairs_only);
	RUN(pairs_order_free);
	RUN(lookup_matches_reference);
	RUN(validator_rejects);
	RUN(unstarted_with_fields);
	RUN(add_many_equals_single);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
