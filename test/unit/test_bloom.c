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
 *	  ported code must give the same ones.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_internal.h"
#include "sbf_window.h"

#include "unit_check.h"

static void *
t_alloc(size_t size, void *ctx)
{
	(void) ctx;
	return malloc(size);
}

static void *
t_realloc(void *ptr, size_t size, void *ctx)
{
	(void) ctx;
	return realloc(ptr, size);
}

static void
t_free(void *ptr, void *ctx)
{
	(void) ctx;
	free(ptr);
}

static const SbfAllocator g_alloc = {t_alloc, t_realloc, t_free, NULL, NULL};

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

static void
fold_u64(Digest *g, uint64_t x)
{
	fold_bytes(g, &x, sizeof(x));
}

static void
fold_double(Digest *g, double x)
{
	uint64_t	b;

	memcpy(&b, &x, sizeof(b));
	fold_u64(g, b);
}

/* Folds a plain payload and every read-only answer of it. */
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
	fold_double(g, sbf_fpr_bound(&v));
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

static SbfParams
params(uint64_t cap, double e, double r, uint16_t s, uint8_t p)
{
	SbfParams	x;

	x.capacity = cap;
	x.error_rate = e;
	x.tightening = r;
	x.growth = s;
	x.hll_p = p;
	return x;
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
	SbfParams	p = params(g_params[pi].cap, g_params[pi].e, g_params[pi].r,
						   g_params[pi].s, g_params[pi].p);
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
	UINT64_C(0xe8be333674f27f16),
};

static void
test_bytes_unchanged(void)
{
	bool		print = getenv("SBF_GOLDEN_PRINT") != NULL;
	int			i;

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
}

int
main(void)
{
	RUN(test_bytes_unchanged);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
