// Asynchronous copies into shared memory and the mbarriers that track them, the ways CUDA
// programs write them: the pipeline primitives (cp.async + commit/wait_group), a multistage
// loop, cuda::pipeline, cuda::barrier with cuda::memcpy_async (mbarrier), zero-filling
// copies (src-size, ignore-src), explicit mbarrier phases, and two bugs: a read before the
// wait, and a wait for a phase nobody completes.  Built for compute_80 (gen.sh); checked by
// tests/simcuda/ptx/test_async.c.
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline_primitives.h>
#include <cstdint>

// out[i] = in[i] * 2 + 1 over n words (n a multiple of 4 * blockDim.x), through shared
// memory in tiles of 4 * blockDim.x words, `stages` tiles in flight: a copy of 16, 8 or 4
// bytes per thread (bytes), committed per tile, waited for with wait_prior(stages - 1).
extern "C" __global__ void pipeline_stages(const uint32_t *in, uint32_t *out, int n, int bytes,
					   int stages)
{
	__shared__ __align__(16) uint32_t buf[4][1024];
	int tile = 4 * blockDim.x, tiles = n / tile, per = bytes / 4;
	for (int s = 0; s < stages - 1 && s < tiles; s++) {
		for (int j = threadIdx.x * per; j < tile; j += blockDim.x * per)
			__pipeline_memcpy_async(&buf[s][j], in + s * tile + j, bytes);
		__pipeline_commit();
	}
	for (int t = 0; t < tiles; t++) {
		int next = t + stages - 1;
		if (next < tiles)
			for (int j = threadIdx.x * per; j < tile; j += blockDim.x * per)
				__pipeline_memcpy_async(&buf[next % stages][j], in + next * tile + j, bytes);
		__pipeline_commit();
		__pipeline_wait_prior(stages - 1);
		__syncthreads();
		for (int j = threadIdx.x; j < tile; j += blockDim.x)
			out[t * tile + j] = buf[t % stages][j] * 2 + 1;
		__syncthreads();
	}
}

// The same through cuda::pipeline (thread scope), one stage at a time.
extern "C" __global__ void pipeline_object(const uint32_t *in, uint32_t *out, int n)
{
	__shared__ __align__(16) uint32_t buf[1024];
	cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
	for (int base = 0; base < n; base += blockDim.x * 4) {
		pipe.producer_acquire();
		cuda::memcpy_async(&buf[threadIdx.x * 4], in + base + threadIdx.x * 4,
				   cuda::aligned_size_t<16>(16), pipe);
		pipe.producer_commit();
		cuda::pipeline_consumer_wait_prior<0>(pipe);
		for (int j = 0; j < 4; j++)
			out[base + threadIdx.x * 4 + j] = buf[threadIdx.x * 4 + j] + 7;
		pipe.consumer_release();
	}
}

// cuda::barrier with cuda::memcpy_async: the block copies n words to shared memory, every
// thread arrives and waits on the barrier (mbarrier.arrive / test_wait on sm_80), then each
// thread writes a sum of the shared words it did not copy.  Two rounds: two phases.
extern "C" __global__ void barrier_copy(const uint32_t *in, uint32_t *out, int n)
{
	__shared__ __align__(16) uint32_t buf[1024];
#pragma nv_diag_suppress static_var_with_dynamic_init
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	if (threadIdx.x == 0)
		init(&bar, blockDim.x);
	__syncthreads();
	for (int round = 0; round < 2; round++) {
		for (int i = threadIdx.x * 4; i < n; i += blockDim.x * 4)
			cuda::memcpy_async(&buf[i], in + round * n + i, cuda::aligned_size_t<16>(16), bar);
		bar.arrive_and_wait();
		uint32_t s = 0;
		for (int i = 0; i < n; i++)
			s += buf[(i + threadIdx.x * 4) % n] * (uint32_t)(i + 1);
		out[round * blockDim.x + threadIdx.x] = s;
		bar.arrive_and_wait();
	}
}

// Zero-filling copies: lane l copies 16 bytes of in + 4l into buf[0][4l..4l+3] with src-size
// sizes[l] (0 to 16), into buf[1] with ignore-src = (l % 3 == 0), and 4 bytes of in + 4l + 3
// into buf[2][4l]; out receives the three buffers.
extern "C" __global__ void zero_fill(const uint32_t *in, const uint32_t *sizes, uint32_t *out)
{
	__shared__ __align__(16) uint32_t buf[3][128];
	uint32_t l = threadIdx.x;
	for (int b = 0; b < 3; b++)
		for (int i = 0; i < 4; i++)
			buf[b][4 * l + i] = 0xdeadbeefu;
	uint32_t d0 = (uint32_t)__cvta_generic_to_shared(&buf[0][4 * l]);
	uint32_t d1 = (uint32_t)__cvta_generic_to_shared(&buf[1][4 * l]);
	uint32_t d2 = (uint32_t)__cvta_generic_to_shared(&buf[2][4 * l]);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
		     :: "r"(d0), "l"(in + 4 * l), "r"(sizes[l]) : "memory");
	asm volatile("{ .reg .pred p; setp.eq.u32 p, %2, 0;\n"
		     "cp.async.ca.shared.global.L2::128B [%0], [%1], 16, p; }"
		     :: "r"(d1), "l"(in + 4 * l), "r"(l % 3) : "memory");
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4;"
		     :: "r"(d2), "l"(in + 4 * l + 3) : "memory");
	asm volatile("cp.async.wait_all;" ::: "memory");
	for (int b = 0; b < 3; b++)
		for (int i = 0; i < 4; i++)
			out[128 * b + 4 * l + i] = buf[b][4 * l + i];
}

