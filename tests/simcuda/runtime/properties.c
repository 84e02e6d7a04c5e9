/* cudaGetDeviceProperties: no driver call maps to it, so the struct is filled from
 * cuDeviceGetName, cuDeviceTotalMem, cuDeviceGetUuid and one cuDeviceGetAttribute per field,
 * driven by a field -> attribute table.
 *
 * Two layouts: CUDA 13's struct cudaDeviceProp, and CUDA 12's (clockRate, computeMode ...
 * still in the middle; ../v12/cuda12_abi.h) that programs built against CUDA 12 headers reach
 * as cudaGetDeviceProperties_v2 in libcudart.so.12.  Each call clears and fills exactly the
 * layout's size, never past it. */
#include <stddef.h>
#include <string.h>

#include "runtime_internal.h"
#include "cuda12_abi.h"

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
	F(T, reservedSharedMemPerBlock, RESERVED_SHARED_MEMORY_PER_BLOCK) \
	F(T, hostRegisterSupported, HOST_REGISTER_SUPPORTED) \
	F(T, sparseCudaArraySupported, SPARSE_CUDA_ARRAY_SUPPORTED) \
	F(T, hostRegisterReadOnlySupported, READ_ONLY_HOST_REGISTER_SUPPORTED) \
	F(T, timelineSemaphoreInteropSupported, TIMELINE_SEMAPHORE_INTEROP_SUPPORTED) \
	F(T, memoryPoolsSupported, MEMORY_POOLS_SUPPORTED) \
	F(T, gpuDirectRDMASupported, GPU_DIRECT_RDMA_SUPPORTED) \
	F(T, gpuDirectRDMAFlushWritesOptions, GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS) \
	F(T, gpuDirectRDMAWritesOrdering, GPU_DIRECT_RDMA_WRITES_ORDERING) \
	F(T, memoryPoolSupportedHandleTypes, MEMPOOL_SUPPORTED_HANDLE_TYPES) \
	F(T, deferredMappingCudaArraySupported, DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED) \
	F(T, ipcEventSupported, IPC_EVENT_SUPPORTED) \
	F(T, clusterLaunch, CLUSTER_LAUNCH) \
	F(T, unifiedFunctionPointers, UNIFIED_FUNCTION_POINTERS)

static const struct field fields13[] = {
	COMMON_FIELDS(struct cudaDeviceProp)
	F(struct cudaDeviceProp, deviceNumaConfig, NUMA_CONFIG)
	F(struct cudaDeviceProp, deviceNumaId, NUMA_ID)
	F(struct cudaDeviceProp, mpsEnabled, MPS_ENABLED)
	F(struct cudaDeviceProp, hostNumaId, HOST_NUMA_ID)
	F(struct cudaDeviceProp, gpuPciDeviceID, GPU_PCI_DEVICE_ID)
	F(struct cudaDeviceProp, gpuPciSubsystemID, GPU_PCI_SUBSYSTEM_ID)
	F(struct cudaDeviceProp, hostNumaMultinodeIpcSupported, HOST_NUMA_MULTINODE_IPC_SUPPORTED)
};

static const struct field fields12[] = {
	COMMON_FIELDS(struct cuda12_device_prop)
	F(struct cuda12_device_prop, clockRate, CLOCK_RATE)
	F(struct cuda12_device_prop, memoryClockRate, MEMORY_CLOCK_RATE)
	F(struct cuda12_device_prop, deviceOverlap, GPU_OVERLAP)
	F(struct cuda12_device_prop, kernelExecTimeoutEnabled, KERNEL_EXEC_TIMEOUT)
	F(struct cuda12_device_prop, computeMode, COMPUTE_MODE)
	F(struct cuda12_device_prop, maxTexture1DLinear, MAXIMUM_TEXTURE1D_LINEAR_WIDTH)
	F(struct cuda12_device_prop, singleToDoublePrecisionPerfRatio, SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO)
	F(struct cuda12_device_prop, cooperativeMultiDeviceLaunch, COOPERATIVE_MULTI_DEVICE_LAUNCH)
};

#undef F
#undef A

/* name, uuid and totalGlobalMem sit at the same offsets in both layouts. */
_Static_assert(offsetof(struct cuda12_device_prop, totalGlobalMem) ==
	       offsetof(struct cudaDeviceProp, totalGlobalMem), "layout prefix");
_Static_assert(sizeof(struct cuda12_device_prop) == CUDA12_DEVICE_PROP_SIZE, "CUDA 12 size");

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
		return fill(d, prop, sizeof(struct cuda12_device_prop), fields12,
			    sizeof fields12 / sizeof fields12[0], dev);
	return fill(d, prop, sizeof(struct cudaDeviceProp), fields13,
		    sizeof fields13 / sizeof fields13[0], dev);
}

/* The unversioned name takes the layout of the headers this tree builds against (CUDA 13),
 * also in the .12 build, so this tree's test programs run on both stacks.  (The real
 * libcudart.so.12 serves CUDA 11 programs there; CUDA 12 headers map the name to _v2.) */
cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	RT_ENTER("cudaGetDeviceProperties");
	RT_CHECK();
	RT_RETURN(properties(&call_, d, prop, device, 0));
}

#if SIMCUDA_SOVERSION == 12
cudaError_t CUDARTAPI cudaGetDeviceProperties_v2(struct cuda12_device_prop *prop, int device)
{
	RT_ENTER("cudaGetDeviceProperties_v2");
	RT_CHECK();
	RT_RETURN(properties(&call_, d, prop, device, 1));
}
#endif
