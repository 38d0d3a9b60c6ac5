/*
 * test_compact_value.c
 *	  The compact form stored (docs/format5.md, section 3): read through the
 *	  one validator and the stored reader, answered by the views' lookups,
 *	  counts and rates and by lookup plans (decoded or read from its bytes),
 *	  and written on by every writer, which starts from its segmented form
 *	  (sbf_compact_expand) -- adds, unions with compact and segmented values,
 *	  budgets, deltas -- or keeps it where nothing changes (a copy, an add
 *	  of a match, a union of copies).  Refusals and failed allocations.
 *	  The builder writes it where it is smaller.
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
#include "sbf_plan.h"
#include "sbf_union.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

#define ABSENT		20000

/* The compact value of key(space, 0 .. n) at e, capacity n, precision hll_p. */
static uint8_t *
make_value(uint64_t n, int space, double e, int hll_p, size_t *len)
{
	SbfCompactParams p = {e, n, SBF_DEFAULT_GROWTH, SBF_DEFAULT_TIGHTENING, false, NULL};
	SbfCompactRanks rk;
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint8_t    *buf;
	uint64_t	i;
	int			b;

	for (i = 0; i < n; i++)
		h[i] = key(space, i);
	CHECK_ST(sbf_compact_bits(n, e, hll_p, &b), SBF_OK);
	sbf_compact_ranks(h, n, b, &rk);
	p.ranks = &rk;
	CHECK_ST(sbf_compact_size(n, b, &p, len), SBF_OK);
	buf = malloc(*len);
	CHECK_ST(sbf_compact_write(h, n, b, &p, buf, *len, &g_alloc), SBF_OK);
	free(h);
	return buf;
}

/* One more or one fewer ones in v's code's high area (twice: as it was). */
static void
corrupt_code(uint8_t *buf, const SbfView *v)
{
	buf[v->bits_offset] ^= 0x80;
}

/* Members of key(space, 0 .. n) not found in v. */
static uint64_t
missed(const SbfView *v, int space, uint64_t n)
{
	uint64_t	i;
	uint64_t	m = 0;

	for (i = 0; i < n; i++)
		m += sbf_contains_hash(v, key(space, i)) ? 0 : 1;
	return m;
}

/*
 * At 1 to 5,000 elements and two rates: the validator's view and the
 * stored reader's agree; every member found; every absent key answered as
 * the decoded fingerprints answer it, one by one and counted; # = n from
 * the fingerprints; the three rates; a short prefix asks for the whole.
 */
static void
reads(void)
{
	static const uint64_t ns[] = {1, 30, 500, 5000};
	size_t		i;
	int			t;

	for (i = 0; i < 4; i++)
		for (t = 0; t < 2; t++)
		{
			size_t		len;
			uint8_t    *buf = make_value(ns[i], 0, t ? 0.001 : 0.01, SBF_HLL_P_DEFAULT, &len);
			uint64_t   *fp = malloc(ns[i] * sizeof(uint64_t));
			uint64_t   *absent = malloc(ABSENT * sizeof(uint64_t));
			SbfCompactView cv;
			SbfView		v;
			SbfView		pv;
			uint64_t	j;
			uint64_t	differ = 0;
			uint64_t	expect = 0;

			CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
			CHECK_ST(sbf_parse_prefix(buf, len, len, &pv), SBF_OK);
			CHECK(memcmp(&v, &pv, sizeof(v)) == 0);
			CHECK_ST(sbf_parse_prefix(buf, len - 1, len, &pv), SBF_E_TRUNCATED);
			CHECK(sbf_is_compact(&v) && !sbf_is_exact(&v) && v.nsegments == 0 &&
				  v.hll_bytes == 0 && v.nfp == ns[i] && v.capacity == ns[i]);
			CHECK_ST(sbf_compact_check(buf, len, &cv), SBF_OK);
			CHECK_ST(sbf_compact_decode(&cv, fp, &g_alloc), SBF_OK);
			CHECK(missed(&v, 0, ns[i]) == 0);
			for (j = 0; j < ABSENT; j++)
			{
				absent[j] = key(1, j);
				expect += sbf_compact_array_has(&cv, fp, absent[j]) ? 1 : 0;
				differ += sbf_contains_hash(&v, absent[j]) !=
					sbf_compact_array_has(&cv, fp, absent[j]);
			}
			CHECK(differ == 0 && sbf_count_contained(&v, absent, ABSENT) == expect);
			CHECK(strcmp(sbf_count_source(&v), "fingerprints") == 0 &&
				  sbf_cardinality(&v) == (double) ns[i] &&
				  sbf_hll_cardinality(&v) == (double) ns[i] &&
				  !sbf_cardinality_needs_hll(&v));
			CHECK(sbf_fpr_bound(&v) == sbf_compact_fpr_bound(&cv) &&
				  sbf_fpr_bound(&v) <= v.error_rate);
			CHECK(sbf_expected_fpr(&v) == ldexp((double) ns[i], -cv.shape.b) &&
				  sbf_current_fpr(&v) <= sbf_expected_fpr(&v) &&
				  sbf_current_fpr(&v) > 0.0);
			free(absent);
			free(fp);
			free(buf);
		}
}

