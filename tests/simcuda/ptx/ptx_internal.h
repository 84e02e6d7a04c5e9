/* ptx_internal.h: data structures shared by the parser, the decoder and the executor.
 *
 * Text is parsed once into pinsn records (opcode, types, register slots, handler); a launch
 * only walks these records.  Registers live in per-warp frames of 64-bit slots, 32 lanes
 * side by side, so one handler call processes a whole warp.
 */
#ifndef PTX_INTERNAL_H
#define PTX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ptx.h"

#define WARP 32
#define FULL_MASK 0xffffffffu

/* Generic-address windows (above every global device address, which is < 2^47). */
#define SHARED_BASE (1ull << 56)
#define LOCAL_BASE (2ull << 56)
#define WINDOW_SIZE (1ull << 32)

/* Bounds on untrusted input. */
#define MAX_TEXT (64u << 20)
#define MAX_INSNS (1u << 22)
#define MAX_SLOTS (1u << 18)          /* registers + constants of one function */
#define MAX_FUNCS 65536
#define MAX_SYMS (1u << 20)
#define MAX_NAME 4096
#define MAX_NEST 64
#define MAX_VAR_BYTES (1ull << 30)
#define MAX_LOCAL_BYTES (1u << 20)    /* per thread */
#define MAX_SHARED_BYTES (1u << 24)
#define MAX_PARAM_BYTES 32768
#define MAX_CALL_DEPTH 32
#define NOREG 0xffffffffu

/* ------------------------------------------------------------ types */
#define PTX_TYPES(X) \
	X(pred) X(b8) X(b16) X(b32) X(b64) X(b128) X(u8) X(u16) X(u32) X(u64) \
	X(s8) X(s16) X(s32) X(s64) X(f16) X(f16x2) X(bf16) X(bf16x2) X(f32) X(f64) \
	X(tf32) X(e4m3) X(e5m2) X(e4m3x2) X(e5m2x2) X(u16x2) X(s16x2) X(s4) X(u4) X(b1)
enum ptype {
	T_NONE,
#define X(n) T_##n,
	PTX_TYPES(X)
#undef X
	T_COUNT
};

int ptx__type_size(int t);        /* bytes; pred counts as 1 */
int ptx__type_signed(int t);
int ptx__type_int(int t);         /* b/u/s */
int ptx__type_float(int t);       /* f32/f64 */
int ptx__type_half(int t);        /* f16/f16x2/bf16/bf16x2 */
const char *ptx__type_name(int t);
extern const char *const ptx__type_names[T_COUNT];

/* ------------------------------------------------------ modifier words */
#define PTX_WORDS(X) \
	X(rn) X(rz) X(rm) X(rp) X(rna) X(rni) X(rzi) X(rmi) X(rpi) X(rs) \
	X(ftz) X(sat) X(satfinite) X(relu) X(approx) X(full) X(noftz) X(NaN) X(abs) X(xorsign) \
	X(lo) X(hi) X(wide) X(cc) X(uni) X(to) X(nc) X(volatile) \
	X(relaxed) X(acquire) X(release) X(acq_rel) X(weak) X(mmio) X(sc) \
	X(cta) X(gpu) X(sys) X(cluster) X(ca) X(cg) X(cs) X(lu) X(cv) X(wb) X(wt) X(cachehint) \
	X(global) X(shared) X(local) X(param) X(const) X(generic) X(v2) X(v4) X(v8) \
	X(eq) X(ne) X(lt) X(le) X(gt) X(ge) X(ls) X(hs) X(equ) X(neu) X(ltu) X(leu) X(gtu) \
	X(geu) X(num) X(nan) X(and) X(or) X(xor) X(add) X(inc) X(dec) X(min) X(max) X(exch) \
	X(cas) X(sync) X(aligned) X(up) X(down) X(bfly) X(idx) X(all) X(any) X(ballot) \
	X(arrive) X(red) X(popc) X(shiftamt) X(clamp) X(wrap) X(l) X(r) X(finite) X(infinite) \
	X(number) X(notanumber) X(normal) X(subnormal) X(f4e) X(b4e) X(rc8) X(ecl) X(ecr) \
	X(rc16) X(warp) X(proxy) X(async) X(alias) X(mbarrier) X(tensormap) X(unified) \
	X(launch_dependents) X(wait) X(cache_hint) X(prefetch_size) X(level) X(L1) X(L2) X(gl) \
	X(row) X(col) X(a) X(b) X(c) X(d) X(load) X(store) X(mma) X(x1) X(x2) X(x4) X(trans) \
	X(m8n8) X(m16n16) X(m8n16) X(m8n8k4) X(m16n8k4) X(m16n8k8) X(m16n8k16) X(m16n8k32) \
	X(m16n8k64) X(m8n8k16) X(m8n8k32) X(m8n8k128) X(m16n8k128) X(m16n8k256) \
	X(m16n16k16) X(m32n8k16) X(m8n32k16) X(m16n16k8) X(commit_group) X(wait_group) \
	X(wait_all) X(noinc) X(init) X(inval) X(arrive_drop) X(test_wait) X(try_wait) \
	X(pending_count) X(noComplete) X(parity) X(expect_tx) X(complete_tx) X(sp) X(fractional) \
	X(ordered_metadata) \
	X(range) X(cvt) X(evict)
