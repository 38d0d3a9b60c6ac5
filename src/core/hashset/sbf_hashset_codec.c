/*
 * sbf_hashset_codec.c
 *	  Bytes of a hash set (see sbf_hashset.h): the sbf_hashset Golomb-Rice
 *	  encoder, its one validator and decoder, and sbf_agg's 1.0
 *	  partial-state codec.
 */
#include <math.h>

#include "sbf_hashset_int.h"
#include "sbf_window.h"

/* ---- the sbf_hashset codec ---- */

/*
 * The Rice parameter with the fewest bits among lo .. lo + 2, and that
 * number, for n gaps whose sums of g >> (lo + j) are sum[j].
 */
static int
hs_rice_best(uint64_t n, int lo, const uint64_t *sum, uint64_t *bits)
{
	int			best = -1;
	int			j;

	for (j = 0; j < 3 && lo + j <= 63; j++)
	{
		uint64_t	b = sum[j] + n * (uint64_t) (lo + j + 1);

		if (best < 0 || b < *bits)
		{
			*bits = b;
			best = lo + j;
		}
	}
	return best;
}

/* The first parameter tried for n hashes whose largest is max: k0 - 1. */
static inline int
hs_rice_lo(uint64_t max, uint64_t n)
{
	int			k0 = max / n == 0 ? 0 : sbf_log2_64(max / n);

	return SBF_HS_MAX(k0 - 1, 0);
}

/*
 * The Rice parameter with the fewest bits, and that number.  The best k for
 * a geometric gap distribution is near log2 of the mean gap, so k0 - 1 ..
 * k0 + 1 are tried, in one pass: a code of gap g with parameter k takes
 * (g >> k) + 1 + k bits.  The sums cannot overflow: sum(g >> k) <= h[n-1].
 */
static int
hs_rice_choose(const uint64_t *h, uint64_t n, uint64_t *bits,
			   const SbfAllocator *a)
{
	int			lo;
	uint64_t	sum[3] = {0, 0, 0};
	uint64_t	prev = 0;
	uint64_t	i;

	*bits = 0;
	if (n == 0)
		return 0;
	lo = hs_rice_lo(h[n - 1], n);
	for (i = 0; i < n; i++)
	{
		uint64_t	g = h[i] - prev;

		prev = h[i];
		sum[0] += g >> lo;
		sum[1] += g >> SBF_HS_MIN(lo + 1, 63);
		sum[2] += g >> SBF_HS_MIN(lo + 2, 63);
		if (SBF_HS_STRIDE_DUE(i))
			sbf_check_interrupt(a);
	}
	return hs_rice_best(n, lo, sum, bits);
}

/* Size of the encoding of s; flushes the buffer first. */
SbfStatus
sbf_hs_encoded_size(SbfHashSet *s, bool with_rate, size_t max_bytes, size_t *size)
{
	SbfStatus	status = sbf_hs_flush(s, NULL);
	uint64_t	bits;
	uint64_t	total;

	*size = 0;
	if (status != SBF_OK)
		return status;
	if (s->streaming)
		total = SBF_HS_HEADER_BYTES + 8 + (uint64_t) s->stream.len;
	else
	{
		(void) hs_rice_choose(s->set, s->nset, &bits, &s->alloc);
		total = SBF_HS_HEADER_BYTES + (with_rate ? 8 : 0) + (bits + 7) / 8;
	}
	if (total > max_bytes)
		return SBF_E_TOO_LARGE;
	*size = (size_t) total;
	return SBF_OK;
}

/* Bit writer: fills 64-bit little-endian words from their low bit. */
typedef struct HsBitWriter
{
	uint8_t    *p;
	uint64_t	acc;			/* pending bits, nacc of them */
	int			nacc;			/* 0..63 */
} HsBitWriter;

/* Appends the low nbits (1..64) of v (v < 2^nbits). */
static inline void
hs_put(HsBitWriter *w, uint64_t v, int nbits)
{
	int			rest = w->nacc + nbits - 64;

	w->acc |= v << w->nacc;
	if (rest < 0)
	{
		w->nacc += nbits;
		return;
	}
	/* a word is complete: every byte of it belongs to the stream */
	sbf_store64(w->p, w->acc);
	w->p += 8;
	w->acc = rest > 0 ? v >> (nbits - rest) : 0;
	w->nacc = rest;
}