/*
 * The validator refuses what the compact layout allows but the server
 * does not store (b not above the default precision), and every defect of
 * the layout; the stored reader checks the header and length, not the code.
 */
static void
refusals(void)
{
	size_t		len;
	uint8_t    *buf = make_value(2, 0, 0.4, SBF_HLL_P_MIN, &len);
	uint8_t    *longer;
	SbfCompactView cv;
	SbfView		v;

	CHECK_ST(sbf_compact_check(buf, len, &cv), SBF_OK);
	CHECK(cv.shape.b <= SBF_HLL_P_DEFAULT);
	CHECK_ST(sbf_validate(buf, len, &v), SBF_E_PARAM);
	CHECK_ST(sbf_parse_prefix(buf, len, len, &v), SBF_E_PARAM);
	free(buf);

	buf = make_value(30, 0, 0.01, SBF_HLL_P_DEFAULT, &len);
	CHECK(sbf_validate(buf, len - 1, &v) != SBF_OK);
	longer = malloc(len + 1);
	memcpy(longer, buf, len);
	longer[len] = 0;
	CHECK(sbf_validate(longer, len + 1, &v) != SBF_OK);
	CHECK_ST(sbf_parse_prefix(longer, len + 1, len + 1, &v), SBF_E_LENGTH);
	free(longer);
	/* the code's first byte: another number of ones in its high area */
	CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
	corrupt_code(buf, &v);
	CHECK_ST(sbf_validate(buf, len, &v), SBF_E_BITS);
	CHECK_ST(sbf_parse_prefix(buf, len, len, &v), SBF_OK);
	corrupt_code(buf, &v);
	buf[1] |= 0x01;				/* a flag the form does not have */
	CHECK_ST(sbf_validate(buf, len, &v), SBF_E_FLAGS);
	buf[1] &= (uint8_t) ~0x01;
	buf[0] = SBF_FORMAT_V4;		/* labelled 4: read as version 4, refused */
	CHECK(sbf_validate(buf, len, &v) != SBF_OK);
	free(buf);
}

/*
 * Plans: a small value decodes (its key the whole value) at its
 * SBF_PLAN_DECODE_AFTER(n)-th lookup, reading its bytes before; a large one
 * reads its bytes (its key the header); both answer as the view before and
 * after; a copy takes the plan; a value whose code changed is not decoded:
 * its plan reads its bytes, answering as the bytes do.
 */
