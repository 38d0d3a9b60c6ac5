/*
 * test_hashset.c
 *	  Unit tests of the sorted hash set: the engine, unions, the codec, aggregate states,
 *	  merging coded sets, bounded work and out of memory
 *	  (sbf_hashset.c, sbf_hashset_codec.c, sbf_hashset_merge.c, sbf_hashset_sort.c).  Prints "ok - name" or "not ok - name" per case and one final
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
#include "sbf_compact.h"
#include "sbf_plain.h"
#include "sbf_union.h"
#include "sbf_hashset.h"
#include "sbf_internal.h"
#include "sbf_hash_sort.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

/* qsort comparator for the reference sort-and-dedup. */
static int
ref_cmp64(const void *pa, const void *pb)
{
	uint64_t	a = *(const uint64_t *) pa;
	uint64_t	b = *(const uint64_t *) pb;

	return (a > b) - (a < b);
}

/* The reference: sorts in[0..n) into a new array and drops repeats. */
static uint64_t *
ref_sort_unique(const uint64_t *in, uint64_t n, uint64_t *nout)
{
	uint64_t   *a = malloc((n + 1) * sizeof(uint64_t));
	uint64_t	i;
	uint64_t	k = 0;

	memcpy(a, in, n * sizeof(uint64_t));
	qsort(a, n, sizeof(uint64_t), ref_cmp64);
	for (i = 0; i < n; i++)
		if (k == 0 || a[i] != a[k - 1])
			a[k++] = a[i];
	*nout = k;
	return a;
}

/*
 * Input pattern p of n hashes: 0 distinct uniform, 1 heavy repeats,
 * 2 clustered in a narrow range (one big bucket), 3 descending.
 */
static uint64_t *
hs_input(int p, uint64_t n)
{
	uint64_t   *a = malloc((n + 1) * sizeof(uint64_t));
	uint64_t	i;

	for (i = 0; i < n; i++)
	{
		if (p == 0)
			a[i] = key(7, i);
		else if (p == 1)
			a[i] = key(8, i % (n / 10 + 1));
		else if (p == 2)
			a[i] = UINT64_C(0x8000000000000000) + (key(9, i) & 0xFFFF);
		else
			a[i] = UINT64_MAX - i * 3;
	}
	return a;
}

/*
 * The compact form in f's place when it is smaller (docs/format5.md,
 * section 3): capacity n at the same share (at 63 fingerprint bits up to
 * SBF_COMPACT_EXACT_MAX hashes), the hashes' ranks listed, up to 4,096
 * hashes and 8 kB.
 */
static void
ref_compact(const uint64_t *h, uint64_t n, const SbfParams *p, SbfFilter *f)
{
	SbfCompactParams cp = {p->error_rate, n, p->growth, p->tightening, false, NULL};
	SbfCompactRanks rk;
	size_t		len;
	int			b;

	if (n < 1 || n > 4096 || p->hll_p != SBF_HLL_P_DEFAULT ||
		sbf_build_compact_bits(p, n, &b) != SBF_OK)
		return;
	sbf_compact_ranks(h, n, b, &rk);
	cp.ranks = &rk;
	CHECK_ST(sbf_compact_size(n, b, &cp, &len), SBF_OK);
	if (len >= f->len || len > 8192)
		return;
	CHECK_ST(sbf_filter_reserve(f, len), SBF_OK);
	CHECK_ST(sbf_compact_write(h, n, b, &cp, SBF_PAYLOAD(f), len, &g_alloc), SBF_OK);
	f->len = len;
}

/*
 * The reference build: a right-sized filter with hashes added one at a time
 * while that keeps the exact form (1.2's bytes); else the one builder of a
 * format-4 segment at 1.2's right-sized share (docs/format4.md, section 6);
 * either way the compact form where it is smaller (ref_compact).
 */
static void
ref_build(const uint64_t *h, uint64_t n, const SbfParams *p, SbfFilter *f)
{
	uint64_t	i;
	SbfView		v;

	CHECK_ST(sbf_create_sized(f, p, n > 0 ? n : 1, 4, &g_alloc), SBF_OK);
	for (i = 0; i < n; i++)
		CHECK_ST(sbf_add_hash(f, h[i], NULL), SBF_OK);
	sbf_filter_view(f, &v);
	if (n == 0)
		return;
	if (!sbf_is_exact(&v))
	{
		sbf_filter_free(f);
		CHECK_ST(sbf_build_sorted(f, p, h, n, sbf_sized_error(p->error_rate, p->tightening),
								  0, 4, &g_alloc), SBF_OK);
	}
	ref_compact(h, n, p, f);
}

/*
 * The two-pass stream encoder (a spilled state's) gives sbf_hs_encode's
 * bytes: the statistics taken 7 hashes at a time, the code written 5 at a
 * time, so every chunk boundary falls inside a word of the code somewhere.
 */
static void
hs_stream_same(const SbfHashSet *s, bool with_rate, const uint8_t *buf, size_t size)
{
	SbfHsRiceStats st;
	SbfHsEncoder e;
	uint8_t    *sbuf = malloc(size);
	uint64_t	i;
	int			k;

	sbf_hs_stats_start(&st, UINT64_MAX, 1, UINT64_MAX);
	CHECK(st.kmin == 0 && st.kmax == 63);
	for (i = 0; i < s->nset; i += 7)
		sbf_hs_stats_add(&st, s->set + i, s->nset - i < 7 ? s->nset - i : 7);
	CHECK(st.n == s->nset);
	CHECK(sbf_hs_stats_size(&st, with_rate, &k) == size);
	CHECK(size < 3 || k == buf[2]);
	sbf_hs_encoder_start(&e, sbuf, size, st.n, k, with_rate, s->params.error_rate);
	for (i = 0; i < s->nset; i += 5)
		sbf_hs_encoder_add(&e, s->set + i, s->nset - i < 5 ? s->nset - i : 5);
	sbf_hs_encoder_finish(&e);
	CHECK(e.p == sbuf + size);
	CHECK(memcmp(sbuf, buf, size) == 0);
	free(sbuf);
}

