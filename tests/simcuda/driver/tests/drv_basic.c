/* The driver API used directly (linked against libcuda.so.1), SIMCUDA_ARCH=sm_75,sm_61:
 * cuInit first, versions and error names, devices, primary and created contexts, memory in
 * 1D and 2D with patterns, address ranges and pointer attributes, streams. */
#include <cuda.h>

#include "check.h"

#define OK(call) CHECK_INT(#call, (call), CUDA_SUCCESS)

static void check_before_init(void)
{
	const char *s = NULL;
	CUdevice dev;
	int v = 0;

	CHECK_INT("cuDeviceGet before cuInit", cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
	OK(cuDriverGetVersion(&v));
	CHECK_INT("driver version", v, 13000);
	OK(cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &s));
	CHECK_STR("error name", s, "CUDA_ERROR_OUT_OF_MEMORY");
	OK(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s));
	CHECK_STR("error string", s, "out of memory");
	CHECK_INT("name of a non-status", cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
	OK(cuInit(0));
}

static void check_devices(void)
{
	char name[64];
	int n = 0, major = 0, minor = 0, v = 0;
	size_t mem = 0;
	CUdevice dev = -1;

	OK(cuDeviceGetCount(&n));
	CHECK_INT("device count", n, 2);
	OK(cuDeviceGet(&dev, 1));
	CHECK_INT("device 1", dev, 1);
	CHECK_INT("device 2", cuDeviceGet(&dev, 2), CUDA_ERROR_INVALID_DEVICE);
	OK(cuDeviceGetName(name, sizeof name, 0));
	CHECK_STR("name of device 0", name, "Tesla T4");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	OK(cuDeviceComputeCapability(&major, &minor, 1));
#pragma GCC diagnostic pop
	CHECK(major == 6 && minor == 1, "capability of device 1: %d.%d", major, minor);
	OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
	CHECK_INT("T4 SMs", v, 40);
	OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1));
	CHECK_INT("warp size", v, 32);
	CHECK_INT("attribute out of range", cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0),
		  CUDA_ERROR_INVALID_VALUE);
	OK(cuDeviceTotalMem(&mem, 0));
	CHECK_INT("total memory", mem, 1024u << 20);
}