static void
plans(void)
{
	static const uint64_t ns[] = {30, 4096, 6000};
	size_t		i;

	for (i = 0; i < 3; i++)
	{
		size_t		len;
		uint8_t    *buf = make_value(ns[i], 0, 0.01, SBF_HLL_P_DEFAULT, &len);
		uint8_t    *copy = malloc(len);
		uint64_t   *h = malloc(ABSENT * sizeof(uint64_t));
		SbfPlan    *p;
		SbfView		v;
		uint64_t	j;
		uint64_t	differ = 0;

		CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
		CHECK_ST(sbf_plan_build(buf, len, &g_alloc, &p), SBF_OK);
		CHECK(p->nseg == 1 && !sbf_plan_windowed(p));
		CHECK((p->seg[0].keys != NULL) == (ns[i] <= SBF_PLAN_DECODE_MAX &&
										   len - v.bits_offset <= SBF_PLAN_KEY_DATA_MAX));
		CHECK(p->keylen == (p->seg[0].keys != NULL ? len : v.bits_offset));
		for (j = 0; j < ABSENT; j++)
		{
			h[j] = key(j & 1, j / 2);
			differ += sbf_plan_contains(p, h[j]) != sbf_contains_hash(&v, h[j]);
			if (p->seg[0].keys != NULL)
				CHECK(*p->seg[0].left ==
					  (j + 1 < SBF_PLAN_DECODE_AFTER(ns[i]) ?
					   SBF_PLAN_DECODE_AFTER(ns[i]) - j - 1 : 0));
		}
		CHECK(differ == 0 && sbf_plan_count(p, h, ABSENT) == sbf_count_contained(&v, h, ABSENT));
		memcpy(copy, buf, len);
		CHECK(sbf_plan_matches(p, copy, len));
		sbf_plan_bind(p, copy);
		CHECK(sbf_plan_contains(p, key(0, 0)));
		sbf_plan_free(p, &g_alloc);
		if (ns[i] <= SBF_PLAN_DECODE_MAX)
		{
			SbfView		bad;

			corrupt_code(copy, &v);
			CHECK_ST(sbf_parse_prefix(copy, len, len, &bad), SBF_OK);
			CHECK_ST(sbf_plan_build(copy, len, &g_alloc, &p), SBF_OK);
			differ = 0;
			for (j = 0; j < SBF_PLAN_DECODE_AFTER(ns[i]) + 100; j++)
				differ += sbf_plan_contains(p, h[j]) != sbf_contains_hash(&bad, h[j]);
			CHECK(differ == 0 && *p->seg[0].left > UINT64_MAX / 2);
			sbf_plan_free(p, &g_alloc);
		}
		free(h);
		free(copy);
		free(buf);
	}
}

/* A filter holding a copy of buf[0..len) (sbf_copy: the same bytes). */
static void
copy_of(const uint8_t *buf, size_t len, SbfFilter *f)
{
	SbfView		v;

	CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
	CHECK_ST(sbf_copy(f, &v, 4, 16, &g_alloc), SBF_OK);
	CHECK(f->len == len && memcmp(SBF_PAYLOAD(f), buf, len) == 0);
}

/*
 * Adds: a match keeps the value byte for byte; anything else makes its
 * segmented form of version 5 (the compact segment first) and adds there,
 * one at a time or batched, to the same bytes; every key found after.
 */
static void
adds(void)
{
	size_t		len;
	uint8_t    *buf = make_value(300, 0, 0.01, SBF_HLL_P_DEFAULT, &len);
	uint64_t	h[500];
	SbfFilter	f;
	SbfFilter	g;
	SbfView		v;
	SbfSegment	s;
	bool		inserted = true;
	int			i;

	copy_of(buf, len, &f);
	CHECK_ST(sbf_add_hash(&f, key(0, 7), &inserted), SBF_OK);
	CHECK(!inserted && f.len == len && memcmp(SBF_PAYLOAD(&f), buf, len) == 0);
	CHECK_ST(sbf_add_hashes(&f, h, 0), SBF_OK);
	for (i = 0; i < 500; i++)
		h[i] = i < 100 ? key(0, (uint64_t) i) : key(2, (uint64_t) i);
	CHECK_ST(sbf_add_hashes(&f, h, 100), SBF_OK);
	CHECK(f.len == len && memcmp(SBF_PAYLOAD(&f), buf, len) == 0);

	CHECK_ST(sbf_add_hash(&f, key(2, 0), &inserted), SBF_OK);
	CHECK(inserted);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.version == SBF_FORMAT_V5 && !sbf_is_compact(&v) && v.nsegments == 2);
	sbf_get_segment(&v, 0, &s);
	CHECK(s.kind == SBF_KIND_COMPACT && s.count == 300);
	CHECK(missed(&v, 0, 300) == 0 && sbf_contains_hash(&v, key(2, 0)));
	CHECK(fabs(sbf_cardinality(&v) - 301.0) < 0.5);
	sbf_filter_free(&f);

	/* batched: the leading matches skipped, then the segmented adds */
	copy_of(buf, len, &f);
	copy_of(buf, len, &g);
	CHECK_ST(sbf_add_hashes(&f, h, 500), SBF_OK);
	for (i = 0; i < 500; i++)
		CHECK_ST(sbf_add_hash(&g, h[i], NULL), SBF_OK);
	CHECK(same_bytes(&f, &g));
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(missed(&v, 0, 300) == 0 && missed(&v, 2, 500) <= 100);
	for (i = 100; i < 500; i++)
		CHECK(sbf_contains_hash(&v, h[i]));
	sbf_filter_free(&f);
	sbf_filter_free(&g);
	free(buf);
}

