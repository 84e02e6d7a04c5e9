/* The walk: the one way into the GEMM machinery for every API.  A described call (cublas.c,
 * lt.c) -> its plan (plan.c: the steps to try, in order; or the plan its describer made) ->
 * one loop along the plan, each step forwarding the call or rewriting it, until one answers
 * -> the outcome, which one function writes to the trace.  Nothing here knows which library
 * a call came through: that is the call's forward and backend. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "device.h"
#include "gate.h"
#include "gemm.h"
#include "log.h"
#include "plan.h"
#include "real.h"
#include "rewrite/rewrite.h"
#include "trace.h"
#include "verdict.h"
#include "walk.h"
#include "why.h"

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

/* "cublasGemmEx A=14 B=14 C=0 compute=68 algo=99 on sm_61": how the log names a call. */
static void describe(const struct gemm_call *c, const struct device_facts *dev, char *buf,
		     size_t cap)
{
	snprintf(buf, cap, "%s A=%d B=%d C=%d compute=%d algo=%d on sm_%d", c->api, c->atype,
		 c->btype, c->ctype, c->compute, c->algo, dev->sm);
}

/* The log-once key of a message about c: its kind, the step's decision and what
 * describe() shows. */
static uint64_t call_key(const char *kind, const struct gemm_call *c,
			 const struct device_facts *dev, enum decision d)
{
	const long v[] = {d, c->atype, c->btype, c->ctype, c->compute, c->algo, dev->sm};
	return log_key(kind, c->api, v, sizeof v / sizeof v[0]);
}

static void log_plan(const struct gemm_call *c, const struct device_facts *dev,
		     const struct plan_step *s)
{
	char what[160];

	if (!shim_log_first(call_key("plan", c, dev, s->decision), LOG_INFO))
		return;
	describe(c, dev, what, sizeof what);
	shim_log(LOG_INFO, LOG_BY_NOBODY, "%s: %s path (%s)", what,
		 plan_decision_name(s->decision), s->reason);
}

/* Step i could not be taken (once per decision and reason); next is what comes of it. */
static void log_unavailable(const struct gemm_call *c, const struct device_facts *dev,
			    const struct plan *p, int i, enum why why, int forwarded)
{
	const long v[] = {p->step[i].decision, why};
	int last = i + 1 >= p->n, passes = last || p->step[i + 1].decision == DECIDE_PASS;
	enum log_level level = passes ? LOG_WARN : LOG_INFO;
	char what[160];

	if (!shim_log_first(log_key("unavailable", NULL, v, 2), level))
		return;
	describe(c, dev, what, sizeof what);
	shim_log(level, why_culprit(why), "cannot take the %s path for %s (%s): %s%s",
		 plan_decision_name(p->step[i].decision), what, why_text(why),
		 !passes ? "trying " : last && forwarded ? "the library's refusal stands"
							  : "passing the call through unchanged",
		 !passes ? plan_decision_name(p->step[i + 1].decision) : "");
}

static void log_retry(const struct gemm_call *c, const struct device_facts *dev,
		      abi_status refused, const struct plan_step *s, abi_status st)
{
	char what[160];

	if (!shim_log_first(call_key("retry", c, dev, s->decision), LOG_WARN))
		return;
	describe(c, dev, what, sizeof what);
	shim_log(LOG_WARN, LOG_BY_VENDOR, "%s returned status %d; retried as %s (%s): status %d",
		 what, refused, plan_decision_name(s->decision), s->reason, st);
}

typedef enum why (*rewrite_fn)(const struct gemm_call *, const struct device_facts *,
				abi_status *, uint32_t *);

static const rewrite_fn rewrites[] = {
	[DECIDE_FP32] = rewrite_fp32,
	[DECIDE_FP16] = rewrite_fp16,
	[DECIDE_DECODE] = rewrite_decode,
	[DECIDE_FUSED] = rewrite_fused,
};

/* The step's answer in *st: WHY_NONE, or why its machinery is unavailable; *splits as the
 * rewrites set it (rewrite.h). */
static enum why run_step(const struct gemm_call *c, const struct device_facts *dev,
			 enum decision d, abi_status *st, uint32_t *splits)
{
	if (plan_is_forward(d)) {
		*st = c->forward(c, d);
		return WHY_NONE;
	}
	return rewrites[d](c, dev, st, splits);
}

/* What a walk did, for the trace: the step the plan or a retry chose (not a fallback), and
 * the status of a refused first attempt when a retry followed it. */
struct outcome {
	const struct device_facts *dev;
	struct plan_step step;
	int first_status;
	struct plan_model model;      /* the cost model's figures, where it planned */
	uint32_t splits;              /* k's parts, where the rewrite that ran split it */
};

struct plan_device plan_device_of(const struct device_facts *f)
{
	const char *name = shim_config()->emulate_sm ? NULL : f->name;

	return (struct plan_device){f->sm, f->tensor_cores,
				    cost_device_from(f->sm, name, f->sm_count, f->clock_khz,
						     f->mem_clock_khz, f->bus_bits),
				    real_cublas_major()};
}

/* The walk along p from step i.  refused: the status of a forward the library refused (the
 * entry's, already made), or -1.  Each step answers the call, or hands it on: a rewrite
 * whose machinery is unavailable, a forward the library refused (if a step follows). */
