/*
 * test_exact.c
 *	  Unit tests of format 2: the exact form, its conversion and batches, the rejects,
 *	  unions of exact filters, format-1 values, the delta chain, directory
 *	  counts and the exact form's binary search
 *	  (sbf_exact.c).  Prints "ok - name" or "not ok - name" per case and one final
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
#include "sbf_dir.h"
#include "sbf_internal.h"
#include "sbf_kind.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

/* sbf_create's empty filter is the 52-byte exact form; adds stay exact. */
static void
exact_small(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	uint64_t	i;
	uint64_t	fp = 0;
	bool		ins;

	CHECK_ST(sbf_create(&f, &p, 4, &g_alloc), SBF_OK);
	CHECK(f.len == SBF_EXACT_HEADER_BYTES);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(sbf_is_exact(&v) && v.version == 2 && v.nhashes == 0 && v.nsegments == 0);
	CHECK(sbf_cardinality(&v) == 0.0 && sbf_fpr_bound(&v) == 0.0);
	CHECK(strcmp(sbf_count_source(&v), "exact") == 0);
	add_keys(&f, 0, 0, 100);
	CHECK_ST(sbf_add_hash(&f, key(0, 7), &ins), SBF_OK);
	CHECK(!ins);
	CHECK(f.len == SBF_EXACT_HEADER_BYTES + 8 * 100);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(sbf_is_exact(&v) && v.nhashes == 100);
	CHECK(sbf_cardinality(&v) == 100.0);
	for (i = 1; i < v.nhashes; i++)
		CHECK(sbf_exact_hash(&v, i - 1) < sbf_exact_hash(&v, i));
	for (i = 0; i < 100; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	/* no false positives at all */
	for (i = 0; i < 200000; i++)
		fp += sbf_contains_hash(&v, key(1, i));
	CHECK(fp == 0);
	CHECK(sbf_current_fpr(&v) == 0.0);
	sbf_filter_free(&f);
}

/* A frozen exact payload: header fields and hashes at fixed offsets. */
static void
exact_golden(void)
{
	SbfParams	p = params(10, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	const uint8_t *b;

	CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, sbf_hash_int64(42), NULL), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, sbf_hash("a", 1), NULL), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	b = SBF_PAYLOAD(&f);
	CHECK(f.len == 52 + 16);
	CHECK(b[0] == 2 && b[1] == SBF_FLAG_EXACT && b[2] == 1 && b[3] == 9);
	CHECK(sbf_load16(b + 4) == 2 && sbf_load16(b + 6) == 0 && sbf_load32(b + 8) == 2);
	CHECK(sbf_load64(b + 28) == 10 && sbf_load64(b + 36) == 10);
	CHECK(sbf_load_double(b + 44) == sbf_next_error(0.01, 0.9, 0.0, 0.0));
	/* ascending: 0xe6c6... ("a") after the bigint 42's hash when smaller */
	CHECK(sbf_load64(b + 52) < sbf_load64(b + 60));
	CHECK((sbf_load64(b + 52) == sbf_hash("a", 1)) !=
		  (sbf_load64(b + 60) == sbf_hash("a", 1)));
	sbf_filter_free(&f);
}

/*
 * Growing by adds: the exact form is never larger than the 1.0 filter
 * (segmented from the start) with the same adds, and converts exactly once,
 * with no false negative at any step and an exact count while exact.  After
 * the conversion both are segmented; when each appends a segment depends on
 * its order-dependent false-positive skips, so the converted one may append
 * a few adds earlier: sizes are compared with a slack of 16 adds.
 */
