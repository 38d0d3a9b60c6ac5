/*
 * test_compact.c
 *	  Unit tests of the compact form proposed for format 5 (sbf_compact.c;
 *	  docs/format5.md, section 3): the fingerprint width, sizes,
 *	  the layout pinned byte for byte, round trips (every member found,
 *	  non-members within the form's bound), every rule the validator
 *	  enforces, every single bit flip either refused or the one code of the
 *	  value it reads as, the HyperLogLog made from fingerprints against the
 *	  hashes' own registers, and allocations.  Deterministic keys.  Prints
 *	  "ok - name" or "not ok - name" per case and one final "N passed, N
 *	  failed" line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_compact.h"
#include "sbf_internal.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

static const SbfCompactParams DEFAULTS = {0.01, 0, SBF_DEFAULT_GROWTH,
	SBF_DEFAULT_TIGHTENING, false, NULL};

/*
 * The value of hashes key(space, 0 .. n) with *p (capacity n if 0), the
 * hashes' ranks given (sbf_compact_ranks).
 */
static uint8_t *
make_value(uint64_t n, int space, SbfCompactParams p, int *b, size_t *len)
{
	SbfCompactRanks rk;
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint8_t    *buf;
	uint64_t	i;

	if (p.capacity == 0)
		p.capacity = n;
	for (i = 0; i < n; i++)
		h[i] = key(space, i);
	CHECK_ST(sbf_compact_bits(p.capacity, p.error_rate, SBF_HLL_P_DEFAULT, b), SBF_OK);
	sbf_compact_ranks(h, n, *b, &rk);
	p.ranks = &rk;
	CHECK_ST(sbf_compact_size(n, *b, &p, len), SBF_OK);
	buf = malloc(*len);
	CHECK_ST(sbf_compact_write(h, n, *b, &p, buf, *len, &g_alloc), SBF_OK);
	free(h);
	return buf;
}

/* b: the least width within the rate, at least p + 1; out of range refused. */
static void
compact_bits(void)
{
	int			b = 0;

	CHECK_ST(sbf_compact_bits(30, 0.01, 9, &b), SBF_OK);
	CHECK(b == 12);				/* 30 / 2^12 = 0.0073 <= 0.01 < 30 / 2^11 */
	CHECK_ST(sbf_compact_bits(1, 0.01, 9, &b), SBF_OK);
	CHECK(b == 10);				/* 7 bits would do: p + 1 */
	CHECK_ST(sbf_compact_bits(1000000, 0.01, 9, &b), SBF_OK);
	CHECK(b == 27);
	CHECK_ST(sbf_compact_bits(100, 0.25, 4, &b), SBF_OK);
	CHECK(b == 9);				/* 100 / 512 = 0.195 */
	CHECK_ST(sbf_compact_bits(32, 0.25, 4, &b), SBF_OK);
	CHECK(b == 7);				/* 32 / 2^7 = 0.25 exactly: within */
	CHECK_ST(sbf_compact_bits(0, 0.01, 9, &b), SBF_E_PARAM);
	CHECK_ST(sbf_compact_bits(10, 0.5, 9, &b), SBF_E_PARAM);
	CHECK_ST(sbf_compact_bits(10, NAN, 9, &b), SBF_E_PARAM);
	CHECK_ST(sbf_compact_bits(10, 0.01, 3, &b), SBF_E_PARAM);
	CHECK_ST(sbf_compact_bits(10, 0.01, 15, &b), SBF_E_PARAM);
	/* 2^60 at 1% needs 67 bits */
	CHECK_ST(sbf_compact_bits(UINT64_C(1) << 60, 0.01, 9, &b), SBF_E_PARAM);
}

