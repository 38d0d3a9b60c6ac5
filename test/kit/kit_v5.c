/*
 * kit_v5.c
 *	  Writes test/kit/format5_values.tsv: version-5 values (docs/format5.md,
 *	  section 5: version 4's plain layout holding a compact segment) for the
 *	  test kit, which the server reads and answers (kit_cases.sql) like the
 *	  committed values of older releases.  No writer of this release makes a
 *	  compact segment from elements yet, so they are made here by the core's
 *	  own builder with a copy of the compact kind's row that plans standing
 *	  in at its code (SBF_TEST_KINDS, as the unit tests do); every value is
 *	  checked by the validator with the server's row before it is printed.
 *	  `make -C test/kit check` runs it and compares its output with the
 *	  committed file.
 *	    kit_v5 > format5_values.tsv
 *	  Columns: id, what, element type, members spec (kit_cases.sql's
 *	  spec_members: [[prefix, n], ...]), the value as text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_compact.h"
#include "sbf_efset.h"
#include "sbf_hash_sort.h"
#include "sbf_kind.h"
#include "sbf_plain.h"
#include "sbf_union.h"

#define MAXN	6000

static void *
v_alloc(size_t size, void *ctx __attribute__((unused)))
{
	return malloc(size > 0 ? size : 1);
}

static void *
v_realloc(void *ptr, size_t size, void *ctx __attribute__((unused)))
{
	return realloc(ptr, size > 0 ? size : 1);
}

static void
v_free(void *ptr, void *ctx __attribute__((unused)))
{
	free(ptr);
}

static const SbfAllocator alloc = {v_alloc, v_realloc, v_free, NULL, NULL};

static void
die(const char *what, SbfStatus st)
{
	fprintf(stderr, "kit_v5: %s: %s\n", what, sbf_status_message(st));
	exit(1);
}

/*
 * The hashes of spec_members' elements start + 1 .. start + n of one
 * prefix: text and bytea elements prefix || g (their UTF-8 bytes), bigint
 * elements prefix::bigint + g.
 */
static void
hashes(const char *typ, const char *prefix, int start, int n, uint64_t *h)
{
	int			g;

	for (g = start + 1; g <= start + n; g++)
	{
		char		s[64];

		if (strcmp(typ, "bigint") == 0)
			*h++ = sbf_hash_int64(strtoll(prefix, NULL, 10) + g);
		else
		{
			snprintf(s, sizeof(s), "%s%d", prefix, g);
			*h++ = sbf_hash(s, strlen(s));
		}
	}
}

/* A built value of the n hashes h (any order), the compact kind chosen or left out. */
static void
build(SbfFilter *f, const SbfParams *p, uint64_t *h, size_t n, bool compact)
{
	SbfKindOps	chosen = sbf_kind_compact_ops;
	unsigned	avoid = 0;
	unsigned	code;
	SbfStatus	st;

	sbf_hash_sort_all(h, n);
	chosen.choose_max_n = SBF_EF_MAX_N;
	for (code = 1; code < SBF_KIND_CODES; code++)
		if (compact ? code != SBF_KIND_COMPACT : code == SBF_KIND_COMPACT)
			avoid |= 1u << code;
	sbf_kind_test_row = compact ? &chosen : NULL;
	sbf_kind_test_avoid = avoid;
	st = sbf_build_sorted(f, p, h, n, p->error_rate * (1.0 - p->tightening), 0, 0,
						  &alloc);
	sbf_kind_test_row = NULL;
	sbf_kind_test_avoid = 0;
	if (st != SBF_OK)
		die("build", st);
}

/* Checks buf[0..len) with the server's rows and prints its line. */
static void
emit_bytes(int id, const char *what, const char *typ, const char *spec,
		   const uint8_t *buf, size_t len)
{
	SbfView		v;
	SbfStatus	st = sbf_validate(buf, len, &v);
	char	   *text;

	if (st != SBF_OK)
		die(what, st);
	if (v.version != SBF_FORMAT_V5)
		die(what, SBF_E_VERSION);
	text = malloc(sbf_text_size(len) + 1);
	sbf_text_encode(buf, len, text);
	printf("%d\t%s\t%s\t%s\t%s\n", id, what, typ, spec, text);
	free(text);
}

static void
emit(int id, const char *what, const char *typ, const char *spec, const SbfFilter *f)
{
	emit_bytes(id, what, typ, spec, SBF_PAYLOAD(f), f->len);
}

/*
 * A compact value (docs/format5.md, section 3) of n elements of one prefix
 * at e, capacity n, written by the form's writer (sbf_compact_write): b the
 * least with n / 2^b <= e, at least 10; growth and tightening as given;
 * the hashes' ranks above the cap listed (RANKS, sbf_compact_ranks).
 */
