/*
 * sbf_kind_fused.c
 *	  The fused segment kind of format 4: a binary fuse filter (Graf & Lemire
 *	  2022, "Binary Fuse Filters: Fast and Smaller Than Xor Filters") over a
 *	  complete set of distinct hashes.  An array of A f-bit fingerprints is
 *	  cut into S + arity - 1 segments of length L; a hash has one slot in each
 *	  of arity consecutive segments and is present when the XOR of those
 *	  slots equals its fingerprint, so a hash not in the set is found with
 *	  probability 2^-f whatever the set's size.  Slots, fingerprint, packing,
 *	  shape, seeds and the build are specified in docs/format4.md, section 5
 *	  (test_kinds.c checks this file against that text).
 */
#include <math.h>

#include "sbf_internal.h"
#include "sbf_kind.h"

#define GOLDEN			UINT64_C(0x9E3779B97F4A7C15)
#define BATCH			16
/* a builder slot counts hashes in its upper 6 bits: at most 63 */
#define COUNT_ONE		4
#define COUNT_MAX		(63 * COUNT_ONE)

/*
 * The arity the writer uses (docs/format4.md, section 5, "Why 3-wise";
 * measured with test/bench/kinds_bench.c); readers accept 3 and 4.
 */
#define WRITE_ARITY		3

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_R(p)	__builtin_prefetch((p), 0, 1)
#define PREFETCH_W(p)	__builtin_prefetch((p), 1, 3)
#else
#define PREFETCH_R(p)	((void) (p))
#define PREFETCH_W(p)	((void) (p))
#endif

/* How many hashes ahead the count and the assignment prefetch their slots. */
#define COUNT_AHEAD		16
/* Areas of at least this many slots (about 1.3 MB of scratch) are prefetched. */
#define COUNT_PREFETCH_SLOTS	((uint64_t) 1 << 17)
#define ASSIGN_AHEAD	8

/* The slots and fingerprint of one hash. */
typedef struct FusePos
{
	uint32_t	p[4];
	uint32_t	fp;
} FusePos;

/* Segment length L. */
static inline uint64_t
seg_len(const SbfKindGeom *g)
{
	return (uint64_t) 1 << g->log2_len;
}

/* Slots A = (S + arity - 1) L, or 0 above SBF_FUSED_MAX_SLOTS. */
static uint64_t
slots_of(const SbfKindGeom *g)
{
	uint64_t	segs;

	if (g->size > SBF_FUSED_MAX_SLOTS)
		return 0;
	segs = g->size + g->arity - 1;
	if (segs > (SBF_FUSED_MAX_SLOTS >> g->log2_len))
		return 0;
	return segs << g->log2_len;
}

/* Bytes of the data area of A slots of f bits: ceil(A f / 8) rounded to 8. */
static uint64_t
area_bytes(uint64_t slots, uint32_t f)
{
	uint64_t	bits = slots * f;	/* < 2^37: no overflow */

	return (bits + 63) / 64 * 8;
}

/* The seed of seed number r. */
static inline uint64_t
seed_of(uint32_t r)
{
	return sbf_mix64((uint64_t) (r + 1) * GOLDEN);
}

/* The slots of a mixed hash x = sbf_mix64(h + seed) (x2 only for arity 4). */
static inline void
mixed_slots(const SbfKindGeom *g, uint64_t x, uint32_t *p)
{
	uint64_t	len = seg_len(g);
	uint64_t	mask = len - 1;
	uint64_t	p0 = sbf_win_mulhi(x, g->size << g->log2_len);

	p[0] = (uint32_t) p0;
	p[1] = (uint32_t) ((p0 + len) ^ (x & mask));
	p[2] = (uint32_t) ((p0 + 2 * len) ^ ((x >> 18) & mask));
	if (g->arity == 4)
		p[3] = (uint32_t) ((p0 + 3 * len) ^ ((sbf_mix64(x) >> 40) & mask));
}

/* Slots and fingerprint of a mixed hash x. */
static inline void
mixed_positions(const SbfKindGeom *g, uint64_t x, FusePos *fp)
{
	mixed_slots(g, x, fp->p);
	fp->fp = (uint32_t) (sbf_mix64(x) & ((UINT64_C(1) << g->width) - 1));
}

