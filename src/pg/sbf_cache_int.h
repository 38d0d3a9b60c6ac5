/*
 * sbf_cache_int.h
 *	  What the call site's memo (sbf_cache.c) and the session cache
 *	  (sbf_cache_session.c) share: the key of a stored value, the identity of
 *	  its first TOAST chunk, the tag of a check, and the session cache's
 *	  entries.  Private to those two files.
 */
#ifndef SBF_CACHE_INT_H
#define SBF_CACHE_INT_H

#include "access/detoast.h"
#include "access/transam.h"
#include "lib/ilist.h"
#include "storage/itemptr.h"
#include "storage/lock.h"

#include "sbf.h"

/* What names a stored value: its TOAST pointer. */
typedef struct SbfValueKey
{
	Oid			toastrelid;		/* InvalidOid: none */
	Oid			valueid;
	int32		extsize;
	int32		rawsize;
} SbfValueKey;

/* Identity of a value's first chunk (see sbf_cache_session.c). */
typedef struct SbfChunkId
{
	ItemPointerData ctid;
	TransactionId xmin;
	uint64		datahash;
} SbfChunkId;

/*
 * When a check was made: one command under one snapshot, with no relcache
 * invalidation processed since.
 */
typedef struct SbfUseTag
{
	LocalTransactionId lxid;
	CommandId	cid;
	TransactionId xmin;
	TransactionId xmax;
	uint64		inval;			/* sbf_inval_epoch */
	bool		unstable;		/* a subtransaction of this transaction aborted */
} SbfUseTag;

/* A session cache entry (hash table element; the key comes first). */
typedef struct SbfSessionEntry
{
	SbfValueKey key;
	uint64		gen;			/* unique per fill; 0 once removed */
	bool		dead;			/* invalidated: remove at the next touch */
	SbfChunkId	chunk;
	FullTransactionId filled_at;
	SbfUseTag	checked;		/* when the chunk identity last matched */
	Size		bytes;
	ScalableBloom *copy;		/* in sbf_session_cxt, its header 64-byte aligned */
	void	   *alloc;			/* the chunk copy lies in */
	struct SbfPlan *plan;		/* the lookup plan of copy, in sbf_session_cxt */
	dlist_node	lru;			/* most recently used at the head */
} SbfSessionEntry;

/* The key of a TOAST pointer. */
static inline void
sbf_key_of(const struct varatt_external *ext, SbfValueKey *k)
{
	memset(k, 0, sizeof(*k));
	k->toastrelid = ext->va_toastrelid;
	k->valueid = ext->va_valueid;
	k->extsize = (int32) VARATT_EXTERNAL_GET_EXTSIZE(*ext);
	k->rawsize = ext->va_rawsize;
}

/* Whether two keys name the same stored value (an empty key matches none). */
static inline bool
sbf_key_equal(const SbfValueKey *a, const SbfValueKey *b)
{
	return a->valueid == b->valueid && a->toastrelid == b->toastrelid &&
		a->extsize == b->extsize && a->rawsize == b->rawsize &&
		OidIsValid(a->toastrelid);
}

/*
 * Whether two tags are the same command under the same snapshot.  Never
 * once a subtransaction of the transaction aborted (see sbf_cache_session.c):
 * every use then checks again.
 */
static inline bool
sbf_tag_equal(const SbfUseTag *a, const SbfUseTag *b)
{
	return a->lxid == b->lxid && a->cid == b->cid && a->xmin == b->xmin &&
		a->xmax == b->xmax && a->inval == b->inval &&
		a->lxid != InvalidLocalTransactionId && !a->unstable && !b->unstable;
}

/* sbf_cache_session.c */
extern void sbf_use_tag(SbfUseTag *t);
extern bool sbf_chunk_identity(const SbfValueKey *key, SbfChunkId *id);
extern Size sbf_session_limit(void);
extern void sbf_session_init(void);
extern void sbf_inval_init(void);
extern SbfValueKey *sbf_session_seen_slot(const SbfValueKey *k);
extern SbfSessionEntry *sbf_session_get(const SbfValueKey *key, const SbfUseTag *tag);
extern SbfSessionEntry *sbf_session_put(const SbfValueKey *key, const SbfChunkId *id,
										const SbfUseTag *tag, const ScalableBloom *copy);
extern void sbf_session_touch(SbfSessionEntry *e);

#endif							/* SBF_CACHE_INT_H */
