/* The cuBLASLt dispatcher: export -> describe (lt_describe.c) -> plan_lt -> forward, rewrite
 * on the GEMM paths with the epilogue fused, or the real cuBLASLt with plain fp32 compute.
 * The heuristic answers for a rewrite with an algorithm of ours, which cublasLtMatmul
 * recognises later whatever the plan then says. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "device.h"
#include "gemm.h"
#include "log.h"
#include "lt.h"
#include "trace.h"
#include "real.h"
#include "rewrite/rewrite.h"

static abi_status forward_matmul(const struct lt_matmul_args *a, abi_lt_desc desc,
				 const abi_lt_algo *algo)
{
	return real_cublaslt.cublasLtMatmul(a->handle, desc, a->alpha, a->a, a->adesc, a->b, a->bdesc,
				      a->beta, a->c, a->cdesc, a->d, a->ddesc, algo, a->workspace,
				      a->workspace_bytes, a->stream);
}

/* The original call; our algorithm means nothing to cuBLASLt, so it gets none instead. */
static abi_status forward_original(const struct lt_matmul_args *a)
{
	return forward_matmul(a, a->desc, lt_algo_is_ours(a->algo) ? NULL : a->algo);
}

static abi_status forward_lt(const struct gemm_call *c, int algo)
{
	(void)algo; /* an Lt call's algorithm is its own (the plan never changes it) */
	return forward_original(c->lt->args);
}

static abi_status forward_heuristic(const struct lt_heuristic_args *a, abi_lt_desc desc)
{
	return real_cublaslt.cublasLtMatmulAlgoGetHeuristic(a->handle, desc, a->adesc, a->bdesc,
						      a->cdesc, a->ddesc, a->pref, a->requested,
						      a->results, a->returned);
}

static abi_status lt_matmul LT_MATMUL_PARAMS;
/* lt.h: every thread starts on lt_matmul; cuBLAS's entries switch to lt_matmul_nested. */
__thread lt_matmul_fn lt_matmul_route __attribute__((tls_model("initial-exec"))) = lt_matmul;
lt_matmul_fn lt_matmul_nested = lt_matmul;

/* Once the real cuBLASLt is found, the entries may pass calls straight to it. */
static void lt_ready(void)
{
	if (!real_cublaslt_find())
		return;
	if (real_cublaslt.cublasLtMatmul)
		__atomic_store_n(&lt_matmul_nested, real_cublaslt.cublasLtMatmul, __ATOMIC_RELAXED);
	__atomic_fetch_or(&shim_fast_lt, (shim_passes_all() ? SHIM_FAST_PASS_ALL : 0) |
			  SHIM_FAST_READY, __ATOMIC_RELEASE);
}

/* Straight to the real function for calls made while the shim works (shim_depth: its own,
 * and cuBLAS's inside them) and when shim_passes_all(), unless the algorithm is one our
 * heuristic returned.  The first call finds cuBLASLt. */
static inline int lt_passes(const abi_lt_algo *algo)
{
	unsigned w = __atomic_load_n(&shim_fast_lt, __ATOMIC_ACQUIRE);

	if (__builtin_expect(!(w & SHIM_FAST_READY), 0)) {
		lt_ready();
		w = __atomic_load_n(&shim_fast_lt, __ATOMIC_ACQUIRE);
		if (!(w & SHIM_FAST_READY))
			return 0;
	}
	return (shim_depth || (w & SHIM_FAST_PASS_ALL)) && !lt_algo_is_ours(algo);
}

/* Once per distinct call and decision: rewrites at info; a bf16 call passed through below
 * sm_80 (FP8 below sm_89), where the library may well refuse it, as a warning with the
 * reason. */