/*
 * The one-pass stream encoder (a spilled state's, whose largest hash is
 * known and whose count lies between its largest run and the runs' sum):
 * stats kept only for the parameters such a set can choose give the same
 * size and parameter as all 64; the parameter guessed from the count (the
 * runs' sum when no run shares a hash) has a bound that holds the code; with the guess right, the bytes written beside the stats, told the
 * real count afterwards, are sbf_hs_encode's.  Returns whether it was.
 */
static bool
hs_one_pass_same(const SbfHashSet *s, bool with_rate, const uint8_t *buf, size_t size)
{
	uint64_t	max = s->set[s->nset - 1];
	uint64_t	nmax = s->nset + s->nset / 3;	/* as if a quarter were repeats */
	SbfHsRiceStats st;
	SbfHsEncoder e;
	uint64_t	cap;
	uint8_t    *sbuf;
	uint64_t	i;
	int			k;
	int			guess = sbf_hs_rice_guess(max, s->nset);
	bool		same;

	sbf_hs_stats_start(&st, max, (s->nset + 1) / 2, nmax);
	CHECK(st.kmax - st.kmin <= 8);
	cap = sbf_hs_encoded_bound(nmax, max, guess, with_rate);
	sbuf = malloc(cap);
	sbf_hs_encoder_start(&e, sbuf, cap, nmax, guess, with_rate, s->params.error_rate);
	for (i = 0; i < s->nset; i += 7)
	{
		size_t		m = s->nset - i < 7 ? s->nset - i : 7;

		sbf_hs_stats_add(&st, s->set + i, m);
		sbf_hs_encoder_add(&e, s->set + i, m);
	}
	sbf_hs_encoder_finish(&e);
	CHECK(sbf_hs_stats_size(&st, with_rate, &k) == size);
	CHECK(k == buf[2]);
	CHECK((uint64_t) (e.p - sbuf) <= cap);
	same = k == guess;
	if (same)
	{
		sbf_hs_encoder_set_count(sbuf, st.n);
		CHECK(e.p == sbuf + size);
		CHECK(memcmp(sbuf, buf, size) == 0);
	}
	free(sbuf);
	return same;
}

/* Encodes s, validates and decodes the bytes; returns the decoded array. */
static uint64_t *
hs_roundtrip(SbfHashSet *s, bool with_rate, uint64_t *n, size_t *bytes)
{
	size_t		size;
	uint8_t    *buf;
	SbfHsView	v;
	uint64_t   *out;

	CHECK_ST(sbf_hs_encoded_size(s, with_rate, SIZE_MAX, &size), SBF_OK);
	buf = malloc(size);
	sbf_hs_encode(s, with_rate, buf, size);
	CHECK(sbf_hs_validate(buf, size, &v) == SBF_HS_OK);
	CHECK(v.count == s->nset);
	hs_stream_same(s, with_rate, buf, size);
	out = malloc((v.count + 1) * sizeof(uint64_t));
	sbf_hs_decode(&v, out);
	*n = v.count;
	*bytes = size;
	free(buf);
	return out;
}

/*
 * Hash i of n of sort pattern pat: 0 uniform, 1 repeats, 2 one bucket, 3 the
 * extremes, 4 a first bucket of the first pass as full as the sort copies
 * (n / 64 + 256 hashes under 2^54, sbf_hash_sort.c's copy_room), the rest
 * uniform.
 */
static uint64_t
sort_input(int pat, uint64_t i, uint64_t n)
{
	switch (pat)
	{
		case 4:
			return i < n / 64 + 256 ? key(25, i) >> 10 : key(25, i) | UINT64_C(1) << 63;
		case 0:
			return key(21, i);
		case 1:
			return key(22, i % 97);
		case 2:
			return i * 7 % 1001;	/* every hash in the first bucket */
		default:
			return i % 3 == 0 ? 0 : i % 3 == 1 ? UINT64_MAX : key(23, i);
	}
}

/*
 * sbf_hash_sort_unique (one pass and two) and its span form give the sorted
 * distinct hashes of any input: every size around the passes' limits,
 * uniform hashes, repeats, a single bucket (its qsort), the extremes 0 and
 * UINT64_MAX, the fullest bucket the second pass copies (in the counters'
 * room: the allocation is exactly what the sort asks for), and (pattern 5)
 * a slice [lo, lo + 2^40) of the hash space.  The counters it asks for
 * never shrink as n grows (callers size them for the largest).
 */
static void
hash_sort_unique(void)
{
	static const uint64_t sizes[] = {1, 2, 32, 33, 100, 1023, 1024, 1025, 2047, 2048,
	5000, 70000, 300000};
	uint64_t	n;
	size_t		si;
	int			pat;

	for (n = 1; n < 5000; n++)
		CHECK(sbf_hash_sort_count_size(n + 1) >= sbf_hash_sort_count_size(n));
	for (n = 4096; 2 * n <= UINT32_MAX; n = n * 3 / 2)
		CHECK(sbf_hash_sort_count_size(n + 1) >= sbf_hash_sort_count_size(n) &&
			  sbf_hash_sort_count_size(2 * n) >= sbf_hash_sort_count_size(n + 1));
	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (pat = 0; pat < 6; pat++)
		{
			uint64_t	m = sizes[si];
			uint64_t   *in = malloc(m * sizeof(uint64_t));
			uint64_t   *out = malloc(m * sizeof(uint64_t));
			/* exactly the counters asked for (at least one to allocate) */
			uint32_t   *count = malloc((sbf_hash_sort_count_size(m) | 1) * sizeof(uint32_t));
			uint64_t	lo = UINT64_C(0x123456) << 40;
			uint64_t	nref;
			uint64_t   *ref;
			uint64_t	i;

			for (i = 0; i < m; i++)
				in[i] = pat < 5 ? sort_input(pat, i, m) : lo + (key(24, i) >> 24);
			ref = ref_sort_unique(in, m, &nref);
			if (pat < 5)
				CHECK(sbf_hash_sort_unique(in, m, out, count) == nref);
			else
				CHECK(sbf_hash_sort_unique_span(in, m, out, count, lo, 40) == nref);
			CHECK(memcmp(out, ref, nref * sizeof(uint64_t)) == 0);
			free(ref);
			free(count);
			free(out);
			free(in);
		}
}

