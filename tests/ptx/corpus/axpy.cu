// y = a * x + y on bf16 pairs: one fma.rn.bf16x2 per element pair.  A second kernel
// exercises the other bf16x2 intrinsics: max/min, neg, abs, and the relu fma.
#include <cuda_bf16.h>

extern "C" __global__ void axpy_bf16x2(int n, __nv_bfloat162 a, const __nv_bfloat162 *x,
				       __nv_bfloat162 *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __hfma2(a, x[i], y[i]);
}

extern "C" __global__ void misc_bf16x2(int n, const __nv_bfloat162 *x, const __nv_bfloat162 *z,
				       __nv_bfloat162 *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		__nv_bfloat162 a = x[i], b = z[i];
		out[4 * i] = __hmax2(a, b);
		out[4 * i + 1] = __hmin2_nan(a, b);
		out[4 * i + 2] = __hneg2(__habs2(a));
		out[4 * i + 3] = __hfma2_relu(a, b, a);
	}
}
