/* The cost model (src/gemm/cost.h) against values worked out by hand, and the planner's choice on
 * both sides of each crossover the model puts between native and a rewrite (bench/cost.sh
 * prints them for the simulator's presets).  No CUDA anywhere. */
#include <math.h>

#include "abi.h"
#include "cards.h"
#include "check.h"
#include "cost.h"
#include "plan.h"

/* Parts by their figures alone (no name: the generic, derated rates), as their drivers report
 * them (tests/simcuda/core/device.c). */
static const struct cost_device t4 = {75, 1, 0, 40, 1590000, 5001000, 256, 0, 0, 0};
static const struct cost_device rtx2080ti = {75, 1, 1, 68, 1545000, 7000000, 352, 0, 0, 0};
static const struct cost_device gtx1660 = {75, 0, 0, 22, 1785000, 4001000, 192, 0, 0, 0};
static const struct cost_device gtx1080 = {61, 0, 0, 20, 1733500, 5005000, 256, 0, 0, 0};
/* The simulator's presets by name (their measured rates where cards.h has some), as
 * bench/cost.sh shows them. */
static struct cost_device named_t4, named_v100, named_v100s, named_2080ti, named_1660,
	named_p100, named_p40, named_1080, named_m40;

static void name_presets(void)
{
	named_t4 = cost_device_from(75, "Tesla T4", 40, 1590000, 5001000, 256);
	named_v100 = cost_device_from(70, "Tesla V100-SXM2-16GB", 80, 1530000, 877000, 4096);
	named_v100s = cost_device_from(70, "Tesla V100S-PCIE-32GB", 80, 1597000, 1106000, 4096);
	named_2080ti = cost_device_from(75, "NVIDIA GeForce RTX 2080 Ti", 68, 1545000, 7000000, 352);
	named_1660 = cost_device_from(75, "NVIDIA GeForce GTX 1660", 22, 1785000, 4001000, 192);
	named_p100 = cost_device_from(60, "Tesla P100-PCIE-16GB", 56, 1328500, 715000, 4096);
	named_p40 = cost_device_from(61, "Tesla P40", 30, 1531000, 3615000, 384);
	named_1080 = cost_device_from(61, "NVIDIA GeForce GTX 1080", 20, 1733500, 5005000, 256);
	named_m40 = cost_device_from(52, "Tesla M40", 24, 1114000, 3004000, 384);
}

static int near(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fabs(want);
}