enum pword {
	W_NONE,
#define X(n) W_##n,
	PTX_WORDS(X)
#undef X
	W_COUNT
};

/* An opcode split at its dots: the types in order and the other words in order. */
typedef struct pmods {
	uint8_t ntypes, nwords;
	uint8_t types[4];
	uint16_t words[16];
	uint32_t used;          /* bit i: words[i] consumed by the decoder */
} pmods;

/* ------------------------------------------------------------ opcodes */
#define PTX_OPS(X) \
	X(abs) X(activemask) X(add) X(addc) X(and) X(atom) X(bar) X(barrier) X(bfe) X(bfi) \
	X(bfind) X(bmsk) X(bra) X(brev) X(brkpt) X(brx) X(call) X(clz) X(cnot) X(copysign) \
	X(cos) X(cp) X(createpolicy) X(cvt) X(cvta) X(discard) X(div) X(dp2a) X(dp4a) \
	X(elect) X(ex2) X(exit) X(fence) X(fma) X(fns) X(getctarank) X(griddepcontrol) \
	X(isspacep) X(istypep) X(ld) X(ldmatrix) X(ldu) X(lg2) X(lop3) X(mad) X(mad24) \
	X(madc) X(mapa) X(match) X(max) X(mbarrier) X(membar) X(min) X(mma) X(mov) X(movmatrix) \
	X(mul) X(mul24) X(multimem) X(nanosleep) X(neg) X(not) X(or) X(pmevent) X(popc) \
	X(prefetch) X(prefetchu) X(prmt) X(rcp) X(red) X(redux) X(rem) X(ret) X(rsqrt) \
	X(sad) X(selp) X(set) X(setmaxnreg) X(setp) X(shf) X(shfl) X(shl) X(shr) X(sin) \
	X(slct) X(sqrt) X(st) X(stackrestore) X(stacksave) X(stmatrix) X(sub) X(subc) \
	X(suld) X(suq) X(sured) X(sust) X(szext) X(tanh) X(testp) X(tex) X(tld4) X(trap) \
	X(txq) X(vabsdiff) X(vadd) X(vote) X(wgmma) X(wmma) X(xor) X(alloca) X(tcgen05) \
	X(applypriority)
enum popcode {
	OP_NONE,
#define X(n) OP_##n,
	PTX_OPS(X)
#undef X
	OP_COUNT
};
const char *ptx__op_name(int op);

enum pspace { SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST, SP_KPARAM,
	      SP_REGPARAM /* a device function's .reg parameter: a register of its frame */ };

enum prnd { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNA, RND_RNI, RND_RZI, RND_RMI,
	    RND_RPI };

