// The PTX ISA's predefined identifiers and special registers (chapter 10) as CUDA C reads
// them: warpSize (nvcc writes WARP_SZ), clock(), clock64(), the cuda::ptx::get_sreg_*
// functions of libcu++, and inline PTX for the rest (%pm*, %envreg*, the reserved shared
// memory).  Built with -arch=sm_80: run on simulated sm_80 as it is, and below it through
// bf16shim, lowered.  Each case writes what every GPU must agree on (values fixed by the
// ISA or the launch, or facts about the ones that vary, such as a clock that never runs
// backwards), so the runs compare word for word (harness.h).
#include <cuda/ptx>

#include "harness.h"

#define THREADS 96

// One case per group of registers; each thread writes WORDS words.
#define WORDS 16

__global__ void ids(unsigned *out)
{
	unsigned *o = out + (blockIdx.x * blockDim.x + threadIdx.x) * WORDS;
	unsigned lane = cuda::ptx::get_sreg_laneid(), warp = cuda::ptx::get_sreg_warpid();
	unsigned t = threadIdx.x;
	o[0] = warpSize;
	o[1] = lane == t % 32;
	o[2] = warp < cuda::ptx::get_sreg_nwarpid();
	o[3] = cuda::ptx::get_sreg_nwarpid() >= (blockDim.x + 31) / 32;
	o[4] = cuda::ptx::get_sreg_smid() < cuda::ptx::get_sreg_nsmid();
	o[5] = cuda::ptx::get_sreg_lanemask_eq() == 1u << lane;
	o[6] = cuda::ptx::get_sreg_lanemask_le() == (2u << lane) - 1;
	o[7] = cuda::ptx::get_sreg_lanemask_lt() == (1u << lane) - 1;
	o[8] = cuda::ptx::get_sreg_lanemask_ge() == ~((1u << lane) - 1);
	o[9] = cuda::ptx::get_sreg_lanemask_gt() == ~((2u << lane) - 1);
	o[10] = cuda::ptx::get_sreg_tid_x() == t && cuda::ptx::get_sreg_ntid_x() == blockDim.x;
	o[11] = cuda::ptx::get_sreg_ctaid_x() == blockIdx.x &&
		cuda::ptx::get_sreg_nctaid_x() == gridDim.x;
	o[12] = (unsigned)cuda::ptx::get_sreg_gridid();
	o[13] = o[14] = o[15] = 0;
}

