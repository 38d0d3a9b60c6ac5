/*
 * compact_sizes.c
 *	  Issue 36, first target row, measured before any format change: would a
 *	  small complete set stored as sorted fingerprints (the low b bits of
 *	  each element hash, sbf_ef_fingerprint, b = ceil(log2(n/e)), so two such
 *	  sets unite by dropping high bits) meet "n <= 8: <= 8n + 24 bytes; above: <= 1.1 x
 *	  optimal Bloom + 24", with its false-positive rate <= e, a count that
 *	  stays exact, unions whose count beats a HyperLogLog, and lookups near
 *	  today's?  Two codes of the same fingerprints side by side:
 *	  - Rice: Golomb-Rice-coded gaps at the best parameter (the code of the
 *	    compact block filters of BIP 158), one index entry (a fingerprint
 *	    and a bit position) per 64 fingerprints, a lookup decoding from the
 *	    nearest entry;
 *	  - EF: Elias-Fano (Elias 1974, Fano 1971): low bits stored plainly, high
 *	    bits as unary bucket sizes, the position of every 64th bucket end
 *	    sampled, a lookup going straight to its bucket.
 *
 *	  For each n it prints today's value (sbf_build_final: the aggregate's
 *	  final, exact form or one segment plus the HyperLogLog; bytes as
 *	  pg_column_size counts them), the optimal Bloom filter's bytes and the
 *	  target, the fingerprint bits and the measured rate over 10^6
 *	  non-members (the same for both codes, which hold the same
 *	  fingerprints), then per code its bits per element (index included),
 *	  bytes with HDR more (argument; see compact_sizes.sh), bytes / target,
 *	  ns per lookup of non-members and of members, then today's ns (the
 *	  lookup plan's probe), and the relative error of the count of a union
 *	  of two such sets (half shared) from their distinct fingerprints,
 *	  median over 101 pairs (today's HyperLogLog, p = 9, has a standard
 *	  error of 1.04/sqrt(512) = 4.6%: Flajolet et al. 2007), and the
 *	  estimate of the HyperLogLog made from the fingerprints over the one
 *	  made from the hashes (what a compact value converted to a segmented
 *	  one would carry).  Thread CPU
 *	  time, median of 5 runs.  Never a pass/fail test.
 *
 *	  bash test/bench/compact_sizes.sh [HDR [n ...]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_plan.h"
#include "sbf_efset.h"
#include "sbf_internal.h"
#include "bench_util.h"

#define SKIP		64			/* fingerprints per index entry */
#define PROBES		1000000
#define REPS		5

/* A Rice-coded multiset of b-bit fingerprints with its skip index. */
typedef struct Gcs
{
	int			b;
	int			k;
	size_t		n;
	uint64_t   *w;				/* the code, LSB first, one spare word */
	uint64_t	nbits;
	size_t		nidx;
	uint64_t   *first;			/* fingerprint j*SKIP */
	uint64_t   *after;			/* bit position after its code */
} Gcs;

static void
put_bits(uint64_t *w, uint64_t pos, uint64_t v, int len)
{
	int			sh = (int) (pos & 63);

	if (len == 0)
		return;
	w[pos >> 6] |= v << sh;
	if (sh + len > 64)
		w[(pos >> 6) + 1] |= v >> (64 - sh);
}

/* The 64 bits from bit pos on (w has a spare word). */
static inline uint64_t
get64(const uint64_t *w, uint64_t pos)
{
	int			sh = (int) (pos & 63);
	uint64_t	lo = w[pos >> 6] >> sh;

	return sh ? lo | w[(pos >> 6) + 1] << (64 - sh) : lo;
}

/* Bits of the Rice code of sorted f[0..n) with parameter k. */
static uint64_t
code_bits(const uint64_t *f, size_t n, int k)
{
	uint64_t	bits = 0,
				prev = 0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		bits += ((f[i] - prev) >> k) + 1 + (uint64_t) k;
		prev = f[i];
	}
	return bits;
}

