/*
 * test_union.c
 *	  Unit tests of unions: idempotence, parameters, sbf_union_many in every order, the
 *	  error-rate budget, the crafted pair that must stay fast, and the canonical
 *	  exact result
 *	  (sbf_union.c, sbf_union_many.c).  Prints "ok - name" or "not ok - name" per case and one final
 *	  "N passed, N failed" line; exits non-zero on failure.  Everything is
 *	  deterministic: keys come from fixed sequences.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_union.h"
#include "sbf_hashset.h"
#include "sbf_internal.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

/* Union is idempotent: f UNION f = f byte for byte, however often. */
static void
union_idempotent(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfFilter	g;
	SbfView		v;
	int			i;

	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 5000);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.nsegments == 3);
	CHECK_ST(sbf_copy(&g, &v, 0, 0, &g_alloc), SBF_OK);
	for (i = 0; i < 10; i++)
	{
		sbf_filter_view(&f, &v);
		CHECK_ST(sbf_union(&f, &v), SBF_OK);
	}
	CHECK(f.len == g.len && memcmp(SBF_PAYLOAD(&f), SBF_PAYLOAD(&g), f.len) == 0);
	sbf_filter_free(&f);
	sbf_filter_free(&g);

	/*
	 * equal segments (growth 1) with an almost empty last one, which could
	 * OR into a full one within its design load: f UNION f is f's canonical
	 * form (equal segments ordered by their bits), which every further
	 * union with f keeps, with the same segments
	 */
	p = params(100, 0.01, 1, 1.0, 9);
	for (i = 1; i <= 20; i++)
	{
		SbfView		vf;
		uint32_t	nseg;

		CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
		add_keys(&f, 11, 0, 300 + i);
		CHECK_ST(validate_filter(&f, &vf), SBF_OK);
		nseg = vf.nsegments;
		CHECK_ST(sbf_copy(&g, &vf, 0, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_union(&g, &vf), SBF_OK);
		CHECK_ST(validate_filter(&g, &v), SBF_OK);
		CHECK(v.nsegments == nseg && g.len == f.len);
		{
			SbfFilter	h;
			SbfView		vg;

			CHECK_ST(sbf_copy(&h, &v, 0, 0, &g_alloc), SBF_OK);
			CHECK_ST(sbf_union(&h, &vf), SBF_OK);
			sbf_filter_view(&g, &vg);
			CHECK_ST(sbf_union(&h, &vg), SBF_OK);
			CHECK(h.len == g.len && memcmp(SBF_PAYLOAD(&h), SBF_PAYLOAD(&g), h.len) == 0);
			sbf_filter_free(&h);
		}
		sbf_filter_free(&f);
		sbf_filter_free(&g);
	}
}

