/*
 * _sbf.c
 *	  sbf._sbf: the Filter type (reading, validating and querying a
 *	  scalablebloom value's bytes) over the project's pure-C core.  Every
 *	  answer comes from the core functions the PostgreSQL glue calls: the
 *	  validator, the lookup plan (decoded once per Filter, as the server
 *	  decodes a value once per query: sbf_plan.h) for membership, matches and
 *	  the windowed lookups since a bucket, and the count estimates.
 */
#include "_sbf.h"

#include <datetime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* hashes counted per call of the core's batched lookups */
#define SBF_PY_BATCH	64

static PyObject *epoch_utc;		/* datetime(1970, 1, 1, tzinfo=utc) */

/* ---- memory and errors ---- */

static void *
py_alloc(size_t size, void *ctx)
{
	return malloc(size > 0 ? size : 1);
}

static void *
py_realloc(void *ptr, size_t size, void *ctx)
{
	return realloc(ptr, size > 0 ? size : 1);
}

static void
py_free(void *ptr, void *ctx)
{
	free(ptr);
}

const SbfAllocator sbf_py_allocator = {py_alloc, py_realloc, py_free, NULL, NULL};

PyObject *
sbf_py_status_error(SbfStatus st, const char *what)
{
	if (st == SBF_E_NOMEM)
		return PyErr_NoMemory();
	PyErr_Format(PyExc_ValueError, "%s: %s", what, sbf_status_message(st));
	return NULL;
}

/* ---- elements and times ---- */

int
sbf_py_elem_hash(PyObject *x, uint64_t *h)
{
	if (PyUnicode_Check(x))
	{
		Py_ssize_t	n;
		const char *s = PyUnicode_AsUTF8AndSize(x, &n);

		if (s == NULL)
			return -1;
		*h = sbf_hash(s, (size_t) n);
		return 0;
	}
	if (PyBytes_Check(x))
	{
		*h = sbf_hash(PyBytes_AS_STRING(x), (size_t) PyBytes_GET_SIZE(x));
		return 0;
	}
	if (PyLong_Check(x) && !PyBool_Check(x))
	{
		long long	v = PyLong_AsLongLong(x);

		if (v == -1 && PyErr_Occurred())
		{
			if (PyErr_ExceptionMatches(PyExc_OverflowError))
			{
				PyErr_Clear();
				PyErr_SetString(PyExc_OverflowError,
								"int element out of the bigint range (-2**63 .. 2**63-1)");
			}
			return -1;
		}
		*h = sbf_hash_int64((int64_t) v);
		return 0;
	}
	if (PyIndex_Check(x) && !PyBool_Check(x) && !PyFloat_Check(x))
	{
		/* an integer type of another library (numpy.int64): as an int */
		PyObject   *i = PyNumber_Index(x);
		int			r;

		if (i == NULL)
			return -1;
		r = PyLong_Check(i) ? sbf_py_elem_hash(i, h) : -1;
		Py_DECREF(i);
		return r;
	}
	if (PyByteArray_Check(x) || PyMemoryView_Check(x))
	{
		Py_buffer	b;

		if (PyObject_GetBuffer(x, &b, PyBUF_SIMPLE) != 0)
			return -1;
		*h = sbf_hash(b.buf, (size_t) b.len);
		PyBuffer_Release(&b);
		return 0;
	}
	PyErr_Format(PyExc_TypeError,
				 "an sbf element is str, bytes or int, not %.100s",
				 Py_TYPE(x)->tp_name);
	return -1;
}

int
sbf_py_unix_us(PyObject *dt, int64_t *us)
{
	PyObject   *delta;

	if (!PyDateTime_Check(dt))
	{
		PyErr_Format(PyExc_TypeError, "a time is an aware datetime, not %.100s",
					 Py_TYPE(dt)->tp_name);
		return -1;
	}
	if (((PyDateTime_DateTime *) dt)->hastzinfo == 0 ||
		PyDateTime_DATE_GET_TZINFO(dt) == Py_None)
	{
		PyErr_SetString(PyExc_TypeError,
						"a time must be an aware datetime (with tzinfo), as timestamptz");
		return -1;
	}
	delta = PyNumber_Subtract(dt, epoch_utc);
	if (delta == NULL)
		return -1;
	if (!PyDelta_Check(delta))
	{
		Py_DECREF(delta);
		PyErr_SetString(PyExc_TypeError, "a time must be an aware datetime");
		return -1;
	}
	/* |days| < 10^7: no overflow */
	*us = (int64_t) PyDateTime_DELTA_GET_DAYS(delta) * INT64_C(86400000000) +
		(int64_t) PyDateTime_DELTA_GET_SECONDS(delta) * INT64_C(1000000) +
		PyDateTime_DELTA_GET_MICROSECONDS(delta);
	Py_DECREF(delta);
	return 0;
}

