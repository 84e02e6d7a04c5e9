/* Driver lookups.  A lookup is answered by the real library first: its answer decides
 * every error.  If the function it found is one we stand in for, ours with the same
 * signature goes back instead, so the variant (e.g. the 4- or 5-argument cuGetProcAddress,
 * cuCtxDestroy or cuCtxDestroy_v2) is always the one asked for. */
#define _GNU_SOURCE
#include <stddef.h>
#include <string.h>

#include "leftout.h"
#include "lifetime.h"
#include "lookup.h"
#include "loaders.h"
#include "real.h"

/* Each driver symbol we stand in for, and ours (ptxload.h, blocked.h, lookup.h, lifetime.h:
 * each named shim_ and the driver's name). */
static const struct {
	size_t real;         /* offset of the driver's own in struct real_driver */
	void *ours;
} wrapped[] = {
#define X(name, params) {offsetof(struct real_driver, symbol.name), (void *)shim_##name},
	REAL_DRIVER_SYMBOLS(X)
#undef X
};

static void *real_of(const struct real_driver *drv, size_t i)
{
	void *fn;
	memcpy(&fn, (const char *)drv + wrapped[i].real, sizeof fn);
	return fn;
}

void *lookup_substitute(void *real_fn)
{
	const struct real_driver *drv = real_driver();
	for (size_t i = 0; real_fn && i < sizeof wrapped / sizeof wrapped[0]; i++)
		if (real_of(drv, i) == real_fn)
			return wrapped[i].ours;
	return real_fn;
}

void *lookup_dlsym(void *handle, const char *name)
{
	void *fn = real_dlsym(handle, name);
	/* A miss leaves the caller's dlerror() as the C library set it. */
	return fn ? lookup_substitute(fn) : NULL;
}

abi_result shim_cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				    unsigned long long flags, int *status)
{
	const struct real_driver *drv = real_driver();
	abi_result r = drv->symbol.cuGetProcAddress_v2
			       ? drv->symbol.cuGetProcAddress_v2(symbol, pfn, version, flags, status)
		       : drv->symbol.cuGetProcAddress
			       ? drv->symbol.cuGetProcAddress(symbol, pfn, version, flags)
			       : ABI_CUDA_NOT_INITIALIZED;

	if (r == ABI_CUDA_SUCCESS && pfn)
		*pfn = lookup_substitute(*pfn);
	return r;
}

abi_result shim_cuGetProcAddress(const char *symbol, void **pfn, int version,
				 unsigned long long flags)
{
	return shim_cuGetProcAddress_v2(symbol, pfn, version, flags, NULL);
}

int shim_cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags,
				 int *status, const void *caller)
{
	__auto_type real = REAL_CUDART(caller, cudaGetDriverEntryPoint);
	int r = real ? real(symbol, fn, flags, status) : ABI_CUDART_INITIALIZATION_ERROR;
	if (r == 0 && fn)
		*fn = lookup_substitute(*fn);
	return r;
}

int shim_cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned version,
					  unsigned long long flags, int *status,
					  const void *caller)
{
	__auto_type real = REAL_CUDART(caller, cudaGetDriverEntryPointByVersion);
	int r = real ? real(symbol, fn, version, flags, status) : ABI_CUDART_INITIALIZATION_ERROR;
	if (r == 0 && fn)
		*fn = lookup_substitute(*fn);
	return r;
}
