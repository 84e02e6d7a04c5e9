/* Device queries: count, name, memory, UUID and the cuDeviceGetAttribute values a real
 * program asks for, from the simulated device (SIMCUDA_ARCH) and a small table of per-
 * architecture hardware figures (public spec sheets of the part the core names by default). */
#include <stdio.h>
#include <string.h>

#include "driver_internal.h"

static const struct arch {
	int sm;
	int clock_khz, mem_clock_khz, bus_bits;
	int l2_bytes;
	int threads_per_sm, blocks_per_sm;
	int smem_per_sm, smem_optin;     /* bytes */
	int fp64_ratio;                  /* single- to double-precision throughput */
} arches[] = {
	{50, 1020000, 2700000, 128, 2 << 20, 2048, 32, 65536, 49152, 32},
	{52, 1114000, 3004000, 384, 3 << 20, 2048, 32, 98304, 49152, 32},
	{60, 1328500, 715000, 4096, 4 << 20, 2048, 32, 65536, 49152, 2},
	{61, 1733500, 5005000, 256, 2 << 20, 2048, 32, 98304, 49152, 32},
	{70, 1530000, 877000, 4096, 6 << 20, 2048, 32, 98304, 98304, 2},
	{72, 1377000, 1600000, 256, 512 << 10, 2048, 32, 98304, 98304, 32},
	{75, 1590000, 5001000, 256, 4 << 20, 1024, 16, 65536, 65536, 32},
	{80, 1410000, 1215000, 5120, 40 << 20, 2048, 32, 167936, 166912, 2},
	{86, 1695000, 9751000, 384, 6 << 20, 1536, 16, 102400, 101376, 64},
	{89, 2040000, 6251000, 192, 48 << 20, 1536, 24, 102400, 101376, 64},
	{90, 1980000, 2619000, 5120, 50 << 20, 2048, 32, 233472, 232448, 2},
	{100, 1965000, 3996000, 8192, 126 << 20, 2048, 32, 233472, 232448, 2},
	{120, 2407000, 14001000, 512, 96 << 20, 1536, 24, 102400, 101376, 64},
};

/* The newest table row not newer than sm (the oldest one for anything older). */
static const struct arch *arch_of(const sim_device *d)
{
	const struct arch *a = &arches[0];
	for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
		if (arches[i].sm <= d->sm)
			a = &arches[i];
	return a;
}

