/*
 * fuzz_hashset.c
 *	  libFuzzer target for the sorted hash set (src/core/sbf_hashset.h).
 *	  The first byte picks what the rest is:
 *	  0: sbf_hashset bytes.  Whatever the validator accepts decodes to
 *	     strictly ascending hashes, loads, re-encodes to bytes the validator
 *	     accepts again with the same hashes, and builds a filter.
 *	  1: an engine script: a threshold byte, then 3-byte hashes (few bits,
 *	     so repeats are common) split between two sets by a flag bit.  The
 *	     union of the two equals the set of all of them, and, unless it
 *	     streamed, a plain sort-and-dedup of the input.
 *	  2: sbf_agg's 1.0 partial state: the reader never crashes, and what it
 *	     accepts writes back to the same bytes.
 *	  Allocations above FUZZ_ALLOC_LIMIT fail, so those paths run too.
 */
#include <string.h>

#include "fuzz_common.h"
#include "sbf_hashset.h"

/* qsort comparator for uint64_t. */
static int
fuzz_cmp64(const void *pa, const void *pb)
{
	uint64_t	a = *(const uint64_t *) pa;
	uint64_t	b = *(const uint64_t *) pb;

	return (a > b) - (a < b);
}

/* Mode 0: validate, decode, load, re-encode. */
static void
fuzz_hs_bytes(const uint8_t *data, size_t size)
{
	SbfHsView	v;
	SbfHashSet	s;
	SbfParams	p = {1000, 0.01, 0.9, 2, 9};
	SbfHsError	herr;
	SbfStatus	loaded;
	uint64_t   *dec;
	uint64_t	i;
	size_t		esize;

	if (sbf_hs_validate(data, size, &v) != SBF_HS_OK)
		return;
	if (!(v.flags & SBF_HS_FLAG_FILTER))
	{
		FUZZ_ASSERT(v.count <= size * 8);
		dec = malloc((v.count + 1) * sizeof(uint64_t));
		sbf_hs_decode(&v, dec);
		for (i = 1; i < v.count; i++)
			FUZZ_ASSERT(dec[i - 1] < dec[i]);
	}
	else
		dec = NULL;
	sbf_hs_init(&s, &fuzz_allocator, &p, 0);
	loaded = sbf_hs_load(&s, &v, &herr);
	FUZZ_ASSERT(herr == SBF_HS_OK);	/* validated: the decode accepts it too */
	if (loaded == SBF_OK &&
		sbf_hs_encoded_size(&s, (v.flags & SBF_HS_FLAG_RATE) != 0, SIZE_MAX, &esize) == SBF_OK)
	{
		uint8_t    *out = malloc(esize);
		SbfHsView	w;
		SbfFilter	f;

		sbf_hs_encode(&s, (v.flags & SBF_HS_FLAG_RATE) != 0, out, esize);
		FUZZ_ASSERT(sbf_hs_validate(out, esize, &w) == SBF_HS_OK);
		FUZZ_ASSERT(w.count == v.count && w.flags == v.flags);
		if (dec != NULL && v.count > 0)
		{
			uint64_t   *dec2 = malloc(v.count * sizeof(uint64_t));

			sbf_hs_decode(&w, dec2);
			FUZZ_ASSERT(memcmp(dec, dec2, v.count * sizeof(uint64_t)) == 0);
			free(dec2);
		}
		if (sbf_hs_build(&s, &p, 0, &fuzz_allocator, &f) == SBF_OK)
		{
			SbfView		fv;

			FUZZ_ASSERT(sbf_validate(SBF_PAYLOAD(&f), f.len, &fv) == SBF_OK);
			for (i = 0; dec != NULL && i < v.count; i++)
				FUZZ_ASSERT(sbf_contains_hash(&fv, dec[i]));
			sbf_filter_free(&f);
		}
		free(out);
	}
	sbf_hs_free(&s);
	free(dec);
}

/* Mode 1: an engine script against a plain sort-and-dedup. */
static void
fuzz_hs_engine(const uint8_t *data, size_t size)
{
	SbfParams	p = {1000, 0.01, 0.9, 2, 9};
	SbfHsScratch sc = {NULL, 0, NULL, &fuzz_allocator};
	SbfHashSet	a;
	SbfHashSet	b;
	uint64_t	threshold;
	uint64_t   *all;
	size_t		n = 0;
	size_t		i;
	SbfStatus	st = SBF_OK;

	if (size < 1)
		return;
	threshold = data[0] < 128 ? 0 : (uint64_t) (data[0] - 127) * 4;
	data++;
	size--;
	all = malloc((size / 3 + 1) * sizeof(uint64_t));
	sbf_hs_init(&a, &fuzz_allocator, &p, threshold);
	sbf_hs_init(&b, &fuzz_allocator, &p, threshold);
	for (i = 0; i + 3 <= size && st == SBF_OK; i += 3)
	{
		uint32_t	x = data[i] | (data[i + 1] << 8) | ((uint32_t) data[i + 2] << 16);
		uint64_t	h = sbf_mix64(x >> 1);

		all[n++] = h;
		st = sbf_hs_add((x & 1) ? &a : &b, h, (i & 3) ? &sc : NULL);
	}
	if (st == SBF_OK)
		st = sbf_hs_union(&a, &b);
	if (st == SBF_OK)
		st = sbf_hs_flush(&a, NULL);
	if (st == SBF_OK)
	{
		size_t		k = 0;

		qsort(all, n, sizeof(uint64_t), fuzz_cmp64);
		for (i = 0; i < n; i++)
			if (k == 0 || all[i] != all[k - 1])
				all[k++] = all[i];
		if (!a.streaming)
		{
			FUZZ_ASSERT(a.nset == k);
			FUZZ_ASSERT(k == 0 || memcmp(a.set, all, k * sizeof(uint64_t)) == 0);
			FUZZ_ASSERT(threshold == 0 || k <= threshold);
		}
		else
		{
			SbfView		v;

			FUZZ_ASSERT(threshold != 0 && k > threshold);
			sbf_filter_view(&a.stream, &v);
			for (i = 0; i < k; i++)
				FUZZ_ASSERT(sbf_contains_hash(&v, all[i]));
		}
	}
	else
		FUZZ_ASSERT(st == SBF_E_NOMEM);
	sbf_hs_free(&a);
	sbf_hs_free(&b);
	sbf_hs_scratch_free(&sc);
	free(all);
}

/* Mode 2: the 1.0 partial-state reader. */
static void
fuzz_hs_v1state(const uint8_t *data, size_t size)
{
	SbfParams	p = {1000, 0.01, 0.9, 2, 9};
	SbfHashSet	s;
	SbfStatus	st;
	size_t		out_size;

	sbf_hs_init(&s, &fuzz_allocator, &p, SBF_HS_AGG_THRESHOLD);
	if (sbf_hs_v1state_read(&s, data, size, &st) == SBF_HS_OK && st == SBF_OK &&
		sbf_hs_v1state_size(&s, &out_size) == SBF_OK)
	{
		uint8_t    *out = malloc(out_size);

		sbf_hs_v1state_write(&s, out);
		FUZZ_ASSERT(out_size == size && memcmp(out, data, size) == 0);
		free(out);
	}
	sbf_hs_free(&s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long		live = fuzz_live;

	if (size < 1)
		return 0;
	if (data[0] % 3 == 0)
		fuzz_hs_bytes(data + 1, size - 1);
	else if (data[0] % 3 == 1)
		fuzz_hs_engine(data + 1, size - 1);
	else
		fuzz_hs_v1state(data + 1, size - 1);
	FUZZ_ASSERT(fuzz_live == live);
	return 0;
}
