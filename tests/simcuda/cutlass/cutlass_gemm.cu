// CUTLASS's own device-level GEMMs (the headers of the nvidia-cutlass package), built by
// nvcc as PTX only (build.sh: TEST_SM=75 for compute_75, TEST_SM=80 for compute_80; one
// build per architecture, since CUTLASS's kernels for a newer one compile to printf stubs
// that the simulator's interpreter does not link) and run on the simulated GPU, each
// checked against a CPU product in fp64:
//   sm75_f16   Sm75 tensor-op GEMM, f16 operands, f32 accumulation, mma.m16n8k8 (both)
//   sm80_f16   Sm80 multistage GEMM (cp.async, ldmatrix, mma.m16n8k16), f16, 3 stages
//   sm80_bf16  the same with bf16 operands, 4 stages
// Operands are "exact" (multiples of 1/16 in [-1, 1]: every product and partial sum is exact
// in fp32, so D must equal the fp64 product) or random normal (within K * 2^-23 * sum |a b|).
// Sizes are not multiples of the tiles, so the predicated (zero-filling) copies run too.
//   usage: cutlass_gemm                 (exit status 0 when every GEMM passed)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "cutlass/gemm/device/gemm.h"
#include "cutlass/numeric_types.h"
#include "cutlass/version.h"

#include "check_d.h"

static int failures;

template <typename T, typename Arch, typename TB, typename Warp, typename Inst, int Stages>
using TensorOpGemm = cutlass::gemm::device::Gemm<
	T, cutlass::layout::RowMajor, T, cutlass::layout::ColumnMajor, float,
	cutlass::layout::RowMajor, float, cutlass::arch::OpClassTensorOp, Arch, TB, Warp, Inst,
	cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
	cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, Stages>;

using GemmSm75F16 = TensorOpGemm<cutlass::half_t, cutlass::arch::Sm75,
				 cutlass::gemm::GemmShape<64, 64, 32>, cutlass::gemm::GemmShape<32, 32, 32>,
				 cutlass::gemm::GemmShape<16, 8, 8>, 2>;
using GemmSm80F16 = TensorOpGemm<cutlass::half_t, cutlass::arch::Sm80,
				 cutlass::gemm::GemmShape<64, 64, 32>, cutlass::gemm::GemmShape<32, 32, 32>,
				 cutlass::gemm::GemmShape<16, 8, 16>, 3>;
using GemmSm80Bf16 = TensorOpGemm<cutlass::bfloat16_t, cutlass::arch::Sm80,
				  cutlass::gemm::GemmShape<64, 64, 32>, cutlass::gemm::GemmShape<32, 32, 32>,
				  cutlass::gemm::GemmShape<16, 8, 16>, 4>;

#define CUDA_OK(call)                                                                    \
	do {                                                                                 \
		cudaError_t e_ = (call);                                                         \
		if (e_ != cudaSuccess) {                                                         \
			std::printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
				    cudaGetErrorString(e_));                                        \
			failures++;                                                                  \
			return;                                                                      \
		}                                                                                \
	} while (0)

// D = A * B + C for an M x K row-major A, a K x N column-major B, row-major C and D.
template <typename Gemm, typename T>
static void run(const char *name, int M, int N, int K, bool exact, unsigned seed)
{
	std::mt19937 rng(seed);
	std::normal_distribution<float> normal;
	std::vector<T> a((size_t)M * K), b((size_t)K * N);
	std::vector<float> c((size_t)M * N), d((size_t)M * N);
	auto value = [&]() {
		return exact ? (float)((int)(rng() % 33) - 16) / 16 : normal(rng);
	};
	for (auto &x : a)
		x = T(value());
	for (auto &x : b)
		x = T(value());
	for (auto &x : c)
		x = exact ? (float)((int)(rng() % 257) - 128) / 8 : normal(rng);
	T *da, *db;
	float *dc, *dd;
	CUDA_OK(cudaMalloc(&da, a.size() * sizeof(T)));
	CUDA_OK(cudaMalloc(&db, b.size() * sizeof(T)));
	CUDA_OK(cudaMalloc(&dc, c.size() * sizeof(float)));
	CUDA_OK(cudaMalloc(&dd, d.size() * sizeof(float)));
	CUDA_OK(cudaMemcpy(da, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(db, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));
	typename Gemm::Arguments args({M, N, K}, {da, K}, {db, K}, {dc, N}, {dd, N}, {1.0f, 1.0f});
	Gemm gemm;
	cutlass::Status st = gemm.can_implement(args);
	if (st == cutlass::Status::kSuccess)
		st = gemm(args);
	if (st != cutlass::Status::kSuccess) {
		std::printf("FAIL %s: CUTLASS status %s (%s)\n", name, cutlassGetStatusString(st),
			    cudaGetErrorString(cudaGetLastError()));
		failures++;
		return;
	}
	CUDA_OK(cudaDeviceSynchronize());
	CUDA_OK(cudaMemcpy(d.data(), dd, d.size() * sizeof(float), cudaMemcpyDeviceToHost));
	failures += check_d(name, M, N, K, exact,
			    [&](int i, int k) { return (double)float(a[(size_t)i * K + k]); },
			    [&](int k, int j) { return (double)float(b[(size_t)j * K + k]); },
			    [&](int i, int j) { return (double)c[(size_t)i * N + j]; },
			    [&](int i, int j) { return (double)d[(size_t)i * N + j]; });
	cudaFree(da);
	cudaFree(db);
	cudaFree(dc);
	cudaFree(dd);
}

int main()
{
	cudaDeviceProp prop;
	if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
		std::printf("FAIL: no device\n");
		return 1;
	}
	std::printf("device: %s, sm_%d%d; CUTLASS %d.%d.%d built for compute_%d\n", prop.name,
		    prop.major, prop.minor, CUTLASS_MAJOR, CUTLASS_MINOR, CUTLASS_PATCH, TEST_SM);
	for (int exact = 1; exact >= 0; exact--) {
		run<GemmSm75F16, cutlass::half_t>("sm75_f16", 100, 72, 168, exact, 1);
#if TEST_SM >= 80
		run<GemmSm80F16, cutlass::half_t>("sm80_f16", 100, 72, 168, exact, 2);
		run<GemmSm80Bf16, cutlass::bfloat16_t>("sm80_bf16", 72, 136, 200, exact, 3);
#endif
	}
	return failures ? 1 : 0;
}
