/*
 * test_compact_ranks.c
 *	  Unit tests of the compact form's RANKS list (sbf_compact.c;
 *	  docs/format5.md, section 3): the registers at precision 9 whose rank
 *	  the fingerprints cap, listed so that the HyperLogLog made from a
 *	  compact value is its hashes' own.  The list from the hashes, the
 *	  HyperLogLog with and without it, its bytes, every rule of the writer
 *	  and of the validator broken once, and adds on a compact value (an
 *	  add whose rank is above the list's changes the value).  Deterministic
 *	  keys.  Prints "ok - name" or "not ok - name" per case and one final
 *	  "N passed, N failed" line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_compact.h"
#include "sbf_internal.h"
#include "sbf_plain.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

#define P			SBF_COMPACT_HLL_P
#define NREG		SBF_COMPACT_REGISTERS

/* The hashes' own registers at precision 9 (sbf_hll.c's definition). */
static void
own_registers(const uint64_t *h, uint64_t n, uint8_t *regs)
{
	uint64_t	i;

	memset(regs, 0, NREG);
	for (i = 0; i < n; i++)
	{
		uint64_t	w = h[i] >> P;
		int			rho = w == 0 ? SBF_HLL_MAX_RHO(P) : sbf_ctz64(w) + 1;
		uint32_t	j = (uint32_t) (h[i] & (NREG - 1));

		if (rho > regs[j])
			regs[j] = (uint8_t) rho;
	}
}

/* The value of the n hashes h at b, capacity n, e 0.3, ranks as given. */
static uint8_t *
write_value(const uint64_t *h, uint64_t n, int b, const SbfCompactRanks *rk,
			size_t *len)
{
	SbfCompactParams p = {0.3, n, SBF_DEFAULT_GROWTH, SBF_DEFAULT_TIGHTENING,
	false, rk};
	uint8_t    *buf;

	CHECK_ST(sbf_compact_size(n, b, &p, len), SBF_OK);
	buf = malloc(*len);
	CHECK_ST(sbf_compact_write(h, n, b, &p, buf, *len, &g_alloc), SBF_OK);
	return buf;
}

static uint64_t *
hashes(uint64_t n, int space)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t	i;

	for (i = 0; i < n; i++)
		h[i] = key(space, i);
	return h;
}

/*
 * 1,000 hashes at b = 12 (cap 4): the list names exactly the registers
 * whose own rank is above 4; with it the HyperLogLog is the hashes' own,
 * without it those registers read 4; the list costs its LEB128 count and
 * 2 bytes an entry; none at b <= 9.
 */
static void
ranks_complete_hll(void)
{
	uint64_t   *h = hashes(1000, 5);
	uint8_t		own[NREG];
	uint8_t		got[NREG];
	SbfCompactRanks rk;
	SbfCompactRanks back;
	SbfCompactView v;
	size_t		len;
	size_t		plain_len;
	uint8_t    *buf;
	uint8_t    *plain;
	uint32_t	capped = 0;
	int			j;

	own_registers(h, 1000, own);
	for (j = 0; j < NREG; j++)
		capped += own[j] > 4;
	sbf_compact_ranks(h, 1000, 12, &rk);
	CHECK(capped > 2 && rk.count == capped);
	buf = write_value(h, 1000, 12, &rk, &len);
	plain = write_value(h, 1000, 12, NULL, &plain_len);
	CHECK(len == plain_len + 1 + 2 * capped);
	CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
	CHECK((v.flags & SBF_COMPACT_FLAG_RANKS) && v.nranks == capped);
	CHECK_ST(sbf_compact_hll(&v, P, got, &g_alloc), SBF_OK);
	CHECK(memcmp(got, own, NREG) == 0);
	sbf_compact_view_ranks(&v, &back);
	CHECK(back.count == rk.count && memcmp(back.rank, rk.rank, NREG) == 0);

	CHECK_ST(sbf_compact_check(plain, plain_len, &v), SBF_OK);
	CHECK(!(v.flags & SBF_COMPACT_FLAG_RANKS) && v.nranks == 0);
	CHECK_ST(sbf_compact_hll(&v, P, got, &g_alloc), SBF_OK);
	for (j = 0; j < NREG; j++)
		CHECK(got[j] == (own[j] > 4 ? 4 : own[j]));

	sbf_compact_ranks(h, 1000, 9, &rk);
	CHECK(rk.count == 0);
	/* a hash of no bit above its register: rank 56 */
	h[0] = 77;
	sbf_compact_ranks(h, 1, 20, &rk);
	CHECK(rk.count == 1 && rk.rank[77] == 56);
	free(h);
	free(buf);
	free(plain);
}

/*
 * The writer refuses ranks it could not store: a count that differs, a
 * rank at the cap or above 56, a register whose fingerprint is not among
 * the hashes, any at b <= 9.
 */
