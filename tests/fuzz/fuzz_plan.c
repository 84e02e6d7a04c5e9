/* fuzz_plan.c: the planner (src/gemm/plan.c) on arbitrary calls, devices and settings.  What must
 * hold: no crash; a plan of 1 to PLAN_STEPS steps, each tried at most once; a first step
 * other than PASS only for bf16 operands with arguments cuBLAS would accept; a rewrite's
 * fallbacks run down to the original call and end there; the retries after a forward only
 * for arguments cuBLAS would accept and never with BF16SHIM_MODE=off; plan_lt rewrites only
 * what plan_gemm would. */
#include <string.h>

#include "abi.h"
#include "fuzz.h"
#include "plan.h"

/* Values at the edges of each check, mixed with raw bytes. */
static const int types[] = {ABI_R_16BF, ABI_R_16F, ABI_R_32F, ABI_R_64F, ABI_R_8I, ABI_R_32I,
			    ABI_R_8F_E4M3, ABI_R_8F_E5M2, -1, 15};
static const int computes[] = {ABI_R_32F, ABI_R_16F, ABI_COMPUTE_16F, ABI_COMPUTE_32F,
			       ABI_COMPUTE_32F_PEDANTIC, ABI_COMPUTE_32F_FAST_16F,
			       ABI_COMPUTE_32F_FAST_16BF, ABI_COMPUTE_32F_FAST_TF32,
			       ABI_COMPUTE_64F, ABI_COMPUTE_32I};
static const int algos[] = {ABI_GEMM_DEFAULT, ABI_GEMM_ALGO0, ABI_GEMM_ALGO23, 24, -2,
			    ABI_GEMM_DEFAULT_TENSOR_OP, ABI_GEMM_ALGO0_TENSOR_OP,
			    ABI_GEMM_ALGO15_TENSOR_OP, 116, 98};
static const int64_t dims[] = {0, 1, -1, 2, 16, 17, 64, INT32_MAX, (int64_t)INT32_MAX + 1,
			       INT64_MAX, INT64_MIN, -4096};

#define PICK(b, table) pick(b, table, sizeof table / sizeof table[0])

/* A table entry for bytes below 0xe0, else a raw 32-bit value. */
static int pick(struct bytes *b, const int *table, size_t n)
{
	uint8_t s = take8(b);
	return s < 0xe0 ? table[s % n] : (int)(uint32_t)take64(b);
}

static int64_t dim(struct bytes *b)
{
	uint8_t s = take8(b);
	if (s < 0x80)
		return dims[s % (sizeof dims / sizeof dims[0])];
	if (s < 0xe0)
		return s - 0x80;   /* small sizes around PLAN_DECODE_MAX */
	return (int64_t)take64(b);
}

static int trans(struct bytes *b)
{
	uint8_t s = take8(b);
	return s < 0xf0 ? s % 3 : (int)(int8_t)take8(b);
}

static void read_call(struct bytes *b, struct plan_call *c)
{
	c->atype = PICK(b, types);
	c->btype = take8(b) & 1 ? c->atype : PICK(b, types);
	c->ctype = PICK(b, types);
	c->compute = PICK(b, computes);
	c->algo = PICK(b, algos);
	c->transa = trans(b), c->transb = trans(b);
	c->m = dim(b), c->n = dim(b), c->k = dim(b), c->batch = dim(b);
	/* Leading dimensions: mostly near the minimum, so valid calls are common. */
	int64_t *ld[3] = {&c->lda, &c->ldb, &c->ldc};
	int64_t rows[3] = {c->transa == ABI_OP_N ? c->m : c->k, c->transb == ABI_OP_N ? c->k : c->n,
			   c->m};
	for (int i = 0; i < 3; i++) {
		uint8_t s = take8(b);
		int64_t r = rows[i] > 1 ? rows[i] : 1;
		*ld[i] = s < 0xc0 && r < INT64_MAX - 8 ? r + (s % 5) - 1 : dim(b);
	}
}

static void read_device(struct bytes *b, struct plan_device *d)
{
	static const int sms[] = {0, 30, 50, 60, 61, 70, 72, 75, 80, 86, 89, 90, 100, 120};
	d->sm = PICK(b, sms);
	d->tensor_cores = take8(b) % 3 == 0 ? 0 : take8(b);
}

static void read_config(struct bytes *b, struct shim_config *cfg)
{
	uint8_t s = take8(b);
	*cfg = (struct shim_config){.mode = (enum shim_mode)(s % 3),
				    .path = (enum shim_path)(s / 3 % 4),
				    .log_level = LOG_WARN,
				    .workspace_bytes = (size_t)1 << 20};
	cfg->emulate_sm = take8(b);
}

static int64_t max1(int64_t v)
{
	return v > 1 ? v : 1;
}

