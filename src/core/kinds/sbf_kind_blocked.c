/*
 * sbf_kind_blocked.c
 *	  The blocked segment kind of format 4: a Bloom filter whose k probes of
 *	  an element all fall in one 512-bit line, so a lookup or an insert costs
 *	  one cache line, not k.  Sized with the blocked layout's own rate (Putze,
 *	  Sanders & Singler 2007, "Cache-, hash- and space-efficient Bloom
 *	  filters"), corrected for repeated probes.  Layout, positions and sizing
 *	  are specified in docs/format4.md, section 4 (test_kinds.c checks this
 *	  file against that text).
 */
#include <math.h>

#include "sbf_internal.h"
#include "sbf_kind.h"

#define GOLDEN			UINT64_C(0x9E3779B97F4A7C15)
#define PROBES_A_WORD	7		/* 9-bit positions in one 64-bit word */
#define LINE_MASK		(SBF_BLOCKED_LINE_BITS - 1)
/* lines whose first bytes count() prefetches before testing any */
#define BATCH			16

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_R(p)	__builtin_prefetch((p), 0, 1)
#else
#define PREFETCH_R(p)	((void) (p))
#endif

/* The line of hash h in a segment of nlines lines. */
static inline const uint8_t *
line_of(const SbfKindGeom *g, const uint8_t *data, uint64_t h)
{
	return sbf_blocked_line(g, data, h);
}

/*
 * The next probe of a hash (bits 0..511 of its line): 9 bits at a time from
 * a 64-bit word, *shift stepping through it, a new word after seven.  *w
 * starts at sbf_mix64(h), *shift at 0; the same sequence for every reader.
 */
static inline uint32_t
probe_next(uint64_t *w, uint32_t *shift)
{
	uint32_t	b;

	if (*shift == 9 * PROBES_A_WORD)
	{
		*w = sbf_mix64(*w + GOLDEN);
		*shift = 0;
	}
	b = (uint32_t) ((*w >> *shift) & LINE_MASK);
	*shift += 9;
	return b;
}

/*
 * Whether all k probes of h are set in its line.  No early exit: the line is
 * in the cache after the first probe, and a branch per probe that goes either
 * way costs more than the probes it would skip.
 */
static inline bool
line_has(const uint8_t *line, uint64_t h, uint32_t k)
{
	uint64_t	w = sbf_mix64(h);
	uint32_t	all = 1;
	uint32_t	shift = 0;
	uint32_t	j;

	for (j = 0; j < k; j++)
	{
		uint32_t	b = probe_next(&w, &shift);

		all &= (uint32_t) (line[b >> 3] >> (b & 7));
	}
	return (all & 1) != 0;
}

/* Geometry ranges: 1 <= k <= SBF_BLOCKED_MAX_K, 1 <= L <= SBF_BLOCKED_MAX_LINES. */
SbfStatus
sbf_blocked_check_geom(const SbfKindGeom *g)
{
	if (g->kind != SBF_KIND_BLOCKED || g->width < 1 ||
		g->width > SBF_BLOCKED_MAX_K || g->arity != 0 || g->log2_len != 0 ||
		g->attempt != 0 || g->size < 1 || g->size > SBF_BLOCKED_MAX_LINES)
		return SBF_E_SEGMENT;
	return SBF_OK;
}

/* 64 bytes a line (no overflow: the line count is bounded). */
bool
sbf_blocked_bytes(const SbfKindGeom *g, uint64_t *bytes)
{
	if (g->size > SBF_BLOCKED_MAX_LINES)
		return false;
	*bytes = g->size * SBF_BLOCKED_LINE_BYTES;
	return true;
}

/* Every bit pattern of a line is valid. */
SbfStatus
sbf_blocked_check_data(const SbfKindGeom *g, const uint8_t *data)
{
	(void) g;
	(void) data;
	return SBF_OK;
}


/*
 * The distribution of the number D of distinct bits among k probes drawn
 * independently from a line's 512: dist[d] = P(D = d), d = 0..k.
 */
static void
distinct_dist(uint32_t k, double *dist)
{
	uint32_t	j;
	uint32_t	d;

	memset(dist, 0, sizeof(double) * (k + 1));
	dist[0] = 1.0;
	for (j = 0; j < k; j++)
		for (d = j + 1; d-- > 0;)
		{
			double		stay = dist[d] * (double) d / SBF_BLOCKED_LINE_BITS;
			double		move = dist[d] - stay;

			dist[d] = stay;
			dist[d + 1] += move;
		}
}

