/* test_sm80_sync.c: redux.sync (every operation and type, the whole warp, a mask in a
 * register for a divergent subset, an immediate partial mask, a guard) and the 16-bit
 * atomics (atom/red .add.noftz .bf16/.bf16x2 on global and shared memory with .sem,
 * .scope and a cache policy, .f16, atom.cas.b16): the original on simulated sm_80 (sm_90
 * for the bf16 atomics, which need it), the lowered text on sm_75, sm_70 and sm_61, every
 * result bit-identical.  One warp per block: lanes apply their atomics in lane order in
 * both, so the sums (not associative) come out in the same order. */
#include <stdlib.h>
#include <string.h>

#include "sm80_tests.h"

#define BLOCKS 8

static const char *const redux_forms[] = { "add.u32", "add.s32", "min.u32", "min.s32", "max.u32",
					   "max.s32", "and.b32", "or.b32", "xor.b32" };

/* in: one u32 per thread; out: 4 u32 per thread and form. */
static char *redux_kernel(void)
{
	size_t cap = 16384;
	char *t = malloc(cap);
	int n = snprintf(t, cap,
		".version 8.0\n.target sm_80\n.address_size 64\n"
		".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
		"\t.reg .b32 %%r<40>;\n\t.reg .b64 %%rd<20>;\n\t.reg .pred %%p<8>;\n"
		"\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r2, %%ctaid.x;\n\tmad.lo.u32 %%r3, %%r2, 32, %%r1;\n"
		"\tld.param.u64 %%rd1, [pin];\n\tld.param.u64 %%rd2, [pout];\n"
		"\tmul.wide.u32 %%rd3, %%r3, 4;\n\tadd.u64 %%rd3, %%rd1, %%rd3;\n\tld.global.u32 %%r4, [%%rd3];\n"
		"\tmul.wide.u32 %%rd4, %%r3, %d;\n\tadd.u64 %%rd4, %%rd2, %%rd4;\n"
		/* the lanes not divisible by 3, as a mask in a register */
		"\tmov.u32 %%r5, 0;\n\tmov.u32 %%r6, 0;\n"
		"$mask:\n\trem.u32 %%r7, %%r6, 3;\n\tsetp.ne.u32 %%p1, %%r7, 0;\n\tshl.b32 %%r8, 1, %%r6;\n"
		"\t@%%p1 or.b32 %%r5, %%r5, %%r8;\n\tadd.u32 %%r6, %%r6, 1;\n\tsetp.lt.u32 %%p2, %%r6, 32;\n"
		"\t@%%p2 bra $mask;\n\trem.u32 %%r7, %%r1, 3;\n\tsetp.ne.u32 %%p3, %%r7, 0;\n"
		"\tsetp.lt.u32 %%p4, %%r1, 16;\n",
		(int)(sizeof(redux_forms) / sizeof(redux_forms[0])) * 16);
	for (size_t i = 0; i < sizeof(redux_forms) / sizeof(redux_forms[0]); i++) {
		const char *f = redux_forms[i];
		int o = (int)i * 16;
		n += snprintf(t + n, cap - n,
			"\tredux.sync.%s %%r10, %%r4, 0xffffffff;\n\tst.global.u32 [%%rd4+%d], %%r10;\n"
			"\tmov.u32 %%r11, 7;\n\t@!%%p3 bra $a%zu;\n\tredux.sync.%s %%r11, %%r4, %%r5;\n$a%zu:\n"
			"\tst.global.u32 [%%rd4+%d], %%r11;\n"
			"\tmov.u32 %%r12, 7;\n\t@!%%p4 bra $b%zu;\n\tredux.sync.%s %%r12, %%r4, 0x0000ffff;\n$b%zu:\n"
			"\tst.global.u32 [%%rd4+%d], %%r12;\n"
			"\tmov.u32 %%r13, 7;\n\t@%%p4 redux.sync.%s %%r13, %%r4, 0x0000ffff;\n"
			"\tst.global.u32 [%%rd4+%d], %%r13;\n",
			f, o, i, f, i, o + 4, i, f, i, o + 8, f, o + 12);
	}
	snprintf(t + n, cap - n, "\tret;\n}\n");
	return t;
}

