/*
 * sbf_study.c
 *	  Accuracy and sizing study of sbf, linked directly against src/core.
 *
 * Every experiment is deterministic: keys are strings derived from a seed and
 * an index, hashed exactly as the SQL glue hashes text, so a row printed here
 * is what the same sequence of `f || key` calls would give in SQL.
 *
 *	sbf_study grow     label=... s= r= c= e= p= nmax= probes= seed= grid= every= [sized=N] [words=FILE]
 *		one filter grown one element at a time through the core (its first
 *		segment right-sized for N under the default header capacity, as sbf_agg
 *		builds it, when sized= is given); at log-spaced checkpoints:
 *		measured FPR on absent keys, bytes, segments, HyperLogLog share and
 *		estimate
 *	sbf_study fixed    label=... c= e= nmax= probes= seed= grid= [words=FILE]
 *		a single Bloom filter sized for c elements, overfilled (the contrast)
 *	sbf_study card     p= seeds= bigseeds= nmax= bignmax= [tag=sbf]
 *		cardinality estimates of the embedded HyperLogLog alone
 *	sbf_study count    seeds= nmax=
 *		the count `# f` gives (format 2, sbf_core.h COUNTS) for filters grown
 *		one add at a time and built as sbf_agg builds them (right-sized, one
 *		batch add), against the HyperLogLog's estimate of the same filter
 *	sbf_study policy   policy=count|hll workload=distinct|repeats s= r= c= e= p= nmax= probes= seeds= [verify=N]
 *		a simulated segment chain, to compare the two "segment full" rules;
 *		verify=N checks the count rule against the real core on the first N
 *		seeds (same segments, same false positives)
 *	sbf_study analytic e= c=
 *		bytes/element predicted by the sizing formulas over (s, r)
 *
 * Output is tab-separated rows on stdout, with a header line when header=1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_internal.h"

#define MAX_ARGS	32
#define MAX_POINTS	256

/* bits per element of an optimal Bloom filter at error e: -ln e / ln^2 2 */
#define BLOOM_OPT_BITS(e)	(-log(e) / (SBF_LN2 * SBF_LN2))
/* information-theoretic floor: log2(1/e) bits per element */
#define FLOOR_BITS(e)		(-log(e) / SBF_LN2)

/* ---- command-line key=value arguments ---- */

typedef struct Args
{
	int			n;
	const char *key[MAX_ARGS];
	const char *val[MAX_ARGS];
} Args;

static void
args_parse(Args *a, int argc, char **argv)
{
	int			i;

	a->n = 0;
	for (i = 0; i < argc && a->n < MAX_ARGS; i++)
	{
		char	   *eq = strchr(argv[i], '=');

		if (eq == NULL)
		{
			fprintf(stderr, "sbf_study: argument \"%s\" is not key=value\n", argv[i]);
			exit(2);
		}
		*eq = '\0';
		a->key[a->n] = argv[i];
		a->val[a->n] = eq + 1;
		a->n++;
	}
}

static const char *
arg_str(const Args *a, const char *key, const char *dflt)
{
	int			i;

	for (i = 0; i < a->n; i++)
		if (strcmp(a->key[i], key) == 0)
			return a->val[i];
	return dflt;
}

static double
arg_num(const Args *a, const char *key, double dflt)
{
	const char *s = arg_str(a, key, NULL);

	return s ? strtod(s, NULL) : dflt;
}

/* ---- keys ---- */

/* Hash of the text key "<tag><seed>:<i>", as SQL would hash that text. */
static uint64_t
key_hash(char tag, unsigned seed, uint64_t i)
{
	char		buf[48];
	int			len = snprintf(buf, sizeof(buf), "%c%u:%llu", tag, seed,
							   (unsigned long long) i);

	return sbf_hash(buf, (size_t) len);
}

/* A word list: insert the even lines, probe the odd ones. */
typedef struct Words
{
	uint64_t   *ins;
	uint64_t   *probe;
	uint64_t	nins;
	uint64_t	nprobe;
} Words;

static void
words_load(Words *w, const char *path)
{
	FILE	   *fp = fopen(path, "r");
	char		line[1024];
	uint64_t	cap = 1 << 20;
	uint64_t	lineno = 0;

	if (fp == NULL)
	{
		perror(path);
		exit(1);
	}
	w->ins = malloc(cap * sizeof(uint64_t));
	w->probe = malloc(cap * sizeof(uint64_t));
	w->nins = w->nprobe = 0;
	while (fgets(line, sizeof(line), fp) && lineno < 2 * cap)
	{
		size_t		len = strcspn(line, "\n");
		uint64_t	h = sbf_hash(line, len);

		if (lineno++ % 2 == 0)
			w->ins[w->nins++] = h;
		else
			w->probe[w->nprobe++] = h;
	}
	fclose(fp);
}

