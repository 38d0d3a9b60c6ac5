/*
 * sbf_core.h
 *	  Pure-C core of sbf: the scalable Bloom filter with an embedded
 *	  HyperLogLog, its hash, and its on-disk format.  No PostgreSQL headers
 *	  here: unit tests, sanitizer builds and fuzzers drive this layer directly.
 *
 *-------------------------------------------------------------------------
 * FORMAT, VERSIONS 1, 2 AND 3
 *
 * A filter is a byte string (the "payload"; inside PostgreSQL it follows the
 * 4-byte varlena header, so payload offset 4 is 8-byte aligned in memory).
 * Every multi-byte field is little-endian; doubles are IEEE 754 binary64.
 * Byte 0 is the format version; a reader dispatches on it and reads both
 * versions forever.  Version 1 is what sbf 1.0 wrote; 1.1 writes version 2;
 * 1.2 writes version 2 for plain filters and version 3 for windowed ones.
 *
 * Segmented form (version 1, and version 2 with flag bit 1 clear):
 *
 *	offset	size	field
 *	0		1		version			1 or 2
 *	1		1		flags			bit 0: HyperLogLog is dense;
 *									version 2 only: bit 2 OVERLAP, bit 3 CHAIN
 *									(see COUNTS and CHAIN below); every other
 *									bit must be 0
 *	2		1		hash id			1 = XXH3_64bits, seed 0
 *	3		1		hll_p			HyperLogLog precision, 4..14 (2^p registers)
 *	4		2		growth s		1..16
 *	6		2		nsegments		1..SBF_MAX_SEGMENTS
 *	8		4		hll_bytes		length of the HyperLogLog area
 *	12		8		error_rate		0 < e < 0.5
 *	20		8		tightening r	0 < r <= 1
 *	28		8		capacity		initial capacity requested, >= 1
 *	36		40*n	segment directory, one 40-byte entry per segment i:
 *			  +0  8	capacity		elements the segment is built for, >= 1
 *			  +8  8	count			distinct inserts so far, <= capacity
 *			  +16 8	nbits m			1..SBF_MAX_SEGMENT_BITS
 *			  +24 8	error p			false-positive rate the segment is built
 *									for when full (double), 0 < p < 0.5
 *			  +32 2	k				hash functions, 1..SBF_MAX_K
 *			  +34 2	reserved		must be 0
 *			  +36 4	reserved		must be 0
 *	36+40n	...		bit arrays, segment 0 first: ceil(m/64) 64-bit words
 *					each; bit j of a segment is bit (j % 64) of word (j / 64);
 *					bits at j >= m in the last word must be 0
 *	...		hll_bytes	HyperLogLog:
 *					sparse (flag bit 0 clear): hll_bytes/4 entries, uint32
 *					(index << 8) | rho, index strictly ascending, index <
 *					2^p, 1 <= rho <= 65 - p; at most SBF_HLL_SPARSE_MAX(p)
 *					entries (more is stored dense);
 *					dense (flag bit 0 set): 2^p registers of 6 bits packed
 *					LSB-first, register j at stream bits 6j..6j+5, exactly
 *					ceil(6 * 2^p / 8) bytes, every register <= 65 - p,
 *					unused trailing bits 0; used only when more than
 *					SBF_HLL_SPARSE_MAX(p) registers are nonzero, so the
 *					representation is canonical.
 *	The total length equals exactly the sum above; trailing bytes are an
 *	error.  A value that comes in (text, binary, bytea, deserialize) and a
 *	value that is written (created, grown, united) is at most SBF_MAX_BYTES
 *	long; a value already stored is read up to SBF_MAX_STORED_BYTES (see
 *	LIMITS below).
 *
 * Exact form (version 2 with flag bit 1 EXACT set): the sorted distinct
 * element hashes themselves, while they take no more bytes than the
 * segmented value they would become (postgresql-hll's EXPLICIT form):
 *
 *	0		1		version			2
 *	1		1		flags			bit 1 set; bit 3 CHAIN may be set; others 0
 *	2..5, 12..35	hash id, hll_p, growth, error_rate, tightening, capacity:
 *					as in the segmented form (they govern the conversion)
 *	6		2		reserved		must be 0
 *	8		4		n				number of hashes, 0..SBF_EXACT_MAX
 *	36		8		first capacity	capacity of the first segment it converts
 *									to, >= 1
 *	44		8		first error		that segment's error p (double), 0 < p <
 *									0.5; its geometry (SIZING) must be valid
 *	52		8*n		hashes			uint64, strictly ascending
 *	The total length is exactly 52 + 8n.  Membership is a binary search (no
 *	false positives), the count is n, a union merges the hash lists.
 *
 * WRITES.  Every write (add, union) of a version-1 value first relabels it
 * version 2 with flag OVERLAP set (its history is unknown, so its count stays
 * the HyperLogLog's and every answer stays the same); nothing else changes,
 * so 1.0 values keep answering the same and keep growing.  sbf_create and
 * sbf_create_sized (for n <= SBF_EXACT_MAX) return the empty exact form; an
 * add that would make the exact form larger than the segmented value holding
 * the same hashes (a first segment of the stored first capacity and error,
 * further segments as SIZING appends them, and the HyperLogLog of the
 * hashes), or would exceed SBF_EXACT_MAX hashes, converts the value: the
 * first segment is created and the remembered hashes are inserted in
 * ascending order, as sbf_add_hash would, so there is no false negative.
 * The exact form is therefore never larger than the segmented value, and no
 * value is larger than the one 1.0 would build from the same adds.
 *
 * COUNTS.  The exact form's count is n.  A segmented version-2 value without
 * OVERLAP was built by adds only, so each element is counted in at most one
 * segment; but an add that hits a false positive is skipped.  While segment i
 * fills (count x of capacity, m bits, k hashes, earlier segments full with
 * fill-modelled false-positive rate F), an element is skipped with
 * probability q(x) = 1 - (1 - F)(1 - (1 - e^(-kx/m))^k), so the expected
 * number of distinct elements that produced its count c is the integral of
 * dx / (1 - q(x)) from 0 to c (Simpson's rule, 64 steps).  The estimate is
 * the sum over segments.  Its error is that of the skip count, about
 * sqrt(skipped) (Poisson), plus the fill model's: at error_rate 0.01 and
 * 1e6 elements about 0.02%.  A union of segmented values sets OVERLAP
 * (segments may hold the same elements twice), and then the HyperLogLog
 * answers, unless its directory and bits equal those of an input without
 * OVERLAP (e.g. f UNION f, or a union with a subset); adding an exact
 * value's hashes into a segmented one is a series of adds and keeps the
 * directory count (sbf_union.c).
 *
 * CHAIN (sbf_delta).  A value with CHAIN set continues another filter's
 * growth chain: its first segment is the one that filter would append next,
 * so the budget that filter had left is L = p_max / (1 - r), where p_max is
 * the largest segment (or first) error of this value, and the budget spent
 * before it is e - L.  Appending segments counts that as spent, so the
 * union of the two filters keeps sum p <= e.  A union keeps CHAIN only when
 * all its inputs have it (exact inputs united with segmented ones leave the
 * segmented side's flags).
 *
 * HASH (specified forever for hash id 1): h = XXH3_64bits(bytes) with seed 0
 * over the element's canonical bytes (text: its bytes without terminator;
 * bigint: 8 bytes little-endian; bytea: its bytes).  Bloom positions for a
 * segment with m bits and k hashes use enhanced double hashing (Dillinger &
 * Manolios 2004):
 *		h2 = sbf_mix64(h) | 1
 *		x = h mod m;  y = h2 mod m
 *		for i in 0..k-1:  position_i = x;  x = (x + y) mod m;  y = (y + i + 1) mod m
 * HyperLogLog: register index = h & (2^p - 1); w = h >> p;
 *		rho = (w == 0) ? 65 - p : ctz(w) + 1.
 *
 * SIZING: a segment built for n elements at error p has
 * m = ceil(-n ln p / ln^2 2) bits and k = round(m / n * ln 2) hashes clamped
 * to 1..SBF_MAX_K.  The compound false-positive rate of a filter is at most
 * the sum of its segments' p (a probe is a false positive if any segment
 * says yes), so e is a budget that segments draw from (Almeida et al. 2007,
 * "Scalable Bloom Filters"):
 *	- a new segment gets p = (1 - r) * (e - sum of existing p): the first
 *	  e(1-r), the next e(1-r)r, ... -- Almeida's P0 r^i -- so the sum stays
 *	  below e forever; with r = 1 every segment gets p = e (seed 000's equal
 *	  segments, no bound); if unions already spent the budget, p = r * the
 *	  smallest existing p;
 *	- a first segment right-sized for n known elements (the aggregate) gets
 *	  p = e^1.04: 4% more bits than the optimum at e, leaving e - e^1.04 of
 *	  the budget for later growth;
 *	- a new segment's capacity is min(largest capacity * s, c * s^nsegments),
 *	  so growth continues geometrically from c after a right-sized segment.
 *
 * WINDOWED FORM, VERSION 3 (sbf 1.2: sbf_window_empty, sbf_window_agg)
 *
 * A windowed filter holds the elements added in its newest B buckets of time.
 * Bucket number b covers [b*w, (b+1)*w) microseconds since 1970-01-01 00:00
 * UTC (w = the bucket width); the newest bucket is t, and a bucket's "age" is
 * t - b (0 = the newest, B - 1 = the oldest held).  Every element lives either
 * as an exact (hash, age) pair or in a Bloom segment of one bucket.
 *
 * offset  size    field
 * 0       1       version         3
 * 1       1       flags           bit 0 STARTED: t is set (by a timed add,
 *                                 sbf_expire or a union with a started window);
 *                                 every other bit must be 0
 * 2       1       hash id         1 = XXH3_64bits, seed 0 (HASH above)
 * 3       1       reserved        must be 0
 * 4       2       buckets B       1..SBF_WIN_MAX_BUCKETS (1000)
 * 6       2       reserved        must be 0
 * 8       4       nsegments S     0..SBF_WIN_MAX_SEGMENTS (65535)
 * 12      4       npairs n        number of exact pairs
 * 16      8       width w         bucket length in microseconds (int64),
 *                                 1..SBF_WIN_MAX_WIDTH (3650 days)
 * 24      8       newest t        bucket number (int64) of the newest bucket;
 *                                 0 while STARTED is clear; t*w and (t+1)*w
 *                                 must not overflow an int64
 * 32      8       error_rate e    0 < e < 0.5 (double)
 * 40      16*S    segment directory, one 16-byte entry per segment j:
 *           +0  2 age a           0..B-1: the segment belongs to bucket t - a
 *           +2  1 k               hash functions, 1..64
 *           +3  1 reserved        must be 0
 *           +4  4 count c         elements counted in this segment (COUNTS),
 *                                 0..2^32-1
 *           +8  8 nbits m         1..SBF_MAX_SEGMENT_BITS
 *                 entries are strictly ascending by (a, m, k, c, then the
 *                 bytes of the bit array): the order is canonical and no
 *                 segment appears twice
 * 40+16S  ...     bit arrays in directory order: ceil(m/64) 64-bit words each,
 *                 bit j of a segment is bit (j % 64) of word (j / 64), bits at
 *                 j >= m in the last word must be 0
 * ...     8*n     pair hashes, uint64, strictly ascending
 * ...     2*n     pair ages, uint16, each < B: hash i was last added in bucket
 *                 t - age_i (one pair per hash: its newest bucket)
 * The total length is exactly 40 + 16S + the words + 10n (a multiple of 2;
 * every 8-byte field and word is 8-byte aligned behind the varlena header).
 * While STARTED is clear S and n are 0.
 *
 * WINDOWED POSITIONS.  Bit i (0 <= i < k) of hash h in a segment of m bits
 * is the high 64 bits of the 128-bit product r_i * m, where r_i =
 * sbf_mix64(h + (i + 1) * 0x9E3779B97F4A7C15) (splitmix64's finalizer over
 * h's splitmix64 sequence): k independent positions.  (The double hashing of
 * HASH gives a segment of m bits only m^2 position sequences, which costs
 * small segments up to 40 times their rate; measured in test/bench.)
 *
 * A segment's false-positive rate is f = (ones / m)^k, ones = the bits set:
 * for independent positions that is exactly the chance that a hash never
 * added is found.  Each bucket has the budget P = e / B: the sum of f over a
 * bucket's segments must be at most P (times 1 + 1e-9 for rounding).  A
 * query over any set of buckets therefore has a false-positive rate of at
 * most e (union bound); pairs give no false positives.
 *
 * WINDOW SIZING.  A segment is made from c known hashes of one bucket (never
 * filled later): if its bucket's segments already spend s, it is built for c
 * elements at p = P^1.04 (s = 0) or p = (P - s) / 2 (SIZING above); it is
 * kept only when its f fits in P - s, else it is built again at p/2, p/4,
 * p/8, and if none fits the hashes stay pairs.  A bucket's pairs become a
 * segment ("compaction") when
 *   - the bucket is not the newest (the window has slid past it, or a union or
 *     the aggregate's final compacts), and the segment is smaller than the
 *     pairs: 16 + 8 ceil(m/64) < 10 c; or
 *   - the bucket is the newest and holds SBF_WIN_OPEN_MAX (4096) pairs (live
 *     adds); the aggregate's final compacts the newest bucket by the first
 *     rule, since its count is final.
 *
 * WRITES.  An add of hash h at bucket b: an unstarted window starts at t = b;
 * b > t slides the window to b (ages grow by b - t; pairs and segments of age
 * >= B are dropped; the buckets that stopped being the newest are compacted);
 * b <= t - B changes nothing; otherwise the pair of h gets age min(its age,
 * t - b); without a pair, nothing changes if a segment of age <= t - b
 * probably holds h, else a new pair is inserted (COUNTS).  Lookups since
 * bucket s count the segments and pairs of age <= t - s.  A union of two
 * windows with equal w, B and e slides both to the larger t, keeps the
 * smaller age of each hash, the segments of both (segments of equal a, m, k
 * and bits once, with the smaller c) and refuses a bucket whose f sum
 * exceeds P (SBF_E_OVER_BUDGET); it does not compact (so f || f is f, and
 * f || g is g || f byte for byte): the next slide does.
 *
 * COUNTS.  The distinct count (#) of a window is n plus the sum of the
 * segments' c, and each element is counted once, in its newest bucket: a
 * segment's c starts as the number of hashes it is made from (pairs of its
 * bucket, none of which has a newer one).  When an add makes h a pair of
 * age a, the newest segment of age > a that probably holds h has its c
 * decremented (not below 0).  A union does the same for each pair that only
 * one side held, with the other side's segments, and drops such a pair when
 * the newest of them that probably holds h has an age <= a (it answers for h
 * since as early).  So c is exact for sbf_window_agg's windows, and off by
 * at most the false positives of the segments probed (each at most P);
 * elements that both sides of a union hold in segments are counted twice.
 * c may be 0 (builds before COUNTS wrote c >= 1: those values stay valid).
 *
 * A reader must reject: short buffers, an unknown version, unknown flag bits
 * (for the version and form), an unknown hash id, parameters outside their
 * ranges, zero or too many segments, count > capacity, m or k out of range,
 * nonzero reserved fields, set bits past m, malformed HyperLogLog areas, in
 * the exact form too many hashes, a bad first segment or hashes not strictly
 * ascending, and any length mismatch; in the windowed form also a width,
 * buckets or newest bucket out of range, segments out of canonical order or
 * of an age >= B, a bucket over its budget P, pairs not strictly ascending
 * or of an age >= B, and fields set before STARTED.
 *-------------------------------------------------------------------------
 */