static void log_plan(const struct plan_lt_call *pc, const struct device_facts *dev,
		     const struct lt_plan *p)
{
	int fp8 = pc->a.type == ABI_R_8F_E4M3 || pc->a.type == ABI_R_8F_E5M2;
	int lacking = (pc->a.type == ABI_R_16BF && dev->sm < 80) || (fp8 && dev->sm < 89);
	enum log_level level = p->decision != LT_PASS ? LOG_INFO : lacking ? LOG_WARN : LOG_DEBUG;
	const long v[] = {p->decision, pc->a.type, pc->b.type, pc->c.type, pc->d.type,
			  pc->compute, pc->epilogue, dev->sm};
	char what[160];

	if (!shim_log_first(log_key("lt", p->reason, v, sizeof v / sizeof v[0]), level))
		return;
	snprintf(what, sizeof what, "cublasLtMatmul A=%d B=%d C=%d D=%d compute=%d epilogue=%u "
		 "on sm_%d", pc->a.type, pc->b.type, pc->c.type, pc->d.type, pc->compute,
		 pc->epilogue, dev->sm);
	if (p->decision == LT_REWRITE)
		shim_log(level, LOG_BY_NOBODY, "%s: %s path, epilogue fused (%s)", what,
			 plan_decision_name(p->rewrite.step[0].decision), p->reason);
	else if (p->decision == LT_COMPUTE_32F)
		shim_log(level, LOG_BY_NOBODY, "%s: CUBLAS_COMPUTE_32F instead (%s)", what,
			 p->reason);
	else
		shim_log(level, LOG_BY_NOBODY, "%s: passed through unchanged (%s)", what,
			 p->reason);
}

/* Describes and plans; 0 if there is nothing to plan or it cannot be read. */
static int plan_of(abi_lt_handle handle, abi_lt_desc desc, abi_lt_layout a, abi_lt_layout b,
		   abi_lt_layout c, abi_lt_layout d, int ours, int c_is_d, struct plan_lt_call *pc,
		   const struct device_facts **dev, struct lt_plan *p)
{
	struct plan_device pd;

	if (!ours && !lt_worth_planning(desc, a, b))
		return 0;
	if (!lt_describe(desc, a, b, c, d, pc) || !(*dev = device_for_handle(handle)))
		return 0;
	pc->ours = ours;
	pc->c_is_d = c_is_d;
	pd = (struct plan_device){(*dev)->sm, (*dev)->tensor_cores};
	*p = plan_lt(pc, &pd, shim_config());
	return 1;
}

static abi_status with_compute_32f(const struct lt_matmul_args *a)
{
	abi_lt_desc nd;
	abi_status st;

	if (!lt_desc_with_compute(a->desc, ABI_COMPUTE_32F, &nd)) {
		shim_log_once("lt compute copy", LOG_WARN, LOG_BY_SHIM, "cannot copy a cuBLASLt "
			      "descriptor to change its compute type: passing the call through");
		return forward_original(a);
	}
	st = forward_matmul(a, nd, lt_algo_is_ours(a->algo) ? NULL : a->algo);
	real_cublaslt.cublasLtMatmulDescDestroy(nd);
	return st;
}

/* The rewrite: the plan's column-major GEMM over the caller's pointers, writing D.  When D
 * is not C, C is copied into D first (stream-ordered) unless beta is a host zero, and the
 * GEMM then updates D in place. */