/* Two fingerprints, every byte known (worked out in the comments). */
static void
compact_layout(void)
{
	/* fingerprints (b = 5): 0x..03 -> 3, 0x..16 -> 22 */
	static const uint64_t h[2] = {UINT64_C(0x1234000000000016), UINT64_C(0xABCDEF0000000003)};
	/*
	 * L = 4 (2 L + 2 + 2^(5 - L) bits: 12 at L = 3 and 4, ties to the
	 * larger); high bits: element i at (f_i >> 4) + i = 0 and 2 of 4 bits
	 * = 0x05; low bits: 3 then 22 & 15 = 6, four bits each = 0x63
	 */
	static const uint8_t want[] = {5, 0x40, 5, 4, 0, 0, 0, 0, 0, 0, 0xD0, 0x3F,
	2, 2, 0x05, 0x63};
	/*
	 * b = 11, capacity 300 (LEB128 0xAC 0x02), growth 4, tightening 0.5,
	 * OVERLAP: flags 0x64; L = 10 (2 L + 2 + 2^(11 - L): 24 at 9 and 10);
	 * fingerprints 3 and 22 both in bucket 0: high bits 0 and 1 of 4 =
	 * 0x03; low bits 3 | 22 << 10 = 0x5803 in 20 bits
	 */
	static const uint8_t want_params[] = {5, 0x64, 11, 10, 0, 0, 0, 0, 0, 0, 0xD0, 0x3F,
	2, 0xAC, 0x02, 4, 0, 0, 0, 0, 0, 0, 0, 0xE0, 0x3F, 0x03, 0x03, 0x58, 0x00};
	SbfCompactParams p = {0.25, 2, SBF_DEFAULT_GROWTH, SBF_DEFAULT_TIGHTENING, false, NULL};
	SbfCompactParams q = {0.25, 300, 4, 0.5, true, NULL};
	SbfCompactView v;
	uint8_t		buf[64];
	size_t		len = 0;

	CHECK_ST(sbf_compact_size(2, 5, &p, &len), SBF_OK);
	CHECK(len == sizeof(want));
	CHECK_ST(sbf_compact_write(h, 2, 5, &p, buf, len, &g_alloc), SBF_OK);
	CHECK(memcmp(buf, want, sizeof(want)) == 0);
	CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
	CHECK(v.shape.n == 2 && v.shape.b == 5 && v.shape.L == 4 && v.capacity == 2);
	CHECK(v.error_rate == 0.25 && v.growth == 2 && v.tightening == 0.9);
	CHECK(v.code == buf + 14 && v.code_len == 2);
	CHECK(sbf_compact_fpr_bound(&v) == 2.0 / 32);
	/* a wrong length is refused by the writer */
	CHECK_ST(sbf_compact_write(h, 2, 5, &p, buf, len + 1, &g_alloc), SBF_E_PARAM);

	/* 300 / 2^9 = 0.59 is over 0.25; 120 / 2^9 = 0.23 is not */
	CHECK_ST(sbf_compact_size(2, 9, &q, &len), SBF_E_PARAM);
	q.capacity = 120;
	CHECK_ST(sbf_compact_size(2, 9, &q, &len), SBF_OK);
	q.capacity = 300;
	CHECK_ST(sbf_compact_size(2, 11, &q, &len), SBF_OK);
	CHECK(len == sizeof(want_params));
	CHECK_ST(sbf_compact_write(h, 2, 11, &q, buf, len, &g_alloc), SBF_OK);
	CHECK(memcmp(buf, want_params, sizeof(want_params)) == 0);
	CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
	CHECK(v.capacity == 300 && v.growth == 4 && v.tightening == 0.5 &&
		  (v.flags & SBF_COMPACT_FLAG_OVERLAP) != 0 && v.code_len == 4);
}

/* Non-members match at most at the bound (3 sigma over 200,000 probes). */
static void
check_rate(const SbfCompactView *v, const uint64_t *fp, int space)
{
	uint64_t	i,
				hits = 0;
	double		bound = sbf_compact_fpr_bound(v);
	double		rate;

	for (i = 0; i < 200000; i++)
		hits += sbf_compact_array_has(v, fp, key(space, i));
	rate = (double) hits / 200000.0;
	CHECK(bound <= v->error_rate);
	CHECK(rate <= bound + 3.0 * sqrt(bound / 200000.0));
}

