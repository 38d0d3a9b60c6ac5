/*
 * fuzz_validate.c
 *	  libFuzzer target for sbf_validate.  Inputs that validate are then driven
 *	  through every read and write operation, checking the invariants: the
 *	  results validate again, errors leave filters unchanged, there are no
 *	  false negatives, and the text form round-trips.
 */
#include <math.h>
#include <string.h>

#include "fuzz_common.h"
#include "sbf_plan.h"

#define NPROBES		16

/* Checks that a mutable filter's payload validates; returns its view. */
static void
check_filter(const SbfFilter *f, SbfView *v)
{
	SbfStatus	st = sbf_validate(SBF_PAYLOAD(f), f->len, v);

	if (st != SBF_OK)
		fprintf(stderr, "filter does not validate: %s\n", sbf_status_message(st));
	FUZZ_ASSERT(st == SBF_OK);
}

/* Checks the read-only queries of a valid view. */
static void
check_queries(const SbfView *v)
{
	double		c = sbf_cardinality(v);
	double		fpr = sbf_current_fpr(v);
	double		bound = sbf_fpr_bound(v);
	double		budget = sbf_fpr_budget(v);
	uint32_t	i;

	FUZZ_ASSERT(c >= 0.0 && !isnan(c));
	FUZZ_ASSERT(fpr >= 0.0 && fpr <= 1.0);
	/* a tiny segment error may sum to 0 */
	FUZZ_ASSERT(bound >= 0.0 && bound <= 1.0);
	/* RATE BOUND: at least the stored rates' sum */
	FUZZ_ASSERT(budget >= 0.0 && bound >= budget);
	for (i = 0; i < v->nsegments; i++)
	{
		SbfSegment	seg;
		double		fill = sbf_segment_fill(v, i);

		sbf_get_segment(v, i, &seg);
		FUZZ_ASSERT(seg.words_offset >= v->bits_offset);
		FUZZ_ASSERT(seg.words_offset < v->hll_offset);
		FUZZ_ASSERT(fill >= 0.0 && fill <= 1.0);
	}
}

/* Runs an operation's aftermath: valid, and unchanged if it failed. */
static void
check_after(const SbfFilter *f, SbfStatus st, const uint8_t *before, size_t blen)
{
	SbfView		v;

	check_filter(f, &v);
	if (st != SBF_OK)
	{
		FUZZ_ASSERT(st == SBF_E_TOO_LARGE || st == SBF_E_TOO_MANY_SEGMENTS ||
					st == SBF_E_NOMEM);
		FUZZ_ASSERT(f->len == blen && memcmp(SBF_PAYLOAD(f), before, blen) == 0);
	}
}

/*
 * The lookup plan (sbf_plan.h) of any input: whatever it accepts is probed
 * (it checks ranges and lengths only, so this is where an out-of-range probe
 * would show); for an input that validates it must exist and answer as the
 * view readers.  v is the input's view when valid (plain form), else NULL.
 */
