/*
 * test_bounds.c
 *	  Unit tests of issue 39's bounds: the validator refuses bloom geometry
 *	  no writer produces (bits far below SIZING's for the entry's capacity
 *	  and error, a rate at capacity past twice SIZING's), so # on a crafted
 *	  value is bounded by its directory (the 132-byte value of two m = 1
 *	  segments that answered 85,242,318,145 is refused); the directory count
 *	  models each geometry once however the segments alternate (the blocked
 *	  model's shared points its lone ones bit for bit); sbf_segments_describe gives every
 *	  segment in one walk; the loops without an allocator (validators,
 *	  rates over a segment's data, the windowed validator) call
 *	  sbf_interrupt_hook.  Deterministic keys.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_internal.h"
#include "sbf_kind.h"
#include "sbf_window.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"
#include "unit_window.h"
#include "../fuzz/craft4.h"

#define DAY		((int64_t) 86400 * 1000000)
#define T0		((int64_t) 20000)

static uint64_t g_hook_calls;

static void
count_hook(void)
{
	g_hook_calls++;
}

/* The bound of sbf_directory_count: sum of c / prod (1 - min(rate at capacity, 0.75)). */
static double
count_bound(const SbfView *v)
{
	SbfSegmentDesc *d = malloc(sizeof(SbfSegmentDesc) * v->nsegments);
	double		floor = 1.0;
	double		bound = 0.0;
	uint32_t	i;

	sbf_segments_describe(v, d);
	for (i = 0; i < v->nsegments; i++)
	{
		const SbfKindOps *ops = sbf_kind_ops(d[i].g.kind);
		double		r = ops->rate_at(&d[i].g, d[i].seg.capacity);

		floor *= 1.0 - (r < 0.75 ? r : 0.75);
		bound += (double) d[i].seg.count / (floor > 1e-9 ? floor : 1e-9);
	}
	free(d);
	return bound;
}

/*
 * Issue 39's crafted value: two bloom segments of m = 1 whose counts sum to
 * 105, 132 bytes.  Refused; with SIZING's geometry for the same entries it
 * validates and # is within the directory's bound.
 */
static void
bounds_thin_bloom(void)
{
	static const uint64_t counts[2] = {50, 55};
	uint64_t	m;
	uint32_t	k;
	size_t		len;
	uint8_t    *buf;
	SbfView		v;
	double		n;

	buf = craft4_thin_bloom(2, 1, 1, 60, counts, 0.004, 0.01, &len);
	CHECK(len == 132);
	CHECK_ST(sbf_validate(buf, len, &v), SBF_E_SEGMENT);
	free(buf);
	/* k = 64 on one bit: refused too */
	buf = craft4_thin_bloom(2, 64, 64, 60, counts, 0.004, 0.01, &len);
	CHECK_ST(sbf_validate(buf, len, &v), SBF_E_SEGMENT);
	free(buf);

	CHECK(sbf_segment_geometry(60, 0.004, SBF_MAX_SEGMENT_BITS, &m, &k));
	buf = craft4_thin_bloom(2, m, (uint8_t) k, 60, counts, 0.004, 0.01, &len);
	CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
	n = sbf_directory_count(&v);
	printf("# SIZING's geometry (m %" PRIu64 ", k %u), all bits set: directory count %.1f, bound %.1f\n",
		   m, k, n, count_bound(&v));
	CHECK(n >= 105.0 && n <= count_bound(&v) * (1.0 + 1e-12));
	free(buf);
	/* 90% of SIZING's bits pass (slack for every writer), a third does not */
	buf = craft4_thin_bloom(2, m * 9 / 10, (uint8_t) k, 60, counts, 0.004, 0.01, &len);
	CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
	CHECK(sbf_directory_count(&v) <= count_bound(&v) * (1.0 + 1e-12));
	free(buf);
	buf = craft4_thin_bloom(2, m / 3, (uint8_t) k, 60, counts, 0.004, 0.01, &len);
	CHECK_ST(sbf_validate(buf, len, &v), SBF_E_SEGMENT);
	free(buf);
}

/*
 * SIZING's geometry validates for every capacity and error a writer uses
 * (the clamp of k at 64 for tiny errors included); four times its k does
 * not at errors up to 0.1 (above, any k stays near the 0.75 cap).
 */
