/* Exported cuBLASLt entry points.  The fast path calls the real function directly for nested
 * calls (cuBLAS into cuBLASLt) and with BF16SHIM_MODE=off, unless the algorithm is one our
 * heuristic returned; everything else goes to the dispatcher (lt.c).  On x86-64 the
 * cublasLtMatmul fast path is assembly (below); the C form it stands for is built elsewhere
 * and with -Dportable_exports=true (the sanitizer build), so both are tested. */
/* Everything these headers declare is defined inside the shim: hidden, the fast path reads
 * it %rip-relative instead of through the GOT. */
#pragma GCC visibility push(hidden)
#include "../gemm.h"
#include "../lt.h"
#pragma GCC visibility pop

/* The vendor headers declare these; the shim does not include them. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT __attribute__((visibility("default")))

static inline int lt_fast_pass(const abi_lt_algo *algo)
{
	unsigned w = __atomic_load_n(&shim_fast_lt, __ATOMIC_ACQUIRE);

	if (__builtin_expect(!(w & SHIM_FAST_READY), 0))
		return 0;
	return (shim_depth || (w & SHIM_FAST_PASS_ALL)) && !lt_algo_is_ours(algo);
}

/* cublasLtMatmul's parameters, and the same names as arguments. */
#define MATMUL_PARAMS                                                                      \
	(abi_lt_handle handle, abi_lt_desc desc, const void *alpha, const void *A,         \
	 abi_lt_layout adesc, const void *B, abi_lt_layout bdesc, const void *beta,        \
	 const void *C, abi_lt_layout cdesc, void *D, abi_lt_layout ddesc,                 \
	 const abi_lt_algo *algo, void *workspace, size_t workspace_bytes, abi_stream stream)
#define MATMUL_ARGS                                                                        \
	(handle, desc, alpha, A, adesc, B, bdesc, beta, C, cdesc, D, ddesc, algo, workspace, \
	 workspace_bytes, stream)

/* Same parameters as the export, so that its fast path below can jump here untouched. */
__attribute__((noinline, cold, used)) static abi_status matmul_slow MATMUL_PARAMS
	__asm__("bf16shim_lt_matmul_slow");

static abi_status matmul_slow MATMUL_PARAMS
{
	return shim_lt_matmul(&(struct lt_matmul_args){handle, desc, alpha, A, adesc, B, bdesc,
						       beta, C, cdesc, D, ddesc, algo, workspace,
						       workspace_bytes, stream});
}

#if defined(__x86_64__) && defined(__LP64__) && !defined(BF16SHIM_PORTABLE_EXPORTS)
/* cuBLAS calls cublasLtMatmul inside every GEMM, so its pass-through is written out: the
 * checks of lt_fast_pass(), then a jump to the real function with the arguments untouched,
 * or to matmul_slow.  For any C tail call with stack arguments gcc (12) loads and stores
 * all ten of them and saves six registers, about 35 instructions per call (a plain call
 * costs about 30); this takes 9 to 12 (bench/passthrough_cost.sh).  Nothing here changes
 * the stack, so the default CFI (return address at the CFA) describes every instruction. */
_Static_assert(SHIM_FAST_READY == 1 && SHIM_FAST_PASS_ALL == 2, "fast bits used below");
_Static_assert(offsetof(struct real_cublaslt, cublasLtMatmul) == 0, "jumped through below");
_Static_assert(LT_ALGO_MAGIC == 0x6d69687336316662ull, "compared below");
#if defined(__CET__) && (__CET__ & 1)
#define LT_ENDBR "	endbr64\n"
#else
#define LT_ENDBR ""
#endif
__asm__("	.pushsection .text\n"
	"	.globl	cublasLtMatmul\n"
	"	.type	cublasLtMatmul, @function\n"
	"	.p2align 4\n"
	"cublasLtMatmul:\n"
	"	.cfi_startproc\n"
	LT_ENDBR
	"	cmpl	$1, shim_fast_lt(%rip)\n"       /* SHIM_FAST_READY alone */
	"	jne	3f\n"
	"	movq	shim_depth@gottpoff(%rip), %rax\n"
	"	cmpl	$0, %fs:(%rax)\n"
	"	je	bf16shim_lt_matmul_slow\n"
	"1:	movq	56(%rsp), %rax\n"              /* algo, the 13th argument */
	"	testq	%rax, %rax\n"
	"	jz	2f\n"
	"	movabsq	$0x6d69687336316662, %r11\n"   /* LT_ALGO_MAGIC: ours */
	"	cmpq	%r11, (%rax)\n"
	"	je	bf16shim_lt_matmul_slow\n"
	"2:	jmp	*real_lt(%rip)\n"               /* real_lt.cublasLtMatmul */
	"3:	cmpl	$3, shim_fast_lt(%rip)\n"       /* READY | PASS_ALL: any depth */
	"	je	1b\n"
	"	jmp	bf16shim_lt_matmul_slow\n"
	"	.cfi_endproc\n"
	"	.size	cublasLtMatmul, .-cublasLtMatmul\n"
	"	.popsection\n");
#else
EXPORT abi_status cublasLtMatmul MATMUL_PARAMS
{
	if (lt_fast_pass(algo))
		return real_lt.cublasLtMatmul MATMUL_ARGS;
	return matmul_slow MATMUL_ARGS;
}
#endif

EXPORT abi_status cublasLtMatmulAlgoGetHeuristic(abi_lt_handle handle, abi_lt_desc desc,
						 abi_lt_layout adesc, abi_lt_layout bdesc,
						 abi_lt_layout cdesc, abi_lt_layout ddesc,
						 abi_lt_pref pref, int requested,
						 abi_lt_heuristic_result *results, int *returned)
{
	if (lt_fast_pass(NULL))
		return real_lt.cublasLtMatmulAlgoGetHeuristic(handle, desc, adesc, bdesc, cdesc,
							      ddesc, pref, requested, results,
							      returned);
	return shim_lt_heuristic(&(struct lt_heuristic_args){handle, desc, adesc, bdesc, cdesc,
							     ddesc, pref, requested, results,
							     returned});
}
