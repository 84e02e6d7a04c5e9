/* Checks for the driver and runtime tests: each failing check prints what it expected and
 * what it got, and counts; main() returns check_report(). */
#ifndef SIMCUDA_RT_CHECK_H
#define SIMCUDA_RT_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

#define CHECK(cond, ...)                                                                \
	do {                                                                            \
		if (!(cond)) {                                                          \
			fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                   \
			fputc('\n', stderr);                                            \
			check_failures++;                                               \
		}                                                                       \
	} while (0)
#define CHECK_INT(what, got, want)                                                      \
	CHECK((long long)(got) == (long long)(want), "%s: got %lld, want %lld", what,   \
	      (long long)(got), (long long)(want))
#define CHECK_PTR(what, got, want)                                                      \
	CHECK((const void *)(got) == (const void *)(want), "%s: got %p, want %p", what, \
	      (const void *)(got), (const void *)(want))
#define CHECK_STR(what, got, want) check_str(__FILE__, __LINE__, what, got, want)

static inline void check_str(const char *file, int line, const char *what, const char *got,
			     const char *want)
{
	if (got && strcmp(got, want) == 0)
		return;
	fprintf(stderr, "%s:%d: FAILED %s: got \"%s\", want \"%s\"\n", file, line, what,
		got ? got : "(null)", want);
	check_failures++;
}

static inline int check_report(const char *name)
{
	if (check_failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
	return check_failures != 0;
}

/* The whole of a text file (the call log), NUL-terminated; NULL if unreadable. */
static inline char *check_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n + 1 : 1);
	if (buf) {
		n = n > 0 ? (long)fread(buf, 1, (size_t)n, f) : 0;
		buf[n] = '\0';
	}
	fclose(f);
	return buf;
}

#endif