/* The largest age a lookup since "since" (None: every bucket) counts. */
static int
max_age_of(FilterObject *f, PyObject *since, int64_t *max_age)
{
	int64_t		us;

	*max_age = f->all_age;		/* also a plain filter's, which has no buckets */
	if (since == NULL || since == Py_None)
		return 0;
	if (sbf_py_unix_us(since, &us) != 0)
		return -1;
	if (f->window)
		*max_age = sbf_win_max_age(&f->wv, sbf_win_since_bucket(us, f->wv.width));
	return 0;
}

/* ---- the Filter object ---- */

PyObject *
sbf_py_adopt(uint8_t *mem, size_t len)
{
	FilterObject *f;
	SbfStatus	st;
	SbfView		v;

	st = sbf_validate(mem + SBF_PY_PREFIX, len, &v);
	if (st != SBF_OK)
	{
		free(mem);
		return sbf_py_status_error(st, "malformed scalablebloom value");
	}
	f = PyObject_New(FilterObject, &FilterType);
	if (f == NULL)
	{
		free(mem);
		return NULL;
	}
	f->mem = mem;
	f->len = len;
	f->v = v;
	f->window = sbf_is_window(mem + SBF_PY_PREFIX, len);
	f->all_age = 0;
	f->plan = NULL;
	memset(&f->wv, 0, sizeof(f->wv));
	if (f->window)
	{
		/* validated above: the parse cannot fail */
		st = sbf_win_parse(mem + SBF_PY_PREFIX, len, &f->wv);
		if (st != SBF_OK)
		{
			Py_DECREF(f);
			return sbf_py_status_error(st, "malformed scalablebloom value");
		}
		f->all_age = sbf_win_max_age(&f->wv, SBF_WIN_ALL);
	}
	/* decoded once: every lookup on the Filter probes the plan */
	st = sbf_plan_build(mem + SBF_PY_PREFIX, len, &sbf_py_allocator, &f->plan);
	if (st != SBF_OK)
	{
		Py_DECREF(f);
		return sbf_py_status_error(st, "malformed scalablebloom value");
	}
	return (PyObject *) f;
}

static void
filter_dealloc(FilterObject *f)
{
	if (f->plan != NULL)
		sbf_plan_free(f->plan, &sbf_py_allocator);
	free(f->mem);
	PyObject_Free(f);
}

/* Copies len payload bytes into a new prefixed buffer (NULL: MemoryError). */
static uint8_t *
copy_payload(const void *src, size_t len)
{
	uint8_t    *mem = malloc(SBF_PY_PREFIX + len);

	if (mem == NULL)
	{
		PyErr_NoMemory();
		return NULL;
	}
	memset(mem, 0, SBF_PY_PREFIX);
	if (len > 0)
		memcpy(mem + SBF_PY_PREFIX, src, len);
	return mem;
}

/* Filter.from_bytes(b): a scalablebloom value's bytes, fully validated. */
static PyObject *
filter_from_bytes(PyObject *cls, PyObject *arg)
{
	Py_buffer	b;
	uint8_t    *mem;

	if (PyUnicode_Check(arg))
	{
		PyErr_SetString(PyExc_TypeError,
						"Filter.from_bytes takes bytes; use Filter.from_text for \"sbf1:...\"");
		return NULL;
	}
	if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) != 0)
		return NULL;
	/* refused before anything the size of the input is allocated */
	if ((size_t) b.len > SBF_MAX_BYTES)
	{
		PyBuffer_Release(&b);
		return sbf_py_status_error(SBF_E_TOO_LARGE, "malformed scalablebloom value");
	}
	mem = copy_payload(b.buf, (size_t) b.len);
	PyBuffer_Release(&b);
	if (mem == NULL)
		return NULL;
	return sbf_py_adopt(mem, (size_t) b.len);
}