/* Sizes 1 .. 5,000 at three rates: every member found, the rate bounded. */
static void
compact_round_trip(void)
{
	static const uint64_t ns[] = {1, 2, 3, 10, 30, 100, 1000, 5000};
	static const double es[] = {0.01, 0.001, 0.2};
	size_t		i,
				j;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (j = 0; j < sizeof(es) / sizeof(es[0]); j++)
		{
			SbfCompactParams p = DEFAULTS;
			SbfCompactView v;
			uint64_t   *fp = malloc(ns[i] * sizeof(uint64_t));
			uint64_t	k;
			size_t		len;
			int			b;
			uint8_t    *buf;

			p.error_rate = es[j];
			buf = make_value(ns[i], 7, p, &b, &len);
			CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
			CHECK(v.shape.n == ns[i] && v.shape.b == b && v.capacity == ns[i]);
			CHECK((v.flags & ~SBF_COMPACT_FLAG_RANKS) == SBF_COMPACT_FLAG_COMPACT &&
				  v.error_rate == es[j]);
			CHECK_ST(sbf_compact_decode(&v, fp, &g_alloc), SBF_OK);
			for (k = 0; k < ns[i]; k++)
				CHECK(sbf_compact_array_has(&v, fp, key(7, k)));
			for (k = 1; k < ns[i]; k++)
				CHECK(fp[k - 1] <= fp[k]);
			check_rate(&v, fp, 8);
			free(fp);
			free(buf);
		}
}

/* A hash given twice is two fingerprints; equal fingerprints are kept. */
static void
compact_duplicates(void)
{
	uint64_t	h[4] = {key(1, 1), key(1, 2), key(1, 1), key(1, 1) ^ (UINT64_C(1) << 40)};
	SbfCompactParams p = DEFAULTS;
	SbfCompactView v;
	uint64_t	fp[4];
	uint8_t		buf[64];
	size_t		len;

	p.capacity = 4;
	CHECK_ST(sbf_compact_size(4, 12, &p, &len), SBF_OK);
	CHECK_ST(sbf_compact_write(h, 4, 12, &p, buf, len, &g_alloc), SBF_OK);
	CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
	CHECK(v.shape.n == 4);
	CHECK_ST(sbf_compact_decode(&v, fp, &g_alloc), SBF_OK);
	/* three of them share key(1, 1)'s low 12 bits */
	CHECK((fp[0] == fp[1] && fp[1] == fp[2]) || (fp[1] == fp[2] && fp[2] == fp[3]));
}

/* The header of a value: fields as given (L: the right one when -1). */
typedef struct Craft
{
	uint8_t		version;
	uint8_t		flags;
	int			b;
	int			L;
	double		e;
	uint8_t		n_leb[12];
	size_t		n_len;
	uint64_t	capacity;
	uint16_t	growth;
	double		tightening;
	bool		params;			/* write growth and tightening */
	uint64_t	n_code;			/* fingerprints in the code */
	int			extra;			/* bytes added (> 0) or cut (< 0) at the end */
} Craft;

/* A valid 30-fingerprint value's fields at b = 12. */
static Craft
craft_default(void)
{
	Craft		c = {SBF_COMPACT_VERSION, SBF_COMPACT_FLAG_COMPACT, 12, -1, 0.01,
	{30}, 1, 30, 2, 0.9, false, 30, 0};

	return c;
}

/* Writes a crafted value into buf; returns its length. */
static size_t
craft(const Craft *c, uint8_t *buf)
{
	uint64_t	fp[64];
	SbfEfShape	s;
	size_t		off = SBF_COMPACT_FIXED_BYTES;
	uint64_t	x = c->capacity;
	uint64_t	i;

	for (i = 0; i < c->n_code; i++)
		fp[i] = (i * 131) % 4096;
	qsort(fp, c->n_code, sizeof(uint64_t), unit_cmp_u64);
	CHECK_ST(sbf_ef_shape(c->n_code, 12, &s), SBF_OK);
	buf[0] = c->version;
	buf[1] = c->flags;
	buf[2] = (uint8_t) c->b;
	buf[3] = (uint8_t) (c->L >= 0 ? c->L : s.L);
	sbf_store_double(buf + 4, c->e);
	memcpy(buf + off, c->n_leb, c->n_len);
	off += c->n_len;
	while (x >= 0x80)
	{
		buf[off++] = (uint8_t) (x | 0x80);
		x >>= 7;
	}
	buf[off++] = (uint8_t) x;
	if (c->params)
	{
		sbf_store16(buf + off, c->growth);
		sbf_store_double(buf + off + 2, c->tightening);
		off += SBF_COMPACT_PARAMS_BYTES;
	}
	sbf_ef_write(&s, fp, buf + off);
	off += (size_t) sbf_ef_bytes(&s);
	if (c->extra > 0)
		memset(buf + off, 0, (size_t) c->extra);
	return off + (size_t) c->extra;
}

/* Whether the validator answers st for c. */
static bool
refused_as(const Craft *c, SbfStatus st)
{
	uint8_t		buf[256];
	SbfCompactView v;
	size_t		len = craft(c, buf);

	return sbf_compact_check(buf, len, &v) == st;
}

