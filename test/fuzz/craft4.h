/*
 * craft4.h
 *	  Crafted version-4 plain values for the unit tests and the seed corpus:
 *	  any mix of bloom (kind 1), blocked and fused segments (and compact
 *	  ones, which make the value version 5), each built from
 *	  its own n hashes at its own share with the kinds' rows, in the layout
 *	  of docs/format4.md section 2 (padding before large blocked areas), and
 *	  an empty sparse HyperLogLog.  Static inline; include after sbf_core.h.
 */
#ifndef CRAFT4_H
#define CRAFT4_H

#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_internal.h"
#include "sbf_dir.h"
#include "sbf_kind.h"

typedef struct Craft4Seg
{
	uint8_t		kind;			/* SBF_KIND_BLOOM, _BLOCKED or _FUSED */
	uint32_t	n;				/* hashes built into it (its capacity) */
	double		share;			/* its rate share */
	uint64_t	seed;			/* its hashes: sbf_mix64(seed + i), sorted */
} Craft4Seg;

static inline void *
craft4_alloc(size_t size, void *ctx)
{
	(void) ctx;
	return malloc(size);
}

static inline void *
craft4_realloc(void *ptr, size_t size, void *ctx)
{
	(void) ctx;
	return realloc(ptr, size);
}

static inline void
craft4_free(void *ptr, void *ctx)
{
	(void) ctx;
	free(ptr);
}

static const SbfAllocator craft4_allocator = {craft4_alloc, craft4_realloc,
craft4_free, NULL, NULL};

static inline int
craft4_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* The sorted hashes of a crafted segment (caller frees). */
static inline uint64_t *
craft4_hashes(const Craft4Seg *s)
{
	uint64_t   *h = malloc(sizeof(uint64_t) * (s->n + 1));
	uint32_t	i;

	for (i = 0; i < s->n; i++)
		h[i] = sbf_mix64(s->seed * 0x100000001B3ULL + i);
	qsort(h, s->n, sizeof(uint64_t), craft4_cmp);
	return h;
}

/* Most segments craft4 writes (a bench crafts issue 39's 4,096). */
#define CRAFT4_MAX_SEGMENTS		4096

/*
 * Writes the value of 1..CRAFT4_MAX_SEGMENTS segments into a new malloc'd
 * buffer (*len bytes), or returns NULL if a segment cannot be planned or
 * built.  flags: HLL_DENSE never.
 */
static inline uint8_t *
craft4(const Craft4Seg *segs, uint32_t nseg, uint8_t flags, size_t *len)
{
	SbfKindGeom *g;
	uint64_t	bytes;
	size_t	   *start;
	size_t		off = SBF_HEADER_BYTES + (size_t) nseg * SBF_SEGDIR_BYTES;
	uint8_t    *buf = NULL;
	uint32_t	i;

	if (nseg < 1 || nseg > CRAFT4_MAX_SEGMENTS)
		return NULL;
	g = malloc(sizeof(SbfKindGeom) * nseg);
	start = malloc(sizeof(size_t) * nseg);
	for (i = 0; i < nseg; i++)
	{
		const SbfKindOps *ops = sbf_kind_ops(segs[i].kind);
		size_t		pad;

		if (ops == NULL || ops->plan(segs[i].n, segs[i].share, &g[i], &bytes) != SBF_OK)
			goto done;
		start[i] = sbf_kind_area_start(&g[i], off, &pad);
		off = start[i] + (size_t) bytes;
	}
	*len = off;
	buf = calloc(1, off);
	buf[0] = SBF_FORMAT_V4;
	buf[1] = flags & (SBF_FLAG_OVERLAP | SBF_FLAG_CHAIN);
	buf[2] = SBF_HASH_XXH3;
	buf[3] = 9;
	sbf_store16(buf + 4, 2);
	sbf_store16(buf + 6, (uint16_t) nseg);
	sbf_store32(buf + 8, 0);
	sbf_store_double(buf + 12, 0.01);
	sbf_store_double(buf + 20, 0.9);
	sbf_store64(buf + 28, 1000);
	for (i = 0; i < nseg; i++)
	{
		const SbfKindOps *ops = sbf_kind_ops(segs[i].kind);
		uint8_t    *e = buf + SBF_HEADER_BYTES + (size_t) i * SBF_SEGDIR_BYTES;
		uint64_t   *h = craft4_hashes(&segs[i]);
		uint64_t	count = 0;
		uint32_t	j;
		double		p = segs[i].share;

		if (ops->insert != NULL)
		{
			for (j = 0; j < segs[i].n; j++)
				count += ops->insert(&g[i], buf + start[i], h[j]) ? 1 : 0;
		}
		else
		{
			count = segs[i].n;
			if (ops->build(&g[i], buf + start[i], h, segs[i].n,
						   &craft4_allocator) != SBF_OK)
			{
				free(h);
				free(buf);
				buf = NULL;
				goto done;
			}
			p = ops->rate_at(&g[i], count);
		}
		free(h);
		sbf_store64(e + 0, segs[i].n);
		sbf_store64(e + 8, count);
		sbf_store_double(e + 16, p);
		sbf_kind_encode(&g[i], e + 24);
	}
	sbf_write_version(buf);		/* 5 when a segment is compact */
done:
	free(g);
	free(start);
	return buf;
}