/* Instruction flags. */
enum {
	F_FTZ = 1 << 0, F_SAT = 1 << 1, F_APPROX = 1 << 2, F_RELU = 1 << 3,
	F_SATFINITE = 1 << 4, F_NAN = 1 << 5, F_ADDR32 = 1 << 6, F_CC = 1 << 7,
	F_HI = 1 << 8, F_WIDE = 1 << 9, F_NEG2 = 1 << 10, F_NEG3 = 1 << 11,
	F_SHIFTAMT = 1 << 12, F_CLAMP = 1 << 13, F_NOFTZ = 1 << 14, F_XORSIGN = 1 << 15,
};

/* Special registers. */
#define PTX_SREGS(X) \
	X(tid_x, "%tid.x") X(tid_y, "%tid.y") X(tid_z, "%tid.z") \
	X(ntid_x, "%ntid.x") X(ntid_y, "%ntid.y") X(ntid_z, "%ntid.z") \
	X(ctaid_x, "%ctaid.x") X(ctaid_y, "%ctaid.y") X(ctaid_z, "%ctaid.z") \
	X(nctaid_x, "%nctaid.x") X(nctaid_y, "%nctaid.y") X(nctaid_z, "%nctaid.z") \
	X(laneid, "%laneid") X(warpid, "%warpid") X(nwarpid, "%nwarpid") \
	X(smid, "%smid") X(nsmid, "%nsmid") X(gridid, "%gridid") \
	X(lanemask_eq, "%lanemask_eq") X(lanemask_le, "%lanemask_le") \
	X(lanemask_lt, "%lanemask_lt") X(lanemask_ge, "%lanemask_ge") \
	X(lanemask_gt, "%lanemask_gt") X(dynamic_smem_size, "%dynamic_smem_size") \
	X(total_smem_size, "%total_smem_size") X(aggr_smem_size, "%aggr_smem_size") \
	X(reserved_smem_offset_begin, "%reserved_smem_offset_begin") \
	X(reserved_smem_offset_end, "%reserved_smem_offset_end") \
	X(reserved_smem_offset_cap, "%reserved_smem_offset_cap") \
	X(reserved_smem_offset_0, "%reserved_smem_offset_0") \
	X(reserved_smem_offset_1, "%reserved_smem_offset_1") \
	X(is_explicit_cluster, "%is_explicit_cluster") \
	X(clusterid_x, "%clusterid.x") X(clusterid_y, "%clusterid.y") X(clusterid_z, "%clusterid.z") \
	X(nclusterid_x, "%nclusterid.x") X(nclusterid_y, "%nclusterid.y") \
	X(nclusterid_z, "%nclusterid.z") X(cluster_ctaid_x, "%cluster_ctaid.x") \
	X(cluster_ctaid_y, "%cluster_ctaid.y") X(cluster_ctaid_z, "%cluster_ctaid.z") \
	X(cluster_nctaid_x, "%cluster_nctaid.x") X(cluster_nctaid_y, "%cluster_nctaid.y") \
	X(cluster_nctaid_z, "%cluster_nctaid.z") X(cluster_ctarank, "%cluster_ctarank") \
	X(cluster_nctarank, "%cluster_nctarank") X(current_graph_exec, "%current_graph_exec") \
	X(pm0, "%pm0") X(pm1, "%pm1") X(pm2, "%pm2") X(pm3, "%pm3") X(pm4, "%pm4") \
	X(pm5, "%pm5") X(pm6, "%pm6") X(pm7, "%pm7") X(pm0_64, "%pm0_64") X(pm1_64, "%pm1_64") \
	X(pm2_64, "%pm2_64") X(pm3_64, "%pm3_64") X(pm4_64, "%pm4_64") X(pm5_64, "%pm5_64") \
	X(pm6_64, "%pm6_64") X(pm7_64, "%pm7_64") \
	X(envreg0, "%envreg0") X(envreg1, "%envreg1") X(envreg2, "%envreg2") \
	X(envreg3, "%envreg3") X(envreg4, "%envreg4") X(envreg5, "%envreg5") \
	X(envreg6, "%envreg6") X(envreg7, "%envreg7") X(envreg8, "%envreg8") \
	X(envreg9, "%envreg9") X(envreg10, "%envreg10") X(envreg11, "%envreg11") \
	X(envreg12, "%envreg12") X(envreg13, "%envreg13") X(envreg14, "%envreg14") \
	X(envreg15, "%envreg15") X(envreg16, "%envreg16") X(envreg17, "%envreg17") \
	X(envreg18, "%envreg18") X(envreg19, "%envreg19") X(envreg20, "%envreg20") \
	X(envreg21, "%envreg21") X(envreg22, "%envreg22") X(envreg23, "%envreg23") \
	X(envreg24, "%envreg24") X(envreg25, "%envreg25") X(envreg26, "%envreg26") \
	X(envreg27, "%envreg27") X(envreg28, "%envreg28") X(envreg29, "%envreg29") \
	X(envreg30, "%envreg30") X(envreg31, "%envreg31") \
	X(clock, "%clock") X(clock_hi, "%clock_hi") X(clock64, "%clock64") \
	X(globaltimer, "%globaltimer") X(globaltimer_lo, "%globaltimer_lo") \
	X(globaltimer_hi, "%globaltimer_hi")
