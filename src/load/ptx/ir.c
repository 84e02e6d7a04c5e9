/* ir.c: the instruction list a rule builds, and its printer.
 * The printed block declares its own temporaries, so nothing outside it changes; only the
 * instructions that write the original's destinations carry the original's guard. */
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"

void ptxl_ir_init(iseq *S)
{
	S->n = S->nr = S->nh = S->nd = S->np = S->nlabels = S->npred = S->overflow = 0;
	S->nlists = 0;
}

iarg ptxl_ir_anylist(iseq *S, const iarg *regs, int n)
{
	iarg l = ptxl_ir_list(regs, n);
	if (l.k != IA_NONE)
		return l;
	if (S->nlists == IR_MAX_LISTS || n < 1 || n > IR_LIST_LEN) {
		S->overflow = 1;
		return (iarg){ IA_NONE, 0, 0, 0 };
	}
	memcpy(S->list[S->nlists], regs, (size_t)n * sizeof(iarg));
	return (iarg){ IA_LIST, 0, (uint16_t)S->nlists++, (uint64_t)n };
}

iarg ptxl_ir_temps(iseq *S, int kind, int n)
{
	int *count = kind == IA_R ? &S->nr : kind == IA_H ? &S->nh : kind == IA_D ? &S->nd : &S->np;
	iarg a = { (uint8_t)kind, 0, (uint16_t)*count, 0 };
	if (n < 1 || *count + n > IR_MAX_TEMPS)
		S->overflow = 1;
	else
		*count += n;
	return a;
}

iarg ptxl_ir_temp(iseq *S, int kind)
{
	return ptxl_ir_temps(S, kind, 1);
}

iarg ptxl_ir_label(iseq *S)
{
	return (iarg){ IA_LABEL, 0, 0, (uint64_t)S->nlabels++ };
}

void ptxl_ir_place(iseq *S, iarg label)
{
	ptxl_ir_emit(S, 0, "", &label, 1);
}

iarg ptxl_ir_list(const iarg *regs, int n)
{
	iarg none = { IA_NONE, 0, 0, 0 };
	for (int j = 1; j < n; j++)
		if (regs[j].k != regs[0].k || regs[j].i != regs[0].i + (regs[0].k == IA_VEC ? 0 : j) ||
		    (regs[0].k == IA_VEC && regs[j].part != regs[0].part + j))
			return none;
	if (n >= 1 && regs[0].k == IA_VEC)
		return (iarg){ IA_OVEC, regs[0].part, regs[0].i, (uint64_t)n };
	if (n >= 1 && regs[0].k >= IA_R && regs[0].k <= IA_P)
		return (iarg){ IA_TVEC, regs[0].k, regs[0].i, (uint64_t)n };
	return none;
}

void ptxl_ir_emit(iseq *S, int guarded, const char *op, const iarg *args, int nargs)
{
	if (S->n >= IR_MAX_INSNS || nargs > IR_MAX_ARGS || strlen(op) >= sizeof(S->in[0].op)) {
		S->overflow = 1;
		return;
	}
	iinsn *in = &S->in[S->n++];
	strcpy(in->op, op);
	in->guarded = (uint8_t)guarded;
	in->pneg = 0;
	in->pred = (iarg){ IA_NONE, 0, 0, 0 };
	in->nargs = (uint8_t)nargs;
	if (nargs > 0)
		memcpy(in->a, args, (size_t)nargs * sizeof(iarg));
}

void ptxl_ir_pred(iseq *S, iarg p, int neg)
{
	if (S->overflow || !S->n || p.k != IA_P) {
		S->overflow = 1;
		return;
	}
	S->in[S->n - 1].pred = p;
	S->in[S->n - 1].pneg = (uint8_t)(neg != 0);
	S->npred++;
}

typedef struct pbuf {
	char *p;
	size_t n, cap;
	int full;
} pbuf;

static void put(pbuf *B, const char *s, size_t len)
{
	if (B->full || B->n + len >= B->cap) {
		B->full = 1;
		return;
	}
	memcpy(B->p + B->n, s, len);
	B->n += len;
}

