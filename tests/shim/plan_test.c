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
	/* bf16 below sm_70 is refused by cuBLAS: rewrite (doc/facts.md). */
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_FP32},
	{__LINE__, BF, F, ABI_COMPUTE_32F, DEF, 60, 0, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_FP32},
	{__LINE__, BF, BF, ABI_COMPUTE_32F_FAST_TF32, DEF, 52, 0, MODE_AUTO, PATH_AUTO, 64, 64,
	 DECIDE_FP32},
	/* sm_70/75 run bf16 without tensor cores: fp16 tensor cores instead, through the fused
	 * path's kernel of each (Turing's, Volta's)... */
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_FUSED},
	{__LINE__, BF, F, F, TC, 70, 1, MODE_AUTO, PATH_AUTO, 64, 64, DECIDE_FUSED},
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
	{__LINE__, BF, BF, F, TC, 90, 1, MODE_FORCE, PATH_AUTO, 64, 64, DECIDE_FUSED},
	{__LINE__, BF, BF, F, TC, 90, 1, MODE_FORCE, PATH_FP32, 64, 64, DECIDE_FP32},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_OFF, PATH_AUTO, 64, 64, DECIDE_PASS},
	/* BF16SHIM_PATH. */
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_FP32, 64, 64, DECIDE_FP32},
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_FP32, 1, 8, DECIDE_FP32},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_FP16, 64, 64, DECIDE_FP16},
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_FUSED, 64, 64, DECIDE_FUSED},
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_FUSED, 1, 8, DECIDE_FUSED},
	/* ...the CUDA cores' kernel where there are no tensor cores (not chosen by the
	 * architecture alone); where the GPU has no fused kernel, BF16SHIM_PATH=fused plans as
	 * auto. */
	{__LINE__, BF, BF, F, TC, 75, 0, MODE_AUTO, PATH_FUSED, 64, 64, DECIDE_FUSED},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_FUSED, 64, 64, DECIDE_FUSED},
	{__LINE__, BF, BF, F, TC, 35, 0, MODE_AUTO, PATH_FUSED, 64, 64, DECIDE_FP32},
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

/* Whole plans: each step is tried when the one before could not be taken (a rewrite whose
 * machinery is unavailable) or was refused (a forward answered NOT_SUPPORTED). */
#define END -1
struct chain_row {
	int line;
	int atype, ctype, compute, algo;
	int sm, tensor_cores;
	enum shim_mode mode;
	enum shim_path path;
	int64_t m;
	int expect[PLAN_STEPS + 1];      /* decisions, then END */
};

#define PASS_ ((int)DECIDE_PASS)
#define DEFALGO ((int)DECIDE_PASS_DEFAULT_ALGO)
#define FP32_ ((int)DECIDE_FP32)
#define FP16_ ((int)DECIDE_FP16)
#define DECODE_ ((int)DECIDE_DECODE)
#define FUSED_ ((int)DECIDE_FUSED)

