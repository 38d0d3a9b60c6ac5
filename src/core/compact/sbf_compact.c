/*
 * sbf_compact.c
 *	  The compact form proposed for format 5: size, writer, validator,
 *	  reader and HyperLogLog of a value of sorted fingerprints (layout and
 *	  status in sbf_compact.h; the code is sbf_efset.c's).
 */
#include <math.h>
#include <string.h>

#include "sbf_internal.h"
#include "sbf_compact.h"

#define LEB_MAX_BYTES	10
#define RANK_ENTRY_BYTES	2
/* the largest rank at the ranks' precision: 56 */
#define RANK_MAX		SBF_HLL_MAX_RHO(SBF_COMPACT_HLL_P)

/* Bytes of the LEB128 form of x. */
static size_t
leb_size(uint64_t x)
{
	size_t		n = 1;

	while (x >= 0x80)
	{
		x >>= 7;
		n++;
	}
	return n;
}

/* Writes the LEB128 form of x at p; returns the bytes written. */
static size_t
leb_put(uint8_t *p, uint64_t x)
{
	size_t		n = 0;

	while (x >= 0x80)
	{
		p[n++] = (uint8_t) (x | 0x80);
		x >>= 7;
	}
	p[n++] = (uint8_t) x;
	return n;
}

/*
 * Reads a LEB128 number from buf[*off..len) in its shortest form: at most
 * 10 bytes, no value past 2^64 - 1, no final zero byte after the first.
 */
static bool
leb_get(const uint8_t *buf, size_t len, size_t *off, uint64_t *x)
{
	uint64_t	v = 0;
	size_t		i;

	for (i = 0; i < LEB_MAX_BYTES && *off + i < len; i++)
	{
		uint8_t		c = buf[*off + i];

		if (i == LEB_MAX_BYTES - 1 && c > 1)
			return false;
		v |= (uint64_t) (c & 0x7f) << (7 * i);
		if ((c & 0x80) == 0)
		{
			if (c == 0 && i > 0)
				return false;
			*off += i + 1;
			*x = v;
			return true;
		}
	}
	return false;
}

/* The defaults are written without PARAMS: one code per value. */
static bool
default_params(uint16_t growth, double tightening)
{
	return growth == SBF_DEFAULT_GROWTH && tightening == SBF_DEFAULT_TIGHTENING;
}

/* The rules on the header's numbers that writer and validator share. */
static SbfStatus
check_numbers(uint64_t n, int b, double e, uint64_t capacity, uint16_t growth,
			  double tightening)
{
	if (n < 1 || n > SBF_EF_MAX_N || b < 1 || b > SBF_EF_MAX_BITS)
		return SBF_E_PARAM;
	if (!(e > 0.0 && e < 0.5) || capacity < 1)
		return SBF_E_PARAM;
	/*
	 * the rate bound: max(n, capacity) / 2^b <= e, in doubles (ldexp is
	 * exact); n passes the capacity after adds in place (sbf_compact_add.c)
	 */
	if (!((double) (capacity > n ? capacity : n) <= ldexp(e, b)))
		return SBF_E_PARAM;
	if (growth < 1 || growth > SBF_MAX_GROWTH ||
		!(tightening > 0.0 && tightening <= 1.0))
		return SBF_E_PARAM;
	return SBF_OK;
}

/* The cap on a register's rank that b-bit fingerprints give: b - 8. */
static int
rank_cap(int b)
{
	return b - SBF_COMPACT_HLL_P + 1;
}

void
sbf_compact_ranks(const uint64_t *h, uint64_t n, int b, SbfCompactRanks *r)
{
	uint64_t	i;

	memset(r, 0, sizeof(*r));
	if (b <= SBF_COMPACT_HLL_P || b > SBF_EF_MAX_BITS)
		return;
	for (i = 0; i < n; i++)
	{
		uint64_t	w = h[i] >> SBF_COMPACT_HLL_P;
		uint32_t	j = (uint32_t) (h[i] & (SBF_COMPACT_REGISTERS - 1));
		int			rho;

		/* only a fingerprint with no bit above the register is capped */
		if ((w & ((UINT64_C(1) << (b - SBF_COMPACT_HLL_P)) - 1)) != 0)
			continue;
		rho = w == 0 ? RANK_MAX : sbf_ctz64(w) + 1;
		if (rho > rank_cap(b) && rho > r->rank[j])
		{
			r->count += r->rank[j] == 0;
			r->rank[j] = (uint8_t) rho;
		}
	}
}