/* Filter.from_text(s): the text form "sbf1:" + padded base64. */
static PyObject *
filter_from_text(PyObject *cls, PyObject *arg)
{
	Py_buffer	b;
	PyObject   *ascii = NULL;
	uint8_t    *mem;
	size_t		len;

	if (PyUnicode_Check(arg))
	{
		ascii = PyUnicode_AsUTF8String(arg);
		if (ascii == NULL)
			return NULL;
		arg = ascii;
	}
	if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) != 0)
	{
		Py_XDECREF(ascii);
		return NULL;
	}
	if ((size_t) b.len < SBF_TEXT_PREFIX_LEN ||
		memcmp(b.buf, SBF_TEXT_PREFIX, SBF_TEXT_PREFIX_LEN) != 0 ||
		(size_t) b.len > SBF_MAX_TEXT_CHARS)
	{
		PyBuffer_Release(&b);
		Py_XDECREF(ascii);
		PyErr_SetString(PyExc_ValueError,
						(size_t) b.len > SBF_MAX_TEXT_CHARS ?
						"malformed scalablebloom text: too long" :
						"malformed scalablebloom text: it does not start with \"sbf1:\"");
		return NULL;
	}
	mem = malloc(SBF_PY_PREFIX + sbf_text_decoded_max((size_t) b.len) + 1);
	if (mem == NULL)
	{
		PyBuffer_Release(&b);
		Py_XDECREF(ascii);
		return PyErr_NoMemory();
	}
	memset(mem, 0, SBF_PY_PREFIX);
	if (!sbf_text_decode(b.buf, (size_t) b.len, mem + SBF_PY_PREFIX, &len))
	{
		free(mem);
		PyBuffer_Release(&b);
		Py_XDECREF(ascii);
		PyErr_SetString(PyExc_ValueError,
						"malformed scalablebloom text: the text after \"sbf1:\" is not valid padded base64");
		return NULL;
	}
	PyBuffer_Release(&b);
	Py_XDECREF(ascii);
	return sbf_py_adopt(mem, len);
}

static PyObject *
filter_to_bytes(FilterObject *f, PyObject *unused)
{
	return PyBytes_FromStringAndSize((const char *) f->mem + SBF_PY_PREFIX,
									 (Py_ssize_t) f->len);
}

static PyObject *
filter_to_text(FilterObject *f, PyObject *unused)
{
	size_t		n = sbf_text_size(f->len);
	char	   *out = malloc(n + 1);
	PyObject   *s;

	if (out == NULL)
		return PyErr_NoMemory();
	sbf_text_encode(f->mem + SBF_PY_PREFIX, f->len, out);
	s = PyUnicode_DecodeASCII(out, (Py_ssize_t) n, NULL);
	free(out);
	return s;
}

/* Membership of hash h in every bucket newer than max_age (plain: all). */
static inline bool
filter_has(FilterObject *f, uint64_t h, int64_t max_age)
{
	if (f->window)
		return sbf_plan_count_since(f->plan, &h, 1, max_age) == 1;
	return sbf_plan_contains(f->plan, h);
}

/* x in f: f @> x */
static int
filter_sq_contains(FilterObject *f, PyObject *x)
{
	uint64_t	h;

	if (sbf_py_elem_hash(x, &h) != 0)
		return -1;
	return filter_has(f, h, f->all_age) ? 1 : 0;
}

/* f.contains(x, since=None): sbf_contains(f, x[, since]) */
static PyObject *
filter_contains(FilterObject *f, PyObject *args, PyObject *kw)
{
	static char *names[] = {"x", "since", NULL};
	PyObject   *x;
	PyObject   *since = Py_None;
	uint64_t	h;
	int64_t		max_age;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:contains", names, &x, &since))
		return NULL;
	if (sbf_py_elem_hash(x, &h) != 0 || max_age_of(f, since, &max_age) != 0)
		return NULL;
	if (f->window && max_age < 0)
		Py_RETURN_FALSE;
	return PyBool_FromLong(filter_has(f, h, max_age));
}

