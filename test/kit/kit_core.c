/*
 * kit_core.c
 *	  Runs the test kit (test/kit/README.md) against the pure-C core, the
 *	  way any reader should: every value of kit.txt is read with the core's
 *	  validator and answers each contains, matches and cardinality record as
 *	  the server did; every value the server built by sbf_agg or
 *	  sbf_window_agg ("built", "built_window") is built again here from its
 *	  elements and compared byte for byte; every malformed.txt value is
 *	  refused; every hashes.txt hash is recomputed.  (info records are the
 *	  Python package's and other readers' to compare; the core does not
 *	  print JSON.)  On a big-endian host (test/s390x.sh) this proves the
 *	  bytes and answers the same as on the x86-64 server that wrote the kit.
 *	    kit_core kit.txt malformed.txt hashes.txt
 *	  Ends with "N passed, N failed" (a case, a malformed value or a hash
 *	  each counts once); exits 1 on any failure.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "sbf_app.h"
#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_hashset.h"
#include "sbf_window.h"

/* the payload sits 4 bytes into a malloc'd block, as behind a varlena header */
#define PREFIX	4

static void *
k_alloc(size_t size, void *ctx __attribute__((unused)))
{
	return malloc(size > 0 ? size : 1);
}

static void *
k_realloc(void *ptr, size_t size, void *ctx __attribute__((unused)))
{
	return realloc(ptr, size > 0 ? size : 1);
}

static void
k_free(void *ptr, void *ctx __attribute__((unused)))
{
	free(ptr);
}

static const SbfAllocator alloc = {k_alloc, k_realloc, k_free, NULL, NULL};

typedef struct Case
{
	char		name[200];
	bool		active;
	bool		hashset;
	bool		readable;
	bool		window;
	uint8_t    *mem;
	size_t		len;
	SbfView		v;
	SbfWinView	wv;
	int64_t		all_age;
	uint64_t	hs_count;
	long		records;
	long		fails;
} Case;

static long passed,
			failed,
			records,
			rebuilt;

static void
fail(Case *c, long lineno, const char *fmt, const char *a, const char *b)
{
	c->fails++;
	if (c->fails <= 5)
	{
		fprintf(stderr, "kit.txt:%ld: %s: ", lineno, c->name);
		fprintf(stderr, fmt, a, b);
		fputc('\n', stderr);
	}
}

static void
case_end(Case *c)
{
	if (!c->active)
		return;
	if (c->readable && c->fails == 0)
		passed++;
	else
	{
		failed++;
		fprintf(stderr, "FAIL %s (%ld of %ld records)\n", c->name, c->fails, c->records);
	}
	free(c->mem);
	memset(c, 0, sizeof(*c));
}

static void
case_start(Case *c, bool hashset, const char *name, const char *hex, long lineno)
{
	SbfStatus	st;

	case_end(c);
	c->active = true;
	c->hashset = hashset;
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (!kit_hex(hex, PREFIX, &c->mem, &c->len))
	{
		fail(c, lineno, "bad hex%s%s", "", "");
		return;
	}
	if (hashset)
	{
		SbfHsView	hv;
		SbfHsError	e = sbf_hs_validate(c->mem + PREFIX, c->len, &hv);

		if (e != SBF_HS_OK)
		{
			fail(c, lineno, "hash set refused: %s%s", sbf_hs_error_message(e), "");
			return;
		}
		c->hs_count = hv.count;
		c->readable = true;
		return;
	}
	st = sbf_validate(c->mem + PREFIX, c->len, &c->v);
	if (st != SBF_OK)
	{
		fail(c, lineno, "value refused: %s%s", sbf_status_message(st), "");
		return;
	}
	c->window = sbf_is_window(c->mem + PREFIX, c->len);
	if (c->window)
	{
		st = sbf_win_parse(c->mem + PREFIX, c->len, &c->wv);
		if (st != SBF_OK)
		{
			fail(c, lineno, "window refused: %s%s", sbf_status_message(st), "");
			return;
		}
		c->all_age = sbf_win_max_age(&c->wv, SBF_WIN_ALL);
	}
	c->readable = true;
}

