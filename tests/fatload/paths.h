/* What loadpaths.c and textpaths.c share: the image's load is judged against what the run
 * expects (argv[3]), each failed check printed with its line and counted. */
#ifndef FATLOAD_PATHS_H
#define FATLOAD_PATHS_H

#include <cuda.h>
#include <stdio.h>

typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t,
			   CUdriverProcAddressQueryResult *);
typedef CUresult (*load_fn)(CUmodule *, const void *);

static const char *expect;
static int failures;

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		if (!(cond)) {                                                             \
			printf("FAIL line %d: %s: ", __LINE__, #cond);                     \
			printf(__VA_ARGS__);                                               \
			printf("\n");                                                      \
			failures++;                                                        \
		}                                                                          \
	} while (0)

static inline const char *name_of(CUresult r)
{
	const char *s = NULL;
	cuGetErrorName(r, &s);
	return s ? s : "?";
}

#endif
