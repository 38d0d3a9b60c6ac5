/*
 * sbf_elem.c
 *	  The element types: the one table saying how a value of each SQL
 *	  element type becomes the canonical bytes that are hashed (see
 *	  sbf_elem.h).
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "utils/array.h"

#include "sbf.h"
#include "sbf_elem.h"

/*
 * The element types (see SbfElemType).  bytea[] is not a collection of
 * elements for || (1.0 never took it); varchar[] shares text[]'s layout.
 */
static const SbfElemType elem_types[] = {
	{TEXTOID, TEXTARRAYOID, SBF_ELEM_BYTES, -1, false, TYPALIGN_INT},
	{VARCHAROID, VARCHARARRAYOID, SBF_ELEM_BYTES, -1, false, TYPALIGN_INT},
	{INT8OID, INT8ARRAYOID, SBF_ELEM_INT8, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE},
	{INT4OID, INT4ARRAYOID, SBF_ELEM_INT4, sizeof(int32), true, TYPALIGN_INT},
	{INT2OID, INT2ARRAYOID, SBF_ELEM_INT2, sizeof(int16), true, TYPALIGN_SHORT},
	{BYTEAOID, InvalidOid, SBF_ELEM_BYTES, -1, false, TYPALIGN_INT},
};

/* The row of an element type, or NULL if typid is not one. */
const SbfElemType *
sbf_elem_type(Oid typid)
{
	size_t		i;

	for (i = 0; i < lengthof(elem_types); i++)
		if (elem_types[i].typid == typid)
			return &elem_types[i];
	return NULL;
}

/* The row whose arrays have type arraytypid, or NULL. */
const SbfElemType *
sbf_elem_array_type(Oid arraytypid)
{
	size_t		i;

	if (!OidIsValid(arraytypid))
		return NULL;
	for (i = 0; i < lengthof(elem_types); i++)
		if (elem_types[i].arraytypid == arraytypid)
			return &elem_types[i];
	return NULL;
}

/* Hash of a compressed or out-of-line varlena element (detoasts a copy). */
uint64
sbf_hash_toasted(struct varlena *p)
{
	struct varlena *flat = pg_detoast_datum_packed(p);
	uint64		h = sbf_hash(VARDATA_ANY(flat), VARSIZE_ANY_EXHDR(flat));

	if (flat != p)
		pfree(flat);
	return h;
}

/* The hashes of an array's non-NULL elements (see sbf_elem.h). */
uint64 *
sbf_elem_hash_array(ArrayType *arr, const SbfElemType *et, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	uint64	   *h;
	int			nelems;
	int			i;

	deconstruct_array(arr, et->typid, et->typlen, et->typbyval, et->typalign,
					  &elems, &nulls, &nelems);
	h = palloc_extended(Max(nelems, 1) * sizeof(uint64), MCXT_ALLOC_HUGE);
	*n = 0;
	for (i = 0; i < nelems; i++)
	{
		if ((i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!nulls[i])
			h[(*n)++] = sbf_elem_hash(et->kind, elems[i]);
	}
	pfree(elems);
	pfree(nulls);
	return h;
}