static abi_status take_steps(const struct gemm_call *c, const struct device_facts *dev,
		       const struct plan *p, int i, abi_status refused, struct outcome *out)
{
	int unavailable = 0;

	/* Every count is made after this point. */
	pthread_once(&atfork_once, register_atfork);
	for (; i < p->n; i++) {
		const struct plan_step *s = &p->step[i];
		abi_status r = ABI_STATUS_SUCCESS;
		enum why why;

		if (refused >= 0 && !unavailable) {
			/* A retry: what the trace shows, with the first refusal. */
			out->step = *s;
			if (out->first_status < 0)
				out->first_status = refused;
		}
		if (unavailable && plan_is_forward(s->decision))
			atomic_fetch_add(&n_fallback, 1);
		why = run_step(c, dev, s->decision, &r, &out->splits);
		if (why != WHY_NONE) {
			log_unavailable(c, dev, p, i, why, refused >= 0);
			unavailable = 1;
			continue;
		}
		if (!plan_is_forward(s->decision))
			atomic_fetch_add(&n_rewritten, 1);
		if (refused >= 0) {
			atomic_fetch_add(&n_retried, 1);
			log_retry(c, dev, refused, s, r);
		}
		if (plan_is_forward(s->decision) && gate_refused(r) && i + 1 < p->n) {
			refused = r;
			unavailable = 0;
			continue;
		}
		if (r == ABI_STATUS_SUCCESS && refused >= 0) {
			verdict_remember(&(struct plan_call){.atype = c->atype, .btype = c->btype,
							     .ctype = c->ctype,
							     .compute = c->compute,
							     .algo = c->algo},
					 dev->sm, i, s->decision);
			/* From now on calls with no bf16 operand are planned too. */
			gate_note_verdict();
		}
		return r;
	}
	if (refused >= 0)
		return refused; /* the library's answer stands */
	/* Nothing answered and the call was never made (a plan started past its forward). */
	atomic_fetch_add(&n_fallback, 1);
	return c->forward(c, DECIDE_PASS);
}

/* Plans c (unless its describer did) and walks the plan. */
static abi_status dispatch(const struct gemm_call *c, struct outcome *out)
{
	abi_status refused = c->first_status;
	struct plan_device pd;
	struct plan_call pc;
	struct plan p;
	int start;

	if (c->plan) {
		out->step = c->plan->step[0];
		out->model = c->plan->model;
		return take_steps(c, c->dev, c->plan, 0, refused, out);
	}
	if (shim_config()->mode == MODE_OFF) {
		out->step.reason = "BF16SHIM_MODE=off";
		return refused >= 0 ? refused : c->forward(c, DECIDE_PASS);
	}
	/* Nothing to plan for a call with no bf16 operand until the library refuses it. */
	if (refused < 0 && c->atype != ABI_R_16BF && c->btype != ABI_R_16BF && !verdict_any()) {
		abi_status st = c->forward(c, DECIDE_PASS);
		if (!gate_refused(st))
			return st;
		refused = st;
	}
	out->dev = c->dev ? c->dev : device_for_handle(c->handle);
	if (!out->dev) {
		if (refused >= 0)
			return refused;
		out->step.reason = "device unknown";
		return c->forward(c, DECIDE_PASS);
	}
	pc = plan_call_of(c);
	pd = plan_device_of(out->dev);
	p = plan_gemm(&pc, &pd, shim_config());
	if (refused >= 0) {
		/* The first step, the call as it came, was made: on to what follows it. */
		start = plan_is_forward(p.step[0].decision) ? 1 : 0;
	} else {
		start = verdict_step(&pc, out->dev->sm, &p);
		out->step = p.step[start];
		if (start == 0)
			out->model = p.model;
		if (out->step.decision != DECIDE_PASS)
			log_plan(c, out->dev, &out->step);
	}
	return take_steps(c, out->dev, &p, start, refused, out);
}

/* The one trace writer: what a walk did with c, and the status the caller got. */
static void record(const struct gemm_call *c, const struct outcome *out, abi_status st)
{
	const struct device_facts *dev = out->dev;

	trace_write(&(struct trace_record){
		.api = c->api, .m = c->m, .n = c->n, .k = c->k, .batch = c->batch,
		.transa = c->transa, .transb = c->transb, .atype = c->atype, .btype = c->btype,
		.ctype = c->ctype, .compute = c->compute, .algo = c->algo,
		.pointer_mode = rewrite_pointer_mode(c),
		.device = dev ? dev->ordinal : -1, .sm = dev ? dev->sm : -1,
		.real_sm = dev ? dev->real_sm : -1,
		.decision = plan_decision_name(out->step.decision), .reason = out->step.reason,
		.status = st, .first_status = out->first_status,
		.modeled = out->model.valid, .modeled_us = out->model.chosen_us,
		.rejected = out->model.valid && out->model.rejected_us >= 0
				    ? plan_decision_name(out->model.rejected) : NULL,
		.rejected_us = out->model.rejected_us, .splits = out->splits,
	});
}

abi_status gemm_walk(const struct gemm_call *c)
{
	struct outcome out = {.dev = c->dev, .step = {DECIDE_PASS, "no bf16 operand"},
			      .first_status = -1};
	abi_status st;

	/* Made while the shim works: ours, or cuBLAS's inside them. */
	if (gate_depth)
		return c->first_status >= 0 ? c->first_status : c->forward(c, DECIDE_PASS);
	gate_depth++;
	st = dispatch(c, &out);
	if (trace_enabled())
		record(c, &out, st);
	gate_depth--;
	return st;
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
