/* emit_atom.c: 16-bit atomics the target lacks, as compare-and-swap loops on the aligned
 * 32-bit word that holds them (PTX ISA 9.7.13.5 atom, 9.7.13.6 red):
 *   atom/red .add.noftz .bf16/.bf16x2 (sm_90) and .f16 (sm_70): the sum rounded to nearest
 *   even once, subnormals kept (.noftz), a NaN result the canonical one.  add.rn.f32 then
 *   a rounding to 8 (11) bits gives exactly that: double rounding is innocuous for a sum
 *   when the first format has 2p + 2 bits or more (S. A. Figueroa, "When is double
 *   rounding innocuous?", SIGNUM Newsletter 30(3), 1995), and f32 has 24 >= 2 * 11 + 2;
 *   atom.cas.b16 (sm_70).
 * The loop reads the word, computes the new one, and swaps it in with atom.cas.b32 until no
 * other thread changed it in between; the value returned is the 16 (32) bits it replaced.
 * .sem becomes membar around the loop (release before, acquire after); .scope stays on the
 * atom.cas; cache qualifiers and a cache policy are dropped. */
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"

enum { AT_BF16, AT_BF16X2, AT_F16, AT_CAS16 };

typedef struct atform {
	int kind, red;            /* AT_*; red: no destination */
	const char *space;        /* "global", "shared" or "" (generic) */
	const char *scope;        /* "cta", "gpu", "sys" or NULL */
	int acquire, release;
	int hint;                 /* a cache-policy operand last */
} atform;

static int at_form(const pinst *I, atform *f)
{
	int add = 0, noftz = 0, cas = 0, b16 = 0;
	memset(f, 0, sizeof(*f));
	f->kind = -1;
	f->space = "";
	f->red = !strcmp(I->word[0], "red");
	for (int i = 1; i < I->nwords; i++) {
		const char *w = I->word[i];
		if (!strcmp(w, "global") || !strcmp(w, "shared") || !strcmp(w, "shared::cta"))
			f->space = w[0] == 'g' ? "global" : "shared";
		else if (!strcmp(w, "cta") || !strcmp(w, "gpu") || !strcmp(w, "sys"))
			f->scope = w;
		else if (!strcmp(w, "acquire") || !strcmp(w, "acq_rel"))
			f->acquire = 1, f->release |= w[1] == 'c' && w[2] == 'q' && w[3] == '_';
		else if (!strcmp(w, "release"))
			f->release = 1;
		else if (!strcmp(w, "relaxed"))
			continue;
		else if (!strcmp(w, "L2::cache_hint"))
			f->hint = 1;
		else if (!strcmp(w, "add"))
			add = 1;
		else if (!strcmp(w, "noftz"))
			noftz = 1;
		else if (!strcmp(w, "cas"))
			cas = 1;
		else if (!strcmp(w, "bf16"))
			f->kind = AT_BF16;
		else if (!strcmp(w, "bf16x2"))
			f->kind = AT_BF16X2;
		else if (!strcmp(w, "f16"))
			f->kind = AT_F16;
		else if (!strcmp(w, "b16"))
			b16 = 1;
		else
			return -1;
	}
	if (cas && b16 && !add && !noftz && f->kind < 0 && !f->red) {
		f->kind = AT_CAS16;
		return I->nops == 4 + f->hint ? 0 : -1;
	}
	if (!add || !noftz || cas || b16 || f->kind < 0)
		return -1;
	return I->nops == (f->red ? 2 : 3) + f->hint ? 0 : -1;
}

int ptxl_need_atom(const pinst *I, const lctx *ctx)
{
	atform f;
	(void)ctx;
	if (at_form(I, &f))
		return 0;
	return f.kind == AT_BF16 || f.kind == AT_BF16X2 ? 90 : 70;
}

/* The sum of two 16-bit floats in bits 0-15 of a and b (bf16 or f16), in bits 0-15. */
static iarg add16(iseq *S, int kind, iarg a, iarg b)
{
	iarg x = ir_r(S), y = ir_r(S), s = ir_r(S);
	if (kind == AT_F16) {
		iarg h = ir_h(S);
		E(S, "cvt.u16.u32", h, a);
		E(S, "cvt.f32.f16", x, h);
		E(S, "cvt.u16.u32", h, b);
		E(S, "cvt.f32.f16", y, h);
		E(S, "add.rn.f32", s, x, y);
		E(S, "cvt.rn.f16.f32", h, s);
		iarg r = ir_r(S);
		E(S, "cvt.u32.u16", r, h);
		return r;
	}
	E(S, "shl.b32", x, a, ir_imm(16));
	E(S, "shl.b32", y, b, ir_imm(16));
	E(S, "add.rn.f32", s, x, y);
	return ptxl_bf_round(S, s, RND_RN, 0);
}

