/* A tiny LD_PRELOAD library that intercepts the driver the way a hook must (doc/facts.md):
 * it exports cuGetProcAddress_v2 wrapping the real one, hands itself out for the runtime's
 * self-lookup, and counts the lookups it sees.
 *
 * libcudart finds cuGetProcAddress_v2 with dlsym on its own RTLD_LOCAL handle of
 * libcuda.so.1, which never searches preloaded objects.  Built with HOOK_DLSYM=1 the library
 * also interposes dlsym to hand out its wrapper there; built with HOOK_DLSYM=0 it does not,
 * and (like with the real libcudart) sees none of the runtime's lookups. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#define SEEN_MAX 512

/* What the test program reads back (found with dlsym(RTLD_DEFAULT, ...)). */
int preload_gpa_calls(void);
int preload_gpa_saw(const char *symbol);

typedef CUresult (*get_proc_v2)(const char *, void **, int, cuuint64_t,
				CUdriverProcAddressQueryResult *);
typedef void *(*dlsym_fn)(void *, const char *);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int calls;
static char seen[SEEN_MAX][48];
static int nseen;

static dlsym_fn real_dlsym(void)
{
	static dlsym_fn fn;
	if (!fn)
		fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!fn)
		fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	return fn;
}

static get_proc_v2 real_get_proc(void)
{
	static get_proc_v2 fn;
	void *lib;

	if (fn)
		return fn;
	/* The driver is already loaded by whoever asks; never RTLD_DEFAULT (that finds us). */
	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (lib)
		fn = (get_proc_v2)real_dlsym()(lib, "cuGetProcAddress_v2");
	return fn;
}

__attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
		    CUdriverProcAddressQueryResult *status)
{
	get_proc_v2 real = real_get_proc();
	CUresult st;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	st = real(symbol, pfn, version, flags, status);
	pthread_mutex_lock(&lock);
	calls++;
	if (symbol && nseen < SEEN_MAX) {
		strncpy(seen[nseen], symbol, sizeof seen[0] - 1);
		nseen++;
	}
	pthread_mutex_unlock(&lock);
	/* Self-lookup: keep every later lookup coming through us. */
	if (st == CUDA_SUCCESS && symbol && strcmp(symbol, "cuGetProcAddress") == 0 && version >= 12000)
		*pfn = (void *)cuGetProcAddress_v2;
	return st;
}

#if HOOK_DLSYM
__attribute__((visibility("default"))) void *dlsym(void *handle, const char *name)
{
	if (strcmp(name, "cuGetProcAddress_v2") == 0 && real_get_proc())
		return (void *)cuGetProcAddress_v2;
	return real_dlsym()(handle, name);
}
#endif

__attribute__((visibility("default"))) int preload_gpa_calls(void)
{
	return calls;
}

__attribute__((visibility("default"))) int preload_gpa_saw(const char *symbol)
{
	int found = 0;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < nseen && !found; i++)
		found = strcmp(seen[i], symbol) == 0;
	pthread_mutex_unlock(&lock);
	return found;
}