#ifndef SBF_CORE_H
#define SBF_CORE_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBF_FORMAT_VERSION		2	/* the version written */
#define SBF_FORMAT_V1			1	/* 1.0's version, read forever */
#define SBF_HASH_XXH3			1
#define SBF_FLAG_HLL_DENSE		0x01
#define SBF_FLAG_EXACT			0x02	/* version 2: exact form */
#define SBF_FLAG_OVERLAP		0x04	/* version 2: a union may have overlapped segments */
#define SBF_FLAG_CHAIN			0x08	/* version 2: continues another filter's chain */

#define SBF_EXACT_HEADER_BYTES	52
/* bound on the exact form: keeps an add O(16 kB) whatever the capacity */
#define SBF_EXACT_MAX			2048

#define SBF_HEADER_BYTES		36
#define SBF_SEGDIR_BYTES		40

/*-------------------------------------------------------------------------
 * LIMITS
 *
 * PostgreSQL allocates at most 1 GB - 1 bytes at once (MaxAllocSize,
 * SBF_ALLOC_LIMIT here): no varlena and no string, text output or COPY line
 * may be longer.  Two payload limits follow from it:
 *
 * SBF_MAX_STORED_BYTES: what a varlena can carry behind its 4-byte header.
 * sbf 1.0 wrote payloads up to this size, so readers of stored values
 * (sbf_parse_prefix) accept them, and the format's bit counts are bounded
 * by it (SBF_MAX_SEGMENT_BITS).
 *
 * SBF_MAX_BYTES: every value that comes into existence -- created, grown,
 * united, or coming in through text, binary, the bytea cast or an aggregate
 * state -- is at most this long, or is refused (SBF_E_TOO_LARGE, SQLSTATE
 * 54000).  It is the largest payload whose text form (sbf_text_size: the
 * prefix plus 4/3 of the payload, so about 805 MB) has at most
 * SBF_MAX_TEXT_CHARS characters, so that every value can be written as text
 * and read back: text output, COPY in text or csv format, and pg_dump.
 * SBF_TEXT_HEADROOM (1 MB) is left of the 1 GB for the rest of a COPY line
 * (the row's other columns, delimiters, newline) and the string's NUL.
 * (pg_dump --inserts carries values as SQL literals, which PostgreSQL's
 * scanner limits to 512 MB: about 400 MB of payload.)
 *-------------------------------------------------------------------------
 */
