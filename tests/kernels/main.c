/* Runs one kernel test by name (meson gives each its own process), or all of them. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "tests.h"

static const struct {
	const char *name;
	int (*fn)(void);
} tests[] = {
#define ENTRY(name) { #name, test_##name },
	KERNEL_TESTS(ENTRY)
#undef ENTRY
};

int main(int argc, char **argv)
{
	int ran = 0, failed = 0;
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		if (argc > 1 && strcmp(argv[1], tests[i].name))
			continue;
		fails = 0;
		rnd_seed(0x5eed + (uint32_t)i);
		int r = tests[i].fn();
		buf_free_all();
		printf("%s %s\n", r ? "FAIL" : "ok", tests[i].name);
		failed += r != 0;
		ran++;
	}
	if (!ran) {
		printf("no test named %s\n", argv[1]);
		return 2;
	}
	return failed ? 1 : 0;
}