static void
ranks_writer_refuses(void)
{
	uint64_t   *h = hashes(1000, 5);
	SbfCompactRanks rk;
	SbfCompactRanks bad;
	SbfCompactParams p = {0.3, 1000, SBF_DEFAULT_GROWTH, SBF_DEFAULT_TIGHTENING,
	false, &bad};
	uint8_t    *buf = malloc(4096);
	size_t		len;
	int			j;
	int			absent = -1;
	int			listed = -1;

	sbf_compact_ranks(h, 1000, 12, &rk);
	for (j = 0; j < NREG; j++)
	{
		if (rk.rank[j] > 0 && listed < 0)
			listed = j;
		if (rk.rank[j] == 0 && absent < 0)
		{
			uint64_t	i;
			bool		found = false;

			for (i = 0; i < 1000; i++)
				found |= sbf_ef_fingerprint(h[i], 12) == (uint64_t) j;
			if (!found)
				absent = j;
		}
	}
	CHECK(listed >= 0 && absent >= 0);
	bad = rk;
	CHECK_ST(sbf_compact_size(1000, 12, &p, &len), SBF_OK);
	CHECK_ST(sbf_compact_write(h, 1000, 12, &p, buf, len, &g_alloc), SBF_OK);
	bad.count++;
	CHECK_ST(sbf_compact_write(h, 1000, 12, &p, buf, len, &g_alloc), SBF_E_PARAM);
	bad = rk;
	bad.rank[listed] = 4;
	CHECK_ST(sbf_compact_write(h, 1000, 12, &p, buf, len, &g_alloc), SBF_E_PARAM);
	bad.rank[listed] = 57;
	CHECK_ST(sbf_compact_write(h, 1000, 12, &p, buf, len, &g_alloc), SBF_E_PARAM);
	bad = rk;
	bad.rank[listed] = 0;
	bad.rank[absent] = 6;
	CHECK_ST(sbf_compact_write(h, 1000, 12, &p, buf, len, &g_alloc), SBF_E_PARAM);
	/* at b = 9 (cap 1) a rank of 2 in a register whose fingerprint is there */
	memset(&bad, 0, sizeof(bad));
	bad.count = 1;
	bad.rank[h[0] & (NREG - 1)] = 2;
	p.capacity = 100;
	CHECK_ST(sbf_compact_size(100, 9, &p, &len), SBF_OK);
	CHECK_ST(sbf_compact_write(h, 100, 9, &p, buf, len, &g_alloc), SBF_E_PARAM);
	bad.count = 0;
	bad.rank[h[0] & (NREG - 1)] = 0;
	CHECK_ST(sbf_compact_size(100, 9, &p, &len), SBF_OK);
	CHECK_ST(sbf_compact_write(h, 100, 9, &p, buf, len, &g_alloc), SBF_OK);
	free(buf);
	free(h);
}

/* Whether the validator refuses buf after f(buf) changed it. */
static void
refused_after(const uint8_t *buf, size_t len, size_t at, uint8_t byte,
			  SbfStatus want)
{
	uint8_t    *c = malloc(len);
	SbfCompactView v;

	memcpy(c, buf, len);
	c[at] = byte;
	CHECK_ST(sbf_compact_check(c, len, &v), want);
	free(c);
}

/*
 * The validator refuses each broken rule of the list once: the flag
 * alone, a count of 0 or above the entries there are, a top bit, a rank
 * at the cap and above 56, registers not ascending, a register whose
 * fingerprint is absent; and the flag on a value of b = 9.
 */
