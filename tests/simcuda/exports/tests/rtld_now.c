/* Loads a shared object with RTLD_NOW, as Python loads libtorch_cuda.so: the load fails if a
 * single function the object calls is missing from the libraries it needs.
 * Usage: rtld_now OBJECT    (an object built from gen_refs.py's output) */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *obj;
	int (*count)(void);

	if (argc != 2) {
		fprintf(stderr, "usage: rtld_now OBJECT\n");
		return 2;
	}
	obj = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!obj) {
		fprintf(stderr, "dlopen with RTLD_NOW: %s\n", dlerror());
		return 1;
	}
	count = (int (*)(void))dlsym(obj, "refs_count");
	if (!count) {
		fprintf(stderr, "%s: no refs_count\n", argv[1]);
		return 1;
	}
	printf("%s: all %d functions resolved\n", argv[1], count());
	return 0;
}