static const struct chain_row chains[] = {
	/* A rewrite falls back along the paths, down to the call as it came. */
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_AUTO, 64, {FP32_, PASS_, END}},
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_AUTO, 64,
	 {FUSED_, FP16_, FP32_, PASS_, END}},
	{__LINE__, BF, BF, F, TC, 70, 1, MODE_AUTO, PATH_AUTO, 64,
	 {FUSED_, FP16_, FP32_, PASS_, END}},
	{__LINE__, BF, BF, F, TC, 75, 1, MODE_AUTO, PATH_AUTO, 16,
	 {DECODE_, FP16_, FP32_, PASS_, END}},
	{__LINE__, BF, BF, F, TC, 75, 0, MODE_AUTO, PATH_AUTO, 16, {DECODE_, FP32_, PASS_, END}},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_AUTO, 1, {DECODE_, FP32_, PASS_, END}},
	/* Forwarded: a bf16 GEMM the library refuses goes to the fp32 path... */
	{__LINE__, BF, BF, F, TC, 90, 1, MODE_AUTO, PATH_AUTO, 64, {PASS_, FP32_, END}},
	{__LINE__, BF, F, F, DEF, 61, 0, MODE_AUTO, PATH_NATIVE, 64, {PASS_, FP32_, END}},
	/* ...a refused tensor-op algorithm gets the default one, then 16F x 16F -> 32F (the
	 * bitsandbytes-on-2080-Ti case) the fp32 path... */
	{__LINE__, H, H, F, TC, 75, 1, MODE_AUTO, PATH_AUTO, 8, {PASS_, DEFALGO, FP32_, END}},
	{__LINE__, H, F, F, DEF, 75, 1, MODE_AUTO, PATH_AUTO, 8, {PASS_, FP32_, END}},
	{__LINE__, F, F, F, TC, 75, 1, MODE_AUTO, PATH_AUTO, 8, {PASS_, DEFALGO, END}},
	{__LINE__, BF, BF, ABI_COMPUTE_64F, TC, 61, 0, MODE_AUTO, PATH_AUTO, 64,
	 {PASS_, DEFALGO, END}},
	/* ...and nothing else: no other retry, none for invalid arguments or with
	 * BF16SHIM_MODE=off (the library's answer stands). */
	{__LINE__, F, F, F, DEF, 75, 1, MODE_AUTO, PATH_AUTO, 8, {PASS_, END}},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_AUTO, PATH_AUTO, -1, {PASS_, END}},
	{__LINE__, BF, BF, F, TC, 61, 0, MODE_OFF, PATH_AUTO, 64, {PASS_, END}},
	{__LINE__, H, H, F, TC, 75, 1, MODE_OFF, PATH_AUTO, 8, {PASS_, END}},
};

static struct plan_call call(int atype, int ctype, int compute, int algo, int64_t m,
			     int64_t lda)
{
	return (struct plan_call){.atype = atype, .btype = atype, .ctype = ctype,
				  .compute = compute, .algo = algo, .transa = ABI_OP_N,
				  .transb = ABI_OP_N, .m = m, .n = m > 0 ? m : 8, .k = 64, .batch = 1,
				  .lda = lda, .ldb = 64, .ldc = m > 0 ? m : 1};
}

/* ---- cuBLASLt ---- */
#define COLM ABI_LT_ORDER_COL
#define ROWM ABI_LT_ORDER_ROW
#define E_DEF ABI_LT_EPILOGUE_DEFAULT
#define E_BIAS ABI_LT_EPILOGUE_BIAS
#define E_GELU_BIAS ABI_LT_EPILOGUE_GELU_BIAS

/* A matrix of a cuBLASLt call: logical rows x cols in `order`, tight ld. */
static struct plan_lt_matrix ltm(int type, int order, uint64_t r, uint64_t cl)
{
	return (struct plan_lt_matrix){type, order, r, cl, (int64_t)(order == COLM ? r : cl), 0, 1};
}

/* D = op(A) op(B), m x n, k; A and B of type ab, C and D of type cd, all in `order`. */
static struct plan_lt_call lt_call(int ab, int cd, int compute, int ta, int tb, int order,
				   uint64_t m, uint64_t n, uint64_t k, unsigned epilogue)
{
	struct plan_lt_call c = {.compute = compute, .scale = F, .pmode = ABI_LT_POINTER_MODE_HOST,
				 .transa = ta, .transb = tb, .transc = ABI_OP_N,
				 .epilogue = epilogue, .bias = 0x1000, .bias_type = -1,
				 .c_is_d = 1};
	c.a = ta == ABI_OP_N ? ltm(ab, order, m, k) : ltm(ab, order, k, m);
	c.b = tb == ABI_OP_N ? ltm(ab, order, k, n) : ltm(ab, order, n, k);
	c.c = c.d = ltm(cd, order, m, n);
	return c;
}

