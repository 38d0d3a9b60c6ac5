/*
 * _sbf_build.c
 *	  sbf.build and sbf.build_window: the bytes sbf_agg and sbf_window_agg
 *	  give over the same elements (and times), through the same core steps:
 *	  sbf_agg's hash-set engine and its one build (sbf_hs_build, streaming
 *	  past SBF_HS_AGG_THRESHOLD like the aggregate), and sbf_window_agg's
 *	  normalize, window-from-pairs and finish (sbf_win_agg_finish).
 *	  The Python layer (sbf/__init__.py) checks and converts the arguments.
 */
#include "_sbf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_hashset.h"

/* A Filter from a filter the core built (prefix SBF_PY_PREFIX). */
static PyObject *
adopt_filter(SbfFilter *f)
{
	/* the payload sits at base + prefix; the Filter owns the allocation */
	return sbf_py_adopt(f->base, f->len);
}

/*
 * build(items, error_rate) -> Filter or None: sbf_agg(x, error_rate) over
 * the items; None items are skipped (SQL NULL rows), and no element at all
 * gives None, as the aggregate gives NULL.
 */
PyObject *
sbf_py_build(PyObject *mod, PyObject *args)
{
	PyObject   *items;
	PyObject   *it;
	PyObject   *x;
	double		error_rate;
	SbfParams	p;
	SbfHashSet	hs;
	SbfHsScratch sc;
	SbfFilter	f;
	SbfStatus	st = SBF_OK;
	bool		any = false;

	if (!PyArg_ParseTuple(args, "Od:build", &items, &error_rate))
		return NULL;
	p.capacity = SBF_DEFAULT_CAPACITY;
	p.error_rate = error_rate;
	p.growth = SBF_DEFAULT_GROWTH;
	p.tightening = SBF_DEFAULT_TIGHTENING;
	p.hll_p = SBF_HLL_P_DEFAULT;
	if (!(error_rate > 0.0 && error_rate < 0.5))
	{
		PyErr_Format(PyExc_ValueError,
					 "error_rate must be greater than 0 and less than 0.5, not %R",
					 PyTuple_GET_ITEM(args, 1));
		return NULL;
	}
	if (sbf_params_check_create(&p) != SBF_OK)
	{
		char		least[64];

		snprintf(least, sizeof(least), "%.17g", sbf_min_error_rate(p.tightening));
		PyErr_Format(PyExc_ValueError, "error_rate %R is too small: use at least %s",
					 PyTuple_GET_ITEM(args, 1), least);
		return NULL;
	}
	it = PyObject_GetIter(items);
	if (it == NULL)
		return NULL;
	memset(&sc, 0, sizeof(sc));
	sc.a = &sbf_py_allocator;
	sbf_hs_init(&hs, &sbf_py_allocator, &p, SBF_HS_AGG_THRESHOLD);
	while ((x = PyIter_Next(it)) != NULL)
	{
		uint64_t	h;
		int			r = 0;

		if (x != Py_None)
		{
			r = sbf_py_elem_hash(x, &h);
			if (r == 0)
			{
				any = true;
				st = sbf_hs_add(&hs, h, &sc);
			}
		}
		Py_DECREF(x);
		if (r != 0 || st != SBF_OK)
			break;
	}
	Py_DECREF(it);
	if (!PyErr_Occurred() && st == SBF_OK && any)
		st = sbf_hs_build(&hs, &p, SBF_PY_PREFIX, &sbf_py_allocator, &f);
	sbf_hs_free(&hs);
	sbf_hs_scratch_free(&sc);
	if (PyErr_Occurred())
		return NULL;
	if (st != SBF_OK)
		return sbf_py_status_error(st, "cannot build the filter");
	if (!any)
		Py_RETURN_NONE;
	return adopt_filter(&f);
}

/* A growing array of (hash, bucket) pairs. */
typedef struct PairBuf
{
	SbfWinPair *p;
	size_t		n;
	size_t		cap;
} PairBuf;

static int
pairbuf_push(PairBuf *b, uint64_t h, int64_t bucket)
{
	if (b->n == b->cap)
	{
		size_t		cap = b->cap ? b->cap * 2 : 1024;
		SbfWinPair *np;

		if (cap > SIZE_MAX / sizeof(SbfWinPair) / 2)
		{
			PyErr_NoMemory();
			return -1;
		}
		np = realloc(b->p, cap * sizeof(SbfWinPair));
		if (np == NULL)
		{
			PyErr_NoMemory();
			return -1;
		}
		b->p = np;
		b->cap = cap;
	}
	b->p[b->n].hash = h;
	b->p[b->n].bucket = bucket;
	b->n++;
	return 0;
}

