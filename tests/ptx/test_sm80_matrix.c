/* test_sm80_matrix.c: ldmatrix (.x1/.x2/.x4, .trans, .shared with 32- and 64-bit address
 * registers and a variable, generic addresses) and movmatrix: the original on simulated
 * sm_80 and the lowered text on sm_75, sm_70 and sm_61 load the same bits.  Shared memory
 * holds random halves; every lane points at a row of its choice (a random permutation of
 * 16-byte rows), so a lane that loads another lane's row shows. */
#include <stdlib.h>
#include <string.h>

#include "sm80_tests.h"

#define BLOCKS 16

typedef struct variant {
	const char *name;
	int n, trans;
	const char *space;   /* ".shared" or "" (generic) */
	int addr;            /* 0: .b32 register, 1: .b64 register, 2: the variable + offset */
} variant;

static const variant variants[] = {
	{ "x1", 1, 0, ".shared", 0 }, { "x2", 2, 0, ".shared", 0 }, { "x4", 4, 0, ".shared", 0 },
	{ "x1.trans", 1, 1, ".shared", 0 }, { "x2.trans", 2, 1, ".shared", 0 },
	{ "x4.trans", 4, 1, ".shared", 0 }, { "x4 64-bit", 4, 0, ".shared", 1 },
	{ "x2.trans 64-bit", 2, 1, ".shared", 1 }, { "x4 variable", 4, 0, ".shared", 2 },
	{ "x4 generic", 4, 0, "", 1 }, { "x2.trans generic", 2, 1, "", 1 },
};

/* in: 2048 bytes per block; rows: one u32 row index per thread; out: 8 u32 per thread
 * (the ldmatrix registers, then movmatrix of the first). */
static const char head[] =
	".version 8.0\n.target sm_80\n.address_size 64\n"
	".visible .entry k(.param .u64 pin, .param .u64 prows, .param .u64 pout)\n{\n"
	"\t.reg .b32 %%r<40>;\n\t.reg .b64 %%rd<20>;\n\t.reg .pred %%p<4>;\n"
	"\t.shared .align 16 .b8 smem[2048];\n"
	"\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r2, %%ctaid.x;\n\tmad.lo.u32 %%r3, %%r2, 32, %%r1;\n"
	"\tld.param.u64 %%rd1, [pin];\n\tld.param.u64 %%rd2, [prows];\n\tld.param.u64 %%rd3, [pout];\n"
	"\tmul.wide.u32 %%rd4, %%r2, 2048;\n\tadd.u64 %%rd4, %%rd1, %%rd4;\n"
	"\tmov.u32 %%r4, smem;\n\tmov.u32 %%r5, 0;\n"
	"$fill:\n"
	"\tshl.b32 %%r6, %%r1, 2;\n\tadd.u32 %%r6, %%r6, %%r5;\n\tcvt.u64.u32 %%rd5, %%r6;\n"
	"\tadd.u64 %%rd6, %%rd4, %%rd5;\n\tld.global.u32 %%r7, [%%rd6];\n\tadd.u32 %%r8, %%r4, %%r6;\n"
	"\tst.shared.u32 [%%r8], %%r7;\n\tadd.u32 %%r5, %%r5, 128;\n\tsetp.lt.u32 %%p1, %%r5, 2048;\n"
	"\t@%%p1 bra $fill;\n\tbar.sync 0;\n"
	"\tmul.wide.u32 %%rd7, %%r3, 4;\n\tadd.u64 %%rd7, %%rd2, %%rd7;\n\tld.global.u32 %%r9, [%%rd7];\n"
	"\tshl.b32 %%r9, %%r9, 4;\n";

