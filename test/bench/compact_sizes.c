/*
 * compact_sizes.c
 *	  Issue 36, first target row, measured before any format change: would a
 *	  small complete set stored as sorted fingerprints (the top b bits of
 *	  each element hash, b = ceil(log2(n/e)), so two such sets unite by
 *	  dropping low bits) meet "n <= 8: <= 8n + 24 bytes; above: <= 1.1 x
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
 *	  error of 1.04/sqrt(512) = 4.6%: Flajolet et al. 2007).  Thread CPU
 *	  time, median of 5 runs.  Never a pass/fail test.
 *
 *	  bash test/bench/compact_sizes.sh [HDR]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_plan.h"
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


/*
 * The same fingerprints in Elias-Fano form: the low L bits of each stored
 * plainly, the high bits as a unary bucket list (element i is the one bit
 * at position high_i + i; a zero closes each of the 2^(b-L) buckets), L the
 * size's minimum, and the position of every 64th zero sampled so that a
 * lookup finds its bucket without a scan from the start.
 */
typedef struct Ef
{
	int			b;
	int			L;
	size_t		n;
	uint64_t	nbuckets;
	uint64_t   *hi;				/* n + nbuckets bits, one spare word */
	uint64_t   *lo;				/* n * L bits, one spare word */
	uint64_t	hibits;
	size_t		nsamp;
	uint64_t   *samp;			/* position of zero 64 * j */
} Ef;

static uint8_t sel8[256][8];	/* position of the r-th one of a byte */

static void
sel8_init(void)
{
	int			v,
				i;

	for (v = 0; v < 256; v++)
	{
		int			r = 0;

		for (i = 0; i < 8; i++)
			if (v >> i & 1)
				sel8[v][r++] = (uint8_t) i;
	}
}

/*
 * Position of the r-th (0-based) one of w, which has more than r ones:
 * the bytes' running counts by one multiply, the byte holding it by a
 * bytewise compare of those counts with r, then a table.
 */
