/*
 * test_format4.c
 *	  Format 4's plain form (docs/format4.md, sections 2, 6, 7, 9): the
 *	  version rows, the iterator over descriptors and padding, relabelling of
 *	  1.0-1.2 values, the one builder from sorted hashes, and the validator's
 *	  refusals.
 */
#include <math.h>

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"
#include "sbf_dir.h"
#include "../fuzz/craft4.h"

/* xorshift64*: deterministic hashes */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* n distinct ascending hashes from seed (space 0 of the keys). */
static uint64_t *
sorted_hashes(size_t n, uint64_t seed)
{
	uint64_t   *h = malloc(sizeof(uint64_t) * (n + 1));
	size_t		i;
	size_t		j;

	for (i = 0; i < n; i++)
		h[i] = rnd(&seed);
	qsort(h, n, sizeof(uint64_t), unit_cmp_u64);
	for (i = j = 0; i < n; i++)
		if (j == 0 || h[j - 1] != h[i])
			h[j++] = h[i];
	/* the odd one out of a collision: top up with fresh distinct values */
	while (j < n)
	{
		h[j] = h[j - 1] + 1;
		j++;
	}
	return h;
}

/* A one-segment value from n sorted hashes at share. */
static SbfStatus
build(SbfFilter *f, size_t n, double share, uint64_t seed, uint64_t **hs)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	uint64_t   *h = sorted_hashes(n, seed);
	SbfStatus	st = sbf_build_sorted(f, &p, h, n, share, 0, 0, &g_alloc);

	if (hs != NULL)
		*hs = h;
	else
		free(h);
	return st;
}

/* The kind of segment i of a valid view. */
static uint8_t
kind_of(const SbfView *v, uint32_t i)
{
	SbfSegment	s;

	sbf_get_segment(v, i, &s);
	return s.kind;
}

/* A 1.2 value: version 2, several bloom segments grown by adds. */
static void
make_v2(SbfFilter *f, uint64_t nkeys)
{
	SbfParams	p = params(500, 0.01, 2, 0.9, 9);

	sbf_write_v2 = true;
	CHECK_ST(seg_create(f, &p, 0, &g_alloc), SBF_OK);
	add_keys(f, 0, 0, nkeys);
	sbf_write_v2 = false;
}

/* Relabelling keeps every bit, every answer and the length. */
static void
test_relabel_keeps_answers(void)
{
	SbfFilter	f;
	SbfView		v2;
	SbfView		v4;
	uint8_t    *b;
	uint64_t	i;
	uint64_t   *probe = malloc(sizeof(uint64_t) * 40000);

	make_v2(&f, 20000);
	CHECK_ST(validate_filter(&f, &v2), SBF_OK);
	CHECK(v2.version == 2 && v2.nsegments >= 4);
	b = malloc(f.len);
	memcpy(b, SBF_PAYLOAD(&f), f.len);
	CHECK_ST(sbf_relabel4(b, f.len), SBF_OK);
	CHECK_ST(sbf_validate(b, f.len, &v4), SBF_OK);
	CHECK(v4.version == 4 && v4.flags == v2.flags && v4.nsegments == v2.nsegments);
	/* no data byte moved: only byte 0 and the directory changed */
	CHECK(memcmp(b + v2.bits_offset, SBF_PAYLOAD(&f) + v2.bits_offset,
				 f.len - v2.bits_offset) == 0);
	CHECK(memcmp(b + 1, SBF_PAYLOAD(&f) + 1, SBF_HEADER_BYTES - 1) == 0);
	for (i = 0; i < v2.nsegments; i++)
	{
		SbfSegment	a;
		SbfSegment	c;

		sbf_get_segment(&v2, (uint32_t) i, &a);
		sbf_get_segment(&v4, (uint32_t) i, &c);
		CHECK(a.capacity == c.capacity && a.count == c.count &&
			  a.nbits == c.nbits && a.error == c.error && a.k == c.k &&
			  c.kind == SBF_KIND_BLOOM && a.words_offset == c.words_offset);
	}
	for (i = 0; i < 40000; i++)
	{
		probe[i] = key(i % 2, i / 2);
		CHECK(sbf_contains_hash(&v2, probe[i]) == sbf_contains_hash(&v4, probe[i]));
	}
	CHECK(sbf_count_contained(&v2, probe, 40000) ==
		  sbf_count_contained(&v4, probe, 40000));
	CHECK(sbf_count_contained(&v4, probe, 40000) >= 20000);
	CHECK(sbf_cardinality(&v2) == sbf_cardinality(&v4));
	CHECK(strcmp(sbf_count_source(&v4), "directory") == 0);
	CHECK(sbf_fpr_bound(&v2) == sbf_fpr_bound(&v4));
	CHECK(sbf_current_fpr(&v2) == sbf_current_fpr(&v4));
	CHECK(sbf_expected_fpr(&v2) == sbf_expected_fpr(&v4));
	/* relabelling a version-4 value changes nothing */
	memcpy(SBF_PAYLOAD(&f), b, f.len);
	CHECK_ST(sbf_filter_relabel4(&f), SBF_OK);
	CHECK(memcmp(SBF_PAYLOAD(&f), b, f.len) == 0);
	free(b);
	free(probe);
	sbf_filter_free(&f);
}

