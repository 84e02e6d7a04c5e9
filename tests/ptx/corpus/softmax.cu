// Row softmax of a bf16 matrix, two columns per thread (bf16x2 loads and stores).
// One warp per row: each thread's maximum in bf16 (__hmax), the rest in f32.
#include <cuda_bf16.h>

extern "C" __global__ void softmax_bf16x2(const __nv_bfloat162 *x, __nv_bfloat162 *y,
					  int cols2)
{
	const __nv_bfloat162 *xr = x + (size_t)blockIdx.x * cols2;
	__nv_bfloat162 *yr = y + (size_t)blockIdx.x * cols2;
	__nv_bfloat16 m = __float2bfloat16(-INFINITY);
	for (int i = threadIdx.x; i < cols2; i += 32) {
		__nv_bfloat162 v = xr[i];
		m = __hmax(m, __hmax(v.x, v.y));
	}
	float mf = __bfloat162float(m), s = 0.f;
	for (int o = 16; o > 0; o >>= 1)
		mf = fmaxf(mf, __shfl_xor_sync(0xffffffffu, mf, o));
	for (int i = threadIdx.x; i < cols2; i += 32) {
		float2 v = __bfloat1622float2(xr[i]);
		s += __expf(v.x - mf) + __expf(v.y - mf);
	}
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	float inv = 1.f / s;
	for (int i = threadIdx.x; i < cols2; i += 32) {
		float2 v = __bfloat1622float2(xr[i]);
		yr[i] = __floats2bfloat162_rn(__expf(v.x - mf) * inv, __expf(v.y - mf) * inv);
	}
}
