/* decode.c: turns one parsed instruction into a pinsn: splits the opcode into its
 * modifiers, checks the architecture table, and hands the operands to the family decoder,
 * which picks the handler.  Also lays out each function's register frame at its end. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static const char *const op_names[OP_COUNT] = {
	"",
#define X(n) #n,
	PTX_OPS(X)
#undef X
};

static const char *const word_names[W_COUNT] = {
	"",
#define X(n) #n,
	PTX_WORDS(X)
#undef X
};

static const char *const type_names[T_COUNT] = {
	"",
#define X(n) #n,
	PTX_TYPES(X)
#undef X
};

const char *ptx__op_name(int op)
{
	return op > 0 && op < OP_COUNT ? op_names[op] : "?";
}

const char *ptx__type_name(int t)
{
	return t > 0 && t < T_COUNT ? type_names[t] : "?";
}

int ptx__type_size(int t)
{
	switch (t) {
	case T_pred: case T_b8: case T_u8: case T_s8: case T_e4m3: case T_e5m2: return 1;
	case T_b16: case T_u16: case T_s16: case T_f16: case T_bf16: case T_e4m3x2:
	case T_e5m2x2: return 2;
	case T_b32: case T_u32: case T_s32: case T_f32: case T_f16x2: case T_bf16x2:
	case T_tf32: case T_u16x2: case T_s16x2: return 4;
	case T_b64: case T_u64: case T_s64: case T_f64: return 8;
	case T_b128: return 16;
	default: return 0;
	}
}

int ptx__type_signed(int t)
{
	return t == T_s8 || t == T_s16 || t == T_s32 || t == T_s64;
}

int ptx__type_int(int t)
{
	return (t >= T_b8 && t <= T_s64) && t != T_b128;
}

int ptx__type_float(int t)
{
	return t == T_f32 || t == T_f64;
}

int ptx__type_half(int t)
{
	return t == T_f16 || t == T_f16x2 || t == T_bf16 || t == T_bf16x2;
}

/* ----------------------------------------------------------- literals */

uint64_t ptx__literal(const popnd *o, int type, int *ok)
{
	int sz = ptx__type_size(type);
	if (o->kind != O_IMM && o->kind != O_FIMM) {
		*ok = 0;
		return 0;
	}
	if (type == T_pred) {
		*ok = o->kind == O_IMM;
		return o->imm != 0;
	}
	if (type == T_f32 || type == T_f64 || type == T_f16 || type == T_bf16) {
		double v;
		if (o->kind == O_IMM)
			v = (double)o->imm;
		else if (o->fkind == 'f')
			v = f32_of((uint64_t)o->imm);
		else if (o->fkind == 'd')
			v = f64_of((uint64_t)o->imm);
		else
			v = o->f;
		if (type == T_f64)
			return o->kind == O_FIMM && o->fkind == 'd' ? (uint64_t)o->imm : of_f64(v);
		if (type == T_f32)
			return o->kind == O_FIMM && o->fkind == 'f' ? (uint32_t)o->imm
								    : ptx__round_double(v, FMT_F32, RND_RN, 0);
		return ptx__round_double(v, type == T_f16 ? FMT_F16 : FMT_BF16, RND_RN, 0);
	}
	if (o->kind == O_FIMM) {
		if ((o->fkind == 'f' && sz == 4) || (o->fkind == 'd' && sz == 8))
			return (uint64_t)o->imm;
		*ok = 0;
		return 0;
	}
	return ext_by_type((uint64_t)o->imm, type);
}

/* ----------------------------------------------------------- helpers */

int dx_error(pdec *D)
{
	return D->P->st != 0;
}

int dx_fail(pdec *D, ptx_status st, const char *fmt, ...)
{
	pparse *P = D->P;
	if (P->st)
		return -1;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return perr(P, D->line, st, "%s", msg);
}

int dx_bad(pdec *D)
{
	return dx_fail(D, PTX_EUNKNOWN, "Unknown instruction '%s'", D->text);
}