int test_sm80_redux(int argc, char **argv)
{
	(void)argc, (void)argv;
	uint64_t seed = 31;
	int nf = (int)(sizeof(redux_forms) / sizeof(redux_forms[0]));
	uint32_t in[BLOCKS * 32];
	for (int i = 0; i < BLOCKS * 32; i++)   /* small and large, both signs */
		in[i] = (uint32_t)(sim_rng(&seed) >> (i % 3 ? 40 : 0));
	char *text = redux_kernel();
	uint32_t *outs[4];
	void *o[4][8] = { { 0 } };
	for (int t = 0; t < 4; t++) {
		outs[t] = calloc(BLOCKS * 32, (size_t)nf * 16);
		o[t][1] = outs[t];
	}
	sarg args[2] = { { sizeof(in), in, NULL, 0 }, { BLOCKS * 32 * (size_t)nf * 16, NULL, NULL, 0 } };
	srun R = { .kernel = "k", .grid = BLOCKS, .block = 32, .args = args, .nargs = 2 };
	if (!sm80_run_all(text, &R, o, NULL))
		for (int t = 1; t < 4; t++)
			for (int i = 0; i < BLOCKS * 32 * nf * 4; i++)
				CHECK_EQ(outs[t][i], outs[0][i], "redux.sync.%s on sm_%d, thread %d, case %d",
					 redux_forms[i / 4 % nf], sm80_targets[t - 1], i / (4 * nf), i % 4);
	/* sm_80 itself: .add over block 0, the whole warp and lanes 0-15. */
	uint32_t sum = 0, sum16 = 0;
	for (int l = 0; l < 32; l++) {
		sum += in[l];
		sum16 += l < 16 ? in[l] : 0;
	}
	CHECK_EQ(outs[0][0], sum, "redux.sync.add.u32 over the warp");
	CHECK_EQ(outs[0][2], sum16, "redux.sync.add.u32 over lanes 0-15");
	CHECK_EQ(outs[0][31 * nf * 4 + 2], 7, "lane 31 skips the partial redux");
	for (int t = 0; t < 4; t++)
		free(outs[t]);
	free(text);
	return 0;
}

/* Each lane adds its value to counter[lane % 5] (halves: neighbours share a word), in
 * global and shared memory, with atom (keeping the old value) and red.  pcnt: 128 bytes
 * per block, the global counters and then the shared ones at the end. */
static const char atom_kernel[] =
	".version 8.0\n.target sm_%d\n.address_size 64\n"
	".visible .entry k(.param .u64 pin, .param .u64 pcnt, .param .u64 pout)\n{\n"
	"\t.reg .b32 %%r<40>;\n\t.reg .b64 %%rd<20>;\n\t.reg .b16 %%h<10>;\n\t.reg .pred %%p<4>;\n"
	"\t.shared .align 8 .b8 sc[64];\n"
	"\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r2, %%ctaid.x;\n\tmad.lo.u32 %%r3, %%r2, 32, %%r1;\n"
	"\tld.param.u64 %%rd1, [pin];\n\tld.param.u64 %%rd2, [pcnt];\n\tld.param.u64 %%rd3, [pout];\n"
	"\tmul.wide.u32 %%rd4, %%r3, 8;\n\tadd.u64 %%rd4, %%rd1, %%rd4;\n\tld.global.u16 %%h1, [%%rd4];\n"
	"\tld.global.u32 %%r4, [%%rd4+4];\n\tmul.wide.u32 %%rd5, %%r2, 128;\n\tadd.u64 %%rd5, %%rd2, %%rd5;\n"
	"\tmul.wide.u32 %%rd6, %%r3, 32;\n\tadd.u64 %%rd6, %%rd3, %%rd6;\n"
	"\trem.u32 %%r5, %%r1, 5;\n\tshl.b32 %%r6, %%r5, 1;\n\tcvt.u64.u32 %%rd7, %%r6;\n\tadd.u64 %%rd8, %%rd5, %%rd7;\n"
	"\tmov.u32 %%r7, sc;\n\tadd.u32 %%r8, %%r7, %%r6;\n\tsetp.eq.u32 %%p1, %%r1, 0;\n"
	"\t@!%%p1 bra $z;\n\tmov.u32 %%r9, 0;\n\tst.shared.v4.u32 [%%r7], {%%r9, %%r9, %%r9, %%r9};\n"
	"\tst.shared.v4.u32 [%%r7+16], {%%r9, %%r9, %%r9, %%r9};\n"
	"\tst.shared.v4.u32 [%%r7+32], {%%r9, %%r9, %%r9, %%r9};\n"
	"\tst.shared.v4.u32 [%%r7+48], {%%r9, %%r9, %%r9, %%r9};\n$z:\n\tbar.sync 0;\n"
	"\tmov.b64 %%rd9, 0;\n"
	"%s"
	"\tbar.sync 0;\n\t@!%%p1 bra $end;\n\tld.shared.v4.u32 {%%r20, %%r21, %%r22, %%r23}, [%%r7];\n"
	"\tst.global.v4.u32 [%%rd5+64], {%%r20, %%r21, %%r22, %%r23};\n"
	"\tld.shared.v4.u32 {%%r20, %%r21, %%r22, %%r23}, [%%r7+16];\n"
	"\tst.global.v4.u32 [%%rd5+80], {%%r20, %%r21, %%r22, %%r23};\n"
	"\tld.shared.v4.u32 {%%r20, %%r21, %%r22, %%r23}, [%%r7+32];\n"
	"\tst.global.v4.u32 [%%rd5+96], {%%r20, %%r21, %%r22, %%r23};\n"
	"\tld.shared.v4.u32 {%%r20, %%r21, %%r22, %%r23}, [%%r7+48];\n"
	"\tst.global.v4.u32 [%%rd5+112], {%%r20, %%r21, %%r22, %%r23};\n$end:\n\tret;\n}\n";

