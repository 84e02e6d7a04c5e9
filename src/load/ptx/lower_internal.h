/* lower_internal.h: the pieces of the lowering pass: the statement scanner, the instruction
 * parser, the rule table, and the small instruction list (IR) that a rule builds and that
 * the printer turns into PTX text.  The tests evaluate the same IR, so what they check is
 * exactly what the pass prints. */
#ifndef BF16SHIM_PTX_LOWER_INTERNAL_H
#define BF16SHIM_PTX_LOWER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "lex.h"
#include "lower.h"

/* ---- scan.c: PTX text -> statements ---- */
enum { ST_INSN, ST_DIRECTIVE, ST_LABEL, ST_OPEN, ST_CLOSE, ST_OTHER };

typedef struct ptx_stmt {
	size_t start, end;      /* [start, end) in the text; an instruction's end is after ';' */
	unsigned line;          /* line of start, 1-based */
	int kind;
} ptx_stmt;

void ptxl_statements_init(ptx_cursor *S, const char *s, size_t n);
int ptxl_next_statement(ptx_cursor *S, ptx_stmt *st);     /* 1: *st is the next statement; 0: end of text */

/* ---- insn.c: one instruction statement -> guard, opcode words, operands ---- */
#define INSN_MAX_WORDS 16
#define INSN_MAX_OPS 8
#define INSN_MAX_TEXT 1024

typedef struct pinst {
	const char *guard;                  /* guard predicate name, NULL if none */
	int guard_neg;                      /* @!p */
	const char *word[INSN_MAX_WORDS];   /* opcode split at '.', word[0] is the base */
	int nwords;
	const char *op[INSN_MAX_OPS];       /* operands, trimmed, comments removed */
	int nops;
	char opcode[96];                    /* the opcode with modifiers, for messages */
	char comment[160];                  /* the statement on one line, for the output */
	char store[3 * INSN_MAX_TEXT];      /* backing store of the strings above */
	size_t used;
} pinst;

/* 0: parsed; -1: not an instruction or over the bounds above. */
int ptxl_insn_parse(pinst *I, const char *s, size_t n);

/* ---- opnd.c: register widths, vector and memory operands ---- */
enum { RW_PRED = 1, RW_16 = 16, RW_32 = 32, RW_64 = 64 };
#define REGTAB_MAX 256

typedef struct regdecl {
	char name[40];
	uint8_t len, param, width;   /* param: "%r<86>" declares %r0..%r85 */
} regdecl;

/* The registers the current function declares (nested blocks' too). */
typedef struct regtab {
	regdecl d[REGTAB_MAX];
	int n, overflow;
} regtab;

void ptxl_regs_reset(regtab *T);
void ptxl_regs_declare(regtab *T, const char *s, size_t n);   /* one ".reg ...;" */
int ptxl_reg_width(const regtab *T, const char *name);        /* RW_*, 0 if unknown */

int ptxl_vec_len(const char *op);              /* elements of "{a, b}", -1 if not a vector */
int ptxl_vec_elem(const char *op, int j, const char **s, size_t *len);

enum { AB_NONE, AB_REG, AB_SYM };
typedef struct paddr {
	char base[256];        /* register or variable; "" for an absolute address */
	int kind;              /* AB_* */
	long long off;
} paddr;
/* "[%rd4+16]", "[smem]", "[%r2+-8]", "[64]"; -1 if op is not a memory operand. */
int ptxl_addr_parse(const char *op, paddr *A);

/* ---- helpers.c: device functions the lowered text calls (one per form and module) ---- */
enum { HK_MMA, HK_WMMA, HK_MMA_SP };
enum { HP_A, HP_B, HP_C, HP_E, HP_D, HP_COUNT };   /* a helper's operands (e: mma.sp metadata) */

typedef struct hkey {
	uint8_t kind, target;
	uint8_t et, k, cf16, df16;   /* the product: element type, K, f16 C and D */
	uint8_t m, n, alay, blay;    /* wmma: shape and layouts of A and B */
	uint8_t sel;                 /* mma.sp: the sparsity selector */
} hkey;

#define HELPERS_MAX 64
typedef struct ptxl_helpers {
	hkey key[HELPERS_MAX];
	char name[HELPERS_MAX][64];
	int n;
	char prefix[16];             /* a function-name prefix no identifier of the input has */
} ptxl_helpers;