/* Union: no false negatives, OR-merge, append, incompatibility, folding. */
static void
union_filters(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 12);
	SbfFilter	a;
	SbfFilter	b;
	SbfView		va;
	SbfView		vb;
	SbfSegment	s;
	uint64_t	i;
	uint64_t	missing = 0;
	double		ca;
	uint64_t	c1;

	/* equal geometry, counts fit: OR-merged into one segment */
	CHECK_ST(seg_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&b, &p, 0, &g_alloc), SBF_OK);
	add_keys(&a, 0, 0, 300);
	add_keys(&b, 2, 0, 300);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK(va.nsegments == 1);
	sbf_get_segment(&va, 0, &s);
	/* the count of an OR-merge is estimated from the fill */
	CHECK(s.count >= 570 && s.count <= 630);
	for (i = 0; i < 300; i++)
		missing += !sbf_contains_hash(&va, key(0, i)) + !sbf_contains_hash(&va, key(2, i));
	CHECK(missing == 0);
	ca = sbf_cardinality(&va);
	CHECK(fabs(ca - 600) < 600 * 3 * 1.04 / 64);
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/* counts do not fit: appended, then more adds go on */
	CHECK_ST(seg_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&b, &p, 0, &g_alloc), SBF_OK);
	add_keys(&a, 0, 0, 800);
	add_keys(&b, 2, 0, 2500);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK(vb.nsegments == 2);
	{
		SbfSegment	b1;

		sbf_get_segment(&vb, 1, &b1);
		c1 = b1.count;
		CHECK(c1 > 1400 && c1 <= 1500);
	}
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK(va.nsegments == 3);
	/* canonical order: by geometry, the fuller of equal ones first */
	sbf_get_segment(&va, 0, &s);
	CHECK(s.count == 1000 && s.capacity == 1000);
	sbf_get_segment(&va, 1, &s);
	CHECK(s.count <= 800 && s.count > 790 && s.capacity == 1000);
	sbf_get_segment(&va, 2, &s);
	CHECK(s.count == c1 && s.capacity == 2000);
	add_keys(&a, 3, 0, 3000);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	for (i = 0; i < 800; i++)
		missing += !sbf_contains_hash(&va, key(0, i));
	for (i = 0; i < 2500; i++)
		missing += !sbf_contains_hash(&va, key(2, i));
	for (i = 0; i < 3000; i++)
		missing += !sbf_contains_hash(&va, key(3, i));
	CHECK(missing == 0);
	sbf_filter_free(&b);

	/* incompatible parameters leave dst alone */
	{
		static const SbfParams other[] = {
			{1000, 0.02, 0.9, 2, 12},
			{1000, 0.01, 0.8, 2, 12},
			{1000, 0.01, 0.9, 4, 12},
		};
		size_t		j;

		for (j = 0; j < 3; j++)
		{
			uint8_t    *before = malloc(a.len);
			size_t		blen = a.len;

			memcpy(before, SBF_PAYLOAD(&a), a.len);
			CHECK_ST(seg_create(&b, &other[j], 0, &g_alloc), SBF_OK);
			CHECK_ST(validate_filter(&b, &vb), SBF_OK);
			CHECK_ST(sbf_union(&a, &vb), SBF_E_INCOMPATIBLE);
			CHECK(a.len == blen && memcmp(before, SBF_PAYLOAD(&a), blen) == 0);
			sbf_filter_free(&b);
			free(before);
		}
	}
	/* a different capacity and hll_p are compatible; hll_p folds down */
	{
		SbfParams	q = params(50, 0.01, 2, 0.9, 7);

		CHECK_ST(seg_create(&b, &q, 0, &g_alloc), SBF_OK);
		add_keys(&b, 4, 0, 100);
		CHECK_ST(validate_filter(&b, &vb), SBF_OK);
		CHECK_ST(sbf_union(&a, &vb), SBF_OK);
		CHECK_ST(validate_filter(&a, &va), SBF_OK);
		CHECK(va.hll_p == 7);
		CHECK(va.capacity == 1000);
		for (i = 0; i < 100; i++)
			missing += !sbf_contains_hash(&va, key(4, i));
		CHECK(missing == 0);
		sbf_filter_free(&b);
	}
	/* union with itself, through the same buffer */
	{
		size_t		before = a.len;
		uint32_t	nseg;

		sbf_filter_view(&a, &va);
		nseg = va.nsegments;
		CHECK_ST(sbf_union(&a, &va), SBF_OK);
		CHECK_ST(validate_filter(&a, &va), SBF_OK);
		CHECK(va.nsegments >= nseg && a.len >= before);
		for (i = 0; i < 800; i++)
			missing += !sbf_contains_hash(&va, key(0, i));
		CHECK(missing == 0);
	}
	CHECK(g_live == 1);
	sbf_filter_free(&a);
}

/*
 * sbf_union_many: the same bytes for every order of three inputs, collecting
 * only or merging; collecting is associative, so an aggregate may collect
 * in any grouping and merge once.
 */
