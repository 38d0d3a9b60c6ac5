/*
 * sbf_core.h
 *	  Pure-C core of sbf: the scalable Bloom filter with an embedded
 *	  HyperLogLog, its hash, and its on-disk format.  No PostgreSQL headers
 *	  here: unit tests, sanitizer builds and fuzzers drive this layer directly.
 *
 *-------------------------------------------------------------------------
 * FORMAT
 *
 * The byte layout of every format version (1 and 2: plain filters, 3: the
 * windowed form, 4: segments with a kind, plain or windowed by flag bit 7),
 * the hash, the sizing rules and what a reader must reject are documented
 * once, in docs/format.md (versions 1-3) and docs/format4.md (version 4).
 * Comments in the code that say "see sbf_core.h" or name a section (FORMAT,
 * "Exact form", WRITES, COUNTS, CHAIN, HASH, SIZING, WINDOWED FORM, WINDOWED
 * POSITIONS, WINDOW SIZING) refer to the section of that name in
 * docs/format.md.  This header names the
 * constants; the functions that read and write the format are in
 * sbf_format*.c, sbf_exact.c, sbf_filter.c, sbf_write.c, sbf_grow.c,
 * sbf_build.c, sbf_kind*.c, sbf_union*.c and sbf_window*.c.
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
#define SBF_FORMAT_V4			4	/* 1.3: segments with a kind (docs/format4.md) */
#define SBF_FLAG_WINDOWED		0x80	/* version 4: the windowed form */
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

/* the windowed form (WINDOWED FORM; version 4: docs/format4.md, section 8) */
#define SBF_WIN_VERSION			3	/* 1.2's windowed form, read forever */
#define SBF_WIN4_VERSION		SBF_FORMAT_V4	/* with flag bit 7 set (docs/format4.md, 8) */
#define SBF_WIN_FLAG_STARTED	0x01
#define SBF_WIN_FLAG_WINDOWED	SBF_FLAG_WINDOWED	/* version 4: the windowed form */
#define SBF_WIN_HEADER_BYTES	40
#define SBF_WIN_SEGDIR_BYTES	16	/* version 3 */
#define SBF_WIN4_SEGDIR_BYTES	24	/* version 4: age, reserved, count, descriptor */
#define SBF_WIN_PAIR_BYTES		10

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
	uint8_t		kind;			/* segment kind (sbf_kind.h): 1, bloom, in formats 1-2 */
	size_t		words_offset;	/* payload offset of its first word */
} SbfSegment;

/* sbf_info's "kind" of a segment: "bloom", "blocked" or "fused". */
extern const char *sbf_segment_kind_name(const SbfSegment *seg);

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
 * too short.  For values already validated when stored: ranges and lengths
 * only, not each entry's fields against its kind (the rate bounds), which
 * the validator checked when the value entered.
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
/* The same from the segment itself (no walk). */
extern double sbf_segment_expected_fill_of(const SbfSegment *seg);
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

/*
 * The interrupt check of the loops that take no allocator (the validators,
 * the directory count, rates over a segment's data), called every so much
 * work if not NULL; may not return.  The glue points it at
 * CHECK_FOR_INTERRUPTS in _PG_init; the unit tests count its calls.  Those
 * loops only read, so leaving by longjmp loses nothing.
 */
extern void (*sbf_interrupt_hook) (void);

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
 * Relabels a valid segmented value of version 1 or 2 to version 4 in place
 * (docs/format4.md, section 2: same bits, same length; version 1 gets
 * OVERLAP).  SBF_OK also for a plain version-4 value (unchanged);
 * SBF_E_VERSION for the exact form and the windowed forms.
 */
extern SbfStatus sbf_relabel4(uint8_t *buf, size_t len);
extern SbfStatus sbf_filter_relabel4(SbfFilter *f);

/*
 * The one builder from sorted hashes (docs/format4.md, section 6): a new
 * version-4 value, header from p, of one segment holding the n >= 1
 * strictly ascending distinct hashes h at rate share (the kind
 * sbf_kind_choose picks; blocked above SBF_FUSED_MAX_BUILD hashes or when
 * no fused seed peels), its capacity n, and the HyperLogLog of h.  flags:
 * OVERLAP, CHAIN.  SBF_E_PARAM when h is not strictly ascending.
 */
extern SbfStatus sbf_build_sorted(SbfFilter *f, const SbfParams *p,
								  const uint64_t *h, size_t n, double share,
								  uint8_t flags, size_t prefix,
								  const SbfAllocator *a);

/*
 * An aggregate's final from the complete set of n >= 0 strictly ascending
 * distinct hashes: the exact form (version 2, as 1.2) while the whole set
 * fits it, else sbf_build_sorted at 1.2's right-sized share.
 */
extern SbfStatus sbf_build_final(SbfFilter *f, const SbfParams *p,
								 const uint64_t *h, size_t n, size_t prefix,
								 const SbfAllocator *a);

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
 * with merge a bloom or blocked segment is OR-ed into an earlier one of
 * its kind and geometry when its bits are a subset or the OR stays within
 * the segment's rate bound (bloom: the fill expected at capacity; blocked:
 * the OR's exact rate within the larger p); a fused segment and every
 * other segment are appended unchanged.  Segmented results are format 4.  No false negatives
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
