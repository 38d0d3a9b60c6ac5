/*
 * test_compact_add.c
 *	  Adds to a compact value in place (sbf_compact_add.c; docs/format5.md,
 *	  section 3, "Adds"): while its segmented form would be no larger than
 *	  release 1.3's value of the same elements, the value stays compact at
 *	  its bits and capacity, one add at a time or batched; past that, or
 *	  past the builder's bounds, it takes its segmented form, and no value
 *	  on the way is larger than 1.3's.  Ranks above a fingerprint's cap go
 *	  to the ranks list in place.  Failed allocations leave the value as it
 *	  was.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_compact.h"
#include "sbf_dir.h"
#include "sbf_hash_sort.h"
#include "sbf_internal.h"
#include "sbf_plain.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

/* sbf_agg's final over the n hashes h (any order; sorted in place) into f. */
static void
aggregate(SbfFilter *f, uint64_t *h, uint64_t n)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, SBF_HLL_P_DEFAULT);

	sbf_hash_sort_all(h, (size_t) n);
	CHECK_ST(sbf_build_final(f, &p, h, (size_t) n, 4, &g_alloc), SBF_OK);
}

/* The hashes key(space, 0 .. n) into a new array. */
static uint64_t *
keys(int space, uint64_t n)
{
	uint64_t   *h = malloc((n ? n : 1) * sizeof(uint64_t));
	uint64_t	i;

	for (i = 0; i < n; i++)
		h[i] = key(space, i);
	return h;
}

/* Distinct b-bit fingerprints among the n hashes h. */
static uint64_t
distinct_fingerprints(const uint64_t *h, uint64_t n, int b)
{
	uint64_t   *fp = malloc(n * sizeof(uint64_t));
	uint64_t	d = n > 0;
	uint64_t	i;

	sbf_ef_fingerprints(h, n, b, fp);
	sbf_hash_sort_all(fp, (size_t) n);
	for (i = 1; i < n; i++)
		d += fp[i] != fp[i - 1];
	free(fp);
	return d;
}

/*
 * m keys of a space whose b-bit fingerprints differ from those of the n
 * hashes a and from each other, into a new array with room for n more.
 */
static uint64_t *
fresh_keys(const uint64_t *a, uint64_t n, int b, int space, uint64_t m)
{
	uint64_t   *h = malloc((m + n + 1) * sizeof(uint64_t));
	uint64_t	base = distinct_fingerprints(a, n, b);
	uint64_t	got = 0;
	uint64_t	i;

	if (n > 0)
		memcpy(h, a, n * sizeof(uint64_t));
	for (i = 0; got < m; i++)
	{
		h[n + got] = key(space, i);
		got += distinct_fingerprints(h, n + got + 1, b) == base + got + 1;
	}
	memmove(h, h + n, m * sizeof(uint64_t));
	return h;
}

/* A copy of f's value (its own buffer). */
static void
copy_filter(const SbfFilter *f, SbfFilter *g)
{
	SbfView		v;

	CHECK_ST(validate_filter(f, &v), SBF_OK);
	CHECK_ST(sbf_copy(g, &v, 4, 0, &g_alloc), SBF_OK);
}

/*
 * Release 1.3's sbf_agg final over the n hashes h (sorted in place): the
 * exact form while 1.2's rule keeps it exact, else one segment, header
 * capacity 1,000 -- what 1.4's builder writes where it writes no compact
 * value.  Adds to it grow as 1.3's did (1.4's first segment of a converted
 * exact form is no larger than 1.3's), so it is the bound for the same
 * adds to 1.4's value.
 */
static void
aggregate13(SbfFilter *f, uint64_t *h, uint64_t n)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, SBF_HLL_P_DEFAULT);
	size_t		used = 0;
	SbfView		v;

	sbf_hash_sort_all(h, (size_t) n);
	CHECK_ST(sbf_create_sized(f, &p, n, 4, &g_alloc), SBF_OK);
	CHECK_ST(sbf_exact_add_run(f, h, (size_t) n, &used), SBF_OK);
	sbf_filter_view(f, &v);
	if (used == n && sbf_is_exact(&v))
		return;
	sbf_filter_free(f);
	CHECK_ST(sbf_build_sorted(f, &p, h, (size_t) n, sbf_sized_error(0.01, 0.9),
							  0, 4, &g_alloc), SBF_OK);
}

/*
 * Adds the hashes key(space, from .. to) to f and to r (1.3's value of the
 * same elements): one at a time or as one batch, f never larger than r
 * after any of them, its fpr_bound within 1%, every element added found.
 */