/* A 1.0 value gets OVERLAP; the exact and windowed forms are refused. */
static void
test_relabel_v1_and_refusals(void)
{
	SbfFilter	f;
	SbfView		v;
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	uint8_t		win[SBF_HEADER_BYTES];

	make_v2(&f, 3000);
	SBF_PAYLOAD(&f)[0] = 1;		/* 1.0's bytes: version 1, no OVERLAP */
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK_ST(sbf_filter_relabel4(&f), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.version == 4 && (v.flags & SBF_FLAG_OVERLAP));
	CHECK(strcmp(sbf_count_source(&v), "hll") == 0);
	sbf_filter_free(&f);

	CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 10);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(sbf_is_exact(&v));
	CHECK_ST(sbf_filter_relabel4(&f), SBF_E_VERSION);
	CHECK(SBF_PAYLOAD(&f)[0] == 2);
	sbf_filter_free(&f);

	memset(win, 0, sizeof(win));
	win[0] = 3;
	CHECK_ST(sbf_relabel4(win, sizeof(win)), SBF_E_VERSION);
	win[0] = 4;
	win[1] = SBF_FLAG_WINDOWED;
	CHECK_ST(sbf_relabel4(win, sizeof(win)), SBF_E_VERSION);
	CHECK_ST(sbf_relabel4(win, 8), SBF_E_TRUNCATED);
}

/*
 * The builder: valid version-4 values of the kind the choice names, no
 * false negatives, a measured rate within the stored bound, the same bytes
 * for the same set.
 */
static void
test_builder_kinds(void)
{
	static const size_t sizes[] = {1, 7, 100, 400, 3000, 60000};
	static const double shares[] = {0.0083, 0.001};
	size_t		si;
	size_t		pi;

	for (pi = 0; pi < 2; pi++)
		for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		{
			size_t		n = sizes[si];
			double		share = shares[pi];
			SbfFilter	f;
			SbfFilter	g;
			SbfView		v;
			SbfSegment	s;
			SbfKindGeom kg;
			uint64_t	kb;
			uint64_t   *h;
			uint64_t	seed = 99 + si;
			size_t		i;
			size_t		fp = 0;
			const size_t trials = 200000;
			double		sigma;

			CHECK_ST(build(&f, n, share, 7 + si, &h), SBF_OK);
			CHECK_ST(validate_filter(&f, &v), SBF_OK);
			CHECK(v.version == 4 && v.nsegments == 1 && !sbf_is_exact(&v));
			sbf_get_segment(&v, 0, &s);
			CHECK_ST(sbf_kind_choose(n, share, &kg, &kb), SBF_OK);
			CHECK(s.kind == kg.kind && s.nbits == kg.size && s.k == kg.width);
			CHECK(s.capacity == n && s.count <= n && s.count >= n - n / 50);
			CHECK(s.error <= share && s.error > 0.0);
			for (i = 0; i < n; i++)
				CHECK(sbf_contains_hash(&v, h[i]));
			CHECK(sbf_count_contained(&v, h, n) == n);
			for (i = 0; i < trials; i++)
			{
				uint64_t	x = rnd(&seed);

				if (bsearch(&x, h, n, sizeof(uint64_t), unit_cmp_u64) == NULL)
					fp += sbf_contains_hash(&v, x) ? 1 : 0;
			}
			/* within the stored bound, allowing 4 standard deviations */
			sigma = sqrt(s.error * (1 - s.error) / (double) trials);
			CHECK((double) fp / trials <= s.error + 4 * sigma);
			/* HyperLogLog of the same hashes */
			CHECK(fabs(sbf_hll_cardinality(&v) - (double) n) <= 0.2 * (double) n + 2);
			CHECK(fabs(sbf_cardinality(&v) - (double) n) <= 0.02 * (double) n + 1);
			/* the same set, the same bytes */
			CHECK_ST(build(&g, n, share, 7 + si, NULL), SBF_OK);
			CHECK(same_bytes(&f, &g));
			sbf_filter_free(&g);
			free(h);
			sbf_filter_free(&f);
		}
}

