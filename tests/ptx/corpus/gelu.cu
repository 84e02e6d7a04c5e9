// Fused bias + GELU (tanh form) on bf16: the bias add in bf16 (__hadd), GELU in f32, the
// result rounded once to bf16.  A second kernel does the same on bf16x2 with the exact
// (erf) GELU and round-toward-zero conversions.
#include <cuda_bf16.h>

extern "C" __global__ void bias_gelu_bf16(int n, int cols, const __nv_bfloat16 *x,
					  const __nv_bfloat16 *bias, __nv_bfloat16 *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = __bfloat162float(__hadd(x[i], bias[i % cols]));
		float t = tanhf(0.7978845608f * (v + 0.044715f * v * v * v));
		y[i] = __float2bfloat16(0.5f * v * (1.f + t));
	}
}

extern "C" __global__ void bias_gelu_erf_bf16x2(int n2, int cols2, const __nv_bfloat162 *x,
						const __nv_bfloat162 *bias, __nv_bfloat162 *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n2) {
		float2 v = __bfloat1622float2(__hadd2(x[i], bias[i % cols2]));
		float gx = 0.5f * v.x * (1.f + erff(v.x * 0.70710678f));
		float gy = 0.5f * v.y * (1.f + erff(v.y * 0.70710678f));
		y[i] = __halves2bfloat162(__float2bfloat16_rz(gx), __float2bfloat16_rz(gy));
	}
}
