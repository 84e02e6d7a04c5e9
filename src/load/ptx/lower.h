/* lower.h: the PTX lowering pass (shared by `bf16shim lower`, the ptxas wrapper, `bf16shim
 * scan` and the preload library), and the one decision of when PTX needs it.
 *
 * ptx_lower() rewrites every instruction that needs a newer GPU than the requested target
 * into instructions the target has (doc/lowering.md, per instruction):
 * - bf16 arithmetic and conversions (sm_80: cvt with f32, fma, min/max, neg/abs; sm_86:
 *   .xorsign.abs; sm_90: add/sub/mul, setp/set, ex2/tanh, cvt with f16/f64/integers/bf16)
 *   into integer and fp32 instructions that every GPU since sm_50 runs, with results
 *   bit-identical to the instruction's definition (ties, subnormals, infinities and NaN
 *   included; NaN results are the canonical 0x7fff / 0x7fffffff, bf16 -> f32 keeps NaN
 *   payloads like the shift that cuda_bf16.hpp emits).  ex2.approx and tanh.approx are
 *   approximations by definition.
 * - the rest of Ampere's instruction set and some of Hopper's (rules_sm80.c): mma.sync with
 *   bf16, tf32, f16, int8, fp8 and f64, mma.sp, wmma, ldmatrix, movmatrix and stmatrix,
 *   cp.async with its groups, mbarrier, redux.sync, 16-bit atomics, cache hints, min/max
 *   .NaN, tanh, the sm_70 memory model, the cluster registers: data movement bit for bit,
 *   matrix products within the bound of fp32 accumulation.
 *
 * A rewritten instruction becomes a `{ ... }` block with its own `.reg` temporaries, so no
 * function header changes.  A guarded instruction (@p / @!p) stays guarded: only the writes
 * to its destinations carry the guard.  Every instruction kept, and every one a block or a
 * helper function holds, is held against the target's column of the ISA table (isa.h): what
 * the target lacks is reported.  `.target` is lowered to the requested target when it is
 * higher, and `.version` to the lowest that holds what the output uses, when that is below
 * the original's.  Everything else is copied byte for byte; with nothing to lower and a
 * `.target` not above the request, the output equals the input.
 *
 * The input is untrusted: any bytes are accepted (NUL included), nothing is read past len,
 * there is no recursion, and the work is linear in the input.  Instructions that cannot be
 * lowered (wgmma and the rest of sm_90, cp.async.bulk, ...: doc/lowering.md, "Not lowered
 * yet") are kept as they are and reported with their line; the output is still produced,
 * and lower_module.h leaves the kernels that hold them out of the module.
 */
#ifndef BF16SHIM_PTX_LOWER_H
#define BF16SHIM_PTX_LOWER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PTX_LOWER_MAX_INPUT ((size_t)256 << 20)   /* bytes; larger inputs are refused */
#define PTX_LOWER_MAX_OUTPUT ((size_t)1 << 30)
#define PTX_LOWER_MAX_ISSUES 64                   /* issues kept; n_issues counts them all */

enum ptx_lower_status {
	PTX_LOWER_OK = 0,         /* everything that needed lowering was lowered */
	PTX_LOWER_PARTIAL = 1,    /* output produced, but rep->issues lists what stays */
	PTX_LOWER_EINVAL = -1,    /* bad arguments (target out of range, NULL pointers) */
	PTX_LOWER_ETOOBIG = -2,   /* input or output over the limits above */
	PTX_LOWER_ENOMEM = -3,
	PTX_LOWER_EOUTSIDE = -4,  /* an instruction that cannot be lowered lies outside every
				   * function: no kernel to leave out (lower_module.h) */
};