CUresult drv_check_device(CUdevice dev)
{
	return sim_device_get(dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/* Value of one attribute; 0 for the (texture, interop, ...) ones a simulator has no use for.
 * Returns 0 for an attribute number the header does not define. */
static int attribute(const sim_device *d, CUdevice_attribute attr, int *value)
{
	const struct arch *a = arch_of(d);
	int sm = d->sm;
	int v = 0;

	switch (attr) {
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: v = 64; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: v = 2147483647; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: v = 65535; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: v = 65535; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: v = 49152; break;
	case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: v = 65536; break;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = 32; break;
	case CU_DEVICE_ATTRIBUTE_MAX_PITCH: v = 2147483647; break;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: v = 65536; break;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = d->clock_khz ? d->clock_khz : a->clock_khz; break;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: v = 512; break;
	case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = d->sm_count; break;
	case CU_DEVICE_ATTRIBUTE_INTEGRATED: v = sm == 72; break;
	case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: v = 131072; break;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: v = 131072; break;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: v = 65536; break;
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT:
	case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: v = 16384; break;
	case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: v = 512; break;
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: v = 0x10 + d->ordinal; break;
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
		v = d->mem_clock_khz ? d->mem_clock_khz : a->mem_clock_khz;
		break;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: v = d->bus_bits ? d->bus_bits : a->bus_bits; break;
	case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: v = d->l2_bytes ? d->l2_bytes : a->l2_bytes; break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: v = a->threads_per_sm; break;
	case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: v = 2; break;
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: v = 32; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = d->major; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = d->minor; break;
	case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: v = a->smem_per_sm; break;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: v = 65536; break;
	case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: v = d->ordinal; break;
	case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: v = a->fp64_ratio; break;
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: v = a->smem_optin; break;
	case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: v = a->blocks_per_sm; break;
	case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE:
		v = sm >= 80 ? a->l2_bytes / 4 * 3 : 0;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: v = sm >= 80 ? 134213632 : 0; break;
	case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: v = sm >= 80 ? 1024 : 0; break;
	case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: v = sm >= 90; break;
	case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED: v = sm >= 90; break;
	case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: v = sm >= 90 ? 4 : 1; break;
	case CU_DEVICE_ATTRIBUTE_NUMA_ID: v = -1; break;
	case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: v = -1; break;
	default:
		if ((int)attr <= 0 || (int)attr >= (int)CU_DEVICE_ATTRIBUTE_MAX)
			return 0;
		break;
	}
	*value = v;
	return 1;
}

int drv_device_attribute(int dev, CUdevice_attribute attr)
{
	const sim_device *d = sim_device_get(dev);
	int v = 0;

	if (d)
		attribute(d, attr, &v);
	return v;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
	DRV_ENTER("cuDeviceGet");
	DRV_ARG("ordinal", "%d", ordinal);
	DRV_CHECK();
	if (!device)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_TRY(drv_check_device(ordinal));
	*device = ordinal;
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
	DRV_ENTER("cuDeviceGetCount");
	DRV_CHECK();
	if (!count)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*count = sim_device_count();
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
	DRV_ENTER("cuDeviceGetName");
	DRV_ARG("dev", "%d", dev);
	DRV_CHECK();
	DRV_TRY(drv_check_device(dev));
	if (!name || len <= 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	snprintf(name, (size_t)len, "%s", sim_device_get(dev)->name);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	DRV_ENTER("cuDeviceGetAttribute");
	DRV_ARG("attr", "%d", (int)attrib);
	DRV_ARG("dev", "%d", dev);
	DRV_CHECK();
	DRV_TRY(drv_check_device(dev));
	if (!pi || !attribute(sim_device_get(dev), attrib, pi))
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	DRV_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
	DRV_ENTER("cuDeviceComputeCapability");
	DRV_ARG("dev", "%d", dev);
	DRV_CHECK();
	DRV_TRY(drv_check_device(dev));
	if (!major || !minor)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	*major = sim_device_get(dev)->major;
	*minor = sim_device_get(dev)->minor;
	DRV_RETURN(CUDA_SUCCESS);
}

static CUresult total_mem(sim_call *c, size_t *bytes, CUdevice dev)
{
	CUresult st;

	sim_call_arg(c, "dev", "%d", dev);
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	if (drv_check_device(dev) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!bytes)
		return CUDA_ERROR_INVALID_VALUE;
	*bytes = sim_device_get(dev)->mem_bytes;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	DRV_ENTER("cuDeviceTotalMem_v2");
	DRV_RETURN(total_mem(&call_, bytes, dev));
}

/* The 32-bit form: sizes above 4 GiB do not fit, as with the real one. */
CUresult CUDAAPI cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
	size_t b = 0;
	CUresult st;

	DRV_ENTER("cuDeviceTotalMem");
	DRV_FAULT();
	st = total_mem(&call_, bytes ? &b : NULL, dev);
	if (st == CUDA_SUCCESS)
		*bytes = b > 0xffffffffu ? 0xffffffffu : (unsigned int)b;
	DRV_RETURN(st);
}

/* A stable UUID per simulated device: "SIMCUDA" then architecture and ordinal. */
static CUresult uuid(sim_call *c, CUuuid *out, CUdevice dev)
{
	const sim_device *d;
	CUresult st;

	sim_call_arg(c, "dev", "%d", dev);
	st = drv_check(c);
	if (st != CUDA_SUCCESS)
		return st;
	d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	memset(out, 0, sizeof *out);
	memcpy(out->bytes, "SIMCUDA", 7);
	out->bytes[8] = (char)d->sm;
	out->bytes[15] = (char)d->ordinal;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetUuid(CUuuid *id, CUdevice dev)
{
	DRV_ENTER("cuDeviceGetUuid");
	DRV_RETURN(uuid(&call_, id, dev));
}

CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *id, CUdevice dev)
{
	DRV_ENTER("cuDeviceGetUuid_v2");
	DRV_RETURN(uuid(&call_, id, dev));
}

CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
	DRV_ENTER("cuDeviceGetPCIBusId");
	DRV_ARG("dev", "%d", dev);
	DRV_CHECK();
	DRV_TRY(drv_check_device(dev));
	if (!pciBusId || len <= 0)
		DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
	snprintf(pciBusId, (size_t)len, "00000000:%02X:00.0", 0x10 + dev);
	DRV_RETURN(CUDA_SUCCESS);
}