/* Hash of the i-th inserted element (1-based), synthetic or from a list. */
static uint64_t
insert_hash(const Words *w, unsigned seed, uint64_t i)
{
	return w ? w->ins[i - 1] : key_hash('k', seed, i);
}

/* Hashes of the absent probe keys. */
static uint64_t *
probe_hashes(const Words *w, unsigned seed, uint64_t *nprobes)
{
	uint64_t   *h;
	uint64_t	j;

	if (w)
	{
		*nprobes = w->nprobe;
		return w->probe;
	}
	h = malloc(*nprobes * sizeof(uint64_t));
	for (j = 0; j < *nprobes; j++)
		h[j] = key_hash('a', seed, j + 1);
	return h;
}

/*
 * Checkpoints from 10 up to nmax (and nmax itself): `grid` log-spaced points
 * per decade, or the 1-2-5 series when grid is 0.  probe[i] tells where the
 * false-positive rate is measured: on every `every`-th point of a decade
 * (every = grid: at the powers of ten only; probing a filter of a thousand
 * segments is slow); the others record bytes only.
 */
static int
checkpoints(uint64_t nmax, int grid, int every, uint64_t *pts, bool *probe)
{
	static const double f125[] = {1.0, 2.0, 5.0};
	int			per = grid > 0 ? grid : 3;
	int			np = 0;
	int			d;

	for (d = 1; d <= 10 && np < MAX_POINTS - 1; d++)
	{
		int			j;

		for (j = 0; j < per && np < MAX_POINTS - 1; j++)
		{
			double		x = grid > 0 ? pow(10.0, d + (double) j / grid) :
				f125[j] * pow(10.0, d);
			uint64_t	n = (uint64_t) llround(x);

			if (n > nmax)
				break;
			if (np > 0 && n <= pts[np - 1])
				continue;
			pts[np] = n;
			probe[np] = every <= 1 || j % every == 0;
			np++;
		}
	}
	if (np == 0 || pts[np - 1] < nmax)
	{
		pts[np] = nmax;
		probe[np] = true;
		np++;
	}
	return np;
}

/* ---- allocator for the core ---- */

static void *
std_alloc(size_t size, void *ctx)
{
	(void) ctx;
	return malloc(size);
}

static void *
std_realloc(void *ptr, size_t size, void *ctx)
{
	(void) ctx;
	return realloc(ptr, size);
}

static void
std_free(void *ptr, void *ctx)
{
	(void) ctx;
	free(ptr);
}

static const SbfAllocator std_allocator = {std_alloc, std_realloc, std_free, NULL};

static void
check(SbfStatus st, const char *what)
{
	if (st != SBF_OK)
	{
		fprintf(stderr, "sbf_study: %s: %s\n", what, sbf_status_message(st));
		exit(1);
	}
}

/* Deterministic PRNG (splitmix64 stepping) for the repeats workload. */
static uint64_t
prng_next(uint64_t *state)
{
	*state += UINT64_C(0x9e3779b97f4a7c15);
	return sbf_mix64(*state);
}

/* ---- grow: the real filter, grown through the core ---- */

/* FPR predicted from each segment's count: 1 - prod(1 - (1 - e^(-kn/m))^k). */
static double
formula_fpr(const SbfView *v)
{
	double		pass = 1.0;
	uint32_t	i;

	for (i = 0; i < v->nsegments; i++)
	{
		SbfSegment	seg;

		sbf_get_segment(v, i, &seg);
		pass *= 1.0 - pow(1.0 - exp(-(double) seg.k * seg.count / seg.nbits),
						  (double) seg.k);
	}
	return 1.0 - pass;
}

static void
grow_header(void)
{
	printf("label\tkeys\tgrowth\ttightening\tcapacity\terror_rate\thll_p\tn\t"
		   "probes\tfalse_pos\tfpr\tfpr_formula\tfpr_bound\tnsegments\t"
		   "inserted\tbytes\tbloom_bytes\thll_bytes\tbits_per_elem\t"
		   "ratio_opt\tratio_floor\thll_share\tcard_est\tcard_relerr\n");
}