/* Slots and fingerprint of hash h under geometry g and seed. */
static inline void
fuse_positions(const SbfKindGeom *g, uint64_t seed, uint64_t h, FusePos *fp)
{
	mixed_positions(g, sbf_mix64(h + seed), fp);
}

/* Fingerprint slot i of an area of nbytes bytes. */
static inline uint32_t
fp_get(const uint8_t *data, uint64_t nbytes, uint64_t i, uint32_t f)
{
	uint64_t	bit = i * f;
	uint64_t	byte = bit >> 3;
	uint64_t	w = 0;

	if (byte + 8 <= nbytes)
		w = sbf_load64(data + byte);
	else
	{
		uint64_t	b;

		for (b = 0; byte + b < nbytes; b++)
			w |= (uint64_t) data[byte + b] << (8 * b);
	}
	return (uint32_t) ((w >> (bit & 7)) & ((UINT64_C(1) << f) - 1));
}

SbfStatus
sbf_fused_check_geom(const SbfKindGeom *g)
{
	if (g->kind != SBF_KIND_FUSED || g->width < 1 ||
		g->width > SBF_FUSED_MAX_F || (g->arity != 3 && g->arity != 4) ||
		g->log2_len > SBF_FUSED_MAX_LOG2_LEN ||
		g->attempt >= SBF_FUSED_MAX_ATTEMPTS || g->size < 1 ||
		slots_of(g) == 0)
		return SBF_E_SEGMENT;
	return SBF_OK;
}

bool
sbf_fused_bytes(const SbfKindGeom *g, uint64_t *bytes)
{
	uint64_t	slots = slots_of(g);

	if (slots == 0)
		return false;
	*bytes = area_bytes(slots, g->width);
	return *bytes <= SBF_MAX_STORED_BYTES;
}

/* The bits past A f must be 0 (canonical bytes). */
SbfStatus
sbf_fused_check_data(const SbfKindGeom *g, const uint8_t *data)
{
	uint64_t	used = slots_of(g) * g->width;
	uint64_t	end = area_bytes(slots_of(g), g->width) * 8;
	uint64_t	b;

	for (b = used; b < end && (b & 7) != 0; b++)
		if ((data[b >> 3] >> (b & 7)) & 1)
			return SBF_E_BITS;
	for (; b < end; b += 8)
		if (data[b >> 3] != 0)
			return SBF_E_BITS;
	return SBF_OK;
}

/* count = capacity in 1..A, and p >= 2^-f (see sbf_kind.h). */
SbfStatus
sbf_fused_check_entry(const SbfKindGeom *g, uint64_t capacity, uint64_t count,
				  double p)
{
	if (count < 1 || count != capacity || count > slots_of(g) ||
		!(p >= ldexp(1.0, -(int) g->width) && p < 0.5))
		return SBF_E_SEGMENT;
	return SBF_OK;
}

/*
 * Segment length and count for n hashes, from the reference implementation's
 * constants (Graf & Lemire 2022; FORMAT4-FACTS.md): 3-wise L =
 * 2^floor(ln n / ln 3.33 + 2.25), c = max(1.125, 0.875 + 0.25 ln(10^6) / ln n);
 * 4-wise L = 2^floor(ln n / ln 2.91 - 0.5), c = max(1.075, 0.77 + 0.305
 * ln(600000) / ln n); L within [4, 2^18]; S = ceil(ceil(c n) / L) - (arity - 1),
 * at least 1.  n < 2 is sized as 2.
 */
static bool
fuse_shape(uint64_t n, uint8_t arity, SbfKindGeom *g)
{
	double		ln = log((double) (n < 2 ? 2 : n));
	double		e;
	double		c;
	double		cap;
	uint64_t	segs;

	if (arity == 3)
	{
		e = floor(ln / log(3.33) + 2.25);
		c = fmax(1.125, 0.875 + 0.25 * log(1e6) / ln);
	}
	else
	{
		e = floor(ln / log(2.91) - 0.5);
		c = fmax(1.075, 0.77 + 0.305 * log(600000.0) / ln);
	}
	e = fmin(fmax(e, 2.0), (double) SBF_FUSED_MAX_LOG2_LEN);
	cap = ceil(c * (double) n);
	if (!(cap < (double) SBF_FUSED_MAX_SLOTS))
		return false;
	g->kind = SBF_KIND_FUSED;
	g->arity = arity;
	g->log2_len = (uint8_t) e;
	segs = ((uint64_t) cap + seg_len(g) - 1) >> g->log2_len;
	g->size = segs > (uint64_t) arity ? segs - (arity - 1) : 1;
	g->attempt = 0;
	return slots_of(g) != 0;
}

