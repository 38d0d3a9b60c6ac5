/*
 * fpr_bound_check.c
 *	  Is fpr_bound an upper bound?  (issue 36, item 4.)  For every
 *	  scalablebloom value of the test kit (test/kit/kit.txt: formats 1-4,
 *	  every kind, exact, windowed, unions, relabelled, sbf_delta), probes N
 *	  random 64-bit hashes that are absent and compares the measured rate
 *	  with the value's own bound:
 *	    plain values     sbf_contains_hash against sbf_fpr_bound (per segment
 *	                     the larger of the stored rate and its bits' rate,
 *	                     docs/format.md RATE BOUND);
 *	    windowed values  sbf_win_contains at every max_age 0..B-1 (age 0 is
 *	                     "since the newest bucket", B-1 the whole window: every
 *	                     since the contract promises <= error_rate for) against
 *	                     sbf_win_fpr_bound (the bound for any since).
 *	  Absent: the kit lists the elements of the values it rebuilds ("built",
 *	  "built_window" records); a probe equal to one of them is drawn again.
 *	  For the other values the elements are unknown, and a random 64-bit
 *	  hash equals one of n <= 20,000 elements with probability n / 2^64
 *	  (< 1.1e-15 a probe, < 1.1e-9 over 10^6 probes): absent with
 *	  overwhelming probability.
 *	  Prints rate, bound, sigma = sqrt(bound (1 - bound) / N) and
 *	  z = (rate - bound) / sigma; "OVER" marks z > 3.  Plain values also
 *	  print est = sbf_current_fpr (the rate expected from the segments' fill)
 *	  and the bound 1.0-1.3 reported, the sum of the stored rates
 *	  (stored_sum below), with its z'.
 *	  Fixed seeds: the same output every run.
 *	  -s: below each plain value over its bound, one "#   seg" line a
 *	  segment: kind, geometry, count, capacity, the stored p, the rate from
 *	  its fill (rate_of), the rate from its count (expected_rate), and the
 *	  segment's own rate over N more probes with z against p.
 *	    fpr_bound_check [-s] kit.txt [N]		(N defaults to 1,000,000)
 *	  Exits 0 (a measurement, not a test).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_dir.h"
#include "sbf_internal.h"
#include "sbf_kind.h"
#include "sbf_window.h"

#define PREFIX	4

typedef struct Val
{
	char		name[200];
	bool		active;
	uint8_t    *mem;
	size_t		len;
	uint64_t   *members;
	size_t		nmembers,
				capmembers;
} Val;

static long nprobes = 1000000;
static bool segments;
static long nvalues,
			nover,
			nover_prop;

static uint64_t
splitmix(uint64_t *s)
{
	uint64_t	z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static uint64_t
seed_of(const char *name)
{
	uint64_t	s = 0x5bf36;

	for (; *name; name++)
		s = s * 131 + (uint8_t) *name;
	return s;
}

/* The next probe: random, and not one of the value's known members. */
static uint64_t
absent_probe(Val *c, uint64_t *s)
{
	for (;;)
	{
		uint64_t	h = splitmix(s);

		if (c->nmembers == 0 ||
			bsearch(&h, c->members, c->nmembers, sizeof(uint64_t), cmp_u64) == NULL)
			return h;
	}
}

static void
report(const char *name, const char *since, long hits, double bound, double e,
	   double est, double prop)
{
	double		rate = (double) hits / (double) nprobes;
	double		sigma = sqrt(bound * (1.0 - bound) / (double) nprobes);
	double		z = sigma > 0 ? (rate - bound) / sigma : (hits > 0 ? INFINITY : 0.0);
	char		estbuf[32] = "-",
				propbuf[48] = "-";
	double		zp = 0.0;

	if (est >= 0)
		snprintf(estbuf, sizeof(estbuf), "%.6f", est);
	if (prop >= 0)
	{
		double		sp = sqrt(prop * (1.0 - prop) / (double) nprobes);

		zp = sp > 0 ? (rate - prop) / sp : (hits > 0 ? INFINITY : 0.0);
		snprintf(propbuf, sizeof(propbuf), "%.6f %7.2f", prop, zp);
		if (zp > 3.0)
			nover_prop++;
	}
	if (z > 3.0)
		nover++;
	printf("%-44s %-5s %8.6f %8.6f %8.6f %8.6f %7.2f %-8s %-16s %s\n", name, since, e,
		   rate, bound, sigma, z, estbuf, propbuf, z > 3.0 ? "OVER" : "");
}

/* bloom segments of at most this many bits get their exact rate computed */
#define EXACT_MAX_BITS	16384

