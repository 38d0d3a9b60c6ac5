/*
 * test_efset.c
 *	  Unit tests of the Elias-Fano fingerprint codec (sbf_efset.c): its
 *	  shapes, exact round trips, lookups (the reader's, a decoded array's
 *	  and the bytes' own, sbf_ef_has_bytes) and distinct counts against a
 *	  linear scan for every fingerprint of small spaces, what the validator
 *	  rejects (every single bit flip of a code either is rejected or reads
 *	  as a valid set), union counts from distinct fingerprints, and
 *	  allocations.  Prints "ok - name" or "not ok - name"
 *	  per case and one final "N passed, N failed" line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_efset.h"
#include "sbf_internal.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

/* n fingerprints of b bits from key space `space`, ascending. */
static uint64_t *
make_fps(uint64_t n, int b, int space)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t	i;

	for (i = 0; i < n; i++)
		h[i] = key(space, i);
	sbf_ef_fingerprints(h, n, b, h);
	qsort(h, n, sizeof(uint64_t), unit_cmp_u64);
	return h;
}

/* Whether x is among fp[0..n), the slow way. */
static bool
ref_has(const uint64_t *fp, uint64_t n, uint64_t x)
{
	uint64_t	i;

	for (i = 0; i < n && fp[i] <= x; i++)
		if (fp[i] == x)
			return true;
	return false;
}

/* How many distinct values ascending fp[0..n) holds, the slow way. */
static uint64_t
ref_distinct(const uint64_t *fp, uint64_t n)
{
	uint64_t	i;
	uint64_t	d = 0;

	for (i = 0; i < n; i++)
		d += (i == 0 || fp[i] != fp[i - 1]) ? 1 : 0;
	return d;
}

/* The code of fp[0..n) at b bits, checked; *len its bytes. */
static uint8_t *
encode(const uint64_t *fp, uint64_t n, int b, SbfEfShape *s, size_t *len)
{
	uint8_t    *buf;

	CHECK_ST(sbf_ef_shape(n, b, s), SBF_OK);
	*len = (size_t) sbf_ef_bytes(s);
	buf = malloc(*len + 1);
	sbf_ef_write(s, fp, buf);
	CHECK_ST(sbf_ef_check(s, buf, *len), SBF_OK);
	return buf;
}

/* The low bits by trying every l, ties to the larger: the format's rule. */
static int
low_bits_by_search(uint64_t n, int b)
{
	uint64_t	best = UINT64_MAX;
	int			best_l = 0;
	int			l;

	for (l = 0; l < b; l++)
	{
		uint64_t	bits = n * (uint64_t) l + n + (UINT64_C(1) << (b - l));

		if (bits <= best)
		{
			best = bits;
			best_l = l;
		}
	}
	return best_l;
}

/*
 * sbf_ef_low_bits' closed form equals the search at every width, for every
 * n up to 70,000 and every power of two up to 2^32 and its neighbours.
 */
static void
ef_low_bits_closed_form(void)
{
	uint64_t	differ = 0;
	uint64_t	n;
	int			b;
	int			e;

	for (b = 1; b <= SBF_EF_MAX_BITS; b++)
	{
		for (n = 1; n <= 70000; n++)
			differ += sbf_ef_low_bits(n, b) != low_bits_by_search(n, b);
		for (e = 1; e <= 32; e++)
			for (n = (UINT64_C(1) << e) - 1; n <= (UINT64_C(1) << e) + 1 && n <= SBF_EF_MAX_N; n++)
				differ += sbf_ef_low_bits(n, b) != low_bits_by_search(n, b);
	}
	CHECK(differ == 0);
}

/* The low bits are the size's minimum; shapes out of range are refused. */
static void
ef_shapes(void)
{
	static const uint64_t ns[] = {1, 2, 3, 10, 100, 1000, 5000, UINT64_C(1) << 32};
	SbfEfShape	s;
	size_t		i;
	int			b,
				l;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (b = 1; b <= SBF_EF_MAX_BITS; b++)
		{
			int			got = sbf_ef_low_bits(ns[i], b);
			double		best = INFINITY;

			for (l = 0; l < b; l++)
			{
				double		bits = (double) ns[i] * (l + 1) + ldexp(1.0, b - l);

				if (bits <= best)
					best = bits;
			}
			CHECK((double) ns[i] * (got + 1) + ldexp(1.0, b - got) == best);
			CHECK(got < b);
		}
	CHECK_ST(sbf_ef_shape(0, 10, &s), SBF_E_PARAM);
	CHECK_ST(sbf_ef_shape(SBF_EF_MAX_N + 1, 40, &s), SBF_E_PARAM);
	CHECK_ST(sbf_ef_shape(10, 0, &s), SBF_E_PARAM);
	CHECK_ST(sbf_ef_shape(10, 64, &s), SBF_E_PARAM);
	CHECK_ST(sbf_ef_shape(1000, 17, &s), SBF_OK);
	CHECK(s.L == 7 && s.nbuckets == 1024 && s.hibits == 2024 && s.lobits == 7000);
	CHECK(sbf_ef_bytes(&s) == 253 + 875);
}

