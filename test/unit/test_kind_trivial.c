/*
 * test_kind_trivial.c
 *	  A segment kind as one file and one table row, inside the unit tests
 *	  only: "trivial", the sorted list of the high 32 bits of a complete
 *	  set's hashes.  The table offers the tests (SBF_TEST_KINDS, never
 *	  compiled into the server) one extra row; while it is set, the generic
 *	  code (builder, probes, validator, union, counts, sbf_info's keys) reaches
 *	  the kind through the table alone.  The generic suites below run over
 *	  every row of a plain version-4 directory, this one included: no line
 *	  of them names a kind.
 *
 *	  The kind: size = the number of fingerprints n, width = 32, every other
 *	  descriptor byte 0; the data area is n little-endian uint32 in ascending
 *	  order, zero-padded to a multiple of 8 bytes.  A hash not in the set is
 *	  found with probability at most n 2^-32 (a union bound over the n
 *	  fingerprints), whatever the count: the kind's rate.
 */
#include <math.h>

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"
#include "sbf_efset.h"
#include "sbf_dir.h"
#include "sbf_union.h"
#include "unit_kinds.h"

#define TRIVIAL_CODE		31	/* a code without a row in the server */
#define TRIVIAL_MAX_N		((uint64_t) 1 << 24)

static uint32_t
fp_of(uint64_t h)
{
	return (uint32_t) (h >> 32);
}

static SbfStatus
trivial_check_geom(const SbfKindGeom *g)
{
	if (g->size < 1 || g->size > TRIVIAL_MAX_N || g->width != 32 ||
		g->arity != 0 || g->log2_len != 0 || g->attempt != 0)
		return SBF_E_SEGMENT;
	return SBF_OK;
}

static bool
trivial_bytes(const SbfKindGeom *g, uint64_t *bytes)
{
	*bytes = (g->size * 4 + 7) / 8 * 8;
	return true;
}

/* Ascending fingerprints, zero padding. */
static SbfStatus
trivial_check_data(const SbfKindGeom *g, const uint8_t *data)
{
	uint64_t	i;

	for (i = 1; i < g->size; i++)
		if (sbf_load32(data + 4 * (i - 1)) > sbf_load32(data + 4 * i))
			return SBF_E_BITS;
	if (g->size % 2 != 0 && sbf_load32(data + 4 * g->size) != 0)
		return SBF_E_BITS;
	return SBF_OK;
}

static double
trivial_rate_at(const SbfKindGeom *g, uint64_t n)
{
	(void) n;
	return ldexp((double) g->size, -32);
}

static double
trivial_rate_of(const SbfKindGeom *g, const uint8_t *data)
{
	(void) data;
	return trivial_rate_at(g, 0);
}

/* A complete set: count = capacity = n, p at least its rate. */
static SbfStatus
trivial_check_entry(const SbfKindGeom *g, uint64_t capacity, uint64_t count,
					double p)
{
	if (count != capacity || count != g->size ||
		!(p >= trivial_rate_at(g, count) && p < 0.5))
		return SBF_E_SEGMENT;
	return SBF_OK;
}

static SbfStatus
trivial_plan(uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes)
{
	if (n < 1 || !(share > 0.0 && share < 0.5))
		return SBF_E_PARAM;
	if (n > TRIVIAL_MAX_N)
		return SBF_E_TOO_LARGE;
	memset(g, 0, sizeof(*g));
	g->kind = TRIVIAL_CODE;
	g->size = n;
	g->width = 32;
	if (trivial_rate_at(g, n) > share)
		return SBF_E_PARAM;
	return trivial_bytes(g, bytes) ? SBF_OK : SBF_E_TOO_LARGE;
}

