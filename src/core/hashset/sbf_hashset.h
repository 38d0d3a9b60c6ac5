/*
 * sbf_hashset.h
 *	  Pure-C core of the sorted 64-bit hash set: the engine behind sbf_agg and
 *	  the sbf_hashset type, and the sbf_hashset byte format.  No PostgreSQL
 *	  headers: test/unit and test/fuzz drive it directly.
 *
 *-------------------------------------------------------------------------
 * SBF_HASHSET FORMAT, VERSION 1
 *
 * The byte layout (sorted hashes, Golomb-Rice gap code, the error_rate and
 * filter-body flags of aggregate states) and what a reader must reject are
 * documented once, in docs/format.md ("sbf_hashset, version 1").
 *-------------------------------------------------------------------------
 */
#ifndef SBF_HASHSET_H
#define SBF_HASHSET_H

#include "sbf_core.h"

#define SBF_HS_VERSION			1
#define SBF_HS_FLAG_RATE		0x01
#define SBF_HS_FLAG_FILTER		0x02
#define SBF_HS_HEADER_BYTES		16

/*
 * Most hashes one set may hold: its sorted array (8 bytes a hash) stays
 * below 1 GB, PostgreSQL's limit for one allocation and one value.
 */
#define SBF_HS_MAX_COUNT		((uint64_t) 0x3FFFFFFF / 8 - 1)

/* sbf_agg streams into a filter past this many distinct hashes (10 Mi). */
#define SBF_HS_AGG_THRESHOLD	((uint64_t) 10 * 1024 * 1024)

/* Pending hashes kept inside the set itself. */
#define SBF_HS_INLINE_BUF		8

/* Outcome of reading an sbf_hashset (the validator and the decoder). */
typedef enum SbfHsError
{
	SBF_HS_OK = 0,
	SBF_HS_E_TRUNCATED,			/* shorter than its header or body needs */
	SBF_HS_E_VERSION,			/* unknown version */
	SBF_HS_E_FLAGS,				/* unknown flag bits, bad combination, or a
								 * reserved byte set */
	SBF_HS_E_RICE,				/* k out of range */
	SBF_HS_E_COUNT,				/* count too large for the limit or body */
	SBF_HS_E_RATE,				/* error_rate out of range */
	SBF_HS_E_REPEAT,			/* a hash repeated (zero gap) */
	SBF_HS_E_ORDER,				/* a gap passes 2^64 - 1 */
	SBF_HS_E_PADDING,			/* nonzero padding bits */
	SBF_HS_E_TRAILING,			/* bytes after the last hash */
	SBF_HS_E_FILTER				/* the embedded filter is invalid or has
								 * another error_rate */
} SbfHsError;

/* A full sentence describing a reading error, for errdetail. */
extern const char *sbf_hs_error_message(SbfHsError e);

/* The header of a validated sbf_hashset. */
typedef struct SbfHsView
{
	const uint8_t *buf;
	size_t		len;
	uint8_t		flags;
	uint8_t		k;
	uint64_t	count;
	double		error_rate;		/* 0 without flag bit 0 */
	size_t		body;			/* offset of the body */
} SbfHsView;

/*
 * The one validator: every sbf_hashset that enters from outside (text
 * input, binary receive, bytea cast, aggregate combine) passes here.  Reads
 * the whole body without allocating.
 */
extern SbfHsError sbf_hs_validate(const uint8_t *buf, size_t len, SbfHsView *v);

/*
 * The validator with a's interrupt callback (a may be NULL) called every
 * SBF_WORK_STRIDE hashes: a body of 33.5 MB holds 134 million hashes.
 */
extern SbfHsError sbf_hs_check(const uint8_t *buf, size_t len, SbfHsView *v,
							   const SbfAllocator *a);

/*
 * The validator in two steps, for readers that decode anyway: sbf_hs_parse
 * checks the header (and an embedded filter) and bounds the count by the
 * body's length (n hashes take at least n (k + 1) bits, 2n - 1 with k = 0);
 * sbf_hs_walk then checks the body of a hash set while decoding it into
 * out[0..v->count), checking a's interrupt (a may be NULL).  Together they
 * accept exactly what sbf_hs_validate accepts.
 */
extern SbfHsError sbf_hs_parse(const uint8_t *buf, size_t len, SbfHsView *v);
extern SbfHsError sbf_hs_walk(const SbfHsView *v, uint64_t *out,
							  const SbfAllocator *a);