/*
 * sbf_hash_merge_unique gives what sbf_hash_sort_unique gives for the
 * concatenation of 1 to SBF_HASH_MERGE_MAX_K ascending pieces: empty pieces,
 * repeats within a piece and across pieces, the extreme hashes 0 and
 * UINT64_MAX, pieces of every relative length.
 */
static void
hash_merge_unique(void)
{
	static const uint64_t lens[] = {0, 1, 2, 5, 64, 1000};
	uint64_t	src[3 * 1000 + 8];
	uint64_t	dst[3 * 1000 + 8];
	uint64_t	tmp[3 * 1000 + 8];
	int			k;
	int			round;

	for (k = 1; k <= SBF_HASH_MERGE_MAX_K; k++)
		for (round = 0; round < 216; round++)
		{
			uint64_t	ends[SBF_HASH_MERGE_MAX_K];
			uint64_t	n = 0;
			uint64_t	nref;
			uint64_t   *ref;
			int			i;

			for (i = 0; i < k; i++)
			{
				uint64_t	len = lens[(round / (i == 0 ? 1 : i == 1 ? 6 : 36)) % 6];
				uint64_t	start = n;
				uint64_t	j;

				for (j = 0; j < len; j++)
				{
					/* small values repeat across pieces; some repeat within */
					uint64_t	v = (round & 1) ? key(11, j % 97 + (uint64_t) i) : key(12 + i, j);

					src[n++] = j == 0 && round % 5 == 0 ? 0 :
						j == len - 1 && round % 7 == 0 ? UINT64_MAX : v;
				}
				qsort(src + start, len, sizeof(uint64_t), ref_cmp64);
				ends[i] = n;
			}
			ref = ref_sort_unique(src, n, &nref);
			memset(dst, 0xAB, sizeof(dst));
			CHECK(sbf_hash_merge_unique(src, ends, k, dst, tmp) == nref);
			CHECK(memcmp(dst, ref, nref * sizeof(uint64_t)) == 0);
			free(ref);
		}
	CHECK(sbf_hash_merge_unique(src, NULL, 0, dst, tmp) == 0);
}

/*
 * The engine against a plain sort-and-dedup: every pattern and size, at
 * thresholds that never stream, stream exactly at the switch, and stream
 * early.  A set that did not stream holds exactly the distinct hashes and
 * builds the reference filter byte for byte; a streamed one switched only
 * past its threshold and answers every hash it was given.
 */
static void
hashset_engine(void)
{
	static const uint64_t sizes[] = {0, 1, 7, 8, 9, 33, 100, 1000, 5000, 20000};
	static const uint64_t thresholds[] = {0, 64, 1000, 4096};
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		si;
	size_t		ti;
	int			pat;

	for (pat = 0; pat < 4; pat++)
		for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
			for (ti = 0; ti < sizeof(thresholds) / sizeof(thresholds[0]); ti++)
			{
				uint64_t	n = sizes[si];
				uint64_t   *in = hs_input(pat, n);
				uint64_t	nref;
				uint64_t   *ref = ref_sort_unique(in, n, &nref);
				SbfHsScratch sc = {NULL, 0, NULL, &g_alloc, 0};
				SbfHashSet	s;
				SbfFilter	built;
				uint64_t	i;
				uint64_t	count;

				sbf_hs_init(&s, &g_alloc, &p, thresholds[ti]);
				for (i = 0; i < n; i++)
					CHECK_ST(sbf_hs_add(&s, in[i], (i & 1) ? &sc : NULL), SBF_OK);
				/* the build reads the set without flushing it */
				CHECK_ST(sbf_hs_build(&s, &p, 4, &g_alloc, &built), SBF_OK);
				CHECK_ST(sbf_hs_count(&s, &count), SBF_OK);
				CHECK(s.streaming == (thresholds[ti] != 0 && nref > thresholds[ti]));
				if (!s.streaming)
				{
					SbfFilter	rf;
					uint64_t	nd;
					size_t		bytes;
					uint64_t   *dec = hs_roundtrip(&s, (pat & 1) != 0, &nd, &bytes);

					CHECK(count == nref);
					CHECK(s.nset == nref && (nref == 0 || memcmp(s.set, ref, nref * 8) == 0));
					CHECK(nd == nref && (nref == 0 || memcmp(dec, ref, nref * 8) == 0));
					ref_build(ref, nref, &p, &rf);
					CHECK(rf.len == built.len &&
						  memcmp(SBF_PAYLOAD(&rf), SBF_PAYLOAD(&built), rf.len) == 0);
					sbf_filter_free(&rf);
					free(dec);
				}
				else
				{
					SbfView		v;
					SbfSegment	seg;

					CHECK(count == 0);
					CHECK_ST(sbf_validate(SBF_PAYLOAD(&built), built.len, &v), SBF_OK);
					sbf_get_segment(&v, 0, &seg);
					CHECK(seg.capacity > thresholds[ti]);
					for (i = 0; i < n; i++)
						CHECK(sbf_contains_hash(&v, in[i]));
					CHECK(built.len == s.stream.len &&
						  memcmp(SBF_PAYLOAD(&built), SBF_PAYLOAD(&s.stream), built.len) == 0);
				}
				sbf_filter_free(&built);
				sbf_hs_free(&s);
				sbf_hs_scratch_free(&sc);
				free(in);
				free(ref);
			}
}

/*
 * Unions: two halves of an input, split any way, unite to the set of the
 * whole (both orders), also when one or both sides streamed.
 */
