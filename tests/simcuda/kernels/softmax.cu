// Softmax over rows and a few atomics: shared-memory tree reductions with bar.sync,
// ex2.approx through __expf, and atomics on shared and global memory (integer-valued, so
// the result does not depend on the order the interpreter applies them).

extern "C" __global__ void softmax_rows(int cols, const float *x, float *y)
{
	extern __shared__ float red[];
	const float *row = x + (size_t)blockIdx.x * cols;
	float m = -__int_as_float(0x7f800000);
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		m = fmaxf(m, row[j]);
	red[threadIdx.x] = m;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
		__syncthreads();
	}
	m = red[0];
	__syncthreads();
	float sum = 0.0f;
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		sum = __fadd_rn(sum, __expf(__fsub_rn(row[j], m)));
	red[threadIdx.x] = sum;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] = __fadd_rn(red[threadIdx.x], red[threadIdx.x + s]);
		__syncthreads();
	}
	float inv = __frcp_rn(red[0]);
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		y[(size_t)blockIdx.x * cols + j] = __fmul_rn(__expf(__fsub_rn(row[j], m)), inv);
}

// Histogram with shared atomics merged into global ones, plus min/max/cas/exch/inc and a
// float add of small integers.
extern "C" __global__ void histogram(int n, const unsigned *v, unsigned *hist, int *minmax,
				     float *fsum, unsigned long long *total, unsigned *wrap)
{
	__shared__ unsigned local[64];
	for (int b = threadIdx.x; b < 64; b += blockDim.x)
		local[b] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		unsigned x = v[i];
		atomicAdd(&local[x & 63], 1u);
		atomicMin(&minmax[0], (int)x);
		atomicMax(&minmax[1], (int)x);
		atomicAdd(fsum, (float)(x & 7));
		atomicAdd(total, (unsigned long long)x);
		atomicInc(wrap, 9u);
		atomicOr((unsigned *)&minmax[2], 1u << (x & 31));
		int old = minmax[3], assumed;
		do {
			assumed = old;
			old = atomicCAS(&minmax[3], assumed, assumed ^ (int)x);
		} while (old != assumed);
	}
	__syncthreads();
	for (int b = threadIdx.x; b < 64; b += blockDim.x)
		if (local[b])
			atomicAdd(&hist[b], local[b]);
}