struct lt_row {
	int line;
	struct plan_lt_call call;
	int sm, tensor_cores;
	enum shim_mode mode;
	enum shim_path path;
	enum lt_decision expect;
	enum decision path_expect;       /* LT_REWRITE: the GEMM path */
};

#define N ABI_OP_N
#define T ABI_OP_T
#define C32 ABI_COMPUTE_32F
#define LT_BF16(ep) lt_call(BF, BF, C32, T, N, COLM, 64, 48, 32, ep)

static struct plan_lt_call with_epilogue(struct plan_lt_call c, unsigned epilogue, uint64_t bias,
					 int bias_type)
{
	c.epilogue = epilogue;
	c.bias = bias;
	c.bias_type = bias_type;
	return c;
}

static struct plan_lt_call tweak(struct plan_lt_call c, int what)
{
	switch (what) {
	case 0: c.unhandled = "scale or amax pointers"; break;
	case 1: c.pmode = 3; break;                       /* ALPHA_DEVICE_VECTOR_BETA_ZERO */
	case 2: c.scale = BF; break;
	case 3: c.c.type = F; break;                      /* C and D of different types */
	case 4: c.c.type = c.d.type = H; break;
	case 5: c.ours = 1; break;
	case 6: c.a.cols += 1; break;                     /* k disagrees with B */
	case 7: c.c.ld += 2; break;                       /* in place with two layouts */
	case 8: c.c.ld += 2, c.c_is_d = 0; break;         /* two matrices: fine */
	case 9: c.transc = T; break;
	case 10: c.d.order = c.c.order = ROWM; c.d.ld = (int64_t)c.d.cols;
		 c.c.ld = c.d.ld; break;
	case 11: c.a.order = 2; break;                    /* COL32 */
	}
	return c;
}

