/*
 * sbf_cache_session.c
 *	  The session cache of detoasted stored filters (sbf.cache_size), the
 *	  identity of a value's first TOAST chunk that validates its entries, and
 *	  the tags that say when a check was made; see sbf_cache.c for how
 *	  lookups use them.
 *
 * WHY A CACHED COPY CAN NEVER ANSWER FOR ANOTHER VALUE.  A TOAST value is
 * never changed in place: an UPDATE stores a new value under a new value id,
 * and what a pointer denotes is whatever chunks carry its value id in its
 * toast relation at the time it is read (that is what detoast_attr would
 * return).  A key could therefore only name different contents over time if
 * the old chunks were removed (DELETE and VACUUM, TRUNCATE, a rewrite by
 * VACUUM FULL or CLUSTER, which keeps value ids) and new chunks were stored
 * under the same value id, in the same toast relation, with the same sizes.
 * Every session-cache entry records the identity of its value's first chunk
 * (chunk_seq 0, fetched through the toast index): its ctid, its raw xmin and
 * a hash of its bytes, read before the value itself.  Every use by a new
 * command (or under a new snapshot, or after a relcache invalidation)
 * fetches that chunk again and uses the copy only if all three still match; otherwise the entry is dropped and the
 * value read afresh.  The old chunks can be removed, and new ones written
 * under the same value id, in two ways:
 *
 * - By other transactions: a physical tuple is never modified in place, so
 *   the same (ctid, xmin) means the same tuple unless the old one was removed
 *   and a new one written at the same ctid by a transaction with the same
 *   32-bit xid.  That transaction started after the entry was filled, and
 *   entries older than SBF_CACHE_MAX_XID_AGE transactions are dropped, so
 *   its xid cannot equal the old one unless the old chunk was already frozen
 *   and over 2^31 transactions old when it was cached -- and then the new
 *   value must also reuse the value id after 2^32 OIDs, the ctid, the sizes
 *   and the first chunk's bytes.  A rewrite (VACUUM FULL, CLUSTER) writes new
 *   tuples with a new xmin, so it is seen too.
 * - By this backend's own transaction: VACUUM and pruning never remove
 *   chunks its running transaction wrote or deleted, so only its own
 *   TRUNCATE or rewrite (CLUSTER, ALTER TABLE) can, and a new value written
 *   afterwards has the same xmin and may land at the same ctid with the same
 *   first chunk (test/t/008_oid_reuse.pl forces that), so the chunk check
 *   alone would not see it.  Those commands send a relcache invalidation of
 *   the toast relation, which this backend processes at its next command
 *   counter increment, before anything it writes afterwards is visible to
 *   it: sbf_relcache_cb marks the relation's entries dead.
 *
 * - By the abort of one of this backend's subtransactions: the chunks it
 *   wrote are dead at once, without an invalidation; once an index scan has
 *   killed their index entries (or pruning removed them) the value id is free
 *   again, and a value written later in the same command -- a PL/pgSQL
 *   function's simple expressions run under their caller's snapshot -- may
 *   get it (test/t/008_oid_reuse_subxact.pl forces that).  Its chunks have
 *   another xmin than the aborted ones, so the chunk check sees it, but a
 *   tag of the same command would skip the check.  So once a subtransaction
 *   of the current transaction aborted (sbf_subxact_cb), no tag of that
 *   transaction equals another: every use fetches the first chunk again,
 *   and the call site's private copies are read afresh.
 *
 * TRUNCATE, VACUUM FULL, CLUSTER and DROP by other sessions send the same
 * invalidation, which drops the entries at the next lock this backend takes.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/toast_internals.h"
#include "access/transam.h"
#include "access/xact.h"
#include "lib/ilist.h"
#include "storage/proc.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "sbf.h"
#include "sbf_cache_int.h"
#include "sbf_errors.h"
#include "sbf_plan.h"
#include "sbf_probe.h"
#include "sbf_spill.h"

/* Values read once in this session that enter the cache when read again. */
#define SBF_SESSION_SEEN		256

