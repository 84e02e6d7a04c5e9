/* Policy.  What fails where comes from doc/facts.md: bf16 GEMMs below sm_70 are refused by
 * cuBLAS 11 and run slowly by cuBLAS 12, run (slowly, without tensor cores) on sm_70/75, and
 * are native from sm_80. */
#include "plan.h"

#include "abi.h"

static const char *const decision_names[] = {
	[DECIDE_PASS] = "pass",
	[DECIDE_PASS_DEFAULT_ALGO] = "pass-default-algo",
	[DECIDE_PASS_COMPUTE_32F] = "compute-32f",
	[DECIDE_FP32] = "fp32",
	[DECIDE_FP16] = "fp16",
	[DECIDE_DECODE] = "decode",
	[DECIDE_FUSED] = "fused",
};

const char *plan_decision_name(enum decision d)
{
	return decision_names[d];
}

int plan_all_native(const struct shim_config *cfg, int min_sm)
{
	/* bf16 is native from sm_80, and so are TF32, the bf16 and fp16 fast modes (every
	 * sm_80 part has tensor cores); FP8 is never converted. */
	return cfg->mode == MODE_AUTO && min_sm >= 80;
}

int plan_is_forward(enum decision d)
{
	return d == DECIDE_PASS || d == DECIDE_PASS_DEFAULT_ALGO || d == DECIDE_PASS_COMPUTE_32F;
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
	if (!is_trans(c->transa) || !is_trans(c->transb) || !is_algo(c->algo) ||
	    c->bad_pointers)
		return 0;
	if (c->m < 0 || c->n < 0 || c->k < 0 || c->batch < 0)
		return 0;
	if (c->lda < max1(c->transa == ABI_OP_N ? c->m : c->k) ||
	    c->ldb < max1(c->transb == ABI_OP_N ? c->k : c->n) || c->ldc < max1(c->m))
		return 0;
	return 1;
}

static struct plan_step decide(enum decision d, const char *why)
{
	return (struct plan_step){d, why};
}

static int both_bf16(const struct plan_call *c)
{
	return c->atype == ABI_R_16BF && c->btype == ABI_R_16BF;
}

int plan_library_runs_bf16(const struct plan_device *d)
{
	return d->sm >= 70 || d->cublas_major == 12;
}

static int has_tensor_cores(const struct plan_device *d)
{
	return d->sm >= 70 && d->tensor_cores;
}

static int has_fused_kernel(const struct plan_device *d)
{
	return cost_fused_kernel(d->sm, d->tensor_cores) != COST_FUSED_NONE;
}

/* The rewrite for a GPU without bf16 tensor cores, by the architecture alone: decode-shaped
 * GEMMs read bf16 directly; others go to the fused path's tensor-core kernel where there are
 * tensor cores (Volta's, Turing's), else to fp32.  GTX 16xx (sm_75 without tensor cores)
 * stay on fp32: their fp16 GEMMs with M >= 2 crawl (doc/facts.md).  Without the model, the
 * fused path's CUDA-core kernel (modeled at half cuBLAS's fp32 rate until a card has
 * measured it) is not preferred to cuBLAS's fp32 GEMM. */
static struct plan_step choose_by_arch(const struct plan_call *c, const struct plan_device *d)
{
	if (both_bf16(c) && (c->m <= PLAN_DECODE_MAX || c->n <= PLAN_DECODE_MAX))
		return decide(DECIDE_DECODE, "decode-shaped: bf16-reading kernel");
	if (both_bf16(c) && has_tensor_cores(d))
		return decide(DECIDE_FUSED, "one kernel converting bf16 in registers");
	return decide(DECIDE_FP32, d->sm < 70 ? "bf16 GEMMs are not supported below sm_70"
					      : "no tensor cores: fp32 compute");
}

static const enum decision path_decision[COST_PATHS] = {
	[COST_NATIVE] = DECIDE_PASS, [COST_FP32] = DECIDE_FP32, [COST_FP16] = DECIDE_FP16,
	[COST_DECODE] = DECIDE_DECODE, [COST_FUSED] = DECIDE_FUSED,
};