static const struct lt_row *lt_rows(size_t *n)
{
	static struct lt_row table[40];
	size_t i = 0;
#define ROW_(call_, sm_, tc_, mode_, path_, expect_, pexp_)                                \
	table[i++] = (struct lt_row){__LINE__, call_, sm_, tc_, mode_, path_, expect_, pexp_}
	/* bf16 below sm_80: rewritten by the GEMM policy, every fused epilogue. */
	ROW_(LT_BF16(E_DEF), 61, 0, MODE_AUTO, PATH_AUTO, LT_REWRITE, DECIDE_FP32);
	ROW_(LT_BF16(E_GELU_BIAS), 75, 1, MODE_AUTO, PATH_AUTO, LT_REWRITE, DECIDE_FUSED);
	ROW_(LT_BF16(ABI_LT_EPILOGUE_RELU), 75, 0, MODE_AUTO, PATH_AUTO, LT_REWRITE, DECIDE_FP32);
	ROW_(with_epilogue(LT_BF16(E_BIAS), E_BIAS, 0x1000, F), 61, 0, MODE_AUTO, PATH_AUTO,
	     LT_REWRITE, DECIDE_FP32);
	ROW_(LT_BF16(E_DEF), 80, 1, MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);
	ROW_(LT_BF16(E_DEF), 61, 0, MODE_OFF, PATH_AUTO, LT_PASS, DECIDE_PASS);
	/* Epilogues with aux outputs or gradients, missing or odd biases: the library's. */
	ROW_(LT_BF16(160), 61, 0, MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);     /* GELU_AUX */
	ROW_(LT_BF16(136), 61, 0, MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);     /* DRELU */
	ROW_(LT_BF16(512), 61, 0, MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);     /* BGRADB */
	ROW_(with_epilogue(LT_BF16(E_BIAS), E_BIAS, 0, -1), 61, 0, MODE_AUTO, PATH_AUTO, LT_PASS,
	     DECIDE_PASS);
	ROW_(with_epilogue(LT_BF16(E_BIAS), E_BIAS, 0x1000, H), 61, 0, MODE_AUTO, PATH_AUTO,
	     LT_PASS, DECIDE_PASS);
	/* Attributes, scalar modes, types and layouts the rewrite does not take. */
	for (int w = 0; w <= 4; w++)
		ROW_(tweak(LT_BF16(E_DEF), w), 61, 0, MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);
	ROW_(tweak(LT_BF16(E_DEF), 6), 61, 0, MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);
	ROW_(tweak(LT_BF16(E_DEF), 7), 61, 0, MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);
	ROW_(tweak(LT_BF16(E_DEF), 8), 61, 0, MODE_AUTO, PATH_AUTO, LT_REWRITE, DECIDE_FP32);
	ROW_(tweak(LT_BF16(E_DEF), 9), 61, 0, MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);
	/* Row-major C and D with column-major A and B: computed transposed. */
	ROW_(tweak(LT_BF16(E_DEF), 10), 61, 0, MODE_AUTO, PATH_AUTO, LT_REWRITE, DECIDE_FP32);
	ROW_(tweak(LT_BF16(E_DEF), 11), 61, 0, MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);
	/* Our algorithm: rewritten whatever the policy says now. */
	ROW_(tweak(LT_BF16(E_DEF), 5), 90, 1, MODE_AUTO, PATH_AUTO, LT_REWRITE, DECIDE_FUSED);
	ROW_(tweak(LT_BF16(E_DEF), 5), 61, 0, MODE_OFF, PATH_NATIVE, LT_REWRITE, DECIDE_FP32);
	/* Decode shapes: the bf16-reading kernel, epilogue fused there too. */
	ROW_(lt_call(BF, BF, C32, T, N, COLM, 64, 4, 32, E_DEF), 75, 1, MODE_AUTO, PATH_AUTO,
	     LT_REWRITE, DECIDE_DECODE);
	ROW_(lt_call(BF, BF, C32, T, N, COLM, 64, 4, 32, E_BIAS), 75, 1, MODE_AUTO, PATH_AUTO,
	     LT_REWRITE, DECIDE_DECODE);
	ROW_(lt_call(BF, F, C32, N, N, ROWM, 4, 64, 32, E_GELU_BIAS), 61, 0, MODE_AUTO, PATH_AUTO,
	     LT_REWRITE, DECIDE_DECODE);
	/* Reduced-precision fast modes the GPU lacks: plain fp32 compute. */
	ROW_(lt_call(F, F, ABI_COMPUTE_32F_FAST_TF32, N, N, COLM, 64, 48, 32, E_DEF), 75, 1,
	     MODE_AUTO, PATH_AUTO, LT_COMPUTE_32F, DECIDE_PASS);
	ROW_(lt_call(F, F, ABI_COMPUTE_32F_FAST_TF32, N, N, COLM, 64, 48, 32, 160), 61, 0,
	     MODE_AUTO, PATH_AUTO, LT_COMPUTE_32F, DECIDE_PASS);
	ROW_(lt_call(F, F, ABI_COMPUTE_32F_FAST_TF32, N, N, COLM, 64, 48, 32, E_DEF), 80, 1,
	     MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);
	ROW_(lt_call(F, F, ABI_COMPUTE_32F_FAST_16BF, N, N, COLM, 64, 48, 32, E_DEF), 75, 1,
	     MODE_AUTO, PATH_AUTO, LT_COMPUTE_32F, DECIDE_PASS);
	ROW_(lt_call(F, F, ABI_COMPUTE_32F_FAST_16F, N, N, COLM, 64, 48, 32, E_DEF), 75, 1,
	     MODE_AUTO, PATH_AUTO, LT_PASS, DECIDE_PASS);
	ROW_(lt_call(F, F, ABI_COMPUTE_32F_FAST_16F, N, N, COLM, 64, 48, 32, E_DEF), 61, 0,
	     MODE_AUTO, PATH_AUTO, LT_COMPUTE_32F, DECIDE_PASS);
	ROW_(lt_call(F, F, ABI_COMPUTE_32F_FAST_TF32, N, N, COLM, 64, 48, 32, E_DEF), 75, 1,
	     MODE_AUTO, PATH_NATIVE, LT_PASS, DECIDE_PASS);
	ROW_(lt_call(F, F, ABI_COMPUTE_32F_FAST_TF32, N, N, COLM, 64, 48, 32, E_DEF), 75, 1,
	     MODE_OFF, PATH_AUTO, LT_PASS, DECIDE_PASS);
	/* FP8 below sm_89 is passed through (logged), plain fp16 too. */
	ROW_(lt_call(ABI_R_8F_E4M3, BF, C32, T, N, COLM, 64, 48, 32, E_DEF), 75, 1, MODE_AUTO,
	     PATH_AUTO, LT_PASS, DECIDE_PASS);
	ROW_(lt_call(H, H, C32, N, N, COLM, 64, 48, 32, E_DEF), 61, 0, MODE_AUTO, PATH_AUTO,
	     LT_PASS, DECIDE_PASS);
#undef ROW_
	*n = i;
	return table;
}

