/* emit_async.c: cp.async and the mbarrier objects (sm_80) for older targets.
 *
 * cp.async (PTX ISA 9.7.9.25.3.1) becomes a copy the thread makes at once: a load from
 * global memory and a store to shared memory of cp-size bytes, or, with src-size, the first
 * src-size bytes and zeros after them, and only zeros when ignore-src is true.  A copy may
 * complete any time before the wait that covers it, so completing at once is one of the
 * behaviours the ISA allows; cp.async.commit_group, wait_group and wait_all
 * (9.7.9.25.3.2-3) then have nothing to do, and the thread already sees what it copied
 * (other threads see it after the barrier the program needs anyway).  Cache qualifiers,
 * the prefetch size and the cache policy only hint, and are dropped.  Bit-exact.
 *
 * mbarrier (9.7.13.15) is an opaque 64-bit object in shared memory; here bits 0-20 hold the
 * arrivals the current phase still waits for, 21-41 the arrivals each phase expects and
 * 42-62 the phase number.  init stores count | count << 21; arrive (and arrive_drop,
 * which also lowers the expected count) changes it with a compare-and-swap loop, moving to
 * the next phase when the last arrival comes; the state it returns is the object after the
 * arrival, before the phase moved on.  test_wait/try_wait compare the phase with the
 * state's (or its parity with the operand): try_wait may return false before its time
 * limit, so it never waits here.  A test that finds the phase incomplete sleeps a little
 * (nanosleep, sm_70 and newer: 9.7.19.2) before it answers, so that the loop around it
 * polls about as often as the original's (whose failed test lets the other warps run)
 * rather than as fast as the thread can.  The default .release/.acquire at .cta scope:
 * membar.cta before the arrival and after the test.  cp.async.mbarrier.arrive (9.7.9.25.3.4) comes
 * after copies that are already complete: .noinc is an arrival, the plain form (pending
 * count raised, then an arrival) changes nothing.  Exact. */
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"

#define PEND 0x1fffffull
#define WAIT_NS 64   /* a failed wait's sleep, in nanoseconds */