/* Entries older than this many transactions are read afresh (see above). */
#define SBF_CACHE_MAX_XID_AGE	((uint64) 1 << 30)

/* sbf.cache_size, in kB */
static int	sbf_cache_size_kb = 32768;

/* The session cache. */
static HTAB *sbf_session_htab = NULL;
static MemoryContext sbf_session_cxt = NULL;
static dlist_head sbf_session_lru = DLIST_STATIC_INIT(sbf_session_lru);
static Size sbf_session_bytes = 0;
static uint64 sbf_session_gen = 0;
static SbfValueKey sbf_session_seen[SBF_SESSION_SEEN];

/* Relcache invalidations processed by this backend (see sbf_relcache_cb). */
static uint64 sbf_inval_epoch = 0;
static bool sbf_inval_registered = false;

/* The local transaction in which a subtransaction last aborted. */
static LocalTransactionId sbf_abort_lxid = InvalidLocalTransactionId;

/* ---- keys and tags ---- */

/* The current command and snapshot. */
void
sbf_use_tag(SbfUseTag *t)
{
	memset(t, 0, sizeof(*t));
	t->inval = sbf_inval_epoch;
	t->lxid = SBF_MY_LXID();
	t->cid = GetCurrentCommandId(false);
	if (ActiveSnapshotSet())
	{
		Snapshot	s = GetActiveSnapshot();

		t->cid = s->curcid;
		t->xmin = s->xmin;
		t->xmax = s->xmax;
	}
	t->unstable = t->lxid == sbf_abort_lxid && t->lxid != InvalidLocalTransactionId;
}

/*
 * Fetches the identity of the first chunk of a stored value through the
 * toast index; false if the toast relation or the chunk is not there.
 */
bool
sbf_chunk_identity(const SbfValueKey *key, SbfChunkId *id)
{
	Relation	toastrel;
	Relation   *toastidxs;
	int			nidx;
	int			valid;
	ScanKeyData skey[2];
	SysScanDesc scan;
	SnapshotData snap;
	HeapTuple	tup;
	bool		found = false;

	toastrel = try_table_open(key->toastrelid, AccessShareLock);
	if (toastrel == NULL)
		return false;
	valid = toast_open_indexes(toastrel, AccessShareLock, &toastidxs, &nidx);
	ScanKeyInit(&skey[0], (AttrNumber) 1, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(key->valueid));
	ScanKeyInit(&skey[1], (AttrNumber) 2, BTEqualStrategyNumber, F_INT4EQ,
				Int32GetDatum(0));
	scan = systable_beginscan_ordered(toastrel, toastidxs[valid],
									  sbf_toast_snapshot(&snap), 2, skey);
	tup = systable_getnext_ordered(scan, ForwardScanDirection);
	if (tup != NULL)
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, 3, RelationGetDescr(toastrel), &isnull);

		memset(id, 0, sizeof(*id));
		id->ctid = tup->t_self;
		id->xmin = HeapTupleHeaderGetRawXmin(tup->t_data);
		if (!isnull && !VARATT_IS_EXTENDED(DatumGetPointer(d)))
			id->datahash = sbf_hash(VARDATA(DatumGetPointer(d)),
									VARSIZE(DatumGetPointer(d)) - VARHDRSZ);
		else if (!isnull && VARATT_IS_SHORT(DatumGetPointer(d)))
			id->datahash = sbf_hash(VARDATA_SHORT(DatumGetPointer(d)),
									VARSIZE_SHORT(DatumGetPointer(d)) - VARHDRSZ_SHORT);
		found = !isnull;
	}
	systable_endscan_ordered(scan);
	toast_close_indexes(toastidxs, nidx, AccessShareLock);
	table_close(toastrel, AccessShareLock);
	return found;
}

/* Whether two first-chunk identities are equal (ctid, raw xmin, bytes). */
static inline bool
sbf_chunk_id_equal(const SbfChunkId *a, const SbfChunkId *b)
{
	return ItemPointerEquals((ItemPointer) &a->ctid, (ItemPointer) &b->ctid) &&
		a->xmin == b->xmin && a->datahash == b->datahash;
}