static void
exact_conversion(void)
{
#define CONV_N 3000
#define CONV_SLACK 16
	static const uint64_t caps[] = {1, 10, 1000};
	static size_t newlen[CONV_N + CONV_SLACK + 1];
	static size_t oldlen[CONV_N + CONV_SLACK + 1];
	size_t		ci;

	for (ci = 0; ci < 3; ci++)
	{
		SbfParams	p = params(caps[ci], 0.01, 2, 0.9, 9);
		SbfFilter	f;
		SbfFilter	old;
		SbfView		v;
		uint64_t	n;
		uint64_t	converted_at = 0;
		uint64_t	i;

		CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
		CHECK_ST(seg_create(&old, &p, 0, &g_alloc), SBF_OK);
		for (n = 1; n <= CONV_N + CONV_SLACK; n++)
		{
			add_keys(&f, 0, n - 1, n);
			add_keys(&old, 0, n - 1, n);
			newlen[n] = f.len;
			oldlen[n] = old.len;
			sbf_filter_view(&f, &v);
			if (sbf_is_exact(&v))
			{
				CHECK(converted_at == 0);
				CHECK(f.len <= old.len);
				CHECK(v.nhashes == n && sbf_cardinality(&v) == (double) n);
			}
			else if (converted_at == 0)
			{
				converted_at = n;
				CHECK_ST(validate_filter(&f, &v), SBF_OK);
				for (i = 0; i < n; i++)
					CHECK(sbf_contains_hash(&v, key(0, i)));
			}
		}
		for (n = 1; n <= CONV_N; n++)
			CHECK(newlen[n] <= oldlen[n + CONV_SLACK]);
		CHECK(converted_at > 0);
		if (caps[ci] == 1000)
			CHECK(converted_at > 100);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		for (i = 0; i < CONV_N; i++)
			CHECK(sbf_contains_hash(&v, key(0, i)));
		fprintf(stderr, "# capacity %" PRIu64 ": exact until %" PRIu64 " elements\n",
				caps[ci], converted_at - 1);
		sbf_filter_free(&f);
		sbf_filter_free(&old);
	}
}

/*
 * The batch add from the exact form is the one-by-one add, byte for byte:
 * unsorted, ascending (sbf_exact_add_run's runs), ascending with repeats and
 * with hashes the filter holds already, from an empty and from a non-empty
 * exact filter, with a sparse and a quickly dense HyperLogLog.
 */
static int
exact_batch_cmp(const void *pa, const void *pb)
{
	uint64_t	a = *(const uint64_t *) pa;
	uint64_t	b = *(const uint64_t *) pb;

	return (a > b) - (a < b);
}

static void
exact_batch(void)
{
	static const uint64_t sizes[] = {1, 14, 15, 40, 300, 2048, 2049, 5000};
	static const int hllp[] = {9, 4};
	size_t		si;
	int			order;
	int			pi;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (order = 0; order < 4; order++)
			for (pi = 0; pi < 2; pi++)
			{
				SbfParams	p = params(1000, 0.01, 2, 0.9, hllp[pi]);
				uint64_t	n = sizes[si];
				uint64_t   *h = malloc(n * 8);
				SbfFilter	a;
				SbfFilter	b;
				uint64_t	i;

				for (i = 0; i < n; i++)
					h[i] = order == 2 ? key(3, i / 2) : key(3, i);
				if (order >= 1)
					qsort(h, n, 8, exact_batch_cmp);
				CHECK_ST(sbf_create_sized(&a, &p, n, 0, &g_alloc), SBF_OK);
				CHECK_ST(sbf_create_sized(&b, &p, n, 0, &g_alloc), SBF_OK);
				if (order == 3)
				{
					/* some of the batch is there already, and some is not */
					for (i = 0; i < n; i += 3)
					{
						CHECK_ST(sbf_add_hash(&a, h[i], NULL), SBF_OK);
						CHECK_ST(sbf_add_hash(&b, h[i], NULL), SBF_OK);
					}
					add_keys(&a, 4, 0, 5);
					add_keys(&b, 4, 0, 5);
				}
				CHECK_ST(sbf_add_hashes(&a, h, n), SBF_OK);
				for (i = 0; i < n; i++)
					CHECK_ST(sbf_add_hash(&b, h[i], NULL), SBF_OK);
				CHECK(a.len == b.len && memcmp(SBF_PAYLOAD(&a), SBF_PAYLOAD(&b), a.len) == 0);
				free(h);
				sbf_filter_free(&a);
				sbf_filter_free(&b);
			}
}

