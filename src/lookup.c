/* Driver lookups.  A lookup is answered by the real library first: its answer decides
 * every error.  If the function it found is one we stand in for, ours with the same
 * signature goes back instead, so the variant (e.g. the 4- or 5-argument cuGetProcAddress,
 * cuCtxDestroy or cuCtxDestroy_v2) is always the one asked for. */
#define _GNU_SOURCE
#include <stddef.h>

#include "lifetime.h"
#include "lookup.h"
#include "ptxload.h"
#include "real.h"

/* By exported (versioned) name: the real driver's symbol of that name is what a lookup
 * returns for the variant our wrapper implements. */
static const struct {
	const char *name;
	void *fn;
} wrapped[] = {
	{"cuModuleLoadData", (void *)shim_cuModuleLoadData},
	{"cuModuleLoadDataEx", (void *)shim_cuModuleLoadDataEx},
	{"cuLinkAddData", (void *)shim_cuLinkAddData},
	{"cuLinkAddData_v2", (void *)shim_cuLinkAddData},
	{"cuLibraryLoadData", (void *)shim_cuLibraryLoadData},
	{"cuGetProcAddress", (void *)shim_cuGetProcAddress},
	{"cuGetProcAddress_v2", (void *)shim_cuGetProcAddress_v2},
	{"cuCtxDestroy", (void *)shim_cuCtxDestroy},
	{"cuCtxDestroy_v2", (void *)shim_cuCtxDestroy_v2},
	{"cuDevicePrimaryCtxReset", (void *)shim_cuDevicePrimaryCtxReset},
	{"cuDevicePrimaryCtxReset_v2", (void *)shim_cuDevicePrimaryCtxReset_v2},
	{"cuStreamDestroy", (void *)shim_cuStreamDestroy},
	{"cuStreamDestroy_v2", (void *)shim_cuStreamDestroy_v2},
};
#define NWRAPPED (sizeof wrapped / sizeof wrapped[0])

static void *real_of[NWRAPPED];
static struct retry_once reals_search = RETRY_ONCE_INIT;

/* Found once the driver is there to answer. */
static int search_reals(void)
{
	int any = 0;
	for (size_t i = 0; i < NWRAPPED; i++)
		any |= (real_of[i] = real_driver_dlsym(wrapped[i].name)) != NULL;
	return any;
}

static void find_reals(void)
{
	retry_once(&reals_search, search_reals);
}

void *lookup_substitute(void *real_fn)
{
	find_reals();
	for (size_t i = 0; real_fn && i < NWRAPPED; i++)
		if (real_of[i] == real_fn)
			return wrapped[i].fn;
	return real_fn;
}

void *lookup_real(void *ours)
{
	find_reals();
	for (size_t i = 0; i < NWRAPPED; i++)
		if (wrapped[i].fn == ours)
			return real_of[i];
	return NULL;
}

abi_result shim_cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				    unsigned long long flags, int *status)
{
	abi_result r = real_driver_lookup(symbol, pfn, version, flags, status);

	if (r == ABI_CUDA_SUCCESS && pfn)
		*pfn = lookup_substitute(*pfn);
	return r;
}

abi_result shim_cuGetProcAddress(const char *symbol, void **pfn, int version,
				 unsigned long long flags)
{
	return shim_cuGetProcAddress_v2(symbol, pfn, version, flags, NULL);
}

typedef int (*entry_point_fn)(const char *, void **, unsigned long long, int *);
typedef int (*entry_point_by_version_fn)(const char *, void **, unsigned, unsigned long long,
					 int *);

int shim_cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags,
				 int *status, const void *caller)
{
	entry_point_fn real = (entry_point_fn)real_cudart(caller, SYM_cudaGetDriverEntryPoint);
	int r = real ? real(symbol, fn, flags, status) : 3; /* cudaErrorInitializationError */
	if (r == 0 && fn)
		*fn = lookup_substitute(*fn);
	return r;
}

int shim_cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned version,
					  unsigned long long flags, int *status,
					  const void *caller)
{
	entry_point_by_version_fn real = (entry_point_by_version_fn)real_cudart(
		caller, SYM_cudaGetDriverEntryPointByVersion);
	int r = real ? real(symbol, fn, version, flags, status) : 3;
	if (r == 0 && fn)
		*fn = lookup_substitute(*fn);
	return r;
}
