/* One description for every intercepted GEMM, so the planner and the rewrite paths see a
 * single shape of call whatever API it came through; what differs between the APIs is the
 * call's forward and its backend, both chosen when the call is described. */
#ifndef BF16SHIM_GEMM_H
#define BF16SHIM_GEMM_H

#include <stdint.h>

#include "abi.h"
#include "plan.h"
#include "entry_points.h"
#include "real.h"

struct gemm_call;
struct gemm_backend;
struct lt_matmul_args;
/* Calls the real entry point a described call came through, with its arguments (and algo
 * for its algorithm: DECIDE_PASS_DEFAULT_ALGO changes it). */
typedef abi_status (*gemm_forward_fn)(const struct gemm_call *c, int algo);

/* A cuBLASLt epilogue fused into ours: out = act(alpha*AB + beta*C + bias). */
struct gemm_epilogue {
	uint64_t bias;              /* device vector, 0 for none */
	int bias_type;              /* cudaDataType */
	int bias_along;             /* 0: bias[row of the output], 1: bias[column] */
	int64_t bias_batch_stride;  /* elements; 0: one vector for every batch item */
	int act;                    /* enum gemm_act */
};

/* What a cuBLASLt call brings that a cuBLAS one takes from its handle (read by its backend,
 * rewrite/via_cublaslt.c, and its forward). */
struct gemm_lt {
	abi_stream stream;
	int pmode;                  /* ABI_POINTER_MODE_* */
	const struct lt_matmul_args *args; /* the call as it came */
};

struct gemm_call {
	const char *api;            /* the entry point called, for the log and the trace */
	gemm_forward_fn forward;
	const struct gemm_backend *backend; /* what the rewrite takes from that library */
	abi_handle handle;
	int transa, transb;
	int64_t m, n, k;
	const void *alpha, *beta;   /* float: every rewritten call computes in fp32 */
	const void *a, *b;          /* matrices, or device arrays of pointers (ptr_array) */
	void *c;
	int atype, btype, ctype;
	int64_t lda, ldb, ldc;
	int64_t stride_a, stride_b, stride_c;  /* elements; strided batches only */
	int64_t batch;
	int compute;                /* either spelling */
	int algo;
	int ptr_array;              /* the *BatchedEx form */
	int first_status;           /* status of the entry's refused attempt, or -1 */
	/* Zero for cuBLAS GEMMs (cublas.c initialises the members above only). */
	const struct gemm_lt *lt;
	void *workspace;            /* scratch the caller lent (cuBLASLt's workspace) */
	size_t workspace_bytes;
	struct gemm_epilogue epilogue;
};

/* What the entry functions' pass-through reads: one word for cuBLAS and one for cuBLASLt
 * (found on its own), so that one load and one compare decide the common case.  Bits are
 * only ever set, atomically, READY with release order. */
enum shim_fast_bit {
	SHIM_FAST_READY = 1,     /* real functions found, configuration read (cuBLAS: and not
				  * tracing, so that every call reaches the trace) */
	SHIM_FAST_PASS_ALL = 2,  /* shim_passes_all() */
	SHIM_FAST_VERDICTS = 4,  /* cuBLAS: a configuration once needed a retry (verdict.h) */
};
extern unsigned shim_fast_gemm, shim_fast_lt;

/* Can every call pass straight to the library (but for a refusal to retry, or an algorithm
 * of ours)?  With BF16SHIM_MODE=off; or when no device of the process needs a rewrite
 * (plan_all_native) and nothing wants to see each call: no trace, no debug log (which names
 * each call it passes through).  Decided once, on the first call. */
int shim_passes_all(void);

/* The entry functions behind the exported cuBLAS GEMMs (cublas.c), of the same signatures. */
#define X(name, INT, family) abi_status shim_##name family##_PARAMS(INT);
CUBLAS_GEMMS(X)
#undef X

/* The dispatcher: the call's plan, walked step by step until one answers. */
abi_status shim_gemm(struct gemm_call *c);
/* Carries out plan p for c (a rewritten cuBLASLt call), down to c->forward. */
struct device_facts;
abi_status shim_gemm_run(const struct gemm_call *c, const struct device_facts *dev,
			 const struct plan *p);
/* A null or misaligned operand in a GEMM with work to do: never rewritten (plan.h). */
int gemm_bad_pointers(const struct gemm_call *c);
/* cuBLAS is found, with every entry point the pass-through calls unchecked (cublas.c). */
int cublas_found(void);
/* cublasDestroy: drops what the shim keeps per handle, then destroys it. */
abi_status shim_cublas_destroy(abi_handle handle);

/* Re-entrancy: calls made while the shim is working (ours into cuBLAS, cuBLAS into its own
 * exported functions) go straight to the real function.
 * initial-exec: the entries reach it with a GOT load and an %fs-relative access instead of
 * a __tls_get_addr call.  The shim is preloaded or linked at start, where static TLS is the
 * norm; a late dlopen() still works because glibc keeps a static TLS surplus for such
 * libraries (ours: this and lt_matmul_route, 16 bytes), and if that surplus were ever
 * exhausted dlopen() would fail with an error, never misbehave silently. */
extern __thread int shim_depth __attribute__((tls_model("initial-exec")));

/* Can this call go straight to the real function?  Any call when shim_passes_all(); a call
 * with no bf16 operand once no configuration has needed a retry: one load and a few
 * compares, the cost every passed-through GEMM pays (bench/passthrough_cost.sh).  The rest,
 * nested calls included, go to shim_gemm(), which passes them through as well. */
static inline int gemm_passes(int atype, int btype)
{
	unsigned w = __atomic_load_n(&shim_fast_gemm, __ATOMIC_ACQUIRE);

	if (__builtin_expect(w == SHIM_FAST_READY, 1))
		return atype != ABI_R_16BF && btype != ABI_R_16BF;
	return w == (SHIM_FAST_READY | SHIM_FAST_PASS_ALL);
}

/* The library refused the call (it may take another form): the only statuses that lead to
 * another attempt. */
static inline int gemm_refused(abi_status st)
{
	/* Success first: one compare on the path every call takes. */
	return __builtin_expect(st != ABI_STATUS_SUCCESS, 0) &&
	       (st == ABI_STATUS_NOT_SUPPORTED || st == ABI_STATUS_ARCH_MISMATCH);
}

#endif
