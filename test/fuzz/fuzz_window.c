/*
 * fuzz_window.c
 *	  libFuzzer target for windowed filters: the input is a series of
 *	  operations (add a hash at a bucket, slide, compact, unite with a
 *	  snapshot) on a window whose parameters come from the first bytes.
 *	  After each step the encoding validates, and every hash added within the
 *	  window is found with since at its bucket (no false negatives).
 *
 *	  Times reach the ends of the int64 line (issue 25): jumps of the clock,
 *	  adds, slides and unions with a second window at crafted buckets near
 *	  INT64_MIN and INT64_MAX for 1-microsecond buckets (and the last bucket
 *	  whose end fits for wider ones), so bucket differences overflow an int64
 *	  and newest buckets the validator refuses are asked for (SBF_E_PARAM).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#define MAX_ADDS	512
#define NEXTREME	12

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bucket i of the crafted ones near the ends of time for width w. */
static int64_t
extreme_bucket(uint8_t i, int64_t w, uint32_t buckets)
{
	int64_t		top = INT64_MAX / w;	/* its end does not fit */
	int64_t		bottom = INT64_MIN / w;

	switch (i % NEXTREME)
	{
		case 0:
			return top;
		case 1:
			return top - 1;
		case 2:
			return top - (int64_t) buckets;
		case 3:
			return bottom;
		case 4:
			return bottom + 1;
		case 5:
			return bottom + (int64_t) buckets - 1;
		case 6:
			return bottom > INT64_MIN ? bottom - 1 : INT64_MAX / 2;
		case 7:
			return 0;
		case 8:
			return -1;
		case 9:
			return INT64_MAX;
		case 10:
			return INT64_MIN;
		default:
			return top / 2;
	}
}

/* Whether a status is one an operation may return on these inputs. */
static bool
allowed(SbfStatus st)
{
	return st == SBF_OK || st == SBF_E_TOO_LARGE || st == SBF_E_NOMEM ||
		st == SBF_E_TOO_MANY_SEGMENTS || st == SBF_E_PARAM;
}

/* Unites w with a small window whose newest bucket is b (either way round). */
static SbfStatus
unite_far(SbfWindow *w, const SbfWinParams *p, int64_t b, uint8_t arg)
{
	SbfWindow	o;
	SbfFilter	f;
	SbfWinView	v;
	SbfStatus	st = SBF_OK;
	int			j;

	sbf_win_init(&o, p, &fuzz_allocator);
	for (j = 0; j < 1 + arg % 5 && st == SBF_OK; j++)
		st = sbf_win_add(&o, b < INT64_MIN + 5 ? b : b - j,
						 sbf_hash_int64(-1 - (int64_t) j - arg));
	if (st == SBF_OK && sbf_win_encode(&o, &f, 0) == SBF_OK)
	{
		FUZZ_ASSERT(sbf_win_validate(SBF_PAYLOAD(&f), f.len, &v) == SBF_OK);
		st = sbf_win_union(w, &v);
		sbf_filter_free(&f);
	}
	sbf_win_free(&o);
	return st == SBF_E_PARAM ? SBF_OK : st;
}

/*
 * The snapshot (version 4, windowed) with byte pos % len set to x: when the
 * validator accepts it, every reader (fuzz_check_window) and a union into w
 * handle it.  Returns SBF_OK when the validator refused it (w unchanged);
 * otherwise the union's error, or SBF_E_OVER_BUDGET after a union that
 * succeeded: the caller starts w over either way, so that crafted bytes do
 * not steer the rest of the run.
 */