static void
bounds_sizing_accepted(void)
{
	static const double ps[] = {0.49, 0.4, 0.1, 0.01, 1e-4, 1e-10, 1e-30, 1e-100, 1e-300};
	static const uint64_t caps[] = {1, 2, 7, 100, 1000, 123457};
	static const uint64_t counts[1] = {1};
	uint32_t	i;
	uint32_t	j;
	int			refused = 0;
	int			far = 0;

	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		for (j = 0; j < sizeof(caps) / sizeof(caps[0]); j++)
		{
			uint64_t	m;
			uint32_t	k;
			size_t		len;
			uint8_t    *buf;
			SbfView		v;

			if (!sbf_segment_geometry(caps[j], ps[i], SBF_MAX_SEGMENT_BITS, &m, &k) ||
				m > (1u << 24))
				continue;
			buf = craft4_thin_bloom(1, m, (uint8_t) k, caps[j], counts, ps[i], 0.49, &len);
			refused += sbf_validate(buf, len, &v) != SBF_OK;
			free(buf);
			if (k * 4 <= 64 && ps[i] <= 0.1)
			{
				buf = craft4_thin_bloom(1, m, (uint8_t) (k * 4), caps[j], counts, ps[i], 0.49, &len);
				if (sbf_validate(buf, len, &v) == SBF_OK)
				{
					far++;
					printf("# k %u -> %u passes at capacity %" PRIu64 ", p %g\n", k, k * 4, caps[j], ps[i]);
				}
				free(buf);
			}
		}
	CHECK(refused == 0);
	CHECK(far == 0);
}

/*
 * # on many equal segments, or a few geometries in turn, models each once
 * (sbf_count_model_calls, at most SBF_COUNT_MEMOS kept), and a
 * run of 64 one-line blocked segments gives the same count as its model
 * applied segment by segment would.
 */
static void
bounds_count_memo(void)
{
	Craft4Seg	segs[64];
	Craft4Seg	mixed[64];
	size_t		len;
	uint8_t    *buf;
	SbfView		v;
	uint64_t	before;
	uint32_t	i;
	double		n;

	for (i = 0; i < 64; i++)
	{
		segs[i] = (Craft4Seg) {SBF_KIND_BLOCKED, 3, 0.0001, 77};
		mixed[i] = (Craft4Seg) {SBF_KIND_BLOCKED, 3 + (i % 2), 0.0001, 77};
	}
	buf = craft4(segs, 64, 0, &len);
	CHECK(buf != NULL && sbf_validate(buf, len, &v) == SBF_OK);
	before = sbf_count_model_calls;
	n = sbf_directory_count(&v);
	CHECK(sbf_count_model_calls - before == 1);
	CHECK(n >= 64.0 * 3 && n <= count_bound(&v));
	free(buf);
	/* alternating geometries: one model a geometry, not a segment */
	buf = craft4(mixed, 64, 0, &len);
	CHECK(buf != NULL && sbf_validate(buf, len, &v) == SBF_OK);
	before = sbf_count_model_calls;
	(void) sbf_directory_count(&v);
	CHECK(sbf_count_model_calls - before == 2);
	free(buf);
	/* five geometries (k and lines) in turn: five models */
	for (i = 0; i < 64; i++)
		mixed[i] = (Craft4Seg) {SBF_KIND_BLOCKED, 20 + 40 * (i % 5), 1e-2 / (1 + i % 5), 77};
	buf = craft4(mixed, 64, 0, &len);
	CHECK(buf != NULL && sbf_validate(buf, len, &v) == SBF_OK);
	before = sbf_count_model_calls;
	n = sbf_directory_count(&v);
	CHECK(sbf_count_model_calls - before == 5);
	CHECK(n <= count_bound(&v));
	free(buf);
}

/*
 * The blocked kind's model at the points of one segment (model_rates, the
 * points sharing the series' factors) is its model_rate at each point, bit
 * for bit: below and above 150 elements a line (the series' start moves),
 * past 600 (1), every k.
 */
static void
bounds_model_rates(void)
{
	static const double counts[] = {1, 3, 77, 500, 1000, 9600, 38400, 1e6};
	static const uint64_t lines[] = {1, 2, 64};
	const SbfKindOps *ops = &sbf_kind_blocked_ops;
	double		batch[65];
	int			differ = 0;
	uint32_t	k;
	uint32_t	a;
	uint32_t	b;
	int			i;

	CHECK(ops->model_rates != NULL);
	for (k = 1; k <= SBF_BLOCKED_MAX_K; k++)
		for (a = 0; a < sizeof(counts) / sizeof(counts[0]); a++)
			for (b = 0; b < sizeof(lines) / sizeof(lines[0]); b++)
			{
				SbfKindGeom g = {0};
				double		h = counts[a] / 64;

				g.kind = SBF_KIND_BLOCKED;
				g.width = (uint8_t) k;
				g.size = lines[b];
				ops->model_rates(&g, h, 64, batch);
				for (i = 0; i <= 64; i++)
				{
					double		one = ops->model_rate(&g, h * i);

					differ += memcmp(&one, &batch[i], sizeof(double)) != 0;
				}
				CHECK(batch[64] == ops->rate_at(&g, (uint64_t) counts[a]));
			}
	CHECK(differ == 0);
}

