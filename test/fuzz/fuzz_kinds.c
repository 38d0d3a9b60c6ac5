/*
 * fuzz_kinds.c
 *	  libFuzzer target for the segment kinds of format 4 (sbf_kind*.c).  Byte 0
 *	  picks what the rest is:
 *	    even: a crafted segment -- 16 descriptor bytes, capacity, count and
 *	          error (8 bytes each), then the data area; whatever the checks
 *	          accept is probed, measured, inserted into (no false negative
 *	          after an insert) and merged with itself (no change);
 *	    odd:  a set to build -- byte 1 the kind and share, then 8-byte hashes;
 *	          a build that succeeds holds every hash, passes the checks, is
 *	          built again byte for byte, and (blocked) OR-ed halves give it;
 *	    6 (mod 8): a union of two format-4 values of mixed kinds (bloom,
 *	          blocked, fused) built from the rest (fuzz_union4.h): both
 *	          orders give the same status and bytes, the result validates,
 *	          holds every key, keeps every fused segment byte for byte,
 *	          stays within the budget when checked, is its own union, and an
 *	          aggregate's collection then merge gives the same bytes.
 */
#include <math.h>
#include <string.h>

#include "fuzz_common.h"
#include "sbf_internal.h"
#include "sbf_kind.h"

#define MAX_HASHES	4096

#include "fuzz_union4.h"

/* A crafted segment: checks, then every read and write the kind has. */
static void
fuzz_segment(const uint8_t *d, size_t n)
{
	SbfKindGeom g;
	uint64_t	used;
	uint64_t	capacity;
	uint64_t	count;
	double		p;
	const SbfKindOps *ops;
	uint8_t    *copy;
	uint64_t	probes[8];
	int			i;

	if (n < SBF_KIND_DESC_BYTES + 24)
		return;
	capacity = sbf_load64(d + 16);
	count = sbf_load64(d + 24);
	p = sbf_load_double(d + 32);
	if (sbf_kind_check(d, d + 40, n - 40, &g, &used) != SBF_OK)
		return;
	ops = sbf_kind_ops(g.kind);
	FUZZ_ASSERT(ops != NULL && used <= n - 40);
	/* bloom kinds: the stored p is the bound (1.0-1.2 wrote it), range only */
	if (ops->check_entry(&g, capacity, count, p) == SBF_OK &&
		g.kind != SBF_KIND_BLOOM && g.kind != SBF_KIND_WBLOOM)
	{
		double		r = ops->rate_at(&g, capacity);

		FUZZ_ASSERT(r >= 0.0 && r <= p * (1.0 + 1e-9));
	}
	{
		double		r = ops->rate_of(&g, d + 40);

		FUZZ_ASSERT(r >= 0.0 && r <= 1.0);
	}
	for (i = 0; i < 8; i++)
		probes[i] = sbf_mix64(capacity + (uint64_t) i);
	{
		size_t		c = ops->count(&g, d + 40, probes, 8);
		size_t		s = 0;

		for (i = 0; i < 8; i++)
			s += ops->contains(&g, d + 40, probes[i]);
		FUZZ_ASSERT(c == s);
	}
	copy = malloc(used ? used : 1);
	memcpy(copy, d + 40, used);
	if (ops->insert != NULL)
		for (i = 0; i < 8; i++)
		{
			(void) ops->insert(&g, copy, probes[i]);
			FUZZ_ASSERT(ops->contains(&g, copy, probes[i]));
			FUZZ_ASSERT(!ops->insert(&g, copy, probes[i]));
		}
	if (ops->merge != NULL)
	{
		uint8_t    *again = malloc(used ? used : 1);

		memcpy(again, copy, used);
		ops->merge(&g, again, copy);
		FUZZ_ASSERT(memcmp(again, copy, used) == 0);
		free(again);
	}
	free(copy);
}