static int
cmd_grow(const Args *a)
{
	const char *label = arg_str(a, "label", "grow");
	const char *wpath = arg_str(a, "words", NULL);
	SbfParams	p;
	uint64_t	nmax = (uint64_t) arg_num(a, "nmax", 1e6);
	uint64_t	nprobes = (uint64_t) arg_num(a, "probes", 100000);
	unsigned	seed = (unsigned) arg_num(a, "seed", 1);
	int			grid = (int) arg_num(a, "grid", 10);
	int			every = (int) arg_num(a, "every", 1);
	Words		words;
	Words	   *w = NULL;
	uint64_t   *probes;
	uint64_t	pts[MAX_POINTS];
	bool		dofpr[MAX_POINTS];
	int			np;
	int			ci = 0;
	uint64_t	i;
	SbfFilter	f;
	uint64_t	sized = (uint64_t) arg_num(a, "sized", 0);

	/*
	 * sized=N builds the filter as sbf_agg does (src/pg/sbf_agg.c, agg_params):
	 * one segment right-sized for N under the default header capacity c,
	 * which decides the segments later || adds open
	 * (min(largest * s, c * s^nsegments)).
	 */
	p.capacity = (uint64_t) arg_num(a, "c", SBF_DEFAULT_CAPACITY);
	p.error_rate = arg_num(a, "e", SBF_DEFAULT_ERROR_RATE);
	p.growth = (uint16_t) arg_num(a, "s", SBF_DEFAULT_GROWTH);
	p.tightening = arg_num(a, "r", SBF_DEFAULT_TIGHTENING);
	p.hll_p = (uint8_t) arg_num(a, "p", SBF_HLL_P_DEFAULT);
	if (wpath)
	{
		words_load(&words, wpath);
		w = &words;
		if (nmax > w->nins)
			nmax = w->nins;
	}
	probes = probe_hashes(w, seed, &nprobes);
	np = checkpoints(nmax, grid, every, pts, dofpr);
	if (sized > 0)
		check(sbf_create_sized(&f, &p, sized, 0, &std_allocator), "create");
	else
		check(sbf_create(&f, &p, 0, &std_allocator), "create");

	for (i = 1; i <= nmax; i++)
	{
		SbfStatus	st = sbf_add_hash(&f, insert_hash(w, seed, i), NULL);

		if (st == SBF_E_TOO_MANY_SEGMENTS || st == SBF_E_TOO_LARGE)
		{
			fprintf(stderr, "sbf_study: %s stops at n = %llu: %s\n", label,
					(unsigned long long) i, sbf_status_message(st));
			break;
		}
		check(st, "add");
		if (ci < np && i == pts[ci])
		{
			SbfView		v;
			uint64_t	fp = 0;
			uint64_t	inserted = 0;
			uint64_t	bloom = 0;
			uint32_t	s;
			double		bpe;
			double		card;

			sbf_filter_view(&f, &v);
			if (dofpr[ci])
			{
				uint64_t	j;

				for (j = 0; j < nprobes; j++)
					fp += sbf_contains_hash(&v, probes[j]);
			}
			for (s = 0; s < v.nsegments; s++)
			{
				SbfSegment	seg;

				sbf_get_segment(&v, s, &seg);
				inserted += seg.count;
				bloom += sbf_words_bytes(seg.nbits);
			}
			bpe = 8.0 * (double) v.len / (double) i;
			card = sbf_cardinality(&v);
			printf("%s\t%s\t%u\t%g\t%llu\t%g\t%u\t%llu\t%llu\t%llu\t%.6g\t%.6g\t"
				   "%.6g\t%u\t%llu\t%zu\t%llu\t%u\t%.4f\t%.4f\t%.4f\t%.4f\t"
				   "%.1f\t%.5f\n",
				   label, w ? "words" : "synthetic", p.growth, p.tightening,
				   (unsigned long long) p.capacity, p.error_rate, p.hll_p,
				   (unsigned long long) i,
				   (unsigned long long) (dofpr[ci] ? nprobes : 0),
				   (unsigned long long) fp,
				   dofpr[ci] ? (double) fp / (double) nprobes : NAN,
				   formula_fpr(&v), sbf_fpr_bound(&v), v.nsegments,
				   (unsigned long long) inserted, v.len,
				   (unsigned long long) bloom, v.hll_bytes, bpe,
				   bpe / BLOOM_OPT_BITS(p.error_rate),
				   bpe / FLOOR_BITS(p.error_rate),
				   (double) v.hll_bytes / (double) v.len,
				   card, (card - (double) i) / (double) i);
			fflush(stdout);
			ci++;
		}
	}
	sbf_filter_free(&f);
	return 0;
}

/* ---- fixed: one Bloom filter sized for the initial capacity ---- */

