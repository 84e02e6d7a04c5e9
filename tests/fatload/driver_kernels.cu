// Kernels that a program loads through the driver API itself, as a fatbin (nvcc -fatbin
// -arch=sm_80: SASS sm_80 and PTX compute_80), for loadpaths.c: one that lowers, one that
// cannot be lowered below sm_80 today (cvt.rna.tf32.f32), in one module.
#include <cuda_bf16.h>

extern "C" __global__ void scale_bf16(const __nv_bfloat16 *x, __nv_bfloat16 *y, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __float2bfloat16(__bfloat162float(x[i]) * s);
}

// The warp's total (redux.sync, which lowers), as a tf32 (which does not).
extern "C" __global__ void warp_total(const unsigned *x, unsigned *out)
{
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"((float)__reduce_add_sync(0xffffffffu, x[threadIdx.x])));
	out[threadIdx.x] = r;
}
