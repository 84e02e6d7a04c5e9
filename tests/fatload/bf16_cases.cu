// bf16 in compiled CUDA C++: cuda_bf16.h arithmetic on __nv_bfloat16 and __nv_bfloat162,
// __constant__ data, dynamic shared memory past 48 KiB (the opt-in attribute), __device__
// variables read back with cudaMemcpyFromSymbol, a warp reduction (redux.sync, lowered to
// shuffles), tanh.approx.f32 (sm_75; its own approximation below), and a kernel the
// lowering cannot handle today (cvt.rna.tf32.f32, which needs sm_80) between the others, in
// one module.  Built with -arch=sm_80: below sm_80 only its PTX can run, through bf16shim.
// Every case is bit-exact against the sm_80 run (harness.h), but the approximation: within
// one bf16 ulp of it.
#include <cuda_bf16.h>

#include "harness.h"

#define N 1024
#define THREADS 128

__constant__ __nv_bfloat16 table_c[64];
__constant__ float scale_c[4];
__device__ __nv_bfloat16 sums_d[N / THREADS];
__device__ unsigned blocks_d;

// Inputs as bf16, in device memory.
static cudaError_t inputs(__nv_bfloat16 **x, __nv_bfloat16 **y, int salt)
{
	std::vector<__nv_bfloat16> hx(N), hy(N);
	for (int i = 0; i < N; i++) {
		hx[i] = __float2bfloat16(fl_input(i, salt));
		hy[i] = __float2bfloat16(fl_input(i, salt + 1));
	}
	FL_TRY(cudaMalloc(x, N * sizeof **x));
	FL_TRY(cudaMalloc(y, N * sizeof **y));
	FL_TRY(cudaMemcpy(*x, hx.data(), N * sizeof **x, cudaMemcpyHostToDevice));
	return cudaMemcpy(*y, hy.data(), N * sizeof **y, cudaMemcpyHostToDevice);
}

// ------------------------------------------------------------------ scalar bf16

__global__ void scalar_math(const __nv_bfloat16 *x, const __nv_bfloat16 *y, __nv_bfloat16 *out,
			    float *outf)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	__nv_bfloat16 a = x[i], b = y[i];
	out[8 * i + 0] = a * b + a;                      // operators
	out[8 * i + 1] = __hfma(a, b, __float2bfloat16(0.375f));
	out[8 * i + 2] = __hmax(a, b);
	out[8 * i + 3] = __hmin(__habs(a), __hneg(b));
	out[8 * i + 4] = a - b;
	out[8 * i + 5] = __float2bfloat16_rz(__bfloat162float(a) / 3.0f);
	out[8 * i + 6] = __float2bfloat16(__bfloat162float(b) * 1e30f);   // overflow to inf
	out[8 * i + 7] = __hlt(a, b) ? a : __hmul(b, __float2bfloat16(0.5f));
	outf[i] = __bfloat162float(a) + __bfloat162float(b);
}

static cudaError_t scalar_bf16(std::vector<uint32_t> &out)
{
	__nv_bfloat16 *x, *y, *r;
	float *rf;
	FL_TRY(inputs(&x, &y, 1));
	FL_TRY(cudaMalloc(&r, 8 * N * sizeof *r));
	FL_TRY(cudaMalloc(&rf, N * sizeof *rf));
	scalar_math<<<N / THREADS, THREADS>>>(x, y, r, rf);
	FL_LAUNCHED();
	FL_TRY(fl_collect(out, r, 8 * N));
	return fl_collect(out, rf, N);
}
FL_CASE(scalar_bf16, 0);

// ------------------------------------------------------------------ bf16x2

__global__ void pair_math(const __nv_bfloat162 *x, const __nv_bfloat162 *y, __nv_bfloat162 *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	__nv_bfloat162 a = x[i], b = y[i];
	out[5 * i + 0] = __hadd2(a, b);
	out[5 * i + 1] = __hmul2(a, b);
	out[5 * i + 2] = __hfma2(a, b, __floats2bfloat162_rn(1.5f, -2.25f));
	out[5 * i + 3] = __hmax2(__lowhigh2highlow(a), __hneg2(b));
	float2 f = __bfloat1622float2(a);
	out[5 * i + 4] = __floats2bfloat162_rn(f.x * f.y, f.x - f.y);
}