static void check_contexts(void)
{
	CUcontext primary = NULL, cur = NULL, created = NULL, popped = NULL;
	unsigned flags = 9;
	int active = 9;
	CUdevice dev = -1;
	CUdeviceptr p;

	CHECK_INT("cuMemAlloc without a context", cuMemAlloc(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
	OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
	CHECK_INT("primary inactive", active, 0);
	OK(cuDevicePrimaryCtxRetain(&primary, 0));
	OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
	CHECK_INT("primary active", active, 1);
	OK(cuCtxSetCurrent(primary));
	OK(cuCtxGetCurrent(&cur));
	CHECK_PTR("current context", cur, primary);
	OK(cuCtxGetDevice(&dev));
	CHECK_INT("device of the primary context", dev, 0);

	OK(cuCtxCreate(&created, NULL, 0, 1));
	OK(cuCtxGetDevice(&dev));
	CHECK_INT("device of the created context", dev, 1);
	OK(cuCtxPopCurrent(&popped));
	CHECK_PTR("popped context", popped, created);
	OK(cuCtxGetDevice(&dev));
	CHECK_INT("device after the pop", dev, 0);
	OK(cuCtxSynchronize());
}

static void check_memory(void)
{
	unsigned h[256], back[256];
	unsigned char rows[4 * 16];
	CUDA_MEMCPY2D c2d;
	CUdeviceptr p = 0, base = 0;
	unsigned type = 99;
	CUdevice ordinal = -1;
	size_t size = 0;
	void *host = NULL;
	int plain = 0;

	OK(cuMemAlloc(&p, sizeof h));
	OK(cuMemsetD32(p, 0xdeadbeef, 256));
	OK(cuMemcpyDtoH(back, p, sizeof back));
	CHECK(back[0] == 0xdeadbeef && back[255] == 0xdeadbeef, "D32 fill: %x", back[0]);
	OK(cuMemsetD16(p + 2, 0x1234, 1));
	OK(cuMemcpyDtoH(back, p, 8));
	CHECK_INT("D16 fill", back[0], 0x1234beef);
	CHECK_INT("misaligned D32 fill", cuMemsetD32(p + 2, 0, 1), CUDA_ERROR_INVALID_VALUE);
	for (int i = 0; i < 256; i++)
		h[i] = (unsigned)i * 3u;
	OK(cuMemcpyHtoD(p, h, sizeof h));
	OK(cuMemcpyDtoD(p + 512, p, 512));
	OK(cuMemcpyDtoH(back, p, sizeof back));
	CHECK(back[200] == h[72] && back[128] == 0, "D2D copy: %u %u", back[200], back[128]);

	/* 2D: 4 rows of 6 bytes from a host array with pitch 16 into device pitch 8. */
	for (int i = 0; i < 64; i++)
		rows[i] = (unsigned char)i;
	OK(cuMemsetD8(p, 0, 64));
	memset(&c2d, 0, sizeof c2d);
	c2d.srcMemoryType = CU_MEMORYTYPE_HOST;
	c2d.srcHost = rows;
	c2d.srcPitch = 16;
	c2d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c2d.dstDevice = p;
	c2d.dstPitch = 8;
	c2d.WidthInBytes = 6;
	c2d.Height = 4;
	OK(cuMemcpy2D(&c2d));
	OK(cuMemcpyDtoH(back, p, 32));
	CHECK(((unsigned char *)back)[8] == 16 && ((unsigned char *)back)[29] == 53 &&
	      ((unsigned char *)back)[6] == 0, "2D copy bytes");
	OK(cuMemsetD2D8(p, 8, 0xee, 2, 3));
	OK(cuMemcpyDtoH(back, p, 32));
	CHECK(((unsigned char *)back)[17] == 0xee && ((unsigned char *)back)[18] == 34 &&
	      ((unsigned char *)back)[25] == 49, "2D fill bytes");

	OK(cuMemGetAddressRange(&base, &size, p + 100));
	CHECK(base == p && size == sizeof h, "range of p+100: 0x%llx %zu", (unsigned long long)base, size);
	CHECK_INT("range of a host address", cuMemGetAddressRange(&base, &size, (CUdeviceptr)(uintptr_t)&plain),
		  CUDA_ERROR_NOT_FOUND);
	OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p + 4));
	CHECK_INT("memory type", type, CU_MEMORYTYPE_DEVICE);
	CHECK_INT("attribute of a plain host pointer",
		  cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)&plain),
		  CUDA_ERROR_INVALID_VALUE);
	{
		CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					       CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
		void *data[] = {&type, &ordinal};
		OK(cuPointerGetAttributes(2, which, data, (CUdeviceptr)(uintptr_t)&plain));
		CHECK(type == 0 && ordinal == -2, "plain host: type %u ordinal %d", type, ordinal);
	}
	OK(cuMemHostAlloc(&host, 4096, CU_MEMHOSTALLOC_PORTABLE));
	OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)host + 8));
	CHECK_INT("page-locked type", type, CU_MEMORYTYPE_HOST);
	OK(cuMemFreeHost(host));

	CHECK_INT("free inside a block", cuMemFree(p + 4), CUDA_ERROR_INVALID_VALUE);
	OK(cuMemFree(p));
	{
		/* The CUDA 2.0 cuMemAlloc has 32-bit pointers: refused. */
		CUresult (*alloc32)(unsigned *, unsigned) = NULL;
		unsigned p32 = 0;
		OK(cuGetProcAddress("cuMemAlloc", (void **)&alloc32, 2000, 0, NULL));
		if (alloc32)
			CHECK_INT("32-bit cuMemAlloc", alloc32(&p32, 16), CUDA_ERROR_NOT_SUPPORTED);
	}
}

static void check_streams(void)
{
	CUresult (*get_id_pt)(CUstream, unsigned long long *) = NULL;
	CUstream s = NULL;
	CUcontext ctx = NULL, cur = NULL;
	unsigned long long id_legacy = 0, id_pt = 0, id_s = 0;

	OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	OK(cuStreamGetCtx(s, &ctx));
	OK(cuCtxGetCurrent(&cur));
	CHECK_PTR("stream context", ctx, cur);
	OK(cuStreamGetId(s, &id_s));
	OK(cuStreamGetId(NULL, &id_legacy));
	OK(cuGetProcAddress("cuStreamGetId", (void **)&get_id_pt, 13000,
			    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL));
	if (get_id_pt)
		OK(get_id_pt(NULL, &id_pt));
	CHECK(id_s != id_legacy && id_legacy != id_pt, "ids %llu %llu %llu", id_s, id_legacy, id_pt);
	OK(cuStreamSynchronize(s));
	OK(cuStreamDestroy(s));
	CHECK_INT("destroy the legacy stream", cuStreamDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
	{
		const void *table = (void *)1;
		CUuuid id = {{0}};
		CHECK_INT("cuGetExportTable", cuGetExportTable(&table, &id), CUDA_ERROR_NOT_FOUND);
	}
}

int main(void)
{
	check_before_init();
	check_devices();
	check_contexts();
	check_memory();
	check_streams();
	return check_report("drv_basic");
}