static const struct { const char *name; int sm; const char *body; } atom_cases[] = {
	{ "bf16", 90,
	  "\tatom.global.add.noftz.bf16 %h2, [%rd8], %h1;\n\tst.global.u16 [%rd6], %h2;\n"
	  "\tatom.shared.add.noftz.bf16 %h3, [%r8], %h1;\n\tst.global.u16 [%rd6+2], %h3;\n"
	  "\tred.relaxed.gpu.global.add.noftz.bf16 [%rd8+12], %h1;\n"
	  "\tatom.acq_rel.cta.shared.add.noftz.bf16 %h4, [%r8+12], %h1;\n\tst.global.u16 [%rd6+4], %h4;\n"
	  "\tatom.add.noftz.bf16 %h5, [%rd8+24], %h1;\n\tst.global.u16 [%rd6+6], %h5;\n"
	  "\t@%p1 atom.global.add.noftz.L2::cache_hint.bf16 %h6, [%rd8+36], %h1, %rd9;\n"
	  "\tst.global.u16 [%rd6+8], %h6;\n" },
	{ "bf16x2", 90,
	  "\tshl.b32 %r10, %r5, 2;\n\tcvt.u64.u32 %rd10, %r10;\n\tadd.u64 %rd10, %rd5, %rd10;\n"
	  "\tadd.u32 %r11, %r7, %r10;\n"
	  "\tatom.global.add.noftz.bf16x2 %r12, [%rd10], %r4;\n\tst.global.u32 [%rd6], %r12;\n"
	  "\tatom.shared.add.noftz.bf16x2 %r13, [%r11], %r4;\n\tst.global.u32 [%rd6+4], %r13;\n"
	  "\tred.shared.add.noftz.bf16x2 [%r11+20], %r4;\n" },
	{ "f16", 80,
	  "\tatom.global.add.noftz.f16 %h2, [%rd8], %h1;\n\tst.global.u16 [%rd6], %h2;\n"
	  "\tred.shared.add.noftz.f16 [%r8], %h1;\n"
	  "\tatom.add.noftz.f16 %h3, [%rd8+12], %h1;\n\tst.global.u16 [%rd6+2], %h3;\n" },
	{ "cas.b16", 80,
	  "\tld.global.u16 %h7, [%rd8];\n"
	  "\tatom.global.cas.b16 %h2, [%rd8], %h7, %h1;\n\tst.global.u16 [%rd6], %h2;\n"
	  "\tmov.b16 %h8, 0;\n\tatom.shared.cas.b16 %h3, [%r8], %h8, %h1;\n\tst.global.u16 [%rd6+2], %h3;\n"
	  "\tatom.cas.b16 %h4, [%rd8+12], %h8, %h1;\n\tst.global.u16 [%rd6+4], %h4;\n" },
};