/* Appends the Rice code of gap g with parameter k. */
static inline void
hs_put_gap(HsBitWriter *w, uint64_t g, int k)
{
	uint64_t	q = g >> k;
	uint64_t	r = k == 0 ? 0 : g & ((UINT64_C(1) << k) - 1);

	if (q + 1 + (uint64_t) k <= 64)
	{
		/* q zero bits, a one bit, the remainder: one append */
		hs_put(w, ((r << 1) | 1) << q, (int) q + 1 + k);
		return;
	}
	while (q >= 64)
	{
		hs_put(w, 0, 64);
		q -= 64;
	}
	hs_put(w, UINT64_C(1) << q, (int) q + 1);
	if (k > 0)
		hs_put(w, r, k);
}

/*
 * Writes the header (and error_rate) of the encoding of n hashes with Rice
 * parameter k into out, which is zeroed; returns where the body starts.
 */
static uint8_t *
hs_encode_header(uint8_t *out, uint64_t n, int k, bool with_rate, double error_rate)
{
	out[1] = with_rate ? SBF_HS_FLAG_RATE : 0;
	out[2] = (uint8_t) k;
	sbf_store64(out + 8, n);
	if (!with_rate)
		return out + SBF_HS_HEADER_BYTES;
	sbf_store_double(out + SBF_HS_HEADER_BYTES, error_rate);
	return out + SBF_HS_HEADER_BYTES + 8;
}

/* Writes the encoding of s (sized by sbf_hs_encoded_size). */
void
sbf_hs_encode(const SbfHashSet *s, bool with_rate, uint8_t *out, size_t size)
{
	uint8_t    *body;
	uint64_t	bits;
	int			k;

	memset(out, 0, size);
	out[0] = SBF_HS_VERSION;
	if (s->streaming)
	{
		out[1] = SBF_HS_FLAG_RATE | SBF_HS_FLAG_FILTER;
		sbf_store_double(out + SBF_HS_HEADER_BYTES, s->params.error_rate);
		memcpy(out + SBF_HS_HEADER_BYTES + 8, SBF_PAYLOAD(&s->stream), s->stream.len);
		return;
	}
	k = hs_rice_choose(s->set, s->nset, &bits, &s->alloc);
	body = hs_encode_header(out, s->nset, k, with_rate, s->params.error_rate);
	{
		HsBitWriter w = {body, 0, 0};
		uint64_t	prev = 0;
		uint64_t	i;
		int			j;

		for (i = 0; i < s->nset; i++)
		{
			hs_put_gap(&w, s->set[i] - prev, k);
			prev = s->set[i];
			if (SBF_HS_STRIDE_DUE(i))
				sbf_check_interrupt(&s->alloc);
		}
		/* the last, partial word: only its bytes that hold bits */
		for (j = 0; j < w.nacc; j += 8)
			*w.p++ = (uint8_t) (w.acc >> j);
	}
}

/*
 * ---- the same encoding from a stream ----
 *
 * A spilled aggregate state never has its set in one array: its hashes come
 * out of a merge, in ascending order, twice.  The first pass gathers what
 * sizes the encoding (sbf_hs_stats_add, then sbf_hs_stats_size), the second
 * writes it (sbf_hs_encoder_*).  The bytes are sbf_hs_encode's for the same
 * set: the sums of every Rice parameter are kept, so the same one is chosen.
 */

/*
 * Starts st: hs_rice_lo falls as n grows, so a set of nmin .. nmax hashes
 * up to max reads the sums of lo(max, nmax) .. lo(max, nmin) + 2.
 */
void
sbf_hs_stats_start(SbfHsRiceStats *st, uint64_t max, uint64_t nmin, uint64_t nmax)
{
	memset(st, 0, sizeof(*st));
	st->kmin = hs_rice_lo(max, SBF_HS_MAX(nmax, 1));
	st->kmax = SBF_HS_MIN(hs_rice_lo(max, SBF_HS_MAX(nmin, 1)) + 2, 63);
}