enum cost_path plan_cost_path(enum decision d)
{
	for (int p = 0; p < COST_PATHS; p++)
		if (path_decision[p] == d)
			return (enum cost_path)p;
	return COST_NATIVE;
}

/* By the cost model (cost.h): the path modeled fastest; on a GPU that runs bf16 GEMMs itself
 * a rewrite only where it models at most PLAN_MARGIN of the native time (unless `force`: a
 * rewrite whatever the model says).  The decode path stays for decode shapes and the fp16
 * path for GPUs with tensor cores and their fp16 GEMMs (GTX 16xx have none: doc/facts.md).
 * pm gets the chosen and the best rejected time. */
static struct plan_step choose_by_model(const struct plan_call *c, const struct plan_device *d,
					int force, struct plan_model *pm)
{
	static const char *const why[COST_PATHS] = {
		[COST_NATIVE] = "modeled: no rewrite beats native by the margin",
		[COST_FP32] = "modeled fastest: fp32 compute",
		[COST_FP16] = "modeled fastest: fp16 tensor cores with exact scaling",
		[COST_DECODE] = "modeled fastest: decode-shaped, bf16-reading kernel",
		[COST_FUSED] = "modeled fastest: one kernel converting bf16 in registers",
	};
	struct cost_gemm g = {c->m, c->n, c->k, c->batch, c->ctype == ABI_R_32F ? 4 : 2,
			      c->epilogue};
	struct cost_estimate e[COST_PATHS];
	int ok[COST_PATHS], best = -1, chosen, rejected = -1;

	for (int p = 0; p < COST_PATHS; p++) {
		ok[p] = cost_estimate(&d->cost, &g, p, &e[p]) &&
			(p != COST_NATIVE || plan_library_runs_bf16(d));
		if (p != COST_NATIVE && ok[p] && (best < 0 || e[p].us < e[best].us))
			best = p;
	}
	if (best < 0) /* no rewrite could be modeled: not for a valid call */
		return choose_by_arch(c, d);
	chosen = best;
	if (!force && ok[COST_NATIVE] && e[best].us > PLAN_MARGIN * e[COST_NATIVE].us)
		chosen = COST_NATIVE;
	for (int p = 0; p < COST_PATHS; p++)
		if (p != chosen && ok[p] && (rejected < 0 || e[p].us < e[rejected].us))
			rejected = p;
	*pm = (struct plan_model){1, e[chosen].us, DECIDE_PASS, -1};
	if (rejected >= 0) {
		pm->rejected = path_decision[rejected];
		pm->rejected_us = e[rejected].us;
	}
	return decide(path_decision[chosen], why[chosen]);
}

static struct plan_step choose_rewrite(const struct plan_call *c, const struct plan_device *d,
				       const struct shim_config *cfg, struct plan_model *pm)
{
	if (both_bf16(c) && cost_device_known(&d->cost))
		return choose_by_model(c, d, cfg->mode == MODE_FORCE || c->lt, pm);
	return choose_by_arch(c, d);
}

/* The first step: what the policy says for this call. */
static struct plan_step first_step(const struct plan_call *c, const struct plan_device *d,
				   const struct shim_config *cfg, struct plan_model *pm)
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
	if (cfg->path == PATH_FUSED && both_bf16(c) && has_fused_kernel(d))
		return decide(DECIDE_FUSED, "BF16SHIM_PATH=fused");
	if (cfg->path == PATH_DECODE && both_bf16(c) &&
	    (c->m <= PLAN_DECODE_MAX || c->n <= PLAN_DECODE_MAX))
		return decide(DECIDE_DECODE, "BF16SHIM_PATH=decode");
	return choose_rewrite(c, d, cfg, pm);
}

static void add(struct plan *p, enum decision d, const char *why)
{
	p->step[p->n++] = decide(d, why);
}

