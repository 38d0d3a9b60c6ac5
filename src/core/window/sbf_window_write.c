/*
 * sbf_window_write.c
 *	  Writing side of windowed filters ("WINDOWED FORM" in sbf_core.h): the
 *	  mutable SbfWindow decoded from a view, adds at a bucket, slides,
 *	  compaction of pairs into right-sized segments (WINDOW SIZING), unions
 *	  bucket by bucket and the canonical encoding.
 */
#include <math.h>
#include <stdlib.h>

#include "sbf_window_int.h"

/* Allocates through the window's allocator. */
static void *
win_alloc(SbfWindow *w, size_t n)
{
	return w->a->alloc(n == 0 ? 1 : n, w->a->ctx);
}

static void
win_free(SbfWindow *w, void *p)
{
	sbf_free(w->a, p);
}

void
sbf_win_init(SbfWindow *w, const SbfWinParams *p, const SbfAllocator *a)
{
	memset(w, 0, sizeof(*w));
	w->p = *p;
	w->a = a;
}

void
sbf_win_free(SbfWindow *w)
{
	uint32_t	j;

	sbf_win_live_free(w);
	for (j = 0; j < w->nsegs; j++)
		if (w->segs[j].owned)
			win_free(w, (void *) w->segs[j].bits);
	win_free(w, w->segs);
	win_free(w, w->hash);
	win_free(w, w->age);
	w->segs = NULL;
	w->hash = NULL;
	w->age = NULL;
	w->nsegs = w->npairs = w->segcap = w->paircap = 0;
}

/* Room for need segments. */
static SbfStatus
reserve_segs(SbfWindow *w, size_t need)
{
	size_t		cap;
	SbfWinSeg  *s;

	if (need <= w->segcap)
		return SBF_OK;
	if (need > SBF_WIN_MAX_SEGMENTS)
		return SBF_E_TOO_MANY_SEGMENTS;
	cap = w->segcap * 2 > need ? w->segcap * 2 : need;
	if (cap < 8)
		cap = 8;
	s = win_alloc(w, cap * sizeof(SbfWinSeg));
	if (s == NULL)
		return SBF_E_NOMEM;
	if (w->nsegs > 0)
		memcpy(s, w->segs, w->nsegs * sizeof(SbfWinSeg));
	win_free(w, w->segs);
	w->segs = s;
	w->segcap = (uint32_t) cap;
	return SBF_OK;
}

/* Decodes a view (segment bits borrowed from v->buf). */
SbfStatus
sbf_win_load(SbfWindow *w, const SbfWinView *v, const SbfAllocator *a)
{
	SbfWinParams p = {v->width, v->buckets, v->error_rate};
	size_t		off = v->bits_offset;
	const uint8_t *ages = v->buf + v->pairs_offset + (size_t) v->npairs * 8;
	SbfStatus	st;
	uint32_t	i;

	sbf_win_init(w, &p, a);
	/* compaction counts pairs by age in B slots: parse does not check them */
	if ((st = sbf_win_check_pairs(v)) != SBF_OK)
		return st;
	w->flags = v->flags;
	w->newest = v->newest;
	if ((st = reserve_segs(w, v->nsegments)) != SBF_OK ||
		(st = sbf_win_reserve_pairs(w, v->npairs)) != SBF_OK)
	{
		sbf_win_free(w);
		return st;
	}
	for (i = 0; i < v->nsegments; i++)
	{
		sbf_win_read_segment(v, i, &off, &w->segs[i]);
		w->segs[i].fpr = sbf_win_segment_fpr(&w->segs[i]);
	}
	w->nsegs = v->nsegments;
	for (i = 0; i < v->npairs; i++)
	{
		w->hash[i] = sbf_load64(v->buf + v->pairs_offset + (size_t) i * 8);
		w->age[i] = sbf_load16(ages + (size_t) i * 2);
	}
	w->npairs = v->npairs;
	return SBF_OK;
}

static int
seg_qsort_cmp(const void *a, const void *b)
{
	return sbf_win_segment_cmp((const SbfWinSeg *) a, (const SbfWinSeg *) b, false);
}

