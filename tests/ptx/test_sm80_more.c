/* test_sm80_more.c: the lowerings of emit_float.c, emit_sreg.c, emit_memory.c, stmatrix and
 * cp.async as inline assembly writes it.  The originals run on simulated sm_90 (which
 * takes every form: .xorsign.abs needs sm_86) or sm_80, the lowered texts on sm_75, sm_70
 * and sm_61.
 *
 * minmax: min/max .NaN and .xorsign.abs on f32, every f16 and f16x2 form with .ftz, on
 *   pairs of special values (NaN with payloads, infinities, signed zeros, subnormals of
 *   both types, the largest and smallest normals) and random bits: bit-identical.
 * tanh: tanh.approx.f32 (lowered below sm_75), .f16 and .f16x2 and ex2.approx.f16 (below
 *   sm_75) over the whole f32 range and every f16: within the ISA's bound of the exact
 *   value (relative 2^-11 for tanh.approx.f32), and for f32 within 2^-16 of it; signs, NaN
 *   and infinities as tanh has them.
 * misc: griddepcontrol.wait/.launch_dependents, fence.proxy.async, and the cluster
 *   registers and %aggr_smem_size through mov and cvt: the same words as on sm_90.
 * memory: the .sem/.scope forms of sm_70 (global, shared, local, generic addresses) and the
 *   fences: the same words as on sm_80.
 * stmatrix, cp_async_forms: bit-identical data movement. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sm80_tests.h"

#define N 2048

static const char *const f32_forms[] = { "min.NaN.f32", "max.NaN.f32", "min.ftz.NaN.f32",
					 "min.xorsign.abs.f32", "max.NaN.xorsign.abs.f32" };
static const char *const f16_forms[] = { "min.f16", "max.f16", "min.NaN.f16", "max.ftz.f16",
					 "min.ftz.NaN.f16", "max.xorsign.abs.f16",
					 "min.NaN.xorsign.abs.f16" };
static const char *const f16x2_forms[] = { "min.f16x2", "max.f16x2", "max.NaN.f16x2",
					   "min.ftz.f16x2", "max.ftz.NaN.xorsign.abs.f16x2" };
#define NF32 (int)(sizeof f32_forms / sizeof f32_forms[0])
#define NF16 (int)(sizeof f16_forms / sizeof f16_forms[0])
#define NF16X2 (int)(sizeof f16x2_forms / sizeof f16x2_forms[0])
#define WORDS (NF32 + NF16 + NF16X2)

/* Each thread: a and b (u32 each: the f32, or an f16 pair) -> one word per form. */
static char *minmax_kernel(void)
{
	size_t cap = 16384;
	char *t = malloc(cap);
	int n = snprintf(t, cap,
		".version 8.0\n.target sm_90\n.address_size 64\n"
		".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pout)\n{\n"
		"\t.reg .b32 %%r<20>;\n\t.reg .b16 %%h<8>;\n\t.reg .f32 %%f<8>;\n\t.reg .b64 %%rd<12>;\n"
		"\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r2, %%ctaid.x;\n\tmad.lo.u32 %%r3, %%r2, 128, %%r1;\n"
		"\tld.param.u64 %%rd1, [pa];\n\tld.param.u64 %%rd2, [pb];\n\tld.param.u64 %%rd3, [pout];\n"
		"\tmul.wide.u32 %%rd4, %%r3, 4;\n\tadd.u64 %%rd5, %%rd1, %%rd4;\n\tadd.u64 %%rd6, %%rd2, %%rd4;\n"
		"\tld.global.u32 %%r4, [%%rd5];\n\tld.global.u32 %%r5, [%%rd6];\n"
		"\tmov.b32 %%f1, %%r4;\n\tmov.b32 %%f2, %%r5;\n\tmov.b32 {%%h1, %%h2}, %%r4;\n"
		"\tmov.b32 {%%h3, %%h4}, %%r5;\n"
		"\tmul.wide.u32 %%rd7, %%r3, %d;\n\tadd.u64 %%rd7, %%rd3, %%rd7;\n", WORDS * 4);
	int w = 0;
	for (int i = 0; i < NF32; i++, w++)
		n += snprintf(t + n, cap - n, "\t%s %%f3, %%f1, %%f2;\n\tst.global.f32 [%%rd7+%d], %%f3;\n",
			      f32_forms[i], 4 * w);
	for (int i = 0; i < NF16; i++, w++)
		n += snprintf(t + n, cap - n, "\t%s %%h5, %%h1, %%h3;\n\tcvt.u32.u16 %%r6, %%h5;\n"
			      "\tst.global.u32 [%%rd7+%d], %%r6;\n", f16_forms[i], 4 * w);
	for (int i = 0; i < NF16X2; i++, w++)
		n += snprintf(t + n, cap - n, "\t%s %%r7, %%r4, %%r5;\n\tst.global.u32 [%%rd7+%d], %%r7;\n",
			      f16x2_forms[i], 4 * w);
	snprintf(t + n, cap - n, "\tret;\n}\n");
	return t;
}