static void hand_computed(void)
{
	struct cost_estimate e;
	struct cost_gemm cube = {4096, 4096, 4096, 1, 2, 0};
	/* Generic rates: the boost-clock peak times 0.84 (CUDA cores) or 0.68 (tensor cores);
	 * native bf16 at the architecture's fraction of fp32 (0.55 on sm_75, 0.56 on sm_61). */
	double t4_fp32 = 64.0 * 40 * 1590e6 * 0.84, t4_tensor = 512.0 * 40 * 1590e6 * 0.68;
	double t4_bf16 = t4_fp32 * 0.55;

	/* T4: 2 x 5001 MHz x 256 / 8 = 320.064 GB/s. */
	CHECK(near(cost_bandwidth(&t4), 320.064e9), "T4 bandwidth %g", cost_bandwidth(&t4));
	CHECK(near(cost_fp32_rate(&t4), t4_fp32), "T4 fp32 %g", cost_fp32_rate(&t4));
	CHECK(near(cost_tensor_rate(&t4), t4_tensor), "T4 tensor %g", cost_tensor_rate(&t4));
	CHECK(near(cost_fp16_rate(&t4), t4_tensor), "T4 fp16 %g", cost_fp16_rate(&t4));
	CHECK(near(cost_bf16_rate(&t4), t4_bf16), "T4 bf16 %g", cost_bf16_rate(&t4));
	/* GeForce Turing: half the tensor rate; GTX 1660: none, its fp16 GEMMs at 0.15 of fp32;
	 * GTX 1080: fp32 128 a clock, fp16 at 0.97 and native bf16 at 0.56 of it. */
	CHECK(near(cost_tensor_rate(&rtx2080ti), 256.0 * 68 * 1545e6 * 0.68), "2080 Ti tensor");
	CHECK(cost_tensor_rate(&gtx1660) == 0, "GTX 1660 has tensor cores");
	CHECK(near(cost_fp16_rate(&gtx1660), cost_fp32_rate(&gtx1660) * 0.15), "GTX 1660 fp16");
	CHECK(near(cost_fp32_rate(&gtx1080), 128.0 * 20 * 1733.5e6 * 0.84), "GTX 1080 fp32");
	CHECK(near(cost_fp16_rate(&gtx1080), cost_fp32_rate(&gtx1080) * 0.97), "GTX 1080 fp16");
	CHECK(near(cost_bf16_rate(&gtx1080), cost_fp32_rate(&gtx1080) * 0.56), "GTX 1080 bf16");
	/* Measured parts by name: the T4's 4.30 and 42.31 TFLOPS and 114.6 GB/s; a memory-size
	 * suffix still names a part, a longer model number does not. */
	CHECK(near(cost_fp32_rate(&named_t4), 4.30e12 / 2) &&
	      near(cost_tensor_rate(&named_t4), 42.31e12 / 2) &&
	      near(cost_bandwidth(&named_t4), 114.6e9), "the T4's measured rates");
	CHECK(card_measured("Tesla M40 24GB") && card_measured("Tesla P40")->fp32_tflops == 10.07 &&
	      card_measured("Tesla P4")->fp32_tflops == 4.55 && !card_measured("Tesla P400") &&
	      !card_measured("NVIDIA GeForce RTX 2080 Ti") && !card_measured(NULL),
	      "parts by name");

	/* Native 4096^3, C bf16, on a T4: 2mk + 2kn + 2mn = 100663296 bytes (314.51 us) under
	 * 4096^3 = 68719476736 multiply-adds at the bf16 rate, 1024 tiles of 128 fill the 40
	 * SMs: the multiply-adds' time + 4 us. */
	CHECK(cost_estimate(&t4, &cube, COST_NATIVE, &e), "native on a T4");
	CHECK(near(e.us, 68719476736.0 / t4_bf16 * 1e6 + 4), "native 4096^3 %.4f us", e.us);
	CHECK(near(e.bytes, 100663296) && e.launches == 1, "native bytes %g", e.bytes);

	/* fp16 path, same: slices 4(mk + kn) + 8(m + n) = 134283264 bytes; the GEMM 2mk + 2kn +
	 * 4mn = 134217728 bytes under 68719476736 / 3.25632e13 s; the tail's words 65536 bytes;
	 * the epilogue 4mn + 2mn = 100663296 bytes; four launches. */
	CHECK(cost_estimate(&t4, &cube, COST_FP16, &e), "fp16 on a T4");
	double want = (134283264 / 320.064e9 + 68719476736.0 / t4_tensor + 65536 / 320.064e9 +
		       100663296 / 320.064e9) * 1e6 + 4 * 4;
	CHECK(near(e.us, want), "fp16 4096^3 %.4f us, want %.4f", e.us, want);
	CHECK(near(e.bytes, 134283264.0 + 134217728 + 65536 + 100663296) && e.launches == 4,
	      "fp16 bytes %g, launches %d", e.bytes, e.launches);

	/* fp32 path with C fp32: two casts (6mk, 6kn bytes) and the GEMM writing C (4mk + 4kn +
	 * 4mn), no epilogue; with C bf16 the epilogue (4mn + 2mn) too. */
	struct cost_gemm f = {1024, 1024, 1024, 1, 4, 0};
	CHECK(cost_estimate(&gtx1080, &f, COST_FP32, &e), "fp32 on a GTX 1080");
	double bw = 2 * 5005000e3 * 32, rate = 128.0 * 20 * 1733.5e6 * 0.84;
	want = (6 * 1048576.0 / bw) * 2 * 1e6 + 8 +
	       fmax(12 * 1048576.0 / bw, 1073741824.0 / rate) * 1e6 + 4;
	CHECK(near(e.us, want) && e.launches == 3, "fp32 1024^3 %.4f us, want %.4f", e.us, want);
	f.c_bytes = 2;
	CHECK(cost_estimate(&gtx1080, &f, COST_FP32, &e) && e.launches == 4, "fp32, C bf16");
	/* Native bf16 on sm_61 is modeled (cuBLAS 12 runs it): 2mk + 2kn + 2mn bytes under the
	 * multiply-adds at the bf16 rate; below sm_50 cuBLAS runs no such GEMM. */
	CHECK(cost_estimate(&gtx1080, &f, COST_NATIVE, &e) &&
	      near(e.us, fmax(6 * 1048576.0 / bw, 1073741824.0 / (rate * 0.56)) * 1e6 + 4),
	      "native bf16 on sm_61 %.4f us", e.us);
	struct cost_device kepler = gtx1080;
	kepler.sm = 37;
	CHECK(cost_estimate(&kepler, &f, COST_NATIVE, &e) == 0, "native bf16 on sm_37");
	CHECK(cost_estimate(&gtx1080, &f, COST_FP16, &e) == 0, "fp16 path without tensor cores");

	/* Fused path, 512 x 4096 x 4096, C bf16, on the T4 by name: one launch of 4 x 16 tiles of
	 * 128 x 256 (64 blocks, the 40 SMs filled); 2mk + 2kn + 2mn = 41943040 bytes at the
	 * measured 114.6 GB/s (366 us) under the whole tiles' multiply-adds at half the measured
	 * fp16 rate, 42.31e12 / 2 / 2 a second (406 us): the multiply-adds' time + 4 us. */
	struct cost_gemm fz = {512, 4096, 4096, 1, 2, 0};
	CHECK(cost_estimate(&named_t4, &fz, COST_FUSED, &e) && e.launches == 1, "fused on a T4");
	want = fmax(41943040 / 114.6e9, 8589934592.0 / (42.31e12 / 2 * COST_FUSED_EFFICIENCY)) *
		       1e6 + 4;
	CHECK(near(e.us, want) && near(e.bytes, 41943040), "fused 512x4096x4096 %.4f us, want %.4f",
	      e.us, want);
	/* A GEMM of 20 rows pays for a tile of 128: unsplit, 16 blocks, 0.4 of the SMs, whose
	 * share of the bandwidth (33882112 bytes) and of the rate bound it.  Split 4 ways (k /
	 * 4 = 1024 each), 64 blocks fill the 40 SMs: 2mk + 2kn + 4 s mn = 35028992 bytes under
	 * the same multiply-adds at the full rate, then the epilogue's 4 s mn + 2 mn = 1474560
	 * bytes (81 blocks).  Split 2 ways, 32 blocks: 0.8 of the SMs. */
	fz.m = 20;
	double fused_fma = 16 * 128 * 256 * 4096.0, fused_rate = 42.31e12 / 2 * COST_FUSED_EFFICIENCY;
	double unsplit = fmax(33882112 / (114.6e9 * 0.4), fused_fma / (fused_rate * 0.4)) * 1e6 + 4;
	double split2 = fmax(34373632 / (114.6e9 * 0.8), fused_fma / (fused_rate * 0.8)) * 1e6 + 4 +
			819200 / 114.6e9 * 1e6 + 4;
	want = fmax(35028992 / 114.6e9, fused_fma / fused_rate) * 1e6 + 4 + 1474560 / 114.6e9 * 1e6 + 4;
	CHECK(want < split2 && split2 < unsplit, "the splits by hand: %.1f, %.1f, %.1f us", want,
	      split2, unsplit);
	CHECK_EQ_INT((int)cost_fused_splits(&named_t4, &fz), 4, "20x4096x4096 split on a T4");
	CHECK(cost_estimate(&named_t4, &fz, COST_FUSED, &e) && e.launches == 2, "fused, 20 rows");
	CHECK(near(e.us, want) && near(e.bytes, 35028992 + 1474560),
	      "fused 20x4096x4096 %.4f us, want %.4f", e.us, want);
	/* No split: where the grid fills the SMs (512 rows), a batch, the CUDA cores' kernel, a
	 * k with no split of a multiple of 32 and at least 256 (4000 = 32 x 125: 125 has no
	 * divisor up to 16 but 5, whose 800 is a multiple of 32: split; 4004: none). */
	fz.m = 512;
	CHECK_EQ_INT((int)cost_fused_splits(&named_t4, &fz), 1, "512x4096x4096: no split");
	fz.m = 20, fz.batch = 2;
	CHECK_EQ_INT((int)cost_fused_splits(&named_t4, &fz), 1, "a batch: no split");
	fz.batch = 1;
	CHECK_EQ_INT((int)cost_fused_splits(&gtx1080, &fz), 1, "the CUDA cores: no split");
	fz.k = 4000;
	CHECK_EQ_INT((int)cost_fused_splits(&named_t4, &fz), 5, "k 4000: 5 splits of 800");
	fz.k = 4004;
	CHECK_EQ_INT((int)cost_fused_splits(&named_t4, &fz), 1, "k 4004: no split");
	/* A split that would not pay: 640^3 (15 blocks) models faster unsplit than in 2 splits
	 * of 320, whose partial results and epilogue cost more than the fill saves. */
	struct cost_gemm sq = {640, 640, 640, 1, 2, 0};
	CHECK_EQ_INT((int)cost_fused_splits(&named_t4, &sq), 1, "640^3: no split");
	/* On the CUDA cores (GTX 1080), 1024^3 C fp32: 8 x 8 tiles of 128 x 128 at half the fp32
	 * rate; 2mk + 2kn + 4mn bytes. */
	CHECK(cost_estimate(&gtx1080, &f, COST_FUSED, &e) == 1, "fused on a GTX 1080");
	f.c_bytes = 4;
	CHECK(cost_estimate(&gtx1080, &f, COST_FUSED, &e), "fused, C fp32");
	want = fmax(8 * 1048576.0 / bw, 1073741824.0 / (rate * COST_FUSED_EFFICIENCY)) * 1e6 + 4;
	CHECK(near(e.us, want) && e.launches == 1, "fused 1024^3 on sm_61 %.4f us, want %.4f",
	      e.us, want);
	CHECK(cost_estimate(&kepler, &f, COST_FUSED, &e) == 0, "fused path on sm_37");

	/* Decode 1 x 4096 x 4096 on a T4: 128 blocks of 32 rows, enough (80), no split: A once
	 * (33554432 bytes), op(B) once a block (128 x 2 x 4096), C (8192): 34611200 bytes. */
	struct cost_gemm d1 = {1, 4096, 4096, 1, 2, 0}, d16 = {16, 4096, 4096, 1, 2, 0};
	CHECK(cost_estimate(&t4, &d1, COST_DECODE, &e), "decode on a T4");
	CHECK(near(e.us, 34611200 / 320.064e9 * 1e6 + 4) && e.launches == 1,
	      "decode 1x4096x4096 %.4f us", e.us);
	/* Decode 16 x 4096 x 4096 on a GTX 1080: 16 blocks of 256 rows, 40 wanted: 3 splits
	 * (at most 4096 / 320 = 12); A, op(B) 16 times (2097152), partial results 4 x 3 x 16 x
	 * 4096 = 786432 bytes, then the epilogue reading them and writing C (917504 bytes). */
	CHECK(cost_decode_splits(20, 16, 4096, 16) == 3, "splits %u",
	      cost_decode_splits(20, 16, 4096, 16));
	CHECK(cost_estimate(&gtx1080, &d16, COST_DECODE, &e) && e.launches == 2, "decode split");
	want = fmax(36438016 / bw, 16 * 4096.0 * 4096 / rate) * 1e6 + 4 + 917504 / bw * 1e6 + 4;
	CHECK(near(e.us, want), "decode 16x4096x4096 %.4f us, want %.4f", e.us, want);
	CHECK(cost_estimate(&t4, &(struct cost_gemm){17, 4096, 4096, 1, 2, 0}, COST_DECODE, &e) == 0,
	      "decode for 17 columns");
	/* No split where enough blocks come anyway, or k is short. */
	CHECK(cost_decode_splits(40, 128, 4096, 1) == 1 && cost_decode_splits(40, 16, 512, 16) == 1,
	      "needless splits");

	/* What the driver cannot tell: no model. */
	struct cost_device unknown = t4;
	unknown.mem_clock_khz = 0;
	CHECK(!cost_device_known(&unknown) && !cost_estimate(&unknown, &cube, COST_NATIVE, &e),
	      "a model without the memory clock");
}

