/*
 * fpr_bound_check.c
 *	  Is fpr_bound an upper bound?  (issue 36, item 4.)  For every
 *	  scalablebloom value of the test kit (test/kit/kit.txt: formats 1-4,
 *	  every kind, exact, windowed, unions, relabelled, sbf_delta), probes N
 *	  random 64-bit hashes that are absent and compares the measured rate
 *	  with the value's own bound:
 *	    plain values     sbf_contains_hash against sbf_fpr_bound (the sum of
 *	                     the directory's stored rates);
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
 *	  print est = sbf_current_fpr (the rate expected from the segments' fill).
 *	  Fixed seeds: the same output every run.
 *	    fpr_bound_check kit.txt [N]		(N defaults to 1,000,000)
 *	  Exits 0 (a measurement, not a test).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "sbf_core.h"
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
static long nvalues,
			nover;

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
	   double est)
{
	double		rate = (double) hits / (double) nprobes;
	double		sigma = sqrt(bound * (1.0 - bound) / (double) nprobes);
	double		z = sigma > 0 ? (rate - bound) / sigma : (hits > 0 ? INFINITY : 0.0);
	char		estbuf[32] = "-";

	if (est >= 0)
		snprintf(estbuf, sizeof(estbuf), "%.6f", est);
	if (z > 3.0)
		nover++;
	printf("%-44s %-9s %8.6f %8.6f %8.6f %8.6f %7.2f %-9s %s\n", name, since, e,
		   rate, bound, sigma, z, estbuf, z > 3.0 ? "OVER" : "");
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
		   sbf_is_exact(v) ? 0.0 : sbf_current_fpr(v));
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
	report(c->name, "age0", hits[0], bound, wv->error_rate, -1);
	if (B > 1)
	{
		/* the rate only grows with the age: the whole window is the worst */
		report(c->name, "all", hits[B - 1], bound, wv->error_rate, -1);
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

	if (argc < 2 || argc > 3)
	{
		fprintf(stderr, "usage: fpr_bound_check kit.txt [N]\n");
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
	printf("%-44s %-9s %-8s %-8s %-8s %-8s %7s %-9s\n", "# value", "since", "e",
		   "rate", "bound", "sigma", "z", "est");
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
	printf("# %ld values measured, %ld lines over their bound by more than 3 sigma\n",
		   nvalues, nover);
	return 0;
}
