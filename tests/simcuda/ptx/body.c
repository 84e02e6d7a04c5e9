/* body.c: function bodies: scopes, .reg declarations, labels, guards and the operands
 * of each instruction, which are handed to the decoder as parsed operands. */
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static const char *const sreg_names[SR_COUNT] = {
#define X(id, s) s,
	PTX_SREGS(X)
#undef X
};

int ptx__bind(pparse *P, const char *name, uint32_t len, int kind, uint32_t val,
	      uint32_t count)
{
	pbind *b = ptx__grow(P, P->binds, &P->binds_cap, P->nbinds + 1, sizeof(pbind));
	if (!b)
		return -1;
	P->binds = b;
	pbind *n = &b[P->nbinds];
	n->name = name;
	n->len = len;
	n->kind = (uint8_t)kind;
	n->val = val;
	n->count = count;
	n->prev = ptx__map_get(&P->scoped, name, len);
	n->depth = P->depth;
	if (ptx__map_put(&P->scoped, name, len, (int32_t)P->nbinds))
		return ptx__perr(P, P->L.line, PTX_ENOMEM, "out of memory");
	P->nbinds++;
	return 0;
}

static void pop_scope(pparse *P)
{
	while (P->nbinds && P->binds[P->nbinds - 1].depth == P->depth) {
		pbind *b = &P->binds[--P->nbinds];
		ptx__map_put(&P->scoped, b->name, b->len, b->prev);
	}
	P->depth--;
}

int ptx__parse_number(ptok t, popnd *o)
{
	memset(o, 0, sizeof(*o));
	o->reg = o->reg2 = NOREG;
	o->sym = -1;
	const char *s = t.s;
	uint32_t n = t.n;
	if (t.k != TK_NUM || !n)
		return -1;
	uint64_t v = 0;
	if (n > 2 && s[0] == '0' && strchr("fFdDxXbB", s[1])) {
		char c = (char)(s[1] | 0x20);
		uint32_t i = 2, end = n;
		if (c == 'x' || c == 'b')
			while (end > 2 && (s[end - 1] == 'U' || s[end - 1] == 'u'))
				end--;
		if ((c == 'f' && end != 10) || (c == 'd' && end != 18) || end <= 2)
			return -1;
		for (; i < end; i++) {
			int d;
			char ch = s[i];
			if (ch >= '0' && ch <= '9')
				d = ch - '0';
			else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f' && c != 'b')
				d = (ch | 0x20) - 'a' + 10;
			else
				return -1;
			if (c == 'b' && d > 1)
				return -1;
			v = c == 'b' ? v * 2 + (uint64_t)d : v * 16 + (uint64_t)d;
		}
		o->kind = c == 'f' || c == 'd' ? O_FIMM : O_IMM;
		o->fkind = (uint8_t)c;
		o->imm = (int64_t)v;
		return 0;
	}
	int is_float = 0;
	for (uint32_t i = 0; i < n; i++)
		if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
			is_float = 1;
	if (is_float) {
		char buf[80];
		if (n >= sizeof(buf))
			return -1;
		memcpy(buf, s, n);
		buf[n] = 0;
		char *end;
		o->f = strtod(buf, &end);
		if (*end)
			return -1;
		o->kind = O_FIMM;
		o->fkind = 'x';
		return 0;
	}
	uint32_t end = n;
	while (end > 1 && (s[end - 1] == 'U' || s[end - 1] == 'u'))
		end--;
	int base = s[0] == '0' && end > 1 ? 8 : 10;
	for (uint32_t i = 0; i < end; i++) {
		if (s[i] < '0' || s[i] >= '0' + base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)(s[i] - '0');
	}
	o->kind = O_IMM;
	o->imm = (int64_t)v;
	return 0;
}

void ptx__negate_literal(popnd *o)
{
	if (o->kind == O_IMM)
		o->imm = (int64_t)(0 - (uint64_t)o->imm);
	else if (o->fkind == 'f')
		o->imm ^= 0x80000000ll;
	else if (o->fkind == 'd')
		o->imm = (int64_t)((uint64_t)o->imm ^ 0x8000000000000000ull);
	else
		o->f = -o->f;
}