static void
compact_value(int id, const char *what, const char *typ, const char *prefix, int n,
			  double e, uint16_t growth, double r)
{
	SbfCompactParams p = {e, (uint64_t) n, growth, r, false, NULL};
	SbfCompactRanks rk;
	static uint64_t h[MAXN];
	uint8_t    *buf;
	size_t		len;
	char		spec[128];
	int			b;
	SbfStatus	st;

	hashes(typ, prefix, 0, n, h);
	st = sbf_compact_bits((uint64_t) n, e, SBF_HLL_P_DEFAULT, &b);
	sbf_compact_ranks(h, (uint64_t) n, b, &rk);
	p.ranks = &rk;
	if (st == SBF_OK)
		st = sbf_compact_size((uint64_t) n, b, &p, &len);
	if (st != SBF_OK)
		die(what, st);
	buf = malloc(len);
	st = sbf_compact_write(h, (uint64_t) n, b, &p, buf, len, &alloc);
	if (st != SBF_OK)
		die(what, st);
	snprintf(spec, sizeof(spec), "[[\"%s\", %d]]", prefix, n);
	emit_bytes(id, what, typ, spec, buf, len);
	free(buf);
}

/* A compact segment of n elements of one prefix: cases 1-3. */
static void
one(int id, const char *what, const char *typ, const char *prefix, int n, double e)
{
	SbfParams	p = {.capacity = 1000, .error_rate = e, .tightening = 0.9,
	.growth = 2, .hll_p = 9};
	static uint64_t h[MAXN];
	SbfFilter	f;
	char		spec[128];

	hashes(typ, prefix, 0, n, h);
	build(&f, &p, h, (size_t) n, true);
	snprintf(spec, sizeof(spec), "[[\"%s\", %d]]", prefix, n);
	emit(id, what, typ, spec, &f);
	sbf_filter_free(&f);
}

int
main(void)
{
	SbfParams	p = {.capacity = 1000, .error_rate = 0.01, .tightening = 0.9,
	.growth = 2, .hll_p = 9};
	static uint64_t h[MAXN];
	SbfFilter	f;
	SbfFilter	g;
	SbfView		v;
	bool		ins;
	int			i;

	one(1, "one compact segment of 30 text elements", "text", "c5a:", 30, 0.01);
	one(2, "one compact segment of one bigint", "bigint", "4242", 1, 0.01);
	one(3, "one compact segment of 700 bytea elements at 0.001", "bytea", "c5b:", 700, 0.001);

	/* 4: grown by single adds past the compact segment */
	hashes("text", "c5g:", 0, 600, h);
	build(&f, &p, h, 50, true);
	for (i = 50; i < 600; i++)
		if (sbf_add_hash(&f, h[i], &ins) != SBF_OK)
			die("add", SBF_E_PARAM);
	emit(4, "a compact segment of 50 grown by 550 single adds", "text",
		 "[[\"c5g:\", 600]]", &f);
	sbf_filter_free(&f);

	/* 5: a version-4 value united with a compact one */
	hashes("text", "c5u:", 0, 400, h);
	build(&f, &p, h, 400, false);
	hashes("text", "c5a:", 0, 30, h);
	build(&g, &p, h, 30, true);
	if (sbf_validate(SBF_PAYLOAD(&g), g.len, &v) != SBF_OK || sbf_union(&f, &v) != SBF_OK)
		die("union", SBF_E_PARAM);
	emit(5, "union of 400 text elements (version 4) and a compact segment of 30", "text",
		 "[[\"c5u:\", 400], [\"c5a:\", 30]]", &f);
	sbf_filter_free(&f);
	sbf_filter_free(&g);

	/* 6: two compact segments that overlap: 1..200 and 101..300 */
	hashes("text", "c5o:", 0, 200, h);
	build(&f, &p, h, 200, true);
	hashes("text", "c5o:", 100, 200, h);
	build(&g, &p, h, 200, true);
	if (sbf_validate(SBF_PAYLOAD(&g), g.len, &v) != SBF_OK || sbf_union(&f, &v) != SBF_OK)
		die("union", SBF_E_PARAM);
	emit(6, "union of two overlapping compact segments of 200 text elements", "text",
		 "[[\"c5o:\", 300]]", &f);
	sbf_filter_free(&f);
	sbf_filter_free(&g);

	/* 7-11: the compact form */
	compact_value(7, "compact value of 30 text elements", "text", "c5v:", 30, 0.01, 2, 0.9);
	compact_value(8, "compact value of one bigint", "bigint", "5151", 1, 0.01, 2, 0.9);
	compact_value(9, "compact value of 700 bytea elements at 0.001, growth 3, tightening 0.8",
				  "bytea", "c5w:", 700, 0.001, 3, 0.8);
	compact_value(10, "compact value of 3000 text elements", "text", "c5x:", 3000, 0.01, 2, 0.9);
	compact_value(11, "compact value of 6000 text elements", "text", "c5y:", 6000, 0.01, 2, 0.9);
	return 0;
}