int dx_take(pdec *D, int word)
{
	for (int i = 0; i < D->mods.nwords; i++) {
		if (D->mods.words[i] == word && !(D->mods.used & (1u << i))) {
			D->mods.used |= 1u << i;
			return 1;
		}
	}
	return 0;
}

int dx_take_rnd(pdec *D)
{
	static const int w[] = { W_rn, W_rz, W_rm, W_rp, W_rna, W_rni, W_rzi, W_rmi, W_rpi };
	for (int i = 0; i < 9; i++)
		if (dx_take(D, w[i]))
			return RND_RN + i;
	return RND_NONE;
}

int dx_take_space(pdec *D)
{
	static const int w[] = { W_global, W_shared, W_local, W_param, W_const, W_generic };
	static const int sp[] = { SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST, SP_GENERIC };
	for (int i = 0; i < 6; i++)
		if (dx_take(D, w[i]))
			return sp[i];
	return -1;
}

int dx_type(pdec *D, int i)
{
	return i < D->mods.ntypes ? D->mods.types[i] : T_NONE;
}

int dx_ntypes(pdec *D)
{
	return D->mods.ntypes;
}

int dx_done(pdec *D)
{
	if (dx_error(D))
		return -1;
	uint32_t all = D->mods.nwords >= 32 ? ~0u : (1u << D->mods.nwords) - 1;
	if ((D->mods.used & all) != all)
		return dx_bad(D);
	return 0;
}

int dx_nops(pdec *D, int lo, int hi)
{
	if (D->nops < lo || D->nops > hi)
		return dx_fail(D, PTX_ESYNTAX, "wrong number of operands for '%s'", D->text);
	return 0;
}

static pfunc *curf(pdec *D)
{
	return &D->P->m->funcs[D->P->cur];
}

static uint32_t add_const(pdec *D, uint64_t v, int32_t sym)
{
	pfunc *f = curf(D);
	uint32_t lo = f->nconst > 256 ? f->nconst - 256 : 0;
	for (uint32_t i = lo; i < f->nconst; i++)
		if (f->consts[i].val == v && f->consts[i].sym == sym)
			return TAG_CONST | i;
	if (f->nconst >= MAX_SLOTS) {
		dx_fail(D, PTX_ESYNTAX, "too many constants");
		return NOREG;
	}
	pconst *c = pgrow(D->P, f->consts, &f->const_cap, f->nconst + 1, sizeof(pconst));
	if (!c)
		return NOREG;
	f->consts = c;
	c[f->nconst].val = v;
	c[f->nconst].sym = sym;
	return TAG_CONST | f->nconst++;
}

uint32_t dx_const(pdec *D, uint64_t v)
{
	return add_const(D, v, -1);
}

static uint32_t sreg_slot(pdec *D, uint32_t id)
{
	pfunc *f = curf(D);
	for (uint32_t i = 0; i < f->nsreg; i++)
		if (f->sregs[i] == id)
			return TAG_SSLOT | i;
	uint16_t *s = realloc(f->sregs, (f->nsreg + 1) * sizeof(uint16_t));
	if (!s) {
		dx_fail(D, PTX_ENOMEM, "out of memory");
		return NOREG;
	}
	f->sregs = s;
	s[f->nsreg] = (uint16_t)id;
	return TAG_SSLOT | f->nsreg++;
}

static const popnd *opnd(pdec *D, int i)
{
	static const popnd none = { .kind = O_NONE };
	return i < D->nops ? &D->ops[i] : &none;
}

uint32_t dx_elem_dst(pdec *D, const popnd *o)
{
	if (o->kind == O_SINK)
		return TAG_SINK;
	if (o->kind == O_REG && TAG_KIND(o->reg) == TAG_GPR && !o->neg)
		return o->reg;
	dx_fail(D, PTX_ESYNTAX, "destination of '%s' must be a register", D->text);
	return NOREG;
}