/* Decodes a validated hash-set body into out[0..v->count). */
extern void sbf_hs_decode(const SbfHsView *v, uint64_t *out);

/*
 * sbf_hs_walk in chunks, for a reader that streams the hashes on (a large
 * partial state into a spill file): up to cap >= 1 hashes at a time are
 * decoded into buf and handed to fn, checked as sbf_hs_walk checks them;
 * an error stops the walk (fn may have had a part of the set).
 */
typedef void (*SbfHsChunkFn) (void *arg, const uint64_t *h, size_t n);
extern SbfHsError sbf_hs_walk_chunks(const SbfHsView *v, uint64_t *buf, size_t cap,
									 SbfHsChunkFn fn, void *arg, const SbfAllocator *a);

/*
 * Scratch memory for sorting pending buffers, owned by a caller that serves
 * many sets (e.g. one per aggregate call site), so that sorts do not
 * allocate anew.  Zero it before first use; free with sbf_hs_scratch_free.
 */
typedef struct SbfHsScratch
{
	uint64_t   *tmp;
	uint64_t	tmpcap;			/* entries of tmp */
	uint32_t   *count;			/* the sort's counters (sbf_hash_sort_count_size) */
	const SbfAllocator *a;
	size_t		countcap;		/* entries of count */
} SbfHsScratch;

extern void sbf_hs_scratch_free(SbfHsScratch *sc);

/*
 * The engine: a sorted array of distinct hashes plus a pending buffer of
 * unsorted hashes with repeats.  An add only appends to the buffer; a full
 * buffer is sorted (one most-significant-bits bucket pass, then insertion
 * sort of the small buckets), deduplicated, stripped of the hashes the array
 * already has (galloping search) and merged into the array in place from the
 * back.  The buffer holds about a quarter as many hashes as the array (8 ..
 * 2^20), so each add costs a bounded number of moves on average.  Everything
 * read from a set (a filter, the encoded bytes, the count) sees the array
 * merged with a sorted copy of the buffer, so it depends only on the set,
 * not on insertion order or on how a parallel plan split the rows.
 *
 * With a nonzero threshold (sbf_agg: SBF_HS_AGG_THRESHOLD), a merge that
 * would take the array past it switches the set to streaming: its hashes go
 * in ascending order into a filter (params, first segment right-sized for
 * them), the array and buffer are freed, and later hashes are added to the
 * filter, which grows segment by segment.  With threshold 0 the set never
 * streams and a merge past SBF_HS_MAX_COUNT fails with SBF_E_TOO_LARGE.
 * A set that has not flushed may hold up to a buffer more than the
 * threshold; built into a filter it is then right-sized for all of them.
 */
typedef struct SbfHashSet
{
	/*
	 * What an add touches comes first, so that in an expanded object it
	 * shares a cache line with the object's header (sbf_hashset_glue.h).
	 */
	uint64_t   *buf;			/* pending hashes, unsorted, with repeats */
	uint32_t	nbuf;
	uint32_t	bufcap;			/* 0 while streaming */
	SbfAllocator alloc;			/* all memory of the set */
	SbfParams	params;			/* of the streaming filter and of builds */
	uint64_t	threshold;		/* 0 = never stream */
	void		(*interrupt) (void);	/* called between long chunks, or NULL */
	bool		streaming;
	SbfFilter	stream;			/* valid while streaming */
	uint64_t   *set;			/* nset distinct hashes, ascending, or NULL */
	uint64_t	nset;
	uint64_t	setcap;			/* allocated entries of set */
	uint64_t	nrows;			/* hashes that went through the buffer */
	uint64_t	inline_buf[SBF_HS_INLINE_BUF];
} SbfHashSet;

/*
 * The encoding of a set whose hashes arrive in ascending order (a spilled
 * aggregate state): SbfHsRiceStats gathers what sizes the encoding and
 * chooses its parameter, SbfHsEncoder writes it.  The bytes are
 * sbf_hs_encode's for the same set.  In two passes, the stats take the
 * first and the encoder the second.  In one, the encoder starts with the
 * parameter sbf_hs_rice_guess predicts, in a buffer of
 * sbf_hs_encoded_bound bytes, beside the stats: when the stats choose the
 * same parameter, the bytes are the encoding (its count set to the stats'
 * n by sbf_hs_encoder_set_count); otherwise a second pass writes them.
 */