/* Whether two segments have the same bucket, descriptor and data (counts aside). */
static bool
same_bits(const SbfWinSeg *a, const SbfWinSeg *b)
{
	SbfWinSeg	x = *a;

	x.count = b->count;
	return sbf_win_segment_cmp(&x, b, true) == 0;
}

/* Order by (age, descriptor, data, count): segments of equal data side by side. */
static int
seg_bits_qsort_cmp(const void *a, const void *b)
{
	return sbf_win_segment_cmp((const SbfWinSeg *) a, (const SbfWinSeg *) b, true);
}

/*
 * Sorts the segments canonically and keeps one of the segments with the same
 * bucket, descriptor and data: the one with the smallest count (the same
 * part, with fewer of its elements counted here, COUNTS in sbf_core.h).
 */
void
sbf_win_sort_segments(SbfWindow *w)
{
	uint32_t	i;
	uint32_t	n = 0;

	if (w->nsegs < 2)
		return;
	qsort(w->segs, w->nsegs, sizeof(SbfWinSeg), seg_bits_qsort_cmp);
	for (i = 0; i < w->nsegs; i++)
	{
		if (n > 0 && same_bits(&w->segs[n - 1], &w->segs[i]))
		{
			if (w->segs[i].owned)
				win_free(w, (void *) w->segs[i].bits);
			continue;
		}
		w->segs[n++] = w->segs[i];
	}
	w->nsegs = n;
	qsort(w->segs, w->nsegs, sizeof(SbfWinSeg), seg_qsort_cmp);
}

/* The shift from bucket "from" to bucket "to" >= from, capped at B. */
static uint32_t
capped_shift(const SbfWindow *w, int64_t to, int64_t from)
{
	uint64_t	d = sbf_win_age_of(to, from);

	return d >= w->p.buckets ? w->p.buckets : (uint32_t) d;
}

/*
 * Ages every pair and segment by shift (0..B) buckets and drops what reaches
 * B; no compaction (slide and union compact afterwards).
 */
static void
shift_ages(SbfWindow *w, uint32_t shift)
{
	uint32_t	i;
	uint32_t	n = 0;

	w->open_retry = 0;			/* a new newest bucket */
	for (i = 0; i < w->npairs; i++)
		if ((uint32_t) w->age[i] + shift < w->p.buckets)
		{
			w->hash[n] = w->hash[i];
			w->age[n++] = (uint16_t) (w->age[i] + shift);
		}
	w->npairs = n;
	n = 0;
	for (i = 0; i < w->nsegs; i++)
	{
		if ((uint32_t) w->segs[i].age + shift < w->p.buckets)
		{
			w->segs[n] = w->segs[i];
			w->segs[n++].age = (uint16_t) (w->segs[i].age + shift);
		}
		else if (w->segs[i].owned)
			win_free(w, (void *) w->segs[i].bits);
	}
	w->nsegs = n;
}

/* The false-positive rates the segments of bucket age a spend. */
static double
spent_of(const SbfWindow *w, uint32_t a)
{
	double		s = 0.0;
	uint32_t	j;

	for (j = 0; j < w->nsegs; j++)
		if (w->segs[j].age == a)
			s += w->segs[j].fpr;
	return s;
}

/*
 * A segment of bucket a from its c pairs at rate share (sbf_win_make_segment:
 * the kind sbf_win_kind_choose gives); with max_bytes not 0, none (*built false)
 * when its area would take max_bytes or more.
 */
static SbfStatus
build_segment(SbfWindow *w, uint32_t a, uint32_t c, double share,
			  uint64_t max_bytes, SbfWinSeg *seg, bool *built)
{
	uint64_t   *h = win_alloc(w, (size_t) c * sizeof(uint64_t));
	uint32_t	n = 0;
	uint32_t	i;
	SbfStatus	st;

	if (h == NULL)
		return SBF_E_NOMEM;
	/* the pairs ascend by hash, one per hash: strictly ascending */
	for (i = 0; i < w->npairs && n < c; i++)
		if (w->age[i] == a)
			h[n++] = w->hash[i];
	st = sbf_win_make_segment(h, n, share, w->avoid_kinds, max_bytes, w->a,
							  seg, built);
	win_free(w, h);
	if (st == SBF_OK && *built)
		seg->age = (uint16_t) a;
	return st;
}