uint32_t dx_elem_src(pdec *D, const popnd *o, int type)
{
	int ok = 1;
	uint64_t v;
	switch (o->kind) {
	case O_REG:
		if (o->neg || o->reg2 != NOREG)
			break;
		if (TAG_KIND(o->reg) == TAG_SREG) {
			if (TAG_IDX(o->reg) >= SR_FIRST_DYNAMIC) {
				dx_fail(D, PTX_EUNKNOWN, "special register not supported in '%s'", D->text);
				return NOREG;
			}
			return sreg_slot(D, TAG_IDX(o->reg));
		}
		return o->reg;
	case O_IMM:
	case O_FIMM:
		v = ptx__literal(o, type, &ok);
		if (!ok)
			break;
		return dx_const(D, v);
	case O_SYM:
		if (ptx__type_size(type) < 4 || ptx__type_float(type) || ptx__type_half(type))
			break;
		return add_const(D, (uint64_t)o->imm, o->sym);
	case O_NAME:
		dx_fail(D, PTX_ESYNTAX, "Unknown symbol '%.*s'", (int)o->namelen, o->name);
		return NOREG;
	default:
		break;
	}
	dx_fail(D, PTX_ESYNTAX, "bad operand for '%s'", D->text);
	return NOREG;
}

uint32_t dx_dst(pdec *D, int i)
{
	const popnd *o = opnd(D, i);
	if (o->reg2 != NOREG && o->kind == O_REG) {
		dx_fail(D, PTX_ESYNTAX, "unexpected '|' in '%s'", D->text);
		return NOREG;
	}
	return dx_elem_dst(D, o);
}

/* Destination i written as "d" or "d|p": fills in->d[0] and (if present) in->d[1]. */
int dx_dst_pair(pdec *D, int i)
{
	const popnd *o = opnd(D, i);
	if (o->kind != O_REG || o->reg2 == NOREG) {
		D->in->d[0] = dx_dst(D, i);
		return dx_error(D) ? -1 : 0;
	}
	popnd a = *o, b = *o;
	a.reg2 = b.reg2 = NOREG;
	b.kind = o->reg2 == TAG_SINK ? O_SINK : O_REG;
	b.reg = o->reg2;
	D->in->d[0] = dx_elem_dst(D, &a);
	D->in->d[1] = dx_elem_dst(D, &b);
	return dx_error(D) ? -1 : 0;
}

uint32_t dx_src(pdec *D, int i, int type)
{
	return dx_elem_src(D, opnd(D, i), type);
}

uint32_t dx_pred(pdec *D, int i, int *neg)
{
	const popnd *o = opnd(D, i);
	*neg = 0;
	if (o->kind == O_REG && TAG_KIND(o->reg) == TAG_GPR && o->reg2 == NOREG) {
		*neg = o->neg;
		return o->reg;
	}
	if (o->kind == O_IMM)
		return dx_const(D, o->imm != 0);
	dx_fail(D, PTX_ESYNTAX, "bad predicate operand for '%s'", D->text);
	return NOREG;
}

/* Address operand i: base slot in in->s[4], offset in in->off.  Returns the space of a
 * symbol base (for .param accesses), or -1. */
int dx_addr(pdec *D, int i, int space)
{
	const popnd *o = opnd(D, i);
	pinsn *in = D->in;
	(void)space;
	if (o->kind != O_ADDR) {
		dx_fail(D, PTX_ESYNTAX, "'%s' needs an address operand", D->text);
		return -2;
	}
	in->off = o->imm;
	if (o->reg != NOREG) {
		if (TAG_KIND(o->reg) != TAG_GPR) {
			dx_fail(D, PTX_ESYNTAX, "bad address register in '%s'", D->text);
			return -2;
		}
		in->s[4] = o->reg;
		if (curf(D)->gpr_bits[TAG_IDX(o->reg)] <= 32)
			in->flags |= F_ADDR32;
		return -1;
	}
	if (o->sym >= 0) {
		in->s[4] = add_const(D, 0, o->sym);
		return D->P->m->syms[o->sym].space;
	}
	in->s[4] = dx_const(D, 0);
	return -1;
}

