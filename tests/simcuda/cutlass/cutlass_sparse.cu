// CUTLASS's Sm80 sparse GEMMs (2:4 structured sparse A: mma.sp m16n8k32 with bf16 and f16
// operands, f32 accumulation), built by nvcc as PTX for compute_80 (build.sh) and run on the
// simulated GPU.  CUTLASS fills A's metadata (TensorFillRandomSparseMeta), reorders it as its
// kernels load it (reorder_meta) and expands A with it on the host (uncompress): the GPU's D
// is checked against the fp64 product of that expanded A, so a simulator that reads the
// metadata other than as the hardware does, or a lowering that expands A differently, fails.
// Operands: random normal (within K * 2^-23 * sum |a b|) and exact (multiples of 1/16 in
// [-1, 1]: D must equal the fp64 product).
//   usage: cutlass_sparse      (exit status 0 when every GEMM passed)
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "cutlass/gemm/device/gemm_sparse.h"
#include "cutlass/numeric_types.h"
#include "cutlass/util/host_reorder.h"
#include "cutlass/util/host_tensor.h"
#include "cutlass/util/host_uncompress.h"
#include "cutlass/util/reference/host/tensor_fill.h"

#include "check_d.h"

static int failures;

template <typename T>
using SparseGemm = cutlass::gemm::device::SparseGemm<
	T, cutlass::layout::RowMajor, T, cutlass::layout::ColumnMajor, float,
	cutlass::layout::RowMajor, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
	cutlass::gemm::GemmShape<64, 64, 64>, cutlass::gemm::GemmShape<32, 32, 64>,
	cutlass::gemm::GemmShape<16, 8, 32>,
	cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
	cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 3>;

template <typename T>
static void run(const char *name, int M, int N, int K, bool exact, unsigned seed)
{
	using Gemm = SparseGemm<T>;
	using ElementE = typename Gemm::ElementE;
	const int kSparse = Gemm::kSparse, kPerE = Gemm::kElementsPerElementE;
	cutlass::gemm::GemmCoord size(M, N, K);
	cutlass::HostTensor<T, cutlass::layout::RowMajor> a(cutlass::make_Coord(M, K / kSparse));
	cutlass::HostTensor<T, cutlass::layout::RowMajor> a_full(size.mk());
	cutlass::HostTensor<T, cutlass::layout::ColumnMajor> b(size.kn());
	cutlass::HostTensor<float, cutlass::layout::RowMajor> c(size.mn()), d(size.mn());
	cutlass::HostTensor<ElementE, cutlass::layout::RowMajor> e(cutlass::make_Coord(M, K / kSparse / kPerE));
	cutlass::HostTensor<ElementE, typename Gemm::LayoutE> e_reordered(
		cutlass::make_Coord(M, K / kSparse / kPerE));
	std::mt19937 rng(seed);
	std::normal_distribution<float> normal;
	auto value = [&]() { return exact ? (float)((int)(rng() % 33) - 16) / 16 : normal(rng); };
	for (int i = 0; i < M; i++)
		for (int k = 0; k < K / kSparse; k++)
			a.at({i, k}) = T(value());
	for (int k = 0; k < K; k++)
		for (int j = 0; j < N; j++)
			b.at({k, j}) = T(value());
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++)
			c.at({i, j}) = exact ? (float)((int)(rng() % 257) - 128) / 8 : normal(rng);
	cutlass::reference::host::TensorFillRandomSparseMeta(e.host_view(), seed, Gemm::kMetaSizeInBits);
	cutlass::reorder_meta(e_reordered.host_ref(), e.host_ref(), {M, N, K / kSparse / kPerE});
	cutlass::uncompress(a_full.host_ref(), a.host_ref(), e.host_ref(), M, K);
	a.sync_device();
	b.sync_device();
	c.sync_device();
	d.sync_device();
	e_reordered.sync_device();
	typename Gemm::Arguments args{size, a.device_ref(), b.device_ref(), c.device_ref(),
				      d.device_ref(), e_reordered.device_ref(), {1.0f, 1.0f}, 1};
	Gemm gemm;
	cutlass::Status st = gemm.can_implement(args);
	if (st == cutlass::Status::kSuccess)
		st = gemm.initialize(args, nullptr);
	if (st == cutlass::Status::kSuccess)
		st = gemm();
	cudaError_t ce = cudaDeviceSynchronize();
	if (st != cutlass::Status::kSuccess || ce != cudaSuccess) {
		std::printf("FAIL %s: CUTLASS status %s, %s\n", name, cutlassGetStatusString(st),
			    cudaGetErrorString(ce != cudaSuccess ? ce : cudaGetLastError()));
		failures++;
		return;
	}
	d.sync_host();
	failures += check_d(name, M, N, K, exact,
			    [&](int i, int k) { return (double)float(a_full.at({i, k})); },
			    [&](int k, int j) { return (double)float(b.at({k, j})); },
			    [&](int i, int j) { return (double)c.at({i, j}); },
			    [&](int i, int j) { return (double)d.at({i, j}); });
}

int main()
{
	run<cutlass::bfloat16_t>("sparse_bf16", 128, 64, 128, false, 1);
	run<cutlass::bfloat16_t>("sparse_bf16", 64, 128, 256, true, 2);
	run<cutlass::half_t>("sparse_f16", 128, 128, 128, false, 3);
	run<cutlass::half_t>("sparse_f16", 64, 64, 128, true, 4);
	if (failures)
		std::printf("%d FAILURES\n", failures);
	return failures ? 1 : 0;
}
