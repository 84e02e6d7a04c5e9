/* The runtime and driver calls PyTorch makes from start-up to process exit (../../TORCH_CALLS.md),
 * in its order and with its arguments, on the .13 stack as the newest CUDA 13 torch makes them
 * and on the .12 stack in the CUDA 12 forms torch 2.7 (cu126) passes.
 * Built twice: with CUDA12_FORMS for the .12 stack (the names libcudart.so.13 lacks).
 * Usage: rt_torch RUNTIME_VERSION   (13000, or 12080 for the .12 build) */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>

#include "cuda12_abi.h"
#include "rt_common.h"

static int v12;

/* c10/cuda/driver_api: the newest torch resolves these with cudaGetDriverEntryPointByVersion at
 * the versions its driver_api.h pins (the simulated ones among its list); torch 2.7 dlsyms
 * them from the libcuda.so.1 libcudart already loaded (RTLD_NOLOAD). */
static const struct {
	const char *name;
	unsigned version;
} driver_api[] = {
	{"cuDeviceGet", 12000}, {"cuDeviceGetAttribute", 12000},
	{"cuMemGetAddressRange", 12000}, {"cuMemAddressReserve", 12000}, {"cuMemRelease", 12000},
	{"cuMemMap", 12000}, {"cuMemAddressFree", 12000}, {"cuMemSetAccess", 12000},
	{"cuMemUnmap", 12000}, {"cuMemCreate", 12000}, {"cuMemGetAllocationGranularity", 12000},
	{"cuMemExportToShareableHandle", 12000}, {"cuMemImportFromShareableHandle", 12000},
	{"cuMemRetainAllocationHandle", 12000}, {"cuMemGetAllocationPropertiesFromHandle", 12000},
	{"cuMemsetD32Async", 12000}, {"cuGetErrorString", 12000}, {"cuCtxGetCurrent", 12080}, {"cuCtxSetCurrent", 12080},
	{"cuCtxPushCurrent", 12080}, {"cuCtxPopCurrent", 12080},
	{"cuLogsRegisterCallback", 12090}, {"cuLogsUnregisterCallback", 12090},
};

static void CUDA_CB log_callback(void *data, CUlogLevel level, char *msg, size_t len)
{
	(void)data, (void)level, (void)msg, (void)len;
}

static void driver_api_lookups(void)
{
	void *fn = NULL, *libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
	CUlogsCallbackHandle handle = NULL;

	CHECK(libcuda != NULL, "libcudart has not loaded libcuda.so.1: %s", dlerror());
	for (size_t i = 0; i < sizeof driver_api / sizeof driver_api[0]; i++) {
		RT_OK(cudaGetDriverEntryPointByVersion(driver_api[i].name, &fn,
						       driver_api[i].version, cudaEnableDefault, &q));
		CHECK(fn && q == cudaDriverEntryPointSuccess, "%s at %u: %p, status %d",
		      driver_api[i].name, driver_api[i].version, fn, (int)q);
		if (libcuda && !v12)
			continue;
		CHECK(libcuda && dlsym(libcuda, driver_api[i].name), "dlsym %s", driver_api[i].name);
	}
	/* CUDAErrorLogCapture registers a callback once (newest torch); a NULL handle output is
	 * allowed (an earlier version passed one). */
	RT_OK(cudaGetDriverEntryPointByVersion("cuLogsRegisterCallback", &fn, 12090,
					       cudaEnableDefault, &q));
	CHECK_INT("cuLogsRegisterCallback", ((CUresult(*)(CUlogsCallback, void *,
			CUlogsCallbackHandle *))fn)(log_callback, NULL, &handle), CUDA_SUCCESS);
	CHECK(handle != NULL, "no callback handle");
	CHECK_INT("cuLogsUnregisterCallback", cuLogsUnregisterCallback(handle), CUDA_SUCCESS);
	CHECK_INT("cuLogsUnregisterCallback twice", cuLogsUnregisterCallback(handle),
		  CUDA_ERROR_INVALID_VALUE);
	CHECK_INT("cuLogsRegisterCallback NULL", cuLogsRegisterCallback(NULL, NULL, NULL),
		  CUDA_ERROR_INVALID_VALUE);
	/* A symbol this driver version lacks: success, NULL and the status (runtime docs). */
	RT_OK(cudaGetDriverEntryPointByVersion("cuLogsRegisterCallback", &fn, 12080,
					       cudaEnableDefault, &q));
	CHECK(!fn && q == cudaDriverEntryPointVersionNotSufficent, "at 12080: %p %d", fn, (int)q);
	if (libcuda)
		dlclose(libcuda);
}

