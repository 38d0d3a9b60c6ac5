/*
 * test_limits.c
 *	  Unit tests of the size limits: absurd sizes fail before any large allocation, the
 *	  arithmetic of the largest value, error_rate underflow, out of memory
 *	  (sbf_filter.c, sbf_format.c).  Prints "ok - name" or "not ok - name" per case and one final
 *	  "N passed, N failed" line; exits non-zero on failure.  Everything is
 *	  deterministic: keys come from fixed sequences.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_union.h"
#include "sbf_hashset.h"
#include "sbf_internal.h"

#include "unit_check.h"
#include "unit_alloc.h"
#include "unit_core.h"

/* Absurd sizes fail with TOO_LARGE before any big allocation. */
static void
too_large(void)
{
	SbfParams	p = params(UINT64_C(1) << 62, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	uint8_t    *before;
	size_t		blen;
	uint64_t	i;

	reset_counts(SIZE_MAX);
	CHECK_ST(seg_create(&f, &p, 4, &g_alloc), SBF_E_TOO_LARGE);
	CHECK(f.base == NULL);
	/* m fits SBF_MAX_SEGMENT_BITS but the payload does not fit */
	p.capacity = UINT64_C(4504094200);
	p.error_rate = 0.4;
	p.tightening = 1.0;
	CHECK_ST(seg_create(&f, &p, 4, &g_alloc), SBF_E_TOO_LARGE);
	{
		uint64_t	m;
		uint32_t	k;

		CHECK(sbf_segment_geometry(p.capacity, 0.4, SBF_MAX_SEGMENT_BITS, &m, &k));
	}
	CHECK_ST(seg_create_sized(&f, &p, UINT64_MAX, 4, &g_alloc), SBF_E_TOO_LARGE);
	CHECK(g_calls == 0);

	/*
	 * an appended segment that cannot be sized: P_2 underflows to 0, so the
	 * chain of segments is at its end
	 */
	p = params(1, 0.01, 1, 1e-300, 9);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, key(0, 0), NULL), SBF_OK);
	CHECK_ST(sbf_add_hash(&f, key(0, 1), NULL), SBF_OK);
	blen = f.len;
	before = malloc(blen);
	memcpy(before, SBF_PAYLOAD(&f), blen);
	reset_counts(SIZE_MAX);
	CHECK_ST(sbf_add_hash(&f, key(0, 2), NULL), SBF_E_TOO_MANY_SEGMENTS);
	CHECK(g_calls == 0);
	CHECK(f.len == blen && memcmp(before, SBF_PAYLOAD(&f), blen) == 0);
	free(before);
	sbf_filter_free(&f);

	/* an appended segment bigger than the payload limit */
	p = params(1, 0.4, 16, 1.0, 9);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	{
		/* a full segment 0 of huge capacity: s times it is too big */
		uint8_t    *buf = SBF_PAYLOAD(&f);

		sbf_store64(buf + SBF_SEGDIR_OFFSET(0) + SBF_SEG_CAPACITY, 300000000);
		sbf_store64(buf + SBF_SEGDIR_OFFSET(0) + SBF_SEG_COUNT, 300000000);
		/* the initial capacity too: growth continues from min(largest, c) */
		sbf_store64(buf + 28, 300000000);
	}
	/*
	 * no writer gives 300,000,000 elements a few bits (the validator refuses
	 * that geometry since 1.4); the add still refuses to grow it past the
	 * limit and leaves it as it was
	 */
	CHECK_ST(validate_filter(&f, &v), SBF_E_SEGMENT);
	blen = f.len;
	before = malloc(blen);
	memcpy(before, SBF_PAYLOAD(&f), blen);
	reset_counts(SIZE_MAX);
	CHECK_ST(sbf_add_hash(&f, key(0, 1), NULL), SBF_E_TOO_LARGE);
	CHECK(g_calls == 0);
	CHECK(f.len == blen && memcmp(before, SBF_PAYLOAD(&f), blen) == 0);
	free(before);
	sbf_filter_free(&f);

	/*
	 * too many segments: union full four-element filters (capacity 4, growth
	 * 1) into f until it has the maximum number of segments; two full
	 * segments of different elements OR to a fill past the design load, so
	 * each is appended (while f UNION f = f)
	 */
	p = params(4, 0.001, 1, 1.0, 4);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	add_keys(&f, 5, 0, 4);
	for (i = 1; i < SBF_MAX_SEGMENTS; i++)
	{
		SbfFilter	g;
		SbfView		vg;

		CHECK_ST(seg_create(&g, &p, 0, &g_alloc), SBF_OK);
		add_keys(&g, 5, 4 * i, 4 * i + 4);
		sbf_filter_view(&g, &vg);
		CHECK_ST(sbf_union(&f, &vg), SBF_OK);
		sbf_filter_free(&g);
	}
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	CHECK(v.nsegments == SBF_MAX_SEGMENTS);
	blen = f.len;
	before = malloc(blen);
	memcpy(before, SBF_PAYLOAD(&f), blen);
	{
		SbfFilter	g;
		SbfView		vg;

		/* one more segment by union is refused, f unchanged */
		CHECK_ST(seg_create(&g, &p, 0, &g_alloc), SBF_OK);
		add_keys(&g, 6, 0, 4);
		sbf_filter_view(&g, &vg);
		CHECK_ST(sbf_union(&f, &vg), SBF_E_TOO_MANY_SEGMENTS);
		sbf_filter_free(&g);
		CHECK(f.len == blen && memcmp(before, SBF_PAYLOAD(&f), blen) == 0);
		/*
		 * and so is one more segment by an add: 4096 small segments answer
		 * "present" for many keys, so clear their bits first (still a valid
		 * value: every segment stays full by its count)
		 */
		memset(SBF_PAYLOAD(&f) + v.bits_offset, 0, v.hll_offset - v.bits_offset);
		for (i = 0; i < SBF_MAX_SEGMENTS; i++)
			sbf_store64(SBF_PAYLOAD(&f) + SBF_SEGDIR_OFFSET(i) + SBF_SEG_COUNT, 4);
		memcpy(before, SBF_PAYLOAD(&f), blen);
		CHECK(!sbf_contains_hash(&v, key(7, 0)));
		CHECK_ST(sbf_add_hash(&f, key(7, 0), NULL), SBF_E_TOO_MANY_SEGMENTS);
	}
	CHECK(f.len == blen && memcmp(before, SBF_PAYLOAD(&f), blen) == 0);
	/*
	 * an element already present still only updates the HyperLogLog: set
	 * every bit of segment 0 (m = 58: one word), then anything is present
	 */
	{
		SbfSegment	s0;

		sbf_get_segment(&v, 0, &s0);
		CHECK(s0.nbits == 58);
		memset(SBF_PAYLOAD(&f) + s0.words_offset, 0xff, 7);
		SBF_PAYLOAD(&f)[s0.words_offset + 7] = 0x03;
		CHECK(sbf_contains_hash(&v, key(8, 0)));
		CHECK_ST(sbf_add_hash(&f, key(8, 0), NULL), SBF_OK);
	}
	free(before);
	sbf_filter_free(&f);
	reset_counts(SIZE_MAX);
	CHECK(g_live == 0);
}

