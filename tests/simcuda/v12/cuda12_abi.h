/* The CUDA 12 forms the .12 stack must accept where the CUDA 13 headers this tree builds with
 * say otherwise: what a program built against CUDA 12 (torch cu126) passes to
 * libcudart.so.12 and libcublasLt.so.12.  Transcribed from the CUDA 12.6 headers
 * (nvidia-cuda-runtime-cu12 12.6.77: driver_types.h, cuda_runtime_api.h; nvidia-cublas-cu12
 * 12.6.4.1: cublasLt.h), so the build needs no CUDA 12 toolkit.  Sizes and offsets measured
 * with those headers are checked by driver/tests/cuda12_abi_test.c.  The differences found
 * are listed in ../TORCH_CALLS.md. */
#ifndef SIMCUDA_CUDA12_ABI_H
#define SIMCUDA_CUDA12_ABI_H

#include <cuda_runtime_api.h>
#include <stddef.h>

/* CUDA 12's struct cudaDeviceProp, 1032 bytes (CUDA 13's is 1008): clockRate, computeMode,
 * memoryClockRate and others that CUDA 13 dropped sit in the middle, so every field from
 * multiProcessorCount on lies at another offset. */
struct cuda12_device_prop {
	char name[256];
	cudaUUID_t uuid;
	char luid[8];
	unsigned int luidDeviceNodeMask;
	size_t totalGlobalMem;
	size_t sharedMemPerBlock;
	int regsPerBlock;
	int warpSize;
	size_t memPitch;
	int maxThreadsPerBlock;
	int maxThreadsDim[3];
	int maxGridSize[3];
	int clockRate;
	size_t totalConstMem;
	int major;
	int minor;
	size_t textureAlignment;
	size_t texturePitchAlignment;
	int deviceOverlap;
	int multiProcessorCount;
	int kernelExecTimeoutEnabled;
	int integrated;
	int canMapHostMemory;
	int computeMode;
	int maxTexture1D;
	int maxTexture1DMipmap;
	int maxTexture1DLinear;
	int maxTexture2D[2];
	int maxTexture2DMipmap[2];
	int maxTexture2DLinear[3];
	int maxTexture2DGather[2];
	int maxTexture3D[3];
	int maxTexture3DAlt[3];
	int maxTextureCubemap;
	int maxTexture1DLayered[2];
	int maxTexture2DLayered[3];
	int maxTextureCubemapLayered[2];
	int maxSurface1D;
	int maxSurface2D[2];
	int maxSurface3D[3];
	int maxSurface1DLayered[2];
	int maxSurface2DLayered[3];
	int maxSurfaceCubemap;
	int maxSurfaceCubemapLayered[2];
	size_t surfaceAlignment;
	int concurrentKernels;
	int ECCEnabled;
	int pciBusID;
	int pciDeviceID;
	int pciDomainID;
	int tccDriver;
	int asyncEngineCount;
	int unifiedAddressing;
	int memoryClockRate;
	int memoryBusWidth;
	int l2CacheSize;
	int persistingL2CacheMaxSize;
	int maxThreadsPerMultiProcessor;
	int streamPrioritiesSupported;
	int globalL1CacheSupported;
	int localL1CacheSupported;
	size_t sharedMemPerMultiprocessor;
	int regsPerMultiprocessor;
	int managedMemory;
	int isMultiGpuBoard;
	int multiGpuBoardGroupID;
	int hostNativeAtomicSupported;
	int singleToDoublePrecisionPerfRatio;
	int pageableMemoryAccess;
	int concurrentManagedAccess;
	int computePreemptionSupported;
	int canUseHostPointerForRegisteredMem;
	int cooperativeLaunch;
	int cooperativeMultiDeviceLaunch;
	size_t sharedMemPerBlockOptin;
	int pageableMemoryAccessUsesHostPageTables;
	int directManagedMemAccessFromHost;
	int maxBlocksPerMultiProcessor;
	int accessPolicyMaxWindowSize;
	size_t reservedSharedMemPerBlock;
	int hostRegisterSupported;
	int sparseCudaArraySupported;
	int hostRegisterReadOnlySupported;
	int timelineSemaphoreInteropSupported;
	int memoryPoolsSupported;
	int gpuDirectRDMASupported;
	unsigned int gpuDirectRDMAFlushWritesOptions;
	int gpuDirectRDMAWritesOrdering;
	unsigned int memoryPoolSupportedHandleTypes;
	int deferredMappingCudaArraySupported;
	int ipcEventSupported;
	int clusterLaunch;
	int unifiedFunctionPointers;
	int reserved2[2];
	int reserved1[1];
	int reserved[60];
};

#define CUDA12_DEVICE_PROP_SIZE 1032

/* CUDA 12's struct cudaPointerAttributes, 24 bytes: CUDA 13 appends long reserved[8] (88). */
struct cuda12_pointer_attributes {
	enum cudaMemoryType type;
	int device;
	void *devicePointer;
	void *hostPointer;
};

#define CUDA12_POINTER_ATTRIBUTES_SIZE 24

/* Runtime entry points libcudart.so.12 exports in a form the CUDA 13 header lacks (CUDA 12's
 * cuda_runtime_api.h maps cudaGetDeviceProperties to _v2 and cudaStreamGetCaptureInfo to
 * _v2; the unversioned capture-info name is the CUDA 11.3 two-output form). */
cudaError_t CUDARTAPI cudaGetDeviceProperties_v2(struct cuda12_device_prop *prop, int device);
cudaError_t CUDARTAPI cudaStreamGetCaptureInfo_v2(cudaStream_t stream,
						  enum cudaStreamCaptureStatus *status,
						  unsigned long long *id, cudaGraph_t *graph,
						  const cudaGraphNode_t **deps, size_t *ndeps);
cudaError_t CUDARTAPI cudaStreamGetCaptureInfo_v2_ptsz(cudaStream_t stream,
						       enum cudaStreamCaptureStatus *status,
						       unsigned long long *id, cudaGraph_t *graph,
						       const cudaGraphNode_t **deps, size_t *ndeps);
cudaError_t CUDARTAPI cudaStreamGetCaptureInfo_v3(cudaStream_t stream,
						  enum cudaStreamCaptureStatus *status,
						  unsigned long long *id, cudaGraph_t *graph,
						  const cudaGraphNode_t **deps,
						  const cudaGraphEdgeData **edges, size_t *ndeps);
cudaError_t CUDARTAPI cudaStreamGetCaptureInfo_v3_ptsz(cudaStream_t stream,
						       enum cudaStreamCaptureStatus *status,
						       unsigned long long *id, cudaGraph_t *graph,
						       const cudaGraphNode_t **deps,
						       const cudaGraphEdgeData **edges,
						       size_t *ndeps);

/* cuBLASLt 12 matmul descriptor attributes that cuBLASLt 13 removed (cublasLt.h 12.6:
 * CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_*): int32 chunk counts and device pointers. */
#define CUDA12_LT_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_ROWS 27
#define CUDA12_LT_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_COLS 28
#define CUDA12_LT_DESC_ATOMIC_SYNC_IN_COUNTERS_POINTER 29
#define CUDA12_LT_DESC_ATOMIC_SYNC_OUT_COUNTERS_POINTER 30

#endif