struct plan plan_gemm(const struct plan_call *c, const struct plan_device *d,
		      const struct shim_config *cfg)
{
	struct plan p = {0};
	struct plan_step first = first_step(c, d, cfg, &p.model);
	int bf16 = c->atype == ABI_R_16BF || c->btype == ABI_R_16BF;

	p.step[p.n++] = first;
	/* A path our machinery cannot take: the next one, down to the original call. */
	switch (first.decision) {
	case DECIDE_FUSED:
	case DECIDE_DECODE:
		if (both_bf16(c) && has_tensor_cores(d))
			add(&p, DECIDE_FP16, "the path before was unavailable");
		/* fall through */
	case DECIDE_FP16:
		add(&p, DECIDE_FP32, "the path before was unavailable");
		/* fall through */
	case DECIDE_FP32:
		add(&p, DECIDE_PASS, "no path could be taken: the call as it came");
		return p;
	default:
		break;
	}
	/* The call goes to the library as it came.  If the library refuses it: nothing for
	 * invalid arguments (its answer stands) or with BF16SHIM_MODE=off; a bf16 GEMM on the
	 * fp32 path; a tensor-op algorithm with the default one first, then 16F x 16F -> 32F
	 * (the bitsandbytes-on-2080-Ti case, doc/facts.md) on the fp32 path. */
	if (cfg->mode == MODE_OFF || !arguments_valid(c))
		return p;
	if (bf16 && plan_fp32_supports(c)) {
		/* The rewrite the model ranked next to the pass (cuBLAS 11 refuses what
		 * cuBLAS 12 runs on Maxwell and Pascal: doc/facts.md), then its fallbacks. */
		switch (p.model.valid ? p.model.rejected : DECIDE_FP32) {
		case DECIDE_DECODE:
			add(&p, DECIDE_DECODE, "the library refused a bf16 GEMM");
			if (both_bf16(c) && has_tensor_cores(d))
				add(&p, DECIDE_FP16, "the decode kernel was unavailable");
			add(&p, DECIDE_FP32, "the path before was unavailable");
			break;
		case DECIDE_FP16:
			add(&p, DECIDE_FP16, "the library refused a bf16 GEMM");
			add(&p, DECIDE_FP32, "the path before was unavailable");
			break;
		default:
			add(&p, DECIDE_FP32, "the library refused a bf16 GEMM");
		}
		return p;
	}
	if (plan_is_tensor_op_algo(c->algo))
		add(&p, DECIDE_PASS_DEFAULT_ALGO, "the library refused a tensor-op algorithm");
	if (plan_fp32_supports(c))
		add(&p, DECIDE_FP32, "the library refused this type combination");
	return p;
}

/* ---- cuBLASLt ---- */

static const char *const lt_decision_names[] = {
	[LT_PASS] = "pass",
	[LT_REWRITE] = "rewrite",
	[LT_COMPUTE_32F] = "compute-32f",
};

const char *plan_lt_decision_name(enum lt_decision d)
{
	return lt_decision_names[d];
}

static struct lt_plan lt_decide(enum lt_decision d, const char *why)
{
	return (struct lt_plan){.decision = d, .reason = why};
}

/* The six epilogues the rewrite fuses: activation and bias. */
static int lt_epilogue(unsigned epilogue, int *act, int *bias)
{
	static const struct {
		unsigned epilogue;
		int act, bias;
	} fused[] = {
		{ABI_LT_EPILOGUE_DEFAULT, GEMM_ACT_NONE, 0},
		{ABI_LT_EPILOGUE_RELU, GEMM_ACT_RELU, 0},
		{ABI_LT_EPILOGUE_BIAS, GEMM_ACT_NONE, 1},
		{ABI_LT_EPILOGUE_RELU_BIAS, GEMM_ACT_RELU, 1},
		{ABI_LT_EPILOGUE_GELU, GEMM_ACT_GELU, 0},
		{ABI_LT_EPILOGUE_GELU_BIAS, GEMM_ACT_GELU, 1},
	};
	for (size_t i = 0; i < sizeof fused / sizeof fused[0]; i++) {
		if (fused[i].epilogue == epilogue) {
			*act = fused[i].act;
			*bias = fused[i].bias;
			return 1;
		}
	}
	return 0;
}

/* Reduced-precision fast modes the device lacks (doc/facts.md: TF32 needs sm_80; bf16 tensor
 * cores too; fp16 tensor cores come with sm_70, but not on every part). */