/* Adds the next n hashes (ascending, distinct, above all before) to st. */
void
sbf_hs_stats_add(SbfHsRiceStats *st, const uint64_t *h, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		uint64_t	g = h[i] - st->last;
		int			k;

		st->last = h[i];
		for (k = st->kmin; k <= st->kmax; k++)
			st->sum[k] += g >> k;
	}
	st->n += n;
}

/* Bytes of the encoding of st's hashes (header included), and its parameter. */
uint64_t
sbf_hs_stats_size(const SbfHsRiceStats *st, bool with_rate, int *k)
{
	uint64_t	bits = 0;
	int			lo;

	*k = 0;
	if (st->n > 0)
	{
		lo = hs_rice_lo(st->last, st->n);
		if (lo < st->kmin || SBF_HS_MIN(lo + 2, 63) > st->kmax)
			return UINT64_MAX;
		*k = hs_rice_best(st->n, lo, st->sum + lo, &bits);
	}
	return SBF_HS_HEADER_BYTES + (with_rate ? 8 : 0) + (bits + 7) / 8;
}

/*
 * The candidate (hs_rice_lo's three) with the fewest expected bits when the
 * gaps are geometric of mean m = max / n, as evenly spread hashes are: a
 * gap's quotient g >> k then has mean 1 / (e^(2^k / m) - 1).
 */
int
sbf_hs_rice_guess(uint64_t max, uint64_t n)
{
	double		m = (double) max / (double) SBF_HS_MAX(n, 1);
	int			lo = hs_rice_lo(max, SBF_HS_MAX(n, 1));
	int			best = lo;
	double		best_bits = 0.0;
	int			k;

	for (k = lo; k <= SBF_HS_MIN(lo + 2, 63); k++)
	{
		double		r = ldexp(1.0, k) / SBF_HS_MAX(m, 1.0);
		double		bits = (double) (k + 1) + (r > 700.0 ? 0.0 : 1.0 / expm1(r));

		if (k == lo || bits < best_bits)
		{
			best = k;
			best_bits = bits;
		}
	}
	return best;
}

/*
 * A gap's code takes k + 1 + (g >> k) bits and the quotients of gaps that
 * sum to at most max sum to at most max >> k.
 */
uint64_t
sbf_hs_encoded_bound(uint64_t n, uint64_t max, int k, bool with_rate)
{
	uint64_t	bits;

	if (n > (UINT64_MAX - (max >> k) - 7) / (uint64_t) (k + 1))
		return UINT64_MAX;
	bits = n * (uint64_t) (k + 1) + (max >> k);
	return SBF_HS_HEADER_BYTES + (with_rate ? 8 : 0) + (bits + 7) / 8;
}

/* Rewrites the count in the header. */
void
sbf_hs_encoder_set_count(uint8_t *out, uint64_t n)
{
	sbf_store64(out + 8, n);
}

/* Starts the encoding of n hashes with parameter k into out (size bytes). */
void
sbf_hs_encoder_start(SbfHsEncoder *e, uint8_t *out, size_t size, uint64_t n, int k,
					 bool with_rate, double error_rate)
{
	memset(out, 0, size);
	out[0] = SBF_HS_VERSION;
	e->p = hs_encode_header(out, n, k, with_rate, error_rate);
	e->acc = 0;
	e->nacc = 0;
	e->k = k;
	e->prev = 0;
}

/* Encodes the next n hashes (ascending, distinct, above all before). */
void
sbf_hs_encoder_add(SbfHsEncoder *e, const uint64_t *h, size_t n)
{
	HsBitWriter w = {e->p, e->acc, e->nacc};
	size_t		i;

	for (i = 0; i < n; i++)
	{
		hs_put_gap(&w, h[i] - e->prev, e->k);
		e->prev = h[i];
	}
	e->p = w.p;
	e->acc = w.acc;
	e->nacc = w.nacc;
}

