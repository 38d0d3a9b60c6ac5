/*
 * sbf_cache.c
 *	  How lookups read a stored filter: a per-backend (session) cache of
 *	  detoasted values validated on every use, a per-call-site memo of the
 *	  values in use, and partial reads of large out-of-line values.
 *
 * A ranking request passes one stored filter with each of its candidate rows
 * (a join, = ANY, a LATERAL), and a feed asks for the same user again
 * seconds later.  The filter reaches sbf_contains or sbf_matches as a TOAST
 * pointer, and detoasting it per call, or per query, copies the whole value
 * again.  So an out-of-line value is kept detoasted in three ways:
 *
 * 1. The session cache (this backend, across queries and transactions): a
 *    hash table keyed on the TOAST pointer (toast relation, value id, stored
 *    and raw size), bounded by sbf.cache_size (kB; 0 disables it), least
 *    recently used entries evicted first.  A value enters it the second time
 *    the session reads it (the first read goes through 2. or 3.), so values
 *    read once cost nothing extra.
 * 2. The call site's memo in fn_extra: the entries it used, so the rows of
 *    one query need no hash lookup and no validation, and private copies when
 *    the session cache is off or the value does not fit in it.
 * 3. Reads by slices for a single lookup on a large value (sbf_slice.c).
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
 * command (or under a new snapshot) fetches that chunk again and uses the
 * copy only if all three still match; otherwise the entry is dropped and the
 * value read afresh.  A physical tuple is never modified in place, so the
 * same (ctid, xmin) means the same tuple unless the old one was removed and a
 * new one written at the same ctid by a transaction with the same 32-bit
 * xid: new chunks are written by a transaction that started after the entry
 * was filled, and entries older than SBF_CACHE_MAX_XID_AGE transactions are
 * dropped, so its xid cannot equal the old one unless the old chunk was
 * already frozen and over 2^31 transactions old when it was cached -- and
 * then the new value must also reuse the value id after 2^32 OIDs, the ctid,
 * the sizes and the first chunk's bytes (header, directory with its counts,
 * first bits).  A rewrite (VACUUM FULL, CLUSTER) writes new tuples with a new
 * xmin, so it is seen too, and TRUNCATE, VACUUM FULL, CLUSTER and DROP of a
 * toast relation also send a relcache invalidation that drops its entries.
 *
 * The memo (2.) skips that check for the rest of one command under one
 * snapshot (same local transaction, command id, snapshot xmin and xmax): the
 * pointers a command reads come from tuples its snapshot sees, whose chunks
 * VACUUM cannot remove while the snapshot is held, so their value ids cannot
 * be reused meanwhile.  A PL/pgSQL simple expression keeps its fn_extra for
 * the whole transaction, and a DO block or procedure that commits keeps it
 * even longer, so the memo never relies on fn_extra's lifetime: a new command
 * or snapshot validates again, and private copies are dropped.
 *
 * A single lookup on a large filter needs a few bytes, not the whole value:
 * the first time a large value reaches a call site (and it is not in the
 * session cache) it is read by slices (sbf_slice.c).  If the same value
 * comes again the call site is evidently reading it row after row, and it is
 * detoasted and kept; if it comes again in a later query, it enters the
 * session cache.
 *
 * Values stored in line are read where they are, without a copy (a short
 * 1-byte header is fine: the core reads every field with unaligned loads).
 *
 * Lookups never re-run the full validator: every value passed it when it
 * entered.  What they rely on is checked on every read by sbf_parse_prefix:
 * the header and directory must be in range and describe exactly the value's
 * length, so every bit position (< m of its segment) lies inside the value.
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

/* Values a call site keeps, and the bytes of private copies beyond the newest. */
#define SBF_SITE_ENTRIES		4
#define SBF_SITE_BYTES			((Size) 64 * 1024 * 1024)

/* Recently sliced values remembered per call site (a second read keeps it). */
#define SBF_SITE_SEEN			4

/* Values read once in this session that enter the cache when read again. */
#define SBF_SESSION_SEEN		256

/* Entries older than this many transactions are read afresh (see above). */
#define SBF_CACHE_MAX_XID_AGE	((uint64) 1 << 30)

/* sbf.cache_size, in kB */
static int	sbf_cache_size_kb = 32768;

/* What names a stored value: its TOAST pointer. */
typedef struct SbfValueKey
{
	Oid			toastrelid;		/* InvalidOid: none */
	Oid			valueid;
	int32		extsize;
	int32		rawsize;
} SbfValueKey;

/* Identity of a value's first chunk (see the file comment). */
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
	ScalableBloom *copy;		/* in sbf_session_cxt */
	SbfView		view;
	dlist_node	lru;			/* most recently used at the head */
} SbfSessionEntry;

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