/*
 * Every size and width: the code decodes to its fingerprints, each is
 * found, and every other fingerprint of a small space (all of it up to
 * 2^13) or a spread sample of a large one answers as a sorted array does.
 */
static void
ef_round_trip(void)
{
	static const uint64_t ns[] = {1, 2, 3, 5, 8, 30, 63, 64, 65, 100, 1000, 5000};
	static const int bs[] = {1, 4, 7, 12, 13, 20, 33, 63};
	size_t		i,
				j;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (j = 0; j < sizeof(bs) / sizeof(bs[0]); j++)
		{
			uint64_t	n = ns[i];
			int			b = bs[j];
			uint64_t   *fp = make_fps(n, b, (int) (i * 10 + j));
			uint64_t   *out = malloc(n * sizeof(uint64_t));
			SbfEfShape	s;
			SbfEfReader r;
			size_t		len;
			uint8_t    *buf = encode(fp, n, b, &s, &len);
			uint64_t	x;

			CHECK_ST(sbf_ef_reader_init(&r, &s, buf, &g_alloc), SBF_OK);
			sbf_ef_decode(&r, out);
			CHECK(memcmp(out, fp, n * sizeof(uint64_t)) == 0);
			/* from the bytes, nothing allocated: the same */
			memset(out, 0, n * sizeof(uint64_t));
			sbf_ef_decode_bytes(&s, buf, out);
			CHECK(memcmp(out, fp, n * sizeof(uint64_t)) == 0);
			CHECK(sbf_ef_distinct(&s, buf) == ref_distinct(fp, n));
			for (x = 0; x < n; x++)
				CHECK(sbf_ef_has(&r, fp[x]) && sbf_ef_array_has(out, n, fp[x]) &&
					  sbf_ef_has_bytes(&s, buf, fp[x]));
			if (b <= 13)
				for (x = 0; x < (UINT64_C(1) << b); x++)
				{
					CHECK(sbf_ef_has(&r, x) == ref_has(fp, n, x));
					CHECK(sbf_ef_array_has(out, n, x) == ref_has(fp, n, x));
					CHECK(sbf_ef_has_bytes(&s, buf, x) == ref_has(fp, n, x));
				}
			else
				for (x = 0; x < 4000; x++)
				{
					uint64_t	q = sbf_ef_fingerprint(key(99, x), b);

					CHECK(sbf_ef_has(&r, q) == ref_has(fp, n, q));
					CHECK(sbf_ef_array_has(out, n, q) == ref_has(fp, n, q));
					CHECK(sbf_ef_has_bytes(&s, buf, q) == ref_has(fp, n, q));
				}
			CHECK(!sbf_ef_has(&r, UINT64_C(1) << b) && !sbf_ef_has_bytes(&s, buf, UINT64_C(1) << b));
			CHECK(!sbf_ef_has(&r, UINT64_MAX) && !sbf_ef_array_has(out, n, UINT64_MAX));
			CHECK(!sbf_ef_has_bytes(&s, buf, UINT64_MAX));
			sbf_ef_reader_free(&r, &g_alloc);
			free(buf);
			free(out);
			free(fp);
		}
	CHECK(g_live == 0);
}

