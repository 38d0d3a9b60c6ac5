/*
 * core_driver.c
 *	  One fixed workload through the core's main paths, for comparing two
 *	  builds of the core by instruction count (core_driver_ab.sh): for
 *	  300, 3,000 and 200,000 hashes, the one builder from sorted hashes,
 *	  the validator, batched and single probes of members and non-members,
 *	  the directory count and expected rate, adds that grow a copy, and a
 *	  union.  Prints the number of hits and the sum of the counts, which
 *	  two builds that change no answer print alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_union.h"
#include "sbf_internal.h"
#include "bench_util.h"

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* one size's workload: adds its hits to *found and its counts to *acc */
static int
run_size(size_t n, int t, const SbfAllocator *al, size_t *found, double *acc)
{
	SbfParams	p = {.capacity = 1000,.error_rate = 0.01,.growth = 2,
	.tightening = 0.9,.hll_p = 12};
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t   *q = malloc(n * sizeof(uint64_t));
	SbfFilter	f;
	SbfFilter	g;
	SbfView		v;
	SbfView		w;
	size_t		i;
	int			r;

	if (h == NULL || q == NULL)
		return 1;
	for (i = 0; i < n; i++)
	{
		h[i] = sbf_hash_int64((int64_t) i + t * 1000000);
		q[i] = sbf_hash_int64(-(int64_t) i - 1);
	}
	qsort(h, n, sizeof(uint64_t), cmp_u64);
	if (sbf_build_sorted(&f, &p, h, n, 0.0083, 0, 0, al) != SBF_OK ||
		sbf_validate(SBF_PAYLOAD(&f), f.len, &v) != SBF_OK)
		return 1;
	for (r = 0; r < 20; r++)
		*found += sbf_count_contained(&v, h, n) + sbf_count_contained(&v, q, n);
	for (i = 0; i < n; i++)
		*found += sbf_contains_hash(&v, q[i]);
	*acc += sbf_directory_count(&v) + sbf_expected_fpr(&v);
	if (sbf_copy(&g, &v, 0, 0, al) != SBF_OK)
		return 1;
	for (i = 0; i < n; i++)
		sbf_add_hash(&g, q[i], NULL);
	if (sbf_validate(SBF_PAYLOAD(&g), g.len, &w) != SBF_OK ||
		sbf_union(&f, &w) != SBF_OK)
		return 1;
	sbf_filter_view(&f, &v);
	*acc += sbf_directory_count(&v);
	for (r = 0; r < 5; r++)
		*found += sbf_count_contained(&v, q, n);
	sbf_filter_free(&f);
	sbf_filter_free(&g);
	free(h);
	free(q);
	return 0;
}

int
main(void)
{
	static const size_t ns[] = {300, 3000, 200000};
	size_t		found = 0;
	double		acc = 0.0;
	int			t;

	for (t = 0; t < 3; t++)
		if (run_size(ns[t], t, &bench_allocator, &found, &acc) != 0)
		{
			printf("failed at %zu\n", ns[t]);
			return 1;
		}
	printf("%zu %.6f\n", found, acc);
	return 0;
}
