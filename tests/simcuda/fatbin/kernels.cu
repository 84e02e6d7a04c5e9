// Kernels of the fatbin tests (tests/simcuda/fatbin): nvcc builds them into fatbins and
// cubins of several kinds at build time; the tests load those through the driver.
__device__ int bias = 5;

extern "C" __global__ void add_bias(int *out, int n, int scale)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = i * scale + bias;
}

extern "C" __global__ void twice(int *out)
{
	out[threadIdx.x] *= 2;
}