/* Runs of one fingerprint, the space's first and last, low bits across words. */
static void
ef_duplicates_and_edges(void)
{
	uint64_t	fp[] = {0, 0, 0, 5, 5, 1023, 1023};
	uint64_t	out[7];
	SbfEfShape	s;
	SbfEfReader r;
	size_t		len;
	uint8_t    *buf = encode(fp, 7, 10, &s, &len);
	uint64_t	x;

	CHECK_ST(sbf_ef_reader_init(&r, &s, buf, &g_alloc), SBF_OK);
	sbf_ef_decode(&r, out);
	CHECK(memcmp(out, fp, sizeof(fp)) == 0);
	for (x = 0; x < 1024; x++)
		CHECK(sbf_ef_has(&r, x) == (x == 0 || x == 5 || x == 1023));
	sbf_ef_reader_free(&r, &g_alloc);
	free(buf);

	/*
	 * 63-bit fingerprints take L = 62: the second element's low bits cross
	 * a 64-bit boundary of the low area.  Ascending, they are accepted and
	 * read back; in the wrong order, refused.
	 */
	{
		uint64_t	hi1 = UINT64_C(1) << 62;
		uint64_t	up[] = {hi1 | 1, hi1 | UINT64_C(1) << 61};
		uint64_t	down[] = {hi1 | UINT64_C(3) << 60, hi1 | UINT64_C(1) << 61};
		uint64_t	back[2];

		buf = encode(up, 2, 63, &s, &len);
		CHECK(s.L == 62);
		CHECK_ST(sbf_ef_reader_init(&r, &s, buf, &g_alloc), SBF_OK);
		sbf_ef_decode(&r, back);
		CHECK(back[0] == up[0] && back[1] == up[1]);
		CHECK(sbf_ef_has(&r, up[1]) && !sbf_ef_has(&r, up[1] - 1));
		sbf_ef_reader_free(&r, &g_alloc);
		sbf_ef_write(&s, down, buf);	/* the writer trusts its input */
		CHECK_ST(sbf_ef_check(&s, buf, len), SBF_E_BITS);
		free(buf);
	}
}

/* Each mutation of a valid code is refused with its status. */
static void
ef_check_rejects(void)
{
	uint64_t   *fp = make_fps(100, 14, 7);
	uint64_t	two[] = {0x81, 0x85};
	SbfEfShape	s;
	size_t		len;
	uint8_t    *buf = encode(fp, 100, 14, &s, &len);
	uint64_t	hb = (s.hibits + 7) / 8;

	CHECK_ST(sbf_ef_check(&s, buf, len - 1), SBF_E_LENGTH);
	CHECK_ST(sbf_ef_check(&s, buf, len + 1), SBF_E_LENGTH);
	/* the high area's last bit must be a zero */
	buf[(s.hibits - 1) / 8] ^= (uint8_t) (1u << ((s.hibits - 1) % 8));
	CHECK_ST(sbf_ef_check(&s, buf, len), SBF_E_BITS);
	buf[(s.hibits - 1) / 8] ^= (uint8_t) (1u << ((s.hibits - 1) % 8));
	/* ... even with n ones: the last element moved to the last bit */
	{
		uint64_t	last = s.hibits - 1;

		while (!(buf[last / 8] >> (last % 8) & 1))
			last--;
		buf[last / 8] ^= (uint8_t) (1u << (last % 8));
		buf[(s.hibits - 1) / 8] ^= (uint8_t) (1u << ((s.hibits - 1) % 8));
		CHECK_ST(sbf_ef_check(&s, buf, len), SBF_E_BITS);
		buf[(s.hibits - 1) / 8] ^= (uint8_t) (1u << ((s.hibits - 1) % 8));
		buf[last / 8] ^= (uint8_t) (1u << (last % 8));
	}
	/* a bit past either area */
	if (s.hibits % 8 != 0)
	{
		buf[hb - 1] ^= 0x80;
		CHECK_ST(sbf_ef_check(&s, buf, len), SBF_E_BITS);
		buf[hb - 1] ^= 0x80;
	}
	if (s.lobits % 8 != 0)
	{
		buf[len - 1] ^= 0x80;
		CHECK_ST(sbf_ef_check(&s, buf, len), SBF_E_BITS);
		buf[len - 1] ^= 0x80;
	}
	CHECK_ST(sbf_ef_check(&s, buf, len), SBF_OK);
	free(buf);
	free(fp);

	/* the layout, pinned: 0x81 and 0x85 at b = 8 take L = 7, two buckets */
	buf = encode(two, 2, 8, &s, &len);
	CHECK(s.L == 7 && s.nbuckets == 2 && len == 3);
	CHECK(buf[0] == 0x06 && buf[1] == 0x81 && buf[2] == 0x02);
	/* the same bucket's low bits out of order: 0x05, then 0x01 */
	buf[1] = (uint8_t) (0x05 | 0x01 << 7);
	buf[2] = 0x00;
	CHECK_ST(sbf_ef_check(&s, buf, len), SBF_E_BITS);
	/* one element too many, one too few */
	buf[1] = 0x81;
	buf[2] = 0x02;
	buf[0] = 0x07;
	CHECK_ST(sbf_ef_check(&s, buf, len), SBF_E_BITS);
	buf[0] = 0x04;
	CHECK_ST(sbf_ef_check(&s, buf, len), SBF_E_BITS);
	free(buf);
}

/*
 * Every single bit flip of a code is either refused or reads as a set of
 * its n fingerprints, ascending and each found; the bytes reader answers
 * every fingerprint of every flipped copy (under the sanitizers: no read
 * outside the buffer, a code or not).
 */
