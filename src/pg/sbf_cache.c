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
 * The memo (2.) skips the check for the rest of one command under one
 * snapshot with no relcache invalidation processed in between (same local
 * transaction, command id, snapshot xmin and xmax, sbf_inval_epoch).  The
 * pointers a command reads come from tuples that a snapshot of this backend
 * saw, and the command's own snapshot holds back VACUUM and pruning from
 * every chunk any later snapshot of it saw, so within the command only this
 * backend's own transaction can remove them (a function called per row that
 * truncates and refills a table): by a command that sends an invalidation
 * (see sbf_cache_session.c), or by aborting a subtransaction that wrote them,
 * after which no tag of the transaction matches another.  Every relcache invalidation, whatever its relation, ends every
 * tag: the memo is then read again, once; a running query rarely processes
 * one, since a backend accepts invalidations only when it takes a new lock.
 * A PL/pgSQL simple expression keeps its fn_extra for the whole transaction,
 * and a DO block or procedure that commits keeps it even longer, so the memo
 * never relies on fn_extra's lifetime: a new command or snapshot validates
 * again, and private copies are dropped.
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
 * entered.  What they rely on is checked when a value's lookup plan is built
 * (sbf_plan_build, src/core/plan/sbf_plan.h), once per value per call site or per
 * session cache entry: the header and directory must be in range and
 * describe exactly the value's length, so every probe lies inside the value.
 * The plan of a value read in place is kept in the memo keyed by the value's
 * length and header and directory bytes (and any data area the plan decoded:
 * a plan depends on nothing else), so
 * the rows of a query that pass the same filter plan it once.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "utils/memutils.h"

#include "sbf.h"
#include "sbf_cache_int.h"
#include "sbf_errors.h"
#include "sbf_plan.h"
#include "sbf_probe.h"

/* Values a call site keeps, and the bytes of private copies beyond the newest. */
#define SBF_SITE_ENTRIES		4
#define SBF_SITE_BYTES			((Size) 64 * 1024 * 1024)

/* Recently sliced values remembered per call site (a second read keeps it). */
#define SBF_SITE_SEEN			4

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
	SbfPlan    *plan;			/* the lookup plan of copy, in mcxt */
} SbfSiteSlot;

/* What a call site keeps in fn_extra. */
typedef struct SbfSiteCache
{
	uint64		clock;
	SbfSiteSlot slots[SBF_SITE_ENTRIES];
	/* values read by slices, most recent at seen_next - 1 */
	SbfValueKey seen[SBF_SITE_SEEN];
	int			seen_next;
	/* the plan of the last value read in place (or copied per call) */
	SbfPlan    *inl;
} SbfSiteCache;

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
	s->plan = NULL;
	s->bytes = 0;
	if (s->mcxt != NULL)
		MemoryContextReset(s->mcxt);
}

/*
 * The plan a slot of the memo holds for key in this command, or NULL.  Slots
 * of earlier commands or snapshots, and slots whose session entry is gone,
 * are emptied.
 */
static const SbfPlan *
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
				sbf_session_touch(s->entry);
				return s->entry->plan;
			}
			return s->plan;
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
static const SbfPlan *
sbf_site_keep_entry(SbfSiteCache *c, const SbfValueKey *key,
					const SbfUseTag *tag, SbfSessionEntry *e)
{
	SbfSiteSlot *slot = sbf_site_slot(c, 0);

	slot->key = *key;
	slot->tag = *tag;
	slot->lastuse = ++c->clock;
	slot->entry = e;
	slot->entry_gen = e->gen;
	return e->plan;
}

/* Detoasts raw into a memo slot as a private copy for this command. */
static const SbfPlan *
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
	slot->plan = sbf_plan_of(SBF_PAYLOAD_PTR(slot->copy), SBF_PAYLOAD_LEN(slot->copy),
							 slot->mcxt);
	slot->key = *key;
	slot->tag = *tag;
	slot->entry = NULL;
	slot->bytes = VARSIZE(slot->copy);
	slot->lastuse = ++c->clock;
	return slot->plan;
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
 * The plan of an out-of-line value for this call: the memo, the session
 * cache, a read by slices (p->sliced set, NULL returned), or a fresh detoast
 * kept in the session cache (on the session's second read of the value) or
 * in the memo.
 */
static const SbfPlan *
sbf_open_external(FunctionCallInfo fcinfo, struct varlena *raw, uint32 nelems,
				  SbfProbe *p)
{
	SbfSiteCache *c = sbf_site_cache(fcinfo);
	struct varatt_external ext;
	SbfValueKey key;
	SbfUseTag	tag;
	const SbfPlan *v;
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
 * The plan of a value read in place (or copied for this call): the memo's if
 * it is the plan of the same length and header and directory bytes (then it
 * is this value's plan, bound to buf here), else a new one that replaces it.
 * A plan depends on those bytes only, so no tag is needed.
 */
static const SbfPlan *
sbf_inline_plan(FunctionCallInfo fcinfo, const uint8 *buf, size_t len)
{
	SbfSiteCache *c = sbf_site_cache(fcinfo);

	if (c->inl != NULL && sbf_plan_matches(c->inl, buf, len))
	{
		sbf_plan_bind(c->inl, buf);
		return c->inl;
	}
	if (c->inl != NULL)
		pfree(c->inl);
	c->inl = NULL;
	c->inl = sbf_plan_of(buf, len, fcinfo->flinfo->fn_mcxt);
	return c->inl;
}

/*
 * Opens filter argument argno of the current call for nelems lookups; see
 * the file comment for the ways.
 */
void
sbf_probe_open(FunctionCallInfo fcinfo, int argno, uint32 nelems, SbfProbe *p)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));

	p->plan = NULL;
	p->sliced = NULL;
	p->tofree = NULL;

	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		p->plan = sbf_open_external(fcinfo, raw, nelems, p);
		return;
	}

	if (!VARATT_IS_EXTENDED(raw))
	{
		/* in line with a 4-byte header: read in place */
		p->plan = sbf_inline_plan(fcinfo, (const uint8 *) VARDATA(raw),
								  VARSIZE(raw) - VARHDRSZ);
		return;
	}
	if (VARATT_IS_SHORT(raw) && !VARATT_IS_EXTERNAL(raw))
	{
		/* in line with a 1-byte header: read in place, unaligned */
		p->plan = sbf_inline_plan(fcinfo, (const uint8 *) VARDATA_SHORT(raw),
								  VARSIZE_SHORT(raw) - VARHDRSZ_SHORT);
		return;
	}

	/* compressed in line, or an expanded or indirect datum: a private copy */
	p->tofree = detoast_attr(raw);
	p->plan = sbf_inline_plan(fcinfo, SBF_PAYLOAD_PTR((ScalableBloom *) p->tofree),
							  SBF_PAYLOAD_LEN((ScalableBloom *) p->tofree));
}

/* sbf_debug_plan_builds(): lookup plans this backend has built (a diagnostic). */
PG_FUNCTION_INFO_V1(sbf_debug_plan_builds);
Datum
sbf_debug_plan_builds(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) sbf_plan_builds());
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