/*
 * A version-4 value no writer produces: nseg bloom segments of m bits (all
 * set) and k hashes, each entry saying capacity cap, count counts[i] and
 * rate p, header error_rate e, an empty sparse HyperLogLog.  With m far
 * below what SIZING gives for cap (issue 39: m = 1, counts 50 and 55, 132
 * bytes) the validator refuses it; before 1.4 # answered 85,242,318,145.
 * Caller frees; NULL past 64 segments.
 */
static inline uint8_t *
craft4_thin_bloom(uint32_t nseg, uint64_t m, uint8_t k, uint64_t cap,
				  const uint64_t *counts, double p, double e, size_t *len)
{
	size_t		words = (size_t) ((m + 63) / 64);
	size_t		off = SBF_HEADER_BYTES + (size_t) nseg * SBF_SEGDIR_BYTES;
	uint8_t    *buf;
	uint32_t	i;
	size_t		w;

	if (nseg < 1 || nseg > 64)
		return NULL;
	*len = off + (size_t) nseg * words * 8;
	buf = calloc(1, *len);
	buf[0] = SBF_FORMAT_V4;
	buf[1] = 0;
	buf[2] = SBF_HASH_XXH3;
	buf[3] = 9;
	sbf_store16(buf + 4, 2);
	sbf_store16(buf + 6, (uint16_t) nseg);
	sbf_store32(buf + 8, 0);
	sbf_store_double(buf + 12, e);
	sbf_store_double(buf + 20, 0.9);
	sbf_store64(buf + 28, 1000);
	for (i = 0; i < nseg; i++)
	{
		uint8_t    *e4 = buf + SBF_HEADER_BYTES + (size_t) i * SBF_SEGDIR_BYTES;
		SbfKindGeom g;

		memset(&g, 0, sizeof(g));
		g.kind = SBF_KIND_BLOOM;
		g.size = m;
		g.width = k;
		sbf_store64(e4 + 0, cap);
		sbf_store64(e4 + 8, counts[i]);
		sbf_store_double(e4 + 16, p);
		sbf_kind_encode(&g, e4 + 24);
		for (w = 0; w < words; w++)
			sbf_store64(buf + off + w * 8,
						w + 1 < words || m % 64 == 0 ? ~(uint64_t) 0 :
						((uint64_t) 1 << (m % 64)) - 1);
		off += words * 8;
	}
	return buf;
}

#endif							/* CRAFT4_H */
