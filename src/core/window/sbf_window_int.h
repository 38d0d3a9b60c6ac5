/*
 * sbf_window_int.h
 *	  The window subsystem's internal header (its public face is
 *	  sbf_window.h): what its files share and no other file uses, and the
 *	  probe of a windowed filter's segments, shared by the writers' lookups
 *	  (sbf_window.c decodes a chunk of the directory per call) and the lookup
 *	  plan (sbf_plan.c decodes every chunk once per value).  Pure C, no
 *	  PostgreSQL headers.
 *
 *	  The subsystem in layers, each file using only its own layer and those
 *	  above it:
 *		reading a value		sbf_window.c: parameters, parse, the validator's
 *							windowed branch, the decode of a directory entry,
 *							lookups and counts
 *		building a bucket	sbf_window_build.c: a bucket's segment from its hashes
 *		writing a value		sbf_window_write.c (the mutable form: load, add,
 *							slide, compact, unite), sbf_window_batch.c (many
 *							adds at a bucket), sbf_window_pairs.c (a window
 *							from pairs), sbf_window_encode.c (the payload)
 *
 *	  A chunk holds up to SBF_WIN_CHUNK directory entries in three groups:
 *	  windowed bloom segments (kind 4) by width, blocked segments (kind 2) by
 *	  probes, and the others (fused) one by one.  Within each group entries
 *	  keep directory order, so their ages ascend: the segments of age <=
 *	  max_age are a prefix of each group (SbfWinLim).
 */
#ifndef SBF_WINDOW_INT_H
#define SBF_WINDOW_INT_H

#include "sbf_internal.h"
#include "sbf_kind.h"
#include "sbf_window.h"

/* segments a lookup decodes at once: the bits of one uint64_t mask */
#define SBF_WIN_CHUNK	64

/*
 * Directory entries decoded for a lookup.  Windowed bloom segments (kind 4):
 * m and bits of each, and by k: kend[q] has bit i set when segment i has
 * k = q + 1 hash functions.  Blocked segments (kind 2) the same way, their
 * probe q being bit q of the hash's line.  Fused segments (three slots a
 * probe) in other[0..nother).  The ages of each group, for SbfWinLim.
 */
typedef struct SbfWinChunk
{
	uint32_t	n;
	uint32_t	kmax;
	uint32_t	nother;
	uint32_t	nblocked;
	uint32_t	bkmax;
	uint64_t	m[SBF_WIN_CHUNK];
	const uint8_t *bits[SBF_WIN_CHUNK];
	uint16_t	age[SBF_WIN_CHUNK];
	uint64_t	kend[SBF_MAX_K];
	/* blocked segments: geometry, data, and bkend by k as kend */
	SbfKindGeom bg[SBF_WIN_CHUNK];
	const uint8_t *bdata[SBF_WIN_CHUNK];
	uint16_t	bage[SBF_WIN_CHUNK];
	uint64_t	bkend[SBF_BLOCKED_MAX_K];
	SbfWinSeg	other[SBF_WIN_CHUNK];
} SbfWinChunk;

/* How many segments of each group of a chunk a lookup probes. */
typedef struct SbfWinLim
{
	uint32_t	n;
	uint32_t	nblocked;
	uint32_t	nother;
} SbfWinLim;

/*
 * The mixes of one hash, computed when first needed: r_i (sbf_win_mix) for
 * kind 4, the fused mixes of seed number 0, which nearly every fused
 * bucket was built with (sbf_fused_mixes), and the blocked probes, the same
 * in every blocked segment (sbf_blocked_probes).
 */
typedef struct SbfWinMixes
{
	uint64_t	h;
	uint32_t	have;
	bool		fused0;
	bool		blocked;
	uint64_t	fx;
	uint64_t	fx2;
	uint64_t	r[SBF_MAX_K];
	uint16_t	probes[SBF_BLOCKED_MAX_K];
} SbfWinMixes;

/* Starts the mixes of hash h (none computed yet). */
static inline void
sbf_win_mixes_start(SbfWinMixes *x, uint64_t h)
{
	x->h = h;
	x->have = 0;
	x->fused0 = false;
	x->blocked = false;
}

/* Whether segment s (fused, or a kind without a shared probe) holds x's hash. */
static inline bool
sbf_winchunk_other_has(const SbfWinSeg *s, SbfWinMixes *x)
{
	uint64_t	fx;
	uint64_t	fx2;

	if (s->ops->win_lane != SBF_WIN_LANE_FUSE)
		return s->ops->contains(&s->g, s->bits, x->h);
	if (s->g.attempt != 0)
		sbf_fused_mixes(s->g.attempt, x->h, &fx, &fx2);
	else
	{
		if (!x->fused0)
		{
			sbf_fused_mixes(0, x->h, &x->fx, &x->fx2);
			x->fused0 = true;
		}
		fx = x->fx;
		fx2 = x->fx2;
	}
	return sbf_fused_has_mixed(&s->g, s->bits, s->bytes, fx, fx2);
}