int dx_label(pdec *D, int i)
{
	const popnd *o = opnd(D, i);
	pparse *P = D->P;
	if (o->kind != O_NAME)
		return dx_fail(D, PTX_ESYNTAX, "'%s' needs a label", D->text);
	pfixup *f = pgrow(P, P->fixups, &P->fixups_cap, P->nfixups + 1, sizeof(pfixup));
	if (!f)
		return -1;
	P->fixups = f;
	f[P->nfixups].insn = P->m->ncode;
	f[P->nfixups].name = o->name;
	f[P->nfixups].len = o->namelen;
	f[P->nfixups].line = D->line;
	P->nfixups++;
	return 0;
}

/* call{.uni} [(ret),] func [, (args)]: arguments are .param variables of the caller. */
int dx_call(pdec *D)
{
	pparse *P = D->P;
	ptx_module *m = P->m;
	int i = 0;
	pcall c;
	memset(&c, 0, sizeof(c));
	const popnd *o = opnd(D, 0);
	if (o->kind == O_LIST) {
		if (o->n > 2)
			return dx_fail(D, PTX_EUNKNOWN, "more than two return values in '%s'", D->text);
		for (int j = 0; j < o->n; j++) {
			if (o->elem[j].kind != O_SYM || m->syms[o->elem[j].sym].space != SP_PARAM)
				return dx_fail(D, PTX_EUNKNOWN, "call results must be .param variables");
			c.rets[c.nrets++] = o->elem[j].sym;
		}
		o = opnd(D, ++i);
	}
	if (o->kind != O_FUNC)
		return dx_fail(D, PTX_EUNKNOWN, "'%s' needs a function name (indirect calls are not "
			       "supported)", D->text);
	c.callee = (uint32_t)o->sym;
	o = opnd(D, ++i);
	if (o->kind == O_LIST) {
		if (o->n > 8)
			return dx_fail(D, PTX_EUNKNOWN, "more than eight arguments in '%s'", D->text);
		for (int j = 0; j < o->n; j++) {
			if (o->elem[j].kind != O_SYM || m->syms[o->elem[j].sym].space != SP_PARAM)
				return dx_fail(D, PTX_EUNKNOWN, "call arguments must be .param variables");
			c.args[c.nargs++] = o->elem[j].sym;
		}
		i++;
	}
	if (i != D->nops)
		return dx_fail(D, PTX_ESYNTAX, "bad operands for '%s'", D->text);
	pcall *cs = pgrow(P, m->calls, &m->calls_cap, m->ncalls + 1, sizeof(pcall));
	if (!cs)
		return -1;
	m->calls = cs;
	cs[m->ncalls] = c;
	D->in->aux = m->ncalls++;
	pfunc *f = curf(D);
	uint32_t *cl = pgrow(P, f->callees, &f->callee_cap, f->ncallees + 1, sizeof(uint32_t));
	if (!cl)
		return -1;
	f->callees = cl;
	cl[f->ncallees++] = c.callee;
	return 0;
}

/* ------------------------------------------------------- dispatch */

int ptx__is_halfop(const pmods *m)
{
	for (int i = 0; i < m->ntypes; i++)
		if (ptx__type_half(m->types[i]))
			return 1;
	return 0;
}

static int route_arith(pdec *D)
{
	int t = dx_type(D, 0);
	if (ptx__type_half(t))
		return ptx__dec_half(D);
	if (ptx__type_float(t))
		return ptx__dec_float(D);
	return ptx__dec_int(D);
}