/*
 * The rate of a blocked filter with lambda elements a line and k probes
 * (docs/format4.md, section 4, "Sizing").  Putze et al.'s formula: a line holds
 * Poisson(lambda) elements, and with i of them a given bit is set with
 * probability p_i = 1 - (1 - 1/512)^(i k), so
 *	FPR = sum_i Pois(i; lambda) p_i^k;
 * but the k probes of a lookup repeat a bit with probability about
 * k^2 / 1024 (4.8% at k = 7), and D distinct probes are all set with
 * probability at most p_i^D (the occupancy indicators of balls thrown into
 * bins are negatively associated: Dubhashi & Ranjan 1998), so p_i^k is
 * replaced by its upper bound E[p_i^D]:
 *	FPR <= sum_i Pois(i; lambda) sum_d P(D = d) p_i^d.
 * The sum starts 12 standard deviations below the mode for lambda > 150,
 * adding a Chernoff bound of the head, and stops past the mode when the
 * Poisson tail, bounded by a geometric series (each further term at most
 * lambda / (i + 2) times the last, the factor it multiplies at most 1), is
 * below 1e-15 of the sum, adding that bound: an upper bound, not a
 * truncation.  Above 600 elements a line the rate is over 0.6 and 1 is
 * returned.  At most about 600 terms of k steps each (about 15 us).
 */
/*
 * The series' factors E[p_i^D] for i = i0, i0 + 1, ... (the term of i is
 * Pois(i; lambda) times it): they depend on k and i0 only, not on lambda,
 * so the points of one model (i0 = 0 below 150 elements a line) share them.
 * Each is computed as the series computes it in place (qik by repeated
 * products from exp(lq k i0), then Horner's rule over dist), so a shared
 * factor is bit for bit the one a lone call computes.  The first
 * TERMS_CACHED are kept; past them each call continues from the last.
 */
#define TERMS_CACHED	1024

typedef struct BlockedTerms
{
	uint32_t	k;
	double		i0;
	double		qk;
	double		qik;			/* the factor of term i0 + n */
	uint32_t	n;				/* terms kept */
	double		dist[SBF_BLOCKED_MAX_K + 1];
	double		term[TERMS_CACHED];
} BlockedTerms;

static void
terms_init(BlockedTerms *t, uint32_t k, double i0)
{
	double		lq = log1p(-1.0 / SBF_BLOCKED_LINE_BITS);

	t->k = k;
	t->i0 = i0;
	t->n = 0;
	distinct_dist(k, t->dist);
	t->qk = exp(lq * k);
	t->qik = exp(lq * k * i0);
}

/* E[p_i^D] from qik = (1 - 1/512)^(i k). */
static inline double
term_of(const double *dist, uint32_t k, double qik)
{
	double		pi = 1.0 - qik;
	double		term = 0.0;
	uint32_t	d;

	for (d = k; d >= 1; d--)
		term = (term + dist[d]) * pi;
	return term;
}

/*
 * sbf_blocked_fpr with the factors of t (k and i0 its own: kept as they
 * are computed), stopping early once the sum exceeds limit (then some value
 * above limit is returned): a validator's check of a crafted segment ends in
 * a few terms.
 */
static double
fpr_series(double lambda, BlockedTerms *t, double limit)
{
	const double *dist = t->dist;
	const uint32_t k = t->k;
	const double qk = t->qk;
	const double i0 = t->i0;
	uint32_t	n = t->n;		/* terms kept */
	double		qn = t->qik;	/* the factor of term n */
	double		qik = qn;		/* the factor of the next term not kept */
	double		p;
	double		sum = 0.0;
	uint32_t	i;

	p = exp(-lambda + i0 * log(lambda) - lgamma(i0 + 1.0));
	for (i = (uint32_t) i0; i < 4096; i++)
	{
		uint32_t	j = i - (uint32_t) i0;
		double		term;

		if (j < n)
			term = t->term[j];
		else
		{
			term = term_of(dist, k, qik);
			qik *= qk;
			if (j < TERMS_CACHED)
			{
				t->term[j] = term;
				n = j + 1;
				qn = qik;
			}
		}
		/*
		 * the skipped head: P(N < i0) <= exp(-(lambda - i0)^2 / (2 lambda))
		 * (Chernoff), each of its terms at most this first one
		 */
		if (i == (uint32_t) i0 && i0 > 0.0)
			sum += exp(-(lambda - i0) * (lambda - i0) / (2.0 * lambda)) * term;
		sum += p * term;
		if (sum > limit)
			break;
		p *= lambda / (double) (i + 1);
		/*
		 * past the mode the rest is at most p / (1 - ratio): added, then
		 * stop.  That bound is at least p (0 < 1 - ratio < 1), so while p
		 * alone is above the threshold it is not computed: the same stop.
		 */
		if ((double) (i + 2) > lambda * 1.05 + 10.0 && !(p > sum * 1e-15))
		{
			double		ratio = lambda / (double) (i + 2);
			double		tail = p / (1.0 - ratio);

			if (tail <= sum * 1e-15)
			{
				sum += tail;
				break;
			}
		}
	}
	t->n = n;
	t->qik = qn;
	return sum;
}