/* What a rewrite may know beyond its instruction. */
typedef struct lctx {
	int target;            /* the sm the output is for */
	const regtab *regs;    /* the enclosing function's registers */
	int wmma_explicit;     /* the function's wmma use the layout of emit_wmma.c */
	ptxl_helpers *helpers; /* the helpers the output calls so far */
} lctx;

/* ---- ir.c: the instruction list a rule builds, and its printer ---- */
enum { IA_NONE, IA_R, IA_H, IA_D, IA_P, IA_IMM, IA_OPND, IA_VEC, IA_OVEC, IA_TVEC, IA_MEM,
       IA_OMEM, IA_OBASE, IA_LABEL, IA_TEXT, IA_LIST };

/* One argument:
 *   IA_R/H/D/P  temporary i (.b32, .b16, .b64, .pred)
 *   IA_IMM      the immediate v
 *   IA_OPND     operand i: part 0 the whole operand, 1/2 the sides of "p|q", 3 without a
 *               leading '!' 
 *   IA_VEC      element `part` of the original's vector operand i ("{%f1, %f2}")
 *   IA_OVEC     "{...}": v elements of the original's vector operand i from element `part`
 *   IA_TVEC     "{t, t+1, ...}": v temporaries of kind `part` from number i
 *   IA_MEM      "[t+v]": temporary i of kind `part` (IA_R or IA_D) plus v (signed)
 *   IA_OMEM     the original's memory operand i with v (signed) added to its offset
 *   IA_OBASE    the register or variable of the original's memory operand i
 *   IA_LABEL    label v of the block
 *   IA_TEXT     the static string at v ("%laneid")
 *   IA_LIST     "{x, y, ...}" ("(x, y, ...)" for part 1): v registers of the block's list i
 *               (ptxl_ir_anylist) */
typedef struct iarg {
	uint8_t k;
	uint8_t part;
	uint16_t i;
	uint64_t v;
} iarg;

#define IR_MAX_INSNS 2048
#define IR_MAX_ARGS 6
#define IR_MAX_TEMPS 4000        /* per kind */
#define IR_MAX_LISTS 64
#define IR_LIST_LEN 24

typedef struct iinsn {
	char op[64];             /* mnemonic, e.g. "fma.rz.f32"; "" for a label */
	uint8_t guarded;         /* writes an operand of the original: carries its guard */
	uint8_t pneg;            /* the predicate below is negated */
	uint8_t nargs;
	iarg pred;               /* IA_P: the instruction's own predicate; IA_NONE: none */
	iarg a[IR_MAX_ARGS];
} iinsn;

typedef struct iseq {
	iinsn in[IR_MAX_INSNS];
	int n;
	int nr, nh, nd, np;      /* temporaries used: .b32, .b16, .b64, .pred */
	int nlabels;             /* labels made (a block with labels branches) */
	int npred;               /* instructions with a predicate of their own */
	int overflow;            /* a bound was hit: the sequence is unusable */
	iarg list[IR_MAX_LISTS][IR_LIST_LEN];   /* operand lists of any registers (IA_LIST) */
	int nlists;
} iseq;

void ptxl_ir_init(iseq *S);
iarg ptxl_ir_temp(iseq *S, int kind);
/* n consecutive temporaries of a kind: the first; ir_el() reaches the others. */
iarg ptxl_ir_temps(iseq *S, int kind, int n);

/* New temporaries (.b32, .b16, .b64, .pred), immediates and the original's operands. */
static inline iarg ir_r(iseq *S) { return ptxl_ir_temp(S, IA_R); }
static inline iarg ir_h(iseq *S) { return ptxl_ir_temp(S, IA_H); }
static inline iarg ir_d(iseq *S) { return ptxl_ir_temp(S, IA_D); }
static inline iarg ir_p(iseq *S) { return ptxl_ir_temp(S, IA_P); }
static inline iarg ir_imm(uint64_t v) { return (iarg){ IA_IMM, 0, 0, v }; }
static inline iarg ir_opnd(int i) { return (iarg){ IA_OPND, 0, (uint16_t)i, 0 }; }
/* One side of a "p|q" operand: part 1 is p, part 2 is q; part 3: "!p" without its '!'. */
static inline iarg ir_opnd_part(int i, int part)
{
	return (iarg){ IA_OPND, (uint8_t)part, (uint16_t)i, 0 };
}
/* Element j of the original's vector operand i. */
static inline iarg ir_vec(int i, int j) { return (iarg){ IA_VEC, (uint8_t)j, (uint16_t)i, 0 }; }
/* Temporary j of a run made by ptxl_ir_temps(). */
static inline iarg ir_el(iarg first, int j)
{
	first.i = (uint16_t)(first.i + j);
	return first;
}
/* n elements of a list of registers as one operand list "{...}" when they are consecutive
 * temporaries or consecutive elements of one of the original's operands; IA_NONE if not. */
