/*
 * _sbf_info.c
 *	  Filter.info(): the dict that json.loads gives for sbf_info(f), key for
 *	  key and value for value.  The numbers come from the core functions the
 *	  glue's sbf_info (src/pg/sbf_ops.c, src/pg/sbf_window.c) calls; doubles are
 *	  the same doubles (the server prints them in their shortest exact form,
 *	  which parses back to them), and a non-finite one is None (JSON null).
 */
#include "_sbf.h"
#include "sbf_kind.h"

#include <math.h>
#include <stdio.h>

/* microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch */
#define UNIX_TO_PG_US	(INT64_C(10957) * INT64_C(86400000000))
#define DAY_US			INT64_C(86400000000)
/* the Julian day of 1970-01-01 */
#define UNIX_EPOCH_JD	INT64_C(2440588)

/* d[key] = value, stealing value; -1 if value is NULL or the store fails. */
static int
put(PyObject *d, const char *key, PyObject *value)
{
	int			r;

	if (value == NULL)
		return -1;
	r = PyDict_SetItemString(d, key, value);
	Py_DECREF(value);
	return r;
}

/* A double as JSON gives it back: a float, or None when not finite. */
static PyObject *
json_float(double x)
{
	if (!isfinite(x))
		Py_RETURN_NONE;
	return PyFloat_FromDouble(x);
}

/* A double printed with "%.0f" (a JSON integer), as an int. */
static PyObject *
json_rounded(double x)
{
	char		buf[400];

	if (!isfinite(x))
		Py_RETURN_NONE;
	snprintf(buf, sizeof(buf), "%.0f", x);
	return PyLong_FromString(buf, NULL, 10);
}

static PyObject *
u64(uint64_t x)
{
	return PyLong_FromUnsignedLongLong(x);
}

/*
 * Proleptic Gregorian date of a day count since 1970-01-01, years
 * astronomical (0 = 1 BC), by H. Hinnant's days-to-civil algorithm
 * ("chrono-Compatible Low-Level Date Algorithms").
 */
static void
civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t		era,
				doe,
				yoe,
				doy,
				mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/*
 * The start of bucket b as sbf_info writes it: "YYYY-MM-DDTHH:MM:SS.ffffffZ"
 * in UTC, or None where the server writes null (the time overflows, or its
 * Julian day is outside 0 .. 2^31 - 1).
 */
static PyObject *
bucket_start(int64_t b, int64_t width)
{
	int64_t		us,
				pg_us,
				days,
				tod,
				year;
	int			mon,
				mday;
	char		buf[64];

	if (__builtin_mul_overflow(b, width, &us) ||
		__builtin_sub_overflow(us, UNIX_TO_PG_US, &pg_us))
		Py_RETURN_NONE;
	days = us / DAY_US;
	tod = us % DAY_US;
	if (tod < 0)
	{
		tod += DAY_US;
		days -= 1;
	}
	if (days + UNIX_EPOCH_JD < 0 || days + UNIX_EPOCH_JD > INT32_MAX)
		Py_RETURN_NONE;
	civil_from_days(days, &year, &mon, &mday);
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
			 (int) year, mon, mday, (int) (tod / INT64_C(3600000000)),
			 (int) (tod / 60000000 % 60), (int) (tod / 1000000 % 60),
			 (int) (tod % 1000000));
	return PyUnicode_FromString(buf);
}

/*
 * A segment's geometry as the server's sbf_info shows it: its kind's keys
 * (sbf_segment_info_keys, which src/pg/sbf_ops.c's info_geometry prints).
 */
static int
put_geometry(PyObject *d, const SbfView *v, uint32_t i, const SbfSegment *seg)
{
	SbfSegmentDesc desc;
	SbfInfoKey	keys[SBF_INFO_MAX_KEYS];
	int			n;
	int			j;

	desc.seg = *seg;
	sbf_segment_geom(v, i, &desc.g, &desc.bytes);
	desc.expected_fill = 0.0;
	n = sbf_segment_info_keys(&desc, keys);
	for (j = 0; j < n; j++)
		if (put(d, keys[j].key, u64(keys[j].value)) < 0)
			return -1;
	return 0;
}