static int
cmd_fixed(const Args *a)
{
	const char *label = arg_str(a, "label", "fixed");
	const char *wpath = arg_str(a, "words", NULL);
	uint64_t	c = (uint64_t) arg_num(a, "c", SBF_DEFAULT_CAPACITY);
	double		e = arg_num(a, "e", SBF_DEFAULT_ERROR_RATE);
	uint64_t	nmax = (uint64_t) arg_num(a, "nmax", 1e6);
	uint64_t	nprobes = (uint64_t) arg_num(a, "probes", 100000);
	unsigned	seed = (unsigned) arg_num(a, "seed", 1);
	int			grid = (int) arg_num(a, "grid", 10);
	int			every = (int) arg_num(a, "every", 1);
	Words		words;
	Words	   *w = NULL;
	uint64_t   *probes;
	uint64_t	pts[MAX_POINTS];
	bool		dofpr[MAX_POINTS];
	uint64_t	m;
	uint32_t	k;
	uint8_t    *bits;
	int			np;
	int			ci = 0;
	uint64_t	i;

	if (wpath)
	{
		words_load(&words, wpath);
		w = &words;
		if (nmax > w->nins)
			nmax = w->nins;
	}
	probes = probe_hashes(w, seed, &nprobes);
	np = checkpoints(nmax, grid, every, pts, dofpr);
	if (!sbf_segment_geometry(c, e, SBF_MAX_SEGMENT_BITS, &m, &k))
		return 1;
	bits = calloc(sbf_words_bytes(m), 1);

	for (i = 1; i <= nmax && ci < np; i++)
	{
		uint64_t	h = insert_hash(w, seed, i);
		SbfPosIter	it;
		uint32_t	j;

		sbf_pos_start(&it, h, sbf_mix64(h) | 1, m);
		for (j = 0; j < k; j++)
			sbf_bit_set(bits, sbf_pos_next(&it));
		if (i == pts[ci])
		{
			uint64_t	fp = 0;
			uint64_t	q;
			double		bpe = 8.0 * (double) sbf_words_bytes(m) / (double) i;

			if (dofpr[ci])
				for (q = 0; q < nprobes; q++)
				{
					sbf_pos_start(&it, probes[q], sbf_mix64(probes[q]) | 1, m);
					for (j = 0; j < k; j++)
						if (!sbf_bit_test(bits, sbf_pos_next(&it)))
							break;
					fp += (j == k);
				}
			printf("%s\t%s\t0\t1\t%llu\t%g\t0\t%llu\t%llu\t%llu\t%.6g\t%.6g\t"
				   "%.6g\t1\t%llu\t%llu\t%llu\t0\t%.4f\t%.4f\t%.4f\t0\tNaN\tNaN\n",
				   label, w ? "words" : "synthetic", (unsigned long long) c, e,
				   (unsigned long long) i,
				   (unsigned long long) (dofpr[ci] ? nprobes : 0),
				   (unsigned long long) fp,
				   dofpr[ci] ? (double) fp / (double) nprobes : NAN,
				   pow(1.0 - exp(-(double) k * i / m), k), e,
				   (unsigned long long) i,
				   (unsigned long long) sbf_words_bytes(m),
				   (unsigned long long) sbf_words_bytes(m), bpe,
				   bpe / BLOOM_OPT_BITS(e), bpe / FLOOR_BITS(e));
			ci++;
		}
	}
	free(bits);
	return 0;
}

/* ---- card: the embedded HyperLogLog's estimates ---- */

static int
cmd_card(const Args *a)
{
	SbfParams	p;
	const char *tag = arg_str(a, "tag", "sbf");
	int			seeds = (int) arg_num(a, "seeds", 20);
	int			bigseeds = (int) arg_num(a, "bigseeds", 5);
	uint64_t	nmax = (uint64_t) arg_num(a, "nmax", 1e6);
	uint64_t	bignmax = (uint64_t) arg_num(a, "bignmax", 1e7);
	uint64_t	pts[MAX_POINTS];
	bool		dummy[MAX_POINTS];
	int			seed;

	p.capacity = 1;
	p.error_rate = SBF_DEFAULT_ERROR_RATE;
	p.growth = 1;
	p.tightening = 1.0;
	p.hll_p = (uint8_t) arg_num(a, "p", SBF_HLL_P_DEFAULT);

	for (seed = 1; seed <= seeds; seed++)
	{
		uint64_t	top = seed <= bigseeds ? bignmax : nmax;
		int			np = checkpoints(top, 0, 1, pts, dummy);
		int			ci = 0;
		uint64_t	i;
		SbfFilter	f;

		check(sbf_create(&f, &p, 0, &std_allocator), "create");
		/* the HyperLogLog lives in the segmented form (format 2) */
		check(sbf_convert(&f), "convert");
		for (i = 1; i <= top; i++)
		{
			char		buf[48];
			int			len = snprintf(buf, sizeof(buf), "u%d:%llu", seed,
									   (unsigned long long) i);

			check(sbf_hll_add_hash(&f, sbf_hash(buf, (size_t) len)), "hll add");
			if (ci < np && i == pts[ci])
			{
				SbfView		v;

				sbf_filter_view(&f, &v);
				printf("%s\tp=%u\t%d\t%llu\t%.3f\t%u\n", tag, p.hll_p, seed,
					   (unsigned long long) i, sbf_hll_cardinality(&v), v.hll_bytes);
				ci++;
			}
		}
		sbf_filter_free(&f);
	}
	return 0;
}

