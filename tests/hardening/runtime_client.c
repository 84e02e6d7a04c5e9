/* Two CUDA runtimes in one process, each under a name the shim's finder does not know:
 * plugins A and B (runtime_plugin.c) are loaded locally, each with its own runtime
 * (fake_runtime.c, ids 41 and 42).  The shim wraps cudaStreamDestroy and cudaDeviceReset;
 * each plugin's calls must reach its own runtime.
 *   runtime_client PLUGIN_A PLUGIN_B      exit 0 iff they do */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int bad = 0;

	if (argc != 3)
		return 2;
	for (int i = 0; i < 2; i++) {
		void *h = dlopen(argv[1 + i], RTLD_NOW | RTLD_LOCAL);
		int (*calls)(int *, int *) =
			h ? (int (*)(int *, int *))dlsym(h, "plugin_runtime_calls") : NULL;
		int want = 41 + i, reset, destroy;
		if (!calls) {
			fprintf(stderr, "%s: %s\n", argv[1 + i], dlerror());
			return 2;
		}
		calls(&reset, &destroy);
		printf("plugin %c: cudaStreamDestroy answered %d, cudaDeviceReset %d (its runtime: "
		       "%d)\n", 'A' + i, destroy, reset, want);
		bad += destroy != want || reset != want;
	}
	return bad ? 1 : 0;
}
