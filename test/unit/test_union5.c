/*
 * test_union5.c
 *	  Unit tests of union canonicity with the exact form (sbf_union_many.c,
 *	  union_canonical): f || e with e exact is in a union's canonical order,
 *	  the same in every argument order, and a union with itself, with e or
 *	  with f keeps its bytes; a union of two segmented values is canonical
 *	  and a fixed point; a union of copies of a grown value (segments out
 *	  of the canonical order) is that value.
 *	  Deterministic keys.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_union.h"
#include "sbf_internal.h"
#include "sbf_dir.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

#define UT_N		5000		/* keys of the built value */

/* f := sbf_agg's value of keys [0, n) of space 0 (one built segment). */
static void
built(SbfFilter *f, uint64_t n)
{
	SbfParams	sp = params(1000, 0.01, 2, 0.9, 9);
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t	i;

	for (i = 0; i < n; i++)
		h[i] = key(0, i);
	qsort(h, n, sizeof(uint64_t), unit_cmp_u64);
	CHECK_ST(sbf_build_final(f, &sp, h, n, 0, &g_alloc), SBF_OK);
	free(h);
}

/* out := the union of n filters in the given order. */
static SbfStatus
union_of(SbfFilter *out, SbfFilter *const *f, uint32_t n)
{
	SbfUnionSpec spec = {0.0, true, false};
	SbfView		v[4];
	uint32_t	i;

	for (i = 0; i < n; i++)
	{
		SbfStatus	st = validate_filter(f[i], &v[i]);

		if (st != SBF_OK)
			return st;
	}
	return sbf_union_many(out, v, n, &spec, NULL, 0, &g_alloc);
}

/* Capacities of f's segments in directory order; returns their number. */
static uint32_t
capacities(const SbfFilter *f, uint64_t *cap, uint32_t max)
{
	SbfView		v;
	SbfDirIter	it;
	SbfDirEntry e;
	uint32_t	n = 0;

	if (validate_filter(f, &v) != SBF_OK)
		return 0;
	sbf_dir_view(&it, &v);
	while (sbf_dir_next(&it, &e) && n < max)
		cap[n++] = e.capacity;
	return n;
}

/* Every key [from, to) of space is in f. */
static bool
has_keys(const SbfFilter *f, int space, uint64_t from, uint64_t to)
{
	SbfView		v;
	uint64_t	i;

	if (validate_filter(f, &v) != SBF_OK)
		return false;
	for (i = from; i < to; i++)
		if (!sbf_contains_hash(&v, key(space, i)))
			return false;
	return true;
}

/* The flags byte of f. */
static uint8_t
flags_of(const SbfFilter *f)
{
	SbfView		v;

	return validate_filter(f, &v) == SBF_OK ? v.flags : 0xff;
}

/*
 * f || e, e in the exact form: e's hashes are added to f (a series of
 * adds), then the result is put in a union's canonical order; e || f gives
 * the same bytes, and (f || e) || (f || e) keeps them, with every key and
 * the directory counts.
 */
static void
union5_exact(void)
{
	SbfParams	sp = params(1000, 0.01, 2, 0.9, 9);
	SbfFilter	f, e, fe, ef, r;
	SbfFilter  *in[2];
	SbfView		v;
	uint64_t	cap[4];

	built(&f, UT_N);
	CHECK_ST(sbf_create(&e, &sp, 0, &g_alloc), SBF_OK);
	add_keys(&e, 1, 0, 2);
	CHECK(validate_filter(&e, &v) == SBF_OK && sbf_is_exact(&v));
	in[0] = &f; in[1] = &e;
	CHECK_ST(union_of(&fe, in, 2), SBF_OK);
	in[0] = &e; in[1] = &f;
	CHECK_ST(union_of(&ef, in, 2), SBF_OK);
	CHECK(same_bytes(&fe, &ef));
	CHECK(has_keys(&fe, 0, 0, UT_N) && has_keys(&fe, 1, 0, 2));
	/* the canonical order of a union (capacity first), the directory counts kept */
	CHECK(capacities(&fe, cap, 4) == 2 && cap[0] < cap[1]);
	CHECK((flags_of(&fe) & SBF_FLAG_OVERLAP) == 0);
	in[0] = &fe; in[1] = &fe;
	CHECK_ST(union_of(&r, in, 2), SBF_OK);
	CHECK(same_bytes(&r, &fe));
	CHECK((flags_of(&r) & SBF_FLAG_OVERLAP) == (flags_of(&fe) & SBF_FLAG_OVERLAP));
	sbf_filter_free(&r);
	/* the canonical order itself keeps them (one input: no copies) */
	CHECK_ST(union_of(&r, in, 1), SBF_OK);
	CHECK(same_bytes(&r, &fe));
	sbf_filter_free(&r);
	/* the union with e again, or with f, keeps the bytes too */
	in[0] = &fe; in[1] = &e;
	CHECK_ST(union_of(&r, in, 2), SBF_OK);
	CHECK(same_bytes(&r, &fe));
	sbf_filter_free(&r);
	in[0] = &f; in[1] = &fe;
	CHECK_ST(union_of(&r, in, 2), SBF_OK);
	CHECK(same_bytes(&r, &fe));
	sbf_filter_free(&r);
	sbf_filter_free(&f);
	sbf_filter_free(&e);
	sbf_filter_free(&fe);
	sbf_filter_free(&ef);
}