void
sbf_compact_view_ranks(const SbfCompactView *v, SbfCompactRanks *r)
{
	uint32_t	i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < v->nranks; i++)
	{
		uint16_t	e = sbf_load16(v->ranks + RANK_ENTRY_BYTES * i);

		r->rank[e & (SBF_COMPACT_REGISTERS - 1)] = (uint8_t) (e >> SBF_COMPACT_HLL_P);
	}
	r->count = v->nranks;
}

/* Bytes of the RANKS list of r (0 when there is none). */
static size_t
ranks_size(const SbfCompactRanks *r)
{
	return r == NULL || r->count == 0 ? 0 :
		leb_size(r->count) + RANK_ENTRY_BYTES * (size_t) r->count;
}

/*
 * Whether r is what a writer of the n hashes h may store: count the
 * registers it names, none where b <= 9, each rank above the cap and at
 * most 56, the fingerprint of each register among h's.
 */
static bool
ranks_valid(const uint64_t *h, uint64_t n, int b, const SbfCompactRanks *r)
{
	uint8_t		present[SBF_COMPACT_REGISTERS];
	uint32_t	count = 0;
	uint64_t	i;
	int			j;

	if (r == NULL)
		return true;
	memset(present, 0, sizeof(present));
	for (i = 0; b > SBF_COMPACT_HLL_P && i < n; i++)
	{
		uint64_t	fp = sbf_ef_fingerprint(h[i], b);

		if (fp < SBF_COMPACT_REGISTERS)
			present[fp] = 1;
	}
	for (j = 0; j < SBF_COMPACT_REGISTERS; j++)
	{
		if (r->rank[j] == 0)
			continue;
		if (r->rank[j] <= rank_cap(b) || r->rank[j] > RANK_MAX || !present[j])
			return false;
		count++;
	}
	return count == r->count;
}

SbfStatus
sbf_compact_bits(uint64_t capacity, double e, int hll_p, int *b)
{
	int			bits = hll_p + 1;

	if (capacity < 1 || !(e > 0.0 && e < 0.5) || hll_p < SBF_HLL_P_MIN ||
		hll_p > SBF_HLL_P_MAX)
		return SBF_E_PARAM;
	while (bits <= SBF_EF_MAX_BITS && !((double) capacity <= ldexp(e, bits)))
		bits++;
	if (bits > SBF_EF_MAX_BITS)
		return SBF_E_PARAM;
	*b = bits;
	return SBF_OK;
}

SbfStatus
sbf_compact_size(uint64_t n, int b, const SbfCompactParams *p, size_t *len)
{
	SbfEfShape	s;
	uint64_t	total;
	SbfStatus	st = check_numbers(n, b, p->error_rate, p->capacity, p->growth,
								   p->tightening);

	if (st == SBF_OK)
		st = sbf_ef_shape(n, b, &s);
	if (st != SBF_OK)
		return st;
	total = SBF_COMPACT_FIXED_BYTES + leb_size(n) + leb_size(p->capacity);
	if (!default_params(p->growth, p->tightening))
		total += SBF_COMPACT_PARAMS_BYTES;
	total += ranks_size(p->ranks);
	/* sbf_ef_bytes is below 2^61 for n <= 2^32 and b <= 63 */
	if (sbf_ef_bytes(&s) > SBF_MAX_BYTES - total)
		return SBF_E_TOO_LARGE;
	*len = (size_t) (total + sbf_ef_bytes(&s));
	return SBF_OK;
}

/* Writes the RANKS list of r at out; returns the bytes written. */
static size_t
ranks_put(uint8_t *out, const SbfCompactRanks *r)
{
	size_t		off = leb_put(out, r->count);
	int			j;

	for (j = 0; j < SBF_COMPACT_REGISTERS; j++)
	{
		if (r->rank[j] == 0)
			continue;
		sbf_store16(out + off, (uint16_t) (j | r->rank[j] << SBF_COMPACT_HLL_P));
		off += RANK_ENTRY_BYTES;
	}
	return off;
}

/*
 * Reads the RANKS list at buf[*off..len) into v: its count in its range,
 * each entry's top bit clear, registers ascending, ranks above the cap of
 * b-bit fingerprints and at most 56.
 */
