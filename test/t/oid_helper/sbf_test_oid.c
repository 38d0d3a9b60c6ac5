/*
 * sbf_test_oid.c
 *	  Test-only functions for test/t/008_oid_reuse.pl, built by that test in a
 *	  temporary directory and loaded from there by path; never installed with
 *	  the extension.
 *
 * sbf_test_set_next_oid(oid) makes the server's OID counter hand out the
 * given OID next (as pg_resetwal -o does offline), so that a new TOAST value
 * can be given the value id of one removed earlier in the same statement.
 * sbf_test_toast_value_id(scalablebloom) is the value id of a stored value's
 * TOAST pointer (NULL when the value is not stored out of line).
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/transam.h"
#include "fmgr.h"
#include "storage/lwlock.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(sbf_test_set_next_oid);
PG_FUNCTION_INFO_V1(sbf_test_toast_value_id);

/* Makes oid the next OID the server hands out. */
Datum
sbf_test_set_next_oid(PG_FUNCTION_ARGS)
{
	Oid			next = PG_GETARG_OID(0);

	if (next < FirstNormalObjectId)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("oid %u is below the first normal object id", next)));
	LWLockAcquire(OidGenLock, LW_EXCLUSIVE);
#if PG_VERSION_NUM >= 170000
	TransamVariables->nextOid = next;
	TransamVariables->oidCount = 0;	/* the next OID logs a new prefetch */
#else
	ShmemVariableCache->nextOid = next;
	ShmemVariableCache->oidCount = 0;
#endif
	LWLockRelease(OidGenLock);
	PG_RETURN_VOID();
}

/* The TOAST value id of an out-of-line argument, or NULL. */
Datum
sbf_test_toast_value_id(PG_FUNCTION_ARGS)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0));
	struct varatt_external ext;

	if (!VARATT_IS_EXTERNAL_ONDISK(v))
		PG_RETURN_NULL();
	VARATT_EXTERNAL_GET_POINTER(ext, v);
	PG_RETURN_OID(ext.va_valueid);
}
