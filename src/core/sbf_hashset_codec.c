/*
 * sbf_hashset_codec.c
 *	  Bytes of a hash set (see sbf_hashset.h): the sbf_hashset Golomb-Rice
 *	  encoder, its one validator and decoder, and sbf_agg's 1.0
 *	  partial-state codec.
 */
#include "sbf_hashset.h"
#include "sbf_internal.h"

#define SBF_HS_MIN(a, b)		((a) < (b) ? (a) : (b))
#define SBF_HS_MAX(a, b)		((a) > (b) ? (a) : (b))

/* ---- the sbf_hashset codec ---- */

/*
 * The Rice parameter with the fewest bits, and that number.  The best k for
 * a geometric gap distribution is near log2 of the mean gap, so k0 - 1 ..
 * k0 + 1 are tried, in one pass: a code of gap g with parameter k takes
 * (g >> k) + 1 + k bits.  The sums cannot overflow: sum(g >> k) <= h[n-1].
 */
static int
hs_rice_choose(const uint64_t *h, uint64_t n, uint64_t *bits)
{
	int			k0;
	int			lo;
	uint64_t	sum[3] = {0, 0, 0};
	uint64_t	prev = 0;
	uint64_t	i;
	int			best = -1;
	int			j;

	*bits = 0;
	if (n == 0)
		return 0;
	k0 = h[n - 1] / n == 0 ? 0 : sbf_log2_64(h[n - 1] / n);
	lo = SBF_HS_MAX(k0 - 1, 0);
	for (i = 0; i < n; i++)
	{
		uint64_t	g = h[i] - prev;

		prev = h[i];
		sum[0] += g >> lo;
		sum[1] += g >> SBF_HS_MIN(lo + 1, 63);
		sum[2] += g >> SBF_HS_MIN(lo + 2, 63);
	}
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
		(void) hs_rice_choose(s->set, s->nset, &bits);
		total = SBF_HS_HEADER_BYTES + (with_rate ? 8 : 0) + (bits + 7) / 8;
	}
	if (total > max_bytes)
		return SBF_E_TOO_LARGE;
	*size = (size_t) total;
	return SBF_OK;
}

/* Bit writer: fills bytes from their least significant bit. */
typedef struct HsBitWriter
{
	uint8_t    *p;
	uint64_t	acc;
	int			nacc;
} HsBitWriter;

/* Appends the low nbits (<= 32) of v. */
static inline void
hs_put(HsBitWriter *w, uint64_t v, int nbits)
{
	w->acc |= v << w->nacc;
	w->nacc += nbits;
	while (w->nacc >= 8)
	{
		*w->p++ = (uint8_t) w->acc;
		w->acc >>= 8;
		w->nacc -= 8;
	}
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
	k = hs_rice_choose(s->set, s->nset, &bits);
	out[1] = with_rate ? SBF_HS_FLAG_RATE : 0;
	out[2] = (uint8_t) k;
	sbf_store64(out + 8, s->nset);
	body = out + SBF_HS_HEADER_BYTES;
	if (with_rate)
	{
		sbf_store_double(body, s->params.error_rate);
		body += 8;
	}
	{
		HsBitWriter w = {body, 0, 0};
		uint64_t	prev = 0;
		uint64_t	i;

		for (i = 0; i < s->nset; i++)
		{
			uint64_t	g = s->set[i] - prev;
			uint64_t	q = g >> k;

			prev = s->set[i];
			while (q >= 32)
			{
				hs_put(&w, 0, 32);
				q -= 32;
			}
			hs_put(&w, (uint64_t) 1 << q, (int) q + 1);
			if (k > 32)
			{
				hs_put(&w, g & 0xFFFFFFFFu, 32);
				hs_put(&w, (g >> 32) & ((UINT64_C(1) << (k - 32)) - 1), k - 32);
			}
			else if (k > 0)
				hs_put(&w, g & ((UINT64_C(1) << k) - 1), k);
		}
		if (w.nacc > 0)
			*w.p++ = (uint8_t) w.acc;
	}
}

/* Bit reader over the body; refills a byte at a time. */
typedef struct HsBitReader
{
	const uint8_t *p;
	const uint8_t *end;
	uint64_t	acc;
	int			nacc;
} HsBitReader;

/* Tops the accumulator up to at least 57 bits, or to the end of the body. */
static inline void
hs_refill(HsBitReader *r)
{
	while (r->nacc <= 56 && r->p < r->end)
	{
		r->acc |= (uint64_t) *r->p++ << r->nacc;
		r->nacc += 8;
	}
}

/*
 * Reads the next gap with parameter k into *g; SBF_HS_E_TRUNCATED when the
 * body ends first, SBF_HS_E_ORDER when the gap does not fit 64 bits.
 */