/* Plans and builds (kind, share) from hashes; NULL data if it did not. */
static uint8_t *
build_set(const SbfKindOps *ops, const uint64_t *h, size_t n, double share,
		  SbfKindGeom *g, uint64_t *bytes)
{
	uint8_t    *data;

	if (ops->plan(n, share, g, bytes) != SBF_OK || *bytes > FUZZ_ALLOC_LIMIT)
		return NULL;
	data = malloc(*bytes);
	if (ops->build(g, data, h, n, &fuzz_allocator) != SBF_OK)
	{
		free(data);
		return NULL;
	}
	return data;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* A set: build, check, rebuild, and for blocked the OR of two halves. */
static void
fuzz_build(const uint8_t *d, size_t n)
{
	static const double shares[] = {0.3, 0.05, 0.0096, 0.001, 1e-5, 1e-9, 1e-12, 0.49};
	const SbfKindOps *ops;
	double		share;
	uint64_t	h[MAX_HASHES];
	size_t		nh = 0;
	size_t		i;
	SbfKindGeom g;
	uint64_t	bytes;
	uint8_t    *data;

	if (n < 2)
		return;
	/* a row of the core's table (every kind, as the generic code sees it): bits 0, 1 and 5 */
	ops = sbf_kind_rows[((d[1] & 3) | ((d[1] >> 3) & 4)) % SBF_KIND_ROWS];
	share = shares[(d[1] >> 2) & 7];
	for (i = 2; i + 8 <= n && nh < MAX_HASHES; i += 8)
		h[nh++] = sbf_load64(d + i);
	if (nh == 0)
		return;
	qsort(h, nh, sizeof(uint64_t), cmp_u64);
	{
		size_t		out = 1;

		for (i = 1; i < nh; i++)
			if (h[i] != h[out - 1])
				h[out++] = h[i];
		nh = out;
	}
	data = build_set(ops, h, nh, share, &g, &bytes);
	if (data == NULL)
		return;
	{
		uint8_t		desc[SBF_KIND_DESC_BYTES];
		SbfKindGeom g2 = g;
		SbfKindGeom back;
		uint64_t	used;
		uint8_t    *again = malloc(bytes);
		double		p = ops->complete ? ops->rate_at(&g, nh) : share;

		sbf_kind_encode(&g, desc);
		FUZZ_ASSERT(sbf_kind_check(desc, data, bytes, &back, &used) == SBF_OK);
		FUZZ_ASSERT(used == bytes);
		FUZZ_ASSERT(ops->check_entry(&g, nh, nh, p) == SBF_OK);
		FUZZ_ASSERT(ops->count(&g, data, h, nh) == nh);
		g2.attempt = 0;
		FUZZ_ASSERT(ops->build(&g2, again, h, nh, &fuzz_allocator) == SBF_OK);
		FUZZ_ASSERT(g2.attempt == g.attempt && memcmp(again, data, bytes) == 0);
		if (ops->merge != NULL && nh >= 2)
		{
			/* halves by alternate hashes, OR-ed: the build of the whole */
			uint64_t	a[MAX_HASHES / 2 + 1];
			uint64_t	b[MAX_HASHES / 2 + 1];
			size_t		na = 0;
			size_t		nb = 0;
			uint8_t    *da = malloc(bytes);

			for (i = 0; i < nh; i++)
			{
				if (i % 2)
					b[nb++] = h[i];
				else
					a[na++] = h[i];
			}
			FUZZ_ASSERT(ops->build(&g, da, a, na, &fuzz_allocator) == SBF_OK);
			FUZZ_ASSERT(ops->build(&g, again, b, nb, &fuzz_allocator) == SBF_OK);
			ops->merge(&g, da, again);
			FUZZ_ASSERT(memcmp(da, data, bytes) == 0);
			free(da);
		}
		free(again);
	}
	free(data);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if ((data[0] & 7) == 6)
		fuzz_union4(data + 1, size - 1);
	else if (data[0] & 1)
		fuzz_build(data, size);
	else
		fuzz_segment(data + 1, size - 1);
	FUZZ_ASSERT(fuzz_live == 0);
	return 0;
}