static inline int
select64(uint64_t w, int r)
{
	const uint64_t l8 = UINT64_C(0x0101010101010101),
				h8 = UINT64_C(0x8080808080808080);
	uint64_t	c = w - (w >> 1 & UINT64_C(0x5555555555555555));
	uint64_t	cum,
				le;
	int			byte,
				before;

	c = (c & UINT64_C(0x3333333333333333)) + (c >> 2 & UINT64_C(0x3333333333333333));
	c = (c + (c >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	cum = c * l8;				/* byte i: ones in bytes 0..i */
	le = (((uint64_t) r * l8 | h8) - cum) & h8;	/* bytes whose count <= r */
	byte = __builtin_popcountll(le);
	before = byte ? (int) (cum >> (8 * byte - 8) & 255) : 0;
	return 8 * byte + sel8[w >> (8 * byte) & 255][r - before];
}

static void
ef_build(Ef *e, const uint64_t *f, size_t n, int b)
{
	uint64_t	best = UINT64_MAX,
				zeros = 0;
	size_t		i;
	int			L;

	e->b = b;
	e->n = n;
	e->L = 0;
	for (L = 0; L < b && L < 63; L++)
	{
		uint64_t	bits = (uint64_t) n * (uint64_t) L + n + (UINT64_C(1) << (b - L));

		if (bits <= best)
		{
			best = bits;
			e->L = L;
		}
	}
	e->nbuckets = UINT64_C(1) << (b - e->L);
	e->hibits = n + e->nbuckets;
	e->hi = calloc(e->hibits / 64 + 2, sizeof(uint64_t));
	e->lo = calloc((uint64_t) n * e->L / 64 + 2, sizeof(uint64_t));
	for (i = 0; i < n; i++)
	{
		uint64_t	p = (f[i] >> e->L) + i;

		e->hi[p >> 6] |= UINT64_C(1) << (p & 63);
		put_bits(e->lo, (uint64_t) i * e->L, f[i] & ((UINT64_C(1) << e->L) - 1), e->L);
	}
	e->nsamp = (size_t) (e->nbuckets / 64 + 1);
	e->samp = malloc(e->nsamp * sizeof(uint64_t));
	for (i = 0; i < e->hibits; i++)
		if (!(e->hi[i >> 6] >> (i & 63) & 1))
		{
			if (zeros % 64 == 0)
				e->samp[zeros / 64] = i;
			zeros++;
		}
}

static void
ef_free(Ef *e)
{
	free(e->hi);
	free(e->lo);
	free(e->samp);
}

/* Position of zero j (0-based) of the bucket list. */
static inline uint64_t
ef_zero(const Ef *e, uint64_t j)
{
	uint64_t	p = e->samp[j / 64];
	int			r = (int) (j % 64);
	uint64_t	w = ~e->hi[p >> 6] >> (p & 63);	/* zeros from p on, as ones */

	for (;;)
	{
		int			c = __builtin_popcountll(w);

		if (r < c)
			return p + (uint64_t) select64(w, r);
		r -= c;
		p = (p | 63) + 1;
		w = ~e->hi[p >> 6];
	}
}

static bool
ef_has(const Ef *e, uint64_t x)
{
	uint64_t	h = x >> e->L,
				l = x & ((UINT64_C(1) << e->L) - 1),
				p = h == 0 ? 0 : ef_zero(e, h - 1) + 1;

	for (; e->hi[p >> 6] >> (p & 63) & 1; p++)
	{
		uint64_t	v = e->L ? get64(e->lo, (p - h) * (uint64_t) e->L) & ((UINT64_C(1) << e->L) - 1) : 0;

		if (v >= l)
			return v == l;
	}
	return false;
}

static double
time_ef(const Ef *e, const uint64_t *q, size_t nq, size_t *hits)
{
	double		t[REPS];
	int			r;

	for (r = 0; r < REPS; r++)
	{
		double		t0 = bench_cpu_now();
		size_t		i,
					c = 0;

		for (i = 0; i < nq; i++)
			c += ef_has(e, q[i] >> (64 - e->b));
		t[r] = bench_cpu_now() - t0;
		*hits = c;
	}
	return bench_median(t, REPS) * 1e9 / (double) nq;
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
	size_t		i;

	for (i = 0; i < n; i++)
		f[i] = h[i] >> (64 - b);
	qsort(f, n, sizeof(uint64_t), bench_cmp_u64);
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

			f[i] = sbf_hash_int64((int64_t) (seed + (uint64_t) t * 1000003 * 4096 + x)) >> (64 - b);
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

static double
time_plan(const SbfPlan *p, const uint64_t *q, size_t nq, size_t *hits)
{
	double		t[REPS];
	int			r;

	for (r = 0; r < REPS; r++)
	{
		double		t0 = bench_cpu_now();
		size_t		i,
					c = 0;

		for (i = 0; i < nq; i++)
			c += sbf_plan_contains(p, q[i]);
		t[r] = bench_cpu_now() - t0;
		*hits = c;
	}
	return bench_median(t, REPS) * 1e9 / (double) nq;
}

static double
time_gcs(const Gcs *g, const uint64_t *q, size_t nq, size_t *hits)
{
	double		t[REPS];
	int			r;

	for (r = 0; r < REPS; r++)
	{
		double		t0 = bench_cpu_now();
		size_t		i,
					c = 0;

		for (i = 0; i < nq; i++)
			c += gcs_has(g, q[i] >> (64 - g->b));
		t[r] = bench_cpu_now() - t0;
		*hits = c;
	}
	return bench_median(t, REPS) * 1e9 / (double) nq;
}

static void
run(size_t n, double e, int hdr)
{
	uint64_t   *h = malloc(n * sizeof(uint64_t));
	uint64_t   *f = malloc(n * sizeof(uint64_t));
	uint64_t   *neg = malloc(PROBES * sizeof(uint64_t));
	uint64_t   *pos = malloc(PROBES * sizeof(uint64_t));
	SbfParams	p = {SBF_DEFAULT_CAPACITY, e, SBF_DEFAULT_TIGHTENING, SBF_DEFAULT_GROWTH, SBF_HLL_P_DEFAULT};
	SbfFilter	today;
	SbfPlan    *plan;
	Gcs			g;
	Ef			ef;
	size_t		i,
				fp_today,
				fp_gcs,
				fp_ef,
				hits;
	double		opt = (double) n * log(1 / e) / (log(2) * log(2)) / 8,
				target = n <= 8 ? 8.0 * (double) n + 24 : 1.1 * opt + 24,
				idx_bits,
				bytes,
				neg_today,
				pos_today,
				neg_gcs,
				pos_gcs,
				neg_ef,
				pos_ef,
				ef_bits,
				ef_bytes;
	int			b = fp_bits(n, e);

	for (i = 0; i < n; i++)
		h[i] = sbf_hash_int64((int64_t) i + 1);
	for (i = 0; i < PROBES; i++)
	{
		neg[i] = sbf_hash_int64(-(int64_t) i - 1);
		pos[i] = h[(i * 2654435761u) % n];
	}
	memcpy(f, h, n * sizeof(uint64_t));
	qsort(f, n, sizeof(uint64_t), bench_cmp_u64);
	if (sbf_build_final(&today, &p, f, n, 0, &bench_allocator) != SBF_OK ||
		sbf_plan_build(today.base, today.len, &bench_allocator, &plan) != SBF_OK)
		abort();
	fingerprints(h, n, b, f);
	gcs_build(&g, f, n, b);
	neg_today = time_plan(plan, neg, PROBES, &fp_today);
	pos_today = time_plan(plan, pos, PROBES, &hits);
	if (hits != PROBES)
		abort();
	neg_gcs = time_gcs(&g, neg, PROBES, &fp_gcs);
	pos_gcs = time_gcs(&g, pos, PROBES, &hits);
	if (hits != PROBES)
		abort();
	ef_build(&ef, f, n, b);
	neg_ef = time_ef(&ef, neg, PROBES, &fp_ef);
	pos_ef = time_ef(&ef, pos, PROBES, &hits);
	if (hits != PROBES || fp_ef != fp_gcs)
		abort();
	/* an index entry: a fingerprint and a bit position; none below SKIP */
	idx_bits = g.nidx > 1 ? (double) (g.nidx - 1) * (b + bits_for(g.nbits)) : 0;
	bytes = hdr + ceil(((double) g.nbits + idx_bits) / 8);
	ef_bits = (double) ef.hibits + (double) n * ef.L + (double) (ef.nsamp - 1) * bits_for(ef.hibits);
	ef_bytes = hdr + ceil(ef_bits / 8);
	printf("%8zu %6.4f | %7zu %6.0f %6.0f | %2d %8.3g | %5.2f %7.0f %5.3f %6.1f %6.1f | %d %5.2f %7.0f %5.3f %6.1f %6.1f | %6.1f %6.1f | %7.4f\n",
		   n, e, today.len + 4, opt, target, b, (double) fp_gcs / PROBES,
		   ((double) g.nbits + idx_bits) / (double) n, bytes, bytes / target, neg_gcs, pos_gcs,
		   ef.L, ef_bits / (double) n, ef_bytes, ef_bytes / target, neg_ef, pos_ef,
		   neg_today, pos_today, union_error(n, e, 7 * n));
	(void) fp_today;
	ef_free(&ef);
	sbf_plan_free(plan, &bench_allocator);
	sbf_filter_free(&today);
	gcs_free(&g);
	free(h);
	free(f);
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

	sel8_init();
	printf("# header %d bytes assumed for the compact form (see compact_sizes.sh); the target counts the varlena header as pg_column_size does\n", hdr);
	printf("#        n      e | today  optBlm target |  b fpr meas | Rice: bits/n bytes /target neg-ns pos-ns | EF: L bits/n bytes /target neg-ns pos-ns | today: neg-ns pos-ns | union count err\n");
	for (j = 0; j < sizeof(rates) / sizeof(rates[0]); j++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			run(sizes[i], rates[j], hdr);
	return 0;
}
