// Divergent control flow: per-thread trip counts, nested branches, an early return
// before __syncthreads, warp votes and a __syncwarp inside a divergent region.

extern "C" __global__ void divergent(int n, const int *x, int *out, unsigned *votes)
{
	__shared__ int cnt[1];
	if (threadIdx.x == 0)
		cnt[0] = 0;
	__syncthreads();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int v = i < n ? x[i] : 0;
	int acc = 0;
	for (int k = 0; k < (v & 15); k++) {
		if (k & 1)
			acc += k * v;
		else if (v & 16)
			acc -= k;
		else
			acc ^= k << 3;
	}
	unsigned any = __ballot_sync(__activemask(), acc > 0);
	if (i < n && (v & 32)) {
		unsigned sub = __ballot_sync(__activemask(), v & 64);
		__syncwarp(__activemask());
		acc += __popc(sub);
	}
	if (i < n) {
		out[i] = acc;
		if ((threadIdx.x & 31) == 0)
			votes[i / 32] = any;
		atomicAdd(&cnt[0], acc & 1);
	}
	if (i >= n)
		return;          /* exited threads do not hold up the barrier below */
	__syncthreads();
	if (threadIdx.x == 0)
		atomicAdd(&votes[(gridDim.x * blockDim.x + 31) / 32 + blockIdx.x], cnt[0]);
}