/* Resolves a name in operand position: register, variable, function, special register,
 * or (not yet known) a label. */
static void lookup(pparse *P, const char *s, uint32_t n, popnd *o)
{
	int32_t bi = ptx__map_get(&P->scoped, s, n);
	if (bi >= 0 && P->binds[bi].kind != B_RANGE) {
		pbind *b = &P->binds[bi];
		if (b->kind == B_REG) {
			o->kind = O_REG;
			o->reg = TAG_GPR | b->val;
		} else {
			o->kind = O_SYM;
			o->sym = (int32_t)b->val;
		}
		return;
	}
	uint32_t k = n;
	while (k > 1 && s[k - 1] >= '0' && s[k - 1] <= '9')
		k--;
	if (k < n && (s[k] != '0' || k == n - 1) && n - k < 9) {
		uint32_t num = 0;
		for (uint32_t i = k; i < n; i++)
			num = num * 10 + (uint32_t)(s[i] - '0');
		for (bi = ptx__map_get(&P->scoped, s, k); bi >= 0; bi = P->binds[bi].prev) {
			pbind *b = &P->binds[bi];
			if (b->kind == B_RANGE && num < b->count) {
				o->kind = O_REG;
				o->reg = TAG_GPR | (b->val + num);
				return;
			}
		}
	}
	/* WARP_SZ, among the PTX ISA's predefined identifiers (4.4, "Identifiers"): the warp
	 * size, 32 on every architecture (CUDA C++ Programming Guide, "Compute Capabilities",
	 * technical specifications: warp size 32).  nvcc writes it for warpSize. */
	if (n == 7 && memcmp(s, "WARP_SZ", 7) == 0) {
		o->kind = O_IMM;
		o->imm = 32;
		return;
	}
	if (s[0] == '%') {
		for (int i = 0; i < SR_COUNT; i++) {
			if (strlen(sreg_names[i]) == n && memcmp(sreg_names[i], s, n) == 0) {
				o->kind = O_REG;
				o->reg = TAG_SREG | (uint32_t)i;
				return;
			}
		}
	}
	int32_t mi = ptx__map_get(&P->modnames, s, n);
	if (mi >= 0 && (mi & FUNC_TAG)) {
		o->kind = O_FUNC;
		o->sym = mi & ~FUNC_TAG;
	} else if (mi >= 0) {
		o->kind = O_SYM;
		o->sym = mi;
	} else {
		o->kind = O_NAME;
		o->name = s;
		o->namelen = n;
	}
}

static int signed_number(pparse *P, int64_t *v)
{
	ptok t = lx_next(&P->L);
	int neg = 0;
	if (lx_punct(t, '-')) {
		neg = 1;
		t = lx_next(&P->L);
	}
	popnd o;
	if (ptx__parse_number(t, &o) || o.kind != O_IMM)
		return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error: expected an integer");
	*v = neg ? (int64_t)(0 - (uint64_t)o.imm) : o.imm;
	return 0;
}

static int parse_addr(pparse *P, popnd *o)
{
	ptok t = lx_next(&P->L);
	o->kind = O_ADDR;
	if (t.k == TK_ID) {
		popnd b;
		memset(&b, 0, sizeof(b));
		b.reg = b.reg2 = NOREG;
		b.sym = -1;
		lookup(P, t.s, t.n, &b);
		if (b.kind == O_REG)
			o->reg = b.reg;
		else if (b.kind == O_SYM)
			o->sym = b.sym;
		else
			return ptx__perr(P, t.line, PTX_ESYNTAX, "Unknown symbol '%.*s'", (int)t.n, t.s);
	} else if (t.k == TK_NUM) {
		popnd b;
		if (ptx__parse_number(t, &b) || b.kind != O_IMM)
			return ptx__perr(P, t.line, PTX_ESYNTAX, "bad address");
		o->imm = b.imm;
	} else {
		return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error in address");
	}
	t = lx_peek(&P->L);
	if (lx_punct(t, '+') || lx_punct(t, '-')) {
		lx_next(&P->L);
		int64_t v;
		if (signed_number(P, &v))
			return -1;
		o->imm += lx_punct(t, '-') ? -v : v;
	}
	t = lx_next(&P->L);
	if (!lx_punct(t, ']'))
		return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error: expected ']'");
	return 0;
}

