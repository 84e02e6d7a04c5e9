/* archreq.c: which instructions need which architecture and PTX ISA version.
 *
 * One table; every row that matches an instruction and is not satisfied by
 * min(.target, device sm) (or by the module's .version) fails the load with ptxas's
 * wording:  Feature '.bf16' requires .target sm_80 or higher
 * (all of them, in ptxas's order).
 * Rows are checked before the interpreter decides whether it implements an instruction,
 * so e.g. mma with bf16 on sm_75 is refused the way ptxas refuses it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

/* Type classes usable where a row names a type. */
enum { TC_INT = 200, TC_F16, TC_BF16, TC_F16ISH, TC_WMMA_FP, TC_WMMA_INT, TC_ALT, TC_SUB4,
       TC_FP8 };

typedef struct arch_row {
	const uint16_t *ops;      /* 0-terminated opcode list; NULL: any instruction */
	uint8_t t0, t1;           /* first / second type of the opcode (0: any) */
	uint8_t anytype;          /* a type that must appear somewhere (0: none needed) */
	uint16_t word, noword;    /* a modifier that must / must not appear */
	uint8_t sm, ptx;          /* needs sm_<sm> and PTX ISA <ptx/10>.<ptx%10> */
	uint8_t kind;             /* how ptxas words it; K_REMOVED: gone from sm/ptx on */
	const char *feature;      /* %o: opcode, %0/%1: the types, %S: .global/.shared */
	const char *cite;
	uint8_t rank;             /* 0: sorted by feature name; 1, 2, ...: after them, in rank order */
} arch_row;

/* How ptxas words a row: the noun when the target is too old, when the PTX ISA is, whether
 * the PTX ISA message comes first, and whether the target is named without "sm_". */
enum { K_FEATURE, K_INSTRUCTION, K_MODIFIER, K_REMOVED, K_MODFEAT, K_FEATVER, K_MODVER,
       K_INSN_BARE, K_INSNFEAT };
static const struct {
	const char *noun, *ver_noun;
	uint8_t ver_first, bare;
} kinds[] = {
	[K_FEATURE] = { "Feature", "Feature", 0, 0 },
	[K_INSTRUCTION] = { "Instruction", "Instruction", 0, 0 },
	[K_MODIFIER] = { "Modifier", "Modifier", 0, 0 },
	[K_REMOVED] = { "", "", 0, 0 },
	[K_MODFEAT] = { "Modifier", "Feature", 1, 0 },
	[K_FEATVER] = { "Feature", "Feature", 1, 0 },
	[K_MODVER] = { "Modifier", "Modifier", 1, 0 },
	[K_INSN_BARE] = { "Instruction", "Instruction", 0, 1 },
	[K_INSNFEAT] = { "Instruction", "Feature", 0, 0 },
};

#define OPS(...) ((const uint16_t[]){ __VA_ARGS__, 0 })