/* Binary search for h's fingerprint. */
static bool
trivial_contains(const SbfKindGeom *g, const uint8_t *data, uint64_t h)
{
	uint64_t	lo = 0;
	uint64_t	hi = g->size;
	uint32_t	x = fp_of(h);

	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;
		uint32_t	y = sbf_load32(data + 4 * mid);

		if (y == x)
			return true;
		if (y < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static size_t
trivial_count(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h,
			  size_t n)
{
	size_t		found = 0;
	size_t		i;

	for (i = 0; i < n; i++)
		found += trivial_contains(g, data, h[i]) ? 1 : 0;
	return found;
}

/* Ascending hashes have ascending high halves: no sort. */
static SbfStatus
trivial_build(SbfKindGeom *g, uint8_t *data, const uint64_t *h, size_t n,
			  const SbfAllocator *a)
{
	uint64_t	bytes;
	size_t		i;

	(void) a;
	if (n != g->size)
		return SBF_E_PARAM;
	for (i = 1; i < n; i++)
		if (h[i - 1] >= h[i])
			return SBF_E_PARAM;
	(void) trivial_bytes(g, &bytes);
	memset(data, 0, (size_t) bytes);
	for (i = 0; i < n; i++)
		sbf_store32(data + 4 * i, fp_of(h[i]));
	return SBF_OK;
}

static double
trivial_expected_fill(const SbfSegment *seg)
{
	(void) seg;
	return 0.5;
}

static uint64_t
trivial_fill_bits(const SbfKindGeom *g, uint64_t bytes)
{
	(void) g;
	return bytes * 8;
}

static int
trivial_describe(const SbfKindGeom *g, SbfInfoKey *out)
{
	out[0] = (SbfInfoKey) {"fingerprints", g->size};
	return 1;
}

/* The one row. */
static const SbfKindOps trivial_ops = {
	.kind = TRIVIAL_CODE,
	.name = "trivial",
	.check_geom = trivial_check_geom,
	.bytes = trivial_bytes,
	.check_data = trivial_check_data,
	.check_entry = trivial_check_entry,
	.plan = trivial_plan,
	.contains = trivial_contains,
	.count = trivial_count,
	.build = trivial_build,
	.rate_at = trivial_rate_at,
	.rate_of = trivial_rate_of,
	.dirs = SBF_KIND_IN_PLAIN4 | SBF_KIND_IN_PLAIN5,
	.complete = true,
	.choose_rank = 9,
	.choose_max_n = TRIVIAL_MAX_N,
	.expected_fill = trivial_expected_fill,
	.expected_rate = trivial_rate_at,
	.fill_bits = trivial_fill_bits,
	.describe = trivial_describe,
	.union_rule = SBF_UNION_APPEND,
};

/* ---- the generic suites: every row of a plain version-4 directory ---- */

#define SHARE		0.0083
#define ABSENT		20000

/* n strictly ascending distinct hashes of key space `space`. */
static uint64_t *
sorted_keys(uint64_t n, int space)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t	i;
	uint64_t	j = 0;

	for (i = 0; i < n; i++)
		h[i] = key(space, i);
	qsort(h, n, sizeof(uint64_t), unit_cmp_u64);
	for (i = 0; i < n; i++)
		if (j == 0 || h[i] != h[j - 1])
			h[j++] = h[i];
	CHECK(j == n);
	return h;
}

/*
 * Builds n keys of space as kind c through the one builder (sbf_build_sorted),
 * every other plain kind left out of the choice, except the complete ones
 * for a kind chosen only beside them (bloom); *h receives the hashes.
 */
static SbfStatus
build_as(SbfFilter *f, const SbfKindOps *c, uint64_t n, int space, uint64_t **h)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 14);
	unsigned	avoid = 0;
	unsigned	code;
	SbfStatus	st;

	for (code = 1; code < SBF_KIND_CODES; code++)
	{
		const SbfKindOps *o = sbf_kind_ops((uint8_t) code);

		if (o != NULL && o != c && !(c->choose_beside_complete && o->complete))
			avoid |= 1u << code;
	}
	*h = sorted_keys(n, space);
	sbf_kind_test_avoid = avoid;
	st = sbf_build_sorted(f, &p, *h, n, SHARE, 0, 0, &g_alloc);
	sbf_kind_test_avoid = 0;
	return st;
}