static void
gcs_build(Gcs *g, const uint64_t *f, size_t n, int b)
{
	uint64_t	best = UINT64_MAX,
				prev = 0,
				pos = 0;
	size_t		i;
	int			k;

	g->b = b;
	g->n = n;
	g->k = 0;
	for (k = 0; k < b && k < 63; k++)
	{
		uint64_t	bits = code_bits(f, n, k);

		if (bits < best)
		{
			best = bits;
			g->k = k;
		}
	}
	g->nbits = best;
	g->w = calloc(best / 64 + 2, sizeof(uint64_t));
	g->nidx = (n + SKIP - 1) / SKIP;
	g->first = malloc((g->nidx + 1) * sizeof(uint64_t));
	g->after = malloc((g->nidx + 1) * sizeof(uint64_t));
	for (i = 0; i < n; i++)
	{
		uint64_t	d = f[i] - prev,
					q = d >> g->k;

		while (q >= 32)
		{
			put_bits(g->w, pos, UINT64_C(0xffffffff), 32);
			pos += 32;
			q -= 32;
		}
		put_bits(g->w, pos, (UINT64_C(1) << q) - 1, (int) q + 1);	/* q ones, a zero */
		pos += q + 1;
		put_bits(g->w, pos, d & ((UINT64_C(1) << g->k) - 1), g->k);
		pos += (uint64_t) g->k;
		prev = f[i];
		if (i % SKIP == 0)
		{
			g->first[i / SKIP] = f[i];
			g->after[i / SKIP] = pos;
		}
	}
}

static void
gcs_free(Gcs *g)
{
	free(g->w);
	free(g->first);
	free(g->after);
}

