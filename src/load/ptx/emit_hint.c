/* emit_hint.c: cache qualifiers and cache policies newer than the target, dropped.
 *
 * They choose what the caches keep, never a value a program reads:
 *   .L2::cache_hint and its 64-bit cache-policy operand (ld, st, atom, red: sm_80; PTX ISA
 *   9.7.9.8 ld, 9.7.9.10 st, 9.7.13.5 atom, 9.7.13.6 red), the prefetch sizes .L2::64B and
 *   .L2::128B (sm_75) and .L2::256B (sm_80) of ld, the eviction priorities .L1::evict_* and
 *   .L1::no_allocate of ld and st (sm_70), prefetch's .L2::evict_last/.L2::evict_normal
 *   (sm_80; 9.7.9.15): a plain prefetch.L2 stays.  createpolicy (9.7.9.18) makes an opaque
 *   policy that only these operands take: here the value 0, which every use drops;
 *   applypriority and discard (9.7.9.16-17) change what L2 keeps (discard leaves the
 *   line's contents undefined, of which unchanged is one): nothing.  The forms ptxas 12.4
 *   and 13.0 accept per target were checked with both.  Bit-exact.
 * nanosleep t (sm_70; PTX ISA 9.7.19.4 nanosleep) sleeps for a duration in [0, 2t] that
 * the ISA leaves to the hardware: below sm_70, none (spin loops such as libcu++'s barrier
 * waits, which back off with it, just spin).
 * cp.async and the 16-bit atomics drop their own (emit_async.c, emit_atom.c). */
#include <string.h>

#include "lower_internal.h"

/* The architecture a qualifier word of opcode base needs; 0 for any other word. */
static int word_sm(const char *base, const char *w)
{
	if (strncmp(w, "L1::", 4) && strncmp(w, "L2::", 4))
		return 0;
	if (!strcmp(w, "L2::cache_hint") || !strcmp(w, "L2::256B"))
		return 80;
	if (!strcmp(w, "L2::64B") || !strcmp(w, "L2::128B"))
		return 75;
	if (!strcmp(base, "prefetch"))
		return strncmp(w, "L2::evict_", 10) ? 0 : 80;
	return !strncmp(w, "L1::", 4) ? 70 : 0;
}

int ptxl_need_hint(const pinst *I, const lctx *ctx)
{
	const char *base = I->word[0];
	if (!strcmp(base, "createpolicy") || !strcmp(base, "applypriority") ||
	    !strcmp(base, "discard"))
		return 80;
	if (!strcmp(base, "nanosleep"))
		return 70;
	/* a 16-bit atomic the target lacks is emit_atom.c's whole, and an access of the sm_70
	 * memory model emit_memory.c's */
	if ((!strcmp(base, "atom") || !strcmp(base, "red")) && ptxl_need_atom(I, ctx) > ctx->target)
		return 0;
	if (ptxl_need_memory(I, ctx) > ctx->target)
		return 0;
	int need = 0;
	for (int i = 1; i < I->nwords; i++) {
		int sm = word_sm(base, I->word[i]);
		need = sm > need ? sm : need;
	}
	return need;
}

int ptxl_build_hint(iseq *S, const pinst *I, const pmods *M)
{
	const char *base = I->word[0];
	if (!strcmp(base, "createpolicy")) {
		if (I->nops < 1)
			return -1;
		EG(S, "mov.b64", ir_opnd(0), ir_imm(0));
		return 0;
	}
	if (!strcmp(base, "applypriority") || !strcmp(base, "discard") || !strcmp(base, "nanosleep"))
		return 0;
	char op[64];
	size_t n = 0;
	int policy = 0;
	op[0] = 0;
	for (int i = 0; i < I->nwords; i++) {
		const char *w = I->word[i];
		int sm = i ? word_sm(base, w) : 0;
		if (sm > M->ctx->target) {
			policy |= !strcmp(w, "L2::cache_hint");
			if (strcmp(base, "prefetch"))
				continue;
			w = "L2";   /* prefetch.global.L2::evict_last: prefetch.global.L2 */
		}
		size_t len = strlen(w);
		if (n + len + 2 > sizeof(op))
			return -1;
		if (i)
			op[n++] = '.';
		memcpy(op + n, w, len + 1);
		n += len;
	}
	/* the policy is the last operand: after d, [a] (ld), [a], b (st, red), d, [a], b (atom;
	 * ptxas takes no cache hint on atom.cas) */
	int plain = strcmp(base, "atom") ? 2 : 3;
	int nargs = I->nops - policy;
	if (nargs < 1 || nargs > IR_MAX_ARGS || (policy && nargs != plain))
		return -1;
	iarg a[IR_MAX_ARGS];
	for (int i = 0; i < nargs; i++)
		a[i] = ir_opnd(i);
	ptxl_ir_emit(S, 1, op, a, nargs);
	return 0;
}
