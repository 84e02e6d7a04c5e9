/* Exported CUDA driver entry points that load device code, the driver's lookup functions,
 * and the runtime's: each a one-line forward into ptxload.c. */
#define _GNU_SOURCE

#include "../ptxload.h"
#include "../real.h"

/* The vendor headers declare these; we do not include them. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT __attribute__((visibility("default")))

EXPORT abi_result cuModuleLoadData(abi_module *module, const void *image)
{
	return shim_cuModuleLoadData(module, image);
}

EXPORT abi_result cuModuleLoadDataEx(abi_module *module, const void *image, unsigned n,
				     int *options, void **values)
{
	return shim_cuModuleLoadDataEx(module, image, n, options, values);
}

EXPORT abi_result cuLinkAddData_v2(void *state, int type, void *data, size_t size,
				   const char *name, unsigned n, int *options, void **values)
{
	return shim_cuLinkAddData(state, type, data, size, name, n, options, values);
}

EXPORT abi_result cuLinkAddData(void *state, int type, void *data, size_t size,
				const char *name, unsigned n, int *options, void **values)
{
	return shim_cuLinkAddData(state, type, data, size, name, n, options, values);
}

EXPORT abi_result cuLibraryLoadData(void **library, const void *code, int *jit_options,
				    void **jit_values, unsigned n_jit, int *lib_options,
				    void **lib_values, unsigned n_lib)
{
	return shim_cuLibraryLoadData(library, code, jit_options, jit_values, n_jit, lib_options,
				      lib_values, n_lib);
}

EXPORT abi_result cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				      unsigned long long flags, int *status)
{
	return shim_cuGetProcAddress_v2(symbol, pfn, version, flags, status);
}

EXPORT abi_result cuGetProcAddress(const char *symbol, void **pfn, int version,
				   unsigned long long flags)
{
	return shim_cuGetProcAddress(symbol, pfn, version, flags);
}

/* cudaGetDriverEntryPoint (CUDA 12 form; CUDA 11's has no status argument, and a caller of
 * that form leaves the register unused: we only pass it on).  The real runtime answers; a
 * driver function we stand in for is swapped for ours. */
typedef int (*entry_point_fn)(const char *, void **, unsigned long long, int *);
typedef int (*entry_point_by_version_fn)(const char *, void **, unsigned, unsigned long long,
					 int *);

EXPORT int cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags,
				   int *status)
{
	entry_point_fn real = (entry_point_fn)real_cudart(SYM_cudaGetDriverEntryPoint);
	int r = real ? real(symbol, fn, flags, status) : 3; /* cudaErrorInitializationError */
	if (r == 0 && fn)
		*fn = ptxload_substitute(*fn);
	return r;
}

EXPORT int cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned version,
					    unsigned long long flags, int *status)
{
	entry_point_by_version_fn real =
		(entry_point_by_version_fn)real_cudart(SYM_cudaGetDriverEntryPointByVersion);
	int r = real ? real(symbol, fn, version, flags, status) : 3;
	if (r == 0 && fn)
		*fn = ptxload_substitute(*fn);
	return r;
}
