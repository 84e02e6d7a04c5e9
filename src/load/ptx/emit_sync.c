/* emit_sync.c: redux.sync (sm_80) for older targets (PTX ISA 9.7.13.10).
 *
 * redux.sync.op.type d, a, membermask: every thread of membermask gets op over the a of
 * all of them (.add/.min/.max .u32/.s32, .and/.or/.xor .b32).  With the whole warp as an
 * immediate mask, five shfl.sync.bfly steps combine the values (each lane ends with all
 * 32, in an order that does not matter for these operations, .add wrapping modulo 2^32);
 * with any other mask, each member reads every lane's value with shfl.sync.idx and keeps
 * those of the mask.  Exact. */
#include <string.h>

#include "lower_internal.h"

static const struct { const char *op, *type, *ins; uint32_t identity; } redux_ops[] = {
	{ "add", "u32", "add.u32", 0 }, { "add", "s32", "add.s32", 0 },
	{ "min", "u32", "min.u32", 0xffffffffu }, { "min", "s32", "min.s32", 0x7fffffffu },
	{ "max", "u32", "max.u32", 0 }, { "max", "s32", "max.s32", 0x80000000u },
	{ "and", "b32", "and.b32", 0xffffffffu }, { "or", "b32", "or.b32", 0 },
	{ "xor", "b32", "xor.b32", 0 },
};

static int redux_op(const pinst *I)
{
	if (I->nwords != 4 || strcmp(I->word[1], "sync") || I->nops != 3)
		return -1;
	for (int i = 0; i < (int)(sizeof(redux_ops) / sizeof(redux_ops[0])); i++)
		if (!strcmp(I->word[2], redux_ops[i].op) && !strcmp(I->word[3], redux_ops[i].type))
			return i;
	return -1;
}

int ptxl_need_redux(const pinst *I, const lctx *ctx)
{
	(void)ctx;
	return redux_op(I) < 0 ? 0 : 80;
}

int ptxl_build_redux(iseq *S, const pinst *I, const pmods *M)
{
	int k = redux_op(I);
	(void)M;
	if (k < 0)
		return -1;
	const char *op = redux_ops[k].ins, *mask = I->op[2];
	iarg acc = ir_r(S), v = ir_r(S);
	E(S, "mov.b32", acc, ir_opnd(1));
	if (!strcmp(mask, "-1") || !strcmp(mask, "0xffffffff") || !strcmp(mask, "0xFFFFFFFF") ||
	    !strcmp(mask, "4294967295")) {
		for (int step = 16; step >= 1; step /= 2) {
			E(S, "shfl.sync.bfly.b32", v, acc, ir_imm((uint64_t)step), ir_imm(31), ir_opnd(2));
			E(S, op, acc, acc, v);
		}
		EG(S, "mov.b32", ir_opnd(0), acc);
		return 0;
	}
	iarg m = ir_r(S), bit = ir_r(S), p = ir_p(S), a = ir_r(S);
	E(S, "mov.b32", m, ir_opnd(2));
	E(S, "mov.b32", a, acc);
	E(S, "mov.b32", acc, ir_imm(redux_ops[k].identity));
	for (int lane = 0; lane < 32; lane++) {
		E(S, "shfl.sync.idx.b32", v, a, ir_imm((uint64_t)lane), ir_imm(31), m);
		E(S, "and.b32", bit, m, ir_imm(1ull << lane));
		E(S, "setp.ne.u32", p, bit, ir_imm(0));
		EP(S, p, op, acc, acc, v);
	}
	EG(S, "mov.b32", ir_opnd(0), acc);
	return 0;
}