/* The validator rejects every malformed exact form. */
static void
exact_rejects(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	uint8_t    *b;
	uint8_t    *buf;
	size_t		len;
	size_t		i;

	CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 3);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	len = f.len;
	buf = SBF_PAYLOAD(&f);
	b = malloc(len + 8);
	for (i = 0; i < len; i++)
		CHECK(validate_copy(buf, i) != SBF_OK);
	memcpy(b, buf, len);
	memset(b + len, 0, 8);
	CHECK(validate_copy(b, len + 8) != SBF_OK);

#define MUTATE(stmt, expected) \
	do { \
		memcpy(b, buf, len); \
		stmt; \
		CHECK_ST(validate_copy(b, len), expected); \
	} while (0)
	MUTATE((void) 0, SBF_OK);
	MUTATE(b[1] |= SBF_FLAG_CHAIN, SBF_OK);
	MUTATE(b[0] = 1, SBF_E_FLAGS);
	MUTATE(b[1] |= SBF_FLAG_HLL_DENSE, SBF_E_FLAGS);
	MUTATE(b[1] |= SBF_FLAG_OVERLAP, SBF_E_FLAGS);
	MUTATE(b[1] |= 0x40, SBF_E_FLAGS);
	MUTATE(b[6] = 1, SBF_E_FLAGS);
	MUTATE(b[8] = 2, SBF_E_LENGTH);
	MUTATE(b[8] = 4, SBF_E_TRUNCATED);
	MUTATE(sbf_store32(b + 8, SBF_EXACT_MAX + 1), SBF_E_EXACT);
	MUTATE(sbf_store64(b + 36, 0), SBF_E_EXACT);
	MUTATE(sbf_store64(b + 36, UINT64_C(1) << 62), SBF_E_EXACT);
	MUTATE(sbf_store_double(b + 44, 0.5), SBF_E_EXACT);
	MUTATE(sbf_store_double(b + 44, NAN), SBF_E_EXACT);
	MUTATE(sbf_store_double(b + 44, 0.0), SBF_E_EXACT);
	MUTATE(sbf_store_double(b + 12, 0.6), SBF_E_PARAM);
	/* hashes out of order, or a duplicate */
	MUTATE((sbf_store64(b + 52, sbf_load64(buf + 60)),
			sbf_store64(b + 60, sbf_load64(buf + 52))), SBF_E_EXACT);
	MUTATE(sbf_store64(b + 60, sbf_load64(buf + 52)), SBF_E_EXACT);
#undef MUTATE
	free(b);
	sbf_filter_free(&f);
}

/*
 * Unions with an exact side are exact: two exact operands merge their
 * lists (the same bytes in either order), an exact one adds its hashes to a
 * segmented one (the same bytes in either order, directory count kept).
 */
