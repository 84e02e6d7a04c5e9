// wmma with .f16 multiplicands through CUDA's nvcuda::wmma API (mma.h), the way programs
// for Volta and Turing use it: fragments loaded from global or shared memory in row- or
// column-major order with a leading dimension, an element-wise scaling of the accumulator
// (which the ISA allows on any fragment layout), k-steps accumulating into one fragment,
// the result stored row- or column-major.  Built for compute_75 (gen.sh); the tests load it
// on sm_70 too, with .target rewritten.  One block of one warp per call; the tests check D
// against the simulator's documented arithmetic (tests/simcuda/ptx/test_wmma.c).
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// D (m x n) = sum over ksteps of A[:, k0 : k0 + K] * B[k0 : k0 + K, :] + scale * C, with A
// row-major (lda) or column-major, B likewise, C and D row-major (ldc) or column-major.
template <int M, int N, int K, typename LA, typename LB, typename TC>
__device__ void tile(const half *a, int lda, const half *b, int ldb, const TC *c, TC *d,
		     int ldc, int c_col, int ksteps, TC scale)
{
	wmma::fragment<wmma::matrix_a, M, N, K, half, LA> fa;
	wmma::fragment<wmma::matrix_b, M, N, K, half, LB> fb;
	wmma::fragment<wmma::accumulator, M, N, K, TC> acc;
	wmma::layout_t lc = c_col ? wmma::mem_col_major : wmma::mem_row_major;
	wmma::load_matrix_sync(acc, c, ldc, lc);
	for (int i = 0; i < acc.num_elements; i++)
		acc.x[i] = acc.x[i] * scale;
	bool a_row = std::is_same<LA, wmma::row_major>::value;
	bool b_row = std::is_same<LB, wmma::row_major>::value;
	for (int s = 0; s < ksteps; s++) {
		wmma::load_matrix_sync(fa, a + (a_row ? s * K : s * K * lda), lda);
		wmma::load_matrix_sync(fb, b + (b_row ? s * K * ldb : s * K), ldb);
		wmma::mma_sync(acc, fa, fb, acc);
	}
	wmma::store_matrix_sync(d, acc, ldc, lc);
}

#define TILE_KERNEL(name, M, N, K, LA, LB, TC)                                          \
	extern "C" __global__ void name(const half *a, int lda, const half *b, int ldb,      \
					const TC *c, TC *d, int ldc, int c_col, int ksteps,   \
					float scale)                                          \
	{                                                                                    \
		tile<M, N, K, LA, LB, TC>(a, lda, b, ldb, c, d, ldc, c_col, ksteps, (TC)scale);  \
	}

TILE_KERNEL(wmma_f16_16x16x16_rc_f32, 16, 16, 16, wmma::row_major, wmma::col_major, float)
TILE_KERNEL(wmma_f16_16x16x16_cr_f16, 16, 16, 16, wmma::col_major, wmma::row_major, half)
TILE_KERNEL(wmma_f16_32x8x16_rr_f32, 32, 8, 16, wmma::row_major, wmma::row_major, float)
TILE_KERNEL(wmma_f16_8x32x16_cc_f32, 8, 32, 16, wmma::col_major, wmma::col_major, float)
TILE_KERNEL(wmma_f16_8x32x16_rc_f16, 8, 32, 16, wmma::row_major, wmma::col_major, half)

// The same product with A and B staged in shared memory at a padded stride first: wmma.load
// from .shared with a stride that is not the matrix width (rows stay 32-byte aligned, as
// the ISA's "Matrix Storage for WMMA" requires).
extern "C" __global__ void wmma_f16_shared(const half *a, const half *b, const float *c,
					   float *d)
{
	__shared__ __align__(32) half sa[16 * 32], sb[16 * 32];
	for (int i = threadIdx.x; i < 256; i += 32) {
		sa[(i / 16) * 32 + i % 16] = a[i];
		sb[(i / 16) * 32 + i % 16] = b[i];
	}
	__syncwarp();
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
	wmma::load_matrix_sync(fa, sa, 32);
	wmma::load_matrix_sync(fb, sb, 32);
	wmma::load_matrix_sync(acc, c, 16, wmma::mem_row_major);
	wmma::mma_sync(acc, fa, fb, acc);
	wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}