/* plan() at a given arity: f = the least with 2^-f <= share. */
SbfStatus
sbf_fused_plan_arity(uint64_t n, double share, uint8_t arity, SbfKindGeom *g,
					 uint64_t *bytes)
{
	uint32_t	f = 1;

	if (n < 1 || !(share > 0.0 && share < 0.5) || (arity != 3 && arity != 4))
		return SBF_E_PARAM;
	while (f <= SBF_FUSED_MAX_F && ldexp(1.0, -(int) f) > share)
		f++;
	if (f > SBF_FUSED_MAX_F)
		return SBF_E_PARAM;
	memset(g, 0, sizeof(*g));
	g->width = (uint8_t) f;
	if (!fuse_shape(n, arity, g) || !sbf_fused_bytes(g, bytes))
		return SBF_E_TOO_LARGE;
	if (*bytes > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	return SBF_OK;
}

SbfStatus
sbf_fused_plan(uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes)
{
	return sbf_fused_plan_arity(n, share, WRITE_ARITY, g, bytes);
}

/* Whether h's slots XOR to its fingerprint. */
bool
sbf_fused_contains(const SbfKindGeom *g, const uint8_t *data, uint64_t h)
{
	uint64_t	nbytes = area_bytes(slots_of(g), g->width);
	FusePos		fp;
	uint32_t	x;
	uint32_t	j;

	fuse_positions(g, seed_of(g->attempt), h, &fp);
	x = fp.fp;
	for (j = 0; j < g->arity; j++)
		x ^= fp_get(data, nbytes, fp.p[j], g->width);
	return x == 0;
}

/* A sliced read fetches the chunk of each of h's arity slots. */
static uint32_t
fused_probe_span(const SbfKindGeom *g)
{
	return g->arity;
}

/*
 * contains(h) reads arity ranges: the bytes holding each of h's slots, from
 * the byte of its first bit to that of its last (at most 5 bytes for f <= 32;
 * inside the area, as every slot is below A and the area holds A f bits).
 */
static int
fused_probe_ranges(const SbfKindGeom *g, uint64_t h, SbfProbeRange *out)
{
	FusePos		fp;
	uint32_t	j;

	fuse_positions(g, seed_of(g->attempt), h, &fp);
	for (j = 0; j < g->arity; j++)
	{
		uint64_t	bit = (uint64_t) fp.p[j] * g->width;

		out[j].offset = bit >> 3;
		out[j].len = (uint32_t) (((bit & 7) + g->width + 7) / 8);
	}
	return g->arity;
}

/*
 * The f-bit slot at stream bit `bit` from a copy of its range (the bytes of
 * fused_probe_ranges: from the byte holding its first bit to its last).
 */
static inline uint32_t
slot_in_range(const uint8_t *range, uint64_t bit, uint32_t f)
{
	uint32_t	len = (uint32_t) (((bit & 7) + f + 7) / 8);
	uint64_t	w = 0;
	uint32_t	b;

	for (b = 0; b < len; b++)
		w |= (uint64_t) range[b] << (8 * b);
	return (uint32_t) ((w >> (bit & 7)) & ((UINT64_C(1) << f) - 1));
}

/* contains(h) from copies of the ranges of fused_probe_ranges. */
static bool
fused_probe_at(const SbfKindGeom *g, uint64_t h, const uint8_t *const *bytes)
{
	FusePos		fp;
	uint32_t	x;
	uint32_t	j;

	fuse_positions(g, seed_of(g->attempt), h, &fp);
	for (x = fp.fp, j = 0; j < g->arity; j++)
		x ^= slot_in_range(bytes[j], (uint64_t) fp.p[j] * g->width, g->width);
	return x == 0;
}

/* The mixes of h for seed number attempt: x = sbf_mix64(h + seed), x2 = sbf_mix64(x). */
void
sbf_fused_mixes(uint8_t attempt, uint64_t h, uint64_t *x, uint64_t *x2)
{
	*x = sbf_mix64(h + seed_of(attempt));
	*x2 = sbf_mix64(*x);
}

/*
 * contains() from the mixes of sbf_fused_mixes for g->attempt, the area
 * being nbytes bytes: a lookup over many segments built with one seed number
 * (windowed buckets: nearly all peel with the first) mixes each hash once.
 */
static inline bool
has_mixed(const SbfKindGeom *g, const uint8_t *data, uint64_t nbytes,
		  uint64_t x, uint64_t x2)
{
	uint64_t	len = seg_len(g);
	uint64_t	mask = len - 1;
	uint64_t	p0 = sbf_win_mulhi(x, g->size << g->log2_len);
	uint32_t	f = g->width;
	uint32_t	v = (uint32_t) (x2 & ((UINT64_C(1) << f) - 1));

	v ^= fp_get(data, nbytes, p0, f);
	v ^= fp_get(data, nbytes, (p0 + len) ^ (x & mask), f);
	v ^= fp_get(data, nbytes, (p0 + 2 * len) ^ ((x >> 18) & mask), f);
	if (g->arity == 4)
		v ^= fp_get(data, nbytes, (p0 + 3 * len) ^ ((x2 >> 40) & mask), f);
	return v == 0;
}

bool
sbf_fused_has_mixed(const SbfKindGeom *g, const uint8_t *data, uint64_t nbytes,
					uint64_t x, uint64_t x2)
{
	return has_mixed(g, data, nbytes, x, x2);
}

/*
 * sbf_fused_has_mixed of n hashes' mixes x[i], x2[i]: marks hit[i] where
 * the segment holds the hash (a hash hit already is not probed).  One call
 * a segment, not one a hash: a windowed bucket's batched adds ask every
 * segment about a chunk of hashes.
 */
void
sbf_fused_mark_mixed(const SbfKindGeom *g, const uint8_t *data, uint64_t nbytes,
					 const uint64_t *x, const uint64_t *x2, size_t n, bool *hit)
{
	size_t		i;

	for (i = 0; i < n; i++)
		hit[i] |= !hit[i] && has_mixed(g, data, nbytes, x[i], x2[i]);
}

/*
 * Batched lookups: every slot of a batch is prefetched before any is read.
 * With hit, only the hashes whose hit is false are probed, and those found
 * are marked (a lookup over several segments); the count is of those.
 */
static size_t
count_or_mark(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h,
			  size_t n, bool *hit)
{
	uint64_t	nbytes = area_bytes(slots_of(g), g->width);
	uint64_t	seed = seed_of(g->attempt);
	size_t		found = 0;
	size_t		base;

	for (base = 0; base < n; base += BATCH)
	{
		size_t		nb = n - base < BATCH ? n - base : BATCH;
		FusePos		fp[BATCH];
		size_t		b;
		uint32_t	j;

		for (b = 0; b < nb; b++)
		{
			if (hit != NULL && hit[base + b])
				continue;
			fuse_positions(g, seed, h[base + b], &fp[b]);
			for (j = 0; j < g->arity; j++)
				PREFETCH_R(data + (((uint64_t) fp[b].p[j] * g->width) >> 3));
		}
		for (b = 0; b < nb; b++)
		{
			uint32_t	x;

			if (hit != NULL && hit[base + b])
				continue;
			x = fp[b].fp;
			for (j = 0; j < g->arity; j++)
				x ^= fp_get(data, nbytes, fp[b].p[j], g->width);
			found += x == 0;
			if (hit != NULL)
				hit[base + b] = x == 0;
		}
	}
	return found;
}

SBF_KIND_COUNT_AND_MARK(sbf_fused, count_or_mark)

/*
 * Scratch of a build: per slot a count byte, a XOR of mixed hashes and one
 * entry of q.  q holds two stacks that never meet: from its front, the
 * slots hashes were peeled from, in peeling order; from its back, the slots
 * waiting to be peeled.  Each slot is pushed at most once (when its count
 * reaches 1) and each pop peels at most one hash, so peeled + waiting <=
 * slots: q has slots + 1 entries, the one spare taking the push that a
 * branch-free step writes and does not keep.
 */
typedef struct FuseScratch
{
	uint8_t    *cnt;			/* count << 2 | XOR of the slot indexes j */
	uint64_t   *hx;				/* XOR of the mixed hashes; then fingerprints */
	uint32_t   *q;				/* peeled slots from the front, to peel from the back */
	uint64_t	top;			/* index of q's last entry (= slots) */
} FuseScratch;

/*
 * Counts every hash of h[0..n) under seed into its slots; false when a slot
 * would hold 63 (then try the next seed).  The order of the hashes does not
 * matter (counts and XORs commute); the slots of the hash COUNT_AHEAD
 * places ahead are prefetched, so that the misses overlap.
 */
static bool
fuse_count(const SbfKindGeom *g, uint64_t seed, const uint64_t *h, size_t n,
		   FuseScratch *s, const SbfAllocator *a)
{
	uint64_t	ring[COUNT_AHEAD];	/* x of hashes i .. i + COUNT_AHEAD - 1 */
	/* slots that fit in the caches need no prefetching */
	size_t		ahead = s->top < COUNT_PREFETCH_SLOTS ? 0 : COUNT_AHEAD;
	size_t		i;
	uint32_t	j;

	for (i = 0; i < n && i < COUNT_AHEAD; i++)
		ring[i] = sbf_mix64(h[i] + seed);
	for (i = 0; i < n; i++)
	{
		uint64_t	x = ring[i % COUNT_AHEAD];
		uint32_t	sl[4];

		if ((i & (SBF_WORK_STRIDE - 1)) == SBF_WORK_STRIDE - 1)
			sbf_check_interrupt(a);
		if (i + COUNT_AHEAD < n && ahead == 0)
			ring[i % COUNT_AHEAD] = sbf_mix64(h[i + COUNT_AHEAD] + seed);
		else if (i + COUNT_AHEAD < n)
		{
			uint64_t	next = sbf_mix64(h[i + COUNT_AHEAD] + seed);

			ring[i % COUNT_AHEAD] = next;
			mixed_slots(g, next, sl);
			for (j = 0; j < g->arity; j++)
			{
				PREFETCH_W(&s->hx[sl[j]]);
				PREFETCH_W(&s->cnt[sl[j]]);
			}
		}
		mixed_slots(g, x, sl);
		for (j = 0; j < g->arity; j++)
		{
			uint32_t	p = sl[j];

			if (s->cnt[p] >= COUNT_MAX)
				return false;
			s->cnt[p] = (uint8_t) ((s->cnt[p] + COUNT_ONE) ^ j);
			s->hx[p] ^= x;
		}
	}
	return true;
}

/*
 * Peels from the stack of qlen slots at the back of s->q; returns how many
 * hashes were peeled, their slots at the front of s->q.  A peel removes the
 * hash from its other slots (ascending j) and pushes those whose count
 * drops to 1; the slot it was peeled from is left as it is, so it keeps the
 * hash (hx) and its index j (cnt & 3) for fuse_assign, and it is never
 * pushed again.  Past the caches the push is branch-free (the slot is
 * written, and the stack grows only when its count is 1): the next pop
 * waits for that count anyway, and a mispredicted push cost more.
 */
static size_t
fuse_unwind(const SbfKindGeom *g, size_t qlen, FuseScratch *s, const SbfAllocator *a)
{
	/* the slots other than pj, ascending (the last column for arity 4) */
	static const uint8_t other[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
	uint32_t	nother = g->arity - 1u;
	/* in the caches a predicted branch is faster; else no branch */
	bool		in_cache = s->top < COUNT_PREFETCH_SLOTS;
	size_t		popped = 0;
	size_t		peeled = 0;

	while (qlen > 0)
	{
		uint32_t	p = s->q[s->top - --qlen];
		uint8_t		c = s->cnt[p];
		uint64_t	x;
		uint32_t	pj;
		uint32_t	sl[4];
		uint32_t	k;

		if ((++popped & (SBF_WORK_STRIDE - 1)) == 0)
			sbf_check_interrupt(a);
		if ((c >> 2) != 1)
			continue;
		x = s->hx[p];
		pj = c & 3;
		s->q[peeled++] = p;
		mixed_slots(g, x, sl);
		for (k = 0; k < nother; k++)
		{
			uint32_t	j = other[pj][k];
			uint32_t	q = sl[j];
			uint8_t		cq;

			cq = (uint8_t) ((s->cnt[q] - COUNT_ONE) ^ j);
			s->cnt[q] = cq;
			s->hx[q] ^= x;
			if (in_cache)
			{
				if ((cq >> 2) == 1)
					s->q[s->top - qlen++] = q;
			}
			else
			{
				s->q[s->top - qlen] = q;
				qlen += (cq >> 2) == 1;
			}
		}
	}
	return peeled;
}

/*
 * One attempt with seed: counts every hash into its slots, then peels slots
 * that hold one hash.  The slots to peel are a stack (last found, first
 * peeled, as in the reference implementation): a peel frees slots in the
 * next segments, which are peeled at once while they are in the cache; a
 * first-in first-out queue measured three times slower at 1M hashes.
 * Returns how many hashes were peeled (n: success).
 */
static size_t
fuse_peel(const SbfKindGeom *g, uint64_t seed, const uint64_t *h, size_t n,
		  uint64_t slots, FuseScratch *s, const SbfAllocator *a)
{
	size_t		qlen = 0;
	uint64_t	i;

	memset(s->cnt, 0, (size_t) slots);
	memset(s->hx, 0, (size_t) slots * sizeof(uint64_t));
	if (!fuse_count(g, seed, h, n, s, a))
		return 0;				/* a slot of 63 hashes: try the next seed */
	for (i = 0; i < slots; i++)
	{
		s->q[s->top - qlen] = (uint32_t) i;
		qlen += (s->cnt[i] >> 2) == 1;
	}
	return fuse_unwind(g, qlen, s, a);
}

/*
 * Fingerprints of a peeled attempt, in reverse peeling order (each hash's
 * free slot gets what makes its XOR its fingerprint), packed into data.
 * After a complete peel a hash's free slot still holds it (hx, and its j in
 * cnt) and every other slot holds 0: a slot read here is either one a later
 * peeled hash was assigned already or 0, as if the area had been cleared.
 */
static void
fuse_assign(const SbfKindGeom *g, uint8_t *data, size_t n, uint64_t slots,
			FuseScratch *s, const SbfAllocator *a)
{
	uint64_t	nbytes = area_bytes(slots, g->width);
	/* 3 or 4 (the geometry's check): the slots mixed_positions wrote */
	uint32_t	arity = g->arity == 4 ? 4 : 3;
	size_t		i;
	uint32_t	j;

	for (i = n; i-- > 0;)
	{
		uint32_t	p = s->q[i];
		uint32_t	pj = s->cnt[p] & 3;
		FusePos		fp;
		uint64_t	v;

		if ((i & (SBF_WORK_STRIDE - 1)) == 0)
			sbf_check_interrupt(a);
		if (i >= ASSIGN_AHEAD)
			PREFETCH_R(&s->hx[s->q[i - ASSIGN_AHEAD]]);
		mixed_positions(g, s->hx[p], &fp);
		v = fp.fp;
		for (j = 0; j < arity; j++)
			if (j != pj)
				v ^= s->hx[fp.p[j]];
		s->hx[p] = v;
	}
	memset(data, 0, (size_t) nbytes);
	for (i = 0; i < slots; i++)
	{
		uint64_t	bit = (uint64_t) i * g->width;
		uint64_t	v = s->hx[i];
		uint32_t	done = 0;

		if ((i & (SBF_WORK_STRIDE - 1)) == SBF_WORK_STRIDE - 1)
			sbf_check_interrupt(a);
		while (done < g->width)
		{
			uint64_t	b = bit + done;

			data[b >> 3] |= (uint8_t) ((v >> done) << (b & 7));
			done += 8 - (uint32_t) (b & 7);
		}
	}
}


/*
 * Builds from n strictly ascending hashes, trying seed numbers g->attempt,
 * g->attempt + 1, ... < SBF_FUSED_MAX_ATTEMPTS.  Scratch: 13 bytes a slot
 * (about 15 bytes a hash) in one block, freed before returning.
 */
SbfStatus
sbf_fused_build(SbfKindGeom *g, uint8_t *data, const uint64_t *h, size_t n,
			const SbfAllocator *a)
{
	uint64_t	slots = slots_of(g);
	uint64_t	nbytes = area_bytes(slots, g->width);
	FuseScratch s;
	uint32_t	r;
	size_t		i;

	if (n < 1 || n > slots)
		return SBF_E_PARAM;
	for (i = 1; i < n; i++)
		if (h[i - 1] >= h[i])
			return SBF_E_PARAM;
	/* a 32-bit size_t could overflow below; 64-bit ones cannot */
	if (slots >= (SIZE_MAX - sizeof(uint32_t)) / 13)
		return SBF_E_TOO_LARGE;
	/*
	 * One block (hx, then q, then cnt): one allocation that the allocator
	 * can keep for the next build of a similar size.
	 */
	s.hx = a->alloc((size_t) slots * 13 + sizeof(uint32_t), a->ctx);
	if (s.hx == NULL)
		return SBF_E_NOMEM;
	s.q = (uint32_t *) (s.hx + slots);
	s.cnt = (uint8_t *) (s.q + slots + 1);
	s.top = slots;
	for (r = g->attempt; r < SBF_FUSED_MAX_ATTEMPTS; r++)
	{
		if (fuse_peel(g, seed_of(r), h, n, slots, &s, a) == n)
			break;
		sbf_check_interrupt(a);
	}
	if (r >= SBF_FUSED_MAX_ATTEMPTS)
		memset(data, 0, (size_t) nbytes);
	else
	{
		g->attempt = (uint8_t) r;
		fuse_assign(g, data, n, slots, &s, a);
	}
	a->free(s.hx, a->ctx);
	return r >= SBF_FUSED_MAX_ATTEMPTS ? SBF_E_SEGMENT : SBF_OK;
}

/* 2^-f for any hash not in the set, however many hashes it holds. */
double
sbf_fused_rate_at(const SbfKindGeom *g, uint64_t n)
{
	(void) n;
	return ldexp(1.0, -(int) g->width);
}

double
sbf_fused_rate_of(const SbfKindGeom *g, const uint8_t *data)
{
	(void) data;
	return ldexp(1.0, -(int) g->width);
}

/* No fill model: half its fingerprint bits are set, whatever the set. */
static double
fused_expected_fill(const SbfSegment *seg)
{
	(void) seg;
	return 0.5;
}

/* sbf_info's keys after "bits": fingerprint width, arity, segment length. */
static int
fused_describe(const SbfKindGeom *g, SbfInfoKey *out)
{
	out[0] = (SbfInfoKey) {"fingerprint_bits", g->width};
	out[1] = (SbfInfoKey) {"arity", g->arity};
	out[2] = (SbfInfoKey) {"segment_length", (uint64_t) 1 << g->log2_len};
	return 3;
}

/*
 * The fused kind's row: a complete set only, first in the choose order up
 * to SBF_FUSED_MAX_BUILD hashes; its count is exact and it never merges.
 */
const SbfKindOps sbf_kind_fused_ops = {
	SBF_KIND_ROW(SBF_KIND_FUSED, "fused", sbf_fused),
	.dirs = SBF_KIND_IN_PLAIN4 | SBF_KIND_IN_PLAIN5 | SBF_KIND_IN_WINDOW4,
	.complete = true,
	/* the choice: first, up to its largest build */
	.choose_rank = 0, .choose_max_n = SBF_FUSED_MAX_BUILD,
	/* counts (exact: no model), sbf_info */
	.expected_fill = fused_expected_fill, .expected_rate = sbf_fused_rate_at,
	.describe = fused_describe,
	/* reads by slices, unions (appended), lookups */
	SBF_KIND_SLICED_READS(fused),
	.union_rule = SBF_UNION_APPEND,
	.count_batched = true, .mark = sbf_fused_mark,
	.win_lane = SBF_WIN_LANE_FUSE,
};