/* CUDAHooks: hasPrimaryContext goes to cuDevicePrimaryCtxGetState through libcaffe2_nvrtc,
 * which links libcuda.so.1 directly. */
static int primary_active(int dev)
{
	unsigned flags = 0;
	int active = -1;

	CHECK_INT("cuDevicePrimaryCtxGetState", cuDevicePrimaryCtxGetState(dev, &flags, &active),
		  CUDA_SUCCESS);
	return active;
}

/* at::cuda::getDeviceProperties: the layout the program was built with, and no byte past it. */
static void properties(void)
{
	unsigned char buf[sizeof(struct cudaDeviceProp) + 64];
	size_t size = v12 ? CUDA12_DEVICE_PROP_SIZE : sizeof(struct cudaDeviceProp);

	memset(buf, 0xab, sizeof buf);
#ifdef CUDA12_FORMS
	if (v12) {
		struct cuda12_device_prop *p = (struct cuda12_device_prop *)buf;
		RT_OK(cudaGetDeviceProperties_v2(p, 0));
		CHECK_STR("name", p->name, "Tesla T4");
		CHECK_INT("major", p->major, 7);
		CHECK_INT("minor", p->minor, 5);
		CHECK_INT("multiProcessorCount", p->multiProcessorCount, 40);
		CHECK_INT("warpSize", p->warpSize, 32);
		CHECK(p->clockRate > 500000, "clockRate %d", p->clockRate);
		CHECK(p->memoryClockRate > 0, "memoryClockRate %d", p->memoryClockRate);
		CHECK_INT("l2CacheSize", p->l2CacheSize, 4 << 20);
		CHECK_INT("maxThreadsPerMultiProcessor", p->maxThreadsPerMultiProcessor, 1024);
		CHECK_INT("hostRegisterSupported", p->hostRegisterSupported, 1);
		CHECK_INT("memoryPoolsSupported", p->memoryPoolsSupported, 1);
		CHECK_INT("computeMode", p->computeMode, cudaComputeModeDefault);
		CHECK_INT("totalGlobalMem", p->totalGlobalMem, 1024u << 20);
	} else
#endif
	{
		struct cudaDeviceProp *p = (struct cudaDeviceProp *)buf;
		RT_OK(cudaGetDeviceProperties(p, 0));
		CHECK_STR("name", p->name, "Tesla T4");
		CHECK_INT("major", p->major, 7);
		CHECK_INT("multiProcessorCount", p->multiProcessorCount, 40);
		CHECK_INT("l2CacheSize", p->l2CacheSize, 4 << 20);
		CHECK_INT("memoryPoolsSupported", p->memoryPoolsSupported, 1);
		CHECK_INT("deviceNumaId", p->deviceNumaId, -1);
	}
	for (size_t i = size; i < sizeof buf; i++)
		CHECK(buf[i] == 0xab, "byte %zu past the %zu-byte cudaDeviceProp written", i, size);
}

/* CUDAHooks::isPinnedPtr: cudaPointerGetAttributes, the type, and no byte past the struct. */
static enum cudaMemoryType pointer_type(const void *p)
{
	unsigned char buf[sizeof(struct cudaPointerAttributes) + 16];
	size_t size = v12 ? CUDA12_POINTER_ATTRIBUTES_SIZE : sizeof(struct cudaPointerAttributes);
	enum cudaMemoryType type;

	memset(buf, 0xab, sizeof buf);
	RT_OK(cudaPointerGetAttributes((struct cudaPointerAttributes *)buf, p));
	memcpy(&type, buf, sizeof type);
	for (size_t i = size; i < sizeof buf; i++)
		CHECK(buf[i] == 0xab, "byte %zu past the %zu-byte cudaPointerAttributes", i, size);
	if (!v12)
		for (size_t i = 24; i < size; i++)
			CHECK(buf[i] == 0, "reserved byte %zu not cleared", i);
	return type;
}

