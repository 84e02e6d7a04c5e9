/* emit_memory.c: the memory consistency model of sm_70 (PTX ISA 8, and the .sem and .scope
 * qualifiers of ld, st, atom, red and fence: 9.7.9.8, 9.7.9.10, 9.7.13.4-6) for older
 * targets, which have volatile accesses, scoped atomics (sm_60) and membar instead.  The
 * mapping is the one libcu++ uses for its atomics below sm_70
 * (cuda/std/__atomic/functions/cuda_ptx_generated.h):
 *   fence.sc / .acq_rel / .acquire / .release .scope
 *                                             membar.{cta,gl,sys}
 * fence.acquire and fence.release alone (PTX ISA 8.6, which CUDA 12.x's ptxas does not
 * know) are also fence.acq_rel, which orders what each of them does, on sm_70 and newer.
 *   ld.relaxed.scope                          ld.volatile
 *   ld.acquire.scope                          ld.volatile; membar
 *   st.relaxed.scope                          st.volatile
 *   st.release.scope                          membar; st.volatile
 * (on .local memory, which no other thread sees, plain accesses: volatile does not apply.
 * A generic address is tested at run time: volatile in global or shared memory, plain in
 * local memory, where ptxas refuses a volatile access it can tell is local.)
 *   atom/red .relaxed / .acquire / .release / .acq_rel .scope
 *                                             the scoped atomic, preceded by membar for
 *                                             .release and .acq_rel, followed by it for
 *                                             .acquire and .acq_rel
 * ld.volatile.local and st.volatile.local (PTX ISA 9.1 and later: CUDA 13.0's ptxas refuses
 * them for every target) become plain local accesses: no other thread sees local memory,
 * and a thread sees its own accesses in order either way.
 * Below sm_60, where atomics have no scope, .cta and .gpu atomics become plain (device-wide)
 * ones; .sys ones stay as they are (and out).  The cache qualifiers .L1::* and .L2::*, all
 * newer than these targets, go as emit_hint.c drops them (with .L2::cache_hint's policy
 * operand, the last). */
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"

static const char *const sems[] = { "relaxed", "acquire", "release", "acq_rel", "sc", NULL };
static const char *const scopes[] = { "cta", "gpu", "sys", NULL };
/* cache operators, which volatile accesses do not take */
static const char *const cache_ops[] = { "ca", "cg", "cs", "lu", "cv", "wb", "wt", "weak", NULL };

static int in(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
			return 1;
	return 0;
}

/* The form of I: its semantics word, its scope word ("" for none), and whether it is a
 * form this file rewrites. */
typedef struct memform {
	const char *sem, *scope;
	int fence, load, store, atomic;
} memform;

static int mem_form(const pinst *I, memform *f)
{
	const char *b = I->word[0];

	memset(f, 0, sizeof *f);
	f->scope = "";
	f->fence = !strcmp(b, "fence");
	f->load = !strcmp(b, "ld");
	f->store = !strcmp(b, "st");
	f->atomic = !strcmp(b, "atom") || !strcmp(b, "red");
	if (!f->fence && !f->load && !f->store && !f->atomic)
		return -1;
	for (int i = 1; i < I->nwords; i++) {
		const char *w = I->word[i];
		if (in(w, sems))
			f->sem = w;
		else if (in(w, scopes))
			f->scope = w;
		else if (!strcmp(w, "mmio") || !strcmp(w, "cluster") || !strcmp(w, "proxy") ||
			 !strcmp(w, "op_restrict") || !strcmp(w, "sync_restrict") ||
			 !strncmp(w, "shared::cluster", 15))
			return -1;
	}
	if (!f->sem || (f->fence && (I->nwords != 3 || !*f->scope || I->nops)))
		return -1;
	if ((f->load && strcmp(f->sem, "relaxed") && strcmp(f->sem, "acquire")) ||
	    (f->store && strcmp(f->sem, "relaxed") && strcmp(f->sem, "release")) ||
	    (f->fence && !strcmp(f->sem, "relaxed")) ||
	    (f->atomic && !strcmp(f->sem, "sc")))
		return -1;
	return 0;
}

/* ld/st .volatile .local: what every target takes once volatile goes. */
static int volatile_local(const pinst *I)
{
	int v = 0, l = 0;

	if (strcmp(I->word[0], "ld") && strcmp(I->word[0], "st"))
		return 0;
	for (int i = 1; i < I->nwords; i++) {
		v |= !strcmp(I->word[i], "volatile");
		l |= !strcmp(I->word[i], "local");
	}
	return v && l;
}

int ptxl_need_memory(const pinst *I, const lctx *ctx)
{
	memform f;

	(void)ctx;
	if (volatile_local(I))
		return 1000;      /* newer than PTX ISA 9.0 on every target */
	if (mem_form(I, &f))
		return 0;
	return f.fence && (!strcmp(f.sem, "acquire") || !strcmp(f.sem, "release")) ? 90 : 70;
}

/* An ld or st with no state space: a generic address. */
static int generic(const pinst *I)
{
	static const char *const spaces[] = { "global", "shared", "shared::cta", "local", "param",
					      "const", NULL };
	for (int i = 1; i < I->nwords; i++)
		if (in(I->word[i], spaces))
			return 0;
	return 1;
}

