/*
 * test_window_limits.c
 *	  Unit tests of windowed filters at the ends of the int64 time line
 *	  (issue 25): slides, adds, expires and unions whose bucket differences
 *	  overflow an int64, newest buckets the validator refuses, windows whose
 *	  newest bucket is near INT64_MIN, the late add into the oldest bucket,
 *	  and the pairs a stored value's parse path must check.  Built with
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

/* Whether h is found with since at bucket b. */
static bool
has_since(const SbfWinView *v, uint64_t h, int64_t b)
{
	return sbf_win_contains(v, h, sbf_win_max_age(v, b));
}

/* The range the validator accepts for a newest bucket: (t + 1) * w fits. */
static void
bucket_range(void)
{
	CHECK(sbf_win_bucket_in_range(0, DAY));
	CHECK(sbf_win_bucket_in_range(INT64_MAX / DAY - 1, DAY));
	CHECK(!sbf_win_bucket_in_range(INT64_MAX / DAY, DAY));
	CHECK(sbf_win_bucket_in_range(INT64_MIN / DAY, DAY));
	CHECK(!sbf_win_bucket_in_range(INT64_MIN / DAY - 1, DAY));
	CHECK(sbf_win_bucket_in_range(INT64_MAX - 1, 1));
	CHECK(!sbf_win_bucket_in_range(INT64_MAX, 1));
	CHECK(sbf_win_bucket_in_range(INT64_MIN, 1));
	CHECK(!sbf_win_bucket_in_range(0, 0));
	CHECK(sbf_win_age_of(INT64_MAX - 1, INT64_MIN) == UINT64_MAX - 1);
	CHECK(sbf_win_age_of(5, 5) == 0);
	CHECK(sbf_win_age_of(-1, INT64_MIN) == (uint64_t) INT64_MAX);
}

/*
 * The SQL reproducer of the stack write: 1-microsecond buckets, an add at
 * the earliest timestamptz, then one at the latest that fits: the slide's
 * shift (b - newest) overflows an int64.  The second add slides the first
 * out; the window stays valid and answers for the second.
 */