static int parse_operand(pparse *P, popnd *o, int depth);

static int parse_group(pparse *P, popnd *o, char close, int kind, int depth)
{
	o->kind = (uint8_t)kind;
	o->elem = &P->elems[P->nelems];
	o->n = 0;
	if (lx_punct(lx_peek(&P->L), close)) {
		lx_next(&P->L);
		return 0;
	}
	for (;;) {
		if (P->nelems >= MAX_ELEMS)
			return ptx__perr(P, P->L.line, PTX_ESYNTAX, "too many operands");
		popnd *e = &P->elems[P->nelems++];
		o->n++;
		if (parse_operand(P, e, depth + 1))
			return -1;
		ptok t = lx_next(&P->L);
		if (lx_punct(t, close))
			return 0;
		if (!lx_punct(t, ','))
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error in operand list");
	}
}

static int parse_operand(pparse *P, popnd *o, int depth)
{
	memset(o, 0, sizeof(*o));
	o->reg = o->reg2 = NOREG;
	o->sym = -1;
	ptok t = lx_next(&P->L);
	if (depth > 1)
		return ptx__perr(P, t.line, PTX_ESYNTAX, "nested operand lists");
	if (lx_punct(t, '!')) {
		o->neg = 1;
		t = lx_next(&P->L);
		if (t.k != TK_ID)
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error after '!'");
	}
	if (lx_punct(t, '-')) {
		t = lx_next(&P->L);
		if (ptx__parse_number(t, o))
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error: bad number");
		ptx__negate_literal(o);
		return 0;
	}
	if (t.k == TK_NUM) {
		if (ptx__parse_number(t, o))
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error: bad number '%.*s'",
				    (int)(t.n > 40 ? 40 : t.n), t.s);
		return 0;
	}
	if (lx_punct(t, '['))
		return parse_addr(P, o);
	if (lx_punct(t, '{'))
		return parse_group(P, o, '}', O_VEC, depth);
	if (lx_punct(t, '('))
		return parse_group(P, o, ')', O_LIST, depth);
	if (t.k != TK_ID || t.s[0] == '.' || t.n > MAX_NAME)
		return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error: unexpected '%.*s'",
			    (int)(t.n > 40 ? 40 : t.n), t.s);
	if (t.n == 1 && t.s[0] == '_') {
		o->kind = O_SINK;
		return 0;
	}
	lookup(P, t.s, t.n, o);
	if (o->kind == O_REG && lx_punct(lx_peek(&P->L), '|')) {
		lx_next(&P->L);
		ptok q = lx_next(&P->L);
		popnd r;
		memset(&r, 0, sizeof(r));
		if (q.k == TK_ID && q.n == 1 && q.s[0] == '_') {
			o->reg2 = TAG_SINK;
			return 0;
		}
		if (q.k == TK_ID)
			lookup(P, q.s, q.n, &r);
		if (r.kind != O_REG)
			return ptx__perr(P, q.line, PTX_ESYNTAX, "syntax error after '|'");
		o->reg2 = r.reg;
	} else if ((o->kind == O_SYM || o->kind == O_NAME) && lx_punct(lx_peek(&P->L), '+')) {
		lx_next(&P->L);
		if (signed_number(P, &o->imm))
			return -1;
	}
	return 0;
}