/* Every rule of the layout, one break at a time. */
static void
compact_rejects(void)
{
	Craft		c = craft_default();
	uint8_t		buf[256];
	SbfCompactView v;
	size_t		len = craft(&c, buf);

	CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
	CHECK_ST(sbf_compact_check(buf, 13, &v), SBF_E_TRUNCATED);
#define BREAK(field, value, st) \
	do { c = craft_default(); c.field = value; CHECK(refused_as(&c, st)); } while (0)
	BREAK(version, 4, SBF_E_VERSION);
	BREAK(version, 6, SBF_E_VERSION);
	BREAK(flags, 0, SBF_E_FLAGS);
	BREAK(flags, SBF_COMPACT_FLAG_COMPACT | 0x01, SBF_E_FLAGS);
	BREAK(flags, SBF_COMPACT_FLAG_COMPACT | 0x80, SBF_E_FLAGS);
	BREAK(flags, SBF_COMPACT_FLAG_COMPACT | 0x08, SBF_E_FLAGS);
	BREAK(b, 0, SBF_E_PARAM);
	BREAK(b, 64, SBF_E_PARAM);
	BREAK(b, 11, SBF_E_PARAM);	/* 30 / 2^11 > 0.01 (and L differs) */
	BREAK(L, 2, SBF_E_PARAM);
	BREAK(e, 0.0, SBF_E_PARAM);
	BREAK(e, 0.5, SBF_E_PARAM);
	BREAK(e, -0.01, SBF_E_PARAM);
	BREAK(e, NAN, SBF_E_PARAM);
	BREAK(e, 0.007, SBF_E_PARAM);	/* 30 / 4096 = 0.0073 */
	BREAK(capacity, 0, SBF_E_PARAM);
	BREAK(capacity, 41, SBF_E_PARAM);	/* 41 / 4096 > 0.01 */
	/* a capacity below n is a value grown in place: its bound n / 2^b */
	c = craft_default();
	c.capacity = 29;
	len = craft(&c, buf);
	CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
	CHECK(sbf_compact_fpr_bound(&v) == ldexp(30.0, -12));
	BREAK(extra, 1, SBF_E_LENGTH);
	BREAK(extra, -1, SBF_E_LENGTH);
	/* n: zero, a count the code does not hold, overlong LEB128 */
	c = craft_default();
	c.n_leb[0] = 0;
	CHECK(refused_as(&c, SBF_E_PARAM));
	c.n_leb[0] = 31;
	CHECK(!refused_as(&c, SBF_OK));
	c.n_leb[0] = 30 | 0x80;
	c.n_leb[1] = 0;
	c.n_len = 2;
	CHECK(refused_as(&c, SBF_E_PARAM));
	/* 30 in ten bytes whose last carries bit 64: past 2^64 - 1 */
	memset(c.n_leb, 0x80, 9);
	c.n_leb[0] = 30 | 0x80;
	c.n_leb[9] = 2;
	c.n_len = 10;
	CHECK(refused_as(&c, SBF_E_PARAM));
	c.n_leb[9] = 0x80;			/* eleven bytes and more */
	c.n_leb[10] = 0;
	c.n_len = 11;
	CHECK(refused_as(&c, SBF_E_PARAM));
	c.n_leb[0] = 30 | 0x80;
	c.n_leb[1] = 0x80;			/* never ends within the value's header */
	c.n_leb[2] = 0x80;
	c.n_len = 3;
	CHECK(!refused_as(&c, SBF_OK));
	/* PARAMS: the defaults written, out of range, cut short */
	c = craft_default();
	c.flags |= SBF_COMPACT_FLAG_PARAMS;
	c.params = true;
	CHECK(refused_as(&c, SBF_E_PARAM));
	c.growth = 4;
	CHECK(refused_as(&c, SBF_OK));
	c.growth = 0;
	CHECK(refused_as(&c, SBF_E_PARAM));
	c.growth = SBF_MAX_GROWTH + 1;
	CHECK(refused_as(&c, SBF_E_PARAM));
	c.growth = 4;
	c.tightening = 0.0;
	CHECK(refused_as(&c, SBF_E_PARAM));
	c.tightening = 1.5;
	CHECK(refused_as(&c, SBF_E_PARAM));
	c.tightening = NAN;
	CHECK(refused_as(&c, SBF_E_PARAM));
	c.tightening = 1.0;
	CHECK(refused_as(&c, SBF_OK));
	/* the PARAMS bit without its bytes: the code is read as them */
	c = craft_default();
	c.flags |= SBF_COMPACT_FLAG_PARAMS;
	CHECK(!refused_as(&c, SBF_OK));
	/* a code whose order is broken (sbf_ef_check's own rules) */
	c = craft_default();
	len = craft(&c, buf);
	buf[len - 1] ^= 0x80;
	CHECK(sbf_compact_check(buf, len, &v) != SBF_OK || v.shape.n == 30);
#undef BREAK
}