/*
 * The payload limit is the largest payload whose text form fits in
 * SBF_MAX_TEXT_CHARS, and that text, its NUL and a text varlena header fit in
 * one PostgreSQL allocation.
 */
static void
limit_arithmetic(void)
{
	CHECK(sbf_text_size(SBF_MAX_BYTES) <= SBF_MAX_TEXT_CHARS);
	CHECK(sbf_text_size(SBF_MAX_BYTES + 1) > SBF_MAX_TEXT_CHARS);
	/* the headroom holds the NUL, a text varlena header and the rest of a row */
	CHECK(sbf_text_size(SBF_MAX_BYTES) + SBF_TEXT_HEADROOM <= SBF_ALLOC_LIMIT);
	CHECK(SBF_ALLOC_LIMIT - sbf_text_size(SBF_MAX_BYTES) > 1 + 4 + 1000000);
	/* whole base64 groups: the longest text form has no padding */
	CHECK(SBF_MAX_BYTES % 3 == 0);
	CHECK(SBF_MAX_BYTES == 804519930);
	CHECK(SBF_MAX_BYTES < SBF_MAX_STORED_BYTES);
	CHECK(SBF_MAX_STORED_BYTES + 4 == SBF_ALLOC_LIMIT);
	/* the decoder's bound agrees: the longest text decodes within the limit */
	CHECK(sbf_text_decoded_max(SBF_MAX_TEXT_CHARS) <= SBF_MAX_BYTES);
	CHECK(sbf_text_decoded_max(sbf_text_size(SBF_MAX_BYTES)) == SBF_MAX_BYTES);
	/* 1.0's example: 838,692,692 bytes, created by 1.0, is past the limit */
	{
		uint64_t	m;
		uint32_t	k;

		CHECK(sbf_segment_geometry(700000000, 0.01, SBF_MAX_SEGMENT_BITS, &m, &k));
		CHECK(sbf_payload_size(1, &m, 0) == SIZE_MAX);
		CHECK(SBF_HEADER_BYTES + SBF_SEGDIR_BYTES + (m + 63) / 64 * 8 == 838692692);
	}
}

