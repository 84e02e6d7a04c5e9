/* The planner's policy, as a table: each row is a call, a device, a configuration and the
 * decision the issue asks for.  No CUDA anywhere. */
#include "abi.h"
#include "check.h"
#include "plan.h"

#define BF ABI_R_16BF
#define H ABI_R_16F
#define F ABI_R_32F
#define D ABI_R_64F
#define TC ABI_GEMM_DEFAULT_TENSOR_OP
#define DEF ABI_GEMM_DEFAULT

struct row {
	int line;
	int atype, ctype, compute, algo;
	int sm, tensor_cores;
	enum shim_mode mode;
	enum shim_path path;
	int64_t m, lda;                  /* m and lda vary for the validity rows */
	enum decision expect;
};

static const struct row rows[] = {
	/* bf16 below sm_70 is refused by cuBLAS: rewrite (preampere.md). */
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_FP32},
	{__LINE__, BF, F, ABI_COMPUTE_32F, DEF, 60, 0, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_FP32},
	{__LINE__, BF, BF, ABI_COMPUTE_32F_FAST_TF32, DEF, 52, 0, MODE_AUTO, PATH_AUTO, 64, 64,
	 DECIDE_FP32},
	/* sm_70/75 run bf16 without tensor cores: fp16 tensor cores instead... */
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_FP16},
	{__LINE__, BF, F, F, TC, 70, 1, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_FP16},
	/* ...but not on sm_75 parts without tensor cores (GTX 16xx). */
	{__LINE__, BF, BF, F, TC, 75, 0, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_FP32},
	/* Decode shapes read bf16 directly, on any architecture below sm_80. */
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_AUTO, 16, 16, DECIDE_DECODE},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_AUTO, 1, 8, DECIDE_DECODE},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_AUTO, 17, 17, DECIDE_FP32},
	/* sm_80+ are native. */
	{__LINE__, BF, BF, F, TC, 80, 1, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_PASS},
	{__LINE__, BF, BF, F, TC, 90, 1, MODE_AUTO, PATH_AUTO, 1, 8, DECIDE_PASS},
	/* force rewrites every bf16 GEMM anywhere; off never does. */
	{__LINE__, BF, BF, F, TC, 90, 1, MODE_FORCE, PATH_AUTO, 64, 64, DECIDE_FP16},
	{__LINE__, BF, BF, F, TC, 90, 1, MODE_FORCE, PATH_FP32, 64, 64, DECIDE_FP32},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_OFF, PATH_AUTO, 64, 64, DECIDE_PASS},
	/* BF16SHIM_PATH. */
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_FP32, 64, 64, DECIDE_FP32},
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_FP32, 1, 8, DECIDE_FP32},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_FP16, 64, 64, DECIDE_FP16},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_NATIVE, 64, 64, DECIDE_PASS},
	{__LINE__, BF, BF, F, TC, 90, 1, MODE_AUTO, PATH_FP32, 64, 64, DECIDE_PASS},
	/* Not bf16: never planned. */
	{__LINE__, H, H, F, TC, 61, 0, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_PASS},
	{__LINE__, F, F, F, DEF, 61, 0, MODE_FORCE, PATH_AUTO, 64, 64, DECIDE_PASS},
	/* Invalid arguments are the library's to answer. */
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_AUTO, -1, 64, DECIDE_PASS},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_AUTO, 64, 32, DECIDE_PASS},
	{__LINE__, BF, BF, F, 12345, 61, 0, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_PASS},
	{__LINE__, BF, BF, F, ABI_GEMM_ALGO23, 61, 0, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_FP32},
	{__LINE__, BF, BF, F, ABI_GEMM_ALGO15_TENSOR_OP, 61, 0, MODE_AUTO, PATH_AUTO, 64, 64,
	 DECIDE_FP32},
	/* Compute types the rewrite does not honour. */
	{__LINE__, BF, BF, ABI_COMPUTE_64F, DEF, 61, 0, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_PASS},
	{__LINE__, BF, D, F, DEF, 61, 0, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_PASS},
};

struct retry_row {
	int line;
	int atype, ctype, algo;
	enum decision attempted;
	int status;
	enum decision expect;
};