/* sbf_segments_describe: what sbf_get_segment and sbf_segment_geom give, in one walk. */
static void
bounds_describe(void)
{
	static const Craft4Seg segs[] = {
		{SBF_KIND_FUSED, 60, 0.01, 1},
		{SBF_KIND_BLOCKED, 2000, 1e-4, 2},
		{SBF_KIND_BLOOM, 40, 0.001, 3},
	};
	SbfSegmentDesc d[3];
	size_t		len;
	uint8_t    *buf = craft4(segs, 3, 0, &len);
	SbfView		v;
	uint32_t	i;

	CHECK(buf != NULL && sbf_validate(buf, len, &v) == SBF_OK);
	g_hook_calls = 0;
	sbf_interrupt_hook = count_hook;
	sbf_segments_describe(&v, d);
	sbf_interrupt_hook = NULL;
	CHECK(g_hook_calls == 3);
	for (i = 0; i < 3; i++)
	{
		SbfSegment	s;
		SbfKindGeom g;
		uint64_t	bytes;

		sbf_get_segment(&v, i, &s);
		sbf_segment_geom(&v, i, &g, &bytes);
		CHECK(memcmp(&s, &d[i].seg, sizeof(s)) == 0 || (s.capacity == d[i].seg.capacity &&
			  s.count == d[i].seg.count && s.kind == d[i].seg.kind && s.nbits == d[i].seg.nbits &&
			  s.words_offset == d[i].seg.words_offset));
		CHECK(g.kind == d[i].g.kind && g.size == d[i].g.size && bytes == d[i].bytes);
		CHECK(d[i].expected_fill == sbf_segment_expected_fill(&v, i));
	}
	free(buf);
}

/*
 * The loops without an allocator call sbf_interrupt_hook: the validator
 * once a segment, a blocked rate over 2^17 lines every 2^15 lines, a
 * bloom fill every 2^18 words, the windowed validator once a segment.
 */
static void
bounds_interrupts(void)
{
	Craft4Seg	segs[64];
	SbfKindGeom g = {0};
	size_t		len;
	uint8_t    *buf;
	uint8_t    *data;
	SbfView		v;
	uint32_t	i;

	for (i = 0; i < 64; i++)
		segs[i] = (Craft4Seg) {SBF_KIND_BLOCKED, 30, 0.001, 100 + i};
	buf = craft4(segs, 64, 0, &len);
	sbf_interrupt_hook = count_hook;
	g_hook_calls = 0;
	CHECK(sbf_validate(buf, len, &v) == SBF_OK);
	CHECK(g_hook_calls >= 64);
	g_hook_calls = 0;
	(void) sbf_directory_count(&v);
	CHECK(g_hook_calls >= 64);
	free(buf);

	g.kind = SBF_KIND_BLOCKED;
	g.size = (uint64_t) 1 << 17;
	g.width = 8;
	data = calloc(1, (size_t) g.size * SBF_BLOCKED_LINE_BYTES);
	g_hook_calls = 0;
	CHECK(sbf_kind_blocked_ops.rate_of(&g, data) == 0.0);
	CHECK(g_hook_calls == 4);
	free(data);
	data = calloc(1, (size_t) 8 << 19);
	g_hook_calls = 0;
	CHECK(sbf_bits_fill(data, (uint64_t) 64 << 19) == 0.0);
	CHECK(g_hook_calls == 2);
	free(data);

	{
		static const uint32_t sizes[4] = {3000, 50, 20000, 7};
		SbfWinParams p = {DAY, 10, 0.01};
		SbfWindow	w;
		SbfFilter	f;
		SbfWinView	wv;
		size_t		n = 0;
		SbfWinPair *pairs = malloc(sizeof(SbfWinPair) * 23057);
		uint32_t	a;

		for (a = 0; a < 4; a++)
			for (i = 0; i < sizes[a]; i++)
			{
				pairs[n].hash = elem(1000000ULL * a + i);
				pairs[n++].bucket = T0 - (int64_t) a;
			}
		n = sbf_win_pairs_normalize(pairs, n, T0, p.buckets);
		CHECK(sbf_win_from_pairs(&w, &p, T0, pairs, n, &g_alloc) == SBF_OK);
		CHECK(sbf_win_compact(&w, true) == SBF_OK);
		g_hook_calls = 0;
		CHECK(win_encode_valid(0, &w, &f, &wv));
		CHECK(wv.nsegments >= 1 && g_hook_calls >= 2 * wv.nsegments);
		sbf_filter_free(&f);
		sbf_win_free(&w);
		free(pairs);
	}
	sbf_interrupt_hook = NULL;
}

int
main(void)
{
	RUN(bounds_thin_bloom);
	RUN(bounds_sizing_accepted);
	RUN(bounds_count_memo);
	RUN(bounds_model_rates);
	RUN(bounds_describe);
	RUN(bounds_interrupts);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
