/* The call trace (BF16SHIM_TRACE=FILE): one JSON object per intercepted call, written
 * without synchronising the GPU.  Schema: docs in README.md ("Trace format"). */
#ifndef BF16SHIM_TRACE_H
#define BF16SHIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct trace_record {
	const char *api;          /* "cublasGemmEx", ... */
	int64_t m, n, k, batch;
	int transa, transb;
	int atype, btype, ctype;  /* cudaDataType values */
	int compute;              /* as the caller spelled it */
	int algo;
	int pointer_mode;         /* 0 host, 1 device, -1 unknown */
	int device, sm, real_sm;  /* -1 when unknown */
	const char *decision;     /* plan_decision_name() */
	const char *reason;
	int status;               /* returned to the caller */
	int first_status;         /* status of a refused first attempt, or -1 */
	/* Where the cost model planned: the decision's modeled time and the best rejected
	 * one's (microseconds; rejected NULL: no other path could run). */
	int modeled;
	double modeled_us;
	const char *rejected;
	double rejected_us;
	/* Where the kernel that ran split k (decode, fused paths): the number of parts; 0 or 1
	 * for none. */
	unsigned splits;
};

/* Is tracing on?  Reads BF16SHIM_TRACE once. */
int trace_enabled(void);
void trace_write(const struct trace_record *r);
/* The record as the trace writes it, from "{" to its status fields (no closing brace, no
 * newline), NUL-terminated in buf; its length, or -1 when it does not fit in cap bytes. */
int trace_describe(const struct trace_record *r, char *buf, size_t cap);

#endif
