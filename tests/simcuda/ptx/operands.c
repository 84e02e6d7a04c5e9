/* operands.c: the decoder's view of operands: type properties, literals converted to an
 * instruction's type, modifier words, and turning parsed operands into register slots
 * (immediates become per-function constant slots, special registers per-function sreg
 * slots, variable names constant slots holding their address). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

const char *const ptx__type_names[T_COUNT] = {
	"",
#define X(n) #n,
	PTX_TYPES(X)
#undef X
};

const char *ptx__type_name(int t)
{
	return t > 0 && t < T_COUNT ? ptx__type_names[t] : "?";
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
	return ptx__perr(P, D->line, st, "%s", msg);
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

int dx_take_first(pdec *D, int w1, int w2)
{
	for (int i = 0; i < D->mods.nwords; i++) {
		int w = D->mods.words[i];
		if ((w == w1 || w == w2) && !(D->mods.used & (1u << i))) {
			D->mods.used |= 1u << i;
			return w;
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
	pconst *c = ptx__grow(D->P, f->consts, &f->const_cap, f->nconst + 1, sizeof(pconst));
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
			if (ptx__sreg_check(D, (int)TAG_IDX(o->reg)))
				return NOREG;
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
	if (o->kind == O_REG && TAG_KIND(o->reg) == TAG_SREG && !o->neg &&
	    TAG_IDX(o->reg) == SR_is_explicit_cluster)     /* the one .pred special register */
		return dx_elem_src(D, o, T_pred);
	dx_fail(D, PTX_ESYNTAX, "bad predicate operand for '%s'", D->text);
	return NOREG;
}

/* Address operand i: base slot in in->s[4], offset in in->off.  Returns the space of a
 * symbol base (for .param accesses), or -1. */
int dx_addr(pdec *D, int i)
{
	const popnd *o = opnd(D, i);
	pinsn *in = D->in;
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
	pfixup *f = ptx__grow(P, P->fixups, &P->fixups_cap, P->nfixups + 1, sizeof(pfixup));
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

/* call{.uni} [(ret),] func [, (args)]: arguments are .param variables of the caller, or
 * registers and constants for the callee's .reg parameters. */
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
	const pfunc *callee = &m->funcs[c.callee];
	if (o->kind == O_LIST) {
		if (o->n > MAX_CALL_ARGS)
			return dx_fail(D, PTX_EUNKNOWN, "more than %d arguments in '%s'", MAX_CALL_ARGS,
				       D->text);
		for (int j = 0; j < o->n; j++) {
			const popnd *a = &o->elem[j];
			if (j < (int)callee->nparams && m->syms[callee->params[j]].space == SP_REGPARAM) {
				if (a->kind != O_REG && a->kind != O_IMM)
					return dx_fail(D, PTX_ESYNTAX, "argument %d of '%s' must be a register or "
						       "a constant", j + 1, D->text);
				c.args[c.nargs++] = (int32_t)dx_elem_src(D, a, m->syms[callee->params[j]].elem);
				continue;
			}
			if (a->kind != O_SYM || m->syms[a->sym].space != SP_PARAM)
				return dx_fail(D, PTX_EUNKNOWN, "call arguments must be .param variables");
			c.args[c.nargs++] = a->sym;
		}
		i++;
	}
	if (i != D->nops)
		return dx_fail(D, PTX_ESYNTAX, "bad operands for '%s'", D->text);
	pcall *cs = ptx__grow(P, m->calls, &m->calls_cap, m->ncalls + 1, sizeof(pcall));
	if (!cs)
		return -1;
	m->calls = cs;
	cs[m->ncalls] = c;
	D->in->aux = m->ncalls++;
	pfunc *f = curf(D);
	uint32_t *cl = ptx__grow(P, f->callees, &f->callee_cap, f->ncallees + 1, sizeof(uint32_t));
	if (!cl)
		return -1;
	f->callees = cl;
	cl[f->ncallees++] = c.callee;
	return 0;
}


int dx_reglist(pdec *D, int i, int n, int dst, int type, uint32_t *out)
{
	const popnd *o = opnd(D, i);
	if (o->kind != O_VEC && !(n == 1 && (o->kind == O_REG || o->kind == O_SINK)))
		return dx_fail(D, PTX_ESYNTAX, "operand %d of '%s' must be a vector of %d registers",
			       i + 1, D->text, n);
	if (o->kind == O_VEC && o->n != n)
		return dx_fail(D, PTX_ESYNTAX, "Argument %d of instruction '%.*s': expected a vector "
			       "of %d registers, got %d", i, (int)strcspn(D->text, "."), D->text, n,
			       o->n);
	for (int j = 0; j < n; j++) {
		const popnd *e = o->kind == O_VEC ? &o->elem[j] : o;
		out[j] = dst ? dx_elem_dst(D, e) : dx_elem_src(D, e, type);
	}
	return dx_error(D) ? -1 : 0;
}

pmx *dx_new_mx(pdec *D)
{
	ptx_module *m = D->P->m;
	pmx *x = ptx__grow(D->P, m->mx, &m->mx_cap, m->nmx + 1, sizeof(pmx));
	if (!x)
		return NULL;
	m->mx = x;
	x = &m->mx[m->nmx];
	memset(x, 0, sizeof(*x));
	for (int i = 0; i < MX_REGS; i++)
		x->r[i] = NOREG;
	D->in->aux = m->nmx++;
	return x;
}