/*
 * Every single bit flip of two values is refused, or reads as a value whose
 * fingerprints and header, written again, give the flipped bytes: one code
 * per value.
 */
static void
compact_bit_flips(void)
{
	SbfCompactParams p = DEFAULTS;
	SbfCompactParams q = {0.05, 90, 3, 0.75, true, NULL};
	const SbfCompactParams *ps[2] = {&p, &q};
	int			t;

	for (t = 0; t < 2; t++)
	{
		int			b;
		size_t		len;
		uint8_t    *buf = make_value(t == 0 ? 30 : 70, 3, *ps[t], &b, &len);
		uint8_t    *again = malloc(len);
		size_t		bit;
		long		accepted = 0;

		for (bit = 0; bit < len * 8; bit++)
		{
			SbfCompactView v;
			uint64_t	fp[128];
			SbfCompactParams w;
			SbfCompactRanks wr;
			size_t		wlen;

			buf[bit / 8] ^= (uint8_t) (1u << (bit % 8));
			if (sbf_compact_check(buf, len, &v) == SBF_OK)
			{
				accepted++;
				w.error_rate = v.error_rate;
				w.capacity = v.capacity;
				w.growth = v.growth;
				w.tightening = v.tightening;
				w.overlap = (v.flags & SBF_COMPACT_FLAG_OVERLAP) != 0;
				sbf_compact_view_ranks(&v, &wr);
				w.ranks = &wr;
				CHECK(v.shape.n <= 128);
				CHECK_ST(sbf_compact_decode(&v, fp, &g_alloc), SBF_OK);
				CHECK_ST(sbf_compact_size(v.shape.n, v.shape.b, &w, &wlen), SBF_OK);
				CHECK(wlen == len);
				if (wlen == len)
				{
					CHECK_ST(sbf_compact_write(fp, v.shape.n, v.shape.b, &w, again,
											   len, &g_alloc), SBF_OK);
					CHECK(memcmp(again, buf, len) == 0);
				}
			}
			buf[bit / 8] ^= (uint8_t) (1u << (bit % 8));
		}
		printf("# %zu bytes, %zu flips, %ld read as another value\n", len,
			   len * 8, accepted);
		free(again);
		free(buf);
	}
}

/* The hashes' own register and rank (sbf_hll.c's definition). */
static void
hash_registers(uint64_t n, int space, int p, uint8_t *regs)
{
	uint64_t	i;

	memset(regs, 0, (size_t) 1 << p);
	for (i = 0; i < n; i++)
	{
		uint64_t	h = key(space, i);
		uint64_t	w = h >> p;
		int			rho = w == 0 ? 65 - p : sbf_ctz64(w) + 1;
		uint32_t	j = (uint32_t) (h & ((UINT64_C(1) << p) - 1));

		if (rho > regs[j])
			regs[j] = (uint8_t) rho;
	}
}

/*
 * The HyperLogLog of the fingerprints is the hashes' own, each register
 * capped at b - p + 1: equal at n = 5,000 (b = 19, cap 11), capped in many
 * registers at b = 12, p = 4 and 14 (cap 9 and -1); at p = 9 the value's
 * RANKS list (make_value gives the hashes') completes it to the hashes'
 * own (test_compact_ranks.c has more); p >= b refused.
 */
