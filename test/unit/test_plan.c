/*
 * test_plan.c
 *	  Lookup plans (src/core/plan/sbf_plan.h): every form answers through its plan
 *	  exactly as through the view readers (sbf_contains_hash,
 *	  sbf_count_contained, sbf_win_contains), one hash at a time and in
 *	  batches, after a rebind to another copy, every since; a plan matches
 *	  only a value of the same length and header and directory; and a plan is
 *	  refused for a header or directory that does not describe the value.
 */
#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"
#include "unit_window.h"
#include "sbf_plan.h"
#include "sbf_efset.h"
#include "../fuzz/craft4.h"

#define DAY		((int64_t) 86400 * 1000000)

/* xorshift64*: probes never added */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/*
 * The plan of a plain payload answers as its view, per hash and in batches,
 * bound to the payload and to a copy of it; members are probes[i] for even i.
 */
static void
check_plain(const uint8_t *buf, size_t len, const uint64_t *members, size_t nm)
{
	SbfView		v;
	SbfPlan    *p = NULL;
	uint8_t    *copy = malloc(len + 8);
	uint64_t   *probe = malloc(sizeof(uint64_t) * 2000);
	uint64_t	seed = 99;
	size_t		want = 0;
	size_t		differ = 0;
	size_t		i;
	int			round;

	CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
	CHECK_ST(sbf_plan_build(buf, len, &g_alloc, &p), SBF_OK);
	if (p == NULL)
		goto done;
	for (i = 0; i < 2000; i++)
		probe[i] = i % 2 == 0 && nm > 0 ? members[(i * 31) % nm] : rnd(&seed);
	for (i = 0; i < 2000; i++)
		want += sbf_contains_hash(&v, probe[i]);
	CHECK(sbf_count_contained(&v, probe, 2000) == want);
	/* the plan bound to the payload, then to an unaligned copy, then back */
	memcpy(copy + 3, buf, len);
	for (round = 0; round < 3; round++)
	{
		const uint8_t *at = round == 1 ? copy + 3 : buf;

		CHECK(sbf_plan_matches(p, at, len));
		sbf_plan_bind(p, at);
		for (i = 0; i < 2000; i++)
			differ += sbf_plan_contains(p, probe[i]) != sbf_contains_hash(&v, probe[i]);
		CHECK(sbf_plan_count(p, probe, 2000) == want);
		CHECK(sbf_plan_count(p, probe + 1, 17) == sbf_count_contained(&v, probe + 1, 17));
	}
	CHECK(differ == 0);
	if (nm > 0)
		CHECK(want >= 1000);
	/* another length or another directory byte: not this plan */
	CHECK(!sbf_plan_matches(p, buf, len - 8));
	copy[3 + p->keylen - 1] ^= 1;
	CHECK(!sbf_plan_matches(p, copy + 3, len));
done:
	sbf_plan_free(p, &g_alloc);
	free(copy);
	free(probe);
}

/* Keys 0..n-1 of space 0 added to a default filter of capacity cap. */
static void
plain_added(SbfFilter *f, uint64_t cap, uint64_t n, uint64_t **keys)
{
	SbfParams	pr = params(cap, 0.01, 2, 0.9, 10);
	uint64_t	i;

	CHECK_ST(sbf_create(f, &pr, 0, &g_alloc), SBF_OK);
	*keys = malloc(sizeof(uint64_t) * (n + 1));
	for (i = 0; i < n; i++)
	{
		(*keys)[i] = key(0, i);
		CHECK_ST(sbf_add_hash(f, key(0, i), NULL), SBF_OK);
	}
}

/* Exact, converted and grown plain values. */
static void
test_plan_plain_adds(void)
{
	static const uint64_t sizes[][2] = {{1000, 0}, {1000, 20}, {1000, 900},
	{100, 5000}, {1000, 60000}};
	size_t		s;

	reset_counts(SIZE_MAX);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		SbfFilter	f;
		uint64_t   *keys;

		plain_added(&f, sizes[s][0], sizes[s][1], &keys);
		check_plain(SBF_PAYLOAD(&f), f.len, keys, sizes[s][1]);
		free(keys);
		sbf_filter_free(&f);
	}
	no_leaks();
}

