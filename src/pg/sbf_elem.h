/*
 * sbf_elem.h
 *	  Element types (sbf_elem.c): how a value of each SQL element type is
 *	  hashed.
 */
#ifndef SBF_ELEM_H
#define SBF_ELEM_H

#include "utils/array.h"

#include "sbf.h"

/*
 * Element types.  One table (elem_types in sbf_elem.c) says, for each
 * SQL type whose values are filter elements, how a value becomes the
 * canonical bytes that sbf_hash turns into the element's hash: text, varchar
 * and bytea hash their data bytes; bigint, integer and smallint hash as the
 * equal bigint (sbf_hash_int64), so 42::integer and 42::bigint are one
 * element.  add, ||, contains, <@, matches and the element aggregates all
 * hash through it: a new element type is a new row (and its SQL).
 */
typedef enum SbfElemKind
{
	SBF_ELEM_BYTES,				/* a varlena: its data bytes */
	SBF_ELEM_INT8,				/* bigint */
	SBF_ELEM_INT4,				/* integer, as the equal bigint */
	SBF_ELEM_INT2				/* smallint, as the equal bigint */
} SbfElemKind;

typedef struct SbfElemType
{
	Oid			typid;
	Oid			arraytypid;		/* its array type if || takes such arrays,
								 * else InvalidOid */
	SbfElemKind kind;
	/* storage of the type, so that walking an array needs no catalog lookup */
	int16		typlen;
	bool		typbyval;
	char		typalign;
} SbfElemType;

/* The row of an element type, or NULL if typid is not one. */
extern const SbfElemType *sbf_elem_type(Oid typid);

/* The row whose arrays have type arraytypid, or NULL. */
extern const SbfElemType *sbf_elem_array_type(Oid arraytypid);

/* Hash of a compressed or out-of-line varlena element (detoasts a copy). */
extern uint64 sbf_hash_toasted(struct varlena *p);

/*
 * The hashes of the non-NULL elements of arr (element type et), in array
 * order, palloc'd (room for at least one); *n receives how many.  Checks for
 * interrupts as it goes.
 */
extern uint64 *sbf_elem_hash_array(ArrayType *arr, const SbfElemType *et, int *n);

/*
 * Hash of an element datum of the given kind, in any form (a varlena may be
 * short, compressed or out of line).  Inline: a caller that passes a constant
 * kind gets just that kind's code, with no per-row dispatch.
 */
static inline uint64
sbf_elem_hash(SbfElemKind kind, Datum d)
{
	switch (kind)
	{
		case SBF_ELEM_BYTES:
			{
				struct varlena *p = (struct varlena *) DatumGetPointer(d);

				if (likely(!VARATT_IS_EXTENDED(p) || VARATT_IS_SHORT(p)))
					return sbf_hash(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p));
				return sbf_hash_toasted(p);
			}
		case SBF_ELEM_INT8:
			return sbf_hash_int64(DatumGetInt64(d));
		case SBF_ELEM_INT4:
			return sbf_hash_int64((int64) DatumGetInt32(d));
		case SBF_ELEM_INT2:
			return sbf_hash_int64((int64) DatumGetInt16(d));
	}
	pg_unreachable();
}

#endif							/* SBF_ELEM_H */