/* Payload of an empty filter whose one segment is built for n at error p. */
static size_t
one_segment_size(uint64_t n, double p)
{
	uint64_t	m;
	uint32_t	k;

	if (!sbf_segment_geometry(n, p, SBF_MAX_SEGMENT_BITS, &m, &k))
		return SIZE_MAX;
	return sbf_payload_size(1, &m, 0);
}

/*
 * The largest capacity whose first segment fits is accepted (asking the
 * allocator, which refuses anything large here, for at most the limit) and
 * one more is refused with TOO_LARGE before any allocation; likewise for
 * right-sized segments.  (A filter that starts small and allocates its first
 * segment later passes with SBF_OK.)
 */
static void
limit_create_boundary(void)
{
	SbfParams	p = params(1, 0.01, 2, 0.9, 9);
	double		pe = sbf_next_error(0.01, 0.9, 0.0, 0.0);
	uint64_t	lo = 1;
	uint64_t	hi = UINT64_C(1) << 33;
	SbfFilter	f;
	SbfStatus	st;

	/* the largest n with a payload <= SBF_MAX_BYTES */
	CHECK(one_segment_size(hi, pe) == SIZE_MAX);
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (one_segment_size(mid, pe) <= SBF_MAX_BYTES)
			lo = mid;
		else
			hi = mid;
	}
	printf("# largest sbf_empty capacity at error_rate 0.01: %" PRIu64 " (%zu bytes)\n",
		   lo, one_segment_size(lo, pe));
	CHECK(one_segment_size(lo, pe) > SBF_MAX_BYTES - 64);

	p.capacity = lo;
	reset_counts(4096);
	st = sbf_create(&f, &p, 4, &g_alloc);
	CHECK(st == SBF_E_NOMEM || st == SBF_OK);
	if (st == SBF_E_NOMEM)
		CHECK(g_largest == 4 + one_segment_size(lo, pe));
	else
		sbf_filter_free(&f);
	CHECK(g_largest <= 4 + SBF_MAX_BYTES);
	p.capacity = lo + 1;
	reset_counts(4096);
	CHECK_ST(sbf_create(&f, &p, 4, &g_alloc), SBF_E_TOO_LARGE);
	CHECK(g_largest <= 4096);

	/* the aggregate's right-sized first segment */
	pe = sbf_sized_error(0.01, 0.9);
	lo = 1;
	hi = UINT64_C(1) << 33;
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (one_segment_size(mid, pe) <= SBF_MAX_BYTES)
			lo = mid;
		else
			hi = mid;
	}
	p.capacity = 1000;
	reset_counts(4096);
	CHECK_ST(sbf_create_sized(&f, &p, lo, 4, &g_alloc), SBF_E_NOMEM);
	CHECK(g_largest > 4096 && g_largest <= 4 + SBF_MAX_BYTES);
	reset_counts(4096);
	CHECK_ST(sbf_create_sized(&f, &p, lo + 1, 4, &g_alloc), SBF_E_TOO_LARGE);
	CHECK(g_largest <= 4096);
	reset_counts(SIZE_MAX);
}