static void
add_beside_13(SbfFilter *f, SbfFilter *r, int space, uint64_t from, uint64_t to,
			  bool single)
{
	uint64_t   *h = malloc((to - from + 1) * sizeof(uint64_t));
	uint64_t	i;
	SbfView		v;

	for (i = from; i < to; i++)
	{
		h[i - from] = key(space, i);
		if (!single)
			continue;
		CHECK_ST(sbf_add_hash(f, h[i - from], NULL), SBF_OK);
		CHECK_ST(sbf_add_hash(r, h[i - from], NULL), SBF_OK);
		CHECK(f->len <= r->len);
	}
	if (!single)
	{
		CHECK_ST(sbf_add_hashes(f, h, (size_t) (to - from)), SBF_OK);
		CHECK_ST(sbf_add_hashes(r, h, (size_t) (to - from)), SBF_OK);
		CHECK(f->len <= r->len);
	}
	CHECK_ST(validate_filter(f, &v), SBF_OK);
	CHECK(sbf_fpr_bound(&v) <= 0.01);
	for (i = from; i < to; i++)
		CHECK(sbf_contains_hash(&v, h[i - from]));
	free(h);
}

/*
 * Issue 36's "no value larger than 1.3's for the same input": values
 * sbf_agg wrote for n elements (the exact form's 63 bits, the compact form
 * at the room 1.3's exact form had, the compact form within 1.3's chain),
 * grown by adds in steps of 15% to 40 times their size, and one add at a
 * time to 400 elements, are never larger than 1.3's values of the
 * same elements grown by the same adds, n = 64 and 265 (next to a bit
 * boundary: a compact value that fits 1.3's chain with a part of the
 * margin only) included (shown to fail with the areas unchecked in
 * sbf_compact_chain.c, with no margin for 1.3's false-positive skips, and
 * with rewrite_cut at the builder's bits).
 */
static void
never_above_13(void)
{
	static const uint64_t ns[] = {1, 3, 8, 9, 10, 12, 30, 64, 100, 265, 300, 1000, 3000};
	size_t		c;
	int			single;

	for (single = 0; single < 2; single++)
	{
		for (c = 0; c < sizeof(ns) / sizeof(ns[0]); c++)
		{
			uint64_t	n = ns[c];
			uint64_t   *a = keys(30, n);
			uint64_t   *a13 = keys(30, n);
			uint64_t	done = 0;
			double		m;
			SbfFilter	f;
			SbfFilter	r;

			if (single && n > 100)
			{
				free(a);
				free(a13);
				continue;
			}
			aggregate(&f, a, n);
			aggregate13(&r, a13, n);
			CHECK(f.len <= r.len);
			for (m = 0.5; single ? n + done < 400 : m <= 40.0; m *= 1.15)
			{
				uint64_t	t = single ? done + 1 : (uint64_t) ceil((double) n * m);

				if (t <= done)
					continue;
				add_beside_13(&f, &r, 31, done, t, single != 0);
				done = t;
			}
			sbf_filter_free(&f);
			sbf_filter_free(&r);
			free(a);
			free(a13);
		}
	}
}

/*
 * The exact form as 1.4's builder writes it (docs/format5.md, section 3,
 * "Exact"): 1 to SBF_COMPACT_EXACT_MAX elements compact at 63 fingerprint
 * bits, capacity n, # n, within 8 bytes an element and 20 (24 with the
 * 4-byte varlena header), no non-member of another space found.  One
 * element grown by adds one at a time keeps its capacity 1 and the 63
 * bits to SBF_COMPACT_EXACT_MAX elements; past them it is written at the
 * bits that leave room for the count to which 1.3 kept its exact form
 * (sbf_exact_agg_room, within the bound of 1.3's first segment) and stays
 * compact to that count, every member found.
 */
