// Ampere-only device code in compiled CUDA C++: bf16 atomics (atomicAdd on __nv_bfloat16
// and __nv_bfloat162), asynchronous copies to shared memory with the pipeline primitives
// (cp.async with zero fill, commit and wait) and with cuda::memcpy_async on a
// cuda::barrier (mbarrier, cp.async.mbarrier.arrive), and bf16 wmma, in one module.  Built with
// -arch=sm_80: below sm_80 only its PTX can run, through bf16shim.  Every case is
// bit-exact against the sm_80 run (harness.h); the atomics add values whose sums are exact
// in bf16, so the order the threads come in does not change them.
#include <cuda_bf16.h>
#include <cuda_pipeline_primitives.h>
#include <cuda/barrier>
#include <mma.h>

#include "harness.h"

#define BLOCKS 4
#define THREADS 128

// ------------------------------------------------------------------ bf16 atomics

__global__ void bf16_adds(__nv_bfloat16 *counts, __nv_bfloat162 *pairs, __nv_bfloat16 *shared_out)
{
	__shared__ __nv_bfloat16 local[8];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	if (t < 8)
		local[t] = __float2bfloat16(0.0f);
	__syncthreads();
	__nv_bfloat16 one = __float2bfloat16(t % 3 == 0 ? 1.0f : 0.5f);
	atomicAdd(&counts[i % 16], one);
	atomicAdd(&pairs[i % 8], __floats2bfloat162_rn(0.25f, -2.0f));
	atomicAdd(&local[t % 8], one);
	__syncthreads();
	if (t < 8)
		shared_out[blockIdx.x * 8 + t] = local[t];
}

static cudaError_t bf16_atomics(std::vector<uint32_t> &out)
{
	__nv_bfloat16 *c, *s;
	__nv_bfloat162 *p;
	FL_TRY(cudaMalloc(&c, 16 * sizeof *c));
	FL_TRY(cudaMalloc(&p, 8 * sizeof *p));
	FL_TRY(cudaMalloc(&s, BLOCKS * 8 * sizeof *s));
	FL_TRY(cudaMemset(c, 0, 16 * sizeof *c));
	FL_TRY(cudaMemset(p, 0, 8 * sizeof *p));
	bf16_adds<<<BLOCKS, THREADS>>>(c, p, s);
	FL_LAUNCHED();
	FL_TRY(fl_collect(out, c, 16));
	FL_TRY(fl_collect(out, p, 8));
	return fl_collect(out, s, BLOCKS * 8);
}
FL_CASE(bf16_atomics, 0);

// ------------------------------------------------------------------ pipeline primitives

// Each thread copies 16 bytes into shared memory, the first src_size of them from global
// memory and zeros after (src_size: 0, 4, 8, 12 or 16 by thread), waits, and the block
// writes shared memory out reversed (so a thread reads what others copied).
__global__ void pipeline_copy(const float *in, float *out)
{
	__shared__ __align__(16) float tile[THREADS * 4];
	int t = threadIdx.x, base = blockIdx.x * THREADS * 4;
	size_t src_size = (size_t)(t % 5) * 4;
	__pipeline_memcpy_async(&tile[4 * t], &in[base + 4 * t], 16, 16 - src_size);
	__pipeline_commit();
	__pipeline_wait_prior(0);
	__syncthreads();
	for (int k = 0; k < 4; k++)
		out[base + 4 * t + k] = tile[THREADS * 4 - 1 - (4 * t + k)];
}

static cudaError_t pipeline_zfill(std::vector<uint32_t> &out)
{
	int n = BLOCKS * THREADS * 4;
	std::vector<float> h(n);
	for (int i = 0; i < n; i++)
		h[i] = fl_input(i, 7);
	float *x, *y;
	FL_TRY(cudaMalloc(&x, n * sizeof *x));
	FL_TRY(cudaMalloc(&y, n * sizeof *y));
	FL_TRY(cudaMemcpy(x, h.data(), n * sizeof *x, cudaMemcpyHostToDevice));
	pipeline_copy<<<BLOCKS, THREADS>>>(x, y);
	FL_LAUNCHED();
	return fl_collect(out, y, n);
}
FL_CASE(pipeline_zfill, 0);

// ------------------------------------------------------------------ cuda::memcpy_async

