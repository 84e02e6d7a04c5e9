/* The GEMM dispatcher: export -> plan -> (forward | retry | rewrite) -> real call.
 * The common case (not bf16, nothing remembered) costs a few loads and branches. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "device.h"
#include "gemm.h"
#include "log.h"
#include "plan.h"
#include "real.h"
#include "rewrite/rewrite.h"
#include "trace.h"
#include "verdict.h"

__thread int shim_depth __attribute__((tls_model("initial-exec")));
unsigned shim_fast_gemm, shim_fast_lt;

static atomic_ulong n_rewritten, n_retried, n_fallback;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A forked child reports its own work only: one that never calls cuBLAS prints nothing. */
static void forget_counts(void)
{
	atomic_store(&n_rewritten, 0);
	atomic_store(&n_retried, 0);
	atomic_store(&n_fallback, 0);
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, forget_counts);
}

/* Null or misaligned operands in a GEMM with work to do (plan.h, bad_pointers). */
int gemm_bad_pointers(const struct gemm_call *c)
{
	size_t ae = rewrite_elem_size(c->atype), ce = rewrite_elem_size(c->ctype);
	int work = c->m > 0 && c->n > 0 && c->batch > 0, reads = work && c->k > 0;

	if (work && !c->c)
		return 1;
	if (reads && (!c->a || !c->b))
		return 1;
	if (c->ptr_array) /* arrays of pointers: 8-byte aligned; entries are checked by cuBLAS */
		return ((uintptr_t)c->a | (uintptr_t)c->b | (uintptr_t)c->c) % 8 != 0;
	return ((uintptr_t)c->a % ae) || ((uintptr_t)c->b % ae) || ((uintptr_t)c->c % ce);
}

static struct plan_call plan_call_of(const struct gemm_call *c)
{
	return (struct plan_call){
		.bad_pointers = gemm_bad_pointers(c),
		.atype = c->atype, .btype = c->btype, .ctype = c->ctype,
		.compute = c->compute, .algo = c->algo,
		.transa = c->transa, .transb = c->transb,
		.m = c->m, .n = c->n, .k = c->k, .batch = c->batch,
		.lda = c->lda, .ldb = c->ldb, .ldc = c->ldc,
	};
}

/* "cublasGemmEx A=14 B=14 C=0 compute=68 algo=99 on sm_61": the log-once key and text. */
static void describe(const struct gemm_call *c, const struct device_facts *dev, char *buf,
		     size_t cap)
{
	snprintf(buf, cap, "%s A=%d B=%d C=%d compute=%d algo=%d on sm_%d",
		 c->api,
		 c->atype, c->btype, c->ctype, c->compute, c->algo, dev ? dev->sm : 0);
}

typedef int (*rewrite_fn)(const struct gemm_call *, const struct device_facts *, const char **);

static const rewrite_fn rewrites[] = {
	[DECIDE_FP32] = rewrite_fp32,
	[DECIDE_FP16] = rewrite_fp16,
	[DECIDE_DECODE] = rewrite_decode,
};

/* Runs one decision.  A rewrite our machinery cannot carry out falls back along
 * plan_fallback(), down to the original call. */
/* Whose fault it is when a path cannot be taken, by its reason (the *why of the paths,
 * module.c and workspace.c); a reason not listed is ours. */
static const struct {
	const char *why;
	enum log_culprit who;
} culprits[] = {
	{"an operand runs past its allocation", LOG_BY_USER},
	{"no current CUDA context", LOG_BY_USER},
	{"k is too large for BF16SHIM_WORKSPACE_MB", LOG_BY_NOBODY},
	{"no device memory for scratch", LOG_BY_NOBODY},
	{"too many CUDA contexts", LOG_BY_NOBODY},
	{"not a decode shape the kernel takes", LOG_BY_NOBODY},
	{"the fp16 path takes bf16 operands only", LOG_BY_NOBODY},
	/* A launch fails on a context an earlier fault poisoned, or on pointers inside the
	 * caller's device arrays that point nowhere (GemmBatchedEx): nobody can tell here. */
	{"a kernel launch failed", LOG_BY_NOBODY},
	{"stream capture needs stream-ordered allocation (CUDA 11.2+)", LOG_BY_VENDOR},
	{"this driver lacks what the fp16 path needs", LOG_BY_VENDOR},
	{"the driver lacks module or launch functions", LOG_BY_VENDOR},
	{"cannot read the handle's stream or pointer mode", LOG_BY_VENDOR},
	{"the fp32 GEMM failed", LOG_BY_VENDOR},
	{"the fp16 GEMM failed", LOG_BY_VENDOR},
};

