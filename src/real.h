/* The real vendor functions, found lazily on the first intercepted call.  One X-macro list
 * per library describes every symbol the shim forwards to or calls itself. */
#ifndef BF16SHIM_REAL_H
#define BF16SHIM_REAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

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

/* cuBLASLt entry points, with their parameter lists (all return cublasStatus_t): the two
 * intercepted ones, and what the shim uses to read and build descriptors. */
#define REAL_CUBLASLT_SYMBOLS(X)                                                           \
	X(cublasLtMatmul, (abi_lt_handle, abi_lt_desc, const void *alpha, const void *a,  \
			   abi_lt_layout, const void *b, abi_lt_layout, const void *beta,  \
			   const void *c, abi_lt_layout, void *d, abi_lt_layout,           \
			   const abi_lt_algo *, void *workspace, size_t workspace_bytes,   \
			   abi_stream))                                                    \
	X(cublasLtMatmulAlgoGetHeuristic,                                                  \
	  (abi_lt_handle, abi_lt_desc, abi_lt_layout a, abi_lt_layout b, abi_lt_layout c,  \
	   abi_lt_layout d, abi_lt_pref, int requested, abi_lt_heuristic_result *,         \
	   int *returned))                                                                 \
	X(cublasLtMatmulDescCreate, (abi_lt_desc *, int compute, int scale))               \
	X(cublasLtMatmulDescDestroy, (abi_lt_desc))                                        \
	X(cublasLtMatmulDescGetAttribute, (abi_lt_desc, int, void *, size_t, size_t *))    \
	X(cublasLtMatmulDescSetAttribute, (abi_lt_desc, int, const void *, size_t))        \
	X(cublasLtMatrixLayoutCreate,                                                      \
	  (abi_lt_layout *, int type, uint64_t rows, uint64_t cols, int64_t ld))           \
	X(cublasLtMatrixLayoutDestroy, (abi_lt_layout))                                    \
	X(cublasLtMatrixLayoutGetAttribute, (abi_lt_layout, int, void *, size_t, size_t *))\
	X(cublasLtMatrixLayoutSetAttribute, (abi_lt_layout, int, const void *, size_t))

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
	X(cuModuleUnload, 2000, "cuModuleUnload")                                          \
	X(cuModuleGetGlobal, 3020, "cuModuleGetGlobal_v2")                                 \
	X(cuLaunchKernel, 4000, "cuLaunchKernel")                                          \
	X(cuMemAlloc, 3020, "cuMemAlloc_v2")                                               \
	X(cuMemFree, 3020, "cuMemFree_v2")                                                 \
	X(cuMemAllocAsync, 11020, "cuMemAllocAsync")                                       \
	X(cuMemFreeAsync, 11020, "cuMemFreeAsync")                                         \
	X(cuMemsetD32Async, 3020, "cuMemsetD32Async")                                      \
	X(cuMemGetAddressRange, 3020, "cuMemGetAddressRange_v2")                           \
	X(cuMemcpy2DAsync, 3020, "cuMemcpy2DAsync_v2")                                     \
	X(cuStreamIsCapturing, 10000, "cuStreamIsCapturing")                               \
	X(cuStreamGetCtx, 9020, "cuStreamGetCtx")                                          \
	X(cuDevicePrimaryCtxGetState, 7000, "cuDevicePrimaryCtxGetState")                  \
	X(cuDevicePrimaryCtxRetain, 7000, "cuDevicePrimaryCtxRetain")                      \
	X(cuDevicePrimaryCtxRelease, 11000, "cuDevicePrimaryCtxRelease_v2")

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
	abi_result (*cuModuleUnload)(abi_module module);
	abi_result (*cuModuleGetGlobal)(abi_devptr *dptr, size_t *bytes, abi_module module,
					const char *name);
	abi_result (*cuLaunchKernel)(abi_function f, unsigned gx, unsigned gy, unsigned gz,
				     unsigned bx, unsigned by, unsigned bz, unsigned shmem,
				     abi_stream stream, void **params, void **extra);
	abi_result (*cuMemAlloc)(abi_devptr *dptr, size_t bytes);
	abi_result (*cuMemFree)(abi_devptr dptr);
	abi_result (*cuMemAllocAsync)(abi_devptr *dptr, size_t bytes, abi_stream stream);
	abi_result (*cuMemFreeAsync)(abi_devptr dptr, abi_stream stream);
	abi_result (*cuMemGetAddressRange)(abi_devptr *base, size_t *size, abi_devptr ptr);
	abi_result (*cuMemsetD32Async)(abi_devptr dst, unsigned value, size_t count,
				       abi_stream stream);
	abi_result (*cuMemcpy2DAsync)(const struct abi_memcpy2d *copy, abi_stream stream);
	abi_result (*cuStreamIsCapturing)(abi_stream stream, int *status);
	abi_result (*cuStreamGetCtx)(abi_stream stream, abi_context *ctx);
	abi_result (*cuDevicePrimaryCtxGetState)(abi_device dev, unsigned *flags, int *active);
	abi_result (*cuDevicePrimaryCtxRetain)(abi_context *ctx, abi_device dev);
	abi_result (*cuDevicePrimaryCtxRelease)(abi_device dev);
};

