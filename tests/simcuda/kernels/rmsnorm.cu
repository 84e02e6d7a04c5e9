// RMSNorm-style block reduction: one block per row; each thread sums squares over a
// block-stride loop, warps reduce with __shfl_xor_sync, warp partials meet in shared
// memory after __syncthreads, and warp 0 reduces them again.  Test data for the PTX
// interpreter; the C reference in ptx/test_kernels.c mirrors this order exactly.

#define FULL 0xffffffffu

__device__ __forceinline__ float warp_sum(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v = __fadd_rn(v, __shfl_xor_sync(FULL, v, o));
	return v;
}

extern "C" __global__ void rmsnorm(int cols, float eps, const float *x, const float *w, float *y)
{
	__shared__ float partial[32];
	__shared__ float scale;
	const float *row = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	float acc = 0.0f;
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		acc = __fmaf_rn(row[j], row[j], acc);
	acc = warp_sum(acc);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		partial[warp] = acc;
	__syncthreads();
	if (warp == 0) {
		int nwarps = (blockDim.x + 31) >> 5;
		float v = lane < nwarps ? partial[lane] : 0.0f;
		v = warp_sum(v);
		if (lane == 0)
			scale = __frcp_rn(__fsqrt_rn(__fadd_rn(__fdiv_rn(v, (float)cols), eps)));
	}
	__syncthreads();
	float s = scale;
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		out[j] = __fmul_rn(__fmul_rn(row[j], s), w[j]);
}

// Same reduction with dynamic shared memory and shuffles down/up/idx (tree in shared
// memory, then a down-shuffle whose lanes are all kept; up and idx broadcast).
extern "C" __global__ void rowsum_dyn(int cols, const int *x, int *sums, int *check,
				      int *lanes)
{
	extern __shared__ int sdata[];
	const int *row = x + (size_t)blockIdx.x * cols;
	int acc = 0;
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		acc += row[j];
	sdata[threadIdx.x] = acc;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s >= 32; s >>= 1) {
		if (threadIdx.x < s)
			sdata[threadIdx.x] += sdata[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x < 32) {
		int v = threadIdx.x < blockDim.x ? sdata[threadIdx.x] : 0;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_down_sync(FULL, v, o);
		int b = __shfl_sync(FULL, v, 0);
		int up = __shfl_up_sync(FULL, (int)threadIdx.x, 3);
		if (threadIdx.x == 0)
			sums[blockIdx.x] = b;
		check[blockIdx.x * 32 + threadIdx.x] = up * 1000 + (b == v);
		lanes[blockIdx.x * 32 + threadIdx.x] = v;
	}
}