static char *kernel(const variant *v)
{
	char *t = malloc(8192);
	int n = snprintf(t, 8192, head);
	const char *addr;
	if (v->addr == 0) {          /* 32-bit shared address, offset -16 + 16 */
		n += snprintf(t + n, 8192 - n, "\tadd.u32 %%r10, %%r4, %%r9;\n\tadd.u32 %%r10, %%r10, 16;\n");
		addr = "[%r10+-16]";
	} else if (v->addr == 1 && v->space[0]) {
		n += snprintf(t + n, 8192 - n, "\tadd.u32 %%r10, %%r4, %%r9;\n\tcvt.u64.u32 %%rd8, %%r10;\n");
		addr = "[%rd8]";
	} else if (v->addr == 1) {   /* generic */
		n += snprintf(t + n, 8192 - n, "\tcvt.u64.u32 %%rd8, %%r9;\n\tmov.u64 %%rd9, smem;\n"
			      "\tcvta.shared.u64 %%rd9, %%rd9;\n\tadd.u64 %%rd8, %%rd8, %%rd9;\n\tadd.u64 %%rd8, %%rd8, 32;\n");
		addr = "[%rd8+-32]";
	} else {                     /* the variable: every lane the same row 5 */
		addr = "[smem+80]";
	}
	n += snprintf(t + n, 8192 - n, "\tldmatrix.sync.aligned.m8n8.x%d%s%s.b16 {", v->n,
		      v->trans ? ".trans" : "", v->space);
	for (int i = 0; i < v->n; i++)
		n += snprintf(t + n, 8192 - n, "%s%%r%d", i ? ", " : "", 20 + i);
	n += snprintf(t + n, 8192 - n, "}, %s;\n\tmul.wide.u32 %%rd10, %%r3, 32;\n\tadd.u64 %%rd10, %%rd3, %%rd10;\n",
		      addr);
	for (int i = 0; i < v->n; i++)
		n += snprintf(t + n, 8192 - n, "\tst.global.u32 [%%rd10+%d], %%r%d;\n", 4 * i, 20 + i);
	/* movmatrix of the first register, after the loads */
	n += snprintf(t + n, 8192 - n, "\tmovmatrix.sync.aligned.m8n8.trans.b16 %%r30, %%r20;\n"
		      "\tst.global.u32 [%%rd10+16], %%r30;\n\tret;\n}\n");
	return t;
}

int test_sm80_ldmatrix(int argc, char **argv)
{
	(void)argc, (void)argv;
	uint64_t seed = 77;
	uint32_t *in = malloc(BLOCKS * 2048), rows[BLOCKS * 32];
	for (int i = 0; i < BLOCKS * 512; i++)
		in[i] = (uint32_t)sim_rng(&seed);
	for (int b = 0; b < BLOCKS; b++) {   /* a permutation of the 128 rows, per block */
		int perm[128];
		for (int i = 0; i < 128; i++)
			perm[i] = i;
		for (int i = 127; i > 0; i--) {
			int j = (int)(sim_rng(&seed) % (uint64_t)(i + 1)), x = perm[i];
			perm[i] = perm[j], perm[j] = x;
		}
		for (int l = 0; l < 32; l++)
			rows[b * 32 + l] = (uint32_t)perm[l];
	}
	for (size_t vi = 0; vi < sizeof(variants) / sizeof(variants[0]); vi++) {
		const variant *v = &variants[vi];
		char *text = kernel(v);
		uint32_t *outs[4];
		void *o[4][8] = { { 0 } };
		for (int t = 0; t < 4; t++) {
			outs[t] = calloc(BLOCKS * 32, 32);
			o[t][2] = outs[t];
		}
		sarg args[3] = { { BLOCKS * 2048, in, NULL, 0 }, { sizeof(rows), rows, NULL, 0 },
				 { BLOCKS * 32 * 32, NULL, NULL, 0 } };
		srun R = { .kernel = "k", .grid = BLOCKS, .block = 32, .args = args, .nargs = 3 };
		if (!sm80_run_all(text, &R, o, NULL))
			for (int t = 1; t < 4; t++)
				for (int i = 0; i < BLOCKS * 32 * 8; i++)
					CHECK_EQ(outs[t][i], outs[0][i], "ldmatrix %s on sm_%d, thread %d word %d (4: movmatrix)",
						 v->name, sm80_targets[t - 1], i / 8, i % 8);
		/* The sm_80 result itself: lane 5's first register is row 5/4 = 1's halves 2, 3
		 * (.trans: rows 2, 3 of column 1) of matrix 0. */
		uint32_t row1 = v->addr == 2 ? 5 : rows[1], r2 = rows[2], r3 = rows[3];
		const uint16_t *h = (const uint16_t *)in;
		uint32_t want = v->trans && v->addr != 2 ? (uint32_t)h[r2 * 8 + 1] | (uint32_t)h[r3 * 8 + 1] << 16
			      : v->trans ? (uint32_t)h[5 * 8 + 1] * 0x10001u
			      : (uint32_t)h[row1 * 8 + 2] | (uint32_t)h[row1 * 8 + 3] << 16;
		CHECK_EQ(outs[0][5 * 8], want, "ldmatrix %s on sm_80: lane 5, register 0", v->name);
		for (int t = 0; t < 4; t++)
			free(outs[t]);
		free(text);
	}
	free(in);
	return 0;
}