static abi_status rewrite(const struct lt_matmul_args *a, const struct plan_lt_call *pc,
			  const struct device_facts *dev, const struct lt_plan *p)
{
	const struct plan_lt_matrix *ma = p->transposed ? &pc->b : &pc->a;
	const struct plan_lt_matrix *mb = p->transposed ? &pc->a : &pc->b;
	const void *pa = p->transposed ? a->b : a->a, *pb = p->transposed ? a->a : a->b;
	int64_t batch = pc->d.batch;
	struct gemm_lt lt = {a->stream, pc->pmode == ABI_LT_POINTER_MODE_DEVICE
						? ABI_POINTER_MODE_DEVICE
						: ABI_POINTER_MODE_HOST, a};
	struct gemm_call call, *g = &call;
	float beta = 1;

	*g = (struct gemm_call){
		.api = "cublasLtMatmul", .forward = forward_lt, .backend = &rewrite_via_cublaslt,
		.handle = a->handle,
		.transa = p->gemm.transa, .transb = p->gemm.transb, .m = p->gemm.m,
		.n = p->gemm.n, .k = p->gemm.k, .alpha = a->alpha, .beta = a->beta, .a = pa,
		.b = pb, .c = a->d, .atype = p->gemm.atype, .btype = p->gemm.btype,
		.ctype = pc->d.type, .lda = ma->ld, .ldb = mb->ld, .ldc = pc->d.ld,
		.stride_a = batch > 1 ? ma->stride : 0, .stride_b = batch > 1 ? mb->stride : 0,
		.stride_c = batch > 1 ? pc->d.stride : 0, .batch = batch,
		.compute = pc->compute, .algo = ABI_GEMM_DEFAULT, .first_status = -1,
		.lt = &lt, .workspace = a->workspace, .workspace_bytes = a->workspace_bytes};
	if (p->has_bias) {
		g->epilogue.bias = pc->bias;
		g->epilogue.bias_type = pc->bias_type == -1 ? pc->d.type : pc->bias_type;
		/* D's rows are the transposed problem's columns. */
		g->epilogue.bias_along = p->transposed;
		g->epilogue.bias_batch_stride = batch > 1 ? pc->bias_stride : 0;
	}
	g->epilogue.act = p->act;
	if (lt.pmode == ABI_POINTER_MODE_HOST)
		memcpy(&beta, a->beta, sizeof beta);
	if (a->c != a->d && beta != 0 && p->gemm.m && p->gemm.n &&
	    !rewrite_copy_matrix(a->stream, a->c, pc->c.ld, batch > 1 ? pc->c.stride : 0, a->d,
				 pc->d.ld, batch > 1 ? pc->d.stride : 0, p->gemm.m, p->gemm.n,
				 batch, pc->d.type == ABI_R_32F ? 4 : 2)) {
		shim_log_once("lt copy C", LOG_WARN, LOG_BY_SHIM, "cannot copy C into D for a "
			      "rewritten cublasLtMatmul: passing the call through");
		return forward_original(a);
	}
	if (gemm_bad_pointers(g)) /* the library's to answer: our kernels would fault */
		return forward_original(a);
	return shim_gemm_run(g, dev, &p->rewrite);
}

/* What a matmul dispatch decided, for the trace. */
struct lt_outcome {
	int planned;
	const struct device_facts *dev;
	struct plan_lt_call pc;
	struct lt_plan p;
};

static abi_status decide_matmul(const struct lt_matmul_args *a, struct lt_outcome *o)
{
	const struct device_facts *dev;
	struct plan_lt_call pc;
	struct lt_plan p;

	/* Missing scalars or matrices are the library's to refuse. */
	if (!a->alpha || !a->beta || !a->a || !a->b || !a->c || !a->d ||
	    !plan_of(a->handle, a->desc, a->adesc, a->bdesc, a->cdesc, a->ddesc,
		     lt_algo_is_ours(a->algo), a->c == a->d, &pc, &dev, &p))
		return forward_original(a);
	*o = (struct lt_outcome){1, dev, pc, p};
	log_plan(&pc, dev, &p);
	switch (p.decision) {
	case LT_REWRITE:
		return rewrite(a, &pc, dev, &p);
	case LT_COMPUTE_32F:
		return with_compute_32f(a);
	default:
		return forward_original(a);
	}
}

static void trace_matmul(const struct lt_outcome *o, abi_status st)
{
	const struct plan_call *g = &o->p.gemm;
	struct trace_record r = {
		.api = "cublasLtMatmul", .algo = -1, .pointer_mode = -1, .device = -1, .sm = -1,
		.real_sm = -1, .decision = "pass", .reason = "not described", .status = st,
		.first_status = -1,
	};
	if (o->planned) {
		r.m = g->m, r.n = g->n, r.k = g->k, r.batch = g->batch;
		r.transa = g->transa, r.transb = g->transb;
		r.atype = g->atype, r.btype = g->btype, r.ctype = g->ctype;
		r.compute = o->pc.compute;
		r.pointer_mode = o->pc.pmode;
		r.decision = plan_lt_decision_name(o->p.decision);
		r.reason = o->p.reason;
		if (o->dev) {
			r.device = o->dev->ordinal;
			r.sm = o->dev->sm;
			r.real_sm = o->dev->real_sm;
		}
	}
	trace_write(&r);
}