/* How many absent keys (space 9) a view finds. */
static uint64_t
false_positives(const SbfView *v)
{
	uint64_t	fp = 0;
	uint64_t	i;

	for (i = 0; i < ABSENT; i++)
		fp += sbf_contains_hash(v, key(9, i)) ? 1 : 0;
	return fp;
}

/* Probe: no false negatives (one by one and batched), rate within its bound. */
static void
suite_probe(const SbfView *v, const uint64_t *h, uint64_t n)
{
	uint64_t	i;
	uint64_t	missed = 0;

	for (i = 0; i < n; i++)
		missed += sbf_contains_hash(v, h[i]) ? 0 : 1;
	CHECK(missed == 0);
	CHECK(sbf_count_contained(v, h, n) == n);
	CHECK((double) false_positives(v) <= 2.0 * sbf_fpr_bound(v) * ABSENT + 10.0);
}

/* Count and info of a built value of one segment of kind c. */
static void
suite_count_info(const SbfView *v, const SbfKindOps *c, uint64_t n)
{
	SbfSegmentDesc d[1];
	SbfInfoKey	keys[SBF_INFO_MAX_KEYS];
	int			nkeys;
	double		dc = sbf_directory_count(v);

	CHECK(strcmp(sbf_count_source(v), "directory") == 0);
	CHECK(c->complete ? dc == (double) n : fabs(dc - (double) n) < 0.05 * (double) n);
	CHECK(fabs(sbf_cardinality(v) - (double) n) < 0.05 * (double) n);
	sbf_segments_describe(v, d);
	CHECK(strcmp(sbf_segment_kind_name(&d[0].seg), c->name) == 0);
	CHECK(d[0].expected_fill > 0.0 && d[0].expected_fill < 1.0);
	nkeys = sbf_segment_info_keys(&d[0], keys);
	CHECK(nkeys >= 1 && nkeys <= SBF_INFO_MAX_KEYS);
	CHECK(strcmp(keys[0].key, "bits") == 0 && keys[0].value >= 8 * d[0].bytes / 2 &&
		  keys[0].value <= 8 * d[0].bytes);
	CHECK(sbf_expected_fpr(v) > 0.0 && sbf_expected_fpr(v) < 0.5);
	CHECK(sbf_current_fpr(v) > 0.0 && sbf_current_fpr(v) < 0.5);
}

/*
 * Union of two built values of kind c over disjoint keys: valid, every key
 * of both found, counted, and a union of the result with itself keeps it
 * byte for byte.
 */