/* Writes the last, partial word: only its bytes that hold bits. */
void
sbf_hs_encoder_finish(SbfHsEncoder *e)
{
	int			j;

	for (j = 0; j < e->nacc; j += 8)
		*e->p++ = (uint8_t) (e->acc >> j);
}

/*
 * The 64 bits of a body from bit pos on (bits past its end read as 0); at
 * least 57 of them are the stream's when pos is inside it.
 */
static inline uint64_t
hs_peek(const uint8_t *body, size_t len, uint64_t pos)
{
	size_t		byte = (size_t) (pos >> 3);
	uint64_t	w;

	if (byte + 8 <= len)
		w = sbf_load64(body + byte);
	else
	{
		uint8_t		tmp[8] = {0};

		if (byte < len)
			memcpy(tmp, body + byte, len - byte);
		w = sbf_load64(tmp);
	}
	return w >> (pos & 7);
}

/*
 * Reads the gap at bit *pos with parameter k into *g; SBF_HS_E_TRUNCATED
 * when the body ends first, SBF_HS_E_ORDER when the gap does not fit 64
 * bits.
 */
static inline SbfHsError
hs_read_gap(const uint8_t *body, size_t len, uint64_t *pos, int k, uint64_t *g,
			const SbfAllocator *a)
{
	uint64_t	nbits = (uint64_t) len * 8;
	uint64_t	qmax = UINT64_MAX >> k;
	uint64_t	q = 0;
	uint64_t	rem = 0;
	uint64_t	w;
	uint64_t	words = 0;

	for (;;)
	{
		if (*pos >= nbits)
			return SBF_HS_E_TRUNCATED;
		w = hs_peek(body, len, *pos);
		if (w != 0)
			break;
		/* 57..64 zero bits (those past the end are caught above) */
		q += 64 - (*pos & 7);
		*pos += 64 - (*pos & 7);
		if (q > qmax)
			return SBF_HS_E_ORDER;
		/* one gap may span the whole body: 1 GB of zero bits */
		if (a != NULL && SBF_HS_STRIDE_DUE(words))
			sbf_check_interrupt(a);
		words++;
	}
	{
		int			t = sbf_ctz64(w);

		q += (uint64_t) t;
		*pos += (uint64_t) t + 1;
	}
	if (q > qmax)
		return SBF_HS_E_ORDER;
	if (k > 0)
	{
		if (*pos + (uint64_t) k > nbits)
			return SBF_HS_E_TRUNCATED;
		w = hs_peek(body, len, *pos);
		if (k <= 57)
			rem = w & ((UINT64_C(1) << k) - 1);
		else
			rem = (w & 0xFFFFFFFFu) |
				((hs_peek(body, len, *pos + 32) & ((UINT64_C(1) << (k - 32)) - 1)) << 32);
		*pos += (uint64_t) k;
	}
	*g = (k == 0 ? q : (q << k)) | rem;
	return SBF_HS_OK;
}

/* Starts a reader over the body of a parsed hash set. */
void
sbf_hs_reader_start(SbfHsReader *r, const SbfHsView *v)
{
	r->body = v->buf + v->body;
	r->len = v->len - v->body;
	r->pos = 0;
	r->prev = 0;
	r->i = 0;
	r->count = v->count;
	r->k = v->k;
	r->a = NULL;
}

/* The next hash of a body, checked as the validator checks it. */
SbfHsError
sbf_hs_reader_next(SbfHsReader *r, uint64_t *h)
{
	uint64_t	g;
	SbfHsError	e = hs_read_gap(r->body, r->len, &r->pos, r->k, &g, r->a);

	if (e != SBF_HS_OK)
		return e;
	if (r->i > 0 && g == 0)
		return SBF_HS_E_REPEAT;
	if (g > UINT64_MAX - r->prev)
		return SBF_HS_E_ORDER;
	r->prev += g;
	r->i++;
	*h = r->prev;
	return SBF_HS_OK;
}

