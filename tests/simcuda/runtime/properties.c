/* cudaGetDeviceProperties: no driver call maps to it, so the struct is filled from
 * cuDeviceGetName, cuDeviceTotalMem, cuDeviceGetUuid and one cuDeviceGetAttribute per field,
 * driven by a field -> attribute table.
 *
 * Two layouts: CUDA 13's struct cudaDeviceProp, and the CUDA 11/12 one (clockRate, computeMode
 * ... still present) that programs built against CUDA 12 headers reach as
 * cudaGetDeviceProperties_v2 in libcudart.so.12.  Only the 12 layout's fields up to
 * reservedSharedMemPerBlock are written (their order is stable since CUDA 11), never past them. */
#include <stddef.h>
#include <string.h>

#include "runtime_internal.h"

struct prop12 {
	char name[256];
	cudaUUID_t uuid;
	char luid[8];
	unsigned int luidDeviceNodeMask;
	size_t totalGlobalMem, sharedMemPerBlock;
	int regsPerBlock, warpSize;
	size_t memPitch;
	int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
	size_t totalConstMem;
	int major, minor;
	size_t textureAlignment, texturePitchAlignment;
	int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated;
	int canMapHostMemory, computeMode, maxTexture1D, maxTexture1DMipmap, maxTexture1DLinear;
	int maxTexture2D[2], maxTexture2DMipmap[2], maxTexture2DLinear[3], maxTexture2DGather[2];
	int maxTexture3D[3], maxTexture3DAlt[3], maxTextureCubemap, maxTexture1DLayered[2];
	int maxTexture2DLayered[3], maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2];
	int maxSurface3D[3], maxSurface1DLayered[2], maxSurface2DLayered[3], maxSurfaceCubemap;
	int maxSurfaceCubemapLayered[2];
	size_t surfaceAlignment;
	int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver;
	int asyncEngineCount, unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize;
	int persistingL2CacheMaxSize, maxThreadsPerMultiProcessor, streamPrioritiesSupported;
	int globalL1CacheSupported, localL1CacheSupported;
	size_t sharedMemPerMultiprocessor;
	int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID;
	int hostNativeAtomicSupported, singleToDoublePrecisionPerfRatio, pageableMemoryAccess;
	int concurrentManagedAccess, computePreemptionSupported;
	int canUseHostPointerForRegisteredMem, cooperativeLaunch, cooperativeMultiDeviceLaunch;
	size_t sharedMemPerBlockOptin;
	int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost;
	int maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize;
	size_t reservedSharedMemPerBlock;
};

struct field {
	size_t offset;
	unsigned size;             /* sizeof(int) or sizeof(size_t) */
	CUdevice_attribute attr;
};