/* The plan with cuBLAS of this major version (12: it runs bf16 below sm_70). */
static struct plan plan_with(const struct cost_device *cd, int64_t m, int64_t n, int64_t k,
			     int64_t batch, enum shim_path path, int cublas_major)
{
	struct plan_call c = {.atype = ABI_R_16BF, .btype = ABI_R_16BF, .ctype = ABI_R_16BF,
			      .compute = ABI_COMPUTE_32F, .algo = ABI_GEMM_DEFAULT_TENSOR_OP,
			      .transa = ABI_OP_T, .transb = ABI_OP_N, .m = m, .n = n, .k = k,
			      .batch = batch, .lda = k, .ldb = k, .ldc = m};
	struct plan_device d = {cd->sm, cd->tensor_cores, *cd, cublas_major};
	struct shim_config cfg = {.mode = MODE_AUTO, .path = path};
	return plan_gemm(&c, &d, &cfg);
}

/* The crossovers are cuBLAS 12's: the version Maxwell, Pascal and Volta users run. */
static struct plan plan_for(const struct cost_device *cd, int64_t m, int64_t n, int64_t k,
			    int64_t batch, enum shim_path path)
{
	return plan_with(cd, m, n, k, batch, path, 12);
}

/* Each crossover bench/cost.sh finds, from both sides: [device, m n k batch just below,
 * just at or above (the varying dimensions one apart), decision below, decision above]. */
