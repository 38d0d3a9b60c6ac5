/*
 * xxh3_vectors.c
 *	  Reference vectors for the Java reader's XXH3 (clients/java): the core's
 *	  element hash (src/core/common/sbf_hash.c, Debian's libxxhash inlined) over a
 *	  pseudo-random buffer's prefixes of every length 0..2200 and a few
 *	  longer ones, one line "LEN HEX16" each; the buffer is byte i =
 *	  (i * 131 + (i >> 8) * 7 + 1) mod 256, which XxhTest rebuilds.
 */
#include <stdio.h>
#include <stdlib.h>
#include "sbf_core.h"

int
main(void)
{
	static const size_t extra[] = {4095, 4096, 4097, 10000, 65536, 100003};
	size_t		n = 100003;
	unsigned char *buf = malloc(n);
	size_t		i;

	if (buf == NULL)
		return 1;
	for (i = 0; i < n; i++)
		buf[i] = (unsigned char) ((i * 131 + (i >> 8) * 7 + 1) & 0xFF);
	for (i = 0; i <= 2200; i++)
		printf("%zu %016llx\n", i, (unsigned long long) sbf_hash(buf, i));
	for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		printf("%zu %016llx\n", extra[i], (unsigned long long) sbf_hash(buf, extra[i]));
	free(buf);
	return 0;
}