/* ---- count: the directory count against the truth and the HyperLogLog ---- */

static int
cmd_count(const Args *a)
{
	SbfParams	p;
	int			seeds = (int) arg_num(a, "seeds", 5);
	uint64_t	nmax = (uint64_t) arg_num(a, "nmax", 1e6);
	uint64_t	pts[MAX_POINTS];
	bool		dummy[MAX_POINTS];
	int			np = checkpoints(nmax, 0, 1, pts, dummy);
	int			seed;

	p.capacity = SBF_DEFAULT_CAPACITY;
	p.error_rate = SBF_DEFAULT_ERROR_RATE;
	p.growth = SBF_DEFAULT_GROWTH;
	p.tightening = SBF_DEFAULT_TIGHTENING;
	p.hll_p = SBF_HLL_P_DEFAULT;
	for (seed = 1; seed <= seeds; seed++)
	{
		SbfFilter	f;
		SbfView		v;
		uint64_t	i;
		int			ci = 0;

		/* grown: one add at a time */
		check(sbf_create(&f, &p, 0, &std_allocator), "create");
		for (i = 1; i <= nmax; i++)
		{
			char		buf[48];
			int			len = snprintf(buf, sizeof(buf), "c%d:%llu", seed,
									   (unsigned long long) i);

			check(sbf_add_hash(&f, sbf_hash(buf, (size_t) len), NULL), "add");
			if (ci < np && i == pts[ci])
			{
				sbf_filter_view(&f, &v);
				printf("grown\t%d\t%llu\t%s\t%.3f\t%.3f\n", seed,
					   (unsigned long long) i, sbf_count_source(&v),
					   sbf_cardinality(&v), sbf_hll_cardinality(&v));
				ci++;
			}
		}
		sbf_filter_free(&f);
		/* sbf_agg: right-sized for n, one batch add */
		for (ci = 0; ci < np; ci++)
		{
			uint64_t	n = pts[ci];
			uint64_t   *h = malloc(n * sizeof(uint64_t));

			if (h == NULL)
				return 1;
			for (i = 0; i < n; i++)
			{
				char		buf[48];
				int			len = snprintf(buf, sizeof(buf), "c%d:%llu", seed,
										   (unsigned long long) (i + 1));

				h[i] = sbf_hash(buf, (size_t) len);
			}
			check(sbf_create_sized(&f, &p, n, 0, &std_allocator), "create");
			check(sbf_add_hashes(&f, h, n), "add");
			sbf_filter_view(&f, &v);
			printf("agg\t%d\t%llu\t%s\t%.3f\t%.3f\n", seed, (unsigned long long) n,
				   sbf_count_source(&v), sbf_cardinality(&v), sbf_hll_cardinality(&v));
			sbf_filter_free(&f);
			free(h);
		}
	}
	return 0;
}

/* ---- policy: a simulated chain with either "segment full" rule ---- */

typedef struct SimSeg
{
	uint64_t	capacity;
	uint64_t	writes;			/* elements whose bits went in */
	uint64_t	m;
	double		error;			/* the core's budget rule, sbf_next_error */
	uint32_t	k;
	uint8_t    *bits;
} SimSeg;

typedef struct Sim
{
	SimSeg		seg[SBF_MAX_SEGMENTS];
	uint32_t	nseg;
	uint64_t	cumcap;			/* sum of the capacities of all segments */
	uint64_t	bytes;
	double		e;
	double		r;
	double		spent;			/* sum of the segments' errors */
	double		smallest;		/* smallest segment error */
	uint16_t	s;
} Sim;

