/* Exported CUDA driver and runtime entry points: those that load device code (ptxload.c),
 * look kernels up in it or unload it (blocked.c), the lookups that hand out driver functions
 * (lookup.c) and those that end a context or a stream (lifetime.c), each a one-line
 * forward.  The runtime's pass their caller on: a
 * process may hold several runtimes, and each call goes to the caller's own. */
#define _GNU_SOURCE

#include "leftout.h"
#include "lifetime.h"
#include "lookup.h"
#include "loaders.h"

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

EXPORT abi_result cuModuleLoadFatBinary(abi_module *module, const void *fatbin)
{
	return shim_cuModuleLoadFatBinary(module, fatbin);
}

EXPORT abi_result cuLinkAddData_v2(void *state, int type, void *data, size_t size,
				   const char *name, unsigned n, int *options, void **values)
{
	return shim_cuLinkAddData_v2(state, type, data, size, name, n, options, values);
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

EXPORT abi_result cuModuleGetFunction(abi_function *fn, abi_module module, const char *name)
{
	return shim_cuModuleGetFunction(fn, module, name);
}

EXPORT abi_result cuModuleUnload(abi_module module)
{
	return shim_cuModuleUnload(module);
}

EXPORT abi_result cuLibraryGetKernel(void **kernel, void *library, const char *name)
{
	return shim_cuLibraryGetKernel(kernel, library, name);
}

EXPORT abi_result cuLibraryGetModule(abi_module *module, void *library)
{
	return shim_cuLibraryGetModule(module, library);
}

EXPORT abi_result cuLibraryUnload(void *library)
{
	return shim_cuLibraryUnload(library);
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

EXPORT int cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags,
				   int *status)
{
	return shim_cudaGetDriverEntryPoint(symbol, fn, flags, status,
					    __builtin_return_address(0));
}

EXPORT int cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned version,
					    unsigned long long flags, int *status)
{
	return shim_cudaGetDriverEntryPointByVersion(symbol, fn, version, flags, status,
						     __builtin_return_address(0));
}

EXPORT abi_result cuCtxDestroy(abi_context ctx)
{
	return shim_cuCtxDestroy(ctx);
}

EXPORT abi_result cuCtxDestroy_v2(abi_context ctx)
{
	return shim_cuCtxDestroy_v2(ctx);
}

EXPORT abi_result cuDevicePrimaryCtxReset(abi_device dev)
{
	return shim_cuDevicePrimaryCtxReset(dev);
}

EXPORT abi_result cuDevicePrimaryCtxReset_v2(abi_device dev)
{
	return shim_cuDevicePrimaryCtxReset_v2(dev);
}

EXPORT int cudaDeviceReset(void)
{
	return shim_cudaDeviceReset(__builtin_return_address(0));
}

EXPORT abi_result cuStreamDestroy(abi_stream stream)
{
	return shim_cuStreamDestroy(stream);
}

EXPORT abi_result cuStreamDestroy_v2(abi_stream stream)
{
	return shim_cuStreamDestroy_v2(stream);
}

EXPORT int cudaStreamDestroy(abi_stream stream)
{
	return shim_cudaStreamDestroy(stream, __builtin_return_address(0));
}
