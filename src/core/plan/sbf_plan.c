/*
 * sbf_plan.c
 *	  Lookup plans (sbf_plan.h): a value's header and directory decoded once,
 *	  then every lookup probes from the plan.  Formats: docs/format.md (1-3)
 *	  and docs/format4.md (4).
 */
#include "sbf_compact.h"
#include "sbf_dir.h"
#include "sbf_plain.h"
#include "sbf_plan.h"
#include "sbf_window_int.h"

/* hashes a plain lookup over several segments probes a segment at a time */

/* a value the builder writes in the compact form is decoded by its plan */
_Static_assert(SBF_COMPACT_BUILD_MAX <= SBF_PLAN_DECODE_MAX &&
			   SBF_COMPACT_BUILD_MAX_BYTES <= SBF_PLAN_KEY_DATA_MAX,
			   "a built compact value must be decoded by its plan");

/* plans built by this process (a diagnostic) */
static uint64_t plan_builds = 0;

uint64_t
sbf_plan_builds(void)
{
	return plan_builds;
}

/* Rounds n up to a multiple of 16 (the alignment of the plan's parts). */
static size_t
align16(size_t n)
{
	return (n + 15) & ~(size_t) 15;
}

/*
 * One block: the plan, then nparts parts of part bytes, then extra bytes
 * (decoded data areas, 16-aligned), then the key.
 */
static SbfPlan *
plan_alloc(const uint8_t *buf, size_t len, size_t keylen, size_t nparts,
		   size_t part, size_t extra, const SbfAllocator *a)
{
	size_t		head = align16(sizeof(SbfPlan));
	size_t		bytes = head + align16(nparts * part) + extra + keylen;
	SbfPlan    *p = a->alloc(bytes, a->ctx);
	uint8_t    *key;

	if (p == NULL)
		return NULL;
	memset(p, 0, sizeof(SbfPlan));
	key = (uint8_t *) p + head + align16(nparts * part) + extra;
	memcpy(key, buf, keylen);
	p->base = buf;
	p->len = len;
	p->keylen = keylen;
	p->key = key;
	p->bytes = bytes;
	return p;
}

/* The exact form: 52 header bytes, then the hashes (see docs/format.md). */
static SbfStatus
build_exact(const uint8_t *buf, size_t len, const SbfAllocator *a, SbfPlan **out)
{
	uint32_t	n;
	SbfPlan    *p;

	if (len < SBF_EXACT_HEADER_BYTES)
		return SBF_E_TRUNCATED;
	if ((buf[SBF_OFF_FLAGS] & ~(SBF_FLAG_EXACT | SBF_FLAG_CHAIN)) != 0 ||
		sbf_load16(buf + SBF_OFF_NSEGMENTS) != 0)
		return SBF_E_FLAGS;
	n = sbf_load32(buf + SBF_OFF_HLL_BYTES);
	if (n > SBF_EXACT_MAX)
		return SBF_E_EXACT;
	if ((uint64_t) len != SBF_EXACT_HEADER_BYTES + (uint64_t) n * 8)
		return SBF_E_LENGTH;
	p = plan_alloc(buf, len, SBF_EXACT_HEADER_BYTES, 0, 0, 0, a);
	if (p == NULL)
		return SBF_E_NOMEM;
	p->form = SBF_PLAN_EXACT;
	p->nhashes = n;
	p->hashes_off = SBF_EXACT_HEADER_BYTES;
	*out = p;
	return SBF_OK;
}

/*
 * Whether a plan decodes entry e (its kind decodes, SBF_PLAN_DECODE_MAX
 * keys at most in all, its data within SBF_PLAN_KEY_DATA_MAX bytes of the
 * directory's end), adding its keys to *nkeys and extending *keylen over
 * its data: a decoded area is part of the plan, so its bytes are part of
 * the key, and a value with other data never takes the plan.
 */
static bool
decodes(const SbfDirEntry *e, size_t dirlen, uint64_t *nkeys, size_t *keylen)
{
	uint64_t	n;

	if (e->ops == NULL || e->ops->decode == NULL ||
		e->data + e->bytes - dirlen > SBF_PLAN_KEY_DATA_MAX)
		return false;
	n = e->ops->decode_count(&e->g);
	if (n > SBF_PLAN_DECODE_MAX - *nkeys)
		return false;
	*nkeys += n;
	*keylen = (size_t) (e->data + e->bytes);
	return true;
}