/* Which kinds the builder writes (docs/format4.md, section 6's crossover). */
static void
test_builder_choice(void)
{
	SbfFilter	f;
	SbfView		v;
	uint64_t   *h;
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);

	CHECK_ST(build(&f, 5, 0.0083, 1, NULL), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(kind_of(&v, 0) == SBF_KIND_FUSED);	/* bloom would be under 512 bits */
	sbf_filter_free(&f);
	CHECK_ST(build(&f, 300, 0.0083, 1, NULL), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(kind_of(&v, 0) == SBF_KIND_BLOOM);
	sbf_filter_free(&f);
	CHECK_ST(build(&f, 20000, 0.0083, 1, NULL), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(kind_of(&v, 0) == SBF_KIND_FUSED);
	sbf_filter_free(&f);
	/* not strictly ascending: refused, nothing allocated */
	h = sorted_hashes(10, 3);
	h[5] = h[4];
	CHECK_ST(sbf_build_sorted(&f, &p, h, 10, 0.0083, 0, 0, &g_alloc), SBF_E_PARAM);
	h[5] = h[6];
	CHECK_ST(sbf_build_sorted(&f, &p, h + 2, 5, 0.0083, 0, 0, &g_alloc), SBF_E_PARAM);
	CHECK_ST(sbf_build_sorted(&f, &p, h, 0, 0.0083, 0, 0, &g_alloc), SBF_E_PARAM);
	CHECK_ST(sbf_build_sorted(&f, &p, h, 3, 0.5, 0, 0, &g_alloc), SBF_E_PARAM);
	CHECK(f.base == NULL);
	free(h);
	/* the same refusal on the bloom path (300 hashes: a bloom segment) */
	h = sorted_hashes(300, 5);
	h[100] = h[99];
	CHECK_ST(sbf_build_sorted(&f, &p, h, 300, 0.0083, 0, 0, &g_alloc), SBF_E_PARAM);
	CHECK(f.base == NULL);
	free(h);
	/* flags: CHAIN and OVERLAP kept, EXACT never */
	CHECK_ST(build(&f, 1, 0.0083, 1, NULL), SBF_OK);
	sbf_filter_free(&f);
	h = sorted_hashes(50, 4);
	CHECK_ST(sbf_build_sorted(&f, &p, h, 50, 0.0083,
							  SBF_FLAG_CHAIN | SBF_FLAG_EXACT, 0, &g_alloc), SBF_OK);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.flags == SBF_FLAG_CHAIN);
	sbf_filter_free(&f);
	free(h);
}

/*
 * The iterator: a blocked area of 64 lines or more begins at a payload
 * offset = 60 (mod 64) after zero padding; others follow directly.
 */
static void
test_iterator_padding(void)
{
	/* a large blocked area (3000 hashes at 1e-4: many lines) after a small one */
	static const Craft4Seg segs[] = {
		{SBF_KIND_BLOCKED, 30, 0.0083, 1},
		{SBF_KIND_BLOCKED, 3000, 1e-4, 2},
	};
	size_t		len;
	uint8_t    *buf = craft4(segs, 2, 0, &len);
	SbfView		v;
	SbfDirIter	it;
	SbfDirEntry e;
	size_t		dir_end = SBF_HEADER_BYTES + 2 * SBF_SEGDIR_BYTES;

	CHECK(buf != NULL);
	if (buf == NULL)
		return;
	CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
	sbf_dir_view(&it, &v);
	/* the small blocked area follows the directory directly */
	CHECK(sbf_dir_next(&it, &e));
	CHECK(e.st == SBF_OK && e.g.kind == SBF_KIND_BLOCKED &&
		  e.g.size < SBF_BLOCKED_ALIGN_LINES && e.data == dir_end && e.pad == 0);
	/* the large one begins at a payload offset = 60 (mod 64) after zero padding */
	CHECK(sbf_dir_next(&it, &e));
	CHECK(e.st == SBF_OK && e.g.kind == SBF_KIND_BLOCKED &&
		  e.g.size >= SBF_BLOCKED_ALIGN_LINES);
	CHECK(e.data % 64 == 60 && e.pad < 64 && e.bytes == e.g.size * 64);
	CHECK(!sbf_dir_next(&it, &e));
	CHECK(it.off + v.hll_bytes == v.len);
	free(buf);
}

/* The batched count equals the sum of lookups past the cached size, every kind. */
static void
test_count_contained_kinds(void)
{
	static const double shares[] = {0.0083, 1e-5};
	size_t		pi;

	for (pi = 0; pi < 2; pi++)
	{
		SbfFilter	f;
		SbfView		v;
		uint64_t   *h;
		uint64_t   *probe = malloc(sizeof(uint64_t) * 100000);
		uint64_t	seed = 5;
		size_t		i;
		size_t		want = 0;

		CHECK_ST(build(&f, 400000, shares[pi], 11, &h), SBF_OK);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		CHECK(v.hll_offset - v.bits_offset > SBF_CACHED_BITS);
		for (i = 0; i < 100000; i++)
		{
			probe[i] = i % 3 == 0 ? h[(i * 7) % 400000] : rnd(&seed);
			want += sbf_contains_hash(&v, probe[i]) ? 1 : 0;
		}
		CHECK(sbf_count_contained(&v, probe, 100000) == want);
		CHECK(want >= 33334);
		free(probe);
		free(h);
		sbf_filter_free(&f);
	}
}

/* offsets in the crafted value of test_validator_v4 */
#define ENTRY(i)		(SBF_HEADER_BYTES + (i) * SBF_SEGDIR_BYTES)
#define DESC(i)			(ENTRY(i) + SBF_SEG4_DESC)

/*
 * The validator refuses each malformed case of docs/format4.md section 9 on
 * a crafted value of a fused, a (padded) blocked and a bloom segment.
 */
static void
test_validator_v4(void)
{
	static const Craft4Seg segs[] = {
		{SBF_KIND_FUSED, 3000, 0.0083, 1},
		{SBF_KIND_BLOCKED, 3000, 1e-4, 2},
		{SBF_KIND_BLOOM, 500, 0.001, 3},
	};
	size_t		len;
	uint8_t    *buf = craft4(segs, 3, 0, &len);
	uint8_t    *b = malloc(len + 8);
	SbfView		v;
	SbfSegment	s[3];
	double		p;
	uint32_t	i;

	CHECK(buf != NULL);
	if (buf == NULL)
		return;
	CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
	for (i = 0; i < 3; i++)
	{
		sbf_get_segment(&v, i, &s[i]);
		CHECK(s[i].kind == segs[i].kind);
	}
	/* the blocked area is padded to a line */
	CHECK(s[1].words_offset % 64 == 60 &&
		  s[1].words_offset > s[0].words_offset + s[0].nbits * 0);
#define MUTATE(stmt, expected) \
	do { \
		memcpy(b, buf, len); \
		stmt; \
		CHECK_ST(validate_copy(b, len), expected); \
	} while (0)

	MUTATE((void) 0, SBF_OK);
	/* flags: EXACT, an unknown bit, WINDOWED (not a plain value) */
	MUTATE(b[1] |= SBF_FLAG_EXACT, SBF_E_FLAGS);
	MUTATE(b[1] |= 0x10, SBF_E_FLAGS);
	MUTATE(b[1] |= 0x40, SBF_E_FLAGS);
	/* WINDOWED makes it a windowed value: that validator refuses its header */
	MUTATE(b[1] |= SBF_FLAG_WINDOWED, SBF_E_FLAGS);
	MUTATE(b[1] |= SBF_FLAG_OVERLAP | SBF_FLAG_CHAIN, SBF_OK);
	MUTATE(b[2] = 2, SBF_E_HASH);
	MUTATE(sbf_store16(b + SBF_OFF_NSEGMENTS, 0), SBF_E_SEGMENT);
	/* kinds: unknown, windowed bloom in a plain entry */
	for (i = 0; i < 3; i++)
	{
		MUTATE(b[DESC(i) + 8] = 0, SBF_E_SEGMENT);
		MUTATE(b[DESC(i) + 8] = SBF_KIND_WBLOOM, SBF_E_SEGMENT);
		MUTATE(b[DESC(i) + 8] = 9, SBF_E_SEGMENT);
		MUTATE(b[DESC(i) + 13] = 1, SBF_E_SEGMENT);
		MUTATE(b[DESC(i) + 15] = 0x80, SBF_E_SEGMENT);
		MUTATE(sbf_store_double(b + ENTRY(i) + SBF_SEG4_ERROR, NAN), SBF_E_SEGMENT);
		MUTATE(sbf_store_double(b + ENTRY(i) + SBF_SEG4_ERROR, 0.5), SBF_E_SEGMENT);
		MUTATE(sbf_store64(b + ENTRY(i) + SBF_SEG_COUNT, s[i].capacity + 1), SBF_E_SEGMENT);
		MUTATE(sbf_store64(b + ENTRY(i) + SBF_SEG_CAPACITY, 0), SBF_E_SEGMENT);
	}
	/* fused: f, arity, log2 length, seed, S, count = capacity, p >= 2^-f */
	MUTATE(b[DESC(0) + 9] = 0, SBF_E_SEGMENT);
	MUTATE(b[DESC(0) + 9] = 33, SBF_E_SEGMENT);
	MUTATE(b[DESC(0) + 10] = 5, SBF_E_SEGMENT);
	MUTATE(b[DESC(0) + 10] = 2, SBF_E_SEGMENT);
	MUTATE(b[DESC(0) + 11] = 19, SBF_E_SEGMENT);
	MUTATE(b[DESC(0) + 12] = 64, SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + DESC(0), 0), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + ENTRY(0) + SBF_SEG_COUNT, s[0].capacity - 1), SBF_E_SEGMENT);
	p = sbf_load_double(buf + ENTRY(0) + SBF_SEG4_ERROR);
	MUTATE(sbf_store_double(b + ENTRY(0) + SBF_SEG4_ERROR, p * 0.99), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + ENTRY(0) + SBF_SEG4_ERROR, p * 1.5), SBF_OK);
	/* a changed seed finds other slots: the same bytes no longer peel, but stay valid */
	MUTATE(b[DESC(0) + 12] ^= 1, SBF_OK);
	/* blocked: k, L, the fused-only bytes, p below the rate at capacity */
	MUTATE(b[DESC(1) + 9] = 0, SBF_E_SEGMENT);
	MUTATE(b[DESC(1) + 9] = 33, SBF_E_SEGMENT);
	MUTATE(b[DESC(1) + 10] = 3, SBF_E_SEGMENT);
	MUTATE(b[DESC(1) + 12] = 1, SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + DESC(1), 0), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + DESC(1), s[1].nbits - 1), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + DESC(1), s[1].nbits + 1), SBF_E_TRUNCATED);
	MUTATE(sbf_store64(b + DESC(1), UINT64_MAX), SBF_E_SEGMENT);
	MUTATE(sbf_store_double(b + ENTRY(1) + SBF_SEG4_ERROR, 1e-4 * 0.5), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + ENTRY(1) + SBF_SEG_CAPACITY, 6000), SBF_E_SEGMENT);
	MUTATE(sbf_store64(b + ENTRY(1) + SBF_SEG_COUNT, 0), SBF_OK);
	/* padding before the blocked area: zero */
	MUTATE(b[s[1].words_offset - 1] = 1, SBF_E_BITS);
	/* bloom: m, k, bits past m */
	MUTATE(sbf_store64(b + DESC(2), 0), SBF_E_SEGMENT);
	MUTATE(b[DESC(2) + 9] = 0, SBF_E_SEGMENT);
	MUTATE(b[DESC(2) + 9] = 65, SBF_E_SEGMENT);
	MUTATE(b[DESC(2) + 10] = 3, SBF_E_SEGMENT);
	CHECK(s[2].nbits % 64 != 0);
	MUTATE(b[len - 1] |= 0x80, SBF_E_BITS);
	/* length */
	memcpy(b, buf, len);
	b[len] = 0;
	CHECK_ST(validate_copy(b, len + 1), SBF_E_LENGTH);
	CHECK_ST(validate_copy(b, len - 8), SBF_E_TRUNCATED);
	CHECK_ST(validate_copy(b, SBF_HEADER_BYTES + 8), SBF_E_TRUNCATED);
	MUTATE(sbf_store32(b + SBF_OFF_HLL_BYTES, 4), SBF_E_TRUNCATED);
