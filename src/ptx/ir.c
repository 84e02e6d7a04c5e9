/* ir.c: the instruction list a rule builds, and its printer.
 * The printed block declares its own temporaries, so nothing outside it changes; only the
 * instructions that write the original's destinations carry the original's guard. */
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"

void ptxl_ir_init(iseq *S)
{
	S->n = S->nr = S->nh = S->nd = S->np = S->overflow = 0;
}

iarg ptxl_ir_temp(iseq *S, int kind)
{
	int *count = kind == IA_R ? &S->nr : kind == IA_H ? &S->nh : kind == IA_D ? &S->nd : &S->np;
	iarg a = { (uint8_t)kind, 0, (uint16_t)*count, 0 };
	if (*count >= 1000)
		S->overflow = 1;
	else
		(*count)++;
	return a;
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
	in->nargs = (uint8_t)nargs;
	memcpy(in->a, args, (size_t)nargs * sizeof(iarg));
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
	if (a.part == 0 || !bar)
		puts_(B, a.part == 2 ? "" : s);
	else if (a.part == 1)
		put(B, s, (size_t)(bar - s));
	else
		puts_(B, bar + 1);
}

static void put_arg(pbuf *B, const pinst *I, const char *prefix, iarg a)
{
	switch (a.k) {
	case IA_R: putf(B, "%sr%llu", prefix, a.i); break;
	case IA_H: putf(B, "%sh%llu", prefix, a.i); break;
	case IA_D: putf(B, "%sd%llu", prefix, a.i); break;
	case IA_P: putf(B, "%sp%llu", prefix, a.i); break;
	case IA_IMM:   /* shift counts and small masks read better in decimal */
		putf(B, a.v < 256 ? "%s%llu" : "%s0x%llx", "", (unsigned long long)a.v);
		break;
	case IA_OPND: put_opnd(B, I, a); break;
	default: B->full = 1; break;
	}
}

static void put_guard(pbuf *B, const pinst *I)
{
	puts_(B, I->guard_neg ? "@!" : "@");
	puts_(B, I->guard);
	puts_(B, " ");
}

size_t ptxl_ir_print(const iseq *S, const pinst *I, const char *prefix, char *out, size_t cap)
{
	pbuf B = { out, 0, cap, S->overflow };
	int nguarded = 0;
	for (int i = 0; i < S->n; i++)
		nguarded += S->in[i].guarded;
	/* Several guarded writes: the first could change the guard, so test a copy. */
	int copy_guard = I->guard && nguarded > 1;
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
	int guard_done = 0;
	for (int i = 0; i < S->n; i++) {
		const iinsn *in = &S->in[i];
		puts_(&B, "\t");
		if (in->guarded && I->guard) {
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
			put_arg(&B, I, prefix, in->a[k]);
		}
		puts_(&B, ";\n");
	}
	puts_(&B, "\t}");
	return B.full ? 0 : B.n;
}
