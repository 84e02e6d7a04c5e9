/* Private declarations of the simulated runtime (libcudart.so.13 / .12).  The runtime reaches
 * the driver the way the real one does (doc/facts.md): dlopen("libcuda.so.1"), dlsym of
 * cuGetProcAddress_v2 only, then every driver function by base name + version + flags.  The
 * list of those functions is RT_DRIVER_FUNCS below; cuda* entry points call them through
 * rt_drv(), so a wrapper of cuGetProcAddress sees this runtime's driver traffic. */
#ifndef SIMCUDA_RUNTIME_INTERNAL_H
#define SIMCUDA_RUNTIME_INTERNAL_H

/* Declares both the legacy-stream and the _ptds/_ptsz prototypes (cudaMemcpy and
 * cudaMemcpy_ptds ...), and every driver prototype, as the vendor builds its runtime. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdint.h>

#include "simcore.h"

#if SIMCUDA_SOVERSION == 12
#define RT_VERSION 12080
#else
#define RT_VERSION 13000
#endif

/* Driver functions the runtime uses: X(base name, prototype of what cuGetProcAddress returns
 * for base name at RT_VERSION).  S rows take a stream: they are also fetched with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM for the _ptsz/_ptds entry points. */
#if RT_VERSION >= 13000
#define RT_CTX_SYNCHRONIZE cuCtxSynchronize_v2
#define RT_CTX_GET_DEVICE cuCtxGetDevice_v2
#else
#define RT_CTX_SYNCHRONIZE cuCtxSynchronize
#define RT_CTX_GET_DEVICE cuCtxGetDevice
#endif