/* ---- the session cache ---- */

/* Bytes the session cache may hold. */
Size
sbf_session_limit(void)
{
	return (Size) sbf_cache_size_kb * 1024;
}

/* Removes an entry and frees its copy. */
static void
sbf_session_remove(SbfSessionEntry *e)
{
	SbfValueKey key = e->key;

	dlist_delete(&e->lru);
	sbf_session_bytes -= e->bytes + (e->plan != NULL ? e->plan->bytes : 0);
	if (e->alloc != NULL)
		pfree(e->alloc);
	if (e->plan != NULL)
		pfree(e->plan);
	e->copy = NULL;
	e->alloc = NULL;
	e->plan = NULL;
	e->gen = 0;					/* memos holding it now miss */
	(void) hash_search(sbf_session_htab, &key, HASH_REMOVE, NULL);
}

/* Evicts least recently used entries until need more bytes fit. */
static void
sbf_session_make_room(Size need)
{
	while (!dlist_is_empty(&sbf_session_lru) &&
		   sbf_session_bytes + need > sbf_session_limit())
		sbf_session_remove(dlist_tail_element(SbfSessionEntry, lru, &sbf_session_lru));
}

/*
 * Relcache invalidation.  Every one ends the validity of every tag taken
 * before it, so memo slots are dropped and session entries checked again at
 * their next use; entries of the toast relation (or all of them) are also
 * marked dead and removed at their next touch, not here, since a callback may
 * run while a lookup holds a view.
 */
static void
sbf_relcache_cb(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS st;
	SbfSessionEntry *e;

	sbf_inval_epoch++;
	if (sbf_session_htab == NULL)
		return;
	hash_seq_init(&st, sbf_session_htab);
	while ((e = hash_seq_search(&st)) != NULL)
		if (!OidIsValid(relid) || e->key.toastrelid == relid)
			e->dead = true;
}