/* c10::cuda::CUDAStream and the capture check of the caching allocator. */
static cudaStream_t streams(void)
{
	int least = 1, greatest = 1;
	enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusActive;
	unsigned long long id = 0;
	const cudaGraphNode_t *deps = NULL;
	cudaGraph_t graph = NULL;
	size_t ndeps = 7;
	cudaStream_t s;

	RT_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	CHECK(least == 0 && greatest < 0, "priority range %d..%d", least, greatest);
	RT_OK(cudaDeviceGetStreamPriorityRange(NULL, NULL));
	RT_OK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
	RT_OK(cudaStreamIsCapturing(cudaStreamLegacy, &cs));
	CHECK_INT("legacy stream capture status", cs, cudaStreamCaptureStatusNone);

	RT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
#ifdef CUDA12_FORMS
	RT_OK(cudaStreamGetCaptureInfo_v2(s, &cs, &id, &graph, &deps, &ndeps));
#else
	RT_OK(cudaStreamGetCaptureInfo(s, &cs, &id, &graph, &deps, NULL, &ndeps));
#endif
	CHECK_INT("capture status", cs, cudaStreamCaptureStatusActive);
	CHECK(id != 0 && graph != NULL && ndeps == 0, "id %llu graph %p ndeps %zu", id,
	      (void *)graph, ndeps);
	RT_OK(cudaStreamEndCapture(s, &graph));
	RT_OK(cudaGraphDestroy(graph));
	return s;
}

static int host_calls;

static void CUDART_CB host_fn(void *data)
{
	host_calls += *(int *)data;
}

static void CUDART_CB callback(cudaStream_t s, cudaError_t status, void *data)
{
	(void)s;
	CHECK_INT("callback status", status, cudaSuccess);
	host_calls += *(int *)data;
}

/* Pinned memory (CachingHostAllocator: cudaHostAlloc, or cudaHostRegister of malloc'ed memory
 * with pinned_use_cuda_host_register), copies and events in stream order. */
static void memory(cudaStream_t s)
{
	float host[256], back[256], *pinned = NULL, *dev = NULL;
	void *registered = malloc(1 << 16), *mapped = NULL;
	unsigned flags = 0;
	cudaEvent_t ev, timed, ipc;
	int one = 1, ten = 10;
	float ms = -1;

	for (int i = 0; i < 256; i++)
		host[i] = (float)i;
	RT_OK(cudaMalloc((void **)&dev, 2 << 20));
	CHECK_INT("device pointer type", pointer_type(dev), cudaMemoryTypeDevice);
	CHECK_INT("pageable pointer type", pointer_type(host), cudaMemoryTypeUnregistered);

	RT_OK(cudaHostAlloc((void **)&pinned, sizeof host, cudaHostAllocDefault));
	CHECK_INT("cudaHostAlloc pointer type", pointer_type(pinned), cudaMemoryTypeHost);
	RT_OK(cudaHostRegister(registered, 1 << 16, cudaHostRegisterDefault));
	CHECK_INT("registered pointer type", pointer_type((char *)registered + 100),
		  cudaMemoryTypeHost);
	CHECK_RT("register twice", cudaHostRegister((char *)registered + 4096, 4096, 0),
		 cudaErrorHostMemoryAlreadyRegistered);
	CHECK_RT("register cudaHostAlloc memory", cudaHostRegister(pinned, 64, 0),
		 cudaErrorHostMemoryAlreadyRegistered);
	CHECK_RT("register zero bytes", cudaHostRegister(host, 0, 0), cudaErrorInvalidValue);
	CHECK_RT("register unknown flag", cudaHostRegister(host, 64, 0x100),
		 cudaErrorInvalidValue);
	RT_OK(cudaHostGetFlags(&flags, registered));
	CHECK_INT("registered flags", flags, cudaHostRegisterDefault);
	RT_OK(cudaHostGetDevicePointer(&mapped, registered, 0));
	CHECK_PTR("device address of registered memory", mapped, registered);
	CHECK_RT("device address of pageable memory", cudaHostGetDevicePointer(&mapped, host, 0),
		 cudaErrorInvalidValue);
	CHECK_RT("cudaFreeHost of registered memory", cudaFreeHost(registered),
		 cudaErrorInvalidValue);
	CHECK_RT("unregister inside the range", cudaHostUnregister((char *)registered + 64),
		 cudaErrorHostMemoryNotRegistered);
	CHECK_RT("unregister cudaHostAlloc memory", cudaHostUnregister(pinned),
		 cudaErrorHostMemoryNotRegistered);
	RT_OK(cudaHostUnregister(registered));
	CHECK_RT("unregister twice", cudaHostUnregister(registered),
		 cudaErrorHostMemoryNotRegistered);
	CHECK_INT("unregistered pointer type", pointer_type(registered), cudaMemoryTypeUnregistered);
	(void)cudaGetLastError();

	/* tensor.to('cuda') from pageable memory: async copy on the current stream, then sync;
	 * non_blocking from pinned memory records an event for the host allocator. */
	memcpy(pinned, host, sizeof host);
	RT_OK(cudaMemcpyAsync(dev, pinned, sizeof host, cudaMemcpyHostToDevice, s));
	RT_OK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	RT_OK(cudaEventRecord(ev, s));
	RT_OK(cudaLaunchHostFunc(s, host_fn, &one));
	RT_OK(cudaStreamAddCallback(s, callback, &ten, 0));
	CHECK_RT("callback flags", cudaStreamAddCallback(s, callback, &ten, 1),
		 cudaErrorInvalidValue);
	CHECK_RT("no host function", cudaLaunchHostFunc(s, NULL, NULL), cudaErrorInvalidValue);
	(void)cudaGetLastError();
	RT_OK(cudaStreamWaitEvent(NULL, ev, 0));
	RT_OK(cudaMemcpyAsync(back, dev, sizeof back, cudaMemcpyDeviceToHost, NULL));
	RT_OK(cudaStreamSynchronize(NULL));
	RT_OK(cudaEventQuery(ev));
	RT_OK(cudaEventSynchronize(ev));
	CHECK(memcmp(back, host, sizeof host) == 0, "round trip through the device");
	CHECK_INT("host functions run in stream order", host_calls, 11);
	/* torch.cuda.Event(enable_timing=False), the default, cannot be timed. */
	CHECK_RT("elapsed time without timing", cudaEventElapsedTime(&ms, ev, ev),
		 cudaErrorInvalidResourceHandle);
	RT_OK(cudaEventCreate(&timed));
	RT_OK(cudaEventRecord(timed, s));
	RT_OK(cudaEventSynchronize(timed));
	RT_OK(cudaEventElapsedTime(&ms, timed, timed));
	CHECK(ms == 0.0f, "elapsed %g ms between an event and itself", ms);
	CHECK_RT("interprocess event with timing",
		 cudaEventCreateWithFlags(&ipc, cudaEventInterprocess), cudaErrorInvalidValue);
	RT_OK(cudaEventCreateWithFlags(&ipc, cudaEventInterprocess | cudaEventDisableTiming));
	RT_OK(cudaEventDestroy(ipc));
	RT_OK(cudaEventDestroy(timed));
	(void)cudaGetLastError();
	RT_OK(cudaEventDestroy(ev));
	RT_OK(cudaFreeHost(pinned));
	RT_OK(cudaFree(dev));
	free(registered);
}