/*
 * The exact false-positive rate of a bloom segment (kind 1, formats 1-2 and 4,
 * enhanced double hashing) of m bits and k hashes for a uniform probe: the
 * share of (x, y) = (h mod m, (mix(h) | 1) mod m) whose k positions are all
 * set.  y is uniform over the odd residues when m is even, over all when m
 * is odd (up to a bias of m / 2^63).  O(m^2) bit tests: small segments only.
 * Unlike fill^k it counts the positions' dependence (coinciding positions,
 * the same pattern as an inserted element's), which is large for small m.
 */
static double
exact_bloom_rate(const uint8_t *words, uint64_t m, uint32_t k)
{
	uint64_t   *off = malloc(k * sizeof(uint64_t));
	uint64_t	x,
				y,
				ny = 0;
	double		hits = 0;
	uint32_t	j;

	for (y = m % 2 == 0 ? 1 : 0; y < m; y += m % 2 == 0 ? 2 : 1)
	{
		SbfPosIter	it;
		uint64_t	n = 0;

		sbf_pos_start(&it, 0, y, m);
		for (j = 0; j < k; j++)
			off[j] = sbf_pos_next(&it);
		for (x = 0; x < m; x++)
		{
			for (j = 0; j < k; j++)
			{
				uint64_t	q = x + off[j];

				if (q >= m)
					q -= m;
				if (!((words[q >> 3] >> (q & 7)) & 1))
					break;
			}
			n += j == k;
		}
		hits += (double) n;
		ny++;
	}
	free(off);
	return hits / ((double) ny * (double) m);
}

/*
 * The bound 1.0-1.3 reported, the sum of the directory's stored p (the
 * rate each segment was sized for at capacity, sbf_fpr_budget): today's
 * fpr_bound takes per segment the larger of it and the rate of the
 * segment's bits (docs/format.md RATE BOUND), so this column shows what
 * that adds.
 */
static double
stored_sum(const SbfView *v)
{
	return sbf_fpr_budget(v);
}

/*
 * Per segment of a plain value over its bound: kind, geometry, count and
 * capacity, the stored p, the rate its fill gives (rate_of), the rate its
 * count gives (expected_rate) and the segment's own measured rate.
 */
static void
segments_of(Val *c, const SbfView *v)
{
	SbfDirIter	it;
	SbfDirEntry e;

	sbf_dir_view(&it, v);
	while (sbf_dir_next(&it, &e))
	{
		uint64_t	s = seed_of(c->name) ^ (0x1000 + e.index);
		const uint8_t *data = v->buf + e.data;
		long		i,
					hits = 0;
		char		exact[48];
		double		rate,
					p = e.error,
					sigma = sqrt(p * (1.0 - p) / (double) nprobes);

		for (i = 0; i < nprobes; i++)
			hits += e.ops->contains(&e.g, data, absent_probe(c, &s));
		rate = (double) hits / (double) nprobes;
		if (e.g.kind == SBF_KIND_BLOOM && e.g.size <= EXACT_MAX_BITS)
		{
			double		x = exact_bloom_rate(data, e.g.size, e.g.width),
						f = e.ops->rate_of(&e.g, data);

			/* c: exact = fill^k (1 + c k^2 / m) */
			snprintf(exact, sizeof(exact), "%.6f c %.2f", x,
					 f > 0 ? (x / f - 1.0) * e.g.size / ((double) e.g.width * e.g.width) : 0.0);
		}
		else
			snprintf(exact, sizeof(exact), "-");
		printf("#   seg %-3u kind %u size %-8" PRIu64 " k %-2u count %-6" PRIu64
			   " cap %-6" PRIu64 " p %.6f fill^k %.6f exact %s from_count %.6f rate %.6f z %.2f\n",
			   e.index, e.g.kind, e.g.size, e.g.width, e.count, e.capacity, p,
			   e.ops->rate_of(&e.g, data), exact, e.ops->expected_rate(&e.g, e.count),
			   rate, sigma > 0 ? (rate - p) / sigma : 0.0);
	}
}

static void
measure_plain(Val *c, const SbfView *v)
{
	uint64_t	s = seed_of(c->name);
	long		i,
				hits = 0;

	for (i = 0; i < nprobes; i++)
		hits += sbf_contains_hash(v, absent_probe(c, &s));
	report(c->name, "-", hits, sbf_fpr_bound(v), v->error_rate,
		   sbf_is_exact(v) ? 0.0 : sbf_current_fpr(v), stored_sum(v));
	if (segments && (double) hits / (double) nprobes > sbf_fpr_bound(v) +
		3.0 * sqrt(sbf_fpr_bound(v) * (1.0 - sbf_fpr_bound(v)) / (double) nprobes))
		segments_of(c, v);
}