#undef MUTATE
	free(b);
	free(buf);
}

/* Fused padding bits past the last slot are zero. */
static void
test_validator_fused_padding(void)
{
	uint32_t	n;
	bool		tried = false;

	for (n = 1; n < 40 && !tried; n++)
	{
		Craft4Seg	seg = {SBF_KIND_FUSED, n, 0.01, 5};
		size_t		len;
		uint8_t    *buf = craft4(&seg, 1, 0, &len);
		SbfView		v;
		SbfSegment	s;
		uint64_t	slots;

		CHECK(buf != NULL);
		if (buf == NULL)
			return;
		CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
		sbf_get_segment(&v, 0, &s);
		slots = (uint64_t) 1 << buf[DESC(0) + 11];
		slots *= s.nbits + buf[DESC(0) + 10] - 1;
		if ((slots * s.k) % 64 != 0)
		{
			tried = true;
			buf[len - 1] |= 0x80;
			CHECK_ST(validate_copy(buf, len), SBF_E_BITS);
		}
		free(buf);
	}
	CHECK(tried);
}

/*
 * A live add to a 1.2 value relabels it to version 4 and keeps filling its
 * last bloom segment while it has room; a failed add leaves it unchanged;
 * growth appends segments by the growth rule, every answer kept.
 */
