// A non-inlined device function (call/ret with .param passing) and a per-thread array
// indexed at run time (local memory through __local_depot / %SP).

struct pair { int lo, hi; };

__device__ __noinline__ pair minmax3(int a, int b, int c)
{
	pair p;
	p.lo = min(a, min(b, c));
	p.hi = max(a, max(b, c));
	return p;
}

__device__ __noinline__ float poly(float x, const float *coef, int n)
{
	float r = 0.0f;
	for (int k = n - 1; k >= 0; k--)
		r = __fmaf_rn(r, x, coef[k]);
	return r;
}

extern "C" __global__ void calls(int n, const int *x, int *lo, int *hi, float *pv, int *perm)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int a = x[i], b = x[(i + 1) % n], c = x[(i + 2) % n];
	pair p = a & 1 ? minmax3(a, b, c) : minmax3(c, a, b);
	lo[i] = p.lo;
	hi[i] = p.hi;
	float coef[4] = {1.0f, 0.5f, 0.25f, 0.125f};
	pv[i] = poly((float)(a & 255) * 0.01f, coef, 1 + (a & 3));
	int t[8];
	for (int k = 0; k < 8; k++)
		t[k] = (k * 5 + a) & 7;
	int s = 0;
	for (int k = 0; k < 8; k++)
		s = s * 8 + t[(k + b) & 7];
	perm[i] = s;
}
