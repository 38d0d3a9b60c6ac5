/*
 * gen_corpus.c
 *	  Writes the small seed corpus of the fuzz targets: valid filters of
 *	  various shapes (raw payloads for fuzz_validate, their text form for
 *	  fuzz_text) and a few operation scripts for fuzz_ops.  Run by
 *	  "make corpus"; deterministic.  Six more seeds of fuzz_validate,
 *	  v5-*, are version-5 values copied from the test kit
 *	  (test/kit/format5_values.tsv, cases 1, 4 and 5: a compact segment
 *	  alone, grown, united with version 4; cases 7 and 9, v5-value-*: the
 *	  compact form, with and without PARAMS, and case 7 with its ranks
 *	  list, v5-value-30-ranks), which kit_v5.c writes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_window.h"
#include "sbf_hashset.h"
#include "sbf_internal.h"
#include "sbf_kind.h"
#include "craft4.h"

static void *
gen_alloc(size_t size, void *ctx)
{
	(void) ctx;
	return malloc(size);
}

static void *
gen_realloc(void *ptr, size_t size, void *ctx)
{
	(void) ctx;
	return realloc(ptr, size);
}

static void
gen_free(void *ptr, void *ctx)
{
	(void) ctx;
	free(ptr);
}

static const SbfAllocator gen_allocator = {gen_alloc, gen_realloc, gen_free, NULL, NULL};

/* Writes len bytes to dir/name. */
static void
write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char		path[512];
	FILE	   *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	if (fp == NULL || fwrite(data, 1, len, fp) != len || fclose(fp) != 0)
	{
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
}

/* How emit() shapes a filter. */
typedef enum EmitForm
{
	SEGMENTS,					/* converted to segments before the adds */
	EXACT,						/* as sbf_create made it (exact while small) */
	FORMAT1,					/* segments, relabelled version 1 (1.0's layout) */
	DELTA						/* sbf_delta of the segmented filter, then adds */
} EmitForm;

/*
 * Writes a windowed value (format 4, WINDOWED) of nb buckets: per bucket b of 0..nb-1,
 * sizes[b % 4] elements, then compacted as the aggregate does (all) or as
 * live adds leave it (newest bucket open); for fuzz_validate and fuzz_text.
 */