/* The arguments cuBLAS accepts, written out from its documentation (not from plan.c). */
static int valid(const struct plan_call *c)
{
	if (c->transa < ABI_OP_N || c->transa > ABI_OP_C || c->transb < ABI_OP_N ||
	    c->transb > ABI_OP_C)
		return 0;
	if (!((c->algo >= ABI_GEMM_DEFAULT && c->algo <= ABI_GEMM_ALGO23) ||
	      (c->algo >= ABI_GEMM_DEFAULT_TENSOR_OP && c->algo <= ABI_GEMM_ALGO15_TENSOR_OP)))
		return 0;
	if (c->m < 0 || c->n < 0 || c->k < 0 || c->batch < 0)
		return 0;
	return c->lda >= max1(c->transa == ABI_OP_N ? c->m : c->k) &&
	       c->ldb >= max1(c->transb == ABI_OP_N ? c->k : c->n) && c->ldc >= max1(c->m);
}

static int bf16_operands(const struct plan_call *c)
{
	return c->atype == ABI_R_16BF && c->btype == ABI_R_16BF;
}

static int is_decision(int d)
{
	return d >= DECIDE_PASS && d <= DECIDE_FUSED;
}

static void check_gemm(const struct plan_call *c, const struct plan_device *d,
		       const struct shim_config *cfg)
{
	struct plan p = plan_gemm(c, d, cfg), again = plan_gemm(c, d, cfg);
	enum decision first;
	unsigned tried = 0;

	CHECK(p.n >= 1 && p.n <= PLAN_STEPS, "%d steps", p.n);
	CHECK(again.n == p.n, "first %d steps, second %d", p.n, again.n);
	for (int i = 0; i < p.n && i < PLAN_STEPS; i++) {
		enum decision x = p.step[i].decision;
		CHECK(is_decision(x), "step %d: decision %d", i, (int)x);
		if (!is_decision(x))
			return;
		CHECK(p.step[i].reason && *p.step[i].reason, "step %d: reason %p", i,
		      (const void *)p.step[i].reason);
		CHECK(again.step[i].decision == x, "step %d: first %d, second %d", i, (int)x,
		      (int)again.step[i].decision);
		CHECK(!(tried & 1u << x), "%s twice", plan_decision_name(x));
		tried |= 1u << x;
		if (x == DECIDE_FP16 || x == DECIDE_DECODE || x == DECIDE_FUSED)
			CHECK(bf16_operands(c), "%s for atype %d btype %d", plan_decision_name(x),
			      c->atype, c->btype);
		if (x != DECIDE_PASS) {
			CHECK(valid(c), "%s for invalid arguments (m %lld n %lld k %lld batch %lld)",
			      plan_decision_name(x), (long long)c->m, (long long)c->n,
			      (long long)c->k, (long long)c->batch);
			CHECK(cfg->mode != MODE_OFF, "%s with BF16SHIM_MODE=off",
			      plan_decision_name(x));
		}
		if (x >= DECIDE_FP32)
			CHECK(plan_fp32_supports(c), "%s but fp32 cannot compute it (ctype %d "
			      "compute %d)", plan_decision_name(x), c->ctype, c->compute);
		if (x == DECIDE_PASS_DEFAULT_ALGO)
			CHECK(i == 1 && plan_is_tensor_op_algo(c->algo), "pass-default-algo at "
			      "step %d for algo %d", i, c->algo);
	}
	first = p.step[0].decision;
	/* Where the entries pass everything straight through, the plan must agree. */
	if (plan_all_native(cfg, d->sm))
		CHECK(first == DECIDE_PASS, "%s on sm_%d with every call passing through",
		      plan_decision_name(first), d->sm);
	if (first != DECIDE_PASS) {
		/* A rewrite: bf16 only, then the paths below it, down to the call as it came. */
		CHECK(first != DECIDE_PASS_DEFAULT_ALGO, "plan_gemm began with %s",
		      "pass-default-algo");
		CHECK(c->atype == ABI_R_16BF || c->btype == ABI_R_16BF, "%s for atype %d btype %d",
		      plan_decision_name(first), c->atype, c->btype);
		CHECK(p.step[p.n - 1].decision == DECIDE_PASS, "a rewrite's plan ends with %s",
		      plan_decision_name(p.step[p.n - 1].decision));
		for (int i = 1; i < p.n; i++)
			CHECK(p.step[i].decision < p.step[i - 1].decision, "%s after %s",
			      plan_decision_name(p.step[i].decision),
			      plan_decision_name(p.step[i - 1].decision));
	} else {
		/* A forward: what to try if the library refuses it, never the call again. */
		for (int i = 1; i < p.n; i++)
			CHECK(p.step[i].decision > p.step[i - 1].decision, "%s after %s",
			      plan_decision_name(p.step[i].decision),
			      plan_decision_name(p.step[i - 1].decision));
	}
}