static const arch_row rows[] = {
	/* bf16 storage and conversions: sm_80 (doc/facts.md; PTX ISA 9.7.4, 9.7.9.21) */
	{ NULL, 0, 0, T_bf16, 0, 0, 80, 70, 0, ".bf16", "PTX ISA 9.7.4 bf16; doc/facts.md", 0 },
	{ NULL, 0, 0, T_bf16x2, 0, 0, 75, 70, 0, ".bf16x2",
	  "ptxas 12.9 and 13.0: any .bf16x2 below sm_75 is named so first, then as sm_80", 0 },
	{ NULL, 0, 0, T_bf16x2, 0, 0, 80, 70, 0, ".bf16x2", "PTX ISA 9.7.4 bf16x2; doc/facts.md", 0 },
	{ OPS(OP_cvt), T_f32, T_bf16, 0, 0, 0, 80, 71, 0, "cvt with .f32.bf16",
	  "PTX ISA 9.7.9.21 cvt: cvt.f32.bf16 sm_80, PTX 7.1; doc/facts.md", 0 },
	{ OPS(OP_cvt), T_bf16, T_f32, 0, 0, 0, 80, 70, 0, "cvt.bf16.f32",
	  "PTX ISA 9.7.9.21 cvt; doc/facts.md", 0 },
	{ OPS(OP_cvt), T_bf16x2, T_f32, 0, 0, 0, 80, 70, 0, "cvt.bf16x2.f32",
	  "PTX ISA 9.7.9.21 cvt", 0 },
	/* bf16 <-> int/f16/f64/bf16 conversions: sm_90, PTX 7.8 (doc/facts.md) */
	{ OPS(OP_cvt), T_bf16, TC_INT, 0, 0, 0, 90, 78, 0, "cvt with .%0.%1",
	  "PTX ISA 9.7.9.21 cvt; doc/facts.md", 0 },
	{ OPS(OP_cvt), TC_INT, T_bf16, 0, 0, 0, 90, 78, 0, "cvt with .%0.%1",
	  "PTX ISA 9.7.9.21 cvt; doc/facts.md", 0 },
	{ OPS(OP_cvt), T_bf16, T_f16, 0, 0, 0, 90, 78, 0, "cvt with .%0.%1", "doc/facts.md", 0 },
	{ OPS(OP_cvt), T_f16, T_bf16, 0, 0, 0, 90, 78, 0, "cvt with .%0.%1", "doc/facts.md", 0 },
	{ OPS(OP_cvt), T_bf16, T_f64, 0, 0, 0, 90, 78, 0, "cvt with .%0.%1", "PTX ISA 9.7.9.21", 0 },
	{ OPS(OP_cvt), T_f64, T_bf16, 0, 0, 0, 90, 78, 0, "cvt with .%0.%1", "PTX ISA 9.7.9.21", 0 },
	{ OPS(OP_cvt), T_bf16, T_bf16, 0, 0, 0, 90, 78, 0, "cvt with .%0.%1", "PTX ISA 9.7.9.21", 0 },
	/* bf16 arithmetic: add/sub/mul and compares sm_90; fma/min/max/neg/abs sm_80 */
	{ OPS(OP_add, OP_sub, OP_mul), 0, 0, TC_BF16, 0, 0, 90, 78, 0, "%o.bf16",
	  "PTX ISA 9.7.4.1-3; doc/facts.md", 0 },
	{ OPS(OP_setp, OP_set), 0, 0, T_bf16x2, 0, 0, 90, 78, 0, "%o.bf16x2", "PTX ISA 9.7.7.1-2", 0 },
	{ OPS(OP_setp, OP_set), 0, 0, T_bf16, 0, 0, 90, 78, 0, "%o.bf16", "PTX ISA 9.7.7.1-2", 0 },
	{ OPS(OP_ex2, OP_tanh), 0, 0, TC_BF16, 0, 0, 90, 78, 0, "%o.bf16", "PTX ISA 9.7.4.10-11", 0 },
	/* f16: arithmetic sm_53 (ptxas's spelling), min/max sm_80, ex2/tanh sm_75 */
	{ OPS(OP_add, OP_sub, OP_mul, OP_fma, OP_neg, OP_abs, OP_setp, OP_set), 0, 0, TC_F16, 0,
	  0, 53, 42, 0, "f16 arithemetic and compare instructions", "PTX ISA 9.7.4", 0 },
	{ OPS(OP_min, OP_max), 0, 0, TC_F16, 0, 0, 80, 70, 0, "%o.f16 or %o.f16x2",
	  "PTX ISA 9.7.4.7-8", 0 },
	{ OPS(OP_ex2), 0, 0, TC_F16, 0, 0, 75, 70, 0, "ex2.f16/f16x2", "PTX ISA 9.7.4.10", 0 },
	{ OPS(OP_tanh), 0, 0, TC_F16, 0, 0, 75, 70, 0, "tanh", "PTX ISA 9.7.4.11", 0 },
	{ OPS(OP_fma), 0, 0, TC_F16ISH, W_relu, 0, 80, 70, K_MODFEAT, ".relu", "PTX ISA 9.7.4.4", 0 },
	{ OPS(OP_cvt), T_f16x2, T_f32, 0, 0, 0, 80, 70, 0, "cvt.f16x2.f32", "PTX ISA 9.7.9.21", 0 },
	{ OPS(OP_cvt), 0, 0, 0, W_relu, 0, 80, 70, K_MODIFIER, ".relu", "PTX ISA 9.7.9.21", 0 },
	{ OPS(OP_cvt), 0, 0, 0, W_satfinite, 0, 20, 81, K_MODIFIER,
	  ".satfinite' on 'cvt.%0.%1", "PTX ISA 9.7.9.21", 0 },
	{ OPS(OP_cvt, OP_mma, OP_wmma), 0, 0, T_tf32, 0, 0, 80, 70, 0, ".tf32",
	  "PTX ISA 9.7.9.21, 9.7.14.4-5; ptxas 13.0", 0 },
	{ OPS(OP_cvt), T_tf32, T_f32, 0, W_rn, 0, 90, 78, 0, "cvt with .tf32.f32.rn",
	  "PTX ISA 9.7.9.21", 0 },
	{ OPS(OP_cvt), T_tf32, T_f32, 0, W_rz, 0, 90, 78, 0, "cvt with .tf32.f32.rz",
	  "PTX ISA 9.7.9.21", 0 },
	{ OPS(OP_mma, OP_wmma), 0, 0, T_s4, 0, 0, 75, 63, 0, ".s4", "PTX ISA 9.7.14; ptxas 13.0", 0 },
	{ OPS(OP_mma, OP_wmma), 0, 0, T_u4, 0, 0, 75, 63, 0, ".u4", "PTX ISA 9.7.14; ptxas 13.0", 0 },
	{ OPS(OP_mma, OP_wmma), 0, 0, T_b1, 0, 0, 75, 63, 0, ".b1", "PTX ISA 9.7.14; ptxas 13.0", 0 },
	{ OPS(OP_cvt), 0, 0, T_e4m3x2, 0, 0, 90, 78, 0, "cvt with .e4m3x2/.e5m2x2",
	  "PTX ISA 9.7.9.21; doc/facts.md (FP8 needs sm_89)", 0 },
	{ OPS(OP_cvt), 0, 0, T_e5m2x2, 0, 0, 90, 78, 0, "cvt with .e4m3x2/.e5m2x2",
	  "PTX ISA 9.7.9.21; doc/facts.md (FP8 needs sm_89)", 0 },
	/* f32 */
	{ OPS(OP_tanh), 0, 0, T_f32, 0, 0, 75, 70, 0, "tanh", "PTX ISA 9.7.3.22", 0 },
	{ OPS(OP_min, OP_max), 0, 0, 0, W_NaN, 0, 80, 70, K_MODFEAT, ".NaN",
	  "PTX ISA 9.7.3.11-12", 0 },
	/* .xorsign.abs (f32, f16, bf16 and packed): sm_86, PTX 7.2 */
	{ OPS(OP_min, OP_max), 0, 0, 0, W_abs, 0, 86, 72, 0, ".abs",
	  "PTX ISA 9.7.3.11-12, 9.7.4.7-8", 0 },
	{ OPS(OP_min, OP_max), 0, 0, 0, W_xorsign, 0, 86, 72, K_MODFEAT, ".xorsign",
	  "PTX ISA 9.7.3.11-12, 9.7.4.7-8", 0 },
	/* warp-synchronous instructions */
	{ OPS(OP_shfl, OP_vote), 0, 0, 0, W_sync, 0, 30, 60, 0, "%o.sync", "PTX ISA 9.7.8.6-7", 0 },
	{ OPS(OP_shfl, OP_vote), 0, 0, 0, 0, W_sync, 70, 64, K_REMOVED,
	  "Instruction '%o' without '.sync' is not supported on .target sm_70 and higher "
	  "from PTX ISA version 6.4", "PTX ISA 9.7.8.6-7", 0 },
	{ OPS(OP_bar), 0, 0, 0, W_warp, 0, 30, 60, 0, "bar.warp.sync", "PTX ISA 9.7.13.5", 0 },
	{ OPS(OP_barrier), 0, 0, 0, 0, 0, 30, 60, 0, "barrier", "PTX ISA 9.7.13.4", 0 },
	{ OPS(OP_match), 0, 0, 0, 0, 0, 70, 60, K_INSTRUCTION, "match", "PTX ISA 9.7.13.8", 0 },
	{ OPS(OP_activemask), 0, 0, 0, 0, 0, 30, 62, 0, "activemask", "PTX ISA 9.7.13.9", 0 },
	{ OPS(OP_redux), 0, 0, 0, 0, 0, 80, 70, 0, "redux", "PTX ISA 9.7.13.10", 0 },
	{ OPS(OP_elect), 0, 0, 0, 0, 0, 90, 80, 0, "elect", "PTX ISA 9.7.13.11", 0 },
	/* atomics */
	{ OPS(OP_atom, OP_red), T_f64, 0, 0, W_add, 0, 60, 50, K_INSTRUCTION, "%o.add.f64%S",
	  "PTX ISA 9.7.13.5 atom: .add.f64 sm_60", 0 },
	{ OPS(OP_atom, OP_red), 0, 0, 0, W_cta, 0, 60, 50, 0, "scopes on atomic operations",
	  "PTX ISA 9.7.13.5 atom: scopes sm_60", 0 },
	{ OPS(OP_atom, OP_red), 0, 0, 0, W_sys, 0, 60, 50, 0, "scopes on atomic operations",
	  "PTX ISA 9.7.13.5 atom: scopes sm_60", 0 },
	{ OPS(OP_atom, OP_red), 0, 0, T_f16x2, 0, 0, 60, 62, K_INSTRUCTION, "%o.add.f16x2%S",
	  "PTX ISA 9.7.13.5", 0 },
	{ OPS(OP_atom, OP_red), 0, 0, T_f16, 0, 0, 70, 63, K_INSTRUCTION, "%o.add.f16%S",
	  "PTX ISA 9.7.13.5", 0 },
	{ OPS(OP_atom, OP_red), 0, 0, TC_BF16, 0, 0, 90, 78, K_INSTRUCTION, "%o.add.bf16%S",
	  "PTX ISA 9.7.13.5", 0 },
	{ OPS(OP_atom), 0, 0, T_b16, W_cas, 0, 70, 63, 0, "atom.cas.b16", "PTX ISA 9.7.13.5", 0 },
	/* miscellaneous */
	{ OPS(OP_fence), 0, 0, 0, 0, 0, 70, 60, 0, "fence instruction", "PTX ISA 9.7.13.4", 0 },
	{ OPS(OP_fence), 0, 0, 0, W_alias, 0, 70, 75, K_MODIFIER, ".alias", "PTX ISA 9.7.13.4", 0 },
	{ OPS(OP_fence), 0, 0, 0, W_proxy, 0, 70, 75, 0, "fence.proxy", "PTX ISA 9.7.13.4", 0 },
	{ OPS(OP_fence), 0, 0, 0, W_async, 0, 90, 80, K_MODIFIER, ".async", "PTX ISA 9.7.13.4", 0 },
	/* The ISA says PTX ISA 6.3; ptxas 12.4 takes 6.2 ("Feature 'nanosleep' requires PTX
	 * ISA .version 6.2 or later"), as lowered code for sm_70 may declare. */
	{ OPS(OP_nanosleep), 0, 0, 0, 0, 0, 70, 62, K_INSNFEAT, "nanosleep",
	  "PTX ISA 9.7.19.4; ptxas 12.4", 0 },
	{ OPS(OP_griddepcontrol), 0, 0, 0, W_wait, 0, 90, 78, K_MODIFIER, ".wait",
	  "PTX ISA 9.7.15", 0 },
	{ OPS(OP_griddepcontrol), 0, 0, 0, W_launch_dependents, 0, 90, 78, K_MODIFIER,
	  ".launch_dependents", "PTX ISA 9.7.15", 0 },
	{ OPS(OP_griddepcontrol), 0, 0, 0, 0, 0, 90, 78, K_INSTRUCTION, "griddepcontrol",
	  "PTX ISA 9.7.15", 0 },
	{ OPS(OP_lop3), 0, 0, 0, 0, 0, 50, 43, 0, "lop3", "PTX ISA 9.7.8.6", 0 },
	{ OPS(OP_dp4a, OP_dp2a), 0, 0, 0, 0, 0, 61, 50, K_INSTRUCTION, "%o", "PTX ISA 9.7.1.23", 0 },
	{ OPS(OP_shf), 0, 0, 0, 0, 0, 32, 31, 0, "shf", "PTX ISA 9.7.8.8", 0 },
	/* cache qualifiers and policies (PTX ISA 9.7.9.8-9 ld/st, 9.7.9.15-18; ptxas 13.0) */
	{ OPS(OP_ld, OP_ldu, OP_st, OP_atom, OP_red), 0, 0, 0, W_cache_hint, 0, 80, 74, K_MODIFIER,
	  ".L2::cache_hint", "PTX ISA 9.7.9.8 ld, 9.7.9.10 st, 9.7.13.5 atom", 0 },
	{ OPS(OP_ld, OP_ldu), 0, 0, 0, W_cachehint, 0, 75, 74, 0, "cache prefetching",
	  "PTX ISA 9.7.9.8 ld: .level::prefetch_size sm_75", 0 },
	{ OPS(OP_prefetch), 0, 0, 0, W_evict, 0, 80, 74, K_MODIFIER,
	  "cache eviction priority' on 'prefetch", "PTX ISA 9.7.9.15 prefetch", 0 },
	{ OPS(OP_createpolicy), 0, 0, 0, W_fractional, 0, 80, 74, 0, "createpolicy.fractional",
	  "PTX ISA 9.7.9.18 createpolicy", 0 },
	{ OPS(OP_createpolicy), 0, 0, 0, W_range, 0, 80, 74, 0, "createpolicy.range",
	  "PTX ISA 9.7.9.18 createpolicy", 0 },
	{ OPS(OP_createpolicy), 0, 0, 0, W_cvt, 0, 80, 74, 0, "createpolicy.cvt",
	  "PTX ISA 9.7.9.18 createpolicy", 0 },
	{ OPS(OP_applypriority), 0, 0, 0, 0, 0, 80, 74, 0, "applypriority",
	  "PTX ISA 9.7.9.16 applypriority", 0 },
	{ OPS(OP_discard), 0, 0, 0, 0, 0, 80, 74, 0, "discard", "PTX ISA 9.7.9.17 discard", 0 },
	/* mma (PTX ISA 9.7.14.5.14, Target and PTX ISA notes; wording and order: ptxas 13.0):
	 * 'mma' first, then the shape, each PTX ISA before target; atype is type 1. */
	{ OPS(OP_mma), 0, 0, 0, 0, 0, 70, 64, K_FEATVER, "mma", "PTX ISA 9.7.14.5.14", 1 },
	{ OPS(OP_mma), 0, T_f16, 0, W_m8n8k4, 0, 70, 64, K_FEATVER, ".m8n8k4", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, T_f64, 0, W_m8n8k4, 0, 80, 70, K_FEATVER, ".m8n8k4 with double types",
	  "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, T_f16, 0, W_m16n8k8, 0, 75, 65, K_FEATVER, ".m16n8k8", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, TC_ALT, 0, W_m16n8k8, 0, 80, 70, K_FEATVER, ".m16n8k8", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, TC_ALT, 0, W_m16n8k4, 0, 80, 70, K_FEATVER, ".m16n8k4", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, T_f64, 0, W_m16n8k4, 0, 90, 78, K_FEATVER, ".m16n8k4 with double types",
	  "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, T_f64, 0, W_m16n8k8, 0, 90, 78, K_FEATVER, ".m16n8k8 with double types",
	  "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, T_f64, 0, W_m16n8k16, 0, 90, 78, K_FEATVER,
	  ".m16n8k16 with double types", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, 0, 0, W_m16n8k16, 0, 80, 70, K_FEATVER, ".m16n8k16", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, 0, 0, W_m16n8k32, 0, 80, 70, K_FEATVER, ".m16n8k32", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, 0, 0, W_m16n8k64, 0, 80, 70, K_FEATVER, ".m16n8k64", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, 0, 0, W_m16n8k128, 0, 80, 70, K_FEATVER, ".m16n8k128", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, 0, 0, W_m16n8k256, 0, 80, 70, K_FEATVER, ".m16n8k256", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, 0, 0, W_m8n8k16, 0, 75, 65, K_FEATVER, ".m8n8k16", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, 0, 0, W_m8n8k32, 0, 75, 65, K_FEATVER, ".m8n8k32", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, 0, 0, W_m8n8k128, 0, 75, 70, K_FEATVER, ".m8n8k128",
	  "ptxas 13.0 (the ISA says PTX 6.5)", 2 },
	{ OPS(OP_mma), 0, 0, TC_FP8, 0, 0, 89, 84, 0, "mma with FP8 floating point type",
	  "9.7.14.5.14", 1 },
	{ OPS(OP_mma), 0, 0, TC_FP8, W_m16n8k16, 0, 89, 87, 0,
	  "mma with FP8 floating point type and .m16n8k16 shape", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), T_f16, 0, TC_FP8, 0, 0, 89, 87, 0,
	  "mma with FP8 floating point type and FP16 accumulation", "9.7.14.5.14", 2 },
	{ OPS(OP_mma), 0, 0, 0, W_and, 0, 80, 71, K_MODVER, ".and' on 'mma", "9.7.14.5.14", 3 },
	{ OPS(OP_mma), 0, 0, 0, W_sp, 0, 80, 71, K_FEATVER, "Sparse MMA", "9.7.14.6.3", 1 },
	{ OPS(OP_mma), 0, 0, 0, W_ordered_metadata, 0, 80, 85, K_FEATVER, ".sp::ordered_metadata",
	  "9.7.14.6.3", 1 },
	/* wmma (9.7.14.4.3-5): the kind of type, .aligned (PTX 6.3), the shape, then wmma.mma */
	{ OPS(OP_wmma), 0, 0, 0, W_aligned, 0, 0, 60, 0, ".aligned", "ptxas 13.0", 0 },
	{ OPS(OP_wmma), 0, 0, TC_WMMA_FP, 0, 0, 70, 60, 0, "WMMA with floating point types",
	  "9.7.14.4.3", 1 },
	{ OPS(OP_wmma), 0, 0, TC_WMMA_INT, 0, 0, 72, 63, 0, "WMMA with integer types",
	  "9.7.14.4.3", 1 },
	{ OPS(OP_wmma), 0, 0, TC_SUB4, 0, 0, 75, 63, 0, "WMMA with sub-byte integer types",
	  "9.7.14.4.3", 1 },
	{ OPS(OP_wmma), 0, 0, T_b1, 0, 0, 75, 63, 0, "WMMA with bit types", "9.7.14.4.3", 1 },
	{ OPS(OP_wmma), 0, 0, TC_ALT, 0, 0, 80, 70, 0, "WMMA with .bf16/.tf32 FP types",
	  "9.7.14.4.3", 1 },
	{ OPS(OP_wmma), 0, 0, T_f64, 0, 0, 80, 70, 0, "WMMA with fp64 types", "9.7.14.4.3", 1 },
	{ OPS(OP_wmma), 0, 0, 0, W_aligned, 0, 0, 63, 0, ".aligned modifier for wmma",
	  "9.7.14.4.3", 2 },
	{ OPS(OP_wmma), 0, 0, 0, W_m16n16k16, 0, 70, 60, K_MODFEAT, ".m16n16k16", "9.7.14.4.3", 3 },
	{ OPS(OP_wmma), 0, 0, 0, W_m32n8k16, 0, 70, 61, K_MODFEAT, ".m32n8k16", "9.7.14.4.3", 3 },
	{ OPS(OP_wmma), 0, 0, 0, W_m8n32k16, 0, 70, 61, K_MODFEAT, ".m8n32k16", "9.7.14.4.3", 3 },
	{ OPS(OP_wmma), 0, 0, 0, W_m16n16k8, 0, 80, 70, K_MODFEAT, ".m16n16k8", "9.7.14.4.3", 3 },
	{ OPS(OP_wmma), 0, 0, 0, W_m8n8k4, 0, 80, 70, K_MODFEAT, ".m8n8k4", "9.7.14.4.3", 3 },
	{ OPS(OP_wmma), 0, 0, 0, W_m8n8k32, 0, 75, 63, K_MODFEAT, ".m8n8k32", "9.7.14.4.3", 3 },
	{ OPS(OP_wmma), 0, 0, 0, W_m8n8k128, 0, 75, 63, K_MODFEAT, ".m8n8k128", "9.7.14.4.3", 3 },
	{ OPS(OP_wmma), 0, 0, 0, W_and, 0, 80, 71, K_MODVER, ".and' on 'wmma.mma", "9.7.14.4.5", 4 },
	{ OPS(OP_wmma), 0, 0, TC_ALT, W_mma, 0, 80, 0, K_INSN_BARE, "wmma.mma", "ptxas 13.0", 5 },
	/* ldmatrix, movmatrix, stmatrix (9.7.14.5.15-17) */
	{ OPS(OP_ldmatrix), 0, 0, 0, 0, 0, 75, 65, 0, "ldmatrix", "PTX ISA 9.7.14.5.15", 1 },
	{ OPS(OP_ldmatrix), 0, 0, 0, W_m8n8, 0, 75, 65, K_MODFEAT, ".m8n8", "9.7.14.5.15", 2 },
	{ OPS(OP_movmatrix), 0, 0, 0, 0, 0, 75, 78, 0, "movmatrix", "PTX ISA 9.7.14.5.17", 1 },
	{ OPS(OP_stmatrix), 0, 0, 0, 0, 0, 90, 78, 0, "stmatrix", "PTX ISA 9.7.14.5.16", 1 },
	/* cp.async (9.7.9.25.3) and mbarrier (9.7.13.15) */
	{ OPS(OP_cp), 0, 0, 0, W_ca, 0, 80, 70, 0, "cp.async", "PTX ISA 9.7.9.25.3.1", 1 },
	{ OPS(OP_cp), 0, 0, 0, W_cg, 0, 80, 70, 0, "cp.async", "PTX ISA 9.7.9.25.3.1", 1 },
	{ OPS(OP_cp), 0, 0, 0, W_cache_hint, 0, 0, 74, K_MODIFIER, ".L2::cache_hint",
	  "9.7.9.25.3.1", 2 },
	{ OPS(OP_cp), 0, 0, 0, W_cachehint, 0, 0, 74, 0, "cache prefetching", "9.7.9.25.3.1", 2 },
	{ OPS(OP_cp), 0, 0, 0, W_commit_group, 0, 80, 70, 0, "cp.async.commit_group",
	  "9.7.9.25.3.2", 1 },
	{ OPS(OP_cp), 0, 0, 0, W_wait_group, 0, 80, 70, 0, "cp.async.wait_group", "9.7.9.25.3.3",
	  1 },
	{ OPS(OP_cp), 0, 0, 0, W_wait_all, 0, 80, 70, 0, "cp.async.wait_all", "9.7.9.25.3.3", 1 },
	{ OPS(OP_cp), 0, 0, 0, W_mbarrier, 0, 80, 70, 0, "cp.async.mbarrier.arrive",
	  "9.7.13.15.14", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_init, 0, 80, 70, 0, "mbarrier.init", "9.7.13.15.9", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_inval, 0, 80, 70, 0, "mbarrier.inval", "9.7.13.15.10", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_arrive, W_expect_tx, 80, 70, 0, "mbarrier.arrive",
	  "9.7.13.15.13", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_arrive_drop, 0, 80, 70, 0, "mbarrier.arrive_drop",
	  "9.7.13.15.14", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_test_wait, W_parity, 80, 70, 0, "mbarrier.test_wait",
	  "9.7.13.15.16", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_parity, W_try_wait, 80, 71, 0, "mbarrier.test_wait.parity",
	  "9.7.13.15.16", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_try_wait, W_parity, 90, 78, 0, "mbarrier.try_wait",
	  "9.7.13.15.16", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_try_wait, 0, 90, 78, 0, "mbarrier.try_wait.parity",
	  "9.7.13.15.16", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_pending_count, 0, 80, 70, 0, "mbarrier.pending_count",
	  "9.7.13.15.17", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_expect_tx, W_arrive, 90, 80, K_FEATVER, "mbarrier.expect_tx",
	  "9.7.13.15.11", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_expect_tx, 0, 90, 80, K_FEATVER,
	  "mbarrier.arrive.expect_tx", "9.7.13.15.13", 1 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_release, 0, 0, 80, K_MODIFIER, ".release' on 'mbarrier.%w",
	  "9.7.13.15.13", 2 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_acquire, 0, 0, 80, K_MODIFIER, ".acquire' on 'mbarrier.%w",
	  "9.7.13.15.16", 2 },
	{ OPS(OP_mbarrier), 0, 0, 0, W_cta, 0, 0, 80, 0, "scopes on mbarrier operations",
	  "9.7.13.15", 3 },
};

