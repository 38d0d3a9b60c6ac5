/*
 * unit_check.h
 *	  The harness shared by the core unit tests: CHECK(cond) fails the current
 *	  case, RUN(fn) runs one case (unless SBF_UNIT_ONLY lists others, comma-
 *	  separated) and prints "ok - fn" or "not ok - fn"; n_passed and n_failed
 *	  count the cases for the final "N passed, N failed" line.  Included once
 *	  by each test program.
 */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int	n_passed;
static int	n_failed;
static bool case_ok;

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "  %s:%d: check failed: %s\n", \
					__FILE__, __LINE__, #cond); \
			case_ok = false; \
		} \
	} while (0)

/* Runs a case, unless SBF_UNIT_ONLY names others (a comma-separated list). */
#define RUN(fn) \
	do { \
		if (!run_wanted(#fn)) \
			break; \
		case_ok = true; \
		fn(); \
		if (case_ok) \
		{ \
			n_passed++; \
			printf("ok - %s\n", #fn); \
		} \
		else \
		{ \
			n_failed++; \
			printf("not ok - %s\n", #fn); \
		} \
		fflush(stdout); \
	} while (0)

/* Whether case name is to run: all, or those listed in SBF_UNIT_ONLY. */
static bool
run_wanted(const char *name)
{
	const char *only = getenv("SBF_UNIT_ONLY");
	size_t		len = strlen(name);
	const char *p;

	if (only == NULL || *only == '\0')
		return true;
	for (p = only; (p = strstr(p, name)) != NULL; p += len)
		if ((p == only || p[-1] == ',') && (p[len] == '\0' || p[len] == ','))
			return true;
	return false;
}

/* qsort order of uint64_t, ascending (hashes). */
static inline int
unit_cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

#endif							/* UNIT_CHECK_H */
