/*
 * test_bloom.c
 *	  Unit tests of the standard Bloom row of the segment table
 *	  (sbf_kind_bloom.c), the directory iterator, the version table and the
 *	  probe entry point; and the proof that porting formats 1-3 onto them
 *	  changed no byte.
 *
 *	  Byte identity: golden_scenarios() builds many values from fixed
 *	  splitmix64 sets (adds one by one and in batches, right-sized builds as
 *	  sbf_agg's final makes them, exact forms that convert, unions with and
 *	  without merge, deltas, windowed adds, unions and compactions) and folds
 *	  their bytes and every query answer (membership, batched counts,
 *	  cardinalities, fill, rates) into one XXH3 digest per scenario.
 *	  GOLDEN[] holds the digests printed by this program built from main
 *	  before the port (commit 6ec04d8, SBF_GOLDEN_PRINT=1 ./test_bloom); the
 *	  ported code must give the same ones.  The windowed scenario's digest is
 *	  format 4's (branch i27w): each bucket written as the smallest of fused,
 *	  blocked and kind 4 (sbf_win_kind_choose).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_union.h"
#include "sbf_dir.h"
#include "sbf_internal.h"
#include "sbf_kind.h"
#include "sbf_window.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"
#include "unit_kinds.h"

/* splitmix64: deterministic element hashes */
static uint64_t
rnd(uint64_t *s)
{
	uint64_t	z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A running digest: every folded item changes it. */
typedef struct Digest
{
	uint64_t	d;
} Digest;

static void
fold_bytes(Digest *g, const void *p, size_t n)
{
	uint64_t	h = sbf_hash(p, n);

	g->d = sbf_mix64(g->d ^ h) + n;
}

/* x as its 8 little-endian bytes, so the digest is the same on every host */
static void
fold_u64(Digest *g, uint64_t x)
{
	uint8_t		b[8];

	sbf_store64(b, x);
	fold_bytes(g, b, sizeof(b));
}

static void
fold_double(Digest *g, double x)
{
	uint64_t	b;

	memcpy(&b, &x, sizeof(b));
	fold_u64(g, b);
}

/* Folds a plain payload and every read-only answer of it. */
/*
 * fpr_bound as 1.2 computed it, the sum of the stored rates (sbf_fpr_budget),
 * which 1.4's (RATE BOUND) is at least.
 */
static double
stored_sum(const SbfView *v)
{
	CHECK(sbf_fpr_bound(v) >= sbf_fpr_budget(v));
	return sbf_fpr_budget(v);
}

static void
fold_plain(Digest *g, const uint8_t *buf, size_t len, uint64_t seed)
{
	SbfView		v;
	uint64_t	probe[300];
	uint32_t	i;
	size_t		j;
	size_t		found = 0;

	fold_bytes(g, buf, len);
	CHECK(sbf_validate(buf, len, &v) == SBF_OK);
	for (j = 0; j < 300; j++)
	{
		probe[j] = rnd(&seed);
		found += sbf_contains_hash(&v, probe[j]);
	}
	fold_u64(g, found);
	CHECK(sbf_count_contained(&v, probe, 300) == found);
	fold_u64(g, sbf_count_contained(&v, probe, 300));
	fold_double(g, sbf_cardinality(&v));
	fold_double(g, sbf_hll_cardinality(&v));
	fold_double(g, sbf_directory_count(&v));
	fold_double(g, sbf_expected_fpr(&v));
	fold_double(g, sbf_current_fpr(&v));
	fold_double(g, stored_sum(&v));
	fold_bytes(g, sbf_count_source(&v), strlen(sbf_count_source(&v)));
	for (i = 0; i < v.nsegments; i++)
	{
		SbfSegment	seg;
		SbfProbeBit pb[SBF_MAX_K];

		sbf_get_segment(&v, i, &seg);
		fold_u64(g, seg.words_offset);
		fold_double(g, sbf_segment_fill(&v, i));
		fold_double(g, sbf_segment_expected_fill(&v, i));
		sbf_segment_probes(&seg, probe[i % 300], pb);
		for (j = 0; j < seg.k; j++)
		{
			fold_u64(g, pb[j].byte);
			fold_u64(g, pb[j].mask);
		}
	}
}

#define NPARAMS 5
static const struct
{
	uint64_t	cap;
	double		e;
	double		r;
	uint16_t	s;
	uint8_t		p;
}			g_params[NPARAMS] = {
	{1000, 0.01, 0.9, 2, 9},
	{100, 0.001, 0.5, 4, 12},
	{50, 0.05, 1.0, 2, 4},
	{3000, 1e-5, 0.8, 3, 14},
	{10, 0.2, 0.9, 1, 6},
};

/* A filter of the given parameters with n random adds (batched or one by one). */
static void
make_filter(SbfFilter *f, int pi, size_t n, uint64_t seed, bool batch, bool sized)
{
	SbfParams	p = params(g_params[pi].cap, g_params[pi].e, g_params[pi].s,
						   g_params[pi].r, g_params[pi].p);
	uint64_t   *h = malloc(sizeof(uint64_t) * (n + 1));
	size_t		i;

	for (i = 0; i < n; i++)
		h[i] = rnd(&seed) >> (i % 7 == 3 ? 40 : 0);	/* some repeats */
	if (sized)
		CHECK(sbf_create_sized(f, &p, n + 1, 0, &g_alloc) == SBF_OK);
	else
		CHECK(sbf_create(f, &p, 0, &g_alloc) == SBF_OK);
	if (batch)
		CHECK(sbf_add_hashes(f, h, n) == SBF_OK);
	else
		for (i = 0; i < n; i++)
			CHECK(sbf_add_hash(f, h[i], NULL) == SBF_OK);
	free(h);
}

static const size_t g_sizes[] = {0, 5, 300, 2500, 9000, 40000};
#define NSIZES (sizeof(g_sizes) / sizeof(g_sizes[0]))

/* Scenario 0: adds, batched and one by one, from sbf_create. */
static uint64_t
scenario_adds(void)
{
	Digest		g = {1};
	int			pi;
	size_t		si;

	for (pi = 0; pi < NPARAMS; pi++)
		for (si = 0; si < NSIZES; si++)
		{
			SbfFilter	a;
			SbfFilter	b;

			make_filter(&a, pi, g_sizes[si], 100 + si, true, false);
			make_filter(&b, pi, g_sizes[si], 100 + si, false, false);
			CHECK(a.len == b.len && memcmp(a.base, b.base, a.len) == 0);
			fold_plain(&g, a.base, a.len, 7 + si);
			sbf_filter_free(&a);
			sbf_filter_free(&b);
		}
	return g.d;
}

/* Scenario 1: right-sized builds (the aggregate's final) and their growth. */
static uint64_t
scenario_sized(void)
{
	Digest		g = {2};
	int			pi;
	size_t		si;

	for (pi = 0; pi < NPARAMS; pi++)
		for (si = 1; si < NSIZES; si++)
		{
			SbfFilter	a;
			uint64_t	seed = 900 + si;
			int			j;

			make_filter(&a, pi, g_sizes[si], 300 + si, true, true);
			fold_plain(&g, a.base, a.len, 11);
			/* grow past the right-sized segment */
			for (j = 0; j < 3000; j++)
				CHECK(sbf_add_hash(&a, rnd(&seed), NULL) == SBF_OK);
			fold_plain(&g, a.base, a.len, 12);
			sbf_filter_free(&a);
		}
	return g.d;
}

/* Scenario 2: unions of two to four filters, merge or not, own error_rate. */
static uint64_t
scenario_unions(void)
{
	Digest		g = {3};
	int			pi;
	int			t;

	for (pi = 0; pi < NPARAMS; pi++)
		for (t = 0; t < 6; t++)
		{
			SbfFilter	f[4];
			SbfView		v[4];
			SbfFilter	out;
			SbfUnionSpec spec;
			double		bound = 0.0;
			int			n = 2 + t % 3;
			int			i;
			SbfStatus	st;

			for (i = 0; i < n; i++)
			{
				make_filter(&f[i], pi, g_sizes[(t + i) % NSIZES],
							(uint64_t) (t * 10 + i % 2), (i + t) % 2, i == 1);
				sbf_filter_view(&f[i], &v[i]);
			}
			spec.error_rate = t >= 3 ? g_params[pi].e * 1.5 : 0.0;
			if (spec.error_rate >= 0.5)
				spec.error_rate = 0.0;
			spec.merge = t % 2 == 0;
			spec.enforce = false;
			st = sbf_union_many(&out, v, (uint32_t) n, &spec, &bound, 0, &g_alloc);
			fold_u64(&g, (uint64_t) st);
			fold_double(&g, bound);
			if (st == SBF_OK)
			{
				fold_plain(&g, out.base, out.len, 13);
				sbf_filter_free(&out);
			}
			/* the two-operand entry point */
			st = sbf_union(&f[0], &v[n - 1]);
			fold_u64(&g, (uint64_t) st);
			fold_plain(&g, f[0].base, f[0].len, 14);
			for (i = 0; i < n; i++)
				sbf_filter_free(&f[i]);
		}
	return g.d;
}

/* Scenario 3: deltas, added to and united back. */
static uint64_t
scenario_delta(void)
{
	Digest		g = {4};
	int			pi;
	size_t		si;

	for (pi = 0; pi < NPARAMS; pi++)
		for (si = 0; si < NSIZES; si++)
		{
			SbfFilter	a;
			SbfFilter	d;
			SbfView		va;
			SbfView		vd;
			uint64_t	seed = 77 + si;
			int			j;

			make_filter(&a, pi, g_sizes[si], 500 + si, true, false);
			sbf_filter_view(&a, &va);
			CHECK(sbf_delta(&d, &va, 0, &g_alloc) == SBF_OK);
			for (j = 0; j < 2500; j++)
				CHECK(sbf_add_hash(&d, rnd(&seed), NULL) == SBF_OK);
			fold_plain(&g, d.base, d.len, 15);
			sbf_filter_view(&d, &vd);
			fold_u64(&g, (uint64_t) sbf_union_budget(&a, &vd, 0.0, NULL));
			fold_plain(&g, a.base, a.len, 16);
			sbf_filter_free(&a);
			sbf_filter_free(&d);
		}
	return g.d;
}

/* Folds a windowed payload and its answers. */
static void
fold_window(Digest *g, const SbfFilter *f)
{
	SbfWinView	v;
	uint64_t	probe[200];
	uint64_t	seed = 5;
	int64_t		age;
	size_t		j;

	SbfStatus	st;

	fold_bytes(g, f->base + f->prefix, f->len);
	st = sbf_win_validate(f->base + f->prefix, f->len, &v);
	if (st != SBF_OK)
		fprintf(stderr, "  window: %s\n", sbf_status_message(st));
	CHECK(st == SBF_OK);
	for (j = 0; j < 200; j++)
		probe[j] = rnd(&seed);
	for (age = -1; age < (int64_t) v.buckets; age += 3)
		fold_u64(g, sbf_win_count_contained(&v, probe, 200, age));
	fold_double(g, sbf_win_cardinality(&v));
	fold_double(g, sbf_win_fpr_bound(&v));
}

/* Scenario 4: windows: adds across buckets, slides, unions, compaction. */
static uint64_t
scenario_window(void)
{
	Digest		g = {5};
	int			t;

	for (t = 0; t < 4; t++)
	{
		SbfWinParams p;
		SbfWindow	w[2];
		SbfFilter	out[2];
		SbfWinView	v1;
		uint64_t	seed = 40 + t;
		SbfStatus	st;
		int			i;
		int			j;

		p.width = 1000;
		p.buckets = (uint32_t) (4 + 7 * t);
		p.error_rate = t == 2 ? 0.001 : 0.02;
		for (i = 0; i < 2; i++)
		{
			sbf_win_init(&w[i], &p, &g_alloc);
			for (j = 0; j < 6000 * (t + 1); j++)
				CHECK(sbf_win_add(&w[i], (int64_t) (j / (700 + 300 * i)),
								  rnd(&seed) >> (j % 5 == 0 ? 50 : 0)) == SBF_OK);
			CHECK(sbf_win_compact(&w[i], i == 1) == SBF_OK);
			CHECK(sbf_win_encode(&w[i], &out[i], 0) == SBF_OK);
			fold_window(&g, &out[i]);
		}
		CHECK(sbf_win_validate(out[1].base, out[1].len, &v1) == SBF_OK);
		st = sbf_win_union(&w[0], &v1);
		fold_u64(&g, (uint64_t) st);
		if (st == SBF_OK)
		{
			sbf_filter_free(&out[0]);
			CHECK(sbf_win_encode(&w[0], &out[0], 0) == SBF_OK);
			fold_window(&g, &out[0]);
		}
		for (i = 0; i < 2; i++)
		{
			sbf_filter_free(&out[i]);
			sbf_win_free(&w[i]);
		}
	}
	return g.d;
}

#define NSCEN 5
static uint64_t (*const g_scen[NSCEN]) (void) = {
	scenario_adds, scenario_sized, scenario_unions, scenario_delta,
	scenario_window,
};

/* The digests of main before the port (see the file header). */
static const uint64_t GOLDEN[NSCEN] = {
	UINT64_C(0x611cf609cd46ded1),
	UINT64_C(0x4a7bfd60060dde14),
	UINT64_C(0x621489a29762ec7e),
	UINT64_C(0x53ba690306f602c2),
	UINT64_C(0x3c81b7b1bdda9942),	/* windowed format 4 (1.2: e8be333674f27f16) */
};

static void
test_bytes_unchanged(void)
{
	bool		print = getenv("SBF_GOLDEN_PRINT") != NULL;
	int			i;

	/* the scenarios write as 1.2 did, so its digests still hold */
	sbf_write_v2 = true;
	for (i = 0; i < NSCEN; i++)
	{
		uint64_t	d = g_scen[i] ();

		if (print)
			printf("\tUINT64_C(0x%016llx),\n", (unsigned long long) d);
		if (d != GOLDEN[i])
			fprintf(stderr, "  scenario %d: digest %016llx, golden %016llx\n",
					i, (unsigned long long) d, (unsigned long long) GOLDEN[i]);
		CHECK(d == GOLDEN[i]);
	}
	sbf_write_v2 = false;
}


static size_t
sorted_distinct(const uint64_t *h, size_t n, uint64_t *out)
{
	size_t		i;
	size_t		d = 0;

	memcpy(out, h, n * sizeof(uint64_t));
	qsort(out, n, sizeof(uint64_t), unit_cmp_u64);
	for (i = 0; i < n; i++)
		if (d == 0 || out[d - 1] != out[i])
			out[d++] = out[i];
	return d;
}

/*
 * The bloom row against the old paths on random sets: a segmented value
 * right-sized for n (sbf_create_segments, then sbf_add_hashes, the writer
 * of 1.2) has exactly the bits the row's build makes from the sorted set;
 * the row's plan is that segment's geometry; contains, count, rate_of and
 * rate_at answer as sbf_contains_hash, sbf_count_contained,
 * sbf_current_fpr and the COUNTS model; insert says what the add counted.
 */
static void
test_bloom_row_matches_filter(void)
{
	const SbfKindOps *ops = sbf_kind_ops(SBF_KIND_BLOOM);
	uint64_t	seed = 4242;
	int			t;

	CHECK(ops == &sbf_kind_bloom_ops);
	for (t = 0; t < 30; t++)
	{
		size_t		n = 1 + (size_t) (rnd(&seed) % (t < 24 ? 3000 : 30000));
		double		p = t % 3 == 0 ? 0.01 : t % 3 == 1 ? 1e-4 : 0.2;
		SbfParams	pr = params(n, 0.3, 2, 0.5, 9);
		uint64_t   *h = malloc(n * sizeof(uint64_t));
		uint64_t   *sh = malloc(n * sizeof(uint64_t));
		uint64_t	probe[500];
		SbfFilter	f;
		SbfView		v;
		SbfSegment	seg;
		SbfKindGeom g;
		uint64_t	bytes;
		uint8_t    *data;
		uint8_t    *data2;
		size_t		i;
		size_t		d;
		size_t		found = 0;

		for (i = 0; i < n; i++)
			h[i] = rnd(&seed) >> (i % 5 == 0 ? 52 : 0);	/* repeats */
		d = sorted_distinct(h, n, sh);
		CHECK(sbf_create_segments(&f, &pr, n, p, 0, 0, &g_alloc) == SBF_OK);
		CHECK(sbf_add_hashes(&f, h, n) == SBF_OK);
		sbf_filter_view(&f, &v);
		CHECK(v.nsegments == 1);
		sbf_get_segment(&v, 0, &seg);
		CHECK(ops->plan(n, p, &g, &bytes) == SBF_OK);
		CHECK(g.size == seg.nbits && g.width == seg.k && g.kind == SBF_KIND_BLOOM);
		CHECK(bytes == sbf_words_bytes(seg.nbits));
		data = calloc(1, (size_t) bytes);
		data2 = calloc(1, (size_t) bytes);
		CHECK(ops->build(&g, data, sh, d, &g_alloc) == SBF_OK);
		CHECK(memcmp(data, v.buf + seg.words_offset, (size_t) bytes) == 0);
		CHECK(ops->check_data(&g, data) == SBF_OK);
		CHECK(ops->check_entry(&g, seg.capacity, seg.count, seg.error) == SBF_OK);
		/* insert one by one in row order: the adds' count */
		{
			uint64_t	counted = 0;

			for (i = 0; i < n; i++)
				counted += ops->insert(&g, data2, h[i]) ? 1 : 0;
			CHECK(counted == seg.count);
			CHECK(memcmp(data, data2, (size_t) bytes) == 0);
		}
		for (i = 0; i < 500; i++)
		{
			probe[i] = i < 100 ? h[i % n] : rnd(&seed);
			CHECK(ops->contains(&g, data, probe[i]) == sbf_contains_hash(&v, probe[i]));
			found += ops->contains(&g, data, probe[i]);
		}
		CHECK(ops->count(&g, data, probe, 500) == found);
		CHECK(sbf_count_contained(&v, probe, 500) == found);
		CHECK(1.0 - (1.0 - ops->rate_of(&g, data)) == sbf_current_fpr(&v));
		CHECK(fabs(ops->rate_at(&g, n) - p) < p * 0.3);
		/* merge is OR: a split set merges into the whole */
		CHECK(ops->build(&g, data2, sh, d / 2, NULL) == SBF_OK);
		{
			uint8_t    *rest = calloc(1, (size_t) bytes);

			CHECK(ops->build(&g, rest, sh + d / 2, d - d / 2, NULL) == SBF_OK);
			ops->merge(&g, data2, rest);
			CHECK(memcmp(data, data2, (size_t) bytes) == 0);
			free(rest);
		}
		if (d > 1)
		{
			uint64_t	swap[2] = {sh[1], sh[0]};

			CHECK(ops->build(&g, data2, swap, 2, NULL) == SBF_E_PARAM);
		}
		free(data);
		free(data2);
		free(h);
		free(sh);
		sbf_filter_free(&f);
	}
}

/* Geometry, entry and data checks of the bloom rows: the version-2 ranges. */
static void
test_bloom_row_checks(void)
{
	const SbfKindOps *rows[SBF_KIND_CODES];
	int			nrows = unit_kind_rows(rows, true);
	int			r;

	CHECK(nrows == 2);
	for (r = 0; r < nrows; r++)
	{
		const SbfKindOps *ops = rows[r];
		SbfKindGeom g = {.size = 100, .kind = ops->kind, .width = 3};
		uint8_t		data[16] = {0};
		uint64_t	bytes;

		CHECK(strcmp(ops->name, "bloom") == 0);
		CHECK(ops->check_geom(&g) == SBF_OK);
		CHECK(ops->bytes(&g, &bytes) && bytes == 16);
		CHECK(ops->check_data(&g, data) == SBF_OK);
		data[12] = 0x10;		/* bit 100: past m */
		CHECK(ops->check_data(&g, data) == SBF_E_BITS);
		data[12] = 0x08;		/* bit 99: the last one */
		CHECK(ops->check_data(&g, data) == SBF_OK);
		g.width = 0;
		CHECK(ops->check_geom(&g) == SBF_E_SEGMENT);
		g.width = SBF_MAX_K + 1;
		CHECK(ops->check_geom(&g) == SBF_E_SEGMENT);
		g.width = SBF_MAX_K;
		g.size = 0;
		CHECK(ops->check_geom(&g) == SBF_E_SEGMENT);
		g.size = SBF_MAX_SEGMENT_BITS + 1;
		CHECK(ops->check_geom(&g) == SBF_E_SEGMENT);
		g.size = SBF_MAX_SEGMENT_BITS;
		CHECK(ops->check_geom(&g) == SBF_OK);
		g.arity = 3;
		CHECK(ops->check_geom(&g) == SBF_E_SEGMENT);
		g.arity = 0;
		CHECK(ops->check_entry(&g, 10, 10, 0.01) == SBF_OK);
		CHECK(ops->check_entry(&g, 10, 11, 0.01) == SBF_E_SEGMENT);
		CHECK(ops->check_entry(&g, 0, 0, 0.01) == SBF_E_SEGMENT);
		CHECK(ops->check_entry(&g, 10, 1, 0.5) == SBF_E_SEGMENT);
		CHECK(ops->check_entry(&g, 10, 1, NAN) == SBF_E_SEGMENT);
		CHECK(ops->plan(0, 0.01, &g, &bytes) == SBF_E_PARAM);
		CHECK(ops->plan(10, 0.5, &g, &bytes) == SBF_E_PARAM);
		CHECK(ops->plan(UINT64_MAX / 2, 1e-300, &g, &bytes) == SBF_E_TOO_LARGE);
	}
}

/*
 * The windowed rows against the window's own reads (format 4 windowed, whose
 * buckets are the smallest of fused, blocked and kind 4; version 3 in test_window4.c): every
 * segment of windows built by adds and compaction is found by its row
 * exactly where sbf_win_segment_has finds it, has the rate
 * sbf_win_segment_fpr gives, and rebuilding a kind that inserts from the
 * hashes it holds sets no bit it lacks.
 */
static void
test_wbloom_row_matches_window(void)
{
	const SbfKindOps *ops = sbf_kind_ops(SBF_KIND_WBLOOM);
	SbfWinParams p = {.width = 100, .buckets = 6, .error_rate = 0.01};
	SbfWindow	w;
	SbfFilter	out;
	SbfWinView	v;
	SbfDirIter	it;
	SbfDirEntry e;
	uint64_t	seed = 99;
	uint64_t	hs[20000];
	size_t		off;
	int			j;
	uint32_t	nseg = 0;

	CHECK(ops == &sbf_kind_wbloom_ops);
	sbf_win_init(&w, &p, &g_alloc);
	for (j = 0; j < 20000; j++)
	{
		hs[j] = rnd(&seed);
		CHECK(sbf_win_add(&w, j / 4000, hs[j]) == SBF_OK);
	}
	CHECK(sbf_win_compact(&w, true) == SBF_OK);
	CHECK(sbf_win_encode(&w, &out, 0) == SBF_OK);
	CHECK(sbf_win_validate(out.base, out.len, &v) == SBF_OK);
	CHECK(v.nsegments >= 4);
	off = v.bits_offset;
	sbf_dir_start(&it, v.buf, v.nsegments, v.bits_offset);
	while (sbf_dir_next(&it, &e))
	{
		SbfWinSeg	seg;
		uint8_t    *data = calloc(1, (size_t) e.bytes + 1);
		int			i;

		sbf_win_read_segment(&v, e.index, &off, &seg);
		CHECK(e.st == SBF_OK && e.ops == seg.ops && e.g.kind == seg.g.kind &&
			  e.ops == sbf_kind_ops(e.g.kind) && e.g.kind != SBF_KIND_BLOOM);
		CHECK(e.age == seg.age && e.g.size == seg.g.size && e.g.width == seg.g.width &&
			  e.count == seg.count && v.buf + e.data == seg.bits && e.bytes == seg.bytes);
		CHECK(e.ops->check_geom(&e.g) == SBF_OK);
		CHECK(e.ops->rate_of(&e.g, seg.bits) == sbf_win_segment_fpr(&seg));
		for (i = 0; i < 20000; i += 7)
			CHECK(sbf_dir_has(v.buf, &e, hs[i]) == sbf_win_segment_has(&seg, hs[i]));
		/* the bucket's hashes, inserted again, are all found already */
		for (i = 0; i < 20000 && e.ops->insert != NULL; i++)
			if (sbf_win_segment_has(&seg, hs[i]))
				(void) e.ops->insert(&e.g, data, hs[i]);
		for (i = 0; i < 20000 && e.ops->insert != NULL; i += 13)
			CHECK(!e.ops->contains(&e.g, data, hs[i]) || sbf_win_segment_has(&seg, hs[i]));
		free(data);
		nseg++;
	}
	CHECK(nseg == v.nsegments && off == v.pairs_offset);
	sbf_filter_free(&out);
	sbf_win_free(&w);
}

/* The iterator walks what sbf_get_segment reads, entry by entry. */
static void
test_iterator_matches_directory(void)
{
	int			pi;

	for (pi = 0; pi < NPARAMS; pi++)
	{
		SbfFilter	f;
		SbfView		v;
		SbfDirIter	it;
		SbfDirEntry e;
		uint32_t	n = 0;

		make_filter(&f, pi, 20000, 31, true, false);
		CHECK(sbf_validate(f.base, f.len, &v) == SBF_OK);
		sbf_dir_view(&it, &v);
		while (sbf_dir_next(&it, &e))
		{
			SbfSegment	a;
			SbfSegment	b;
			SbfSegment	raw;

			sbf_get_segment(&v, e.index, &a);
			sbf_dir_segment(&e, &b);
			sbf_read_segment(v.buf, e.index, &raw);
			CHECK(e.index == n);
			CHECK(a.capacity == b.capacity && a.count == b.count &&
				  a.nbits == b.nbits && a.k == b.k && a.kind == b.kind &&
				  a.words_offset == b.words_offset);
			CHECK(memcmp(&a.error, &raw.error, sizeof(double)) == 0 &&
				  raw.nbits == a.nbits && raw.kind == SBF_KIND_BLOOM);
			CHECK(strcmp(sbf_segment_kind_name(&a), "bloom") == 0);
			n++;
		}
		CHECK(n == v.nsegments && it.off == v.hll_offset);
		sbf_filter_free(&f);
	}
}

/* The version table: what each version byte allows. */
static void
test_version_table(void)
{
	const SbfVersion *v1 = sbf_version(1);
	const SbfVersion *v2 = sbf_version(2);
	const SbfVersion *v3 = sbf_version(3);

	CHECK(v1 != NULL && v2 != NULL && v3 != NULL);
	CHECK(v1->version == 1 && v2->version == 2 && v3->version == 3);
	CHECK(sbf_version(0) == NULL && sbf_version(6) == NULL && sbf_version(255) == NULL);
	/* version 4: plain unless flag bit 7 (WINDOWED) is set */
	{
		const SbfVersion *p4 = sbf_version_row(4, SBF_FLAG_HLL_DENSE);
		const SbfVersion *w4 = sbf_version_row(4, SBF_FLAG_WINDOWED);
		uint8_t		pb[2] = {4, SBF_FLAG_OVERLAP};
		uint8_t		wb[2] = {4, SBF_FLAG_WINDOWED | SBF_WIN_FLAG_STARTED};
		const SbfVersion *p5 = sbf_version(5);

		CHECK(p4 != NULL && w4 != NULL && p4 != w4);
		CHECK(p4->version == 4 && w4->version == 4);
		CHECK(!p4->windowed && !p4->exact && p4->directory_counts &&
			  p4->segment_ops == NULL && p4->desc_offset == SBF_SEG4_DESC &&
			  (p4->flags & (SBF_FLAG_EXACT | SBF_FLAG_WINDOWED)) == 0);
		CHECK(w4->windowed && w4->segment_ops == NULL && w4->desc_offset == 8 &&
			  w4->entry_bytes == 24 && w4->header_bytes == SBF_WIN_HEADER_BYTES &&
			  (w4->flags & SBF_FLAG_WINDOWED));
		CHECK(sbf_version(4) == p4);
		CHECK(sbf_version_of(pb) == p4 && sbf_version_of(wb) == w4);
		/* the kinds each directory allows, from the table: docs/format4.md, 2 and 8 */
		{
			unsigned	plain = 0;
			unsigned	win = 0;
			unsigned	plain5 = 0;
			unsigned	c;

			for (c = 1; c < SBF_KIND_CODES; c++)
			{
				const SbfKindOps *ops = sbf_kind_ops((uint8_t) c);

				if (ops == NULL)
					continue;
				/* every row is in a version-4 directory but compact, in version 5's only */
				CHECK(ops->kind == c &&
					  ((ops->dirs & (p4->dir | w4->dir)) != 0) == (c != SBF_KIND_COMPACT));
				plain |= (ops->dirs & p4->dir) ? 1u << c : 0;
				win |= (ops->dirs & w4->dir) ? 1u << c : 0;
				plain5 |= (ops->dirs & p5->dir) ? 1u << c : 0;
			}
			CHECK(p4->dir != w4->dir && p5->dir != p4->dir && p5->dir != w4->dir);
			CHECK(plain == ((1u << SBF_KIND_BLOOM) | (1u << SBF_KIND_BLOCKED) |
							(1u << SBF_KIND_FUSED)));
			CHECK(plain5 == (plain | (1u << SBF_KIND_COMPACT)));
			CHECK(win == ((1u << SBF_KIND_BLOCKED) | (1u << SBF_KIND_FUSED) |
						  (1u << SBF_KIND_WBLOOM)));
		}
		CHECK(sbf_versions_unite(2, 4) && sbf_versions_unite(4, 1) &&
			  !sbf_versions_unite(3, 4));
		/* version 5: version 4's plain layout, holding a kind only it admits */
		CHECK(p5 != NULL && p5->version == 5 && sbf_version_row(5, SBF_FLAG_WINDOWED) == p5);
		CHECK(!p5->windowed && !p5->exact && p5->directory_counts && p5->written &&
			  p5->segment_ops == NULL && p5->desc_offset == SBF_SEG4_DESC &&
			  p5->header_bytes == p4->header_bytes && p5->entry_bytes == p4->entry_bytes &&
			  p5->flags == p4->flags && p5->dir_before == p4->dir &&
			  p4->dir_before == 0 && w4->dir_before == 0);
		CHECK(sbf_versions_unite(4, 5) && sbf_versions_unite(5, 2) &&
			  !sbf_versions_unite(5, 3));
		CHECK(sbf_payloads_unite(pb, pb) && sbf_payloads_unite(wb, wb) &&
			  !sbf_payloads_unite(pb, wb));
	}
	CHECK(v1->flags == SBF_FLAG_HLL_DENSE && !v1->exact && !v1->directory_counts &&
		  !v1->written && !v1->windowed);
	CHECK((v2->flags & SBF_FLAG_EXACT) && v2->exact && v2->directory_counts &&
		  v2->written && !v2->windowed);
	CHECK(v3->windowed && v3->flags == SBF_WIN_FLAG_STARTED &&
		  v3->header_bytes == SBF_WIN_HEADER_BYTES &&
		  v3->entry_bytes == SBF_WIN_SEGDIR_BYTES);
	CHECK(v1->segment_ops == &sbf_kind_bloom_ops &&
		  v2->segment_ops == &sbf_kind_bloom_ops &&
		  v3->segment_ops == &sbf_kind_wbloom_ops);
	CHECK(sbf_versions_unite(1, 2) && sbf_versions_unite(2, 1) &&
		  sbf_versions_unite(2, 2) && sbf_versions_unite(3, 3));
	CHECK(!sbf_versions_unite(2, 3) && !sbf_versions_unite(1, 3) &&
		  !sbf_versions_unite(2, 9));
	/* a version-1 value with a flag only version 2 has is refused */
	{
		SbfFilter	f;
		SbfView		v;

		make_filter(&f, 0, 3000, 8, true, false);
		CHECK(sbf_validate(f.base, f.len, &v) == SBF_OK);
		f.base[0] = 1;
		CHECK(sbf_validate(f.base, f.len, &v) == SBF_OK);
		CHECK(strcmp(sbf_count_source(&v), "hll") == 0);
		f.base[1] |= SBF_FLAG_OVERLAP;
		CHECK(sbf_validate(f.base, f.len, &v) == SBF_E_FLAGS);
		f.base[0] = 6;
		CHECK(sbf_validate(f.base, f.len, &v) == SBF_E_VERSION);
		sbf_filter_free(&f);
	}
}

/*
 * sbf_divisor_rem (a plan's remainders by a bloom segment's m) equals n % d
 * for divisors of every bit length, powers of two and their neighbours,
 * and numerators at the edges and spread over the 64-bit range; and a plan
 * over bloom segments answers as the view reader.
 */
static void
test_divisor_rem(void)
{
	uint64_t	state = 0x243f6a8885a308d3ULL;
	uint64_t	bad = 0;
	int			l;
	int			r;

	for (l = 0; l < 64; l++)
	{
		uint64_t	p2 = (uint64_t) 1 << l;
		uint64_t	ds[5] = {p2, p2 + 1, p2 - 1, p2 + (p2 >> 1), 0};

		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		ds[4] = p2 | (state >> (63 - l) >> 1);
		for (r = 0; r < 5; r++)
		{
			uint64_t	d = ds[r] == 0 ? 1 : ds[r];
			uint64_t	ns[8] = {0, 1, d - 1, d, d + 1, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - d};
			SbfDivisor	dv;
			int			i;

			sbf_divisor_init(&dv, d);
			for (i = 0; i < 8; i++)
				bad += sbf_divisor_rem(&dv, ns[i]) != ns[i] % d;
			for (i = 0; i < 2000; i++)
			{
				uint64_t	n;

				state = state * 6364136223846793005ULL + 1442695040888963407ULL;
				n = state ^ (state >> 29);
				n >>= (unsigned) i % 64;
				bad += sbf_divisor_rem(&dv, n) != n % d;
			}
		}
	}
	{
		SbfDivisor	dv;

		sbf_divisor_init(&dv, UINT64_MAX);
		bad += sbf_divisor_rem(&dv, UINT64_MAX) != 0;
		bad += sbf_divisor_rem(&dv, UINT64_MAX - 1) != UINT64_MAX - 1;
	}
	CHECK(bad == 0);
}

int
main(void)
{
	RUN(test_bytes_unchanged);
	RUN(test_divisor_rem);
	/* these compare the rows with what 1.2 wrote (version 2, bloom) */
	sbf_write_v2 = true;
	RUN(test_bloom_row_matches_filter);
	RUN(test_bloom_row_checks);
	RUN(test_wbloom_row_matches_window);
	RUN(test_iterator_matches_directory);
	RUN(test_version_table);
	sbf_write_v2 = false;
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
