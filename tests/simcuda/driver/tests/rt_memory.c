/* Memory through the runtime with SIMCUDA_MEM_MB=64: out-of-memory errors (runtime and
 * driver spelling), copies and fills in 1D and 2D, a copy or fill outside an allocation
 * failing and reported, pointer attributes of device, page-locked and plain host memory. */
#include <cuda.h>

#include "rt_common.h"

#define MB (1u << 20)

static void check_out_of_memory(void)
{
	CUresult (*cu_alloc)(CUdeviceptr *, size_t) = NULL;
	size_t free_b = 0, total = 0;
	void *a = NULL, *b = NULL;
	CUdeviceptr c = 0;

	RT_OK(cudaMemGetInfo(&free_b, &total));
	CHECK_INT("total memory", total, 64 * MB);
	RT_OK(cudaMalloc(&a, 48 * MB));
	CHECK_RT("cudaMalloc past the limit", cudaMalloc(&b, 32 * MB), cudaErrorMemoryAllocation);
	CHECK_PTR("pointer after a failed cudaMalloc", b, NULL);
	CHECK_RT("last error", cudaGetLastError(), cudaErrorMemoryAllocation);
	CHECK_RT("cudaMallocAsync past the limit", cudaMallocAsync(&b, 32 * MB, 0),
		 cudaErrorMemoryAllocation);
	RT_OK(cudaGetDriverEntryPointByVersion("cuMemAlloc", (void **)&cu_alloc, 13000,
					       cudaEnableDefault, NULL));
	CHECK(cu_alloc != NULL, "no cuMemAlloc entry point");
	if (cu_alloc)
		CHECK_INT("cuMemAlloc past the limit", cu_alloc(&c, 32 * MB), CUDA_ERROR_OUT_OF_MEMORY);
	RT_OK(cudaMemGetInfo(&free_b, &total));
	CHECK(free_b <= 16 * MB, "free after 48 MB: %zu", free_b);
	RT_OK(cudaFree(a));
	RT_OK(cudaMalloc(&b, 32 * MB));
	RT_OK(cudaFree(b));
	RT_OK(cudaMalloc(&a, 0));
	CHECK_PTR("cudaMalloc(0)", a, NULL);
	(void)cudaGetLastError();
}

static void check_copies(void)
{
	unsigned char h[1024], back[1024];
	unsigned char *d = NULL;
	void *pinned = NULL;

	RT_OK(cudaMalloc((void **)&d, sizeof h));
	RT_OK(cudaMemset(d, 0xab, sizeof h));
	RT_OK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
	CHECK(back[0] == 0xab && back[1023] == 0xab, "memset: %x %x", back[0], back[1023]);
	for (int i = 0; i < 1024; i++)
		h[i] = (unsigned char)i;
	RT_OK(cudaMemcpy(d, h, sizeof h, cudaMemcpyDefault));
	RT_OK(cudaMemcpyAsync(back, d, sizeof back, cudaMemcpyDeviceToHost, 0));
	RT_OK(cudaStreamSynchronize(0));
	CHECK(memcmp(h, back, sizeof h) == 0, "1D round trip differs");

	/* 2D: 4 rows of 10 bytes at pitch 32 on the device, pitch 10 on the host. */
	RT_OK(cudaMemset(d, 0, sizeof h));
	RT_OK(cudaMemcpy2D(d, 32, h, 10, 10, 4, cudaMemcpyHostToDevice));
	RT_OK(cudaMemcpy(back, d, 128, cudaMemcpyDeviceToHost));
	CHECK(back[32] == h[10] && back[3 * 32 + 9] == h[39] && back[10] == 0,
	      "2D copy: %d %d %d", back[32], back[3 * 32 + 9], back[10]);
	RT_OK(cudaMemset2D(d, 32, 7, 5, 3));
	RT_OK(cudaMemcpy(back, d, 128, cudaMemcpyDeviceToHost));
	CHECK(back[64 + 4] == 7 && back[64 + 5] == h[25] && back[96] == h[30],
	      "2D fill: %d %d %d", back[68], back[69], back[96]);
	CHECK_RT("width above pitch", cudaMemcpy2D(d, 8, h, 10, 10, 2, cudaMemcpyHostToDevice),
		 cudaErrorInvalidPitchValue);
	CHECK_RT("bad direction", cudaMemcpy(d, h, 4, (enum cudaMemcpyKind)9),
		 cudaErrorInvalidMemcpyDirection);

	RT_OK(cudaMallocHost(&pinned, 256));
	memset(pinned, 3, 256);
	RT_OK(cudaMemcpy(d, pinned, 256, cudaMemcpyHostToDevice));
	RT_OK(cudaMemcpy(back, d, 256, cudaMemcpyDeviceToHost));
	CHECK(back[255] == 3, "pinned copy: %d", back[255]);
	RT_OK(cudaFreeHost(pinned));
	RT_OK(cudaFree(d));
	CHECK_RT("double free", cudaFree(d), cudaErrorInvalidValue);
	(void)cudaGetLastError();
}