static cudaError_t identifiers(std::vector<uint32_t> &out)
{
	unsigned *o;
	int n = 2 * THREADS * WORDS;
	std::vector<unsigned> a(n), b(n);
	FL_TRY(cudaMalloc(&o, n * sizeof *o));
	ids<<<2, THREADS>>>(o);
	FL_LAUNCHED();
	FL_TRY(cudaMemcpy(a.data(), o, n * sizeof *o, cudaMemcpyDeviceToHost));
	ids<<<2, THREADS>>>(o);
	FL_LAUNCHED();
	FL_TRY(cudaMemcpy(b.data(), o, n * sizeof *o, cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++) {
		// %gridid: one per launch, later launches later (a temporal launch number).
		if (i % WORDS == 12) {
			out.push_back(a[i] == a[12] && b[i] == b[12] && b[i] > a[i]);
			continue;
		}
		out.push_back(a[i]);
	}
	return cudaFree(o);
}
FL_CASE(identifiers, 0);

// The clocks: %clock, %clock_hi and %clock64 together, before and after some work;
// %globaltimer against its halves.
__global__ void clocks(const float *in, unsigned *out)
{
	unsigned *o = out + (blockIdx.x * blockDim.x + threadIdx.x) * 8;
	unsigned long long c0 = clock64(), g0 = cuda::ptx::get_sreg_globaltimer();
	unsigned lo0 = cuda::ptx::get_sreg_clock(), hi0 = cuda::ptx::get_sreg_clock_hi();
	float s = 0;
	for (int i = 0; i < 64; i++)
		s += in[(threadIdx.x + i) % THREADS] * i;
	unsigned long long c1 = clock64(), g1 = cuda::ptx::get_sreg_globaltimer();
	unsigned glo = cuda::ptx::get_sreg_globaltimer_lo(), ghi = cuda::ptx::get_sreg_globaltimer_hi();
	o[0] = c1 > c0;
	o[1] = (unsigned)(c0 >> 32) <= hi0 && hi0 <= (unsigned)(c1 >> 32);
	o[2] = lo0 - (unsigned)c0 <= (unsigned)(c1 - c0);
	o[3] = g1 >= g0;
	o[4] = ghi >= (unsigned)(g1 >> 32) && ((unsigned long long)ghi << 32 | glo) >= g1;
	o[5] = __float_as_uint(s);      // the work between the readings, done alike
	o[6] = o[7] = 0;
}

static cudaError_t clock_registers(std::vector<uint32_t> &out)
{
	float *x;
	unsigned *o;
	std::vector<float> h(THREADS);
	for (int i = 0; i < THREADS; i++)
		h[i] = fl_input(i, 3);
	FL_TRY(cudaMalloc(&x, THREADS * sizeof *x));
	FL_TRY(cudaMalloc(&o, 2 * THREADS * 8 * sizeof *o));
	FL_TRY(cudaMemcpy(x, h.data(), THREADS * sizeof *x, cudaMemcpyHostToDevice));
	clocks<<<2, THREADS>>>(x, o);
	FL_LAUNCHED();
	return fl_collect(out, o, 2 * THREADS * 8);
}
FL_CASE(clock_registers, 0);

// The performance counters and the driver's registers: undefined by the ISA and by public
// documents; whatever they hold, the lowered code reads the same.
#define PM(i) asm volatile("mov.u32 %0, %%pm" #i ";" : "=r"(o[i]))
#define PM64(i) asm volatile("mov.u64 %0, %%pm" #i "_64;" : "=l"(w[i]))
#define ENV(i) asm volatile("mov.u32 %0, %%envreg" #i ";" : "=r"(o[16 + i]))
__global__ void counters(unsigned *out)
{
	unsigned *o = out + threadIdx.x * 56;
	unsigned long long w[8];
	PM(0); PM(1); PM(2); PM(3); PM(4); PM(5); PM(6); PM(7);
	PM64(0); PM64(1); PM64(2); PM64(3); PM64(4); PM64(5); PM64(6); PM64(7);
	for (int i = 0; i < 8; i++)
		o[8 + i] = (unsigned)w[i];
	ENV(0); ENV(1); ENV(2); ENV(3); ENV(4); ENV(5); ENV(6); ENV(7); ENV(8); ENV(9);
	ENV(10); ENV(11); ENV(12); ENV(13); ENV(14); ENV(15); ENV(16); ENV(17); ENV(18);
	ENV(19); ENV(20); ENV(21); ENV(22); ENV(23); ENV(24); ENV(25); ENV(26); ENV(27);
	ENV(28); ENV(29); ENV(30); ENV(31);
	unsigned long long g;
	asm volatile("mov.u64 %0, %%current_graph_exec;" : "=l"(g));
	o[48] = (unsigned)g;
	o[49] = (unsigned)(g >> 32);
	for (int i = 50; i < 56; i++)
		o[i] = 0;
}

static cudaError_t counter_registers(std::vector<uint32_t> &out)
{
	unsigned *o;
	FL_TRY(cudaMalloc(&o, 32 * 56 * sizeof *o));
	counters<<<1, 32>>>(o);
	FL_LAUNCHED();
	return fl_collect(out, o, 32 * 56);
}
FL_CASE(counter_registers, 0);

// Shared memory sizes: %dynamic_smem_size as launched, %total_smem_size in allocation
// units (128 bytes from sm_80, 256 before: PTX ISA 10.30) covering the block's own.
__global__ void smem_sizes(unsigned *out)
{
	__shared__ float own[100];
	extern __shared__ float dyn[];
	unsigned total = cuda::ptx::get_sreg_total_smem_size();
	unsigned dynamic = cuda::ptx::get_sreg_dynamic_smem_size();
	own[threadIdx.x] = threadIdx.x;
	if (threadIdx.x < 8)
		dyn[threadIdx.x] = threadIdx.x;
	__syncthreads();
	unsigned used = sizeof own + dynamic;
	out[0] = dynamic;
	out[1] = total % 128 == 0 && total >= used && total < used + 256 + 16;
	out[2] = own[3] + dyn[3];
}

static cudaError_t smem_registers(std::vector<uint32_t> &out)
{
	unsigned *o;
	FL_TRY(cudaMalloc(&o, 3 * sizeof *o));
	smem_sizes<<<1, 32, 40>>>(o);
	FL_LAUNCHED();
	return fl_collect(out, o, 3);
}
FL_CASE(smem_registers, 0);

// The region reserved for the system (sm_80 and newer), as cooperative groups reach it:
// its bounds, and a word written and read back through %reserved_smem_offset_1.  Older GPUs
// reserve nothing: the kernel stays out there.
__global__ void reserved(unsigned *out)
{
	unsigned begin, end, cap, off0, off1, v = threadIdx.x + 5;
	asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(begin));
	asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(end));
	asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(cap));
	asm volatile("mov.u32 %0, %%reserved_smem_offset_0;" : "=r"(off0));
	asm volatile("mov.u32 %0, %%reserved_smem_offset_1;" : "=r"(off1));
	asm volatile("{ .reg .u64 a; cvt.u64.u32 a, %1; cvta.shared.u64 a, a; st.u32 [a], %0; "
		     "ld.u32 %0, [a]; }" : "+r"(v) : "r"(off1 + 4 * threadIdx.x));
	out[threadIdx.x * 4] = end - begin == cap && cap >= 1024;
	out[threadIdx.x * 4 + 1] = begin <= off0 && off0 < end && begin <= off1 && off1 + 288 <= end;
	out[threadIdx.x * 4 + 2] = v;
	out[threadIdx.x * 4 + 3] = 0;
}

static cudaError_t reserved_smem(std::vector<uint32_t> &out)
{
	unsigned *o;
	FL_TRY(cudaMalloc(&o, 32 * 4 * sizeof *o));
	reserved<<<1, 32>>>(o);
	FL_LAUNCHED();
	return fl_collect(out, o, 32 * 4);
}
FL_CASE(reserved_smem, 0);