/*
 * sbf_convert makes the segmented form; sbf_delta continues its chain as
 * the delta of that form does.
 */
static void
convert_delta(void)
{
	size_t		len;
	uint8_t    *buf = make_value(200, 0, 0.01, SBF_HLL_P_DEFAULT, &len);
	SbfCompactView cv;
	SbfFilter	f;
	SbfFilter	x;
	SbfFilter	d1;
	SbfFilter	d2;
	SbfView		v;
	SbfView		xv;

	copy_of(buf, len, &f);
	CHECK_ST(sbf_convert(&f), SBF_OK);
	CHECK_ST(sbf_compact_check(buf, len, &cv), SBF_OK);
	CHECK_ST(sbf_compact_expand(&cv, &x, 4, &g_alloc), SBF_OK);
	CHECK(same_bytes(&f, &x));
	CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
	CHECK_ST(sbf_delta(&d1, &v, 4, &g_alloc), SBF_OK);
	sbf_filter_view(&x, &xv);
	CHECK_ST(sbf_delta(&d2, &xv, 4, &g_alloc), SBF_OK);
	CHECK(same_bytes(&d1, &d2));
	CHECK_ST(validate_filter(&d1, &v), SBF_OK);
	CHECK((v.flags & SBF_FLAG_CHAIN) != 0 && sbf_cardinality(&v) == 0.0);
	sbf_filter_free(&f);
	sbf_filter_free(&x);
	sbf_filter_free(&d1);
	sbf_filter_free(&d2);
	free(buf);
}

/*
 * Unions: of copies, the value itself; of two compact values, or one with
 * a version-4 value, version 5 with every key of both found; within a
 * budget the compact segments' bounds add up; three at once as pairwise.
 */