enum psreg {
#define X(id, s) SR_##id,
	PTX_SREGS(X)
#undef X
	SR_COUNT
};
#define SR_FIRST_DYNAMIC SR_clock  /* values that change while a thread runs */

/* Shared memory the system reserves per block from sm_80 on (launch.c places it). */
#define PTX_RESERVED_SMEM 1024

/* ------------------------------------------------------- decoded code */
struct pwarp;
struct pinsn;
typedef int (*pexec_fn)(struct pwarp *w, const struct pinsn *in, uint32_t m);

typedef struct pinsn {
	pexec_fn fn;          /* NULL for control flow, handled by the scheduler */
	uint16_t op;
	uint16_t func;        /* owning function */
	uint8_t t, t2;        /* instruction types (cvt: destination, source) */
	uint8_t rnd, mode;    /* rounding; op-specific sub-mode */
	uint8_t mode2, space, vec, gneg;
	uint16_t flags;
	uint32_t guard;       /* predicate slot or NOREG */
	uint32_t d[4];        /* destination slots (NOREG unused) */
	uint32_t s[5];        /* source slots */
	int64_t off;          /* address offset */
	uint32_t target;      /* branch target pc */
	uint32_t aux;         /* call descriptor */
	int32_t line;
	uint32_t name;        /* opcode text, offset into the module's string pool */
} pinsn;

/* Register references before a function's frame is laid out: kind in the top bits. */
#define TAG_GPR (1u << 28)
#define TAG_SREG (2u << 28)    /* raw special-register id (operand only) */
#define TAG_SSLOT (3u << 28)   /* special-register slot of the function */
#define TAG_CONST (4u << 28)
#define TAG_SINK (5u << 28)
#define TAG_KIND(r) ((r) & 0xf0000000u)
#define TAG_IDX(r) ((r) & 0x0fffffffu)

typedef struct pconst {
	uint64_t val;         /* value, or addend to the symbol's address */
	int32_t sym;          /* -1: plain value */
} pconst;

#define MAX_CALL_ARGS 24
typedef struct pcall {
	uint32_t callee;
	uint32_t nargs, nrets;
	int32_t args[MAX_CALL_ARGS], rets[2];   /* caller's .param symbols, or for a .reg parameter
						   of the callee the source slot (register or
						   constant) of the caller's frame */
} pcall;