#define RT_DRIVER_FUNCS(X, S) \
	X(cuInit, cuInit) \
	X(cuDriverGetVersion, cuDriverGetVersion) \
	X(cuGetErrorName, cuGetErrorName) \
	X(cuDeviceGetCount, cuDeviceGetCount) \
	X(cuDeviceGetName, cuDeviceGetName) \
	X(cuDeviceGetAttribute, cuDeviceGetAttribute) \
	X(cuDeviceTotalMem, cuDeviceTotalMem_v2) \
	X(cuDeviceGetUuid, cuDeviceGetUuid_v2) \
	X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain) \
	X(cuDevicePrimaryCtxReset, cuDevicePrimaryCtxReset_v2) \
	X(cuDevicePrimaryCtxSetFlags, cuDevicePrimaryCtxSetFlags_v2) \
	X(cuDevicePrimaryCtxGetState, cuDevicePrimaryCtxGetState) \
	X(cuCtxGetCurrent, cuCtxGetCurrent) \
	X(cuCtxSetCurrent, cuCtxSetCurrent) \
	X(cuCtxGetDevice, RT_CTX_GET_DEVICE) \
	X(cuCtxSynchronize, RT_CTX_SYNCHRONIZE) \
	X(cuCtxGetStreamPriorityRange, cuCtxGetStreamPriorityRange) \
	X(cuMemAlloc, cuMemAlloc_v2) \
	X(cuMemFree, cuMemFree_v2) \
	X(cuMemGetInfo, cuMemGetInfo_v2) \
	X(cuMemHostAlloc, cuMemHostAlloc) \
	X(cuMemFreeHost, cuMemFreeHost) \
	X(cuPointerGetAttributes, cuPointerGetAttributes) \
	X(cuMemHostRegister, cuMemHostRegister_v2) \
	X(cuMemHostUnregister, cuMemHostUnregister) \
	X(cuMemHostGetDevicePointer, cuMemHostGetDevicePointer_v2) \
	X(cuMemHostGetFlags, cuMemHostGetFlags) \
	X(cuDeviceGetPCIBusId, cuDeviceGetPCIBusId) \
	X(cuDeviceCanAccessPeer, cuDeviceCanAccessPeer) \
	X(cuCtxEnablePeerAccess, cuCtxEnablePeerAccess) \
	X(cuCtxDisablePeerAccess, cuCtxDisablePeerAccess) \
	S(cuMemcpyPeer, cuMemcpyPeer) \
	S(cuMemcpyPeerAsync, cuMemcpyPeerAsync) \
	S(cuLaunchHostFunc, cuLaunchHostFunc) \
	S(cuStreamAddCallback, cuStreamAddCallback) \
	S(cuMemAllocAsync, cuMemAllocAsync) \
	S(cuMemFreeAsync, cuMemFreeAsync) \
	S(cuMemcpy, cuMemcpy) \
	S(cuMemcpyAsync, cuMemcpyAsync) \
	S(cuMemcpyHtoD, cuMemcpyHtoD_v2) \
	S(cuMemcpyDtoH, cuMemcpyDtoH_v2) \
	S(cuMemcpyDtoD, cuMemcpyDtoD_v2) \
	S(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2) \
	S(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2) \
	S(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2) \
	S(cuMemcpy2D, cuMemcpy2D_v2) \
	S(cuMemcpy2DAsync, cuMemcpy2DAsync_v2) \
	S(cuMemsetD8, cuMemsetD8_v2) \
	S(cuMemsetD8Async, cuMemsetD8Async) \
	S(cuMemsetD2D8, cuMemsetD2D8_v2) \
	S(cuMemsetD2D8Async, cuMemsetD2D8Async) \
	X(cuStreamCreate, cuStreamCreate) \
	X(cuStreamCreateWithPriority, cuStreamCreateWithPriority) \
	X(cuStreamDestroy, cuStreamDestroy_v2) \
	S(cuStreamSynchronize, cuStreamSynchronize) \
	S(cuStreamQuery, cuStreamQuery) \
	S(cuStreamWaitEvent, cuStreamWaitEvent) \
	S(cuStreamGetFlags, cuStreamGetFlags) \
	S(cuStreamGetPriority, cuStreamGetPriority) \
	S(cuStreamGetId, cuStreamGetId) \
	S(cuStreamGetDevice, cuStreamGetDevice) \
	S(cuStreamBeginCapture, cuStreamBeginCapture_v2) \
	S(cuStreamEndCapture, cuStreamEndCapture) \
	S(cuStreamIsCapturing, cuStreamIsCapturing) \
	S(cuStreamGetCaptureInfo, cuStreamGetCaptureInfo_v3) \
	X(cuThreadExchangeStreamCaptureMode, cuThreadExchangeStreamCaptureMode) \
	X(cuGraphInstantiate, cuGraphInstantiateWithFlags) \
	S(cuGraphLaunch, cuGraphLaunch) \
	X(cuGraphDestroy, cuGraphDestroy) \
	X(cuGraphExecDestroy, cuGraphExecDestroy) \
	X(cuEventCreate, cuEventCreate) \
	X(cuEventDestroy, cuEventDestroy_v2) \
	S(cuEventRecord, cuEventRecord) \
	S(cuEventRecordWithFlags, cuEventRecordWithFlags) \
	X(cuEventQuery, cuEventQuery) \
	X(cuEventSynchronize, cuEventSynchronize) \
	X(cuEventElapsedTime, cuEventElapsedTime_v2) \
	X(cuLibraryLoadData, cuLibraryLoadData) \
	X(cuLibraryGetKernel, cuLibraryGetKernel) \
	X(cuKernelGetFunction, cuKernelGetFunction) \
	X(cuLibraryGetGlobal, cuLibraryGetGlobal) \
	X(cuLibraryGetManaged, cuLibraryGetManaged) \
	X(cuLibraryGetModule, cuLibraryGetModule) \
	X(cuModuleGetFunction, cuModuleGetFunction) \
	X(cuModuleGetGlobal, cuModuleGetGlobal_v2) \
	X(cuFuncGetAttribute, cuFuncGetAttribute) \
	X(cuFuncSetAttribute, cuFuncSetAttribute) \
	X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, \
	  cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) \
	X(cuOccupancyAvailableDynamicSMemPerBlock, cuOccupancyAvailableDynamicSMemPerBlock) \
	S(cuLaunchKernel, cuLaunchKernel)

struct rt_driver {
#define RT_FIELD(base, proto) __typeof__(&proto) base;
	RT_DRIVER_FUNCS(RT_FIELD, RT_FIELD)
#undef RT_FIELD
	__typeof__(&cuGetProcAddress_v2) cuGetProcAddress;  /* its self-lookup */
};

/* driver_link.c: the driver table for legacy (0) or per-thread (1) default-stream calls;
 * NULL until rt_init has succeeded. */
const struct rt_driver *rt_drv(int per_thread);
/* Links the driver once (dlopen, lookups, cuInit); the error the runtime reports if not. */
cudaError_t rt_init(void);

/* error.c: the one table from driver statuses to runtime errors, and the per-thread error
 * state that cudaGetLastError/cudaPeekAtLastError report. */
cudaError_t rt_status(CUresult st);
void rt_record_error(cudaError_t err);

