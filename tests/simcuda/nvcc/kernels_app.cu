// An ordinary CUDA C++ program, compiled by nvcc the way users build (triple-chevron launches
// on streams, shared memory, warp shuffles, atomics, __constant__ and __device__ variables,
// bf16 arithmetic from cuda_bf16.h, cuBLAS and cuBLASLt), run on the simulated stack.  Every
// result is checked on the host.  What must happen depends on how it was built and where it
// runs, so the test says what to expect:
//
//   kernels_app --kernels ok|noimage|sass --gemm ok|notsup
//
//   ok       every kernel runs and computes the right answer
//   noimage  every launch fails with cudaErrorNoKernelImageForDevice, the error a real
//            device with no usable image gives ("no kernel image is available ...")
//   sass     the fatbin has SASS the device would run but no PTX the simulator can run:
//            every launch fails with cudaErrorNotSupported (never a false success)
//   notsup   bf16 GEMMs are refused with CUBLAS_STATUS_NOT_SUPPORTED (Pascal without the shim)
//
// Exit status 0 when everything went as expected; each failed check prints one line.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cublasLt.h>
#include <cublas_v2.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>

static int failures;

#define CHECK(cond, ...)                                                          \
	do {                                                                          \
		if (!(cond)) {                                                            \
			std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);           \
			std::printf(__VA_ARGS__);                                             \
			std::printf("\n");                                                    \
			failures++;                                                           \
		}                                                                         \
	} while (0)

enum expect { OK, NOIMAGE, SASS, NOTSUP };
static expect kernels_expect = OK, gemm_expect = OK;

// ------------------------------------------------------------------ device code

__constant__ float scale_c[4];
__device__ int launches_seen;
__managed__ int managed_count = 40;
__device__ float results_d[8];