/* Drops the pairs of bucket age a (they went into a segment). */
static void
drop_pairs(SbfWindow *w, uint32_t a)
{
	uint32_t	i;
	uint32_t	n = 0;

	for (i = 0; i < w->npairs; i++)
		if (w->age[i] != a)
		{
			w->hash[n] = w->hash[i];
			w->age[n++] = w->age[i];
		}
	w->npairs = n;
}

/* The share a conversion of bucket age a tries first (convert_age). */
static double
first_share(const SbfWindow *w, uint32_t a)
{
	double		budget = w->p.error_rate / (double) w->p.buckets;
	double		spent = spent_of(w, a);

	return spent == 0.0 ? pow(budget, 1.04) : (budget - spent) / 2.0;
}

/*
 * Whether closing the newest bucket would read its pairs: false when its
 * first share is already below SBF_MIN_SEGMENT_ERROR (the bucket's budget
 * is spent), so that convert_age gives up before looking at them.
 */
bool
sbf_win_open_reads_pairs(const SbfWindow *w)
{
	return first_share(w, 0) >= SBF_MIN_SEGMENT_ERROR;
}

/*
 * Turns the c pairs of bucket age a into one segment (WINDOW SIZING: share
 * P^1.04, or (P - s)/2 when the bucket already spends s; the kind of
 * sbf_win_kind_choose) when force or when the segment (its entry and area) is
 * smaller than the pairs, and its rate fits what the bucket has left (tried
 * at the share, /2, /4, /8: a fused rate always fits, a blocked one may
 * not); *done tells whether it did.
 */
static SbfStatus
convert_age(SbfWindow *w, uint32_t a, uint32_t c, bool force, bool *done)
{
	double		budget = w->p.error_rate / (double) w->p.buckets;
	double		spent = spent_of(w, a);
	double		pe = first_share(w, a);
	uint64_t	pairs_bytes = (uint64_t) c * SBF_WIN_PAIR_BYTES;
	uint64_t	max_bytes = 0;
	int			attempt;
	SbfStatus	st;

	*done = false;
	if ((st = reserve_segs(w, (size_t) w->nsegs + 1)) != SBF_OK)
		return st;
	if (!force)
	{
		if (pairs_bytes <= SBF_WIN4_SEGDIR_BYTES)
			return SBF_OK;		/* the pairs are smaller */
		max_bytes = pairs_bytes - SBF_WIN4_SEGDIR_BYTES;
	}
	for (attempt = 0; attempt < 4; attempt++, pe /= 2.0)
	{
		SbfWinSeg	seg;
		bool		built;

		if (!(pe >= SBF_MIN_SEGMENT_ERROR))
			return SBF_OK;
		st = build_segment(w, a, c, pe, max_bytes, &seg, &built);
		if (st == SBF_E_PARAM || st == SBF_E_TOO_LARGE)
			return SBF_OK;		/* no kind reaches pe: the pairs stay */
		if (st != SBF_OK)
			return st;
		if (!built)
			return SBF_OK;		/* the pairs are smaller */
		if (spent + seg.fpr <= budget)
		{
			drop_pairs(w, a);
			w->segs[w->nsegs++] = seg;
			*done = true;
			return SBF_OK;
		}
		win_free(w, (void *) seg.bits);
	}
	return SBF_OK;				/* no fit: the pairs stay exact */
}

/* Compacts the buckets that are not the newest (and with newest_too, it too). */
SbfStatus
sbf_win_compact(SbfWindow *w, bool newest_too)
{
	uint32_t	counts[SBF_WIN_MAX_BUCKETS] = {0};
	uint32_t	a;
	uint32_t	i;
	bool		any = false;
	SbfStatus	st;

	if ((st = sbf_win_settle(w)) != SBF_OK)
		return st;
	for (i = 0; i < w->npairs; i++)
	{
		if (w->age[i] >= w->p.buckets)
			return SBF_E_WINDOW;	/* cannot happen: loads and writes keep ages < B */
		counts[w->age[i]]++;
	}
	for (a = newest_too ? 0 : 1; a < w->p.buckets; a++)
	{
		bool		done;

		if (counts[a] == 0)
			continue;
		sbf_check_interrupt(w->a);
		st = convert_age(w, a, counts[a], false, &done);
		if (st != SBF_OK)
			return st;
		any |= done;
	}
	if (any)
		sbf_win_sort_segments(w);
	return SBF_OK;
}

