// The register convention of the mma test kernels (mma.cu, mma70.cu, mma75.cu): each block
// is one warp; lane l of block b reads its fragment registers from in[(b * 32 + l) * NIN ...]
// (A, then B, then C, 32 bits each, an f64 taking two) and writes D to
// out[(b * 32 + l) * NOUT ...].
#include <cstdint>

#define IO(NIN, NOUT)                                                                    \
	const uint32_t *r = in + ((size_t)blockIdx.x * 32 + threadIdx.x) * (NIN);            \
	uint32_t *o = out + ((size_t)blockIdx.x * 32 + threadIdx.x) * (NOUT)

#define F(i) __uint_as_float(r[i])
#define STORE_F(n, d) for (int i = 0; i < (n); i++) o[i] = __float_as_uint(d[i])
#define STORE_R(n, d) for (int i = 0; i < (n); i++) o[i] = d[i]