/*
 * The first walk: every entry's kind and geometry in range and every data
 * area inside the value, the areas and the HyperLogLog exactly len bytes;
 * the keys the plan decodes and the key's length.
 */
static SbfStatus
plain_walk(const uint8_t *buf, size_t len, uint32_t nseg, size_t dirlen,
		   uint64_t *nkeys, size_t *keylen, size_t *end)
{
	SbfDirIter	it;
	SbfDirEntry e;

	*nkeys = 0;
	*keylen = dirlen;
	sbf_dir_start(&it, buf, nseg, dirlen);
	while (sbf_dir_next(&it, &e))
	{
		if (e.st != SBF_OK || e.ops->check_geom(&e.g) != SBF_OK ||
			e.data > len || e.bytes > len - e.data)
			return SBF_E_SEGMENT;
		(void) decodes(&e, dirlen, nkeys, keylen);
	}
	if (it.off > len || sbf_load32(buf + SBF_OFF_HLL_BYTES) != len - it.off)
		return SBF_E_LENGTH;
	*end = it.off;
	return SBF_OK;
}

/*
 * The segmented form of versions 1, 2, 4 and 5 (plain_walk's checks), its
 * segments into the plan, the decodable ones decoded into its block.
 */
static SbfStatus
build_plain(const uint8_t *buf, size_t len, const SbfVersion *ver,
			const SbfAllocator *a, SbfPlan **out)
{
	uint32_t	nseg = sbf_load16(buf + SBF_OFF_NSEGMENTS);
	size_t		dirlen = ver->header_bytes + (size_t) nseg * ver->entry_bytes;
	size_t		keylen;
	size_t		end;
	uint64_t	nkeys;
	uint64_t	used = 0;
	size_t		unused;
	uint64_t   *counters;
	uint64_t   *keys;
	SbfDirIter	it;
	SbfDirEntry e;
	SbfPlan    *p;
	SbfStatus	st;

	if (nseg < 1 || nseg > SBF_MAX_SEGMENTS)
		return SBF_E_SEGMENT;
	if (len < dirlen)
		return SBF_E_TRUNCATED;
	st = plain_walk(buf, len, nseg, dirlen, &nkeys, &keylen, &end);
	if (st != SBF_OK)
		return st;
	/* a counter a segment, then the keys */
	p = plan_alloc(buf, len, keylen, nseg, sizeof(SbfPlanSeg),
				   (size_t) (nseg + nkeys) * sizeof(uint64_t), a);
	if (p == NULL)
		return SBF_E_NOMEM;
	p->form = SBF_PLAN_PLAIN;
	p->nseg = nseg;
	p->seg = (SbfPlanSeg *) ((uint8_t *) p + align16(sizeof(SbfPlan)));
	counters = (uint64_t *) ((uint8_t *) p->seg + align16((size_t) nseg * sizeof(SbfPlanSeg)));
	keys = counters + nseg;
	unused = dirlen;
	sbf_dir_start(&it, buf, nseg, dirlen);
	while (sbf_dir_next(&it, &e))
	{
		SbfPlanSeg *s = &p->seg[e.index];

		s->off = e.data;
		s->data = buf + e.data;
		s->bytes = e.bytes;
		s->g = e.g;
		s->ops = e.ops;
		s->keys = NULL;
		s->left = NULL;
		if (sbf_kind_is_flat(&e.g))
			sbf_divisor_init(&s->div, e.g.size);
		if (decodes(&e, dirlen, &used, &unused))
		{
			/* decoded late, by the lookup that reaches the counter's end */
			s->keys = keys + (used - e.ops->decode_count(&e.g));
			s->left = &counters[e.index];
			*s->left = SBF_PLAN_DECODE_AFTER(e.ops->decode_count(&e.g));
		}
	}
	p->prefetch = end - dirlen > SBF_CACHED_BITS;
	*out = p;
	return SBF_OK;
}

