/*
 * fuzz_hashset.c
 *	  libFuzzer target for the sorted hash set (src/core/hashset/sbf_hashset.h).
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
 *	  3: two crafted sbf_hashset values united while they are decoded
 *	     (sbf_hs_merge_coded, what sbf_hashset_union and every combine do):
 *	     see fuzz_hs_pair.
 *	  Allocations above FUZZ_ALLOC_LIMIT fail, so those paths run too.  It
 *	  is 64 MB here, and the Makefile allows inputs of 1 MB for this target:
 *	  dense crafted sets (2 bits a hash) decode to 32 times their size, and
 *	  the sizes where unions of such sets misbehaved must be reachable.
 */
#include <string.h>

#define FUZZ_ALLOC_LIMIT	((size_t) 64 << 20)
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
	SbfHsScratch sc = {NULL, 0, NULL, &fuzz_allocator, 0};
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

/* A decoding of a validated hash set, or NULL for an empty one. */
static uint64_t *
fuzz_decode(const SbfHsView *v)
{
	uint64_t   *out = malloc((v->count + 1) * sizeof(uint64_t));

	sbf_hs_decode(v, out);
	return out;
}

/*
 * Mode 3: a threshold byte (>= 128: the destination streams past
 * (b - 127) * 4 hashes), two bytes giving the first value's length, then two
 * sbf_hashset values.  Both are merged while decoded into one set, the first
 * into an empty one.  Each merge reports exactly the validator's error for
 * a malformed value; when both are valid the set is the sort-and-dedup of
 * both decodings (or, streamed, a filter that has all of them); otherwise
 * an allocation failed.
 */
static void
fuzz_hs_pair(const uint8_t *data, size_t size)
{
	SbfParams	p = {1000, 0.01, 0.9, 2, 9};
	SbfHsView	va;
	SbfHsView	vb;
	SbfHsView	w;
	SbfHsError	ea = SBF_HS_OK;
	SbfHsError	eb = SBF_HS_OK;
	SbfHashSet	s;
	SbfStatus	st;
	uint64_t	threshold;
	size_t		la;
	const uint8_t *a;
	const uint8_t *b;
	size_t		lb;

	if (size < 3)
		return;
	threshold = data[0] < 128 ? 0 : (uint64_t) (data[0] - 127) * 4;
	la = (size_t) data[1] | ((size_t) data[2] << 8);
	if (la > size - 3)
		la = size - 3;
	a = data + 3;
	b = a + la;
	lb = size - 3 - la;
	if (sbf_hs_parse(a, la, &va) != SBF_HS_OK || sbf_hs_parse(b, lb, &vb) != SBF_HS_OK ||
		((va.flags | vb.flags) & SBF_HS_FLAG_FILTER))
		return;
	sbf_hs_init(&s, &fuzz_allocator, &p, threshold);
	st = sbf_hs_merge_coded(&s, &va, &ea);
	FUZZ_ASSERT(ea == sbf_hs_validate(a, la, &w) || st != SBF_OK);
	if (st == SBF_OK && ea == SBF_HS_OK)
	{
		st = sbf_hs_merge_coded(&s, &vb, &eb);
		FUZZ_ASSERT(eb == sbf_hs_validate(b, lb, &w) || st != SBF_OK);
	}
	if (st == SBF_OK && ea == SBF_HS_OK && eb == SBF_HS_OK)
		st = sbf_hs_flush(&s, NULL);
	if (st == SBF_OK && ea == SBF_HS_OK && eb == SBF_HS_OK)
	{
		uint64_t   *da = fuzz_decode(&va);
		uint64_t   *db = fuzz_decode(&vb);
		uint64_t   *all = malloc((va.count + vb.count + 1) * sizeof(uint64_t));
		uint64_t	i;
		uint64_t	j = 0;
		uint64_t	k = 0;

		/* the union of two sorted runs */
		for (i = 0; i < va.count || j < vb.count;)
		{
			uint64_t	x = (i < va.count && (j >= vb.count || da[i] <= db[j])) ? da[i] : db[j];

			i += i < va.count && da[i] == x;
			j += j < vb.count && db[j] == x;
			all[k++] = x;
		}
		if (!s.streaming)
		{
			FUZZ_ASSERT(s.nset == k);
			FUZZ_ASSERT(k == 0 || memcmp(s.set, all, k * sizeof(uint64_t)) == 0);
		}
		else
		{
			SbfView		fv;

			FUZZ_ASSERT(threshold != 0 && k > threshold);
			sbf_filter_view(&s.stream, &fv);
			for (i = 0; i < k; i++)
				FUZZ_ASSERT(sbf_contains_hash(&fv, all[i]));
		}
		free(da);
		free(db);
		free(all);
	}
	else if (ea == SBF_HS_OK && eb == SBF_HS_OK)
		FUZZ_ASSERT(st == SBF_E_NOMEM);
	sbf_hs_free(&s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long		live = fuzz_live;

	if (size < 1)
		return 0;
	if (data[0] % 4 == 0)
		fuzz_hs_bytes(data + 1, size - 1);
	else if (data[0] % 4 == 1)
		fuzz_hs_engine(data + 1, size - 1);
	else if (data[0] % 4 == 2)
		fuzz_hs_v1state(data + 1, size - 1);
	else
		fuzz_hs_pair(data + 1, size - 1);
	FUZZ_ASSERT(fuzz_live == live);
	return 0;
}
