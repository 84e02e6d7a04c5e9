/* Policy.  What fails where comes from preampere.md: bf16 GEMMs are refused below sm_70,
 * run (slowly, without tensor cores) on sm_70/75, and are native from sm_80. */
#include "plan.h"

#include "abi.h"

static const char *const decision_names[] = {
	[DECIDE_PASS] = "pass",
	[DECIDE_PASS_DEFAULT_ALGO] = "pass-default-algo",
	[DECIDE_FP32] = "fp32",
	[DECIDE_FP16] = "fp16",
	[DECIDE_DECODE] = "decode",
};

const char *plan_decision_name(enum decision d)
{
	return decision_names[d];
}

int plan_is_tensor_op_algo(int algo)
{
	return algo >= ABI_GEMM_DEFAULT_TENSOR_OP && algo <= ABI_GEMM_ALGO15_TENSOR_OP;
}

/* fp32 accumulation in either spelling (the legacy one is what PyTorch passes). */
static int compute_is_fp32(int compute)
{
	switch (compute) {
	case ABI_R_32F:
	case ABI_COMPUTE_32F:
	case ABI_COMPUTE_32F_PEDANTIC:
	case ABI_COMPUTE_32F_FAST_16F:
	case ABI_COMPUTE_32F_FAST_16BF:
	case ABI_COMPUTE_32F_FAST_TF32:
		return 1;
	default:
		return 0;
	}
}

int plan_fp32_supports(const struct plan_call *c)
{
	int a_ok = c->atype == ABI_R_16BF || c->atype == ABI_R_16F;
	int c_ok = c->ctype == ABI_R_16BF || c->ctype == ABI_R_32F || c->ctype == ABI_R_16F;
	return a_ok && c->btype == c->atype && c_ok && compute_is_fp32(c->compute);
}

static int is_trans(int op)
{
	return op == ABI_OP_N || op == ABI_OP_T || op == ABI_OP_C;
}

/* CUBLAS_GEMM_DEFAULT, ALGO0..23, and the tensor-op range. */
static int is_algo(int algo)
{
	return (algo >= ABI_GEMM_DEFAULT && algo <= ABI_GEMM_ALGO23) ||
	       plan_is_tensor_op_algo(algo);
}

static int64_t max1(int64_t v)
{
	return v > 1 ? v : 1;
}

/* Arguments cuBLAS would reject: such calls are never rewritten, so the application gets
 * exactly the real library's status for them. */
static int arguments_valid(const struct plan_call *c)
{
	if (!is_trans(c->transa) || !is_trans(c->transb) || !is_algo(c->algo))
		return 0;
	if (c->m < 0 || c->n < 0 || c->k < 0 || c->batch < 0)
		return 0;
	if (c->lda < max1(c->transa == ABI_OP_N ? c->m : c->k) ||
	    c->ldb < max1(c->transb == ABI_OP_N ? c->k : c->n) || c->ldc < max1(c->m))
		return 0;
	return 1;
}

static struct plan decide(enum decision d, const char *why)
{
	return (struct plan){d, why};
}

static int both_bf16(const struct plan_call *c)
{
	return c->atype == ABI_R_16BF && c->btype == ABI_R_16BF;
}

/* The rewrite for a GPU without bf16 tensor cores: decode-shaped GEMMs read bf16 directly;
 * others go to fp16 tensor cores where there are some, else to fp32.  GTX 16xx (sm_75
 * without tensor cores) stay on fp32: their fp16 GEMMs with M >= 2 crawl (preampere.md). */
static struct plan choose_rewrite(const struct plan_call *c, const struct plan_device *d)
{
	if (both_bf16(c) && (c->m <= PLAN_DECODE_MAX || c->n <= PLAN_DECODE_MAX))
		return decide(DECIDE_DECODE, "decode-shaped: bf16-reading kernel");
	if (both_bf16(c) && d->sm >= 70 && d->tensor_cores)
		return decide(DECIDE_FP16, "fp16 tensor cores with exact scaling");
	return decide(DECIDE_FP32, d->sm < 70 ? "bf16 GEMMs are not supported below sm_70"
					      : "no tensor cores: fp32 compute");
}

struct plan plan_gemm(const struct plan_call *c, const struct plan_device *d,
		      const struct shim_config *cfg)
{
	int bf16 = c->atype == ABI_R_16BF || c->btype == ABI_R_16BF;

	if (cfg->mode == MODE_OFF)
		return decide(DECIDE_PASS, "BF16SHIM_MODE=off");
	if (!bf16)
		return decide(DECIDE_PASS, "no bf16 operand");
	if (!arguments_valid(c))
		return decide(DECIDE_PASS, "invalid arguments: the library answers");
	if (!plan_fp32_supports(c))
		return decide(DECIDE_PASS, "type combination not rewritten");
	if (cfg->mode != MODE_FORCE) {
		if (cfg->path == PATH_NATIVE)
			return decide(DECIDE_PASS, "BF16SHIM_PATH=native");
		if (d->sm >= 80)
			return decide(DECIDE_PASS, "bf16 is native from sm_80");
	}
	if (cfg->path == PATH_FP32)
		return decide(DECIDE_FP32, "BF16SHIM_PATH=fp32");
	if (cfg->path == PATH_FP16 && both_bf16(c))
		return decide(DECIDE_FP16, "BF16SHIM_PATH=fp16");
	return choose_rewrite(c, d);
}

enum decision plan_fallback(enum decision d, const struct plan_call *c,
			    const struct plan_device *dev)
{
	switch (d) {
	case DECIDE_DECODE:
		return both_bf16(c) && dev->sm >= 70 && dev->tensor_cores ? DECIDE_FP16
									   : DECIDE_FP32;
	case DECIDE_FP16:
		return DECIDE_FP32;
	default:
		return DECIDE_PASS;
	}
}

struct plan plan_retry(const struct plan_call *c, const struct plan_device *d,
		       const struct shim_config *cfg, enum decision attempted, int status)
{
	int bf16 = c->atype == ABI_R_16BF || c->btype == ABI_R_16BF;
	int valid = arguments_valid(c);

	(void)d;
	if (status != ABI_STATUS_NOT_SUPPORTED && status != ABI_STATUS_ARCH_MISMATCH)
		return decide(DECIDE_PASS, "failure is not about support");
	if (cfg->mode == MODE_OFF || !valid || attempted >= DECIDE_FP32)
		return decide(DECIDE_PASS, "nothing left to try");
	if (bf16 && plan_fp32_supports(c))
		return decide(DECIDE_FP32, "the library refused a bf16 GEMM");
	if (plan_is_tensor_op_algo(c->algo) && attempted == DECIDE_PASS)
		return decide(DECIDE_PASS_DEFAULT_ALGO, "the library refused a tensor-op algorithm");
	/* 16F x 16F -> 32F refused even without tensor ops: the bitsandbytes-on-2080-Ti case
	 * (preampere.md). */
	if (plan_fp32_supports(c))
		return decide(DECIDE_FP32, "the library refused this type combination");
	return decide(DECIDE_PASS, "no rewrite for this type combination");
}