static void puts_(pbuf *B, const char *s)
{
	put(B, s, strlen(s));
}

static void putf(pbuf *B, const char *fmt, const char *prefix, unsigned long long v)
{
	char tmp[96];
	int k = snprintf(tmp, sizeof(tmp), fmt, prefix, v);
	if (k < 0 || (size_t)k >= sizeof(tmp))
		B->full = 1;
	else
		put(B, tmp, (size_t)k);
}

/* Operand i, or one side of "p|q". */
static void put_opnd(pbuf *B, const pinst *I, iarg a)
{
	if (a.i >= I->nops) {
		B->full = 1;
		return;
	}
	const char *s = I->op[a.i], *bar = strchr(s, '|');
	if (a.part == 3)
		puts_(B, s + (s[0] == '!'));
	else if (a.part == 0 || !bar)
		puts_(B, a.part == 2 ? "" : s);
	else if (a.part == 1)
		put(B, s, (size_t)(bar - s));
	else
		puts_(B, bar + 1);
}

static void put_temp(pbuf *B, const char *prefix, int kind, unsigned long long i)
{
	static const char letter[] = { [IA_R] = 'r', [IA_H] = 'h', [IA_D] = 'd', [IA_P] = 'p' };
	char fmt[8] = "%s?%llu";
	if (kind < IA_R || kind > IA_P) {
		B->full = 1;
		return;
	}
	fmt[2] = letter[kind];
	putf(B, fmt, prefix, i);
}

/* "+16", "+-8", or nothing for 0. */
static void put_offset(pbuf *B, long long off)
{
	if (off)
		putf(B, off < 0 ? "%s+-%llu" : "%s+%llu", "",
		     off < 0 ? 0ull - (unsigned long long)off : (unsigned long long)off);
}

static void put_omem(pbuf *B, const pinst *I, iarg a)
{
	paddr A;
	if (a.i >= I->nops || ptxl_addr_parse(I->op[a.i], &A)) {
		B->full = 1;
		return;
	}
	long long off = A.off + (long long)a.v;
	puts_(B, "[");
	if (A.kind == AB_NONE)
		putf(B, "%s%lld", "", (unsigned long long)off);
	else {
		puts_(B, A.base);
		put_offset(B, off);
	}
	puts_(B, "]");
}

/* Element j of the original's vector operand i. */
static void put_elem(pbuf *B, const pinst *I, int i, int j)
{
	const char *s;
	size_t len;
	if (i >= I->nops || ptxl_vec_elem(I->op[i], j, &s, &len))
		B->full = 1;
	else
		put(B, s, len);
}

static void put_arg(pbuf *B, const iseq *S, const pinst *I, const char *prefix, const char *lprefix,
		    iarg a)
{
	switch (a.k) {
	case IA_R: case IA_H: case IA_D: case IA_P:
		put_temp(B, prefix, a.k, a.i);
		break;
	case IA_IMM:   /* shift counts and small masks read better in decimal */
		putf(B, a.v < 256 ? "%s%llu" : "%s0x%llx", "", (unsigned long long)a.v);
		break;
	case IA_OPND: put_opnd(B, I, a); break;
	case IA_VEC: put_elem(B, I, a.i, a.part); break;
	case IA_OVEC:
		puts_(B, "{");
		for (uint64_t j = 0; j < a.v; j++) {
			puts_(B, j ? ", " : "");
			put_elem(B, I, a.i, (int)(a.part + j));
		}
		puts_(B, "}");
		break;
	case IA_TVEC:
		puts_(B, "{");
		for (uint64_t j = 0; j < a.v; j++) {
			puts_(B, j ? ", " : "");
			put_temp(B, prefix, a.part, a.i + j);
		}
		puts_(B, "}");
		break;
	case IA_MEM:
		puts_(B, "[");
		put_temp(B, prefix, a.part, a.i);
		put_offset(B, (long long)a.v);
		puts_(B, "]");
		break;
	case IA_OMEM: put_omem(B, I, a); break;
	case IA_OBASE: {
		paddr A;
		if (a.i >= I->nops || ptxl_addr_parse(I->op[a.i], &A) || A.kind == AB_NONE)
			B->full = 1;
		else
			puts_(B, A.base);
		break;
	}
	case IA_LABEL: putf(B, "%sL%llu", lprefix, (unsigned long long)a.v); break;
	case IA_TEXT: puts_(B, (const char *)(uintptr_t)a.v); break;
	case IA_LIST:
		puts_(B, a.part ? "(" : "{");
		for (uint64_t j = 0; j < a.v && a.i < S->nlists; j++) {
			puts_(B, j ? ", " : "");
			if (S->list[a.i][j].k == IA_LIST)
				B->full = 1;
			else
				put_arg(B, S, I, prefix, lprefix, S->list[a.i][j]);
		}
		puts_(B, a.part ? ")" : "}");
		break;
	default: B->full = 1; break;
	}
}

