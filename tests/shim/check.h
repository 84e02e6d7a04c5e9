/* Minimal assertions for the shim's tests: a failure prints both values and where. */
#ifndef BF16SHIM_TEST_CHECK_H
#define BF16SHIM_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

#define CHECK_EQ_INT(a, b, ...)                                                            \
	do {                                                                               \
		long long va_ = (long long)(a), vb_ = (long long)(b);                      \
		if (va_ != vb_) {                                                          \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld: ", __FILE__,\
				__LINE__, #a, #b, va_, vb_);                               \
			fprintf(stderr, __VA_ARGS__);                                      \
			fputc('\n', stderr);                                               \
			check_failures++;                                                  \
		}                                                                          \
	} while (0)

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: %s failed: ", __FILE__, __LINE__, #cond);  \
			fprintf(stderr, __VA_ARGS__);                                      \
			fputc('\n', stderr);                                               \
			check_failures++;                                                  \
		}                                                                          \
	} while (0)

#define CHECK_DONE(name)                                                                   \
	do {                                                                               \
		if (check_failures)                                                        \
			fprintf(stderr, "%s: %d failure(s)\n", name, check_failures);      \
		return check_failures ? 1 : 0;                                             \
	} while (0)

#endif