/* A search done again until it succeeds, then never: a process may load a vendor library
 * after our first look (the runtime loads the driver on its first call).  Once found, a
 * call costs one load. */
struct retry_once {
	atomic_int found;
	pthread_mutex_t lock;
};
#define RETRY_ONCE_INIT {0, PTHREAD_MUTEX_INITIALIZER}
void retry_once(struct retry_once *r, int (*search)(void));

/* Resolves everything once; returns 0 if cuBLAS itself could not be found (every
 * intercepted call then fails with NOT_INITIALIZED, and the log says why). */
int real_init(void);
/* The real cuBLAS functions (NULL where the loaded cuBLAS lacks one); the table itself is
 * read directly by the exported wrappers' fast path. */
extern void *real_cublas_fn[SYM_CUBLAS_COUNT];
void *real_cublas(enum real_cublas_sym sym);
/* Driver functions; members are NULL when unavailable. */
const struct real_driver *real_driver(void);
/* The runtime functions we stand in for or call (found on first use; NULL if unavailable).
 * The first is in every libcudart: it decides whether a library is one. */
#define REAL_CUDART_SYMBOLS(X)                                                             \
	X(cudaDeviceReset)                                                                 \
	X(cudaGetDevice)                                                                   \
	X(cudaStreamDestroy)                                                               \
	X(cudaGetDriverEntryPoint)                                                         \
	X(cudaGetDriverEntryPointByVersion)
enum real_cudart_sym {
#define X(name) SYM_##name,
	REAL_CUDART_SYMBOLS(X)
#undef X
	SYM_CUDART_COUNT
};
/* As the code at caller (a return address) would reach it: its own libcudart, whatever that
 * file is called (wheels rename it), else the one the shared finder found.  A process may
 * hold several runtimes; each caller's call must go to its own. */
void *real_cudart(const void *caller, enum real_cudart_sym sym);
/* A driver symbol by its exact (versioned) name, from the driver's own handle. */
void *real_driver_dlsym(const char *name);
/* The real cuGetProcAddress, whichever form the driver has; its status is returned. */
abi_result real_driver_lookup(const char *name, void **fn, int version, unsigned long long flags,
			      int *status);
/* Where cuBLAS was found (for the log and doctor). */
const char *real_cublas_origin(void);

/* The real cuBLASLt functions, members NULL where the loaded cuBLASLt lacks one.  Found on
 * its own (a program may use cuBLASLt without cuBLAS), in the same order as cuBLAS, with
 * BF16SHIM_CUBLASLT first.  real_lt_init returns 0 if there is no cuBLASLt; the table is
 * read directly by the exported wrappers' fast path. */
struct real_cublaslt {
#define X(name, params) abi_status(*name) params;
	REAL_CUBLASLT_SYMBOLS(X)
#undef X
};
extern struct real_cublaslt real_lt;
int real_lt_init(void);
const char *real_cublaslt_origin(void);

#endif