static void put_guard(pbuf *B, const pinst *I)
{
	puts_(B, I->guard_neg ? "@!" : "@");
	puts_(B, I->guard);
	puts_(B, " ");
}

size_t ptxl_ir_print(const iseq *S, const pinst *I, const char *prefix, const char *lprefix,
		     char *out, size_t cap)
{
	pbuf B = { out, 0, cap, S->overflow };
	int nguarded = 0;
	for (int i = 0; i < S->n; i++)
		nguarded += S->in[i].guarded;
	/* A block with branches or predicates of its own is skipped as a whole where the
	 * guard is false: an instruction takes one predicate only. */
	int skip = I->guard && (S->nlabels || S->npred);
	/* Several guarded writes: the first could change the guard, so test a copy. */
	int copy_guard = I->guard && nguarded > 1 && !skip;
	puts_(&B, "{ // bf16shim-lower: ");
	puts_(&B, I->comment);
	puts_(&B, "\n");
	static const struct { const char *type, *letter; } decl[] = {
		{ ".b32", "r" }, { ".b16", "h" }, { ".b64", "d" }, { ".pred", "p" },
	};
	int counts[4] = { S->nr, S->nh, S->nd, S->np + copy_guard };
	for (int k = 0; k < 4; k++) {
		if (!counts[k])
			continue;
		puts_(&B, "\t.reg ");
		puts_(&B, decl[k].type);
		putf(&B, " %s", prefix, 0);
		puts_(&B, decl[k].letter);
		putf(&B, "%s<%llu>;\n", "", (unsigned long long)counts[k]);
	}
	if (skip) {
		puts_(&B, I->guard_neg ? "\t@" : "\t@!");
		puts_(&B, I->guard);
		putf(&B, " bra %sskip;\n", lprefix, 0);
	}
	int guard_done = 0;
	for (int i = 0; i < S->n; i++) {
		const iinsn *in = &S->in[i];
		if (!in->op[0]) {   /* a label */
			put_arg(&B, S, I, prefix, lprefix, in->a[0]);
			puts_(&B, ":\n");
			continue;
		}
		puts_(&B, "\t");
		if (in->pred.k == IA_P) {
			puts_(&B, in->pneg ? "@!" : "@");
			put_temp(&B, prefix, IA_P, in->pred.i);
			puts_(&B, " ");
		} else if (in->guarded && I->guard && !skip) {
			if (copy_guard && !guard_done) {
				puts_(&B, I->guard_neg ? "not.pred " : "mov.pred ");
				putf(&B, "%sp%llu, ", prefix, (unsigned long long)S->np);
				puts_(&B, I->guard);
				puts_(&B, ";\n\t");
				guard_done = 1;
			}
			if (copy_guard)
				putf(&B, "@%sp%llu ", prefix, (unsigned long long)S->np);
			else
				put_guard(&B, I);
		}
		puts_(&B, in->op);
		for (int k = 0; k < in->nargs; k++) {
			puts_(&B, k ? ", " : " ");
			put_arg(&B, S, I, prefix, lprefix, in->a[k]);
		}
		puts_(&B, ";\n");
	}
	if (skip)
		putf(&B, "%sskip:\n", lprefix, 0);
	puts_(&B, "\t}");
	return B.full ? 0 : B.n;
}