/* One value a call site uses. */
typedef struct SbfSiteSlot
{
	SbfValueKey key;			/* toastrelid InvalidOid: empty */
	SbfUseTag	tag;			/* valid for this command and snapshot */
	uint64		lastuse;
	SbfSessionEntry *entry;		/* in the session cache, or NULL */
	uint64		entry_gen;
	MemoryContext mcxt;			/* private copy, when entry is NULL */
	ScalableBloom *copy;
	Size		bytes;
	SbfView		view;
} SbfSiteSlot;

/* What a call site keeps in fn_extra. */
typedef struct SbfSiteCache
{
	uint64		clock;
	SbfSiteSlot slots[SBF_SITE_ENTRIES];
	/* values read by slices, most recent at seen_next - 1 */
	SbfValueKey seen[SBF_SITE_SEEN];
	int			seen_next;
} SbfSiteCache;

void		_PG_init(void);

/* ---- keys and tags ---- */

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

/* The current command and snapshot. */
static void
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
}

/* Whether two tags are the same command under the same snapshot. */
static inline bool
sbf_tag_equal(const SbfUseTag *a, const SbfUseTag *b)
{
	return a->lxid == b->lxid && a->cid == b->cid && a->xmin == b->xmin &&
		a->xmax == b->xmax && a->inval == b->inval &&
		a->lxid != InvalidLocalTransactionId;
}

/*
 * Fetches the identity of the first chunk of a stored value through the
 * toast index; false if the toast relation or the chunk is not there.
 */
static bool
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
static inline Size
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
	sbf_session_bytes -= e->bytes;
	if (e->copy != NULL)
		pfree(e->copy);
	e->copy = NULL;
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
static void
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

/* Registers sbf_relcache_cb, once per backend, before anything is kept. */
static void
sbf_inval_init(void)
{
	if (sbf_inval_registered)
		return;
	CacheRegisterRelcacheCallback(sbf_relcache_cb, (Datum) 0);
	sbf_inval_registered = true;
}

/* Slot of the session's "read once" table for a key. */
static inline SbfValueKey *
sbf_session_seen_slot(const SbfValueKey *k)
{
	uint32		h = (k->valueid * 2654435761u) ^ k->toastrelid;

	return &sbf_session_seen[(h >> 8) % SBF_SESSION_SEEN];
}

/*
 * The validated session entry for a key, or NULL.  An entry that no longer
 * matches its value's first chunk, or is dead or too old, is removed.
 */
static SbfSessionEntry *
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
 */
static SbfSessionEntry *
sbf_session_put(const SbfValueKey *key, const SbfChunkId *id,
				const SbfUseTag *tag, const ScalableBloom *copy)
{
	Size		bytes = VARSIZE(copy);
	SbfSessionEntry *e;
	bool		found;
	ScalableBloom *mine;

	SbfView		check;

	/* parse first: nothing below can fail once the entry is in the table */
	sbf_view_of(copy, &check);
	e = hash_search(sbf_session_htab, key, HASH_FIND, NULL);
	if (e != NULL)
		sbf_session_remove(e);
	sbf_session_make_room(bytes);
	mine = MemoryContextAllocExtended(sbf_session_cxt, bytes,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (mine == NULL)
		return NULL;
	memcpy(mine, copy, bytes);
	e = hash_search(sbf_session_htab, key, HASH_ENTER_NULL, &found);
	if (e == NULL)
	{
		pfree(mine);
		return NULL;
	}
	e->gen = ++sbf_session_gen;
	e->dead = false;
	e->chunk = *id;
	e->filled_at = ReadNextFullTransactionId();
	e->checked = *tag;
	e->bytes = bytes;
	e->copy = mine;
	e->view = check;
	e->view.buf = SBF_PAYLOAD_PTR(mine);
	dlist_push_head(&sbf_session_lru, &e->lru);
	sbf_session_bytes += bytes;
	return e;
}

/* ---- the call site's memo ---- */

/* The call site's memo, created on first use in fn_mcxt. */
static SbfSiteCache *
sbf_site_cache(FunctionCallInfo fcinfo)
{
	SbfSiteCache *c = (SbfSiteCache *) fcinfo->flinfo->fn_extra;

	sbf_inval_init();
	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(SbfSiteCache));
		fcinfo->flinfo->fn_extra = c;
	}
	return c;
}

/* Empties a slot, freeing a private copy. */
static void
sbf_site_clear(SbfSiteSlot *s)
{
	s->key.toastrelid = InvalidOid;
	s->entry = NULL;
	s->copy = NULL;
	s->bytes = 0;
	if (s->mcxt != NULL)
		MemoryContextReset(s->mcxt);
}

