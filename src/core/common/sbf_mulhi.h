/*
 * sbf_mulhi.h
 *	  The 64x64 -> high 64 multiply that maps a hash onto a range without
 *	  division (a line of a blocked segment, a fused slot, a windowed bloom
 *	  position): one small helper shared by the kinds and the window code.
 *	  Pure C, no PostgreSQL headers.
 */
#ifndef SBF_MULHI_H
#define SBF_MULHI_H

#include <stdint.h>

/* High 64 bits of a * b: the same on every host. */
static inline uint64_t
sbf_win_mulhi(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__) && !defined(SBF_PORTABLE_LOADS)
	return (uint64_t) (((unsigned __int128) a * b) >> 64);
#else
	uint64_t	al = a & 0xFFFFFFFFu,
				ah = a >> 32,
				bl = b & 0xFFFFFFFFu,
				bh = b >> 32;
	uint64_t	ll = al * bl,
				lh = al * bh,
				hl = ah * bl,
				hh = ah * bh;
	uint64_t	mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);

	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

#endif							/* SBF_MULHI_H */