static void
hashset_union(void)
{
	static const uint64_t thresholds[] = {0, 64, 3000};
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		ti;
	int			pat;

	for (pat = 0; pat < 4; pat++)
		for (ti = 0; ti < 3; ti++)
		{
			uint64_t	n = 5000;
			uint64_t   *in = hs_input(pat, n);
			uint64_t	nref;
			uint64_t   *ref = ref_sort_unique(in, n, &nref);
			uint64_t	split;

			for (split = 0; split <= n; split += 1250)
			{
				SbfHashSet	a;
				SbfHashSet	b;
				SbfHashSet	whole;
				uint64_t	i;

				sbf_hs_init(&a, &g_alloc, &p, thresholds[ti]);
				sbf_hs_init(&b, &g_alloc, &p, thresholds[ti]);
				sbf_hs_init(&whole, &g_alloc, &p, thresholds[ti]);
				for (i = 0; i < n; i++)
				{
					CHECK_ST(sbf_hs_add(i < split ? &a : &b, in[i], NULL), SBF_OK);
					CHECK_ST(sbf_hs_add(&whole, in[i], NULL), SBF_OK);
				}
				CHECK_ST(sbf_hs_union(&a, &b), SBF_OK);
				CHECK_ST(sbf_hs_flush(&a, NULL), SBF_OK);
				CHECK_ST(sbf_hs_flush(&whole, NULL), SBF_OK);
				CHECK(a.streaming == whole.streaming);
				if (!a.streaming)
					CHECK(a.nset == nref && (nref == 0 || memcmp(a.set, ref, nref * 8) == 0));
				else
				{
					SbfView		v;

					sbf_filter_view(&a.stream, &v);
					for (i = 0; i < n; i++)
						CHECK(sbf_contains_hash(&v, in[i]));
				}
				sbf_hs_free(&a);
				sbf_hs_free(&b);
				sbf_hs_free(&whole);
			}
			free(in);
			free(ref);
		}
}

/* Writes a hand-made hash set: count, k, then gaps as Rice codes. */
static size_t
hs_craft(uint8_t *buf, uint64_t count, int k, const uint64_t *gaps, int ngaps)
{
	size_t		bit = 0;
	int			i;

	memset(buf, 0, 256);
	buf[0] = 1;
	buf[2] = (uint8_t) k;
	sbf_store64(buf + 8, count);
	for (i = 0; i < ngaps; i++)
	{
		uint64_t	q = gaps[i] >> k;
		uint64_t	j;
		int			b;

		bit += q;				/* q zero bits */
		buf[16 + bit / 8] |= (uint8_t) (1u << (bit % 8));
		bit++;
		for (b = 0; b < k; b++, bit++)
			if ((gaps[i] >> b) & 1)
				buf[16 + bit / 8] |= (uint8_t) (1u << (bit % 8));
		(void) j;
	}
	return 16 + (bit + 7) / 8;
}

/*
 * One pass suffices for evenly spread hashes: over 60 sets of 100 to
 * 300,000 hashes (and two crowded ones, where only the bounds must hold),
 * the guessed parameter is the chosen one at least 9 times in 10, and
 * every time it is, the bytes are the canonical ones (hs_one_pass_same).
 */
static void
hashset_one_pass(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	int			right = 0;
	int			t;

	for (t = 0; t < 62; t++)
	{
		SbfHashSet	s;
		uint64_t	n = t < 60 ? (uint64_t) (100.0 * pow(3000.0, t / 59.0)) : 5000;
		uint64_t	j;
		size_t		size;
		uint8_t    *buf;

		sbf_hs_init(&s, &g_alloc, &p, 0);
		for (j = 0; j < n; j++)
			CHECK_ST(sbf_hs_add(&s, t < 60 ? key(40 + t, j) :
								UINT64_C(0x8000000000000000) + (key(9, j) & 0xFFFFF), NULL),
					 SBF_OK);
		CHECK_ST(sbf_hs_encoded_size(&s, t % 2 == 1, SIZE_MAX, &size), SBF_OK);
		buf = malloc(size);
		sbf_hs_encode(&s, t % 2 == 1, buf, size);
		if (hs_one_pass_same(&s, t % 2 == 1, buf, size) && t < 60)
			right++;
		free(buf);
		sbf_hs_free(&s);
	}
	printf("# one-pass Rice parameter guessed right for %d of 60 even sets\n", right);
	CHECK(right >= 54);
}

/* Where hs_chunk_copy appends: the hashes so far, and the chunks seen. */
typedef struct ChunkCopy
{
	uint64_t   *a;
	uint64_t	n;
	size_t		max_chunk;
} ChunkCopy;

static void
hs_chunk_copy(void *arg, const uint64_t *h, size_t n)
{
	ChunkCopy  *c = (ChunkCopy *) arg;

	memcpy(c->a + c->n, h, n * sizeof(uint64_t));
	c->n += n;
	if (n > c->max_chunk)
		c->max_chunk = n;
}

/* Runs emitted by sbf_hs_flush_runs: copied, counted, each checked ascending. */
typedef struct RunSink
{
	ChunkCopy	c;
	uint64_t	runs;
	bool		sorted;
} RunSink;

static void
run_sink(void *arg, const uint64_t *h, size_t n)
{
	RunSink    *rs = (RunSink *) arg;
	size_t		i;

	for (i = 1; i < n; i++)
		rs->sorted = rs->sorted && h[i - 1] < h[i];
	rs->runs++;
	hs_chunk_copy(&rs->c, h, n);
}

/*
 * sbf_hs_flush_runs, as a spilled aggregate state drives it: a full buffer
 * whose distinct hashes reach min_run goes to the sink sorted, a smaller
 * one into the array; the runs and the array together hold the input's
 * set (no hash lost, none emitted twice by one run).  Distinct input is
 * mostly runs; a short cycle of repeats never makes one.
 * sbf_hs_reserve_buffer grows only an empty buffer of a set that does not
 * stream, to a power of two.
 */
