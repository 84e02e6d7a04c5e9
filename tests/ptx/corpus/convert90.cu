// Conversions and arithmetic that nvcc emits as sm_90 instructions (compiled for
// compute_90): bf16 <-> integers, f16, and add/sub/mul/compare in bf16.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void convert_bf16(int n, const __nv_bfloat16 *x, const int *k,
					__nv_bfloat16 *y, int *iy, __half *hy)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		__nv_bfloat16 a = x[i], b = __int2bfloat16_rn(k[i]);
		__nv_bfloat16 s = __hadd(a, b), d = __hsub(a, b), p = __hmul(a, b);
		y[4 * i] = s;
		y[4 * i + 1] = d;
		y[4 * i + 2] = __hlt(a, b) ? p : __ll2bfloat16_rd((long long)k[i] << 20);
		y[4 * i + 3] = __float2bfloat16_rn(__half2float(__float2half(__bfloat162float(a))));
		iy[2 * i] = __bfloat162int_rn(a);
		iy[2 * i + 1] = __bfloat162uint_rz(p);
		hy[i] = __float2half_rn(__bfloat162float(s));
	}
}
