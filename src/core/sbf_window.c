/*
 * sbf_window.c
 *	  Reading side of windowed filters (format version 3, "WINDOWED FORM" in
 *	  sbf_core.h): parameter checks, the validator's windowed branch, header
 *	  parsing for stored values, lookups since a bucket, count and bound.
 */
#include <math.h>

#include "sbf_dir.h"
#include "sbf_window.h"

/* Checks window parameters: SBF_OK or SBF_E_PARAM. */
SbfStatus
sbf_win_params_check(const SbfWinParams *p)
{
	if (p->width < 1 || p->width > SBF_WIN_MAX_WIDTH)
		return SBF_E_PARAM;
	if (p->buckets < 1 || p->buckets > SBF_WIN_MAX_BUCKETS)
		return SBF_E_PARAM;
	if (!(p->error_rate > 0.0 && p->error_rate < 0.5))
		return SBF_E_PARAM;
	return SBF_OK;
}

/* Floor division of a time by the bucket width. */
int64_t
sbf_win_bucket_of(int64_t unix_us, int64_t width)
{
	int64_t		q = unix_us / width;

	if (unix_us % width != 0 && unix_us < 0)
		q--;
	return q;
}

/*
 * Whether bucket t's start and end fit in an int64 of microseconds: t * width
 * and (t + 1) * width.  The newest bucket of every value the validator
 * accepts passes, and so must every bucket an add, slide or expire makes
 * the newest.
 */
bool
sbf_win_bucket_in_range(int64_t t, int64_t width)
{
	int64_t		lo;
	int64_t		hi;
	int64_t		next;

	if (width < 1)
		return false;
	return !__builtin_add_overflow(t, 1, &next) &&
		!__builtin_mul_overflow(t, width, &lo) &&
		!__builtin_mul_overflow(next, width, &hi);
}

/*
 * The age of bucket b in a window whose newest bucket is newest, b <= newest:
 * newest - b computed in unsigned arithmetic, exact for any two int64 (the
 * difference of two int64 with b <= newest is below 2^64), so never wraps.
 */
uint64_t
sbf_win_age_of(int64_t newest, int64_t b)
{
	return (uint64_t) newest - (uint64_t) b;
}

/* Parses the header and directory of a windowed payload (see sbf_win_parse). */
SbfStatus
sbf_win_parse(const uint8_t *buf, size_t len, SbfWinView *v)
{
	SbfWinParams p;
	uint64_t	total;
	uint32_t	j;

	if (len < SBF_WIN_HEADER_BYTES)
		return SBF_E_TRUNCATED;
	if (buf[0] != SBF_WIN_VERSION)
		return SBF_E_VERSION;
	v->buf = buf;
	v->len = len;
	v->flags = buf[1];
	if ((v->flags & ~SBF_WIN_FLAG_STARTED) != 0 || buf[3] != 0 ||
		sbf_load16(buf + 6) != 0)
		return SBF_E_FLAGS;
	if (buf[2] != SBF_HASH_XXH3)
		return SBF_E_HASH;
	v->buckets = sbf_load16(buf + 4);
	v->nsegments = sbf_load32(buf + 8);
	v->npairs = sbf_load32(buf + 12);
	v->width = (int64_t) sbf_load64(buf + 16);
	v->newest = (int64_t) sbf_load64(buf + 24);
	v->error_rate = sbf_load_double(buf + 32);
	p.width = v->width;
	p.buckets = v->buckets;
	p.error_rate = v->error_rate;
	if (sbf_win_params_check(&p) != SBF_OK ||
		!sbf_win_bucket_in_range(v->newest, v->width))
		return SBF_E_PARAM;
	if (!(v->flags & SBF_WIN_FLAG_STARTED) &&
		(v->newest != 0 || v->nsegments != 0 || v->npairs != 0))
		return SBF_E_FLAGS;
	if (v->nsegments > SBF_WIN_MAX_SEGMENTS)
		return SBF_E_SEGMENT;

	total = SBF_WIN_HEADER_BYTES + (uint64_t) v->nsegments * SBF_WIN_SEGDIR_BYTES;
	if (total > len)
		return SBF_E_TRUNCATED;
	for (j = 0; j < v->nsegments; j++)
	{
		const uint8_t *e = buf + SBF_WIN_HEADER_BYTES + (size_t) j * SBF_WIN_SEGDIR_BYTES;
		uint64_t	nbits = sbf_load64(e + 8);

		/* ages ascend: a lookup stops at the first segment too old */
		if (j > 0 && sbf_load16(e) < sbf_load16(e - SBF_WIN_SEGDIR_BYTES))
			return SBF_E_WINDOW;
		if (sbf_load16(e) >= v->buckets || e[2] < 1 || e[2] > SBF_MAX_K ||
			e[3] != 0 || nbits < 1 ||
			nbits > SBF_MAX_SEGMENT_BITS)
			return SBF_E_SEGMENT;
		total += sbf_words_bytes(nbits);
		if (total > len)
			return SBF_E_TRUNCATED;
	}
	v->bits_offset = SBF_WIN_HEADER_BYTES + (size_t) v->nsegments * SBF_WIN_SEGDIR_BYTES;
	v->pairs_offset = (size_t) total;
	total += (uint64_t) v->npairs * SBF_WIN_PAIR_BYTES;
	if (total > len)
		return SBF_E_TRUNCATED;
	if (total < len)
		return SBF_E_LENGTH;
	return SBF_OK;
}