static void crossovers(void)
{
	static const struct {
		const struct cost_device *d;
		const char *name;
		int64_t lo[4], hi[4];
		enum decision below, above;
	} x[] = {
		{&named_t4, "T4 square", {401, 401, 401, 1}, {402, 402, 402, 1}, DECIDE_PASS,
		 DECIDE_FP16},
		{&named_t4, "T4 square, fused", {524, 524, 524, 1}, {525, 525, 525, 1}, DECIDE_FP16,
		 DECIDE_FUSED},
		{&named_t4, "T4 square, compute-bound", {2560, 2560, 2560, 1}, {2561, 2561, 2561, 1},
		 DECIDE_FUSED, DECIDE_FP16},
		{&named_t4, "T4 tokens", {29, 4096, 4096, 1}, {30, 4096, 4096, 1}, DECIDE_PASS,
		 DECIDE_FUSED},
		{&named_t4, "T4 P V", {64, 256, 256, 16}, {64, 257, 257, 16}, DECIDE_PASS,
		 DECIDE_FUSED},
		{&named_v100, "V100 square", {504, 504, 504, 1}, {505, 505, 505, 1}, DECIDE_PASS,
		 DECIDE_FP16},
		{&named_v100, "V100 tokens", {46, 4096, 4096, 1}, {47, 4096, 4096, 1}, DECIDE_PASS,
		 DECIDE_FUSED},
		/* From 53 rows, 4 splits' partial results pass a fifth of the bytes (cost.h). */
		{&named_v100, "V100 tokens, past the split", {52, 4096, 4096, 1},
		 {53, 4096, 4096, 1}, DECIDE_FUSED, DECIDE_FP16},
		{&named_v100, "V100 P V", {64, 703, 703, 16}, {64, 704, 704, 16}, DECIDE_PASS,
		 DECIDE_FUSED},
		{&named_v100s, "V100S P V, fused", {64, 1087, 1087, 16}, {64, 1088, 1088, 16},
		 DECIDE_FP16, DECIDE_FUSED},
		{&named_v100s, "V100S square", {483, 483, 483, 1}, {484, 484, 484, 1}, DECIDE_PASS,
		 DECIDE_FP16},
		{&named_2080ti, "2080 Ti P V", {64, 492, 492, 16}, {64, 493, 493, 16}, DECIDE_PASS,
		 DECIDE_FP16},
		{&named_1660, "GTX 1660 square", {600, 600, 600, 1}, {601, 601, 601, 1}, DECIDE_PASS,
		 DECIDE_FP32},
		{&named_p100, "P100 tokens, decode", {12, 4096, 4096, 1}, {13, 4096, 4096, 1},
		 DECIDE_PASS, DECIDE_DECODE},
		{&named_p100, "P100 tokens, past decode", {16, 4096, 4096, 1}, {17, 4096, 4096, 1},
		 DECIDE_DECODE, DECIDE_PASS},
		{&named_p40, "P40 square", {828, 828, 828, 1}, {829, 829, 829, 1}, DECIDE_PASS,
		 DECIDE_FP32},
		{&named_1080, "GTX 1080 tokens", {184, 4096, 4096, 1}, {185, 4096, 4096, 1},
		 DECIDE_PASS, DECIDE_FP32},
		{&named_m40, "M40 tokens", {84, 4096, 4096, 1}, {85, 4096, 4096, 1}, DECIDE_PASS,
		 DECIDE_FP32},
	};
	for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
		struct plan lo = plan_for(x[i].d, x[i].lo[0], x[i].lo[1], x[i].lo[2], x[i].lo[3],
					  PATH_AUTO);
		struct plan hi = plan_for(x[i].d, x[i].hi[0], x[i].hi[1], x[i].hi[2], x[i].hi[3],
					  PATH_AUTO);
		CHECK_EQ_INT(lo.step[0].decision, x[i].below, "%s, below (%s)", x[i].name,
			     lo.step[0].reason);
		CHECK_EQ_INT(hi.step[0].decision, x[i].above, "%s, above (%s)", x[i].name,
			     hi.step[0].reason);
		CHECK(lo.model.valid && hi.model.valid && lo.model.rejected_us >= 0,
		      "%s: the model's figures", x[i].name);
		/* Where the library runs bf16 itself, a rewrite models at most PLAN_MARGIN of
		 * native. */
		if (x[i].above != DECIDE_PASS)
			CHECK(hi.model.chosen_us <= PLAN_MARGIN * hi.model.rejected_us ||
			      hi.model.rejected != DECIDE_PASS, "%s: the margin", x[i].name);
	}
	/* BF16SHIM_PATH overrides the model; a pass keeps its fallback for a refusal. */
	struct plan p = plan_for(&t4, 128, 128, 128, 1, PATH_FP16);
	CHECK_EQ_INT(p.step[0].decision, DECIDE_FP16, "BF16SHIM_PATH=fp16 below the crossover");
	/* A modeled pass is followed, for a library that refuses it, by the rewrite the model
	 * ranked next and that rewrite's fallbacks: fp16 then fp32 for 128^3 on a T4; decode
	 * then fp32 for a decode-shaped GEMM on a GTX 1080 (cuBLAS 11 refuses what cuBLAS 12
	 * runs there). */
	p = plan_for(&t4, 128, 128, 128, 1, PATH_AUTO);
	CHECK(p.step[0].decision == DECIDE_PASS && p.n == 3 && p.step[1].decision == DECIDE_FP16 &&
	      p.step[2].decision == DECIDE_FP32 && p.model.rejected == DECIDE_FP16,
	      "a modeled pass falls back to the next rewrite if the library refuses");
	p = plan_for(&named_1080, 1, 4096, 4096, 1, PATH_AUTO);
	CHECK(p.step[0].decision == DECIDE_PASS && p.n == 3 && p.step[1].decision == DECIDE_DECODE &&
	      p.step[2].decision == DECIDE_FP32, "a decode-shaped pass on sm_61: %d steps", p.n);
	/* Below sm_70 only cuBLAS 12 runs bf16 GEMMs: with cuBLAS 11 or 13, or a version
	 * unknown, the first step is the rewrite, where cuBLAS 12 would pass. */
	for (int major = 0; major <= 13; major += major ? 1 : 11) {
		struct plan q = plan_with(&named_1080, 16, 4096, 4096, 1, PATH_AUTO, major);
		struct plan r = plan_with(&named_p40, 512, 512, 512, 1, PATH_AUTO, major);
		CHECK_EQ_INT(q.step[0].decision, major == 12 ? DECIDE_PASS : DECIDE_DECODE,
			     "GTX 1080 16x4096x4096, cuBLAS %d (%s)", major, q.step[0].reason);
		CHECK_EQ_INT(r.step[0].decision, major == 12 ? DECIDE_PASS : DECIDE_FP32,
			     "P40 512^3, cuBLAS %d (%s)", major, r.step[0].reason);
	}
	/* From sm_70 on the version does not matter. */
	CHECK_EQ_INT(plan_with(&named_t4, 128, 128, 128, 1, PATH_AUTO, 0).step[0].decision,
		     DECIDE_PASS, "T4 128^3 with cuBLAS unknown");
	/* Without the driver's figures the architecture decides, as before. */
	struct cost_device unknown = t4;
	unknown.sm_count = 0;
	p = plan_for(&unknown, 128, 128, 128, 1, PATH_AUTO);
	CHECK(p.step[0].decision == DECIDE_FUSED && !p.model.valid, "no model: fused on a T4");
}

int main(void)
{
	name_presets();
	hand_computed();
	crossovers();
	CHECK_DONE("cost");
}
