// Two kernels and a variable, built by nvcc into host shared objects in every compression
// mode and for several architectures (meson.build), for bf16shim scan to judge.
#include <cuda_bf16.h>

__device__ float bias;

__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * a + bias;
}

__global__ void add_bf16(__nv_bfloat16 *y, const __nv_bfloat16 *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __float2bfloat16(__bfloat162float(y[i]) + __bfloat162float(x[i]));
}

extern "C" int launch_scale(float *x, float a, int n)
{
	scale<<<(n + 255) / 256, 256>>>(x, a, n);
	return (int)cudaGetLastError();
}