#define SBF_ALLOC_LIMIT			((size_t) 0x3FFFFFFF)
#define SBF_MAX_STORED_BYTES	(SBF_ALLOC_LIMIT - 4)
#define SBF_TEXT_HEADROOM		((size_t) 1 << 20)
#define SBF_MAX_TEXT_CHARS		(SBF_ALLOC_LIMIT - SBF_TEXT_HEADROOM)
/* inverse of sbf_text_size: whole base64 groups of 4 after the prefix, 3 bytes each */
#define SBF_MAX_BYTES \
	((SBF_MAX_TEXT_CHARS - SBF_TEXT_PREFIX_LEN) / 4 * 3)
#define SBF_MAX_SEGMENTS		4096
#define SBF_MAX_SEGMENT_BITS	((uint64_t) SBF_MAX_STORED_BYTES * 8)

/*
 * Smallest false-positive rate a new segment is built for: the smallest
 * normal double.  Below it a rate loses precision, and e(1 - r) or e^1.04
 * soon underflow to 0, for which no number of bits is enough.  With it a
 * segment needs at most -ln(DBL_MIN) / ln^2 2 = 1,475 bits per element.
 */
#define SBF_MIN_SEGMENT_ERROR	DBL_MIN
#define SBF_MAX_K				64
#define SBF_MAX_GROWTH			16