/* Directory entry j and its bits; *off is the running words offset. */
void
sbf_win_read_segment(const SbfWinView *v, uint32_t j, size_t *off, SbfWinSeg *seg)
{
	SbfDirIter	it;
	SbfDirEntry e;

	sbf_dir_start(&it, v->buf, v->nsegments, *off);
	it.i = j;
	sbf_dir_decode(&it, &e);
	seg->age = e.age;
	seg->k = e.g.width;
	seg->count = (uint32_t) e.count;
	seg->nbits = e.g.size;
	seg->bits = v->buf + e.data;
	seg->owned = false;
	*off += (size_t) sbf_words_bytes(e.g.size);
}

/* False-positive rate of a segment: (ones / m)^k. */
double
sbf_win_segment_fpr(const SbfWinSeg *seg)
{
	SbfKindGeom g = {.size = seg->nbits, .kind = SBF_KIND_WBLOOM, .width = seg->k};

	return sbf_kind_wbloom_ops.rate_of(&g, seg->bits);
}

/*
 * Order of two segments: (age, m, k, count), then their bit arrays, the
 * canonical directory order (WINDOWED FORM); with bits_first (age, m, k,
 * bits, count), which puts segments of equal bits side by side.
 */
int
sbf_win_segment_cmp(const SbfWinSeg *a, const SbfWinSeg *b, bool bits_first)
{
	int			c = 0;

	if (a->age != b->age)
		return a->age < b->age ? -1 : 1;
	if (a->nbits != b->nbits)
		return a->nbits < b->nbits ? -1 : 1;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	if (bits_first)
		c = memcmp(a->bits, b->bits, (size_t) sbf_words_bytes(a->nbits));
	if (c == 0 && a->count != b->count)
		c = a->count < b->count ? -1 : 1;
	if (c == 0 && !bits_first)
		c = memcmp(a->bits, b->bits, (size_t) sbf_words_bytes(a->nbits));
	return c;
}

/* Checks the segments: canonical order, clear bits past m, bucket budgets. */
static SbfStatus
check_segments(const SbfWinView *v)
{
	double		budget = sbf_win_budget(v) * SBF_WIN_BUDGET_SLACK;
	double		spent = 0.0;
	size_t		off = v->bits_offset;
	SbfWinSeg	prev = {0};
	uint32_t	j;

	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;
		uint64_t	wbytes;

		sbf_win_read_segment(v, j, &off, &seg);
		wbytes = sbf_words_bytes(seg.nbits);
		if (seg.nbits % 64 != 0 &&
			sbf_load64(seg.bits + wbytes - 8) >> (seg.nbits % 64) != 0)
			return SBF_E_BITS;
		if (j > 0 && sbf_win_segment_cmp(&prev, &seg, false) >= 0)
			return SBF_E_WINDOW;
		if (j == 0 || seg.age != prev.age)
			spent = 0.0;
		spent += sbf_win_segment_fpr(&seg);
		if (!(spent <= budget))
			return SBF_E_WINDOW;
		prev = seg;
	}
	return SBF_OK;
}