typedef struct pfunc {
	char *name;
	uint8_t entry, defined, noreturn;
	int32_t line;
	uint32_t first, ninsn;       /* code range */
	uint32_t ngpr;
	uint8_t *gpr_bits;           /* declared width of each register, in bits */
	uint16_t *sregs;             /* special register of each sreg slot */
	uint32_t nsreg;
	pconst *consts;
	uint32_t nconst, const_cap;
	uint32_t nslots;             /* ngpr + nsreg + nconst + 1 sink */
	int32_t params[64], rets[2]; /* symbols */
	uint32_t nparams, nrets;
	uint32_t *callees;
	uint32_t ncallees, callee_cap;
	uint32_t maxntid[3], reqntid[3];
	uint32_t minnctapersm;       /* .minnctapersm, 0 if absent */
} pfunc;

typedef struct psym {
	char *name;
	uint8_t space;        /* SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM, SP_KPARAM */
	uint8_t dynamic;      /* extern shared array of unknown size */
	uint8_t elem;         /* element type, for messages */
	uint8_t managed;      /* .attribute(.managed): a __managed__ variable */
	int32_t func;         /* owning function, -1 at module scope */
	uint64_t size;
	uint32_t align;
	uint32_t kparam_off;  /* SP_KPARAM: offset in the packed parameter buffer; SP_REGPARAM:
				 the function's register */
	int32_t global;       /* index among module globals, -1 otherwise */
	uint8_t *init;        /* initial bytes (size), or NULL */
} psym;

struct ptx_kernel {
	ptx_module *m;
	uint32_t func;
	uint32_t *fbase;          /* per function: frame base slot, NOREG if unreachable */
	uint32_t nslots;          /* slots per lane in a warp's register file */
	uint64_t *symaddr;        /* per symbol: shared/local offset or kernel param offset */
	uint32_t shared_static, dyn_align, local_size;
	uint32_t *reach;          /* reachable functions, entry first */
	uint32_t nreach;
	uint32_t nparams, param_bytes;
	uint32_t param_off[64], param_size[64];
};

/* Operands of a warp-wide matrix instruction (mma, wmma): more registers than a pinsn
 * holds, so they live in the module's table, in->aux indexing it (ops_mma.c). */
#define MX_REGS 32
typedef struct pmx {
	uint8_t kind;                 /* MXK_* (mma.h) */
	uint16_t m, n, k;             /* shape */
	uint8_t at, bt, ct, dt;       /* element types (T_*) */
	uint8_t na, nb, nc, nd;       /* registers of each operand */
	uint8_t alay, blay;           /* 0: row-major, 1: column-major */
	uint8_t sat, bitop, rnd;      /* .satfinite; .xor/.and of b1; f64 rounding */
	uint8_t blk;                  /* products per accumulation block (mma.h) */
	uint8_t which, space;         /* wmma.load/store: matrix (0 a, 1 b, 2 c/d) and space */
	uint8_t sparse, sel, ordered; /* mma.sp: A is 2:4 (1:2) sparse, its metadata follows c */
	uint32_t tab[4];              /* A, B, C, D: offsets into the module's mxtab (tcore.c) */
	uint32_t r[MX_REGS];          /* d, a, b, c (, e) in that order; wmma.load/store: the fragment */
} pmx;

struct ptx_module {
	int ptx_version, target_sm, device_sm, arch_sm;
	int async_delay;          /* cp.async completes only when waited for (ptx.h) */
	pmx *mx;
	uint32_t nmx, mx_cap;
	uint16_t *mxtab;          /* per fragment element: its index in the matrix (tcore.c) */
	uint32_t nmxtab, mxtab_cap;
	pinsn *code;
	uint32_t ncode, code_cap;
	pfunc *funcs;
	uint32_t nfuncs, funcs_cap;
	psym *syms;
	uint32_t nsyms, syms_cap;
	uint32_t *globals;        /* symbol of each module global (.global/.const) */
	uint64_t *bound;          /* device address of each module global */
	uint32_t nglobals, globals_cap;
	pcall *calls;
	uint32_t ncalls, calls_cap;
	char *pool;               /* opcode texts */
	size_t npool, pool_cap;
	ptx_kernel **kernels;     /* per function; NULL for .func */
	uint64_t step_limit;
};