static enum log_culprit culprit_of(const char *why)
{
	for (size_t i = 0; i < sizeof culprits / sizeof culprits[0]; i++)
		if (strcmp(why, culprits[i].why) == 0)
			return culprits[i].who;
	return LOG_BY_SHIM;
}

static abi_status execute(const struct gemm_call *c, const struct device_facts *dev,
			  struct plan p)
{
	struct plan_call pc = plan_call_of(c);
	struct plan_device pd = {dev->sm, dev->tensor_cores};
	enum decision d = p.decision;
	char what[160], key[224];

	/* Every count is made after this point (n_retried after a call here too). */
	pthread_once(&atfork_once, register_atfork);
	if (d == DECIDE_PASS)
		return c->forward(c, c->algo);
	if (d == DECIDE_PASS_DEFAULT_ALGO)
		return c->forward(c, ABI_GEMM_DEFAULT);
	while (d != DECIDE_PASS) {
		const char *why = "unknown";
		int st = rewrites[d](c, dev, &why);
		if (st != REWRITE_UNAVAILABLE) {
			atomic_fetch_add(&n_rewritten, 1);
			return st;
		}
		enum decision failed = d;
		describe(c, dev, what, sizeof what);
		snprintf(key, sizeof key, "unavailable %s %s", plan_decision_name(d), why);
		d = plan_fallback(d, &pc, &pd);
		shim_log_once(key, d == DECIDE_PASS ? LOG_WARN : LOG_INFO, culprit_of(why),
			      "cannot take the %s path for %s (%s): %s%s",
			      plan_decision_name(failed), what, why,
			      d == DECIDE_PASS ? "passing the call through unchanged" : "trying ",
			      d == DECIDE_PASS ? "" : plan_decision_name(d));
	}
	atomic_fetch_add(&n_fallback, 1);
	return c->forward(c, c->algo);
}

/* What a dispatch did, for the trace. */
struct outcome {
	const struct device_facts *dev;
	struct plan plan;
	int first_status;
};

static abi_status dispatch(struct gemm_call *c, struct outcome *out)
{
	const struct shim_config *cfg = shim_config();
	struct plan_call pc = plan_call_of(c);
	const struct device_facts *dev;
	struct plan_device pd;
	struct plan p, r;
	char key[192], what[160];
	abi_status st;
	int bf16 = c->atype == ABI_R_16BF || c->btype == ABI_R_16BF;

	/* The wrapper already made the call and it was refused: go straight to the retry. */
	if (c->first_status >= 0) {
		st = c->first_status;
		p = (struct plan){DECIDE_PASS, "no bf16 operand"};
		dev = device_for_handle(c->handle);
		goto retry;
	}
	out->plan = (struct plan){DECIDE_PASS, "no bf16 operand"};
	/* Nothing to plan for a non-bf16 call until one has failed. */
	if (!bf16 && !verdict_any()) {
		st = c->forward(c, c->algo);
		if (st != ABI_STATUS_NOT_SUPPORTED && st != ABI_STATUS_ARCH_MISMATCH)
			return st;
		p = (struct plan){DECIDE_PASS, "no bf16 operand"};
		dev = device_for_handle(c->handle);
		goto retry;
	}
	dev = device_for_handle(c->handle);
	out->dev = dev;
	if (!dev) {
		out->plan.reason = "device unknown";
		return c->forward(c, c->algo);
	}
	pd = (struct plan_device){dev->sm, dev->tensor_cores};
	if (!verdict_lookup(&pc, dev->sm, &p))
		p = plan_gemm(&pc, &pd, cfg);
	out->plan = p;
	if (p.decision != DECIDE_PASS) {
		describe(c, dev, what, sizeof what);
		snprintf(key, sizeof key, "plan %s %s", plan_decision_name(p.decision), what);
		shim_log_once(key, LOG_INFO, LOG_BY_NOBODY, "%s: %s path (%s)", what,
			      plan_decision_name(p.decision), p.reason);
	}
	st = execute(c, dev, p);
	if (st != ABI_STATUS_NOT_SUPPORTED && st != ABI_STATUS_ARCH_MISMATCH)
		return st;
retry:
	out->dev = dev;
	out->first_status = st;
	if (!dev)
		return st;
	pd = (struct plan_device){dev->sm, dev->tensor_cores};
	/* Each retry step either succeeds or moves to a strictly later decision. */
	for (int step = 0; step < 3; step++) {
		abi_status again;
		r = plan_retry(&pc, &pd, cfg, p.decision, st);
		if (r.decision == DECIDE_PASS) {
			if (!step)
				out->first_status = -1; /* nothing was retried */
			return st;
		}
		out->plan = r;
		again = execute(c, dev, r);
		describe(c, dev, what, sizeof what);
		snprintf(key, sizeof key, "retry %s %s", plan_decision_name(r.decision), what);
		shim_log_once(key, LOG_WARN, LOG_BY_VENDOR, "%s returned status %d; retried as %s "
			      "(%s): status %d", what, st, plan_decision_name(r.decision),
			      r.reason, again);
		atomic_fetch_add(&n_retried, 1);
		if (again != ABI_STATUS_NOT_SUPPORTED && again != ABI_STATUS_ARCH_MISMATCH) {
			if (again == ABI_STATUS_SUCCESS) {
				verdict_remember(&pc, dev->sm, r);
				/* From now on non-bf16 calls are planned too. */
				__atomic_fetch_or(&shim_fast_gemm, SHIM_FAST_VERDICTS,
						  __ATOMIC_RELAXED);
			}
			return again;
		}
		p = r;
		st = again;
	}
	return st;
}