/* After the last hash: what is left is the padding of the last byte. */
SbfHsError
sbf_hs_reader_end(const SbfHsReader *r)
{
	if ((uint64_t) r->len * 8 - r->pos >= 8)
		return SBF_HS_E_TRAILING;
	if (r->pos < (uint64_t) r->len * 8 && hs_peek(r->body, r->len, r->pos) != 0)
		return SBF_HS_E_PADDING;
	return SBF_HS_OK;
}

/*
 * Walks the body of a hash set: checks every gap, and writes the hashes to
 * out unless it is NULL.  a (may be NULL) is checked for interrupts every
 * SBF_WORK_STRIDE hashes: a body of 33.5 MB holds 134 million.
 */
static SbfHsError
hs_walk(const SbfHsView *v, uint64_t *out, const SbfAllocator *a)
{
	SbfHsReader r;
	uint64_t	h;

	sbf_hs_reader_start(&r, v);
	r.a = a;
	while (r.i < r.count)
	{
		SbfHsError	e = sbf_hs_reader_next(&r, &h);

		if (e != SBF_HS_OK)
			return e;
		if (out != NULL)
			out[r.i - 1] = h;
		if (a != NULL && SBF_HS_STRIDE_DUE(r.i))
			sbf_check_interrupt(a);
	}
	return sbf_hs_reader_end(&r);
}

/*
 * The most hashes a body of nbits bits can hold with Rice parameter k, so
 * that the count is bounded before anything is allocated: a gap's code is
 * at least k + 1 bits (a one bit and k remainder bits), and with k = 0 every
 * gap after the first is at least 1 (no repeats), so at least 2 bits: n
 * hashes take at least n (k + 1) bits, and 2n - 1 with k = 0.
 */
static uint64_t
hs_max_count(uint64_t nbits, int k)
{
	if (k == 0)
		return (nbits + 1) / 2;
	return nbits / ((uint64_t) k + 1);
}

/* Checks a value's header (and an embedded filter), not a set's body. */
SbfHsError
sbf_hs_parse(const uint8_t *buf, size_t len, SbfHsView *v)
{
	int			i;

	memset(v, 0, sizeof(*v));
	if (len < SBF_HS_HEADER_BYTES)
		return SBF_HS_E_TRUNCATED;
	if (buf[0] != SBF_HS_VERSION)
		return SBF_HS_E_VERSION;
	v->buf = buf;
	v->len = len;
	v->flags = buf[1];
	v->k = buf[2];
	v->count = sbf_load64(buf + 8);
	v->body = SBF_HS_HEADER_BYTES;
	if (v->flags & ~(SBF_HS_FLAG_RATE | SBF_HS_FLAG_FILTER))
		return SBF_HS_E_FLAGS;
	if ((v->flags & SBF_HS_FLAG_FILTER) && !(v->flags & SBF_HS_FLAG_RATE))
		return SBF_HS_E_FLAGS;
	for (i = 3; i < 8; i++)
		if (buf[i] != 0)
			return SBF_HS_E_FLAGS;
	if (v->k > 63)
		return SBF_HS_E_RICE;
	if (v->flags & SBF_HS_FLAG_RATE)
	{
		if (len < SBF_HS_HEADER_BYTES + 8)
			return SBF_HS_E_TRUNCATED;
		v->error_rate = sbf_load_double(buf + SBF_HS_HEADER_BYTES);
		if (!(v->error_rate > 0.0 && v->error_rate < 0.5))
			return SBF_HS_E_RATE;
		v->body += 8;
	}
	if (v->flags & SBF_HS_FLAG_FILTER)
	{
		SbfView		fv;

		if (v->k != 0 || v->count != 0)
			return SBF_HS_E_FLAGS;
		/* a windowed value (version 3) is never an aggregate's filter body */
		if (sbf_validate(buf + v->body, len - v->body, &fv) != SBF_OK ||
			sbf_view_windowed(&fv) ||
			memcmp(&fv.error_rate, &v->error_rate, sizeof(double)) != 0)
			return SBF_HS_E_FILTER;
		return SBF_HS_OK;
	}
	if (v->count > SBF_HS_MAX_COUNT ||
		v->count > hs_max_count((uint64_t) (len - v->body) * 8, v->k))
		return SBF_HS_E_COUNT;
	return SBF_HS_OK;
}