/* bf16 or f16 bits: some specials; otherwise, one time in two, exponents near 1 (sums
 * that round in the last place), else any finite exponent (sums that need the rounding of
 * a far smaller addend). */
static uint16_t value16(uint64_t *s, int f16)
{
	static const uint16_t bf[] = { 0x7fc0, 0x7f80, 0xff80, 0x0001, 0x807f, 0x0000, 0x8000, 0x7f7f };
	static const uint16_t h[] = { 0x7e00, 0x7c00, 0xfc00, 0x0001, 0x83ff, 0x0000, 0x8000, 0x7bff };
	uint64_t r = sim_rng(s);
	if (r % 64 == 0)
		return f16 ? h[(r >> 8) % 8] : bf[(r >> 8) % 8];
	int near = (r >> 6) & 1;
	if (f16) {
		unsigned e = near ? 12 + (unsigned)((r >> 32) % 6) : (unsigned)((r >> 32) % 31);
		return (uint16_t)((r >> 16) & 0x83ff) | (uint16_t)(e << 10);
	}
	unsigned e = near ? 124 + (unsigned)((r >> 32) % 6) : (unsigned)((r >> 32) % 255);
	return (uint16_t)((r >> 16) & 0x807f) | (uint16_t)(e << 7);
}

int test_sm80_atom(int argc, char **argv)
{
	(void)argc, (void)argv;
	for (size_t c = 0; c < sizeof(atom_cases) / sizeof(atom_cases[0]); c++) {
		uint64_t seed = 100 + c;
		int f16 = !strcmp(atom_cases[c].name, "f16");
		uint16_t in[BLOCKS * 32 * 4];
		uint16_t cnt[BLOCKS * 64];
		for (int i = 0; i < BLOCKS * 32 * 4; i++)
			in[i] = value16(&seed, f16);
		for (int i = 0; i < BLOCKS * 64; i++)
			cnt[i] = value16(&seed, f16);
		char text[8192];
		snprintf(text, sizeof(text), atom_kernel, atom_cases[c].sm, atom_cases[c].body);
		uint16_t *counters[4], *olds[4];
		for (int t = 0; t < 4; t++) {
			counters[t] = calloc(BLOCKS * 64, 2);
			olds[t] = calloc(BLOCKS * 32 * 16, 2);
		}
		sarg args[3] = { { sizeof(in), in, NULL, 0 }, { sizeof(cnt), cnt, NULL, 0 },
				 { BLOCKS * 32 * 32, NULL, NULL, 0 } };
		srun R = { .kernel = "k", .grid = BLOCKS, .block = 32, .args = args, .nargs = 3 };
		for (int t = 0; t < 4; t++) {
			int sm = t ? sm80_targets[t - 1] : atom_cases[c].sm;
			args[1].out = counters[t];
			args[2].out = olds[t];
			int st = t ? sim_lower_run(text, sm, &R, NULL) : sim_run(text, strlen(text), sm, &R);
			if (st) {
				FAIL("atom %s on sm_%d: %s", atom_cases[c].name, sm, R.err);
				continue;
			}
			if (!t)
				continue;
			for (int i = 0; i < BLOCKS * 64; i++)
				CHECK_EQ(counters[t][i], counters[0][i], "atom %s on sm_%d: counter half %d",
					 atom_cases[c].name, sm, i);
			for (int i = 0; i < BLOCKS * 32 * 16; i++)
				CHECK_EQ(olds[t][i], olds[0][i], "atom %s on sm_%d: thread %d old value %d",
					 atom_cases[c].name, sm, i / 16, i % 16);
		}
		/* sm_80/90 itself: the first counter of block 0 got lanes 0, 5, ..., 30 in order. */
		if (strcmp(atom_cases[c].name, "cas.b16") && strcmp(atom_cases[c].name, "bf16x2")) {
			uint16_t acc = cnt[0];
			for (int l = 0; l < 32; l += 5)
				acc = f16 ? sm80_f16_bits(sm80_f16_value(acc) + sm80_f16_value(in[l * 4]))
					  : sm80_bf16_add(acc, in[l * 4]);
			CHECK_EQ(counters[0][0], acc, "atom %s on sm_%d: counter 0 of block 0", atom_cases[c].name,
				 atom_cases[c].sm);
		}
		for (int t = 0; t < 4; t++) {
			free(counters[t]);
			free(olds[t]);
		}
	}
	return 0;
}