static void
exact_adds(void)
{
	SbfFilter	f;
	SbfView		v;
	uint64_t   *all;
	uint64_t	room = sbf_exact_agg_room(0.01, 0.9, 2, 1, SBF_EXACT_MAX);
	uint64_t	n;
	uint64_t	i;
	int			b;

	CHECK(room > 8 && room < SBF_EXACT_MAX);
	CHECK_ST(sbf_compact_bits(room, 1.0 / 128, SBF_HLL_P_DEFAULT, &b), SBF_OK);
	all = fresh_keys(NULL, 0, b, 21, room);
	for (n = 1; n <= SBF_COMPACT_EXACT_MAX; n++)
	{
		uint64_t   *a = malloc(n * sizeof(uint64_t));
		SbfFilter	u;
		uint64_t	found = 0;

		memcpy(a, all, n * sizeof(uint64_t));
		aggregate(&u, a, n);
		CHECK_ST(validate_filter(&u, &v), SBF_OK);
		CHECK(sbf_is_compact(&v) && v.capacity == n && v.nfp == n &&
			  sbf_cardinality(&v) == (double) n);
		CHECK(v.fp_bits == SBF_COMPACT_EXACT_BITS && u.len <= 8 * n + 20);
		for (i = 0; i < 100000; i++)
			found += sbf_contains_hash(&v, key(22, i));
		CHECK(found == 0);
		sbf_filter_free(&u);
		free(a);
	}
	aggregate(&f, all, 1);
	for (n = 2; n <= room; n++)
	{
		CHECK_ST(sbf_add_hash(&f, all[n - 1], NULL), SBF_OK);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		CHECK(sbf_is_compact(&v) && v.capacity == 1 && v.nfp == n);
		CHECK(v.fp_bits == (n <= SBF_COMPACT_EXACT_MAX ? SBF_COMPACT_EXACT_BITS : b));
	}
	for (i = 0; i < room; i++)
		CHECK(sbf_contains_hash(&v, all[i]));
	sbf_filter_free(&f);
	free(all);
}

/*
 * Hashes whose fingerprint has no bit above its register j (capped):
 * rank r, so h = j | 1 << (r + 8).
 */
static uint64_t
capped(uint32_t j, int r)
{
	return (uint64_t) j | UINT64_C(1) << (r + SBF_COMPACT_HLL_P - 1);
}

/* The ranks list of f's compact value. */
static void
ranks_of(const SbfFilter *f, SbfCompactRanks *r)
{
	SbfCompactView cv;

	CHECK_ST(sbf_compact_check(SBF_PAYLOAD(f), f->len, &cv), SBF_OK);
	sbf_compact_view_ranks(&cv, r);
}

/*
 * A rank above the list's entry for a fingerprint there raises the entry in
 * place (nothing else changes: same count, same length); a new capped
 * fingerprint adds itself and an entry; the value then keeps both hashes.
 */
static void
ranks(void)
{
	uint64_t   *h = keys(14, 101);
	SbfCompactRanks r;
	SbfFilter	f;
	SbfView		v;
	size_t		len;
	bool		inserted = true;

	h[100] = capped(77, 30);
	aggregate(&f, h, 101);
	ranks_of(&f, &r);
	CHECK(r.rank[77] == 30);
	len = f.len;

	CHECK_ST(sbf_add_hash(&f, capped(77, 40), &inserted), SBF_OK);
	CHECK(!inserted && f.len == len);
	ranks_of(&f, &r);
	CHECK(r.rank[77] == 40);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && v.nfp == 101);
	CHECK(sbf_compact_view_keeps(&v, capped(77, 40)));

	CHECK_ST(sbf_add_hash(&f, capped(300, 33), &inserted), SBF_OK);
	CHECK(inserted);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && v.nfp == 102);
	ranks_of(&f, &r);
	CHECK(r.rank[300] == 33 && r.rank[77] == 40);
	CHECK(sbf_compact_view_keeps(&v, capped(300, 33)));
	sbf_filter_free(&f);
	free(h);
}

/*
 * A value written with room in its capacity (kit_v5's way) takes adds up
 * to it with the capacity unchanged; past it the capacity grows only
 * within the builder's share, else the segmented form.
 */
static void
capacity_kept(void)
{
	uint64_t	n = 200;
	uint64_t   *h = keys(15, n);
	uint64_t   *more;
	SbfCompactParams cp = {0.01, 2 * n, SBF_DEFAULT_GROWTH, SBF_DEFAULT_TIGHTENING,
	false, NULL};
	SbfCompactRanks rk;
	uint8_t    *buf;
	size_t		len;
	SbfFilter	f;
	SbfView		v;
	int			b;
	bool		fits;

	CHECK_ST(sbf_compact_bits(2 * n, 0.01, SBF_HLL_P_DEFAULT, &b), SBF_OK);
	more = fresh_keys(h, n, b, 16, n + 1);
	sbf_compact_ranks(h, n, b, &rk);
	cp.ranks = &rk;
	CHECK_ST(sbf_compact_size(n, b, &cp, &len), SBF_OK);
	buf = malloc(len);
	CHECK_ST(sbf_compact_write(h, n, b, &cp, buf, len, &g_alloc), SBF_OK);
	CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
	CHECK_ST(sbf_copy(&f, &v, 4, 0, &g_alloc), SBF_OK);

	CHECK_ST(sbf_add_hashes(&f, more, (size_t) n), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) && v.capacity == 2 * n && v.nfp == 2 * n);
	fits = (double) (v.nfp + 1) <= ldexp(sbf_sized_error(0.01, 0.9), b);
	CHECK_ST(sbf_add_hash(&f, more[n], NULL), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(sbf_is_compact(&v) == fits);
	sbf_filter_free(&f);
	free(buf);
	free(h);
	free(more);
}

