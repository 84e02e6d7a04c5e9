// mma.m8n8k4 with .f16, the one shape of sm_70, in each layout and accumulator type, with
// the register convention of mma_io.cuh.  nvcc 13 builds no compute_70, so gen.sh builds it
// for compute_75 and the tests load it on sm_70 with .target rewritten.
#include "mma_io.cuh"

extern "C" __global__ void m8n8k4_f32_f16_row_col(const uint32_t *in, uint32_t *out)
{
	IO(12, 8);
	float d[8];
	asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, "
		     "{%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};"
		     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]),
		       "=f"(d[6]), "=f"(d[7])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "f"(F(4)), "f"(F(5)), "f"(F(6)),
		       "f"(F(7)), "f"(F(8)), "f"(F(9)), "f"(F(10)), "f"(F(11)));
	STORE_F(8, d);
}

extern "C" __global__ void m8n8k4_f16_f16_col_row(const uint32_t *in, uint32_t *out)
{
	IO(8, 4);
	uint32_t d[4];
	asm volatile("mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16 {%0,%1,%2,%3}, "
		     "{%4,%5}, {%6,%7}, {%8,%9,%10,%11};"
		     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]),
		       "r"(r[7]));
	STORE_R(4, d);
}

extern "C" __global__ void m8n8k4_f32_f16c_row_row(const uint32_t *in, uint32_t *out)
{
	IO(8, 8);
	float d[8];
	asm volatile("mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, "
		     "{%8,%9}, {%10,%11}, {%12,%13,%14,%15};"
		     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]),
		       "=f"(d[6]), "=f"(d[7])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]),
		       "r"(r[7]));
	STORE_F(8, d);
}

extern "C" __global__ void m8n8k4_f32_f16_col_col(const uint32_t *in, uint32_t *out)
{
	IO(12, 8);
	float d[8];
	asm volatile("mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, "
		     "{%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};"
		     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]),
		       "=f"(d[6]), "=f"(d[7])
		     : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "f"(F(4)), "f"(F(5)), "f"(F(6)),
		       "f"(F(7)), "f"(F(8)), "f"(F(9)), "f"(F(10)), "f"(F(11)));
	STORE_F(8, d);
}
