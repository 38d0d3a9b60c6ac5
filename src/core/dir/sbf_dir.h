/*
 * sbf_dir.h
 *	  What every reader of a stored directory shares, whatever the format
 *	  version: the version table (what each version byte allows), the one
 *	  directory iterator and the one segment probe.  A walk over segments
 *	  asks the iterator for each entry's kind row (sbf_kind.h), geometry,
 *	  fields and data offset instead of decoding entries itself, so a new
 *	  segment kind or a new directory layout is one place.  Formats:
 *	  docs/format.md (1-3) and docs/format4.md (4).
 */
#ifndef SBF_DIR_H
#define SBF_DIR_H

#include "sbf_internal.h"
#include "sbf_kind.h"

/* One row of the version table. */
typedef struct SbfVersion
{
	uint8_t		version;
	uint8_t		flags;			/* flag bits a value of this version may set */
	bool		windowed;		/* the windowed form; else plain */
	bool		exact;			/* may be in the exact form (flag EXACT) */
	bool		directory_counts;	/* its directory counts answer # (COUNTS) */
	bool		written;		/* this release writes it */
	size_t		header_bytes;	/* the directory starts here */
	size_t		entry_bytes;	/* one directory entry */
	/*
	 * the kind of every segment (formats 1-3 have one per version); NULL
	 * when each entry names its kind in a descriptor (format 4)
	 */
	const SbfKindOps *segment_ops;
	/*
	 * format 4: the descriptor's offset in an entry, and which directory it
	 * is: a kind is allowed when its row's dirs has this bit
	 * (docs/format4.md, sections 2 and 8)
	 */
	size_t		desc_offset;
	uint8_t		dir;			/* SBF_KIND_IN_PLAIN4, _PLAIN5 or _WINDOW4 */
	/*
	 * the directory of the version before it (0: none): a value of this
	 * version holds at least one kind that directory does not admit, so
	 * that a set of segments has one version, the least that admits it
	 * (sbf_write_version)
	 */
	uint8_t		dir_before;
} SbfVersion;

/*
 * The table (sbf_dir.c): rows 0-2 are versions 1-3, row 3 version 4 plain
 * (flag bit 7 clear), row 4 version 4 windowed (flag bit 7 set), row 5
 * version 5 plain.
 */
#define SBF_VERSION_ROWS	6
extern const SbfVersion sbf_version_table[SBF_VERSION_ROWS];

/*
 * The row of a version byte and a flag byte (byte 1 in both forms), NULL if
 * unknown (inline: every walk starts here).  Version 4 is two rows: the
 * windowed form sets flag bit 7 (SBF_FLAG_WINDOWED).  Version 5 is plain
 * (its row's flags leave bit 7 out, so a value setting it is refused).
 */
static inline const SbfVersion *
sbf_version_row(uint8_t version, uint8_t flags)
{
	if (version >= 1 && version <= 3)
		return &sbf_version_table[version - 1];
	if (version == SBF_FORMAT_V4)
		return &sbf_version_table[(flags & SBF_FLAG_WINDOWED) ? 4 : 3];
	if (version == SBF_FORMAT_V5)
		return &sbf_version_table[5];
	return NULL;
}

/* Whether a plain version byte has version 4's layout (4 and 5). */
static inline bool
sbf_version_v4_layout(uint8_t version)
{
	return version == SBF_FORMAT_V4 || version == SBF_FORMAT_V5;
}

/* The row of a payload (at least 2 bytes): its version and flag bytes. */
static inline const SbfVersion *
sbf_version_of(const uint8_t *buf)
{
	return sbf_version_row(buf[0], buf[1]);
}

/*
 * The row of a plain value's version byte (SbfView.version: a view is plain
 * unless it is version 3), NULL if unknown.  A windowed version-4 payload
 * needs sbf_version_of.
 */
static inline const SbfVersion *
sbf_version(uint8_t version)
{
	return sbf_version_row(version, 0);
}

/* Whether values of two known versions may unite (plain with plain, windowed with windowed). */
extern bool sbf_versions_unite(uint8_t a, uint8_t b);
/* The same for two payloads (tells plain from windowed version 4). */
extern bool sbf_payloads_unite(const uint8_t *a, const uint8_t *b);