/* The largest age a lookup since SINCE counts (plain values: any). */
static bool
max_age_of(Case *c, const char *since, int64_t *max_age)
{
	int64_t		us;

	*max_age = c->all_age;
	if (strcmp(since, "-") == 0 || !c->window)
		return strcmp(since, "-") == 0 || kit_int64(since, &us);
	if (!kit_int64(since, &us))
		return false;
	*max_age = sbf_win_max_age(&c->wv, sbf_win_since_bucket(us, c->wv.width));
	return true;
}

static bool
has(Case *c, uint64_t h, int64_t max_age)
{
	if (c->window)
		return max_age >= 0 && sbf_win_contains(&c->wv, h, max_age);
	return sbf_contains_hash(&c->v, h);
}

/* contains TYPE ELEM SINCE EXPECT */
static void
do_contains(Case *c, char **f, int n, long lineno)
{
	uint64_t	h;
	int64_t		max_age;

	if (n != 5 || !kit_elem_hash(f[1], f[2], &h) || !max_age_of(c, f[3], &max_age))
	{
		fail(c, lineno, "bad contains record%s%s", "", "");
		return;
	}
	if ((has(c, h, max_age) ? "t" : "f")[0] != f[4][0])
		fail(c, lineno, "contains %s answers the other way (expected %s)", f[2], f[4]);
}

/* matches SINCE EXPECT ELEMS, matches_bigint SINCE EXPECT ELEMS */
static void
do_matches(Case *c, char **f, int n, const char *type, long lineno)
{
	int64_t		max_age,
				expect;
	size_t		i,
				k,
				hits = 0;
	char	  **items;
	uint64_t   *hs;

	if (n != 4 || !max_age_of(c, f[1], &max_age) || !kit_int64(f[2], &expect) ||
		(items = kit_list(f[3], &k)) == NULL)
	{
		fail(c, lineno, "bad matches record%s%s", "", "");
		return;
	}
	hs = calloc(k + 1, sizeof(uint64_t));
	for (i = 0; hs != NULL && i < k; i++)
		if (!kit_elem_hash(type, items[i], &hs[i]))
			break;
	if (hs == NULL || i < k)
		fail(c, lineno, "bad matches element%s%s", "", "");
	else
	{
		if (k == 0)
			hits = 0;
		else if (c->window)
			hits = max_age < 0 ? 0 : sbf_win_count_contained(&c->wv, hs, k, max_age);
		else
			hits = sbf_count_contained(&c->v, hs, k);
		if ((int64_t) hits != expect)
			fail(c, lineno, "matches gives another count than %s%s", f[2], "");
	}
	free(hs);
	free(items);
}

static void
do_cardinality(Case *c, char **f, int n, long lineno)
{
	int64_t		expect,
				got;

	if (n != 2 || !kit_int64(f[1], &expect))
	{
		fail(c, lineno, "bad cardinality record%s%s", "", "");
		return;
	}
	if (c->hashset)
		got = (int64_t) c->hs_count;
	else if (c->window)
		got = (int64_t) llround(sbf_win_cardinality(&c->wv));
	else
		got = sbf_count_round(sbf_cardinality(&c->v));
	if (got != expect)
		fail(c, lineno, "cardinality is not %s%s", f[1], "");
}

/* Compares a filter the core built with the case's bytes. */
static void
compare_built(Case *c, SbfStatus st, SbfFilter *out, long lineno, const char *what)
{
	if (st != SBF_OK)
		fail(c, lineno, "%s fails: %s", what, sbf_status_message(st));
	else
	{
		if (out->len != c->len || memcmp(SBF_PAYLOAD(out), c->mem + PREFIX, c->len) != 0)
			fail(c, lineno, "%s gives other bytes%s", what, "");
		else
			rebuilt++;
		free(out->base);
	}
}