/* Probable members among n hashes (the core's batched lookups). */
static size_t
filter_count(FilterObject *f, const uint64_t *h, size_t n, int64_t max_age)
{
	if (n == 0)
		return 0;
	if (f->window)
		return sbf_plan_count_since(f->plan, h, n, max_age);
	return sbf_plan_count(f->plan, h, n);
}

/* f.matches(items, since=None): sbf_matches; None items are skipped (NULL). */
static PyObject *
filter_matches(FilterObject *f, PyObject *args, PyObject *kw)
{
	static char *names[] = {"items", "since", NULL};
	PyObject   *items;
	PyObject   *since = Py_None;
	PyObject   *seq;
	uint64_t	batch[SBF_PY_BATCH];
	size_t		nbatch = 0;
	size_t		hits = 0;
	int64_t		max_age;
	Py_ssize_t	i,
				n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:matches", names, &items, &since))
		return NULL;
	if (PyUnicode_Check(items) || PyBytes_Check(items))
	{
		PyErr_SetString(PyExc_TypeError,
						"matches takes an iterable of elements, not a single str or bytes");
		return NULL;
	}
	if (max_age_of(f, since, &max_age) != 0)
		return NULL;
	seq = PySequence_Fast(items, "matches takes an iterable of elements");
	if (seq == NULL)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	for (i = 0; i < n; i++)
	{
		PyObject   *x = PySequence_Fast_GET_ITEM(seq, i);

		if (x == Py_None)
			continue;
		if (sbf_py_elem_hash(x, &batch[nbatch]) != 0)
		{
			Py_DECREF(seq);
			return NULL;
		}
		if (++nbatch == SBF_PY_BATCH)
		{
			hits += filter_count(f, batch, nbatch, max_age);
			nbatch = 0;
		}
	}
	Py_DECREF(seq);
	hits += filter_count(f, batch, nbatch, max_age);
	if (f->window && max_age < 0)
		hits = 0;
	return PyLong_FromSize_t(hits);
}

/* f.cardinality(): # f */
static PyObject *
filter_cardinality(FilterObject *f, PyObject *unused)
{
	if (f->window)
		return PyLong_FromLongLong((long long) llround(sbf_win_cardinality(&f->wv)));
	return PyLong_FromLongLong((long long) sbf_count_round(sbf_cardinality(&f->v)));
}

static PyObject *
filter_is_window(FilterObject *f, void *unused)
{
	return PyBool_FromLong(f->window);
}

static PyObject *
filter_reduce(FilterObject *f, PyObject *unused)
{
	PyObject   *b = filter_to_bytes(f, NULL);
	PyObject   *from;
	PyObject   *r;

	if (b == NULL)
		return NULL;
	from = PyObject_GetAttrString((PyObject *) Py_TYPE(f), "from_bytes");
	if (from == NULL)
	{
		Py_DECREF(b);
		return NULL;
	}
	r = Py_BuildValue("(N(N))", from, b);
	return r;
}