static void
union_many_orders(void)
{
	static const int orders[6][3] = {
		{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}
	};
	SbfParams	p = params(500, 0.01, 2, 0.9, 10);
	SbfFilter	f[3];
	SbfView		v[3];
	int			mode;
	int			i;

	for (i = 0; i < 3; i++)
	{
		CHECK_ST(seg_create(&f[i], &p, 0, &g_alloc), SBF_OK);
		/* 200 (ORs with the others), 700 (two segments), 150 */
		add_keys(&f[i], 20 + i, 0, i == 1 ? 700 : 200 - 25 * i);
		CHECK_ST(validate_filter(&f[i], &v[i]), SBF_OK);
	}
	for (mode = 0; mode < 2; mode++)
	{
		SbfUnionSpec spec = {0.0, mode == 1, false};
		SbfFilter	first;
		int			o;

		for (o = 0; o < 6; o++)
		{
			SbfView		in[3];
			SbfFilter	u;
			SbfView		vu;
			uint64_t	missing = 0;
			uint64_t	j;
			double		bound;

			for (i = 0; i < 3; i++)
				in[i] = v[orders[o][i]];
			CHECK_ST(sbf_union_many(&u, in, 3, &spec, &bound, 0, &g_alloc), SBF_OK);
			CHECK_ST(validate_filter(&u, &vu), SBF_OK);
			CHECK(bound == sbf_fpr_budget(&vu));
			for (i = 0; i < 3; i++)
				for (j = 0; j < (i == 1 ? 700u : 200u - 25 * i); j++)
					missing += !sbf_contains_hash(&vu, key(20 + i, j));
			CHECK(missing == 0);
			if (o == 0)
				first = u;
			else
			{
				CHECK(same_bytes(&first, &u));
				sbf_filter_free(&u);
			}
		}
		/* merging ORs the three first segments into one: 2 segments */
		sbf_filter_view(&first, &v[0]);
		/*
		 * merging: f1's full first segment stays alone, f0 and f2 (350
		 * elements) OR into one of capacity 500, f1's second stays
		 */
		CHECK(v[0].nsegments == (mode == 1 ? 3 : 4));
		/* collecting twice, in another grouping, then merging: the same */
		if (mode == 0)
		{
			SbfUnionSpec merge = {0.0, true, false};
			SbfFilter	ab;
			SbfFilter	m1;
			SbfFilter	m2;
			SbfView		in[2];

			sbf_filter_view(&f[0], &in[0]);
			sbf_filter_view(&f[1], &in[1]);
			CHECK_ST(sbf_union_many(&ab, in, 2, &spec, NULL, 0, &g_alloc), SBF_OK);
			sbf_filter_view(&ab, &in[0]);
			sbf_filter_view(&f[2], &in[1]);
			CHECK_ST(sbf_union_many(&m1, in, 2, &spec, NULL, 0, &g_alloc), SBF_OK);
			CHECK(same_bytes(&m1, &first));
			sbf_filter_view(&m1, &in[0]);
			CHECK_ST(sbf_union_many(&m2, in, 1, &merge, NULL, 0, &g_alloc), SBF_OK);
			sbf_filter_view(&m2, &in[0]);
			CHECK(in[0].nsegments == 3);
			sbf_filter_free(&ab);
			sbf_filter_free(&m1);
			sbf_filter_free(&m2);
		}
		sbf_filter_free(&first);
		for (i = 0; i < 3; i++)
			sbf_filter_view(&f[i], &v[i]);
	}
	for (i = 0; i < 3; i++)
		sbf_filter_free(&f[i]);
}