/* One segment of a plain filter's "segments" list. */
static PyObject *
plain_segment(const SbfView *v, uint32_t i)
{
	SbfSegment	seg;
	PyObject   *d = PyDict_New();

	if (d == NULL)
		return NULL;
	sbf_get_segment(v, i, &seg);
	if (put(d, "kind", PyUnicode_FromString(sbf_segment_kind_name(&seg))) < 0 ||
		put(d, "capacity", u64(seg.capacity)) < 0 ||
		put(d, "count", u64(seg.count)) < 0 ||
		put_geometry(d, v, i, &seg) < 0 ||
		put(d, "fill", json_float(sbf_segment_expected_fill(v, i))) < 0 ||
		put(d, "error_rate", json_float(seg.error)) < 0)
	{
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

/* The "hll" object of a plain filter. */
static PyObject *
plain_hll(const SbfView *v)
{
	bool		none = sbf_is_exact(v) || sbf_is_compact(v);
	const uint8_t *hll = none ? NULL : v->buf + v->hll_offset;
	PyObject   *d = PyDict_New();

	if (d == NULL)
		return NULL;
	if (put(d, "precision", u64(v->hll_p)) < 0 ||
		put(d, "form", PyUnicode_FromString(none ? "none" :
											(v->flags & SBF_FLAG_HLL_DENSE) ?
											"dense" : "sparse")) < 0 ||
		put(d, "bytes", u64(v->hll_bytes)) < 0 ||
		(!none &&
		 put(d, "estimate", json_rounded(sbf_hll_cardinality_parts(v, hll))) < 0))
	{
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

/* The fields of an exact filter: "hashes" and "first_segment". */
static int
plain_exact(PyObject *d, const SbfView *v)
{
	PyObject   *first = PyDict_New();

	if (first == NULL)
		return -1;
	if (put(first, "capacity", u64(v->first_capacity)) < 0 ||
		put(first, "error_rate", json_float(v->first_error)) < 0)
	{
		Py_DECREF(first);
		return -1;
	}
	if (put(d, "first_segment", first) < 0)
		return -1;
	return put(d, "hashes", u64(v->nhashes));
}

/* The fields of a compact filter: its fingerprints, their bits and low bits. */
static int
plain_compact(PyObject *d, const SbfView *v)
{
	if (put(d, "fingerprints", u64(v->nfp)) < 0 ||
		put(d, "fingerprint_bits", u64(v->fp_bits)) < 0)
		return -1;
	return put(d, "low_bits", u64(v->fp_low));
}

/* sbf_info's "form" of a plain filter. */
static const char *
plain_form(const SbfView *v)
{
	return sbf_is_exact(v) ? "exact" : sbf_is_compact(v) ? "compact" : "segments";
}

static PyObject *
plain_info(FilterObject *f)
{
	const SbfView *v = &f->v;
	const uint8_t *hll = sbf_is_exact(v) || sbf_is_compact(v) ? NULL :
		v->buf + v->hll_offset;
	PyObject   *d = PyDict_New();
	PyObject   *segs;
	uint32_t	i;

	if (d == NULL)
		return NULL;
	if (put(d, "version", u64(v->version)) < 0 ||
		put(d, "hash", PyUnicode_FromString(v->hash_id == SBF_HASH_XXH3 ?
											"xxh3_64" : "unknown")) < 0 ||
		put(d, "error_rate", json_float(v->error_rate)) < 0 ||
		put(d, "growth", u64(v->growth)) < 0 ||
		put(d, "tightening", json_float(v->tightening)) < 0 ||
		put(d, "capacity", u64(v->capacity)) < 0 ||
		put(d, "hll", plain_hll(v)) < 0 ||
		put(d, "form", PyUnicode_FromString(plain_form(v))) < 0 ||
		(sbf_is_exact(v) && plain_exact(d, v) < 0) ||
		(sbf_is_compact(v) && plain_compact(d, v) < 0) ||
		((v->flags & SBF_FLAG_CHAIN) &&
		 put(d, "continues_chain", Py_NewRef(Py_True)) < 0) ||
		put(d, "count_source", PyUnicode_FromString(sbf_count_source(v))) < 0 ||
		put(d, "cardinality",
			PyLong_FromLongLong(sbf_count_round(sbf_cardinality_parts(v, hll)))) < 0 ||
		put(d, "fpr_bound", json_float(sbf_fpr_bound(v))) < 0 ||
		put(d, "fpr_estimate", json_float(sbf_expected_fpr(v))) < 0 ||
		put(d, "bytes", u64((uint64_t) f->len + SBF_PY_PREFIX)) < 0 ||
		put(d, "segments", segs = PyList_New(0)) < 0)
	{
		Py_DECREF(d);
		return NULL;
	}
	for (i = 0; i < v->nsegments; i++)
	{
		PyObject   *s = plain_segment(v, i);

		if (s == NULL || PyList_Append(segs, s) < 0)
		{
			Py_XDECREF(s);
			Py_DECREF(d);
			return NULL;
		}
		Py_DECREF(s);
	}
	return d;
}

/* The pair age i of a windowed view (little-endian uint16). */
static uint16_t
pair_age(const SbfWinView *v, uint32_t i)
{
	const uint8_t *p = v->buf + v->pairs_offset + (size_t) v->npairs * 8 + (size_t) i * 2;

	return (uint16_t) (p[0] | (p[1] << 8));
}

/* One bucket of a window's "window" list. */
static PyObject *
window_bucket(const SbfWinView *v, uint32_t age, const uint32_t *npairs)
{
	size_t		off = v->bits_offset;
	uint64_t	count = npairs[age];
	uint64_t	bytes = (uint64_t) npairs[age] * SBF_WIN_PAIR_BYTES;
	uint32_t	nseg = 0;
	double		fpr = 0.0;
	uint32_t	j;
	PyObject   *d;
	PyObject   *kinds = PyList_New(0);

	if (kinds == NULL)
		return NULL;
	for (j = 0; j < v->nsegments; j++)
	{
		SbfWinSeg	seg;
		PyObject   *name;

		sbf_win_read_segment(v, j, &off, &seg);
		if (seg.age != age)
			continue;
		nseg++;
		count += seg.count;
		bytes += sbf_win_entry_bytes(v) + seg.bytes;
		fpr += sbf_win_segment_fpr(&seg);
		name = PyUnicode_FromString(seg.ops->name);
		if (name == NULL || PyList_Append(kinds, name) < 0)
		{
			Py_XDECREF(name);
			Py_DECREF(kinds);
			return NULL;
		}
		Py_DECREF(name);
	}
	d = PyDict_New();
	if (d == NULL || put(d, "kinds", kinds) < 0)	/* put takes kinds either way */
	{
		Py_XDECREF(d);
		if (d == NULL)
			Py_DECREF(kinds);
		return NULL;
	}
	if (put(d, "start", bucket_start(v->newest - (int64_t) age, v->width)) < 0 ||
		put(d, "age", u64(age)) < 0 ||
		put(d, "count", u64(count)) < 0 ||
		put(d, "pairs", u64(npairs[age])) < 0 ||
		put(d, "segments", u64(nseg)) < 0 ||
		put(d, "bytes", u64(bytes)) < 0 ||
		put(d, "fpr_bound", json_float(fpr)) < 0)
	{
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

/* The "window" list: the buckets holding pairs or segments, newest first. */
static PyObject *
window_buckets(const SbfWinView *v)
{
	uint32_t   *npairs = calloc(v->buckets, sizeof(uint32_t));
	bool	   *used = calloc(v->buckets, sizeof(bool));
	PyObject   *list = PyList_New(0);
	size_t		off = v->bits_offset;
	uint32_t	i;

	if (npairs == NULL || used == NULL || list == NULL)
	{
		free(npairs);
		free(used);
		Py_XDECREF(list);
		return PyErr_NoMemory();
	}
	for (i = 0; i < v->npairs; i++)
	{
		npairs[pair_age(v, i)]++;
		used[pair_age(v, i)] = true;
	}
	for (i = 0; i < v->nsegments; i++)
	{
		SbfWinSeg	seg;

		sbf_win_read_segment(v, i, &off, &seg);
		used[seg.age] = true;
	}
	for (i = 0; i < v->buckets && list != NULL; i++)
	{
		PyObject   *b;

		if (!used[i])
			continue;
		b = window_bucket(v, i, npairs);
		if (b == NULL || PyList_Append(list, b) < 0)
			Py_CLEAR(list);
		Py_XDECREF(b);
	}
	free(npairs);
	free(used);
	return list;
}

static PyObject *
window_info(FilterObject *f)
{
	const SbfWinView *v = &f->wv;
	PyObject   *d = PyDict_New();

	if (d == NULL)
		return NULL;
	if (put(d, "version", u64(v->version)) < 0 ||
		put(d, "form", PyUnicode_FromString("window")) < 0 ||
		put(d, "hash", PyUnicode_FromString("xxh3_64")) < 0 ||
		put(d, "bucket_us", PyLong_FromLongLong(v->width)) < 0 ||
		put(d, "buckets", u64(v->buckets)) < 0 ||
		put(d, "error_rate", json_float(v->error_rate)) < 0 ||
		put(d, "newest_bucket_start", (v->flags & SBF_WIN_FLAG_STARTED) ?
			bucket_start(v->newest, v->width) : Py_NewRef(Py_None)) < 0 ||
		put(d, "pairs", u64(v->npairs)) < 0 ||
		put(d, "segments", u64(v->nsegments)) < 0 ||
		put(d, "cardinality",
			PyLong_FromLongLong((long long) llround(sbf_win_cardinality(v)))) < 0 ||
		put(d, "fpr_bound", json_float(sbf_win_fpr_bound(v))) < 0 ||
		put(d, "bytes", u64((uint64_t) f->len + SBF_PY_PREFIX)) < 0 ||
		put(d, "window", window_buckets(v)) < 0)
	{
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

PyObject *
sbf_py_info(FilterObject *f, PyObject *unused)
{
	return f->window ? window_info(f) : plain_info(f);
}