static void
hashset_flush_runs(void)
{
	static const uint64_t sizes[] = {100, 5000, 70000};
	int			pat;
	size_t		si;

	for (pat = 0; pat < 4; pat++)
		for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		{
			uint64_t	n = sizes[si];
			uint64_t   *in = hs_input(pat, n);
			uint64_t	nref;
			uint64_t   *ref = ref_sort_unique(in, n, &nref);
			SbfHsScratch sc = {NULL, 0, NULL, &g_alloc, 0};
			RunSink		rs = {{malloc((n + 1) * sizeof(uint64_t)), 0, 0}, 0, true};
			SbfHashSet	s;
			uint64_t	i;
			uint64_t	nall;
			uint64_t   *all;
			uint64_t   *got;

			sbf_hs_init(&s, &g_alloc, NULL, 0);
			CHECK_ST(sbf_hs_reserve_buffer(&s, 1000), SBF_OK);
			CHECK(s.bufcap == 1024);
			for (i = 0; i < n; i++)
			{
				if (s.nbuf == s.bufcap)
				{
					CHECK_ST(sbf_hs_reserve_buffer(&s, 2048), SBF_E_PARAM);
					CHECK_ST(sbf_hs_flush_runs(&s, &sc, s.bufcap / 2, run_sink, &rs), SBF_OK);
					CHECK(s.nbuf == 0);
					CHECK_ST(sbf_hs_reserve_buffer(&s, 2048), SBF_OK);
				}
				s.buf[s.nbuf++] = in[i];
			}
			CHECK_ST(sbf_hs_flush(&s, &sc), SBF_OK);
			CHECK(rs.sorted);
			if (pat == 0 && n > 2048)
				CHECK(rs.runs > 0 && s.nset < n / 2);
			/* a cycle of n / 10 + 1 <= 501 hashes: under half of any buffer */
			if (pat == 1 && n <= 5000)
				CHECK(rs.runs == 0 && s.nset == nref);
			/* the runs and the array: the input's set */
			all = malloc((rs.c.n + s.nset + 1) * sizeof(uint64_t));
			memcpy(all, rs.c.a, rs.c.n * sizeof(uint64_t));
			if (s.nset > 0)
				memcpy(all + rs.c.n, s.set, s.nset * sizeof(uint64_t));
			got = ref_sort_unique(all, rs.c.n + s.nset, &nall);
			CHECK(nall == nref && memcmp(got, ref, nref * sizeof(uint64_t)) == 0);
			free(got);
			free(all);
			free(rs.c.a);
			sbf_hs_free(&s);
			sbf_hs_scratch_free(&sc);
			free(in);
			free(ref);
		}
}

/*
 * The chunked walk (a partial state streamed into a spill run) hands over
 * the decoded set in chunks of at most cap, and stops a malformed body with
 * the error the whole walk gives.
 */
static void
hashset_walk_chunks(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	SbfHashSet	s;
	uint64_t	j;
	size_t		size;
	uint8_t    *buf;
	SbfHsView	v;
	uint64_t   *whole;
	uint64_t	chunk[7];
	ChunkCopy	c;
	size_t		cut;
	int			tried = 0;

	sbf_hs_init(&s, &g_alloc, &p, 0);
	for (j = 0; j < 100000; j++)
		CHECK_ST(sbf_hs_add(&s, key(77, j), NULL), SBF_OK);
	CHECK_ST(sbf_hs_encoded_size(&s, false, SIZE_MAX, &size), SBF_OK);
	buf = malloc(size);
	sbf_hs_encode(&s, false, buf, size);
	whole = malloc(s.nset * sizeof(uint64_t));
	c.a = malloc(s.nset * sizeof(uint64_t));
	CHECK(sbf_hs_parse(buf, size, &v) == SBF_HS_OK);
	c.n = 0;
	c.max_chunk = 0;
	CHECK(sbf_hs_walk_chunks(&v, chunk, 7, hs_chunk_copy, &c, NULL) == SBF_HS_OK);
	CHECK(c.n == s.nset && c.max_chunk == 7);
	CHECK(memcmp(c.a, s.set, s.nset * sizeof(uint64_t)) == 0);
	/* cut bodies: the header still claims every hash */
	for (cut = size - 1; cut > size - 200; cut -= 37)
	{
		SbfHsView	cv;
		SbfHsError	e;

		if (sbf_hs_parse(buf, cut, &cv) != SBF_HS_OK)
			continue;
		e = sbf_hs_walk(&cv, whole, NULL);
		CHECK(e != SBF_HS_OK);
		c.n = 0;
		CHECK(sbf_hs_walk_chunks(&cv, chunk, 7, hs_chunk_copy, &c, NULL) == e);
		CHECK(c.n < s.nset);
		tried++;
	}
	CHECK(tried > 0);
	free(c.a);
	free(whole);
	free(buf);
	sbf_hs_free(&s);
}

/*
 * The codec: sizes per hash, canonical bytes, and every defect the format
 * section lists rejected with its own error.
 */