static inline SbfHsError
hs_read_gap(HsBitReader *r, int k, uint64_t *g)
{
	uint64_t	q = 0;
	uint64_t	rem = 0;
	uint64_t	qmax = UINT64_MAX >> k;

	for (;;)
	{
		int			t;

		hs_refill(r);
		if (r->nacc == 0)
			return SBF_HS_E_TRUNCATED;
		if (r->acc == 0)
		{
			q += (uint64_t) r->nacc;
			r->nacc = 0;
			if (q > qmax)
				return SBF_HS_E_ORDER;
			continue;
		}
		t = sbf_ctz64(r->acc);
		q += (uint64_t) t;
		r->acc = (r->acc >> t) >> 1;
		r->nacc -= t + 1;
		break;
	}
	if (q > qmax)
		return SBF_HS_E_ORDER;
	/* the remainder in two parts: a refill guarantees only 57 bits */
	if (k > 0)
	{
		int			lo = k > 32 ? 32 : k;

		hs_refill(r);
		if (r->nacc < lo)
			return SBF_HS_E_TRUNCATED;
		rem = r->acc & ((UINT64_C(1) << lo) - 1);
		r->acc >>= lo;
		r->nacc -= lo;
		if (k > lo)
		{
			hs_refill(r);
			if (r->nacc < k - lo)
				return SBF_HS_E_TRUNCATED;
			rem |= (r->acc & ((UINT64_C(1) << (k - lo)) - 1)) << lo;
			r->acc >>= k - lo;
			r->nacc -= k - lo;
		}
	}
	*g = (k == 0 ? q : (q << k)) | rem;
	return SBF_HS_OK;
}

/*
 * Walks the body of a hash set: checks every gap, and writes the hashes to
 * out unless it is NULL.
 */
static SbfHsError
hs_walk(const SbfHsView *v, uint64_t *out)
{
	HsBitReader r = {v->buf + v->body, v->buf + v->len, 0, 0};
	uint64_t	prev = 0;
	uint64_t	i;

	for (i = 0; i < v->count; i++)
	{
		uint64_t	g;
		SbfHsError	e = hs_read_gap(&r, v->k, &g);

		if (e != SBF_HS_OK)
			return e;
		if (i > 0 && g == 0)
			return SBF_HS_E_REPEAT;
		if (g > UINT64_MAX - prev)
			return SBF_HS_E_ORDER;
		prev += g;
		if (out != NULL)
			out[i] = prev;
	}
	/* what is left is the padding of the last byte */
	if (r.p != r.end || r.nacc >= 8)
		return SBF_HS_E_TRAILING;
	if (r.acc != 0)
		return SBF_HS_E_PADDING;
	return SBF_HS_OK;
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
		if (sbf_validate(buf + v->body, len - v->body, &fv) != SBF_OK ||
			memcmp(&fv.error_rate, &v->error_rate, sizeof(double)) != 0)
			return SBF_HS_E_FILTER;
		return SBF_HS_OK;
	}
	/* every hash takes at least k + 1 bits: bound count before reading */
	if (v->count > SBF_HS_MAX_COUNT ||
		v->count > (uint64_t) (len - v->body) * 8 / ((uint64_t) v->k + 1))
		return SBF_HS_E_COUNT;
	return SBF_HS_OK;
}

/* The one validator of sbf_hashset bytes: the header, then the body. */
SbfHsError
sbf_hs_validate(const uint8_t *buf, size_t len, SbfHsView *v)
{
	SbfHsError	e = sbf_hs_parse(buf, len, v);

	if (e != SBF_HS_OK || (v->flags & SBF_HS_FLAG_FILTER))
		return e;
	return hs_walk(v, NULL);
}

/* Checks and decodes the body of a parsed hash set into out[0..v->count). */
SbfHsError
sbf_hs_walk(const SbfHsView *v, uint64_t *out)
{
	return hs_walk(v, out);
}

/* Decodes a validated hash-set body. */
void
sbf_hs_decode(const SbfHsView *v, uint64_t *out)
{
	(void) hs_walk(v, out);
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
		sbf_store64(out + SBF_HS_V1STATE_HEADER + i * 8, s->set[i]);
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
	}
	set = s->alloc.alloc(count * sizeof(uint64_t), s->alloc.ctx);
	if (set == NULL)
	{
		*status = SBF_E_NOMEM;
		return SBF_HS_OK;
	}
	for (i = 0; i < count; i++)
		set[i] = sbf_load64(buf + SBF_HS_V1STATE_HEADER + i * 8);
	*status = sbf_hs_adopt(s, set, count);
	return SBF_HS_OK;
}