/* Row-major and mixed orders in column-major terms (the rewrite runs on those). */
static void lt_orders(void)
{
	struct plan_device d = {.sm = 61};
	struct shim_config cfg = {.mode = MODE_AUTO};
	struct plan_lt_call c = lt_call(BF, BF, C32, N, T, ROWM, 40, 24, 16, E_BIAS);
	struct lt_plan p = plan_lt(&c, &d, &cfg);

	/* D^T = op(B)^T op(A)^T.  B (24 x 16, row-major) is stored as the column-major B^T, so
	 * op(B)^T = B is that stored matrix transposed; A (40 x 16, row-major, N) is stored as
	 * A^T, and op(A)^T = A^T is it as stored. */
	CHECK_EQ_INT(p.decision, LT_REWRITE, "row-major: %s", p.reason);
	CHECK_EQ_INT(p.transposed, 1, "row-major D is computed transposed");
	CHECK_EQ_INT(p.gemm.m, 24, "m of the transposed problem is D's columns");
	CHECK_EQ_INT(p.gemm.n, 40, "n of the transposed problem is D's rows");
	CHECK_EQ_INT(p.gemm.k, 16, "k");
	CHECK_EQ_INT(p.gemm.transa, ABI_OP_T, "gemm A is the caller's B, transposed");
	CHECK_EQ_INT(p.gemm.transb, ABI_OP_N, "gemm B is the caller's A, as stored");
	CHECK_EQ_INT(p.gemm.lda, c.b.ld, "lda is B's ld");
	CHECK_EQ_INT(p.gemm.ldb, c.a.ld, "ldb is A's ld");
	CHECK_EQ_INT(p.has_bias, 1, "bias kept");

	/* A row-major, the rest column-major: only A's transpose flips. */
	c = lt_call(BF, BF, C32, N, N, COLM, 40, 24, 16, E_DEF);
	c.a = ltm(BF, ROWM, 40, 16);
	p = plan_lt(&c, &d, &cfg);
	CHECK_EQ_INT(p.decision, LT_REWRITE, "mixed: %s", p.reason);
	CHECK_EQ_INT(p.transposed, 0, "column-major D");
	CHECK_EQ_INT(p.gemm.transa, ABI_OP_T, "row-major A is a transposed column-major one");
	CHECK_EQ_INT(p.gemm.transb, ABI_OP_N, "B as given");
	CHECK_EQ_INT(p.gemm.m, 40, "m");
	CHECK_EQ_INT(p.gemm.n, 24, "n");
	CHECK_EQ_INT(p.act, GEMM_ACT_NONE, "no activation");
	CHECK_EQ_INT(p.has_bias, 0, "no bias");

	c = LT_BF16(E_GELU_BIAS);
	p = plan_lt(&c, &d, &cfg);
	CHECK_EQ_INT(p.act, GEMM_ACT_GELU, "GELU_BIAS: GELU");
	CHECK_EQ_INT(p.has_bias, 1, "GELU_BIAS: bias");
	CHECK_EQ_INT(p.gemm.transa, ABI_OP_T, "transa as given");
	CHECK_EQ_INT(p.gemm.ldc, c.d.ld, "ldc is D's");
}