static int lt_fast_mode_missing(int compute, const struct plan_device *d)
{
	switch (compute) {
	case ABI_COMPUTE_32F_FAST_TF32:
	case ABI_COMPUTE_32F_FAST_16BF:
		return d->sm < 80;
	case ABI_COMPUTE_32F_FAST_16F:
		return !d->tensor_cores;
	default:
		return 0;
	}
}

static int flip(int op)
{
	return op == ABI_OP_N ? ABI_OP_T : ABI_OP_N;
}

static int is_fp8(int type)
{
	return type == ABI_R_8F_E4M3 || type == ABI_R_8F_E5M2;
}

/* Shapes and layouts the library would accept: the same four checks cuBLASLt makes
 * (op(A) m x k, op(B) k x n, C and D m x n, one batch count), in the orders the rewrite
 * addresses.  NULL when the call is fine, else why it stays the library's. */
static const char *lt_layouts_invalid(const struct plan_lt_call *c)
{
	const struct plan_lt_matrix *ms[4] = {&c->a, &c->b, &c->c, &c->d};
	int ta = c->transa != ABI_OP_N, tb = c->transb != ABI_OP_N;
	uint64_t m = c->d.rows, n = c->d.cols, k = ta ? c->a.rows : c->a.cols;

	for (int i = 0; i < 4; i++) {
		if (ms[i]->order != ABI_LT_ORDER_COL && ms[i]->order != ABI_LT_ORDER_ROW)
			return "a matrix order other than column or row";
		if (ms[i]->rows > INT32_MAX || ms[i]->cols > INT32_MAX || ms[i]->batch < 1 ||
		    ms[i]->batch != c->d.batch)
			return "invalid layouts: the library answers";
		if (ms[i]->ld < max1((int64_t)(ms[i]->order == ABI_LT_ORDER_COL ? ms[i]->rows
									   : ms[i]->cols)))
			return "invalid layouts: the library answers";
	}
	if ((ta ? c->a.cols : c->a.rows) != m || (tb ? c->b.cols : c->b.rows) != k ||
	    (tb ? c->b.rows : c->b.cols) != n || c->c.rows != m || c->c.cols != n)
		return "invalid layouts: the library answers";
	if (c->c.order != c->d.order)
		return "C and D in different orders";
	/* In place needs one layout (cuBLASLt: INVALID_VALUE otherwise). */
	if (c->c_is_d && c->c.ld != c->d.ld)
		return "invalid layouts: the library answers";
	return NULL;
}

/* The call in column-major terms: each operand stored row-major is its transpose stored
 * column-major, and a row-major D is computed as D^T = op(B)^T op(A)^T. */
static void lt_column_major(const struct plan_lt_call *c, struct lt_plan *p)
{
	int ea = c->a.order == ABI_LT_ORDER_ROW ? flip(c->transa) : c->transa;
	int eb = c->b.order == ABI_LT_ORDER_ROW ? flip(c->transb) : c->transb;
	struct plan_call *g = &p->gemm;

	/* Real operands: C (conjugate transpose) is T. */
	ea = ea == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	eb = eb == ABI_OP_N ? ABI_OP_N : ABI_OP_T;
	p->transposed = c->d.order == ABI_LT_ORDER_ROW;
	*g = (struct plan_call){.ctype = c->d.type, .compute = c->compute,
				.algo = ABI_GEMM_DEFAULT, .batch = c->d.batch, .ldc = c->d.ld};
	g->k = (int64_t)(c->transa != ABI_OP_N ? c->a.rows : c->a.cols);
	if (!p->transposed) {
		g->atype = c->a.type, g->btype = c->b.type;
		g->transa = ea, g->transb = eb;
		g->m = (int64_t)c->d.rows, g->n = (int64_t)c->d.cols;
		g->lda = c->a.ld, g->ldb = c->b.ld;
	} else {
		g->atype = c->b.type, g->btype = c->a.type;
		g->transa = flip(eb), g->transb = flip(ea);
		g->m = (int64_t)c->d.cols, g->n = (int64_t)c->d.rows;
		g->lda = c->b.ld, g->ldb = c->a.ld;
	}
}