#define SBF_HLL_P_MIN			4
#define SBF_HLL_P_MAX			14
#define SBF_HLL_P_DEFAULT		9
#define SBF_HLL_DENSE_BYTES(p)	((((size_t) 6) << (p)) / 8)
/* sparse while its 4-byte entries take no more room than the dense form */
#define SBF_HLL_SPARSE_MAX(p)	(SBF_HLL_DENSE_BYTES(p) / 4)

#define SBF_DEFAULT_CAPACITY	1000
#define SBF_DEFAULT_ERROR_RATE	0.01
#define SBF_DEFAULT_GROWTH		2
#define SBF_DEFAULT_TIGHTENING	0.9

typedef enum SbfStatus
{
	SBF_OK = 0,
	SBF_E_TRUNCATED,			/* buffer shorter than its header says */
	SBF_E_VERSION,				/* unknown format version */
	SBF_E_FLAGS,				/* unknown flag bits or reserved field set */
	SBF_E_HASH,					/* unknown hash id */
	SBF_E_PARAM,				/* error_rate/growth/tightening/capacity/hll_p
								 * out of range or not finite */
	SBF_E_SEGMENT,				/* bad segment directory entry */
	SBF_E_BITS,					/* bits set past m */
	SBF_E_HLL,					/* malformed HyperLogLog area */
	SBF_E_LENGTH,				/* total length disagrees with contents */
	SBF_E_TOO_LARGE,			/* result would exceed SBF_MAX_BYTES */
	SBF_E_TOO_MANY_SEGMENTS,	/* result would exceed SBF_MAX_SEGMENTS */
	SBF_E_INCOMPATIBLE,			/* union of filters with different
								 * parameters */
	SBF_E_NOMEM,				/* allocator returned NULL */
	SBF_E_OVER_BUDGET,			/* union's fpr_bound would exceed its
								 * error_rate */
	SBF_E_EXACT,				/* malformed exact form */
	SBF_E_WINDOW				/* malformed windowed form (order, ages,
								 * budget) */
} SbfStatus;