/* op ("ld.volatile.T" / "st.volatile.T") on the generic address of operand mem: in global
 * memory as ld.volatile.global, in shared as .shared, else (local) without volatile. */
static void generic_access(iseq *S, const pinst *I, const pmods *M, const char *op,
			   const iarg *a, int nops, int load)
{
	static const char *const spaces[] = { "global", "shared" };
	static const char *const to[] = { "cvta.to.global.u64", "cvta.to.shared.u64" };
	int mem = load ? 1 : 0;
	const char *type = op + strlen(load ? "ld.volatile" : "st.volatile");
	iarg addr, done = ptxl_ir_label(S);
	iarg args[IR_MAX_ARGS];
	char o[128];

	if (ptxl_addr_temp(S, I, M, mem, 1, &addr)) {   /* an address this file cannot take */
		ptxl_ir_emit(S, 1, op, a, nops);
		return;
	}
	memcpy(args, a, sizeof(iarg) * (size_t)nops);
	for (int k = 0; k < 2; k++) {
		iarg in_space = ir_p(S), sa = ir_d(S), skip = ptxl_ir_label(S);
		E(S, k ? "isspacep.shared" : "isspacep.global", in_space, addr);
		EN(S, in_space, "bra.uni", skip);
		E(S, to[k], sa, addr);
		args[mem] = ir_mem(sa, 0);
		snprintf(o, sizeof o, "%s.volatile.%s%s", load ? "ld" : "st", spaces[k], type);
		ptxl_ir_emit(S, 1, o, args, nops);
		E(S, "bra.uni", done);
		ptxl_ir_place(S, skip);
	}
	args[mem] = ir_mem(addr, 0);
	snprintf(o, sizeof o, "%s%s", load ? "ld" : "st", type);
	ptxl_ir_emit(S, 1, o, args, nops);
	ptxl_ir_place(S, done);
}

static const char *membar_of(const char *scope)
{
	return !strcmp(scope, "cta") ? "membar.cta" : !strcmp(scope, "sys") ? "membar.sys"
									   : "membar.gl";
}

int ptxl_build_memory(iseq *S, const pinst *I, const pmods *M)
{
	memform f;
	char op[96];
	size_t n = 0;
	iarg a[IR_MAX_ARGS];
	int before, after;

	int nops = I->nops, hint = 0, local = 0;

	if (volatile_local(I) && I->nops <= IR_MAX_ARGS) {
		for (int i = 0; i < I->nwords; i++)
			if (strcmp(I->word[i], "volatile"))
				n += (size_t)snprintf(op + n, sizeof op - n, "%s%s", i ? "." : "",
						      I->word[i]);
		for (int i = 0; i < I->nops; i++)
			a[i] = ir_opnd(i);
		ptxl_ir_emit(S, 1, op, a, I->nops);
		return 0;
	}
	if (mem_form(I, &f) || I->nops > IR_MAX_ARGS)
		return -1;
	if (f.fence) {
		if (M->ctx->target >= 70) {
			snprintf(op, sizeof op, "fence.acq_rel.%s", f.scope);
			E0(S, op);
		} else {
			E0(S, membar_of(f.scope));
		}
		return 0;
	}
	if (f.atomic && !strcmp(f.scope, "sys") && M->ctx->target < 60)
		return -1;                /* no system-scope atomics before sm_60 */
	before = !strcmp(f.sem, "release") || !strcmp(f.sem, "acq_rel");
	after = !strcmp(f.sem, "acquire") || !strcmp(f.sem, "acq_rel");
	/* the opcode without its semantics (and, for ld/st, scope and cache operator): a
	 * volatile access or a scoped atomic */
	op[0] = 0;
	for (int i = 1; i < I->nwords; i++)
		local |= !strcmp(I->word[i], "local");
	for (int i = 0; i < I->nwords; i++) {
		const char *w = I->word[i];
		size_t len = strlen(w);
		hint |= !strcmp(w, "L2::cache_hint");
		if (i && (in(w, sems) || (!f.atomic && (in(w, scopes) || in(w, cache_ops))) ||
			  (f.atomic && in(w, scopes) && M->ctx->target < 60) ||
			  !strncmp(w, "L1::", 4) || !strncmp(w, "L2::", 4)))
			continue;
		if (n + len + 10 > sizeof op)
			return -1;
		n += (size_t)snprintf(op + n, sizeof op - n, "%s%s", i ? "." : "", w);
		if (i == 0 && !f.atomic && !local)
			n += (size_t)snprintf(op + n, sizeof op - n, ".volatile");
	}
	nops -= hint;
	for (int i = 0; i < nops; i++)
		a[i] = ir_opnd(i);
	if (before)
		E0(S, membar_of(f.scope));
	if (!f.atomic && !local && generic(I))
		generic_access(S, I, M, op, a, nops, f.load);
	else
		ptxl_ir_emit(S, 1, op, a, nops);
	if (after)
		E0(S, membar_of(f.scope));
	return 0;
}