static cudaError_t pair_bf16x2(std::vector<uint32_t> &out)
{
	__nv_bfloat16 *x, *y;
	__nv_bfloat162 *r;
	FL_TRY(inputs(&x, &y, 2));
	FL_TRY(cudaMalloc(&r, 5 * N / 2 * sizeof *r));
	pair_math<<<N / 2 / THREADS, THREADS>>>((const __nv_bfloat162 *)x,
						(const __nv_bfloat162 *)y, r);
	FL_LAUNCHED();
	return fl_collect(out, (const uint32_t *)r, 5 * N / 2);
}
FL_CASE(pair_bf16x2, 0);

// ------------------------------------------------------------------ __constant__ data

__global__ void constant_math(const __nv_bfloat16 *x, __nv_bfloat16 *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = __float2bfloat16(__bfloat162float(table_c[i % 64]) * scale_c[i % 4] +
				  __bfloat162float(x[i]));
}

static cudaError_t constant_bf16(std::vector<uint32_t> &out)
{
	__nv_bfloat16 table[64], *x, *y, *r;
	float scale[4] = {0.5f, -3.0f, 1024.0f, 1.0f / 7};
	for (int i = 0; i < 64; i++)
		table[i] = __float2bfloat16(fl_input(i, 3));
	FL_TRY(cudaMemcpyToSymbol(table_c, table, sizeof table));
	FL_TRY(cudaMemcpyToSymbol(scale_c, scale, sizeof scale));
	FL_TRY(inputs(&x, &y, 4));
	FL_TRY(cudaMalloc(&r, N * sizeof *r));
	constant_math<<<N / THREADS, THREADS>>>(x, r);
	FL_LAUNCHED();
	return fl_collect(out, r, N);
}
FL_CASE(constant_bf16, 0);

// ------------------------------------------------------------------ dynamic shared memory

// Stages x in the top of the dynamic shared memory (past 48 KiB where the device allows it),
// then each thread sums a window of its neighbours in bf16.
__global__ void shared_window(const __nv_bfloat16 *x, __nv_bfloat16 *out, unsigned bytes)
{
	extern __shared__ __align__(16) unsigned char smem[];
	__nv_bfloat16 *top = (__nv_bfloat16 *)(smem + bytes) - N;
	for (int i = threadIdx.x; i < N; i += blockDim.x)
		top[i] = x[i];
	__syncthreads();
	for (int i = threadIdx.x; i < N; i += blockDim.x) {
		__nv_bfloat16 s = top[i];
		for (int k = 1; k < 8; k++)
			s = __hfma(top[(i + k) % N], __float2bfloat16(0.25f * k), s);
		out[i] = s;
	}
}

static cudaError_t dynamic_shared_optin(std::vector<uint32_t> &out)
{
	int dev, optin;
	__nv_bfloat16 *x, *y, *r;
	FL_TRY(cudaGetDevice(&dev));
	FL_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
	unsigned bytes = optin < 64 * 1024 ? (unsigned)optin : 64 * 1024;
	FL_TRY(cudaFuncSetAttribute(shared_window, cudaFuncAttributeMaxDynamicSharedMemorySize,
				    (int)bytes));
	FL_TRY(inputs(&x, &y, 5));
	FL_TRY(cudaMalloc(&r, N * sizeof *r));
	shared_window<<<1, THREADS, bytes>>>(x, r, bytes);
	FL_LAUNCHED();
	return fl_collect(out, r, N);
}
FL_CASE(dynamic_shared_optin, 0);

// redux.sync (sm_80): shuffles below sm_80.  Lanes 0-19 only (a member mask in a
// register), the minimum and the total.
__global__ void warp_min_total(const unsigned *x, unsigned *out, unsigned mask)
{
	if (threadIdx.x < 20) {
		out[threadIdx.x] = __reduce_min_sync(mask, x[threadIdx.x]);
		out[32 + threadIdx.x] = __reduce_add_sync(mask, x[threadIdx.x]);
	}
}

