/*
 * kit_hashes.c
 *	  Prints test/kit/hashes.txt: the element hash of hash id 1 (the core's
 *	  sbf_hash and sbf_hash_int64, src/core/common/sbf_hash.c) for text, bytea and
 *	  bigint elements that cover every length class of XXH3_64bits (0, 1-3,
 *	  4-8, 9-16, 17-128, 129-240, 241 and more, around the 64-byte stripe
 *	  and the 1024-byte block) and the bigint extremes.  The elements are made
 *	  by fixed rules, so the file depends only on the hash.
 *	  test/kit/generate.sh checks every line against the server's own hash
 *	  (the exact form stores it) and against the committed file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sbf_core.h"

static const size_t lengths[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 16, 17, 20, 31, 32, 33, 47,
	48, 63, 64, 65, 96, 112, 127, 128, 129, 130, 150, 192, 200, 239, 240,
	241, 242, 255, 256, 257, 300, 383, 384, 385, 511, 512, 513, 640, 1023,
	1024, 1025, 1500, 2047, 2048, 2049, 4095, 4096, 4097, 8192, 10000
};

/* text elements of more than ASCII (valid UTF-8) */
static const char *const utf8[] = {
	"\xc3\xbc",					/* u with diaeresis */
	"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",	/* three CJK characters */
	"\xf0\x9f\x8e\x89",			/* an emoji: 4 bytes */
	"sku:123",
	"caf\xc3\xa9 \xf0\x9f\x8e\x89 100%, \"quoted\" and \\ backslash",
};

static const int64_t bigints[] = {
	0, 1, -1, 2, -2, 42, -42, 127, 128, 255, 256, 65535, 65536,
	INT64_C(2147483647), INT64_C(2147483648), INT64_C(-2147483648),
	INT64_C(4294967296), INT64_C(9007199254740993), INT64_C(1000000000001),
	INT64_C(-1000000), INT64_MAX, INT64_MIN, INT64_MIN + 1
};

static unsigned char buf[10000];

static void
print_hex(const unsigned char *p, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void
line(const char *type, const unsigned char *p, size_t n)
{
	printf("hash %s ", type);
	if (n == 0)
		printf("-");
	print_hex(p, n);
	printf(" %016" PRIx64 "\n", sbf_hash(p, n));
}

int
main(void)
{
	size_t		i,
				j;

	printf("# hashes.txt: the element hash of sbf (hash id 1: XXH3_64bits, seed 0, over the\n"
		   "# element's canonical bytes), written by test/kit/kit_hashes.c and checked\n"
		   "# against the server by test/kit/generate.sh.  Records: hash TYPE ELEM U64\n"
		   "# (ELEM: text and bytea as hex of their bytes, '-' for the empty one;\n"
		   "# bigint in decimal, hashed as its 8 little-endian bytes).\n");
	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
	{
		size_t		n = lengths[i];

		/* text: printable ASCII */
		for (j = 0; j < n; j++)
			buf[j] = (unsigned char) ('a' + (j * 7 + n) % 26);
		line("text", buf, n);
		/* bytea: every byte value, zero and 0xff among them */
		for (j = 0; j < n; j++)
			buf[j] = (unsigned char) ((j * 131 + n * 17 + 5) & 0xff);
		line("bytea", buf, n);
	}
	for (i = 0; i < sizeof(utf8) / sizeof(utf8[0]); i++)
		line("text", (const unsigned char *) utf8[i], strlen(utf8[i]));
	for (i = 0; i < sizeof(bigints) / sizeof(bigints[0]); i++)
		printf("hash bigint %" PRId64 " %016" PRIx64 "\n", bigints[i],
			   sbf_hash_int64(bigints[i]));
	return 0;
}