/*
 * A union that is no input's set of segments is in the canonical order
 * (capacity ascending first), in every argument order.
 */
static void
union5_canonical(void)
{
	SbfFilter	fa, g, r1, r2;
	SbfFilter  *in[2];
	uint64_t	cap[8];
	uint32_t	n, i;

	built(&fa, UT_N);
	add_keys(&fa, 1, 0, 3);
	built(&g, 300);
	in[0] = &fa; in[1] = &g;
	CHECK_ST(union_of(&r1, in, 2), SBF_OK);
	in[0] = &g; in[1] = &fa;
	CHECK_ST(union_of(&r2, in, 2), SBF_OK);
	CHECK(same_bytes(&r1, &r2));
	n = capacities(&r1, cap, 8);
	CHECK(n == 3);
	for (i = 1; i < n; i++)
		CHECK(cap[i - 1] <= cap[i]);
	CHECK(has_keys(&r1, 0, 0, UT_N) && has_keys(&r1, 1, 0, 3));
	/* and it is a fixed point of the canonical order (one input: no copies) */
	in[0] = &r1;
	sbf_filter_free(&r2);
	CHECK_ST(union_of(&r2, in, 1), SBF_OK);
	CHECK(same_bytes(&r1, &r2));
	sbf_filter_free(&r1);
	sbf_filter_free(&r2);
	sbf_filter_free(&fa);
	sbf_filter_free(&g);
}

/*
 * fa = a built value grown by adds: the add appends a segment smaller than
 * the built one, out of a union's canonical order.  fa || fa (and a union
 * of three copies) is fa byte for byte; the one-input union puts it in the
 * canonical order (the same set); fa || g with g != fa is canonical; a
 * union given another error_rate is no union of copies.
 */
static void
union5_copies(void)
{
	SbfUnionSpec spec = {0.02, true, false};
	SbfFilter	fa, fb, g, r, c;
	SbfFilter  *in[3];
	SbfView		v[2];
	uint64_t	cap[8];

	built(&fa, UT_N);
	add_keys(&fa, 1, 0, 3);
	CHECK(capacities(&fa, cap, 8) == 2 && cap[0] > cap[1]);
	in[0] = &fa; in[1] = &fa; in[2] = &fa;
	CHECK_ST(union_of(&r, in, 2), SBF_OK);
	CHECK(same_bytes(&r, &fa));
	sbf_filter_free(&r);
	CHECK_ST(union_of(&r, in, 3), SBF_OK);
	CHECK(same_bytes(&r, &fa));
	sbf_filter_free(&r);
	/* an equal copy built the same way, not the same buffer */
	built(&fb, UT_N);
	add_keys(&fb, 1, 0, 3);
	in[1] = &fb;
	CHECK_ST(union_of(&r, in, 2), SBF_OK);
	CHECK(same_bytes(&r, &fa));
	sbf_filter_free(&r);
	/* the canonical form: capacity ascending, every key, a fixed point */
	CHECK_ST(union_of(&c, in, 1), SBF_OK);
	CHECK(!same_bytes(&c, &fa));
	CHECK(capacities(&c, cap, 8) == 2 && cap[0] < cap[1]);
	CHECK(has_keys(&c, 0, 0, UT_N) && has_keys(&c, 1, 0, 3));
	/* fa || g: no copies, canonical, the same as c || g */
	built(&g, 300);
	in[1] = &g;
	CHECK_ST(union_of(&r, in, 2), SBF_OK);
	sbf_filter_free(&fb);
	in[0] = &c;
	CHECK_ST(union_of(&fb, in, 2), SBF_OK);
	CHECK(same_bytes(&r, &fb));
	sbf_filter_free(&r);
	sbf_filter_free(&fb);
	/* another error_rate: the full union, canonical */
	CHECK(validate_filter(&fa, &v[0]) == SBF_OK);
	v[1] = v[0];
	CHECK_ST(sbf_union_many(&r, v, 2, &spec, NULL, 0, &g_alloc), SBF_OK);
	CHECK(!same_bytes(&r, &fa));
	CHECK(capacities(&r, cap, 8) == 2 && cap[0] < cap[1]);
	sbf_filter_free(&r);
	sbf_filter_free(&c);
	sbf_filter_free(&g);
	sbf_filter_free(&fa);
}

int
main(void)
{
	RUN(union5_exact);
	RUN(union5_canonical);
	RUN(union5_copies);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