/* With the shim at work: its own calls into the libraries pass straight through. */
static abi_status dispatch_matmul(const struct lt_matmul_args *a)
{
	struct lt_outcome o = {0};
	abi_status st;

	if (!real_cublaslt_find())
		return ABI_STATUS_NOT_INITIALIZED;
	if (shim_depth) /* made while the shim works, with our algorithm: forwarded without */
		return forward_original(a);
	shim_depth++;
	st = decide_matmul(a, &o);
	if (trace_enabled())
		trace_matmul(&o, st);
	shim_depth--;
	return st;
}

/* A cublasLtMatmul that is not nested (lt.h): straight to the library, or dispatched. */
static abi_status lt_matmul LT_MATMUL_PARAMS
{
	if (lt_passes(algo))
		return real_cublaslt.cublasLtMatmul LT_MATMUL_ARGS;
	return dispatch_matmul(&(struct lt_matmul_args){handle, desc, alpha, A, adesc, B, bdesc,
							beta, C, cdesc, D, ddesc, algo, workspace,
							workspace_bytes, stream});
}

/* One algorithm: ours.  It needs no workspace (scratch comes from the shim's own cache, or
 * from the caller's workspace when that is large enough), so it fits any preference. */
static abi_status answer(const struct lt_heuristic_args *a)
{
	abi_lt_heuristic_result *r = &a->results[0];

	memset(r, 0, sizeof *r);
	r->algo.data[0] = LT_ALGO_MAGIC;
	r->algo.data[1] = 1; /* version of what the remaining words mean: nothing yet */
	r->workspaceSize = 0;
	r->state = ABI_STATUS_SUCCESS;
	r->wavesCount = 1.0f;
	*a->returned = 1;
	return ABI_STATUS_SUCCESS;
}

static abi_status decide_heuristic(const struct lt_heuristic_args *a)
{
	const struct device_facts *dev;
	struct plan_lt_call pc;
	struct lt_plan p;
	abi_lt_desc nd;
	abi_status st;

	if (!a->pref || !a->results || !a->returned || a->requested < 1 ||
	    !plan_of(a->handle, a->desc, a->adesc, a->bdesc, a->cdesc, a->ddesc, 0, 0, &pc, &dev,
		     &p))
		return forward_heuristic(a, a->desc);
	/* No pointers here: C and D are planned as different matrices, which allows any two
	 * layouts; an in-place call with two layouts is the library's to refuse later. */
	log_plan(&pc, dev, &p);
	switch (p.decision) {
	case LT_REWRITE:
		return answer(a);
	case LT_COMPUTE_32F:
		if (!lt_desc_with_compute(a->desc, ABI_COMPUTE_32F, &nd))
			return forward_heuristic(a, a->desc);
		st = forward_heuristic(a, nd);
		real_cublaslt.cublasLtMatmulDescDestroy(nd);
		return st;
	default:
		return forward_heuristic(a, a->desc);
	}
}

abi_status shim_cublasLtMatmulAlgoGetHeuristic LT_HEURISTIC_PARAMS
{
	const struct lt_heuristic_args args = {handle, desc, adesc, bdesc, cdesc, ddesc, pref,
					       requested, results, returned};
	abi_status st;

	if (lt_passes(NULL)) /* nested calls among them: none is dispatched */
		return real_cublaslt.cublasLtMatmulAlgoGetHeuristic LT_HEURISTIC_ARGS;
	if (!real_cublaslt_find())
		return ABI_STATUS_NOT_INITIALIZED;
	shim_depth++;
	st = decide_heuristic(&args);
	shim_depth--;
	return st;
}

/* One jump through this thread's route (lt.h): to lt_matmul, or, nested, to the library. */
abi_status shim_cublasLtMatmul LT_MATMUL_PARAMS
{
	return lt_matmul_route LT_MATMUL_ARGS;
}

