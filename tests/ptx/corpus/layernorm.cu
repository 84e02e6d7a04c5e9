// LayerNorm over the rows of a bf16 matrix: y = (x - mean) * rstd * gamma + beta, the
// affine part as one bf16 fma (__hfma).  One warp per row.
#include <cuda_bf16.h>

extern "C" __global__ void layernorm_bf16(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma,
					  const __nv_bfloat16 *beta, __nv_bfloat16 *y, int cols,
					  float eps)
{
	const __nv_bfloat16 *xr = x + (size_t)blockIdx.x * cols;
	__nv_bfloat16 *yr = y + (size_t)blockIdx.x * cols;
	float s = 0.f, s2 = 0.f;
	for (int i = threadIdx.x; i < cols; i += 32) {
		float v = __bfloat162float(xr[i]);
		s += v;
		s2 += v * v;
	}
	for (int o = 16; o > 0; o >>= 1) {
		s += __shfl_xor_sync(0xffffffffu, s, o);
		s2 += __shfl_xor_sync(0xffffffffu, s2, o);
	}
	float mean = s / cols, var = fmaxf(s2 / cols - mean * mean, 0.f);
	float rstd = rsqrtf(var + eps);
	for (int i = threadIdx.x; i < cols; i += 32) {
		__nv_bfloat16 n = __float2bfloat16((__bfloat162float(xr[i]) - mean) * rstd);
		yr[i] = __hfma(n, gamma[i], beta[i]);
	}
}