/* A lowercase, period-free sentence fragment describing a status. */
extern const char *sbf_status_message(SbfStatus st);

/* Parameters a filter is created with. */
typedef struct SbfParams
{
	uint64_t	capacity;
	double		error_rate;
	double		tightening;
	uint16_t	growth;
	uint8_t		hll_p;
} SbfParams;

/*
 * Checks ranges and finiteness; SBF_OK or SBF_E_PARAM.  What a stored value
 * must satisfy; new filters must also pass sbf_params_check_create.
 */
extern SbfStatus sbf_params_check(const SbfParams *p);

/*
 * sbf_params_check, and the error_rate is large enough that the first
 * segment's rate, grown (sbf_next_error) or right-sized (sbf_sized_error),
 * is at least SBF_MIN_SEGMENT_ERROR: SBF_OK or SBF_E_PARAM.  For filters
 * being created; 1.0 stored some below it, which still read.
 */
extern SbfStatus sbf_params_check_create(const SbfParams *p);

/* The smallest error_rate sbf_params_check_create accepts with a tightening. */
extern double sbf_min_error_rate(double tightening);

/* One decoded directory entry. */
typedef struct SbfSegment
{
	uint64_t	capacity;
	uint64_t	count;
	uint64_t	nbits;
	double		error;			/* false-positive rate when full */
	uint32_t	k;
	size_t		words_offset;	/* payload offset of its first word */
} SbfSegment;

/*
 * A read-only view of a payload.  Filled by sbf_validate (whole buffer) or
 * sbf_parse_prefix (header and directory only, for partial reads).
 */
typedef struct SbfView
{
	const uint8_t *buf;
	size_t		len;			/* total payload length */
	uint8_t		version;
	uint8_t		flags;
	uint8_t		hash_id;
	uint8_t		hll_p;
	uint16_t	growth;
	uint16_t	nsegments;
	uint32_t	hll_bytes;
	double		error_rate;
	double		tightening;
	uint64_t	capacity;
	size_t		bits_offset;	/* payload offset of segment 0's words */
	size_t		hll_offset;		/* payload offset of the HyperLogLog area */
	/* exact form only (flags & SBF_FLAG_EXACT; nsegments and hll_bytes 0) */
	uint32_t	nhashes;		/* hashes at bits_offset, ascending */
	uint64_t	first_capacity;
	double		first_error;
} SbfView;