/* The one validator of sbf_hashset bytes: the header, then the body. */
SbfHsError
sbf_hs_check(const uint8_t *buf, size_t len, SbfHsView *v, const SbfAllocator *a)
{
	SbfHsError	e = sbf_hs_parse(buf, len, v);

	if (e != SBF_HS_OK || (v->flags & SBF_HS_FLAG_FILTER))
		return e;
	return hs_walk(v, NULL, a);
}

/* The validator without interrupt checks. */
SbfHsError
sbf_hs_validate(const uint8_t *buf, size_t len, SbfHsView *v)
{
	return sbf_hs_check(buf, len, v, NULL);
}

/* Checks and decodes the body of a parsed hash set into out[0..v->count). */
SbfHsError
sbf_hs_walk(const SbfHsView *v, uint64_t *out, const SbfAllocator *a)
{
	return hs_walk(v, out, a);
}

/* Checks and decodes the body of a parsed hash set, cap hashes at a time. */
SbfHsError
sbf_hs_walk_chunks(const SbfHsView *v, uint64_t *buf, size_t cap, SbfHsChunkFn fn,
				   void *arg, const SbfAllocator *a)
{
	SbfHsReader r;
	size_t		m = 0;

	sbf_hs_reader_start(&r, v);
	r.a = a;
	while (r.i < r.count)
	{
		SbfHsError	e = sbf_hs_reader_next(&r, &buf[m]);

		if (e != SBF_HS_OK)
			return e;
		if (++m == cap)
		{
			fn(arg, buf, m);
			m = 0;
		}
		if (a != NULL && SBF_HS_STRIDE_DUE(r.i))
			sbf_check_interrupt(a);
	}
	if (m > 0)
		fn(arg, buf, m);
	return sbf_hs_reader_end(&r);
}

/* Decodes a validated hash-set body. */
void
sbf_hs_decode(const SbfHsView *v, uint64_t *out)
{
	(void) hs_walk(v, out, NULL);
}

/* A full sentence for a reading error. */
const char *
sbf_hs_error_message(SbfHsError e)
{
	switch (e)
	{
		case SBF_HS_OK:
			return "The value is valid.";
		case SBF_HS_E_TRUNCATED:
			return "The value is shorter than its header or its hashes need.";
		case SBF_HS_E_VERSION:
			return "The value has an unknown format version.";
		case SBF_HS_E_FLAGS:
			return "The value has unknown flags or a nonzero reserved field.";
		case SBF_HS_E_RICE:
			return "The value has a Rice parameter above 63.";
		case SBF_HS_E_COUNT:
			return "The value's hash count is out of range or larger than its body can hold.";
		case SBF_HS_E_RATE:
			return "The value has an error_rate outside (0, 0.5).";
		case SBF_HS_E_REPEAT:
			return "The value repeats a hash.";
		case SBF_HS_E_ORDER:
			return "The value's hashes are not ascending (a gap passes 2^64 - 1).";
		case SBF_HS_E_PADDING:
			return "The value's padding bits are not zero.";
		case SBF_HS_E_TRAILING:
			return "The value has bytes after its last hash.";
		case SBF_HS_E_FILTER:
			return "The value's embedded filter is invalid or has another error_rate.";
	}
	return "The value is malformed.";
}

/* ---- sbf_agg's 1.0 partial state ---- */

#define HS_V1_VERSION			1
#define HS_V1_MODE_SET			0
#define HS_V1_MODE_FILTER		1

/* Size of the 1.0 serialized state; flushes the buffer. */
SbfStatus
sbf_hs_v1state_size(SbfHashSet *s, size_t *size)
{
	SbfStatus	status = sbf_hs_flush(s, NULL);

	if (s->streaming)
		*size = SBF_HS_V1STATE_HEADER + s->stream.len;
	else
		*size = SBF_HS_V1STATE_HEADER + (size_t) s->nset * sizeof(uint64_t);
	return status;
}