static void
exact_union(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	a;
	SbfFilter	b;
	SbfFilter	c;
	SbfFilter	d;
	SbfView		va;
	SbfView		vb;
	SbfView		v;
	uint64_t	i;

	CHECK_ST(sbf_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&b, &p, 0, &g_alloc), SBF_OK);
	add_keys(&a, 0, 0, 60);
	add_keys(&b, 0, 40, 100);
	sbf_filter_view(&a, &va);
	sbf_filter_view(&b, &vb);
	CHECK_ST(sbf_copy(&c, &va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_copy(&d, &vb, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&c, &vb), SBF_OK);
	CHECK_ST(sbf_union(&d, &va), SBF_OK);
	CHECK(c.len == d.len && memcmp(SBF_PAYLOAD(&c), SBF_PAYLOAD(&d), c.len) == 0);
	CHECK_ST(validate_filter(&c, &v), SBF_OK);
	CHECK(sbf_is_exact(&v) && sbf_cardinality(&v) == 100.0);
	/* f UNION f = f */
	sbf_filter_free(&d);
	CHECK_ST(sbf_copy(&d, &v, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&d, &v), SBF_OK);
	CHECK(c.len == d.len && memcmp(SBF_PAYLOAD(&c), SBF_PAYLOAD(&d), c.len) == 0);
	sbf_filter_free(&d);

	/* big exact operands convert; no false negatives */
	sbf_filter_free(&a);
	sbf_filter_free(&b);
	CHECK_ST(sbf_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_create(&b, &p, 0, &g_alloc), SBF_OK);
	add_keys(&a, 0, 0, 150);
	add_keys(&b, 0, 150, 300);
	sbf_filter_view(&a, &va);
	sbf_filter_view(&b, &vb);
	CHECK(sbf_is_exact(&va) && sbf_is_exact(&vb));
	CHECK_ST(sbf_copy(&d, &va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&d, &vb), SBF_OK);
	CHECK_ST(validate_filter(&d, &v), SBF_OK);
	CHECK(!sbf_is_exact(&v));
	CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
	for (i = 0; i < 300; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	sbf_filter_free(&d);

	/* exact with segmented, both orders */
	sbf_filter_free(&b);
	CHECK_ST(seg_create(&b, &p, 0, &g_alloc), SBF_OK);
	add_keys(&b, 0, 1000, 5000);
	sbf_filter_view(&b, &vb);
	CHECK_ST(sbf_copy(&d, &va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&d, &vb), SBF_OK);
	sbf_filter_free(&c);
	CHECK_ST(sbf_copy(&c, &vb, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&c, &va), SBF_OK);
	CHECK(c.len == d.len && memcmp(SBF_PAYLOAD(&c), SBF_PAYLOAD(&d), c.len) == 0);
	CHECK_ST(validate_filter(&c, &v), SBF_OK);
	CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
	for (i = 0; i < 150; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	for (i = 1000; i < 5000; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	/*
	 * a union whose result has the segments of an input without OVERLAP
	 * (here big's: small's lie in them) keeps the directory count, in
	 * either order, with the same bytes
	 */
	{
		SbfFilter	big;
		SbfFilter	small;
		SbfFilter	x;
		SbfFilter	y;
		SbfView		vbig;
		SbfView		vsmall;

		CHECK_ST(seg_create(&small, &p, 0, &g_alloc), SBF_OK);
		add_keys(&small, 0, 0, 500);
		sbf_filter_view(&small, &vsmall);
		CHECK_ST(sbf_copy(&big, &vsmall, 0, 0, &g_alloc), SBF_OK);
		add_keys(&big, 0, 500, 3000);
		sbf_filter_view(&big, &vbig);
		CHECK_ST(sbf_copy(&x, &vbig, 0, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_union(&x, &vsmall), SBF_OK);
		CHECK_ST(sbf_copy(&y, &vsmall, 0, 0, &g_alloc), SBF_OK);
		CHECK_ST(sbf_union(&y, &vbig), SBF_OK);
		sbf_filter_view(&x, &v);
		CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
		CHECK(fabs(sbf_cardinality(&v) - 3000.0) < 30.0);
		CHECK(same_bytes(&x, &y));
		/* the result's segments are big's, byte for byte */
		CHECK(memcmp(SBF_PAYLOAD(&x) + SBF_SEGDIR_OFFSET(0),
					 vbig.buf + SBF_SEGDIR_OFFSET(0),
					 vbig.hll_offset - SBF_SEGDIR_OFFSET(0)) == 0);
		sbf_filter_free(&big);
		sbf_filter_free(&small);
		sbf_filter_free(&x);
		sbf_filter_free(&y);
	}
	/* two segmented operands: the HyperLogLog answers */
	CHECK_ST(sbf_union(&c, &vb), SBF_OK);
	CHECK_ST(validate_filter(&c, &v), SBF_OK);
	CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
	sbf_filter_free(&d);
	CHECK_ST(seg_create(&d, &p, 0, &g_alloc), SBF_OK);
	add_keys(&d, 0, 4000, 9000);
	sbf_filter_view(&d, &v);
	CHECK_ST(sbf_union(&c, &v), SBF_OK);
	CHECK_ST(validate_filter(&c, &v), SBF_OK);
	CHECK(strcmp(sbf_count_source(&v), "hll") == 0);
	sbf_filter_free(&a);
	sbf_filter_free(&b);
	sbf_filter_free(&c);
	sbf_filter_free(&d);
}

/*
 * A format-1 value (the frozen golden payload of 1.0) reads, answers with
 * the HyperLogLog, and grows: a write relabels it version 2 with OVERLAP.
 */
static void
format1_values(void)
{
	SbfParams	p = params(10, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfFilter	g;
	SbfView		v;
	SbfView		v1;
	uint8_t    *one;
	size_t		len;
	double		card;
	uint64_t	i;

	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, sbf_hash("a", 1), NULL), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, sbf_hash_int64(42), NULL), SBF_OK);
	len = f.len;
	one = malloc(len);
	memcpy(one, SBF_PAYLOAD(&f), len);
	one[0] = 1;
	CHECK(sbf_hash(one, len) == UINT64_C(0xd5ec27e209cbc51d));
	CHECK_ST(sbf_validate(one, len, &v1), SBF_OK);
	CHECK(v1.version == 1 && strcmp(sbf_count_source(&v1), "hll") == 0);
	CHECK(sbf_contains_hash(&v1, sbf_hash("a", 1)));
	card = sbf_cardinality(&v1);
	CHECK(card == sbf_hll_cardinality(&v1));
	/* grows */
	CHECK_ST(sbf_copy(&g, &v1, 0, 0, &g_alloc), SBF_OK);
	add_keys(&g, 0, 0, 100);
	CHECK_ST(validate_filter(&g, &v), SBF_OK);
	CHECK(v.version == 2 && (v.flags & SBF_FLAG_OVERLAP) && v.nsegments > 1);
	CHECK(sbf_contains_hash(&v, sbf_hash("a", 1)) && sbf_contains_hash(&v, sbf_hash_int64(42)));
	for (i = 0; i < 100; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	/* unites with version 2 either way */
	sbf_filter_free(&g);
	CHECK_ST(sbf_create(&g, &p, 0, &g_alloc), SBF_OK);
	add_keys(&g, 0, 0, 3);
	CHECK_ST(sbf_union(&g, &v1), SBF_OK);
	CHECK_ST(validate_filter(&g, &v), SBF_OK);
	CHECK(v.version == 2 && sbf_contains_hash(&v, sbf_hash("a", 1)) &&
		  sbf_contains_hash(&v, key(0, 2)));
	sbf_filter_free(&g);
	CHECK_ST(sbf_copy(&g, &v1, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&g, &v1), SBF_OK);
	CHECK_ST(validate_filter(&g, &v), SBF_OK);
	CHECK(v.version == 2 && (v.flags & SBF_FLAG_OVERLAP));
	sbf_filter_free(&g);
	free(one);
	sbf_filter_free(&f);
}

/*
 * A filter written by sbf 1.0, in its text form: SELECT sbf_agg('o' || i)
 * FROM generate_series(1, 20) i.  It must read, answer as 1.0 did (the
 * HyperLogLog's count, 20), and grow.
 */
static const char v1_agg20[] =
	"sbf1:AQABCQIAAQBQAAAAexSuR+F6hD/NzMzMzMzsP+gDAAAAAAAAFAAAAAAAAAAUAAAAAAAAAMgAAAAAAAAAVjeXb9YIgT8HAAAAAAAAAKVJVQ+txbt9cO7qVCMzeWxBoalMC8sLnoAAAAAAAAAAAQAAAAEgAAADLwAAAWYAAAKVAAABzQAAA88AAAT1AAAFBAEAATABAAI5AQABOwEAAUsBAAOOAQABwAEAAskBAAHKAQADzAEABM8BAAHuAQA=";

/* The 1.0 text value above reads, answers and grows. */
static void
format1_text_vector(void)
{
	size_t		tlen = strlen(v1_agg20);
	uint8_t    *raw = malloc(sbf_text_decoded_max(tlen) + 1);
	size_t		len;
	SbfView		v;
	SbfFilter	f;
	char		key[8];
	int			i;

	CHECK(sbf_text_decode(v1_agg20, tlen, raw, &len));
	CHECK_ST(sbf_validate(raw, len, &v), SBF_OK);
	CHECK(v.version == 1 && v.nsegments == 1 && !sbf_is_exact(&v));
	CHECK(llround(sbf_cardinality(&v)) == 20);
	CHECK(strcmp(sbf_count_source(&v), "hll") == 0);
	for (i = 1; i <= 20; i++)
	{
		int			n = snprintf(key, sizeof(key), "o%d", i);

		CHECK(sbf_contains_hash(&v, sbf_hash(key, (size_t) n)));
	}
	CHECK_ST(sbf_copy(&f, &v, 0, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 500);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	/* a write relabels 1.0's value to version 4 (docs/format4.md, section 2) */
	CHECK(v.version == 4 && v.nsegments > 1 && (v.flags & SBF_FLAG_OVERLAP));
	for (i = 1; i <= 20; i++)
	{
		int			n = snprintf(key, sizeof(key), "o%d", i);

		CHECK(sbf_contains_hash(&v, sbf_hash(key, (size_t) n)));
	}
	sbf_filter_free(&f);
	free(raw);
}

/*
 * sbf_delta continues the chain: its first segment is what f appends next,
 * and f UNION delta keeps the bound <= error_rate however far both grow.
 */
static void
delta_chain(void)
{
	static const double rs[] = {0.5, 0.9};
	size_t		ri;

	for (ri = 0; ri < 2; ri++)
	{
		SbfParams	p = params(100, 0.01, 2, rs[ri], 9);
		SbfFilter	f;
		SbfFilter	d;
		SbfFilter	next;
		SbfView		v;
		SbfView		vd;
		SbfSegment	seg;
		SbfSegment	want;
		SbfKindGeom bg;
		uint64_t	bbytes;
		uint64_t	i;
		int			round;

		CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
		add_keys(&f, 0, 0, 1000);
		for (round = 0; round < 4; round++)
		{
			sbf_filter_view(&f, &v);
			CHECK_ST(sbf_delta(&d, &v, 0, &g_alloc), SBF_OK);
			CHECK_ST(validate_filter(&d, &vd), SBF_OK);
			CHECK(sbf_is_exact(&vd) && (vd.flags & SBF_FLAG_CHAIN) && vd.nhashes == 0);
			/* what f would append next */
			CHECK_ST(sbf_copy(&next, &v, 0, 0, &g_alloc), SBF_OK);
			for (i = 0;; i++)
			{
				SbfView		vn;

				CHECK_ST(sbf_add_hash(&next, key(5 + round, i), NULL), SBF_OK);
				sbf_filter_view(&next, &vn);
				if (vn.nsegments > v.nsegments)
				{
					sbf_get_segment(&vn, v.nsegments, &want);
					break;
				}
			}
			sbf_filter_free(&next);
			CHECK(vd.first_capacity == want.capacity && vd.first_error == want.error);
			/* the delta grows past its first segment */
			add_keys(&d, 1, (uint64_t) round * 100000,
					 (uint64_t) round * 100000 + want.capacity * 4);
			CHECK_ST(validate_filter(&d, &vd), SBF_OK);
			CHECK(vd.nsegments >= 2);
			sbf_get_segment(&vd, 0, &seg);
			/* its first segment: bloom while small (docs/format4.md, section 6) */
			CHECK_ST(sbf_kind_bloom_ops.plan(want.capacity, want.error, &bg, &bbytes),
					 SBF_OK);
			CHECK(seg.capacity == want.capacity && seg.error == want.error &&
				  seg.kind == (bbytes <= SBF_FIRST_BLOOM_MAX_BYTES ?
							   SBF_KIND_BLOOM : SBF_KIND_BLOCKED));
			CHECK_ST(sbf_union(&f, &vd), SBF_OK);
			CHECK_ST(validate_filter(&f, &v), SBF_OK);
			/*
			 * the merge spends no more than the budget; fpr_bound also counts
			 * what small segments' bits answer above their p (RATE BOUND)
			 */
			CHECK(sbf_fpr_budget(&v) <= 0.01);
			CHECK(sbf_fpr_bound(&v) >= sbf_fpr_budget(&v));
			for (i = 0; i < want.capacity * 4; i++)
				CHECK(sbf_contains_hash(&v, key(1, (uint64_t) round * 100000 + i)));
			sbf_filter_free(&d);
		}
		for (i = 0; i < 1000; i++)
			CHECK(sbf_contains_hash(&v, key(0, i)));
		fprintf(stderr, "# r=%.1f: %u segments after 4 delta merges, budget %.5f, bound %.5f\n",
				rs[ri], (unsigned) v.nsegments, sbf_fpr_budget(&v), sbf_fpr_bound(&v));
		sbf_filter_free(&f);
	}
}

/*
 * Directory counts: sbf_agg's path (sized, batch) within 0.1% at 1e6, adds
 * one at a time within 1% at 1e5 (1e6: test/study, count).
 */
static void
directory_counts(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	uint64_t	n = 1000000;
	uint64_t   *h = malloc(n * 8);
	SbfFilter	f;
	SbfView		v;
	uint64_t	i;
	double		est;

	for (i = 0; i < n; i++)
		h[i] = key(2, i);
	CHECK_ST(sbf_create_sized(&f, &p, n, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hashes(&f, h, n), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	est = sbf_cardinality(&v);
	fprintf(stderr, "# sized 1e6: directory %.0f (%+.4f%%), hll %.0f\n", est,
			100.0 * (est - (double) n) / (double) n, sbf_hll_cardinality(&v));
	CHECK(fabs(est - (double) n) <= 0.001 * (double) n);
	sbf_filter_free(&f);

	n = 100000;
	CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
	for (i = 0; i < n; i++)
		CHECK_ST(sbf_add_hash(&f, h[i], NULL), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	est = sbf_cardinality(&v);
	fprintf(stderr, "# grown 1e5: directory %.0f (%+.4f%%), hll %.0f\n", est,
			100.0 * (est - (double) n) / (double) n, sbf_hll_cardinality(&v));
	CHECK(fabs(est - (double) n) <= 0.01 * (double) n);
	sbf_filter_free(&f);
	free(h);
}

/* The first index whose value is >= h, the slow way. */
static uint32_t
search_ref(const uint64_t *v, uint32_t n, uint64_t h)
{
	uint32_t	i = 0;

	while (i < n && v[i] < h)
		i++;
	return i;
}

/*
 * sbf_search64, the exact form's and a window's pair lookup: for every n up
 * to 70 and some larger, ascending values (0 and UINT64_MAX among them when
 * n allows), every value, its neighbours, 0, UINT64_MAX and spread hashes
 * find the index the linear scan finds.
 */
static void
search64_lower_bound(void)
{
	static const uint32_t big[] = {127, 128, 129, 1000, 2048};
	uint64_t	v[2048];
	uint8_t		le[2048 * 8];
	uint32_t	n,
				i,
				r;
	int			c;

	for (c = 0; c < 71 + (int) (sizeof(big) / sizeof(big[0])); c++)
	{
		n = c < 71 ? (uint32_t) c : big[c - 71];
		for (i = 0; i < n; i++)
			v[i] = key(9, i);
		qsort(v, n, sizeof(uint64_t), unit_cmp_u64);
		if (n >= 2)
		{
			v[0] = 0;
			v[n - 1] = UINT64_MAX;
		}
		for (i = 0; i < n; i++)
			sbf_store64(le + (size_t) i * 8, v[i]);
		CHECK(sbf_search64(le, n, 0) == search_ref(v, n, 0));
		CHECK(sbf_search64(le, n, UINT64_MAX) == search_ref(v, n, UINT64_MAX));
		for (i = 0; i < n; i++)
		{
			CHECK(sbf_search64(le, n, v[i]) == i);
			CHECK(sbf_search64(le, n, v[i] - 1) == search_ref(v, n, v[i] - 1));
			CHECK(sbf_search64(le, n, v[i] + 1) == search_ref(v, n, v[i] + 1));
		}
		for (r = 0; r < 200; r++)
			CHECK(sbf_search64(le, n, key(10, r)) == search_ref(v, n, key(10, r)));
	}
}

int
main(void)
{
	RUN(exact_small);
	RUN(exact_golden);
	RUN(exact_conversion);
	RUN(exact_batch);
	RUN(exact_rejects);
	RUN(exact_union);
	RUN_V2(format1_values);
	RUN(format1_text_vector);
	RUN(delta_chain);
	RUN(directory_counts);
	RUN(search64_lower_bound);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