/* .release / .acquire at the instruction's scope (the default scope is .gpu). */
static void fence(iseq *S, const atform *f)
{
	const char *sc = f->scope ? f->scope : "gpu";
	E0(S, !strcmp(sc, "cta") ? "membar.cta" : !strcmp(sc, "sys") ? "membar.sys" : "membar.gl");
}

int ptxl_build_atom(iseq *S, const pinst *I, const pmods *M)
{
	atform f;
	if (at_form(I, &f))
		return -1;
	int shared = !strcmp(f.space, "shared"), ai = f.red ? 0 : 1, wide = !shared;
	char ld[40], cas[48];
	snprintf(ld, sizeof(ld), "ld.volatile%s%s.b32", f.space[0] ? "." : "", f.space);
	snprintf(cas, sizeof(cas), "atom%s%s%s%s.cas.b32", f.scope ? "." : "", f.scope ? f.scope : "",
		 f.space[0] ? "." : "", f.space);
	iarg addr, word = wide ? ir_d(S) : ir_r(S), sh = ir_r(S), t = ir_r(S);
	if (ptxl_addr_temp(S, I, M, ai, wide, &addr))
		return -1;
	/* The aligned word and the shift of the half in it (bf16x2: the word itself). */
	E(S, wide ? "and.b64" : "and.b32", word, addr, ir_imm(wide ? ~3ull : 0xfffffffcu));
	if (wide)
		E(S, "cvt.u32.u64", t, addr);
	else
		E(S, "mov.b32", t, addr);
	E(S, "and.b32", sh, t, ir_imm(2));
	E(S, "shl.b32", sh, sh, ir_imm(3));
	iarg b = ir_r(S), c = ir_r(S), old = ir_r(S), cur = ir_r(S), nw = ir_r(S), half = ir_r(S);
	iarg mask = ir_r(S), again = ir_p(S), differ = ir_p(S), loop = ptxl_ir_label(S);
	iarg out = ptxl_ir_label(S);
	int bi = ai + 1;
	if (f.kind == AT_BF16X2) {
		E(S, "mov.b32", b, ir_opnd(bi));
	} else {
		iarg h = ir_h(S);
		E(S, "mov.b16", h, ir_opnd(bi));
		E(S, "cvt.u32.u16", b, h);
		if (f.kind == AT_CAS16) {
			E(S, "mov.b16", h, ir_opnd(bi + 1));
			E(S, "cvt.u32.u16", c, h);
		}
	}
	E(S, "mov.b32", mask, ir_imm(0xffff));
	E(S, "shl.b32", mask, mask, sh);
	if (f.release)
		fence(S, &f);
	E(S, ld, old, ir_mem(word, 0));
	ptxl_ir_place(S, loop);
	if (f.kind == AT_BF16X2) {
		iarg lo = ir_r(S), hi = ir_r(S), bl = ir_r(S), bh = ir_r(S);
		E(S, "and.b32", lo, old, ir_imm(0xffff));
		E(S, "shr.u32", hi, old, ir_imm(16));
		E(S, "and.b32", bl, b, ir_imm(0xffff));
		E(S, "shr.u32", bh, b, ir_imm(16));
		E(S, "mov.b32", half, old);
		iarg rl = add16(S, AT_BF16, lo, bl), rh = add16(S, AT_BF16, hi, bh);
		E(S, "shl.b32", nw, rh, ir_imm(16));
		E(S, "or.b32", nw, nw, rl);
	} else {
		iarg r;
		E(S, "shr.u32", half, old, sh);
		E(S, "and.b32", half, half, ir_imm(0xffff));
		if (f.kind == AT_CAS16) {   /* no swap when the half differs from the compare value */
			E(S, "setp.ne.u32", differ, half, b);
			EP(S, differ, "bra", out);
			r = c;
		} else {
			r = add16(S, f.kind, half, b);
		}
		E(S, "and.b32", r, r, ir_imm(0xffff));
		E(S, "shl.b32", t, r, sh);
		E(S, "not.b32", nw, mask);
		E(S, "and.b32", nw, nw, old);
		E(S, "or.b32", nw, nw, t);
	}
	EG(S, cas, cur, ir_mem(word, 0), old, nw);
	E(S, "setp.ne.u32", again, cur, old);
	E(S, "mov.b32", old, cur);
	EP(S, again, "bra", loop);
	ptxl_ir_place(S, out);
	if (f.acquire)
		fence(S, &f);
	if (f.red)
		return 0;
	if (f.kind == AT_BF16X2) {
		EG(S, "mov.b32", ir_opnd(0), half);
	} else {
		iarg h = ir_h(S);
		E(S, "cvt.u16.u32", h, half);
		EG(S, "mov.b16", ir_opnd(0), h);
	}
	return 0;
}