// Sum of scale * x over the array: dynamic shared memory, a warp-shuffle reduction, atomics
// on global memory and on a __device__ variable.
__global__ void sum_bf16(const __nv_bfloat16 *x, int n, float *out)
{
	extern __shared__ float partial[];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? __bfloat162float(x[i]) * scale_c[0] : 0.0f;

	for (int off = 16; off; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		partial[threadIdx.x / 32] = v;
	__syncthreads();
	if (threadIdx.x == 0) {
		float s = 0;
		for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
			s += partial[w];
		atomicAdd(out, s);
		atomicAdd(&launches_seen, 1);
		atomicAdd(&managed_count, 1);
	}
}

// y = a * x + y in bf16 with cuda_bf16.h's operators; inputs are chosen so every result is
// exact in bf16, whichever instructions the architecture compiles them to.
__global__ void axpy_bf16(int n, __nv_bfloat16 a, const __nv_bfloat16 *x, __nv_bfloat16 *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

// Round to bf16 on the device (__float2bfloat16_rn) and back.
__global__ void round_bf16(int n, const float *in, __nv_bfloat16 *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = __float2bfloat16_rn(in[i]);
}

// A 2-D grid with static shared memory and shared-memory atomics: a histogram of x % 16.
__global__ void __launch_bounds__(256) histogram16(const int *x, int n, unsigned *hist)
{
	__shared__ unsigned local[16];
	int t = threadIdx.y * blockDim.x + threadIdx.x;
	int block = blockIdx.y * gridDim.x + blockIdx.x;
	int i = block * blockDim.x * blockDim.y + t;

	if (t < 16)
		local[t] = 0;
	__syncthreads();
	if (i < n)
		atomicAdd(&local[x[i] & 15], 1u);
	__syncthreads();
	if (t < 16)
		atomicAdd(&hist[t], local[t]);
}

// Writes __device__ results the host reads back with cudaMemcpyFromSymbol.
__global__ void fill_results(float base)
{
	if (threadIdx.x < 8)
		results_d[threadIdx.x] = base + threadIdx.x * scale_c[1];
}

// Uses only dynamic shared memory, up to what cudaFuncSetAttribute allowed.
__global__ void touch_shared(int words, int *out)
{
	extern __shared__ int buf[];
	for (int i = threadIdx.x; i < words; i += blockDim.x)
		buf[i] = i;
	__syncthreads();
	if (threadIdx.x == 0)
		*out = buf[words - 1];
}

// ------------------------------------------------------------------ host helpers

static __nv_bfloat16 bf(float f)
{
	return __float2bfloat16_rn(f);
}

static float fl(__nv_bfloat16 h)
{
	return __bfloat162float(h);
}

// A launch's status, checked against what this build on this device must give.
static bool launched(cudaError_t err, const char *what)
{
	cudaError_t last = cudaGetLastError(); // also clears it
	switch (kernels_expect) {
	case OK:
		CHECK(err == cudaSuccess, "%s: %s", what, cudaGetErrorString(err));
		return err == cudaSuccess;
	case NOIMAGE:
		std::printf("%s: %s\n", what, cudaGetErrorString(err));
		CHECK(err == cudaErrorNoKernelImageForDevice, "%s: %s", what, cudaGetErrorName(err));
		CHECK(std::strcmp(cudaGetErrorString(err),
				  "no kernel image is available for execution on the device") == 0,
		      "%s: message '%s'", what, cudaGetErrorString(err));
		break;
	default:
		CHECK(err == cudaErrorNotSupported, "%s: %s", what, cudaGetErrorName(err));
		break;
	}
	CHECK(last == err, "%s: cudaGetLastError gave %s", what, cudaGetErrorName(last));
	return false;
}

#define LAUNCHED(what) launched(cudaPeekAtLastError(), what)

static void check_kernels()
{
	const int n = 1000;
	cudaStream_t s1, s2;
	cudaEvent_t done;
	CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) == cudaSuccess, "stream");
	CHECK(cudaStreamCreate(&s2) == cudaSuccess, "stream");
	CHECK(cudaEventCreate(&done) == cudaSuccess, "event");

	// Constants first: they live in the module, so this loads it (or fails as a launch does).
	float scale[4] = {2.0f, 0.5f, 0, 0};
	cudaError_t err = cudaMemcpyToSymbol(scale_c, scale, sizeof scale);
	if (kernels_expect == OK)
		CHECK(err == cudaSuccess, "cudaMemcpyToSymbol: %s", cudaGetErrorName(err));
	else
		CHECK(err != cudaSuccess, "cudaMemcpyToSymbol succeeded without a usable image");
	cudaGetLastError();

	// sum_bf16 on a non-blocking stream with 1 KiB of dynamic shared memory.
	std::vector<__nv_bfloat16> hx(n);
	double want = 0;
	for (int i = 0; i < n; i++) {
		hx[i] = bf((float)(i % 7) - 3.0f);
		want += 2.0 * ((i % 7) - 3.0);
	}
	__nv_bfloat16 *dx;
	float *dsum;
	CHECK(cudaMalloc(&dx, n * sizeof *dx) == cudaSuccess, "malloc");
	CHECK(cudaMalloc(&dsum, sizeof *dsum) == cudaSuccess, "malloc");
	cudaMemcpyAsync(dx, hx.data(), n * sizeof *dx, cudaMemcpyHostToDevice, s1);
	cudaMemsetAsync(dsum, 0, sizeof *dsum, s1);
	sum_bf16<<<(n + 255) / 256, 256, 8 * sizeof(float), s1>>>(dx, n, dsum);
	if (LAUNCHED("sum_bf16")) {
		float got = -1;
		cudaMemcpyAsync(&got, dsum, sizeof got, cudaMemcpyDeviceToHost, s1);
		cudaEventRecord(done, s1);
		cudaEventSynchronize(done);
		CHECK(got == (float)want, "sum %g, want %g", got, want);
		int seen = -1;
		CHECK(cudaMemcpyFromSymbol(&seen, launches_seen, sizeof seen) == cudaSuccess, "from");
		CHECK(seen == (n + 255) / 256, "launches_seen %d", seen);
		// __managed__: the host reads what the kernel added to its initial value, and
		// writes it directly.
		CHECK(managed_count == 40 + (n + 255) / 256, "managed_count %d", managed_count);
		managed_count = 7;
		CHECK(managed_count == 7, "managed_count written %d", managed_count);
	}

	// axpy_bf16 and round_bf16 on the legacy-synchronising stream s2.
	std::vector<__nv_bfloat16> hy(n), hr(n);
	std::vector<float> hf(n);
	for (int i = 0; i < n; i++) {
		hy[i] = bf((float)(i % 5) * 0.25f);
		hf[i] = 1.0f + (float)i / 4096.0f; // needs rounding to 8 significant bits
	}
	__nv_bfloat16 *dy, *dr;
	float *df;
	cudaMalloc(&dy, n * sizeof *dy);
	cudaMalloc(&dr, n * sizeof *dr);
	cudaMalloc(&df, n * sizeof *df);
	cudaMemcpy(dy, hy.data(), n * sizeof *dy, cudaMemcpyHostToDevice);
	cudaMemcpy(df, hf.data(), n * sizeof *df, cudaMemcpyHostToDevice);
	axpy_bf16<<<(n + 127) / 128, 128, 0, s2>>>(n, bf(1.5f), dx, dy);
	if (LAUNCHED("axpy_bf16")) {
		std::vector<__nv_bfloat16> got(n);
		cudaStreamSynchronize(s2);
		cudaMemcpy(got.data(), dy, n * sizeof *dy, cudaMemcpyDeviceToHost);
		for (int i = 0; i < n; i++) {
			float w = 1.5f * fl(hx[i]) + fl(hy[i]);
			if (fl(got[i]) != w) {
				CHECK(fl(got[i]) == w, "axpy[%d] %g, want %g", i, fl(got[i]), w);
				break;
			}
		}
	}
	round_bf16<<<(n + 127) / 128, 128, 0, s2>>>(n, df, dr);
	if (LAUNCHED("round_bf16")) {
		cudaMemcpy(hr.data(), dr, n * sizeof *dr, cudaMemcpyDeviceToHost);
		for (int i = 0; i < n; i++) {
			unsigned short g, w;
			__nv_bfloat16 want_bf = bf(hf[i]);
			std::memcpy(&g, &hr[i], 2);
			std::memcpy(&w, &want_bf, 2);
			if (g != w) {
				CHECK(g == w, "round[%d] 0x%04x, want 0x%04x", i, g, w);
				break;
			}
		}
	}

	// histogram16 on a 2-D grid of 2-D blocks, default stream.
	std::vector<int> hi(n);
	unsigned hist_want[16] = {0};
	for (int i = 0; i < n; i++) {
		hi[i] = (i * 37) % 101;
		hist_want[hi[i] & 15]++;
	}
	int *di;
	unsigned *dh;
	cudaMalloc(&di, n * sizeof *di);
	cudaMalloc(&dh, 16 * sizeof *dh);
	cudaMemcpy(di, hi.data(), n * sizeof *di, cudaMemcpyHostToDevice);
	cudaMemset(dh, 0, 16 * sizeof *dh);
	histogram16<<<dim3(2, 2), dim3(16, 16)>>>(di, n, dh);
	if (LAUNCHED("histogram16")) {
		unsigned got[16];
		cudaMemcpy(got, dh, sizeof got, cudaMemcpyDeviceToHost);
		for (int b = 0; b < 16; b++)
			CHECK(got[b] == hist_want[b], "hist[%d] %u, want %u", b, got[b], hist_want[b]);
	}

	// __device__ array written by a kernel, read by symbol and by address.
	fill_results<<<1, 32>>>(10.0f);
	if (LAUNCHED("fill_results")) {
		float r[8], r2[8];
		void *addr = nullptr;
		size_t size = 0;
		CHECK(cudaMemcpyFromSymbol(r, results_d, sizeof r) == cudaSuccess, "from symbol");
		for (int i = 0; i < 8; i++)
			CHECK(r[i] == 10.0f + 0.5f * i, "results_d[%d] = %g", i, r[i]);
		CHECK(cudaGetSymbolAddress(&addr, results_d) == cudaSuccess && addr, "address");
		CHECK(cudaGetSymbolSize(&size, results_d) == cudaSuccess && size == sizeof r,
		      "size %zu", size);
		cudaMemcpy(r2, addr, sizeof r2, cudaMemcpyDeviceToHost);
		CHECK(std::memcmp(r, r2, sizeof r) == 0, "by address");
		CHECK(cudaMemcpyFromSymbol(r2, results_d, sizeof r2, 4) == cudaErrorInvalidValue,
		      "past the end");
		CHECK(cudaMemcpyToSymbol(results_d, r, 4, 0, cudaMemcpyDeviceToHost) ==
			      cudaErrorInvalidMemcpyDirection,
		      "direction");
		static float not_a_symbol;
		CHECK(cudaMemcpyToSymbol(not_a_symbol, r, 4) == cudaErrorInvalidSymbol, "symbol");
		cudaGetLastError();
	}

	// Attributes, the occupancy calculator, cudaGetFuncBySymbol.
	cudaFuncAttributes attr;
	err = cudaFuncGetAttributes(&attr, histogram16);
	if (kernels_expect == OK || kernels_expect == SASS) {
		// A SASS-only image has them too: the device would load it.
		CHECK(err == cudaSuccess, "cudaFuncGetAttributes: %s", cudaGetErrorName(err));
		CHECK(attr.sharedSizeBytes == 16 * sizeof(unsigned), "static shared %zu",
		      attr.sharedSizeBytes);
		CHECK(attr.maxThreadsPerBlock == 256, "__launch_bounds__: %d", attr.maxThreadsPerBlock);
	}
	if (kernels_expect == OK) {
		int dev = 0;
		cudaDeviceProp p;
		cudaGetDevice(&dev);
		cudaGetDeviceProperties(&p, dev);
		// This build's PTX is compute_75 or compute_80; the driver JIT-compiles it for the
		// device unless a SASS image of the same major fits.  Below that, what runs is
		// bf16shim's lowering of it, for the device's own architecture.
		CHECK(attr.ptxVersion == 75 || attr.ptxVersion == 80 ||
			      attr.ptxVersion == p.major * 10 + p.minor,
		      "ptxVersion %d", attr.ptxVersion);
		CHECK(attr.binaryVersion == p.major * 10 + p.minor ||
			      attr.binaryVersion / 10 == p.major,
		      "binaryVersion %d", attr.binaryVersion);
		int blocks = 0, min_grid = 0, best = 0;
		CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, sum_bf16, 256, 1024) ==
			      cudaSuccess && blocks > 0,
		      "occupancy %d", blocks);
		CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best, histogram16) == cudaSuccess &&
			      best > 0 && best <= 256 && min_grid > 0,
		      "potential block size %d, grid %d", best, min_grid);
		cudaFunction_t f = nullptr;
		CHECK(cudaGetFuncBySymbol(&f, (const void *)axpy_bf16) == cudaSuccess && f, "by symbol");
	} else if (kernels_expect == NOIMAGE) {
		CHECK(err == cudaErrorNoKernelImageForDevice, "cudaFuncGetAttributes: %s",
		      cudaGetErrorName(err));
	}
	cudaGetLastError();

	// Handles that are not kernels: refused by name, never dereferenced.
	static int not_a_kernel;
	void *no_args[1] = {nullptr};
	CHECK(cudaLaunchKernel((const void *)&not_a_kernel, dim3(1), dim3(1), no_args, 0, 0) ==
		      cudaErrorInvalidDeviceFunction,
	      "launch of a host variable");
	CHECK(cudaLaunchKernel((const void *)(uintptr_t)0xdead0000, dim3(1), dim3(1), no_args, 0,
			       0) == cudaErrorInvalidDeviceFunction,
	      "launch of a wild pointer");
	CHECK(cudaFuncGetAttributes(&attr, (const void *)&not_a_kernel) ==
		      cudaErrorInvalidDeviceFunction,
	      "attributes of a host variable");
	cudaKernel_t kernel_handle = nullptr;
	CHECK(cudaGetKernel(&kernel_handle, (const void *)&not_a_kernel) ==
		      cudaErrorInvalidDeviceFunction,
	      "cudaGetKernel of a host variable");
	CHECK(cudaGetKernel(&kernel_handle, (const void *)fill_results) == cudaSuccess &&
		      kernel_handle,
	      "cudaGetKernel");
	const char *kname = nullptr;
	CHECK(cudaFuncGetName(&kname, (const void *)fill_results) == cudaSuccess && kname &&
		      std::strcmp(kname, "_Z12fill_resultsf") == 0,
	      "cudaFuncGetName: %s", kname ? kname : "(null)");
	cudaGetLastError();

	// Launch configurations the device refuses, whatever the image.
	int *dout;
	cudaMalloc(&dout, sizeof *dout);
	touch_shared<<<0, 32>>>(4, dout);
	CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "zero grid");
	touch_shared<<<1, 2048>>>(4, dout);
	CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "2048 threads");
	touch_shared<<<dim3(1, 70000), 32>>>(4, dout);
	CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "grid.y 70000");
	if (kernels_expect == OK) {
		// 60 KiB of dynamic shared memory: refused until the kernel opts in, and only on
		// devices that have it (sm_70 and newer).
		int words = 60 * 1024 / 4, optin = 0, dev = 0;
		cudaGetDevice(&dev);
		cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
		touch_shared<<<1, 64, words * 4>>>(words, dout);
		CHECK(cudaGetLastError() == cudaErrorInvalidValue, "60 KiB without opting in");
		err = cudaFuncSetAttribute(touch_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
					   words * 4);
		if (optin >= words * 4) {
			CHECK(err == cudaSuccess, "opt in: %s", cudaGetErrorName(err));
			touch_shared<<<1, 64, words * 4>>>(words, dout);
			if (LAUNCHED("touch_shared 60 KiB")) {
				int got = 0;
				cudaMemcpy(&got, dout, sizeof got, cudaMemcpyDeviceToHost);
				CHECK(got == words - 1, "touch_shared %d", got);
			}
		} else {
			CHECK(err == cudaErrorInvalidValue, "opt in past the device: %s",
			      cudaGetErrorName(err));
		}
		// An explicit cudaLaunchKernel with an argument array.
		int w = 8;
		void *args[] = {&w, &dout};
		err = cudaLaunchKernel((const void *)touch_shared, dim3(1), dim3(32), args, 64, 0);
		if (launched(err, "cudaLaunchKernel")) {
			int got = 0;
			cudaMemcpy(&got, dout, sizeof got, cudaMemcpyDeviceToHost);
			CHECK(got == 7, "cudaLaunchKernel result %d", got);
		}
		// cudaLaunchKernelEx (cudaLaunchKernelExC underneath) with a priority attribute.
		cudaLaunchConfig_t cfg = {};
		cudaLaunchAttribute a[1];
		a[0].id = cudaLaunchAttributePriority;
		a[0].val.priority = 0;
		cfg.gridDim = dim3(1);
		cfg.blockDim = dim3(32);
		cfg.dynamicSmemBytes = 64;
		cfg.stream = s1;
		cfg.attrs = a;
		cfg.numAttrs = 1;
		w = 5;
		err = cudaLaunchKernelEx(&cfg, touch_shared, w, dout);
		if (launched(err, "cudaLaunchKernelEx")) {
			int got = 0;
			cudaStreamSynchronize(s1);
			cudaMemcpy(&got, dout, sizeof got, cudaMemcpyDeviceToHost);
			CHECK(got == 4, "cudaLaunchKernelEx result %d", got);
		}
	}
	CHECK(cudaDeviceSynchronize() == cudaSuccess, "synchronize");
	cudaFree(dx);
	cudaFree(dsum);
	cudaFree(dy);
	cudaFree(dr);
	cudaFree(df);
	cudaFree(di);
	cudaFree(dh);
	cudaFree(dout);
	cudaEventDestroy(done);
	cudaStreamDestroy(s1);
	cudaStreamDestroy(s2);
}