static void
hashset_codec(void)
{
	static const uint64_t sizes[] = {1000, 2000, 100000, 1000000};
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	uint8_t		buf[256];
	uint8_t		bad[256];
	SbfHsView	v;
	size_t		len;
	size_t		i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		SbfHashSet	s;
		uint64_t	j;
		uint64_t	nd;
		size_t		bytes;
		uint64_t   *dec;

		sbf_hs_init(&s, &g_alloc, &p, 0);
		for (j = 0; j < sizes[i]; j++)
			CHECK_ST(sbf_hs_add(&s, key(11, j), NULL), SBF_OK);
		dec = hs_roundtrip(&s, false, &nd, &bytes);
		CHECK(nd == sizes[i] && memcmp(dec, s.set, nd * 8) == 0);
		printf("# sbf_hashset: %" PRIu64 " hashes, %zu bytes, %.3f bytes/hash\n",
			   sizes[i], bytes, (double) bytes / sizes[i]);
		CHECK((double) bytes / sizes[i] <= (sizes[i] <= 2000 ? 9.0 : 7.0));
		free(dec);
		sbf_hs_free(&s);
	}

	/* a valid hand-made value: hashes 5, 6, 100 with k = 2 */
	{
		uint64_t	g[] = {5, 1, 94};

		len = hs_craft(buf, 3, 2, g, 3);
		CHECK(sbf_hs_validate(buf, len, &v) == SBF_HS_OK);
		{
			uint64_t	out[3];

			sbf_hs_decode(&v, out);
			CHECK(out[0] == 5 && out[1] == 6 && out[2] == 100);
		}
		for (i = 0; i < len; i++)
			CHECK(sbf_hs_validate(buf, i, &v) != SBF_HS_OK);
		memcpy(bad, buf, len);
		bad[0] = 2;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_VERSION);
		memcpy(bad, buf, len);
		bad[1] = 4;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_FLAGS);
		bad[1] = SBF_HS_FLAG_FILTER;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_FLAGS);
		memcpy(bad, buf, len);
		bad[5] = 1;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_FLAGS);
		memcpy(bad, buf, len);
		bad[2] = 64;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_RICE);
		memcpy(bad, buf, len);
		sbf_store64(bad + 8, UINT64_C(1) << 40);
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_COUNT);
		memcpy(bad, buf, len);
		bad[len] = 0;
		CHECK(sbf_hs_validate(bad, len + 1, &v) == SBF_HS_E_TRAILING);
		memcpy(bad, buf, len);
		bad[len - 1] |= 0x80;
		CHECK(sbf_hs_validate(bad, len, &v) == SBF_HS_E_PADDING);
		memcpy(bad, buf, len);
		bad[1] = SBF_HS_FLAG_RATE;	/* the rate would be read from the body */
		CHECK(sbf_hs_validate(bad, len, &v) != SBF_HS_OK);
	}
	/* a repeated hash: a zero gap after the first */
	{
		uint64_t	g[] = {5, 0, 94};

		len = hs_craft(buf, 3, 2, g, 3);
		CHECK(sbf_hs_validate(buf, len, &v) == SBF_HS_E_REPEAT);
	}
	/* descending: a gap that wraps past 2^64 - 1 */
	{
		uint64_t	g[] = {UINT64_MAX - 3, UINT64_C(1) << 62, 1};

		len = hs_craft(buf, 3, 61, g, 3);
		CHECK(sbf_hs_validate(buf, len, &v) == SBF_HS_E_ORDER);
	}
	/* fewer hashes in the body than the count */
	{
		uint64_t	g[] = {5, 1, 94};

		len = hs_craft(buf, 4, 2, g, 3);
		CHECK(sbf_hs_validate(buf, len, &v) == SBF_HS_E_TRUNCATED ||
			  sbf_hs_validate(buf, len, &v) == SBF_HS_E_COUNT);
	}
	/* the empty set: header only */
	len = hs_craft(buf, 0, 0, NULL, 0);
	CHECK(len == 16 && sbf_hs_validate(buf, len, &v) == SBF_HS_OK && v.count == 0);
	CHECK(strlen(sbf_hs_error_message(SBF_HS_E_ORDER)) > 10);
}

/*
 * Streamed sets encode as their filter (flag bit 1) and load back; sbf_agg's
 * 1.0 partial state round-trips in both modes and rejects its defects.
 */
static void
hashset_states(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	int			streamed;

	for (streamed = 0; streamed < 2; streamed++)
	{
		SbfHashSet	s;
		SbfHashSet	t;
		SbfHashSet	u;
		size_t		size;
		uint8_t    *buf;
		SbfHsView	v;
		SbfHsError	herr;
		SbfStatus	st;
		uint64_t	i;

		sbf_hs_init(&s, &g_alloc, &p, streamed ? 100 : 0);
		for (i = 0; i < 500; i++)
			CHECK_ST(sbf_hs_add(&s, key(12, i), NULL), SBF_OK);
		CHECK_ST(sbf_hs_encoded_size(&s, true, SIZE_MAX, &size), SBF_OK);
		CHECK(s.streaming == (streamed != 0));
		buf = malloc(size);
		sbf_hs_encode(&s, true, buf, size);
		CHECK(sbf_hs_validate(buf, size, &v) == SBF_HS_OK);
		CHECK(v.error_rate == 0.01);
		CHECK(((v.flags & SBF_HS_FLAG_FILTER) != 0) == (streamed != 0));
		sbf_hs_init(&t, &g_alloc, &p, streamed ? 100 : 0);
		CHECK_ST(sbf_hs_load(&t, &v, &herr), SBF_OK);
		CHECK(herr == SBF_HS_OK);
		CHECK(t.streaming == s.streaming);
		/* the same hashes, or the same filter byte for byte */
		if (t.streaming)
			CHECK(t.stream.len == s.stream.len &&
				  memcmp(SBF_PAYLOAD(&t.stream), SBF_PAYLOAD(&s.stream), s.stream.len) == 0);
		else
			CHECK(t.nset == 500 && s.nset == 500 &&
				  memcmp(t.set, s.set, 500 * sizeof(uint64_t)) == 0);
		CHECK_ST(sbf_hs_encoded_size(&s, false, 10, &size), SBF_E_TOO_LARGE);
		free(buf);

		CHECK_ST(sbf_hs_v1state_size(&s, &size), SBF_OK);
		buf = malloc(size + 8);
		sbf_hs_v1state_write(&s, buf);
		sbf_hs_init(&u, &g_alloc, &p, SBF_HS_AGG_THRESHOLD);
		CHECK(sbf_hs_v1state_read(&u, buf, size, &st) == SBF_HS_OK && st == SBF_OK);
		CHECK(u.streaming == s.streaming);
		if (!streamed)
		{
			CHECK(u.nset == 500 && memcmp(u.set, s.set, 500 * 8) == 0);
			memcpy(buf + size, buf + size - 8, 8);
			sbf_store64(buf + 16, 501);
			CHECK(sbf_hs_v1state_read(&t, buf, size + 8, &st) == SBF_HS_E_REPEAT);
			sbf_store64(buf + 16, 500);
			CHECK(sbf_hs_v1state_read(&t, buf, size - 1, &st) != SBF_HS_OK);
			buf[1] = 2;
			CHECK(sbf_hs_v1state_read(&t, buf, size, &st) == SBF_HS_E_FLAGS);
		}
		else
			CHECK(u.stream.len == s.stream.len &&
				  memcmp(SBF_PAYLOAD(&u.stream), SBF_PAYLOAD(&s.stream), s.stream.len) == 0);
		buf[0] = 9;
		CHECK(sbf_hs_v1state_read(&t, buf, size, &st) == SBF_HS_E_VERSION);
		free(buf);
		sbf_hs_free(&s);
		sbf_hs_free(&t);
		sbf_hs_free(&u);
	}
}