static int type_is(int t, int want)
{
	switch (want) {
	case 0: return 1;
	case TC_INT: return ptx__type_int(t);
	case TC_F16: return t == T_f16 || t == T_f16x2;
	case TC_BF16: return t == T_bf16 || t == T_bf16x2;
	case TC_F16ISH: return ptx__type_half(t);
	case TC_WMMA_FP: return t == T_f16 || t == T_f32;
	case TC_WMMA_INT: return t == T_s8 || t == T_u8 || t == T_s32;
	case TC_ALT: return t == T_bf16 || t == T_tf32;
	case TC_SUB4: return t == T_s4 || t == T_u4;
	case TC_FP8: return t == T_e4m3 || t == T_e5m2;
	default: return t == want;
	}
}

static int has_word(const pmods *m, int w)
{
	for (int i = 0; i < m->nwords; i++)
		if (m->words[i] == w)
			return 1;
	return 0;
}

static int matches(const arch_row *r, const pmods *m, int op)
{
	if (r->ops) {
		const uint16_t *o = r->ops;
		while (*o && *o != op)
			o++;
		if (!*o)
			return 0;
	}
	if (r->t0 && (m->ntypes < 1 || !type_is(m->types[0], r->t0)))
		return 0;
	if (r->t1 && (m->ntypes < 2 || !type_is(m->types[1], r->t1)))
		return 0;
	if (r->anytype) {
		int any = 0;
		for (int i = 0; i < m->ntypes; i++)
			any |= type_is(m->types[i], r->anytype);
		if (!any)
			return 0;
	}
	if (r->word && !has_word(m, r->word))
		return 0;
	if (r->noword && has_word(m, r->noword))
		return 0;
	return 1;
}