/* Crafted version-4 values: each kind alone and mixed, small and past the caches. */
static void
test_plan_plain_kinds(void)
{
	static const Craft4Seg mixes[][3] = {
		{{SBF_KIND_FUSED, 3000, 0.0083, 1}},
		{{SBF_KIND_BLOCKED, 3000, 1e-3, 2}},
		{{SBF_KIND_BLOOM, 3000, 0.001, 3}},
		{{SBF_KIND_FUSED, 3000, 0.0083, 1}, {SBF_KIND_BLOCKED, 3000, 1e-4, 2},
		{SBF_KIND_BLOOM, 500, 0.001, 3}},
		{{SBF_KIND_BLOCKED, 300000, 1e-3, 4}, {SBF_KIND_FUSED, 200000, 1e-4, 5},
		{SBF_KIND_BLOOM, 200000, 0.001, 6}},
		/* version 5: a compact segment decoded, or read from its bytes */
		{{SBF_KIND_COMPACT, 500, 0.0083, 7}},
		{{SBF_KIND_COMPACT, 5000, 0.0083, 8}},
		{{SBF_KIND_BLOOM, 3000, 0.001, 3}, {SBF_KIND_COMPACT, 300, 0.0083, 9}},
		{{SBF_KIND_BLOOM, 20000, 0.001, 4}, {SBF_KIND_COMPACT, 300, 0.0083, 9}},
	};
	static const uint32_t nseg[] = {1, 1, 1, 3, 3, 1, 1, 2, 2};
	/* which mixes' last segment a plan decodes (within the key's data limit) */
	static const bool decoded[] = {0, 0, 0, 0, 0, 1, 0, 1, 0};
	size_t		m;

	for (m = 0; m < 9; m++)
	{
		size_t		len;
		uint8_t    *buf = craft4(mixes[m], nseg[m], 0, &len);
		uint64_t   *members = craft4_hashes(&mixes[m][nseg[m] - 1]);
		SbfPlan    *p = NULL;

		CHECK(buf != NULL);
		if (buf == NULL)
			continue;
		check_plain(buf, len, members, mixes[m][nseg[m] - 1].n);
		CHECK_ST(sbf_plan_build(buf, len, &g_alloc, &p), SBF_OK);
		if (p != NULL)
			CHECK(p->prefetch == (m == 4) &&
				  (p->seg[nseg[m] - 1].keys != NULL) == decoded[m] &&
				  (buf[0] == SBF_FORMAT_V5) == (m >= 5));
		sbf_plan_free(p, &g_alloc);
		/* a length the directory does not describe, a truncated directory */
		CHECK(sbf_plan_build(buf, len - 8, &g_alloc, &p) != SBF_OK && p == NULL);
		CHECK(sbf_plan_build(buf, SBF_HEADER_BYTES + 20, &g_alloc, &p) != SBF_OK);
		free(members);
		free(buf);
	}
}

/*
 * Two version-5 values whose header and directory are the same byte for
 * byte but whose compact segments hold other fingerprints: the plan of one
 * (which decoded its segment) is not the other's; and a code that is not
 * one (its closing zero set) is not decoded: its plan reads its bytes.
 */
static void
test_plan_decoded_key(void)
{
	Craft4Seg	a[1] = {{SBF_KIND_COMPACT, 400, 0.0083, 11}};
	Craft4Seg	b[1] = {{SBF_KIND_COMPACT, 400, 0.0083, 12}};
	size_t		la;
	size_t		lb;
	uint8_t    *va = craft4(a, 1, 0, &la);
	uint8_t    *vb = craft4(b, 1, 0, &lb);
	size_t		dirlen = SBF_HEADER_BYTES + SBF_SEGDIR_BYTES;
	SbfPlan    *p = NULL;
	SbfView		v;
	SbfSegment	s;

	CHECK(va != NULL && vb != NULL && la == lb);
	if (va == NULL || vb == NULL || la != lb)
		goto done;
	CHECK(memcmp(va, vb, dirlen) == 0 && memcmp(va, vb, la) != 0);
	CHECK_ST(sbf_plan_build(va, la, &g_alloc, &p), SBF_OK);
	CHECK(p != NULL && p->keylen == la && p->seg[0].keys != NULL);
	CHECK(sbf_plan_matches(p, va, la) && !sbf_plan_matches(p, vb, lb));
	sbf_plan_free(p, &g_alloc);
	p = NULL;
	/* the last bit of the high area, which closes the last bucket */
	CHECK_ST(sbf_validate(va, la, &v), SBF_OK);
	sbf_get_segment(&v, 0, &s);
	{
		SbfEfShape	sh;
		uint64_t	last;

		CHECK_ST(sbf_ef_shape(s.capacity, (int) s.k, &sh), SBF_OK);
		last = sh.hibits - 1;
		va[s.words_offset + last / 8] |= (uint8_t) (1u << (last % 8));
		CHECK_ST(sbf_validate(va, la, &v), SBF_E_BITS);
		/* its plan is built; the late decode refuses it: bytes from then on */
		CHECK_ST(sbf_plan_build(va, la, &g_alloc, &p), SBF_OK);
		for (last = 0; last < SBF_PLAN_DECODE_AFTER(400) + 10; last++)
			(void) sbf_plan_contains(p, sbf_mix64(last));
		CHECK(*p->seg[0].left > UINT64_MAX / 2);	/* never decoded */
		sbf_plan_free(p, &g_alloc);
	}
done:
	free(va);
	free(vb);
}