static void trace_call(const struct gemm_call *c, const struct outcome *out, abi_status st)
{
	int pmode = -1;
	abi_status (*gp)(abi_handle, int *) = real_cublas.cublasGetPointerMode_v2;
	struct trace_record r = {
		.api = c->api, .m = c->m, .n = c->n, .k = c->k, .batch = c->batch,
		.transa = c->transa, .transb = c->transb, .atype = c->atype, .btype = c->btype,
		.ctype = c->ctype, .compute = c->compute, .algo = c->algo,
		.device = out->dev ? out->dev->ordinal : -1, .sm = out->dev ? out->dev->sm : -1,
		.real_sm = out->dev ? out->dev->real_sm : -1,
		.decision = plan_decision_name(out->plan.decision), .reason = out->plan.reason,
		.status = st, .first_status = out->first_status,
	};
	/* A host call into cuBLAS: reads the handle, never synchronises. */
	if (c->handle && gp && gp(c->handle, &pmode) != ABI_STATUS_SUCCESS)
		pmode = -1;
	r.pointer_mode = pmode;
	trace_write(&r);
}

abi_status shim_gemm(struct gemm_call *c)
{
	abi_status st;
	int pass_all;

	if (shim_depth)
		return c->forward(c, c->algo);
	pass_all = shim_config()->mode == MODE_OFF;
	if (!(__atomic_load_n(&shim_fast_gemm, __ATOMIC_ACQUIRE) & SHIM_FAST_READY) &&
	    cublas_found())
		/* While tracing, every call must reach the dispatcher to be written down. */
		__atomic_fetch_or(&shim_fast_gemm, (pass_all ? SHIM_FAST_PASS_ALL : 0) |
				  (trace_enabled() ? 0 : SHIM_FAST_READY), __ATOMIC_RELEASE);
	if (pass_all && !trace_enabled())
		return c->forward(c, c->algo);
	shim_depth++;
	if (pass_all) {
		struct outcome out = {NULL, {DECIDE_PASS, "BF16SHIM_MODE=off"}, -1};
		st = c->forward(c, c->algo);
		trace_call(c, &out, st);
	} else {
		struct outcome out = {NULL, {DECIDE_PASS, ""}, -1};
		st = dispatch(c, &out);
		if (trace_enabled())
			trace_call(c, &out, st);
	}
	shim_depth--;
	return st;
}

abi_status shim_gemm_run(const struct gemm_call *c, const struct device_facts *dev,
			 const struct plan *p)
{
	return execute(c, dev, *p);
}

/* One line at exit, and only if the shim changed anything. */
__attribute__((destructor)) static void summary(void)
{
	unsigned long rw = atomic_load(&n_rewritten), rt = atomic_load(&n_retried),
		      fb = atomic_load(&n_fallback);
	if (rw || rt || fb)
		shim_log(LOG_WARN, LOG_BY_NOBODY,
			 "%lu GEMMs rewritten, %lu retried, %lu passed through after a failed "
			 "rewrite", rw, rt, fb);
}
