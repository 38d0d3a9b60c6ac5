/*
 * sbf_window.c
 *	  Reading side of windowed filters (format version 3, "WINDOWED FORM" in
 *	  sbf_core.h, and version 4 with flag WINDOWED, docs/format4.md section
 *	  8): parameter checks, the validator's windowed branch, header parsing
 *	  for stored values, the one decode of a directory entry (version 3: 16
 *	  bytes, kind 4 windowed bloom; version 4: 24 bytes, age, reserved, count,
 *	  kind descriptor), version 4's segment checks, the canonical segment
 *	  order, lookups since a bucket, count and bound.  The layer "reading a
 *	  value" of the window subsystem (sbf_window_int.h).
 */
#include <math.h>

#include "sbf_dir.h"
#include "sbf_window_int.h"

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

/* The header of a windowed payload, version 3 or 4 (see sbf_win_parse). */
static SbfStatus
parse_header(const uint8_t *buf, size_t len, SbfWinView *v)
{
	SbfWinParams p;
	uint8_t		allowed = SBF_WIN_FLAG_STARTED;

	if (len < SBF_WIN_HEADER_BYTES)
		return SBF_E_TRUNCATED;
	if (buf[0] != SBF_WIN_VERSION && buf[0] != SBF_WIN4_VERSION)
		return SBF_E_VERSION;
	v->buf = buf;
	v->len = len;
	v->version = buf[0];
	v->flags = buf[1];
	if (v->version == SBF_WIN4_VERSION)
	{
		/* WINDOWED is what makes a version-4 value windowed */
		if (!(v->flags & SBF_WIN_FLAG_WINDOWED))
			return SBF_E_FLAGS;
		allowed |= SBF_WIN_FLAG_WINDOWED;
	}
	if ((v->flags & ~allowed) != 0 || buf[3] != 0 || sbf_load16(buf + 6) != 0)
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
	return SBF_OK;
}

/* Parses the header and directory of a windowed payload (see sbf_win_parse). */
SbfStatus
sbf_win_parse(const uint8_t *buf, size_t len, SbfWinView *v)
{
	uint64_t	total;
	size_t		off;
	uint32_t	j;
	uint16_t	prev_age = 0;
	SbfStatus	st = parse_header(buf, len, v);

	if (st != SBF_OK)
		return st;
	total = SBF_WIN_HEADER_BYTES + (uint64_t) v->nsegments * sbf_win_entry_bytes(v);
	if (total > len)
		return SBF_E_TRUNCATED;
	v->bits_offset = (size_t) total;
	off = v->bits_offset;
	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;

		st = sbf_win_entry(v, j, &off, &seg);
		if (st != SBF_OK)
			return st;
		/* ages ascend: a lookup stops at the first segment too old */
		if (j > 0 && seg.age < prev_age)
			return SBF_E_WINDOW;
		if (seg.age >= v->buckets)
			return SBF_E_SEGMENT;
		prev_age = seg.age;
	}
	v->pairs_offset = off;
	total = (uint64_t) off + (uint64_t) v->npairs * SBF_WIN_PAIR_BYTES;
	if (total > len)
		return SBF_E_TRUNCATED;
	if (total < len)
		return SBF_E_LENGTH;
	return SBF_OK;
}

/*
 * Version 3's canonical order: (age, m, k, count), then the bit arrays
 * (version 4 orders by descriptor bytes: sbf_win_segment_cmp).
 */
static int
v3_segment_cmp(const SbfWinSeg *a, const SbfWinSeg *b)
{
	if (a->age != b->age)
		return a->age < b->age ? -1 : 1;
	if (a->g.size != b->g.size)
		return a->g.size < b->g.size ? -1 : 1;
	if (a->g.width != b->g.width)
		return a->g.width < b->g.width ? -1 : 1;
	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	return memcmp(a->bits, b->bits, (size_t) a->bytes);
}

/* Version 3's segments: canonical order, clear bits past m, bucket budgets. */
static SbfStatus
check_segments(const SbfWinView *v)
{
	SbfWinSpend sp = {.budget = sbf_win_budget(v) * SBF_WIN_BUDGET_SLACK};
	size_t		off = v->bits_offset;
	uint32_t	j;

	if (v->version != SBF_WIN_VERSION)
		return sbf_win4_check_segments(v);
	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(v, j, &off, &seg);
		if (seg.ops->check_data(&seg.g, seg.bits) != SBF_OK)
			return SBF_E_BITS;
		if (sbf_win_spend(&sp, &seg, j, j == 0 || v3_segment_cmp(&sp.prev, &seg) < 0) != SBF_OK)
			return SBF_E_WINDOW;
	}
	return SBF_OK;
}

