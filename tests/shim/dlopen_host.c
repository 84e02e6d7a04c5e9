/* A host that loads a CUDA-using module the way Python loads extensions: dlopen with
 * RTLD_LOCAL.  Exit status: the module's result (0 = the bf16 GEMM succeeded and was right;
 * otherwise the cuBLAS status). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *mod;
	int (*gemm)(void);
	int r;

	if (argc != 2)
		return 2;
	mod = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!mod) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	*(void **)&gemm = dlsym(mod, "ext_bf16_gemm");
	r = gemm ? gemm() : 2;
	printf("module bf16 GEMM: %d\n", r);
	return r;
}