/*
 * The compact form (docs/format5.md, 3): its header (sbf_compact_parse:
 * fields in range, the code exactly the rest), then one segment of the
 * compact kind over its code, decoded as a plain value's compact segment
 * is (the whole value then its key), else read from its bytes (the key its
 * header).
 */
static SbfStatus
build_compact(const uint8_t *buf, size_t len, const SbfAllocator *a, SbfPlan **out)
{
	SbfCompactView cv;
	SbfPlanSeg *s;
	SbfPlan    *p;
	size_t		head;
	bool		decode;
	SbfStatus	st = sbf_compact_parse(buf, len, &cv);

	if (st != SBF_OK)
		return st;
	head = (size_t) (cv.code - buf);
	decode = cv.shape.n <= SBF_PLAN_DECODE_MAX && cv.code_len <= SBF_PLAN_KEY_DATA_MAX;
	p = plan_alloc(buf, len, decode ? len : head, 1, sizeof(SbfPlanSeg),
				   decode ? (size_t) (cv.shape.n + 1) * sizeof(uint64_t) : 0, a);
	if (p == NULL)
		return SBF_E_NOMEM;
	p->form = SBF_PLAN_PLAIN;
	p->nseg = 1;
	p->seg = s = (SbfPlanSeg *) ((uint8_t *) p + align16(sizeof(SbfPlan)));
	memset(s, 0, sizeof(*s));
	s->off = head;
	s->data = cv.code;
	s->bytes = cv.code_len;
	s->g.kind = SBF_KIND_COMPACT;
	s->g.size = cv.shape.n;
	s->g.width = (uint8_t) cv.shape.b;
	s->ops = sbf_kind_ops(SBF_KIND_COMPACT);
	if (decode)
	{
		/* its counter, then its keys, decoded late (plain_has) */
		s->left = (uint64_t *) ((uint8_t *) s + align16(sizeof(SbfPlanSeg)));
		s->keys = s->left + 1;
		*s->left = SBF_PLAN_DECODE_AFTER(cv.shape.n);
	}
	*out = p;
	return SBF_OK;
}

/*
 * The windowed form: sbf_win_parse (header and directory in range, ages
 * below B and ascending, exact length), then the segments into chunks.
 */
static SbfStatus
build_window(const uint8_t *buf, size_t len, const SbfAllocator *a, SbfPlan **out)
{
	SbfWinView	wv;
	SbfStatus	st = sbf_win_parse(buf, len, &wv);
	uint32_t	nchunks;
	SbfWinChunk *c = NULL;
	size_t		off;
	uint32_t	j;
	SbfPlan    *p;

	if (st != SBF_OK)
		return st;
	nchunks = (wv.nsegments + SBF_WIN_CHUNK - 1) / SBF_WIN_CHUNK;
	p = plan_alloc(buf, len, wv.bits_offset, nchunks, align16(sizeof(SbfWinChunk)), 0, a);
	if (p == NULL)
		return SBF_E_NOMEM;
	p->form = SBF_PLAN_WINDOW;
	p->wv = wv;
	p->chunks = (SbfWinChunk *) ((uint8_t *) p + align16(sizeof(SbfPlan)));
	off = wv.bits_offset;
	for (j = 0; j < wv.nsegments; j++)
	{
		SbfWinSeg	seg;

		if (j % SBF_WIN_CHUNK == 0)
		{
			c = (SbfWinChunk *) ((uint8_t *) p->chunks +
								 (size_t) p->nchunks++ * align16(sizeof(SbfWinChunk)));
			sbf_winchunk_reset(c);
		}
		sbf_win_read_segment(&wv, j, &off, &seg);
		sbf_winchunk_add(c, &seg);
	}
	*out = p;
	return SBF_OK;
}