/*
 * One step of a validator's walk over a windowed directory: entry j must
 * ascend (the caller's comparison with sp->prev) and each bucket's segments
 * spend at most sp->budget between them.
 */
SbfStatus
sbf_win_spend(SbfWinSpend *sp, const SbfWinSeg *seg, uint32_t j, bool ascending)
{
	if (!ascending)
		return SBF_E_WINDOW;
	if (j == 0 || seg->age != sp->prev.age)
		sp->spent = 0.0;
	/* rate_of is linear in the data (its kinds check within it too) */
	sbf_hook_interrupt();
	sp->spent += sbf_win_segment_fpr(seg);
	sp->prev = *seg;
	return sp->spent <= sp->budget ? SBF_OK : SBF_E_WINDOW;
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
		if ((i + 1) % SBF_WORK_STRIDE == 0)
			sbf_hook_interrupt();
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

/*
 * Decodes the directory entries from *j on into c: at most SBF_WIN_CHUNK, of
 * age <= max_age (ages ascend, so the first older one ends the directory).
 * *off runs along with the entries' data.  False when none is left.
 */
static bool
decode_chunk(const SbfWinView *v, int64_t max_age, uint32_t *j, size_t *off,
			 SbfWinChunk *c)
{
	sbf_winchunk_reset(c);
	while (*j < v->nsegments && sbf_winchunk_size(c) < SBF_WIN_CHUNK)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(v, *j, off, &seg);
		if (seg.age > max_age)
		{
			*j = v->nsegments;
			break;
		}
		(*j)++;
		sbf_winchunk_add(c, &seg);
	}
	return sbf_winchunk_size(c) > 0;
}

/* Whether a segment of a chunk holds x's hash (all of its segments). */
static bool
chunk_has(const SbfWinChunk *c, SbfWinMixes *x)
{
	SbfWinLim	lim;

	sbf_winchunk_all(c, &lim);
	return sbf_winchunk_has(c, &lim, x);
}