static void
measure_window(Val *c, const SbfWinView *wv)
{
	uint64_t	s = seed_of(c->name);
	uint32_t	B = wv->buckets,
				a;
	long	   *hits = calloc(B, sizeof(long));
	long		i;
	double		bound = sbf_win_fpr_bound(wv);

	for (i = 0; i < nprobes; i++)
	{
		uint64_t	h = absent_probe(c, &s);

		/* ages nest: found at max_age a, found at every larger one */
		if (!sbf_win_contains(wv, h, (int64_t) B - 1))
			continue;
		for (a = 0; a < B; a++)
			if (sbf_win_contains(wv, h, a))
			{
				for (; a < B; a++)
					hits[a]++;
				break;
			}
	}
	report(c->name, "age0", hits[0], bound, wv->error_rate, -1, -1);
	if (B > 1)
	{
		/* the rate only grows with the age: the whole window is the worst */
		report(c->name, "all", hits[B - 1], bound, wv->error_rate, -1, -1);
	}
	free(hits);
}

static void
val_end(Val *c)
{
	SbfView		v;
	SbfWinView	wv;

	if (c->active && c->mem != NULL)
	{
		const uint8_t *p = c->mem + PREFIX;

		qsort(c->members, c->nmembers, sizeof(uint64_t), cmp_u64);
		nvalues++;
		if (sbf_validate(p, c->len, &v) != SBF_OK)
			printf("%-44s refused\n", c->name);
		else if (sbf_is_window(p, c->len))
		{
			if (sbf_win_parse(p, c->len, &wv) != SBF_OK)
				printf("%-44s window refused\n", c->name);
			else
				measure_window(c, &wv);
		}
		else
			measure_plain(c, &v);
		fflush(stdout);
	}
	free(c->mem);
	free(c->members);
	memset(c, 0, sizeof(*c));
}

static void
add_member(Val *c, const char *type, char *elem)
{
	uint64_t	h;
	char	   *at = strchr(elem, '@');

	if (at != NULL)
		*at = '\0';
	if (!kit_elem_hash(type, elem, &h))
		return;
	if (c->nmembers == c->capmembers)
	{
		c->capmembers = c->capmembers ? 2 * c->capmembers : 1024;
		c->members = realloc(c->members, c->capmembers * sizeof(uint64_t));
		if (c->members == NULL)
			abort();
	}
	c->members[c->nmembers++] = h;
}

/* built TYPE ERROR_RATE ELEMS, built_window TYPE BUCKET_US BUCKETS ERROR_RATE ELEMS */
static void
add_members(Val *c, char **f, int n)
{
	int			at = strcmp(f[0], "built") == 0 ? 3 : 5;
	size_t		i,
				k;
	char	  **items;

	if (n != at + 1)
		return;
	items = kit_list(f[at], &k);
	for (i = 0; items != NULL && i < k; i++)
		add_member(c, f[1], items[i]);
	free(items);
}

int
main(int argc, char **argv)
{
	FILE	   *in;
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		len;
	Val			c;

	if (argc > 1 && strcmp(argv[1], "-s") == 0)
	{
		segments = true;
		argv++;
		argc--;
	}
	if (argc < 2 || argc > 3)
	{
		fprintf(stderr, "usage: fpr_bound_check [-s] kit.txt [N]\n");
		return 2;
	}
	if (argc == 3)
		nprobes = atol(argv[2]);
	if ((in = fopen(argv[1], "r")) == NULL)
	{
		perror(argv[1]);
		return 2;
	}
	memset(&c, 0, sizeof(c));
	printf("# fpr_bound_check: %ld absent probes a value (a line), fixed seeds\n", nprobes);
	printf("%-44s %-5s %-8s %-8s %-8s %-8s %7s %-8s %-8s %7s\n", "# value", "since", "e",
		   "rate", "bound", "sigma", "z", "est", "stored_p", "z'");
	while ((len = getline(&line, &cap, in)) >= 0)
	{
		char	   *f[KIT_MAX_FIELDS];
		int			n;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		n = kit_split(line, f, KIT_MAX_FIELDS);
		if (strcmp(f[0], "value") == 0 || strcmp(f[0], "hashset") == 0)
		{
			val_end(&c);
			if (strcmp(f[0], "hashset") == 0 || n != 3)
				continue;		/* a hash set is exact: no rate */
			c.active = true;
			snprintf(c.name, sizeof(c.name), "%s", f[1]);
			if (!kit_hex(f[2], PREFIX, &c.mem, &c.len))
				c.mem = NULL;
		}
		else if (c.active && (strcmp(f[0], "built") == 0 || strcmp(f[0], "built_window") == 0))
			add_members(&c, f, n);
	}
	val_end(&c);
	free(line);
	fclose(in);
	printf("# %ld values measured, %ld lines over their bound by more than 3 sigma,"
		   " %ld over the sum of stored rates (1.3's bound)\n", nvalues, nover, nover_prop);
	return 0;
}
