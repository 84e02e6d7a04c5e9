/* The real vendor functions, found lazily on the first intercepted call.  One X-macro list
 * per library describes every symbol the shim forwards to or calls itself. */
#ifndef BF16SHIM_REAL_H
#define BF16SHIM_REAL_H

#include <stddef.h>

#include "abi.h"

/* cuBLAS entry points: the intercepted ones (forwarded) and the helpers we call. */
#define REAL_CUBLAS_SYMBOLS(X)                                                             \
	X(cublasGemmEx)                                                                    \
	X(cublasGemmEx_64)                                                                 \
	X(cublasGemmStridedBatchedEx)                                                      \
	X(cublasGemmStridedBatchedEx_64)                                                   \
	X(cublasGemmBatchedEx)                                                             \
	X(cublasGemmBatchedEx_64)                                                          \
	X(cublasSgemmEx)                                                                   \
	X(cublasSgemmEx_64)                                                                \
	X(cublasDestroy_v2)                                                                \
	X(cublasGetStream_v2)                                                              \
	X(cublasGetPointerMode_v2)

/* Driver functions: name for cuGetProcAddress, the CUDA version whose variant our
 * prototype matches, and the versioned symbol to dlsym when the driver predates
 * cuGetProcAddress (CUDA < 11.3). */
#define REAL_DRIVER_SYMBOLS(X)                                                             \
	X(cuCtxGetCurrent, 4000, "cuCtxGetCurrent")                                        \
	X(cuCtxGetDevice, 2000, "cuCtxGetDevice")                                          \
	X(cuDeviceGetAttribute, 2000, "cuDeviceGetAttribute")                              \
	X(cuDeviceGetName, 2000, "cuDeviceGetName")                                        \
	X(cuModuleLoadData, 2000, "cuModuleLoadData")                                      \
	X(cuModuleLoadDataEx, 2010, "cuModuleLoadDataEx")                                  \
	X(cuLinkAddData, 6050, "cuLinkAddData_v2")                                         \
	X(cuLibraryLoadData, 12000, "cuLibraryLoadData")                                   \
	X(cuModuleGetFunction, 2000, "cuModuleGetFunction")                                \
	X(cuModuleGetGlobal, 3020, "cuModuleGetGlobal_v2")                                 \
	X(cuLaunchKernel, 4000, "cuLaunchKernel")                                          \
	X(cuMemAlloc, 3020, "cuMemAlloc_v2")                                               \
	X(cuMemFree, 3020, "cuMemFree_v2")                                                 \
	X(cuMemAllocAsync, 11020, "cuMemAllocAsync")                                       \
	X(cuMemFreeAsync, 11020, "cuMemFreeAsync")                                         \
	X(cuMemsetD32Async, 3020, "cuMemsetD32Async")                                      \
	X(cuStreamIsCapturing, 10000, "cuStreamIsCapturing")                               \
	X(cuStreamGetCtx, 9020, "cuStreamGetCtx")

enum real_cublas_sym {
#define X(name) SYM_##name,
	REAL_CUBLAS_SYMBOLS(X)
#undef X
	SYM_CUBLAS_COUNT
};

/* Prototypes as in cuda.h, for the variant each lookup above asks for. */
struct real_driver {
	abi_result (*cuCtxGetCurrent)(abi_context *ctx);
	abi_result (*cuCtxGetDevice)(abi_device *dev);
	abi_result (*cuDeviceGetAttribute)(int *value, int attrib, abi_device dev);
	abi_result (*cuDeviceGetName)(char *name, int len, abi_device dev);
	abi_result (*cuModuleLoadData)(abi_module *module, const void *image);
	abi_result (*cuModuleLoadDataEx)(abi_module *module, const void *image, unsigned n,
					 int *options, void **values);
	abi_result (*cuLinkAddData)(void *state, int type, void *data, size_t size,
				    const char *name, unsigned n, int *options, void **values);
	abi_result (*cuLibraryLoadData)(void **library, const void *code, int *jit_options,
					void **jit_values, unsigned n_jit, int *lib_options,
					void **lib_values, unsigned n_lib);
	abi_result (*cuModuleGetFunction)(abi_function *fn, abi_module module, const char *name);
	abi_result (*cuModuleGetGlobal)(abi_devptr *dptr, size_t *bytes, abi_module module,
					const char *name);
	abi_result (*cuLaunchKernel)(abi_function f, unsigned gx, unsigned gy, unsigned gz,
				     unsigned bx, unsigned by, unsigned bz, unsigned shmem,
				     abi_stream stream, void **params, void **extra);
	abi_result (*cuMemAlloc)(abi_devptr *dptr, size_t bytes);
	abi_result (*cuMemFree)(abi_devptr dptr);
	abi_result (*cuMemAllocAsync)(abi_devptr *dptr, size_t bytes, abi_stream stream);
	abi_result (*cuMemFreeAsync)(abi_devptr dptr, abi_stream stream);
	abi_result (*cuMemsetD32Async)(abi_devptr dst, unsigned value, size_t count,
				       abi_stream stream);
	abi_result (*cuStreamIsCapturing)(abi_stream stream, int *status);
	abi_result (*cuStreamGetCtx)(abi_stream stream, abi_context *ctx);
};

/* Resolves everything once; returns 0 if cuBLAS itself could not be found (every
 * intercepted call then fails with NOT_INITIALIZED, and the log says why). */
int real_init(void);
/* The real cuBLAS functions (NULL where the loaded cuBLAS lacks one); the table itself is
 * read directly by the exported wrappers' fast path. */
extern void *real_cublas_fn[SYM_CUBLAS_COUNT];
void *real_cublas(enum real_cublas_sym sym);
/* Driver functions; members are NULL when unavailable. */
const struct real_driver *real_driver(void);
/* A driver symbol by its exact (versioned) name, from the driver's own handle. */
void *real_driver_dlsym(const char *name);
/* The real cuGetProcAddress, whichever form the driver has; its status is returned. */
abi_result real_driver_lookup(const char *name, void **fn, int version, unsigned long long flags,
			      int *status);
/* Where cuBLAS was found (for the log and doctor). */
const char *real_cublas_origin(void);

#endif