static int (*decoder_of(int op))(pdec *)
{
	switch (op) {
	case OP_add: case OP_sub: case OP_mul: case OP_mad: case OP_fma: case OP_div:
	case OP_abs: case OP_neg: case OP_min: case OP_max: case OP_ex2: case OP_tanh:
		return route_arith;
	case OP_rem: case OP_mul24: case OP_mad24: case OP_addc: case OP_subc: case OP_madc:
	case OP_sad:
		return ptx__dec_int;
	case OP_rcp: case OP_sqrt: case OP_rsqrt: case OP_lg2: case OP_sin: case OP_cos:
	case OP_copysign: case OP_testp:
		return ptx__dec_float;
	case OP_and: case OP_or: case OP_xor: case OP_not: case OP_cnot: case OP_shl:
	case OP_shr: case OP_lop3:
		return ptx__dec_logic;
	case OP_popc: case OP_clz: case OP_brev: case OP_bfind: case OP_bfe: case OP_bfi:
	case OP_prmt: case OP_shf: case OP_dp4a:
		return ptx__dec_bits;
	case OP_setp: case OP_set: case OP_selp: case OP_slct:
		return ptx__dec_compare;
	case OP_cvt:
		return ptx__dec_cvt;
	case OP_mov:
		return ptx__dec_mov;
	case OP_ld: case OP_ldu: case OP_st: case OP_cvta: case OP_isspacep: case OP_prefetch:
	case OP_prefetchu:
		return ptx__dec_mem;
	case OP_atom: case OP_red:
		return ptx__dec_atom;
	case OP_shfl: case OP_vote: case OP_match: case OP_activemask: case OP_redux:
	case OP_membar: case OP_fence: case OP_nanosleep: case OP_pmevent:
	case OP_griddepcontrol:
		return ptx__dec_warp;
	case OP_bra: case OP_call: case OP_ret: case OP_exit: case OP_bar: case OP_barrier:
	case OP_trap: case OP_brkpt:
		return ptx__dec_control;
	default:
		return NULL;
	}
}

static int lookup_op(const char *s, size_t n)
{
	for (int i = 1; i < OP_COUNT; i++)
		if (strlen(op_names[i]) == n && memcmp(op_names[i], s, n) == 0)
			return i;
	return OP_NONE;
}

/* Splits "cvt.rn.bf16.f32" into types and words; returns 0, or 1 if a piece is unknown. */
static int split_mods(const char *s, pmods *m)
{
	memset(m, 0, sizeof(*m));
	int unknown = 0;
	while (*s == '.') {
		const char *p = ++s;
		while (*s && *s != '.')
			s++;
		size_t n = (size_t)(s - p);
		const char *colons = memchr(p, ':', n);
		size_t base = colons ? (size_t)(colons - p) : n;
		int found = 0;
		if (colons && (n - base == 5 && memcmp(colons, "::cta", 5) == 0))
			n = base;     /* .shared::cta is .shared */
		else if (colons && (memcmp(p, "L1::", 4) == 0 || memcmp(p, "L2::", 4) == 0)) {
			found = n == 14 && memcmp(p, "L2::cache_hint", 14) == 0 ? W_cache_hint
										 : W_cachehint;
			if (m->nwords < 16)
				m->words[m->nwords++] = (uint16_t)found;
			continue;
		}
		for (int i = 1; i < T_COUNT && !found; i++)
			if (strlen(type_names[i]) == n && memcmp(type_names[i], p, n) == 0) {
				if (m->ntypes < 4)
					m->types[m->ntypes++] = (uint8_t)i;
				else
					unknown = 1;
				found = 1;
			}
		for (int i = 1; i < W_COUNT && !found; i++)
			if (strlen(word_names[i]) == n && memcmp(word_names[i], p, n) == 0) {
				if (m->nwords < 16)
					m->words[m->nwords++] = (uint16_t)i;
				else
					unknown = 1;
				found = 1;
			}
		if (!found)
			unknown = 1;
	}
	return unknown || *s != 0;
}