/* The validator's windowed branch. */
SbfStatus
sbf_win_validate(const uint8_t *buf, size_t len, SbfWinView *v)
{
	SbfStatus	st;

	if (len > SBF_MAX_BYTES)
		return SBF_E_TOO_LARGE;
	st = sbf_win_parse(buf, len, v);
	if (st != SBF_OK)
		return st;
	st = check_segments(v);
	if (st != SBF_OK)
		return st;
	return sbf_win_check_pairs(v);
}

/*
 * Checks the pairs of a parsed view: hashes strictly ascending, ages below B.
 * O(pairs): every reader that decodes the pairs (sbf_win_load, sbf_info, the
 * aggregate's states) runs it, since what they index by age is B entries.
 */
SbfStatus
sbf_win_check_pairs(const SbfWinView *v)
{
	const uint8_t *hashes = v->buf + v->pairs_offset;
	const uint8_t *ages = hashes + (size_t) v->npairs * 8;
	uint32_t	i;

	for (i = 0; i < v->npairs; i++)
	{
		if (i > 0 && sbf_load64(hashes + (size_t) i * 8) <=
			sbf_load64(hashes + (size_t) (i - 1) * 8))
			return SBF_E_WINDOW;
		if (sbf_load16(ages + (size_t) i * 2) >= v->buckets)
			return SBF_E_WINDOW;
	}
	return SBF_OK;
}

/* The largest age a lookup since bucket "since" counts. */
int64_t
sbf_win_max_age(const SbfWinView *v, int64_t since)
{
	if (since == SBF_WIN_ALL || !(v->flags & SBF_WIN_FLAG_STARTED))
		return (int64_t) v->buckets - 1;
	if (since > v->newest)
		return -1;
	/* newest - since in unsigned arithmetic (it may exceed INT64_MAX) */
	if (sbf_win_age_of(v->newest, since) >= v->buckets)
		return (int64_t) v->buckets - 1;
	return (int64_t) sbf_win_age_of(v->newest, since);
}

/* Whether pair hash h is present with an age <= max_age (binary search). */
static bool
pairs_contain(const SbfWinView *v, uint64_t h, int64_t max_age)
{
	const uint8_t *hashes = v->buf + v->pairs_offset;
	uint32_t	i = sbf_search64(hashes, v->npairs, h);

	return i < v->npairs && sbf_load64(hashes + (size_t) i * 8) == h &&
		sbf_load16(hashes + (size_t) v->npairs * 8 + (size_t) i * 2) <= max_age;
}

/* Membership of h in one segment (stops at the first clear bit). */
bool
sbf_win_segment_has(const SbfWinSeg *seg, uint64_t h)
{
	uint32_t	j;

	for (j = 0; j < seg->k; j++)
		if (!sbf_bit_test(seg->bits, sbf_win_position(h, j, seg->nbits)))
			return false;
	return true;
}

/* segments a lookup decodes at once: the bits of one uint64_t mask */
#define WIN_CHUNK	64

/*
 * Directory entries decoded for a lookup: m and bits of each, and by k:
 * kend[q] has bit i set when segment i has k = q + 1 hash functions.
 */
typedef struct WinChunk
{
	uint32_t	n;
	uint32_t	kmax;
	uint64_t	m[WIN_CHUNK];
	const uint8_t *bits[WIN_CHUNK];
	uint64_t	kend[SBF_MAX_K];
} WinChunk;

/* The mixes r_i of one hash (sbf_win_mix), computed when first needed. */
typedef struct WinMixes
{
	uint64_t	h;
	uint32_t	have;
	uint64_t	r[SBF_MAX_K];
} WinMixes;

static inline uint64_t
mix_at(WinMixes *x, uint32_t i)
{
	while (x->have <= i)
	{
		x->r[x->have] = sbf_win_mix(x->h, x->have);
		x->have++;
	}
	return x->r[i];
}

/*
 * Decodes the directory entries from *j on into c: at most WIN_CHUNK, of
 * age <= max_age (ages ascend, so the first older one ends the directory).
 * *off runs along with the entries' words.  False when none is left.
 */