// A bug: the thread reads the shared words its own copy writes before waiting for it.
// Hardware may return the old or the new value; the simulator's waiting mode catches it.
extern "C" __global__ void read_before_wait(const uint32_t *in, uint32_t *out)
{
	__shared__ __align__(16) uint32_t buf[128];
	buf[threadIdx.x] = 0;
	__pipeline_memcpy_async(&buf[threadIdx.x], in + threadIdx.x, 4);
	__pipeline_commit();
	out[threadIdx.x] = buf[threadIdx.x];
	__pipeline_wait_prior(0);
	out[32 + threadIdx.x] = buf[threadIdx.x];
}

// mbarrier phases by hand (PTX ISA 9.7.13.15): a barrier expecting blockDim.x arrivals;
// each thread arrives, warp 0 records test_wait on the returned state before and after the
// others arrive, parity waits, pending_count, and arrive_drop shrinking the next phase.
// out[t * 8 + ...] holds the per-thread observations.
extern "C" __global__ void mbarrier_phases(uint32_t *out)
{
	__shared__ __align__(8) uint64_t bar;
	uint32_t a = (uint32_t)__cvta_generic_to_shared(&bar), t = threadIdx.x;
	uint64_t state;
	uint32_t done, pending;
	if (t == 0)
		asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(a), "r"(blockDim.x));
	__syncthreads();
	asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(a) : "memory");
	asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(state));
	out[t * 8 + 0] = pending;
	asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
		     : "=r"(done) : "r"(a), "l"(state) : "memory");
	out[t * 8 + 1] = done;
	// Everyone waits for phase 0 by parity.
	do {
		asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; "
			     "selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(a), "r"(0) : "memory");
	} while (!done);
	asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
		     : "=r"(done) : "r"(a), "l"(state) : "memory");
	out[t * 8 + 2] = done;
	// Phase 1: the odd threads drop out for good, the even ones arrive.
	if (t & 1)
		asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(state) : "r"(a) : "memory");
	else
		asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(a) : "memory");
	do {
		asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; "
			     "selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(a), "r"(1) : "memory");
	} while (!done);
	// Phase 2 expects only the even threads: they arrive, thread 0 for itself and thread 2
	// at once (.noComplete, count 2) when there are enough threads for that not to complete it.
	int pair = blockDim.x >= 8;
	if (!(t & 1) && !(t == 2 && pair)) {
		if (t == 0 && pair)
			asm volatile("mbarrier.arrive.noComplete.shared.b64 %0, [%1], 2;"
				     : "=l"(state) : "r"(a) : "memory");
		else
			asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(a) : "memory");
		asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(state));
		out[t * 8 + 3] = pending;
	}
	if (!(t & 1))
		do {
			asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; "
				     "selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(a), "r"(0) : "memory");
		} while (!done);
	out[t * 8 + 4] = 1;
	__syncthreads();
	if (t == 0)
		asm volatile("mbarrier.inval.shared.b64 [%0];" :: "r"(a) : "memory");
}

// Every thread waits for a phase that needs one more arrival than the block gives.
extern "C" __global__ void mbarrier_never(uint32_t *out)
{
	__shared__ __align__(8) uint64_t bar;
	uint32_t a = (uint32_t)__cvta_generic_to_shared(&bar), done;
	uint64_t state;
	if (threadIdx.x == 0)
		asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(a), "r"(blockDim.x + 1));
	__syncthreads();
	asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(a) : "memory");
	do {
		asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; "
			     "selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(a), "l"(state) : "memory");
	} while (!done);
	out[threadIdx.x] = 1;
}

// cp.async into an mbarrier-tracked buffer (cp.async.mbarrier.arrive.noinc): the copies
// count as the arrivals, so the waiting threads see the data once the phase completes.
extern "C" __global__ void cp_async_mbarrier(const uint32_t *in, uint32_t *out)
{
	__shared__ __align__(16) uint32_t buf[512];
	__shared__ __align__(8) uint64_t bar;
	uint32_t a = (uint32_t)__cvta_generic_to_shared(&bar), done, t = threadIdx.x;
	if (t == 0)
		asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(a), "r"(blockDim.x));
	__syncthreads();
	uint32_t d = (uint32_t)__cvta_generic_to_shared(&buf[4 * t]);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(in + 4 * t) : "memory");
	asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(a) : "memory");
	do {
		asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; "
			     "selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(a), "r"(0) : "memory");
	} while (!done);
	uint32_t s = 0;
	for (uint32_t i = 0; i < 4 * blockDim.x; i++)
		s += buf[i];
	out[t] = s;
}