int ptx__decode(pparse *P, uint32_t guard, int gneg, ptok op, int nops, int line)
{
	ptx_module *m = P->m;
	size_t pos = m->npool;
	if (pos + op.n + 1 > m->pool_cap) {
		size_t cap = m->pool_cap ? m->pool_cap * 2 : 4096;
		while (cap < pos + op.n + 1)
			cap *= 2;
		char *p = realloc(m->pool, cap);
		if (!p)
			return perr(P, line, PTX_ENOMEM, "out of memory");
		m->pool = p;
		m->pool_cap = cap;
	}
	memcpy(m->pool + pos, op.s, op.n);
	m->pool[pos + op.n] = 0;
	m->npool += op.n + 1;
	pinsn *code = pgrow(P, m->code, &m->code_cap, m->ncode + 1, sizeof(pinsn));
	if (!code)
		return -1;
	m->code = code;
	pinsn *in = &code[m->ncode];
	memset(in, 0, sizeof(*in));
	for (int i = 0; i < 4; i++)
		in->d[i] = NOREG;
	for (int i = 0; i < 5; i++)
		in->s[i] = NOREG;
	in->guard = guard;
	in->gneg = (uint8_t)gneg;
	in->func = (uint16_t)P->cur;
	in->line = line;
	in->name = (uint32_t)pos;
	in->vec = 1;
	in->target = NOREG;

	pdec D = { .P = P, .in = in, .ops = P->ops, .nops = nops, .line = line };
	D.text = m->pool + pos;
	const char *dot = strchr(D.text, '.');
	size_t blen = dot ? (size_t)(dot - D.text) : strlen(D.text);
	int opc = lookup_op(D.text, blen);
	if (!opc)
		return dx_bad(&D);
	in->op = (uint16_t)opc;
	int unknown = split_mods(D.text + blen, &D.mods);
	if (ptx__arch_check(&D, opc))
		return -1;
	int (*dec)(pdec *) = decoder_of(opc);
	if (unknown || !dec)
		return dx_bad(&D);
	if (dec(&D) || dx_error(&D))
		return -1;
	m->ncode++;
	return 0;
}

/* ------------------------------------------------- function epilogue */

static uint32_t slot_of(pfunc *f, uint32_t r, int *bad)
{
	if (r == NOREG)
		return r;
	uint32_t i = TAG_IDX(r);
	switch (TAG_KIND(r)) {
	case TAG_GPR: return i;
	case TAG_SSLOT: return f->ngpr + i;
	case TAG_CONST: return f->ngpr + f->nsreg + i;
	case TAG_SINK: return f->ngpr + f->nsreg + f->nconst;
	default: *bad = 1; return 0;
	}
}

int ptx__finish_function(pparse *P, uint32_t fi)
{
	ptx_module *m = P->m;
	/* Falling off the end returns, like an implicit ret. */
	pinsn *code = pgrow(P, m->code, &m->code_cap, m->ncode + 1, sizeof(pinsn));
	if (!code)
		return -1;
	m->code = code;
	pinsn *r = &code[m->ncode];
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < 4; i++)
		r->d[i] = NOREG;
	for (int i = 0; i < 5; i++)
		r->s[i] = NOREG;
	r->op = OP_ret;
	r->guard = NOREG;
	r->func = (uint16_t)fi;
	r->line = P->L.line;
	r->name = 0;     /* the pool starts with "ret" */
	r->vec = 1;
	m->ncode++;
	pfunc *f = &m->funcs[fi];
	f->ninsn = m->ncode - f->first;
	for (uint32_t i = 0; i < P->nfixups; i++) {
		pfixup *x = &P->fixups[i];
		int32_t pc = map_get(&P->labels, x->name, x->len);
		if (pc < 0)
			return perr(P, x->line, PTX_ESYNTAX, "Unknown label '%.*s'", (int)x->len, x->name);
		m->code[x->insn].target = (uint32_t)pc;
	}
	P->nfixups = 0;
	uint64_t slots = (uint64_t)f->ngpr + f->nsreg + f->nconst + 1;
	if (slots > MAX_SLOTS)
		return perr(P, f->line, PTX_ESYNTAX, "function '%s' uses too many registers", f->name);
	f->nslots = (uint32_t)slots;
	int bad = 0;
	for (uint32_t pc = f->first; pc < m->ncode; pc++) {
		pinsn *in = &m->code[pc];
		for (int i = 0; i < 4; i++)
			in->d[i] = slot_of(f, in->d[i], &bad);
		for (int i = 0; i < 5; i++)
			in->s[i] = slot_of(f, in->s[i], &bad);
		in->guard = slot_of(f, in->guard, &bad);
	}
	if (bad)
		return perr(P, f->line, PTX_ESYNTAX, "internal error: bad register reference");
	return 0;
}
