/* The decode-shaped GEMM kernel's bias and activation: integer operands make every
 * sum exact, so out = act(sum + beta * C + bias) follows bit for bit from the f32 steps of
 * bf16shim_epilogue_f32 (GELU within its 4-ulp contract, kernels.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels.h"
#include "ref.h"
#include "small_gemm.h"
#include "tests.h"

static uint32_t gen_int(void)
{
	return bits_of((float)((int)(rnd() % 17) - 8)) >> 16;
}

static uint32_t gen_bias(int type)
{
	float v = (float)((int)(rnd() % 2001) - 1000) / 64.0f;   /* exact in every type */
	return type == KERNEL_TYPE_F32 ? bits_of(v) : type == KERNEL_TYPE_BF16 ?
	       bits_of(v) >> 16 : ref_f16_rne(v);
}

int test_small_gemm_bias_act(void)
{
	static const char *const tn[] = { "f32", "bf16", "f16" };
	for (int si = 0; si < n_test_sms; si++) {
		ptx_module *mod = load_module(test_sms[si]);
		if (!mod)
			continue;
		for (uint32_t q = 0; q < 36; q++) {
			struct sg g;
			ptx_launch_stats st;
			char ctx[256];
			struct sg_opts o = {
				.m = q % 2 ? 70 : 9, .n = 1 + q % 16, .k = q % 3 ? 100 : 0, .batch = 2,
				.ta = q & 1, .tb = q >> 1 & 1, .ct = q >> 2 & 1, .ctype = q % 3,
				.alpha = 1.0f, .beta = q % 4 == 3 ? 0.0f : 0.5f,
				.agen = gen_int, .bgen = gen_int,
			};
			uint32_t btype = q / 3 % 3, along = q / 9 % 2, act = q / 2 % 3;
			int with_bias = q % 7 != 6;
			sg_make(&g, &o);
			unsigned len = along ? g.n : g.m, stride = q % 5 < 2 ? 0 : len + 3;
			size_t esz = btype == KERNEL_TYPE_F32 ? 4 : 2, count = len + stride;
			unsigned char *bias = buf_alloc(count * esz, BUF_RW);
			for (size_t e = 0; e < count; e++) {
				uint32_t v = gen_bias((int)btype);
				memcpy(bias + e * esz, &v, esz);
			}
			buf_access(bias, BUF_RO);
			g.x = (struct epi_extra){ with_bias ? dev(bias) : 0, btype, along, stride, act };
			sg_describe(ctx, sizeof ctx, test_sms[si], &g);
			snprintf(ctx + strlen(ctx), sizeof ctx - strlen(ctx),
				 " bias %s along %s stride %u act %u", with_bias ? tn[btype] : "none",
				 along ? "j" : "i", stride, act);
			CHECK(sg_run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
			for (unsigned b = 0; b < g.batch; b++)
				for (unsigned j = 0; j < g.n; j++)
					for (unsigned i = 0; i < g.m; i++) {
						double s = 0;
						for (unsigned l = 0; l < g.k; l++)
							s += sg_opa(&g, b, i, l) * sg_opb(&g, b, l, j);
						float t = (float)s;
						if (g.beta != 0) {
							float cv = (float)sg_c_decode(
								&g, sg_c_bits(&g, sg_c_before(&g, b, i, j)));
							t = fmaf(g.beta, cv, t);
						}
						if (with_bias) {
							float bv = ref_load((int)btype, bias,
									    b * stride + (along ? j : i));
							t = t + bv;
						}
						char e[300];
						snprintf(e, sizeof e, "%s: b=%u i=%u j=%u", ctx, b, i, j);
						check_act((int)g.ctype, sg_c_bits(&g, sg_c_at(&g, b, i, j)), t,
							  act, e);
					}
			mat_check_outside(&g.c, ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}