/* Slides the window so that bucket b is the newest. */
SbfStatus
sbf_win_slide(SbfWindow *w, int64_t b)
{
	SbfStatus	st;

	if (!sbf_win_bucket_in_range(b, w->p.width))
		return SBF_E_PARAM;		/* the validator would refuse it as newest */
	if (!(w->flags & SBF_WIN_FLAG_STARTED))
	{
		w->flags |= SBF_WIN_FLAG_STARTED;
		w->newest = b;
		return SBF_OK;
	}
	if (b <= w->newest)
		return SBF_OK;
	if ((st = sbf_win_settle(w)) != SBF_OK)
		return st;
	shift_ages(w, capped_shift(w, b, w->newest));
	w->newest = b;
	return sbf_win_compact(w, false);
}

/* Index of the first pair whose hash is >= h. */
uint32_t
sbf_win_pair_search(const SbfWindow *w, uint64_t h)
{
	uint32_t	lo = 0;
	uint32_t	hi = w->npairs;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (w->hash[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Whether segment s probably holds x's hash: its kind's contains, with the
 * mixes that segments share computed once per hash (windowed bloom
 * positions, fused segments of seed number 0).
 */
static inline bool
segment_has_mixed(const SbfWinSeg *s, SbfWinMixes *x)
{
	uint32_t	q = 0;

	if (s->ops->win_lane != SBF_WIN_LANE_MIX)
		return sbf_winchunk_other_has(s, x);
	/* the first two probes without a branch between them (k >= 2 nearly always) */
	if (s->g.width >= 2)
	{
		uint64_t	m = s->g.size;
		unsigned	b0 = sbf_bit_test(s->bits, sbf_win_mulhi(sbf_winchunk_mix(x, 0), m));
		unsigned	b1 = sbf_bit_test(s->bits, sbf_win_mulhi(sbf_winchunk_mix(x, 1), m));

		if ((b0 & b1) == 0)
			return false;
		q = 2;
	}
	for (; q < s->g.width; q++)
		if (!sbf_bit_test(s->bits, sbf_win_mulhi(sbf_winchunk_mix(x, q), s->g.size)))
			return false;
	return true;
}

/*
 * The newest segment among segs[0..n) that probably holds h, or NULL
 * (any order of the segments).
 */
static SbfWinSeg *
newest_holding(SbfWinSeg *segs, uint32_t n, uint64_t h)
{
	SbfWinSeg  *best = NULL;
	SbfWinMixes x;
	uint32_t	j;

	sbf_win_mixes_start(&x, h);
	for (j = 0; j < n; j++)
		if ((best == NULL || segs[j].age < best->age) &&
			segment_has_mixed(&segs[j], &x))
			best = &segs[j];
	return best;
}

/*
 * Before hash h becomes a pair of age a: whether a segment of age <= a
 * probably holds it already (then the pair adds nothing).  Otherwise the
 * newest older segment that probably holds it no longer counts it (COUNTS
 * in sbf_core.h): h's newest bucket is now a.
 */
bool
sbf_win_segments_hold(SbfWindow *w, uint64_t h, uint32_t a)
{
	return sbf_win_holder_holds(newest_holding(w->segs, w->nsegs, h), a);
}

/* The same once the newest segment holding h, s (NULL: none), is known. */
bool
sbf_win_holder_holds(SbfWinSeg *s, uint32_t a)
{
	if (s == NULL)
		return false;
	if (s->age <= a)
		return true;
	if (s->count > 0)
		s->count--;
	return false;
}

/*
 * The conversion of the newest bucket once it is due (sbf_window_live.c):
 * its c pairs into a segment, or the next try after SBF_WIN_OPEN_MAX more
 * of the npairs pairs.  *done (if not NULL) tells whether it converted.
 */
SbfStatus
sbf_win_close_open(SbfWindow *w, uint32_t c, uint32_t npairs, bool *done)
{
	bool		conv;
	SbfStatus	st;

	sbf_check_interrupt(w->a);
	st = convert_age(w, 0, c, true, &conv);
	if (st == SBF_OK && conv)
		sbf_win_sort_segments(w);
	else if (st == SBF_OK)
		w->open_retry = npairs + SBF_WIN_OPEN_MAX;
	if (done != NULL)
		*done = st == SBF_OK && conv;
	return st;
}

/* Where a merged pair came from (merge_pairs). */
#define FROM_W		1
#define FROM_SRC	2

/*
 * Merges src's pairs (aged by shift) into w's, keeping the smaller age;
 * *from gets, for each merged pair, FROM_W, FROM_SRC or both (allocated).
 */
static SbfStatus
merge_pairs(SbfWindow *w, const SbfWinView *src, uint32_t shift, uint8_t **from)
{
	const uint8_t *hs = src->buf + src->pairs_offset;
	const uint8_t *as = hs + (size_t) src->npairs * 8;
	size_t		total = (size_t) w->npairs + src->npairs;
	uint64_t   *h;
	uint16_t   *a;
	uint32_t	i = 0;
	uint32_t	j = 0;
	uint32_t	n = 0;

	if (total > SBF_MAX_BYTES / SBF_WIN_PAIR_BYTES)
		return SBF_E_TOO_LARGE;
	h = win_alloc(w, total * sizeof(uint64_t));
	a = win_alloc(w, total * sizeof(uint16_t));
	*from = win_alloc(w, total);
	if (h == NULL || a == NULL || *from == NULL)
	{
		win_free(w, h);
		win_free(w, a);
		win_free(w, *from);
		*from = NULL;
		return SBF_E_NOMEM;
	}
	while (i < w->npairs || j < src->npairs)
	{
		uint64_t	sh = j < src->npairs ? sbf_load64(hs + (size_t) j * 8) : 0;
		int64_t		sa = j < src->npairs ? (int64_t) sbf_load16(as + (size_t) j * 2) + shift : 0;

		if (j < src->npairs && sa >= (int64_t) w->p.buckets)
		{
			j++;
			continue;
		}
		if (j >= src->npairs || (i < w->npairs && w->hash[i] < sh))
		{
			h[n] = w->hash[i];
			(*from)[n] = FROM_W;
			a[n++] = w->age[i++];
		}
		else if (i >= w->npairs || sh < w->hash[i])
		{
			h[n] = sh;
			(*from)[n] = FROM_SRC;
			a[n++] = (uint16_t) sa;
			j++;
		}
		else
		{
			h[n] = sh;
			(*from)[n] = FROM_W | FROM_SRC;
			a[n++] = (uint16_t) (sa < w->age[i] ? sa : w->age[i]);
			i++;
			j++;
		}
	}
	win_free(w, w->hash);
	win_free(w, w->age);
	w->hash = h;
	w->age = a;
	w->npairs = n;
	w->paircap = (uint32_t) total;
	return SBF_OK;
}

/*
 * Refuses a bucket whose segments spend more than its budget; *need (when
 * not NULL) is the smallest error_rate whose budget every bucket fits.
 */
static SbfStatus
check_budgets(const SbfWindow *w, double *need)
{
	double		budget = w->p.error_rate / (double) w->p.buckets * SBF_WIN_BUDGET_SLACK;
	double		spent = 0.0;
	double		most = 0.0;
	uint32_t	j;

	for (j = 0; j < w->nsegs; j++)
	{
		if (j == 0 || w->segs[j].age != w->segs[j - 1].age)
			spent = 0.0;
		spent += w->segs[j].fpr;
		if (spent > most)
			most = spent;
	}
	if (need != NULL)
		*need = most * (double) w->p.buckets;
	return most <= budget ? SBF_OK : SBF_E_OVER_BUDGET;
}

/* Gives w the error_rate budget (its buckets must fit their share of it). */
SbfStatus
sbf_win_rebudget(SbfWindow *w, double budget, double *need)
{
	w->p.error_rate = budget;
	return check_budgets(w, need);
}

/*
 * After a union, each pair that only one side held (from[i]) against the
 * other side's segments (segs[0..nw) are w's, segs[nw..) src's): if the
 * newest of them that probably holds it is of the pair's bucket or newer,
 * the pair is dropped (that segment answers for it since as early); if it
 * is older, that segment no longer counts it (COUNTS in sbf_core.h).  Pairs
 * both sides held and segments both sides hold stay as they are (f || f is
 * f).
 */
static void
reconcile_pairs(SbfWindow *w, const uint8_t *from, uint32_t nw)
{
	uint32_t	i;
	uint32_t	n = 0;

	if (w->nsegs == 0)
		return;					/* no segment on either side */
	for (i = 0; i < w->npairs; i++)
	{
		SbfWinSeg  *s = NULL;

		if (from[i] == FROM_W)
			s = newest_holding(w->segs + nw, w->nsegs - nw, w->hash[i]);
		else if (from[i] == FROM_SRC)
			s = newest_holding(w->segs, nw, w->hash[i]);
		if (s != NULL && s->age <= w->age[i])
			continue;			/* dropped */
		if (s != NULL && s->count > 0)
			s->count--;
		w->hash[n] = w->hash[i];
		w->age[n++] = w->age[i];
	}
	w->npairs = n;
}

/* w := w UNION src, bucket by bucket, within their own error_rate. */
SbfStatus
sbf_win_union(SbfWindow *w, const SbfWinView *src)
{
	return sbf_win_union_budget(w, src, 0.0, NULL);
}

/*
 * w := w UNION src, bucket by bucket.  budget 0: both have the same
 * error_rate, which the result keeps; otherwise the result has error_rate
 * budget and the inputs' may differ.  SBF_E_OVER_BUDGET when a bucket's
 * segments spend more than its share; *need (when not NULL) is then the
 * smallest error_rate that would do.
 */
SbfStatus
sbf_win_union_budget(SbfWindow *w, const SbfWinView *src, double budget, double *need)
{
	int64_t		target;
	uint32_t	shift;
	size_t		off = src->bits_offset;
	SbfStatus	st;
	uint8_t    *from = NULL;
	uint32_t	nw;
	uint32_t	j;

	if (w->p.width != src->width || w->p.buckets != src->buckets ||
		(budget == 0.0 && w->p.error_rate != src->error_rate))
		return SBF_E_INCOMPATIBLE;
	if ((st = sbf_win_check_pairs(src)) != SBF_OK ||
		(st = sbf_win_settle(w)) != SBF_OK)
		return st;				/* merge_pairs relies on their order */
	if (budget != 0.0)
		w->p.error_rate = budget;
	w->open_retry = 0;
	if (!(src->flags & SBF_WIN_FLAG_STARTED))
		return check_budgets(w, need);
	if (!(w->flags & SBF_WIN_FLAG_STARTED))
	{
		w->flags |= SBF_WIN_FLAG_STARTED;
		w->newest = src->newest;
	}
	target = w->newest > src->newest ? w->newest : src->newest;
	/* both newest are in range, so target is; the shifts never wrap */
	if (target > w->newest)
		shift_ages(w, capped_shift(w, target, w->newest));
	w->newest = target;
	shift = capped_shift(w, target, src->newest);
	if ((st = merge_pairs(w, src, shift, &from)) != SBF_OK)
		return st;
	if ((st = reserve_segs(w, (size_t) w->nsegs + src->nsegments)) != SBF_OK)
	{
		win_free(w, from);
		return st;
	}
	nw = w->nsegs;
	for (j = 0; j < src->nsegments; j++)
	{
		SbfWinSeg	seg;

		uint8_t    *copy;

		sbf_win_read_segment(src, j, &off, &seg);
		if ((uint32_t) seg.age + shift >= w->p.buckets)
			continue;
		/* w owns what it keeps of src: src need not outlive the union */
		copy = win_alloc(w, (size_t) seg.bytes);
		if (copy == NULL)
		{
			win_free(w, from);
			return SBF_E_NOMEM;
		}
		memcpy(copy, seg.bits, (size_t) seg.bytes);
		seg.bits = copy;
		seg.owned = true;
		seg.age = (uint16_t) (seg.age + shift);
		seg.fpr = sbf_win_segment_fpr(&seg);
		w->segs[w->nsegs++] = seg;
	}
	reconcile_pairs(w, from, nw);
	win_free(w, from);
	sbf_win_sort_segments(w);
	/* no compaction: f || f is f, and the next slide compacts */
	return check_budgets(w, need);
}
