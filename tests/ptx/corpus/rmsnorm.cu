// RMSNorm over the rows of a bf16 matrix: y = x / sqrt(mean(x^2) + eps) * w.
// One block of 128 threads per row; f32 accumulation, bf16 multiply by the weight.
#include <cuda_bf16.h>

extern "C" __global__ void rmsnorm_bf16(const __nv_bfloat16 *x, const __nv_bfloat16 *w,
					__nv_bfloat16 *y, int cols, float eps)
{
	__shared__ float warp_sums[4];
	const __nv_bfloat16 *xr = x + (size_t)blockIdx.x * cols;
	__nv_bfloat16 *yr = y + (size_t)blockIdx.x * cols;
	float s = 0.f;
	for (int i = threadIdx.x; i < cols; i += blockDim.x) {
		float v = __bfloat162float(xr[i]);
		s += v * v;
	}
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if ((threadIdx.x & 31) == 0)
		warp_sums[threadIdx.x >> 5] = s;
	__syncthreads();
	float total = warp_sums[0] + warp_sums[1] + warp_sums[2] + warp_sums[3];
	float r = rsqrtf(total / cols + eps);
	for (int i = threadIdx.x; i < cols; i += blockDim.x)
		yr[i] = __hmul(__float2bfloat16(__bfloat162float(xr[i]) * r), w[i]);
}