static void
sim_append(Sim *sim)
{
	SimSeg	   *g = &sim->seg[sim->nseg];
	uint64_t	cap = sim->nseg == 0 ? sim->seg[0].capacity :
		sim->seg[sim->nseg - 1].capacity * sim->s;

	g->capacity = cap;
	g->writes = 0;
	g->error = sbf_next_error(sim->e, sim->r, sim->spent, sim->smallest);
	sim->spent += g->error;
	if (g->error < sim->smallest)
		sim->smallest = g->error;
	if (!sbf_segment_geometry(cap, g->error, SBF_MAX_SEGMENT_BITS, &g->m, &g->k))
		exit(1);
	g->bits = calloc(sbf_words_bytes(g->m), 1);
	sim->bytes += sbf_words_bytes(g->m);
	sim->cumcap += cap;
	sim->nseg++;
}

static bool
sim_contains(const Sim *sim, uint64_t h)
{
	uint64_t	h2 = sbf_mix64(h) | 1;
	uint32_t	i;

	for (i = 0; i < sim->nseg; i++)
	{
		SbfPosIter	it;
		uint32_t	j;

		sbf_pos_start(&it, h, h2, sim->seg[i].m);
		for (j = 0; j < sim->seg[i].k; j++)
			if (!sbf_bit_test(sim->seg[i].bits, sbf_pos_next(&it)))
				break;
		if (j == sim->seg[i].k)
			return true;
	}
	return false;
}

static void
sim_write(Sim *sim, uint64_t h)
{
	SimSeg	   *g = &sim->seg[sim->nseg - 1];
	SbfPosIter	it;
	uint32_t	j;

	sbf_pos_start(&it, h, sbf_mix64(h) | 1, g->m);
	for (j = 0; j < g->k; j++)
		sbf_bit_set(g->bits, sbf_pos_next(&it));
	g->writes++;
}

static void
policy_header(void)
{
	printf("policy\tworkload\tgrowth\ttightening\tcapacity\thll_p\tseed\tn\t"
		   "adds\tprobes\tfalse_pos\tfpr\tfpr_bound\tfpr_over_bound\tnsegments\t"
		   "max_fill\tbloom_bytes\tratio_opt\tmatches_core\n");
}

/*
 * "count": the core's rule -- an add that is probably present changes
 * nothing; otherwise its bits go into the last segment, which is closed when
 * its count reaches capacity.  Checked against the real core when verify=1.
 * "hll": seed 000's rule -- every add is written into the open segment and a
 * new segment is opened as soon as the HyperLogLog estimate of the distinct
 * count reaches the total capacity of the segments so far.
 */
