/*
 * compact_add_ab.c
 *	  The compact form's hot loops outside a lookup, for compact_add_ab.sh:
 *	  the Elias-Fano code decoded from its bytes (sbf_ef_decode_bytes: what
 *	  an add in place, a union of compact values and the plan of a compact
 *	  segment run) in ns a fingerprint, and one add of a new element to a
 *	  compact value that sbf_agg's final wrote (a copy, the add, the copy
 *	  freed: what sbf_add(f, element) does to a stored value) in ns an add,
 *	  with how many of the adds were taken in place and a digest of the
 *	  decoded fingerprints (the same in two builds that decode alike).
 *	  Thread CPU time, medians of 5 runs; never a pass/fail test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_efset.h"
#include "sbf_hash_sort.h"
#include "sbf_internal.h"
#include "sbf_plain.h"
#include "bench_util.h"

#define RUNS	5

/* ns a fingerprint of decoding n distinct b-bit fingerprints from bytes. */
static void
decode(uint64_t n, int b, uint64_t reps)
{
	uint64_t   *fp = malloc(n * sizeof(uint64_t));
	uint64_t   *out = malloc(n * sizeof(uint64_t));
	uint64_t	m = 1;
	uint64_t	i;
	double		t[RUNS];
	SbfEfShape	s;
	uint8_t    *buf;
	int			r;

	for (i = 0; i < n; i++)
		fp[i] = sbf_hash_int64((int64_t) i) >> (64 - b);
	sbf_hash_sort_all(fp, (size_t) n);
	for (i = 1; i < n; i++)
		if (fp[i] != fp[m - 1])
			fp[m++] = fp[i];
	if (sbf_ef_shape(m, b, &s) != SBF_OK)
		abort();
	buf = calloc(1, (size_t) sbf_ef_bytes(&s));
	sbf_ef_write(&s, fp, buf);
	for (r = 0; r < RUNS; r++)
	{
		double		t0 = bench_cpu_now();
		uint64_t	k;

		for (k = 0; k < reps; k++)
			sbf_ef_decode_bytes(&s, buf, out);
		t[r] = (bench_cpu_now() - t0) * 1e9 / (double) (reps * m);
	}
	printf("decode: n %llu b %d L %d %.2f ns a fingerprint (digest %016llx)\n",
		   (unsigned long long) m, b, s.L, bench_median(t, RUNS),
		   (unsigned long long) bench_digest((const uint8_t *) out, m * sizeof(uint64_t)));
	free(buf);
	free(fp);
	free(out);
}

/* ns an add of a new element to a compact value of n elements at 1%. */
static void
add(uint64_t n, uint64_t calls)
{
	SbfParams	p = {0};
	SbfFilter	f;
	SbfView		v;
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t	i;
	uint64_t	in_place = 0;
	double		t[RUNS];
	int			r;

	p.capacity = 1000;
	p.error_rate = 0.01;
	p.growth = 2;
	p.tightening = 0.9;
	p.hll_p = SBF_HLL_P_DEFAULT;
	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64((int64_t) i);
	sbf_hash_sort_all(h, (size_t) n);
	if (sbf_build_final(&f, &p, h, (size_t) n, 4, &bench_allocator) != SBF_OK ||
		sbf_validate(f.base + f.prefix, f.len, &v) != SBF_OK)
		abort();
	for (r = 0; r < RUNS; r++)
	{
		double		t0 = bench_cpu_now();

		in_place = 0;
		for (i = 0; i < calls; i++)
		{
			SbfFilter	g;
			bool		ins;

			if (sbf_copy(&g, &v, 0, 0, &bench_allocator) != SBF_OK ||
				sbf_add_hash(&g, sbf_hash_int64((int64_t) (1000000 + i)), &ins) != SBF_OK)
				abort();
			in_place += g.len < 2 * f.len;
			sbf_filter_free(&g);
		}
		t[r] = (bench_cpu_now() - t0) * 1e9 / (double) calls;
	}
	printf("add: n %llu (%zu bytes) %.0f ns an add (%llu of %llu kept compact-sized)\n",
		   (unsigned long long) n, f.len, bench_median(t, RUNS), (unsigned long long) in_place,
		   (unsigned long long) calls);
	sbf_filter_free(&f);
	free(h);
}

int
main(void)
{
	decode(30, 12, 200000);
	decode(300, 17, 20000);
	decode(3000, 22, 2000);
	decode(4096, 30, 2000);
	decode(1000, 63, 5000);
	add(100, 20000);
	add(3000, 5000);
	return 0;
}
