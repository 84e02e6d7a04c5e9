/* Driver-level interception of the runtime, with preload_gpa.so in LD_PRELOAD.
 * Usage: rt_preload hooked   (the preload also interposes dlsym: it must see every lookup
 *                             the runtime makes, the self-lookup included)
 *        rt_preload plain    (it exports only cuGetProcAddress_v2: the runtime, finding the
 *                             driver through its own dlopen handle as the real libcudart
 *                             does, never calls it) */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "rt_common.h"

int main(int argc, char **argv)
{
	int hooked = argc > 1 && strcmp(argv[1], "hooked") == 0;
	int (*calls)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "preload_gpa_calls");
	int (*saw)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "preload_gpa_saw");
	unsigned char host[64] = {0};
	void *p = NULL;

	if (!calls || !saw) {
		fprintf(stderr, "preload_gpa.so is not preloaded\n");
		return 1;
	}
	RT_OK(cudaMalloc(&p, sizeof host));
	RT_OK(cudaMemcpy(p, host, sizeof host, cudaMemcpyHostToDevice));
	RT_OK(ptds_memcpy(host, p, sizeof host, cudaMemcpyDeviceToHost));
	RT_OK(cudaFree(p));

	if (hooked) {
		CHECK(calls() > 40, "lookups seen: %d", calls());
		CHECK(saw("cuGetProcAddress"), "self-lookup not seen");
		CHECK(saw("cuInit"), "cuInit lookup not seen");
		CHECK(saw("cuMemAlloc"), "cuMemAlloc lookup not seen");
		CHECK(saw("cuMemcpyDtoH"), "cuMemcpyDtoH lookup not seen");
	} else {
		CHECK_INT("lookups seen without a dlsym hook", calls(), 0);
	}
	return check_report(hooked ? "rt_preload hooked" : "rt_preload plain");
}