static void
emit_window(const char *root, const char *name, uint32_t buckets, int nb,
			const int *sizes, bool all)
{
	SbfWinParams p = {3600000000LL, buckets, 0.01};
	SbfWindow	w;
	SbfFilter	f;
	char		dir[512];
	int			b;
	int			i;

	sbf_win_init(&w, &p, &gen_allocator);
	for (b = 0; b < nb; b++)
		for (i = 0; i < sizes[b % 4]; i++)
			(void) sbf_win_add(&w, 500000 + b, sbf_hash_int64(b * 100000 + i));
	if (all)
		(void) sbf_win_compact(&w, true);
	if (sbf_win_encode(&w, &f, 0) != SBF_OK)
		exit(1);
	snprintf(dir, sizeof(dir), "%s/fuzz_validate", root);
	write_file(dir, name, SBF_PAYLOAD(&f), f.len);
	{
		char	   *text = malloc(sbf_text_size(f.len) + 1);

		sbf_text_encode(SBF_PAYLOAD(&f), f.len, text);
		snprintf(dir, sizeof(dir), "%s/fuzz_text", root);
		write_file(dir, name, text, sbf_text_size(f.len));
		free(text);
	}
	sbf_filter_free(&f);
	sbf_win_free(&w);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * A version-3 segment of bucket age: n >= 1 hashes in a windowed bloom
 * segment (kind 4) sized at budget^1.04 (halved until its rate is within
 * budget), written at buf + *off with its 16-byte entry e.
 */
static void
put_v3_segment(uint8_t *buf, uint8_t *e, size_t *off, uint16_t age, int n,
			   double budget, int seed)
{
	SbfKindGeom g;
	uint64_t	bytes;
	uint64_t   *h = malloc(sizeof(uint64_t) * (size_t) n);
	double		share = pow(budget, 1.04);
	int			i;

	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64(seed * 100000 + i);
	qsort(h, (size_t) n, sizeof(uint64_t), cmp_u64);
	/* as 1.2: a segment over its share is made again at half of it */
	do
	{
		if (sbf_kind_wbloom_ops.plan((uint64_t) n, share, &g, &bytes) != SBF_OK ||
			sbf_kind_wbloom_ops.build(&g, buf + *off, h, (size_t) n, &gen_allocator) != SBF_OK)
			exit(1);
		share /= 2;
	} while (sbf_kind_wbloom_ops.rate_of(&g, buf + *off) > budget);
	sbf_store16(e, age);
	e[2] = g.width;
	sbf_store32(e + 4, (uint32_t) n);
	sbf_store64(e + 8, g.size);
	*off += (size_t) bytes;
	free(h);
}

/*
 * Writes a windowed value as 1.2 wrote it (version 3, read forever): bucket
 * ages 0..nb-1 of sizes[age % 4] elements each as windowed bloom segments
 * (1.2's WINDOW SIZING, share P^1.04); for fuzz_validate and fuzz_text.
 */
static void
emit_window_v3(const char *root, const char *name, uint16_t buckets, int nb,
			   const int *sizes)
{
	uint8_t    *buf = calloc(1, 1 << 20);
	size_t		off;
	uint32_t	nseg = 0;
	char		dir[512];
	int			a;

	for (a = 0; a < nb; a++)
		nseg += sizes[a % 4] > 0;
	off = SBF_WIN_HEADER_BYTES + (size_t) nseg * SBF_WIN_SEGDIR_BYTES;
	nseg = 0;
	for (a = 0; a < nb; a++)
		if (sizes[a % 4] > 0)
		{
			put_v3_segment(buf, buf + SBF_WIN_HEADER_BYTES + (size_t) nseg * SBF_WIN_SEGDIR_BYTES,
						   &off, (uint16_t) a, sizes[a % 4], 0.01 / buckets, a);
			nseg++;
		}
	buf[0] = SBF_WIN_VERSION;
	buf[1] = SBF_WIN_FLAG_STARTED;
	buf[2] = SBF_HASH_XXH3;
	sbf_store16(buf + 4, buckets);
	sbf_store32(buf + 8, nseg);
	sbf_store64(buf + 16, 3600000000ULL);
	sbf_store64(buf + 24, 500000);
	sbf_store_double(buf + 32, 0.01);
	{
		SbfWinView	v;
		char	   *text = malloc(sbf_text_size(off) + 1);

		if (sbf_win_validate(buf, off, &v) != SBF_OK)
			exit(1);
		snprintf(dir, sizeof(dir), "%s/fuzz_validate", root);
		write_file(dir, name, buf, off);
		sbf_text_encode(buf, off, text);
		snprintf(dir, sizeof(dir), "%s/fuzz_text", root);
		write_file(dir, name, text, sbf_text_size(off));
		free(text);
	}
	free(buf);
}

/* Builds one filter and writes it in both forms. */
static void
emit(const char *root, const char *name, uint64_t capacity, double e,
	 uint16_t growth, double r, uint8_t p, uint64_t nkeys, uint64_t nhll,
	 EmitForm form)
{
	SbfParams	params;
	SbfFilter	f;
	SbfView		v;
	char		dir[512];
	char	   *text;
	uint64_t	i;

	params.capacity = capacity;
	params.error_rate = e;
	params.growth = growth;
	params.tightening = r;
	params.hll_p = p;
	/* 1.0's layout is 1.2's written as version 1 */
	sbf_write_v2 = form == FORMAT1;
	if (sbf_create(&f, &params, 0, &gen_allocator) != SBF_OK)
		exit(1);
	if (form != EXACT && sbf_convert(&f) != SBF_OK)
		exit(1);
	for (i = 0; i < nkeys; i++)
		if (sbf_add_hash(&f, sbf_hash_int64((int64_t) i), NULL) != SBF_OK)
			exit(1);
	for (i = 0; i < nhll; i++)
		if (sbf_hll_add_hash(&f, sbf_hash_int64((int64_t) (i + 1000000))) != SBF_OK)
			exit(1);
	sbf_write_v2 = false;
	if (form == FORMAT1)
		SBF_PAYLOAD(&f)[0] = SBF_FORMAT_V1;
	if (form == DELTA)
	{
		SbfFilter	d;

		sbf_filter_view(&f, &v);
		if (sbf_delta(&d, &v, 0, &gen_allocator) != SBF_OK)
			exit(1);
		sbf_filter_free(&f);
		f = d;
		for (i = 0; i < nkeys; i++)
			if (sbf_add_hash(&f, sbf_hash_int64((int64_t) (i + 2000000)), NULL) != SBF_OK)
				exit(1);
	}
	if (sbf_validate(SBF_PAYLOAD(&f), f.len, &v) != SBF_OK)
		exit(1);

	snprintf(dir, sizeof(dir), "%s/fuzz_validate", root);
	write_file(dir, name, SBF_PAYLOAD(&f), f.len);
	text = malloc(sbf_text_size(f.len) + 1);
	sbf_text_encode(SBF_PAYLOAD(&f), f.len, text);
	snprintf(dir, sizeof(dir), "%s/fuzz_text", root);
	write_file(dir, name, text, strlen(text));
	free(text);
	sbf_filter_free(&f);
}

/* Writes a payload for fuzz_validate and its text form for fuzz_text. */
static void
write_both(const char *root, const char *name, const uint8_t *buf, size_t len)
{
	char		dir[512];
	char	   *text = malloc(sbf_text_size(len) + 1);

	snprintf(dir, sizeof(dir), "%s/fuzz_validate", root);
	write_file(dir, name, buf, len);
	sbf_text_encode(buf, len, text);
	snprintf(dir, sizeof(dir), "%s/fuzz_text", root);
	write_file(dir, name, text, strlen(text));
	free(text);
}

/*
 * Version-4 seeds (docs/format4.md, section 2): the builder's fused and
 * blocked values, and crafted mixes of bloom, blocked (padded) and fused
 * segments (craft4.h).
 */
static void
emit_v4(const char *root)
{
	static const Craft4Seg mix[] = {
		{SBF_KIND_FUSED, 60, 0.01, 1},
		{SBF_KIND_BLOCKED, 2000, 1e-4, 2},
		{SBF_KIND_BLOOM, 40, 0.001, 3},
	};
	static const Craft4Seg small[] = {
		{SBF_KIND_BLOCKED, 3, 0.05, 4},
		{SBF_KIND_FUSED, 1, 0.2, 5},
	};
	static const uint32_t sizes[] = {30, 500};
	SbfParams	p = {1000, 0.01, 0.9, 2, 6};
	size_t		len;
	uint8_t    *buf;
	uint32_t	i;

	for (i = 0; i < 2; i++)
	{
		Craft4Seg	s = {SBF_KIND_FUSED, sizes[i], 0.01, 7 + i};
		uint64_t   *h = craft4_hashes(&s);
		SbfFilter	f;
		char		name[64];

		if (sbf_build_sorted(&f, &p, h, sizes[i], 0.0083, 0, 0, &gen_allocator) != SBF_OK)
			exit(1);
		snprintf(name, sizeof(name), "v4-built-%u", (unsigned) sizes[i]);
		write_both(root, name, SBF_PAYLOAD(&f), f.len);
		sbf_filter_free(&f);
		free(h);
	}
	buf = craft4(mix, 3, SBF_FLAG_OVERLAP, &len);
	if (buf == NULL)
		exit(1);
	write_both(root, "v4-mixed-padded", buf, len);
	free(buf);
	buf = craft4(small, 2, SBF_FLAG_CHAIN, &len);
	if (buf == NULL)
		exit(1);
	write_both(root, "v4-small-chain", buf, len);
	free(buf);
	{
		/*
		 * issue 39's crafted value (132 bytes): two bloom segments of m = 1
		 * with counts 50 and 55, which # answered 85,242,318,145 before
		 * the validator bounded a bloom entry's bits by its capacity
		 */
		static const uint64_t counts[2] = {50, 55};

		buf = craft4_thin_bloom(2, 1, 1, 60, counts, 0.004, 0.01, &len);
		if (buf == NULL)
			exit(1);
		write_both(root, "v4-thin-bloom", buf, len);
		free(buf);
	}
}

/* Writes a hash set of n hashes (maybe streamed past threshold) in all three forms. */
static void
emit_hashset(const char *root, const char *name, uint64_t n, uint64_t threshold,
			 bool with_rate)
{
	SbfParams	params = {1000, 0.01, 0.9, 2, 9};
	SbfHashSet	s;
	char		dir[512];
	char		file[256];
	size_t		size;
	uint8_t    *buf;
	uint64_t	i;

	sbf_hs_init(&s, &gen_allocator, &params, threshold);
	for (i = 0; i < n; i++)
		if (sbf_hs_add(&s, sbf_hash_int64((int64_t) (i % (n / 2 + 1))), NULL) != SBF_OK ||
			sbf_hs_add(&s, sbf_hash_int64((int64_t) i), NULL) != SBF_OK)
			exit(1);
	snprintf(dir, sizeof(dir), "%s/fuzz_hashset", root);
	if (sbf_hs_encoded_size(&s, with_rate, SIZE_MAX, &size) != SBF_OK)
		exit(1);
	buf = malloc(size + 1);
	buf[0] = 0;					/* mode 0: sbf_hashset bytes */
	sbf_hs_encode(&s, with_rate, buf + 1, size);
	snprintf(file, sizeof(file), "bytes-%s", name);
	write_file(dir, file, buf, size + 1);
	free(buf);
	if (sbf_hs_v1state_size(&s, &size) != SBF_OK)
		exit(1);
	buf = malloc(size + 1);
	buf[0] = 2;					/* mode 2: 1.0 partial state */
	sbf_hs_v1state_write(&s, buf + 1);
	snprintf(file, sizeof(file), "v1state-%s", name);
	if (n > 0)
		write_file(dir, file, buf, size + 1);
	free(buf);
	sbf_hs_free(&s);
}

static int
cmp_hash(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * fuzz_kinds seeds: a built blocked, fused and compact segment in the
 * crafted form (mode byte 0, descriptor, capacity, count, error, data) and
 * sets to build.
 */
static void
emit_kinds(const char *root)
{
	static const double shares[] = {0.0096, 0.001};
	char		dir[512];
	uint64_t	h[300];
	uint8_t		buf[1 + 40 + 4096];
	int			i;
	int			k;

	snprintf(dir, sizeof(dir), "%s/fuzz_kinds", root);
	mkdir(dir, 0777);
	for (i = 0; i < 300; i++)
		h[i] = sbf_hash_int64(i);
	qsort(h, 300, sizeof(uint64_t), cmp_hash);
	for (k = 0; k < 3; k++)
	{
		const SbfKindOps *ops = k == 2 ? &sbf_kind_compact_ops :
			k ? &sbf_kind_fused_ops : &sbf_kind_blocked_ops;
		SbfKindGeom g;
		uint64_t	bytes;
		double		p;
		char		name[64];

		if (ops->plan(300, shares[k % 2], &g, &bytes) != SBF_OK || bytes > 4096 ||
			ops->build(&g, buf + 41, h, 300, &gen_allocator) != SBF_OK)
			exit(1);
		p = k ? ops->rate_at(&g, 300) : shares[k];
		buf[0] = 0;
		sbf_kind_encode(&g, buf + 1);
		sbf_store64(buf + 17, 300);
		sbf_store64(buf + 25, 300);
		sbf_store_double(buf + 33, p);
		snprintf(name, sizeof(name), "segment-%s", ops->name);
		write_file(dir, name, buf, 41 + bytes);
	}
	/*
	 * sets: mode 1, kind|share byte (row index in bits 0, 1 and 5, share 1
	 * in bits 2-4), 40 hashes: rows 0 and 1 (bloom and blocked, whatever
	 * the older file names say) and the compact kind's (row index 4)
	 */
	for (k = 0; k < 3; k++)
	{
		static const char *const names[] = {"set-blocked", "set-fused", "set-compact"};
		char		name[64];

		buf[0] = 1;
		buf[1] = (uint8_t) (k == 2 ? 0x20 | 4 : k | 4);
		for (i = 0; i < 40; i++)
			sbf_store64(buf + 2 + 8 * i, h[i * 7]);
		snprintf(name, sizeof(name), "%s", names[k]);
		write_file(dir, name, buf, 2 + 8 * 40);
	}
	/*
	 * unions (fuzz_union4.h): mode 6, the parameters (budget checked), then
	 * 5 bytes a segment: value|kind|share|OR, key base, keys, capacity, OR
	 * length; blocked sets that nest and overlap, fused, bloom
	 */
	{
		static const uint8_t u[] = {
			6, 0x00,
			0x02, 1, 49, 10, 0,		/* value 0, blocked, keys 1..50 */
			0x04, 2, 199, 0, 0,		/* value 0, fused */
			0x03, 1, 29, 15, 0,		/* value 1, blocked, a subset's keys */
			0x01, 3, 39, 5, 0,		/* value 1, bloom */
			0x05, 4, 99, 0, 0,		/* value 1, fused */
			0x43, 5, 9, 10, 8,		/* value 1, blocked, OR-ed bytes */
			0xff, 0x11, 0x22, 0x44, 0x88, 0x01, 0x02, 0x04,
		};

		/* within the budget, checked: blocked and fused at small shares */
		static const uint8_t w[] = {
			6, 0x0a,
			0x0a, 7, 99, 20, 0,		/* value 0, blocked, share 0.001 */
			0x2d, 8, 149, 0, 0,		/* value 1, fused, share 0.00005 */
			0x0b, 7, 59, 30, 0,		/* value 1, blocked, a subset's keys */
		};

		write_file(dir, "union-mixed", u, sizeof(u));
		write_file(dir, "union-budget", w, sizeof(w));
	}
}

int
main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : "corpus";
	char		dir[512];

	mkdir(root, 0777);
	snprintf(dir, sizeof(dir), "%s/fuzz_validate", root);
	mkdir(dir, 0777);
	snprintf(dir, sizeof(dir), "%s/fuzz_text", root);
	mkdir(dir, 0777);
	snprintf(dir, sizeof(dir), "%s/fuzz_ops", root);
	mkdir(dir, 0777);
	{
		/* two filters' parameters (5 bytes each), a compatibility byte, ops */
		static const uint8_t adds_union[] = {
			10, 2, 1, 1, 5, 16, 2, 1, 1, 7, 1,
			0, 64, 1, 3, 128, 2, 12, 48, 5, 10, 11, 14, 8, 51, 0, 200, 4, 10};
		static const uint8_t seed000[] = {
			8, 1, 0, 0, 2, 8, 1, 0, 0, 2, 1,
			0, 255, 0, 0, 255, 1, 0, 255, 2, 14, 14, 10};
		static const uint8_t incompatible[] = {
			4, 0, 3, 1, 9, 4, 4, 15, 2, 9, 0,
			0, 20, 0, 1, 30, 0, 10, 11};

		write_file(dir, "adds-union", adds_union, sizeof(adds_union));
		write_file(dir, "seed000", seed000, sizeof(seed000));
		write_file(dir, "incompatible", incompatible, sizeof(incompatible));
	}

	snprintf(dir, sizeof(dir), "%s/fuzz_hashset", root);
	mkdir(dir, 0777);
	{
		/* mode 1 scripts: a threshold byte, then 3-byte hashes */
		uint8_t		script[1 + 1 + 3 * 300];
		int			i;

		script[0] = 1;
		script[1] = 0;			/* never stream */
		for (i = 0; i < 3 * 300; i++)
			script[2 + i] = (uint8_t) (i * 37 % 101);
		write_file(dir, "engine-no-stream", script, sizeof(script));
		script[1] = 140;		/* stream past 52 */
		write_file(dir, "engine-stream", script, sizeof(script));
	}
	{
		/*
		 * mode 3: a dense crafted set (hashes 0 .. 65,535 at Rice parameter
		 * 0, 2 bits each) and itself, merged while decoded
		 */
		size_t		body = 16384;
		size_t		one = 16 + body;
		uint8_t    *pair = calloc(1, 4 + 2 * one);
		int			i;
		int			j;

		pair[0] = 3;
		pair[1] = 0;			/* never stream */
		pair[2] = (uint8_t) (one & 0xff);
		pair[3] = (uint8_t) (one >> 8);
		for (i = 0; i < 2; i++)
		{
			uint8_t    *v = pair + 4 + i * one;

			v[0] = 1;
			for (j = 0; j < 8; j++)
				v[8 + j] = (uint8_t) (((uint64_t) body * 4) >> (8 * j));
			memset(v + 16, 0x55, body);
		}
		write_file(dir, "pair-dense", pair, 4 + 2 * one);
		pair[1] = 200;			/* stream past 292 */
		write_file(dir, "pair-dense-stream", pair, 4 + 2 * one);
		free(pair);
	}
	emit_hashset(root, "empty", 0, 0, false);
	emit_hashset(root, "one", 1, 0, false);
	emit_hashset(root, "ten-rate", 10, 0, true);
	emit_hashset(root, "300", 300, 0, false);
	emit_hashset(root, "streamed", 300, 100, true);

	emit_v4(root);
	emit(root, "empty", 1, 0.01, 2, 0.9, 4, 0, 0, SEGMENTS);
	emit(root, "one", 10, 0.01, 2, 0.9, 9, 1, 0, SEGMENTS);
	emit(root, "sparse-p14", 8, 0.1, 2, 0.5, 14, 20, 0, SEGMENTS);
	emit(root, "dense-p4", 4, 0.1, 2, 0.5, 4, 30, 0, SEGMENTS);
	emit(root, "dense-p6-hll-only", 16, 0.05, 4, 0.8, 6, 0, 200, SEGMENTS);
	emit(root, "seed000", 8, 0.2, 1, 1.0, 5, 40, 0, SEGMENTS);
	emit(root, "growth16", 2, 0.3, 16, 0.99, 7, 50, 0, SEGMENTS);
	emit(root, "many-segments", 1, 0.4, 1, 0.9, 4, 120, 0, SEGMENTS);
	emit(root, "tight", 20, 0.001, 3, 0.1, 8, 100, 30, SEGMENTS);
	emit(root, "medium", 200, 0.01, 2, 0.9, 10, 600, 0, SEGMENTS);
	/* format 2's exact form, sbf_delta's chain, and format 1 */
	emit(root, "exact-empty", 1000, 0.01, 2, 0.9, 9, 0, 0, EXACT);
	emit(root, "exact-three", 1000, 0.01, 2, 0.9, 9, 3, 0, EXACT);
	emit(root, "exact-near-conversion", 10, 0.01, 2, 0.9, 9, 60, 0, EXACT);
	emit(root, "exact-converted", 10, 0.01, 2, 0.9, 9, 61, 0, EXACT);
	emit(root, "delta-exact", 8, 0.1, 2, 0.5, 6, 3, 0, DELTA);
	emit(root, "delta-segments", 8, 0.1, 2, 0.5, 6, 40, 0, DELTA);
	emit(root, "format1-medium", 20, 0.01, 2, 0.9, 9, 200, 0, FORMAT1);
	emit(root, "format1-empty", 1, 0.01, 2, 0.9, 4, 0, 0, FORMAT1);
	/* windowed values */
	{
		static const int small[] = {1, 3, 0, 2};
		static const int mixed[] = {5, 40, 300, 0};
		static const int small3[] = {20, 3, 0, 9};

		emit_window_v3(root, "window3-small", 7, 5, small3);
		emit_window_v3(root, "window3-mixed", 30, 12, mixed);
		emit_window(root, "window4-small", 7, 9, small, false);
		emit_window(root, "window4-mixed", 30, 12, mixed, true);
		emit_window(root, "window4-mixed-live", 30, 12, mixed, false);
	}
	snprintf(dir, sizeof(dir), "%s/fuzz_window", root);
	mkdir(dir, 0777);
	{
		/* width, buckets, error bytes; then (op, arg) pairs */
		static const uint8_t slide_union[] = {
			1, 6, 3, 0, 9, 1, 4, 4, 2, 6, 0, 0, 3, 5, 1, 7, 0, 4, 8, 7, 1};
		static const uint8_t burst[] = {
			3, 29, 2, 0, 4, 8, 2, 4, 1, 5, 0, 6, 0, 4, 40, 7, 0};

		write_file(dir, "slide-union", slide_union, sizeof(slide_union));
		write_file(dir, "burst", burst, sizeof(burst));
	}
	emit_kinds(root);
	return 0;
}
