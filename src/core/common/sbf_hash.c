/*
 * sbf_hash.c
 *	  The element hash of hash id 1 (XXH3_64bits, seed 0, inlined from
 *	  Debian's libxxhash-dev) and the Bloom position sequence derived from it.
 *	  Both are part of the on-disk format and must never change.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "sbf_internal.h"

/* XXH3_64bits with seed 0 over the element's canonical bytes. */
uint64_t
sbf_hash(const void *data, size_t len)
{
	return (uint64_t) XXH3_64bits(data, len);
}

/* Hash of a bigint: its 8 bytes in little-endian order on every host. */
uint64_t
sbf_hash_int64(int64_t v)
{
	uint8_t		bytes[8];

	sbf_store64(bytes, (uint64_t) v);
	return sbf_hash(bytes, sizeof(bytes));
}

/* Fills pos[0..k-1] with the Bloom positions of h in a segment of m bits. */
void
sbf_positions(uint64_t h, uint64_t m, uint32_t k, uint64_t *pos)
{
	SbfPosIter	it;
	uint32_t	i;

	sbf_pos_start(&it, h, sbf_mix64(h) | 1, m);
	for (i = 0; i < k; i++)
		pos[i] = sbf_pos_next(&it);
}