static void
test_add_relabels_and_grows(void)
{
	SbfFilter	f;
	SbfView		v;
	SbfSegment	last2;
	SbfSegment	s;
	uint64_t	before_count;
	uint32_t	i;
	uint32_t	nseg2;
	size_t		fp = 0;

	make_v2(&f, 1200);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.version == 2);
	nseg2 = v.nsegments;
	sbf_get_segment(&v, nseg2 - 1, &last2);
	CHECK(last2.count < last2.capacity);
	before_count = last2.count;
	add_keys(&f, 0, 1200, 1201);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.version == 4 && v.nsegments == nseg2);
	sbf_get_segment(&v, nseg2 - 1, &s);
	CHECK(s.kind == SBF_KIND_BLOOM && s.count == before_count + 1 &&
		  s.nbits == last2.nbits);
	/* grow 100 times: appended segments follow the rule */
	add_keys(&f, 0, 1201, 50000);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.version == 4 && v.nsegments > nseg2);
	for (i = nseg2; i < v.nsegments; i++)
	{
		sbf_get_segment(&v, i, &s);
		CHECK(s.kind == (s.error >= SBF_GROW_BLOOM_BELOW ? SBF_KIND_BLOCKED : SBF_KIND_BLOOM));
		CHECK(s.count <= s.capacity);
	}
	for (i = 0; i < 50000; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	for (i = 0; i < 100000; i++)
		fp += sbf_contains_hash(&v, key(1, i)) ? 1 : 0;
	CHECK(sbf_fpr_bound(&v) <= 0.01 * (1 + 1e-9));
	CHECK((double) fp / 100000 <= 0.01 + 4 * sqrt(0.01 / 100000));
	CHECK(fabs(sbf_cardinality(&v) - 50000) < 0.03 * 50000);
	sbf_filter_free(&f);

	/* a failed add leaves a 1.2 value as it was (version and all) */
	make_v2(&f, 1200);
	{
		uint8_t    *copy = malloc(f.len + 1000000);
		size_t		len = f.len;

		SbfStatus	st = SBF_OK;

		/*
		 * no allocation may succeed: adds go on until one needs memory (an
		 * append), and that one fails before relabelling
		 */
		g_fail_after = 0;
		for (i = 1200; i < 20000 && st == SBF_OK; i++)
		{
			memcpy(copy, SBF_PAYLOAD(&f), f.len);
			len = f.len;
			st = sbf_add_hash(&f, key(0, i), NULL);
		}
		g_fail_after = -1;
		CHECK_ST(st, SBF_E_NOMEM);
		CHECK(f.len == len && memcmp(copy, SBF_PAYLOAD(&f), len) == 0);
		free(copy);
	}
	sbf_filter_free(&f);
}