/* The budget: refuse over it with the bound, explicit rates, tightening 1. */
static void
union_budget(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfParams	q = params(1000, 0.05, 2, 0.9, 9);
	SbfParams	seed = params(100, 0.01, 2, 1.0, 9);
	SbfFilter	a;
	SbfFilter	b;
	SbfFilter	c;
	SbfView		va;
	SbfView		vb;
	double		bound = -1;
	double		pa = sbf_sized_error(0.01, 0.9);

	/* two right-sized filters spend e^1.04 each: over 0.01 */
	CHECK_ST(sbf_create_sized(&a, &p, 2000, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create_sized(&b, &p, 2000, 0, &g_alloc), SBF_OK);
	add_keys(&a, 30, 0, 2000);
	add_keys(&b, 31, 0, 2000);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK(sbf_union_mismatch(&va, &vb) == 0);
	{
		uint8_t    *before = malloc(a.len);
		size_t		blen = a.len;

		memcpy(before, SBF_PAYLOAD(&a), blen);
		CHECK_ST(sbf_union_budget(&a, &vb, 0.0, &bound), SBF_E_OVER_BUDGET);
		CHECK(bound == pa + pa);
		CHECK(a.len == blen && memcmp(before, SBF_PAYLOAD(&a), blen) == 0);
		free(before);
	}
	/* the plain union keeps 1.0's meaning: no check */
	CHECK_ST(sbf_copy(&c, &va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&c, &vb), SBF_OK);
	sbf_filter_free(&c);
	/* an explicit budget that fits: the result carries it */
	CHECK_ST(sbf_union_budget(&a, &vb, 0.0167, &bound), SBF_OK);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK(va.error_rate == 0.0167 && sbf_fpr_budget(&va) == bound);
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/* different error_rate: incompatible unless the union has its own */
	CHECK_ST(seg_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&b, &q, 0, &g_alloc), SBF_OK);
	add_keys(&a, 34, 0, 10);
	add_keys(&b, 35, 0, 10);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK(sbf_union_mismatch(&va, &vb) == SBF_DIFF_ERROR_RATE);
	CHECK_ST(sbf_union_budget(&a, &vb, 0.0, NULL), SBF_E_INCOMPATIBLE);
	CHECK_ST(sbf_union(&a, &vb), SBF_E_INCOMPATIBLE);
	CHECK_ST(sbf_union_budget(&a, &vb, 0.02, &bound), SBF_OK);
	/* the two first segments (errors 0.001 and 0.005) both stay */
	CHECK(fabs(bound - 0.006) < 1e-12);
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/* every other parameter in the mask */
	{
		SbfParams	g4 = params(1000, 0.02, 4, 0.5, 9);

		CHECK_ST(sbf_create(&a, &p, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_create(&b, &g4, 0, &g_alloc), SBF_OK);
		CHECK_ST(validate_filter(&a, &va), SBF_OK);
		CHECK_ST(validate_filter(&b, &vb), SBF_OK);
		CHECK(sbf_union_mismatch(&va, &vb) ==
			  (SBF_DIFF_ERROR_RATE | SBF_DIFF_GROWTH | SBF_DIFF_TIGHTENING));
		CHECK_ST(sbf_union_budget(&a, &vb, 0.3, NULL), SBF_E_INCOMPATIBLE);
		sbf_filter_free(&a);
		sbf_filter_free(&b);
	}

	/* an empty filter adds no segment; two empty ones stay one */
	CHECK_ST(sbf_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&b, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&c, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	CHECK(same_bytes(&a, &c));
	add_keys(&b, 36, 0, 10);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK_ST(sbf_union(&c, &vb), SBF_OK);
	CHECK(same_bytes(&b, &c));
	sbf_filter_free(&a);
	sbf_filter_free(&b);
	sbf_filter_free(&c);

	/* tightening 1: no compound bound, so no refusal */
	CHECK_ST(sbf_create(&a, &seed, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&b, &seed, 0, &g_alloc), SBF_OK);
	add_keys(&a, 32, 0, 1000);
	add_keys(&b, 33, 0, 1000);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK_ST(sbf_union_budget(&a, &vb, 0.0, &bound), SBF_OK);
	CHECK(bound > 0.05);
	sbf_filter_free(&a);
	sbf_filter_free(&b);
}

/*
 * crafted() with no subsets among its segments: the last two words of
 * segment i are x = i | salt and ~x, so every segment has the same set-bit
 * count and differs from every other.
 */
static void
crafted_antichain(SbfFilter *f, uint32_t n, uint32_t w, uint64_t salt)
{
	uint8_t    *buf;
	uint32_t	i;

	crafted(f, n, w, false, 0);
	buf = SBF_PAYLOAD(f);
	for (i = 0; i < n; i++)
	{
		uint8_t    *words = buf + SBF_SEGDIR_OFFSET(n) + (size_t) i * 8 * w;

		sbf_store64(words + 8 * (w - 2), (uint64_t) i | salt);
		sbf_store64(words + 8 * (w - 1), ~((uint64_t) i | salt));
	}
}

/*
 * The crafted pair (2,048 segments of 512 words each side, all bits set but
 * the last word of each destination segment) that kept 1.0's union busy for
 * seconds: the plan compares no pair of segments word by word beyond
 * UNION_MAX_SCANS per segment, checks for interrupts, and finds everything.
 */
static void
union_crafted_pair(void)
{
	SbfFilter	a;
	SbfFilter	b;
	SbfView		va;
	SbfView		vb;
	uint64_t	before = g_interrupt_calls;
	uint64_t	scans;
	clock_t		t0;
	double		secs;
	uint32_t	i;

	crafted(&a, 2048, 512, true, 0);
	crafted(&b, 2048, 512, false, 0);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	t0 = clock();
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	secs = (double) (clock() - t0) / CLOCKS_PER_SEC;
	printf("# crafted pair union: %.3f s (sanitizer build), %" PRIu64 " interrupt checks\n",
		   secs, g_interrupt_calls - before);
	CHECK(g_interrupt_calls - before >= 4096);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	/*
	 * b's segments are one (duplicates), and every segment of a is a subset
	 * of it: one all-ones segment remains, which answers yes to everything
	 */
	CHECK(va.nsegments == 1);
	for (i = 0; i < 1000; i++)
		CHECK(sbf_contains_hash(&va, key(40, i)));
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/*
	 * no subsets across the pair (bits 40 and 41 differ): every segment
	 * tries its candidates, at most UNION_MAX_SCANS word by word
	 */
	crafted(&a, 2048, 512, true, UINT64_C(1) << 40);
	crafted(&b, 2048, 512, true, UINT64_C(1) << 41);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	before = g_interrupt_calls;
	scans = sbf_union_word_scans;
	t0 = clock();
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	secs = (double) (clock() - t0) / CLOCKS_PER_SEC;
	scans = sbf_union_word_scans - scans;
	printf("# crafted pair without subsets: %.3f s (sanitizer build), %" PRIu64
		   " interrupt checks, %" PRIu64 " word-by-word scans\n",
		   secs, g_interrupt_calls - before, scans);
	CHECK(g_interrupt_calls - before >= 4096);
	CHECK(scans <= (uint64_t) 4096 * 8);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK(va.nsegments >= 2 && va.nsegments <= 4096);
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/*
	 * an input that needs the cap: the last two words of segment i are
	 * x and ~x for a distinct x, so no segment is a subset of another, all
	 * have the same set-bit count (no count decides), and none fits another
	 * (they are fuller than their fill limit).  Each would be compared word
	 * by word with every earlier result segment, 8 million comparisons of
	 * 512 words; with the cap each makes at most 8, and almost all make 8.
	 */
	crafted_antichain(&a, 2048, 512, UINT64_C(1) << 40);
	crafted_antichain(&b, 2048, 512, UINT64_C(1) << 41);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	scans = sbf_union_word_scans;
	t0 = clock();
	CHECK_ST(sbf_union(&a, &vb), SBF_OK);
	secs = (double) (clock() - t0) / CLOCKS_PER_SEC;
	scans = sbf_union_word_scans - scans;
	printf("# crafted antichain pair: %.3f s (sanitizer build), %" PRIu64 " word-by-word scans\n",
		   secs, scans);
	CHECK(scans > (uint64_t) 4096 * 7 && scans <= (uint64_t) 4096 * 8);
	CHECK_ST(validate_filter(&a, &va), SBF_OK);
	CHECK(va.nsegments == 4096);
	sbf_filter_free(&a);
	sbf_filter_free(&b);
}

/* Unites a copy of x with y (sbf_union) into *out. */
static void
union_copy(SbfFilter *out, const SbfFilter *x, const SbfFilter *y)
{
	SbfView		vx;
	SbfView		vy;

	sbf_filter_view(x, &vx);
	sbf_filter_view(y, &vy);
	CHECK_ST(sbf_copy(out, &vx, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(out, &vy), SBF_OK);
}

/*
 * Canonical unions with exact inputs: both orders give the same bytes for
 * exact operands of different first segments (header rule: larger first
 * capacity), exact with segmented, sbf_delta's pattern, OVERLAP both ways,
 * and sbf_union_many over every order of mixed inputs.
 */
static void
union_exact_canonical(void)
{
	static const int orders[6][3] = {
		{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}
	};
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfParams	q = params(1000, 0.01, 2, 0.9, 12);
	SbfFilter	a;
	SbfFilter	b;
	SbfFilter	s;
	SbfFilter	t;
	SbfFilter	x;
	SbfFilter	y;
	SbfFilter	d;
	SbfView		v;
	SbfView		in[3];
	SbfView		vs;
	uint64_t	i;
	int			o;

	/* exact, different first segments and hll_p */
	CHECK_ST(sbf_create_sized(&a, &p, 400, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&b, &q, 0, &g_alloc), SBF_OK);
	add_keys(&a, 50, 0, 20);
	add_keys(&b, 50, 10, 40);
	sbf_filter_view(&a, &v);
	CHECK(sbf_is_exact(&v) && v.first_capacity == 400);
	sbf_filter_view(&b, &v);
	CHECK(sbf_is_exact(&v) && v.first_capacity == 1000);
	union_copy(&x, &a, &b);
	union_copy(&y, &b, &a);
	CHECK(same_bytes(&x, &y));
	CHECK_ST(validate_filter(&x, &v), SBF_OK);
	CHECK(sbf_is_exact(&v) && v.nhashes == 40 && v.first_capacity == 1000 &&
		  v.hll_p == 9 && v.capacity == 1000);
	CHECK(v.first_error == sbf_next_error(0.01, 0.9, 0.0, 0.0));
	for (i = 0; i < 40; i++)
		CHECK(sbf_contains_hash(&v, key(50, i)));
	sbf_filter_free(&x);
	sbf_filter_free(&y);

	/* exact ones that convert: still the same bytes both ways */
	add_keys(&a, 51, 0, 400);
	add_keys(&b, 52, 0, 400);
	union_copy(&x, &a, &b);
	union_copy(&y, &b, &a);
	CHECK(same_bytes(&x, &y));
	CHECK_ST(validate_filter(&x, &v), SBF_OK);
	CHECK(!sbf_is_exact(&v) && !(v.flags & SBF_FLAG_OVERLAP));
	for (i = 0; i < 400; i++)
		CHECK(sbf_contains_hash(&v, key(51, i)) && sbf_contains_hash(&v, key(52, i)));
	sbf_filter_free(&x);
	sbf_filter_free(&y);
	sbf_filter_free(&a);
	sbf_filter_free(&b);

	/* two segmented, disjoint: OVERLAP both ways, same bytes */
	CHECK_ST(seg_create(&s, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&t, &p, 0, &g_alloc), SBF_OK);
	add_keys(&s, 53, 0, 3000);
	add_keys(&t, 54, 0, 500);
	union_copy(&x, &s, &t);
	union_copy(&y, &t, &s);
	CHECK(same_bytes(&x, &y));
	CHECK_ST(validate_filter(&x, &v), SBF_OK);
	CHECK(v.flags & SBF_FLAG_OVERLAP);
	CHECK(strcmp(sbf_count_source(&v), "hll") == 0);
	sbf_filter_free(&x);
	sbf_filter_free(&y);

	/* sbf_delta's pattern: f UNION delta keeps f's flags and directory count */
	sbf_filter_view(&s, &vs);
	CHECK_ST(sbf_delta(&d, &vs, 0, &g_alloc), SBF_OK);
	add_keys(&d, 55, 0, 30);
	union_copy(&x, &s, &d);
	union_copy(&y, &d, &s);
	CHECK(same_bytes(&x, &y));
	CHECK_ST(validate_filter(&x, &v), SBF_OK);
	CHECK(!(v.flags & (SBF_FLAG_OVERLAP | SBF_FLAG_CHAIN)));
	CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
	CHECK(fabs(sbf_cardinality(&v) - 3030.0) < 30.0);
	for (i = 0; i < 30; i++)
		CHECK(sbf_contains_hash(&v, key(55, i)));
	sbf_filter_free(&x);
	sbf_filter_free(&y);

	/* sbf_union_many: two exact and one segmented, every order */
	CHECK_ST(sbf_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create_sized(&b, &p, 1500, 0, &g_alloc), SBF_OK);
	add_keys(&a, 56, 0, 50);
	add_keys(&b, 57, 0, 50);
	sbf_filter_view(&a, &v);
	CHECK(sbf_is_exact(&v));
	sbf_filter_view(&b, &v);
	CHECK(sbf_is_exact(&v));
	for (o = 0; o < 2; o++)
	{
		SbfUnionSpec spec = {0.0, o == 1, o == 1};
		SbfFilter	first;
		int			k;

		for (k = 0; k < 6; k++)
		{
			SbfView		all[3];

			sbf_filter_view(&a, &all[0]);
			sbf_filter_view(&b, &all[1]);
			sbf_filter_view(&t, &all[2]);
			for (i = 0; i < 3; i++)
				in[i] = all[orders[k][i]];
			CHECK_ST(sbf_union_many(k == 0 ? &first : &x, in, 3, &spec, NULL, 0,
									&g_alloc), SBF_OK);
			if (k > 0)
			{
				CHECK(same_bytes(&first, &x));
				sbf_filter_free(&x);
			}
		}
		CHECK_ST(validate_filter(&first, &v), SBF_OK);
		for (i = 0; i < 50; i++)
			CHECK(sbf_contains_hash(&v, key(56, i)) && sbf_contains_hash(&v, key(57, i)));
		for (i = 0; i < 500; i++)
			CHECK(sbf_contains_hash(&v, key(54, i)));
		CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
		sbf_filter_free(&first);
	}

	/* an own error_rate and the exact result's first error; bound 0 */
	{
		SbfParams	r = params(1000, 0.05, 2, 0.9, 9);
		double		bound = -1.0;
		SbfView		va;

		CHECK_ST(sbf_create(&x, &r, 0, &g_alloc), SBF_OK);
		add_keys(&x, 58, 0, 5);
		sbf_filter_view(&a, &va);
		sbf_filter_view(&x, &v);
		CHECK_ST(sbf_union_budget(&x, &va, 0.0, NULL), SBF_E_INCOMPATIBLE);
		CHECK_ST(sbf_union_budget(&x, &va, 0.02, &bound), SBF_OK);
		CHECK_ST(validate_filter(&x, &v), SBF_OK);
		CHECK(sbf_is_exact(&v) && bound == 0.0 && v.error_rate == 0.02 &&
			  v.nhashes == 55);
		/* a's first segment (smaller error) is picked, never scaled up */
		CHECK(v.first_error == sbf_next_error(0.01, 0.9, 0.0, 0.0));
		sbf_filter_free(&x);
		/* a smaller own error_rate scales the picked first error down */
		CHECK_ST(sbf_create(&x, &r, 0, &g_alloc), SBF_OK);
		add_keys(&x, 58, 0, 5);
		CHECK_ST(sbf_union_budget(&x, &va, 0.005, &bound), SBF_OK);
		CHECK_ST(validate_filter(&x, &v), SBF_OK);
		CHECK(sbf_is_exact(&v) && bound == 0.0 && v.error_rate == 0.005);
		CHECK(fabs(v.first_error - sbf_next_error(0.005, 0.9, 0.0, 0.0)) < 1e-15);
		sbf_filter_free(&x);
	}
	sbf_filter_free(&a);
	sbf_filter_free(&b);
	sbf_filter_free(&d);
	sbf_filter_free(&s);
	sbf_filter_free(&t);
}

int
main(void)
{
	RUN(union_filters);
	/* 1.2's bytes (version 2, bloom); format 4: test_union4's union4_grown */
	RUN_V2(union_idempotent);
	RUN(union_many_orders);
	RUN(union_budget);
	RUN(union_crafted_pair);
	RUN(union_exact_canonical);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