static bool
decode_chunk(const SbfWinView *v, int64_t max_age, uint32_t *j, size_t *off,
			 WinChunk *c)
{
	c->n = 0;
	c->kmax = 0;
	while (*j < v->nsegments && c->n < WIN_CHUNK)
	{
		const uint8_t *e = v->buf + SBF_WIN_HEADER_BYTES + (size_t) *j * SBF_WIN_SEGDIR_BYTES;
		uint64_t	m;
		uint32_t	k = e[2];
		uint32_t	q;

		if (sbf_load16(e) > max_age)
		{
			*j = v->nsegments;
			break;
		}
		for (q = c->kmax; q < k; q++)
			c->kend[q] = 0;
		if (k > c->kmax)
			c->kmax = k;
		c->kend[k - 1] |= (uint64_t) 1 << c->n;
		m = sbf_load64(e + 8);
		c->m[c->n] = m;
		c->bits[c->n] = v->buf + *off;
		*off += (size_t) sbf_words_bytes(m);
		c->n++;
		(*j)++;
	}
	return c->n > 0;
}

/*
 * Whether a segment of c holds the hash of x, hash function by hash
 * function: probe q tests, in every segment still alive, bit mulhi(r_q, m)
 * (one mix for all of them), and the segments whose bit is clear drop out;
 * a segment that passes its k-th probe holds the hash.  No branch depends
 * on a bit (a negative over 30 segments would mispredict about half of
 * them), and the loads of one round are independent, so they overlap.
 */
static bool
chunk_has(const WinChunk *c, WinMixes *x)
{
	uint64_t	alive = c->n == 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << c->n) - 1;
	uint32_t	q;

	for (q = 0; alive != 0 && q < c->kmax; q++)
	{
		uint64_t	r = mix_at(x, q);
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

/* Whether a segment from directory entry j on (past chunk c) holds x's hash. */
static bool
rest_has(const SbfWinView *v, int64_t max_age, uint32_t j, size_t off,
		 WinMixes *x)
{
	WinChunk	d;

	while (decode_chunk(v, max_age, &j, &off, &d))
		if (chunk_has(&d, x))
			return true;
	return false;
}

/* Membership of hash h in the buckets of age <= max_age. */
bool
sbf_win_contains(const SbfWinView *v, uint64_t h, int64_t max_age)
{
	return sbf_win_count_contained(v, &h, 1, max_age) > 0;
}

/*
 * How many of n hashes are in the buckets of age <= max_age.  Pairs are one
 * binary search per hash; the directory is decoded once for all the hashes
 * (a window of more than WIN_CHUNK segments decodes the rest per hash).
 */
size_t
sbf_win_count_contained(const SbfWinView *v, const uint64_t *h, size_t n,
						int64_t max_age)
{
	WinChunk	c;
	uint32_t	j = 0;
	size_t		off = v->bits_offset;
	size_t		found = 0;
	size_t		i;

	if (max_age < 0 || n == 0)
		return 0;
	(void) decode_chunk(v, max_age, &j, &off, &c);
	for (i = 0; i < n; i++)
	{
		WinMixes	x;

		if (v->npairs > 0 && pairs_contain(v, h[i], max_age))
		{
			found++;
			continue;
		}
		if (c.n == 0)
			continue;
		x.h = h[i];
		x.have = 0;
		if (chunk_has(&c, &x) ||
			(j < v->nsegments && rest_has(v, max_age, j, off, &x)))
			found++;
	}
	return found;
}

/* Pairs plus the segments' counts (an estimate; see sbf_window.h). */
double
sbf_win_cardinality(const SbfWinView *v)
{
	double		n = (double) v->npairs;
	size_t		off = v->bits_offset;
	uint32_t	j;

	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(v, j, &off, &seg);
		n += (double) seg.count;
	}
	return n;
}

/* Sum of the segments' false-positive rates. */
double
sbf_win_fpr_bound(const SbfWinView *v)
{
	double		sum = 0.0;
	size_t		off = v->bits_offset;
	uint32_t	j;

	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(v, j, &off, &seg);
		sum += sbf_win_segment_fpr(&seg);
	}
	return sum;
}