/*
 * Conversions from the exact form write version 4; the first segment is
 * bloom while its data fits SBF_FIRST_BLOOM_MAX_BYTES (so a filter grown from
 * the defaults takes 1.0's bytes), blocked above.
 */
static void
test_conversion_blocked(void)
{
	SbfFilter	f;
	SbfView		v;
	SbfSegment	s;
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfParams	big = params(20000, 0.01, 2, 0.9, 9);
	/* 1.0's pg_column_size of sbf_empty() grown to n, less the 4-byte varlena header */
	static const uint32_t grown_n[] = {1000, 2000, 5000};
	static const size_t grown_len[] = {2260, 5956, 13412};
	uint32_t	i;

	CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 3000);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.version == 4 && !sbf_is_exact(&v));
	sbf_get_segment(&v, 0, &s);
	CHECK(s.kind == SBF_KIND_BLOOM && s.capacity == 1000 &&
		  s.nbits / 8 <= SBF_FIRST_BLOOM_MAX_BYTES);
	for (i = 0; i < 3000; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	CHECK(strcmp(sbf_count_source(&v), "directory") == 0);
	CHECK(fabs(sbf_cardinality(&v) - 3000) < 0.03 * 3000);
	sbf_filter_free(&f);
	for (i = 0; i < 3; i++)
	{
		CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
		add_keys(&f, 7, 0, grown_n[i]);
		CHECK(f.len == grown_len[i]);
		sbf_filter_free(&f);
	}
	/* a first segment past one page is blocked */
	CHECK_ST(sbf_create(&f, &big, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 20001);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	sbf_get_segment(&v, 0, &s);
	CHECK(s.kind == SBF_KIND_BLOCKED && s.capacity == 20000);
	for (i = 0; i < 20001; i++)
		CHECK(sbf_contains_hash(&v, key(0, i)));
	sbf_filter_free(&f);
	/* small: the exact form, version 2 as 1.2 wrote it */
	CHECK_ST(sbf_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 0, 0, 10);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.version == 2 && sbf_is_exact(&v));
	sbf_filter_free(&f);
}

int
main(void)
{
	RUN(test_relabel_keeps_answers);
	RUN(test_relabel_v1_and_refusals);
	RUN(test_builder_kinds);
	RUN(test_builder_choice);
	RUN(test_iterator_padding);
	RUN(test_count_contained_kinds);
	RUN(test_add_relabels_and_grows);
	RUN(test_conversion_blocked);
	RUN(test_validator_v4);
	RUN(test_validator_fused_padding);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