struct lt_plan plan_lt(const struct plan_lt_call *c, const struct plan_device *d,
		       const struct shim_config *cfg)
{
	int bf16 = c->a.type == ABI_R_16BF || c->b.type == ABI_R_16BF;
	struct shim_config forced = *cfg;
	const char *invalid;
	struct lt_plan p;
	int act, bias, bias_type;

	if (!bf16) {
		if (cfg->mode == MODE_OFF)
			return lt_decide(LT_PASS, "BF16SHIM_MODE=off");
		if (is_fp8(c->a.type) || is_fp8(c->b.type))
			return lt_decide(LT_PASS, d->sm < 89 ? "FP8 below sm_89 is not converted"
							     : "FP8 is native from sm_89");
		if (lt_fast_mode_missing(c->compute, d) && cfg->path != PATH_NATIVE)
			return lt_decide(LT_COMPUTE_32F, "this GPU lacks the reduced-precision "
							 "mode: plain fp32 compute");
		return lt_decide(LT_PASS, "no bf16 operand");
	}
	if (cfg->mode == MODE_OFF && !c->ours)
		return lt_decide(LT_PASS, "BF16SHIM_MODE=off");
	if (c->transa < ABI_OP_N || c->transa > ABI_OP_C || c->transb < ABI_OP_N ||
	    c->transb > ABI_OP_C || c->transc != ABI_OP_N)
		return lt_decide(LT_PASS, "transposes the rewrite does not take");
	if (!lt_epilogue(c->epilogue, &act, &bias))
		return lt_decide(LT_PASS, "epilogue not fused (aux output, gradient or unknown)");
	if (c->unhandled)
		return lt_decide(LT_PASS, c->unhandled);
	if (c->pmode != ABI_LT_POINTER_MODE_HOST && c->pmode != ABI_LT_POINTER_MODE_DEVICE)
		return lt_decide(LT_PASS, "vector alpha pointer modes are not rewritten");
	if (c->scale != ABI_R_32F)
		return lt_decide(LT_PASS, "scale type other than fp32");
	if ((invalid = lt_layouts_invalid(c)))
		return lt_decide(LT_PASS, invalid);
	if (c->c.type != c->d.type || (c->d.type != ABI_R_16BF && c->d.type != ABI_R_32F))
		return lt_decide(LT_PASS, "C/D types other than one of bf16 or fp32");
	bias_type = c->bias_type == -1 ? c->d.type : c->bias_type;
	if (bias && (!c->bias || (bias_type != ABI_R_16BF && bias_type != ABI_R_32F)))
		return lt_decide(LT_PASS, "bias missing or of a type other than bf16 or fp32");

	p = lt_decide(LT_REWRITE, "");
	lt_column_major(c, &p);
	p.act = act;
	p.has_bias = bias;
	p.gemm.epilogue = act != GEMM_ACT_NONE || bias;
	p.gemm.lt = 1;
	/* An algorithm from our heuristic asks for the rewrite whatever the policy says now. */
	if (c->ours) {
		forced.mode = MODE_FORCE;
		if (forced.path == PATH_NATIVE)
			forced.path = PATH_AUTO;
	}
	p.rewrite = plan_gemm(&p.gemm, d, &forced);
	if (p.rewrite.step[0].decision == DECIDE_PASS || p.gemm.ldc < max1(p.gemm.m))
		return lt_decide(LT_PASS, p.rewrite.step[0].decision == DECIDE_PASS
						  ? p.rewrite.step[0].reason
						  : "invalid layouts");
	p.reason = p.rewrite.step[0].reason;
	return p;
}

struct plan plan_lt_steps(const struct lt_plan *p)
{
	static const enum decision forward[] = {
		[LT_PASS] = DECIDE_PASS,
		[LT_COMPUTE_32F] = DECIDE_PASS_COMPUTE_32F,
	};

	if (p->decision == LT_REWRITE)
		return p->rewrite;
	return (struct plan){.n = 1, .step = {{forward[p->decision], p->reason}}};
}
