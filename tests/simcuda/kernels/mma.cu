// One mma.sync per kernel and shape, as inline PTX between plain loads and stores of its
// registers (mma_io.cuh).  The tests pack the matrices into those registers with the PTX
// ISA's fragment tables and check every element of D (tests/simcuda/ptx/test_mma.c).  Built
// for compute_80 (gen.sh); mma70.cu and mma75.cu hold the shapes of sm_70 and sm_75.
#include "mma_io.cuh"

extern "C" __global__ void m16n8k16_f32_f16(const uint32_t *in, uint32_t *out)
{
	IO(10, 4);
	float d[4];
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
		     "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
		     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]),
		       "f"(F(6)), "f"(F(7)), "f"(F(8)), "f"(F(9)));
	STORE_F(4, d);
}

extern "C" __global__ void m16n8k16_f16_f16(const uint32_t *in, uint32_t *out)
{
	IO(8, 2);
	uint32_t d[2];
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, "
		     "{%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
		     : "=r"(d[0]), "=r"(d[1])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]),
		       "r"(r[6]), "r"(r[7]));
	STORE_R(2, d);
}

extern "C" __global__ void m16n8k16_f32_bf16(const uint32_t *in, uint32_t *out)
{
	IO(10, 4);
	float d[4];
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
		     "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
		     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]),
		       "f"(F(6)), "f"(F(7)), "f"(F(8)), "f"(F(9)));
	STORE_F(4, d);
}

extern "C" __global__ void m16n8k8_f32_bf16(const uint32_t *in, uint32_t *out)
{
	IO(7, 4);
	float d[4];
	asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
		     "{%4,%5}, {%6}, {%7,%8,%9,%10};"
		     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "f"(F(3)), "f"(F(4)), "f"(F(5)), "f"(F(6)));
	STORE_F(4, d);
}

extern "C" __global__ void m16n8k8_f32_tf32(const uint32_t *in, uint32_t *out)
{
	IO(10, 4);
	float d[4];
	asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
		     "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
		     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]),
		       "f"(F(6)), "f"(F(7)), "f"(F(8)), "f"(F(9)));
	STORE_F(4, d);
}

extern "C" __global__ void m16n8k4_f32_tf32(const uint32_t *in, uint32_t *out)
{
	IO(7, 4);
	float d[4];
	asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
		     "{%4,%5}, {%6}, {%7,%8,%9,%10};"
		     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "f"(F(3)), "f"(F(4)), "f"(F(5)), "f"(F(6)));
	STORE_F(4, d);
}

extern "C" __global__ void m16n8k16_s32_s8(const uint32_t *in, uint32_t *out)
{
	IO(7, 4);
	uint32_t d[4];
	asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, "
		     "{%4,%5}, {%6}, {%7,%8,%9,%10};"
		     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
	STORE_R(4, d);
}

extern "C" __global__ void m16n8k32_s32_u8s8_sat(const uint32_t *in, uint32_t *out)
{
	IO(10, 4);
	uint32_t d[4];
	asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%0,%1,%2,%3}, "
		     "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
		     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]),
		       "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
	STORE_R(4, d);
}

extern "C" __global__ void m16n8k32_s32_s4(const uint32_t *in, uint32_t *out)
{
	IO(7, 4);
	uint32_t d[4];
	asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32 {%0,%1,%2,%3}, "
		     "{%4,%5}, {%6}, {%7,%8,%9,%10};"
		     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
	STORE_R(4, d);
}

extern "C" __global__ void m16n8k64_s32_u4s4_sat(const uint32_t *in, uint32_t *out)
{
	IO(10, 4);
	uint32_t d[4];
	asm volatile("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.s4.s32 {%0,%1,%2,%3}, "
		     "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
		     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]),
		       "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
	STORE_R(4, d);
}

extern "C" __global__ void m16n8k256_s32_b1_and(const uint32_t *in, uint32_t *out)
{
	IO(10, 4);
	uint32_t d[4];
	asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, "
		     "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
		     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]),
		       "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
	STORE_R(4, d);
}

extern "C" __global__ void m16n8k128_s32_b1_xor(const uint32_t *in, uint32_t *out)
{
	IO(7, 4);
	uint32_t d[4];
	asm volatile("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, "
		     "{%4,%5}, {%6}, {%7,%8,%9,%10};"
		     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
	STORE_R(4, d);
}

extern "C" __global__ void m8n8k4_f64(const uint32_t *in, uint32_t *out)
{
	IO(8, 4);
	double a = __hiloint2double(r[1], r[0]), b = __hiloint2double(r[3], r[2]);
	double c0 = __hiloint2double(r[5], r[4]), c1 = __hiloint2double(r[7], r[6]), d0, d1;
	asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, "
		     "{%4,%5};"
		     : "=d"(d0), "=d"(d1)
		     : "d"(a), "d"(b), "d"(c0), "d"(c1));
	o[0] = __double2loint(d0);
	o[1] = __double2hiint(d0);
	o[2] = __double2loint(d1);
	o[3] = __double2hiint(d1);
}

// The inner loop of a tensor-core GEMM: per iteration one mma.m16n8k16 (f16 in, f32
// accumulation) and the few integer instructions that change its operands and count.
// bench_ptx measures the interpreter's speed on it.
extern "C" __global__ void mma_loop(const uint32_t *in, uint32_t *out, int iters)
{
	IO(10, 4);
	float d[4] = { F(6), F(7), F(8), F(9) };
	uint32_t a0 = r[0], a1 = r[1], a2 = r[2], a3 = r[3], b0 = r[4], b1 = r[5];
	for (int i = 0; i < iters; i++) {
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
			     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
			     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
		a0 ^= 0x80008000u;
		b1 ^= 0x00010001u;
	}
	STORE_F(4, d);
}
