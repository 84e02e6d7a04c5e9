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
				.agen = sg_gen_int, .bgen = sg_gen_int,
			};
			uint32_t btype = q / 3 % 3, along = q / 9 % 2, act = q / 2 % 3;
			int with_bias = q % 7 != 6;
			sg_make(&g, &o);
			unsigned stride = q % 5 < 2 ? 0 : (along ? g.n : g.m) + 3;
			void *bias = sg_bias(&g, btype, along, stride, act, with_bias);
			sg_describe(ctx, sizeof ctx, test_sms[si], &g);
			snprintf(ctx + strlen(ctx), sizeof ctx - strlen(ctx),
				 " bias %s along %s stride %u act %u", with_bias ? tn[btype] : "none",
				 along ? "j" : "i", stride, act);
			CHECK(sg_run_default(mod, &g, &st) == PTX_OK, "%s", ctx);
			sg_check_exact(&g, bias, ctx);
			buf_free_all();
		}
		ptx_module_free(mod);
	}
	return fails;
}