/* Writes the 1.0 serialized state (flushed by sbf_hs_v1state_size). */
void
sbf_hs_v1state_write(const SbfHashSet *s, uint8_t *out)
{
	uint64_t	i;

	memset(out, 0, SBF_HS_V1STATE_HEADER);
	out[0] = HS_V1_VERSION;
	out[1] = s->streaming ? HS_V1_MODE_FILTER : HS_V1_MODE_SET;
	sbf_store_double(out + 8, s->params.error_rate);
	if (s->streaming)
	{
		memcpy(out + SBF_HS_V1STATE_HEADER, SBF_PAYLOAD(&s->stream), s->stream.len);
		return;
	}
	sbf_store64(out + 16, s->nset);
	for (i = 0; i < s->nset; i++)
	{
		sbf_store64(out + SBF_HS_V1STATE_HEADER + i * 8, s->set[i]);
		if (SBF_HS_STRIDE_DUE(i))
			sbf_check_interrupt(&s->alloc);
	}
}

/* Reads a 1.0 serialized state into an empty set. */
SbfHsError
sbf_hs_v1state_read(SbfHashSet *s, const uint8_t *buf, size_t len,
					SbfStatus *status)
{
	uint64_t	count;
	uint64_t	i;
	uint64_t   *set;
	double		e;

	*status = SBF_OK;
	if (len < SBF_HS_V1STATE_HEADER)
		return SBF_HS_E_TRUNCATED;
	if (buf[0] != HS_V1_VERSION)
		return SBF_HS_E_VERSION;
	if (buf[1] != HS_V1_MODE_SET && buf[1] != HS_V1_MODE_FILTER)
		return SBF_HS_E_FLAGS;
	for (i = 2; i < 8; i++)
		if (buf[i] != 0)
			return SBF_HS_E_FLAGS;
	e = sbf_load_double(buf + 8);
	if (!(e > 0.0 && e < 0.5))
		return SBF_HS_E_RATE;
	s->params.error_rate = e;
	count = sbf_load64(buf + 16);
	if (buf[1] == HS_V1_MODE_FILTER)
	{
		SbfView		v;

		if (count != 0)
			return SBF_HS_E_COUNT;
		if (sbf_validate(buf + SBF_HS_V1STATE_HEADER, len - SBF_HS_V1STATE_HEADER,
						 &v) != SBF_OK ||
			sbf_view_windowed(&v) ||
			memcmp(&v.error_rate, &e, sizeof(double)) != 0)
			return SBF_HS_E_FILTER;
		*status = sbf_hs_adopt_filter(s, &v);
		return SBF_HS_OK;
	}
	if (count < 1 || count > SBF_HS_AGG_THRESHOLD)
		return SBF_HS_E_COUNT;
	if ((len - SBF_HS_V1STATE_HEADER) % 8 != 0)
		return SBF_HS_E_TRAILING;
	if ((len - SBF_HS_V1STATE_HEADER) / 8 != count)
		return SBF_HS_E_TRUNCATED;
	for (i = 1; i < count; i++)
	{
		uint64_t	a = sbf_load64(buf + SBF_HS_V1STATE_HEADER + (i - 1) * 8);
		uint64_t	b = sbf_load64(buf + SBF_HS_V1STATE_HEADER + i * 8);

		if (b == a)
			return SBF_HS_E_REPEAT;
		if (b < a)
			return SBF_HS_E_ORDER;
		if (SBF_HS_STRIDE_DUE(i))
			sbf_check_interrupt(&s->alloc);
	}
	set = s->alloc.alloc(count * sizeof(uint64_t), s->alloc.ctx);
	if (set == NULL)
	{
		*status = SBF_E_NOMEM;
		return SBF_HS_OK;
	}
	for (i = 0; i < count; i++)
	{
		set[i] = sbf_load64(buf + SBF_HS_V1STATE_HEADER + i * 8);
		if (SBF_HS_STRIDE_DUE(i))
			sbf_check_interrupt(&s->alloc);
	}
	*status = sbf_hs_adopt(s, set, count);
	return SBF_HS_OK;
}