SbfStatus
sbf_plan_build(const uint8_t *buf, size_t len, const SbfAllocator *a, SbfPlan **out)
{
	const SbfVersion *ver;
	SbfStatus	st;

	*out = NULL;
	if (len > SBF_MAX_STORED_BYTES)
		return SBF_E_LENGTH;
	if (sbf_is_window(buf, len))
		st = build_window(buf, len, a, out);
	else if (sbf_bytes_compact(buf, len))
		st = build_compact(buf, len, a, out);
	else
	{
		if (len < SBF_HEADER_BYTES)
			return SBF_E_TRUNCATED;
		ver = sbf_version_of(buf);
		if (ver == NULL || ver->windowed)
			return SBF_E_VERSION;
		if ((buf[SBF_OFF_FLAGS] & ~ver->flags) != 0)
			return SBF_E_FLAGS;
		if (buf[SBF_OFF_HASH] != SBF_HASH_XXH3)
			return SBF_E_HASH;
		if (ver->exact && (buf[SBF_OFF_FLAGS] & SBF_FLAG_EXACT))
			st = build_exact(buf, len, a, out);
		else
			st = build_plain(buf, len, ver, a, out);
	}
	if (st == SBF_OK)
		plan_builds++;
	return st;
}

void
sbf_plan_free(SbfPlan *p, const SbfAllocator *a)
{
	sbf_free(a, p);
}

/* A pointer into the old bound payload moved into buf. */
static inline const uint8_t *
rebase(const SbfPlan *p, const uint8_t *buf, const uint8_t *ptr)
{
	return (const uint8_t *) ((uintptr_t) buf + ((uintptr_t) ptr - (uintptr_t) p->base));
}

void
sbf_plan_bind(SbfPlan *p, const uint8_t *buf)
{
	uint32_t	i;
	uint32_t	c;

	if (p->base == buf)
		return;
	for (i = 0; i < p->nseg; i++)
		p->seg[i].data = buf + p->seg[i].off;
	for (c = 0; c < p->nchunks; c++)
	{
		SbfWinChunk *ch = (SbfWinChunk *) ((uint8_t *) p->chunks +
										   (size_t) c * align16(sizeof(SbfWinChunk)));

		for (i = 0; i < ch->n; i++)
			ch->bits[i] = rebase(p, buf, ch->bits[i]);
		for (i = 0; i < ch->nblocked; i++)
			ch->bdata[i] = rebase(p, buf, ch->bdata[i]);
		for (i = 0; i < ch->nother; i++)
			ch->other[i].bits = rebase(p, buf, ch->other[i].bits);
	}
	p->wv.buf = buf;
	p->base = buf;
}

/* ---- lookups ---- */

/* Chunk c of a windowed plan. */
static inline const SbfWinChunk *
chunk_at(const SbfPlan *p, uint32_t c)
{
	return (const SbfWinChunk *) ((const uint8_t *) p->chunks +
								  (size_t) c * align16(sizeof(SbfWinChunk)));
}

/* Entries of ages[0..n) (ascending) that are <= max_age. */
static inline uint32_t
ages_upto(const uint16_t *ages, uint32_t n, int64_t max_age)
{
	while (n > 0 && ages[n - 1] > max_age)
		n--;
	return n;
}

/*
 * Whether h is in a decodable segment s: read from its bytes until its
 * counter reaches 1, then decoded once into the plan (the code checked
 * first: one that is not a code stays read from its bytes) and searched.
 * The counter becomes 0 only after the decode is complete, so a lookup
 * interrupted inside it (the check polls for interrupts) leaves the plan
 * reading bytes, and the next lookup decodes again.  The decode allocates
 * nothing; the counter and keys are the plan's own block, which one
 * process uses at a time.
 */
static inline bool
late_has(const SbfPlanSeg *s, uint64_t h)
{
	if (*s->left == 0)
		return s->ops->decoded_has(&s->g, s->keys, h);
	if (*s->left == 1)
	{
		if (s->ops->decode(&s->g, s->data, (uint64_t *) s->keys, NULL) == SBF_OK)
		{
			*s->left = 0;
			return s->ops->decoded_has(&s->g, s->keys, h);
		}
		*s->left = UINT64_MAX;	/* not a code: its bytes from now on */
	}
	(*s->left)--;
	return s->ops->contains(&s->g, s->data, h);
}

