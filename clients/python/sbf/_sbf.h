/*
 * _sbf.h
 *	  The Python extension sbf._sbf over the project's pure-C core
 *	  (src/core): the Filter object and what its three source files share.
 */
#ifndef SBF_PY_H
#define SBF_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "sbf_core.h"
#include "sbf_plain.h"
#include "sbf_window.h"
#include "sbf_app.h"
#include "sbf_plan.h"

/*
 * The payload lives at mem + SBF_PY_PREFIX, as it does behind PostgreSQL's
 * 4-byte varlena header: malloc's alignment then puts every 64-bit word of
 * the bit arrays on an 8-byte boundary, as the format intends.
 */
#define SBF_PY_PREFIX	4

typedef struct FilterObject
{
	PyObject_HEAD
	uint8_t    *mem;			/* malloc'd; payload at mem + SBF_PY_PREFIX */
	size_t		len;			/* payload bytes */
	bool		window;			/* format 3: wv is valid, else v */
	SbfView		v;
	SbfWinView	wv;
	int64_t		all_age;		/* window: sbf_win_max_age of every bucket */
	SbfPlan    *plan;			/* the lookup plan, decoded once (sbf_plan.h) */
} FilterObject;

extern PyTypeObject FilterType;

/* malloc-backed allocator for the core (no interrupt callback). */
extern const SbfAllocator sbf_py_allocator;

/*
 * A new Filter owning mem (payload at mem + SBF_PY_PREFIX, len bytes),
 * fully validated; on a malformed payload frees mem and raises ValueError
 * naming the defect.
 */
extern PyObject *sbf_py_adopt(uint8_t *mem, size_t len);

/* Raises the exception for a core status (ValueError or MemoryError). */
extern PyObject *sbf_py_status_error(SbfStatus st, const char *what);

/*
 * The hash of an element: str (its UTF-8 bytes, as text in a UTF8
 * database), bytes-like (its bytes, as bytea) or int (as bigint: 8 bytes
 * little-endian).  0 on success; -1 with TypeError, OverflowError or
 * UnicodeEncodeError set.
 */
extern int	sbf_py_elem_hash(PyObject *x, uint64_t *h);

/*
 * Microseconds since 1970-01-01 UTC of an aware datetime: 0, or -1 with
 * TypeError set (not a datetime, or naive).
 */
extern int	sbf_py_unix_us(PyObject *dt, int64_t *us);

/* f.info(): the dict sbf_info(f) gives, parsed (_sbf_info.c). */
extern PyObject *sbf_py_info(FilterObject *f, PyObject *unused);

/* sbf.build and sbf.build_window's C halves (_sbf_build.c). */
extern PyObject *sbf_py_build(PyObject *mod, PyObject *args);
extern PyObject *sbf_py_build_window(PyObject *mod, PyObject *args);

#endif							/* SBF_PY_H */
