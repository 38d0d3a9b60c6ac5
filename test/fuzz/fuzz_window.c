/*
 * fuzz_window.c
 *	  libFuzzer target for windowed filters: the input is a series of
 *	  operations (add a hash at a bucket, slide, compact, unite with a
 *	  snapshot) on a window whose parameters come from the first bytes.
 *	  After each step the encoding validates, and every hash added within the
 *	  window is found with since at its bucket (no false negatives).
 */
#include <string.h>

#include "fuzz_common.h"

#define MAX_ADDS	512

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	p.width = 1 + data[0] % 7;
	p.buckets = 1 + data[1] % 40;
	p.error_rate = 0.001 + (data[2] % 100) * 0.004;
	sbf_win_init(&w, &p, &fuzz_allocator);
	for (i = 3; i + 1 < size; i += 2)
	{
		uint8_t		op = data[i];
		uint8_t		arg = data[i + 1];
		SbfStatus	st = SBF_OK;

		switch (op % 8)
		{
			case 0:
			case 1:
			case 2:
			case 3:
				{
					/* a burst of adds at a bucket near the clock */
					int64_t		b = clock - (op >> 3) % 4;
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
				clock += 1 + arg % 10;
				st = sbf_win_slide(&w, clock);
				break;
			case 5:
				st = sbf_win_compact(&w, arg & 1);
				break;
			case 6:
				sbf_filter_free(&snap);
				st = sbf_win_encode(&w, &snap, 0);
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
		FUZZ_ASSERT(st == SBF_OK || st == SBF_E_TOO_LARGE || st == SBF_E_NOMEM ||
					st == SBF_E_TOO_MANY_SEGMENTS);
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
				if (buckets[j] > v.newest - (int64_t) p.buckets)
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
