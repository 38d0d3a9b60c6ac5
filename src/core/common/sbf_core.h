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
 * constants and the types every layer shares; the functions that read and
 * write plain values are declared in sbf_plain.h (core/plain), unions in
 * sbf_union.h (core/union), the kinds and windowed forms in their folders'
 * headers.
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
#define SBF_FORMAT_V5			5	/* 1.4: version 4 plain, admitting compact segments (docs/format5.md) */
#define SBF_FLAG_WINDOWED		0x80	/* version 4: the windowed form */
#define SBF_HASH_XXH3			1
#define SBF_FLAG_HLL_DENSE		0x01
#define SBF_FLAG_EXACT			0x02	/* version 2: exact form */
#define SBF_FLAG_OVERLAP		0x04	/* version 2: a union may have overlapped segments */
#define SBF_FLAG_CHAIN			0x08	/* version 2: continues another filter's chain */
#define SBF_FLAG_COMPACT		0x40	/* version 5: the compact form (docs/format5.md, 3) */

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
	/*
	 * compact form only (sbf_is_compact; nsegments and hll_bytes 0, hash_id
	 * XXH3, hll_p the default): nfp fingerprints of fp_bits bits, fp_low of
	 * them plain, coded from bits_offset to len (sbf_compact_value.c)
	 */
	uint64_t	nfp;
	uint8_t		fp_bits;
	uint8_t		fp_low;
} SbfView;

/* True when a view is in the exact form. */
static inline bool
sbf_is_exact(const SbfView *v)
{
	return (v->flags & SBF_FLAG_EXACT) != 0;
}

/* True when a view is in the compact form (version 5, flag COMPACT). */
static inline bool
sbf_is_compact(const SbfView *v)
{
	return v->version == SBF_FORMAT_V5 && (v->flags & SBF_FLAG_COMPACT) != 0;
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

/* Bits and hashes for n elements at error p; false if m would exceed max_bits. */
extern bool sbf_segment_geometry(uint64_t n, double p, uint64_t max_bits,
								 uint64_t *m, uint32_t *k);

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

/* Frees p with a; nothing when p is NULL (as free(NULL)). */
static inline void
sbf_free(const SbfAllocator *a, void *p)
{
	if (p != NULL)
		a->free(p, a->ctx);
}

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
