/*
 * test_window_live.c
 *	  Unit tests of live adds to a windowed filter one hash at a time
 *	  (sbf_win_add, sbf_window_live.c): the bytes they write, whatever
 *	  calls come between them, and their linear cost.  Built with the
 *	  sanitizers like the others; deterministic.
 */
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

/* The digest of w's encoding (sbf_hash of the payload), 0 if it fails. */
static uint64_t
digest(SbfWindow *w)
{
	SbfFilter	f;
	SbfWinView	v;
	uint64_t	d = 0;

	memset(&f, 0, sizeof(f));
	if (win_encode_valid(0, w, &f, &v))
		d = sbf_hash(SBF_PAYLOAD(&f), f.len);
	if (f.base != NULL)
		sbf_filter_free(&f);
	return d;
}

/*
 * n single adds of elem(first + i * step) at bucket b, every seventh a
 * repeat of an earlier one; with other != 0, every third add goes to
 * bucket other instead (an older bucket, or a newer one: a slide).
 */
static void
adds(SbfWindow *w, int64_t b, int64_t other, uint64_t first, uint64_t step,
	 uint32_t n)
{
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		uint64_t	id = first + (i % 7 == 6 ? i / 2 : i) * step;

		CHECK(sbf_win_add(w, other != 0 && i % 3 == 2 ? other : b, elem(id)) == SBF_OK);
	}
}

/* The encodings of the steps of one_by_one, recorded at 144d7bf. */
static const uint64_t golden[] = {
	UINT64_C(0x7b8f593bad19e261), UINT64_C(0x64c205cbcc7f2ddb),
	UINT64_C(0x35eaf17011739a31), UINT64_C(0xd239a00d4f0ff32d),
	UINT64_C(0x61db657fd68d1275), UINT64_C(0xeac0e15c3d37577e),
	UINT64_C(0xbc28942ff352e362), UINT64_C(0x545882bd324e4406),
	UINT64_C(0x5fbc421a10cfd3dc)
};

/*
 * Single adds write the bytes 1.4 wrote before they were made linear
 * (recorded at 144d7bf, when each new pair was inserted into the sorted
 * pairs), with encodings, unions, compactions and slides between them:
 * the newest bucket's conversions, repeats, adds into older buckets
 * mixed with the newest, and the newest bucket past its budget (62
 * segments, then pairs).
 */
static void
one_by_one(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	w;
	SbfWindow	u;
	SbfFilter	f;
	SbfWinView	v;
	uint64_t	d[9];
	uint64_t	h[3000];
	uint32_t	i;

	sbf_win_init(&w, &p, &g_alloc);
	adds(&w, 10, 0, 1000, 1, 3000);
	adds(&w, 11, 0, 2000, 1, 3000);
	adds(&w, 13, 12, 3000, 1, 6000);
	d[0] = digest(&w);
	adds(&w, 15, 14, 10000, 1, 12000);
	d[1] = digest(&w);
	adds(&w, 15, 11, 1, 3, 9000);
	/* two older buckets: a repeat lowers a new pair's age from 2 to 1 */
	adds(&w, 14, 13, 600000, 1, 3000);
	d[2] = digest(&w);
	/* a union with a window that add_many built */
	sbf_win_init(&u, &p, &g_alloc);
	for (i = 0; i < 3000; i++)
		h[i] = elem(500000 + i);
	CHECK(sbf_win_add_many(&u, 14, h, 3000) == SBF_OK);
	CHECK(win_encode_valid(0, &u, &f, &v));
	CHECK(sbf_win_union(&w, &v) == SBF_OK);
	sbf_filter_free(&f);
	sbf_win_free(&u);
	adds(&w, 15, 0, 499000, 1, 2000);
	d[3] = digest(&w);
	/* a slide, then the newest bucket past its budget */
	adds(&w, 40, 38, 1000000, 1, 40000);
	d[4] = digest(&w);
	adds(&w, 40, 0, 1040000, 1, 76 * SBF_WIN_OPEN_MAX);
	adds(&w, 40, 39, 1040000 + 76 * SBF_WIN_OPEN_MAX, 1, 9000);
	d[5] = digest(&w);
	CHECK(w.npairs > 10 * SBF_WIN_OPEN_MAX);
	CHECK(sbf_win_compact(&w, false) == SBF_OK);
	d[6] = digest(&w);
	adds(&w, 41, 40, 1, 11, 5000);
	d[7] = digest(&w);
	/* new pairs all of one age, some of them lowered to a newer bucket's */
	adds(&w, 39, 0, 700000, 1, 2000);
	adds(&w, 40, 0, 700000, 2, 500);
	d[8] = digest(&w);
	for (i = 0; i < 9; i++)
	{
		if (d[i] != golden[i])
			fprintf(stderr, "  step %u: 0x%016llx, recorded 0x%016llx\n", i,
					(unsigned long long) d[i], (unsigned long long) golden[i]);
		CHECK(d[i] == golden[i]);
	}
	sbf_win_free(&w);
}