iarg ptxl_ir_list(const iarg *regs, int n);
/* "{x, y, ...}" of any n registers (a register may repeat): a list of the block. */
iarg ptxl_ir_anylist(iseq *S, const iarg *regs, int n);
/* "{first, ..., first+n-1}" */
static inline iarg ir_tvec(iarg first, int n)
{
	return (iarg){ IA_TVEC, first.k, first.i, (uint64_t)n };
}
/* "[t+off]" for a temporary address t (.b32 or .b64). */
static inline iarg ir_mem(iarg t, int64_t off) { return (iarg){ IA_MEM, t.k, t.i, (uint64_t)off }; }
/* The original's memory operand i, off bytes further. */
static inline iarg ir_omem(int i, int64_t off) { return (iarg){ IA_OMEM, 0, (uint16_t)i, (uint64_t)off }; }
static inline iarg ir_obase(int i) { return (iarg){ IA_OBASE, 0, (uint16_t)i, 0 }; }
static inline iarg ir_text(const char *s) { return (iarg){ IA_TEXT, 0, 0, (uint64_t)(uintptr_t)s }; }
iarg ptxl_ir_label(iseq *S);                 /* a new label, placed by ptxl_ir_place() */
void ptxl_ir_place(iseq *S, iarg label);

void ptxl_ir_emit(iseq *S, int guarded, const char *op, const iarg *args, int nargs);
/* The last instruction emitted runs only where p is true (neg: false). */
void ptxl_ir_pred(iseq *S, iarg p, int neg);
#define IR_ARGS(...) (const iarg[]){ __VA_ARGS__ }, (int)(sizeof((iarg[]){ __VA_ARGS__ }) / sizeof(iarg))
#define E(S, op, ...) ptxl_ir_emit((S), 0, (op), IR_ARGS(__VA_ARGS__))
#define EG(S, op, ...) ptxl_ir_emit((S), 1, (op), IR_ARGS(__VA_ARGS__))
#define E0(S, op) ptxl_ir_emit((S), 0, (op), NULL, 0)
/* E and EG under a predicate of the block: @p (EP) or @!p (EN). */
#define EP(S, p, op, ...) (E(S, op, __VA_ARGS__), ptxl_ir_pred((S), (p), 0))
#define EN(S, p, op, ...) (E(S, op, __VA_ARGS__), ptxl_ir_pred((S), (p), 1))
#define EGP(S, p, op, ...) (EG(S, op, __VA_ARGS__), ptxl_ir_pred((S), (p), 0))

/* Appends the PTX block for S to out; prefix names the temporaries ("%bfl_") and lprefix
 * the labels ("$bfl_3_").  A block that branches, or whose predicated instructions write
 * the original's destinations, skips itself as a whole where the original's guard is
 * false.  Returns the number of bytes written, or 0 if it does not fit in cap. */
size_t ptxl_ir_print(const iseq *S, const pinst *I, const char *prefix, const char *lprefix,
		     char *out, size_t cap);

/* ---- rules.c: which instructions need lowering, and how ---- */
enum { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI,
       RND_OTHER };
enum { M_RELU = 1, M_SATF = 2, M_FTZ = 4, M_NAN = 8, M_XORSIGN = 16, M_ABS = 32,
       M_APPROX = 64, M_SAT = 128, M_OOB = 256, M_NOFTZ = 512 };
enum { TY_NONE, TY_BF16, TY_BF16X2, TY_F16, TY_F16X2, TY_F32, TY_F64, TY_S8, TY_S16,
       TY_S32, TY_S64, TY_U8, TY_U16, TY_U32, TY_U64, TY_B16, TY_B32, TY_B64, TY_PRED,
       TY_OTHER };