/* True when a view is in the exact form. */
static inline bool
sbf_is_exact(const SbfView *v)
{
	return (v->flags & SBF_FLAG_EXACT) != 0;
}

/* ---- hashing ---- */

/* XXH3_64bits, seed 0: the element hash of hash id 1. */
extern uint64_t sbf_hash(const void *data, size_t len);
/* Canonical bigint hash: 8 bytes little-endian. */
extern uint64_t sbf_hash_int64(int64_t v);
/*
 * The fixed 64-bit finalizer (splitmix64's; Steele, Lea & Flood 2014) used
 * to derive h2 and the windowed positions.  Inline: a windowed lookup mixes
 * once per hash function it reaches.
 */
static inline uint64_t
sbf_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}
/* Fills pos[0..k-1] with the Bloom positions of h in a segment of m bits. */
extern void sbf_positions(uint64_t h, uint64_t m, uint32_t k, uint64_t *pos);

/* ---- sizing ---- */

/* Error of the next segment given the errors already spent (see SIZING). */
extern double sbf_next_error(double error_rate, double tightening,
							 double spent, double smallest);
/* Error of a first segment right-sized for a known element count: e^1.04. */
extern double sbf_sized_error(double error_rate, double tightening);
/* Bits and hashes for n elements at error p; false if m would exceed max_bits. */
extern bool sbf_segment_geometry(uint64_t n, double p, uint64_t max_bits,
								 uint64_t *m, uint32_t *k);
/* Bytes of a payload with the given segment bit counts and hll bytes. */
extern size_t sbf_payload_size(uint32_t nseg, const uint64_t *nbits, size_t hll_bytes);

/* ---- reading ---- */

/*
 * The one validator: every byte string that enters from outside (text input,
 * binary receive, bytea cast, aggregate deserialize) passes here first.
 */
extern SbfStatus sbf_validate(const uint8_t *buf, size_t len, SbfView *v);

/*
 * Parses and checks the header and directory from the first avail bytes of a
 * payload whose total length is total_len, without touching bits or the
 * HyperLogLog.  avail must be >= sbf_prefix_size(nsegments); call first with
 * SBF_HEADER_BYTES to learn nsegments.  Returns SBF_E_TRUNCATED if avail is
 * too short.  For values already validated when stored.
 */
extern SbfStatus sbf_parse_prefix(const uint8_t *buf, size_t avail, size_t total_len,
								  SbfView *v);
extern size_t sbf_prefix_size(uint32_t nsegments);

extern void sbf_get_segment(const SbfView *v, uint32_t i, SbfSegment *seg);

/* Membership by hash: false = definitely absent. */
extern bool sbf_contains_hash(const SbfView *v, uint64_t h);

/*
 * How many of n hashes are probably present (the sum of sbf_contains_hash),
 * with the memory accesses of neighbouring hashes overlapped.
 */
extern size_t sbf_count_contained(const SbfView *v, const uint64_t *h, size_t n);

/*
 * Where a probe looks: payload byte offset and the mask of the bit in it.
 * Readers that fetch a stored value piecewise (by TOAST chunks) use these
 * instead of knowing the bit layout: the element is absent from a segment as
 * soon as one (buf[byte] & mask) is zero.
 */
typedef struct SbfProbeBit
{
	size_t		byte;
	uint8_t		mask;
} SbfProbeBit;

/*
 * Fills out[0..seg->k-1] with the probe bits of hash h in segment seg (as
 * sbf_get_segment returns it, words_offset included): the same bits, in the
 * same order, that sbf_contains_hash tests.
 */
extern void sbf_segment_probes(const SbfSegment *seg, uint64_t h, SbfProbeBit *out);

/*
 * Distinct-count estimate (COUNTS): n in the exact form, the directory count
 * corrected for false-positive skips for a version-2 value without OVERLAP,
 * else the HyperLogLog's.
 */
extern double sbf_cardinality(const SbfView *v);
/* HyperLogLog estimate (Ertl 2017 improved raw estimator); n if exact. */
extern double sbf_hll_cardinality(const SbfView *v);
/* The same from its HyperLogLog area read separately (hll NULL if exact). */
extern double sbf_hll_cardinality_parts(const SbfView *v, const uint8_t *hll);
/* The directory estimate of COUNTS, whatever the flags (0 if exact). */
extern double sbf_directory_count(const SbfView *v);
/* Which answer sbf_cardinality gives: "exact", "directory" or "hll". */
extern const char *sbf_count_source(const SbfView *v);
/* Hash i (< nhashes) of an exact view. */
extern uint64_t sbf_exact_hash(const SbfView *v, uint32_t i);

