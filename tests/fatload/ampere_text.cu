// Device code that needs Ampere without a single bf16: asynchronous copies to shared memory
// (the pipeline primitives: cp.async with zero fill, commit, wait), an f16 mma.m16n8k16 whose
// operands come from shared memory through ldmatrix, and a tf32 rounding (cvt.rna.tf32.f32,
// which the lowering cannot handle yet: its kernel is left out).  Built as PTX text with
// nvcc -arch=compute_80 -ptx (without the tf32 kernel when LOWERS_WHOLE is defined), which
// a program hands the driver itself; textpaths.c loads it every way the driver takes PTX.
#include <cuda_fp16.h>
#include <cuda_pipeline_primitives.h>

#define THREADS 128

// Each thread copies 16 bytes into shared memory, the first 16 - 4 * (t % 5) of them from
// global memory and zeros after; the block writes shared memory out reversed.
extern "C" __global__ void async_copy(const float *in, float *out)
{
	__shared__ __align__(16) float tile[THREADS * 4];
	int t = threadIdx.x, base = blockIdx.x * THREADS * 4;
	size_t zeros = (size_t)(t % 5) * 4;
	__pipeline_memcpy_async(&tile[4 * t], &in[base + 4 * t], 16, zeros);
	__pipeline_commit();
	__pipeline_wait_prior(0);
	__syncthreads();
	for (int k = 0; k < 4; k++)
		out[base + 4 * t + k] = tile[THREADS * 4 - 1 - (4 * t + k)];
}

// One warp: D (16x8, f32) = A (16x16, row-major) * B + C, with B given as its 8 columns of
// 16 (b[n * 16 + k]).  A and B go to shared memory and come back as mma fragments through
// ldmatrix (.x4 for A, .x2 for B).
extern "C" __global__ void mma_f16(const __half *a, const __half *b, const float *c, float *d)
{
	__shared__ __align__(16) __half sa[16 * 16], sb[8 * 16];
	int lane = threadIdx.x, row = lane / 4, col = lane % 4 * 2;
	unsigned ra[4], rb[2], pa, pb;
	float acc[4];

	for (int i = lane; i < 16 * 16; i += 32)
		sa[i] = a[i];
	for (int i = lane; i < 8 * 16; i += 32)
		sb[i] = b[i];
	__syncwarp();
	pa = (unsigned)__cvta_generic_to_shared(&sa[lane % 16 * 16 + lane / 16 * 8]);
	pb = (unsigned)__cvta_generic_to_shared(&sb[lane % 8 * 16 + lane / 8 % 2 * 8]);
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
		     : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3]) : "r"(pa));
	asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
		     : "=r"(rb[0]), "=r"(rb[1]) : "r"(pb));
	for (int i = 0; i < 4; i++)
		acc[i] = c[(row + i / 2 * 8) * 8 + col + i % 2];
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
		     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
		     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
		     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
	for (int i = 0; i < 4; i++)
		d[(row + i / 2 * 8) * 8 + col + i % 2] = acc[i];
}

#ifndef LOWERS_WHOLE
// Each value rounded to tf32 (to nearest, ties away: cvt.rna.tf32.f32).
extern "C" __global__ void tf32_round(const float *in, unsigned *out)
{
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(in[threadIdx.x]));
	out[threadIdx.x] = r;
}
#endif