/*
 * Reads one (element, time) pair into *b; 1 if added, 0 if skipped (a None
 * element or time: a NULL row), -1 on error.
 */
static int
read_pair(PyObject *pair, int64_t width, PairBuf *b)
{
	PyObject   *seq = PySequence_Fast(pair, "build_window takes (element, datetime) pairs");
	uint64_t	h;
	int64_t		us;
	int			r = -1;

	if (seq == NULL)
		return -1;
	if (PySequence_Fast_GET_SIZE(seq) != 2)
		PyErr_SetString(PyExc_TypeError, "build_window takes (element, datetime) pairs");
	else if (PySequence_Fast_GET_ITEM(seq, 0) == Py_None ||
			 PySequence_Fast_GET_ITEM(seq, 1) == Py_None)
		r = 0;
	else if (sbf_py_elem_hash(PySequence_Fast_GET_ITEM(seq, 0), &h) == 0 &&
			 sbf_py_unix_us(PySequence_Fast_GET_ITEM(seq, 1), &us) == 0 &&
			 pairbuf_push(b, h, sbf_win_bucket_of(us, width)) == 0)
		r = 1;
	Py_DECREF(seq);
	return r;
}

/* The window of the pairs, finished as sbf_window_agg's final does. */
static PyObject *
window_of_pairs(const SbfWinParams *wp, PairBuf *b)
{
	SbfWindow	w;
	SbfFilter	f;
	SbfStatus	st;
	int64_t		newest = b->p[0].bucket;
	size_t		i,
				n;

	for (i = 1; i < b->n; i++)
		if (b->p[i].bucket > newest)
			newest = b->p[i].bucket;
	n = sbf_win_pairs_normalize(b->p, b->n, newest, wp->buckets);
	st = sbf_win_from_pairs(&w, wp, newest, b->p, n, &sbf_py_allocator);
	if (st != SBF_OK)
		return sbf_py_status_error(st, "cannot build the windowed filter");
	st = sbf_win_agg_finish(&w, &f, SBF_PY_PREFIX);
	sbf_win_free(&w);
	if (st != SBF_OK)
		return sbf_py_status_error(st, "cannot build the windowed filter");
	return adopt_filter(&f);
}

/*
 * build_window(pairs, width_us, buckets, error_rate) -> Filter or None:
 * sbf_window_agg(x, at, bucket, buckets, error_rate) over the pairs.
 */
PyObject *
sbf_py_build_window(PyObject *mod, PyObject *args)
{
	PyObject   *pairs;
	PyObject   *it;
	PyObject   *pair;
	long long	width;
	int			buckets;
	double		error_rate;
	SbfWinParams wp;
	PairBuf		b = {NULL, 0, 0};
	PyObject   *result = NULL;

	if (!PyArg_ParseTuple(args, "OLid:build_window", &pairs, &width, &buckets,
						  &error_rate))
		return NULL;
	if (width <= 0 || width > SBF_WIN_MAX_WIDTH)
		return PyErr_Format(PyExc_ValueError,
							"bucket must be longer than 0 and at most 3650 days");
	if (buckets < 1 || buckets > SBF_WIN_MAX_BUCKETS)
		return PyErr_Format(PyExc_ValueError, "buckets must be between 1 and %d, not %d",
							SBF_WIN_MAX_BUCKETS, buckets);
	wp.width = (int64_t) width;
	wp.buckets = (uint32_t) buckets;
	wp.error_rate = error_rate;
	if (!(error_rate > 0.0 && error_rate < 0.5) || sbf_win_params_check(&wp) != SBF_OK)
		return PyErr_Format(PyExc_ValueError,
							"error_rate must be greater than 0 and less than 0.5, not %R",
							PyTuple_GET_ITEM(args, 3));
	it = PyObject_GetIter(pairs);
	if (it == NULL)
		return NULL;
	while ((pair = PyIter_Next(it)) != NULL)
	{
		int			r = read_pair(pair, wp.width, &b);

		Py_DECREF(pair);
		if (r < 0)
			break;
	}
	Py_DECREF(it);
	if (!PyErr_Occurred())
	{
		if (b.n == 0)
			result = Py_NewRef(Py_None);
		else
			result = window_of_pairs(&wp, &b);
	}
	free(b.p);
	return result;
}
