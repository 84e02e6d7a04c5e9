/* The kernel tests, one function each (0 = pass); main.c runs them by name. */
#ifndef KERNELS_TESTS_H
#define KERNELS_TESTS_H

#define KERNEL_TESTS(X) \
	X(abi) \
	X(abi_tc) \
	X(cast_all_patterns) \
	X(cast_views) \
	X(epilogue_views) \
	X(epilogue_device_scalars) \
	X(epilogue_beta_zero) \
	X(epilogue_specials) \
	X(epilogue_bad_ctype) \
	X(epilogue_bias_act) \
	X(epilogue_gelu) \
	X(epilogue_bad_act) \
	X(epilogue_splits) \
	X(slices_all_patterns) \
	X(slices_views) \
	X(slices_traffic) \
	X(epilogue_scaled) \
	X(epilogue_scaled_extremes) \
	X(epilogue_scaled_bias_act) \
	X(fp16_tail) \
	X(fp16_tail_traffic) \
	X(fp16_pipeline) \
	X(fp16_attention) \
	X(small_gemm_shapes) \
	X(small_gemm_exact) \
	X(small_gemm_specials) \
	X(small_gemm_overflow) \
	X(small_gemm_load_widths) \
	X(small_gemm_launch) \
	X(small_gemm_traffic) \
	X(small_gemm_bias_act) \
	X(small_gemm_split_k) \
	X(fused_tc75_shapes) \
	X(fused_tc75_exact) \
	X(fused_tc75_specials) \
	X(fused_tc75_extremes) \
	X(fused_tc75_attention) \
	X(fused_tc75_growth) \
	X(fused_tc75_traffic) \
	X(fused_tc70_shapes) \
	X(fused_tc70_exact) \
	X(fused_tc70_specials) \
	X(fused_tc70_extremes) \
	X(fused_tc70_attention) \
	X(fused_tc70_growth) \
	X(fused_tc70_traffic) \
	X(fused_fma_shapes) \
	X(fused_fma_exact) \
	X(fused_fma_specials) \
	X(fused_fma_extremes) \
	X(fused_fma_attention) \
	X(fused_fma_traffic)

#define DECLARE(name) int test_##name(void);
KERNEL_TESTS(DECLARE)
#undef DECLARE

#endif