static void feature(char *out, size_t n, const char *fmt, const pmods *m, int op,
		    const char *text)
{
	size_t k = 0;
	char sub[64];
	/* %w: the opcode's first modifier ("arrive" of mbarrier.arrive.release...) */
	const char *dot = strchr(text, '.');
	snprintf(sub, sizeof(sub), "%.*s", dot ? (int)strcspn(dot + 1, ".") : 0, dot ? dot + 1 : "");
	for (const char *p = fmt; *p && k + 1 < n; p++) {
		const char *ins = NULL;
		if (p[0] == '%' && p[1] == 'o')
			ins = ptx__op_name(op);
		else if (p[0] == '%' && p[1] == 'w')
			ins = sub;
		else if (p[0] == '%' && (p[1] == '0' || p[1] == '1'))
			ins = m->ntypes > p[1] - '0' ? ptx__type_name(m->types[p[1] - '0']) : "?";
		else if (p[0] == '%' && p[1] == 'S')
			ins = has_word(m, W_global) ? ".global" : has_word(m, W_shared) ? ".shared" : "";
		if (ins) {
			p++;
			while (*ins && k + 1 < n)
				out[k++] = *ins++;
		} else {
			out[k++] = *p;
		}
	}
	out[k] = 0;
}

/* Appends one more line to the error text. */
static void append(pdec *D, const char *line)
{
	pparse *P = D->P;
	if (!P->err || !P->errlen)
		return;
	size_t n = strlen(P->err);
	if (n + 2 < P->errlen)
		snprintf(P->err + n, P->errlen - n, "\n%s", line);
}