static void
unions(void)
{
	size_t		la;
	size_t		lb;
	uint8_t    *a = make_value(100, 0, 0.01, SBF_HLL_P_DEFAULT, &la);
	uint8_t    *b = make_value(400, 3, 0.01, SBF_HLL_P_DEFAULT, &lb);
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfView		in[3];
	SbfView		v;
	SbfFilter	seg;
	SbfFilter	u;
	double		bound;

	CHECK_ST(sbf_validate(a, la, &in[0]), SBF_OK);
	in[1] = in[0];
	CHECK_ST(sbf_union_many(&u, in, 2, &(SbfUnionSpec) {0.0, true, false}, NULL, 4, &g_alloc), SBF_OK);
	CHECK(u.len == la && memcmp(SBF_PAYLOAD(&u), a, la) == 0);
	sbf_filter_free(&u);

	copy_of(a, la, &u);
	CHECK_ST(sbf_validate(b, lb, &in[1]), SBF_OK);
	CHECK_ST(sbf_union(&u, &in[1]), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(v.version == SBF_FORMAT_V5 && v.nsegments == 2 &&
		  missed(&v, 0, 100) == 0 && missed(&v, 3, 400) == 0);
	CHECK(fabs(sbf_cardinality(&v) - 500.0) < 50.0);
	CHECK(fabs(sbf_fpr_bound(&v) - (sbf_fpr_bound(&in[0]) + sbf_fpr_bound(&in[1]))) < 1e-12);
	sbf_filter_free(&u);

	/* within a budget: refused above the error rate, taken at twice it */
	copy_of(a, la, &u);
	CHECK_ST(sbf_union_budget(&u, &in[1], 0.01, &bound), SBF_E_OVER_BUDGET);
	CHECK(bound > 0.01 && u.len == la);
	CHECK_ST(sbf_union_budget(&u, &in[1], 0.02, &bound), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(v.error_rate == 0.02 && sbf_fpr_bound(&v) <= 0.02);
	sbf_filter_free(&u);

	/* with a version-4 value, either way round, and three at once */
	CHECK_ST(seg_create(&seg, &p, 4, &g_alloc), SBF_OK);
	add_keys(&seg, 5, 0, 700);
	sbf_filter_view(&seg, &in[2]);
	CHECK_ST(sbf_union_many(&u, in, 3, &(SbfUnionSpec) {0.0, true, false}, NULL, 4, &g_alloc), SBF_OK);
	CHECK_ST(validate_filter(&u, &v), SBF_OK);
	CHECK(v.version == SBF_FORMAT_V5 && missed(&v, 0, 100) == 0 &&
		  missed(&v, 3, 400) == 0 && missed(&v, 5, 700) == 0);
	sbf_filter_free(&u);
	CHECK_ST(sbf_union(&seg, &in[0]), SBF_OK);
	CHECK_ST(validate_filter(&seg, &v), SBF_OK);
	CHECK(v.version == SBF_FORMAT_V5 && missed(&v, 0, 100) == 0 && missed(&v, 5, 700) == 0);
	sbf_filter_free(&seg);
	free(a);
	free(b);
}

/*
 * Every failed allocation of a write on a compact value: refused, the value
 * as it was (a delta: empty), no leak.
 */
static void
failed_allocations(void)
{
	size_t		la;
	size_t		lb;
	uint8_t    *a = make_value(50, 0, 0.01, SBF_HLL_P_DEFAULT, &la);
	uint8_t    *b = make_value(60, 1, 0.01, SBF_HLL_P_DEFAULT, &lb);
	SbfView		vb;
	long		k;
	int			op;

	CHECK_ST(sbf_validate(b, lb, &vb), SBF_OK);
	for (op = 0; op < 3; op++)
	{
		for (k = 0; k < 40; k++)
		{
			SbfFilter	f;
			SbfStatus	st;

			copy_of(a, la, &f);
			g_fail_after = k;
			st = op == 0 ? sbf_add_hash(&f, key(9, 1), NULL) :
				op == 1 ? sbf_union(&f, &vb) : sbf_convert(&f);
			g_fail_after = -1;
			CHECK(st == SBF_OK || st == SBF_E_NOMEM);
			if (st == SBF_E_NOMEM)
				CHECK(f.len == la && memcmp(SBF_PAYLOAD(&f), a, la) == 0);
			sbf_filter_free(&f);
			if (st == SBF_OK)
				break;
		}
		CHECK(k > 0 && k < 40);	/* failed at least once, then succeeded */
	}
	/* sbf_delta: an empty f on every failure (f is freed, whatever it was) */
	for (k = 0; k < 40; k++)
	{
		SbfFilter	d;
		SbfView		va;
		SbfStatus	st;

		CHECK_ST(sbf_validate(a, la, &va), SBF_OK);
		memset(&d, 0xab, sizeof(d));
		g_fail_after = k;
		st = sbf_delta(&d, &va, 4, &g_alloc);
		g_fail_after = -1;
		CHECK(st == SBF_OK || (st == SBF_E_NOMEM && d.base == NULL));
		sbf_filter_free(&d);
		if (st == SBF_OK)
			break;
	}
	CHECK(k > 0 && k < 40);
	free(a);
	free(b);
}

/* The hashes key(space, 0 .. n), sorted, in a new array. */
static uint64_t *
sorted_keys(int space, uint64_t n)
{
	uint64_t   *h = malloc((n ? n : 1) * sizeof(uint64_t));
	uint64_t	j;

	for (j = 0; j < n; j++)
		h[j] = key(space, j);
	sbf_hash_sort_all(h, n);
	return h;
}

/*
 * The builder (sbf_build_final) writes the compact form where it is
 * smaller, up to 4,096 elements: at 1%, within issue 36's target (1.1 times
 * the optimal Bloom filter's bytes, plus 24, with a 4-byte varlena header)
 * and smaller than the segmented value; every member found, # exact, the
 * bound within the share the builder sizes for.  5,000 elements stay
 * segmented; so does a value of another HyperLogLog precision.
 */
static void
built(void)
{
	static const uint64_t ns[] = {20, 30, 100, 300, 1000, 3000, 4096, 5000};
	size_t		i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
	{
		uint64_t	n = ns[i];
		uint64_t   *h = sorted_keys(4, n);
		SbfParams	p = params(1000, 0.01, 2, 0.9, SBF_HLL_P_DEFAULT);
		double		target = 1.1 * (double) n * log(100.0) / (log(2.0) * log(2.0)) / 8.0 + 24.0;
		SbfFilter	f;
		SbfFilter	g;
		SbfView		v;

		CHECK_ST(sbf_build_final(&f, &p, h, n, 4, &g_alloc), SBF_OK);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		CHECK(sbf_is_compact(&v) == (n <= 4096));
		CHECK(missed(&v, 4, n) == 0 && sbf_cardinality(&v) == (double) n);
		CHECK(sbf_fpr_bound(&v) <= pow(0.01, 1.04));
		if (sbf_is_compact(&v))
		{
			CHECK((double) (f.len + 4) <= target);
			CHECK_ST(sbf_build_sorted(&g, &p, h, n, pow(0.01, 1.04), 0, 4, &g_alloc), SBF_OK);
			CHECK(f.len < g.len);
			sbf_filter_free(&g);
			/* another precision: the segmented value */
			p.hll_p = 10;
			CHECK_ST(sbf_build_final(&g, &p, h, n, 4, &g_alloc), SBF_OK);
			CHECK_ST(validate_filter(&g, &v), SBF_OK);
			CHECK(!sbf_is_compact(&v));
			sbf_filter_free(&g);
		}
		sbf_filter_free(&f);
		free(h);
	}
}

/*
 * The builder's final as it was written before it wrote the compact form
 * first (the exact form while it stays exact, else one segment; then the
 * compact form where strictly smaller), into f: what sbf_build_final must
 * still write, byte for byte.
 */
static void
final_the_long_way(SbfFilter *f, const SbfParams *p, const uint64_t *h, size_t n)
{
	double		share = sbf_sized_error(p->error_rate, p->tightening);
	SbfCompactRanks rk;
	SbfCompactParams cp = {p->error_rate, (uint64_t) n, p->growth, p->tightening,
	false, &rk};
	bool		exact = false;
	size_t		len;
	int			b = SBF_COMPACT_EXACT_BITS;

	if (n <= SBF_EXACT_MAX)
	{
		size_t		used = 0;
		SbfView		v;

		CHECK_ST(sbf_create_sized(f, p, n, 4, &g_alloc), SBF_OK);
		CHECK_ST(sbf_exact_add_run(f, h, n, &used), SBF_OK);
		sbf_filter_view(f, &v);
		exact = used == n && sbf_is_exact(&v);
		if (!exact)
			sbf_filter_free(f);
	}
	if (!exact)
		CHECK_ST(sbf_build_sorted(f, p, h, n, share, 0, 4, &g_alloc), SBF_OK);
	if (n > SBF_COMPACT_BUILD_MAX || sbf_build_compact_bits(p, n, &b) != SBF_OK)
		return;
	sbf_compact_ranks(h, n, b, &rk);
	if (sbf_compact_size(n, b, &cp, &len) == SBF_OK && len < f->len &&
		len <= SBF_COMPACT_BUILD_MAX_BYTES)
		CHECK_ST(sbf_compact_store(f, h, n, b, &cp, len, false), SBF_OK);
}

/*
 * sbf_build_final writes the compact form without building the exact form
 * or the segment first where it is smaller than both can be
 * (compact_first), and that changes no byte: at 1 to 4,096 elements and
 * five rates, with tightening 0.9 and 1, its values equal those of the
 * long way (above), compact or not.
 */
static void
built_as_before(void)
{
	static const uint64_t ns[] = {1, 2, 5, 8, 9, 10, 13, 14, 20, 50, 100, 200, 400,
	700, 1000, 1500, 2000, 2048, 2049, 3000, 4096, 4097};
	static const double rates[] = {1e-6, 0.001, 0.01, 0.1, 0.4};
	size_t		i;
	size_t		r;
	int			t;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
			for (t = 0; t < 2; t++)
			{
				uint64_t	n = ns[i];
				uint64_t   *h = sorted_keys(7, n);
				SbfParams	p = params(1000, rates[r], 2, t ? 1.0 : 0.9,
									   SBF_HLL_P_DEFAULT);
				SbfFilter	f;
				SbfFilter	g;

				CHECK_ST(sbf_build_final(&f, &p, h, n, 4, &g_alloc), SBF_OK);
				final_the_long_way(&g, &p, h, n);
				CHECK(same_bytes(&f, &g));
				sbf_filter_free(&f);
				sbf_filter_free(&g);
				free(h);
			}
}

int
main(void)
{
	RUN(reads);
	RUN(refusals);
	RUN(plans);
	RUN(adds);
	RUN(convert_delta);
	RUN(unions);
	RUN(built_as_before);
	RUN(failed_allocations);
	RUN(built);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
