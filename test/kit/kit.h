/*
 * kit.h
 *	  The test kit's C reader (test/kit/README.md): splitting records and
 *	  decoding their fields (kit_read.c), shared by kit_core.c.
 */
#ifndef SBF_KIT_H
#define SBF_KIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KIT_MAX_FIELDS	8

/*
 * Splits line (its newline removed) at single spaces into at most max
 * fields; the last field keeps the rest of the line (info's JSON).  Returns
 * the number of fields.
 */
extern int	kit_split(char *line, char **field, int max);

/* Decodes hex ('-': empty) into a new malloc'd buffer with prefix zero bytes in front. */
extern bool kit_hex(const char *s, size_t prefix, uint8_t **out, size_t *len);

/* The element hash of a field of type text, bytea (hex) or bigint (decimal). */
extern bool kit_elem_hash(const char *type, const char *field, uint64_t *h);

/* A decimal int64 field ('-' is not one). */
extern bool kit_int64(const char *s, int64_t *v);

/*
 * Splits a comma-separated list in place ('-': no items; empty items are
 * kept) into a new malloc'd array of *n items.
 */
extern char **kit_list(char *s, size_t *n);

#endif							/* SBF_KIT_H */
