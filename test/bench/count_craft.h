/*
 * count_craft.h
 *	  craft4n: a format-4 value of up to 4,096 segments (test/fuzz/craft4.h's
 *	  craft4 is limited to 64), each built by its kind's plan and insert from
 *	  Craft4Seg's hashes; a bench helper (count_bench.c).  Include after
 *	  test/fuzz/craft4.h.
 */
static inline uint8_t *
craft4n(const Craft4Seg *segs, uint32_t nseg, uint8_t flags, size_t *len)
{
	SbfKindGeom *g = malloc(sizeof(SbfKindGeom) * nseg);
	uint64_t *bytes = malloc(8 * nseg);
	size_t *start = malloc(sizeof(size_t) * nseg);
	size_t		off = SBF_HEADER_BYTES + (size_t) nseg * SBF_SEGDIR_BYTES;
	uint8_t    *buf;
	uint32_t	i;

	if (nseg < 1 || nseg > 4096)
		return NULL;
	for (i = 0; i < nseg; i++)
	{
		const SbfKindOps *ops = sbf_kind_ops(segs[i].kind);
		size_t		pad;

		if (ops == NULL || ops->plan(segs[i].n, segs[i].share, &g[i], &bytes[i]) != SBF_OK)
			return NULL;
		start[i] = sbf_kind_area_start(&g[i], off, &pad);
		off = start[i] + (size_t) bytes[i];
	}
	*len = off;
	buf = calloc(1, off);
	free(bytes);
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
				return NULL;
			}
			p = ops->rate_at(&g[i], count);
		}
		free(h);
		sbf_store64(e + 0, segs[i].n);
		sbf_store64(e + 8, count);
		sbf_store_double(e + 16, p);
		sbf_kind_encode(&g[i], e + 24);
	}
	free(g);
	free(start);
	return buf;
}