#define A(x) CU_DEVICE_ATTRIBUTE_##x
#define F(type, field, attr) {offsetof(type, field), sizeof(((type *)0)->field), A(attr)},
/* Fields both layouts share, by name. */
#define COMMON_FIELDS(T) \
	F(T, sharedMemPerBlock, MAX_SHARED_MEMORY_PER_BLOCK) \
	F(T, regsPerBlock, MAX_REGISTERS_PER_BLOCK) \
	F(T, warpSize, WARP_SIZE) \
	F(T, memPitch, MAX_PITCH) \
	F(T, maxThreadsPerBlock, MAX_THREADS_PER_BLOCK) \
	F(T, maxThreadsDim[0], MAX_BLOCK_DIM_X) \
	F(T, maxThreadsDim[1], MAX_BLOCK_DIM_Y) \
	F(T, maxThreadsDim[2], MAX_BLOCK_DIM_Z) \
	F(T, maxGridSize[0], MAX_GRID_DIM_X) \
	F(T, maxGridSize[1], MAX_GRID_DIM_Y) \
	F(T, maxGridSize[2], MAX_GRID_DIM_Z) \
	F(T, totalConstMem, TOTAL_CONSTANT_MEMORY) \
	F(T, major, COMPUTE_CAPABILITY_MAJOR) \
	F(T, minor, COMPUTE_CAPABILITY_MINOR) \
	F(T, textureAlignment, TEXTURE_ALIGNMENT) \
	F(T, texturePitchAlignment, TEXTURE_PITCH_ALIGNMENT) \
	F(T, multiProcessorCount, MULTIPROCESSOR_COUNT) \
	F(T, integrated, INTEGRATED) \
	F(T, canMapHostMemory, CAN_MAP_HOST_MEMORY) \
	F(T, maxTexture1D, MAXIMUM_TEXTURE1D_WIDTH) \
	F(T, maxTexture2D[0], MAXIMUM_TEXTURE2D_WIDTH) \
	F(T, maxTexture2D[1], MAXIMUM_TEXTURE2D_HEIGHT) \
	F(T, maxTexture3D[0], MAXIMUM_TEXTURE3D_WIDTH) \
	F(T, maxTexture3D[1], MAXIMUM_TEXTURE3D_HEIGHT) \
	F(T, maxTexture3D[2], MAXIMUM_TEXTURE3D_DEPTH) \
	F(T, surfaceAlignment, SURFACE_ALIGNMENT) \
	F(T, concurrentKernels, CONCURRENT_KERNELS) \
	F(T, ECCEnabled, ECC_ENABLED) \
	F(T, pciBusID, PCI_BUS_ID) \
	F(T, pciDeviceID, PCI_DEVICE_ID) \
	F(T, pciDomainID, PCI_DOMAIN_ID) \
	F(T, tccDriver, TCC_DRIVER) \
	F(T, asyncEngineCount, ASYNC_ENGINE_COUNT) \
	F(T, unifiedAddressing, UNIFIED_ADDRESSING) \
	F(T, memoryBusWidth, GLOBAL_MEMORY_BUS_WIDTH) \
	F(T, l2CacheSize, L2_CACHE_SIZE) \
	F(T, persistingL2CacheMaxSize, MAX_PERSISTING_L2_CACHE_SIZE) \
	F(T, maxThreadsPerMultiProcessor, MAX_THREADS_PER_MULTIPROCESSOR) \
	F(T, streamPrioritiesSupported, STREAM_PRIORITIES_SUPPORTED) \
	F(T, globalL1CacheSupported, GLOBAL_L1_CACHE_SUPPORTED) \
	F(T, localL1CacheSupported, LOCAL_L1_CACHE_SUPPORTED) \
	F(T, sharedMemPerMultiprocessor, MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) \
	F(T, regsPerMultiprocessor, MAX_REGISTERS_PER_MULTIPROCESSOR) \
	F(T, managedMemory, MANAGED_MEMORY) \
	F(T, isMultiGpuBoard, MULTI_GPU_BOARD) \
	F(T, multiGpuBoardGroupID, MULTI_GPU_BOARD_GROUP_ID) \
	F(T, hostNativeAtomicSupported, HOST_NATIVE_ATOMIC_SUPPORTED) \
	F(T, pageableMemoryAccess, PAGEABLE_MEMORY_ACCESS) \
	F(T, concurrentManagedAccess, CONCURRENT_MANAGED_ACCESS) \
	F(T, computePreemptionSupported, COMPUTE_PREEMPTION_SUPPORTED) \
	F(T, canUseHostPointerForRegisteredMem, CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM) \
	F(T, cooperativeLaunch, COOPERATIVE_LAUNCH) \
	F(T, sharedMemPerBlockOptin, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) \
	F(T, pageableMemoryAccessUsesHostPageTables, PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES) \
	F(T, directManagedMemAccessFromHost, DIRECT_MANAGED_MEM_ACCESS_FROM_HOST) \
	F(T, maxBlocksPerMultiProcessor, MAX_BLOCKS_PER_MULTIPROCESSOR) \
	F(T, accessPolicyMaxWindowSize, MAX_ACCESS_POLICY_WINDOW_SIZE) \
	F(T, reservedSharedMemPerBlock, RESERVED_SHARED_MEMORY_PER_BLOCK)