/* Whether a segment from directory entry j on (past chunk c) holds x's hash. */
static bool
rest_has(const SbfWinView *v, int64_t max_age, uint32_t j, size_t off,
		 SbfWinMixes *x)
{
	SbfWinChunk d;

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
 * (a window of more than SBF_WIN_CHUNK segments decodes the rest per hash).
 */
size_t
sbf_win_count_contained(const SbfWinView *v, const uint64_t *h, size_t n,
						int64_t max_age)
{
	SbfWinChunk c;
	uint32_t	j = 0;
	size_t		off = v->bits_offset;
	size_t		found = 0;
	size_t		i;

	if (max_age < 0 || n == 0)
		return 0;
	(void) decode_chunk(v, max_age, &j, &off, &c);
	for (i = 0; i < n; i++)
	{
		SbfWinMixes x;

		if (v->npairs > 0 && sbf_win_pairs_contain(v, h[i], max_age))
		{
			found++;
			continue;
		}
		if (sbf_winchunk_size(&c) == 0)
			continue;
		sbf_win_mixes_start(&x, h[i]);
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

/* The entry bytes of directory entry j. */
static inline const uint8_t *
entry_at(const SbfWinView *v, uint32_t j)
{
	return v->buf + SBF_WIN_HEADER_BYTES + (size_t) j * sbf_win_entry_bytes(v);
}

/*
 * Entry j at running data offset *off (checked: see sbf_window.h), through
 * the directory iterator (sbf_dir.h): version 3's entries are kind 4,
 * version 4's name their kind (2, 3 or 4) in a descriptor and their area
 * follows its line-alignment padding.  What the iterator leaves to the
 * format is checked here: version 3's geometry and zero byte 3, version 4's
 * zero reserved field.
 */
SbfStatus
sbf_win_entry(const SbfWinView *v, uint32_t j, size_t *off, SbfWinSeg *seg)
{
	SbfDirIter	it;
	SbfDirEntry e;

	sbf_dir_start(&it, v->buf, v->nsegments, *off);
	it.i = j;
	sbf_dir_decode(&it, &e);
	if (e.st != SBF_OK)
		return e.st;
	if (v->version == SBF_WIN_VERSION)
	{
		if (e.entry[3] != 0 || e.ops->check_geom(&e.g) != SBF_OK)
			return SBF_E_SEGMENT;
	}
	else if (sbf_load16(e.entry + W4_RESERVED) != 0)
		return SBF_E_SEGMENT;
	if (e.data > v->len || e.bytes > v->len - e.data)
		return SBF_E_TRUNCATED;
	seg->age = e.age;
	seg->count = (uint32_t) e.count;
	seg->g = e.g;
	seg->ops = e.ops;
	seg->bytes = e.bytes;
	seg->bits = v->buf + e.data;
	seg->owned = false;
	seg->fpr = 0.0;
	*off = e.data + (size_t) e.bytes;
	return SBF_OK;
}

/* Entry j of a parsed view (the parse checked every entry). */
void
sbf_win_read_segment(const SbfWinView *v, uint32_t j, size_t *off, SbfWinSeg *seg)
{
	(void) sbf_win_entry(v, j, off, seg);
}

/* Membership of h in one segment (its kind's probe). */
bool
sbf_win_segment_has(const SbfWinSeg *seg, uint64_t h)
{
	return seg->ops->contains(&seg->g, seg->bits, h);
}

/* The rate of a segment's data for a hash never added. */
double
sbf_win_segment_fpr(const SbfWinSeg *seg)
{
	return seg->ops->rate_of(&seg->g, seg->bits);
}

/*
 * Order of two segments: (age, descriptor bytes, count), then the data, the
 * canonical directory order of version 4; with bits_first (age, descriptor,
 * data, count), which puts segments of equal data side by side.
 */
int
sbf_win_segment_cmp(const SbfWinSeg *a, const SbfWinSeg *b, bool bits_first)
{
	uint8_t		da[SBF_KIND_DESC_BYTES];
	uint8_t		db[SBF_KIND_DESC_BYTES];
	int			c;

	if (a->age != b->age)
		return a->age < b->age ? -1 : 1;
	sbf_kind_encode(&a->g, da);
	sbf_kind_encode(&b->g, db);
	c = memcmp(da, db, SBF_KIND_DESC_BYTES);
	if (c != 0)
		return c;
	/* same descriptor: same data bytes */
	if (bits_first)
		c = memcmp(a->bits, b->bits, (size_t) a->bytes);
	if (c == 0 && a->count != b->count)
		c = a->count < b->count ? -1 : 1;
	if (c == 0 && !bits_first)
		c = memcmp(a->bits, b->bits, (size_t) a->bytes);
	return c;
}

/* Whether the bytes buf[from..to) are all zero. */
static bool
zero_bytes(const uint8_t *buf, size_t from, size_t to)
{
	size_t		i;

	for (i = from; i < to; i++)
		if (buf[i] != 0)
			return false;
	return true;
}

/*
 * Version 4's segments, after the parse: each one's descriptor and data
 * (sbf_kind_check), zero padding before it, strictly ascending canonical
 * order, and every bucket's rates (rate_of, linear in the data bytes) within
 * its budget P = e/B.
 */
SbfStatus
sbf_win4_check_segments(const SbfWinView *v)
{
	SbfWinSpend sp = {.budget = sbf_win_budget(v) * SBF_WIN_BUDGET_SLACK};
	size_t		off = v->bits_offset;
	uint32_t	j;

	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;
		SbfKindGeom g;
		uint64_t	used;
		size_t		end = off;
		SbfStatus	st = sbf_win_entry(v, j, &off, &seg);
		size_t		start = (size_t) (seg.bits - v->buf);

		if (st != SBF_OK)
			return st;
		st = sbf_kind_check(entry_at(v, j) + W4_DESC, seg.bits, v->len - start,
							&g, &used);
		if (st != SBF_OK)
			return st;
		if (!zero_bytes(v->buf, end, start))
			return SBF_E_BITS;
		sbf_hook_interrupt();
		if (sbf_win_spend(&sp, &seg, j,
						  j == 0 || sbf_win_segment_cmp(&sp.prev, &seg, false) < 0) != SBF_OK)
			return SBF_E_WINDOW;
	}
	return SBF_OK;
}