/* One directory entry as the iterator decodes it. */
typedef struct SbfDirEntry
{
	/* the kind's row; NULL when the descriptor is not valid (st) */
	const SbfKindOps *ops;
	/*
	 * format 4: SBF_OK, or SBF_E_SEGMENT when the descriptor is malformed,
	 * its kind unknown or not allowed in this form, or its data too large;
	 * formats 1-3: always SBF_OK (their validators check the fields)
	 */
	SbfStatus	st;
	SbfKindGeom g;				/* kind, size (m), width (k; 0 when out of range) */
	uint64_t	capacity;		/* plain */
	uint64_t	count;
	double		error;			/* plain: the stored rate bound p */
	uint16_t	age;			/* windowed */
	uint32_t	index;			/* entry number */
	const uint8_t *entry;		/* the entry's bytes */
	size_t		data;			/* payload offset of the data area */
	size_t		pad;			/* zero bytes before it (format 4 line alignment) */
	uint64_t	bytes;			/* its length (0 when st is not SBF_OK) */
} SbfDirEntry;

typedef struct SbfDirIter
{
	const uint8_t *buf;
	const SbfVersion *ver;
	uint32_t	n;
	uint32_t	i;
	size_t		off;			/* the next data area */
} SbfDirIter;

/*
 * Starts a walk over the nsegments entries of the payload buf (its version
 * byte names the layout), whose first data area is at data_offset.
 */
static inline void
sbf_dir_start(SbfDirIter *it, const uint8_t *buf, uint32_t nsegments,
			  size_t data_offset)
{
	it->buf = buf;
	it->ver = sbf_version_of(buf);
	it->n = it->ver != NULL ? nsegments : 0;
	it->i = 0;
	it->off = data_offset;
}

/* Decodes a format-4 entry's descriptor into e (kind row, geometry, length). */
static inline void
sbf_dir_decode_kind(const SbfVersion *ver, const uint8_t *p, SbfDirEntry *e)
{
	e->st = sbf_kind_decode(p + ver->desc_offset, &e->g);
	e->ops = NULL;
	e->bytes = 0;
	if (e->st == SBF_OK)
	{
		e->ops = sbf_kind_ops(e->g.kind);
		if ((e->ops->dirs & ver->dir) == 0)
			e->st = SBF_E_SEGMENT;
		else if (!e->ops->bytes(&e->g, &e->bytes))
		{
			e->st = SBF_E_SEGMENT;
			e->bytes = 0;
		}
	}
	if (e->st != SBF_OK)
		e->ops = NULL;
}

/*
 * Decodes entry it->i whose data area would follow offset it->off into e
 * (no check, no advance; format 4 places the area after its padding).
 */
static inline void
sbf_dir_decode(const SbfDirIter *it, SbfDirEntry *e)
{
	const SbfVersion *ver = it->ver;
	const uint8_t *p = it->buf + ver->header_bytes +
		(size_t) it->i * ver->entry_bytes;
	uint32_t	k = 0;

	memset(&e->g, 0, sizeof(e->g));
	e->st = SBF_OK;
	e->index = it->i;
	e->entry = p;
	e->pad = 0;
	if (ver->windowed)
	{
		e->age = sbf_load16(p);
		e->count = sbf_load32(p + 4);
		e->capacity = 0;
		e->error = 0.0;
		if (ver->segment_ops != NULL)
		{
			k = p[2];
			e->g.size = sbf_load64(p + 8);
		}
	}
	else
	{
		e->capacity = sbf_load64(p + SBF_SEG_CAPACITY);
		e->count = sbf_load64(p + SBF_SEG_COUNT);
		e->age = 0;
		if (ver->segment_ops != NULL)
		{
			e->g.size = sbf_load64(p + SBF_SEG_NBITS);
			e->error = sbf_load_double(p + SBF_SEG_ERROR);
			k = sbf_load16(p + SBF_SEG_K);
		}
		else
			e->error = sbf_load_double(p + SBF_SEG4_ERROR);
	}
	if (ver->segment_ops != NULL)
	{
		/* formats 1-3: one kind per version, fields checked by the validators */
		e->ops = ver->segment_ops;
		e->g.kind = e->ops->kind;
		e->g.width = (uint8_t) (k <= UINT8_MAX ? k : 0);
		e->bytes = sbf_words_bytes(e->g.size);
		e->data = it->off;
		return;
	}
	sbf_dir_decode_kind(ver, p, e);
	e->data = e->st == SBF_OK ? sbf_kind_area_start(&e->g, it->off, &e->pad) : it->off;
}

/*
 * The next entry into e, and its data area skipped: false at the end.  The
 * data length of an entry whose geometry is out of range is not meaningful
 * (validators check the geometry, and e->st, before going on).
 */
static inline bool
sbf_dir_next(SbfDirIter *it, SbfDirEntry *e)
{
	if (it->i >= it->n)
		return false;
	sbf_dir_decode(it, e);
	it->off = e->data + (size_t) e->bytes;
	it->i++;
	return true;
}