/*
 * Values stored by 1.0 up to the varlena limit still read (sbf_parse_prefix),
 * but neither come in again (sbf_validate) nor grow (sbf_copy): TOO_LARGE,
 * decided from the length alone.
 */
static void
limit_stored_values(void)
{
	uint8_t		buf[SBF_HEADER_BYTES + SBF_SEGDIR_BYTES];
	uint8_t    *e = buf + SBF_HEADER_BYTES;
	SbfFilter	g;
	SbfView		v;
	uint64_t	nbits;
	size_t		total;

	/*
	 * header and directory of a format-1 value (what 1.0 wrote) with one
	 * empty segment whose bits make the payload fall between the two limits
	 */
	memset(buf, 0, sizeof(buf));
	buf[SBF_OFF_VERSION] = 1;
	buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
	buf[SBF_OFF_HLL_P] = 9;
	sbf_store16(buf + SBF_OFF_GROWTH, 2);
	sbf_store16(buf + SBF_OFF_NSEGMENTS, 1);
	sbf_store_double(buf + SBF_OFF_ERROR_RATE, 0.01);
	sbf_store_double(buf + SBF_OFF_TIGHTENING, 0.9);
	sbf_store64(buf + SBF_OFF_CAPACITY, 1000);
	nbits = (uint64_t) (SBF_MAX_STORED_BYTES - sizeof(buf)) / 8 * 64;
	sbf_store64(e + SBF_SEG_CAPACITY, 1000);
	sbf_store64(e + SBF_SEG_NBITS, nbits);
	sbf_store_double(e + SBF_SEG_ERROR, 0.001);
	sbf_store16(e + SBF_SEG_K, 10);
	total = sizeof(buf) + (size_t) (nbits / 8);
	CHECK(total > SBF_MAX_BYTES && total <= SBF_MAX_STORED_BYTES);
	CHECK_ST(sbf_parse_prefix(buf, sizeof(buf), total, &v), SBF_OK);
	CHECK(v.len == total);
	CHECK_ST(sbf_parse_prefix(buf, sizeof(buf), SBF_MAX_STORED_BYTES + 1, &v),
			 SBF_E_LENGTH);
	/* the length alone decides: nothing past the real buffer is read */
	CHECK_ST(sbf_validate(buf, total, &v), SBF_E_TOO_LARGE);
	CHECK_ST(sbf_validate(buf, SBF_MAX_BYTES + 1, &v), SBF_E_TOO_LARGE);
	/* growing it: refused before any allocation (the view covers the prefix) */
	CHECK_ST(sbf_parse_prefix(buf, sizeof(buf), total, &v), SBF_OK);
	reset_counts(SIZE_MAX);
	CHECK_ST(sbf_copy(&g, &v, 4, 64, &g_alloc), SBF_E_TOO_LARGE);
	CHECK(g_calls == 0);
}

/*
 * error_rates whose first segment's rate underflows are parameter errors at
 * creation, and sbf_min_error_rate is exactly the smallest accepted; values
 * stored with such rates still pass sbf_params_check.  A chain whose rates
 * tighten to underflow ends with TOO_MANY_SEGMENTS.
 */