/* What a lowering did to one kind of instruction; see ptx_lower_kind_name(). */
enum ptx_lower_kind {
	PTX_LK_CVT_F32_TO_BF16,   /* cvt.{rn,rz,rm,rp}{.relu}{.satfinite}.bf16{x2}.f32 */
	PTX_LK_CVT_BF16_TO_F32,   /* cvt.f32.bf16, cvt.f64.bf16 */
	PTX_LK_CVT_BF16_F16,      /* cvt.bf16.f16, cvt.f16.bf16 */
	PTX_LK_CVT_BF16_F64,      /* cvt.bf16.f64 */
	PTX_LK_CVT_INT_TO_BF16,   /* cvt.bf16.{s,u}{16,32,64} */
	PTX_LK_CVT_BF16_TO_INT,   /* cvt.{rni,rzi,rmi,rpi}.{s,u}{16,32,64}.bf16 */
	PTX_LK_CVT_BF16_ROUND,    /* cvt.{rni,...}.bf16.bf16 */
	PTX_LK_FMA,               /* fma.rn{.relu}.bf16{x2} */
	PTX_LK_ADD_SUB_MUL,       /* add/sub/mul{.rn}.bf16{x2} */
	PTX_LK_MIN_MAX,           /* min/max{.NaN}{.xorsign.abs}.bf16{x2} */
	PTX_LK_NEG_ABS,           /* neg/abs.bf16{x2} */
	PTX_LK_COMPARE,           /* setp/set with .bf16{x2} sources */
	PTX_LK_APPROX,            /* ex2.approx.ftz / tanh.approx .bf16{x2} */
	PTX_LK_MMA,               /* mma.sync m16n8k{4,8,16} .bf16/.tf32/.f16, mma.sp */
	PTX_LK_WMMA,              /* wmma.load/store/mma of a function with .bf16 wmma */
	PTX_LK_LDMATRIX,          /* ldmatrix, movmatrix */
	PTX_LK_CP_ASYNC,          /* cp.async, cp.async.commit_group/wait_group/wait_all */
	PTX_LK_MBARRIER,          /* mbarrier.*, cp.async.mbarrier.arrive */
	PTX_LK_REDUX,             /* redux.sync */
	PTX_LK_ATOM,              /* atom/red .bf16{x2}, atom.cas.b16 */
	PTX_LK_HINT,              /* .L2:: and .L1:: qualifiers, createpolicy, applypriority, discard */
	PTX_LK_CVT_SM80,          /* cvt.f16x2.f32, cvt.rna.tf32.f32 */
	PTX_LK_SREG,              /* the cluster special registers, %aggr_smem_size */
	PTX_LK_FLOAT,             /* min/max .NaN/.f16, tanh/ex2 .approx, griddepcontrol,
				     fence.proxy */
	PTX_LK_MEMORY,            /* .relaxed/.acquire/.release accesses and fences (sm_70) */
	PTX_LK_COUNT
};

struct ptx_lower_issue {
	unsigned line;            /* 1-based line of the instruction's first character */
	int need_sm;              /* the architecture it needs (at least; 80 for unknown bf16) */
	char what[96];            /* the opcode with its modifiers, e.g. "mma.sync.aligned...bf16" */
	const char *why;          /* static text: "no lowering for this instruction", ... */
};

struct ptx_lower_report {
	unsigned lowered;                      /* instructions rewritten */
	unsigned by_kind[PTX_LK_COUNT];
	unsigned n_issues;                     /* instructions left that need > target */
	unsigned n_listed;                     /* of them in issues[] */
	struct ptx_lower_issue issues[PTX_LOWER_MAX_ISSUES];
	int target_from, target_to;            /* sm numbers of the first .target; 0 if none */
	int version_from, version_to;          /* the .version, 10*major+minor; 0 if none */
	int changed;                           /* output differs from input */
};

/* Lowers PTX text for target_sm (e.g. 75; 50 <= target_sm <= 1000).  On success (OK or
 * PARTIAL) *out is a malloc'd buffer of *out_len bytes plus a terminating NUL that the
 * caller frees; rep (may be NULL) says what happened.  On error *out is NULL. */
int ptx_lower(const char *in, size_t len, int target_sm, char **out, size_t *out_len,
	      struct ptx_lower_report *rep);

/* The one decision (decide.c), asked by every way PTX reaches a GPU: the architecture PTX
 * for ptx_target (a fatbin entry's) is lowered for on a GPU of device_sm, 0 when the
 * driver compiles it as it is.  For text, the same from its .target, and also when it holds
 * instructions its own .target lacks (then lowered for that .target). */
int ptx_lower_for(int ptx_target, int device_sm);
int ptx_text_lower_for(const char *text, size_t len, int device_sm);
/* A text's ".target sm_XY" (XY; *suffix 'a', 'f' or 0) and ".version X.Y" (10X+Y); 0 when
 * it has none. */
int ptx_text_target(const char *text, size_t len, int *suffix);
int ptx_text_version(const char *text, size_t len);
/* The ISA table's word on a whole text for sm_<sm>, under the .version it declares: the
 * line of the first statement the target cannot take (*need says what it needs, *at where
 * the statement starts; either may be NULL), or 0 when it takes them all.  What `bf16shim
 * scan --deep` holds every lowered module against. */
struct ptx_isa_need;
unsigned ptx_text_refused(const char *text, size_t len, int sm, struct ptx_isa_need *need,
			  size_t *at);

/* The same, listing only the first issue of each function (n_issues still counts them
 * all): what leaving functions out of a module needs (lower_module.c). */
int ptx_lower_by_function(const char *in, size_t len, int target_sm, char **out,
			  size_t *out_len, struct ptx_lower_report *rep);

const char *ptx_lower_kind_name(int kind);
const char *ptx_lower_status_name(int status);

#ifdef __cplusplus
}
#endif
#endif