/* A plain view's walk. */
static inline void
sbf_dir_view(SbfDirIter *it, const SbfView *v)
{
	sbf_dir_start(it, v->buf, v->nsegments, v->bits_offset);
}

/* A plain view's walk as a value (SBF_DIR_FOREACH). */
static inline SbfDirIter
sbf_dir_begin(const SbfView *v)
{
	SbfDirIter	it;

	sbf_dir_view(&it, v);
	return it;
}

/* Runs the statement after it for each entry e of the plain view v. */
#define SBF_DIR_FOREACH(e, v) \
	for (SbfDirIter e##_iter = sbf_dir_begin(v); sbf_dir_next(&e##_iter, &(e));)

/*
 * The one segment probe: whether the segment of entry e in payload buf
 * holds hash h (the kind 1 test inline: it is every plain lookup's loop).
 */
static inline bool
sbf_dir_has(const uint8_t *buf, const SbfDirEntry *e, uint64_t h)
{
	if (sbf_kind_is_flat(&e->g))
		return sbf_bloom_has(buf + e->data, e->g.size, e->g.width, h);
	return e->ops->contains(&e->g, buf + e->data, h);
}

/* An entry as the SbfSegment of sbf_core.h. */
static inline void
sbf_dir_segment(const SbfDirEntry *e, SbfSegment *seg)
{
	seg->capacity = e->capacity;
	seg->count = e->count;
	seg->nbits = e->g.size;
	seg->error = e->error;
	seg->k = e->g.width;
	seg->kind = e->g.kind;
	seg->words_offset = e->data;
}

/* ---- adds to format 4 (sbf_grow.c; sbf_write_entry in sbf_write.c) ---- */

/*
 * Appended segments are blocked while their rate share is at least this,
 * bloom (kind 1) below (docs/format4.md, sections 4 and 6): measured with
 * test/bench/growth_bench.sh, 1000x growth at 1% costs 16.14 bits an
 * element with 1e-3, 16.34 with 5e-4 (7 of 10 segments blocked), 17.03
 * with 4e-4, against 16.13 for 1.2 and the release's bound of 16.5; 5e-4
 * breaks the study's guard of 2.1x the optimum at 100x growth
 * (expected/sbf_sizing.out), so 1e-3.
 */
#define SBF_GROW_BLOOM_BELOW	1e-3

/*
 * A first segment (sbf_filter.c, first_segment_plan) is bloom while its data
 * is at most this many bytes, one 4 kB page: a filter grown by adds from the
 * defaults then takes 1.0's bytes (2,264 at 1,000 elements, against 2,448
 * with a blocked first segment; unit test_format4, regress sbf_lifecycle),
 * and its lookups read data already in the caches.
 */
#define SBF_FIRST_BLOOM_MAX_BYTES	4096

extern SbfStatus sbf_grow_plan_rule(uint64_t capacity, double error,
									double bloom_below, SbfKindGeom *g,
									uint64_t *bytes);
extern SbfStatus sbf_grow_plan(uint64_t capacity, double error, SbfKindGeom *g,
							   uint64_t *bytes);
extern SbfStatus sbf_plan_next(const SbfView *v, uint64_t *capacity, double *error);
extern void sbf_write_entry(uint8_t *buf, uint32_t i, uint64_t capacity,
							uint64_t count, double error, const SbfKindGeom *g);
extern void sbf_write_version(uint8_t *buf);
/*
 * What sbf_build_sorted plans for n hashes at share, known without them:
 * the segment's geometry (*g, *bytes of data) and the error bound its
 * directory entry stores (*error: share, or the complete kind's exact rate
 * below it); the first segment of the chain a compact value grown in
 * place is measured against (sbf_compact_chain.c).  The plan's failures.
 */
extern SbfStatus sbf_build_first(uint64_t n, double share, SbfKindGeom *g,
								 uint64_t *bytes, double *error);

extern void sbf_build_write_head(uint8_t *buf, const SbfParams *p, uint8_t flags,
								 bool dense, size_t hll_bytes, const SbfKindGeom *g,
								 uint64_t n, double error);
extern SbfStatus sbf_append4(SbfFilter *f, uint64_t capacity, double error,
							 const SbfKindGeom *g, uint64_t bytes, size_t extra);
extern void sbf_last_entry(const SbfView *v, SbfDirEntry *last);
extern SbfStatus sbf_grow_add(SbfFilter *f, uint64_t h, size_t extra);

#endif							/* SBF_DIR_H */