/* Special values of f32 and f16, and random bits, in pairs of every kind. */
static void minmax_inputs(uint32_t *a, uint32_t *b)
{
	static const uint32_t f32s[] = { 0x7fc00000, 0xffc00001, 0x7f800001, 0x7f800000, 0xff800000,
					 0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x00800000,
					 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff };
	static const uint16_t f16s[] = { 0x7e00, 0xfc01, 0x7c00, 0xfc00, 0, 0x8000, 1, 0x8001,
					 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7fff };
	uint64_t seed = 77;
	int nf = (int)(sizeof f32s / sizeof f32s[0]), nh = (int)(sizeof f16s / sizeof f16s[0]);

	for (int i = 0; i < N; i++) {
		uint64_t r = sim_rng(&seed);
		if (i < nf * nf) {
			a[i] = f32s[i / nf];
			b[i] = f32s[i % nf];
		} else if (i < nf * nf + nh * nh) {
			int j = i - nf * nf;
			a[i] = f16s[j / nh] | (uint32_t)f16s[j % nh] << 16;
			b[i] = f16s[j % nh] | (uint32_t)f16s[(j + 3) % nh] << 16;
		} else {
			a[i] = (uint32_t)r;
			b[i] = (uint32_t)(r >> 32);
			if (i % 4 == 0)   /* equal magnitudes, or nearly */
				b[i] = a[i] ^ (i % 8 ? 0x80000000u : 0x00010000u);
		}
	}
}

int test_sm80_float(int argc, char **argv)
{
	(void)argc, (void)argv;
	static uint32_t a[N], b[N];
	char *text = minmax_kernel();
	uint32_t *outs[4];

	sarg args[3] = { { sizeof a, a, NULL, 0 }, { sizeof b, b, NULL, 0 },
			 { (size_t)N * WORDS * 4, NULL, NULL, 0 } };
	srun R = { .kernel = "k", .grid = N / 128, .block = 128, .args = args, .nargs = 3 };
	minmax_inputs(a, b);
	sm80_run_on(text, 90, &R, 2, outs);
	for (int t = 1; t < 4; t++)
		for (int i = 0; i < N * WORDS; i++) {
			int f = i % WORDS;
			const char *form = f < NF32 ? f32_forms[f] : f < NF32 + NF16 ? f16_forms[f - NF32]
								    : f16x2_forms[f - NF32 - NF16];
			if (outs[t][i] != outs[0][i]) {
				CHECK_EQ(outs[t][i], outs[0][i], "%s on sm_%d, a %#x b %#x", form,
					 sm80_targets[t - 1], a[i / WORDS], b[i / WORDS]);
				break;
			}
		}
	/* sm_90 itself, a few known answers: .NaN wins, a plain NaN is ignored, xorsign. */
	CHECK_EQ(outs[0][0 * WORDS + 1], 0x7fffffffu, "max.NaN(NaN, NaN)");
	CHECK_EQ(outs[0][3 * WORDS + 1], 0x7fffffffu, "max.NaN(+inf, NaN)");
	for (int t = 0; t < 4; t++)
		free(outs[t]);
	free(text);
	return 0;
}

/* ------------------------------------------------------------------ tanh, ex2 */