/* Encodes a set (flushed) into a new buffer; *size its length. */
static uint8_t *
hs_encode_new(SbfHashSet *s, size_t *size)
{
	uint8_t    *buf;

	CHECK_ST(sbf_hs_encoded_size(s, false, SIZE_MAX, size), SBF_OK);
	buf = malloc(*size);
	sbf_hs_encode(s, false, buf, *size);
	return buf;
}

/*
 * Merging an encoded set while it is decoded (sbf_hs_merge_coded) gives
 * what the union of the decoded sets gives: the same hashes, the same
 * streaming switch and the same filter bytes; a truncated body is a reading
 * error that leaves a valid set holding the destination's hashes.
 */
static void
hashset_merge_coded(void)
{
	static const uint64_t thresholds[] = {0, 64, 3000};
	static const uint64_t splits[] = {0, 1, 1000, 2500, 5000};
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		ti;
	size_t		si;
	int			pat;

	for (pat = 0; pat < 4; pat++)
		for (ti = 0; ti < 3; ti++)
			for (si = 0; si < 5; si++)
			{
				uint64_t	n = 5000;
				uint64_t	split = splits[si];
				uint64_t   *in = hs_input(pat, n);
				SbfHashSet	a;
				SbfHashSet	b;
				SbfHashSet	ref;
				SbfHashSet	src;
				SbfHsView	v;
				SbfHsError	e;
				uint8_t    *buf;
				size_t		size;
				uint64_t	i;

				sbf_hs_init(&a, &g_alloc, &p, thresholds[ti]);
				sbf_hs_init(&ref, &g_alloc, &p, thresholds[ti]);
				sbf_hs_init(&src, &g_alloc, &p, 0);
				/* the halves overlap: keys split/2 .. split are in both */
				for (i = 0; i < n; i++)
				{
					if (i <= split)
					{
						CHECK_ST(sbf_hs_add(&a, in[i], NULL), SBF_OK);
						CHECK_ST(sbf_hs_add(&ref, in[i], NULL), SBF_OK);
					}
					if (i >= split / 2)
						CHECK_ST(sbf_hs_add(&src, in[i], NULL), SBF_OK);
				}
				buf = hs_encode_new(&src, &size);
				CHECK(sbf_hs_parse(buf, size, &v) == SBF_HS_OK);
				CHECK_ST(sbf_hs_merge_coded(&a, &v, &e), SBF_OK);
				CHECK(e == SBF_HS_OK);
				CHECK_ST(sbf_hs_union(&ref, &src), SBF_OK);
				CHECK_ST(sbf_hs_flush(&ref, NULL), SBF_OK);
				CHECK_ST(sbf_hs_flush(&a, NULL), SBF_OK);
				CHECK(a.streaming == ref.streaming);
				if (a.streaming)
					CHECK(a.stream.len == ref.stream.len &&
						  memcmp(SBF_PAYLOAD(&a.stream), SBF_PAYLOAD(&ref.stream),
								 a.stream.len) == 0);
				else
					CHECK(a.nset == ref.nset &&
						  memcmp(a.set, ref.set, a.nset * sizeof(uint64_t)) == 0);

				/* a truncated body: an error, and b keeps its own hashes */
				sbf_hs_init(&b, &g_alloc, &p, 0);
				for (i = 0; i <= split; i++)
					CHECK_ST(sbf_hs_add(&b, in[i], NULL), SBF_OK);
				CHECK_ST(sbf_hs_flush(&b, NULL), SBF_OK);
				CHECK(sbf_hs_parse(buf, size - 1, &v) == SBF_HS_OK ||
					  sbf_hs_parse(buf, size - 1, &v) == SBF_HS_E_COUNT);
				if (sbf_hs_parse(buf, size - 1, &v) == SBF_HS_OK)
				{
					uint64_t	nb = b.nset;
					uint64_t   *own = malloc((nb + 1) * sizeof(uint64_t));
					uint64_t	j = 0;

					memcpy(own, b.set, nb * sizeof(uint64_t));
					CHECK_ST(sbf_hs_merge_coded(&b, &v, &e), SBF_OK);
					CHECK(e == SBF_HS_E_TRUNCATED);
					for (i = 1; i < b.nset; i++)
						CHECK(b.set[i - 1] < b.set[i]);
					for (i = 0; i < b.nset && j < nb; i++)
						j += b.set[i] == own[j];
					CHECK(j == nb);
					free(own);
				}
				sbf_hs_free(&b);
				free(buf);
				free(in);
				sbf_hs_free(&a);
				sbf_hs_free(&ref);
				sbf_hs_free(&src);
			}
}

/* A body of hashes 0 .. 4 nbytes - 1 at Rice parameter 0, 2 bits a hash. */
static uint8_t *
hs_dense(size_t nbytes, uint64_t count, size_t *len)
{
	uint8_t    *buf = malloc(16 + nbytes);

	memset(buf, 0, 16);
	buf[0] = 1;
	sbf_store64(buf + 8, count);
	memset(buf + 16, 0x55, nbytes);
	*len = 16 + nbytes;
	return buf;
}

/*
 * The decoded size is bounded by the body before anything is allocated (2
 * bits a hash at k = 0), and every loop over a crafted dense set, and every
 * run of adds into a filter of many segments, checks for interrupts by its
 * work (SBF_WORK_STRIDE hashes, or bit probes).
 */