static int
cmd_policy(const Args *a)
{
	const char *policy = arg_str(a, "policy", "count");
	const char *workload = arg_str(a, "workload", "distinct");
	bool		use_hll = strcmp(policy, "hll") == 0;
	bool		repeats = strcmp(workload, "repeats") == 0;
	int			verify_seeds = use_hll ? 0 : (int) arg_num(a, "verify", 0);
	int			seeds = (int) arg_num(a, "seeds", 10);
	uint64_t	nmax = (uint64_t) arg_num(a, "nmax", 1e6);
	uint64_t	nprobes = (uint64_t) arg_num(a, "probes", 100000);
	SbfParams	p;
	static Sim	sim;
	int			seed;

	p.capacity = (uint64_t) arg_num(a, "c", SBF_DEFAULT_CAPACITY);
	p.error_rate = arg_num(a, "e", SBF_DEFAULT_ERROR_RATE);
	p.growth = (uint16_t) arg_num(a, "s", SBF_DEFAULT_GROWTH);
	p.tightening = arg_num(a, "r", SBF_DEFAULT_TIGHTENING);
	p.hll_p = (uint8_t) arg_num(a, "p", SBF_HLL_P_DEFAULT);

	for (seed = 1; seed <= seeds; seed++)
	{
		uint64_t	pts[MAX_POINTS];
		bool		dofpr[MAX_POINTS];
		int			np = checkpoints(nmax, 0, 1, pts, dofpr);
		int			ci = 0;
		uint64_t   *probes = probe_hashes(NULL, (unsigned) seed, &nprobes);
		uint8_t		regs[1 << SBF_HLL_P_MAX];
		uint64_t	distinct = 0;
		uint64_t	adds = 0;
		uint64_t	rng = (uint64_t) seed;
		double		est = 0.0;
		SbfFilter	hf;			/* HyperLogLog only (hll rule) */
		SbfFilter	cf;			/* the real core filter (verify) */
		uint32_t	i;
		bool		verify = seed <= verify_seeds;

		memset(&sim, 0, sizeof(sim));
		sim.smallest = 0.5;
		memset(regs, 0, sizeof(regs));
		sim.e = p.error_rate;
		sim.r = p.tightening;
		sim.s = p.growth;
		sim.seg[0].capacity = p.capacity;
		sim_append(&sim);
		check(sbf_create(&hf, &p, 0, &std_allocator), "create");
		check(sbf_convert(&hf), "convert");
		if (verify)
		{
			/* segmented from the start, as the simulation is */
			check(sbf_create(&cf, &p, 0, &std_allocator), "create");
			check(sbf_convert(&cf), "convert");
		}

		while (distinct < nmax)
		{
			uint64_t	h;
			bool		fresh = true;

			/* repeats: every other add, on average, re-adds an old key */
			if (repeats && distinct > 0 && (prng_next(&rng) & 1))
			{
				h = key_hash('k', (unsigned) seed, 1 + prng_next(&rng) % distinct);
				fresh = false;
			}
			else
				h = key_hash('k', (unsigned) seed, ++distinct);
			adds++;

			if (use_hll)
			{
				uint32_t	idx = (uint32_t) (h & ((1u << p.hll_p) - 1));
				uint64_t	rest = h >> p.hll_p;
				uint8_t		rho = rest == 0 ? (uint8_t) (65 - p.hll_p) :
					(uint8_t) (sbf_ctz64(rest) + 1);

				check(sbf_hll_add_hash(&hf, h), "hll add");
				if (rho > regs[idx])
				{
					SbfView		hv;

					regs[idx] = rho;
					sbf_filter_view(&hf, &hv);
					est = sbf_hll_cardinality(&hv);
				}
				while (est >= (double) sim.cumcap && sim.nseg < SBF_MAX_SEGMENTS)
					sim_append(&sim);
				sim_write(&sim, h);
			}
			else if (!sim_contains(&sim, h))
			{
				if (sim.seg[sim.nseg - 1].writes >= sim.seg[sim.nseg - 1].capacity)
				{
					if (sim.nseg >= SBF_MAX_SEGMENTS)
						break;
					sim_append(&sim);
				}
				sim_write(&sim, h);
			}
			if (verify)
				check(sbf_add_hash(&cf, h, NULL), "add");

			if (fresh && ci < np && distinct == pts[ci])
			{
				uint64_t	fp = 0;
				uint64_t	j;
				double		bound = 0.0;
				double		maxfill = 0.0;
				int			matches = -1;

				for (j = 0; j < nprobes; j++)
					fp += sim_contains(&sim, probes[j]);
				for (i = 0; i < sim.nseg; i++)
				{
					double		fill = (double) sim.seg[i].writes / sim.seg[i].capacity;

					bound += sim.seg[i].error;
					if (fill > maxfill)
						maxfill = fill;
				}
				if (verify)
				{
					SbfView		cv;
					uint64_t	cfp = 0;

					sbf_filter_view(&cf, &cv);
					for (j = 0; j < nprobes; j++)
						cfp += sbf_contains_hash(&cv, probes[j]);
					matches = (cfp == fp && cv.nsegments == sim.nseg);
				}
				printf("%s\t%s\t%u\t%g\t%llu\t%u\t%d\t%llu\t%llu\t%llu\t%llu\t"
					   "%.6g\t%.6g\t%.4f\t%u\t%.4f\t%llu\t%.4f\t%d\n",
					   policy, workload, p.growth, p.tightening,
					   (unsigned long long) p.capacity, p.hll_p, seed,
					   (unsigned long long) distinct, (unsigned long long) adds,
					   (unsigned long long) nprobes, (unsigned long long) fp,
					   (double) fp / nprobes, bound,
					   (double) fp / nprobes / (bound < 1.0 ? bound : 1.0),
					   sim.nseg, maxfill, (unsigned long long) sim.bytes,
					   8.0 * sim.bytes / distinct / BLOOM_OPT_BITS(p.error_rate),
					   matches);
				fflush(stdout);
				ci++;
			}
		}
		for (i = 0; i < sim.nseg; i++)
			free(sim.seg[i].bits);
		sbf_filter_free(&hf);
		if (verify)
			sbf_filter_free(&cf);
		free(probes);
	}
	return 0;
}

/* ---- analytic: the sizing formulas, no elements involved ---- */

/*
 * Bit-array bytes the core allocates to hold n elements when every segment is
 * filled to capacity before the next is appended (the last one is allocated
 * in full, as in the real filter).
 */