/* Whether h is in one of the segments of a plain plan (in order). */
static inline bool
plain_has(const SbfPlan *p, uint64_t h)
{
	uint32_t	i;

	for (i = 0; i < p->nseg; i++)
	{
		const SbfPlanSeg *s = &p->seg[i];

		if (sbf_kind_is_flat(&s->g) ?
			sbf_bloom_has_div(s->data, &s->div, s->g.width, h) :
			s->keys != NULL ? late_has(s, h) :
			s->ops->contains(&s->g, s->data, h))
			return true;
	}
	return false;
}

/* Whether h is one of an exact plan's hashes. */
static inline bool
exact_has(const SbfPlan *p, uint64_t h)
{
	const uint8_t *hashes = p->base + p->hashes_off;
	uint32_t	i = sbf_search64(hashes, p->nhashes, h);

	return i < p->nhashes && sbf_load64(hashes + (size_t) i * 8) == h;
}

/*
 * The batch of a plain plan whose data exceeds the caches: each segment
 * probes the hashes not found yet with its kind's batched, prefetching mark
 * (sbf_count_marked).
 */
static void
plain_mark_batch(const void *arg, const uint64_t *h, size_t nb, bool *hit)
{
	const SbfPlan *p = arg;
	uint32_t	i;

	for (i = 0; i < p->nseg; i++)
		sbf_kind_mark(&p->seg[i].g, p->seg[i].data, h, nb, hit);
}

size_t
sbf_plan_count_since(const SbfPlan *p, const uint64_t *h, size_t n, int64_t max_age)
{
	SbfWinLim	last = {0, 0, 0};
	uint32_t	nuse = 0;
	size_t		found = 0;
	size_t		i;

	if (max_age < 0 || n == 0)
		return 0;
	/* the chunks of age <= max_age: all but the last whole (ages ascend) */
	while (nuse < p->nchunks)
	{
		const SbfWinChunk *c = chunk_at(p, nuse);
		SbfWinLim	lim;

		lim.n = ages_upto(c->age, c->n, max_age);
		lim.nblocked = ages_upto(c->bage, c->nblocked, max_age);
		lim.nother = 0;
		while (lim.nother < c->nother && c->other[lim.nother].age <= max_age)
			lim.nother++;
		if (lim.n + lim.nblocked + lim.nother == 0)
			break;
		last = lim;
		nuse++;
		if (lim.n + lim.nblocked + lim.nother < sbf_winchunk_size(c))
			break;
	}
	for (i = 0; i < n; i++)
	{
		SbfWinMixes x;
		uint32_t	c;

		if (p->wv.npairs > 0 && sbf_win_pairs_contain(&p->wv, h[i], max_age))
		{
			found++;
			continue;
		}
		sbf_win_mixes_start(&x, h[i]);
		for (c = 0; c < nuse; c++)
		{
			const SbfWinChunk *ch = chunk_at(p, c);
			SbfWinLim	all;

			if (c + 1 < nuse)
				sbf_winchunk_all(ch, &all);
			if (sbf_winchunk_has(ch, c + 1 < nuse ? &all : &last, &x))
			{
				found++;
				break;
			}
		}
	}
	return found;
}

bool
sbf_plan_contains(const SbfPlan *p, uint64_t h)
{
	if (p->form == SBF_PLAN_PLAIN)
		return plain_has(p, h);
	if (p->form == SBF_PLAN_EXACT)
		return exact_has(p, h);
	return sbf_plan_count_since(p, &h, 1, (int64_t) p->wv.buckets - 1) > 0;
}

size_t
sbf_plan_count(const SbfPlan *p, const uint64_t *h, size_t n)
{
	size_t		found = 0;
	size_t		i;

	if (p->form == SBF_PLAN_WINDOW)
		return sbf_plan_count_since(p, h, n, (int64_t) p->wv.buckets - 1);
	if (p->form == SBF_PLAN_EXACT)
	{
		for (i = 0; i < n; i++)
			found += exact_has(p, h[i]);
		return found;
	}
	if (p->prefetch)
		return sbf_count_marked(h, n, plain_mark_batch, p);
	/* one segment of a batched kind: its own count */
	if (p->nseg == 1 && p->seg[0].ops->count_batched)
		return p->seg[0].ops->count(&p->seg[0].g, p->seg[0].data, h, n);
	for (i = 0; i < n; i++)
		found += plain_has(p, h[i]);
	return found;
}