// Two tiles through shared memory, each copied with cuda::memcpy_async on a block-scoped
// cuda::barrier and summed after the barrier's wait.
__global__ void barrier_copy(const float *in, float *out)
{
	__shared__ __align__(16) float tile[2][THREADS];
	// initialised by init() below, as the CUDA C++ Programming Guide's examples do
#pragma nv_diag_suppress static_var_with_dynamic_init
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	int t = threadIdx.x;
	if (t == 0)
		init(&bar, blockDim.x);
	__syncthreads();
	float acc = 0;
	for (int step = 0; step < 2; step++) {
		const float *src = in + (blockIdx.x * 2 + step) * THREADS;
		if (t == 0)
			cuda::memcpy_async(tile[step], src, cuda::aligned_size_t<16>(THREADS * sizeof(float)),
					   bar);
		bar.arrive_and_wait();
		acc += tile[step][THREADS - 1 - t] * (step ? 2.0f : 1.0f);
	}
	out[blockIdx.x * THREADS + t] = acc;
}

static cudaError_t memcpy_async_barrier(std::vector<uint32_t> &out)
{
	int n = BLOCKS * 2 * THREADS;
	std::vector<float> h(n);
	for (int i = 0; i < n; i++)
		h[i] = fl_input(i, 11);
	float *x, *y;
	FL_TRY(cudaMalloc(&x, n * sizeof *x));
	FL_TRY(cudaMalloc(&y, BLOCKS * THREADS * sizeof *y));
	FL_TRY(cudaMemcpy(x, h.data(), n * sizeof *x, cudaMemcpyHostToDevice));
	barrier_copy<<<BLOCKS, THREADS>>>(x, y);
	FL_LAUNCHED();
	return fl_collect(out, y, BLOCKS * THREADS);
}
FL_CASE(memcpy_async_barrier, 0);

// ------------------------------------------------------------------ bf16 wmma

// One warp a block: a 16 x 16 f32 tile loaded row-major, plus A (16 x 32, row-major) times B
// (32 x 16, column-major) in two m16n16k16 steps, stored column-major.  Small integers:
// every product and sum is exact in f32, so the result does not depend on the order of the
// sums and must match sm_80 bit for bit.
__global__ void wmma_tiles(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c)
{
	using namespace nvcuda;
	wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
	int tile = blockIdx.x;
	wmma::load_matrix_sync(fc, c + tile * 256, 16, wmma::mem_row_major);
	for (int k = 0; k < 2; k++) {
		wmma::load_matrix_sync(fa, a + tile * 512 + k * 16, 32);
		wmma::load_matrix_sync(fb, b + tile * 512 + k * 16, 32);
		wmma::mma_sync(fc, fa, fb, fc);
	}
	wmma::store_matrix_sync(c + tile * 256, fc, 16, wmma::mem_col_major);
}

static cudaError_t bf16_wmma(std::vector<uint32_t> &out)
{
	int n = BLOCKS * 512, m = BLOCKS * 256;
	std::vector<__nv_bfloat16> ha(n), hb(n);
	std::vector<float> hc(m);
	for (int i = 0; i < n; i++) {
		ha[i] = __float2bfloat16((float)(i * 7 % 9 - 4));
		hb[i] = __float2bfloat16((float)(i * 5 % 11 - 5));
	}
	for (int i = 0; i < m; i++)
		hc[i] = (float)(i % 5 - 2);
	__nv_bfloat16 *a, *b;
	float *c;
	FL_TRY(cudaMalloc(&a, n * sizeof *a));
	FL_TRY(cudaMalloc(&b, n * sizeof *b));
	FL_TRY(cudaMalloc(&c, m * sizeof *c));
	FL_TRY(cudaMemcpy(a, ha.data(), n * sizeof *a, cudaMemcpyHostToDevice));
	FL_TRY(cudaMemcpy(b, hb.data(), n * sizeof *b, cudaMemcpyHostToDevice));
	FL_TRY(cudaMemcpy(c, hc.data(), m * sizeof *c, cudaMemcpyHostToDevice));
	wmma_tiles<<<BLOCKS, 32>>>(a, b, c);
	FL_LAUNCHED();
	return fl_collect(out, c, m);
}
FL_CASE(bf16_wmma, 0);
