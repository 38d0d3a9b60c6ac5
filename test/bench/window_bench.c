/*
 * window_bench.c
 *	  Size and accuracy of windowed filters on a generated bursty workload,
 *	  straight on the core (no server needed):
 *
 *	    cc -O2 $(find src/core -type d -printf '-I%p ') -o /tmp/window_bench test/bench/window_bench.c $(find src/core -name '*.c') -lm
 *	    /tmp/window_bench [users] [seed]
 *
 *	  Users live 75 days; most days bring 0-50 interactions, some days
 *	  20,000 (heavy) or 1,000-5,000, and gaps of weeks are common.  Each
 *	  user's 30-day window (1 day buckets, error_rate 0.01) is built twice:
 *	  by live adds in time order (sbf_win_add), and as the aggregate does
 *	  (normalized pairs, every bucket compacted).  Reported:
 *	   - bits per element-bucket by bucket size (the bucket's own bytes:
 *	     directory entries, bit words, pairs), for both paths, next to APBF's
 *	     20-24 bits at 1%;
 *	   - the largest small window (<= 100 element-buckets) against 64 + 10 n;
 *	   - the false-positive rate of since queries over 1, 7 and 30 buckets,
 *	     for probes never added and for elements last added before the window;
 *	   - the distinct count (#, sbf_win_cardinality) of each user's window
 *	     against the exact distinct count of its 30 days: median and worst
 *	     relative error, for the live windows (a quarter of the interactions
 *	     repeat an earlier item, often days later) and the aggregate's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "bench_util.h"
#include "sbf_internal.h"
#include "sbf_window.h"

#define DAYS		75
#define WINDOW		30

static uint64_t rng;

static uint64_t
next64(void)
{
	uint64_t	z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* interactions of a long-tail user on a day: a few, rarely */
static uint32_t
tail_day_size(void)
{
	uint64_t	r = next64() % 100;

	return r < 85 ? 0 : 1 + (uint32_t) (next64() % 5);
}

/* interactions of a user on a day: bursty */
static uint32_t
day_size(void)
{
	uint64_t	r = next64() % 1000;

	if (r < 350)
		return 0;				/* a quiet day (gaps come from runs of these) */
	if (r < 940)
		return (uint32_t) (next64() % 51);
	if (r < 985)
		return 1000 + (uint32_t) (next64() % 4001);
	return 20000;
}

/* size classes of a bucket's element count */
static const uint32_t class_hi[] = {10, 50, 100, 999, 5000, 20000};
#define NCLASS 6

typedef struct Acc
{
	double		bytes[NCLASS];
	double		elems[NCLASS];
	uint32_t	nbuckets[NCLASS];
} Acc;

static int
class_of(uint64_t n)
{
	int			c;

	for (c = 0; c < NCLASS; c++)
		if (n <= class_hi[c])
			return c;
	return NCLASS - 1;
}

/* Adds the per-bucket bytes and counts of a window to acc. */
static void
account(const SbfWinView *v, Acc *acc, uint64_t *total_elems)
{
	double		bytes[WINDOW] = {0};
	uint64_t	n[WINDOW] = {0};
	size_t		off = v->bits_offset;
	uint32_t	i;

	for (i = 0; i < v->nsegments; i++)
	{
		SbfWinSeg	s;

		sbf_win_read_segment(v, i, &off, &s);
		bytes[s.age] += (double) (sbf_win_entry_bytes(v) + s.bytes);
		n[s.age] += s.count;
	}
	for (i = 0; i < v->npairs; i++)
	{
		uint16_t	a = sbf_load16(v->buf + v->pairs_offset + (size_t) v->npairs * 8 + i * 2);

		bytes[a] += SBF_WIN_PAIR_BYTES;
		n[a]++;
	}
	for (i = 0; i < WINDOW; i++)
		if (n[i] > 0)
		{
			int			c = class_of(n[i]);

			acc->bytes[c] += bytes[i];
			acc->elems[c] += (double) n[i];
			acc->nbuckets[c]++;
			*total_elems += n[i];
		}
}

/* Median and worst (largest absolute) of n relative errors (sorts e). */
static void
print_errors(const char *name, double *e, int n)
{
	double		worst = 0.0;
	int			i;

	if (n == 0)
		return;
	qsort(e, (size_t) n, sizeof(double), bench_cmp_double);
	for (i = 0; i < n; i++)
		if (fabs(e[i]) > fabs(worst))
			worst = e[i];
	printf("%-38s median %+.4f, worst %+.4f, 10%% / 90%% %+.4f / %+.4f (%d windows)\n",
		   name, e[n / 2], worst, e[n / 10], e[n * 9 / 10], n);
}