typedef struct pmods {
	int rnd;
	unsigned flags;
	int type[3];
	int ntypes;
	const char *cmp, *boolop;   /* setp/set: comparison and boolean words */
	const char *unknown;        /* first word we do not understand, NULL if none */
	const lctx *ctx;
} pmods;

typedef int (*build_fn)(iseq *S, const pinst *I, const pmods *M);

enum { MATCH_NONE, MATCH_LOWER, MATCH_ISSUE };

typedef struct pmatch {
	int need_sm;           /* the oldest architecture that runs the instruction as is */
	int kind;              /* enum ptx_lower_kind */
	build_fn build;
	pmods mods;
	const char *why;       /* MATCH_ISSUE */
} pmatch;

int ptxl_rule_match(const pinst *I, const lctx *ctx, pmatch *m);
/* rules_sm80.c: the Ampere families; -1 when I is none of them. */
int ptxl_match_sm80(const pinst *I, const lctx *ctx, pmatch *m);
/* Whether I's opcode starts with the words of spec ("cp.async"). */
int ptxl_words_prefix(const pinst *I, const char *spec);
const char *ptxl_rnd_word(int rnd);          /* "rn", "rzi", ... */
const char *ptxl_type_word(int ty);          /* "s32", ... */

/* ---- emit_common.c: building blocks of the rules ---- */
iarg ptxl_bf_widen(iseq *S, int opnd);                       /* bf16 operand -> f32 bits */
void ptxl_bf_split(iseq *S, int opnd, iarg *lo, iarg *hi);   /* bf16x2 operand -> two f32 bits */
iarg ptxl_f32_in(iseq *S, int opnd);                         /* f32 operand -> temporary */
iarg ptxl_bf_round(iseq *S, iarg x, int rnd, unsigned flags);/* f32 bits -> bf16 in bits 0..15 */
iarg ptxl_f32_or_sticky(iseq *S, iarg z, iarg inexact_pred); /* round to odd: z | inexact */
iarg ptxl_bf_pack(iseq *S, iarg lo, iarg hi);
void ptxl_bf_write16(iseq *S, int opnd, iarg r);             /* low 16 bits of r -> operand */
void ptxl_write32(iseq *S, int opnd, iarg r);
/* The address memory operand opnd ("[%rd4+16]") names, in a new temporary: a .b32 when
 * wide is 0 (a .shared address: the low 32 bits), a .b64 when 1.  -1 when the register's
 * width is unknown, or a variable's generic address would be needed. */
int ptxl_addr_temp(iseq *S, const pinst *I, const pmods *M, int opnd, int wide, iarg *out);

