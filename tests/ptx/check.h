/* check.h: failure reports of the lowering pass's test programs (at most 20 lines per
 * test, every failure counted; CHECK_EQ prints both values). */
#ifndef PTX_CHECK_H
#define PTX_CHECK_H

#include <stdio.h>

extern int test_failures;

void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define FAIL(...) test_fail(__FILE__, __LINE__, __VA_ARGS__)
#define CHECK(cond, ...) do { if (!(cond)) FAIL(__VA_ARGS__); } while (0)
#define CHECK_EQ(got, want, ...) do { \
	unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
	if (g_ != w_) { FAIL(__VA_ARGS__); printf("    got 0x%llx, want 0x%llx\n", g_, w_); } \
} while (0)

#endif