/*
 * The view a slot of the memo holds for key in this command, or NULL.  Slots
 * of earlier commands or snapshots, and slots whose session entry is gone,
 * are emptied.
 */
static const SbfView *
sbf_site_find(SbfSiteCache *c, const SbfValueKey *key, const SbfUseTag *tag)
{
	int			i;

	for (i = 0; i < SBF_SITE_ENTRIES; i++)
	{
		SbfSiteSlot *s = &c->slots[i];

		if (!OidIsValid(s->key.toastrelid))
			continue;
		if (!sbf_tag_equal(&s->tag, tag) ||
			(s->entry != NULL && (s->entry->gen != s->entry_gen || s->entry->dead)))
		{
			sbf_site_clear(s);
			continue;
		}
		if (sbf_key_equal(&s->key, key))
		{
			s->lastuse = ++c->clock;
			if (s->entry != NULL)
			{
				dlist_move_head(&sbf_session_lru, &s->entry->lru);
				return &s->entry->view;
			}
			return &s->view;
		}
	}
	return NULL;
}

/*
 * A slot for a new value: an empty one, else the least recently used; older
 * private copies are dropped while the others would exceed SBF_SITE_BYTES.
 */
static SbfSiteSlot *
sbf_site_slot(SbfSiteCache *c, Size need)
{
	SbfSiteSlot *slot = NULL;

	for (;;)
	{
		SbfSiteSlot *lru = NULL;
		Size		others = 0;
		int			i;

		slot = NULL;
		for (i = 0; i < SBF_SITE_ENTRIES; i++)
		{
			SbfSiteSlot *s = &c->slots[i];

			if (!OidIsValid(s->key.toastrelid))
			{
				if (slot == NULL)
					slot = s;
				continue;
			}
			others += s->bytes;
			if (lru == NULL || s->lastuse < lru->lastuse)
				lru = s;
		}
		if (lru == NULL || (slot != NULL && others + need <= SBF_SITE_BYTES))
			return slot;
		sbf_site_clear(lru);
	}
}

/* Records a session entry in a memo slot. */
static const SbfView *
sbf_site_keep_entry(SbfSiteCache *c, const SbfValueKey *key,
					const SbfUseTag *tag, SbfSessionEntry *e)
{
	SbfSiteSlot *slot = sbf_site_slot(c, 0);

	slot->key = *key;
	slot->tag = *tag;
	slot->lastuse = ++c->clock;
	slot->entry = e;
	slot->entry_gen = e->gen;
	return &e->view;
}

/* Detoasts raw into a memo slot as a private copy for this command. */
static const SbfView *
sbf_site_keep_copy(FunctionCallInfo fcinfo, SbfSiteCache *c,
				   const SbfValueKey *key, const SbfUseTag *tag,
				   struct varlena *raw)
{
	SbfSiteSlot *slot = sbf_site_slot(c, (Size) key->rawsize);
	MemoryContext oldcxt;

	if (slot->mcxt == NULL)
		slot->mcxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt,
										   "scalablebloom lookup cache",
										   ALLOCSET_SMALL_SIZES);
	/* whatever detoasting allocates goes away with the slot */
	oldcxt = MemoryContextSwitchTo(slot->mcxt);
	slot->copy = (ScalableBloom *) detoast_attr(raw);
	MemoryContextSwitchTo(oldcxt);

	elog(DEBUG2, "scalablebloom: caching a %zu-byte value",
		 (Size) SBF_PAYLOAD_LEN(slot->copy));
	sbf_view_of(slot->copy, &slot->view);
	slot->key = *key;
	slot->tag = *tag;
	slot->entry = NULL;
	slot->bytes = VARSIZE(slot->copy);
	slot->lastuse = ++c->clock;
	return &slot->view;
}

/* Whether a value was read by slices at this call site recently. */
static bool
sbf_site_seen(SbfSiteCache *c, const SbfValueKey *key)
{
	int			i;

	for (i = 0; i < SBF_SITE_SEEN; i++)
		if (sbf_key_equal(&c->seen[i], key))
			return true;
	return false;
}

/* Remembers that a value was read by slices at this call site. */
static void
sbf_site_remember(SbfSiteCache *c, const SbfValueKey *key)
{
	c->seen[c->seen_next] = *key;
	c->seen_next = (c->seen_next + 1) % SBF_SITE_SEEN;
}

/* ---- opening a filter argument ---- */

/*
 * The view of an out-of-line value for this call: the memo, the session
 * cache, a read by slices (p->sliced set, NULL returned), or a fresh detoast
 * kept in the session cache (on the session's second read of the value) or
 * in the memo.
 */
