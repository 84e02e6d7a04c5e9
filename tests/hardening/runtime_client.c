/* Two CUDA runtimes in one process, each under a name the shim's finder does not know:
 * plugins A and B (runtime_plugin.c) are loaded locally, each with its own runtime
 * (fake_runtime.c, ids 41 and 42).  The shim wraps cudaStreamDestroy and cudaDeviceReset;
 * each plugin's calls must reach its own runtime.  The shim finds a caller's runtime by
 * opening the caller's object (RTLD_NOLOAD); this program's dlopen, which comes first in the
 * global scope, counts those opens: after each plugin's first calls, 100 more must open
 * nothing (the runtime is found once per calling place).  Then both are unloaded and
 * loaded again the other way round, so that each may come back where the other was: each
 * must still reach its own runtime.
 *   runtime_client PLUGIN_A PLUGIN_B      exit 0 iff they do */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define REPEATS 100

static atomic_int plugin_opens;

/* Counts the shim's looks into the plugins, then goes on to the next dlopen (the shim's, so
 * a RTLD_DEEPBIND load is still seen). */
__attribute__((visibility("default"))) void *dlopen(const char *file, int mode);

void *dlopen(const char *file, int mode)
{
	void *(*next)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT,
										  "dlopen");
	if ((mode & RTLD_NOLOAD) && file && strstr(file, "rtplugin"))
		atomic_fetch_add(&plugin_opens, 1);
	return next ? next(file, mode) : NULL;
}

/* Loads plugin i (0: A, 1: B) and checks its first calls; 0 when it cannot be loaded. */
static void *load(char **argv, int i, int (**calls)(int *, int *), int *bad)
{
	void *h = dlopen(argv[1 + i], RTLD_NOW | RTLD_LOCAL);
	int want = 41 + i, reset, destroy;

	*calls = h ? (int (*)(int *, int *))dlsym(h, "plugin_runtime_calls") : NULL;
	if (!*calls) {
		fprintf(stderr, "%s: %s\n", argv[1 + i], dlerror());
		return NULL;
	}
	(*calls)(&reset, &destroy);
	printf("plugin %c at %p: cudaStreamDestroy answered %d, cudaDeviceReset %d (its "
	       "runtime: %d)\n", 'A' + i, (void *)*calls, destroy, reset, want);
	*bad += destroy != want || reset != want;
	return h;
}

int main(int argc, char **argv)
{
	int (*calls[2])(int *, int *);
	void *handles[2];
	int bad = 0, opens;

	if (argc != 3)
		return 2;
	for (int i = 0; i < 2; i++)
		if (!(handles[i] = load(argv, i, &calls[i], &bad)))
			return 2;
	opens = atomic_load(&plugin_opens);
	for (int n = 0; n < REPEATS; n++)
		for (int i = 0; i < 2; i++) {
			int reset, destroy;
			calls[i](&reset, &destroy);
			bad += destroy != 41 + i || reset != 41 + i;
		}
	opens = atomic_load(&plugin_opens) - opens;
	printf("%d more calls of each plugin: every one reached its own runtime: %s; the shim "
	       "opened the plugins %d times to find it\n", REPEATS, bad ? "no" : "yes", opens);
	for (int i = 0; i < 2; i++)
		dlclose(handles[i]);
	for (int i = 1; i >= 0; i--)
		if (!(handles[i] = load(argv, i, &calls[i], &bad)))
			return 2;
	return bad || opens ? 1 : 0;
}