static const char tanh_text[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry k(.param .u64 pa, .param .u64 pout)\n{\n"
	"\t.reg .b32 %r<12>;\n\t.reg .b16 %h<6>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<8>;\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmad.lo.u32 %r3, %r2, 128, %r1;\n"
	"\tld.param.u64 %rd1, [pa];\n\tld.param.u64 %rd2, [pout];\n"
	"\tmul.wide.u32 %rd3, %r3, 4;\n\tadd.u64 %rd4, %rd1, %rd3;\n\tld.global.u32 %r4, [%rd4];\n"
	"\tmul.wide.u32 %rd5, %r3, 16;\n\tadd.u64 %rd5, %rd2, %rd5;\n"
	"\tmov.b32 %f1, %r4;\n\ttanh.approx.f32 %f2, %f1;\n\tst.global.f32 [%rd5], %f2;\n"
	"\tmov.b32 {%h1, %h2}, %r4;\n\ttanh.approx.f16 %h3, %h1;\n\tcvt.u32.u16 %r5, %h3;\n"
	"\tst.global.u32 [%rd5+4], %r5;\n\ttanh.approx.f16x2 %r6, %r4;\n\tst.global.u32 [%rd5+8], %r6;\n"
	"\tex2.approx.f16 %h4, %h1;\n\tcvt.u32.u16 %r7, %h4;\n\tst.global.u32 [%rd5+12], %r7;\n"
	"\tret;\n}\n";

static double f32v(uint32_t u)
{
	return sm80_f32_value(u);
}

/* Whether got (f16 bits) is within one f16 ulp of want, or both NaN. */
static int near_f16(uint16_t got, double want)
{
	double g = sm80_f16_value(got);
	if (isnan(want))
		return isnan(g);
	if (fabs(want) >= 65520)          /* past the largest f16 and half its ulp: infinite */
		return isinf(g) && signbit(g) == signbit(want);
	double ulp = fabs(want) < 6.103515625e-05 ? 5.9604644775390625e-08
						  : ldexp(1.0, ilogb(want) - 10);
	return fabs(g - want) <= ulp;
}

int test_sm80_tanh(int argc, char **argv)
{
	(void)argc, (void)argv;
	static uint32_t x[N], outs[4][N * 4];
	uint64_t seed = 5;
	double worst = 0;

	for (int i = 0; i < N; i++) {
		/* f32: every binade from 2^-126 to 2^7 and the special values; f16 pairs */
		static const uint32_t special[] = { 0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
						    1, 0x80000001, 0x3f0ccccd, 0x3f0cccce, 0xbf0ccccc };
		uint64_t r = sim_rng(&seed);
		if (i < 10)
			x[i] = special[i];
		else
			x[i] = (uint32_t)((r % 261) << 23) | (uint32_t)(r >> 40 & 0x7fffff) |
			       (uint32_t)(r >> 63 << 31);
		if (((x[i] >> 23) & 0xff) > 133 && ((x[i] >> 23) & 0xff) < 255)
			x[i] &= 0x807fffffu, x[i] |= 133u << 23;
	}
	for (int t = 0; t < 4; t++) {
		sarg args[2] = { { sizeof x, x, NULL, 0 }, { sizeof outs[t], NULL, outs[t], 0 } };
		srun R = { .kernel = "k", .grid = N / 128, .block = 128, .args = args, .nargs = 2 };
		int sm = t ? sm80_targets[t - 1] : 90;
		if (t ? sim_lower_run(tanh_text, sm, &R, NULL) : sim_run(tanh_text, sizeof tanh_text - 1, sm, &R))
			FAIL("tanh on sm_%d: %s", sm, R.err);
	}
	for (int t = 1; t < 4; t++)
		for (int i = 0; i < N; i++) {
			double v = f32v(x[i]), want = tanh(v), got = f32v(outs[t][4 * i]);
			double err = isnan(want) ? 0 : fabs(got - want) / (want ? fabs(want) : 1);
			if (isnan(want) ? !isnan(got) : err > ldexp(1.0, -16) ||
			    signbit(got) != signbit(want)) {
				FAIL("tanh.approx.f32(%a) on sm_%d: %a, want %a", v, sm80_targets[t - 1],
				     got, want);
				break;
			}
			worst = err > worst ? err : worst;
			double h = sm80_f16_value((uint16_t)x[i]), hh = sm80_f16_value((uint16_t)(x[i] >> 16));
			if (!near_f16((uint16_t)outs[t][4 * i + 1], tanh(h)) ||
			    !near_f16((uint16_t)outs[t][4 * i + 2], tanh(h)) ||
			    !near_f16((uint16_t)(outs[t][4 * i + 2] >> 16), tanh(hh)) ||
			    !near_f16((uint16_t)outs[t][4 * i + 3], exp2(h))) {
				FAIL("f16 tanh/ex2 of %#x on sm_%d: %#x %#x %#x", x[i], sm80_targets[t - 1],
				     outs[t][4 * i + 1], outs[t][4 * i + 2], outs[t][4 * i + 3]);
				break;
			}
		}
	printf("tanh.approx.f32 lowered: largest relative error %.3g (2^%.1f); the ISA's bound is 2^-11\n",
	       worst, worst ? log2(worst) : -INFINITY);
	return 0;
}

/* ------------------------------------------------------------------ the rest */

static const char misc_text[] =
	".version 8.1\n.target sm_90\n.address_size 64\n"
	".visible .entry k(.param .u64 pout)\n{\n"
	"\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<3>;\n"
	"\t.shared .align 4 .b8 own[200];\n"
	"\tgriddepcontrol.wait;\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ctaid.y;\n"
	"\tld.param.u64 %rd1, [pout];\n\tmov.u32 %r4, %nctaid.x;\n\tmad.lo.u32 %r5, %r3, %r4, %r2;\n"
	"\tmad.lo.u32 %r5, %r5, 64, %r1;\n\tmul.wide.u32 %rd2, %r5, 48;\n\tadd.u64 %rd2, %rd1, %rd2;\n"
	"\tst.shared.u32 [own], %r1;\n\tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n"
	"\tmov.u32 %r6, %clusterid.x;\n\tmov.u32 %r7, %clusterid.y;\n\tmov.u32 %r8, %nclusterid.x;\n"
	"\tmov.u32 %r9, %cluster_ctaid.x;\n\tmov.u32 %r10, %cluster_nctaid.z;\n"
	"\tmov.u32 %r11, %cluster_ctarank;\n\tmov.u32 %r12, %cluster_nctarank;\n"
	"\tmov.pred %p1, %is_explicit_cluster;\n\tselp.u32 %r13, 1, 0, %p1;\n"
	"\tcvt.u64.u32 %rd3, %cluster_ctarank;\n\tcvt.u32.u64 %r14, %rd3;\n"
	"\tmov.u32 %r15, %aggr_smem_size;\n\tmov.u32 %r16, %total_smem_size;\n\tsub.u32 %r15, %r15, %r16;\n"
	/* the system's region: 1 KB from sm_80 on, nothing before */
	"\tsetp.eq.u32 %p2, %r15, 0;\n\tsetp.eq.or.u32 %p2, %r15, 1024, %p2;\n\tselp.u32 %r17, 1, 0, %p2;\n"
	"\tsetp.eq.u32 %p2, %r1, 5;\n\t@%p2 mov.u32 %r6, %cluster_nctarank;\n"
	"\tst.global.v4.u32 [%rd2], {%r6, %r7, %r8, %r9};\n"
	"\tst.global.v4.u32 [%rd2+16], {%r10, %r11, %r12, %r13};\n"
	"\tst.global.v4.u32 [%rd2+32], {%r14, %r17, %r16, %r4};\n"
	"\tgriddepcontrol.launch_dependents;\n"
	"\tret;\n}\n";

int test_sm80_misc(int argc, char **argv)
{
	(void)argc, (void)argv;
	uint32_t *outs[4];
	sarg args[1] = { { 6 * 64 * 12 * 4, NULL, NULL, 0 } };
	srun R = { .kernel = "k", .grid = 6, .block = 64, .args = args, .nargs = 1 };
	if (!sm80_run_on(misc_text, 90, &R, 0, outs)) {
		for (int t = 0; t < 4; t++)      /* the total's allocation unit differs: not it */
			for (int i = 10; i < 6 * 64 * 12; i += 12)
				outs[t][i] = 0;
		sm80_same_words(outs, 6 * 64 * 12, "griddepcontrol, fence.proxy, cluster registers");
		CHECK_EQ(outs[0][5 * 12], 1u, "the guarded read of %%cluster_nctarank on sm_90");
		CHECK_EQ(outs[0][9], 1u, "%%aggr_smem_size: the total and the system's 1 KB on sm_90");
	}
	for (int t = 0; t < 4; t++)
		free(outs[t]);
	return 0;
}

/* ------------------------------------------------------------------ memory model */

/* Every .sem/.scope form the targets lack: each thread adds to counters with release and
 * acq_rel atomics, reads them back with acquire and relaxed loads, stores with release and
 * relaxed stores, and fences; one warp per block and blocks in order, so the words come out
 * the same on every target. */
static const char memory_text[] =
	".version 8.6\n.target sm_80\n.address_size 64\n"
	".visible .entry k(.param .u64 pc, .param .u64 pout)\n{\n"
	"\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<3>;\n"
	"\t.shared .align 4 .b8 s[128];\n\t.local .align 4 .b8 l[8];\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmad.lo.u32 %r3, %r2, 32, %r1;\n"
	"\tld.param.u64 %rd1, [pc];\n\tld.param.u64 %rd2, [pout];\n"
	"\tmul.wide.u32 %rd3, %r3, 32;\n\tadd.u64 %rd3, %rd2, %rd3;\n"
	/* generic addresses of local, shared and global memory */
	"\tmov.u64 %rd6, l;\n\tcvta.local.u64 %rd6, %rd6;\n\tst.relaxed.cta.u32 [%rd6+4], %r3;\n"
	"\tld.relaxed.gpu.u32 %r15, [%rd6+4];\n"
	"\tmov.u64 %rd7, s;\n\tcvta.shared.u64 %rd7, %rd7;\n\tld.acquire.cta.u32 %r16, [%rd7+64];\n"
	"\tst.relaxed.gpu.u32 [%rd1+20], %r16;\n"
	"\tfence.acquire.gpu;\n\tfence.release.cta;\n"
	"\tatom.add.release.gpu.global.u32 %r4, [%rd1], %r3;\n"
	"\tatom.acq_rel.sys.global.add.u32 %r5, [%rd1+4], 1;\n"
	"\tatom.relaxed.cta.global.max.s32 %r6, [%rd1+8], %r3;\n"
	"\tred.relaxed.gpu.global.add.u32 [%rd1+12], 2;\n"
	"\tatom.acquire.gpu.global.cas.b32 %r7, [%rd1+16], %r3, %r1;\n"
	"\tfence.sc.gpu;\n\tfence.acq_rel.cta;\n"
	"\tld.acquire.gpu.global.u32 %r8, [%rd1];\n\tld.relaxed.sys.global.u32 %r9, [%rd1+12];\n"
	"\tmul.lo.u32 %r10, %r1, 4;\n\tmov.u32 %r11, s;\n\tadd.u32 %r11, %r11, %r10;\n"
	"\tst.relaxed.cta.shared.u32 [%r11], %r3;\n\tbar.sync 0;\n"
	"\txor.b32 %r12, %r10, 4;\n\tmov.u32 %r13, s;\n\tadd.u32 %r13, %r13, %r12;\n"
	"\tld.relaxed.cta.shared.u32 %r14, [%r13];\n"
	"\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 st.release.gpu.global.u32 [%rd3+28], %r14;\n"
	"\tst.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r7};\n"
	"\tst.global.v2.u32 [%rd3+16], {%r8, %r9};\n\tst.global.u32 [%rd3+24], %r14;\n"
	"\tsetp.ne.u32 %p2, %r15, %r3;\n\t@%p2 st.global.u32 [%rd3+28], 99;\n"
	"\tret;\n}\n";

int test_sm80_memory(int argc, char **argv)
{
	(void)argc, (void)argv;
	uint32_t *counters[4], *outs[4];
	sarg args[2] = { { 8 * 4, NULL, NULL, 0 }, { 4 * 32 * 8 * 4, NULL, NULL, 0 } };
	srun R = { .kernel = "k", .grid = 4, .block = 32, .args = args, .nargs = 2 };
	/* the counters of one run, the words of another: the same kernel, the same order */
	if (!sm80_run_on(memory_text, 80, &R, 0, counters) &&
	    !sm80_run_on(memory_text, 80, &R, 1, outs)) {
		sm80_same_words(counters, 8, "the memory model's counters");
		sm80_same_words(outs, 4 * 32 * 8, "the memory model's loads");
		CHECK_EQ(counters[0][0], 127u * 128 / 2, "the release adds on sm_80");
		CHECK_EQ(counters[0][3], 256u, "the relaxed reductions on sm_80");
	}
	for (int t = 0; t < 4; t++) {
		free(counters[t]);
		free(outs[t]);
	}
	return 0;
}

/* ------------------------------------------------------------------ stmatrix */

/* stmatrix .x1, .x2 .trans, .x4 (shared, and generic for .x4), the rows of its matrices at
 * scattered addresses (row r of matrix i at row (7 (8i + r) + 3) % 32 of a 32-row tile),
 * under a guard for one warp of two; the tile then copied out whole. */
static const char stmatrix_text[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
	"\t.reg .b32 %r<30>;\n\t.reg .b64 %rd<10>;\n\t.reg .pred %p<3>;\n"
	"\t.shared .align 16 .b8 tile[2048];\n"
	"\tmov.u32 %r1, %tid.x;\n\tand.b32 %r2, %r1, 31;\n\tshr.u32 %r3, %r1, 5;\n"
	"\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n"
	"\tmul.wide.u32 %rd3, %r1, 16;\n\tadd.u64 %rd3, %rd1, %rd3;\n"
	"\tld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd3];\n"
	/* this lane's row address: row (7 l + 3) % 32, in this warp's kilobyte */
	"\tmad.lo.u32 %r8, %r2, 7, 3;\n\trem.u32 %r8, %r8, 32;\n\tshl.b32 %r8, %r8, 4;\n"
	"\tmov.u32 %r9, tile;\n\tshl.b32 %r10, %r3, 10;\n\tadd.u32 %r9, %r9, %r10;\n\tadd.u32 %r11, %r9, %r8;\n"
	"\tstmatrix.sync.aligned.m8n8.x4.shared.b16 [%r11], {%r4, %r5, %r6, %r7};\n"
	"\tbar.sync 0;\n"
	"\tmul.wide.u32 %rd6, %r1, 32;\n\tadd.u64 %rd6, %rd2, %rd6;\n"
	"\tmul.lo.u32 %r12, %r1, 32;\n\tmov.u32 %r13, tile;\n\tadd.u32 %r13, %r13, %r12;\n"
	"\tld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [%r13];\n\tld.shared.v4.u32 {%r18, %r19, %r20, %r21}, [%r13+16];\n"
	"\tst.global.v4.u32 [%rd6], {%r14, %r15, %r16, %r17};\n\tst.global.v4.u32 [%rd6+16], {%r18, %r19, %r20, %r21};\n"
	"\tbar.sync 0;\n"
	/* the transposed forms, warp 1 only */
	"\tsetp.eq.u32 %p1, %r3, 1;\n"
	"\t@%p1 stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%r11], {%r6, %r7};\n"
	"\tbar.sync 0;\n"
	"\tld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [%r13];\n\tld.shared.v4.u32 {%r18, %r19, %r20, %r21}, [%r13+16];\n"
	"\tst.global.v4.u32 [%rd6+2048], {%r14, %r15, %r16, %r17};\n\tst.global.v4.u32 [%rd6+2064], {%r18, %r19, %r20, %r21};\n"
	"\tbar.sync 0;\n"
	"\tcvt.u64.u32 %rd7, %r11;\n\tcvta.shared.u64 %rd7, %rd7;\n"
	"\tstmatrix.sync.aligned.m8n8.x1.b16 [%rd7], {%r5};\n"
	"\tbar.sync 0;\n"
	"\tld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [%r13];\n\tld.shared.v4.u32 {%r18, %r19, %r20, %r21}, [%r13+16];\n"
	"\tst.global.v4.u32 [%rd6+4096], {%r14, %r15, %r16, %r17};\n\tst.global.v4.u32 [%rd6+4112], {%r18, %r19, %r20, %r21};\n"
	"\tret;\n}\n";

int test_sm80_stmatrix(int argc, char **argv)
{
	(void)argc, (void)argv;
	static uint32_t in[64 * 4];
	uint32_t *outs[4];
	uint64_t seed = 9;
	sarg args[2] = { { sizeof in, in, NULL, 0 }, { 64 * 8 * 3 * 4, NULL, NULL, 0 } };
	srun R = { .kernel = "k", .grid = 1, .block = 64, .args = args, .nargs = 2 };
	for (int i = 0; i < 64 * 4; i++)
		in[i] = (uint32_t)sim_rng(&seed);
	if (!sm80_run_on(stmatrix_text, 90, &R, 1, outs)) {
		sm80_same_words(outs, 64 * 8 * 3, "stmatrix");
		/* sm_90 itself: lane 0's first register is row 0 of matrix 0, at tile row 3. */
		CHECK_EQ(outs[0][3 * 4], in[0], "stmatrix .x4 on sm_90");
	}
	for (int t = 0; t < 4; t++)
		free(outs[t]);
	return 0;
}

/* ------------------------------------------------------------------ cp.async, as written */

/* cp.async as CUTLASS's inline assembly writes it (cuSPARSELt's kernels): the size in hex,
 * src-size in a register of a nested block declared without '%', one such block per copy
 * (more blocks than the pass keeps declarations of, so they must be shared). */
static char *cp_async_text(void)
{
	size_t cap = 65536;
	char *t = malloc(cap);
	int n = snprintf(t, cap, ".version 7.0\n.target sm_80\n.address_size 64\n"
		".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
		"\t.reg .b32 %%r<20>;\n\t.reg .b64 %%rd<10>;\n\t.shared .align 16 .b8 tile[8192];\n"
		"\tmov.u32 %%r1, %%tid.x;\n\tld.param.u64 %%rd1, [pin];\n\tld.param.u64 %%rd2, [pout];\n"
		"\tmul.wide.u32 %%rd3, %%r1, 8;\n\tadd.u64 %%rd4, %%rd1, %%rd3;\n"
		"\tmov.u32 %%r2, tile;\n\tshl.b32 %%r3, %%r1, 3;\n\tadd.u32 %%r2, %%r2, %%r3;\n");
	for (int i = 0; i < 300; i++)
		n += snprintf(t + n, cap - n, "{\n.reg .pred p<1>;\n.reg .u32 src<1>;\n"
			      "and.b32 src0, %%r1, %d;\nsetp.gt.u32 p0, src0, 0x0;\n"
			      "selp.u32 src0, 0x8, 0, p0;\ncp.async.ca.shared.global [%%r2+%d], [%%rd4+%d], 0x08, src0;\n}\n",
			      1 << (i % 5), (i % 8) * 1024, (i % 8) * 1024);
	snprintf(t + n, cap - n, "\tcp.async.wait_all;\n\tbar.sync 0;\n"
		 "\tmul.wide.u32 %%rd5, %%r1, 64;\n\tadd.u64 %%rd5, %%rd2, %%rd5;\n"
		 "\tmov.u32 %%r4, tile;\n\tshl.b32 %%r5, %%r1, 6;\n\tadd.u32 %%r4, %%r4, %%r5;\n"
		 "\tld.shared.v4.u32 {%%r6, %%r7, %%r8, %%r9}, [%%r4];\n\tst.global.v4.u32 [%%rd5], {%%r6, %%r7, %%r8, %%r9};\n"
		 "\tld.shared.v4.u32 {%%r6, %%r7, %%r8, %%r9}, [%%r4+16];\n\tst.global.v4.u32 [%%rd5+16], {%%r6, %%r7, %%r8, %%r9};\n"
		 "\tld.shared.v4.u32 {%%r6, %%r7, %%r8, %%r9}, [%%r4+32];\n\tst.global.v4.u32 [%%rd5+32], {%%r6, %%r7, %%r8, %%r9};\n"
		 "\tld.shared.v4.u32 {%%r6, %%r7, %%r8, %%r9}, [%%r4+48];\n\tst.global.v4.u32 [%%rd5+48], {%%r6, %%r7, %%r8, %%r9};\n"
		 "\tret;\n}\n");
	return t;
}

int test_sm80_cp_async_forms(int argc, char **argv)
{
	(void)argc, (void)argv;
	static uint32_t in[8192 / 4];
	uint32_t *outs[4];
	uint64_t seed = 3;
	char *text = cp_async_text();
	sarg args[2] = { { sizeof in, in, NULL, 0 }, { 8192, NULL, NULL, 0 } };
	srun R = { .kernel = "k", .grid = 1, .block = 128, .args = args, .nargs = 2 };
	for (int i = 0; i < 8192 / 4; i++)
		in[i] = (uint32_t)sim_rng(&seed);
	if (!sm80_run_on(text, 80, &R, 1, outs))
		sm80_same_words(outs, 8192 / 4, "cp.async as CUTLASS writes it");
	for (int t = 0; t < 4; t++)
		free(outs[t]);
	free(text);
	return 0;
}
