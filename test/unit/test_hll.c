/*
 * test_hll.c
 *	  Unit tests of the embedded HyperLogLog: folding to a lower precision, the canonical
 *	  sparse form, and accuracy
 *	  (sbf_hll.c).  Prints "ok - name" or "not ok - name" per case and one final
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
#include "sbf_plain.h"
#include "sbf_union.h"
#include "sbf_hashset.h"
#include "sbf_internal.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

/* Registers of hash h at precision p, computed directly (reference). */
static void
ref_add(uint8_t *regs, int p, uint64_t h)
{
	uint64_t	w = h >> p;
	uint32_t	idx = (uint32_t) (h & ((UINT64_C(1) << p) - 1));
	uint8_t		rho = (uint8_t) (w == 0 ? 65 - p : __builtin_ctzll(w) + 1);

	if (rho > regs[idx])
		regs[idx] = rho;
}

/* Folding to a lower precision equals computing at that precision. */
static void
hll_fold_exact(void)
{
	static uint8_t hi[1 << 14];
	static uint8_t lo[1 << 14];
	static uint8_t folded[1 << 14];
	static const uint64_t ns[] = {5, 300, 5000, 200000};
	size_t		ni;
	int			q;
	uint64_t	i;

	for (ni = 0; ni < 4; ni++)
	{
		memset(hi, 0, sizeof(hi));
		for (i = 0; i < ns[ni]; i++)
			ref_add(hi, 14, key(5, i));
		/* a hash with w == 0 at p = 14 exercises the saturated rho */
		ref_add(hi, 14, UINT64_C(0x1234));
		for (q = 4; q <= 14; q++)
		{
			memset(lo, 0, sizeof(lo));
			for (i = 0; i < ns[ni]; i++)
				ref_add(lo, q, key(5, i));
			ref_add(lo, q, UINT64_C(0x1234));
			sbf_hll_fold(hi, 14, q, folded);
			CHECK(memcmp(lo, folded, (size_t) 1 << q) == 0);
		}
	}

	/* and through the public union: p 12 folded into an empty p 8 */
	{
		SbfParams	p12 = params(1000, 0.01, 2, 0.9, 12);
		SbfParams	p8 = params(1000, 0.01, 2, 0.9, 8);
		SbfFilter	a;
		SbfFilter	b;
		SbfFilter	c;
		SbfView		va;
		SbfView		vb;

		CHECK_ST(seg_create(&a, &p12, 0, &g_alloc), SBF_OK);
		CHECK_ST(seg_create(&b, &p8, 0, &g_alloc), SBF_OK);
		CHECK_ST(seg_create(&c, &p8, 0, &g_alloc), SBF_OK);
		for (i = 0; i < 3000; i++)
		{
			CHECK_ST(sbf_hll_add_hash(&a, key(6, i)), SBF_OK);
			CHECK_ST(sbf_hll_add_hash(&c, key(6, i)), SBF_OK);
		}
		CHECK_ST(validate_filter(&a, &va), SBF_OK);
		CHECK_ST(sbf_union(&b, &va), SBF_OK);
		CHECK_ST(validate_filter(&b, &vb), SBF_OK);
		/* a union writes format 4: c relabelled is what it must equal */
		CHECK_ST(sbf_filter_relabel4(&c), SBF_OK);
		CHECK(b.len == c.len && memcmp(SBF_PAYLOAD(&b), SBF_PAYLOAD(&c), b.len) == 0);
		/* a dense p 12 folded all the way down to p 4 */
		sbf_filter_free(&b);
		sbf_filter_free(&c);
		{
			SbfParams	p4 = params(1000, 0.01, 2, 0.9, 4);
			SbfFilter	d;
			SbfView		vd;

			CHECK(va.flags & SBF_FLAG_HLL_DENSE);
			CHECK_ST(seg_create(&d, &p4, 0, &g_alloc), SBF_OK);
			CHECK_ST(sbf_union(&d, &va), SBF_OK);
			CHECK_ST(validate_filter(&d, &vd), SBF_OK);
			CHECK(vd.hll_p == 4 && (vd.flags & SBF_FLAG_HLL_DENSE));
			CHECK(vd.hll_bytes == SBF_HLL_DENSE_BYTES(4));
			sbf_filter_free(&d);
		}
		sbf_filter_free(&a);
	}
}

/* The sparse/dense choice is a function of the register state only. */
static void
hll_canonical(void)
{
	SbfParams	p = params(1000, 0.01, 2, 0.9, 8);
	SbfFilter	a;
	SbfFilter	b;
	SbfView		v;
	uint64_t	i;
	size_t		nonzero;
	static uint8_t regs[1 << 8];

	CHECK_ST(seg_create(&a, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&b, &p, 0, &g_alloc), SBF_OK);
	memset(regs, 0, sizeof(regs));
	for (i = 0; i < 400; i++)
	{
		CHECK_ST(sbf_hll_add_hash(&a, key(8, i)), SBF_OK);
		ref_add(regs, 8, key(8, i));
		CHECK_ST(validate_filter(&a, &v), SBF_OK);
		nonzero = 0;
		for (size_t j = 0; j < 256; j++)
			nonzero += regs[j] != 0;
		CHECK(((v.flags & SBF_FLAG_HLL_DENSE) != 0) == (nonzero > SBF_HLL_SPARSE_MAX(8)));
		CHECK(v.hll_bytes == (nonzero > SBF_HLL_SPARSE_MAX(8) ?
							  SBF_HLL_DENSE_BYTES(8) : nonzero * 4));
	}
	/* reverse order gives the same bytes */
	for (i = 400; i-- > 0;)
		CHECK_ST(sbf_hll_add_hash(&b, key(8, i)), SBF_OK);
	CHECK(a.len == b.len && memcmp(SBF_PAYLOAD(&a), SBF_PAYLOAD(&b), a.len) == 0);
	sbf_filter_free(&a);
	sbf_filter_free(&b);
}

/* Estimates stay within 3 standard errors (1.04/sqrt(m)) from 10 to 1e6. */
static void
hll_accuracy(void)
{
	static const uint8_t ps[] = {6, 9, 12, 14};
	static const uint64_t checkpoints[] = {10, 100, 1000, 10000, 100000, 1000000};
	size_t		pi;

	for (pi = 0; pi < sizeof(ps); pi++)
	{
		SbfParams	p = params(1000, 0.01, 2, 0.9, ps[pi]);
		SbfFilter	f;
		SbfView		v;
		uint64_t	n = 0;
		size_t		ci;
		double		tol = 3 * 1.04 / sqrt((double) (1 << ps[pi]));

		CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
		sbf_filter_view(&f, &v);
		CHECK(sbf_hll_cardinality(&v) == 0.0);
		for (ci = 0; ci < 6; ci++)
		{
			double		est;

			for (; n < checkpoints[ci]; n++)
				CHECK_ST(sbf_hll_add_hash(&f, key(9 + (int) pi, n)), SBF_OK);
			CHECK_ST(validate_filter(&f, &v), SBF_OK);
			est = sbf_hll_cardinality(&v);
			if (fabs(est - (double) n) > tol * (double) n)
			{
				fprintf(stderr, "  p=%u n=%" PRIu64 " estimate %.1f\n",
						ps[pi], n, est);
				case_ok = false;
			}
		}
		sbf_filter_free(&f);
	}
}

int
main(void)
{
	RUN(hll_fold_exact);
	RUN(hll_canonical);
	RUN(hll_accuracy);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
