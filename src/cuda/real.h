/* The real vendor libraries: one typed table of function pointers per library, each member
 * NULL where the loaded library lacks it, filled lazily on first use.  cuBLAS and cuBLASLt
 * are found once; the driver is looked for until it is loaded; the runtime is the caller's
 * own (a process may hold several). */
#ifndef BF16SHIM_REAL_H
#define BF16SHIM_REAL_H

#include <stddef.h>
#include <stdint.h>

#include "abi.h"
#include "entry_points.h"

/* ---- cuBLAS: the intercepted GEMMs (entry_points.h), and the helpers we call ---- */
#define REAL_CUBLAS_HELPERS(X)                                                             \
	X(cublasDestroy_v2, (abi_handle))                                                  \
	X(cublasGetProperty, (int type, int *value))                                       \
	X(cublasGetStream_v2, (abi_handle, abi_stream *))                                  \
	X(cublasGetPointerMode_v2, (abi_handle, int *))

struct real_cublas {
#define GEMM(name, INT, family) abi_status(*name) family##_PARAMS(INT);
	CUBLAS_GEMMS(GEMM)
#undef GEMM
#define X(name, params) abi_status(*name) params;
	REAL_CUBLAS_HELPERS(X)
#undef X
};
/* Read directly once real_cublas_find() has returned 1 (the exported GEMMs' pass-through). */
extern struct real_cublas real_cublas;
/* Finds cuBLAS, once (BF16SHIM_CUBLAS first); 0 if there is none (every intercepted call then
 * fails with NOT_INITIALIZED, and the log says why). */
int real_cublas_find(void);
const char *real_cublas_origin(void);
/* The real cuBLAS's major version (cublasGetProperty), or 0 when it cannot tell. */
int real_cublas_major(void);

/* ---- cuBLASLt: the intercepted two, and what the shim reads and builds descriptors with.
 * Found on its own (a program may use cuBLASLt without cuBLAS), BF16SHIM_CUBLASLT first. */
#define REAL_CUBLASLT_FUNCTIONS(X)                                                         \
	X(cublasLtMatmul, LT_MATMUL_PARAMS)                                                \
	X(cublasLtMatmulAlgoGetHeuristic, LT_HEURISTIC_PARAMS)                             \
	X(cublasLtMatmulDescCreate, (abi_lt_desc *, int compute, int scale))               \
	X(cublasLtMatmulDescDestroy, (abi_lt_desc))                                        \
	X(cublasLtMatmulDescGetAttribute, (abi_lt_desc, int, void *, size_t, size_t *))    \
	X(cublasLtMatmulDescSetAttribute, (abi_lt_desc, int, const void *, size_t))        \
	X(cublasLtMatrixLayoutCreate,                                                      \
	  (abi_lt_layout *, int type, uint64_t rows, uint64_t cols, int64_t ld))           \
	X(cublasLtMatrixLayoutDestroy, (abi_lt_layout))                                    \
	X(cublasLtMatrixLayoutGetAttribute, (abi_lt_layout, int, void *, size_t, size_t *))\
	X(cublasLtMatrixLayoutSetAttribute, (abi_lt_layout, int, const void *, size_t))

struct real_cublaslt {
#define X(name, params) abi_status(*name) params;
	REAL_CUBLASLT_FUNCTIONS(X)
#undef X
};
extern struct real_cublaslt real_cublaslt;
int real_cublaslt_find(void);
const char *real_cublaslt_origin(void);

/* ---- The driver.  The functions the shim calls, found through cuGetProcAddress: name, the
 * CUDA version whose variant the prototype matches, and the versioned symbol to dlsym when
 * the driver predates cuGetProcAddress (CUDA < 11.3). */
#define REAL_DRIVER_FUNCTIONS(X)                                                           \
	X(cuCtxGetCurrent, 4000, "cuCtxGetCurrent", (abi_context * ctx))                   \
	X(cuCtxGetDevice, 2000, "cuCtxGetDevice", (abi_device * dev))                      \
	X(cuDeviceGetCount, 2000, "cuDeviceGetCount", (int *count))                        \
	X(cuDeviceGet, 2000, "cuDeviceGet", (abi_device * dev, int ordinal))               \
	X(cuDeviceGetAttribute, 2000, "cuDeviceGetAttribute",                              \
	  (int *value, int attrib, abi_device dev))                                        \
	X(cuDeviceGetName, 2000, "cuDeviceGetName", (char *name, int len, abi_device dev)) \
	X(cuModuleLoadData, 2000, "cuModuleLoadData", (abi_module * module, const void *image)) \
	X(cuModuleGetFunction, 2000, "cuModuleGetFunction",                                \
	  (abi_function * fn, abi_module module, const char *name))                        \
	X(cuModuleUnload, 2000, "cuModuleUnload", (abi_module module))                     \
	X(cuModuleGetGlobal, 3020, "cuModuleGetGlobal_v2",                                 \
	  (abi_devptr * dptr, size_t *bytes, abi_module module, const char *name))         \
	X(cuLaunchKernel, 4000, "cuLaunchKernel",                                          \
	  (abi_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, \
	   unsigned bz, unsigned shmem, abi_stream stream, void **params, void **extra))   \
	X(cuMemAlloc, 3020, "cuMemAlloc_v2", (abi_devptr * dptr, size_t bytes))            \
	X(cuMemFree, 3020, "cuMemFree_v2", (abi_devptr dptr))                              \
	X(cuMemAllocAsync, 11020, "cuMemAllocAsync",                                       \
	  (abi_devptr * dptr, size_t bytes, abi_stream stream))                            \
	X(cuMemFreeAsync, 11020, "cuMemFreeAsync", (abi_devptr dptr, abi_stream stream))   \
	X(cuMemsetD32Async, 3020, "cuMemsetD32Async",                                      \
	  (abi_devptr dst, unsigned value, size_t count, abi_stream stream))               \
	X(cuMemGetAddressRange, 3020, "cuMemGetAddressRange_v2",                           \
	  (abi_devptr * base, size_t *size, abi_devptr ptr))                               \
	X(cuMemcpy2DAsync, 3020, "cuMemcpy2DAsync_v2",                                     \
	  (const struct abi_memcpy2d *copy, abi_stream stream))                            \
	X(cuStreamIsCapturing, 10000, "cuStreamIsCapturing", (abi_stream stream, int *status)) \
	X(cuStreamGetCtx, 9020, "cuStreamGetCtx", (abi_stream stream, abi_context * ctx))  \
	X(cuDevicePrimaryCtxGetState, 7000, "cuDevicePrimaryCtxGetState",                  \
	  (abi_device dev, unsigned *flags, int *active))                                  \
	X(cuDevicePrimaryCtxRetain, 7000, "cuDevicePrimaryCtxRetain",                      \
	  (abi_context * ctx, abi_device dev))                                             \
	X(cuDevicePrimaryCtxRelease, 11000, "cuDevicePrimaryCtxRelease_v2", (abi_device dev))