static const struct field fields13[] = {
	COMMON_FIELDS(struct cudaDeviceProp)
	F(struct cudaDeviceProp, hostRegisterSupported, HOST_REGISTER_SUPPORTED)
	F(struct cudaDeviceProp, memoryPoolsSupported, MEMORY_POOLS_SUPPORTED)
	F(struct cudaDeviceProp, memoryPoolSupportedHandleTypes, MEMPOOL_SUPPORTED_HANDLE_TYPES)
	F(struct cudaDeviceProp, clusterLaunch, CLUSTER_LAUNCH)
	F(struct cudaDeviceProp, unifiedFunctionPointers, UNIFIED_FUNCTION_POINTERS)
	F(struct cudaDeviceProp, deviceNumaId, NUMA_ID)
	F(struct cudaDeviceProp, hostNumaId, HOST_NUMA_ID)
};

static const struct field fields12[] = {
	COMMON_FIELDS(struct prop12)
	F(struct prop12, clockRate, CLOCK_RATE)
	F(struct prop12, memoryClockRate, MEMORY_CLOCK_RATE)
	F(struct prop12, deviceOverlap, GPU_OVERLAP)
	F(struct prop12, kernelExecTimeoutEnabled, KERNEL_EXEC_TIMEOUT)
	F(struct prop12, computeMode, COMPUTE_MODE)
	F(struct prop12, maxTexture1DLinear, MAXIMUM_TEXTURE1D_LINEAR_WIDTH)
	F(struct prop12, singleToDoublePrecisionPerfRatio, SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO)
	F(struct prop12, cooperativeMultiDeviceLaunch, COOPERATIVE_MULTI_DEVICE_LAUNCH)
};

#undef F
#undef A

/* name, uuid and totalGlobalMem sit at the same offsets in both layouts. */
_Static_assert(offsetof(struct prop12, totalGlobalMem) ==
	       offsetof(struct cudaDeviceProp, totalGlobalMem), "layout prefix");

static cudaError_t fill(const struct rt_driver *d, void *prop, size_t size,
			const struct field *fields, size_t nfields, int dev)
{
	struct cudaDeviceProp *p = prop; /* only the shared prefix is written through p */
	size_t total = 0;
	CUresult st;

	memset(prop, 0, size);
	st = d->cuDeviceGetName(p->name, sizeof p->name, dev);
	if (st == CUDA_SUCCESS)
		st = d->cuDeviceTotalMem(&total, dev);
	if (st == CUDA_SUCCESS)
		st = d->cuDeviceGetUuid((CUuuid *)&p->uuid, dev);
	p->totalGlobalMem = total;
	for (size_t i = 0; i < nfields && st == CUDA_SUCCESS; i++) {
		int v = 0;
		st = d->cuDeviceGetAttribute(&v, fields[i].attr, dev);
		if (fields[i].size == sizeof(size_t))
			*(size_t *)((char *)prop + fields[i].offset) = (size_t)(unsigned)v;
		else
			*(int *)((char *)prop + fields[i].offset) = v;
	}
	return rt_status(st);
}

static cudaError_t properties(sim_call *c, const struct rt_driver *d, void *prop, int dev,
			      int layout12)
{
	sim_call_arg(c, "dev", "%d", dev);
	if (!prop)
		return cudaErrorInvalidValue;
	if (layout12)
		return fill(d, prop, sizeof(struct prop12), fields12,
			    sizeof fields12 / sizeof fields12[0], dev);
	return fill(d, prop, sizeof(struct cudaDeviceProp), fields13,
		    sizeof fields13 / sizeof fields13[0], dev);
}

/* The unversioned name takes the layout of the headers this tree builds against (CUDA 13),
 * also in the .12 build, so test programs run on both stacks. */
cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	RT_ENTER("cudaGetDeviceProperties");
	RT_CHECK();
	RT_RETURN(properties(&call_, d, prop, device, 0));
}

#if SIMCUDA_SOVERSION == 12
cudaError_t CUDARTAPI cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device);

cudaError_t CUDARTAPI cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device)
{
	RT_ENTER("cudaGetDeviceProperties_v2");
	RT_CHECK();
	RT_RETURN(properties(&call_, d, prop, device, 1));
}
#endif
