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


const char *ptx__op_name(int op)
{
	return op > 0 && op < OP_COUNT ? op_names[op] : "?";
}

/* ------------------------------------------------------- dispatch */

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
	case OP_prefetchu: case OP_createpolicy: case OP_applypriority: case OP_discard:
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
	case OP_mma:
		return ptx__dec_mma;
	case OP_wmma:
		return ptx__dec_wmma;
	case OP_ldmatrix: case OP_stmatrix: case OP_movmatrix:
		return ptx__dec_matrix;
	case OP_cp: case OP_mbarrier:
		return ptx__dec_async;
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
		else if (colons && n == 20 && memcmp(p, "sp::ordered_metadata", 20) == 0) {
			/* mma.sp::ordered_metadata: .sp and the word of its variant */
			if (m->nwords < 15) {
				m->words[m->nwords++] = W_sp;
				m->words[m->nwords++] = W_ordered_metadata;
			}
			continue;
		}
		else if (colons && (memcmp(p, "L1::", 4) == 0 || memcmp(p, "L2::", 4) == 0)) {
			/* .L2::cache_hint (a policy operand follows), .L2::evict_* (eviction
			 * priorities: prefetch, createpolicy), .L1::* (eviction priorities of
			 * ld/st), the rest: prefetch sizes (.L2::64B/128B/256B) */
			found = n == 14 && memcmp(p, "L2::cache_hint", 14) == 0 ? W_cache_hint
				: n > 10 && memcmp(p, "L2::evict_", 10) == 0 ? W_evict
				: p[1] == '1' ? W_L1 : W_cachehint;
			if (m->nwords < 16)
				m->words[m->nwords++] = (uint16_t)found;
			continue;
		}
		for (int i = 1; i < T_COUNT && !found; i++)
			if (strlen(ptx__type_names[i]) == n && memcmp(ptx__type_names[i], p, n) == 0) {
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
			return ptx__perr(P, line, PTX_ENOMEM, "out of memory");
		m->pool = p;
		m->pool_cap = cap;
	}
	memcpy(m->pool + pos, op.s, op.n);
	m->pool[pos + op.n] = 0;
	m->npool += op.n + 1;
	pinsn *code = ptx__grow(P, m->code, &m->code_cap, m->ncode + 1, sizeof(pinsn));
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
	pinsn *code = ptx__grow(P, m->code, &m->code_cap, m->ncode + 1, sizeof(pinsn));
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
		int32_t pc = ptx__map_get(&P->labels, x->name, x->len);
		if (pc < 0)
			return ptx__perr(P, x->line, PTX_ESYNTAX, "Unknown label '%.*s'", (int)x->len, x->name);
		m->code[x->insn].target = (uint32_t)pc;
	}
	P->nfixups = 0;
	uint64_t slots = (uint64_t)f->ngpr + f->nsreg + f->nconst + 1;
	if (slots > MAX_SLOTS)
		return ptx__perr(P, f->line, PTX_ESYNTAX, "function '%s' uses too many registers", f->name);
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
	for (; P->mx_done < m->nmx; P->mx_done++)
		for (int i = 0; i < MX_REGS; i++)
			m->mx[P->mx_done].r[i] = slot_of(f, m->mx[P->mx_done].r[i], &bad);
	for (; P->calls_done < m->ncalls; P->calls_done++) {   /* .reg arguments: the caller's slots */
		pcall *c = &m->calls[P->calls_done];
		const pfunc *callee = &m->funcs[c->callee];
		for (uint32_t i = 0; i < c->nargs && i < callee->nparams; i++)
			if (m->syms[callee->params[i]].space == SP_REGPARAM)
				c->args[i] = (int32_t)slot_of(f, (uint32_t)c->args[i], &bad);
	}
	if (bad)
		return ptx__perr(P, f->line, PTX_ESYNTAX, "internal error: bad register reference");
	return 0;
}
