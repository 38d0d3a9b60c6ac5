/*
 * sbf_efset.c
 *	  Fingerprints in Elias-Fano form (Elias 1974, Fano 1971): the codec of
 *	  docs/format5.md's compact form, its validator and its reader
 *	  (layout in sbf_efset.h): the data of version 5's compact segments.
 */
#include <math.h>
#include <string.h>

#include "sbf_efset.h"
#include "sbf_hash_sort.h"
#include "sbf_internal.h"

/*
 * The l in 0..b-1 with the fewest n l + n + 2^(b-l) bits, ties to the larger
 * (the format's rule).  Closed form: one more low bit costs n and saves
 * 2^(b-l-1), so the cost falls (or ties) while n <= 2^(b-l-1), that is
 * while l <= b - 1 - ceil(log2 n): the least is at l = b - ceil(log2 n),
 * clamped to 0..b-1.  Equal to the minimum found by trying every l (unit
 * test ef_low_bits_closed_form).
 */
int
sbf_ef_low_bits(uint64_t n, int b)
{
	int			c = n <= 1 ? 0 : sbf_log2_64(n - 1) + 1;	/* ceil(log2 n) */
	int			l = b - c;

	if (l > b - 1)
		l = b - 1;
	return l < 0 ? 0 : l;
}

SbfStatus
sbf_ef_shape(uint64_t n, int b, SbfEfShape *s)
{
	if (n == 0 || n > SBF_EF_MAX_N || b < 1 || b > SBF_EF_MAX_BITS)
		return SBF_E_PARAM;
	s->n = n;
	s->b = b;
	s->L = sbf_ef_low_bits(n, b);
	s->nbuckets = UINT64_C(1) << (b - s->L);
	s->hibits = n + s->nbuckets;
	s->lobits = n * (uint64_t) s->L;
	return SBF_OK;
}

static inline uint64_t
hi_bytes(const SbfEfShape *s)
{
	return (s->hibits + 7) / 8;
}

uint64_t
sbf_ef_bytes(const SbfEfShape *s)
{
	return hi_bytes(s) + (s->lobits + 7) / 8;
}

void
sbf_ef_fingerprints(const uint64_t *h, uint64_t n, int b, uint64_t *fp)
{
	uint64_t	i;

	for (i = 0; i < n; i++)
		fp[i] = sbf_ef_fingerprint(h[i], b);
}

static inline uint64_t
low_mask(int l)
{
	return l == 0 ? 0 : (UINT64_C(1) << l) - 1;
}

/* The len (<= 62) bits of the nbytes bytes at a from bit pos on. */
static inline uint64_t
get_bits(const uint8_t *a, uint64_t nbytes, uint64_t pos, int len)
{
	uint64_t	byte = pos >> 3;
	uint64_t	avail = nbytes - byte;
	int			off = (int) (pos & 7);
	uint64_t	v;

	if (len == 0)
		return 0;
	/* a load of a constant size is one instruction, of a variable one a call */
	v = (avail >= 8 ? sbf_load_le(a + byte, 8) : sbf_load_le(a + byte, (size_t) avail)) >> off;
	if (off + len > 64)
		v |= (uint64_t) a[byte + 8] << (64 - off);
	return v & low_mask(len);
}

/*
 * The low bits are packed into a word that is stored whenever it fills (L
 * <= 62, so a word that fills held at least 2 bits before), the rest at
 * the end: low bits i * L .. i * L + L - 1 hold element i's, a word at a
 * time.
 */
void
sbf_ef_write(const SbfEfShape *s, const uint64_t *fp, uint8_t *out)
{
	uint8_t    *lo = out + hi_bytes(s);
	uint64_t	mask = low_mask(s->L);
	uint64_t	acc = 0;
	uint64_t	at = 0;
	int			nacc = 0;
	uint64_t	i;

	memset(out, 0, (size_t) sbf_ef_bytes(s));
	for (i = 0; i < s->n; i++)
	{
		uint64_t	p = (fp[i] >> s->L) + i;
		uint64_t	v = fp[i] & mask;

		out[p >> 3] |= (uint8_t) (1u << (p & 7));
		if (s->L == 0)
			continue;
		acc |= v << nacc;
		if (nacc + s->L < 64)
		{
			nacc += s->L;
			continue;
		}
		sbf_store_le(lo + at, acc, 8);
		at += 8;
		acc = v >> (64 - nacc);
		nacc += s->L - 64;
	}
	if (nacc > 0)
		sbf_store_le(lo + at, acc, (size_t) (nacc + 7) / 8);
}

