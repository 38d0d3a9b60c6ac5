/*
 * sbf_compat.h
 *	  The one place where sbf's glue meets differences between PostgreSQL
 *	  major versions.  Each changed API gets one name here, and the rest of
 *	  the glue uses that name on every major; PG_VERSION_NUM is tested here
 *	  and nowhere else.
 *
 * Built and tested on 15, 17, 18 and 19 (release candidate 1), each with
 * its distribution's own compiler (test/run_all.sh).  A new major adds its
 * cases here.
 */
#ifndef SBF_COMPAT_H
#define SBF_COMPAT_H

#include "postgres.h"

#include "access/toast_internals.h"
#include "storage/proc.h"
#include "utils/arrayaccess.h"

/*
 * A function that does not return.  PostgreSQL 18 added the prefix form
 * pg_noreturn (C11 _Noreturn) and 19 removed the postfix
 * pg_attribute_noreturn(); GCC-style attributes may stand first, so the
 * prefix form serves 15-17 too.  Under C23 (the default of gcc 15 and
 * later) 19 spells it [[noreturn]], an attribute that must open the
 * declaration: so every declaration begins with it, "pg_noreturn extern
 * void f(...)", which all three spellings accept.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * This backend's local transaction id: PostgreSQL 17 moved it into
 * PGPROC's virtual transaction id (MyProc->vxid.lxid).
 */
#if PG_VERSION_NUM >= 170000
#define SBF_MY_LXID() (MyProc->vxid.lxid)
#else
#define SBF_MY_LXID() (MyProc->lxid)
#endif

/*
 * Walking an array's elements: PostgreSQL 19 passes the element type's
 * length, by-value flag and alignment to array_iter_setup once, where
 * earlier majors pass them to every array_iter_next.
 */
#if PG_VERSION_NUM >= 190000
#define sbf_array_iter_setup(it, a, typlen, typbyval, typalign) \
	array_iter_setup((it), (a), (typlen), (typbyval), (typalign))
#define sbf_array_iter_next(it, isnull, i, typlen, typbyval, typalign) \
	array_iter_next((it), (isnull), (i))
#else
#define sbf_array_iter_setup(it, a, typlen, typbyval, typalign) \
	array_iter_setup((it), (a))
#define sbf_array_iter_next(it, isnull, i, typlen, typbyval, typalign) \
	array_iter_next((it), (isnull), (i), (typlen), (typbyval), (typalign))
#endif

/*
 * The snapshot for reading TOAST chunks directly.  PostgreSQL 18 replaced
 * init_toast_snapshot(), which filled the caller's SnapshotData, with
 * get_toast_snapshot(), which returns a static one; space is used only
 * before 18.
 */
static inline Snapshot
sbf_toast_snapshot(SnapshotData *space)
{
#if PG_VERSION_NUM >= 180000
	(void) space;
	return get_toast_snapshot();
#else
	init_toast_snapshot(space);
	return space;
#endif
}

#endif							/* SBF_COMPAT_H */