static SbfStatus
unite_crafted(SbfWindow *w, const SbfFilter *snap, size_t pos, uint8_t x)
{
	uint8_t    *buf = malloc(snap->len);
	SbfWinView	v;
	SbfStatus	st = SBF_OK;

	if (buf == NULL)
		return SBF_OK;
	memcpy(buf, SBF_PAYLOAD(snap), snap->len);
	buf[pos % snap->len] = x;
	if (sbf_win_validate(buf, snap->len, &v) == SBF_OK)
	{
		fuzz_check_window(buf, snap->len);
		st = sbf_win_union(w, &v);
		if (st == SBF_OK)
		{
			fuzz_window_valid(w);
			st = SBF_E_OVER_BUDGET;
		}
	}
	free(buf);
	return st;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	SbfWinParams p;
	SbfWindow	w;
	SbfFilter	snap = {0};
	uint64_t	hashes[MAX_ADDS];
	int64_t		buckets[MAX_ADDS];
	int			nadds = 0;
	int64_t		clock = 1000;
	size_t		i;

	if (size < 3)
		return 0;
	/* 1-microsecond buckets half the time */
	p.width = data[0] & 1 ? 1 : 1 + (data[0] >> 1) % 7;
	p.buckets = 1 + data[1] % 40;
	p.error_rate = 0.001 + (data[2] % 100) * 0.004;
	sbf_win_init(&w, &p, &fuzz_allocator);
	for (i = 3; i + 1 < size; i += 2)
	{
		uint8_t		op = data[i];
		uint8_t		arg = data[i + 1];
		SbfStatus	st = SBF_OK;

		switch (op % 13)
		{
			case 0:
			case 1:
			case 2:
			case 3:
				{
					/* a burst of adds at a bucket near the clock */
					int64_t		b;

					if (__builtin_sub_overflow(clock, (int64_t) ((op >> 3) % 4), &b))
						b = clock;
					int			n = 1 + (arg % 4 == 0 ? arg * 20 : arg % 8);
					int			j;

					for (j = 0; j < n && st == SBF_OK; j++)
					{
						uint64_t	h = sbf_hash_int64((int64_t) (i * 100003 + j));

						st = sbf_win_add(&w, b, h);
						if (st == SBF_OK && nadds < MAX_ADDS)
						{
							hashes[nadds] = h;
							buckets[nadds++] = b;
						}
					}
					break;
				}
			case 4:
				if (__builtin_add_overflow(clock, (int64_t) (1 + arg % 10), &clock))
					clock = INT64_MAX;
				st = sbf_win_slide(&w, clock);
				break;
			case 5:
				st = sbf_win_compact(&w, arg & 1);
				break;
			case 6:
				sbf_filter_free(&snap);
				st = sbf_win_encode(&w, &snap, 0);
				break;
			case 8:
				/* the clock jumps to a crafted bucket (maybe out of range) */
				clock = extreme_bucket(arg, p.width, p.buckets);
				st = sbf_win_slide(&w, clock);
				break;
			case 9:
				{
					/* one add at a crafted bucket */
					int64_t		b = extreme_bucket(arg, p.width, p.buckets);
					uint64_t	h = sbf_hash_int64((int64_t) i * 7919);

					st = sbf_win_add(&w, b, h);
					if (st == SBF_OK && nadds < MAX_ADDS)
					{
						hashes[nadds] = h;
						buckets[nadds++] = b;
					}
					break;
				}
			case 10:
			case 11:
				st = unite_far(&w, &p, extreme_bucket(arg, p.width, p.buckets), arg);
				if (st == SBF_E_OVER_BUDGET)
				{
					sbf_win_free(&w);
					sbf_win_init(&w, &p, &fuzz_allocator);
					nadds = 0;
					st = SBF_OK;
				}
				break;
			case 12:
				/* a crafted value: the snapshot with one byte changed */
				if (snap.base != NULL && snap.len > 0)
					st = unite_crafted(&w, &snap, (size_t) arg * 2654435761u + i,
									   (uint8_t) (op ^ arg));
				if (st == SBF_E_OVER_BUDGET || st == SBF_E_INCOMPATIBLE)
				{
					sbf_win_free(&w);
					sbf_win_init(&w, &p, &fuzz_allocator);
					nadds = 0;
					st = SBF_OK;
				}
				break;
			case 7:
				if (snap.base != NULL)
				{
					SbfWinView	sv;

					FUZZ_ASSERT(sbf_win_validate(SBF_PAYLOAD(&snap), snap.len, &sv) == SBF_OK);
					st = sbf_win_union(&w, &sv);
					/* a refused union leaves w unusable: start over */
					if (st == SBF_E_OVER_BUDGET)
					{
						sbf_win_free(&w);
						sbf_win_init(&w, &p, &fuzz_allocator);
						nadds = 0;
						st = SBF_OK;
					}
				}
				break;
		}
		FUZZ_ASSERT(allowed(st));
		if (st == SBF_E_PARAM)
			continue;			/* refused, the window unchanged */
		if (st != SBF_OK)
			break;
	}
	{
		SbfFilter	f;
		SbfWinView	v;

		if (sbf_win_encode(&w, &f, 0) == SBF_OK)
		{
			int			j;

			FUZZ_ASSERT(sbf_win_validate(SBF_PAYLOAD(&f), f.len, &v) == SBF_OK);
			fuzz_check_window(SBF_PAYLOAD(&f), f.len);
			for (j = 0; j < nadds; j++)
				if (buckets[j] <= v.newest &&
					sbf_win_age_of(v.newest, buckets[j]) < p.buckets)
					FUZZ_ASSERT(sbf_win_contains(&v, hashes[j],
												 sbf_win_max_age(&v, buckets[j])));
			sbf_filter_free(&f);
		}
	}
	sbf_filter_free(&snap);
	sbf_win_free(&w);
	FUZZ_ASSERT(fuzz_live == 0);
	return 0;
}
