/* The kernels' parameter lists as the interpreter parses them must match kernels.h. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kernels.h"
#include "tests.h"

static const struct {
	const char *kernel;
	int count;
	unsigned char sizes[48];
} abi[] = {
	/* view (6 x u64), rows, cols, dst, dst_batch_stride */
	{ KERNEL_CAST_BF16_F32, 10, { 8, 8, 8, 8, 8, 8, 4, 4, 8, 8 } },
	{ KERNEL_CAST_F16_F32, 10, { 8, 8, 8, 8, 8, 8, 4, 4, 8, 8 } },
	/* d, d_batch_stride, rows, cols, view c, ctype, alpha, beta, alpha_ptr, beta_ptr,
	 * bias, bias_type, bias_along, bias_batch_stride, act, splits, d_split_stride */
	{ KERNEL_EPILOGUE_F32, 22, { 8, 8, 4, 4, 8, 8, 8, 8, 8, 8, 4, 4, 4, 8, 8, 8, 4, 4, 8, 4,
				     4, 8 } },
	/* two jobs of: view, vecs, k, vec_rows, dst1, dst2, words, vpb, staged; blocks0 */
	{ KERNEL_FP16_SLICES, 29, { 8, 8, 8, 8, 8, 8, 4, 4, 4, 8, 8, 8, 4, 4,
				    8, 8, 8, 8, 8, 8, 4, 4, 4, 8, 8, 8, 4, 4, 4 } },
	/* the epilogue's 15, row_words, col_words, row_vecs, col_vecs, view a, transa, view b,
	 * transb, k, tail, bias, bias_type, bias_along, bias_batch_stride, act */
	{ KERNEL_EPILOGUE_SCALED, 40, { 8, 8, 4, 4, 8, 8, 8, 8, 8, 8, 4, 4, 4, 8, 8, 8, 8, 4, 4,
					8, 8, 8, 8, 8, 8, 4, 8, 8, 8, 8, 8, 8, 4, 4, 4,
					8, 4, 4, 8, 4 } },
	/* view a, transa, view b, transb, m, n, k, view c, c_transposed, ctype, alpha, beta,
	 * alpha_ptr, beta_ptr, bias, bias_type, bias_along, bias_batch_stride, act, kc,
	 * c_split_stride */
	{ KERNEL_GEMM_SMALL, 36, { 8, 8, 8, 8, 8, 8, 4, 8, 8, 8, 8, 8, 8, 4, 4, 4, 4,
				   8, 8, 8, 8, 8, 8, 4, 4, 4, 4, 8, 8, 8, 4, 4, 8, 4, 4, 8 } },
};

/* Loads on every architecture from Maxwell to Hopper under a CUDA 11.0-level PTX ISA. */
int test_abi(void)
{
	static const int sms[] = { 50, 52, 61, 70, 75, 80, 86, 90 };
	for (size_t s = 0; s < sizeof sms / sizeof sms[0]; s++) {
		ptx_module *mod = load_module(sms[s]);
		if (!mod)
			continue;
		for (size_t i = 0; i < sizeof abi / sizeof abi[0]; i++) {
			ptx_kernel *k = ptx_module_kernel(mod, abi[i].kernel);
			CHECK(k != NULL, "sm_%d: kernel %s missing", sms[s], abi[i].kernel);
			if (!k)
				continue;
			int n = ptx_kernel_param_count(k);
			CHECK(n == abi[i].count, "%s: %d parameters, want %d", abi[i].kernel, n,
			      abi[i].count);
			for (int p = 0; p < n && p < abi[i].count; p++)
				CHECK(ptx_kernel_param_size(k, p) == abi[i].sizes[p],
				      "%s parameter %d: size %zu, want %u", abi[i].kernel, p,
				      ptx_kernel_param_size(k, p), abi[i].sizes[p]);
		}
		ptx_module_free(mod);
	}
	return fails;
}

/* The tensor-core module loads from Volta on, not before; its kernel's parameters: a1, a2,
 * a_bstride, b1, b2, b_bstride, row_words, row_vecs, col_words, col_vecs, m, n, k, d,
 * d_bstride, ldd. */
int test_abi_tc(void)
{
	static const unsigned char sizes[] = { 8, 8, 8, 8, 8, 8, 8, 4, 8, 4, 4, 4, 4, 8, 8, 8 };
	static const int sms[] = { 70, 75, 80, 90 };
	ptx_load_opts opts = { .device_sm = 61, .max_ptx_version = 70 };
	ptx_module *old = NULL;
	char err[256];
	CHECK(ptx_module_load(bf16shim_kernels_tc_ptx, strlen(bf16shim_kernels_tc_ptx), &opts,
			      &old, err, sizeof err) != PTX_OK, "the tensor-core module loads on sm_61");
	ptx_module_free(old);
	for (size_t s = 0; s < sizeof sms / sizeof sms[0]; s++) {
		ptx_module *mod = load_tc_module(sms[s]);
		ptx_kernel *k = mod ? ptx_module_kernel(mod, KERNEL_FP16_TAIL) : NULL;
		CHECK(k != NULL, "sm_%d: %s missing", sms[s], KERNEL_FP16_TAIL);
		if (k) {
			CHECK(ptx_kernel_param_count(k) == (int)sizeof sizes, "%d parameters",
			      ptx_kernel_param_count(k));
			for (int p = 0; p < ptx_kernel_param_count(k) && p < (int)sizeof sizes; p++)
				CHECK(ptx_kernel_param_size(k, p) == sizes[p], "parameter %d: %zu", p,
				      ptx_kernel_param_size(k, p));
		}
		ptx_module_free(mod);
	}
	return fails;
}