typedef struct SbfHsRiceStats
{
	uint64_t	n;				/* hashes so far */
	uint64_t	last;			/* the last of them (0 before the first) */
	int			kmin;			/* sums kept: parameters kmin .. kmax */
	int			kmax;
	uint64_t	sum[64];		/* sum of the gaps shifted right by k */
} SbfHsRiceStats;

typedef struct SbfHsEncoder
{
	uint8_t    *p;				/* the next word of the body */
	uint64_t	acc;			/* pending bits, nacc of them */
	int			nacc;
	int			k;				/* the Rice parameter */
	uint64_t	prev;			/* the last hash encoded */
} SbfHsEncoder;

/*
 * Starts st for a set of n hashes, nmin <= n <= nmax (nmin >= 1), whose
 * largest is max: only the sums of the parameters the choice can read for
 * such a set are kept (all 64 with max UINT64_MAX, nmin 1, nmax UINT64_MAX).
 */
extern void sbf_hs_stats_start(SbfHsRiceStats *st, uint64_t max, uint64_t nmin,
							   uint64_t nmax);
extern void sbf_hs_stats_add(SbfHsRiceStats *st, const uint64_t *h, size_t n);
/* Bytes and parameter; UINT64_MAX when the set broke stats_start's bounds. */
extern uint64_t sbf_hs_stats_size(const SbfHsRiceStats *st, bool with_rate, int *k);

/*
 * The parameter the stats most likely choose for n >= 1 hashes spread
 * evenly up to max (gaps of mean max / n, nearly geometric), and the most
 * bytes an encoding of at most n hashes up to max with parameter k takes.
 */
extern int	sbf_hs_rice_guess(uint64_t max, uint64_t n);
extern uint64_t sbf_hs_encoded_bound(uint64_t n, uint64_t max, int k, bool with_rate);
/* Rewrites the count in the header of an encoding. */
extern void sbf_hs_encoder_set_count(uint8_t *out, uint64_t n);
extern void sbf_hs_encoder_start(SbfHsEncoder *e, uint8_t *out, size_t size,
								 uint64_t n, int k, bool with_rate, double error_rate);
extern void sbf_hs_encoder_add(SbfHsEncoder *e, const uint64_t *h, size_t n);
extern void sbf_hs_encoder_finish(SbfHsEncoder *e);


/*
 * Starts an empty set in place (the struct must not move afterwards: the
 * buffer may point into it).  params are used only when it streams or is
 * built into a filter; they may be NULL for a set that does neither.
 */
extern void sbf_hs_init(SbfHashSet *s, const SbfAllocator *a,
						const SbfParams *params, uint64_t threshold);
extern void sbf_hs_free(SbfHashSet *s);

/* Adds a hash to a full buffer or a streaming set (the slow path). */
extern SbfStatus sbf_hs_add_slow(SbfHashSet *s, uint64_t h, SbfHsScratch *sc);

/* Adds a hash: a store into the buffer, unless it is full. */
static inline SbfStatus
sbf_hs_add(SbfHashSet *s, uint64_t h, SbfHsScratch *sc)
{
	if (s->nbuf < s->bufcap)
	{
		s->buf[s->nbuf++] = h;
		return SBF_OK;
	}
	return sbf_hs_add_slow(s, h, sc);
}

/* Empties the buffer into the array (or the stream); the set is unchanged. */
extern SbfStatus sbf_hs_flush(SbfHashSet *s, SbfHsScratch *sc);

/*
 * sbf_hs_flush for a set whose hashes may also live elsewhere (a spilling
 * aggregate state's runs): when the buffer holds at least min_run distinct
 * hashes they are handed to emit, sorted, instead of being merged into the
 * array (a set of distinct values would only copy them there before they
 * go out); fewer are merged as sbf_hs_flush merges them.  emit may not
 * return (an error): then the buffer keeps its hashes.  The set's hashes
 * are then the array, the buffer and whatever emit kept.
 */
extern SbfStatus sbf_hs_flush_runs(SbfHashSet *s, SbfHsScratch *sc, uint64_t min_run,
								   SbfHsChunkFn emit, void *arg);

/*
 * Gives a set whose buffer is empty (and that does not stream) a buffer of
 * at least cap hashes (a power of two, at most 2^20); buffers only grow.
 */