static void
print_acc(const char *name, const Acc *a)
{
	int			c;

	printf("%-10s", name);
	for (c = 0; c < NCLASS; c++)
		if (a->elems[c] > 0)
			printf(" | %6.2f (%5u)", a->bytes[c] * 8.0 / a->elems[c], a->nbuckets[c]);
		else
			printf(" |      -        ");
	printf("\n");
}

int
main(int argc, char **argv)
{
	int			users = argc > 1 ? atoi(argv[1]) : 400;
	SbfWinParams p = {86400LL * 1000000, WINDOW, 0.01};
	Acc			live = {{0}, {0}, {0}},
				agg = {{0}, {0}, {0}};
	uint64_t	fp_never[3] = {0},
				n_never[3] = {0},
				fp_heavy[3] = {0},
				n_heavy[3] = {0},
				fp_old = 0,
				n_old = 0;
	int			lens[3] = {1, 7, 30};
	size_t		small_worst_excess = 0;
	int			small_n = 0;
	size_t		small_bytes = 0,
				small_eb = 0;
	uint64_t	live_total = 0,
				agg_total = 0;
	double		live_bytes = 0,
				agg_bytes = 0;
	double	   *err_live = calloc((size_t) users + 1, sizeof(double));
	double	   *err_agg = calloc((size_t) users + 1, sizeof(double));
	double	   *err_live100 = calloc((size_t) users + 1, sizeof(double));
	int			n_err = 0,
				n_err100 = 0;
	int			u;

	rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261201;
	for (u = 0; u < users; u++)
	{
		SbfWindow	w;
		SbfWinPair *pairs = NULL;
		size_t		npairs = 0,
					cap = 0;
		uint64_t	user_seed = next64();
		uint64_t	ids = 0;
		uint64_t	old_lo = 0,
					old_hi = 0;
		int			d;
		bool		heavy_user = (u % 10) == 0;
		bool		tail_user = (u % 10) >= 5;	/* half the users: the long tail */

		sbf_win_init(&w, &p, &bench_allocator);
		for (d = 0; d < DAYS; d++)
		{
			uint32_t	n = tail_user ? tail_day_size() : day_size();
			uint32_t	i;

			if (!heavy_user && n >= 1000)
				n = n % 51;		/* most users never burst */
			if (d == DAYS - WINDOW - 1)
				old_lo = ids;
			for (i = 0; i < n; i++)
			{
				/* a quarter of the interactions repeat an earlier item */
				uint64_t	id = (ids > 0 && next64() % 4 == 0) ? next64() % ids : ids++;
				uint64_t	h = sbf_hash_int64((int64_t) (user_seed ^ (id * 0x9E3779B97F4A7C15ULL)));

				(void) sbf_win_add(&w, 20000 + d, h);
				if (npairs == cap)
				{
					cap = cap ? cap * 2 : 1024;
					pairs = realloc(pairs, cap * sizeof(SbfWinPair));
				}
				pairs[npairs].hash = h;
				pairs[npairs++].bucket = 20000 + d;
			}
			if (d == DAYS - WINDOW - 1)
				old_hi = ids;
		}
		(void) sbf_win_slide(&w, 20000 + DAYS - 1);
		{
			SbfFilter	fl,
						fa;
			SbfWinView	vl,
						va;
			SbfWindow	wa;
			size_t		n = sbf_win_pairs_normalize(pairs, npairs, 20000 + DAYS - 1, WINDOW);
			int			l;
			uint64_t	eb = 0;

			sbf_win_encode(&w, &fl, 0);
			sbf_win_validate(SBF_PAYLOAD(&fl), fl.len, &vl);
			sbf_win_from_pairs(&wa, &p, 20000 + DAYS - 1, pairs, n, &bench_allocator);
			sbf_win_compact(&wa, true);
			sbf_win_encode(&wa, &fa, 0);
			sbf_win_validate(SBF_PAYLOAD(&fa), fa.len, &va);
			if (n > 0)
			{
				/* n: the exact distinct count of the window (normalized pairs) */
				err_live[n_err] = (sbf_win_cardinality(&vl) - (double) n) / (double) n;
				err_agg[n_err++] = (sbf_win_cardinality(&va) - (double) n) / (double) n;
				if (n >= 100)
					err_live100[n_err100++] = err_live[n_err - 1];
			}
			account(&vl, &live, &live_total);
			account(&va, &agg, &eb);
			agg_total += eb;
			live_bytes += (double) fl.len + 4;
			agg_bytes += (double) fa.len + 4;
			if (eb <= 100)
			{
				size_t		bound = 64 + 10 * eb;

				small_n++;
				small_bytes += fa.len + 4;
				small_eb += eb;
				if (fa.len + 4 > bound && fa.len + 4 - bound > small_worst_excess)
					small_worst_excess = fa.len + 4 - bound;
			}
			/* never added: probes outside every user's id space */
			for (l = 0; l < 3; l++)
			{
				uint32_t	q;

				for (q = 0; q < 5000; q++)
				{
					uint64_t	h = next64();

					int			hits = sbf_win_contains(&va, h, lens[l] - 1) +
						sbf_win_contains(&vl, h, lens[l] - 1);

					fp_never[l] += hits;
					n_never[l] += 2;
					if (heavy_user)
					{
						fp_heavy[l] += hits;
						n_heavy[l] += 2;
					}
				}
			}
			/* last added before the window: ids first seen before it and never again */
			for (ids = old_lo; ids < old_hi && ids < old_lo + 2000; ids++)
			{
				uint64_t	h = sbf_hash_int64((int64_t) (user_seed ^ (ids * 0x9E3779B97F4A7C15ULL)));
				size_t		lo = 0,
							hi = n;
				bool		in_window = false;

				while (lo < hi)
				{
					size_t		mid = (lo + hi) / 2;

					if (pairs[mid].hash < h)
						lo = mid + 1;
					else
						hi = mid;
				}
				in_window = lo < n && pairs[lo].hash == h;
				if (in_window)
					continue;
				fp_old += sbf_win_contains(&va, h, WINDOW - 1) + sbf_win_contains(&vl, h, WINDOW - 1);
				n_old += 2;
			}
			sbf_filter_free(&fl);
			sbf_filter_free(&fa);
			sbf_win_free(&wa);
		}
		sbf_win_free(&w);
		free(pairs);
	}

	printf("users %d, 30 buckets of 1 day, error_rate 0.01 (APBF needs 20-24 bits per element at 1%%)\n\n", users);
	printf("bits per element-bucket by bucket size (number of buckets)\n");
	printf("%-10s | %-14s | %-14s | %-14s | %-14s | %-14s | %-14s\n", "path",
		   "1-10", "11-50", "51-100", "101-999", "1000-5000", "20000");
	print_acc("aggregate", &agg);
	print_acc("live", &live);
	printf("\nwhole windows: aggregate %.2f bits per element-bucket, live %.2f (headers included)\n",
		   agg_bytes * 8 / (double) agg_total, live_bytes * 8 / (double) live_total);
	printf("small windows (<= 100 element-buckets): %d, average %.1f bytes (varlena header included) for %.1f element-buckets; worst excess over 64 + 10 n: %zu bytes\n",
		   small_n, small_n ? (double) small_bytes / small_n : 0.0,
		   small_n ? (double) small_eb / small_n : 0.0, small_worst_excess);
	printf("\nfalse-positive rate (error_rate 0.01)\n");
	printf("never added, since 1 bucket:   %.5f (%lu probes)\n", (double) fp_never[0] / n_never[0], (unsigned long) n_never[0]);
	printf("never added, since 7 buckets:  %.5f\n", (double) fp_never[1] / n_never[1]);
	printf("never added, since 30 buckets: %.5f\n", (double) fp_never[2] / n_never[2]);
	printf("heavy users only (bursts of 1,000-20,000), since 1 / 7 / 30 buckets: %.5f / %.5f / %.5f\n",
		   (double) fp_heavy[0] / n_heavy[0], (double) fp_heavy[1] / n_heavy[1],
		   (double) fp_heavy[2] / n_heavy[2]);
	printf("last added before the window:  %.5f (%lu probes)\n", n_old ? (double) fp_old / n_old : 0.0, (unsigned long) n_old);
	printf("\ndistinct count (#) against the exact distinct count of the window, (# - exact) / exact\n");
	print_errors("live adds, every window:", err_live, n_err);
	print_errors("live adds, windows of 100 or more:", err_live100, n_err100);
	print_errors("sbf_window_agg:", err_agg, n_err);
	free(err_live);
	free(err_live100);
	free(err_agg);
	return 0;
}