static const struct retry_row retries[] = {
	/* bf16 refused: fp32 path. */
	{__LINE__, BF, BF, TC, DECIDE_PASS, ABI_STATUS_NOT_SUPPORTED, DECIDE_FP32},
	{__LINE__, BF, F, DEF, DECIDE_PASS, ABI_STATUS_ARCH_MISMATCH, DECIDE_FP32},
	/* A tensor-op algorithm refused: the default algorithm first... */
	{__LINE__, H, H, TC, DECIDE_PASS, ABI_STATUS_NOT_SUPPORTED, DECIDE_PASS_DEFAULT_ALGO},
	/* ...and if 16F x 16F -> 32F is still refused (bitsandbytes on a 2080 Ti): fp32. */
	{__LINE__, H, F, TC, DECIDE_PASS_DEFAULT_ALGO, ABI_STATUS_NOT_SUPPORTED, DECIDE_FP32},
	{__LINE__, H, F, DEF, DECIDE_PASS, ABI_STATUS_NOT_SUPPORTED, DECIDE_FP32},
	/* Other failures and exhausted options return the status as it is. */
	{__LINE__, BF, BF, TC, DECIDE_PASS, ABI_STATUS_INVALID_VALUE, DECIDE_PASS},
	{__LINE__, BF, BF, TC, DECIDE_FP32, ABI_STATUS_NOT_SUPPORTED, DECIDE_PASS},
	{__LINE__, F, F, DEF, DECIDE_PASS, ABI_STATUS_NOT_SUPPORTED, DECIDE_PASS},
	{__LINE__, F, F, TC, DECIDE_PASS_DEFAULT_ALGO, ABI_STATUS_NOT_SUPPORTED, DECIDE_PASS},
};

static struct plan_call call(int atype, int ctype, int compute, int algo, int64_t m,
			     int64_t lda)
{
	return (struct plan_call){.atype = atype, .btype = atype, .ctype = ctype,
				  .compute = compute, .algo = algo, .transa = ABI_OP_N,
				  .transb = ABI_OP_N, .m = m, .n = m > 0 ? m : 8, .k = 64, .batch = 1,
				  .lda = lda, .ldb = 64, .ldc = m > 0 ? m : 1};
}

int main(void)
{
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		struct plan_call c = call(r->atype, r->ctype, r->compute, r->algo, r->m, r->lda);
		struct plan_device d = {r->sm, r->tensor_cores};
		struct shim_config cfg = {.mode = r->mode, .path = r->path};
		struct plan p = plan_gemm(&c, &d, &cfg);
		CHECK_EQ_INT(p.decision, r->expect, "plan row at line %d (%s)", r->line, p.reason);
		CHECK(p.reason && *p.reason, "row at line %d has no reason", r->line);
	}
	for (size_t i = 0; i < sizeof retries / sizeof retries[0]; i++) {
		const struct retry_row *r = &retries[i];
		struct plan_call c = call(r->atype, r->ctype, ABI_R_32F, r->algo, 8, 8);
		struct plan_device d = {75, 1};
		struct shim_config cfg = {.mode = MODE_AUTO};
		struct plan p = plan_retry(&c, &d, &cfg, r->attempted, r->status);
		CHECK_EQ_INT(p.decision, r->expect, "retry row at line %d (%s)", r->line, p.reason);
	}
	{
		struct plan_call c = call(BF, BF, F, TC, 64, 64);
		struct plan_device tc = {75, 1}, none = {75, 0};
		CHECK_EQ_INT(plan_fallback(DECIDE_DECODE, &c, &tc), DECIDE_FP16, "decode -> fp16");
		CHECK_EQ_INT(plan_fallback(DECIDE_DECODE, &c, &none), DECIDE_FP32, "decode -> fp32");
		CHECK_EQ_INT(plan_fallback(DECIDE_FP16, &c, &tc), DECIDE_FP32, "fp16 -> fp32");
		CHECK_EQ_INT(plan_fallback(DECIDE_FP32, &c, &tc), DECIDE_PASS, "fp32 -> original");
	}
	CHECK_DONE("plan_test");
}