/* --------------------------------------------------------- execution */
typedef struct pbar {
	uint32_t arrived, expected;   /* expected 0: all live threads */
	uint32_t insn;                /* bar.red instruction, for its result */
	uint32_t acc;                 /* bar.red accumulator */
} pbar;

typedef struct pblock {
	const ptx_kernel *k;
	const ptx_module *m;
	const pinsn *code;
	const ptx_mem *mem;
	unsigned grid[3], block[3], ctaid[3];
	uint8_t *shared;
	uint32_t shared_size, dyn_shmem;  /* shared_size: the window, reserved region included */
	uint32_t user_shared;         /* static and dynamic shared memory of the launch */
	uint32_t reserved_begin;      /* the reserved region (sm_80 and newer), or 0 */
	uint64_t gridid;
	uint32_t lsize;               /* local bytes per thread */
	uint8_t *local;
	const uint8_t *params;
	uint32_t param_bytes;
	struct pwarp *warps;
	uint32_t nwarps, nthreads, live_threads;
	pbar bar[16];
	uint32_t *barmask;            /* [16][nwarps]: lanes waiting at each barrier */
	uint16_t bar_active;
	uint64_t cbase, clen;         /* last global range mapped */
	uint8_t *chost;
	int cwrite;
	ptx_launch_stats *stats;
	uint64_t steps, step_limit;
	uint64_t warp_steps, mma_steps; /* warp instructions issued; of those, mma and wmma.mma */
	struct pl2 **l2;              /* the launch's L2 model (l2.c), shared by its blocks */
	uint64_t *regs;               /* the slot's registers, call stacks (launch.c) */
	uint32_t *stack;
	uint8_t turns;                /* return PTX_TURN at each barrier release (launch.c) */
	uint8_t running;              /* the slot holds a block that has not finished */
	char *err;
	size_t errlen;
	struct pasync *async;         /* cp.async and mbarrier state, NULL until used (ops_async.c) */
	uint8_t yield;                /* the running warp waits on another: switch warps */
	uint8_t stalled;              /* ... on an mbarrier phase (for deadlock detection) */
	uint8_t progress;             /* an mbarrier or cp.async changed state in this round */
} pblock;

typedef struct pwarp {
	uint64_t *regs;               /* [nslots][32] */
	uint64_t *fr;                 /* frame of the function at pc */
	pblock *b;
	uint32_t pc, mask, min_other; /* running group: lanes at the lowest pc */
	uint32_t live, waiting;       /* not exited; blocked at a barrier */
	uint32_t id;
	uint32_t lpc[WARP];           /* pc of lanes outside the running group */
	uint8_t depth[WARP];
	uint8_t cc[WARP];             /* carry flag of add.cc and friends */
	uint32_t *retpc, *retcall;    /* [32][MAX_CALL_DEPTH] */
} pwarp;

#define R(i) (w->fr + (size_t)(i) * WARP)
#define LANES(l, m) for (uint32_t _m_##l = (m), l; \
			 _m_##l && ((l = (uint32_t)__builtin_ctz(_m_##l)), 1); _m_##l &= _m_##l - 1)

/* ------------------------------------------------------------- decoding */
/* An operand as parsed, before the instruction's types give it meaning. */
enum { O_NONE, O_REG, O_IMM, O_FIMM, O_SYM, O_ADDR, O_VEC, O_SINK, O_LIST, O_FUNC, O_NAME };
typedef struct popnd {
	uint8_t kind;
	uint8_t neg;              /* !%p */
	uint8_t fkind;            /* O_FIMM: 'f' (0f bits), 'd' (0d bits), 'x' (decimal) */
	uint8_t n;                /* O_VEC / O_LIST elements */
	uint32_t reg, reg2;       /* O_REG (tagged); reg2: q of "p|q" */
	int32_t sym;              /* O_SYM, O_ADDR base symbol; O_FUNC function */
	int64_t imm;              /* O_IMM value, O_FIMM bits, O_ADDR / O_SYM offset */
	double f;                 /* O_FIMM 'x' */
	const char *name;         /* O_NAME */
	uint32_t namelen;
	struct popnd *elem;       /* O_VEC, O_LIST */
} popnd;