static void read_matrix(struct bytes *b, struct plan_lt_matrix *m, const struct plan_call *g)
{
	uint8_t s = take8(b);
	m->type = s & 1 ? g->atype : PICK(b, types);
	m->order = s & 2 ? (s >> 2) % 2 : (int)(int8_t)take8(b);
	m->rows = (uint64_t)dim(b), m->cols = (uint64_t)dim(b);
	m->ld = take8(b) < 0xc0 ? (int64_t)(m->order ? m->cols : m->rows) : dim(b);
	m->stride = dim(b);
	m->batch = take8(b) < 0xc0 ? 1 : (int)(uint32_t)take64(b);
}

static void check_lt(struct bytes *b, const struct plan_call *g, const struct plan_device *d,
		     const struct shim_config *cfg)
{
	static const unsigned epilogues[] = {ABI_LT_EPILOGUE_DEFAULT, ABI_LT_EPILOGUE_RELU,
					     ABI_LT_EPILOGUE_BIAS, ABI_LT_EPILOGUE_RELU_BIAS,
					     ABI_LT_EPILOGUE_GELU, ABI_LT_EPILOGUE_GELU_BIAS,
					     0, 8, 64, 128};
	struct plan_lt_call c = {0};
	uint8_t s = take8(b);

	c.compute = PICK(b, computes);
	c.scale = s & 1 ? ABI_R_32F : PICK(b, types);
	c.pmode = s & 2 ? (s >> 2) % 2 : (int)(int8_t)take8(b);
	c.transa = trans(b), c.transb = trans(b);
	c.transc = s & 8 ? ABI_OP_N : trans(b);
	c.epilogue = s & 16 ? epilogues[take8(b) % 10] : (unsigned)take64(b);
	c.bias = s & 32 ? 0 : take64(b);
	c.bias_stride = dim(b);
	c.bias_type = s & 64 ? -1 : PICK(b, types);
	read_matrix(b, &c.a, g);
	read_matrix(b, &c.b, g);
	read_matrix(b, &c.c, g);
	if (take8(b) & 1)
		c.d = c.c;   /* the common case: D laid out as C */
	else
		read_matrix(b, &c.d, g);
	s = take8(b);
	c.c_is_d = s & 1;
	c.unhandled = s & 2 ? "an attribute no rewrite honours" : NULL;
	c.ours = (s & 12) == 12;

	struct lt_plan p = plan_lt(&c, d, cfg);
	int bf16 = c.a.type == ABI_R_16BF || c.b.type == ABI_R_16BF;

	CHECK(p.decision >= LT_PASS && p.decision <= LT_COMPUTE_32F, "lt decision %d",
	      (int)p.decision);
	CHECK(p.reason != NULL, "lt reason %p", (const void *)p.reason);
	CHECK(plan_lt_decision_name(p.decision) != NULL, "lt decision %d", (int)p.decision);
	if (p.decision == LT_COMPUTE_32F)
		CHECK(!bf16, "compute-32f for bf16 operands (a %d b %d)", c.a.type, c.b.type);
	/* Every sm_80 part has tensor cores (device.c): the fuzzed devices without are not. */
	if (plan_all_native(cfg, d->sm) && d->tensor_cores && !c.ours)
		CHECK(p.decision == LT_PASS, "lt %s on sm_%d with every call passing through",
		      plan_lt_decision_name(p.decision), d->sm);
	if (p.decision == LT_REWRITE) {
		CHECK(bf16, "rewrite of a %d b %d", c.a.type, c.b.type);
		CHECK(cfg->mode != MODE_OFF || c.ours, "rewrite with BF16SHIM_MODE=off%s", "");
		CHECK(!c.unhandled, "rewrite despite %s", c.unhandled);
		CHECK(p.rewrite.step[0].decision != DECIDE_PASS &&
			      is_decision(p.rewrite.step[0].decision),
		      "rewrite with gemm decision %d", (int)p.rewrite.step[0].decision);
		CHECK(bf16_operands(&p.gemm) && valid(&p.gemm),
		      "rewrite of an invalid gemm (m %lld n %lld k %lld lda %lld ldb %lld ldc %lld)",
		      (long long)p.gemm.m, (long long)p.gemm.n, (long long)p.gemm.k,
		      (long long)p.gemm.lda, (long long)p.gemm.ldb, (long long)p.gemm.ldc);
		CHECK(p.act >= GEMM_ACT_NONE && p.act <= GEMM_ACT_GELU, "act %d", p.act);
		CHECK(!p.has_bias || c.bias, "bias fused from a NULL pointer%s", "");
		CHECK(c.d.type == ABI_R_16BF || c.d.type == ABI_R_32F, "D type %d", c.d.type);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bytes b = {data, size, 0};
	struct plan_call c;
	struct plan_device d;
	struct shim_config cfg;

	read_config(&b, &cfg);
	read_device(&b, &d);
	read_call(&b, &c);
	check_gemm(&c, &d, &cfg);
	check_lt(&b, &c, &d, &cfg);
	return 0;
}