static void
error_underflow(void)
{
	static const double rs[] = {1.0, 0.999999, 0.9, 0.5, 1e-9, 1e-300};
	SbfParams	p = params(1, 5e-324, 2, 0.9, 9);
	SbfFilter	f;
	SbfView		v;
	size_t		i;
	SbfStatus	st = SBF_OK;
	uint32_t	n;

	CHECK_ST(sbf_params_check(&p), SBF_OK);
	CHECK_ST(sbf_params_check_create(&p), SBF_E_PARAM);
	p.tightening = 1.0;
	CHECK_ST(sbf_params_check_create(&p), SBF_E_PARAM);
	p.error_rate = DBL_MIN;
	CHECK_ST(sbf_params_check_create(&p), SBF_OK);
	p = params(1, 1e-300, 2, 0.9, 9);
	CHECK_ST(sbf_params_check_create(&p), SBF_E_PARAM);	/* e^1.04 underflows */
	p.tightening = 1.0;
	CHECK_ST(sbf_params_check_create(&p), SBF_OK);
	p = params(0, 0.01, 2, 0.9, 9);
	CHECK_ST(sbf_params_check_create(&p), SBF_E_PARAM);	/* still the range checks */

	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++)
	{
		double		min = sbf_min_error_rate(rs[i]);

		p = params(1, min, 2, rs[i], 9);
		CHECK_ST(sbf_params_check_create(&p), SBF_OK);
		CHECK(sbf_next_error(min, rs[i], 0.0, 0.0) >= SBF_MIN_SEGMENT_ERROR);
		CHECK(sbf_sized_error(min, rs[i]) >= SBF_MIN_SEGMENT_ERROR);
		p.error_rate = nextafter(min, 0.0);
		CHECK_ST(sbf_params_check_create(&p), SBF_E_PARAM);
		printf("# smallest error_rate with tightening %g: %.17g\n", rs[i], min);
	}
	CHECK(sbf_min_error_rate(1.0) == DBL_MIN);
	CHECK(sbf_min_error_rate(0.9) > 1e-297 && sbf_min_error_rate(0.9) < 1e-295);

	/*
	 * capacity 1, growth 1, tightening 1e-100: one segment per element; the
	 * first takes the whole budget (e(1 - r) rounds to e), so each next one
	 * gets r times the smallest rate: 1e-102, 1e-202, 1e-302, and then
	 * 1e-402 would be below SBF_MIN_SEGMENT_ERROR: the chain ends at four
	 * segments.  The value is written by hand, as 1.0 stored it (format 1,
	 * four full one-word segments, empty HyperLogLog), so that the add must
	 * append a segment; the refused add changes nothing.
	 */
	{
		static const double errs[] = {0.01, 1e-102, 1e-202, 1e-302};
		uint64_t	m[4];
		uint32_t	k[4];
		size_t		len = SBF_HEADER_BYTES + 4 * SBF_SEGDIR_BYTES;
		uint8_t    *buf;
		uint32_t	j;

		/* each segment as SIZING gives it for one element at its rate (full by its count) */
		for (j = 0; j < 4; j++)
		{
			CHECK(sbf_segment_geometry(1, errs[j], SBF_MAX_SEGMENT_BITS, &m[j], &k[j]));
			len += sbf_words_bytes(m[j]);
		}
		buf = calloc(1, len);
		buf[SBF_OFF_VERSION] = 1;
		buf[SBF_OFF_HASH] = SBF_HASH_XXH3;
		buf[SBF_OFF_HLL_P] = 9;
		sbf_store16(buf + SBF_OFF_GROWTH, 1);
		sbf_store16(buf + SBF_OFF_NSEGMENTS, 4);
		sbf_store_double(buf + SBF_OFF_ERROR_RATE, 0.01);
		sbf_store_double(buf + SBF_OFF_TIGHTENING, 1e-100);
		sbf_store64(buf + SBF_OFF_CAPACITY, 1);
		for (j = 0; j < 4; j++)
		{
			uint8_t    *e = buf + SBF_SEGDIR_OFFSET(j);

			sbf_store64(e + SBF_SEG_CAPACITY, 1);
			sbf_store64(e + SBF_SEG_COUNT, 1);
			sbf_store64(e + SBF_SEG_NBITS, m[j]);
			sbf_store_double(e + SBF_SEG_ERROR, errs[j]);
			sbf_store16(e + SBF_SEG_K, (uint16_t) k[j]);
		}
		CHECK_ST(sbf_validate(buf, len, &v), SBF_OK);
		CHECK_ST(sbf_copy(&f, &v, 0, 4096, &g_alloc), SBF_OK);
		for (n = 0; n < 100 && st == SBF_OK; n++)
			st = sbf_add_hash(&f, key(0, n), NULL);
		CHECK(n == 1);
		CHECK_ST(st, SBF_E_TOO_MANY_SEGMENTS);
		CHECK_ST(validate_filter(&f, &v), SBF_OK);
		CHECK(v.nsegments == 4 && f.len == len);
		sbf_filter_free(&f);
		free(buf);
	}
}

