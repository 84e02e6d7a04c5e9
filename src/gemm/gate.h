/* The gate: which intercepted GEMM calls go straight to the real library and which reach
 * the walk (walk.h).  Everything the entries (cublas.c, lt.c) read on their pass-through
 * lives here: one word per library, the thread's depth inside the shim, and the route of
 * cublasLtMatmul calls that cuBLAS makes inside a GEMM the shim passed to it. */
#ifndef BF16SHIM_GATE_H
#define BF16SHIM_GATE_H

#include "abi.h"
#include "entry_points.h"

/* data[0] of an algorithm our heuristic returned ("bf16shim" in ASCII, little-endian): such
 * a call is always the shim's, whatever the gate says of others. */
#define LT_ALGO_MAGIC 0x6d69687336316662ull

static inline int lt_algo_is_ours(const abi_lt_algo *algo)
{
	return algo && algo->data[0] == LT_ALGO_MAGIC;
}

/* The words: bits are only ever set, atomically, READY with release order.  One load and
 * one compare decide the common case. */
enum gate_bit {
	GATE_READY = 1,     /* real functions found, configuration read (cuBLAS: and not
			     * tracing, so that every call reaches the trace) */
	GATE_PASS_ALL = 2,  /* gate_passes_all() */
	GATE_VERDICTS = 4,  /* cuBLAS: a configuration once needed a retry (verdict.h) */
};
extern unsigned gate_cublas, gate_lt;

/* Calls made while the shim works (ours into cuBLAS, cuBLAS into its own exported functions)
 * go straight to the real function.
 * initial-exec: the entries reach it with a GOT load and an %fs-relative access instead of
 * a __tls_get_addr call.  The shim is preloaded or linked at start, where static TLS is the
 * norm; a late dlopen() still works because glibc keeps a static TLS surplus for such
 * libraries (ours: this and gate_lt_route, 16 bytes), and if that surplus were ever
 * exhausted dlopen() would fail with an error, never misbehave silently. */
extern __thread int gate_depth __attribute__((tls_model("initial-exec")));

/* Where this thread's cublasLtMatmul calls go: the export is one jump through it.  Normally
 * lt_matmul_entry (lt.c: pass through or walk); while cuBLAS runs a GEMM the shim passed to
 * it, gate_lt_nested: cuBLAS calls cuBLASLt inside every GEMM, and those calls go straight
 * to the real function once it is found.  initial-exec, as gate_depth. */
typedef abi_status (*lt_matmul_fn) LT_MATMUL_PARAMS;
extern __thread lt_matmul_fn gate_lt_route __attribute__((tls_model("initial-exec")));
extern lt_matmul_fn gate_lt_nested;

/* Can every call pass straight to the library (but for a refusal to retry, or an algorithm
 * of ours)?  When no device of the process needs a rewrite (plan_all_native) or with
 * BF16SHIM_MODE=off, and nothing wants to see each call: no trace, no debug log (which names
 * each call it passes through).  Decided once, on the first call. */
int gate_passes_all(void);
/* cuBLAS is found with every entry point the pass-through calls unchecked: from now on the
 * cuBLAS entries may pass calls straight through.  Once per process (a load after that). */
void gate_open_cublas(void);
/* cuBLASLt is found: the same for its entries, and nested calls go straight to it. */
void gate_open_lt(void);
/* A configuration needed a retry: from now on calls with no bf16 operand are walked too. */
void gate_note_verdict(void);

/* Can this cuBLAS GEMM go straight to the real function?  Any call when
 * gate_passes_all(); a call with no bf16 operand once no configuration has needed a retry:
 * one load and a few compares, the cost every passed-through GEMM pays
 * (bench/passthrough_cost.sh).  The rest, nested calls included, go to the walk, which
 * passes them through as well. */
static inline int gate_gemm_passes(int atype, int btype)
{
	unsigned w = __atomic_load_n(&gate_cublas, __ATOMIC_ACQUIRE);

	if (__builtin_expect(w == GATE_READY, 1))
		return atype != ABI_R_16BF && btype != ABI_R_16BF;
	return w == (GATE_READY | GATE_PASS_ALL);
}

/* The library refused the call (it may take another form): the only statuses that lead to
 * another attempt. */
static inline int gate_refused(abi_status st)
{
	/* Success first: one compare on the path every call takes. */
	return __builtin_expect(st != ABI_STATUS_SUCCESS, 0) &&
	       (st == ABI_STATUS_NOT_SUPPORTED || st == ABI_STATUS_ARCH_MISMATCH);
}

/* Around a cuBLAS GEMM passed straight through: cuBLAS calls cuBLASLt inside it, and those
 * calls are nested (they go straight to the library). */
struct gate_nest {
	int depth;
	lt_matmul_fn route;
};

static inline struct gate_nest gate_nest_enter(void)
{
	struct gate_nest n = {gate_depth, gate_lt_route};

	gate_depth = n.depth + 1;
	gate_lt_route = __atomic_load_n(&gate_lt_nested, __ATOMIC_RELAXED);
	return n;
}

/* Leaves; is st the call's answer?  Yes unless the library refused a call that is not
 * itself nested: that one goes to the walk, which may retry it. */
static inline int gate_nest_leave(struct gate_nest n, abi_status st)
{
	gate_lt_route = n.route;
	gate_depth = n.depth;
	return !gate_refused(st) || n.depth;
}

/* Can this cublasLtMatmul (algo: the caller's, NULL for the heuristic) go straight to the
 * real function?  Calls made while the shim works, and any call when gate_passes_all(),
 * unless the algorithm is one our heuristic returned.  The first call finds cuBLASLt. */
int gate_lt_passes_slow(const abi_lt_algo *algo);
static inline int gate_lt_passes(const abi_lt_algo *algo)
{
	unsigned w = __atomic_load_n(&gate_lt, __ATOMIC_ACQUIRE);

	if (__builtin_expect(!(w & GATE_READY), 0))
		return gate_lt_passes_slow(algo);
	return (gate_depth || (w & GATE_PASS_ALL)) && !lt_algo_is_ours(algo);
}

#endif
