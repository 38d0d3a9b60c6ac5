/*
 * kit_read.c
 *	  Fields of the test kit's records (test/kit/README.md): splitting,
 *	  hex, decimal, lists and element hashes over the core's sbf_hash.
 */
#include "kit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbf_core.h"

int
kit_split(char *line, char **field, int max)
{
	int			n = 0;
	char	   *p = line;

	while (n < max)
	{
		char	   *sp;

		field[n++] = p;
		if (n == max || (sp = strchr(p, ' ')) == NULL)
			break;
		*sp = '\0';
		p = sp + 1;
	}
	return n;
}

static int
nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

bool
kit_hex(const char *s, size_t prefix, uint8_t **out, size_t *len)
{
	size_t		n = strcmp(s, "-") == 0 ? 0 : strlen(s);
	size_t		i;
	uint8_t    *b;

	if (n % 2 != 0)
		return false;
	b = calloc(1, prefix + n / 2 + 1);
	if (b == NULL)
		return false;
	for (i = 0; i < n / 2; i++)
	{
		int			hi = nibble(s[2 * i]),
					lo = nibble(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
		{
			free(b);
			return false;
		}
		b[prefix + i] = (uint8_t) (hi << 4 | lo);
	}
	*out = b;
	*len = n / 2;
	return true;
}

bool
kit_int64(const char *s, int64_t *v)
{
	char	   *end;
	long long	x;

	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0')
		return false;
	*v = (int64_t) x;
	return true;
}

bool
kit_elem_hash(const char *type, const char *field, uint64_t *h)
{
	if (strcmp(type, "bigint") == 0)
	{
		int64_t		v;

		if (!kit_int64(field, &v))
			return false;
		*h = sbf_hash_int64(v);
		return true;
	}
	if (strcmp(type, "text") == 0 || strcmp(type, "bytea") == 0)
	{
		uint8_t    *b;
		size_t		n;

		if (!kit_hex(field, 0, &b, &n))
			return false;
		*h = sbf_hash(b, n);
		free(b);
		return true;
	}
	return false;
}

char **
kit_list(char *s, size_t *n)
{
	size_t		cap = 1,
				i = 0;
	char	  **items;
	char	   *p;

	*n = 0;
	if (strcmp(s, "-") == 0)
		return calloc(1, sizeof(char *));
	for (p = s; *p; p++)
		if (*p == ',')
			cap++;
	items = calloc(cap, sizeof(char *));
	if (items == NULL)
		return NULL;
	p = s;
	for (;;)
	{
		char	   *c = strchr(p, ',');

		items[i++] = p;
		if (c == NULL)
			break;
		*c = '\0';
		p = c + 1;
	}
	*n = i;
	return items;
}