/*
 * Reading the window between adds (an encoding merges the waiting pairs)
 * changes nothing: the same bytes as without the reads, with adds into
 * the newest bucket and an older one mixed.
 */
static void
reads_between_adds(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	x;
	SbfWindow	y;
	uint32_t	round;

	sbf_win_init(&x, &p, &g_alloc);
	sbf_win_init(&y, &p, &g_alloc);
	for (round = 0; round < 12; round++)
	{
		adds(&x, 20, 18, (uint64_t) round * 1000, 1, 1500);
		adds(&y, 20, 18, (uint64_t) round * 1000, 1, 1500);
		CHECK(digest(&x) != 0);
	}
	CHECK(digest(&x) == digest(&y));
	sbf_win_free(&x);
	sbf_win_free(&y);
}

/*
 * Adds, a slide and an encoding with each allocation in turn failing: a
 * status (SBF_E_NOMEM), never a crash, and sbf_win_free releases everything
 * (no_leaks), whether or not pairs were waiting.
 */
static void
out_of_memory(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	long		k;
	long		total;
	uint32_t	failed = 0;

	for (k = 0;; k++)
	{
		SbfWindow	w;
		SbfFilter	f;
		SbfStatus	st = SBF_OK;
		uint32_t	i;

		memset(&f, 0, sizeof(f));
		g_calls = 0;
		g_fail_after = k;
		sbf_win_init(&w, &p, &g_alloc);
		for (i = 0; i < 6000 && st == SBF_OK; i++)
			st = sbf_win_add(&w, i < 5000 ? 3 : 2, elem(i));
		if (st == SBF_OK)
			st = sbf_win_add(&w, 5, elem(1));
		if (st == SBF_OK)
			st = sbf_win_encode(&w, &f, 0);
		total = (long) g_calls;
		g_fail_after = -1;
		CHECK(st == SBF_OK || st == SBF_E_NOMEM);
		failed += st == SBF_E_NOMEM;
		if (f.base != NULL)
			sbf_filter_free(&f);
		sbf_win_free(&w);
		if (st == SBF_OK)
			break;
	}
	/* every allocation of the sequence failed once */
	CHECK(failed == (uint32_t) k && total > 10);
}

/*
 * An encoding that fails to allocate (while it merges the waiting pairs, or
 * after) leaves the window as it was: encoded again, it has the bytes of
 * the same window never refused.
 */
static void
encode_again_after_nomem(void)
{
	SbfWinParams p = {DAY, 30, 0.01};
	SbfWindow	ref;
	uint64_t	want;
	long		k;

	sbf_win_init(&ref, &p, &g_alloc);
	adds(&ref, 7, 5, 100, 1, 6000);
	want = digest(&ref);
	sbf_win_free(&ref);
	for (k = 0; k < 12; k++)
	{
		SbfWindow	w;
		SbfFilter	f;
		SbfStatus	st;

		memset(&f, 0, sizeof(f));
		sbf_win_init(&w, &p, &g_alloc);
		adds(&w, 7, 5, 100, 1, 6000);
		g_fail_after = k;
		st = sbf_win_encode(&w, &f, 0);
		g_fail_after = -1;
		CHECK(st == SBF_OK || st == SBF_E_NOMEM);
		if (f.base != NULL)
			sbf_filter_free(&f);
		CHECK(digest(&w) == want);
		sbf_win_free(&w);
	}
}

int
main(void)
{
	RUN(one_by_one);
	RUN(reads_between_adds);
	RUN(out_of_memory);
	RUN(encode_again_after_nomem);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