static SbfStatus
read_ranks(const uint8_t *buf, size_t len, int b, SbfCompactView *v, size_t *off)
{
	uint64_t	k;
	uint64_t	i;
	int			prev = -1;

	if (b <= SBF_COMPACT_HLL_P || !leb_get(buf, len, off, &k) || k < 1 ||
		k > SBF_COMPACT_REGISTERS)
		return SBF_E_PARAM;
	if ((len - *off) / RANK_ENTRY_BYTES < k)
		return SBF_E_TRUNCATED;
	for (i = 0; i < k; i++)
	{
		uint16_t	e = sbf_load16(buf + *off + RANK_ENTRY_BYTES * i);
		int			j = e & (SBF_COMPACT_REGISTERS - 1);
		int			r = e >> SBF_COMPACT_HLL_P;	/* bit 15 set: above 56 */

		if (j <= prev || r <= rank_cap(b) || r > RANK_MAX)
			return SBF_E_PARAM;
		prev = j;
	}
	v->nranks = (uint32_t) k;
	v->ranks = buf + *off;
	*off += RANK_ENTRY_BYTES * (size_t) k;
	return SBF_OK;
}

/*
 * The checks and the header of a value of the n hashes (or fingerprints) h
 * at b into out[0..len): the code's offset into *off and its shape into *s.
 */
static SbfStatus
write_head(const uint64_t *h, uint64_t n, int b, const SbfCompactParams *p,
		   uint8_t *out, size_t len, SbfEfShape *s, size_t *off_out)
{
	size_t		off;
	size_t		need;
	SbfStatus	st = sbf_compact_size(n, b, p, &need);

	if (st != SBF_OK)
		return st;
	if (len != need || !ranks_valid(h, n, b, p->ranks))
		return SBF_E_PARAM;
	(void) sbf_ef_shape(n, b, s);
	memset(out, 0, len);
	out[0] = SBF_COMPACT_VERSION;
	out[1] = SBF_COMPACT_FLAG_COMPACT |
		(p->overlap ? SBF_COMPACT_FLAG_OVERLAP : 0) |
		(default_params(p->growth, p->tightening) ? 0 : SBF_COMPACT_FLAG_PARAMS) |
		(ranks_size(p->ranks) > 0 ? SBF_COMPACT_FLAG_RANKS : 0);
	out[2] = (uint8_t) b;
	out[3] = (uint8_t) s->L;
	sbf_store_double(out + 4, p->error_rate);
	off = SBF_COMPACT_FIXED_BYTES;
	off += leb_put(out + off, n);
	off += leb_put(out + off, p->capacity);
	if (out[1] & SBF_COMPACT_FLAG_PARAMS)
	{
		sbf_store16(out + off, p->growth);
		sbf_store_double(out + off + 2, p->tightening);
		off += SBF_COMPACT_PARAMS_BYTES;
	}
	if (out[1] & SBF_COMPACT_FLAG_RANKS)
		off += ranks_put(out + off, p->ranks);
	*off_out = off;
	return SBF_OK;
}

SbfStatus
sbf_compact_write(const uint64_t *h, uint64_t n, int b, const SbfCompactParams *p,
				  uint8_t *out, size_t len, const SbfAllocator *a)
{
	SbfEfShape	s;
	size_t		off;
	SbfStatus	st = write_head(h, n, b, p, out, len, &s, &off);

	return st != SBF_OK ? st : sbf_ef_write_hashes(&s, h, out + off, a);
}

SbfStatus
sbf_compact_write_sorted(const uint64_t *fp, uint64_t n, int b,
						 const SbfCompactParams *p, uint8_t *out, size_t len)
{
	SbfEfShape	s;
	size_t		off;
	uint64_t	i;
	SbfStatus	st;

	for (i = 0; i < n; i++)
		if (fp[i] != sbf_ef_fingerprint(fp[i], b) || (i > 0 && fp[i] < fp[i - 1]))
			return SBF_E_PARAM;
	st = write_head(fp, n, b, p, out, len, &s, &off);
	if (st == SBF_OK)
		sbf_ef_write(&s, fp, out + off);
	return st;
}

