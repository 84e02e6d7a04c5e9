// bf16 kernels: conversions through __bfloat162float / __float2bfloat16 (cvt.f32.bf16 and
// cvt.rn.bf16.f32, sm_80), a packed pair conversion (cvt.rn.bf16x2.f32) and a truncating
// one (cvt.rz.bf16.f32).  Test data for the PTX interpreter: bit-exact against a C
// reference on sm_80, refused at load on sm_75 with the instruction named.
#include <cuda_bf16.h>

// For compute_80 nvcc lowers __bfloat162float to a 16-bit shift (mov.b32 {0,h}); this spells
// out the sm_80 instruction so the PTX exercises cvt.f32.bf16 (PTX ISA 7.1).
__device__ __forceinline__ float bf16_to_f32(__nv_bfloat16 h)
{
	float f;
	asm("cvt.f32.bf16 %0, %1;" : "=f"(f) : "h"(__bfloat16_as_ushort(h)));
	return f;
}

// y = bf16(x * scale + bias), computed in f32 with one fused rounding.
extern "C" __global__ void bf16_affine(int n, const __nv_bfloat16 *x, float scale, float bias,
				       __nv_bfloat16 *y, float *yf)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		float v = __fmaf_rn(bf16_to_f32(x[i]), scale, bias);
		y[i] = __float2bfloat16(v);
		yf[i] = v;
	}
}

// f32 -> bf16 in the three flavours, and a pairwise pack.
extern "C" __global__ void bf16_round(int n, const float *x, __nv_bfloat16 *rn,
				      __nv_bfloat16 *rz, __nv_bfloat162 *pairs)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	rn[i] = __float2bfloat16_rn(x[i]);
	rz[i] = __float2bfloat16_rz(x[i]);
	if (i + 1 < n && (i & 1) == 0)
		pairs[i / 2] = __floats2bfloat162_rn(x[i], x[i + 1]);
}
