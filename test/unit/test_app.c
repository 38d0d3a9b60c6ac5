/*
 * test_app.c
 *	  Unit tests of src/core/app/sbf_app.c, the steps the PostgreSQL glue and the
 *	  Python package share: count rounding, the since bucket and the finish
 *	  of sbf_window_agg.  Built with ASan and UBSan (see Makefile).
 */
#include <math.h>

#include "sbf_app.h"
#include "sbf_plain.h"
#include "unit_check.h"
#include "unit_alloc.h"

/* Half away from zero; NaN and negatives 0; the top clamps to INT64_MAX. */
static void
count_round_edges(void)
{
	CHECK(sbf_count_round(0.0) == 0);
	CHECK(sbf_count_round(0.49) == 0);
	CHECK(sbf_count_round(0.5) == 1);
	CHECK(sbf_count_round(2.5) == 3);
	CHECK(sbf_count_round(1234567.4) == 1234567);
	CHECK(sbf_count_round(-3.0) == 0);
	CHECK(sbf_count_round(NAN) == 0);
	CHECK(sbf_count_round(INFINITY) == INT64_MAX);
	CHECK(sbf_count_round(9.3e18) == INT64_MAX);
	CHECK(sbf_count_round(9.0e18) == INT64_C(9000000000000000000));
}

/* The two sentinels pass through; other times floor to their bucket. */
static void
since_bucket_floors(void)
{
	int64_t		day = INT64_C(86400000000);

	CHECK(sbf_win_since_bucket(SBF_WIN_ALL, day) == SBF_WIN_ALL);
	CHECK(sbf_win_since_bucket(INT64_MAX, day) == INT64_MAX);
	CHECK(sbf_win_since_bucket(0, day) == 0);
	CHECK(sbf_win_since_bucket(day - 1, day) == 0);
	CHECK(sbf_win_since_bucket(day, day) == 1);
	CHECK(sbf_win_since_bucket(-1, day) == -1);
	CHECK(sbf_win_since_bucket(-day, day) == -1);
	CHECK(sbf_win_since_bucket(-day - 1, day) == -2);
	CHECK(sbf_win_since_bucket(INT64_MIN + 1, 1) == INT64_MIN + 1);
}

/* A window of pairs over 5 buckets, as sbf_window_agg's state holds it. */
static SbfStatus
agg_window(SbfWindow *w, const SbfWinParams *p, int64_t newest)
{
	SbfWinPair *pairs = malloc(sizeof(SbfWinPair) * 20000);
	size_t		n;
	SbfStatus	st;
	int			i;

	for (i = 0; i < 20000; i++)
	{
		pairs[i].hash = sbf_hash_int64(i % 15000);
		pairs[i].bucket = newest - i % 5;
	}
	n = sbf_win_pairs_normalize(pairs, 20000, newest, p->buckets);
	st = sbf_win_from_pairs(w, p, newest, pairs, n, &g_alloc);
	free(pairs);
	return st;
}

/*
 * sbf_win_agg_finish: every bucket compacted, the newest too, then the
 * canonical payload; the same bytes as the two steps done by hand, a valid
 * value whose count is the distinct count.
 */
static void
agg_finish_compacts_all(void)
{
	SbfWinParams p = {INT64_C(86400000000), 30, 0.01};
	SbfWindow	w;
	SbfWindow	w2;
	SbfFilter	a;
	SbfFilter	b;
	SbfWinView	v;

	CHECK(agg_window(&w, &p, 20000) == SBF_OK);
	CHECK(agg_window(&w2, &p, 20000) == SBF_OK);
	CHECK(sbf_win_agg_finish(&w, &a, 4) == SBF_OK);
	CHECK(sbf_win_compact(&w2, true) == SBF_OK);
	CHECK(sbf_win_encode(&w2, &b, 4) == SBF_OK);
	CHECK(a.len == b.len && memcmp(SBF_PAYLOAD(&a), SBF_PAYLOAD(&b), a.len) == 0);
	CHECK(sbf_win_validate(SBF_PAYLOAD(&a), a.len, &v) == SBF_OK);
	CHECK(v.npairs == 0 && v.nsegments >= 5);
	CHECK(llround(sbf_win_cardinality(&v)) == 15000);
	sbf_win_free(&w);
	sbf_win_free(&w2);
	sbf_filter_free(&a);
	sbf_filter_free(&b);
}

int
main(void)
{
	RUN(count_round_edges);
	RUN(since_bucket_floors);
	RUN(agg_finish_compacts_all);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
