/*
 * fuzz_ops.c
 *	  libFuzzer target driving the writer: the input chooses the parameters
 *	  of two filters and a sequence of adds and unions.  After every step
 *	  both filters must validate, failed steps must leave them unchanged, and
 *	  no element ever added may go missing; a UNION b must give the bytes of
 *	  b UNION a, and a budget-checked union must keep fpr_bound within the
 *	  error_rate.
 */
#include <string.h>

#include "fuzz_common.h"

#define MAX_KEYS	1024
#define MAX_STEPS	64

typedef struct Tracked
{
	SbfFilter	f;
	uint64_t	keys[MAX_KEYS];
	int			nkeys;
} Tracked;

static const double error_rates[] = {0.4, 0.1, 0.01, 1e-4, 1e-9};
static const double tightenings[] = {1.0, 0.9, 0.5, 0.1, 1e-6};

/* Next input byte, or 0 when the input is used up. */
static uint8_t
next_byte(const uint8_t **data, size_t *size)
{
	uint8_t		b = 0;

	if (*size > 0)
	{
		b = **data;
		(*data)++;
		(*size)--;
	}
	return b;
}

/* Validates t's filter and checks the tracked keys from index from on. */
static void
check_tracked(const Tracked *t, int from)
{
	SbfView		v;
	int			i;

	FUZZ_ASSERT(sbf_validate(SBF_PAYLOAD(&t->f), t->f.len, &v) == SBF_OK);
	for (i = from; i < t->nkeys; i++)
		FUZZ_ASSERT(sbf_contains_hash(&v, t->keys[i]));
	/* the batched lookup finds every tracked key too */
	if (from < t->nkeys)
		FUZZ_ASSERT(sbf_count_contained(&v, t->keys + from, (size_t) (t->nkeys - from)) ==
					(size_t) (t->nkeys - from));
}

/* Records that key h is in t (if there is room to remember it). */
static void
track(Tracked *t, uint64_t h)
{
	if (t->nkeys < MAX_KEYS)
		t->keys[t->nkeys++] = h;
}

