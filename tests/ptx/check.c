/* check.c: see check.h. */
#include <stdarg.h>

#include "check.h"

int test_failures;

void test_fail(const char *file, int line, const char *fmt, ...)
{
	if (test_failures++ >= 20)
		return;
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL %s:%d: ", file, line);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}