static void
ranks_validator_refuses(void)
{
	uint64_t   *h = hashes(1000, 5);
	SbfCompactRanks rk;
	SbfCompactView v;
	size_t		len;
	size_t		plain_len;
	uint8_t    *buf;
	uint8_t    *plain;
	uint64_t   *fp = malloc(1000 * sizeof(uint64_t));
	const size_t at = 12 + 2 + 2;	/* n and capacity 1,000: 2 bytes each */
	uint16_t	e0;
	uint16_t	e1;
	int			j;

	sbf_compact_ranks(h, 1000, 12, &rk);
	buf = write_value(h, 1000, 12, &rk, &len);
	plain = write_value(h, 1000, 12, NULL, &plain_len);
	CHECK(rk.count >= 2 && rk.count < 128 && buf[at] == rk.count);
	e0 = sbf_load16(buf + at + 1);
	e1 = sbf_load16(buf + at + 3);
	CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);

	refused_after(buf, len, 1, buf[1] & ~SBF_COMPACT_FLAG_RANKS, SBF_E_LENGTH);
	refused_after(plain, plain_len, 1, plain[1] | SBF_COMPACT_FLAG_RANKS,
				  SBF_E_PARAM);
	refused_after(buf, len, at, 0, SBF_E_PARAM);
	refused_after(buf, len, at, 0x7f, SBF_E_PARAM);
	refused_after(buf, len, at + 2, (uint8_t) ((e0 >> 8) | 0x80), SBF_E_PARAM);
	/* rank 4 (the cap) and 57 in entry 0 */
	refused_after(buf, len, at + 2, (uint8_t) ((e0 & 0x100) >> 8 | 4 << 1),
				  SBF_E_PARAM);
	refused_after(buf, len, at + 2, (uint8_t) ((e0 & 0x100) >> 8 | 57 << 1),
				  SBF_E_PARAM);
	/* entry 1's register equal to entry 0's */
	{
		uint8_t    *c = malloc(len);

		memcpy(c, buf, len);
		sbf_store16(c + at + 3, (uint16_t) ((e1 & ~(NREG - 1)) | (e0 & (NREG - 1))));
		CHECK_ST(sbf_compact_check(c, len, &v), SBF_E_PARAM);
		/* entry 0's register one whose fingerprint is absent, below entry 1's */
		memcpy(c, buf, len);
		CHECK_ST(sbf_compact_check(buf, len, &v), SBF_OK);
		CHECK_ST(sbf_compact_decode(&v, fp, &g_alloc), SBF_OK);
		for (j = 0; j < (e1 & (NREG - 1)); j++)
		{
			uint64_t	i;
			bool		found = false;

			for (i = 0; i < 1000; i++)
				found |= fp[i] == (uint64_t) j;
			if (!found)
				break;
		}
		CHECK(j < (e1 & (NREG - 1)));
		sbf_store16(c + at + 1, (uint16_t) ((e0 & ~(NREG - 1)) | j));
		CHECK_ST(sbf_compact_parse(c, len, &v), SBF_OK);
		CHECK_ST(sbf_compact_check(c, len, &v), SBF_E_PARAM);
		free(c);
	}
	free(buf);
	free(plain);
	free(fp);
	free(h);
}

/*
 * Adds on a compact value: an element whose fingerprint is there and whose
 * rank is within the value's HyperLogLog keeps the bytes; one of the same
 * fingerprint of a rank above its register's entry raises the entry in
 * place (sbf_compact_add.c), so the segmented form's HyperLogLog then
 * holds that rank.
 */
static void
ranks_adds(void)
{
	uint64_t   *h = hashes(1000, 5);
	SbfCompactRanks rk;
	SbfFilter	f;
	SbfView		v;
	size_t		len;
	uint8_t    *buf;
	uint8_t		regs[NREG];
	int			j;
	int			listed = -1;
	uint64_t	same;
	uint64_t	higher;

	sbf_compact_ranks(h, 1000, 12, &rk);
	for (j = 0; j < NREG && listed < 0; j++)
		if (rk.rank[j] > 0 && rk.rank[j] < 50)
			listed = j;
	CHECK(listed >= 0);
	buf = write_value(h, 1000, 12, &rk, &len);
	/* register j, rank exactly the entry's; then one above it */
	same = (uint64_t) listed | UINT64_C(1) << (P + rk.rank[listed] - 1);
	higher = (uint64_t) listed | UINT64_C(1) << (P + rk.rank[listed]);

	CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
	CHECK_ST(sbf_copy(&f, &v, 0, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, same, NULL), SBF_OK);
	CHECK(f.len == len && memcmp(SBF_PAYLOAD(&f), buf, len) == 0);
	CHECK_ST(sbf_add_hashes(&f, &same, 1), SBF_OK);
	CHECK(f.len == len && memcmp(SBF_PAYLOAD(&f), buf, len) == 0);
	CHECK_ST(sbf_add_hash(&f, higher, NULL), SBF_OK);
	sbf_filter_view(&f, &v);
	CHECK(sbf_is_compact(&v) && v.nfp == 1000 && f.len == len);
	CHECK(sbf_compact_view_keeps(&v, higher));
	CHECK_ST(sbf_convert(&f), SBF_OK);
	sbf_filter_view(&f, &v);
	CHECK(!sbf_is_compact(&v) && v.version == SBF_FORMAT_V5);
	sbf_hll_unpack(v.buf + v.hll_offset, v.hll_bytes,
				   (v.flags & SBF_FLAG_HLL_DENSE) != 0, v.hll_p, regs);
	CHECK(regs[listed] == rk.rank[listed] + 1);
	{
		uint8_t		own[NREG];

		own_registers(h, 1000, own);
		own[listed] = (uint8_t) (rk.rank[listed] + 1);
		CHECK(memcmp(regs, own, NREG) == 0);
	}
	sbf_filter_free(&f);
	free(buf);
	free(h);
}

int
main(void)
{
	RUN(ranks_complete_hll);
	RUN(ranks_writer_refuses);
	RUN(ranks_validator_refuses);
	RUN(ranks_adds);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