static inline uint64_t
sbf_winchunk_mix(SbfWinMixes *x, uint32_t i)
{
	while (x->have <= i)
	{
		x->r[x->have] = sbf_win_mix(x->h, x->have);
		x->have++;
	}
	return x->r[i];
}

/*
 * Marks slot of a chunk's segments of width k in end (end[k - 1] has the
 * slot's bit; end[q] for q up to the widest so far exists).
 */
static inline void
sbf_winchunk_mark(uint64_t *end, uint32_t *kmax, uint32_t k, uint32_t slot)
{
	uint32_t	q;

	for (q = *kmax; q < k; q++)
		end[q] = 0;
	if (k > *kmax)
		*kmax = k;
	end[k - 1] |= (uint64_t) 1 << slot;
}

/* Empties a chunk. */
static inline void
sbf_winchunk_reset(SbfWinChunk *c)
{
	c->n = 0;
	c->kmax = 0;
	c->nother = 0;
	c->nblocked = 0;
	c->bkmax = 0;
}

/* Entries in a chunk. */
static inline uint32_t
sbf_winchunk_size(const SbfWinChunk *c)
{
	return c->n + c->nother + c->nblocked;
}

/* Adds a decoded segment to a chunk that is not full. */
static inline void
sbf_winchunk_add(SbfWinChunk *c, const SbfWinSeg *seg)
{
	if (seg->ops->win_lane == SBF_WIN_LANE_LINE)
	{
		sbf_winchunk_mark(c->bkend, &c->bkmax, seg->g.width, c->nblocked);
		c->bg[c->nblocked] = seg->g;
		c->bage[c->nblocked] = seg->age;
		c->bdata[c->nblocked++] = seg->bits;
		return;
	}
	if (seg->ops->win_lane != SBF_WIN_LANE_MIX)
	{
		c->other[c->nother++] = *seg;
		return;
	}
	sbf_winchunk_mark(c->kend, &c->kmax, seg->g.width, c->n);
	c->m[c->n] = seg->g.size;
	c->bits[c->n] = seg->bits;
	c->age[c->n] = seg->age;
	c->n++;
}

/* Every segment of a chunk. */
static inline void
sbf_winchunk_all(const SbfWinChunk *c, SbfWinLim *lim)
{
	lim->n = c->n;
	lim->nblocked = c->nblocked;
	lim->nother = c->nother;
}

/*
 * Whether a blocked segment of c (the first nblocked) holds x's hash, probe
 * by probe as the windowed bloom ones (sbf_winchunk_has): the probes are the
 * same bits in every segment (sbf_blocked_probes, once per hash), each
 * segment reads them from its own line, and a segment drops out at its
 * first clear probe.
 */
static inline bool
sbf_winchunk_blocked_has(const SbfWinChunk *c, uint32_t nblocked, SbfWinMixes *x)
{
	const uint8_t *line[SBF_WIN_CHUNK];
	uint64_t	alive = nblocked == 64 ? ~(uint64_t) 0 :
		((uint64_t) 1 << nblocked) - 1;
	uint32_t	i;
	uint32_t	q;

	if (!x->blocked)
	{
		sbf_blocked_probes(x->h, SBF_BLOCKED_MAX_K, x->probes);
		x->blocked = true;
	}
	for (i = 0; i < nblocked; i++)
		line[i] = sbf_blocked_line(&c->bg[i], c->bdata[i], x->h);
	for (q = 0; alive != 0 && q < c->bkmax; q++)
	{
		uint32_t	b = x->probes[q];
		uint64_t	next = 0;
		uint64_t	a = alive;

		while (a != 0)
		{
			i = (uint32_t) sbf_ctz64(a);
			a &= a - 1;
			next |= (uint64_t) ((line[i][b >> 3] >> (b & 7)) & 1) << i;
		}
		if ((next & c->bkend[q]) != 0)
			return true;
		alive = next & ~c->bkend[q];
	}
	return false;
}

/*
 * Whether a segment of c within lim holds the hash of x: first the blocked
 * and fused segments (their kind's probe), then the windowed bloom ones hash
 * function by hash function: probe q tests, in every segment still alive,
 * bit mulhi(r_q, m) (one mix for all of them), and the segments whose bit is
 * clear drop out; a segment that passes its k-th probe holds the hash.  No
 * branch depends on a bit (a negative over 30 segments would mispredict
 * about half of them), and the loads of one round are independent, so they
 * overlap.
 */
static inline bool
sbf_winchunk_has(const SbfWinChunk *c, const SbfWinLim *lim, SbfWinMixes *x)
{
	uint64_t	alive = lim->n == 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << lim->n) - 1;
	uint32_t	q;

	for (q = 0; q < lim->nother; q++)
		if (sbf_winchunk_other_has(&c->other[q], x))
			return true;
	if (lim->nblocked > 0 && sbf_winchunk_blocked_has(c, lim->nblocked, x))
		return true;

	for (q = 0; alive != 0 && q < c->kmax; q++)
	{
		uint64_t	r = sbf_winchunk_mix(x, q);
		uint64_t	next = 0;
		uint64_t	a = alive;

		while (a != 0)
		{
			uint32_t	i = (uint32_t) sbf_ctz64(a);

			a &= a - 1;
			next |= (uint64_t) sbf_bit_test(c->bits[i], sbf_win_mulhi(r, c->m[i])) << i;
		}
		if ((next & c->kend[q]) != 0)
			return true;
		alive = next & ~c->kend[q];
	}
	return false;
}

