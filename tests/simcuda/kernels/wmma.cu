// wmma with the multiplicand types of sm_80 (bf16, tf32, f64) and the integer ones (s8, u4,
// b1), through CUDA's nvcuda::wmma API (mma.h), built for compute_80 (gen.sh).  Each kernel
// is one warp: D = A * B + C over one tile, A row-major (lda), B column-major (ldb), C and
// D row-major (ldc).  The tests check D (tests/simcuda/ptx/test_wmma.c).
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

template <int M, int N, int K, typename TA, typename TI, typename TC>
__device__ void tile(const TI *a, int lda, const TI *b, int ldb, const TC *c, TC *d, int ldc)
{
	wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, M, N, K, TA, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, M, N, K, TC> acc;
	wmma::load_matrix_sync(fa, a, lda);
	wmma::load_matrix_sync(fb, b, ldb);
	wmma::load_matrix_sync(acc, c, ldc, wmma::mem_row_major);
	wmma::mma_sync(acc, fa, fb, acc);
	wmma::store_matrix_sync(d, acc, ldc, wmma::mem_row_major);
}

#define TILE_KERNEL(name, M, N, K, TA, TI, TC)                                          \
	extern "C" __global__ void name(const TI *a, int lda, const TI *b, int ldb,          \
					const TC *c, TC *d, int ldc)                          \
	{                                                                                    \
		tile<M, N, K, TA, TI, TC>(a, lda, b, ldb, c, d, ldc);                            \
	}

TILE_KERNEL(wmma_bf16_16x16x16, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, float)
TILE_KERNEL(wmma_bf16_32x8x16, 32, 8, 16, __nv_bfloat16, __nv_bfloat16, float)
TILE_KERNEL(wmma_bf16_8x32x16, 8, 32, 16, __nv_bfloat16, __nv_bfloat16, float)
TILE_KERNEL(wmma_s8_16x16x16, 16, 16, 16, signed char, signed char, int)
TILE_KERNEL(wmma_u8_8x32x16, 8, 32, 16, unsigned char, unsigned char, int)
TILE_KERNEL(wmma_f64_8x8x4, 8, 8, 4, double, double, double)

// tf32: loads take f32 data; the program rounds each element to tf32 (cvt.rna.tf32.f32).
extern "C" __global__ void wmma_tf32_16x16x8(const float *a, int lda, const float *b, int ldb,
					     const float *c, float *d, int ldc)
{
	wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
	wmma::load_matrix_sync(fa, a, lda);
	wmma::load_matrix_sync(fb, b, ldb);
	for (int i = 0; i < fa.num_elements; i++)
		fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
	for (int i = 0; i < fb.num_elements; i++)
		fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
	wmma::load_matrix_sync(acc, c, ldc, wmma::mem_row_major);
	wmma::mma_sync(acc, fa, fb, acc);
	wmma::store_matrix_sync(d, acc, ldc, wmma::mem_row_major);
}

// Sub-byte and single-bit: A row-major, B column-major, packed (8 u4 or 32 b1 per word).
extern "C" __global__ void wmma_u4_8x8x32(const void *a, int lda, const void *b, int ldb,
					  const int *c, int *d, int ldc)
{
	using u4 = wmma::experimental::precision::u4;
	wmma::fragment<wmma::matrix_a, 8, 8, 32, u4, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 8, 8, 32, u4, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 8, 8, 32, int> acc;
	wmma::load_matrix_sync(fa, a, lda);
	wmma::load_matrix_sync(fb, b, ldb);
	wmma::load_matrix_sync(acc, c, ldc, wmma::mem_row_major);
	wmma::mma_sync(acc, fa, fb, acc);
	wmma::store_matrix_sync(d, acc, ldc, wmma::mem_row_major);
}

extern "C" __global__ void wmma_b1_8x8x128_xor(const void *a, int lda, const void *b, int ldb,
					       const int *c, int *d, int ldc)
{
	using b1 = wmma::experimental::precision::b1;
	wmma::fragment<wmma::matrix_a, 8, 8, 128, b1, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 8, 8, 128, b1, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 8, 8, 128, int> acc;
	wmma::load_matrix_sync(fa, a, lda);
	wmma::load_matrix_sync(fb, b, ldb);
	wmma::load_matrix_sync(acc, c, ldc, wmma::mem_row_major);
	wmma::bmma_sync(acc, fa, fb, acc, wmma::experimental::bmmaBitOpXOR);
	wmma::store_matrix_sync(d, acc, ldc, wmma::mem_row_major);
}