static int word_is(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ cp.async */

typedef struct cpform {
	int size;          /* cp-size */
	int hint;          /* .L2::cache_hint: a cache-policy operand last */
	int tail;          /* operand 3 is src-size (1), ignore-src (2) or absent (0) */
} cpform;

static int cp_form(const pinst *I, const lctx *ctx, cpform *f)
{
	static const char *const ok[] = { "ca", "cg", "shared", "shared::cta", "global",
					  "L2::64B", "L2::128B", "L2::256B", NULL };
	memset(f, 0, sizeof(*f));
	int cg = 0, shared = 0, global = 0;
	for (int i = 2; i < I->nwords; i++) {
		const char *w = I->word[i];
		if (!strcmp(w, "L2::cache_hint"))
			f->hint = 1;
		else if (!word_is(w, ok))
			return -1;
		cg |= !strcmp(w, "cg");
		shared |= !strncmp(w, "shared", 6);
		global |= !strcmp(w, "global");
	}
	if (!shared || !global || I->nops < 3 || I->nops > 4 + f->hint)
		return -1;
	/* cp-size: an integer constant, in any base PTX writes ("8", "0x08") */
	char *end;
	long size = strtol(I->op[2], &end, 0);
	f->size = *end || (size != 4 && size != 8 && size != 16) ? 0 : (int)size;
	if (!f->size || (cg && f->size != 16))
		return -1;
	if (I->nops == 4 + f->hint) {
		const char *t = I->op[3];
		/* a register: %r5, or a name without '%' (src0, as inline asm declares them) */
		int w = ptx_ident_start(t[0]) && ctx->regs ? ptxl_reg_width(ctx->regs, t) : 0;
		if (t[0] == '!' || w == RW_PRED)
			f->tail = 2;
		else if ((t[0] >= '0' && t[0] <= '9') || w == RW_32 || w == RW_64 || w == RW_16)
			f->tail = 1;
		else
			return -1;   /* a register the function does not declare */
	}
	return 0;
}

int ptxl_need_cp_async(const pinst *I, const lctx *ctx)
{
	cpform f;
	return cp_form(I, ctx, &f) ? 0 : 80;
}

/* ld.global then st.shared of `size` bytes (v4.b32 / v2.b32 / b32); both under the guard:
 * where it is false the source address may be anything (CUTLASS's predicated copies). */
static void copy_whole(iseq *S, int size)
{
	static const char *const ld[] = { "ld.global.b32", "ld.global.v2.b32", "", "ld.global.v4.b32" };
	static const char *const st[] = { "st.shared.b32", "st.shared.v2.b32", "", "st.shared.v4.b32" };
	int n = size / 4;
	iarg v = ptxl_ir_temps(S, IA_R, n);
	EG(S, ld[n - 1], n > 1 ? ir_tvec(v, n) : v, ir_omem(1, 0));
	EG(S, st[n - 1], ir_omem(0, 0), n > 1 ? ir_tvec(v, n) : v);
}

static void copy_zeros(iseq *S, int size)
{
	iarg z = ir_r(S);
	E(S, "mov.b32", z, ir_imm(0));
	for (int i = 0; i < size; i += 4)
		EG(S, "st.shared.b32", ir_omem(0, i), z);
}

/* Zeros, then a jump to done; at `full` the whole copy; done. */
static void zeros_or_whole(iseq *S, int size, iarg full, iarg done)
{
	copy_zeros(S, size);
	E(S, "bra", done);
	ptxl_ir_place(S, full);
	copy_whole(S, size);
	ptxl_ir_place(S, done);
}

int ptxl_build_cp_async(iseq *S, const pinst *I, const pmods *M)
{
	cpform f;
	if (cp_form(I, M->ctx, &f))
		return -1;
	const char *t = I->op[3 < I->nops ? 3 : 0];
	if (!f.tail || (f.tail == 1 && strcmp(t, I->op[2]) == 0)) {
		copy_whole(S, f.size);
		return 0;
	}
	if (f.tail == 1 && !strcmp(t, "0")) {
		copy_zeros(S, f.size);
		return 0;
	}
	/* Threads may disagree on src-size and ignore-src: plain (divergent) branches. */
	iarg full = ptxl_ir_label(S), done = ptxl_ir_label(S);
	if (f.tail == 2) {   /* ignore-src (or !ignore-src): zeros where it is true */
		iarg p = ir_p(S);
		E(S, t[0] == '!' ? "not.pred" : "mov.pred", p, ir_opnd_part(3, 3));
		EN(S, p, "bra", full);
		zeros_or_whole(S, f.size, full, done);
		return 0;
	}
	/* src-size bytes from the source, zeros after them (src-size > cp-size is undefined) */
	iarg zero = ptxl_ir_label(S), n = ir_r(S), p = ir_p(S), b = ir_h(S);
	int w = t[0] == '%' ? ptxl_reg_width(M->ctx->regs, t) : RW_32;
	E(S, w == RW_64 ? "cvt.u32.u64" : w == RW_16 ? "cvt.u32.u16" : "mov.b32", n, ir_opnd(3));
	E(S, "setp.ge.u32", p, n, ir_imm((uint64_t)f.size));
	EP(S, p, "bra", full);
	E(S, "setp.eq.u32", p, n, ir_imm(0));
	EP(S, p, "bra", zero);
	for (int i = 0; i < f.size; i++) {
		E(S, "mov.b16", b, ir_imm(0));
		E(S, "setp.gt.u32", p, n, ir_imm((uint64_t)i));
		EP(S, p, "ld.global.b8", b, ir_omem(1, i));
		EG(S, "st.shared.b8", ir_omem(0, i), b);
	}
	E(S, "bra", done);
	ptxl_ir_place(S, zero);
	zeros_or_whole(S, f.size, full, done);
	return 0;
}

/* commit_group, wait_group N, wait_all: nothing is in flight. */
int ptxl_need_cp_async_group(const pinst *I, const lctx *ctx)
{
	(void)ctx;
	if (I->nwords != 3)
		return 0;
	const char *w = I->word[2];
	int nops = !strcmp(w, "wait_group") ? 1 : 0;
	return (!strcmp(w, "commit_group") || !strcmp(w, "wait_group") || !strcmp(w, "wait_all")) &&
	       I->nops == nops ? 80 : 0;
}

int ptxl_build_nothing(iseq *S, const pinst *I, const pmods *M)
{
	(void)S, (void)I, (void)M;
	return 0;
}

/* ------------------------------------------------------------------ mbarrier */

enum { MB_INIT, MB_INVAL, MB_ARRIVE, MB_DROP, MB_TEST, MB_PENDING, MB_CP_ARRIVE };

typedef struct mbform {
	int op, parity, noinc, shared, try_wait, no_complete;
} mbform;

/* mbarrier.OP{.noComplete}{.parity}{.release|.acquire|.relaxed}{.cta}{.shared}.b64 and
 * cp.async.mbarrier.arrive{.noinc}{.shared}.b64. */
static int mb_form(const pinst *I, mbform *f)
{
	static const char *const ops[] = { "init", "inval", "arrive", "arrive_drop", "test_wait",
					   "try_wait", "pending_count", NULL };
	static const char *const quiet[] = { "noComplete", "release", "acquire", "relaxed", "cta",
					     "b64", NULL };
	int cp = !strcmp(I->word[0], "cp"), first = cp ? 4 : 2, b64 = 0;
	memset(f, 0, sizeof(*f));
	if (cp) {
		f->op = MB_CP_ARRIVE;
		if (I->nwords < 4 || strcmp(I->word[2], "mbarrier") || strcmp(I->word[3], "arrive"))
			return -1;
	} else {
		if (I->nwords < 2)
			return -1;
		int k = 0;
		while (ops[k] && strcmp(I->word[1], ops[k]))
			k++;
		if (!ops[k])
			return -1;
		static const int code[] = { MB_INIT, MB_INVAL, MB_ARRIVE, MB_DROP, MB_TEST, MB_TEST,
					    MB_PENDING };
		f->op = code[k];
		f->try_wait = k == 5;
	}
	for (int i = first; i < I->nwords; i++) {
		const char *w = I->word[i];
		b64 |= !strcmp(w, "b64");
		if (!strcmp(w, "parity") && f->op == MB_TEST)
			f->parity = 1;
		else if (!strcmp(w, "noinc") && cp)
			f->noinc = 1;
		else if (!strcmp(w, "shared") || !strcmp(w, "shared::cta"))
			f->shared = 1;
		else if (!strcmp(w, "noComplete"))
			f->no_complete = 1;
		else if (!word_is(w, quiet))
			return -1;
	}
	static const int nops[] = { [MB_INIT] = 2, [MB_INVAL] = 1, [MB_ARRIVE] = 2, [MB_DROP] = 2,
				    [MB_TEST] = 3, [MB_PENDING] = 2, [MB_CP_ARRIVE] = 1 };
	int extra = f->op == MB_ARRIVE || f->op == MB_DROP || f->op == MB_TEST;   /* count, hint */
	if (!b64 || I->nops < nops[f->op] || I->nops > nops[f->op] + extra)
		return -1;
	return 0;
}

/* try_wait and an arrive with a count but without .noComplete need sm_90 (ptxas 13.0). */
int ptxl_need_mbarrier(const pinst *I, const lctx *ctx)
{
	mbform f;
	(void)ctx;
	if (mb_form(I, &f))
		return 0;
	return f.try_wait || (f.op == MB_ARRIVE && I->nops == 3 && !f.no_complete) ? 90 : 80;
}

static const char *sp(const mbform *f, const char *shared, const char *generic)
{
	return f->shared ? shared : generic;
}

/* A 32-bit operand (register or immediate) as a 64-bit temporary. */
static iarg wide(iseq *S, const pinst *I, int opnd)
{
	iarg t = ir_d(S);
	if (opnd < 0 || (I->op[opnd][0] >= '0' && I->op[opnd][0] <= '9'))
		E(S, "mov.b64", t, opnd < 0 ? ir_imm(1) : ir_opnd(opnd));
	else
		E(S, "cvt.u64.u32", t, ir_opnd(opnd));
	return t;
}

/* The compare-and-swap loop of an arrival: dec off the object at `at` (pend: the arrivals
 * it takes off the pending count), moving to the next phase when they are the last; the
 * value before in old, the state after (before the phase moved on) in now. */
static void cas_arrival(iseq *S, const mbform *f, iarg at, iarg dec, iarg pend_dec, iarg old,
			iarg now)
{
	iarg nxt = ir_d(S), pend = ir_d(S), exp = ir_d(S), cur = ir_d(S), done = ir_p(S), again = ir_p(S);
	iarg loop = ptxl_ir_label(S);
	E0(S, "membar.cta");
	E(S, sp(f, "ld.volatile.shared.u64", "ld.volatile.u64"), old, at);
	ptxl_ir_place(S, loop);
	E(S, "sub.s64", now, old, dec);
	E(S, "and.b64", pend, old, ir_imm(PEND));
	E(S, "setp.eq.u64", done, pend, pend_dec);
	/* The last arrival: the next phase, with the expected count pending again. */
	E(S, "shr.u64", exp, now, ir_imm(21));
	E(S, "and.b64", exp, exp, ir_imm(PEND));
	E(S, "and.b64", nxt, now, ir_imm(~PEND & 0x7fffffffffffffffull));
	E(S, "add.s64", nxt, nxt, ir_imm(1ull << 42));
	E(S, "and.b64", nxt, nxt, ir_imm(0x7fffffffffffffffull));
	E(S, "or.b64", nxt, nxt, exp);
	E(S, "selp.b64", nxt, nxt, now, done);
	E(S, sp(f, "atom.shared.cas.b64", "atom.cas.b64"), cur, at, old, nxt);
	E(S, "setp.ne.u64", again, cur, old);
	E(S, "mov.b64", old, cur);
	EP(S, again, "bra", loop);
}

/* x = lane src's 64-bit x (shfl.sync of its halves among the lanes of mask m). */
static void shfl64(iseq *S, iarg x, iarg src, iarg m)
{
	iarg h = ptxl_ir_temps(S, IA_R, 2);
	E(S, "mov.b64", ir_tvec(h, 2), x);
	for (int q = 0; q < 2; q++)
		E(S, "shfl.sync.idx.b32", ir_el(h, q), ir_el(h, q), src, ir_imm(31), m);
	E(S, "mov.b64", x, ir_tvec(h, 2));
}

/* The arrival: count arrivals (drop: fewer expected too) on the object at operand `at`;
 * the state into operand `state` when it is >= 0 and not the sink "_".  The lanes of a warp
 * that arrive on one object together make one compare-and-swap: the lowest of them arrives
 * for all (one atomic instead of 32 contending ones), and each lane's state is the object
 * as its own arrival left it, in lane order (an order of the arrivals the ISA allows).
 * With a count in a register (lanes may differ) each lane arrives by itself. */
static void arrive(iseq *S, const pinst *I, const pmods *M, const mbform *f, int at, int count,
		   int drop, int state)
{
	iarg c64 = wide(S, I, count), dec = ir_d(S), old = ir_d(S), now = ir_d(S), addr;
	int keep = state >= 0 && strcmp(I->op[state], "_");
	if (drop)   /* one arrival fewer pending and expected, per count */
		E(S, "mul.lo.u64", dec, c64, ir_imm((1ull << 21) + 1));
	else
		E(S, "mov.b64", dec, c64);
	if ((count >= 0 && I->op[count][0] == '%') ||
	    ptxl_addr_temp(S, I, M, at, !f->shared, &addr)) {
		cas_arrival(S, f, ir_omem(at, 0), dec, c64, old, now);
		if (keep)
			EG(S, "mov.b64", ir_opnd(state), now);
		return;
	}
	int wide_addr = !f->shared;
	iarg m = ir_r(S), todo = ir_r(S), lane = ir_r(S), lt = ir_r(S), low = ir_r(S), leader = ir_r(S);
	iarg la = wide_addr ? ir_d(S) : ir_r(S), peers = ir_r(S), n = ir_r(S), rank = ir_r(S);
	iarg n64 = ir_d(S), gdec = ir_d(S), gpend = ir_d(S), mine = ir_d(S), x = ir_r(S);
	iarg same = ir_p(S), lead = ir_p(S), in = ir_p(S), more = ir_p(S);
	iarg loop = ptxl_ir_label(S), skip = ptxl_ir_label(S);
	E(S, "activemask.b32", m);
	E(S, "mov.b32", todo, m);
	E(S, "mov.u32", lane, ir_text("%laneid"));
	if (keep)
		E(S, "mov.u32", lt, ir_text("%lanemask_lt"));
	ptxl_ir_place(S, loop);
	E(S, "neg.s32", low, todo);
	E(S, "and.b32", low, low, todo);
	E(S, "bfind.u32", leader, low);
	if (wide_addr) {
		E(S, "mov.b64", la, addr);
		shfl64(S, la, leader, m);
		E(S, "setp.eq.u64", same, addr, la);
	} else {
		E(S, "shfl.sync.idx.b32", la, addr, leader, ir_imm(31), m);
		E(S, "setp.eq.u32", same, addr, la);
	}
	E(S, "vote.sync.ballot.b32", peers, same, m);
	E(S, "and.b32", peers, peers, todo);
	E(S, "popc.b32", n, peers);
	if (keep) {
		E(S, "and.b32", x, peers, lt);
		E(S, "popc.b32", rank, x);
	}
	/* the leader takes off n arrivals */
	E(S, "cvt.u64.u32", n64, n);
	E(S, "mul.lo.u64", gdec, dec, n64);
	E(S, "mul.lo.u64", gpend, c64, n64);
	E(S, "setp.eq.u32", lead, lane, leader);
	EN(S, lead, "bra", skip);
	cas_arrival(S, f, ir_mem(addr, 0), gdec, gpend, old, now);
	ptxl_ir_place(S, skip);
	if (keep) {
		shfl64(S, old, leader, m);
		/* this lane's state: the object after rank + 1 of the group's arrivals */
		E(S, "add.u32", x, rank, ir_imm(1));
		E(S, "cvt.u64.u32", n64, x);
		E(S, "mul.lo.u64", n64, n64, dec);
		E(S, "shr.b32", x, peers, lane);
		E(S, "and.b32", x, x, ir_imm(1));
		E(S, "setp.ne.u32", in, x, ir_imm(0));
		EP(S, in, "sub.s64", mine, old, n64);
	}
	E(S, "not.b32", x, peers);
	E(S, "and.b32", todo, todo, x);
	E(S, "setp.ne.u32", more, todo, ir_imm(0));
	EP(S, more, "bra.uni", loop);
	if (keep)
		EG(S, "mov.b64", ir_opnd(state), mine);
}

int ptxl_build_mbarrier(iseq *S, const pinst *I, const pmods *M)
{
	mbform f;
	if (mb_form(I, &f))
		return -1;
	if (M->ctx->target >= 80) {
		/* The sm_80 mbarrier is the real one: try_wait may be its test_wait; an arrival
		 * of several counts that may complete the phase has no sm_80 form. */
		if (!f.try_wait || I->nops != 3)
			return -1;
		EG(S, f.parity ? sp(&f, "mbarrier.test_wait.parity.shared.b64", "mbarrier.test_wait.parity.b64")
			       : sp(&f, "mbarrier.test_wait.shared.b64", "mbarrier.test_wait.b64"),
		   ir_opnd(0), ir_opnd(1), ir_opnd(2));
		return 0;
	}
	iarg t = ir_d(S), u = ir_d(S), p = ir_p(S);
	switch (f.op) {
	case MB_INIT:
		t = wide(S, I, 1);
		E(S, "shl.b64", u, t, ir_imm(21));
		E(S, "or.b64", t, t, u);
		EG(S, sp(&f, "st.shared.u64", "st.u64"), ir_omem(0, 0), t);
		return 0;
	case MB_INVAL:
		E(S, "mov.b64", t, ir_imm(0));
		EG(S, sp(&f, "st.shared.u64", "st.u64"), ir_omem(0, 0), t);
		return 0;
	case MB_ARRIVE:
	case MB_DROP:
		arrive(S, I, M, &f, 1, I->nops == 3 ? 2 : -1, f.op == MB_DROP, 0);
		return 0;
	case MB_CP_ARRIVE:
		if (f.noinc)
			arrive(S, I, M, &f, 0, -1, 0, -1);
		return 0;
	case MB_PENDING:
		E(S, "and.b64", t, ir_opnd(1), ir_imm(PEND));
		EG(S, "cvt.u32.u64", ir_opnd(0), t);
		return 0;
	default: {   /* test_wait, try_wait: has the phase moved on from the state's (parity's)? */
		iarg hi = ir_r(S), ph = ir_r(S);   /* the phase: bits 10-30 of the high word */
		EG(S, sp(&f, "ld.volatile.shared.u32", "ld.volatile.u32"), hi, ir_omem(1, 4));
		if (f.parity) {
			E(S, "shr.u32", ph, hi, ir_imm(10));
			E(S, "and.b32", ph, ph, ir_imm(1));
			E(S, "setp.ne.u32", p, ph, ir_opnd(2));
		} else {
			E(S, "shr.u64", u, ir_opnd(2), ir_imm(32));
			E(S, "cvt.u32.u64", ph, u);
			E(S, "xor.b32", ph, ph, hi);
			E(S, "and.b32", ph, ph, ir_imm(0x7ffffc00u));
			E(S, "setp.ne.u32", p, ph, ir_imm(0));
		}
		E0(S, "membar.cta");
		if (M->ctx->target >= 70)
			EN(S, p, "nanosleep.u32", ir_imm(WAIT_NS));
		EG(S, "mov.pred", ir_opnd(0), p);
		return 0;
	}
	}
}
