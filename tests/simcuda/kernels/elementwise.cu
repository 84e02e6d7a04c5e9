// Grid-stride elementwise kernels: test data for the PTX interpreter (see ptx/meson.build).
// Explicit-rounding intrinsics keep nvcc from contracting mul+add, so a C reference
// can be bit-exact.

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		y[i] = __fadd_rn(__fmul_rn(a, x[i]), y[i]);
}

// Quantise to a signed 8-bit code with saturation, and clamp: cvt, selp, min/max.
extern "C" __global__ void quantize(int n, const float *x, float scale, signed char *q,
				    float *clamped, float lo, float hi)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		float v = x[i];
		int r = __float2int_rn(__fmul_rn(v, scale));
		r = r > 127 ? 127 : (r < -127 ? -127 : r);
		q[i] = (signed char)r;
		clamped[i] = v != v ? 0.0f : fminf(fmaxf(v, lo), hi);
	}
}

// 64-bit indices, doubles and unsigned arithmetic.
extern "C" __global__ void mix64(long long n, const double *x, unsigned *h, double *y)
{
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
	     i += (long long)blockDim.x * gridDim.x) {
		double v = x[i];
		unsigned u = (unsigned)i * 2654435761u;
		u ^= u >> 13;
		h[i] = u + (unsigned)(v > 0.0);
		y[i] = __fma_rn(v, v, (double)u);
	}
}