/*
 * The same estimate for a reader that holds only the header and directory
 * (sbf_parse_prefix): it fetches the HyperLogLog area (v->hll_bytes bytes at
 * v->hll_offset) only if sbf_cardinality_needs_hll(v) says the estimator
 * reads it, and passes it as hll (else NULL).
 */
extern bool sbf_cardinality_needs_hll(const SbfView *v);
extern double sbf_cardinality_parts(const SbfView *v, const uint8_t *hll);

/*
 * Fill and false-positive rate expected from the directory's counts alone
 * (no bit is read): 1 - (1 - 1/m)^(k count), and 1 - prod(1 - fill^k).
 */
extern double sbf_segment_expected_fill(const SbfView *v, uint32_t i);
extern double sbf_expected_fpr(const SbfView *v);

/* Fraction of set bits of a segment. */
extern double sbf_segment_fill(const SbfView *v, uint32_t i);
/* Estimated current false-positive rate: 1 - prod(1 - fill_i^k_i). */
extern double sbf_current_fpr(const SbfView *v);
/* Upper bound of the false-positive rate when every segment is full: sum P_t. */
extern double sbf_fpr_bound(const SbfView *v);

/* ---- writing ---- */

/*
 * A mutable filter: the payload lives at base + prefix (prefix bytes are left
 * for the caller, e.g. a varlena header), len bytes used, cap allocated after
 * prefix.  All memory comes from the allocator; nothing is allocated before
 * the new size is known to be within SBF_MAX_BYTES.
 */
typedef struct SbfAllocator
{
	void	   *(*alloc) (size_t size, void *ctx);
	void	   *(*realloc) (void *ptr, size_t size, void *ctx);
	void		(*free) (void *ptr, void *ctx);
	void	   *ctx;
	/*
	 * Called from long loops (union, combine) if not NULL; may not return
	 * (PostgreSQL: CHECK_FOR_INTERRUPTS).  It is called only while the
	 * operation's inputs are unchanged, so leaving by longjmp loses nothing
	 * but the scratch memory, which belongs to the allocator's context.
	 */
	void		(*interrupt) (void *ctx);
} SbfAllocator;

typedef struct SbfFilter
{
	uint8_t    *base;
	size_t		prefix;
	size_t		len;
	size_t		cap;
	const SbfAllocator *a;
} SbfFilter;

#define SBF_PAYLOAD(f)	((f)->base + (f)->prefix)

/*
 * New empty filter, in the exact form; it converts to one segment of
 * capacity p->capacity (sparse HLL) when that is smaller.  Fails with
 * SBF_E_TOO_LARGE at once if that segment could not be built.
 */
extern SbfStatus sbf_create(SbfFilter *f, const SbfParams *p, size_t prefix,
							const SbfAllocator *a);
/*
 * New empty filter whose first segment is right-sized for n elements
 * (n >= 1) at error sbf_sized_error(); later segments grow from p->capacity.
 * Exact form while n <= SBF_EXACT_MAX (it converts to that segment).
 */
extern SbfStatus sbf_create_sized(SbfFilter *f, const SbfParams *p, uint64_t n,
								  size_t prefix, const SbfAllocator *a);
/* Copy of a validated view into a new mutable filter with extra room. */
extern SbfStatus sbf_copy(SbfFilter *f, const SbfView *v, size_t prefix,
						  size_t extra, const SbfAllocator *a);

/*
 * Adds an element by hash.  If it is already probably present nothing but the
 * HyperLogLog changes (*inserted = false); otherwise its bits go into the last
 * segment, first appending a new segment (see SIZING) when that one is full.
 */
extern SbfStatus sbf_add_hash(SbfFilter *f, uint64_t h, bool *inserted);

/*
 * Adds n hashes with exactly the result of n sbf_add_hash calls in the same
 * order, faster when the filter has one segment with room for all of them
 * (one view, one HyperLogLog re-encoding); otherwise one add at a time.
 */
extern SbfStatus sbf_add_hashes(SbfFilter *f, const uint64_t *h, size_t n);

/* Updates only the HyperLogLog (nothing in the exact form, which has none). */
extern SbfStatus sbf_hll_add_hash(SbfFilter *f, uint64_t h);

/* Converts an exact filter to the segmented form (no-op if segmented). */
extern SbfStatus sbf_convert(SbfFilter *f);

/*
 * New empty filter continuing v's growth chain and error budget (CHAIN): its
 * first segment is the one v would append next.  Exact form.  For an exact v,
 * an empty copy of its parameters.
 */