extern SbfStatus sbf_hs_reserve_buffer(SbfHashSet *s, uint64_t cap);

/*
 * dst := dst UNION src (src is only read).  A streaming side takes the other
 * side's hashes as ordinary adds; two streaming sides are united as filters
 * (sbf_union).
 */
extern SbfStatus sbf_hs_union(SbfHashSet *dst, const SbfHashSet *src);

/*
 * Adds n sorted, distinct hashes (a decoded sbf_hashset) to s; run is the
 * caller's scratch and is changed.
 */
extern SbfStatus sbf_hs_union_run(SbfHashSet *s, uint64_t *run, uint64_t n);

/* Takes a sorted array of n distinct hashes allocated with s's allocator. */
extern SbfStatus sbf_hs_adopt(SbfHashSet *s, uint64_t *set, uint64_t n);
/* Makes an empty set stream into a copy of a validated filter. */
extern SbfStatus sbf_hs_adopt_filter(SbfHashSet *s, const SbfView *fv);

/*
 * Replaces an empty set's contents by an encoded value whose header
 * sbf_hs_parse accepted: its body is checked while it is decoded
 * (sbf_hs_walk), and *e is the reading error (the set then stays empty).
 */
extern SbfStatus sbf_hs_load(SbfHashSet *s, const SbfHsView *v, SbfHsError *e);

/*
 * s := s UNION an encoded hash set (flag bit 1 clear) whose header
 * sbf_hs_parse accepted, merged while it is decoded and checked, into one
 * array of the union's size at the most (sbf_hashset_merge.c); a streaming
 * s takes its hashes as adds.  *e is the reading error.  On a reading error
 * or a failure s holds its hashes and possibly some of the value's.
 */
extern SbfStatus sbf_hs_merge_coded(SbfHashSet *s, const SbfHsView *v,
									SbfHsError *e);

/* Exact number of distinct hashes (flushes the buffer); 0 while streaming. */
extern SbfStatus sbf_hs_count(SbfHashSet *s, uint64_t *n);

/*
 * Size of the encoding of s (flushes the buffer).  with_rate adds the
 * error_rate field (params.error_rate).  A streaming set is encoded as its
 * filter (flag bit 1; with_rate is implied).  SBF_E_TOO_LARGE when it would
 * exceed max_bytes.
 */
extern SbfStatus sbf_hs_encoded_size(SbfHashSet *s, bool with_rate,
									 size_t max_bytes, size_t *size);
/* Writes the encoding sized by sbf_hs_encoded_size (no flush in between). */
extern void sbf_hs_encode(const SbfHashSet *s, bool with_rate, uint8_t *out,
						  size_t size);

/*
 * The one build of a right-sized filter from a set, for sbf_agg's final and
 * sbf_build alike: a copy of the stream when streaming, else a filter whose
 * first segment is sized for the set's n distinct hashes (at least 1), with
 * every hash added in ascending order.  s is only read.
 */
extern SbfStatus sbf_hs_build(const SbfHashSet *s, const SbfParams *params,
							  size_t prefix, const SbfAllocator *a, SbfFilter *out);

/* ---- sbf_agg's 1.0 partial state (bytea of its serialize function) ---- */

/*
 * Layout (little-endian): version 1 (1 byte), mode (0 = hash set,
 * 1 = filter), 6 reserved zero bytes, error_rate (double, 0 < e < 0.5),
 * count (mode 0: 1..SBF_HS_AGG_THRESHOLD hashes; mode 1: 0), then mode 0:
 * count uint64 hashes strictly ascending; mode 1: a scalablebloom payload
 * with the same error_rate.
 */
#define SBF_HS_V1STATE_HEADER	24

/* Size of the 1.0 serialized state of s (flushes the buffer). */
extern SbfStatus sbf_hs_v1state_size(SbfHashSet *s, size_t *size);
extern void sbf_hs_v1state_write(const SbfHashSet *s, uint8_t *out);

/*
 * Reads a 1.0 serialized state into an empty set initialised with default
 * params (their error_rate is replaced by the state's).  Returns a reading
 * error, with *status set for allocation failures.
 */
extern SbfHsError sbf_hs_v1state_read(SbfHashSet *s, const uint8_t *buf,
									  size_t len, SbfStatus *status);

#endif							/* SBF_HASHSET_H */