// ------------------------------------------------------------------ cuBLAS and cuBLASLt

// C = A^T B in bf16 with fp32 accumulation (PyTorch's call), then through cuBLASLt with a
// bias epilogue; every element against an fp64 reference of the same bf16 inputs.
static void check_gemms()
{
	const int m = 24, n = 16, k = 40;
	std::vector<__nv_bfloat16> a(k * m), b(k * n), bias(m);
	for (int i = 0; i < k * m; i++)
		a[i] = bf((float)((i * 7) % 13 - 6) / 8.0f);
	for (int i = 0; i < k * n; i++)
		b[i] = bf((float)((i * 5) % 11 - 5) / 4.0f);
	for (int i = 0; i < m; i++)
		bias[i] = bf((float)i / 2.0f);
	std::vector<double> ref(m * n);
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			double s = 0;
			for (int l = 0; l < k; l++)
				s += (double)fl(a[i * k + l]) * fl(b[j * k + l]);
			ref[j * m + i] = s;
		}

	__nv_bfloat16 *da, *db, *dc, *dbias;
	cudaMalloc(&da, a.size() * 2);
	cudaMalloc(&db, b.size() * 2);
	cudaMalloc(&dc, m * n * 2);
	cudaMalloc(&dbias, m * 2);
	cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
	cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
	cudaMemcpy(dbias, bias.data(), m * 2, cudaMemcpyHostToDevice);

	cublasHandle_t h;
	CHECK(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
	float one = 1, zero = 0;
	cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, da,
					 CUDA_R_16BF, k, db, CUDA_R_16BF, k, &zero, dc, CUDA_R_16BF,
					 m, (cublasComputeType_t)CUDA_R_32F,
					 CUBLAS_GEMM_DEFAULT_TENSOR_OP);
	std::vector<__nv_bfloat16> c(m * n);
	if (gemm_expect == NOTSUP) {
		CHECK(st == CUBLAS_STATUS_NOT_SUPPORTED, "bf16 GemmEx gave %d", (int)st);
	} else {
		CHECK(st == CUBLAS_STATUS_SUCCESS, "bf16 GemmEx gave %d", (int)st);
		cudaMemcpy(c.data(), dc, m * n * 2, cudaMemcpyDeviceToHost);
		for (int i = 0; i < m * n; i++) {
			// One bf16 rounding of an fp32-accumulated sum.
			double tol = std::fabs(ref[i]) / 128 + 1e-3;
			if (std::fabs(fl(c[i]) - ref[i]) > tol) {
				CHECK(false, "GemmEx C[%d] = %g, want %g", i, fl(c[i]), ref[i]);
				break;
			}
		}
	}

	cublasLtHandle_t lt;
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t la, lb, lc;
	cublasLtMatmulPreference_t pref;
	cublasOperation_t ta = CUBLAS_OP_T;
	cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
	size_t ws_bytes = 1 << 20;
	void *ws;
	cudaMalloc(&ws, ws_bytes);
	CHECK(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
	cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
	cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
	cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias);
	cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, k, m, k);
	cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, n, k);
	cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, m, n, m);
	cublasLtMatmulPreferenceCreate(&pref);
	cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
					     sizeof ws_bytes);
	cublasLtMatmulHeuristicResult_t heur;
	int found = 0;
	st = cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &heur, &found);
	if (st == CUBLAS_STATUS_SUCCESS && found)
		st = cublasLtMatmul(lt, desc, &one, da, la, db, lb, &zero, dc, lc, dc, lc, &heur.algo,
				    ws, ws_bytes, 0);
	else if (st == CUBLAS_STATUS_SUCCESS)
		st = CUBLAS_STATUS_NOT_SUPPORTED; // no algorithm: what PyTorch falls back from
	if (gemm_expect == NOTSUP) {
		CHECK(st == CUBLAS_STATUS_NOT_SUPPORTED, "bf16 Lt matmul gave %d", (int)st);
	} else {
		CHECK(st == CUBLAS_STATUS_SUCCESS, "bf16 Lt matmul gave %d", (int)st);
		cudaMemcpy(c.data(), dc, m * n * 2, cudaMemcpyDeviceToHost);
		for (int j = 0; j < n; j++)
			for (int i = 0; i < m; i++) {
				double want = ref[j * m + i] + fl(bias[i]);
				double tol = std::fabs(want) / 128 + 1e-3;
				if (std::fabs(fl(c[j * m + i]) - want) > tol) {
					CHECK(false, "Lt C[%d,%d] = %g, want %g", i, j, fl(c[j * m + i]),
					      want);
					j = n;
					break;
				}
			}
	}
	cublasLtMatmulPreferenceDestroy(pref);
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(lc);
	cublasLtMatmulDescDestroy(desc);
	cublasLtDestroy(lt);
	cublasDestroy(h);
	cudaFree(ws);
	cudaFree(da);
	cudaFree(db);
	cudaFree(dc);
	cudaFree(dbias);
}

static expect parse(const char *s)
{
	if (!std::strcmp(s, "ok"))
		return OK;
	if (!std::strcmp(s, "noimage"))
		return NOIMAGE;
	if (!std::strcmp(s, "sass"))
		return SASS;
	if (!std::strcmp(s, "notsup"))
		return NOTSUP;
	std::fprintf(stderr, "unknown expectation '%s'\n", s);
	std::exit(2);
}

int main(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!std::strcmp(argv[i], "--kernels"))
			kernels_expect = parse(argv[i + 1]);
		else if (!std::strcmp(argv[i], "--gemm"))
			gemm_expect = parse(argv[i + 1]);
	}
	check_kernels();
	check_gemms();
	cudaDeviceProp prop;
	cudaGetDeviceProperties(&prop, 0);
	std::printf("%s on sm_%d%d: %d failure(s)\n", argv[0], prop.major, prop.minor, failures);
	return failures ? 1 : 0;
}