static void
hashset_bounded_work(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		nbytes = (size_t) 1 << 18;
	uint64_t	n = (uint64_t) nbytes * 4;
	size_t		len;
	uint8_t    *buf = hs_dense(nbytes, n, &len);
	SbfHsView	v;
	SbfHsError	e;
	SbfHashSet	s;
	SbfFilter	f;
	SbfFilter	x;
	SbfView		xv;
	uint64_t	before;
	uint64_t	h[2048];
	size_t		size;
	uint64_t	i;

	/* the count rule: 4 hashes a byte at k = 0, one more is refused */
	CHECK(sbf_hs_validate(buf, len, &v) == SBF_HS_OK && v.count == n);
	sbf_store64(buf + 8, n + 1);
	CHECK(sbf_hs_parse(buf, len, &v) == SBF_HS_E_COUNT);
	buf[2] = 1;					/* k = 1: 2 bits a hash at least */
	CHECK(sbf_hs_parse(buf, len, &v) == SBF_HS_E_COUNT);
	sbf_store64(buf + 8, n);
	CHECK(sbf_hs_parse(buf, len, &v) == SBF_HS_OK);
	buf[2] = 0;

	/* validation, the merge into one array and the encoder: stride checks */
	before = g_interrupt_calls;
	CHECK(sbf_hs_check(buf, len, &v, &g_alloc) == SBF_HS_OK);
	CHECK(g_interrupt_calls - before >= n / SBF_WORK_STRIDE);
	sbf_hs_init(&s, &g_alloc, &p, 0);
	before = g_interrupt_calls;
	CHECK_ST(sbf_hs_merge_coded(&s, &v, &e), SBF_OK);
	CHECK(e == SBF_HS_OK && s.nset == n && s.set[0] == 0 && s.set[n - 1] == n - 1);
	CHECK(g_interrupt_calls - before >= n / SBF_WORK_STRIDE);
	/* the union with itself: no new hash, and the one array did not grow */
	CHECK_ST(sbf_hs_merge_coded(&s, &v, &e), SBF_OK);
	CHECK(e == SBF_HS_OK && s.nset == n && s.setcap == n);
	before = g_interrupt_calls;
	CHECK_ST(sbf_hs_encoded_size(&s, false, SIZE_MAX, &size), SBF_OK);
	CHECK(size == len);
	CHECK(g_interrupt_calls - before >= n / SBF_WORK_STRIDE);
	sbf_hs_free(&s);
	free(buf);

	/* one gap over 4 MB of zero bits: checked inside the gap too */
	buf = calloc(1, 16 + ((size_t) 1 << 22) + 1);
	buf[0] = 1;
	sbf_store64(buf + 8, 1);
	buf[16 + ((size_t) 1 << 22)] = 1;
	before = g_interrupt_calls;
	CHECK(sbf_hs_check(buf, 16 + ((size_t) 1 << 22) + 1, &v, &g_alloc) == SBF_HS_OK);
	CHECK(g_interrupt_calls - before >= 1);
	free(buf);

	/*
	 * adds into a filter of 4,000 segments (k = 7): an add probes every
	 * segment, so 2,048 hashes are 57 million probes, a check every 2^18
	 */
	crafted(&f, 4000, 1, true, 0);
	for (i = 0; i < 2048; i++)
		h[i] = key(14, i);
	before = g_interrupt_calls;
	CHECK_ST(sbf_add_hashes(&f, h, 2048), SBF_OK);
	CHECK(g_interrupt_calls - before >= (uint64_t) 2048 * 4000 * 7 / SBF_WORK_STRIDE);
	/* the union of an exact filter and that one adds its hashes: the same */
	p = params(1000, 0.01, 1, 1.0, 9);
	CHECK_ST(sbf_create(&x, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hashes(&x, h + 1024, 100), SBF_OK);
	CHECK_ST(validate_filter(&x, &xv), SBF_OK);
	CHECK(sbf_is_exact(&xv) && xv.nhashes == 100);
	before = g_interrupt_calls;
	CHECK_ST(sbf_union(&f, &xv), SBF_OK);
	CHECK(g_interrupt_calls - before >= (uint64_t) 100 * 4000 * 7 / SBF_WORK_STRIDE);
	sbf_filter_free(&x);
	sbf_filter_free(&f);
}

/* Allocation failures anywhere in the engine are reported, never crash. */
static void
hashset_nomem(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 9);
	size_t		limit;

	for (limit = 64; limit <= 65536; limit *= 4)
	{
		SbfHashSet	s;
		uint64_t	i;
		uint64_t	added;
		SbfStatus	st = SBF_OK;

		reset_counts(limit);
		sbf_hs_init(&s, &g_alloc, &p, 3000);
		for (i = 0; i < 20000 && st == SBF_OK; i++)
			st = sbf_hs_add(&s, key(13, i), NULL);
		CHECK(st == SBF_E_NOMEM);
		/* the add of key i - 1 failed; keys 0 .. i - 2 are in the set */
		added = i - 1;
		reset_counts(SIZE_MAX);
		/*
		 * a failed flush keeps its pending hashes: with memory back, the
		 * flush merges them, and the set holds exactly the added keys
		 */
		CHECK_ST(sbf_hs_flush(&s, NULL), SBF_OK);
		if (s.streaming)
		{
			SbfView		v;

			sbf_filter_view(&s.stream, &v);
			for (i = 0; i < added; i++)
				CHECK(sbf_contains_hash(&v, key(13, i)));
		}
		else
		{
			uint64_t   *in = malloc((added + 1) * sizeof(uint64_t));
			uint64_t	nref;
			uint64_t   *ref;

			for (i = 0; i < added; i++)
				in[i] = key(13, i);
			ref = ref_sort_unique(in, added, &nref);
			CHECK(s.nset == nref && memcmp(s.set, ref, nref * sizeof(uint64_t)) == 0);
			free(ref);
			free(in);
		}
		sbf_hs_free(&s);
	}
	reset_counts(SIZE_MAX);
}

int
main(void)
{
	RUN(hash_sort_unique);
	RUN(hash_merge_unique);
	RUN(hashset_engine);
	RUN(hashset_flush_runs);
	RUN(hashset_union);
	RUN(hashset_codec);
	RUN(hashset_one_pass);
	RUN(hashset_walk_chunks);
	RUN(hashset_states);
	RUN(hashset_nomem);
	RUN(hashset_merge_coded);
	RUN(hashset_bounded_work);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