typedef struct failure { char feature[200], msg[300]; int seq, rank; } failure;

/* ptxas's order: unranked rows by feature name, ignoring case, then the ranked ones of an
 * instruction family in rank order; its own order within one feature. */
static int by_feature(const void *a, const void *b)
{
	const failure *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	int c = x->rank ? 0 : strcasecmp(x->feature, y->feature);
	return c ? c : x->seq - y->seq;
}

/* Reports every requirement the instruction fails (target and PTX ISA separately) in
 * ptxas's order, then names the instruction itself. */
int ptx__arch_check(pdec *D, int op)
{
	const ptx_module *m = D->P->m;
	int sm = m->arch_sm, ver = m->ptx_version, n = 0;
	failure fl[16];
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && n + 2 <= 16; i++) {
		const arch_row *r = &rows[i];
		if (!matches(r, &D->mods, op))
			continue;
		char f[200];
		feature(f, sizeof(f), r->feature, &D->mods, op, D->text);
		int bad_sm = r->sm > sm, bad_ver = r->ptx > ver;
		if (r->kind == K_REMOVED) {
			if (!bad_sm && !bad_ver) {
				snprintf(fl[n].feature, sizeof(fl[n].feature), "%s", f);
				snprintf(fl[n].msg, sizeof(fl[n].msg), "%s", f);
				fl[n].seq = n;
				fl[n].rank = r->rank;
				n++;
			}
			continue;
		}
		for (int k = 0; k < 2; k++) {
			int ver_msg = (k == 0) == kinds[r->kind].ver_first;
			if (ver_msg ? !bad_ver : !bad_sm)
				continue;
			snprintf(fl[n].feature, sizeof(fl[n].feature), "%s", f);
			if (ver_msg)
				snprintf(fl[n].msg, sizeof(fl[n].msg),
					 "%s '%s' requires PTX ISA .version %d.%d or later",
					 kinds[r->kind].ver_noun, f, r->ptx / 10, r->ptx % 10);
			else
				snprintf(fl[n].msg, sizeof(fl[n].msg),
					 "%s '%s' requires .target %s%d or higher", kinds[r->kind].noun, f,
					 kinds[r->kind].bare ? "" : "sm_", r->sm);
			fl[n].seq = n;
			fl[n].rank = r->rank;
			n++;
		}
	}
	if (!n)
		return 0;
	qsort(fl, (size_t)n, sizeof(fl[0]), by_feature);
	dx_fail(D, PTX_EARCH, "%s", fl[0].msg);
	char line[400];
	for (int i = 1; i < n; i++) {
		snprintf(line, sizeof(line), "ptxas application ptx input, line %d; error   : %s",
			 D->line, fl[i].msg);
		append(D, line);
	}
	snprintf(line, sizeof(line), "ptxas info    : instruction '%s' at line %d needs "
		 "a newer target", D->text, D->line);
	append(D, line);
	return -1;
}