/* The driver's exported symbols of the calls the shim stands in for, by their exact names:
 * what its lookups hand out for them (lookup.c), and what our wrappers forward to. */
#define REAL_DRIVER_SYMBOLS(X)                                                             \
	X(cuModuleLoadData, (abi_module *, const void *))                                  \
	X(cuModuleLoadDataEx, (abi_module *, const void *, unsigned, int *, void **))      \
	X(cuLinkAddData, (void *, int, void *, size_t, const char *, unsigned, int *, void **)) \
	X(cuLinkAddData_v2, (void *, int, void *, size_t, const char *, unsigned, int *,   \
			     void **))                                                     \
	X(cuLibraryLoadData,                                                               \
	  (void **, const void *, int *, void **, unsigned, int *, void **, unsigned))     \
	X(cuModuleLoadFatBinary, (abi_module *, const void *))                             \
	X(cuModuleGetFunction, (abi_function *, abi_module, const char *))                 \
	X(cuModuleUnload, (abi_module))                                                    \
	X(cuLibraryGetKernel, (void **, void *, const char *))                             \
	X(cuLibraryGetModule, (abi_module *, void *))                                      \
	X(cuLibraryUnload, (void *))                                                       \
	X(cuGetProcAddress, (const char *, void **, int, unsigned long long))              \
	X(cuGetProcAddress_v2, (const char *, void **, int, unsigned long long, int *))    \
	X(cuCtxDestroy, (abi_context))                                                     \
	X(cuCtxDestroy_v2, (abi_context))                                                  \
	X(cuDevicePrimaryCtxReset, (abi_device))                                           \
	X(cuDevicePrimaryCtxReset_v2, (abi_device))                                        \
	X(cuStreamDestroy, (abi_stream))                                                   \
	X(cuStreamDestroy_v2, (abi_stream))

struct real_driver {
#define X(name, version, fallback, params) abi_result(*name) params;
	REAL_DRIVER_FUNCTIONS(X)
#undef X
	struct {
#define X(name, params) abi_result(*name) params;
		REAL_DRIVER_SYMBOLS(X)
#undef X
	} symbol;
};
/* The driver's table, looked for again on each call until the driver is loaded (the runtime
 * loads it on its first call); members NULL when unavailable. */
const struct real_driver *real_driver(void);

/* ---- The C library's dlsym, not ours (exports/dlfcn.c), found once with dlvsym; what the
 * shim looks driver symbols up with itself. */
typedef void *(*dlsym_fn)(void *handle, const char *name);
extern dlsym_fn real_dlsym_fn;
/* Our dlsym runs before the sanitizers are set up: their runtimes find the functions they
 * intercept with dlsym(RTLD_NEXT, ...) from their first constructor, before the shadow
 * memory an instrumented access checks exists.  What that path runs is left uninstrumented
 * (sanitizer builds only: scripts/sanitize). */
#if defined(__has_attribute)
#if __has_attribute(no_sanitize)
#define SHIM_BEFORE_SANITIZERS __attribute__((no_sanitize("address", "thread", "undefined")))
#endif
#endif
#ifndef SHIM_BEFORE_SANITIZERS
#define SHIM_BEFORE_SANITIZERS
#endif
SHIM_BEFORE_SANITIZERS dlsym_fn real_dlsym_find(void);
void *real_dlsym(void *handle, const char *name);

/* ---- The runtime: the calls we stand in for or make. */
#define REAL_CUDART_FUNCTIONS(X)                                                           \
	X(cudaDeviceReset, (void))                                                         \
	X(cudaGetDevice, (int *))                                                          \
	X(cudaStreamDestroy, (abi_stream))                                                 \
	X(cudaGetDriverEntryPoint, (const char *, void **, unsigned long long, int *))     \
	X(cudaGetDriverEntryPointByVersion,                                                \
	  (const char *, void **, unsigned, unsigned long long, int *))

struct real_cudart {
#define X(name, params) int(*name) params;
	REAL_CUDART_FUNCTIONS(X)
#undef X
};
/* The runtime function `name` as the code at `caller` (a return address) would reach it: its
 * own libcudart, whatever that file is called (wheels rename it), else the one the shared
 * search found; NULL if none.  Found once per calling place, then read from a table. */
#define REAL_CUDART(caller, name)                                                          \
	((__typeof__(((struct real_cudart *)0)->name))real_cudart_lookup(                  \
		caller, offsetof(struct real_cudart, name)))
void *real_cudart_lookup(const void *caller, size_t offset);

#endif