/* The header of a compact value: every field but the code. */
static SbfStatus
read_header(const uint8_t *buf, size_t len, SbfCompactView *v, size_t *off)
{
	uint64_t	n;
	int			b;

	if (len < SBF_COMPACT_FIXED_BYTES + 2)
		return SBF_E_TRUNCATED;
	if (buf[0] != SBF_COMPACT_VERSION)
		return SBF_E_VERSION;
	v->flags = buf[1];
	if ((v->flags & SBF_COMPACT_FLAG_COMPACT) == 0 ||
		(v->flags & ~(SBF_COMPACT_FLAG_COMPACT | SBF_COMPACT_FLAG_PARAMS |
					  SBF_COMPACT_FLAG_RANKS | SBF_COMPACT_FLAG_OVERLAP)) != 0)
		return SBF_E_FLAGS;
	b = buf[2];
	v->error_rate = sbf_load_double(buf + 4);
	*off = SBF_COMPACT_FIXED_BYTES;
	if (!leb_get(buf, len, off, &n) || !leb_get(buf, len, off, &v->capacity))
		return SBF_E_PARAM;
	v->growth = SBF_DEFAULT_GROWTH;
	v->tightening = SBF_DEFAULT_TIGHTENING;
	if (v->flags & SBF_COMPACT_FLAG_PARAMS)
	{
		if (len - *off < SBF_COMPACT_PARAMS_BYTES)
			return SBF_E_TRUNCATED;
		v->growth = sbf_load16(buf + *off);
		v->tightening = sbf_load_double(buf + *off + 2);
		*off += SBF_COMPACT_PARAMS_BYTES;
		if (default_params(v->growth, v->tightening))
			return SBF_E_PARAM;
	}
	if (v->flags & SBF_COMPACT_FLAG_RANKS)
	{
		SbfStatus	st = read_ranks(buf, len, b, v, off);

		if (st != SBF_OK)
			return st;
	}
	if (check_numbers(n, b, v->error_rate, v->capacity, v->growth,
					  v->tightening) != SBF_OK ||
		sbf_ef_shape(n, b, &v->shape) != SBF_OK || buf[3] != v->shape.L)
		return SBF_E_PARAM;
	return SBF_OK;
}

SbfStatus
sbf_compact_parse(const uint8_t *buf, size_t len, SbfCompactView *v)
{
	size_t		off;
	SbfStatus	st;

	memset(v, 0, sizeof(*v));
	st = read_header(buf, len, v, &off);
	if (st != SBF_OK)
		return st;
	v->code = buf + off;
	v->code_len = len - off;
	/* the code's own length check (sbf_ef_check's first) */
	return v->code_len == sbf_ef_bytes(&v->shape) ? SBF_OK : SBF_E_LENGTH;
}

SbfStatus
sbf_compact_check(const uint8_t *buf, size_t len, SbfCompactView *v)
{
	SbfStatus	st = sbf_compact_parse(buf, len, v);
	uint32_t	i;

	if (st == SBF_OK)
		st = sbf_ef_check(&v->shape, v->code, v->code_len);
	/* a register's rank is above the cap only where its fingerprint is */
	for (i = 0; st == SBF_OK && i < v->nranks; i++)
	{
		uint16_t	e = sbf_load16(v->ranks + RANK_ENTRY_BYTES * i);

		if (!sbf_ef_has_bytes(&v->shape, v->code, e & (SBF_COMPACT_REGISTERS - 1)))
			st = SBF_E_PARAM;
	}
	return st;
}

SbfStatus
sbf_compact_decode(const SbfCompactView *v, uint64_t *fp, const SbfAllocator *a)
{
	SbfEfReader r;
	SbfStatus	st = sbf_ef_reader_init(&r, &v->shape, v->code, a);

	if (st != SBF_OK)
		return st;
	sbf_ef_decode(&r, fp);
	sbf_ef_reader_free(&r, a);
	return SBF_OK;
}

double
sbf_compact_fpr_bound(const SbfCompactView *v)
{
	uint64_t	most = v->capacity > v->shape.n ? v->capacity : v->shape.n;

	return ldexp((double) most, -v->shape.b);
}

SbfStatus
sbf_compact_hll(const SbfCompactView *v, int p, uint8_t *regs, const SbfAllocator *a)
{
	uint64_t   *fp;
	uint64_t	i;
	int			cap = v->shape.b - p + 1;
	SbfStatus	st;

	if (p < SBF_HLL_P_MIN || p > SBF_HLL_P_MAX || p >= v->shape.b)
		return SBF_E_PARAM;
	fp = a->alloc((size_t) v->shape.n * sizeof(uint64_t), a->ctx);
	if (fp == NULL)
		return SBF_E_NOMEM;
	st = sbf_compact_decode(v, fp, a);
	if (st == SBF_OK)
	{
		memset(regs, 0, (size_t) 1 << p);
		for (i = 0; i < v->shape.n; i++)
		{
			uint64_t	w = fp[i] >> p;
			uint32_t	j = (uint32_t) (fp[i] & ((UINT64_C(1) << p) - 1));
			int			rho = w == 0 ? cap : sbf_ctz64(w) + 1;

			if (rho > regs[j])
				regs[j] = (uint8_t) rho;
		}
		/* the ranks list completes the capped registers (above the cap) */
		for (i = 0; p == SBF_COMPACT_HLL_P && i < v->nranks; i++)
		{
			uint16_t	e = sbf_load16(v->ranks + RANK_ENTRY_BYTES * i);

			regs[e & (SBF_COMPACT_REGISTERS - 1)] = (uint8_t) (e >> SBF_COMPACT_HLL_P);
		}
	}
	a->free(fp, a->ctx);
	return st;
}