static const SbfView *
sbf_open_external(FunctionCallInfo fcinfo, struct varlena *raw, uint32 nelems,
				  SbfProbe *p)
{
	SbfSiteCache *c = sbf_site_cache(fcinfo);
	struct varatt_external ext;
	SbfValueKey key;
	SbfUseTag	tag;
	const SbfView *v;
	SbfSessionEntry *e;
	SbfValueKey *seen;
	bool		cacheable;
	Size		len;

	VARATT_EXTERNAL_GET_POINTER(ext, raw);
	sbf_key_of(&ext, &key);
	sbf_use_tag(&tag);
	v = sbf_site_find(c, &key, &tag);
	if (v != NULL)
		return v;

	e = sbf_session_get(&key, &tag);
	if (e != NULL)
	{
		elog(DEBUG2, "scalablebloom: using the session's copy of a %zu-byte value",
			 e->bytes - VARHDRSZ);
		return sbf_site_keep_entry(c, &key, &tag, e);
	}

	len = (Size) VARATT_EXTERNAL_GET_EXTSIZE(ext);
	/* what a kept copy costs: the raw size (with header), not the stored one */
	cacheable = (Size) ext.va_rawsize <= sbf_session_limit();
	seen = sbf_session_seen_slot(&key);

	/* a single lookup on a large value the session has not read yet */
	if (!VARATT_EXTERNAL_IS_COMPRESSED(ext) && sbf_slices_may_pay(len, nelems) &&
		!sbf_site_seen(c, &key) && !(cacheable && sbf_key_equal(seen, &key)))
	{
		p->sliced = sbf_sliced_open(raw, len, nelems);
		if (p->sliced != NULL)
		{
			sbf_site_remember(c, &key);
			*seen = key;
			return NULL;
		}
	}

	/* read before: keep it for the session */
	if (cacheable && sbf_key_equal(seen, &key))
	{
		SbfChunkId	id;

		sbf_session_init();
		if (sbf_chunk_identity(&key, &id))
		{
			struct varlena *copy = detoast_attr(raw);

			e = sbf_session_put(&key, &id, &tag, (ScalableBloom *) copy);
			pfree(copy);
			if (e != NULL)
			{
				elog(DEBUG2, "scalablebloom: keeping a %zu-byte value for the session",
					 e->bytes - VARHDRSZ);
				seen->toastrelid = InvalidOid;
				return sbf_site_keep_entry(c, &key, &tag, e);
			}
		}
	}
	*seen = key;
	return sbf_site_keep_copy(fcinfo, c, &key, &tag, raw);
}

/*
 * Opens filter argument argno of the current call for nelems lookups; see
 * the file comment for the ways.
 */
void
sbf_probe_open(FunctionCallInfo fcinfo, int argno, uint32 nelems, SbfProbe *p)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));

	p->view = &p->local;
	p->sliced = NULL;
	p->tofree = NULL;

	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		p->view = sbf_open_external(fcinfo, raw, nelems, p);
		return;
	}

	if (!VARATT_IS_EXTENDED(raw))
	{
		/* in line with a 4-byte header: read in place */
		(void) sbf_view_of_prefix((const uint8 *) VARDATA(raw), VARSIZE(raw) - VARHDRSZ,
								  VARSIZE(raw) - VARHDRSZ, &p->local);
		return;
	}
	if (VARATT_IS_SHORT(raw) && !VARATT_IS_EXTERNAL(raw))
	{
		/* in line with a 1-byte header: read in place, unaligned */
		(void) sbf_view_of_prefix((const uint8 *) VARDATA_SHORT(raw),
								  VARSIZE_SHORT(raw) - VARHDRSZ_SHORT,
								  VARSIZE_SHORT(raw) - VARHDRSZ_SHORT, &p->local);
		return;
	}

	/* compressed in line, or an expanded or indirect datum: a private copy */
	p->tofree = detoast_attr(raw);
	sbf_view_of((ScalableBloom *) p->tofree, &p->local);
}

/* Releases what sbf_probe_open allocated for this call. */
void
sbf_probe_close(SbfProbe *p)
{
	if (p->sliced != NULL)
	{
		sbf_sliced_close(p->sliced);
		p->sliced = NULL;
	}
	if (p->tofree != NULL)
	{
		pfree(p->tofree);
		p->tofree = NULL;
	}
}

/* Module load: defines sbf.cache_size. */
void
_PG_init(void)
{
	DefineCustomIntVariable("sbf.cache_size",
							"Memory each session may use to keep stored scalablebloom values detoasted across queries.",
							"Values are validated against their stored form on every use; 0 turns the cache off.",
							&sbf_cache_size_kb,
							32768, 0, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, NULL, NULL);
	MarkGUCPrefixReserved("sbf");
}
