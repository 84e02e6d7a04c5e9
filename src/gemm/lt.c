/* cuBLASLt calls: the entries behind the exported names.  A matmul the gate keeps is read
 * (lt_describe.c), planned (plan_lt) and described as a GEMM with its plan, then handed to
 * the walk (walk.h), which forwards it, rewrites it on the GEMM paths with the epilogue
 * fused, or forwards it with plain fp32 compute.  The heuristic answers for a rewrite with
 * an algorithm of ours, which cublasLtMatmul recognises later whatever the plan then says. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "device.h"
#include "gate.h"
#include "gemm.h"
#include "log.h"
#include "lt.h"
#include "real.h"
#include "rewrite/rewrite.h"
#include "trace.h"
#include "walk.h"

static abi_status forward_matmul(const struct lt_matmul_args *a, abi_lt_desc desc,
				 const abi_lt_algo *algo)
{
	return real_cublaslt.cublasLtMatmul(a->handle, desc, a->alpha, a->a, a->adesc, a->b,
					    a->bdesc, a->beta, a->c, a->cdesc, a->d, a->ddesc,
					    algo, a->workspace, a->workspace_bytes, a->stream);
}

/* The original call; our algorithm means nothing to cuBLASLt, so it gets none instead. */
static abi_status forward_original(const struct lt_matmul_args *a)
{
	return forward_matmul(a, a->desc, lt_algo_is_ours(a->algo) ? NULL : a->algo);
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

/* A described matmul back into cuBLASLt: as it came, or with plain fp32 compute (an Lt
 * call's algorithm is its own: the plan never changes it). */
static abi_status forward_lt(const struct gemm_call *c, enum decision how)
{
	if (how == DECIDE_PASS_COMPUTE_32F)
		return with_compute_32f(c->lt->args);
	return forward_original(c->lt->args);
}

static abi_status forward_heuristic(const struct lt_heuristic_args *a, abi_lt_desc desc)
{
	return real_cublaslt.cublasLtMatmulAlgoGetHeuristic(a->handle, desc, a->adesc, a->bdesc,
							    a->cdesc, a->ddesc, a->pref,
							    a->requested, a->results, a->returned);
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
	pd = plan_device_of(*dev);
	*p = plan_lt(pc, &pd, shim_config());
	return 1;
}

/* The planned matmul as the walk takes it: the plan's column-major GEMM over the caller's
 * pointers, writing D, with the bias and activation to fuse. */
static struct gemm_call described(const struct lt_matmul_args *a,
				  const struct plan_lt_call *pc, const struct lt_plan *p,
				  const struct gemm_lt *lt)
{
	const struct plan_lt_matrix *ma = p->transposed ? &pc->b : &pc->a;
	const struct plan_lt_matrix *mb = p->transposed ? &pc->a : &pc->b;
	int64_t batch = pc->d.batch;
	struct gemm_call g = {
		.api = "cublasLtMatmul", .forward = forward_lt, .backend = &rewrite_via_cublaslt,
		.handle = a->handle,
		.transa = p->gemm.transa, .transb = p->gemm.transb, .m = p->gemm.m,
		.n = p->gemm.n, .k = p->gemm.k, .alpha = a->alpha, .beta = a->beta,
		.a = p->transposed ? a->b : a->a, .b = p->transposed ? a->a : a->b, .c = a->d,
		.atype = p->gemm.atype, .btype = p->gemm.btype, .ctype = pc->d.type,
		.lda = ma->ld, .ldb = mb->ld, .ldc = pc->d.ld,
		.stride_a = batch > 1 ? ma->stride : 0, .stride_b = batch > 1 ? mb->stride : 0,
		.stride_c = batch > 1 ? pc->d.stride : 0, .batch = p->gemm.batch,
		.compute = pc->compute, .algo = ABI_GEMM_DEFAULT, .first_status = -1,
		.lt = lt, .workspace = a->workspace, .workspace_bytes = a->workspace_bytes};

	if (p->has_bias) {
		g.epilogue.bias = pc->bias;
		g.epilogue.bias_type = pc->bias_type == -1 ? pc->d.type : pc->bias_type;
		/* D's rows are the transposed problem's columns. */
		g.epilogue.bias_along = p->transposed;
		g.epilogue.bias_batch_stride = batch > 1 ? pc->bias_stride : 0;
	}
	g.epilogue.act = p->act;
	return g;
}

/* Before a rewrite, which updates D in place: when D is not C, C is copied into D
 * (stream-ordered) unless beta is a host zero.  0 if the call must go to the library as it
 * came: the copy failed, or an operand our kernels would fault on. */
static int ready_to_rewrite(const struct lt_matmul_args *a, const struct plan_lt_call *pc,
			    const struct lt_plan *p, const struct gemm_call *g)
{
	int64_t batch = pc->d.batch;
	float beta = 1;

	if (pc->pmode == ABI_LT_POINTER_MODE_HOST)
		memcpy(&beta, a->beta, sizeof beta);
	if (a->c != a->d && beta != 0 && p->gemm.m && p->gemm.n &&
	    rewrite_copy_matrix(a->stream, a->c, pc->c.ld, batch > 1 ? pc->c.stride : 0, a->d,
				pc->d.ld, batch > 1 ? pc->d.stride : 0, p->gemm.m, p->gemm.n, batch,
				pc->d.type == ABI_R_32F ? 4 : 2) != WHY_NONE) {
		shim_log_once("lt copy C", LOG_WARN, LOG_BY_SHIM, "cannot copy C into D for a "
			      "rewritten cublasLtMatmul: passing the call through");
		return 0;
	}
	return !gemm_bad_pointers(g); /* else the library's to answer */
}

/* gemm_lt.pmode holds cuBLASLt's pointer mode, which the rewrites read as cuBLAS's: the two
 * they take have the same values. */
_Static_assert((int)ABI_LT_POINTER_MODE_HOST == (int)ABI_POINTER_MODE_HOST &&
		       (int)ABI_LT_POINTER_MODE_DEVICE == (int)ABI_POINTER_MODE_DEVICE,
	       "cuBLASLt and cuBLAS pointer modes differ");

static const struct plan not_described = {.n = 1, .step = {{DECIDE_PASS, "not described"}}};

/* Describes a matmul the gate kept and walks it. */
static abi_status describe_matmul(const struct lt_matmul_args *a)
{
	struct gemm_lt lt = {a->stream, -1, a};
	const struct device_facts *dev = NULL;
	struct plan_lt_call pc;
	struct lt_plan p;
	struct plan steps;
	struct gemm_call g;

	if (!real_cublaslt_find())
		return ABI_STATUS_NOT_INITIALIZED;
	/* Made while the shim works, with our algorithm: forwarded without, and without
	 * describing it (a rewrite's preparation would write D). */
	if (gate_depth)
		return forward_original(a);
	/* Missing scalars or matrices are the library's to refuse.  A call with nothing to
	 * plan is only the library's, but for the trace's line. */
	if (!a->alpha || !a->beta || !a->a || !a->b || !a->c || !a->d ||
	    !plan_of(a->handle, a->desc, a->adesc, a->bdesc, a->cdesc, a->ddesc,
		     lt_algo_is_ours(a->algo), a->c == a->d, &pc, &dev, &p))
		return !trace_enabled() ? forward_original(a) :
		       gemm_walk(&(struct gemm_call){.api = "cublasLtMatmul",
						     .forward = forward_lt,
						     .backend = &rewrite_via_cublaslt,
						     .handle = a->handle, .first_status = -1,
						     .plan = &not_described, .lt = &lt});
	log_plan(&pc, dev, &p);
	lt.pmode = pc.pmode;
	steps = plan_lt_steps(&p);
	g = described(a, &pc, &p, &lt);
	g.plan = &steps;
	g.dev = dev;
	if (p.decision == LT_REWRITE && !ready_to_rewrite(a, &pc, &p, &g))
		steps = (struct plan){.n = 1, .step = {{DECIDE_PASS, p.reason}}};
	return gemm_walk(&g);
}

/* The arguments as they came, so that the entry reaches here with a jump and its
 * pass-through keeps no more than it needs. */
__attribute__((noinline, cold)) static abi_status
lt_matmul_kept(abi_lt_handle handle, abi_lt_desc desc, const void *alpha, const void *A,
	       abi_lt_layout adesc, const void *B, abi_lt_layout bdesc, const void *beta,
	       const void *C, abi_lt_layout cdesc, void *D, abi_lt_layout ddesc,
	       const abi_lt_algo *algo, void *workspace, size_t workspace_bytes,
	       abi_stream stream)
{
	return describe_matmul(&(struct lt_matmul_args){handle, desc, alpha, A, adesc, B, bdesc,
						    beta, C, cdesc, D, ddesc, algo, workspace,
						    workspace_bytes, stream});
}

abi_status lt_matmul_entry(abi_lt_handle handle, abi_lt_desc desc, const void *alpha,
			   const void *A, abi_lt_layout adesc, const void *B, abi_lt_layout bdesc,
			   const void *beta, const void *C, abi_lt_layout cdesc, void *D,
			   abi_lt_layout ddesc, const abi_lt_algo *algo, void *workspace,
			   size_t workspace_bytes, abi_stream stream)
{
	if (gate_lt_passes(algo))
		return real_cublaslt.cublasLtMatmul(handle, desc, alpha, A, adesc, B, bdesc, beta,
						    C, cdesc, D, ddesc, algo, workspace,
						    workspace_bytes, stream);
	return lt_matmul_kept(handle, desc, alpha, A, adesc, B, bdesc, beta, C, cdesc, D, ddesc,
			      algo, workspace, workspace_bytes, stream);
}

/* The routes of gate.h.  Every thread starts on this entry; cuBLAS's pass-through switches
 * to gate_lt_nested while it runs. */
__thread lt_matmul_fn gate_lt_route __attribute__((tls_model("initial-exec"))) =
	lt_matmul_entry;
lt_matmul_fn gate_lt_nested = lt_matmul_entry;

/* One jump through this thread's route (gate.h): to lt_matmul_entry, or, nested inside a
 * cuBLAS GEMM, to the library. */
abi_status shim_cublasLtMatmul(abi_lt_handle handle, abi_lt_desc desc, const void *alpha,
			       const void *A, abi_lt_layout adesc, const void *B,
			       abi_lt_layout bdesc, const void *beta, const void *C,
			       abi_lt_layout cdesc, void *D, abi_lt_layout ddesc,
			       const abi_lt_algo *algo, void *workspace, size_t workspace_bytes,
			       abi_stream stream)
{
	return gate_lt_route(handle, desc, alpha, A, adesc, B, bdesc, beta, C, cdesc, D, ddesc,
			     algo, workspace, workspace_bytes, stream);
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

abi_status shim_cublasLtMatmulAlgoGetHeuristic(abi_lt_handle handle, abi_lt_desc desc,
					       abi_lt_layout adesc, abi_lt_layout bdesc,
					       abi_lt_layout cdesc, abi_lt_layout ddesc,
					       abi_lt_pref pref, int requested,
					       abi_lt_heuristic_result *results, int *returned)
{
	const struct lt_heuristic_args args = {handle, desc, adesc, bdesc, cdesc, ddesc, pref,
					       requested, results, returned};
	abi_status st;

	if (gate_lt_passes(NULL)) /* nested calls among them: none is dispatched */
		return real_cublaslt.cublasLtMatmulAlgoGetHeuristic(handle, desc, adesc, bdesc,
								    cdesc, ddesc, pref, requested,
								    results, returned);
	if (!real_cublaslt_find())
		return ABI_STATUS_NOT_INITIALIZED;
	gate_depth++;
	st = decide_heuristic(&args);
	gate_depth--;
	return st;
}