/* Allocator failures leave the filter valid and unchanged. */
static void
out_of_memory(void)
{
	SbfParams	p = params(10, 0.01, 2, 0.9, 9);
	SbfFilter	f;
	SbfFilter	g;
	SbfView		v;
	uint8_t    *before;
	size_t		blen;
	uint64_t	i;
	int			failures = 0;

	reset_counts(0);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_E_NOMEM);
	reset_counts(SIZE_MAX);
	CHECK_ST(seg_create(&f, &p, 0, &g_alloc), SBF_OK);
	CHECK_ST(seg_create(&g, &p, 0, &g_alloc), SBF_OK);
	add_keys(&g, 1, 0, 50);
	for (i = 0; i < 300; i++)
	{
		SbfStatus	st;

		blen = f.len;
		before = malloc(blen);
		memcpy(before, SBF_PAYLOAD(&f), blen);
		reset_counts(f.cap);	/* any growth fails */
		st = sbf_add_hash(&f, key(0, i), NULL);
		if (st == SBF_E_NOMEM)
		{
			failures++;
			CHECK(f.len == blen && memcmp(before, SBF_PAYLOAD(&f), blen) == 0);
			reset_counts(SIZE_MAX);
			CHECK_ST(sbf_add_hash(&f, key(0, i), NULL), SBF_OK);
		}
		else
			CHECK_ST(st, SBF_OK);
		free(before);
	}
	CHECK(failures > 0);
	CHECK_ST(validate_filter(&g, &v), SBF_OK);
	reset_counts(0);
	CHECK_ST(sbf_union(&f, &v), SBF_E_NOMEM);
	reset_counts(SIZE_MAX);
	CHECK_ST(validate_filter(&f, &v), SBF_OK);
	sbf_filter_free(&g);
	sbf_filter_free(&f);
	CHECK(g_live == 0);
}

/*
 * A right-sized filter of 1 MB and more is filled by streamed adds (what
 * sbf_agg's spilled final does) without growing its buffer: it was made with
 * room for its dense HyperLogLog, so no realloc copies it at the end of a
 * build (a chunk hinted for huge pages cannot be remapped).
 */
static void
sized_fills_in_place(void)
{
	SbfParams	p = {SBF_DEFAULT_CAPACITY, SBF_DEFAULT_ERROR_RATE,
	SBF_DEFAULT_TIGHTENING, SBF_DEFAULT_GROWTH, SBF_HLL_P_DEFAULT};
	SbfFilter	f;
	uint64_t	n = 1000000;
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t	i;
	size_t		cap;

	for (i = 0; i < n; i++)
		h[i] = key(21, i);
	reset_counts(SIZE_MAX);
	CHECK_ST(sbf_create_sized(&f, &p, n, 4, &g_alloc), SBF_OK);
	cap = f.cap;
	CHECK(f.len >= ((size_t) 1 << 20));
	for (i = 0; i < n; i += 16384)
		CHECK_ST(sbf_add_hashes(&f, h + i, n - i < 16384 ? n - i : 16384), SBF_OK);
	CHECK(f.cap == cap);
	sbf_filter_free(&f);
	free(h);
}

int
main(void)
{
	RUN_V2(too_large);
	RUN(limit_arithmetic);
	RUN_V2(limit_create_boundary);
	RUN(limit_stored_values);
	RUN(error_underflow);
	RUN(out_of_memory);
	RUN(sized_fills_in_place);
	RUN(no_leaks);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
