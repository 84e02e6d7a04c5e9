/* Devices as a program sees them with SIMCUDA_ARCH=sm_75,sm_61: count, properties,
 * attributes (runtime and driver agree), current device, versions, driver entry points.
 * Usage: rt_devices RUNTIME_VERSION   (13000, or 12080 for the .12 build) */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>

#include "rt_common.h"

/* The CUDA 11/12 cudaDeviceProp up to minor, as a program built against CUDA 12 headers
 * lays it out (clockRate before totalConstMem, gone in CUDA 13). */
struct prop12_prefix {
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
};

static void check_device(int dev, int major, int minor, const char *name, int sms, int l2,
			 int bus, size_t optin, int threads_per_sm)
{
	struct cudaDeviceProp p;
	int v = -1;

	RT_OK(cudaGetDeviceProperties(&p, dev));
	CHECK_STR("name", p.name, name);
	CHECK_INT("major", p.major, major);
	CHECK_INT("minor", p.minor, minor);
	CHECK_INT("multiProcessorCount", p.multiProcessorCount, sms);
	CHECK_INT("warpSize", p.warpSize, 32);
	CHECK_INT("maxThreadsPerBlock", p.maxThreadsPerBlock, 1024);
	CHECK_INT("maxThreadsDim[2]", p.maxThreadsDim[2], 64);
	CHECK_INT("maxGridSize[0]", p.maxGridSize[0], 2147483647);
	CHECK_INT("maxGridSize[1]", p.maxGridSize[1], 65535);
	CHECK_INT("sharedMemPerBlock", p.sharedMemPerBlock, 49152);
	CHECK_INT("sharedMemPerBlockOptin", p.sharedMemPerBlockOptin, optin);
	CHECK_INT("regsPerBlock", p.regsPerBlock, 65536);
	CHECK_INT("l2CacheSize", p.l2CacheSize, l2);
	CHECK_INT("memoryBusWidth", p.memoryBusWidth, bus);
	CHECK_INT("maxThreadsPerMultiProcessor", p.maxThreadsPerMultiProcessor, threads_per_sm);
	CHECK_INT("unifiedAddressing", p.unifiedAddressing, 1);
	CHECK_INT("totalGlobalMem", p.totalGlobalMem, 1024u << 20);
	CHECK_INT("pciBusID", p.pciBusID, 0x10 + dev);
	CHECK(memcmp(p.uuid.bytes, "SIMCUDA", 7) == 0, "uuid of device %d", dev);

	RT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, dev));
	CHECK_INT("cudaDevAttrComputeCapabilityMajor", v, major);
	RT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev));
	CHECK_INT("cudaDevAttrMultiProcessorCount", v, sms);
	RT_OK(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev));
	CHECK(v > 500000, "clock rate %d kHz", v);
}

/* The driver, reached the documented way from a runtime program. */
static void check_driver(void)
{
	CUresult (*get_attr)(int *, CUdevice_attribute, CUdevice) = NULL;
	CUresult (*get_name)(char *, int, CUdevice) = NULL;
	enum cudaDriverEntryPointQueryResult q = -1;
	void *old = NULL, *cur = NULL, *none = (void *)1;
	char name[96] = "";
	int v = -1;

	RT_OK(cudaGetDriverEntryPointByVersion("cuDeviceGetAttribute", (void **)&get_attr, 12000,
					       cudaEnableDefault, &q));
	CHECK_INT("entry point status", q, cudaDriverEntryPointSuccess);
	RT_OK(cudaGetDriverEntryPointByVersion("cuDeviceGetName", (void **)&get_name, 12000,
					       cudaEnableDefault, NULL));
	if (!get_attr || !get_name) {
		CHECK(0, "no driver entry points");
		return;
	}
	CHECK_INT("cuDeviceGetAttribute major", get_attr(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 1), CUDA_SUCCESS);
	CHECK_INT("driver major of device 1", v, 6);
	CHECK_INT("cuDeviceGetAttribute minor", get_attr(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 1), CUDA_SUCCESS);
	CHECK_INT("driver minor of device 1", v, 1);
	CHECK_INT("cuDeviceGetName", get_name(name, sizeof name, 1), CUDA_SUCCESS);
	CHECK_STR("driver name of device 1", name, "NVIDIA GeForce GTX 1080");

	/* By version: the 32-bit cuMemAlloc before 3.2, the _v2 one after. */
	RT_OK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &old, 3000, cudaEnableDefault, NULL));
	RT_OK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &cur, 13000, cudaEnableDefault, NULL));
	CHECK(old && cur && old != cur, "cuMemAlloc@3000 %p vs @13000 %p", old, cur);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	RT_OK(cudaGetDriverEntryPoint("cuNoSuchFunction", &none, cudaEnableDefault, &q));
