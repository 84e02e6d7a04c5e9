/* The CUDA 12 forms in ../../v12/cuda12_abi.h against the numbers measured with the CUDA 12.6
 * headers (nvidia-cuda-runtime-cu12 12.6.77) and with the CUDA 13 headers this tree builds
 * with: sizes, the offsets of fields both versions share, and where they part. */
#include <stddef.h>

#include "check.h"
#include "cuda12_abi.h"

struct offset {
	const char *field;
	size_t got, want;
};

#define P12(field, want) {#field, offsetof(struct cuda12_device_prop, field), want}

/* offsetof(struct cudaDeviceProp, field) compiled against the CUDA 12.6 headers. */
static const struct offset measured12[] = {
	P12(name, 0), P12(uuid, 256), P12(luid, 272), P12(totalGlobalMem, 288),
	P12(sharedMemPerBlock, 296), P12(regsPerBlock, 304), P12(warpSize, 308),
	P12(memPitch, 312), P12(maxThreadsPerBlock, 320), P12(clockRate, 348),
	P12(totalConstMem, 352), P12(major, 360), P12(minor, 364), P12(textureAlignment, 368),
	P12(multiProcessorCount, 388), P12(integrated, 396), P12(canMapHostMemory, 400),
	P12(computeMode, 404), P12(maxTexture1D, 408), P12(surfaceAlignment, 568),
	P12(concurrentKernels, 576), P12(ECCEnabled, 580), P12(pciBusID, 584),
	P12(pciDeviceID, 588), P12(pciDomainID, 592), P12(asyncEngineCount, 600),
	P12(unifiedAddressing, 604), P12(memoryClockRate, 608), P12(memoryBusWidth, 612),
	P12(l2CacheSize, 616), P12(persistingL2CacheMaxSize, 620),
	P12(maxThreadsPerMultiProcessor, 624), P12(streamPrioritiesSupported, 628),
	P12(sharedMemPerMultiprocessor, 640), P12(regsPerMultiprocessor, 648),
	P12(managedMemory, 652), P12(isMultiGpuBoard, 656), P12(multiGpuBoardGroupID, 660),
	P12(hostNativeAtomicSupported, 664), P12(pageableMemoryAccess, 672),
	P12(concurrentManagedAccess, 676), P12(computePreemptionSupported, 680),
	P12(canUseHostPointerForRegisteredMem, 684), P12(cooperativeLaunch, 688),
	P12(sharedMemPerBlockOptin, 696), P12(pageableMemoryAccessUsesHostPageTables, 704),
	P12(directManagedMemAccessFromHost, 708), P12(maxBlocksPerMultiProcessor, 712),
	P12(accessPolicyMaxWindowSize, 716), P12(reservedSharedMemPerBlock, 720),
	P12(hostRegisterSupported, 728), P12(sparseCudaArraySupported, 732),
	P12(hostRegisterReadOnlySupported, 736), P12(timelineSemaphoreInteropSupported, 740),
	P12(memoryPoolsSupported, 744), P12(gpuDirectRDMASupported, 748),
	P12(gpuDirectRDMAFlushWritesOptions, 752), P12(gpuDirectRDMAWritesOrdering, 756),
	P12(memoryPoolSupportedHandleTypes, 760), P12(deferredMappingCudaArraySupported, 764),
	P12(ipcEventSupported, 768), P12(clusterLaunch, 772), P12(unifiedFunctionPointers, 776),
	P12(reserved2, 780), P12(reserved1, 788), P12(reserved, 792),
};

/* Fields both versions have: the same offset up to textureAlignment, another one after
 * (CUDA 13 dropped fields in between). */
#define BOTH(field, same) \
	{#field, offsetof(struct cuda12_device_prop, field) == offsetof(struct cudaDeviceProp, field), same}
static const struct offset shared[] = {
	BOTH(name, 1), BOTH(uuid, 1), BOTH(luid, 1), BOTH(luidDeviceNodeMask, 1),
	BOTH(totalGlobalMem, 1), BOTH(sharedMemPerBlock, 1), BOTH(warpSize, 1),
	BOTH(maxGridSize, 1), BOTH(major, 1), BOTH(minor, 1), BOTH(textureAlignment, 1),
	BOTH(multiProcessorCount, 0), BOTH(l2CacheSize, 0), BOTH(reservedSharedMemPerBlock, 0),
	BOTH(unifiedFunctionPointers, 0),
};

int main(void)
{
	for (size_t i = 0; i < sizeof measured12 / sizeof measured12[0]; i++)
		CHECK_INT(measured12[i].field, measured12[i].got, measured12[i].want);
	for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
		CHECK_INT(shared[i].field, shared[i].got, shared[i].want);
	CHECK_INT("sizeof CUDA 12 cudaDeviceProp", sizeof(struct cuda12_device_prop), 1032);
	CHECK_INT("CUDA12_DEVICE_PROP_SIZE", CUDA12_DEVICE_PROP_SIZE, 1032);
	CHECK_INT("sizeof CUDA 13 cudaDeviceProp", sizeof(struct cudaDeviceProp), 1008);
	CHECK_INT("sizeof CUDA 12 cudaPointerAttributes", sizeof(struct cuda12_pointer_attributes),
		  CUDA12_POINTER_ATTRIBUTES_SIZE);
	CHECK_INT("CUDA12_POINTER_ATTRIBUTES_SIZE", CUDA12_POINTER_ATTRIBUTES_SIZE, 24);
	CHECK_INT("CUDA 12 hostPointer", offsetof(struct cuda12_pointer_attributes, hostPointer), 16);
	CHECK_INT("CUDA 13 hostPointer", offsetof(struct cudaPointerAttributes, hostPointer), 16);
	CHECK_INT("sizeof CUDA 13 cudaPointerAttributes", sizeof(struct cudaPointerAttributes), 88);
	return check_report("cuda12_abi_test");
}