SbfStatus
sbf_ef_write_hashes(const SbfEfShape *s, const uint64_t *h, uint8_t *out,
					const SbfAllocator *a)
{
	uint64_t   *fp;

	if (s->n > SIZE_MAX / sizeof(uint64_t))
		return SBF_E_NOMEM;
	fp = a->alloc((size_t) s->n * sizeof(uint64_t), a->ctx);
	if (fp == NULL)
		return SBF_E_NOMEM;
	sbf_ef_fingerprints(h, s->n, s->b, fp);
	sbf_hash_sort_all(fp, (size_t) s->n);
	sbf_ef_write(s, fp, out);
	a->free(fp, a->ctx);
	return SBF_OK;
}

/* Whether the bits of the nbytes bytes at a from bit nbits on are zero. */
static bool
tail_clear(const uint8_t *a, uint64_t nbytes, uint64_t nbits)
{
	return nbits % 8 == 0 || (a[nbytes - 1] >> (nbits % 8)) == 0;
}

/*
 * Position of the r-th (0-based) one of w, which has more than r ones: the
 * running count of ones by byte in one multiply, the byte that holds it by
 * comparing all eight counts with r at once, then the byte itself.
 */
static inline int
select64(uint64_t w, int r)
{
	const uint64_t l8 = UINT64_C(0x0101010101010101);
	const uint64_t h8 = UINT64_C(0x8080808080808080);
	uint64_t	c = w - (w >> 1 & UINT64_C(0x5555555555555555));
	uint64_t	cum;
	int			byte;
	unsigned	v;

	c = (c & UINT64_C(0x3333333333333333)) + (c >> 2 & UINT64_C(0x3333333333333333));
	c = (c + (c >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	cum = c * l8;				/* byte i: the ones of bytes 0..i, <= 64 */
	/* bytes whose running count is <= r: (r + 128 - count) keeps bit 7 */
	byte = sbf_popcount64((((uint64_t) r * l8 | h8) - cum) & h8);
	if (byte > 0)
		r -= (int) (cum >> (8 * byte - 8) & 255);
	v = (unsigned) (w >> (8 * byte) & 255);
	for (; r > 0; r--)
		v &= v - 1;
	return 8 * byte + sbf_ctz64(v);
}

/*
 * Walks the one bits of a code whose length and tail bits are checked:
 * SBF_E_BITS unless there are exactly n of them with fingerprints
 * ascending; *distinct receives how many distinct fingerprints they are.
 */
static SbfStatus
ef_scan(const SbfEfShape *s, const uint8_t *buf, uint64_t *distinct)
{
	uint64_t	hb = hi_bytes(s);
	uint64_t	lb = (s->lobits + 7) / 8;
	const uint8_t *lo = buf + hb;
	uint64_t	i = 0;
	uint64_t	prev = 0;
	uint64_t	d = 0;
	uint64_t	w;

	for (w = 0; w < hb; w += 8)
	{
		uint64_t	word = sbf_load_le(buf + w, hb - w < 8 ? (size_t) (hb - w) : 8);

		if (((w / 8) & (SBF_WORK_STRIDE - 1)) == SBF_WORK_STRIDE - 1)
			sbf_hook_interrupt();
		while (word != 0)
		{
			uint64_t	p = w * 8 + (uint64_t) sbf_ctz64(word);
			uint64_t	f;

			if (i == s->n)
				return SBF_E_BITS;
			f = (p - i) << s->L | get_bits(lo, lb, i * (uint64_t) s->L, s->L);
			if (f < prev)
				return SBF_E_BITS;
			d += (i == 0 || f != prev) ? 1 : 0;
			prev = f;
			i++;
			word &= word - 1;
		}
	}
	*distinct = d;
	return i == s->n ? SBF_OK : SBF_E_BITS;
}

SbfStatus
sbf_ef_check(const SbfEfShape *s, const uint8_t *buf, size_t len)
{
	uint64_t	hb = hi_bytes(s);
	uint64_t	lb = (s->lobits + 7) / 8;
	uint64_t	d;

	if ((uint64_t) len != hb + lb)
		return SBF_E_LENGTH;
	if (!tail_clear(buf, hb, s->hibits) || (lb > 0 && !tail_clear(buf + hb, lb, s->lobits)) ||
		(buf[(s->hibits - 1) >> 3] >> ((s->hibits - 1) & 7) & 1) != 0)
		return SBF_E_BITS;
	/* every one bit in order: at most n, fingerprints ascending */
	return ef_scan(s, buf, &d);
}

uint64_t
sbf_ef_distinct(const SbfEfShape *s, const uint8_t *buf)
{
	uint64_t	d = 0;

	(void) ef_scan(s, buf, &d);
	return d;
}

bool
sbf_ef_has_bytes(const SbfEfShape *s, const uint8_t *buf, uint64_t x)
{
	uint64_t	hb = hi_bytes(s);
	uint64_t	j = x >> s->L;
	uint64_t	l = x & low_mask(s->L);
	uint64_t	p = 0;
	uint64_t	zeros = 0;
	uint64_t	w;

	if (j >= s->nbuckets)
		return false;
	/*
	 * p: just past zero j - 1.  Bits past the area load as zeros and read
	 * as ones here, but all nbuckets zeros come before them.
	 */
	for (w = 0; j > 0 && w < hb; w += 8)
	{
		uint64_t	z = ~sbf_load_le(buf + w, hb - w < 8 ? (size_t) (hb - w) : 8);
		int			c = sbf_popcount64(z);

		if (zeros + (uint64_t) c >= j)
		{
			p = w * 8 + (uint64_t) select64(z, (int) (j - 1 - zeros)) + 1;
			break;
		}
		zeros += (uint64_t) c;
	}
	if (j > 0 && p == 0)
		return false;			/* fewer zeros than a valid code has */
	/* bucket j's elements, low bits ascending, up to its closing zero */
	for (; p < s->hibits && (buf[p >> 3] >> (p & 7) & 1); p++)
	{
		uint64_t	v;

		/* more ones than n: not a code (the low area ends at n) */
		if (p - j >= s->n)
			return false;
		v = get_bits(buf + hb, (s->lobits + 7) / 8, (p - j) * (uint64_t) s->L, s->L);
		if (v >= l)
			return v == l;
	}
	return false;
}

/* The nbytes bytes at a as 64-bit words into w (zero-padded). */
static void
load_words(const uint8_t *a, uint64_t nbytes, uint64_t *w)
{
	uint64_t	i;

	for (i = 0; i < nbytes; i += 8)
		w[i / 8] = sbf_load_le(a + i, nbytes - i < 8 ? (size_t) (nbytes - i) : 8);
}

SbfStatus
sbf_ef_reader_init(SbfEfReader *r, const SbfEfShape *s, const uint8_t *buf,
				   const SbfAllocator *a)
{
	uint64_t	nhi = s->hibits / 64 + 2;
	uint64_t	nlo = s->lobits / 64 + 2;
	uint64_t	nsamp = s->nbuckets / 64 + 1;
	uint64_t	zeros = 0;
	uint64_t	w;

	if (nhi + nlo + nsamp > SIZE_MAX / 8)
		return SBF_E_NOMEM;
	r->mem = a->alloc((size_t) (nhi + nlo + nsamp) * 8, a->ctx);
	if (r->mem == NULL)
		return SBF_E_NOMEM;
	r->s = *s;
	r->hi = r->mem;
	r->lo = r->hi + nhi;
	r->samp = r->lo + nlo;
	memset(r->mem, 0, (size_t) (nhi + nlo) * 8);
	load_words(buf, hi_bytes(s), r->hi);
	load_words(buf + hi_bytes(s), (s->lobits + 7) / 8, r->lo);
	/* the position of every 64th zero */
	for (w = 0; zeros < s->nbuckets; w++)
	{
		uint64_t	z = ~r->hi[w];

		for (; z != 0 && zeros < s->nbuckets; z &= z - 1, zeros++)
			if (zeros % 64 == 0)
				r->samp[zeros / 64] = w * 64 + (uint64_t) sbf_ctz64(z);
	}
	return SBF_OK;
}

void
sbf_ef_reader_free(SbfEfReader *r, const SbfAllocator *a)
{
	if (r->mem != NULL)
		a->free(r->mem, a->ctx);
	r->mem = NULL;
}

/* Position of zero j (0-based) of the high area, j < nbuckets. */
static inline uint64_t
zero_at(const SbfEfReader *r, uint64_t j)
{
	uint64_t	p = r->samp[j / 64];
	int			k = (int) (j % 64);
	uint64_t	z = ~r->hi[p >> 6] >> (p & 63);

	for (;;)
	{
		int			c = sbf_popcount64(z);

		if (k < c)
			return p + (uint64_t) select64(z, k);
		k -= c;
		p = (p | 63) + 1;
		z = ~r->hi[p >> 6];
	}
}

/* The low bits of element i. */
static inline uint64_t
low_of(const SbfEfReader *r, uint64_t i)
{
	uint64_t	pos = i * (uint64_t) r->s.L;
	int			sh = (int) (pos & 63);
	uint64_t	v = r->lo[pos >> 6] >> sh;

	if (sh != 0)
		v |= r->lo[(pos >> 6) + 1] << (64 - sh);
	return v & low_mask(r->s.L);
}

bool
sbf_ef_has(const SbfEfReader *r, uint64_t x)
{
	uint64_t	h = x >> r->s.L;
	uint64_t	l = x & low_mask(r->s.L);
	uint64_t	p;

	if (h >= r->s.nbuckets)
		return false;
	p = h == 0 ? 0 : zero_at(r, h - 1) + 1;
	/* bucket h's elements, low bits ascending; the last bit is a zero */
	for (; r->hi[p >> 6] >> (p & 63) & 1; p++)
	{
		uint64_t	v = low_of(r, p - h);

		if (v >= l)
			return v == l;
	}
	return false;
}

/*
 * The low bits are read as a stream, a word at a time (the writer's order):
 * each element takes the next L bits of the word loaded last, and loads
 * the next word (8 bytes, or what is left) only when they run out.
 */
void
sbf_ef_decode_bytes(const SbfEfShape *s, const uint8_t *buf, uint64_t *out)
{
	uint64_t	hb = hi_bytes(s);
	const uint8_t *lo = buf + hb;
	uint64_t	lb = (s->lobits + 7) / 8;
	uint64_t	mask = low_mask(s->L);
	uint64_t	acc = 0;		/* low bits loaded and not taken yet */
	int			nacc = 0;
	uint64_t	at = 0;			/* the next low byte to load */
	uint64_t	i = 0;
	uint64_t	w;

	for (w = 0; w < hb && i < s->n; w += 8)
	{
		uint64_t	word = hb - w >= 8 ? sbf_load_le(buf + w, 8) :
			sbf_load_le(buf + w, (size_t) (hb - w));

		while (word != 0 && i < s->n)
		{
			uint64_t	p = w * 8 + (uint64_t) sbf_ctz64(word);
			uint64_t	v = acc;

			if (nacc >= s->L)
			{
				/* L <= 62: the shift is defined */
				acc >>= s->L;
				nacc -= s->L;
			}
			else
			{
				/* the stream holds n * L bits: a word with what is missing is there */
				int			got = lb - at >= 8 ? 64 : (int) (lb - at) * 8;
				uint64_t	next = got == 64 ? sbf_load_le(lo + at, 8) :
					sbf_load_le(lo + at, (size_t) got / 8);
				int			need = s->L - nacc;

				v |= next << nacc;
				at += (uint64_t) got / 8;
				acc = next >> need;
				nacc = got - need;
			}
			out[i] = (p - i) << s->L | (v & mask);
			i++;
			word &= word - 1;
		}
	}
}

void
sbf_ef_decode(const SbfEfReader *r, uint64_t *out)
{
	uint64_t	i = 0;
	uint64_t	w;

	for (w = 0; i < r->s.n; w++)
	{
		uint64_t	word = r->hi[w];

		while (word != 0)
		{
			uint64_t	p = w * 64 + (uint64_t) sbf_ctz64(word);

			out[i] = (p - i) << r->s.L | low_of(r, i);
			i++;
			word &= word - 1;
		}
	}
}

double
sbf_ef_distinct_estimate(uint64_t d, int b)
{
	double		m = ldexp(1.0, b);

	if (b >= 53)
		return (double) d;
	if ((double) d >= m)		/* every cell taken: the fill's expected N */
		return m * log(m);
	return -m * log1p(-(double) d / m);
}