/* The first term of the sum: 12 standard deviations below the mode above 150. */
static double
series_start(double lambda)
{
	return lambda > 150.0 ? floor(lambda - 12.0 * sqrt(lambda)) : 0.0;
}

/*
 * The series at lambda, or 0 or 1 outside it; t (when not NULL) holds
 * factors to share, refilled when its k or start differs.
 */
static double
blocked_fpr_with(double lambda, uint32_t k, double limit, BlockedTerms *t)
{
	BlockedTerms own;
	double		i0;

	if (!(lambda > 0.0))
		return 0.0;
	if (!(lambda <= 600.0) || k < 1 || k > SBF_BLOCKED_MAX_K)
		return 1.0;
	i0 = series_start(lambda);
	if (t == NULL)
		t = &own;
	else if (t->k == k && t->i0 == i0)
		return fpr_series(lambda, t, limit);
	terms_init(t, k, i0);
	return fpr_series(lambda, t, limit);
}

/* A lone evaluation (see blocked_fpr_with). */
static double
blocked_fpr_upto(double lambda, uint32_t k, double limit)
{
	return blocked_fpr_with(lambda, k, limit, NULL);
}

/* The rate bound of a blocked segment (see blocked_fpr_upto). */
double
sbf_blocked_fpr(double lambda, uint32_t k)
{
	return blocked_fpr_upto(lambda, k, 2.0);
}

/* count <= capacity and p >= the rate at capacity (see sbf_kind.h). */
SbfStatus
sbf_blocked_check_entry(const SbfKindGeom *g, uint64_t capacity, uint64_t count,
					double p)
{
	if (capacity < 1 || count > capacity || !(p > 0.0 && p < 0.5))
		return SBF_E_SEGMENT;
	if (blocked_fpr_upto((double) capacity / (double) g->size, g->width,
						 p * (1.0 + 1e-9)) > p * (1.0 + 1e-9))
		return SBF_E_SEGMENT;
	return SBF_OK;
}