/* Special registers that need a newer target or PTX ISA (PTX ISA chapter 10; ptxas 13.0
 * names each as a feature by its register, without its component: "%clusterid").  The
 * rest need nothing the oldest target here lacks. */
static const struct {
	int first, last;          /* enum psreg */
	uint8_t sm, ptx;
	const char *name;
} sreg_rows[] = {
	{ SR_reserved_smem_offset_begin, SR_reserved_smem_offset_begin, 80, 76, "%reserved_smem_offset_begin" },
	{ SR_reserved_smem_offset_end, SR_reserved_smem_offset_end, 80, 76, "%reserved_smem_offset_end" },
	{ SR_reserved_smem_offset_cap, SR_reserved_smem_offset_cap, 80, 76, "%reserved_smem_offset_cap" },
	{ SR_reserved_smem_offset_0, SR_reserved_smem_offset_0, 80, 76, "%reserved_smem_offset_0" },
	{ SR_reserved_smem_offset_1, SR_reserved_smem_offset_1, 80, 76, "%reserved_smem_offset_1" },
	{ SR_is_explicit_cluster, SR_is_explicit_cluster, 90, 78, "%is_explicit_cluster" },
	{ SR_clusterid_x, SR_clusterid_z, 90, 78, "%clusterid" },
	{ SR_nclusterid_x, SR_nclusterid_z, 90, 78, "%nclusterid" },
	{ SR_cluster_ctaid_x, SR_cluster_ctaid_z, 90, 78, "%cluster_ctaid" },
	{ SR_cluster_nctaid_x, SR_cluster_nctaid_z, 90, 78, "%cluster_nctaid" },
	{ SR_cluster_ctarank, SR_cluster_ctarank, 90, 78, "%cluster_ctarank" },
	{ SR_cluster_nctarank, SR_cluster_nctarank, 90, 78, "%cluster_nctarank" },
	{ SR_aggr_smem_size, SR_aggr_smem_size, 90, 81, "%aggr_smem_size" },
	{ SR_current_graph_exec, SR_current_graph_exec, 50, 80, "%current_graph_exec" },
};

int ptx__sreg_check(pdec *D, int sreg)
{
	const ptx_module *m = D->P->m;

	for (size_t i = 0; i < sizeof(sreg_rows) / sizeof(sreg_rows[0]); i++) {
		if (sreg < sreg_rows[i].first || sreg > sreg_rows[i].last)
			continue;
		if (sreg_rows[i].ptx > m->ptx_version) {
			dx_fail(D, PTX_EARCH, "Feature '%s' requires PTX ISA .version %d.%d or later",
				sreg_rows[i].name, sreg_rows[i].ptx / 10, sreg_rows[i].ptx % 10);
			return -1;
		}
		if (sreg_rows[i].sm > m->arch_sm) {
			dx_fail(D, PTX_EARCH, "Feature '%s' requires .target sm_%d or higher",
				sreg_rows[i].name, sreg_rows[i].sm);
			return -1;
		}
	}
	return 0;
}