extern SbfStatus sbf_delta(SbfFilter *f, const SbfView *v, size_t prefix,
						   const SbfAllocator *a);

/* ---- union (sbf_union.c) ---- */

/* Bits of sbf_union_mismatch: the parameters in which two filters differ. */
#define SBF_DIFF_VERSION		0x01
#define SBF_DIFF_HASH			0x02
#define SBF_DIFF_GROWTH			0x04
#define SBF_DIFF_TIGHTENING		0x08
#define SBF_DIFF_ERROR_RATE		0x10

/*
 * The one compatibility rule of unions: which parameters of a and b differ
 * (0 = none).  Version (1 and 2 match each other), hash, growth and
 * tightening must always match;
 * error_rate must match unless the union is given its own error_rate.  A
 * differing capacity or hll_p never matters (the larger initial capacity
 * is kept; the HyperLogLog folds to the smaller precision).
 */
extern uint32_t sbf_union_mismatch(const SbfView *a, const SbfView *b);

/* How sbf_union_many unites. */
typedef struct SbfUnionSpec
{
	double		error_rate;		/* the result's error_rate; 0 = the inputs'
								 * own, which must then be equal */
	bool		merge;			/* OR segments of equal geometry that fit;
								 * false: only drop duplicate segments */
	bool		enforce;		/* SBF_E_OVER_BUDGET when the result's
								 * fpr_bound exceeds its error_rate (never
								 * with tightening 1: no compound bound) */
} SbfUnionSpec;

/*
 * out := the union of n >= 1 validated views, a new filter.  The result
 * depends only on the multiset of the inputs' segments and hashes (exact
 * inputs, see sbf_union.c), not on their order
 * (canonical segment order, see sbf_union.c): equal segments are one,
 * segments without a set bit are dropped (unless all are empty);
 * with merge a segment is OR-ed into an earlier one of equal geometry when
 * its bits are a subset or the OR stays within the fill expected at
 * capacity; every other segment is appended unchanged.  No false negatives
 * either way.  *bound (if not NULL) receives the result's fpr_bound, also
 * when SBF_E_OVER_BUDGET is returned, so a caller can name the error_rate
 * that would fit.  SBF_E_INCOMPATIBLE per sbf_union_mismatch.
 */
extern SbfStatus sbf_union_many(SbfFilter *out, const SbfView *in, uint32_t n,
								const SbfUnionSpec *spec, double *bound,
								size_t prefix, const SbfAllocator *a);

/*
 * dst := dst UNION src (sbf_union_many with merge, equal error_rates, no
 * budget check: 1.0's meaning for callers).  Exact operands unite exactly
 * (exact while small) or add their hashes to the segmented side; the bytes
 * do not depend on the order of the operands.  On error dst is unchanged.
 */
extern SbfStatus sbf_union(SbfFilter *dst, const SbfView *src);

/*
 * dst := dst UNION src with merge and the budget check: error_rate is the
 * result's (0 = the filters' own, which must be equal).  On error dst is
 * unchanged; *bound as in sbf_union_many.
 */
extern SbfStatus sbf_union_budget(SbfFilter *dst, const SbfView *src,
								  double error_rate, double *bound);

extern void sbf_filter_free(SbfFilter *f);

/* Builds a view over a mutable filter's current payload (no validation). */
extern void sbf_filter_view(const SbfFilter *f, SbfView *v);

/* ---- text form ---- */

/* "sbf1:" followed by standard base64 (with padding) of the payload. */
#define SBF_TEXT_PREFIX "sbf1:"
#define SBF_TEXT_PREFIX_LEN		(sizeof(SBF_TEXT_PREFIX) - 1)
extern size_t sbf_text_size(size_t payload_len);	/* without the NUL */
/* Writes sbf_text_size(len) characters and a NUL: out needs one more byte. */
extern void sbf_text_encode(const uint8_t *payload, size_t len, char *out);
/*
 * Decodes into out (room for sbf_text_decoded_max(text_len) bytes); checks
 * prefix and base64 strictly.  Returns false on malformed text.
 */
extern size_t sbf_text_decoded_max(size_t text_len);
extern bool sbf_text_decode(const char *text, size_t text_len, uint8_t *out,
							size_t *out_len);

/*
 * The strict padded base64 under the text forms (sbf_hashset's "sbfh1:"
 * reuses it): sbf_base64_size(len) characters plus a NUL are written;
 * decoding needs room for n / 4 * 3 bytes and rejects what sbf_text_decode
 * rejects after the prefix.
 */
extern size_t sbf_base64_size(size_t len);
extern void sbf_base64_encode(const uint8_t *payload, size_t len, char *out);
extern bool sbf_base64_decode(const char *text, size_t n, uint8_t *out,
							  size_t *out_len);

#endif							/* SBF_CORE_H */