/* device.c: makes a context current for this thread (the chosen device's primary context,
 * retained once), unless the thread already has one; the runtime's lazy initialization. */
cudaError_t rt_context(void);

/* nvcc's host ABI (crt/host_runtime.h, crt/device_functions.h: declared there for C++ only):
 * what the code nvcc generates for every .cu file calls. */
void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin);
void CUDARTAPI __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void CUDARTAPI __cudaUnregisterFatBinary(void **fatCubinHandle);
char CUDARTAPI __cudaInitModule(void **fatCubinHandle);
void CUDARTAPI __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
				      const char *deviceName, int thread_limit, uint3 *tid,
				      uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
void CUDARTAPI __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
				 const char *deviceName, int ext, size_t size, int constant,
				 int global);
void CUDARTAPI __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
					char *deviceAddress, const char *deviceName, int ext,
					size_t size, int constant, int global);
unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
					       struct CUstream_st *stream);
cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
						 void *stream);
cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
					 void **args, size_t sharedMem, cudaStream_t stream);
cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
					      void **args, size_t sharedMem, cudaStream_t stream);

/* device.c: the device the calling thread's runtime calls act on (its context made current). */
cudaError_t rt_current_device(const struct rt_driver *d, int *dev);

/* copy.c: a cudaMemcpy of the given kind, on stream when async. */
cudaError_t rt_copy(const struct rt_driver *d, void *dst, const void *src, size_t count,
		    enum cudaMemcpyKind kind, cudaStream_t stream, int async);

/* registry.c: the kernels and variables nvcc's generated code registers, each found in its
 * fatbin's module on the current device (loaded at first use there). */
struct rt_entity;
/* A kernel by host stub (or by the cudaKernel_t __cudaGetKernel gave); NULL if unknown. */
struct rt_entity *rt_kernel_find(const void *func);
/* A __device__ / __constant__ / __managed__ variable by its host shadow; NULL if unknown. */
struct rt_entity *rt_var_find(const void *symbol);
const char *rt_entity_name(const struct rt_entity *e);
cudaError_t rt_kernel_function(const struct rt_driver *d, struct rt_entity *k, CUfunction *f,
			       int *dev);
cudaError_t rt_var_address(const struct rt_driver *d, struct rt_entity *v, CUdeviceptr *addr,
			   size_t *bytes);
/* A cudaFuncSetAttribute value, reapplied wherever the kernel is loaded later. */
void rt_kernel_remember(struct rt_entity *k, CUfunction_attribute attr, int value);
/* cudaDeviceReset: the device's modules are gone; load again at next use. */
void rt_modules_forget(int dev);

/* ------------------------------------------------------------ every export
 * RT_ENTER logs the call (RT_ARG its key arguments); RT_CHECK applies fault rules and links
 * the driver, RT_CHECK_CONTEXT also makes a context current; RT_RETURN records a failure as
 * the thread's last error and closes the call.  d is the driver table for the entry point's
 * default stream (RT_ENTER_PT for _ptsz/_ptds). */
#define RT_ENTER_AS(api, per_thread) \
	sim_call call_; \
	const struct rt_driver *d __attribute__((unused)) = NULL; \
	const int pt_ __attribute__((unused)) = (per_thread); \
	sim_call_begin(&call_, SIM_FAM_RT, api)
#define RT_ENTER(api) RT_ENTER_AS(api, 0)
#define RT_ENTER_PT(api) RT_ENTER_AS(api, 1)
#define RT_ARG(...) sim_call_arg(&call_, __VA_ARGS__)
#define RT_RETURN(err) \
	do { \
		cudaError_t e_ = (err); \
		rt_record_error(e_); \
		return (cudaError_t)sim_call_end(&call_, (int)e_); \
	} while (0)
#define RT_TRY(expr) \
	do { \
		cudaError_t t_ = (expr); \
		if (t_ != cudaSuccess) \
			RT_RETURN(t_); \
	} while (0)
/* A driver call: its status as a runtime error. */
#define RT_DRV(expr) rt_status(expr)
#define RT_CHECK() \
	do { \
		int f_; \
		if (sim_call_fault(&call_, &f_)) \
			RT_RETURN((cudaError_t)f_); \
		RT_TRY(rt_init()); \
		d = rt_drv(pt_); \
	} while (0)
#define RT_CHECK_CONTEXT() \
	do { \
		RT_CHECK(); \
		RT_TRY(rt_context()); \
	} while (0)

#define RT_PTR(p) ((unsigned long long)(uintptr_t)(p))

#endif