static void
ef_bit_flips(void)
{
	uint64_t   *fp = make_fps(40, 11, 3);
	uint64_t	out[40];
	SbfEfShape	s;
	size_t		len;
	uint8_t    *buf = encode(fp, 40, 11, &s, &len);
	uint8_t    *copy = malloc(len);
	size_t		bit;
	int			accepted = 0;

	for (bit = 0; bit < len * 8; bit++)
	{
		uint64_t	x;

		memcpy(copy, buf, len);
		copy[bit / 8] ^= (uint8_t) (1u << (bit % 8));
		/* the bytes reader stays inside any bytes, a code or not */
		for (x = 0; x < (UINT64_C(1) << 11); x++)
			(void) sbf_ef_has_bytes(&s, copy, x);
		if (sbf_ef_check(&s, copy, len) == SBF_OK)
		{
			SbfEfReader r;
			int			i;

			accepted++;
			CHECK_ST(sbf_ef_reader_init(&r, &s, copy, &g_alloc), SBF_OK);
			sbf_ef_decode(&r, out);
			{
				uint64_t	again[40];

				sbf_ef_decode_bytes(&s, copy, again);
				CHECK(memcmp(again, out, sizeof(again)) == 0);
			}
			for (i = 0; i < 40; i++)
			{
				CHECK(i == 0 || out[i - 1] <= out[i]);
				CHECK(out[i] < (UINT64_C(1) << 11));
				CHECK(sbf_ef_has(&r, out[i]));
			}
			sbf_ef_reader_free(&r, &g_alloc);
		}
	}
	/* a flipped low bit moves one fingerprint within its bucket's order */
	CHECK(accepted > 0 && accepted < (int) (len * 8));
	/*
	 * a high area of ones and low bits of zeros: bucket 0 runs past n
	 * elements, each below every l > 0; the reader stops at n
	 */
	memset(copy, 0xff, (size_t) (s.hibits + 7) / 8);
	memset(copy + (s.hibits + 7) / 8, 0, len - (size_t) (s.hibits + 7) / 8);
	for (bit = 0; bit < (UINT64_C(1) << s.L); bit++)
		(void) sbf_ef_has_bytes(&s, copy, bit);
	free(copy);
	free(buf);
	free(fp);
}

/* The count of a union from its distinct fingerprints, and the edges. */
static void
ef_distinct_estimate(void)
{
	uint64_t   *fp = malloc(1500 * sizeof(uint64_t));
	uint64_t	i,
				d = 0;
	int			b = 17;			/* ceil(log2(1000 / 0.01)) */
	double		est;

	/* A = keys 0..999, B = keys 500..1499 */
	for (i = 0; i < 1500; i++)
		fp[i] = sbf_ef_fingerprint(key(5, i), b);
	qsort(fp, 1500, sizeof(uint64_t), unit_cmp_u64);
	for (i = 0; i < 1500; i++)
		d += i == 0 || fp[i] != fp[i - 1];
	est = sbf_ef_distinct_estimate(d, b);
	CHECK(d <= 1500 && fabs(est - 1500) <= 15);
	CHECK(sbf_ef_distinct_estimate(0, b) == 0);
	CHECK(sbf_ef_distinct_estimate(12345, 60) == 12345);
	CHECK(isfinite(sbf_ef_distinct_estimate(1024, 10)));
	free(fp);
}

/* A reader is one allocation; a failed one leaves nothing behind. */
static void
ef_allocations(void)
{
	uint64_t   *fp = make_fps(1000, 17, 4);
	SbfEfShape	s;
	SbfEfReader r;
	size_t		len;
	uint8_t    *buf = encode(fp, 1000, 17, &s, &len);
	size_t		calls = g_calls;

	CHECK_ST(sbf_ef_reader_init(&r, &s, buf, &g_alloc), SBF_OK);
	CHECK(g_calls == calls + 1 && g_live == 1);
	sbf_ef_reader_free(&r, &g_alloc);
	sbf_ef_reader_free(&r, &g_alloc);
	CHECK(g_live == 0);
	g_fail_after = 0;
	CHECK_ST(sbf_ef_reader_init(&r, &s, buf, &g_alloc), SBF_E_NOMEM);
	g_fail_after = -1;
	CHECK(g_live == 0);
	free(buf);
	free(fp);
}

int
main(void)
{
	RUN(ef_shapes);
	RUN(ef_low_bits_closed_form);
	RUN(ef_round_trip);
	RUN(ef_duplicates_and_edges);
	RUN(ef_check_rejects);
	RUN(ef_bit_flips);
	RUN(ef_distinct_estimate);
	RUN(ef_allocations);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