/*
 * The builder's bounds: a value of 4,096 fingerprints takes no new one in
 * place, nor does any value a batch of more than 4,096 hashes.
 */
static void
bounds(void)
{
	uint64_t   *h = keys(17, SBF_COMPACT_BUILD_MAX);
	uint64_t   *big = keys(18, SBF_COMPACT_BUILD_MAX + 1);
	SbfFilter	f;
	SbfView		v;

	aggregate(&f, h, SBF_COMPACT_BUILD_MAX);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(sbf_is_compact(&v));
	CHECK_ST(sbf_add_hash(&f, key(19, 0), NULL), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(!sbf_is_compact(&v) && v.nsegments == 2);
	sbf_filter_free(&f);

	aggregate(&f, h, 30);
	CHECK_ST(sbf_add_hashes(&f, big, SBF_COMPACT_BUILD_MAX + 1), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(!sbf_is_compact(&v));
	sbf_filter_free(&f);
	free(h);
	free(big);
}

/*
 * The writer of sorted fingerprints (what adds and unions use) writes the
 * bytes the writer of hashes does, and refuses fingerprints out of order or
 * wider than b.
 */
static void
sorted_writer(void)
{
	uint64_t	n = 300;
	uint64_t   *h = keys(22, n);
	uint64_t   *fp = malloc(n * sizeof(uint64_t));
	SbfCompactParams cp = {0.01, n, SBF_DEFAULT_GROWTH, SBF_DEFAULT_TIGHTENING, false, NULL};
	SbfCompactRanks rk;
	uint8_t    *a;
	uint8_t    *b2;
	size_t		len;
	uint64_t	t;
	int			b;

	CHECK_ST(sbf_compact_bits(n, 0.01, SBF_HLL_P_DEFAULT, &b), SBF_OK);
	sbf_compact_ranks(h, n, b, &rk);
	cp.ranks = &rk;
	CHECK_ST(sbf_compact_size(n, b, &cp, &len), SBF_OK);
	a = malloc(len);
	b2 = malloc(len);
	CHECK_ST(sbf_compact_write(h, n, b, &cp, a, len, &g_alloc), SBF_OK);
	sbf_ef_fingerprints(h, n, b, fp);
	sbf_hash_sort_all(fp, (size_t) n);
	CHECK_ST(sbf_compact_write_sorted(fp, n, b, &cp, b2, len), SBF_OK);
	CHECK(memcmp(a, b2, len) == 0);
	t = fp[0];
	fp[0] = fp[1];
	fp[1] = t;
	CHECK_ST(sbf_compact_write_sorted(fp, n, b, &cp, b2, len), fp[0] == fp[1] ? SBF_OK : SBF_E_PARAM);
	fp[1] = fp[0];
	fp[0] = t;
	fp[n - 1] |= UINT64_C(1) << b;
	CHECK_ST(sbf_compact_write_sorted(fp, n, b, &cp, b2, len), SBF_E_PARAM);
	free(a);
	free(b2);
	free(fp);
	free(h);
}

/* Every failed allocation of an add in place leaves the value as it was. */
static void
failed_allocations(void)
{
	uint64_t   *h = keys(20, 100);
	uint64_t   *more = keys(21, 3);
	SbfFilter	base;
	int			op;

	aggregate(&base, h, 100);
	for (op = 0; op < 2; op++)
	{
		long		k;

		for (k = 0; k < 20; k++)
		{
			SbfFilter	f;
			SbfView		v;
			SbfStatus	st;

			copy_filter(&base, &f);
			g_fail_after = k;
			st = op == 0 ? sbf_add_hash(&f, more[0], NULL) : sbf_add_hashes(&f, more, 3);
			g_fail_after = -1;
			CHECK(st == SBF_OK || st == SBF_E_NOMEM);
			if (st == SBF_E_NOMEM)
				CHECK(same_bytes(&f, &base));
			else
			{
				CHECK_ST(validate_filter(&f, &v), SBF_OK);
				CHECK(sbf_is_compact(&v));
			}
			sbf_filter_free(&f);
			if (st == SBF_OK)
				break;
		}
		CHECK(k > 0 && k < 20);
	}
	sbf_filter_free(&base);
	free(h);
	free(more);
}

int
main(void)
{
	RUN(never_above_13);
	RUN(exact_adds);
	RUN(ranks);
	RUN(capacity_kept);
	RUN(bounds);
	RUN(sorted_writer);
	RUN(failed_allocations);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