static void *entry(const char *name)
{
	enum cudaDriverEntryPointQueryResult q;
	void *fn = NULL;

	RT_OK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q));
	return fn;
}

/* ExpandableSegment (c10/cuda/CUDACachingAllocator.cpp, expandable_segments:True): address
 * space for the device's memory and a bit, 20 MiB allocations mapped as tensors need them,
 * one cuMemSetAccess per growth, through the driver entry points torch fetched; a tensor
 * across two allocations is copied with the runtime. */
static void expandable_segment(cudaStream_t s)
{
	__typeof__(&cuMemAddressReserve) reserve = entry("cuMemAddressReserve");
	__typeof__(&cuMemCreate) create = entry("cuMemCreate");
	__typeof__(&cuMemMap) map = entry("cuMemMap");
	__typeof__(&cuMemSetAccess) set_access = entry("cuMemSetAccess");
	__typeof__(&cuMemUnmap) unmap = entry("cuMemUnmap");
	__typeof__(&cuMemRelease) release = entry("cuMemRelease");
	__typeof__(&cuMemAddressFree) address_free = entry("cuMemAddressFree");
	const size_t seg = 20u << 20, nseg = 52; /* 1024 MiB + 1/8 */
	CUmemAllocationProp prop = {0};
	CUmemAccessDesc rw = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
	CUmemGenericAllocationHandle h[2];
	CUdeviceptr va = 0;
	float in[1024], out[1024];

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	for (int i = 0; i < 1024; i++)
		in[i] = (float)i / 8;
	CHECK_INT("cuMemAddressReserve", reserve(&va, seg * nseg, 0, 0, 0), CUDA_SUCCESS);
	for (int i = 0; i < 2; i++) {
		CHECK_INT("cuMemCreate", create(&h[i], seg, &prop, 0), CUDA_SUCCESS);
		CHECK_INT("cuMemMap", map(va + i * seg, seg, 0, h[i], 0), CUDA_SUCCESS);
	}
	CHECK_INT("cuMemSetAccess", set_access(va, 2 * seg, &rw, 1), CUDA_SUCCESS);
	CHECK_INT("pointer type", pointer_type((void *)(uintptr_t)va), cudaMemoryTypeDevice);
	RT_OK(cudaMemcpyAsync((void *)(uintptr_t)(va + seg - 2048), in, sizeof in,
			      cudaMemcpyHostToDevice, s));
	RT_OK(cudaMemcpyAsync(out, (void *)(uintptr_t)(va + seg - 2048), sizeof out,
			      cudaMemcpyDefault, s));
	RT_OK(cudaStreamSynchronize(s));
	CHECK(memcmp(in, out, sizeof in) == 0, "a tensor across two allocations");
	RT_OK(cudaDeviceSynchronize());
	for (int i = 0; i < 2; i++) {
		CHECK_INT("cuMemUnmap", unmap(va + i * seg, seg), CUDA_SUCCESS);
		CHECK_INT("cuMemRelease", release(h[i]), CUDA_SUCCESS);
	}
	CHECK_INT("cuMemAddressFree", address_free(va, seg * nseg), CUDA_SUCCESS);
}