/* The plain definition of a windowed lookup: any pair or segment of age <= max_age. */
static bool
reference_contains(const SbfWinView *v, uint64_t h, int64_t max_age)
{
	const uint8_t *hashes = v->buf + v->pairs_offset;
	size_t		off = v->bits_offset;
	uint32_t	j;

	for (j = 0; j < v->npairs; j++)
		if (sbf_load64(hashes + (size_t) j * 8) == h &&
			sbf_load16(hashes + (size_t) v->npairs * 8 + (size_t) j * 2) <= max_age)
			return true;
	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(v, j, &off, &seg);
		if (seg.age <= max_age && sbf_win_segment_has(&seg, h))
			return true;
	}
	return false;
}

/*
 * A window of the given buckets answers through its plan as the reference,
 * every since, in batches, bound to an unaligned copy too.
 */
static void
check_window(uint32_t buckets, uint32_t per_day, uint32_t days)
{
	SbfWinParams wp = {DAY, buckets, 0.05};
	SbfWindow	w;
	SbfFilter	f;
	SbfWinView	v;
	SbfPlan    *p = NULL;
	uint64_t   *probe = malloc(3000 * sizeof(uint64_t));
	uint8_t    *copy;
	int64_t		ages[7] = {-1, 0, 1, 6, 63, 64, 0};
	uint32_t	day;
	uint32_t	i;
	uint32_t	differ = 0;
	size_t		hits = 0;
	int			a;

	ages[6] = (int64_t) buckets - 1;
	sbf_win_init(&w, &wp, &g_alloc);
	for (day = 0; day < days; day++)
		for (i = 0; i < (day % 9 == 4 ? 3 : per_day); i++)
			CHECK(sbf_win_add(&w, 500 + day, elem((uint64_t) day * per_day + i)) == SBF_OK);
	CHECK(win_encode_valid(4, &w, &f, &v));
	CHECK_ST(sbf_plan_build(v.buf, v.len, &g_alloc, &p), SBF_OK);
	copy = malloc(v.len + 8);
	memcpy(copy + 5, v.buf, v.len);
	for (i = 0; i < 3000; i++)
		probe[i] = i % 2 == 0 ? elem((uint64_t) i * 5 % ((uint64_t) days * per_day)) :
			elem((uint64_t) i + (1ULL << 40));
	for (a = 0; a < 7 && p != NULL; a++)
	{
		size_t		expect = 0;

		sbf_plan_bind(p, a % 2 ? copy + 5 : v.buf);
		for (i = 0; i < 3000; i++)
		{
			bool		r = reference_contains(&v, probe[i], ages[a]);

			expect += r;
			differ += r != (sbf_plan_count_since(p, &probe[i], 1, ages[a]) > 0);
		}
		differ += expect != sbf_plan_count_since(p, probe, 3000, ages[a]);
		differ += expect != sbf_win_count_contained(&v, probe, 3000, ages[a]);
		if (ages[a] == (int64_t) buckets - 1)
			differ += expect != sbf_plan_count(p, probe, 3000);
		hits += expect;
	}
	CHECK(differ == 0);
	CHECK(hits > 1000);
	sbf_plan_free(p, &g_alloc);
	free(copy);
	sbf_filter_free(&f);
	sbf_win_free(&w);
	free(probe);
}

/* 30 and 100 buckets (one chunk, two chunks), pairs and segments of every kind. */
static void
test_plan_window(void)
{
	check_window(30, 300, 30);
	check_window(30, 5, 30);
	check_window(100, 300, 100);
	check_window(7, 6000, 9);
}

/* The counter counts builds, not lookups. */
static void
test_plan_counter(void)
{
	SbfFilter	f;
	uint64_t   *keys;
	SbfPlan    *p = NULL;
	uint64_t	before = sbf_plan_builds();
	int			i;

	plain_added(&f, 100, 50, &keys);
	CHECK_ST(sbf_plan_build(SBF_PAYLOAD(&f), f.len, &g_alloc, &p), SBF_OK);
	for (i = 0; i < 100 && p != NULL; i++)
		CHECK(sbf_plan_contains(p, keys[i % 50]));
	CHECK(sbf_plan_builds() == before + 1);
	sbf_plan_free(p, &g_alloc);
	free(keys);
	sbf_filter_free(&f);
}

int
main(void)
{
	RUN(test_plan_plain_adds);
	RUN(test_plan_plain_kinds);
	RUN(test_plan_decoded_key);
	RUN(test_plan_window);
	RUN(test_plan_counter);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