static void check_out_of_bounds(const char *log_path)
{
	unsigned char h[512] = {0};
	unsigned char *d = NULL;
	char *log;

	RT_OK(cudaMalloc((void **)&d, 256));
	CHECK_RT("copy past the end", cudaMemcpy(d, h, 512, cudaMemcpyHostToDevice),
		 cudaErrorInvalidValue);
	CHECK_RT("read one past the end", cudaMemcpy(h, d + 256, 1, cudaMemcpyDeviceToHost),
		 cudaErrorInvalidValue);
	CHECK_RT("fill past the end", cudaMemset(d + 200, 0, 100), cudaErrorInvalidValue);
	CHECK_RT("host pointer as destination", cudaMemcpy(h, h + 256, 16, cudaMemcpyHostToDevice),
		 cudaErrorInvalidValue);
	/* Not sticky: the next valid copy works. */
	CHECK_RT("valid copy afterwards", cudaMemcpy(d, h, 256, cudaMemcpyHostToDevice), cudaSuccess);
	RT_OK(cudaDeviceSynchronize());
	RT_OK(cudaFree(d));
	(void)cudaGetLastError();

	log = check_read_file(log_path);
	CHECK(log && strstr(log, "invalid memcpy write of 512 bytes"), "no report of the bad copy");
	CHECK(log && strstr(log, "invalid memset write of 100 bytes"), "no report of the bad fill");
	free(log);
}

static void check_pointer_attributes(void)
{
	struct cudaPointerAttributes a;
	void *d = NULL, *pinned = NULL;
	int plain = 0;

	RT_OK(cudaMalloc(&d, 64));
	RT_OK(cudaPointerGetAttributes(&a, (char *)d + 10));
	CHECK_INT("device type", a.type, cudaMemoryTypeDevice);
	CHECK_INT("device ordinal", a.device, 0);
	CHECK_PTR("device pointer", a.devicePointer, (char *)d + 10);
	CHECK_PTR("device memory host pointer", a.hostPointer, NULL);
	RT_OK(cudaHostAlloc(&pinned, 64, cudaHostAllocPortable));
	RT_OK(cudaPointerGetAttributes(&a, pinned));
	CHECK_INT("page-locked type", a.type, cudaMemoryTypeHost);
	CHECK_PTR("page-locked host pointer", a.hostPointer, pinned);
	RT_OK(cudaPointerGetAttributes(&a, &plain));
	CHECK_INT("plain host type", a.type, cudaMemoryTypeUnregistered);
	CHECK_INT("plain host device", a.device, cudaInvalidDeviceId);
	RT_OK(cudaFreeHost(pinned));
	RT_OK(cudaFree(d));
}

/* A copy replayed from freed memory is an illegal address of asynchronous work: sticky
 * until cudaDeviceReset, which also frees what was allocated. */
static void check_sticky_and_reset(void)
{
	struct cudaPointerAttributes attr;
	unsigned char h[256];
	cudaGraphExec_t exec = NULL;
	cudaGraph_t graph = NULL;
	cudaStream_t s = NULL;
	size_t free_b = 0, total = 0;
	void *a = NULL, *kept = NULL;

	RT_OK(cudaStreamCreate(&s));
	RT_OK(cudaMalloc(&a, sizeof h));
	RT_OK(cudaMalloc(&kept, 1 * MB));
	RT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	RT_OK(cudaMemcpyAsync(h, a, sizeof h, cudaMemcpyDeviceToHost, s));
	RT_OK(cudaStreamEndCapture(s, &graph));
	RT_OK(cudaGraphInstantiate(&exec, graph, 0));
	RT_OK(cudaFree(a));
	CHECK_RT("replay reading freed memory", cudaGraphLaunch(exec, s), cudaErrorIllegalAddress);
	CHECK_RT("synchronize after the fault", cudaDeviceSynchronize(), cudaErrorIllegalAddress);
	CHECK_RT("a later synchronous copy", cudaMemcpy(h, kept, 16, cudaMemcpyDeviceToHost),
		 cudaErrorIllegalAddress);
	RT_OK(cudaGraphExecDestroy(exec));
	RT_OK(cudaGraphDestroy(graph));
	RT_OK(cudaStreamDestroy(s));

	RT_OK(cudaDeviceReset());
	RT_OK(cudaDeviceSynchronize());
	RT_OK(cudaPointerGetAttributes(&attr, kept));
	CHECK_INT("memory after cudaDeviceReset", attr.type, cudaMemoryTypeUnregistered);
	RT_OK(cudaMemGetInfo(&free_b, &total));
	CHECK_INT("free after cudaDeviceReset", free_b, total);
	RT_OK(cudaMalloc(&a, 64));
	RT_OK(cudaFree(a));
	(void)cudaGetLastError();
}

int main(void)
{
	const char *log_path = rt_log_to_temp();

	check_out_of_memory();
	check_copies();
	check_out_of_bounds(log_path);
	check_pointer_attributes();
	check_sticky_and_reset();
	unlink(log_path);
	return check_report("rt_memory");
}