static double
analytic_bytes(uint16_t s, double r, uint64_t c, double e, double n,
			   uint32_t *nseg)
{
	double		bytes = 0.0;
	double		cum = 0.0;
	double		cap = (double) c;
	double		spent = 0.0;
	uint32_t	t;

	for (t = 0; cum < n && t < SBF_MAX_SEGMENTS; t++)
	{
		uint64_t	m;
		uint32_t	k;

		double		pe = sbf_next_error(e, r, spent, 0.5);

		spent += pe;
		if (!sbf_segment_geometry((uint64_t) cap, pe, SBF_MAX_SEGMENT_BITS, &m, &k))
			return INFINITY;
		bytes += (double) sbf_words_bytes(m);
		cum += cap;
		cap *= s;
	}
	*nseg = t;
	return cum < n ? INFINITY : bytes;
}

static int
cmd_analytic(const Args *a)
{
	double		e = arg_num(a, "e", SBF_DEFAULT_ERROR_RATE);
	uint64_t	c = (uint64_t) arg_num(a, "c", SBF_DEFAULT_CAPACITY);
	double		opt = BLOOM_OPT_BITS(e) / 8.0;
	uint16_t	s;

	printf("growth\ttightening\tratio_at_1000x\tnseg_at_1000x\t"
		   "ratio_full_best\tratio_logavg_100x_10000x\tratio_max_100x_10000x\t"
		   "n_last_within_1.6x\n");
	for (s = 2; s <= 8; s++)
	{
		int			ri;

		for (ri = 30; ri <= 99; ri++)
		{
			double		r = ri / 100.0;
			uint32_t	nseg;
			double		at = analytic_bytes(s, r, c, e, 1000.0 * c, &nseg) /
				(1000.0 * c * opt);
			double		sum = 0.0;
			double		mx = 0.0;
			double		best = INFINITY;
			double		last16 = 0.0;
			double		cum = 0.0;
			double		cap = (double) c;
			uint32_t	ns;
			int			q;

			/* log-average and maximum over 100x..10000x growth */
			for (q = 0; q <= 200; q++)
			{
				double		n = c * pow(10.0, 2.0 + q / 100.0);
				double		ratio = analytic_bytes(s, r, c, e, n, &ns) / (n * opt);

				sum += ratio;
				if (ratio > mx)
					mx = ratio;
			}
			/* ratio just when a segment fills, for fills from 1x to 10000x */
			while (cum < 1e4 * c)
			{
				double		ratio;

				cum += cap;
				cap *= s;
				ratio = analytic_bytes(s, r, c, e, cum, &ns) / (cum * opt);
				if (cum >= 1000.0 * c && ratio < best)
					best = ratio;
				if (ratio <= 1.6)
					last16 = cum;
			}
			printf("%u\t%.2f\t%.4f\t%u\t%.4f\t%.4f\t%.4f\t%.0f\n", s, r, at, nseg,
				   best, sum / 201.0, mx, last16);
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	Args		a;
	clock_t		t0 = clock();
	int			rc;

	if (argc < 2)
	{
		fprintf(stderr, "usage: sbf_study grow|fixed|card|count|policy|analytic key=value...\n");
		return 2;
	}
	args_parse(&a, argc - 2, argv + 2);
	if (arg_num(&a, "header", 0) != 0)
	{
		if (strcmp(argv[1], "policy") == 0)
			policy_header();
		else if (strcmp(argv[1], "card") == 0)
			printf("impl\tparams\tseed\tn\testimate\tbytes\n");
		else if (strcmp(argv[1], "count") == 0)
			printf("path\tseed\tn\tsource\tcount\thll\n");
		else if (strcmp(argv[1], "analytic") != 0)
			grow_header();
	}
	if (strcmp(argv[1], "grow") == 0)
		rc = cmd_grow(&a);
	else if (strcmp(argv[1], "fixed") == 0)
		rc = cmd_fixed(&a);
	else if (strcmp(argv[1], "card") == 0)
		rc = cmd_card(&a);
	else if (strcmp(argv[1], "policy") == 0)
		rc = cmd_policy(&a);
	else if (strcmp(argv[1], "count") == 0)
		rc = cmd_count(&a);
	else if (strcmp(argv[1], "analytic") == 0)
		rc = cmd_analytic(&a);
	else
	{
		fprintf(stderr, "sbf_study: unknown command \"%s\"\n", argv[1]);
		return 2;
	}
	fprintf(stderr, "sbf_study %s %s: %.1f s\n", argv[1],
			arg_str(&a, "label", arg_str(&a, "policy", "")),
			(double) (clock() - t0) / CLOCKS_PER_SEC);
	return rc;
}