static void
compact_hll(void)
{
	static const int ps[] = {4, 9, 14};
	SbfCompactParams p = DEFAULTS;
	size_t		i;

	for (i = 0; i < 3; i++)
	{
		int			hp = ps[i];
		int			t;

		for (t = 0; t < 2; t++)
		{
			uint64_t	n = t == 0 ? 5000 : 1000;
			int			b;
			size_t		len;
			uint8_t    *buf;
			SbfCompactView v;
			uint8_t    *got = malloc((size_t) 1 << hp);
			uint8_t    *ref = malloc((size_t) 1 << hp);
			uint32_t	j;
			long		capped = 0;

			p.error_rate = t == 0 ? 0.01 : 0.3;
			buf = make_value(n, 5, p, &b, &len);
			CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
			if (hp >= b)
			{
				CHECK_ST(sbf_compact_hll(&v, hp, got, &g_alloc), SBF_E_PARAM);
				free(got), free(ref), free(buf);
				continue;
			}
			CHECK_ST(sbf_compact_hll(&v, hp, got, &g_alloc), SBF_OK);
			hash_registers(n, 5, hp, ref);
			for (j = 0; j < (UINT32_C(1) << hp); j++)
			{
				int			want = ref[j] < b - hp + 1 ? ref[j] : b - hp + 1;

				CHECK(got[j] == (hp == SBF_COMPACT_HLL_P ? ref[j] : want));
				capped += ref[j] > b - hp + 1;
			}
			if (t == 1 && hp == 9)
				CHECK(b == 12 && capped > 0 && v.nranks == capped);
			free(got);
			free(ref);
			free(buf);
		}
	}
	{
		int			b;
		size_t		len;
		uint8_t    *buf = make_value(10, 5, DEFAULTS, &b, &len);
		SbfCompactView v;
		uint8_t		regs[1 << 14];

		CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
		CHECK_ST(sbf_compact_hll(&v, 3, regs, &g_alloc), SBF_E_PARAM);
		CHECK_ST(sbf_compact_hll(&v, b, regs, &g_alloc), SBF_E_PARAM);
		free(buf);
	}
}

/* Sizes past the limits are refused; allocation failures leak nothing. */
static void
compact_limits_and_allocations(void)
{
	SbfCompactParams p = {0.49, UINT64_C(1) << 32, 2, 0.9, false, NULL};
	uint64_t	h[3] = {key(2, 0), key(2, 1), key(2, 2)};
	SbfCompactView v;
	uint8_t		buf[64];
	uint64_t	fp[3];
	uint8_t		regs[512];
	size_t		len;

	CHECK_ST(sbf_compact_size(UINT64_C(1) << 32, 63, &p, &len), SBF_E_TOO_LARGE);
	p.capacity = (UINT64_C(1) << 32) + 1;
	CHECK_ST(sbf_compact_size((UINT64_C(1) << 32) + 1, 63, &p, &len), SBF_E_PARAM);
	p = DEFAULTS;
	p.capacity = 3;
	CHECK_ST(sbf_compact_size(3, 10, &p, &len), SBF_OK);
	/* n may pass the capacity (adds in place) within the bound, not past it */
	CHECK_ST(sbf_compact_size(4, 10, &p, &len), SBF_OK);
	CHECK_ST(sbf_compact_size(11, 10, &p, &len), SBF_E_PARAM);	/* 11 / 2^10 > e */
	p.capacity = 0;
	CHECK_ST(sbf_compact_size(3, 10, &p, &len), SBF_E_PARAM);
	p.capacity = 3;
	CHECK_ST(sbf_compact_size(3, 10, &p, &len), SBF_OK);
	reset_counts(SIZE_MAX);
	g_fail_after = 0;
	CHECK_ST(sbf_compact_write(h, 3, 10, &p, buf, len, &g_alloc), SBF_E_NOMEM);
	g_fail_after = -1;
	CHECK_ST(sbf_compact_write(h, 3, 10, &p, buf, len, &g_alloc), SBF_OK);
	CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
	g_fail_after = 0;
	CHECK_ST(sbf_compact_decode(&v, fp, &g_alloc), SBF_E_NOMEM);
	CHECK_ST(sbf_compact_hll(&v, 9, regs, &g_alloc), SBF_E_NOMEM);
	g_fail_after = 1;
	CHECK_ST(sbf_compact_hll(&v, 9, regs, &g_alloc), SBF_E_NOMEM);
	g_fail_after = -1;
	CHECK(g_live == 0);
}

int
main(void)
{
	RUN(compact_bits);
	RUN(compact_layout);
	RUN(compact_round_trip);
	RUN(compact_duplicates);
	RUN(compact_rejects);
	RUN(compact_bit_flips);
	RUN(compact_hll);
	RUN(compact_limits_and_allocations);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
