// The mma shapes sm_75 adds and its 8x8 matrix moves, for compute_75 (gen.sh).  Same
// register convention as mma.cu (mma_io.cuh).
#include "mma_io.cuh"

extern "C" __global__ void m16n8k8_f32_f16(const uint32_t *in, uint32_t *out)
{
	IO(7, 4);
	float d[4];
	asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
		     "{%4,%5}, {%6}, {%7,%8,%9,%10};"
		     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "f"(F(3)), "f"(F(4)), "f"(F(5)), "f"(F(6)));
	STORE_F(4, d);
}

extern "C" __global__ void m16n8k8_f16_f16(const uint32_t *in, uint32_t *out)
{
	IO(5, 2);
	uint32_t d[2];
	asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, "
		     "{%5,%6};"
		     : "=r"(d[0]), "=r"(d[1])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]));
	STORE_R(2, d);
}

extern "C" __global__ void m8n8k16_s32_s8u8(const uint32_t *in, uint32_t *out)
{
	IO(4, 2);
	uint32_t d[2];
	asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32 {%0,%1}, {%2}, {%3}, {%4,%5};"
		     : "=r"(d[0]), "=r"(d[1])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
	STORE_R(2, d);
}

extern "C" __global__ void m8n8k32_s32_s4_sat(const uint32_t *in, uint32_t *out)
{
	IO(4, 2);
	uint32_t d[2];
	asm volatile("mma.sync.aligned.m8n8k32.row.col.satfinite.s32.s4.s4.s32 {%0,%1}, {%2}, "
		     "{%3}, {%4,%5};"
		     : "=r"(d[0]), "=r"(d[1])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
	STORE_R(2, d);
}

extern "C" __global__ void m8n8k128_s32_b1_xor(const uint32_t *in, uint32_t *out)
{
	IO(4, 2);
	uint32_t d[2];
	asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0,%1}, {%2}, "
		     "{%3}, {%4,%5};"
		     : "=r"(d[0]), "=r"(d[1])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
	STORE_R(2, d);
}

// ldmatrix from shared memory: the block copies `words` 32-bit words of `mat` into shared
// memory, then each lane gives the row address in[lane] (a byte offset into that copy).
// out[lane * 4 + i] receives register i of .x4 (first four .x4, then .x2 and .x1 below it:
// out[128 + lane * 2 + i], out[192 + lane]), and the .trans forms at out[256 ...] likewise.
extern "C" __global__ void ldmatrix_all(const uint32_t *mat, int words, const uint32_t *in,
					uint32_t *out)
{
	__shared__ __align__(16) uint32_t s[1024];
	for (int i = threadIdx.x; i < words; i += 32)
		s[i] = mat[i];
	__syncwarp();
	uint32_t a = (uint32_t)__cvta_generic_to_shared(s) + in[threadIdx.x];
	uint32_t d0, d1, d2, d3;
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
		     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a));
	out[threadIdx.x * 4 + 0] = d0;
	out[threadIdx.x * 4 + 1] = d1;
	out[threadIdx.x * 4 + 2] = d2;
	out[threadIdx.x * 4 + 3] = d3;
	asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
		     : "=r"(d0), "=r"(d1) : "r"(a));
	out[128 + threadIdx.x * 2] = d0;
	out[128 + threadIdx.x * 2 + 1] = d1;
	asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(d0) : "r"(a));
	out[192 + threadIdx.x] = d0;
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
		     : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a));
	out[256 + threadIdx.x * 4 + 0] = d0;
	out[256 + threadIdx.x * 4 + 1] = d1;
	out[256 + threadIdx.x * 4 + 2] = d2;
	out[256 + threadIdx.x * 4 + 3] = d3;
	asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
		     : "=r"(d0), "=r"(d1) : "r"(a));
	out[384 + threadIdx.x * 2] = d0;
	out[384 + threadIdx.x * 2 + 1] = d1;
	asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];"
		     : "=r"(d0) : "r"(a));
	out[448 + threadIdx.x] = d0;
}

// ldmatrix with a generic address, the way CUTLASS's older code paths give it.
extern "C" __global__ void ldmatrix_generic(const uint32_t *mat, int words, const uint32_t *in,
					    uint32_t *out)
{
	__shared__ __align__(16) uint32_t s[1024];
	for (int i = threadIdx.x; i < words; i += 32)
		s[i] = mat[i];
	__syncwarp();
	const char *p = (const char *)s + in[threadIdx.x];
	uint32_t d0, d1;
	asm volatile("ldmatrix.sync.aligned.m8n8.x2.b16 {%0,%1}, [%2];"
		     : "=r"(d0), "=r"(d1) : "l"(p));
	out[threadIdx.x * 2] = d0;
	out[threadIdx.x * 2 + 1] = d1;
}

// Only the lanes below `active` run ldmatrix: a divergent warp at a .aligned instruction.
extern "C" __global__ void ldmatrix_divergent(const uint32_t *in, uint32_t *out, int active)
{
	__shared__ __align__(16) uint32_t s[256];
	s[threadIdx.x] = threadIdx.x;
	__syncwarp();
	if ((int)threadIdx.x < active) {
		uint32_t a = (uint32_t)__cvta_generic_to_shared(s) + in[threadIdx.x], d0;
		asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
			     : "=r"(d0) : "r"(a));
		out[threadIdx.x] = d0;
	}
}

extern "C" __global__ void movmatrix_trans(const uint32_t *in, uint32_t *out)
{
	uint32_t d;
	asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d) : "r"(in[threadIdx.x]));
	out[threadIdx.x] = d;
}
