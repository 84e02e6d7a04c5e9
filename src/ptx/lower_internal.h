/* lower_internal.h: the pieces of the lowering pass: the statement scanner, the instruction
 * parser, the rule table, and the small instruction list (IR) that a rule builds and that
 * the printer turns into PTX text.  The tests evaluate the same IR, so what they check is
 * exactly what the pass prints. */
#ifndef BF16SHIM_PTX_LOWER_INTERNAL_H
#define BF16SHIM_PTX_LOWER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "lower.h"

/* ---- scan.c: PTX text -> statements ---- */
enum { ST_INSN, ST_DIRECTIVE, ST_LABEL, ST_OPEN, ST_CLOSE, ST_OTHER };

typedef struct pstmt {
	size_t start, end;      /* [start, end) in the text; an instruction's end is after ';' */
	unsigned line;          /* line of start, 1-based */
	int kind;
} pstmt;

typedef struct pscan {
	const char *s;
	size_t n, pos;
	unsigned line;
} pscan;

void ptxl_scan_init(pscan *S, const char *s, size_t n);
int ptxl_scan_next(pscan *S, pstmt *st);     /* 1: *st is the next statement; 0: end of text */

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

/* ---- ir.c: the instruction list a rule builds, and its printer ---- */
enum { IA_NONE, IA_R, IA_H, IA_D, IA_P, IA_IMM, IA_OPND };

typedef struct iarg {
	uint8_t k;
	uint8_t part;            /* IA_OPND: 0 whole operand, 1/2 the halves of "p|q" */
	uint16_t i;              /* temporary number, or operand index */
	uint64_t v;              /* immediate */
} iarg;

#define IR_MAX_INSNS 128
#define IR_MAX_ARGS 5

typedef struct iinsn {
	char op[40];             /* mnemonic, e.g. "fma.rz.f32" */
	uint8_t guarded;         /* writes an operand of the original: carries its guard */
	uint8_t nargs;
	iarg a[IR_MAX_ARGS];
} iinsn;

typedef struct iseq {
	iinsn in[IR_MAX_INSNS];
	int n;
	int nr, nh, nd, np;      /* temporaries used: .b32, .b16, .b64, .pred */
	int overflow;            /* a bound was hit: the sequence is unusable */
} iseq;

void ptxl_ir_init(iseq *S);
iarg ptxl_ir_temp(iseq *S, int kind);

/* New temporaries (.b32, .b16, .b64, .pred), immediates and the original's operands. */
static inline iarg ir_r(iseq *S) { return ptxl_ir_temp(S, IA_R); }
static inline iarg ir_h(iseq *S) { return ptxl_ir_temp(S, IA_H); }
static inline iarg ir_d(iseq *S) { return ptxl_ir_temp(S, IA_D); }
static inline iarg ir_p(iseq *S) { return ptxl_ir_temp(S, IA_P); }
static inline iarg ir_imm(uint64_t v) { return (iarg){ IA_IMM, 0, 0, v }; }
static inline iarg ir_opnd(int i) { return (iarg){ IA_OPND, 0, (uint16_t)i, 0 }; }
/* One side of a "p|q" operand: part 1 is p, part 2 is q. */
static inline iarg ir_opnd_part(int i, int part)
{
	return (iarg){ IA_OPND, (uint8_t)part, (uint16_t)i, 0 };
}
void ptxl_ir_emit(iseq *S, int guarded, const char *op, const iarg *args, int nargs);
#define IR_ARGS(...) (const iarg[]){ __VA_ARGS__ }, (int)(sizeof((iarg[]){ __VA_ARGS__ }) / sizeof(iarg))
#define E(S, op, ...) ptxl_ir_emit((S), 0, (op), IR_ARGS(__VA_ARGS__))
#define EG(S, op, ...) ptxl_ir_emit((S), 1, (op), IR_ARGS(__VA_ARGS__))

/* Appends the PTX block for S (prefix names the temporaries, e.g. "%bfl_") to out; returns
 * the number of bytes written, or 0 if it does not fit in cap. */
size_t ptxl_ir_print(const iseq *S, const pinst *I, const char *prefix, char *out, size_t cap);

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

int ptxl_rule_match(const pinst *I, int target_sm, pmatch *m);
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
int ptxl_build_neg_abs(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_setp(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_set(iseq *S, const pinst *I, const pmods *M);
int ptxl_build_approx(iseq *S, const pinst *I, const pmods *M);

#endif