/* Creates the session cache on first use. */
void
sbf_session_init(void)
{
	HASHCTL		ctl;

	if (sbf_session_htab != NULL)
		return;
	sbf_session_cxt = AllocSetContextCreate(TopMemoryContext,
											"scalablebloom session cache",
											ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(SbfValueKey);
	ctl.entrysize = sizeof(SbfSessionEntry);
	ctl.hcxt = sbf_session_cxt;
	sbf_session_htab = hash_create("scalablebloom session cache", 256, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

/*
 * Subtransaction abort: the chunks it wrote are dead, and their value ids
 * may be handed out again within the transaction (see the file comment).
 */
static void
sbf_subxact_cb(SubXactEvent event, SubTransactionId mySubid,
			   SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		sbf_abort_lxid = SBF_MY_LXID();
		sbf_inval_epoch++;
	}
}

/* Registers sbf_relcache_cb, once per backend, before anything is kept. */
void
sbf_inval_init(void)
{
	if (sbf_inval_registered)
		return;
	CacheRegisterRelcacheCallback(sbf_relcache_cb, (Datum) 0);
	sbf_inval_registered = true;
}

/* Slot of the session's "read once" table for a key. */
SbfValueKey *
sbf_session_seen_slot(const SbfValueKey *k)
{
	uint32		h = (k->valueid * 2654435761u) ^ k->toastrelid;

	return &sbf_session_seen[(h >> 8) % SBF_SESSION_SEEN];
}

/*
 * The validated session entry for a key, or NULL.  An entry that no longer
 * matches its value's first chunk, or is dead or too old, is removed.
 */
SbfSessionEntry *
sbf_session_get(const SbfValueKey *key, const SbfUseTag *tag)
{
	SbfSessionEntry *e;
	SbfChunkId	now;

	if (sbf_session_htab == NULL)
		return NULL;
	if (sbf_session_limit() == 0 || sbf_session_bytes > sbf_session_limit())
		sbf_session_make_room(0);
	e = hash_search(sbf_session_htab, key, HASH_FIND, NULL);
	if (e == NULL)
		return NULL;
	if (!e->dead && !sbf_tag_equal(&e->checked, tag))
	{
		FullTransactionId next = ReadNextFullTransactionId();

		if (U64FromFullTransactionId(next) - U64FromFullTransactionId(e->filled_at) >=
			SBF_CACHE_MAX_XID_AGE ||
			!sbf_chunk_identity(key, &now) || !sbf_chunk_id_equal(&now, &e->chunk))
			e->dead = true;
		else
			e->checked = *tag;
	}
	if (e->dead)
	{
		elog(DEBUG2, "scalablebloom: a cached %zu-byte value changed, reading it again",
			 e->bytes - VARHDRSZ);
		sbf_session_remove(e);
		return NULL;
	}
	dlist_move_head(&sbf_session_lru, &e->lru);
	return e;
}

/*
 * Puts a detoasted copy (payload valid, in any context) into the session
 * cache under key, with the chunk identity read before it was detoasted.
 * The cache's copy has its varlena header at a 64-byte aligned address, so
 * that every line of a format-4 blocked area of 64 lines or more lies on one
 * cache line (docs/format4.md, section 2, "Line alignment").
 */
SbfSessionEntry *
sbf_session_put(const SbfValueKey *key, const SbfChunkId *id,
				const SbfUseTag *tag, const ScalableBloom *copy)
{
	Size		bytes = VARSIZE(copy);
	SbfSessionEntry *e;
	bool		found;
	void	   *alloc;
	ScalableBloom *mine;
	SbfPlan    *plan;

	/* plan first: nothing below can fail once the entry is in the table */
	plan = sbf_plan_of(SBF_PAYLOAD_PTR(copy), SBF_PAYLOAD_LEN(copy), sbf_session_cxt);
	e = hash_search(sbf_session_htab, key, HASH_FIND, NULL);
	if (e != NULL)
		sbf_session_remove(e);
	sbf_session_make_room(bytes + plan->bytes);
	alloc = MemoryContextAllocExtended(sbf_session_cxt, bytes + PG_CACHE_LINE_SIZE,
									   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (alloc == NULL)
	{
		pfree(plan);
		return NULL;
	}
	mine = (ScalableBloom *) TYPEALIGN(PG_CACHE_LINE_SIZE, alloc);
	memcpy(mine, copy, bytes);
	e = hash_search(sbf_session_htab, key, HASH_ENTER_NULL, &found);
	if (e == NULL)
	{
		pfree(alloc);
		pfree(plan);
		return NULL;
	}
	sbf_plan_bind(plan, SBF_PAYLOAD_PTR(mine));
	e->gen = ++sbf_session_gen;
	e->dead = false;
	e->chunk = *id;
	e->filled_at = ReadNextFullTransactionId();
	e->checked = *tag;
	e->bytes = bytes;
	e->copy = mine;
	e->alloc = alloc;
	e->plan = plan;
	dlist_push_head(&sbf_session_lru, &e->lru);
	/* the plan counts against sbf.cache_size too */
	sbf_session_bytes += e->bytes + plan->bytes;
	return e;
}

/* Marks a session entry as the most recently used. */
void
sbf_session_touch(SbfSessionEntry *e)
{
	dlist_move_head(&sbf_session_lru, &e->lru);
}

/*
 * Defines sbf.cache_size and registers the subtransaction-abort callback
 * (from _PG_init in sbf.c).
 */
void
sbf_cache_define_gucs(void)
{
	DefineCustomIntVariable("sbf.cache_size",
							"Memory each session may use to keep stored scalablebloom values detoasted across queries.",
							"Values are validated against their stored form on every use; 0 turns the cache off.",
							&sbf_cache_size_kb,
							32768, 0, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, NULL, NULL);
	/* from the start: a lookup after an abort must know of it */
	RegisterSubXactCallback(sbf_subxact_cb, NULL);
}