/* built TYPE ERROR_RATE ELEMS: sbf_agg(elem, error_rate) */
static void
do_built(Case *c, char **f, int n, long lineno)
{
	SbfParams	p;
	SbfHashSet	hs;
	SbfHsScratch sc;
	SbfFilter	out;
	SbfStatus	st = SBF_OK;
	char	  **items;
	size_t		i,
				k;

	if (n != 4 || (items = kit_list(f[3], &k)) == NULL)
	{
		fail(c, lineno, "bad built record%s%s", "", "");
		return;
	}
	memset(&p, 0, sizeof(p));
	p.capacity = SBF_DEFAULT_CAPACITY;
	p.error_rate = strtod(f[2], NULL);
	p.growth = SBF_DEFAULT_GROWTH;
	p.tightening = SBF_DEFAULT_TIGHTENING;
	p.hll_p = SBF_HLL_P_DEFAULT;
	memset(&sc, 0, sizeof(sc));
	sc.a = &alloc;
	sbf_hs_init(&hs, &alloc, &p, SBF_HS_AGG_THRESHOLD);
	for (i = 0; i < k && st == SBF_OK; i++)
	{
		uint64_t	h;

		if (!kit_elem_hash(f[1], items[i], &h))
			break;
		st = sbf_hs_add(&hs, h, &sc);
	}
	if (i < k && st == SBF_OK)
		fail(c, lineno, "bad built element%s%s", "", "");
	else
	{
		if (st == SBF_OK)
			st = sbf_hs_build(&hs, &p, PREFIX, &alloc, &out);
		compare_built(c, st, &out, lineno, "sbf_agg");
	}
	sbf_hs_free(&hs);
	sbf_hs_scratch_free(&sc);
	free(items);
}

/* built_window TYPE BUCKET_US BUCKETS ERROR_RATE ELEM@AT,... */
static void
do_built_window(Case *c, char **f, int n, long lineno)
{
	SbfWinParams wp;
	SbfWinPair *pairs = NULL;
	SbfWindow	w;
	SbfFilter	out;
	SbfStatus	st;
	char	  **items = NULL;
	size_t		i,
				k = 0;
	int64_t		buckets,
				newest = 0;

	if (n != 6 || !kit_int64(f[2], &wp.width) || !kit_int64(f[3], &buckets) ||
		(items = kit_list(f[5], &k)) == NULL || k == 0 ||
		(pairs = calloc(k, sizeof(SbfWinPair))) == NULL)
	{
		fail(c, lineno, "bad built_window record%s%s", "", "");
		free(items);
		return;
	}
	wp.buckets = (uint32_t) buckets;
	wp.error_rate = strtod(f[4], NULL);
	for (i = 0; i < k; i++)
	{
		char	   *at = strchr(items[i], '@');
		int64_t		us;

		if (at == NULL)
			break;
		*at = '\0';
		if (!kit_elem_hash(f[1], items[i], &pairs[i].hash) || !kit_int64(at + 1, &us))
			break;
		pairs[i].bucket = sbf_win_bucket_of(us, wp.width);
		if (i == 0 || pairs[i].bucket > newest)
			newest = pairs[i].bucket;
	}
	if (i < k || sbf_win_params_check(&wp) != SBF_OK)
		fail(c, lineno, "bad built_window element or parameters%s%s", "", "");
	else
	{
		size_t		m = sbf_win_pairs_normalize(pairs, k, newest, wp.buckets);

		st = sbf_win_from_pairs(&w, &wp, newest, pairs, m, &alloc);
		if (st == SBF_OK)
		{
			st = sbf_win_agg_finish(&w, &out, PREFIX);
			sbf_win_free(&w);
		}
		compare_built(c, st, &out, lineno, "sbf_window_agg");
	}
	free(pairs);
	free(items);
}