/* Whether pair hash h is present with an age <= max_age (binary search). */
static inline bool
sbf_win_pairs_contain(const SbfWinView *v, uint64_t h, int64_t max_age)
{
	const uint8_t *hashes = v->buf + v->pairs_offset;
	uint32_t	i = sbf_search64(hashes, v->npairs, h);

	return i < v->npairs && sbf_load64(hashes + (size_t) i * 8) == h &&
		sbf_load16(hashes + (size_t) v->npairs * 8 + (size_t) i * 2) <= max_age;
}

/* ---- shared by the files of the subsystem ---- */

/* version-4 entry fields (the reader decodes them; the encoder writes them) */
#define W4_AGE			0
#define W4_RESERVED		2
#define W4_COUNT		4
#define W4_DESC			8

/* Version 4's segment checks (validator): kinds, padding, order, budgets. */
extern SbfStatus sbf_win4_check_segments(const SbfWinView *v);

/* A validator's walk over a windowed directory: order and bucket budgets. */
typedef struct SbfWinSpend
{
	double		budget;			/* P = e/B, with SBF_WIN_BUDGET_SLACK */
	double		spent;			/* by the current bucket's segments so far */
	SbfWinSeg	prev;			/* the previous entry */
} SbfWinSpend;

/* One step (sbf_window.c): SBF_E_WINDOW out of order or over the budget. */
extern SbfStatus sbf_win_spend(SbfWinSpend *sp, const SbfWinSeg *seg, uint32_t j,
							   bool ascending);

/*
 * The pairs that live adds leave waiting (sbf_window_waiting.c): started
 * before a step (counting the newest bucket's pairs), freed by sbf_win_free
 * and, after the merge into the sorted pairs, by sbf_win_settle.  A waiting
 * pair is no sorted pair.
 */
struct SbfWinLive
{
	uint64_t   *h;				/* waiting pairs: hashes, in arrival order */
	uint16_t   *age;			/* and their ages */
	uint32_t	n;
	uint32_t	cap;
	uint32_t   *slot;			/* index + 1 into h; 0: empty */
	uint32_t	mask;			/* table size - 1 (size = 2 cap) */
	uint32_t	c;				/* pairs of age 0, sorted and waiting */
	int32_t		same_age;		/* the age of every waiting pair, -1: they differ */
};

/* The table slot where h is or would go (L->cap > 0). */
static inline uint32_t
sbf_win_live_find(const SbfWinLive *L, uint64_t h)
{
	uint32_t	i = (uint32_t) sbf_mix64(h) & L->mask;

	while (L->slot[i] != 0 && L->h[L->slot[i] - 1] != h)
		i = (i + 1) & L->mask;
	return i;
}

/* Room for need sorted pairs. */
extern SbfStatus sbf_win_reserve_pairs(SbfWindow *w, size_t need);
/* Pairs of the newest bucket among the sorted pairs. */
extern uint32_t sbf_win_newest_pairs(const SbfWindow *w);
extern SbfStatus sbf_win_live_start(SbfWindow *w);
extern void sbf_win_live_free(SbfWindow *w);
/* Appends new pair (x, a) to the waiting pairs. */
extern SbfStatus sbf_win_live_push(SbfWindow *w, uint64_t x, uint16_t a);
/* Merges the waiting pairs into the sorted pairs (the buffer stays, empty). */
extern SbfStatus sbf_win_live_merge(SbfWindow *w, SbfWinLive *L);

/*
 * One hash's step of sbf_win_add (sbf_window_live.c; w->live started):
 * holder is the newest segment holding the hash when known, NULL to look;
 * *tried tells whether a conversion was tried (the segments may have
 * changed).
 */
extern SbfStatus sbf_win_live_step(SbfWindow *w, uint64_t x, uint16_t a,
								   SbfWinSeg *const *holder, bool *tried);

/* Helpers of the live adds (sbf_window_live.c, _batch.c) in sbf_window_write.c. */
extern uint32_t sbf_win_pair_search(const SbfWindow *w, uint64_t h);
extern bool sbf_win_segments_hold(SbfWindow *w, uint64_t h, uint32_t a);
extern bool sbf_win_holder_holds(SbfWinSeg *s, uint32_t a);
extern bool sbf_win_open_reads_pairs(const SbfWindow *w);
extern SbfStatus sbf_win_close_open(SbfWindow *w, uint32_t c, uint32_t npairs,
									bool *done);

#endif							/* SBF_WINDOW_INT_H */