#pragma GCC diagnostic pop
	CHECK_PTR("unknown entry point", none, NULL);
	CHECK_INT("unknown entry point status", q, cudaDriverEntryPointSymbolNotFound);
}

/* cudaGetDeviceProperties_v2 of libcudart.so.12 fills the CUDA 12 layout. */
static void check_v12_layout(void)
{
	cudaError_t (*props_v2)(void *, int) =
		(cudaError_t (*)(void *, int))dlsym(RTLD_DEFAULT, "cudaGetDeviceProperties_v2");
	static union {
		struct prop12_prefix p;
		char bytes[4096];
	} u;

	CHECK(props_v2 != NULL, "cudaGetDeviceProperties_v2 not exported by libcudart.so.12");
	if (!props_v2)
		return;
	RT_OK(props_v2(&u, 1));
	CHECK_STR("v2 name", u.p.name, "NVIDIA GeForce GTX 1080");
	CHECK_INT("v2 major", u.p.major, 6);
	CHECK_INT("v2 minor", u.p.minor, 1);
	CHECK(u.p.clockRate > 500000, "v2 clockRate %d", u.p.clockRate);
	CHECK_INT("v2 totalConstMem", u.p.totalConstMem, 65536);
}

int main(int argc, char **argv)
{
	int want_version = argc > 1 ? atoi(argv[1]) : 13000;
	struct cudaPointerAttributes attr;
	struct cudaDeviceProp p;
	int n = 0, dev = -1, v = 0;
	void *ptr = NULL;

	RT_OK(cudaGetDeviceCount(&n));
	CHECK_INT("device count", n, 2);
	check_device(0, 7, 5, "Tesla T4", 40, 4 << 20, 256, 65536, 1024);
	check_device(1, 6, 1, "NVIDIA GeForce GTX 1080", 20, 2 << 20, 256, 49152, 2048);
	CHECK_RT("properties of device 2", cudaGetDeviceProperties(&p, 2), cudaErrorInvalidDevice);
	CHECK_RT("last error", cudaGetLastError(), cudaErrorInvalidDevice);
	CHECK_RT("last error after reading it", cudaPeekAtLastError(), cudaSuccess);
	CHECK_RT("cudaSetDevice(2)", cudaSetDevice(2), cudaErrorInvalidDevice);

	RT_OK(cudaGetDevice(&dev));
	CHECK_INT("initial device", dev, 0);
	RT_OK(cudaSetDevice(1));
	RT_OK(cudaGetDevice(&dev));
	CHECK_INT("device after cudaSetDevice(1)", dev, 1);
	RT_OK(cudaMalloc(&ptr, 4096));
	RT_OK(cudaPointerGetAttributes(&attr, ptr));
	CHECK_INT("pointer type", attr.type, cudaMemoryTypeDevice);
	CHECK_INT("pointer device", attr.device, 1);
	RT_OK(cudaFree(ptr));

	RT_OK(cudaStreamGetDevice(0, &v));
	CHECK_INT("device of the default stream after cudaSetDevice(1)", v, 1);
	CHECK_STR("error name", cudaGetErrorName(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation");
	CHECK_STR("error string", cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory");
	CHECK_STR("capture error string", cudaGetErrorString(cudaErrorStreamCaptureUnsupported),
		  "operation not permitted when stream is capturing");
	CHECK_STR("unknown error name", cudaGetErrorName((cudaError_t)12345), "unrecognized error code");

	RT_OK(cudaDriverGetVersion(&v));
	CHECK_INT("driver version", v, 13000);
	RT_OK(cudaRuntimeGetVersion(&v));
	CHECK_INT("runtime version", v, want_version);
	check_driver();
	if (want_version < 13000)
		check_v12_layout();
	return check_report("rt_devices");
}