static void
run_kit(FILE *in)
{
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		len;
	long		lineno = 0;
	Case		c;

	memset(&c, 0, sizeof(c));
	while ((len = getline(&line, &cap, in)) >= 0)
	{
		char	   *f[KIT_MAX_FIELDS];
		int			n;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		n = kit_split(line, f, strncmp(line, "built_window ", 13) == 0 ? 6 : 5);
		if (strcmp(f[0], "value") == 0 || strcmp(f[0], "hashset") == 0)
		{
			/* a record without its bytes fails as bad hex */
			case_start(&c, f[0][0] == 'h', n >= 2 ? f[1] : "?", n == 3 ? f[2] : "x", lineno);
			continue;
		}
		if (!c.active || !c.readable)
			continue;
		c.records++;
		records++;
		if (strcmp(f[0], "contains") == 0 && !c.hashset)
			do_contains(&c, f, n, lineno);
		else if (strcmp(f[0], "matches") == 0 && !c.hashset)
			do_matches(&c, f, n, "text", lineno);
		else if (strcmp(f[0], "matches_bigint") == 0 && !c.hashset)
			do_matches(&c, f, n, "bigint", lineno);
		else if (strcmp(f[0], "cardinality") == 0)
			do_cardinality(&c, f, n, lineno);
		else if (strcmp(f[0], "built") == 0 && !c.hashset)
			do_built(&c, f, n, lineno);
		else if (strcmp(f[0], "built_window") == 0 && !c.hashset)
			do_built_window(&c, f, n, lineno);
		else
		{
			c.records--;		/* info and record types this reader does not know */
			records--;
		}
	}
	case_end(&c);
	free(line);
}

/* malformed NAME HEX and malformed_hashset NAME HEX: each must be refused */
static void
run_malformed(FILE *in)
{
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		len;

	while ((len = getline(&line, &cap, in)) >= 0)
	{
		char	   *f[3];
		uint8_t    *b;
		size_t		n;
		bool		refused;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#' || kit_split(line, f, 3) != 3)
			continue;
		if (strcmp(f[0], "malformed") != 0 && strcmp(f[0], "malformed_hashset") != 0)
			continue;
		if (!kit_hex(f[2], PREFIX, &b, &n))
		{
			fprintf(stderr, "FAIL malformed %s: bad hex\n", f[1]);
			failed++;
			continue;
		}
		if (f[0][9] == '_')
		{
			SbfHsView	hv;

			refused = sbf_hs_validate(b + PREFIX, n, &hv) != SBF_HS_OK;
		}
		else
		{
			SbfView		v;

			refused = sbf_validate(b + PREFIX, n, &v) != SBF_OK;
		}
		free(b);
		if (refused)
			passed++;
		else
		{
			failed++;
			fprintf(stderr, "FAIL malformed %s: accepted\n", f[1]);
		}
	}
	free(line);
}

/* hash TYPE ELEM U64 */
static void
run_hashes(FILE *in)
{
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		len;

	while ((len = getline(&line, &cap, in)) >= 0)
	{
		char	   *f[4];
		uint64_t	h;
		char		hex[17];

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#' || kit_split(line, f, 4) != 4 || strcmp(f[0], "hash") != 0)
			continue;
		if (!kit_elem_hash(f[1], f[2], &h))
		{
			failed++;
			fprintf(stderr, "FAIL hash %s %.40s: bad element\n", f[1], f[2]);
			continue;
		}
		snprintf(hex, sizeof(hex), "%016" PRIx64, h);
		if (strcmp(hex, f[3]) == 0)
			passed++;
		else
		{
			failed++;
			fprintf(stderr, "FAIL hash %s %.40s: %s, not %s\n", f[1], f[2], hex, f[3]);
		}
	}
	free(line);
}

int
main(int argc, char **argv)
{
	void		(*run[3]) (FILE *) = {run_kit, run_malformed, run_hashes};
	int			i;

	if (argc != 4)
	{
		fprintf(stderr, "usage: kit_core kit.txt malformed.txt hashes.txt\n");
		return 2;
	}
	for (i = 0; i < 3; i++)
	{
		FILE	   *in = fopen(argv[i + 1], "r");
		long		p0 = passed,
					f0 = failed;

		if (in == NULL)
		{
			perror(argv[i + 1]);
			failed++;
			continue;
		}
		run[i] (in);
		fclose(in);
		printf("kit_core: %s: %ld passed, %ld failed", argv[i + 1], passed - p0, failed - f0);
		if (i == 0)
			printf(" (cases; %ld records answered, %ld values rebuilt byte for byte)", records, rebuilt);
		printf("\n");
	}
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