static int bits_of(ptok t)
{
	static const struct { const char *n; int bits; } tab[] = {
		{".pred", 1}, {".b8", 8}, {".u8", 8}, {".s8", 8}, {".b16", 16}, {".u16", 16},
		{".s16", 16}, {".f16", 16}, {".bf16", 16}, {".b32", 32}, {".u32", 32},
		{".s32", 32}, {".f32", 32}, {".f16x2", 32}, {".bf16x2", 32}, {".b64", 64},
		{".u64", 64}, {".s64", 64}, {".f64", 64},
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (lx_is(t, tab[i].n))
			return tab[i].bits;
	return 0;
}

static int parse_reg(pparse *P, pfunc *f)
{
	ptok t = lx_next(&P->L);
	int bits = bits_of(t);
	if (!bits)
		return ptx__perr(P, t.line, PTX_EUNKNOWN, "Unsupported register type '%.*s'",
			    (int)(t.n > 40 ? 40 : t.n), t.s);
	for (;;) {
		ptok nm = lx_next(&P->L);
		if (nm.k != TK_ID || nm.s[0] == '.' || nm.n > MAX_NAME)
			return ptx__perr(P, nm.line, PTX_ESYNTAX, "syntax error: expected a register name");
		uint64_t count = 1;
		int range = lx_punct(lx_peek(&P->L), '<');
		if (range) {
			lx_next(&P->L);
			ptok c = lx_next(&P->L);
			popnd o;
			if (ptx__parse_number(c, &o) || o.kind != O_IMM || o.imm < 0 ||
			    !lx_punct(lx_next(&P->L), '>'))
				return ptx__perr(P, c.line, PTX_ESYNTAX, "syntax error in register range");
			count = (uint64_t)o.imm;
		}
		if (f->ngpr + count > MAX_SLOTS)
			return ptx__perr(P, nm.line, PTX_ESYNTAX, "too many registers");
		uint8_t *gb = realloc(f->gpr_bits, (size_t)(f->ngpr + count) + 1);
		if (!gb)
			return ptx__perr(P, nm.line, PTX_ENOMEM, "out of memory");
		f->gpr_bits = gb;
		memset(gb + f->ngpr, bits, (size_t)count);
		if (ptx__bind(P, nm.s, nm.n, range ? B_RANGE : B_REG, f->ngpr, (uint32_t)count))
			return -1;
		f->ngpr += (uint32_t)count;
		ptok s = lx_next(&P->L);
		if (lx_punct(s, ';'))
			return 0;
		if (!lx_punct(s, ','))
			return ptx__perr(P, s.line, PTX_ESYNTAX, "syntax error in .reg");
	}
}

static int parse_instruction(pparse *P, ptok op, uint32_t guard, int gneg)
{
	int nops = 0;
	P->nelems = 0;
	if (op.n > 200)
		return ptx__perr(P, op.line, PTX_EUNKNOWN, "Unknown instruction '%.40s...'", op.s);
	if (!lx_punct(lx_peek(&P->L), ';')) {
		for (;;) {
			if (nops >= MAX_OPS)
				return ptx__perr(P, op.line, PTX_ESYNTAX, "too many operands");
			if (parse_operand(P, &P->ops[nops++], 0))
				return -1;
			ptok t = lx_next(&P->L);
			if (lx_punct(t, ';'))
				break;
			if (!lx_punct(t, ','))
				return ptx__perr(P, t.line, PTX_ESYNTAX,
					    "syntax error: expected ',' or ';' after operand of '%.*s'",
					    (int)op.n, op.s);
		}
	} else {
		lx_next(&P->L);
	}
	if (P->m->ncode >= MAX_INSNS)
		return ptx__perr(P, op.line, PTX_ESYNTAX, "too many instructions");
	return ptx__decode(P, guard, gneg, op, nops, op.line);
}

static int parse_label(pparse *P, ptok t)
{
	lx_next(&P->L);   /* ':' */
	if (ptx__map_get(&P->labels, t.s, t.n) >= 0)
		return ptx__perr(P, t.line, PTX_ESYNTAX, "duplicate label '%.*s'", (int)t.n, t.s);
	if (ptx__map_put(&P->labels, t.s, t.n, (int32_t)P->m->ncode))
		return ptx__perr(P, t.line, PTX_ENOMEM, "out of memory");
	ptok d = lx_peek(&P->L);
	if (lx_is(d, ".branchtargets") || lx_is(d, ".calltargets") || lx_is(d, ".callprototype"))
		return ptx__perr(P, d.line, PTX_EUNKNOWN, "Unsupported directive '%.*s'", (int)d.n, d.s);
	return 0;
}

int ptx__parse_body(pparse *P, uint32_t fi)
{
	ptx_module *m = P->m;
	pfunc *f = &m->funcs[fi];
	f->defined = 1;
	f->first = m->ncode;
	ptx__map_free(&P->labels);
	P->nfixups = 0;
	P->depth = 1;
	for (uint32_t i = 0; i < f->nrets + f->nparams; i++) {
		int32_t si = i < f->nrets ? f->rets[i] : f->params[i - f->nrets];
		psym *y = &m->syms[si];
		int reg = y->space == SP_REGPARAM;
		if (ptx__bind(P, y->name, (uint32_t)strlen(y->name), reg ? B_REG : B_SYM,
			      reg ? y->kparam_off : (uint32_t)si, reg))
			return -1;
	}
	while (!P->st) {
		ptok t = lx_next(&P->L);
		f = &m->funcs[fi];
		if (t.k == TK_EOF)
			return ptx__perr(P, t.line, PTX_ESYNTAX, "unexpected end of input in '%s'", f->name);
		if (lx_punct(t, '{')) {
			if (P->depth >= MAX_NEST)
				return ptx__perr(P, t.line, PTX_ESYNTAX, "blocks nested too deeply");
			P->depth++;
		} else if (lx_punct(t, '}')) {
			pop_scope(P);
			if (P->depth == 0)
				break;
		} else if (lx_punct(t, '@')) {
			int neg = 0;
			ptok r = lx_next(&P->L);
			if (lx_punct(r, '!')) {
				neg = 1;
				r = lx_next(&P->L);
			}
			popnd g;
			memset(&g, 0, sizeof(g));
			if (r.k == TK_ID)
				lookup(P, r.s, r.n, &g);
			if (g.kind != O_REG || TAG_KIND(g.reg) != TAG_GPR)
				return ptx__perr(P, r.line, PTX_ESYNTAX, "syntax error: bad guard predicate");
			ptok op = lx_next(&P->L);
			if (op.k != TK_ID || op.s[0] == '.')
				return ptx__perr(P, op.line, PTX_ESYNTAX, "syntax error: expected an instruction");
			if (parse_instruction(P, op, g.reg, neg))
				return -1;
		} else if (t.k == TK_ID && t.s[0] == '.') {
			if (lx_is(t, ".reg")) {
				if (parse_reg(P, f))
					return -1;
			} else if (lx_is(t, ".local") || lx_is(t, ".shared") || lx_is(t, ".param") ||
				   lx_is(t, ".const") || lx_is(t, ".global")) {
				int sp = t.s[1] == 'g' ? SP_GLOBAL : t.s[1] == 'c' ? SP_CONST :
					 t.s[1] == 's' ? SP_SHARED : t.s[1] == 'l' ? SP_LOCAL : SP_PARAM;
				if (ptx__parse_var(P, sp, 0, t.line))
					return -1;
			} else if (lx_is(t, ".pragma")) {
				ptok s = lx_next(&P->L);
				if (s.k != TK_STR || !lx_punct(lx_next(&P->L), ';'))
					return ptx__perr(P, s.line, PTX_ESYNTAX, "syntax error after .pragma");
			} else if (lx_is(t, ".loc") || lx_is(t, ".file")) {
				while (lx_peek(&P->L).k != TK_EOF && lx_peek(&P->L).line == t.line)
					lx_next(&P->L);
			} else {
				return ptx__perr(P, t.line, PTX_EUNKNOWN, "Unknown directive '%.*s'",
					    (int)(t.n > 40 ? 40 : t.n), t.s);
			}
		} else if (t.k == TK_ID && lx_punct(lx_peek(&P->L), ':')) {
			if (parse_label(P, t))
				return -1;
		} else if (t.k == TK_ID) {
			if (parse_instruction(P, t, NOREG, 0))
				return -1;
		} else {
			return ptx__perr(P, t.line, PTX_ESYNTAX, "syntax error: unexpected '%.*s'",
				    (int)(t.n > 40 ? 40 : t.n), t.s);
		}
	}
	if (P->st)
		return -1;
	return ptx__finish_function(P, fi);
}