static cudaError_t redux_partial(std::vector<uint32_t> &out)
{
	unsigned hx[32], *x, *r;
	for (int i = 0; i < 32; i++)
		hx[i] = 2654435761u * (i + 3);
	FL_TRY(cudaMalloc(&x, sizeof hx));
	FL_TRY(cudaMalloc(&r, 2 * sizeof hx));
	FL_TRY(cudaMemset(r, 0, 2 * sizeof hx));
	FL_TRY(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
	warp_min_total<<<1, 32>>>(x, r, 0xfffffu);
	FL_LAUNCHED();
	return fl_collect(out, r, 64);
}
FL_CASE(redux_partial, 0);

// ------------------------------------------------------------------ kernels that stay out

// cvt.rna.tf32.f32 (sm_80; what wmma's __float_to_tf32 emits): no lowering below sm_80
// today.  The warp's total, as a tf32.
__global__ void warp_total(const unsigned *x, unsigned *out)
{
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"((float)__reduce_add_sync(0xffffffffu, x[threadIdx.x])));
	out[threadIdx.x] = r;
}

static cudaError_t tf32_total(std::vector<uint32_t> &out)
{
	unsigned hx[32], *x, *r;
	for (int i = 0; i < 32; i++)
		hx[i] = 1000u * i + 7;
	FL_TRY(cudaMalloc(&x, sizeof hx));
	FL_TRY(cudaMalloc(&r, sizeof hx));
	FL_TRY(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
	warp_total<<<1, 32>>>(x, r);
	FL_LAUNCHED();
	return fl_collect(out, r, 32);
}
FL_CASE(tf32_total, 0);

// tanh.approx.f32 (sm_75): below sm_75, an approximation of its own (as accurate or more),
// so after the rounding to bf16 a result may be one ulp off the sm_80 one.
__global__ void fast_tanh(const __nv_bfloat16 *x, __nv_bfloat16 *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float t;
	asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(__bfloat162float(x[i])));
	out[i] = __float2bfloat16(t);
}

static cudaError_t tanh_approx(std::vector<uint32_t> &out)
{
	__nv_bfloat16 *x, *y, *r;
	FL_TRY(inputs(&x, &y, 6));
	FL_TRY(cudaMalloc(&r, N * sizeof *r));
	fast_tanh<<<N / THREADS, THREADS>>>(x, r);
	FL_LAUNCHED();
	FL_TRY(fl_collect(out, r, N));
	for (uint32_t &w : out)
		w <<= 16;             // the bf16 as f32 bits, for the tolerance
	return cudaSuccess;
}
FL_CASE(tanh_approx, 1.0 / 128);

// ------------------------------------------------------------------ __device__ variables

// After the kernels above: the module's other kernels still run.
__global__ void block_sums(const __nv_bfloat16 *x)
{
	__shared__ float part[THREADS];
	part[threadIdx.x] = __bfloat162float(x[blockIdx.x * blockDim.x + threadIdx.x]);
	__syncthreads();
	if (threadIdx.x == 0) {
		float s = 0;
		for (int k = 0; k < THREADS; k++)
			s += part[k];
		sums_d[blockIdx.x] = __float2bfloat16(s);
		atomicAdd(&blocks_d, 1u);
	}
}

static cudaError_t device_globals(std::vector<uint32_t> &out)
{
	__nv_bfloat16 *x, *y, sums[N / THREADS];
	unsigned blocks = 0;
	FL_TRY(cudaMemcpyToSymbol(blocks_d, &blocks, sizeof blocks));
	FL_TRY(inputs(&x, &y, 7));
	block_sums<<<N / THREADS, THREADS>>>(x);
	FL_LAUNCHED();
	FL_TRY(cudaMemcpyFromSymbol(sums, sums_d, sizeof sums));
	FL_TRY(cudaMemcpyFromSymbol(&blocks, blocks_d, sizeof blocks));
	for (int i = 0; i < N / THREADS; i++) {
		uint16_t b;
		std::memcpy(&b, &sums[i], 2);
		out.push_back(b);
	}
	out.push_back(blocks);
	return cudaSuccess;
}
FL_CASE(device_globals, 0);