static void
suite_union(const SbfView *va, const SbfKindOps *c, const uint64_t *ha, uint64_t n)
{
	SbfFilter	b;
	SbfFilter	u;
	SbfFilter	u2;
	SbfView		vb;
	SbfView		vu;
	uint64_t   *hb;
	uint64_t	i;
	uint64_t	missed = 0;

	CHECK_ST(build_as(&b, c, n, 1, &hb), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK_ST(sbf_copy(&u, va, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&u, &vb), SBF_OK);
	CHECK_ST(validate_filter(&u, &vu), SBF_OK);
	for (i = 0; i < n; i++)
		missed += (sbf_contains_hash(&vu, ha[i]) ? 0 : 1) +
			(sbf_contains_hash(&vu, hb[i]) ? 0 : 1);
	CHECK(missed == 0);
	CHECK(c->merge != NULL || vu.nsegments == 2);
	CHECK(vu.version == va->version);
	CHECK(fabs(sbf_cardinality(&vu) - 2.0 * (double) n) < 0.1 * (double) n);
	CHECK_ST(sbf_copy(&u2, &vu, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_union(&u2, &vu), SBF_OK);
	CHECK(same_bytes(&u, &u2));
	sbf_filter_free(&u2);
	sbf_filter_free(&u);
	sbf_filter_free(&b);
	free(hb);
}

/* Adds after the build: valid, every key found (growth appends when it must). */
static void
suite_add(const SbfView *v, const uint64_t *h, uint64_t n)
{
	SbfFilter	f;
	SbfView		va;
	uint64_t	i;
	uint64_t	missed = 0;

	CHECK_ST(sbf_copy(&f, v, 0, 0, &g_alloc), SBF_OK);
	add_keys(&f, 2, 0, n);
	CHECK_ST(validate_filter(&f, &va), SBF_OK);
	CHECK(va.version == v->version);
	for (i = 0; i < n; i++)
		missed += (sbf_contains_hash(&va, h[i]) ? 0 : 1) +
			(sbf_contains_hash(&va, key(2, i)) ? 0 : 1);
	CHECK(missed == 0);
	sbf_filter_free(&f);
}

/*
 * Sliced probe: a row with probe ranges answers through them as contains
 * does, for members and absent keys; a row without them (this test kind)
 * is read whole by a sliced reader, and is skipped here.
 */
static void
suite_slices(const SbfView *v, const SbfKindOps *c, const uint64_t *h, uint64_t n)
{
	SbfSegmentDesc d[1];
	const uint8_t *data;
	uint64_t	i;
	uint64_t	differ = 0;
	bool		ok = true;

	if (c->probe_ranges == NULL)
	{
		CHECK(c->probe_at == NULL);
		return;
	}
	sbf_segments_describe(v, d);
	data = v->buf + d[0].seg.words_offset;
	for (i = 0; i < n; i++)
		differ += unit_probe_at(c, &d[0].g, data, d[0].bytes, h[i], false, &ok) !=
			c->contains(&d[0].g, data, h[i]);
	for (i = 0; i < ABSENT; i++)
		differ += unit_probe_at(c, &d[0].g, data, d[0].bytes, key(9, i), false, &ok) !=
			c->contains(&d[0].g, data, key(9, i));
	CHECK(ok && differ == 0);
}

/* The version of a plain value holding kind c: 4, or 5 for a kind only it admits. */
static uint8_t
version_of(const SbfKindOps *c)
{
	return (c->dirs & SBF_KIND_IN_PLAIN4) ? SBF_FORMAT_V4 : SBF_FORMAT_V5;
}

/* The suites over kind c. */
static void
suites_of(const SbfKindOps *c)
{
	uint64_t	n = c->choose_beside_complete ? 300 : 3000;
	SbfFilter	f;
	SbfView		v;
	SbfSegment	s;
	uint64_t   *h;

	CHECK_ST(build_as(&f, c, n, 0, &h), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	sbf_get_segment(&v, 0, &s);
	CHECK(v.version == version_of(c) && v.nsegments == 1 && s.kind == c->kind);
	if (!case_ok)
		fprintf(stderr, "  kind %u (%s): built as %u\n", c->kind, c->name, s.kind);
	suite_probe(&v, h, n);
	suite_slices(&v, c, h, n);
	suite_count_info(&v, c, n);
	suite_union(&v, c, h, n);
	suite_add(&v, h, n);
	sbf_filter_free(&f);
	free(h);
}

/* Every row of a plain version-4 directory, the trivial one included. */
static void
test_generic_suites(void)
{
	unsigned	code;
	int			kinds = 0;

	sbf_kind_test_row = &trivial_ops;
	for (code = 1; code < SBF_KIND_CODES; code++)
	{
		const SbfKindOps *c = sbf_kind_ops((uint8_t) code);

		if (c == NULL || !(c->dirs & SBF_KIND_IN_PLAIN4))
			continue;
		suites_of(c);
		kinds++;
	}
	CHECK(kinds == 4);			/* bloom, blocked, fused and trivial */
	sbf_kind_test_row = NULL;
}

/*
 * The compact kind, stored in a plain version-5 directory only and planned
 * by no choice of the server (choose_max_n 0): a copy of its row that
 * plans stands in at its code for the builds, and the generic suites run
 * over it (the values version 5, unions and adds keeping it).  Then, with
 * the server's row: the value still valid, a union with a version-4 value
 * version 5, the same bytes labelled 4 refused (version 4 admits no
 * compact segment), a version-4 value labelled 5 refused (version 5 holds
 * a kind only it admits), and the row never chosen.
 */
static void
test_compact_in_v5(void)
{
	SbfKindOps	chosen = sbf_kind_compact_ops;
	SbfFilter	f;
	SbfFilter	b;
	SbfView		v;
	SbfView		vb;
	uint64_t   *h;
	uint64_t   *hb;
	uint64_t	i;
	uint64_t	missed = 0;

	CHECK(sbf_kind_compact_ops.dirs == SBF_KIND_IN_PLAIN5 &&
		  sbf_kind_compact_ops.choose_max_n == 0);
	chosen.choose_max_n = SBF_EF_MAX_N;
	sbf_kind_test_row = &chosen;
	suites_of(&chosen);
	CHECK_ST(build_as(&f, &chosen, 500, 3, &h), SBF_OK);
	sbf_kind_test_row = NULL;
	CHECK(sbf_kind_ops(SBF_KIND_COMPACT) == &sbf_kind_compact_ops);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.version == SBF_FORMAT_V5);

	/* a union with a version-4 value: version 5, both sets found */
	CHECK_ST(build_as(&b, &sbf_kind_bloom_ops, 300, 4, &hb), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK(vb.version == SBF_FORMAT_V4);
	CHECK_ST(sbf_union(&b, &v), SBF_OK);
	CHECK_ST(validate_filter(&b, &vb), SBF_OK);
	CHECK(vb.version == SBF_FORMAT_V5 && vb.nsegments == 2);
	for (i = 0; i < 500; i++)
		missed += sbf_contains_hash(&vb, h[i]) ? 0 : 1;
	for (i = 0; i < 300; i++)
		missed += sbf_contains_hash(&vb, hb[i]) ? 0 : 1;
	CHECK(missed == 0);
	/* relabelled either way: refused */
	SBF_PAYLOAD(&b)[0] = SBF_FORMAT_V4;
	CHECK_ST(validate_filter(&b, &vb), SBF_E_SEGMENT);
	sbf_filter_free(&b);
	free(hb);
	CHECK_ST(build_as(&b, &sbf_kind_bloom_ops, 300, 4, &hb), SBF_OK);
	SBF_PAYLOAD(&b)[0] = SBF_FORMAT_V5;
	CHECK_ST(validate_filter(&b, &vb), SBF_E_VERSION);
	sbf_filter_free(&b);
	free(hb);
	sbf_filter_free(&f);
	free(h);

	/* the server's row is never chosen: every other kind left out, none plans */
	CHECK_ST(build_as(&f, &sbf_kind_compact_ops, 100, 0, &h), SBF_E_PARAM);
	CHECK(f.base == NULL);
	free(h);
}

/*
 * The row is reachable only while set: a value holding the kind is valid
 * then, and refused (an unknown kind) once the row is gone, as the server,
 * which never has it, refuses it.
 */
static void
test_row_only_while_set(void)
{
	SbfFilter	f;
	SbfView		v;
	uint64_t   *h;

	CHECK(sbf_kind_ops(TRIVIAL_CODE) == NULL);
	sbf_kind_test_row = &trivial_ops;
	CHECK(sbf_kind_ops(TRIVIAL_CODE) == &trivial_ops);
	CHECK_ST(build_as(&f, &trivial_ops, 100, 0, &h), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	sbf_kind_test_row = NULL;
	CHECK(sbf_kind_ops(TRIVIAL_CODE) == NULL);
	CHECK_ST(validate_filter(&f, &v), SBF_E_SEGMENT);
	sbf_filter_free(&f);
	free(h);
	/* without the row the builder cannot choose it: every other kind left out, none plans */
	CHECK_ST(build_as(&f, &trivial_ops, 100, 0, &h), SBF_E_PARAM);
	CHECK(f.base == NULL);
	free(h);
}

int
main(void)
{
	RUN(test_row_only_while_set);
	RUN(test_generic_suites);
	RUN(test_compact_in_v5);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