/* Lines for n elements at k probes and rate share: the fewest, 0 if none fit. */
static uint64_t
lines_for(uint64_t n, uint32_t k, double share)
{
	uint64_t	lo = 1;
	uint64_t	hi = SBF_BLOCKED_MAX_LINES;

	if (sbf_blocked_fpr((double) n / (double) hi, k) > share)
		return 0;
	/* invariant: hi fits; lo - 1 does not (or is 0) */
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (sbf_blocked_fpr((double) n / (double) mid, k) <= share)
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

/*
 * The fewest lines, over k near log2(1/share) (the blocked optimum lies
 * below the standard one: docs/format4.md, section 4), ties to the smaller
 * k (fewer probes).
 */
SbfStatus
sbf_blocked_plan(uint64_t n, double share, SbfKindGeom *g, uint64_t *bytes)
{
	double		k0;
	uint32_t	klo;
	uint32_t	khi;
	uint32_t	k;
	uint64_t	best = 0;

	if (n < 1 || !(share > 0.0 && share < 0.5))
		return SBF_E_PARAM;
	k0 = ceil(-log2(share));
	khi = k0 + 2.0 > SBF_BLOCKED_MAX_K ? SBF_BLOCKED_MAX_K : (uint32_t) k0 + 2;
	klo = k0 / 2.0 < 1.0 ? 1 : (k0 / 2.0 > khi ? khi : (uint32_t) (k0 / 2.0));
	memset(g, 0, sizeof(*g));
	g->kind = SBF_KIND_BLOCKED;
	for (k = klo; k <= khi; k++)
	{
		uint64_t	lines = lines_for(n, k, share);

		if (lines != 0 && (best == 0 || lines < best))
		{
			best = lines;
			g->width = (uint8_t) k;
		}
	}
	if (best == 0)
		return SBF_E_TOO_LARGE;
	g->size = best;
	*bytes = best * SBF_BLOCKED_LINE_BYTES;
	return SBF_OK;
}

bool
sbf_blocked_contains(const SbfKindGeom *g, const uint8_t *data, uint64_t h)
{
	return line_has(line_of(g, data, h), h, g->width);
}

/* A sliced read fetches h's line: about one chunk (two when it straddles). */
static uint32_t
blocked_probe_span(const SbfKindGeom *g)
{
	(void) g;
	return 1;
}

/* contains(h) reads one range: h's line. */
static int
blocked_probe_ranges(const SbfKindGeom *g, uint64_t h, SbfProbeRange *out)
{
	/* mulhi(h, L) < L, so the line lies inside the L * 64-byte area */
	out[0].offset = sbf_win_mulhi(h, g->size) * SBF_BLOCKED_LINE_BYTES;
	out[0].len = SBF_BLOCKED_LINE_BYTES;
	return 1;
}

/* contains(h) on a copy of h's line. */
static bool
blocked_probe_at(const SbfKindGeom *g, uint64_t h, const uint8_t *const *bytes)
{
	return line_has(bytes[0], h, g->width);
}

/*
 * Probes 0..k-1 of h (bits 0..511 of its line), the same in every blocked
 * segment: a lookup over many segments computes them once per hash.
 */
void
sbf_blocked_probes(uint64_t h, uint32_t k, uint16_t *bits)
{
	uint64_t	w = sbf_mix64(h);
	uint32_t	shift = 0;
	uint32_t	j;

	for (j = 0; j < k; j++)
		bits[j] = (uint16_t) probe_next(&w, &shift);
}

/*
 * Batched lookups: each batch's lines are prefetched before any is tested.
 * With hit, only the hashes whose hit is false are probed, and those found
 * are marked (a lookup over several segments); the count is of those.
 */
static size_t
count_or_mark(const SbfKindGeom *g, const uint8_t *data, const uint64_t *h,
			  size_t n, bool *hit)
{
	size_t		found = 0;
	size_t		base;

	for (base = 0; base < n; base += BATCH)
	{
		size_t		nb = n - base < BATCH ? n - base : BATCH;
		const uint8_t *line[BATCH];
		size_t		b;

		for (b = 0; b < nb; b++)
		{
			if (hit != NULL && hit[base + b])
				continue;
			line[b] = line_of(g, data, h[base + b]);
			PREFETCH_R(line[b]);
		}
		for (b = 0; b < nb; b++)
		{
			bool		in;

			if (hit != NULL && hit[base + b])
				continue;
			in = line_has(line[b], h[base + b], g->width);
			found += in ? 1 : 0;
			if (hit != NULL)
				hit[base + b] = in;
		}
	}
	return found;
}

SBF_KIND_COUNT_AND_MARK(sbf_blocked, count_or_mark)

/* Sets h's probes; true when one of them was clear. */
bool
sbf_blocked_insert(const SbfKindGeom *g, uint8_t *data, uint64_t h)
{
	uint8_t    *line = data + sbf_win_mulhi(h, g->size) * SBF_BLOCKED_LINE_BYTES;
	uint64_t	w = sbf_mix64(h);
	uint32_t	k = g->width;	/* read once: the stores below may alias g */
	uint8_t		changed = 0;
	uint32_t	shift = 0;
	uint32_t	j;

	for (j = 0; j < k; j++)
	{
		uint32_t	b = probe_next(&w, &shift);
		uint8_t		mask = (uint8_t) (1u << (b & 7));

		changed |= (uint8_t) (~line[b >> 3] & mask);
		line[b >> 3] |= mask;
	}
	return changed != 0;
}

/*
 * The bits of n ascending hashes.  mulhi is monotone in h, so ascending hashes
 * visit the lines in ascending order: the build streams through the segment.
 */
SbfStatus
sbf_blocked_build(SbfKindGeom *g, uint8_t *data, const uint64_t *h, size_t n,
			  const SbfAllocator *a)
{
	return sbf_kind_build_by_insert(g, data, g->size * SBF_BLOCKED_LINE_BYTES,
									h, n, a, sbf_blocked_insert);
}

/* OR of two segments of one geometry: the segment of the union of their sets. */
void
sbf_blocked_merge(const SbfKindGeom *g, uint8_t *dst, const uint8_t *src)
{
	uint64_t	nbytes = g->size * SBF_BLOCKED_LINE_BYTES;
	uint64_t	i;

	for (i = 0; i < nbytes; i += 8)
		sbf_store64(dst + i, sbf_load64(dst + i) | sbf_load64(src + i));
}

/* Putze's rate with n elements in L lines. */
double
sbf_blocked_rate_at(const SbfKindGeom *g, uint64_t n)
{
	return sbf_blocked_fpr((double) n / (double) g->size, g->width);
}

/*
 * The exact rate of these bits for a hash never inserted: its line is
 * uniform and its k probes independent, so the mean over lines of
 * (ones / 512)^k.
 */
double
sbf_blocked_rate_of(const SbfKindGeom *g, const uint8_t *data)
{
	double		sum = 0.0;
	uint64_t	l;

	for (l = 0; l < g->size; l++)
	{
		const uint8_t *line = data + l * SBF_BLOCKED_LINE_BYTES;
		int			ones = 0;
		int			w;

		for (w = 0; w < SBF_BLOCKED_LINE_BYTES / 8; w++)
			ones += sbf_popcount64(sbf_load64(line + 8 * w));
		sum += sbf_ipow((double) ones / SBF_BLOCKED_LINE_BITS, g->width);
		/* a line is 8 words: a check every SBF_WORK_STRIDE words */
		if ((l + 1) % (SBF_WORK_STRIDE / 8) == 0)
			sbf_hook_interrupt();
	}
	return sum / (double) g->size;
}

/* COUNTS' model at x elements: Putze's rate at x/L a line. */
static double
blocked_model_rate(const SbfKindGeom *g, double x)
{
	return sbf_blocked_fpr(x / (double) g->size, g->width);
}

/*
 * The model at x = h i, i = 0..steps, into out: blocked_model_rate's values
 * bit for bit, the points sharing the series' factors (one Horner sum a
 * term for all of them, not one a point).
 */
static void
blocked_model_rates(const SbfKindGeom *g, double h, int steps, double *out)
{
	BlockedTerms t;
	int			i;

	t.k = 0;
	for (i = 0; i <= steps; i++)
		out[i] = blocked_fpr_with((h * i) / (double) g->size, g->width, 2.0, &t);
}

/*
 * Expected fill from the directory entry alone: k bits an insert into the
 * 512 L bits of its lines, 1 - (1 - 1/(512 L))^(k n).
 */
static double
blocked_expected_fill(const SbfSegment *seg)
{
	double		bits = (double) seg->nbits * SBF_BLOCKED_LINE_BITS;

	return -expm1((double) seg->k * (double) seg->count * log1p(-1.0 / bits));
}

/* sbf_info's keys after "bits": 512-bit lines and probes ("hashes"). */
static int
blocked_describe(const SbfKindGeom *g, SbfInfoKey *out)
{
	out[0] = (SbfInfoKey) {"lines", g->size};
	out[1] = (SbfInfoKey) {"hashes", g->width};
	return 2;
}

/* A union's slice of g: whole lines, unit lines in, at most words / 8. */
static uint64_t
blocked_slice(const SbfKindGeom *g, uint64_t unit, uint64_t words,
			  SbfKindGeom *sub, uint64_t *offset)
{
	uint64_t	lines = words / (SBF_BLOCKED_LINE_BYTES / 8);
	uint64_t	take = g->size - unit < lines ? g->size - unit : lines;

	*sub = *g;
	*offset = unit * SBF_BLOCKED_LINE_BYTES;
	sub->size = take;
	return take;
}

/*
 * The blocked kind's row: written by plain growth and chosen for a complete
 * set after fused (plain: only when neither fused nor bloom plans, as a
 * blocked segment never takes fewer bytes than a bloom one and its plan
 * searches; windowed: whenever smaller).
 */
const SbfKindOps sbf_kind_blocked_ops = {
	SBF_KIND_ROW(SBF_KIND_BLOCKED, "blocked", sbf_blocked),
	.insert = sbf_blocked_insert, .merge = sbf_blocked_merge,
	.dirs = SBF_KIND_IN_PLAIN4 | SBF_KIND_IN_PLAIN5 | SBF_KIND_IN_WINDOW4,
	/* the choice: after fused, and in plain directories a fallback */
	.choose_rank = 2, .choose_fallback = SBF_KIND_IN_PLAIN4 | SBF_KIND_IN_PLAIN5,
	.choose_max_n = UINT64_MAX,
	/* counts, sbf_info */
	.model_rate = blocked_model_rate, .model_rates = blocked_model_rates,
	.expected_fill = blocked_expected_fill, .expected_rate = sbf_blocked_rate_at,
	.describe = blocked_describe,
	/* reads by slices, unions, lookups */
	SBF_KIND_SLICED_READS(blocked),
	.union_rule = SBF_UNION_RATE, .slice = blocked_slice,
	.count_batched = true, .mark = sbf_blocked_mark,
	.win_lane = SBF_WIN_LANE_LINE,
};