static PyObject *
filter_richcompare(PyObject *a, PyObject *b, int op)
{
	FilterObject *x = (FilterObject *) a;
	FilterObject *y = (FilterObject *) b;
	bool		eq;

	if (!PyObject_TypeCheck(b, &FilterType) || (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	eq = x->len == y->len &&
		memcmp(x->mem + SBF_PY_PREFIX, y->mem + SBF_PY_PREFIX, x->len) == 0;
	return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t
filter_hash(FilterObject *f)
{
	Py_hash_t	h = (Py_hash_t) sbf_hash(f->mem + SBF_PY_PREFIX, f->len);

	return h == -1 ? -2 : h;
}

static PyObject *
filter_repr(FilterObject *f)
{
	return PyUnicode_FromFormat("<sbf.Filter %s, %zu bytes>",
								f->window ? "windowed" :
								sbf_is_exact(&f->v) ? "exact" :
								sbf_is_compact(&f->v) ? "compact" : "segmented",
								f->len);
}

static PyObject *
filter_nbytes(FilterObject *f, void *unused)
{
	return PyLong_FromSize_t(f->len);
}

static PyMethodDef filter_methods[] = {
	{"from_bytes", (PyCFunction) filter_from_bytes, METH_O | METH_CLASS,
	"Filter.from_bytes(b) -> Filter: a scalablebloom value's bytes (what f::bytea gives), fully validated; ValueError names the defect."},
	{"from_text", (PyCFunction) filter_from_text, METH_O | METH_CLASS,
	"Filter.from_text(s) -> Filter: the text form \"sbf1:\" + base64, as scalablebloom's text output."},
	{"to_bytes", (PyCFunction) filter_to_bytes, METH_NOARGS,
	"f.to_bytes() -> bytes: the value's bytes."},
	{"to_text", (PyCFunction) filter_to_text, METH_NOARGS,
	"f.to_text() -> str: the text form, as f::text."},
	{"contains", (PyCFunction) (void (*) (void)) filter_contains, METH_VARARGS | METH_KEYWORDS,
	"f.contains(x, since=None) -> bool: as sbf_contains(f, x, since); since an aware datetime."},
	{"matches", (PyCFunction) (void (*) (void)) filter_matches, METH_VARARGS | METH_KEYWORDS,
	"f.matches(items, since=None) -> int: as sbf_matches(f, items, since); None items are skipped."},
	{"cardinality", (PyCFunction) filter_cardinality, METH_NOARGS,
	"f.cardinality() -> int: as # f."},
	{"info", (PyCFunction) sbf_py_info, METH_NOARGS,
	"f.info() -> dict: as sbf_info(f), the same keys and values."},
	{"__reduce__", (PyCFunction) filter_reduce, METH_NOARGS, NULL},
	{NULL}
};

static PyGetSetDef filter_getset[] = {
	{"windowed", (getter) filter_is_window, NULL, "True for a windowed filter (format 3).", NULL},
	{"nbytes", (getter) filter_nbytes, NULL, "Length of the value's bytes.", NULL},
	{NULL}
};

static PySequenceMethods filter_as_sequence = {
	.sq_contains = (objobjproc) filter_sq_contains,
};

PyTypeObject FilterType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "sbf.Filter",
	.tp_basicsize = sizeof(FilterObject),
	.tp_dealloc = (destructor) filter_dealloc,
	.tp_repr = (reprfunc) filter_repr,
	.tp_as_sequence = &filter_as_sequence,
	.tp_hash = (hashfunc) filter_hash,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A scalablebloom value (read-only). Make one with Filter.from_bytes, Filter.from_text, sbf.build or sbf.build_window.",
	.tp_richcompare = filter_richcompare,
	.tp_methods = filter_methods,
	.tp_getset = filter_getset,
};

/* ---- the module ---- */

/* _sbf.hash(x) -> int: the element hash (XXH3_64, seed 0), for tests. */
static PyObject *
module_hash(PyObject *mod, PyObject *x)
{
	uint64_t	h;

	if (sbf_py_elem_hash(x, &h) != 0)
		return NULL;
	return PyLong_FromUnsignedLongLong(h);
}

static PyMethodDef module_methods[] = {
	{"hash", module_hash, METH_O, "hash(x) -> int: the 64-bit element hash sbf uses."},
	{"build", sbf_py_build, METH_VARARGS, NULL},
	{"build_window", sbf_py_build_window, METH_VARARGS, NULL},
	{NULL}
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "sbf._sbf",
	"C core of the sbf package: scalablebloom values outside PostgreSQL.",
	-1, module_methods
};

PyMODINIT_FUNC
PyInit__sbf(void)
{
	PyObject   *m;

	PyDateTime_IMPORT;
	if (PyDateTimeAPI == NULL)
		return NULL;
	epoch_utc = PyDateTimeAPI->DateTime_FromDateAndTime(1970, 1, 1, 0, 0, 0, 0,
														PyDateTime_TimeZone_UTC,
														PyDateTimeAPI->DateTimeType);
	if (epoch_utc == NULL || PyType_Ready(&FilterType) < 0)
		return NULL;
	m = PyModule_Create(&module_def);
	if (m == NULL)
		return NULL;
	Py_INCREF(&FilterType);
	if (PyModule_AddObject(m, "Filter", (PyObject *) &FilterType) < 0 ||
		PyModule_AddIntConstant(m, "MAX_BYTES", (long) SBF_MAX_BYTES) < 0 ||
		PyModule_AddIntConstant(m, "MAX_WIDTH_US", (long) SBF_WIN_MAX_WIDTH) < 0 ||
		PyModule_AddIntConstant(m, "MAX_BUCKETS", SBF_WIN_MAX_BUCKETS) < 0)
	{
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