/* Adds keys of src's list to dst's after a successful union. */
static void
track_all(Tracked *dst, const Tracked *src)
{
	int			i;
	int			n = src->nkeys;

	for (i = 0; i < n; i++)
		track(dst, src->keys[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static Tracked t[2];
	SbfParams	p[2];
	int			i;
	int			steps = 0;
	int			self_unions = 0;

	for (i = 0; i < 2; i++)
	{
		p[i].capacity = 1 + next_byte(&data, &size) % 64;
		p[i].error_rate = error_rates[next_byte(&data, &size) % 5];
		p[i].growth = 1 + next_byte(&data, &size) % SBF_MAX_GROWTH;
		p[i].tightening = tightenings[next_byte(&data, &size) % 5];
		p[i].hll_p = SBF_HLL_P_MIN +
			next_byte(&data, &size) % (SBF_HLL_P_MAX - SBF_HLL_P_MIN + 1);
		t[i].nkeys = 0;
	}
	/* usually compatible: the second filter copies e, r and s */
	if (next_byte(&data, &size) % 8 != 0)
	{
		p[1].error_rate = p[0].error_rate;
		p[1].tightening = p[0].tightening;
		p[1].growth = p[0].growth;
	}
	for (i = 0; i < 2; i++)
		FUZZ_ASSERT(sbf_create(&t[i].f, &p[i], 4, &fuzz_allocator) == SBF_OK);

	while (size > 0 && steps++ < MAX_STEPS)
	{
		uint8_t		op = next_byte(&data, &size);
		Tracked    *a = &t[op & 1];
		Tracked    *b = &t[(op & 1) ^ 1];
		uint8_t    *snap = malloc(a->f.len);
		size_t		blen = a->f.len;
		int			nbefore = a->nkeys;
		SbfStatus	st;
		SbfView		v;

		memcpy(snap, SBF_PAYLOAD(&a->f), blen);
		switch ((op >> 1) % 8)
		{
			case 3:
				{
					/* a run of keys (with repeats) through the batch add */
					int			n = 1 + next_byte(&data, &size) % 64;
					uint64_t	base = (uint64_t) next_byte(&data, &size) << 16;
					uint64_t	hs[64];
					int			j;

					for (j = 0; j < n; j++)
						hs[j] = sbf_hash_int64((int64_t) (base + (uint64_t) (j % 48)));
					st = sbf_add_hashes(&a->f, hs, (size_t) n);
					if (st == SBF_OK)
						for (j = 0; j < n; j++)
							track(a, hs[j]);
					else
						FUZZ_ASSERT(st == SBF_E_TOO_LARGE ||
									st == SBF_E_TOO_MANY_SEGMENTS ||
									st == SBF_E_NOMEM);
					break;
				}
			case 0:
			case 1:
			case 2:
				{
					/* a run of distinct keys */
					int			n = 1 + next_byte(&data, &size) % 64;
					uint64_t	base = (uint64_t) next_byte(&data, &size) << 16;
					int			j;

					st = SBF_OK;
					for (j = 0; j < n && st == SBF_OK; j++)
					{
						uint64_t	h = sbf_hash_int64((int64_t) (base + (uint64_t) j));

						st = sbf_add_hash(&a->f, h, NULL);
						if (st == SBF_OK)
							track(a, h);
					}
					if (st != SBF_OK)
						FUZZ_ASSERT(st == SBF_E_TOO_LARGE ||
									st == SBF_E_TOO_MANY_SEGMENTS ||
									st == SBF_E_NOMEM);
					break;
				}
			case 4:
				if ((op >> 4) & 1)
				{
					/* a := a UNION (sbf_delta(b) with a run of keys) */
					int			n = 1 + next_byte(&data, &size) % 64;
					uint64_t	base = (uint64_t) next_byte(&data, &size) << 16;
					uint64_t	hs[64];
					SbfFilter	d;
					int			j;

					sbf_filter_view(&b->f, &v);
					st = sbf_delta(&d, &v, 4, &fuzz_allocator);
					if (st == SBF_OK)
					{
						sbf_filter_view(&d, &v);
						FUZZ_ASSERT(sbf_is_exact(&v) && v.nhashes == 0);
						for (j = 0; j < n && st == SBF_OK; j++)
						{
							hs[j] = sbf_hash_int64((int64_t) (base + (uint64_t) j + 7));
							st = sbf_add_hash(&d, hs[j], NULL);
						}
						if (st == SBF_OK)
						{
							SbfView		va;
							SbfFilter	other;
							SbfStatus	st2;

							/* delta UNION a, for the commutativity check */
							sbf_filter_view(&a->f, &va);
							sbf_filter_view(&d, &v);
							st2 = sbf_copy(&other, &v, 4, 0, &fuzz_allocator);
							if (st2 == SBF_OK)
								st2 = sbf_union(&other, &va);
							st = sbf_union(&a->f, &v);
							if (st == SBF_OK)
								for (j = 0; j < n; j++)
									track(a, hs[j]);
							if (st != SBF_E_NOMEM && st2 != SBF_E_NOMEM)
							{
								FUZZ_ASSERT(st == st2);
								if (st == SBF_OK)
									FUZZ_ASSERT(other.len == a->f.len &&
												memcmp(SBF_PAYLOAD(&other),
													   SBF_PAYLOAD(&a->f),
													   other.len) == 0);
							}
							sbf_filter_free(&other);
						}
						sbf_filter_free(&d);
					}
					if (st != SBF_OK)
					{
						FUZZ_ASSERT(st == SBF_E_INCOMPATIBLE || st == SBF_E_TOO_LARGE ||
									st == SBF_E_TOO_MANY_SEGMENTS || st == SBF_E_NOMEM);
						FUZZ_ASSERT(a->f.len == blen &&
									memcmp(SBF_PAYLOAD(&a->f), snap, blen) == 0);
					}
					break;
				}
				st = sbf_hll_add_hash(&a->f, sbf_hash_int64(next_byte(&data, &size)));
				FUZZ_ASSERT(st == SBF_OK || st == SBF_E_NOMEM);
				break;
			case 5:
			case 6:
				{
					/*
					 * a UNION b, checked to give the bytes of b UNION a (and
					 * the same error); op 6 also checks the budget
					 */
					SbfView		va;
					SbfFilter	other;
					SbfStatus	st2;
					bool		budget = (op >> 1) % 8 == 6;
					double		bound = 0.0;
					double		bound2 = 0.0;

					sbf_filter_view(&b->f, &v);
					/* keep runs fast: b's segments are copied twice */
					if (v.nsegments > 256)
						break;
					sbf_filter_view(&a->f, &va);
					st2 = sbf_copy(&other, &v, 4, 0, &fuzz_allocator);
					if (st2 == SBF_OK)
						st2 = budget ? sbf_union_budget(&other, &va, 0.0, &bound2) :
							sbf_union(&other, &va);
					st = budget ? sbf_union_budget(&a->f, &v, 0.0, &bound) :
						sbf_union(&a->f, &v);
					if (st == SBF_OK)
						track_all(a, b);
					else
					{
						FUZZ_ASSERT(st == SBF_E_INCOMPATIBLE || st == SBF_E_TOO_LARGE ||
									st == SBF_E_TOO_MANY_SEGMENTS || st == SBF_E_NOMEM ||
									(budget && st == SBF_E_OVER_BUDGET));
						FUZZ_ASSERT(a->f.len == blen &&
									memcmp(SBF_PAYLOAD(&a->f), snap, blen) == 0);
					}
					if (st != SBF_E_NOMEM && st2 != SBF_E_NOMEM)
					{
						/* commutative: the same status, bound and bytes */
						FUZZ_ASSERT(st == st2);
						FUZZ_ASSERT(bound == bound2);
						if (st == SBF_OK)
							FUZZ_ASSERT(other.len == a->f.len &&
										memcmp(SBF_PAYLOAD(&other), SBF_PAYLOAD(&a->f),
											   other.len) == 0);
					}
					if (st == SBF_OK && budget && v.tightening < 1.0)
					{
						SbfView		r;

						sbf_filter_view(&a->f, &r);
						/* the budget (stored rates) within it; the bound at least that */
						FUZZ_ASSERT(sbf_fpr_budget(&r) <= r.error_rate * (1.0 + 1e-9));
						FUZZ_ASSERT(sbf_fpr_bound(&r) >= sbf_fpr_budget(&r));
					}
					sbf_filter_free(&other);
					break;
				}
			default:
				{
					/*
					 * f UNION f is f's canonical form, which another self
					 * union keeps byte for byte
					 */
					SbfFilter	once;

					if (++self_unions > 3)
						break;
					sbf_filter_view(&a->f, &v);
					st = sbf_union(&a->f, &v);
					FUZZ_ASSERT(st == SBF_OK || st == SBF_E_NOMEM);
					if (st != SBF_OK)
						break;
					sbf_filter_view(&a->f, &v);
					FUZZ_ASSERT(sbf_copy(&once, &v, 4, 0, &fuzz_allocator) == SBF_OK);
					st = sbf_union(&a->f, &v);
					FUZZ_ASSERT(st == SBF_OK || st == SBF_E_NOMEM);
					FUZZ_ASSERT(a->f.len == once.len &&
								memcmp(SBF_PAYLOAD(&a->f), SBF_PAYLOAD(&once), once.len) == 0);
					sbf_filter_free(&once);
					break;
				}
		}
		free(snap);
		/* all keys every 8 steps, otherwise the ones this step added */
		check_tracked(a, steps % 8 == 0 ? 0 : nbefore);
	}
	for (i = 0; i < 2; i++)
	{
		SbfView		v;
		double		c;

		check_tracked(&t[i], 0);
		sbf_filter_view(&t[i].f, &v);
		c = sbf_cardinality(&v);
		FUZZ_ASSERT(c >= 0.0 && c == c);
		sbf_filter_free(&t[i].f);
	}
	FUZZ_ASSERT(fuzz_live == 0);
	return 0;
}