static void
slide_across_the_whole_range(void)
{
	SbfWinParams p = {1, 10, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	int64_t		lo = -210866803200000000;	/* 4714-11-24 BC, unix us */
	int64_t		hi = INT64_MAX - 1;
	int			i;

	sbf_win_init(&w, &p, &g_alloc);
	/* enough pairs in the old bucket that compaction counts them */
	for (i = 0; i < 50; i++)
		CHECK(sbf_win_add(&w, lo, elem((uint64_t) i)) == SBF_OK);
	CHECK(sbf_win_add(&w, hi, elem(1000)) == SBF_OK);
	CHECK(w.newest == hi);
	CHECK(win_encode_valid(0, &w, &f, &v));
	CHECK(has_since(&v, elem(1000), hi));
	CHECK(!sbf_win_contains(&v, elem(1), (int64_t) p.buckets - 1));
	sbf_filter_free(&f);
	/* and back: an add far older than the window changes nothing */
	CHECK(sbf_win_add(&w, INT64_MIN, elem(2000)) == SBF_OK);
	CHECK(sbf_win_settle(&w) == SBF_OK);
	CHECK(w.npairs == 1 && w.nsegs == 0);
	/* sbf_expire to the same end */
	CHECK(sbf_win_slide(&w, INT64_MIN) == SBF_OK);
	CHECK(w.newest == hi);
	sbf_win_free(&w);

	/* from INT64_MIN (a crafted newest) to the top in one slide */
	sbf_win_init(&w, &p, &g_alloc);
	CHECK(sbf_win_add(&w, INT64_MIN, elem(7)) == SBF_OK);
	CHECK(sbf_win_slide(&w, hi) == SBF_OK);
	CHECK(w.npairs == 0);
	CHECK(win_encode_valid(0, &w, &f, &v));
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/*
 * Adds, slides and the first add at a bucket whose end does not fit an
 * int64 are refused (SBF_E_PARAM) and leave the window as it was: the
 * validator refuses such a newest bucket (the SQL reproducer '1 day' at
 * 294247-01-10).
 */
static void
newest_out_of_range_refused(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	int64_t		last = INT64_MAX / DAY - 1;

	sbf_win_init(&w, &p, &g_alloc);
	CHECK(sbf_win_add(&w, last + 1, elem(1)) == SBF_E_PARAM);
	CHECK(!(w.flags & SBF_WIN_FLAG_STARTED));
	CHECK(sbf_win_add(&w, last, elem(1)) == SBF_OK);
	CHECK(sbf_win_add(&w, last + 1, elem(2)) == SBF_E_PARAM);
	CHECK(sbf_win_slide(&w, INT64_MAX) == SBF_E_PARAM);
	CHECK(sbf_win_slide(&w, INT64_MIN / DAY) == SBF_OK);	/* older: no-op */
	CHECK(sbf_win_settle(&w) == SBF_OK);
	CHECK(w.newest == last && w.npairs == 1);
	CHECK(win_encode_valid(0, &w, &f, &v));
	CHECK(has_since(&v, elem(1), last));
	sbf_filter_free(&f);
	sbf_win_free(&w);

	/* from_pairs refuses such a newest too */
	{
		SbfWinPair	pr = {elem(3), last + 1};

		CHECK(sbf_win_from_pairs(&w, &p, last + 1, &pr, 1, &g_alloc) == SBF_E_PARAM);
		sbf_win_free(&w);
	}
}

/* A window of width 1 whose newest is newest, holding pairs at ages 0..n-1. */
static void
window_at(SbfWindow *w, const SbfWinParams *p, int64_t newest, int n, uint64_t base)
{
	int			i;

	sbf_win_init(w, p, &g_alloc);
	for (i = n - 1; i >= 0; i--)
		CHECK(sbf_win_add(w, newest - i, elem(base + (uint64_t) i)) == SBF_OK);
	CHECK(w->newest == newest);
}

/*
 * Unions whose newest buckets are further apart than an int64 (target -
 * newest overflows): the older side's buckets fall out, the result
 * validates, and it is the same in both orders.
 */
static void
union_across_the_whole_range(void)
{
	SbfWinParams p = {1, 8, 0.01};
	SbfWindow	a;
	SbfWindow	b;
	SbfFilter	fa;
	SbfFilter	fb;
	SbfFilter	f1;
	SbfFilter	f2;
	SbfWinView	va;
	SbfWinView	vb;
	SbfWinView	v;

	window_at(&a, &p, INT64_MIN + 3, 4, 100);
	window_at(&b, &p, INT64_MAX - 1, 4, 200);
	CHECK(win_encode_valid(0, &a, &fa, &va));
	CHECK(win_encode_valid(0, &b, &fb, &vb));
	/* a := a UNION b */
	CHECK(sbf_win_union(&a, &vb) == SBF_OK);
	CHECK(win_encode_valid(0, &a, &f1, &v));
	CHECK(v.newest == INT64_MAX - 1);
	CHECK(has_since(&v, elem(203), INT64_MAX - 4));
	CHECK(!sbf_win_contains(&v, elem(100), 7));
	/* b := b UNION a */
	CHECK(sbf_win_union(&b, &va) == SBF_OK);
	CHECK(win_encode_valid(0, &b, &f2, &v));
	CHECK(f1.len == f2.len && memcmp(SBF_PAYLOAD(&f1), SBF_PAYLOAD(&f2), f1.len) == 0);
	sbf_filter_free(&fa);
	sbf_filter_free(&fb);
	sbf_filter_free(&f1);
	sbf_filter_free(&f2);
	sbf_win_free(&a);
	sbf_win_free(&b);
}

/*
 * newest - B overflows when newest is near INT64_MIN (valid for 1-us
 * buckets): an add into the window must not be dropped, a since lookup must
 * count every bucket, and the aggregate's pairs must be kept.
 */
static void
newest_near_int64_min(void)
{
	SbfWinParams p = {1, 10, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	SbfWinPair	pairs[3] = {{elem(1), INT64_MIN}, {elem(2), INT64_MIN + 2},
	{elem(3), INT64_MIN + 1}};
	size_t		n;

	sbf_win_init(&w, &p, &g_alloc);
	CHECK(sbf_win_add(&w, INT64_MIN + 2, elem(1)) == SBF_OK);
	CHECK(sbf_win_add(&w, INT64_MIN, elem(2)) == SBF_OK);
	CHECK(sbf_win_settle(&w) == SBF_OK);
	CHECK(w.npairs == 2);
	CHECK(win_encode_valid(0, &w, &f, &v));
	CHECK(has_since(&v, elem(2), INT64_MIN));
	CHECK(has_since(&v, elem(1), INT64_MIN + 2));
	CHECK(!has_since(&v, elem(2), INT64_MIN + 1));
	CHECK(sbf_win_max_age(&v, INT64_MIN + 1) == 1);
	CHECK(sbf_win_max_age(&v, INT64_MAX) == -1);
	sbf_filter_free(&f);
	sbf_win_free(&w);

	n = sbf_win_pairs_normalize(pairs, 3, INT64_MIN + 2, p.buckets);
	CHECK(n == 3);
	CHECK(sbf_win_from_pairs(&w, &p, INT64_MIN + 2, pairs, n, &g_alloc) == SBF_OK);
	CHECK(sbf_win_compact(&w, true) == SBF_OK);
	CHECK(win_encode_valid(0, &w, &f, &v));
	CHECK(has_since(&v, elem(1), INT64_MIN));
	CHECK(has_since(&v, elem(2), INT64_MIN + 2));
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/*
 * A late add into the oldest bucket still in the window is kept (age B - 1),
 * one bucket older is dropped: the boundary of sbf_win_add's window test.
 */
static void
late_add_oldest_bucket(void)
{
	SbfWinParams p = {DAY, 5, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;

	sbf_win_init(&w, &p, &g_alloc);
	CHECK(sbf_win_add(&w, 100, elem(1)) == SBF_OK);
	CHECK(sbf_win_add(&w, 96, elem(2)) == SBF_OK);	/* age 4 = B - 1 */
	CHECK(sbf_win_add(&w, 95, elem(3)) == SBF_OK);	/* age 5: outside */
	CHECK(sbf_win_settle(&w) == SBF_OK);
	CHECK(w.npairs == 2);
	CHECK(win_encode_valid(0, &w, &f, &v));
	CHECK(has_since(&v, elem(2), 96));
	CHECK(!sbf_win_contains(&v, elem(3), 4));
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

/* Payload of a window with the pairs (hash, age) given, nothing else. */
static size_t
craft_pairs(uint8_t *buf, uint16_t buckets, const uint64_t *h, const uint16_t *age, uint32_t n)
{
	size_t		i;

	memset(buf, 0, SBF_WIN_HEADER_BYTES);
	buf[0] = SBF_WIN_VERSION;
	buf[1] = SBF_WIN_FLAG_STARTED;
	buf[2] = SBF_HASH_XXH3;
	sbf_store16(buf + 4, buckets);
	sbf_store32(buf + 12, n);
	sbf_store64(buf + 16, (uint64_t) DAY);
	sbf_store64(buf + 24, 20000);
	sbf_store_double(buf + 32, 0.01);
	for (i = 0; i < n; i++)
	{
		sbf_store64(buf + SBF_WIN_HEADER_BYTES + i * 8, h[i]);
		sbf_store16(buf + SBF_WIN_HEADER_BYTES + n * 8 + i * 2, age[i]);
	}
	return SBF_WIN_HEADER_BYTES + (size_t) n * SBF_WIN_PAIR_BYTES;
}

/*
 * What passes only the parse of a stored value (not the validator) must not
 * reach a write: a pair of age >= B or pairs out of order are refused by
 * sbf_win_load and as the source of a union (the stack write in compact).
 */
static void
parse_path_checks_pairs(void)
{
	uint8_t		buf[256];
	uint64_t	h[2] = {5, 9};
	uint16_t	bad_age[2] = {0, 60000};
	uint16_t	ok_age[2] = {0, 3};
	uint64_t	h_desc[2] = {9, 5};
	SbfWinParams p = {DAY, 4, 0.01};
	SbfWinView	v;
	SbfWindow	w;
	size_t		len;

	len = craft_pairs(buf, 4, h, bad_age, 2);
	CHECK(sbf_win_parse(buf, len, &v) == SBF_OK);	/* O(segments) only */
	CHECK(sbf_win_validate(buf, len, &v) == SBF_E_WINDOW);
	CHECK(sbf_win_load(&w, &v, &g_alloc) == SBF_E_WINDOW);
	sbf_win_init(&w, &p, &g_alloc);
	CHECK(sbf_win_union(&w, &v) == SBF_E_WINDOW);
	sbf_win_free(&w);

	len = craft_pairs(buf, 4, h_desc, ok_age, 2);
	CHECK(sbf_win_parse(buf, len, &v) == SBF_OK);
	CHECK(sbf_win_check_pairs(&v) == SBF_E_WINDOW);
	CHECK(sbf_win_load(&w, &v, &g_alloc) == SBF_E_WINDOW);

	len = craft_pairs(buf, 4, h, ok_age, 2);
	CHECK(sbf_win_validate(buf, len, &v) == SBF_OK);
	CHECK(sbf_win_load(&w, &v, &g_alloc) == SBF_OK);
	CHECK(sbf_win_compact(&w, true) == SBF_OK);
	sbf_win_free(&w);
}

/* Directory ages out of order are refused by the parse (lookups stop early). */
static void
parse_checks_directory_order(void)
{
	SbfWinParams p = {DAY, 10, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	uint8_t    *buf;
	int			i;

	sbf_win_init(&w, &p, &g_alloc);
	for (i = 0; i < 600; i++)
		CHECK(sbf_win_add(&w, 10 + (i % 2) * 3, elem((uint64_t) i)) == SBF_OK);
	CHECK(sbf_win_compact(&w, true) == SBF_OK);
	CHECK(win_encode_valid(0, &w, &f, &v));
	CHECK(v.nsegments == 2);
	if (v.nsegments == 2)
	{
		buf = SBF_PAYLOAD(&f);
		/* swap the two ages: 0 then 3 becomes 3 then 0 */
		sbf_store16(buf + SBF_WIN_HEADER_BYTES, 3);
		sbf_store16(buf + SBF_WIN_HEADER_BYTES + SBF_WIN4_SEGDIR_BYTES, 0);
		CHECK(sbf_win_parse(buf, f.len, &v) == SBF_E_WINDOW);
	}
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

int
main(void)
{
	RUN(bucket_range);
	RUN(slide_across_the_whole_range);
	RUN(newest_out_of_range_refused);
	RUN(union_across_the_whole_range);
	RUN(newest_near_int64_min);
	RUN(late_add_oldest_bucket);
	RUN(parse_path_checks_pairs);
	RUN(parse_checks_directory_order);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