/* Whether fingerprint x is in g: the index, then at most SKIP - 1 codes. */
static bool
gcs_has(const Gcs *g, uint64_t x)
{
	size_t		lo = 0,
				hi = g->nidx,
				left;
	uint64_t	v,
				pos;
	uint64_t	mask = (UINT64_C(1) << g->k) - 1;

	if (g->n == 0 || x < g->first[0])
		return false;
	while (hi - lo > 1)
	{
		size_t		mid = (lo + hi) / 2;

		if (g->first[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	v = g->first[lo];
	pos = g->after[lo];
	left = g->n - lo * SKIP - 1;
	if (left > SKIP - 1)
		left = SKIP - 1;
	while (v < x && left-- > 0)
	{
		uint64_t	word = get64(g->w, pos);
		uint64_t	q = 0;

		while (word == UINT64_MAX)
		{
			q += 64;
			pos += 64;
			word = get64(g->w, pos);
		}
		q += (uint64_t) __builtin_ctzll(~word);
		pos += q % 64 + 1;
		v += (q << g->k) | (g->k ? get64(g->w, pos) & mask : 0);
		pos += (uint64_t) g->k;
	}
	return v == x;
}


static int
bits_for(uint64_t v)
{
	int			b = 0;

	while (b < 64 && (UINT64_C(1) << b) <= v)
		b++;
	return b;
}

/* b = ceil(log2(n / e)), at least 1, at most 64. */
static int
fp_bits(size_t n, double e)
{
	int			b = (int) ceil(log2((double) n / e));

	return b < 1 ? 1 : b > 64 ? 64 : b;
}

static void
fingerprints(const uint64_t *h, size_t n, int b, uint64_t *f)
{
	sbf_ef_fingerprints(h, n, b, f);
	qsort(f, n, sizeof(uint64_t), bench_cmp_u64);
}

/*
 * The HyperLogLog (p = 9, today's) of the n hashes h, estimated, against
 * the one a value of fingerprints would make: the register is the low p
 * bits of a fingerprint as of the hash, the rank the zeros above them up to
 * bit b, where a set bit caps it (b - p + 1).  b is at least p + 1 here (a
 * writer that keeps the HyperLogLog possible takes that: at most 3 bits an
 * element more, for n <= 5 at 1%).  Returns estimate from fingerprints /
 * estimate from hashes.
 */
static double
hll_from_fingerprints(const uint64_t *h, size_t n, int b)
{
	uint8_t		full[SBF_HLL_DENSE_BYTES(SBF_HLL_P_DEFAULT)] = {0};
	uint8_t		fps[SBF_HLL_DENSE_BYTES(SBF_HLL_P_DEFAULT)] = {0};
	bool		dense = true;
	size_t		i;

	if (b <= SBF_HLL_P_DEFAULT)
		b = SBF_HLL_P_DEFAULT + 1;
	for (i = 0; i < n; i++)
	{
		(void) sbf_hll_apply_add(full, sizeof(full), &dense, SBF_HLL_P_DEFAULT, h[i]);
		(void) sbf_hll_apply_add(fps, sizeof(fps), &dense, SBF_HLL_P_DEFAULT,
								 sbf_ef_fingerprint(h[i], b) | UINT64_C(1) << b);
	}
	return sbf_hll_estimate(fps, sizeof(fps), true, SBF_HLL_P_DEFAULT) /
		sbf_hll_estimate(full, sizeof(full), true, SBF_HLL_P_DEFAULT);
}

/* Median relative error of a union's count from distinct fingerprints. */
static double
union_error(size_t n, double e, uint64_t seed)
{
	size_t		half = n / 2 > 0 ? n / 2 : 1;
	size_t		tot = 2 * n - half;
	uint64_t   *f = malloc(2 * n * sizeof(uint64_t));
	double		err[101];
	int			b = fp_bits(n, e),
				t;

	for (t = 0; t < 101; t++)
	{
		size_t		i,
					d = 0;
		double		range = ldexp(1.0, b),
					est;

		/* A: elements 0..n), B: elements n - half .. 2n - half) */
		for (i = 0; i < 2 * n; i++)
		{
			uint64_t	x = i < n ? i : i - half;

			f[i] = sbf_ef_fingerprint(sbf_hash_int64((int64_t) (seed + (uint64_t) t * 1000003 * 4096 + x)), b);
		}
		qsort(f, 2 * n, sizeof(uint64_t), bench_cmp_u64);
		for (i = 0; i < 2 * n; i++)
			d += i == 0 || f[i] != f[i - 1];
		/* occupancy: E[distinct] = M(1 - exp(-N/M)), inverted */
		est = b >= 53 ? (double) d : -range * log1p(-(double) d / range);
		err[t] = fabs(est - (double) tot) / (double) tot;
	}
	free(f);
	return bench_median(err, 101);
}

static bool
probe_plan(const void *ctx, uint64_t h)
{
	return sbf_plan_contains(ctx, h);
}

static bool
probe_rice(const void *ctx, uint64_t h)
{
	const Gcs  *g = ctx;

	return gcs_has(g, sbf_ef_fingerprint(h, g->b));
}

static bool
probe_ef(const void *ctx, uint64_t h)
{
	const SbfEfReader *e = ctx;

	return sbf_ef_has(e, sbf_ef_fingerprint(h, e->s.b));
}

/* The fingerprints decoded into an array, searched without a branch. */
typedef struct Decoded
{
	const uint64_t *v;
	size_t		n;
	int			b;
} Decoded;

static bool
probe_decoded(const void *ctx, uint64_t h)
{
	const Decoded *d = ctx;

	return sbf_ef_array_has(d->v, d->n, sbf_ef_fingerprint(h, d->b));
}

/* Non-member and member ns of one structure; aborts on a missed member. */
static void
time_both(BenchProbeFn fn, const void *ctx, const uint64_t *neg, const uint64_t *pos,
		  double *ns, size_t *fps)
{
	size_t		hits;

	ns[0] = bench_time_probes(fn, ctx, neg, PROBES, REPS, fps);
	ns[1] = bench_time_probes(fn, ctx, pos, PROBES, REPS, &hits);
	if (hits != PROBES)
		abort();
}

static void
run(size_t n, double e, int hdr)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t   *f = malloc(n * sizeof(uint64_t));
	uint64_t   *dec = malloc(n * sizeof(uint64_t));
	uint64_t   *neg = malloc(PROBES * sizeof(uint64_t));
	uint64_t   *pos = malloc(PROBES * sizeof(uint64_t));
	SbfParams	p = {SBF_DEFAULT_CAPACITY, e, SBF_DEFAULT_TIGHTENING, SBF_DEFAULT_GROWTH, SBF_HLL_P_DEFAULT};
	SbfFilter	today;
	SbfPlan    *plan;
	Gcs			g;
	SbfEfShape	es;
	SbfEfReader ef;
	Decoded		d;
	uint8_t    *code;
	size_t		i,
				fp_today,
				fp_rice,
				fp_ef,
				fp_dec;
	double		opt = (double) n * log(1 / e) / (log(2) * log(2)) / 8,
				target = n <= 8 ? 8.0 * (double) n + 24 : 1.1 * opt + 24,
				idx_bits,
				rice_bytes,
				ef_bytes,
				t_today[2],
				t_rice[2],
				t_ef[2],
				t_dec[2],
				t0,
				decode_ns;
	int			b = fp_bits(n, e);

	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64((int64_t) i + 1);
	for (i = 0; i < PROBES; i++)
	{
		neg[i] = sbf_hash_int64(-(int64_t) i - 1);
		pos[i] = h[sbf_hash_int64((int64_t) i + PROBES) % n];	/* members in no pattern */
	}
	memcpy(f, h, n * sizeof(uint64_t));
	qsort(f, n, sizeof(uint64_t), bench_cmp_u64);
	if (sbf_build_final(&today, &p, f, n, 0, &bench_allocator) != SBF_OK ||
		sbf_plan_build(today.base, today.len, &bench_allocator, &plan) != SBF_OK)
		abort();
	fingerprints(h, n, b, f);
	gcs_build(&g, f, n, b);
	if (sbf_ef_shape(n, b, &es) != SBF_OK || (code = malloc(sbf_ef_bytes(&es))) == NULL)
		abort();
	sbf_ef_write(&es, f, code);
	if (sbf_ef_check(&es, code, sbf_ef_bytes(&es)) != SBF_OK ||
		sbf_ef_reader_init(&ef, &es, code, &bench_allocator) != SBF_OK)
		abort();
	t0 = bench_cpu_now();
	for (i = 0; i < 100; i++)
		sbf_ef_decode(&ef, dec);
	decode_ns = (bench_cpu_now() - t0) * 1e9 / 100 / (double) n;
	d.v = dec;
	d.n = n;
	d.b = b;
	time_both(probe_plan, plan, neg, pos, t_today, &fp_today);
	time_both(probe_rice, &g, neg, pos, t_rice, &fp_rice);
	time_both(probe_ef, &ef, neg, pos, t_ef, &fp_ef);
	time_both(probe_decoded, &d, neg, pos, t_dec, &fp_dec);
	if (fp_ef != fp_rice || fp_dec != fp_rice)
		abort();
	/* an index entry: a fingerprint and a bit position; none below SKIP */
	idx_bits = g.nidx > 1 ? (double) (g.nidx - 1) * (b + bits_for(g.nbits)) : 0;
	rice_bytes = hdr + ceil(((double) g.nbits + idx_bits) / 8);
	/* no sample table is stored: the reader makes it */
	ef_bytes = hdr + (double) sbf_ef_bytes(&es);
	printf("%8zu %6.4f | %7zu %7.0f %7.0f | %2d %8.3g | %5.2f %7.0f %5.3f %6.1f %6.1f | %2d %5.2f %7.0f %5.3f %6.1f %6.1f %6.1f %6.1f %5.1f | %6.1f %6.1f | %7.4f | %6.4f\n",
		   n, e, today.len + 4, opt, target, b, (double) fp_rice / PROBES,
		   ((double) g.nbits + idx_bits) / (double) n, rice_bytes, rice_bytes / target, t_rice[0], t_rice[1],
		   es.L, (double) (es.hibits + es.lobits) / (double) n, ef_bytes, ef_bytes / target,
		   t_ef[0], t_ef[1], t_dec[0], t_dec[1], decode_ns,
		   t_today[0], t_today[1], union_error(n, e, 7 * n), hll_from_fingerprints(h, n, b));
	(void) fp_today;
	sbf_ef_reader_free(&ef, &bench_allocator);
	sbf_plan_free(plan, &bench_allocator);
	sbf_filter_free(&today);
	gcs_free(&g);
	free(code);
	free(h);
	free(f);
	free(dec);
	free(neg);
	free(pos);
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = {1, 2, 5, 8, 10, 30, 100, 300, 1000, 3000, 10000, 100000, 1000000};
	static const double rates[] = {0.01, 0.001};
	int			hdr = argc > 1 ? atoi(argv[1]) : 20;
	size_t		i,
				j;

	printf("# header %d bytes assumed for the compact form (see compact_sizes.sh); the target counts the varlena header as pg_column_size does\n", hdr);
	printf("#        n      e |   today  optBlm  target |  b fpr meas | Rice: bits/n bytes /target neg-ns pos-ns |  EF: L bits/n bytes /target neg-ns pos-ns, decoded: neg-ns pos-ns decode-ns/elt | today: neg-ns pos-ns | union count err | HLL from fingerprints / from hashes\n");
	if (argc > 2)				/* sizes given: 1% only */
		for (i = 2; i < (size_t) argc; i++)
			run(strtoull(argv[i], NULL, 10), 0.01, hdr);
	else
		for (j = 0; j < sizeof(rates) / sizeof(rates[0]); j++)
			for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
				run(sizes[i], rates[j], hdr);
	return 0;
}