int main(void)
{
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		struct plan_call c = call(r->atype, r->ctype, r->compute, r->algo, r->m, r->lda);
		struct plan_device d = {.sm = r->sm, .tensor_cores = r->tensor_cores};
		struct shim_config cfg = {.mode = r->mode, .path = r->path};
		struct plan p = plan_gemm(&c, &d, &cfg);
		CHECK_EQ_INT(p.step[0].decision, r->expect, "plan row at line %d (%s)", r->line,
			     p.step[0].reason);
		CHECK(p.step[0].reason && *p.step[0].reason, "row at line %d has no reason",
		      r->line);
	}
	for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
		const struct chain_row *r = &chains[i];
		struct plan_call c = call(r->atype, r->ctype, r->compute, r->algo, r->m, 64);
		struct plan_device d = {.sm = r->sm, .tensor_cores = r->tensor_cores};
		struct shim_config cfg = {.mode = r->mode, .path = r->path};
		struct plan p = plan_gemm(&c, &d, &cfg);
		int n = 0;
		while (r->expect[n] != END)
			n++;
		CHECK_EQ_INT(p.n, n, "chain row at line %d: steps", r->line);
		for (int s = 0; s < n && s < p.n; s++) {
			CHECK_EQ_INT(p.step[s].decision, r->expect[s], "chain row at line %d, step %d",
				     r->line, s);
			CHECK(p.step[s].reason && *p.step[s].reason,
			      "chain row at line %d, step %d has no reason", r->line, s);
		}
	}
	{
		size_t n;
		const struct lt_row *r = lt_rows(&n);
		for (size_t i = 0; i < n; i++) {
			struct plan_device d = {.sm = r[i].sm, .tensor_cores = r[i].tensor_cores};
			struct shim_config cfg = {.mode = r[i].mode, .path = r[i].path};
			struct lt_plan p = plan_lt(&r[i].call, &d, &cfg);
			CHECK_EQ_INT(p.decision, r[i].expect, "lt row at line %d (%s)", r[i].line,
				     p.reason);
			CHECK(p.reason && *p.reason, "lt row at line %d has no reason", r[i].line);
			if (p.decision == LT_REWRITE)
				CHECK_EQ_INT(p.rewrite.step[0].decision, r[i].path_expect,
					     "lt row at line %d: path (%s)", r[i].line, p.reason);
		}
		CHECK(n > 30, "%zu lt rows", n);
	}
	lt_orders();
	{
		/* Where every call may pass straight through: only on sm_80 and later, and
		 * only when nothing forces a rewrite. */
		struct shim_config a = {.mode = MODE_AUTO}, f = {.mode = MODE_FORCE};
		struct shim_config off = {.mode = MODE_OFF}, fp32 = {.path = PATH_FP32};
		CHECK_EQ_INT(plan_all_native(&a, 80), 1, "auto on sm_80");
		CHECK_EQ_INT(plan_all_native(&a, 90), 1, "auto on sm_90");
		CHECK_EQ_INT(plan_all_native(&fp32, 90), 1, "BF16SHIM_PATH=fp32 on sm_90");
		CHECK_EQ_INT(plan_all_native(&a, 75), 0, "auto on sm_75");
		CHECK_EQ_INT(plan_all_native(&a, -1), 0, "devices unknown");
		CHECK_EQ_INT(plan_all_native(&f, 90), 0, "BF16SHIM_MODE=force");
		CHECK_EQ_INT(plan_all_native(&off, 90), 0, "BF16SHIM_MODE=off (no retries)");
	}
	CHECK_DONE("plan_test");
}