static void
check_plan(const uint8_t *data, size_t size, const SbfView *v)
{
	SbfPlan    *p = NULL;
	SbfStatus	st = sbf_plan_build(data, size, &fuzz_allocator, &p);
	uint64_t	h[NPROBES];
	size_t		want = 0;
	int			i;

	if (v != NULL)
		FUZZ_ASSERT(st == SBF_OK || st == SBF_E_NOMEM);
	if (st != SBF_OK)
	{
		FUZZ_ASSERT(p == NULL);
		return;
	}
	FUZZ_ASSERT(sbf_plan_matches(p, data, size));
	for (i = 0; i < NPROBES; i++)
	{
		h[i] = sbf_hash(data, (size_t) i * size / NPROBES) ^ (uint64_t) (i * 7);
		if (v != NULL)
		{
			bool		in = sbf_contains_hash(v, h[i]);

			FUZZ_ASSERT(sbf_plan_contains(p, h[i]) == in);
			want += in;
		}
		else
			(void) sbf_plan_contains(p, h[i]);
	}
	if (v != NULL)
		FUZZ_ASSERT(sbf_plan_count(p, h, NPROBES) == want);
	else
		(void) sbf_plan_count(p, h, NPROBES);
	if (sbf_plan_windowed(p))
		(void) sbf_plan_count_since(p, h, NPROBES, 0);
	sbf_plan_free(p, &fuzz_allocator);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	SbfView		v;
	SbfView		pv;
	SbfView		fv;
	SbfFilter	f;
	SbfStatus	st;
	uint64_t	probes[NPROBES];
	bool		present[NPROBES];
	bool		added[NPROBES];
	uint8_t    *snap;
	char	   *text;
	uint8_t    *decoded;
	size_t		dlen;
	int			i;

	st = sbf_validate(data, size, &v);
	check_plan(data, size, st == SBF_OK && !sbf_view_windowed(&v) ? &v : NULL);
	/* the windowed form (version 3, or 4 WINDOWED) has its own readers */
	if (st == SBF_OK && sbf_view_windowed(&v))
	{
		fuzz_check_window(data, size);
		return 0;
	}
	if (size >= SBF_HEADER_BYTES || sbf_bytes_compact(data, size))
	{
		/* prefix parsing must not crash either, and agree when valid */
		SbfStatus	pst = sbf_parse_prefix(data, size, size, &pv);

		if (st == SBF_OK)
			FUZZ_ASSERT(pst == SBF_OK);
	}
	if (st != SBF_OK)
		return 0;

	/* the compact form is read whole */
	FUZZ_ASSERT(sbf_parse_prefix(data, sbf_is_exact(&v) ? SBF_EXACT_HEADER_BYTES :
								 sbf_is_compact(&v) ? size :
								 sbf_prefix_size(v.nsegments), size, &pv) == SBF_OK);
	FUZZ_ASSERT(pv.bits_offset == v.bits_offset && pv.hll_offset == v.hll_offset);
	check_queries(&v);

	for (i = 0; i < NPROBES; i++)
	{
		probes[i] = sbf_hash(data, (size_t) i * size / NPROBES) ^ (uint64_t) i;
		present[i] = sbf_contains_hash(&v, probes[i]);
		added[i] = false;
	}

	/* text form round trip */
	text = malloc(sbf_text_size(size) + 1);
	sbf_text_encode(data, size, text);
	FUZZ_ASSERT(strlen(text) == sbf_text_size(size));
	decoded = malloc(sbf_text_decoded_max(strlen(text)) + 1);
	FUZZ_ASSERT(sbf_text_decode(text, strlen(text), decoded, &dlen));
	FUZZ_ASSERT(dlen == size && memcmp(decoded, data, size) == 0);
	free(decoded);
	free(text);

	/* copy, then add */
	st = sbf_copy(&f, &v, 4, 64, &fuzz_allocator);
	if (st != SBF_OK)
	{
		FUZZ_ASSERT(st == SBF_E_NOMEM);
		return 0;
	}
	FUZZ_ASSERT(f.len == size && memcmp(SBF_PAYLOAD(&f), data, size) == 0);
	for (i = 0; i < NPROBES; i++)
	{
		size_t		blen = f.len;
		bool		inserted = false;

		snap = malloc(blen);
		memcpy(snap, SBF_PAYLOAD(&f), blen);
		if (i % 4 == 3)
			st = sbf_hll_add_hash(&f, probes[i]);
		else
			st = sbf_add_hash(&f, probes[i], &inserted);
		check_after(&f, st, snap, blen);
		free(snap);
		if (st == SBF_OK && i % 4 != 3)
		{
			added[i] = true;
			sbf_filter_view(&f, &fv);
			FUZZ_ASSERT(sbf_contains_hash(&fv, probes[i]));
		}
	}

	/* union with the original, then with itself through its own buffer */
	for (i = 0; i < 2; i++)
	{
		size_t		blen = f.len;
		int			j;

		snap = malloc(blen);
		memcpy(snap, SBF_PAYLOAD(&f), blen);
		if (i == 0)
			st = sbf_union(&f, &v);
		else
		{
			sbf_filter_view(&f, &fv);
			st = sbf_union(&f, &fv);
		}
		check_after(&f, st, snap, blen);
		free(snap);
		sbf_filter_view(&f, &fv);
		check_queries(&fv);
		for (j = 0; j < NPROBES; j++)
			if (added[j] || present[j])
				FUZZ_ASSERT(sbf_contains_hash(&fv, probes[j]));
	}
	sbf_filter_free(&f);

	/* sbf_delta of the value is an empty exact filter */
	st = sbf_delta(&f, &v, 4, &fuzz_allocator);
	if (st == SBF_OK)
	{
		check_filter(&f, &fv);
		FUZZ_ASSERT(sbf_is_exact(&fv) && fv.nhashes == 0);
		sbf_filter_free(&f);
	}
	else
		FUZZ_ASSERT(st == SBF_E_TOO_LARGE || st == SBF_E_TOO_MANY_SEGMENTS ||
					st == SBF_E_NOMEM);

	/* an exact value converts to segments that hold every hash */
	if (sbf_is_exact(&v) && sbf_copy(&f, &v, 4, 0, &fuzz_allocator) == SBF_OK)
	{
		st = sbf_convert(&f);
		if (st == SBF_OK)
		{
			uint32_t	k;

			check_filter(&f, &fv);
			FUZZ_ASSERT(!sbf_is_exact(&fv));
			for (k = 0; k < v.nhashes; k++)
				FUZZ_ASSERT(sbf_contains_hash(&fv, sbf_exact_hash(&v, k)));
		}
		else
			FUZZ_ASSERT(st == SBF_E_TOO_LARGE || st == SBF_E_TOO_MANY_SEGMENTS ||
						st == SBF_E_NOMEM);
		sbf_filter_free(&f);
	}
	/* a compact value's segmented form answers every probe as it does */
	if (sbf_is_compact(&v) && sbf_copy(&f, &v, 4, 0, &fuzz_allocator) == SBF_OK)
	{
		st = sbf_convert(&f);
		if (st == SBF_OK)
		{
			check_filter(&f, &fv);
			FUZZ_ASSERT(!sbf_is_compact(&fv) && fv.version == SBF_FORMAT_V5);
			for (i = 0; i < NPROBES; i++)
				FUZZ_ASSERT(sbf_contains_hash(&fv, probes[i]) == present[i]);
		}
		else
			FUZZ_ASSERT(st == SBF_E_TOO_LARGE || st == SBF_E_NOMEM);
		sbf_filter_free(&f);
	}
	FUZZ_ASSERT(fuzz_live == 0);
	return 0;
}
