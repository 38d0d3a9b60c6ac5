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
	/* the kind of every segment (formats 1-3 have one per version) */
	const SbfKindOps *segment_ops;
} SbfVersion;

/* The table, one row a version byte from 1 on (sbf_dir.c). */
#define SBF_VERSION_ROWS	3
extern const SbfVersion sbf_version_table[SBF_VERSION_ROWS];

/* The row of a version byte, NULL if unknown (inline: every walk starts here). */
static inline const SbfVersion *
sbf_version(uint8_t version)
{
	if (version < 1 || version > SBF_VERSION_ROWS)
		return NULL;
	return &sbf_version_table[version - 1];
}

/* Whether values of two known versions may unite (plain with plain, windowed with windowed). */
extern bool sbf_versions_unite(uint8_t a, uint8_t b);

/* One directory entry as the iterator decodes it. */
typedef struct SbfDirEntry
{
	const SbfKindOps *ops;
	SbfKindGeom g;				/* kind, size (m), width (k; 0 when out of range) */
	uint64_t	capacity;		/* plain */
	uint64_t	count;
	double		error;			/* plain: the stored rate bound p */
	uint16_t	age;			/* windowed */
	uint32_t	index;			/* entry number */
	const uint8_t *entry;		/* the entry's bytes */
	size_t		data;			/* payload offset of the data area */
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
	it->ver = sbf_version(buf[0]);
	it->n = it->ver != NULL ? nsegments : 0;
	it->i = 0;
	it->off = data_offset;
}

/* Decodes entry it->i at data offset it->off into e (no check, no advance). */
static inline void
sbf_dir_decode(const SbfDirIter *it, SbfDirEntry *e)
{
	const uint8_t *p = it->buf + it->ver->header_bytes +
		(size_t) it->i * it->ver->entry_bytes;
	uint32_t	k;

	memset(&e->g, 0, sizeof(e->g));
	e->ops = it->ver->segment_ops;
	e->g.kind = e->ops->kind;
	e->index = it->i;
	e->entry = p;
	e->data = it->off;
	if (it->ver->windowed)
	{
		e->age = sbf_load16(p);
		k = p[2];
		e->count = sbf_load32(p + 4);
		e->g.size = sbf_load64(p + 8);
		e->capacity = 0;
		e->error = 0.0;
	}
	else
	{
		e->capacity = sbf_load64(p + SBF_SEG_CAPACITY);
		e->count = sbf_load64(p + SBF_SEG_COUNT);
		e->g.size = sbf_load64(p + SBF_SEG_NBITS);
		e->error = sbf_load_double(p + SBF_SEG_ERROR);
		k = sbf_load16(p + SBF_SEG_K);
		e->age = 0;
	}
	e->g.width = (uint8_t) (k <= UINT8_MAX ? k : 0);
}

/*
 * The next entry into e, and its data area skipped: false at the end.  The
 * data length of an entry whose geometry is out of range is not meaningful
 * (validators check the geometry before going on).
 */
static inline bool
sbf_dir_next(SbfDirIter *it, SbfDirEntry *e)
{
	if (it->i >= it->n)
		return false;
	sbf_dir_decode(it, e);
	it->off += (size_t) sbf_words_bytes(e->g.size);
	it->i++;
	return true;
}

/* A plain view's walk. */
static inline void
sbf_dir_view(SbfDirIter *it, const SbfView *v)
{
	sbf_dir_start(it, v->buf, v->nsegments, v->bits_offset);
}

/*
 * The one segment probe: whether the segment of entry e in payload buf
 * holds hash h (the kind 1 test inline: it is every plain lookup's loop).
 */
static inline bool
sbf_dir_has(const uint8_t *buf, const SbfDirEntry *e, uint64_t h)
{
	if (e->g.kind == SBF_KIND_BLOOM)
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

#endif							/* SBF_DIR_H */
