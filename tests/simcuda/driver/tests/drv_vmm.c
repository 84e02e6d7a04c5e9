/* Virtual memory management the way PyTorch's expandable segments use it (c10/cuda/
 * CUDACachingAllocator.cpp, ExpandableSegment): reserve a range, map 2 MiB allocations side by
 * side, one cuMemSetAccess over them, copies across the seam, unmap, release, free; with the
 * driver docs' refusals, the memory accounting and POSIX descriptor export and import.
 * SIMCUDA_ARCH=sm_75,sm_61, SIMCUDA_MEM_MB=64. */
#include <cuda.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"

#define OK(call) CHECK_INT(#call, (call), CUDA_SUCCESS)
#define MiB (1u << 20)

static CUmemAllocationProp device_prop(int dev)
{
	CUmemAllocationProp p = {0};

	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = dev;
	p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	return p;
}

static CUmemAccessDesc read_write(int dev)
{
	CUmemAccessDesc d = {{CU_MEM_LOCATION_TYPE_DEVICE, dev}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
	return d;
}

static void refusals(void)
{
	CUmemAllocationProp prop = device_prop(0), bad = prop;
	CUmemGenericAllocationHandle h;
	CUdeviceptr va;
	size_t g = 0;

	OK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
	CHECK_INT("granularity", g, 2 * MiB);
	bad.location.id = 7;
	CHECK_INT("granularity on device 7",
		  cuMemGetAllocationGranularity(&g, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
		  CUDA_ERROR_INVALID_DEVICE);
	bad = prop;
	bad.type = CU_MEM_ALLOCATION_TYPE_INVALID;
	CHECK_INT("cuMemCreate of an invalid type", cuMemCreate(&h, 2 * MiB, &bad, 0),
		  CUDA_ERROR_INVALID_VALUE);
	CHECK_INT("cuMemCreate of 1 MiB", cuMemCreate(&h, MiB, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK_INT("cuMemCreate with flags", cuMemCreate(&h, 2 * MiB, &prop, 1),
		  CUDA_ERROR_INVALID_VALUE);
	bad = prop;
	bad.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
	CHECK_INT("fabric handle", cuMemCreate(&h, 2 * MiB, &bad, 0), CUDA_ERROR_NOT_SUPPORTED);
	CHECK_INT("cuMemCreate past the device's memory", cuMemCreate(&h, 66 * MiB, &prop, 0),
		  CUDA_ERROR_OUT_OF_MEMORY);
	CHECK_INT("reserve 3 MiB", cuMemAddressReserve(&va, 3 * MiB, 0, 0, 0),
		  CUDA_ERROR_INVALID_VALUE);
	CHECK_INT("release an unknown handle", cuMemRelease(12345), CUDA_ERROR_INVALID_VALUE);
}

int main(void)
{
	CUmemAllocationProp prop = device_prop(0), got;
	CUmemAccessDesc rw = read_write(0);
	CUmemGenericAllocationHandle h[3], retained, imported;
	size_t free0, free1, total, seg = 2 * MiB;
	uint32_t in[1024], out[1024];
	CUdeviceptr va = 0, base = 0;
	CUcontext ctx;
	size_t size = 0;
	int fd = -1;

	OK(cuInit(0));
	OK(cuDevicePrimaryCtxRetain(&ctx, 0));
	OK(cuCtxSetCurrent(ctx));
	refusals();
	for (int i = 0; i < 1024; i++)
		in[i] = 0x1000u + (uint32_t)i;

	/* The segment: address space for 8 allocations, two of them mapped. */
	OK(cuMemGetInfo(&free0, &total));
	OK(cuMemAddressReserve(&va, 8 * seg, 0, 0, 0));
	CHECK(va % seg == 0, "reservation at 0x%llx", (unsigned long long)va);
	OK(cuMemCreate(&h[0], seg, &prop, 0));
	OK(cuMemCreate(&h[1], seg, &prop, 0));
	OK(cuMemGetInfo(&free1, &total));
	CHECK_INT("device memory taken by two allocations", free0 - free1, 2 * seg);
	OK(cuMemMap(va, seg, 0, h[0], 0));
	OK(cuMemMap(va + seg, seg, 0, h[1], 0));
	CHECK_INT("map twice", cuMemMap(va, seg, 0, h[1], 0), CUDA_ERROR_INVALID_VALUE);
	CHECK_INT("map outside the reservation", cuMemMap(va + 8 * seg, seg, 0, h[1], 0),
		  CUDA_ERROR_INVALID_VALUE);
	CHECK_INT("map at an offset", cuMemMap(va + 2 * seg, seg, seg / 2, h[1], 0),
		  CUDA_ERROR_INVALID_VALUE);

	/* Mapped is not accessible: copies fail until cuMemSetAccess. */
	CHECK_INT("copy before cuMemSetAccess", cuMemcpyHtoD(va, in, sizeof in),
		  CUDA_ERROR_INVALID_VALUE);
	CHECK_INT("access over an unmapped part", cuMemSetAccess(va, 3 * seg, &rw, 1),
		  CUDA_ERROR_INVALID_VALUE);
	OK(cuMemSetAccess(va, 2 * seg, &rw, 1));

	/* A buffer straddling the two allocations, as a tensor in an expandable segment can. */
	OK(cuMemcpyHtoD(va + seg - 2048, in, sizeof in));
	OK(cuMemsetD32(va + seg - 8, 0xdeadbeef, 4));
	OK(cuMemcpyDtoH(out, va + seg - 2048, sizeof out));
	for (int i = 0; i < 1024; i++) {
		uint32_t want = i >= 510 && i < 514 ? 0xdeadbeefu : in[i];
		if (out[i] != want) {
			CHECK_INT("word across the seam", out[i], want);
			break;
		}
	}
	CHECK_INT("copy past the mapped part", cuMemcpyHtoD(va + 2 * seg - 16, in, 32),
		  CUDA_ERROR_INVALID_VALUE);
	OK(cuMemGetAddressRange(&base, &size, va + seg + 5));
	CHECK(base == va + seg && size == seg, "range 0x%llx+%zu", (unsigned long long)base, size);

	/* The handle behind an address, and its properties. */
	OK(cuMemRetainAllocationHandle(&retained, (void *)(uintptr_t)(va + seg + 100)));
	CHECK_INT("retained handle", retained, h[1]);
	OK(cuMemRelease(retained));
	OK(cuMemGetAllocationPropertiesFromHandle(&got, h[0]));
	CHECK_INT("properties: device", got.location.id, 0);
	CHECK_INT("properties: handle types", got.requestedHandleTypes,
		  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);

	/* A descriptor shares the bytes: the imported allocation, mapped elsewhere, shows them. */
	OK(cuMemExportToShareableHandle(&fd, h[0], CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	OK(cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd,
					  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	close(fd);
	OK(cuMemMap(va + 4 * seg, seg, 0, imported, 0));
	OK(cuMemSetAccess(va + 4 * seg, seg, &rw, 1));
	out[0] = 0;
	OK(cuMemcpyDtoH(out, va + 4 * seg + seg - 2048, 4));
	CHECK_INT("imported allocation shows the exporter's bytes", out[0], in[0]);
	CHECK_INT("fabric export", cuMemExportToShareableHandle(&fd, h[0],
		  CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_NOT_SUPPORTED);

	/* Teardown in PyTorch's order: unmap, release, free the range. */
	CHECK_INT("free a range still mapped", cuMemAddressFree(va, 8 * seg),
		  CUDA_ERROR_INVALID_VALUE);
	CHECK_INT("unmap half a mapping", cuMemUnmap(va, seg / 2), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemUnmap(va, 2 * seg));
	OK(cuMemUnmap(va + 4 * seg, seg));
	CHECK_INT("copy after unmap", cuMemcpyHtoD(va, in, 4), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemRelease(h[0]));
	OK(cuMemRelease(h[1]));
	OK(cuMemRelease(imported));
	CHECK_INT("release twice", cuMemRelease(h[0]), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemGetInfo(&free1, &total));
	CHECK_INT("device memory given back", free1, free0);

	/* Released while mapped: the memory lives until the unmap. */
	OK(cuMemCreate(&h[2], seg, &prop, 0));
	OK(cuMemMap(va, seg, 0, h[2], 0));
	OK(cuMemRelease(h[2]));
	OK(cuMemSetAccess(va, seg, &rw, 1));
	OK(cuMemcpyHtoD(va, in, sizeof in));
	OK(cuMemUnmap(va, seg));
	OK(cuMemAddressFree(va, 8 * seg));
	CHECK_INT("free twice", cuMemAddressFree(va, 8 * seg), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemGetInfo(&free1, &total));
	CHECK_INT("device memory after the released mapping", free1, free0);
	return check_report("drv_vmm");
}