/* ---- emit_cvt.c and emit_arith.c: the rules' builders ---- */
int ptxl_build_cvt_from_f32(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_cvt_to_f32(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_cvt_to_f64(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_cvt_to_f16(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_cvt_from_f16(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_cvt_from_f64(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_cvt_from_int(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_cvt_to_int(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_cvt_round(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_fma(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_add_sub_mul(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_min_max(iseq *S, const pinst *I, const pmods *M);
/* min/max of f32 bits with the ISA's NaN, .NaN, .xorsign.abs and .ftz rules (emit_arith.c). */
iarg ptxl_minmax_f32(iseq *S, int is_min, iarg a, iarg b, unsigned flags);
int ptxl_build_neg_abs(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_setp(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_set(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_approx(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_cvt_f16x2(const pinst *I, const lctx *ctx);   /* rules_sm80.c's row */
int ptxl_build_cvt_f16x2(iseq *S, const pinst *I, const pmods *M);

/* ---- emit_mma.c, emit_wmma.c, emit_matrix.c, emit_async.c, emit_sync.c, emit_atom.c,
 * emit_hint.c: the Ampere families (rules_sm80.c) ---- */
int ptxl_build_mma(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_mma_sp(const pinst *I, const lctx *ctx);
int ptxl_build_mma_sp(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_ldmatrix(const pinst *I, const lctx *ctx);
int ptxl_build_ldmatrix(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_movmatrix(const pinst *I, const lctx *ctx);
int ptxl_build_movmatrix(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_cp_async(const pinst *I, const lctx *ctx);
int ptxl_build_cp_async(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_cp_async_group(const pinst *I, const lctx *ctx);
int ptxl_need_mbarrier(const pinst *I, const lctx *ctx);
int ptxl_build_mbarrier(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_nothing(iseq *S, const pinst *I, const pmods *M);   /* an empty block */
int ptxl_need_redux(const pinst *I, const lctx *ctx);
int ptxl_build_redux(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_atom(const pinst *I, const lctx *ctx);
int ptxl_build_atom(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_hint(const pinst *I, const lctx *ctx);
int ptxl_build_hint(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_minmax(const pinst *I, const lctx *ctx);   /* emit_float.c */
int ptxl_build_minmax(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_approx(const pinst *I, const lctx *ctx);
int ptxl_build_approx_f(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_griddep(const pinst *I, const lctx *ctx);
int ptxl_need_fence_proxy(const pinst *I, const lctx *ctx);
int ptxl_build_fence_proxy(iseq *S, const pinst *I, const pmods *M);
/* tanh of f32 bits for targets without tanh.approx.f32 (below sm_75). */
iarg ptxl_tanh_f32(iseq *S, iarg x);
int ptxl_need_mma_types(const pinst *I, const lctx *ctx);   /* emit_mma_types.c */
int ptxl_build_mma_types(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_memory(const pinst *I, const lctx *ctx);   /* emit_memory.c */
int ptxl_build_memory(iseq *S, const pinst *I, const pmods *M);
int ptxl_need_sreg(const pinst *I, const lctx *ctx);     /* emit_sreg.c */
int ptxl_build_sreg(iseq *S, const pinst *I, const pmods *M);
/* Per function of the text (in order): 1 if its wmma must use this pass's layout (it has
 * .bf16 wmma and target is below sm_80); returns the number of functions, -1 on ENOMEM. */
int ptxl_need_wmma(const pinst *I, const lctx *ctx);
int ptxl_build_wmma(iseq *S, const pinst *I, const pmods *M);
/* wmma's layout (emit_wmma.c): R row tiles of 16 rows (half: one of 8), Ct column tiles of
 * 8; the register of tile (T, C)'s accumulator element 2h + j. */
typedef struct wgeom { int R, Ct, half; } wgeom;
wgeom ptxl_wmma_geom(int m, int n);
int ptxl_wmma_dreg(const wgeom *G, int T, int C, int h, int j);
int ptxl_wmma_prescan(const char *in, size_t len, int target, uint8_t **flags);

/* ---- emit_mma.c: D = A * B + C of the m16n8 mma shapes ---- */
enum { ET_F16, ET_BF16, ET_TF32 };

/* One m16n8kK product on fragment registers (temporaries or the original's elements). */
typedef struct mfrag {
	int et, k;          /* element type of A and B; K: 4, 8 or 16 */
	int cf16, df16;     /* C / D are two f16x2 registers instead of four f32 */
	int half_rows;      /* only rows 0-7 exist (wmma m8n32k16): A's odd registers and C
			       elements 2-3 are zeros, D elements 2-3 are not written */
	int dguard;         /* D are the original's operands: their writes carry its guard */
	iarg a[4], b[2], c[4], d[4];
} mfrag;
int ptxl_mma_build(iseq *S, const mfrag *F, int target);

/* The f32 values of register x (two bf16/f16 halves, low first, or one tf32); C as f32
 * values; D from f32 values (rounded to f16 pairs for an f16 D). */
void ptxl_mma_unpack(iseq *S, int et, iarg x, iarg v[2]);
void ptxl_mma_load_c(iseq *S, const mfrag *F, iarg c[4]);
void ptxl_mma_store_d(iseq *S, const mfrag *F, const iarg *val);
/* The FMA path (emit_mma.c): every target, any element values. */
void ptxl_mma_fma(iseq *S, const mfrag *F);

/* ---- emit_mma_tc.c: D = A * B + C of f16 fragments (F->et == ET_F16, K 8 or 16) on the
 * tensor cores of target (sm_70 or sm_75) ---- */
void ptxl_tc_product(iseq *S, const mfrag *F, int target);

/* ---- emit_mma_exact.c: .bf16/.tf32 elements as f16 values that are exactly the same ---- */
#define XFRAG_MAX 32
#define XFRAG_SCALES 12
#define XFRAG_SIDE_B 4           /* scales 0..3: rows of A; from 4: columns of B */
/* The elements of a product's A and B fragments, each with the row of A or column of B it
 * belongs to (its scale). */
typedef struct xfrag {
	int n;
	iarg v[XFRAG_MAX];             /* f32 values */
	uint8_t scale[XFRAG_MAX];
	iarg h[XFRAG_MAX];             /* f16 values (b16 temporaries) */
	iarg x[XFRAG_SCALES];          /* per scale: the exponent that gives its alpha */
} xfrag;
/* Appends the elements of register reg (type et). */
void ptxl_xfrag_add(xfrag *X, iseq *S, int et, iarg reg, int scale);
/* What a product does with X: pack X->h into its f16 fragments; the products on the tensor
 * cores (sides 0: as they are; 1 or 3: A's rows (and B's columns) scaled: D = C +
 * factor P, ptxl_xfrag_factors); the FMA path. */
typedef struct xtiers {
	void (*pack)(iseq *S, const xfrag *X, void *ctx);
	void (*product)(iseq *S, const xfrag *X, void *ctx, int sides);
	void (*fallback)(iseq *S, void *ctx);
} xtiers;
/* The elements as they are, else scaled (A only when B's were exact), else the fallback. */
void ptxl_xfrag_tiers(iseq *S, xfrag *X, const xtiers *T, void *ctx);
/* For n elements of D (element i: column 2t + i % 2, row scale row[i], column scale col[i]),
 * the factor 2^-(alpha + beta) that undoes the scaling of `sides`. */
void ptxl_xfrag_factors(iseq *S, const xfrag *X, int sides, const int *row, const int *col,
			int n, iarg *factor);
/* mma's A and B (scales: 0 row g, 1 row g + 8, XFRAG_SIDE_B column g), and their f16 values
 * into the f16x2 fragments fa (A) and fb (B) of an m16n8k8/k16 product. */
void ptxl_mma_xfrag(iseq *S, const mfrag *F, xfrag *X);
void ptxl_mma_xfrag_pack(iseq *S, const mfrag *F, const xfrag *X, iarg fa, iarg fb);

/* mma.sync.aligned.m16n8kK.row.col.D.A.B.C with K/types this pass lowers: 0 and *f set. */
typedef struct mform { int et, k, cf16, df16; } mform;
int ptxl_mma_form(const pinst *I, mform *f);

/* ---- helpers.c ---- */
/* The name of the helper for k (kept for the rest of the pass), NULL when there are too
 * many helpers already. */
const char *ptxl_helper_use(ptxl_helpers *H, const hkey *k);
/* A call of helper name (its key k): the operands' registers in op[HP_*] (lists of
 * consecutive temporaries or of one original operand's elements); D's writes are guarded. */
int ptxl_helper_call(iseq *S, const char *name, const hkey *k, const iarg *const op[HP_COUNT]);
/* The definitions of every helper in H, malloc'd; 0 or a PTX_LOWER_E* status. */
int ptxl_helpers_text(const ptxl_helpers *H, char **out, size_t *len);
/* Each kind's registers per operand, body (op: the registers loaded from the params, D's
 * to write) and name (emit_mma.c, emit_wmma.c, emit_mma_sp.c). */
void ptxl_mma_helper_sizes(const hkey *k, int n[HP_COUNT]);
int ptxl_mma_helper_body(iseq *S, const hkey *k, const iarg *const op[HP_COUNT]);
void ptxl_mma_helper_name(const hkey *k, char *out, size_t cap);
void ptxl_wmma_helper_sizes(const hkey *k, int n[HP_COUNT]);
int ptxl_wmma_helper_body(iseq *S, const hkey *k, const iarg *const op[HP_COUNT]);
void ptxl_wmma_helper_name(const hkey *k, char *out, size_t cap);
void ptxl_mma_sp_helper_sizes(const hkey *k, int n[HP_COUNT]);
int ptxl_mma_sp_helper_body(iseq *S, const hkey *k, const iarg *const op[HP_COUNT]);
void ptxl_mma_sp_helper_name(const hkey *k, char *out, size_t cap);

#endif