/* A second device: p2p cache (cudaDeviceCanAccessPeer) and cross-device copies, here between
 * an sm_75 and an sm_61, which cannot be peers; the copy needs no peer access. */
static void second_device(void)
{
	char bus[32];
	int can = -1, v = 0;
	int *a = NULL, *b = NULL;

	RT_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 1));
	CHECK_STR("PCI bus id", bus, "00000000:11:00.0");
	CHECK_RT("PCI bus id of device 9", cudaDeviceGetPCIBusId(bus, sizeof bus, 9),
		 cudaErrorInvalidDevice);
	RT_OK(cudaDeviceCanAccessPeer(&can, 0, 1));
	CHECK_INT("sm_75 -> sm_61 peer", can, 0);
	RT_OK(cudaDeviceCanAccessPeer(&can, 0, 0));
	CHECK_INT("a device is not its own peer", can, 0);
	CHECK_RT("enable unsupported peer", cudaDeviceEnablePeerAccess(1, 0),
		 cudaErrorPeerAccessUnsupported);
	CHECK_RT("enable self", cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice);
	(void)cudaGetLastError();

	RT_OK(cudaMalloc((void **)&a, sizeof v));
	RT_OK(cudaSetDevice(1));
	RT_OK(cudaMalloc((void **)&b, sizeof v));
	RT_OK(cudaSetDevice(0));
	v = 1234;
	RT_OK(cudaMemcpy(a, &v, sizeof v, cudaMemcpyHostToDevice));
	RT_OK(cudaMemcpyPeerAsync(b, 1, a, 0, sizeof v, NULL));
	v = 0;
	RT_OK(cudaMemcpy(&v, b, sizeof v, cudaMemcpyDeviceToHost));
	CHECK_INT("peer copy", v, 1234);
	CHECK_RT("peer copy to device 9", cudaMemcpyPeer(b, 9, a, 0, sizeof v),
		 cudaErrorInvalidDevice);
	(void)cudaGetLastError();
	RT_OK(cudaFree(a));
	RT_OK(cudaFree(b));
}

int main(int argc, char **argv)
{
	int n = 0, dev = -1, version = 0;
	cudaStream_t s;

	if (argc < 2) {
		fprintf(stderr, "usage: rt_torch RUNTIME_VERSION\n");
		return 2;
	}
	v12 = atoi(argv[1]) < 13000;
#ifndef CUDA12_FORMS
	CHECK(!v12, "built without the CUDA 12 forms");
#endif

	/* torch.cuda.is_available(), then lazy init. */
	RT_OK(cudaGetDeviceCount(&n));
	CHECK_INT("device count", n, 2);
	RT_OK(cudaDriverGetVersion(&version));
	RT_OK(cudaRuntimeGetVersion(&version));
	CHECK_INT("runtime version", version, atoi(argv[1]));
	CHECK_INT("no context before the first device call", primary_active(0), 0);
	driver_api_lookups();
	RT_OK(cudaGetDevice(&dev));
	CHECK_INT("current device", dev, 0);
	RT_OK(cudaSetDevice(0));
	CHECK_INT("cudaSetDevice made the primary context", primary_active(0), 1);
	CHECK_INT("device 1 untouched", primary_active(1), 0);
	properties();

	s = streams();
	memory(s);
	expandable_segment(s);
	second_device();
	RT_OK(cudaStreamDestroy(s));
	RT_OK(cudaDeviceSynchronize());
	return check_report("rt_torch");
}