struct pparse;
typedef struct pdec {
	struct pparse *P;
	pinsn *in;
	pmods mods;
	popnd *ops;
	int nops;
	const char *text;         /* the whole opcode, NUL-terminated */
	int line;
} pdec;

/* Decoder helpers (decode.c). */
int dx_take(pdec *D, int word);
int dx_take_first(pdec *D, int w1, int w2);    /* whichever comes first, or 0 */
int dx_take_rnd(pdec *D);                 /* any rounding word -> RND_*, or RND_NONE */
int dx_take_space(pdec *D);               /* any state-space word -> SP_*, or -1 */
int dx_type(pdec *D, int i);
int dx_ntypes(pdec *D);
int dx_bad(pdec *D);                      /* "Unknown instruction" */
int dx_fail(pdec *D, ptx_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int dx_done(pdec *D);                     /* error if words are left over */
int dx_nops(pdec *D, int lo, int hi);     /* error unless lo <= nops <= hi */
uint32_t dx_dst(pdec *D, int i);
int dx_dst_pair(pdec *D, int i);            /* "d" or "d|p" into in->d[0..1] */
uint32_t dx_src(pdec *D, int i, int type);
uint32_t dx_pred(pdec *D, int i, int *neg);
uint32_t dx_elem_dst(pdec *D, const popnd *o);
uint32_t dx_elem_src(pdec *D, const popnd *o, int type);
uint32_t dx_const(pdec *D, uint64_t v);
int dx_addr(pdec *D, int i);              /* fills in->s[4] (base) and in->off */
int dx_error(pdec *D);                    /* nonzero once an error was reported */
int dx_label(pdec *D, int i);             /* branch target: resolved at the function's end */
int dx_call(pdec *D);                     /* call operands -> pcall */

/* Per-family decoders: each picks a handler and fills the operands. */
int ptx__dec_int(pdec *D);
int ptx__dec_bits(pdec *D);
int ptx__dec_logic(pdec *D);
int ptx__dec_float(pdec *D);
int ptx__dec_half(pdec *D);
int ptx__dec_cvt(pdec *D);
int ptx__dec_mov(pdec *D);
int ptx__dec_mem(pdec *D);
int ptx__dec_cvta(pdec *D);
int ptx__dec_atom(pdec *D);
int ptx__dec_warp(pdec *D);
int ptx__dec_control(pdec *D);
int ptx__dec_compare(pdec *D);
int ptx__dec_mma(pdec *D);
int ptx__dec_wmma(pdec *D);
int ptx__dec_matrix(pdec *D);         /* ldmatrix, stmatrix, movmatrix */
int ptx__dec_async(pdec *D);          /* cp.async*, mbarrier */

/* A brace-enclosed register list of exactly n registers (operand i) into out[]; dst: as
 * destinations.  A single register is accepted for n == 1 without braces. */
int dx_reglist(pdec *D, int i, int n, int dst, int type, uint32_t *out);
/* A new entry of the module's matrix-operand table; its index goes into in->aux. */
pmx *dx_new_mx(pdec *D);

/* Architecture requirements (archreq.c): 0, or an error reported through D. */
int ptx__arch_check(pdec *D, int op);
/* A special register the module's target or PTX ISA version lacks: fails D, -1. */
int ptx__sreg_check(pdec *D, int sreg);

/* -------------------------------------------------------------- runtime */
int ptx__fault(pwarp *w, const pinsn *in, int lane, ptx_status st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Host pointer for an access of size bytes at addr in space; NULL after reporting.
 * write: 0 a load, 1 a store, MEM_RMW an atomic (reads, then writes). */
#define MEM_RMW 2
uint8_t *ptx__mem(pwarp *w, const pinsn *in, int lane, int space, uint64_t addr,
		  uint32_t size, int write, int *st);
/* The L2 model (l2.c): a global access of size bytes at addr (L2_READ, L2_WRITE or both)
 * adds to the launch's DRAM counters; ptx__l2_end writes back what is dirty and frees it. */
enum { L2_READ = 1, L2_WRITE = 2, L2_STREAM = 4 };
/* pinsn.mode of ld and st: .cs, cached evict-first. */
#define MEM_STREAM 1
void ptx__l2_access(pblock *b, uint64_t addr, uint32_t size, int how);
void ptx__l2_end(struct pl2 **l2, ptx_launch_stats *st);
/* Maps the union of a warp's global accesses once, so lanes hit the cache. */
void ptx__mem_prefetch(pwarp *w, int space, const uint64_t *addr, int64_t off, uint32_t m,
		       uint32_t size, int addr32, int write);
/* Runs the block to its end (PTX_OK), a fault, or with b->turns its next barrier release
 * (PTX_TURN: call again to go on). */
#define PTX_TURN 1000
int ptx__run_block(pblock *b);
/* .sync.aligned warp-wide instructions: 0 when all 32 lanes execute it, else the launch
 * fails naming the lanes that do not. */
int ptx__warp_aligned(pwarp *w, const pinsn *in, uint32_t m);
/* cp.async / mbarrier state of a block (ops_async.c): reset at block start, freed at the
 * end of the launch; ptx__async_check fails an access to shared bytes a pending copy writes. */
void ptx__async_reset(pblock *b);
void ptx__async_free(pblock *b);
int ptx__async_check(pwarp *w, const pinsn *in, int lane, uint64_t off, uint32_t size, int write);
void ptx__regroup(pwarp *w);
uint64_t ptx__sreg_value(const pwarp *w, int sreg, int lane);

/* Floating-point formats (fpconv.c). */
enum { FMT_F16, FMT_BF16, FMT_F32, FMT_F64 };
/* Rounds x to the format with the given RND_* mode; flags: F_SATFINITE, F_RELU. */
uint64_t ptx__round_double(double x, int fmt, int rnd, int flags);
uint64_t ptx__round_int(uint64_t mag, int neg, int fmt, int rnd);
double ptx__half_to_double(uint32_t h, int fmt);
double ptx__add_odd(double a, double b);  /* a + b rounded to odd: safe to round again */
uint32_t ptx__f32_to_bf16_rn(uint32_t f);
float ptx__ftz(float x);
double ptx__ftz16(double x, int fmt);     /* flushes f16 subnormals */

/* Directed rounding for f32/f64 arithmetic (round.c, built with -frounding-math). */
float ptx__f32_op(int op, int rnd, float a, float b, float c);
double ptx__f64_op(int op, int rnd, double a, double b, double c);
enum { RO_ADD, RO_SUB, RO_MUL, RO_DIV, RO_FMA, RO_SQRT, RO_RCP };

static inline float f32_of(uint64_t v)
{
	union { uint32_t u; float f; } x = { (uint32_t)v };
	return x.f;
}
static inline uint64_t of_f32(float f)
{
	union { float f; uint32_t u; } x = { f };
	return x.u;
}
static inline double f64_of(uint64_t v)
{
	union { uint64_t u; double f; } x = { v };
	return x.f;
}
static inline uint64_t of_f64(double f)
{
	union { double f; uint64_t u; } x = { f };
	return x.u;
}

/* Sign-extends or zero-extends the low bytes of v by type. */
static inline uint64_t ext_by_type(uint64_t v, int t)
{
	switch (t) {
	case T_s8: return (uint64_t)(int64_t)(int8_t)v;
	case T_s16: return (uint64_t)(int64_t)(int16_t)v;
	case T_s32: return (uint64_t)(int64_t)(int32_t)v;
	case T_u8: case T_b8: return (uint8_t)v;
	case T_u16: case T_b16: case T_f16: case T_bf16: return (uint16_t)v;
	case T_u32: case T_b32: case T_f32: case T_f16x2: case T_bf16x2: return (uint32_t)v;
	default: return v;
	}
}

#endif
